/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_gbuf_libs.c - what gecko-dump PID reads from a process's memory to
 * name the frames the buffer leaves as addresses (gecko/gbuf_libs.c), on
 * synthetic inputs (no live Firefox in the tests; the layouts are the ones
 * measured on a live ESR 153.7, docs/formats/gecko-buffer-dump.md 8):
 *
 *   - a vdso image: a small ELF64 made here (.dynsym with a global symbol
 *     and its weak alias, an object, a GNU build id note);
 *   - the JS engine's JIT table: JitcodeGlobalEntry records laid out in a
 *     fake memory (Baseline, Ion, an Ion IC stub, a stale copy, junk);
 *   - a PGKB written from a hand-made chunk with those parts (JITF, SYMS,
 *     the [vdso] LIBS row) and read back: the JIT return addresses and the
 *     vdso frame are named.
 */
#include "pc_test.h"

#include <unistd.h>

#include "gecko/pc_gbuf_libs.h"
#include "model/pc_model.h"

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

/* --- a synthetic vdso --- */

static unsigned char vdso[4096];

static void make_vdso(void)
{
	static const char dynstr[] = "\0__vdso_clock_gettime\0clock_gettime\0__vdso_time\0data";
	unsigned char *e = vdso, *ph, *sh, *sym;
	unsigned i;

	memset(vdso, 0, sizeof(vdso));
	memcpy(e, "\177ELF", 4);
	e[4] = 2; /* ELFCLASS64 */
	e[5] = 1; /* little-endian */
	e[6] = 1;
	put16(e + 16, 3); /* ET_DYN */
	put16(e + 18, 62);
	put64(e + 32, 64);   /* phoff */
	put64(e + 40, 3072); /* shoff */
	put16(e + 52, 64);
	put16(e + 54, 56);
	put16(e + 56, 2);
	put16(e + 58, 64);
	put16(e + 60, 3);
	/* PT_LOAD: offset 0 at vaddr 0xffffffffff700000 (as old kernels linked it) */
	ph = e + 64;
	put32(ph, 1);
	put64(ph + 8, 0);
	put64(ph + 16, 0xffffffffff700000ULL);
	put64(ph + 32, sizeof(vdso));
	/* PT_NOTE at 512: "GNU" NT_GNU_BUILD_ID, 20 bytes 0x10..0x23 */
	ph += 56;
	put32(ph, 4);
	put64(ph + 8, 512);
	put64(ph + 16, 0xffffffffff700000ULL + 512);
	put64(ph + 32, 36);
	put32(e + 512, 4);
	put32(e + 516, 20);
	put32(e + 520, 3);
	memcpy(e + 524, "GNU", 4);
	for (i = 0; i < 20; i++)
		e[528 + i] = (unsigned char)(0x10 + i);
	/* .dynsym at 1024 (5 entries), .dynstr at 2048 */
	sym = e + 1024 + 24; /* entry 0 is null */
	put32(sym, 1);       /* __vdso_clock_gettime: GLOBAL FUNC */
	sym[4] = 0x12;
	put64(sym + 8, 0xffffffffff700800ULL);
	put64(sym + 16, 0x40);
	sym += 24;
	put32(sym, 22); /* clock_gettime: WEAK FUNC, same address */
	sym[4] = 0x22;
	put64(sym + 8, 0xffffffffff700800ULL);
	put64(sym + 16, 0x40);
	sym += 24;
	put32(sym, 36); /* __vdso_time: GLOBAL FUNC */
	sym[4] = 0x12;
	put64(sym + 8, 0xffffffffff700900ULL);
	put64(sym + 16, 0x20);
	sym += 24;
	put32(sym, 48); /* data: an OBJECT, not code */
	sym[4] = 0x11;
	put64(sym + 8, 0xffffffffff700a00ULL);
	put64(sym + 16, 8);
	memcpy(e + 2048, dynstr, sizeof(dynstr));
	sh = e + 3072 + 64; /* section 0 is null */
	put32(sh + 4, 11);  /* SHT_DYNSYM */
	put64(sh + 24, 1024);
	put64(sh + 32, 5 * 24);
	put32(sh + 40, 2);
	put64(sh + 56, 24);
	sh += 64;
	put32(sh + 4, 3); /* SHT_STRTAB */
	put64(sh + 24, 2048);
	put64(sh + 32, sizeof(dynstr));
}

