/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ctx.c - a worker thread's ctx and its adoption by the caller's
 * (pc_ctx_worker(), pc_ctx_adopt()): memory that changes hands balances
 * out, the worker's error is adopted only when the caller has none, its
 * warnings are counted, and strict mode carries over.  And the mapping
 * cache of the allocator's big blocks (test_map_cache()), the slabs of the
 * first ones below 2 MiB (test_map_slab()) and the room of the later ones
 * (test_map_room()).
 */
#include "core/pc_core.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pc_test.h"

static void test_memory(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new(), *w;
	void *a, *b;
	uint64_t before;

	if (!ctx)
		return;
	profconv_set_max_memory(ctx, 1 << 20);
	a = pc_alloc(ctx, 1000);
	before = ctx->mem_used;
	w = pc_ctx_worker(ctx);
	PC_CHECK(w != NULL);
	if (!w || !a) {
		profconv_ctx_free(w);
		pc_free(ctx, a);
		profconv_ctx_free(ctx);
		return;
	}
	/* the worker has no limit of its own; a block of the caller's freed on
	 * the worker, and one of the worker's kept by the caller */
	b = pc_alloc(w, (size_t)2 << 20);
	PC_CHECK(b != NULL);
	pc_free(w, a);
	PC_CHECK_EQ_INT(pc_ctx_adopt(ctx, w), 0);
	PC_CHECK_EQ_INT(ctx->mem_used, before - 1000 + ((size_t)2 << 20));
	PC_CHECK_EQ_INT(w->mem_used, 0);
	pc_free(ctx, b);
	PC_CHECK_EQ_INT(ctx->mem_used, before - 1000);
	profconv_ctx_free(w);
	profconv_ctx_free(ctx);
}

static void test_errors(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new(), *w;

	if (!ctx)
		return;
	/* the worker's error, with its place, when the caller has none */
	w = pc_ctx_worker(ctx);
	if (w) {
		pc_fail_at(w, PROFCONV_ERR_CORRUPT, "t.json", 42, "bad byte");
		PC_CHECK_EQ_INT(pc_ctx_adopt(ctx, w), PROFCONV_ERR_CORRUPT);
		PC_CHECK_EQ_INT(ctx->status, PROFCONV_ERR_CORRUPT);
		PC_CHECK_EQ_STR(profconv_errmsg(ctx), "t.json: offset 0x2a: bad byte");
		PC_CHECK_EQ_INT(ctx->err_offset, 42);
		profconv_ctx_free(w);
	}
	/* the caller's own error comes first; the worker's return value says
	 * the worker failed, the caller's message stays */
	w = pc_ctx_worker(ctx);
	if (w) {
		pc_fail(w, PROFCONV_ERR_IO, NULL, "later");
		PC_CHECK_EQ_INT(pc_ctx_adopt(ctx, w), PROFCONV_ERR_IO);
		PC_CHECK_EQ_INT(ctx->status, PROFCONV_ERR_CORRUPT);
		PC_CHECK_EQ_STR(profconv_errmsg(ctx), "t.json: offset 0x2a: bad byte");
		profconv_ctx_free(w);
	}
	/* a worker without an error changes nothing and returns 0 */
	pc_clear_error(ctx);
	w = pc_ctx_worker(ctx);
	if (w) {
		PC_CHECK_EQ_INT(pc_ctx_adopt(ctx, w), 0);
		PC_CHECK_EQ_INT(ctx->status, 0);
		profconv_ctx_free(w);
	}
	profconv_ctx_free(ctx);
}

static void test_warnings(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new(), *w;
	const char *kind;
	uint64_t count;

	if (!ctx)
		return;
	w = pc_ctx_worker(ctx);
	if (w) {
		PC_CHECK_EQ_INT(pc_warn(w, "things skipped", NULL, "one"), 0);
		PC_CHECK_EQ_INT(pc_warn(w, "things skipped", NULL, "two"), 0);
		PC_CHECK_EQ_INT(pc_ctx_adopt(ctx, w), 0);
		PC_CHECK_EQ_INT(profconv_warning_count(ctx), 2);
		PC_CHECK_EQ_INT(profconv_warning_kind(ctx, 0, &kind, &count), 0);
		PC_CHECK_EQ_STR(kind, "things skipped");
		PC_CHECK_EQ_INT(count, 2);
		profconv_ctx_free(w);
	}
	/* strict carries over: the worker's first warning is its error */
	profconv_set_strict(ctx, 1);
	w = pc_ctx_worker(ctx);
	if (w) {
		PC_CHECK_EQ_INT(pc_warn(w, "things skipped", NULL, "made fatal"),
				PROFCONV_ERR_STRICT);
		PC_CHECK_EQ_INT(pc_ctx_adopt(ctx, w), PROFCONV_ERR_STRICT);
		PC_CHECK_EQ_STR(profconv_errmsg(ctx), "made fatal");
		profconv_ctx_free(w);
	}
	profconv_ctx_free(ctx);
}

