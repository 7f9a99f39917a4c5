/* SPDX-License-Identifier: BSD-2-Clause */
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
 * The inputs are shared out to two threads, each with its own contexts
 * and temporary file.  Two inputs of the corpus make 2 million derived
 * samples each: most of the time is theirs.  PC_ROUNDTRIP_MAX_SAMPLES
 * (set by CMake in the sanitizer build, where they took 40 of 57 CPU
 * seconds) leaves inputs with more samples to the normal build, counted
 * as such; fuzz.replay_json runs them under the sanitizers.
 * An input is skipped when it does not convert (an ELF, a README, a
 * corpus input made to fail).  The test names the input, the format and
 * what differs.  It needs PC_FIXTURES (tests/fixtures; the corpus is its
 * ../fuzz/corpus), set by CTest.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdarg.h>
#include <pthread.h>
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
		struct profconv_thread t = PROFCONV_INIT(struct profconv_thread);

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
		struct profconv_counter k = PROFCONV_INIT(struct profconv_counter);

		if (profconv_profile_counter(p, i, &k) != PROFCONV_OK)
			abort();
		c->counter_samples += k.samples;
	}
}

static void counts_free(struct counts *c)
{
	free(c->t);
}

/* One worker's state: its temporary output and the first error a ctx reported. */
struct worker {
	char tmp_out[4096];
	char last_diag[1024];
	pthread_t th;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **inputs;
static size_t n_inputs, next_input, n_converted, n_outputs, n_failed, n_big;
static size_t max_samples = (size_t)-1;

static void diag(void *user, const struct profconv_diag *d)
{
	struct worker *w = user;

	if (d->severity == PROFCONV_ERROR && !w->last_diag[0])
		snprintf(w->last_diag, sizeof(w->last_diag), "%s", d->message);
}

/* A failed property: said at once, counted (PC_CHECK is not for threads). */
static void failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failed(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	n_failed++;
	pthread_mutex_unlock(&lock);
}

static int discard(void *user, const void *buf, size_t len)
{
	(void)user;
	(void)buf;
	(void)len;
	return 0;
}

static struct profconv_ctx *new_ctx(struct worker *w)
{
	struct profconv_ctx *ctx = profconv_ctx_new();

