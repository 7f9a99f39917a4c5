/*
 * write_processed.c - the model as a Firefox Profiler processed profile,
 * format version 70 (PROFCONV_PROCESSED_FORMAT_VERSION).
 *
 * The shape is the front-end's `Profile` type (src/types/profile.ts in
 * firefox-devtools/profiler; docs: firefox-profiler-formats.md section 4):
 *
 *   { meta, libs, shared: { stringArray, stackTable, frameTable, funcTable,
 *     resourceTable, nativeSymbols, sources, sourceLocationTable }, threads }
 *
 * Everything is streamed straight from the model's columns through pc_jw;
 * no tree is built.  The big columns go through the pc_jw bulk writers, and
 * the two derived ones (stackTable.prefixOffset, frameTable.subcategory) are
 * computed in fixed-size chunks on the stack.  Iteration is by row index
 * only, so the output is a function of the model alone (golden files).
 *
 * Null encodings (the format's, not ours): lib and resource use -1, the
 * other optional indexes use null; line/column/functionSize 0 mean unknown
 * and are written as null; times PC_NO_TIME are null.
 */
#include "writers/pc_writer.h"

#include "json/pc_jw.h"

#define CHUNK 1024 /* rows per derived-column chunk */

#define WARN_UTF8 "output strings with invalid UTF-8 replaced"

/* A string-table entry; PC_NONE writes null (for the nullable fields). */
static void str_idx(struct pc_jw *w, const struct pc_model *m, uint32_t i)
{
	if (i == PC_NONE)
		pc_jw_null(w);
	else
		pc_jw_str(w, m->strings.ptr[i], m->strings.lens[i]);
}

static void key_str_idx(struct pc_jw *w, const struct pc_model *m, const char *key, uint32_t i)
{
	pc_jw_key(w, key);
	str_idx(w, m, i);
}

static void key_str(struct pc_jw *w, const char *key, const char *s)
{
	pc_jw_key(w, key);
	pc_jw_str_z(w, s);
}

static void key_i64(struct pc_jw *w, const char *key, int64_t v)
{
	pc_jw_key(w, key);
	pc_jw_i64(w, v);
}

static void key_bool(struct pc_jw *w, const char *key, int v)
{
	pc_jw_key(w, key);
	pc_jw_bool(w, v);
}

/* A time in ns as ms, or null for PC_NO_TIME. */
static void key_time(struct pc_jw *w, const char *key, int64_t ns)
{
	pc_jw_key(w, key);
	if (ns == PC_NO_TIME)
		pc_jw_null(w);
	else
		pc_jw_ns_ms(w, ns);
}

/* One column each: key, then the whole array.  none_json NULL: no sentinel. */
static void col_u32(struct pc_jw *w, const char *key, const uint32_t *v, uint32_t n, uint32_t none,
		    const char *none_json)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_u32s(w, v, n, none, none_json);
	pc_jw_arr_end(w);
}

static void col_u16(struct pc_jw *w, const char *key, const uint16_t *v, uint32_t n, uint16_t none,
		    const char *none_json)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_u16s(w, v, n, none, none_json);
	pc_jw_arr_end(w);
}

static void col_u64(struct pc_jw *w, const char *key, const uint64_t *v, uint32_t n, uint64_t none,
		    const char *none_json)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_u64s(w, v, n, none, none_json);
	pc_jw_arr_end(w);
}

static void col_u8(struct pc_jw *w, const char *key, const uint8_t *v, uint32_t n)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_u8s(w, v, n);
	pc_jw_arr_end(w);
}

static void col_bool(struct pc_jw *w, const char *key, const uint8_t *v, uint32_t n)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_bools(w, v, n);
	pc_jw_arr_end(w);
}

static void col_i64(struct pc_jw *w, const char *key, const int64_t *v, uint32_t n)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_i64s(w, v, n);
	pc_jw_arr_end(w);
}

/* Times in ns as ms; PC_NO_TIME as null. */
static void col_time(struct pc_jw *w, const char *key, const int64_t *v, uint32_t n)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_ns_ms_s(w, v, n, PC_NO_TIME, "null");
	pc_jw_arr_end(w);
}

