/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jpull.c - the streaming JSON pull tokenizer: tokens and positions,
 * strict syntax errors with their exact "FILE:LINE:COL: what" text, nesting
 * limits, string escapes and UTF-8, number parsing (and pc_jnum_text(), under
 * a decimal-comma locale too), chunk boundaries, peek / skip / capture.
 */
#include "core/pc_config.h"

#include <float.h>
#include <stdlib.h>

#include "json/pc_jpull.h"
#include "pc_test.h"
#include "pc_test_locale.h"

static struct profconv_ctx *ctx;
static char dumpbuf[65536];
static int last_err;

static void append(size_t *n, const char *fmt, ...) PC_PRINTF(2, 3);

static void append(size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*n >= sizeof(dumpbuf) - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(dumpbuf + *n, sizeof(dumpbuf) - *n, fmt, ap);
	va_end(ap);
	if (r > 0)
		*n += (size_t)r < sizeof(dumpbuf) - *n ? (size_t)r : sizeof(dumpbuf) - *n - 1;
}

static void append_bytes(size_t *n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			append(n, "%c", c);
		else
			append(n, "\\x%02x", c);
	}
}

/* Tokenize doc[0..len) with the given chunk size: a compact dump, or "... ERR: message". */
static const char *dump_n(const char *doc, size_t len, size_t chunk)
{
	struct pc_jpull_opts o = { chunk, 0, 0 };
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	size_t n = 0;
	int err;

	dumpbuf[0] = 0;
	pc_clear_error(ctx);
	last_err = pc_input_open_mem(ctx, doc, len, "t.json", &in);
	if (last_err)
		return "open failed";
	last_err = pc_jpull_new(ctx, in, &o, &p);
	if (last_err) {
		pc_input_close(in);
		return "new failed";
	}
	for (;;) {
		err = pc_jpull_next(p, &t);
		if (err) {
			append(&n, "ERR: %s", profconv_errmsg(ctx));
			break;
		}
		switch (t->type) {
		case PC_JT_EOF:
			append(&n, "EOF");
			break;
		case PC_JT_OBJ_BEGIN:
			append(&n, "{ ");
			break;
		case PC_JT_OBJ_END:
			append(&n, "} ");
			break;
		case PC_JT_ARR_BEGIN:
			append(&n, "[ ");
			break;
		case PC_JT_ARR_END:
			append(&n, "] ");
			break;
		case PC_JT_KEY:
			append(&n, "K:");
			append_bytes(&n, t->str, t->len);
			append(&n, " ");
			break;
		case PC_JT_STRING:
			append(&n, "S:");
			append_bytes(&n, t->str, t->len);
			append(&n, " ");
			break;
		case PC_JT_NUMBER:
			append(&n, "N:%s ", t->str);
			break;
		case PC_JT_TRUE:
			append(&n, "T ");
			break;
		case PC_JT_FALSE:
			append(&n, "F ");
			break;
		case PC_JT_NULL:
			append(&n, "null ");
			break;
		}
		if (t->type == PC_JT_EOF)
			break;
	}
	last_err = err;
	pc_jpull_free(p);
	pc_input_close(in);
	return dumpbuf;
}

static const char *dump(const char *doc)
{
	return dump_n(doc, strlen(doc), 0);
}

/* The error message for doc (tokenized with chunk 1 and the default: both must agree). */
static const char *error_of(const char *doc)
{
	static char one[4096];
	const char *s;

	s = dump_n(doc, strlen(doc), 1);
	pc_snprintf(one, sizeof(one), "%s", strstr(s, "ERR: ") ? strstr(s, "ERR: ") + 5 : s);
	s = dump_n(doc, strlen(doc), 0);
	s = strstr(s, "ERR: ") ? strstr(s, "ERR: ") + 5 : s;
	PC_CHECK_EQ_STR(one, s);
	return s;
}

