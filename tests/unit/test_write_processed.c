/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_write_processed.c - the processed (v70) writer on a small hand-built
 * model: structure checked through cJSON (column lengths, prefixOffset, null
 * encodings, versions, categories), then the whole output compared byte for
 * byte with tests/golden/processed_small.json.
 *
 * To regenerate the golden file after an intended output change, run
 *	PC_UPDATE_GOLDEN=1 ctest --test-dir BUILD -R write_processed
 * and read the diff of tests/golden/processed_small.json before committing.
 */
#include "writers/pc_writer.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "pc_test.h"

static uint32_t S(struct pc_model *m, const char *s)
{
	return pc_str_intern_z(m, s);
}

static uint32_t func(struct pc_model *m, const char *name, uint32_t resource, uint32_t source,
		     uint32_t line)
{
	struct pc_func_key k = { S(m, name), resource, source, line, 0, 0, 0 };

	return pc_func_intern(m, &k);
}

/*
 * Two threads of one process, three frames, five stacks (two roots), one lib
 * with its resource and two native symbols, one source, two markers.
 */
static struct pc_model *build_model(struct profconv_ctx *ctx)
{
	struct pc_model *m = pc_model_new(ctx);
	struct pc_lib lib = { 0 };
	struct pc_frame_key fk;
	struct pc_thread *t1, *t2;
	uint32_t libi, res, src, f_main, f_work, f_leaf, fr0, fr1, fr2, ns0;
	uint32_t s0, s1, s2, s3, s4;
	uint16_t user, kernel;

	if (!m)
		return NULL;
	user = pc_model_add_category(m, "User", "yellow");
	kernel = pc_model_add_category(m, "Kernel", "orange");

	m->meta.interval_ns = 250000;
	m->meta.has_start_time = 1;
	m->meta.start_time_ns = 1700000000123456789LL;
	m->meta.profiling_start = 0;
	m->meta.profiling_end = 5000000;
	m->meta.symbolicated = 1;
	pc_meta_set(m, &m->meta.product, "perf test");
	pc_meta_set(m, &m->meta.imported_from, "perf.data");
	pc_meta_keep(m, &m->meta.platform, "Linux");
	pc_meta_keep(m, &m->meta.oscpu, "6.1.0-13-amd64");
	pc_meta_keep(m, &m->meta.abi, "x86_64");
	pc_meta_keep(m, &m->meta.cpu_name, "Some CPU @ 2.00GHz");
	pc_meta_extra_str(m, "perf.data", "Host", "build-host");
	pc_meta_extra_str(m, "perf.data", "perf version", "6.1.55");
	pc_meta_extra_str(m, "perf.data", "Command line", "perf record -g ./prog \"arg\"");
	pc_meta_extra_str(m, "perf.data", "Event", "cpu-clock");
	m->meta.logical_cpus = 8;
	m->meta.physical_cpus = 0; /* unknown: omitted */
	{
		static const char *const disp[] = { "marker-chart", NULL };
		static const struct pc_schema_field fields[] = { { "n", NULL, "integer", 0 } };
		struct pc_pvb b;

		pc_schema_add_simple(m, "Tick", disp, fields, 1, NULL, NULL, NULL, NULL);
		/* a member no field of the model has is kept (meta.more) */
		pc_pvb_begin(&b, m, 0);
		pc_pvb_key_z(&b, "appBuildID");
		pc_pvb_str_z(&b, "20261124");
		pc_pvb_key_z(&b, "version"); /* written by the writer itself: not repeated */
		pc_pvb_int(&b, 99);
		m->meta.more = pc_pvb_end(&b);
	}

