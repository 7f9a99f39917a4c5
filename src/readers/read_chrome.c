/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read_chrome.c - Chrome's Trace Event Format (JSON), as Chrome, Perfetto's
 * JSON export and many tools write it (docs/formats/chrome-trace.md; facts
 * from catapult's trace_event_importer, Perfetto's JSON importer and the
 * Firefox Profiler's chrome.ts, collected in ../shared/docs/chrome-trace.md).
 *
 * This file holds the reader's entry points (detection, read, info,
 * blame), the document's walk, the dispatch of each event by its phase,
 * metadata and counters, and what is done once the events are read (the
 * interval, thread order, times made relative); the other concerns have a
 * file each, sharing struct rd and the declarations in pc_chrome.h:
 *
 *   input        the array form [ev, ...] (a missing ']' at the end, as Chrome
 *                leaves it when it cannot finish, is one warning), or the
 *                object form {"traceEvents": [...], "metadata": {...}, ...};
 *                streamed with the pull tokenizer; each event object is
 *                scanned once where it lies in the input chunk, on a thread
 *                of its own (chrome_scan.c: syntax checked, the members used
 *                decoded, the args text kept, its members decoded here when
 *                a payload is built; the document is never a tree);
 *                V8 Profile/ProfileChunk events are read again from their
 *                text (chrome_v8.c); only C, other P, context events and a
 *                process's stackFrames are parsed with cJSON (with_cjson())
 *   M            process_name, thread_name, process/thread_sort_index,
 *                process_labels (here)
 *   X, B/E       interval markers (B without E: an IntervalStart marker)
 *   I, i, R      instant markers; both with Trace payloads {type:
 *                "Trace", cat, and each args member (nested values as
 *                JSON text)}, shared through a cache, and a schema listing
 *                the members seen (chrome_markers.c)
 *   b/e, S/F, n  async spans and instants: markers on a track of their own
 *                per process (a marker-only thread, "Async events";
 *                chrome_async.c)
 *   C            counters, one per (pid, name[, id], series) (here)
 *   P Profile/ProfileChunk
 *                V8 CPU profiles: real samples at their recorded times
 *                (deltas summed, negatives included, then sorted), JS frames
 *                with their script as the file and 1-based lines/columns,
 *                each sample weighing the time to its profile's next one
 *                (chrome_v8.c)
 *   (no samples) a thread with slices and no samples gets samples derived
 *                from its slice nesting, one per stretch of unchanged open
 *                slices weighing its time, and an empty one weighing
 *                nothing at the start of each gap between slices, so the
 *                call tree shows where its time went (chrome_samples.c)
 *   s, t, f      flows (v1), and bind_id with flow_in/flow_out on a slice
 *                (v2): no markers of their own, fields of the slices they
 *                bind (chrome_flows.c)
 *   (, ), O, D   FrameBlamer contexts, and profconv blame (chrome_ctx.c)
 *   stackFrames, samples, other P
 *                trace samples with stacks from the stackFrames
 *                dictionaries or stack arrays (chrome_stacks.c)
 * Not imported (one counted warning each): other phases.
 */
#include "core/pc_config.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/pc_itab.h"
#include "readers/pc_chrome.h"

/* --- detection --- */

static int bid(const unsigned char *peek, size_t len)
{
	size_t i = pc_jr_peek_start(peek, len); /* a UTF-8 BOM too, as JSON allows */

	if (i == len)
		return 0;
	if (peek[i] == '{' && pc_jr_peek_has(peek, len, "\"traceEvents\""))
		return 48;
	if (peek[i] == '[' && pc_jr_peek_has(peek, len, "\"ph\"") &&
	    !pc_jr_peek_has(peek, len, "\"preprocessedProfileVersion\""))
		return 40;
	return 0;
}

/* --- helpers --- */

const char *pc_chrome_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number or a numeric string (Perfetto accepts both), as a double. */
int pc_chrome_jnum(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *end;

	if (cJSON_IsNumber(v) && pc_jnum_finite(v->valuedouble)) {
		*out = v->valuedouble;
		return 1;
	}
	if (cJSON_IsString(v) && v->valuestring[0]) {
		*out = strtod(v->valuestring, &end);
		return !*end && pc_jnum_finite(*out);
	}
	return 0;
}

static int cv_num(const struct cjv *v, double *out)
{
	char *end;

	if (v->kind == CJ_NUM && pc_jnum_finite(v->d)) {
		*out = v->d;
		return 1;
	}
	if (v->kind == CJ_STR && v->s[0]) {
		*out = strtod(v->s, &end);
		return !*end && pc_jnum_finite(*out);
	}
	return 0;
}

/*
 * A double as int64, truncated; INT64_MIN when it does not fit (what the
 * x86-64 conversion the reader used to rely on gives, without the
 * undefined behaviour).
 */
static int64_t to_i64(double d)
{
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		return (int64_t)d;
	return INT64_MIN;
}

/* pid/tid: numbers; a string is hashed into a stable negative id. */
static int64_t cv_id(const struct cjv *v, int64_t dflt)
{
	if (v->kind == CJ_NUM)
		return to_i64(v->d);
	if (v->kind == CJ_STR) {
		char *end;
		long long n = strtoll(v->s, &end, 10);

		if (v->s[0] && !*end)
			return n;
		return -(int64_t)(pc_hash_bytes(v->s, strlen(v->s), 0) >> 2) - 2;
	}
	return dflt;
}

int pc_chrome_args(struct rd *r, const struct cev *ce)
{
	/* the batch is the reader's while it handles its events */
	struct cev *e = (struct cev *)(uintptr_t)ce;
	struct pc_jscan *js = &r->ajs;
	uint32_t nargs = 0, k;
	int err;

	if (!e->args_later)
		return 0;
	e->args_later = 0;
	pc_jscan_start(js, e->args.s, e->args.len, UINT_MAX); /* (its depth: checked) */
	err = pc_chrome_scan_args(js, r->ctx, &r->aargs, &nargs, &r->aargs_cap, &e->na);
	if (err == PC_JSCAN_BAD)
		return pc_fail(r->ctx, PROFCONV_ERR_INTERNAL, NULL,
			       "%s: args the scanner checked could not be read again", r->name);
	if (err)
		return err;
	for (k = 0; k < nargs; k++) {
		struct carg *a = &r->aargs[k];

		a->key = js->out + a->koff;
		if (a->v.kind == CJ_STR || a->v.kind == CJ_OBJ || a->v.kind == CJ_ARR)
			a->v.s = js->out + a->v.off;
	}
	e->a = nargs ? r->aargs : NULL;
	return 0;
}

