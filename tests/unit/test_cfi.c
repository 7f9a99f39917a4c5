/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_cfi.c - the call frame information engine (src/symbolicate/cfi.c) on
 * hand-made CFI:
 *   - x86_64: a gcc-shaped function (push rbp; mov rbp, rsp; a block with
 *     remember/restore_state), an outermost frame (return address
 *     undefined, as _start's), glibc's PLT CFA expression, an address no
 *     FDE covers; through .eh_frame with and without its .eh_frame_hdr
 *     table, and the same rules as .debug_frame (absolute addresses);
 *   - aarch64: perf's register numbering (X0-X30, SP, PC) into DWARF's, a
 *     leaf whose return address is still in x30, a frame record stored by
 *     stp x29, x30 with pointer authentication (negate_ra_state) whose
 *     signature bits are stripped;
 *   - hostile CFI: remember_state nested too deep, an expression that loops
 *     forever, a saved register outside the stack copy, a rule on an
 *     unrecorded register; every truncation and every single-byte
 *     corruption of the sections is indexed and stepped without a crash,
 *     a hang or a leak (the ASan build runs this too).
 * No fixture: the bytes are built here.
 */
#include "symbolicate/pc_cfi.h"

#include "pc_test.h"

static struct profconv_ctx *ctx;

struct buf {
	unsigned char d[1024];
	size_t n;
};

static void b8(struct buf *b, unsigned v)
{
	if (b->n >= sizeof(b->d))
		abort();
	b->d[b->n++] = (unsigned char)v;
}

static void b32(struct buf *b, uint32_t v)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		b8(b, (v >> (8 * i)) & 0xff);
}

static void b64(struct buf *b, uint64_t v)
{
	b32(b, (uint32_t)v);
	b32(b, (uint32_t)(v >> 32));
}

static void uleb(struct buf *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;

		v >>= 7;
		b8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void sleb(struct buf *b, int64_t v)
{
	int more = 1;

	while (more) {
		unsigned char c = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)));
		b8(b, c | (more ? 0x80 : 0));
	}
}

static void bytes(struct buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b8(b, (unsigned char)s[i]);
}

/* Patch the u32 length at off to cover up to the end. */
static void end_entry(struct buf *b, size_t off)
{
	uint32_t len = (uint32_t)(b->n - off - 4);

	memcpy(b->d + off, &len, 4); /* little-endian host assumed by the test */
}

/* --- a simulated process: registers and a stack copy --- */

#define STACK_BASE 0x7ffc0000ULL

static uint64_t stack_words[64];

static int rd(void *user, uint64_t addr, uint64_t *val)
{
	(void)user;
	if (addr < STACK_BASE || addr >= STACK_BASE + sizeof(stack_words) || (addr - STACK_BASE) % 8)
		return -1;
	*val = stack_words[(addr - STACK_BASE) / 8];
	return 0;
}

/* x86_64 registers at pc with rsp and rbp. */
static void x86_regs(struct pc_cfi_regs *r, uint64_t pc, uint64_t rsp, uint64_t rbp)
{
	memset(r, 0, sizeof(*r));
	r->pc = pc;
	r->r[16] = pc;
	r->r[7] = rsp;
	r->r[6] = rbp;
	r->valid = 1u << 16 | 1u << 7 | 1u << 6;
}

/*
 * The x86_64 CFI.  Functions (SVMAs):
 *   0x1000-0x1040  push rbp @0x1000; mov rbp, rsp @0x1001 (CFA rsp+16);
 *                  CFA rbp+16 from 0x1004; 0x1030: remember, CFA rsp+8;
 *                  0x1031: restore (rbp+16 again)
 *   0x1040-0x1050  the outermost frame: rip undefined
 *   0x1050-0x1060  a PLT: CFA = rsp + 8 + ((rip & 15) >= 11) * 8
 * debug: .debug_frame form (CIE id 0xffffffff, absolute addresses).
 */
