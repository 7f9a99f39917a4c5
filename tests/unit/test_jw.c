/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jw.c - the streaming JSON writer: escapes, UTF-8 repair, numbers,
 * commas and nesting, misuse, latched sink errors, and a cJSON round trip.
 */
#include "json/pc_jw.h"

#include <cjson/cJSON.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>

#include "pc_test.h"
#include "pc_test_locale.h"

static struct profconv_ctx *ctx;

/* Finish w and return the output without its final newline (static buffer reused). */
static const char *done(struct pc_jw *w, struct membuf *b, int expect_err)
{
	int err = pc_jw_finish(w);

	PC_CHECK_EQ_INT(err, expect_err);
	if (b->len && b->p[b->len - 1] == '\n')
		b->p[--b->len] = 0;
	return b->p ? b->p : "";
}

/*
 * Close the array open in w and finish it: the output must be expect[0..o)
 * (the array's text without its ']'), the ']' and the newline.  expect
 * needs room for 2 more bytes.
 */
static void finish_array(struct pc_jw *w, struct membuf *b, char *expect, size_t o)
{
	pc_jw_arr_end(w);
	expect[o++] = ']';
	expect[o] = 0;
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);
	PC_CHECK_EQ_INT(b->len, o + 1);
	PC_CHECK(b->len == o + 1 && memcmp(b->p, expect, o) == 0);
	mem_reset(b);
}

/* One string value written as a document. */
static void check_str(const char *in, size_t len, const char *expect, uint64_t expect_repl)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	uint64_t repl;

	pc_jw_str(w, in, len);
	repl = pc_jw_replaced(w);
	PC_CHECK_EQ_STR(done(w, &b, 0), expect);
	PC_CHECK_EQ_INT(repl, expect_repl);
	mem_reset(&b);
}

static void test_escapes(void)
{
	static const char *const expect[32] = {
		"\"\\u0000\"", "\"\\u0001\"", "\"\\u0002\"", "\"\\u0003\"", "\"\\u0004\"",
		"\"\\u0005\"", "\"\\u0006\"", "\"\\u0007\"", "\"\\b\"",	    "\"\\t\"",
		"\"\\n\"",     "\"\\u000b\"", "\"\\f\"",     "\"\\r\"",	    "\"\\u000e\"",
		"\"\\u000f\"", "\"\\u0010\"", "\"\\u0011\"", "\"\\u0012\"", "\"\\u0013\"",
		"\"\\u0014\"", "\"\\u0015\"", "\"\\u0016\"", "\"\\u0017\"", "\"\\u0018\"",
		"\"\\u0019\"", "\"\\u001a\"", "\"\\u001b\"", "\"\\u001c\"", "\"\\u001d\"",
		"\"\\u001e\"", "\"\\u001f\"",
	};
	unsigned c;

	for (c = 0; c < 32; c++) {
		char s = (char)c;

		check_str(&s, 1, expect[c], 0);
	}
	check_str("\"", 1, "\"\\\"\"", 0);
	check_str("\\", 1, "\"\\\\\"", 0);
	check_str("\x7f", 1, "\"\x7f\"", 0); /* DEL is fine raw */
	check_str("/", 1, "\"/\"", 0);
	check_str("", 0, "\"\"", 0);
	check_str("a\"b\\c\nd", 7, "\"a\\\"b\\\\c\\nd\"", 0);
	check_str("x\0y", 3, "\"x\\u0000y\"", 0); /* embedded NUL: the length counts */
}

#define FFFD "\xef\xbf\xbd"

static void test_utf8(void)
{
	/* Valid sequences, including every boundary of Table 3-7, pass through. */
	check_str("\xc3\xa9", 2, "\"\xc3\xa9\"", 0);		     /* U+00E9 */
	check_str("\xc2\x80", 2, "\"\xc2\x80\"", 0);		     /* U+0080 */
	check_str("\xe2\x82\xac", 3, "\"\xe2\x82\xac\"", 0);	     /* U+20AC */
	check_str("\xe0\xa0\x80", 3, "\"\xe0\xa0\x80\"", 0);	     /* U+0800 */
	check_str("\xed\x9f\xbf", 3, "\"\xed\x9f\xbf\"", 0);	     /* U+D7FF */
	check_str("\xee\x80\x80", 3, "\"\xee\x80\x80\"", 0);	     /* U+E000 */
	check_str("\xef\xbf\xbf", 3, "\"\xef\xbf\xbf\"", 0);	     /* U+FFFF */
	check_str("\xf0\x90\x80\x80", 4, "\"\xf0\x90\x80\x80\"", 0); /* U+10000 */
	check_str("\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"", 0); /* U+1F600 */
	check_str("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"", 0); /* U+10FFFF */

	/* One U+FFFD per maximal ill-formed subpart. */
	check_str("\x80", 1, "\"" FFFD "\"", 1);			/* stray continuation */
	check_str("a\xbf" "b", 3, "\"a" FFFD "b\"", 1);
	check_str("\xc0\x80", 2, "\"" FFFD FFFD "\"", 1);		/* overlong NUL */
	check_str("\xc1\xbf", 2, "\"" FFFD FFFD "\"", 1);		/* overlong */
	check_str("\xe0\x80\x80", 3, "\"" FFFD FFFD FFFD "\"", 1);	/* overlong 3-byte */
	check_str("\xf0\x80\x80\x80", 4, "\"" FFFD FFFD FFFD FFFD "\"", 1); /* overlong 4 */
	check_str("\xed\xa0\x80", 3, "\"" FFFD FFFD FFFD "\"", 1);	/* surrogate D800 */
	check_str("\xed\xbf\xbf", 3, "\"" FFFD FFFD FFFD "\"", 1);	/* surrogate DFFF */
	check_str("\xf4\x90\x80\x80", 4, "\"" FFFD FFFD FFFD FFFD "\"", 1); /* U+110000 */
	check_str("\xf5\x80", 2, "\"" FFFD FFFD "\"", 1);
	check_str("\xfe\xff", 2, "\"" FFFD FFFD "\"", 1);
	check_str("\xe2\x82", 2, "\"" FFFD "\"", 1);			/* truncated at the end */
	check_str("\xe2\x82" "A", 3, "\"" FFFD "A\"", 1);		/* truncated mid-string */
	check_str("\xf0\x9f\x98", 3, "\"" FFFD "\"", 1);
	check_str("\xf0\x9f\x98" "\xc3\xa9", 5, "\"" FFFD "\xc3\xa9\"", 1);
	check_str("\xc3", 1, "\"" FFFD "\"", 1);
	check_str("ok\xc3\xa9\xff\n", 6, "\"ok\xc3\xa9" FFFD "\\n\"", 1);
}

/* U+FFFD counts strings, not sequences, and keys count too. */
static void test_replaced_count(void)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);

	pc_jw_obj_begin(w);
	pc_jw_key(w, "bad\xff");
	pc_jw_arr_begin(w);
	pc_jw_str(w, "\xff\xfe\xfd", 3);
	pc_jw_str_z(w, "fine");
	pc_jw_str_z(w, "\xc0");
	pc_jw_arr_end(w);
	pc_jw_obj_end(w);
	PC_CHECK_EQ_INT(pc_jw_replaced(w), 3);
	PC_CHECK_EQ_STR(done(w, &b, 0),
			"{\"bad" FFFD "\":[\"" FFFD FFFD FFFD "\",\"fine\",\"" FFFD "\"]}");
	mem_reset(&b);
}