static void test_vdso(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_vdso v;

	make_vdso();
	PC_CHECK_EQ_INT(pc_vdso_parse(ctx, vdso, sizeof(vdso), &v), 0);
	PC_CHECK_EQ_INT(v.nsyms, 2);
	if (v.nsyms == 2) {
		/* offsets in the image (vaddr - p_vaddr + p_offset); the global name of an alias */
		PC_CHECK_EQ_INT(v.syms[0].offset, 0x800);
		PC_CHECK_EQ_INT(v.syms[0].size, 0x40);
		PC_CHECK_EQ_STR(v.syms[0].name, "__vdso_clock_gettime");
		PC_CHECK_EQ_INT(v.syms[1].offset, 0x900);
		PC_CHECK_EQ_STR(v.syms[1].name, "__vdso_time");
	}
	PC_CHECK(v.has_id);
	PC_CHECK_EQ_STR(v.id.code_id, "101112131415161718191a1b1c1d1e1f20212223");
	PC_CHECK_EQ_STR(v.id.breakpad_id, "131211101514171618191A1B1C1D1E1F0");
	pc_free(ctx, v.syms);
	/* not an ELF, a cut one: nothing, no error */
	PC_CHECK_EQ_INT(pc_vdso_parse(ctx, vdso + 1, sizeof(vdso) - 1, &v), 0);
	PC_CHECK_EQ_INT(v.nsyms, 0);
	PC_CHECK_EQ_INT(pc_vdso_parse(ctx, vdso, 3100, &v), 0);
	PC_CHECK_EQ_INT(v.nsyms, 0);
	profconv_ctx_free(ctx);
}

/* --- a fake memory holding JIT table entries --- */

#define HEAP 0x50000ULL
static unsigned char heap[4096];
static const uint64_t code_regions[] = { 0x10000, 0x20000 };

static size_t fake_read(void *user, uint64_t addr, void *dst, size_t n)
{
	(void)user;
	if (addr < HEAP || addr >= HEAP + sizeof(heap))
		return 0;
	if (n > HEAP + sizeof(heap) - addr)
		n = (size_t)(HEAP + sizeof(heap) - addr);
	memcpy(dst, heap + (addr - HEAP), n);
	return n;
}

/* An entry at heap offset at: range, jitcode, sample position, kind. */
static unsigned char *entry(size_t at, uint64_t start, uint64_t end, uint64_t sampled, unsigned kind)
{
	unsigned char *e = heap + at;

	put64(e, start);
	put64(e + 8, end);
	put64(e + 16, 0); /* jitcode_: collected */
	put64(e + 24, 0x7fe635738000ULL);
	put64(e + 32, sampled);
	e[40] = (unsigned char)kind;
	e[41] = 1;
	return e;
}

static void make_heap(void)
{
	unsigned char *e;

	memset(heap, 0, sizeof(heap));
	strcpy((char *)heap + 2048, "fib (test.js:1:10)");
	strcpy((char *)heap + 2112, "domWork (test.js:5:17)");
	strcpy((char *)heap + 2176, "stale copy");
	memcpy(heap + 2240, "bad\001label", 10);
	/* Baseline, sampled at buffer position 5 */
	e = entry(0, 0x10100, 0x10200, 5, 2);
	put64(e + 72, HEAP + 2048);
	/* Ion: its script list (one script, line 5 column 17) at 1024 */
	e = entry(96, 0x10300, 0x10400, UINT64_MAX, 0);
	put64(e + 48, HEAP + 1024);
	put64(e + 56, 1);
	put64(e + 64, 2);
	put32(heap + 1024 + 24, 5);
	put32(heap + 1024 + 28, 17);
	put64(heap + 1024 + 32, HEAP + 2112);
	/* an Ion IC stub rejoining the Ion code */
	e = entry(192, 0x10500, 0x10540, UINT64_MAX, 1);
	put64(e + 48, 0x10380);
	/* a stale copy of the Baseline range, not sampled: left out */
	e = entry(288, 0x10100, 0x10200, UINT64_MAX, 2);
	put64(e + 72, HEAP + 2176);
	/* junk: an empty range; a label that is not text; a kind past the last */
	e = entry(384, 0x10600, 0x10600, UINT64_MAX, 2);
	put64(e + 72, HEAP + 2048);
	e = entry(480, 0x10700, 0x10800, UINT64_MAX, 2);
	put64(e + 72, HEAP + 2240);
	e = entry(576, 0x10900, 0x10a00, UINT64_MAX, 9);
	put64(e + 72, HEAP + 2048);
	/* a sample position that is no buffer index */
	e = entry(672, 0x10b00, 0x10c00, (uint64_t)1 << 60, 2);
	put64(e + 72, HEAP + 2048);
}

