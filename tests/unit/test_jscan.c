/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jscan.c - the in-memory checking scanner (src/json/jscan.c) and the
 * pull tokenizer's fast paths for it (pc_jpull_raw_rest(), recheck):
 * string escapes and surrogates, numbers (exactly strtod's doubles),
 * values printed byte for byte as cJSON prints them (fixed cases and
 * random ones checked against cJSON itself), the same accept/refuse
 * decisions as the strict tokenizer, raw capture across chunk boundaries,
 * and Chrome events whose errors still name FILE:LINE:COL.
 */
#include "core/pc_config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include <cJSON.h>

#include "json/pc_jpull.h"
#include "json/pc_jscan.h"
#include "model/pc_model.h"
#include "readers/pc_chrome.h"
#include "pc_test.h"

static struct profconv_ctx *ctx;
static struct pc_jscan js;

/* Decode the JSON string s; its bytes in out (NUL-terminated), the length, or -1. */
static long decode(const char *s, char *out, size_t cap)
{
	size_t off, len;

	pc_jscan_start(&js, s, strlen(s), 64);
	if (pc_jscan_string(&js, &off, &len) || js.p != js.end || len + 1 > cap)
		return -1;
	memcpy(out, pc_jscan_at(&js, off), len + 1);
	return (long)len;
}

static void test_strings(void)
{
	char b[256];

	PC_CHECK_EQ_INT(decode("\"plain\"", b, sizeof(b)), 5);
	PC_CHECK_EQ_STR(b, "plain");
	PC_CHECK_EQ_INT(decode("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", b, sizeof(b)), 12);
	PC_CHECK(memcmp(b, "a\"b\\c/d\b\f\n\r\t", 13) == 0);
	/* \u escapes: 2- and 3-byte UTF-8, a surrogate pair */
	PC_CHECK_EQ_INT(decode("\"\\u00e9\\u20AC\\ud83d\\ude00\"", b, sizeof(b)), 9);
	PC_CHECK(memcmp(b, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9) == 0);
	/* lone surrogates become U+FFFD, as the tokenizer decodes them */
	PC_CHECK_EQ_INT(decode("\"x\\udc00y\"", b, sizeof(b)), 5);
	PC_CHECK(memcmp(b, "x\xef\xbf\xbdy", 5) == 0);
	PC_CHECK_EQ_INT(decode("\"\\ud800\\n\"", b, sizeof(b)), 4);
	PC_CHECK(memcmp(b, "\xef\xbf\xbd\n", 4) == 0);
	PC_CHECK_EQ_INT(decode("\"\\ud800\\ud800\\udc00\"", b, sizeof(b)), 7);
	PC_CHECK(memcmp(b, "\xef\xbf\xbd\xf0\x90\x80\x80", 7) == 0);
	PC_CHECK_EQ_INT(decode("\"\\ud800\"", b, sizeof(b)), 3);
	/* \u0000 is a NUL inside the length; invalid UTF-8 is kept as it is (as cJSON keeps it) */
	PC_CHECK_EQ_INT(decode("\"a\\u0000b\"", b, sizeof(b)), 3);
	PC_CHECK(b[0] == 'a' && b[1] == 0 && b[2] == 'b' && b[3] == 0);
	PC_CHECK_EQ_INT(decode("\"\xff\xc3(\"", b, sizeof(b)), 3);
	PC_CHECK(memcmp(b, "\xff\xc3(", 3) == 0);
	/* long runs (the 8-byte loop) with an escape near the end */
	PC_CHECK_EQ_INT(decode("\"0123456789abcdefghijklmnopqrstuvwxyz\\t!\"", b, sizeof(b)), 38);
	PC_CHECK_EQ_STR(b, "0123456789abcdefghijklmnopqrstuvwxyz\t!");
	/* refused: raw control bytes, bad escapes, bad hex, unterminated */
	PC_CHECK_EQ_INT(decode("\"a\nb\"", b, sizeof(b)), -1);
	PC_CHECK_EQ_INT(decode("\"a\tb\"", b, sizeof(b)), -1);
	PC_CHECK_EQ_INT(decode("\"\\q\"", b, sizeof(b)), -1);
	PC_CHECK_EQ_INT(decode("\"\\u12g4\"", b, sizeof(b)), -1);
	PC_CHECK_EQ_INT(decode("\"\\ud800\\u12\"", b, sizeof(b)), -1);
	PC_CHECK_EQ_INT(decode("\"abc", b, sizeof(b)), -1);
	PC_CHECK_EQ_INT(decode("\"abc\\", b, sizeof(b)), -1);
}

/* The number at the start of s: 0 and *d, or -1; all of s must be the number. */
static int number(const char *s, double *d)
{
	pc_jscan_start(&js, s, strlen(s), 64);
	if (pc_jscan_number(&js, d))
		return -1;
	return js.p == js.end ? 0 : -1;
}

static void test_numbers(void)
{
	static const char *const ok[] = {
		"0", "-0", "7", "-12", "1.5", "0.1", "1e9", "1E+9", "2.5e-3", "1706968000000.123",
		"123456789012345678", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "123456789012345678901234567890", "0.30000000000000004",
		"1e400", "-1e400", "5e-324", "1e-400", "2.2250738585072014e-308",
		"1.7976931348623157e308", "0.000001", "100000000000000000000000",
		"3.141592653589793238462643383279", "1e22", "1e23", "4.35", "0.0000001234",
	};
	static const char *const bad[] = { "01", "-", "1.", "1e", ".5", "+1", "1.e5", "-a", "0x10",
					   "1e+", "--1" };
	double d;
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(ok); i++) {
		double want = strtod(ok[i], NULL);

		PC_CHECK_EQ_INT(number(ok[i], &d), 0);
		if (memcmp(&d, &want, sizeof(d)) != 0) {
			fprintf(stderr, "number %s: %.17g, strtod %.17g\n", ok[i], d, want);
			PC_CHECK(0);
		}
	}
	PC_CHECK(number("-0", &d) == 0 && d == 0 && signbit(d));
	PC_CHECK(number("1e400", &d) == 0 && isinf(d));
	for (i = 0; i < PC_ARRAY_SIZE(bad); i++)
		PC_CHECK_EQ_INT(number(bad[i], &d), -1);
}

/*
 * A lone zero (and "-0"), followed by what may follow a number or by what
 * makes it something else (a fraction, an exponent, a leading zero), at
 * every offset: the fast path's answer (error, value, end) is the slow
 * path's, and where a number ends after the zero, strtod()'s.
 */
static void test_zero_runs(void)
{
	static const char *const after[] = { "", ",", "]", "}", " ", ".5", "e3", "E-2", "x", "\xff",
					     "0", "7", ".", "e" };
	char buf[32];
	size_t a, off;

	for (a = 0; a < PC_ARRAY_SIZE(after); a++)
		for (off = 0; off < 4; off++) {
			int neg = (int)(off & 1), err, err2;
			size_t len = (size_t)snprintf(buf + off, sizeof(buf) - off, "%s0%s",
						      neg ? "-" : "", after[a]);
			char *end;
			double want = strtod(buf + off, &end), d = 1, d2 = 2;
			const char *p1;

			pc_jscan_start(&js, buf + off, len, 64);
			err = pc_jscan_number(&js, &d);
			p1 = js.p;
			pc_jscan_start(&js, buf + off, len, 64);
			err2 = pc_jscan_number_slow(&js, &d2);
			if (err != err2 || p1 != js.p || (!err && memcmp(&d, &d2, sizeof(d)) != 0) ||
			    (a < 10 && (err || p1 != end || memcmp(&d, &want, sizeof(d)) != 0))) {
				fprintf(stderr, "zero run '%s': %d %.17g, %zd bytes; slow %d %.17g, %zd\n",
					buf + off, err, d, p1 - (buf + off), err2, d2, js.p - (buf + off));
				PC_CHECK(0);
			}
		}
}

/*
 * Integers of 1 to 20 digits, each followed by what may follow a number
 * (or by the text's end), at every offset from an 8-byte boundary: the
 * fast path reads a run shorter than 8 digits from one load (and, with 16
 * bytes to read, up to 15 digits from two), and must stop exactly where
 * the digits do (or go on as a decimal or an exponent).
 */
static void test_number_runs(void)
{
	static const char *const after[] = { "", ",", "]", "}", " ", ".5", "e3", "E-2", "x", "\xff" };
	static const char digits[] = "98765432109876543210";
	char buf[64], *at;
	size_t nd, a, off;
	double d;

	/* (odd offsets: the text ends where the number's run does; even
	 * ones: it goes on to the end of buf, so 16 bytes can be read) */
	for (nd = 1; nd <= 20; nd++)
		for (a = 0; a < PC_ARRAY_SIZE(after); a++)
			for (off = 0; off < 16; off++) {
				int neg = (int)(off & 2) >> 1;
				size_t len;
				double want;
				char *end;

				memset(buf, 'Q', sizeof(buf));
				at = buf + off;
				len = (size_t)snprintf(at, sizeof(buf) - off, "%s%.*s%s", neg ? "-" : "",
						       (int)nd, digits, after[a]);
				want = strtod(at, &end);
				pc_jscan_start(&js, at, off & 1 ? len : sizeof(buf) - off, 64);
				PC_CHECK_EQ_INT(pc_jscan_number(&js, &d), 0);
				if (js.p != end || memcmp(&d, &want, sizeof(d)) != 0) {
					fprintf(stderr, "number run '%s': %.17g, %zu bytes; strtod %.17g, %zu\n",
						at, d, (size_t)(js.p - at), want, (size_t)(end - at));
					PC_CHECK(0);
				}
			}
}

/* pc_jscan_skip_checked() ends where pc_jscan_skip() does, on texts it accepted. */
static void test_skip_checked(void)
{
	static const char *const cases[] = {
		"{}", "[]", "1", "-2.5e3,", "true]", "null}", "\"a\"", "\"a\\\"]b\",\"c\"",
		"\"\\\\\"]", "\"x\\u0022]\"", "[1,[2,{\"a\":\"]}\"}],3] , 4",
		"{\"k\":{\"n\":[{\"callFrame\":{\"url\":\"a\\\"{\"}},{}]}}x",
		" { \"a\" : [ 1 , \"}\" ] } ,", "123 ", "\"\xc3\xa9\",", "[[[[[]]]]]]",
	};
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(cases); i++) {
		const char *t = cases[i];
		const char *want;

		pc_jscan_start(&js, t, strlen(t), 64);
		pc_jscan_ws(&js);
		PC_CHECK_EQ_INT(pc_jscan_skip(&js), 0);
		want = js.p;
		pc_jscan_start(&js, t, strlen(t), 64);
		pc_jscan_ws(&js);
		pc_jscan_skip_checked(&js);
		if (js.p != want) {
			fprintf(stderr, "skip_checked '%s': %zu bytes, skip %zu\n", t,
				(size_t)(js.p - t), (size_t)(want - t));
			PC_CHECK(0);
		}
	}
}

/*
 * pc_jscan_print(s) against cJSON_PrintUnformatted(cJSON_Parse(s)), and
 * again with checked set (the text taken as accepted before: no second
 * check, runs copied, numbers printed in their place), at every SIMD
 * level: the same bytes, the cursor after the same value.
 */
static int same_as_cjson(const char *s)
{
	cJSON *j = cJSON_Parse(s);
	char *want = j ? cJSON_PrintUnformatted(j) : NULL;
	int ok = want != NULL, checked, level, top = js.simd;

	for (checked = 0; checked <= 1 && ok; checked++) {
		for (level = checked ? 0 : top; level <= top && ok; level++) {
			js.simd = level;
			pc_jscan_start(&js, s, strlen(s), 64);
			js.checked = checked;
			ok = pc_jscan_ws(&js) >= 0 && pc_jscan_print(&js) == 0 &&
			     js.olen == strlen(want) && memcmp(js.out, want, js.olen) == 0 &&
			     (js.checked = 0, pc_jscan_ws(&js) < 0);
			if (!ok)
				fprintf(stderr, "print %s (checked %d, level %d):\n  got:   %.*s\n  cJSON: %s\n",
					s, checked, level, (int)js.olen, js.out ? js.out : "",
					want ? want : "(parse failed)");
		}
	}
	js.simd = top;
	free(want);
	cJSON_Delete(j);
	return ok;
}

