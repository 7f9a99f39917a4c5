/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_cfi.c - our CFI engine (src/symbolicate/cfi.c) against libdwarf's
 * frame API on one binary's .eh_frame: the time to open the tables and the
 * time per row lookup, for the choice recorded in docs/formats/perf-data.md
 * §5.1.  Built and run by bench_cfi.sh; not part of the test suite.
 *
 * usage: bench_cfi ELF [LOOKUPS]
 *
 * The addresses: LOOKUPS pseudo-random addresses inside the binary's FDEs
 * (from libdwarf's FDE list), in two patterns: all distinct-ish (spread over
 * every FDE: the first sight of each address, what a row cache cannot help
 * with) and drawn from 200 addresses (a profile's hot return addresses).
 * libdwarf: dwarf_get_fde_at_pc + dwarf_get_fde_info_for_all_regs3 per
 * lookup.  Ours: pc_cfi_step() on a register set whose every load succeeds.
 */
#include "core/pc_config.h"

#include <fcntl.h>
#include <libdwarf.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "symbolicate/pc_cfi.h"
#include "symbolicate/pc_symsrc.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int rd(void *user, uint64_t addr, uint64_t *val)
{
	(void)user;
	*val = addr + 64; /* any value: every load succeeds */
	return 0;
}

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

int main(int argc, char **argv)
{
	Dwarf_Debug dbg;
	Dwarf_Error derr;
	Dwarf_Cie *cies;
	Dwarf_Fde *fdes;
	Dwarf_Signed ncie, nfde;
	Dwarf_Regtable3 tab;
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_symsrc *src = NULL;
	struct pc_cfi *cfi;
	uint64_t *pcs, seed = 42, sink = 0;
	long n = argc > 2 ? atol(argv[2]) : 1000000, i;
	double t0, t_open_dw, t_open_ours;
	char why[512];
	int fd, pattern;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: bench_cfi ELF [LOOKUPS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	t0 = now();
	if (fd < 0 || dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &derr) !=
			      DW_DLV_OK ||
	    dwarf_get_fde_list_eh(dbg, &cies, &ncie, &fdes, &nfde, &derr) != DW_DLV_OK) {
		fprintf(stderr, "%s: libdwarf cannot read its .eh_frame\n", argv[1]);
		return 1;
	}
	t_open_dw = now() - t0;
	t0 = now();
	if (pc_symsrc_open_elf_cfi(ctx, argv[1], NULL, &src, why, sizeof(why)) || !src) {
		fprintf(stderr, "%s: %s\n", argv[1], why);
		return 1;
	}
	t_open_ours = now() - t0;
	cfi = pc_elf_cfi(src, NULL);
	tab.rt3_reg_table_size = DW_REG_TABLE_SIZE;
	tab.rt3_rules = calloc(DW_REG_TABLE_SIZE, sizeof(*tab.rt3_rules));
	pcs = malloc((size_t)n * sizeof(*pcs));
	if (!tab.rt3_rules || !pcs)
		return 1;
	printf("%s: %lld FDEs; open: libdwarf %.2f ms, ours %.2f ms\n", argv[1], (long long)nfde,
	       t_open_dw * 1e3, t_open_ours * 1e3);
	for (pattern = 0; pattern < 2; pattern++) {
		double t_dw, t_ours;

		for (i = 0; i < n; i++) {
			Dwarf_Addr lo, hi;
			Dwarf_Signed k = (Dwarf_Signed)(rng(&seed) % (uint64_t)nfde);

			if (pattern == 1 && i >= 200) {
				pcs[i] = pcs[rng(&seed) % 200];
				continue;
			}
			dwarf_get_fde_range(fdes[k], &lo, &hi, NULL, NULL, NULL, NULL, NULL, &derr);
			pcs[i] = lo + (hi > 0 ? rng(&seed) % hi : 0);
		}
		t0 = now();
		for (i = 0; i < n; i++) {
			Dwarf_Fde fde;
			Dwarf_Addr lo, hi, row;

			if (dwarf_get_fde_at_pc(fdes, pcs[i], &fde, &lo, &hi, &derr) == DW_DLV_OK &&
			    dwarf_get_fde_info_for_all_regs3(fde, pcs[i], &tab, &row, &derr) ==
				    DW_DLV_OK)
				sink += (uint64_t)tab.rt3_cfa_rule.dw_offset_or_block_len;
		}
		t_dw = now() - t0;
		t0 = now();
		for (i = 0; i < n; i++) {
			struct pc_cfi_regs r;

			memset(&r, 0, sizeof(r));
			r.valid = (1ull << PC_CFI_NREGS) - 1;
			r.pc = pcs[i];
			if (pc_cfi_step(cfi, pcs[i], &r, rd, NULL) == PC_CFI_STEPPED)
				sink += r.pc;
		}
		t_ours = now() - t0;
		printf("%s addresses: %ld lookups: libdwarf %.0f ns each, ours %.0f ns each (%.1fx)\n",
		       pattern ? "200 hot" : "spread", n, t_dw / (double)n * 1e9,
		       t_ours / (double)n * 1e9, t_dw / t_ours);
	}
	fprintf(stderr, "(%llu)\n", (unsigned long long)sink);
	pc_symsrc_close(src);
	dwarf_fde_cie_list_dealloc(dbg, cies, ncie, fdes, nfde);
	dwarf_finish(dbg, &derr);
	profconv_ctx_free(ctx);
	return 0;
}