static void test_tokens(void)
{
	PC_CHECK_EQ_STR(dump("{\"a\": [1, -2.5e3, true, false, null, \"x\"], \"b\": {}, \"c\": []}"),
			"{ K:a [ N:1 N:-2.5e3 T F null S:x ] K:b { } K:c [ ] } EOF");
	PC_CHECK_EQ_INT(last_err, 0);
	PC_CHECK_EQ_STR(dump("  \r\n\t42 \n"), "N:42 EOF");
	PC_CHECK_EQ_STR(dump("\"top\""), "S:top EOF");
	PC_CHECK_EQ_STR(dump("\xef\xbb\xbf[true]"), "[ T ] EOF");
	PC_CHECK_EQ_STR(dump("[[],[[]],{\"\":{}}]"), "[ [ ] [ [ ] ] { K: { } } ] EOF");
}

static void test_positions(void)
{
	static const char doc[] = "{\n  \"ab\": [10,\n\t\"x\"],\n  \"c\": null\n}";
	static const struct {
		enum pc_jtype type;
		uint32_t line, col;
		uint64_t offset;
		unsigned depth;
	} want[] = {
		{ PC_JT_OBJ_BEGIN, 1, 1, 0, 1 }, { PC_JT_KEY, 2, 3, 4, 1 },
		{ PC_JT_ARR_BEGIN, 2, 9, 10, 2 }, { PC_JT_NUMBER, 2, 10, 11, 2 },
		{ PC_JT_STRING, 3, 2, 16, 2 },	  { PC_JT_ARR_END, 3, 5, 19, 1 },
		{ PC_JT_KEY, 4, 3, 24, 1 },	  { PC_JT_NULL, 4, 8, 29, 1 },
		{ PC_JT_OBJ_END, 5, 1, 34, 0 },	  { PC_JT_EOF, 5, 2, 35, 0 },
	};
	struct pc_jpull_opts o = { 3, 0, 0 };
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	struct pc_loc loc;
	size_t i;

	PC_CHECK_EQ_INT(pc_input_open_mem(ctx, doc, sizeof(doc) - 1, "pos.json", &in), 0);
	PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
	for (i = 0; i < PC_ARRAY_SIZE(want); i++) {
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, want[i].type);
		PC_CHECK_EQ_INT(t->line, want[i].line);
		PC_CHECK_EQ_INT(t->col, want[i].col);
		PC_CHECK_EQ_INT(t->offset, want[i].offset);
		PC_CHECK_EQ_INT(t->depth, want[i].depth);
		PC_CHECK_EQ_INT(pc_jpull_depth(p), want[i].depth);
	}
	pc_jpull_loc(p, t, &loc);
	PC_CHECK_EQ_STR(loc.path, "pos.json");
	PC_CHECK_EQ_INT(loc.line, 5);
	/* EOF is sticky */
	PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
	PC_CHECK_EQ_INT(t->type, PC_JT_EOF);
	PC_CHECK_EQ_INT(pc_jpull_offset(p), sizeof(doc) - 1);
	pc_jpull_free(p);
	pc_input_close(in);
}

