/*
 * validate.c - the structural checker for Firefox Profiler files (see
 * pc_validate.h).  Spec: docs/formats (processed v70: src/types/profile.ts,
 * Gecko v36: src/types/gecko-profile.ts of firefox-devtools/profiler).
 *
 * One pass over the file with the pull tokenizer.  Key order is arbitrary
 * (Firefox writes libs before meta), so nothing is checked against a table
 * that has not been seen yet:
 *
 *   - every table column is checked cell by cell as it streams past for
 *     what needs only the cell (type, prefixOffset vs own index, phase);
 *   - index columns are kept as int32 arrays (S_NULL / S_BAD sentinels) and
 *     become "pending" checks, resolved as soon as the length of the table
 *     they point into is known: at once, at the end of the thread (Gecko
 *     per-thread tables) or at the end of the profile;
 *   - string tables are only counted; meta and single libs entries, which
 *     are small, are captured and read with cJSON.
 *
 * A table object is parsed in either layout: processed columns
 * ({length, col: [...]}) or Gecko rows ({schema: {col: pos}, data: [[...]]}).
 * A Gecko "data" array that comes before its "schema" is captured raw and
 * replayed once the schema is known.
 *
 * Problems are counted per kind; the first PC_VALIDATE_MAX_SHOWN of each go
 * to the diagnostics callback as "FILE: json.path[i]: what".  Kinds marked
 * warn are things the front-end tolerates; they do not make a file invalid.
 */
#include "json/pc_validate.h"

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "json/pc_jpull.h"

#define MAX_COLS 16
#define MAX_POS	 64
#define META_MAX ((size_t)64 << 20)
#define LIB_MAX	 ((size_t)1 << 20)
#define DATA_MAX ((size_t)1 << 30) /* Gecko data seen before its schema */
#define PATH_MAX_LEN 512

#define S_NULL INT32_MIN	 /* stored null */
#define S_BAD  (INT32_MIN + 1) /* already reported */

#define PROCESSED_VERSION 70
#define GECKO_VERSION	  36

enum kind {
	K_MISSING,
	K_TYPE,
	K_LENGTH,
	K_RANGE,
	K_ORDER,
	K_CATEGORY,
	K_MARKER,
	K_VALUE,
	K_LIBS,
	K_LAYOUT,
	W_VERSION,
	W_NO_GREY,
	W_COLOR,
	W_TIME_ORDER,
	W_PID,
	W_TID,
	W_OPTIONAL,
	W_UTF8,
	NKINDS
};

static const struct {
	const char *name;
	int warn;
} kinds[NKINDS] = {
	[K_MISSING] = { "missing field", 0 },
	[K_TYPE] = { "wrong type", 0 },
	[K_LENGTH] = { "column length", 0 },
	[K_RANGE] = { "index out of range", 0 },
	[K_ORDER] = { "parent not before child", 0 },
	[K_CATEGORY] = { "bad category", 0 },
	[K_MARKER] = { "bad marker", 0 },
	[K_VALUE] = { "bad value", 0 },
	[K_LIBS] = { "bad lib mapping", 0 },
	[K_LAYOUT] = { "mixed formats", 0 },
	[W_VERSION] = { "newer format version", 0 }, /* the front-end refuses it */
	[W_NO_GREY] = { "no grey category", 1 },
	[W_COLOR] = { "non-standard color", 1 },
	[W_TIME_ORDER] = { "samples out of time order", 1 },
	[W_PID] = { "pid not a string", 1 },
	[W_TID] = { "missing tid", 1 },
	[W_OPTIONAL] = { "missing optional field", 1 },
	[W_UTF8] = { "invalid UTF-8", 1 },
};

enum fmt { F_UNKNOWN, F_PROCESSED, F_GECKO };

/* What an index column points into. */
enum target {
	T_NONE,
	T_STRINGS,
	T_STACKS,
	T_FRAMES,
	T_FUNCS,
	T_RESOURCES,
	T_NATSYMS,
	T_SOURCES,
	T_SRCLOCS,
	T_LIBS,
	T_CATEGORIES,
	NTARGETS
};

static const char *const proc_target[NTARGETS] = {
	"", "shared.stringArray", "shared.stackTable", "shared.frameTable", "shared.funcTable",
	"shared.resourceTable", "shared.nativeSymbols", "shared.sources", "shared.sourceLocationTable",
	"libs", "meta.categories",
};

/* Targets resolved in a thread: Gecko tables, and processed tables before v60. */
static const char *const thread_target_name[NTARGETS] = {
	"", "the thread's string table", "the thread's stackTable", "the thread's frameTable",
	"the thread's funcTable", "the thread's resourceTable", "the thread's nativeSymbols",
	"", "", "", "",
};

/* Targets a thread can own (Gecko: strings, stacks, frames; processed < v60: all tables). */
static int thread_target(enum target t)
{
	return t == T_STRINGS || t == T_STACKS || t == T_FRAMES || t == T_FUNCS ||
	       t == T_RESOURCES || t == T_NATSYMS;
}

/* --- table specs --- */

enum rule {
	R_ANY,
	R_NUM,
	R_NUM_NULL,
	R_INT,
	R_INT_NULL,
	R_ADDR, /* integer >= -1 */
	R_NONNEG,
	R_NONNEG_NULL, /* a line or column: an integer >= 0, or null */
	R_RES_TYPE,    /* resourceTable.type: ResourceType 0..5 */
	R_BOOL,
	R_BOOL_NULL,
	R_STR,
	R_STR_NULL,
	R_OBJ_NULL,
	R_REF,		 /* index into tgt: stored, checked when tgt's size is known */
	R_CAT,		 /* frame category: stored with the subcategory */
	R_SUBCAT,	 /* frame subcategory */
	R_PREFIX_OFFSET, /* processed stackTable.prefixOffset */
	R_PREFIX,	 /* Gecko (and processed < v66) stack prefix */
	R_TIME,		 /* sample time: a number, non-decreasing (warning) */
	R_TDELTA,	 /* sample time delta: a number, >= 0 (warning) */
	R_PHASE,	 /* marker phase 0..3: stored */
	R_MTIME,	 /* marker start/end time: number or null; nullness stored */
};

#define F_REQ	  0x01 /* the column must exist (from minver on) */
#define F_NULL_OK 0x02 /* cells may be null */
#define F_NEG1_OK 0x04 /* -1 means "none" */
#define F_NULLCOL 0x08 /* the whole column may be null (samples.weight) */

struct colspec {
	const char *name;
	uint8_t rule;
	uint8_t tgt;
	uint8_t flags;
	uint8_t minver; /* processed: required from this version on */
};

enum table_kind {
	TK_OTHER,
	TK_SAMPLES,
	TK_MARKERS,
	TK_FRAMES,
};

struct tablespec {
	const char *name;
	const struct colspec *cols;
	unsigned ncols;
	enum target self; /* what this table's rows are, for other tables' indexes */
	enum table_kind kind;
};

#define SPEC(n, c, self, kind) { n, c, PC_ARRAY_SIZE(c), self, kind }

static const struct colspec p_stack_cols[] = {
	{ "frame", R_REF, T_FRAMES, F_REQ, 0 },
	{ "prefixOffset", R_PREFIX_OFFSET, 0, F_REQ, 66 },
	{ "prefix", R_PREFIX, 0, F_NULL_OK, 0 },
};

static const struct colspec p_frame_cols[] = {
	{ "address", R_ADDR, 0, F_REQ, 0 },
	{ "lib", R_REF, T_LIBS, F_REQ | F_NEG1_OK, 70 },
	{ "inlineDepth", R_NONNEG, 0, F_REQ, 40 },
	{ "category", R_CAT, T_CATEGORIES, F_REQ | F_NULL_OK, 0 },
	{ "subcategory", R_SUBCAT, 0, F_REQ, 0 },
	{ "func", R_REF, T_FUNCS, F_REQ, 0 },
	{ "nativeSymbol", R_REF, T_NATSYMS, F_REQ | F_NULL_OK, 36 },
	{ "innerWindowID", R_NUM_NULL, 0, F_REQ, 27 },
	{ "line", R_NONNEG_NULL, 0, F_REQ, 0 },
	{ "column", R_NONNEG_NULL, 0, F_REQ, 0 },
	{ "originalLocation", R_REF, T_SRCLOCS, F_REQ | F_NULL_OK, 64 },
};

static const struct colspec p_func_cols[] = {
	{ "name", R_REF, T_STRINGS, F_REQ, 0 },
	{ "isJS", R_BOOL, 0, F_REQ, 0 },
	{ "relevantForJS", R_BOOL, 0, F_REQ, 0 },
	{ "resource", R_REF, T_RESOURCES, F_REQ | F_NEG1_OK, 0 },
	{ "source", R_REF, T_SOURCES, F_REQ | F_NULL_OK, 58 },
	{ "lineNumber", R_NONNEG_NULL, 0, F_REQ, 0 },
	{ "columnNumber", R_NONNEG_NULL, 0, F_REQ, 0 },
	{ "originalLocation", R_REF, T_SRCLOCS, F_REQ | F_NULL_OK, 64 },
	{ "fileName", R_REF, T_STRINGS, F_NULL_OK, 0 }, /* before v58 */
};

static const struct colspec p_resource_cols[] = {
	{ "name", R_REF, T_STRINGS, F_REQ, 0 },
	{ "host", R_REF, T_STRINGS, F_REQ | F_NULL_OK, 0 },
	{ "type", R_RES_TYPE, 0, F_REQ, 0 },
	{ "lib", R_REF, T_LIBS, F_NULL_OK, 0 }, /* before v70 */
};

static const struct colspec p_natsym_cols[] = {
	{ "libIndex", R_REF, T_LIBS, F_REQ, 0 },
	{ "address", R_INT, 0, F_REQ, 0 },
	{ "name", R_REF, T_STRINGS, F_REQ, 0 },
	{ "functionSize", R_INT_NULL, 0, F_REQ, 42 },
};

static const struct colspec p_source_cols[] = {
	{ "id", R_STR_NULL, 0, F_REQ, 61 },
	{ "filename", R_REF, T_STRINGS, F_REQ, 0 },
	{ "startLine", R_INT, 0, F_REQ, 61 },
	{ "startColumn", R_INT, 0, F_REQ, 61 },
	{ "sourceMapURL", R_REF, T_STRINGS, F_REQ | F_NULL_OK, 61 },
	{ "content", R_STR_NULL, 0, F_REQ, 64 },
};

static const struct colspec p_srcloc_cols[] = {
	{ "source", R_REF, T_SOURCES, F_REQ, 0 },
	{ "line", R_INT, 0, F_REQ, 0 },
	{ "column", R_INT, 0, F_REQ, 0 },
};

static const struct colspec p_samples_cols[] = {
	{ "stack", R_REF, T_STACKS, F_REQ | F_NULL_OK, 0 },
	{ "time", R_TIME, 0, 0, 0 },
	{ "timeDeltas", R_TDELTA, 0, 0, 0 },
	{ "weight", R_NUM, 0, F_NULLCOL, 0 },
	{ "eventDelay", R_NUM_NULL, 0, 0, 0 },
	{ "responsiveness", R_NUM_NULL, 0, 0, 0 },
	{ "threadCPUDelta", R_NUM_NULL, 0, 0, 0 },
	{ "argumentValues", R_ANY, 0, 0, 0 },
};

static const struct colspec p_markers_cols[] = {
	{ "data", R_OBJ_NULL, 0, F_REQ, 0 },
	{ "name", R_REF, T_STRINGS, F_REQ, 0 },
	{ "startTime", R_MTIME, 0, F_REQ, 0 },
	{ "endTime", R_MTIME, 0, F_REQ, 0 },
	{ "phase", R_PHASE, 0, F_REQ, 0 },
	{ "category", R_REF, T_CATEGORIES, F_REQ, 0 },
	{ "threadId", R_ANY, 0, 0, 0 },
};