static void test_print(void)
{
	static const char *const cases[] = {
		"{}",
		"[]",
		" { \"a\" : [ 1 , 2.5 , \"x\" , true , false , null ] , \"b\" : { } } ",
		"{\"frame\":\"0x1b3c5e7d9f\",\"nodes\":123}",
		"[1e9,1.5e300,-0,0.1,123456789012345678,2147483647,-2147483648,2147483648,1e400]",
		"[1E-7,12345.678901234567,3.14159,1e21,5e-324,-1.7976931348623157e308,-2147483649]",
		"[0.30000000000000004,100,1e2,2.5,1706968000000.123,4294967296.5,-0.0,1e15,1e16]",
		"[\"\\u0001\\u001f\\\"\\\\\\/\\b\\f\\n\\r\\t\\u007f\",\"\\u00e9\\ud83d\\ude00\"]",
		"{\"k\\u0000x\":\"v\\u0000w\",\"\\n\":\"\\u0000\"}",
		"[[[[[[]]]]],{\"a\":{\"b\":{\"c\":[{}]}}}]",
		"{\"a\":1,\"a\":2}",
		"[\"\xff raw bytes \xc3\"]",
		/* copied as they are when they print so (15 digits at most, no -0) */
		"[999999999999999,1000000000000000,-999999999999999,-1000000000000000,0,-0,10]",
		/* (one number a case: a value is copied only when all of it prints as it is) */
		"[0.0001]", "[0.00001]", "[-0.0001]", "[1.5]", "[1.50]", "[-0.25]", "[123456789.012345]",
		"[1234567890.123456]", "[0.1]", "[100.0]", "[0.0]", "[1e5]", "[99999999999999.9]",
		"[999999999999999.9]", "[1234.5e0]", "[-0]", "[1000000000000000]", "[999999999999999]",
		"{\"data\":{\"frame\":\"F4BE\",\"nodeId\":35,\"ok\":true,\"n\":null,\"a\":[0,[],{}]}}",
		"{\"u\":\"\xc3\xa9\xe2\x82\xac\",\"v\":[1,2 ],\"w\":\"a\\/b\"}",
		/* compact, with numbers that do not print as they are among
		 * runs that do (printed in their place with checked set) */
		"{\"id\":5083762675573532564,\"a\":[1.50,\"x\",-0,{\"b\":1e5}],\"c\":0.00001,"
		"\"d\":true,\"e\":null,\"f\":false,\"g\":[0.30000001192092896]}",
		"[[1.0],[[2.0]],{\"k\":{\"k\":-0.0}},\"s\",12345678901234567890]",
		"{\"s\":\"0123456789abcdef0123456789abcdef0123456789\",\"n\":1E+2}",
	};
	size_t i;
	unsigned seed = 12345;

	for (i = 0; i < PC_ARRAY_SIZE(cases); i++)
		PC_CHECK(same_as_cjson(cases[i]));
	/* random numbers of every shape, and random strings */
	for (i = 0; i < 3000; i++) {
		char doc[512];
		double d;
		int n;

		seed = seed * 1103515245u + 12345u;
		switch (seed % 5) {
		case 0: /* a random double, shortest and longest forms */
			memcpy(&d, (uint64_t[]){ ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^
						 (uint64_t)rand() },
			       sizeof(d));
			if (!isfinite(d))
				d = 1.25;
			n = snprintf(doc, sizeof(doc), "[%.17g,%.15g,%g]", d, d, d);
			break;
		case 1: /* integers around the int and 2^53 limits */
			n = snprintf(doc, sizeof(doc), "[%lld,%lld,%u]",
				     (long long)((int64_t)rand() * rand()) - (1LL << 40),
				     (long long)rand() - 2147483648LL + (long long)(seed % 4),
				     seed);
			break;
		case 2: /* decimals like trace timestamps */
			n = snprintf(doc, sizeof(doc), "{\"ts\":%u.%03u,\"x\":%u.%u}", seed % 100000000u,
				     (unsigned)rand() % 1000, (unsigned)rand() % 1000,
				     (unsigned)rand() % 100000);
			break;
		case 3: /* exponents */
			n = snprintf(doc, sizeof(doc), "[%de%d,-%d.%dE%+d]", rand() % 1000,
				     rand() % 600 - 300, rand() % 10, rand() % 1000, rand() % 40 - 20);
			break;
		default: { /* a string of random bytes and escapes */
			static const char *const parts[] = { "a", "\\n", "\\u0003", "\\u00e9", "\\\\",
							     "\\\"", "\xe2\x82\xac", "\\ud83d\\ude00",
							     "\\t", "z", "\\/", "\\u001F" };
			size_t k, m = seed % 9;

			n = snprintf(doc, sizeof(doc), "[\"");
			for (k = 0; k < m && n < 400; k++)
				n += snprintf(doc + n, sizeof(doc) - (size_t)n, "%s",
					      parts[(unsigned)rand() % PC_ARRAY_SIZE(parts)]);
			n += snprintf(doc + n, sizeof(doc) - (size_t)n, "\"]");
			break;
		}
		}
		if (n > 0 && (size_t)n < sizeof(doc))
			PC_CHECK(same_as_cjson(doc));
	}
}

