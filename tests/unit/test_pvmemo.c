/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pvmemo.c - payload texts written again (pc_pvmemo, pc_pvemit.h).
 *
 *   - a payload written before is written again from its text, the same
 *     bytes as its walk (commas included), and only the payload it was
 *     kept for: another payload in the same slot is walked;
 *   - a payload whose text had invalid UTF-8 replaced is not kept, so the
 *     writer's count of replaced strings counts every copy;
 *   - a text longer than the memo keeps is walked every time; a memo whose
 *     text buffer is full begins again (the first payloads are walked
 *     again, the last is still there);
 *   - a NULL memo (no memory) knows nothing.
 */
#include "json/pc_jw.h"
#include "writers/pc_pvemit.h"

#include "pc_test.h"

static struct profconv_ctx *ctx;

/* {"type":"T","s":s,"n":n} */
static uint32_t payload(struct pc_model *m, const char *s, size_t len, int64_t n)
{
	struct pc_pvb b;

	pc_pvb_begin(&b, m, 0);
	pc_pvb_key_z(&b, "type");
	pc_pvb_str_z(&b, "T");
	pc_pvb_key_z(&b, "s");
	pc_pvb_str(&b, s, len);
	pc_pvb_key_z(&b, "n");
	pc_pvb_int(&b, n);
	return pc_pvb_end(&b);
}

/* Payload p into the array open in w, through memo c; 1 if written again. */
static int put(struct pc_pvmemo *c, struct pc_jw *w, const struct pc_model *m, uint32_t p)
{
	uint64_t from, replaced;

	if (pc_pvmemo_again(c, w, p))
		return 1;
	from = pc_jw_tell(w);
	replaced = pc_jw_replaced(w);
	pc_pv_emit(w, m, p, NULL);
	pc_pvmemo_keep(c, w, p, from, replaced);
	return 0;
}

static char *finish(struct pc_jw *w, struct membuf *b)
{
	PC_CHECK_EQ_INT(pc_jw_finish(w), 0);
	if (b->len && b->p[b->len - 1] == '\n')
		b->p[--b->len] = 0;
	return b->p;
}

static void test_again(void)
{
	struct pc_model *m = pc_model_new(ctx);
	struct pc_pvmemo *c = pc_pvmemo_new();
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	uint32_t p1, p2, bad, q, hits = 0;

	PC_CHECK(m != NULL && c != NULL && w != NULL);
	p1 = payload(m, "one", 3, 1);
	p2 = payload(m, "two", 3, 2);
	bad = payload(m, "x\xff", 2, 3);
	PC_CHECK(p1 != PC_NONE && p2 != PC_NONE && bad != PC_NONE);
	pc_jw_arr_begin(w);
	PC_CHECK_EQ_INT(put(c, w, m, p1), 0);
	PC_CHECK_EQ_INT(put(c, w, m, p1), 1);
	PC_CHECK_EQ_INT(put(c, w, m, p2), 0);
	PC_CHECK_EQ_INT(put(c, w, m, p1), 1);
	PC_CHECK_EQ_INT(put(c, w, m, p2), 1);
	PC_CHECK_EQ_INT(put(c, w, m, bad), 0);
	PC_CHECK_EQ_INT(put(c, w, m, bad), 0); /* not kept: replaced */
	PC_CHECK_EQ_INT(pc_jw_replaced(w), 2);
	/* no other payload number (some share p1's or p2's slot) is known */
	for (q = 0; q < (1u << 16); q++)
		if (q != p1 && q != p2)
			hits += (uint32_t)pc_pvmemo_again(c, w, q);
	PC_CHECK_EQ_INT(hits, 0);
	PC_CHECK_EQ_INT(pc_pvmemo_again(c, w, PC_NONE), 0);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_STR(finish(w, &b),
			"[{\"type\":\"T\",\"s\":\"one\",\"n\":1},{\"type\":\"T\",\"s\":\"one\",\"n\":1},"
			"{\"type\":\"T\",\"s\":\"two\",\"n\":2},{\"type\":\"T\",\"s\":\"one\",\"n\":1},"
			"{\"type\":\"T\",\"s\":\"two\",\"n\":2},"
			"{\"type\":\"T\",\"s\":\"x\xef\xbf\xbd\",\"n\":3},"
			"{\"type\":\"T\",\"s\":\"x\xef\xbf\xbd\",\"n\":3}]");
	free(b.p);

	/* a NULL memo knows nothing and keeps nothing */
	b.p = NULL;
	b.len = b.cap = 0;
	w = pc_jw_new(ctx, mem_write, &b);
	pc_jw_arr_begin(w);
	PC_CHECK_EQ_INT(put(NULL, w, m, p1), 0);
	PC_CHECK_EQ_INT(put(NULL, w, m, p1), 0);
	pc_jw_arr_end(w);
	PC_CHECK_EQ_STR(finish(w, &b), "[{\"type\":\"T\",\"s\":\"one\",\"n\":1},"
					"{\"type\":\"T\",\"s\":\"one\",\"n\":1}]");
	free(b.p);
	pc_pvmemo_free(c);
	pc_model_free(m);
}

static void test_sizes(void)
{
	struct pc_model *m = pc_model_new(ctx);
	struct pc_pvmemo *c = pc_pvmemo_new();
	struct membuf b = { 0 }, plain = { 0 };
	struct pc_jw *w = pc_jw_new(ctx, mem_write, &b);
	struct pc_jw *pw = pc_jw_new(ctx, mem_write, &plain);
	static char text[2000];
	uint32_t big, p[100];
	int i;

	PC_CHECK(m != NULL && c != NULL && w != NULL && pw != NULL);
	memset(text, 'a', sizeof(text));
	big = payload(m, text, 1200, 0); /* a text of more than 1024 bytes */
	for (i = 0; i < 100; i++) /* 100 texts of ~930 bytes: more than 64 KiB */
		p[i] = payload(m, text, 900, i);

	pc_jw_arr_begin(w);
	pc_jw_arr_begin(pw);
	PC_CHECK_EQ_INT(put(c, w, m, big), 0);
	PC_CHECK_EQ_INT(put(c, w, m, big), 0);
	pc_pv_emit(pw, m, big, NULL);
	pc_pv_emit(pw, m, big, NULL);
	for (i = 0; i < 100; i++) {
		PC_CHECK_EQ_INT(put(c, w, m, p[i]), 0);
		pc_pv_emit(pw, m, p[i], NULL);
	}
	PC_CHECK_EQ_INT(put(c, w, m, p[99]), 1);
	PC_CHECK_EQ_INT(put(c, w, m, p[0]), 0); /* the buffer began again */
	pc_pv_emit(pw, m, p[99], NULL);
	pc_pv_emit(pw, m, p[0], NULL);
	pc_jw_arr_end(w);
	pc_jw_arr_end(pw);
	finish(w, &b);
	finish(pw, &plain);
	PC_CHECK(b.len == plain.len && memcmp(b.p, plain.p, b.len) == 0);
	free(b.p);
	free(plain.p);
	pc_pvmemo_free(c);
	pc_model_free(m);
}

int main(void)
{
	ctx = profconv_ctx_new();
	if (!ctx)
		return 1;
	test_again();
	test_sizes();
	profconv_ctx_free(ctx);
	return pc_test_done();
}
