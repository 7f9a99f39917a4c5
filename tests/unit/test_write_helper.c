/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_write_helper.c - the writers' helper thread (pc_write_helper.h): the
 * same bytes and U+FFFD counts whichever thread formats a job (the helper,
 * the writer straight into its writer, or the writer ahead into a buffer of
 * its own while the helper's job is not done), with jobs that are empty,
 * tiny, or over the 16 KiB that pc_jw_raw_elems() hands to the sink as they
 * are.  The helper is held on chosen jobs until the writer has formatted a
 * job ahead, so that path is taken whatever the machine's timing.
 */
#include "json/pc_jw.h"
#include "writers/pc_write_helper.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "pc_test.h"

static struct profconv_ctx *ctx;
static pthread_t main_thread;

struct tjobs {
	struct pc_jw *writer_w; /* the writer's own writer (NULL: the reference pass) */
	uint8_t *where;		/* per job: 'W' writer into writer_w, 'A' writer ahead, 'H' helper */
	const uint8_t *hold;	/* per job: the helper holds it until the writer formats ahead */
	unsigned hold_ahead;	/* ... this many jobs in all (0: a job after the one held) */
	unsigned spin;		/* work per element on the helper (makes it fall behind) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ahead;	    /* jobs the writer formatted ahead so far */
	uint32_t ahead_max; /* the last of them */
	unsigned timeouts;
};

static volatile unsigned sink_hole;
static char big[20000]; /* 'x's, set before any thread runs */

/* Job j's elements: numbers, a string with invalid UTF-8, sometimes 20 KiB of text, sometimes none. */
static void job_fn(struct pc_jw *w, uint32_t job, void *user)
{
	struct tjobs *t = user;
	uint32_t i, n = job % 13 == 0 ? 0 : 1 + job * 7 % 23;
	int on_main = pthread_equal(pthread_self(), main_thread);

	if (t->writer_w) {
		pthread_mutex_lock(&t->mu);
		t->where[job] = !on_main ? 'H' : w == t->writer_w ? 'W' : 'A';
		if (t->where[job] != 'W')
			pthread_cond_broadcast(&t->cv);
		if (t->where[job] == 'A') {
			t->ahead++;
			if (job > t->ahead_max)
				t->ahead_max = job;
		} else if (t->where[job] == 'H' && t->hold && t->hold[job]) {
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 10; /* a safety net: a loaded CI machine never needs it */
			while (t->hold_ahead ? t->ahead < t->hold_ahead : t->ahead_max <= job)
				if (pthread_cond_timedwait(&t->cv, &t->mu, &until) == ETIMEDOUT) {
					t->timeouts++;
					break;
				}
		}
		pthread_mutex_unlock(&t->mu);
	}
	for (i = 0; i < n; i++) {
		if (!on_main && t->spin) {
			unsigned k;

			for (k = 0; k < t->spin; k++)
				sink_hole += k;
		}
		pc_jw_u64(w, (uint64_t)job * 1000 + i);
	}
	if (n && job % 5 == 0)
		pc_jw_str(w, "a\xff" "b", 3);
	if (job % 11 == 3) {
		pc_jw_arr_begin(w);
		pc_jw_str(w, big, sizeof(big) - job % 100);
		pc_jw_obj_begin(w);
		pc_jw_key(w, "job");
		pc_jw_u64(w, job);
		pc_jw_obj_end(w);
		pc_jw_arr_end(w);
	}
}

/*
 * njobs jobs as one array through a helper (t->writer_w set) or without
 * (t NULL: every job formatted by the writer, the reference); the bytes
 * into b, the U+FFFD count into *replaced, the helper's figures into st.
 */
static void write_jobs(uint32_t njobs, struct tjobs *t, struct membuf *b, uint64_t *replaced,
		       struct pc_wh_stats *st)
{
	struct tjobs none;
	struct pc_jw *w = pc_jw_new(ctx, mem_write, b);
	struct pc_wh *h = NULL;
	uint32_t j;

	memset(st, 0, sizeof(*st));
	if (!t) {
		memset(&none, 0, sizeof(none));
		t = &none;
	} else {
		t->writer_w = w;
		h = pc_wh_start(njobs, job_fn, t);
		PC_CHECK(h != NULL);
		if (h && t->hold && t->hold[0]) { /* the helper starts on job 0: let it */
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 10; /* a safety net: a loaded CI machine never needs it */
			pthread_mutex_lock(&t->mu);
			while (t->where[0] != 'H')
				if (pthread_cond_timedwait(&t->cv, &t->mu, &until) == ETIMEDOUT)
					break;
			pthread_mutex_unlock(&t->mu);
		}
	}
	pc_jw_arr_begin(w);
	for (j = 0; j < njobs; j++)
		pc_wh_put(h, w, j, job_fn, t);
	pc_jw_arr_end(w);
	pc_wh_stats(h, st);
	*replaced = pc_wh_replaced(h) + pc_jw_replaced(w);
	pc_wh_stop(h);
	PC_CHECK_EQ_INT(pc_jw_finish(w), PROFCONV_OK);
}

static struct tjobs *tjobs_new(uint32_t njobs)
{
	struct tjobs *t = calloc(1, sizeof(*t));

	if (!t)
		exit(1);
	t->where = calloc(njobs, 1);
	if (!t->where)
		exit(1);
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	return t;
}

static void tjobs_free(struct tjobs *t)
{
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t->where);
	free(t);
}