/* A 64-bit pseudo-random number (xorshift64*), the same every run. */
static uint64_t rnd64(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * pc_jscan_fmt_g_int(d, prec) against snprintf("%1.<prec>g"): byte for
 * byte where it writes, and it writes for every integer from 1e15 to
 * below 2^64.  Edge cases (powers of ten and their neighbours, ties to
 * even, a rounding carry into a new digit, 2^53, the last double below
 * 2^64), integers drawn at random from the whole range and random bit
 * patterns; PC_FMT_ITERS=N draws N of each (millions by hand).
 */
static int fmt_same(double d, int prec)
{
	char want[64], got[64];
	double a = fabs(d);
	size_t n;
	int w;

	memset(got, 'x', sizeof(got));
	n = pc_jscan_fmt_g_int(got, d, prec);
	w = snprintf(want, sizeof(want), "%1.*g", prec, d);
	if (!n) {
		if (a >= 1e15 && a < 18446744073709551616.0 && a == (double)(uint64_t)a) {
			fprintf(stderr, "fmt_g_int(%s, %d) not handled\n", want, prec);
			return 0;
		}
		return 1;
	}
	if ((size_t)w != n || memcmp(got, want, n + 1) != 0) {
		fprintf(stderr, "fmt_g_int(%.17g, %d): %.*s, snprintf: %s\n", d, prec, (int)n, got,
			want);
		return 0;
	}
	return 1;
}

static void test_fmt_g_int(void)
{
	static const double edges[] = {
		1e15, 1e15 - 1, 1e15 + 1, 1e16, 1e16 - 1, 1e16 + 2, 1e17, 1e18, 1e19,
		999999999999999.0, 9999999999999998.0, 99999999999999984.0,
		999999999999999872.0, 9999999999999997952.0, 1000000000000005.0,
		1000000000000015.0, 1000000000000025.0, 1000000000000035.0,
		9999999999999995.0, 9999999999999985.0, 10000000000000005.0,
		100000000000000050.0, 100000000000000150.0, 1234567890123456.0,
		9007199254740992.0, 9007199254740993.0, 9007199254740994.0,
		10118210254099031029.0, 15184490877412980932.0, 5083762675573532669.0,
		6342202918989820.0, 18446744073709549568.0, 18446744073709551616.0,
		9223372036854775808.0, 4503599627370496.5, 1e15 + 0.5, 123.0, 0.0, 1e300,
	};
	const char *it = getenv("PC_FMT_ITERS");
	long iters = it ? atol(it) : 100000, i;
	size_t k;
	int prec, bad = 0;

	for (k = 0; k < PC_ARRAY_SIZE(edges); k++)
		for (prec = 1; prec <= 17; prec++) {
			bad += !fmt_same(edges[k], prec);
			bad += !fmt_same(-edges[k], prec);
		}
	for (i = 0; i < iters && bad < 10; i++) {
		uint64_t r = rnd64(), m = rnd64();
		double d;

		/* an integer in [1e15, 2^64): every binade from 2^49 to 2^63 */
		d = ldexp((double)((m >> 11) | (1ULL << 52)), (int)(r % 15) - 3);
		if (d < 1e15)
			d += 1e15;
		/* 15 and 17 are the precisions cJSON prints with */
		bad += !fmt_same(r & 1 ? -d : d, 15) + !fmt_same(d, 17) + !fmt_same(d, (int)(r % 17) + 1);
		/* an integer below 2^53 of up to 16 digits, and any bit pattern */
		d = (double)(1000000000000000ULL + m % 8007199254740993ULL);
		bad += !fmt_same(d, 15) + !fmt_same(d, 17);
		memcpy(&d, &r, sizeof(d));
		bad += !fmt_same(d, 15) + !fmt_same(d, 17);
	}
	PC_CHECK_EQ_INT(bad, 0);
	/* and through pc_jscan_print() (a space makes it print, not copy) */
	PC_CHECK(same_as_cjson("[10118210254099031029, 15184490877412980932, 6342202918989820,"
			       "-5083762675573532669, 1e15, 9007199254740993, 1000000000000015,"
			       "18446744073709551615, 1.8446744073709552e19, 1e19, -1e16, 0.07]"));
}

/*
 * pc_jscan_fmt_g_frac(d, prec) against snprintf("%1.<prec>g"): byte for
 * byte where it writes; it must write for the fractions of a real trace
 * (16 to 17 digits: times in ms with 3 decimals, sums of tenths).  Edge
 * cases (ties to even at each precision, a rounding carry into a new
 * digit, 1e-3 and 1e15 and their neighbours, trailing zeros), random
 * fractions of every magnitude in the range, and random bit patterns;
 * PC_FMT_ITERS=N draws N of each (millions by hand).
 */
static int frac_same(double d, int prec)
{
	char want[64], got[64];
	size_t n;
	int w;

	memset(got, 'x', sizeof(got));
	n = pc_jscan_fmt_g_frac(got, d, prec);
	w = snprintf(want, sizeof(want), "%1.*g", prec, d);
	if (n && ((size_t)w != n || memcmp(got, want, n + 1) != 0)) {
		fprintf(stderr, "fmt_g_frac(%.17g, %d): %.*s, snprintf: %s\n", d, prec, (int)n, got,
			want);
		return 0;
	}
	return 1;
}

static void test_fmt_g_frac(void)
{
	static const double edges[] = {
		0.125, 0.375, 2.5, 0.5, 1.5, 0.001, 0.0010000000000000002, 0.00099999999999999, 0.1,
		0.01, 0.07000000000000001, 0.08599999999999999, 769.5999999998603, 882.0999999998603,
		1795312317833.092, 1795312318420.472, 999999999999999.9, 999999999999999.5,
		99999.99999999999, 9.999999999999998, 0.9999999999999999, 123.456, 1.25, 1.35, 0.45,
		4503599627370495.5, 1.0000000000000002, 0.30000000000000004, 3.0517578125e-05,
	};
	const char *it = getenv("PC_FMT_ITERS");
	long iters = it ? atol(it) : 100000, i;
	size_t k;
	int prec, bad = 0, wrote = 0;
	char b[64];

	for (k = 0; k < PC_ARRAY_SIZE(edges); k++)
		for (prec = 1; prec <= 17; prec++) {
			bad += !frac_same(edges[k], prec);
			bad += !frac_same(-edges[k], prec);
		}
	/* what a real trace has: written here, not by snprintf() */
	wrote += pc_jscan_fmt_g_frac(b, 1795312318420.472, 17) > 0;
	PC_CHECK_EQ_STR(b, "1795312318420.4719");
	wrote += pc_jscan_fmt_g_frac(b, 1795312318420.472, 15) > 0;
	PC_CHECK_EQ_STR(b, "1795312318420.47");
	wrote += pc_jscan_fmt_g_frac(b, -0.07000000000000001, 17) > 0;
	PC_CHECK_EQ_STR(b, "-0.070000000000000007");
	wrote += pc_jscan_fmt_g_frac(b, 0.125, 2) > 0;
	PC_CHECK_EQ_STR(b, "0.12");
	PC_CHECK_EQ_INT(wrote, 4);
	/* carried into a new digit, an integer, out of the range: left to snprintf() */
	PC_CHECK(pc_jscan_fmt_g_frac(b, 9.96, 2) == 0 && pc_jscan_fmt_g_frac(b, 12.0, 17) == 0 &&
		 pc_jscan_fmt_g_frac(b, 1e-4, 17) == 0 && pc_jscan_fmt_g_frac(b, 1e15 + 0.5, 17) == 0);
	for (i = 0; i < iters && bad < 10; i++) {
		uint64_t r = rnd64(), m = rnd64();
		double d;

		/* a fraction of every binade from 2^-10 to 2^49 */
		d = ldexp((double)((m >> 11) | (1ULL << 52)), (int)(r % 60) - 62);
		bad += !frac_same(r & 1 ? -d : d, 15) + !frac_same(d, 17) +
		       !frac_same(d, (int)(r % 17) + 1);
		/* ms with 3 decimals, as a trace writes times */
		d = (double)(m % 2000000000000000ULL) / 1000.0;
		bad += !frac_same(d, 15) + !frac_same(d, 17);
		/* tenths summed (0.1 + 0.2) */
		d = (double)(r % 1000) * 0.1 + (double)(m % 1000) * 0.01;
		bad += !frac_same(d, 15) + !frac_same(d, 17);
		memcpy(&d, &r, sizeof(d));
		bad += !frac_same(d, 15) + !frac_same(d, 17);
	}
	PC_CHECK_EQ_INT(bad, 0);
	/* and through pc_jscan_print() (a space makes it print, not copy) */
	PC_CHECK(same_as_cjson("[1795312318420.472, 0.07000000000000001, -769.5999999998603,"
			       "0.30000000000000004, 0.08599999999999999, 123.4560000000000001]"));
}

/* Does the strict tokenizer accept doc as one whole value? */
static int jpull_accepts(const char *doc)
{
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	int err;

	pc_clear_error(ctx);
	if (pc_input_open_mem(ctx, doc, strlen(doc), "t.json", &in))
		return -1;
	if (pc_jpull_new(ctx, in, NULL, &p)) {
		pc_input_close(in);
		return -1;
	}
	while (!(err = pc_jpull_next(p, &t)) && t->type != PC_JT_EOF)
		;
	pc_jpull_free(p);
	pc_input_close(in);
	pc_clear_error(ctx);
	return !err;
}

/*
 * Does jscan accept doc as one whole value?  Asked at every SIMD level,
 * each from an allocation of exactly doc's length (an ASan build catches a
 * load past its end): -1 when the levels disagree.
 */
static int jscan_accepts(const char *doc, unsigned depth)
{
	size_t n = strlen(doc);
	char *t = malloc(n ? n : 1);
	int top = js.simd, level, first = -1, r = 0;

	if (!t)
		abort();
	memcpy(t, doc, n);
	for (level = 0; level <= top; level++) {
		js.simd = level;
		pc_jscan_start(&js, t, n, depth);
		r = pc_jscan_ws(&js) >= 0 && pc_jscan_skip(&js) == 0 && pc_jscan_ws(&js) < 0;
		if (level == 0)
			first = r;
		else if (r != first) {
			fprintf(stderr, "level %d %s '%s', level 0 does not\n", level,
				r ? "accepts" : "refuses", doc);
			r = -1;
			break;
		}
	}
	js.simd = top;
	free(t);
	return r;
}

/*
 * Every prefix of base, and base with each byte changed to each of repl's:
 * jscan and the tokenizer accept the same texts (base itself accepted).
 */
static void same_decisions(const char *base, const char *repl)
{
	size_t n = strlen(base), nr = strlen(repl), k, r;
	char *d = malloc(n + 1);
	int bad = 0;

	PC_CHECK(d != NULL);
	if (!d)
		return;
	PC_CHECK(jscan_accepts(base, 512) == 1);
	for (k = 0; k <= n && !bad; k++) {
		memcpy(d, base, k);
		d[k] = 0;
		bad |= jpull_accepts(d) != jscan_accepts(d, 512);
		for (r = 0; k < n && r < nr && !bad; r++) {
			memcpy(d, base, n + 1);
			d[k] = repl[r];
			if (jpull_accepts(d) != jscan_accepts(d, 512)) {
				fprintf(stderr, "disagree on %s\n", d);
				bad = 1;
			}
		}
	}
	free(d);
	PC_CHECK(!bad);
}

static void test_same_decisions(void)
{
	static const char *const docs[] = {
		"{\"a\":1}", "[1,2,3]", "\"s\"", "true", "null", "-0.5e-3", " [ ] ",
		"{\"a\":1,}", "[1,]", "[,1]", "{\"a\" 1}", "{a:1}", "[01]", "[1.]", "[tru]",
		"[truex]", "[nul]", "{\"a\":1}}", "[1 2]", "[\"\\x\"]", "[\"a\nb\"]", "{\"a\":}",
		"[1,{\"b\":[true,false,null,\"\\u00e9\"]}]", "[\"\\ud800\"]", "{\"\":\"\"}",
		"[1e5,1E+5,1e-5,-0]", "[-]", "[1e]", "[.1]", "[+1]", "[\"abc]", "[\"a\\\"]",
		"[[[[[[[[1]]]]]]]]", "{\"a\":[}", "{\"a\":\"b\",\"c\"}", "[\"\x01\"]",
	};
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(docs); i++) {
		int a = jpull_accepts(docs[i]), b = jscan_accepts(docs[i], 512);

		if (a != b)
			fprintf(stderr, "disagree on %s: jpull %d, jscan %d\n", docs[i], a, b);
		PC_CHECK_EQ_INT(a, b);
	}
	/* the depth limit counts the containers open at once */
	PC_CHECK(jscan_accepts("[[[1]]]", 3) == 1);
	PC_CHECK(jscan_accepts("[[[[1]]]]", 3) == 0);
	/* every prefix and every one-byte change of a value with all kinds of
	 * members: the same decisions (check_value()'s loop against the
	 * tokenizer) */
	{
		static const char base[] = " {\"a\" : [ 1 , -23 ,{ }, [ ] ,\"x\\\"y\"],\"b\":{\"c\":true,"
					   "\"d\":[null,false,1.5,123456789012345678,-0,\"\\u00e9\"]}\n} ";
		static const char repl[] = "{}[],:\" 0-.ex\\\n";
		same_decisions(base, repl);
	}
	/* the same for check_value()'s ways with integers 8 bytes a step
	 * (16 bytes or more left), lone zeros and literals: each prefix, and
	 * each byte changed to one of a wider set */
	{
		static const char base[] = "[0,12345678,123456789012345,1234567890123456,-7,true,false,"
					   "null,0.5,0e1,-0,{\"k\":0},[0],98765432,{\"t\":true,\"n\":null}"
					   ",1,22,333,4444,55555,666666,7777777,88888888,999999999]";
		static const char repl[] = "{}[],:\" 0-.eExtrufalsn19\\";
		same_decisions(base, repl);
	}
	/* strings, numbers and literals across the SIMD steps (16, 32
	 * bytes) and 64-byte blocks, a string with no escape as long as
	 * several blocks, backslash runs of every parity where a block ends
	 * and the next begins, whitespace and a control byte among it all */
	{
		static const char base[] =
			"{\"data\":{\"url\":\"https://example.org/a/very/long/path/that/crosses/the/64/"
			"byte/blocks/more/than/once/index.html\",\"n\":[12345678901234567,-0.5e-3,0,"
			"true,false,null,[],{},[[{}]]],\"frame\":\"D7FA4653F11582EF402441E575B14768\","
			"\"k\":\"a\\\\\\\"b\",\"x\":1}, \"id\":2813,\"s\":\"\x7f\xc3\xa9\"}";
		static const char repl[] = "{}[],:\" 0-.e\\\n\x01tx";
		char doc[256];
		size_t pos, run;

		same_decisions(base, repl);
		/* a run of 1-4 backslashes ending at each offset around the first
		 * and second block boundary, in a string: an even run leaves the
		 * quote after it closing the string */
		for (pos = 56; pos <= 136; pos++) {
			for (run = 1; run <= 4; run++) {
				size_t n = 0, k;
				int a, b;

				n += (size_t)snprintf(doc + n, sizeof(doc) - n, "[[\"");
				while (n + run < pos)
					doc[n++] = 'a';
				for (k = 0; k < run; k++)
					doc[n++] = '\\';
				memcpy(doc + n, "\"],1]", 6); /* even runs: accepted */
				a = jpull_accepts(doc);
				b = jscan_accepts(doc, 512);
				if (a != b)
					fprintf(stderr, "disagree on %s: jpull %d, jscan %d\n", doc, a, b);
				PC_CHECK_EQ_INT(a, b);
				memcpy(doc + n, "\"]\"]]", 6); /* odd runs: accepted */
				PC_CHECK_EQ_INT(jpull_accepts(doc), jscan_accepts(doc, 512));
			}
		}
	}
	/* deeper than check_value()'s own stack of 256 */
	{
		char d[2 * 300 + 2];

		memset(d, '[', 300);
		d[300] = '1';
		memset(d + 301, ']', 300);
		d[601] = 0;
		PC_CHECK(jscan_accepts(d, 300) == 1);
		PC_CHECK(jscan_accepts(d, 299) == 0);
		d[600] = '}';
		PC_CHECK(jscan_accepts(d, 300) == 0);
	}
}

/*
 * pc_jpull_raw_rest() over a document read 5 bytes at a time: each event's
 * bytes after its '{', whatever chunks they straddle; then the strict
 * error for an event the input ends inside.
 */
static void test_raw_rest(void)
{
	static const char doc[] = "[{\"a\":\"x}]\\\"\",\n \"b\":[1,{\"c\":2}]},\n{},{\"d\":\"\\\\\"}\n,"
				  "{\"e\":[1,2";
	static const char *const want[] = { "\"a\":\"x}]\\\"\",\n \"b\":[1,{\"c\":2}]}", "}",
					    "\"d\":\"\\\\\"}" };
	struct pc_jpull_opts o = { 5, 0, 0 };
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	const char *buf;
	size_t len, i;

	pc_clear_error(ctx);
	PC_CHECK_EQ_INT(pc_input_open_mem(ctx, doc, sizeof(doc) - 1, "t.json", &in), 0);
	PC_CHECK_EQ_INT(pc_jpull_new(ctx, in, &o, &p), 0);
	PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
	PC_CHECK_EQ_INT(t->type, PC_JT_ARR_BEGIN);
	for (i = 0; i < PC_ARRAY_SIZE(want); i++) {
		PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
		PC_CHECK_EQ_INT(t->type, PC_JT_OBJ_BEGIN);
		PC_CHECK_EQ_INT(pc_jpull_raw_rest(p, &buf, &len, 1000), 0);
		PC_CHECK(len == strlen(want[i]) && memcmp(buf, want[i], len) == 0);
		PC_CHECK_EQ_INT(pc_jpull_depth(p), 1);
	}
	/* the line count went on through the events: the next token is at 4:1 */
	PC_CHECK_EQ_INT(pc_jpull_next(p, &t), 0);
	PC_CHECK_EQ_INT(t->type, PC_JT_OBJ_BEGIN);
	PC_CHECK_EQ_INT(t->line, 4);
	PC_CHECK_EQ_INT(t->col, 2);
	PC_CHECK(pc_jpull_raw_rest(p, &buf, &len, 1000) != 0);
	PC_CHECK_EQ_STR(profconv_errmsg(ctx),
			"t.json:4:11: unexpected end of input: array opened at 4:7 is not closed");
	PC_CHECK(pc_jpull_at_eof(p));
	pc_jpull_free(p);
	pc_input_close(in);
}

/* Convert doc as a Chrome trace; the error message ("" on success). */
static const char *convert(const char *doc)
{
	struct profconv_profile *prof = NULL;
	int err;

	pc_clear_error(ctx);
	profconv_set_option(ctx, "from", "chrome");
	err = profconv_read_mem(ctx, doc, strlen(doc), "t.json", &prof);
	profconv_profile_free(prof);
	return err ? profconv_errmsg(ctx) : "";
}

/*
 * doc read from memory (events scanned on a thread of their own) and through
 * a callback 7 bytes a call (on the caller's thread): the same error, or the
 * same output bytes; the error message ("" on success).
 */
