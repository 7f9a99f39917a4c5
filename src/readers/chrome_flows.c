/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_flows.c - flows as fields of the slices they bind
 * (docs/formats/chrome-trace.md, "Flows").
 *
 * A flow links slices, often across threads and processes: a task posted
 * here runs there.  Its ends are v1 events (s, t, f) that bind a slice by
 * time, or v2 slices that carry a bind_id themselves.  Each end is kept as
 * it is read (struct flow_ev; pc_chrome_flow_event() for v1 events,
 * pc_chrome_flow_v2() for v2 slices, at the end of this file); once the
 * whole trace is read:
 *
 *   binding   a v1 end binds the innermost slice of its thread open at its
 *             time (latest start, then shortest, then later in the file);
 *             an f without bp "e" binds the next slice that begins at or
 *             after it, as Perfetto's FlowTracker binds them.  An end with
 *             no such slice binds nothing (one note with -v; Perfetto
 *             counts the same as flow_no_enclosing_slice);
 *   pairing   the ends of one identity in time order: an end that lets
 *             the flow go on (s, t) links to the next one that takes it in
 *             (t, f);
 *   fields    each bound slice's payload gets a copy with `flow` (format
 *             flow-id: the ids of the flows that go on from it),
 *             `terminatingFlow` (terminating-flow-id: those that end in
 *             it), `flowFrom` and `flowTo` (where they come from and go
 *             to: the other end's slice, thread and tid; unique-string,
 *             as the same text repeats slice after slice).  Several flows
 *             of one kind on one slice are joined with "; ".
 *
 * No marker is made for a flow: the marker chart and table show the
 * trace's slices and instants, each once.
 */
#include "core/pc_config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/pc_chrome.h"

enum { F_ID, F_TID, F_FROM, F_TO };

/* A field to add to a slice: which, and from what (a key string row for
 * the ids, the other end's r->fl index for FROM/TO). */
struct fadd {
	uint32_t thread, row;
	uint32_t ref;
	uint32_t seq; /* order added: ties */
	uint8_t kind;
};

uint32_t pc_chrome_flow_add(struct rd *r, uint32_t thread, int64_t ts, uint32_t key, char ph,
			    int next, uint32_t row)
{
	struct flow_ev *f;

	if (pc_grow(r->ctx, (void **)&r->fl, sizeof(*r->fl), &r->fl_cap, (size_t)r->nfl + 1))
		return 0;
	f = &r->fl[r->nfl];
	f->ts = ts;
	f->key = key;
	f->thread = thread;
	f->row = row;
	f->order = r->nfl;
	f->ph = (uint8_t)ph;
	f->next = (uint8_t)(next != 0);
	return ++r->nfl;
}

static void flows_job_free(struct rd *r);

void pc_chrome_flows_free(struct rd *r)
{
	flows_job_free(r);
	pc_free(r->ctx, r->fl);
	r->fl = NULL;
	r->nfl = r->fl_cap = 0;
}

/*
 * fn(r, a, n): sort a[0..n) by cmp (a total order), a natural merge sort
 * with cmp inlined: qsort()'s calls through a pointer were most of the
 * binding's time on a real trace.  0 or PROFCONV_ERR_NOMEM.
 */
#define FLOW_SORT(fn, T, cmp)                                                                     \
	static int fn(struct profconv_ctx *ctx, T *a, size_t n)                                    \
	{                                                                                          \
		T *src = a, *dst, *tmp;                                                            \
                                                                                                   \
		if (n < 2)                                                                         \
			return 0;                                                                  \
		tmp = pc_alloc(ctx, n * sizeof(*a));                                               \
		if (!tmp)                                                                          \
			return PROFCONV_ERR_NOMEM;                                                 \
		dst = tmp;                                                                         \
		for (;;) {                                                                         \
			size_t lo = 0, x, y, o;                                                    \
			T *sw;                                                                     \
                                                                                                   \
			while (lo < n) {                                                           \
				size_t mid = lo + 1, hi;                                           \
                                                                                                   \
				while (mid < n && cmp(&src[mid], &src[mid - 1]) >= 0)              \
					mid++;                                                     \
				if (mid == n) {                                                    \
					if (lo == 0)                                               \
						goto sorted;                                       \
					memcpy(dst + lo, src + lo, (n - lo) * sizeof(*a));         \
					break;                                                     \
				}                                                                  \
				hi = mid + 1;                                                      \
				while (hi < n && cmp(&src[hi], &src[hi - 1]) >= 0)                 \
					hi++;                                                      \
				for (x = lo, y = mid, o = lo; x < mid && y < hi;)                  \
					dst[o++] = cmp(&src[y], &src[x]) < 0 ? src[y++] : src[x++]; \
				while (x < mid)                                                    \
					dst[o++] = src[x++];                                       \
				while (y < hi)                                                     \
					dst[o++] = src[y++];                                       \
				lo = hi;                                                           \
			}                                                                          \
			sw = src;                                                                  \
			src = dst;                                                                 \
			dst = sw;                                                                  \
		}                                                                                  \
sorted:                                                                                            \
		if (src != a)                                                                      \
			memcpy(a, src, n * sizeof(*a));                                            \
		pc_free(ctx, tmp);                                                                 \
		return 0;                                                                          \
	}

