/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_gbuf.h - the Gecko buffer dump reader's private state, shared by
 * read_gecko_buffer.c (the PGKB container and its side tables) and
 * gbuf_decode.c (the buffer: blocks, samples, frames, markers).
 */
#ifndef PC_GBUF_H
#define PC_GBUF_H

#include "gecko/pc_pgkb.h"
#include "readers/pc_reader.h"

/* Entry kinds, by name (the dump's KIND table maps its tags onto these). */
enum gb_kind {
	GK_NONE = 0,
	GK_CATEGORY_PAIR,
	GK_COLLECTION_START,
	GK_COLLECTION_END,
	GK_LABEL,
	GK_FRAME_FLAGS,
	GK_DYNAMIC_STRING_FRAGMENT,
	GK_JIT_RETURN_ADDR,
	GK_INNER_WINDOW_ID,
	GK_SOURCE_ID,
	GK_LINE_NUMBER,
	GK_COLUMN_NUMBER,
	GK_NATIVE_LEAF_ADDR,
	GK_PAUSE,
	GK_RESUME,
	GK_PAUSE_SAMPLING,
	GK_RESUME_SAMPLING,
	GK_RESPONSIVENESS,
	GK_THREAD_ID,
	GK_TIME,
	GK_TIME_BEFORE_COMPACT_STACK,
	GK_TIME_BEFORE_SAME_SAMPLE,
	GK_COUNTER_ID,
	GK_NUMBER,
	GK_COUNT,
	GK_OVERHEAD_TIME,
	GK_OVERHEAD_DURATION,
	GK_MARKER,
	GK_RUNNING_TIMES,
	GK_UNRESPONSIVE_DURATION_MS,
	GK_COMPACT_STACK,
	GK_SAME_SAMPLE,
	GK_COUNT_OF_KINDS
};

struct gb_str {
	uint64_t addr;
	const char *s;
	size_t len;
};

struct gb_sym {
	uint64_t off; /* lib-relative, as frame addresses */
	uint32_t size;
	const char *name;
	size_t len;
};

struct gb_lib {
	uint64_t start, end, offset;
	uint32_t lib; /* model lib row */
	const struct gb_sym *syms; /* SYMS for this mapping (sorted by off), or NULL */
	uint32_t nsyms;
};

/* JITF: a JIT return address and its frames (innermost first) in jitfr */
struct gb_jit {
	uint64_t addr;
	uint32_t first, count;
};

struct gb_jit_frame {
	const char *label;
	size_t len;
	uint32_t line, column, pair;
};

struct gb_field {
	const char *key;
	size_t key_len;
	const char *label, *format; /* kept, for the schema */
	uint8_t type, flags;
};

struct gb_mtype {
	const char *name;
	size_t name_len;
	int complete;
	struct gb_field *fields;
	uint32_t nfields;
};

struct gb_thread {
	uint64_t tid;
	const char *name;
	size_t name_len;
	int is_main;
	double register_ms; /* THRD's register_ms (0 when unknown or not a sane time) */
};

struct gb_tstate {
	uint64_t tid;
	struct pc_thread *t;
	uint32_t last_stack; /* PC_NONE: none yet */
	int has_last;
};

struct gb_counter {
	uint64_t ptr;
	const char *label, *category, *description;
	uint32_t row; /* model counter, PC_NONE until used */
};

/* One frame being collected (root first). */
struct gb_frame {
	uint8_t kind; /* GK_NATIVE_LEAF_ADDR, GK_LABEL, GK_JIT_RETURN_ADDR */
	uint64_t addr; /* address, or label pointer */
	uint64_t flags;
	uint64_t inner_window_id;
	uint32_t source_id, line, column, pair;
	int has_source, has_pair;
	uint32_t dyn_off, dyn_len; /* in gb.dyn */
};

struct gb {
	struct profconv_ctx *ctx;
	struct pc_model *m;
	const char *path;
	unsigned char *file;
	size_t flen;
	unsigned ptr_size, tid_size, ts_size;
	/* META */
	uint64_t pid, start_ticks;
	double ticks_per_ms, epoch_ms, interval_ms;
	int start_estimated;
	uint32_t proc;
	/* KIND */
	uint8_t kind_of_tag[256];
	/* CATS: pair -> (category, subcategory) */
	uint16_t *pair_cat, *pair_sub;
	uint32_t npairs;
	/* STRS, sorted by address */
	struct gb_str *strs;
	uint32_t nstrs;
	/* LIBS, sorted by start */
	struct gb_lib *libs;
	uint32_t nlibs;
	/* SYMS (the rows the libs point to) */
	struct gb_sym *syms;
	uint32_t nsyms;
	/* JITF, sorted by address */
	struct gb_jit *jit;
	uint32_t njit;
	struct gb_jit_frame *jitfr;
	uint32_t njitfr;
	/* THRD */
	struct gb_thread *thr;
	uint32_t nthr;
	/* MTYP: (payload type, tag) -> index + 1 into mtypes */
	uint16_t mtype_ix[2][256];
	struct gb_mtype *mtypes;
	uint32_t nmtypes;
	/* CNTR */
	struct gb_counter *counters;
	uint32_t ncounters;
	/* BUFR */
	const unsigned char *bufr;
	size_t bufr_len;
	uint64_t bufr_off; /* file offset of bufr, for messages */
	/* decoding */
	struct gb_tstate *ts;
	uint32_t nts, ts_cap;
	uint32_t *ts_slots; /* open addressing by tid: index + 1, 0 empty */
	uint32_t ts_mask;
	uint32_t *lib_of_path; /* LIBS: string row of a path -> model lib row */
	uint32_t lib_of_path_cap;
	struct gb_frame *fr;
	uint32_t nfr, fr_cap;
	char *dyn;
	uint32_t dyn_len, dyn_cap;
	int64_t *paused; /* pairs start, end (ns); reason in paused_reason */
	const char **paused_reason;
	uint32_t npaused, paused_cap;
	/* counts for info and checks */
	uint64_t blocks, samples, markers, kind_count[GK_COUNT_OF_KINDS];
	/* counted damage */
	uint64_t w_unknown_tag, w_unresolved, w_untyped, w_fields, w_jit, w_cut, w_same_nostack,
		w_overrun, w_stray, w_counter, w_meta, w_window, w_color, w_mtime;
};

/* gbuf_decode.c */
int gb_decode(struct gb *g);
/* read_gecko_buffer.c */
const struct gb_str *gb_find_str(const struct gb *g, uint64_t addr);
const struct gb_lib *gb_find_lib(const struct gb *g, uint64_t addr);
const struct gb_jit *gb_find_jit(const struct gb *g, uint64_t addr);
struct gb_counter *gb_find_counter(struct gb *g, uint64_t ptr);
struct gb_tstate *gb_thread(struct gb *g, uint64_t tid);
int gb_nomem(struct gb *g);

#endif /* PC_GBUF_H */