static const char *convert_both(const char *doc, char *msg, size_t cap)
{
	struct profconv_profile *a = NULL, *b = NULL;
	struct pc_test_chunks c = { doc, strlen(doc), 0, 0, 0 };
	struct membuf ga, gb;
	int ea, eb;

	memset(&ga, 0, sizeof(ga));
	memset(&gb, 0, sizeof(gb));
	pc_clear_error(ctx);
	profconv_set_option(ctx, "from", "chrome");
	ea = profconv_read_mem(ctx, doc, strlen(doc), "t.json", &a);
	snprintf(msg, cap, "%s", ea ? profconv_errmsg(ctx) : "");
	pc_clear_error(ctx);
	eb = profconv_read_cb(ctx, pc_test_read_7, &c, "t.json", &b);
	PC_CHECK_EQ_INT(ea, eb);
	PC_CHECK_EQ_STR(msg, eb ? profconv_errmsg(ctx) : "");
	if (a && b) {
		PC_CHECK_EQ_INT(profconv_write_cb(ctx, a, PROFCONV_OUT_PROCESSED, mem_write, &ga), 0);
		PC_CHECK_EQ_INT(profconv_write_cb(ctx, b, PROFCONV_OUT_PROCESSED, mem_write, &gb), 0);
		PC_CHECK(ga.len > 0 && ga.len == gb.len && memcmp(ga.p, gb.p, ga.len) == 0);
	}
	mem_reset(&ga);
	mem_reset(&gb);
	profconv_profile_free(a);
	profconv_profile_free(b);
	return msg;
}

/* Many batches of events (the scanner hands over about a thousand at a time), then an error. */
static void test_chrome_batches(void)
{
	size_t cap = 6000 * 120 + 200, n = 0;
	char *doc = malloc(cap), msg[1024];
	int i;

	if (!doc)
		return;
	n += (size_t)snprintf(doc + n, cap - n, "[");
	for (i = 0; i < 6000; i++)
		n += (size_t)snprintf(doc + n, cap - n,
				      "%s{\"ph\":\"X\",\"name\":\"s%d\",\"cat\":\"c\",\"ts\":%d,"
				      "\"dur\":3,\"pid\":1,\"tid\":%d,\"args\":{\"k\":\"v%d\"}}\n",
				      i ? "," : "", i % 50, i * 10, 1 + i % 3, i % 7);
	snprintf(doc + n, cap - n, "]");
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "");
	/* an error in the 5001st event: the events before it were handled first */
	{
		char *bad = strstr(doc, "\"ts\":50000,");

		PC_CHECK(bad != NULL);
		if (bad)
			bad[5] = 'x'; /* "ts":x0000 */
	}
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "t.json:5001:39: expected a value after ':', got 'x'");
	/* cut off in the 5001st event: a warning, the 5000 events before it kept */
	doc[strstr(doc, "\"ts\":x0000,") - doc] = 0;
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "");
	free(doc);
}

/*
 * The digits a text starts with, counted 16 bytes at a time with SSE2
 * and with SWAR arithmetic, and the integers of up to 15 digits read
 * inline (pc_jscan_int15()) as pc_jscan_number() reads them: every
 * length, and each byte value after the digits.
 */
static void test_digit_runs(void)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	char b[17];
	unsigned len, c, lv;

	for (len = 1; len <= 16; len++) {
		for (c = 0; c < 256; c++) {
			unsigned i;

			for (i = 0; i < 16; i++)
				b[i] = (char)('1' + (i * 7 + len) % 9);
			if (len < 16)
				b[len] = (char)c;
			b[16] = 0;
			{
				unsigned want = len < 16 && (c < '0' || c > '9') ? len : 16;

				if (len < 16 && c >= '0' && c <= '9') {
					/* a digit after: the run goes on to the first other byte (none) */
					want = 16;
				}
				for (lv = PC_JSCAN_SCALAR; lv <= PC_JSCAN_SSE2_LEVEL; lv++) {
					unsigned got = pc_jscan_digits16_at((int)lv, b);
					uint64_t v = 0;
					unsigned n;

					if (got != want)
						fprintf(stderr, "digits16 level %u len %u c %u: %u, want %u\n", lv, len,
							c, got, want);
					PC_CHECK(got == want);
					n = pc_jscan_int15((int)lv, b, &v);
					if (want <= 15 && b[want] != '.' && (b[want] | 0x20) != 'e') {
						struct pc_jscan sj;
						double d;

						pc_jscan_init(&sj, ctx);
						pc_jscan_start(&sj, b, 17, 8);
						PC_CHECK_EQ_INT(pc_jscan_number(&sj, &d), 0);
						PC_CHECK(n == want && (double)v == d && sj.p == b + n);
						pc_jscan_free(&sj);
					} else {
						PC_CHECK(n == 0);
					}
				}
			}
		}
	}
#endif
}

/* In doc, the args text of the event with "ts":ts gets c at off; the byte it had. */
static char args_poke(char *doc, int ts, size_t off, char c)
{
	char key[32], *e, *a, was;

	snprintf(key, sizeof(key), "\"ts\":%d}", ts);
	e = strstr(doc, key);
	PC_CHECK(e != NULL);
	if (!e)
		return 0;
	for (a = e; a > doc && strncmp(a, "{\"args\":", 8) != 0; a--)
		;
	a += 8;
	was = a[off];
	a[off] = c;
	return was;
}

/*
 * The scanner checks an args text once: one byte for byte the same as one
 * it checked before (found by its first 32, 64 or 128 bytes, by its
 * length) is not checked again.  What it remembers must not change what
 * is refused, where, or the lines counted after it: a text that shares all
 * but its last bytes with one seen (of each length), or its first 32, is
 * refused at the byte where it was before; and a text with a newline in
 * it, taken as remembered, still moves the line count of the errors after
 * it.
 */
static void test_chrome_args_cache(void)
{
	char big[200];
	const char *args[4];
	size_t cap = 80 * 320 + 100, n = 0;
	char *doc = malloc(cap), msg[1024], was;
	int i;

	if (!doc)
		return;
	/* 65 bytes with a newline; 64; 9 (with the bytes after it in its key); 152 */
	args[0] = "{\"data\":{\"frame\":\"D7FA4653F11582EF402441E575B14768\",\n\"nodeId\":2}}";
	args[1] = "{\"data\":{\"frame\":\"D7FA4653F11582EF402441E575B14768\",\"nodeId\":3}}";
	args[2] = "{\"k\":\"v\"}";
	snprintf(big, sizeof(big), "{\"data\":{\"url\":\"https://example.com/%0100d\",\"priority\":1}}", 0);
	args[3] = big;
	PC_CHECK_EQ_INT((int)strlen(big), 152);
	n += (size_t)snprintf(doc + n, cap - n, "[");
	for (i = 0; i < 80; i++)
		n += (size_t)snprintf(doc + n, cap - n,
				      "%s{\"args\":%s,\"cat\":\"devtools.timeline\",\"name\":\"Invalidate\","
				      "\"ph\":\"I\",\"pid\":1,\"s\":\"t\",\"tid\":1,\"ts\":%d}\n",
				      i ? "," : "", args[i % 4], i * 10);
	snprintf(doc + n, cap - n, "]");
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "");
	/* event 61 (line 78, after 16 texts 0 of two lines each): text 1 up
	 * to its last 2 bytes, then ']' */
	was = args_poke(doc, 610, strlen(args[1]) - 2, ']');
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)),
			"t.json:78:72: expected ',' or '}' after object member, got ']'");
	args_poke(doc, 610, strlen(args[1]) - 2, was);
	/* event 64, text 0: its second line */
	was = args_poke(doc, 640, (size_t)(strstr(args[0], "2}}") - args[0]), 'x');
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "t.json:82:10: expected a value after ':', got 'x'");
	args_poke(doc, 640, (size_t)(strstr(args[0], "2}}") - args[0]), was);
	/* event 63, text 3 */
	was = args_poke(doc, 630, strlen(big) - 3, 'x');
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "t.json:80:159: expected a value after ':', got 'x'");
	args_poke(doc, 630, strlen(big) - 3, was);
	/* event 62, text 2 */
	args_poke(doc, 620, 5, 'x');
	PC_CHECK_EQ_STR(convert_both(doc, msg, sizeof(msg)), "t.json:79:15: expected a value after ':', got 'x'");
	free(doc);
}

/*
 * A Chrome scanner over doc[0..len) (opts o, or NULL) at its first token,
 * begun with PROFCONV_CHROME_LEAN set to lean (0 or 1), the environment as
 * it was afterwards.
 */
static void scan_begin(const char *doc, size_t len, const struct pc_jpull_opts *o, int lean,
		       struct pc_input **in, struct pc_jpull **p, struct cscan **sc)
{
	const struct pc_jtok *t;
	const char *saved = getenv("PROFCONV_CHROME_LEAN");
	char *keep = saved ? strdup(saved) : NULL;

	setenv("PROFCONV_CHROME_LEAN", lean ? "1" : "0", 1);
	PC_CHECK_EQ_INT(pc_input_open_mem(ctx, doc, len, "t.json", in), 0);
	PC_CHECK_EQ_INT(pc_jpull_new(ctx, *in, o, p), 0);
	PC_CHECK_EQ_INT(pc_jpull_next(*p, &t), 0);
	PC_CHECK_EQ_INT(pc_chrome_scan_begin(ctx, *p, sc), 0);
	if (keep)
		setenv("PROFCONV_CHROME_LEAN", keep, 1);
	else
		unsetenv("PROFCONV_CHROME_LEAN");
	free(keep);
}

/*
 * The scanner decodes the args of an event whose args text it has not seen
 * (the members pc_chrome_scan_args() gives the reader for the same text,
 * with their strings in the batch), and leaves a text seen before and an
 * empty args to the reader.  That is when it is ahead of the reader
 * (PROFCONV_CHROME_LEAN=0 here: the first batch, which the reader waits
 * for, would be lean); a lean batch (=1) leaves every args text to the
 * reader and comes out of pc_chrome_scan_next() hashed all the same.
 */
static void test_chrome_pre_args_lean(int lean)
{
	static const char doc[] =
		"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1,"
		"\"args\":{\"k\":\"v\\n\",\"o\":{\"x\":[1, 2.50]},\"n\":3,\"k\":true}},\n"
		"{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"pid\":1,\"tid\":1,"
		"\"args\":{\"k\":\"v\\n\",\"o\":{\"x\":[1, 2.50]},\"n\":3,\"k\":true}},\n"
		"{\"ph\":\"X\",\"name\":\"c\",\"ts\":3,\"pid\":1,\"tid\":1,\"args\":{}}]";
	struct pc_input *in;
	struct pc_jpull *p;
	struct cscan *sc;
	struct cbatch *b;
	struct carg *ra = NULL;
	uint32_t nra = 0, cra = 0, na = 0, k;

	scan_begin(doc, strlen(doc), NULL, lean, &in, &p, &sc);
	b = pc_chrome_scan_next(sc);
	PC_CHECK(b != NULL && b->n == 3);
	if (b && b->n == 3 && lean) {
		const struct cev *e0 = &b->ev[0].e, *e1 = &b->ev[1].e, *e2 = &b->ev[2].e;

		/* nothing decoded by the scanner; pointers and hashes there */
		PC_CHECK(e0->args_later && e0->na == 0 && e0->a == NULL);
		PC_CHECK(e1->args_later && e1->na == 0 && e1->a == NULL);
		PC_CHECK(!e2->args_later && e2->na == 0);
		PC_CHECK(e0->name.kind == CJ_STR && strcmp(e0->name.s, "a") == 0);
		PC_CHECK(e0->hname == pc_chrome_name_hash("a", 1) && e2->hname == pc_chrome_name_hash("c", 1));
		/* (a text the scanner remembers has an id instead of a hash) */
		PC_CHECK(e0->args.kind == CJ_OBJ && e0->args.s != NULL && e0->aid != 0 &&
			 e0->hargs == 0);
		PC_CHECK(e1->aid == e0->aid && e1->hargs == 0);
		PC_CHECK(e2->aid == 0 && e2->hargs == pc_chrome_hash("{}", 2));
	} else if (b && b->n == 3) {
		const struct cev *e0 = &b->ev[0].e, *e1 = &b->ev[1].e, *e2 = &b->ev[2].e;

		/* the first: decoded here, as the reader decodes it */
		PC_CHECK(!e0->args_later && e0->na == 4 && e0->a != NULL);
		pc_jscan_start(&js, e1->args.s, e1->args.len, UINT_MAX);
		PC_CHECK_EQ_INT(pc_chrome_scan_args(&js, ctx, &ra, &nra, &cra, &na), 0);
		PC_CHECK_EQ_INT(na, 4);
		for (k = 0; e0->a && k < na && k < e0->na; k++) {
			const struct carg *x = &e0->a[k], *y = &ra[k];

			PC_CHECK_EQ_STR(x->key, pc_jscan_at(&js, y->koff));
			PC_CHECK_EQ_INT(x->v.kind, y->v.kind);
			if (x->v.kind == CJ_STR || x->v.kind == CJ_OBJ)
				PC_CHECK(x->v.len == y->v.len &&
					 memcmp(x->v.s, pc_jscan_at(&js, y->v.off), x->v.len + 1) == 0);
			if (x->v.kind == CJ_NUM)
				PC_CHECK(x->v.d == y->v.d);
		}
		if (e0->a && e0->na == 4) {
			PC_CHECK_EQ_STR(e0->a[0].v.s, "v\n");
			PC_CHECK_EQ_STR(e0->a[1].v.s, "{\"x\":[1,2.5]}");
			PC_CHECK(e0->a[2].v.kind == CJ_NUM && e0->a[2].v.d == 3);
			PC_CHECK_EQ_STR(e0->a[3].key, "k");
			PC_CHECK_EQ_INT(e0->a[3].v.kind, CJ_TRUE);
		}
		/* the same text again: left to the reader; {}: nothing to decode */
		PC_CHECK(e1->args_later && e1->na == 0 && e1->a == NULL);
		PC_CHECK(e1->aid == e0->aid && e0->aid != 0 && e0->hargs == 0 && e1->hargs == 0);
		PC_CHECK(!e2->args_later && e2->na == 0);
	}
	PC_CHECK(b == NULL || b->end);
	PC_CHECK_EQ_INT(pc_chrome_scan_end(sc), 0);
	pc_free(ctx, ra);
	pc_jpull_free(p);
	pc_input_close(in);
}

