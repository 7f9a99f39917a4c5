/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gbuf_capture.c - `profconv gecko-dump PID`: a PGKB dump taken from a
 * running Firefox process, by the method of the scrapes the format was
 * checked on (docs/formats/gecko-buffer-dump.md section 8):
 *
 *   1. read /proc/PID/maps and the threads' names (/proc/PID/task/T/comm);
 *   2. stop the process (SIGSTOP; profconv's own SIGINT/SIGTERM/SIGHUP are
 *      held back until it is continued, so it is never left stopped);
 *   3. scan its private writable memory through /proc/PID/mem, in bounded
 *      reads, for 56-byte chunk headers (ProfileBufferChunk) that are
 *      consistent: offsets within the buffer, a range start of 1 + k times
 *      the buffer size, the padding zero; then checked by their contents
 *      (cand_check(): the first block, the block count, the times);
 *   4. read the static strings the buffer points to: every 8-byte value in
 *      the chunks that falls inside a read-only file mapping and starts a
 *      printable NUL-terminated string there (labels and literal names live
 *      in libxul's read-only data); extra strings are harmless, the reader
 *      looks up only the pointers it meets;
 *   5. continue the process (SIGCONT), also on every error;
 *   6. pack the longest chain of chunks linked by range, size and start
 *      time through the same producer as a scrape (gbuf_pack.c).
 *
 * Needs the right to read the process's memory: root, CAP_SYS_PTRACE, or
 * the same user with Yama's ptrace_scope allowing it.  Linux only.
 */
#include "core/pc_config.h"

#ifdef __linux__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gecko/pc_gbuf_libs.h"
#include "gecko/pc_gbuf_pack.h"
#include "io/pc_output.h"

#define CHUNK_HEADER 56
#define SCAN_BLOCK ((size_t)1 << 20)
#define CHUNK_MIN 1024u
#define CHUNK_MAX_BYTES ((uint32_t)256 << 20)
#define MAX_CHUNKS 4096u
#define MAX_STRINGS 200000u
#define STR_MAX 255
#define REGION_MAX ((uint64_t)16 << 30) /* larger mappings are not scanned */

struct region {
	uint64_t start, end, off;
	int readable, writable, exec, is_private, file;
	char *path; /* a file's, or NULL */
};

struct capture {
	struct profconv_ctx *ctx;
	int pid;
	int mem; /* /proc/PID/mem */
	char name[64];
	struct region *reg;
	uint32_t nreg, reg_cap;
	struct cand *cand; /* chunk headers found */
	uint32_t ncand, cand_cap;
	unsigned char *chunks; /* the run: header + buffer, one after the other */
	size_t chunks_len, chunks_cap;
	uint32_t nchunks, nother, nhuge;
	uint32_t rej_block, rej_count, rej_time, rej_dup; /* candidates rejected, per reason */
	struct pc_pgkb_str *strs;
	size_t nstrs, strs_cap;
	struct pc_pgkb_buildid *ids;
	size_t nids;
	char *strpool;
	size_t pool_len, pool_cap;
	char version[64], build_id[64], source_stamp[96]; /* its application.ini's */
	int start_estimated;
	char proc_name[64];
	struct pc_pgkb_treg *treg; /* the threads' register times */
	size_t ntreg;
};

static int grow_bytes(struct capture *c, unsigned char **p, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 4096;
	unsigned char *np;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return PROFCONV_ERR_NOMEM;
		n *= 2;
	}
	np = pc_realloc(c->ctx, *p, n);
	if (!np)
		return c->ctx->status ? c->ctx->status : PROFCONV_ERR_NOMEM;
	*p = np;
	*cap = n;
	return 0;
}

/*
 * What to do when /proc/PID/maps or mem is refused (EACCES, EPERM): reading
 * another process's memory is a ptrace right.
 */
#define PTRACE_HINT                                                                              \
	"reading another process's memory needs root or CAP_SYS_PTRACE (run it with sudo, or "  \
	"grant it once: sudo setcap cap_sys_ptrace+ep $(command -v profconv)), or the same user " \
	"with kernel.yama.ptrace_scope 0 (sudo sysctl kernel.yama.ptrace_scope=0)"

/* A small text file of /proc, whole (maps may be a few hundred KiB). */
static int read_proc_text(struct capture *c, const char *path, char **out)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	*out = NULL;
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		return pc_fail(c->ctx, PROFCONV_ERR_IO, NULL, "%s: cannot open: %s: %s", path,
			       strerror(errno), PTRACE_HINT);
	if (fd < 0)
		return pc_fail(c->ctx, PROFCONV_ERR_IO, NULL, "%s: cannot open: %s", path,
			       strerror(errno));
	for (;;) {
		ssize_t n;

		err = grow_bytes(c, &buf, &cap, len + 65536 + 1);
		if (err)
			break;
		n = read(fd, buf + len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = pc_fail(c->ctx, PROFCONV_ERR_IO, NULL, "%s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > ((size_t)64 << 20)) {
			err = pc_fail(c->ctx, PROFCONV_ERR_LIMIT, NULL, "%s: over 64 MiB", path);
			break;
		}
	}
	close(fd);
	if (err) {
		pc_free(c->ctx, buf);
		return err;
	}
	buf[len] = 0;
	*out = (char *)buf;
	return 0;
}

static int parse_maps(struct capture *c, const char *text)
{
	const char *s = text;

	while (s && *s) {
		const char *eol = strchr(s, '\n');
		unsigned long long a, b, off;
		char perms[8] = "", path[512] = "";
		int n = sscanf(s, "%llx-%llx %7s %llx %*s %*s %511[^\n]", &a, &b, perms, &off, path);

		if (n >= 4 && b > a && strlen(perms) >= 4) {
			struct region *r;

			if (pc_grow(c->ctx, (void **)&c->reg, sizeof(*c->reg), &c->reg_cap,
				    (size_t)c->nreg + 1))
				return PROFCONV_ERR_NOMEM;
			r = &c->reg[c->nreg++];
			r->start = a;
			r->end = b;
			r->readable = perms[0] == 'r';
			r->writable = perms[1] == 'w';
			r->exec = perms[2] == 'x';
			r->is_private = perms[3] == 'p';
			r->file = n == 5 && path[0] == '/';
			r->off = off;
			r->path = NULL;
			if (r->file) {
				size_t pl = strlen(path);

				r->path = pc_alloc(c->ctx, pl + 1);
				if (!r->path)
					return PROFCONV_ERR_NOMEM;
				memcpy(r->path, path, pl + 1);
			}
		}
		s = eol ? eol + 1 : NULL;
	}
	return 0;
}

