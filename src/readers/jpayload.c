/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jpayload.c - JSON values into the model's payload trees, for the JSON
 * readers: built from the pull tokenizer in one pass (no text kept, no
 * cJSON), plus the two fix-ups a marker payload needs once its marker and
 * the schemas are known: its cause moves to the marker's cause columns,
 * and its string-index fields become string references.
 */
#include "readers/pc_jread.h"

#include <cJSON.h>

#include <math.h>
#include <stdlib.h>

static void tok_scalar(struct pc_pvb *b, const struct pc_jtok *t, int literal)
{
	switch (t->type) {
	case PC_JT_NULL:
		pc_pvb_null(b);
		break;
	case PC_JT_TRUE:
		pc_pvb_bool(b, 1);
		break;
	case PC_JT_FALSE:
		pc_pvb_bool(b, 0);
		break;
	case PC_JT_STRING:
		pc_pvb_str(b, t->str, t->len);
		break;
	case PC_JT_NUMBER:
		if (literal)
			pc_pvb_num(b, t->str, t->len);
		else if (t->is_int)
			pc_pvb_int(b, t->i);
		else
			pc_pvb_dbl(b, t->d); /* an overflow (1e400) becomes null */
		break;
	default:
		break;
	}
}

int pc_jr_pv_read_from(struct profconv_ctx *ctx, struct pc_jpull *p, struct pc_model *m,
		       int literal, const struct pc_jtok *t, uint32_t *root)
{
	struct pc_pvb b;
	unsigned base = t->depth;
	int err = 0;

	*root = PC_NONE;
	if (t->type != PC_JT_OBJ_BEGIN && t->type != PC_JT_ARR_BEGIN) {
		pc_pvb_begin_scalar(&b, m);
		tok_scalar(&b, t, literal);
		*root = pc_pvb_end(&b);
		return *root == PC_NONE ? (ctx->status ? ctx->status : PROFCONV_ERR_NOMEM) : 0;
	}
	pc_pvb_begin(&b, m, t->type == PC_JT_ARR_BEGIN);
	/* base is the depth inside the root; the root closes at base - 1 */
	for (;;) {
		err = pc_jpull_next(p, &t);
		if (err)
			return err;
		switch (t->type) {
		case PC_JT_OBJ_END:
		case PC_JT_ARR_END:
			if (t->depth + 1 == base)
				goto done;
			if (t->type == PC_JT_OBJ_END)
				pc_pvb_obj_end(&b);
			else
				pc_pvb_arr_end(&b);
			break;
		case PC_JT_OBJ_BEGIN:
		case PC_JT_ARR_BEGIN:
			if (b.depth >= PC_PV_MAX_DEPTH)
				return pc_jr_fail(ctx, p, t, PROFCONV_ERR_LIMIT,
						  "value nested deeper than %d levels",
						  PC_PV_MAX_DEPTH);
			if (t->type == PC_JT_OBJ_BEGIN)
				pc_pvb_obj_begin(&b);
			else
				pc_pvb_arr_begin(&b);
			break;
		case PC_JT_KEY:
			pc_pvb_key(&b, t->str, t->len);
			break;
		default:
			tok_scalar(&b, t, literal);
			break;
		}
		if (b.err)
			return b.err;
	}
done:
	*root = pc_pvb_end(&b);
	return *root == PC_NONE ? (ctx->status ? ctx->status : PROFCONV_ERR_NOMEM) : 0;
}

int pc_jr_pv_read(struct profconv_ctx *ctx, struct pc_jpull *p, struct pc_model *m, int literal,
		  uint32_t *root)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(p, &t);

	if (err)
		return err;
	return pc_jr_pv_read_from(ctx, p, m, literal, t, root);
}

