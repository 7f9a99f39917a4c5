/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_write_gecko.c - the Gecko writer's own arithmetic on payload numbers:
 * GC timings go back from the processed form (phase_times in us, mmu as a
 * fraction) to Gecko's (times/totals in ms, mmu in percent), reading the
 * numbers a processed profile kept as their text.  Those numbers must not
 * depend on the host's locale: a program that embeds the library under a
 * decimal-comma locale got 1500.5 read as 1500 and 0.25 as 0.
 *
 * And the JS frame locations: one per JS function, naming the function's own
 * line:column and its source index, whatever line and column each frame has
 * (those go to the frame's columns), and a line even when the function has
 * none, so that the front-end's regexps make one JS func of them.
 */
#include "core/pc_config.h"

#include "writers/pc_writer.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "pc_test.h"
#include "pc_test_locale.h"

/* A literal number member, as the processed reader keeps one (PC_VAL_NUM). */
static void num_member(struct pc_pvb *b, const char *key, const char *literal)
{
	pc_pvb_key_z(b, key);
	pc_pvb_num(b, literal, strlen(literal));
}

/*
 * One thread with a GCMajor and a GCSlice marker whose timings hold number
 * literals: ones that pc_jnum_value() converts (1500.5, 0.25) and ones of 17
 * significant digits that need strtod() (0.30000000000000004).
 */
static struct pc_model *gc_model(struct profconv_ctx *ctx)
{
	struct pc_model *m = pc_model_new(ctx);
	struct pc_marker_row r;
	struct pc_thread *t;
	struct pc_pvb b;

	if (!m)
		return NULL;
	t = pc_thread_add(m, 10, 10);
	t->name = pc_str_intern_z(m, "GeckoMain");
	t->is_main = 1;
	pc_marker_row_init(&r);
	r.name = pc_str_intern_z(m, "GCMajor");
	r.start = 1000000;
	r.end = 2000000;
	r.phase = PC_PHASE_INTERVAL;
	pc_pvb_begin(&b, m, 0);
	pc_pvb_key_z(&b, "type");
	pc_pvb_str_z(&b, "GCMajor");
	pc_pvb_key_z(&b, "timings");
	pc_pvb_obj_begin(&b);
	pc_pvb_key_z(&b, "status");
	pc_pvb_str_z(&b, "completed");
	num_member(&b, "mmu_20ms", "0.25");
	num_member(&b, "mmu_50ms", "0.30000000000000004");
	pc_pvb_key_z(&b, "phase_times");
	pc_pvb_obj_begin(&b);
	num_member(&b, "a", "1500.5");
	num_member(&b, "b", "0.30000000000000004");
	pc_pvb_obj_end(&b);
	pc_pvb_obj_end(&b);
	r.payload = pc_pvb_end(&b);
	pc_marker_push(m, t, &r);

	pc_marker_row_init(&r);
	r.name = pc_str_intern_z(m, "GCSlice");
	r.start = 3000000;
	r.end = 4000000;
	r.phase = PC_PHASE_INTERVAL;
	pc_pvb_begin(&b, m, 0);
	pc_pvb_key_z(&b, "type");
	pc_pvb_str_z(&b, "GCSlice");
	pc_pvb_key_z(&b, "timings");
	pc_pvb_obj_begin(&b);
	pc_pvb_key_z(&b, "phase_times");
	pc_pvb_obj_begin(&b);
	num_member(&b, "x", "1500.5");
	num_member(&b, "y", "0.30000000000000004");
	pc_pvb_obj_end(&b);
	pc_pvb_obj_end(&b);
	r.payload = pc_pvb_end(&b);
	pc_marker_push(m, t, &r);
	return m;
}

/* data.timings of the marker whose data.type is type, in threads[0]. */
static const cJSON *timings(const cJSON *doc, const char *type)
{
	const cJSON *th = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "threads"), 0);
	const cJSON *mk = cJSON_GetObjectItem(th, "markers");
	const cJSON *di = cJSON_GetObjectItem(cJSON_GetObjectItem(mk, "schema"), "data");
	const cJSON *row;

	if (!cJSON_IsNumber(di))
		return NULL;
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(mk, "data"))
	{
		const cJSON *d = cJSON_GetArrayItem(row, (int)di->valuedouble);
		const cJSON *ty = cJSON_GetObjectItem(d, "type");

		if (cJSON_IsString(ty) && strcmp(ty->valuestring, type) == 0)
			return cJSON_GetObjectItem(d, "timings");
	}
	return NULL;
}

