/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jscan.c - the in-memory checking scanner (see pc_jscan.h).
 *
 * One pass over the bytes: a value is checked, and decoded or printed in
 * the same loop.  String bodies go 16 bytes at a time (SSE2) or 32 (AVX2,
 * where the CPU has it), else 8 (SWAR, as jpull.c; pc_jscan.h): runs
 * without '"', '\\' or control bytes are copied whole.  Nested values
 * that are only checked (args) are walked by check_value() in one loop.  Numbers take
 * the exact fast path (integers up to 19 digits; at most 15 significant
 * digits with a power of ten up to 22) or strtod() under a private "C"
 * locale: the same doubles jpull.c and cJSON (strtod) produce.
 *
 * pc_jscan_print() follows what cJSON 1.7's printer does with the value its
 * parser builds (checked against cJSON itself in tests/unit/test_jscan.c):
 * no whitespace; strings cut at a decoded NUL, with '"', '\\', \b \f \n \r
 * \t escaped short, other control bytes as \u00xx (lower-case hex), the
 * rest as they are; numbers as "%1.15g" when that reads back within
 * DBL_EPSILON relative, else "%1.17g" (so -0 stays "-0"); infinities as
 * null.  That is what cJSON 1.7.15 (the version this was checked against)
 * prints; some cJSON versions print integral values in int range with "%d"
 * instead ("-0" becomes "0").  The bytes no longer depend on the cJSON a
 * build links.
 */
#include "json/pc_jscan.h"
#include "json/pc_jpull.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef PC_JSCAN_SSE2
#include <immintrin.h>

__attribute__((target("avx2"))) const char *pc_jscan_plain_avx2(const char *p, const char *e)
{
	const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\');
	const __m256i c = _mm256_set1_epi8(0x1f), z = _mm256_setzero_si256();

	while (e - p >= 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i m = _mm256_or_si256(
			_mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, b)),
			_mm256_cmpeq_epi8(_mm256_subs_epu8(v, c), z));
		unsigned bits = (unsigned)_mm256_movemask_epi8(m);

		if (bits)
			return p + __builtin_ctz(bits);
		p += 32;
	}
	return pc_jscan_plain(PC_JSCAN_SSE2_LEVEL, p, e); /* the tail: under 32 bytes */
}
#endif

int pc_jscan_simd_level(void)
{
	const char *env = getenv("PROFCONV_SCALAR");

	if (env && *env && strcmp(env, "0") != 0)
		return PC_JSCAN_SCALAR;
#ifdef PC_JSCAN_SSE2
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		return PC_JSCAN_AVX2_LEVEL;
	return PC_JSCAN_SSE2_LEVEL;
#else
	return PC_JSCAN_SCALAR;
#endif
}

void pc_jscan_init(struct pc_jscan *s, struct profconv_ctx *ctx)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->simd = pc_jscan_simd_level();
	s->cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

void pc_jscan_free(struct pc_jscan *s)
{
	if (s->cloc != (locale_t)0)
		freelocale(s->cloc);
	pc_free(s->ctx, s->out);
	memset(s, 0, sizeof(*s));
}

void pc_jscan_start(struct pc_jscan *s, const char *text, size_t len, unsigned max_depth)
{
	s->p = text;
	s->end = text + len;
	s->depth = 0;
	s->max_depth = max_depth;
	s->olen = 0;
	s->nl = 0;
	s->checked = 0;
}

int pc_jscan_grow(struct pc_jscan *s, size_t n)
{
	size_t cap = s->ocap ? s->ocap : 4096;
	char *b;

	while (cap < s->olen + n + 1)
		cap *= 2;
	if (s->keep_old && s->out) {
		/* the old bytes stay where they are, for the pointers into them */
		b = pc_alloc(s->ctx, cap);
		if (!b)
			return PROFCONV_ERR_NOMEM;
		memcpy(b, s->out, s->olen);
		if (s->keep_old(s->keep_arg, s->out)) {
			pc_free(s->ctx, b);
			return PROFCONV_ERR_NOMEM;
		}
	} else {
		b = pc_realloc(s->ctx, s->out, cap);
		if (!b)
			return PROFCONV_ERR_NOMEM;
	}
	s->out = b;
	s->ocap = cap;
	return 0;
}