/* 1 if every page of [p, p + len) is resident, 0 if not all, -1 if unknown. */
static int resident(const void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n, i, in = 0;
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(pg - 1);
	unsigned char *v;

	n = ((uintptr_t)p + len - a + pg - 1) / pg;
	v = malloc(n);
	if (!v || mincore((void *)a, n * pg, v) != 0) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++)
		in += v[i] & 1;
	free(v);
	return in == n;
}

static int all_bytes(const unsigned char *p, size_t len, unsigned char c)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/*
 * Big blocks (128 KiB and more) freed stay mapped in the cache, and the next
 * big block that fits gets their pages: resident before it touches them
 * (no page faults).  A block from pc_calloc() is zeroed all the same, one
 * grown into a cached mapping keeps its bytes, the output's buffers
 * (pc_map_*()) share the cache, and freeing the last context empties it.
 */
static void test_map_cache(void)
{
	const size_t k = 1024;
	struct profconv_ctx *ctx = profconv_ctx_new();
	unsigned char *a, *b, *c, *m;

	if (!ctx)
		return;
	a = pc_alloc(ctx, 512 * k);
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	memset(a, 0xab, 512 * k);
	pc_free(ctx, a);
	b = pc_calloc(ctx, 1, 512 * k);
	PC_CHECK(b != NULL);
	if (!b)
		goto out;
	PC_CHECK_EQ_INT(resident(b, 512 * k), 1);
	PC_CHECK(all_bytes(b, 512 * k, 0));
	memset(b, 0xcd, 512 * k);
	pc_free(ctx, b);
	/* a smaller one takes the head of that mapping, and grows into a
	 * cached one by a copy */
	c = pc_alloc(ctx, 200 * k);
	PC_CHECK(c != NULL);
	a = pc_alloc(ctx, 1024 * k);
	PC_CHECK(a != NULL);
	if (!c || !a)
		goto out;
	PC_CHECK_EQ_INT(resident(c, 200 * k), 1);
	memset(c, 0x5a, 200 * k);
	memset(a, 0x11, 1024 * k);
	pc_free(ctx, a);
	c = pc_realloc(ctx, c, 700 * k);
	PC_CHECK(c != NULL);
	if (!c)
		goto out;
	PC_CHECK_EQ_INT(resident(c, 700 * k), 1);
	PC_CHECK(all_bytes(c, 200 * k, 0x5a));
	PC_CHECK_EQ_INT(ctx->mem_used, 700 * k);
	pc_free(ctx, c);
	/* the output's buffers: from the cache, grown with their bytes */
	m = pc_map_alloc(300 * k);
	PC_CHECK(m != NULL);
	if (m) {
		PC_CHECK_EQ_INT(resident(m, 300 * k), 1);
		memset(m, 0x77, 300 * k);
		m = pc_map_realloc(m, 300 * k, 600 * k);
		PC_CHECK(m != NULL);
		if (m)
			PC_CHECK(all_bytes(m, 300 * k, 0x77));
		pc_map_free(m, 600 * k);
	}
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
out:
	profconv_ctx_free(ctx);
	/* the last context freed: nothing cached, a new block is fresh (its
	 * bytes zero, not the 0x11 of the cached one; whether it is resident
	 * depends on huge pages: a slab's is, as a whole, once touched) */
	ctx = profconv_ctx_new();
	if (!ctx)
		return;
	a = pc_alloc(ctx, 512 * k);
	PC_CHECK(a != NULL);
	if (a)
		PC_CHECK(all_bytes(a, 512 * k, 0));
	pc_free(ctx, a);
	profconv_ctx_free(ctx);
}

/*
 * The first blocks below 2 MiB are pieces of 2 MiB slabs, one after the
 * other, fresh (zero) when cut; one that grows is copied into a bigger
 * piece with its bytes, and one that reaches 2 MiB is moved into a
 * 2 MiB-aligned mapping of its own.  After PC_SLAB_MAX slabs, blocks get
 * mappings of their own (test_map_room()); emptying the cache counts the
 * slabs again.
 */
