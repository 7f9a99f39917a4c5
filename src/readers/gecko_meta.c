/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gecko_meta.c - meta and marker schemas
 * (the Gecko profile reader; see read_gecko.c and pc_gecko.h).
 */
#include "core/pc_config.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_gecko.h"

/* --- meta and marker schemas --- */

static void dup_member(cJSON *to, const cJSON *from, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);

	if (v)
		cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1));
}

/* _convertGeckoMarkerSchema: data -> fields (dynamic) and description (static). */
static char *convert_schema(const cJSON *in)
{
	static const char *const head[] = { "name", "tooltipLabel", "tableLabel", "chartLabel",
					    "display" };
	static const char *const tail[] = { "graphs", "colorField", "isStackBased" };
	static const char *const fkeys[] = { "key", "label", "format", "hidden" };
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(in, "data"), *f;
	const cJSON *desc = NULL, *first_static = NULL;
	cJSON *out = cJSON_CreateObject(), *fields;
	char *s;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < PC_ARRAY_SIZE(head); i++)
		dup_member(out, in, head[i]);
	if (!data) { /* already processed-shaped */
		dup_member(out, in, "fields");
		dup_member(out, in, "description");
	} else {
		fields = cJSON_AddArrayToObject(out, "fields");
		cJSON_ArrayForEach(f, data)
		{
			const cJSON *label = cJSON_GetObjectItemCaseSensitive(f, "label");

			if (cJSON_GetObjectItemCaseSensitive(f, "key")) {
				cJSON *o = cJSON_CreateObject();
				size_t k;

				for (k = 0; o && k < PC_ARRAY_SIZE(fkeys); k++)
					dup_member(o, f, fkeys[k]);
				if (o)
					cJSON_AddItemToArray(fields, o);
				continue;
			}
			if (!first_static)
				first_static = f;
			if (!desc && cJSON_IsString(label) &&
			    strcmp(label->valuestring, "Description") == 0)
				desc = f;
		}
		if (!desc)
			desc = first_static;
		if (desc)
			dup_member(out, desc, "value"); /* renamed below */
		if (desc && cJSON_GetObjectItemCaseSensitive(out, "value")) {
			cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(out, "value");

			cJSON_AddItemToObject(out, "description", v);
		}
	}
	for (i = 0; i < PC_ARRAY_SIZE(tail); i++)
		dup_member(out, in, tail[i]);
	s = cJSON_PrintUnformatted(out);
	cJSON_Delete(out);
	return s;
}

/* Note the schema's string-index fields (stringIndexMarkerFieldsByDataType). */
static int note_unique_strings(struct gr *r, const cJSON *in, const char *name)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(in, "data"), *f;
	int err = 0;

	if (!list)
		list = cJSON_GetObjectItemCaseSensitive(in, "fields");
	cJSON_ArrayForEach(f, list)
	{
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(f, "key");
		const cJSON *format = cJSON_GetObjectItemCaseSensitive(f, "format");
		struct ustr *u;

		/* isStringIndexFormat() in the front-end's marker-schema.ts */
		if (!cJSON_IsString(key) || !cJSON_IsString(format) ||
		    (strcmp(format->valuestring, "unique-string") != 0 &&
		     strcmp(format->valuestring, "flow-id") != 0 &&
		     strcmp(format->valuestring, "terminating-flow-id") != 0))
			continue;
		if (pc_grow(r->ctx, (void **)&r->ustrs, sizeof(*r->ustrs), &r->ustrs_cap,
			    (size_t)r->nustrs + 1))
			return PROFCONV_ERR_NOMEM;
		u = &r->ustrs[r->nustrs];
		err = pc_spool_add(&r->ustr_pool, name, strlen(name), &u->type);
		if (!err)
			err = pc_spool_add(&r->ustr_pool, key->valuestring, strlen(key->valuestring),
					   &u->key);
		if (err)
			return err;
		r->nustrs++;
	}
	return 0;
}

