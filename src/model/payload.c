/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * payload.c - typed payload values: marker data, marker schemas, meta extra
 * entries and other members, context snapshots.
 *
 * One arena per model holds every node, in preorder with subtree spans (see
 * pc_model.h).  Member names and plain strings are interned in their own
 * text table, so they never reach the profile's string table; repeated
 * keys ("type", "name", ...) cost one copy.  A builder appends the nodes of
 * one payload at a time and patches each container's span and count when
 * it closes, so nothing is ever moved.
 */
#include "model/pc_model.h"

#include <math.h>
#include <stdio.h>

const char *pc_pv_text(const struct pc_model *m, uint32_t row, size_t *len)
{
	if (len)
		*len = m->pv.text.lens[row];
	return m->pv.text.ptr[row];
}

uint32_t pc_pv_text_intern(struct pc_model *m, const char *s, size_t len)
{
	return pc_strtab_intern(m->ctx, &m->pv.text, s, len);
}

uint32_t pc_pv_member(const struct pc_model *m, uint32_t obj, const char *key)
{
	const struct pc_val *o;
	uint32_t i, c, klen;

	if (obj == PC_NONE || obj >= m->pv.len)
		return PC_NONE;
	o = &m->pv.nodes[obj];
	if (o->kind != PC_VAL_OBJ)
		return PC_NONE;
	klen = (uint32_t)strlen(key);
	for (i = 0, c = obj + 1; i < o->v.n; i++, c += pc_val_span(&m->pv.nodes[c])) {
		uint32_t k = m->pv.nodes[c].key;

		if (m->pv.text.lens[k] == klen && memcmp(m->pv.text.ptr[k], key, klen) == 0)
			return c;
	}
	return PC_NONE;
}

size_t pc_pv_scalar_text(const struct pc_model *m, uint32_t node, char *buf, size_t size)
{
	const struct pc_val *v = &m->pv.nodes[node];

	switch (v->kind) {
	case PC_VAL_NULL:
		return pc_snprintf(buf, size, "null");
	case PC_VAL_FALSE:
		return pc_snprintf(buf, size, "false");
	case PC_VAL_TRUE:
		return pc_snprintf(buf, size, "true");
	case PC_VAL_INT:
		return pc_snprintf(buf, size, "%lld", (long long)v->v.i);
	case PC_VAL_DBL:
		return pc_snprintf(buf, size, "%.17g", v->v.d);
	case PC_VAL_NUM:
	case PC_VAL_STR:
		return pc_snprintf(buf, size, "%s", m->pv.text.ptr[v->v.s]);
	case PC_VAL_SREF:
		return pc_snprintf(buf, size, "%s", m->strings.ptr[v->v.s]);
	default:
		if (size)
			buf[0] = 0;
		return 0;
	}
}

/* --- the builder --- */

static int pvb_fail(struct pc_pvb *b, int code, const char *what)
{
	if (!b->err)
		b->err = pc_fail(b->m->ctx, code, NULL, "payload: %s", what);
	return b->err;
}

/* Append one node under the current container; its index or PC_NONE. */
static uint32_t pvb_node(struct pc_pvb *b, uint8_t kind)
{
	struct pc_payloads *pv = &b->m->pv;
	struct pc_val *v;
	uint32_t i;

	if (b->err)
		return PC_NONE;
	if (b->depth) {
		struct pc_val *parent = &pv->nodes[b->open[b->depth - 1]];

		if (parent->kind == PC_VAL_OBJ && b->key == PC_NONE) {
			pvb_fail(b, PROFCONV_ERR_INTERNAL, "object member without a key");
			return PC_NONE;
		}
		if (parent->kind == PC_VAL_ARR && b->key != PC_NONE) {
			pvb_fail(b, PROFCONV_ERR_INTERNAL, "key inside an array");
			return PC_NONE;
		}
		parent->v.n++;
	} else if (b->root != PC_NONE) {
		pvb_fail(b, PROFCONV_ERR_INTERNAL, "a second root value");
		return PC_NONE;
	}
	if (pv->len == UINT32_MAX - 1 ||
	    pc_grow(b->m->ctx, (void **)&pv->nodes, sizeof(*pv->nodes), &pv->cap,
		    (size_t)pv->len + 1)) {
		pvb_fail(b, PROFCONV_ERR_NOMEM, "out of memory");
		return PC_NONE;
	}
	i = pv->len++;
	v = &pv->nodes[i];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->key = b->key;
	if (kind >= PC_VAL_OBJ)
		v->v.sp = 1;
	b->key = PC_NONE;
	if (b->root == PC_NONE)
		b->root = i;
	return i;
}