static void test_map_slab(void)
{
	const size_t k = 1024, huge = (size_t)2 << 20;
	struct profconv_ctx *ctx = profconv_ctx_new();
	unsigned char *a, *b;

	if (!ctx)
		return;
	pc_map_cache_flush();
	a = pc_alloc(ctx, 200 * k);
	b = pc_alloc(ctx, 150 * k);
	PC_CHECK(a != NULL && b != NULL);
	if (!a || !b)
		goto out;
	/* 200 KiB and the 16-byte header: 51 pages; 150 KiB: 38 */
	PC_CHECK(b == a + 51 * 4096);
	PC_CHECK(((uintptr_t)(a - 16) & (huge - 1)) == 0);
	PC_CHECK(all_bytes(a, 200 * k, 0));
	PC_CHECK(all_bytes(b, 150 * k, 0));
	memset(a, 0x3c, 200 * k);
	memset(b, 0x3d, 150 * k);
	a = pc_realloc(ctx, a, 700 * k); /* copied, after b */
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	PC_CHECK(a == b + 38 * 4096);
	PC_CHECK(all_bytes(a, 200 * k, 0x3c));
	PC_CHECK(all_bytes(b, 150 * k, 0x3d));
	memset(a + 200 * k, 0x3e, 500 * k);
	a = pc_realloc(ctx, a, 3 * huge / 2); /* a mapping of its own */
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	PC_CHECK(((uintptr_t)(a - 16) & (huge - 1)) == 0);
	PC_CHECK(all_bytes(a, 200 * k, 0x3c));
	PC_CHECK(all_bytes(a + 200 * k, 500 * k, 0x3e));
	PC_CHECK_EQ_INT(ctx->mem_used, 3 * huge / 2 + 150 * k);
	/* shrinking keeps the bytes */
	a = pc_realloc(ctx, a, 500 * k);
	PC_CHECK(a != NULL);
	if (a)
		PC_CHECK(all_bytes(a, 200 * k, 0x3c));
	pc_free(ctx, a);
	pc_free(ctx, b);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
out:
	profconv_ctx_free(ctx);
}

/*
 * Once the slabs are cut, a big block that grew is moved into a mapping
 * with room to grow (never touched, so not resident), and grows there
 * again in place; the room goes when the block is freed, the pages it used
 * to the cache.  A cached mapping split for a smaller block keeps its tail
 * cached whatever its size (before, a tail under 132 KiB was unmapped).
 */
static void test_map_room(void)
{
	const size_t k = 1024, huge = (size_t)2 << 20;
	struct profconv_ctx *ctx = profconv_ctx_new();
	unsigned char *a, *b, *m, *cut[PC_SLAB_MAX];
	unsigned i;

	if (!ctx)
		return;
	pc_map_cache_flush();
	/* blocks of a slab but a page: each a slab of its own */
	for (i = 0; i < PC_SLAB_MAX; i++) {
		cut[i] = pc_alloc(ctx, huge - 4096 - 16);
		PC_CHECK(cut[i] != NULL);
		if (!cut[i])
			goto out;
		PC_CHECK(((uintptr_t)(cut[i] - 16) & (huge - 1)) == 0);
	}
	a = pc_alloc(ctx, 200 * k);
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	memset(a, 0x3c, 200 * k);
	a = pc_realloc(ctx, a, 300 * k); /* nothing cached: moved, with room */
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	PC_CHECK(all_bytes(a, 200 * k, 0x3c));
	memset(a + 200 * k, 0x3d, 100 * k);
	b = pc_realloc(ctx, a, 1000 * k);
	PC_CHECK(b == a); /* in place */
	if (!b)
		goto out;
	a = b;
	PC_CHECK(all_bytes(a, 200 * k, 0x3c));
	PC_CHECK(all_bytes(a + 200 * k, 100 * k, 0x3d));
	PC_CHECK_EQ_INT(resident(a + 400 * k, 4096), 0);
	PC_CHECK_EQ_INT(ctx->mem_used, 1000 * k + PC_SLAB_MAX * (huge - 4096 - 16));
	memset(a, 0x11, 1000 * k);
	/* shrinking gives the room back; the block keeps its bytes */
	a = pc_realloc(ctx, a, 500 * k);
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	PC_CHECK(all_bytes(a, 500 * k, 0x11));
	pc_free(ctx, a);
	/* the 500 KiB it used are cached: a 450 KiB block takes their head,
	 * and the 48 KiB tail stays cached for a scratch buffer */
	b = pc_alloc(ctx, 450 * k);
	PC_CHECK(b != NULL);
	if (b)
		PC_CHECK_EQ_INT(resident(b, 450 * k), 1);
	m = pc_map_alloc(40 * k);
	PC_CHECK(m != NULL);
	if (m) {
		PC_CHECK_EQ_INT(resident(m, 40 * k), 1);
		pc_map_free(m, 40 * k);
	}
	pc_free(ctx, b);
	/* a block with room that grows while a cached mapping fits takes
	 * that mapping's pages (resident) rather than touching its room */
	pc_map_cache_flush();
	a = pc_alloc(ctx, 150 * k);
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	memset(a, 0x42, 150 * k);
	a = pc_realloc(ctx, a, 200 * k); /* moved, with room for 800 KiB */
	PC_CHECK(a != NULL);
	b = pc_alloc(ctx, 700 * k);
	PC_CHECK(b != NULL);
	if (!a || !b)
		goto out;
	memset(b, 0x43, 700 * k);
	pc_free(ctx, b);
	a = pc_realloc(ctx, a, 600 * k);
	PC_CHECK(a != NULL);
	if (!a)
		goto out;
	PC_CHECK_EQ_INT(resident(a, 600 * k), 1);
	PC_CHECK(all_bytes(a, 150 * k, 0x42));
	pc_free(ctx, a);
	for (i = 0; i < PC_SLAB_MAX; i++)
		pc_free(ctx, cut[i]);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
out:
	profconv_ctx_free(ctx);
}