static const struct colspec g_stack_cols[] = {
	{ "prefix", R_PREFIX, 0, F_REQ | F_NULL_OK, 0 },
	{ "frame", R_REF, T_FRAMES, F_REQ, 0 },
};

static const struct colspec g_frame_cols[] = {
	{ "location", R_REF, T_STRINGS, F_REQ, 0 },
	{ "relevantForJS", R_BOOL_NULL, 0, 0, 0 },
	{ "innerWindowID", R_NUM_NULL, 0, 0, 0 },
	{ "implementation", R_REF, T_STRINGS, F_NULL_OK, 0 },
	{ "line", R_INT_NULL, 0, 0, 0 },
	{ "column", R_INT_NULL, 0, 0, 0 },
	{ "category", R_CAT, T_CATEGORIES, F_NULL_OK, 0 },
	{ "subcategory", R_SUBCAT, 0, 0, 0 },
};

static const struct colspec g_samples_cols[] = {
	{ "stack", R_REF, T_STACKS, F_REQ | F_NULL_OK, 0 },
	{ "time", R_TIME, 0, F_REQ, 0 },
	{ "eventDelay", R_NUM_NULL, 0, 0, 0 },
	{ "responsiveness", R_NUM_NULL, 0, 0, 0 },
	{ "threadCPUDelta", R_NUM_NULL, 0, 0, 0 },
	{ "argumentValues", R_ANY, 0, 0, 0 },
};

static const struct colspec g_markers_cols[] = {
	{ "name", R_REF, T_STRINGS, F_REQ, 0 },
	{ "startTime", R_MTIME, 0, F_REQ, 0 },
	{ "endTime", R_MTIME, 0, F_REQ, 0 },
	{ "phase", R_PHASE, 0, F_REQ, 0 },
	{ "category", R_REF, T_CATEGORIES, F_REQ, 0 },
	{ "data", R_OBJ_NULL, 0, F_REQ, 0 },
};

static const struct colspec g_source_cols[] = {
	{ "id", R_STR_NULL, 0, 0, 0 },
	{ "uuid", R_STR_NULL, 0, 0, 0 },
	{ "filename", R_STR, 0, F_REQ, 0 },
	{ "startLine", R_INT_NULL, 0, 0, 0 },
	{ "startColumn", R_INT_NULL, 0, 0, 0 },
	{ "sourceMapURL", R_STR_NULL, 0, 0, 0 },
};

static const struct tablespec p_stack = SPEC("stackTable", p_stack_cols, T_STACKS, TK_OTHER);
static const struct tablespec p_frame = SPEC("frameTable", p_frame_cols, T_FRAMES, TK_FRAMES);
static const struct tablespec p_func = SPEC("funcTable", p_func_cols, T_FUNCS, TK_OTHER);
static const struct tablespec p_resource =
	SPEC("resourceTable", p_resource_cols, T_RESOURCES, TK_OTHER);
static const struct tablespec p_natsym = SPEC("nativeSymbols", p_natsym_cols, T_NATSYMS, TK_OTHER);
static const struct tablespec p_source = SPEC("sources", p_source_cols, T_SOURCES, TK_OTHER);
static const struct tablespec p_srcloc =
	SPEC("sourceLocationTable", p_srcloc_cols, T_SRCLOCS, TK_OTHER);
static const struct tablespec p_samples = SPEC("samples", p_samples_cols, T_NONE, TK_SAMPLES);
static const struct tablespec p_markers = SPEC("markers", p_markers_cols, T_NONE, TK_MARKERS);
static const struct tablespec g_stack = SPEC("stackTable", g_stack_cols, T_STACKS, TK_OTHER);
static const struct tablespec g_frame = SPEC("frameTable", g_frame_cols, T_FRAMES, TK_FRAMES);
static const struct tablespec g_samples = SPEC("samples", g_samples_cols, T_NONE, TK_SAMPLES);
static const struct tablespec g_markers = SPEC("markers", g_markers_cols, T_NONE, TK_MARKERS);
static const struct tablespec g_source = SPEC("sources", g_source_cols, T_NONE, TK_OTHER);

/* shared.* tables of the processed format, in the order of the bit in shared_seen. */
static const struct tablespec *const shared_tables[] = {
	&p_stack, &p_frame, &p_func, &p_resource, &p_natsym, &p_source, &p_srcloc,
};
static const uint8_t shared_minver[] = { 0, 0, 0, 0, 0, 58, 64 };
#define SHARED_STRINGS_BIT (1u << 7)

/* --- state --- */

/* An index column waiting for the size of the table it points into. */
struct pending {
	struct pending *next;
	char *path;	 /* the table's JSON path */
	const char *col; /* column name */
	int pos;	 /* Gecko schema position, -1 for a processed column */
	int subpos;	 /* catsub: Gecko position of the subcategory */
	enum target tgt;
	int32_t *v;
	int32_t *sub; /* non-NULL: category column checked with these subcategories */
	uint32_t n;
};

struct scope {
	int64_t lim[NTARGETS]; /* rows of each target; -1 = not known (yet) */
	struct pending *pending;
};

#define LIB_OBJ	       0x01
#define LIB_START      0x02
#define LIB_END	       0x04
#define LIB_OFFSET     0x08
#define LIB_NAME       0x10
#define LIB_DEBUGNAME  0x20
#define LIB_BREAKPADID 0x40

struct libinfo {
	double start, end;
	unsigned flags;
};

/* A profile: the top level or one of processes[]. */
struct profile {
	struct scope sc;
	char *path; /* "" or "processes[2]" */
	int is_sub;
	enum fmt fmt; /* from meta; F_UNKNOWN without one */
	int meta_seen, libs_seen, shared_seen, threads_seen, processes_seen, paused_seen;
	int sources_seen;
	unsigned shared_tables; /* bits of shared_tables[], SHARED_STRINGS_BIT */
	double version, pver;	/* meta.version, meta.preprocessedProfileVersion */
	int has_version, has_pver;
	uint32_t ncat;
	uint32_t *subcats; /* subcategory count per category */
	struct libinfo *libs;
	uint32_t nlibs, libcap;
	char *libs_path;
	uint32_t gecko_threads, proc_threads;
	int64_t first_gecko_thread, first_proc_thread;
};

struct vstats {
	uint64_t processes, threads, samples, stacks, frames, funcs, markers;
};

struct vstate {
	struct profconv_ctx *ctx;
	struct pc_jpull *p;
	const char *name;
	uint64_t count[NKINDS];
	char path[PATH_MAX_LEN];
	size_t plen;
	struct vstats st;
	struct profile *prof; /* the profile being parsed */
	struct scope *thr;    /* the thread being parsed, or NULL */
	unsigned colors_warned; /* bits of color_aliases[] already reported */
};

enum cvtype { CV_MISSING, CV_NULL, CV_NUM, CV_STR, CV_BOOL, CV_OBJ, CV_ARR };

/* One cell, as the checks see it. */
struct cval {
	enum cvtype t;
	int integral; /* CV_NUM with an integer value that fits int64 */
	int boolval;
	int64_t i;
	double d;
	const char *raw; /* CV_NUM: the number's text */
};

struct colstate {
	uint32_t n; /* cells seen (processed column) */
	uint32_t cap;
	int32_t *store;
	double prev;
	int pos; /* Gecko schema position, -1 if not in the schema */
	uint8_t seen, is_null, has_prev;
};

struct table {
	const struct tablespec *spec;
	char *path;
	struct colstate col[MAX_COLS];
	int64_t length; /* processed `length`; -1 if absent */
	uint32_t rows;	/* Gecko data rows */
	int gecko, proc, saw_length;
	int schema_seen, data_seen, weight_type_seen;
	int empty_data; /* "data": [] before the layout was known */
	int8_t pos_col[MAX_POS]; /* Gecko: the column at each position, -1 if none */
	char *deferred;		 /* Gecko data captured before the schema */
	size_t deferred_len;
};

/* --- paths and problems --- */

static size_t path_push_key(struct vstate *v, const char *key)
{
	size_t old = v->plen;

	v->plen += pc_snprintf(v->path + v->plen, sizeof(v->path) - v->plen, "%s%s",
			       v->plen ? "." : "", key);
	return old;
}

static size_t path_push_idx(struct vstate *v, uint64_t i)
{
	size_t old = v->plen;

	v->plen += pc_snprintf(v->path + v->plen, sizeof(v->path) - v->plen, "[%llu]",
			       (unsigned long long)i);
	return old;
}

static void path_pop(struct vstate *v, size_t len)
{
	v->plen = len;
	v->path[len] = 0;
}

static void PC_PRINTF(4, 0)
	vproblem(struct vstate *v, enum kind k, const char *path, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t n;

	v->count[k]++;
	if (v->count[k] > PC_VALIDATE_MAX_SHOWN || !v->ctx->diag)
		return;
	if (path && *path)
		n = pc_snprintf(msg, sizeof(msg), "%s: %s: ", v->name, path);
	else
		n = pc_snprintf(msg, sizeof(msg), "%s: ", v->name);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	v->ctx->diag(v->ctx->diag_user, kinds[k].warn ? PROFCONV_WARNING : PROFCONV_ERROR, msg);
}

/* A problem at an explicit path. */
static void PC_PRINTF(4, 5) problem_at(struct vstate *v, enum kind k, const char *path,
				       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, k, path, fmt, ap);
	va_end(ap);
}

/* A problem at the current path. */
static void PC_PRINTF(3, 4) problem(struct vstate *v, enum kind k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, k, v->path, fmt, ap);
	va_end(ap);
}

/* The JSON path of one cell of a table. */
static void cell_path(const struct table *tb, unsigned ci, uint32_t row, char *buf, size_t size)
{
	const struct colstate *c = &tb->col[ci];

	if (tb->gecko)
		pc_snprintf(buf, size, "%s.data[%u][%d]", tb->path, row, c->pos);
	else
		pc_snprintf(buf, size, "%s.%s[%u]", tb->path, tb->spec->cols[ci].name, row);
}

static void PC_PRINTF(6, 7) cell_problem(struct vstate *v, enum kind k, const struct table *tb,
					 unsigned ci, uint32_t row, const char *fmt, ...)
{
	char path[PATH_MAX_LEN + 64];
	va_list ap;

	if (v->count[k] >= PC_VALIDATE_MAX_SHOWN || !v->ctx->diag) {
		v->count[k]++;
		return;
	}
	cell_path(tb, ci, row, path, sizeof(path));
	va_start(ap, fmt);
	vproblem(v, k, path, fmt, ap);
	va_end(ap);
}

static const char *cv_describe(const struct cval *cv, char *buf, size_t size)
{
	switch (cv->t) {
	case CV_MISSING:
		return "nothing (the row is too short)";
	case CV_NULL:
		return "null";
	case CV_NUM:
		pc_snprintf(buf, size, "%.40s", cv->raw ? cv->raw : "a number");
		return buf;
	case CV_STR:
		return "a string";
	case CV_BOOL:
		return cv->boolval ? "true" : "false";
	case CV_OBJ:
		return "an object";
	case CV_ARR:
		return "an array";
	}
	return "?";
}

static const char *tok_describe(enum pc_jtype t)
{
	switch (t) {
	case PC_JT_OBJ_BEGIN:
		return "an object";
	case PC_JT_ARR_BEGIN:
		return "an array";
	case PC_JT_STRING:
		return "a string";
	case PC_JT_NUMBER:
		return "a number";
	case PC_JT_TRUE:
	case PC_JT_FALSE:
		return "a boolean";
	case PC_JT_NULL:
		return "null";
	default:
		return "no value";
	}
}

/* --- token helpers --- */

