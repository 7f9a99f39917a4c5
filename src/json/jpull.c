/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jpull.c - the streaming JSON pull tokenizer (see pc_jpull.h).
 *
 * The parser keeps one chunk of input in buf[pos..end).  No token ever
 * points into buf: strings and number texts are copied into the scratch
 * buffer s as they are scanned, so a token may straddle any number of chunk
 * boundaries and buf is simply overwritten by the next read.  A plain
 * regular file's chunks are not read at all: the input lends them from a
 * mapping of the file (pc_input_borrow()), valid until the next fill.
 *
 * The grammar is a small state machine (enum state) plus a stack of open
 * containers; a ',' is consumed by prepare() in front of the token that
 * follows it, which lets peek() and capture() see the next value without
 * consuming it.
 *
 * Hot loops: whitespace, string bodies (8 bytes at a time: a word is
 * checked for '"', '\\', control bytes and non-ASCII with SWAR arithmetic,
 * then copied in runs) and digits.  Lines are counted only in whitespace:
 * a raw newline anywhere else is a syntax error.
 *
 * Numbers: integer texts are parsed exactly into int64; other numbers take
 * the exact fast path (at most 15 significant digits and a power of ten up
 * to 22, Clinger's method) or strtod() under a private "C" locale, so a host
 * application's setlocale() cannot change the result.
 */
#include "json/pc_jpull.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_CHUNK	   ((size_t)256 * 1024)
#define DEFAULT_MAX_STRING ((size_t)64 << 20)
#define DEFAULT_MAX_DEPTH  512u

enum state {
	ST_START,	 /* before the top-level value */
	ST_VALUE,	 /* after ':' or after ',' in an array */
	ST_VALUE_OR_END, /* after '[' */
	ST_KEY,		 /* after ',' in an object */
	ST_KEY_OR_END,	 /* after '{' */
	ST_AFTER,	 /* after a value */
	ST_END,		 /* the top-level value and its trailing whitespace are done */
};

struct open_pos {
	uint32_t line, col;
};

struct pc_jpull {
	struct profconv_ctx *ctx;
	struct pc_input *in;
	const char *name;

	const unsigned char *buf; /* the chunk: own, or lent by the input */
	unsigned char *own;	  /* the chunk read() fills, when not lent */
	size_t bufsize;
	int lend; /* the input lends its chunks (pc_input_borrow()) */
	const unsigned char *pos, *end;
	uint64_t buf_off; /* input offset of buf[0] */
	int eof;

	uint32_t line;
	uint64_t line_start; /* offset of the current line's first byte */

	char *s; /* decoded string / number text */
	size_t slen, scap, smax;

	unsigned depth, max_depth;
	unsigned char *stack;	 /* '{' or '[' per open container */
	struct open_pos *opened; /* where each open container began */
	enum state state;
	struct pc_jtok tok;

	int capturing;
	const unsigned char *cap_from; /* first byte of buf not yet copied to c */
	uint64_t cap_off;
	uint32_t cap_line, cap_col;
	char *c; /* captured value */
	size_t clen, ccap, cmax;

	uint64_t bad_utf8;
	locale_t cloc; /* "C" numeric locale, or (locale_t)0 */
	int error_before_eof; /* pc_jpull_raw_rest() read to the end past an error */
};

/* --- positions and errors --- */

static inline uint64_t cur_off(const struct pc_jpull *p)
{
	return p->buf_off + (uint64_t)(p->pos - p->buf);
}

static uint32_t col_of(const struct pc_jpull *p, uint64_t off)
{
	uint64_t col = off - p->line_start + 1;

	return col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

static int PC_PRINTF(6, 0) vfail_pos(struct pc_jpull *p, int code, uint64_t off, uint32_t line,
				     uint32_t col, const char *fmt, va_list ap)
{
	struct pc_loc loc = { p->name, off, line, col };
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return pc_fail(p->ctx, code, &loc, "%s", msg);
}

/* An error at offset off, which must be on the current line. */
static int PC_PRINTF(4, 5) fail_off(struct pc_jpull *p, int code, uint64_t off, const char *fmt,
				    ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail_pos(p, code, off, p->line, col_of(p, off), fmt, ap);
	va_end(ap);
	return r;
}

/* An error at the start of the current token. */
static int PC_PRINTF(3, 4) fail_tok(struct pc_jpull *p, int code, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail_pos(p, code, p->tok.offset, p->tok.line, p->tok.col, fmt, ap);
	va_end(ap);
	return r;
}

/* "'x'", "byte 0xf3" or "end of input", for messages. */
static const char *describe(int c, char *buf, size_t size)
{
	if (c < 0)
		return "end of input";
	if (c >= 0x20 && c < 0x7f)
		pc_snprintf(buf, size, "'%c'", c);
	else
		pc_snprintf(buf, size, "byte 0x%02x", (unsigned)c);
	return buf;
}

static int fail_eof(struct pc_jpull *p)
{
	const struct open_pos *o;

	if (!p->depth)
		return fail_off(p, PROFCONV_ERR_CORRUPT_TRUNCATED, cur_off(p),
				"empty input (no JSON value)");
	o = &p->opened[p->depth - 1];
	return fail_off(p, PROFCONV_ERR_CORRUPT_TRUNCATED, cur_off(p),
			"unexpected end of input: %s opened at %u:%u is not closed",
			p->stack[p->depth - 1] == '{' ? "object" : "array", o->line, o->col);
}

/* --- buffers --- */

static int grow_buf(struct pc_jpull *p, char **b, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 256;
	char *nb;

	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	nb = pc_realloc(p->ctx, *b, ncap);
	if (!nb)
		return PROFCONV_ERR_NOMEM;
	*b = nb;
	*cap = ncap;
	return 0;
}

static int cap_append(struct pc_jpull *p, const unsigned char *from, const unsigned char *to)
{
	size_t n = (size_t)(to - from);
	int err;

	if (!n)
		return 0;
	if (p->clen + n > p->cmax) {
		struct pc_loc loc = { p->name, p->cap_off, p->cap_line, p->cap_col };

		return pc_fail(p->ctx, PROFCONV_ERR_LIMIT, &loc,
			       "value at byte offset %llu is larger than the limit of %zu bytes",
			       (unsigned long long)p->cap_off, p->cmax);
	}
	if (p->clen + n + 1 > p->ccap) {
		err = grow_buf(p, &p->c, &p->ccap, p->clen + n + 1);
		if (err)
			return err;
	}
	memcpy(p->c + p->clen, from, n);
	p->clen += n;
	return 0;
}

/* Read the next chunk (pos == end).  At end of input pos stays == end and eof is set. */
static int fill(struct pc_jpull *p)
{
	size_t got = 0;
	int err;

	if (p->eof)
		return 0;
	if (p->capturing) {
		err = cap_append(p, p->cap_from, p->end);
		if (err)
			return err;
	}
	p->buf_off += (uint64_t)(p->end - p->buf);
	p->pos = p->end = p->buf; /* (what an error leaves: cur_off() = buf_off) */
	if (p->lend) {
		const unsigned char *b = NULL;

		err = pc_input_borrow(p->in, p->bufsize, &b, &got);
		if (err)
			return err;
		p->buf = b;
	} else {
		p->buf = p->own;
		err = pc_input_read(p->in, p->own, p->bufsize, &got);
		if (err)
			return err;
	}
	p->pos = p->cap_from = p->buf;
	p->end = p->buf + got;
	if (!got)
		p->eof = 1;
	return 0;
}

/* Consume one byte into *c (-1 at end of input). */
static inline int next_byte(struct pc_jpull *p, int *c)
{
	if (p->pos == p->end) {
		int err = fill(p);

		if (err)
			return err;
		if (p->pos == p->end) {
			*c = -1;
			return 0;
		}
	}
	*c = *p->pos++;
	return 0;
}

/* The next byte without consuming it (-1 at end of input). */
static inline int peek_byte(struct pc_jpull *p, int *c)
{
	if (p->pos == p->end) {
		int err = fill(p);

		if (err)
			return err;
		if (p->pos == p->end) {
			*c = -1;
			return 0;
		}
	}
	*c = *p->pos;
	return 0;
}

static int s_reserve(struct pc_jpull *p, size_t n)
{
	if (p->slen + n > p->smax)
		return fail_tok(p, PROFCONV_ERR_LIMIT,
				"%s at byte offset %llu is longer than the limit of %zu bytes",
				p->tok.type == PC_JT_NUMBER ? "number" : "string",
				(unsigned long long)p->tok.offset, p->smax);
	return grow_buf(p, &p->s, &p->scap, p->slen + n + 1);
}

static inline int s_append(struct pc_jpull *p, const void *src, size_t n)
{
	if (PC_UNLIKELY(p->slen + n + 1 > p->scap || p->slen + n > p->smax)) {
		int err = s_reserve(p, n);

		if (err)
			return err;
	}
	memcpy(p->s + p->slen, src, n);
	p->slen += n;
	return 0;
}

/* --- whitespace --- */

/* Skip whitespace; *c = the next byte (not consumed) or -1 at end of input. */
static int peek_nonws(struct pc_jpull *p, int *c)
{
	for (;;) {
		const unsigned char *s = p->pos, *e = p->end;
		int err;

		while (s < e) {
			unsigned char ch = *s;

			if (ch > ' ') {
				p->pos = s;
				*c = ch;
				return 0;
			}
			if (ch == '\n') {
				p->line++;
				p->line_start = p->buf_off + (uint64_t)(s - p->buf) + 1;
			} else if (ch != ' ' && ch != '\t' && ch != '\r') {
				p->pos = s;
				*c = ch;
				return 0;
			}
			s++;
		}
		p->pos = s;
		err = fill(p);
		if (err)
			return err;
		if (p->pos == p->end) {
			*c = -1;
			return 0;
		}
	}
}

/* --- strings --- */

/* Non-zero if any of the 8 bytes is '"', '\\', below 0x20 or above 0x7f. */
static inline int special8(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = v ^ (ones * '"');
	uint64_t b = v ^ (ones * '\\');
	uint64_t m = ((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v) | v;

	return (m & high) != 0;
}

static inline int special1(unsigned char ch)
{
	return (unsigned char)(ch - 0x20) >= 0x60 || ch == '"' || ch == '\\';
}

static int put_cp(struct pc_jpull *p, uint32_t cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return s_append(p, u, n);
}

#define REPLACEMENT 0xfffdu

/* A non-ASCII sequence starting at pos: checked, copied, or replaced by U+FFFD. */
static int lex_utf8(struct pc_jpull *p, int copy, int *bad)
{
	unsigned char seq[4];
	uint32_t cp, min;
	int c, n, i, err;

	c = *p->pos++;
	seq[0] = (unsigned char)c;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		cp = (uint32_t)c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		cp = (uint32_t)c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		cp = (uint32_t)c & 0x07;
		min = 0x10000;
	} else {
		*bad = 1;
		return copy ? put_cp(p, REPLACEMENT) : 0;
	}
	for (i = 1; i <= n; i++) {
		err = peek_byte(p, &c);
		if (err)
			return err;
		if (c < 0 || (c & 0xc0) != 0x80)
			break;
		p->pos++;
		seq[i] = (unsigned char)c;
		cp = (cp << 6) | ((uint32_t)c & 0x3f);
	}
	if (i <= n || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		*bad = 1;
		return copy ? put_cp(p, REPLACEMENT) : 0;
	}
	return copy ? s_append(p, seq, (size_t)n + 1) : 0;
}

static int hex4(struct pc_jpull *p, uint32_t *out)
{
	uint32_t v = 0;
	char d[16];
	int i, c, err;

	for (i = 0; i < 4; i++) {
		err = next_byte(p, &c);
		if (err)
			return err;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (uint32_t)(c - 'A' + 10);
		else if (c < 0)
			return fail_eof(p);
		else
			return fail_off(p, PROFCONV_ERR_CORRUPT, cur_off(p) - 1,
					"invalid \\u escape in string: %s is not a hex digit",
					describe(c, d, sizeof(d)));
	}
	*out = v;
	return 0;
}

/*
 * After a backslash.  Surrogate pairs are joined; a lone surrogate becomes
 * U+FFFD (JSON.parse accepts it, so this is not a syntax error).
 */
static int lex_escape(struct pc_jpull *p, int copy, int *bad)
{
	uint32_t hi = 0, u = 0;
	char d[16];
	int c, err;

	for (;;) {
		err = next_byte(p, &c);
		if (err)
			return err;
		if (c != 'u') {
			unsigned char out;

			if (hi) {
				*bad = 1;
				if (copy) {
					err = put_cp(p, REPLACEMENT);
					if (err)
						return err;
				}
			}
			switch (c) {
			case '"':
			case '\\':
			case '/':
				out = (unsigned char)c;
				break;
			case 'b':
				out = '\b';
				break;
			case 'f':
				out = '\f';
				break;
			case 'n':
				out = '\n';
				break;
			case 'r':
				out = '\r';
				break;
			case 't':
				out = '\t';
				break;
			case -1:
				return fail_eof(p);
			default:
				return fail_off(p, PROFCONV_ERR_CORRUPT, cur_off(p) - 2,
						"invalid escape in string: '\\' followed by %s",
						describe(c, d, sizeof(d)));
			}
			return copy ? s_append(p, &out, 1) : 0;
		}
		err = hex4(p, &u);
		if (err)
			return err;
		if (hi) {
			if (u >= 0xdc00 && u <= 0xdfff) {
				u = 0x10000 + ((hi - 0xd800) << 10) + (u - 0xdc00);
				return copy ? put_cp(p, u) : 0;
			}
			*bad = 1;
			hi = 0;
			if (copy) {
				err = put_cp(p, REPLACEMENT);
				if (err)
					return err;
			}
		}
		if (u >= 0xd800 && u <= 0xdbff) {
			err = peek_byte(p, &c);
			if (err)
				return err;
			if (c == '\\') {
				p->pos++;
				hi = u;
				continue;
			}
			u = REPLACEMENT;
			*bad = 1;
		} else if (u >= 0xdc00 && u <= 0xdfff) {
			u = REPLACEMENT;
			*bad = 1;
		}
		return copy ? put_cp(p, u) : 0;
	}
}

/* At the opening quote.  With copy, the decoded text ends up in s[0..slen). */
static int lex_string(struct pc_jpull *p, int copy)
{
	int bad = 0, err;

	p->pos++;
	p->slen = 0;
	for (;;) {
		const unsigned char *s = p->pos, *e = p->end;
		unsigned char ch;

		while (e - s >= 8) {
			uint64_t v;

			memcpy(&v, s, 8);
			if (special8(v))
				break;
			s += 8;
		}
		while (s < e && !special1(*s))
			s++;
		if (copy && s > p->pos) {
			err = s_append(p, p->pos, (size_t)(s - p->pos));
			if (err)
				return err;
		}
		p->pos = s;
		if (s == e) {
			err = fill(p);
			if (err)
				return err;
			if (p->pos == p->end)
				return fail_tok(p, PROFCONV_ERR_CORRUPT_TRUNCATED,
						"unterminated string (end of input)");
			continue;
		}
		ch = *s;
		if (ch == '"') {
			p->pos = s + 1;
			break;
		}
		if (ch == '\\') {
			p->pos = s + 1;
			err = lex_escape(p, copy, &bad);
		} else if (ch < 0x20) {
			return fail_off(p, PROFCONV_ERR_CORRUPT, cur_off(p),
					"control character 0x%02x in string (must be escaped)",
					(unsigned)ch);
		} else {
			err = lex_utf8(p, copy, &bad);
		}
		if (err)
			return err;
	}
	if (bad)
		p->bad_utf8++;
	if (copy) {
		if (p->slen + 1 > p->scap) {
			err = grow_buf(p, &p->s, &p->scap, p->slen + 1);
			if (err)
				return err;
		}
		p->s[p->slen] = 0;
	}
	return 0;
}

/* --- numbers --- */

static inline int numchar(unsigned char c)
{
	return (unsigned char)(c - '0') < 10 || c == '.' || c == '-' || (c | 0x20) == 'e' ||
	       c == '+';
}

static const double pow10_exact[] = {
	1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static double c_strtod(struct pc_jpull *p, const char *s)
{
	locale_t old;
	double d;

	if (p->cloc == (locale_t)0)
		return strtod(s, NULL);
	old = uselocale(p->cloc);
	d = strtod(s, NULL);
	uselocale(old);
	return d;
}

size_t pc_jnum_scan(const char *s, const char *e, struct pc_jnum *n)
{
	const char *p = s;

#define DIGIT(q) ((q) < e && *(q) >= '0' && *(q) <= '9')
	memset(n, 0, sizeof(*n));
	n->exact = 1;
	if (p < e && *p == '-') {
		n->neg = 1;
		p++;
	}
	if (p < e && *p == '0') {
		p++;
	} else if (DIGIT(p)) {
		do {
			if (n->nd < 19) {
				n->m = n->m * 10 + (unsigned)(*p - '0');
				n->nd++;
			} else {
				n->exact = 0;
				n->e10++;
			}
			p++;
		} while (DIGIT(p));
	} else {
		return 0;
	}
	if (p < e && *p == '.') {
		n->has_frac = 1;
		p++;
		if (!DIGIT(p))
			return 0;
		do {
			unsigned dv = (unsigned)(*p - '0');

			if (n->m == 0 && dv == 0) {
				n->e10--;
			} else if (n->nd < 19) {
				n->m = n->m * 10 + dv;
				n->nd++;
				n->e10--;
			} else {
				n->exact = 0;
			}
			p++;
		} while (DIGIT(p));
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		long ev = 0;
		int eneg = 0;

		n->has_exp = 1;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (!DIGIT(p))
			return 0;
		do {
			if (ev < 100000)
				ev = ev * 10 + (*p - '0');
			p++;
		} while (DIGIT(p));
		n->e10 += eneg ? -ev : ev;
	}
#undef DIGIT
	return (size_t)(p - s);
}

int pc_jnum_value(const struct pc_jnum *n, double *d)
{
	if (!n->has_frac && !n->has_exp && n->exact) {
		/* integer syntax with at most 19 digits: exact unless out of int64 */
		if (!n->neg && n->m <= (uint64_t)INT64_MAX) {
			*d = (double)(int64_t)n->m;
			return 1;
		}
		if (n->neg && n->m <= (uint64_t)INT64_MAX + 1) {
			*d = n->m == (uint64_t)INT64_MAX + 1 ? (double)INT64_MIN
			     : n->m			  ? (double)-(int64_t)n->m
							  : -0.0;
			return 1;
		}
	}
	if (n->exact && n->nd <= 15 && n->e10 >= -22 && n->e10 <= 22) {
		double v = (double)n->m;

		v = n->e10 < 0 ? v / pow10_exact[-n->e10] : v * pow10_exact[n->e10];
		*d = n->neg ? -v : v;
		return 1;
	}
	return 0;
}

/*
 * The nearest double (pc_jnum_value(), else strtod() under the "C" locale,
 * so a host's decimal comma cannot stop "0.5" at its point).  Only texts with
 * over 15 significant digits or a large exponent need strtod(), so the
 * locale is made for the call (glibc hands out its static "C" object for
 * it, no allocation).
 */
int pc_jnum_text(const char *s, size_t len, double *d)
{
	struct pc_jnum n;
	locale_t c, old;
	double v;

	if (len == 0 || pc_jnum_scan(s, s + len, &n) != len)
		return 0;
	if (!pc_jnum_value(&n, &v)) {
		c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (c != (locale_t)0) {
			old = uselocale(c);
			v = strtod(s, NULL);
			uselocale(old);
			freelocale(c);
		} else {
			v = strtod(s, NULL);
		}
	}
	if (!pc_jnum_finite(v))
		return 0;
	*d = v;
	return 1;
}

/*
 * Check s[0..len) against the JSON number grammar and, with convert, fill
 * tok's value (pc_jnum_scan(), pc_jnum_value(); strtod() when those cannot
 * give it exactly).
 */
static int parse_number(struct pc_jpull *p, const char *s, size_t len, int convert)
{
	struct pc_jtok *t = &p->tok;
	struct pc_jnum n;

	if (pc_jnum_scan(s, s + len, &n) != len)
		return fail_tok(p, PROFCONV_ERR_CORRUPT, "invalid number '%.40s'", s);
	t->str = s;
	t->len = len;
	if (!convert)
		return 0;
	t->is_int = 0;
	if (!n.has_frac && !n.has_exp && n.exact && n.m <= (uint64_t)INT64_MAX + n.neg) {
		/* integer syntax with at most 19 digits that fits int64 */
		t->is_int = 1;
		t->i = n.neg ? (n.m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n.m)
			     : (int64_t)n.m;
	}
	if (!pc_jnum_value(&n, &t->d))
		t->d = c_strtod(p, s);
	return 0;
}

static int lex_number(struct pc_jpull *p, int convert)
{
	int err;

	p->slen = 0;
	for (;;) {
		const unsigned char *b = p->pos, *e = p->end;

		while (b < e && numchar(*b))
			b++;
		err = s_append(p, p->pos, (size_t)(b - p->pos));
		if (err)
			return err;
		p->pos = b;
		if (b < e)
			break;
		err = fill(p);
		if (err)
			return err;
		if (p->pos == p->end)
			break;
	}
	p->s[p->slen] = 0; /* s_append() keeps room for it */
	return parse_number(p, p->s, p->slen, convert);
}

static int lex_literal(struct pc_jpull *p, const char *word)
{
	size_t i;
	int c, err;

	for (i = 0; word[i]; i++) {
		err = next_byte(p, &c);
		if (err)
			return err;
		if (c != word[i])
			return fail_tok(p, PROFCONV_ERR_CORRUPT, "invalid literal (expected '%s')",
					word);
	}
	return 0;
}

/* --- the state machine --- */

/* Skip whitespace, a ',' in front of the next token and a leading BOM. */
static int prepare(struct pc_jpull *p, int *cp)
{
	int c, err;

	for (;;) {
		err = peek_nonws(p, &c);
		if (err)
			return err;
		if (c == ',' && p->state == ST_AFTER && p->depth) {
			p->pos++;
			p->state = p->stack[p->depth - 1] == '{' ? ST_KEY : ST_VALUE;
			continue;
		}
		if (c == 0xef && p->state == ST_START && cur_off(p) == 0) {
			int c1, c2;

			p->pos++;
			err = next_byte(p, &c1);
			if (!err)
				err = next_byte(p, &c2);
			if (err)
				return err;
			if (c1 != 0xbb || c2 != 0xbf)
				return fail_off(p, PROFCONV_ERR_CORRUPT, 0,
						"expected a value, got byte 0xef");
			continue;
		}
		*cp = c;
		return 0;
	}
}

static int close_container(struct pc_jpull *p)
{
	struct pc_jtok *t = &p->tok;

	p->pos++;
	p->depth--;
	t->type = p->stack[p->depth] == '{' ? PC_JT_OBJ_END : PC_JT_ARR_END;
	t->depth = p->depth;
	p->state = ST_AFTER;
	return 0;
}

static int lex_value(struct pc_jpull *p, int c, int skip)
{
	struct pc_jtok *t = &p->tok;
	char d[16];
	int err = 0;

	switch (c) {
	case '{':
	case '[':
		if (p->depth == p->max_depth)
			return fail_tok(p, PROFCONV_ERR_LIMIT, "nesting deeper than %u levels",
					p->max_depth);
		p->stack[p->depth] = (unsigned char)c;
		p->opened[p->depth].line = t->line;
		p->opened[p->depth].col = t->col;
		p->depth++;
		p->pos++;
		t->type = c == '{' ? PC_JT_OBJ_BEGIN : PC_JT_ARR_BEGIN;
		t->depth = p->depth;
		p->state = c == '{' ? ST_KEY_OR_END : ST_VALUE_OR_END;
		return 0;
	case '"':
		t->type = PC_JT_STRING;
		err = lex_string(p, !skip);
		if (!skip) {
			t->str = p->s ? p->s : "";
			t->len = p->slen;
		}
		break;
	case '-':
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
	case '8':
	case '9':
		t->type = PC_JT_NUMBER;
		err = lex_number(p, !skip);
		break;
	case 't':
		t->type = PC_JT_TRUE;
		err = lex_literal(p, "true");
		break;
	case 'f':
		t->type = PC_JT_FALSE;
		err = lex_literal(p, "false");
		break;
	case 'n':
		t->type = PC_JT_NULL;
		err = lex_literal(p, "null");
		break;
	case -1:
		return fail_eof(p);
	default:
		if (p->state == ST_VALUE)
			return fail_tok(p, PROFCONV_ERR_CORRUPT, "expected a value after '%c', got %s",
					p->stack[p->depth - 1] == '{' ? ':' : ',',
					describe(c, d, sizeof(d)));
		return fail_tok(p, PROFCONV_ERR_CORRUPT, "expected a value, got %s",
				describe(c, d, sizeof(d)));
	}
	if (err)
		return err;
	t->depth = p->depth;
	p->state = ST_AFTER;
	return 0;
}

static int next_tok(struct pc_jpull *p, int skip)
{
	struct pc_jtok *t = &p->tok;
	char d[16];
	int c, err, top;

	err = prepare(p, &c);
	if (err)
		return err;
	t->offset = cur_off(p);
	t->line = p->line;
	t->col = col_of(p, t->offset);
	t->str = NULL;
	t->len = 0;
	t->is_int = 0;
	t->i = 0;
	t->d = 0;
	switch (p->state) {
	case ST_END:
		t->type = PC_JT_EOF;
		t->depth = 0;
		return 0;
	case ST_AFTER:
		if (!p->depth) {
			if (c < 0) {
				p->state = ST_END;
				t->type = PC_JT_EOF;
				t->depth = 0;
				return 0;
			}
			return fail_tok(p, PROFCONV_ERR_CORRUPT,
					"unexpected %s after the top-level value",
					describe(c, d, sizeof(d)));
		}
		top = p->stack[p->depth - 1];
		if ((top == '{' && c == '}') || (top == '[' && c == ']'))
			return close_container(p);
		if (c < 0)
			return fail_eof(p);
		if (top == '{')
			return fail_tok(p, PROFCONV_ERR_CORRUPT,
					"expected ',' or '}' after object member, got %s",
					describe(c, d, sizeof(d)));
		return fail_tok(p, PROFCONV_ERR_CORRUPT,
				"expected ',' or ']' after array element, got %s",
				describe(c, d, sizeof(d)));
	case ST_KEY_OR_END:
	case ST_KEY:
		if (c == '}' && p->state == ST_KEY_OR_END)
			return close_container(p);
		if (c == '"') {
			t->type = PC_JT_KEY;
			err = lex_string(p, !skip);
			if (err)
				return err;
			if (!skip) {
				t->str = p->s ? p->s : ""; /* (an empty key before any buffer) */
				t->len = p->slen;
			}
			t->depth = p->depth;
			err = peek_nonws(p, &c);
			if (err)
				return err;
			if (c != ':') {
				if (c < 0)
					return fail_eof(p);
				return fail_off(p, PROFCONV_ERR_CORRUPT, cur_off(p),
						"expected ':' after object key, got %s",
						describe(c, d, sizeof(d)));
			}
			p->pos++;
			p->state = ST_VALUE;
			return 0;
		}
		if (c < 0)
			return fail_eof(p);
		if (p->state == ST_KEY)
			return fail_tok(p, PROFCONV_ERR_CORRUPT,
					"expected a string key after ',', got %s",
					describe(c, d, sizeof(d)));
		return fail_tok(p, PROFCONV_ERR_CORRUPT, "expected a string key or '}', got %s",
				describe(c, d, sizeof(d)));
	case ST_VALUE_OR_END:
		if (c == ']')
			return close_container(p);
		return lex_value(p, c, skip);
	case ST_START:
	case ST_VALUE:
		return lex_value(p, c, skip);
	}
	return pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL, "jpull: bad state %d", (int)p->state);
}

/* --- API --- */

int pc_jpull_new(struct profconv_ctx *ctx, struct pc_input *in, const struct pc_jpull_opts *opts,
		 struct pc_jpull **out)
{
	struct pc_jpull *p;

	*out = NULL;
	p = pc_calloc(ctx, 1, sizeof(*p));
	if (!p)
		return PROFCONV_ERR_NOMEM;
	p->ctx = ctx;
	p->in = in;
	p->name = pc_input_name(in);
	p->bufsize = opts && opts->chunk ? opts->chunk : DEFAULT_CHUNK;
	p->smax = opts && opts->max_string ? opts->max_string : DEFAULT_MAX_STRING;
	p->max_depth = opts && opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
	p->line = 1;
	p->state = ST_START;
	p->cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	p->lend = pc_input_lends(in);
	if (!p->lend)
		p->own = pc_alloc(ctx, p->bufsize);
	p->stack = pc_alloc(ctx, p->max_depth);
	p->opened = pc_calloc(ctx, p->max_depth, sizeof(*p->opened));
	if ((!p->lend && !p->own) || !p->stack || !p->opened ||
	    grow_buf(p, &p->s, &p->scap, 256)) {
		pc_jpull_free(p);
		return PROFCONV_ERR_NOMEM;
	}
	p->buf = p->own ? p->own : (const unsigned char *)"";
	p->pos = p->end = p->buf;
	*out = p;
	return 0;
}

void pc_jpull_free(struct pc_jpull *p)
{
	if (!p)
		return;
	if (p->cloc != (locale_t)0)
		freelocale(p->cloc);
	pc_free(p->ctx, p->own);
	pc_free(p->ctx, p->stack);
	pc_free(p->ctx, p->opened);
	pc_free(p->ctx, p->s);
	pc_free(p->ctx, p->c);
	pc_free(p->ctx, p);
}

int pc_jpull_next(struct pc_jpull *p, const struct pc_jtok **tok)
{
	int err = next_tok(p, 0);

	*tok = &p->tok;
	return err;
}

int pc_jpull_peek(struct pc_jpull *p, enum pc_jtype *type)
{
	int c, err;

	err = prepare(p, &c);
	if (err)
		return err;
	switch (p->state) {
	case ST_END:
		*type = PC_JT_EOF;
		return 0;
	case ST_AFTER:
		if (!p->depth && c < 0) {
			*type = PC_JT_EOF;
			return 0;
		}
		if (p->depth && p->stack[p->depth - 1] == '{' && c == '}') {
			*type = PC_JT_OBJ_END;
			return 0;
		}
		if (p->depth && p->stack[p->depth - 1] == '[' && c == ']') {
			*type = PC_JT_ARR_END;
			return 0;
		}
		break;
	case ST_KEY_OR_END:
	case ST_KEY:
		if (c == '"') {
			*type = PC_JT_KEY;
			return 0;
		}
		if (c == '}' && p->state == ST_KEY_OR_END) {
			*type = PC_JT_OBJ_END;
			return 0;
		}
		break;
	case ST_VALUE_OR_END:
	case ST_START:
	case ST_VALUE:
		if (c == ']' && p->state == ST_VALUE_OR_END) {
			*type = PC_JT_ARR_END;
			return 0;
		}
		switch (c) {
		case '{':
			*type = PC_JT_OBJ_BEGIN;
			return 0;
		case '[':
			*type = PC_JT_ARR_BEGIN;
			return 0;
		case '"':
			*type = PC_JT_STRING;
			return 0;
		case 't':
			*type = PC_JT_TRUE;
			return 0;
		case 'f':
			*type = PC_JT_FALSE;
			return 0;
		case 'n':
			*type = PC_JT_NULL;
			return 0;
		default:
			if (c == '-' || (c >= '0' && c <= '9')) {
				*type = PC_JT_NUMBER;
				return 0;
			}
		}
		break;
	}
	/* Not a valid next token: let next_tok() report exactly what it would. */
	err = next_tok(p, 1);
	if (!err)
		err = pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL, "jpull: peek/next disagree");
	return err;
}

int pc_jpull_skip_rest(struct pc_jpull *p)
{
	unsigned target;
	int err;

	if (!p->depth)
		return 0;
	target = p->depth - 1;
	while (p->depth > target) {
		err = next_tok(p, 1);
		if (err)
			return err;
	}
	return 0;
}

int pc_jpull_skip_value(struct pc_jpull *p)
{
	enum pc_jtype type = PC_JT_EOF;
	int err;

	err = pc_jpull_peek(p, &type);
	if (err)
		return err;
	if (type == PC_JT_EOF || type == PC_JT_KEY || type == PC_JT_OBJ_END ||
	    type == PC_JT_ARR_END)
		return pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL,
			       "jpull: skip_value called where no value starts");
	err = next_tok(p, 1);
	if (err)
		return err;
	if (type == PC_JT_OBJ_BEGIN || type == PC_JT_ARR_BEGIN)
		return pc_jpull_skip_rest(p);
	return 0;
}

