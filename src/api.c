/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * api.c - the public entry points: the pipeline that ties an input, a
 * reader, the model and a writer together.  The only file that sees both
 * the reader and the writer registries.
 *
 *   profconv_read_path:  pc_input -> detect (bids) -> reader -> model
 *   profconv_write_path: model -> writer -> temp file -> rename
 */
#include "core/pc_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/pc_output.h"
#include "json/pc_validate.h"
#include "readers/pc_reader.h"
#include "symbolicate/pc_symbolicate.h"
#include "writers/pc_writer.h"

/* --- the registries: formats and their options --- */

static size_t nreaders(void)
{
	size_t n = 0;

	while (pc_readers[n])
		n++;
	return n;
}

static const struct profconv_option no_options[] = { { NULL, NULL, NULL, NULL, NULL } };

PROFCONV_API int profconv_formats(size_t i, struct profconv_format *out)
{
	struct profconv_format f = { sizeof(f), NULL, NULL, 0, NULL };
	size_t nr = nreaders(), k;

	if (i < nr) {
		f.name = pc_readers[i]->name;
		f.summary = pc_readers[i]->summary;
		f.kind = PROFCONV_FORMAT_INPUT;
		f.options = pc_readers[i]->options ? pc_readers[i]->options : no_options;
		return pc_api_fill(out, &f, sizeof(f), sizeof(f));
	}
	for (k = 0; pc_writers[k]; k++) {
		if (k == i - nr) {
			f.name = pc_writers[k]->name;
			f.summary = pc_writers[k]->summary;
			f.kind = PROFCONV_FORMAT_OUTPUT;
			f.options = pc_writers[k]->options ? pc_writers[k]->options : no_options;
			return pc_api_fill(out, &f, sizeof(f), sizeof(f));
		}
	}
	return PROFCONV_ERR_USAGE;
}

/* The declaration of a format option called key, or NULL. */
static const struct profconv_option *find_option(const char *key)
{
	struct profconv_format f = PROFCONV_INIT(struct profconv_format);
	size_t i;

	for (i = 0; profconv_formats(i, &f) == PROFCONV_OK; i++) {
		const struct profconv_option *o;

		for (o = f.options; o->key; o++)
			if (strcmp(o->key, key) == 0)
				return o;
	}
	return NULL;
}

/* Is value one of the '|'-separated choices? */
static int is_choice(const char *choices, const char *value)
{
	size_t n = strlen(value);
	const char *p = choices;

	for (;;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && memcmp(p, value, n) == 0)
			return 1;
		if (!bar)
			return 0;
		p = bar + 1;
	}
}

/* "a, b, c": the names of the formats of one kind, for messages. */
static void format_names(enum profconv_format_kind kind, char *buf, size_t cap)
{
	struct profconv_format f = PROFCONV_INIT(struct profconv_format);
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; profconv_formats(i, &f) == PROFCONV_OK; i++)
		if (f.kind == kind)
			n += pc_snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", f.name);
}

PROFCONV_API int profconv_set_option(struct profconv_ctx *ctx, const char *key, const char *value)
{
	const struct profconv_option *o;
	int err;

	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (key && value && strcmp(key, "from") == 0 && !pc_reader_find(value)) {
		char names[256];

		format_names(PROFCONV_FORMAT_INPUT, names, sizeof(names));
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown input format '%s' (known: %s)",
			       value, names);
	}
	err = pc_ctx_set_option(ctx, key, value);
	if (err != 1)
		return err;
	o = find_option(key);
	if (!o) {
		char names[512];
		struct profconv_format f = PROFCONV_INIT(struct profconv_format);
		size_t i, n;

		n = pc_snprintf(names, sizeof(names),
				"from, symbols, symbolicate, symbol-dir, kallsyms, host-symbols, compress, threads");
		for (i = 0; profconv_formats(i, &f) == PROFCONV_OK; i++)
			for (o = f.options; o->key; o++)
				n += pc_snprintf(names + n, sizeof(names) - n, ", %s", o->key);
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown option '%s' (known: %s)", key,
			       names);
	}
	if (o->choices && !is_choice(o->choices, value)) {
		char list[256];
		const char *p = o->choices;
		size_t n = 0;

		/* "a|b|c" as "'a', 'b' or 'c'" */
		while (*p) {
			size_t len = strcspn(p, "|");

			n += pc_snprintf(list + n, sizeof(list) - n, "%s'%.*s'",
					 n == 0 ? "" : p[len] ? ", " : " or ", (int)len, p);
			p += len + (p[len] == '|');
		}
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "--%s takes %s, not '%s'", key, list,
			       value);
	}
	return pc_opt_put(ctx, key, value);
}