static size_t scan_jit(struct profconv_ctx *ctx, struct pc_pgkb_jit **out, char **pool)
{
	struct pc_jit_scan s;
	size_t n = 0, dropped;

	make_heap();
	pc_jit_scan_init(&s, ctx, fake_read, NULL, code_regions, 1);
	PC_CHECK_EQ_INT(pc_jit_scan_block(&s, heap, sizeof(heap)), 0);
	PC_CHECK_EQ_INT(pc_jit_scan_finish(&s, out, &n), 0);
	dropped = s.dropped;
	PC_CHECK_EQ_INT(dropped, 1);
	*pool = s.pool;
	s.pool = NULL;
	pc_jit_scan_free(&s);
	return n;
}

static void test_jit_scan(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_pgkb_jit *j = NULL;
	char *pool = NULL;
	size_t n = scan_jit(ctx, &j, &pool);

	PC_CHECK_EQ_INT(n, 3);
	if (n == 3) {
		PC_CHECK_EQ_INT(j[0].start, 0x10100);
		PC_CHECK_EQ_INT(j[0].end, 0x10200);
		PC_CHECK_EQ_STR(j[0].label, "fib (test.js:1:10)");
		PC_CHECK_EQ_INT(j[0].impl, 2);
		PC_CHECK_EQ_STR(j[1].label, "domWork (test.js:5:17)");
		PC_CHECK_EQ_INT(j[1].impl, 1);
		PC_CHECK_EQ_INT(j[1].line, 5);
		PC_CHECK_EQ_INT(j[1].column, 17);
		PC_CHECK_EQ_INT(j[2].start, 0x10500);
		PC_CHECK_EQ_STR(j[2].label, "domWork (test.js:5:17)");
		PC_CHECK_EQ_INT(j[2].impl, 1);
	}
	pc_free(ctx, j);
	pc_free(ctx, pool);
	profconv_ctx_free(ctx);
}

/* --- a dump with JITF and SYMS, read back --- */

static size_t block(unsigned char *p, unsigned tag, uint64_t v)
{
	p[0] = 9;
	p[1] = (unsigned char)tag;
	put64(p + 2, v);
	return 10;
}

static uint32_t func_named(struct profconv_profile *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->m.funcs.len; i++)
		if (!strcmp(pc_str(&p->m, p->m.funcs.name[i]), name))
			return i;
	return PC_NONE;
}