static int capture(struct pc_jpull *p, int rest, const char **buf, size_t *len, size_t max)
{
	enum pc_jtype type;
	int err;

	*buf = NULL;
	*len = 0;
	if (!rest) {
		err = pc_jpull_peek(p, &type);
		if (err)
			return err;
	}
	p->capturing = 1;
	p->cap_from = p->pos;
	p->cap_off = cur_off(p);
	p->cap_line = p->line;
	p->cap_col = col_of(p, p->cap_off);
	p->clen = 0;
	p->cmax = max;
	err = rest ? pc_jpull_skip_rest(p) : pc_jpull_skip_value(p);
	if (!err)
		err = cap_append(p, p->cap_from, p->pos);
	p->capturing = 0;
	if (!err && p->clen + 1 > p->ccap)
		err = grow_buf(p, &p->c, &p->ccap, p->clen + 1);
	if (err)
		return err;
	p->c[p->clen] = 0;
	*buf = p->c;
	*len = p->clen;
	return 0;
}

int pc_jpull_capture_value(struct pc_jpull *p, const char **buf, size_t *len, size_t max)
{
	return capture(p, 0, buf, len, max);
}

int pc_jpull_capture_rest(struct pc_jpull *p, const char **buf, size_t *len, size_t max)
{
	return capture(p, 1, buf, len, max);
}

