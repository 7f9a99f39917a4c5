/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_model.c - the format-neutral model parts: payload trees, marker
 * order, processes and the (pid, tid) index, context sets, counters,
 * schemas and meta extra entries.
 */
#include "model/pc_model.h"

#include "pc_test.h"

static const char *text(const struct pc_model *m, uint32_t node)
{
	const struct pc_val *v = pc_pv(m, node);

	return v->kind == PC_VAL_STR || v->kind == PC_VAL_NUM ? pc_pv_text(m, v->v.s, NULL) : NULL;
}

static void test_payloads(struct pc_model *m)
{
	struct pc_pvb b;
	uint32_t root, inner, arr, s, copy, name_row = pc_str_intern_z(m, "unique");

	pc_pvb_begin(&b, m, 0);
	pc_pvb_key_z(&b, "type");
	pc_pvb_str_z(&b, "FileIO");
	pc_pvb_key_z(&b, "inner");
	pc_pvb_obj_begin(&b);
	pc_pvb_key_z(&b, "n");
	pc_pvb_num(&b, "1.50", 4);
	pc_pvb_key_z(&b, "list");
	pc_pvb_arr_begin(&b);
	pc_pvb_int(&b, -3);
	pc_pvb_dbl(&b, 0.25);
	pc_pvb_null(&b);
	pc_pvb_arr_end(&b);
	pc_pvb_obj_end(&b);
	pc_pvb_key_z(&b, "cause");
	pc_pvb_cause(&b);
	pc_pvb_key_z(&b, "name");
	pc_pvb_sref(&b, name_row);
	root = pc_pvb_end(&b);
	PC_CHECK(root != PC_NONE);
	PC_CHECK_EQ_INT(pc_pv(m, root)->kind, PC_VAL_OBJ);
	PC_CHECK_EQ_INT(pc_pv(m, root)->v.n, 4);
	/* root, type, inner, n, list, -3, 0.25, null, cause, name */
	PC_CHECK_EQ_INT(pc_val_span(pc_pv(m, root)), 10);
	PC_CHECK_EQ_STR(text(m, pc_pv_member(m, root, "type")), "FileIO");
	inner = pc_pv_member(m, root, "inner");
	PC_CHECK_EQ_INT(pc_val_span(pc_pv(m, inner)), 6);
	PC_CHECK_EQ_STR(text(m, pc_pv_member(m, inner, "n")), "1.50");
	arr = pc_pv_member(m, inner, "list");
	PC_CHECK_EQ_INT(pc_pv(m, arr)->v.n, 3);
	PC_CHECK_EQ_INT(pc_pv(m, arr + 1)->v.i, -3);
	PC_CHECK_EQ_INT(pc_pv(m, pc_pv_member(m, root, "cause"))->kind, PC_VAL_CAUSE);
	s = pc_pv_member(m, root, "name");
	PC_CHECK_EQ_INT(pc_pv(m, s)->kind, PC_VAL_SREF);
	PC_CHECK_EQ_INT(pc_pv(m, s)->v.s, name_row);
	PC_CHECK(pc_pv_member(m, root, "absent") == PC_NONE);
	/* member names are not in the profile's string table */
	PC_CHECK_EQ_INT(m->strings.len, 2); /* "" and "unique" */

	/* a copy is an equal subtree under a new parent */
	pc_pvb_begin(&b, m, 1);
	pc_pvb_copy(&b, inner);
	pc_pvb_str_z(&b, "after");
	copy = pc_pvb_end(&b);
	PC_CHECK(copy != PC_NONE);
	PC_CHECK_EQ_INT(pc_pv(m, copy)->v.n, 2);
	PC_CHECK_EQ_INT(pc_val_span(pc_pv(m, copy)), 8);
	PC_CHECK_EQ_STR(text(m, pc_pv_member(m, copy + 1, "n")), "1.50");
	PC_CHECK_EQ_STR(text(m, copy + 7), "after");

	/* misuse is latched: a value without a key in an object */
	pc_pvb_begin(&b, m, 0);
	pc_pvb_int(&b, 1);
	PC_CHECK(pc_pvb_end(&b) == PC_NONE);
	pc_clear_error(m->ctx);
}

