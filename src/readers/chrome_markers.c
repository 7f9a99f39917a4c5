/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_markers.c - the Chrome reader's markers: slices (X, B/E) and
 * instants become markers with Trace payloads ({type, cat, and each
 * args member}); payloads that repeat an earlier event's cat, context set
 * and args text are shared through a direct-mapped cache; names and
 * categories go through small memos; the Trace schema lists the args
 * keys seen, string values being string-table references where a key had
 * only strings.  Slices are flagged here for pc_chrome_derive_samples()
 * (chrome_samples.c).
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_chrome.h"

/*
 * The memo slot for s[0..len), NULL when it is too long to remember; *hit:
 * it holds s.  h: its hash when already worked out (the names' memo's
 * pc_chrome_name_hash(), the cats' memo's pc_chrome_hash()), else 0 (then
 * pc_chrome_hash()).
 */
static struct smemo *smemo_slot(struct smemo *t, const char *s, size_t len, uint64_t h, int *hit)
{
	struct smemo *m;

	*hit = 0;
	if (len > sizeof(t->s))
		return NULL;
	if (!h)
		h = pc_chrome_hash(s, len);
	m = &t[h & (SMEMO_SLOTS - 1)];
	if (m->hash == h && m->len == len && memcmp(m->s, s, len) == 0) {
		*hit = 1;
		return m;
	}
	m->hash = h;
	m->len = (uint32_t)len;
	m->row = PC_NONE;
	memcpy(m->s, s, len);
	return m;
}

/* pc_chrome_intern() of an event's name (len bytes, hash h or 0), through the names' memo. */
uint32_t pc_chrome_name_row(struct rd *r, const char *s, size_t len, uint64_t h)
{
	int hit;
	struct smemo *m;

	if (!s)
		return pc_chrome_intern(r, s);
	if (!h && len <= sizeof(m->s))
		h = pc_chrome_name_hash(s, len);
	m = smemo_slot(r->names, s, len, h, &hit);
	if (!m)
		return pc_str_intern(r->m, s, len);
	if (!hit || m->row == PC_NONE)
		m->row = pc_str_intern(r->m, s, len);
	return m->row;
}

static uint16_t category_of(struct rd *r, const char *cat);

/*
 * The category of cat (len bytes, hash h or 0) and, when row is not NULL,
 * cat's string row.
 */
static uint16_t cat_memo_slot(struct rd *r, const char *cat, size_t len, uint64_t h, uint32_t *row,
			      struct smemo **slot)
{
	int hit;
	struct smemo *m = cat ? smemo_slot(r->catm, cat, len, h, &hit) : NULL;

	*slot = m;
	if (!m) {
		if (row)
			*row = pc_str_intern(r->m, cat ? cat : "", cat ? len : 0);
		return category_of(r, cat);
	}
	if (!hit) {
		r->cat_last = NULL; /* a slot written: the event's may be gone */
		m->cat = category_of(r, cat);
		m->row = PC_NONE;
	}
	if (row) {
		if (m->row == PC_NONE)
			m->row = pc_str_intern(r->m, cat, len);
		*row = m->row;
	}
	return m->cat;
}

static uint16_t cat_memo(struct rd *r, const char *cat, size_t len, uint64_t h, uint32_t *row)
{
	struct smemo *slot;

	return cat_memo_slot(r, cat, len, h, row, &slot);
}

/*
 * cat_memo() of e's own cat (a string), the event being handled: its slot
 * is remembered for the event's next lookups (an X event's category, its
 * payload's cat, the payload built), which then skip the hash and the
 * comparison.
 */
static uint16_t ev_cat(struct rd *r, const struct cev *e, uint32_t *row)
{
	struct smemo *m = r->cat_last;
	uint16_t c;

	if (m && r->cat_ev == r->evseq) {
		if (row) {
			if (m->row == PC_NONE)
				m->row = pc_str_intern(r->m, e->cat.s, e->cat.len);
			*row = m->row;
		}
		return m->cat;
	}
	c = cat_memo_slot(r, e->cat.s, e->cat.len, e->hcat, row, &m);
	r->cat_last = m;
	r->cat_ev = r->evseq;
	return c;
}

