/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jw.c - the streaming JSON writer (see pc_jw.h).
 *
 * Output goes through a 64 KiB buffer to the profconv_write_fn; a string or
 * raw piece larger than the buffer is passed to the sink directly.
 *
 * Commas: st[d] holds the state of the container open at depth d (depth 0
 * is the document itself): F_OBJ when it is an object, F_COMMA once it holds
 * an element, so the next element is preceded by ','.  After a key,
 * key_pending says the next value belongs to it and takes no comma.
 *
 * Errors: the first sink failure (PROFCONV_ERR_IO) or misuse
 * (PROFCONV_ERR_INTERNAL) is latched in w->err and recorded in the ctx; every
 * later call returns at once, and pc_jw_finish() returns it.
 *
 * Strings are escaped on unsigned bytes: '"', '\\' and the control bytes
 * (\b \f \n \r \t short, the rest as \u00XX); DEL and valid UTF-8 are copied
 * as they are, in runs.  An ill-formed UTF-8 sequence is replaced by one
 * U+FFFD per maximal subpart (Unicode 15, section 3.9, "U+FFFD Substitution
 * of Maximal Subparts", the practice of the WHATWG decoder): overlong forms,
 * surrogates, code points above U+10FFFF, stray continuation bytes and
 * truncated sequences.  Runs of plain bytes are found 16 bytes at a time
 * with SSE2 (x86-64's baseline), 8 at a time (in a 64-bit word) elsewhere;
 * PC_JW_SCALAR forces the latter (tests/unit/test_jw_scalar.c).  Strings
 * of fewer than 16 bytes are checked as two words that overlap, and one
 * that needs no escape is written where it is called (keys with their
 * comma, quotes and colon at once); a '"' or '\\' is escaped without
 * leaving the 16-byte loop.
 *
 * Integers below 100 come from a table of their digits and count; larger
 * ones are computed 8 digits at a time in the lanes of one 64-bit word
 * (swar8()), stored whole with their leading zeros shifted out.  Big-endian
 * targets and PC_JW_SCALAR write two digits at a time from a table of
 * digit pairs, their length known first (from the bit length).  Times
 * (ns as ms) take their six decimals as two groups of three from a table
 * of 1,000 that holds each group's count once trailing zeros are trimmed.
 *
 * Numbers never go through printf except doubles that are not integers
 * below 1e15, which use snprintf under a private "C" locale (uselocale), so
 * a host's setlocale() cannot turn the decimal point into a comma.
 *
 * A writer made by pc_jw_new_elems() has no ctx and is used by one thread
 * (a writer's helper formatting part of an array); its errors stay in it.
 */
#include "json/pc_jw.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SSE2__) && !defined(PC_JW_SCALAR)
#include <emmintrin.h>
#define PC_JW_SSE2 1
#else
#define PC_JW_SSE2 0
#endif

/* fmt_ns_ms() inlined in the bulk loop whatever the compiler's estimate */
#if defined(__GNUC__)
#define JW_INLINE __attribute__((always_inline))
#else
#define JW_INLINE
#endif

#define BUF_SIZE  (64 * 1024)
#define DIRECT_MIN (16 * 1024) /* pc_jw_raw_elems() hands blocks this big to the sink */
#define ELEM_MAX  32 /* room one bulk element may need: ',' + the longest token */
#define TOKEN_MAX 16 /* longest none_json / repeated token */

enum {
	F_COMMA = 1, /* the container already holds an element */
	F_OBJ = 2,   /* the container is an object */
};

struct pc_jw {
	struct profconv_ctx *ctx; /* NULL: an element writer (pc_jw_new_elems()) */
	profconv_write_fn *fn;
	void *user;
	uint64_t replaced; /* strings with invalid UTF-8 replaced */
	uint64_t flushed;  /* bytes handed to the sink so far (pc_jw_tell()) */
	locale_t c_locale; /* made on the first pc_jw_double(); (locale_t)0 until then */
	size_t len;	   /* bytes used in buf */
	int err;	   /* latched first error */
	unsigned depth;	   /* open containers */
	int key_pending;   /* a key was written; its value comes next */
	uint64_t ms_hi;	   /* fmt_ns_ms()'s last ms / 100 (UINT64_MAX: none yet) */
	size_t ms_hi_len;  /* and its digits */
	char ms_hi_txt[24];
	uint8_t st[PC_JW_MAX_DEPTH + 1];
	char buf[BUF_SIZE];
};

static const char digits2[] = "00010203040506070809"
			      "10111213141516171819"
			      "20212223242526272829"
			      "30313233343536373839"
			      "40414243444546474849"
			      "50515253545556575859"
			      "60616263646566676869"
			      "70717273747576777879"
			      "80818283848586878889"
			      "90919293949596979899";

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(PC_JW_SCALAR)
#define PC_JW_SWAR 1
#else
#define PC_JW_SWAR 0
#endif

#if PC_JW_SWAR
/*
 * The 8 decimal digits of v (< 10^8, leading zeros included) as the values
 * 0 to 9 in the 8 bytes of a word, the most significant digit in the lowest
 * byte (stored little-endian, it comes first), computed in lanes of one
 * word: v splits into two 4-digit halves (32-bit lanes), each into two
 * pairs (16-bit lanes: x * 10486 >> 20 is x / 100 for x < 10^4), each pair
 * into two digits (8-bit lanes: x * 103 >> 10 is x / 10 for x < 100).  No
 * lane's product reaches the next lane, so one multiplication serves all.
 */
static inline uint64_t swar8(uint32_t v)
{
	uint64_t hi = v / 10000, x = hi | ((uint64_t)(v - (uint32_t)hi * 10000) << 32);
	uint64_t q = ((x * 10486) >> 20) & 0x0000007f0000007fu;

	x = q | ((x - q * 100) << 16);
	q = ((x * 103) >> 10) & 0x000f000f000f000fu;
	return q | ((x - q * 10) << 8);
}

/* The 8 digits of v (< 10^8), leading zeros included, at p (8 bytes). */
static inline char *fmt_8(char *p, uint64_t v)
{
	uint64_t x = swar8((uint32_t)v) + 0x3030303030303030u;

	memcpy(p, &x, 8);
	return p + 8;
}

/*
 * 0 to 99: the digits, then as the fourth byte their count (copied 4
 * bytes at a time, the count past the end is written over).
 */
#define SMALL2_1(i) { '0' + (i), 0, 0, 1 }
#define SMALL2_2(i, j) { '0' + (i), '0' + (j), 0, 2 }
#define SMALL2_10(i)                                                                         \
	SMALL2_2(i, 0), SMALL2_2(i, 1), SMALL2_2(i, 2), SMALL2_2(i, 3), SMALL2_2(i, 4),       \
		SMALL2_2(i, 5), SMALL2_2(i, 6), SMALL2_2(i, 7), SMALL2_2(i, 8), SMALL2_2(i, 9)
static const char small2[100][4] = {
	SMALL2_1(0), SMALL2_1(1), SMALL2_1(2), SMALL2_1(3), SMALL2_1(4),
	SMALL2_1(5), SMALL2_1(6), SMALL2_1(7), SMALL2_1(8), SMALL2_1(9),
	SMALL2_10(1), SMALL2_10(2), SMALL2_10(3), SMALL2_10(4), SMALL2_10(5),
	SMALL2_10(6), SMALL2_10(7), SMALL2_10(8), SMALL2_10(9),
};

/*
 * Decimal digits of v at p; returns the end.  Below 100 from small2[];
 * else the 8 digits of the last 8, whose leading zeros (the low zero
 * bytes of the digit word: its trailing zero bits / 8) are shifted out
 * before the word is stored whole; p needs room for 10 bytes (the bytes
 * past the end are left over, written over by what follows).
 */
static inline char *fmt_u32(char *p, uint32_t v)
{
	uint64_t x;
	unsigned z;

	if (v < 100) {
		memcpy(p, small2[v], 4);
		return p + small2[v][3];
	}
	if (PC_UNLIKELY(v >= 100000000)) { /* 9 or 10 digits */
		uint32_t hi = v / 100000000; /* 1 to 42 */

		memcpy(p, digits2 + 2 * hi + (hi < 10), 2);
		return fmt_8(p + 1 + (hi >= 10), v - hi * 100000000);
	}
	x = swar8(v);
	z = (unsigned)__builtin_ctzll(x) & ~7u; /* v >= 100: x is not 0 */
	x = (x + 0x3030303030303030u) >> z;
	memcpy(p, &x, 8);
	return p + 8 - (z >> 3);
}

/* The same for 64-bit values (p needs room for 24 bytes). */
static inline char *fmt_u64(char *p, uint64_t v)
{
	uint64_t hi;

	if (v <= UINT32_MAX)
		return fmt_u32(p, (uint32_t)v);
	hi = v / 100000000; /* v >= 2^32: hi >= 42 */
	if (hi >= 100000000) {
		uint64_t top = hi / 100000000; /* at most 1844 */

		p = fmt_u32(p, (uint32_t)top);
		p = fmt_8(p, hi - top * 100000000);
	} else {
		p = fmt_u32(p, (uint32_t)hi);
	}
	return fmt_8(p, v - hi * 100000000);
}
#else
/*
 * Number of decimal digits of v (1 for 0): the bit length gives the count
 * up to one (1233 / 4096 is just above log10(2)), a comparison with the
 * power of ten settles it.  pow10_64[0] is 0 so that 0 counts one digit.
 */
static const uint64_t pow10_64[20] = {
	0,
	10u,
	100u,
	1000u,
	10000u,
	100000u,
	1000000u,
	10000000u,
	100000000u,
	1000000000u,
	10000000000u,
	100000000000u,
	1000000000000u,
	10000000000000u,
	100000000000000u,
	1000000000000000u,
	10000000000000000u,
	100000000000000000u,
	1000000000000000000u,
	10000000000000000000u,
};

static inline unsigned ndigits32(uint32_t v)
{
	unsigned t = (unsigned)(32 - __builtin_clz(v | 1)) * 1233 >> 12;

	return t + 1 - (v < pow10_64[t]);
}

static inline unsigned ndigits64(uint64_t v)
{
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - (v < pow10_64[t]);
}

/*
 * Decimal digits of v at p; returns the end.  The length is known first,
 * so the digits go straight to their place, two at a time from the end
 * (no scratch buffer, no copy of a variable length).
 */
static inline char *fmt_u32(char *p, uint32_t v)
{
	char *e = p + ndigits32(v), *t = e;

	while (v >= 100) {
		uint32_t r = v % 100;

		v /= 100;
		t -= 2;
		memcpy(t, digits2 + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(t - 2, digits2 + 2 * v, 2);
	else
		t[-1] = (char)('0' + v);
	return e;
}

/* The same for 64-bit values (p needs room for 20 bytes). */
static inline char *fmt_u64(char *p, uint64_t v)
{
	char *e, *t;

	if (v <= UINT32_MAX)
		return fmt_u32(p, (uint32_t)v);
	e = p + ndigits64(v);
	t = e;
	while (v > UINT32_MAX) { /* 64-bit divisions only while needed */
		uint32_t r = (uint32_t)(v % 100);

		v /= 100;
		t -= 2;
		memcpy(t, digits2 + 2 * r, 2);
	}
	fmt_u32(p, (uint32_t)v); /* the leading digits end exactly at t */
	return e;
}
#endif

static inline char *fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_u64(p, 0 - (uint64_t)v); /* INT64_MIN included */
	}
	return fmt_u64(p, (uint64_t)v);
}

/*
 * The decimals of a fraction from 000 to 999: its 3 digits and, as the
 * fourth byte, how many are left once trailing zeros are trimmed (0 for
 * 000): 120 -> "120" and 2.  Copied 4 bytes at a time, the count byte
 * past the digits is written over by what follows.
 */
#define FRAC3_E(i, j, k) { '0' + (i), '0' + (j), '0' + (k), (k) ? 3 : (j) ? 2 : (i) ? 1 : 0 }
#define FRAC3_10(i, j)                                                                         \
	FRAC3_E(i, j, 0), FRAC3_E(i, j, 1), FRAC3_E(i, j, 2), FRAC3_E(i, j, 3), FRAC3_E(i, j, 4), \
		FRAC3_E(i, j, 5), FRAC3_E(i, j, 6), FRAC3_E(i, j, 7), FRAC3_E(i, j, 8),          \
		FRAC3_E(i, j, 9)
#define FRAC3_100(i)                                                                          \
	FRAC3_10(i, 0), FRAC3_10(i, 1), FRAC3_10(i, 2), FRAC3_10(i, 3), FRAC3_10(i, 4),        \
		FRAC3_10(i, 5), FRAC3_10(i, 6), FRAC3_10(i, 7), FRAC3_10(i, 8), FRAC3_10(i, 9)
static const char frac3[1000][4] = {
	FRAC3_100(0), FRAC3_100(1), FRAC3_100(2), FRAC3_100(3), FRAC3_100(4),
	FRAC3_100(5), FRAC3_100(6), FRAC3_100(7), FRAC3_100(8), FRAC3_100(9),
};

/*
 * ns as ms: integer part, then up to 6 decimals with trailing zeros trimmed.
 * 1500000 -> "1.5", -1234500 -> "-1.2345", -500 -> "-0.0005".  At most 21 bytes.
 * The six decimals are two groups of three from frac3[]: both are stored
 * (the second over the first's count byte), and the length is the first's
 * count when the second is 000 (times in whole microseconds), else 3 and
 * the second's count; no branch on the digits.  The digits of ms / 100
 * are kept in w from one call to the next: times in a column are sorted,
 * so most share them with the one before (p needs room for 21 bytes past
 * the sign: the kept digits are copied 20 bytes at a time).
 */
static inline JW_INLINE char *fmt_ns_ms(struct pc_jw *w, char *p, int64_t ns)
{
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t ms = mag / 1000000;
	uint32_t frac = (uint32_t)(mag - ms * 1000000), hi, lo;

	*p = '-';
	p += ns < 0;
	if (ms >= 100) {
		uint64_t h = ms / 100;

		if (h != w->ms_hi) {
			w->ms_hi = h;
			w->ms_hi_len = (size_t)(fmt_u64(w->ms_hi_txt, h) - w->ms_hi_txt);
		}
		memcpy(p, w->ms_hi_txt, 20); /* p has room for 21 bytes */
		p += w->ms_hi_len;
		memcpy(p, digits2 + 2 * (ms - h * 100), 2);
		p += 2;
	} else {
		p = fmt_u32(p, (uint32_t)ms);
	}
	if (!frac)
		return p;
	hi = frac / 1000;
	lo = frac - hi * 1000;
	*p = '.';
	memcpy(p + 1, frac3[hi], 4);
	memcpy(p + 4, frac3[lo], 4);
	return p + 1 + (lo ? 3 + (unsigned)frac3[lo][3] : (unsigned)frac3[hi][3]);
}

/* An element writer has no ctx: its error is only latched (its owner redoes the work). */
static void latch(struct pc_jw *w, int code, const char *what)
{
	if (w->err)
		return;
	w->err = code;
	if (w->ctx)
		pc_fail(w->ctx, code, NULL, "%s", what);
}

static void misuse(struct pc_jw *w, const char *what)
{
	if (w->err)
		return;
	w->err = PROFCONV_ERR_INTERNAL;
	if (w->ctx)
		pc_fail(w->ctx, PROFCONV_ERR_INTERNAL, NULL, "JSON writer misuse: %s", what);
}

static void sink(struct pc_jw *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	w->flushed += n;
	if (w->fn(w->user, p, n))
		latch(w, PROFCONV_ERR_IO, "writing the output failed");
}

static void flush(struct pc_jw *w)
{
	size_t n = w->len;

	w->len = 0;
	sink(w, w->buf, n);
}

static void put_slow(struct pc_jw *w, const void *p, size_t n)
{
	flush(w);
	if (n >= BUF_SIZE) {
		sink(w, p, n);
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

/* Inlined where it is called, so that a copy of a constant length is a store or two. */
static inline void put(struct pc_jw *w, const void *p, size_t n)
{
	if (PC_UNLIKELY(n > BUF_SIZE - w->len)) {
		put_slow(w, p, n);
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

/*
 * Room for n (< BUF_SIZE) bytes at the end of the buffer, flushed first if
 * need be: where to write them, or NULL after an error.
 */
static inline char *reserve(struct pc_jw *w, size_t n)
{
	if (PC_UNLIKELY(n > BUF_SIZE - w->len)) {
		flush(w);
		if (w->err)
			return NULL;
	}
	return w->buf + w->len;
}

static inline void put1(struct pc_jw *w, char c)
{
	if (w->len == BUF_SIZE)
		flush(w);
	w->buf[w->len++] = c;
}

/* Room for one bulk element at p; returns where to write, or NULL after an error. */
static inline char *room(struct pc_jw *w, char *p)
{
	if (PC_UNLIKELY(p > w->buf + BUF_SIZE - ELEM_MAX)) {
		w->len = (size_t)(p - w->buf);
		flush(w);
		if (w->err)
			return NULL;
		p = w->buf;
	}
	return p;
}

/* Comma and state bookkeeping before a value; non-zero when the value must not be written. */
static inline int begin_value(struct pc_jw *w)
{
	uint8_t *s = &w->st[w->depth];

	if (w->err)
		return -1;
	if (w->key_pending) {
		w->key_pending = 0;
		return 0;
	}
	if (*s & F_OBJ) {
		misuse(w, "a value inside an object without a key");
		return -1;
	}
	if (*s & F_COMMA) {
		if (!w->depth) {
			misuse(w, "a second top-level value");
			return -1;
		}
		put1(w, ',');
	}
	*s |= F_COMMA;
	return 0;
}

/*
 * Length of the well-formed UTF-8 sequence at p (lead byte >= 0x80), or 0
 * with *bad set to the length of its maximal ill-formed subpart (>= 1).
 * Second-byte ranges from Unicode Table 3-7 exclude overlongs (E0, F0),
 * surrogates (ED) and code points above U+10FFFF (F4).
 */
static size_t utf8_seq(const unsigned char *p, size_t avail, size_t *bad)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t need, k;

	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		*bad = 1;
		return 0;
	}
	for (k = 1; k <= need; k++) {
		if (k >= avail || p[k] < lo || p[k] > hi) {
			*bad = k;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* 0: copied as is; 1: escaped; 2: start of a multi-byte sequence (or invalid). */
static const uint8_t byte_class[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10 */
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x60 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x70: DEL raw */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0x80 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0x90 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xa0 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xb0 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xc0 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xd0 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xe0 */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xf0 */
};

static void put_escape(struct pc_jw *w, unsigned c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	switch (c) {
	case '"':
		put(w, "\\\"", 2);
		break;
	case '\\':
		put(w, "\\\\", 2);
		break;
	case '\b':
		put(w, "\\b", 2);
		break;
	case '\f':
		put(w, "\\f", 2);
		break;
	case '\n':
		put(w, "\\n", 2);
		break;
	case '\r':
		put(w, "\\r", 2);
		break;
	case '\t':
		put(w, "\\t", 2);
		break;
	default:
		put(w, e, 6);
		break;
	}
}

#define ONES  0x0101010101010101u
#define HIGHS 0x8080808080808080u

/*
 * Non-zero when one of the 8 bytes of x may need more than a copy (a
 * control byte, '"', '\\' or a byte >= 0x80).  A byte below 0x20 or equal
 * to '"' or '\\' borrows in its subtraction; a borrow only carries out of
 * such a byte, so the word is flagged exactly when one of its bytes is.
 */
static inline uint64_t special8(uint64_t x)
{
	uint64_t q = x ^ (ONES * '"'), b = x ^ (ONES * '\\');

	return ((x - ONES * 0x20) | (q - ONES) | (b - ONES) | x) & HIGHS;
}

/* The same for the 4 bytes of x. */
static inline uint32_t special4(uint32_t x)
{
	uint32_t q = x ^ (0x01010101u * '"'), b = x ^ (0x01010101u * '\\');

	return ((x - 0x20202020u) | (q - 0x01010101u) | (b - 0x01010101u) | x) & 0x80808080u;
}

#if PC_JW_SSE2
/*
 * The 16 bytes at p, and in *mask one bit per byte that may need more than
 * a copy: '"', '\\', or below 0x20 or at least 0x80 (both are below 0x20
 * as signed bytes).
 */
static inline __m128i load16(const unsigned char *p, unsigned *mask)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
				 _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));

	m = _mm_or_si128(m, _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
	*mask = (unsigned)_mm_movemask_epi8(m);
	return x;
}
#endif

/*
 * Index of the first byte at or after i that needs care, or len: 16 bytes
 * at a time with SSE2, 8 without.
 */
static inline size_t skip_plain(const unsigned char *p, size_t i, size_t len)
{
#if PC_JW_SSE2
	for (; i + 16 <= len; i += 16) {
		unsigned m;

		load16(p + i, &m);
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#else
	for (; i + 8 <= len; i += 8) {
		uint64_t x;

		memcpy(&x, p + i, 8);
		if (special8(x))
			break;
	}
#endif
	while (i < len && !byte_class[p[i]])
		i++;
	return i;
}

/* The second byte of a two-byte escape ("\\n"), or 0: written as \u00XX. */
static const char short_esc[0x60] = {
	['"'] = '"', ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
};

/*
 * string_rest()'s work when the buffer has room for the worst case (every
 * byte left 6 bytes long, and the quote): straight into the buffer, runs of
 * plain bytes copied 16 at a time with SSE2 (blocks stored before they are
 * checked, within the room), no check per byte written.  Returns the end.
 */
static char *escape_into(char *d, const unsigned char *p, size_t i, size_t len, int *replaced)
{
	static const char hex[] = "0123456789abcdef";
	size_t n, bad;

	for (;;) {
		unsigned c;

#if PC_JW_SSE2
		/*
		 * A '"' or '\\' (JSON text in a string has many) is escaped
		 * here, and the next block starts after it.
		 */
		while (i + 16 <= len) {
			unsigned m, k;
			__m128i x = load16(p + i, &m);

			_mm_storeu_si128((__m128i *)(void *)d, x);
			if (!m) {
				i += 16;
				d += 16;
				continue;
			}
			k = (unsigned)__builtin_ctz(m);
			c = p[i + k];
			if (c != '"' && c != '\\') {
				i += k;
				d += k;
				break;
			}
			d[k] = '\\';
			d[k + 1] = (char)c;
			i += k + 1;
			d += k + 2;
		}
#endif
		while (i < len && !byte_class[p[i]])
			*d++ = (char)p[i++];
		if (i == len)
			break;
		c = p[i];
		if (byte_class[c] == 1) {
			if (short_esc[c]) {
				d[0] = '\\';
				d[1] = short_esc[c];
				d += 2;
			} else {
				memcpy(d, "\\u00", 4);
				d[4] = hex[c >> 4];
				d[5] = hex[c & 15];
				d += 6;
			}
			i++;
			continue;
		}
		n = utf8_seq(p + i, len - i, &bad);
		if (n) {
			d[0] = (char)p[i]; /* n is 2 to 4 */
			d[1] = (char)p[i + 1];
			if (n > 2)
				d[2] = (char)p[i + 2];
			if (n > 3)
				d[3] = (char)p[i + 3];
			d += n;
			i += n;
			continue;
		}
		memcpy(d, "\xef\xbf\xbd", 3); /* U+FFFD */
		d += 3;
		i += bad;
		*replaced = 1;
	}
	*d++ = '"';
	return d;
}

/*
 * The body of a string from p[i] on (its opening quote and p[0..i) are
 * written), escaped, and its closing quote.  When the worst case fits in
 * the buffer (after a flush if need be), escape_into() writes it; longer
 * strings take the general path, which puts runs and escapes one by one.
 */
static void string_rest(struct pc_jw *w, const unsigned char *p, size_t i, size_t len)
{
	size_t run, n, bad;
	int replaced = 0;

	if (len - i < (BUF_SIZE - 1) / 6) {
		size_t need = (len - i) * 6 + 1;

		if (need > BUF_SIZE - w->len)
			flush(w);
		if (need <= BUF_SIZE - w->len) {
			char *d = escape_into(w->buf + w->len, p, i, len, &replaced);

			w->len = (size_t)(d - w->buf);
			w->replaced += (uint64_t)replaced;
			return;
		}
	}
	run = i;
	while ((i = skip_plain(p, i, len)) < len) {
		if (byte_class[p[i]] == 1) {
			put(w, p + run, i - run);
			put_escape(w, p[i]);
			run = ++i;
			continue;
		}
		n = utf8_seq(p + i, len - i, &bad);
		if (n) {
			i += n;
			continue;
		}
		put(w, p + run, i - run);
		put(w, "\xef\xbf\xbd", 3); /* U+FFFD */
		i += bad;
		run = i;
		replaced = 1;
	}
	put(w, p + run, i - run);
	put1(w, '"');
	w->replaced += (uint64_t)replaced;
}

/*
 * The body of a string of fewer than 16 bytes at d, and its closing quote,
 * when none of its bytes needs care: returns the end, else NULL (bytes
 * may have been written at d).  From 4 bytes on two words that overlap,
 * or meet, cover it: no loop over its bytes.  d needs room for 17 bytes.
 */
static inline char *plain_short(char *d, const unsigned char *p, size_t len)
{
	if (len >= 8) {
		uint64_t a, b;

		memcpy(&a, p, 8);
		memcpy(&b, p + len - 8, 8);
		if (special8(a) | special8(b))
			return NULL;
		memcpy(d, &a, 8);
		memcpy(d + len - 8, &b, 8);
	} else if (len >= 4) {
		uint32_t a, b;

		memcpy(&a, p, 4);
		memcpy(&b, p + len - 4, 4);
		if (special4(a) | special4(b))
			return NULL;
		memcpy(d, &a, 4);
		memcpy(d + len - 4, &b, 4);
	} else {
		size_t i;

		for (i = 0; i < len; i++) {
			if (byte_class[p[i]])
				return NULL;
			d[i] = (char)p[i];
		}
	}
	d[len] = '"';
	return d + len + 1;
}

/*
 * A string: when it fits in the buffer, its bytes are copied 16 (SSE2) or
 * 8 at a time while no block holds a byte that needs care; from the first
 * such byte on (or when it does not fit) string_rest() goes on.  Blocks are
 * stored before they are checked: bytes past the first special one are
 * beyond w->len and written over later.  Strings of fewer than 16 bytes
 * that need no care are written by put_string(), inlined where it is
 * called.
 */
static void put_string_long(struct pc_jw *w, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s; /* never classify plain char */
	size_t i = 0;
	char *d;

	if (PC_UNLIKELY(len + 2 > BUF_SIZE - w->len)) {
		put1(w, '"');
		string_rest(w, p, 0, len);
		return;
	}
	d = w->buf + w->len;
	*d++ = '"';
#if PC_JW_SSE2
	if (len >= 16) {
		unsigned m;
		__m128i x;

		for (; i + 16 <= len; i += 16) {
			x = load16(p + i, &m);
			_mm_storeu_si128((__m128i *)(void *)(d + i), x);
			if (m) {
				i += (size_t)__builtin_ctz(m);
				goto special;
			}
		}
		if (i < len) { /* the last 16 bytes, overlapping those checked */
			size_t j = len - 16;

			x = load16(p + j, &m);
			_mm_storeu_si128((__m128i *)(void *)(d + j), x);
			m >>= i - j;
			if (m) {
				i += (size_t)__builtin_ctz(m);
				goto special;
			}
		}
		d[len] = '"';
		w->len += len + 2;
		return;
	}
#endif
	for (; i + 8 <= len; i += 8) {
		uint64_t x;

		memcpy(&x, p + i, 8);
		if (special8(x))
			break;
		memcpy(d + i, &x, 8);
	}
	for (; i < len && !byte_class[p[i]]; i++)
		d[i] = (char)p[i];
	if (i == len) {
		d[len] = '"';
		w->len += len + 2;
		return;
	}
#if PC_JW_SSE2
special:
#endif
	w->len += i + 1;
	string_rest(w, p, i, len);
}

static inline void put_string(struct pc_jw *w, const char *s, size_t len)
{
	if (len < 16 && BUF_SIZE - w->len >= 18) {
		char *d = w->buf + w->len, *e = plain_short(d + 1, (const unsigned char *)s, len);

		if (e) {
			*d = '"';
			w->len = (size_t)(e - w->buf);
			return;
		}
	}
	put_string_long(w, s, len);
}

struct pc_jw *pc_jw_new(struct profconv_ctx *ctx, profconv_write_fn *fn, void *user)
{
	struct pc_jw *w = pc_alloc(ctx, sizeof(*w));

	if (!w)
		return NULL;
	w->ctx = ctx;
	w->fn = fn;
	w->user = user;
	w->replaced = 0;
	w->flushed = 0;
	w->c_locale = (locale_t)0;
	w->ms_hi = UINT64_MAX;
	w->ms_hi_len = 0;
	memset(w->ms_hi_txt, 0, sizeof(w->ms_hi_txt));
	w->len = 0;
	w->err = 0;
	w->depth = 0;
	w->key_pending = 0;
	memset(w->st, 0, sizeof(w->st));
	return w;
}

struct pc_jw *pc_jw_new_elems(profconv_write_fn *fn, void *user)
{
	struct pc_jw *w = malloc(sizeof(*w));

	if (!w)
		return NULL;
	w->ctx = NULL;
	w->fn = fn;
	w->user = user;
	w->c_locale = (locale_t)0;
	w->ms_hi = UINT64_MAX;
	w->ms_hi_len = 0;
	memset(w->ms_hi_txt, 0, sizeof(w->ms_hi_txt));
	w->err = 0;
	pc_jw_elems_reset(w);
	return w;
}

void pc_jw_elems_reset(struct pc_jw *w)
{
	w->replaced = 0;
	w->flushed = 0;
	w->len = 0;
	w->err = 0;
	w->key_pending = 0;
	memset(w->st, 0, sizeof(w->st));
	w->depth = 1; /* inside the array the elements belong to */
}

int pc_jw_elems_flush(struct pc_jw *w)
{
	if (!w->err && (w->depth != 1 || w->key_pending))
		misuse(w, "elements ended inside an open object or array");
	flush(w);
	return w->err;
}

void pc_jw_free(struct pc_jw *w)
{
	if (!w)
		return;
	if (w->c_locale != (locale_t)0)
		freelocale(w->c_locale);
	if (w->ctx)
		pc_free(w->ctx, w);
	else
		free(w);
}

int pc_jw_finish(struct pc_jw *w)
{
	int err;

	if (!w)
		return PROFCONV_ERR_NOMEM; /* pc_jw_new() failed */
	if (!w->err && (w->depth || w->key_pending))
		misuse(w, "the document ended inside an open object or array");
	if (!w->err && (w->st[0] & F_COMMA))
		put1(w, '\n');
	flush(w);
	err = w->err;
	pc_jw_free(w);
	return err;
}

static void open_container(struct pc_jw *w, char c, uint8_t flags)
{
	if (begin_value(w))
		return;
	if (w->depth == PC_JW_MAX_DEPTH) {
		misuse(w, "nesting deeper than PC_JW_MAX_DEPTH");
		return;
	}
	put1(w, c);
	w->st[++w->depth] = flags;
}

static void close_container(struct pc_jw *w, char c, uint8_t obj)
{
	if (w->err)
		return;
	if (w->key_pending) {
		misuse(w, "a container closed after a key without its value");
		return;
	}
	if (!w->depth || (w->st[w->depth] & F_OBJ) != obj) {
		misuse(w, obj ? "object end without a matching begin" :
				"array end without a matching begin");
		return;
	}
	w->depth--;
	put1(w, c);
}

void pc_jw_obj_begin(struct pc_jw *w)
{
	open_container(w, '{', F_OBJ);
}

void pc_jw_obj_end(struct pc_jw *w)
{
	close_container(w, '}', F_OBJ);
}

void pc_jw_arr_begin(struct pc_jw *w)
{
	open_container(w, '[', 0);
}

void pc_jw_arr_end(struct pc_jw *w)
{
	close_container(w, ']', 0);
}

void pc_jw_key(struct pc_jw *w, const char *k)
{
	pc_jw_key_n(w, k, k ? strlen(k) : 0);
}

void pc_jw_key_n(struct pc_jw *w, const char *k, size_t len)
{
	uint8_t *s = &w->st[w->depth];
	int comma;

	if (w->err)
		return;
	if (!(*s & F_OBJ) || w->key_pending || !k) {
		misuse(w, "a key outside an object, after another key, or NULL");
		return;
	}
	comma = (*s & F_COMMA) != 0;
	*s |= F_COMMA;
	w->key_pending = 1;
	if (len < 16 && BUF_SIZE - w->len >= 20) { /* ',', the quoted key, ':' at once */
		char *d = w->buf + w->len, *e;

		*d = ',';
		d += comma;
		*d = '"';
		e = plain_short(d + 1, (const unsigned char *)k, len);
		if (e) {
			*e++ = ':';
			w->len = (size_t)(e - w->buf);
			return;
		}
	}
	if (comma)
		put1(w, ',');
	put_string_long(w, k, len);
	put1(w, ':');
}

void pc_jw_str(struct pc_jw *w, const char *s, size_t len)
{
	if (begin_value(w))
		return;
	if (!s)
		put(w, "null", 4);
	else
		put_string(w, s, len);
}

void pc_jw_str_z(struct pc_jw *w, const char *s)
{
	if (begin_value(w))
		return;
	if (!s)
		put(w, "null", 4);
	else
		put_string(w, s, strlen(s));
}

/* Integers and times are formatted straight into the buffer. */
void pc_jw_i64(struct pc_jw *w, int64_t v)
{
	char *p;

	if (begin_value(w) || !(p = reserve(w, 24)))
		return;
	w->len = (size_t)(fmt_i64(p, v) - w->buf);
}

void pc_jw_u64(struct pc_jw *w, uint64_t v)
{
	char *p;

	if (begin_value(w) || !(p = reserve(w, 24)))
		return;
	w->len = (size_t)(fmt_u64(p, v) - w->buf);
}

void pc_jw_bool(struct pc_jw *w, int v)
{
	if (begin_value(w))
		return;
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void pc_jw_null(struct pc_jw *w)
{
	if (begin_value(w))
		return;
	put(w, "null", 4);
}

void pc_jw_ns_ms(struct pc_jw *w, int64_t ns)
{
	char *p;

	if (begin_value(w) || !(p = reserve(w, 32)))
		return;
	w->len = (size_t)(fmt_ns_ms(w, p, ns) - w->buf);
}

/*
 * Shortest of %.15g, %.16g, %.17g that reads back as v (%.17g always does),
 * printed and read under the "C" locale whatever the host's setlocale().
 */
void pc_jw_double(struct pc_jw *w, double v)
{
	char b[40];
	locale_t old;
	int prec, n = 0;

	if (begin_value(w))
		return;
	if (!isfinite(v)) {
		put(w, "null", 4);
		return;
	}
	/*
	 * An integer below 1e15 in magnitude: %.15g prints its digits (the
	 * exponent is below the precision), which read back exactly.  -0 is
	 * left to snprintf ("-0").
	 */
	if (v > -1e15 && v < 1e15) {
		int64_t i = (int64_t)v;

		if ((double)i == v && (i || !signbit(v))) {
			put(w, b, (size_t)(fmt_i64(b, i) - b));
			return;
		}
	}
	if (w->c_locale == (locale_t)0) {
		w->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
		if (w->c_locale == (locale_t)0) {
			latch(w, PROFCONV_ERR_NOMEM, "JSON writer: cannot create the C locale");
			return;
		}
	}
	old = uselocale(w->c_locale);
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(b, sizeof(b), "%.*g", prec, v);
		if (strtod(b, NULL) == v)
			break;
	}
	uselocale(old);
	if (n <= 0 || (size_t)n >= sizeof(b)) {
		misuse(w, "double formatting failed");
		return;
	}
	put(w, b, (size_t)n);
}

void pc_jw_raw(struct pc_jw *w, const char *json, size_t len)
{
	if (begin_value(w))
		return;
	if (!json || !len)
		put(w, "null", 4); /* never leave an empty value */
	else
		put(w, json, len);
}

uint64_t pc_jw_replaced(const struct pc_jw *w)
{
	return w->replaced;
}

uint64_t pc_jw_tell(const struct pc_jw *w)
{
	return w->flushed + w->len;
}

size_t pc_jw_since(const struct pc_jw *w, uint64_t from, const char **s)
{
	uint64_t to = w->flushed + w->len;
	const char *p;
	size_t n;

	*s = NULL;
	if (w->err || from < w->flushed || from >= to)
		return 0;
	p = w->buf + (from - w->flushed);
	n = (size_t)(to - from);
	if (*p == ',') {
		p++;
		n--;
	}
	*s = p;
	return n;
}

void pc_jw_raw_elems(struct pc_jw *w, const char *json, size_t len)
{
	uint8_t *s = &w->st[w->depth];

	if (w->err || !len)
		return;
	if (w->key_pending || !w->depth || (*s & F_OBJ)) {
		misuse(w, "elements outside an array");
		return;
	}
	if (*s & F_COMMA)
		put1(w, ',');
	*s |= F_COMMA;
	if (len >= DIRECT_MIN) {
		/* a helper job's elements: to the sink as they are, not copied first */
		flush(w);
		sink(w, json, len);
		return;
	}
	put(w, json, len);
}

/*
 * Bulk elements.  Each function checks once that an array is open, then
 * formats every element straight into the buffer, in runs: before each run
 * it works out how many elements fit in what is left of the buffer (ELEM_MAX
 * bytes each, flushing first when not one does), and the run's loop writes
 * ',' and the element with no other test.
 */
static int bulk_begin(struct pc_jw *w, size_t n, size_t token_len, int *comma, char **p)
{
	uint8_t *s = &w->st[w->depth];

	if (w->err || !n)
		return -1;
	if (w->key_pending || !w->depth || (*s & F_OBJ)) {
		misuse(w, "bulk elements outside an array");
		return -1;
	}
	if (token_len > TOKEN_MAX) {
		misuse(w, "bulk token too long");
		return -1;
	}
	*comma = *s & F_COMMA;
	*s |= F_COMMA;
	*p = w->buf + w->len;
	return 0;
}

/* The buffer flushed to make room at p: its start, or NULL after an error. */
static char *bulk_flush(struct pc_jw *w, char *p)
{
	w->len = (size_t)(p - w->buf);
	flush(w);
	return w->err ? NULL : w->buf;
}

/*
 * The loop of a bulk writer: ELEM writes element i at p (with room for
 * ELEM_MAX - 1 bytes) and moves p past it.  Each run is as many elements
 * as fit in what is left of the buffer (flushed first when not one does).
 * When the array holds no element yet, the first one is written without a
 * comma before the run's loop.
 */
#define BULK_LOOP(w, p, comma, n, ELEM)                                             \
	do {                                                                        \
		size_t i_ = 0, end_, fit_;                                          \
		while (i_ < (n)) {                                                  \
			fit_ = (size_t)(w->buf + BUF_SIZE - p) / ELEM_MAX;          \
			if (PC_UNLIKELY(!fit_)) {                                   \
				p = bulk_flush(w, p);                               \
				if (!p)                                             \
					return;                                     \
				continue;                                           \
			}                                                           \
			end_ = (n) - i_ < fit_ ? (n) : i_ + fit_;                   \
			if (!comma) {                                               \
				size_t i = i_++;                                    \
				comma = 1;                                          \
				ELEM;                                               \
			}                                                           \
			for (; i_ < end_; i_++) {                                   \
				size_t i = i_;                                      \
				*p++ = ',';                                         \
				ELEM;                                               \
			}                                                           \
		}                                                                   \
		w->len = (size_t)(p - w->buf);                                      \
	} while (0)

/* The none token, padded to TOKEN_MAX bytes so that it is copied whole. */
static inline size_t bulk_token(const char *none_json, char tok[TOKEN_MAX])
{
	size_t tl = none_json ? strlen(none_json) : 0;

	memset(tok, 0, TOKEN_MAX);
	if (none_json && tl <= TOKEN_MAX) /* (memcpy from NULL would let none_json be assumed set) */
		memcpy(tok, none_json, tl);
	return tl;
}

#define PUT_TOKEN(p, tok, tl)                   \
	do {                                    \
		memcpy(p, tok, TOKEN_MAX);      \
		p += tl;                        \
	} while (0)

void pc_jw_u32s(struct pc_jw *w, const uint32_t *v, size_t n, uint32_t none,
		const char *none_json)
{
	char tok[TOKEN_MAX], *p;
	size_t tl = bulk_token(none_json, tok);
	int comma;

	if (bulk_begin(w, n, tl, &comma, &p))
		return;
	if (!none_json)
		BULK_LOOP(w, p, comma, n, p = fmt_u32(p, v[i]));
	else
		BULK_LOOP(w, p, comma, n, if (v[i] == none) PUT_TOKEN(p, tok, tl);
			  else p = fmt_u32(p, v[i]));
}

void pc_jw_u16s(struct pc_jw *w, const uint16_t *v, size_t n, uint16_t none,
		const char *none_json)
{
	char tok[TOKEN_MAX], *p;
	size_t tl = bulk_token(none_json, tok);
	int comma;

	if (bulk_begin(w, n, tl, &comma, &p))
		return;
	if (!none_json)
		BULK_LOOP(w, p, comma, n, p = fmt_u32(p, v[i]));
	else
		BULK_LOOP(w, p, comma, n, if (v[i] == none) PUT_TOKEN(p, tok, tl);
			  else p = fmt_u32(p, v[i]));
}

void pc_jw_u64s(struct pc_jw *w, const uint64_t *v, size_t n, uint64_t none,
		const char *none_json)
{
	char tok[TOKEN_MAX], *p;
	size_t tl = bulk_token(none_json, tok);
	int comma;

	if (bulk_begin(w, n, tl, &comma, &p))
		return;
	BULK_LOOP(w, p, comma, n,
		  if (none_json && v[i] == none) PUT_TOKEN(p, tok, tl);
		  else if (v[i] <= UINT32_MAX) p = fmt_u32(p, (uint32_t)v[i]);
		  else p = fmt_u64(p, v[i]));
}

void pc_jw_i64s(struct pc_jw *w, const int64_t *v, size_t n)
{
	int comma;
	char *p;

	if (bulk_begin(w, n, 0, &comma, &p))
		return;
	BULK_LOOP(w, p, comma, n, p = fmt_i64(p, v[i]));
}

void pc_jw_u8s(struct pc_jw *w, const uint8_t *v, size_t n)
{
	int comma;
	char *p;

	if (bulk_begin(w, n, 0, &comma, &p))
		return;
	BULK_LOOP(w, p, comma, n, p = fmt_u32(p, v[i]));
}

void pc_jw_bools(struct pc_jw *w, const uint8_t *v, size_t n)
{
	int comma;
	char *p;

	if (bulk_begin(w, n, 0, &comma, &p))
		return;
	/* "true" and "false" stored 8 bytes at a time, the length chosen after */
	BULK_LOOP(w, p, comma, n, memcpy(p, v[i] ? "true\0\0\0\0" : "false\0\0\0", 8);
		  p += v[i] ? 4 : 5);
}

void pc_jw_ns_ms_s(struct pc_jw *w, const int64_t *v, size_t n, int64_t none,
		   const char *none_json)
{
	char tok[TOKEN_MAX], *p;
	size_t tl = bulk_token(none_json, tok);
	int comma;

	if (bulk_begin(w, n, tl, &comma, &p))
		return;
	if (!none_json)
		BULK_LOOP(w, p, comma, n, p = fmt_ns_ms(w, p, v[i]));
	else
		BULK_LOOP(w, p, comma, n, if (v[i] == none) PUT_TOKEN(p, tok, tl);
			  else p = fmt_ns_ms(w, p, v[i]));
}

void pc_jw_ns_ms_deltas(struct pc_jw *w, const int64_t *v, size_t n)
{
	pc_jw_ns_ms_deltas_from(w, v, n, 0);
}

void pc_jw_ns_ms_deltas_from(struct pc_jw *w, const int64_t *v, size_t n, int64_t prev)
{
	int comma;
	char *p;

	if (bulk_begin(w, n, 0, &comma, &p))
		return;
	BULK_LOOP(w, p, comma, n, p = fmt_ns_ms(w, p, v[i] - prev); prev = v[i]);
}

/*
 * The token n times: ",token" repeated in a block of about 256 bytes,
 * copied whole as often as it fits (the first element's comma left out as
 * in BULK_LOOP).
 */
void pc_jw_raw_repeat(struct pc_jw *w, const char *json, size_t len, size_t n)
{
	char block[256], *p;
	size_t per, k;
	int comma;

	if (!json || !len) {
		if (!w->err)
			misuse(w, "empty repeated token");
		return;
	}
	if (bulk_begin(w, n, len, &comma, &p))
		return;
	per = 256 / (len + 1); /* len <= TOKEN_MAX: at least 15 */
	for (k = 0; k < per; k++) {
		block[k * (len + 1)] = ',';
		memcpy(block + k * (len + 1) + 1, json, len);
	}
	if (!comma) {
		if (!(p = room(w, p)))
			return;
		memcpy(p, json, len);
		p += len;
		n--;
	}
	while (n) {
		size_t m = (size_t)(w->buf + BUF_SIZE - p) / (len + 1); /* elements that fit */

		if (!m) {
			w->len = (size_t)(p - w->buf);
			flush(w);
			if (w->err)
				return;
			p = w->buf;
			continue;
		}
		if (m > n)
			m = n;
		n -= m;
		while (m) {
			size_t c = m < per ? m : per;

			memcpy(p, block, c * (len + 1));
			p += c * (len + 1);
			m -= c;
		}
	}
	w->len = (size_t)(p - w->buf);
}