static void test_integers(void)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);

	pc_jw_arr_begin(w);
	pc_jw_i64(w, INT64_MIN);
	pc_jw_i64(w, INT64_MAX);
	pc_jw_i64(w, 0);
	pc_jw_i64(w, -1);
	pc_jw_i64(w, 9);
	pc_jw_i64(w, 10);
	pc_jw_i64(w, -99);
	pc_jw_i64(w, 100);
	pc_jw_u64(w, UINT64_MAX);
	pc_jw_u64(w, 0);
	pc_jw_u64(w, 4294967296ULL);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_STR(done(w, &b, 0), "[-9223372036854775808,9223372036854775807,0,-1,9,10,-99,"
					"100,18446744073709551615,0,4294967296]");
	mem_reset(&b);
}

static void check_ns(int64_t ns, const char *expect)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);

	pc_jw_ns_ms(w, ns);
	PC_CHECK_EQ_STR(done(w, &b, 0), expect);
	mem_reset(&b);
}

static void test_ns_ms(void)
{
	check_ns(0, "0");
	check_ns(1500000, "1.5");
	check_ns(-1234500, "-1.2345");
	check_ns(1000000, "1");
	check_ns(-1000000, "-1");
	check_ns(1, "0.000001");
	check_ns(-1, "-0.000001");
	check_ns(-500, "-0.0005");
	check_ns(100, "0.0001");
	check_ns(123456789, "123.456789");
	check_ns(1700000000123456789LL, "1700000000123.456789");
	check_ns(INT64_MAX, "9223372036854.775807");
	check_ns(INT64_MIN, "-9223372036854.775808");
}

static void check_double(double v, const char *expect)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);

	pc_jw_double(w, v);
	PC_CHECK_EQ_STR(done(w, &b, 0), expect);
	mem_reset(&b);
}

static void test_doubles(void)
{
	check_double(0.0, "0");
	check_double(-0.0, "-0");
	check_double(0.1, "0.1");
	check_double(0.5, "0.5");
	check_double(100.0, "100");
	check_double(1.0 / 3.0, "0.3333333333333333");
	check_double(0.1 + 0.2, "0.30000000000000004");
	check_double(1e300, "1e+300");
	check_double(-2.5e-10, "-2.5e-10");
	check_double(5e-324, "4.94065645841247e-324");
	check_double(1.7976931348623157e308, "1.7976931348623157e+308");
	check_double(123456789012345678.0, "1.2345678901234568e+17");
	check_double(NAN, "null");
	check_double(INFINITY, "null");
	check_double(-INFINITY, "null");

	/* A host locale with a decimal comma must not leak into the output. */
	{
		locale_t comma = pc_test_comma_locale(), old;

		if (comma != (locale_t)0) {
			old = uselocale(comma);
			check_double(0.5, "0.5");
			check_double(1234.25, "1234.25");
			uselocale(old);
			freelocale(comma);
		}
	}
}

static void test_nesting(void)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	int i;

	pc_jw_obj_begin(w);
	pc_jw_key(w, "a");
	pc_jw_arr_begin(w);
	pc_jw_i64(w, 1);
	pc_jw_i64(w, 2);
	pc_jw_obj_begin(w);
	pc_jw_key(w, "b");
	pc_jw_null(w);
	pc_jw_key(w, "t");
	pc_jw_bool(w, 1);
	pc_jw_key(w, "f");
	pc_jw_bool(w, 0);
	pc_jw_obj_end(w);
	pc_jw_arr_begin(w);
	pc_jw_arr_end(w);
	pc_jw_arr_end(w);
	pc_jw_key(w, "c");
	pc_jw_obj_begin(w);
	pc_jw_obj_end(w);
	pc_jw_key(w, "r");
	pc_jw_raw(w, "{\"x\":[1,2]}", 11);
	pc_jw_key(w, "z");
	pc_jw_str_z(w, NULL);
	pc_jw_obj_end(w);
	PC_CHECK_EQ_STR(done(w, &b, 0), "{\"a\":[1,2,{\"b\":null,\"t\":true,\"f\":false},[]],"
					"\"c\":{},\"r\":{\"x\":[1,2]},\"z\":null}");
	/* The document ends with one newline. */
	mem_reset(&b);
	w = pc_jw_new(ctx, mem_write, &b);
	pc_jw_arr_begin(w);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);
	PC_CHECK_EQ_STR(b.p, "[]\n");
	mem_reset(&b);

	/* PC_JW_MAX_DEPTH levels work ... */
	w = pc_jw_new(ctx, mem_write, &b);
	for (i = 0; i < PC_JW_MAX_DEPTH; i++)
		pc_jw_arr_begin(w);
	for (i = 0; i < PC_JW_MAX_DEPTH; i++)
		pc_jw_arr_end(w);
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);
	PC_CHECK_EQ_INT(b.len, 2 * PC_JW_MAX_DEPTH + 1);
	mem_reset(&b);

	/* ... one more latches an internal error. */
	pc_clear_error(ctx);
	w = pc_jw_new(ctx, mem_write, &b);
	for (i = 0; i <= PC_JW_MAX_DEPTH; i++)
		pc_jw_arr_begin(w);
	for (i = 0; i <= PC_JW_MAX_DEPTH; i++)
		pc_jw_arr_end(w);
	PC_CHECK_EQ_INT(pc_jw_finish(w), PROFCONV_ERR_INTERNAL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "nesting") != NULL);
	pc_clear_error(ctx);
	mem_reset(&b);
}

