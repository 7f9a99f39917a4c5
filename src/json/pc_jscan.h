/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_jscan.h - a checking scanner over one small JSON text held in memory
 * (an event of a Chrome trace, which pc_jpull_raw_rest() hands over).
 *
 * It accepts exactly what the pull tokenizer (pc_jpull.h) accepts: RFC 8259
 * syntax, no raw control characters in strings, no leading zeros, nesting
 * up to a given depth.  It does not say why a text is invalid: a caller
 * that gets PC_JSCAN_BAD asks pc_jpull_recheck() for the FILE:LINE:COL
 * message the tokenizer would give.
 *
 * What it produces goes into one scratch buffer (out), reset per text, so
 * results are offsets into it, valid until the next pc_jscan_start():
 *
 *   strings  decoded: escapes and surrogate pairs; a lone surrogate becomes
 *            U+FFFD (as the tokenizer decodes it); other bytes, invalid
 *            UTF-8 included, are kept as they are (as cJSON keeps them);
 *            NUL-terminated; a "\u0000" escape makes an embedded NUL
 *   numbers  the double strtod() gives for the text, under the "C" locale
 *            (the tokenizer's and cJSON's value)
 *   values   printed as cJSON_PrintUnformatted() prints the value cJSON
 *            parses from them (pc_jscan_print()), so a reader that used to
 *            keep nested values as cJSON's text keeps the same bytes
 *            without building a cJSON tree
 */
#ifndef PC_JSCAN_H
#define PC_JSCAN_H

#include "core/pc_core.h"

#include <locale.h>

/*
 * String bodies are searched 16 bytes a step with SSE2 where the build
 * targets x86-64 (SSE2 is part of its baseline: no run-time check), 32 with
 * AVX2 where the CPU has it (checked at run time), else 8 with SWAR
 * arithmetic.  Loads stay inside [p, e): the tail of a text is searched
 * with the narrower steps, never past its end.  PROFCONV_SCALAR=1 in the
 * environment (read by pc_jscan_init()) or simd = 0 in a scanner keeps the
 * SWAR path; the tests run both on the same texts.
 */
#if defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define PC_JSCAN_SSE2 1
#include <emmintrin.h>
#endif

enum {
	PC_JSCAN_SCALAR = 0, /* SWAR, 8 bytes a step */
	PC_JSCAN_SSE2_LEVEL = 1,
	PC_JSCAN_AVX2_LEVEL = 2,
};
/*
 * The widest level this build and CPU can use, or PC_JSCAN_SCALAR when the
 * environment has PROFCONV_SCALAR set to a non-empty value other than "0".
 * Read once per call (getenv): callers keep the result.
 */
int pc_jscan_simd_level(void);

#define PC_JSCAN_BAD (-1) /* the text is not valid JSON (ask pc_jpull_recheck()) */

struct pc_jscan {
	struct profconv_ctx *ctx;
	const char *p, *end; /* cursor and end of the text */
	unsigned depth, max_depth;
	int nul;   /* the last string pc_jscan_string() decoded holds a NUL */
	int nl;	   /* a newline was skipped since pc_jscan_start() (only
		    * whitespace between tokens can hold one) */
	int verbatim; /* pc_jscan_print(): the value prints as its own text
		       * (no whitespace, no escape, integers of up to 15
		       * digits only), cleared by whatever is not so */
	char *out; /* scratch: decoded strings, printed values */
	size_t olen, ocap;
	locale_t cloc; /* "C" numeric locale, or (locale_t)0 */
	int simd;      /* PC_JSCAN_*: pc_jscan_simd_level() at init; a test may lower it */
	int checked;   /* the text was accepted before (by pc_jscan_skip()):
			* pc_jscan_print() does not check it again; cleared
			* by pc_jscan_start() */
	/*
	 * When set, a full out is not reallocated: pc_jscan_grow() allocates
	 * a larger one, copies the bytes and hands the old one to
	 * keep_old(keep_arg, old) instead of freeing it, so that pointers
	 * into what was written stay valid (the Chrome scanner's batches).
	 * 0, or PROFCONV_ERR_NOMEM and out left as it was.
	 */
	int (*keep_old)(void *keep_arg, char *old);
	void *keep_arg;
};