int pc_jscan_put(struct pc_jscan *s, const void *b, size_t n)
{
	if (PC_UNLIKELY(s->olen + n + 1 > s->ocap)) {
		int err = pc_jscan_grow(s, n);

		if (err)
			return err;
	}
	memcpy(s->out + s->olen, b, n);
	s->olen += n;
	return 0;
}

static inline int put1(struct pc_jscan *s, char c)
{
	if (PC_UNLIKELY(s->olen + 2 > s->ocap)) {
		int err = pc_jscan_grow(s, 1);

		if (err)
			return err;
	}
	s->out[s->olen++] = c;
	return 0;
}

/* --- strings --- */


static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= '0' && c <= '9')
			v = v * 16 + (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (uint32_t)(c - 'A' + 10);
		else
			return PC_JSCAN_BAD;
	}
	*out = v;
	return 0;
}

enum mode {
	DECODE = 0, /* strings decoded into out */
	PRINT = 1,  /* values printed into out as cJSON prints them */
	CHECK = 2,  /* checked only */
};

/* One decoded code point: as UTF-8, or (PRINT) as cJSON prints it. */
static int emit_cp(struct pc_jscan *s, uint32_t cp, int print, int *cut)
{
	char u[8];
	size_t n;

	if (print == CHECK)
		return 0;
	if (print == DECODE && cp == 0)
		s->nul = 1;
	if (print == PRINT) {
		if (*cut)
			return 0;
		if (cp == 0) {
			*cut = 1; /* cJSON's strings end at a NUL */
			return 0;
		}
		if (cp < 0x20 || cp == '"' || cp == '\\') {
			static const char hexd[] = "0123456789abcdef";

			u[0] = '\\';
			switch (cp) {
			case '"':
			case '\\':
				u[1] = (char)cp;
				return pc_jscan_put(s, u, 2);
			case '\b':
				u[1] = 'b';
				return pc_jscan_put(s, u, 2);
			case '\f':
				u[1] = 'f';
				return pc_jscan_put(s, u, 2);
			case '\n':
				u[1] = 'n';
				return pc_jscan_put(s, u, 2);
			case '\r':
				u[1] = 'r';
				return pc_jscan_put(s, u, 2);
			case '\t':
				u[1] = 't';
				return pc_jscan_put(s, u, 2);
			default:
				u[1] = 'u';
				u[2] = '0';
				u[3] = '0';
				u[4] = hexd[cp >> 4];
				u[5] = hexd[cp & 15];
				return pc_jscan_put(s, u, 6);
			}
		}
	}
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return pc_jscan_put(s, u, n);
}

#define REPLACEMENT 0xfffdu

/*
 * At a '"': check the string and decode it (DECODE), print it as cJSON does
 * (PRINT, quotes included) into out, or only check it (CHECK).
 */
static int string_body(struct pc_jscan *s, int print)
{
	const char *p = s->p + 1, *e = s->end;
	int cut = 0, err;

	if (print == PRINT && (err = put1(s, '"')))
		return err;
	if (print == CHECK)
		cut = 1;
	for (;;) {
		const char *run = p;
		unsigned char c;

		p = pc_jscan_plain(s->simd, p, e);
		if (p > run && !cut && (err = pc_jscan_put(s, run, (size_t)(p - run))))
			return err;
		if (p == e)
			return PC_JSCAN_BAD;
		c = (unsigned char)*p++;
		if (c == '"')
			break;
		if (c != '\\')
			return PC_JSCAN_BAD; /* a raw control byte */
		s->verbatim = 0;
		if (p == e)
			return PC_JSCAN_BAD;
		c = (unsigned char)*p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			err = emit_cp(s, c, print, &cut);
			break;
		case 'b':
			err = emit_cp(s, '\b', print, &cut);
			break;
		case 'f':
			err = emit_cp(s, '\f', print, &cut);
			break;
		case 'n':
			err = emit_cp(s, '\n', print, &cut);
			break;
		case 'r':
			err = emit_cp(s, '\r', print, &cut);
			break;
		case 't':
			err = emit_cp(s, '\t', print, &cut);
			break;
		case 'u': {
			uint32_t u;

			if (e - p < 4 || hex4(p, &u))
				return PC_JSCAN_BAD;
			p += 4;
			err = 0;
			/* a high surrogate wants "\uDC00-DFFF" next; anything else: U+FFFD */
			while (!err && u >= 0xd800 && u <= 0xdbff) {
				uint32_t lo;

				if (e - p >= 2 && p[0] == '\\' && p[1] == 'u') {
					if (e - p < 6 || hex4(p + 2, &lo))
						return PC_JSCAN_BAD;
					p += 6;
					if (lo >= 0xdc00 && lo <= 0xdfff) {
						u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
						break;
					}
					err = emit_cp(s, REPLACEMENT, print, &cut);
					u = lo;
				} else {
					u = REPLACEMENT;
				}
			}
			if (u >= 0xdc00 && u <= 0xdfff)
				u = REPLACEMENT;
			if (!err)
				err = emit_cp(s, u, print, &cut);
			break;
		}
		default:
			return PC_JSCAN_BAD;
		}
		if (err)
			return err;
	}
	s->p = p;
	if (print == PRINT)
		return put1(s, '"');
	return 0;
}

