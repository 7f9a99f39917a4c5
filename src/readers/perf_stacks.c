/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_stacks.c - the perf reader's stack interning: a resolved callchain
 * (frame rows, leaf first) becomes a stack row through the path index (see
 * struct path_slot in pc_perf.h), on a second thread when the recording is
 * big enough to pay for one.
 *
 * The reader resolves a sample's chain to frames itself (that depends on the
 * maps as of the sample) and submits the frames as a job; the job's number,
 * its ticket, stands for the stack in everything the reader keeps while it
 * reads (the samples' stack column, the callchain cache, the stacks off-CPU
 * markers take as their cause).  Jobs are interned in the order they were
 * submitted, by one thread at a time, so the stack rows and their numbers are
 * exactly those of interning each chain as it is read.  perf_stacks_end()
 * then hands the rows to the model and replaces every ticket by its stack.
 *
 * Threads: until THREAD_AFTER jobs (none when the recording's data is
 * THREAD_AT_ONCE or more; and always under "threads" "no", when
 * the ctx fails allocations on purpose or is at its memory limit already,
 * or when the thread cannot be started; see worker_start()),
 * jobs are interned at once on the reader's thread, with the reader's ctx.
 * After that the worker takes them in chunks of words through a ring of
 * NCHUNK chunks, and is the only thread that touches this file's tables
 * (path index, rows, per-thread state, tickets' stacks), allocating with its
 * own ctx (adopted at the end); the reader only fills chunks.  The ring's
 * counters are guarded by mu.
 */
#include "core/pc_config.h"
#include "readers/pc_perf.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_WORDS ((uint32_t)1 << 15) /* 128 KiB: a few thousand chains */
#define NCHUNK 4
#define THREAD_AFTER 16384 /* jobs interned on the reader's thread first (default) */
/* a file-mode recording whose data is at least this big starts the worker
 * at its first job: it makes far more than THREAD_AFTER chains (a sample
 * record is rarely over 1 KiB), and the first THREAD_AFTER jobs and the
 * path index's first slots (path_first_size()) were the reader's work */
#define THREAD_AT_ONCE ((uint64_t)8 << 20)
#define JOB_ROOT 0x80000000u /* first word: a one-frame path, no thread state */

/* the previous chain interned for one thread, root first */
struct stk_thread {
	uint32_t *last_frames, *last_stacks;
	uint64_t *last_paths; /* the path hash of each of last_stacks */
	uint32_t nlast, last_cap;
};

struct perf_stacks {
	struct profconv_ctx *rctx; /* the reader's */
	const char *path;	   /* the recording's, for messages */
	struct profconv_ctx *ctx;  /* for the tables: rctx, or the worker's once it runs */
	uint64_t data_size;	   /* of the recording, 0 if not known: the index's first size */
	uint32_t base;		   /* the model's stack rows before ours */
	/* the tables (the worker's while it runs) */
	struct path_slot *paths;
	uint32_t paths_mask, npaths;
	uint32_t *path_lo; /* by our row: the low half of its path hash */
	uint32_t path_lo_cap;
	uint64_t *phash; /* per-level scratch */
	uint32_t phash_cap;
	uint32_t *pcand; /* per-level scratch: candidate rows (path_candidate()) */
	uint32_t pcand_cap;
	uint32_t *frame, *prefix; /* our rows (numbered from base) */
	uint32_t len, cap;
	uint32_t *res; /* by ticket: its stack */
	uint32_t res_cap, ndone;
	struct stk_thread *th; /* by thread number - 1 */
	uint32_t nth, th_cap;
	int err; /* the worker failed: its ctx holds why */
	/* the reader's side */
	uint32_t njobs, nthreads_seen;
	uint32_t thread_after; /* start the worker at this job (PROFCONV_PERF_STACK_THREAD) */
	uint32_t *cur; /* the chunk being filled (threaded) */
	uint32_t used;
	/* the worker */
	int running, tried;
	pthread_t th_id;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t *chunk[NCHUNK];
	uint32_t chunk_len[NCHUNK];
	uint64_t nfilled, nfinished; /* chunks handed over, chunks interned (mu) */
	uint64_t wmem;		     /* the worker's ctx's mem_used after its last chunk (mu) */
	uint64_t mirrored;	     /* what of it the reader's ctx counts (see hand_over()) */
	uint64_t wbase;		     /* where the worker's ctx's count started */
	int stop;		     /* no more chunks (mu) */
	int failed;		     /* copy of err for the reader (mu) */
};

/* --- the path index (see struct path_slot) --- */

static inline uint64_t path_next(uint64_t parent, uint32_t frame)
{
	return pc_hash64(parent * 0x9e3779b97f4a7c15ULL + frame + 1);
}

/*
 * The first size of the path index: a file-mode recording says how much data
 * it has, and a sample record is rarely under 64 bytes, so start near the
 * size the index would double up to (at most 2^20 slots, 16 MiB), instead of
 * rehashing it a dozen times on the way.  One slot per 64 bytes of data:
 * recordings of deep, varied stacks make a new stack row every 110-350 bytes
 * (bench/deep.c's: every 112), the index is kept at most 3/4 full, and each
 * doubling rehashes every row made so far into fresh pages, which took 7 %
 * of such a conversion at one slot per 256 bytes.  At most 2^21 slots
 * (16 MiB): a 131 MB recording of 976 k stacks needs no doubling, whose old
 * and new arrays together were its peak of memory.
 */
static uint32_t path_first_size(const struct perf_stacks *s)
{
	uint64_t want = s->data_size / 64;
	uint32_t n = 4096;

	while (n < want && n < (1u << 21))
		n *= 2;
	return n;
}

static int path_grow(struct perf_stacks *s)
{
	uint32_t nslots = s->paths ? (s->paths_mask + 1) * 2 : path_first_size(s), i, j;
	struct path_slot *ns;

	if (nslots == 0)
		return pc_fail(s->ctx, PROFCONV_ERR_LIMIT, NULL, "%s: too many stacks", s->path);
	ns = pc_alloc(s->ctx, (size_t)nslots * sizeof(*ns));
	if (!ns)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < nslots; i++)
		ns[i].row = PC_NONE;
	for (i = 0; s->paths && i <= s->paths_mask; i++) {
		if (s->paths[i].row == PC_NONE)
			continue;
		for (j = s->path_lo[s->paths[i].row] & (nslots - 1); ns[j].row != PC_NONE;
		     j = (j + 1) & (nslots - 1))
			;
		ns[j] = s->paths[i];
	}
	pc_free(s->ctx, s->paths);
	s->paths = ns;
	s->paths_mask = nslots - 1;
	return 0;
}