/*
 * A batch's scratch is reserved up front and its events point into it; an
 * event that needs more than the room left (a name of 300,000 bytes, an
 * args text of 700,000, decoded by the scanner too when it is ahead) makes
 * it grow, two and three times within that event, while the events before
 * it, their args members, a counter's kept text and the big event's own
 * name point into the old ones: each must still read as it was written
 * (the AddressSanitizer build also sees any pointer into freed memory).
 */
static void test_chrome_scratch_grows(int lean)
{
	size_t big_name = 300000, big_arg = 700000, cap = big_name + big_arg + 4096, n = 0, i;
	char *doc = malloc(cap);
	struct pc_input *in;
	struct pc_jpull *p;
	struct cscan *sc;
	struct cbatch *b;
	uint32_t nb = 0, nev = 0;

	if (!doc)
		return;
	n += (size_t)snprintf(doc + n, cap - n, "[");
	for (i = 0; i < 5; i++)
		n += (size_t)snprintf(doc + n, cap - n,
				      "{\"ph\":\"X\",\"name\":\"name%zu\",\"cat\":\"category.%zu\",\"ts\":%zu,"
				      "\"pid\":1,\"tid\":1,\"args\":{\"k%zu\":\"v%zu\",\"o\":[%zu]}},",
				      i, i, i, i, i, i);
	n += (size_t)snprintf(doc + n, cap - n,
			      "{\"ph\":\"C\",\"name\":\"counter\",\"ts\":5,\"pid\":1,\"args\":{\"v\":5}},"
			      "{\"ph\":\"X\",\"ts\":6,\"pid\":1,\"tid\":1,\"name\":\"");
	memset(doc + n, 'n', big_name);
	n += big_name;
	n += (size_t)snprintf(doc + n, cap - n, "\",\"cat\":\"big\",\"args\":{\"s\":\"");
	memset(doc + n, 'x', big_arg);
	n += big_arg;
	n += (size_t)snprintf(doc + n, cap - n,
			      "\"}},{\"ph\":\"X\",\"name\":\"after\",\"ts\":7,\"pid\":1,\"tid\":1}]");
	scan_begin(doc, n, NULL, lean, &in, &p, &sc);
	while ((b = pc_chrome_scan_next(sc)) != NULL) {
		PC_CHECK_EQ_INT(b->err, 0);
		for (i = 0; i < b->n; i++, nev++) {
			const struct cev *e = &b->ev[i].e;
			char want[64];

			if (nev < 5) {
				snprintf(want, sizeof(want), "name%zu", (size_t)nev);
				PC_CHECK_EQ_STR(e->name.s, want);
				PC_CHECK(e->hname == pc_chrome_name_hash(want, strlen(want)));
				snprintf(want, sizeof(want), "category.%zu", (size_t)nev);
				PC_CHECK_EQ_STR(e->cat.s, want);
				PC_CHECK(e->hcat == pc_chrome_hash(want, strlen(want)));
				snprintf(want, sizeof(want), "{\"k%zu\":\"v%zu\",\"o\":[%zu]}", (size_t)nev,
					 (size_t)nev, (size_t)nev);
				PC_CHECK(e->args.len == strlen(want) &&
					 memcmp(e->args.s, want, e->args.len) == 0);
				if (!lean) { /* (decoded by the scanner: a text not seen) */
					PC_CHECK(e->na == 2 && e->a != NULL && !e->args_later);
					if (e->na == 2 && e->a) {
						snprintf(want, sizeof(want), "v%zu", (size_t)nev);
						PC_CHECK_EQ_STR(e->a[0].v.s, want);
						PC_CHECK_EQ_STR(e->a[1].key, "o");
						snprintf(want, sizeof(want), "[%zu]", (size_t)nev);
						PC_CHECK_EQ_STR(e->a[1].v.s, want);
					}
				}
			} else if (nev == 5) {
				PC_CHECK_EQ_STR(e->name.s, "counter");
				PC_CHECK(b->ev[i].text != NULL && b->ev[i].len > 20 &&
					 memcmp(b->ev[i].text, "\"ph\":\"C\",\"name\":\"counter\"", 25) == 0);
			} else if (nev == 6) {
				size_t k, bad = 0;

				PC_CHECK(e->name.kind == CJ_STR && e->name.len == big_name &&
					 strlen(e->name.s) == big_name);
				for (k = 0; k < big_name && e->name.kind == CJ_STR; k++)
					bad += e->name.s[k] != 'n';
				PC_CHECK(bad == 0);
				PC_CHECK_EQ_STR(e->cat.s, "big");
				PC_CHECK(e->args.kind == CJ_OBJ && e->args.len == big_arg + 8 &&
					 memcmp(e->args.s, "{\"s\":\"xxx", 9) == 0 &&
					 memcmp(e->args.s + big_arg + 5, "x\"}", 3) == 0);
				if (!lean && e->na == 1 && e->a) {
					PC_CHECK(e->a[0].v.len == big_arg && e->a[0].v.s[0] == 'x' &&
						 e->a[0].v.s[big_arg - 1] == 'x' && e->a[0].v.s[big_arg] == 0);
				} else {
					PC_CHECK(lean && e->args_later);
				}
			} else {
				PC_CHECK_EQ_STR(e->name.s, "after");
			}
		}
		nb++;
		if (b->end)
			break;
	}
	PC_CHECK_EQ_INT(nev, 8);
	PC_CHECK(nb >= 2); /* (the big event fills its batch) */
	PC_CHECK_EQ_INT(pc_chrome_scan_end(sc), 0);
	pc_jpull_free(p);
	pc_input_close(in);
	free(doc);
}

/*
 * An args text the scanner remembers is not copied into the batch: the
 * event's args.s points to the remembered bytes (okb in chrome_scan.c).
 * When they fill their 1 MiB, the next text starts a new store and the old
 * one is kept with the batch being filled until that batch is filled
 * again, so the events of that batch and of the batches before it that
 * the reader still holds or has not taken yet read their texts as they
 * were written.  Here 4,800 texts of 239 bytes, after the 64th each
 * followed by the text (i % 64) again (a remembered one, at the start of
 * the store), fill the store in the ninth batch, while the reader, slow
 * on each batch, holds an earlier one: every text must read back whole.
 * With the store cleared and written again from its start (as when the
 * texts were copied), the texts given again before it filled read the new
 * texts' bytes; with the old store freed at once, the AddressSanitizer
 * build sees the reads of freed memory.
 */
