/* SPDX-License-Identifier: BSD-2-Clause */
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
 * Beyond the v70 tables the model has processes (with their lib mappings),
 * typed marker payloads with first-class causes, marker schemas, counters,
 * pages, context sets and generic meta (see the second half of this file).
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
	/*
	 * Rows made by pc_str_add_hex() are not in the index until a lookup
	 * could find them: npending of them, none before pending_from.  A row
	 * from pending_from on whose text starts with "0x" is one of them (a
	 * lookup of such a string enters them all first).  hex_indexed counts
	 * the indexed strings that start with "0x" from any other call.
	 */
	uint32_t npending, pending_from, hex_indexed;
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
	/* No addresses: each process records its own mappings of the lib. */
	uint8_t is_kernel; /* the kernel image: its addresses are kernel symbols */
};

struct pc_lib_table {
	struct pc_lib *rows;
	uint32_t len, cap;
};

/* Categories are not capped (Chrome `cat` values are free-form); indexes
 * are uint16_t, so at most PC_NO_CATEGORY - 1 of them. */
struct pc_category {
	const char *name;  /* static or kept */
	const char *color; /* one of the front-end's colour names */
	const char **subcategories; /* owned array of static or kept names */
	uint32_t nsub, sub_cap; /* nsub >= 1; subcategory 0 is "Other" */
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
	/*
	 * Rows [0, indexed) are in the index (or equal an earlier row that is).
	 * Past it are rows from pc_func_add_new(), entered at the next lookup
	 * that could find one: of a name row <= pending_name_max (the largest
	 * of theirs); rows a lookup added meanwhile are in the index already.
	 */
	uint32_t indexed, pending_name_max;
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
	/* as pc_func_table's, for pc_frame_add_new() rows: entered at the next
	 * lookup of an inline depth 0 key, or of any when pending_deep (one of
	 * them has a depth) */
	uint32_t indexed;
	uint8_t pending_deep;
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
	/* NULL = every sample weighs 1.  In the unit of weight_type: a count
	 * for "samples", bytes, and for "tracing-ms" the time the sample
	 * stands for in ns, as times are (the writers write ms) */
	int64_t *weight;
	const char *weight_type; /* static: "samples" (default), "tracing-ms", "bytes" */
	/* Optional columns: NULL when no sample has them (see pc_sample_set_*). */
	int64_t *cpu_delta;    /* in meta.sample_units.cpu_delta units; INT64_MIN null */
	int64_t *event_delay;  /* ns; PC_NO_TIME null */
	uint32_t *context_set; /* context set row; PC_NONE none */
	uint32_t len, cap;
};

struct pc_markers {
	uint32_t *name;	    /* string */
	int64_t *start;	    /* ns, or PC_NO_TIME */
	int64_t *end;	    /* ns, or PC_NO_TIME */
	uint8_t *phase;	    /* enum pc_marker_phase */
	uint16_t *category; /* category index */
	uint32_t *payload;  /* payload object root (m->pv), or PC_NONE (null data) */
	/*
	 * The cause: a stack (first-class, remapped by symbolication).  These
	 * four columns are NULL in a model with lean_markers set until a row
	 * has a cause or a context set (pc_model_markers_full() adds them).
	 */
	uint32_t *cause_stack; /* stack row, or PC_NONE: no cause */
	int64_t *cause_time;   /* ns, or PC_NO_TIME */
	int64_t *cause_tid;    /* PC_NO_TID: none */
	uint32_t *context_set; /* context set row, or PC_NONE */
	uint32_t len, cap;
};

/* A time range in which a thread was not sampled. */
struct pc_paused_range {
	int64_t start;	    /* ns or PC_NO_TIME */
	int64_t end;	    /* ns or PC_NO_TIME */
	const char *reason; /* kept: "profiler-paused", "collecting", ... */
};

struct pc_thread {
	uint32_t name;	       /* string */
	uint32_t process;      /* process row (name, type, times), or PC_NONE */
	int64_t pid;
	int64_t tid;
	uint8_t is_main;
	/* display order a reader chose (lower first; 0 when it has none): a
	 * reader's own sort comparator may use it, the writers keep the list order */
	int64_t order;
	int64_t register_time;	 /* ns */
	int64_t unregister_time; /* ns or PC_NO_TIME */
	struct pc_paused_range *paused;
	uint32_t npaused, paused_cap;
	uint32_t more; /* payload object: other thread members a producer kept, or PC_NONE */
	struct pc_samples samples;
	struct pc_markers markers;
};


