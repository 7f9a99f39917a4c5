/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_vstate.h - the validator's table specs and state, shared by its files:
 * validate.c (paths, problems, tokens, pending index checks, threads,
 * profiles, the entry point), validate_tables.c (cells and tables) and
 * validate_meta.c (meta, categories, marker schemas, libs).
 */
#ifndef PC_VSTATE_H
#define PC_VSTATE_H

#include "json/pc_pcols.h"
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
static inline int thread_target(enum target t)
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
	R_WINDOW_ID,   /* processed frameTable.innerWindowID: 0..2^53-1 or null (PC_MAX_WINDOW_ID) */
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

/* The processed tables: their columns come from pc_pcols.h (shared with the
 * processed reader); here each entry takes the validator's fields. */
#define V_COL(id, name, rule, tgt, flags, since, kind) { name, rule, tgt, flags, since },
static const struct colspec p_stack_cols[] = { PC_PCOLS_STACK(V_COL) };
static const struct colspec p_frame_cols[] = { PC_PCOLS_FRAME(V_COL) };
static const struct colspec p_func_cols[] = { PC_PCOLS_FUNC(V_COL) };
static const struct colspec p_resource_cols[] = { PC_PCOLS_RESOURCE(V_COL) };
static const struct colspec p_natsym_cols[] = { PC_PCOLS_NATSYM(V_COL) };
static const struct colspec p_source_cols[] = { PC_PCOLS_SOURCE(V_COL) };
static const struct colspec p_srcloc_cols[] = { PC_PCOLS_SRCLOC(V_COL) };
static const struct colspec p_samples_cols[] = { PC_PCOLS_SAMPLES(V_COL) };
static const struct colspec p_markers_cols[] = { PC_PCOLS_MARKERS(V_COL) };
#undef V_COL

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
	char surrogate_path[256]; /* where the first lone surrogate was, or "" */
};

/* CV_BADNUM: a number that is not finite once read (1e400) */
enum cvtype { CV_MISSING, CV_NULL, CV_NUM, CV_STR, CV_BOOL, CV_OBJ, CV_ARR, CV_BADNUM };

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

/*
 * Functions one of the validator's files defines and another calls (the v_
 * prefix keeps them apart from other modules' names).
 */
void v_check_libs(struct vstate *v, const struct profile *pr, enum fmt f);
int v_consume(struct vstate *v);
const char *v_cv_describe(const struct cval *cv, char *buf, size_t size);
int v_expect(struct vstate *v, enum pc_jtype want, int *err);
int v_parse_libs(struct vstate *v, struct profile *pr);
int v_parse_meta(struct vstate *v, struct profile *pr);
int v_parse_strings(struct vstate *v, int64_t *count);
int v_parse_table(struct vstate *v, const struct tablespec *pspec,
		  const struct tablespec *gspec, enum fmt *layout);
void v_path_pop(struct vstate *v, size_t len);
size_t v_path_push_idx(struct vstate *v, uint64_t i);
size_t v_path_push_key(struct vstate *v, const char *key);
int v_processed_version(const struct vstate *v);
int v_read_cval(struct vstate *v, struct cval *cv, enum pc_jtype *type);
void v_resolve_or_defer(struct vstate *v, struct pending *pd);
const char *v_tok_describe(enum pc_jtype t);

void v_problem_at(struct vstate *v, enum kind k, const char *path,
		  const char *fmt, ...) PC_PRINTF(4, 5);
void v_note_surrogates(struct vstate *v, char *raw, size_t len, const char *base);
void v_problem(struct vstate *v, enum kind k, const char *fmt, ...) PC_PRINTF(3, 4);
void v_cell_problem(struct vstate *v, enum kind k, const struct table *tb,
		    unsigned ci, uint32_t row, const char *fmt, ...) PC_PRINTF(6, 7);

#endif /* PC_VSTATE_H */