static void test_errors(void)
{
	PC_CHECK_EQ_STR(error_of("{\"a\":1,}"), "t.json:1:8: expected a string key after ',', got '}'");
	PC_CHECK_EQ_INT(last_err, PROFCONV_ERR_CORRUPT);
	PC_CHECK_EQ_STR(error_of("{\"a\" 1}"), "t.json:1:6: expected ':' after object key, got '1'");
	PC_CHECK_EQ_STR(error_of("{\"a\":1 \"b\":2}"),
			"t.json:1:8: expected ',' or '}' after object member, got '\"'");
	PC_CHECK_EQ_STR(error_of("{\n  \"a\": 1\n  \"b\": 2\n}"),
			"t.json:3:3: expected ',' or '}' after object member, got '\"'");
	PC_CHECK_EQ_STR(error_of("[1 2]"),
			"t.json:1:4: expected ',' or ']' after array element, got '2'");
	PC_CHECK_EQ_STR(error_of("[1,]"), "t.json:1:4: expected a value after ',', got ']'");
	PC_CHECK_EQ_STR(error_of("{\"a\":}"), "t.json:1:6: expected a value after ':', got '}'");
	PC_CHECK_EQ_STR(error_of("{1:2}"), "t.json:1:2: expected a string key or '}', got '1'");
	PC_CHECK_EQ_STR(error_of("[1] x"), "t.json:1:5: unexpected 'x' after the top-level value");
	PC_CHECK_EQ_STR(error_of("[1][2]"), "t.json:1:4: unexpected '[' after the top-level value");
	PC_CHECK_EQ_STR(error_of(""), "t.json:1:1: empty input (no JSON value)");
	PC_CHECK_EQ_INT(last_err, PROFCONV_ERR_CORRUPT_TRUNCATED);
	PC_CHECK_EQ_STR(error_of("  \n "), "t.json:2:2: empty input (no JSON value)");
	PC_CHECK_EQ_STR(error_of("[\n  {\"a\": [1,\n"),
			"t.json:3:1: unexpected end of input: array opened at 2:9 is not closed");
	PC_CHECK_EQ_INT(last_err, PROFCONV_ERR_CORRUPT_TRUNCATED);
	PC_CHECK_EQ_STR(error_of("{\"a\""),
			"t.json:1:5: unexpected end of input: object opened at 1:1 is not closed");
	PC_CHECK_EQ_STR(error_of("[\"abc"), "t.json:1:2: unterminated string (end of input)");
	PC_CHECK_EQ_STR(error_of("01"), "t.json:1:1: invalid number '01'");
	PC_CHECK_EQ_STR(error_of("[-]"), "t.json:1:2: invalid number '-'");
	PC_CHECK_EQ_STR(error_of("[1.]"), "t.json:1:2: invalid number '1.'");
	PC_CHECK_EQ_STR(error_of("[1e+]"), "t.json:1:2: invalid number '1e+'");
	PC_CHECK_EQ_STR(error_of("[1.2.3]"), "t.json:1:2: invalid number '1.2.3'");
	PC_CHECK_EQ_STR(error_of("[+1]"), "t.json:1:2: expected a value, got '+'");
	PC_CHECK_EQ_STR(error_of("[.5]"), "t.json:1:2: expected a value, got '.'");
	PC_CHECK_EQ_STR(error_of("[tru]"), "t.json:1:2: invalid literal (expected 'true')");
	PC_CHECK_EQ_STR(error_of("[nul"), "t.json:1:2: invalid literal (expected 'null')");
	PC_CHECK_EQ_STR(error_of("[True]"), "t.json:1:2: expected a value, got 'T'");
	PC_CHECK_EQ_STR(error_of("[\"a\\qb\"]"),
			"t.json:1:4: invalid escape in string: '\\' followed by 'q'");
	PC_CHECK_EQ_STR(error_of("[\"a\\u12G4\"]"),
			"t.json:1:8: invalid \\u escape in string: 'G' is not a hex digit");
	PC_CHECK_EQ_STR(error_of("[\"a\tb\"]"),
			"t.json:1:4: control character 0x09 in string (must be escaped)");
	PC_CHECK_EQ_STR(error_of("{\"k\n\": 1}"),
			"t.json:1:4: control character 0x0a in string (must be escaped)");
	PC_CHECK_EQ_STR(error_of("[1,\x01]"), "t.json:1:4: expected a value after ',', got byte 0x01");
	PC_CHECK_EQ_STR(error_of("// c\n1"), "t.json:1:1: expected a value, got '/'");
	PC_CHECK_EQ_STR(error_of("\xef\xbb"), "t.json:1:1: expected a value, got byte 0xef");
}

static void test_depth(void)
{
	char doc[2 * 600 + 1];
	struct pc_jpull_opts o = { 0, 0, 4 };
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	int i, err = 0;

	for (i = 0; i < 512; i++) {
		doc[i] = '[';
		doc[512 + i] = ']';
	}
	doc[1024] = 0;
	dump_n(doc, 1024, 0);
	PC_CHECK_EQ_INT(last_err, 0);

	for (i = 0; i < 513; i++) {
		doc[i] = '[';
		doc[513 + i] = ']';
	}
	doc[1026] = 0;
	PC_CHECK_EQ_STR(error_of(doc), "t.json:1:513: nesting deeper than 512 levels");
	PC_CHECK_EQ_INT(last_err, PROFCONV_ERR_LIMIT);

	/* a configured limit */
	PC_CHECK_EQ_INT(pc_input_open_mem(ctx, "{\"a\":[{\"b\":[[1]]}]}", 19, "d.json", &in), 0);
	PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
	pc_clear_error(ctx);
	for (i = 0; i < 10 && !err; i++)
		err = pc_jpull_next(p, &t);
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_LIMIT);
	PC_CHECK_EQ_STR(profconv_errmsg(ctx), "d.json:1:13: nesting deeper than 4 levels");
	pc_jpull_free(p);
	pc_input_close(in);
}