	lib.name = S(m, "libc.so.6");
	lib.path = S(m, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	lib.debug_name = lib.name;
	lib.debug_path = lib.path;
	lib.breakpad_id = S(m, "0123456789ABCDEF0123456789ABCDEF0");
	lib.code_id = S(m, "efcdab8967452301efcdab8967452301deadbeef");
	lib.arch = PC_NONE;
	libi = pc_lib_add(m, &lib);
	res = pc_resource_intern(m, lib.name, PC_NONE, PC_RES_LIBRARY, libi);
	m->libs.rows[libi].resource = res;
	src = pc_source_intern(m, S(m, "/src/leaf.c"));

	f_main = func(m, "main", PC_NONE, PC_NONE, 0);
	f_work = func(m, "work", res, PC_NONE, 12);
	f_leaf = func(m, "leaf \xff", res, src, 0); /* invalid UTF-8: one replacement */
	ns0 = pc_native_symbol_intern(m, libi, 0x1200, S(m, "work"), 64);
	pc_native_symbol_intern(m, libi, 0x2000, S(m, "leaf"), 0);

	memset(&fk, 0, sizeof(fk));
	fk.address = PC_NO_ADDRESS;
	fk.lib = PC_NONE;
	fk.func = f_main;
	fk.native_symbol = PC_NONE;
	fk.category = PC_NO_CATEGORY;
	fr0 = pc_frame_intern(m, &fk);
	fk.address = 0x1233;
	fk.lib = libi;
	fk.func = f_work;
	fk.native_symbol = ns0;
	fk.line = 12;
	fk.column = 3;
	fk.category = user;
	fk.subcategory = 0;
	fr1 = pc_frame_intern(m, &fk);
	fk.address = 0x2004;
	fk.func = f_leaf;
	fk.native_symbol = PC_NONE;
	fk.line = 0;
	fk.column = 0;
	fk.category = kernel;
	fk.inline_depth = 1;
	fr2 = pc_frame_intern(m, &fk);

	s0 = pc_stack_intern(m, PC_NONE, fr0);
	s1 = pc_stack_intern(m, s0, fr1);
	s2 = pc_stack_intern(m, s1, fr2);
	s3 = pc_stack_intern(m, s0, fr2);
	s4 = pc_stack_intern(m, PC_NONE, fr2);

	t1 = pc_thread_add(m, 100, 100);
	t1->name = S(m, "prog");
	t1->is_main = 1;
	t1->register_time = 0;
	m->processes.rows[t1->process].name = "prog";
	m->processes.rows[t1->process].start = 0;
	m->processes.rows[t1->process].end = 4500000;
	pc_thread_add_paused(m, t1, 3000000, 3500000, "profiler-paused");
	pc_sample_add(m, t1, s2, 0, 1);
	pc_sample_add(m, t1, s1, 1000000, 1);
	pc_sample_add(m, t1, PC_NONE, 1500000, 1);
	pc_sample_add(m, t1, s3, 2000001, 1);
	{
		struct pc_marker_row r;
		struct pc_pvb b;

		pc_marker_row_init(&r);
		r.name = S(m, "Tick");
		r.start = 500000;
		r.end = 2500000;
		r.phase = PC_PHASE_INTERVAL;
		pc_pvb_begin(&b, m, 0);
		pc_pvb_key_z(&b, "type");
		pc_pvb_str_z(&b, "Tick");
		pc_pvb_key_z(&b, "n");
		pc_pvb_int(&b, 1);
		r.payload = pc_pvb_end(&b);
		r.cause_stack = s1; /* appended as the last member: no placeholder */
		r.cause_time = 400000;
		pc_marker_push(m, t1, &r);
		pc_marker_row_init(&r);
		r.name = S(m, "Mark");
		r.start = -1234500;
		r.category = user;
		pc_marker_push(m, t1, &r);
	}

	t2 = pc_thread_add(m, 100, 101);
	t2->name = S(m, "worker");
	t2->register_time = 400000;
	t2->unregister_time = 4000000;
	pc_sample_add(m, t2, s4, 500000, 3);
	pc_sample_add(m, t2, s2, 2500000, 1);
	{
		uint32_t c = pc_counter_add(m, "malloc", "Memory", "heap", t1->process);
		struct pc_page pg = { 1, 2, 0, "https://example.org/", -1, NULL };

		pc_counter_sample(m, c, 0, 4096, 0, 0);
		pc_counter_sample(m, c, 1000000, -1024.5, 0, 0);
		pc_page_add(m, &pg);
	}
	return m;
}

static cJSON *get(const cJSON *o, const char *k)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!it)
		fprintf(stderr, "missing key \"%s\"\n", k);
	return it;
}

static double num(const cJSON *a, int i)
{
	const cJSON *e = cJSON_GetArrayItem(a, i);

	return cJSON_IsNumber(e) ? e->valuedouble : -12345.0;
}

static int is_null(const cJSON *a, int i)
{
	return cJSON_IsNull(cJSON_GetArrayItem(a, i));
}