/* The same token n times ("null", "0", "1"). */
static void col_repeat(struct pc_jw *w, const char *key, const char *tok, uint32_t n)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_raw_repeat(w, tok, strlen(tok), n);
	pc_jw_arr_end(w);
}

static void col_empty(struct pc_jw *w, const char *key)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_arr_end(w);
}

static void write_categories(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i, j;

	pc_jw_key(w, "categories");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->ncategories; i++) {
		const struct pc_category *c = &m->categories[i];

		pc_jw_obj_begin(w);
		key_str(w, "name", c->name ? c->name : "Other");
		key_str(w, "color", c->color ? c->color : "grey");
		pc_jw_key(w, "subcategories");
		pc_jw_arr_begin(w);
		for (j = 0; j < c->nsub; j++)
			pc_jw_str_z(w, c->subcategories[j] ? c->subcategories[j] : "Other");
		if (!c->nsub)
			pc_jw_str_z(w, "Other"); /* every category needs subcategory 0 */
		pc_jw_arr_end(w);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

static void extra_entry(struct pc_jw *w, const char *label, const char *value)
{
	if (!value)
		return;
	pc_jw_obj_begin(w);
	key_str(w, "label", label);
	key_str(w, "format", "string");
	key_str(w, "value", value);
	pc_jw_obj_end(w);
}

/*
 * meta.extra: ExtraProfileInfoSection[] = [{label, entries: [{label, format,
 * value}]}] (src/types/profile.ts); format is a marker field format.
 */
static void write_extra(struct pc_jw *w, const struct pc_meta *mt)
{
	if (!mt->hostname && !mt->perf_version && !mt->command_line && !mt->event_name)
		return;
	pc_jw_key(w, "extra");
	pc_jw_arr_begin(w);
	pc_jw_obj_begin(w);
	key_str(w, "label", "perf.data");
	pc_jw_key(w, "entries");
	pc_jw_arr_begin(w);
	extra_entry(w, "Host", mt->hostname);
	extra_entry(w, "perf version", mt->perf_version);
	extra_entry(w, "Command line", mt->command_line);
	extra_entry(w, "Event", mt->event_name);
	pc_jw_arr_end(w);
	pc_jw_obj_end(w);
	pc_jw_arr_end(w);
}

static void write_meta(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_meta *mt = &m->meta;
	uint32_t i;

	pc_jw_key(w, "meta");
	pc_jw_obj_begin(w);
	key_i64(w, "version", PROFCONV_GECKO_FORMAT_VERSION);
	key_i64(w, "preprocessedProfileVersion", PROFCONV_PROCESSED_FORMAT_VERSION);
	key_time(w, "interval", mt->interval_ns);
	/* Epoch ns of time 0 printed as ms, exact (startTime is ms since the epoch). */
	key_time(w, "startTime", mt->has_start_time ? mt->start_time_ns : 0);
	key_i64(w, "processType", 0);
	key_str(w, "product", mt->product ? mt->product : "profconv");
	key_i64(w, "stackwalk", 1);
	key_bool(w, "symbolicated", mt->symbolicated);

	pc_jw_key(w, "markerSchema");
	pc_jw_arr_begin(w);
	for (i = 0; i < mt->nmarker_schema; i++)
		pc_jw_raw(w, mt->marker_schema[i], strlen(mt->marker_schema[i]));
	pc_jw_arr_end(w);

	write_categories(w, m);
	if (mt->imported_from)
		key_str(w, "importedFrom", mt->imported_from);
	if (mt->profiling_start != PC_NO_TIME)
		key_time(w, "profilingStartTime", mt->profiling_start);
	if (mt->profiling_end != PC_NO_TIME)
		key_time(w, "profilingEndTime", mt->profiling_end);
	if (mt->os_release) {
		key_str(w, "oscpu", mt->os_release);
		key_str(w, "platform", "Linux");
	}
	if (mt->arch)
		key_str(w, "abi", mt->arch);
	if (mt->cpu_desc)
		key_str(w, "CPUName", mt->cpu_desc);
	if (mt->logical_cpus)
		key_i64(w, "logicalCPUs", mt->logical_cpus);
	if (mt->physical_cpus)
		key_i64(w, "physicalCPUs", mt->physical_cpus);
	write_extra(w, mt);
	pc_jw_obj_end(w);
}

static void write_libs(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i;

	pc_jw_key(w, "libs");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->libs.len; i++) {
		const struct pc_lib *l = &m->libs.rows[i];

		pc_jw_obj_begin(w);
		key_str_idx(w, m, "arch", l->arch);
		key_str_idx(w, m, "name", l->name);
		key_str_idx(w, m, "path", l->path);
		key_str_idx(w, m, "debugName", l->debug_name);
		key_str_idx(w, m, "debugPath", l->debug_path);
		key_str_idx(w, m, "breakpadId", l->breakpad_id);
		key_str_idx(w, m, "codeId", l->code_id);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

/* prefixOffset[i] = 0 for a root, else i - prefix[i] (> 0: parents come first). */
static int write_stack_table(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_stack_table *st = &m->stacks;
	uint32_t chunk[CHUNK], i, k, n;

	pc_jw_key(w, "stackTable");
	pc_jw_obj_begin(w);
	col_u32(w, "frame", st->frame, st->len, 0, NULL);
	pc_jw_key(w, "prefixOffset");
	pc_jw_arr_begin(w);
	for (i = 0; i < st->len; i += n) {
		n = st->len - i < CHUNK ? st->len - i : CHUNK;
		for (k = 0; k < n; k++) {
			uint32_t row = i + k, pre = st->prefix[row];

			if (pre == PC_NONE) {
				chunk[k] = 0;
			} else if (pre < row) {
				chunk[k] = row - pre;
			} else {
				return pc_fail(m->ctx, PROFCONV_ERR_INTERNAL, NULL,
					       "stack %u: prefix %u is not before it", row, pre);
			}
		}
		pc_jw_u32s(w, chunk, n, 0, NULL);
	}
	pc_jw_arr_end(w);
	key_i64(w, "length", st->len);
	pc_jw_obj_end(w);
	return 0;
}

/* innerWindowID: the optional column, then 0 for the rows past it. */
static void col_inner_window_id(struct pc_jw *w, const struct pc_frame_table *ft)
{
	uint32_t n = ft->iw_len < ft->len ? ft->iw_len : ft->len;

	pc_jw_key(w, "innerWindowID");
	pc_jw_arr_begin(w);
	pc_jw_u64s(w, ft->inner_window_id, n, 0, NULL);
	pc_jw_raw_repeat(w, "0", 1, ft->len - n);
	pc_jw_arr_end(w);
}

/* A string column of the sources' optional part (PC_NONE: null), then null. */
static void col_source_str(struct pc_jw *w, const struct pc_model *m, const char *key,
			   const uint32_t *v, uint32_t n, uint32_t len)
{
	uint32_t i;

	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	for (i = 0; i < n; i++)
		str_idx(w, m, v[i]);
	pc_jw_raw_repeat(w, "null", 4, len - n);
	pc_jw_arr_end(w);
}

/* A number column of the sources' optional part, then tail for the other rows. */
static void col_source_u32(struct pc_jw *w, const char *key, const uint32_t *v, uint32_t n,
			   uint32_t len, const char *tail)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_u32s(w, v, n, PC_NONE, "null");
	pc_jw_raw_repeat(w, tail, strlen(tail), len - n);
	pc_jw_arr_end(w);
}

/* subcategory is null exactly where category is null. */
static void col_subcategory(struct pc_jw *w, const struct pc_frame_table *ft)
{
	uint32_t chunk[CHUNK], i, k, n;

	pc_jw_key(w, "subcategory");
	pc_jw_arr_begin(w);
	for (i = 0; i < ft->len; i += n) {
		n = ft->len - i < CHUNK ? ft->len - i : CHUNK;
		for (k = 0; k < n; k++) {
			uint32_t row = i + k;

			chunk[k] = ft->category[row] == PC_NO_CATEGORY ? PC_NONE :
									 ft->subcategory[row];
		}
		pc_jw_u32s(w, chunk, n, PC_NONE, "null");
	}
	pc_jw_arr_end(w);
}

static void write_frame_table(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_frame_table *ft = &m->frames;

	pc_jw_key(w, "frameTable");
	pc_jw_obj_begin(w);
	col_u64(w, "address", ft->address, ft->len, PC_NO_ADDRESS, "-1");
	col_u32(w, "lib", ft->lib, ft->len, PC_NONE, "-1");
	col_u16(w, "inlineDepth", ft->inline_depth, ft->len, 0, NULL);
	col_u16(w, "category", ft->category, ft->len, PC_NO_CATEGORY, "null");
	col_subcategory(w, ft);
	col_u32(w, "func", ft->func, ft->len, 0, NULL);
	col_u32(w, "nativeSymbol", ft->native_symbol, ft->len, PC_NONE, "null");
	col_inner_window_id(w, ft);
	col_u32(w, "line", ft->line, ft->len, 0, "null");
	col_u32(w, "column", ft->column, ft->len, 0, "null");
	col_repeat(w, "originalLocation", "null", ft->len);
	key_i64(w, "length", ft->len);
	pc_jw_obj_end(w);
}

static void write_func_table(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_func_table *ft = &m->funcs;

	pc_jw_key(w, "funcTable");
	pc_jw_obj_begin(w);
	col_u32(w, "name", ft->name, ft->len, 0, NULL);
	col_bool(w, "isJS", ft->is_js, ft->len);
	col_bool(w, "relevantForJS", ft->relevant_for_js, ft->len);
	col_u32(w, "resource", ft->resource, ft->len, PC_NONE, "-1");
	col_u32(w, "source", ft->source, ft->len, PC_NONE, "null");
	col_u32(w, "lineNumber", ft->line, ft->len, 0, "null");
	col_u32(w, "columnNumber", ft->column, ft->len, 0, "null");
	col_repeat(w, "originalLocation", "null", ft->len);
	key_i64(w, "length", ft->len);
	pc_jw_obj_end(w);
}

static void write_resource_table(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_resource_table *rt = &m->resources;

	pc_jw_key(w, "resourceTable");
	pc_jw_obj_begin(w);
	col_u32(w, "name", rt->name, rt->len, 0, NULL);
	col_u32(w, "host", rt->host, rt->len, PC_NONE, "null");
	col_u8(w, "type", rt->type, rt->len);
	key_i64(w, "length", rt->len);
	pc_jw_obj_end(w);
}

static void write_native_symbols(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_native_symbol_table *ns = &m->native_symbols;

	pc_jw_key(w, "nativeSymbols");
	pc_jw_obj_begin(w);
	col_u32(w, "libIndex", ns->lib, ns->len, 0, NULL);
	col_u64(w, "address", ns->address, ns->len, 0, NULL);
	col_u32(w, "name", ns->name, ns->len, 0, NULL);
	col_u32(w, "functionSize", ns->size, ns->len, 0, "null");
	key_i64(w, "length", ns->len);
	pc_jw_obj_end(w);
}

static void write_sources(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_source_table *src = &m->sources;
	uint32_t n = src->ext_len < src->len ? src->ext_len : src->len;

	pc_jw_key(w, "sources");
	pc_jw_obj_begin(w);
	col_source_str(w, m, "id", src->id, n, src->len);
	col_u32(w, "filename", src->filename, src->len, 0, NULL);
	col_source_u32(w, "startLine", src->start_line, n, src->len, "1");
	col_source_u32(w, "startColumn", src->start_column, n, src->len, "1");
	col_source_u32(w, "sourceMapURL", src->source_map_url, n, src->len, "null");
	col_source_str(w, m, "content", src->content, n, src->len);
	key_i64(w, "length", src->len);
	pc_jw_obj_end(w);

	pc_jw_key(w, "sourceLocationTable");
	pc_jw_obj_begin(w);
	col_empty(w, "source");
	col_empty(w, "line");
	col_empty(w, "column");
	key_i64(w, "length", 0);
	pc_jw_obj_end(w);
}

static int write_shared(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i;
	int err;

	pc_jw_key(w, "shared");
	pc_jw_obj_begin(w);
	pc_jw_key(w, "stringArray");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->strings.len; i++)
		pc_jw_str(w, m->strings.ptr[i], m->strings.lens[i]);
	pc_jw_arr_end(w);
	err = write_stack_table(w, m);
	if (err)
		return err;
	write_frame_table(w, m);
	write_func_table(w, m);
	write_resource_table(w, m);
	write_native_symbols(w, m);
	write_sources(w, m);
	pc_jw_obj_end(w);
	return 0;
}

