/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_symbolicate.c - the re-collapse of frames into funcs, on the example
 * of the seed document (shared seeds: frames-funcs-and-symbolication):
 *
 *   0x01 main() { ... 0x03 doSomething(i) ... 0x06 someInterlude() ...
 *                 0x09 doSomething(i) ... }
 *   0x0F doSomething(int) { 0x11 ... }
 *   0x14 someInterlude() { 0x15 ... }
 *
 * Before symbols every frame address is its own func; once the symbol table
 * arrives, the frames of one symbol's range become one func, and the stacks
 * main@0x03 -> doSomething@0x11 and main@0x09 -> doSomething@0x11 become
 * one call node main -> doSomething.  Plus an address inside inlined code
 * (0x0A: main -> helper -> inner), which grows inline frames and stacks.
 */
#include "model/pc_model.h"
#include "symbolicate/pc_symbolicate.h"
#include "symbolicate/pc_symsrc.h"

#include "pc_test.h"

static struct profconv_ctx *ctx;

/* A symbol source over a fixed table, standing in for ELF/DWARF. */
static int fake_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out)
{
	(void)s;
	memset(out, 0, sizeof(*out));
	if (rel >= 0x01 && rel < 0x0F) {
		out->sym_start = 0x01;
		out->sym_size = 0x0E;
		out->frames[0].name = "main";
		out->frames[0].file = "prog.c";
		out->frames[0].line = (uint32_t)rel;
		out->nframes = 1;
		if (rel == 0x0A) {
			out->frames[0].line = 10; /* the call to helper */
			out->frames[1].name = "helper";
			out->frames[1].file = "helper.h";
			out->frames[1].line = 3;
			out->frames[2].name = "inner";
			out->frames[2].file = "helper.h";
			out->frames[2].line = 7;
			out->nframes = 3;
		}
		return 1;
	}
	if (rel >= 0x0F && rel < 0x14) {
		out->sym_start = 0x0F;
		out->sym_size = 5;
		out->frames[0].name = "doSomething(int)";
		out->frames[0].file = "prog.c";
		out->frames[0].line = 17;
		out->nframes = 1;
		return 1;
	}
	if (rel >= 0x14 && rel < 0x17) {
		out->sym_start = 0x14;
		out->sym_size = 3;
		out->frames[0].name = "someInterlude()";
		out->frames[0].file = "prog.c";
		out->frames[0].line = 21;
		out->nframes = 1;
		return 1;
	}
	return 0;
}

static void fake_close(struct pc_symsrc *s)
{
	(void)s;
}

static const struct pc_symsrc_ops fake_ops = { "fake", fake_lookup, fake_close };

/* The reader's way: one func per frame address, named by it. */
static uint32_t addr_frame(struct pc_model *m, uint32_t lib, uint64_t addr)
{
	struct pc_func_key fk;
	struct pc_frame_key k;
	char name[32];

	memset(&fk, 0, sizeof(fk));
	memset(&k, 0, sizeof(k));
	pc_snprintf(name, sizeof(name), "0x%llx", (unsigned long long)addr);
	fk.name = pc_str_intern_z(m, name);
	fk.resource = m->libs.rows[lib].resource;
	fk.source = PC_NONE;
	k.address = addr;
	k.lib = lib;
	k.func = pc_func_intern(m, &fk);
	k.native_symbol = PC_NONE;
	k.category = 1;
	return pc_frame_intern(m, &k);
}

/* The depth-0 frame at addr (after symbolication), PC_NONE if absent. */
static uint32_t find_frame(const struct pc_model *m, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < m->frames.len; i++)
		if (m->frames.address[i] == addr && m->frames.inline_depth[i] == 0)
			return i;
	return PC_NONE;
}

static uint32_t stack_of(struct pc_model *m, uint32_t lib, const uint64_t *addrs, int n)
{
	uint32_t prefix = PC_NONE;
	int i;

	for (i = 0; i < n; i++)
		prefix = pc_stack_intern(m, prefix, addr_frame(m, lib, addrs[i]));
	return prefix;
}

/* "main;doSomething(int)" style path of a sample, root first. */
static void func_path(const struct pc_model *m, uint32_t stack, char *buf, size_t cap)
{
	const char *names[64];
	int n = 0, i;
	size_t len = 0;

	while (stack != PC_NONE && n < 64) {
		names[n++] = pc_str(m, m->funcs.name[m->frames.func[m->stacks.frame[stack]]]);
		stack = m->stacks.prefix[stack];
	}
	buf[0] = 0;
	for (i = n - 1; i >= 0; i--)
		len += pc_snprintf(buf + len, cap - len, "%s%s", i == n - 1 ? "" : ";", names[i]);
}