/* Each misuse latches PROFCONV_ERR_INTERNAL and stops the output. */
static void test_misuse(void)
{
	struct membuf b = { 0 };
	struct pc_jw *w;
	int k;

	for (k = 0; k < 9; k++) {
		w = pc_jw_new(ctx, mem_write, &b);
		switch (k) {
		case 0: /* value in an object without a key */
			pc_jw_obj_begin(w);
			pc_jw_i64(w, 1);
			pc_jw_obj_end(w);
			break;
		case 1: /* key in an array */
			pc_jw_arr_begin(w);
			pc_jw_key(w, "k");
			pc_jw_arr_end(w);
			break;
		case 2: /* wrong closer */
			pc_jw_arr_begin(w);
			pc_jw_obj_end(w);
			break;
		case 3: /* close at depth 0 */
			pc_jw_arr_end(w);
			break;
		case 4: /* unclosed document */
			pc_jw_arr_begin(w);
			break;
		case 5: /* two top-level values */
			pc_jw_i64(w, 1);
			pc_jw_i64(w, 2);
			break;
		case 6: /* key without a value */
			pc_jw_obj_begin(w);
			pc_jw_key(w, "k");
			pc_jw_obj_end(w);
			break;
		case 7: /* two keys in a row */
			pc_jw_obj_begin(w);
			pc_jw_key(w, "k");
			pc_jw_key(w, "l");
			break;
		case 8: /* bulk elements outside an array */
			pc_jw_obj_begin(w);
			pc_jw_u32s(w, (const uint32_t[]){ 1 }, 1, 0, NULL);
			break;
		}
		PC_CHECK_EQ_INT(pc_jw_finish(w), PROFCONV_ERR_INTERNAL);
		PC_CHECK(strstr(profconv_errmsg(ctx), "JSON writer misuse") != NULL);
		pc_clear_error(ctx);
		mem_reset(&b);
	}
}

static void test_bulk(void)
{
	static const uint32_t u32[] = { 0, 7, PC_NONE, 4294967294u };
	static const uint16_t u16[] = { 3, UINT16_MAX, 65534 };
	static const uint64_t u64[] = { UINT64_MAX, 0x7fff12345678ULL, 5, UINT64_MAX - 1 };
	static const int64_t i64[] = { INT64_MIN, -1, 0, 42 };
	static const int64_t ns[] = { 1500000, PC_NO_TIME, -500, 0 };
	static const uint8_t u8[] = { 0, 1, 255 };
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);

	pc_jw_arr_begin(w);
	pc_jw_arr_begin(w);
	pc_jw_u32s(w, u32, 4, PC_NONE, "null");
	pc_jw_u32s(w, u32, 0, PC_NONE, "null"); /* nothing, no stray comma */
	pc_jw_u32s(w, u32, 2, 0, "-1");		/* appended to the same array */
	pc_jw_i64(w, 5);			/* element calls mix in */
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_u16s(w, u16, 3, UINT16_MAX, "null");
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_u64s(w, u64, 4, UINT64_MAX, "-1");
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_i64s(w, i64, 4);
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_ns_ms_s(w, ns, 4, PC_NO_TIME, "null");
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_u8s(w, u8, 3);
	pc_jw_bools(w, u8, 3);
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_str_z(w, "s");
	pc_jw_raw_repeat(w, "null", 4, 3);
	pc_jw_raw_repeat(w, "1", 1, 2);
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_raw_repeat(w, "0", 1, 0);
	pc_jw_arr_end(w);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_STR(done(w, &b, 0),
			"[[0,7,null,4294967294,-1,7,5],[3,null,65534],"
			"[-1,140733498807928,5,18446744073709551614],"
			"[-9223372036854775808,-1,0,42],[1.5,null,-0.0005,0],"
			"[0,1,255,false,true,true],[\"s\",null,null,null,1,1],[]]");
	mem_reset(&b);
}

/* Bulk columns and strings larger than the 64 KiB buffer come out whole. */
static void test_large(void)
{
	enum { N = 200000, SLEN = 200000 };
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	uint32_t *v = malloc(N * sizeof(*v));
	int64_t *t = malloc(N * sizeof(*t));
	char *s = malloc(SLEN);
	cJSON *doc, *a, *ts, *str, *e, *f;
	int i, ok = 1;

	for (i = 0; i < N; i++) {
		v[i] = (uint32_t)i * 2654435761u;
		t[i] = (int64_t)i * 1234567 - 5000000;
	}
	for (i = 0; i < SLEN; i++)
		s[i] = (char)('a' + i % 26);
	s[SLEN / 2] = '\n';
	pc_jw_obj_begin(w);
	pc_jw_key(w, "v");
	pc_jw_arr_begin(w);
	pc_jw_u32s(w, v, N / 2, 1, "null");
	pc_jw_u32s(w, v + N / 2, N - N / 2, 1, "null");
	pc_jw_arr_end(w);
	pc_jw_key(w, "t");
	pc_jw_arr_begin(w);
	pc_jw_ns_ms_s(w, t, N, PC_NO_TIME, "null");
	pc_jw_arr_end(w);
	pc_jw_key(w, "s");
	pc_jw_str(w, s, SLEN);
	pc_jw_obj_end(w);
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);
	PC_CHECK(b.calls > 10);

	doc = cJSON_Parse(b.p);
	PC_CHECK(doc != NULL);
	a = cJSON_GetObjectItemCaseSensitive(doc, "v");
	ts = cJSON_GetObjectItemCaseSensitive(doc, "t");
	str = cJSON_GetObjectItemCaseSensitive(doc, "s");
	PC_CHECK_EQ_INT(cJSON_GetArraySize(a), N);
	PC_CHECK_EQ_INT(cJSON_GetArraySize(ts), N);
	/* Walk the lists (cJSON_GetArrayItem() is linear). */
	e = a ? a->child : NULL;
	f = ts ? ts->child : NULL;
	for (i = 0; e && f && i < N; i++, e = e->next, f = f->next) {
		if (v[i] == 1 ? !cJSON_IsNull(e) : e->valuedouble != (double)v[i])
			ok = 0;
		if (fabs(f->valuedouble - (double)t[i] / 1e6) > 1e-9)
			ok = 0;
	}
	PC_CHECK_EQ_INT(i, N);
	PC_CHECK(ok);
	PC_CHECK(cJSON_IsString(str) && strlen(str->valuestring) == SLEN &&
		 memcmp(str->valuestring, s, SLEN) == 0);
	cJSON_Delete(doc);
	free(v);
	free(t);
	free(s);
	mem_reset(&b);
}