/* "tid comm" lines for every thread of the process. */
static int read_threads(struct capture *c, char **out)
{
	char dirp[64];
	DIR *d;
	struct dirent *e;
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int err = 0;

	*out = NULL;
	pc_snprintf(dirp, sizeof(dirp), "/proc/%d/task", c->pid);
	d = opendir(dirp);
	if (!d)
		return pc_fail(c->ctx, PROFCONV_ERR_IO, NULL, "%s: cannot open: %s", dirp,
			       strerror(errno));
	while ((e = readdir(d)) != NULL && !err) {
		char path[128], comm[64] = "";
		int fd;
		ssize_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		pc_snprintf(path, sizeof(path), "%s/%s/comm", dirp, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread just ended */
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		err = grow_bytes(c, &buf, &cap, len + strlen(e->d_name) + strlen(comm) + 3);
		if (!err)
			len += (size_t)pc_snprintf((char *)buf + len, cap - len, "%s %s\n", e->d_name,
						   comm);
	}
	closedir(d);
	if (!err)
		err = grow_bytes(c, &buf, &cap, len + 1);
	if (err) {
		pc_free(c->ctx, buf);
		return err;
	}
	buf[len] = 0;
	*out = (char *)buf;
	return 0;
}

/* pread of the target's memory; the bytes read (0 when unreadable). */
static size_t mem_read(struct capture *c, uint64_t addr, void *dst, size_t n)
{
	return pc_gbuf_fd_read(&c->mem, addr, dst, n);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Does a 56-byte header look like a ProfileBufferChunk's? Its buffer size, or 0. */
static uint32_t chunk_header(const unsigned char *h)
{
	uint32_t first = le32(h), past = le32(h + 4), bytes = le32(h + 24), blocks = le32(h + 28);
	uint64_t range = le64(h + 32);

	if (bytes < CHUNK_MIN || bytes > CHUNK_MAX_BYTES || first > past || past > bytes ||
	    blocks > bytes || range == 0 || (range - 1) % bytes != 0 || le32(h + 44) != 0 ||
	    le64(h + 8) == 0)
		return 0;
	return bytes;
}

/* A chunk header found in the target's memory. */
struct cand {
	uint64_t addr, range;
	uint32_t bytes;
	unsigned char h[CHUNK_HEADER];
};

enum { CAND_OK, CAND_BAD_BLOCK, CAND_BAD_COUNT, CAND_BAD_TIME };

/*
 * Is a header that passed chunk_header() a chunk by its contents?  The
 * block count agrees with the bytes written (a block is at least 2 bytes:
 * size and kind; at least one starts when the chunk holds more than the tail
 * of the previous one), the start time is a CLOCK_MONOTONIC time (below
 * 2^63 ns; the done time, when set, not before it), and the first block
 * (blk: up to 16 bytes at mOffsetFirstBlock) parses as a block of the
 * buffer's grammar: a ULEB128 size of 1 to the buffer's size, then a known
 * entry kind (1 to 31), whose legacy kinds (1 to 25) are 5 or 9 bytes long.
 */
static int cand_check(const unsigned char *h, const unsigned char *blk, size_t nblk)
{
	uint32_t first = le32(h), past = le32(h + 4), bytes = le32(h + 24), blocks = le32(h + 28);
	uint64_t start = le64(h + 8), done = le64(h + 16), size = 0;
	size_t i = 0, avail = past - first < nblk ? past - first : nblk;
	unsigned shift = 0;
	int b;

	if (blocks > past - first || (past > first && blocks == 0))
		return CAND_BAD_COUNT;
	if (start >= (uint64_t)1 << 63 || done >= (uint64_t)1 << 63 || (done && done < start))
		return CAND_BAD_TIME;
	if (past == first)
		return CAND_OK; /* nothing written but a tail: nothing to parse */
	do {
		if (i == avail)
			return past == bytes ? CAND_OK : CAND_BAD_BLOCK; /* straddles into the next chunk */
		if (shift > 28)
			return CAND_BAD_BLOCK;
		b = blk[i++];
		size |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (size == 0 || size > bytes)
		return CAND_BAD_BLOCK;
	if (i == avail)
		return past == bytes ? CAND_OK : CAND_BAD_BLOCK;
	b = blk[i];
	if (b < 1 || b > 31)
		return CAND_BAD_BLOCK;
	if (b <= 25 && size != 5 && size != 9)
		return CAND_BAD_BLOCK;
	/* within the chunk unless the chunk is full (then it may go on in the next one) */
	if (past < bytes && first + i + size > past)
		return CAND_BAD_BLOCK;
	return CAND_OK;
}

static int add_cand(struct capture *c, uint64_t addr, const unsigned char *h, uint32_t bytes,
		    int *taken)
{
	struct cand *k;
	unsigned char blk[16];
	size_t n;

	*taken = 0;

	n = mem_read(c, addr + CHUNK_HEADER + le32(h), blk, sizeof(blk));
	switch (cand_check(h, blk, n)) {
	case CAND_BAD_BLOCK:
		c->rej_block++;
		return 0;
	case CAND_BAD_COUNT:
		c->rej_count++;
		return 0;
	case CAND_BAD_TIME:
		c->rej_time++;
		return 0;
	default:
		break;
	}
	if (c->ncand == MAX_CHUNKS)
		return 0;
	if (pc_grow(c->ctx, (void **)&c->cand, sizeof(*c->cand), &c->cand_cap, (size_t)c->ncand + 1))
		return PROFCONV_ERR_NOMEM;
	k = &c->cand[c->ncand++];
	k->addr = addr;
	k->range = le64(h + 32);
	k->bytes = bytes;
	memcpy(k->h, h, CHUNK_HEADER);
	*taken = 1;
	return 0;
}

/* Scan private writable memory for chunk headers (8-byte aligned), in bounded reads. */
static int scan_chunks(struct capture *c)
{
	unsigned char *blk = pc_alloc(c->ctx, SCAN_BLOCK + CHUNK_HEADER);
	uint32_t i;
	int err = 0;

	if (!blk)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < c->nreg && !err; i++) {
		const struct region *r = &c->reg[i];
		uint64_t a;

		if (!r->readable || !r->writable || !r->is_private || r->file)
			continue;
		if (r->end - r->start > REGION_MAX) {
			/* reserved address space (a sanitizer's shadow, a GC's reserve): no heap */
			c->nhuge++;
			continue;
		}
		for (a = r->start; a < r->end && !err;) {
			size_t want = r->end - a > SCAN_BLOCK + CHUNK_HEADER ? SCAN_BLOCK + CHUNK_HEADER
									   : (size_t)(r->end - a);
			size_t got = mem_read(c, a, blk, want), k;
			uint64_t next = a + (want > CHUNK_HEADER ? want - CHUNK_HEADER : want);

			for (k = 0; k + CHUNK_HEADER <= got && !err; k += 8) {
				uint32_t bytes = chunk_header(blk + k);

				/* a chunk and its buffer are one allocation: within this mapping */
				if (bytes && a + k + CHUNK_HEADER + bytes > r->end)
					bytes = 0;
				if (bytes) {
					int taken = 0;

					err = add_cand(c, a + k, blk + k, bytes, &taken);
					/*
					 * skip a chunk's buffer: headers inside it are data
					 * (not a rejected one's: a junk header must not hide
					 * a real chunk behind it)
					 */
					if (taken && a + k + CHUNK_HEADER + bytes > next) {
						next = (a + k + CHUNK_HEADER + bytes + 7) & ~(uint64_t)7;
						break;
					}
				}
			}
			if (got == 0)
				break; /* unreadable (a guard page): the rest of this region too */
			a = next;
		}
	}
	pc_free(c->ctx, blk);
	return err;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	uint64_t tx = le64(x->h + 8), ty = le64(y->h + 8);

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	/* two chunks claiming one range: the one started last first */
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Does chunk y follow chunk x in one buffer (index space, size, time)? */
static int cand_links(const struct cand *x, const struct cand *y)
{
	return x->bytes == y->bytes && x->range + x->bytes == y->range &&
	       le64(x->h + 8) <= le64(y->h + 8);
}

/*
 * The longest chain of chunks linked in the index space and in time: each
 * one's range start is the previous one's plus its size, all of one size
 * (one buffer's chunks are), each started no earlier than the previous one.
 * Of the candidates for one place in the chain the one started last is
 * taken, but only among those that link: a chunk of another buffer claiming
 * the same range (a one-chunk buffer of a backtrace starts at 1 too), or a
 * stale copy started later than the next chunk, does not displace it.  Other
 * buffers and stale copies fall outside.  The run's buffers are read now,
 * while the process is stopped.
 */
static int read_run(struct capture *c)
{
	uint32_t *len = NULL, *prev = NULL, *chain = NULL;
	uint32_t i, j, best = 0, n, k;
	size_t total = 0;
	int err = 0;

	qsort(c->cand, c->ncand, sizeof(*c->cand), cand_cmp);
	len = pc_alloc(c->ctx, (size_t)c->ncand * sizeof(*len));
	prev = pc_alloc(c->ctx, (size_t)c->ncand * sizeof(*prev));
	chain = pc_alloc(c->ctx, (size_t)c->ncand * sizeof(*chain));
	if (!len || !prev || !chain) {
		err = c->ctx->status ? c->ctx->status : PROFCONV_ERR_NOMEM;
		goto out;
	}
	/* sorted by range: every predecessor of i comes before it (ncand <= MAX_CHUNKS) */
	for (i = 0; i < c->ncand; i++) {
		len[i] = 1;
		prev[i] = UINT32_MAX;
		for (j = 0; j < i; j++)
			/* sorted newest first within a range: the first j of a length wins */
			if (cand_links(&c->cand[j], &c->cand[i]) && len[j] + 1 > len[i]) {
				len[i] = len[j] + 1;
				prev[i] = j;
			}
		/*
		 * of chains of one length, the one of larger chunks: a run of one
		 * (a young process's chunk 0) was otherwise the range-1 header started
		 * last, chance ones of a few KiB included (the profiler's are 1 MiB)
		 */
		if (len[i] > len[best] ||
		    (len[i] == len[best] && c->cand[i].bytes > c->cand[best].bytes))
			best = i;
	}
	n = c->ncand ? len[best] : 0;
	for (k = n, i = best; k > 0; k--, i = prev[i])
		chain[k - 1] = i;
	c->nchunks = n;
	c->nother = c->ncand - n;
	/* the candidates for the chain's ranges that were not taken */
	for (i = 0, k = 0; i < c->ncand && n; i++) {
		while (k < n && c->cand[chain[k]].range < c->cand[i].range)
			k++;
		if (k < n && c->cand[chain[k]].range == c->cand[i].range && chain[k] != i)
			c->rej_dup++;
	}
	for (k = 0; k < n; k++)
		total += CHUNK_HEADER + (size_t)c->cand[chain[k]].bytes;
	err = grow_bytes(c, &c->chunks, &c->chunks_cap, total);
	for (k = 0; k < n && !err; k++) {
		const struct cand *x = &c->cand[chain[k]];
		unsigned char *h = c->chunks + c->chunks_len;

		memcpy(h, x->h, CHUNK_HEADER);
		memset(h + 48, 0, 8); /* mNext: a pointer of the target's */
		if (mem_read(c, x->addr + CHUNK_HEADER, h + CHUNK_HEADER, x->bytes) != x->bytes)
			err = pc_fail(c->ctx, PROFCONV_ERR_IO, NULL,
				      "pid %d: the chunk at 0x%llx could not be read whole", c->pid,
				      (unsigned long long)x->addr);
		else
			c->chunks_len += CHUNK_HEADER + (size_t)x->bytes;
	}
out:
	pc_free(c->ctx, len);
	pc_free(c->ctx, prev);
	pc_free(c->ctx, chain);
	return err;
}

/*
 * A cursor over the run's buffers as one byte sequence (BUFR's bytes: the
 * first chunk from its first block, every chunk to its last block's end).
 */
struct run_cursor {
	const struct capture *c;
	size_t pos;	       /* the chunk header at c->chunks + pos */
	uint32_t at, past;     /* within that chunk's buffer */
};

static int cur_next_chunk(struct run_cursor *r, int first)
{
	const unsigned char *h;

	if (!first)
		r->pos += CHUNK_HEADER + (size_t)le32(r->c->chunks + r->pos + 24);
	if (r->pos + CHUNK_HEADER > r->c->chunks_len)
		return -1;
	h = r->c->chunks + r->pos;
	r->at = first ? le32(h) : 0;
	r->past = le32(h + 4);
	return 0;
}

/* The next byte, or -1 at the end. */
static int cur_byte(struct run_cursor *r)
{
	while (r->at >= r->past)
		if (cur_next_chunk(r, 0))
			return -1;
	return r->c->chunks[r->pos + CHUNK_HEADER + r->at++];
}

/* n little-endian bytes (n <= 8); -1 at the end. */
static int cur_le(struct run_cursor *r, unsigned n, uint64_t *v)
{
	unsigned i;

	*v = 0;
	for (i = 0; i < n; i++) {
		int b = cur_byte(r);

		if (b < 0)
			return -1;
		*v |= (uint64_t)b << (8 * i);
	}
	return 0;
}

/* ESR 153's entry kinds (the KIND table gbuf_pack.c writes) */
#define K_THREAD_ID 18
#define K_TIME 19
#define K_TIME_BEFORE_SAME 21
#define K_MARKER 27

/*
 * How many samples and markers of some thread the run holds, walking its
 * blocks (docs/formats/gecko-buffer-dump.md section 4) as the reader would:
 * a sample starts with a ThreadId block followed by a time block (Time,
 * TimeBeforeCompactStack, TimeBeforeSameSample), a marker is a Marker block
 * with a thread id and a phase.  Chunk headers found by chance in a process
 * without the profiler hold none (their "blocks" are noise).
 */
static uint64_t run_thread_entries(const struct capture *c)
{
	struct run_cursor r;
	uint64_t found = 0, prev_tid = 0;

	memset(&r, 0, sizeof(r));
	r.c = c;
	if (cur_next_chunk(&r, 1))
		return 0;
	for (;;) {
		uint64_t size = 0, v = 0, tid = 0;
		unsigned shift = 0, used = 0;
		int b, tag;

		do {
			b = cur_byte(&r);
			if (b < 0 || shift > 56)
				return found;
			size |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		if (size == 0 || (tag = cur_byte(&r)) < 0)
			return found;
		used = 1;
		if (tag == K_THREAD_ID && size == 9) {
			if (cur_le(&r, 8, &tid))
				return found;
			used += 8;
		} else if (tag >= K_TIME && tag <= K_TIME_BEFORE_SAME && size == 9) {
			found += prev_tid != 0;
		} else if (tag == K_MARKER && size >= 10) {
			if (cur_le(&r, 8, &v) || (b = cur_byte(&r)) < 0)
				return found;
			used += 9;
			found += v && v <= 0x7fffffff && b <= 3;
		}
		prev_tid = tid && tid <= 0x7fffffff ? tid : 0;
		for (; used < size; used++)
			if (cur_byte(&r) < 0)
				return found;
	}
}

/* The read-only file mapping holding addr, or NULL. */
static const struct region *rodata_at(const struct capture *c, uint64_t addr)
{
	uint32_t lo = 0, hi = c->nreg;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (addr < c->reg[mid].start)
			hi = mid;
		else if (addr >= c->reg[mid].end)
			lo = mid + 1;
		else
			return c->reg[mid].readable && !c->reg[mid].writable && c->reg[mid].file
				       ? &c->reg[mid]
				       : NULL;
	}
	return NULL;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop repeats; the new count. */
static size_t dedupe(uint64_t *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), u64_cmp);
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* Step 4: the strings behind the pointers the chunks may hold. */
static int read_strings(struct capture *c)
{
	const size_t limit = (size_t)MAX_STRINGS * 16; /* candidates held at once */
	uint64_t *cand = NULL;
	size_t ncand = 0, cand_cap = 0, k, i;
	int err = 0;

	uint64_t lo = UINT64_MAX, hi = 0;

	for (i = 0; i < c->nreg; i++)
		if (c->reg[i].readable && !c->reg[i].writable && c->reg[i].file) {
			lo = c->reg[i].start < lo ? c->reg[i].start : lo;
			hi = c->reg[i].end > hi ? c->reg[i].end : hi;
		}
	for (k = 0; k + 8 <= c->chunks_len; k++) {
		uint64_t v = le64(c->chunks + k);

		if (v < lo || v >= hi || !rodata_at(c, v))
			continue;
		if (ncand == limit)
			ncand = dedupe(cand, ncand);
		if (ncand == limit)
			break; /* that many distinct candidates: enough */
		if (ncand == cand_cap) {
			size_t ncap = cand_cap ? cand_cap * 2 : 4096;
			uint64_t *np = pc_realloc(c->ctx, cand, ncap * sizeof(*cand));

			if (!np) {
				pc_free(c->ctx, cand);
				return c->ctx->status ? c->ctx->status : PROFCONV_ERR_NOMEM;
			}
			cand = np;
			cand_cap = ncap;
		}
		cand[ncand++] = v;
	}
	ncand = ncand ? dedupe(cand, ncand) : 0;
	for (i = 0; i < ncand && !err && c->nstrs < MAX_STRINGS; i++) {
		char s[STR_MAX + 1];
		size_t got = mem_read(c, cand[i], s, STR_MAX), n;

		for (n = 0; n < got && s[n] && (unsigned char)s[n] >= 0x20 && s[n] != 0x7f; n++)
			;
		if (n == got)
			continue; /* not a NUL-terminated printable string ("" is one: empty labels) */
		if (c->nstrs == c->strs_cap) {
			size_t ncap = c->strs_cap ? c->strs_cap * 2 : 1024;
			struct pc_pgkb_str *np = pc_realloc(c->ctx, c->strs, ncap * sizeof(*np));

			if (!np) {
				err = c->ctx->status ? c->ctx->status : PROFCONV_ERR_NOMEM;
				break;
			}
			c->strs = np;
			c->strs_cap = ncap;
		}
		err = grow_bytes(c, (unsigned char **)&c->strpool, &c->pool_cap, c->pool_len + n + 1);
		if (err)
			break;
		memcpy(c->strpool + c->pool_len, s, n);
		c->strpool[c->pool_len + n] = 0;
		c->strs[c->nstrs].addr = cand[i];
		/* an offset into the pool until it stops moving */
		c->strs[c->nstrs].text = (const char *)(uintptr_t)c->pool_len;
		c->nstrs++;
		c->pool_len += n + 1;
	}
	for (i = 0; i < c->nstrs; i++)
		c->strs[i].text = c->strpool + (uintptr_t)c->strs[i].text;
	pc_free(c->ctx, cand);
	return err;
}

/*
 * Firefox's child processes run as `firefox -contentproc ... TYPE`, the last
 * argument being the GeckoProcessType's string; the parent has no
 * -contentproc.  The numbers are GeckoProcessTypes.h's (tab is 2 in the ESR
 * 153 profiles' meta.processType).
 */
static const struct {
	const char *name;
	uint32_t type;
} gecko_types[] = {
	{ "tab", 2 },	  { "ipdlunittest", 3 }, { "gmplugin", 4 },	 { "gpu", 5 },
	{ "vr", 6 },	  { "rdd", 7 },		 { "socket", 8 },	 { "sandboxbroker", 9 },
	{ "forkserver", 10 }, { "utility", 11 },
};

/* The process type from /proc/PID/cmdline into parts (left unset for a parent or when unknown). */
static void process_identity(struct capture *c, struct pc_pgkb_parts *parts)
{
	char path[64], buf[8192];
	const char *last = NULL;
	size_t i, len = 0;
	int fd, child = 0;

	pc_snprintf(path, sizeof(path), "/proc/%d/cmdline", c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(buf) - 1)
			break; /* longer: its end (the type) is not here */
	}
	close(fd);
	if (len == 0 || len == sizeof(buf) - 1)
		return;
	buf[len] = 0;
	/* a child forked by the fork server shows its arguments as one line, joined by spaces */
	for (i = 0; i < len; i++)
		if (buf[i] == ' ')
			buf[i] = 0;
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		if (!strcmp(buf + i, "-contentproc"))
			child = 1;
		if (buf[i])
			last = buf + i;
	}
	if (!child || !last)
		return;
	for (i = 0; i < PC_ARRAY_SIZE(gecko_types); i++)
		if (!strcmp(last, gecko_types[i].name)) {
			parts->process_type_name = gecko_types[i].name;
			parts->process_type = gecko_types[i].type;
			/* Firefox names a child by what it hosts (a content process by its remote type), not here */
			parts->process_name = "";
			pc_note(c->ctx, "pid %d: a Firefox child process of type %s (from its command line)",
				c->pid, last);
			return;
		}
	pc_note(c->ctx, "pid %d: a Firefox child process of an unknown type \"%.40s\"; labelled as the parent",
		c->pid, last);
}

/*
 * The GNU build id of every executable file mapping's file, read from the
 * process's memory: the file's ELF header is mapped at the mapping of
 * offset 0 (ET_DYN: load bias = that mapping's start minus the first
 * PT_LOAD's page-aligned address), and its PT_NOTE segments hold an
 * NT_GNU_BUILD_ID ("GNU", type 3).  A file deleted or replaced since it was
 * mapped still gives the build id of what runs.
 */
static void read_build_ids(struct capture *c)
{
	uint32_t i, j;

	/* at most one per mapping */
	c->ids = pc_alloc(c->ctx, ((size_t)c->nreg + 1) * sizeof(*c->ids));
	if (!c->ids)
		return;
	memset(c->ids, 0, ((size_t)c->nreg + 1) * sizeof(*c->ids));
	for (i = 0; i < c->nreg; i++) {
		const struct region *r = &c->reg[i];
		unsigned char eh[64], ph[56], note[512];
		uint64_t phoff, bias = 0, vaddr0 = UINT64_MAX;
		uint16_t phnum, phentsize, k;
		int found = 0, dup = 0;

		if (!r->path || r->off != 0)
			continue;
		/* an executable mapping of this file, or it is no lib */
		for (j = i; j < c->nreg && !found; j++)
			found = c->reg[j].exec && c->reg[j].path && !strcmp(c->reg[j].path, r->path);
		for (j = 0; j < c->nids && !dup; j++)
			dup = !strcmp(c->ids[j].path, r->path);
		if (!found || dup || mem_read(c, r->start, eh, sizeof(eh)) != sizeof(eh))
			continue;
		if (memcmp(eh, "\177ELF", 4) || eh[4] != 2 || eh[5] != 1)
			continue; /* 64-bit little-endian only */
		phoff = le64(eh + 32);
		phentsize = (uint16_t)(eh[54] | eh[55] << 8);
		phnum = (uint16_t)(eh[56] | eh[57] << 8);
		if (phentsize < 56 || phnum > 256 || phoff > 65536)
			continue;
		for (k = 0; k < phnum; k++) {
			if (mem_read(c, r->start + phoff + (uint64_t)k * phentsize, ph, 56) != 56)
				break;
			if (le32(ph) == 1 && le64(ph + 8) == 0) /* PT_LOAD of offset 0 */
				vaddr0 = le64(ph + 16) & ~(uint64_t)0xfff;
		}
		if (vaddr0 == UINT64_MAX)
			continue;
		bias = (eh[16] | eh[17] << 8) == 3 ? r->start - vaddr0 : 0; /* ET_DYN */
		for (k = 0; k < phnum && !c->ids[c->nids].code_id[0]; k++) {
			uint64_t at, len;
			size_t got, p = 0;

			if (mem_read(c, r->start + phoff + (uint64_t)k * phentsize, ph, 56) != 56)
				break;
			if (le32(ph) != 4) /* PT_NOTE */
				continue;
			at = bias + le64(ph + 16);
			len = le64(ph + 32);
			got = mem_read(c, at, note, len < sizeof(note) ? (size_t)len : sizeof(note));
			while (p + 12 <= got) {
				uint32_t nsz = le32(note + p), dsz = le32(note + p + 4), type = le32(note + p + 8);
				size_t name_at = p + 12, desc_at = name_at + ((nsz + 3) & ~3u);

				if (nsz > 64 || dsz > 64 || desc_at + dsz > got)
					break;
				if (type == 3 && nsz == 4 && !memcmp(note + name_at, "GNU", 4) && dsz >= 16 &&
				    dsz <= 40) {
					struct pc_pgkb_buildid *id = &c->ids[c->nids];
					static const unsigned char order[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
										 8, 9, 10, 11, 12, 13, 14, 15 };
					uint32_t q;

					for (q = 0; q < dsz; q++)
						pc_snprintf(id->code_id + 2 * q, 3, "%02x", note[desc_at + q]);
					for (q = 0; q < 16; q++)
						pc_snprintf(id->breakpad_id + 2 * q, 3, "%02X",
							    note[desc_at + order[q]]);
					id->breakpad_id[32] = '0';
					id->breakpad_id[33] = 0;
					id->path = r->path;
					break;
				}
				p = desc_at + ((dsz + 3) & ~3u);
			}
		}
		if (c->ids[c->nids].code_id[0])
			c->nids++;
	}
}

/* --- the time base, the process's start and what Firefox says of itself --- */

/* A small file of /proc (or anywhere), up to cap - 1 bytes, NUL-terminated; its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return (ssize_t)len;
}

/*
 * A process's start from /proc/PID/stat (field 22, clock ticks since boot,
 * on the boot-time clock) as CLOCK_MONOTONIC ns, and its parent; 0 when
 * unknown.  Ticks are 10 ms (USER_HZ 100): the start is rounded down to one.
 */
static uint64_t proc_start_ns(int pid, int *ppid)
{
	char path[64], buf[1024];
	const char *p;
	unsigned long long ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int f, parent = 0;
	struct timespec mono, boot;
	uint64_t ns, off = 0;

	pc_snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return 0;
	/* after ") ": state is field 3, ppid 4, starttime 22 */
	for (f = 3, p += 2; *p && f < 22; p++)
		if (*p == ' ') {
			f++;
			if (f == 4)
				parent = atoi(p + 1);
		}
	if (f != 22 || sscanf(p, "%llu", &ticks) != 1 || hz <= 0)
		return 0;
	if (ppid)
		*ppid = parent;
	ns = (uint64_t)(ticks / (unsigned long long)hz) * 1000000000u +
	     (uint64_t)(ticks % (unsigned long long)hz) * (1000000000u / (uint64_t)hz);
	/* the boot-time clock runs ahead of CLOCK_MONOTONIC by the time suspended */
	if (clock_gettime(CLOCK_MONOTONIC, &mono) == 0 && clock_gettime(CLOCK_BOOTTIME, &boot) == 0) {
		int64_t d = ((int64_t)boot.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
			    ((int64_t)boot.tv_nsec - (int64_t)mono.tv_nsec);

		/* to the ms: the two clocks are read one after the other (no jitter in the result) */
		off = d > 0 ? ((uint64_t)d + 500000) / 1000000 * 1000000 : 0;
	}
	return ns > off ? ns - off : 0;
}

/* Is pid a Firefox fork server (`firefox -contentproc ... forkserver`)? */
static int is_fork_server(int pid)
{
	char path[64], buf[8192];
	ssize_t n = 0, i;
	const char *last = NULL;
	int child = 0;

	pc_snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0 || (size_t)n == sizeof(buf) - 1)
		return 0;
	for (i = 0; i < n; i++)
		if (buf[i] == ' ')
			buf[i] = 0; /* one line joined by spaces (see process_identity()) */
	for (i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
		child |= !strcmp(buf + i, "-contentproc");
		if (buf[i])
			last = buf + i;
	}
	return child && last && !strcmp(last, "forkserver");
}

/*
 * The profiler's time base: sample times are ms since
 * CorePS::ProcessStartTime() = TimeStamp::ProcessCreation(), and markers are
 * converted against it.  mozglue (linked into the firefox executable on
 * Linux) keeps it in a static TimeStampInitialization of two TimeStamps:
 * mFirstTimeStamp (the first Now()), then mProcessCreation (Now() minus the
 * process's uptime in clock ticks, never after mFirstTimeStamp; equal to it
 * when clamped).  So the executable's writable data and bss (the anonymous
 * mapping right after its last one) are searched for two adjacent u64
 * values first >= creation, creation at most 2 s after the process started
 * (ref: its /proc start, or its fork server's: a content process forked by
 * it inherits the fork server's statics, and Firefox's own profile counts
 * its times from there) and not over 50 ms before it (the uptime is counted
 * in 10 ms ticks), and no later than the oldest chunk's start.  Found: the
 * exact base.  Not found: the /proc start, with a warning of how far off
 * it may be.  *how gets a word for the notes.
 */
static int find_time_base(struct capture *c, uint64_t oldest_chunk, const char **how,
			  uint64_t *base)
{
	char exe[4096], path[64];
	ssize_t n;
	uint64_t ref, found = 0, best_d = UINT64_MAX, *vals;
	uint32_t i, nfound = 0;
	int ppid = 0, from_fork_server = 0;
	const uint64_t before = 50000000u, after = 2000000000u;
	const struct region *prev = NULL;
	size_t max_read = (size_t)8 << 20; /* the bss of firefox is a few KiB */

	*how = "";
	*base = 0;
	ref = proc_start_ns(c->pid, &ppid);
	if (ref && ppid > 1 && is_fork_server(ppid)) {
		uint64_t fs = proc_start_ns(ppid, NULL);

		if (fs) {
			ref = fs;
			from_fork_server = 1;
		}
	}
	if (!ref)
		return 0;
	pc_snprintf(path, sizeof(path), "/proc/%d/exe", c->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		exe[n - 10] = 0;
	vals = n > 0 ? pc_alloc(c->ctx, max_read) : NULL;
	for (i = 0; vals && i < c->nreg; i++) {
		const struct region *r = &c->reg[i];
		int mine = r->path && !strcmp(r->path, exe);
		size_t len, got, k;

		/* the executable's own writable mappings, and the bss right after its last */
		if (!(r->writable && r->readable &&
		      (mine || (!r->path && prev && prev->end == r->start))))
			goto next;
		len = r->end - r->start > max_read ? max_read : (size_t)(r->end - r->start);
		got = mem_read(c, r->start, vals, len) / 8;
		for (k = 0; k + 1 < got; k++) {
			uint64_t first = vals[k], creation = vals[k + 1], d;

			if (!creation || creation > first || first - creation > after ||
			    creation + before < ref || creation > ref + after ||
			    (oldest_chunk && creation > oldest_chunk))
				continue;
			d = creation > ref ? creation - ref : ref - creation;
			if (creation != found)
				nfound++;
			if (d < best_d) {
				best_d = d;
				found = creation;
			}
		}
next:
		prev = mine ? r : NULL;
	}
	pc_free(c->ctx, vals);
	if (found) {
		*how = from_fork_server ? "TimeStamp::ProcessCreation, read from its memory (inherited from its fork server)"
					: "TimeStamp::ProcessCreation, read from its memory";
		if (nfound > 1)
			pc_note(c->ctx, "pid %d: %u candidates for the profiler's time base in its memory; took the one nearest its start",
				c->pid, nfound);
		*base = found;
		return 0;
	}
	*how = "estimated from /proc/PID/stat";
	c->start_estimated = 1;
	*base = ref;
	return pc_warn(c->ctx, "gecko dump time base estimated", NULL,
		"pid %d: the profiler's time base (TimeStamp::ProcessCreation) was not found in its memory; using the start of the process%s from /proc/%d/stat, which counts in 10 ms clock ticks: marker times may be off from the samples by up to about 20 ms (give --process-start-ns to set it)",
		c->pid, from_fork_server ? "'s fork server" : "", from_fork_server ? ppid : c->pid);
}

/* The value of NAME=... in /proc/PID/environ into out (empty when absent). */
static void proc_env(int pid, const char *name, char *out, size_t cap)
{
	char path[64];
	char *buf = malloc(65536);
	ssize_t n, i;
	size_t nl = strlen(name);

	out[0] = 0;
	if (!buf)
		return;
	pc_snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	n = read_small(path, buf, 65536);
	for (i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (!strncmp(buf + i, name, nl) && buf[i + nl] == '=') {
			pc_snprintf(out, cap, "%s", buf + i + nl + 1);
			break;
		}
	free(buf);
}

/* KEY=value of an ini file's [section] into out (empty when absent). */
static void ini_value(const char *file, const char *section, const char *key, char *out, size_t cap)
{
	char buf[16384], *s, *e;
	int in = 0;
	size_t kl = strlen(key);

	out[0] = 0;
	if (read_small(file, buf, sizeof(buf)) <= 0)
		return;
	for (s = buf; s && *s; s = e ? e + 1 : NULL) {
		e = strchr(s, '\n');
		if (e)
			*e = 0;
		if (*s == '[') {
			in = !strncmp(s + 1, section, strlen(section)) && s[1 + strlen(section)] == ']';
			continue;
		}
		if (in && !strncmp(s, key, kl) && s[kl] == '=') {
			pc_snprintf(out, cap, "%s", s + kl + 1);
			out[strcspn(out, "\r")] = 0;
			return;
		}
	}
}

/*
 * Time base, meta.startTime, interval and product version for the dump
 * (the caller's options win).  The version is the application.ini next to
 * the executable (Firefox's own: [App] Version, BuildID, SourceStamp).
 */
static int read_meta(struct capture *c, struct profconv_gecko_scrape_opts *o,
		     struct pc_pgkb_parts *parts)
{
	const char *how = "given with --process-start-ns";
	char env[64], exe[4096], path[64], ini[4200];
	ssize_t n;
	int err;

	if (!o->process_start_ns) {
		err = find_time_base(c, c->nchunks ? le64(c->chunks + 8) : 0, &how,
				     &o->process_start_ns);
		if (err)
			return err;
	}
	if (o->process_start_ns)
		pc_note(c->ctx, "pid %d: time base %llu ns (CLOCK_MONOTONIC): %s", c->pid,
			(unsigned long long)o->process_start_ns, how);
	if (o->process_start_ns && !(o->start_time_ms > 0)) {
		struct timespec mono, real;

		if (clock_gettime(CLOCK_MONOTONIC, &mono) == 0 &&
		    clock_gettime(CLOCK_REALTIME, &real) == 0) {
			double now_mono = (double)mono.tv_sec * 1e3 + (double)mono.tv_nsec / 1e6;
			double now_real = (double)real.tv_sec * 1e3 + (double)real.tv_nsec / 1e6;

			o->start_time_ms = now_real - (now_mono - (double)o->process_start_ns / 1e6);
		}
	}
	if (!(o->interval_ms > 0)) {
		proc_env(c->pid, "MOZ_PROFILER_STARTUP_INTERVAL", env, sizeof(env));
		if (env[0] && atof(env) > 0) {
			o->interval_ms = atof(env);
			pc_note(c->ctx, "pid %d: interval %g ms (its MOZ_PROFILER_STARTUP_INTERVAL)",
				c->pid, o->interval_ms);
		} else {
			pc_note(c->ctx,
				"pid %d: the sampling interval is unknown (no MOZ_PROFILER_STARTUP_INTERVAL in its environment): give --interval-ms",
				c->pid);
		}
	}
	pc_snprintf(path, sizeof(path), "/proc/%d/exe", c->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			pc_snprintf(ini, sizeof(ini), "%s/application.ini", exe);
			ini_value(ini, "App", "Version", c->version, sizeof(c->version));
			ini_value(ini, "App", "BuildID", c->build_id, sizeof(c->build_id));
			ini_value(ini, "App", "SourceStamp", c->source_stamp, sizeof(c->source_stamp));
			if (!c->version[0]) {
				pc_snprintf(ini, sizeof(ini), "%s/platform.ini", exe);
				ini_value(ini, "Build", "Milestone", c->version, sizeof(c->version));
				ini_value(ini, "Build", "BuildID", c->build_id, sizeof(c->build_id));
				ini_value(ini, "Build", "SourceStamp", c->source_stamp,
					  sizeof(c->source_stamp));
			}
		}
	}
	if (c->version[0]) {
		parts->version = c->version;
		parts->build_id = c->build_id;
		parts->source_stamp = c->source_stamp;
		pc_note(c->ctx, "pid %d: Firefox %s, build %s (its application.ini)", c->pid,
			c->version, c->build_id[0] ? c->build_id : "unknown");
	}
	return 0;
}

/*
 * JIT code named from the JS engine's table and the vdso image, both read
 * from the process's memory (gbuf_libs.c), into parts.  The process runs
 * again: the entries of code the buffer's samples point to are kept alive
 * by the profiler (samplePositionInBuffer), and the vdso does not change.
 */
static int libs_from_memory(struct capture *c, const char *maps, struct pc_pgkb_parts *parts,
			    struct pc_gbuf_jit_result *jit, struct pc_gbuf_vdso_result *vdso)
{
	int err = pc_gbuf_read_jit(c->ctx, c->mem, maps, jit);

	if (err)
		return err;
	parts->jit = jit->jit;
	parts->njit = jit->njit;
	pc_note(c->ctx,
		"pid %d: %zu JIT code ranges named from the JS engine's table in its memory (%zu JIT code reservations; %zu stale or unnamed entries left out)",
		c->pid, jit->njit, jit->exec_regions, jit->dropped);
	err = pc_gbuf_read_vdso(c->ctx, c->mem, maps, vdso);
	if (err)
		return err;
	if (vdso->end > vdso->start) {
		parts->vdso_start = vdso->start;
		parts->vdso_end = vdso->end;
		parts->vdso_id = vdso->vdso.has_id ? &vdso->vdso.id : NULL;
		parts->vdso_syms = vdso->vdso.syms;
		parts->nvdso_syms = vdso->vdso.nsyms;
		pc_note(c->ctx, "pid %d: [vdso] image read from its memory: %zu bytes, %zu symbols%s",
			c->pid, vdso->len, vdso->vdso.nsyms, vdso->vdso.has_id ? ", a build id" : "");
	}
	return 0;
}

/*
 * A child's name as Firefox labels it (processName): Firefox names its
 * children's main threads by what they host (SetThisProcessName), so the
 * process's comm is that name cut to 15 bytes.  The cut ones are completed
 * from the names Firefox gives (E10SUtils' remote types: "Isolated Web
 * Content", "Privileged Content", ...); a name Firefox has not given yet
 * ("MainThread": a process not yet assigned) stays empty.
 */
static void process_name_from_comm(struct capture *c, struct pc_pgkb_parts *parts)
{
	static const char *const full[] = {
		"Web Content",		"file:// Content",	     "WebExtensions",
		"Isolated Web Content", "Privileged Content",	     "Privileged Mozilla Content",
		"Isolated Service Worker", "Web Content (Cached)", "Inference",
		"GPU Process",		"RDD Process",		     "Socket Process",
		"Utility Process",	"Fork Server",
	};
	char path[64], comm[32];
	ssize_t n;
	size_t i;

	if (!parts->process_type_name)
		return;
	pc_snprintf(path, sizeof(path), "/proc/%d/comm", c->pid);
	n = read_small(path, comm, sizeof(comm));
	if (n <= 0)
		return;
	comm[strcspn(comm, "\n")] = 0;
	for (i = 0; i < PC_ARRAY_SIZE(full); i++)
		if (!strcmp(comm, full[i]) || (strlen(comm) == 15 && !strncmp(full[i], comm, 15))) {
			pc_snprintf(c->proc_name, sizeof(c->proc_name), "%s", full[i]);
			parts->process_name = c->proc_name;
			pc_note(c->ctx, "pid %d: named \"%s\" (from its main thread's name \"%s\")",
				c->pid, c->proc_name, comm);
			return;
		}
	pc_note(c->ctx, "pid %d: its main thread's name \"%s\" is not one Firefox gives a process: no process name",
		c->pid, comm);
}

/*
 * The threads' register times: when each started (/proc/TID/stat, 10 ms
 * ticks) after the time base, 0 before it (a parent's main thread starts
 * with the process, before mozglue takes the base).  Firefox registers a
 * thread with the profiler a little after it starts: an estimate, said in
 * a -v note.
 */
static void thread_register_times(struct capture *c, const char *threads, uint64_t base)
{
	const char *s = threads;
	size_t n = 0, cap = 0;

	if (!threads || !base)
		return;
	for (; *s; s++)
		cap += *s == '\n';
	c->treg = pc_alloc(c->ctx, (cap + 1) * sizeof(*c->treg));
	if (!c->treg)
		return;
	for (s = threads; *s && n < cap;) {
		int tid = atoi(s);
		uint64_t st = tid > 0 ? proc_start_ns(tid, NULL) : 0;
		const char *eol = strchr(s, '\n');

		if (st) {
			c->treg[n].tid = (uint64_t)tid;
			c->treg[n].register_ms = st > base ? (double)(st - base) / 1e6 : 0.0;
			n++;
		}
		if (!eol)
			break;
		s = eol + 1;
	}
	c->ntreg = n;
	if (n)
		pc_note(c->ctx,
			"pid %d: register times of %zu threads from their starts in /proc (10 ms ticks; Firefox registers a thread a little after it starts)",
			c->pid, n);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The process's state letter from /proc/PID/stat (R, S, T, Z, ...), or 0 when it is gone. */
static char proc_state(int pid)
{
	char path[64], buf[512];
	int fd;
	ssize_t n;
	const char *p;

	pc_snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Wait until the process shows as stopped (state T), at most 2 s. */
static int wait_stopped(struct capture *c)
{
	int i;

	for (i = 0; i < 2000; i++) {
		char st = proc_state(c->pid);

		if (!st)
			return pc_fail(c->ctx, PROFCONV_ERR_IO, NULL, "pid %d: ended", c->pid);
		if (st == 'T' || st == 't')
			return 0;
		usleep(1000);
	}
	return pc_fail(c->ctx, PROFCONV_ERR_IO, NULL, "pid %d: did not stop within 2 s", c->pid);
}

PROFCONV_API int profconv_gecko_dump_pid(struct profconv_ctx *ctx, int pid,
					 const struct profconv_gecko_scrape_opts *opts,
					 const char *out_path)
{
	struct capture c;
	struct pc_pgkb_parts parts;
	struct pc_gbuf_jit_result jit;
	struct pc_gbuf_vdso_result vdso;
	char path[64], *maps = NULL, *threads = NULL;
	sigset_t hold, old;
	double t0, stopped_ms = 0;
	struct profconv_gecko_scrape_opts o;
	char state;
	int err, was_stopped;
	uint32_t i;

	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (pid <= 0 || !out_path)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "a process id and an output path are needed");
	err = pc_scrape_opts(ctx, opts, &o);
	if (err)
		return err;
	opts = opts ? &o : NULL;
	memset(&c, 0, sizeof(c));
	memset(&jit, 0, sizeof(jit));
	memset(&vdso, 0, sizeof(vdso));
	c.ctx = ctx;
	c.pid = pid;
	c.mem = -1;
	pc_snprintf(c.name, sizeof(c.name), "pid %d", pid);
	err = pc_output_check(ctx, out_path);
	if (err)
		return err;
	/* profconv itself (or one of its threads): SIGSTOP would stop it for good */
	pc_snprintf(path, sizeof(path), "/proc/self/task/%d", pid);
	if (pid == (int)getpid() || access(path, F_OK) == 0)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
			       "pid %d: is profconv itself; it cannot stop itself to read its own memory",
			       pid);
	pc_snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "pid %d: no such process", pid);
	state = proc_state(pid);
	if (state == 'Z' || state == 'X')
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL,
			       "pid %d: is a zombie (it has ended and its parent has not reaped it yet): it has no memory to read",
			       pid);
	/* stopped already (job control, a debugger): found stopped, left stopped */
	was_stopped = state == 'T' || state == 't';
	err = read_proc_text(&c, path, &maps);
	if (!err)
		err = parse_maps(&c, maps);
	if (!err)
		err = read_threads(&c, &threads);
	if (!err) {
		pc_snprintf(path, sizeof(path), "/proc/%d/mem", pid);
		c.mem = open(path, O_RDONLY | O_CLOEXEC);
		if (c.mem < 0 && (errno == EACCES || errno == EPERM))
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "pid %d: cannot read its memory (%s): %s",
				      pid, strerror(errno), PTRACE_HINT);
		else if (c.mem < 0)
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL,
				      "pid %d: cannot read its memory (%s): root, CAP_SYS_PTRACE or a ptrace_scope that allows it is needed",
				      pid, strerror(errno));
	}
	if (err)
		goto out;
	/* stopped from here until SIGCONT; our own stop signals wait till then */
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	sigprocmask(SIG_BLOCK, &hold, &old);
	t0 = now_ms();
	if (!was_stopped && kill(pid, SIGSTOP) != 0) {
		err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "pid %d: cannot stop it: %s", pid,
			      strerror(errno));
	} else {
		err = was_stopped ? 0 : wait_stopped(&c);
		if (!err)
			err = scan_chunks(&c);
		if (!err && c.ncand)
			err = read_run(&c);
		if (!was_stopped)
			kill(pid, SIGCONT);
		stopped_ms = now_ms() - t0;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto out;
	pc_note(ctx,
		"pid %d: chunk headers rejected by their contents: %u with a first block that is not one of the buffer's grammar, %u with a block count that contradicts the bytes written, %u with an impossible start or done time; %u copies of a range already taken",
		pid, c.rej_block, c.rej_count, c.rej_time, c.rej_dup);
	if (!c.nchunks) {
		err = pc_fail(ctx, PROFCONV_ERR_CORRUPT, NULL,
			      "no profiler buffer found in pid %d: no chunk of one in its memory (is the Gecko profiler running in this process? start Firefox with MOZ_PROFILER_STARTUP=1, or the profiler from about:profiling)",
			      pid);
		goto out;
	}
	if (!run_thread_entries(&c)) {
		err = pc_fail(ctx, PROFCONV_ERR_CORRUPT, NULL,
			      "no profiler buffer found in pid %d: the %u chunk headers found (a run of %u, %zu bytes) hold no sample or marker of any thread: found by chance, not a profiler buffer (is the Gecko profiler running in this process? start Firefox with MOZ_PROFILER_STARTUP=1, or the profiler from about:profiling)",
			      pid, c.ncand, c.nchunks, c.chunks_len);
		goto out;
	}
	if (was_stopped)
		pc_note(ctx, "pid %d: was stopped already; left stopped", pid);
	/* static strings in read-only file mappings do not change: read them running */
	err = read_strings(&c);
	if (err)
		goto out;
	pc_note(ctx,
		"pid %d: stopped for %.1f ms; a run of %u chunks (%zu bytes; %u other chunk headers left out), %zu strings",
		pid, stopped_ms, c.nchunks, c.chunks_len, c.nother, c.nstrs);
	if (c.nhuge)
		pc_note(ctx, "pid %d: %u writable mappings over 16 GiB not scanned (reserved address space)",
			pid, c.nhuge);
	memset(&parts, 0, sizeof(parts));
	parts.name = c.name;
	parts.pid = (uint64_t)pid;
	parts.chunks = c.chunks;
	parts.chunks_len = c.chunks_len;
	parts.chunks_name = c.name;
	parts.threads = threads;
	parts.maps = maps;
	parts.strs = c.strs;
	parts.nstrs = c.nstrs;
	process_identity(&c, &parts);
	process_name_from_comm(&c, &parts);
	err = read_meta(&c, &o, &parts);
	if (err)
		goto out;
	parts.start_estimated = c.start_estimated;
	thread_register_times(&c, threads, o.process_start_ns);
	parts.treg = c.treg;
	parts.ntreg = c.ntreg;
	opts = &o;
	read_build_ids(&c);
	parts.ids = c.ids;
	parts.nids = c.nids;
	if (c.nids)
		pc_note(ctx, "pid %d: build ids of %zu mapped files read from its memory", pid, c.nids);
	err = libs_from_memory(&c, maps, &parts, &jit, &vdso);
	if (err)
		goto out;
	err = pc_pgkb_write(ctx, &parts, opts, out_path);
out:
	if (c.mem >= 0)
		close(c.mem);
	pc_free(ctx, maps);
	pc_free(ctx, threads);
	for (i = 0; i < c.nreg; i++)
		pc_free(ctx, c.reg[i].path);
	pc_free(ctx, c.reg);
	pc_free(ctx, c.ids);
	pc_free(ctx, c.treg);
	pc_free(ctx, c.cand);
	pc_free(ctx, c.chunks);
	pc_free(ctx, c.strs);
	pc_free(ctx, c.strpool);
	pc_gbuf_jit_free(ctx, &jit);
	pc_gbuf_vdso_free(ctx, &vdso);
	return err;
}

#else /* !__linux__ */

#include "gecko/pc_gbuf_pack.h"

PROFCONV_API int profconv_gecko_dump_pid(struct profconv_ctx *ctx, int pid,
					 const struct profconv_gecko_scrape_opts *opts,
					 const char *out_path)
{
	(void)pid;
	(void)opts;
	(void)out_path;
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
		       "gecko-dump PID reads another process's memory through /proc: Linux only");
}

#endif
