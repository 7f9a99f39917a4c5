/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_core.h - the context, errors, diagnostics, the allocator and byte loads.
 *
 * Everything in the library allocates through pc_alloc()/pc_realloc()/
 * pc_free(), which count bytes against ctx->mem_limit; a size read from a
 * file is always checked against what remains of its container before it
 * reaches the allocator.  Failures are recorded with pc_fail(), which formats
 * "FILE: offset 0x1234: what was expected" into the context and returns the
 * code, so call sites read "return pc_fail(...)".  The first error wins.
 *
 * Recoverable damage goes through pc_warn(): each kind is counted, the first
 * occurrence of a kind is reported, and in strict mode pc_warn() fails.
 *
 * core/ depends on nothing else in the tree.
 */
#ifndef PC_CORE_H
#define PC_CORE_H

#include "pc_config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profconv.h"

#define PC_NONE	   UINT32_MAX /* null row index */
#define PC_NO_TIME INT64_MIN  /* null time */

/*
 * The largest inner window id: Gecko makes them 53 bits wide
 * (nsContentUtils' process-specific ids) so that JS numbers hold them
 * exactly; readers drop larger ones (0: no window) and validate rejects them.
 */
#define PC_MAX_WINDOW_ID ((UINT64_C(1) << 53) - 1)

#if defined(__GNUC__)
#define PC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PC_UNLIKELY(x)	__builtin_expect(!!(x), 0)
#else
#define PC_PRINTF(a, b)
#define PC_UNLIKELY(x) (x)
#endif

#define PC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PC_NO_OFFSET	 UINT64_MAX

/* One option a format declared (profconv_formats()), as set by the caller. */
struct pc_kv {
	char *key; /* owned, pc_alloc */
	char *value;
};

/*
 * The options object: everything profconv_set_option() sets, in one place,
 * so a job that runs on a context of its own (a symbolication worker) takes
 * a copy with pc_options_copy() instead of field by field.  The pipeline's
 * own options are fields; a format's options (declared in its registry
 * entry, checked against the declaration by src/api.c) are key/value text
 * that the format reads back with pc_opt().
 */
struct pc_options {
	char from[32];		/* reader name, or "" to detect */
	int symbols;		/* symbolicate while converting (library default: no) */
	int symbolicate_always; /* even when the input says it is symbolicated */
	char **symbol_dirs;	/* "symbol-dir", in order */
	unsigned nsymbol_dirs;
	char *kallsyms; /* "kallsyms" FILE, or NULL */
	int no_host_symbols; /* "host-symbols" "no": only symbol-dir and kallsyms */
	char *symbol_cache;  /* "symbol-cache" DIR: the persistent symbol cache, or NULL */
	char compress[8];    /* "compress": "" (auto, by the output's name), none, gzip, zstd */
	int no_threads;	     /* "threads" "no": no helper threads, all on the caller's */
	int input_map;	     /* "input-map" "yes": plain JSON files read through a mapping */
	struct pc_kv *fmt; /* format options, in the order first set */
	unsigned nfmt;
};

struct pc_warn_kind {
	const char *kind; /* static string, also the summary wording */
	uint64_t count;
	int code;	/* its stable code and identifier (pc_warn_code()) */
	const char *id;
};

#define PC_MAX_WARN_KINDS 32

struct profconv_ctx {
	char errmsg[1024];
	int status; /* first error, PROFCONV_OK if none */

	profconv_diag_fn *legacy_diag; /* profconv_set_diag(): called through diag2 */
	void *legacy_user;
	profconv_progress_fn *progress; /* profconv_set_progress() */
	void *progress_user;
	profconv_cancel_fn *cancel; /* profconv_set_cancel() */
	void *cancel_user;
	profconv_diagnostic_fn *diag2; /* the one diagnostics callback */
	void *diag2_user;
	/* where the first error was (profconv_last_error()) */
	char err_file[512];
	uint64_t err_offset;
	uint32_t err_line, err_col;
	int strict;
	int verbose;