/* The library "prog" (no ids), its resource included: its index. */
static uint32_t add_prog_lib(struct pc_model *m)
{
	struct pc_lib lib;

	memset(&lib, 0, sizeof(lib));
	lib.name = lib.path = lib.debug_name = lib.debug_path = pc_str_intern_z(m, "prog");
	lib.breakpad_id = pc_str_intern_z(m, "");
	lib.code_id = PC_NONE;
	lib.arch = PC_NONE;
	lib.resource = pc_resource_intern(m, lib.name, PC_NONE, PC_RES_LIBRARY, 0);
	return pc_lib_add(m, &lib);
}

static void test_seed_example(void)
{
	static const uint64_t s1[] = { 0x02 }, s2[] = { 0x03, 0x11 }, s3[] = { 0x06, 0x15 },
			      s4[] = { 0x09, 0x11 }, s5[] = { 0x0A };
	struct pc_model *m = pc_model_new(ctx);
	struct pc_symsrc src = { &fake_ops, NULL, "fake", 0 };
	struct pc_symwork *w;
	struct pc_thread *t;
	uint32_t l, old_funcs, i, f02, f11, f15, f0a, inline_frames = 0;
	char path[256];

	l = add_prog_lib(m);
	t = pc_thread_add(m, 1, 1);
	pc_sample_add(m, t, stack_of(m, l, s1, 1), 0, 1);
	pc_sample_add(m, t, stack_of(m, l, s2, 2), 1, 1);
	pc_sample_add(m, t, stack_of(m, l, s3, 2), 2, 1);
	pc_sample_add(m, t, stack_of(m, l, s4, 2), 3, 1);
	pc_sample_add(m, t, stack_of(m, l, s5, 1), 4, 1);

	/* a marker whose cause is the 0x0A sample's stack */
	{
		struct pc_marker_row r;

		pc_marker_row_init(&r);
		r.name = pc_str_intern_z(m, "M");
		r.start = 5;
		r.cause_stack = t->samples.stack[4];
		pc_marker_push(m, t, &r);
	}

	/* before: one func per address */
	old_funcs = m->funcs.len;
	PC_CHECK_EQ_INT(old_funcs, 7);
	PC_CHECK_EQ_INT(m->frames.len, 7);
	PC_CHECK_EQ_INT(m->stacks.len, 8);
	f02 = m->frames.func[addr_frame(m, l, 0x02)];
	f11 = m->frames.func[addr_frame(m, l, 0x11)];
	f15 = m->frames.func[addr_frame(m, l, 0x15)];
	f0a = m->frames.func[addr_frame(m, l, 0x0A)];
	func_path(m, t->samples.stack[1], path, sizeof(path));
	PC_CHECK_EQ_STR(path, "0x3;0x11");

	src.ctx = ctx;
	PC_CHECK_EQ_INT(pc_symwork_begin(ctx, m, &w), 0);
	PC_CHECK_EQ_INT(pc_symwork_apply(w, l, &src), 0);
	PC_CHECK_EQ_INT(pc_symwork_finish(w), 0);

	/* after: main, doSomething(int), someInterlude(), helper, inner */
	PC_CHECK_EQ_INT(m->funcs.len, 5);
	PC_CHECK_EQ_INT(m->native_symbols.len, 3);
	PC_CHECK(m->meta.symbolicated);
	/* the old-func -> new-func map */
	PC_CHECK_EQ_INT(m->func_map_len, old_funcs);
	PC_CHECK_EQ_STR(pc_str(m, m->funcs.name[m->func_map[f02]]), "main");
	PC_CHECK_EQ_STR(pc_str(m, m->funcs.name[m->func_map[f0a]]), "main");
	PC_CHECK_EQ_STR(pc_str(m, m->funcs.name[m->func_map[f11]]), "doSomething(int)");
	PC_CHECK_EQ_STR(pc_str(m, m->funcs.name[m->func_map[f15]]), "someInterlude()");
	for (i = 0; i < old_funcs; i++)
		PC_CHECK(m->func_map[i] < m->funcs.len);

	/* samples keep their frames (per-address detail) but merge by func */
	func_path(m, t->samples.stack[0], path, sizeof(path));
	PC_CHECK_EQ_STR(path, "main");
	func_path(m, t->samples.stack[1], path, sizeof(path));
	PC_CHECK_EQ_STR(path, "main;doSomething(int)");
	func_path(m, t->samples.stack[2], path, sizeof(path));
	PC_CHECK_EQ_STR(path, "main;someInterlude()");
	func_path(m, t->samples.stack[3], path, sizeof(path));
	PC_CHECK_EQ_STR(path, "main;doSomething(int)");
	PC_CHECK(t->samples.stack[1] != t->samples.stack[3]); /* different frames 0x03, 0x09 */
	func_path(m, t->samples.stack[4], path, sizeof(path));
	PC_CHECK_EQ_STR(path, "main;helper;inner");

	/* the marker's cause follows the rebuilt stack table */
	PC_CHECK_EQ_INT(t->markers.cause_stack[0], t->samples.stack[4]);

	/* inline frames share the address and native symbol, with depths 1, 2 */
	for (i = 0; i < m->frames.len; i++) {
		if (m->frames.inline_depth[i] == 0)
			continue;
		inline_frames++;
		PC_CHECK_EQ_INT(m->frames.address[i], 0x0A);
		PC_CHECK_EQ_INT(m->frames.native_symbol[i],
				m->frames.native_symbol[find_frame(m, 0x0A)]);
	}
	PC_CHECK_EQ_INT(inline_frames, 2);
	PC_CHECK_EQ_INT(m->frames.len, 9);
	/* stacks: the 0x0A stack grew two levels; parents still come first */
	PC_CHECK_EQ_INT(m->stacks.len, 10);
	for (i = 0; i < m->stacks.len; i++)
		PC_CHECK(m->stacks.prefix[i] == PC_NONE || m->stacks.prefix[i] < i);
	/* funcs are keyed by (name, file): a line per frame, a source per file */
	PC_CHECK_EQ_INT(m->sources.len, 2);
	PC_CHECK_EQ_INT(m->frames.line[find_frame(m, 0x06)], 6);
	PC_CHECK_EQ_INT(m->frames.line[find_frame(m, 0x0A)], 10);
	pc_model_free(m);
}