/* Our row (from 0) of the path with hash h, or PC_NONE. */
static uint32_t path_find(const struct perf_stacks *s, uint64_t h)
{
	uint32_t i;

	for (i = (uint32_t)h & s->paths_mask; s->paths[i].row != PC_NONE;
	     i = (i + 1) & s->paths_mask)
		if (s->paths[i].tag == (uint32_t)(h >> 32) &&
		    s->path_lo[s->paths[i].row] == (uint32_t)h)
			return s->paths[i].row;
	return PC_NONE;
}

/* The row of the first slot on h's probe whose tag is h's, or PC_NONE: h's
 * row if h has one and path_lo[row] agrees, else path_find() decides. */
static inline uint32_t path_candidate(const struct perf_stacks *s, uint64_t h)
{
	uint32_t i;

	for (i = (uint32_t)h & s->paths_mask; s->paths[i].row != PC_NONE;
	     i = (i + 1) & s->paths_mask)
		if (s->paths[i].tag == (uint32_t)(h >> 32))
			return s->paths[i].row;
	return PC_NONE;
}

/* A new row (prefix, frame) whose path hashes to h, or PC_NONE (ctx set,
 * else out of memory).  Rows and prefixes here are ours, from 0. */
static uint32_t path_add(struct perf_stacks *s, uint64_t h, uint32_t prefix, uint32_t frame)
{
	uint32_t row, i;

	if ((uint64_t)(s->npaths + 1) * 4 > ((uint64_t)s->paths_mask + 1) * 3 && path_grow(s))
		return PC_NONE;
	if (s->len == s->cap) {
		uint32_t cap = s->cap;

		if (pc_grow(s->ctx, (void **)&s->frame, sizeof(*s->frame), &cap, (size_t)s->len + 1) ||
		    pc_grow(s->ctx, (void **)&s->prefix, sizeof(*s->prefix), &s->cap,
			    (size_t)s->len + 1))
			return PC_NONE;
	}
	row = s->len++;
	s->frame[row] = frame;
	s->prefix[row] = prefix;
	if (pc_grow(s->ctx, (void **)&s->path_lo, sizeof(*s->path_lo), &s->path_lo_cap,
		    (size_t)row + 1))
		return PC_NONE;
	s->path_lo[row] = (uint32_t)h;
	for (i = (uint32_t)h & s->paths_mask; s->paths[i].row != PC_NONE;
	     i = (i + 1) & s->paths_mask)
		;
	s->paths[i].tag = (uint32_t)(h >> 32);
	s->paths[i].row = row;
	s->npaths++;
	return row;
}

