/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * input.c - paths, pipes and memory as one byte stream, with compression
 * and archives undone through libarchive (see pc_input.h).
 *
 *   source --(fd | libarchive entry | memory)--> buf[pos..len) --> reader
 *
 * Compression is detected from magic bytes only.  libarchive is given the
 * bytes already peeked first, then the rest of the fd, through its client
 * read callback, so detection never consumes input.  From a tar, zip or
 * cpio archive the first regular file is read (the one trace it holds).
 */
#define _GNU_SOURCE 1 /* O_TMPFILE, mkostemp */
#include "io/pc_input.h"
#include "io/pc_libarchive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_MAX	 (1u << 20)
#define DETECT	 512
#define PEEK_MIN (256u << 10)
#define RAW_BUFS 65536
/* what pc_input_borrow() maps at a time of a plain regular file */
#define MAP_WINDOW ((size_t)4 << 20)

enum src_kind { SRC_FD, SRC_ARCHIVE, SRC_MEM, SRC_CB };

struct pc_input {
	struct profconv_ctx *ctx;
	char *name;
	enum src_kind kind;
	int fd;
	int own_fd;
	int seekable;
	uint64_t size; /* UINT64_MAX if unknown */
	uint64_t base; /* stream offset of fd offset 0 (after spooling) */
	const char *filter;

	unsigned char *buf; /* peek buffer: bytes [pos, len) are unread */
	size_t pos, len, cap;
	uint64_t offset; /* stream offset of buf[pos] */
	int eof;

	/* libarchive: it reads pre[] first, then the fd */
	struct archive *ar;
	unsigned char *pre;
	size_t pre_len;
	int pre_done;
	unsigned char *raw;

	const unsigned char *mem;
	size_t mem_len;

	/* what libarchive reads from (SRC_FD, SRC_MEM or SRC_CB) */
	enum src_kind raw_kind;
	size_t mem_pos; /* SRC_MEM under libarchive: the next byte it gets */
	profconv_read_fn *cb;
	void *cb_user;

	/* progress: bytes pulled from the underlying file, its size (0 unknown) */
	uint64_t raw_done, raw_total, raw_reported;
	int cancelled; /* the cancel callback asked to stop */

	/*
	 * pc_input_borrow() of a plain regular file: a read-only mapping of
	 * the file bytes [map_off, map_off + map_len), map_window bytes at a
	 * time (0: read() instead), while the file's size and times are what
	 * the open's fstat() gave (f_*).  fd_moved: the fd's offset is not
	 * where the next read() must start (the bytes lent were not read),
	 * so src_read() seeks first.
	 */
	int mappable;
	size_t map_window;
	unsigned char *map;
	size_t map_len;
	uint64_t map_off;
	int fd_moved;
	uint64_t f_size;
	struct timespec f_mtime, f_ctime;
};

#define PROGRESS_STEP (1u << 20)

/*
 * Count n bytes pulled from the source; tell the caller every MiB and ask
 * its cancel callback (a cancel is recorded on the context; the reads then
 * fail with it: cancel_check()).
 */
static void progress(struct pc_input *in, size_t n)
{
	in->raw_done += n;
	if (in->raw_total && in->raw_done > in->raw_total)
		in->raw_done = in->raw_total;
	if ((in->ctx->progress || in->ctx->cancel) &&
	    in->raw_done - in->raw_reported >= PROGRESS_STEP) {
		in->raw_reported = in->raw_done;
		if (in->ctx->progress)
			in->ctx->progress(in->ctx->progress_user, in->raw_done, in->raw_total);
		if (in->ctx->cancel)
			in->cancelled = pc_cancelled(in->ctx, in->name, in->offset) != 0;
	}
}

/* The reads stop once the caller cancelled. */
#define cancel_check(in)                                                                           \
	do {                                                                                       \
		if ((in)->cancelled)                                                               \
			return PROFCONV_ERR_CANCELLED;                                             \
	} while (0)

void pc_input_set_ctx(struct pc_input *in, struct profconv_ctx *ctx)
{
	in->ctx = ctx;
}

int pc_input_any_thread(const struct pc_input *in)
{
	return in->kind != SRC_CB && in->raw_kind != SRC_CB;
}

void pc_input_progress(const struct pc_input *in, uint64_t *done, uint64_t *total)
{
	*done = in->raw_done;
	*total = in->raw_total;
}