static int pick_reader(struct profconv_ctx *ctx, struct pc_input *in,
		       const struct pc_reader **out)
{
	const unsigned char *peek;
	size_t n;

	*out = NULL;
	if (ctx->opt.from[0]) {
		*out = pc_reader_find(ctx->opt.from);
		if (!*out)
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown input format '%s'",
				       ctx->opt.from);
		return 0;
	}
	peek = pc_input_peek(in, 4096, &n);
	if (!peek)
		return ctx->status;
	if (n == 0)
		return pc_fail_at(ctx, PROFCONV_ERR_UNRECOGNIZED, pc_input_name(in), 0,
				  "empty input");
	*out = pc_reader_detect(peek, n);
	if (!*out) {
		char first[3 * 8 + 1] = "";
		size_t i, k = 0;

		/* the first 8 bytes in hex, space-separated */
		for (i = 0; i < n && i < 8; i++)
			k += pc_snprintf(first + k, sizeof(first) - k, "%s%02x", i ? " " : "", peek[i]);
		char names[256];

		format_names(PROFCONV_FORMAT_INPUT, names, sizeof(names));
		return pc_fail_at(ctx, PROFCONV_ERR_UNRECOGNIZED, pc_input_name(in), 0,
				  "unrecognized format%s%s: first bytes %s; expected a format profconv reads (%s); use --from to force a format",
				  pc_input_filter(in) ? " inside " : "",
				  pc_input_filter(in) ? pc_input_filter(in) : "", first, names);
	}
	return 0;
}

static int read_input(struct profconv_ctx *ctx, struct pc_input *in,
		      struct profconv_profile **out)
{
	const struct pc_reader *r;
	struct pc_symprep *prep = NULL;
	struct pc_model *m;
	int err, sym;

	err = pick_reader(ctx, in, &r);
	if (err)
		return err;
	m = pc_model_new(ctx);
	if (!m)
		return PROFCONV_ERR_NOMEM;
	pc_snprintf(ctx->activity_buf, sizeof(ctx->activity_buf), "%s: reading as %s",
		    pc_input_name(in), r->name);
	ctx->activity = ctx->activity_buf;
	pc_note(ctx, "%s: reading as %s%s%s", pc_input_name(in), r->name,
		pc_input_filter(in) ? " inside " : "", pc_input_filter(in) ? pc_input_filter(in) : "");
	m->reader = r->name;
	/* find and open symbol sources on a second thread while reading */
	err = ctx->opt.symbols ? pc_symprep_start(ctx, m, &prep) : 0;
	if (!err)
		err = r->read(ctx, in, m);
	if (!err && ctx->status)
		err = ctx->status;
	/* "symbolicate" = "always": also inputs that say they are (frames that
	 * already have a native symbol are left alone by pc_symbolicate()) */
	sym = !err && ctx->opt.symbols && (ctx->opt.symbolicate_always || !m->meta.symbolicated);
	pc_symprep_stop(prep, sym);
	if (sym) {
		pc_snprintf(ctx->activity_buf, sizeof(ctx->activity_buf), "%s: symbolicating",
			    pc_input_name(in));
		err = pc_model_markers_full(m); /* it remaps cause stacks in place */
		if (!err)
			err = pc_symbolicate_prepared(ctx, m, prep);
	}
	pc_symprep_free(prep);
	ctx->activity = NULL;
	if (err) {
		pc_model_free(m);
		return err;
	}
	*out = (struct profconv_profile *)m;
	return 0;
}

/* The checks every read starts with: a context and somewhere to put the result. */
static int api_begin(struct profconv_ctx *ctx, struct profconv_profile **out, const char *fn)
{
	if (out)
		*out = NULL;
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (!out)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "%s: NULL out", fn);
	return 0;
}

PROFCONV_API int profconv_read_path(struct profconv_ctx *ctx, const char *path,
				    struct profconv_profile **out)
{
	struct pc_input *in;
	int err;

