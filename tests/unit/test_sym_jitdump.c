/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sym_jitdump.c - the jitdump symbol source: names from CODE_LOAD,
 * file:line from the CODE_DEBUG_INFO before it (including the "\xff" same
 * file shorthand), a later overlapping load removing an earlier one,
 * CODE_MOVE, skipped UNWINDING_INFO and unknown records, CODE_CLOSE, a
 * byte-swapped dump; and damage: every truncation and every single-byte
 * corruption of the dump opens without a crash or leak, and absurd records
 * (huge sizes, huge entry counts, names without NUL) are skipped with a
 * counted warning while the sound records around them are kept.
 *
 * Dumps are built here (written to a file in the test's directory), so the
 * test needs no fixture.
 */
#include "symbolicate/pc_symsrc.h"

#include <stdlib.h>

#include "pc_test.h"

#define DUMP "test_sym_jitdump.tmp"

static struct profconv_ctx *ctx;
static int verbose;

static void diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	if (verbose)
		fprintf(stderr, "  diag %d %s: %s\n", d->code, d->id, d->message);
}

struct buf {
	unsigned char d[4096];
	size_t n;
	int swap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > sizeof(b->d))
		abort();
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void u32(struct buf *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	put(b, &v, 4);
}

static void u64(struct buf *b, uint64_t v)
{
	if (b->swap)
		v = __builtin_bswap64(v);
	put(b, &v, 8);
}

static void header(struct buf *b)
{
	u32(b, 0x4A695444);
	u32(b, 1);
	u32(b, 40);
	u32(b, 62); /* EM_X86_64 */
	u32(b, 0);
	u32(b, 4242);
	u64(b, 1);
	u64(b, 0);
}

static void prefix(struct buf *b, uint32_t id, uint32_t total)
{
	u32(b, id);
	u32(b, total);
	u64(b, 2);
}

static void load(struct buf *b, uint64_t addr, uint64_t size, const char *name)
{
	size_t nl = strlen(name) + 1, i;

	prefix(b, 0, (uint32_t)(16 + 40 + nl + size));
	u32(b, 4242);
	u32(b, 4243);
	u64(b, addr);
	u64(b, addr);
	u64(b, size);
	u64(b, 7);
	put(b, name, nl);
	for (i = 0; i < size; i++)
		put(b, "\x90", 1);
}

static void dump(const struct buf *b, size_t n)
{
	FILE *fp = fopen(DUMP, "wb");

	if (!fp || fwrite(b->d, 1, n, fp) != n || fclose(fp))
		abort();
}

/* The good dump: see the expectations in check_good(). */
static void build_good(struct buf *b)
{
	static const char e2[] = "\xff";

	header(b);
	/* DEBUG_INFO for 0x1000: 0x1000 a.js:10, 0x1010 (same file):12 */
	prefix(b, 2, (uint32_t)(16 + 16 + 16 + 5 + 16 + sizeof(e2)));
	u64(b, 0x1000);
	u64(b, 2);
	u64(b, 0x1000);
	u32(b, 10);
	u32(b, 0);
	put(b, "a.js", 5);
	u64(b, 0x1010);
	u32(b, 12);
	u32(b, 0);
	put(b, e2, sizeof(e2));
	load(b, 0x1000, 0x20, "LazyCompile:*foo a.js:10");
	load(b, 0x2000, 0x10, "bar");
	/* UNWINDING_INFO (skipped) */
	prefix(b, 4, 16 + 24 + 8);
	u64(b, 8);
	u64(b, 0);
	u64(b, 8);
	u64(b, 0);
	load(b, 0x2008, 0x10, "baz"); /* removes bar */
	/* MOVE baz to 0x3000 */
	prefix(b, 1, 16 + 48);
	u32(b, 4242);
	u32(b, 4243);
	u64(b, 0x3000);
	u64(b, 0x2008);
	u64(b, 0x3000);
	u64(b, 0x10);
	u64(b, 7);
	prefix(b, 99, 16 + 8); /* unknown: skipped */
	u64(b, 0);
	prefix(b, 3, 16); /* CLOSE: what follows is ignored */
	load(b, 0x1000, 0x100, "after-close");
}