static void test_dump(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct pc_pgkb_parts parts;
	struct pc_pgkb_jit *j = NULL;
	struct pc_pgkb_sym sym = { 0x0, 0x40, "__vdso_clock_gettime" };
	struct pc_pgkb_buildid id;
	unsigned char chunk[56 + 1024];
	char *pool = NULL, path[4200];
	const char *tmp = getenv("TMPDIR");
	double ms = 1.0;
	uint64_t t;
	size_t n, len = 0, k;
	uint32_t f;

	memset(chunk, 0, sizeof(chunk));
	/* two samples of thread 7: [vdso caller, Baseline leaf], [unnamed vdso, IC leaf] */
	memcpy(&t, &ms, 8);
	len += block(chunk + 56 + len, 18, 7);
	len += block(chunk + 56 + len, 19, t);
	len += block(chunk + 56 + len, 12, 0x7010);
	len += block(chunk + 56 + len, 7, 0x10150);
	ms = 2.0;
	memcpy(&t, &ms, 8);
	len += block(chunk + 56 + len, 18, 7);
	len += block(chunk + 56 + len, 19, t);
	len += block(chunk + 56 + len, 12, 0x7f00);
	len += block(chunk + 56 + len, 7, 0x10520);
	/* and a JIT address no entry covers */
	len += block(chunk + 56 + len, 18, 7);
	ms = 3.0;
	memcpy(&t, &ms, 8);
	len += block(chunk + 56 + len, 19, t);
	len += block(chunk + 56 + len, 7, 0x1f000);
	put32(chunk + 4, (uint32_t)len); /* past the last block */
	put64(chunk + 8, 1000000);	 /* start time */
	put32(chunk + 24, 1024);
	put32(chunk + 28, 11); /* blocks */
	put64(chunk + 32, 1);  /* range start */

	n = scan_jit(ctx, &j, &pool);
	memset(&id, 0, sizeof(id));
	strcpy(id.code_id, "101112131415161718191a1b1c1d1e1f20212223");
	strcpy(id.breakpad_id, "131211101514171618191A1B1C1D1E1F0");
	memset(&parts, 0, sizeof(parts));
	parts.name = "synthetic";
	parts.pid = 7;
	parts.chunks = chunk;
	parts.chunks_len = sizeof(chunk);
	parts.chunks_name = "synthetic";
	parts.threads = "7 GeckoMain\n";
	parts.maps = "400000-401000 r-xp 00000000 08:01 5 /usr/bin/stand-in\n";
	parts.jit = j;
	parts.njit = n;
	parts.vdso_start = 0x7000;
	parts.vdso_end = 0x9000;
	parts.vdso_id = &id;
	parts.vdso_syms = &sym;
	parts.nvdso_syms = 1;
	snprintf(path, sizeof(path), "%s/pc_gbuf_libs_%ld.pgkb", tmp ? tmp : "/tmp", (long)getpid());
	PC_CHECK_EQ_INT(pc_pgkb_write(ctx, &parts, NULL, path), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_read_path(ctx, path, &p), PROFCONV_OK);
	/* only the uncovered JIT address is left unnamed (one warning) */
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 1);
	if (!p)
		goto out;
	PC_CHECK_EQ_INT(p->m.nthreads, 1);
	PC_CHECK_EQ_INT(p->m.threads[0]->samples.len, 3);
	f = func_named(p, "fib (test.js:1:10)");
	PC_CHECK(f != PC_NONE && p->m.funcs.is_js[f]);
	f = func_named(p, "domWork (test.js:5:17)"); /* the IC stub, named by its Ion code */
	PC_CHECK(f != PC_NONE);
	PC_CHECK(func_named(p, "0x1f000") != PC_NONE);
	PC_CHECK(func_named(p, "0x10150") == PC_NONE);
	/* the vdso caller frame (0x7010 - 1, in the symbol) and the one outside it */
	f = func_named(p, "__vdso_clock_gettime");
	PC_CHECK(f != PC_NONE);
	PC_CHECK(func_named(p, "0x7f00") != PC_NONE);
	for (k = 0; k < p->m.libs.len; k++)
		if (!strcmp(pc_str(&p->m, p->m.libs.rows[k].name), "[vdso]"))
			break;
	PC_CHECK(k < p->m.libs.len);
	if (k < p->m.libs.len)
		PC_CHECK_EQ_STR(pc_str(&p->m, p->m.libs.rows[k].code_id),
				"101112131415161718191a1b1c1d1e1f20212223");
out:
	unlink(path);
	profconv_profile_free(p);
	pc_free(ctx, j);
	pc_free(ctx, pool);
	profconv_ctx_free(ctx);
}

int main(void)
{
	test_vdso();
	test_jit_scan();
	test_dump();
	return pc_test_done();
}