/*
 * ---------------------------------------------------------------------
 * Format-neutral tables (docs/design.md section 3): processes, typed
 * payloads, marker schemas, counters, pages, contexts, meta extra.
 * ---------------------------------------------------------------------
 */

/* One mapping of a lib into a process: [start, end) at file offset. */
struct pc_mapping {
	uint32_t lib;	 /* lib row */
	uint64_t start;	 /* first mapped address (process address space) */
	uint64_t end;	 /* one past the last */
	uint64_t offset; /* file offset mapped at start */
};

struct pc_process {
	int64_t pid;
	const char *name;     /* kept (pc_model_keep) or NULL: unknown */
	const char *type;     /* "default", "tab", "gpu", ... (static or kept) */
	int64_t start;	      /* ns, or PC_NO_TIME */
	int64_t end;	      /* ns, or PC_NO_TIME: still running */
	uint32_t main_thread; /* index into m->threads, or PC_NONE */
	struct pc_mapping *maps; /* in the order added; pc_process_sort_maps() sorts */
	uint32_t nmaps, maps_cap;
	/* Other per-process members a producer recorded (payload object) or PC_NONE. */
	uint32_t more;
};

struct pc_process_table {
	struct pc_process *rows;
	uint32_t len, cap;
	struct pc_itab index; /* by pid */
};

/*
 * A payload is a JSON-shaped value tree kept in one arena per model, in
 * preorder: an object or array node is followed by its children, and each
 * node's span counts the nodes of its subtree (itself included), so the
 * next sibling of node i is i + span.  Member names and plain string
 * values live in the payload text table (m->pv.text), never in the
 * profile's string table; only values that ARE string-table references in
 * the formats (marker fields of format unique-string / flow-id /
 * terminating-flow-id) are PC_VAL_SREF, rows of the model's string table.
 * Numbers read from JSON keep their literal text (PC_VAL_NUM) so a round
 * trip gives the same bytes; producers in C write PC_VAL_INT / PC_VAL_DBL.
 * A marker's cause (a stack) is not in the tree but in the marker's cause
 * columns; a PC_VAL_CAUSE node marks where its "cause" member goes.
 */
enum pc_val_kind {
	PC_VAL_NULL = 0,
	PC_VAL_FALSE,
	PC_VAL_TRUE,
	PC_VAL_INT,   /* v.i */
	PC_VAL_DBL,   /* v.d, finite */
	PC_VAL_NUM,   /* v.s: text row holding a JSON number literal */
	PC_VAL_STR,   /* v.s: text row */
	PC_VAL_SREF,  /* v.s: model string row (unique-string and flow ids) */
	PC_VAL_OBJ,   /* v.n members follow (each has a key) */
	PC_VAL_ARR,   /* v.n elements follow */
	PC_VAL_CAUSE, /* placeholder: the marker's cause goes here */
};

struct pc_val {
	uint8_t kind; /* enum pc_val_kind */
	uint8_t pad[3];
	uint32_t key; /* text row of the member name; PC_NONE outside objects */
	union {
		int64_t i;
		double d;
		uint32_t s;
		struct {
			uint32_t n;  /* OBJ, ARR: members or elements */
			uint32_t sp; /* OBJ, ARR, CAUSE: nodes in the subtree (pc_val_span()) */
		};
	} v;
};

/*
 * Stable natural merge sort of the rows idx[0..n) (tmp holds n):
 * before(user, x, y) says row x goes before row y.  Each pass merges
 * neighbouring runs that are already in order, so rows that come nearly in
 * order, as most of a profile's do (a Chrome trace's slices come in order
 * of their start on each thread), take one pass or a few rather than
 * log2(n).  Inline, so that each caller's predicate is inlined into its
 * own copy of the loop.
 */
typedef int pc_row_before_fn(const void *user, uint32_t x, uint32_t y);