/*
 * Bulk columns byte for byte against snprintf: values of every digit count
 * (and the none token among them) across many flushes of the 64 KiB
 * buffer, a column's first element with and without an element before it,
 * and long runs of a repeated token.
 */
static void test_bulk_exact(void)
{
	enum { N = 120000 };
	uint32_t *v32 = malloc(N * sizeof(*v32));
	uint16_t *v16 = malloc(N * sizeof(*v16));
	uint64_t *v64 = malloc(N * sizeof(*v64));
	uint8_t *v8 = malloc(N);
	char *expect = malloc((size_t)N * 80), *e = expect;
	uint64_t x = 88172645463325252ULL;
	struct membuf b = { 0 };
	struct pc_jw *w;
	size_t i;

	for (i = 0; i < N; i++) {
		uint64_t mod = 1;
		unsigned digits, k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		digits = (unsigned)(x % 21); /* 0 to 20 digits' worth of magnitude */
		for (k = 0; k < digits && k < 19; k++)
			mod *= 10;
		v64[i] = digits >= 20 ? x : x % mod;
		v32[i] = (uint32_t)(i % 7 == 3 ? PC_NONE : v64[i] % ((i & 1) ? 4294967296ULL : 1000000000ULL));
		v16[i] = (uint16_t)v64[i];
		v8[i] = (uint8_t)(x >> 8);
	}
	w = pc_jw_new(ctx, mem_write, &b);
	pc_jw_arr_begin(w);
	pc_jw_arr_begin(w);
	pc_jw_u32s(w, v32, N, PC_NONE, "null");
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_i64(w, 1);
	pc_jw_u32s(w, v32, N, 0, NULL);
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_u16s(w, v16, N, 0, NULL);
	pc_jw_u64s(w, v64, N, 0, "-1");
	pc_jw_u8s(w, v8, N);
	pc_jw_bools(w, v8, N);
	pc_jw_arr_end(w);
	pc_jw_arr_begin(w);
	pc_jw_raw_repeat(w, "null", 4, N);
	pc_jw_raw_repeat(w, "0", 1, 3);
	pc_jw_raw_repeat(w, "-1", 2, N + 7);
	pc_jw_arr_end(w);
	pc_jw_arr_end(w);

	e += sprintf(e, "[[");
	for (i = 0; i < N; i++)
		e += v32[i] == PC_NONE ? sprintf(e, "%snull", i ? "," : "")
				       : sprintf(e, "%s%u", i ? "," : "", (unsigned)v32[i]);
	e += sprintf(e, "],[1");
	for (i = 0; i < N; i++)
		e += sprintf(e, ",%u", (unsigned)v32[i]);
	e += sprintf(e, "],[");
	for (i = 0; i < N; i++)
		e += sprintf(e, "%s%u", i ? "," : "", (unsigned)v16[i]);
	for (i = 0; i < N; i++)
		e += v64[i] ? sprintf(e, ",%llu", (unsigned long long)v64[i]) : sprintf(e, ",-1");
	for (i = 0; i < N; i++)
		e += sprintf(e, ",%u", (unsigned)v8[i]);
	for (i = 0; i < N; i++)
		e += sprintf(e, ",%s", v8[i] ? "true" : "false");
	e += sprintf(e, "],[");
	for (i = 0; i < N; i++)
		e += sprintf(e, "%snull", i ? "," : "");
	e += sprintf(e, ",0,0,0");
	for (i = 0; i < N + 7; i++)
		e += sprintf(e, ",-1");
	sprintf(e, "]]");
	PC_CHECK_EQ_STR(done(w, &b, 0), expect);
	PC_CHECK(b.calls > 20);
	mem_reset(&b);
	free(v32);
	free(v16);
	free(v64);
	free(v8);
	free(expect);
}

/* A sink that fails after K bytes: later calls do nothing, finish returns IO. */
static void test_sink_error(void)
{
	static const size_t ks[] = { 1, 100, 65535, 65536, 200000 };
	size_t j;

	for (j = 0; j < PC_ARRAY_SIZE(ks); j++) {
		struct membuf b = { 0 };
		struct pc_jw *w;
		int i;

		pc_clear_error(ctx);
		b.fail_after = ks[j];
		w = pc_jw_new(ctx, mem_write, &b);
		pc_jw_arr_begin(w);
		for (i = 0; i < 100000; i++) {
			pc_jw_str_z(w, "some text");
			pc_jw_i64(w, i);
		}
		pc_jw_arr_end(w);
		PC_CHECK_EQ_INT(pc_jw_finish(w), PROFCONV_ERR_IO);
		PC_CHECK(b.failed);
		PC_CHECK_EQ_INT(b.calls_after_fail, 0);
		PC_CHECK(b.len <= ks[j]);
		PC_CHECK_EQ_INT(ctx->status, PROFCONV_ERR_IO);
		PC_CHECK(strstr(profconv_errmsg(ctx), "writing the output failed") != NULL);
		mem_reset(&b);
	}
	pc_clear_error(ctx);
}