/*
 * The tokenizer over text already in memory (the bytes after an object's
 * '{', which stood at off, line, col, at depth): a copy of p that reads
 * nothing more, borrows p's container stack (only entries from depth - 1
 * up are written, which p no longer uses) and keeps its own scratch.
 */
static int recheck(struct pc_jpull *p, const char *obj, size_t len, uint64_t off, uint32_t line,
		   uint32_t col, unsigned depth, int *at_end)
{
	struct pc_jpull sub = *p;
	int err = 0;

	if (!depth || depth > p->max_depth)
		return pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL, "jpull: recheck at depth %u",
			       depth);
	sub.in = NULL;
	sub.buf = (const unsigned char *)obj;
	sub.own = NULL;
	sub.bufsize = len;
	sub.pos = sub.buf;
	sub.end = sub.buf + len;
	sub.buf_off = off + 1;
	sub.eof = 1;
	sub.line = line;
	sub.line_start = off + 1 - col;
	sub.s = NULL;
	sub.slen = sub.scap = 0;
	sub.capturing = 0;
	sub.c = NULL;
	sub.clen = sub.ccap = 0;
	sub.depth = depth;
	sub.stack[depth - 1] = '{';
	sub.opened[depth - 1].line = line;
	sub.opened[depth - 1].col = col;
	sub.state = ST_KEY_OR_END;
	while (!err && sub.depth >= depth)
		err = next_tok(&sub, 1);
	*at_end = sub.pos == sub.end;
	pc_free(p->ctx, sub.s);
	return err;
}

