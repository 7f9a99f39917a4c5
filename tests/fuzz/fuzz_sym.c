/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_sym.c - libFuzzer target for ELF symbol files: the ELF reader
 * (src/symbolicate/sym_elf.c: headers, segments, .symtab/.dynsym, PLT,
 * compressed sections) and the DWARF behind it (sym_dwarf.c: its own
 * .debug_line reader and C-unit DIE walk, and libdwarf where those hand a
 * unit back).
 *
 * Input: the bytes of an ELF file, written to a temporary file (the
 * opener takes a path) and opened with no build id expected.  When it
 * opens, lib-relative addresses spread over the file (512 of them, plus
 * the first 64 bytes one by one) are looked up: each lookup loads the
 * units, line programs and inline trees that cover it, and every name and
 * file of the result is read through.  Seeds and replayed files: the
 * symbol fixtures (tests/fixtures/sym: GCC and clang, DWARF 4 and 5, zlib
 * and zstd sections, i386 and big-endian PowerPC; tests/fixtures/symperf)
 * and corpus/sym (crashers, when there are any).
 *
 * Besides ASan/UBSan/LSan, it aborts when every byte allocated through the
 * ctx is not freed again.
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolicate/pc_symsrc.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_sym";

static char path[64];

/* The temporary file holding the input: made once, rewritten per input. */
static int put_input(const uint8_t *data, size_t size)
{
	static int fd = -1;
	size_t done = 0;

	if (fd < 0) {
		pc_snprintf(path, sizeof(path), "/tmp/profconv-fuzz-sym-XXXXXX");
		fd = mkstemp(path);
		if (fd < 0)
			return -1;
		unlink(path);	/* gone at exit; opened through /proc/self/fd */
		pc_snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0)
		return -1;
	while (done < size) {
		ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);

		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

static void look(struct pc_symsrc *s, uint64_t rel, const struct profconv_ctx *ctx)
{
	struct pc_sym_result r;
	uint32_t i;
	volatile size_t sum = 0;

	memset(&r, 0, sizeof(r));
	if (pc_symsrc_lookup(s, rel, &r) <= 0 || r.nframes == 0)
		return;
	if (r.nframes > PC_MAX_INLINE)
		fuzz_die("a lookup gave more frames than PC_MAX_INLINE", ctx);
	for (i = 0; i < r.nframes; i++) {
		if (!r.frames[i].name)
			fuzz_die("a frame without a name", ctx);
		sum += strlen(r.frames[i].name);
		if (r.frames[i].file)
			sum += strlen(r.frames[i].file);
	}
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profconv_ctx *ctx;
	struct pc_symsrc *s = NULL;
	char why[512];
	uint64_t step, rel;

	if (size < 64 || put_input(data, size) != 0)
		return 0;
	ctx = profconv_ctx_new();
	if (!ctx)
		return 0;
	profconv_set_max_memory(ctx, FUZZ_MAX_MEMORY);
	profconv_set_diagnostics(ctx, fuzz_diag, NULL);
	if (pc_symsrc_open_elf(ctx, path, NULL, &s, why, sizeof(why)) == 0 && s) {
		for (rel = 0; rel < 64; rel++)
			look(s, rel, ctx);
		step = size / 512 ? size / 512 : 1;
		for (rel = 0; rel < size; rel += step)
			look(s, rel + (rel / step) % 7, ctx);
		pc_symsrc_close(s);
	}
	if (ctx->mem_used != 0)
		fuzz_die("ctx memory accounting does not return to 0", ctx);
	profconv_ctx_free(ctx);
	return 0;
}