static inline void pc_merge_sort(uint32_t *idx, uint32_t *tmp, uint32_t n,
				 pc_row_before_fn *before, const void *user)
{
	uint64_t spent = 0, budget = (uint64_t)n * 6 + 64;
	uint32_t i;

	if (n < 2)
		return;
	/*
	 * First, while it stays cheap, each row out of order is inserted where
	 * it belongs among the rows before it (in order by then): a few rows a
	 * little out of place (a V8 profile's samples: 1 % of its time deltas
	 * are negative) or a slice written after the slices it encloses (a
	 * Chrome thread's X events) cost a search and a memmove each, where
	 * every merge pass walks all the rows.  A search costs up to 8 steps
	 * back then a binary search; once the searches and moves cost 6 steps
	 * a row (what merging 64 runs would), the rest is left to the merge
	 * passes (the rows before i are one run by then).
	 */
	for (i = 1; i < n; i++) {
		uint32_t x = idx[i], p = i - 1, lo = 0, steps = 0;

		if (!before(user, x, idx[p]))
			continue;
		/* x goes before idx[p]: after every row it does not go before */
		while (p > 0 && steps < 8 && before(user, x, idx[p - 1])) {
			p--;
			steps++;
		}
		if (steps == 8) {
			while (lo < p) {
				uint32_t mid = lo + (p - lo) / 2;

				if (before(user, x, idx[mid]))
					p = mid;
				else
					lo = mid + 1;
				steps++;
			}
		}
		spent += steps + 1 + (i - p) / 64; /* (a memmove of 64 rows: about a step) */
		if (spent > budget)
			break;
		memmove(idx + p + 1, idx + p, (size_t)(i - p) * sizeof(*idx));
		idx[p] = x;
	}
	if (i == n)
		return;
	for (;;) {
		uint32_t lo = 0;

		while (lo < n) {
			uint32_t mid = lo + 1, hi, a, b, o;

			while (mid < n && !before(user, idx[mid], idx[mid - 1]))
				mid++;
			if (mid == n) { /* the rest is one run */
				if (lo == 0)
					return; /* all of it: in order */
				memcpy(tmp + lo, idx + lo, (size_t)(n - lo) * sizeof(*idx));
				break;
			}
			hi = mid + 1;
			while (hi < n && !before(user, idx[hi], idx[hi - 1]))
				hi++;
			for (a = lo, b = mid, o = lo; a < mid && b < hi;)
				tmp[o++] = before(user, idx[b], idx[a]) ? idx[b++] : idx[a++];
			while (a < mid)
				tmp[o++] = idx[a++];
			while (b < hi)
				tmp[o++] = idx[b++];
			lo = hi;
		}
		memcpy(idx, tmp, (size_t)n * sizeof(*idx));
	}
}

static inline int pc_key_before(const void *key, uint32_t x, uint32_t y)
{
	return ((const int64_t *)key)[x] < ((const int64_t *)key)[y];
}

/* pc_merge_sort() by key[row], ascending (equal keys keep their order). */
static inline void pc_sort_by_key(uint32_t *idx, uint32_t *tmp, const int64_t *key, uint32_t n)
{
	pc_merge_sort(idx, tmp, n, pc_key_before, key);
}

/*
 * Nodes in the subtree of v, itself included: a scalar has none below it;
 * containers, and a cause placeholder (which keeps the nodes of the object
 * it replaced), record theirs.  16 bytes a node: a Chrome trace's payloads
 * are most of its model.
 */
static inline uint32_t pc_val_span(const struct pc_val *v)
{
	return v->kind >= PC_VAL_OBJ ? v->v.sp : 1;
}
_Static_assert(sizeof(struct pc_val) == 16, "payload nodes are 16 bytes");

struct pc_payloads {
	struct pc_val *nodes;
	uint32_t len, cap;
	struct pc_strtab text; /* member names and plain strings, interned */
};

/*
 * A marker schema: its name and its body, a payload object in the processed
 * format's MarkerSchema shape (name, display, fields [{key, label?, format,
 * hidden?}], tooltipLabel, tableLabel, chartLabel, description, graphs,
 * colorField, isStackBased ...), members in the order they were given.
 */
struct pc_marker_schema {
	const char *name; /* kept */
	uint32_t body;	  /* payload object root */
};

struct pc_schema_table {
	struct pc_marker_schema *rows;
	uint32_t len, cap;
};