static void pvb_open(struct pc_pvb *b, uint8_t kind)
{
	uint32_t i;

	if (b->depth == PC_PV_MAX_DEPTH) {
		pvb_fail(b, PROFCONV_ERR_LIMIT, "nested deeper than 64 levels");
		return;
	}
	i = pvb_node(b, kind);
	if (i != PC_NONE)
		b->open[b->depth++] = i;
}

static void pvb_close(struct pc_pvb *b, uint8_t kind)
{
	uint32_t i;

	if (b->err)
		return;
	if (!b->depth || b->m->pv.nodes[b->open[b->depth - 1]].kind != kind) {
		pvb_fail(b, PROFCONV_ERR_INTERNAL, "unbalanced end");
		return;
	}
	i = b->open[--b->depth];
	b->m->pv.nodes[i].v.sp = b->m->pv.len - i;
}

void pc_pvb_begin(struct pc_pvb *b, struct pc_model *m, int arr)
{
	pc_pvb_begin_scalar(b, m);
	pvb_open(b, arr ? PC_VAL_ARR : PC_VAL_OBJ);
}

void pc_pvb_begin_scalar(struct pc_pvb *b, struct pc_model *m)
{
	b->m = m;
	b->root = PC_NONE;
	b->depth = 0;
	b->key = PC_NONE;
	b->err = 0;
}

void pc_pvb_key(struct pc_pvb *b, const char *k, size_t len)
{
	if (b->err)
		return;
	b->key = pc_pv_text_intern(b->m, k, len);
	if (b->key == PC_NONE)
		pvb_fail(b, PROFCONV_ERR_NOMEM, "out of memory");
}

void pc_pvb_key_row(struct pc_pvb *b, uint32_t row)
{
	if (!b->err)
		b->key = row;
}

void pc_pvb_key_z(struct pc_pvb *b, const char *k)
{
	pc_pvb_key(b, k, strlen(k));
}

void pc_pvb_null(struct pc_pvb *b)
{
	pvb_node(b, PC_VAL_NULL);
}

void pc_pvb_bool(struct pc_pvb *b, int v)
{
	pvb_node(b, v ? PC_VAL_TRUE : PC_VAL_FALSE);
}

void pc_pvb_int(struct pc_pvb *b, int64_t v)
{
	uint32_t i = pvb_node(b, PC_VAL_INT);

	if (i != PC_NONE)
		b->m->pv.nodes[i].v.i = v;
}

void pc_pvb_dbl(struct pc_pvb *b, double v)
{
	uint32_t i = pvb_node(b, isfinite(v) ? PC_VAL_DBL : PC_VAL_NULL);

	if (i != PC_NONE && isfinite(v))
		b->m->pv.nodes[i].v.d = v;
}

static void pvb_text(struct pc_pvb *b, uint8_t kind, const char *s, size_t len)
{
	uint32_t t, i;

	if (b->err)
		return;
	t = pc_pv_text_intern(b->m, s, len);
	if (t == PC_NONE) {
		pvb_fail(b, PROFCONV_ERR_NOMEM, "out of memory");
		return;
	}
	i = pvb_node(b, kind);
	if (i != PC_NONE)
		b->m->pv.nodes[i].v.s = t;
}

void pc_pvb_num(struct pc_pvb *b, const char *literal, size_t len)
{
	pvb_text(b, PC_VAL_NUM, literal, len);
}

void pc_pvb_str(struct pc_pvb *b, const char *s, size_t len)
{
	pvb_text(b, PC_VAL_STR, s, len);
}

void pc_pvb_str_row(struct pc_pvb *b, uint32_t row)
{
	uint32_t i = pvb_node(b, PC_VAL_STR);

	if (i != PC_NONE)
		b->m->pv.nodes[i].v.s = row;
}

void pc_pvb_str_z(struct pc_pvb *b, const char *s)
{
	if (s)
		pvb_text(b, PC_VAL_STR, s, strlen(s));
	else
		pc_pvb_null(b);
}

void pc_pvb_sref(struct pc_pvb *b, uint32_t string_row)
{
	uint32_t i = pvb_node(b, PC_VAL_SREF);

	if (i != PC_NONE)
		b->m->pv.nodes[i].v.s = string_row;
}

void pc_pvb_cause(struct pc_pvb *b)
{
	pvb_node(b, PC_VAL_CAUSE);
}

void pc_pvb_obj_begin(struct pc_pvb *b)
{
	pvb_open(b, PC_VAL_OBJ);
}

void pc_pvb_obj_end(struct pc_pvb *b)
{
	pvb_close(b, PC_VAL_OBJ);
}

void pc_pvb_arr_begin(struct pc_pvb *b)
{
	pvb_open(b, PC_VAL_ARR);
}

