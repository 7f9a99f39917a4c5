/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sym_breakpad.c - breakpad .sym files: FUNC + line records, nested
 * INLINE chains, PUBLIC fallback, gaps, duplicates, the debug id check, and
 * the damage policy (MODULE errors, counted skips of malformed lines).
 * Fixtures: tests/fixtures/sym/{hand,malformed,badmodule,nomodule}.sym.
 */
#include "symbolicate/pc_symsrc.h"

#include <stdlib.h>

#include "pc_test.h"

#define HAND_ID "0123456789ABCDEF0123456789ABCDEF0"

static struct profconv_ctx *ctx;
static char first_diag[1024];

static void diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	if (d->severity != PROFCONV_ERROR && !first_diag[0])
		pc_snprintf(first_diag, sizeof(first_diag), "%s", d->message);
}

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("PC_FIXTURES");

	pc_snprintf(path, sizeof(path), "%s/sym/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

static struct pc_symsrc *open_sym(const char *name, const char *id)
{
	struct pc_symsrc *s = NULL;
	char why[512];
	int err = pc_symsrc_open_breakpad(ctx, fixture(name), id, &s, why, sizeof(why));

	PC_CHECK_EQ_INT(err, 0);
	if (err)
		fprintf(stderr, "open %s: %s\n", name, profconv_errmsg(ctx));
	if (!s)
		fprintf(stderr, "open %s: not opened: %s\n", name, why);
	return s;
}

/* Check frame k of r: name, file (NULL allowed) and line. */
static void check_frame(const struct pc_sym_result *r, uint32_t k, const char *name,
			const char *file, uint32_t line)
{
	PC_CHECK(k < r->nframes);
	if (k >= r->nframes)
		return;
	PC_CHECK_EQ_STR(r->frames[k].name, name);
	if (file)
		PC_CHECK_EQ_STR(r->frames[k].file, file);
	else
		PC_CHECK(r->frames[k].file == NULL);
	PC_CHECK_EQ_INT(r->frames[k].line, line);
}

static void test_hand(void)
{
	struct pc_symsrc *s = open_sym("hand.sym", HAND_ID);
	struct pc_sym_result r;

	if (!s)
		return;
	PC_CHECK_EQ_STR(s->ops->kind, "breakpad");

	/* Inside FUNC main, no inline: the line record. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1004, &r), 1);
	PC_CHECK_EQ_INT(r.sym_start, 0x1000);
	PC_CHECK_EQ_INT(r.sym_size, 0x60);
	PC_CHECK_EQ_INT(r.nframes, 1);
	check_frame(&r, 0, "main", "/src/hand/main.c", 10);

	/* The first byte of the FUNC. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1000, &r), 1);
	check_frame(&r, 0, "main", "/src/hand/main.c", 10);

	/* Inside util_inline (depth 0): main executes the call at main.c:12. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x101c, &r), 1);
	PC_CHECK_EQ_INT(r.sym_start, 0x1000);
	PC_CHECK_EQ_INT(r.nframes, 2);
	check_frame(&r, 0, "main", "/src/hand/main.c", 12);
	check_frame(&r, 1, "util_inline", "/src/hand/util.h", 5);

	/* Nested: deep_inline inside util_inline inside main. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1024, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 3);
	check_frame(&r, 0, "main", "/src/hand/main.c", 12);
	check_frame(&r, 1, "util_inline", "/src/hand/util.h", 6);
	check_frame(&r, 2, "deep_inline", "/src/hand/deep.h", 7);

	/* Last byte of the nested range, then back to depth 0 only. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x102f, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 3);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1030, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 2);
	check_frame(&r, 1, "util_inline", "/src/hand/util.h", 6);

	/* After the inline range, the last byte of main. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x105f, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 1);
	check_frame(&r, 0, "main", "/src/hand/main.c", 14);

	/* The gap after main (it ends at 0x1060) up to helper: not found. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1060, &r), 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1fff, &r), 0);
	/* Below the first symbol. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x10, &r), 0);

	/*
	 * helper(int): a FUNC beats the PUBLIC at its address; unsorted line
	 * records; an INLINE with two ranges, the second one hit.
	 */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x2001, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 1);
	check_frame(&r, 0, "helper(int)", "/src/hand/helper.c", 31);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x2006, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 2);
	check_frame(&r, 0, "helper(int)", "/src/hand/helper.c", 32);
	check_frame(&r, 1, "tiny_inline", "/src/hand/helper.c", 31);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x2012, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 2);
	check_frame(&r, 1, "tiny_inline", "/src/hand/helper.c", 33);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x2018, &r), 1);
	PC_CHECK_EQ_INT(r.nframes, 1);
	check_frame(&r, 0, "helper(int)", "/src/hand/helper.c", 33);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x2020, &r), 0);

	/* PUBLIC only: extends to the next symbol, size unknown, no file. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x3010, &r), 1);
	PC_CHECK_EQ_INT(r.sym_start, 0x3000);
	PC_CHECK_EQ_INT(r.sym_size, 0);
	PC_CHECK_EQ_INT(r.nframes, 1);
	check_frame(&r, 0, "public_only", NULL, 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x3fff, &r), 1);
	PC_CHECK_EQ_STR(r.frames[0].name, "public_only");

	/* "FUNC m" twice at one address: the first one wins. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x4008, &r), 1);
	check_frame(&r, 0, "folded_a", "/src/hand/main.c", 40);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x4010, &r), 0);

	/* Line records out of order and with holes: a hole has no file:line. */
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x5007, &r), 1);
	check_frame(&r, 0, "holey", "/src/hand/main.c", 50);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x5008, &r), 1);
	check_frame(&r, 0, "holey", NULL, 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x5010, &r), 1);
	check_frame(&r, 0, "holey", "/src/hand/main.c", 52);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x5018, &r), 1);
	check_frame(&r, 0, "holey", NULL, 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x502f, &r), 1);
	PC_CHECK_EQ_INT(r.sym_size, 0x30);
	check_frame(&r, 0, "holey", NULL, 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x5030, &r), 0);

	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 0);
	pc_symsrc_close(s);
}