int pc_jscan_string_slow(struct pc_jscan *s, size_t *off, size_t *len)
{
	int err;

	*off = s->olen;
	s->nul = 0;
	err = string_body(s, DECODE);
	if (err)
		return err;
	*len = s->olen - *off;
	return put1(s, 0); /* the NUL stays in out, outside the length */
}

/*
 * A key only looked at: with no escape in it, it is left where it is in the
 * text (no copy); else decoded into out, cut at a decoded NUL as cJSON
 * compares keys, and the caller takes out back to where it was.
 */
int pc_jscan_key_slow(struct pc_jscan *s, const char **k, size_t *len)
{
	size_t off;
	int err = pc_jscan_string_slow(s, &off, len);

	if (err)
		return err;
	*k = pc_jscan_at(s, off);
	if (s->nul)
		*len = strlen(*k);
	return 0;
}

/* --- numbers --- */

/* strtod() of text[0..len) (a checked JSON number) under the "C" locale.  0 or an error. */
static int c_strtod(struct pc_jscan *s, const char *text, size_t len, double *d)
{
	char small[128], *buf = small;
	locale_t old = (locale_t)0;

	if (len >= sizeof(small)) {
		buf = pc_alloc(s->ctx, len + 1);
		if (!buf)
			return PROFCONV_ERR_NOMEM;
	}
	memcpy(buf, text, len);
	buf[len] = 0;
	if (s->cloc != (locale_t)0)
		old = uselocale(s->cloc);
	*d = strtod(buf, NULL);
	if (s->cloc != (locale_t)0)
		uselocale(old);
	if (buf != small)
		pc_free(s->ctx, buf);
	return 0;
}

int pc_jscan_number_slow(struct pc_jscan *s, double *out)
{
	const char *start = s->p;
	struct pc_jnum n;
	size_t len = pc_jnum_scan(s->p, s->end, &n);

	if (!len)
		return PC_JSCAN_BAD;
	s->p += len;
	if (pc_jnum_value(&n, out))
		return 0;
	return c_strtod(s, start, len, out);
}

size_t pc_jscan_fmt_g_int(char *b, double d, int prec)
{
	static const uint64_t p10[21] = { 1ULL,
					  10ULL,
					  100ULL,
					  1000ULL,
					  10000ULL,
					  100000ULL,
					  1000000ULL,
					  10000000ULL,
					  100000000ULL,
					  1000000000ULL,
					  10000000000ULL,
					  100000000000ULL,
					  1000000000000ULL,
					  10000000000000ULL,
					  100000000000000ULL,
					  1000000000000000ULL,
					  10000000000000000ULL,
					  100000000000000000ULL,
					  1000000000000000000ULL,
					  10000000000000000000ULL,
					  0 };
	double a = fabs(d);
	uint64_t u, q, r, half;
	char dig[24];
	int n, x, k, last;
	size_t o = 0;

	/* an integer from 1e15 to below 2^64 (every double from 2^53 on is one) */
	if (!(a >= 1e15 && a < 18446744073709551616.0) || prec < 1 || prec > 17)
		return 0;
	u = (uint64_t)a;
	if ((double)u != a)
		return 0;
	for (n = 16; n < 20 && u >= p10[n]; n++)
		;
	/* u has n digits (16 to 20) */
	if (d < 0)
		b[o++] = '-';
	if (n <= prec) {
		/* "%g" writes it without an exponent: its digits */
		k = n;
		while (k--) {
			dig[k] = (char)('0' + u % 10);
			u /= 10;
		}
		memcpy(b + o, dig, (size_t)n);
		o += (size_t)n;
		b[o] = 0;
		return o;
	}
	/* to prec digits, a tie to the even one (as glibc's printf rounds in
	 * the default rounding mode): the exponent form */
	q = u / p10[n - prec];
	r = u % p10[n - prec];
	half = p10[n - prec] / 2;
	x = n - 1;
	if (r > half || (r == half && (q & 1)))
		q++;
	if (q == p10[prec]) {
		q = p10[prec - 1];
		x++;
	}
	k = prec;
	while (k--) {
		dig[k] = (char)('0' + q % 10);
		q /= 10;
	}
	for (last = prec; last > 1 && dig[last - 1] == '0'; last--)
		;
	b[o++] = dig[0];
	if (last > 1) {
		b[o++] = '.';
		memcpy(b + o, dig + 1, (size_t)(last - 1));
		o += (size_t)(last - 1);
	}
	b[o++] = 'e';
	b[o++] = '+';
	b[o++] = (char)('0' + x / 10);
	b[o++] = (char)('0' + x % 10);
	b[o] = 0;
	return o;
}