static const uint64_t EH_ADDR = 0x2000, HDR_ADDR = 0x1f00;

static void x86_cfi(struct buf *b, int debug, size_t fde_off[3])
{
	static const struct {
		uint64_t start, len;
	} fn[3] = { { 0x1000, 0x40 }, { 0x1040, 0x10 }, { 0x1050, 0x10 } };
	size_t cie, k;

	b->n = 0;
	cie = b->n;
	b32(b, 0);
	b32(b, debug ? 0xffffffffu : 0);
	b8(b, debug ? 3 : 1);
	if (debug)
		b8(b, 0); /* no augmentation */
	else
		bytes(b, "zR", 3);
	uleb(b, 1);
	sleb(b, -8);
	if (debug)
		uleb(b, 16);
	else
		b8(b, 16);
	if (!debug) {
		uleb(b, 1);
		b8(b, 0x1b); /* pcrel sdata4 */
	}
	b8(b, 0x0c); /* def_cfa rsp+8 */
	uleb(b, 7);
	uleb(b, 8);
	b8(b, 0x80 | 16); /* rip at cfa-8 */
	uleb(b, 1);
	end_entry(b, cie);
	for (k = 0; k < 3; k++) {
		size_t off = b->n;

		fde_off[k] = off;
		b32(b, 0);
		b32(b, debug ? (uint32_t)cie : (uint32_t)(b->n - cie));
		if (debug) {
			b64(b, fn[k].start);
			b64(b, fn[k].len);
		} else {
			b32(b, (uint32_t)(fn[k].start - (EH_ADDR + b->n)));
			b32(b, (uint32_t)fn[k].len);
			uleb(b, 0);
		}
		if (k == 0) {
			b8(b, 0x41);	   /* advance 1 */
			b8(b, 0x0e);	   /* def_cfa_offset 16 */
			uleb(b, 16);
			b8(b, 0x80 | 6);   /* rbp at cfa-16 */
			uleb(b, 2);
			b8(b, 0x43);	   /* advance 3 -> 0x1004 */
			b8(b, 0x0d);	   /* def_cfa_register rbp */
			uleb(b, 6);
			b8(b, 0x40 | 0x2c); /* advance -> 0x1030 */
			b8(b, 0x0a);	   /* remember_state */
			b8(b, 0x0c);	   /* def_cfa rsp+8 */
			uleb(b, 7);
			uleb(b, 8);
			b8(b, 0x41);	   /* advance -> 0x1031 */
			b8(b, 0x0b);	   /* restore_state */
		} else if (k == 1) {
			b8(b, 0x07); /* undefined rip */
			uleb(b, 16);
		} else {
			static const char plt[] = { 0x77, 8, (char)0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };

			b8(b, 0x0f); /* def_cfa_expression */
			uleb(b, sizeof(plt));
			bytes(b, plt, sizeof(plt));
		}
		end_entry(b, off);
	}
	if (!debug)
		b32(b, 0); /* terminator */
}

/* .eh_frame_hdr for x86_cfi's FDEs. */
static void x86_hdr(struct buf *h, const size_t fde_off[3])
{
	static const uint64_t starts[3] = { 0x1000, 0x1040, 0x1050 };
	unsigned k;

	h->n = 0;
	b8(h, 1);
	b8(h, 0x1b); /* eh_frame_ptr: pcrel sdata4 */
	b8(h, 0x03); /* fde_count: udata4 */
	b8(h, 0x3b); /* table: datarel sdata4 */
	b32(h, (uint32_t)(EH_ADDR - (HDR_ADDR + 4)));
	b32(h, 3);
	for (k = 0; k < 3; k++) {
		b32(h, (uint32_t)(starts[k] - HDR_ADDR));
		b32(h, (uint32_t)(EH_ADDR + fde_off[k] - HDR_ADDR));
	}
}

static struct pc_cfi *open_x86(const struct buf *eh, const struct buf *hdr, int debug)
{
	struct pc_cfi_sections s;
	struct pc_cfi *c = NULL;

