/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctx.c - the context: options, the first error, counted warnings and the
 * counting allocator.
 *
 * Message shapes (GNU "file:pos: message", so editors and CI parse them):
 *   binary input:  "perf.data: offset 0x1a2b: sample record (size 0x28) overruns ..."
 *   text input:    "trace.json:81234:17: expected ',' or '}' after object member"
 *   no location:   the message alone.
 *
 * Allocations carry a 16-byte header holding their size, so the running
 * total and the limit are exact.  PC_FAULT_ALLOC=N in the environment makes
 * the N-th allocation fail (fault-injection tests).
 */
#define _GNU_SOURCE 1 /* mremap */
#include "core/pc_core.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define PC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PC_ASAN 1
#endif
#endif
#ifdef PC_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define HDR 16

static const char *const status_names[] = {
	"ok",
	"out of memory",
	"I/O error",
	"unrecognized input format",
	"corrupt input",
	"unsupported input",
	"limit exceeded",
	"usage error",
	"internal error",
	"warning made fatal by --strict",
	"invalid profile",
	"cancelled",
};

PROFCONV_API const char *profconv_strerror(int status)
{
	unsigned primary = (unsigned)status & 0xffu;

	if (primary < PC_ARRAY_SIZE(status_names))
		return status_names[primary];
	return "unknown error";
}

PROFCONV_API int profconv_version_number(void)
{
	return PROFCONV_VERSION_NUMBER;
}

PROFCONV_API const char *profconv_version_string(void)
{
	return PROFCONV_VERSION_STRING;
}

/* Contexts alive; the last one freed empties the mapping cache. */
static unsigned live_ctx;

PROFCONV_API struct profconv_ctx *profconv_ctx_new(void)
{
	struct profconv_ctx *ctx = calloc(1, sizeof(*ctx));
	const char *fault;

	if (!ctx)
		return NULL;
	__atomic_add_fetch(&live_ctx, 1, __ATOMIC_RELAXED);
	ctx->mem_limit = (uint64_t)8 << 30;
	fault = getenv("PC_FAULT_ALLOC");
	if (fault) {
		char *end;

		errno = 0;
		ctx->fault_alloc = strtol(fault, &end, 10);
		if (errno || *end)
			ctx->fault_alloc = 0;
	}
	return ctx;
}

static void options_free(struct pc_options *o);

PROFCONV_API void profconv_ctx_free(struct profconv_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->symcache && ctx->symcache_release)
		ctx->symcache_release(ctx->symcache);
	options_free(&ctx->opt);
	free(ctx);
	if (__atomic_sub_fetch(&live_ctx, 1, __ATOMIC_ACQ_REL) == 0)
		pc_map_cache_flush();
}

PROFCONV_API const char *profconv_errmsg(const struct profconv_ctx *ctx)
{
	return ctx ? ctx->errmsg : "no context (NULL, or profconv_ctx_new() ran out of memory)";
}

PROFCONV_API void profconv_set_diagnostics(struct profconv_ctx *ctx, profconv_diagnostic_fn *fn,
					   void *user)
{
	if (!ctx)
		return;
	ctx->diag2 = fn;
	ctx->diag2_user = user;
	ctx->legacy_diag = NULL;
	ctx->legacy_user = NULL;
}

/*
 * The 0.1 callback through the one diagnostics callback: notes, warnings
 * and the problems profconv_validate_path() finds (errors with
 * PROFCONV_ERR_INVALID); the error a call fails with is read with
 * profconv_errmsg(), as before.
 */
static void legacy_adapter(void *user, const struct profconv_diag *d)
{
	const struct profconv_ctx *ctx = user;

	if (d->severity != PROFCONV_ERROR || d->code == PROFCONV_ERR_INVALID)
		ctx->legacy_diag(ctx->legacy_user, d->severity, d->message);
}

PROFCONV_API void profconv_set_diag(struct profconv_ctx *ctx, profconv_diag_fn *fn, void *user)
{
	if (!ctx)
		return;
	ctx->diag2 = fn ? legacy_adapter : NULL;
	ctx->diag2_user = ctx;
	ctx->legacy_diag = fn;
	ctx->legacy_user = user;
}

/*
 * Fill a caller's sized struct: check out's size member (at least min, the
 * PROFCONV_0 size), copy the first size bytes of full (the library's
 * struct of full_size bytes) over it, keep its size and zero what a newer
 * caller's struct has beyond full_size.  0 or PROFCONV_ERR_USAGE.
 */
int pc_api_fill(void *out, const void *full, size_t full_size, size_t min)
{
	size_t size;

	if (!out)
		return PROFCONV_ERR_USAGE;
	memcpy(&size, out, sizeof(size));
	if (size < min || size > ((size_t)1 << 16))
		return PROFCONV_ERR_USAGE;
	memcpy((char *)out + sizeof(size), (const char *)full + sizeof(size),
	       (size < full_size ? size : full_size) - sizeof(size));
	if (size > full_size)
		memset((char *)out + full_size, 0, size - full_size);
	return 0;
}

PROFCONV_API int profconv_last_error(const struct profconv_ctx *ctx, struct profconv_diag *out)
{
	struct profconv_diag d;

	if (!ctx)
		return PROFCONV_ERR_USAGE;
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.severity = PROFCONV_ERROR;
	d.code = ctx->status;
	d.id = ctx->status ? profconv_code_id(ctx->status) : "ok";
	d.file = ctx->err_file[0] ? ctx->err_file : NULL;
	d.offset = ctx->err_offset;
	d.line = ctx->err_line;
	d.column = ctx->err_col;
	d.message = ctx->errmsg;
	return pc_api_fill(out, &d, sizeof(d), sizeof(d));
}