static void write_samples(struct pc_jw *w, const struct pc_model *m, const struct pc_samples *s)
{
	pc_jw_key(w, "samples");
	pc_jw_obj_begin(w);
	col_u32(w, "stack", s->stack, s->len, PC_NONE, "null");
	col_time(w, "time", s->time, s->len);
	if (s->weight) {
		col_i64(w, "weight", s->weight, s->len);
	} else {
		pc_jw_key(w, "weight");
		pc_jw_null(w);
	}
	key_str(w, "weightType", m->meta.weight_type ? m->meta.weight_type : "samples");
	key_i64(w, "length", s->len);
	pc_jw_obj_end(w);
}

static void write_markers(struct pc_jw *w, const struct pc_model *m, const struct pc_markers *mk)
{
	uint32_t i;

	pc_jw_key(w, "markers");
	pc_jw_obj_begin(w);
	col_u32(w, "name", mk->name, mk->len, 0, NULL);
	col_time(w, "startTime", mk->start, mk->len);
	col_time(w, "endTime", mk->end, mk->len);
	col_u8(w, "phase", mk->phase, mk->len);
	col_u16(w, "category", mk->category, mk->len, 0, NULL);
	pc_jw_key(w, "data");
	pc_jw_arr_begin(w);
	for (i = 0; i < mk->len; i++) {
		uint32_t d = mk->data[i];

		if (d == PC_NONE)
			pc_jw_null(w);
		else
			pc_jw_raw(w, m->strings.ptr[d], m->strings.lens[d]);
	}
	pc_jw_arr_end(w);
	key_i64(w, "length", mk->len);
	pc_jw_obj_end(w);
}