	memset(&s, 0, sizeof(s));
	if (debug) {
		s.debug_frame = eh->d;
		s.debug_frame_size = eh->n;
	} else {
		s.eh_frame = eh->d;
		s.eh_frame_size = eh->n;
		s.eh_frame_addr = EH_ADDR;
		if (hdr) {
			s.eh_frame_hdr = hdr->d;
			s.eh_frame_hdr_size = hdr->n;
			s.eh_frame_hdr_addr = HDR_ADDR;
		}
	}
	PC_CHECK_EQ_INT(pc_cfi_new(ctx, &s, PC_ARCH_X86_64, &c), 0);
	return c;
}

static void check_x86(int mode)
{
	struct buf eh, hdr;
	size_t fde_off[3];
	struct pc_cfi *c;
	struct pc_cfi_regs r;
	const uint64_t S = STACK_BASE + 64;
	int debug = mode == 2;

	x86_cfi(&eh, debug, fde_off);
	x86_hdr(&hdr, fde_off);
	c = open_x86(&eh, mode == 0 ? &hdr : NULL, debug);
	if (!c)
		return;
	PC_CHECK_EQ_INT(pc_cfi_fde_count(c), 3);
	memset(stack_words, 0, sizeof(stack_words));
	stack_words[8] = 0x7777;  /* S: saved rbp */
	stack_words[9] = 0x5555;  /* S + 8: return address */
	stack_words[10] = 0x6666; /* S + 16 */

	/* entry: CFA rsp+8, the return address at rsp */
	x86_regs(&r, 0x1000, S + 8, 0x1234);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1000, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	PC_CHECK_EQ_INT(r.r[7], S + 16);
	PC_CHECK_EQ_INT(r.r[6], 0x1234); /* no rule: unchanged */
	PC_CHECK_EQ_INT(r.exact_pc, 0);
	/* after push rbp: CFA rsp+16, rbp at CFA-16 */
	x86_regs(&r, 0x1002, S, 0x1234);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1002, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	PC_CHECK_EQ_INT(r.r[6], 0x7777);
	PC_CHECK_EQ_INT(r.r[7], S + 16);
	/* body: CFA rbp+16 whatever rsp is */
	x86_regs(&r, 0x1010, S - 40, S);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1010, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	PC_CHECK_EQ_INT(r.r[7], S + 16);
	/* the remembered block: rsp+8 at 0x1030, rbp+16 again at 0x1031 */
	x86_regs(&r, 0x1030, S + 8, 0x99);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1030, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	x86_regs(&r, 0x1031, 0x99, S);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1031, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	PC_CHECK_EQ_INT(r.r[6], 0x7777);
	/* the same address again comes from the row cache */
	x86_regs(&r, 0x1031, 0x99, S);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1031, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.r[7], S + 16);
	/* the outermost frame */
	x86_regs(&r, 0x1045, S, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1045, &r, rd, NULL), PC_CFI_END);
	/* the PLT expression: rip & 15 < 11 -> CFA rsp+8; >= 11 -> rsp+16 */
	x86_regs(&r, 0x1052, S + 8, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1052, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	PC_CHECK_EQ_INT(r.r[7], S + 16);
	x86_regs(&r, 0x105c, S, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x105c, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x5555);
	PC_CHECK_EQ_INT(r.r[7], S + 16);
	/* nothing covers these */
	x86_regs(&r, 0xfff, S, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0xfff, &r, rd, NULL), PC_CFI_NO_FDE);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1060, &r, rd, NULL), PC_CFI_NO_FDE);
	/* the return address outside the stack copy */
	x86_regs(&r, 0x1000, STACK_BASE + sizeof(stack_words), 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1000, &r, rd, NULL), PC_CFI_MEMORY);
	/* the CFA register was not recorded */
	x86_regs(&r, 0x1010, S, S);
	r.valid &= ~(1ull << 6);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1010, &r, rd, NULL), PC_CFI_NO_REG);
	pc_cfi_free(c);
}

