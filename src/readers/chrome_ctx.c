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

/*
 * The snapshots of each object, sorted by time (file order among equal
 * times), all and those with a url: R8's "snapshot in effect" is a binary
 * search, so resolving contexts costs O(log n) per lookup, not a pass over
 * every snapshot of the trace (issue 22 item 12: 52 s on 12 MB).
 */
struct objsnaps {
	uint32_t *all, nall, all_cap;
	uint32_t *url, nurl, url_cap;
};

struct pc_ctx_index {
	struct objsnaps *per; /* by object row */
	uint32_t nper, per_cap;
};

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
	const struct objsnaps *os;
	const uint32_t *v;
	uint32_t n, lo = 0, hi;

	if (!r->cx || obj >= r->cx->nper)
		return PC_NONE;
	os = &r->cx->per[obj];
	v = with_url ? os->url : os->all;
	n = with_url ? os->nurl : os->nall;
	if (!n)
		return PC_NONE;
	/* the first whose time is > ts; the one before it is the latest at or before */
	hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->snaps[v[mid]].time <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? v[lo - 1] : v[0];
}

/* Snapshot i into v, after every one at or before its time (stable). */
static int insert_snap(struct rd *r, uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t i)
{
	uint32_t k;

	if (pc_grow(r->ctx, (void **)v, sizeof(**v), cap, (size_t)*n + 1))
		return PROFCONV_ERR_NOMEM;
	for (k = *n; k > 0 && r->snaps[(*v)[k - 1]].time > r->snaps[i].time; k--)
		;
	memmove(&(*v)[k + 1], &(*v)[k], (size_t)(*n - k) * sizeof(**v));
	(*v)[k] = i;
	(*n)++;
	return 0;
}

