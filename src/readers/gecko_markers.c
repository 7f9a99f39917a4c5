/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gecko_markers.c - marker payloads (causes, GC and IPC forms, string fields) and markers
 * (the Gecko profile reader; see read_gecko.c and pc_gecko.h).
 */
#include "core/pc_config.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_gecko.h"

/* --- marker payloads --- */

/* phase times in ms -> us (convertPhaseTimes). */
static cJSON *phase_times(const cJSON *times)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *t;

	cJSON_ArrayForEach(t, times)
	{
		if (cJSON_IsNumber(t))
			cJSON_AddNumberToObject(out, t->string, t->valuedouble * 1000);
		else
			cJSON_AddItemToObject(out, t->string, cJSON_CreateNull());
	}
	return out;
}

/* GCSlice and GCMajor payloads become {type, timings} with phase_times. */
static cJSON *convert_gc(cJSON *root, const char *type)
{
	cJSON *timings = cJSON_GetObjectItemCaseSensitive(root, "timings"), *out, *st;

	if (!cJSON_IsObject(timings))
		return NULL; /* the front-end would throw; keep the payload */
	if (strcmp(type, "GCMajor") == 0) {
		st = cJSON_GetObjectItemCaseSensitive(timings, "status");
		if (!cJSON_IsString(st))
			return NULL;
		if (strcmp(st->valuestring, "aborted") == 0) {
			out = cJSON_CreateObject();
			cJSON_AddStringToObject(out, "type", "GCMajor");
			st = cJSON_AddObjectToObject(out, "timings");
			cJSON_AddStringToObject(st, "status", "aborted");
			return out;
		}
		if (strcmp(st->valuestring, "completed") != 0)
			return NULL;
	}
	timings = cJSON_DetachItemFromObjectCaseSensitive(root, "timings");
	if (strcmp(type, "GCSlice") == 0) {
		cJSON *times = cJSON_DetachItemFromObjectCaseSensitive(timings, "times");

		cJSON_AddItemToObject(timings, "phase_times",
				      times ? phase_times(times) : cJSON_CreateObject());
		cJSON_Delete(times);
	} else {
		static const char *const mmu[] = { "mmu_20ms", "mmu_50ms" };
		cJSON *totals = cJSON_DetachItemFromObjectCaseSensitive(timings, "totals");
		size_t i;

		cJSON_AddItemToObject(timings, "phase_times", phase_times(totals));
		cJSON_Delete(totals);
		for (i = 0; i < PC_ARRAY_SIZE(mmu); i++) {
			cJSON *v = cJSON_GetObjectItemCaseSensitive(timings, mmu[i]);

			if (cJSON_IsNumber(v))
				cJSON_SetNumberValue(v, v->valuedouble / 100);
			else if (!v)
				cJSON_AddNullToObject(timings, mmu[i]);
		}
	}
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "type", type);
	cJSON_AddItemToObject(out, "timings", timings);
	return out;
}

/* IPC: the listed fields only, otherPid as a string. */
static cJSON *convert_ipc(const cJSON *root)
{
	static const char *const keys[] = { "startTime", "endTime",   "otherPid", "messageType",
					    "messageSeqno", "side",   "direction", "phase",
					    "sync",	    "threadId" };
	cJSON *out = cJSON_CreateObject();
	size_t i;

	cJSON_AddStringToObject(out, "type", "IPC");
	for (i = 0; i < PC_ARRAY_SIZE(keys); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
		char buf[64];

		if (i != 2) {
			if (v)
				cJSON_AddItemToObject(out, keys[i], cJSON_Duplicate(v, 1));
			continue;
		}
		/* `${otherPid}` */
		if (cJSON_IsString(v))
			pc_snprintf(buf, sizeof(buf), "%s", v->valuestring);
		else if (cJSON_IsNumber(v) && v->valuedouble > -9e15 && v->valuedouble < 9e15 &&
			 v->valuedouble == (double)(long long)v->valuedouble)
			pc_snprintf(buf, sizeof(buf), "%lld", (long long)v->valuedouble);
		else if (cJSON_IsNumber(v))
			pc_snprintf(buf, sizeof(buf), "%.17g", v->valuedouble);
		else
			pc_snprintf(buf, sizeof(buf), "%s",
				    !v ? "undefined" : cJSON_IsNull(v) ? "null" :
				    cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" : "[object Object]");
		cJSON_AddStringToObject(out, keys[i], buf);
	}
	return out;
}

/* Add delta ms to a number member. */
static int shift_member(cJSON *o, const char *key, double delta)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		return 0;
	cJSON_SetNumberValue(v, v->valuedouble + delta);
	return 1;
}

/*
 * One marker payload (raw JSON): *out gets its string (PC_NONE to drop the
 * marker).  See _processMarkerPayload() and adjustMarkerTimestamps().
 */
