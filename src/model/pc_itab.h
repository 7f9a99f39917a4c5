/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_itab.h - an open-addressing hash index over table rows.
 *
 * The index stores only (row, 32-bit hash) pairs; the keys live in the
 * table's own columns, and the caller's eq() compares a key with a row.  So
 * an interned table costs 8 bytes per slot on top of its columns, and
 * growing never needs the keys again (slots are re-placed by their stored
 * hash).  Linear probing, load factor at most 1/2.
 */
#ifndef PC_ITAB_H
#define PC_ITAB_H

#include "core/pc_core.h"

struct pc_itab_slot {
	uint32_t row; /* PC_NONE = empty */
	uint32_t hash;
};

struct pc_itab {
	struct pc_itab_slot *slots;
	uint32_t mask; /* slots - 1; 0 when unallocated */
	uint32_t count;
};

typedef int pc_itab_eq_fn(const void *table, uint32_t row, const void *key);

/*
 * Find key; returns its row, or PC_NONE with *slot set to where it would be
 * inserted (pass that to pc_itab_insert()).
 */
static inline uint32_t pc_itab_find(const struct pc_itab *t, uint32_t hash, pc_itab_eq_fn *eq,
				    const void *table, const void *key, uint32_t *slot)
{
	uint32_t i;

	if (!t->slots) {
		*slot = PC_NONE;
		return PC_NONE;
	}
	for (i = hash & t->mask;; i = (i + 1) & t->mask) {
		const struct pc_itab_slot *s = &t->slots[i];

		if (s->row == PC_NONE) {
			*slot = i;
			return PC_NONE;
		}
		if (s->hash == hash && eq(table, s->row, key))
			return s->row;
	}
}

/* Insert row at the slot pc_itab_find() returned; grows as needed. 0 or error. */
int pc_itab_insert(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t slot, uint32_t hash,
		   uint32_t row);
void pc_itab_free(struct profconv_ctx *ctx, struct pc_itab *t);
/*
 * Empty t for about rows rows to be inserted again (a rebuilt index): its
 * slots are kept when they are enough, else allocated once at the size
 * the inserts would grow them to, so the refill never grows.  0 or NOMEM
 * (then t is empty and unallocated).
 */
int pc_itab_reset(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t rows);
/*
 * Make room for more rows to be inserted without growing on the way (one
 * growth at most, to the size the inserts would reach).  0 or NOMEM (t is
 * then unchanged).
 */
int pc_itab_reserve(struct profconv_ctx *ctx, struct pc_itab *t, uint32_t more);

#endif /* PC_ITAB_H */