static int read_marker_schema(struct gr *r, int is_main)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "meta.markerSchema", &t);
	while (!err) {
		const cJSON *name;
		const char *raw;
		cJSON *in;
		char *conv;
		size_t len;
		uint32_t idx;
		int known;

		err = pc_jpull_peek(r->p, &type);
		if (err)
			break;
		if (type == PC_JT_ARR_END)
			return pc_jpull_next(r->p, &t);
		err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
		if (err)
			break;
		in = cJSON_ParseWithLength(raw, len);
		if (!in)
			return pc_fail(r->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory (cJSON)");
		name = cJSON_GetObjectItemCaseSensitive(in, "name");
		if (!cJSON_IsString(name)) {
			cJSON_Delete(in);
			continue; /* the front-end would fail on it later; not a schema */
		}
		known = pc_smap_get(&r->schema_names, name->valuestring,
				    strlen(name->valuestring)) != PC_NONE;
		if (!is_main && known) {
			cJSON_Delete(in);
			continue;
		}
		conv = convert_schema(in);
		if (!conv)
			err = pc_fail(r->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory (cJSON)");
		if (!err)
			err = pc_spool_add(is_main ? &r->main_schemas : &r->sub_schemas, conv,
					   strlen(conv), &idx);
		if (!err && !known)
			err = note_unique_strings(r, in, name->valuestring);
		if (!err && !known)
			err = pc_smap_put(&r->schema_names, name->valuestring,
					  strlen(name->valuestring), 1);
		cJSON_free(conv);
		cJSON_Delete(in);
	}
	return err;
}

/* The meta members processGeckoProfile() carries into a processed profile as
 * they are (src/profile-logic/process-profile.ts); the others it drops. */
static int is_kept_meta(const char *k)
{
	static const char *const kept[] = {
		"startTimeAsClockMonotonicNanosecondsSinceBoot",
		"startTimeAsMachAbsoluteTimeNanoseconds",
		"startTimeAsQueryPerformanceCounterValue",
		"misc",
		"toolkit",
		"appBuildID",
		"visualMetrics",
		"configuration",
		"sourceURL",
		"updateChannel",
		"device",
	};
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(kept); i++)
		if (strcmp(k, kept[i]) == 0)
			return 1;
	return 0;
}

static int meta_kept(struct gr *r, const char *what, const char **field)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NULL)
		return pc_meta_keep(r->m, field, NULL);
	if (t->type != PC_JT_STRING)
		return fail_tok(r, t, "expected a string for %s, got %s", what,
				pc_jr_type_name(t->type));
	return pc_meta_keep(r->m, field, t->str);
}

static int debug_flag(struct gr *r, struct pc_jr_more *more, const struct pc_jtok *t)
{
	struct pc_pvb b;
	uint32_t v;
	int on = t->type == PC_JT_TRUE || (t->type == PC_JT_NUMBER && t->d != 0) ||
		 (t->type == PC_JT_STRING && t->len > 0);

	pc_pvb_begin_scalar(&b, r->m);
	pc_pvb_bool(&b, on);
	v = pc_pvb_end(&b);
	return v == PC_NONE ? PROFCONV_ERR_NOMEM : pc_jr_more_add(more, r->m, "debug", 5, v);
}