/* The single string token of doc, decoded, with bad_utf8 in *bad. */
static const char *string_of(const char *doc, size_t doclen, size_t chunk, size_t *len,
			     uint64_t *bad)
{
	static char out[1024];
	struct pc_jpull_opts o = { chunk, 0, 0 };
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;

	out[0] = 0;
	*len = 0;
	pc_clear_error(ctx);
	if (pc_input_open_mem(ctx, doc, doclen, "s.json", &in))
		return "open failed";
	if (pc_jpull_new(ctx, in, &o, &p)) {
		pc_input_close(in);
		return "new failed";
	}
	if (pc_jpull_next(p, &t) == 0 && t->type == PC_JT_STRING && t->len < sizeof(out)) {
		memcpy(out, t->str, t->len + 1);
		*len = t->len;
		PC_CHECK_EQ_INT(t->str[t->len], 0);
	} else {
		pc_snprintf(out, sizeof(out), "ERR: %s", profconv_errmsg(ctx));
	}
	*bad = pc_jpull_bad_utf8(p);
	pc_jpull_free(p);
	pc_input_close(in);
	return out;
}

static void check_string(const char *doc, const char *want, size_t wantlen, uint64_t wantbad)
{
	size_t chunk;

	for (chunk = 1; chunk <= 9; chunk += 4) {
		size_t len;
		uint64_t bad;
		const char *s = string_of(doc, strlen(doc), chunk, &len, &bad);

		PC_CHECK_EQ_INT(len, wantlen);
		PC_CHECK(memcmp(s, want, wantlen) == 0);
		PC_CHECK_EQ_INT(bad, wantbad);
	}
}

