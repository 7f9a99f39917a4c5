/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_cfi.c - libFuzzer target for the call frame information engine
 * (src/symbolicate/cfi.c), the part of --call-graph dwarf unwinding that
 * reads a binary's .eh_frame_hdr, .eh_frame and .debug_frame.
 *
 * Input: u64 eh_frame address, u64 eh_frame_hdr address, u32 hdr length,
 * u8 mode, then the hdr bytes and the rest as the section (mode bit 0: the
 * rest is .debug_frame instead of .eh_frame; bit 1: byte-swapped).  The
 * target indexes the sections and steps from pcs taken from the hdr table
 * (each FDE's start, +1, +4, +17) and a few fixed ones, with registers
 * pointing into a fixed stack copy whose words point back into it, so rules
 * that load, chain and loop are all reached.  Seeds: corpus/cfi
 * (make_cfi_seeds.py: the real tables of the perf fixture's binaries).
 *
 * Besides ASan/UBSan/LSan, it aborts when every byte allocated through the
 * ctx is not freed again.  Hangs show as libFuzzer timeouts: every loop in
 * cfi.c is capped.
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolicate/pc_cfi.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_cfi";

#define STACK_AT 0x7ffd0000ULL
#define STACK_WORDS 128

static uint64_t stack_words[STACK_WORDS];

static int rd(void *user, uint64_t addr, uint64_t *val)
{
	(void)user;
	if (addr < STACK_AT || addr - STACK_AT > 8 * (STACK_WORDS - 1))
		return -1;
	memcpy(val, (const unsigned char *)stack_words + (addr - STACK_AT), 8);
	return 0;
}

static void walk(struct pc_cfi *c, enum pc_arch arch, uint64_t pc)
{
	struct pc_cfi_regs r;
	unsigned i, depth;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < PC_CFI_NREGS; i++)
		r.r[i] = STACK_AT + 8 * (i % 16);
	r.valid = (1ull << PC_CFI_NREGS) - 1;
	r.pc = pc;
	r.r[arch == PC_ARCH_AARCH64 ? 30 : 16] = pc;
	for (depth = 0; depth < 64; depth++) {
		uint64_t sp = r.r[arch == PC_ARCH_AARCH64 ? 31 : 7];

		if (pc_cfi_step(c, r.exact_pc || depth == 0 ? r.pc : r.pc - 1, &r, rd, NULL) !=
		    PC_CFI_STEPPED)
			break;
		if (r.r[arch == PC_ARCH_AARCH64 ? 31 : 7] <= sp)
			break; /* as the perf unwinder: the stack must grow */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profconv_ctx *ctx;
	struct pc_cfi_sections s;
	struct pc_cfi *c = NULL;
	uint64_t eh_addr, hdr_addr;
	uint32_t hdr_len, i;
	uint8_t mode;
	enum pc_arch arch;

	if (size < 21)
		return 0;
	memcpy(&eh_addr, data, 8);
	memcpy(&hdr_addr, data + 8, 8);
	memcpy(&hdr_len, data + 16, 4);
	mode = data[20];
	data += 21;
	size -= 21;
	if (hdr_len > size)
		hdr_len = (uint32_t)size;
	arch = mode & 4 ? PC_ARCH_AARCH64 : PC_ARCH_X86_64;
	for (i = 0; i < STACK_WORDS; i++)
		stack_words[i] = i % 3 ? STACK_AT + 8 * ((i * 7 + 5) % STACK_WORDS) : eh_addr + 8 * i;
	memset(&s, 0, sizeof(s));
	s.swap = (mode & 2) != 0;
	s.eh_frame_hdr = hdr_len ? data : NULL;
	s.eh_frame_hdr_size = hdr_len;
	s.eh_frame_hdr_addr = hdr_addr;
	if (mode & 1) {
		s.debug_frame = data + hdr_len;
		s.debug_frame_size = size - hdr_len;
	} else {
		s.eh_frame = data + hdr_len;
		s.eh_frame_size = size - hdr_len;
		s.eh_frame_addr = eh_addr;
	}
	ctx = profconv_ctx_new();
	if (!ctx)
		return 0;
	profconv_set_max_memory(ctx, 256u << 20);
	if (pc_cfi_new(ctx, &s, arch, &c) == 0 && c) {
		static const uint64_t fixed[] = { 0, 0x1000, 0x10000, 0x401000 };

		(void)pc_cfi_fde_count(c);
		/* the starts the hdr table names (datarel sdata4 after a 12-byte head) */
		for (i = 0; hdr_len >= 12 && i < 16 && 12 + 8 * (uint64_t)i + 4 <= hdr_len; i++) {
			int32_t rel;
			uint64_t start;

			memcpy(&rel, data + 12 + 8 * i, 4);
			start = hdr_addr + (uint64_t)(int64_t)rel;
			walk(c, arch, start);
			walk(c, arch, start + 1);
			walk(c, arch, start + 4);
			walk(c, arch, start + 17);
		}
		for (i = 0; i < PC_ARRAY_SIZE(fixed); i++)
			walk(c, arch, fixed[i]);
		pc_cfi_free(c);
	}
	if (ctx->mem_used != 0)
		fuzz_die("ctx memory accounting does not return to 0", ctx);
	profconv_ctx_free(ctx);
	return 0;
}
