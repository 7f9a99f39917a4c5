/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_gecko.h - the Gecko profile reader's private state, shared by its
 * files: read_gecko.c (document, processes, threads, result), gecko_meta.c
 * (meta and marker schemas), gecko_frames.c (location strings, funcs) and
 * gecko_markers.c (marker payloads and markers).  Nothing outside the
 * reader includes it.
 */
#ifndef PC_GECKO_H
#define PC_GECKO_H

#include "core/pc_config.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_jread.h"
#include "readers/pc_reader.h"

#define MIN_VERSION 20
#define MAX_VERSION 36
#define MAX_CAPTURE ((size_t)64 << 20)

#define WARN_COUNTERS "counters dropped"
#define WARN_CSAMPLES "counter samples dropped"
#define WARN_ALLOC    "allocation markers dropped"
#define WARN_NOTIME   "markers without a time dropped"
#define WARN_CATEGORY "invalid categories replaced"
#define WARN_CAUSE    "marker backtraces with a bad stack dropped"
#define WARN_USTR     "marker string fields out of range removed"
#define WARN_PAYLOAD  "marker payloads that are not objects dropped"
#define WARN_PAGES    "pages dropped"
#define WARN_PAUSED   "paused ranges ignored"
#define WARN_MTIME    "markers without the time their phase needs made instants"
#define WARN_UTF8     "input strings with invalid UTF-8 replaced"
#define WARN_SHIFTED  "subprocess samples and markers shifted out of range dropped"
#define WARN_SDELAY   "unusable sample eventDelay or threadCPUDelta values made null"
#define WARN_XCOLS    "unusable profconv frame column values ignored"

/* --- buffered Gecko tables --- */

enum {
	CT_ABSENT = 0,
	CT_NULL,
	CT_INT,	   /* v: the integer */
	CT_NS,	   /* v: a non-integer number of ms, as ns */
	CT_BADNUM, /* a number that fits neither */
	CT_TRUE,
	CT_FALSE,
	CT_STR, /* v: index into the thread's raw pool */
	CT_RAW, /* v: index into the raw pool (an object or array as JSON text) */
};

#define MAX_COLS 14

struct gtable {
	const char *name;
	const char *const *cols; /* our column names, NULL-terminated */
	int pos[MAX_COLS];	 /* column -> position in a row; -1: not in the schema */
	int have_schema, have_data;
	int64_t *v;
	uint8_t *t;
	uint32_t ncell, ccap;
	uint32_t *row; /* nrows + 1 entries: row i is cells [row[i], row[i + 1]) */
	uint32_t nrows, rcap;
	struct pc_loc loc; /* the data array */
};

/*
 * From "address" on, profconv's own columns (what a "name (in lib)"
 * location cannot carry; docs/formats/gecko-profile.md, "profconv's
 * frameTable columns"), which the front-end ignores.
 */
static const char *const frame_cols[] = { "location",
					  "relevantForJS",
					  "innerWindowID",
					  "line",
					  "column",
					  "category",
					  "subcategory",
					  "address",
					  "lib",
					  "inlineDepth",
					  "nativeSymbol",
					  "nativeSymbolAddress",
					  "nativeSymbolSize",
					  "source",
					  NULL };
enum {
	FC_LOCATION,
	FC_RELJS,
	FC_IW,
	FC_LINE,
	FC_COLUMN,
	FC_CAT,
	FC_SUBCAT,
	FC_ADDRESS,
	FC_LIB,
	FC_INLINE,
	FC_NSYM,
	FC_NSYM_ADDR,
	FC_NSYM_SIZE,
	FC_SOURCE
};

static const char *const stack_cols[] = { "prefix", "frame", NULL };
enum { SC_PREFIX, SC_FRAME };

static const char *const sample_cols[] = { "stack", "time", "weight", "eventDelay",
					   "threadCPUDelta", NULL };
enum { SA_STACK, SA_TIME, SA_WEIGHT, SA_DELAY, SA_CPU };

static const char *const marker_cols[] = { "name",     "startTime", "endTime", "phase",
					   "category", "data",	    NULL };
enum { MC_NAME, MC_START, MC_END, MC_PHASE, MC_CAT, MC_DATA };

static const char *const source_cols[] = { "id",	  "filename",	  "startLine",
					   "startColumn", "sourceMapURL", NULL };
enum { SR_ID, SR_FILE, SR_LINE, SR_COLUMN, SR_URL };

struct gthread {
	uint32_t mt;   /* model thread */
	uint32_t proc; /* process index */
	uint32_t seq;  /* threads[seq] of its process */
	struct pc_spool strs; /* stringTable */
	struct pc_spool raw;  /* strings and raw values of the tables */
	struct gtable frames, stacks, samples, markers;
	int64_t register_ns, unregister_ns; /* unshifted */
	struct pc_loc loc;
};

struct glib {
	uint64_t start, end, offset;
	uint32_t name, path, debug_name, debug_path, breakpad_id, code_id, arch; /* strings */
	uint32_t global; /* model lib, PC_NONE until an address needs it */
	uint32_t seq;	 /* its index in the file's `libs` */
};