static void tok_to_cval(const struct pc_jtok *t, struct cval *cv)
{
	cv->integral = 0;
	cv->raw = NULL;
	switch (t->type) {
	case PC_JT_NUMBER:
		cv->t = CV_NUM;
		cv->d = t->d;
		cv->raw = t->str;
		if (t->is_int) {
			cv->integral = 1;
			cv->i = t->i;
		} else if (t->d >= -9.2e18 && t->d <= 9.2e18 && (double)(int64_t)t->d == t->d) {
			cv->integral = 1;
			cv->i = (int64_t)t->d;
		}
		break;
	case PC_JT_STRING:
		cv->t = CV_STR;
		break;
	case PC_JT_TRUE:
	case PC_JT_FALSE:
		cv->t = CV_BOOL;
		cv->boolval = t->type == PC_JT_TRUE;
		break;
	case PC_JT_OBJ_BEGIN:
		cv->t = CV_OBJ;
		break;
	case PC_JT_ARR_BEGIN:
		cv->t = CV_ARR;
		break;
	default:
		cv->t = CV_NULL;
		break;
	}
}

/* Read one value into *cv; a container is skipped after its first token. */
static int read_cval(struct vstate *v, struct cval *cv, enum pc_jtype *type)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jpull_next(v->p, &t);
	if (err)
		return err;
	*type = t->type;
	if (t->type == PC_JT_ARR_END || t->type == PC_JT_OBJ_END)
		return 0;
	tok_to_cval(t, cv);
	if (t->type == PC_JT_OBJ_BEGIN || t->type == PC_JT_ARR_BEGIN)
		return pc_jpull_skip_rest(v->p);
	return 0;
}

/* Consume one token (a '[' or ']' the caller has peeked). */
static int consume(struct vstate *v)
{
	const struct pc_jtok *t;

	return pc_jpull_next(v->p, &t);
}

/* If the next value is not of type want, report it at the current path and skip it: returns 1. */
static int expect(struct vstate *v, enum pc_jtype want, int *err)
{
	enum pc_jtype t;

	*err = pc_jpull_peek(v->p, &t);
	if (*err)
		return 1;
	if (t == want)
		return 0;
	problem(v, K_TYPE, "expected %s, got %s", tok_describe(want), tok_describe(t));
	*err = pc_jpull_skip_value(v->p);
	return 1;
}

/* Skip a value that must be an array (or is reported). */
static int skip_expect(struct vstate *v, enum pc_jtype want)
{
	int err;

	if (expect(v, want, &err))
		return err;
	return pc_jpull_skip_value(v->p);
}

/* --- pending index checks --- */

static void free_pending(struct vstate *v, struct pending *pd)
{
	pc_free(v->ctx, pd->path);
	pc_free(v->ctx, pd->v);
	pc_free(v->ctx, pd->sub);
	pc_free(v->ctx, pd);
}

static void pending_path(const struct pending *pd, int sub, uint32_t row, char *buf, size_t size)
{
	if (pd->pos >= 0)
		pc_snprintf(buf, size, "%s.data[%u][%d]", pd->path, row, sub ? pd->subpos : pd->pos);
	else
		pc_snprintf(buf, size, "%s.%s[%u]", pd->path, sub ? "subcategory" : pd->col, row);
}

static void run_pending(struct vstate *v, struct pending *pd, int64_t lim, int in_thread)
{
	const char *tname = in_thread ? thread_target_name[pd->tgt] : proc_target[pd->tgt];
	const char *unit = pd->tgt == T_STRINGS ? "strings" :
			   pd->tgt == T_LIBS || pd->tgt == T_CATEGORIES ? "entries" : "rows";
	char path[PATH_MAX_LEN + 64];
	uint32_t i;

	if (in_thread && pd->tgt == T_STRINGS)
		tname = pd->pos >= 0 ? "the thread's stringTable" : "the thread's stringArray";
	for (i = 0; i < pd->n; i++) {
		int32_t x = pd->v[i];

		if (x == S_NULL || x == S_BAD || x == -1)
			continue;
		if (x >= lim) {
			if (v->count[K_RANGE] < PC_VALIDATE_MAX_SHOWN) {
				pending_path(pd, 0, i, path, sizeof(path));
				problem_at(v, K_RANGE, path, "%s %d is out of range (%s has %lld %s)",
					   pd->col, x, tname, (long long)lim, unit);
			} else {
				v->count[K_RANGE]++;
			}
			continue;
		}
		if (!pd->sub)
			continue;
		/* a frame's category is set: its subcategory must be one of that category's */
		if (pd->sub[i] == S_NULL) {
			pending_path(pd, 1, i, path, sizeof(path));
			problem_at(v, K_CATEGORY, path,
				   "subcategory is null but the frame's category is %d", x);
		} else if (pd->sub[i] != S_BAD && v->prof->subcats &&
			   (uint32_t)pd->sub[i] >= v->prof->subcats[x]) {
			pending_path(pd, 1, i, path, sizeof(path));
			problem_at(v, K_CATEGORY, path,
				   "subcategory %d is out of range (category %d has %u subcategories)",
				   pd->sub[i], x, v->prof->subcats[x]);
		}
	}
}

static int processed_version(const struct vstate *v);

/*
 * Whether pd's target is a table of the thread being parsed: always for
 * Gecko tables, and for processed ones only before they moved to
 * profile.shared (v60; the string table moved in v56).
 */
static int thread_owned(const struct vstate *v, const struct pending *pd)
{
	if (!v->thr || !thread_target(pd->tgt))
		return 0;
	if (pd->pos >= 0)
		return 1;
	if (processed_version(v) >= 60)
		return 0;
	return pd->tgt != T_STRINGS || processed_version(v) < 56;
}

/* Check pd now if its target's size is known, else queue it on its scope. */
static void resolve_or_defer(struct vstate *v, struct pending *pd)
{
	int in_thread = thread_owned(v, pd);
	struct scope *s = in_thread ? v->thr : &v->prof->sc;

	if (s->lim[pd->tgt] >= 0) {
		run_pending(v, pd, s->lim[pd->tgt], in_thread);
		free_pending(v, pd);
		return;
	}
	pd->next = s->pending;
	s->pending = pd;
}

/*
 * At the end of a thread: check what its own tables allow, hand the rest
 * to the profile (a processed profile's shared tables may still come).
 */
static void flush_thread(struct vstate *v, struct scope *ts)
{
	struct pending *pd, *next, *rev = NULL;
	struct scope *saved = v->thr;

	for (pd = ts->pending; pd; pd = next) { /* oldest first */
		next = pd->next;
		pd->next = rev;
		rev = pd;
	}
	ts->pending = NULL;
	for (pd = rev; pd; pd = next) {
		next = pd->next;
		if (ts->lim[pd->tgt] >= 0) {
			run_pending(v, pd, ts->lim[pd->tgt], 1);
			free_pending(v, pd);
		} else if (pd->pos >= 0) {
			free_pending(v, pd); /* the Gecko table is missing: reported */
		} else {
			v->thr = NULL;
			resolve_or_defer(v, pd);
			v->thr = saved;
		}
	}
}

/* Run what can be run; drop the rest (their target is missing, already reported). */
static void flush_scope(struct vstate *v, struct scope *s)
{
	struct pending *pd, *next, *rev = NULL;

	for (pd = s->pending; pd; pd = next) { /* oldest first */
		next = pd->next;
		pd->next = rev;
		rev = pd;
	}
	for (pd = rev; pd; pd = next) {
		next = pd->next;
		if (s->lim[pd->tgt] >= 0)
			run_pending(v, pd, s->lim[pd->tgt], 0);
		free_pending(v, pd);
	}
	s->pending = NULL;
}

static void scope_init(struct scope *s)
{
	unsigned i;

	for (i = 0; i < NTARGETS; i++)
		s->lim[i] = -1;
	s->pending = NULL;
}

/* --- cells --- */

static int store_push(struct vstate *v, struct colstate *c, uint32_t row, int32_t x)
{
	if (row >= c->cap) {
		void *p = c->store;
		int err = pc_grow(v->ctx, &p, sizeof(int32_t), &c->cap, (size_t)row + 1);

		if (err)
			return err;
		c->store = p;
	}
	c->store[row] = x;
	return 0;
}

static void bad_type(struct vstate *v, const struct table *tb, unsigned ci, uint32_t row,
		     const struct cval *cv, const char *want)
{
	char d[64];

	cell_problem(v, K_TYPE, tb, ci, row, "%s: expected %s, got %s", tb->spec->cols[ci].name,
		     want, cv_describe(cv, d, sizeof(d)));
}

static int index_value(struct vstate *v, const struct table *tb, unsigned ci, uint32_t row,
		       const struct cval *cv, int32_t *out)
{
	const struct colspec *cs = &tb->spec->cols[ci];
	int isnull = cv->t == CV_NULL || cv->t == CV_MISSING;

	if (isnull) {
		if (cs->flags & F_NULL_OK) {
			*out = S_NULL;
			return 0;
		}
		bad_type(v, tb, ci, row, cv, "an index");
	} else if (!cv->integral) {
		bad_type(v, tb, ci, row, cv, (cs->flags & F_NULL_OK) ? "an index or null" : "an index");
	} else if (cv->i == -1 && (cs->flags & F_NEG1_OK)) {
		*out = -1;
		return 0;
	} else if (cv->i < 0 || cv->i > INT32_MAX) {
		cell_problem(v, K_RANGE, tb, ci, row, "%s %lld is out of range", cs->name,
			     (long long)cv->i);
	} else {
		*out = (int32_t)cv->i;
		return 0;
	}
	*out = S_BAD;
	return 0;
}

static const char *const phase_names[] = { "Instant", "Interval", "IntervalStart", "IntervalEnd" };