static void test_chrome_args_store_fills(void)
{
	size_t ntext = 4800, cap = ntext * 2 * 400 + 64, n = 0, i, nev = 0;
	size_t *want_text = malloc(2 * ntext * sizeof(*want_text));
	char *doc = malloc(cap);
	struct pc_input *in;
	struct pc_jpull *p;
	struct cscan *sc;
	struct cbatch *b;
	uint32_t bad = 0, nb = 0;
	char pad[212];

	if (!doc || !want_text) {
		free(doc);
		free(want_text);
		return;
	}
	memset(pad, 'p', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = 0; /* {"text":"%08zu","pad":"%s"}: 239 bytes */
	n += (size_t)snprintf(doc + n, cap - n, "[");
	for (i = 0; i < ntext; i++) {
		size_t k, t;

		for (k = 0; k < (i >= 64 ? 2u : 1u); k++) {
			t = k ? i % 64 : i;
			want_text[nev] = t;
			n += (size_t)snprintf(doc + n, cap - n,
					      "%s{\"ph\":\"X\",\"name\":\"n\",\"ts\":%zu,\"pid\":1,"
					      "\"tid\":1,\"args\":{\"text\":\"%08zu\",\"pad\":\"%s\"}}",
					      nev ? "," : "", nev, t, pad);
			nev++;
		}
	}
	n += (size_t)snprintf(doc + n, cap - n, "]");
	scan_begin(doc, n, NULL, 0, &in, &p, &sc);
	nev = 0;
	while ((b = pc_chrome_scan_next(sc)) != NULL) {
		struct timespec slow = { 0, 10 * 1000 * 1000 };

		PC_CHECK_EQ_INT(b->err, 0);
		/* (the scanner fills the ring meanwhile) */
		if (nb++ < 10)
			nanosleep(&slow, NULL);
		for (i = 0; i < b->n; i++, nev++) {
			const struct cev *e = &b->ev[i].e;
			char want[300];
			int wl = snprintf(want, sizeof(want), "{\"text\":\"%08zu\",\"pad\":\"%s\"}",
					  want_text[nev], pad);

			bad += !(e->args.kind == CJ_OBJ && e->args.len == (uint32_t)wl &&
				 memcmp(e->args.s, want, (size_t)wl) == 0);
		}
		if (b->end)
			break;
	}
	PC_CHECK_EQ_INT(nev, 2 * ntext - 64);
	PC_CHECK_EQ_INT(bad, 0);
	PC_CHECK(nb >= 9);
	PC_CHECK_EQ_INT(pc_chrome_scan_end(sc), 0);
	pc_jpull_free(p);
	pc_input_close(in);
	free(doc);
	free(want_text);
}

/*
 * "args":{} (half of a real trace's events) is taken without the args
 * cache and its hash is set without hashing: the same text, hash and
 * flags as any other args object, in lean batches and not; and an empty
 * object one level deeper than the nesting limit is refused as the
 * tokenizer refuses it.
 */
static int scan_empty_args(const char *doc, unsigned max_depth, int lean)
{
	struct pc_jpull_opts o = { 0, 0, max_depth };
	struct pc_input *in;
	struct pc_jpull *p;
	struct cscan *sc;
	struct cbatch *b;
	int err;

	pc_clear_error(ctx);
	scan_begin(doc, strlen(doc), &o, lean, &in, &p, &sc);
	b = pc_chrome_scan_next(sc);
	PC_CHECK(b != NULL);
	if (b && !b->err) {
		uint32_t i;

		PC_CHECK_EQ_INT(b->n, 3);
		for (i = 0; i < b->n; i++) {
			const struct cev *e = &b->ev[i].e;

			PC_CHECK(e->args.kind == CJ_OBJ && !e->args_later && e->na == 0);
			PC_CHECK(e->hargs == pc_chrome_hash(e->args.s, e->args.len) ||
				 (e->hargs == 0 && e->aid != 0));
			PC_CHECK(e->name.kind == CJ_STR && e->ts.kind == CJ_NUM);
		}
		if (b->n == 3) {
			PC_CHECK(b->ev[0].e.args.len == 2 && memcmp(b->ev[0].e.args.s, "{}", 2) == 0);
			PC_CHECK(b->ev[1].e.args.len == 3 && memcmp(b->ev[1].e.args.s, "{ }", 3) == 0);
			PC_CHECK_EQ_STR(b->ev[2].e.name.s, "c");
			PC_CHECK(b->ev[2].e.ts.d == 3);
		}
	}
	err = pc_chrome_scan_end(sc);
	pc_jpull_free(p);
	pc_input_close(in);
	return err;
}

static void test_chrome_empty_args(void)
{
	static const char doc[] = "[{\"args\":{},\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1},\n"
				  "{\"args\":{ },\"name\":\"b\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2},\n"
				  "{\"name\":\"c\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{}}]";
	int lean;

	for (lean = 0; lean <= 1; lean++) {
		PC_CHECK_EQ_INT(scan_empty_args(doc, 3, lean), 0);
		/* [ and the event are 2 levels: no room for args */
		PC_CHECK(scan_empty_args(doc, 2, lean) != 0);
		PC_CHECK(strstr(profconv_errmsg(ctx), "t.json:1:10:") != NULL);
	}
	pc_clear_error(ctx);
}

static struct profconv_profile *read_one_thread(const char *doc);

/* Marker k's payload member key as text ("" when it has none). */
static const char *pl_member(const struct pc_model *m, const struct pc_thread *t, uint32_t k,
			     const char *key, char *buf, size_t cap)
{
	uint32_t n = k < t->markers.len ? pc_pv_member(m, t->markers.payload[k], key) : PC_NONE;

	buf[0] = 0;
	if (n != PC_NONE)
		pc_pv_scalar_text(m, n, buf, cap);
	return buf;
}

/*
 * The payload cache finds the slot of an args text the scanner gave an id
 * (struct cev's aid) without hashing or comparing the text: an event with
 * the same text and another cat, or another text, must still get its own
 * payload; and the ids start again in a second events array, where the
 * same id is another text.
 */
static void test_chrome_args_ids(void)
{
	static const char *const cats[] = { "c1", "c2", "c1", "c2", "c1", "c1", "c2" };
	static const char *const ns[] = { "1", "1", "1", "1", "2", "1", "2" };
	char doc[4096], a[64], b[64], ca[16];
	size_t n = 0;
	struct profconv_profile *prof;
	unsigned i;

	n += (size_t)snprintf(doc + n, sizeof(doc) - n, "[");
	for (i = 0; i < PC_ARRAY_SIZE(cats); i++)
		n += (size_t)snprintf(doc + n, sizeof(doc) - n,
				      "%s{\"args\":{\"data\":{\"frame\":\"0123456789ABCDEF\",\"n\":%s}},"
				      "\"cat\":\"%s\",\"dur\":1,\"name\":\"x\",\"ph\":\"X\",\"pid\":1,"
				      "\"tid\":1,\"ts\":%u}\n",
				      i ? "," : "", ns[i], cats[i], i + 1);
	snprintf(doc + n, sizeof(doc) - n, "]");
	prof = read_one_thread(doc);
	if (prof) {
		const struct pc_thread *t = prof->m.threads[0];

		PC_CHECK_EQ_INT(t->markers.len, PC_ARRAY_SIZE(cats));
		for (i = 0; i < t->markers.len && i < PC_ARRAY_SIZE(cats); i++) {
			PC_CHECK_EQ_STR(pl_member(&prof->m, t, i, "cat", ca, sizeof(ca)), cats[i]);
			snprintf(b, sizeof(b), "{\"frame\":\"0123456789ABCDEF\",\"n\":%s}", ns[i]);
			PC_CHECK_EQ_STR(pl_member(&prof->m, t, i, "data", a, sizeof(a)), b);
		}
		profconv_profile_free(prof);
	}
	/* two events arrays: the first text of each has id 1 */
	snprintf(doc, sizeof(doc),
		 "{\"traceEvents\":[{\"args\":{\"data\":{\"frame\":\"0123456789ABCDEF\",\"n\":1}},"
		 "\"cat\":\"c1\",\"dur\":1,\"name\":\"x\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1}],\n"
		 "\"traceEvents\":[{\"args\":{\"data\":{\"frame\":\"0123456789ABCDEF\",\"n\":2}},"
		 "\"cat\":\"c1\",\"dur\":1,\"name\":\"x\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2}],"
		 "\"displayTimeUnit\":\"ms\"}");
	prof = read_one_thread(doc);
	if (prof) {
		const struct pc_thread *t = prof->m.threads[0];

		PC_CHECK_EQ_INT(t->markers.len, 2);
		PC_CHECK_EQ_STR(pl_member(&prof->m, t, 0, "data", a, sizeof(a)),
				"{\"frame\":\"0123456789ABCDEF\",\"n\":1}");
		PC_CHECK_EQ_STR(pl_member(&prof->m, t, 1, "data", a, sizeof(a)),
				"{\"frame\":\"0123456789ABCDEF\",\"n\":2}");
		profconv_profile_free(prof);
	}
}

/* doc read as a Chrome trace, which must give one thread; NULL (a failed check) if not. */
static struct profconv_profile *read_one_thread(const char *doc)
{
	struct profconv_profile *prof = NULL;

	pc_clear_error(ctx);
	profconv_set_option(ctx, "from", "chrome");
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, doc, strlen(doc), "t.json", &prof), 0);
	if (prof && prof->m.nthreads != 1) {
		PC_CHECK_EQ_INT(prof->m.nthreads, 1);
		profconv_profile_free(prof);
		prof = NULL;
	}
	return prof;
}

/*
 * The keys the scanner matches in one load with their closing quote, next
 * to keys they begin (name2, phx, tss...), which must not be taken for them,
 * and a name spelled with an escape, which must: two slices on one thread.
 */
static void test_chrome_keys(void)
{
	static const char doc[] =
		"[{\"nam\":\"x\",\"name2\":\"x\",\"names\":\"x\",\"name\":\"N1\",\"ph\":\"X\","
		"\"phx\":\"B\",\"ts\":10,\"tss\":99,\"tsx\":1,\"dur\":5,\"durx\":1,\"pid\":1,"
		"\"pidx\":2,\"tid\":2,\"tidx\":3,\"cat\":\"C1\",\"cats\":\"x\",\"args\":{\"a\":1},"
		"\"argsx\":{},\"bp\":\"e\",\"s\":\"t\",\"tdur\":1,\"tts\":2,\"bind_idx\":7,"
		"\"flow_inx\":true,\"scopex\":\"x\",\"id2x\":{}},\n"
		"{\"n\\u0061me\":\"N2\",\"ph\":\"X\",\"ts\":20,\"dur\":1,\"pid\":1,\"tid\":2,\"cat\":\"C2\"}]";
	struct profconv_profile *prof;
	const struct pc_model *m;
	const struct pc_markers *mk;

	prof = read_one_thread(doc);
	if (!prof)
		return;
	m = &prof->m;
	mk = &m->threads[0]->markers;
	PC_CHECK_EQ_INT(mk->len, 2);
	if (mk->len == 2) {
		PC_CHECK_EQ_STR(pc_str(m, mk->name[0]), "N1");
		PC_CHECK_EQ_STR(pc_str(m, mk->name[1]), "N2");
		PC_CHECK_EQ_INT(mk->end[0] - mk->start[0], 5000);
		PC_CHECK_EQ_INT(mk->end[1] - mk->start[1], 1000);
		PC_CHECK_EQ_INT(mk->start[1] - mk->start[0], 10000);
		PC_CHECK_EQ_STR(m->categories[mk->category[0]].name, "C1");
		PC_CHECK_EQ_STR(m->categories[mk->category[1]].name, "C2");
	}
	profconv_profile_free(prof);
}

/* A sample's stack as "leaf<caller<...", function names. */
static void stack_names(const struct pc_model *m, uint32_t st, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = 0;
	for (; st != PC_NONE && n + 1 < cap; st = m->stacks.prefix[st])
		n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? "<" : "",
				      pc_str(m, m->funcs.name[m->frames.func[m->stacks.frame[st]]]));
}

/*
 * V8 samples name their nodes by id: ids past the reader's index (sparse
 * ones, looked for node by node), an id used twice (the later node wins),
 * and ids the index reaches only once it has grown.
 */
static void test_chrome_v8_node_ids(void)
{
	static const char doc[] =
		"[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":1,\"tid\":1,\"ts\":0,"
		"\"args\":{\"data\":{\"startTime\":0}}},\n"
		"{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":1,\"tid\":1,\"ts\":1,"
		"\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
		"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
		/* past the index when read (over 4 x 2 nodes + 1024)... */
		"{\"id\":1033,\"parent\":1,\"callFrame\":{\"functionName\":\"early\"}},"
		/* ...which this one grows over it */
		"{\"id\":1035,\"parent\":1033,\"callFrame\":{\"functionName\":\"grow\"}},"
		"{\"id\":5000,\"parent\":1,\"callFrame\":{\"functionName\":\"far\"}},"
		"{\"id\":2,\"parent\":5000,\"callFrame\":{\"functionName\":\"two\"}},"
		"{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"old3\"}},"
		"{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"new3\"}},"
		"{\"id\":-7,\"parent\":3,\"callFrame\":{\"functionName\":\"neg\"}}],"
		"\"samples\":[1033,1035,5000,2,3,-7,1]},\"timeDeltas\":[10,10,10,10,10,10,10]}}},\n"
		"{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":1,\"tid\":1,\"ts\":2,"
		"\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
		"{\"id\":1500,\"parent\":5000,\"callFrame\":{\"functionName\":\"late\"}}],"
		"\"samples\":[1500,5000,3,1033]},\"timeDeltas\":[10,10,10,10]}}}]";
	static const char *const want[] = {
		"early<(root)",	 "grow<early<(root)",	"far<(root)",	       "two<far<(root)",
		"new3<two<far<(root)", "neg<new3<two<far<(root)", "(root)",	"late<far<(root)",
		"far<(root)",	 "new3<two<far<(root)", "early<(root)",
	};
	struct profconv_profile *prof;
	const struct pc_model *m;
	const struct pc_samples *sa;
	char got[256];
	uint32_t i;

	prof = read_one_thread(doc);
	if (!prof)
		return;
	m = &prof->m;
	sa = &m->threads[0]->samples;
	PC_CHECK_EQ_INT(sa->len, PC_ARRAY_SIZE(want));
	for (i = 0; i < sa->len && i < PC_ARRAY_SIZE(want); i++) {
		stack_names(m, sa->stack[i], got, sizeof(got));
		PC_CHECK_EQ_STR(got, want[i]);
	}
	profconv_profile_free(prof);
}

static void test_chrome_errors(void)
{
	/* errors inside an event name the line and column the tokenizer names */
	PC_CHECK_EQ_STR(convert("[{\"ph\":\"X\",\n \"name\":\"a\",\n\t\"ts\":1,\"pid\":1,\"tid\":1},\n\n"
				"  {\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"pid\":1,\n \"tid\":1, \"x\": 01}]"),
			"t.json:6:16: invalid number '01'");
	PC_CHECK_EQ_STR(convert("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"b\", \"args\":{\"x\":\"\\q\"},\n"
				"\"ts\":1}]}"),
			"t.json:1:52: invalid escape in string: '\\' followed by 'q'");
	PC_CHECK_EQ_STR(convert("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1},\n"
				"{\"ph\":\"X\" \"name\":\"b\",\n\"ts\":2"),
			"t.json:2:11: expected ',' or '}' after object member, got '\"'");
	PC_CHECK_EQ_STR(convert("[{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"args\":{\"x\":[1,]}}]"),
			"t.json:1:45: expected a value after ',', got ']'");
	/* well-formed events with escapes, nested args and a lone surrogate convert */
	PC_CHECK_EQ_STR(convert("[{\"ph\":\"X\",\"name\":\"\\u00e9\\ud800\",\"ts\":1.5,\"dur\":\"2\","
				"\"pid\":\"7\",\"tid\":1,\"args\":{\"o\":{\"a\":[1e9,\"\\n\"]}}}]"),
			"");
}

