/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_ctx.c - FrameBlamer contexts in Chrome traces, and the cost of the
 * work done for each (profconv blame).  The rules are R1-R9 of the context
 * test vectors (tests/fixtures/chrome/contexts/README.md): catapult's
 * ContextProcessor state machine, plus the FrameBlamer design's lowest
 * common ancestor and a merge of cross-process counterparts.
 *
 *   R1 a context is (type, scope, id, pid): type = the event's name, scope
 *      defaults to "ptr", id is id or id2.local/global as written; ids are
 *      local to the event's process
 *   R2 each thread has an active set and a stack per type
 *   R3 ( T/x: active contexts of type T go onto T's stack, T/x is active
 *   R4 ) T/x: each active match leaves, and T's stack top comes back;
 *      no match: nothing happens (counted warning)
 *   R5 D scope:id on a thread that has seen contexts: off every stack, and
 *      each active context on it leaves as in R4
 *   R6 file order; a slice (X, B) takes the set active at its begin event
 *   R7 self time = duration - direct children's durations, per thread
 *   R8 each object's parent from the O snapshot in effect at the slice's
 *      start (the latest at or before it, else the first); per tree of
 *      objects in the set: one object is charged, several charge their
 *      lowest common ancestor; trees are charged independently
 *   R9 sibling / renderFrame links join counterparts for merged totals
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_chrome.h"

#define W_CTX_MISUSE "context events that match no active context (ignored)"
#define MAX_DEPTH 64

/* --- R1: identity --- */

/* The id of an event as written ("0x10", 16); 0 when it has none. */
static int event_id(const cJSON *ev, char *buf, size_t cap)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");
	const cJSON *id2 = cJSON_GetObjectItemCaseSensitive(ev, "id2");

	if (!id && cJSON_IsObject(id2)) {
		id = cJSON_GetObjectItemCaseSensitive(id2, "local");
		if (!id)
			id = cJSON_GetObjectItemCaseSensitive(id2, "global");
	}
	if (cJSON_IsString(id)) {
		pc_snprintf(buf, cap, "%s", id->valuestring);
		return 1;
	}
	if (cJSON_IsNumber(id)) {
		pc_snprintf(buf, cap, "%.17g", id->valuedouble);
		return 1;
	}
	return 0;
}

/* The object an event names (scope, id, its pid), or PC_NONE. */
static uint32_t event_obj(struct rd *r, const cJSON *ev, int64_t pid)
{
	const char *scope = pc_chrome_jstr(ev, "scope");
	char id[128];

	if (!event_id(ev, id, sizeof(id)))
		return PC_NONE;
	return pc_ctxobj_intern(r->m, scope ? scope : "ptr", id, pid);
}

/* A reference {idRef|id_ref, scope, pidRef|pid_ref} to an object, or PC_NONE. */
static uint32_t ref_obj(struct rd *r, const cJSON *ref, int64_t pid)
{
	const cJSON *id, *p;
	const char *scope;
	char buf[128];

	if (!cJSON_IsObject(ref))
		return PC_NONE;
	id = cJSON_GetObjectItemCaseSensitive(ref, "idRef");
	if (!id)
		id = cJSON_GetObjectItemCaseSensitive(ref, "id_ref");
	p = cJSON_GetObjectItemCaseSensitive(ref, "pidRef");
	if (!p)
		p = cJSON_GetObjectItemCaseSensitive(ref, "pid_ref");
	if (cJSON_IsString(id))
		pc_snprintf(buf, sizeof(buf), "%s", id->valuestring);
	else if (cJSON_IsNumber(id))
		pc_snprintf(buf, sizeof(buf), "%.17g", id->valuedouble);
	else
		return PC_NONE;
	scope = pc_chrome_jstr(ref, "scope");
	return pc_ctxobj_intern(r->m, scope ? scope : "ptr", buf,
				cJSON_IsNumber(p) ? pc_chrome_to_i64(p->valuedouble) : pid);
}

static const char *ctx_type(const struct rd *r, uint32_t c)
{
	return r->m->contexts.ctx_type[c];
}

static uint32_t ctx_obj(const struct rd *r, uint32_t c)
{
	return r->m->contexts.ctx_obj[c];
}

/* --- R2-R5: the state machine --- */

static struct ctx_stack *stack_of(struct rd *r, struct ctx_state *cs, const char *type, int add)
{
	uint32_t i;

