/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_frames.c - the perf reader's frame table: every (lib-relative
 * address, lib) it resolved, with the func and frames made for it (struct
 * ftab in pc_perf.h).  One lookup here on a frame cache miss replaces the
 * model's three (string, func, frame), and the model's func and frame
 * indexes are not built while reading.
 */
#include "readers/pc_perf.h"

/*
 * By the key alone: the entries of one address in several libs are then on
 * one probe run, and a new one finds the name the others have (the name is
 * the address's alone).  A recording's libs seldom share an offset that
 * was sampled.
 */
static uint32_t ftab_hash(uint64_t key)
{
	return (uint32_t)(pc_hash64(key) >> 32);
}

/* Slots for at least twice the entries (load at most 1/2).  0 or NOMEM. */
static int ftab_rehash(struct perf *p, struct ftab *t, uint32_t nslots)
{
	struct ftab_slot *ns = pc_alloc(p->ctx, (size_t)nslots * sizeof(*ns));
	uint32_t i, mask = nslots - 1;

	if (!ns)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < nslots; i++)
		ns[i].ent = PC_NONE;
	for (i = 0; t->slots && i <= t->mask; i++) {
		struct ftab_slot s = t->slots[i];
		uint32_t j;

		if (s.ent == PC_NONE)
			continue;
		for (j = s.hash & mask; ns[j].ent != PC_NONE; j = (j + 1) & mask)
			;
		ns[j] = s;
	}
	pc_free(p->ctx, t->slots);
	t->slots = ns;
	t->mask = mask;
	return 0;
}

struct ftab_ent *perf_ftab_get(struct perf *p, uint64_t key, uint32_t lib, uint32_t *name)
{
	struct ftab *t = &p->ftab;
	struct ftab_ent *e;
	uint32_t h = ftab_hash(key), i;

	*name = PC_NONE;
	if (!t->slots && ftab_rehash(p, t, 1024))
		return NULL;
	for (i = h & t->mask; t->slots[i].ent != PC_NONE; i = (i + 1) & t->mask) {
		if (t->slots[i].hash == h) {
			e = &t->ents[t->slots[i].ent];
			if (e->key != key)
				continue;
			if (e->lib == lib)
				return e;
			if (e->func != PC_NONE)
				*name = p->m->funcs.name[e->func];
		}
	}
	if (pc_grow(p->ctx, (void **)&t->ents, sizeof(*t->ents), &t->cap, (size_t)t->len + 1))
		return NULL;
	t->slots[i].hash = h;
	t->slots[i].ent = t->len;
	e = &t->ents[t->len++];
	e->key = key;
	e->lib = lib;
	e->func = PC_NONE;
	e->frame[0] = e->frame[1] = e->frame[2] = e->frame[3] = PC_NONE;
	if ((uint64_t)t->len * 2 > (uint64_t)t->mask + 1) {
		if (t->mask >= 0x7fffffffu) {
			pc_fail(p->ctx, PROFCONV_ERR_LIMIT, NULL, "more than 2^30 frames");
			return NULL;
		}
		if (ftab_rehash(p, t, (t->mask + 1) * 2))
			return NULL;
	}
	return e;
}

void perf_ftab_free(struct perf *p)
{
	pc_free(p->ctx, p->ftab.slots);
	pc_free(p->ctx, p->ftab.ents);
	memset(&p->ftab, 0, sizeof(p->ftab));
}