static int cell(struct vstate *v, struct table *tb, unsigned ci, uint32_t row,
		const struct cval *cv)
{
	const struct colspec *cs = &tb->spec->cols[ci];
	struct colstate *c = &tb->col[ci];
	int isnull = cv->t == CV_NULL || cv->t == CV_MISSING;
	int32_t sv = 0;
	char d[64];

	switch ((enum rule)cs->rule) {
	case R_ANY:
		return 0;
	case R_NUM:
		if (cv->t != CV_NUM)
			bad_type(v, tb, ci, row, cv, "a number");
		return 0;
	case R_NUM_NULL:
		if (!isnull && cv->t != CV_NUM)
			bad_type(v, tb, ci, row, cv, "a number or null");
		return 0;
	case R_INT:
		if (!cv->integral)
			bad_type(v, tb, ci, row, cv, "an integer");
		return 0;
	case R_INT_NULL:
		if (!isnull && !cv->integral)
			bad_type(v, tb, ci, row, cv, "an integer or null");
		return 0;
	case R_ADDR:
		if (!cv->integral || cv->i < -1)
			bad_type(v, tb, ci, row, cv, "an address (an integer >= 0, or -1)");
		return 0;
	case R_NONNEG:
		if (!cv->integral || cv->i < 0)
			bad_type(v, tb, ci, row, cv, "an integer >= 0");
		return 0;
	case R_NONNEG_NULL:
		if (!isnull && (!cv->integral || cv->i < 0))
			bad_type(v, tb, ci, row, cv, "an integer >= 0 or null");
		return 0;
	case R_RES_TYPE: /* ResourceType in src/types/profile.ts */
		if (!cv->integral || cv->i < 0 || cv->i > 5)
			bad_type(v, tb, ci, row, cv, "a resource type (an integer 0..5)");
		return 0;
	case R_BOOL:
		if (cv->t != CV_BOOL)
			bad_type(v, tb, ci, row, cv, "true or false");
		return 0;
	case R_BOOL_NULL:
		if (!isnull && cv->t != CV_BOOL)
			bad_type(v, tb, ci, row, cv, "true, false or null");
		return 0;
	case R_STR:
		if (cv->t != CV_STR)
			bad_type(v, tb, ci, row, cv, "a string");
		return 0;
	case R_STR_NULL:
		if (!isnull && cv->t != CV_STR)
			bad_type(v, tb, ci, row, cv, "a string or null");
		return 0;
	case R_OBJ_NULL:
		if (!isnull && cv->t != CV_OBJ)
			bad_type(v, tb, ci, row, cv, "an object or null");
		return 0;
	case R_PREFIX_OFFSET:
		if (!cv->integral)
			bad_type(v, tb, ci, row, cv, "an integer offset");
		else if (cv->i < 0)
			cell_problem(v, K_ORDER, tb, ci, row, "parent %lld is not before stack %u",
				     (long long)row - cv->i, row);
		else if (cv->i > row)
			cell_problem(v, K_RANGE, tb, ci, row,
				     "prefixOffset %lld reaches before the first stack (stack %u)",
				     (long long)cv->i, row);
		return 0;
	case R_PREFIX:
		if (isnull)
			return 0;
		if (!cv->integral)
			bad_type(v, tb, ci, row, cv, "a stack index or null");
		else if (cv->i < 0)
			cell_problem(v, K_RANGE, tb, ci, row, "prefix %lld is negative",
				     (long long)cv->i);
		else if (cv->i >= row)
			cell_problem(v, K_ORDER, tb, ci, row, "prefix %lld is not before stack %u",
				     (long long)cv->i, row);
		return 0;
	case R_TIME:
		if (cv->t != CV_NUM) {
			bad_type(v, tb, ci, row, cv, "a number");
			return 0;
		}
		if (c->has_prev && cv->d < c->prev)
			cell_problem(v, W_TIME_ORDER, tb, ci, row,
				     "time %s is before the previous sample's", cv_describe(cv, d, sizeof(d)));
		c->prev = cv->d;
		c->has_prev = 1;
		return 0;
	case R_TDELTA:
		if (cv->t != CV_NUM)
			bad_type(v, tb, ci, row, cv, "a number");
		else if (cv->d < 0 && row > 0)
			cell_problem(v, W_TIME_ORDER, tb, ci, row, "negative time delta %s",
				     cv_describe(cv, d, sizeof(d)));
		return 0;
	case R_REF:
	case R_CAT:
		index_value(v, tb, ci, row, cv, &sv);
		break;
	case R_SUBCAT:
		if (isnull) {
			sv = S_NULL;
		} else if (!cv->integral || cv->i < 0 || cv->i > INT32_MAX) {
			bad_type(v, tb, ci, row, cv, "a subcategory index or null");
			sv = S_BAD;
		} else {
			sv = (int32_t)cv->i;
		}
		break;
	case R_PHASE:
		if (!cv->integral || cv->i < 0 || cv->i > 3) {
			cell_problem(v, K_MARKER, tb, ci, row, "phase %s is not 0, 1, 2 or 3",
				     cv_describe(cv, d, sizeof(d)));
			sv = S_BAD;
		} else {
			sv = (int32_t)cv->i;
		}
		break;
	case R_MTIME:
		if (isnull) {
			sv = 1;
		} else if (cv->t == CV_NUM) {
			sv = 0;
		} else {
			bad_type(v, tb, ci, row, cv, "a number or null");
			sv = S_BAD;
		}
		break;
	}
	return store_push(v, c, row, sv);
}

/* --- tables --- */