/* The stack of the one-frame path (frame), made if new. */
static uint32_t path_root(struct perf_stacks *s, uint32_t frame)
{
	uint64_t h = path_next(PATH_SEED, frame);
	uint32_t row = path_find(s, h);

	return row != PC_NONE ? row : path_add(s, h, PC_NONE, frame);
}

/*
 * The stack of frames[0..nframes) (leaf first) for the thread whose state
 * is ts: the levels it shares with the thread's previous chain are taken
 * from it, the others looked up in the path index together (their slots
 * prefetched, so the cache misses overlap) and the missing ones made, root
 * first.  An empty chain is PC_NONE, the empty stack.  *out is our row;
 * 0, or NOMEM / LIMIT (ctx set).
 */
static int intern_chain(struct perf_stacks *s, struct stk_thread *ts, const uint32_t *frames,
			uint32_t nframes, uint32_t *out)
{
	uint32_t prefix = PC_NONE, i, same = 0, cap, known;
	uint64_t h;

	/*
	 * Successive samples of a thread share most of their root part: reuse
	 * the stacks of the common prefix of the thread's previous chain.
	 */
	while (same < ts->nlast && same < nframes &&
	       ts->last_frames[same] == frames[nframes - 1 - same])
		same++;
	if (nframes > ts->last_cap || nframes > s->phash_cap || nframes > s->pcand_cap) {
		cap = ts->last_cap;
		if (pc_grow(s->ctx, (void **)&ts->last_frames, sizeof(*ts->last_frames), &cap,
			    nframes))
			return PROFCONV_ERR_NOMEM;
		cap = ts->last_cap;
		if (pc_grow(s->ctx, (void **)&ts->last_paths, sizeof(*ts->last_paths), &cap,
			    nframes) ||
		    pc_grow(s->ctx, (void **)&ts->last_stacks, sizeof(*ts->last_stacks),
			    &ts->last_cap, nframes) ||
		    pc_grow(s->ctx, (void **)&s->phash, sizeof(*s->phash), &s->phash_cap, nframes) ||
		    pc_grow(s->ctx, (void **)&s->pcand, sizeof(*s->pcand), &s->pcand_cap, nframes))
			return PROFCONV_ERR_NOMEM;
	}
	/* the path hash of every level below the shared part, and a prefetch
	 * of its slot, so the lookups below miss the cache together */
	h = same ? ts->last_paths[same - 1] : PATH_SEED;
	if (same && same < ts->nlast)
		__builtin_prefetch(&s->paths[(uint32_t)h & s->paths_mask]);
	for (i = same; i < nframes; i++) {
		h = path_next(h, frames[nframes - 1 - i]);
		s->phash[i] = h;
		__builtin_prefetch(&s->paths[(uint32_t)h & s->paths_mask]);
	}
	/*
	 * Levels that exist form a prefix of the chain: find its end.  First
	 * every level's candidate, the row of the first slot on its probe whose
	 * tag agrees (the slots are in the cache or on their way), with its low
	 * half fetched, so that the candidates' checks miss the cache together
	 * too; a candidate whose low half differs (one in 2^32) is looked up
	 * again, probing on.
	 */
	for (i = same; i < nframes; i++) {
		uint32_t row = path_candidate(s, s->phash[i]);

		s->pcand[i] = row;
		if (row != PC_NONE)
			__builtin_prefetch(&s->path_lo[row]);
	}
	for (known = nframes; known > same; known--) {
		uint32_t row = s->pcand[known - 1];

		if (row != PC_NONE && s->path_lo[row] != (uint32_t)s->phash[known - 1])
			row = path_find(s, s->phash[known - 1]);
		if (row != PC_NONE) {
			prefix = row;
			break;
		}
	}
	if (known == same && same)
		prefix = same == ts->nlast ? ts->last_stacks[same - 1]
					   : path_find(s, ts->last_paths[same - 1]);
	for (i = same; i < known; i++) {
		ts->last_frames[i] = frames[nframes - 1 - i];
		ts->last_paths[i] = s->phash[i];
	}
	for (i = known; i < nframes; i++) {
		uint32_t f = frames[nframes - 1 - i];

		prefix = path_add(s, s->phash[i], prefix, f);
		if (prefix == PC_NONE)
			return s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
		ts->last_frames[i] = f;
		ts->last_paths[i] = s->phash[i];
	}
	/* only the deepest row is kept: the next chain's shared part ends at or
	 * above it, and a shallower level's row is one lookup of its path */
	if (nframes)
		ts->last_stacks[nframes - 1] = prefix;
	ts->nlast = nframes;
	*out = prefix;
	return 0;
}