int pc_jr_pv_double(const struct pc_model *m, uint32_t node, double *out)
{
	const struct pc_val *v;
	size_t len;
	const char *t;

	if (node == PC_NONE)
		return 0;
	v = pc_pv(m, node);
	switch (v->kind) {
	case PC_VAL_INT:
		*out = (double)v->v.i;
		return 1;
	case PC_VAL_DBL:
		*out = v->v.d;
		return 1;
	case PC_VAL_NUM:
		/*
		 * A literal: the value the JSON has, whatever it is (a count, a
		 * ratio, a marker field).  Not through the ms -> ns parser, which
		 * keeps six decimals: 0.1234567 would become 0.123457 and 1e-9 0.
		 */
		t = pc_pv_text(m, v->v.s, &len);
		return pc_jnum_text(t, len, out);
	default:
		return 0;
	}
}

int pc_jr_pv_int(const struct pc_model *m, uint32_t node, int64_t *out)
{
	const struct pc_val *v;
	double d;

	if (node == PC_NONE)
		return 0;
	v = pc_pv(m, node);
	if (v->kind == PC_VAL_INT) {
		*out = v->v.i;
		return 1;
	}
	/* an integer literal keeps every digit (past 2^53 a double would not) */
	if (v->kind == PC_VAL_NUM && pc_jr_parse_i64(pc_pv_text(m, v->v.s, NULL), out))
		return 1;
	if (!pc_jr_pv_double(m, node, &d) || d < -9007199254740992.0 || d > 9007199254740992.0 ||
	    (double)(int64_t)d != d)
		return 0;
	*out = (int64_t)d;
	return 1;
}

int pc_jr_pv_ns(const struct pc_model *m, uint32_t node, int64_t *ns)
{
	const struct pc_val *v;
	double d;

	if (node == PC_NONE)
		return 0;
	v = pc_pv(m, node);
	if (v->kind == PC_VAL_NUM) {
		size_t len;
		const char *s = pc_pv_text(m, v->v.s, &len);

		return pc_jr_ms_to_ns(s, len, ns) == 0 && *ns != PC_NO_TIME;
	}
	if (!pc_jr_pv_double(m, node, &d) || d > 9.2e12 || d < -9.2e12)
		return 0;
	d *= 1e6;
	*ns = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
	return 1;
}

int pc_jr_take_cause(struct pc_model *m, uint32_t payload, struct pc_marker_row *r)
{
	uint32_t c, st, tm, tid;
	int64_t stack, v;

	if (payload == PC_NONE || pc_pv(m, payload)->kind != PC_VAL_OBJ)
		return 0;
	c = pc_pv_member(m, payload, "cause");
	if (c == PC_NONE || pc_pv(m, c)->kind != PC_VAL_OBJ)
		return 0;
	st = pc_pv_member(m, c, "stack");
	if (!pc_jr_pv_int(m, st, &stack) || stack < 0 || stack >= UINT32_MAX)
		return 0;
	r->cause_stack = (uint32_t)stack;
	tm = pc_pv_member(m, c, "time");
	if (tm != PC_NONE && pc_jr_pv_ns(m, tm, &v))
		r->cause_time = v;
	tid = pc_pv_member(m, c, "tid");
	if (tid != PC_NONE && pc_jr_pv_int(m, tid, &v))
		r->cause_tid = v;
	/* the member stays where it was, as the placeholder; its span is kept */
	m->pv.nodes[c].kind = PC_VAL_CAUSE;
	return 1;
}

/* isStringIndexFormat() in the front-end's src/profile-logic/marker-schema.ts */
static int is_string_format(const char *f)
{
	return f && (strcmp(f, "unique-string") == 0 || strcmp(f, "flow-id") == 0 ||
		     strcmp(f, "terminating-flow-id") == 0);
}

