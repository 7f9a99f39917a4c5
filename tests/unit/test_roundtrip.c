/*
 * test_roundtrip.c - the property of issue 22: every output profconv writes,
 * for every input of tests/fixtures and of the fuzz corpora
 * (tests/fuzz/corpus) that converts, is accepted by `profconv validate`
 * (profconv_validate_path()) and read back by profconv's own reader into
 * the same counts: threads (by process and thread id), and per thread its
 * samples and markers (and their sums), counters and their samples; for
 * the processed format also libs, stacks, frames and funcs (the Gecko
 * format has no func table and keeps stacks per thread: its reader
 * rebuilds them, and makes a lib only when a frame uses it, as the
 * front-end does).
 *
 * Both output formats (processed, Gecko), read without symbols (hermetic).
 * An input is skipped when it does not convert (an ELF, a README, a
 * corpus input made to fail).  The test names the input, the format and
 * what differs.  It needs PC_FIXTURES (tests/fixtures; the corpus is its
 * ../fuzz/corpus), set by CTest.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profconv.h"
#include "pc_test.h"

/* A thread's counts, by its process and thread ids (the Gecko reader orders threads by process). */
struct tcount {
	int64_t pid, tid;
	size_t samples, markers;
};

struct counts {
	size_t threads, samples, markers, stacks, frames, funcs, libs, counters, counter_samples;
	struct tcount *t; /* sorted by pid, tid, samples, markers */
};

static int tcount_cmp(const void *a, const void *b)
{
	const struct tcount *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? -1 : 1;
	return x->markers < y->markers ? -1 : x->markers > y->markers;
}

static void counts_of(const struct profconv_profile *p, struct counts *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->threads = profconv_profile_thread_count(p);
	c->t = calloc(c->threads + 1, sizeof(*c->t));
	if (!c->t)
		abort();
	for (i = 0; i < c->threads; i++) {
		struct profconv_thread t;

		if (profconv_profile_thread(p, i, &t) != PROFCONV_OK)
			abort();
		c->t[i].pid = t.pid;
		c->t[i].tid = t.tid;
		c->t[i].samples = t.samples;
		c->t[i].markers = t.markers;
		c->samples += t.samples;
		c->markers += t.markers;
	}
	qsort(c->t, c->threads, sizeof(*c->t), tcount_cmp);
	c->stacks = profconv_profile_stack_count(p);
	c->frames = profconv_profile_frame_count(p);
	c->funcs = profconv_profile_func_count(p);
	c->libs = profconv_profile_lib_count(p);
	c->counters = profconv_profile_counter_count(p);
	for (i = 0; i < c->counters; i++) {
		struct profconv_counter k;

		if (profconv_profile_counter(p, i, &k) != PROFCONV_OK)
			abort();
		c->counter_samples += k.samples;
	}
}

static void counts_free(struct counts *c)
{
	free(c->t);
}

static char last_diag[1024];

static void diag(void *user, enum profconv_severity sev, const char *msg)
{
	(void)user;
	if (sev == PROFCONV_ERROR && !last_diag[0])
		snprintf(last_diag, sizeof(last_diag), "%s", msg);
}

static int discard(void *user, const void *buf, size_t len)
{
	(void)user;
	(void)buf;
	(void)len;
	return 0;
}

static struct profconv_ctx *new_ctx(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();

	if (!ctx || profconv_set_option(ctx, "symbols", "no") ||
	    profconv_set_option(ctx, "host-symbols", "no"))
		abort();
	profconv_set_diag(ctx, diag, NULL);
	profconv_set_max_memory(ctx, (uint64_t)512 << 20);
	return ctx;
}

static char tmp_out[4096];
static size_t n_inputs, n_converted, n_outputs;

#define DIFF(what, a, b)                                                                            \
	do {                                                                                       \
		if ((a) != (b)) {                                                                  \
			fprintf(stderr, "%s -> %s: %s: %zu written, %zu read back\n", path, fmt,   \
				what, (size_t)(a), (size_t)(b));                                   \
			bad = 1;                                                                   \
		}                                                                                  \
	} while (0)