/* --- aarch64 --- */

static void check_aarch64(void)
{
	struct buf eh;
	struct pc_cfi_sections s;
	struct pc_cfi *c = NULL;
	struct pc_cfi_regs r;
	uint64_t vals[33];
	size_t cie, fde;
	const uint64_t A = 0x3000, S = STACK_BASE + 128;
	unsigned i;

	/* perf's numbering: X0-X30, SP, PC (mask 0x1ffffffff, perf's default) */
	for (i = 0; i < 33; i++)
		vals[i] = 0x100 + i;
	vals[29] = 0xf00d;   /* fp */
	vals[30] = 0x40aaaa; /* lr */
	vals[31] = S;	     /* sp */
	vals[32] = 0x4000;   /* pc */
	PC_CHECK_EQ_INT(pc_cfi_perf_regs(PC_ARCH_AARCH64, 0x1ffffffffULL, vals, 33, &r), 0);
	PC_CHECK_EQ_INT(r.pc, 0x4000);
	PC_CHECK_EQ_INT(r.r[0], 0x100);
	PC_CHECK_EQ_INT(r.r[29], 0xf00d);
	PC_CHECK_EQ_INT(r.r[30], 0x40aaaa);
	PC_CHECK_EQ_INT(r.r[31], S);
	PC_CHECK_EQ_INT(r.valid, 0xffffffffULL);
	/* a mask without the pc cannot be unwound */
	PC_CHECK_EQ_INT(pc_cfi_perf_regs(PC_ARCH_AARCH64, 0xffffffffULL, vals, 32, &r), -1);
	/* a sparse mask: x29 (bit 29), sp (31), pc (32) in ascending order */
	vals[0] = 0xfeed;
	vals[1] = S;
	vals[2] = 0x4008;
	PC_CHECK_EQ_INT(pc_cfi_perf_regs(PC_ARCH_AARCH64, 1ull << 29 | 1ull << 31 | 1ull << 32, vals,
					 3, &r), 0);
	PC_CHECK_EQ_INT(r.r[29], 0xfeed);
	PC_CHECK_EQ_INT(r.r[31], S);
	PC_CHECK_EQ_INT(r.pc, 0x4008);
	PC_CHECK_EQ_INT(r.valid, 1ull << 29 | 1ull << 31);
	/* x86_64: BX (bit 1) is DWARF 3, DX (bit 3) DWARF 1, IP the pc */
	vals[0] = 11, vals[1] = 33, vals[2] = 0x7000, vals[3] = 0x401000;
	PC_CHECK_EQ_INT(pc_cfi_perf_regs(PC_ARCH_X86_64, 1u << 1 | 1u << 3 | 1u << 7 | 1u << 8, vals,
					 4, &r), 0);
	PC_CHECK_EQ_INT(r.r[3], 11);
	PC_CHECK_EQ_INT(r.r[1], 33);
	PC_CHECK_EQ_INT(r.r[7], 0x7000);
	PC_CHECK_EQ_INT(r.pc, 0x401000);
	PC_CHECK_EQ_INT(pc_cfi_perf_regs(PC_ARCH_UNKNOWN, 1, vals, 1, &r), -1);

	/*
	 * 0x4000: paciasp (negate_ra_state at 0x4000); 0x4004: stp x29, x30,
	 * [sp, #-16]! -> CFA sp+16, x29 at CFA-16, x30 at CFA-8.  Code
	 * alignment 4, data alignment -8, return address column x30.
	 */
	eh.n = 0;
	cie = eh.n;
	b32(&eh, 0);
	b32(&eh, 0);
	b8(&eh, 1);
	bytes(&eh, "zR", 3);
	uleb(&eh, 4);
	sleb(&eh, -8);
	b8(&eh, 30);
	uleb(&eh, 1);
	b8(&eh, 0x1b);
	b8(&eh, 0x0c); /* def_cfa sp+0 */
	uleb(&eh, 31);
	uleb(&eh, 0);
	end_entry(&eh, cie);
	fde = eh.n;
	b32(&eh, 0);
	b32(&eh, (uint32_t)(eh.n - cie));
	b32(&eh, (uint32_t)(0x4000 - (A + eh.n)));
	b32(&eh, 0x100);
	uleb(&eh, 0);
	b8(&eh, 0x2d); /* AARCH64_negate_ra_state */
	b8(&eh, 0x41); /* advance 1 * 4 -> 0x4004 */
	b8(&eh, 0x0e); /* def_cfa_offset 16 */
	uleb(&eh, 16);
	b8(&eh, 0x80 | 29);
	uleb(&eh, 2);
	b8(&eh, 0x80 | 30);
	uleb(&eh, 1);
	end_entry(&eh, fde);
	b32(&eh, 0);
	memset(&s, 0, sizeof(s));
	s.eh_frame = eh.d;
	s.eh_frame_size = eh.n;
	s.eh_frame_addr = A;
	PC_CHECK_EQ_INT(pc_cfi_new(ctx, &s, PC_ARCH_AARCH64, &c), 0);
	if (!c)
		return;
	/* a leaf at its first instruction: the return address is still in x30 */
	for (i = 0; i < 33; i++)
		vals[i] = 0;
	vals[29] = 0xf00d;
	vals[30] = 0x40aaaa;
	vals[31] = S;
	vals[32] = 0x4000;
	pc_cfi_perf_regs(PC_ARCH_AARCH64, 0x1ffffffffULL, vals, 33, &r);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x4000, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x40aaaa);
	PC_CHECK_EQ_INT(r.r[31], S);
	/* after stp: the frame record on the stack; the signed return address
	 * (PAC bits in the top 16) is stripped */
	memset(stack_words, 0, sizeof(stack_words));
	stack_words[(S - 16 - STACK_BASE) / 8] = 0xbeef;
	stack_words[(S - 8 - STACK_BASE) / 8] = 0x002a000000401234ULL;
	vals[31] = S - 16;
	vals[32] = 0x4008;
	pc_cfi_perf_regs(PC_ARCH_AARCH64, 0x1ffffffffULL, vals, 33, &r);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x4008, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x401234);
	PC_CHECK_EQ_INT(r.r[29], 0xbeef);
	PC_CHECK_EQ_INT(r.r[31], S);
	pc_cfi_free(c);
}

