/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_test.h - a tiny check library for the unit tests.
 *
 * PC_CHECK* report the file, line and values on failure and count it; a
 * test's main() ends with "return pc_test_done();", which prints the plain
 * "N passed, N failed" line and returns non-zero if anything failed.
 */
#ifndef PC_TEST_H
#define PC_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pc_test_pass, pc_test_fail;

#define PC_CHECK(cond)                                                                             \
	do {                                                                                       \
		if (cond) {                                                                        \
			pc_test_pass++;                                                            \
		} else {                                                                           \
			pc_test_fail++;                                                            \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
		}                                                                                  \
	} while (0)

#define PC_CHECK_EQ_INT(a, b)                                                                      \
	do {                                                                                       \
		long long pc_a_ = (long long)(a), pc_b_ = (long long)(b);                          \
		if (pc_a_ == pc_b_) {                                                              \
			pc_test_pass++;                                                            \
		} else {                                                                           \
			pc_test_fail++;                                                            \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,        \
				__LINE__, #a, #b, pc_a_, pc_b_);                                   \
		}                                                                                  \
	} while (0)

#define PC_CHECK_EQ_STR(a, b)                                                                      \
	do {                                                                                       \
		const char *pc_a_ = (a), *pc_b_ = (b);                                             \
		if (pc_a_ && pc_b_ && strcmp(pc_a_, pc_b_) == 0) {                                 \
			pc_test_pass++;                                                            \
		} else {                                                                           \
			pc_test_fail++;                                                            \
			fprintf(stderr, "%s:%d: %s == %s failed:\n  got:      \"%s\"\n  expected: \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, pc_a_ ? pc_a_ : "(null)",              \
				pc_b_ ? pc_b_ : "(null)");                                         \
		}                                                                                  \
	} while (0)

/*
 * An output sink for the writers (a profconv_write_fn): collects the bytes,
 * NUL-terminated.  With fail_after set, the write that would pass that many
 * bytes fails, and so does every later one (calls_after_fail counts them).
 */
struct membuf {
	char *p;
	size_t len, cap;
	size_t fail_after; /* 0 = never fail */
	unsigned calls, calls_after_fail;
	int failed;
};

static inline int mem_write(void *user, const void *buf, size_t len)
{
	struct membuf *b = user;

	b->calls++;
	if (b->failed) {
		b->calls_after_fail++;
		return -1;
	}
	if (b->fail_after && b->len + len > b->fail_after) {
		b->failed = 1;
		return -1;
	}
	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *np = realloc(b->p, cap);

		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

/* Does b[0..len) hold the bytes of s (not empty)?  A plain search, for
 * checking outputs and as the reference for faster searches. */
static inline int pc_test_has_bytes(const void *b, size_t len, const char *s)
{
	const unsigned char *h = b;
	size_t n = strlen(s), i;

	for (i = 0; h && n && i + n <= len; i++)
		if (memcmp(h + i, s, n) == 0)
			return 1;
	return 0;
}

/* The whole file at path, NUL-terminated, in malloc'd memory; NULL if it
 * cannot be opened or read. */
static inline char *pc_test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0, got;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			cap = (n + 65536) * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, 65536, f);
		n += got;
	} while (got == 65536);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static inline void mem_reset(struct membuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static inline int pc_test_done(void)
{
	printf("%d passed, %d failed\n", pc_test_pass, pc_test_fail);
	return pc_test_fail != 0 || pc_test_pass == 0;
}

/* Input through a read callback (profconv_read_cb()) at most 7 bytes a
 * call, so blocks straddle every boundary; calls counts the calls. */
struct pc_test_chunks {
	const char *data;
	size_t len, pos, calls;
	size_t fail_at; /* test_api.c read_fails(): fail once pos reaches it (0: 100) */
};

static inline long pc_test_read_7(void *user, void *buf, size_t cap)
{
	struct pc_test_chunks *c = user;
	size_t n = c->len - c->pos;

	if (n > 7)
		n = 7;
	if (n > cap)
		n = cap;
	memcpy(buf, c->data + c->pos, n);
	c->pos += n;
	c->calls++;
	return (long)n;
}

#endif /* PC_TEST_H */
