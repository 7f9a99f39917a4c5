/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ctx.c - a worker thread's ctx and its adoption by the caller's
 * (pc_ctx_worker(), pc_ctx_adopt()): memory that changes hands balances
 * out, the worker's error is adopted only when the caller has none, its
 * warnings are counted, and strict mode carries over.
 */
#include "core/pc_core.h"

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

int main(void)
{
	test_memory();
	test_errors();
	test_warnings();
	return pc_test_done();
}