/* The same bytes and count as the reference; every job formatted once. */
static void check_same(const struct membuf *ref, uint64_t ref_repl, const struct membuf *b,
		       uint64_t repl, const struct pc_wh_stats *st, uint32_t njobs)
{
	PC_CHECK(ref->len > 0 && b->len == ref->len && memcmp(b->p, ref->p, ref->len) == 0);
	PC_CHECK_EQ_INT(repl, ref_repl);
	PC_CHECK_EQ_INT(st->helper + st->direct + st->ahead, njobs);
}

/*
 * The helper holds job 0 until the writer, waiting for it, has formatted
 * job 1 ahead (hold_ahead 1), and then until it has formatted 8 ahead: jobs
 * 1 to 8, its slots full, so that job 9 is the helper's (it takes the next
 * job as it marks job 0 done).
 */
static void test_ahead_forced(void)
{
	static const unsigned holds[] = { 1, 8 };
	const uint32_t njobs = 40;
	struct membuf ref = { 0 };
	uint64_t ref_repl;
	struct pc_wh_stats st;
	size_t k;
	uint32_t j;

	write_jobs(njobs, NULL, &ref, &ref_repl, &st);
	PC_CHECK(ref_repl > 0 && ref.len > 40000);
	for (k = 0; k < sizeof(holds) / sizeof(holds[0]); k++) {
		struct tjobs *t = tjobs_new(njobs);
		uint8_t *hold = calloc(njobs, 1);
		struct membuf b = { 0 };
		uint64_t repl;

		if (!hold)
			exit(1);
		hold[0] = 1;
		t->hold = hold;
		t->hold_ahead = holds[k];
		write_jobs(njobs, t, &b, &repl, &st);
		check_same(&ref, ref_repl, &b, repl, &st, njobs);
		PC_CHECK_EQ_INT(t->timeouts, 0);
		PC_CHECK_EQ_INT(t->where[0], 'H');
		for (j = 1; j <= holds[k]; j++)
			PC_CHECK_EQ_INT(t->where[j], 'A');
		PC_CHECK(st.ahead >= holds[k] && st.ahead == t->ahead && st.helper >= 1);
		if (holds[k] == 8)
			PC_CHECK_EQ_INT(t->where[9], 'H');
		mem_reset(&b);
		free(hold);
		tjobs_free(t);
	}
	mem_reset(&ref);
}

/*
 * Many tiny jobs, a slower and slower helper, and every 97th job, when the
 * helper has it, held until the writer formats a job after it ahead: all
 * three ways of formatting a job mixed.
 */
static void test_ahead_mixed(void)
{
	const uint32_t njobs = 2000;
	struct membuf ref = { 0 };
	uint64_t ref_repl;
	struct pc_wh_stats st;
	uint8_t *hold = calloc(njobs, 1);
	unsigned round, held;
	uint32_t j;

	if (!hold)
		exit(1);
	hold[0] = 1; /* the writer starts when the helper has job 0 */
	for (j = 50; j + 100 < njobs; j += 97)
		hold[j] = 1;
	write_jobs(njobs, NULL, &ref, &ref_repl, &st);
	for (round = 0; round < 3; round++) {
		struct tjobs *t = tjobs_new(njobs);
		struct membuf b = { 0 };
		uint64_t repl;

		t->hold = hold;
		t->spin = round * 200;
		write_jobs(njobs, t, &b, &repl, &st);
		check_same(&ref, ref_repl, &b, repl, &st, njobs);
		PC_CHECK_EQ_INT(t->timeouts, 0);
		/* a job held on the helper was let go by a job formatted ahead */
		for (j = held = 0; j < njobs; j++)
			held += hold[j] && t->where[j] == 'H';
		PC_CHECK(held > 0 && st.helper >= held && st.ahead > 0);
		mem_reset(&b);
		tjobs_free(t);
	}
	mem_reset(&ref);
	free(hold);
}

int main(void)
{
	main_thread = pthread_self();
	memset(big, 'x', sizeof(big));
	ctx = profconv_ctx_new();
	if (!ctx)
		return 1;
	test_ahead_forced();
	test_ahead_mixed();
	PC_CHECK_EQ_INT(ctx->mem_used, 0); /* every writer was freed */
	profconv_ctx_free(ctx);
	return pc_test_done();
}