const char *pc_input_name(const struct pc_input *in)
{
	return in->name;
}

const char *pc_input_filter(const struct pc_input *in)
{
	return in->filter;
}

uint64_t pc_input_offset(const struct pc_input *in)
{
	return in->offset;
}

int pc_input_can_seek(const struct pc_input *in)
{
	return in->seekable;
}

uint64_t pc_input_size(const struct pc_input *in)
{
	return in->size;
}

static int io_fail(struct pc_input *in, const char *what)
{
	return pc_fail_at(in->ctx, PROFCONV_ERR_IO, in->name, in->offset, "%s: %s", what,
			  strerror(errno));
}

static int fd_read(struct pc_input *in, void *dst, size_t n, size_t *got)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = read(in->fd, (char *)dst + done, n - done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return io_fail(in, "read failed");
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	progress(in, done);
	return 0;
}

/* One read from the caller's callback; -1 with errno set on failure. */
static ssize_t cb_read(struct pc_input *in, void *dst, size_t n)
{
	long r = in->cb(in->cb_user, dst, n);

	if (r < 0 || (size_t)r > n) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)r;
}

/* One read from what is under libarchive. */
static ssize_t raw_read(struct pc_input *in, void *dst, size_t n)
{
	ssize_t r;

	switch (in->raw_kind) {
	case SRC_MEM: {
		size_t k = in->mem_len - in->mem_pos < n ? in->mem_len - in->mem_pos : n;

		memcpy(dst, in->mem + in->mem_pos, k);
		in->mem_pos += k;
		r = (ssize_t)k;
		break;
	}
	case SRC_CB:
		r = cb_read(in, dst, n);
		break;
	default:
		do {
			r = read(in->fd, dst, n);
		} while (r < 0 && errno == EINTR);
	}
	if (r > 0)
		progress(in, (size_t)r);
	return r;
}

static ssize_t ar_read_cb(struct archive *a, void *user, const void **out)
{
	struct pc_input *in = user;
	ssize_t r;

	(void)a;
	if (!in->pre_done) {
		in->pre_done = 1;
		if (in->pre_len) {
			*out = in->pre;
			return (ssize_t)in->pre_len;
		}
	}
	r = raw_read(in, in->raw, RAW_BUFS);
	if (r < 0) {
		archive_set_error(a, errno, "read failed");
		return -1;
	}
	*out = in->raw;
	return r;
}

/* Pull up to n bytes from the underlying source (not the peek buffer). */
static int src_read(struct pc_input *in, void *dst, size_t n, size_t *got)
{
	*got = 0;
	switch (in->kind) {
	case SRC_MEM: {
		uint64_t at = in->offset + (in->len - in->pos);

		if (at < in->mem_len) {
			size_t k = in->mem_len - (size_t)at < n ? in->mem_len - (size_t)at : n;

			memcpy(dst, in->mem + at, k);
			*got = k;
			progress(in, k);
		}
		return 0;
	}
	case SRC_FD:
		if (in->fd_moved) {
			/* after lent bytes: where the stream stands (the peek
			 * buffer is empty then) */
			if (lseek(in->fd, (off_t)(in->offset + (in->len - in->pos) - in->base),
				  SEEK_SET) < 0)
				return io_fail(in, "seek failed");
			in->fd_moved = 0;
		}
		return fd_read(in, dst, n, got);
	case SRC_CB: {
		size_t done = 0;

		while (done < n) {
			ssize_t r = cb_read(in, (char *)dst + done, n - done);

			if (r < 0)
				/* at the first byte it did not deliver */
				return pc_fail_at(in->ctx, PROFCONV_ERR_IO, in->name,
						  in->offset + (in->len - in->pos) + done,
						  "the read callback failed");
			if (r == 0)
				break;
			done += (size_t)r;
		}
		*got = done;
		progress(in, done);
		return 0;
	}
	case SRC_ARCHIVE: {
		size_t done = 0;

		while (done < n) {
			la_ssize_t r = archive_read_data(in->ar, (char *)dst + done, n - done);

			if (r < 0)
				return pc_fail_at(in->ctx, PROFCONV_ERR_CORRUPT, in->name,
						  in->offset + done, "%s data: %s",
						  in->filter ? in->filter : "archive",
						  archive_error_string(in->ar));
			if (r == 0)
				break;
			done += (size_t)r;
		}
		*got = done;
		return 0;
	}
	}
	return 0;
}