/*
 * Intern one job: w0 is JOB_ROOT (a one-frame path, no thread state), or
 * the thread's number (from 1); frames[0..n) leaf first.  Its stack goes to
 * res[ndone++].  0, or NOMEM / LIMIT (ctx set).
 */
static int intern_job(struct perf_stacks *s, uint32_t w0, const uint32_t *frames, uint32_t n)
{
	uint32_t stack = PC_NONE;
	int err = 0;

	if (!s->paths && path_grow(s))
		return s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
	if (s->ndone >= s->res_cap &&
	    pc_grow(s->ctx, (void **)&s->res, sizeof(*s->res), &s->res_cap, (size_t)s->ndone + 1))
		return s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
	if (w0 == JOB_ROOT) {
		stack = path_root(s, frames[0]);
		if (stack == PC_NONE)
			err = s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
	} else {
		uint32_t ix = w0 - 1;

		if (ix >= s->nth) {
			uint32_t k = s->nth;

			if (pc_grow(s->ctx, (void **)&s->th, sizeof(*s->th), &s->th_cap,
				    (size_t)ix + 1))
				return s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
			memset(s->th + k, 0, (size_t)(ix + 1 - k) * sizeof(*s->th));
			s->nth = ix + 1;
		}
		err = intern_chain(s, &s->th[ix], frames, n, &stack);
	}
	if (err)
		return err;
	s->res[s->ndone++] = stack;
	return 0;
}

/* --- the worker --- */

