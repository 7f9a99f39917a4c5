/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jpull_map.c - a plain file's bytes lent to the JSON tokenizer from
 * a mapping of the file (pc_input_borrow()) give the tokens, positions and
 * errors the same bytes give from memory: whatever window size, chunk size
 * and file size (a window boundary inside strings, numbers and literals; a
 * file that is not a multiple of the window or the page; an empty one), and
 * for a file truncated or grown after the open, what read() gives.  After
 * lent bytes the input's other calls (read, peek, pread, offset, progress)
 * still see the file's bytes at their offsets.  The files are temporaries
 * this test writes (nothing of the host's).
 */
#include "core/pc_config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/pc_input.h"
#include "json/pc_jpull.h"
#include "pc_test.h"

#define PEEK (256u << 10) /* what the open reads (input.c's PEEK_MIN) */

static struct profconv_ctx *ctx;
static char path[] = "/tmp/profconv-test-jmap-XXXXXX";

/* A JSON array of about size bytes whose tokens are of every length: long
 * strings (escapes, UTF-8) and numbers, literals, objects, newlines. */
static char *make_doc(size_t size, size_t *len)
{
	char *d = malloc(size + 64);
	size_t n = 0, i = 0;

	if (!d)
		return NULL;
	d[n++] = '[';
	while (n < size) {
		size_t k = (i * 7919) % 5000 + 1, j;

		if (i)
			d[n++] = ',';
		if (i % 5 == 0)
			d[n++] = '\n';
		if (i % 4 == 0 && n + k + 4 < size) {
			d[n++] = '"';
			for (j = 0; j < k; j++) {
				if (j % 97 == 50) {
					memcpy(d + n, "\\\"", 2);
					n += 2;
				} else if (j % 131 == 7) {
					memcpy(d + n, "\xc3\xa9", 2);
					n += 2;
				} else {
					d[n++] = (char)('a' + (i + j) % 26);
				}
			}
			d[n++] = '"';
		} else if (i % 4 == 1) {
			n += (size_t)snprintf(d + n, 48, "-%zu%zu.%zue+%zu", k, i, k * 31,
					      i % 300);
		} else if (i % 4 == 2) {
			memcpy(d + n, i % 3 ? "true" : "null", 4);
			n += 4;
		} else {
			n += (size_t)snprintf(d + n, 48, "{\"k%zu\":[false,%zu]}", i, k);
		}
		i++;
	}
	d[n++] = ']';
	*len = n;
	return d;
}

/* path holds doc[0..len). */
static int write_file(const char *doc, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, doc + done, len - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(fd);
	return done == len ? 0 : -1;
}

/* Cut the file at path to doc's first len bytes, or append the rest of them. */
static int change_file(const char *doc, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND), ok;
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;

	if (size < 0)
		ok = 0;
	else if ((size_t)size >= len)
		ok = ftruncate(fd, (off_t)len) == 0;
	else
		ok = write(fd, doc + size, len - (size_t)size) == (ssize_t)(len - (size_t)size);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Whether the file at path is mapped into this process right now. */
static int mapped_now(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int hit = 0;

	if (!f)
		return 0;
	while (!hit && fgets(line, sizeof(line), f))
		hit = strstr(line, path) != NULL;
	fclose(f);
	return hit;
}

/* FNV-1a over the token dump, so that whole documents compare cheaply. */
static void mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ULL;
}

/* What may happen to the file while it is read: at the first token past
 * offset at, it is cut to (or grown to) new_len bytes of doc. */
struct change {
	uint64_t at;
	const char *doc;
	size_t new_len;
	int done, mapped;
};

/*
 * The tokens of in (offsets, lines, columns, strings, numbers), and the
 * error message if any, hashed; *ntok gets their count.
 */