static void test_marker_order(struct pc_model *m)
{
	struct pc_thread *t = pc_thread_add(m, 10, 11);
	struct pc_marker_row r;
	uint32_t a = pc_str_intern_z(m, "A"), e = pc_str_intern_z(m, "E");

	PC_CHECK(t != NULL);
	pc_marker_row_init(&r);
	r.name = a;
	r.start = 5000;
	r.end = 9000;
	r.phase = PC_PHASE_INTERVAL;
	PC_CHECK_EQ_INT(pc_marker_push(m, t, &r), 0);
	/* an IntervalEnd has no start: it sorts by its end, not first */
	pc_marker_row_init(&r);
	r.name = e;
	r.end = 7000;
	r.phase = PC_PHASE_END;
	r.cause_stack = 3;
	r.cause_time = 6000;
	PC_CHECK_EQ_INT(pc_marker_push(m, t, &r), 0);
	pc_marker_row_init(&r);
	r.name = a;
	r.start = 1000;
	PC_CHECK_EQ_INT(pc_marker_push(m, t, &r), 0);
	PC_CHECK_EQ_INT(pc_model_sort_threads(m), 0);
	PC_CHECK_EQ_INT(t->markers.start[0], 1000);
	PC_CHECK_EQ_INT(t->markers.start[1], 5000);
	PC_CHECK_EQ_INT(t->markers.name[2], e);
	PC_CHECK_EQ_INT(t->markers.end[2], 7000);
	/* the cause columns moved with their marker */
	PC_CHECK_EQ_INT(t->markers.cause_stack[2], 3);
	PC_CHECK_EQ_INT(t->markers.cause_time[2], 6000);
	PC_CHECK_EQ_INT(t->markers.cause_stack[0], PC_NONE);
}

static void test_processes(struct pc_model *m)
{
	struct pc_thread *t1 = pc_thread_add(m, 200, 201), *t0 = pc_thread_add(m, 200, 200);
	uint32_t p = pc_process_find(m, 200);

	PC_CHECK(t1 && t0);
	PC_CHECK(p != PC_NONE);
	PC_CHECK_EQ_INT(t1->process, p);
	PC_CHECK_EQ_INT(t0->process, p);
	/* tid == pid is the main thread */
	PC_CHECK(m->processes.rows[p].main_thread != PC_NONE);
	PC_CHECK(m->threads[m->processes.rows[p].main_thread] == t0);
	PC_CHECK(pc_thread_find(m, 200, 201) == t1);
	PC_CHECK(pc_thread_find(m, 200, 202) == NULL);
	PC_CHECK(pc_thread_find(m, 10, 11) != NULL);
	PC_CHECK_EQ_INT(pc_process_add_mapping(m, p, 0, 0x7000, 0x8000, 0x1000), 0);
	PC_CHECK_EQ_INT(pc_process_add_mapping(m, p, 0, 0x4000, 0x5000, 0), 0);
	PC_CHECK_EQ_INT(pc_process_sort_maps(m, p), 0);
	PC_CHECK_EQ_INT(m->processes.rows[p].maps[0].start, 0x4000);
	PC_CHECK_EQ_INT(m->processes.rows[p].maps[1].offset, 0x1000);
}

static void test_contexts(struct pc_model *m)
{
	uint32_t o1 = pc_ctxobj_intern(m, "ptr", "0x10", 1);
	uint32_t o2 = pc_ctxobj_intern(m, "ptr", "0x010", 1); /* ids compare as written */
	uint32_t c1 = pc_context_intern(m, "Frame", o1), c2 = pc_context_intern(m, "Isolate", o2);
	uint32_t v[3] = { c2, c1, c2 }, s1, s2, s0;
	const uint32_t *mem;

	PC_CHECK(o1 != o2);
	PC_CHECK_EQ_INT(pc_ctxobj_intern(m, "ptr", "0x10", 1), o1);
	PC_CHECK(pc_ctxobj_intern(m, "ptr", "0x10", 2) != o1);
	PC_CHECK_EQ_INT(pc_context_intern(m, "Frame", o1), c1);
	s1 = pc_ctxset_intern(m, v, 3);
	s2 = pc_ctxset_intern(m, v, 2);
	s0 = pc_ctxset_intern(m, NULL, 0);
	PC_CHECK_EQ_INT(s0, 0);
	PC_CHECK(s1 != PC_NONE && s1 == s2);
	PC_CHECK_EQ_INT(pc_ctxset_members(m, s1, &mem), 2);
	PC_CHECK_EQ_INT(mem[0], c1 < c2 ? c1 : c2);
	PC_CHECK_EQ_INT(pc_ctxset_members(m, s0, &mem), 0);
}

