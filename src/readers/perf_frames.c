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
 * Hashed by the key alone: the entries of one address in several libs are
 * then on one probe run, and a new one finds the name the others have (the
 * name is the address's alone).  A recording's libs seldom share an offset
 * that was sampled.
 */
static uint32_t ftab_hash(uint64_t key)
{
	return (uint32_t)(pc_hash64(key) >> 32);
}

/* What an entry is compared with: the key and, unless any_lib, the lib
 * (PC_NONE for an address in no mapping). */
struct ftab_key {
	uint64_t key;
	uint32_t lib;
	int any_lib;
};

static int ftab_eq(const void *table, uint32_t row, const void *key)
{
	const struct ftab_ent *e = &((const struct ftab_ent *)table)[row];
	const struct ftab_key *k = key;

	return e->key == k->key && (k->any_lib || e->lib == k->lib);
}

struct ftab_ent *perf_ftab_get(struct perf *p, uint64_t key, uint32_t lib, uint32_t *name)
{
	struct ftab *t = &p->ftab;
	struct ftab_key k = { key, lib, 0 }, any = { key, PC_NONE, 1 };
	struct ftab_ent *e;
	uint32_t h = ftab_hash(key), row, slot;

	*name = PC_NONE;
	/* the key's first entry in any lib: nearly always the one, or none
	 * (then slot is where it goes: the probe run ends there for both) */
	row = pc_itab_find(&t->index, h, ftab_eq, t->ents, &any, &slot);
	if (row != PC_NONE) {
		if (t->ents[row].lib == lib)
			return &t->ents[row];
		/* the address in another lib: its name is this one's */
		if (t->ents[row].func != PC_NONE)
			*name = p->m->funcs.name[t->ents[row].func];
		row = pc_itab_find(&t->index, h, ftab_eq, t->ents, &k, &slot);
		if (row != PC_NONE)
			return &t->ents[row];
	}
	if (t->len >= (1u << 30)) {
		pc_fail(p->ctx, PROFCONV_ERR_LIMIT, NULL, "more than 2^30 frames");
		return NULL;
	}
	if (pc_grow(p->ctx, (void **)&t->ents, sizeof(*t->ents), &t->cap, (size_t)t->len + 1) ||
	    pc_itab_insert(p->ctx, &t->index, slot, h, t->len))
		return NULL;
	e = &t->ents[t->len++];
	e->key = key;
	e->lib = lib;
	e->func = PC_NONE;
	e->frame[0] = e->frame[1] = e->frame[2] = e->frame[3] = PC_NONE;
	return e;
}

void perf_ftab_free(struct perf *p)
{
	pc_itab_free(p->ctx, &p->ftab.index);
	pc_free(p->ctx, p->ftab.ents);
	memset(&p->ftab, 0, sizeof(p->ftab));
}
