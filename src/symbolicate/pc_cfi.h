/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_cfi.h - DWARF call frame information (.eh_frame, .eh_frame_hdr,
 * .debug_frame): find the row for an address and step one frame up the
 * stack by evaluating its CFA and register rules (cfi.c).
 *
 * The engine works on section bytes it borrows (an ELF file mapped by
 * unwind.c, or hand-made bytes in a unit test) and knows nothing about
 * files, processes or recordings.  Every read is bounds-checked; every loop
 * (instructions, expressions, remember/restore nesting) has a fixed cap, so
 * hostile CFI ends a chain and never hangs or overruns.
 *
 * Registers are held by DWARF number.  x86_64: 0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address column
 * (rip).  aarch64: 0-30 x0-x30 (x29 the frame pointer, x30 the link
 * register), 31 sp.
 */
#ifndef PC_CFI_H
#define PC_CFI_H

#include "core/pc_core.h"

#define PC_CFI_NREGS 33 /* DWARF registers 0..32 are tracked */

enum pc_arch {
	PC_ARCH_UNKNOWN = 0,
	PC_ARCH_X86_64 = 1,
	PC_ARCH_AARCH64 = 2,
};

/* The sections of one binary, with the addresses (SVMAs) they load at. */
struct pc_cfi_sections {
	const unsigned char *eh_frame_hdr;
	uint64_t eh_frame_hdr_size, eh_frame_hdr_addr;
	const unsigned char *eh_frame;
	uint64_t eh_frame_size, eh_frame_addr;
	const unsigned char *debug_frame; /* not loaded: its addresses are absolute */
	uint64_t debug_frame_size;
	int swap; /* the binary's byte order is not this machine's */
};

struct pc_cfi;

/*
 * Index the sections (the .eh_frame_hdr table when it is usable, else a
 * sorted table of every FDE).  The bytes must outlive the index.  Returns 0
 * or PROFCONV_ERR_NOMEM; sections with nothing usable give an index that
 * finds nothing.
 */
int pc_cfi_new(struct profconv_ctx *ctx, const struct pc_cfi_sections *s, enum pc_arch arch,
	       struct pc_cfi **out);
void pc_cfi_free(struct pc_cfi *c);
/* How many FDEs the index covers (the hdr table's count when it is used). */
uint64_t pc_cfi_fde_count(const struct pc_cfi *c);

struct pc_cfi_regs {
	uint64_t r[PC_CFI_NREGS]; /* by DWARF register number */
	uint64_t valid;		  /* bit n: r[n] is known */
	uint64_t pc;		  /* the frame's instruction address (AVMA) */
	/* set by a step out of a signal frame: the new pc is the interrupted
	 * instruction itself, not a return address (look it up as is) */
	int exact_pc;
};

/* Read the 8 bytes at addr of the sampled process; 0 = read, else not available. */
typedef int pc_cfi_read_fn(void *user, uint64_t addr, uint64_t *val);

enum {
	PC_CFI_STEPPED = 1, /* regs now describe the caller */
	PC_CFI_END = 0,	    /* the return address is undefined: the outermost frame */
	PC_CFI_NO_FDE = -1, /* no CFI covers the address */
	PC_CFI_BAD = -2,    /* the CFI could not be decoded or evaluated */
	PC_CFI_MEMORY = -3, /* a saved register lies outside the readable memory */
	PC_CFI_NO_REG = -4, /* a rule needs a register whose value is not known */
};

/*
 * One step: find the row at svma (the frame's pc translated to the binary's
 * addresses: pc itself for the innermost frame or after a signal frame,
 * pc - 1 for a return address) and replace regs by the caller's.
 * The caller's stack pointer is the CFA unless a rule says otherwise;
 * registers without a rule keep their values.
 */
int pc_cfi_step(struct pc_cfi *c, uint64_t svma, struct pc_cfi_regs *regs, pc_cfi_read_fn *read,
		void *user);

/*
 * Registers as perf_event samples them (PERF_SAMPLE_REGS_USER: the values
 * of the set bits of mask, in ascending bit order, numbered as in the
 * kernel's arch/<arch>/include/uapi/asm/perf_regs.h) into DWARF numbering.
 * x86_64: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8-R15 (bits
 * 0-23; IP is the pc and the return address column 16).  aarch64: X0-X30
 * (bits 0-30), SP (31), PC (32).  0, or -1 when the arch is unknown or the
 * pc or stack pointer is missing.
 */
int pc_cfi_perf_regs(enum pc_arch arch, uint64_t mask, const uint64_t *vals, uint32_t nvals,
		     struct pc_cfi_regs *out);

/* A short English name of a pc_cfi_step() result, for messages. */
const char *pc_cfi_strerror(int r);

#endif /* PC_CFI_H */