static int member_is(const char *what, const cJSON *o, const char *key, double want)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	if (!cJSON_IsNumber(v) || v->valuedouble != want) {
		fprintf(stderr, "%s: %s is %.17g, not %.17g\n", what, key,
			cJSON_IsNumber(v) ? v->valuedouble : -1.0, want);
		return 0;
	}
	return 1;
}

/* --to gecko of gc_model(), the numbers checked (parsed under "C"). */
static void check_gc_output(const char *what, locale_t loc)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = gc_model(ctx);
	struct membuf out = { 0 };
	locale_t old = (locale_t)0;
	cJSON *doc;
	const cJSON *t;
	int err;

	PC_CHECK(m != NULL);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	if (loc != (locale_t)0)
		old = uselocale(loc);
	err = pc_writer_gecko.write(ctx, m, mem_write, &out);
	if (loc != (locale_t)0)
		uselocale(old);
	PC_CHECK_EQ_INT(err, 0);
	doc = out.p ? cJSON_Parse(out.p) : NULL;
	PC_CHECK(doc != NULL);
	t = timings(doc, "GCMajor");
	PC_CHECK(t != NULL);
	PC_CHECK(member_is(what, t, "mmu_20ms", 25));
	PC_CHECK(member_is(what, t, "mmu_50ms", 0.30000000000000004 * 100));
	PC_CHECK(member_is(what, cJSON_GetObjectItem(t, "totals"), "a", 1500.5 / 1000));
	PC_CHECK(member_is(what, cJSON_GetObjectItem(t, "totals"), "b", 0.30000000000000004 / 1000));
	t = timings(doc, "GCSlice");
	PC_CHECK(t != NULL);
	PC_CHECK(member_is(what, cJSON_GetObjectItem(t, "times"), "x", 1500.5 / 1000));
	PC_CHECK(member_is(what, cJSON_GetObjectItem(t, "times"), "y", 0.30000000000000004 / 1000));
	/* and the text itself: a decimal point, never a comma */
	PC_CHECK(out.p && strstr(out.p, "\"a\":1.5005") && strstr(out.p, "\"mmu_20ms\":25"));
	cJSON_Delete(doc);
	free(out.p);
	pc_model_free(m);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/* A JS frame of func fn at line:column. */
static uint32_t js_frame(struct pc_model *m, uint32_t fn, uint32_t line, uint32_t col)
{
	struct pc_frame_key k;

	memset(&k, 0, sizeof(k));
	k.address = PC_NO_ADDRESS;
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.func = fn;
	k.line = line;
	k.column = col;
	k.category = PC_NO_CATEGORY;
	return pc_frame_intern(m, &k);
}

static uint32_t js_func(struct pc_model *m, const char *name, uint32_t src, uint32_t line,
			uint32_t col)
{
	struct pc_func_key k;

	memset(&k, 0, sizeof(k));
	k.name = pc_str_intern_z(m, name);
	k.resource = PC_NONE;
	k.source = src;
	k.line = line;
	k.column = col;
	k.is_js = 1;
	return pc_func_intern(m, &k);
}

/* The frameTable row of thread 0 whose location is loc, or NULL. */
static const cJSON *frame_row(const cJSON *th, int nth_match, const char *loc)
{
	const cJSON *strs = cJSON_GetObjectItem(th, "stringTable");
	const cJSON *row;

	cJSON_ArrayForEach(row, cJSON_GetObjectItem(cJSON_GetObjectItem(th, "frameTable"), "data"))
	{
		const cJSON *s = cJSON_GetArrayItem(strs, (int)cJSON_GetArrayItem(row, 0)->valuedouble);

		if (cJSON_IsString(s) && strcmp(s->valuestring, loc) == 0 && nth_match-- == 0)
			return row;
	}
	return NULL;
}