/* Pass a diagnostic to the callback. */
static void emit(struct profconv_ctx *ctx, enum profconv_severity sev, int code, const char *id,
		 const char *kind, const struct pc_loc *loc, const char *msg)
{
	struct profconv_diag d;

	if (!ctx->diag2)
		return;
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.severity = sev;
	d.code = code;
	d.id = id ? id : profconv_code_id(code);
	if (!d.id)
		d.id = "unknown";
	d.kind = kind;
	d.offset = UINT64_MAX;
	if (loc && loc->path) {
		d.file = loc->path;
		d.offset = loc->offset;
		d.line = loc->line;
		d.column = loc->col;
	}
	d.message = msg;
	ctx->diag2(ctx->diag2_user, &d);
}

int pc_diag_error(struct profconv_ctx *ctx, const char *msg)
{
	emit(ctx, PROFCONV_ERROR, PROFCONV_ERR_INVALID, NULL, NULL, NULL, msg);
	return 0;
}

int pc_diag_warning(struct profconv_ctx *ctx, const char *msg)
{
	emit(ctx, PROFCONV_WARNING, PC_WARN_VALIDATE, NULL, NULL, NULL, msg);
	return 0;
}

int pc_has_diag(const struct profconv_ctx *ctx)
{
	return ctx->diag2 != NULL;
}

PROFCONV_API void profconv_set_strict(struct profconv_ctx *ctx, int strict)
{
	if (ctx)
		ctx->strict = strict;
}

PROFCONV_API void profconv_set_verbose(struct profconv_ctx *ctx, int verbose)
{
	if (ctx)
		ctx->verbose = verbose;
}

PROFCONV_API void profconv_set_max_memory(struct profconv_ctx *ctx, uint64_t bytes)
{
	if (ctx)
		ctx->mem_limit = bytes;
}

static int copy_opt(char *dst, size_t cap, const char *value)
{
	size_t n = strlen(value);

	if (n >= cap)
		return -1;
	memcpy(dst, value, n + 1);
	return 0;
}

static int yes_no(struct profconv_ctx *ctx, const char *key, const char *value, const char *yes,
		  const char *no, int *out)
{
	if (strcmp(value, yes) == 0)
		*out = 1;
	else if (strcmp(value, no) == 0)
		*out = 0;
	else
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "option '%s' takes '%s' or '%s', not '%s'",
			       key, yes, no, value);
	return 0;
}

/*
 * The options are the caller's settings, not conversion memory: they are
 * allocated with malloc, outside the limit and the count that must return
 * to zero when every profile is freed.
 */
static int push_str(struct profconv_ctx *ctx, char ***arr, unsigned *n, const char *value)
{
	char **d = realloc(*arr, (*n + 1) * sizeof(*d));
	char *v = strdup(value);

	if (d)
		*arr = d;
	if (!d || !v) {
		free(v);
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	}
	(*arr)[(*n)++] = v;
	return 0;
}

int pc_ctx_set_option(struct profconv_ctx *ctx, const char *key, const char *value)
{
	struct pc_options *o = &ctx->opt;

	if (!key || !value)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "option key and value must be set");
	if (strcmp(key, "from") == 0) {
		if (copy_opt(o->from, sizeof(o->from), value))
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown input format '%s'",
				       value);
		return 0;
	}
	if (strcmp(key, "symbols") == 0)
		return yes_no(ctx, key, value, "yes", "no", &o->symbols);
	if (strcmp(key, "symbolicate") == 0)
		return yes_no(ctx, key, value, "always", "auto", &o->symbolicate_always);
	if (strcmp(key, "compress") == 0) {
		if (strcmp(value, "auto") == 0) {
			o->compress[0] = 0;
			return 0;
		}
		if (strcmp(value, "none") && strcmp(value, "gzip") && strcmp(value, "zstd"))
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "--compress takes 'gzip', 'zstd', 'none' or 'auto', not '%s'",
				       value);
		copy_opt(o->compress, sizeof(o->compress), value);
		return 0;
	}
	if (strcmp(key, "threads") == 0) {
		int yes = 1, err = yes_no(ctx, key, value, "yes", "no", &yes);

		o->no_threads = !yes;
		return err;
	}
	if (strcmp(key, "input-map") == 0)
		return yes_no(ctx, key, value, "yes", "no", &o->input_map);
	if (strcmp(key, "host-symbols") == 0) {
		int yes = 1, err = yes_no(ctx, key, value, "yes", "no", &yes);

		o->no_host_symbols = !yes;
		return err;
	}
	if (strcmp(key, "symbol-dir") == 0)
		return push_str(ctx, &o->symbol_dirs, &o->nsymbol_dirs, value);
	if (strcmp(key, "symbol-cache") == 0) {
		char *v = value[0] ? strdup(value) : NULL;

		if (value[0] && !v)
			return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		free(o->symbol_cache);
		o->symbol_cache = v;
		return 0;
	}
	if (strcmp(key, "kallsyms") == 0) {
		char *v = strdup(value);

		if (!v)
			return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		free(o->kallsyms);
		o->kallsyms = v;
		return 0;
	}
	return 1;
}

int pc_opt_put(struct profconv_ctx *ctx, const char *key, const char *value)
{
	struct pc_options *o = &ctx->opt;
	struct pc_kv *kv;
	char *k, *v;
	unsigned i;

	for (i = 0; i < o->nfmt; i++) {
		if (strcmp(o->fmt[i].key, key) == 0) {
			v = strdup(value);
			if (!v)
				return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
			free(o->fmt[i].value);
			o->fmt[i].value = v;
			return 0;
		}
	}
	kv = realloc(o->fmt, (o->nfmt + 1) * sizeof(*kv));
	if (!kv)
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	o->fmt = kv;
	k = strdup(key);
	v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	}
	kv[o->nfmt].key = k;
	kv[o->nfmt].value = v;
	o->nfmt++;
	return 0;
}

const char *pc_opt(const struct profconv_ctx *ctx, const char *key)
{
	unsigned i;

	for (i = 0; i < ctx->opt.nfmt; i++)
		if (strcmp(ctx->opt.fmt[i].key, key) == 0)
			return ctx->opt.fmt[i].value;
	return NULL;
}