static int find_col(const struct tablespec *spec, const char *name)
{
	unsigned i;

	for (i = 0; i < spec->ncols; i++)
		if (strcmp(spec->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int table_init(struct vstate *v, struct table *tb)
{
	unsigned i;

	memset(tb, 0, sizeof(*tb));
	tb->length = -1;
	for (i = 0; i < MAX_POS; i++)
		tb->pos_col[i] = -1;
	for (i = 0; i < MAX_COLS; i++)
		tb->col[i].pos = -1;
	tb->path = pc_strdup(v->ctx, v->path);
	return tb->path ? 0 : PROFCONV_ERR_NOMEM;
}

static void table_free(struct vstate *v, struct table *tb)
{
	unsigned i;

	for (i = 0; i < MAX_COLS; i++)
		pc_free(v->ctx, tb->col[i].store);
	pc_free(v->ctx, tb->path);
	pc_free(v->ctx, tb->deferred);
}

static int processed_version(const struct vstate *v)
{
	const struct profile *pr = v->prof;

	if (pr->has_pver && pr->pver >= 0 && pr->pver < 1000)
		return (int)pr->pver;
	return PROCESSED_VERSION; /* meta not seen yet: assume the current version */
}

static int col_required(const struct vstate *v, const struct table *tb, const struct colspec *cs)
{
	if (!(cs->flags & F_REQ))
		return 0;
	return tb->gecko || processed_version(v) >= cs->minver;
}

/* The cells of a processed column, after its '['. */
static int column_body(struct vstate *v, struct table *tb, unsigned ci)
{
	enum pc_jtype type;
	struct cval cv = { 0 };
	uint32_t row;
	int err = 0;

	for (row = 0; !err; row++) {
		err = read_cval(v, &cv, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		err = cell(v, tb, ci, row, &cv);
	}
	tb->col[ci].n = row;
	return err;
}

static int parse_column(struct vstate *v, struct table *tb, unsigned ci)
{
	const struct colspec *cs = &tb->spec->cols[ci];
	struct colstate *c = &tb->col[ci];
	char path[PATH_MAX_LEN + 64];
	enum pc_jtype type;
	int err;

	pc_snprintf(path, sizeof(path), "%s.%s", tb->path, cs->name);
	if (c->seen) {
		problem_at(v, K_VALUE, path, "duplicate column");
		return pc_jpull_skip_value(v->p);
	}
	c->seen = 1;
	err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type == PC_JT_NULL && (cs->flags & F_NULLCOL)) {
		c->is_null = 1;
		return pc_jpull_skip_value(v->p);
	}
	if (type != PC_JT_ARR_BEGIN) {
		problem_at(v, K_TYPE, path, "expected an array, got %s", tok_describe(type));
		c->is_null = 1;
		return pc_jpull_skip_value(v->p);
	}
	err = consume(v); /* the '[' */
	return err ? err : column_body(v, tb, ci);
}

static int parse_schema(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	const struct pc_jtok *t;
	int err, ci;

	pc_snprintf(path, sizeof(path), "%s.schema", tb->path);
	if (expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	while (!err) {
		struct cval cv;
		enum pc_jtype type;
		char key[64];

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		ci = find_col(tb->spec, t->str);
		pc_snprintf(key, sizeof(key), "%s", t->str);
		err = read_cval(v, &cv, &type);
		if (err)
			break;
		if (!cv.integral || cv.i < 0) {
			char d[64];

			problem_at(v, K_TYPE, path, "'%s': expected a column position, got %s", key,
				   cv_describe(&cv, d, sizeof(d)));
			continue;
		}
		if (ci < 0)
			continue;
		if (cv.i >= MAX_POS) {
			problem_at(v, K_VALUE, path, "'%s': position %lld is implausibly large", key,
				   (long long)cv.i);
			continue;
		}
		if (tb->pos_col[cv.i] >= 0) {
			problem_at(v, K_VALUE, path, "'%s' and '%s' share position %lld", key,
				   tb->spec->cols[tb->pos_col[cv.i]].name, (long long)cv.i);
			continue;
		}
		if (tb->col[ci].pos >= 0)
			tb->pos_col[tb->col[ci].pos] = -1;
		tb->col[ci].pos = (int)cv.i;
		tb->pos_col[cv.i] = (int8_t)ci;
	}
	tb->schema_seen = 1;
	return err;
}

/* The rows of a Gecko table's data, after its '['. */
static int rows_body(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	unsigned mapped[MAX_COLS], nmapped = 0, k;
	enum pc_jtype type;
	struct cval cv, missing = { .t = CV_MISSING };
	uint32_t row;
	int err = 0;

	for (k = 0; k < tb->spec->ncols; k++)
		if (tb->col[k].pos >= 0)
			mapped[nmapped++] = k;
	for (row = 0; !err; row++) {
		int pos;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		if (type != PC_JT_ARR_BEGIN) {
			pc_snprintf(path, sizeof(path), "%s.data[%u]", tb->path, row);
			problem_at(v, K_TYPE, path, "expected a row (an array), got %s",
				   tok_describe(type));
			err = pc_jpull_skip_value(v->p);
			for (k = 0; k < nmapped && !err; k++)
				err = store_push(v, &tb->col[mapped[k]], row, S_BAD);
			continue;
		}
		err = consume(v); /* the row's '[' */
		for (pos = 0; !err; pos++) {
			err = read_cval(v, &cv, &type);
			if (err || type == PC_JT_ARR_END)
				break;
			if (pos < MAX_POS && tb->pos_col[pos] >= 0)
				err = cell(v, tb, (unsigned)tb->pos_col[pos], row, &cv);
		}
		for (k = 0; k < nmapped && !err; k++)
			if (tb->col[mapped[k]].pos >= pos)
				err = cell(v, tb, mapped[k], row, &missing);
	}
	if (!err)
		err = consume(v); /* the ']' */
	tb->rows = row;
	return err;
}

static int parse_rows(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	enum pc_jtype type;
	int err;

	pc_snprintf(path, sizeof(path), "%s.data", tb->path);
	err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type != PC_JT_ARR_BEGIN) {
		problem_at(v, K_TYPE, path, "expected an array, got %s", tok_describe(type));
		return pc_jpull_skip_value(v->p);
	}
	err = consume(v); /* the '[' */
	return err ? err : rows_body(v, tb);
}

/* Keep a copy of Gecko rows seen before their schema; text after the '[' when rest. */
static int defer_rows(struct vstate *v, struct table *tb, int rest)
{
	const char *raw;
	size_t len;
	int err;

	tb->data_seen = 1;
	if (rest)
		err = pc_jpull_capture_rest(v->p, &raw, &len, DATA_MAX);
	else
		err = pc_jpull_capture_value(v->p, &raw, &len, DATA_MAX);
	if (err)
		return err;
	tb->deferred = pc_alloc(v->ctx, len + 2);
	if (!tb->deferred)
		return PROFCONV_ERR_NOMEM;
	if (rest)
		tb->deferred[0] = '[';
	memcpy(tb->deferred + rest, raw, len);
	tb->deferred_len = len + (size_t)rest;
	tb->deferred[tb->deferred_len] = 0;
	return 0;
}

/*
 * "data" in a markers table before anything told the layouts apart: a
 * processed column holds objects and nulls, Gecko rows are arrays.
 */
static int ambiguous_data(struct vstate *v, struct table *tb, const struct tablespec *pspec,
			  const struct tablespec *gspec, unsigned ci)
{
	enum pc_jtype type;
	int err;

	err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type != PC_JT_ARR_BEGIN) {
		tb->proc = 1;
		tb->spec = pspec;
		return parse_column(v, tb, ci);
	}
	err = consume(v);
	if (!err)
		err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type == PC_JT_ARR_BEGIN) {
		tb->gecko = 1;
		tb->spec = gspec;
		return defer_rows(v, tb, 1);
	}
	if (type == PC_JT_ARR_END) {
		tb->empty_data = 1;
		return consume(v);
	}
	tb->proc = 1;
	tb->spec = pspec;
	tb->col[ci].seen = 1;
	return column_body(v, tb, ci);
}

/* Gecko data that came before its schema: parse the captured copy now. */
static int replay_rows(struct vstate *v, struct table *tb)
{
	struct pc_jpull *save = v->p, *p2 = NULL;
	struct pc_input *in2 = NULL;
	int err;

	err = pc_input_open_mem(v->ctx, tb->deferred, tb->deferred_len, v->name, &in2);
	if (!err)
		err = pc_jpull_new(v->ctx, in2, NULL, &p2);
	if (!err) {
		v->p = p2;
		err = parse_rows(v, tb);
		v->p = save;
	}
	pc_jpull_free(p2);
	if (in2)
		pc_input_close(in2);
	return err;
}

static int read_length(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	enum pc_jtype type;
	struct cval cv = { 0 };
	int err;

	err = read_cval(v, &cv, &type);
	if (err)
		return err;
	if (!cv.integral || cv.i < 0 || cv.i > INT32_MAX) {
		char d[64];

		pc_snprintf(path, sizeof(path), "%s.length", tb->path);
		problem_at(v, K_TYPE, path, "expected a row count, got %s",
			   cv_describe(&cv, d, sizeof(d)));
		return 0;
	}
	tb->length = cv.i;
	return 0;
}

static int read_weight_type(struct vstate *v, struct table *tb)
{
	static const char *const ok[] = { "samples", "tracing-ms", "bytes" };
	char path[PATH_MAX_LEN + 64];
	const struct pc_jtok *t;
	unsigned i;
	int err;

	tb->weight_type_seen = 1;
	pc_snprintf(path, sizeof(path), "%s.weightType", tb->path);
	err = pc_jpull_next(v->p, &t);
	if (err)
		return err;
	if (t->type != PC_JT_STRING) {
		problem_at(v, K_TYPE, path, "expected a string, got %s", tok_describe(t->type));
		return t->type == PC_JT_OBJ_BEGIN || t->type == PC_JT_ARR_BEGIN ?
			       pc_jpull_skip_rest(v->p) : 0;
	}
	for (i = 0; i < PC_ARRAY_SIZE(ok); i++)
		if (strcmp(t->str, ok[i]) == 0)
			return 0;
	problem_at(v, K_VALUE, path, "'%.40s' is not samples, tracing-ms or bytes", t->str);
	return 0;
}

static void markers_check(struct vstate *v, struct table *tb, uint32_t rows)
{
	int ph = find_col(tb->spec, "phase"), st = find_col(tb->spec, "startTime");
	int en = find_col(tb->spec, "endTime");
	const int32_t *phase, *start, *end;
	uint32_t r;

	if (ph < 0 || st < 0 || en < 0)
		return;
	phase = tb->col[ph].store;
	start = tb->col[st].store;
	end = tb->col[en].store;
	if (!phase || !start || !end)
		return;
	for (r = 0; r < rows && r < tb->col[ph].n; r++) {
		int32_t p = phase[r];

		if (p == S_BAD)
			continue;
		if (p != 3 && r < tb->col[st].n && start[r] == 1)
			cell_problem(v, K_MARKER, tb, (unsigned)st, r,
				     "startTime is null but phase %d (%s) needs it", p, phase_names[p]);
		if ((p == 1 || p == 3) && r < tb->col[en].n && end[r] == 1)
			cell_problem(v, K_MARKER, tb, (unsigned)en, r,
				     "endTime is null but phase %d (%s) needs it", p, phase_names[p]);
	}
}

/* Turn the table's index columns into pending checks (the stores move into them). */
static int table_refs(struct vstate *v, struct table *tb, uint32_t rows)
{
	int sub = find_col(tb->spec, "subcategory");
	unsigned ci;

	for (ci = 0; ci < tb->spec->ncols; ci++) {
		const struct colspec *cs = &tb->spec->cols[ci];
		struct colstate *c = &tb->col[ci];
		struct pending *pd;

		if ((cs->rule != R_REF && cs->rule != R_CAT) || !c->store)
			continue;
		pd = pc_calloc(v->ctx, 1, sizeof(*pd));
		if (!pd)
			return PROFCONV_ERR_NOMEM;
		pd->path = pc_strdup(v->ctx, tb->path);
		if (!pd->path) {
			pc_free(v->ctx, pd);
			return PROFCONV_ERR_NOMEM;
		}
		pd->col = cs->name;
		pd->pos = tb->gecko ? c->pos : -1;
		pd->subpos = -1;
		pd->tgt = (enum target)cs->tgt;
		pd->v = c->store;
		pd->n = tb->gecko ? rows : c->n;
		c->store = NULL;
		if (cs->rule == R_CAT && sub >= 0 && tb->col[sub].store &&
		    tb->col[sub].n >= pd->n) {
			pd->sub = tb->col[sub].store;
			pd->subpos = tb->col[sub].pos;
			tb->col[sub].store = NULL;
		}
		resolve_or_defer(v, pd);
	}
	return 0;
}

static void set_self(struct vstate *v, const struct table *tb, int64_t rows)
{
	enum target self = tb->spec->self;

	if (self == T_NONE)
		return;
	if (v->thr)
		v->thr->lim[self] = rows;
	else
		v->prof->sc.lim[self] = rows;
}

static int finish_processed(struct vstate *v, struct table *tb)
{
	const struct tablespec *spec = tb->spec;
	char path[PATH_MAX_LEN + 64];
	uint32_t rows = 0;
	unsigned ci;

	if (tb->length < 0)
		problem_at(v, K_MISSING, tb->path, "missing length");
	for (ci = 0; ci < spec->ncols; ci++) {
		const struct colspec *cs = &spec->cols[ci];
		const struct colstate *c = &tb->col[ci];

		if (!c->seen) {
			if (col_required(v, tb, cs))
				problem_at(v, K_MISSING, tb->path, "missing column '%s'", cs->name);
			continue;
		}
		if (c->is_null)
			continue;
		if (c->n > rows)
			rows = c->n;
		if (tb->length >= 0 && c->n != tb->length) {
			pc_snprintf(path, sizeof(path), "%s.%s", tb->path, cs->name);
			problem_at(v, K_LENGTH, path, "has %u entries but length is %lld", c->n,
				   (long long)tb->length);
		}
	}
	if (tb->length >= 0)
		rows = (uint32_t)tb->length;
	if (spec == &p_stack && !tb->col[1].seen && tb->col[2].seen && processed_version(v) >= 66)
		problem_at(v, K_MISSING, tb->path,
			   "has 'prefix' (before v66) but not 'prefixOffset'");
	if (spec->kind == TK_SAMPLES) {
		if (!tb->col[1].seen && !tb->col[2].seen)
			problem_at(v, K_MISSING, tb->path,
				   "has neither 'time' nor 'timeDeltas' (the front-end fails)");
		if (!tb->weight_type_seen && processed_version(v) >= 29)
			problem_at(v, K_MISSING, tb->path, "missing weightType");
		v->st.samples += rows;
	} else if (spec->kind == TK_MARKERS) {
		markers_check(v, tb, rows);
		v->st.markers += rows;
	} else if (spec->self == T_STACKS) {
		v->st.stacks += rows;
	} else if (spec->self == T_FRAMES) {
		v->st.frames += rows;
	} else if (spec->self == T_FUNCS) {
		v->st.funcs += rows;
	}
	set_self(v, tb, rows);
	return table_refs(v, tb, rows);
}

static int finish_gecko(struct vstate *v, struct table *tb)
{
	const struct tablespec *spec = tb->spec;
	unsigned ci;
	int err;

	if (!tb->schema_seen)
		problem_at(v, K_MISSING, tb->path, "missing schema");
	if (!tb->data_seen)
		problem_at(v, K_MISSING, tb->path, "missing data");
	if (!tb->schema_seen)
		return 0;
	if (tb->deferred) {
		err = replay_rows(v, tb);
		if (err)
			return err;
	}
	for (ci = 0; ci < spec->ncols; ci++) {
		if ((spec->cols[ci].flags & F_REQ) && tb->col[ci].pos < 0)
			problem_at(v, K_MISSING, tb->path, "schema has no '%s' column",
				   spec->cols[ci].name);
		tb->col[ci].n = tb->rows;
	}
	if (spec->kind == TK_SAMPLES) {
		if (tb->col[2].pos < 0 && tb->col[3].pos < 0)
			problem_at(v, K_MISSING, tb->path,
				   "schema has neither 'eventDelay' nor 'responsiveness' (the front-end fails)");
		v->st.samples += tb->rows;
	} else if (spec->kind == TK_MARKERS) {
		markers_check(v, tb, tb->rows);
		v->st.markers += tb->rows;
	} else if (spec->self == T_STACKS) {
		v->st.stacks += tb->rows;
	} else if (spec->self == T_FRAMES) {
		v->st.frames += tb->rows;
	}
	set_self(v, tb, tb->rows);
	return table_refs(v, tb, tb->rows);
}

/*
 * A table object in either layout.  pspec: its processed columns (NULL: not
 * a processed table here); gspec: its Gecko layout (NULL: not Gecko here).
 * *layout gets F_GECKO or F_PROCESSED (F_UNKNOWN if it could not tell).
 */
static int parse_table(struct vstate *v, const struct tablespec *pspec,
		       const struct tablespec *gspec, enum fmt *layout)
{
	const struct pc_jtok *t;
	struct table tb;
	int err;

	*layout = F_UNKNOWN;
	if (expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = table_init(v, &tb);
	if (!err)
		err = pc_jpull_next(v->p, &t);
	while (!err) {
		int is_schema, ci = -1;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		is_schema = strcmp(t->str, "schema") == 0;
		if (is_schema || strcmp(t->str, "data") == 0) {
			int pdata = pspec && !tb.gecko ? find_col(pspec, "data") : -1;

			if (!is_schema && pdata >= 0 && (tb.proc || !gspec)) {
				tb.proc = 1;
				tb.spec = pspec;
				err = parse_column(v, &tb, (unsigned)pdata);
				continue;
			}
			if (!is_schema && pdata >= 0) {
				err = ambiguous_data(v, &tb, pspec, gspec, (unsigned)pdata);
				continue;
			}
			if (!gspec || tb.proc) {
				problem_at(v, K_LAYOUT, tb.path,
					   "'%s' (Gecko layout) in a processed-format table",
					   is_schema ? "schema" : "data");
				err = pc_jpull_skip_value(v->p);
				continue;
			}
			tb.gecko = 1;
			tb.spec = gspec;
			if (is_schema) {
				err = parse_schema(v, &tb);
			} else if (tb.data_seen) {
				problem_at(v, K_VALUE, tb.path, "duplicate data");
				err = pc_jpull_skip_value(v->p);
			} else if (tb.schema_seen) {
				tb.data_seen = 1;
				err = parse_rows(v, &tb);
			} else {
				err = defer_rows(v, &tb, 0);
			}
			continue;
		}
		if (strcmp(t->str, "length") == 0)
			tb.saw_length = 1;
		if (pspec && !tb.gecko) {
			if (strcmp(t->str, "length") == 0) {
				tb.proc = 1;
				tb.spec = pspec;
				err = read_length(v, &tb);
				continue;
			}
			if (pspec->kind == TK_SAMPLES && strcmp(t->str, "weightType") == 0) {
				tb.proc = 1;
				tb.spec = pspec;
				err = read_weight_type(v, &tb);
				continue;
			}
			ci = find_col(pspec, t->str);
			if (ci >= 0) {
				tb.proc = 1;
				tb.spec = pspec;
				err = parse_column(v, &tb, (unsigned)ci);
				continue;
			}
		}
		err = pc_jpull_skip_value(v->p);
	}
	if (!err) {
		if (!tb.gecko && !tb.proc) {
			/* an empty or unrecognised table: judge it by what it should be */
			if (pspec && (!gspec || v->prof->fmt != F_GECKO))
				tb.proc = 1;
			else if (gspec && !tb.saw_length)
				tb.gecko = 1;
			tb.spec = tb.gecko ? gspec : pspec;
		}
		if (tb.empty_data && tb.gecko && !tb.data_seen) {
			tb.data_seen = 1;
		} else if (tb.empty_data && tb.proc) {
			int pdata = find_col(tb.spec, "data");

			if (pdata >= 0)
				tb.col[pdata].seen = 1;
		}
		if (tb.gecko) {
			*layout = F_GECKO;
			err = finish_gecko(v, &tb);
		} else if (tb.proc) {
			*layout = F_PROCESSED;
			err = finish_processed(v, &tb);
		}
	}
	table_free(v, &tb);
	return err;
}

/* An array of strings (stringArray, stringTable): count them. */
static int parse_strings(struct vstate *v, int64_t *count)
{
	enum pc_jtype type;
	struct cval cv = { 0 };
	uint64_t i;
	int err;

	*count = -1;
	if (expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = consume(v);
	for (i = 0; !err; i++) {
		err = read_cval(v, &cv, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		if (cv.t != CV_STR) {
			char d[64];
			size_t old = path_push_idx(v, i);

			problem(v, K_TYPE, "expected a string, got %s", cv_describe(&cv, d, sizeof(d)));
			path_pop(v, old);
		}
	}
	*count = (int64_t)i;
	return err;
}

/* --- meta --- */

static const char *const colors[] = {
	"transparent", "purple", "green", "orange", "yellow",	"lightblue", "blue",
	"brown",       "magenta", "red",  "lightred", "darkgrey", "grey",
};
/* Known to the front-end's renderer (src/utils/colors.ts) but not to the format's type. */
static const char *const color_aliases[] = { "gray", "darkgray", "lightgreen" };

static int in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

/* A color the renderer knows but the format does not: once per color and file. */
static void warn_color(struct vstate *v, const char *color)
{
	unsigned k;

	for (k = 0; k < PC_ARRAY_SIZE(color_aliases); k++)
		if (strcmp(color, color_aliases[k]) == 0)
			break;
	if (v->colors_warned & (1u << k))
		return;
	v->colors_warned |= 1u << k;
	problem(v, W_COLOR,
		"color '%s' is not in the format's list (the front-end draws it anyway; reported once)",
		color);
}

static int check_categories(struct vstate *v, struct profile *pr, const cJSON *cats, int gecko)
{
	size_t old = path_push_key(v, "categories");
	const cJSON *c;
	uint32_t n, i = 0;
	int grey = 0;

	if (!cats) {
		if (gecko) {
			problem(v, K_MISSING, "missing");
		} else {
			/* the front-end uses getDefaultCategories(): 8 entries, one subcategory each */
			pr->ncat = 8;
			pr->subcats = pc_alloc(v->ctx, 8 * sizeof(uint32_t));
			if (!pr->subcats)
				return PROFCONV_ERR_NOMEM;
			for (i = 0; i < 8; i++)
				pr->subcats[i] = 1;
			pr->sc.lim[T_CATEGORIES] = 8;
		}
		path_pop(v, old);
		return 0;
	}
	if (!cJSON_IsArray(cats)) {
		problem(v, K_TYPE, "expected an array");
		path_pop(v, old);
		return 0;
	}
	n = (uint32_t)cJSON_GetArraySize(cats);
	pr->subcats = pc_calloc(v->ctx, n ? n : 1, sizeof(uint32_t));
	if (!pr->subcats)
		return PROFCONV_ERR_NOMEM;
	pr->ncat = n;
	pr->sc.lim[T_CATEGORIES] = n;
	cJSON_ArrayForEach(c, cats)
	{
		size_t o2 = path_push_idx(v, i);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *color = cJSON_GetObjectItemCaseSensitive(c, "color");
		const cJSON *subs = cJSON_GetObjectItemCaseSensitive(c, "subcategories");

		if (!cJSON_IsObject(c)) {
			problem(v, K_CATEGORY, "expected an object");
		} else {
			if (!cJSON_IsString(name))
				problem(v, K_CATEGORY, "name: %s", name ? "not a string" : "missing");
			if (!cJSON_IsString(color)) {
				problem(v, K_CATEGORY, "color: %s", color ? "not a string" : "missing");
			} else if (strcmp(color->valuestring, "grey") == 0) {
				grey = 1;
			} else if (in_list(color->valuestring, color_aliases,
					   PC_ARRAY_SIZE(color_aliases))) {
				warn_color(v, color->valuestring);
			} else if (!in_list(color->valuestring, colors, PC_ARRAY_SIZE(colors))) {
				problem(v, K_CATEGORY,
					"color '%.40s' is not one of transparent, purple, green, orange, yellow, lightblue, blue, brown, magenta, red, lightred, darkgrey, grey",
					color->valuestring);
			}
			if (!cJSON_IsArray(subs)) {
				problem(v, K_CATEGORY, "subcategories: %s",
					subs ? "not an array" : "missing");
			} else if (cJSON_GetArraySize(subs) == 0) {
				problem(v, K_CATEGORY,
					"subcategories is empty (needs at least 'Other')");
			} else {
				const cJSON *sub;

				pr->subcats[i] = (uint32_t)cJSON_GetArraySize(subs);
				cJSON_ArrayForEach(sub, subs)
				{
					if (!cJSON_IsString(sub)) {
						problem(v, K_CATEGORY,
							"subcategories: every entry must be a string");
						break;
					}
				}
			}
		}
		path_pop(v, o2);
		i++;
	}
	if (!grey)
		problem(v, W_NO_GREY,
			"no category has color 'grey' (the front-end's default category becomes -1)");
	path_pop(v, old);
	return 0;
}

static void require_member(struct vstate *v, const cJSON *meta, const char *key, int want_array,
			   enum kind k, const char *why)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(meta, key);
	size_t old = path_push_key(v, key);

	if (!it)
		problem(v, k, "missing%s", why);
	else if (want_array && !cJSON_IsArray(it))
		problem(v, K_TYPE, "expected an array");
	else if (!want_array && !cJSON_IsNumber(it))
		problem(v, K_TYPE, "expected a number");
	path_pop(v, old);
}

static void check_marker_schema(struct vstate *v, const cJSON *ms)
{
	size_t old = path_push_key(v, "markerSchema");
	const cJSON *e;
	uint32_t i = 0;

	if (cJSON_IsArray(ms)) {
		cJSON_ArrayForEach(e, ms)
		{
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");

			if (!cJSON_IsString(name)) {
				size_t o2 = path_push_idx(v, i);

				problem(v, K_VALUE, "marker schema without a string name");
				path_pop(v, o2);
			}
			i++;
		}
	}
	path_pop(v, old);
}

static int parse_meta(struct vstate *v, struct profile *pr)
{
	const cJSON *ppv, *ver;
	const char *raw;
	cJSON *meta;
	size_t len;
	int err;

	if (pr->meta_seen) {
		problem(v, K_VALUE, "duplicate meta");
		return pc_jpull_skip_value(v->p);
	}
	pr->meta_seen = 1;
	if (expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = pc_jpull_capture_value(v->p, &raw, &len, META_MAX);
	if (err)
		return err;
	meta = cJSON_ParseWithLength(raw, len);
	if (!meta) {
		problem(v, K_VALUE, "could not be read (nested too deeply for cJSON, or out of memory)");
		return 0;
	}
	ppv = cJSON_GetObjectItemCaseSensitive(meta, "preprocessedProfileVersion");
	ver = cJSON_GetObjectItemCaseSensitive(meta, "version");
	if (cJSON_IsNumber(ver)) {
		pr->has_version = 1;
		pr->version = ver->valuedouble;
	}
	if (cJSON_IsNumber(ppv)) {
		size_t old = path_push_key(v, "preprocessedProfileVersion");

		pr->fmt = F_PROCESSED;
		pr->has_pver = 1;
		pr->pver = ppv->valuedouble;
		if (pr->pver > PROCESSED_VERSION)
			problem(v, W_VERSION,
				"%lld is newer than %d, the newest the front-end reads (it refuses the file)",
				(long long)pr->pver, PROCESSED_VERSION);
		path_pop(v, old);
		require_member(v, meta, "interval", 0, K_MISSING, " (the front-end fails without it)");
		require_member(v, meta, "markerSchema", 1, K_MISSING,
			       " (the front-end fails without it)");
		require_member(v, meta, "startTime", 0, W_OPTIONAL, "");
		err = check_categories(v, pr, cJSON_GetObjectItemCaseSensitive(meta, "categories"), 0);
	} else if (cJSON_IsNumber(ver)) {
		size_t old = path_push_key(v, "version");

		pr->fmt = F_GECKO;
		if (pr->version > GECKO_VERSION)
			problem(v, W_VERSION,
				"%lld is newer than %d, the newest the front-end reads (it refuses the file)",
				(long long)pr->version, GECKO_VERSION);
		path_pop(v, old);
		require_member(v, meta, "startTime", 0, K_MISSING, "");
		require_member(v, meta, "markerSchema", 1, K_MISSING, "");
		if (!pr->is_sub)
			require_member(v, meta, "interval", 0, K_MISSING, "");
		err = check_categories(v, pr, cJSON_GetObjectItemCaseSensitive(meta, "categories"), 1);
	} else {
		problem(v, K_MISSING,
			"has neither a numeric preprocessedProfileVersion (processed) nor a numeric version (Gecko)");
	}
	check_marker_schema(v, cJSON_GetObjectItemCaseSensitive(meta, "markerSchema"));
	cJSON_Delete(meta);
	return err;
}

/* --- libs --- */

static int parse_libs(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	uint32_t i;
	int err;

	if (pr->libs_seen) {
		problem(v, K_VALUE, "duplicate libs");
		return pc_jpull_skip_value(v->p);
	}
	pr->libs_seen = 1;
	pr->libs_path = pc_strdup(v->ctx, v->path);
	if (!pr->libs_path)
		return PROFCONV_ERR_NOMEM;
	if (expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	for (i = 0; !err; i++) {
		const cJSON *it;
		struct libinfo *li;
		const char *raw;
		cJSON *j;
		size_t len;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		err = pc_jpull_capture_value(v->p, &raw, &len, LIB_MAX);
		if (err)
			break;
		if (i >= pr->libcap) {
			void *p = pr->libs;

			err = pc_grow(v->ctx, &p, sizeof(*pr->libs), &pr->libcap, (size_t)i + 1);
			if (err)
				break;
			pr->libs = p;
		}
		li = &pr->libs[i];
		memset(li, 0, sizeof(*li));
		j = cJSON_ParseWithLength(raw, len);
		if (cJSON_IsObject(j)) {
			li->flags |= LIB_OBJ;
			it = cJSON_GetObjectItemCaseSensitive(j, "start");
			if (cJSON_IsNumber(it)) {
				li->flags |= LIB_START;
				li->start = it->valuedouble;
			}
			it = cJSON_GetObjectItemCaseSensitive(j, "end");
			if (cJSON_IsNumber(it)) {
				li->flags |= LIB_END;
				li->end = it->valuedouble;
			}
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "offset")))
				li->flags |= LIB_OFFSET;
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "name")))
				li->flags |= LIB_NAME;
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "debugName")))
				li->flags |= LIB_DEBUGNAME;
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "breakpadId")))
				li->flags |= LIB_BREAKPADID;
		}
		cJSON_Delete(j);
	}
	if (!err)
		err = pc_jpull_next(v->p, &t); /* the ']' */
	pr->nlibs = i;
	pr->sc.lim[T_LIBS] = i;
	return err;
}