/* Every array member of a table object has exactly `length` entries; returns length. */
static int check_table(const cJSON *t, const char *name, int ncols)
{
	const cJSON *len = get(t, "length"), *c;
	int n = 0, cols = 0;

	PC_CHECK(cJSON_IsNumber(len));
	if (!cJSON_IsNumber(len))
		return -1;
	n = (int)len->valuedouble;
	cJSON_ArrayForEach(c, t)
	{
		if (!strcmp(c->string, "length"))
			continue;
		if (!cJSON_IsArray(c)) {
			if (!strcmp(c->string, "weight") || !strcmp(c->string, "weightType"))
				continue;
			fprintf(stderr, "%s.%s is not an array\n", name, c->string);
			PC_CHECK(0);
			continue;
		}
		cols++;
		if (cJSON_GetArraySize(c) != n) {
			fprintf(stderr, "%s.%s has %d entries, length is %d\n", name, c->string,
				cJSON_GetArraySize(c), n);
			PC_CHECK(0);
		}
	}
	PC_CHECK_EQ_INT(cols, ncols);
	return n;
}

/* version: 69 keeps a frame's lib on resourceTable.lib, 70 on frameTable.lib. */
static void check_structure(const char *json, int version)
{
	cJSON *doc = cJSON_Parse(json);
	const cJSON *meta, *cat, *shared, *st, *ft, *fn, *rt, *ns, *threads, *th, *s, *mk, *c;
	static const char *const top[] = { "meta", "libs", "pages", "shared", "threads", "counters" };
	int i = 0;

	PC_CHECK(doc != NULL);
	if (!doc)
		return;
	cJSON_ArrayForEach(c, doc)
	{
		PC_CHECK(i < 6 && strcmp(c->string, top[i]) == 0);
		i++;
	}
	PC_CHECK_EQ_INT(i, 6);
	/* meta.more: a member kept, one the writer writes itself not repeated */
	PC_CHECK_EQ_STR(get(get(doc, "meta"), "appBuildID")->valuestring, "20261124");
	PC_CHECK_EQ_INT(get(get(doc, "meta"), "version")->valuedouble, 36);
	c = cJSON_GetArrayItem(get(doc, "counters"), 0);
	PC_CHECK_EQ_STR(get(c, "pid")->valuestring, "100");
	PC_CHECK_EQ_INT(get(c, "mainThreadIndex")->valuedouble, 0);
	PC_CHECK_EQ_STR(get(get(c, "display"), "graphType")->valuestring, "line-accumulated");
	PC_CHECK(num(get(get(c, "samples"), "count"), 1) == -1024.5);
	PC_CHECK(num(get(get(c, "samples"), "time"), 1) == 1);
	c = cJSON_GetArrayItem(get(doc, "pages"), 0);
	PC_CHECK_EQ_STR(get(c, "url")->valuestring, "https://example.org/");
	PC_CHECK(cJSON_GetObjectItem(c, "isPrivateBrowsing") == NULL);

	meta = get(doc, "meta");
	PC_CHECK_EQ_INT(get(meta, "version")->valuedouble, 36);
	PC_CHECK_EQ_INT(get(meta, "preprocessedProfileVersion")->valuedouble, version);
	PC_CHECK(get(meta, "interval")->valuedouble == 0.25);
	PC_CHECK(get(meta, "startTime")->valuedouble == 1700000000123.456789);
	PC_CHECK_EQ_STR(get(meta, "product")->valuestring, "perf test");
	PC_CHECK(cJSON_IsTrue(get(meta, "symbolicated")));
	PC_CHECK_EQ_INT(cJSON_GetArraySize(get(meta, "markerSchema")), 1);
	PC_CHECK(cJSON_GetObjectItem(meta, "physicalCPUs") == NULL);
	PC_CHECK(cJSON_GetObjectItem(meta, "keepProfileThreadOrder") == NULL);
	cat = cJSON_GetArrayItem(get(meta, "categories"), 0);
	PC_CHECK_EQ_STR(get(cat, "name")->valuestring, "Other");
	PC_CHECK_EQ_STR(get(cat, "color")->valuestring, "grey");
	PC_CHECK_EQ_STR(cJSON_GetArrayItem(get(cat, "subcategories"), 0)->valuestring, "Other");
	PC_CHECK_EQ_INT(cJSON_GetArraySize(get(meta, "categories")), 3);
	c = cJSON_GetArrayItem(get(cJSON_GetArrayItem(get(meta, "extra"), 0), "entries"), 0);
	PC_CHECK_EQ_STR(get(c, "label")->valuestring, "Host");
	PC_CHECK_EQ_STR(get(c, "format")->valuestring, "string");
	PC_CHECK_EQ_STR(get(c, "value")->valuestring, "build-host");

	c = cJSON_GetArrayItem(get(doc, "libs"), 0);
	PC_CHECK(cJSON_IsNull(get(c, "arch")));
	PC_CHECK_EQ_STR(get(c, "name")->valuestring, "libc.so.6");
	PC_CHECK_EQ_STR(get(c, "breakpadId")->valuestring, "0123456789ABCDEF0123456789ABCDEF0");

	shared = get(doc, "shared");
	PC_CHECK(cJSON_IsArray(get(shared, "stringArray")));
	PC_CHECK_EQ_STR(cJSON_GetArrayItem(get(shared, "stringArray"), 0)->valuestring, "");

	st = get(shared, "stackTable");
	PC_CHECK_EQ_INT(check_table(st, "stackTable", 2), 5);
	c = get(st, "prefixOffset");
	PC_CHECK(num(c, 0) == 0 && num(c, 1) == 1 && num(c, 2) == 1 && num(c, 3) == 3 &&
		 num(c, 4) == 0);

	ft = get(shared, "frameTable");
	PC_CHECK_EQ_INT(check_table(ft, "frameTable", version >= 70 ? 11 : 10), 3);
	PC_CHECK(num(get(ft, "address"), 0) == -1 && num(get(ft, "address"), 1) == 0x1233);
	if (version >= 70)
		PC_CHECK(num(get(ft, "lib"), 0) == -1 && num(get(ft, "lib"), 2) == 0);
	else
		PC_CHECK(cJSON_GetObjectItem(ft, "lib") == NULL);
	PC_CHECK(is_null(get(ft, "category"), 0) && num(get(ft, "category"), 1) == 1);
	PC_CHECK(is_null(get(ft, "subcategory"), 0) && num(get(ft, "subcategory"), 2) == 0);
	PC_CHECK(num(get(ft, "nativeSymbol"), 1) == 0 && is_null(get(ft, "nativeSymbol"), 2));
	PC_CHECK(is_null(get(ft, "line"), 0) && num(get(ft, "line"), 1) == 12);
	PC_CHECK(is_null(get(ft, "column"), 2) && num(get(ft, "column"), 1) == 3);
	PC_CHECK(num(get(ft, "innerWindowID"), 0) == 0 && is_null(get(ft, "originalLocation"), 1));
	PC_CHECK(num(get(ft, "inlineDepth"), 2) == 1);

	fn = get(shared, "funcTable");
	PC_CHECK_EQ_INT(check_table(fn, "funcTable", 8), 3);
	PC_CHECK(num(get(fn, "resource"), 0) == -1 && num(get(fn, "resource"), 1) == 0);
	PC_CHECK(is_null(get(fn, "source"), 0) && num(get(fn, "source"), 2) == 0);
	PC_CHECK(is_null(get(fn, "lineNumber"), 0) && num(get(fn, "lineNumber"), 1) == 12);
	PC_CHECK(cJSON_IsFalse(cJSON_GetArrayItem(get(fn, "isJS"), 0)));

	rt = get(shared, "resourceTable");
	PC_CHECK_EQ_INT(check_table(rt, "resourceTable", version >= 70 ? 3 : 4), 1);
	PC_CHECK(is_null(get(rt, "host"), 0) && num(get(rt, "type"), 0) == 1);
	if (version >= 70)
		PC_CHECK(cJSON_GetObjectItem(rt, "lib") == NULL);
	else /* funcs 1 and 2 (frames 1 and 2) are in resource 0 of lib 0 */
		PC_CHECK(num(get(rt, "lib"), 0) == 0);

	ns = get(shared, "nativeSymbols");
	PC_CHECK_EQ_INT(check_table(ns, "nativeSymbols", 4), 2);
	PC_CHECK(num(get(ns, "functionSize"), 0) == 64 && is_null(get(ns, "functionSize"), 1));
	PC_CHECK(num(get(ns, "address"), 0) == 0x1200);

	PC_CHECK_EQ_INT(check_table(get(shared, "sources"), "sources", 6), 1);
	PC_CHECK_EQ_INT(check_table(get(shared, "sourceLocationTable"), "sourceLocationTable", 3),
			0);

	threads = get(doc, "threads");
	PC_CHECK_EQ_INT(cJSON_GetArraySize(threads), 2);
	th = cJSON_GetArrayItem(threads, 0);
	PC_CHECK(cJSON_IsString(get(th, "pid")));
	PC_CHECK_EQ_STR(get(th, "pid")->valuestring, "100");
	PC_CHECK(cJSON_IsNumber(get(th, "tid")) && get(th, "tid")->valuedouble == 100);
	PC_CHECK(cJSON_IsTrue(get(th, "isMainThread")));
	/* process facts come from the process row: the same for both threads */
	PC_CHECK(get(th, "processShutdownTime")->valuedouble == 4.5);
	PC_CHECK(get(cJSON_GetArrayItem(threads, 1), "processShutdownTime")->valuedouble == 4.5);
	PC_CHECK(cJSON_IsNull(get(th, "unregisterTime")));
	PC_CHECK_EQ_INT(cJSON_GetArraySize(get(th, "pausedRanges")), 1);
	PC_CHECK_EQ_STR(get(cJSON_GetArrayItem(get(th, "pausedRanges"), 0), "reason")->valuestring,
			"profiler-paused");
	/* the cause, appended to the payload */
	c = get(cJSON_GetArrayItem(get(get(th, "markers"), "data"), 0), "cause");
	PC_CHECK(c && get(c, "stack")->valuedouble == 1 &&
		 get(c, "time")->valuedouble == 0.4);
	s = get(th, "samples");
	PC_CHECK_EQ_INT(check_table(s, "samples", 2), 4);
	PC_CHECK(cJSON_IsNull(get(s, "weight")));
	PC_CHECK_EQ_STR(get(s, "weightType")->valuestring, "samples");
	PC_CHECK(is_null(get(s, "stack"), 2) && num(get(s, "stack"), 3) == 3);
	/* times as deltas (0, 1, 1.5, 2.000001 ms), the first from 0 */
	PC_CHECK(get(s, "time") == NULL);
	PC_CHECK(num(get(s, "timeDeltas"), 0) == 0 && num(get(s, "timeDeltas"), 1) == 1 &&
		 num(get(s, "timeDeltas"), 2) == 0.5 && num(get(s, "timeDeltas"), 3) == 0.500001);
	mk = get(th, "markers");
	PC_CHECK_EQ_INT(check_table(mk, "markers", 6), 2);
	/* the instant's end, which the front-end does not read: 0, not null */
	PC_CHECK(num(get(mk, "endTime"), 0) == 2.5 && num(get(mk, "endTime"), 1) == 0);
	PC_CHECK(num(get(mk, "startTime"), 1) == -1.2345);
	PC_CHECK_EQ_STR(get(cJSON_GetArrayItem(get(mk, "data"), 0), "type")->valuestring, "Tick");
	PC_CHECK(is_null(get(mk, "data"), 1));

	th = cJSON_GetArrayItem(threads, 1);
	PC_CHECK_EQ_STR(get(th, "pid")->valuestring, "100");
	PC_CHECK(cJSON_IsFalse(get(th, "isMainThread")));
	PC_CHECK(get(th, "processShutdownTime")->valuedouble == 4.5);
	PC_CHECK(get(th, "registerTime")->valuedouble == 0.4);
	s = get(th, "samples");
	PC_CHECK_EQ_INT(check_table(s, "samples", 3), 2);
	PC_CHECK(num(get(s, "weight"), 0) == 3 && num(get(s, "weight"), 1) == 1);
	PC_CHECK_EQ_INT(check_table(get(th, "markers"), "markers", 6), 0);
	cJSON_Delete(doc);
}