	for (i = 0; i < cs->nstacks; i++)
		if (strcmp(cs->stacks[i].type, type) == 0)
			return &cs->stacks[i];
	if (!add || pc_grow(r->ctx, (void **)&cs->stacks, sizeof(*cs->stacks), &cs->stacks_cap,
			    (size_t)cs->nstacks + 1))
		return NULL;
	memset(&cs->stacks[cs->nstacks], 0, sizeof(cs->stacks[0]));
	cs->stacks[cs->nstacks].type = pc_model_keep(r->m, type, strlen(type));
	if (!cs->stacks[cs->nstacks].type)
		return NULL;
	return &cs->stacks[cs->nstacks++];
}

static int push_ctx(struct rd *r, uint32_t **arr, uint32_t *n, uint32_t *cap, uint32_t c)
{
	if (pc_grow(r->ctx, (void **)arr, sizeof(**arr), cap, (size_t)*n + 1))
		return PROFCONV_ERR_NOMEM;
	(*arr)[(*n)++] = c;
	return 0;
}

static void remove_at(uint32_t *arr, uint32_t *n, uint32_t i)
{
	memmove(&arr[i], &arr[i + 1], (*n - i - 1) * sizeof(*arr));
	(*n)--;
}

/* The activation marker of a context: name = its type, object in the payload. */
/*
 * The snapshot of obj in effect at ts: the latest at or before it, else the
 * first (R8); with_url: only snapshots that carry a url.  Its index, or PC_NONE.
 */
static uint32_t snap_at(const struct rd *r, uint32_t obj, int64_t ts, int with_url)
{
	uint32_t i, best = PC_NONE, first = PC_NONE;

	for (i = 0; i < r->nsnaps; i++) {
		const struct csnap *s = &r->snaps[i];

		if (s->obj != obj || (with_url && !s->url))
			continue;
		if (first == PC_NONE || s->time < r->snaps[first].time)
			first = i;
		if (s->time <= ts && (best == PC_NONE || s->time >= r->snaps[best].time))
			best = i;
	}
	return best == PC_NONE ? first : best;
}

static int activation_marker(struct rd *r, struct tinfo *ti, uint32_t c, int64_t start, int64_t end,
			     uint8_t phase)
{
	struct pc_marker_row row;
	struct pc_pvb b;
	char obj[300];
	const struct pc_context_tables *t = &r->m->contexts;
	uint32_t o = t->ctx_obj[c];

	if (!r->cat_ctx) {
		r->cat_ctx = pc_model_add_category(r->m, "Context", "purple");
		if (r->cat_ctx == PC_NO_CATEGORY)
			return PROFCONV_ERR_NOMEM;
	}
	if (pc_grow(r->ctx, (void **)&r->acts, sizeof(*r->acts), &r->acts_cap, (size_t)r->nacts + 1))
		return PROFCONV_ERR_NOMEM;
	r->acts[r->nacts].thread = (uint32_t)(ti - r->th);
	r->acts[r->nacts].ctx = c;
	r->acts[r->nacts].start = start;
	r->acts[r->nacts++].end = end == PC_NO_TIME ? INT64_MAX : end;
	pc_snprintf(obj, sizeof(obj), "%s:%s@%lld", t->obj_scope[o], t->obj_id[o],
		    (long long)t->obj_pid[o]);
	pc_marker_row_init(&row);
	row.name = pc_str_intern_z(r->m, t->ctx_type[c]);
	row.start = start;
	row.end = end;
	row.phase = phase;
	row.category = r->cat_ctx;
	pc_pvb_begin(&b, r->m, 0);
	pc_pvb_key_z(&b, "type");
	pc_pvb_str_z(&b, "Context");
	pc_pvb_key_z(&b, "object");
	pc_pvb_str_z(&b, obj);
	{
		/* named after the context: a frame's url when its snapshot has one */
		uint32_t sn = snap_at(r, o, start, 1);
		const char *url = sn == PC_NONE ? NULL : r->snaps[sn].url;

		pc_pvb_key_z(&b, "name");
		pc_pvb_str_z(&b, url ? url : obj);
		if (url) {
			pc_pvb_key_z(&b, "url");
			pc_pvb_str_z(&b, url);
		}
	}
	row.payload = pc_pvb_end(&b);
	if (row.name == PC_NONE || row.payload == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	return pc_marker_push(r->m, ti->t, &row);
}

static int activate(struct rd *r, struct ctx_state *cs, uint32_t c, int64_t ts)
{
	uint32_t cap = cs->since_cap;

	if (pc_grow(r->ctx, (void **)&cs->since, sizeof(*cs->since), &cap, (size_t)cs->nactive + 1))
		return PROFCONV_ERR_NOMEM;
	cs->since_cap = cap;
	cs->since[cs->nactive] = ts;
	return push_ctx(r, &cs->active, &cs->nactive, &cs->active_cap, c);
}

/* Active context i stops being active at ts: its activation marker. */
static int deactivate(struct rd *r, struct ctx_state *cs, struct tinfo *ti, uint32_t i, int64_t ts)
{
	int err = activation_marker(r, ti, cs->active[i], cs->since[i], ts, PC_PHASE_INTERVAL);

	memmove(&cs->since[i], &cs->since[i + 1], (cs->nactive - i - 1) * sizeof(*cs->since));
	remove_at(cs->active, &cs->nactive, i);
	return err;
}

/* R4's second half: T's stack top, if any, becomes active again. */
static int pop_back(struct rd *r, struct ctx_state *cs, const char *type, int64_t ts)
{
	struct ctx_stack *st = stack_of(r, cs, type, 0);

	if (!st || !st->n)
		return 0;
	return activate(r, cs, st->items[--st->n], ts);
}

static int enter(struct rd *r, struct ctx_state *cs, struct tinfo *ti, const char *type,
		 uint32_t obj, int64_t ts)
{
	uint32_t c = pc_context_intern(r->m, type, obj), i;
	struct ctx_stack *st = stack_of(r, cs, type, 1);
	int err;

	if (c == PC_NONE || !st)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < cs->nactive;) {
		if (strcmp(ctx_type(r, cs->active[i]), type) == 0) {
			err = push_ctx(r, &st->items, &st->n, &st->cap, cs->active[i]);
			if (!err)
				err = deactivate(r, cs, ti, i, ts);
			if (err)
				return err;
		} else {
			i++;
		}
	}
	return activate(r, cs, c, ts);
}