struct pc_counter {
	const char *name;	 /* kept */
	const char *category;	 /* kept */
	const char *description; /* kept */
	uint32_t process;	 /* process row, or PC_NONE */
	uint32_t main_thread;	 /* thread index it is shown with, or PC_NONE */
	uint32_t display;	 /* payload object (processed `display`), or PC_NONE */
	int64_t *time;		 /* ns */
	double *count;
	double *number; /* NULL: no sample had a number */
	uint32_t len, cap;
};

struct pc_counter_table {
	struct pc_counter *rows;
	uint32_t len, cap;
};

struct pc_page {
	uint64_t tab_id;
	uint64_t inner_window_id;
	uint64_t embedder_inner_window_id; /* 0: none */
	const char *url;		   /* kept */
	int8_t is_private;		   /* -1 absent, 0, 1 */
	const char *favicon;		   /* kept or NULL */
};

struct pc_page_table {
	struct pc_page *rows;
	uint32_t len, cap;
};

/*
 * Contexts (FrameBlamer): a context object is (scope, id, pid); a context
 * is (type, object); a context set is a sorted, interned list of contexts,
 * the set active on a thread when a sample or a marker began.  Snapshots
 * give an object's properties from a time on (payload objects).  Rows are
 * insertion-ordered; set 0 is the empty set once any set exists.
 */
struct pc_context_tables {
	const char **obj_scope; /* kept */
	const char **obj_id;	/* kept, exactly as written */
	int64_t *obj_pid;
	uint32_t nobj, obj_cap;
	struct pc_itab obj_index;
	const char **ctx_type; /* kept */
	uint32_t *ctx_obj;
	uint32_t nctx, ctx_cap;
	struct pc_itab ctx_index;
	/* members of set i: set_members[set_start[i] .. set_start[i + 1]) */
	uint32_t *set_start; /* nsets + 1 entries once allocated */
	uint32_t *set_members;
	uint32_t nsets, sets_cap, nmembers, members_cap;
	struct pc_itab set_index;
	uint32_t *snap_obj;
	int64_t *snap_time;   /* ns */
	uint32_t *snap_props; /* payload object root */
	uint32_t nsnap, snap_cap;
};

/*
 * meta.extra as the front-end shows it (profile-info panel): sections with
 * a label and entries {label, format, value}.  Entries keep their order;
 * a section appears where its first entry is.
 */
struct pc_extra_entry {
	const char *section; /* kept */
	const char *label;   /* kept */
	const char *format;  /* a marker field format: "string", "integer", ... */
	uint32_t value;	     /* payload node (a scalar root) */
};

struct pc_meta {
	/* ---- what every producer has ---- */
	int64_t interval_ns;   /* sampling interval */
	int64_t zero_ns;       /* input clock value of profile time 0 */
	int64_t start_time_ns; /* wall clock (Unix epoch ns) of time 0; 0 if unknown */
	int has_start_time;
	int64_t profiling_start; /* ns relative to zero, or PC_NO_TIME */
	int64_t profiling_end;
	int symbolicated;
	/* Kept strings (pc_meta_keep), NULL if unknown. */
	const char *platform;	 /* "Linux", "Windows", "Macintosh", "Android", ... */
	const char *oscpu;	 /* OS and CPU description, e.g. "Linux 6.1.0-13-amd64" */
	const char *abi;	 /* e.g. "x86_64-gcc3", or an architecture name */
	const char *cpu_name;	 /* CPU model name */
	uint64_t main_memory;	 /* bytes, 0 = unknown */
	const char *unit_time;	     /* sampleUnits.time ("ms", "bytes") or NULL */
	const char *unit_event_delay; /* sampleUnits.eventDelay or NULL */
	const char *unit_cpu_delta;   /* sampleUnits.threadCPUDelta ("ns", "µs", ...) or NULL */
	/* Owned strings (pc_meta_set), NULL if unknown. */
	char *product;	     /* the producing application, e.g. "Firefox", "perf" */
	char *imported_from; /* the input format a converter read, e.g. "perf.data" */
	uint32_t logical_cpus;
	uint32_t physical_cpus; /* 0 = unknown */
	/* ---- generic: everything else a producer recorded ---- */
	struct pc_extra_entry *extra; /* meta.extra entries, in order */
	uint32_t nextra, extra_cap;
	/*
	 * Other meta members, in input order (payload object root, or PC_NONE):
	 * a JSON reader keeps here what it does not map to a field above, and
	 * writers write them after their own (skipping members they write).
	 */
	uint32_t more;
};