/* A document with every kind of value, parsed back with cJSON. */
static void test_roundtrip(void)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	static const char ctl[] = "tab\there \"q\" back\\slash \x01\x1f nl\n \xc3\xa9\xe2\x82\xac";
	cJSON *doc, *it;
	char c;

	pc_jw_obj_begin(w);
	pc_jw_key(w, "s");
	pc_jw_str(w, ctl, sizeof(ctl) - 1);
	pc_jw_key(w, "k\"ey\n");
	pc_jw_i64(w, -42);
	pc_jw_key(w, "big");
	pc_jw_i64(w, 9007199254740992LL);
	pc_jw_key(w, "ms");
	pc_jw_ns_ms(w, -1234500);
	pc_jw_key(w, "d");
	pc_jw_double(w, 0.1 + 0.2);
	pc_jw_key(w, "arr");
	pc_jw_arr_begin(w);
	for (c = 0; c < 5; c++)
		pc_jw_i64(w, c);
	pc_jw_null(w);
	pc_jw_bool(w, 1);
	pc_jw_arr_end(w);
	pc_jw_key(w, "bad");
	pc_jw_str(w, "a\xff" "b", 3);
	pc_jw_obj_end(w);
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);

	doc = cJSON_Parse(b.p);
	PC_CHECK(doc != NULL);
	it = cJSON_GetObjectItemCaseSensitive(doc, "s");
	PC_CHECK(cJSON_IsString(it) && strcmp(it->valuestring, ctl) == 0);
	it = cJSON_GetObjectItemCaseSensitive(doc, "k\"ey\n");
	PC_CHECK(cJSON_IsNumber(it) && it->valuedouble == -42);
	it = cJSON_GetObjectItemCaseSensitive(doc, "big");
	PC_CHECK(cJSON_IsNumber(it) && it->valuedouble == 9007199254740992.0);
	it = cJSON_GetObjectItemCaseSensitive(doc, "ms");
	PC_CHECK(cJSON_IsNumber(it) && it->valuedouble == -1.2345);
	it = cJSON_GetObjectItemCaseSensitive(doc, "d");
	PC_CHECK(cJSON_IsNumber(it) && it->valuedouble == 0.1 + 0.2);
	it = cJSON_GetObjectItemCaseSensitive(doc, "arr");
	PC_CHECK_EQ_INT(cJSON_GetArraySize(it), 7);
	PC_CHECK(cJSON_GetArrayItem(it, 4)->valuedouble == 4);
	PC_CHECK(cJSON_IsNull(cJSON_GetArrayItem(it, 5)));
	PC_CHECK(cJSON_IsTrue(cJSON_GetArrayItem(it, 6)));
	it = cJSON_GetObjectItemCaseSensitive(doc, "bad");
	PC_CHECK(cJSON_IsString(it) && strcmp(it->valuestring, "a" FFFD "b") == 0);
	cJSON_Delete(doc);
	mem_reset(&b);
}

/* Reference escaping for ASCII and valid UTF-8 (what the byte-by-byte path did). */
static size_t ref_escape(const unsigned char *in, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	out[o++] = '"';
	for (i = 0; i < len; i++) {
		unsigned c = in[i];

		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
			out[o++] = '\\';
			out[o++] = c == '\b' ? 'b' : c == '\f' ? 'f' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c < 0x20) {
			memcpy(out + o, "\\u00", 4);
			out[o + 4] = hex[c >> 4];
			out[o + 5] = hex[c & 15];
			o += 6;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o++] = '"';
	out[o] = 0;
	return o;
}

/*
 * The word-at-a-time copy: one byte that needs care (or a UTF-8 sequence)
 * at every position of strings of every length up to 40, so it falls in
 * every lane of a word and in the byte-wise tail; each byte value once.
 */
static void test_string_words(void)
{
	static const unsigned char specials[] = { '"', '\\', 0, 1, '\n', 0x1f, 0x7f, ' ', '~', '#', ']' };
	unsigned char in[48];
	char expect[48 * 6 + 3];
	size_t len, at, k;

	for (len = 1; len <= 40; len++) {
		for (at = 0; at < len; at++) {
			for (k = 0; k < sizeof(specials); k++) {
				memset(in, 'a' + (int)(len % 26), len);
				in[at] = specials[k];
				ref_escape(in, len, expect);
				check_str((const char *)in, len, expect, 0);
			}
			if (at + 2 <= len) { /* a two-byte sequence across lanes */
				memset(in, 'x', len);
				in[at] = 0xc3;
				in[at + 1] = 0xa9;
				ref_escape(in, len, expect);
				check_str((const char *)in, len, expect, 0);
			}
			memset(in, 'y', len); /* a stray continuation byte */
			in[at] = 0x80;
			memcpy(expect, "\"", 1);
			memset(expect + 1, 'y', at);
			memcpy(expect + 1 + at, FFFD, 3);
			memset(expect + 4 + at, 'y', len - at - 1);
			memcpy(expect + 3 + len, "\"", 2);
			check_str((const char *)in, len, expect, 1);
		}
	}
	for (k = 0; k < 256; k++) { /* each byte value between clean words */
		unsigned char b[17];

		memset(b, 'z', sizeof(b));
		b[9] = (unsigned char)k;
		if (k >= 0x80)
			continue; /* UTF-8: test_utf8() */
		ref_escape(b, sizeof(b), expect);
		check_str((const char *)b, sizeof(b), expect, 0);
	}
}

/* Doubles written without printf must match what printf writes. */
static void test_double_integers(void)
{
	static const double v[] = { 1, -1, 7, 10, 99, 100, 12345, -65536, 4294967296.0,
				    9007199254740992.0, -9007199254740993.0, 999999999999999.0,
				    -999999999999999.0, 1e15, -1e15, 1e16, 123456789012.0, 0.5,
				    1e14 + 0.5, -3.0, 1e-300 };
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(v); i++) {
		char ref[40];
		int prec;

		for (prec = 15; prec <= 17; prec++) {
			snprintf(ref, sizeof(ref), "%.*g", prec, v[i]);
			if (strtod(ref, NULL) == v[i])
				break;
		}
		check_double(v[i], ref);
	}
}

/* ns as ms against the digit-by-digit definition. */
/* ns as ms the slow way: snprintf of the integer part and of six decimals, zeros trimmed. */
static void ref_ns_ms(int64_t ns, char *expect, size_t size)
{
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	char f[8];
	int n, d;

	n = snprintf(expect, size, "%s%llu", ns < 0 ? "-" : "", (unsigned long long)(mag / 1000000));
	snprintf(f, sizeof(f), "%06u", (unsigned)(mag % 1000000));
	for (d = 6; d && f[d - 1] == '0'; d--)
		;
	if (d)
		snprintf(expect + n, size - (size_t)n, ".%.*s", d, f);
}

/*
 * Integers and ns->ms at their edges, against snprintf: 0, every power of
 * ten and its neighbours (where the digit count changes), the type's
 * limits, negatives, and for ns->ms every place of the last non-zero
 * decimal (where trailing zeros are trimmed).  Each value goes through the
 * single-value calls and the bulk ones.
 */