static int leave(struct rd *r, struct ctx_state *cs, struct tinfo *ti, const char *type,
		 uint32_t obj, int64_t ts)
{
	uint32_t i, matched = 0;
	int err;

	/* every active match leaves first; then T's stack gives one back per match */
	for (i = 0; i < cs->nactive;) {
		if (strcmp(ctx_type(r, cs->active[i]), type) == 0 && ctx_obj(r, cs->active[i]) == obj) {
			err = deactivate(r, cs, ti, i, ts);
			if (err)
				return err;
			matched++;
		} else {
			i++;
		}
	}
	if (!matched)
		return pc_warn(r->ctx, W_CTX_MISUSE, NULL,
			       "%s: a ')' %s at %.3f us on thread %lld leaves no active context (left as it is, as catapult does)",
			       r->name, type, (double)ts / 1000.0, (long long)ti->tid);
	for (i = 0; i < matched; i++) {
		err = pop_back(r, cs, type, ts);
		if (err)
			return err;
	}
	return 0;
}

static int destroy(struct rd *r, struct ctx_state *cs, struct tinfo *ti, uint32_t obj, int64_t ts)
{
	uint32_t i, k;
	int err;

	if (!cs->seen)
		return 0;
	for (i = 0; i < cs->nstacks; i++)
		for (k = 0; k < cs->stacks[i].n;)
			if (ctx_obj(r, cs->stacks[i].items[k]) == obj)
				remove_at(cs->stacks[i].items, &cs->stacks[i].n, k);
			else
				k++;
	for (i = 0; i < cs->nactive;) {
		if (ctx_obj(r, cs->active[i]) == obj) {
			const char *type = ctx_type(r, cs->active[i]);

			err = deactivate(r, cs, ti, i, ts);
			if (!err)
				err = pop_back(r, cs, type, ts);
			if (err)
				return err;
		} else {
			i++;
		}
	}
	return 0;
}

int pc_chrome_ctx_close(struct rd *r)
{
	uint32_t i, k;
	int err = 0;

	for (i = 0; r->cs && i < r->nth && !err; i++)
		for (k = 0; k < r->cs[i].nactive && !err; k++)
			err = activation_marker(r, &r->th[i], r->cs[i].active[k], r->cs[i].since[k],
						PC_NO_TIME, PC_PHASE_START);
	return err;
}

static int snapshot(struct rd *r, const cJSON *ev, int64_t pid, int64_t ts, uint32_t obj)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
	const cJSON *snap = cJSON_GetObjectItemCaseSensitive(args, "snapshot");
	const cJSON *sib;
	struct csnap *s;
	uint32_t props = PC_NONE;

	if (cJSON_IsObject(snap) && pc_jr_pv_from_cjson(r->m, snap, &props))
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	if (props != PC_NONE && pc_ctxsnap_add(r->m, obj, ts, props))
		return PROFCONV_ERR_NOMEM;
	if (pc_grow(r->ctx, (void **)&r->snaps, sizeof(*r->snaps), &r->snaps_cap,
		    (size_t)r->nsnaps + 1))
		return PROFCONV_ERR_NOMEM;
	s = &r->snaps[r->nsnaps++];
	s->obj = obj;
	s->time = ts;
	s->parent = ref_obj(r, cJSON_GetObjectItemCaseSensitive(snap, "parent"), pid);
	sib = cJSON_GetObjectItemCaseSensitive(snap, "sibling");
	if (!sib)
		sib = cJSON_GetObjectItemCaseSensitive(snap, "renderFrame");
	s->sibling = ref_obj(r, sib, pid);
	s->url = NULL;
	{
		const char *url = pc_chrome_jstr(snap, "url");

		if (url && *url) {
			s->url = pc_model_keep(r->m, url, strlen(url));
			if (!s->url)
				return PROFCONV_ERR_NOMEM;
		}
	}
	return 0;
}

