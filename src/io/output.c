/* SPDX-License-Identifier: BSD-2-Clause */
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
 * The temporary file's name is kept in the ctx (profconv_pending_output())
 * from its creation (signals blocked in between) until it is renamed or
 * removed, so a signal handler in the program can remove it.
 */
#define _GNU_SOURCE 1 /* mkostemp */
#include "core/pc_config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/pc_output.h"

static int write_all(int fd, const char *b, size_t len)
{
	while (len) {
		ssize_t w = write(fd, b, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Writing on a second thread.  The writers format into a small buffer and
 * hand it to the sink; copying the bytes into the page cache (write(2))
 * took about a tenth of a large conversion, and a second thread can do it
 * while the next bytes are formatted.  The sink gathers bytes into one of
 * OUT_NBUF buffers of OUT_BUF bytes; when one is full it goes to the
 * writing thread, which writes the full buffers in order.  The thread is
 * started by the first full buffer, so a small output is written by
 * pc_output_close() in one write on the caller's thread, as before.  The
 * first failed write is kept and reported as before (o->err, then
 * pc_output_close()); the sink fails from the next full buffer on.
 * The buffers come from the allocator's mapping cache (pc_map_alloc()):
 * the pages of blocks the reader freed, so filling them costs no page
 * faults; 512 KiB, the size of the blocks a reader frees most (the Chrome
 * scanner's batches, tables that doubled to 256 or 512 KiB), where 1 MiB
 * buffers found none to take and faulted in 768 fresh pages.
 */
#define OUT_BUF	 (1u << 19)
#define OUT_NBUF 3

struct pc_out_async {
	char *buf[OUT_NBUF];
	size_t len[OUT_NBUF];
	unsigned fill;	  /* the buffer the sink fills */
	unsigned next;	  /* the next buffer the thread writes */
	unsigned nfull;	  /* buffers handed over and not yet written */
	int running, stop;
	int err;	  /* errno of the first failed write (the thread's) */
	int fd;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_full, cv_free;
};

static void *out_thread(void *arg)
{
	struct pc_out_async *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		unsigned i;
		int e = 0;

		while (!a->nfull && !a->stop)
			pthread_cond_wait(&a->cv_full, &a->mu);
		if (!a->nfull)
			break;
		i = a->next;
		if (!a->err) {
			pthread_mutex_unlock(&a->mu);
			e = write_all(a->fd, a->buf[i], a->len[i]);
			pthread_mutex_lock(&a->mu);
			if (e && !a->err)
				a->err = e;
		}
		a->len[i] = 0;
		a->next = (i + 1) % OUT_NBUF;
		a->nfull--;
		pthread_cond_signal(&a->cv_free);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static void async_free(struct pc_output *o)
{
	struct pc_out_async *a = o->async;
	unsigned i;

	if (!a)
		return;
	if (a->running) {
		pthread_mutex_lock(&a->mu);
		a->stop = 1;
		pthread_cond_signal(&a->cv_full);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->th, NULL);
	}
	pthread_cond_destroy(&a->cv_free);
	pthread_cond_destroy(&a->cv_full);
	pthread_mutex_destroy(&a->mu);
	for (i = 0; i < OUT_NBUF; i++)
		pc_map_free(a->buf[i], OUT_BUF);
	free(a);
	o->async = NULL;
}

/* Set the buffers up; on any failure the sink writes directly (o->async NULL). */
static void async_new(struct pc_output *o)
{
	struct pc_out_async *a;
	unsigned i;

	if (o->ctx->opt.no_threads)
		return; /* "threads" "no": written by the caller */
	a = calloc(1, sizeof(*a));

	if (!a)
		return;
	a->fd = o->fd;
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		free(a);
		return;
	}
	if (pthread_cond_init(&a->cv_full, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		free(a);
		return;
	}
	if (pthread_cond_init(&a->cv_free, NULL) != 0) {
		pthread_cond_destroy(&a->cv_full);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return;
	}
	o->async = a;
	for (i = 0; i < OUT_NBUF; i++) {
		a->buf[i] = pc_map_alloc(OUT_BUF);
		if (!a->buf[i]) {
			async_free(o);
			return;
		}
	}
}

/* Hand the filled buffer to the thread (started now if need be); 0 or an errno. */
static int async_hand_over(struct pc_output *o)
{
	struct pc_out_async *a = o->async;
	int e;

	if (!a->running) {
		if (pthread_create(&a->th, NULL, out_thread, a) != 0) {
			/* no thread: write it here */
			e = write_all(o->fd, a->buf[a->fill], a->len[a->fill]);
			a->len[a->fill] = 0;
			return e;
		}
		a->running = 1;
	}
	pthread_mutex_lock(&a->mu);
	a->nfull++;
	pthread_cond_signal(&a->cv_full);
	while (a->nfull == OUT_NBUF)
		pthread_cond_wait(&a->cv_free, &a->mu);
	a->fill = (a->fill + 1) % OUT_NBUF;
	e = a->err;
	pthread_mutex_unlock(&a->mu);
	return e;
}

/* Write what is buffered and stop the thread; 0 or the first errno. */
static int async_finish(struct pc_output *o)
{
	struct pc_out_async *a = o->async;
	int e = 0;

	if (!a)
		return 0;
	if (a->running) {
		if (a->len[a->fill]) {
			pthread_mutex_lock(&a->mu);
			a->nfull++;
			pthread_cond_signal(&a->cv_full);
			pthread_mutex_unlock(&a->mu);
		}
		pthread_mutex_lock(&a->mu);
		a->stop = 1;
		pthread_cond_signal(&a->cv_full);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->th, NULL);
		a->running = 0;
		e = a->err;
	} else if (a->len[a->fill]) {
		e = write_all(o->fd, a->buf[a->fill], a->len[a->fill]);
	}
	async_free(o);
	return e;
}

static int fd_write(void *user, const void *buf, size_t len)
{
	struct pc_output *o = user;
	struct pc_out_async *a = o->async;
	const char *b = buf;

	if (o->err)
		return -1;
	if (!a) {
		o->err = write_all(o->fd, b, len);
		return o->err ? -1 : 0;
	}
	while (len) {
		size_t n = OUT_BUF - a->len[a->fill];

		if (n > len)
			n = len;
		memcpy(a->buf[a->fill] + a->len[a->fill], b, n);
		a->len[a->fill] += n;
		b += n;
		len -= n;
		if (a->len[a->fill] == OUT_BUF) {
			o->err = async_hand_over(o);
			if (o->err)
				return -1;
		}
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
	sigset_t all, old;
	int err, e;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->ctx = ctx;
	o->name = path;
	ctx->pending_output[0] = 0;
	if (strcmp(path, "-") == 0) {
		o->fd = 1;
		o->direct = 1;
		o->name = "<stdout>";
		async_new(o);
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
		async_new(o);
		return 0;
	}
	/* a symlink is followed: its final target is replaced, not the link */
	if (!realpath(path, o->final))
		pc_snprintf(o->final, sizeof(o->final), "%s", path);
	if (pc_snprintf(o->tmp, sizeof(o->tmp), "%s.tmp-XXXXXX", o->final) >= sizeof(o->tmp) - 1)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "%s: path too long", path);
	/*
	 * No signal handler of this thread runs between the file's creation
	 * and its name's storing: preempted there (right after the open()
	 * returned), a SIGTERM taken on resuming found no name and left the
	 * file behind.  In a program whose signals reach only this thread (a
	 * single conversion) the name is always there for the handler.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	e = errno;
	if (o->fd >= 0)
		pc_snprintf(ctx->pending_output, sizeof(ctx->pending_output), "%s", o->tmp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (o->fd < 0)
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL,
			       "%s: cannot create a temporary file beside it: %s", path,
			       strerror(e));
	async_new(o);
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
	int e = async_finish(o);

	if (e && !o->err)
		o->err = e;
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