/* --- hostile CFI --- */

/* One FDE over [0x1000, 0x1100) with the given instructions after an x86_64 CIE. */
static struct pc_cfi *one_fde(struct buf *eh, const unsigned char *insns, size_t n)
{
	struct pc_cfi_sections s;
	struct pc_cfi *c = NULL;
	size_t cie, fde;

	eh->n = 0;
	cie = eh->n;
	b32(eh, 0);
	b32(eh, 0);
	b8(eh, 1);
	bytes(eh, "zR", 3);
	uleb(eh, 1);
	sleb(eh, -8);
	b8(eh, 16);
	uleb(eh, 1);
	b8(eh, 0x1b);
	b8(eh, 0x0c);
	uleb(eh, 7);
	uleb(eh, 8);
	b8(eh, 0x90);
	uleb(eh, 1);
	end_entry(eh, cie);
	fde = eh->n;
	b32(eh, 0);
	b32(eh, (uint32_t)(eh->n - cie));
	b32(eh, (uint32_t)(0x1000 - (EH_ADDR + eh->n)));
	b32(eh, 0x100);
	uleb(eh, 0);
	bytes(eh, (const char *)insns, n);
	end_entry(eh, fde);
	memset(&s, 0, sizeof(s));
	s.eh_frame = eh->d;
	s.eh_frame_size = eh->n;
	s.eh_frame_addr = EH_ADDR;
	if (pc_cfi_new(ctx, &s, PC_ARCH_X86_64, &c))
		return NULL;
	return c;
}