	if (!ctx || profconv_set_option(ctx, "symbols", "no") ||
	    profconv_set_option(ctx, "host-symbols", "no"))
		abort();
	profconv_set_diagnostics(ctx, diag, w);
	profconv_set_max_memory(ctx, (uint64_t)512 << 20);
	return ctx;
}

#define DIFF(what, a, b)                                                                            \
	do {                                                                                       \
		if ((a) != (b)) {                                                                  \
			failed("%s -> %s: %s: %zu written, %zu read back\n", path, fmt, what,     \
			       (size_t)(a), (size_t)(b));                                          \
		}                                                                                  \
	} while (0)

/* One output format of one input: validate, read back, compare. */
static void check_format(struct worker *w, const char *path, const struct profconv_profile *p,
			 const struct counts *c, const char *fmt)
{
	struct profconv_ctx *ctx = new_ctx(w);
	struct profconv_profile *q = NULL;
	struct counts d;
	size_t i;
	int err;

	err = profconv_write_path(ctx, p, fmt, w->tmp_out);
	if (err) {
		failed("%s -> %s: write failed: %s\n", path, fmt, profconv_errmsg(ctx));
		profconv_ctx_free(ctx);
		return;
	}
	pthread_mutex_lock(&lock);
	n_outputs++;
	pthread_mutex_unlock(&lock);
	profconv_ctx_free(ctx);
	ctx = new_ctx(w);
	w->last_diag[0] = 0;
	err = profconv_validate_path(ctx, w->tmp_out, discard, NULL);
	if (err)
		failed("%s -> %s: validate refuses the output: %s%s%s\n", path, fmt, w->last_diag,
		       w->last_diag[0] ? "; " : "", profconv_errmsg(ctx));
	profconv_ctx_free(ctx);
	ctx = new_ctx(w);
	err = profconv_read_path(ctx, w->tmp_out, &q);
	if (err) {
		failed("%s -> %s: the output does not read back: %s\n", path, fmt,
		       profconv_errmsg(ctx));
		profconv_ctx_free(ctx);
		return;
	}
	counts_of(q, &d);
	DIFF("threads", c->threads, d.threads);
	DIFF("samples", c->samples, d.samples);
	DIFF("markers", c->markers, d.markers);
	for (i = 0; i < c->threads && i < d.threads; i++) {
		if (c->t[i].pid != d.t[i].pid || c->t[i].tid != d.t[i].tid)
			failed("%s -> %s: thread %zu: pid %lld tid %lld written, pid %lld tid %lld read back\n",
			       path, fmt, i, (long long)c->t[i].pid, (long long)c->t[i].tid,
			       (long long)d.t[i].pid, (long long)d.t[i].tid);
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
	counts_free(&d);
	profconv_profile_free(q);
	profconv_ctx_free(ctx);
}

static void check_input(struct worker *w, const char *path)
{
	struct profconv_ctx *ctx = new_ctx(w);
	struct profconv_profile *p = NULL;
	struct counts c;

	if (profconv_read_path(ctx, path, &p) != PROFCONV_OK) {
		profconv_ctx_free(ctx);
		return; /* not an input that converts */
	}
	counts_of(p, &c);
	pthread_mutex_lock(&lock);
	n_converted++;
	n_big += c.samples > max_samples;
	pthread_mutex_unlock(&lock);
	if (c.samples > max_samples) {
		counts_free(&c);
		profconv_profile_free(p);
		profconv_ctx_free(ctx);
		return;
	}
	check_format(w, path, p, &c, PROFCONV_OUT_PROCESSED);
	check_format(w, path, p, &c, PROFCONV_OUT_GECKO);
	counts_free(&c);
	profconv_profile_free(p);
	profconv_ctx_free(ctx); /* the profile's memory is the reading ctx's */
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		const char *path;

		pthread_mutex_lock(&lock);
		path = next_input < n_inputs ? inputs[next_input++] : NULL;
		pthread_mutex_unlock(&lock);
		if (!path)
			return NULL;
		check_input(w, path);
	}
}

/* Every regular file under dir, in name order, onto the list of inputs. */
static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	static size_t icap;

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

		if (lstat(names[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			walk(names[i]);
		} else if (lstat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (n_inputs == icap) {
				icap = icap ? icap * 2 : 256;
				inputs = realloc(inputs, icap * sizeof(*inputs));
				if (!inputs)
					abort();
			}
			inputs[n_inputs++] = names[i];
			continue;
		}
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	const char *fx = getenv("PC_FIXTURES");
	const char *ms = getenv("PC_ROUNDTRIP_MAX_SAMPLES");
	const char *td = getenv("TMPDIR");
	char corpus[4096], dir[2048];
	struct worker w[2];
	size_t i;

	if (!fx) {
		fputs("PC_FIXTURES is not set\n", stderr);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/profconv-roundtrip-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	if (ms && *ms)
		max_samples = (size_t)strtoull(ms, NULL, 10);
	snprintf(corpus, sizeof(corpus), "%s/../fuzz/corpus", fx);
	walk(fx);
	walk(corpus);
	memset(w, 0, sizeof(w));
	for (i = 0; i < 2; i++) {
		snprintf(w[i].tmp_out, sizeof(w[i].tmp_out), "%s/out%zu.json", dir, i);
		if (pthread_create(&w[i].th, NULL, work, &w[i]) != 0)
			abort();
	}
	for (i = 0; i < 2; i++) {
		pthread_join(w[i].th, NULL);
		unlink(w[i].tmp_out);
	}
	rmdir(dir);
	for (i = 0; i < n_inputs; i++)
		free(inputs[i]);
	free(inputs);
	printf("%zu inputs, %zu converted, %zu outputs checked, %zu disagreements", n_inputs,
	       n_converted, n_outputs, n_failed);
	if (n_big)
		printf(" (%zu inputs of over %zu samples left to the normal build)", n_big,
		       max_samples);
	putchar('\n');
	PC_CHECK(n_failed == 0);
	/* the fixtures and corpus convert in the hundreds: a walk that found none is broken */
	PC_CHECK(n_converted >= 200);
	return pc_test_done();
}