static void test_ids(void)
{
	struct pc_symsrc *s = NULL;
	char why[512];
	int err;

	/* The id check ignores case; NULL accepts any file. */
	s = open_sym("hand.sym", "0123456789abcdef0123456789abcdef0");
	PC_CHECK(s != NULL);
	pc_symsrc_close(s);
	s = open_sym("hand.sym", NULL);
	PC_CHECK(s != NULL);
	pc_symsrc_close(s);

	/* Mismatch: no source, a reason, no error. */
	s = (struct pc_symsrc *)1;
	err = pc_symsrc_open_breakpad(ctx, fixture("hand.sym"), "FFFF456789ABCDEF0123456789ABCDEF0",
				      &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "does not match") != NULL);
	PC_CHECK(strstr(why, HAND_ID) != NULL);
	/* A different age is a different id. */
	err = pc_symsrc_open_breakpad(ctx, fixture("hand.sym"), HAND_ID "1", &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);

	/* Absent file: a reason, no error. */
	err = pc_symsrc_open_breakpad(ctx, fixture("no-such.sym"), NULL, &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "no such file") != NULL);
	PC_CHECK_EQ_INT(ctx->status, 0);
}

static void test_module_errors(void)
{
	struct pc_symsrc *s = NULL;
	char why[512];
	int err;

	err = pc_symsrc_open_breakpad(ctx, fixture("badmodule.sym"), NULL, &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_CORRUPT);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "badmodule.sym:1:1: not a breakpad symbol file") !=
		 NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "debug id") != NULL);
	pc_clear_error(ctx);

	err = pc_symsrc_open_breakpad(ctx, fixture("nomodule.sym"), NULL, &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_CORRUPT);
	PC_CHECK(strstr(profconv_errmsg(ctx), "nomodule.sym:1:1:") != NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "expected a MODULE record") != NULL);
	pc_clear_error(ctx);
}

static void test_malformed(void)
{
	struct profconv_ctx *c = profconv_ctx_new();
	struct pc_symsrc *s = NULL;
	struct pc_sym_result r;
	char why[512];
	int err;

	/* Lenient: six bad lines skipped, counted under one kind, first one reported. */
	profconv_set_diagnostics(c, diag, NULL);
	err = pc_symsrc_open_breakpad(c, fixture("malformed.sym"), NULL, &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s != NULL);
	PC_CHECK_EQ_INT(profconv_warning_count(c), 6);
	PC_CHECK_EQ_STR(profconv_warning_summary(c), "6 malformed symbol-file lines skipped");
	PC_CHECK(strstr(first_diag, "malformed.sym:3:1: malformed FILE record (bad index)") !=
		 NULL);
	if (s) {
		PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x1004, &r), 1);
		check_frame(&r, 0, "good", "/src/m.c", 5);
		/* The FUNC with an absurd size was dropped with its records. */
		PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x5004, &r), 0);
		PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x6010, &r), 1);
		PC_CHECK_EQ_STR(r.frames[0].name, "fine_public");
		/* Its truncated line record was skipped: no file:line. */
		PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x7004, &r), 1);
		check_frame(&r, 0, "truncat", NULL, 0);
		pc_symsrc_close(s);
	}
	PC_CHECK_EQ_INT(c->mem_used, 0);
	profconv_ctx_free(c);

	/* Strict: the first bad line fails the open, with its line number. */
	c = profconv_ctx_new();
	profconv_set_strict(c, 1);
	s = NULL;
	err = pc_symsrc_open_breakpad(c, fixture("malformed.sym"), NULL, &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_STRICT);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(profconv_errmsg(c), "malformed.sym:3:1:") != NULL);
	PC_CHECK_EQ_INT(c->mem_used, 0);
	profconv_ctx_free(c);
}

/* Every allocation failure is a clean error and frees what was taken. */
static void test_alloc_failures(void)
{
	long n;

	for (n = 1; n < 64; n++) {
		struct profconv_ctx *c = profconv_ctx_new();
		struct pc_symsrc *s = NULL;
		char why[512];
		int err;

		c->fault_alloc = n;
		err = pc_symsrc_open_breakpad(c, fixture("hand.sym"), NULL, &s, why, sizeof(why));
		if (!err) {
			PC_CHECK(s != NULL);
			pc_symsrc_close(s);
			PC_CHECK_EQ_INT(c->mem_used, 0);
			profconv_ctx_free(c);
			break;
		}
		PC_CHECK_EQ_INT(err, PROFCONV_ERR_NOMEM);
		PC_CHECK(s == NULL);
		PC_CHECK_EQ_INT(c->mem_used, 0);
		profconv_ctx_free(c);
	}
	PC_CHECK(n < 64);
}

int main(void)
{
	ctx = profconv_ctx_new();
	test_hand();
	test_ids();
	test_module_errors();
	test_malformed();
	test_alloc_failures();
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