static void test_number_edges(void)
{
	uint64_t vals[200];
	size_t nv = 0, i;
	uint64_t p;
	unsigned k;

	vals[nv++] = 0;
	for (p = 1, k = 0; k < 20; k++, p *= 10) {
		vals[nv++] = p - 1;
		vals[nv++] = p;
		vals[nv++] = p + 1;
		vals[nv++] = p * 5 - 1;
		if (k == 19)
			break;
	}
	vals[nv++] = UINT16_MAX;
	vals[nv++] = UINT32_MAX - 1;
	vals[nv++] = UINT32_MAX;
	vals[nv++] = (uint64_t)UINT32_MAX + 1;
	vals[nv++] = (uint64_t)INT64_MAX;
	vals[nv++] = (uint64_t)INT64_MAX + 1;
	vals[nv++] = UINT64_MAX - 1;
	vals[nv++] = UINT64_MAX;
	for (k = 0; k < 64; k++) /* every bit length */
		vals[nv++] = ((uint64_t)1 << k) | ((uint64_t)1 << k >> 1);

	for (i = 0; i < nv; i++) {
		uint64_t v = vals[i];
		int64_t sv = (int64_t)v;
		char expect[64], got[160];
		struct membuf b = { 0 };
		struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
		uint32_t v32 = (uint32_t)v;
		uint16_t v16 = (uint16_t)v;
		int n;

		pc_jw_arr_begin(w);
		pc_jw_u64(w, v);
		pc_jw_i64(w, sv);
		pc_jw_i64(w, (int64_t)(0 - (uint64_t)sv)); /* INT64_MIN stays itself */
		pc_jw_u64s(w, &v, 1, 0, NULL);
		pc_jw_i64s(w, &sv, 1);
		pc_jw_u32s(w, &v32, 1, 0, NULL);
		pc_jw_u16s(w, &v16, 1, 0, NULL);
		pc_jw_arr_end(w);
		n = snprintf(got, sizeof(got), "[%llu,%lld,", (unsigned long long)v, (long long)sv);
		if (sv == INT64_MIN)
			n += snprintf(got + n, sizeof(got) - (size_t)n, "%lld", (long long)sv);
		else
			n += snprintf(got + n, sizeof(got) - (size_t)n, "%lld", -(long long)sv);
		snprintf(got + n, sizeof(got) - (size_t)n, ",%llu,%lld,%u,%u]", (unsigned long long)v,
			 (long long)sv, (unsigned)v32, (unsigned)v16);
		PC_CHECK_EQ_STR(done(w, &b, 0), got);
		mem_reset(&b);

		/* ns->ms: the value, its negation, and with each decimal place last */
		for (k = 0; k < 16; k++) {
			int64_t ns = sv;

			if (k & 8)
				ns = sv == INT64_MIN ? sv : -sv;
			switch (k & 7) {
			case 1: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 1); break;
			case 2: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 10); break;
			case 3: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 100); break;
			case 4: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 1000); break;
			case 5: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 10000); break;
			case 6: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 100000); break;
			case 7: ns = (int64_t)((uint64_t)ns / 1000000 * 1000000 + 999990); break;
			default: break;
			}
			ref_ns_ms(ns, expect, sizeof(expect));
			check_ns(ns, expect);
			w = pc_jw_new(ctx, mem_write, &b);
			pc_jw_arr_begin(w);
			pc_jw_ns_ms_s(w, &ns, 1, 0, "null");
			pc_jw_arr_end(w);
			snprintf(got, sizeof(got), "[%s]", ns ? expect : "null");
			PC_CHECK_EQ_STR(done(w, &b, 0), got);
			mem_reset(&b);
		}
	}
}

/*
 * The escaper: every byte value at every position of strings of 1 to 48
 * bytes (below, inside and across 8- and 16-byte blocks and the
 * overlapping last block), each string starting at every alignment of 0 to
 * 15 in memory; and a 4-byte UTF-8 sequence at every position.
 */
static void test_escaper_all_bytes(void)
{
	static unsigned char area[16 + 48];
	static char expect[48 * 6 + 8];
	size_t len, at, al;
	unsigned c;

	for (c = 0; c < 256; c++) {
		for (len = 1; len <= 48; len++) {
			for (at = 0; at < len; at++) {
				al = (c + len + at) % 16; /* every alignment, spread over the cases */
				unsigned char *in = area + al;

				memset(in, 'a' + (int)(at % 26), len);
				in[at] = (unsigned char)c;
				if (c < 0x80) {
					ref_escape(in, len, expect);
					check_str((const char *)in, len, expect, 0);
				} else { /* alone, every byte >= 0x80 is ill-formed */
					expect[0] = '"';
					memset(expect + 1, 'a' + (int)(at % 26), at);
					memcpy(expect + 1 + at, FFFD, 3);
					memset(expect + 4 + at, 'a' + (int)(at % 26), len - at - 1);
					memcpy(expect + 3 + len, "\"", 2);
					check_str((const char *)in, len, expect, 1);
				}
			}
		}
	}
	for (al = 0; al < 16; al++) {
		for (len = 4; len <= 48; len++) {
			for (at = 0; at + 4 <= len; at++) {
				unsigned char *in = area + al;

				memset(in, 'q', len);
				memcpy(in + at, "\xf0\x9f\x98\x80", 4);
				ref_escape(in, len, expect);
				check_str((const char *)in, len, expect, 0);
			}
		}
	}
}

/*
 * Strings of every kind of content (plain runs, escapes, UTF-8) and of
 * lengths on both sides of the writer's worst-case room (a sixth of its
 * buffer), one after another in one array, so that they start at every
 * point of the buffer and some need a flush first: the output is the
 * reference escaping of each, comma-separated.
 */