int pc_chrome_context_event(struct rd *r, struct tinfo *ti, const cJSON *ev, int64_t pid,
			    int64_t ts, char ph)
{
	struct ctx_state *cs = &r->cs[ti - r->th];
	const char *name = pc_chrome_jstr(ev, "name");
	uint32_t obj = event_obj(r, ev, pid);

	if (obj == PC_NONE) {
		if (r->ctx->status)
			return r->ctx->status;
		return ph == 'N' ? 0
				 : pc_warn(r->ctx, W_CTX_MISUSE, NULL,
					   "%s: a '%c' event without an id (ignored)", r->name, ph);
	}
	switch (ph) {
	case '(':
		r->any_contexts = 1;
		cs->seen = 1;
		return enter(r, cs, ti, name ? name : "", obj, ts);
	case ')':
		r->any_contexts = 1;
		cs->seen = 1;
		return leave(r, cs, ti, name ? name : "", obj, ts);
	case 'O':
		return snapshot(r, ev, pid, ts, obj);
	case 'D':
		return destroy(r, cs, ti, obj, ts);
	default:
		return 0; /* N: creation changes nothing here */
	}
}

size_t pc_chrome_set_text(struct rd *r, uint32_t set, char *buf, size_t cap)
{
	const struct pc_context_tables *t = &r->m->contexts;
	const uint32_t *members;
	uint32_t n = pc_ctxset_members(r->m, set, &members), i;
	size_t len = 0;

	buf[0] = 0;
	for (i = 0; i < n; i++) {
		uint32_t o = t->ctx_obj[members[i]];

		len += pc_snprintf(buf + len, cap - len, "%s%s/%s:%s@%lld", i ? ", " : "",
				   t->ctx_type[members[i]], t->obj_scope[o], t->obj_id[o],
				   (long long)t->obj_pid[o]);
	}
	return len;
}

uint32_t pc_chrome_active_set(struct rd *r, struct tinfo *ti)
{
	struct ctx_state *cs = &r->cs[ti - r->th];

	if (!r->any_contexts)
		return PC_NONE;
	return pc_ctxset_intern(r->m, cs->active, cs->nactive);
}

int pc_chrome_add_cslice(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start,
			 int64_t end, uint32_t set, int be, uint32_t order)
{
	struct cslice *c;

	if (pc_grow(r->ctx, (void **)&r->cslices, sizeof(*r->cslices), &r->cslices_cap,
		    (size_t)r->ncslices + 1))
		return PROFCONV_ERR_NOMEM;
	c = &r->cslices[r->ncslices++];
	c->thread = (uint32_t)(ti - r->th);
	c->name = name;
	c->start = start;
	c->end = end;
	c->set = set;
	c->order = order;
	c->be = (uint8_t)be;
	c->self = end - start;
	return 0;
}

/* --- R7: self time --- */

static int nest_cmp(const void *a, const void *b)
{
	const struct cslice *x = *(const struct cslice *const *)a;
	const struct cslice *y = *(const struct cslice *const *)b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int self_times(struct rd *r)
{
	struct cslice **v = pc_alloc(r->ctx, ((size_t)r->ncslices + 1) * sizeof(*v));
	struct cslice *open[256];
	uint32_t i, depth = 0;

	if (!v)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < r->ncslices; i++)
		v[i] = &r->cslices[i];
	qsort(v, r->ncslices, sizeof(*v), nest_cmp);
	for (i = 0; i < r->ncslices; i++) {
		if (i && v[i]->thread != v[i - 1]->thread)
			depth = 0;
		while (depth && open[depth - 1]->end <= v[i]->start)
			depth--;
		/* a direct child: its duration comes off its parent's self time */
		if (depth && v[i]->end <= open[depth - 1]->end)
			open[depth - 1]->self -= v[i]->end - v[i]->start;
		else
			depth = 0; /* overlapping, not nested: a new root */
		if (depth < PC_ARRAY_SIZE(open))
			open[depth++] = v[i];
	}
	pc_free(r->ctx, v);
	return 0;
}

