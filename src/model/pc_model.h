/*
 * pc_model.h - the shared columnar model: the shape of the Firefox Profiler's
 * processed format (version 70), which every reader fills and every writer
 * streams out.
 *
 *   model
 *   |- strings      one interned string table for the whole profile
 *   |- libs         shared library list (frame.lib indexes it)
 *   |- categories   index 0 is always "Other" (grey)
 *   |- resources, funcs, native_symbols, sources, frames, stacks
 *   |               shared by all threads; every table is struct-of-arrays
 *   |               with uint32_t row indices and PC_NONE for null
 *   |- threads[]    per thread: samples and markers only
 *   `- meta         times, interval, product, platform facts
 *
 * Interning: stacks are keyed by (prefix, frame), frames by all their
 * columns, funcs by (name, resource, source, is_js, relevant_for_js, line,
 * column), strings by their bytes.  Interning returns the existing row or
 * appends one, so the same callchain seen a million times costs one row.
 * Row order is insertion order, so output is deterministic.  A stack's
 * prefix always has a smaller index than the stack (parents before
 * children), as the format's prefixOffset requires.
 *
 * Times are int64 nanoseconds relative to meta.zero_ns (profile time zero),
 * converted to milliseconds only by the writers.
 *
 * Memory: the model owns everything it points to; all of it is allocated
 * through the ctx allocator and released by pc_model_free().  Strings are
 * stored once in the string table and referenced by index.
 *
 * model/ depends only on core/.
 */
#ifndef PC_MODEL_H
#define PC_MODEL_H

#include "core/pc_core.h"
#include "model/pc_itab.h"

/* Resource types (ResourceType in the front-end). */
enum pc_resource_type {
	PC_RES_UNKNOWN = 0,
	PC_RES_LIBRARY = 1,
	PC_RES_ADDON = 2,
	PC_RES_WEBHOST = 3,
	PC_RES_OTHERHOST = 4,
	PC_RES_URL = 5,
};

/* Marker phases. */
enum pc_marker_phase {
	PC_PHASE_INSTANT = 0,
	PC_PHASE_INTERVAL = 1,
	PC_PHASE_START = 2,
	PC_PHASE_END = 3,
};

struct pc_strtab {
	char **ptr;	 /* row -> NUL-terminated bytes (owned, in chunks) */
	uint32_t *lens;	 /* row -> byte length (may contain NULs) */
	uint32_t len, cap;
	struct pc_itab index;
	char *chunk; /* current arena chunk */
	size_t chunk_used, chunk_size;
	void **chunks; /* every chunk, for freeing */
	uint32_t nchunks, chunks_cap;
};

struct pc_lib {
	uint32_t name;	      /* string: file basename */
	uint32_t path;	      /* string: full path as recorded */
	uint32_t debug_name;  /* string */
	uint32_t debug_path;  /* string */
	uint32_t breakpad_id; /* string: 33 hex digits, or "" */
	uint32_t code_id;     /* string: build id hex, or PC_NONE (null) */
	uint32_t arch;	      /* string, or PC_NONE */
	uint32_t resource;    /* its Library resource row */
	/* Reader-private facts, not written as such. */
	uint64_t start_avma;  /* lowest mapped address seen (Gecko writer) */
	uint64_t end_avma;
	uint64_t base_avma;   /* start - pgoff of the first mapping */
	uint8_t is_kernel;
};

struct pc_lib_table {
	struct pc_lib *rows;
	uint32_t len, cap;
};

#define PC_MAX_SUBCATEGORIES 32 /* Firefox uses up to 13 */
#define PC_MAX_CATEGORIES    64 /* Firefox uses 26 */

struct pc_category {
	const char *name;  /* static or string-table owned */
	const char *color; /* one of the front-end's colour names */
	const char *subcategories[PC_MAX_SUBCATEGORIES];
	uint32_t nsub; /* >= 1; subcategory 0 is "Other" */
};

struct pc_resource_table {
	uint32_t *name; /* string */
	uint32_t *host; /* string or PC_NONE */
	uint8_t *type;	/* enum pc_resource_type */
	uint32_t *lib;	/* reader-private: lib row or PC_NONE (not written in v70) */
	uint32_t len, cap;
	struct pc_itab index;
};