uint32_t pc_jr_resolve_srefs(struct pc_model *m, uint32_t payload, uint32_t nstrings)
{
	const struct pc_val *o;
	uint32_t type, schema, i, c, bad = 0;
	const char *name;
	int shot;

	if (payload == PC_NONE || pc_pv(m, payload)->kind != PC_VAL_OBJ)
		return 0;
	type = pc_pv_member(m, payload, "type");
	if (type == PC_NONE || pc_pv(m, type)->kind != PC_VAL_STR)
		return 0;
	name = pc_pv_text(m, pc_pv(m, type)->v.s, NULL);
	schema = pc_schema_find(m, name);
	/* CompositorScreenshot has no schema; its url is a string index */
	shot = strcmp(name, "CompositorScreenshot") == 0;
	if (schema == PC_NONE && !shot)
		return 0;
	o = pc_pv(m, payload);
	for (i = 0, c = payload + 1; i < o->v.n; i++, c += pc_val_span(pc_pv(m, c))) {
		const struct pc_val *v = pc_pv(m, c);
		const char *key = pc_pv_text(m, v->key, NULL);
		int64_t idx;

		if (!(shot && strcmp(key, "url") == 0) &&
		    !is_string_format(pc_schema_field_format(m, schema, key)))
			continue;
		if (v->kind != PC_VAL_NUM && v->kind != PC_VAL_INT && v->kind != PC_VAL_DBL)
			continue; /* null, already a reference, or text: left as it is */
		if (!pc_jr_pv_int(m, c, &idx) || idx < 0 || (uint64_t)idx >= nstrings) {
			bad++;
			continue;
		}
		m->pv.nodes[c].kind = PC_VAL_SREF;
		m->pv.nodes[c].v.s = (uint32_t)idx;
	}
	return bad;
}

/* --- other members, kept in order --- */

static int more_push(struct pc_jr_more *mo, struct pc_model *m, uint32_t k, uint32_t value)
{
	uint32_t cap = mo->cap;

	if (k == PC_NONE ||
	    pc_grow(m->ctx, (void **)&mo->keys, sizeof(*mo->keys), &cap, (size_t)mo->n + 1))
		return PROFCONV_ERR_NOMEM;
	cap = mo->cap;
	if (pc_grow(m->ctx, (void **)&mo->vals, sizeof(*mo->vals), &cap, (size_t)mo->n + 1))
		return PROFCONV_ERR_NOMEM;
	mo->cap = cap;
	mo->keys[mo->n] = k;
	mo->vals[mo->n] = value;
	mo->n++;
	return 0;
}

int pc_jr_more_add(struct pc_jr_more *mo, struct pc_model *m, const char *key, size_t klen,
		   uint32_t value)
{
	return more_push(mo, m, pc_pv_text_intern(m, key, klen), value);
}

/* The key is interned first: the tokenizer's buffer is reused by the value. */
int pc_jr_more_read(struct pc_jr_more *mo, struct profconv_ctx *ctx, struct pc_jpull *p,
		    struct pc_model *m, const char *key, size_t klen)
{
	uint32_t k = pc_pv_text_intern(m, key, klen), root;
	int err;

