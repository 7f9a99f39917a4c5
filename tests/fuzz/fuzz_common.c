/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_common.c - the pieces the fuzz targets share (fuzz_common.h).
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "readers/pc_reader.h"

#include "fuzz_common.h"

void fuzz_die(const char *what, const struct profconv_ctx *ctx)
{
	fprintf(stderr, "%s: invariant broken: %s (status %d, message \"%s\")\n", fuzz_name, what,
		ctx ? ctx->status : -1, ctx ? ctx->errmsg : "");
	abort();
}

void fuzz_diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	if (d->size != sizeof(*d) || d->severity > PROFCONV_ERROR || !d->message ||
	    strlen(d->message) >= 4096)
		fuzz_die("diagnostic callback got a bad message", NULL);
	/* every diagnostic has a stable code and identifier (docs/diagnostics.md;
	 * a warning kind missing from the table is abi.diag-codes' to find) */
	if (!d->id || (d->severity == PROFCONV_WARNING && d->code < 1000) ||
	    (d->severity == PROFCONV_ERROR && profconv_code_id(d->code) == NULL))
		fuzz_die("diagnostic without a stable code", NULL);
}

int fuzz_sink_write(void *user, const void *buf, size_t len)
{
	struct sink *s = user;

	s->total += len;
	if (s->too_big)
		return 0;
	if (s->len + len > CHECK_MAX) {
		s->too_big = 1;
		return 0;
	}
	if (s->len + len + 1 > s->cap) {
		size_t ncap = s->cap ? s->cap : 65536;
		char *n;

		while (ncap < s->len + len + 1)
			ncap *= 2;
		n = realloc(s->buf, ncap);
		if (!n) {
			s->too_big = 1; /* cannot check; not the library's fault */
			return 0;
		}
		s->buf = n;
		s->cap = ncap;
	}
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	return 0;
}

void fuzz_check_json(const struct sink *s, const struct profconv_ctx *ctx)
{
	cJSON *root;

	if (s->too_big)
		return;
	if (s->len == 0)
		fuzz_die("the processed writer succeeded but wrote nothing", ctx);
	root = cJSON_ParseWithLength(s->buf, s->len);
	if (!root)
		fuzz_die("the processed writer's output is not valid JSON", ctx);
	if (!cJSON_IsObject(root) || !cJSON_GetObjectItemCaseSensitive(root, "meta"))
		fuzz_die("the processed writer's output has no top-level object with \"meta\"", ctx);
	cJSON_Delete(root);
}

int fuzz_text_discard(void *user, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)user += len;
	return 0;
}

int fuzz_is_limit(int err)
{
	return (err & 0xff) == PROFCONV_ERR_NOMEM || (err & 0xff) == PROFCONV_ERR_LIMIT;
}

struct profconv_ctx *fuzz_ctx_new(int strict)
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

void fuzz_info_and_free(struct profconv_ctx *ctx, const uint8_t *data, size_t size,
			const char *file_name, const struct pc_reader *reader)
{
	struct pc_input *in = NULL;
	int err;

	/* info, on a fresh input (as profconv_info_path() does) */
	pc_clear_error(ctx);
	err = pc_input_open_mem(ctx, data, size, file_name, &in);
	if (!err) {
		uint64_t n = 0;
		struct pc_text_out o = { fuzz_text_discard, &n, 0 };

		err = reader->info(ctx, in, &o);
		pc_input_close(in);
		if (err && !ctx->status)
			fuzz_die("info failed without recording an error", ctx);
	}

	if (ctx->mem_used != 0) {
		fprintf(stderr, "%s: %llu ctx-allocated bytes were never freed\n", fuzz_name,
			(unsigned long long)ctx->mem_used);
		fuzz_die("ctx memory accounting does not return to 0", ctx);
	}
	profconv_ctx_free(ctx);
}

void fuzz_read_pass(struct profconv_ctx *ctx, const uint8_t *data, size_t size,
		    const char *from_name, const char *file_name, const struct pc_reader *reader,
		    struct fuzz_pass *r)
{
	struct profconv_profile *p = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->read_err = r->write_err = -1;
	if (!ctx)
		return;

	/* read and write as a library caller does (the reader is forced) */
	if (profconv_set_option(ctx, "from", from_name) != PROFCONV_OK)
		fuzz_die("setting the from option failed", ctx);
	err = profconv_read_mem(ctx, data, size, file_name, &p);
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

	fuzz_info_and_free(ctx, data, size, file_name, reader);
}

void fuzz_check_strictness(const struct fuzz_pass *lenient, const struct fuzz_pass *strict)
{
	if (lenient->read_err < 0 || strict->read_err < 0)
		return; /* could not even create a ctx */
	if (fuzz_is_limit(lenient->read_err) || fuzz_is_limit(strict->read_err))
		return;
	if (!strict->read_err && lenient->read_err)
		fuzz_die("strict mode read an input that lenient mode rejected", NULL);
	if (!lenient->read_err && !lenient->warnings && strict->read_err)
		fuzz_die("strict mode failed on an input that gave no warning", NULL);
}
