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
#include "core/pc_core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

PROFCONV_API struct profconv_ctx *profconv_ctx_new(void)
{
	struct profconv_ctx *ctx = calloc(1, sizeof(*ctx));
	const char *fault;

	if (!ctx)
		return NULL;
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

PROFCONV_API void profconv_ctx_free(struct profconv_ctx *ctx)
{
	unsigned i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nsymbol_dirs; i++)
		pc_free(ctx, ctx->symbol_dirs[i]);
	pc_free(ctx, ctx->symbol_dirs);
	pc_free(ctx, ctx->kallsyms);
	free(ctx);
}

PROFCONV_API const char *profconv_errmsg(const struct profconv_ctx *ctx)
{
	return ctx ? ctx->errmsg : "out of memory";
}

PROFCONV_API void profconv_set_diag(struct profconv_ctx *ctx, profconv_diag_fn *fn, void *user)
{
	ctx->diag = fn;
	ctx->diag_user = user;
}

PROFCONV_API void profconv_set_strict(struct profconv_ctx *ctx, int strict)
{
	ctx->strict = strict;
}

PROFCONV_API void profconv_set_verbose(struct profconv_ctx *ctx, int verbose)
{
	ctx->verbose = verbose;
}

PROFCONV_API void profconv_set_max_memory(struct profconv_ctx *ctx, uint64_t bytes)
{
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

int pc_ctx_set_option(struct profconv_ctx *ctx, const char *key, const char *value)
{
	if (!key || !value)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "option key and value must be set");
	if (strcmp(key, "from") == 0) {
		if (copy_opt(ctx->from, sizeof(ctx->from), value))
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown input format '%s'",
				       value);
		return 0;
	}
	if (strcmp(key, "event") == 0) {
		if (copy_opt(ctx->event, sizeof(ctx->event), value))
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "event name too long");
		return 0;
	}
	if (strcmp(key, "weight") == 0) {
		if (strcmp(value, "samples") == 0)
			ctx->weight = PC_WEIGHT_SAMPLES;
		else if (strcmp(value, "period") == 0)
			ctx->weight = PC_WEIGHT_PERIOD;
		else
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "--weight takes 'samples' or 'period', not '%s'", value);
		return 0;
	}
	if (strcmp(key, "processed-version") == 0) {
		if (strcmp(value, "69") == 0)
			ctx->processed_version = 69;
		else if (strcmp(value, "70") == 0)
			ctx->processed_version = 70;
		else
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "--processed-version takes 69 or 70, not '%s'", value);
		return 0;
	}
	if (strcmp(key, "symbols") == 0) {
		if (strcmp(value, "yes") == 0)
			ctx->no_symbols = 0;
		else if (strcmp(value, "no") == 0)
			ctx->no_symbols = 1;
		else
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "option 'symbols' takes 'yes' or 'no', not '%s'", value);
		return 0;
	}
	if (strcmp(key, "symbolicate") == 0) {
		if (strcmp(value, "always") == 0)
			ctx->symbolicate_always = 1;
		else if (strcmp(value, "auto") == 0)
			ctx->symbolicate_always = 0;
		else
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "option 'symbolicate' takes 'always' or 'auto', not '%s'", value);
		return 0;
	}
	if (strcmp(key, "symbol-dir") == 0) {
		char **d = pc_realloc(ctx, ctx->symbol_dirs, (ctx->nsymbol_dirs + 1) * sizeof(*d));
		char *v = pc_strdup(ctx, value);

		if (d)
			ctx->symbol_dirs = d;
		if (!d || !v) {
			pc_free(ctx, v);
			return PROFCONV_ERR_NOMEM;
		}
		ctx->symbol_dirs[ctx->nsymbol_dirs++] = v;
		return 0;
	}
	if (strcmp(key, "kallsyms") == 0) {
		char *v = pc_strdup(ctx, value);

		if (!v)
			return PROFCONV_ERR_NOMEM;
		pc_free(ctx, ctx->kallsyms);
		ctx->kallsyms = v;
		return 0;
	}
	return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "unknown option '%s'", key);
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

void pc_clear_error(struct profconv_ctx *ctx)
{
	ctx->status = 0;
	ctx->errmsg[0] = 0;
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
	if (k->count == 0 && ctx->diag) {
		vformat(msg, sizeof(msg), loc, fmt, ap);
		ctx->diag(ctx->diag_user, PROFCONV_WARNING, msg);
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

	if (!ctx->verbose || !ctx->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->diag(ctx->diag_user, PROFCONV_NOTE, msg);
}

PROFCONV_API uint64_t profconv_warning_count(const struct profconv_ctx *ctx)
{
	return ctx->warn_total;
}

PROFCONV_API const char *profconv_warning_summary(struct profconv_ctx *ctx)
{
	size_t n = 0;
	unsigned i;

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

void *pc_alloc(struct profconv_ctx *ctx, size_t size)
{
	unsigned char *p;

	if (!may_alloc(ctx, size)) {
		nomem(ctx, size);
		return NULL;
	}
	p = malloc(size + HDR);
	if (!p) {
		nomem(ctx, size);
		return NULL;
	}
	memcpy(p, &size, sizeof(size));
	ctx->mem_used += size;
	if (ctx->mem_used > ctx->mem_peak)
		ctx->mem_peak = ctx->mem_used;
	return p + HDR;
}

void *pc_calloc(struct profconv_ctx *ctx, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		nomem(ctx, SIZE_MAX);
		return NULL;
	}
	p = pc_alloc(ctx, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void pc_free(struct profconv_ctx *ctx, void *p)
{
	unsigned char *b = p;
	size_t size;

	if (!p)
		return;
	b -= HDR;
	memcpy(&size, b, sizeof(size));
	ctx->mem_used -= size;
	free(b);
}

void *pc_realloc(struct profconv_ctx *ctx, void *p, size_t size)
{
	unsigned char *b, *nb;
	size_t old;

	if (!p)
		return pc_alloc(ctx, size);
	b = (unsigned char *)p - HDR;
	memcpy(&old, b, sizeof(old));
	if (size > old && !may_alloc(ctx, size - old)) {
		nomem(ctx, size - old);
		return NULL;
	}
	nb = realloc(b, size + HDR);
	if (!nb) {
		nomem(ctx, size);
		return NULL;
	}
	memcpy(nb, &size, sizeof(size));
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