	err = api_begin(ctx, out, "profconv_read_path");
	if (!err && !path)
		err = pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "profconv_read_path: NULL path");
	if (err)
		return err;
	pc_snprintf(ctx->activity_buf, sizeof(ctx->activity_buf), "%s: opening",
		    strcmp(path, "-") == 0 ? "<stdin>" : path);
	ctx->activity = ctx->activity_buf;
	err = pc_input_open_path(ctx, path, &in);
	if (!err) {
		err = read_input(ctx, in, out);
		pc_input_close(in);
	}
	ctx->activity = NULL;
	return err;
}

PROFCONV_API int profconv_read_fd(struct profconv_ctx *ctx, int fd, const char *name,
				  struct profconv_profile **out)
{
	struct pc_input *in;
	int err;

	err = api_begin(ctx, out, "profconv_read_fd");
	if (err)
		return err;
	err = pc_input_open_fd(ctx, fd, name ? name : "<fd>", &in);
	if (err)
		return err;
	err = read_input(ctx, in, out);
	pc_input_close(in);
	return err;
}

PROFCONV_API int profconv_read_mem(struct profconv_ctx *ctx, const void *data, size_t len,
				   const char *name, struct profconv_profile **out)
{
	struct pc_input *in;
	int err;

	err = api_begin(ctx, out, "profconv_read_mem");
	if (err)
		return err;
	if (!data && len)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "profconv_read_mem: NULL data");
	err = pc_input_open_mem(ctx, data ? data : "", len, name ? name : "<memory>", &in);
	if (err)
		return err;
	err = read_input(ctx, in, out);
	pc_input_close(in);
	return err;
}

PROFCONV_API int profconv_read_cb(struct profconv_ctx *ctx, profconv_read_fn *fn, void *user,
				  const char *name, struct profconv_profile **out)
{
	struct pc_input *in;
	int err;

	err = api_begin(ctx, out, "profconv_read_cb");
	if (err)
		return err;
	if (!fn)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "profconv_read_cb: NULL callback");
	err = pc_input_open_cb(ctx, fn, user, name ? name : "<callback>", &in);
	if (err)
		return err;
	err = read_input(ctx, in, out);
	pc_input_close(in);
	return err;
}

PROFCONV_API void profconv_profile_free(struct profconv_profile *p)
{
	if (p)
		pc_model_free(&p->m);
}

/* --- writing --- */

/*
 * The writers' output on its way to the sink: counts bytes and asks the
 * cancel callback every MiB.
 */
struct cancel_sink {
	struct profconv_ctx *ctx;
	profconv_write_fn *fn;
	void *user;
	const char *name;
	uint64_t done, next;
};

#define CANCEL_STEP (1u << 20)

static int cancel_sink_write(void *user, const void *buf, size_t len)
{
	struct cancel_sink *cs = user;

	if (cs->done + len >= cs->next) {
		cs->next = cs->done + len + CANCEL_STEP;
		if (pc_cancelled(cs->ctx, cs->name, cs->done))
			return -1;
	}
	cs->done += len;
	return cs->fn(cs->user, buf, len);
}

/* Write p with w to fn, through a compressor when method names one. */
static int write_to(struct profconv_ctx *ctx, const struct pc_writer *w,
		    const struct profconv_profile *p, const char *method, profconv_write_fn *fn,
		    void *user, const char *name)
{
	struct cancel_sink cs = { ctx, fn, user, name, 0, CANCEL_STEP };
	struct pc_compress *c = NULL;
	int err;

	if (pc_compress_method(method)) {
		err = pc_compress_open(ctx, method, fn, user, &c);
		if (err)
			return err;
		fn = pc_compress_write;
		user = c;
		cs.fn = fn;
		cs.user = user;
	}
	/* the writer's bytes (before compression) are what the cancel steps count */
	err = w->write(ctx, &p->m, ctx->cancel ? cancel_sink_write : fn, ctx->cancel ? &cs : user);
	if (c)
		err = pc_compress_close(c, err);
	/* the writer turns a failing sink into its own error: the first wins */
	if (err && ctx->status == PROFCONV_ERR_CANCELLED)
		err = PROFCONV_ERR_CANCELLED;
	return err;
}

/* The checks every write starts with. */
static int write_begin(struct profconv_ctx *ctx, const struct profconv_profile *p,
		       const char *where, const char *fn)
{
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (!p)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "%s: NULL profile", fn);
	if (!where)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "%s: NULL %s", fn,
			       strcmp(fn, "profconv_write_cb") == 0 ? "callback" : "path");
	return 0;
}