static void options_free(struct pc_options *o)
{
	unsigned i;

	for (i = 0; i < o->nsymbol_dirs; i++)
		free(o->symbol_dirs[i]);
	free(o->symbol_dirs);
	free(o->kallsyms);
	free(o->symbol_cache);
	for (i = 0; i < o->nfmt; i++) {
		free(o->fmt[i].key);
		free(o->fmt[i].value);
	}
	free(o->fmt);
	memset(o, 0, sizeof(*o));
}

int pc_options_copy(struct profconv_ctx *dst, const struct profconv_ctx *src)
{
	const struct pc_options *s = &src->opt;
	struct pc_options *d = &dst->opt;
	unsigned i;
	int err = 0;

	options_free(d);
	memcpy(d->from, s->from, sizeof(d->from));
	d->symbols = s->symbols;
	d->symbolicate_always = s->symbolicate_always;
	d->no_host_symbols = s->no_host_symbols;
	d->no_threads = s->no_threads;
	memcpy(d->compress, s->compress, sizeof(d->compress));
	for (i = 0; i < s->nsymbol_dirs && !err; i++)
		err = push_str(dst, &d->symbol_dirs, &d->nsymbol_dirs, s->symbol_dirs[i]);
	if (!err && s->kallsyms) {
		d->kallsyms = strdup(s->kallsyms);
		if (!d->kallsyms)
			err = PROFCONV_ERR_NOMEM;
	}
	if (!err && s->symbol_cache) {
		d->symbol_cache = strdup(s->symbol_cache);
		if (!d->symbol_cache)
			err = PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < s->nfmt && !err; i++)
		err = pc_opt_put(dst, s->fmt[i].key, s->fmt[i].value);
	if (err)
		options_free(d);
	return err;
}

size_t pc_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = 0;
		return 0;
	}
	return (size_t)n < size ? (size_t)n : size - 1;
}

static size_t format_loc(char *buf, size_t cap, const struct pc_loc *loc)
{
	if (!loc || !loc->path)
		return 0;
	if (loc->line)
		return pc_snprintf(buf, cap, "%s:%u:%u: ", loc->path, loc->line, loc->col);
	if (loc->offset != PC_NO_OFFSET)
		return pc_snprintf(buf, cap, "%s: offset 0x%llx: ", loc->path,
				   (unsigned long long)loc->offset);
	return pc_snprintf(buf, cap, "%s: ", loc->path);
}

static void vformat(char *buf, size_t cap, const struct pc_loc *loc, const char *fmt, va_list ap)
	PC_PRINTF(4, 0);

static void vformat(char *buf, size_t cap, const struct pc_loc *loc, const char *fmt, va_list ap)
{
	size_t n = format_loc(buf, cap, loc);

	if (n < cap)
		vsnprintf(buf + n, cap - n, fmt, ap);
}

static int vfail(struct profconv_ctx *ctx, int code, const struct pc_loc *loc, const char *fmt,
		 va_list ap) PC_PRINTF(4, 0);

static int vfail(struct profconv_ctx *ctx, int code, const struct pc_loc *loc, const char *fmt,
		 va_list ap)
{
	if (ctx->status)
		return code; /* the first error wins */
	ctx->status = code;
	vformat(ctx->errmsg, sizeof(ctx->errmsg), loc, fmt, ap);
	ctx->err_file[0] = 0;
	ctx->err_offset = UINT64_MAX;
	ctx->err_line = ctx->err_col = 0;
	if (loc && loc->path) {
		pc_snprintf(ctx->err_file, sizeof(ctx->err_file), "%s", loc->path);
		ctx->err_offset = loc->offset;
		ctx->err_line = loc->line;
		ctx->err_col = loc->col;
	}
	emit(ctx, PROFCONV_ERROR, code, NULL, NULL, loc, ctx->errmsg);
	return code;
}

int pc_fail(struct profconv_ctx *ctx, int code, const struct pc_loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ctx, code, loc, fmt, ap);
	va_end(ap);
	return code;
}

int pc_fail_at(struct profconv_ctx *ctx, int code, const char *path, uint64_t offset,
	       const char *fmt, ...)
{
	struct pc_loc loc = { path, offset, 0, 0 };
	va_list ap;

	va_start(ap, fmt);
	vfail(ctx, code, &loc, fmt, ap);
	va_end(ap);
	return code;
}

struct profconv_ctx *pc_ctx_worker(const struct profconv_ctx *parent)
{
	struct profconv_ctx *w = profconv_ctx_new();

	if (!w)
		return NULL;
	w->mem_limit = 0;
	w->strict = parent->strict;
	return w;
}

int pc_ctx_adopt(struct profconv_ctx *dst, struct profconv_ctx *w)
{
	unsigned i;
	int err = 0, werr = w->status;

	/* unsigned: a block allocated on one and freed on the other balances out */
	dst->mem_used += w->mem_used;
	if (dst->mem_used > dst->mem_peak && dst->mem_used < (uint64_t)1 << 62)
		dst->mem_peak = dst->mem_used;
	w->mem_used = 0;
	for (i = 0; i < w->nwarns && !err; i++)
		err = pc_warn_n(dst, w->warns[i].kind, w->warns[i].count, NULL, "%s",
				w->warns[i].kind);
	w->nwarns = 0;
	w->warn_total = 0;
	if (w->status && !dst->status) {
		struct pc_loc loc = { dst->err_file, w->err_offset, w->err_line, w->err_col };

		pc_snprintf(dst->err_file, sizeof(dst->err_file), "%s", w->err_file);
		dst->status = w->status;
		pc_snprintf(dst->errmsg, sizeof(dst->errmsg), "%s", w->errmsg);
		dst->err_offset = w->err_offset;
		dst->err_line = w->err_line;
		dst->err_col = w->err_col;
		emit(dst, PROFCONV_ERROR, dst->status, NULL, NULL, dst->err_file[0] ? &loc : NULL,
		     dst->errmsg);
	}
	return werr ? werr : err;
}