uint16_t pc_chrome_category(struct rd *r, const char *cat)
{
	return cat ? cat_memo(r, cat, strlen(cat), 0, NULL) : category_of(r, cat);
}

static uint16_t category_of(struct rd *r, const char *cat)
{
	char name[128];
	size_t n;
	uint32_t c;

	if (!cat || !*cat)
		cat = "Other";
	n = strcspn(cat, ",");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, cat, n);
	name[n] = 0;
	c = pc_smap_get(&r->cats, name, n);
	if (c != PC_NONE)
		return (uint16_t)c;
	/* the model keeps the name's pointer: give it a lasting copy */
	c = pc_model_add_category(r->m, pc_model_keep(r->m, name, n), "grey");
	if (c == PC_NO_CATEGORY || pc_smap_put(&r->cats, name, n, c))
		return 0;
	return (uint16_t)c;
}

/* Remember an args key for the schema (first value's type decides its format). */
static void note_arg_key(struct rd *r, const char *k)
{
	size_t n = strlen(k);

	if (pc_smap_get(&r->arg_seen, k, n) != PC_NONE || r->narg_keys == MAX_ARG_KEYS)
		return;
	r->arg_keys[r->narg_keys] = pc_strdup(r->ctx, k);
	if (!r->arg_keys[r->narg_keys])
		return;
	if (pc_smap_put(&r->arg_seen, k, n, r->narg_keys)) {
		pc_free(r->ctx, r->arg_keys[r->narg_keys]);
		return;
	}
	r->narg_keys++;
}

/* What values an args key had (its schema format: unique-string when only strings). */
#define KIND_STR 1
#define KIND_NUM 2
#define KIND_OTHER 4

static int note_kind(struct rd *r, uint32_t key, uint8_t kind)
{
	if (key == PC_NONE)
		return 0;
	if (key >= r->nkinds) {
		uint32_t n = r->nkinds;

		if (pc_grow(r->ctx, (void **)&r->kinds, 1, &r->nkinds, (size_t)key + 1))
			return PROFCONV_ERR_NOMEM;
		memset(r->kinds + n, 0, r->nkinds - n);
	}
	r->kinds[key] |= kind;
	return 0;
}

/* A string value as a reference to the profile's string table (unique-string). */
static void pvb_sref_row(struct pc_pvb *b, struct rd *r, uint32_t row)
{
	if (row == PC_NONE || note_kind(r, b->key, KIND_STR))
		b->err = PROFCONV_ERR_NOMEM;
	else
		pc_pvb_sref(b, row);
}

static void pvb_sref_text(struct pc_pvb *b, struct rd *r, const char *s, size_t len)
{
	pvb_sref_row(b, r, pc_str_intern(r->m, s, len));
}

/* The length of an event's cat, or of another one passed for it. */
static size_t cat_len(const struct cev *e, const char *cat)
{
	return e->cat.kind == CJ_STR && cat == e->cat.s ? e->cat.len : strlen(cat);
}

/* The hash of an event's cat (read_chrome.c's ev_ahead() worked it out), 0 for another one. */
static uint64_t cat_hash(const struct cev *e, const char *cat)
{
	return e->cat.kind == CJ_STR && cat == e->cat.s ? e->hcat : 0;
}

/* The category of an event's cat. */
uint16_t pc_chrome_ev_category(struct rd *r, const struct cev *e)
{
	return e->cat.kind == CJ_STR ? ev_cat(r, e, NULL) : pc_chrome_category(r, NULL);
}

static uint32_t build_payload(struct rd *r, const struct cev *e, const char *cat, uint32_t set);

/*
 * {type, cat, args...} for a marker; PC_NONE on OOM (ctx set).  One that
 * the same cat, context set and args text made before is shared (a payload
 * is never changed once built).
 */
/* cap bytes for a payload slot's args text (cap <= PL_MAX_KEY + 64), from the chunks. */
static char *pl_key_room(struct rd *r, size_t cap)
{
	char *k;

	if (!r->pl_chunk || PL_CHUNK - r->pl_used < cap) {
		char *c = pc_alloc(r->ctx, PL_CHUNK);

		if (!c)
			return NULL;
		memcpy(c, &r->pl_chunk, sizeof(r->pl_chunk));
		r->pl_chunk = c;
		r->pl_used = sizeof(char *);
	}
	k = r->pl_chunk + r->pl_used;
	r->pl_used += cap;
	return k;
}