	uint64_t mem_limit; /* bytes; 0 = none */
	uint64_t mem_used;
	uint64_t mem_peak;
	long fault_alloc; /* PC_FAULT_ALLOC: fail the N-th allocation (tests) */
	long alloc_count;

	struct pc_options opt;
	int no_kallsyms; /* this run: --kallsyms was given but is unusable */

	struct pc_warn_kind warns[PC_MAX_WARN_KINDS];
	unsigned nwarns;
	uint64_t warn_total;
	char summary[1024];
	/* The temporary output file being written ("" if none), for a signal
	 * handler to remove (profconv_pending_output()). */
	char pending_output[4200];
	/* What the library is doing, for messages that have no position
	 * ("reading X", "writing Y", "symbolicating"); NULL when idle. */
	char activity_buf[512];
	const char *activity;
	/* A symbol cache shared with other contexts (symbolicate/pc_symcache.h),
	 * or NULL; the context holds a reference, dropped by release. */
	void *symcache;
	void (*symcache_release)(void *symcache);
};

/* Location of a problem; pass NULL when there is none. */
struct pc_loc {
	const char *path; /* input name as the user gave it */
	uint64_t offset;  /* byte offset; PC_NO_OFFSET if unknown */
	uint32_t line;	  /* text input; 0 if unknown */
	uint32_t col;
};

/*
 * The pipeline's options of profconv_set_option() (from, symbols,
 * symbolicate, symbol-dir, kallsyms).  Returns 1 when key is not one of
 * them (src/api.c then looks in the format registries), 0 or an error.
 */
int pc_ctx_set_option(struct profconv_ctx *ctx, const char *key, const char *value);
/* Set a format option (already checked against its declaration). */
int pc_opt_put(struct profconv_ctx *ctx, const char *key, const char *value);
/* A format option's value, or NULL when it was not set. */
const char *pc_opt(const struct profconv_ctx *ctx, const char *key);
/* Deep copy of src's options into dst (allocated on dst); 0 or NOMEM. */
int pc_options_copy(struct profconv_ctx *dst, const struct profconv_ctx *src);

/* Record an error (the first one wins) and return code. */
int pc_fail(struct profconv_ctx *ctx, int code, const struct pc_loc *loc, const char *fmt, ...)
	PC_PRINTF(4, 5);
/* pc_fail() at path:offset. */
int pc_fail_at(struct profconv_ctx *ctx, int code, const char *path, uint64_t offset,
	       const char *fmt, ...) PC_PRINTF(5, 6);
/*
 * Count one occurrence of a warning kind (kind: a static string such as
 * "unknown records skipped"); the first of each kind is reported through the
 * diagnostics callback with its location.  Returns 0, or in strict mode
 * records the warning as an error and returns PROFCONV_ERR_STRICT.
 */
int pc_warn(struct profconv_ctx *ctx, const char *kind, const struct pc_loc *loc, const char *fmt,
	    ...) PC_PRINTF(4, 5);
/* Count n occurrences at once (n may be 0: nothing happens). */
int pc_warn_n(struct profconv_ctx *ctx, const char *kind, uint64_t n, const struct pc_loc *loc,
	      const char *fmt, ...) PC_PRINTF(5, 6);
/* Warning codes without a kind of their own (diag_codes.c). */
#define PC_WARN_VALIDATE 1000
#define PC_WARN_UNLISTED 1999
/* The stable code and identifier of a warning kind (docs/diagnostics.md). */
const char *pc_warn_code(const char *kind, int *code);

/* A validation problem (error) or warning with no kind: to the callbacks. */
int pc_diag_error(struct profconv_ctx *ctx, const char *msg);
int pc_diag_warning(struct profconv_ctx *ctx, const char *msg);
/*
 * The cancel callback (profconv_set_cancel()): PROFCONV_ERR_CANCELLED
 * (recorded at path:offset) when it asks to stop or has asked before on
 * this call, else 0.
 */