struct pc_func_table {
	uint32_t *name;		/* string */
	uint32_t *resource;	/* row or PC_NONE (-1) */
	uint32_t *source;	/* sources row or PC_NONE (null) */
	uint32_t *line;		/* 1-based or 0 (null) */
	uint32_t *column;	/* 1-based or 0 (null) */
	uint8_t *is_js;
	uint8_t *relevant_for_js;
	uint32_t len, cap;
	struct pc_itab index;
};

struct pc_native_symbol_table {
	uint32_t *lib;	     /* lib row */
	uint64_t *address;   /* lib-relative symbol start */
	uint32_t *name;	     /* string */
	uint32_t *size;	     /* bytes, or 0 (null) */
	uint32_t len, cap;
	struct pc_itab index; /* by (lib, address) */
};

struct pc_source_table {
	uint32_t *filename; /* string */
	uint32_t len, cap;
	struct pc_itab index; /* by filename */
	/*
	 * Optional columns (JS sources; see pc_source_append()).  They cover
	 * rows [0, ext_len) only; later rows have the defaults: id null,
	 * startLine 1, startColumn 1, sourceMapURL null, content null.
	 */
	uint32_t *id;		  /* string or PC_NONE */
	uint32_t *start_line;	  /* 1-based */
	uint32_t *start_column;	  /* 1-based */
	uint32_t *source_map_url; /* string or PC_NONE */
	uint32_t *content;	  /* string or PC_NONE */
	uint32_t ext_len, ext_cap;
};

#define PC_NO_ADDRESS UINT64_MAX

struct pc_frame_table {
	uint64_t *address;	 /* lib-relative, callers nudged (-1); PC_NO_ADDRESS = -1 */
	uint32_t *lib;		 /* lib row or PC_NONE (-1) */
	uint32_t *func;		 /* func row */
	uint32_t *native_symbol; /* row or PC_NONE (null) */
	uint32_t *line;		 /* 1-based or 0 (null) */
	uint32_t *column;	 /* 1-based or 0 (null) */
	uint16_t *category;	 /* category index, or UINT16_MAX (null: inherit) */
	uint16_t *subcategory;
	uint16_t *inline_depth;
	uint32_t len, cap;
	struct pc_itab index;
	/*
	 * innerWindowID, an optional column: it covers rows [0, iw_len) only;
	 * later rows have 0 (see pc_frame_inner_window_id()).  Not part of the
	 * key of pc_frame_intern(); pc_frame_intern_iw() and pc_frame_append()
	 * compare it too.
	 */
	uint64_t *inner_window_id;
	uint32_t iw_len, iw_cap;
};

#define PC_NO_CATEGORY UINT16_MAX

/* The stack index keeps the whole (prefix, frame) key in its slots: one
 * cache miss per lookup on the hottest table. */
struct pc_stack_slot {
	uint64_t key; /* prefix << 32 | frame */
	uint32_t row; /* PC_NONE = empty */
	uint32_t pad;
};

struct pc_stack_table {
	uint32_t *frame;
	uint32_t *prefix; /* PC_NONE for roots; always < own index */
	uint32_t len, cap;
	struct pc_stack_slot *slots;
	uint32_t mask;
	int unindexed; /* rows were added with pc_stack_add_new(): rebuild before lookups */
};

struct pc_samples {
	uint32_t *stack; /* stack row or PC_NONE (empty stack) */
	int64_t *time;	 /* ns since meta.zero_ns */
	int64_t *weight; /* NULL = every sample weighs 1 */
	uint32_t len, cap;
};

struct pc_markers {
	uint32_t *name;	    /* string */
	int64_t *start;	    /* ns, or PC_NO_TIME */
	int64_t *end;	    /* ns, or PC_NO_TIME */
	uint8_t *phase;	    /* enum pc_marker_phase */
	uint16_t *category; /* category index */
	uint32_t *data;	    /* string holding a raw JSON object, or PC_NONE (null) */
	uint32_t len, cap;
};

struct pc_thread {
	uint32_t name;	       /* string */
	uint32_t process_name; /* string */
	const char *process_type; /* static ("default") or kept (pc_model_keep()) */
	const char *paused_ranges; /* raw JSON array (kept), NULL = [] */
	int64_t pid;
	int64_t tid;
	uint8_t is_main;
	int64_t process_startup; /* ns */
	int64_t process_shutdown; /* ns or PC_NO_TIME */
	int64_t register_time;	 /* ns */
	int64_t unregister_time; /* ns or PC_NO_TIME */
	struct pc_samples samples;
	struct pc_markers markers;
};