void pc_chrome_pl_keys_free(struct rd *r)
{
	while (r->pl_chunk) {
		char *prev;

		memcpy(&prev, r->pl_chunk, sizeof(prev));
		pc_free(r->ctx, r->pl_chunk);
		r->pl_chunk = prev;
	}
}

/* Whether e is an EventDispatch event (its payload gets PC_CHROME_DISPATCH_TYPE). */
static int is_dispatch(const struct cev *e)
{
	static const char nm[] = PC_CHROME_DISPATCH_TYPE;

	return e->name.kind == CJ_STR && e->name.len == sizeof(nm) - 1 &&
	       memcmp(e->name.s, nm, sizeof(nm) - 1) == 0;
}

uint32_t pc_chrome_payload(struct rd *r, const struct cev *e, const char *cat, uint32_t set)
{
	size_t clen, alen = e->args.kind == CJ_OBJ ? e->args.len : 0;
	const char *args = e->args.kind == CJ_OBJ ? e->args.s : "";
	struct pl_slot *sl;
	uint64_t h, hc;
	uint32_t pl, crow;

	/* (the cache's payloads are all of type Trace; dispatches are few) */
	if (!cat || alen > PL_MAX_KEY || is_dispatch(e))
		return build_payload(r, e, cat, set);
	/* the cat by its string row (the payload interns it first thing anyway) */
	clen = cat_len(e, cat);
	hc = cat_hash(e, cat);
	if (!hc)
		hc = pc_chrome_hash(cat, clen);
	if (e->cat.kind == CJ_STR && cat == e->cat.s)
		ev_cat(r, e, &crow);
	else
		cat_memo(r, cat, clen, hc, &crow);
	if (crow == PC_NONE)
		return PC_NONE;
	r->pl_set = set;
	if (e->aid && alen) {
		/* a text the scanner gave an id: the slot last found for the
		 * id, if it still holds that text (its aid) for this cat and
		 * set, is the one its hash would find, and the text compares
		 * equal (no hash, no comparison) */
		uint32_t *am = &r->aidm[e->aid & (AID_SLOTS - 1)];

		sl = *am ? &r->pl[*am - 1] : NULL;
		if (sl && sl->aid == e->aid && sl->pl != PC_NONE && sl->set == set &&
		    sl->crow == crow)
			return sl->pl;
		h = pc_chrome_pl_hash(hc, e->hargs ? e->hargs : pc_chrome_hash(args, alen), set);
		sl = &r->pl[h & (PL_SLOTS - 1)];
		*am = (uint32_t)(h & (PL_SLOTS - 1)) + 1;
	} else {
		h = pc_chrome_pl_hash(hc, !alen ? 0 : e->hargs ? e->hargs : pc_chrome_hash(args, alen),
				      set);
		sl = &r->pl[h & (PL_SLOTS - 1)];
	}
	if (sl->pl != PC_NONE && sl->hash == h && sl->set == set && sl->crow == crow &&
	    sl->alen == alen && (!alen || memcmp(sl->key, args, alen) == 0)) {
		sl->aid = e->aid; /* (this text's, as the slot's was) */
		return sl->pl;
	}
	pl = build_payload(r, e, cat, set);
	if (pl == PC_NONE)
		return pl;
	if (alen && (!sl->key || sl->cap < alen)) {
		/* (a slot's shorter text before stays in its chunk until the end) */
		size_t cap = (alen + 64) & ~(size_t)63;
		char *k = pl_key_room(r, cap);

		if (!k)
			return PC_NONE;
		sl->key = k;
		sl->cap = (uint32_t)cap;
	}
	if (alen)
		memcpy(sl->key, args, alen);
	sl->hash = h;
	sl->aid = e->aid;
	sl->pl = pl;
	sl->set = set;
	sl->crow = crow;
	sl->alen = (uint32_t)alen;
	return pl;
}