void pc_pvb_arr_end(struct pc_pvb *b)
{
	pvb_close(b, PC_VAL_ARR);
}

/*
 * Copy a subtree: its root goes through pvb_node() (parent count, key,
 * root), the rest is contiguous with its spans and counts and is appended
 * verbatim.  The arena may move as it grows, so nodes are addressed by index.
 */
void pc_pvb_copy(struct pc_pvb *b, uint32_t node)
{
	struct pc_payloads *pv = &b->m->pv;
	struct pc_val src;
	uint32_t span, dst, i;

	if (b->err)
		return;
	src = pv->nodes[node];
	span = pc_val_span(&src);
	dst = pvb_node(b, src.kind);
	if (dst == PC_NONE)
		return;
	pv->nodes[dst].v = src.v;
	if (span > 1 && (pv->len > UINT32_MAX - span ||
			 pc_grow(b->m->ctx, (void **)&pv->nodes, sizeof(*pv->nodes), &pv->cap,
				 (size_t)pv->len + span - 1))) {
		pvb_fail(b, PROFCONV_ERR_NOMEM, "out of memory");
		return;
	}
	for (i = 1; i < span; i++)
		pv->nodes[pv->len++] = pv->nodes[node + i];
}

/*
 * Room for n members of the open object, span nodes in all, appended in
 * one go: the object's member count raised by n and the first new node
 * returned (its nodes are the caller's to fill; pv->len already past
 * them), or NULL after an error (what: the misuse's message).
 */
static struct pc_val *pvb_members(struct pc_pvb *b, uint32_t n, uint32_t span, const char *what)
{
	struct pc_payloads *pv = &b->m->pv;
	struct pc_val *first;

	if (b->err || !n)
		return NULL;
	if (!b->depth || b->key != PC_NONE ||
	    pv->nodes[b->open[b->depth - 1]].kind != PC_VAL_OBJ) {
		pvb_fail(b, PROFCONV_ERR_INTERNAL, what);
		return NULL;
	}
	if (pv->len > UINT32_MAX - 1 - span ||
	    pc_grow(b->m->ctx, (void **)&pv->nodes, sizeof(*pv->nodes), &pv->cap,
		    (size_t)pv->len + span)) {
		pvb_fail(b, PROFCONV_ERR_NOMEM, "out of memory");
		return NULL;
	}
	pv->nodes[b->open[b->depth - 1]].v.n += n;
	first = pv->nodes + pv->len;
	pv->len += span;
	return first;
}

void pc_pvb_copy_members(struct pc_pvb *b, uint32_t first, uint32_t n, uint32_t span)
{
	struct pc_val *d = pvb_members(b, n, span, "members copied outside an object");

	/* (first + span is at most the old end: no overlap) */
	if (d)
		memcpy(d, b->m->pv.nodes + first, (size_t)span * sizeof(*d));
}

void pc_pvb_srefs(struct pc_pvb *b, const uint32_t *keys, const uint32_t *rows, uint32_t n)
{
	struct pc_val *d = pvb_members(b, n, n, "members added outside an object");
	uint32_t i;

	for (i = 0; d && i < n; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		d[i].kind = PC_VAL_SREF;
		d[i].key = keys[i];
		d[i].v.s = rows[i];
	}
}

uint32_t pc_pvb_end(struct pc_pvb *b)
{
	if (!b->err && b->depth == 1)
		pvb_close(b, b->m->pv.nodes[b->open[0]].kind);
	if (!b->err && (b->depth || b->root == PC_NONE))
		pvb_fail(b, PROFCONV_ERR_INTERNAL, "unterminated payload");
	return b->err ? PC_NONE : b->root;
}

uint32_t pc_pv_new_str(struct pc_model *m, const char *s)
{
	struct pc_pvb b;

	pc_pvb_begin_scalar(&b, m);
	pc_pvb_str_z(&b, s);
	return pc_pvb_end(&b);
}

/* --- marker schemas --- */

uint32_t pc_schema_find(const struct pc_model *m, const char *name)
{
	uint32_t i;

	for (i = 0; i < m->schemas.len; i++)
		if (strcmp(m->schemas.rows[i].name, name) == 0)
			return i;
	return PC_NONE;
}

uint32_t pc_schema_add(struct pc_model *m, const char *name, uint32_t body)
{
	struct pc_schema_table *t = &m->schemas;
	uint32_t i = pc_schema_find(m, name);
	const char *kept;

	if (i != PC_NONE)
		return i;
	kept = pc_model_keep(m, name, strlen(name));
	if (!kept ||
	    pc_grow(m->ctx, (void **)&t->rows, sizeof(*t->rows), &t->cap, (size_t)t->len + 1))
		return PC_NONE;
	t->rows[t->len].name = kept;
	t->rows[t->len].body = body;
	return t->len++;
}

