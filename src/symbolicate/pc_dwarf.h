/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_dwarf.h - the DWARF half of the ELF symbol source (sym_dwarf.c), on
 * libdwarf.  Internal to src/symbolicate/.
 *
 * Opening reads only the compilation units' address ranges.  The first
 * lookup that lands in a CU indexes that CU: its subprogram ranges, its
 * inlined-subroutine ranges with their depth, and its line rows; later
 * lookups are binary searches.  Addresses here are SVMAs (the link-time
 * addresses DWARF uses); the ELF side converts.
 *
 * Lookups on indexed CUs and resolved names touch nothing mutable and need
 * no lock (pc_dwarf_lookup_fast()); the rest fills caches, one thread at a
 * time.
 */
#ifndef PC_DWARF_H
#define PC_DWARF_H

#include "symbolicate/pc_symsrc.h"

struct pc_dwarf;

/* What the debug info says about one address. */
struct pc_dwarf_hit {
	/* the covering range of the outer subprogram (SVMA); lo == hi: none */
	uint64_t sub_lo, sub_hi;
	/*
	 * 0 = nothing known.  frames[0] is the outer function, frames[k] is
	 * inlined into frames[k-1], as in struct pc_sym_result.  When no
	 * subprogram covers the address but a line row does (assembler code),
	 * nframes is 1 and frames[0].name is NULL.
	 */
	uint32_t nframes;
	struct pc_sym_frame frames[PC_MAX_INLINE];
};

/*
 * A section's bytes as they are in the file (the caller keeps them mapped
 * until pc_dwarf_close).  compressed: SHF_COMPRESSED, starting with an ELF
 * compression header (Elf32_Chdr or Elf64_Chdr by is64, in the file's byte
 * order); only zlib is inflated.
 */
struct pc_dwarf_sec {
	const unsigned char *p; /* NULL: none */
	uint64_t size;
	uint8_t compressed;
	uint8_t is64;
	uint8_t big_endian;
};

/* One .debug_* section as its section header gives it (for libdwarf). */
struct pc_dwarf_osec {
	const char *name; /* in the mapped file */
	struct pc_dwarf_sec s;
	uint64_t addr;
};

#define PC_DWARF_MAX_SECS 48

/*
 * The sections sym_dwarf.c reads itself (any may be absent), and every
 * .debug_* section of the file in all[]: with nall > 0 libdwarf reads the
 * sections from these, each compressed one inflated once and shared with
 * our own readers, and never sees the location lists (nothing here reads
 * them: libdwarf 20210528 inflates .debug_loclists whenever it loads
 * .debug_info).  nall == 0 (GNU .zdebug_ sections, relocations for the
 * DWARF, more sections than all[] holds): libdwarf opens the file itself.
 */
struct pc_dwarf_secs {
	struct pc_dwarf_sec line, info, abbrev, rnglists, ranges;
	struct pc_dwarf_osec all[PC_DWARF_MAX_SECS];
	uint32_t nall;
	uint8_t is64;
	uint8_t big_endian;
};

/*
 * Open the DWARF of the ELF file open on fd (it stays open and owned by the
 * caller until pc_dwarf_close).  text_at_zero: the file has code at address
 * 0, so ranges starting at 0 are real and not the linker's tombstones.
 * Returns 0 with *out NULL when the file has no usable DWARF (the reason
 * went to pc_note), 0 with *out set, or an error code (ctx error set).
 * secs (or NULL): the file's .debug_line, from which the line programs of
 * well-formed units are decoded here (cheaper than through libdwarf, which
 * builds an object per row), and its uncompressed .debug_info,
 * .debug_abbrev, .debug_rnglists and .debug_ranges, from which C units'
 * DIEs are walked here; any other unit goes through libdwarf.
 */
int pc_dwarf_open(struct profconv_ctx *ctx, int fd, const char *path, int text_at_zero,
		  const struct pc_dwarf_secs *secs, struct pc_dwarf **out);
/*
 * 1 = hit filled, 0 = nothing known, negative = error (ctx set).  Takes
 * the process-wide libdwarf lock only when the address needs a CU indexed
 * or a name resolved; the caller keeps one thread at a time in that part
 * (the handle's caches and its ctx), e.g. under a lock of its own.
 */
int pc_dwarf_lookup(struct pc_dwarf *d, uint64_t svma, struct pc_dwarf_hit *hit);
/*
 * The lookup on what is indexed already, without any lock, from any number
 * of threads at once (also while one thread is in pc_dwarf_lookup()): the
 * same answer, or PC_DWARF_SLOW when it needs pc_dwarf_lookup().
 */
#define PC_DWARF_SLOW 2
int pc_dwarf_lookup_fast(struct pc_dwarf *d, uint64_t svma, struct pc_dwarf_hit *hit);
/*
 * For the tests: every unit read by sym_dwarf.c's own readers and by
 * libdwarf.  *lines = the units whose line program our reader took,
 * *walks = the (C) units our DIE walk took; returns how many of them differ
 * (line rows, sequences, version, first file index; nodes and ranges).
 */
uint32_t pc_dwarf_check_own(struct pc_dwarf *d, uint32_t *lines, uint32_t *walks);
void pc_dwarf_close(struct pc_dwarf *d);

#endif /* PC_DWARF_H */