static void test_strings(void)
{
	size_t len;
	uint64_t bad;

	check_string("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8, 0);
	check_string("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6, 0);
	check_string("\"\\ud83d\\ude00!\"", "\xf0\x9f\x98\x80!", 5, 0);
	check_string("\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80", 4, 0);
	check_string("\"a\\u0000b\"", "a\0b", 3, 0);
	check_string("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		     9, 0);
	/* lone surrogates and bad UTF-8 become U+FFFD and are counted once per string */
	check_string("\"\\ud83d\"", "\xef\xbf\xbd", 3, 1);
	check_string("\"\\ude00x\"", "\xef\xbf\xbdx", 4, 1);
	check_string("\"\\ud83dA\"", "\xef\xbf\xbd" "A", 4, 1);
	check_string("\"\\ud83d\\u0041\"", "\xef\xbf\xbd" "A", 4, 1);
	check_string("\"\\ud83d\\n\"", "\xef\xbf\xbd\n", 4, 1);
	check_string("\"\\ud83d\\ud83d\\ude00\"", "\xef\xbf\xbd\xf0\x9f\x98\x80", 7, 1);
	check_string("\"a\xff" "b\"", "a\xef\xbf\xbd" "b", 5, 1);
	check_string("\"\xc0\xaf\"", "\xef\xbf\xbd\xef\xbf\xbd", 6, 1);
	check_string("\"\xe2\x82\"", "\xef\xbf\xbd", 3, 1);
	check_string("\"\xed\xa0\x80\"", "\xef\xbf\xbd", 3, 1); /* UTF-8 encoded surrogate */
	check_string("\"\xf4\x90\x80\x80\"", "\xef\xbf\xbd", 3, 1); /* above U+10FFFF */
	/* a long string crossing many chunks, with escapes on the boundaries */
	{
		char doc[700], want[700];
		size_t i, n = 0, w = 0;

		doc[n++] = '"';
		for (i = 0; i < 100; i++) {
			memcpy(doc + n, "ab\\ncd", 6);
			n += 6;
			memcpy(want + w, "ab\ncd", 5);
			w += 5;
		}
		doc[n++] = '"';
		doc[n] = 0;
		check_string(doc, want, w, 0);
	}
	/* the size cap names the string's offset */
	{
		struct pc_jpull_opts o = { 4, 8, 0 };
		const struct pc_jtok *t;
		struct pc_input *in;
		struct pc_jpull *p;
		int err;

		pc_clear_error(ctx);
		PC_CHECK_EQ_INT(pc_input_open_mem(ctx, "[\"12345678\", \"123456789\"]", 25, "c.json",
						  &in), 0);
		PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_STR(t->str, "12345678");
		err = pc_jpull_next(p, &t);
		PC_CHECK_EQ_INT(err, PROFCONV_ERR_LIMIT);
		PC_CHECK_EQ_STR(profconv_errmsg(ctx),
				"c.json:1:14: string at byte offset 13 is longer than the limit of 8 bytes");
		pc_jpull_free(p);
		pc_input_close(in);
	}
	(void)string_of("\"x\"", 3, 0, &len, &bad);
	PC_CHECK_EQ_INT(len, 1);
}

struct numcase {
	const char *text;
	int is_int;
	int64_t i;
	double d;
};

static const struct numcase cases[] = {
	{ "0", 1, 0, 0.0 },
	{ "-0", 1, 0, -0.0 },
	{ "7", 1, 7, 7.0 },
	{ "-42", 1, -42, -42.0 },
	{ "9007199254740993", 1, 9007199254740993LL, 9007199254740992.0 },
	{ "9223372036854775807", 1, INT64_MAX, 9223372036854775807.0 },
	{ "-9223372036854775808", 1, INT64_MIN, -9223372036854775808.0 },
	{ "9223372036854775808", 0, 0, 9223372036854775808.0 },
	{ "18446744073709551616", 0, 0, 18446744073709551616.0 },
	{ "12345678901234567890123", 0, 0, 1.2345678901234568e22 },
	{ "1e3", 0, 0, 1000.0 },
	{ "1E3", 0, 0, 1000.0 },
	{ "1.5", 0, 0, 1.5 },
	{ "0.1", 0, 0, 0.1 },
	{ "123.456", 0, 0, 123.456 },
	{ "-1.25e+2", 0, 0, -125.0 },
	{ "2.5E-3", 0, 0, 0.0025 },
	{ "0.000001", 0, 0, 1e-6 },
	{ "1.7976931348623157e308", 0, 0, DBL_MAX },
	{ "5e-324", 0, 0, 4.9406564584124654e-324 },
	{ "1795311053805.2407", 0, 0, 1795311053805.2407 },
	{ "0.30000000000000004", 0, 0, 0.30000000000000004 },
	{ "100000000000000000000000", 0, 0, 1e23 },
	{ "1e-400", 0, 0, 0.0 },
};

static void test_numbers(void)
{
	struct pc_jpull_opts o = { 2, 0, 0 };
	size_t k;

	for (k = 0; k < PC_ARRAY_SIZE(cases); k++) {
		const struct pc_jtok *t;
		struct pc_input *in;
		struct pc_jpull *p;

		pc_clear_error(ctx);
		PC_CHECK_EQ_INT(pc_input_open_mem(ctx, cases[k].text, strlen(cases[k].text), "n.json",
						  &in), 0);
		PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_NUMBER);
		PC_CHECK_EQ_STR(t->str, cases[k].text);
		PC_CHECK_EQ_INT(t->is_int, cases[k].is_int);
		if (cases[k].is_int)
			PC_CHECK_EQ_INT(t->i, cases[k].i);
		if (t->d != cases[k].d)
			fprintf(stderr, "number %s: got %.17g want %.17g\n", cases[k].text, t->d,
				cases[k].d);
		PC_CHECK(t->d == cases[k].d);
		PC_CHECK_EQ_INT(t->d < 0 || (t->d == 0 && 1 / t->d < 0), cases[k].text[0] == '-');
		pc_jpull_free(p);
		pc_input_close(in);
	}
	/* overflow to infinity */
	{
		const struct pc_jtok *t;
		struct pc_input *in;
		struct pc_jpull *p;

		PC_CHECK_EQ_INT(pc_input_open_mem(ctx, "-1e400", 6, "n.json", &in), 0);
		PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, NULL, &p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK(t->d < -DBL_MAX);
		pc_jpull_free(p);
		pc_input_close(in);
	}
	/* the fast path agrees with strtod on many decimals */
	{
		uint64_t x = 88172645463325252ULL;
		char text[64];
		int i, same = 1;

		for (i = 0; i < 2000 && same; i++) {
			const struct pc_jtok *t;
			struct pc_input *in;
			struct pc_jpull *p;
			int digits;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			digits = (int)(x % 12);
			pc_snprintf(text, sizeof(text), "%llu.%0*llu",
				    (unsigned long long)(x >> 44),
				    digits + 1, (unsigned long long)((x >> 8) % 1000000000000ULL));
			pc_input_open_mem(ctx, text, strlen(text), "r.json", &in);
			pc_jpull_new(ctx, in, NULL, &p);
			if (pc_jpull_next(p, &t) || t->d != strtod(text, NULL)) {
				fprintf(stderr, "number %s: got %.17g want %.17g\n", text, t->d,
					strtod(text, NULL));
				same = 0;
			}
			pc_jpull_free(p);
			pc_input_close(in);
		}
		PC_CHECK(same);
	}
}

/*
 * pc_jnum_text(), which readers and writers use for the numbers a payload
 * keeps as text: the tokenizer's double for each of the cases above, and
 * the same under a host locale with a decimal comma (uselocale() here, as
 * an embedding program's setlocale() would be), where a plain strtod()
 * stops "1.5" at the point.  Texts that are not one finite JSON number give
 * 0.
 */
static void test_number_text(void)
{
	static const char *const bad[] = { "",	  "-1e400", "1e400", "0,5", "1.",
					   "--1", "0x10",   "1 ",    ".5",  "1e" };
	locale_t comma = pc_test_comma_locale(), old = (locale_t)0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		size_t k;

		if (pass == 1) {
			if (comma == (locale_t)0)
				break;
			old = uselocale(comma);
		}
		for (k = 0; k < PC_ARRAY_SIZE(cases); k++) {
			double d = -12345;
			int ok = pc_jnum_text(cases[k].text, strlen(cases[k].text), &d);

			if (!ok || d != cases[k].d)
				fprintf(stderr, "pc_jnum_text(%s), pass %d: got %d %.17g want %.17g\n",
					cases[k].text, pass, ok, d, cases[k].d);
			PC_CHECK(ok && d == cases[k].d);
			PC_CHECK_EQ_INT(d < 0 || (d == 0 && 1 / d < 0), cases[k].text[0] == '-');
		}
		for (k = 0; k < PC_ARRAY_SIZE(bad); k++) {
			double d = -12345;

			PC_CHECK_EQ_INT(pc_jnum_text(bad[k], strlen(bad[k]), &d), 0);
			PC_CHECK(d == -12345);
		}
		if (pass == 1)
			uselocale(old);
	}
	if (comma != (locale_t)0)
		freelocale(comma);
}

static const char chunk_doc[] =
	"\xef\xbb\xbf{\"meta\": {\"interval\": 1.25, \"version\": 36, \"names\": [\"caf\xc3\xa9\", "
	"\"\\u20ac \\ud83d\\ude00\", \"tab\\there\"]},\n"
	"  \"threads\": [ {\"samples\": {\"data\": [[null, 15.157832, 0], [3, 35.21966, 12],"
	" [-1, 1e-3, 2E+2], [9223372036854775807, -0.5, true]]}},\n"
	"\t{\"k\": false, \"empty\": {}, \"arr\": [[], [[]], \"\"]} ],\n"
	"  \"long\": \"0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\"\n}\n";

static void test_chunks(void)
{
	char ref[sizeof(dumpbuf)];
	size_t chunk;
	int same = 1;

	pc_snprintf(ref, sizeof(ref), "%s", dump_n(chunk_doc, sizeof(chunk_doc) - 1, 0));
	PC_CHECK_EQ_INT(last_err, 0);
	PC_CHECK(strstr(ref, "S:caf\\xc3\\xa9 ") != NULL);
	PC_CHECK(strstr(ref, "N:9223372036854775807 N:-0.5 T ] ] } } ") != NULL);
	for (chunk = 1; chunk <= 64; chunk++) {
		const char *s = dump_n(chunk_doc, sizeof(chunk_doc) - 1, chunk);

		if (strcmp(s, ref) != 0) {
			fprintf(stderr, "chunk %zu differs:\n%s\n%s\n", chunk, s, ref);
			same = 0;
		}
	}
	PC_CHECK(same);
}

static void test_skip_capture(void)
{
	static const char doc[] =
		"{\"meta\": {\"a\": [1, {\"b\": \"x\\\"y]}\"}], \"c\": null} ,\"n\": 5, \"s\": \"str\","
		" \"big\": [[1,2],[3,{\"q\":[]}]], \"after\": true}";
	size_t chunk;

	for (chunk = 1; chunk <= 300; chunk += (chunk < 12 ? 1 : 97)) {
		struct pc_jpull_opts o = { chunk, 0, 0 };
		const struct pc_jtok *t;
		struct pc_input *in;
		struct pc_jpull *p;
		enum pc_jtype type;
		const char *raw;
		size_t len;

		PC_CHECK_EQ_INT(pc_input_open_mem(ctx, doc, sizeof(doc) - 1, "k.json", &in), 0);
		PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(pc_jpull_peek(p, &type), 0);
		PC_CHECK_EQ_INT(type, PC_JT_KEY);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_STR(t->str, "meta");
		PC_CHECK_EQ_INT(pc_jpull_peek(p, &type), 0);
		PC_CHECK_EQ_INT(type, PC_JT_OBJ_BEGIN);
		PC_CHECK_EQ_INT(pc_jpull_capture_value(p, &raw, &len, 1000), 0);
		PC_CHECK_EQ_STR(raw, "{\"a\": [1, {\"b\": \"x\\\"y]}\"}], \"c\": null}");
		PC_CHECK_EQ_INT(len, strlen(raw));
		PC_CHECK_EQ_INT(pc_jpull_depth(p), 1);
		/* peek consumes the ',' but not the key */
		PC_CHECK_EQ_INT(pc_jpull_peek(p, &type), 0);
		PC_CHECK_EQ_INT(type, PC_JT_KEY);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_STR(t->str, "n");
		PC_CHECK_EQ_INT(pc_jpull_peek(p, &type), 0);
		PC_CHECK_EQ_INT(type, PC_JT_NUMBER);
		PC_CHECK_EQ_INT(pc_jpull_skip_value(p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_STR(t->str, "s");
		PC_CHECK_EQ_INT(pc_jpull_capture_value(p, &raw, &len, 5), 0);
		PC_CHECK_EQ_STR(raw, "\"str\"");
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_STR(t->str, "big");
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_ARR_BEGIN);
		PC_CHECK_EQ_INT(pc_jpull_capture_rest(p, &raw, &len, 1000), 0);
		PC_CHECK_EQ_STR(raw, "[1,2],[3,{\"q\":[]}]]");
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_STR(t->str, "after");
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_TRUE);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_OBJ_END);
		PC_CHECK_EQ_INT(pc_jpull_peek(p, &type), 0);
		PC_CHECK_EQ_INT(type, PC_JT_EOF);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_EOF);
		pc_jpull_free(p);
		pc_input_close(in);
	}
	/* skip_rest after a begin token, and a capture over its limit */
	{
		struct pc_jpull_opts o = { 3, 0, 0 };
		const struct pc_jtok *t;
		struct pc_input *in;
		struct pc_jpull *p;
		const char *raw;
		size_t len;

		pc_clear_error(ctx);
		PC_CHECK_EQ_INT(pc_input_open_mem(ctx, "[{\"a\":[1,2]},\n  [1,2,3,4]]", 25, "l.json",
						  &in), 0);
		PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_OBJ_BEGIN);
		PC_CHECK_EQ_INT(pc_jpull_skip_rest(p), 0);
		PC_CHECK_EQ_INT(pc_jpull_depth(p), 1);
		PC_CHECK_EQ_INT(pc_jpull_capture_value(p, &raw, &len, 5), PROFCONV_ERR_LIMIT);
		PC_CHECK_EQ_STR(profconv_errmsg(ctx),
				"l.json:2:3: value at byte offset 16 is larger than the limit of 5 bytes");
		pc_jpull_free(p);
		pc_input_close(in);
	}
	/* a syntax error inside a skipped value is still an error */
	{
		const struct pc_jtok *t;
		struct pc_input *in;
		struct pc_jpull *p;

		pc_clear_error(ctx);
		PC_CHECK_EQ_INT(pc_input_open_mem(ctx, "{\"a\": [1, {\"b\" 2}]}", 19, "e.json", &in),
				0);
		PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, NULL, &p), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(pc_jpull_skip_value(p), PROFCONV_ERR_CORRUPT);
		PC_CHECK_EQ_STR(profconv_errmsg(ctx),
				"e.json:1:16: expected ':' after object key, got '2'");
		pc_jpull_free(p);
		pc_input_close(in);
	}
}

