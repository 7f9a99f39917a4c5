/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * write_processed.c - the model as a Firefox Profiler processed profile,
 * format version 69 by default (what profiler.firefox.com as deployed
 * reads) or 70 (option processed-version; PROFCONV_PROCESSED_FORMAT_VERSION
 * is the newest).  The two differ in one place: 69 keeps a frame's lib on
 * resourceTable.lib (frame -> func -> resource -> lib), 70 on frameTable.lib.
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
#include "writers/pc_pvemit.h"
#include "writers/pc_write_helper.h"

#include <stdlib.h>

#define CHUNK 1024 /* rows per derived-column chunk */
/* markers per data job (see write_markers()); fewer markers than MK_HELP
 * in all: no helper thread.  A test build may set them (-D) to tiny values. */
#ifndef PC_WRITE_MK_JOB
#define PC_WRITE_MK_JOB 2048
#endif
#ifndef PC_WRITE_MK_HELP
#define PC_WRITE_MK_HELP 8192
#endif
#define MK_JOB	PC_WRITE_MK_JOB
#define MK_HELP PC_WRITE_MK_HELP

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

/* Times in ns as ms; PC_NO_TIME as null. */
static void col_time(struct pc_jw *w, const char *key, const int64_t *v, uint32_t n)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	pc_jw_ns_ms_s(w, v, n, PC_NO_TIME, "null");
	pc_jw_arr_end(w);
}

/*
 * A marker's start (end: !start) time, or 0 where its phase has no use for
 * one (an Instant's or IntervalStart's end, an IntervalEnd's start): the
 * front-end reads only the times a phase needs (deriveMarkersFromRawMarkerTable,
 * _getTimeRangeForThread; its own typed-array storage writes 0 there too),
 * and a column of numbers alone is parsed into a double array, where a null
 * among them makes every number a heap object of its own.  A missing time
 * the phase needs stays null.
 */