void pc_jscan_init(struct pc_jscan *s, struct profconv_ctx *ctx);
void pc_jscan_free(struct pc_jscan *s);
/*
 * Scan text[0..len) from its start; max_depth is how many containers may
 * be open at once (counting from the text's own); out is emptied.
 */
void pc_jscan_start(struct pc_jscan *s, const char *text, size_t len, unsigned max_depth);

/* Skip whitespace; the next byte (not consumed), or -1 at the end. */
static inline int pc_jscan_ws(struct pc_jscan *s)
{
	/* compact JSON (a trace as Chrome writes it) has none: one test */
	if (s->p < s->end && (unsigned char)*s->p > ' ')
		return (unsigned char)*s->p;
	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p;

		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return c;
		s->nl |= c == '\n';
		s->verbatim = 0;
		s->p++;
	}
	return -1;
}

/*
 * The first byte from p on that is '"', '\\' or below 0x20, or e: 8 bytes
 * a step.  Where loads are little-endian the lowest flagged byte of a word
 * is exact (a borrow only runs upward from a flagged byte), so no byte loop
 * is needed after a word that has one.
 */
static inline const char *pc_jscan_plain_swar(const char *p, const char *e)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;

	while (e - p >= 8) {
		uint64_t v, q, b, m;

		memcpy(&v, p, 8);
		q = v ^ (ones * '"');
		b = v ^ (ones * '\\');
		m = (((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v)) & high;
		if (m) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return p + (__builtin_ctzll(m) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

#ifdef PC_JSCAN_SSE2
/* pc_jscan_plain() 32 bytes a step, from p with e - p >= 32 (AVX2; jscan.c). */
const char *pc_jscan_plain_avx2(const char *p, const char *e);

/* The bytes of v that are '"', '\\' or below 0x20, as a 16-bit mask. */
static inline unsigned pc_jscan_special16(__m128i v)
{
	__m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
	__m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
	/* unsigned v <= 0x1f: v minus 0x1f (saturated) is 0 */
	__m128i c = _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1f)), _mm_setzero_si128());

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c));
}
#endif

/*
 * The first byte from p on that is '"', '\\' or below 0x20, or e, at the
 * given level (PC_JSCAN_*).  Most strings of a trace are short: the first
 * 16 bytes are one SSE2 step; a string longer than that goes on 32 bytes a
 * step with AVX2 (an out-of-line call) at that level.
 */
static inline const char *pc_jscan_plain(int simd, const char *p, const char *e)
{
#ifdef PC_JSCAN_SSE2
	if (simd) {
		while (e - p >= 16) {
			unsigned m = pc_jscan_special16(_mm_loadu_si128((const __m128i *)(const void *)p));

			if (m)
				return p + __builtin_ctz(m);
			p += 16;
			if (simd >= PC_JSCAN_AVX2_LEVEL && e - p >= 32)
				return pc_jscan_plain_avx2(p, e);
		}
	}
#else
	(void)simd;
#endif
	return pc_jscan_plain_swar(p, e);
}

int pc_jscan_grow(struct pc_jscan *s, size_t n);

/*
 * At a '"': the string, decoded into out at *off and NUL-terminated (the
 * NUL is kept in out), its decoded length in *len.  0, PC_JSCAN_BAD or
 * PROFCONV_ERR_NOMEM.  A string without escapes is copied here; others go
 * through pc_jscan_string_slow().
 */