static void check_hostile(void)
{
	struct buf eh;
	struct pc_cfi *c;
	struct pc_cfi_regs r;
	unsigned char ins[64];
	const uint64_t S = STACK_BASE + 64;
	unsigned i;

	/* remember_state nested deeper than the cap */
	memset(ins, 0x0a, 20);
	c = one_fde(&eh, ins, 20);
	PC_CHECK(c != NULL);
	x86_regs(&r, 0x1000, S, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1000, &r, rd, NULL), PC_CFI_BAD);
	pc_cfi_free(c);
	/* restore_state with nothing remembered */
	ins[0] = 0x0b;
	c = one_fde(&eh, ins, 1);
	x86_regs(&r, 0x1000, S, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1000, &r, rd, NULL), PC_CFI_BAD);
	pc_cfi_free(c);
	/* a CFA expression that jumps back to itself forever: lit0; skip -3 */
	{
		static const unsigned char loop[] = { 0x0f, 4, 0x30, 0x2f, 0xfd, 0xff };

		c = one_fde(&eh, loop, sizeof(loop));
		x86_regs(&r, 0x1000, S, 0);
		PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1000, &r, rd, NULL), PC_CFI_BAD);
		pc_cfi_free(c);
	}
	/* a skip out of the expression, a division by zero, an empty stack */
	{
		static const struct {
			unsigned char b[8];
			size_t n;
		} bad[] = {
			{ { 0x0f, 3, 0x2f, 0x10, 0x00 }, 5 },	    /* skip +16 past the end */
			{ { 0x0f, 3, 0x31, 0x30, 0x1b }, 5 },	    /* 1 / 0 */
			{ { 0x0f, 1, 0x22 }, 3 },		    /* plus on an empty stack */
			{ { 0x0f, 2, 0x55, 0x22 }, 4 },		    /* DW_OP_reg5: a location, not a value */
			{ { 0x10, 16, 3, 0x77, 0x00, 0x06 }, 6 }, /* rip at **rsp: a load outside */
		};
		for (i = 0; i < PC_ARRAY_SIZE(bad); i++) {
			c = one_fde(&eh, bad[i].b, bad[i].n);
			x86_regs(&r, 0x1000, S, 0);
			r.r[7] = 0x10; /* for the load case: far below the copy */
			PC_CHECK(pc_cfi_step(c, 0x1000, &r, rd, NULL) < 0);
			pc_cfi_free(c);
		}
	}
	/* a popped register whose slot now lies below the stack pointer (gcc
	 * keeps its rule until the ret): unknown from here on, the step goes on */
	ins[0] = 0x80 | 3; /* rbx at cfa-16 */
	ins[1] = 2;
	c = one_fde(&eh, ins, 2);
	x86_regs(&r, 0x1000, STACK_BASE, 0);
	r.r[3] = 0x33;
	r.valid |= 1u << 3;
	stack_words[0] = 0x4141;
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1000, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x4141);
	PC_CHECK_EQ_INT((r.valid >> 3) & 1, 0);
	pc_cfi_free(c);
	/* an advance past the target stops the program there: the rows after
	 * it (a bad opcode) are never run */
	ins[0] = 0x44; /* advance 4 */
	ins[1] = 0x3f; /* not an opcode */
	c = one_fde(&eh, ins, 2);
	x86_regs(&r, 0x1002, S, 0);
	stack_words[(S - STACK_BASE) / 8] = 0x4242;
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1002, &r, rd, NULL), PC_CFI_STEPPED);
	PC_CHECK_EQ_INT(r.pc, 0x4242);
	x86_regs(&r, 0x1004, S, 0);
	PC_CHECK_EQ_INT(pc_cfi_step(c, 0x1004, &r, rd, NULL), PC_CFI_BAD);
	pc_cfi_free(c);
}