static void expect(struct pc_symsrc *s, uint64_t addr, const char *name, const char *file,
		   uint32_t line)
{
	struct pc_sym_result r;
	int found = pc_symsrc_lookup(s, addr, &r);

	if (!name) {
		PC_CHECK_EQ_INT(found, 0);
		return;
	}
	PC_CHECK_EQ_INT(found, 1);
	if (found != 1) {
		fprintf(stderr, "  0x%llx: expected %s\n", (unsigned long long)addr, name);
		return;
	}
	PC_CHECK_EQ_INT(r.nframes, 1);
	PC_CHECK_EQ_STR(r.frames[0].name, name);
	if (file) {
		PC_CHECK(r.frames[0].file != NULL);
		if (r.frames[0].file)
			PC_CHECK_EQ_STR(r.frames[0].file, file);
	} else {
		PC_CHECK(r.frames[0].file == NULL);
	}
	PC_CHECK_EQ_INT(r.frames[0].line, line);
}

static void check_good(int swap)
{
	struct buf b = { .n = 0, .swap = swap };
	struct pc_symsrc *s = NULL;
	char why[256];

	build_good(&b);
	dump(&b, b.n);
	PC_CHECK_EQ_INT(pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why)), 0);
	PC_CHECK(s != NULL);
	if (!s)
		return;
	PC_CHECK_EQ_STR(s->ops->kind, "jitdump");
	expect(s, 0x0fff, NULL, NULL, 0);
	expect(s, 0x1000, "LazyCompile:*foo a.js:10", "a.js", 10);
	expect(s, 0x100f, "LazyCompile:*foo a.js:10", "a.js", 10);
	expect(s, 0x1010, "LazyCompile:*foo a.js:10", "a.js", 12);
	expect(s, 0x101f, "LazyCompile:*foo a.js:10", "a.js", 12);
	expect(s, 0x1020, NULL, NULL, 0);
	expect(s, 0x2000, NULL, NULL, 0); /* bar was replaced by baz */
	expect(s, 0x2008, "baz", NULL, 0);
	expect(s, 0x2017, "baz", NULL, 0);
	expect(s, 0x3000, "baz", NULL, 0);
	expect(s, 0x300f, "baz", NULL, 0);
	expect(s, 0x3010, NULL, NULL, 0);
	pc_symsrc_close(s);
	PC_CHECK_EQ_INT(ctx->nwarns, 0);
}

/* Every prefix and every one-byte corruption of the good dump: no crash. */
static void check_damage(void)
{
	struct buf good = { .n = 0 };
	size_t n, i;
	unsigned found = 0;

	build_good(&good);
	for (n = 0; n <= good.n; n++) {
		struct pc_symsrc *s = NULL;
		char why[256];
		int err;

		dump(&good, n);
		err = pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why));
		PC_CHECK_EQ_INT(err, 0); /* a damaged dump is never fatal */
		found += s != NULL;
		pc_symsrc_close(s);
		pc_clear_error(ctx);
	}
	/* Cuts after the first load keep it. */
	PC_CHECK(found > good.n / 2);
	for (i = 0; i < good.n; i++) {
		static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80 };
		size_t v;

		for (v = 0; v < sizeof(vals); v++) {
			struct buf b = good;
			struct pc_symsrc *s = NULL;
			struct pc_sym_result r;
			char why[256];
			uint64_t a;

			b.d[i] = vals[v];
			dump(&b, b.n);
			(void)pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why));
			for (a = 0x0ff0; s && a < 0x3020; a += 4)
				(void)pc_symsrc_lookup(s, a, &r);
			pc_symsrc_close(s);
			pc_clear_error(ctx);
		}
	}
}

