/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_input.c - a seekable file's peek buffer (input.c): a seek back into
 * what it holds keeps it (the fd is not moved, the bytes are not read
 * again), a pread of bytes it holds makes no system call, and every byte
 * read, peeked or pread is the file's byte at that offset, also after a
 * read that went past the buffer straight into the caller's memory.
 * The files are temporaries this test writes (nothing of the host's).
 */
#include "core/pc_config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/pc_input.h"
#include "pc_test.h"

/* The file's byte at off: not periodic over any size the buffer has. */
static unsigned char byte_at(uint64_t off)
{
	return (unsigned char)((off * 2654435761u) >> 13 ^ off >> 8);
}

/* A temporary file of n bytes, open for reading (unlinked), or -1. */
static int temp_file(size_t n)
{
	char path[] = "/tmp/profconv-test-input-XXXXXX";
	unsigned char *b = malloc(n ? n : 1);
	int fd = mkstemp(path);
	size_t i, done = 0;

	if (fd < 0 || !b) {
		free(b);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	unlink(path);
	for (i = 0; i < n; i++)
		b[i] = byte_at(i);
	while (done < n) {
		ssize_t w = write(fd, b + done, n - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
	free(b);
	if (done != n || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether buf holds the file's n bytes from off. */
static int same(const unsigned char *buf, uint64_t off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != byte_at(off + i))
			return 0;
	return 1;
}

/* A small file (one the open reads whole): back to offset 264, as the perf
 * reader does after the header, and preads of its header sections. */
static void test_small_file(void)
{
	const size_t size = 200000;
	struct profconv_ctx *ctx = profconv_ctx_new();
	int fd = temp_file(size), dup_fd, null_fd;
	struct pc_input *in = NULL;
	unsigned char *all = malloc(size), hdr[104];
	size_t got = 0, k;

	PC_CHECK(ctx && fd >= 0 && all);
	if (!ctx || fd < 0 || !all)
		goto out;
	PC_CHECK_EQ_INT(pc_input_open_fd(ctx, fd, "small.data", &in), 0);
	if (!in)
		goto out;
	/* the open peeked the whole file: the fd is at its end */
	PC_CHECK_EQ_INT(lseek(fd, 0, SEEK_CUR), size);
	PC_CHECK_EQ_INT(pc_input_read(in, hdr, sizeof(hdr), &got), 0);
	PC_CHECK_EQ_INT(got, sizeof(hdr));
	PC_CHECK(same(hdr, 0, sizeof(hdr)));
	PC_CHECK_EQ_INT(pc_input_seek(in, 264), 0);
	PC_CHECK_EQ_INT(pc_input_offset(in), 264);
	/* the buffer is kept: the fd did not move back */
	PC_CHECK_EQ_INT(lseek(fd, 0, SEEK_CUR), size);
	/* preads of bytes the buffer holds make no system call: they still
	 * give the file's bytes with the fd taken away behind its back */
	dup_fd = dup(fd);
	null_fd = open("/dev/null", O_RDONLY);
	PC_CHECK(dup_fd >= 0 && null_fd >= 0);
	PC_CHECK_EQ_INT(dup2(null_fd, fd), fd);
	if (null_fd >= 0)
		close(null_fd);
	for (k = 0; k < 4; k++) {
		uint64_t off = k * 49999;

		got = 0;
		PC_CHECK_EQ_INT(pc_input_pread(in, hdr, sizeof(hdr), off, &got), 0);
		PC_CHECK_EQ_INT(got, sizeof(hdr));
		PC_CHECK(same(hdr, off, sizeof(hdr)));
	}
	/* the rest, read again from 264, is the file's, to its end */
	got = 0;
	PC_CHECK_EQ_INT(pc_input_read(in, all, size, &got), 0);
	PC_CHECK_EQ_INT(got, size - 264);
	PC_CHECK(same(all, 264, size - 264));
	pc_input_close(in);
	in = NULL;
	if (dup_fd >= 0) {
		dup2(dup_fd, fd);
		close(dup_fd);
	}
out:
	pc_input_close(in);
	if (fd >= 0)
		close(fd);
	free(all);
	profconv_ctx_free(ctx);
}

/* A file larger than the buffer: a read that goes past what the buffer
 * holds leaves it empty, so that a later pread or seek is not served from
 * bytes of other offsets. */
static void test_large_file(void)
{
	const size_t size = 700000, first = 400000;
	struct profconv_ctx *ctx = profconv_ctx_new();
	int fd = temp_file(size);
	struct pc_input *in = NULL;
	unsigned char *b = malloc(size), small[300];
	const unsigned char *p;
	size_t got = 0, avail = 0;

	PC_CHECK(ctx && fd >= 0 && b);
	if (!ctx || fd < 0 || !b)
		goto out;
	PC_CHECK_EQ_INT(pc_input_open_fd(ctx, fd, "large.data", &in), 0);
	if (!in)
		goto out;
	PC_CHECK_EQ_INT(pc_input_read(in, b, first, &got), 0);
	PC_CHECK_EQ_INT(got, first);
	PC_CHECK(same(b, 0, first));
	/* offsets the buffer held before that read, and ones it would name if
	 * it were left as it was */
	got = 0;
	PC_CHECK_EQ_INT(pc_input_pread(in, small, sizeof(small), 150000, &got), 0);
	PC_CHECK_EQ_INT(got, sizeof(small));
	PC_CHECK(same(small, 150000, sizeof(small)));
	PC_CHECK_EQ_INT(pc_input_seek(in, 150000), 0);
	p = pc_input_peek(in, sizeof(small), &avail);
	PC_CHECK(p != NULL && avail >= sizeof(small));
	if (p && avail >= sizeof(small))
		PC_CHECK(same(p, 150000, sizeof(small)));
	/* a seek back within the buffer, then a read past its end */
	PC_CHECK_EQ_INT(pc_input_seek(in, 160000), 0);
	got = 0;
	PC_CHECK_EQ_INT(pc_input_read(in, b, size, &got), 0);
	PC_CHECK_EQ_INT(got, size - 160000);
	PC_CHECK(same(b, 160000, size - 160000));
	got = 0;
	PC_CHECK_EQ_INT(pc_input_pread(in, small, sizeof(small), size - 100, &got), 0);
	PC_CHECK_EQ_INT(got, 100);
	PC_CHECK(same(small, size - 100, 100));
out:
	pc_input_close(in);
	if (fd >= 0)
		close(fd);
	free(b);
	profconv_ctx_free(ctx);
}

int main(void)
{
	test_small_file();
	test_large_file();
	return pc_test_done();
}