static void check_js_locations(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = pc_model_new(ctx);
	struct membuf out = { 0 };
	struct pc_thread *t;
	uint32_t other, src, fib, top, anon, s0, s1, s2, s3;
	const cJSON *th, *strs, *row, *x;
	cJSON *doc;
	int i, nfib = 0;

	PC_CHECK(m != NULL);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	t = pc_thread_add(m, 10, 10);
	t->name = pc_str_intern_z(m, "GeckoMain");
	other = pc_source_intern(m, pc_str_intern_z(m, "file:///tmp/other.js"));
	src = pc_source_intern(m, pc_str_intern_z(m, "file:///tmp/page.html"));
	PC_CHECK_EQ_INT(src, 1);
	(void)other;
	fib = js_func(m, "fib", src, 4, 13);
	top = js_func(m, "", src, 0, 0);		 /* a script's top level: no name, no line */
	anon = js_func(m, "(anonymous)", src, 0, 0); /* Chrome's name for it */
	/* fib at three positions: one function */
	s0 = pc_stack_intern(m, PC_NONE, js_frame(m, top, 0, 0));
	s1 = pc_stack_intern(m, s0, js_frame(m, fib, 4, 17));
	s2 = pc_stack_intern(m, s1, js_frame(m, fib, 4, 30));
	s3 = pc_stack_intern(m, PC_NONE, js_frame(m, anon, 0, 0));
	PC_CHECK_EQ_INT(pc_sample_add(m, t, s1, 1000000, 1), 0);
	PC_CHECK_EQ_INT(pc_sample_add(m, t, s2, 2000000, 1), 0);
	PC_CHECK_EQ_INT(pc_sample_add(m, t, s3, 3000000, 1), 0);
	PC_CHECK_EQ_INT(pc_writer_gecko.write(ctx, m, mem_write, &out), 0);
	doc = out.p ? cJSON_Parse(out.p) : NULL;
	PC_CHECK(doc != NULL);
	th = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "threads"), 0);
	strs = cJSON_GetObjectItem(th, "stringTable");
	/* one location text for fib (one string per frame), with [1]; no frame position in it */
	cJSON_ArrayForEach(x, strs)
		if (cJSON_IsString(x) && strncmp(x->valuestring, "fib ", 4) == 0) {
			PC_CHECK_EQ_STR(x->valuestring, "fib (file:///tmp/page.html:4:13)[1]");
			nfib++;
		}
	PC_CHECK_EQ_INT(nfib, 2);
	/* the frames keep their own line and column (schema: line 4, column 5) */
	for (i = 0; i < 2; i++) {
		row = frame_row(th, i, "fib (file:///tmp/page.html:4:13)[1]");
		PC_CHECK(row != NULL);
		if (row) {
			PC_CHECK_EQ_INT((int)cJSON_GetArrayItem(row, 4)->valuedouble, 4);
			PC_CHECK_EQ_INT((int)cJSON_GetArrayItem(row, 5)->valuedouble, i ? 30 : 17);
		}
	}
	/* the top-level script and Chrome's (anonymous) stay JS: a line, ":0" */
	PC_CHECK(frame_row(th, 0, " (file:///tmp/page.html:0)[1]") != NULL);
	PC_CHECK(frame_row(th, 0, "(anonymous) (file:///tmp/page.html:0)[1]") != NULL);
	/* the sources the [N] point into: the model's, row for row */
	x = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "sources"), "data");
	PC_CHECK_EQ_INT(cJSON_GetArraySize(x), 2);
	x = cJSON_GetArrayItem(cJSON_GetArrayItem(x, 1), 1);
	PC_CHECK(cJSON_IsString(x) && strcmp(x->valuestring, "file:///tmp/page.html") == 0);
	cJSON_Delete(doc);
	free(out.p);
	pc_model_free(m);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/* A native frame of func fn in lib at lib-relative addr. */
static uint32_t native_frame(struct pc_model *m, uint32_t lib, uint32_t fn, uint64_t addr,
			     uint16_t depth, uint32_t sym)
{
	struct pc_frame_key k;

	memset(&k, 0, sizeof(k));
	k.address = addr;
	k.lib = lib;
	k.native_symbol = sym;
	k.func = fn;
	k.inline_depth = depth;
	k.category = PC_NO_CATEGORY;
	return pc_frame_intern(m, &k);
}

static uint32_t native_func(struct pc_model *m, const char *name, uint32_t res, uint32_t src)
{
	struct pc_func_key k;

	memset(&k, 0, sizeof(k));
	k.name = pc_str_intern_z(m, name);
	k.resource = res;
	k.source = src;
	return pc_func_intern(m, &k);
}