/* pc_fmt_hex() against "%" PRIx64, at every digit count (and 0). */
static void test_fmt_hex(void)
{
	unsigned b, k;

	for (b = 0; b <= 64; b++) {
		uint64_t ones = b < 64 ? ((uint64_t)1 << b) - 1 : UINT64_MAX;
		uint64_t vals[2] = { ones, ones & (uint64_t)0xa5a5a5a5a5a5a5a5u };

		for (k = 0; k < 2; k++) {
			char got[24], want[24];

			snprintf(want, sizeof(want), "%" PRIx64, vals[k]);
			PC_CHECK_EQ_INT(pc_fmt_hex(got, vals[k]), strlen(want));
			PC_CHECK_EQ_STR(got, want);
		}
	}
}

/*
 * A miss leaves the cache as it is: a block too big for what is cached
 * gets fresh pages, and the cached mapping is still there for the next
 * block it fits, with its bytes (it was unmapped before, and its
 * munmap() made the other threads' CPUs flush their TLBs).
 */
static void test_map_keep(void)
{
	const size_t k = 1024;
	unsigned char *m, *big, *again;

	pc_map_cache_flush();
	m = pc_map_alloc(300 * k);
	PC_CHECK(m != NULL);
	if (!m)
		return;
	memset(m, 0x77, 300 * k);
	pc_map_free(m, 300 * k);
	big = pc_map_alloc(1024 * k); /* nothing cached fits */
	PC_CHECK(big != NULL);
	again = pc_map_alloc(300 * k);
	PC_CHECK(again == m);
	if (again == m)
		PC_CHECK(all_bytes(again, 300 * k, 0x77));
	pc_map_free(again, 300 * k);
	pc_map_free(big, 1024 * k);
	pc_map_cache_flush();
}

/*
 * A full cache makes room for a freed mapping by unmapping its oldest
 * ones: three 4 MiB mappings freed in turn into the 8 MiB cache leave the
 * second and the third cached, with their bytes (unmapping the newest
 * instead kept the first two, and two jobs at once filled the cache with
 * pieces neither asked for again).
 */
static void test_map_fifo(void)
{
	const size_t mib = (size_t)1 << 20;
	unsigned char *m[3], *x, *y;
	unsigned i;

	pc_map_cache_flush();
	for (i = 0; i < 3; i++) {
		m[i] = pc_map_alloc(4 * mib);
		PC_CHECK(m[i] != NULL);
		if (!m[i])
			return;
		memset(m[i], 0x21 + (int)i, 4 * mib);
	}
	for (i = 0; i < 3; i++)
		pc_map_free(m[i], 4 * mib);
	x = pc_map_alloc(4 * mib);
	y = pc_map_alloc(4 * mib);
	PC_CHECK(x == m[1] && y == m[2]);
	if (x == m[1] && y == m[2]) {
		PC_CHECK(all_bytes(x, 4 * mib, 0x22));
		PC_CHECK(all_bytes(y, 4 * mib, 0x23));
	}
	pc_map_free(x, 4 * mib);
	pc_map_free(y, 4 * mib);
	pc_map_cache_flush();
}

int main(void)
{
	test_fmt_hex();
	test_map_cache();
	test_map_slab();
	test_map_room();
	test_map_keep();
	test_map_fifo();
	test_memory();
	test_errors();
	test_warnings();
	return pc_test_done();
}