/* PC_FIXTURES (set by CTest) is .../tests/fixtures; without it, go by __FILE__. */
static const char *golden_path(void)
{
	static char path[4096];
	const char *fx = getenv("PC_FIXTURES");
	char *p;

	if (fx) {
		pc_snprintf(path, sizeof(path), "%s/../golden/processed_small.json", fx);
		return path;
	}
	pc_snprintf(path, sizeof(path), "%s", __FILE__); /* .../tests/unit/test_*.c */
	p = strrchr(path, '/');
	if (!p)
		return "tests/golden/processed_small.json";
	pc_snprintf(p, sizeof(path) - (size_t)(p - path), "/../golden/processed_small.json");
	return path;
}

static void check_golden(const struct membuf *b)
{
	const char *path = golden_path();
	const char *update = getenv("PC_UPDATE_GOLDEN");
	struct membuf g = { 0 };
	char chunk[4096];
	size_t n;
	FILE *f;

	if (update && *update && strcmp(update, "0") != 0) {
		f = fopen(path, "wb");
		PC_CHECK(f != NULL);
		if (f) {
			PC_CHECK(fwrite(b->p, 1, b->len, f) == b->len);
			PC_CHECK(fclose(f) == 0);
			fprintf(stderr, "wrote %s\n", path);
		}
		return;
	}
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open (PC_UPDATE_GOLDEN=1 creates it)\n", path);
		PC_CHECK(0);
		return;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mem_write(&g, chunk, n);
	fclose(f);
	PC_CHECK_EQ_INT(g.len, b->len);
	PC_CHECK(g.len == b->len && memcmp(g.p, b->p, b->len) == 0);
	if (g.len != b->len || memcmp(g.p, b->p, b->len) != 0)
		fprintf(stderr, "%s differs from the output:\n%s\n", path, b->p);
	free(g.p);
}