int pc_cancelled(struct profconv_ctx *ctx, const char *path, uint64_t offset);
/* Fill a caller's sized public struct (ctx.c); 0 or PROFCONV_ERR_USAGE. */
int pc_api_fill(void *out, const void *full, size_t full_size, size_t min);
/* Non-zero when some diagnostics callback is set. */
int pc_has_diag(const struct profconv_ctx *ctx);
/* A note, shown only when verbose. */
void pc_note(struct profconv_ctx *ctx, const char *fmt, ...) PC_PRINTF(2, 3);
/*
 * A ctx for a worker thread of one conversion (the caller's ctx is not
 * thread-safe): no callbacks, no memory limit (a worker's memory is bounded
 * by its design), strict as the parent.  pc_ctx_adopt() then moves what it
 * counted into the parent: its memory balance (blocks may change hands), its
 * warnings (counts; the first message of a kind becomes the kind's text),
 * and its error when the parent has none.  pc_ctx_worker() returns NULL
 * when out of memory; pc_ctx_adopt() returns the worker's error, else 0 (or
 * the strict-mode error of an adopted warning).
 */
struct profconv_ctx *pc_ctx_worker(const struct profconv_ctx *parent);
int pc_ctx_adopt(struct profconv_ctx *dst, struct profconv_ctx *worker);
/* Clear the error state (between independent operations on one ctx). */
void pc_clear_error(struct profconv_ctx *ctx);

/* Allocation, counted against the limit.  NULL on failure, with ctx error set. */
void *pc_alloc(struct profconv_ctx *ctx, size_t size);
void *pc_calloc(struct profconv_ctx *ctx, size_t n, size_t size);
/* Like realloc, but on failure the old block is untouched and NULL returned. */
void *pc_realloc(struct profconv_ctx *ctx, void *p, size_t size);
void pc_free(struct profconv_ctx *ctx, void *p);
/*
 * Uncounted scratch memory of len bytes (the output's write buffers),
 * taken from the mapping cache of freed big blocks when it has one that
 * fits (its pages are there already), else new (a slab's piece below
 * 2 MiB while there are slabs: ctx.c); not zeroed.  NULL on failure.
 * pc_map_realloc() grows a block of old bytes to len (copied; the old
 * block is freed unless NULL is returned); pc_map_free() takes the
 * block's latest len.  All are thread-safe.  pc_map_cache_flush() unmaps
 * what the cache holds and the rest of the current slab, and counts the
 * slabs from 0 again (the last profconv_ctx_free() calls it).
 */
#define PC_SLAB_MAX 8 /* the 2 MiB slabs cut before blocks get mappings of their own */
void *pc_map_alloc(size_t len);
void *pc_map_realloc(void *p, size_t old, size_t len);
void pc_map_free(void *p, size_t len);
void pc_map_cache_flush(void);
char *pc_strndup(struct profconv_ctx *ctx, const char *s, size_t len);
char *pc_strdup(struct profconv_ctx *ctx, const char *s);
/*
 * Grow *arr (element size elem) so that it holds at least need elements;
 * *cap is updated.  Returns 0 or PROFCONV_ERR_NOMEM (array untouched).
 */
int pc_grow(struct profconv_ctx *ctx, void **arr, size_t elem, uint32_t *cap, size_t need);

/* Overflow-checked a + b <= limit. */
static inline int pc_fits(uint64_t off, uint64_t len, uint64_t limit)
{
	return off <= limit && len <= limit - off;
}

/*
 * Saturating time arithmetic: times read from files can be anything, and
 * INT64_MIN is PC_NO_TIME, so results stay within (INT64_MIN, INT64_MAX].
 */
static inline int64_t pc_time_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r) || r == INT64_MIN)
		return a < b ? INT64_MIN + 1 : INT64_MAX;
	return r;
}

static inline int64_t pc_time_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r) || r == INT64_MIN)
		return b < 0 ? INT64_MIN + 1 : INT64_MAX;
	return r;
}

