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

PROFCONV_API int profconv_set_option(struct profconv_ctx *ctx, const char *key, const char *value)
{
	if (key && value && strcmp(key, "from") == 0 && !pc_reader_find(value)) {
		char names[256];
		size_t i, n = 0;

		names[0] = 0;
		for (i = 0; pc_readers[i]; i++)
			n += pc_snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
					 pc_readers[i]->name);
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown input format '%s' (known: %s)",
			       value, names);
	}
	return pc_ctx_set_option(ctx, key, value);
}

static int pick_reader(struct profconv_ctx *ctx, struct pc_input *in,
		       const struct pc_reader **out)
{
	const unsigned char *peek;
	size_t n;

	*out = NULL;
	if (ctx->from[0]) {
		*out = pc_reader_find(ctx->from);
		if (!*out)
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown input format '%s'",
				       ctx->from);
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
		return pc_fail_at(ctx, PROFCONV_ERR_UNRECOGNIZED, pc_input_name(in), 0,
				  "unrecognized format%s%s: first bytes %s; expected perf.data (\"PERFILE2\") or a processed or Gecko profile (JSON); use --from to force a format",
				  pc_input_filter(in) ? " inside " : "",
				  pc_input_filter(in) ? pc_input_filter(in) : "", first);
	}
	return 0;
}

static int read_input(struct profconv_ctx *ctx, struct pc_input *in,
		      struct profconv_profile **out)
{
	const struct pc_reader *r;
	struct pc_model *m;
	int err;

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
	err = r->read(ctx, in, m);
	if (!err && ctx->status)
		err = ctx->status;
	/* "symbolicate" = "always": also inputs that say they are (frames that
	 * already have a native symbol are left alone by pc_symbolicate()) */
	if (!err && !ctx->no_symbols && (ctx->symbolicate_always || !m->meta.symbolicated)) {
		pc_snprintf(ctx->activity_buf, sizeof(ctx->activity_buf), "%s: symbolicating",
			    pc_input_name(in));
		err = pc_symbolicate(ctx, m);
	}
	ctx->activity = NULL;
	if (err) {
		pc_model_free(m);
		return err;
	}
	*out = (struct profconv_profile *)m;
	return 0;
}

PROFCONV_API int profconv_read_path(struct profconv_ctx *ctx, const char *path,
				    struct profconv_profile **out)
{
	struct pc_input *in;
	int err;

	*out = NULL;
	pc_clear_error(ctx);
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

	*out = NULL;
	pc_clear_error(ctx);
	err = pc_input_open_fd(ctx, fd, name ? name : "<fd>", &in);
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

PROFCONV_API int profconv_write_cb(struct profconv_ctx *ctx, const struct profconv_profile *p,
				   const char *format, profconv_write_fn *fn, void *user)
{
	const struct pc_writer *w = pc_writer_find(format ? format : PROFCONV_OUT_PROCESSED);

	pc_clear_error(ctx);
	if (!w)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown output format '%s'", format);
	return w->write(ctx, &p->m, fn, user);
}

PROFCONV_API int profconv_write_path(struct profconv_ctx *ctx, const struct profconv_profile *p,
				     const char *format, const char *path)
{
	struct pc_output o;
	int err;

	pc_clear_error(ctx);
	err = pc_output_open(ctx, path, &o);
	if (err)
		return err;
	pc_snprintf(ctx->activity_buf, sizeof(ctx->activity_buf), "%s: writing", o.name);
	ctx->activity = ctx->activity_buf;
	err = profconv_write_cb(ctx, p, format, pc_output_sink(), &o);
	ctx->activity = NULL;
	return pc_output_close(&o, err);
}

PROFCONV_API int profconv_output_check(struct profconv_ctx *ctx, const char *path)
{
	pc_clear_error(ctx);
	return pc_output_check(ctx, path);
}

PROFCONV_API const char *profconv_pending_output(const struct profconv_ctx *ctx)
{
	return ctx->pending_output;
}

/* --- views --- */

PROFCONV_API size_t profconv_profile_thread_count(const struct profconv_profile *p)
{
	return p->m.nthreads;
}

PROFCONV_API const char *profconv_profile_thread_name(const struct profconv_profile *p, size_t i)
{
	if (i >= p->m.nthreads)
		return NULL;
	return pc_str(&p->m, p->m.threads[i]->name);
}

PROFCONV_API int64_t profconv_profile_thread_pid(const struct profconv_profile *p, size_t i)
{
	return i < p->m.nthreads ? p->m.threads[i]->pid : -1;
}

PROFCONV_API int64_t profconv_profile_thread_tid(const struct profconv_profile *p, size_t i)
{
	return i < p->m.nthreads ? p->m.threads[i]->tid : -1;
}

PROFCONV_API size_t profconv_profile_sample_count(const struct profconv_profile *p, size_t i)
{
	return i < p->m.nthreads ? p->m.threads[i]->samples.len : 0;
}

PROFCONV_API size_t profconv_profile_stack_count(const struct profconv_profile *p)
{
	return p->m.stacks.len;
}

PROFCONV_API size_t profconv_profile_frame_count(const struct profconv_profile *p)
{
	return p->m.frames.len;
}

PROFCONV_API size_t profconv_profile_func_count(const struct profconv_profile *p)
{
	return p->m.funcs.len;
}

PROFCONV_API size_t profconv_profile_lib_count(const struct profconv_profile *p)
{
	return p->m.libs.len;
}

PROFCONV_API size_t profconv_profile_func_map(const struct profconv_profile *p,
					      const uint32_t **map)
{
	*map = p->m.func_map;
	return p->m.func_map_len;
}

PROFCONV_API const char *profconv_profile_func_name(const struct profconv_profile *p, size_t i)
{
	if (i >= p->m.funcs.len)
		return NULL;
	return pc_str(&p->m, p->m.funcs.name[i]);
}

/* --- info and validate --- */

PROFCONV_API int profconv_info_path(struct profconv_ctx *ctx, const char *path,
				    profconv_write_fn *fn, void *user)
{
	struct pc_text_out o = { fn, user, 0 };
	const struct pc_reader *r;
	struct pc_input *in;
	int err;

	pc_clear_error(ctx);
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

PROFCONV_API int profconv_validate_path(struct profconv_ctx *ctx, const char *path,
					profconv_write_fn *fn, void *user)
{
	struct pc_text_out o = { fn, user, 0 };
	struct pc_input *in;
	int err;

	pc_clear_error(ctx);
	err = pc_input_open_path(ctx, path, &in);
	if (err)
		return err;
	err = pc_validate(ctx, in, &o);
	pc_input_close(in);
	return err;
}