	if (k == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	err = pc_jr_pv_read(ctx, p, m, 1, &root);
	return err ? err : more_push(mo, m, k, root);
}

uint32_t pc_jr_more_build(struct pc_jr_more *mo, struct pc_model *m)
{
	struct pc_pvb b;
	uint32_t i, root = PC_NONE;

	if (mo->n) {
		pc_pvb_begin(&b, m, 0);
		for (i = 0; i < mo->n; i++) {
			b.key = mo->keys[i];
			pc_pvb_copy(&b, mo->vals[i]);
		}
		root = pc_pvb_end(&b);
	}
	pc_jr_more_free(mo, m);
	return root;
}

void pc_jr_more_free(struct pc_jr_more *mo, struct pc_model *m)
{
	pc_free(m->ctx, mo->keys);
	pc_free(m->ctx, mo->vals);
	memset(mo, 0, sizeof(*mo));
}

/* --- pages (the same shape in Gecko and processed profiles) --- */

static uint64_t pv_u64(const struct pc_model *m, uint32_t obj, const char *key)
{
	int64_t v;

	return pc_jr_pv_int(m, pc_pv_member(m, obj, key), &v) && v > 0 ? (uint64_t)v : 0;
}

int pc_jr_pages(struct pc_model *m, uint32_t root, uint64_t *skipped)
{
	uint32_t i, e;

	if (pc_pv(m, root)->kind != PC_VAL_ARR) {
		(*skipped)++;
		return 0;
	}
	for (i = 0, e = root + 1; i < pc_pv(m, root)->v.n; i++, e += pc_val_span(pc_pv(m, e))) {
		struct pc_page pg;
		uint32_t u, pb, fav;

		if (pc_pv(m, e)->kind != PC_VAL_OBJ) {
			(*skipped)++;
			continue;
		}
		memset(&pg, 0, sizeof(pg));
		pg.tab_id = pv_u64(m, e, "tabID");
		pg.inner_window_id = pv_u64(m, e, "innerWindowID");
		pg.embedder_inner_window_id = pv_u64(m, e, "embedderInnerWindowID");
		u = pc_pv_member(m, e, "url");
		pg.url = u != PC_NONE && pc_pv(m, u)->kind == PC_VAL_STR
				 ? pc_pv_text(m, pc_pv(m, u)->v.s, NULL)
				 : "";
		pb = pc_pv_member(m, e, "isPrivateBrowsing");
		pg.is_private = pb == PC_NONE ? -1 : pc_pv(m, pb)->kind == PC_VAL_TRUE;
		fav = pc_pv_member(m, e, "favicon");
		pg.favicon = fav != PC_NONE && pc_pv(m, fav)->kind == PC_VAL_STR
				     ? pc_pv_text(m, pc_pv(m, fav)->v.s, NULL)
				     : NULL;
		if (pc_page_add(m, &pg) == PC_NONE)
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

int pc_jr_parse_i64(const char *s, int64_t *out)
{
	uint64_t u = 0;
	int neg = *s == '-';
	const char *p = s + neg;

	if (!*p)
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || u > (UINT64_MAX - 9) / 10)
			return 0;
		u = u * 10 + (uint64_t)(*p - '0');
	}
	if (u > (uint64_t)INT64_MAX)
		return 0;
	*out = neg ? -(int64_t)u : (int64_t)u;
	return 1;
}

/* --- cJSON trees (one small document at a time) --- */

static int cjson_depth(const cJSON *v, int limit)
{
	const cJSON *c;
	int d = 0;

	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return 0;
	if (limit <= 0)
		return 1;
	for (c = v->child; c; c = c->next) {
		int k = cjson_depth(c, limit - 1);

		if (k > d)
			d = k;
	}
	return d + 1;
}

static void cjson_value(struct pc_pvb *b, const cJSON *v)
{
	const cJSON *c;

	if (cJSON_IsObject(v)) {
		pc_pvb_obj_begin(b);
		for (c = v->child; c; c = c->next) {
			pc_pvb_key_z(b, c->string ? c->string : "");
			cjson_value(b, c);
		}
		pc_pvb_obj_end(b);
	} else if (cJSON_IsArray(v)) {
		pc_pvb_arr_begin(b);
		for (c = v->child; c; c = c->next)
			cjson_value(b, c);
		pc_pvb_arr_end(b);
	} else if (cJSON_IsString(v)) {
		pc_pvb_str_z(b, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (d >= -9007199254740992.0 && d <= 9007199254740992.0 && (double)(int64_t)d == d)
			pc_pvb_int(b, (int64_t)d);
		else
			pc_pvb_dbl(b, d);
	} else if (cJSON_IsBool(v)) {
		pc_pvb_bool(b, cJSON_IsTrue(v));
	} else {
		pc_pvb_null(b);
	}
}

int pc_jr_pv_from_cjson(struct pc_model *m, const cJSON *v, uint32_t *root)
{
	struct pc_pvb b;

	*root = PC_NONE;
	if (cjson_depth(v, PC_PV_MAX_DEPTH) > PC_PV_MAX_DEPTH - 1)
		return 1;
	pc_pvb_begin_scalar(&b, m);
	cjson_value(&b, v);
	*root = pc_pvb_end(&b);
	return *root == PC_NONE ? (m->ctx->status ? m->ctx->status : PROFCONV_ERR_NOMEM) : 0;
}