/* Byte loads from untrusted memory, in either byte order. */
static inline uint16_t pc_load_u16(const unsigned char *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t pc_load_u32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t pc_load_u64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* 64-bit mixing hash (splitmix finaliser). */
static inline uint64_t pc_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * A hash of len bytes for tables that compare the bytes too (it only has
 * to spread; nothing keeps it): four independent chains over 32 bytes at a
 * time, 8 bytes a step after, the last 1 to 7 bytes in one or two loads, no
 * byte loop.  Never 0 (callers keep 0 for "not worked out yet").  The
 * string index and the Chrome reader's memos and payload cache use it.
 */
static inline uint64_t pc_hash_mem(const void *p, size_t len)
{
	const char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	if (len >= 32) {
		/* four independent chains over 32 bytes at a time (one chain
		 * waited for each multiply: args texts are hundreds of bytes) */
		uint64_t a = h, b = h ^ 0x94d049bb133111ebULL, c = h ^ 0xbf58476d1ce4e5b9ULL,
			 d = h ^ 0xd6e8feb86659fd93ULL, w1, w2, w3;

		for (; len >= 32; s += 32, len -= 32) {
			memcpy(&w, s, 8);
			memcpy(&w1, s + 8, 8);
			memcpy(&w2, s + 16, 8);
			memcpy(&w3, s + 24, 8);
			a = (a ^ w) * 0xff51afd7ed558ccdULL;
			b = (b ^ w1) * 0xff51afd7ed558ccdULL;
			c = (c ^ w2) * 0xff51afd7ed558ccdULL;
			d = (d ^ w3) * 0xff51afd7ed558ccdULL;
			a ^= a >> 32;
			b ^= b >> 32;
			c ^= c >> 32;
			d ^= d >> 32;
		}
		h = (a ^ (b << 16 | b >> 48) ^ (c << 32 | c >> 32) ^ (d << 48 | d >> 16)) *
		    0xc4ceb9fe1a85ec53ULL;
		h ^= h >> 32;
	}
	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (len) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* the 1 to 7 bytes as memcpy() into a zeroed word puts them,
		 * from two loads that may overlap (a memcpy() of a variable
		 * length was a byte loop) */
		if (len >= 4) {
			uint32_t lo, hi;

			memcpy(&lo, s, 4);
			memcpy(&hi, s + len - 4, 4);
			w = (uint64_t)lo | (uint64_t)hi << (8 * (len - 4));
		} else {
			w = (uint64_t)(unsigned char)s[0] |
			    (uint64_t)(unsigned char)s[len / 2] << (8 * (len / 2)) |
			    (uint64_t)(unsigned char)s[len - 1] << (8 * (len - 1));
		}
#else
		w = 0;
		memcpy(&w, s, len);
#endif
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	return h ? h : 1;
}

/* FNV-1a-like hash over bytes, mixed at the end. */
uint64_t pc_hash_bytes(const void *p, size_t len, uint64_t seed);

/* Text output in pieces (info, validate summaries). */
struct pc_text_out {
	profconv_write_fn *fn;
	void *user;
	int err; /* latched: non-zero after the first failed write */
};
/* printf-style output to o (uses the C locale's formatting of integers). */
void pc_text_printf(struct pc_text_out *o, const char *fmt, ...) PC_PRINTF(2, 3);

/* Locale-independent formatting helpers. */
/* Writes the decimal form of v into buf (>= 21 bytes); returns the length. */
size_t pc_fmt_i64(char *buf, int64_t v);
size_t pc_fmt_u64(char *buf, uint64_t v);
/* Writes the lower-case hex digits of v (no "0x", no leading zeros) into
 * buf (>= 17 bytes), as "%" PRIx64 prints them; returns the length. */
size_t pc_fmt_hex(char *buf, uint64_t v);
/* Nanoseconds as milliseconds with up to 6 decimals, trailing zeros trimmed. */
size_t pc_fmt_ns_as_ms(char *buf, int64_t ns);
/* snprintf that never leaves buf unterminated; returns the length written. */
size_t pc_snprintf(char *buf, size_t size, const char *fmt, ...) PC_PRINTF(3, 4);

#endif /* PC_CORE_H */
