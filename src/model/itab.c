/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * itab.c - growth of the open-addressing row index (see pc_itab.h).
 */
#include "model/pc_itab.h"

/*
 * nslots is a power of two >= 64.  The empty slots are written whole, four
 * at a time, and each moved slot is read once: about a fifth fewer
 * instructions a growth (the frame, function and string tables grow to 2^19
 * slots on a system-wide recording).  The slots end where they did before.
 */
static int rehash(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t nslots)
{
	const struct pc_itab_slot empty = { PC_NONE, 0 };
	struct pc_itab_slot *ns, *os = t->slots;
	uint32_t i, mask = nslots - 1, omask = t->mask;

	ns = pc_alloc(ctx, (size_t)nslots * sizeof(*ns));
	if (!ns)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < nslots; i += 4) {
		ns[i] = empty;
		ns[i + 1] = empty;
		ns[i + 2] = empty;
		ns[i + 3] = empty;
	}
	if (os) {
		for (i = 0; i <= omask; i++) {
			struct pc_itab_slot s = os[i];
			uint32_t j;

			if (s.row == PC_NONE)
				continue;
			for (j = s.hash & mask; ns[j].row != PC_NONE; j = (j + 1) & mask)
				;
			ns[j] = s;
		}
		pc_free(ctx, os);
	}
	t->slots = ns;
	t->mask = mask;
	return 0;
}

int pc_itab_insert(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t slot, uint32_t hash,
		   uint32_t row)
{
	int err;

	if (!t->slots) {
		err = rehash(ctx, t, 64);
		if (err)
			return err;
		slot = PC_NONE;
	}
	if (slot == PC_NONE) {
		for (slot = hash & t->mask; t->slots[slot].row != PC_NONE; slot = (slot + 1) & t->mask)
			;
	}
	t->slots[slot].row = row;
	t->slots[slot].hash = hash;
	t->count++;
	if ((uint64_t)t->count * 2 > (uint64_t)t->mask + 1) {
		if (t->mask >= 0x7fffffffu)
			return pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL, "hash index over 2^31 rows");
		err = rehash(ctx, t, (t->mask + 1) * 2);
		if (err)
			return err;
	}
	return 0;
}

void pc_itab_free(struct profconv_ctx *ctx, struct pc_itab *t)
{
	pc_free(ctx, t->slots);
	t->slots = NULL;
	t->mask = 0;
	t->count = 0;
}

int pc_itab_reset(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t rows)
{
	uint64_t want = 64;

	while (want < 2 * (uint64_t)rows)
		want *= 2;
	if (want > (uint64_t)1 << 31)
		want = (uint64_t)1 << 31;
	t->count = 0;
	if (t->slots && (uint64_t)t->mask + 1 >= want) {
		memset(t->slots, 0xff, ((size_t)t->mask + 1) * sizeof(*t->slots)); /* rows PC_NONE */
		return 0;
	}
	pc_itab_free(ctx, t);
	return rehash(ctx, t, (uint32_t)want);
}

int pc_itab_reserve(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t more)
{
	uint64_t want = t->slots ? (uint64_t)t->mask + 1 : 64;

	if (!more)
		return 0;
	/* pc_itab_insert() grows past count * 2 > slots */
	while (want < ((uint64_t)1 << 31) && ((uint64_t)t->count + more) * 2 > want)
		want *= 2;
	if (t->slots && want == (uint64_t)t->mask + 1)
		return 0;
	return rehash(ctx, t, (uint32_t)want);
}