static int text_is(const struct pc_model *m, uint32_t node, const char *s)
{
	const struct pc_val *v = &m->pv.nodes[node];

	return v->kind == PC_VAL_STR && strcmp(m->pv.text.ptr[v->v.s], s) == 0;
}

const char *pc_schema_field_format(const struct pc_model *m, uint32_t schema, const char *key)
{
	uint32_t fields, i, c;

	if (schema == PC_NONE)
		return NULL;
	fields = pc_pv_member(m, m->schemas.rows[schema].body, "fields");
	if (fields == PC_NONE || m->pv.nodes[fields].kind != PC_VAL_ARR)
		return NULL;
	for (i = 0, c = fields + 1; i < m->pv.nodes[fields].v.n;
	     i++, c += pc_val_span(&m->pv.nodes[c])) {
		uint32_t k = pc_pv_member(m, c, "key"), f = pc_pv_member(m, c, "format");

		if (k != PC_NONE && f != PC_NONE && text_is(m, k, key) &&
		    m->pv.nodes[f].kind == PC_VAL_STR)
			return m->pv.text.ptr[m->pv.nodes[f].v.s];
	}
	return NULL;
}

static void key_str(struct pc_pvb *b, const char *k, const char *v)
{
	if (!v)
		return;
	pc_pvb_key_z(b, k);
	pc_pvb_str_z(b, v);
}

uint32_t pc_schema_add_simple(struct pc_model *m, const char *name, const char *const *display,
			      const struct pc_schema_field *fields, uint32_t nfields,
			      const char *tooltip_label, const char *table_label,
			      const char *chart_label, const char *description)
{
	struct pc_pvb b;
	uint32_t i, body;

	if (pc_schema_find(m, name) != PC_NONE)
		return pc_schema_find(m, name);
	pc_pvb_begin(&b, m, 0);
	key_str(&b, "name", name);
	pc_pvb_key_z(&b, "display");
	pc_pvb_arr_begin(&b);
	for (i = 0; display && display[i]; i++)
		pc_pvb_str_z(&b, display[i]);
	pc_pvb_arr_end(&b);
	key_str(&b, "tooltipLabel", tooltip_label);
	key_str(&b, "tableLabel", table_label);
	key_str(&b, "chartLabel", chart_label);
	pc_pvb_key_z(&b, "fields");
	pc_pvb_arr_begin(&b);
	for (i = 0; i < nfields; i++) {
		pc_pvb_obj_begin(&b);
		key_str(&b, "key", fields[i].key);
		key_str(&b, "label", fields[i].label);
		key_str(&b, "format", fields[i].format);
		if (fields[i].hidden) {
			pc_pvb_key_z(&b, "hidden");
			pc_pvb_bool(&b, 1);
		}
		pc_pvb_obj_end(&b);
	}
	pc_pvb_arr_end(&b);
	key_str(&b, "description", description);
	body = pc_pvb_end(&b);
	if (body == PC_NONE)
		return PC_NONE;
	return pc_schema_add(m, name, body);
}

/* --- meta --- */

int pc_meta_keep(struct pc_model *m, const char **field, const char *s)
{
	const char *d = NULL;

	if (s) {
		d = pc_model_keep(m, s, strlen(s));
		if (!d)
			return PROFCONV_ERR_NOMEM;
	}
	*field = d;
	return 0;
}

int pc_meta_extra_add(struct pc_model *m, const char *section, const char *label,
		      const char *format, uint32_t value)
{
	struct pc_meta *mt = &m->meta;
	struct pc_extra_entry *e;
	const char *sec, *lab, *fmt;

	if (value == PC_NONE)
		return m->ctx->status ? m->ctx->status : PROFCONV_ERR_NOMEM;
	sec = pc_model_keep(m, section, strlen(section));
	lab = pc_model_keep(m, label, strlen(label));
	fmt = pc_model_keep(m, format, strlen(format));
	if (!sec || !lab || !fmt ||
	    pc_grow(m->ctx, (void **)&mt->extra, sizeof(*mt->extra), &mt->extra_cap,
		    (size_t)mt->nextra + 1))
		return PROFCONV_ERR_NOMEM;
	e = &mt->extra[mt->nextra++];
	e->section = sec;
	e->label = lab;
	e->format = fmt;
	e->value = value;
	return 0;
}

int pc_meta_extra_str(struct pc_model *m, const char *section, const char *label,
		      const char *value)
{
	if (!value)
		return 0;
	return pc_meta_extra_add(m, section, label, "string", pc_pv_new_str(m, value));
}
