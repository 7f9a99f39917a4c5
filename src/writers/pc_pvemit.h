/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_pvemit.h - streaming a payload subtree (struct pc_val, see
 * model/pc_model.h) through the JSON writer.  Shared by the writers: what
 * differs between output formats (how a string-table reference and a
 * marker's cause are written) comes in as callbacks.
 */
#ifndef PC_PVEMIT_H
#define PC_PVEMIT_H

#include "json/pc_jw.h"
#include "model/pc_model.h"

struct pc_pvemit {
	/* A PC_VAL_SREF value (a model string row).  NULL: the row as a number. */
	void (*sref)(struct pc_jw *w, const struct pc_model *m, uint32_t row, void *user);
	/* The value of a PC_VAL_CAUSE member.  NULL: null. */
	void (*cause)(struct pc_jw *w, const struct pc_model *m, void *user);
	void *user;
};

/*
 * Write the value at node.  Members keep their stored order.  A member for
 * which skip(key) returns non-zero is left out (NULL: none is).
 */
void pc_pv_emit(struct pc_jw *w, const struct pc_model *m, uint32_t node,
		const struct pc_pvemit *e);
/* Write the members of object node into the object open in w (no braces),
 * leaving out those whose key skip() accepts (skip may be NULL). */
void pc_pv_emit_members(struct pc_jw *w, const struct pc_model *m, uint32_t obj,
			const struct pc_pvemit *e, int (*skip)(const char *key, void *user),
			void *skip_user);

/*
 * Payload texts written before, written again as they are.  Readers give
 * markers with the same payload one payload (a Chrome trace's 52,597
 * markers have 10,056 distinct payloads, shared by markers far apart once
 * they are sorted by time), and a payload written again is the same
 * bytes: a writer keeps what it wrote of each payload (whose text depends
 * only on the payload, in the stretch of output the memo is used for) and
 * copies it.  A memo holds PC_PVMEMO_SLOTS payloads by number, their texts
 * in one buffer of PC_PVMEMO_TEXT bytes (begun again when full), none
 * longer than PC_PVMEMO_TEXT_MAX; a text in which invalid UTF-8 was
 * replaced is not kept, so that each copy is counted as it is written.
 * It comes from malloc (helper threads use it, outside the ctx); NULL (no
 * memory) is a memo that knows nothing.
 */
struct pc_pvmemo;
struct pc_pvmemo *pc_pvmemo_new(void);
void pc_pvmemo_free(struct pc_pvmemo *c);
/* Write payload p's text again (1), or nothing when c does not have it (0). */
int pc_pvmemo_again(struct pc_pvmemo *c, struct pc_jw *w, uint32_t p);
/* Keep payload p's text, written since from (pc_jw_tell()) with replaced
 * (pc_jw_replaced()) as it was at from. */
void pc_pvmemo_keep(struct pc_pvmemo *c, const struct pc_jw *w, uint32_t p, uint64_t from,
		    uint64_t replaced);

#endif /* PC_PVEMIT_H */