const unsigned char *pc_input_peek(struct pc_input *in, size_t want, size_t *avail)
{
	if (want > BUF_MAX)
		want = BUF_MAX;
	while (in->len - in->pos < want && !in->eof) {
		size_t got;

		if (in->pos) {
			memmove(in->buf, in->buf + in->pos, in->len - in->pos);
			in->len -= in->pos;
			in->pos = 0;
		}
		if (in->cap < want || in->cap < PEEK_MIN) {
			size_t ncap = in->cap ? in->cap : PEEK_MIN;
			void *p;

			while (ncap < want)
				ncap *= 2;
			p = pc_realloc(in->ctx, in->buf, ncap);
			if (!p)
				return NULL;
			in->buf = p;
			in->cap = ncap;
		}
		if (src_read(in, in->buf + in->len, in->cap - in->len, &got))
			return NULL;
		if (in->cancelled)
			return NULL;
		if (got == 0)
			in->eof = 1;
		in->len += got;
	}
	*avail = in->len - in->pos;
	return in->buf + in->pos;
}

void pc_input_consume(struct pc_input *in, size_t n)
{
	if (n > in->len - in->pos)
		n = in->len - in->pos;
	in->pos += n;
	in->offset += n;
}

int pc_input_read(struct pc_input *in, void *buf, size_t n, size_t *got)
{
	size_t have = in->len - in->pos, k = have < n ? have : n, more = 0;

	cancel_check(in);
	memcpy(buf, in->buf + in->pos, k);
	in->pos += k;
	in->offset += k;
	if (k < n && !in->eof) {
		/* the buffer is used up: empty, so that it names no stream offsets */
		in->pos = in->len = 0;
		if (src_read(in, (char *)buf + k, n - k, &more))
			return in->ctx->status;
		in->offset += more;
		if (k + more < n)
			in->eof = 1;
	}
	*got = k + more;
	cancel_check(in);
	return 0;
}

/* Drop the window pc_input_borrow() lent from. */
static void unmap_window(struct pc_input *in)
{
	if (in->map) {
		munmap(in->map, in->map_len);
		in->map = NULL;
		in->map_len = 0;
	}
}

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

/*
 * Whether the file is still as the open found it: its size and its
 * modification and change times.  A file written, truncated or grown since
 * is read with read() from then on: a mapping's pages past the end of a
 * file fault with SIGBUS, and read() says where the input ends.
 */
static int file_unchanged(const struct pc_input *in)
{
	struct stat st;

	return fstat(in->fd, &st) == 0 && (uint64_t)st.st_size == in->f_size &&
	       st.st_mtim.tv_sec == in->f_mtime.tv_sec &&
	       st.st_mtim.tv_nsec == in->f_mtime.tv_nsec &&
	       st.st_ctim.tv_sec == in->f_ctime.tv_sec &&
	       st.st_ctim.tv_nsec == in->f_ctime.tv_nsec;
}

/*
 * Map the window of the file that holds file offset fo: from fo's page
 * for map_window bytes, never past the file's size.  0 when mapped; 1 when
 * fo is at or past the end or the file cannot be mapped.
 */
static int map_window(struct pc_input *in, uint64_t fo)
{
	uint64_t at;
	size_t len;
	void *m;

	unmap_window(in);
	if (fo >= in->f_size)
		return 1;
	at = fo - fo % page_size();
	len = in->f_size - at < in->map_window ? (size_t)(in->f_size - at) : in->map_window;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, in->fd, (off_t)at);
	if (m == MAP_FAILED)
		return 1;
	in->map = m;
	in->map_off = at;
	in->map_len = len;
	return 0;
}

int pc_input_lends(const struct pc_input *in)
{
	return in->kind == SRC_FD && in->mappable && in->map_window;
}

void pc_input_set_map_window(struct pc_input *in, size_t bytes)
{
	size_t page = page_size();

	in->map_window = bytes ? (bytes + page - 1) / page * page : 0;
}