struct pc_meta {
	int64_t interval_ns;   /* sampling interval */
	int64_t zero_ns;       /* input clock value of profile time 0 */
	int64_t start_time_ns; /* wall clock (Unix epoch ns) of time 0; 0 if unknown */
	int has_start_time;
	int64_t profiling_start; /* ns relative to zero, or PC_NO_TIME */
	int64_t profiling_end;
	int symbolicated;
	const char *weight_type; /* static: "samples", "tracing-ms", "bytes" */
	/* Owned strings (pc_alloc), NULL if unknown. */
	char *product;
	char *imported_from;
	char *hostname;
	char *os_release;
	char *arch;
	char *cpu_desc;
	char *perf_version;
	char *command_line;
	char *event_name;
	uint32_t logical_cpus;
	uint32_t physical_cpus; /* 0 = unknown */
	/* Raw JSON objects for meta.markerSchema (owned). */
	char **marker_schema;
	uint32_t nmarker_schema, marker_schema_cap;
};

struct pc_model {
	struct profconv_ctx *ctx;
	struct pc_meta meta;
	struct pc_strtab strings;
	struct pc_lib_table libs;
	struct pc_category categories[PC_MAX_CATEGORIES];
	uint32_t ncategories;
	struct pc_resource_table resources;
	struct pc_func_table funcs;
	struct pc_native_symbol_table native_symbols;
	struct pc_source_table sources;
	struct pc_frame_table frames;
	struct pc_stack_table stacks;
	struct pc_thread **threads; /* owned; pointers stay stable while adding */
	uint32_t nthreads, threads_cap;
	/* After symbolication: old func row -> new func row (PC_NONE: split or gone). */
	uint32_t *func_map;
	uint32_t func_map_len;
	/* Strings kept for the model's lifetime (pc_model_keep()). */
	char **kept;
	uint32_t nkept, kept_cap;
};

/* The public handle is the model. */
struct profconv_profile {
	struct pc_model m;
};

/* Create an empty model with the "Other" category; NULL on OOM. */
struct pc_model *pc_model_new(struct profconv_ctx *ctx);
void pc_model_free(struct pc_model *m);

/* Intern a string (bytes s[0..len)); returns its index or PC_NONE on OOM. */
uint32_t pc_str_intern(struct pc_model *m, const char *s, size_t len);
uint32_t pc_str_intern_z(struct pc_model *m, const char *s);
static inline const char *pc_str(const struct pc_model *m, uint32_t i)
{
	return m->strings.ptr[i];
}

/* Append a category; returns its index or PC_NO_CATEGORY when full. */
uint16_t pc_model_add_category(struct pc_model *m, const char *name, const char *color);
/* Find a category by name; PC_NO_CATEGORY if absent. */
uint16_t pc_model_find_category(const struct pc_model *m, const char *name);

/* Append a lib (not interned: callers keep their own lib identity). PC_NONE on OOM. */
uint32_t pc_lib_add(struct pc_model *m, const struct pc_lib *lib);

uint32_t pc_resource_intern(struct pc_model *m, uint32_t name, uint32_t host, uint8_t type,
			    uint32_t lib);

struct pc_func_key {
	uint32_t name, resource, source, line, column;
	uint8_t is_js, relevant_for_js;
};
uint32_t pc_func_intern(struct pc_model *m, const struct pc_func_key *k);

struct pc_frame_key {
	uint64_t address;
	uint32_t lib, func, native_symbol, line, column;
	uint16_t category, subcategory, inline_depth;
};
uint32_t pc_frame_intern(struct pc_model *m, const struct pc_frame_key *k);

uint32_t pc_native_symbol_intern(struct pc_model *m, uint32_t lib, uint64_t address, uint32_t name,
				 uint32_t size);
uint32_t pc_source_intern(struct pc_model *m, uint32_t filename);

/* Intern (prefix, frame); prefix is PC_NONE for a root.  PC_NONE on OOM. */
uint32_t pc_stack_intern(struct pc_model *m, uint32_t prefix, uint32_t frame);
/*
 * Add (prefix, frame) without looking for it: for callers that know the
 * pair is new (a rebuild of a table whose rows are all distinct).  The index
 * is rebuilt on the next pc_stack_intern().  PC_NONE on OOM.
 */