/* Cell i of row as an integer (-1: not a number). */
static int cell_int(const cJSON *row, int i)
{
	const cJSON *c = cJSON_GetArrayItem(row, i);

	return cJSON_IsNumber(c) ? (int)c->valuedouble : -1;
}

/* Member key of obj as an integer (-1: none). */
static int key_int(const cJSON *obj, const char *key)
{
	const cJSON *c = cJSON_GetObjectItem(obj, key);

	return cJSON_IsNumber(c) ? (int)c->valuedouble : -1;
}

/* Cell i of row as a string ("" if not one). */
static const char *cell_str(const cJSON *row, int i)
{
	const cJSON *c = cJSON_GetArrayItem(row, i);

	return cJSON_IsString(c) ? c->valuestring : "";
}

/*
 * Symbolicated native frames: "name (in lib)" locations, and profconv's own
 * frameTable columns for what those cannot carry (the absolute address with
 * a caller's nudge undone, inline depth, native symbol, the function's
 * source), in a thread that needs them only.  libfoo.so is mapped at 0x10000
 * from offset 0x1000: absolute = lib-relative + 0xf000.  libbar.so, which no
 * process maps (as a processed input's libs), is written first as an empty
 * range at 0, and its frame names it with the "lib" column.
 */
static void check_native_columns(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = pc_model_new(ctx);
	struct membuf out = { 0 };
	struct pc_thread *t, *t2;
	struct pc_lib lib;
	uint32_t res, src, fmain, finl, fhex, fbar, sym, s0, s1, s2, s3;
	const cJSON *th, *schema, *row, *x;
	cJSON *doc;

	PC_CHECK(m != NULL);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	memset(&lib, 0, sizeof(lib));
	lib.name = lib.debug_name = pc_str_intern_z(m, "libfoo.so");
	lib.path = lib.debug_path = pc_str_intern_z(m, "/lib/libfoo.so");
	lib.breakpad_id = pc_str_intern_z(m, "ABC0");
	lib.code_id = lib.arch = PC_NONE;
	res = pc_resource_intern(m, lib.name, PC_NONE, PC_RES_LIBRARY, 0);
	lib.resource = res;
	PC_CHECK_EQ_INT(pc_lib_add(m, &lib), 0);
	lib.name = lib.debug_name = pc_str_intern_z(m, "libbar.so");
	lib.path = lib.debug_path = pc_str_intern_z(m, "/lib/libbar.so");
	lib.breakpad_id = pc_str_intern_z(m, "DEF0");
	lib.resource = pc_resource_intern(m, lib.name, PC_NONE, PC_RES_LIBRARY, 1);
	PC_CHECK_EQ_INT(pc_lib_add(m, &lib), 1);
	t = pc_thread_add(m, 10, 10);
	t->name = pc_str_intern_z(m, "sym");
	t2 = pc_thread_add(m, 10, 11);
	t2->name = pc_str_intern_z(m, "hex");
	PC_CHECK_EQ_INT(pc_process_add_mapping(m, t->process, 0, 0x10000, 0x20000, 0x1000), 0);
	src = pc_source_intern(m, pc_str_intern_z(m, "/src/a.c"));
	fmain = native_func(m, "main", res, src);
	finl = native_func(m, "inl", res, src);
	fhex = native_func(m, "0x2500", res, PC_NONE);
	sym = pc_native_symbol_intern(m, 0, 0x2000, pc_str_intern_z(m, "main"), 64);
	s0 = pc_stack_intern(m, PC_NONE, native_frame(m, 0, fmain, 0x20ff, 0, sym)); /* a caller */
	s1 = pc_stack_intern(m, s0, native_frame(m, 0, finl, 0x2200, 1, sym));
	s2 = pc_stack_intern(m, PC_NONE, native_frame(m, 0, fhex, 0x2500, 0, PC_NONE));
	fbar = native_func(m, "0x40", lib.resource, PC_NONE);
	s3 = pc_stack_intern(m, s0, native_frame(m, 1, fbar, 0x40, 0, PC_NONE));
	PC_CHECK_EQ_INT(pc_sample_add(m, t, s1, 1000000, 1), 0);
	PC_CHECK_EQ_INT(pc_sample_add(m, t2, s2, 1000000, 1), 0);
	PC_CHECK_EQ_INT(pc_sample_add(m, t, s3, 2000000, 1), 0);
	PC_CHECK_EQ_INT(pc_writer_gecko.write(ctx, m, mem_write, &out), 0);
	doc = out.p ? cJSON_Parse(out.p) : NULL;
	PC_CHECK(doc != NULL);
	th = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "threads"), 0);
	schema = cJSON_GetObjectItem(cJSON_GetObjectItem(th, "frameTable"), "schema");
	PC_CHECK_EQ_INT(key_int(schema, "address"), 8);
	PC_CHECK_EQ_INT(key_int(schema, "lib"), 9);
	PC_CHECK_EQ_INT(key_int(schema, "inlineDepth"), 10);
	PC_CHECK_EQ_INT(key_int(schema, "nativeSymbol"), 11);
	PC_CHECK_EQ_INT(key_int(schema, "nativeSymbolAddress"), 12);
	PC_CHECK_EQ_INT(key_int(schema, "nativeSymbolSize"), 13);
	PC_CHECK_EQ_INT(key_int(schema, "source"), 14);
	/* libbar.so first, [0, 0) at offset 0, then libfoo.so's mapping */
	x = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "libs"), 0);
	PC_CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(x, "name")), "libbar.so");
	PC_CHECK_EQ_INT(key_int(x, "start"), 0);
	PC_CHECK_EQ_INT(key_int(x, "end"), 0);
	PC_CHECK_EQ_INT(key_int(x, "offset"), 0);
	x = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "libs"), 1);
	PC_CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(x, "name")), "libfoo.so");
	PC_CHECK_EQ_INT(key_int(x, "start"), 0x10000);
	row = frame_row(th, 0, "0x40 (in libbar.so)");
	PC_CHECK(row != NULL);
	if (row) {
		PC_CHECK_EQ_STR(cell_str(row, 8), "0x40"); /* lib-relative */
		PC_CHECK_EQ_INT(cell_int(row, 9), 0);
		PC_CHECK_EQ_INT(cJSON_GetArraySize(row), 10);
	}
	row = frame_row(th, 0, "main (in libfoo.so)");
	PC_CHECK(row != NULL);
	if (row) {
		PC_CHECK_EQ_STR(cell_str(row, 8), "0x11100"); /* un-nudged */
		PC_CHECK(cJSON_IsNull(cJSON_GetArrayItem(row, 9)));
		PC_CHECK(cJSON_IsNull(cJSON_GetArrayItem(row, 10)));
		PC_CHECK_EQ_STR(cell_str(cJSON_GetObjectItem(th, "stringTable"), cell_int(row, 11)),
				"main");
		PC_CHECK_EQ_STR(cell_str(row, 12), "0x11000");
		PC_CHECK_EQ_INT(cell_int(row, 13), 64);
		PC_CHECK_EQ_INT(cell_int(row, 14), (int)src);
	}
	row = frame_row(th, 0, "inl (in libfoo.so)");
	PC_CHECK(row != NULL);
	if (row) {
		PC_CHECK_EQ_STR(cell_str(row, 8), "0x11200");
		PC_CHECK_EQ_INT(cell_int(row, 10), 1);
	}
	/* the sources the column points into */
	row = cJSON_GetArrayItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "sources"), "data"), (int)src);
	PC_CHECK_EQ_STR(cell_str(row, 1), "/src/a.c");
	/* a thread of "0x..." locations only: the eight Gecko columns, no more */
	th = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "threads"), 1);
	schema = cJSON_GetObjectItem(cJSON_GetObjectItem(th, "frameTable"), "schema");
	PC_CHECK_EQ_INT(cJSON_GetArraySize(schema), 8);
	row = frame_row(th, 0, "0x11500");
	PC_CHECK(row != NULL);
	PC_CHECK_EQ_INT(cJSON_GetArraySize(row), 8);
	cJSON_Delete(doc);
	free(out.p);
	pc_model_free(m);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

int main(void)
{
	locale_t comma = pc_test_comma_locale();

	check_js_locations();
	check_native_columns();

	check_gc_output("GC timings, C locale", (locale_t)0);
	if (comma != (locale_t)0) {
		check_gc_output("GC timings, decimal-comma locale", comma);
		freelocale(comma);
	}
	return pc_test_done();
}