static int payload(struct conv *c, const char *raw, size_t len, uint32_t *out)
{
	static const char *const net[] = { "domainLookupStart", "domainLookupEnd", "connectStart",
					   "tcpConnectEnd",	"secureConnectionStart",
					   "connectEnd",	"requestStart",    "responseStart",
					   "responseEnd" };
	struct gr *r = c->r;
	cJSON *root = cJSON_ParseWithLength(raw, len), *stack, *conv = NULL;
	const cJSON *type;
	const char *tname = NULL;
	int modified = 0;
	uint32_t i;

	*out = PC_NONE;
	if (!cJSON_IsObject(root)) {
		/* the front-end reads data.type of every payload: only an object
		 * (or null) is a payload; anything else goes, with a warning */
		cJSON_Delete(root);
		r->bad_payloads++;
		return 0;
	}
	type = cJSON_GetObjectItemCaseSensitive(root, "type");
	if (cJSON_IsString(type))
		tname = type->valuestring;
	if (tname && (strcmp(tname, "JS allocation") == 0 ||
		      strcmp(tname, "Native allocation") == 0)) {
		cJSON_Delete(root);
		r->dropped_alloc++;
		return 0;
	}
	/* _convertStackToCause: a backtrace (with samples) becomes a cause */
	stack = cJSON_GetObjectItemCaseSensitive(root, "stack");
	if (cJSON_IsObject(stack)) {
		cJSON *samples = cJSON_GetObjectItemCaseSensitive(stack, "samples");
		cJSON *schema = cJSON_GetObjectItemCaseSensitive(samples, "schema");
		cJSON *data = cJSON_GetObjectItemCaseSensitive(samples, "data");

		if (cJSON_GetArraySize(data) > 0) {
			cJSON *row = cJSON_GetArrayItem(data, 0);
			cJSON *si = cJSON_GetArrayItem(
				row, gecko_small_index(cJSON_GetObjectItemCaseSensitive(schema, "stack")));
			cJSON *ti = cJSON_GetArrayItem(
				row, gecko_small_index(cJSON_GetObjectItemCaseSensitive(schema, "time")));
			cJSON *tid = cJSON_GetObjectItemCaseSensitive(stack, "tid");

			stack = cJSON_DetachItemFromObjectCaseSensitive(root, "stack");
			modified = 1;
			if (cJSON_IsNumber(si) && si->valuedouble >= 0 &&
			    si->valuedouble < c->ns && si->valuedouble == (double)(uint32_t)si->valuedouble) {
				uint32_t s = gecko_stack_for(c, (uint32_t)si->valuedouble, 1);
				cJSON *cause;

				if (s == PC_NONE) {
					cJSON_Delete(stack);
					cJSON_Delete(root);
					return gecko_nomem(r);
				}
				cause = cJSON_AddObjectToObject(root, "cause");
				if (tid)
					cJSON_AddItemToObject(cause, "tid", cJSON_Duplicate(tid, 1));
				if (ti)
					cJSON_AddItemToObject(cause, "time", cJSON_Duplicate(ti, 1));
				cJSON_AddNumberToObject(cause, "stack", s);
			} else if (!cJSON_IsNull(si)) {
				r->bad_causes++;
			}
			cJSON_Delete(stack);
		}
	}
	if (tname && (strcmp(tname, "GCSlice") == 0 || strcmp(tname, "GCMajor") == 0))
		conv = convert_gc(root, tname);
	else if (tname && strcmp(tname, "IPC") == 0)
		conv = convert_ipc(root);
	if (conv) {
		cJSON_Delete(root);
		root = conv;
		modified = 1;
		type = cJSON_GetObjectItemCaseSensitive(root, "type");
		tname = type->valuestring;
	}
	/* unique-string fields hold thread string indexes: re-intern them */
	for (i = 0; tname && i < r->nustrs; i++) {
		cJSON *v;

		if (strcmp(pc_spool_str(&r->ustr_pool, r->ustrs[i].type), tname) != 0)
			continue;
		v = cJSON_GetObjectItemCaseSensitive(root, pc_spool_str(&r->ustr_pool, r->ustrs[i].key));
		if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < c->nstr &&
		    v->valuedouble == (double)(uint32_t)v->valuedouble) {
			uint32_t s = gecko_model_str(c, (uint32_t)v->valuedouble);

			if (s == PC_NONE) {
				cJSON_Delete(root);
				return gecko_nomem(r);
			}
			cJSON_SetNumberValue(v, s);
			modified = 1;
		} else if (cJSON_IsNumber(v)) {
			/* not an index of the thread's string table: the front-end
			 * would show some other string, so the field goes */
			cJSON_DeleteItemFromObjectCaseSensitive(
				root, pc_spool_str(&r->ustr_pool, r->ustrs[i].key));
			r->bad_ustrs++;
			modified = 1;
		}
	}
	/* subprocess: payload times move with the markers */
	if (c->pr->start_ns != r->procs[0]->start_ns) {
		/* in doubles, as the payload's numbers are; the difference may leave int64 */
		double d = ((double)c->pr->start_ns - (double)r->procs[0]->start_ns) / 1e6;
		cJSON *cause = cJSON_GetObjectItemCaseSensitive(root, "cause");

		modified |= shift_member(root, "startTime", d);
		modified |= shift_member(root, "endTime", d);
		if (cJSON_IsObject(cause))
			modified |= shift_member(cause, "time", d);
		if (tname && strcmp(tname, "Network") == 0)
			for (i = 0; i < PC_ARRAY_SIZE(net); i++)
				modified |= shift_member(root, net[i], d);
	}
	(void)modified;
	(void)len;
	/* the payload as a tree; too deep to be one: dropped with a warning */
	i = (uint32_t)pc_jr_pv_from_cjson(r->m, root, out);
	cJSON_Delete(root);
	if (i == 1) {
		r->bad_payloads++;
		*out = PC_NONE;
		return 0;
	}
	return (int)i;
}