size_t pc_jscan_fmt_g_frac(char *b, double d, int prec)
{
#if defined(__SIZEOF_INT128__)
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned __int128 v, q, r, half;
	double a = fabs(d), f;
	uint64_t m, ip;
	char dig[24];
	int ex, k, x, fd, i, last;
	size_t o = 0;

	/* not an integer, 1e-3 <= |d| < 1e15 (then d = m / 2^k, k > 0) */
	if (!(a >= 1e-3 && a < 1e15) || prec < 1 || prec > 17)
		return 0;
	ip = (uint64_t)a;
	if ((double)ip == a)
		return 0;
	f = frexp(a, &ex); /* a = f * 2^ex, 0.5 <= f < 1 */
	m = (uint64_t)ldexp(f, 53);
	k = 53 - ex; /* a = m / 2^k; 2^-10 <= a < 2^50: 3 < k < 64 */
	/* x: the decimal exponent of a (10^x <= a < 10^(x + 1)) */
	if (ip) {
		for (x = 0; x < 15 && ip >= p10[x + 1]; x++)
			;
	} else {
		for (x = -1; x > -3 && (unsigned __int128)m * p10[-x] < (unsigned __int128)1 << k; x--)
			;
		if ((unsigned __int128)m * p10[-x] < (unsigned __int128)1 << k)
			return 0; /* (below 1e-3 after all) */
	}
	/* prec significant digits: fd after the point (a whole integer part
	 * past prec digits is "%g"'s exponent form: left to snprintf()) */
	fd = prec - 1 - x;
	if (fd <= 0 || fd > 19)
		return 0;
	/* round(a * 10^fd), a tie to the even one (glibc's printf rounds the
	 * exact binary value so in the default rounding mode) */
	v = (unsigned __int128)m * p10[fd];
	q = v >> k;
	r = v & (((unsigned __int128)1 << k) - 1);
	half = (unsigned __int128)1 << (k - 1);
	if (r > half || (r == half && (q & 1)))
		q++;
	if (q >= (unsigned __int128)p10[prec]) /* rounded up to a new digit: left to snprintf() */
		return 0;
	for (i = prec - 1; i >= 0; i--) {
		dig[i] = (char)('0' + (unsigned)(q % 10));
		q /= 10;
	}
	if (q || dig[0] == '0')
		return 0; /* (not prec digits: cannot be) */
	/* trailing zeros of the fraction dropped, as "%g" drops them */
	for (last = prec; last > 0 && last > prec - fd && dig[last - 1] == '0'; last--)
		;
	if (d < 0)
		b[o++] = '-';
	if (x >= 0) {
		memcpy(b + o, dig, (size_t)x + 1);
		o += (size_t)x + 1;
		if (last > x + 1) {
			b[o++] = '.';
			memcpy(b + o, dig + x + 1, (size_t)(last - x - 1));
			o += (size_t)(last - x - 1);
		}
	} else {
		b[o++] = '0';
		b[o++] = '.';
		for (i = 0; i < -x - 1; i++)
			b[o++] = '0';
		memcpy(b + o, dig, (size_t)last);
		o += (size_t)last;
	}
	b[o] = 0;
	return o;
#else
	(void)b;
	(void)d;
	(void)prec;
	return 0;
#endif
}

