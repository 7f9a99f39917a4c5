/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_input.h - where input bytes come from.
 *
 * An input is a path, "-" (standard input), an fd, memory or a read
 * callback.  Opening peeks at the
 * first bytes: gzip, xz, bzip2, zstd, lz4 and lzma streams and tar, cpio or
 * zip archives (holding one file) are undone through libarchive, detected by
 * content, never by name.  Plain files and pipes are read directly.
 *
 *   pc_input_peek()    look at the next bytes without consuming them
 *   pc_input_read()    consume bytes sequentially (short only at EOF)
 *   pc_input_borrow()  consume bytes without a copy (a plain file: mapped)
 *   pc_input_skip()    consume and discard
 *   pc_input_pread()   random access; only when pc_input_can_seek()
 *   pc_input_spool()   make a non-seekable input seekable by copying the
 *                      rest of it into an unlinked temporary file
 *
 * Every read is bounded; the input never slurps what it was not asked for.
 * pc_input_offset() is the byte offset of the next sequential read, in the
 * (decompressed) stream, for error messages.
 */
#ifndef PC_INPUT_H
#define PC_INPUT_H

#include "core/pc_core.h"

struct pc_input;

/* path "-" = stdin.  On success *out is set; caller frees with pc_input_close(). */
int pc_input_open_path(struct profconv_ctx *ctx, const char *path, struct pc_input **out);
/* fd is not closed by pc_input_close(); name is used in messages. */
int pc_input_open_fd(struct profconv_ctx *ctx, int fd, const char *name, struct pc_input **out);
/* An input over caller memory (borrowed; must outlive the input), e.g. for fuzzing. */
int pc_input_open_mem(struct profconv_ctx *ctx, const void *data, size_t len, const char *name,
		      struct pc_input **out);
/* An input read once, in order, through the caller's callback. */
int pc_input_open_cb(struct profconv_ctx *ctx, profconv_read_fn *fn, void *user,
		     const char *name, struct pc_input **out);
void pc_input_close(struct pc_input *in);

/* The name for messages (the path as given, "<stdin>", ...). */
const char *pc_input_name(const struct pc_input *in);
/*
 * For a reader that reads on a thread of its own: the ctx the input reports
 * to (its errors, memory and progress) from now on, and whether reading may
 * move to another thread at all (not when it calls the caller's read
 * callback, which the caller may expect on its own thread).
 */
void pc_input_set_ctx(struct pc_input *in, struct profconv_ctx *ctx);
int pc_input_any_thread(const struct pc_input *in);
/* Bytes pulled from the underlying file so far and its size (0: unknown). */
void pc_input_progress(const struct pc_input *in, uint64_t *done, uint64_t *total);
/* "gzip", "xz", "zstd", "tar", ... or NULL when the input is read as is. */
const char *pc_input_filter(const struct pc_input *in);

/*
 * Make at least want bytes visible without consuming them (fewer at EOF).
 * *avail gets the count; the pointer stays valid until the next call on in.
 * NULL with ctx error set on I/O failure.  want is capped at 1 MiB.
 */
const unsigned char *pc_input_peek(struct pc_input *in, size_t want, size_t *avail);
/* Consume n bytes that a pc_input_peek() just made visible. */
void pc_input_consume(struct pc_input *in, size_t n);
/* Read up to n bytes; *got < n only at EOF.  0 or error. */
int pc_input_read(struct pc_input *in, void *buf, size_t n, size_t *got);
/*
 * Consume up to n bytes without copying them: *out points at them, valid
 * until the next call on in.  *got is 0 only at EOF (it may be less than n
 * elsewhere).  A plain regular file (an fd or path, nothing undone) lends
 * them from a read-only mapping of a window of the file (pc_input_lends());
 * any other input, and a file past the size fstat() gave, from the peek
 * buffer read() fills.  Offsets, progress and the other calls behave as
 * with pc_input_read().  0 or error.
 */
int pc_input_borrow(struct pc_input *in, size_t n, const unsigned char **out, size_t *got);
/* Whether pc_input_borrow() maps the file (else it reads into a buffer). */
int pc_input_lends(const struct pc_input *in);
/* The bytes a window maps (rounded up to pages); 0: never map (tests). */
void pc_input_set_map_window(struct pc_input *in, size_t bytes);
/* Skip n bytes; *got < n only at EOF. 0 or error. */
int pc_input_skip(struct pc_input *in, uint64_t n, uint64_t *got);
uint64_t pc_input_offset(const struct pc_input *in);

int pc_input_can_seek(const struct pc_input *in);
/* Total size when known (seekable inputs), else UINT64_MAX. */
uint64_t pc_input_size(const struct pc_input *in);
/* Random-access read at absolute offset; *got < n only at EOF.  Seekable only.
 * Bytes the peek buffer holds are copied from it (no system call). */
int pc_input_pread(struct pc_input *in, void *buf, size_t n, uint64_t off, size_t *got);
/* Set the sequential position (seekable only).  An offset inside the peek
 * buffer keeps it: a file the open read whole is not read again. */
int pc_input_seek(struct pc_input *in, uint64_t off);
/*
 * Copy the rest of a non-seekable input (including peeked bytes) into an
 * unlinked temporary file and read from it from then on.  Offsets are kept.
 * No-op when already seekable.
 */
int pc_input_spool(struct pc_input *in);
/*
 * A nameless read-write file in $TMPDIR (else /tmp), close-on-exec: made
 * with O_TMPFILE, so nothing that ends the process can leave it behind;
 * where the file system cannot, a mkstemp() file named profconv-WHAT-*
 * and unlinked at once.  The fd, or -1 with errno set.
 */
int pc_tmpfile_anon(const char *what);
/*
 * The same, but only as far as the format needs: before each piece,
 * need(user, fd, have) is asked how many bytes (from the spool's start)
 * the format needs in all, reading what it must from fd (the spool file,
 * offset 0 = the spool's start) with pread(); UINT64_MAX while it cannot
 * tell yet.  Spooling stops there, and input left over is one counted
 * warning, not read.  Any spool stops with PROFCONV_ERR_LIMIT at the
 * memory limit: a stream is never copied without bound.
 */
typedef uint64_t pc_spool_need_fn(void *user, int fd, uint64_t have);
int pc_input_spool_bounded(struct pc_input *in, pc_spool_need_fn *need, void *user);

#endif /* PC_INPUT_H */
