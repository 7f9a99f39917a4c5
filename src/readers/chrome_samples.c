/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_samples.c - samples derived from slices, for a thread with slices
 * and no samples: one per stretch of unchanged open slices, weighing its
 * time, and an empty one weighing nothing at the start of each gap between
 * slices; their stacks are interned through an index of their own (struct
 * dstacks).
 */
#include "core/pc_config.h"

#include <stdlib.h>

#include "model/pc_itab.h"
#include "readers/pc_chrome.h"

/* Slice a before slice b: earlier start, then the longer one (it encloses), then file order. */
static int slice_before(const void *markers, uint32_t a, uint32_t b)
{
	const struct pc_markers *mk = markers;

	if (mk->start[a] != mk->start[b])
		return mk->start[a] < mk->start[b];
	if (mk->end[a] != mk->end[b])
		return mk->end[a] > mk->end[b];
	return a < b;
}

#define DS_CACHE 4096 /* a power of 2 */
#define DS_NARROW 8	/* children a prefix keeps in a list only */

/*
 * The derived samples' stacks, found by (prefix, frame).  Nearly every
 * prefix has a few children (a generated 250 MiB trace: 31,000 of its
 * 561,000 stacks are children of a prefix with more than 8), so each
 * stack's children are a list, walked; only the children of the wide
 * prefixes (and of no prefix, past 8) are in a hash index.  The index
 * stays small (a few hundred KiB) where one over every stack was as big as
 * the stack table, missed the caches on nearly every lookup and cost its
 * fresh pages.  Rows are made in the same order as pc_stack_intern() would
 * make them, with pc_stack_add_new() (the model's own index, 16 bytes a
 * stack, is not grown for them; the model rebuilds it if anything interns a
 * stack later).
 */
struct dstacks {
	struct pc_model *m;
	uint32_t *child; /* stack row -> its first child, or PC_NONE */
	uint32_t *sib;	 /* stack row -> the next child of its prefix, or PC_NONE */
	uint8_t *nkids;	 /* stack row -> its children, up to 255 */
	uint32_t cap;	 /* rows child, sib and nkids hold */
	uint32_t root;	 /* the first stack without a prefix */
	uint32_t nroot;	 /* stacks without a prefix */
	struct pc_itab index; /* the children of wide prefixes */
	/* the (prefix, frame) pairs looked up lately */
	struct {
		uint64_t key; /* UINT64_MAX: empty (a frame is never PC_NONE) */
		uint32_t row;
	} cache[DS_CACHE];
};

static int dstack_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_stack_table *t = table;
	uint64_t k;

	memcpy(&k, key, sizeof(k));
	return t->prefix[row] == (uint32_t)(k >> 32) && t->frame[row] == (uint32_t)k;
}

static int dstacks_room(struct dstacks *d, uint32_t rows)
{
	uint32_t cap = d->cap;

	if (rows <= d->cap)
		return 0;
	if (pc_grow(d->m->ctx, (void **)&d->child, sizeof(*d->child), &cap, rows))
		return PROFCONV_ERR_NOMEM;
	cap = d->cap;
	if (pc_grow(d->m->ctx, (void **)&d->sib, sizeof(*d->sib), &cap, rows))
		return PROFCONV_ERR_NOMEM;
	cap = d->cap;
	if (pc_grow(d->m->ctx, (void **)&d->nkids, sizeof(*d->nkids), &cap, rows))
		return PROFCONV_ERR_NOMEM;
	d->cap = cap;
	return 0;
}

/* Row into the index (a child of a wide prefix). */
static int dstack_index(struct dstacks *d, uint32_t row)
{
	uint64_t key = (uint64_t)d->m->stacks.prefix[row] << 32 | d->m->stacks.frame[row];
	uint32_t h = (uint32_t)pc_hash64(key), slot;

	if (pc_itab_find(&d->index, h, dstack_eq, &d->m->stacks, &key, &slot) != PC_NONE)
		return 0; /* (a duplicate pair: the first one stays found) */
	return pc_itab_insert(d->m->ctx, &d->index, slot, h, row);
}