static uint32_t build_payload(struct rd *r, const struct cev *e, const char *cat, uint32_t set)
{
	struct pc_pvb b;
	uint32_t i;
	int noted;
	char ctxs[1024];
	int wrote_ctx = 0;

	if (pc_chrome_args(r, e))
		return PC_NONE;
	pc_pvb_begin(&b, r->m, 0);
	pc_pvb_key_row(&b, r->row_type);
	if (is_dispatch(e)) {
		pc_pvb_str_row(&b, r->row_dispatch);
		r->any_dispatch = 1;
	} else {
		pc_pvb_str_row(&b, r->row_trace_event);
	}
	if (cat) {
		uint32_t row;

		pc_pvb_key_row(&b, r->row_cat);
		if (e->cat.kind == CJ_STR && cat == e->cat.s)
			ev_cat(r, e, &row);
		else
			cat_memo(r, cat, cat_len(e, cat), cat_hash(e, cat), &row);
		pvb_sref_row(&b, r, row);
	}
	if (set != PC_NONE && pc_chrome_set_text(r, set, ctxs, sizeof(ctxs))) {
		pc_pvb_key_row(&b, r->row_contexts);
		pvb_sref_text(&b, r, ctxs, strlen(ctxs));
		wrote_ctx = 1;
	}
	for (i = 0; e->args.kind == CJ_OBJ && i < e->na; i++) {
		const struct carg *a = &e->a[i];

		if (strcmp(a->key, "type") == 0 || strcmp(a->key, "cat") == 0 ||
		    (wrote_ctx && strcmp(a->key, "contexts") == 0))
			continue;
		pc_pvb_key(&b, a->key, a->klen);
		/* the schema lists each key once: skip note_arg_key() for a key
		 * (by its text row) noted lately */
		noted = b.key != PC_NONE && r->noted[b.key % PC_ARRAY_SIZE(r->noted)] == b.key + 1;
		if (!noted && b.key != PC_NONE && a->v.kind != CJ_NULL)
			r->noted[b.key % PC_ARRAY_SIZE(r->noted)] = b.key + 1;
		/* strings go to the string table (fields of format unique-string,
		 * see pc_chrome_strings_or_refs()) */
		switch (a->v.kind) {
		case CJ_NUM:
			if (note_kind(r, b.key, KIND_NUM))
				return PC_NONE;
			pc_pvb_dbl(&b, a->v.d);
			break;
		case CJ_STR:
			pvb_sref_text(&b, r, a->v.s, a->v.len);
			break;
		case CJ_TRUE:
		case CJ_FALSE:
			if (note_kind(r, b.key, KIND_OTHER))
				return PC_NONE;
			pc_pvb_bool(&b, a->v.kind == CJ_TRUE);
			break;
		case CJ_NULL:
			pc_pvb_null(&b);
			break;
		default:
			/* nested: kept as cJSON's JSON text, which the marker table shows */
			pvb_sref_text(&b, r, a->v.s, a->v.len);
			break;
		}
		if (!noted && a->v.kind != CJ_NULL)
			note_arg_key(r, a->key);
	}
	return pc_pvb_end(&b);
}

/* An E event's args are merged into its B's payload (catapult does so). */
uint32_t pc_chrome_merge_end_args(struct rd *r, uint32_t bpl, const struct cev *e)
{
	struct pc_pvb b;
	uint32_t epl, i, c;

	if (e->args.kind != CJ_OBJ || (!e->na && !e->args_later))
		return bpl;
	epl = pc_chrome_payload(r, e, NULL, PC_NONE); /* {type, args...} */
	if (epl == PC_NONE)
		return PC_NONE;
	pc_pvb_begin(&b, r->m, 0);
	for (i = 0, c = bpl + 1; i < pc_pv(r->m, bpl)->v.n;
	     i++, c += pc_val_span(pc_pv(r->m, c))) {
		size_t len;
		const char *k = pc_pv_text(r->m, pc_pv(r->m, c)->key, &len);

		if (pc_pv_member(r->m, epl, k) != PC_NONE && strcmp(k, "type") != 0)
			continue; /* the E's value wins */
		pc_pvb_key(&b, k, len);
		pc_pvb_copy(&b, c);
	}
	for (i = 0, c = epl + 1; i < pc_pv(r->m, epl)->v.n;
	     i++, c += pc_val_span(pc_pv(r->m, c))) {
		size_t len;
		const char *k = pc_pv_text(r->m, pc_pv(r->m, c)->key, &len);

		if (strcmp(k, "type") == 0)
			continue;
		pc_pvb_key(&b, k, len);
		pc_pvb_copy(&b, c);
	}
	return pc_pvb_end(&b);
}

