/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_common.h - what the fuzz targets share: an output sink that keeps
 * small outputs for checking, the invariant checks, and the diagnostics and
 * text callbacks.  Each target defines fuzz_name (for its abort messages).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "core/pc_core.h"

#define FUZZ_MAX_MEMORY ((uint64_t)256 << 20)
#define CHECK_MAX	((size_t)4 << 20) /* JSON outputs larger than this are only counted */

/* The target's name, for messages ("fuzz_perf", "fuzz_json"). */
extern const char fuzz_name[];

struct sink {
	char *buf; /* plain malloc: not counted against the ctx */
	size_t len, cap;
	uint64_t total;
	int too_big; /* over CHECK_MAX (or out of memory): not checked */
};

/* Report a broken library invariant and abort. */
void fuzz_die(const char *what, const struct profconv_ctx *ctx);
/* Diagnostics callback: checks the message is sane, prints nothing. */
void fuzz_diag(void *user, const struct profconv_diag *d);
/* profconv_write_fn into a struct sink; never fails. */
int fuzz_sink_write(void *user, const void *buf, size_t len);
/* A successful write must be well-formed JSON with "meta" at the top. */
void fuzz_check_json(const struct sink *s, const struct profconv_ctx *ctx);
/* profconv_write_fn that only counts bytes into a uint64_t. */
int fuzz_text_discard(void *user, const void *buf, size_t len);
/* Whether err is a memory or size limit (which may hit one pass and not another). */
int fuzz_is_limit(int err);

struct pc_reader;

/* What one pass of a reader target found (-1: not run). */
struct fuzz_pass {
	int read_err;
	int write_err;
	uint64_t warnings;
};

/*
 * A ctx as the targets use it: FUZZ_MAX_MEMORY, strict or not, verbose,
 * diagnostics to fuzz_diag().  NULL when out of memory.
 */
struct profconv_ctx *fuzz_ctx_new(int strict);
/*
 * reader's info on a fresh input of data (named file_name), then the ctx's
 * memory accounting checked (back to 0) and ctx freed.
 */
void fuzz_info_and_free(struct profconv_ctx *ctx, const uint8_t *data, size_t size,
			const char *file_name, const struct pc_reader *reader);
/*
 * One pass over data with ctx (which it frees; NULL leaves r at -1): read
 * as an importer does with the reader forced ("from" from_name, the input
 * named file_name), write processed output and check it, then reader's
 * info on a fresh input; dies when an invariant breaks, including ctx
 * memory not returning to 0.
 */
void fuzz_read_pass(struct profconv_ctx *ctx, const uint8_t *data, size_t size,
		    const char *from_name, const char *file_name, const struct pc_reader *reader,
		    struct fuzz_pass *r);
/*
 * Lenient against strict: strict reads exactly what lenient read without
 * a warning.  Not checked when either could not run or hit a limit.
 */
void fuzz_check_strictness(const struct fuzz_pass *lenient, const struct fuzz_pass *strict);

#endif /* FUZZ_COMMON_H */
