/*
 * output.c - where a profile is written: standard output, a device or FIFO
 * written in place, or a file that appears whole or not at all.
 *
 *   "-"                       standard output
 *   an existing device, FIFO  opened and written directly (never replaced:
 *   or socket                 as root, -o /dev/null must stay /dev/null)
 *   a symlink                 followed; its final target is what is written
 *   anything else             a temporary file beside the (final) target,
 *                             renamed over it only once complete
 *
 * The temporary file's name is kept in the ctx (pc_output_pending()) from
 * before the first byte is written until it is renamed or removed, so a
 * signal handler in the program can remove it.
 */
#include "core/pc_config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/pc_output.h"

static int fd_write(void *user, const void *buf, size_t len)
{
	struct pc_output *o = user;
	const char *b = buf;

	while (len) {
		ssize_t w = write(o->fd, b, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : ENOSPC;
			return -1;
		}
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The directory part of path ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		pc_snprintf(dir, size, ".");
	else if (slash == path)
		pc_snprintf(dir, size, "/");
	else
		pc_snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

int pc_output_check(struct profconv_ctx *ctx, const char *path)
{
	char dir[PATH_MAX], full[PATH_MAX];
	struct stat st;

	if (!path || !*path)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "the output path is empty");
	if (strcmp(path, "-") == 0)
		return 0;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "%s: is a directory (give a file name)", path);
		if (!S_ISREG(st.st_mode))
			return access(path, W_OK) == 0
				       ? 0
				       : pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: cannot write: %s",
						 path, strerror(errno));
	} else if (errno != ENOENT) {
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: %s", path, strerror(errno));
	}
	/* a new or regular file: its directory must take a temporary file */
	if (!realpath(path, full)) /* a new file, or a dangling link */
		pc_snprintf(full, sizeof(full), "%s", path);
	dir_of(full, dir, sizeof(dir));
	if (stat(dir, &st) != 0)
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: the directory %s: %s", path, dir,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: %s is not a directory", path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: cannot create files in %s: %s", path,
			       dir, strerror(errno));
	return 0;
}

int pc_output_open(struct profconv_ctx *ctx, const char *path, struct pc_output *o)
{
	struct stat st;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->ctx = ctx;
	o->name = path;
	ctx->pending_output[0] = 0;
	if (strcmp(path, "-") == 0) {
		o->fd = 1;
		o->direct = 1;
		o->name = "<stdout>";
		return 0;
	}
	err = pc_output_check(ctx, path);
	if (err)
		return err;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device, FIFO or socket (through any links): write in place */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: cannot open: %s", path,
				       strerror(errno));
		o->direct = 1;
		return 0;
	}
	/* a symlink is followed: its final target is replaced, not the link */
	if (!realpath(path, o->final))
		pc_snprintf(o->final, sizeof(o->final), "%s", path);
	if (pc_snprintf(o->tmp, sizeof(o->tmp), "%s.tmp-XXXXXX", o->final) >= sizeof(o->tmp) - 1)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "%s: path too long", path);
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0)
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL,
			       "%s: cannot create a temporary file beside it: %s", path,
			       strerror(errno));
	pc_snprintf(ctx->pending_output, sizeof(ctx->pending_output), "%s", o->tmp);
	return 0;
}

profconv_write_fn *pc_output_sink(void)
{
	return fd_write;
}

/* The error of a failed write, with the path, in place of the writer's. */
static int write_error(struct pc_output *o, int err)
{
	if (o->err) {
		pc_clear_error(o->ctx);
		err = pc_fail(o->ctx, PROFCONV_ERR_IO, NULL, "%s: write failed: %s", o->name,
			      strerror(o->err));
	}
	return err;
}

int pc_output_close(struct pc_output *o, int err)
{
	struct profconv_ctx *ctx = o->ctx;

	err = write_error(o, err);
	if (o->direct) {
		if (o->fd > 2 && close(o->fd) != 0 && !err)
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: write failed: %s", o->name,
				      strerror(errno));
		return err;
	}
	if (!err && fchmod(o->fd, 0644) != 0)
		err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: chmod failed: %s", o->name,
			      strerror(errno));
	if (close(o->fd) != 0 && !err)
		err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: write failed: %s", o->name,
			      strerror(errno));
	if (!err && rename(o->tmp, o->final) != 0)
		err = pc_fail(ctx, PROFCONV_ERR_IO, NULL,
			      "%s: cannot rename the finished output into place: %s", o->name,
			      strerror(errno));
	if (err)
		unlink(o->tmp);
	ctx->pending_output[0] = 0;
	return err;
}
