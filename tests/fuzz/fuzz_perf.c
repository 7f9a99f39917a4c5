/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_perf.c - libFuzzer target for the perf.data reader (src/readers/read_perf.c).
 *
 * Each input is run through the public calls an importer uses
 * (profconv_read_mem() with "from" "perf", profconv_write_cb()), twice:
 *
 *   pass 1: lenient, weight "samples"   read -> processed writer -> JSON check; info
 *   pass 2: strict, weight "period"     read -> processed writer -> JSON check; info
 *
 * Pass 2 also names the event for a quarter of the inputs each ("cpu-clock",
 * or one that no file has), chosen by size % 4 so a file always replays the
 * same way.
 *
 * Every pass has its own ctx with a 256 MiB memory limit, so absurd sizes in
 * the input fail as PROFCONV_ERR_NOMEM instead of allocating.  Diagnostics go
 * to a callback that only checks them (verbose on, so notes are formatted
 * too); nothing is printed on stdout.
 *
 * Besides what ASan/UBSan/LSan see, the target aborts when an invariant of the
 * library breaks:
 *   - a failing call leaves a status and a message in the ctx;
 *   - every byte allocated through the ctx is freed again (mem_used == 0);
 *   - a successful write is well-formed JSON (cJSON) with an object at the top
 *     (checked for outputs up to CHECK_MAX bytes);
 *   - strict mode succeeds exactly when the lenient pass succeeded without a
 *     warning (unless a memory limit intervened; only checked when pass 2
 *     does not name an event).
 * See README.md in this directory for how to build, run and add crashers.
 */
#include "core/pc_config.h"

#include "readers/pc_reader.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_perf";

/* The event pass 2 asks for, or NULL for the default choice. */
static const char *event_for(size_t size)
{
	switch (size % 4) {
	case 2:
		return "cpu-clock";
	case 3:
		return "no-such-event";
	default:
		return NULL;
	}
}

static struct profconv_ctx *new_ctx(int strict, const char *event)
{
	struct profconv_ctx *ctx = fuzz_ctx_new(strict);

	if (!ctx)
		return NULL;
	if (profconv_set_option(ctx, "weight", strict ? "period" : "samples") != PROFCONV_OK)
		fuzz_die("setting the weight option failed", ctx);
	if (event && profconv_set_option(ctx, "event", event) != PROFCONV_OK)
		fuzz_die("setting the event option failed", ctx);
	/*
	 * Hermetic: binaries come from the fixture's symbol directories only
	 * (compiled in by CMake), so --call-graph dwarf inputs (the dwarf_*
	 * seeds) are unwound through the real program, libc and vdso tables
	 * whatever the host has.
	 */
	if (profconv_set_option(ctx, "host-symbols", "no") != PROFCONV_OK)
		fuzz_die("setting the host-symbols option failed", ctx);
#ifdef PC_FUZZ_SYMBOL_DIR1
	if (profconv_set_option(ctx, "symbol-dir", PC_FUZZ_SYMBOL_DIR1) != PROFCONV_OK ||
	    profconv_set_option(ctx, "symbol-dir", PC_FUZZ_SYMBOL_DIR2) != PROFCONV_OK)
		fuzz_die("setting the symbol-dir option failed", ctx);
#endif
	return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_pass lenient, strict;

	fuzz_read_pass(new_ctx(0, NULL), data, size, "perf", "fuzz.data", &pc_reader_perf,
		       &lenient);
	fuzz_read_pass(new_ctx(1, event_for(size)), data, size, "perf", "fuzz.data",
		       &pc_reader_perf, &strict);
	/* a named event may select nothing, which only strict mode refuses */
	if (!event_for(size))
		fuzz_check_strictness(&lenient, &strict);
	return 0;
}
