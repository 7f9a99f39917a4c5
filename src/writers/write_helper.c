/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * write_helper.c - the writer's helper thread (see pc_write_helper.h).
 *
 * Each job is taken once, by the writer or by the helper (owner[]).  The
 * writer takes job j itself when it comes to it and nobody has; otherwise
 * the helper has it, in the oldest of its result slots (the helper takes
 * jobs in increasing order and the writer hands them over in order, so the
 * slots form a ring).  The helper takes a job only while it has a free
 * slot, and never the job after the one the writer is at: when the writer
 * waits for the helper's job j, the helper goes on with j + 2 and leaves
 * j + 1 to the writer, rather than the two taking turns at waiting.  One
 * mutex guards owner[], the ring and the slots' state; a slot's bytes
 * belong to the helper until it marks the slot done, then to the writer
 * until it gives the slot back.
 */
#include "core/pc_config.h"

#include <pthread.h>
#include <stdlib.h>

#include "writers/pc_write_helper.h"

/* results the helper may hold: its lead, in jobs (2048 markers each, some
 * 80 KiB of output); the writer formats a thread's other columns meanwhile,
 * and a lead of 4 left it formatting most data jobs itself */
#define NSLOT 32

enum { OWN_WRITER = 1, OWN_HELPER = 2 };

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

struct pc_wh {
	pc_wh_job_fn *fn;
	void *user;
	uint32_t njobs;
	uint8_t *owner;	 /* per job: 0 nobody yet, OWN_WRITER, OWN_HELPER */
	uint32_t hnext;	 /* the helper looks for a job from here on */
	uint32_t at;	 /* the job the writer is at, plus 1 (0: none yet) */
	unsigned head;	 /* the helper's oldest slot */
	unsigned nused;	 /* slots taken by the helper and not given back */
	int stop;
	uint64_t replaced; /* of the jobs handed over */
	struct pc_jw *jw;  /* the helper's element writer */
	struct slot *cur;  /* the slot it fills (the helper's own) */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_done, cv_free;
	struct slot slot[NSLOT];
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

static void *helper(void *arg)
{
	struct pc_wh *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct slot *s;
		uint32_t job;
		int err;

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
		s = &h->slot[(h->head + h->nused) % NSLOT];
		h->nused++;
		s->done = 0;
		pthread_mutex_unlock(&h->mu);

		h->cur = s;
		s->out.len = 0;
		s->out.nomem = 0;
		pc_jw_elems_reset(h->jw);
		h->fn(h->jw, job, h->user);
		err = pc_jw_elems_flush(h->jw);

		pthread_mutex_lock(&h->mu);
		s->ok = !err && !s->out.nomem;
		s->replaced = pc_jw_replaced(h->jw);
		s->done = 1;
		pthread_cond_signal(&h->cv_done);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Where the helper's element writer writes: the slot it is filling. */
static int helper_sink(void *user, const void *p, size_t n)
{
	struct pc_wh *h = user;

	return mem_write(&h->cur->out, p, n);
}

static void wh_free(struct pc_wh *h)
{
	unsigned i;

	pthread_cond_destroy(&h->cv_free);
	pthread_cond_destroy(&h->cv_done);
	pthread_mutex_destroy(&h->mu);
	pc_jw_free(h->jw);
	free(h->owner);
	for (i = 0; i < NSLOT; i++)
		pc_map_free(h->slot[i].out.p, h->slot[i].out.cap);
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
	h->jw = pc_jw_new_elems(helper_sink, h);
	if (!h->jw || pthread_create(&h->th, NULL, helper, h) != 0) {
		wh_free(h);
		return NULL;
	}
	return h;
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
		pthread_mutex_unlock(&h->mu);
		fn(w, job, user);
		return;
	}
	s = &h->slot[h->head]; /* the helper's oldest: this job */
	while (!s->done)
		pthread_cond_wait(&h->cv_done, &h->mu);
	pthread_mutex_unlock(&h->mu);

	if (s->ok) {
		pc_jw_raw_elems(w, s->out.p, s->out.len);
		h->replaced += s->replaced;
	} else {
		fn(w, job, user);
	}

	pthread_mutex_lock(&h->mu);
	s->done = 0;
	h->head = (h->head + 1) % NSLOT;
	h->nused--;
	pthread_cond_signal(&h->cv_free);
	pthread_mutex_unlock(&h->mu);
}

uint64_t pc_wh_replaced(const struct pc_wh *h)
{
	return h ? h->replaced : 0;
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