int pc_chrome_push_marker_set(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start,
			      int64_t end, uint8_t phase, uint16_t cat, uint32_t pl, uint32_t set)
{
	struct pc_marker_row row;

	pc_marker_row_init(&row);
	row.context_set = set;
	row.name = name;
	row.start = start;
	row.end = end;
	row.phase = phase;
	row.category = cat;
	row.payload = pl;
	return pc_marker_push(r->m, ti->t, &row);
}

int pc_chrome_push_marker(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start, int64_t end,
			  uint8_t phase, uint16_t cat, uint32_t pl)
{
	return pc_chrome_push_marker_set(r, ti, name, start, end, phase, cat, pl, PC_NONE);
}

/* pc_chrome_label_frame() through a small direct-mapped cache. */
uint32_t pc_chrome_label_frame_cached(struct rd *r, uint32_t name, uint16_t cat)
{
	struct lf_slot *sl = &r->lf[(name * 31u + cat) & (LF_SLOTS - 1)];

	if (sl->frame != PC_NONE && sl->name == name && sl->cat == cat)
		return sl->frame;
	sl->name = name;
	sl->cat = cat;
	sl->frame = pc_chrome_label_frame(r, name, cat);
	return sl->frame;
}

/*
 * The marker just pushed on ti is a slice (X, or B closed by E): its frame
 * is made now, in file order, and the marker is flagged for
 * pc_chrome_derive_samples(), which reads the slices back from the marker table.
 */
int pc_chrome_keep_slice(struct rd *r, struct tinfo *ti, int64_t start, int64_t end, uint32_t name,
			 uint16_t cat)
{
	uint32_t row = ti->t->markers.len - 1;

	if (end < start)
		return 0;
	if (pc_grow(r->ctx, (void **)&ti->sbits, sizeof(*ti->sbits), &ti->sbits_cap,
		    (size_t)row / 64 + 1))
		return PROFCONV_ERR_NOMEM;
	if (row / 64 >= ti->sbits_used) {
		memset(ti->sbits + ti->sbits_used, 0,
		       (size_t)(row / 64 + 1 - ti->sbits_used) * sizeof(*ti->sbits));
		ti->sbits_used = row / 64 + 1;
	}
	ti->sbits[row / 64] |= (uint64_t)1 << (row % 64);
	ti->nslices++;
	return pc_chrome_label_frame_cached(r, name, cat) == PC_NONE ? PROFCONV_ERR_NOMEM : 0;
}

/* Unclosed B and async spans become IntervalStart markers. */
int pc_chrome_close_open(struct rd *r)
{
	uint32_t i, k;
	int err = 0;

	for (i = 0; i < r->nth && !err; i++)
		for (k = 0; k < r->th[i].nopen && !err; k++) {
			err = pc_chrome_push_marker(r, &r->th[i], r->th[i].open[k].name,
						    r->th[i].open[k].start, PC_NO_TIME,
						    PC_PHASE_START, r->th[i].open[k].cat,
						    r->th[i].open[k].payload);
			if (!err && r->th[i].open[k].flow)
				r->fl[r->th[i].open[k].flow - 1].row = r->th[i].t->markers.len - 1;
		}
	for (i = 0; i < r->nas && !err; i++)
		if (r->as[i].key) /* still open */
			err = pc_chrome_push_marker(r, &r->th[r->as[i].thread], r->as[i].name,
						    r->as[i].start, PC_NO_TIME, PC_PHASE_START,
						    r->as[i].cat, r->as[i].payload);
	return err;
}

/* The kinds of values an args key had (0: none seen). */
static uint8_t arg_kinds(struct rd *r, const char *key)
{
	uint32_t row = pc_pv_text_intern(r->m, key, strlen(key)); /* there already */

	return row != PC_NONE && row < r->nkinds ? r->kinds[row] : 0;
}

