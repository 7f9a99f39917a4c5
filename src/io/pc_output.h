/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_output.h - where output bytes go (see output.c for the rules: stdout,
 * devices and FIFOs in place, symlinks followed, files replaced atomically).
 *
 *	struct pc_output o;
 *	err = pc_output_open(ctx, path, &o);
 *	if (!err)
 *		err = pc_output_close(&o, writer(..., pc_output_sink(), &o));
 */
#ifndef PC_OUTPUT_H
#define PC_OUTPUT_H

#include <limits.h>

#include "core/pc_core.h"

struct pc_output {
	struct profconv_ctx *ctx;
	const char *name; /* for messages */
	int fd;
	int direct;	  /* written in place: nothing to rename */
	int err;	  /* errno of the first failed write */
	struct pc_out_async *async; /* buffers and the writing thread (output.c) */
	char final[PATH_MAX]; /* the file replaced (a symlink's final target) */
	char tmp[PATH_MAX + 16];
};

/* Check path before any work: not empty, not a directory, its directory writable. */
int pc_output_check(struct profconv_ctx *ctx, const char *path);
int pc_output_open(struct profconv_ctx *ctx, const char *path, struct pc_output *o);
/* The write callback to pass with &o as its user pointer. */
profconv_write_fn *pc_output_sink(void);
/*
 * Finish with err, the writer's result: on success the temporary file is
 * renamed into place; on failure it is removed.  A failed write is reported
 * with the path and the system's reason.  Returns the final status.
 */
int pc_output_close(struct pc_output *o, int err);

/*
 * Compressed output (compress.c): a write filter in front of a sink.
 * method is "gzip" or "zstd"; pc_compress_write() takes the handle as its
 * user pointer; pc_compress_close() ends the stream (err: the writer's
 * result) and returns the final status.
 */
struct pc_compress;
int pc_compress_method(const char *name); /* non-zero for "gzip" or "zstd" */
int pc_compress_open(struct profconv_ctx *ctx, const char *method, profconv_write_fn *sink,
		     void *sink_user, struct pc_compress **out);
int pc_compress_write(void *user, const void *buf, size_t len);
int pc_compress_close(struct pc_compress *c, int err);

#endif /* PC_OUTPUT_H */