static void *worker_run(void *arg)
{
	struct perf_stacks *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		uint32_t *c, n, at;
		int err = 0;

		while (s->nfinished == s->nfilled && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->nfinished == s->nfilled)
			break; /* stopped, and nothing left */
		c = s->chunk[s->nfinished % NCHUNK];
		n = s->chunk_len[s->nfinished % NCHUNK];
		pthread_mutex_unlock(&s->mu);
		for (at = 0; at < n && !s->err; at += 2 + c[at + 1]) {
			err = intern_job(s, c[at], c + at + 2, c[at + 1]);
			if (err)
				s->err = err;
		}
		pthread_mutex_lock(&s->mu);
		s->wmem = s->ctx->mem_used - s->wbase;
		s->failed = s->err;
		s->nfinished++;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/*
 * Start the worker, if this conversion may have one: the one place that
 * decides.  Not under "threads" "no", nor when the ctx fails allocations on
 * purpose (a test counting them) or is at its memory limit already, nor
 * when the thread, its lock or its chunks cannot be had: then the
 * reader goes on interning itself.  The worker's ctx counts from what the
 * reader's had in use at its start, under the same limit; what the worker
 * adds is counted in the reader's ctx too, at every chunk handed over, so
 * that the reader's allocations meet the limit as well.
 */
static void worker_start(struct perf_stacks *s)
{
	struct profconv_ctx *w;
	unsigned i;

	s->tried = 1;
	if (s->rctx->fault_alloc || s->rctx->opt.no_threads)
		return;
	if (s->rctx->mem_limit && s->rctx->mem_used >= s->rctx->mem_limit)
		return;
	w = pc_ctx_worker(s->rctx);
	if (!w)
		return;
	/* the worker's count starts at the reader's: its messages say what
	 * the limit is and what the conversion had in use */
	w->mem_limit = s->rctx->mem_limit;
	w->mem_used = w->mem_peak = s->wbase = s->rctx->mem_used;
	if (s->rctx->activity) {
		pc_snprintf(w->activity_buf, sizeof(w->activity_buf), "%s", s->rctx->activity);
		w->activity = w->activity_buf;
	}
	for (i = 0; i < NCHUNK; i++) {
		s->chunk[i] = pc_alloc(s->rctx, (size_t)CHUNK_WORDS * sizeof(uint32_t));
		if (!s->chunk[i])
			break;
	}
	if (i < NCHUNK) {
		pc_clear_error(s->rctx);
		goto undo;
	}
	if (pthread_mutex_init(&s->mu, NULL))
		goto undo;
	if (pthread_cond_init(&s->cv, NULL)) {
		pthread_mutex_destroy(&s->mu);
		goto undo;
	}
	s->ctx = w;
	if (pthread_create(&s->th_id, NULL, worker_run, s)) {
		s->ctx = s->rctx;
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		goto undo;
	}
	s->running = 1;
	s->wmem = s->mirrored = 0;
	pc_note(s->rctx, "%s: interning stacks on a second thread from callchain %u on",
		s->path, s->njobs);
	s->cur = s->chunk[0];
	s->used = 0;
	return;
undo:
	for (i = 0; i < NCHUNK; i++) {
		pc_free(s->rctx, s->chunk[i]);
		s->chunk[i] = NULL;
	}
	profconv_ctx_free(w);
}

/* The reader's ctx counts what the worker's uses now (unsigned: the worker
 * frees blocks the reader allocated before it started). */
static void mirror_mem(struct perf_stacks *s)
{
	struct profconv_ctx *r = s->rctx;

	r->mem_used += s->wmem - s->mirrored;
	s->mirrored = s->wmem;
	if (r->mem_used > r->mem_peak && r->mem_used < (uint64_t)1 << 62)
		r->mem_peak = r->mem_used;
}

/* Hand the chunk being filled to the worker and wait for a free one.
 * 0, or the worker's error (it has stopped interning). */
static int hand_over(struct perf_stacks *s)
{
	int failed;

	pthread_mutex_lock(&s->mu);
	mirror_mem(s);
	s->chunk_len[s->nfilled % NCHUNK] = s->used;
	s->nfilled++;
	pthread_cond_broadcast(&s->cv);
	while (s->nfilled - s->nfinished == NCHUNK && !s->failed)
		pthread_cond_wait(&s->cv, &s->mu);
	failed = s->failed;
	pthread_mutex_unlock(&s->mu);
	s->cur = s->chunk[s->nfilled % NCHUNK];
	s->used = 0;
	return failed;
}

/* Stop the worker after what was handed over; its ctx is adopted (its
 * error, if any, becomes the reader's).  0 or that error. */
static int worker_stop(struct perf_stacks *s)
{
	struct profconv_ctx *w = s->ctx;
	unsigned i;
	int err;

	if (!s->running)
		return 0;
	if (s->used)
		hand_over(s); /* (after an error the worker skips it) */
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th_id, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	s->running = 0;
	s->rctx->mem_used -= s->mirrored; /* pc_ctx_adopt() counts it all */
	s->mirrored = 0;
	w->mem_used -= s->wbase;
	for (i = 0; i < NCHUNK; i++) {
		pc_free(s->rctx, s->chunk[i]);
		s->chunk[i] = NULL;
	}
	s->cur = NULL;
	s->ctx = s->rctx;
	err = pc_ctx_adopt(s->rctx, w);
	profconv_ctx_free(w);
	return err;
}

/* --- the reader's side --- */

/*
 * PROFCONV_PERF_STACK_THREAD in the environment: "off" interns every chain
 * on the reader's thread; a number N starts the worker at the N-th chain (0:
 * at once, as the tests do with their small recordings).
 */
static void thread_option(struct perf_stacks *s)
{
	const char *e = getenv("PROFCONV_PERF_STACK_THREAD");
	unsigned long n;
	char *end;

	if (!e || !*e)
		return;
	if (strcmp(e, "off") == 0) {
		s->tried = 1;
		return;
	}
	errno = 0;
	n = strtoul(e, &end, 10);
	if (!errno && !*end && n < PC_NONE)
		s->thread_after = (uint32_t)n;
}

static int stacks_get(struct perf *p, struct perf_stacks **out)
{
	struct perf_stacks *s = p->stk;

	if (!s) {
		s = pc_calloc(p->ctx, 1, sizeof(*s));
		if (!s)
			return PROFCONV_ERR_NOMEM;
		s->rctx = s->ctx = p->ctx;
		s->path = p->path;
		s->data_size = p->data_size;
		s->base = p->m->stacks.len;
		s->thread_after = p->data_size >= THREAD_AT_ONCE ? 0 : THREAD_AFTER;
		thread_option(s);
		p->stk = s;
	}
	*out = s;
	return 0;
}

/* Submit a job of n frames (leaf first) with first word w0; *ticket is
 * its number.  0, or an error (ctx set). */
static int submit(struct perf *p, uint32_t w0, const uint32_t *frames, uint32_t n,
		  uint32_t *ticket)
{
	struct perf_stacks *s;
	int err = stacks_get(p, &s);

	if (err)
		return err;
	if (s->njobs == PC_NONE - 1)
		return pc_fail(p->ctx, PROFCONV_ERR_LIMIT, NULL, "%s: too many stacks", p->path);
	if (!s->running && !s->tried && s->njobs >= s->thread_after)
		worker_start(s);
	if (!s->running) {
		err = intern_job(s, w0, frames, n);
		if (err)
			return err;
	} else {
		if (2 + (size_t)n > CHUNK_WORDS)
			return pc_fail(p->ctx, PROFCONV_ERR_LIMIT, NULL,
				       "%s: a callchain of %u frames", p->path, n);
		if (s->used + 2 + n > CHUNK_WORDS) {
			err = hand_over(s);
			if (err)
				return err;
		}
		s->cur[s->used] = w0;
		s->cur[s->used + 1] = n;
		memcpy(s->cur + s->used + 2, frames, (size_t)n * sizeof(*frames));
		s->used += 2 + n;
	}
	*ticket = s->njobs++;
	return 0;
}

int perf_stacks_chain(struct perf *p, struct thread_state *ts, const uint32_t *frames,
		      uint32_t nframes, uint32_t *ticket)
{
	int err;

	if (!ts->stk_ix) {
		struct perf_stacks *s;

		err = stacks_get(p, &s);
		if (err)
			return err;
		if (s->nthreads_seen == JOB_ROOT - 1)
			return pc_fail(p->ctx, PROFCONV_ERR_LIMIT, NULL, "%s: too many threads",
				       p->path);
		ts->stk_ix = ++s->nthreads_seen;
	}
	err = submit(p, ts->stk_ix, frames, nframes, ticket);
	/* the empty stack is known now (its job only resets the thread's state):
	 * a cause of PC_NONE is no cause */
	if (!err && !nframes)
		*ticket = PC_NONE;
	return err;
}

int perf_stacks_root(struct perf *p, uint32_t frame, uint32_t *ticket)
{
	return submit(p, JOB_ROOT, &frame, 1, ticket);
}

/* Our rows into the model's stack table; res[] turned into its rows. */
static int rows_to_model(struct perf *p, struct perf_stacks *s)
{
	struct pc_stack_table *t = &p->m->stacks;
	uint32_t i;

	if (!s->len)
		return 0;
	if (t->len != s->base)
		return pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL,
			       "%s: stack rows were made beside the reader's", p->path);
	if (!s->base) {
		pc_free(p->ctx, t->frame);
		pc_free(p->ctx, t->prefix);
		t->frame = s->frame;
		t->prefix = s->prefix;
		t->len = s->len;
		t->cap = s->cap;
		t->unindexed = 1;
		s->frame = s->prefix = NULL;
		s->len = s->cap = 0;
		return 0;
	}
	for (i = 0; i < s->len; i++)
		if (pc_stack_add_new(p->m, s->prefix[i] == PC_NONE ? PC_NONE : s->prefix[i] + s->base,
				     s->frame[i]) == PC_NONE)
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	for (i = 0; i < s->ndone; i++)
		if (s->res[i] != PC_NONE)
			s->res[i] += s->base;
	return 0;
}