/* cJSON's text for a number it parsed as d. */
static int print_number(struct pc_jscan *s, double d)
{
	char b[40];
	locale_t old = (locale_t)0;
	size_t n;

	if (!isfinite(d))
		return pc_jscan_put(s, "null", 4);
	/* integers below 1e15 (not -0): "%1.15g" prints their digits, exactly */
	if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d && (d != 0 || !signbit(d)))
		return pc_jscan_put(s, b, pc_fmt_i64(b, (int64_t)d));
	if (s->cloc != (locale_t)0)
		old = uselocale(s->cloc);
	/* large integers (ids) written without snprintf(), byte for byte as it
	 * writes them; in the "C" numeric locale only */
	n = s->cloc != (locale_t)0 ? pc_jscan_fmt_g_int(b, d, 15) : 0;
	if (!n && s->cloc != (locale_t)0) /* (and fractions: 1795312318420.472) */
		n = pc_jscan_fmt_g_frac(b, d, 15);
	if (!n)
		n = (size_t)snprintf(b, sizeof(b), "%1.15g", d);
	{
		double t = strtod(b, NULL), a = fabs(t), c = fabs(d);

		if (!(fabs(t - d) <= (a > c ? a : c) * DBL_EPSILON)) {
			n = s->cloc != (locale_t)0 ? pc_jscan_fmt_g_int(b, d, 17) : 0;
			if (!n && s->cloc != (locale_t)0)
				n = pc_jscan_fmt_g_frac(b, d, 17);
			if (!n)
				n = (size_t)snprintf(b, sizeof(b), "%1.17g", d);
		}
	}
	if (s->cloc != (locale_t)0)
		uselocale(old);
	return pc_jscan_put(s, b, n < sizeof(b) ? n : sizeof(b) - 1);
}

/* --- values --- */

/*
 * Does the number text [p, e) print as it is (print_number())?  A decimal
 * of up to 15 significant digits (DBL_DIG: "%1.15g" gives its digits back)
 * does when "%g" writes it without an exponent (1e-4 <= |d| < 1e15) and it
 * has no zero that printing would drop ("-0", "1.50", "0.0"); exponents
 * are not kept.
 */
static int prints_as_is(const char *p, const char *e)
{
	const char *d = p + (p < e && *p == '-'), *q, *dot = NULL;
	int sig = 0, lead = 1, fzeros = 0;

	if (d == e || (d != p && d + 1 == e && *d == '0'))
		return 0;
	for (q = d; q < e; q++) {
		if (*q == '.') {
			dot = q;
			continue;
		}
		if (*q < '0' || *q > '9')
			return 0;
		if (lead && *q == '0') {
			fzeros += dot != NULL;
			continue;
		}
		lead = 0;
		sig++;
	}
	if (sig > 15)
		return 0;
	return !dot || (e[-1] != '0' && fzeros <= 3);
}

static int literal(struct pc_jscan *s, const char *word, size_t n, int print)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return PC_JSCAN_BAD;
	s->p += n;
	return print == PRINT ? pc_jscan_put(s, word, n) : 0;
}

static int value(struct pc_jscan *s, int print); /* print: enum mode */

static int container(struct pc_jscan *s, int print)
{
	char open = *s->p, close = open == '{' ? '}' : ']';
	int c, err, first = 1;

	if (s->depth >= s->max_depth)
		return PC_JSCAN_BAD;
	s->depth++;
	s->p++;
	if (print == PRINT && (err = put1(s, open)))
		return err;
	c = pc_jscan_ws(s);
	if (c == close) {
		s->p++;
	} else {
		for (;;) {
			if (!first && print == PRINT && (err = put1(s, ',')))
				return err;
			first = 0;
			if (open == '{') {
				if (c != '"')
					return PC_JSCAN_BAD;
				err = string_body(s, print);
				if (err)
					return err;
				if (pc_jscan_ws(s) != ':')
					return PC_JSCAN_BAD;
				s->p++;
				if (print == PRINT && (err = put1(s, ':')))
					return err;
				pc_jscan_ws(s);
			}
			err = value(s, print);
			if (err)
				return err;
			c = pc_jscan_ws(s);
			if (c == close) {
				s->p++;
				break;
			}
			if (c != ',')
				return PC_JSCAN_BAD;
			s->p++;
			c = pc_jscan_ws(s);
		}
	}
	s->depth--;
	return print == PRINT ? put1(s, close) : 0;
}