/*
 * Numbers as the members the scanner decodes (ts, dur) and the ones it only
 * checks (tts) hold them, compact, with 16 bytes or more after them and
 * at the end of the text: an event is refused exactly when the tokenizer
 * refuses its text.
 */
static void test_chrome_member_numbers(void)
{
	static const char *const nums[] = {
		"0", "-0", "7", "-7", "1234567", "12345678", "123456789012345", "1234567890123456",
		"12345678901234567890", "1.5", "1e3", "12345678.5", "123456789e2", "1E2", "01", "00",
		"0.", "1.", "0e", "12345678901234567.", "1234567890123456e", "-", "-01", "0x1",
		"123456789012345678901234", "99999999", "0.000", "1234567890123456789",
	};
	/* each: the text before the number, and after it (a second number
	 * after a "%" in it) */
	static const char *const parts[][2] = {
		{ "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":", ",\"pid\":1,\"tid\":1,\"dur\":3,\"args\":{}}]" },
		{ "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1,\"tts\":",
		  ",\"dur\":3,\"args\":{}}]" },
		{ "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1,\"dur\":", ",\"args\":{}}]" },
		{ "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1,\"tts\":", "}]" },
		{ "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1,\"tts\":", ",\"tdur\":%}]" },
	};
	size_t i, f;

	for (f = 0; f < PC_ARRAY_SIZE(parts); f++)
		for (i = 0; i < PC_ARRAY_SIZE(nums); i++) {
			char doc[512];
			const char *pct = strchr(parts[f][1], '%');
			size_t n = 0;
			int want, got;

			n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%s%s", parts[f][0], nums[i]);
			if (pct)
				n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%.*s%s%s",
						      (int)(pct - parts[f][1]), parts[f][1], nums[i], pct + 1);
			else
				n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%s", parts[f][1]);
			want = jpull_accepts(doc);
			got = convert(doc)[0] == 0;
			if (want != got) {
				fprintf(stderr, "member number %s: tokenizer %d, scanner %d\n", doc, want, got);
				PC_CHECK(0);
			}
		}
}

/* The tokenizer's message for doc ("" when it accepts it), in msg. */
static const char *jpull_message(const char *doc, char *msg, size_t cap)
{
	const struct pc_jtok *t;
	struct pc_input *in;
	struct pc_jpull *p;
	int err;

	pc_clear_error(ctx);
	msg[0] = 0;
	if (pc_input_open_mem(ctx, doc, strlen(doc), "t.json", &in))
		return msg;
	if (pc_jpull_new(ctx, in, NULL, &p)) {
		pc_input_close(in);
		return msg;
	}
	while (!(err = pc_jpull_next(p, &t)) && t->type != PC_JT_EOF)
		;
	if (err)
		snprintf(msg, cap, "%s", profconv_errmsg(ctx));
	pc_jpull_free(p);
	pc_input_close(in);
	pc_clear_error(ctx);
	return msg;
}

/* The pid and tid of the thread whose markers include one named name (INT64_MIN: none). */
static void thread_of(const char *doc, const char *name, int64_t *pid, int64_t *tid)
{
	struct profconv_profile *prof = NULL;
	uint32_t i, k;

	*pid = *tid = INT64_MIN;
	pc_clear_error(ctx);
	profconv_set_option(ctx, "from", "chrome");
	if (profconv_read_mem(ctx, doc, strlen(doc), "t.json", &prof) == 0)
		for (i = 0; i < prof->m.nthreads; i++) {
			const struct pc_thread *t = prof->m.threads[i];

			for (k = 0; k < t->markers.len; k++)
				if (strcmp(pc_str(&prof->m, t->markers.name[k]), name) == 0) {
					*pid = t->pid;
					*tid = t->tid;
				}
		}
	profconv_profile_free(prof);
}

/*
 * A pid or tid whose bytes (and the byte after them) repeat the last
 * event's is taken as the last one's number (chrome_scan.c's
 * repeat_number()): every pair of values, the second a prefix, an
 * extension, a fraction or an invalid spelling of the first, must give the
 * thread the second alone gives, and a text refused must be refused with
 * the tokenizer's message, also when the text is cut at each byte of the
 * second event's pid and tid.
 */
static void test_chrome_repeat_ids(void)
{
	static const char *const vals[] = {
		"1",	 "12",	  "123",    "1234567", "12345678", "1234568", "123456", "0",  "-0",
		"-1",	 "-12",	  "1.5",    "1e3",     "1E3",	   "12.",     "01",	  "00", "1 ",
		" 1",	 "1\n",	  "\"1\"",  "-",       "1x",	   "12345670", "7654321",
	};
	static const char *const tails[] = { ",\"ts\":2,\"dur\":1}]", "}]", "}\n]" };
	size_t i, j, ti, cut;
	int bad = 0;

	for (ti = 0; ti < PC_ARRAY_SIZE(tails); ti++)
		for (i = 0; i < PC_ARRAY_SIZE(vals); i++)
			for (j = 0; j < PC_ARRAY_SIZE(vals) && !bad; j++) {
				char one[256], two[512], ctl[512], m1[512], m2[512];
				int64_t p1, t1, p2, t2;
				size_t n2, at, k, end;

				snprintf(one, sizeof(one),
					 "[{\"name\":\"b\",\"ph\":\"X\",\"pid\":%s,\"tid\":%s,\"ts\":1,\"dur\":1%s",
					 vals[j], vals[j], tails[ti]);
				n2 = (size_t)snprintf(two, sizeof(two),
						      "[{\"name\":\"a\",\"ph\":\"X\",\"pid\":%s,\"tid\":%s,\"ts\":1,\"dur\":1},"
						      "{\"name\":\"b\",\"ph\":\"X\",\"pid\":%s,\"tid\":%s,\"ts\":1,\"dur\":1%s",
						      vals[i], vals[i], vals[j], vals[j], tails[ti]);
				jpull_message(two, m1, sizeof(m1));
				snprintf(m2, sizeof(m2), "%s", convert(two));
				if (strcmp(m1, m2) != 0) {
					fprintf(stderr, "repeat ids '%s': tokenizer '%s', scanner '%s'\n", two, m1, m2);
					bad = 1;
				}
				if (!m1[0]) {
					thread_of(one, "b", &p1, &t1);
					thread_of(two, "b", &p2, &t2);
					if (p1 != p2 || t1 != t2 || p1 == INT64_MIN) {
						fprintf(stderr, "repeat ids '%s': %lld/%lld, alone %lld/%lld\n", two,
							(long long)p2, (long long)t2, (long long)p1, (long long)t1);
						bad = 1;
					}
				}
				/* cut at each byte of the second pid and tid: the same
				 * message as with the first event's digits 1-8 made 9s
				 * (which no value of the second starts with) */
				at = (size_t)(strstr(strstr(two, "\"b\""), "\"pid\"") - two);
				memcpy(ctl, two, n2 + 1);
				for (k = 0; k < at; k++)
					if (ctl[k] >= '1' && ctl[k] <= '8')
						ctl[k] = '9';
				snprintf(m1, sizeof(m1), "[%s]", vals[i]);
				if (ti != 0 || j >= 8 || jpull_accepts(m1) != 1)
					continue; /* (an error in the first event names its bytes) */
				end = (size_t)(strstr(two + at, "\"ts\"") - two);
				for (cut = at; cut < end && !bad; cut++) {
					char c = two[cut];

					two[cut] = ctl[cut] = 0;
					snprintf(m1, sizeof(m1), "%s", convert(ctl));
					snprintf(m2, sizeof(m2), "%s", convert(two));
					if (strcmp(m1, m2) != 0) {
						fprintf(stderr, "repeat ids cut '%s': '%s', without a repeat '%s'\n",
							two, m2, m1);
						bad = 1;
					}
					two[cut] = ctl[cut] = c;
				}
			}
	PC_CHECK(!bad);
}

/* doc converted: its processed output in out (reset first), or its message in msg. */
static void convert_out(const char *doc, struct membuf *out, char *msg, size_t cap)
{
	struct profconv_profile *prof = NULL;

	mem_reset(out);
	msg[0] = 0;
	pc_clear_error(ctx);
	profconv_set_option(ctx, "from", "chrome");
	if (profconv_read_mem(ctx, doc, strlen(doc), "t.json", &prof))
		snprintf(msg, cap, "%s", profconv_errmsg(ctx));
	else if (profconv_write_cb(ctx, prof, PROFCONV_OUT_PROCESSED, mem_write, out))
		snprintf(msg, cap, "write: %s", profconv_errmsg(ctx));
	profconv_profile_free(prof);
}

/*
 * The scanner guesses each key and its ':' from the key that came after
 * the same key in the events before (chrome_scan.c's struct kguess): an
 * event after one that taught it its keys (T) must convert, or be refused,
 * exactly as after one of the same length and meaning that teaches nothing
 * (T2: a space before each ':'), with each of its bytes changed (damaged
 * keys, other keys, whitespace and escapes where the guess expects none),
 * with its keys in other orders, and cut at every byte.
 */
static void test_chrome_key_guess(void)
{
	static const char t1[] = "{\"args\":{} ,\"cat\":\"c\" ,\"dur\":1 ,\"name\":\"t\" ,\"ph\":\"X\" ,"
				 "\"pid\":1 ,\"s\":\"t\" ,\"tdur\":1 ,\"tid\":1 ,\"ts\":1 ,\"tts\":1 }";
	static const char t2[] = "{\"args\" :{},\"cat\" :\"c\",\"dur\" :1,\"name\" :\"t\",\"ph\" :\"X\","
				 "\"pid\" :1,\"s\" :\"t\",\"tdur\" :1,\"tid\" :1,\"ts\" :1,\"tts\" :1}";
	static const char *const evs[] = {
		"{\"args\":{\"x\":1},\"cat\":\"c\",\"dur\":2,\"name\":\"b\",\"ph\":\"X\",\"pid\":1,"
		"\"s\":\"t\",\"tdur\":1,\"tid\":1,\"ts\":5,\"tts\":1}",
		"{\"ts\":5,\"tid\":1,\"pid\":1,\"ph\":\"X\",\"name\":\"b\",\"dur\":2,\"cat\":\"c\","
		"\"args\":{}}",
		"{\"cat\":\"c\",\"args\":{},\"name\":\"b\",\"dur\":2,\"ph\":\"X\",\"tid\":1,\"pid\":1,"
		"\"tts\":1,\"ts\":5}",
		"{\"args\":{},\"cat\":\"c\",\"dur\":2,\"n\\u0061me\":\"b\",\"ph\":\"X\",\"pid\":1,"
		"\"tid\":1,\"ts\":5,\"ts\":6}",
		"{\"args\":{},\"cat\":\"c\",\"dur\":2,\"name\":\"b\",\"name\":\"c\",\"ph\":\"X\","
		"\"pid\":1,\"bind_id\":1,\"flow_in\":true,\"tid\":1,\"id2\":{\"local\":\"0x1\"},\"ts\":5}",
	};
	static const char subst[] = { 'x', '"', ' ', '\\', ':', '}', 'd' };
	struct membuf o1, o2;
	char d1[1024], d2[1024], m1[512], m2[512];
	size_t ei, at, si, n;
	int bad = 0;

	memset(&o1, 0, sizeof(o1));
	memset(&o2, 0, sizeof(o2));
	PC_CHECK_EQ_INT(strlen(t1), strlen(t2));
	for (ei = 0; ei < PC_ARRAY_SIZE(evs) && !bad; ei++) {
		size_t el = strlen(evs[ei]);

		for (at = 0; at <= el && !bad; at++) {
			for (si = 0; si <= PC_ARRAY_SIZE(subst) && !bad; si++) {
				/* si == PC_ARRAY_SIZE(subst): the doc cut at at (then, at
				 * the end, the event as it is) */
				if (si < PC_ARRAY_SIZE(subst) && (at == el || evs[ei][at] == subst[si]))
					continue;
				n = (size_t)snprintf(d1, sizeof(d1), "[%s,%s,%s", t1, t1, evs[ei]);
				snprintf(d2, sizeof(d2), "[%s,%s,%s", t2, t2, evs[ei]);
				if (si < PC_ARRAY_SIZE(subst)) {
					d1[n - el + at] = d2[n - el + at] = subst[si];
					strcat(d1, "]");
					strcat(d2, "]");
				} else if (at < el) {
					d1[n - el + at] = d2[n - el + at] = 0;
				} else {
					strcat(d1, "]");
					strcat(d2, "]");
				}
				convert_out(d1, &o1, m1, sizeof(m1));
				convert_out(d2, &o2, m2, sizeof(m2));
				if (strcmp(m1, m2) != 0 || o1.len != o2.len || (o1.len && memcmp(o1.p, o2.p, o1.len) != 0)) {
					fprintf(stderr, "key guess '%s': '%s' (%zu bytes), untaught '%s' (%zu bytes)\n",
						d1, m1, o1.len, m2, o2.len);
					bad = 1;
				}
				if (si == PC_ARRAY_SIZE(subst) && at == el) {
					/* the event as it is converts, and its marker is there */
					PC_CHECK_EQ_STR(m1, "");
					PC_CHECK(o1.len > 0 && strstr(o1.p, "\"b\"") != NULL);
				}
			}
		}
	}
	mem_reset(&o1);
	mem_reset(&o2);
	PC_CHECK(!bad);
}