/* The first args member named key (cJSON_GetObjectItemCaseSensitive), or NULL. */
static const struct cjv *cv_arg(const struct cev *e, const char *key)
{
	uint32_t i;

	if (e->args.kind != CJ_OBJ)
		return NULL;
	for (i = 0; i < e->na; i++)
		if (strcmp(e->a[i].key, key) == 0)
			return &e->a[i].v;
	return NULL;
}

int64_t pc_chrome_us_to_ns(double us)
{
	double ns = us * 1000.0;

	if (ns >= 9.2e18)
		return INT64_MAX - 1;
	if (ns <= -9.2e18)
		return INT64_MIN + 1;
	return (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
}

struct tinfo *pc_chrome_thread(struct rd *r, int64_t pid, int64_t tid)
{
	struct pc_thread *t;
	uint32_t i, slot;
	char name[64];

	if (r->last_th && r->last_pid == pid && r->last_tid == tid)
		return &r->th[r->last_th - 1];
	slot = (uint32_t)pc_hash64((uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ (uint64_t)tid) &
	       (PC_ARRAY_SIZE(r->tmemo) - 1);
	if (r->tmemo[slot].th && r->tmemo[slot].pid == pid && r->tmemo[slot].tid == tid) {
		i = r->tmemo[slot].th - 1;
		goto found;
	}
	t = pc_thread_find(r->m, pid, tid);
	if (t) {
		for (i = 0; i < r->nth; i++)
			if (r->th[i].t == t) {
				r->tmemo[slot].pid = pid;
				r->tmemo[slot].tid = tid;
				r->tmemo[slot].th = i + 1;
				goto found;
			}
	}
	if (pc_grow(r->ctx, (void **)&r->th, sizeof(*r->th), &r->th_cap, (size_t)r->nth + 1) ||
	    pc_grow(r->ctx, (void **)&r->cs, sizeof(*r->cs), &r->cs_cap, (size_t)r->nth + 1))
		return NULL;
	memset(&r->cs[r->nth], 0, sizeof(r->cs[r->nth]));
	t = pc_thread_add(r->m, pid, tid);
	if (!t)
		return NULL;
	pc_snprintf(name, sizeof(name), "Thread %lld", (long long)tid);
	t->name = pc_chrome_intern(r, name);
	memset(&r->th[r->nth], 0, sizeof(r->th[r->nth]));
	r->th[r->nth].t = t;
	r->th[r->nth].pid = pid;
	r->th[r->nth].tid = tid;
	return &r->th[r->nth++];
found:
	r->last_pid = pid;
	r->last_tid = tid;
	r->last_th = i + 1;
	return &r->th[i];
}

/*
 * A few events ahead of the one being handled: start loading the payload
 * cache slot it will look in (by the hashes of its cat and args text, which
 * the scanner worked out), guessing it gets the context set the last one
 * got.  The slots are spread over 16,384, and most lookups waited for
 * memory.
 */
static inline void ev_ahead(const struct rd *r, const struct cev *e)
{
#if defined(__GNUC__)
	if (e->aid) /* (its slot is found through the ids' map) */
		__builtin_prefetch(&r->aidm[e->aid & (AID_SLOTS - 1)]);
	else if (e->cat.kind == CJ_STR)
		__builtin_prefetch(&r->pl[pc_chrome_pl_hash(e->hcat,
							    e->args.kind == CJ_OBJ ? e->hargs : 0,
							    r->pl_set) &
					  (PL_SLOTS - 1)]);
#else
	(void)r;
	(void)e;
#endif
}

#define AHEAD 4 /* events */

/* Nearer: start loading the key the slot holds (the slot has come by now). */
static inline void ev_nearer(const struct rd *r, const struct cev *e)
{
#if defined(__GNUC__)
	const struct pl_slot *sl;

	if (!e->hcat)
		return;
	if (e->args.kind != CJ_OBJ)
		return;
	if (e->aid) {
		uint32_t i = r->aidm[e->aid & (AID_SLOTS - 1)];

		if (i)
			__builtin_prefetch(&r->pl[i - 1]);
		return;
	}
	sl = &r->pl[pc_chrome_pl_hash(e->hcat, e->hargs, r->pl_set) & (PL_SLOTS - 1)];
	if (sl->key)
		__builtin_prefetch(sl->key);
#else
	(void)r;
	(void)e;
#endif
}

/* --- counters --- */

static int counter_event(struct rd *r, const cJSON *ev, int64_t pid, int64_t ts, const char *name,
			 const char *catname)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args"), *a;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");
	int err = 0;

	if (!cJSON_IsObject(args))
		return 0;
	cJSON_ArrayForEach(a, args)
	{
		char key[512], cname[300];
		double v;
		uint32_t i, c = PC_NONE;

		if (!a->string)
			continue;
		if (cJSON_IsNumber(a))
			v = a->valuedouble;
		else if (cJSON_IsString(a) && a->valuestring[0])
			v = strtod(a->valuestring, NULL);
		else
			continue;
		if (cJSON_IsString(id))
			pc_snprintf(cname, sizeof(cname), "%s[%s]", name, id->valuestring);
		else if (cJSON_IsNumber(id))
			pc_snprintf(cname, sizeof(cname), "%s[%.17g]", name, id->valuedouble);
		else
			pc_snprintf(cname, sizeof(cname), "%s", name);
		if (strcmp(a->string, "value") != 0 && cJSON_GetArraySize(args) > 1)
			pc_snprintf(cname + strlen(cname), sizeof(cname) - strlen(cname), " %s",
				    a->string);
		pc_snprintf(key, sizeof(key), "%lld\x1f%s", (long long)pid, cname);
		for (i = 0; i < r->nck; i++)
			if (strcmp(r->ck[i].key, key) == 0)
				c = r->ck[i].counter;
		if (c == PC_NONE) {
			uint32_t proc = pc_process_get(r->m, pid);

			if (pc_grow(r->ctx, (void **)&r->ck, sizeof(*r->ck), &r->ck_cap,
				    (size_t)r->nck + 1))
				return PROFCONV_ERR_NOMEM;
			c = pc_counter_add(r->m, cname, catname ? catname : "Trace", cname, proc);
			r->ck[r->nck].key = pc_strdup(r->ctx, key);
			if (c == PC_NONE || !r->ck[r->nck].key) {
				pc_free(r->ctx, r->ck[r->nck].key);
				return PROFCONV_ERR_NOMEM;
			}
			r->ck[r->nck++].counter = c;
		}
		err = pc_counter_sample(r->m, c, ts, v, 0, 0);
		if (err)
			return err;
	}
	return err;
}