/* At a value's first byte (whitespace skipped). */
static int value(struct pc_jscan *s, int print)
{
	double d;
	int err;

	if (s->p == s->end)
		return PC_JSCAN_BAD;
	switch (*s->p) {
	case '{':
	case '[':
		return container(s, print);
	case '"':
		return string_body(s, print);
	case 't':
		return literal(s, "true", 4, print);
	case 'f':
		return literal(s, "false", 5, print);
	case 'n':
		return literal(s, "null", 4, print);
	default: {
		const char *from = s->p;

		if (print == CHECK) {
			/* an integer of 1 to 15 digits (most numbers in a trace's
			 * nested args: ids, counts, V8's time deltas): checked
			 * here, without its value; it prints as it is */
			const char *p = from + (*from == '-'), *e = s->end, *d0 = p;

			if (p < e && *p >= '1' && *p <= '9') {
				do
					p++;
				while (p < e && *p >= '0' && *p <= '9' && p - d0 < 16);
				if (p - d0 <= 15 && (p == e || (*p != '.' && *p != 'e' && *p != 'E' &&
								 (*p < '0' || *p > '9')))) {
					s->p = p;
					return 0;
				}
			}
		}
		err = pc_jscan_number(s, &d);
		if (err)
			return err;
		if (print == CHECK && s->verbatim && !prints_as_is(from, s->p))
			s->verbatim = 0;
		if (print != PRINT)
			return 0;
		/* most numbers of a value printed again (because something
		 * else in it is not as cJSON prints it) print as they are:
		 * copied, without snprintf() */
		if (prints_as_is(from, s->p))
			return pc_jscan_put(s, from, (size_t)(s->p - from));
		return print_number(s, d);
	}
	}
}

int pc_jscan_enter(struct pc_jscan *s, struct pc_jscan_it *it)
{
	int c = pc_jscan_ws(s);

	if ((c != '{' && c != '[') || s->depth >= s->max_depth)
		return PC_JSCAN_BAD;
	it->close = c == '{' ? '}' : ']';
	it->first = 1;
	s->depth++;
	s->p++;
	return 0;
}

int pc_jscan_next(struct pc_jscan *s, struct pc_jscan_it *it, const char **k, size_t *klen,
		  int *more)
{
	int c = pc_jscan_ws(s), err;

	*more = 0;
	*k = NULL;
	*klen = 0;
	if (c == it->close) {
		s->p++;
		s->depth--;
		return 0;
	}
	if (!it->first) {
		if (c != ',')
			return PC_JSCAN_BAD;
		s->p++;
		c = pc_jscan_ws(s);
	}
	it->first = 0;
	if (it->close == '}') {
		if (c != '"')
			return PC_JSCAN_BAD;
		err = pc_jscan_key(s, k, klen);
		if (err)
			return err;
		if (pc_jscan_ws(s) != ':')
			return PC_JSCAN_BAD;
		s->p++;
	}
	if (pc_jscan_ws(s) < 0)
		return PC_JSCAN_BAD;
	*more = 1;
	return 0;
}

/* Whitespace from p on skipped as pc_jscan_ws() skips it (nl, verbatim). */
static inline const char *check_ws(struct pc_jscan *s, const char *p)
{
	const char *e = s->end;

	while (p < e && (unsigned char)*p <= ' ') {
		char c = *p;

		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			break;
		s->nl |= c == '\n';
		s->verbatim = 0;
		p++;
	}
	return p;
}

/*
 * value(s, CHECK) without recursion, for the nested values (args) most of
 * a trace's bytes are: containers are walked in one loop (whether each
 * open one is an object: a bit in a 256-bit stack, deeper ones go through
 * container()), a string without escapes is one pc_jscan_plain() (SIMD)
 * search, numbers, literals and other strings go through value().  The
 * same accept/refuse decisions, cursor, depth, nl and verbatim as
 * value(s, CHECK).
 */
