/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sym_persist.c - the persistent symbol cache's read side
 * (sym_persist.c): a cache file written with enough entries that a lookup
 * goes through the bucket index (entries spread unevenly, as the addresses
 * of a big lib are), read back, and every address looked up (the entry,
 * "no symbol" entries, addresses between entries, before the first and
 * past the last); the same with a file too small for buckets; and a file
 * of "no symbol" entries only (no frames, no strings but "").  The
 * cache directory is a fresh temporary one (no host file is read).
 */
#include "symbolicate/pc_sympersist.h"

#include <stdlib.h>
#include <unistd.h>

#include "pc_test.h"

static const char *const names[] = { "alpha", "beta", "gamma::delta(int)", "epsilon" };

/* entry i's address: spread like a lib's (clusters, then gaps) */
static uint64_t rel_of(uint32_t i)
{
	return 0x1000 + (uint64_t)i * 16 + (uint64_t)(i / 50) * (i / 50) * 0x10000;
}

static void check_file(const char *dir, uint32_t n)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_sympersist_id id = { "00112233445566778899aabbccddeeff00112233", 4096, 1, 2 };
	struct pc_sympersist *p;
	struct pc_sym_result r;
	uint32_t i;
	int has_dwarf = -1;

	id.size = 4096 + n; /* a key of its own per size */
	/* write: every third entry "no symbol", the others 1 or 2 levels */
	PC_CHECK_EQ_INT(pc_sympersist_open(ctx, dir, &id, NULL, &p), 0);
	PC_CHECK(p != NULL);
	PC_CHECK_EQ_INT(pc_sympersist_valid(p, &has_dwarf), 0);
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.sym_start = rel_of(i) - (i % 7);
		r.sym_size = 100 + i;
		r.nframes = 1 + (i % 2);
		r.frames[0].name = names[i % 4];
		r.frames[0].file = i % 5 ? "a.c" : NULL;
		r.frames[0].line = i;
		r.frames[1].name = names[(i + 1) % 4];
		r.frames[1].file = "b.h";
		r.frames[1].line = i + 1;
		PC_CHECK_EQ_INT(pc_sympersist_add(p, rel_of(n - 1 - i), i % 3 ? 1 : 0, &r), 0);
	}
	pc_sympersist_close(p, 1, 1);

	/* read back */
	PC_CHECK_EQ_INT(pc_sympersist_open(ctx, dir, &id, NULL, &p), 0);
	PC_CHECK(p != NULL);
	PC_CHECK_EQ_INT(pc_sympersist_valid(p, &has_dwarf), 1);
	PC_CHECK_EQ_INT(has_dwarf, 1);
	for (i = 0; i < n; i++) {
		uint32_t k = n - 1 - i; /* added for rel_of(k) */
		int found = pc_sympersist_find(p, rel_of(k), &r);

		PC_CHECK_EQ_INT(found, i % 3 ? 1 : 0);
		if (found == 1) {
			PC_CHECK_EQ_INT(r.sym_start, rel_of(i) - (i % 7));
			PC_CHECK_EQ_INT(r.sym_size, 100 + i);
			PC_CHECK_EQ_INT(r.nframes, 1 + (i % 2));
			PC_CHECK_EQ_STR(r.frames[0].name, names[i % 4]);
			PC_CHECK_EQ_INT(r.frames[0].line, i);
			PC_CHECK(i % 5 ? r.frames[0].file && strcmp(r.frames[0].file, "a.c") == 0
				       : r.frames[0].file == NULL);
			if (r.nframes == 2) {
				PC_CHECK_EQ_STR(r.frames[1].name, names[(i + 1) % 4]);
				PC_CHECK_EQ_STR(r.frames[1].file, "b.h");
				PC_CHECK_EQ_INT(r.frames[1].line, i + 1);
			}
		}
		/* not cached: between two entries */
		PC_CHECK_EQ_INT(pc_sympersist_find(p, rel_of(k) + 1, &r), -1);
	}
	PC_CHECK_EQ_INT(pc_sympersist_find(p, 0, &r), -1);
	PC_CHECK_EQ_INT(pc_sympersist_find(p, rel_of(0) - 1, &r), -1);
	PC_CHECK_EQ_INT(pc_sympersist_find(p, rel_of(n - 1) + 16, &r), -1);
	PC_CHECK_EQ_INT(pc_sympersist_find(p, UINT64_MAX, &r), -1);
	pc_sympersist_close(p, 0, 0);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/*
 * A file whose every address has no symbol: no frames at all (writing it
 * passed a NULL part of length 0 to memcpy, which UBSan stops at), read
 * back valid, each address cached as "no symbol".
 */
static void check_no_symbols(const char *dir)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_sympersist_id id = { "00112233445566778899aabbccddeeff00112233", 8192, 1, 2 };
	struct pc_sympersist *p;
	struct pc_sym_result r;
	uint32_t i;
	int has_dwarf = -1;

	memset(&r, 0, sizeof(r));
	PC_CHECK_EQ_INT(pc_sympersist_open(ctx, dir, &id, NULL, &p), 0);
	PC_CHECK(p != NULL);
	for (i = 0; i < 10; i++)
		PC_CHECK_EQ_INT(pc_sympersist_add(p, rel_of(i), 0, &r), 0);
	pc_sympersist_close(p, 1, 0);
	PC_CHECK_EQ_INT(pc_sympersist_open(ctx, dir, &id, NULL, &p), 0);
	PC_CHECK(p != NULL);
	PC_CHECK_EQ_INT(pc_sympersist_valid(p, &has_dwarf), 1);
	PC_CHECK_EQ_INT(has_dwarf, 0);
	for (i = 0; i < 10; i++)
		PC_CHECK_EQ_INT(pc_sympersist_find(p, rel_of(i), &r), 0);
	PC_CHECK_EQ_INT(pc_sympersist_find(p, rel_of(10), &r), -1);
	pc_sympersist_close(p, 0, 0);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

int main(void)
{
	char dir[] = "/tmp/pc-test-sympersist-XXXXXX", cmd[128];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	check_file(dir, 5000); /* buckets */
	check_file(dir, 40);   /* a plain binary search */
	check_no_symbols(dir);
	pc_snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return pc_test_done();
}