static int order_cmp(const void *a, const void *b)
{
	const struct cslice *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* --- R8: the objects charged --- */

/* The parent of obj at time ts (the snapshot in effect), or PC_NONE. */
static uint32_t parent_at(const struct rd *r, uint32_t obj, int64_t ts)
{
	uint32_t sn = snap_at(r, obj, ts, 0);

	return sn == PC_NONE ? PC_NONE : r->snaps[sn].parent;
}

/* obj and its ancestors at ts, obj first; returns the count. */
static uint32_t chain(const struct rd *r, uint32_t obj, int64_t ts, uint32_t *out)
{
	uint32_t n = 0, k;

	while (obj != PC_NONE && n < MAX_DEPTH) {
		for (k = 0; k < n && out[k] != obj; k++)
			;
		if (k < n)
			break; /* a cycle */
		out[n++] = obj;
		obj = parent_at(r, obj, ts);
	}
	return n;
}

/* The objects slice s is charged to (R8), at most cap; returns the count. */
static uint32_t targets(const struct rd *r, const struct cslice *s, uint32_t *out, uint32_t cap)
{
	const uint32_t *members;
	uint32_t objs[64], nobjs = 0, nm, i, k, nout = 0;
	uint8_t done[64];

	nm = s->set == PC_NONE ? 0 : pc_ctxset_members(r->m, s->set, &members);
	for (i = 0; i < nm && nobjs < PC_ARRAY_SIZE(objs); i++) {
		uint32_t o = ctx_obj(r, members[i]);

		for (k = 0; k < nobjs && objs[k] != o; k++)
			;
		if (k == nobjs)
			objs[nobjs++] = o;
	}
	memset(done, 0, sizeof(done));
	for (i = 0; i < nobjs && nout < cap; i++) {
		uint32_t ci[MAX_DEPTH], nci, lca;

		if (done[i])
			continue;
		nci = chain(r, objs[i], s->start, ci);
		lca = 0; /* index into ci: objs[i] itself */
		done[i] = 1;
		for (k = i + 1; k < nobjs; k++) {
			uint32_t ck[MAX_DEPTH], nck = chain(r, objs[k], s->start, ck), a, b;

			if (done[k] || ci[nci - 1] != ck[nck - 1])
				continue; /* another tree */
			done[k] = 1;
			/* the deepest ancestor of objs[i] (from lca up) that is in ck */
			for (a = lca; a < nci; a++) {
				for (b = 0; b < nck && ck[b] != ci[a]; b++)
					;
				if (b < nck)
					break;
			}
			lca = a < nci ? a : nci - 1;
		}
		out[nout++] = ci[lca];
	}
	return nout;
}

/* --- printing --- */

/* s as the inside of a JSON string (quotes, backslashes, controls escaped). */
static const char *jesc(const char *s, char *buf, size_t cap)
{
	size_t n = 0;

	for (; *s && n + 7 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)c;
		} else if (c < 0x20) {
			n += pc_snprintf(buf + n, cap - n, "\\u%04x", c);
		} else {
			buf[n++] = (char)c;
		}
	}
	buf[n] = 0;
	return buf;
}

static void obj_text(const struct rd *r, uint32_t o, char *buf, size_t cap)
{
	const struct pc_context_tables *t = &r->m->contexts;

	pc_snprintf(buf, cap, "%s:%s@%lld", t->obj_scope[o], t->obj_id[o], (long long)t->obj_pid[o]);
}

static int ctx_cmp_r(const struct rd *r, uint32_t a, uint32_t b)
{
	const struct pc_context_tables *t = &r->m->contexts;
	uint32_t oa = t->ctx_obj[a], ob = t->ctx_obj[b];
	int c = strcmp(t->ctx_type[a], t->ctx_type[b]);

	if (c)
		return c;
	if ((c = strcmp(t->obj_scope[oa], t->obj_scope[ob])))
		return c;
	if ((c = strcmp(t->obj_id[oa], t->obj_id[ob])))
		return c;
	return t->obj_pid[oa] < t->obj_pid[ob] ? -1 : t->obj_pid[oa] > t->obj_pid[ob];
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A total per key (object text or merged group text), kept sorted at print. */
struct total {
	char *key;
	int64_t ns;
};

static int add_total(struct rd *r, struct total **tt, uint32_t *n, uint32_t *cap, const char *key,
		     int64_t ns)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*tt)[i].key, key) == 0) {
			(*tt)[i].ns += ns;
			return 0;
		}
	if (pc_grow(r->ctx, (void **)tt, sizeof(**tt), cap, (size_t)*n + 1))
		return PROFCONV_ERR_NOMEM;
	(*tt)[*n].key = pc_strdup(r->ctx, key);
	(*tt)[*n].ns = ns;
	if (!(*tt)[*n].key)
		return PROFCONV_ERR_NOMEM;
	(*n)++;
	return 0;
}