/* Step from each of pcs once (results unchecked: only no crash, hang or leak). */
static unsigned long step_each(struct pc_cfi *c, const uint64_t *pcs, size_t n)
{
	size_t k;

	for (k = 0; c && k < n; k++) {
		struct pc_cfi_regs r;

		x86_regs(&r, pcs[k], STACK_BASE + 64, STACK_BASE + 96);
		(void)pc_cfi_step(c, pcs[k], &r, rd, NULL);
	}
	return c ? n : 0;
}

/* Index and step at every truncation and single-byte corruption. */
static void check_damage(void)
{
	struct buf eh, hdr, bad;
	size_t fde_off[3], len, i;
	static const uint64_t pcs[] = { 0x1000, 0x1002, 0x1010, 0x1031, 0x1045, 0x105c, 0x2000 };
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80 };
	unsigned long steps = 0;
	unsigned k, v;

	x86_cfi(&eh, 0, fde_off);
	x86_hdr(&hdr, fde_off);
	for (k = 0; k < 64; k++)
		stack_words[k] = STACK_BASE + 8 * k;
	for (len = 0; len <= eh.n; len++) {
		struct buf t = eh;
		struct pc_cfi *c;

		t.n = len;
		c = open_x86(&t, len & 1 ? &hdr : NULL, 0);
		steps += step_each(c, pcs, PC_ARRAY_SIZE(pcs));
		pc_cfi_free(c);
	}
	for (i = 0; i < eh.n + hdr.n; i++) {
		for (v = 0; v < PC_ARRAY_SIZE(vals); v++) {
			struct buf *target = i < eh.n ? &eh : &hdr;
			size_t at = i < eh.n ? i : i - eh.n;
			struct pc_cfi *c;

			bad = *target;
			bad.d[at] = (unsigned char)(v == 3 ? bad.d[at] ^ 0x80 : vals[v]);
			c = i < eh.n ? open_x86(&bad, &hdr, 0) : open_x86(&eh, &bad, 0);
			steps += step_each(c, pcs, PC_ARRAY_SIZE(pcs));
			pc_cfi_free(c);
		}
	}
	PC_CHECK(steps > 1000);
}

/*
 * Entries whose length (1 to 3, or 4 to 7 in the 64-bit form) is shorter
 * than their own id: the body would start past the entry's end.  Before
 * issue 22 item 1 the FDE after the CIE and three good FDEs was parsed from
 * the bytes that follow it (and past the section at its end: ASan).
 */
static void check_short_length(void)
{
	struct buf dbg;
	size_t fde_off[3];
	uint32_t len;

	for (len = 1; len <= 7; len++) {
		struct pc_cfi *c;

		x86_cfi(&dbg, 1, fde_off);
		if (len < 4) {
			b32(&dbg, len);
		} else {
			b32(&dbg, 0xffffffffu);
			b64(&dbg, len);
		}
		if (len < 4)
			b32(&dbg, 0); /* the id: the CIE at 0 */
		else
			b64(&dbg, 0);
		b64(&dbg, 0x3000); /* what would be read as start and range */
		b64(&dbg, 0x10);
		c = open_x86(&dbg, NULL, 1);
		PC_CHECK_EQ_INT(c ? pc_cfi_fde_count(c) : 0, 3);
		pc_cfi_free(c);
		/* the same entry at the very end of the section */
		x86_cfi(&dbg, 1, fde_off);
		b32(&dbg, len < 4 ? len : 0xffffffffu);
		if (len >= 4)
			b64(&dbg, len);
		b32(&dbg, 0);
		c = open_x86(&dbg, NULL, 1);
		PC_CHECK_EQ_INT(c ? pc_cfi_fde_count(c) : 0, 3);
		pc_cfi_free(c);
	}
}

int main(void)
{
	ctx = profconv_ctx_new();
	check_x86(0); /* .eh_frame with its .eh_frame_hdr table */
	check_x86(1); /* .eh_frame alone: the index is built */
	check_x86(2); /* .debug_frame */
	check_aarch64();
	check_hostile();
	check_damage();
	check_short_length();
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