static void test_counters_schemas_meta(struct pc_model *m)
{
	static const char *const disp[] = { "marker-chart", "marker-table", NULL };
	static const struct pc_schema_field f[] = { { "name", "Name", "unique-string", 0 },
						    { "bytes", "Size", "bytes", 0 } };
	uint32_t c = pc_counter_add(m, "Memory", "Memory", "heap", pc_process_find(m, 200));
	uint32_t s;

	PC_CHECK(c != PC_NONE);
	PC_CHECK_EQ_INT(pc_counter_sample(m, c, 0, 10, 0, 0), 0);
	PC_CHECK_EQ_INT(pc_counter_sample(m, c, 1000, 20, 1, 3), 0);
	PC_CHECK_EQ_INT(m->counters.rows[c].len, 2);
	PC_CHECK(m->counters.rows[c].number != NULL);
	PC_CHECK_EQ_INT(m->counters.rows[c].number[1], 3);
	PC_CHECK_EQ_INT(m->counters.rows[c].main_thread,
			m->processes.rows[pc_process_find(m, 200)].main_thread);

	s = pc_schema_add_simple(m, "Alloc", disp, f, 2, "{marker.name}", NULL, NULL, NULL);
	PC_CHECK(s != PC_NONE);
	PC_CHECK_EQ_INT(pc_schema_find(m, "Alloc"), s);
	PC_CHECK_EQ_STR(pc_schema_field_format(m, s, "name"), "unique-string");
	PC_CHECK_EQ_STR(pc_schema_field_format(m, s, "bytes"), "bytes");
	PC_CHECK(pc_schema_field_format(m, s, "nope") == NULL);
	/* the first schema of a name wins */
	PC_CHECK_EQ_INT(pc_schema_add_simple(m, "Alloc", disp, f, 1, NULL, NULL, NULL, NULL), s);

	PC_CHECK_EQ_INT(pc_meta_extra_str(m, "perf.data", "Host", "box"), 0);
	PC_CHECK_EQ_INT(m->meta.nextra, 1);
	PC_CHECK_EQ_STR(text(m, m->meta.extra[0].value), "box");

	/* categories are not capped */
	for (s = 0; s < 100; s++)
		PC_CHECK_EQ_INT(pc_model_add_category(m, "c", "grey") == PC_NO_CATEGORY, 0);
	PC_CHECK_EQ_INT(m->ncategories, 101);
	PC_CHECK_EQ_INT(pc_model_add_subcategory(m, 100, "x"), 1);
}

/*
 * pc_str_add_hex(): the text hex_name() would give, rows in call order, and
 * a lookup of a "0x" string (intern or append) finds them; with a "0x"
 * string interned first, an add finds it.
 */