int pc_jpull_recheck(struct pc_jpull *p, const char *obj, size_t len, uint64_t off, uint32_t line,
		     uint32_t col, unsigned depth)
{
	int at_end;

	return recheck(p, obj, len, off, line, col, depth, &at_end);
}

void pc_jpull_window(const struct pc_jpull *p, const char **buf, size_t *len)
{
	*buf = (const char *)p->pos;
	*len = (size_t)(p->end - p->pos);
}

const struct pc_jtok *pc_jpull_next_object(struct pc_jpull *p)
{
	const unsigned char *s = p->pos, *e = p->end, *nl = NULL;
	struct pc_jtok *t = &p->tok;
	uint64_t off;

	/* after an element of an array, in the chunk: ',', at most one
	 * newline, '{' */
	if (p->state != ST_AFTER || !p->depth || p->depth == p->max_depth ||
	    p->stack[p->depth - 1] != '[' || e - s < 3 || *s != ',')
		return NULL;
	s++;
	if (*s == '\n')
		nl = s++;
	if (*s != '{')
		return NULL;
	if (nl) {
		p->line++;
		p->line_start = p->buf_off + (uint64_t)(nl + 1 - p->buf);
	}
	p->pos = s;
	off = cur_off(p);
	t->offset = off;
	t->line = p->line;
	t->col = col_of(p, off);
	t->str = NULL;
	t->len = 0;
	t->is_int = 0;
	t->i = 0;
	t->d = 0;
	/* lex_value()'s '{' */
	p->stack[p->depth] = '{';
	p->opened[p->depth].line = t->line;
	p->opened[p->depth].col = t->col;
	p->depth++;
	p->pos++;
	t->type = PC_JT_OBJ_BEGIN;
	t->depth = p->depth;
	p->state = ST_KEY_OR_END;
	return t;
}