static int check_value(struct pc_jscan *s)
{
	const char *p = s->p, *e = s->end, *q;
	uint64_t obj[4] = { 0, 0, 0, 0 };
	unsigned lvl = 0;
	int err, top = 0; /* the innermost open container is an object */

	for (;;) {
		/* at a value's first byte (whitespace skipped) */
		if (p == e)
			return PC_JSCAN_BAD;
		if (*p == '{' || *p == '[') {
			int is_obj = *p == '{';

			if (lvl == 256) {
				s->p = p;
				err = container(s, CHECK);
				if (err)
					return err;
				p = s->p;
				goto after;
			}
			if (s->depth >= s->max_depth)
				return PC_JSCAN_BAD;
			s->depth++;
			if (is_obj)
				obj[lvl >> 6] |= 1ULL << (lvl & 63);
			else
				obj[lvl >> 6] &= ~(1ULL << (lvl & 63));
			lvl++;
			top = is_obj;
			p = check_ws(s, p + 1);
			if (p < e && *p == (is_obj ? '}' : ']')) {
				p++;
				s->depth--;
				lvl--;
				top = lvl && (obj[(lvl - 1) >> 6] >> ((lvl - 1) & 63) & 1);
				goto after;
			}
			if (is_obj)
				goto key;
			continue;
		}
		if (*p == '"' && (q = pc_jscan_plain(s->simd, p + 1, e)) < e && *q == '"') {
			p = q + 1;
			goto after;
		}
		if ((q = p + (*p == '-')) < e && *q >= '1' && *q <= '9') {
			/* an integer of 1 to 15 digits, as value() checks it;
			 * anything else from its start again through value() */
			const char *d0 = q;

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			if (e - q >= 16) {
				/* 8 bytes a step to the first that is no digit */
				q += pc_jscan_digits16_at(s->simd, q);
			} else
#endif
			{
				do
					q++;
				while (q < e && *q >= '0' && *q <= '9' && q - d0 < 16);
			}
			if (q - d0 <= 15 &&
			    (q == e || (*q != '.' && *q != 'e' && *q != 'E' && (*q < '0' || *q > '9')))) {
				p = q;
				goto after;
			}
		} else if (*p == '0' && (e - p < 2 || ((p[1] < '0' || p[1] > '9') && p[1] != '.' &&
							(p[1] | 0x20) != 'e'))) {
			/* a lone zero (prints as it is) */
			p++;
			goto after;
		} else if (*p == 't' && e - p >= 4 && memcmp(p, "true", 4) == 0) {
			p += 4;
			goto after;
		} else if (*p == 'f' && e - p >= 5 && memcmp(p, "false", 5) == 0) {
			p += 5;
			goto after;
		} else if (*p == 'n' && e - p >= 4 && memcmp(p, "null", 4) == 0) {
			p += 4;
			goto after;
		}
		/* not a plain string or a short integer: value() checks it */
		s->p = p;
		err = value(s, CHECK);
		if (err)
			return err;
		p = s->p;
	after:
		/* after a value: the next one, or the end of containers */
		if (!lvl) {
			s->p = p;
			return 0;
		}
		p = check_ws(s, p);
		if (p == e)
			return PC_JSCAN_BAD;
		if (*p == ',') {
			p = check_ws(s, p + 1);
			if (!top)
				continue;
		key:
			/* in an object: a key, ':' and the value's first byte */
			if (p == e || *p != '"')
				return PC_JSCAN_BAD;
			if ((q = pc_jscan_plain(s->simd, p + 1, e)) < e && *q == '"') {
				p = q + 1;
			} else {
				s->p = p;
				err = string_body(s, CHECK);
				if (err)
					return err;
				p = s->p;
			}
			p = check_ws(s, p);
			if (p == e || *p != ':')
				return PC_JSCAN_BAD;
			p = check_ws(s, p + 1);
			continue;
		}
		if (*p == (top ? '}' : ']')) {
			p++;
			s->depth--;
			lvl--;
			top = lvl && (obj[(lvl - 1) >> 6] >> ((lvl - 1) & 63) & 1);
			goto after;
		}
		return PC_JSCAN_BAD;
	}
}

int pc_jscan_skip(struct pc_jscan *s)
{
	return check_value(s);
}