void pc_clear_error(struct profconv_ctx *ctx)
{
	ctx->status = 0;
	ctx->errmsg[0] = 0;
	ctx->err_file[0] = 0;
}

static struct pc_warn_kind *warn_kind(struct profconv_ctx *ctx, const char *kind)
{
	unsigned i;

	for (i = 0; i < ctx->nwarns; i++)
		if (ctx->warns[i].kind == kind || strcmp(ctx->warns[i].kind, kind) == 0)
			return &ctx->warns[i];
	if (ctx->nwarns == PC_MAX_WARN_KINDS)
		return &ctx->warns[PC_MAX_WARN_KINDS - 1];
	ctx->warns[ctx->nwarns].kind = kind;
	ctx->warns[ctx->nwarns].count = 0;
	ctx->warns[ctx->nwarns].id = pc_warn_code(kind, &ctx->warns[ctx->nwarns].code);
	return &ctx->warns[ctx->nwarns++];
}

static int vwarn(struct profconv_ctx *ctx, const char *kind, uint64_t n, const struct pc_loc *loc,
		 const char *fmt, va_list ap) PC_PRINTF(5, 0);

static int vwarn(struct profconv_ctx *ctx, const char *kind, uint64_t n, const struct pc_loc *loc,
		 const char *fmt, va_list ap)
{
	struct pc_warn_kind *k;
	char msg[1024];

	if (!n)
		return 0;
	k = warn_kind(ctx, kind);
	if (ctx->strict) {
		vfail(ctx, PROFCONV_ERR_STRICT, loc, fmt, ap);
		return PROFCONV_ERR_STRICT;
	}
	if (k->count == 0 && ctx->diag2) {
		vformat(msg, sizeof(msg), loc, fmt, ap);
		emit(ctx, PROFCONV_WARNING, k->code, k->id, k->kind, loc, msg);
	}
	k->count += n;
	ctx->warn_total += n;
	return 0;
}

int pc_warn(struct profconv_ctx *ctx, const char *kind, const struct pc_loc *loc, const char *fmt,
	    ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vwarn(ctx, kind, 1, loc, fmt, ap);
	va_end(ap);
	return r;
}

int pc_warn_n(struct profconv_ctx *ctx, const char *kind, uint64_t n, const struct pc_loc *loc,
	      const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vwarn(ctx, kind, n, loc, fmt, ap);
	va_end(ap);
	return r;
}

void pc_note(struct profconv_ctx *ctx, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!ctx->verbose || !ctx->diag2)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(ctx, PROFCONV_NOTE, 0, "note", NULL, NULL, msg);
}

PROFCONV_API uint64_t profconv_warning_count(const struct profconv_ctx *ctx)
{
	return ctx ? ctx->warn_total : 0;
}

PROFCONV_API int profconv_warning_kind(const struct profconv_ctx *ctx, size_t i,
				       const char **kind, uint64_t *count)
{
	size_t k, seen = 0;

	if (!ctx || !kind || !count)
		return PROFCONV_ERR_USAGE;
	for (k = 0; k < ctx->nwarns; k++) {
		if (!ctx->warns[k].count)
			continue;
		if (seen++ == i) {
			*kind = ctx->warns[k].kind;
			*count = ctx->warns[k].count;
			return PROFCONV_OK;
		}
	}
	return PROFCONV_ERR_USAGE;
}

PROFCONV_API int profconv_warning_get(const struct profconv_ctx *ctx, size_t i,
				      struct profconv_warning *out)
{
	struct profconv_warning w;
	size_t k, seen = 0;

	if (!ctx || !out)
		return PROFCONV_ERR_USAGE;
	for (k = 0; k < ctx->nwarns; k++) {
		if (!ctx->warns[k].count || seen++ != i)
			continue;
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		w.code = ctx->warns[k].code;
		w.id = ctx->warns[k].id;
		w.kind = ctx->warns[k].kind;
		w.count = ctx->warns[k].count;
		return pc_api_fill(out, &w, sizeof(w), sizeof(w));
	}
	return PROFCONV_ERR_USAGE;
}

PROFCONV_API void profconv_set_progress(struct profconv_ctx *ctx, profconv_progress_fn *fn,
					void *user)
{
	if (!ctx)
		return;
	ctx->progress = fn;
	ctx->progress_user = user;
}

PROFCONV_API void profconv_set_cancel(struct profconv_ctx *ctx, profconv_cancel_fn *fn, void *user)
{
	if (!ctx)
		return;
	ctx->cancel = fn;
	ctx->cancel_user = user;
}

int pc_cancelled(struct profconv_ctx *ctx, const char *path, uint64_t offset)
{
	if (ctx->status == PROFCONV_ERR_CANCELLED)
		return PROFCONV_ERR_CANCELLED;
	if (!ctx->cancel || !ctx->cancel(ctx->cancel_user))
		return 0;
	return pc_fail_at(ctx, PROFCONV_ERR_CANCELLED, path, offset,
			  "cancelled by the caller (the cancel callback returned non-zero)");
}

PROFCONV_API const char *profconv_warning_summary(struct profconv_ctx *ctx)
{
	size_t n = 0;
	unsigned i;

	if (!ctx)
		return "";
	ctx->summary[0] = 0;
	for (i = 0; i < ctx->nwarns; i++) {
		if (!ctx->warns[i].count)
			continue;
		n += pc_snprintf(ctx->summary + n, sizeof(ctx->summary) - n, "%s%llu %s",
				 n ? "; " : "", (unsigned long long)ctx->warns[i].count,
				 ctx->warns[i].kind);
	}
	return ctx->summary;
}

void pc_text_printf(struct pc_text_out *o, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;
	if (o->fn(o->user, buf, (size_t)n))
		o->err = PROFCONV_ERR_IO;
}