int pc_input_borrow(struct pc_input *in, size_t n, const unsigned char **out, size_t *got)
{
	size_t have = in->len - in->pos, k;
	uint64_t fo;

	*out = NULL;
	*got = 0;
	cancel_check(in);
	if (have || in->eof || !pc_input_lends(in)) {
		/* the bytes peeked at open, lent from the peek buffer; at its
		 * end (and for inputs that are not mapped) read() into it */
		const unsigned char *b = have ? in->buf + in->pos : pc_input_peek(in, n, &have);

		if (!b) {
			cancel_check(in);
			return in->ctx->status;
		}
		k = have < n ? have : n;
		*out = b;
		pc_input_consume(in, k);
		*got = k;
		cancel_check(in);
		return 0;
	}
	fo = in->offset - in->base;
	if (!file_unchanged(in) ||
	    ((!in->map || fo < in->map_off || fo >= in->map_off + in->map_len) &&
	     map_window(in, fo))) {
		/* changed since the open, at its end (read() tells whether it
		 * grew) or not mappable: read() from here on */
		unmap_window(in);
		in->map_window = 0;
		return pc_input_borrow(in, n, out, got);
	}
	k = (size_t)(in->map_off + in->map_len - fo);
	if (k > n)
		k = n;
	*out = in->map + (size_t)(fo - in->map_off);
	in->pos = in->len = 0; /* the peek buffer names no stream offsets now */
	in->offset += k;
	in->fd_moved = 1;
	*got = k;
	progress(in, k);
	cancel_check(in);
	return 0;
}

int pc_input_skip(struct pc_input *in, uint64_t n, uint64_t *got)
{
	unsigned char tmp[8192];
	uint64_t done = 0;

	if (in->seekable && n > in->len - in->pos) {
		uint64_t target = in->offset + n, end = in->size;

		if (end != UINT64_MAX && target > end)
			target = end;
		done = target - in->offset;
		*got = done;
		return pc_input_seek(in, target);
	}
	while (done < n) {
		size_t want = n - done < sizeof(tmp) ? (size_t)(n - done) : sizeof(tmp), g = 0;

		if (pc_input_read(in, tmp, want, &g))
			return in->ctx->status;
		done += g;
		if (g < want)
			break;
	}
	*got = done;
	return 0;
}

/* The stream offset of buf[0]. */
static uint64_t buf_start(const struct pc_input *in)
{
	return in->offset - in->pos;
}

/*
 * Whether the n bytes at stream offset off are all in the peek buffer of a
 * seekable file (n = 0: whether off is in it or just after its last byte).
 * The buffer holds [buf_start, buf_start + len), the fd is at its end.
 */
static int in_buffer(const struct pc_input *in, uint64_t off, size_t n)
{
	uint64_t start = buf_start(in);

	return in->kind == SRC_FD && in->seekable && in->len && off >= start &&
	       off - start <= in->len && n <= in->len - (size_t)(off - start);
}