static int total_cmp(const void *a, const void *b)
{
	return strcmp(((const struct total *)a)->key, ((const struct total *)b)->key);
}

/* Union-find over objects for R9. */
static uint32_t uf_find(uint32_t *p, uint32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static void print_totals(struct pc_text_out *o, struct total *tt, uint32_t n, int json,
			 const char *jkey, int last)
{
	char esc[2048];
	uint32_t i;

	qsort(tt, n, sizeof(*tt), total_cmp);
	if (json) {
		pc_text_printf(o, "  \"%s\": [", jkey);
		for (i = 0; i < n; i++)
			pc_text_printf(o, "%s\n    {\"object\": \"%s\", \"self_us\": %lld}", i ? "," : "",
				       jesc(tt[i].key, esc, sizeof(esc)), (long long)(tt[i].ns / 1000));
		pc_text_printf(o, "\n  ]%s\n", last ? "" : ",");
		return;
	}
	for (i = 0; i < n; i++)
		pc_text_printf(o, "%s %lld\n", tt[i].key, (long long)(tt[i].ns / 1000));
}

/* --- samples --- */

static int act_cmp(const void *a, const void *b)
{
	const struct activation *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

struct sidx {
	int64_t time;
	uint32_t i;
};

static int sidx_cmp(const void *a, const void *b)
{
	const struct sidx *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * A sweep per thread over its samples in time order: activations join the
 * active list when they start at or before the sample and leave it when
 * they end at or before it (an activation is [start, end)).
 */
int pc_chrome_sample_sets(struct rd *r)
{
	uint32_t a = 0, i, th, *active = NULL, nactive = 0, active_cap = 0;
	uint32_t *sets = NULL, sets_cap = 0;
	struct sidx *ord = NULL;
	uint32_t ord_cap = 0;
	int err = 0;

	if (!r->any_contexts || !r->nacts)
		return 0;
	qsort(r->acts, r->nacts, sizeof(*r->acts), act_cmp);
	for (th = 0; th < r->nth && !err; th++) {
		struct pc_samples *sm = &r->th[th].t->samples;
		uint32_t k;

		while (a < r->nacts && r->acts[a].thread < th)
			a++;
		if (!sm->len || a == r->nacts || r->acts[a].thread != th)
			continue;
		if (pc_grow(r->ctx, (void **)&ord, sizeof(*ord), &ord_cap, sm->len) ||
		    pc_grow(r->ctx, (void **)&sets, sizeof(*sets), &sets_cap, sm->len)) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		for (i = 0; i < sm->len; i++) {
			ord[i].time = sm->time[i];
			ord[i].i = i;
		}
		qsort(ord, sm->len, sizeof(*ord), sidx_cmp);
		nactive = 0;
		for (i = 0; i < sm->len && !err; i++) {
			int64_t t = ord[i].time;

			while (a < r->nacts && r->acts[a].thread == th && r->acts[a].start <= t) {
				if (pc_grow(r->ctx, (void **)&active, sizeof(*active), &active_cap,
					    (size_t)nactive + 1)) {
					err = PROFCONV_ERR_NOMEM;
					break;
				}
				active[nactive++] = a++;
			}
			for (k = 0; k < nactive;)
				if (r->acts[active[k]].end <= t)
					active[k] = active[--nactive];
				else
					k++;
			{
				uint32_t ctxs[64], n = 0;

				for (k = 0; k < nactive && n < PC_ARRAY_SIZE(ctxs); k++)
					ctxs[n++] = r->acts[active[k]].ctx;
				sets[ord[i].i] = pc_ctxset_intern(r->m, ctxs, n);
				if (sets[ord[i].i] == PC_NONE)
					err = PROFCONV_ERR_NOMEM;
			}
		}
		while (a < r->nacts && r->acts[a].thread == th)
			a++;
		/* the column exists once a sample has a set: make it, then fill it */
		if (!err)
			err = pc_sample_set_context_set(r->m, r->th[th].t, sets[sm->len - 1]);
		if (!err)
			memcpy(sm->context_set, sets, (size_t)sm->len * sizeof(*sets));
	}
	pc_free(r->ctx, ord);
	pc_free(r->ctx, sets);
	pc_free(r->ctx, active);
	return err;
}

/* The real samples charged to each context object by the slices' rules; 0 samples: none. */
static int sample_totals(struct rd *r, struct total **tot, uint32_t *ntot, uint64_t *nsamples)
{
	uint32_t tot_cap = 0, th, i, a;
	int err = 0;

	*nsamples = 0;
	for (th = 0; th < r->nth && !err; th++) {
		const struct pc_samples *sm = &r->th[th].t->samples;

		if (!r->th[th].has_real_samples)
			continue;
		for (i = 0; i < sm->len && !err; i++) {
			struct cslice s;
			uint32_t tg[64], ntg;
			char txt[256];

			memset(&s, 0, sizeof(s));
			s.set = sm->context_set ? sm->context_set[i] : PC_NONE;
			s.start = sm->time[i];
			ntg = targets(r, &s, tg, PC_ARRAY_SIZE(tg));
			(*nsamples)++;
			if (!ntg)
				err = add_total(r, tot, ntot, &tot_cap, "(none)", 1);
			for (a = 0; a < ntg && !err; a++) {
				obj_text(r, tg[a], txt, sizeof(txt));
				err = add_total(r, tot, ntot, &tot_cap, txt, 1);
			}
		}
	}
	if (*ntot)
		qsort(*tot, *ntot, sizeof(**tot), total_cmp);
	return err;
}

static void print_sample_totals(struct rd *r, const struct total *tt, uint32_t n)
{
	struct pc_text_out *o = r->blame;
	char esc[2048];
	uint32_t i;

	if (!r->blame_json) {
		pc_text_printf(o, "[sample-totals]\n");
		for (i = 0; i < n; i++)
			pc_text_printf(o, "%s %lld\n", tt[i].key, (long long)tt[i].ns);
		return;
	}
	pc_text_printf(o, "  \"sample_totals\": [");
	for (i = 0; i < n; i++)
		pc_text_printf(o, "%s\n    {\"object\": \"%s\", \"samples\": %lld}", i ? "," : "",
			       jesc(tt[i].key, esc, sizeof(esc)), (long long)tt[i].ns);
	pc_text_printf(o, "\n  ]\n");
}

int pc_chrome_blame_finish(struct rd *r)
{
	struct pc_text_out *o = r->blame;
	const struct pc_context_tables *t = &r->m->contexts;
	struct total *tot = NULL, *mer = NULL, *smp = NULL;
	uint32_t ntot = 0, tot_cap = 0, nmer = 0, mer_cap = 0, nsmp = 0, i, k, *uf = NULL;
	uint64_t nsamples = 0;
	char **names = NULL;
	int err;

	if (!o)
		return 0;
	err = self_times(r);
	if (err)
		return err;
	/* listed in file order of their X or B event */
	qsort(r->cslices, r->ncslices, sizeof(*r->cslices), order_cmp);
	uf = pc_alloc(r->ctx, ((size_t)t->nobj + 1) * sizeof(*uf));
	names = pc_calloc(r->ctx, (size_t)t->nobj + 1, sizeof(*names));
	if (!uf || !names) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < t->nobj; i++)
		uf[i] = i;
	for (i = 0; i < r->nsnaps; i++)
		if (r->snaps[i].sibling != PC_NONE && r->snaps[i].sibling < t->nobj)
			uf[uf_find(uf, r->snaps[i].obj)] = uf_find(uf, r->snaps[i].sibling);
	if (r->blame_json)
		pc_text_printf(o, "{\n  \"slices\": [");
	else
		pc_text_printf(o, "[slices]\n");
	for (i = 0; i < r->ncslices && !err; i++) {
		const struct cslice *s = &r->cslices[i];
		const uint32_t *members;
		uint32_t nm = s->set == PC_NONE ? 0 : pc_ctxset_members(r->m, s->set, &members);
		uint32_t sorted[64], tg[64], ntg, a, b;
		char txt[256], esc[2048];

		/* the set, sorted by (type, scope, id, pid) for the listing */
		for (a = 0; a < nm && a < PC_ARRAY_SIZE(sorted); a++)
			sorted[a] = members[a];
		for (a = 1; a < nm && a < PC_ARRAY_SIZE(sorted); a++)
			for (b = a; b > 0 && ctx_cmp_r(r, sorted[b - 1], sorted[b]) > 0; b--) {
				uint32_t x = sorted[b];

				sorted[b] = sorted[b - 1];
				sorted[b - 1] = x;
			}
		ntg = targets(r, s, tg, PC_ARRAY_SIZE(tg));
		if (r->blame_json) {
			pc_text_printf(o, "%s\n    {\"name\": \"%s\", \"self_us\": %lld, \"to\": [", i ? "," : "",
				       jesc(pc_str(r->m, s->name), esc, sizeof(esc)),
				       (long long)(s->self / 1000));
		} else {
			pc_text_printf(o, "%s %s pid=%lld tid=%lld ts=%lld dur=%lld self=%lld ctx={",
				       pc_str(r->m, s->name), s->be ? "B/E" : "X",
				       (long long)r->th[s->thread].pid, (long long)r->th[s->thread].tid,
				       (long long)(s->start / 1000), (long long)((s->end - s->start) / 1000),
				       (long long)(s->self / 1000));
			for (a = 0; a < nm && a < PC_ARRAY_SIZE(sorted); a++) {
				obj_text(r, t->ctx_obj[sorted[a]], txt, sizeof(txt));
				pc_text_printf(o, "%s%s/%s", a ? ", " : "", t->ctx_type[sorted[a]], txt);
			}
			pc_text_printf(o, "} -> ");
		}
		if (!ntg) {
			err = add_total(r, &tot, &ntot, &tot_cap, "(none)", s->self);
			if (!err)
				err = add_total(r, &mer, &nmer, &mer_cap, "(none)", s->self);
			pc_text_printf(o, r->blame_json ? "\"(none)\"" : "(none)");
		}
		for (a = 0; a < ntg && !err; a++) {
			uint32_t root = uf_find(uf, tg[a]);
			char group[1024];
			size_t gl = 0;
			uint32_t ng = 0;

			obj_text(r, tg[a], txt, sizeof(txt));
			pc_text_printf(o, r->blame_json ? "%s\"%s\"" : "%s%s", a ? ", " : "",
				       r->blame_json ? jesc(txt, esc, sizeof(esc)) : txt);
			err = add_total(r, &tot, &ntot, &tot_cap, txt, s->self);
			/* the merged group's name: its members' names, sorted, joined by + */
			if (!err && !names[root]) {
				char *mem[64];

				for (k = 0; k < t->nobj && ng < PC_ARRAY_SIZE(mem); k++) {
					char one[256];

					if (uf_find(uf, k) != root)
						continue;
					obj_text(r, k, one, sizeof(one));
					mem[ng] = pc_strdup(r->ctx, one);
					if (!mem[ng]) {
						err = PROFCONV_ERR_NOMEM;
						break;
					}
					ng++;
				}
				qsort(mem, ng, sizeof(*mem), str_cmp);
				group[0] = 0;
				for (k = 0; k < ng; k++) {
					gl += pc_snprintf(group + gl, sizeof(group) - gl, "%s%s",
							  k ? "+" : "", mem[k]);
					pc_free(r->ctx, mem[k]);
				}
				if (!err) {
					names[root] = pc_strdup(r->ctx, group);
					if (!names[root])
						err = PROFCONV_ERR_NOMEM;
				}
			}
			if (!err)
				err = add_total(r, &mer, &nmer, &mer_cap, names[root], s->self);
		}
		pc_text_printf(o, r->blame_json ? "]}" : "\n");
	}
	if (!err)
		err = sample_totals(r, &smp, &nsmp, &nsamples);
	if (!err) {
		if (r->blame_json) {
			pc_text_printf(o, "\n  ],\n");
			print_totals(o, tot, ntot, 1, "totals", 0);
			print_totals(o, mer, nmer, 1, "merged_totals", nsamples == 0);
			if (nsamples)
				print_sample_totals(r, smp, nsmp);
			pc_text_printf(o, "}\n");
		} else {
			pc_text_printf(o, "[totals]\n");
			print_totals(o, tot, ntot, 0, NULL, 0);
			pc_text_printf(o, "[merged-totals]\n");
			print_totals(o, mer, nmer, 0, NULL, 1);
			if (nsamples)
				print_sample_totals(r, smp, nsmp);
		}
		if (o->err)
			err = pc_fail(r->ctx, PROFCONV_ERR_IO, NULL, "writing the attribution failed");
	}
out:
	for (i = 0; i < ntot; i++)
		pc_free(r->ctx, tot[i].key);
	for (i = 0; i < nmer; i++)
		pc_free(r->ctx, mer[i].key);
	for (i = 0; i < nsmp; i++)
		pc_free(r->ctx, smp[i].key);
	pc_free(r->ctx, smp);
	pc_free(r->ctx, tot);
	pc_free(r->ctx, mer);
	for (i = 0; names && i < t->nobj; i++)
		pc_free(r->ctx, names[i]);
	pc_free(r->ctx, names);
	pc_free(r->ctx, uf);
	return err;
}

void pc_chrome_ctx_free(struct rd *r)
{
	uint32_t i, k;

	pc_free(r->ctx, r->acts);

	for (i = 0; r->cs && i < r->nth; i++) {
		for (k = 0; k < r->cs[i].nstacks; k++)
			pc_free(r->ctx, r->cs[i].stacks[k].items);
		pc_free(r->ctx, r->cs[i].stacks);
		pc_free(r->ctx, r->cs[i].active);
		pc_free(r->ctx, r->cs[i].since);
	}
	pc_free(r->ctx, r->cs);
	pc_free(r->ctx, r->cslices);
	pc_free(r->ctx, r->snaps);
}