static void test_escaper_stream(void)
{
	static const char *const pieces[] = { "abcdefgh", "\"", "\\", "\n", "\x01", "\xc3\xa9",
					      "\xf0\x9f\x98\x80", "0123456789abcdefXYZ", " ", "\x1f" };
	enum { NSTR = 400, MAXLEN = 13000 };
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	unsigned char *in = malloc(MAXLEN + 32);
	char *expect = malloc((size_t)NSTR * (MAXLEN + 32) * 6 + 16);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t o = 0;
	int k;

	if (!in || !expect) {
		PC_CHECK(0);
		free(in);
		free(expect);
		pc_jw_free(w);
		return;
	}
	expect[o++] = '[';
	pc_jw_arr_begin(w);
	for (k = 0; k < NSTR; k++) {
		size_t len = 0, want;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		want = k % 4 == 0 ? (size_t)(x % MAXLEN) : (size_t)(x % 300);
		while (len < want) {
			const char *pc = pieces[(x >> (len % 50)) % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t pl = strlen(pc);

			memcpy(in + len, pc, pl);
			len += pl;
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		}
		pc_jw_str(w, (const char *)in, len);
		if (k)
			expect[o++] = ',';
		o += ref_escape(in, len, expect + o);
	}
	finish_array(w, &b, expect, o);
	free(in);
	free(expect);
}

/*
 * Two bytes that need care in one string of 1 to 40 bytes, at every pair
 * of positions: a '"' or '\\' (escaped inside the 16-byte loop) followed
 * by another of them, a control byte or a UTF-8 sequence (which leave
 * that loop) or DEL, in the same block or the next.
 */
static void test_escaper_pairs(void)
{
	static const char *const second[] = { "\"",  "\\",   "\n",   "\x01",
					      "\xc3\xa9", "\x1f", "\x7f", "\xf0\x9f\x98\x80" };
	struct membuf b = { 0 };
	char *expect = malloc(400000);
	unsigned char in[64];
	size_t len, a, c, k, q;

	if (!expect) {
		PC_CHECK(0);
		return;
	}
	for (len = 1; len <= 40; len++) {
		for (q = 0; q < 2; q++) {
			struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
			size_t o = 0;

			expect[o++] = '[';
			pc_jw_arr_begin(w);
			for (a = 0; a < len; a++) {
				for (c = a + 1; c <= len; c++) {
					for (k = 0; k < PC_ARRAY_SIZE(second); k++) {
						size_t sl = strlen(second[k]), n;

						memset(in, 'a' + (int)(len % 26), sizeof(in));
						in[a] = q ? '\\' : '"';
						/* the second at c, or after the end (c == len) */
						memcpy(in + c, second[k], sl);
						n = c + sl > len ? c + sl : len;
						pc_jw_str(w, (const char *)in, n);
						if (o > 1)
							expect[o++] = ',';
						o += ref_escape(in, n, expect + o);
					}
				}
			}
			pc_jw_arr_end(w);
			expect[o++] = ']';
			expect[o] = 0;
			PC_CHECK_EQ_STR(done(w, &b, 0), expect);
			mem_reset(&b);
		}
	}
	free(expect);
}

/*
 * Keys of 0 to 19 bytes, plain or with one byte that needs care at each
 * position, in objects long enough that the buffer's end falls at every
 * place of a key: each as ref_escape() writes it.
 */
static void test_keys(void)
{
	static const unsigned char odd[] = { '"', '\\', '\n', 0x01, 0x7f, 0xc3 /* + 0xa9 */ };
	enum { ROUNDS = 1200 };
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	char *expect = malloc((size_t)ROUNDS * 20 * 8 * 40 + 16);
	unsigned char k[24];
	size_t o = 0, len, r, j;

	if (!expect) {
		PC_CHECK(0);
		pc_jw_free(w);
		return;
	}
	expect[o++] = '[';
	pc_jw_arr_begin(w);
	for (r = 0; r < ROUNDS; r++) {
		if (r)
			expect[o++] = ',';
		expect[o++] = '{';
		pc_jw_obj_begin(w);
		for (len = 0; len < 20; len++) {
			for (j = 0; j < 8; j++) {
				size_t n = len, at = (r + j) % (len ? len : 1);

				memset(k, 'k' + (int)(r % 10), sizeof(k));
				if (j < PC_ARRAY_SIZE(odd) && len) {
					k[at] = odd[j];
					if (odd[j] == 0xc3) {
						k[at + 1] = 0xa9;
						n = len > at + 1 ? len : at + 2;
					}
				}
				if (j == 7 && len)
					pc_jw_key(w, (const char *)memcpy(k + 20, "ab", 3));
				else
					pc_jw_key_n(w, (const char *)k, n);
				pc_jw_u64(w, len);
				if (len || j)
					expect[o++] = ',';
				if (j == 7 && len)
					o += ref_escape((const unsigned char *)"ab", 2, expect + o);
				else
					o += ref_escape(k, n, expect + o);
				o += (size_t)sprintf(expect + o, ":%u", (unsigned)len);
			}
		}
		pc_jw_obj_end(w);
		expect[o++] = '}';
	}
	finish_array(w, &b, expect, o);
	free(expect);
}

/*
 * Many times through one writer (bulk and single), sorted and not, signs
 * mixed, crossing the hundreds of ms the writer keeps from one value to the
 * next: each as the reference formats it.
 */
static void test_ns_ms_sequence(void)
{
	enum { N = 3000 };
	static int64_t t[N];
	static char expect[N * 32 + 8];
	struct membuf b = { 0 };
	struct pc_jw *w;
	uint64_t x = 0x2545f4914f6cdd1dull;
	size_t o = 0;
	int i, pass;

	for (i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i < N / 3)
			t[i] = 99000000 + (int64_t)i * 137777; /* sorted across 100 ms steps */
		else if (i < 2 * N / 3)
			t[i] = (i & 1 ? -1 : 1) * (t[i - N / 3] + (int64_t)(x % 3)); /* signs flip */
		else
			t[i] = (int64_t)(i & 2 ? 0 - (x >> (i % 64)) : x >> (i % 64)); /* any size */
	}
	for (pass = 0; pass < 2; pass++) {
		w = pc_jw_new(ctx, mem_write, &b);
		o = 0;
		expect[o++] = '[';
		pc_jw_arr_begin(w);
		if (pass == 0)
			pc_jw_ns_ms_s(w, t, N, PC_NO_TIME, "null");
		for (i = 0; i < N; i++) {
			if (pass == 1)
				pc_jw_ns_ms(w, t[i]);
			if (i)
				expect[o++] = ',';
			ref_ns_ms(t[i], expect + o, sizeof(expect) - o);
			o += strlen(expect + o);
		}
		pc_jw_arr_end(w);
		expect[o++] = ']';
		expect[o] = 0;
		PC_CHECK_EQ_STR(done(w, &b, 0), expect);
		mem_reset(&b);
	}
}

static void test_ns_ms_many(void)
{
	uint64_t x = 88172645463325252ull;
	int k;

	for (k = 0; k < 20000; k++) {
		int64_t ns;
		uint64_t mag;
		char expect[32], f[7];
		int n, d;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ns = (int64_t)(x >> (k % 40));
		if (k & 1)
			ns = -ns;
		if (k % 7 == 0)
			ns = ns / 1000 * 1000;
		mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
		n = snprintf(expect, sizeof(expect), "%s%llu", ns < 0 ? "-" : "",
			     (unsigned long long)(mag / 1000000));
		snprintf(f, sizeof(f), "%06u", (unsigned)(mag % 1000000));
		for (d = 6; d && f[d - 1] == '0'; d--)
			;
		if (d)
			snprintf(expect + n, sizeof(expect) - (size_t)n, ".%.*s", d, f);
		check_ns(ns, expect);
	}
}

