/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_gbuf.c - libFuzzer target for the Gecko buffer dump reader
 * (src/readers/read_gecko_buffer.c, gbuf_decode.c).
 *
 * Each input is run through the public calls an importer uses
 * (profconv_read_mem() with "from" "gecko-buffer", profconv_write_cb()),
 * twice: lenient, then strict; then info on a fresh input.  As in
 * fuzz_perf.c, every pass has its own ctx with a 256 MiB memory limit and
 * the target aborts when an invariant of the library breaks:
 *   - a failing call leaves a status and a message in the ctx;
 *   - every byte allocated through the ctx is freed again (mem_used == 0);
 *   - a successful write is well-formed JSON with an object at the top;
 *   - strict mode succeeds exactly when the lenient pass succeeded without a
 *     warning (unless a memory limit intervened).
 * Seeds: corpus/gbuf (tests/fuzz/make_gbuf_seeds.py) and
 * tests/fixtures/gecko-buffer.  See README.md in this directory.
 */
#include "core/pc_config.h"

#include "readers/pc_reader.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_gbuf";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_pass lenient, strict;

	fuzz_read_pass(fuzz_ctx_new(0), data, size, "gecko-buffer", "fuzz.pgkb",
		       &pc_reader_gecko_buffer, &lenient);
	fuzz_read_pass(fuzz_ctx_new(1), data, size, "gecko-buffer", "fuzz.pgkb",
		       &pc_reader_gecko_buffer, &strict);
	fuzz_check_strictness(&lenient, &strict);
	return 0;
}