/* --- allocation --- */

static int nomem(struct profconv_ctx *ctx, size_t size)
{
	if (ctx->mem_limit && ctx->mem_used + size > ctx->mem_limit)
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL,
			       "%s%smemory limit of %llu KiB reached with %llu KiB in use (asked for %zu more bytes); raise it with --max-memory",
			       ctx->activity ? ctx->activity : "", ctx->activity ? ": " : "",
			       (unsigned long long)(ctx->mem_limit >> 10),
			       (unsigned long long)(ctx->mem_used >> 10), size);
	return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "%s%sout of memory (asked for %zu bytes)",
		       ctx->activity ? ctx->activity : "", ctx->activity ? ": " : "", size);
}

static int may_alloc(struct profconv_ctx *ctx, size_t size)
{
	if (ctx->fault_alloc && ++ctx->alloc_count == ctx->fault_alloc)
		return 0;
	if (size > SIZE_MAX - HDR)
		return 0;
	return !ctx->mem_limit || ctx->mem_used + size <= ctx->mem_limit;
}

/*
 * Big blocks (the stack hash index, the sample, frame and stack columns and
 * the callchain cache of a large recording) are mapped by us rather than
 * malloc'd:
 *   - growing one is mremap(), which moves page tables, not bytes (glibc's
 *     realloc copies such blocks once its mmap threshold has risen past
 *     them, and every copy touches fresh pages);
 *   - they ask for transparent huge pages (where the system leaves THP to
 *     madvise), so filling one costs a few page faults instead of one per
 *     4 KiB, which on a virtual machine cost more than the work itself.
 * Both are invisible to callers; a failed madvise changes nothing.
 * The 16-byte header holds the size and whether the block is mapped.
 */
#define BIG_MIN ((size_t)1 << 17)
#define KIND_HEAP 0
#define KIND_MAP  0x4d4150 /* "MAP" */

#define HUGE_SZ ((size_t)2 << 20)

/* Mapped length: pages, and whole huge pages from 2 MiB on. */
static size_t map_len(size_t size)
{
	size_t n = (size + HDR + 4095) & ~(size_t)4095;

	return n >= HUGE_SZ ? (n + HUGE_SZ - 1) & ~(HUGE_SZ - 1) : n;
}

/*
 * len bytes of fresh anonymous memory; from 2 MiB on, aligned to 2 MiB so
 * that huge pages cover all of it (an unaligned mapping gets 4 KiB pages at
 * both ends: up to a thousand page faults each).  NULL on failure.
 */
static unsigned char *map_fresh(size_t len)
{
	size_t extra = len >= HUGE_SZ ? HUGE_SZ : 0;
	unsigned char *p, *a;

	if (len > SIZE_MAX - extra)
		return NULL;
	p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (unsigned char *)(((uintptr_t)p + extra - 1) & ~(uintptr_t)(extra ? extra - 1 : 0));
	if (!extra)
		a = p;
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + len + extra > a + len)
		munmap(a + len, (size_t)(p + len + extra - (a + len)));
	return a;
}

/* The whole mapping, so that it stays one VMA (mremap() cannot move a
 * range that spans mappings of different flags).  Not below 2 MiB: no huge
 * page fits in such a mapping, and a small conversion maps several (the
 * system call, and another VMA split, for nothing); growing one past 2 MiB
 * moves it to a fresh mapping that is advised then. */