static void check_libs(struct vstate *v, const struct profile *pr, enum fmt f)
{
	static const struct {
		unsigned flag;
		const char *name;
	} strs[] = {
		{ LIB_NAME, "name" },
		{ LIB_DEBUGNAME, "debugName" },
		{ LIB_BREAKPADID, "breakpadId" },
	};
	char path[PATH_MAX_LEN + 32];
	uint32_t i, k, prev = UINT32_MAX;

	for (i = 0; i < pr->nlibs; i++) {
		const struct libinfo *li = &pr->libs[i];

		pc_snprintf(path, sizeof(path), "%s[%u]", pr->libs_path, i);
		if (!(li->flags & LIB_OBJ)) {
			problem_at(v, K_TYPE, path, "expected an object");
			continue;
		}
		for (k = 0; k < PC_ARRAY_SIZE(strs); k++)
			if (!(li->flags & strs[k].flag))
				problem_at(v, K_MISSING, path, "'%s' is missing or not a string",
					   strs[k].name);
		if (f != F_GECKO)
			continue;
		if (!(li->flags & LIB_START))
			problem_at(v, K_MISSING, path, "'start' is missing or not a number");
		if (!(li->flags & LIB_END))
			problem_at(v, K_MISSING, path, "'end' is missing or not a number");
		if (!(li->flags & LIB_OFFSET))
			problem_at(v, K_MISSING, path,
				   "'offset' is missing or not a number (the front-end fails: cannot convert undefined to a BigInt)");
		if ((li->flags & (LIB_START | LIB_END)) != (LIB_START | LIB_END))
			continue;
		if (li->end < li->start)
			problem_at(v, K_LIBS, path, "end %#llx is before start %#llx",
				   (unsigned long long)li->end, (unsigned long long)li->start);
		if (prev != UINT32_MAX) {
			const struct libinfo *pl = &pr->libs[prev];

			if (li->start < pl->start)
				problem_at(v, K_LIBS, path,
					   "start %#llx is before libs[%u]'s %#llx (libs must be sorted by start)",
					   (unsigned long long)li->start, prev,
					   (unsigned long long)pl->start);
			else if (li->start < pl->end)
				problem_at(v, K_LIBS, path,
					   "[%#llx, %#llx) overlaps libs[%u] [%#llx, %#llx)",
					   (unsigned long long)li->start, (unsigned long long)li->end,
					   prev, (unsigned long long)pl->start,
					   (unsigned long long)pl->end);
		}
		prev = i;
	}
}