/* The stack of a ticket (PC_NONE stays PC_NONE; a ticket never given out,
 * which would be a bug, is no stack rather than a read out of bounds). */
static inline uint32_t ticket_stack(const struct perf_stacks *s, uint32_t ticket)
{
	return ticket < s->ndone ? s->res[ticket] : PC_NONE;
}

int perf_stacks_end(struct perf *p)
{
	struct perf_stacks *s = p->stk;
	struct thread_state *ts, *tmp;
	int err;

	if (!s)
		return 0;
	err = worker_stop(s);
	if (!err && s->err)
		err = s->err;
	if (!err && s->ndone != s->njobs)
		err = pc_fail(p->ctx, PROFCONV_ERR_INTERNAL, NULL,
			      "%s: %u of %u callchains interned", p->path, s->ndone, s->njobs);
	if (!err)
		err = rows_to_model(p, s);
	if (err)
		return err;
	HASH_ITER(hh, p->threads, ts, tmp)
	{
		struct pc_thread *t = ts->t;
		uint32_t i;

		/* perf_offcpu_finish() closes what is open with this cause; the
		 * last sample's stack is not read after reading */
		if (ts->sched_known && ts->sched_off_since != PC_NO_TIME)
			ts->sched_cause = ticket_stack(s, ts->sched_cause);
		if (!t)
			continue;
		for (i = 0; i < t->samples.len; i++)
			t->samples.stack[i] = ticket_stack(s, t->samples.stack[i]);
		/* (lean markers: no column while no marker has a cause) */
		for (i = 0; t->markers.cause_stack && i < t->markers.len; i++)
			t->markers.cause_stack[i] = ticket_stack(s, t->markers.cause_stack[i]);
	}
	perf_stacks_free(p);
	return 0;
}

void perf_stacks_free(struct perf *p)
{
	struct perf_stacks *s = p->stk;
	uint32_t i;

	if (!s)
		return;
	worker_stop(s);
	for (i = 0; i < s->nth; i++) {
		pc_free(p->ctx, s->th[i].last_frames);
		pc_free(p->ctx, s->th[i].last_stacks);
		pc_free(p->ctx, s->th[i].last_paths);
	}
	pc_free(p->ctx, s->th);
	pc_free(p->ctx, s->paths);
	pc_free(p->ctx, s->path_lo);
	pc_free(p->ctx, s->phash);
	pc_free(p->ctx, s->pcand);
	pc_free(p->ctx, s->frame);
	pc_free(p->ctx, s->prefix);
	pc_free(p->ctx, s->res);
	pc_free(p->ctx, s);
	p->stk = NULL;
}
