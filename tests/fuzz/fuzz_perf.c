/*
 * fuzz_perf.c - libFuzzer target for the perf.data reader (src/readers/read_perf.c).
 *
 * Each input is run through the pipeline the library uses (see src/api.c),
 * over an in-memory pc_input, twice:
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
#include "writers/pc_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_MEMORY ((uint64_t)256 << 20)
#define CHECK_MAX	((size_t)4 << 20) /* JSON outputs larger than this are only counted */

struct sink {
	char *buf; /* plain malloc: not counted against the ctx */
	size_t len, cap;
	uint64_t total;
	int too_big;
};

struct pass {
	int read_err;
	int write_err;
	uint64_t warnings;
};

static void die(const char *what, const struct profconv_ctx *ctx)
{
	fprintf(stderr, "fuzz_perf: invariant broken: %s (status %d, message \"%s\")\n", what,
		ctx ? ctx->status : -1, ctx ? ctx->errmsg : "");
	abort();
}

static void diag(void *user, enum profconv_severity sev, const char *msg)
{
	(void)user;
	if (sev > PROFCONV_ERROR || !msg || strlen(msg) >= 4096)
		die("diagnostic callback got a bad message", NULL);
}

static int sink_write(void *user, const void *buf, size_t len)
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

static void check_json(const struct sink *s, const struct profconv_ctx *ctx)
{
	cJSON *root;

	if (s->too_big)
		return;
	if (s->len == 0)
		die("the processed writer succeeded but wrote nothing", ctx);
	root = cJSON_ParseWithLength(s->buf, s->len);
	if (!root)
		die("the processed writer's output is not valid JSON", ctx);
	if (!cJSON_IsObject(root) || !cJSON_GetObjectItemCaseSensitive(root, "meta"))
		die("the processed writer's output has no top-level object with \"meta\"", ctx);
	cJSON_Delete(root);
}

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
	profconv_set_diag(ctx, diag, NULL);
	if (profconv_set_option(ctx, "weight", strict ? "period" : "samples") != PROFCONV_OK)
		die("setting the weight option failed", ctx);
	if (event && profconv_set_option(ctx, "event", event) != PROFCONV_OK)
		die("setting the event option failed", ctx);
	return ctx;
}

static int text_discard(void *user, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)user += len;
	return 0;
}

static void run_pass(const uint8_t *data, size_t size, int strict, struct pass *r)
{
	struct profconv_ctx *ctx = new_ctx(strict, strict ? event_for(size) : NULL);
	struct pc_input *in = NULL;
	struct pc_model *m;
	int err;

	memset(r, 0, sizeof(*r));
	r->read_err = r->write_err = -1;
	if (!ctx)
		return;

	/* read, the way api.c's read_input() does it (the reader is forced) */
	err = pc_input_open_mem(ctx, data, size, "fuzz.data", &in);
	if (!err) {
		m = pc_model_new(ctx);
		if (!m) {
			err = PROFCONV_ERR_NOMEM;
		} else {
			err = pc_reader_perf.read(ctx, in, m);
			if (!err && ctx->status)
				err = ctx->status;
			if (!err) {
				struct sink s;

				memset(&s, 0, sizeof(s));
				pc_clear_error(ctx);
				r->write_err = pc_writer_processed.write(ctx, m, sink_write, &s);
				if (r->write_err && !ctx->status)
					die("the writer failed without recording an error", ctx);
				if (!r->write_err)
					check_json(&s, ctx);
				free(s.buf);
			}
			pc_model_free(m);
		}
		pc_input_close(in);
	}
	if (err && (!ctx->status || !ctx->errmsg[0]))
		die("the reader failed without recording an error and a message", ctx);
	r->read_err = err;
	r->warnings = profconv_warning_count(ctx);
	if (profconv_warning_summary(ctx) == NULL)
		die("no warning summary", ctx);

	/* info, on a fresh input (as profconv_info_path() does) */
	pc_clear_error(ctx);
	in = NULL;
	err = pc_input_open_mem(ctx, data, size, "fuzz.data", &in);
	if (!err) {
		uint64_t n = 0;
		struct pc_text_out o = { text_discard, &n, 0 };

		err = pc_reader_perf.info(ctx, in, &o);
		pc_input_close(in);
		if (err && !ctx->status)
			die("info failed without recording an error", ctx);
	}

	if (ctx->mem_used != 0) {
		fprintf(stderr, "fuzz_perf: %llu ctx-allocated bytes were never freed\n",
			(unsigned long long)ctx->mem_used);
		die("ctx memory accounting does not return to 0", ctx);
	}
	profconv_ctx_free(ctx);
}

static int is_limit(int err)
{
	return (err & 0xff) == PROFCONV_ERR_NOMEM || (err & 0xff) == PROFCONV_ERR_LIMIT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pass lenient, strict;

	run_pass(data, size, 0, &lenient);
	run_pass(data, size, 1, &strict);
	if (lenient.read_err < 0 || strict.read_err < 0)
		return 0; /* could not even create a ctx */
	if (is_limit(lenient.read_err) || is_limit(strict.read_err) || event_for(size))
		return 0;
	if (!strict.read_err && lenient.read_err)
		die("strict mode read an input that lenient mode rejected", NULL);
	if (!lenient.read_err && !lenient.warnings && strict.read_err)
		die("strict mode failed on an input that gave no warning", NULL);
	return 0;
}