static void marker_times(struct pc_jw *w, const struct pc_markers *mk, int start, uint32_t first,
			 uint32_t end)
{
	const int64_t *v = start ? mk->start : mk->end;
	int64_t tmp[1024];
	uint32_t i = first, k;

	while (i < end) {
		for (k = 0; k < PC_ARRAY_SIZE(tmp) && i < end; k++, i++) {
			uint8_t ph = mk->phase[i];
			int used = start ? ph != PC_PHASE_END
					 : ph == PC_PHASE_INTERVAL || ph == PC_PHASE_END;

			tmp[k] = used ? v[i] : 0;
		}
		pc_jw_ns_ms_s(w, tmp, k, PC_NO_TIME, "null");
	}
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

/*
 * The columns on the helper thread.  Without markers to format (perf
 * recordings) the second core had nothing to do while the writer formatted
 * the string, stack, frame and func tables, most of a system-wide
 * recording's output, and each thread's samples and markers columns.  The
 * columns are cut into jobs of COL_JOB elements (the markers' data into
 * jobs of MK_JOB markers) that the helper formats ahead of the writer
 * (pc_write_helper.h).  The job list, in the order of the output, is made
 * by a first pass of write_shared() and write_thread() into a writer that
 * discards its output, in which every column that jobs_col() takes is
 * recorded rather than written, so the second, real pass comes to the
 * same jobs in the same order.  Without jobs each column is written in
 * place in one piece.
 */
#define COL_JOB	 8192
#define COL_HELP 65536 /* column elements (or MK_HELP markers) below which no helper is started */
/* string bytes per stringArray job: a job's work is its bytes, and one
 * Chrome trace's first 8,192 strings are 1.3 MB (most of the table) */
#define STR_JOB_BYTES (64 * 1024)
/*
 * A column shorter than this (but the string table, cut by bytes) is
 * written in place (it is not worth a job's hand-over), and a thread of less work than THREAD_JOB (thread_work()) is
 * one whole element of a job of consecutive such threads (CK_THREADS): a
 * system-wide recording has hundreds of threads of a few hundred samples,
 * whose keys and small columns were written by the writer alone and whose
 * jobs, three or more a thread, each took a hand-over.
 */
#define COL_MIN	   512
#define THREAD_JOB (3 * COL_JOB)

enum col_kind {
	CK_U32,
	CK_U16,
	CK_U64,
	CK_BOOL,
	CK_STR,
	CK_PREFIX,
	CK_SUBCAT,
	CK_U8,
	CK_I64,
	CK_TIME,    /* ns as ms, PC_NO_TIME as null */
	CK_DELTA,   /* sample times as timeDeltas */
	CK_MKSTART, /* a marker column (v: the markers): col_marker_time() */
	CK_MKEND,
	CK_MKDATA, /* the markers' data: mk_run() */
	CK_THREADS, /* threads [first, end) whole, as elements of "threads" */
};

struct col_job {
	uint8_t kind;
	const void *v; /* the column (CK_STR, CK_PREFIX, CK_SUBCAT: the table) */
	uint32_t first, end;
	uint64_t none;
	const char *none_json;
};

struct mk_jobs {
	const struct pc_model *m;
	uint32_t at; /* the next job the writer comes to */
	struct pc_wh *helper;
	struct col_job *col; /* the jobs, in the order of the output */
	uint32_t ncol, col_cap;
	uint64_t elems, markers; /* recorded: column elements, markers' data */
	int planning;		 /* jobs_col() records */
	int nomem;		 /* recording ran out of memory: no jobs */
	int prefixes_ok;	 /* the planning pass checked the stack table's prefixes */
};

static void mk_run(struct pc_jw *w, const struct pc_model *m, const struct pc_markers *mk,
		   uint32_t first, uint32_t end);
static void write_thread(struct pc_jw *w, const struct pc_model *m, const struct pc_thread *t,
			 struct mk_jobs *jobs);
static void marker_times(struct pc_jw *w, const struct pc_markers *mk, int start, uint32_t first,
			 uint32_t end);

static void col_job_run(struct pc_jw *w, const struct pc_model *m, const struct col_job *c)
{
	uint32_t n = c->end - c->first, i;

	switch (c->kind) {
	case CK_U32:
		pc_jw_u32s(w, (const uint32_t *)c->v + c->first, n, (uint32_t)c->none, c->none_json);
		break;
	case CK_U16:
		pc_jw_u16s(w, (const uint16_t *)c->v + c->first, n, (uint16_t)c->none, c->none_json);
		break;
	case CK_U64:
		pc_jw_u64s(w, (const uint64_t *)c->v + c->first, n, c->none, c->none_json);
		break;
	case CK_BOOL:
		pc_jw_bools(w, (const uint8_t *)c->v + c->first, n);
		break;
	case CK_STR:
		for (i = c->first; i < c->end; i++)
			pc_jw_str(w, m->strings.ptr[i], m->strings.lens[i]);
		break;
	case CK_PREFIX: { /* prefixOffset: checked by write_stack_table() */
		const struct pc_stack_table *st = c->v;
		uint32_t chunk[CHUNK], k, r;

		for (i = c->first; i < c->end; i += r) {
			r = c->end - i < CHUNK ? c->end - i : CHUNK;
			for (k = 0; k < r; k++) {
				uint32_t row = i + k, pre = st->prefix[row];

				chunk[k] = pre == PC_NONE ? 0 : row - pre;
			}
			pc_jw_u32s(w, chunk, r, 0, NULL);
		}
		break;
	}
	case CK_SUBCAT: { /* subcategory is null exactly where category is null */
		const struct pc_frame_table *ft = c->v;
		uint32_t chunk[CHUNK], k, r;

		for (i = c->first; i < c->end; i += r) {
			r = c->end - i < CHUNK ? c->end - i : CHUNK;
			for (k = 0; k < r; k++) {
				uint32_t row = i + k;

				chunk[k] = ft->category[row] == PC_NO_CATEGORY ? PC_NONE :
										 ft->subcategory[row];
			}
			pc_jw_u32s(w, chunk, r, PC_NONE, "null");
		}
		break;
	}
	case CK_U8:
		pc_jw_u8s(w, (const uint8_t *)c->v + c->first, n);
		break;
	case CK_I64:
		pc_jw_i64s(w, (const int64_t *)c->v + c->first, n);
		break;
	case CK_TIME:
		pc_jw_ns_ms_s(w, (const int64_t *)c->v + c->first, n, PC_NO_TIME, "null");
		break;
	case CK_DELTA: {
		const int64_t *t = c->v;

		pc_jw_ns_ms_deltas_from(w, t + c->first, n, c->first ? t[c->first - 1] : 0);
		break;
	}
	case CK_MKSTART:
	case CK_MKEND:
		marker_times(w, c->v, c->kind == CK_MKSTART, c->first, c->end);
		break;
	case CK_MKDATA:
		mk_run(w, m, c->v, c->first, c->end);
		break;
	case CK_THREADS: {
		struct mk_jobs none; /* no jobs: each thread written in place */

		memset(&none, 0, sizeof(none));
		none.m = m;
		for (i = c->first; i < c->end; i++)
			write_thread(w, m, m->threads[i], &none);
		break;
	}
	default:
		break;
	}
}

static void any_job_fn(struct pc_jw *w, uint32_t job, void *user)
{
	const struct mk_jobs *j = user;

	col_job_run(w, j->m, &j->col[job]);
}

/*
 * n elements of a column into the array open in w: recorded as jobs in the
 * planning pass, handed over (or formatted by the writer, as pc_wh_put()
 * does) in the real one, written in place when there are no jobs.
 */
/* Where the job of a column that starts at element i ends. */
static uint32_t job_end(const struct pc_model *m, uint8_t kind, uint32_t i, uint32_t n)
{
	uint32_t step = kind == CK_MKDATA ? MK_JOB : COL_JOB, end = n - i < step ? n : i + step;

	if (kind == CK_STR) { /* cut by bytes too */
		size_t bytes = 0;
		uint32_t k;

		for (k = i; k < end && bytes < STR_JOB_BYTES; k++)
			bytes += m->strings.lens[k];
		end = k;
	}
	return end;
}

/* Record job c (planning pass); weight: what it counts towards the helper's start. */
static void job_record(struct mk_jobs *j, const struct col_job *c, uint64_t weight)
{
	if (j->ncol == j->col_cap && !j->nomem) {
		uint32_t cap = j->col_cap ? 2 * j->col_cap : 64;
		struct col_job *p = realloc(j->col, cap * sizeof(*p));

		if (!p)
			j->nomem = 1;
		else
			j->col = p, j->col_cap = cap;
	}
	if (j->nomem)
		return;
	j->col[j->ncol++] = *c;
	if (c->kind == CK_MKDATA)
		j->markers += weight;
	else
		j->elems += weight;
}

static void jobs_col(struct pc_jw *w, struct mk_jobs *j, uint8_t kind, const void *v, uint32_t n,
		     uint64_t none, const char *none_json)
{
	uint32_t i;

	if (!j || (!j->planning && !j->ncol) || (n < COL_MIN && kind != CK_STR)) {
		/* in place, in one piece: "threads" "no" does not depend on the
		 * cuts (the planning pass writes nothing: its output is discarded) */
		struct col_job whole = { kind, v, 0, n, none, none_json };

		if (n && !(j && j->planning))
			col_job_run(w, j ? j->m : NULL, &whole);
		return;
	}
	if (j->planning) {
		for (i = 0; i < n;) {
			struct col_job c = { kind, v, i, job_end(j->m, kind, i, n), none, none_json };

			job_record(j, &c, c.end - c.first);
			i = c.end;
		}
		return;
	}
	/* the jobs recorded for this column, as the planning pass cut it */
	for (i = 0; i < n && j->at < j->ncol;) {
		i = j->col[j->at].end;
		pc_wh_put(j->helper, w, j->at++, any_job_fn, j);
	}
}

/* A whole column through jobs_col(). */
static void col_jobs(struct pc_jw *w, struct mk_jobs *j, const char *key, uint8_t kind,
		     const void *v, uint32_t n, uint64_t none, const char *none_json)
{
	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	jobs_col(w, j, kind, v, n, none, none_json);
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

/*
 * meta.extra: ExtraProfileInfoSection[] = [{label, entries: [{label, format,
 * value}]}] (src/types/profile.ts); format is a marker field format.  The
 * model's entries are grouped by section in order of first appearance.
 */
static void write_extra_entries(struct pc_jw *w, const struct pc_model *m)
{
	const struct pc_meta *mt = &m->meta;
	uint32_t i, j, k;

	pc_jw_key(w, "extra");
	pc_jw_arr_begin(w);
	for (i = 0; i < mt->nextra; i++) {
		for (k = 0; k < i; k++) /* a section already written? */
			if (strcmp(mt->extra[k].section, mt->extra[i].section) == 0)
				break;
		if (k < i)
			continue;
		pc_jw_obj_begin(w);
		key_str(w, "label", mt->extra[i].section);
		pc_jw_key(w, "entries");
		pc_jw_arr_begin(w);
		for (j = i; j < mt->nextra; j++) {
			const struct pc_extra_entry *e = &mt->extra[j];

			if (strcmp(e->section, mt->extra[i].section) != 0)
				continue;
			pc_jw_obj_begin(w);
			key_str(w, "label", e->label);
			key_str(w, "format", e->format);
			pc_jw_key(w, "value");
			pc_pv_emit(w, m, e->value, NULL);
			pc_jw_obj_end(w);
		}
		pc_jw_arr_end(w);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

/* Members of meta.more that the writer writes itself are not repeated. */
static int meta_written(const char *key, void *user)
{
	static const char *const own[] = {
		"version",	  "preprocessedProfileVersion", "interval",	"startTime",
		"processType",	  "product",		       "stackwalk",	"symbolicated",
		"markerSchema",	  "categories",		       "importedFrom", "profilingStartTime",
		"profilingEndTime", "oscpu",		       "platform",	"abi",
		"CPUName",	  "logicalCPUs",	       "physicalCPUs", "mainMemory",
		"sampleUnits",	  "extra",
	};
	size_t i;

	(void)user;
	for (i = 0; i < PC_ARRAY_SIZE(own); i++)
		if (strcmp(key, own[i]) == 0)
			return 1;
	return 0;
}

static void write_sample_units(struct pc_jw *w, const struct pc_meta *mt)
{
	if (!mt->unit_time && !mt->unit_event_delay && !mt->unit_cpu_delta)
		return;
	pc_jw_key(w, "sampleUnits");
	pc_jw_obj_begin(w);
	key_str(w, "time", mt->unit_time ? mt->unit_time : "ms");
	key_str(w, "eventDelay", mt->unit_event_delay ? mt->unit_event_delay : "ms");
	if (mt->unit_cpu_delta)
		key_str(w, "threadCPUDelta", mt->unit_cpu_delta);
	pc_jw_obj_end(w);
}

static void write_meta(struct pc_jw *w, const struct pc_model *m, int version)
{
	const struct pc_meta *mt = &m->meta;
	uint32_t i;

	pc_jw_key(w, "meta");
	pc_jw_obj_begin(w);
	key_i64(w, "version", PROFCONV_GECKO_FORMAT_VERSION);
	key_i64(w, "preprocessedProfileVersion", version);
	key_time(w, "interval", mt->interval_ns);
	/* Epoch ns of time 0 printed as ms, exact (startTime is ms since the epoch). */
	key_time(w, "startTime", mt->has_start_time ? mt->start_time_ns : 0);
	key_i64(w, "processType", 0);
	key_str(w, "product", mt->product ? mt->product : "profconv");
	key_i64(w, "stackwalk", 1);
	key_bool(w, "symbolicated", mt->symbolicated);

	pc_jw_key(w, "markerSchema");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->schemas.len; i++)
		pc_pv_emit(w, m, m->schemas.rows[i].body, NULL);
	pc_jw_arr_end(w);

	write_categories(w, m);
	if (mt->imported_from)
		key_str(w, "importedFrom", mt->imported_from);
	if (mt->profiling_start != PC_NO_TIME)
		key_time(w, "profilingStartTime", mt->profiling_start);
	if (mt->profiling_end != PC_NO_TIME)
		key_time(w, "profilingEndTime", mt->profiling_end);
	/* the platform facts as the input gave them (a Windows Firefox profile
	 * stays Windows) */
	if (mt->oscpu)
		key_str(w, "oscpu", mt->oscpu);
	if (mt->platform)
		key_str(w, "platform", mt->platform);
	if (mt->abi)
		key_str(w, "abi", mt->abi);
	if (mt->cpu_name)
		key_str(w, "CPUName", mt->cpu_name);
	if (mt->logical_cpus)
		key_i64(w, "logicalCPUs", mt->logical_cpus);
	if (mt->physical_cpus)
		key_i64(w, "physicalCPUs", mt->physical_cpus);
	if (mt->main_memory) {
		pc_jw_key(w, "mainMemory");
		pc_jw_u64(w, mt->main_memory);
	}
	write_sample_units(w, mt);
	if (mt->nextra)
		write_extra_entries(w, m);
	pc_pv_emit_members(w, m, mt->more, NULL, meta_written, NULL);
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
static int write_stack_table(struct pc_jw *w, const struct pc_model *m, struct mk_jobs *j)
{
	const struct pc_stack_table *st = &m->stacks;
	uint32_t row;

	for (row = 0; !(j && !j->planning && j->prefixes_ok) && row < st->len; row++)
		if (st->prefix[row] != PC_NONE && st->prefix[row] >= row)
			return pc_fail(m->ctx, PROFCONV_ERR_INTERNAL, NULL,
				       "stack %u: prefix %u is not before it", row, st->prefix[row]);
	if (j && j->planning)
		j->prefixes_ok = 1; /* the real pass need not look again */
	pc_jw_key(w, "stackTable");
	pc_jw_obj_begin(w);
	col_jobs(w, j, "frame", CK_U32, st->frame, st->len, 0, NULL);
	col_jobs(w, j, "prefixOffset", CK_PREFIX, st, st->len, 0, NULL);
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

static void write_frame_table(struct pc_jw *w, const struct pc_model *m, int version,
			      struct mk_jobs *j)
{
	const struct pc_frame_table *ft = &m->frames;
	int planning = j && j->planning; /* only the jobs matter */

	pc_jw_key(w, "frameTable");
	pc_jw_obj_begin(w);
	col_jobs(w, j, "address", CK_U64, ft->address, ft->len, PC_NO_ADDRESS, "-1");
	if (version >= 70)
		col_jobs(w, j, "lib", CK_U32, ft->lib, ft->len, PC_NONE, "-1");
	col_jobs(w, j, "inlineDepth", CK_U16, ft->inline_depth, ft->len, 0, NULL);
	col_jobs(w, j, "category", CK_U16, ft->category, ft->len, PC_NO_CATEGORY, "null");
	col_jobs(w, j, "subcategory", CK_SUBCAT, ft, ft->len, 0, NULL);
	col_jobs(w, j, "func", CK_U32, ft->func, ft->len, 0, NULL);
	col_jobs(w, j, "nativeSymbol", CK_U32, ft->native_symbol, ft->len, PC_NONE, "null");
	if (!planning)
		col_inner_window_id(w, ft);
	col_jobs(w, j, "line", CK_U32, ft->line, ft->len, 0, "null");
	col_jobs(w, j, "column", CK_U32, ft->column, ft->len, 0, "null");
	if (!planning)
		col_repeat(w, "originalLocation", "null", ft->len);
	key_i64(w, "length", ft->len);
	pc_jw_obj_end(w);
}

static void write_func_table(struct pc_jw *w, const struct pc_model *m, struct mk_jobs *j)
{
	const struct pc_func_table *ft = &m->funcs;

	pc_jw_key(w, "funcTable");
	pc_jw_obj_begin(w);
	col_jobs(w, j, "name", CK_U32, ft->name, ft->len, 0, NULL);
	col_jobs(w, j, "isJS", CK_BOOL, ft->is_js, ft->len, 0, NULL);
	col_jobs(w, j, "relevantForJS", CK_BOOL, ft->relevant_for_js, ft->len, 0, NULL);
	col_jobs(w, j, "resource", CK_U32, ft->resource, ft->len, PC_NONE, "-1");
	col_jobs(w, j, "source", CK_U32, ft->source, ft->len, PC_NONE, "null");
	col_jobs(w, j, "lineNumber", CK_U32, ft->line, ft->len, 0, "null");
	col_jobs(w, j, "columnNumber", CK_U32, ft->column, ft->len, 0, "null");
	if (!(j && j->planning))
		col_repeat(w, "originalLocation", "null", ft->len);
	key_i64(w, "length", ft->len);
	pc_jw_obj_end(w);
}

/*
 * Version 69 keeps a frame's lib on its func's resource (frame -> func ->
 * resource -> lib; the v70 upgrader derives frameTable.lib that way).  The
 * model's resources.lib is set by the readers that make Library resources;
 * where it is not, the lib of the first frame that uses the resource
 * stands in.  NULL on OOM.
 */
static uint32_t *resource_libs(const struct pc_model *m)
{
	const struct pc_resource_table *rt = &m->resources;
	uint32_t *lib = pc_alloc(m->ctx, ((size_t)rt->len + 1) * sizeof(*lib)), i;

	if (!lib)
		return NULL;
	for (i = 0; i < rt->len; i++)
		lib[i] = rt->lib[i];
	for (i = 0; i < m->frames.len; i++) {
		uint32_t f = m->frames.func[i], r = f < m->funcs.len ? m->funcs.resource[f] : PC_NONE;

		if (r < rt->len && lib[r] == PC_NONE && m->frames.lib[i] != PC_NONE)
			lib[r] = m->frames.lib[i];
	}
	return lib;
}

static int write_resource_table(struct pc_jw *w, const struct pc_model *m, int version)
{
	const struct pc_resource_table *rt = &m->resources;

	pc_jw_key(w, "resourceTable");
	pc_jw_obj_begin(w);
	if (version < 70) {
		uint32_t *lib = resource_libs(m);

		if (!lib)
			return PROFCONV_ERR_NOMEM;
		col_u32(w, "lib", lib, rt->len, PC_NONE, "null");
		pc_free(m->ctx, lib);
	}
	col_u32(w, "name", rt->name, rt->len, 0, NULL);
	col_u32(w, "host", rt->host, rt->len, PC_NONE, "null");
	col_u8(w, "type", rt->type, rt->len);
	key_i64(w, "length", rt->len);
	pc_jw_obj_end(w);
	return 0;
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

static int write_shared(struct pc_jw *w, const struct pc_model *m, int version,
			struct mk_jobs *j)
{
	int err;

	pc_jw_key(w, "shared");
	pc_jw_obj_begin(w);
	col_jobs(w, j, "stringArray", CK_STR, NULL, m->strings.len, 0, NULL);
	err = write_stack_table(w, m, j);
	if (err)
		return err;
	write_frame_table(w, m, version, j);
	write_func_table(w, m, j);
	if (!(j && j->planning)) { /* no jobs there */
		err = write_resource_table(w, m, version);
		if (err)
			return err;
		write_native_symbols(w, m);
		write_sources(w, m);
	}
	pc_jw_obj_end(w);
	return 0;
}

/* Optional int64 column; none as null. */
static void col_i64_none(struct pc_jw *w, const char *key, const int64_t *v, uint32_t n,
			 int64_t none)
{
	uint32_t i;

	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		if (v[i] == none)
			pc_jw_null(w);
		else
			pc_jw_i64(w, v[i]);
	}
	pc_jw_arr_end(w);
}

/*
 * Sample times as "timeDeltas" (each the time since the sample before; the
 * front-end sums them: computeTimeColumnForRawSamplesTable), shorter than
 * the times themselves; as "time" if a difference would overflow, and for
 * no sample (the front-end's adjustTableTimeDeltas() adds to timeDeltas[0]
 * whether or not it exists).
 */
static void col_sample_times(struct pc_jw *w, struct mk_jobs *j, const int64_t *v, uint32_t n)
{
	int64_t prev = 0, d;
	uint32_t i;

	if (!n) {
		col_jobs(w, j, "time", CK_TIME, v, n, 0, NULL);
		return;
	}
	if (j && !j->planning && j->at < j->ncol && n >= COL_MIN) {
		/* the planning pass chose: its job here says which */
		uint8_t kind = j->col[j->at].kind;

		col_jobs(w, j, kind == CK_DELTA ? "timeDeltas" : "time", kind, v, n, 0, NULL);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i] == PC_NO_TIME || __builtin_sub_overflow(v[i], prev, &d) ||
		    d == PC_NO_TIME) {
			col_jobs(w, j, "time", CK_TIME, v, n, 0, NULL);
			return;
		}
		prev = v[i];
	}
	col_jobs(w, j, "timeDeltas", CK_DELTA, v, n, 0, NULL);
}

static void write_samples(struct pc_jw *w, const struct pc_samples *s, struct mk_jobs *j)
{
	const char *wt = s->weight_type ? s->weight_type : "samples";

	pc_jw_key(w, "samples");
	pc_jw_obj_begin(w);
	col_jobs(w, j, "stack", CK_U32, s->stack, s->len, PC_NONE, "null");
	col_sample_times(w, j, s->time, s->len);
	if (strcmp(wt, "tracing-ms") == 0 && s->len) {
		/* durations: ns in the model, ms in the format (a missing
		 * column is 1 ns a sample, which null would make 1 ms) */
		if (s->weight)
			col_jobs(w, j, "weight", CK_TIME, s->weight, s->len, 0, NULL);
		else
			col_repeat(w, "weight", "0.000001", s->len);
	} else if (s->weight) {
		col_jobs(w, j, "weight", CK_I64, s->weight, s->len, 0, NULL);
	} else {
		pc_jw_key(w, "weight");
		pc_jw_null(w);
	}
	if (s->cpu_delta)
		col_i64_none(w, "threadCPUDelta", s->cpu_delta, s->len, INT64_MIN);
	if (s->event_delay)
		col_jobs(w, j, "eventDelay", CK_TIME, s->event_delay, s->len, 0, NULL);
	key_str(w, "weightType", wt);
	key_i64(w, "length", s->len);
	pc_jw_obj_end(w);
}

/* The cause of the marker being written: {tid?, time?, stack}. */
struct cause_ctx {
	const struct pc_markers *mk;
	uint32_t row;
};

static void write_cause(struct pc_jw *w, const struct pc_model *m, void *user)
{
	const struct cause_ctx *c = user;
	const struct pc_markers *mk = c->mk;

	(void)m;
	if (!mk->cause_stack || mk->cause_stack[c->row] == PC_NONE) {
		pc_jw_null(w);
		return;
	}
	pc_jw_obj_begin(w);
	if (mk->cause_tid[c->row] != PC_NO_TID)
		key_i64(w, "tid", mk->cause_tid[c->row]);
	if (mk->cause_time[c->row] != PC_NO_TIME)
		key_time(w, "time", mk->cause_time[c->row]);
	key_i64(w, "stack", mk->cause_stack[c->row]);
	pc_jw_obj_end(w);
}

/* Does the payload have a cause placeholder among its members? */
static int has_cause_node(const struct pc_model *m, uint32_t obj)
{
	const struct pc_val *o = pc_pv(m, obj);
	uint32_t i, c;

	if (o->kind != PC_VAL_OBJ)
		return 0;
	for (i = 0, c = obj + 1; i < o->v.n; i++, c += pc_val_span(pc_pv(m, c)))
		if (pc_pv(m, c)->kind == PC_VAL_CAUSE)
			return 1;
	return 0;
}

/*
 * A marker's data: its payload, with the cause written where its
 * placeholder is (or as the last member when the payload has none); a
 * marker with a cause and no payload gets {"cause": ...}.
 */
static void write_marker_data(struct pc_jw *w, const struct pc_model *m,
			      const struct pc_markers *mk, uint32_t i)
{
	struct cause_ctx cc = { mk, i };
	struct pc_pvemit e = { NULL, write_cause, &cc };
	uint32_t p = mk->payload[i];
	int cause = mk->cause_stack && mk->cause_stack[i] != PC_NONE;

	if (p == PC_NONE && !cause) {
		pc_jw_null(w);
		return;
	}
	if (!cause || (p != PC_NONE && has_cause_node(m, p))) {
		pc_pv_emit(w, m, p, &e);
		return;
	}
	pc_jw_obj_begin(w);
	if (p != PC_NONE)
		pc_pv_emit_members(w, m, p, &e, NULL, NULL);
	pc_jw_key(w, "cause");
	write_cause(w, m, &cc);
	pc_jw_obj_end(w);
}

/*
 * The markers' data arrays are most of a Chrome trace's output, so they are
 * cut into jobs of MK_JOB markers (CK_MKDATA, among the column jobs) that
 * the helper thread (pc_write_helper.h) formats ahead of the writer.
 * A job writes a payload that it wrote before again from its text
 * (pc_pvmemo, pc_pvemit.h).
 */

/*
 * Prefetching: a marker's payload nodes, the text rows of its strings and
 * their bytes are rarely in the cache (the payloads were built in input
 * order, the markers are sorted by time).  They are fetched in three steps
 * ahead of the marker being written: its nodes PF_NODES markers ahead, the
 * rows of its strings PF_ROWS ahead (the nodes are there by then), their
 * bytes PF_TEXT ahead.  A hint only: the output does not depend on it.
 */
#define PF_NODES 24
#define PF_ROWS	 12
#define PF_TEXT	 4
#define PF_SPAN	 8 /* nodes of a payload looked at */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

static inline void pf_nodes(const struct pc_model *m, uint32_t p)
{
	if (p != PC_NONE) {
		PREFETCH(&m->pv.nodes[p]);
		PREFETCH((const char *)&m->pv.nodes[p] + 64);
	}
}

/* step 2 (rows 1) or 3 (rows 0) for the strings among a payload's first nodes */
static inline void pf_text(const struct pc_model *m, uint32_t p, int rows)
{
	uint32_t k, n;

	if (p == PC_NONE)
		return;
	n = pc_val_span(&m->pv.nodes[p]);
	if (n > PF_SPAN)
		n = PF_SPAN;
	for (k = 0; k < n; k++) {
		const struct pc_val *v = &m->pv.nodes[p + k];

		if (v->kind != PC_VAL_STR && v->kind != PC_VAL_NUM)
			continue;
		if (rows) {
			PREFETCH(&m->pv.text.ptr[v->v.s]);
			PREFETCH(&m->pv.text.lens[v->v.s]);
		} else {
			PREFETCH(m->pv.text.ptr[v->v.s]);
		}
	}
}

static void mk_run(struct pc_jw *w, const struct pc_model *m, const struct pc_markers *mk,
		   uint32_t first, uint32_t end)
{
	struct pc_pvmemo *memo = pc_pvmemo_new();
	uint32_t i;

	for (i = first; i < end; i++) {
		uint32_t p = mk->payload[i];
		uint64_t from, replaced;

		if (i + PF_NODES < mk->len)
			pf_nodes(m, mk->payload[i + PF_NODES]);
		if (i + PF_ROWS < mk->len)
			pf_text(m, mk->payload[i + PF_ROWS], 1);
		if (i + PF_TEXT < mk->len)
			pf_text(m, mk->payload[i + PF_TEXT], 0);

		if (p == PC_NONE || (mk->cause_stack && mk->cause_stack[i] != PC_NONE)) {
			write_marker_data(w, m, mk, i); /* null, or a cause of its own */
			continue;
		}
		if (pc_pvmemo_again(memo, w, p))
			continue;
		from = pc_jw_tell(w);
		replaced = pc_jw_replaced(w);
		write_marker_data(w, m, mk, i);
		pc_pvmemo_keep(memo, w, p, from, replaced);
	}
	pc_pvmemo_free(memo);
}

static void write_markers(struct pc_jw *w, const struct pc_model *m, const struct pc_markers *mk,
			  struct mk_jobs *jobs)
{
	(void)m;
	pc_jw_key(w, "markers");
	pc_jw_obj_begin(w);
	col_jobs(w, jobs, "name", CK_U32, mk->name, mk->len, 0, NULL);
	col_jobs(w, jobs, "startTime", CK_MKSTART, mk, mk->len, 0, NULL);
	col_jobs(w, jobs, "endTime", CK_MKEND, mk, mk->len, 0, NULL);
	col_jobs(w, jobs, "phase", CK_U8, mk->phase, mk->len, 0, NULL);
	col_jobs(w, jobs, "category", CK_U16, mk->category, mk->len, 0, NULL);
	col_jobs(w, jobs, "data", CK_MKDATA, mk, mk->len, 0, NULL);
	key_i64(w, "length", mk->len);
	pc_jw_obj_end(w);
}

static void write_paused(struct pc_jw *w, const struct pc_thread *t)
{
	uint32_t i;

	pc_jw_key(w, "pausedRanges");
	pc_jw_arr_begin(w);
	for (i = 0; i < t->npaused; i++) {
		pc_jw_obj_begin(w);
		key_time(w, "startTime", t->paused[i].start);
		key_time(w, "endTime", t->paused[i].end);
		pc_jw_key(w, "reason");
		pc_jw_str_z(w, t->paused[i].reason);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

/* Thread members the writer writes itself (not repeated from t->more). */
static int thread_written(const char *key, void *user)
{
	static const char *const own[] = {
		"name",		   "processName",	  "processType",   "pid",
		"tid",		   "isMainThread",	  "processStartupTime", "processShutdownTime",
		"registerTime",	   "unregisterTime",	  "pausedRanges",  "samples",
		"markers",
	};
	size_t i;

	(void)user;
	for (i = 0; i < PC_ARRAY_SIZE(own); i++)
		if (strcmp(key, own[i]) == 0)
			return 1;
	return 0;
}

static void write_thread(struct pc_jw *w, const struct pc_model *m, const struct pc_thread *t,
			 struct mk_jobs *jobs)
{
	const struct pc_process *pr =
		t->process < m->processes.len ? &m->processes.rows[t->process] : NULL;
	int64_t startup = pr && pr->start != PC_NO_TIME ? pr->start : 0;
	int64_t shutdown = pr ? pr->end : PC_NO_TIME;
	char pid[24];

	pc_jw_obj_begin(w);
	key_str_idx(w, m, "name", t->name);
	key_str(w, "processName", pr && pr->name ? pr->name : "");
	key_str(w, "processType", pr && pr->type ? pr->type : "default");
	pc_jw_key(w, "pid"); /* a string since processed v47 */
	pc_jw_str(w, pid, pc_fmt_i64(pid, t->pid));
	key_i64(w, "tid", t->tid);
	key_bool(w, "isMainThread", t->is_main);
	key_time(w, "processStartupTime", startup);
	key_time(w, "processShutdownTime", shutdown);
	key_time(w, "registerTime", t->register_time);
	key_time(w, "unregisterTime", t->unregister_time);
	write_paused(w, t);
	pc_pv_emit_members(w, m, t->more, NULL, thread_written, NULL);
	write_samples(w, &t->samples, jobs);
	write_markers(w, m, &t->markers, jobs);
	pc_jw_obj_end(w);
}

/*
 * A counter's `display` (required since processed v62/63) when the input
 * gave none: the defaults the front-end derives for a Gecko counter from
 * its category and name (deriveCounterDisplay() in
 * src/profile-logic/process-profile.ts).  The tooltip rows are constant
 * JSON except in the generic case, whose one row is labelled by name.
 */
struct counter_display {
	const char *category, *name; /* name NULL: any */
	const char *graph_type, *unit, *color, *schema_location;
	int sort_weight;
	const char *label; /* NULL: the counter's name */
	const char *tooltip_rows;
};

static const struct counter_display counter_displays[] = {
	{ "Bandwidth", NULL, "line-rate", "bytes", "blue", NULL, 10, "Bandwidth",
	  "[{\"type\":\"value\",\"source\":\"rate\",\"format\":{\"unit\":\"bytes-per-second\",\"co2\":\"per-byte\"},\"label\":\"Transfer speed for this sample\",\"labelKey\":\"bandwidth-speed\"},"
	  "{\"type\":\"value\",\"source\":\"sample-number\",\"format\":{\"unit\":\"number\"},\"label\":\"read/write operations since the previous sample\",\"labelKey\":\"bandwidth-operations\"},"
	  "{\"type\":\"separator\"},"
	  "{\"type\":\"value\",\"source\":\"accumulated\",\"format\":{\"unit\":\"bytes\",\"co2\":\"per-byte\"},\"label\":\"Data transferred up to this time\",\"labelKey\":\"bandwidth-cumulative\"},"
	  "{\"type\":\"value\",\"source\":\"count-range\",\"format\":{\"unit\":\"bytes\",\"co2\":\"per-byte\"},\"label\":\"Data transferred in the visible range\",\"labelKey\":\"bandwidth-total-graph\"},"
	  "{\"type\":\"value\",\"source\":\"selection-total\",\"format\":{\"unit\":\"bytes\",\"co2\":\"per-byte\"},\"label\":\"Data transferred in the current selection\",\"labelKey\":\"bandwidth-total-selection\",\"requiresPreviewSelection\":true}]" },
	{ "Memory", NULL, "line-accumulated", "bytes", "orange", "timeline-memory", 20, "Memory",
	  "[{\"type\":\"value\",\"source\":\"accumulated\",\"format\":{\"unit\":\"bytes\"},\"label\":\"relative memory at this time\",\"labelKey\":\"memory-relative\"},"
	  "{\"type\":\"value\",\"source\":\"count-range\",\"format\":{\"unit\":\"bytes\"},\"label\":\"memory range in graph\",\"labelKey\":\"memory-range\"},"
	  "{\"type\":\"value\",\"source\":\"sample-number\",\"format\":{\"unit\":\"number\"},\"label\":\"allocations and deallocations since the previous sample\",\"labelKey\":\"memory-operations\"}]" },
	{ "power", NULL, "line-rate", "pWh", "grey", NULL, 30, NULL,
	  "[{\"type\":\"value\",\"source\":\"count\",\"format\":{\"unit\":\"number\",\"co2\":\"per-watthour\",\"scale\":\"power\"},\"label\":\"Power\",\"labelKey\":\"power\"},"
	  "{\"type\":\"value\",\"source\":\"selection-total\",\"format\":{\"unit\":\"number\",\"co2\":\"per-watthour\",\"scale\":\"energy\"},\"label\":\"Energy used in the current selection\",\"labelKey\":\"power-energy-preview\",\"requiresPreviewSelection\":true},"
	  "{\"type\":\"value\",\"source\":\"selection-rate\",\"format\":{\"unit\":\"number\",\"co2\":\"per-watthour\",\"scale\":\"power\"},\"label\":\"Average power in the current selection\",\"labelKey\":\"power-average-preview\",\"requiresPreviewSelection\":true},"
	  "{\"type\":\"value\",\"source\":\"committed-range-total\",\"format\":{\"unit\":\"number\",\"co2\":\"per-watthour\",\"scale\":\"energy\"},\"label\":\"Energy used in the visible range\",\"labelKey\":\"power-energy-range\"}]" },
	{ "CPU", "processCPU", "line-rate", "percent", "grey", NULL, 40, "Process CPU",
	  "[{\"type\":\"value\",\"source\":\"cpu-ratio\",\"format\":{\"unit\":\"percent\"},\"label\":\"CPU\",\"labelKey\":\"cpu\"}]" },
};

static void write_counter_display(struct pc_jw *w, const struct pc_model *m,
				  const struct pc_counter *c)
{
	const struct counter_display *d = NULL;
	size_t i;

	pc_jw_key(w, "display");
	if (c->display != PC_NONE) {
		pc_pv_emit(w, m, c->display, NULL);
		return;
	}
	for (i = 0; i < PC_ARRAY_SIZE(counter_displays) && !d; i++)
		if (strcmp(counter_displays[i].category, c->category) == 0 &&
		    (!counter_displays[i].name || strcmp(counter_displays[i].name, c->name) == 0))
			d = &counter_displays[i];
	pc_jw_obj_begin(w);
	key_str(w, "graphType", d ? d->graph_type : "line-rate");
	key_str(w, "unit", d ? d->unit : "");
	key_str(w, "color", d ? d->color : "grey");
	pc_jw_key(w, "markerSchemaLocation");
	pc_jw_str_z(w, d ? d->schema_location : NULL);
	key_i64(w, "sortWeight", d ? d->sort_weight : 50);
	key_str(w, "label", d && d->label ? d->label : c->name);
	pc_jw_key(w, "tooltipRows");
	if (d) {
		pc_jw_raw(w, d->tooltip_rows, strlen(d->tooltip_rows));
	} else {
		pc_jw_arr_begin(w);
		pc_jw_obj_begin(w);
		key_str(w, "type", "value");
		key_str(w, "source", "count");
		pc_jw_key(w, "format");
		pc_jw_obj_begin(w);
		key_str(w, "unit", "number");
		pc_jw_obj_end(w);
		key_str(w, "label", c->name);
		pc_jw_obj_end(w);
		pc_jw_arr_end(w);
	}
	pc_jw_obj_end(w);
}

/* The thread a counter is drawn with: its own, its process's main thread,
 * else the first thread of its process, else thread 0. */
static uint32_t counter_thread(const struct pc_model *m, const struct pc_counter *c)
{
	uint32_t i;

	if (c->main_thread != PC_NONE && c->main_thread < m->nthreads)
		return c->main_thread;
	if (c->process != PC_NONE && c->process < m->processes.len) {
		if (m->processes.rows[c->process].main_thread != PC_NONE)
			return m->processes.rows[c->process].main_thread;
		for (i = 0; i < m->nthreads; i++)
			if (m->threads[i]->process == c->process)
				return i;
	}
	return 0;
}

static void col_double(struct pc_jw *w, const char *key, const double *v, uint32_t n)
{
	uint32_t i;

	pc_jw_key(w, key);
	pc_jw_arr_begin(w);
	for (i = 0; i < n; i++)
		pc_jw_double(w, v[i]);
	pc_jw_arr_end(w);
}

/* RawCounter[] (src/types/profile.ts). */
static void write_counters(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i;

	if (!m->counters.len || !m->nthreads)
		return;
	pc_jw_key(w, "counters");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->counters.len; i++) {
		const struct pc_counter *c = &m->counters.rows[i];
		uint32_t th = counter_thread(m, c);
		char pid[24];

		pc_jw_obj_begin(w);
		key_str(w, "name", c->name);
		key_str(w, "category", c->category);
		key_str(w, "description", c->description);
		pc_jw_key(w, "pid");
		pc_jw_str(w, pid, pc_fmt_i64(pid, m->threads[th]->pid));
		key_i64(w, "mainThreadIndex", th);
		write_counter_display(w, m, c);
		pc_jw_key(w, "samples");
		pc_jw_obj_begin(w);
		col_time(w, "time", c->time, c->len);
		if (c->number)
			col_double(w, "number", c->number, c->len);
		col_double(w, "count", c->count, c->len);
		key_i64(w, "length", c->len);
		pc_jw_obj_end(w);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

/* PageList (src/types/profile.ts). */
static void write_pages(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i;

	if (!m->pages.len)
		return;
	pc_jw_key(w, "pages");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->pages.len; i++) {
		const struct pc_page *p = &m->pages.rows[i];

		pc_jw_obj_begin(w);
		pc_jw_key(w, "tabID");
		pc_jw_u64(w, p->tab_id);
		pc_jw_key(w, "innerWindowID");
		pc_jw_u64(w, p->inner_window_id);
		key_str(w, "url", p->url ? p->url : "");
		pc_jw_key(w, "embedderInnerWindowID");
		pc_jw_u64(w, p->embedder_inner_window_id);
		if (p->is_private >= 0)
			key_bool(w, "isPrivateBrowsing", p->is_private);
		if (p->favicon)
			key_str(w, "favicon", p->favicon);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

static int discard(void *user, const void *p, size_t n)
{
	(void)user;
	(void)p;
	(void)n;
	return 0;
}

/*
 * A thread's work in column elements: a sample is two or three of them, a
 * marker five and its data; the keys and small columns every thread has
 * cost about what 1,024 elements do (some 10,000 instructions).
 */
static uint64_t thread_work(const struct pc_thread *t)
{
	return 1024 + 3 * (uint64_t)t->samples.len + 8 * (uint64_t)t->markers.len;
}

/*
 * The threads as the planning pass cuts them: a thread of THREAD_JOB work
 * or more through write_thread() (its columns jobs), the others in jobs of
 * consecutive threads of at most THREAD_JOB work in all.
 */
static void plan_threads(struct pc_jw *null_w, struct mk_jobs *j, const struct pc_model *m)
{
	uint32_t i = 0;

	while (i < m->nthreads && !j->nomem) {
		struct col_job c = { CK_THREADS, NULL, i, i, 0, NULL };
		uint64_t sum = 0, work;

		if (thread_work(m->threads[i]) >= THREAD_JOB) {
			write_thread(null_w, m, m->threads[i], j);
			i++;
			continue;
		}
		while (c.end < m->nthreads && (work = thread_work(m->threads[c.end])) < THREAD_JOB &&
		       sum + work <= THREAD_JOB) {
			sum += work;
			c.end++;
		}
		job_record(j, &c, sum);
		i = c.end;
	}
}

/*
 * The jobs: every column jobs_col() takes (the shared tables', each big
 * thread's samples and markers, the markers' data) and the small threads
 * in groups (plan_threads()), recorded by a pass of write_shared() and
 * write_thread() into a writer whose output is discarded, so that the real
 * pass comes to the same jobs in the same order; then the helper is
 * started when there is enough to share.  Without threads, on OOM or for a
 * small profile: no jobs (all is written in place, as the library's
 * "threads" "no" asks).
 */
static void jobs_plan(struct mk_jobs *j, const struct pc_model *m, int version, int threads)
{
	/* an element writer: no ctx, its misuse (none expected) only latched */
	struct pc_jw *null_w;

	memset(j, 0, sizeof(*j));
	j->m = m;
	if (!threads)
		return;
	null_w = pc_jw_new_elems(discard, NULL);
	if (null_w) {
		j->planning = 1;
		pc_jw_obj_begin(null_w); /* write_shared() writes members */
		if (write_shared(null_w, m, version, j) != 0) {
			pc_clear_error(m->ctx); /* the real pass reports it */
			j->nomem = 1;
		}
		pc_jw_key(null_w, "threads");
		pc_jw_arr_begin(null_w);
		plan_threads(null_w, j, m);
		j->planning = 0;
		pc_jw_free(null_w);
	} else {
		pc_clear_error(m->ctx);
		j->nomem = 1;
	}
	if (j->nomem || (j->elems < COL_HELP && j->markers < MK_HELP)) {
		free(j->col);
		j->col = NULL;
		j->ncol = j->col_cap = 0;
	}
	if (j->ncol)
		j->helper = pc_wh_start(j->ncol, any_job_fn, j);
}

static int write_processed(struct profconv_ctx *ctx, const struct pc_model *m,
			   profconv_write_fn *fn, void *user)
{
	struct pc_jw *w = pc_jw_new(ctx, fn, user);
	const char *vopt = pc_opt(ctx, "processed-version");
	int version = vopt && strcmp(vopt, "70") == 0 ? 70 : 69;
	struct mk_jobs jobs;
	uint64_t replaced;
	uint32_t i;
	int err, werr;

	if (!w)
		return PROFCONV_ERR_NOMEM;
	/* the helper starts on the first jobs now */
	jobs_plan(&jobs, m, version, !ctx->opt.no_threads);
	pc_jw_obj_begin(w);
	write_meta(w, m, version);
	write_libs(w, m);
	write_pages(w, m);
	err = write_shared(w, m, version, &jobs);
	if (err) {
		pc_wh_stop(jobs.helper);
		free(jobs.col);
		pc_jw_free(w);
		return err;
	}
	pc_jw_key(w, "threads");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->nthreads;) {
		const struct col_job *c = jobs.at < jobs.ncol ? &jobs.col[jobs.at] : NULL;

		if (c && c->kind == CK_THREADS && c->first == i) { /* a job of whole threads */
			i = c->end;
			pc_wh_put(jobs.helper, w, jobs.at++, any_job_fn, &jobs);
			continue;
		}
		write_thread(w, m, m->threads[i], &jobs);
		i++;
	}
	pc_jw_arr_end(w);
	replaced = pc_wh_replaced(jobs.helper);
	pc_wh_stop(jobs.helper);
	free(jobs.col);
	write_counters(w, m);
	pc_jw_obj_end(w);

	replaced += pc_jw_replaced(w);
	err = pc_jw_finish(w);
	werr = pc_warn_n(ctx, WARN_UTF8, replaced, NULL,
			 "%llu strings had invalid UTF-8, written with U+FFFD in its place",
			 (unsigned long long)replaced);
	return err ? err : werr;
}

static const struct profconv_option processed_options[] = {
	{ "processed-version", "N", "69|70", "69",
	  "69 is what profiler.firefox.com as deployed reads; 70 its development version" },
	{ NULL, NULL, NULL, NULL, NULL },
};

const struct pc_writer pc_writer_processed = {
	.name = "processed",
	.summary = "Firefox Profiler processed profile JSON (format version 69 by default, or 70)",
	.options = processed_options,
	.write = write_processed,
};