static int index_snap(struct rd *r, uint32_t i)
{
	uint32_t obj = r->snaps[i].obj;
	struct objsnaps *os;

	if (!r->cx) {
		r->cx = pc_calloc(r->ctx, 1, sizeof(*r->cx));
		if (!r->cx)
			return PROFCONV_ERR_NOMEM;
	}
	if (obj >= r->cx->nper) {
		if (pc_grow(r->ctx, (void **)&r->cx->per, sizeof(*r->cx->per), &r->cx->per_cap,
			    (size_t)obj + 1))
			return PROFCONV_ERR_NOMEM;
		memset(&r->cx->per[r->cx->nper], 0,
		       (size_t)(obj + 1 - r->cx->nper) * sizeof(*r->cx->per));
		r->cx->nper = obj + 1;
	}
	os = &r->cx->per[obj];
	if (insert_snap(r, &os->all, &os->nall, &os->all_cap, i))
		return PROFCONV_ERR_NOMEM;
	if (r->snaps[i].url && insert_snap(r, &os->url, &os->nurl, &os->url_cap, i))
		return PROFCONV_ERR_NOMEM;
	return 0;
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

/* When obj was last destroyed on this thread (R5), 0 never. */
static uint64_t destroyed_at(const struct ctx_state *cs, uint32_t obj)
{
	uint32_t h;

	if (!cs->dn)
		return 0;
	for (h = (obj * 2654435761u) & (cs->dcap - 1); cs->dobj[h] != PC_NONE;
	     h = (h + 1) & (cs->dcap - 1))
		if (cs->dobj[h] == obj)
			return cs->dseq[h];
	return 0;
}

static int set_destroyed(struct rd *r, struct ctx_state *cs, uint32_t obj, uint64_t seq)
{
	uint32_t h, i;

	if ((cs->dn + 1) * 2 > cs->dcap) {
		uint32_t ncap = cs->dcap ? cs->dcap * 2 : 16, *no;
		uint64_t *ns;

		if (ncap <= cs->dcap)
			return pc_fail(r->ctx, PROFCONV_ERR_LIMIT, NULL, "too many destroyed contexts");
		no = pc_alloc(r->ctx, (size_t)ncap * sizeof(*no));
		ns = pc_alloc(r->ctx, (size_t)ncap * sizeof(*ns));
		if (!no || !ns) {
			pc_free(r->ctx, no);
			pc_free(r->ctx, ns);
			return PROFCONV_ERR_NOMEM;
		}
		for (i = 0; i < ncap; i++)
			no[i] = PC_NONE;
		for (i = 0; i < cs->dcap; i++) {
			if (cs->dobj[i] == PC_NONE)
				continue;
			for (h = (cs->dobj[i] * 2654435761u) & (ncap - 1); no[h] != PC_NONE;
			     h = (h + 1) & (ncap - 1))
				;
			no[h] = cs->dobj[i];
			ns[h] = cs->dseq[i];
		}
		pc_free(r->ctx, cs->dobj);
		pc_free(r->ctx, cs->dseq);
		cs->dobj = no;
		cs->dseq = ns;
		cs->dcap = ncap;
	}
	for (h = (obj * 2654435761u) & (cs->dcap - 1); cs->dobj[h] != PC_NONE && cs->dobj[h] != obj;
	     h = (h + 1) & (cs->dcap - 1))
		;
	if (cs->dobj[h] == PC_NONE) {
		cs->dobj[h] = obj;
		cs->dn++;
	}
	cs->dseq[h] = seq;
	return 0;
}

/*
 * R4's second half: T's stack top, if any, becomes active again.  Items
 * whose object was destroyed after they were pushed are dropped on the way
 * (R5 takes them off every stack: done here, lazily, so a D costs O(1)
 * whatever the stacks' depth).
 */
static int pop_back(struct rd *r, struct ctx_state *cs, const char *type, int64_t ts)
{
	struct ctx_stack *st = stack_of(r, cs, type, 0);

	while (st && st->n) {
		uint32_t c = st->items[--st->n];

		if (st->seq[st->n] > destroyed_at(cs, ctx_obj(r, c)))
			return activate(r, cs, c, ts);
	}
	return 0;
}

/* Push context c onto st (R3). */
static int push_stack(struct rd *r, struct ctx_state *cs, struct ctx_stack *st, uint32_t c)
{
	uint32_t cap = st->seq_cap;

	if (pc_grow(r->ctx, (void **)&st->seq, sizeof(*st->seq), &cap, (size_t)st->n + 1))
		return PROFCONV_ERR_NOMEM;
	st->seq_cap = cap;
	st->seq[st->n] = ++cs->clock;
	return push_ctx(r, &st->items, &st->n, &st->cap, c);
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
			err = push_stack(r, cs, st, cs->active[i]);
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
	uint32_t i;
	int err;

	if (!cs->seen)
		return 0;
	/* off every stack: what was pushed until now is skipped when popped */
	err = set_destroyed(r, cs, obj, ++cs->clock);
	if (err)
		return err;
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
	return index_snap(r, r->nsnaps - 1);
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
	struct cslice **open = NULL; /* the open slices, outermost first: no depth cap */
	uint32_t i, depth = 0, open_cap = 0;
	int err = 0;

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
		if (pc_grow(r->ctx, (void **)&open, sizeof(*open), &open_cap, (size_t)depth + 1)) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		open[depth++] = v[i];
	}
	pc_free(r->ctx, open);
	pc_free(r->ctx, v);
	return err;
}