/* The tokens of doc (chunk bytes a read), each as type@offset:line:col/depth,
 * then the error; with fast, pc_jpull_next_object() asked first each time
 * (*hits: how often it answered). */
static const char *walk_objects(const char *doc, size_t chunk, int fast, unsigned *hits)
{
	struct pc_jpull_opts o = { chunk, 0, 0 };
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	size_t n = 0;
	int err = 0;

	dumpbuf[0] = 0;
	*hits = 0;
	pc_clear_error(ctx);
	if (pc_input_open_mem(ctx, doc, strlen(doc), "t.json", &in))
		return "open failed";
	if (pc_jpull_new(ctx, in, &o, &p)) {
		pc_input_close(in);
		return "new failed";
	}
	for (;;) {
		t = fast ? pc_jpull_next_object(p) : NULL;
		if (t)
			(*hits)++;
		else
			err = pc_jpull_next(p, &t);
		if (err) {
			append(&n, "ERR: %s", profconv_errmsg(ctx));
			break;
		}
		append(&n, "%d@%llu:%u:%u/%u ", (int)t->type, (unsigned long long)t->offset, t->line,
		       t->col, t->depth);
		if (t->type == PC_JT_EOF)
			break;
	}
	pc_jpull_free(p);
	pc_input_close(in);
	return dumpbuf;
}