/* --- metadata --- */

struct pmeta *pc_chrome_pmeta(struct rd *r, int64_t pid)
{
	uint32_t i;

	for (i = 0; i < r->npm; i++)
		if (r->pm[i].pid == pid)
			return &r->pm[i];
	if (pc_grow(r->ctx, (void **)&r->pm, sizeof(*r->pm), &r->pm_cap, (size_t)r->npm + 1))
		return NULL;
	memset(&r->pm[r->npm], 0, sizeof(r->pm[r->npm]));
	r->pm[r->npm].pid = pid;
	return &r->pm[r->npm++];
}

/*
 * M events.  Of several that say the same thing of one thread or process
 * the first counts, as in the Firefox Profiler's Chrome importer (its
 * findEvent() takes the first match).
 */
static int metadata_event(struct rd *r, struct tinfo *ti, const struct cev *e, int64_t pid,
			  const char *name)
{
	const struct cjv *sv, *nv;
	const char *s;
	double v;
	int err = pc_chrome_args(r, e);

	if (err)
		return err;
	sv = cv_arg(e, "name");
	s = sv ? pc_chrome_cv_str(sv) : NULL;

	if (strcmp(name, "thread_name") == 0 && s && ti) {
		if (ti->named)
			return 0;
		ti->named = 1;
		ti->t->name = pc_chrome_intern(r, s);
		return ti->t->name == PC_NONE ? PROFCONV_ERR_NOMEM : 0;
	}
	if (strcmp(name, "process_name") == 0 && s) {
		uint32_t proc = pc_process_get(r->m, pid);

		if (proc == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		if (!r->m->processes.rows[proc].name)
			r->m->processes.rows[proc].name = pc_model_keep(r->m, s, strlen(s));
		return 0;
	}
	nv = cv_arg(e, "sort_index");
	if (strcmp(name, "process_sort_index") == 0 && nv && cv_num(nv, &v)) {
		struct pmeta *pm = pc_chrome_pmeta(r, pid);

		if (!pm)
			return PROFCONV_ERR_NOMEM;
		if (!pm->has_sort) {
			pm->sort_index = to_i64(v);
			pm->has_sort = 1;
		}
		return 0;
	}
	sv = cv_arg(e, "labels");
	if (strcmp(name, "process_labels") == 0 && sv && (s = pc_chrome_cv_str(sv)) && *s) {
		struct pmeta *pm = pc_chrome_pmeta(r, pid);

		if (!pm)
			return PROFCONV_ERR_NOMEM;
		if (pm->labels)
			return 0;
		pm->labels = pc_model_keep(r->m, s, strlen(s));
		return pm->labels ? 0 : PROFCONV_ERR_NOMEM;
	}
	if (ti && strcmp(name, "thread_sort_index") == 0 && nv && cv_num(nv, &v) && !ti->has_sort) {
		ti->sort_index = to_i64(v);
		ti->has_sort = 1;
	}
	return 0;
}

/* --- one event --- */

/*
 * The kinds whose handlers read deep into the event (V8 profiles, stack
 * samples, contexts, counters, a process's stackFrames): the event text
 * parsed with cJSON.  Lone surrogate escapes become U+FFFD first, as the
 * scanner decodes them (cJSON refuses them).
 */
static int with_cjson(struct rd *r, const struct cevr *ev, cJSON **out)
{
	size_t len = ev->len;
	char *doc = pc_alloc(r->ctx, len + 2);
	uint64_t off = ev->off;

	*out = NULL;
	if (!doc)
		return PROFCONV_ERR_NOMEM;
	doc[0] = '{';
	memcpy(doc + 1, ev->text, len);
	doc[len + 1] = 0;
	pc_json_fix_surrogates(doc, len + 1, "", NULL, 0);
	*out = cJSON_ParseWithLength(doc, len + 1);
	pc_free(r->ctx, doc);
	return *out ? 0
		    : pc_fail_at(r->ctx, PROFCONV_ERR_NOMEM, r->name, off,
				 "an object could not be parsed (out of memory)");
}

static int handle_event(struct rd *r, const struct cevr *ev)
{
	const struct cev *e = &ev->e;
	uint64_t off = ev->off;
	const char *name = pc_chrome_cv_str(&e->name), *ph = pc_chrome_cv_str(&e->ph);
	const char *cat = pc_chrome_cv_str(&e->cat);
	struct pc_loc loc = { r->name, off, 0, 0 };
	int64_t pid = cv_id(&e->pid, 0), tid, ts;
	double tsu = 0, dur;
	struct tinfo *ti;
	uint32_t nm, set;
	uint16_t c;
	cJSON *cj;
	int err;

	r->evseq++;
	if (!ph || !ph[0] || ph[1])
		return e->nmembers == 0 ? 0 /* {} */
					: pc_warn(r->ctx, W_BAD_EVENT, &loc,
						  "an event without a one-letter ph");
	tid = cv_id(&e->tid, pid);
	if (!cv_num(&e->ts, &tsu) && ph[0] != 'M')
		return pc_warn(r->ctx, W_BAD_EVENT, &loc, "a '%s' event without a numeric ts", ph);
	ts = pc_chrome_us_to_ns(tsu);
	if (ph[0] != 'M' && (r->first_ts == PC_NO_TIME || ts < r->first_ts))
		r->first_ts = ts;
	if (ph[0] != 'M' && ts > r->last_ts)
		r->last_ts = ts;
	if (ph[0] == 'X' && cv_num(&e->dur, &dur) && dur > 0 &&
	    pc_time_add(ts, pc_chrome_us_to_ns(dur)) > r->last_ts)
		r->last_ts = pc_time_add(ts, pc_chrome_us_to_ns(dur));
	if (ph[0] == 'M' && name && strncmp(name, "process_", 8) == 0)
		return metadata_event(r, NULL, e, pid, name); /* no thread of its own */
	ti = pc_chrome_thread(r, pid, tid);
	if (!ti)
		return PROFCONV_ERR_NOMEM;
	if (ph[0] == 'M') {
		if (!name)
			return 0;
		if (!pc_chrome_cjson_kind('M', name, e->name.len))
			return metadata_event(r, ti, e, pid, name);
		err = with_cjson(r, ev, &cj);
		if (!err)
			err = pc_chrome_stack_frames_event(r, cj, pid);
		cJSON_Delete(cj);
		return err;
	}
	if (!name && ph[0] != 'E')
		return pc_warn(r->ctx, W_BAD_EVENT, &loc, "a '%s' event without a name", ph);
	switch (ph[0]) {
	case 'X': {
		uint32_t pl, fl;
		int64_t end;

		if (!cv_num(&e->dur, &dur) || dur < 0)
			dur = 0;
		nm = pc_chrome_name_row(r, name, e->name.len, e->hname);
		c = pc_chrome_ev_category(r, e);
		set = pc_chrome_active_set(r, ti);
		pl = pc_chrome_payload(r, e, cat, set);
		if (pl == PC_NONE || nm == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		end = pc_time_add(ts, pc_chrome_us_to_ns(dur));
		err = pc_chrome_push_marker_set(r, ti, nm, ts, end, PC_PHASE_INTERVAL, c, pl, set);
		if (!err && e->x && e->x->bind_id.kind != CJ_NONE)
			err = pc_chrome_flow_v2(r, ti, e, ts, ti->t->markers.len - 1, &fl);
		if (!err && r->blame)
			err = pc_chrome_add_cslice(r, ti, nm, ts, end, set, 0, r->norder++);
		return err ? err : pc_chrome_keep_slice(r, ti, ts, end, nm, c);
	}
	case 'B': {
		struct open_b *b;

		if (pc_grow(r->ctx, (void **)&ti->open, sizeof(*ti->open), &ti->open_cap,
			    (size_t)ti->nopen + 1))
			return PROFCONV_ERR_NOMEM;
		b = &ti->open[ti->nopen];
		b->name = pc_chrome_name_row(r, name, e->name.len, e->hname);
		b->start = ts;
		b->cat = pc_chrome_ev_category(r, e);
		b->set = pc_chrome_active_set(r, ti);
		b->payload = pc_chrome_payload(r, e, cat, b->set);
		if (b->payload == PC_NONE || b->name == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		b->order = r->norder++;
		b->flow = 0;
		ti->nopen++;
		return e->x && e->x->bind_id.kind != CJ_NONE
			       ? pc_chrome_flow_v2(r, ti, e, ts, PC_NONE, &b->flow)
			       : 0;
	}
	case 'E': {
		struct open_b b;

		if (!ti->nopen)
			return pc_warn(r->ctx, W_UNMATCHED, &loc,
				       "an E event at %.3f us on thread %lld closes no B", tsu,
				       (long long)tid);
		b = ti->open[--ti->nopen];
		b.payload = pc_chrome_merge_end_args(r, b.payload, e);
		if (b.payload == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		err = pc_chrome_push_marker_set(r, ti, b.name, b.start, ts, PC_PHASE_INTERVAL, b.cat,
						b.payload, b.set);
		if (!err && b.flow)
			r->fl[b.flow - 1].row = ti->t->markers.len - 1;
		if (!err && r->blame)
			err = pc_chrome_add_cslice(r, ti, b.name, b.start, ts, b.set, 1, b.order);
		return err ? err : pc_chrome_keep_slice(r, ti, b.start, ts, b.name, b.cat);
	}
	case 'I':
	case 'i':
	case 'R':
	case 'n': {
		/* instants get no context (R6) */
		uint32_t pl = pc_chrome_payload(r, e, cat, PC_NONE);

		nm = pc_chrome_name_row(r, name, e->name.len, e->hname);
		if (pl == PC_NONE || nm == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		if (ph[0] == 'n') {
			/* an async instant: on the process's async track */
			ti = pc_chrome_async_thread(r, pid);
			if (!ti)
				return PROFCONV_ERR_NOMEM;
		}
		return pc_chrome_push_marker(r, ti, nm, ts, PC_NO_TIME, PC_PHASE_INSTANT,
					     pc_chrome_ev_category(r, e), pl);
	}
	case 'b':
	case 'S':
		return pc_chrome_async_begin(r, ti, e, pid, ts,
					     pc_chrome_name_row(r, name, e->name.len, e->hname),
					     pc_chrome_ev_category(r, e), cat);
	case 'e':
	case 'F':
		return pc_chrome_async_end(r, e, pid, ts);
	case 's':
	case 't':
	case 'f':
		return pc_chrome_flow_event(r, ti, e, pid, ts, name, cat, ph[0], off);
	default:
		if (pc_chrome_cjson_kind(ph[0], NULL, 0))
			break;
		return pc_warn(r->ctx, W_SKIPPED, &loc,
			       "'%s' events (and other kinds profconv does not import) skipped", ph);
	}
	if (ph[0] == 'P' && (strcmp(name, "Profile") == 0 || strcmp(name, "ProfileChunk") == 0))
		return pc_chrome_profile_event(r, ti, ev, pid, ts, name);
	/* the kinds read through cJSON */
	err = with_cjson(r, ev, &cj);
	if (err)
		return err;
	switch (ph[0]) {
	case 'C':
		err = counter_event(r, cj, pid, ts, name, cat);
		break;
	case 'P':
		err = pc_chrome_p_sample(r, ti, cj, pid, ts, off);
		break;
	default:
		err = pc_chrome_context_event(r, ti, cj, pid, ts, ph[0]);
		break;
	}
	cJSON_Delete(cj);
	return err;
}

/* --- the event array --- */

/* Capture the object after an OBJ_BEGIN token (at off) and parse it alone with cJSON. */
static int parse_rest(struct rd *r, uint64_t off, cJSON **out)
{
	const char *buf;
	size_t len;
	char *doc;
	int err = pc_jpull_capture_rest(r->p, &buf, &len, EVENT_MAX);

	*out = NULL;
	if (err)
		return err;
	doc = pc_alloc(r->ctx, len + 2);
	if (!doc)
		return PROFCONV_ERR_NOMEM;
	doc[0] = '{';
	memcpy(doc + 1, buf, len);
	doc[len + 1] = 0;
	*out = cJSON_ParseWithLength(doc, len + 1);
	pc_free(r->ctx, doc);
	return *out ? 0
		    : pc_fail_at(r->ctx, PROFCONV_ERR_NOMEM, r->name, off,
				 "an object could not be parsed (out of memory)");
}

/*
 * The events' memos and caches (label frames, payloads, args text ids,
 * names, cats): set up once, by the first events array after its scanner
 * has started (the first batch is scanned meanwhile: the pages of the
 * tables are faulted in while this thread would wait for it), or before
 * finish() when there was none.
 */
static int tables_init(struct rd *r)
{
	struct lf_slot *lf;
	struct pl_slot *pl;
	struct smemo *names, *catm;
	uint32_t *aidm, i;

	if (r->pl)
		return 0;
	lf = pc_alloc(r->ctx, LF_SLOTS * sizeof(*lf));
	pl = pc_calloc(r->ctx, PL_SLOTS, sizeof(*pl));
	names = pc_calloc(r->ctx, SMEMO_SLOTS, sizeof(*names));
	catm = pc_calloc(r->ctx, SMEMO_SLOTS, sizeof(*catm));
	aidm = pc_calloc(r->ctx, AID_SLOTS, sizeof(*aidm));
	if (!lf || !pl || !names || !catm || !aidm) {
		pc_free(r->ctx, lf);
		pc_free(r->ctx, pl);
		pc_free(r->ctx, names);
		pc_free(r->ctx, catm);
		pc_free(r->ctx, aidm);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < SMEMO_SLOTS; i++)
		names[i].len = catm[i].len = UINT32_MAX;
	for (i = 0; i < PL_SLOTS; i++)
		pl[i].pl = PC_NONE;
	for (i = 0; i < LF_SLOTS; i++)
		lf[i].frame = PC_NONE;
	r->lf = lf;
	r->pl = pl;
	r->names = names;
	r->catm = catm;
	r->aidm = aidm;
	return 0;
}

/*
 * The events array, from chrome_scan.c's batches (scanned on a thread of
 * its own while the previous ones are handled here, in file order).
 */
static int read_events(struct rd *r)
{
	struct cbatch *b;
	struct cscan *s;
	uint64_t reported = 0;
	int err = pc_chrome_scan_begin(r->ctx, r->p, &s);

	if (err)
		return err;
	err = tables_init(r);
	if (err) {
		pc_chrome_scan_end(s);
		return err;
	}
	if (r->nevents) /* (another events array before: its args text ids) */
		memset(r->aidm, 0, AID_SLOTS * sizeof(*r->aidm));
	while (!err && (b = pc_chrome_scan_next(s)) != NULL) {
		uint32_t i;

		for (i = 0; i < b->n && i < AHEAD; i++)
			ev_ahead(r, &b->ev[i].e);
		for (i = 0; i < b->n && !err; i++) {
			if (i + AHEAD < b->n)
				ev_ahead(r, &b->ev[i + AHEAD].e);
			if (i + AHEAD / 2 < b->n)
				ev_nearer(r, &b->ev[i + AHEAD / 2].e);
			r->nevents++;
			err = handle_event(r, &b->ev[i]);
		}
		/* the scanner reads on a context of its own: progress and the
		 * cancel callback are asked here, on the caller's thread */
		if (!err && (r->ctx->progress || r->ctx->cancel) &&
		    b->done - reported >= ((uint64_t)1 << 20)) {
			reported = b->done;
			if (r->ctx->progress)
				r->ctx->progress(r->ctx->progress_user, b->done, b->total);
			err = pc_cancelled(r->ctx, pc_input_name(pc_jpull_input(r->p)), b->done);
		}
		if (b->end)
			break;
	}
	if (err) /* the reader's error comes first in the file: the scanner's is dropped */
		pc_chrome_scan_end(s);
	else
		err = pc_chrome_scan_end(s);
	if ((err & 0xff) == PROFCONV_ERR_CORRUPT && pc_jpull_at_eof(r->p)) {
		/* Chrome could not finish the file: keep what came before */
		char why[1024];

		pc_snprintf(why, sizeof(why), "%s", r->ctx->errmsg);
		pc_clear_error(r->ctx);
		return pc_warn(r->ctx, W_TRUNCATED, NULL,
			       "%s (the trace is cut off; the %llu events before the cut were read)",
			       why, (unsigned long long)r->nevents);
	}
	return err;
}

/* The object form's stackFrames: {"id": {name, category, parent}, ...}, member by member. */
static int read_stack_frames(struct rd *r)
{
	const struct pc_jtok *t;
	int err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "stackFrames", &t);

	while (!err) {
		char id[300];
		cJSON *fr;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(id, sizeof(id), "%s", t->str);
		{
			enum pc_jtype type;

			err = pc_jpull_peek(r->p, &type);
			if (!err && type != PC_JT_OBJ_BEGIN) {
				/* damage inside the dictionary: this entry only */
				err = pc_jpull_skip_value(r->p);
				if (!err)
					err = pc_warn(r->ctx, W_BAD_FRAME, NULL,
						      "%s: stackFrames[\"%s\"] is not an object; skipped",
						      r->name, id);
				continue;
			}
		}
		if (!err)
			err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "a stackFrames entry", &t);
		if (!err)
			err = parse_rest(r, t->offset, &fr);
		if (!err) {
			err = pc_chrome_stack_frame(r, "g", id, fr);
			cJSON_Delete(fr);
		}
	}
	return err;
}

/* The object form's samples: [{cpu, tid, ts, name, sf, weight}, ...]. */
static int read_samples(struct rd *r)
{
	const struct pc_jtok *t;
	int err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "samples", &t);

	while (!err) {
		uint64_t off;
		cJSON *o;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_ARR_END)
			break;
		off = t->offset;
		if (t->type != PC_JT_OBJ_BEGIN)
			return pc_jr_corrupt(r->ctx, r->p, t, "expected a sample object, got %s",
					     pc_jr_type_name(t->type));
		err = parse_rest(r, off, &o);
		if (!err) {
			err = pc_chrome_global_sample(r, o, off);
			cJSON_Delete(o);
		}
	}
	return err;
}

static int read_top(struct rd *r)
{
	const struct pc_jtok *t;
	int err, seen = 0;

	err = pc_jpull_next(r->p, &t);
	if (err)
		return err;
	if (t->type == PC_JT_ARR_BEGIN)
		return read_events(r);
	if (t->type != PC_JT_OBJ_BEGIN)
		return pc_jr_corrupt(r->ctx, r->p, t, "expected a trace ([ or {), got %s",
				     pc_jr_type_name(t->type));
	for (;;) {
		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "traceEvents") == 0) {
			err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "traceEvents", &t);
			if (!err)
				err = read_events(r);
			seen = 1;
			if (!err && r->ctx->warn_total && pc_jpull_at_eof(r->p))
				return 0; /* cut off inside traceEvents: done */
		} else if (strcmp(t->str, "stackFrames") == 0) {
			err = read_stack_frames(r);
		} else if (strcmp(t->str, "samples") == 0) {
			err = read_samples(r);
		} else if (strcmp(t->str, "systemTraceEvents") == 0) {
			pc_note(r->ctx, "%s: systemTraceEvents (ftrace/ETW text) skipped", r->name);
			err = pc_jpull_skip_value(r->p);
		} else {
			err = pc_jpull_skip_value(r->p);
		}
		if (err)
			return err;
	}
	if (!seen)
		return pc_fail_at(r->ctx, PROFCONV_ERR_CORRUPT, r->name, 0,
				  "the trace object has no traceEvents array");
	return 0;
}