/*
 * The nodes pc_chrome_strings_or_refs() mends, in the order it mends them
 * (markers in order, each payload root once, its members in order), into
 * *out (allocated through ctx, *n of them; NULL when none).  It reads the
 * markers' payload rows, the payload nodes and texts, the args keys' kinds
 * and r->arg_seen, and changes nothing of r or the model, so it may run on
 * a second thread while the caller's changes none of those
 * (pc_chrome_flows_begin()).  flow_keys: 1 if a flows' key ("flowFrom",
 * ...) would be mended (the flows' fields added later would be too), else
 * 0.  0 or PROFCONV_ERR_NOMEM.
 */
int pc_chrome_refs_scan(const struct rd *r, struct profconv_ctx *ctx, uint32_t **out,
			uint32_t *n, int *flow_keys)
{
	const struct pc_model *m = r->m;
	uint8_t *plain;
	uint64_t *seen = NULL; /* payload roots mended (or passed) already: a bit a node */
	uint32_t i, k, *list = NULL, cap = 0, len = 0;
	int any = 0, err = 0;

	*out = NULL;
	*n = 0;
	*flow_keys = 0;
	if (!r->nkinds)
		return 0;
	plain = pc_calloc(ctx, r->nkinds, 1);
	if (!plain)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < r->nkinds; i++) {
		size_t klen;
		const char *key;

		if (!(r->kinds[i] & KIND_STR) || i == r->row_cat || i == r->row_flow ||
		    i == r->row_tflow)
			continue;
		key = pc_pv_text(m, i, &klen);
		plain[i] = r->kinds[i] != KIND_STR ||
			   (i != r->row_contexts && pc_smap_get(&r->arg_seen, key, klen) == PC_NONE);
		any |= plain[i];
		if (plain[i] && pc_chrome_is_flow_key(key))
			*flow_keys = 1;
	}
	/* most payloads are shared by many markers (the payload cache): each
	 * root is looked through once */
	if (any && !(seen = pc_calloc(ctx, m->pv.len / 64 + 1, sizeof(*seen)))) {
		pc_free(ctx, plain);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; any && i < r->nth && !err; i++) {
		const struct pc_markers *mk = &r->th[i].t->markers;
		const uint32_t *pay = mk->payload, nmk = mk->len, npv = m->pv.len;

		for (k = 0; k < nmk && !err; k++) {
			uint32_t p = pay[k], c, j;
			const struct pc_val *o;

			/* (PC_NONE is past the nodes too) */
			if (p >= npv || (seen[p / 64] >> (p % 64) & 1))
				continue;
			seen[p / 64] |= (uint64_t)1 << (p % 64);
			if ((o = pc_pv(m, p))->kind != PC_VAL_OBJ || !o->v.n ||
			    pc_pv(m, p + 1)->key != r->row_type ||
			    pc_pv(m, p + 1)->kind != PC_VAL_STR ||
			    (pc_pv(m, p + 1)->v.s != r->row_trace_event &&
			     pc_pv(m, p + 1)->v.s != r->row_dispatch))
				continue;
			for (j = 0, c = p + 1; j < o->v.n; j++, c += pc_val_span(pc_pv(m, c))) {
				const struct pc_val *v = &m->pv.nodes[c];

				if (v->kind != PC_VAL_SREF || v->key >= r->nkinds || !plain[v->key])
					continue;
				if (pc_grow(ctx, (void **)&list, sizeof(*list), &cap, (size_t)len + 1)) {
					err = PROFCONV_ERR_NOMEM;
					break;
				}
				list[len++] = c;
			}
		}
	}
	pc_free(ctx, seen);
	pc_free(ctx, plain);
	if (err) {
		pc_free(ctx, list);
		return err;
	}
	*out = list;
	*n = len;
	return 0;
}