/* --- binding by time --- */

/* Ends of one group (a thread's, a flow's) by time, then file order. */
static int by_ts_order(const void *a, const void *b)
{
	const struct flow_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A slice of the thread: an open one (IntervalStart) ends after everything. */
struct slice {
	int64_t start, end;
	uint32_t row;
};

/* Slices by start, the longer first (the outer one), then file order. */
static int by_start(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

FLOW_SORT(sort_ts_order, struct flow_ev, by_ts_order)
FLOW_SORT(sort_slices, struct slice, by_start)

/*
 * The slices of thread ti: rows flagged by pc_chrome_keep_slice() (X, B closed by E)
 * and the IntervalStart markers, which before the contexts close are its
 * B events left open (pc_chrome_close_open()).  Sorted by by_start().
 */
static int thread_slices(struct profconv_ctx *ctx, const struct tinfo *ti, struct slice **out,
			 uint32_t *n)
{
	const struct pc_markers *mk = &ti->t->markers;
	struct slice *s;
	uint32_t k, c = 0;

	*out = NULL;
	*n = 0;
	s = pc_alloc(ctx, ((size_t)mk->len + 1) * sizeof(*s));
	if (!s)
		return PROFCONV_ERR_NOMEM;
	for (k = 0; k < mk->len; k++) {
		int is = (k / 64 < ti->sbits_used && (ti->sbits[k / 64] >> (k % 64) & 1)) ||
			 mk->phase[k] == PC_PHASE_START;

		if (!is || mk->start[k] == PC_NO_TIME)
			continue;
		s[c].start = mk->start[k];
		s[c].end = mk->end[k] == PC_NO_TIME ? INT64_MAX : mk->end[k];
		s[c++].row = k;
	}
	if (sort_slices(ctx, s, c)) {
		pc_free(ctx, s);
		return PROFCONV_ERR_NOMEM;
	}
	*out = s;
	*n = c;
	return 0;
}

/*
 * Bind the ends f[0..n) of one thread (in time order) not bound yet: an
 * enclosing end to the innermost slice open at its time (a stack swept
 * along the slices in start order), a next-slice end to the first slice
 * that begins at or after it.
 */
static int bind_thread(const struct rd *r, struct profconv_ctx *ctx, struct flow_ev *f, uint32_t n,
		       uint64_t *unbound)
{
	struct slice *sl;
	uint32_t ns, *stack, depth = 0, pos = 0, i;
	int err = thread_slices(ctx, &r->th[f[0].thread], &sl, &ns);

	if (err)
		return err;
	stack = pc_alloc(ctx, ((size_t)ns + 1) * sizeof(*stack));
	if (!stack) {
		pc_free(ctx, sl);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < n; i++) {
		if (f[i].row != PC_NONE)
			continue;
		/* the slices begun by now: on the stack, above those they are in */
		while (pos < ns && sl[pos].start <= f[i].ts) {
			while (depth && sl[stack[depth - 1]].end < sl[pos].start)
				depth--;
			stack[depth++] = pos++;
		}
		while (depth && sl[stack[depth - 1]].end < f[i].ts)
			depth--;
		if (f[i].next) {
			/* the first slice that begins at or after ts (at ts: the
			 * outermost of those) */
			uint32_t lo = 0, hi = ns;

			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;

				if (sl[mid].start < f[i].ts)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < ns)
				f[i].row = sl[lo].row;
		} else if (depth) {
			f[i].row = sl[stack[depth - 1]].row;
		}
		if (f[i].row == PC_NONE)
			(*unbound)++;
	}
	pc_free(ctx, stack);
	pc_free(ctx, sl);
	return 0;
}

/* --- the fields --- */


/*
 * a[0..n) by (thread, ts, order), or with by_key by (key, ts, order): a
 * stable counting sort by thread or key, then each group by by_ts_order()
 * (a few ends: in place; more: the merge sort, whose runs are then long,
 * as a thread's ends come mostly in time order).  One merge sort by the
 * whole key took most of the binding's time: threads and flows interleave
 * in the file, so its runs were short.  0 or PROFCONV_ERR_NOMEM.
 */
/* A counting sort's counts cnt[0..n) turned into each key's first place. */
static void counts_to_starts(uint32_t *cnt, uint32_t n)
{
	uint32_t k, sum = 0;

	for (k = 0; k < n; k++) {
		uint32_t c = cnt[k];

		cnt[k] = sum;
		sum += c;
	}
}

/*
 * a[0..n) by by_ts_order() when they are in file order (order ascending,
 * as a thread's ends are after the counting sort by thread): a stable LSD
 * radix sort of the times, 11 bits a pass, up to 4 passes (a span of
 * 2^44 ns, about 4.9 hours); *done 0 (a untouched) when it does not apply.
 * A thread's ends come far from time order (the busiest thread of the real
 * Chromium trace: 5,125 ends in 1,266 runs), where the merge sort took 11
 * passes moving the 32-byte ends.  0 or PROFCONV_ERR_NOMEM.
 */
static int sort_ts_radix(struct profconv_ctx *ctx, struct flow_ev *a, size_t n, int *done)
{
	enum { BITS = 11, MAXPASS = 4 };
	uint32_t cnt[1u << BITS];
	struct flow_ev *tmp, *src = a, *dst, *sw;
	int64_t lo = a[0].ts, hi = a[0].ts;
	uint64_t span;
	unsigned pass, npass = 0;
	size_t i;

	*done = 0;
	for (i = 1; i < n; i++) {
		if (a[i].order <= a[i - 1].order)
			return 0; /* not in file order: ties would not be */
		if (a[i].ts < lo)
			lo = a[i].ts;
		if (a[i].ts > hi)
			hi = a[i].ts;
	}
	span = (uint64_t)hi - (uint64_t)lo;
	while (npass < MAXPASS + 1 && (npass * BITS >= 64 ? 0 : span >> (npass * BITS)))
		npass++;
	if (npass > MAXPASS)
		return 0;
	*done = 1;
	if (!npass)
		return 0; /* one time: in file order already */
	tmp = pc_alloc(ctx, n * sizeof(*a));
	if (!tmp)
		return PROFCONV_ERR_NOMEM;
	dst = tmp;
	for (pass = 0; pass < npass; pass++) {
		unsigned sh = pass * BITS;
		uint32_t sum = 0, c;
		size_t k;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[((uint64_t)src[i].ts - (uint64_t)lo) >> sh & ((1u << BITS) - 1)]++;
		for (k = 0; k < (1u << BITS); k++) {
			c = cnt[k];
			cnt[k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[((uint64_t)src[i].ts - (uint64_t)lo) >> sh & ((1u << BITS) - 1)]++] =
				src[i];
		sw = src;
		src = dst;
		dst = sw;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	pc_free(ctx, tmp);
	return 0;
}

static int sort_grouped(struct profconv_ctx *ctx, struct flow_ev *a, size_t n, int by_key)
{
#define GROUP_OF(x) (by_key ? (x).key : (x).thread)
	struct flow_ev *tmp;
	uint32_t *cnt, nb = 0;
	size_t i, j, g;
	int err = 0;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		if (GROUP_OF(a[i]) + 1 > nb)
			nb = GROUP_OF(a[i]) + 1;
	tmp = pc_alloc(ctx, n * sizeof(*a));
	cnt = pc_calloc(ctx, (size_t)nb + 1, sizeof(*cnt));
	if (!tmp || !cnt) {
		pc_free(ctx, tmp);
		pc_free(ctx, cnt);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < n; i++)
		cnt[GROUP_OF(a[i])]++;
	counts_to_starts(cnt, nb + 1);
	for (i = 0; i < n; i++)
		tmp[cnt[GROUP_OF(a[i])]++] = a[i];
	memcpy(a, tmp, n * sizeof(*a));
	pc_free(ctx, tmp);
	pc_free(ctx, cnt);
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && GROUP_OF(a[j]) == GROUP_OF(a[i]); j++)
			;
		if (j - i > 16) {
			int done = 0;

			if (!by_key)
				err = sort_ts_radix(ctx, a + i, j - i, &done);
			if (!err && !done)
				err = sort_ts_order(ctx, a + i, j - i);
			continue;
		}
		for (g = i + 1; g < j; g++) {
			struct flow_ev x = a[g];
			size_t h;

			for (h = g; h > i && by_ts_order(&x, &a[h - 1]) < 0; h--)
				a[h] = a[h - 1];
			a[h] = x;
		}
	}
	return err;
#undef GROUP_OF
}

/*
 * a[0..n) (seq: each one's index) sorted by thread, row, kind, then seq
 * (the fields of a slice together, by kind, in the order added): three stable
 * counting sorts, by kind, by row, by thread (rows: below the largest
 * thread's marker count, threads below r->nth), as the merge sort of
 * FLOW_SORT() took a fifth of the binding's time.  0 or PROFCONV_ERR_NOMEM.
 */
static int sort_by_slice(const struct rd *r, struct profconv_ctx *ctx, struct fadd *a, size_t n)
{
	uint32_t *cnt, nb = 4, nrows = 0, i;
	struct fadd *tmp, *src = a, *dst, *sw;
	int pass;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		if (a[i].row + 1 > nrows)
			nrows = a[i].row + 1;
	if (nrows > nb)
		nb = nrows;
	if (r->nth > nb)
		nb = r->nth;
	tmp = pc_alloc(ctx, n * sizeof(*a));
	cnt = pc_alloc(ctx, ((size_t)nb + 1) * sizeof(*cnt));
	if (!tmp || !cnt) {
		pc_free(ctx, tmp);
		pc_free(ctx, cnt);
		return PROFCONV_ERR_NOMEM;
	}
	dst = tmp;
	for (pass = 0; pass < 3; pass++) {
#define SLICE_KEY(x) (pass == 0 ? (x).kind : pass == 1 ? (x).row : (x).thread)
		/* this pass's keys are below 4, nrows or r->nth */
		uint32_t nk = pass == 0 ? 4 : pass == 1 ? nrows : r->nth;

		memset(cnt, 0, ((size_t)nk + 1) * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[SLICE_KEY(src[i])]++;
		counts_to_starts(cnt, nk + 1);
		for (i = 0; i < n; i++)
			dst[cnt[SLICE_KEY(src[i])]++] = src[i];
#undef SLICE_KEY
		sw = src;
		src = dst;
		dst = sw;
	}
	/* three passes: the result is in tmp */
	memcpy(a, src, n * sizeof(*a));
	pc_free(ctx, tmp);
	pc_free(ctx, cnt);
	return 0;
}

struct adds {
	struct fadd *a;
	uint32_t n, cap;
};

static int add(struct profconv_ctx *ctx, struct adds *ad, const struct flow_ev *at, uint8_t kind,
	       uint32_t ref)
{
	struct fadd *x;

	if (at->row == PC_NONE)
		return 0;
	if (pc_grow(ctx, (void **)&ad->a, sizeof(*ad->a), &ad->cap, (size_t)ad->n + 1))
		return PROFCONV_ERR_NOMEM;
	x = &ad->a[ad->n];
	x->thread = at->thread;
	x->row = at->row;
	x->ref = ref;
	x->seq = ad->n++;
	x->kind = kind;
	return 0;
}

/* A growing text. */
struct text {
	char *s;
	size_t n, cap;
};

static int text_put(struct rd *r, struct text *t, const char *s, size_t len)
{
	if (t->n + len + 1 > t->cap) {
		size_t cap = (t->n + len + 1) * 2;
		char *p = pc_realloc(r->ctx, t->s, cap);

		if (!p)
			return PROFCONV_ERR_NOMEM;
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, len);
	t->n += len;
	t->s[t->n] = 0;
	return 0;
}

static int text_z(struct rd *r, struct text *t, const char *s)
{
	return text_put(r, t, s ? s : "", s ? strlen(s) : 0);
}

/*
 * The other end f, as the slice's field shows it: "Slice on Thread (tid N)".
 * sfx: per thread, its " on Thread (tid N)" (made the first time).
 */
static int describe(struct rd *r, struct text *t, const struct flow_ev *f, struct text *sfx)
{
	const struct tinfo *ti = &r->th[f->thread];
	struct text *x = &sfx[f->thread];
	int err;

	err = f->row != PC_NONE ? text_z(r, t, pc_str(r->m, ti->t->markers.name[f->row]))
				: text_z(r, t, "(no slice)");
	if (!err && !x->s) {
		char tid[48];
		size_t n;

		err = text_z(r, x, " on ");
		if (!err)
			err = text_z(r, x, pc_str(r->m, ti->t->name));
		/* " (tid N)" (snprintf() was a sixth of the binding's time) */
		memcpy(tid, " (tid ", 6);
		n = 6 + pc_fmt_i64(tid + 6, ti->tid);
		tid[n++] = ')';
		if (!err)
			err = text_put(r, x, tid, n);
	}
	return err ? err : text_put(r, t, x->s, x->n);
}

/*
 * The payload text row of the flows' key of kind k ("flow",
 * "terminatingFlow", "flowFrom", "flowTo"), interned the first time it is
 * used, as pc_pvb_key_z() did; PC_NONE on OOM.
 */
static uint32_t key_row(struct rd *r, uint32_t *rows, unsigned k)
{
	static const char *const keys[] = { "flow", "terminatingFlow", "flowFrom", "flowTo" };

	if (rows[k] == PC_NONE)
		rows[k] = pc_pv_text_intern(r->m, keys[k], strlen(keys[k]));
	return rows[k];
}

/*
 * Is payload text row k a flows' key (pc_chrome_is_flow_key())?  Keys are
 * interned text without NULs: one row per text.
 */
static int is_flow_row(const struct rd *r, const uint32_t *rows, uint32_t k)
{
	if (k == rows[F_ID] || k == rows[F_TID] || k == rows[F_FROM] || k == rows[F_TO])
		return 1;
	/* flowFrom or flowTo not interned here yet: by the text */
	return (rows[F_FROM] == PC_NONE || rows[F_TO] == PC_NONE) &&
	       pc_chrome_is_flow_key(pc_pv_text(r->m, k, NULL));
}

/*
 * The string rows of the lone flowFrom/flowTo texts made so far, by what
 * the text is made of (describe()): the flow's key when named, the other
 * end's thread and its slice's name (PC_NONE: none).  The same parts, the
 * same text: the row pc_str_intern() gave it the first time, so the text
 * is made and interned once (the string table's rows come in the same
 * order).  Open addressing; a slot with thread PC_NONE is empty.
 */
struct tmemo_slot {
	uint32_t key, thread, name, row;
};

struct tmemo {
	struct tmemo_slot *s;
	uint32_t n, cap; /* cap: a power of two, or 0 */
};

static struct tmemo_slot *tmemo_at(const struct tmemo *tm, uint32_t key, uint32_t thread,
				   uint32_t name)
{
	uint64_t h = pc_hash64(((uint64_t)key << 32 | name) ^ ((uint64_t)thread << 17));
	uint32_t i = (uint32_t)(h >> 20) & (tm->cap - 1);

	for (;; i = (i + 1) & (tm->cap - 1)) {
		struct tmemo_slot *x = &tm->s[i];

		if (x->thread == PC_NONE ||
		    (x->key == key && x->thread == thread && x->name == name))
			return x;
	}
}

/* Room for one more (0, or PROFCONV_ERR_NOMEM). */
static int tmemo_room(struct rd *r, struct tmemo *tm)
{
	struct tmemo old = *tm;
	uint32_t i;

	if (tm->cap && (tm->n + 1) * 2 <= tm->cap)
		return 0;
	tm->cap = old.cap ? old.cap * 2 : 256;
	tm->s = pc_alloc(r->ctx, (size_t)tm->cap * sizeof(*tm->s));
	if (!tm->s) {
		*tm = old;
		return PROFCONV_ERR_NOMEM;
	}
	memset(tm->s, 0xff, (size_t)tm->cap * sizeof(*tm->s)); /* thread PC_NONE: empty */
	for (i = 0; i < old.cap; i++)
		if (old.s[i].thread != PC_NONE)
			*tmemo_at(tm, old.s[i].key, old.s[i].thread, old.s[i].name) = old.s[i];
	pc_free(r->ctx, old.s);
	return 0;
}

/*
 * Slice (thread, row) gets the fields a[0..n) (sorted by kind).  rows: the
 * flows' key rows (key_row()).
 */
static int write_fields(struct rd *r, const struct fadd *a, uint32_t n, struct text *t,
			uint32_t *rows, struct text *sfx, struct tmemo *tm)
{
	struct pc_markers *mk = &r->th[a[0].thread].t->markers;
	uint32_t old = mk->payload[a[0].row], i, c, j, pl, cnt[4] = { 0, 0, 0, 0 }, tkey = PC_NONE;
	uint32_t fkey[4], frow[4], nf = 0; /* the fields, one a kind (pc_pvb_srefs()) */
	struct tmemo_slot *slot;
	int named[4] = { 0, 0, 0, 0 }; /* FROM/TO entries say which flow they are */
	struct pc_pvb b;
	int err = 0;

	for (i = 0; i < n; i++) {
		cnt[a[i].kind]++;
		if (a[i].kind == F_TID)
			tkey = a[i].ref;
	}
	/* a lone "to" is the lone outgoing flow's; a lone "from" the lone
	 * ending flow's, or with none ending, the lone flow's (a step) */
	named[F_TO] = cnt[F_TO] > 1 || cnt[F_ID] > 1;
	for (i = 0; i < n; i++)
		if (a[i].kind == F_FROM)
			named[F_FROM] = cnt[F_FROM] > 1 ||
					(cnt[F_TID] ? cnt[F_TID] > 1 || r->fl[a[i].ref].key != tkey
						    : cnt[F_ID] > 1);

	pc_pvb_begin(&b, r->m, 0);
	if (old != PC_NONE && pc_pv(r->m, old)->kind == PC_VAL_OBJ) {
		/* the old members in runs, each copied in one go */
		uint32_t run = old + 1, nrun = 0, on = pc_pv(r->m, old)->v.n;

		for (i = 0, c = old + 1; i < on; i++, c += pc_val_span(pc_pv(r->m, c))) {
			if (!is_flow_row(r, rows, pc_pv(r->m, c)->key)) {
				nrun++;
				continue;
			}
			/* an args member of that name: the flow's wins */
			pc_pvb_copy_members(&b, run, nrun, c - run);
			run = c + pc_val_span(pc_pv(r->m, c));
			nrun = 0;
		}
		pc_pvb_copy_members(&b, run, nrun, c - run);
	} else {
		pc_pvb_key_row(&b, r->row_type);
		pc_pvb_str_row(&b, r->row_trace_event);
	}
	for (i = 0; i < n && !err; i = j) {
		uint32_t row;

		for (j = i; j < n && a[j].kind == a[i].kind; j++)
			;
		row = key_row(r, rows, a[i].kind);
		if (row == PC_NONE) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		fkey[nf] = row;
		if ((a[i].kind == F_ID || a[i].kind == F_TID) && j == i + 1) {
			frow[nf++] = a[i].ref; /* one id: its own string */
			continue;
		}
		slot = NULL;
		if (j == i + 1) { /* one other end: its text made before? */
			const struct flow_ev *f = &r->fl[a[i].ref];

			err = tmemo_room(r, tm);
			if (err)
				break;
			slot = tmemo_at(tm, named[a[i].kind] ? f->key : PC_NONE, f->thread,
					f->row != PC_NONE
						? r->th[f->thread].t->markers.name[f->row]
						: PC_NONE);
			if (slot->thread != PC_NONE) {
				frow[nf++] = slot->row;
				continue;
			}
		}
		t->n = 0;
		for (c = i; c < j && !err; c++) {
			if (c > i)
				err = text_put(r, t, "; ", 2);
			if (err)
				break;
			if (a[c].kind == F_ID || a[c].kind == F_TID) {
				err = text_z(r, t, pc_str(r->m, a[c].ref));
				continue;
			}
			if (named[a[c].kind]) {
				err = text_z(r, t, pc_str(r->m, r->fl[a[c].ref].key));
				if (!err)
					err = text_put(r, t, ": ", 2);
			}
			if (!err)
				err = describe(r, t, &r->fl[a[c].ref], sfx);
		}
		if (err)
			break;
		/* every field a string-table reference: flowFrom and flowTo
		 * (format unique-string) repeat for each slice of a kind */
		row = pc_str_intern(r->m, t->s, t->n);
		if (row == PC_NONE) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		if (slot) {
			const struct flow_ev *f = &r->fl[a[i].ref];

			slot->key = named[a[i].kind] ? f->key : PC_NONE;
			slot->thread = f->thread;
			slot->name = f->row != PC_NONE ? r->th[f->thread].t->markers.name[f->row]
						       : PC_NONE;
			slot->row = row;
			tm->n++;
		}
		frow[nf++] = row;
	}
	if (!err)
		pc_pvb_srefs(&b, fkey, frow, nf);
	pl = pc_pvb_end(&b);
	if (err)
		return err;
	if (pl == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	mk->payload[a[0].row] = pl;
	return 0;
}

/*
 * The flows' binding and pairing: what depends on the slices' times only
 * (no string, payload or other model row is made), so it may run on a
 * second thread (struct flow_job) while the caller's goes on with work
 * that changes neither r->fl nor the markers (pc_chrome_derive_samples()).
 */
struct flow_job {
	struct rd *r;
	struct profconv_ctx *ctx; /* its allocations: r->ctx, or a worker's (pc_ctx_worker()) */
	struct adds ad;		  /* the fields to add, by slice (sort_by_slice()) */
	uint64_t unbound;	  /* ends that bind no slice */
	int err;
	/* pc_chrome_refs_scan() after the binding, on its thread: its nodes
	 * are mended before the fields are written (pc_chrome_flows_end()) */
	int refs;
	int refs_flow_keys;
	uint32_t *refs_list, refs_n;
	int started; /* on thread th */
	int done;    /* (atomic) the thread's binding is done */
	pthread_t th;
};

/*
 * r->fl is sorted in place (by thread and time to bind, then by flow and
 * time to pair): the v2 ends' indexes in it (open_b.flow) are not used
 * after the events.
 */
static void flows_pair(struct flow_job *j)
{
	struct rd *r = j->r;
	struct flow_ev *fl = r->fl;
	uint32_t i, k;
	int err;

	err = sort_grouped(j->ctx, fl, r->nfl, 0);
	for (i = 0; i < r->nfl && !err; i = k) {
		int any = 0;

		for (k = i; k < r->nfl && fl[k].thread == fl[i].thread; k++)
			any |= fl[k].row == PC_NONE;
		if (any)
			err = bind_thread(r, j->ctx, fl + i, k - i, &j->unbound);
	}
	/* the ends of each flow in time order: s/t goes on to the next t/f */
	if (!err)
		err = sort_grouped(j->ctx, fl, r->nfl, 1);
	for (i = 0; i < r->nfl && !err; i++) {
		err = add(j->ctx, &j->ad, &fl[i], fl[i].ph == 'f' ? F_TID : F_ID, fl[i].key);
		if (!err && i + 1 < r->nfl && fl[i + 1].key == fl[i].key && fl[i].ph != 'f' &&
		    fl[i + 1].ph != 's') {
			err = add(j->ctx, &j->ad, &fl[i], F_TO, i + 1);
			if (!err)
				err = add(j->ctx, &j->ad, &fl[i + 1], F_FROM, i);
		}
	}
	if (!err && j->ad.n)
		err = sort_by_slice(r, j->ctx, j->ad.a, j->ad.n);
	j->err = err;
}

static void *flows_pair_run(void *arg)
{
	struct flow_job *j = arg;

	flows_pair(j);
	if (j->refs && !j->err)
		j->err = pc_chrome_refs_scan(j->r, j->ctx, &j->refs_list, &j->refs_n,
					     &j->refs_flow_keys);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* From this many ends the binding goes to a second thread (PROFCONV_CHROME_FLOW_THREAD unset). */
#define FLOW_THREAD_ENDS 2048

int pc_chrome_flows_begin(struct rd *r, int overlap)
{
	struct flow_job *j;
	const char *env = getenv("PROFCONV_CHROME_FLOW_THREAD");
	int threaded;

	if (!r->nfl)
		return 0;
	j = pc_calloc(r->ctx, 1, sizeof(*j));
	if (!j)
		return PROFCONV_ERR_NOMEM;
	r->flow_job = j;
	j->r = r;
	j->ctx = r->ctx;
	threaded = env && (env[0] == '0' || env[0] == '1') && !env[1] ? env[0] == '1'
								       : r->nfl >= FLOW_THREAD_ENDS;
	if (overlap && threaded && !r->ctx->opt.no_threads) {
		const char *refs = getenv("PROFCONV_CHROME_EARLY_REFS");

		/*
		 * Which string values become plain strings is looked up on the
		 * binding's thread too (pc_chrome_strings_or_refs()'s reading
		 * part) when nothing after the fields makes markers or payloads:
		 * no contexts (their markers), no blame.  The V8 weights, the
		 * derived samples and their sort beside it change neither the
		 * markers nor the payloads.  PROFCONV_CHROME_EARLY_REFS=0: never.
		 */
		j->refs = !r->any_contexts && !r->blame && !(refs && refs[0] == '0' && !refs[1]);
		j->ctx = pc_ctx_worker(r->ctx);
		if (j->ctx && pthread_create(&j->th, NULL, flows_pair_run, j) == 0)
			j->started = 1;
		if (!j->started) {
			if (j->ctx)
				profconv_ctx_free(j->ctx);
			j->ctx = r->ctx;
		}
	}
	if (!j->started) {
		j->refs = 0;
		flows_pair(j);
	}
	return 0;
}

int pc_chrome_flows_threaded(const struct rd *r)
{
	const struct flow_job *j = r->flow_job;

	return j && j->started;
}

int pc_chrome_flows_running(const struct rd *r)
{
	const struct flow_job *j = r->flow_job;

	return j && j->started && !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
}

/* Wait for the job (if on a second thread) and take its allocations and messages. */
static int flows_join(struct rd *r)
{
	struct flow_job *j = r->flow_job;
	int err = 0;

	if (!j || !j->started)
		return 0;
	pthread_join(j->th, NULL);
	j->started = 0;
	err = pc_ctx_adopt(r->ctx, j->ctx);
	profconv_ctx_free(j->ctx);
	j->ctx = r->ctx;
	return err;
}

static void flows_job_free(struct rd *r)
{
	struct flow_job *j = r->flow_job;

	if (!j)
		return;
	flows_join(r);
	pc_free(r->ctx, j->ad.a);
	pc_free(r->ctx, j->refs_list);
	pc_free(r->ctx, j);
	r->flow_job = NULL;
}

int pc_chrome_flows_end(struct rd *r)
{
	struct flow_job *j = r->flow_job;
	struct text t = { NULL, 0, 0 }, *sfx = NULL;
	struct tmemo tm = { NULL, 0, 0 };
	uint32_t rows[4] = { r->row_flow, r->row_tflow, PC_NONE, PC_NONE };
	uint32_t i, k;
	int err;

	if (!j)
		return 0;
	err = flows_join(r);
	if (!err)
		err = j->err;
	if (!err && j->unbound)
		pc_note(r->ctx,
			"%s: %llu flow events bind no slice (none open on their thread at their time)",
			r->name, (unsigned long long)j->unbound);
	/*
	 * The nodes looked up on the binding's thread become plain strings
	 * now, before the fields copy them: the copies come out as they would
	 * have been mended after (the same texts; only the payload texts' rows
	 * come in another order, which nothing writes).  Not when a flows' key
	 * would be mended: the fields' own would be too.
	 */
	if (!err && j->refs && !j->refs_flow_keys) {
		err = pc_chrome_refs_mend(r, j->refs_list, j->refs_n);
		r->refs_mended = !err;
	}
	if (!err && j->ad.n) {
		sfx = pc_calloc(r->ctx, r->nth, sizeof(*sfx));
		if (!sfx)
			err = PROFCONV_ERR_NOMEM;
		for (i = 0; i < j->ad.n && !err; i = k) {
			for (k = i; k < j->ad.n && j->ad.a[k].thread == j->ad.a[i].thread &&
				    j->ad.a[k].row == j->ad.a[i].row;
			     k++)
				;
			err = write_fields(r, j->ad.a + i, k - i, &t, rows, sfx, &tm);
		}
		r->any_flow_slices = 1;
	}
	for (i = 0; sfx && i < r->nth; i++)
		pc_free(r->ctx, sfx[i].s);
	pc_free(r->ctx, sfx);
	pc_free(r->ctx, t.s);
	pc_free(r->ctx, tm.s);
	flows_job_free(r);
	return err;
}

int pc_chrome_flows_bind(struct rd *r)
{
	int err = pc_chrome_flows_begin(r, 0);

	return err ? err : pc_chrome_flows_end(r);
}

/* --- the ends of flows as the events give them --- */

/*
 * A flow's identity as a string: the id as hex (numbers, and strings that
 * are hex, as Perfetto parses them; other strings as they are), id2.local
 * scoped to the process, and for v1 events the category and name too
 * (catapult and Perfetto key a v1 flow by id, cat and name).  -1: no id.
 */
static int flow_key(const struct cev *e, int bind, int64_t pid, const char *cat, const char *name,
		    char *key, size_t cap)
{
	const struct cevx *x = pc_chrome_x(e);
	const struct cjv *id = bind ? &x->bind_id : &x->id;
	char idt[128];
	struct kbuf it = { idt, 0, sizeof(idt) }, k = { key, 0, cap };
	int local = 0;

	idt[0] = 0;
	if (id->kind == CJ_NONE && x->id2) {
		local = x->id2_local.kind != CJ_NONE;
		id = local ? &x->id2_local : &x->id2_global;
	}
	if (id->kind == CJ_NUM && id->d >= 0 && id->d < 1.8446744073709552e19) {
		pc_chrome_kb_hex(&it, (unsigned long long)id->d);
	} else if (id->kind == CJ_STR && id->s[0]) {
		const char *v = id->s;
		char *end;
		unsigned long long n = strtoull(v, &end, 16);

		if (*end == 0 && v[0] != '-' && v[0] != '+' && v[0] != ' ')
			pc_chrome_kb_hex(&it, n);
		else
			pc_chrome_kb_z(&it, v);
	} else {
		return -1;
	}
	key[0] = 0;
	pc_chrome_kb_put(&k, idt, it.n);
	if (local) {
		pc_chrome_kb_put(&k, "@", 1);
		pc_chrome_kb_dec(&k, (long long)pid);
	}
	if (name) {
		pc_chrome_kb_put(&k, " ", 1);
		pc_chrome_kb_z(&k, cat ? cat : "");
		pc_chrome_kb_put(&k, "/", 1);
		pc_chrome_kb_z(&k, name);
	}
	return 0;
}

/*
 * s, t, f: one end of a flow, bound to a slice of its thread at the end
 * (chrome_flows.c).  An f binds the slice open at its time with bp "e"
 * (Chrome writes it on every f), else the next slice to begin, as
 * Perfetto binds them; s and t bind the slice open at their time.
 */
int pc_chrome_flow_event(struct rd *r, struct tinfo *ti, const struct cev *ev, int64_t pid,
			 int64_t ts, const char *name, const char *cat, char ph, uint64_t off)
{
	char key[600];
	uint32_t row;
	int enclosing = pc_chrome_x(ev)->bp_e;

	if (flow_key(ev, 0, pid, cat, name, key, sizeof(key)))
		return pc_warn(r->ctx, W_BAD_EVENT, &(struct pc_loc){ r->name, off, 0, 0 },
			       "a flow ('%c') event without an id", ph);
	row = pc_str_intern_z(r->m, key);
	if (row == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	return pc_chrome_flow_add(r, (uint32_t)(ti - r->th), ts, row, ph, ph == 'f' && !enclosing,
				  PC_NONE)
		       ? 0
		       : PROFCONV_ERR_NOMEM;
}

/*
 * A slice with bind_id and flow_in/flow_out (flow v2) is an end of that
 * flow itself: row is its marker (PC_NONE for a B until its E).  *out: the
 * end's r->fl index + 1, or 0 when the slice has none.
 */
int pc_chrome_flow_v2(struct rd *r, struct tinfo *ti, const struct cev *e, int64_t ts, uint32_t row,
		      uint32_t *out)
{
	const struct cevx *x = pc_chrome_x(e);
	int in = x->flow_in == CJ_TRUE, on = x->flow_out == CJ_TRUE;
	char key[600];
	uint32_t k;

	*out = 0;
	if (x->bind_id.kind == CJ_NONE || (!in && !on) ||
	    flow_key(e, 1, 0, NULL, NULL, key, sizeof(key)))
		return 0;
	k = pc_str_intern_z(r->m, key);
	if (k == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	*out = pc_chrome_flow_add(r, (uint32_t)(ti - r->th), ts, k,
				  in && on ? 't' : on ? 's' : 'f', 0, row);
	return *out ? 0 : PROFCONV_ERR_NOMEM;
}