/* --- after the events --- */

/* Threads in the order order_threads() chose. */
static int tinfo_cmp_model(const void *a, const void *b)
{
	const struct pc_thread *x = *(const struct pc_thread *const *)a;
	const struct pc_thread *y = *(const struct pc_thread *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* The keys order_threads() sorts by, one row per thread. */
struct tkey {
	int64_t psort, pid, tsort, tid;
	int main;
	struct pc_thread *t;
};

static int tkey_cmp(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;

	if (x->psort != y->psort)
		return x->psort < y->psort ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tsort != y->tsort)
		return x->tsort < y->tsort ? -1 : 1;
	if (x->main != y->main)
		return x->main ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Is ti a main thread as the Firefox Profiler's Chrome importer decides
 * (chrome.ts, getThreadInfo(), production branch): a name that starts with
 * "Cr" and ends with "Main" (CrBrowserMain, CrRendererMain, CrGpuMain; not
 * network.CrUtilityMain, which is main by its tid), or tid = pid other than
 * pid 0.  The importer looks only at threads that have a thread_name event;
 * a nameless thread with tid = pid counts here too (its process would get
 * no main-thread track otherwise).
 */
static int main_candidate(const struct rd *r, const struct tinfo *ti)
{
	const char *nm = pc_str(r->m, ti->t->name);
	size_t n = nm ? strlen(nm) : 0;

	if (ti->pid != 0 && ti->tid == ti->pid)
		return 1;
	return n >= 6 && strncmp(nm, "Cr", 2) == 0 && strcmp(nm + n - 4, "Main") == 0;
}

/*
 * As the Firefox Profiler's Chrome importer orders them: processes by
 * process_sort_index, threads of a process by thread_sort_index, where
 * CrBrowserMain and CrGpuMain without one count as -1; then (where it
 * takes first appearance) by pid, the main thread (main_candidate()) first,
 * and tid.  Process labels join the process name as the importer shows
 * them: "Name (labels)".
 *
 * Main threads: the first candidate of each process in that order, one per
 * process.  The importer flags every candidate, and the front-end's track
 * code then gives the process's track to the last of them and no track at
 * all to the others (computeGlobalTracks/computeLocalTracksByPid); with one
 * flagged, the others stay visible as threads of their own.  The process
 * row's main thread is set to it too (counters are drawn with it).
 */
static int order_threads(struct rd *r)
{
	struct tkey *k = pc_alloc(r->ctx, ((size_t)r->nth + 1) * sizeof(*k));
	uint32_t i, j;

	if (!k)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < r->nth; i++) {
		struct tinfo *ti = &r->th[i];
		const char *nm = pc_str(r->m, ti->t->name);

		k[i].psort = 0;
		for (j = 0; j < r->npm; j++)
			if (r->pm[j].pid == ti->pid)
				k[i].psort = r->pm[j].sort_index;
		k[i].pid = ti->pid;
		k[i].tsort = ti->has_sort ? ti->sort_index
					  : strcmp(nm, "CrBrowserMain") == 0 || strcmp(nm, "CrGpuMain") == 0
						    ? -1
						    : 0;
		k[i].tid = ti->tid;
		k[i].main = main_candidate(r, ti);
		k[i].t = ti->t;
		ti->t->is_main = 0;
	}
	qsort(k, r->nth, sizeof(*k), tkey_cmp);
	for (i = 0, j = 0; i < r->nth; i++) {
		struct pc_thread *t = k[i].t;
		uint32_t idx;

		t->order = i;
		if (i == 0 || k[i].pid != k[i - 1].pid)
			j = 0; /* a new process (a run of the sorted keys): no main thread yet */
		if (!k[i].main || j)
			continue;
		j = 1;
		t->is_main = 1;
		idx = pc_thread_index(r->m, t);
		if (t->process != PC_NONE && idx != PC_NONE)
			r->m->processes.rows[t->process].main_thread = idx;
	}
	pc_free(r->ctx, k);
	for (i = 0; i < r->npm; i++) {
		uint32_t proc;
		const char *old;
		char *buf;
		size_t len;

		if (!r->pm[i].labels)
			continue;
		proc = pc_process_get(r->m, r->pm[i].pid);
		if (proc == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		old = r->m->processes.rows[proc].name;
		len = (old ? strlen(old) : 32) + strlen(r->pm[i].labels) + 4;
		buf = pc_alloc(r->ctx, len);
		if (!buf)
			return PROFCONV_ERR_NOMEM;
		if (old)
			pc_snprintf(buf, len, "%s (%s)", old, r->pm[i].labels);
		else
			pc_snprintf(buf, len, "Process %lld (%s)", (long long)r->pm[i].pid,
				    r->pm[i].labels);
		r->m->processes.rows[proc].name = pc_model_keep(r->m, buf, strlen(buf));
		pc_free(r->ctx, buf);
		if (!r->m->processes.rows[proc].name)
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

/*
 * Are the samples shifted and sorted before the flows' fields are written
 * (finish())?  In the early order (no P samples) they are done after the
 * derivation, and with no contexts (pc_chrome_sample_sets() reads their
 * times and rows) and no blame nothing after reads them: then while the
 * binding still runs on its thread (the caller's would wait), or as
 * PROFCONV_CHROME_EARLY_SORT says (0: never, 1: always).  The same rows
 * end in the same order either way.
 */
static int early_sort(const struct rd *r, int early)
{
	const char *env = getenv("PROFCONV_CHROME_EARLY_SORT");

	if (!early || r->any_contexts || r->blame)
		return 0;
	if (env && (env[0] == '0' || env[0] == '1') && !env[1])
		return env[0] == '1';
	return pc_chrome_flows_running(r);
}

static int finish(struct rd *r)
{
	struct pc_meta *mt = &r->m->meta;
	int64_t step, zero = r->first_ts == PC_NO_TIME ? 0 : r->first_ts;
	uint32_t i;
	int err, early, sorted = 0;

	/*
	 * The sampling interval: the V8 profiles' mean sample spacing.  A
	 * trace without V8 samples has none (its derived samples weigh their
	 * slices' time): 1 ms, or a thousandth of a trace shorter than 1 s
	 * (the front-end draws a thread's last sample that long).
	 */
	step = DERIVED_NS;
	if (r->first_ts != PC_NO_TIME && r->last_ts > r->first_ts &&
	    pc_time_sub(r->last_ts, r->first_ts) < (int64_t)1000 * DERIVED_NS)
		step = (r->last_ts - r->first_ts) / 1000 > 1000 ? (r->last_ts - r->first_ts) / 1000
								 : 1000;
	mt->interval_ns = step;
	if (r->nv8_samples > 1 && r->v8_last > r->v8_first)
		mt->interval_ns =
			pc_time_sub(r->v8_last, r->v8_first) / (int64_t)(r->nv8_samples - 1);
	if (mt->interval_ns <= 0)
		mt->interval_ns = step;
	err = pc_chrome_close_open(r);
	/*
	 * The flows' binding (before the contexts' markers come), on a second
	 * thread when there are many, while the V8 samples' weights are set
	 * and the samples of the slices derived here: they change samples and
	 * make stacks only (the frames were made as the slices were read),
	 * nothing the binding reads or writes, and with no P samples
	 * (pc_chrome_p_finish(): samples, stacks, frames, threads) nothing
	 * before them changes those; the strings and payloads that the
	 * fields, the contexts and the rest make come in the same order.
	 */
	early = !err && r->nps == 0;
	if (!err)
		err = pc_chrome_flows_begin(r, early);
	if (!err && early)
		err = pc_chrome_v8_weights(r, mt->interval_ns);
	if (!err && early)
		err = pc_chrome_derive_samples(r);
	if (!err && early_sort(r, early)) {
		/* while the binding goes on: the samples are done (nothing
		 * after reads their times or rows), their shift and sort too */
		err = pc_model_shift_sort_part(r->m, zero, PC_SORT_SAMPLES | PC_SORT_ONE_THREAD);
		sorted = 1;
	}
	{
		int e = pc_chrome_flows_end(r); /* (waits for the binding, error or not) */

		if (!err)
			err = e;
	}
	if (!err)
		err = pc_chrome_p_finish(r);
	if (!err)
		err = pc_chrome_ctx_close(r);
	if (!err && !early)
		err = pc_chrome_v8_weights(r, mt->interval_ns);
	if (!err && !early)
		err = pc_chrome_derive_samples(r);
	if (!err)
		err = pc_chrome_sample_sets(r);
	if (!err)
		err = pc_chrome_blame_finish(r);
	if (!err)
		err = pc_chrome_strings_or_refs(r);
	if (!err)
		err = pc_chrome_add_schema(r);
	if (err)
		return err;
	/* threads with nothing in them (a thread_name and no events) are dropped */
	for (i = 0; i < r->nth; i++) {
		struct pc_thread *t = r->th[i].t;

		if (!t->samples.len && !t->markers.len)
			t->register_time = PC_NO_TIME;
	}
	err = order_threads(r);
	if (!err)
		err = pc_model_sort_thread_list(r->m, tinfo_cmp_model);
	if (err)
		return err;
	/*
	 * time 0 is the first event; times were kept in trace ns (the
	 * threads' samples and markers are shifted by the threads that sort
	 * them, at the end)
	 */
	mt->zero_ns = zero;
	for (i = 0; i < r->m->nthreads; i++)
		r->m->threads[i]->register_time = 0;
	for (i = 0; i < r->m->counters.len; i++) {
		struct pc_counter *c = &r->m->counters.rows[i];
		uint32_t k;

		for (k = 0; k < c->len; k++)
			c->time[k] = pc_time_sub(c->time[k], mt->zero_ns);
	}
	for (i = 0; i < r->m->contexts.nsnap; i++)
		r->m->contexts.snap_time[i] = pc_time_sub(r->m->contexts.snap_time[i], mt->zero_ns);
	mt->zero_ns = 0;
	mt->symbolicated = 1;
	err = pc_meta_set(r->m, &mt->product, "Chrome trace");
	if (!err)
		err = pc_meta_set(r->m, &mt->imported_from, "Chrome trace events");
	if (!err)
		err = pc_model_shift_sort_part(r->m, zero,
					       sorted ? PC_SORT_MARKERS : PC_SORT_SAMPLES | PC_SORT_MARKERS);
	return err;
}

static void rd_free(struct rd *r)
{
	uint32_t i;

	for (i = 0; i < r->nth; i++) {
		pc_free(r->ctx, r->th[i].open);
		pc_free(r->ctx, r->th[i].sbits);
	}
	pc_free(r->ctx, r->th);
	pc_jscan_free(&r->v8js);
	pc_jscan_free(&r->ajs);
	pc_free(r->ctx, r->aargs);
	pc_free(r->ctx, r->v8val);
	for (i = 0; i < r->nas; i++)
		pc_free(r->ctx, r->as[i].key);
	pc_free(r->ctx, r->as);
	for (i = 0; i < r->nprof; i++) {
		pc_free(r->ctx, r->prof[i].id);
		pc_free(r->ctx, r->prof[i].nodes);
		pc_free(r->ctx, r->prof[i].by_id);
		pc_free(r->ctx, r->prof[i].rows);
	}
	pc_free(r->ctx, r->prof);
	for (i = 0; i < r->nck; i++)
		pc_free(r->ctx, r->ck[i].key);
	pc_free(r->ctx, r->ck);
	pc_free(r->ctx, r->pm);
	for (i = 0; i < r->narg_keys; i++)
		pc_free(r->ctx, r->arg_keys[i]);
	pc_smap_free(&r->cats);
	pc_smap_free(&r->arg_seen);
	pc_smap_free(&r->as_latest);
	pc_free(r->ctx, r->lf);
	pc_free(r->ctx, r->names);
	pc_free(r->ctx, r->catm);
	pc_free(r->ctx, r->aidm);
	pc_free(r->ctx, r->kinds);
	pc_chrome_pl_keys_free(r);
	pc_free(r->ctx, r->pl);
	pc_chrome_ctx_free(r);
	pc_chrome_stacks_free(r);
	pc_chrome_flows_free(r);
	pc_jpull_free(r->p);
}

/* Read the trace into m; with blame set, also print the context attribution. */
static int chrome_run(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m,
		      struct pc_text_out *blame, int json)
{
	struct rd r;
	int err;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.m = m;
	r.blame = blame;
	r.blame_json = json;
	r.name = pc_input_name(in);
	r.first_ts = PC_NO_TIME;
	r.last_ts = INT64_MIN;
	m->lean_markers = 1; /* few Chrome markers have a cause or a context set */
	pc_smap_init(&r.cats, ctx);
	pc_smap_init(&r.arg_seen, ctx);
	pc_smap_init(&r.as_latest, ctx);
	pc_jscan_init(&r.v8js, ctx);
	pc_jscan_init(&r.ajs, ctx);
	r.pl_set = PC_NONE;
	/* (the memo tables: tables_init(), once the scanner runs) */
	err = pc_jpull_new(ctx, in, NULL, &r.p);
	if (!err) {
		/* the categories the V8 samples use; trace categories follow */
		r.cat_idle = pc_model_add_category(m, "Idle", "transparent");
		r.cat_js = pc_model_add_category(m, "JavaScript", "yellow");
		r.cat_gc = pc_model_add_category(m, "GC / CC", "orange");
		r.cat_native = pc_model_add_category(m, "Native", "blue");
		/* the payload text every Trace marker has */
		r.row_type = pc_pv_text_intern(m, "type", 4);
		r.row_trace_event = pc_pv_text_intern(m, PC_CHROME_EVENT_TYPE,
						      sizeof(PC_CHROME_EVENT_TYPE) - 1);
		r.row_dispatch = pc_pv_text_intern(m, PC_CHROME_DISPATCH_TYPE,
						   sizeof(PC_CHROME_DISPATCH_TYPE) - 1);
		r.row_cat = pc_pv_text_intern(m, "cat", 3);
		r.row_contexts = pc_pv_text_intern(m, "contexts", 8);
		r.row_flow = pc_pv_text_intern(m, "flow", 4);
		r.row_tflow = pc_pv_text_intern(m, "terminatingFlow", 15);
		if (r.cat_idle == PC_NO_CATEGORY || r.cat_js == PC_NO_CATEGORY ||
		    r.cat_gc == PC_NO_CATEGORY || r.cat_native == PC_NO_CATEGORY ||
		    r.row_type == PC_NONE || r.row_trace_event == PC_NONE || r.row_cat == PC_NONE ||
		    r.row_dispatch == PC_NONE ||
		    r.row_contexts == PC_NONE || r.row_flow == PC_NONE || r.row_tflow == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	if (!err)
		err = read_top(&r);
	if (!err)
		err = tables_init(&r);
	if (!err)
		err = finish(&r);
	rd_free(&r);
	return err;
}

static int read_chrome(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	return chrome_run(ctx, in, m, NULL, 0);
}

int pc_chrome_blame(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out,
		    int json)
{
	struct pc_model *m = pc_model_new(ctx);
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = chrome_run(ctx, in, m, out, json);
	pc_model_free(m);
	return err;
}

static int chrome_info(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *o)
{
	struct pc_model *m = pc_model_new(ctx);
	uint64_t samples = 0, markers = 0;
	uint32_t i;
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = read_chrome(ctx, in, m);
	if (!err) {
		for (i = 0; i < m->nthreads; i++) {
			samples += m->threads[i]->samples.len;
			markers += m->threads[i]->markers.len;
		}
		pc_text_printf(o, "file:        %s\nformat:      Chrome trace events (JSON)\n",
			       pc_input_name(in));
		pc_text_printf(o, "processes:   %u\nthreads:     %u\nsamples:     %llu%s\n",
			       m->processes.len, m->nthreads, (unsigned long long)samples,
			       m->meta.interval_ns == DERIVED_NS ? " (derived from slices, each weighing its time)" : "");
		pc_text_printf(o, "markers:     %llu\ncounters:    %u\n", (unsigned long long)markers,
			       m->counters.len);
	}
	pc_model_free(m);
	return err;
}

const struct pc_reader pc_reader_chrome = {
	.name = "chrome",
	.summary = "Chrome trace events JSON (array or object form; V8 CPU profiles)",
	.flags = 0,
	.options = NULL,
	.bid = bid,
	.read = read_chrome,
	.info = chrome_info,
};