int pc_jscan_string_slow(struct pc_jscan *s, size_t *off, size_t *len);
static inline int pc_jscan_string(struct pc_jscan *s, size_t *off, size_t *len)
{
	const char *b = s->p + 1, *q;
	size_t n;

#ifdef PC_JSCAN_SSE2
	/* a string of under 64 bytes (names, categories and phases) with
	 * its 16-byte blocks readable and room for them in out: each block
	 * stored whole as it is checked, without a call to memcpy() (names
	 * of 16 to 63 bytes are two fifths of a trace's strings) */
	if (s->simd) {
		size_t room = s->ocap - s->olen, i;

		if ((size_t)(s->end - b) < room)
			room = (size_t)(s->end - b);
		for (i = 0; i + 16 <= room && i < 64; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
			unsigned m = pc_jscan_special16(v);

			_mm_storeu_si128((__m128i *)(void *)(s->out + s->olen + i), v);
			if (m) {
				n = i + (size_t)__builtin_ctz(m);
				if (b[n] != '"')
					break;
				*off = s->olen;
				*len = n;
				s->olen += n;
				s->out[s->olen++] = 0;
				s->nul = 0;
				s->p = b + n + 1;
				return 0;
			}
		}
	}
#endif
	q = pc_jscan_plain(s->simd, b, s->end);
	n = (size_t)(q - b);

	if (q == s->end || *q != '"')
		return pc_jscan_string_slow(s, off, len);
	if (s->olen + n + 1 > s->ocap) {
		int err = pc_jscan_grow(s, n + 1);

		if (err)
			return err;
	}
	memcpy(s->out + s->olen, b, n);
	*off = s->olen;
	*len = n;
	s->olen += n;
	s->out[s->olen++] = 0;
	s->nul = 0;
	s->p = q + 1;
	return 0;
}
/*
 * At a '"': a key to compare, not to keep: *k points into the text when it
 * has no escape, else into out (decoded, *len up to a decoded NUL; the
 * caller may take olen back to where it was).  0, PC_JSCAN_BAD or
 * PROFCONV_ERR_NOMEM.
 */