uint32_t pc_stack_add_new(struct pc_model *m, uint32_t prefix, uint32_t frame);

/* Append a thread (zeroed, times set to null); NULL on OOM. */
struct pc_thread *pc_thread_add(struct pc_model *m, int64_t pid, int64_t tid);

/* Append a sample; weight is ignored while every weight so far is 1. 0 or error. */
int pc_sample_add(struct pc_model *m, struct pc_thread *t, uint32_t stack, int64_t time,
		  int64_t weight);
/* Append a marker; data is a string index holding a JSON object, or PC_NONE. */
int pc_marker_add(struct pc_model *m, struct pc_thread *t, uint32_t name, int64_t start,
		  int64_t end, uint8_t phase, uint16_t category, uint32_t data);
/* Add a raw JSON marker schema object to meta.markerSchema (copied). */
int pc_model_add_marker_schema(struct pc_model *m, const char *json);

/*
 * Sort each thread's samples (and markers by start time) stably by time;
 * cheap when already sorted.  Called by readers before returning.
 */
int pc_model_sort_threads(struct pc_model *m);

/* Set an owned meta string (copies s; NULL clears). 0 or error. */
int pc_meta_set(struct pc_model *m, char **field, const char *s);

/*
 * --- Faithful loading of an existing table (readers of processed profiles) ---
 *
 * The pc_*_append() functions append one row whatever it holds, so the row
 * numbers of the input are kept even where it has duplicate rows; the row is
 * entered in the table's index only when no equal row is there yet (later
 * interning finds the first).  Each returns the new row, or PC_NONE on OOM.
 */

/* A copy of s[0..len) (NUL-terminated) that lives as long as the model; NULL on OOM. */
const char *pc_model_keep(struct pc_model *m, const char *s, size_t len);

/* Empty the string table (before loading a stringArray: string 0 need not be ""). */
void pc_str_clear(struct pc_model *m);
uint32_t pc_str_append(struct pc_model *m, const char *s, size_t len);
/* prefix: PC_NONE or any row before this one (the caller checks). */
uint32_t pc_stack_append(struct pc_model *m, uint32_t prefix, uint32_t frame);
uint32_t pc_frame_append(struct pc_model *m, const struct pc_frame_key *k,
			 uint64_t inner_window_id);
/* Like pc_frame_intern(), with innerWindowID part of the key. */
uint32_t pc_frame_intern_iw(struct pc_model *m, const struct pc_frame_key *k,
			    uint64_t inner_window_id);
uint32_t pc_func_append(struct pc_model *m, const struct pc_func_key *k);
uint32_t pc_resource_append(struct pc_model *m, uint32_t name, uint32_t host, uint8_t type,
			    uint32_t lib);
uint32_t pc_native_symbol_append(struct pc_model *m, uint32_t lib, uint64_t address,
				 uint32_t name, uint32_t size);

/* A sources row with every column. */
struct pc_source_row {
	uint32_t filename;	  /* string */
	uint32_t id;		  /* string or PC_NONE */
	uint32_t start_line;	  /* 1-based */
	uint32_t start_column;	  /* 1-based */
	uint32_t source_map_url; /* string or PC_NONE */
	uint32_t content;	  /* string or PC_NONE */
};
/* Append a sources row (indexed by filename only when absent). */
uint32_t pc_source_append(struct pc_model *m, const struct pc_source_row *r);
/* Row i of sources with every column (defaults past ext_len). */
void pc_source_get(const struct pc_model *m, uint32_t i, struct pc_source_row *r);

static inline uint64_t pc_frame_inner_window_id(const struct pc_frame_table *t, uint32_t row)
{
	return row < t->iw_len ? t->inner_window_id[row] : 0;
}

/*
 * Rebuild the frame (or func) index from the rows as they are, without
 * moving any row: for callers that edited key columns in place.  A row equal
 * to an earlier one stays, and lookups find the earlier one.  0 or error.
 */
int pc_frame_index_rebuild(struct pc_model *m);
int pc_func_index_rebuild(struct pc_model *m);

#endif /* PC_MODEL_H */