/*
 * Every fraction of a millisecond, 0 to 999,999 ns (each place of the last
 * non-zero decimal, each group of three digits at 000), after integer
 * parts of 1 to 14 digits and both signs, in bulk columns (one value of
 * 5 a single call) against the snprintf reference.
 */
static void test_ns_ms_every_fraction(void)
{
	static const uint64_t ms_of[] = { 0, 7, 42, 100, 999, 4567, 123456, 99999999, 100000000,
					   9223372036853ull };
	enum { N = 1000 };
	int64_t t[N];
	static char expect[N * 32 + 8];
	struct membuf b = { 0 };
	uint32_t f0, i;

	for (f0 = 0; f0 < 1000000; f0 += N) {
		struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
		size_t o = 0;

		expect[o++] = '[';
		pc_jw_arr_begin(w);
		for (i = 0; i < N; i++) {
			uint64_t ms = ms_of[(f0 / N + i) % PC_ARRAY_SIZE(ms_of)];
			uint64_t mag = ms * 1000000 + f0 + i;

			t[i] = (i & 1) ? -(int64_t)mag : (int64_t)mag;
			if (i)
				expect[o++] = ',';
			ref_ns_ms(t[i], expect + o, sizeof(expect) - o);
			o += strlen(expect + o);
			if (i % 5 == 4) {
				pc_jw_ns_ms_s(w, t + i - 4, 4, PC_NO_TIME, "null");
				pc_jw_ns_ms(w, t[i]);
			}
		}
		pc_jw_arr_end(w);
		expect[o++] = ']';
		expect[o] = 0;
		PC_CHECK_EQ_STR(done(w, &b, 0), expect);
		mem_reset(&b);
	}
}

/* Element writers, their elements appended to an array, and values written again. */
static void test_elems(void)
{
	struct membuf eb = { 0 }, b = { 0 };
	struct pc_jw *e = pc_jw_new_elems(mem_write, &eb);
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	uint64_t from;
	const char *t;
	size_t n;

	PC_CHECK(e != NULL && w != NULL);
	pc_jw_obj_begin(e);
	pc_jw_key(e, "a");
	pc_jw_str_z(e, "x\xff");
	pc_jw_obj_end(e);
	pc_jw_null(e);
	pc_jw_i64(e, 3);
	PC_CHECK_EQ_INT(pc_jw_elems_flush(e), 0);
	PC_CHECK_EQ_INT(pc_jw_replaced(e), 1);
	PC_CHECK(eb.len == strlen("{\"a\":\"x" FFFD "\"},null,3") &&
		 memcmp(eb.p, "{\"a\":\"x" FFFD "\"},null,3", eb.len) == 0);

	pc_jw_arr_begin(w);
	pc_jw_i64(w, 1);
	pc_jw_raw_elems(w, eb.p, eb.len);
	pc_jw_raw_elems(w, "", 0);
	from = pc_jw_tell(w);
	pc_jw_obj_begin(w);
	pc_jw_key_n(w, "kz", 1);
	pc_jw_bool(w, 1);
	pc_jw_obj_end(w);
	n = pc_jw_since(w, from, &t); /* without its comma */
	PC_CHECK(n == 10 && memcmp(t, "{\"k\":true}", 10) == 0);
	pc_jw_raw(w, t, n);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_STR(done(w, &b, 0),
			"[1,{\"a\":\"x" FFFD "\"},null,3,{\"k\":true},{\"k\":true}]");

	/* the first element of an array, written again as the second */
	mem_reset(&b);
	w = pc_jw_new(ctx, mem_write, &b);
	pc_jw_arr_begin(w);
	from = pc_jw_tell(w);
	PC_CHECK_EQ_INT(pc_jw_since(w, from, &t), 0); /* nothing written yet */
	pc_jw_str_z(w, "s");
	n = pc_jw_since(w, from, &t);
	PC_CHECK(n == 3 && memcmp(t, "\"s\"", 3) == 0);
	pc_jw_raw(w, t, n);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_STR(done(w, &b, 0), "[\"s\",\"s\"]");

	/* a value no longer in the buffer is not written again */
	mem_reset(&b);
	w = pc_jw_new(ctx, mem_write, &b);
	pc_jw_arr_begin(w);
	from = pc_jw_tell(w);
	pc_jw_str_z(w, "t");
	{
		static char big[100000];

		memset(big, 'b', sizeof(big));
		pc_jw_str(w, big, sizeof(big));
	}
	PC_CHECK_EQ_INT(pc_jw_since(w, from, &t), 0);
	PC_CHECK(t == NULL);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);
	PC_CHECK(b.len == 100000 + 9); /* ["t","b...b"] and the newline */

	/* a reused element writer starts empty; unbalanced elements are an error */
	mem_reset(&eb);
	pc_jw_elems_reset(e);
	pc_jw_arr_begin(e);
	PC_CHECK_EQ_INT(pc_jw_elems_flush(e), PROFCONV_ERR_INTERNAL);
	mem_reset(&eb);
	pc_jw_elems_reset(e);
	pc_jw_u64(e, 5);
	PC_CHECK_EQ_INT(pc_jw_elems_flush(e), 0);
	PC_CHECK(eb.len == 1 && eb.p[0] == '5');
	pc_jw_free(e);
	mem_reset(&eb);
	mem_reset(&b);
}

int main(void)
{
	ctx = profconv_ctx_new();
	if (!ctx)
		return 1;
	test_escapes();
	test_utf8();
	test_replaced_count();
	test_integers();
	test_ns_ms();
	test_doubles();
	test_nesting();
	test_misuse();
	test_bulk();
	test_large();
	test_bulk_exact();
	test_sink_error();
	test_roundtrip();
	test_string_words();
	test_double_integers();
	test_ns_ms_many();
	test_elems();
	test_number_edges();
	test_escaper_all_bytes();
	test_escaper_stream();
	test_ns_ms_sequence();
	test_ns_ms_every_fraction();
	test_escaper_pairs();
	test_keys();
	PC_CHECK_EQ_INT(ctx->mem_used, 0); /* every writer was freed */
	profconv_ctx_free(ctx);
	return pc_test_done();
}