int pc_input_pread(struct pc_input *in, void *buf, size_t n, uint64_t off, size_t *got)
{
	size_t done = 0;

	*got = 0;
	if (!in->seekable)
		return pc_fail(in->ctx, PROFCONV_ERR_INTERNAL, NULL, "pread on a stream");
	if (in->kind == SRC_MEM) {
		if (off < in->mem_len) {
			done = in->mem_len - (size_t)off < n ? in->mem_len - (size_t)off : n;
			memcpy(buf, in->mem + off, done);
		}
		*got = done;
		return 0;
	}
	if (off < in->base)
		return pc_fail(in->ctx, PROFCONV_ERR_INTERNAL, NULL, "pread before spool start");
	if (in_buffer(in, off, n)) {
		/* bytes the peek buffer holds (a small file's header sections):
		 * the same bytes, without a system call */
		memcpy(buf, in->buf + (size_t)(off - buf_start(in)), n);
		*got = n;
		progress(in, n);
		cancel_check(in);
		return 0;
	}
	while (done < n) {
		ssize_t r = pread(in->fd, (char *)buf + done, n - done,
				  (off_t)(off - in->base + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return pc_fail_at(in->ctx, PROFCONV_ERR_IO, in->name, off + done,
					  "read failed: %s", strerror(errno));
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	progress(in, done);
	cancel_check(in);
	return 0;
}

int pc_input_seek(struct pc_input *in, uint64_t off)
{
	if (!in->seekable)
		return pc_fail(in->ctx, PROFCONV_ERR_INTERNAL, NULL, "seek on a stream");
	if (in_buffer(in, off, 0)) {
		/*
		 * Back into what the peek buffer holds (the perf reader goes
		 * back to the data section after the header): the buffer is
		 * kept and the fd stays where its bytes end, so a file the
		 * open read whole is not read again.
		 */
		in->pos = (size_t)(off - buf_start(in));
		in->offset = off;
		return 0;
	}
	in->pos = in->len = 0;
	in->offset = off;
	in->eof = 0;
	if (in->kind == SRC_FD && lseek(in->fd, (off_t)(off - in->base), SEEK_SET) < 0)
		return io_fail(in, "seek failed");
	in->fd_moved = 0;
	return 0;
}

#define W_TRAILING "inputs with trailing bytes (ignored)"

int pc_input_spool(struct pc_input *in)
{
	return pc_input_spool_bounded(in, NULL, NULL);
}

int pc_tmpfile_anon(const char *what)
{
	const char *td = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!td || !*td || strlen(td) > sizeof(path) - 64)
		td = "/tmp";
#ifdef O_TMPFILE
	fd = open(td, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	pc_snprintf(path, sizeof(path), "%s/profconv-%s-XXXXXX", td, what);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int pc_input_spool_bounded(struct pc_input *in, pc_spool_need_fn *need, void *user)
{
	unsigned char *chunk;
	uint64_t base = in->offset, total = 0;
	int fd, err = 0;

	if (in->seekable)
		return 0;
	fd = pc_tmpfile_anon("spool");
	if (fd < 0)
		return io_fail(in, "cannot create a temporary file to spool the input");
	chunk = pc_alloc(in->ctx, RAW_BUFS);
	if (!chunk) {
		close(fd);
		return PROFCONV_ERR_NOMEM;
	}
	for (;;) {
		size_t got, want = RAW_BUFS;
		ssize_t w;
		size_t off = 0;

		if (need) {
			uint64_t n = need(user, fd, total);

			if (total >= n) {
				const unsigned char *more;
				size_t avail = 0;

				/* what the format needs is here: leave the rest unread */
				more = pc_input_peek(in, 1, &avail);
				if (!more) {
					err = in->ctx->status;
					break;
				}
				if (avail)
					err = pc_warn(in->ctx, W_TRAILING,
						      &(struct pc_loc){ in->name, base + total, 0, 0 },
						      "the input goes on after the end of what its format describes (0x%llx bytes); the rest is not read",
						      (unsigned long long)(base + total));
				break;
			}
			if (n - total < want)
				want = (size_t)(n - total);
		}
		if (in->ctx->mem_limit && total + want > in->ctx->mem_limit) {
			err = pc_fail_at(in->ctx, PROFCONV_ERR_LIMIT, in->name, base + total,
					 "stopped copying the input to a temporary file: it would pass the memory limit of %llu MiB (--max-memory), which also caps that copy",
					 (unsigned long long)(in->ctx->mem_limit >> 20));
			break;
		}
		err = pc_input_read(in, chunk, want, &got);
		if (err || got == 0)
			break;
		while (off < got) {
			w = write(fd, chunk + off, got - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				err = io_fail(in, "cannot write the spool file");
				break;
			}
			off += (size_t)w;
		}
		if (err)
			break;
		total += got;
	}
	pc_free(in->ctx, chunk);
	if (err) {
		close(fd);
		return err;
	}
	if (in->ar) {
		archive_read_free(in->ar);
		in->ar = NULL;
	}
	if (in->own_fd)
		close(in->fd);
	in->fd = fd;
	in->own_fd = 1;
	in->kind = SRC_FD;
	in->mappable = 0; /* (the spool file is read) */
	in->seekable = 1;
	in->base = base;
	in->size = base + total;
	in->pos = in->len = 0; /* what is peeked past the spooled bytes is not in the file */
	return pc_input_seek(in, base);
}

static const char *sniff_filter(const unsigned char *p, size_t n)
{
	static const struct {
		const char *name;
		const char *magic;
		size_t len;
	} magics[] = {
		{ "gzip", "\x1f\x8b", 2 },
		{ "xz", "\xfd" "7zXZ\x00", 6 },
		{ "bzip2", "BZh", 3 },
		{ "zstd", "\x28\xb5\x2f\xfd", 4 },
		{ "lz4", "\x04\x22\x4d\x18", 4 },
		{ "lzma", "\x5d\x00\x00", 3 },
		{ "zip", "PK\x03\x04", 4 },
		{ "cpio", "070701", 6 },
	};
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(magics); i++)
		if (n >= magics[i].len && memcmp(p, magics[i].magic, magics[i].len) == 0)
			return magics[i].name;
	if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
		return "tar";
	return NULL;
}

static int open_archive(struct pc_input *in)
{
	struct archive_entry *e;
	int r;

	{
		char what[300];

		pc_snprintf(what, sizeof(what), "%s: reading %s input", in->name, in->filter);
		r = pc_libarchive_need(in->ctx, what);
		if (r)
			return r;
	}
	in->raw = pc_alloc(in->ctx, RAW_BUFS);
	in->ar = archive_read_new();
	if (!in->raw || !in->ar)
		return pc_fail(in->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	archive_read_support_filter_all(in->ar);
	archive_read_support_format_tar(in->ar);
	archive_read_support_format_cpio(in->ar);
	archive_read_support_format_zip(in->ar);
	archive_read_support_format_raw(in->ar);
	if (archive_read_open(in->ar, in, NULL, ar_read_cb, NULL) != ARCHIVE_OK)
		return pc_fail_at(in->ctx, PROFCONV_ERR_CORRUPT, in->name, 0,
				  "cannot read as %s: %s", in->filter, archive_error_string(in->ar));
	for (;;) {
		r = archive_read_next_header(in->ar, &e);
		if (r == ARCHIVE_EOF) {
			int tar = (archive_format(in->ar) & ARCHIVE_FORMAT_BASE_MASK) ==
				  ARCHIVE_FORMAT_TAR;

			if (archive_filter_count(in->ar) > 1) /* compressed, then an archive */
				return pc_fail_at(in->ctx, PROFCONV_ERR_UNRECOGNIZED, in->name, 0,
						  "the %s stream decompresses to %s with no file in it%s",
						  in->filter, tar ? "an empty tar archive" : "an empty archive",
						  tar ? " (a tar end marker; all zero bytes read as one)" : "");
			return pc_fail_at(in->ctx, PROFCONV_ERR_UNRECOGNIZED, in->name, 0,
					  "%s archive holds no regular file", in->filter);
		}
		if (r < ARCHIVE_WARN)
			return pc_fail_at(in->ctx, PROFCONV_ERR_CORRUPT, in->name, 0,
					  "cannot read as %s: %s", in->filter,
					  archive_error_string(in->ar));
		if (archive_format(in->ar) == ARCHIVE_FORMAT_RAW ||
		    archive_entry_filetype(e) == AE_IFREG)
			break;
	}
	if (archive_format(in->ar) != ARCHIVE_FORMAT_RAW) {
		const char *fmt = archive_format_name(in->ar);

		pc_note(in->ctx, "%s: reading %s from the %s archive", in->name,
			archive_entry_pathname(e), fmt);
		if (archive_filter_count(in->ar) <= 1)
			in->filter = archive_format(in->ar) == ARCHIVE_FORMAT_ZIP ? "zip" : "tar";
	}
	in->kind = SRC_ARCHIVE;
	return 0;
}

static int finish_open(struct pc_input *in)
{
	const unsigned char *p;
	size_t n;

	p = pc_input_peek(in, DETECT, &n);
	if (!p)
		return in->ctx->status;
	in->filter = sniff_filter(p, n);
	if (!in->filter)
		return 0;
	in->mappable = 0; /* what is lent is what libarchive undoes */
	in->raw_kind = in->kind;
	in->mem_pos = n; /* memory: the peek read [0, n) */
	/* Hand the peeked bytes to libarchive, then read through it. */
	in->pre = pc_alloc(in->ctx, n ? n : 1);
	if (!in->pre)
		return PROFCONV_ERR_NOMEM;
	memcpy(in->pre, p, n);
	in->pre_len = n;
	in->pos = in->len = 0;
	in->eof = 0;
	in->seekable = 0;
	in->size = UINT64_MAX;
	return open_archive(in);
}

static struct pc_input *new_input(struct profconv_ctx *ctx, const char *name)
{
	struct pc_input *in = pc_calloc(ctx, 1, sizeof(*in));

	if (!in)
		return NULL;
	in->ctx = ctx;
	in->fd = -1;
	in->size = UINT64_MAX;
	{
		/* option "input-map" (off by default: a file cut short while it
		 * is read through the mapping raises SIGBUS, which only a caller
		 * that handles it may risk); PROFCONV_INPUT_MAP=0: read() plain
		 * files even so (to compare) */
		const char *e = getenv("PROFCONV_INPUT_MAP");

		in->map_window = ctx->opt.input_map && !(e && strcmp(e, "0") == 0) ? MAP_WINDOW : 0;
	}
	in->name = pc_strdup(ctx, name);
	if (!in->name) {
		pc_free(ctx, in);
		return NULL;
	}
	return in;
}

static void probe_fd(struct pc_input *in)
{
	struct stat st;

	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t cur = lseek(in->fd, 0, SEEK_CUR);

		in->raw_total = (uint64_t)st.st_size;
		if (cur >= 0) {
			in->mappable = 1;
			in->f_size = (uint64_t)st.st_size;
			in->f_mtime = st.st_mtim;
			in->f_ctime = st.st_ctim;
			in->seekable = 1;
			in->base = 0;
			in->size = (uint64_t)st.st_size;
			if (cur > 0)
				in->offset = (uint64_t)cur;
		}
	}
}

int pc_input_open_fd(struct profconv_ctx *ctx, int fd, const char *name, struct pc_input **out)
{
	struct pc_input *in = new_input(ctx, name);
	int err;

	*out = NULL;
	if (!in)
		return PROFCONV_ERR_NOMEM;
	in->fd = fd;
	in->kind = SRC_FD;
	probe_fd(in);
	err = finish_open(in);
	if (err) {
		pc_input_close(in);
		return err;
	}
	*out = in;
	return 0;
}

int pc_input_open_path(struct profconv_ctx *ctx, const char *path, struct pc_input **out)
{
	struct pc_input *in;
	int fd, err;

	*out = NULL;
	if (strcmp(path, "-") == 0)
		return pc_input_open_fd(ctx, 0, "<stdin>", out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: cannot open: %s", path,
			       strerror(errno));
	{
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			close(fd);
			return pc_fail(ctx, PROFCONV_ERR_UNSUPPORTED, NULL,
				       "%s: is a directory (perf record --threads writes a directory of data files: not supported yet; record without --threads)",
				       path);
		}
	}
	in = new_input(ctx, path);
	if (!in) {
		close(fd);
		return PROFCONV_ERR_NOMEM;
	}
	in->fd = fd;
	in->own_fd = 1;
	in->kind = SRC_FD;
	probe_fd(in);
	err = finish_open(in);
	if (err) {
		pc_input_close(in);
		return err;
	}
	*out = in;
	return 0;
}

int pc_input_open_mem(struct profconv_ctx *ctx, const void *data, size_t len, const char *name,
		      struct pc_input **out)
{
	struct pc_input *in = new_input(ctx, name);
	int err;

	*out = NULL;
	if (!in)
		return PROFCONV_ERR_NOMEM;
	in->kind = SRC_MEM;
	in->mem = data;
	in->mem_len = len;
	in->raw_total = len;
	in->seekable = 1;
	in->size = len;
	err = finish_open(in);
	if (err) {
		pc_input_close(in);
		return err;
	}
	*out = in;
	return 0;
}

int pc_input_open_cb(struct profconv_ctx *ctx, profconv_read_fn *fn, void *user,
		     const char *name, struct pc_input **out)
{
	struct pc_input *in = new_input(ctx, name);
	int err;

	*out = NULL;
	if (!in)
		return PROFCONV_ERR_NOMEM;
	in->kind = SRC_CB;
	in->cb = fn;
	in->cb_user = user;
	err = finish_open(in);
	if (err) {
		pc_input_close(in);
		return err;
	}
	*out = in;
	return 0;
}

void pc_input_close(struct pc_input *in)
{
	struct profconv_ctx *ctx;

	if (!in)
		return;
	ctx = in->ctx;
	if (ctx->progress && in->raw_done != in->raw_reported)
		ctx->progress(ctx->progress_user, in->raw_done, in->raw_total);
	if (in->ar)
		archive_read_free(in->ar);
	unmap_window(in);
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	pc_free(ctx, in->pre);
	pc_free(ctx, in->raw);
	pc_free(ctx, in->buf);
	pc_free(ctx, in->name);
	pc_free(ctx, in);
}