/* Absurd records are skipped with a warning; their neighbours survive. */
static void check_absurd(void)
{
	struct buf b = { .n = 0 };
	struct pc_symsrc *s = NULL;
	char why[256];

	header(&b);
	load(&b, 0x1000, 0x10, "first");
	/* LOAD whose code_size exceeds its record */
	prefix(&b, 0, 16 + 40 + 2);
	u32(&b, 1);
	u32(&b, 1);
	u64(&b, 0x5000);
	u64(&b, 0x5000);
	u64(&b, UINT64_MAX / 2);
	u64(&b, 0);
	put(&b, "x", 2);
	/* LOAD whose name has no NUL */
	prefix(&b, 0, 16 + 40 + 3);
	u32(&b, 1);
	u32(&b, 1);
	u64(&b, 0x6000);
	u64(&b, 0x6000);
	u64(&b, 0);
	u64(&b, 0);
	put(&b, "abc", 3);
	/* DEBUG_INFO claiming 2^60 entries */
	prefix(&b, 2, 16 + 16 + 17);
	u64(&b, 0x2000);
	u64(&b, 1ULL << 60);
	u64(&b, 0x2000);
	u32(&b, 1);
	u32(&b, 0);
	put(&b, "", 1);
	/* MOVE of code never loaded */
	prefix(&b, 1, 16 + 48);
	u32(&b, 1);
	u32(&b, 1);
	u64(&b, 0);
	u64(&b, 0x9000);
	u64(&b, 0xa000);
	u64(&b, 0x10);
	u64(&b, 0);
	load(&b, 0x2000, 0x10, "second");
	/* a record whose size runs past the end: the rest is ignored */
	prefix(&b, 0, 0xfffffff0u);
	load(&b, 0x3000, 0x10, "lost");
	dump(&b, b.n);
	ctx->nwarns = 0;
	PC_CHECK_EQ_INT(pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why)), 0);
	PC_CHECK(s != NULL);
	if (s) {
		expect(s, 0x1008, "first", NULL, 0);
		expect(s, 0x2008, "second", NULL, 0); /* the bad debug info is not attached */
		expect(s, 0x3008, NULL, NULL, 0);
		expect(s, 0x5000, NULL, NULL, 0);
		expect(s, 0x6000, NULL, NULL, 0);
		expect(s, 0xa000, NULL, NULL, 0);
		pc_symsrc_close(s);
	}
	PC_CHECK_EQ_INT(ctx->nwarns, 1);
	if (ctx->nwarns)
		PC_CHECK_EQ_INT(ctx->warns[0].count, 5);

	/* Not a jitdump: a reason, no error. */
	b.n = 0;
	put(&b, "not a jitdump at all, just some text....", 40);
	dump(&b, b.n);
	s = NULL;
	PC_CHECK_EQ_INT(pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why)), 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "bad magic") != NULL);

	/* A header size below 40 or past the file: a reason and one warning,
	 * not a failed conversion (issue 22 item 15) */
	b.n = 0;
	header(&b);
	load(&b, 0x1000, 0x10, "first");
	b.d[8] = 20;
	dump(&b, b.n);
	s = NULL;
	ctx->nwarns = 0;
	PC_CHECK_EQ_INT(pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why)), 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "header size 20") != NULL);
	PC_CHECK_EQ_INT(ctx->nwarns, 1);
	b.d[8] = 0xff;
	b.d[9] = 0xff;
	dump(&b, b.n);
	PC_CHECK_EQ_INT(pc_symsrc_open_jitdump(ctx, DUMP, &s, why, sizeof(why)), 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "header size 65535") != NULL);
	PC_CHECK_EQ_INT(ctx->nwarns, 1); /* one kind, counted */
}

int main(void)
{
	struct profconv_ctx *main_ctx = profconv_ctx_new();

	ctx = main_ctx;
	profconv_set_diagnostics(ctx, diag, NULL);
	verbose = 1;
	check_good(0);
	check_good(1);
	check_absurd();
	verbose = 0;
	check_damage();
	remove(DUMP);
	PC_CHECK_EQ_INT(main_ctx->mem_used, 0);
	profconv_ctx_free(main_ctx);
	return pc_test_done();
}
