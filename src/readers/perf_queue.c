/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_queue.c - the ordered queue (tools/perf/util/ordered-events.c's contract)
 * (the perf.data reader; see read_perf.c and pc_perf.h).
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_perf.h"

/* --- the ordered queue (tools/perf/util/ordered-events.c's contract) --- */

/*
 * Stable natural merge sort by time.  Each round holds a few runs that are
 * already in order (one per CPU buffer, plus what the last flush kept), so
 * this costs O(n log runs) and keeps arrival order among equal times.
 */
static int sort_queue(struct perf *p)
{
	uint32_t n = p->qlen, k;
	struct qent *a = p->q + p->qhead, *t;

	for (k = 1; k < n && a[k].time >= a[k - 1].time; k++)
		;
	if (k >= n)
		return 0; /* already in order: nothing moves */
	if (pc_grow(p->ctx, (void **)&p->qtmp, sizeof(*p->qtmp), &p->qtmp_cap, n))
		return PROFCONV_ERR_NOMEM;
	t = p->qtmp;
	for (;;) {
		uint32_t lo = 0, runs = 0;

		while (lo < n) {
			uint32_t mid = lo + 1, hi, i, j, o = lo;

			while (mid < n && a[mid].time >= a[mid - 1].time)
				mid++;
			hi = mid;
			if (hi < n) {
				hi++;
				while (hi < n && a[hi].time >= a[hi - 1].time)
					hi++;
			}
			runs++;
			for (i = lo, j = mid; i < mid && j < hi;)
				t[o++] = a[j].time < a[i].time ? a[j++] : a[i++];
			while (i < mid)
				t[o++] = a[i++];
			while (j < hi)
				t[o++] = a[j++];
			lo = hi;
		}
		{
			struct qent *x = a;

			a = t;
			t = x;
		}
		if (runs <= 1)
			break;
	}
	if (a == p->qtmp) {
		/*
		 * The sorted data ended up in the scratch array, from its start:
		 * swap the arrays.  This also drops the flushed head for free.
		 */
		uint32_t c = p->qcap;

		p->qtmp = p->q;
		p->q = a;
		p->qcap = p->qtmp_cap;
		p->qtmp_cap = c;
		p->qhead = 0;
	}
	return 0;
}

void perf_free_qchunks(struct perf *p, struct qchunk *c)
{
	while (c) {
		struct qchunk *n = c->next;

		pc_free(p->ctx, c);
		c = n;
	}
}

static unsigned char *qalloc(struct perf *p, size_t n, struct qchunk **chunk)
{
	struct qchunk *c = p->qcur;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		if (p->qfree && p->qfree->size >= n) {
			c = p->qfree;
			p->qfree = c->next_free;
		} else {
			size_t size = n > ((size_t)1 << 20) ? n : ((size_t)1 << 20);

			c = pc_alloc(p->ctx, sizeof(*c) + size);
			if (!c)
				return NULL;
			c->next = p->qchunks;
			c->size = size;
			p->qchunks = c;
		}
		c->used = 0;
		c->live = 0;
		c->next_free = NULL;
		p->qcur = c;
	}
	c->used += n;
	c->live++;
	p->qbytes += n;
	*chunk = c;
	return c->data + c->used - n;
}

/* A queued record was handled: its chunk is reused once it holds no live record. */
static void qrelease(struct perf *p, const struct qent *e)
{
	struct qchunk *c = e->chunk;

	p->qbytes -= (ld16(p, e->rec + 6) + 7u) & ~7u;
	if (--c->live)
		return;
	if (c == p->qcur) {
		c->used = 0;
	} else {
		c->next_free = p->qfree;
		p->qfree = c;
	}
}

/* Dispatch every queued record with time <= limit, in (time, arrival) order. */
int perf_flush_queue(struct perf *p, int64_t limit)
{
	struct qent *q;
	uint32_t i, n = 0;
	int err;

	/* nothing due: many rounds in a row must not rescan the queue each time */
	if (!p->qlen || limit < p->qmin)
		return 0;
	err = sort_queue(p);
	if (err)
		return err;
	q = p->q + p->qhead;
	while (n < p->qlen && q[n].time <= limit)
		n++;
	for (i = 0; i < n && !err; i++) {
		if (q[i].time < p->last_dispatched)
			err = perf_warn_at(p, W_BACKWARDS, q[i].off,
				      "record time %lld is before an already processed one (%lld)",
				      (long long)q[i].time, (long long)p->last_dispatched);
		else
			p->last_dispatched = q[i].time;
		if (!err)
			err = perf_dispatch(p, q[i].rec, q[i].off);
		qrelease(p, &q[i]);
	}
	if (err)
		return err;
	/* the rest stays where it is: the next sort's first merge pass moves it */
	p->qhead = n < p->qlen ? p->qhead + n : 0;
	p->qlen -= n;
	p->qmin = p->qlen ? p->q[p->qhead].time : INT64_MAX;
	return 0;
}

int64_t perf_record_time(struct perf *p, uint32_t type, const unsigned char *rec, size_t size)
{
	const unsigned char *b = rec + 8;
	size_t bs = size - 8;

	if (type == REC_SAMPLE) {
		const struct attr *a = p->nattrs ? &p->attrs[0] : NULL;
		size_t pos = 0;

		if (!a)
			return PC_NO_TIME;
		if (p->all_identifier) {
			if (bs < 8)
				return PC_NO_TIME;
			a = perf_attr_for_id(p, ld64(p, b));
			if (!a)
				return PC_NO_TIME;
		}
		if (!(a->sample_type & S_TIME))
			return PC_NO_TIME;
		pos = 8 * (size_t)(!!(a->sample_type & S_IDENTIFIER) + !!(a->sample_type & S_IP) +
				   !!(a->sample_type & S_TID));
		if (pos + 8 > bs)
			return PC_NO_TIME;
		return (int64_t)ld64(p, b + pos);
	}
	if (type < REC_KERNEL_MAX) {
		struct sid s;

		perf_parse_sid(p, b, bs, 0, &s);
		return s.time;
	}
	return PC_NO_TIME;
}

int perf_enqueue(struct perf *p, const unsigned char *rec, size_t size, int64_t time,
		 uint64_t off)
{
	struct qent *e;
	unsigned char *c;

	if (p->qbytes > QUEUE_LIMIT) {
		/* No FINISHED_ROUND in sight: flush the older half (perf does the same). */
		int64_t mid;
		int err = sort_queue(p);

		if (err)
			return err;
		mid = p->q[p->qhead + p->qlen / 2].time;
		err = perf_flush_queue(p, mid);
		if (err)
			return err;
	}
	if (p->qhead && p->qhead + p->qlen == p->qcap && p->qhead >= p->qlen) {
		/* full at the tail with at least half of it free at the head: compact */
		memmove(p->q, p->q + p->qhead, (size_t)p->qlen * sizeof(*p->q));
		p->qhead = 0;
	}
	if (p->qhead + p->qlen >= p->qcap &&
	    pc_grow(p->ctx, (void **)&p->q, sizeof(*p->q), &p->qcap,
		    (size_t)p->qhead + p->qlen + 1))
		return PROFCONV_ERR_NOMEM;
	e = p->q + p->qhead + p->qlen;
	c = qalloc(p, size, &e->chunk);
	if (!c)
		return PROFCONV_ERR_NOMEM;
	memcpy(c, rec, size);
	e->time = time;
	e->off = off;
	e->rec = c;
	p->qlen++;
	if (time > p->round_max)
		p->round_max = time;
	if (time < p->qmin)
		p->qmin = time;
	return 0;
}

/* The data ends inside a record: one warning per input, however it shows. */