/*
 * pc_jpull_next_object() gives the tokens, positions and errors
 * pc_jpull_next() gives, whatever chunk an event's ",\n{" straddles, and
 * declines (the parser unmoved) what it does not take.
 */
static void test_next_object(void)
{
	static const char *const docs[] = {
		"[{\"a\":1},\n{\"b\":[2,{}]},{\"c\":3},\n\n{\"d\":4}, {\"e\":5},7,{\"f\":{}},\r\n{}]",
		"{\"traceEvents\":[\n{\"x\":1},\n{\"y\":{\"z\":[{},{}]}},\n{]}",
		"[{},{},\n{\"k\":01}]",
		"[[{},{}],{\"a\":{\"b\":[{},\n{}]}}]",
		"[{},\n{",
		"[{},{},\n",
	};
	size_t i, chunk;

	for (i = 0; i < PC_ARRAY_SIZE(docs); i++) {
		for (chunk = 1; chunk <= strlen(docs[i]) + 1; chunk++) {
			char want[sizeof(dumpbuf)];
			unsigned hits, h0;

			snprintf(want, sizeof(want), "%s", walk_objects(docs[i], chunk, 0, &h0));
			if (strcmp(walk_objects(docs[i], chunk, 1, &hits), want) != 0) {
				fprintf(stderr, "next_object doc %zu chunk %zu:\n got  %s\n want %s\n", i,
					chunk, dumpbuf, want);
				PC_CHECK(0);
				return;
			}
			/* read whole, the objects after a ',' take the fast way */
			if (chunk == strlen(docs[i]) + 1 && i == 0)
				PC_CHECK_EQ_INT(hits, 4);
		}
	}
}

int main(void)
{
	ctx = profconv_ctx_new();
	if (!ctx)
		return 1;
	test_tokens();
	test_positions();
	test_errors();
	test_depth();
	test_strings();
	test_numbers();
	test_number_text();
	test_chunks();
	test_skip_capture();
	test_next_object();
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