void pc_jscan_skip_checked(struct pc_jscan *s)
{
	const char *p = s->p, *e = s->end;
	unsigned depth = 0;

	while (p < e) {
#ifdef PC_JSCAN_SSE2
		if (depth && s->simd) {
			/* inside a container only '"' and brackets count: 16
			 * bytes a step to the next ('[' and '{', ']' and '}'
			 * differ only in bit 0x20) */
			const __m128i q = _mm_set1_epi8('"'), o = _mm_set1_epi8('{'),
				      c = _mm_set1_epi8('}'), b20 = _mm_set1_epi8(0x20);

			while (e - p >= 16) {
				__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
				__m128i f = _mm_or_si128(v, b20);
				unsigned m = (unsigned)_mm_movemask_epi8(
					_mm_or_si128(_mm_cmpeq_epi8(v, q),
						     _mm_or_si128(_mm_cmpeq_epi8(f, o), _mm_cmpeq_epi8(f, c))));

				if (m) {
					p += __builtin_ctz(m);
					break;
				}
				p += 16;
			}
			if (p == e)
				break;
		}
#endif
		switch (*p) {
		case '"':
			/* to the closing quote; a backslash takes the byte after it */
			p++;
			for (;;) {
				p = pc_jscan_plain(s->simd, p, e);
				if (p == e)
					break;
				if (*p == '"') {
					p++;
					break;
				}
				if (*p == '\\' && e - p >= 2)
					p += 2;
				else
					p++; /* (a raw control byte: not in a checked text) */
			}
			if (!depth)
				goto done;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (!depth)
				goto done; /* the enclosing container's end */
			if (!--depth) {
				p++;
				goto done;
			}
			break;
		case ',':
		case ' ':
		case '\n':
		case '\r':
		case '\t':
			if (!depth)
				goto done; /* after a number or literal */
			break;
		default:
			break;
		}
		p++;
	}
done:
	s->p = p;
}

/*
 * Most nested values in a trace are already written as cJSON prints them:
 * such a value is checked, then copied as it is; only the others are
 * printed (from their start again).
 */
/*
 * pc_jscan_print() of a value in a text accepted before (s->checked): one
 * walk, nothing checked.  The bytes outside strings are looked at one at a
 * time (a compact value has few), string bodies searched with
 * pc_jscan_plain(); runs are copied whole, and only a number that does not
 * print as it is (print_number()) breaks one.  What value(s, PRINT) prints
 * differs from the text only at such numbers, at whitespace and at escapes:
 * at the first whitespace or backslash this gives up (1, out as it was)
 * and value(s, PRINT) prints the value from its start.
 */
static int print_checked(struct pc_jscan *s, int *gave_up)
{
	const char *p = s->p, *e = s->end, *run = p, *q;
	size_t olen = s->olen;
	unsigned depth = 0;
	int err;

	*gave_up = 0;
	for (;;) {
		if (p >= e)
			goto give_up; /* (cannot be: checked) */
		switch (*p) {
		case '"':
			q = pc_jscan_plain(s->simd, p + 1, e);
			if (q == e || *q != '"')
				goto give_up; /* an escape */
			p = q + 1;
			break;
		case '{':
		case '[':
			depth++;
			p++;
			continue; /* (a container is not done at its opening) */
		case '}':
		case ']':
			depth--;
			p++;
			break;
		case ',':
		case ':':
			p++;
			continue;
		case 't':
		case 'n':
			p += 4;
			break;
		case 'f':
			p += 5;
			break;
		case ' ':
		case '\n':
		case '\r':
		case '\t':
			goto give_up;
		default: {
			/* a number: its extent, then its value if it does not
			 * print as it is */
			const char *from = p;
			double d;

			q = p + 1;
			while (q < e && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' ||
					 *q == 'E' || *q == '+' || *q == '-'))
				q++;
			if (!prints_as_is(from, q)) {
				if ((err = pc_jscan_put(s, run, (size_t)(from - run))))
					return err;
				s->p = from;
				err = pc_jscan_number(s, &d);
				if (err)
					return err;
				if (s->p != q)
					goto give_up; /* (cannot be: checked) */
				if ((err = print_number(s, d)))
					return err;
				run = q;
			}
			p = q;
			break;
		}
		}
		if (!depth)
			break;
	}
	s->p = p;
	return pc_jscan_put(s, run, (size_t)(p - run));
give_up:
	s->olen = olen;
	*gave_up = 1;
	return 0;
}

int pc_jscan_print(struct pc_jscan *s)
{
	const char *from = s->p;
	unsigned depth = s->depth;
	int err;

	if (s->checked) {
		int gave_up;

		err = print_checked(s, &gave_up);
		if (err || !gave_up)
			return err;
		s->p = from;
		return value(s, PRINT);
	}
	s->verbatim = 1;
	err = check_value(s);
	if (err || s->verbatim)
		return err ? err : pc_jscan_put(s, from, (size_t)(s->p - from));
	s->p = from;
	s->depth = depth;
	return value(s, PRINT);
}
