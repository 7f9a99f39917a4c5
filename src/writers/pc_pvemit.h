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

#endif /* PC_PVEMIT_H */