struct gproc {
	int has_meta, libs_seen, sources_seen;
	int64_t start_ns;    /* meta.startTime (epoch) */
	int64_t shutdown_ns; /* relative; PC_NO_TIME */
	struct glib *libs;
	uint32_t nlibs, libs_cap;
	struct gtable sources;
	struct pc_spool sources_raw;
	uint32_t *source_rows; /* gecko source -> model sources row (memo) */
	uint32_t paused;	  /* payload array, or PC_NONE */
	uint32_t counters;	  /* payload array (numbers kept as text), or PC_NONE */
	struct pc_loc counters_loc;
	struct gthread **pending;
	uint32_t npending, pending_cap;
	uint32_t nthreads;
	struct pc_loc loc;
};

/* Marker fields with format unique-string, per marker type. */
struct ustr {
	uint32_t type, key; /* indexes into gr.ustr_pool */
};

struct gr {
	struct profconv_ctx *ctx;
	struct pc_jpull *p;
	struct pc_model *m;
	const char *name;
	struct gproc **procs;
	uint32_t nprocs, procs_cap;
	struct pc_smap lib_keys;   /* "debugName/breakpadId" -> model lib */
	struct pc_smap origins;	   /* URL origin -> resource */
	struct pc_smap src_ids;	   /* sources id -> row */
	struct pc_smap src_files;  /* filename of a source without id -> row */
	struct pc_smap schema_names;
	struct pc_smap noted; /* members not kept, noted once each */
	struct pc_spool main_schemas, sub_schemas; /* converted, added at the end */
	struct pc_spool ustr_pool;
	struct ustr *ustrs;
	uint32_t nustrs, ustrs_cap;
	uint32_t *tproc; /* per model thread: its process */
	uint32_t tcap;
	int seen_categories;
	uint64_t dropped_alloc, dropped_notime, bad_categories, bad_causes, bad_ustrs;
	uint64_t bad_payloads, bad_paused, bad_times;
	uint64_t shifted_out; /* samples and markers whose shifted time left int64 ns */
	uint64_t bad_delays;  /* eventDelay or threadCPUDelta values made null */
	uint64_t bad_xcols;   /* profconv frame column values ignored */
	int empty_categories; /* meta.categories was []: "Other" added */
	uint64_t counters, counter_samples, utf8_repaired; /* dropped; repaired */
	struct pc_loc counters_loc;
};

/* PROFCONV_ERR_CORRUPT at token t / at location loc (see pc_jr_corrupt()). */
#define fail_tok(r, t, ...) pc_jr_corrupt((r)->ctx, (r)->p, (t), __VA_ARGS__)
#define fail_loc(r, loc, ...) pc_jr_corrupt_at((r)->ctx, (loc), __VA_ARGS__)

struct floc {
	struct pc_func_key key; /* the location's function */
	uint32_t func;		/* key's row, PC_NONE until a frame uses it */
	uint32_t lib;
	uint64_t addr; /* lib-relative, or PC_NO_ADDRESS */
	int done;
};

struct conv {
	struct gr *r;
	struct gproc *pr;
	struct gthread *gt;
	uint32_t nstr, nf, ns;
	uint32_t *mstr;	    /* thread string -> model string (memo) */
	struct floc *locs;  /* per thread string used as a location */
	uint32_t *ffunc;    /* per frame: its location's floc index (thread string) */
	uint32_t *ffn;	    /* per frame: its func */
	uint32_t *ip, *ra;  /* per frame: model frame as a leaf / as a caller (memo) */
	uint32_t *prefix, *frame; /* per stack */
	uint32_t *leaf, *caller;  /* per stack: model stack in either role (memo) */
};

/*
 * Functions one of the reader's files defines and another calls (the
 * gecko_ prefix keeps them apart from other readers' names).
 */
uint8_t gecko_cell(const struct gtable *g, uint32_t row, unsigned col, int64_t *v);
int gecko_cell_index(struct gr *r, const struct gtable *g, uint32_t row, unsigned col,
		     int nullable, uint32_t limit, uint32_t *out);
int gecko_cell_time(struct gr *r, const struct gtable *g, uint32_t row, unsigned col,
		    int64_t *ns);
int gecko_conv_markers(struct conv *c);
int gecko_extract(struct gr *r, struct gproc *pr, struct gthread *gt, uint32_t li, int rel_js,
		  struct floc *out);
uint32_t gecko_global_lib(struct gr *r, struct glib *l);
int gecko_int_value(struct gr *r, const char *what, int64_t *v);
uint32_t gecko_intern(struct gr *r, const char *s, size_t len);
uint32_t gecko_lib_resource(struct gr *r, uint32_t name);
int gecko_load_extensions(struct gr *r, const char *json, size_t len);
struct glib *gecko_locate(struct gproc *pr, uint64_t a);
int gecko_meta_str(struct gr *r, const char *what, char **field);
uint32_t gecko_model_str(struct conv *c, uint32_t i);
int gecko_ms_value(struct gr *r, const char *what, int64_t *ns);
int gecko_nomem(struct gr *r);
int gecko_parse_u64(const char *s, size_t len, int hex, uint64_t *out);
int gecko_process_source(struct gr *r, struct gproc *pr, uint32_t idx, uint32_t *out);
int gecko_read_meta(struct gr *r, struct gproc *pr, int is_main);
int gecko_scalar_value(struct gr *r, const struct pc_jtok **t);
int gecko_shift_time(int64_t t, int64_t start, int64_t parent_start, int64_t *out);
int gecko_small_index(const cJSON *o);
uint32_t gecko_source_row(struct gr *r, uint32_t id, uint32_t filename, uint32_t line,
			  uint32_t column, uint32_t url);
uint32_t gecko_stack_for(struct conv *c, uint32_t s, int caller);

#endif /* PC_GECKO_H */