/* The first byte of [p, e) that ends a plain string run, a byte at a time. */
static const char *plain_ref(const char *p, const char *e)
{
	while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

/*
 * The SIMD string search (SSE2, AVX2 where the CPU has it) and the SWAR one
 * give the same answers: one stop byte at every position of every length
 * across the 8/16/32/64-byte steps, or none; bytes 0x20, 0x7f, 0x80, 0xff
 * (which a signed compare would take for control bytes) do not stop it.
 * Each text is its own allocation of exactly its length, so an ASan build
 * catches a load past its end.  Then whole values (strings with escapes at
 * every alignment, nested values) scanned, decoded, skipped and printed
 * at each level give the same results.
 */
static void test_simd_paths(void)
{
	static const unsigned char stops[] = { '"', '\\', 0x00, 0x01, 0x1f };
	static const unsigned char fill[] = { 'a', 0x20, 0x7f, 0x80, 0xff, 0xc3 };
	const char *env = getenv("PROFCONV_SCALAR");
	char *saved = env ? strdup(env) : NULL;
	int top, level, bad = 0;
	size_t len, at, si, fi;

	unsetenv("PROFCONV_SCALAR");
	top = pc_jscan_simd_level();
#if defined(__x86_64__) && defined(__SSE2__)
	PC_CHECK(top >= PC_JSCAN_SSE2_LEVEL);
#endif
	setenv("PROFCONV_SCALAR", "1", 1);
	PC_CHECK_EQ_INT(pc_jscan_simd_level(), PC_JSCAN_SCALAR);
	setenv("PROFCONV_SCALAR", "0", 1);
	PC_CHECK_EQ_INT(pc_jscan_simd_level(), top);
	if (saved) {
		setenv("PROFCONV_SCALAR", saved, 1);
		free(saved);
	} else {
		unsetenv("PROFCONV_SCALAR");
	}

	for (len = 0; len <= 100 && !bad; len++) {
		for (fi = 0; fi < PC_ARRAY_SIZE(fill); fi++) {
			for (at = 0; at <= len; at++) {
				for (si = 0; si < (at < len ? PC_ARRAY_SIZE(stops) : 1); si++) {
					char *b = malloc(len ? len : 1);
					const char *want;

					if (!b)
						abort();
					memset(b, fill[fi], len);
					if (at < len)
						b[at] = (char)stops[si];
					want = plain_ref(b, b + len);
					for (level = 0; level <= top; level++) {
						const char *got = pc_jscan_plain(level, b, b + len);

						if (got != want) {
							fprintf(stderr,
								"plain level %d len %zu stop 0x%02x at %zu fill 0x%02x: %zd, want %zd\n",
								level, len, stops[si], at, fill[fi],
								got - b, want - b);
							bad = 1;
						}
					}
					free(b);
				}
			}
		}
	}
	PC_CHECK(!bad);

	/* strings with an escape (or a raw control byte) at every offset,
	 * each value alone in an exactly sized allocation */
	{
		static const char *const esc[] = { "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00",
						   "\\u0000", "\\ud800x", "\x01", "\xc3\xa9", "\\" };
		size_t n, k, ei;

		for (ei = 0; ei < PC_ARRAY_SIZE(esc) && !bad; ei++) {
			for (n = 0; n <= 70 && !bad; n++) {
				for (k = 0; k <= n; k++) {
					size_t el = strlen(esc[ei]), tl = n + el + 2;
					char *t = malloc(tl), first[512];
					size_t flen = 0, off, slen;
					int ferr = 0;

					if (!t)
						abort();
					t[0] = '"';
					memset(t + 1, 'x', n);
					memmove(t + 1 + k + el, t + 1 + k, n - k);
					memcpy(t + 1 + k, esc[ei], el);
					t[tl - 1] = '"';
					for (level = 0; level <= top; level++) {
						int err, e2, e3;
						const char *pend;

						js.simd = level;
						pc_jscan_start(&js, t, tl, 64);
						err = pc_jscan_string(&js, &off, &slen);
						pc_jscan_start(&js, t, tl, 64);
						e2 = pc_jscan_skip(&js);
						pend = js.p;
						pc_jscan_start(&js, t, tl, 64);
						e3 = pc_jscan_print(&js);
						if (err != e2 || err != e3 || (!err && pend != t + tl)) {
							bad = 1;
							break;
						}
						pc_jscan_start(&js, t, tl, 64);
						if (!err)
							err = pc_jscan_string(&js, &off, &slen);
						if (level == 0) {
							ferr = err;
							flen = err ? 0 : slen;
							if (!err && slen < sizeof(first))
								memcpy(first, pc_jscan_at(&js, off), slen);
						} else if (err != ferr || (!err && (slen != flen ||
										     memcmp(first, pc_jscan_at(&js, off), slen)))) {
							bad = 1;
						}
					}
					if (bad)
						fprintf(stderr, "string level %d: '%.*s'\n", level, (int)tl, t);
					free(t);
				}
			}
		}
	}
	PC_CHECK(!bad);

	/* nested values: skip, skip_checked and print agree across levels */
	{
		static const char *const vals[] = {
			("{\"url\":\"https://example.org/a/very/long/path/that/crosses/many/blocks.js\","
			 "\"n\":[1,2.5,-3e4,{\"k\\\"ey\":\"v\\u00e9\\\\\"}],\"t\":true}"),
			"[\"0123456789abcdef0123456789abcdef0123456789abcdef\\\"\",\"\\\\\\\\\\\\\"]",
			"{\"a\":\"\x7f\x80\xff plain bytes after which a quote ends\"}",
			"{\"bad\":\"control \x02 byte inside\"}",
		};
		size_t i;

		for (i = 0; i < PC_ARRAY_SIZE(vals); i++) {
			size_t tl = strlen(vals[i]), plen0 = 0;
			char *t = malloc(tl), out0[1024];
			const char *end0 = NULL;
			int err0 = 0;

			if (!t)
				abort();
			memcpy(t, vals[i], tl);
			for (level = 0; level <= top; level++) {
				const char *end;
				int err;

				js.simd = level;
				pc_jscan_start(&js, t, tl, 64);
				err = pc_jscan_print(&js);
				end = js.p;
				if (!err) {
					pc_jscan_start(&js, t, tl, 64);
					pc_jscan_skip_checked(&js);
					PC_CHECK(js.p == end);
					pc_jscan_start(&js, t, tl, 64);
					err = pc_jscan_print(&js);
				}
				if (level == 0) {
					err0 = err;
					end0 = end;
					plen0 = err ? 0 : js.olen;
					if (plen0 <= sizeof(out0))
						memcpy(out0, js.out, plen0);
				} else {
					PC_CHECK_EQ_INT(err, err0);
					PC_CHECK(end == end0);
					PC_CHECK(err || (js.olen == plen0 && !memcmp(js.out, out0, plen0)));
				}
			}
			PC_CHECK_EQ_INT(err0, i == 3 ? PC_JSCAN_BAD : 0);
			free(t);
		}
	}
	/* strings followed by more text (pc_jscan_string()'s whole-block
	 * store), several in a row so out has room */
	{
		size_t n, trail;

		for (n = 0; n <= 70 && !bad; n++) {
			for (trail = 0; trail <= 20; trail++) {
				size_t tl = 3 * (n + 2) + trail;
				char *t = malloc(tl);

				if (!t)
					abort();
				memset(t, ',', tl);
				for (at = 0; at < 3; at++) {
					t[at * (n + 2)] = '"';
					memset(t + at * (n + 2) + 1, (int)('a' + at), n);
					t[at * (n + 2) + n + 1] = '"';
				}
				for (level = 0; level <= top; level++) {
					size_t off, sl;

					js.simd = level;
					pc_jscan_start(&js, t, tl, 64);
					for (at = 0; at < 3; at++) {
						const char *got;

						js.p = t + at * (n + 2);
						if (pc_jscan_string(&js, &off, &sl) || sl != n ||
						    js.p != t + at * (n + 2) + n + 2) {
							bad = 1;
							break;
						}
						got = pc_jscan_at(&js, off);
						for (si = 0; si < n && got[si] == (char)('a' + at); si++)
							;
						if (si != n || got[n] != 0)
							bad = 1;
					}
					if (bad)
						fprintf(stderr, "string level %d: %zu bytes, %zu after\n", level, n, trail);
				}
				free(t);
			}
		}
	}
	PC_CHECK(!bad);

	/* skip_checked over brackets and strings at every alignment, and
	 * texts that end inside a container */
	{
		size_t p1, p2, cut;

		for (p1 = 0; p1 <= 34; p1++) {
			for (p2 = 0; p2 <= 34; p2 += 3) {
				char b[160];
				size_t n = 0;

				b[n++] = '[';
				memset(b + n, ' ', p1);
				n += p1;
				memcpy(b + n, "{\"x\":[1,\"]}\\\"\"]", 16);
				n += 16;
				memset(b + n, p2 % 2 ? ' ' : 'a', p2);
				if (p2 % 2 == 0) {
					b[n] = '"';
					if (p2)
						b[n + p2 - 1] = '"';
				}
				n += p2;
				memcpy(b + n, "}],", 3);
				n += 3;
				for (cut = 0; cut <= n; cut += cut + 1 < n ? 7 : 1) {
					size_t cl = cut < n ? cut : n;
					char *t = malloc(cl ? cl : 1);
					const char *end0 = NULL;

					if (!t)
						abort();
					memcpy(t, b, cl);
					for (level = 0; level <= top; level++) {
						js.simd = level;
						pc_jscan_start(&js, t, cl, 64);
						pc_jscan_skip_checked(&js);
						if (level == 0)
							end0 = js.p;
						else if (js.p != end0) {
							fprintf(stderr, "skip_checked level %d: '%.*s': %zd, want %zd\n",
								level, (int)cl, t, js.p - t, end0 - t);
							bad = 1;
						}
					}
					if (cl == n && end0 != t + n - 1) {
						fprintf(stderr, "skip_checked '%.*s' ends at %zd\n", (int)cl, t, end0 - t);
						bad = 1;
					}
					free(t);
				}
			}
		}
	}
	PC_CHECK(!bad);
	js.simd = top;
}

int main(void)
{
	ctx = profconv_ctx_new();
	if (!ctx)
		return 1;
	pc_jscan_init(&js, ctx);
	test_strings();
	test_simd_paths();
	test_numbers();
	test_number_runs();
	test_zero_runs();
	test_skip_checked();
	test_print();
	test_fmt_g_int();
	test_fmt_g_frac();
	test_same_decisions();
	test_raw_rest();
	test_chrome_errors();
	test_chrome_member_numbers();
	test_chrome_repeat_ids();
	test_chrome_key_guess();
	test_chrome_batches();
	test_chrome_args_cache();
	test_digit_runs();
	test_chrome_pre_args_lean(0);
	test_chrome_pre_args_lean(1);
	test_chrome_scratch_grows(0);
	test_chrome_scratch_grows(1);
	test_chrome_args_store_fills();
	test_chrome_empty_args();
	test_chrome_args_ids();
	test_chrome_keys();
	test_chrome_v8_node_ids();
	pc_jscan_free(&js);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