static int order_cmp(const void *a, const void *b)
{
	const struct cslice *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* --- R8: the objects charged --- */

/*
 * Scratch for targets(), sized by the object count: generation marks make
 * every step linear in the chains walked (no depth or set-size caps).
 */
struct bscratch {
	uint32_t nobj;
	uint32_t *mark, *pos;	      /* chain(): on the chain being built, and where */
	uint32_t *cmark, *cnt;	      /* targets(): chains through each object */
	uint32_t *rmark, *rfirst, *rn; /* targets(): per root, its first member and count */
	uint32_t gen, cgen;
	uint32_t *buf, nbuf, buf_cap;		/* the chains, one after another */
	uint32_t *objs, *off, *len, objs_cap, off_cap, len_cap;
	uint32_t *out, out_cap;
	uint64_t cycles; /* slices and samples whose objects' parents formed a cycle */
};

static int bscratch_init(struct rd *r, struct bscratch *bs)
{
	size_t n = (size_t)r->m->contexts.nobj + 1;

	memset(bs, 0, sizeof(*bs));
	bs->nobj = r->m->contexts.nobj;
	bs->mark = pc_calloc(r->ctx, n, sizeof(uint32_t));
	bs->pos = pc_calloc(r->ctx, n, sizeof(uint32_t));
	bs->cmark = pc_calloc(r->ctx, n, sizeof(uint32_t));
	bs->cnt = pc_calloc(r->ctx, n, sizeof(uint32_t));
	bs->rmark = pc_calloc(r->ctx, n, sizeof(uint32_t));
	bs->rfirst = pc_calloc(r->ctx, n, sizeof(uint32_t));
	bs->rn = pc_calloc(r->ctx, n, sizeof(uint32_t));
	if (!bs->mark || !bs->pos || !bs->cmark || !bs->cnt || !bs->rmark || !bs->rfirst || !bs->rn)
		return PROFCONV_ERR_NOMEM;
	return 0;
}

static void bscratch_free(struct rd *r, struct bscratch *bs)
{
	pc_free(r->ctx, bs->mark);
	pc_free(r->ctx, bs->pos);
	pc_free(r->ctx, bs->cmark);
	pc_free(r->ctx, bs->cnt);
	pc_free(r->ctx, bs->rmark);
	pc_free(r->ctx, bs->rfirst);
	pc_free(r->ctx, bs->rn);
	pc_free(r->ctx, bs->buf);
	pc_free(r->ctx, bs->objs);
	pc_free(r->ctx, bs->off);
	pc_free(r->ctx, bs->len);
	pc_free(r->ctx, bs->out);
}

/* A fresh generation for marks (cleared when the counter wraps). */
static uint32_t next_gen(uint32_t *gen, uint32_t *marks, uint32_t nobj)
{
	if (++*gen == 0) {
		memset(marks, 0, ((size_t)nobj + 1) * sizeof(*marks));
		*gen = 1;
	}
	return *gen;
}

/* The parent of obj at time ts (the snapshot in effect), or PC_NONE. */
static uint32_t parent_at(const struct rd *r, uint32_t obj, int64_t ts)
{
	uint32_t sn = snap_at(r, obj, ts, 0);

	return sn == PC_NONE ? PC_NONE : r->snaps[sn].parent;
}

/*
 * obj and its ancestors at ts, obj first, appended to bs->buf; returns the
 * count, or UINT32_MAX out of memory.  Parents that run in a cycle are cut
 * at the cycle's first-made object (the lowest row), which is then the
 * root: every chain into the cycle ends there, so its objects still share
 * one tree and are charged once; *cycle is set.
 */
static uint32_t chain(struct rd *r, struct bscratch *bs, uint32_t obj, int64_t ts, int *cycle)
{
	uint32_t start = bs->nbuf, gen = next_gen(&bs->gen, bs->mark, bs->nobj);

	while (obj != PC_NONE && obj < bs->nobj) {
		if (bs->mark[obj] == gen) {
			uint32_t k, lo = start + bs->pos[obj];

			for (k = lo + 1; k < bs->nbuf; k++)
				if (bs->buf[k] < bs->buf[lo])
					lo = k;
			bs->nbuf = lo + 1;
			*cycle = 1;
			break;
		}
		if (pc_grow(r->ctx, (void **)&bs->buf, sizeof(*bs->buf), &bs->buf_cap,
			    (size_t)bs->nbuf + 1))
			return UINT32_MAX;
		bs->mark[obj] = gen;
		bs->pos[obj] = bs->nbuf - start;
		bs->buf[bs->nbuf++] = obj;
		obj = parent_at(r, obj, ts);
	}
	return bs->nbuf - start;
}

/*
 * The objects slice s is charged to (R8) into bs->out, in the order of the
 * first member of each tree; returns the count, or UINT32_MAX out of memory.
 * Per tree, the lowest common ancestor of its members: the deepest object
 * on the first member's chain that every member's chain passes through.
 */
static uint32_t targets(struct rd *r, struct bscratch *bs, const struct cslice *s)
{
	const uint32_t *members;
	uint32_t nobjs = 0, nm, i, k, nout = 0, gen;
	int cycle = 0;

	nm = s->set == PC_NONE ? 0 : pc_ctxset_members(r->m, s->set, &members);
	if (!nm)
		return 0;
	if (pc_grow(r->ctx, (void **)&bs->objs, sizeof(*bs->objs), &bs->objs_cap, nm) ||
	    pc_grow(r->ctx, (void **)&bs->off, sizeof(*bs->off), &bs->off_cap, nm) ||
	    pc_grow(r->ctx, (void **)&bs->len, sizeof(*bs->len), &bs->len_cap, nm) ||
	    pc_grow(r->ctx, (void **)&bs->out, sizeof(*bs->out), &bs->out_cap, nm))
		return UINT32_MAX;
	gen = next_gen(&bs->gen, bs->mark, bs->nobj);
	for (i = 0; i < nm; i++) {
		uint32_t o = ctx_obj(r, members[i]);

		if (o >= bs->nobj || bs->mark[o] == gen)
			continue;
		bs->mark[o] = gen;
		bs->objs[nobjs++] = o;
	}
	bs->nbuf = 0;
	for (i = 0; i < nobjs; i++) {
		bs->off[i] = bs->nbuf;
		bs->len[i] = chain(r, bs, bs->objs[i], s->start, &cycle);
		if (bs->len[i] == UINT32_MAX)
			return UINT32_MAX;
	}
	if (cycle)
		bs->cycles++;
	/* per root: its first member and how many members it has */
	gen = next_gen(&bs->cgen, bs->rmark, bs->nobj);
	if (gen == 1)
		memset(bs->cmark, 0, ((size_t)bs->nobj + 1) * sizeof(*bs->cmark));
	for (i = 0; i < nobjs; i++) {
		uint32_t root = bs->buf[bs->off[i] + bs->len[i] - 1];

		if (bs->rmark[root] != gen) {
			bs->rmark[root] = gen;
			bs->rfirst[root] = i;
			bs->rn[root] = 0;
		}
		bs->rn[root]++;
	}
	/* how many members' chains pass through each object (trees are disjoint) */
	for (i = 0; i < nobjs; i++)
		for (k = 0; k < bs->len[i]; k++) {
			uint32_t o = bs->buf[bs->off[i] + k];

			if (bs->cmark[o] != gen) {
				bs->cmark[o] = gen;
				bs->cnt[o] = 0;
			}
			bs->cnt[o]++;
		}
	for (i = 0; i < nobjs; i++) {
		uint32_t root = bs->buf[bs->off[i] + bs->len[i] - 1];

		if (bs->rfirst[root] != i)
			continue;
		for (k = 0; k < bs->len[i] && bs->cnt[bs->buf[bs->off[i] + k]] != bs->rn[root]; k++)
			;
		bs->out[nout++] = bs->buf[bs->off[i] + (k < bs->len[i] ? k : bs->len[i] - 1)];
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

/* Totals with a hash of their keys (slot: row + 1, 0 empty). */
struct tally {
	struct total *tt;
	uint32_t n, cap;
	uint32_t *slot, nslot; /* a power of two, over twice n */
};

static int add_total(struct rd *r, struct tally *t, const char *key, int64_t ns)
{
	size_t klen = strlen(key);
	uint32_t h, i;

	if ((size_t)t->n * 2 + 2 > t->nslot) {
		uint32_t ns2 = t->nslot ? t->nslot * 2 : 64, *sl;

		if (ns2 <= t->nslot)
			return pc_fail(r->ctx, PROFCONV_ERR_LIMIT, NULL, "too many blame totals");
		sl = pc_calloc(r->ctx, ns2, sizeof(*sl));
		if (!sl)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < t->n; i++) {
			h = (uint32_t)pc_hash_bytes(t->tt[i].key, strlen(t->tt[i].key), 0) & (ns2 - 1);
			while (sl[h])
				h = (h + 1) & (ns2 - 1);
			sl[h] = i + 1;
		}
		pc_free(r->ctx, t->slot);
		t->slot = sl;
		t->nslot = ns2;
	}
	h = (uint32_t)pc_hash_bytes(key, klen, 0) & (t->nslot - 1);
	for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (strcmp(t->tt[t->slot[h] - 1].key, key) == 0) {
			t->tt[t->slot[h] - 1].ns += ns;
			return 0;
		}
	if (pc_grow(r->ctx, (void **)&t->tt, sizeof(*t->tt), &t->cap, (size_t)t->n + 1))
		return PROFCONV_ERR_NOMEM;
	t->tt[t->n].key = pc_strdup(r->ctx, key);
	t->tt[t->n].ns = ns;
	if (!t->tt[t->n].key)
		return PROFCONV_ERR_NOMEM;
	t->slot[h] = ++t->n;
	return 0;
}

static void tally_free(struct rd *r, struct tally *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		pc_free(r->ctx, t->tt[i].key);
	pc_free(r->ctx, t->tt);
	pc_free(r->ctx, t->slot);
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

	if (n) /* never qsort(NULL, 0): a trace without slices */
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
	uint32_t *sets = NULL, sets_cap = 0, *ctxs = NULL, ctxs_cap = 0;
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
			if (!err && pc_grow(r->ctx, (void **)&ctxs, sizeof(*ctxs), &ctxs_cap,
					    (size_t)nactive + 1))
				err = PROFCONV_ERR_NOMEM;
			if (!err) {
				for (k = 0; k < nactive; k++)
					ctxs[k] = r->acts[active[k]].ctx;
				sets[ord[i].i] = pc_ctxset_intern(r->m, ctxs, nactive);
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
	pc_free(r->ctx, ctxs);
	return err;
}

/* The real samples charged to each context object by the slices' rules; 0 samples: none. */
static int sample_totals(struct rd *r, struct bscratch *bs, struct tally *tot, uint64_t *nsamples)
{
	uint32_t th, i, a;
	int err = 0;

	*nsamples = 0;
	for (th = 0; th < r->nth && !err; th++) {
		const struct pc_samples *sm = &r->th[th].t->samples;

		if (!r->th[th].has_real_samples)
			continue;
		for (i = 0; i < sm->len && !err; i++) {
			struct cslice s;
			uint32_t ntg;
			char txt[256];

			memset(&s, 0, sizeof(s));
			s.set = sm->context_set ? sm->context_set[i] : PC_NONE;
			s.start = sm->time[i];
			ntg = targets(r, bs, &s);
			if (ntg == UINT32_MAX)
				return PROFCONV_ERR_NOMEM;
			(*nsamples)++;
			if (!ntg)
				err = add_total(r, tot, "(none)", 1);
			for (a = 0; a < ntg && !err; a++) {
				obj_text(r, bs->out[a], txt, sizeof(txt));
				err = add_total(r, tot, txt, 1);
			}
		}
	}
	if (tot->n)
		qsort(tot->tt, tot->n, sizeof(*tot->tt), total_cmp);
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

/*
 * The merged group name of root: its members' names, sorted, joined by +.
 * head/next: the objects of each root, as lists.
 */
static char *group_name(struct rd *r, uint32_t root, const uint32_t *head, const uint32_t *next)
{
	char **mem = NULL, *name = NULL;
	uint32_t n = 0, cap = 0, k, o;
	size_t len = 0, at = 0;
	int err = 0;

	for (o = head[root]; o != PC_NONE && !err; o = next[o]) {
		char one[256];

		obj_text(r, o, one, sizeof(one));
		if (pc_grow(r->ctx, (void **)&mem, sizeof(*mem), &cap, (size_t)n + 1) ||
		    !(mem[n] = pc_strdup(r->ctx, one)))
			err = 1;
		else
			len += strlen(mem[n++]) + 1;
	}
	if (!err && n)
		name = pc_alloc(r->ctx, len);
	if (name) {
		qsort(mem, n, sizeof(*mem), str_cmp);
		for (k = 0; k < n; k++) {
			size_t l = strlen(mem[k]);

			if (k)
				name[at++] = '+';
			memcpy(name + at, mem[k], l);
			at += l;
		}
		name[at] = 0;
	}
	for (k = 0; k < n; k++)
		pc_free(r->ctx, mem[k]);
	pc_free(r->ctx, mem);
	return name;
}

int pc_chrome_blame_finish(struct rd *r)
{
	struct pc_text_out *o = r->blame;
	const struct pc_context_tables *t = &r->m->contexts;
	struct tally tot, mer, smp;
	struct bscratch bs;
	uint32_t i, *uf = NULL, *head = NULL, *next = NULL, *sorted = NULL, sorted_cap = 0;
	uint64_t nsamples = 0;
	char **names = NULL;
	int err;

	if (!o)
		return 0;
	memset(&tot, 0, sizeof(tot));
	memset(&mer, 0, sizeof(mer));
	memset(&smp, 0, sizeof(smp));
	err = self_times(r);
	if (err)
		return err;
	/* listed in file order of their X or B event */
	if (r->ncslices)
		qsort(r->cslices, r->ncslices, sizeof(*r->cslices), order_cmp);
	err = bscratch_init(r, &bs);
	uf = pc_alloc(r->ctx, ((size_t)t->nobj + 1) * sizeof(*uf));
	head = pc_alloc(r->ctx, ((size_t)t->nobj + 1) * sizeof(*head));
	next = pc_alloc(r->ctx, ((size_t)t->nobj + 1) * sizeof(*next));
	names = pc_calloc(r->ctx, (size_t)t->nobj + 1, sizeof(*names));
	if (err || !uf || !head || !next || !names) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < t->nobj; i++)
		uf[i] = i;
	for (i = 0; i < r->nsnaps; i++)
		if (r->snaps[i].sibling != PC_NONE && r->snaps[i].sibling < t->nobj)
			uf[uf_find(uf, r->snaps[i].obj)] = uf_find(uf, r->snaps[i].sibling);
	/* each group's objects, as a list per root (in row order) */
	for (i = 0; i < t->nobj; i++)
		head[i] = PC_NONE;
	for (i = t->nobj; i-- > 0;) {
		uint32_t root = uf_find(uf, i);

		next[i] = head[root];
		head[root] = i;
	}
	if (r->blame_json)
		pc_text_printf(o, "{\n  \"slices\": [");
	else
		pc_text_printf(o, "[slices]\n");
	for (i = 0; i < r->ncslices && !err; i++) {
		const struct cslice *s = &r->cslices[i];
		const uint32_t *members;
		uint32_t nm = s->set == PC_NONE ? 0 : pc_ctxset_members(r->m, s->set, &members);
		uint32_t ntg, a, b;
		char txt[256], esc[2048];

		/* the set, sorted by (type, scope, id, pid) for the listing */
		if (pc_grow(r->ctx, (void **)&sorted, sizeof(*sorted), &sorted_cap, (size_t)nm + 1)) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		for (a = 0; a < nm; a++)
			sorted[a] = members[a];
		for (a = 1; a < nm; a++)
			for (b = a; b > 0 && ctx_cmp_r(r, sorted[b - 1], sorted[b]) > 0; b--) {
				uint32_t x = sorted[b];

				sorted[b] = sorted[b - 1];
				sorted[b - 1] = x;
			}
		ntg = targets(r, &bs, s);
		if (ntg == UINT32_MAX) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
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
			for (a = 0; a < nm; a++) {
				obj_text(r, t->ctx_obj[sorted[a]], txt, sizeof(txt));
				pc_text_printf(o, "%s%s/%s", a ? ", " : "", t->ctx_type[sorted[a]], txt);
			}
			pc_text_printf(o, "} -> ");
		}
		if (!ntg) {
			err = add_total(r, &tot, "(none)", s->self);
			if (!err)
				err = add_total(r, &mer, "(none)", s->self);
			pc_text_printf(o, r->blame_json ? "\"(none)\"" : "(none)");
		}
		for (a = 0; a < ntg && !err; a++) {
			uint32_t root = uf_find(uf, bs.out[a]);

			obj_text(r, bs.out[a], txt, sizeof(txt));
			pc_text_printf(o, r->blame_json ? "%s\"%s\"" : "%s%s", a ? ", " : "",
				       r->blame_json ? jesc(txt, esc, sizeof(esc)) : txt);
			err = add_total(r, &tot, txt, s->self);
			if (!err && !names[root] && !(names[root] = group_name(r, root, head, next)))
				err = PROFCONV_ERR_NOMEM;
			if (!err)
				err = add_total(r, &mer, names[root], s->self);
		}
		pc_text_printf(o, r->blame_json ? "]}" : "\n");
	}
	if (!err)
		err = sample_totals(r, &bs, &smp, &nsamples);
	if (!err && bs.cycles)
		err = pc_warn_n(r->ctx, "context parent cycles", bs.cycles, NULL,
				"%s: %llu slices or samples have context objects whose snapshots' parents form a cycle; each cycle was cut at its first-seen object, which was charged as the root",
				r->name, (unsigned long long)bs.cycles);
	if (!err) {
		if (r->blame_json) {
			pc_text_printf(o, "\n  ],\n");
			print_totals(o, tot.tt, tot.n, 1, "totals", 0);
			print_totals(o, mer.tt, mer.n, 1, "merged_totals", nsamples == 0);
			if (nsamples)
				print_sample_totals(r, smp.tt, smp.n);
			pc_text_printf(o, "}\n");
		} else {
			pc_text_printf(o, "[totals]\n");
			print_totals(o, tot.tt, tot.n, 0, NULL, 0);
			pc_text_printf(o, "[merged-totals]\n");
			print_totals(o, mer.tt, mer.n, 0, NULL, 1);
			if (nsamples)
				print_sample_totals(r, smp.tt, smp.n);
		}
		if (o->err)
			err = pc_fail(r->ctx, PROFCONV_ERR_IO, NULL, "writing the attribution failed");
	}
out:
	tally_free(r, &tot);
	tally_free(r, &mer);
	tally_free(r, &smp);
	bscratch_free(r, &bs);
	for (i = 0; names && i < t->nobj; i++)
		pc_free(r->ctx, names[i]);
	pc_free(r->ctx, names);
	pc_free(r->ctx, uf);
	pc_free(r->ctx, head);
	pc_free(r->ctx, next);
	pc_free(r->ctx, sorted);
	return err;
}

void pc_chrome_ctx_free(struct rd *r)
{
	uint32_t i, k;

	pc_free(r->ctx, r->acts);

	for (i = 0; r->cs && i < r->nth; i++) {
		for (k = 0; k < r->cs[i].nstacks; k++) {
			pc_free(r->ctx, r->cs[i].stacks[k].items);
			pc_free(r->ctx, r->cs[i].stacks[k].seq);
		}
		pc_free(r->ctx, r->cs[i].dobj);
		pc_free(r->ctx, r->cs[i].dseq);
		pc_free(r->ctx, r->cs[i].stacks);
		pc_free(r->ctx, r->cs[i].active);
		pc_free(r->ctx, r->cs[i].since);
	}
	pc_free(r->ctx, r->cs);
	pc_free(r->ctx, r->cslices);
	pc_free(r->ctx, r->snaps);
	for (i = 0; r->cx && i < r->cx->nper; i++) {
		pc_free(r->ctx, r->cx->per[i].all);
		pc_free(r->ctx, r->cx->per[i].url);
	}
	if (r->cx)
		pc_free(r->ctx, r->cx->per);
	pc_free(r->ctx, r->cx);
	r->cx = NULL;
}