static uint64_t tokens(struct pc_input *in, size_t chunk, struct change *ch, unsigned *ntok)
{
	struct pc_jpull_opts o = { chunk, 0, 0 };
	const struct pc_jtok *t;
	struct pc_jpull *p = NULL;
	uint64_t h = 0xcbf29ce484222325ULL;
	int err;

	*ntok = 0;
	pc_clear_error(ctx);
	if (pc_jpull_new(ctx, in, &o, &p))
		return 0;
	for (;;) {
		err = pc_jpull_next(p, &t);
		if (err) {
			mix(&h, profconv_errmsg(ctx), strlen(profconv_errmsg(ctx)));
			break;
		}
		mix(&h, &t->type, sizeof(t->type));
		mix(&h, &t->offset, sizeof(t->offset));
		mix(&h, &t->line, sizeof(t->line));
		mix(&h, &t->col, sizeof(t->col));
		if (t->type == PC_JT_KEY || t->type == PC_JT_STRING || t->type == PC_JT_NUMBER)
			mix(&h, t->str, t->len);
		(*ntok)++;
		if (t->type == PC_JT_EOF)
			break;
		if (ch && !ch->done && t->offset > ch->at) {
			const char *w;
			size_t wl;

			ch->done = 1;
			ch->mapped = mapped_now();
			/* past the chunk being read (its bytes stay in the file) */
			pc_jpull_window(p, &w, &wl);
			PC_CHECK(pc_jpull_offset(p) + wl <= ch->new_len);
			PC_CHECK(change_file(ch->doc, ch->new_len) == 0);
		}
	}
	mix(&h, &err, sizeof(err));
	pc_jpull_free(p);
	return h;
}

/* The tokens of doc[0..len) from memory. */
static uint64_t mem_tokens(const char *doc, size_t len, unsigned *ntok)
{
	struct pc_input *in = NULL;
	uint64_t h;

	if (pc_input_open_mem(ctx, doc, len, path, &in))
		return 1;
	h = tokens(in, 0, NULL, ntok);
	pc_input_close(in);
	return h;
}

/* The tokens of the file at path through a mapping of window bytes. */
static uint64_t file_tokens(size_t window, size_t chunk, struct change *ch, unsigned *ntok)
{
	struct pc_input *in = NULL;
	uint64_t h;

	if (pc_input_open_path(ctx, path, &in))
		return 2;
	pc_input_set_map_window(in, window);
	PC_CHECK(pc_input_lends(in));
	h = tokens(in, chunk, ch, ntok);
	pc_input_close(in);
	return h;
}

/* Windows of one page and more, chunks smaller and larger than them. */
static void test_windows(void)
{
	static const size_t windows[] = { 4096, 12288, 65536, 8u << 20 };
	static const size_t chunks[] = { 777, 4096, 10000, 0 };
	size_t len, w, c;
	char *doc = make_doc(PEEK + 200000, &len);
	unsigned nref, n;
	uint64_t ref;

	PC_CHECK(doc && write_file(doc, len) == 0);
	if (!doc)
		return;
	ref = mem_tokens(doc, len, &nref);
	PC_CHECK(nref > 1000);
	for (w = 0; w < PC_ARRAY_SIZE(windows); w++)
		for (c = 0; c < PC_ARRAY_SIZE(chunks); c++) {
			uint64_t h = file_tokens(windows[w], chunks[c], NULL, &n);

			if (h != ref || n != nref) {
				fprintf(stderr, "window %zu chunk %zu: %u tokens, want %u\n",
					windows[w], chunks[c], n, nref);
				PC_CHECK(0);
			}
		}
	free(doc);
}

/* A complete document of exactly size bytes (blanks before its ']'). */
static char *make_sized(size_t size)
{
	size_t len;
	char *d = make_doc(size - 200, &len), *e = d ? realloc(d, size) : NULL;

	if (!e) {
		free(d);
		return NULL;
	}
	memset(e + len - 1, ' ', size - len);
	e[size - 1] = ']';
	return e;
}

/* Files whose size is no multiple of the page or the window, complete or
 * cut short (an error at the end of input), and an empty file. */