int pc_jscan_key_slow(struct pc_jscan *s, const char **k, size_t *len);
static inline int pc_jscan_key(struct pc_jscan *s, const char **k, size_t *len)
{
	const char *b = s->p + 1, *q = pc_jscan_plain(s->simd, b, s->end);

	if (q == s->end || *q != '"')
		return pc_jscan_key_slow(s, k, len);
	*k = b;
	*len = (size_t)(q - b);
	s->p = q + 1;
	return 0;
}
/* Are the 8 bytes of v (in memory order) all ASCII digits? */
static inline int pc_jscan_8digits(uint64_t v)
{
	/* each byte 0x30-0x39: its high nibble is 3, and adding 6 leaves it 3 */
	return ((v & 0xf0f0f0f0f0f0f0f0ULL) | (((v + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4)) ==
	       0x3333333333333333ULL;
}

/*
 * The bytes of v (in memory order) that are not ASCII digits, each as its
 * high bit; the lowest one is exact (a carry only runs upward from a byte
 * that is not a digit itself).
 */
static inline uint64_t pc_jscan_nondigits(uint64_t v)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ULL, threes = 0x3030303030303030ULL;
	uint64_t z = ((v & hi) ^ threes) | (((v + 0x0606060606060606ULL) & hi) ^ threes);

	/* each byte of z: 0 for a digit */
	return (((z & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | z) & 0x8080808080808080ULL;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* With 16 bytes readable at p: how many ASCII digits p starts with (16: all of them). */
static inline unsigned pc_jscan_digits16(const char *p)
{
	uint64_t w, nd;

	memcpy(&w, p, 8);
	nd = pc_jscan_nondigits(w);
	if (nd)
		return (unsigned)__builtin_ctzll(nd) >> 3;
	memcpy(&w, p + 8, 8);
	nd = pc_jscan_nondigits(w);
	return 8 + (nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8);
}

/* pc_jscan_digits16() at the given level (PC_JSCAN_*): one SSE2 compare where there is one. */
static inline unsigned pc_jscan_digits16_at(int simd, const char *p)
{
#ifdef PC_JSCAN_SSE2
	if (simd) {
		/* a digit minus '0' is 0-9 (unsigned): minus 9 more, saturated, 0 */
		__m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8('0'));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_subs_epu8(d, _mm_set1_epi8(9)), _mm_setzero_si128()));

		return (unsigned)__builtin_ctz(~m); /* (bit 16 of ~m is set) */
	}
#else
	(void)simd;
#endif
	return pc_jscan_digits16(p);
}
#endif

/* The value of 8 ASCII digits loaded little-endian (the first digit in the low byte). */
static inline uint64_t pc_jscan_8digits_value(uint64_t v)
{
	v -= 0x3030303030303030ULL;
	v = v * 10 + (v >> 8); /* pairs: each even byte holds 10 * d0 + d1 */
	v = (((v & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
	     (((v >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >>
	    32;
	return v & 0xffffffffULL;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * With 16 bytes readable at p and *p a digit 1-9 (a time, a pid, a tid, a
 * duration), at the given level (PC_JSCAN_*): the length of the integer of 1 to 15 digits p starts, its
 * value in *v, when no fraction or exponent follows it (as
 * pc_jscan_number() reads it); else 0 (pc_jscan_number() reads it).  Short
 * enough to be inlined where members are read.
 */
static inline unsigned pc_jscan_int15(int simd, const char *p, uint64_t *v)
{
	static const uint32_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
	unsigned n = pc_jscan_digits16_at(simd, p), k;
	uint64_t w0, w1, m;

	if (n > 15)
		return 0; /* 16 digits or more */
	memcpy(&w0, p, 8);
	if (n < 8) {
		/* 1 to 7 (*p is a digit): behind 8 - n '0's, the same 8-digit value */
		m = pc_jscan_8digits_value((w0 << (8 * (8 - n))) | (0x3030303030303030ULL >> (8 * n)));
	} else {
		k = n - 8;
		memcpy(&w1, p + 8, 8);
		m = pc_jscan_8digits_value(w0);
		if (k)
			m = m * pow10[k] + pc_jscan_8digits_value((w1 << (8 * (8 - k))) |
								  (0x3030303030303030ULL >> (8 * k)));
	}
	if (p[n] == '.' || (p[n] | 0x20) == 'e')
		return 0;
	*v = m;
	return n;
}
#endif

/*
 * At a number's first byte: its value.  0, PC_JSCAN_BAD or
 * PROFCONV_ERR_NOMEM.  An integer of 1 to 18 digits (a time, an id, a
 * count) or a lone zero is read here, exact as strtod() reads it, 8 digits
 * a step where loads are little-endian; others go through
 * pc_jscan_number_slow().
 */
int pc_jscan_number_slow(struct pc_jscan *s, double *d);
static inline int pc_jscan_number(struct pc_jscan *s, double *out)
{
	const char *p = s->p, *e = s->end, *d;
	uint64_t m = 0;
	int neg = 0;

	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	if (p == e)
		return pc_jscan_number_slow(s, out);
	if (*p == '0') {
		/* a lone zero (a count, a tid, a time): no leading zero, no
		 * fraction or exponent after it */
		if (e - p >= 2 && ((p[1] >= '0' && p[1] <= '9') || p[1] == '.' || (p[1] | 0x20) == 'e'))
			return pc_jscan_number_slow(s, out);
		*out = neg ? -0.0 : 0.0;
		s->p = p + 1;
		return 0;
	}
	if (*p < '1' || *p > '9')
		return pc_jscan_number_slow(s, out);
	d = p;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - p >= 16) {
		/* 16 bytes readable (most numbers of a trace: times, ids): an
		 * integer of 1 to 15 digits in two steps without a loop; the
		 * k < 8 digits of a step behind 8 - k '0's make the same 8-digit
		 * value */
		static const uint32_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
		uint64_t w0, w1, nd;
		unsigned k;

		memcpy(&w0, p, 8);
		nd = pc_jscan_nondigits(w0);
		if (nd) {
			k = (unsigned)__builtin_ctzll(nd) >> 3; /* 1 to 7: *p is a digit */
			m = pc_jscan_8digits_value((w0 << (8 * (8 - k))) | (0x3030303030303030ULL >> (8 * k)));
			p += k;
		} else {
			memcpy(&w1, p + 8, 8);
			nd = pc_jscan_nondigits(w1);
			if (!nd)
				goto loop; /* 16 digits or more */
			k = (unsigned)__builtin_ctzll(nd) >> 3;
			m = pc_jscan_8digits_value(w0);
			if (k)
				m = m * pow10[k] +
				    pc_jscan_8digits_value((w1 << (8 * (8 - k))) |
							   (0x3030303030303030ULL >> (8 * k)));
			p += 8 + k;
		}
		/* *p is no digit: the number ends here unless a fraction or
		 * an exponent follows */
		if (*p == '.' || (*p | 0x20) == 'e')
			return pc_jscan_number_slow(s, out);
		*out = neg ? -(double)(int64_t)m : (double)(int64_t)m;
		s->p = p;
		return 0;
	}
loop:
	while (e - p >= 8 && p - d <= 10) { /* 18 digits at most this way */
		uint64_t w, nd;
		unsigned k;

		memcpy(&w, p, 8);
		nd = pc_jscan_nondigits(w);
		if (nd) {
			/* k < 8 digits, then something else: the k digits
			 * behind 8 - k '0's make the same 8-digit value */
			static const uint32_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
							   10000000 };

			k = (unsigned)__builtin_ctzll(nd) >> 3;
			if (k) {
				w = (w << (8 * (8 - k))) | (0x3030303030303030ULL >> (8 * k));
				m = m * pow10[k] + pc_jscan_8digits_value(w);
				p += k;
			}
			/* *p is no digit: the number ends here unless a
			 * fraction or an exponent follows */
			if (p - d >= 19 || *p == '.' || (*p | 0x20) == 'e')
				return pc_jscan_number_slow(s, out);
			goto done;
		}
		m = m * 100000000u + pc_jscan_8digits_value(w);
		p += 8;
	}
#endif
	while (p < e && *p >= '0' && *p <= '9' && p - d < 19)
		m = m * 10 + (uint64_t)(*p++ - '0');
	if (p - d >= 19 || (p < e && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))))
		return pc_jscan_number_slow(s, out);
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
done:
#endif
	*out = neg ? -(double)m : (double)m;
	s->p = p;
	return 0;
}
/* At a value's first byte: check it and skip it.  0, PC_JSCAN_BAD or an error. */
int pc_jscan_skip(struct pc_jscan *s);
/*
 * At a value's first byte, in a text pc_jscan_skip() (or the tokenizer)
 * has accepted before: skip it without checking it again (brackets
 * counted, strings stepped over), several times as fast.  Nothing is
 * decoded; depth is left as it was.
 */
void pc_jscan_skip_checked(struct pc_jscan *s);
/*
 * snprintf(b, 40, "%1.<prec>g", d) in the "C" numeric locale, for d an
 * integer from 1e15 to below 2^64 and prec 1 to 17, without snprintf():
 * the length written (a NUL after it), or 0 (nothing written) for any
 * other d.
 */
size_t pc_jscan_fmt_g_int(char *b, double d, int prec);
/*
 * The same for d not an integer, 1e-3 <= |d| < 1e15, where "%g" writes no
 * exponent (1795312318420.472 to 17 digits: 1795312318420.4719): the
 * length, or 0 (nothing written) for any other d, or where rounding
 * carries into a new digit.
 */
size_t pc_jscan_fmt_g_frac(char *b, double d, int prec);
/*
 * At a value's first byte: check it and append to out what
 * cJSON_PrintUnformatted() prints for it (not NUL-terminated; the caller
 * reads out[from..olen)).  0, PC_JSCAN_BAD or an error.  With checked set
 * the value is not checked again: a compact value without escapes is
 * copied, its numbers that do not print as they are printed in their
 * place (the same bytes); anything else is printed as without checked.
 */
int pc_jscan_print(struct pc_jscan *s);
/*
 * The members or elements of a container one at a time, for a reader that
 * wants a few of them: at a '{' or '[', pc_jscan_enter() goes in; each
 * pc_jscan_next() then stands the cursor at the next value (*k, *klen: its
 * key as pc_jscan_key() gives it, NULL and 0 in an array) with *more 1, or
 * leaves the container with *more 0.  The caller reads or skips
 * (pc_jscan_skip()) each value before the next call.  0, PC_JSCAN_BAD or
 * PROFCONV_ERR_NOMEM.
 */
struct pc_jscan_it {
	char close; /* '}' or ']' */
	int first;
};
int pc_jscan_enter(struct pc_jscan *s, struct pc_jscan_it *it);
int pc_jscan_next(struct pc_jscan *s, struct pc_jscan_it *it, const char **k, size_t *klen,
		  int *more);
/* Append bytes to out.  0 or PROFCONV_ERR_NOMEM. */
int pc_jscan_put(struct pc_jscan *s, const void *b, size_t n);

/* A pointer into out (valid until out grows). */
static inline const char *pc_jscan_at(const struct pc_jscan *s, size_t off)
{
	return s->out + off;
}

#endif /* PC_JSCAN_H */