int main(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	const struct pc_writer *wr = pc_writer_find(PROFCONV_OUT_PROCESSED);
	struct membuf b = { 0 }, b2 = { 0 };
	struct pc_model *m;
	size_t k;

	PC_CHECK(ctx != NULL);
	PC_CHECK(wr != NULL && wr == &pc_writer_processed);
	PC_CHECK(pc_writer_find("no-such-format") == NULL);
	PC_CHECK(pc_writer_find(NULL) == NULL);
	PC_CHECK(pc_writers[0] == &pc_writer_processed);
	if (!ctx || !wr)
		return pc_test_done();

	m = build_model(ctx);
	PC_CHECK(m != NULL);
	if (!m)
		return pc_test_done();
	PC_CHECK_EQ_INT(ctx->status, 0);

	PC_CHECK_EQ_INT(wr->write(ctx, m, mem_write, &b), 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 1); /* "leaf \xff" */
	PC_CHECK(b.len > 0 && b.p[b.len - 1] == '\n');
	check_structure(b.p, 69); /* the default: what the deployed front-end reads */
	check_golden(&b);

	/* Version 70 on request: lib on the frames. */
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "processed-version", "70"), 0);
	PC_CHECK_EQ_INT(wr->write(ctx, m, mem_write, &b2), 0);
	check_structure(b2.p, 70);
	free(b2.p);
	memset(&b2, 0, sizeof(b2));
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "processed-version", "71"), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "processed-version", "69"), 0);
	pc_clear_error(ctx);

	/* Deterministic: a second run gives the same bytes. */
	PC_CHECK_EQ_INT(wr->write(ctx, m, mem_write, &b2), 0);
	PC_CHECK(b2.len == b.len && memcmp(b.p, b2.p, b.len) == 0);
	free(b2.p);

	/* A failing sink at any point gives PROFCONV_ERR_IO and no leak. */
	for (k = 1; k < b.len; k += 97) {
		memset(&b2, 0, sizeof(b2));
		b2.fail_after = k;
		pc_clear_error(ctx);
		PC_CHECK_EQ_INT(wr->write(ctx, m, mem_write, &b2), PROFCONV_ERR_IO);
		free(b2.p);
	}
	pc_clear_error(ctx);

	/* A stack whose prefix is not before it is refused, not written wrong. */
	m->stacks.prefix[1] = 3;
	memset(&b2, 0, sizeof(b2));
	PC_CHECK_EQ_INT(wr->write(ctx, m, mem_write, &b2), PROFCONV_ERR_INTERNAL);
	free(b2.p);
	m->stacks.prefix[1] = 0;
	pc_clear_error(ctx);

	free(b.p);
	pc_model_free(m);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
