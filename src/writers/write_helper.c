/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * write_helper.c - the writer's helper thread (see pc_write_helper.h).
 *
 * Each job is taken once, by the writer or by the helper (owner[]).  The
 * writer takes job j itself when it comes to it and nobody has; otherwise
 * the helper has it, in the oldest of its result slots (the helper takes
 * jobs in increasing order and the writer hands them over in order, so the
 * slots form a ring), or the writer took it earlier into one of its own
 * slots (below).  The helper takes a job only while it has a free slot, and
 * never the job after the one the writer is at: when the writer waits for
 * the helper's job j, the helper goes on with j + 2 and leaves j + 1 to the
 * writer, rather than the two taking turns at waiting.
 *
 * Once the helper is ahead it stays ahead (it starts from the first job
 * nobody has after its own last), and the writer found every job taken and
 * waited for each while the helper formatted it: on a Chrome trace the
 * helper was busy all the writing phase and the writer half of it.  So the
 * writer, when the job it is at is the helper's and not done yet, takes the
 * first job after it that nobody has and formats it into a slot of its own
 * (a ring too: it takes them in increasing order and hands them over in
 * order), then looks again; it waits only when it has WSLOT of them.  The
 * two then format every other job while the writer hands them over.
 *
 * One mutex guards owner[], the helper's ring and the slots' state; a
 * helper slot's bytes belong to the helper until it marks the slot done,
 * then to the writer until it gives the slot back.  The writer's own slots
 * and their ring are the writer's alone.
 */
#include "core/pc_config.h"

#include <pthread.h>
#include <stdlib.h>

#include "writers/pc_write_helper.h"

/* results the helper may hold: its lead, in jobs (2048 markers each, some
 * 80 KiB of output); the writer formats a thread's other columns meanwhile,
 * and a lead of 4 left it formatting most data jobs itself */
#define NSLOT 32
/* jobs the writer may hold formatted ahead of the one it is at (it takes
 * them one at a time while it waits, so it seldom holds more than one) */
#define WSLOT 8

enum { OWN_WRITER = 1, OWN_HELPER = 2, OWN_AHEAD = 3 };

struct membuf {
	char *p;
	size_t len, cap;
	int nomem;
};

struct slot {
	struct membuf out;
	uint64_t replaced;
	int done; /* formatted (ok says whether it worked) */
	int ok;
};

/* An element writer into a slot: the helper's, or the writer's own. */
struct former {
	struct pc_jw *jw;
	struct slot *cur; /* the slot it fills */
};

struct pc_wh {
	pc_wh_job_fn *fn;
	void *user;
	uint32_t njobs;
	uint8_t *owner;	 /* per job: 0 nobody yet, OWN_WRITER, OWN_HELPER, OWN_AHEAD */
	uint32_t hnext;	 /* the helper looks for a job from here on */
	uint32_t wnext;	 /* the writer looks for a job ahead from here on */
	uint32_t at;	 /* the job the writer is at, plus 1 (0: none yet) */
	unsigned head;	 /* the helper's oldest slot */
	unsigned nused;	 /* slots taken by the helper and not given back */
	unsigned whead;	 /* the writer's oldest own slot (whead, wused: the writer's alone) */
	unsigned wused;	 /* its own slots in use */
	int stop;
	uint64_t replaced; /* of the jobs handed over */
	struct pc_wh_stats stats;
	struct former hf, wf; /* the helper's, the writer's (wf.jw NULL: none) */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_done, cv_free;
	struct slot slot[NSLOT];
	struct slot wslot[WSLOT];
	struct membuf pool[NSLOT + WSLOT]; /* buffers given back, the latest last */
	unsigned npool;
};