static void write_thread(struct pc_jw *w, const struct pc_model *m, const struct pc_thread *t)
{
	char pid[24];

	pc_jw_obj_begin(w);
	key_str_idx(w, m, "name", t->name);
	key_str_idx(w, m, "processName", t->process_name);
	key_str(w, "processType", t->process_type ? t->process_type : "default");
	pc_jw_key(w, "pid"); /* a string since processed v47 */
	pc_jw_str(w, pid, pc_fmt_i64(pid, t->pid));
	key_i64(w, "tid", t->tid);
	key_bool(w, "isMainThread", t->is_main);
	key_time(w, "processStartupTime", t->process_startup);
	key_time(w, "processShutdownTime", t->process_shutdown);
	key_time(w, "registerTime", t->register_time);
	key_time(w, "unregisterTime", t->unregister_time);
	if (t->paused_ranges) {
		pc_jw_key(w, "pausedRanges");
		pc_jw_raw(w, t->paused_ranges, strlen(t->paused_ranges));
	} else {
		col_empty(w, "pausedRanges");
	}
	write_samples(w, m, &t->samples);
	write_markers(w, m, &t->markers);
	pc_jw_obj_end(w);
}

static int write_processed(struct profconv_ctx *ctx, const struct pc_model *m,
			   profconv_write_fn *fn, void *user)
{
	struct pc_jw *w = pc_jw_new(ctx, fn, user);
	uint64_t replaced;
	uint32_t i;
	int err, werr;

	if (!w)
		return PROFCONV_ERR_NOMEM;
	pc_jw_obj_begin(w);
	write_meta(w, m);
	write_libs(w, m);
	err = write_shared(w, m);
	if (err) {
		pc_jw_free(w);
		return err;
	}
	pc_jw_key(w, "threads");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->nthreads; i++)
		write_thread(w, m, m->threads[i]);
	pc_jw_arr_end(w);
	pc_jw_obj_end(w);

	replaced = pc_jw_replaced(w);
	err = pc_jw_finish(w);
	werr = pc_warn_n(ctx, WARN_UTF8, replaced, NULL,
			 "%llu strings had invalid UTF-8, written with U+FFFD in its place",
			 (unsigned long long)replaced);
	return err ? err : werr;
}

const struct pc_writer pc_writer_processed = {
	.name = "processed",
	.summary = "Firefox Profiler processed profile JSON (format version 70)",
	.write = write_processed,
};