static void test_hex_names(struct profconv_ctx *ctx)
{
	static const uint64_t v[] = { 0,	  1,	      0xa,	    0xff,	 0x100,
				      0x1100,	  0x12345678, 0x9abcdef0,	0x100000000ULL,
				      0x123456789ULL, 0xdeadbeefcafebabeULL, UINT64_MAX };
	struct pc_model *m = pc_model_new(ctx);
	uint32_t rows[sizeof(v) / sizeof(v[0])], i, r, base;
	char buf[32];

	PC_CHECK(m != NULL);
	if (!m)
		return;
	base = m->strings.len;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rows[i] = pc_str_add_hex(m, v[i]);
		PC_CHECK_EQ_INT(rows[i], base + i);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, v[i]);
		PC_CHECK_EQ_STR(pc_str(m, rows[i]), buf);
		PC_CHECK_EQ_INT(m->strings.lens[rows[i]], strlen(buf));
	}
	/* not "0x" strings: no lookup of the added rows (they stay unindexed) */
	r = pc_str_intern_z(m, "main");
	PC_CHECK_EQ_INT(r, base + i);
	PC_CHECK_EQ_INT(m->strings.npending, i);
	/* a "0x" string: the added rows are entered first, and found */
	PC_CHECK_EQ_INT(pc_str_intern_z(m, "0x1100"), rows[5]);
	PC_CHECK_EQ_INT(m->strings.npending, 0);
	PC_CHECK_EQ_INT(pc_str_intern_z(m, "0xffffffffffffffff"), rows[11]);
	PC_CHECK_EQ_INT(pc_str_intern_z(m, "0x0"), rows[0]);
	/* added after that, found by an append's lookup (which then keeps the first) */
	r = pc_str_add_hex(m, 0x4242);
	PC_CHECK_EQ_INT(r, base + i + 1);
	PC_CHECK_EQ_INT(pc_str_append(m, "0x4242", 6), base + i + 2);
	PC_CHECK_EQ_INT(pc_str_intern_z(m, "0x4242"), r);
	/* a "0x" string made by a lookup first: an add finds it, adds no row */
	r = pc_str_intern_z(m, "0x777");
	PC_CHECK_EQ_INT(pc_str_add_hex(m, 0x777), r);
	PC_CHECK_EQ_INT(pc_str_add_hex(m, 0x778), r + 1);
	PC_CHECK_EQ_INT(pc_str_intern_z(m, "0x778"), r + 1);
	pc_model_free(m);
}

/*
 * pc_func_add_new() / pc_frame_add_new(): rows in call order, entered in
 * the index at the next lookup (intern, append, rebuild), which finds them.
 */
static void test_add_new(struct profconv_ctx *ctx)
{
	struct pc_model *m = pc_model_new(ctx);
	struct pc_func_key fk;
	struct pc_frame_key k;
	uint32_t f0, f1, f2, r0, r1, r2;

	PC_CHECK(m != NULL);
	if (!m)
		return;
	memset(&fk, 0, sizeof(fk));
	fk.resource = PC_NONE;
	fk.source = PC_NONE;
	fk.name = pc_str_intern_z(m, "a");
	f0 = pc_func_add_new(m, &fk);
	fk.name = pc_str_intern_z(m, "b");
	f1 = pc_func_add_new(m, &fk);
	PC_CHECK_EQ_INT(f0, 0);
	PC_CHECK_EQ_INT(f1, 1);
	PC_CHECK_EQ_INT(m->funcs.index.count, 0);
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), f1);
	fk.name = pc_str_intern_z(m, "a");
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), f0);
	PC_CHECK_EQ_INT(m->funcs.index.count, 2);
	fk.name = pc_str_intern_z(m, "c");
	f2 = pc_func_add_new(m, &fk);
	PC_CHECK_EQ_INT(f2, 2);
	PC_CHECK_EQ_INT(pc_func_append(m, &fk), 3); /* an append keeps its row... */
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), f2); /* ...and lookups find the first */
	PC_CHECK_EQ_INT(m->funcs.len, 4);

	memset(&k, 0, sizeof(k));
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.func = f0;
	k.address = 0x10;
	r0 = pc_frame_add_new(m, &k);
	k.address = (uint64_t)INT64_MAX + 2; /* no address, as pc_frame_intern() stores it */
	r1 = pc_frame_add_new(m, &k);
	PC_CHECK_EQ_INT(m->frames.address[r1] == PC_NO_ADDRESS, 1);
	k.func = f1;
	r2 = pc_frame_add_new(m, &k);
	PC_CHECK_EQ_INT(r2, 2);
	PC_CHECK_EQ_INT(m->frames.index.count, 0);
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r2);
	k.func = f0;
	k.address = PC_NO_ADDRESS;
	PC_CHECK_EQ_INT(pc_frame_intern_iw(m, &k, 0), r1);
	k.address = 0x10;
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r0);
	k.address = 0x11;
	r2 = pc_frame_add_new(m, &k);
	PC_CHECK_EQ_INT(pc_frame_index_rebuild(m), 0);
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r2);
	PC_CHECK_EQ_INT(m->frames.len, 4);

	/*
	 * A lookup that no added row can answer leaves them out of the index:
	 * a func of a name made after theirs, a frame of an inline depth none
	 * of them has.  The row it adds is found by later lookups, also once
	 * the others are entered.
	 */
	fk.name = pc_str_intern_z(m, "d");
	f0 = pc_func_add_new(m, &fk);
	fk.name = pc_str_intern_z(m, "e");
	PC_CHECK_EQ_INT(m->funcs.index.count, 3);
	f1 = pc_func_intern(m, &fk);
	PC_CHECK_EQ_INT(f1, f0 + 1);
	PC_CHECK_EQ_INT(m->funcs.index.count, 4);
	PC_CHECK_EQ_INT(m->funcs.indexed, f0);
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), f1);
	fk.name = pc_str_intern_z(m, "d");
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), f0);
	PC_CHECK_EQ_INT(m->funcs.index.count, 5);
	PC_CHECK_EQ_INT(m->funcs.indexed, m->funcs.len);
	fk.name = pc_str_intern_z(m, "e");
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), f1);

	k.address = 0x20;
	r0 = pc_frame_add_new(m, &k);
	k.inline_depth = 1;
	r1 = pc_frame_intern(m, &k);
	PC_CHECK_EQ_INT(r1, r0 + 1);
	PC_CHECK_EQ_INT(m->frames.indexed, r0);
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r1);
	k.inline_depth = 2;
	r2 = pc_frame_add_new(m, &k); /* now one has a depth: every lookup enters them */
	k.inline_depth = 1;
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r1);
	PC_CHECK_EQ_INT(m->frames.indexed, m->frames.len);
	k.inline_depth = 2;
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r2);
	k.inline_depth = 0;
	PC_CHECK_EQ_INT(pc_frame_intern(m, &k), r0);
	PC_CHECK_EQ_INT(m->frames.len, 7);
	pc_model_free(m);
}

