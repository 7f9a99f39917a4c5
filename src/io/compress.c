/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * compress.c - gzip or zstd output in the same streaming pass: a filter
 * between a writer's profconv_write_fn and the sink, through libarchive's
 * write side (the "raw" format: one stream, no archive around it).
 *
 * Determinism: the gzip header carries no name and no time ("!timestamp"),
 * so the same profile gives the same bytes; zstd frames carry neither.
 * The Firefox Profiler opens gzip files directly: its loader checks the
 * gzip magic and decompresses before parsing (isGzip() in src/utils/gz.ts,
 * called from src/profile-logic/process-profile.ts, production branch, checked
 * 2026-08-10; a .json.gz loads in its own loading code here).
 */
#include "core/pc_config.h"

#include <errno.h>

#include "io/pc_output.h"
#include "io/pc_libarchive.h"

struct pc_compress {
	struct profconv_ctx *ctx;
	struct archive *a;
	profconv_write_fn *sink;
	void *sink_user;
	int sink_failed;
	const char *method;
};

static la_ssize_t to_sink(struct archive *a, void *user, const void *buf, size_t len)
{
	struct pc_compress *c = user;

	(void)a;
	if (c->sink(c->sink_user, buf, len)) {
		c->sink_failed = 1;
		archive_set_error(a, EIO, "write failed");
		return -1;
	}
	return (la_ssize_t)len;
}

int pc_compress_method(const char *name)
{
	return name && (strcmp(name, "gzip") == 0 || strcmp(name, "zstd") == 0);
}

int pc_compress_open(struct profconv_ctx *ctx, const char *method, profconv_write_fn *sink,
		     void *sink_user, struct pc_compress **out)
{
	struct pc_compress *c = pc_calloc(ctx, 1, sizeof(*c));
	struct archive_entry *e = NULL;
	int r;

	*out = NULL;
	if (!c)
		return PROFCONV_ERR_NOMEM;
	c->ctx = ctx;
	c->sink = sink;
	c->sink_user = sink_user;
	c->method = strcmp(method, "zstd") == 0 ? "zstd" : "gzip";
	r = pc_libarchive_need(ctx, strcmp(c->method, "zstd") == 0 ? "zstd compression"
								 : "gzip compression");
	if (r) {
		pc_free(ctx, c);
		return r;
	}
	c->a = archive_write_new();
	if (!c->a)
		goto nomem;
	r = strcmp(c->method, "zstd") == 0 ? archive_write_add_filter_zstd(c->a)
					    : archive_write_add_filter_gzip(c->a);
	if (r != ARCHIVE_OK)
		goto fail;
	if (strcmp(c->method, "gzip") == 0 &&
	    archive_write_set_filter_option(c->a, "gzip", "timestamp", NULL) < ARCHIVE_WARN)
		goto fail;
	if (archive_write_set_format_raw(c->a) != ARCHIVE_OK)
		goto fail;
	/* no padding to a block size: the stream ends where the data does */
	archive_write_set_bytes_in_last_block(c->a, 1);
	if (archive_write_open2(c->a, c, NULL, to_sink, NULL, NULL) != ARCHIVE_OK)
		goto fail;
	e = archive_entry_new();
	if (!e)
		goto nomem;
	archive_entry_set_filetype(e, AE_IFREG);
	if (archive_write_header(c->a, e) != ARCHIVE_OK)
		goto fail;
	archive_entry_free(e);
	*out = c;
	return 0;

fail:
	r = pc_fail(ctx, PROFCONV_ERR_INTERNAL, NULL, "%s compression could not start: %s",
		    c->method, archive_error_string(c->a) ? archive_error_string(c->a) : "?");
	archive_entry_free(e);
	archive_write_free(c->a);
	pc_free(ctx, c);
	return r;
nomem:
	archive_entry_free(e);
	if (c->a)
		archive_write_free(c->a);
	pc_free(ctx, c);
	return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
}

int pc_compress_write(void *user, const void *buf, size_t len)
{
	struct pc_compress *c = user;

	while (len) {
		la_ssize_t n = archive_write_data(c->a, buf, len);

		if (n <= 0)
			return -1;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

int pc_compress_close(struct pc_compress *c, int err)
{
	struct profconv_ctx *ctx;

	if (!c)
		return err;
	ctx = c->ctx;
	if (archive_write_close(c->a) != ARCHIVE_OK && !err)
		err = c->sink_failed ? PROFCONV_ERR_IO
				     : pc_fail(ctx, PROFCONV_ERR_INTERNAL, NULL,
					       "%s compression failed: %s", c->method,
					       archive_error_string(c->a) ? archive_error_string(c->a)
									  : "?");
	if (c->sink_failed && !err)
		err = PROFCONV_ERR_IO;
	archive_write_free(c->a);
	pc_free(ctx, c);
	return err;
}