static void advise_huge(void *p, size_t len)
{
#if defined(MADV_HUGEPAGE)
	if (len >= HUGE_SZ)
		madvise(p, len, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

static void set_hdr(unsigned char *b, size_t size, uint64_t kind)
{
	memcpy(b, &size, sizeof(size));
	memcpy(b + 8, &kind, sizeof(kind));
}

static void get_hdr(const unsigned char *b, size_t *size, uint64_t *kind)
{
	memcpy(size, b, sizeof(*size));
	memcpy(kind, b + 8, sizeof(*kind));
}

/*
 * A mapped block that grew keeps room to grow again where it is: its
 * mapping is longer than map_len(size) (the pages past it are mapped but
 * never touched, so they cost no memory), and the kind word holds the
 * mapping's length in pages above the KIND_MAP tag.  Growing into that
 * room is no system call at all, where moving the pages (mremap()) flushes
 * the old range from every CPU the process runs on: an inter-processor
 * interrupt for each, the caller waiting for them, which on a virtual
 * machine costs more than the move (14 such moves in a conversion of the
 * 13 MB Chrome trace, most of them the scanner's growing scratch).  Only
 * below 2 MiB: those mappings never ask for huge pages, so the room is
 * never filled by khugepaged; a block that reaches 2 MiB is moved into a
 * mapping of its size as before.
 */
#define KIND_TAG(k) ((k) & 0xffffffu)
#define RESV_GROW   4 /* room: this many times the size the block grew to */

static size_t map_resv(size_t size, uint64_t kind)
{
	size_t r = (size_t)(kind >> 24) << 12;

	return r > map_len(size) ? r : map_len(size);
}

static uint64_t map_kind(size_t resv)
{
	return KIND_MAP | ((uint64_t)(resv >> 12) << 24);
}

/* The mapping's length for a block growing to size bytes. */
static size_t resv_len(size_t size)
{
	size_t n = map_len(size);

	if (n >= HUGE_SZ / RESV_GROW)
		return n < HUGE_SZ ? HUGE_SZ - 4096 : n;
	return n * RESV_GROW;
}

/*
 * The mapping cache: big blocks freed are kept mapped, up to CACHE_MAX
 * bytes in CACHE_SLOTS mappings, and the next big block (or output buffer,
 * pc_map_alloc()) of at most their size takes one, so that its pages are
 * there already.  A conversion frees its reader's state (the Chrome
 * scanner's batches, the tokenizer's and hash tables' blocks) and then
 * allocates its writer's (sort buffers, output buffers, the writer
 * helper's results) of the same sizes: each fresh page is a page fault,
 * which on a virtual machine costs 2-4 us.  On the real Chrome trace that
 * took 5,100 page faults to 3,800, on a system-wide perf recording 16,700
 * to 11,900, on deep.data 9,300 to 7,500.  A 16 MiB cache took the last
 * two to 10,400 and 6,500 but added 5-7 MB to their peak (8 MiB: 4.7 MB
 * on the first, none on the second).  (Huge pages for blocks of
 * 128 KiB to 2 MiB, the rest of each in the cache, took the faults to 1,300
 * but not the time on that machine; see the slabs below for one where they
 * do.)  What is left of a slab when the next piece does not fit comes here
 * too.  Best fit; a larger mapping is split, its tail going back to the
 * cache whatever its size (64 slots: unmapping the small tails, and the
 * writer helper's buffers that found no slot when 32 were full, made 30 of
 * the 60 munmap() calls of a conversion of the real Chrome trace, each
 * while other threads ran).  A miss takes nothing out (cache_take()), so
 * the peak holds at most CACHE_MAX more.  The cache is process-wide (one
 * mutex; big blocks are few) and emptied when the last context is freed,
 * so a program that is done with the library keeps nothing.  Under
 * AddressSanitizer the cached bytes are poisoned, so a use after free is
 * still caught as the munmap() would have caught it.
 */
#define CACHE_SLOTS 64
#define CACHE_MAX   ((size_t)8 << 20)

static struct {
	unsigned char *p;
	size_t len;
} cache[CACHE_SLOTS];
static unsigned ncache;
static size_t cache_bytes;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * Slabs: new blocks below 2 MiB are pieces cut, in order, from one 2 MiB
 * mapping (2 MiB-aligned, asking for a huge page) at a time, and a piece
 * that grows is copied into a bigger piece, from pages that are there
 * already; what is left of a slab when the next piece does not fit goes to
 * the cache.  One page fault for 2 MiB instead of 512: on a
 * paravirtualized machine where a fault costs 11.5 us and a huge page the
 * host backed before 0.28 us per 4 KiB (2026-11-27), the real Chrome
 * trace's conversion went from 4,100 page faults to 1,700 and from 89 to
 * 76 ms (the 20 s system-wide recording, --no-symbols: 6,500 to 3,400,
 * 178 to 162 ms; deep.data 5,200 to 2,800, 182 to 173 ms).  On the machine
 * of the earlier rounds (faults of 2-4 us) clearing a huge page cost about
 * what its 512 faults had: no gain, no loss.
 * Only the first PC_SLAB_MAX slabs (counted again once the cache is emptied):
 * a slab is resident as a whole once touched, with the capacity a growing
 * column does not use yet, where past them a block grows into room that
 * is never touched until used (map_resv()).  Slabs for every block took
 * the peak of the 1 GiB tiling of the Chrome fixture from 349 to 384 MiB;
 * with eight it stays where it was (349-357 MiB in three runs each), and
 * the real trace's goes from 16 to 22 MiB.
 * Under the cache's mutex.
 */
static unsigned char *slab;
static size_t slab_left;
static unsigned slabs_cut;

static void poison(void *p, size_t len)
{
#ifdef PC_ASAN
	ASAN_POISON_MEMORY_REGION(p, len);
#else
	(void)p;
	(void)len;
#endif
}

static void unpoison(void *p, size_t len)
{
#ifdef PC_ASAN
	ASAN_UNPOISON_MEMORY_REGION(p, len);
#else
	(void)p;
	(void)len;
#endif
}

/* Remove cache entry i, keeping the others in the order they came. */
static void cache_drop(unsigned i)
{
	cache_bytes -= cache[i].len;
	memmove(&cache[i], &cache[i + 1], (ncache - i - 1) * sizeof(cache[0]));
	__atomic_store_n(&ncache, ncache - 1, __ATOMIC_RELAXED);
}

/*
 * A cached mapping of len bytes (2 MiB-aligned when len is 2 MiB or more),
 * or NULL.  A miss leaves the cache as it is (a full cache makes room as
 * the next mapping comes in, cache_put()).  It used to unmap the oldest
 * entries, len bytes of them, so that what the program no longer asks for
 * would not add to its peak; but each such munmap() of touched pages, while
 * other threads run, makes every CPU they run on flush its TLB (an
 * interrupt the caller waits for), and on a machine whose page tables the
 * hypervisor keeps that cost more than anything the cache saved
 * (2026-11-28, 41 alternating runs on the real 13 MB Chrome trace: 30 of
 * its 53 munmap() calls, 60.9 -> 48.6 ms; the 260 MiB tiling 687 -> 642 ms,
 * deep.data 192 -> 180 ms, the 20 s system-wide recording 211 -> 183 ms).
 * The peak grows by what the cache holds, CACHE_MAX at most: 1 to 5.5 MiB
 * on those inputs (the 1 GiB tiling 357 -> 362 MiB).
 */
static unsigned char *cache_take(size_t len)
{
	unsigned char *p = NULL;
	size_t have;
	unsigned i, best = CACHE_SLOTS;

	if (!__atomic_load_n(&ncache, __ATOMIC_RELAXED))
		return NULL;
	pthread_mutex_lock(&cache_mu);
	for (i = 0; i < ncache; i++) {
		if (cache[i].len < len ||
		    (len >= HUGE_SZ && ((uintptr_t)cache[i].p & (HUGE_SZ - 1))))
			continue;
		if (best == CACHE_SLOTS || cache[i].len < cache[best].len)
			best = i;
	}
	if (best < CACHE_SLOTS) {
		p = cache[best].p;
		have = cache[best].len;
		cache_drop(best);
		if (have > len) {
			/* kept whatever its size (a slot is free: best's):
			 * scratch buffers (pc_map_alloc()) take small ones,
			 * and an munmap() of touched pages while other
			 * threads run makes each of their CPUs flush its
			 * TLB (an interrupt the caller waits for) */
			cache[ncache].p = p + len;
			cache[ncache].len = have - len;
			__atomic_store_n(&ncache, ncache + 1, __ATOMIC_RELAXED);
			cache_bytes += have - len;
		}
	}
	pthread_mutex_unlock(&cache_mu);
	if (p)
		unpoison(p, len);
	return p;
}

/*
 * Keep a freed mapping of len bytes in the cache, the oldest entries
 * unmapped to make room if it is full; or unmap it (more than half the
 * cache).  Unmapping the newest instead, as before, left a cache that two
 * conversions at once (a batch's two jobs) had filled with pieces neither
 * asked for again: every later block mapped afresh and every free
 * unmapped (100 munmap() calls in a 50-file batch against 45).
 */
static void cache_put(unsigned char *p, size_t len)
{
	unsigned i, nev = 0;
	struct {
		unsigned char *p;
		size_t len;
	} ev[CACHE_SLOTS];

	if (len > CACHE_MAX / 2) {
		munmap(p, len);
		return;
	}
	poison(p, len); /* before another thread can take it */
	pthread_mutex_lock(&cache_mu);
	while (ncache && (ncache == CACHE_SLOTS || cache_bytes + len > CACHE_MAX)) {
		ev[nev].p = cache[0].p;
		ev[nev++].len = cache[0].len;
		cache_drop(0);
	}
	cache[ncache].p = p;
	cache[ncache].len = len;
	__atomic_store_n(&ncache, ncache + 1, __ATOMIC_RELAXED);
	cache_bytes += len;
	pthread_mutex_unlock(&cache_mu);
	for (i = 0; i < nev; i++) {
		unpoison(ev[i].p, ev[i].len);
		munmap(ev[i].p, ev[i].len);
	}
}

void pc_map_cache_flush(void)
{
	unsigned i, n;
	struct {
		unsigned char *p;
		size_t len;
	} out[CACHE_SLOTS + 1];

	pthread_mutex_lock(&cache_mu);
	n = ncache;
	memcpy(out, cache, n * sizeof(out[0]));
	__atomic_store_n(&ncache, 0, __ATOMIC_RELAXED);
	cache_bytes = 0;
	if (slab_left) {
		out[n].p = slab;
		out[n++].len = slab_left;
	}
	slab = NULL;
	slab_left = 0;
	slabs_cut = 0;
	pthread_mutex_unlock(&cache_mu);
	for (i = 0; i < n; i++) {
		unpoison(out[i].p, out[i].len);
		munmap(out[i].p, out[i].len);
	}
}

/*
 * A slab's piece of len bytes (pages, below 2 MiB), never used before;
 * NULL when the slabs are all cut (or on failure).
 */
static unsigned char *slab_take(size_t len)
{
	unsigned char *p = NULL, *fresh = NULL, *rest = NULL;
	size_t nrest = 0;

	pthread_mutex_lock(&cache_mu);
	if (slab_left < len && slabs_cut < PC_SLAB_MAX) {
		pthread_mutex_unlock(&cache_mu);
		fresh = map_fresh(HUGE_SZ);
		if (!fresh)
			return NULL;
		advise_huge(fresh, HUGE_SZ);
		pthread_mutex_lock(&cache_mu);
		if (slab_left < len && slabs_cut < PC_SLAB_MAX) {
			rest = slab;
			nrest = slab_left;
			slab = fresh;
			slab_left = HUGE_SZ;
			slabs_cut++;
			fresh = NULL;
		}
	}
	if (slab_left >= len) {
		p = slab;
		slab += len;
		slab_left -= len;
	}
	pthread_mutex_unlock(&cache_mu);
	if (fresh) /* (another thread cut one meanwhile) */
		munmap(fresh, HUGE_SZ);
	if (nrest)
		cache_put(rest, nrest);
	return p;
}

/* len bytes of fresh (zeroed) mapped memory: a slab's piece, or a mapping
 * of its own (advised from 2 MiB on).  NULL on failure. */
static unsigned char *map_new(size_t len)
{
	unsigned char *b = len < HUGE_SZ ? slab_take(len) : NULL;

	if (b)
		return b;
	b = map_fresh(len);
	if (b)
		advise_huge(b, len);
	return b;
}

/* len bytes of mapped memory: cached, or new. NULL on failure. */
static unsigned char *map_block(size_t len)
{
	unsigned char *b = cache_take(len);

	return b ? b : map_new(len);
}

/* Scratch mappings' length: pages, and whole huge pages from 2 MiB on. */
static size_t scratch_len(size_t len)
{
	size_t n = (len + 4095) & ~(size_t)4095;

	return n >= HUGE_SZ ? (n + HUGE_SZ - 1) & ~(HUGE_SZ - 1) : n;
}

void *pc_map_alloc(size_t len)
{
	if (!len || len > SIZE_MAX - HUGE_SZ)
		return NULL;
	return map_block(scratch_len(len));
}

void *pc_map_realloc(void *p, size_t old, size_t len)
{
	unsigned char *nb;

	if (!p)
		return pc_map_alloc(len);
	if (len <= old || scratch_len(len) == scratch_len(old))
		return p;
	nb = pc_map_alloc(len);
	if (nb) {
		memcpy(nb, p, old);
		pc_map_free(p, old);
	}
	return nb;
}

void pc_map_free(void *p, size_t len)
{
	if (p)
		cache_put(p, scratch_len(len));
}

/*
 * A new block of size bytes (header included in neither), or NULL; zeroed
 * if zero (a fresh mapping is, a cached one is cleared).
 */
static unsigned char *raw_alloc(size_t size, int zero)
{
	unsigned char *b;

	if (size < BIG_MIN) {
		b = malloc(size + HDR);
		if (b)
			set_hdr(b, size, KIND_HEAP);
		return b;
	}
	b = cache_take(map_len(size));
	if (b) {
		if (zero)
			memset(b + HDR, 0, size);
	} else {
		b = map_new(map_len(size));
		if (!b)
			return NULL;
	}
	set_hdr(b, size, KIND_MAP);
	return b;
}

static void raw_free(unsigned char *b)
{
	size_t size;
	uint64_t kind;

	get_hdr(b, &size, &kind);
	if (KIND_TAG(kind) == KIND_MAP) {
		size_t used = map_len(size), resv = map_resv(size, kind);

		/* the room was never touched: no TLB entry to flush */
		if (resv > used)
			munmap(b + used, resv - used);
		cache_put(b, used);
	} else {
		free(b);
	}
}

static void *counted_alloc(struct profconv_ctx *ctx, size_t size, int zero)
{
	unsigned char *p;

	if (!may_alloc(ctx, size)) {
		nomem(ctx, size);
		return NULL;
	}
	p = raw_alloc(size, zero);
	if (!p) {
		nomem(ctx, size);
		return NULL;
	}
	ctx->mem_used += size;
	if (ctx->mem_used > ctx->mem_peak)
		ctx->mem_peak = ctx->mem_used;
	return p + HDR;
}

void *pc_alloc(struct profconv_ctx *ctx, size_t size)
{
	return counted_alloc(ctx, size, 0);
}

void *pc_calloc(struct profconv_ctx *ctx, size_t n, size_t size)
{
	unsigned char *p;

	if (size && n > SIZE_MAX / size) {
		nomem(ctx, SIZE_MAX);
		return NULL;
	}
	p = counted_alloc(ctx, n * size, 1);
	if (p && n * size < BIG_MIN) /* mapped blocks come zeroed */
		memset(p, 0, n * size);
	return p;
}

void pc_free(struct profconv_ctx *ctx, void *p)
{
	unsigned char *b = p;
	size_t size;
	uint64_t kind;

	if (!p)
		return;
	b -= HDR;
	get_hdr(b, &size, &kind);
	ctx->mem_used -= size;
	raw_free(b);
}

void *pc_realloc(struct profconv_ctx *ctx, void *p, size_t size)
{
	unsigned char *b, *nb;
	size_t old, resv = 0;
	uint64_t kind;

	if (!p)
		return pc_alloc(ctx, size);
	b = (unsigned char *)p - HDR;
	get_hdr(b, &old, &kind);
	if (size > old && !may_alloc(ctx, size - old)) {
		nomem(ctx, size - old);
		return NULL;
	}
#ifdef MREMAP_MAYMOVE
	if (KIND_TAG(kind) == KIND_MAP && size >= BIG_MIN) {
		size_t oresv = map_resv(old, kind);

		resv = oresv;
		nb = NULL;
		if (map_len(size) <= map_len(old)) {
			nb = b;
			if (map_len(size) < map_len(old)) { /* shrink: give the room back too */
				nb = mremap(b, oresv, map_len(size), 0);
				resv = map_len(size);
				if (nb == MAP_FAILED)
					nb = NULL;
			}
		} else if (map_len(size) < HUGE_SZ && (nb = cache_take(map_len(size))) != NULL) {
			/* below 2 MiB, into a cached mapping if there is one
			 * (before the room: its pages would be touched afresh
			 * while the cached ones wait): copying the old bytes
			 * costs less than faulting in the new pages, and the old
			 * ones go to the cache */
			memcpy(nb, b, HDR + old);
			raw_free(b);
			resv = map_len(size);
		} else if (map_len(size) <= oresv) {
			nb = b; /* into the room */
		} else if (map_len(size) < HUGE_SZ && (nb = slab_take(map_len(size))) != NULL) {
			/* into a slab's piece, likewise */
			memcpy(nb, b, HDR + old);
			raw_free(b);
			resv = map_len(size);
		} else {
			/* move the pages into a fresh aligned range (no copy), with
			 * room to grow there */
			unsigned char *to;

			resv = resv_len(size);
			to = map_fresh(resv);
			if (!to) {
				resv = map_len(size);
				to = map_fresh(resv);
			}
			if (to) {
				nb = mremap(b, oresv, resv, MREMAP_MAYMOVE | MREMAP_FIXED, to);
				if (nb == MAP_FAILED) {
					munmap(to, resv);
					nb = NULL;
				} else {
					advise_huge(nb, resv);
				}
			}
		}
	} else
#endif
	if (kind == KIND_HEAP && size < BIG_MIN) {
		nb = realloc(b, size + HDR);
	} else {
		/* crossing BIG_MIN: a new block of the other kind */
		nb = raw_alloc(size, 0);
		if (nb) {
			memcpy(nb + HDR, p, old < size ? old : size);
			raw_free(b);
		}
	}
	if (!nb) {
		nomem(ctx, size);
		return NULL;
	}
	set_hdr(nb, size, size >= BIG_MIN ? map_kind(resv) : KIND_HEAP);
	ctx->mem_used = ctx->mem_used - old + size;
	if (ctx->mem_used > ctx->mem_peak)
		ctx->mem_peak = ctx->mem_used;
	return nb + HDR;
}

char *pc_strndup(struct profconv_ctx *ctx, const char *s, size_t len)
{
	char *p = pc_alloc(ctx, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

char *pc_strdup(struct profconv_ctx *ctx, const char *s)
{
	return pc_strndup(ctx, s, strlen(s));
}

int pc_grow(struct profconv_ctx *ctx, void **arr, size_t elem, uint32_t *cap, size_t need)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX - 1)
		return pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL, "table over 2^32 rows");
	ncap = *cap ? (size_t)*cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX - 1)
		ncap = UINT32_MAX - 1;
	if (ncap > SIZE_MAX / elem)
		return nomem(ctx, SIZE_MAX);
	p = pc_realloc(ctx, *arr, ncap * elem);
	if (!p)
		return PROFCONV_ERR_NOMEM;
	*arr = p;
	*cap = (uint32_t)ncap;
	return 0;
}