/*
 * After the re-collapse the func and stack indexes still answer for every
 * row, as rebuilt ones would: the func index is renumbered in place when
 * it held every kept row, else rebuilt (here a kept func equal to a dropped
 * one that the index named instead, as a profile read from JSON can hold);
 * the stack table is left unindexed and indexed on the next lookup.
 */
static void test_indexes_after(int dup)
{
	static const uint64_t s1[] = { 0x02, 0x30 }, s2[] = { 0x0A }, s3[] = { 0x31 };
	struct pc_model *m = pc_model_new(ctx);
	struct pc_symsrc src = { &fake_ops, NULL, "fake", 0 };
	struct pc_symwork *w;
	struct pc_thread *t;
	struct pc_func_key fk;
	uint32_t l, i, f30, dup_row = PC_NONE, nfuncs, nstacks;

	l = add_prog_lib(m);
	t = pc_thread_add(m, 1, 1);
	pc_sample_add(m, t, stack_of(m, l, s1, 2), 0, 1);
	pc_sample_add(m, t, stack_of(m, l, s2, 1), 1, 1);
	pc_sample_add(m, t, stack_of(m, l, s3, 1), 2, 1);
	f30 = find_frame(m, 0x30);
	if (dup) {
		/* 0x30 (no symbol) moves to an equal, unindexed func row */
		memset(&fk, 0, sizeof(fk));
		fk.name = m->funcs.name[m->frames.func[f30]];
		fk.resource = m->libs.rows[l].resource;
		fk.source = PC_NONE;
		dup_row = pc_func_append(m, &fk);
		PC_CHECK(dup_row != m->frames.func[f30]);
		PC_CHECK_EQ_INT(pc_func_intern(m, &fk), m->frames.func[f30]);
		m->frames.func[f30] = dup_row;
	}
	src.ctx = ctx;
	PC_CHECK_EQ_INT(pc_symwork_begin(ctx, m, &w), 0);
	PC_CHECK_EQ_INT(pc_symwork_apply(w, l, &src), 0);
	PC_CHECK_EQ_INT(pc_symwork_finish(w), 0);
	/* main, helper, inner, 0x30, 0x31 */
	nfuncs = m->funcs.len;
	PC_CHECK_EQ_INT(nfuncs, 5);
	nstacks = m->stacks.len;
	PC_CHECK_EQ_INT(nstacks, 6);
	if (dup)
		PC_CHECK_EQ_INT(m->func_map[dup_row], m->frames.func[f30]);
	for (i = 0; i < nfuncs; i++) {
		memset(&fk, 0, sizeof(fk));
		fk.name = m->funcs.name[i];
		fk.resource = m->funcs.resource[i];
		fk.source = m->funcs.source[i];
		fk.line = m->funcs.line[i];
		fk.column = m->funcs.column[i];
		fk.is_js = m->funcs.is_js[i];
		fk.relevant_for_js = m->funcs.relevant_for_js[i];
		PC_CHECK_EQ_INT(pc_func_intern(m, &fk), i);
	}
	PC_CHECK_EQ_INT(m->funcs.len, nfuncs);
	for (i = 0; i < nstacks; i++)
		PC_CHECK_EQ_INT(pc_stack_intern(m, m->stacks.prefix[i], m->stacks.frame[i]), i);
	PC_CHECK_EQ_INT(m->stacks.len, nstacks);
	/* a new key is still a new row */
	memset(&fk, 0, sizeof(fk));
	fk.name = pc_str_intern_z(m, "new");
	fk.resource = m->libs.rows[l].resource;
	fk.source = PC_NONE;
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), nfuncs);
	PC_CHECK_EQ_INT(pc_func_intern(m, &fk), nfuncs);
	pc_model_free(m);
}

int main(void)
{
	ctx = profconv_ctx_new();
	test_seed_example();
	test_indexes_after(0);
	test_indexes_after(1);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
