/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvemit.c - payload trees to JSON, streamed.
 *
 * The tree is preorder with subtree spans, so the walk needs no recursion:
 * an explicit stack of (container end, is-object) pairs closes containers
 * as the walk passes their last node.  Depth is bounded by the builder's
 * PC_PV_MAX_DEPTH, which with the formats' own nesting stays below the
 * JSON writer's limit (PC_JW_MAX_DEPTH).
 */
#include "writers/pc_pvemit.h"

#include <stdlib.h>
#include <string.h>

static void scalar(struct pc_jw *w, const struct pc_model *m, const struct pc_val *v,
		   const struct pc_pvemit *e)
{
	size_t len;
	const char *s;

	switch (v->kind) {
	case PC_VAL_FALSE:
		pc_jw_bool(w, 0);
		break;
	case PC_VAL_TRUE:
		pc_jw_bool(w, 1);
		break;
	case PC_VAL_INT:
		pc_jw_i64(w, v->v.i);
		break;
	case PC_VAL_DBL:
		pc_jw_double(w, v->v.d);
		break;
	case PC_VAL_NUM: /* a literal the reader checked to be a JSON number */
		s = pc_pv_text(m, v->v.s, &len);
		pc_jw_raw(w, s, len);
		break;
	case PC_VAL_STR:
		s = pc_pv_text(m, v->v.s, &len);
		pc_jw_str(w, s, len);
		break;
	case PC_VAL_SREF:
		if (e && e->sref)
			e->sref(w, m, v->v.s, e->user);
		else
			pc_jw_u64(w, v->v.s);
		break;
	case PC_VAL_CAUSE:
		if (e && e->cause)
			e->cause(w, m, e->user);
		else
			pc_jw_null(w);
		break;
	default:
		pc_jw_null(w);
		break;
	}
}

/* Walk nodes [first, end) as siblings inside a container already open. */
static void walk(struct pc_jw *w, const struct pc_model *m, uint32_t first, uint32_t end,
		 int in_obj, const struct pc_pvemit *e, int (*skip)(const char *, void *),
		 void *skip_user)
{
	uint32_t stack_end[PC_PV_MAX_DEPTH + 1];
	uint8_t stack_obj[PC_PV_MAX_DEPTH + 1];
	uint32_t depth = 0, i = first;

	stack_end[0] = end;
	stack_obj[0] = (uint8_t)in_obj;
	while (i < end) {
		const struct pc_val *v;

		while (depth && i >= stack_end[depth]) {
			if (stack_obj[depth])
				pc_jw_obj_end(w);
			else
				pc_jw_arr_end(w);
			depth--;
		}
		v = pc_pv(m, i);
		if (stack_obj[depth]) {
			const char *k = pc_pv_text(m, v->key, NULL);

			if (depth == 0 && skip && skip(k, skip_user)) {
				i += pc_val_span(v);
				continue;
			}
			pc_jw_key(w, k);
		}
		if (v->kind == PC_VAL_OBJ || v->kind == PC_VAL_ARR) {
			if (v->kind == PC_VAL_OBJ)
				pc_jw_obj_begin(w);
			else
				pc_jw_arr_begin(w);
			if (depth == PC_PV_MAX_DEPTH) { /* cannot happen: the builder refuses it */
				pc_jw_null(w);
				i += pc_val_span(v);
				continue;
			}
			depth++;
			stack_end[depth] = i + pc_val_span(v);
			stack_obj[depth] = v->kind == PC_VAL_OBJ;
			i++;
			continue;
		}
		scalar(w, m, v, e);
		i += pc_val_span(v); /* a cause placeholder may keep the nodes it replaced */
	}
	while (depth) {
		if (stack_obj[depth])
			pc_jw_obj_end(w);
		else
			pc_jw_arr_end(w);
		depth--;
	}
}

void pc_pv_emit(struct pc_jw *w, const struct pc_model *m, uint32_t node,
		const struct pc_pvemit *e)
{
	const struct pc_val *v;

	if (node == PC_NONE) {
		pc_jw_null(w);
		return;
	}
	v = pc_pv(m, node);
	if (v->kind != PC_VAL_OBJ && v->kind != PC_VAL_ARR) {
		scalar(w, m, v, e);
		return;
	}
	if (v->kind == PC_VAL_OBJ)
		pc_jw_obj_begin(w);
	else
		pc_jw_arr_begin(w);
	walk(w, m, node + 1, node + pc_val_span(v), v->kind == PC_VAL_OBJ, e, NULL, NULL);
	if (v->kind == PC_VAL_OBJ)
		pc_jw_obj_end(w);
	else
		pc_jw_arr_end(w);
}

void pc_pv_emit_members(struct pc_jw *w, const struct pc_model *m, uint32_t obj,
			const struct pc_pvemit *e, int (*skip)(const char *key, void *user),
			void *skip_user)
{
	const struct pc_val *v;

	if (obj == PC_NONE)
		return;
	v = pc_pv(m, obj);
	if (v->kind != PC_VAL_OBJ)
		return;
	walk(w, m, obj + 1, obj + pc_val_span(v), 1, e, skip, skip_user);
}

/* --- payload texts written again (pc_pvmemo) --- */

#define PC_PVMEMO_SLOTS	   1024 /* a power of 2 */
#define PC_PVMEMO_TEXT	   (64 * 1024)
#define PC_PVMEMO_TEXT_MAX 1024

struct pc_pvmemo {
	uint32_t pl[PC_PVMEMO_SLOTS]; /* the payload in the slot, or PC_NONE */
	uint32_t off[PC_PVMEMO_SLOTS], len[PC_PVMEMO_SLOTS];
	uint32_t used; /* bytes of text */
	char text[PC_PVMEMO_TEXT];
};

static inline uint32_t memo_slot(uint32_t p)
{
	return (p * 2654435761u) >> 22; /* 32 - log2(PC_PVMEMO_SLOTS) */
}

static void memo_clear(struct pc_pvmemo *c)
{
	uint32_t i;

	for (i = 0; i < PC_PVMEMO_SLOTS; i++)
		c->pl[i] = PC_NONE;
	c->used = 0;
}

struct pc_pvmemo *pc_pvmemo_new(void)
{
	struct pc_pvmemo *c = malloc(sizeof(*c));

	if (c)
		memo_clear(c);
	return c;
}

void pc_pvmemo_free(struct pc_pvmemo *c)
{
	free(c);
}

int pc_pvmemo_again(struct pc_pvmemo *c, struct pc_jw *w, uint32_t p)
{
	uint32_t slot = memo_slot(p);

	if (!c || p == PC_NONE || c->pl[slot] != p)
		return 0;
	pc_jw_raw(w, c->text + c->off[slot], c->len[slot]);
	return 1;
}

void pc_pvmemo_keep(struct pc_pvmemo *c, const struct pc_jw *w, uint32_t p, uint64_t from,
		    uint64_t replaced)
{
	uint32_t slot = memo_slot(p);
	const char *text;
	size_t len;

	if (!c || p == PC_NONE)
		return;
	len = pc_jw_since(w, from, &text);
	if (!len || len > PC_PVMEMO_TEXT_MAX || pc_jw_replaced(w) != replaced)
		return;
	if (len > PC_PVMEMO_TEXT - c->used)
		memo_clear(c);
	memcpy(c->text + c->used, text, len);
	c->pl[slot] = p;
	c->off[slot] = c->used;
	c->len[slot] = (uint32_t)len;
	c->used += (uint32_t)len;
}