/* One output format of one input: validate, read back, compare. */
static void check_format(const char *path, const struct profconv_profile *p,
			 const struct counts *c, const char *fmt)
{
	struct profconv_ctx *ctx = new_ctx();
	struct profconv_profile *q = NULL;
	struct counts d;
	size_t i;
	int err, bad = 0;

	err = profconv_write_path(ctx, p, fmt, tmp_out);
	if (err) {
		fprintf(stderr, "%s -> %s: write failed: %s\n", path, fmt, profconv_errmsg(ctx));
		PC_CHECK(!err);
		profconv_ctx_free(ctx);
		return;
	}
	n_outputs++;
	profconv_ctx_free(ctx);
	ctx = new_ctx();
	last_diag[0] = 0;
	err = profconv_validate_path(ctx, tmp_out, discard, NULL);
	if (err) {
		fprintf(stderr, "%s -> %s: validate refuses the output: %s%s%s\n", path, fmt,
			last_diag, last_diag[0] ? "; " : "", profconv_errmsg(ctx));
		PC_CHECK(!err);
	}
	profconv_ctx_free(ctx);
	ctx = new_ctx();
	err = profconv_read_path(ctx, tmp_out, &q);
	if (err) {
		fprintf(stderr, "%s -> %s: the output does not read back: %s\n", path, fmt,
			profconv_errmsg(ctx));
		PC_CHECK(!err);
		profconv_ctx_free(ctx);
		return;
	}
	counts_of(q, &d);
	DIFF("threads", c->threads, d.threads);
	DIFF("samples", c->samples, d.samples);
	DIFF("markers", c->markers, d.markers);
	for (i = 0; i < c->threads && i < d.threads; i++) {
		if (c->t[i].pid != d.t[i].pid || c->t[i].tid != d.t[i].tid) {
			fprintf(stderr, "%s -> %s: thread %zu: pid %lld tid %lld written, pid %lld tid %lld read back\n",
				path, fmt, i, (long long)c->t[i].pid, (long long)c->t[i].tid,
				(long long)d.t[i].pid, (long long)d.t[i].tid);
			bad = 1;
		}
		DIFF("a thread's samples", c->t[i].samples, d.t[i].samples);
		DIFF("a thread's markers", c->t[i].markers, d.t[i].markers);
	}
	DIFF("counters", c->counters, d.counters);
	DIFF("counter samples", c->counter_samples, d.counter_samples);
	if (strcmp(fmt, PROFCONV_OUT_PROCESSED) == 0) {
		/* the Gecko reader makes a lib only when a frame uses it (as the front-end does) */
		DIFF("libs", c->libs, d.libs);
		DIFF("stacks", c->stacks, d.stacks);
		DIFF("frames", c->frames, d.frames);
		DIFF("funcs", c->funcs, d.funcs);
	}
	PC_CHECK(!bad);
	counts_free(&d);
	profconv_profile_free(q);
	profconv_ctx_free(ctx);
}

static void check_input(const char *path)
{
	struct profconv_ctx *ctx = new_ctx();
	struct profconv_profile *p = NULL;
	struct counts c;

	n_inputs++;
	if (profconv_read_path(ctx, path, &p) != PROFCONV_OK) {
		profconv_ctx_free(ctx);
		return; /* not an input that converts */
	}
	profconv_ctx_free(ctx);
	n_converted++;
	counts_of(p, &c);
	check_format(path, p, &c, PROFCONV_OUT_PROCESSED);
	check_format(path, p, &c, PROFCONV_OUT_GECKO);
	counts_free(&c);
	profconv_profile_free(p);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under dir, in name order (deterministic). */
static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (!d) {
		fprintf(stderr, "%s: cannot open\n", dir);
		PC_CHECK(d != NULL);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			abort();
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		struct stat st;

		if (lstat(names[i], &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(names[i]);
			else if (S_ISREG(st.st_mode))
				check_input(names[i]);
		}
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	const char *fx = getenv("PC_FIXTURES");
	const char *td = getenv("TMPDIR");
	char corpus[4096], dir[2048];

	if (!fx) {
		fputs("PC_FIXTURES is not set\n", stderr);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/profconv-roundtrip-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	snprintf(tmp_out, sizeof(tmp_out), "%s/out.json", dir);
	snprintf(corpus, sizeof(corpus), "%s/../fuzz/corpus", fx);
	walk(fx);
	walk(corpus);
	unlink(tmp_out);
	rmdir(dir);
	printf("%zu inputs, %zu converted, %zu outputs checked\n", n_inputs, n_converted, n_outputs);
	/* the fixtures and corpus convert in the hundreds: a walk that found none is broken */
	PC_CHECK(n_converted >= 200);
	return pc_test_done();
}