/*
 * pc_sort_by_key() against a plain stable insertion sort: keys nearly in
 * order (the first pass's insertions), slices written after the ones they
 * enclose, interleaved runs, reversed and random keys (the budget runs
 * out: the merge passes finish), with many equal keys (stability).
 */
static void test_sort_by_key(void)
{
	enum { N = 3000 };
	static int64_t key[N];
	static uint32_t idx[N], tmp[N], ref[N];
	uint32_t n, i, j, bad;
	uint64_t rnd = 12345;
	int shape;

	for (shape = 0; shape < 6; shape++)
		for (n = 0; n <= N; n = n < 40 ? n + 1 : n * 3 + 7) {
			for (i = 0; i < n; i++) {
				rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
				switch (shape) {
				case 0: /* nearly in order: now and then a step back */
					key[i] = (int64_t)i * 10 - (rnd >> 60 == 0 ? (int64_t)(rnd >> 40 & 63) : 0);
					break;
				case 1: /* a parent after its children: a step back past up to 40 rows */
					key[i] = i % 41 == 40 ? ((int64_t)i - 40) * 10 - 5 : (int64_t)i * 10;
					break;
				case 2: /* two interleaved runs */
					key[i] = (int64_t)(i / 2) + (i & 1) * (int64_t)n;
					break;
				case 3: /* reversed */
					key[i] = (int64_t)n - i;
					break;
				case 4: /* random, few distinct keys */
					key[i] = (int64_t)(rnd >> 61);
					break;
				default: /* random */
					key[i] = (int64_t)(rnd >> 33);
					break;
				}
			}
			for (i = 0; i < n; i++) {
				idx[i] = i;
				for (j = i; j > 0 && key[ref[j - 1]] > key[i]; j--)
					ref[j] = ref[j - 1];
				ref[j] = i;
			}
			pc_sort_by_key(idx, tmp, key, n);
			for (i = 0, bad = 0; i < n; i++)
				bad += idx[i] != ref[i];
			PC_CHECK_EQ_INT(bad, 0);
		}
}

int main(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = pc_model_new(ctx);

	PC_CHECK(m != NULL);
	test_payloads(m);
	test_marker_order(m);
	test_processes(m);
	test_contexts(m);
	test_counters_schemas_meta(m);
	test_hex_names(ctx);
	test_add_new(ctx);
	test_sort_by_key();
	pc_model_free(m);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