static int mem_write(void *user, const void *p, size_t n)
{
	struct membuf *b = user;

	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 64 * 1024;
		char *q;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->nomem = 1;
				return -1;
			}
			cap *= 2;
		}
		q = pc_map_realloc(b->p, b->cap, cap);
		if (!q) {
			b->nomem = 1;
			return -1;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* Where a former's element writer writes: the slot it is filling. */
static int former_sink(void *user, const void *p, size_t n)
{
	struct former *f = user;

	return mem_write(&f->cur->out, p, n);
}

/* Format job into slot s through f (no lock held); s->done is the caller's. */
static void format_job(struct former *f, struct slot *s, uint32_t job, pc_wh_job_fn *fn,
		       void *user)
{
	int err;

	f->cur = s;
	s->out.len = 0;
	s->out.nomem = 0;
	pc_jw_elems_reset(f->jw);
	fn(f->jw, job, user);
	err = pc_jw_elems_flush(f->jw);
	s->ok = !err && !s->out.nomem;
	s->replaced = pc_jw_replaced(f->jw);
}

/*
 * A slot taken gets the buffer given back last, and a slot handed over
 * gives its buffer back (the mutex held): the few buffers in use at a time
 * are the same ones, their pages mapped and in the cache, rather than each
 * of the 40 slots' buffer touched afresh (a job's output in new pages took
 * the helper twice the writer's time on the same jobs).
 */
static void buf_take(struct pc_wh *h, struct slot *s)
{
	if (h->npool)
		s->out = h->pool[--h->npool];
}

static void buf_give(struct pc_wh *h, struct slot *s)
{
	h->pool[h->npool++] = s->out;
	memset(&s->out, 0, sizeof(s->out));
}

static void *helper(void *arg)
{
	struct pc_wh *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct slot *s;
		uint32_t job;

		while (!h->stop && h->hnext < h->njobs && h->nused == NSLOT)
			pthread_cond_wait(&h->cv_free, &h->mu);
		if (h->stop)
			break;
		job = h->at ? h->at + 1 : 0; /* not the writer's next */
		if (job < h->hnext)
			job = h->hnext;
		while (job < h->njobs && h->owner[job])
			job++;
		if (job >= h->njobs)
			break;
		h->owner[job] = OWN_HELPER;
		h->hnext = job + 1;
		h->stats.helper++;
		s = &h->slot[(h->head + h->nused) % NSLOT];
		h->nused++;
		s->done = 0;
		buf_take(h, s);
		pthread_mutex_unlock(&h->mu);

		format_job(&h->hf, s, job, h->fn, h->user);

		pthread_mutex_lock(&h->mu);
		s->done = 1;
		pthread_cond_signal(&h->cv_done);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void wh_free(struct pc_wh *h)
{
	unsigned i;

	pthread_cond_destroy(&h->cv_free);
	pthread_cond_destroy(&h->cv_done);
	pthread_mutex_destroy(&h->mu);
	pc_jw_free(h->hf.jw);
	pc_jw_free(h->wf.jw);
	free(h->owner);
	for (i = 0; i < NSLOT; i++)
		pc_map_free(h->slot[i].out.p, h->slot[i].out.cap);
	for (i = 0; i < WSLOT; i++)
		pc_map_free(h->wslot[i].out.p, h->wslot[i].out.cap);
	for (i = 0; i < h->npool; i++)
		pc_map_free(h->pool[i].p, h->pool[i].cap);
	free(h);
}

struct pc_wh *pc_wh_start(uint32_t njobs, pc_wh_job_fn *fn, void *user)
{
	struct pc_wh *h;

	if (!njobs)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->fn = fn;
	h->user = user;
	h->njobs = njobs;
	h->owner = calloc(njobs, 1);
	if (!h->owner) {
		free(h);
		return NULL;
	}
	if (pthread_mutex_init(&h->mu, NULL) != 0) {
		free(h->owner);
		free(h);
		return NULL;
	}
	if (pthread_cond_init(&h->cv_done, NULL) != 0) {
		pthread_mutex_destroy(&h->mu);
		free(h->owner);
		free(h);
		return NULL;
	}
	if (pthread_cond_init(&h->cv_free, NULL) != 0) {
		pthread_cond_destroy(&h->cv_done);
		pthread_mutex_destroy(&h->mu);
		free(h->owner);
		free(h);
		return NULL;
	}
	h->hf.jw = pc_jw_new_elems(former_sink, &h->hf);
	h->wf.jw = pc_jw_new_elems(former_sink, &h->wf); /* NULL: the writer only waits */
	if (!h->hf.jw || pthread_create(&h->th, NULL, helper, h) != 0) {
		wh_free(h);
		return NULL;
	}
	return h;
}

/*
 * The first job after job that nobody has, for the writer to format ahead,
 * or UINT32_MAX when there is none or the writer's slots are all in use
 * (the mutex held).
 */
static uint32_t ahead_pick(struct pc_wh *h, uint32_t job)
{
	uint32_t k;

	if (!h->wf.jw || h->wused == WSLOT)
		return UINT32_MAX;
	k = h->wnext > job + 1 ? h->wnext : job + 1;
	while (k < h->njobs && h->owner[k])
		k++;
	h->wnext = k;
	return k < h->njobs ? k : UINT32_MAX;
}

/* A formatted slot's elements into w (a failed one formatted again, into w). */
static void hand_over(struct pc_wh *h, struct pc_jw *w, const struct slot *s, uint32_t job,
		      pc_wh_job_fn *fn, void *user)
{
	if (s->ok) {
		pc_jw_raw_elems(w, s->out.p, s->out.len);
		h->replaced += s->replaced;
	} else {
		fn(w, job, user);
	}
}

void pc_wh_put(struct pc_wh *h, struct pc_jw *w, uint32_t job, pc_wh_job_fn *fn, void *user)
{
	struct slot *s;

	if (!h) {
		fn(w, job, user);
		return;
	}
	pthread_mutex_lock(&h->mu);
	h->at = job + 1;
	if (!h->owner[job]) { /* nobody has it: format it here */
		h->owner[job] = OWN_WRITER;
		h->stats.direct++;
		pthread_mutex_unlock(&h->mu);
		fn(w, job, user);
		return;
	}
	if (h->owner[job] == OWN_AHEAD) { /* formatted ahead: the oldest own slot */
		pthread_mutex_unlock(&h->mu);
		s = &h->wslot[h->whead];
		hand_over(h, w, s, job, fn, user);
		h->whead = (h->whead + 1) % WSLOT;
		h->wused--;
		pthread_mutex_lock(&h->mu);
		buf_give(h, s);
		pthread_mutex_unlock(&h->mu);
		return;
	}
	s = &h->slot[h->head]; /* the helper's oldest: this job */
	while (!s->done) {
		uint32_t k = ahead_pick(h, job);
		struct slot *ws;

		if (k == UINT32_MAX) {
			h->stats.waits++;
			pthread_cond_wait(&h->cv_done, &h->mu);
			continue;
		}
		/* rather than wait: a job ahead, into an own slot */
		h->owner[k] = OWN_AHEAD;
		h->stats.ahead++;
		ws = &h->wslot[(h->whead + h->wused) % WSLOT];
		h->wused++;
		buf_take(h, ws);
		pthread_mutex_unlock(&h->mu);
		format_job(&h->wf, ws, k, fn, user);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);

	hand_over(h, w, s, job, fn, user);

	pthread_mutex_lock(&h->mu);
	s->done = 0;
	buf_give(h, s);
	h->head = (h->head + 1) % NSLOT;
	h->nused--;
	pthread_cond_signal(&h->cv_free);
	pthread_mutex_unlock(&h->mu);
}

uint64_t pc_wh_replaced(const struct pc_wh *h)
{
	return h ? h->replaced : 0;
}

void pc_wh_stats(struct pc_wh *h, struct pc_wh_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	*st = h->stats;
	pthread_mutex_unlock(&h->mu);
}

void pc_wh_stop(struct pc_wh *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	pthread_cond_signal(&h->cv_free);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->th, NULL);
	wh_free(h);
}