void pc_jpull_consume_object(struct pc_jpull *p, size_t n, int newlines)
{
	const unsigned char *s = p->pos, *e = p->pos + n, *nl;

	while (newlines && (nl = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		p->line++;
		p->line_start = p->buf_off + (uint64_t)(nl + 1 - p->buf);
		s = nl + 1;
	}
	p->pos = e;
	p->depth--;
	p->state = ST_AFTER;
	p->tok.type = PC_JT_OBJ_END;
	p->tok.depth = p->depth;
}

/* Non-zero if any of the 8 bytes is '"' or '\\'. */
static inline int quote_or_bs8(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = v ^ (ones * '"');
	uint64_t b = v ^ (ones * '\\');

	return ((((q - ones) & ~q) | ((b - ones) & ~b)) & high) != 0;
}

int pc_jpull_raw_rest(struct pc_jpull *p, const char **buf, size_t *len, size_t max)
{
	const unsigned char *from = p->pos, *s = p->pos, *e;
	uint64_t off = cur_off(p) - 1; /* the '{' */
	uint32_t line = p->line, col = col_of(p, off);
	unsigned depth = 1, outer = p->depth;
	int in_str = 0, esc = 0, copying = 0, err;

	*buf = NULL;
	*len = 0;
	for (;;) {
		e = p->end;
		while (s < e) {
			unsigned char c;

			if (in_str) {
				if (esc) {
					esc = 0;
					s++;
					continue;
				}
				while (e - s >= 8) {
					uint64_t v;

					memcpy(&v, s, 8);
					if (quote_or_bs8(v))
						break;
					s += 8;
				}
				while (s < e && *s != '"' && *s != '\\')
					s++;
				if (s == e)
					break;
				if (*s++ == '\\')
					esc = 1;
				else
					in_str = 0;
				continue;
			}
			c = *s++;
			switch (c) {
			case '"':
				in_str = 1;
				break;
			case '{':
			case '[':
				depth++;
				break;
			case '}':
			case ']':
				if (--depth == 0)
					goto done;
				break;
			case '\n':
				p->line++;
				p->line_start = p->buf_off + (uint64_t)(s - p->buf);
				break;
			default:
				break;
			}
		}
		/* the chunk ends inside the object: copy from here on */
		p->pos = s;
		if (!copying) {
			copying = 1;
			p->capturing = 1;
			p->cap_from = from;
			p->cap_off = off + 1;
			p->cap_line = line;
			p->cap_col = col + 1;
			p->clen = 0;
			p->cmax = max;
		}
		err = fill(p);
		if (!err && p->pos == p->end) {
			/* the input ends inside the object: the tokenizer's own error */
			int at_end = 1;

			p->capturing = 0;
			err = recheck(p, p->c ? p->c : "", p->clen, off, line, col, outer, &at_end);
			/* an error before the last byte: the tokenizer would not
			 * have read to the end */
			p->error_before_eof = !at_end;
			if (!err)
				err = pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL,
					      "jpull: an object the input ends inside is complete");
		}
		if (err) {
			p->capturing = 0;
			return err;
		}
		s = p->pos;
	}
done:
	p->pos = s;
	if (copying) {
		err = cap_append(p, p->cap_from, s);
		p->capturing = 0;
		if (!err && p->clen + 1 > p->ccap)
			err = grow_buf(p, &p->c, &p->ccap, p->clen + 1);
		if (err)
			return err;
		p->c[p->clen] = 0;
		*buf = p->c;
		*len = p->clen;
	} else {
		if ((size_t)(s - from) > max) {
			struct pc_loc loc = { p->name, off + 1, line, col + 1 };

			return pc_fail(p->ctx, PROFCONV_ERR_LIMIT, &loc,
				       "value at byte offset %llu is larger than the limit of %zu "
				       "bytes",
				       (unsigned long long)(off + 1), max);
		}
		*buf = (const char *)from;
		*len = (size_t)(s - from);
	}
	p->depth--;
	p->state = ST_AFTER;
	p->tok.type = PC_JT_OBJ_END;
	p->tok.depth = p->depth;
	return 0;
}

unsigned pc_jpull_depth(const struct pc_jpull *p)
{
	return p->depth;
}

void pc_jpull_set_ctx(struct pc_jpull *p, struct profconv_ctx *ctx)
{
	p->ctx = ctx;
	pc_input_set_ctx(p->in, ctx);
}

struct pc_input *pc_jpull_input(const struct pc_jpull *p)
{
	return p->in;
}

unsigned pc_jpull_max_depth(const struct pc_jpull *p)
{
	return p->max_depth;
}

uint64_t pc_jpull_bad_utf8(const struct pc_jpull *p)
{
	return p->bad_utf8;
}

uint64_t pc_jpull_offset(const struct pc_jpull *p)
{
	return cur_off(p);
}

int pc_jpull_at_eof(const struct pc_jpull *p)
{
	return p->eof && p->pos == p->end && !p->error_before_eof;
}

void pc_jpull_loc(const struct pc_jpull *p, const struct pc_jtok *tok, struct pc_loc *loc)
{
	loc->path = p->name;
	loc->offset = tok->offset;
	loc->line = tok->line;
	loc->col = tok->col;
}