int gecko_read_meta(struct gr *r, struct gproc *pr, int is_main)
{
	struct pc_meta *mt = &r->m->meta;
	struct pc_jr_more more = { 0 };
	const struct pc_jtok *t;
	struct pc_loc loc;
	int64_t v, version = -1;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "meta", &t);
	if (err)
		return err;
	if (pr->has_meta)
		return fail_tok(r, t, "a process has two \"meta\" members");
	pc_jpull_loc(r->p, t, &loc);
	pr->start_ns = 0;
	for (;;) {
		const char *raw;
		size_t len;
		const char *k;

		err = pc_jpull_next(r->p, &t);
		if (err) {
			pc_jr_more_free(&more, r->m);
			return err;
		}
		if (t->type == PC_JT_OBJ_END)
			break;
		k = t->str;
		if (strcmp(k, "version") == 0) {
			err = gecko_int_value(r, "meta.version", &version);
			if (!err && is_main && (version < MIN_VERSION || version > MAX_VERSION))
				err = pc_fail(r->ctx, PROFCONV_ERR_UNSUPPORTED, &loc,
					      "Gecko profile version %lld; versions %d to %d are read",
					      (long long)version, MIN_VERSION, MAX_VERSION);
		} else if (strcmp(k, "startTime") == 0) {
			err = gecko_ms_value(r, "meta.startTime", &pr->start_ns);
			if (!err && pr->start_ns == PC_NO_TIME)
				pr->start_ns = 0;
		} else if (strcmp(k, "shutdownTime") == 0) {
			err = gecko_ms_value(r, "meta.shutdownTime", &pr->shutdown_ns);
		} else if (strcmp(k, "markerSchema") == 0) {
			err = read_marker_schema(r, is_main);
		} else if (!is_main) {
			err = pc_jpull_skip_value(r->p);
		} else if (strcmp(k, "interval") == 0) {
			err = gecko_ms_value(r, "meta.interval", &v);
			if (!err && v != PC_NO_TIME)
				mt->interval_ns = v;
		} else if (strcmp(k, "profilingStartTime") == 0) {
			err = gecko_ms_value(r, "meta.profilingStartTime", &mt->profiling_start);
		} else if (strcmp(k, "profilingEndTime") == 0) {
			err = gecko_ms_value(r, "meta.profilingEndTime", &mt->profiling_end);
		} else if (strcmp(k, "presymbolicated") == 0) {
			err = gecko_scalar_value(r, &t);
			mt->symbolicated = !err && t && t->type == PC_JT_TRUE;
		} else if (strcmp(k, "product") == 0) {
			err = gecko_meta_str(r, "meta.product", &mt->product);
		} else if (strcmp(k, "oscpu") == 0) {
			err = meta_kept(r, "meta.oscpu", &mt->oscpu);
		} else if (strcmp(k, "platform") == 0) {
			err = meta_kept(r, "meta.platform", &mt->platform);
		} else if (strcmp(k, "abi") == 0) {
			err = meta_kept(r, "meta.abi", &mt->abi);
		} else if (strcmp(k, "CPUName") == 0) {
			err = meta_kept(r, "meta.CPUName", &mt->cpu_name);
		} else if (strcmp(k, "sampleUnits") == 0) {
			err = pc_jr_sample_units(r->ctx, r->p, r->m);
		} else if (strcmp(k, "debug") == 0) {
			/* processed meta.debug is a boolean (!!geckoProfile.meta.debug) */
			err = gecko_scalar_value(r, &t);
			if (!err && t)
				err = debug_flag(r, &more, t);
		} else if (is_kept_meta(k)) {
			err = pc_jr_more_read(&more, r->ctx, r->p, r->m, k, strlen(k));
		} else if (strcmp(k, "logicalCPUs") == 0 || strcmp(k, "physicalCPUs") == 0) {
			int logical = k[0] == 'l';

			err = gecko_int_value(r, logical ? "meta.logicalCPUs" : "meta.physicalCPUs", &v);
			if (!err && v >= 0 && v <= UINT32_MAX)
				*(logical ? &mt->logical_cpus : &mt->physical_cpus) = (uint32_t)v;
		} else if (strcmp(k, "categories") == 0) {
			const struct pc_jtok at = *t;

			err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
			if (!err && strcmp(raw, "null") != 0) {
				err = pc_jr_categories(r->ctx, r->p, &at, r->m, raw, len);
				/* an empty list: every frame and marker category would be
				 * out of range; the default category stands in (warned
				 * once, with the categories it replaced, at the end) */
				if (!err && !r->m->ncategories) {
					r->empty_categories = 1;
					if (pc_model_add_category(r->m, "Other", "grey") == PC_NO_CATEGORY)
						err = PROFCONV_ERR_NOMEM;
				}
				r->seen_categories = !err;
			}
		} else if (strcmp(k, "extensions") == 0) {
			err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
			if (!err)
				err = gecko_load_extensions(r, raw, len);
		} else {
			err = pc_jpull_skip_value(r->p);
		}
		if (err) {
			pc_jr_more_free(&more, r->m);
			return err;
		}
	}
	if (is_main && more.n) {
		mt->more = pc_jr_more_build(&more, r->m);
		if (mt->more == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	}
	pc_jr_more_free(&more, r->m);
	if (is_main && version < 0)
		return pc_fail(r->ctx, PROFCONV_ERR_CORRUPT, &loc,
			       "meta has no version: not a Gecko profile");
	if (is_main) {
		mt->start_time_ns = pr->start_ns;
		mt->has_start_time = 1;
		/* product: geckoProfile.meta.product || '' */
		if (!mt->product && pc_meta_set(r->m, &mt->product, ""))
			return PROFCONV_ERR_NOMEM;
	}
	pr->has_meta = 1;
	return 0;
}