PROFCONV_API int profconv_write_cb(struct profconv_ctx *ctx, const struct profconv_profile *p,
				   const char *format, profconv_write_fn *fn, void *user)
{
	const struct pc_writer *w = pc_writer_find(format ? format : PROFCONV_OUT_PROCESSED);
	int err = write_begin(ctx, p, fn ? "" : NULL, "profconv_write_cb");

	if (err)
		return err;
	if (!w)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown output format '%s'", format);
	/* to a callback: compressed only when asked by name */
	return write_to(ctx, w, p, ctx->opt.compress, fn, user, "<callback>");
}

/* "auto": by the output's name (FILE.gz, FILE.zst); else as set. */
static const char *compress_for(const struct profconv_ctx *ctx, const char *path)
{
	size_t n = strlen(path);

	if (ctx->opt.compress[0])
		return ctx->opt.compress;
	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return "gzip";
	if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
		return "zstd";
	return "none";
}

PROFCONV_API int profconv_write_path(struct profconv_ctx *ctx, const struct profconv_profile *p,
				     const char *format, const char *path)
{
	struct pc_output o;
	int err;

	err = write_begin(ctx, p, path, "profconv_write_path");
	if (err)
		return err;
	err = pc_output_open(ctx, path, &o);
	if (err)
		return err;
	pc_snprintf(ctx->activity_buf, sizeof(ctx->activity_buf), "%s: writing", o.name);
	ctx->activity = ctx->activity_buf;
	{
		const struct pc_writer *w = pc_writer_find(format ? format : PROFCONV_OUT_PROCESSED);

		err = w ? write_to(ctx, w, p, compress_for(ctx, path), pc_output_sink(), &o, o.name)
			: pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown output format '%s'",
				  format);
	}
	ctx->activity = NULL;
	return pc_output_close(&o, err);
}

PROFCONV_API int profconv_output_check(struct profconv_ctx *ctx, const char *path)
{
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (!path)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "profconv_output_check: NULL path");
	return pc_output_check(ctx, path);
}

PROFCONV_API const char *profconv_pending_output(const struct profconv_ctx *ctx)
{
	return ctx ? ctx->pending_output : "";
}

/* --- info and validate --- */

/* The checks of the calls that write text to a callback. */
static int text_begin(struct profconv_ctx *ctx, const char *path, profconv_write_fn *fn,
		      const char *name)
{
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (!path || !fn)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "%s: NULL %s", name,
			       path ? "callback" : "path");
	return 0;
}

PROFCONV_API int profconv_info_path(struct profconv_ctx *ctx, const char *path,
				    profconv_write_fn *fn, void *user)
{
	struct pc_text_out o = { fn, user, 0 };
	const struct pc_reader *r;
	struct pc_input *in;
	int err;

	err = text_begin(ctx, path, fn, "profconv_info_path");
	if (err)
		return err;
	err = pc_input_open_path(ctx, path, &in);
	if (err)
		return err;
	err = pick_reader(ctx, in, &r);
	if (!err && !r->info)
		err = pc_fail(ctx, PROFCONV_ERR_UNSUPPORTED, NULL, "%s: no info for %s input", path,
			      r->name);
	if (!err)
		err = r->info(ctx, in, &o);
	pc_input_close(in);
	return err;
}

PROFCONV_API int profconv_blame_path(struct profconv_ctx *ctx, const char *path, int json,
				     profconv_write_fn *fn, void *user)
{
	struct pc_text_out o = { fn, user, 0 };
	struct pc_input *in;
	int err;

	err = text_begin(ctx, path, fn, "profconv_blame_path");
	if (err)
		return err;
	err = pc_input_open_path(ctx, path, &in);
	if (err)
		return err;
	err = pc_chrome_blame(ctx, in, &o, json);
	pc_input_close(in);
	return err;
}

PROFCONV_API int profconv_validate_path(struct profconv_ctx *ctx, const char *path,
					profconv_write_fn *fn, void *user)
{
	struct pc_text_out o = { fn, user, 0 };
	struct pc_input *in;
	int err;

	err = text_begin(ctx, path, fn, "profconv_validate_path");
	if (err)
		return err;
	err = pc_input_open_path(ctx, path, &in);
	if (err)
		return err;
	err = pc_validate(ctx, in, &o);
	pc_input_close(in);
	return err;
}
