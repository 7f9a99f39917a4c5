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

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "readers/pc_reader.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_perf";

struct pass {
	int read_err;
	int write_err;
	uint64_t warnings;
};

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
	struct profconv_ctx *ctx = profconv_ctx_new();

	if (!ctx)
		return NULL;
	profconv_set_max_memory(ctx, FUZZ_MAX_MEMORY);
	profconv_set_strict(ctx, strict);
	profconv_set_verbose(ctx, 1);
	profconv_set_diagnostics(ctx, fuzz_diag, NULL);
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

static void run_pass(const uint8_t *data, size_t size, int strict, struct pass *r)
{
	struct profconv_ctx *ctx = new_ctx(strict, strict ? event_for(size) : NULL);
	struct profconv_profile *p = NULL;
	struct pc_input *in = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->read_err = r->write_err = -1;
	if (!ctx)
		return;

	/* read and write as a library caller does (the reader is forced) */
	if (profconv_set_option(ctx, "from", "perf") != PROFCONV_OK)
		fuzz_die("setting the from option failed", ctx);
	err = profconv_read_mem(ctx, data, size, "fuzz.data", &p);
	if (!err != !!p)
		fuzz_die("profconv_read_mem's result and its profile disagree", ctx);
	if (!err) {
		struct sink s;

		memset(&s, 0, sizeof(s));
		r->write_err = profconv_write_cb(ctx, p, PROFCONV_OUT_PROCESSED, fuzz_sink_write, &s);
		if (r->write_err && !ctx->status)
			fuzz_die("the writer failed without recording an error", ctx);
		if (!r->write_err)
			fuzz_check_json(&s, ctx);
		free(s.buf);
		profconv_profile_free(p);
	}
	if (err && !profconv_errmsg(ctx)[0])
		fuzz_die("the reader failed without recording an error and a message", ctx);
	r->read_err = err;
	r->warnings = profconv_warning_count(ctx);
	if (profconv_warning_summary(ctx) == NULL)
		fuzz_die("no warning summary", ctx);

	/* info, on a fresh input (as profconv_info_path() does) */
	pc_clear_error(ctx);
	in = NULL;
	err = pc_input_open_mem(ctx, data, size, "fuzz.data", &in);
	if (!err) {
		uint64_t n = 0;
		struct pc_text_out o = { fuzz_text_discard, &n, 0 };

		err = pc_reader_perf.info(ctx, in, &o);
		pc_input_close(in);
		if (err && !ctx->status)
			fuzz_die("info failed without recording an error", ctx);
	}

	if (ctx->mem_used != 0) {
		fprintf(stderr, "fuzz_perf: %llu ctx-allocated bytes were never freed\n",
			(unsigned long long)ctx->mem_used);
		fuzz_die("ctx memory accounting does not return to 0", ctx);
	}
	profconv_ctx_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pass lenient, strict;

	run_pass(data, size, 0, &lenient);
	run_pass(data, size, 1, &strict);
	if (lenient.read_err < 0 || strict.read_err < 0)
		return 0; /* could not even create a ctx */
	if (fuzz_is_limit(lenient.read_err) || fuzz_is_limit(strict.read_err) || event_for(size))
		return 0;
	if (!strict.read_err && lenient.read_err)
		fuzz_die("strict mode read an input that lenient mode rejected", NULL);
	if (!lenient.read_err && !lenient.warnings && strict.read_err)
		fuzz_die("strict mode failed on an input that gave no warning", NULL);
	return 0;
}