static void test_sizes(void)
{
	static const size_t extra[] = { 0, 1, 123, 4095, 4096, 4097, 3 * 4096 + 2000 };
	size_t i, cut;
	unsigned nref, n;

	for (i = 0; i < PC_ARRAY_SIZE(extra); i++)
		for (cut = 0; cut < 2; cut++) {
			size_t size = PEEK + extra[i];
			char *doc = make_sized(size + (cut ? 1000 : 0));
			uint64_t ref, h;

			PC_CHECK(doc && write_file(doc, size) == 0);
			if (!doc)
				continue;
			ref = mem_tokens(doc, size, &nref);
			h = file_tokens(4096, 1000, NULL, &n);
			if (h != ref || n != nref) {
				fprintf(stderr, "size %zu: %u tokens, want %u\n", size, n, nref);
				PC_CHECK(0);
			}
			h = file_tokens(8192, 0, NULL, &n);
			PC_CHECK(h == ref && n == nref);
			free(doc);
		}
	/* empty */
	{
		uint64_t ref = mem_tokens("", 0, &nref), h;

		PC_CHECK(write_file("", 0) == 0);
		h = file_tokens(4096, 0, NULL, &n);
		PC_CHECK(h == ref && n == nref);
	}
}

/*
 * The file changes while it is read: cut inside what the mapping would
 * still lend, or cut before the open's peek is used up, or grown: the
 * tokens are those of the bytes read() gives (no SIGBUS, no bytes past
 * the end, no end before the end).
 */
static void test_changed(void)
{
	size_t len;
	char *doc = make_doc(PEEK + 300000, &len);
	unsigned nref, n;
	uint64_t ref, h;
	struct change ch;

	PC_CHECK(doc != NULL);
	if (!doc)
		return;
	/* cut well inside a 64 KiB window, past the chunk being read */
	memset(&ch, 0, sizeof(ch));
	ch.at = PEEK + 70000;
	ch.doc = doc;
	ch.new_len = PEEK + 90000;
	ref = mem_tokens(doc, ch.new_len, &nref);
	PC_CHECK(write_file(doc, len) == 0);
	h = file_tokens(65536, 4096, &ch, &n);
	PC_CHECK(ch.done && ch.mapped);
	PC_CHECK(h == ref && n == nref);
	/* cut while the open's peek is read */
	memset(&ch, 0, sizeof(ch));
	ch.at = 1000;
	ch.doc = doc;
	ch.new_len = PEEK + 5000;
	ref = mem_tokens(doc, ch.new_len, &nref);
	PC_CHECK(write_file(doc, len) == 0);
	h = file_tokens(65536, 4096, &ch, &n);
	PC_CHECK(ch.done && !ch.mapped);
	PC_CHECK(h == ref && n == nref);
	/* grown: written whole while its first part is read */
	memset(&ch, 0, sizeof(ch));
	ch.at = PEEK + 20000;
	ch.doc = doc;
	ch.new_len = len;
	ref = mem_tokens(doc, len, &nref);
	PC_CHECK(write_file(doc, PEEK + 40000) == 0);
	h = file_tokens(8192, 4096, &ch, &n);
	PC_CHECK(ch.done && ch.mapped);
	PC_CHECK(h == ref && n == nref);
	free(doc);
}

/* After lent bytes, read, peek, pread, skip, offset and progress go on
 * from where the stream stands, with the file's bytes. */