static uint32_t dstack_intern(struct dstacks *d, uint32_t prefix, uint32_t frame)
{
	uint64_t key = (uint64_t)prefix << 32 | frame;
	uint32_t h = (uint32_t)pc_hash64(key), c = h & (DS_CACHE - 1);
	const uint32_t *fr = d->m->stacks.frame;
	uint32_t n = prefix == PC_NONE ? d->nroot : d->nkids[prefix], row, slot = PC_NONE;

	if (d->cache[c].key == key)
		return d->cache[c].row;
	if (n > DS_NARROW) {
		row = pc_itab_find(&d->index, h, dstack_eq, &d->m->stacks, &key, &slot);
	} else {
		for (row = prefix == PC_NONE ? d->root : d->child[prefix]; row != PC_NONE;
		     row = d->sib[row])
			if (fr[row] == frame)
				break;
	}
	if (row == PC_NONE) {
		uint32_t *head;

		row = pc_stack_add_new(d->m, prefix, frame);
		if (row == PC_NONE || dstacks_room(d, row + 1))
			return PC_NONE;
		head = prefix == PC_NONE ? &d->root : &d->child[prefix];
		d->child[row] = PC_NONE;
		d->nkids[row] = 0;
		d->sib[row] = *head;
		*head = row;
		if (prefix == PC_NONE)
			d->nroot++;
		else if (d->nkids[prefix] < 255)
			d->nkids[prefix]++;
		if (n > DS_NARROW) {
			if (pc_itab_insert(d->m->ctx, &d->index, slot, h, row))
				return PC_NONE;
		} else if (n == DS_NARROW) { /* now wide: its children into the index */
			uint32_t k;

			for (k = *head; k != PC_NONE; k = d->sib[k])
				if (dstack_index(d, k))
					return PC_NONE;
		}
	}
	d->cache[c].key = key;
	d->cache[c].row = row;
	return row;
}

