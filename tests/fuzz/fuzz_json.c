/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_json.c - libFuzzer target for the JSON profile readers
 * (src/readers/read_processed.c and src/readers/read_gecko.c), both on the
 * same input, over an in-memory pc_input, as the library's pipeline uses
 * them (src/api.c):
 *
 *   for each reader, pass 1 lenient and pass 2 strict:
 *     read -> processed writer (out1) -> JSON check;
 *     out1 read back as processed -> written again (out2): out2 == out1;
 *     the re-collapse step of symbolication with no symbol source
 *     (pc_symwork_begin/finish: frame and func index rebuilds, func
 *     compaction; no file is opened) -> written -> read back -> written:
 *     the same bytes;
 *     info on a fresh input.
 *
 * Every pass has its own ctx with a 256 MiB memory limit.  Besides what
 * ASan/UBSan/LSan see, the target aborts when an invariant breaks:
 *   - a failing call leaves a status and a message in the ctx;
 *   - every byte allocated through the ctx is freed again (mem_used == 0);
 *   - a successful write is well-formed JSON with an object holding "meta"
 *     at the top (checked for outputs up to CHECK_MAX bytes);
 *   - our own processed output reads back and writes the same bytes;
 *   - no read fails with PROFCONV_ERR_INTERNAL (a bug by definition; the
 *     Chrome reader's scanner and the strict tokenizer disagreeing is one);
 *   - strict mode succeeds exactly when the lenient pass succeeded without
 *     a warning (unless a memory limit intervened).
 * See README.md in this directory for how to build and run fuzzers.
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "readers/pc_reader.h"
#include "symbolicate/pc_symbolicate.h"
#include "writers/pc_writer.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char fuzz_name[] = "fuzz_json";

/*
 * Read data as reader r into a new model through the public call
 * (profconv_read_mem() with "from" set); NULL on failure (ctx set).
 */
static struct pc_model *read_with(struct profconv_ctx *ctx, const struct pc_reader *r,
				  const void *data, size_t size, int *errp)
{
	struct profconv_profile *p = NULL;
	int err;

	err = profconv_set_option(ctx, "from", r->name);
	if (err)
		fuzz_die("setting the from option failed", ctx);
	err = profconv_read_mem(ctx, data, size, "fuzz.json", &p);
	if (err && !profconv_errmsg(ctx)[0])
		fuzz_die("a read failed without recording an error and a message", ctx);
	/* an internal error is a bug: e.g. the Chrome reader's event scanner
	 * refusing an event the strict tokenizer accepts */
	if ((err & 0xff) == PROFCONV_ERR_INTERNAL)
		fuzz_die("a read failed with an internal error", ctx);
	if (!err != !!p)
		fuzz_die("profconv_read_mem's result and its profile disagree", ctx);
	*errp = err;
	return p ? &p->m : NULL;
}

/* Write m; 0 with s filled, or the error. */
static int write_model(struct profconv_ctx *ctx, const struct pc_model *m, struct sink *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	pc_clear_error(ctx);
	err = pc_writer_processed.write(ctx, m, fuzz_sink_write, s);
	if (err && !ctx->status)
		fuzz_die("the writer failed without recording an error", ctx);
	if (!err)
		fuzz_check_json(s, ctx);
	return err;
}

/* out read back as processed and written again must give out's bytes. */
static void check_round_trip(struct profconv_ctx *ctx, const struct sink *out)
{
	struct pc_model *m;
	struct sink again;
	int err;

	if (out->too_big)
		return;
	m = read_with(ctx, &pc_reader_processed, out->buf, out->len, &err);
	if (!m) {
		if (fuzz_is_limit(err))
			return;
		fprintf(stderr, "fuzz_json: our own output does not read back: %s\n", ctx->errmsg);
		fuzz_die("the processed output does not read back", ctx);
	}
	err = write_model(ctx, m, &again);
	if (!err && !again.too_big &&
	    (again.len != out->len || memcmp(again.buf, out->buf, out->len) != 0))
		fuzz_die("processed output read back and written again differs", ctx);
	if (!err) {
		struct pc_symwork *w = NULL;

		/* symbolication's re-collapse with no symbols, then once more around */
		pc_clear_error(ctx);
		err = pc_symwork_begin(ctx, m, &w);
		if (!err)
			err = pc_symwork_finish(w);
		if (err && !fuzz_is_limit(err))
			fuzz_die("symbolication without symbols failed", ctx);
		if (!err) {
			struct sink s1;
			struct pc_model *m2;

			if (!write_model(ctx, m, &s1) && !s1.too_big) {
				m2 = read_with(ctx, &pc_reader_processed, s1.buf, s1.len, &err);
				if (!m2 && !fuzz_is_limit(err))
					fuzz_die("the re-collapsed output does not read back", ctx);
				if (m2) {
					struct sink s2;

					if (!write_model(ctx, m2, &s2) && !s2.too_big &&
					    (s2.len != s1.len || memcmp(s1.buf, s2.buf, s1.len) != 0))
						fuzz_die("re-collapsed output read back differs", ctx);
					free(s2.buf);
					pc_model_free(m2);
				}
			}
			free(s1.buf);
		}
	}
	free(again.buf);
	pc_model_free(m);
}

static void run_pass(const struct pc_reader *r, const uint8_t *data, size_t size, int strict,
		     struct fuzz_pass *res)
{
	struct profconv_ctx *ctx = fuzz_ctx_new(strict);
	struct pc_model *m;
	int err;

	res->read_err = res->write_err = -1;
	res->warnings = 0;
	if (!ctx)
		return;

	m = read_with(ctx, r, data, size, &err);
	res->read_err = err;
	res->warnings = profconv_warning_count(ctx);
	if (m) {
		struct sink out;

		if (!write_model(ctx, m, &out))
			check_round_trip(ctx, &out);
		free(out.buf);
		pc_model_free(m);
	}
	if (profconv_warning_summary(ctx) == NULL)
		fuzz_die("no warning summary", ctx);

	fuzz_info_and_free(ctx, data, size, "fuzz.json", r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pc_reader *const readers[] = { &pc_reader_processed, &pc_reader_gecko,
							   &pc_reader_chrome };
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(readers); i++) {
		struct fuzz_pass lenient, strict;

		run_pass(readers[i], data, size, 0, &lenient);
		run_pass(readers[i], data, size, 1, &strict);
		fuzz_check_strictness(&lenient, &strict);
	}
	return 0;
}