struct pc_model {
	struct profconv_ctx *ctx;
	/*
	 * Set by a reader whose markers rarely have causes or context sets (a
	 * Chrome trace: millions of markers, none with a cause): a thread's
	 * cause_stack, cause_time, cause_tid and context_set columns are only
	 * allocated once one of its markers needs them (24 bytes a marker).
	 * Code that indexes them checks for NULL; pc_model_markers_full()
	 * allocates them all (symbolication rewrites cause stacks in place).
	 */
	int lean_markers;
	struct pc_meta meta;
	struct pc_strtab strings;
	struct pc_lib_table libs;
	struct pc_category *categories; /* owned */
	uint32_t ncategories, categories_cap;
	struct pc_resource_table resources;
	struct pc_func_table funcs;
	struct pc_native_symbol_table native_symbols;
	struct pc_source_table sources;
	struct pc_frame_table frames;
	struct pc_stack_table stacks;
	struct pc_thread **threads; /* owned; pointers stay stable while adding */
	uint32_t nthreads, threads_cap;
	struct pc_itab thread_index; /* by (pid, tid) */
	struct pc_process_table processes;
	struct pc_payloads pv;		/* every payload value */
	struct pc_schema_table schemas; /* meta.markerSchema */
	struct pc_counter_table counters;
	struct pc_page_table pages;
	struct pc_context_tables contexts;
	/* After symbolication: old func row -> new func row (PC_NONE: split or gone). */
	uint32_t *func_map;
	uint32_t func_map_len;
	/* Strings kept for the model's lifetime (pc_model_keep()). */
	char **kept;
	uint32_t nkept, kept_cap;
	const char *reader; /* static: the registry name of the reader that filled it */
	/*
	 * Optional: while set, called after each frame row is added, on the
	 * thread that adds it.  The symbol prefetch (pc_symprep_start()) uses
	 * it to learn which libs the frames need while a reader is still
	 * reading; it must not change the model.
	 */
	void (*frame_hook)(void *user, const struct pc_model *m, uint32_t row);
	void *frame_hook_user;
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
/*
 * Intern "0x" and the lower-case hex digits of v (no leading zeros), for a
 * caller that knows it has not asked for v before (the perf reader's frame
 * table): unless another call made a string starting with "0x", the row is
 * added without a lookup, and entered in the index only when a lookup of
 * a string starting with "0x" could find it.  Its index or PC_NONE.
 */
uint32_t pc_str_add_hex(struct pc_model *m, uint64_t v);
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

/*
 * Append a func (frame) row without looking for it, for a caller that knows
 * no equal row exists (the perf reader, which keeps its own index of the
 * frames it made): the row is entered in the table's index only at the next
 * lookup (intern, append or rebuild), all such rows at once, so a reader
 * that never looks up pays for no index.  The frame hook is called as for
 * pc_frame_intern().  Row or PC_NONE (OOM).
 */
uint32_t pc_func_add_new(struct pc_model *m, const struct pc_func_key *k);
uint32_t pc_frame_add_new(struct pc_model *m, const struct pc_frame_key *k);

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

/*
 * Sort each thread's samples (and markers by start time) stably by time;
 * cheap when already sorted.  Called by readers before returning.
 */
int pc_model_sort_threads(struct pc_model *m);
/*
 * pc_model_sort_threads() after taking zero from every sample's time and
 * every marker's start and end (pc_time_sub(); PC_NO_TIME stays), each
 * thread's on the thread that sorts it.
 */
int pc_model_shift_sort_threads(struct pc_model *m, int64_t zero);
/*
 * pc_model_shift_sort_threads() for a part of each thread: its samples
 * (PC_SORT_SAMPLES), its markers (PC_SORT_MARKERS) or both, on the
 * caller's thread alone with PC_SORT_ONE_THREAD.  A reader whose samples
 * are done before its markers sorts them first (the Chrome reader, while
 * its flows' binding runs on a second thread), then the markers.
 */
#define PC_SORT_SAMPLES 1u
#define PC_SORT_MARKERS 2u
#define PC_SORT_ONE_THREAD 4u
int pc_model_shift_sort_part(struct pc_model *m, int64_t zero, unsigned what);

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
/*
 * The same for funcs, deferred: the index is dropped now and built at the
 * next func lookup (as pc_func_add_new() rows are), with the same result
 * as pc_func_index_rebuild() then; nothing is paid when no lookup comes.
 */
void pc_func_index_defer(struct pc_model *m);


/*
 * ---------------------------------------------------------------------
 * Format-neutral API (payloads, processes, schemas, markers, counters,
 * pages, contexts, sample columns, meta).  Implemented in model/payload.c
 * and model/tables.c.
 * ---------------------------------------------------------------------
 */

/* --- model-internal (the model sources only) --- */
uint32_t pc_strtab_intern(struct profconv_ctx *ctx, struct pc_strtab *t, const char *s,
			  size_t len);
void pc_strtab_free(struct profconv_ctx *ctx, struct pc_strtab *t);
int pc_thread_index_add(struct pc_model *m, const struct pc_thread *t, uint32_t idx);
void pc_model_free_tables(struct pc_model *m);

/* --- processes --- */
/* Add a process (pid must be new; see pc_process_find).  Row or PC_NONE (OOM). */
uint32_t pc_process_add(struct pc_model *m, int64_t pid);
/* The process with this pid, or PC_NONE. */
uint32_t pc_process_find(const struct pc_model *m, int64_t pid);
/* Find or add. */
uint32_t pc_process_get(struct pc_model *m, int64_t pid);
/* Record a mapping of lib in process proc.  0 or error. */
int pc_process_add_mapping(struct pc_model *m, uint32_t proc, uint32_t lib, uint64_t start,
			   uint64_t end, uint64_t offset);
/* Sort a process's mappings by start (stable).  0 or error. */
int pc_process_sort_maps(struct pc_model *m, uint32_t proc);
/*
 * pc_thread_add() attaches the thread to the process of its pid (adding
 * the process when new) and indexes it by (pid, tid).  A thread whose tid
 * equals its pid becomes the process's main thread unless one is set.
 * The thread with (pid, tid), or NULL:
 */
struct pc_thread *pc_thread_find(const struct pc_model *m, int64_t pid, int64_t tid);
/*
 * Sort m->threads with cmp (a qsort comparator over struct pc_thread *
 * elements), keeping the (pid, tid) index, the processes' main threads and
 * the counters' threads pointing at the same threads.  0 or error.
 */
int pc_model_sort_thread_list(struct pc_model *m, int (*cmp)(const void *, const void *));
/*
 * A reader that learns a thread's ids after adding it passes PC_NO_PID to
 * pc_thread_add() (no process, not indexed) and sets them here: the thread
 * joins the process of pid (added when new) and the (pid, tid) index.
 * Also for changing ids.  0 or error.
 */
#define PC_NO_PID INT64_MIN
int pc_thread_set_ids(struct pc_model *m, struct pc_thread *t, int64_t pid, int64_t tid);
/* The same with an explicit order: new thread i is old thread order[i]
 * (order is a permutation of 0..nthreads-1). */
int pc_model_permute_threads(struct pc_model *m, const uint32_t *order);
/* Index of thread t in m->threads, or PC_NONE. */
uint32_t pc_thread_index(const struct pc_model *m, const struct pc_thread *t);

/* --- payload values --- */
/* Text of a payload text row (NUL-terminated; len may be NULL). */
const char *pc_pv_text(const struct pc_model *m, uint32_t row, size_t *len);
/* Intern text into the payload text table; PC_NONE on OOM. */
uint32_t pc_pv_text_intern(struct pc_model *m, const char *s, size_t len);
/* The member of object node obj named key, or PC_NONE. */
uint32_t pc_pv_member(const struct pc_model *m, uint32_t obj, const char *key);
/* A scalar as text for messages and summaries ("" for containers). */
size_t pc_pv_scalar_text(const struct pc_model *m, uint32_t node, char *buf, size_t size);

static inline const struct pc_val *pc_pv(const struct pc_model *m, uint32_t i)
{
	return &m->pv.nodes[i];
}

/*
 * Building a payload: begin, then values (each preceded by pc_pvb_key()
 * inside objects), then end.  Errors (OOM, too deep, misuse) are latched
 * and pc_pvb_end() returns PC_NONE with the ctx error set.  Nodes are
 * appended to the arena, so one builder per model is open at a time.
 */
#define PC_PV_MAX_DEPTH 64
struct pc_pvb {
	struct pc_model *m;
	uint32_t root;
	uint32_t open[PC_PV_MAX_DEPTH]; /* open containers, innermost last */
	uint32_t depth;
	uint32_t key; /* pending member name (text row) or PC_NONE */
	int err;
};
/* Start a payload whose root is an object (arr 0) or an array (arr 1). */
void pc_pvb_begin(struct pc_pvb *b, struct pc_model *m, int arr);
/* Start a payload whose root is one scalar (then call one value function). */
void pc_pvb_begin_scalar(struct pc_pvb *b, struct pc_model *m);
void pc_pvb_key(struct pc_pvb *b, const char *k, size_t len);
void pc_pvb_key_z(struct pc_pvb *b, const char *k);
/* The same with a text row already interned (pc_pv_text_intern()): no lookup. */
void pc_pvb_key_row(struct pc_pvb *b, uint32_t row);
void pc_pvb_str_row(struct pc_pvb *b, uint32_t row);
void pc_pvb_null(struct pc_pvb *b);
void pc_pvb_bool(struct pc_pvb *b, int v);
void pc_pvb_int(struct pc_pvb *b, int64_t v);
void pc_pvb_dbl(struct pc_pvb *b, double v); /* non-finite becomes null */
void pc_pvb_num(struct pc_pvb *b, const char *literal, size_t len);
void pc_pvb_str(struct pc_pvb *b, const char *s, size_t len);
void pc_pvb_str_z(struct pc_pvb *b, const char *s); /* NULL writes null */
void pc_pvb_sref(struct pc_pvb *b, uint32_t string_row);
void pc_pvb_cause(struct pc_pvb *b);
void pc_pvb_obj_begin(struct pc_pvb *b);
void pc_pvb_obj_end(struct pc_pvb *b);
void pc_pvb_arr_begin(struct pc_pvb *b);
void pc_pvb_arr_end(struct pc_pvb *b);
/* Copy the subtree at node (of this model) as the next value. */
void pc_pvb_copy(struct pc_pvb *b, uint32_t node);
/*
 * Copy n members of an object, with their keys, as members of the open
 * object: the nodes first .. first + span - 1 (n subtrees one after the
 * other), appended in one go.  The same nodes as n pc_pvb_key_row() and
 * pc_pvb_copy() calls.
 */
void pc_pvb_copy_members(struct pc_pvb *b, uint32_t first, uint32_t n, uint32_t span);
/* n members of the open object, member i keyed by text row keys[i] with the
 * string-table reference rows[i]: as n pc_pvb_key_row() and pc_pvb_sref(). */
void pc_pvb_srefs(struct pc_pvb *b, const uint32_t *keys, const uint32_t *rows, uint32_t n);
/* Close the root; returns its node, or PC_NONE after an error. */
uint32_t pc_pvb_end(struct pc_pvb *b);
/* A one-node payload: a string scalar (PC_NONE on OOM). */
uint32_t pc_pv_new_str(struct pc_model *m, const char *s);

/* --- marker schemas --- */
/* Add a schema; one of the same name is ignored (the first wins, as the
 * front-end merges by name).  Returns the row (the existing one if so). */
uint32_t pc_schema_add(struct pc_model *m, const char *name, uint32_t body);
uint32_t pc_schema_find(const struct pc_model *m, const char *name);
/* The format of field key in schema row ("unique-string", ...), or NULL. */
const char *pc_schema_field_format(const struct pc_model *m, uint32_t schema, const char *key);
struct pc_schema_field {
	const char *key, *label, *format;
	int hidden;
};
/*
 * Build and add a schema from C: display locations (NULL-terminated), the
 * fields, and optional labels (NULL: absent).  Row or PC_NONE.
 */
uint32_t pc_schema_add_simple(struct pc_model *m, const char *name, const char *const *display,
			      const struct pc_schema_field *fields, uint32_t nfields,
			      const char *tooltip_label, const char *table_label,
			      const char *chart_label, const char *description);

/* --- markers --- */
#define PC_NO_TID INT64_MIN
struct pc_marker_row {
	uint32_t name;	      /* string */
	int64_t start;	      /* ns or PC_NO_TIME */
	int64_t end;	      /* ns or PC_NO_TIME */
	uint8_t phase;	      /* enum pc_marker_phase */
	uint16_t category;    /* category index */
	uint32_t payload;     /* payload object root, or PC_NONE (null data) */
	uint32_t cause_stack; /* stack row, or PC_NONE: no cause */
	int64_t cause_time;   /* ns or PC_NO_TIME */
	int64_t cause_tid;    /* or PC_NO_TID */
	uint32_t context_set; /* context set row or PC_NONE */
};
/* A row with every optional field null (name 0, category 0, instant). */
void pc_marker_row_init(struct pc_marker_row *r);
/* Give every thread's markers their cause and context columns (see lean_markers).  0 or error. */
int pc_model_markers_full(struct pc_model *m);
int pc_marker_push(struct pc_model *m, struct pc_thread *t, const struct pc_marker_row *r);
/* The time a marker sorts by: its start, else its end. */
static inline int64_t pc_marker_sort_time(const struct pc_markers *k, uint32_t i)
{
	return k->start[i] != PC_NO_TIME ? k->start[i] : k->end[i];
}

/* --- counters --- */
/* Add a counter; returns its index or PC_NONE. */
uint32_t pc_counter_add(struct pc_model *m, const char *name, const char *category,
			const char *description, uint32_t process);
/* Append a sample; has_number 0: no number (null where others have one). */
int pc_counter_sample(struct pc_model *m, uint32_t counter, int64_t time, double count,
		      int has_number, double number);

/* --- pages --- */
uint32_t pc_page_add(struct pc_model *m, const struct pc_page *p);

/* --- contexts --- */
uint32_t pc_ctxobj_intern(struct pc_model *m, const char *scope, const char *id, int64_t pid);
uint32_t pc_context_intern(struct pc_model *m, const char *type, uint32_t obj);
/* Intern the set of n contexts (any order, duplicates dropped).  Row or PC_NONE. */
uint32_t pc_ctxset_intern(struct pc_model *m, const uint32_t *ctxs, uint32_t n);
/* Members of a set (sorted by context row); returns their count. */
uint32_t pc_ctxset_members(const struct pc_model *m, uint32_t set, const uint32_t **members);
int pc_ctxsnap_add(struct pc_model *m, uint32_t obj, int64_t time, uint32_t props);

/* --- optional sample columns --- */
/*
 * Set an optional column for the sample just added (row len - 1).  The
 * column is allocated on first use, earlier rows getting its null.
 */
int pc_sample_set_cpu_delta(struct pc_model *m, struct pc_thread *t, int64_t delta);
int pc_sample_set_event_delay(struct pc_model *m, struct pc_thread *t, int64_t delay_ns);
int pc_sample_set_context_set(struct pc_model *m, struct pc_thread *t, uint32_t set);

/* --- meta --- */
/* Set a kept meta string (a copy; NULL clears).  0 or error. */
int pc_meta_keep(struct pc_model *m, const char **field, const char *s);
/* Add an extra entry with a string value.  0 or error. */
int pc_meta_extra_str(struct pc_model *m, const char *section, const char *label,
		      const char *value);
/* Add an extra entry whose value is a payload root (a scalar). */
int pc_meta_extra_add(struct pc_model *m, const char *section, const char *label,
		      const char *format, uint32_t value);
/* Remove every category (before loading a list; the caller adds "Other" or its own). */
void pc_model_clear_categories(struct pc_model *m);
/* Append a subcategory to category cat; its index or PC_NO_CATEGORY. */
uint16_t pc_model_add_subcategory(struct pc_model *m, uint16_t cat, const char *name);
/* Append a paused range to a thread.  0 or error. */
int pc_thread_add_paused(struct pc_model *m, struct pc_thread *t, int64_t start, int64_t end,
			 const char *reason);

#endif /* PC_MODEL_H */
