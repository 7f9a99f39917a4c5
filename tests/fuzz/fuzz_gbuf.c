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

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "readers/pc_reader.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_gbuf";

struct pass {
	int read_err;
	int write_err;
	uint64_t warnings;
};

static struct profconv_ctx *new_ctx(int strict)
{
	struct profconv_ctx *ctx = profconv_ctx_new();

	if (!ctx)
		return NULL;
	profconv_set_max_memory(ctx, FUZZ_MAX_MEMORY);
	profconv_set_strict(ctx, strict);
	profconv_set_verbose(ctx, 1);
	profconv_set_diagnostics(ctx, fuzz_diag, NULL);
	return ctx;
}

static void run_pass(const uint8_t *data, size_t size, int strict, struct pass *r)
{
	struct profconv_ctx *ctx = new_ctx(strict);
	struct profconv_profile *p = NULL;
	struct pc_input *in = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->read_err = r->write_err = -1;
	if (!ctx)
		return;

	/* read and write as a library caller does (the reader is forced) */
	if (profconv_set_option(ctx, "from", "gecko-buffer") != PROFCONV_OK)
		fuzz_die("setting the from option failed", ctx);
	err = profconv_read_mem(ctx, data, size, "fuzz.pgkb", &p);
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
	err = pc_input_open_mem(ctx, data, size, "fuzz.pgkb", &in);
	if (!err) {
		uint64_t n = 0;
		struct pc_text_out o = { fuzz_text_discard, &n, 0 };

		err = pc_reader_gecko_buffer.info(ctx, in, &o);
		pc_input_close(in);
		if (err && !ctx->status)
			fuzz_die("info failed without recording an error", ctx);
	}

	if (ctx->mem_used != 0) {
		fprintf(stderr, "fuzz_gbuf: %llu ctx-allocated bytes were never freed\n",
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
	if (fuzz_is_limit(lenient.read_err) || fuzz_is_limit(strict.read_err))
		return 0;
	if (!strict.read_err && lenient.read_err)
		fuzz_die("strict mode read an input that lenient mode rejected", NULL);
	if (!lenient.read_err && !lenient.warnings && strict.read_err)
		fuzz_die("strict mode failed on an input that gave no warning", NULL);
	return 0;
}