/* The nodes of pc_chrome_refs_scan() become plain strings, in that order. */
int pc_chrome_refs_mend(struct rd *r, const uint32_t *list, uint32_t n)
{
	struct pc_model *m = r->m;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct pc_val *v = &m->pv.nodes[list[i]];
		uint32_t row;

		if (v->kind != PC_VAL_SREF)
			continue;
		row = pc_pv_text_intern(m, pc_str(m, v->v.s), m->strings.lens[v->v.s]);
		if (row == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		v->kind = PC_VAL_STR;
		v->v.s = row;
	}
	return 0;
}

/*
 * Trace payloads hold their string values as string-table references
 * (format unique-string: a repeated value is written once, in the string
 * table).  A key that also had numbers or booleans, or that did not make
 * it into the schema (more than MAX_ARG_KEYS keys), gets format string: its
 * references become plain strings again.  A payload may be shared by many
 * markers; one already mended is left as it is.
 */
int pc_chrome_strings_or_refs(struct rd *r)
{
	uint32_t *list, n;
	int flow_keys, err;

	if (r->refs_mended) /* before the flows' fields (pc_chrome_flows_end()) */
		return 0;
	err = pc_chrome_refs_scan(r, r->ctx, &list, &n, &flow_keys);
	if (!err)
		err = pc_chrome_refs_mend(r, list, n);
	pc_free(r->ctx, list);
	return err;
}

/*
 * The Trace schema: type, cat and every args key seen; the EventDispatch
 * schema, the same fields drawn in the timeline overview too (see
 * PC_CHROME_DISPATCH_TYPE); the Context schema.
 */
int pc_chrome_add_schema(struct rd *r)
{
	static const char *const display[] = { "marker-chart", "marker-table", "timeline-overview",
					       NULL };
	static const char *const display_trace[] = { "marker-chart", "marker-table", NULL };
	struct pc_schema_field f[MAX_ARG_KEYS + 8];
	uint32_t i, n = 0;

	f[n].key = "cat";
	f[n].label = "Category";
	f[n].format = "unique-string";
	f[n++].hidden = 0;
	for (i = 0; i < r->narg_keys; i++) {
		uint8_t k = arg_kinds(r, r->arg_keys[i]);

		if (r->any_flow_slices && pc_chrome_is_flow_key(r->arg_keys[i]))
			continue; /* listed below, with the flow's format */
		f[n].key = r->arg_keys[i];
		f[n].label = r->arg_keys[i];
		f[n].format = k == KIND_STR ? "unique-string" : k == KIND_NUM ? "number" : "string";
		f[n++].hidden = 0;
	}
	if (r->any_flow_slices) {
		static const struct pc_schema_field ff[] = {
			{ "flow", "Flow", "flow-id", 0 },
			{ "terminatingFlow", "Flow (ends here)", "terminating-flow-id", 0 },
			{ "flowFrom", "Flow from", "unique-string", 0 },
			{ "flowTo", "Flow to", "unique-string", 0 },
		};

		for (i = 0; i < PC_ARRAY_SIZE(ff); i++)
			f[n++] = ff[i];
	}
	if (r->any_contexts) {
		static const struct pc_schema_field cf[] = { { "name", "Context", "string", 0 },
							     { "object", "Object", "string", 0 },
							     { "url", "URL", "url", 0 } };

		f[n].key = "contexts";
		f[n].label = "Contexts";
		f[n].format = arg_kinds(r, "contexts") == KIND_STR ? "unique-string" : "string";
		f[n++].hidden = 0;
		if (pc_schema_add_simple(r->m, "Context", display, cf, PC_ARRAY_SIZE(cf),
					 "{marker.name} {marker.data.name}",
					 "{marker.data.name}", "{marker.data.name}",
					 "A FrameBlamer context's activation on this thread") == PC_NONE)
			return PROFCONV_ERR_NOMEM;
	}
	if (pc_schema_add_simple(r->m, PC_CHROME_EVENT_TYPE, display_trace, f, n, "{marker.name}",
				 NULL, NULL, "A Chrome trace event") == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	if (r->any_dispatch &&
	    pc_schema_add_simple(r->m, PC_CHROME_DISPATCH_TYPE, display, f, n, "{marker.name}", NULL,
				 NULL, "A Chrome trace event: an input or DOM event's dispatch") ==
		    PC_NONE)
		return PROFCONV_ERR_NOMEM;
	return 0;
}