int gecko_conv_markers(struct conv *c)
{
	struct gr *r = c->r;
	const struct gtable *g = &c->gt->markers;
	struct pc_thread *th = r->m->threads[c->gt->mt];
	uint32_t n = g->nrows, i, k, *idx, *tmp;
	int64_t *key;
	int err = 0;

	idx = pc_alloc(r->ctx, ((size_t)n + 1) * sizeof(*idx));
	tmp = pc_alloc(r->ctx, ((size_t)n + 1) * sizeof(*tmp));
	key = pc_alloc(r->ctx, ((size_t)n + 1) * sizeof(*key));
	if (!idx || !tmp || !key) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	/* _sortMarkers: by endTime || startTime; neither: dropped (the front-end throws) */
	for (i = 0, k = 0; i < n && !err; i++) {
		int64_t s = PC_NO_TIME, e = PC_NO_TIME;

		err = gecko_cell_time(r, g, i, MC_START, &s);
		if (!err)
			err = gecko_cell_time(r, g, i, MC_END, &e);
		if (err)
			break;
		key[i] = e != PC_NO_TIME && e != 0 ? e : s;
		if (key[i] == PC_NO_TIME) {
			r->dropped_notime++;
			continue;
		}
		idx[k++] = i;
	}
	if (err)
		goto out;
	pc_sort_by_key(idx, tmp, key, k);
	for (i = 0; i < k && !err; i++) {
		uint32_t row = idx[i], name = 0, data = PC_NONE, phase = 0, cat = 0;
		int64_t s = PC_NO_TIME, e = PC_NO_TIME, v;
		uint8_t t;

		err = gecko_cell_index(r, g, row, MC_NAME, 0, c->nstr, &name);
		if (!err)
			err = gecko_cell_time(r, g, row, MC_START, &s);
		if (!err)
			err = gecko_cell_time(r, g, row, MC_END, &e);
		if (err)
			break;
		/* a subprocess's: moved to the parent's start (one shift for all: still sorted) */
		if ((s != PC_NO_TIME &&
		     gecko_shift_time(s, c->pr->start_ns, r->procs[0]->start_ns, &s)) ||
		    (e != PC_NO_TIME &&
		     gecko_shift_time(e, c->pr->start_ns, r->procs[0]->start_ns, &e))) {
			r->shifted_out++;
			continue;
		}
		if (gecko_cell(g, row, MC_PHASE, &v) == CT_INT && v >= 0 && v <= PC_PHASE_END)
			phase = (uint32_t)v;
		/*
		 * Instant and IntervalStart need a start, IntervalEnd an end,
		 * Interval both (the front-end reads only those).  A marker
		 * missing one becomes an instant at the time it has.
		 */
		if (((phase == PC_PHASE_INSTANT || phase == PC_PHASE_START ||
		      phase == PC_PHASE_INTERVAL) && s == PC_NO_TIME) ||
		    ((phase == PC_PHASE_END || phase == PC_PHASE_INTERVAL) && e == PC_NO_TIME)) {
			if (s == PC_NO_TIME)
				s = e;
			e = PC_NO_TIME;
			phase = PC_PHASE_INSTANT;
			r->bad_times++;
		}
		t = gecko_cell(g, row, MC_CAT, &v);
		if (t == CT_INT && v >= 0 && v < r->m->ncategories)
			cat = (uint32_t)v;
		else if (t != CT_NULL && t != CT_ABSENT)
			r->bad_categories++;
		t = gecko_cell(g, row, MC_DATA, &v);
		if (t == CT_RAW) {
			uint64_t dropped = r->dropped_alloc;

			err = payload(c, pc_spool_str(&c->gt->raw, (uint32_t)v),
				      pc_spool_len(&c->gt->raw, (uint32_t)v), &data);
			if (err)
				break;
			if (r->dropped_alloc != dropped)
				continue; /* an allocation marker */
		}
		name = gecko_model_str(c, name);
		if (name == PC_NONE) {
			err = gecko_nomem(r);
			break;
		}
		{
			struct pc_marker_row mr;

			pc_marker_row_init(&mr);
			mr.name = name;
			mr.start = s;
			mr.end = e;
			mr.phase = (uint8_t)phase;
			mr.category = (uint16_t)cat;
			mr.payload = data;
			/* the cause _convertStackToCause made goes to its columns */
			pc_jr_take_cause(r->m, data, &mr);
			err = pc_marker_push(r->m, th, &mr);
		}
	}
out:
	pc_free(r->ctx, idx);
	pc_free(r->ctx, tmp);
	pc_free(r->ctx, key);
	return err;
}