/* The stacks there are so far (each list in row order: the first row of a pair wins). */
static int dstacks_init(struct dstacks *d, struct pc_model *m)
{
	uint32_t i;

	d->m = m;
	d->child = d->sib = NULL;
	d->nkids = NULL;
	d->cap = 0;
	d->root = PC_NONE;
	d->nroot = 0;
	memset(&d->index, 0, sizeof(d->index));
	memset(d->cache, 0xff, sizeof(d->cache));
	if (dstacks_room(d, m->stacks.len + 1))
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < m->stacks.len; i++) {
		d->child[i] = PC_NONE;
		d->nkids[i] = 0;
	}
	for (i = m->stacks.len; i-- > 0;) {
		uint32_t p = m->stacks.prefix[i];

		if (p == PC_NONE) {
			d->sib[i] = d->root;
			d->root = i;
			d->nroot++;
		} else {
			d->sib[i] = d->child[p];
			d->child[p] = i;
			if (d->nkids[p] < 255)
				d->nkids[p]++;
		}
	}
	/* the wide ones' children into the index, in row order */
	for (i = 0; i < m->stacks.len; i++) {
		uint32_t p = m->stacks.prefix[i];

		if ((p == PC_NONE ? d->nroot : d->nkids[p]) > DS_NARROW && dstack_index(d, i))
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

static void dstacks_free(struct dstacks *d)
{
	pc_free(d->m->ctx, d->child);
	pc_free(d->m->ctx, d->sib);
	pc_free(d->m->ctx, d->nkids);
	pc_itab_free(d->m->ctx, &d->index);
}

/*
 * Threads with slices and no samples: a sample for each stretch of time in
 * which the open slices (outermost first) stay the same, at its start,
 * weighing its duration (weight type "tracing-ms", ns in the model), so a
 * function's self time is its slices' self time exactly.  A stretch with no
 * slice open between two slices gets one sample at its start with no stack
 * and weight 0 (the front-end draws a sample until the next one: without it
 * the gap would look busy in the stack chart and the graphs); two
 * stretches one after the other with the same stack are one.  The slices
 * are the thread's markers pc_chrome_keep_slice() flagged, taken in order
 * of start (the longer first, then file order); a slice
 * ends the stretch of those it starts inside, and closes when it is the
 * innermost one and its end has come (one that ends before a slice inside
 * it, which the format does not allow, stays open until that one closes).
 */
int pc_chrome_derive_samples(struct rd *r)
{
	uint32_t th, depth, known;
	uint32_t stack_frames[256];
	uint32_t stack_rows[256]; /* [d]: the stack of frames 0..d; rows below known are */
	int64_t stack_end[256];
	uint32_t *idx = NULL, *tmp = NULL;
	size_t cap = 0;
	struct dstacks ds;
	int err = 0;

	for (th = 0; th < r->nth; th++)
		if (r->th[th].nslices && !r->th[th].has_real_samples)
			break;
	if (th == r->nth)
		return 0; /* nothing to derive */
	err = dstacks_init(&ds, r->m);
	for (th = 0; th < r->nth && !err; th++) {
		struct tinfo *ti = &r->th[th];
		const struct pc_markers *mk = &ti->t->markers;
		struct pc_samples *sm = &ti->t->samples;
		uint32_t n = 0, k, w, last = PC_NONE; /* last: the sample the stretch before made */
		int64_t t, next, last_end = 0;

		if (!ti->nslices || ti->has_real_samples)
			continue;
		sm->weight_type = "tracing-ms";
		if (ti->nslices > cap) {
			pc_free(r->ctx, idx);
			pc_free(r->ctx, tmp);
			cap = ti->nslices;
			idx = pc_alloc(r->ctx, cap * sizeof(*idx));
			tmp = pc_alloc(r->ctx, cap * sizeof(*tmp));
			if (!idx || !tmp) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
		}
		for (w = 0; w < ti->sbits_used; w++) {
			uint64_t bits = ti->sbits[w];

			while (bits) {
				k = w * 64 + (uint32_t)__builtin_ctzll(bits);
				bits &= bits - 1;
				idx[n++] = k;
			}
		}
		pc_merge_sort(idx, tmp, n, slice_before, mk);
		depth = 0;
		known = 0;
		k = 0;
		t = n ? mk->start[idx[0]] : 0;
		while (!err && (k < n || depth)) {
			uint32_t s = PC_NONE, d;

			/* the slices that have begun by t, each closing what ended before it */
			while (k < n && mk->start[idx[k]] <= t) {
				uint32_t row = idx[k];

				while (depth && stack_end[depth - 1] <= mk->start[row])
					depth--;
				if (known > depth)
					known = depth;
				if (depth < PC_ARRAY_SIZE(stack_frames)) {
					stack_frames[depth] = pc_chrome_label_frame_cached(
						r, mk->name[row], mk->category[row]);
					if (stack_frames[depth] == PC_NONE) {
						err = PROFCONV_ERR_NOMEM;
						break;
					}
					stack_end[depth] = mk->end[row];
					depth++;
				}
				k++;
			}
			while (depth && stack_end[depth - 1] <= t)
				depth--;
			if (known > depth)
				known = depth;
			if (err)
				break;
			/* the stretch runs to the next start or the innermost slice's end */
			next = k < n ? mk->start[idx[k]] : INT64_MAX;
			if (depth && stack_end[depth - 1] < next)
				next = stack_end[depth - 1];
			if (!depth) {
				/* a gap before the next slice: an empty sample
				 * weighing nothing ends the stretch before it in
				 * the stack chart and the graphs */
				if (last != PC_NONE && last_end == t && k < n && next > t) {
					err = pc_sample_add(r->m, ti->t, PC_NONE, t, 0);
					if (err)
						break;
				}
				t = next; /* (k < n: the loop goes on) */
				continue;
			}
			/* the open slices' stack, interned from the first level not
			 * known since they last changed (the same rows, in the same
			 * order, as interning the whole path each time) */
			for (d = known; d < depth; d++) {
				s = dstack_intern(&ds, d ? stack_rows[d - 1] : PC_NONE, stack_frames[d]);
				if (s == PC_NONE) {
					err = r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
					break;
				}
				stack_rows[d] = s;
			}
			if (err)
				break;
			known = depth;
			s = stack_rows[depth - 1];
			if (last != PC_NONE && sm->stack[last] == s && last_end == t) {
				sm->weight[last] = pc_time_sub(next, sm->time[last]); /* the same stack goes on */
			} else if (next > t) {
				err = pc_sample_add(r->m, ti->t, s, t, 0);
				if (!err && !sm->weight)
					err = PROFCONV_ERR_INTERNAL; /* (a weight of 0 makes the column) */
				if (err)
					break;
				last = sm->len - 1;
				sm->weight[last] = pc_time_sub(next, t);
			}
			last_end = next;
			t = next;
		}
	}
	pc_free(r->ctx, idx);
	pc_free(r->ctx, tmp);
	dstacks_free(&ds);
	return err;
}