static void test_other_calls(void)
{
	size_t len, got = 0, avail = 0, total = 0;
	char *doc = make_doc(PEEK + 100000, &len), buf[5000];
	struct pc_input *in = NULL;
	const unsigned char *b = NULL, *pk;
	uint64_t done = 0, all = 0, sk = 0;

	PC_CHECK(doc && write_file(doc, len) == 0);
	if (!doc || pc_input_open_path(ctx, path, &in)) {
		PC_CHECK(0);
		free(doc);
		return;
	}
	pc_input_set_map_window(in, 4096);
	/* the peek's bytes, then mapped ones, up to a point inside a page */
	while (total < PEEK + 10000) {
		size_t want = PEEK + 10000 - total < 3000 ? PEEK + 10000 - total : 3000;

		PC_CHECK_EQ_INT(pc_input_borrow(in, want, &b, &got), 0);
		PC_CHECK(got > 0 && memcmp(b, doc + total, got) == 0);
		if (!got)
			break;
		total += got;
	}
	PC_CHECK(mapped_now());
	PC_CHECK_EQ_INT(pc_input_offset(in), PEEK + 10000);
	PC_CHECK_EQ_INT(pc_input_read(in, buf, 3000, &got), 0);
	PC_CHECK(got == 3000 && memcmp(buf, doc + PEEK + 10000, 3000) == 0);
	pk = pc_input_peek(in, 100, &avail);
	PC_CHECK(pk && avail >= 100 && memcmp(pk, doc + PEEK + 13000, 100) == 0);
	PC_CHECK_EQ_INT(pc_input_pread(in, buf, 100, 7, &got), 0);
	PC_CHECK(got == 100 && memcmp(buf, doc + 7, 100) == 0);
	/* lending again after the read: from where the read stopped */
	PC_CHECK_EQ_INT(pc_input_borrow(in, 50, &b, &got), 0);
	PC_CHECK(got == 50 && memcmp(b, doc + PEEK + 13000, 50) == 0);
	PC_CHECK_EQ_INT(pc_input_borrow(in, 10000, &b, &got), 0);
	PC_CHECK(got > 0 && memcmp(b, doc + PEEK + 13050, got) == 0);
	PC_CHECK_EQ_INT(pc_input_skip(in, 1000, &sk), 0);
	PC_CHECK_EQ_INT(pc_input_read(in, buf, 10, &got), 0);
	PC_CHECK(got == 10 && memcmp(buf, doc + pc_input_offset(in) - 10, 10) == 0);
	/* to the end: every byte counted once */
	do {
		PC_CHECK_EQ_INT(pc_input_borrow(in, 4000, &b, &got), 0);
		PC_CHECK(memcmp(b, doc + pc_input_offset(in) - got, got) == 0);
	} while (got);
	PC_CHECK_EQ_INT(pc_input_offset(in), len);
	pc_input_progress(in, &done, &all);
	PC_CHECK_EQ_INT(done, len);
	PC_CHECK_EQ_INT(all, len);
	pc_input_close(in);
	free(doc);
}

/*
 * Whether a plain file is mapped is the caller's choice: not by default
 * (a file cut short while mapped raises SIGBUS, which the caller must
 * handle), with option "input-map" "yes" it is, and PROFCONV_INPUT_MAP=0
 * turns that off again.
 */
static void test_option(void)
{
	struct profconv_ctx *c = profconv_ctx_new();
	struct pc_input *in = NULL;
	size_t len;
	char *doc = make_doc(100000, &len);

	if (!c || !doc || write_file(doc, len) != 0) {
		PC_CHECK(0);
		profconv_ctx_free(c);
		free(doc);
		return;
	}
	PC_CHECK_EQ_INT(pc_input_open_path(c, path, &in), 0);
	PC_CHECK(in && !pc_input_lends(in));
	pc_input_close(in);
	PC_CHECK_EQ_INT(profconv_set_option(c, "input-map", "yes"), 0);
	PC_CHECK_EQ_INT(pc_input_open_path(c, path, &in), 0);
	PC_CHECK(in && pc_input_lends(in));
	pc_input_close(in);
	setenv("PROFCONV_INPUT_MAP", "0", 1);
	PC_CHECK_EQ_INT(pc_input_open_path(c, path, &in), 0);
	PC_CHECK(in && !pc_input_lends(in));
	pc_input_close(in);
	unsetenv("PROFCONV_INPUT_MAP");
	PC_CHECK(profconv_set_option(c, "input-map", "maybe") != 0);
	profconv_ctx_free(c);
	free(doc);
}

int main(void)
{
	int fd = mkstemp(path);

	ctx = profconv_ctx_new();
	if (!ctx || fd < 0)
		return 1;
	close(fd);
	test_windows();
	test_sizes();
	test_changed();
	test_other_calls();
	test_option();
	unlink(path);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