/* --- shared, threads --- */

static int parse_shared(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	int err;

	if (pr->shared_seen) {
		problem(v, K_VALUE, "duplicate shared");
		return pc_jpull_skip_value(v->p);
	}
	pr->shared_seen = 1;
	if (expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	while (!err) {
		char key[64];
		unsigned k;
		size_t old;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		old = path_push_key(v, key);
		if (strcmp(key, "stringArray") == 0) {
			int64_t n;

			err = parse_strings(v, &n);
			pr->shared_tables |= SHARED_STRINGS_BIT;
			if (n >= 0)
				pr->sc.lim[T_STRINGS] = n;
			path_pop(v, old);
			continue;
		}
		for (k = 0; k < PC_ARRAY_SIZE(shared_tables); k++)
			if (strcmp(key, shared_tables[k]->name) == 0)
				break;
		if (k < PC_ARRAY_SIZE(shared_tables)) {
			enum fmt layout;

			pr->shared_tables |= 1u << k;
			err = parse_table(v, shared_tables[k], NULL, &layout);
		} else {
			err = pc_jpull_skip_value(v->p);
		}
		path_pop(v, old);
	}
	return err;
}

enum thread_field {
	TF_NAME,
	TF_PID,
	TF_TID,
	TF_SAMPLES,
	TF_MARKERS,
	TF_STACKS,
	TF_FRAMES,
	TF_STRINGS,
	TF_PROCESS_TYPE,
	TF_IS_MAIN,
	TF_REGISTER,
	TF_UNREGISTER,
	TF_STARTUP,
	TF_SHUTDOWN,
	TF_PAUSED,
	TF_FUNCS,
	TF_RESOURCES,
	TF_NATSYMS,
	TF_STRING_ARRAY,
	TF_COUNT
};

static const char *const thread_fields[TF_COUNT] = {
	"name",	     "pid",	       "tid",	       "samples",	    "markers",
	"stackTable", "frameTable",    "stringTable", "processType",	    "isMainThread",
	"registerTime", "unregisterTime", "processStartupTime", "processShutdownTime", "pausedRanges",
	"funcTable",  "resourceTable", "nativeSymbols", "stringArray",
};

static void drop_scope(struct vstate *v, struct scope *s)
{
	struct pending *pd, *next;

	for (pd = s->pending; pd; pd = next) {
		next = pd->next;
		free_pending(v, pd);
	}
	s->pending = NULL;
}

static void thread_end(struct vstate *v, struct profile *pr, uint32_t idx, unsigned seen,
		       int gecko, enum pc_jtype pid_type)
{
	static const enum thread_field gecko_req[] = { TF_STRINGS, TF_SAMPLES, TF_MARKERS,
						       TF_FRAMES, TF_STACKS };
	static const enum thread_field proc_tables[] = { TF_STACKS, TF_FRAMES, TF_FUNCS,
							 TF_RESOURCES, TF_NATSYMS };
	static const enum thread_field proc_opt[] = { TF_NAME,	   TF_PROCESS_TYPE, TF_IS_MAIN,
						      TF_STARTUP,  TF_SHUTDOWN,	    TF_REGISTER,
						      TF_UNREGISTER, TF_PAUSED };
	unsigned k;

	v->st.threads++;
	if (gecko) {
		if (!pr->gecko_threads++)
			pr->first_gecko_thread = idx;
		for (k = 0; k < PC_ARRAY_SIZE(gecko_req); k++)
			if (!(seen & (1u << gecko_req[k])))
				problem(v, K_MISSING, "missing '%s'", thread_fields[gecko_req[k]]);
		if (!(seen & (1u << TF_TID)))
			problem(v, W_TID, "missing tid");
		return;
	}
	if (!pr->proc_threads++)
		pr->first_proc_thread = idx;
	if (!(seen & (1u << TF_SAMPLES)))
		problem(v, K_MISSING, "missing 'samples'");
	if (!(seen & (1u << TF_MARKERS)))
		problem(v, K_MISSING, "missing 'markers'");
	if (!(seen & (1u << TF_PID)))
		problem(v, W_PID, "missing pid (the format wants a string)");
	else if (pid_type == PC_JT_NUMBER && processed_version(v) >= 47)
		problem(v, W_PID, "pid is a number; the format wants a string (since v47)");
	else if (pid_type != PC_JT_STRING && pid_type != PC_JT_NUMBER)
		problem(v, K_TYPE, "pid: expected a string, got %s", tok_describe(pid_type));
	if (!(seen & (1u << TF_TID)))
		problem(v, W_TID, "missing tid");
	if (processed_version(v) < 60) {
		/* before v60 every thread had its own tables */
		for (k = 0; k < PC_ARRAY_SIZE(proc_tables); k++)
			if (!(seen & (1u << proc_tables[k])))
				problem(v, K_MISSING, "missing '%s' (per thread before v60)",
					thread_fields[proc_tables[k]]);
		if (processed_version(v) < 56 && !(seen & (1u << TF_STRING_ARRAY)))
			problem(v, K_MISSING, "missing 'stringArray' (per thread before v56)");
	}
	for (k = 0; k < PC_ARRAY_SIZE(proc_opt); k++)
		if (!(seen & (1u << proc_opt[k])) &&
		    (proc_opt[k] != TF_IS_MAIN || processed_version(v) >= 46))
			problem(v, W_OPTIONAL, "missing '%s' (the front-end tolerates it)",
				thread_fields[proc_opt[k]]);
}

static int parse_thread(struct vstate *v, struct profile *pr, uint32_t idx)
{
	enum pc_jtype pid_type = PC_JT_EOF;
	const struct pc_jtok *t;
	unsigned seen = 0;
	struct scope ts;
	int gecko = 0, proc = 0, err;

	if (expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	scope_init(&ts);
	v->thr = &ts;
	err = pc_jpull_next(v->p, &t);
	while (!err) {
		enum pc_jtype type;
		enum fmt layout = F_UNKNOWN;
		char key[64];
		unsigned k;
		size_t old;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		for (k = 0; k < TF_COUNT; k++)
			if (strcmp(key, thread_fields[k]) == 0)
				break;
		if (k == TF_COUNT) {
			err = pc_jpull_skip_value(v->p);
			continue;
		}
		if (seen & (1u << k)) {
			old = path_push_key(v, key);
			problem(v, K_VALUE, "duplicate member");
			path_pop(v, old);
			err = pc_jpull_skip_value(v->p);
			continue;
		}
		seen |= 1u << k;
		old = path_push_key(v, key);
		switch ((enum thread_field)k) {
		case TF_SAMPLES:
			err = parse_table(v, &p_samples, &g_samples, &layout);
			break;
		case TF_MARKERS:
			err = parse_table(v, &p_markers, &g_markers, &layout);
			break;
		case TF_STACKS:
			err = parse_table(v, &p_stack, &g_stack, &layout);
			break;
		case TF_FRAMES:
			err = parse_table(v, &p_frame, &g_frame, &layout);
			break;
		case TF_FUNCS:
			err = parse_table(v, &p_func, NULL, &layout);
			break;
		case TF_RESOURCES:
			err = parse_table(v, &p_resource, NULL, &layout);
			break;
		case TF_NATSYMS:
			err = parse_table(v, &p_natsym, NULL, &layout);
			break;
		case TF_STRING_ARRAY: {
			int64_t n;

			err = parse_strings(v, &n);
			if (n >= 0)
				ts.lim[T_STRINGS] = n;
			break;
		}
		case TF_STRINGS: {
			int64_t n;

			gecko = 1;
			err = parse_strings(v, &n);
			if (n >= 0)
				ts.lim[T_STRINGS] = n;
			break;
		}
		case TF_PID:
			err = pc_jpull_peek(v->p, &pid_type);
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		case TF_NAME:
			err = skip_expect(v, PC_JT_STRING);
			break;
		case TF_PAUSED:
			err = skip_expect(v, PC_JT_ARR_BEGIN);
			break;
		case TF_PROCESS_TYPE:
			err = skip_expect(v, PC_JT_STRING);
			break;
		case TF_IS_MAIN:
			err = pc_jpull_peek(v->p, &type);
			if (!err && type != PC_JT_TRUE && type != PC_JT_FALSE)
				problem(v, K_TYPE, "expected true or false, got %s",
					tok_describe(type));
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		case TF_REGISTER:
		case TF_STARTUP:
		case TF_UNREGISTER:
		case TF_SHUTDOWN:
			err = pc_jpull_peek(v->p, &type);
			if (!err && type != PC_JT_NUMBER &&
			    (type != PC_JT_NULL || k == TF_REGISTER || k == TF_STARTUP))
				problem(v, K_TYPE, "expected a number%s, got %s",
					k == TF_REGISTER || k == TF_STARTUP ? "" : " or null",
					tok_describe(type));
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		case TF_TID:
			err = pc_jpull_peek(v->p, &type);
			if (!err && type != PC_JT_NUMBER && type != PC_JT_STRING)
				problem(v, K_TYPE, "expected a number or a string, got %s",
					tok_describe(type));
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		default:
			err = pc_jpull_skip_value(v->p);
			break;
		}
		if (layout == F_GECKO)
			gecko = 1;
		else if (layout == F_PROCESSED || k == TF_STRING_ARRAY)
			proc = 1;
		path_pop(v, old);
	}
	if (!gecko && !proc && pr->fmt == F_GECKO)
		gecko = 1; /* no tables at all: judge it by the profile's format */
	if (!err) {
		thread_end(v, pr, idx, seen, gecko, pid_type);
		flush_thread(v, &ts);
	} else {
		drop_scope(v, &ts);
	}
	v->thr = NULL;
	return err;
}

static int parse_threads(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	uint32_t i;
	int err;

	if (pr->threads_seen) {
		problem(v, K_VALUE, "duplicate threads");
		return pc_jpull_skip_value(v->p);
	}
	pr->threads_seen = 1;
	if (expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	for (i = 0; !err; i++) {
		size_t old;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		old = path_push_idx(v, i);
		err = parse_thread(v, pr, i);
		path_pop(v, old);
	}
	if (!err)
		err = pc_jpull_next(v->p, &t);
	return err;
}

/* --- profiles --- */

static int profile_init(struct vstate *v, struct profile *pr, int is_sub)
{
	memset(pr, 0, sizeof(*pr));
	scope_init(&pr->sc);
	pr->is_sub = is_sub;
	pr->first_gecko_thread = -1;
	pr->first_proc_thread = -1;
	pr->path = pc_strdup(v->ctx, v->path);
	return pr->path ? 0 : PROFCONV_ERR_NOMEM;
}

static void profile_free(struct vstate *v, struct profile *pr)
{
	drop_scope(v, &pr->sc);
	pc_free(v->ctx, pr->path);
	pc_free(v->ctx, pr->subcats);
	pc_free(v->ctx, pr->libs);
	pc_free(v->ctx, pr->libs_path);
}

static void join_path(char *buf, size_t size, const char *base, const char *key)
{
	pc_snprintf(buf, size, "%s%s%s", base, *base ? "." : "", key);
}

static void finish_profile(struct vstate *v, struct profile *pr)
{
	char path[PATH_MAX_LEN + 64];
	enum fmt f = pr->fmt;
	unsigned k;

	if (f == F_UNKNOWN) {
		if (pr->shared_seen || pr->proc_threads)
			f = F_PROCESSED;
		else if (pr->gecko_threads || pr->processes_seen || pr->sources_seen)
			f = F_GECKO;
		pr->fmt = f;
	}
	if (!pr->meta_seen)
		problem_at(v, K_MISSING, pr->path, "missing 'meta'");
	if (!pr->libs_seen)
		problem_at(v, K_MISSING, pr->path, "missing 'libs'");
	if (!pr->threads_seen)
		problem_at(v, K_MISSING, pr->path, "missing 'threads'");
	if (f == F_PROCESSED) {
		int ver = processed_version(v);

		join_path(path, sizeof(path), pr->path, "shared");
		if (!pr->shared_seen && ver < 56) {
			/* the tables are per thread */
		} else if (!pr->shared_seen) {
			problem_at(v, K_MISSING, pr->path, "missing 'shared'");
		} else if (ver < 60) {
			if (!(pr->shared_tables & SHARED_STRINGS_BIT))
				problem_at(v, K_MISSING, path, "missing 'stringArray'");
		} else {
			if (!(pr->shared_tables & SHARED_STRINGS_BIT))
				problem_at(v, K_MISSING, path, "missing 'stringArray'");
			for (k = 0; k < PC_ARRAY_SIZE(shared_tables); k++)
				if (!(pr->shared_tables & (1u << k)) && ver >= shared_minver[k])
					problem_at(v, K_MISSING, path, "missing '%s'",
						   shared_tables[k]->name);
		}
		if (pr->gecko_threads) {
			join_path(path, sizeof(path), pr->path, "threads");
			problem_at(v, K_LAYOUT, path,
				   "%u threads (the first is [%lld]) use the Gecko layout in a processed profile",
				   pr->gecko_threads, (long long)pr->first_gecko_thread);
		}
	} else if (f == F_GECKO) {
		if (!pr->processes_seen && !pr->is_sub) /* the front-end never reads nested ones */
			problem_at(v, K_MISSING, pr->path,
				   "missing 'processes' (the front-end fails: processes is not iterable)");
		if (!pr->paused_seen)
			problem_at(v, W_OPTIONAL, pr->path, "missing 'pausedRanges'");
		if (!pr->sources_seen && pr->version >= 33)
			problem_at(v, W_OPTIONAL, pr->path,
				   "missing 'sources' (part of the Gecko format since v33)");
		if (pr->shared_seen)
			problem_at(v, K_LAYOUT, pr->path,
				   "'shared' (processed format) in a Gecko profile");
		if (pr->proc_threads) {
			join_path(path, sizeof(path), pr->path, "threads");
			problem_at(v, K_LAYOUT, path,
				   "%u threads (the first is [%lld]) use the processed layout in a Gecko profile",
				   pr->proc_threads, (long long)pr->first_proc_thread);
		}
		v->st.processes++;
	}
	check_libs(v, pr, f);
	flush_scope(v, &pr->sc);
}

static int parse_profile_body(struct vstate *v, struct profile *pr);

static int parse_processes(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	uint32_t i;
	int err;

	pr->processes_seen = 1;
	if (expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	for (i = 0; !err; i++) {
		struct profile sub;
		size_t old;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		old = path_push_idx(v, i);
		if (!expect(v, PC_JT_OBJ_BEGIN, &err)) {
			err = profile_init(v, &sub, 1);
			if (!err) {
				v->prof = &sub;
				err = parse_profile_body(v, &sub);
				if (!err)
					finish_profile(v, &sub);
				v->prof = pr;
			}
			profile_free(v, &sub);
		}
		path_pop(v, old);
	}
	if (!err)
		err = pc_jpull_next(v->p, &t);
	return err;
}

/* The members of a profile object, from its '{' to its '}'. */
static int parse_profile_body(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jpull_next(v->p, &t);
	while (!err) {
		enum fmt layout;
		char key[64];
		size_t old;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		old = path_push_key(v, key);
		if (strcmp(key, "meta") == 0) {
			err = parse_meta(v, pr);
		} else if (strcmp(key, "libs") == 0) {
			err = parse_libs(v, pr);
		} else if (strcmp(key, "shared") == 0) {
			err = parse_shared(v, pr);
		} else if (strcmp(key, "threads") == 0) {
			err = parse_threads(v, pr);
		} else if (strcmp(key, "processes") == 0) {
			err = parse_processes(v, pr);
		} else if (strcmp(key, "pausedRanges") == 0) {
			pr->paused_seen = 1;
			err = skip_expect(v, PC_JT_ARR_BEGIN);
		} else if (strcmp(key, "sources") == 0) {
			pr->sources_seen = 1;
			err = parse_table(v, NULL, &g_source, &layout);
		} else if (strcmp(key, "pages") == 0 || strcmp(key, "counters") == 0) {
			err = skip_expect(v, PC_JT_ARR_BEGIN);
		} else {
			err = pc_jpull_skip_value(v->p);
		}
		path_pop(v, old);
	}
	return err;
}

/* --- the entry point --- */

/* "12 threads" + sep, or "1 thread" + sep. */
static size_t count_word(char *buf, size_t size, uint64_t n, const char *word, const char *sep)
{
	const char *suffix = n == 1 ? "" : strcmp(word, "process") == 0 ? "es" : "s";

	return pc_snprintf(buf, size, "%llu %s%s%s", (unsigned long long)n, word, suffix, sep);
}

static void summary(struct vstate *v, const struct profile *top, struct pc_text_out *out)
{
	const char *what = top->fmt == F_PROCESSED ? "processed profile" :
			   top->fmt == F_GECKO	   ? "Gecko profile" :
						     "profile of unknown format";
	uint64_t errors = 0, warnings = 0;
	char ver[32] = "", line[1024];
	size_t n = 0;
	unsigned k;
	int first;

	for (k = 0; k < NKINDS; k++) {
		if (kinds[k].warn)
			warnings += v->count[k];
		else
			errors += v->count[k];
	}
	if (top->fmt == F_PROCESSED && top->has_pver)
		pc_snprintf(ver, sizeof(ver), " v%lld", (long long)top->pver);
	else if (top->fmt == F_GECKO && top->has_version)
		pc_snprintf(ver, sizeof(ver), " v%lld", (long long)top->version);
	if (errors) {
		n += pc_snprintf(line + n, sizeof(line) - n, "%s: INVALID %s%s: %llu problem%s (",
				 v->name, what, ver, (unsigned long long)errors,
				 errors == 1 ? "" : "s");
		for (k = 0, first = 1; k < NKINDS; k++) {
			if (kinds[k].warn || !v->count[k])
				continue;
			n += pc_snprintf(line + n, sizeof(line) - n, "%s%llu %s", first ? "" : ", ",
					 (unsigned long long)v->count[k], kinds[k].name);
			first = 0;
		}
		n += pc_snprintf(line + n, sizeof(line) - n, ")");
	} else {
		n += pc_snprintf(line + n, sizeof(line) - n, "%s: valid %s%s: ", v->name, what, ver);
		if (top->fmt == F_GECKO)
			n += count_word(line + n, sizeof(line) - n, v->st.processes, "process", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.threads, "thread", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.samples, "sample", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.stacks, "stack", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.frames, "frame", ", ");
		if (top->fmt == F_GECKO)
			n += count_word(line + n, sizeof(line) - n, v->st.markers, "marker", "");
		else
			n += count_word(line + n, sizeof(line) - n, v->st.funcs, "func", "");
	}
	if (warnings) {
		n += pc_snprintf(line + n, sizeof(line) - n, "; %llu warning%s (",
				 (unsigned long long)warnings, warnings == 1 ? "" : "s");
		for (k = 0, first = 1; k < NKINDS; k++) {
			if (!kinds[k].warn || !v->count[k])
				continue;
			n += pc_snprintf(line + n, sizeof(line) - n, "%s%llu %s", first ? "" : ", ",
					 (unsigned long long)v->count[k], kinds[k].name);
			first = 0;
		}
		n += pc_snprintf(line + n, sizeof(line) - n, ")");
	}
	/* 69 is what the deployed front-end reads at most (and what we write) */
	if (top->fmt == F_PROCESSED && top->has_pver && top->pver < PROCESSED_VERSION - 1)
		n += pc_snprintf(line + n, sizeof(line) - n,
				 "; note: v%lld is older than v%d, the front-end upgrades it on load",
				 (long long)top->pver, PROCESSED_VERSION);
	else if (top->fmt == F_GECKO && top->has_version && top->version < GECKO_VERSION)
		n += pc_snprintf(line + n, sizeof(line) - n,
				 "; note: v%lld is older than v%d, the front-end upgrades it on load",
				 (long long)top->version, GECKO_VERSION);
	pc_text_printf(out, "%s\n", line);
}

int pc_validate(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out)
{
	struct vstate v;
	struct profile top;
	enum pc_jtype type;
	uint64_t errors = 0;
	unsigned k;
	int err;

	memset(&v, 0, sizeof(v));
	v.ctx = ctx;
	v.name = pc_input_name(in);
	err = pc_jpull_new(ctx, in, NULL, &v.p);
	if (err)
		return err;
	err = profile_init(&v, &top, 0);
	if (err) {
		pc_jpull_free(v.p);
		return err;
	}
	v.prof = &top;
	err = pc_jpull_peek(v.p, &type);
	if (!err) {
		if (type == PC_JT_OBJ_BEGIN) {
			err = parse_profile_body(&v, &top);
		} else {
			problem(&v, K_TYPE,
				"the top-level value is %s, not an object: not a Firefox profile",
				tok_describe(type));
			err = pc_jpull_skip_value(v.p);
		}
	}
	if (!err) {
		const struct pc_jtok *t;

		err = pc_jpull_next(v.p, &t); /* end of input: only whitespace may follow */
	}
	if (!err) {
		finish_profile(&v, &top);
		if (pc_jpull_bad_utf8(v.p))
			problem(&v, W_UTF8,
				"%llu strings hold invalid UTF-8 or lone surrogates (shown as U+FFFD)",
				(unsigned long long)pc_jpull_bad_utf8(v.p));
		for (k = 0; k < NKINDS; k++) {
			if (!kinds[k].warn)
				errors += v.count[k];
			if (v.count[k] > PC_VALIDATE_MAX_SHOWN && ctx->diag) {
				char msg[256];

				pc_snprintf(msg, sizeof(msg), "%s: %llu more '%s' problems not shown",
					    v.name,
					    (unsigned long long)(v.count[k] - PC_VALIDATE_MAX_SHOWN),
					    kinds[k].name);
				ctx->diag(ctx->diag_user,
					  kinds[k].warn ? PROFCONV_WARNING : PROFCONV_ERROR, msg);
			}
		}
		summary(&v, &top, out);
		if (!err && out->err)
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: writing the summary failed",
				      v.name);
	}
	profile_free(&v, &top);
	pc_jpull_free(v.p);
	if (err)
		return err;
	return errors ? PROFCONV_ERR_INVALID : 0;
}
