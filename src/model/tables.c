/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tables.c - the model's format-neutral tables beyond the v70 columns:
 * processes and their lib mappings, the (pid, tid) thread index, counters,
 * pages, FrameBlamer contexts, optional sample columns and paused ranges.
 *
 * Rows are insertion-ordered (deterministic output); the hash indexes are
 * pc_itab over the rows' own columns, as in model.c.
 */
#include "model/pc_model.h"

#include <stdlib.h>

/* --- processes --- */

static int pid_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_process_table *t = table;

	return t->rows[row].pid == *(const int64_t *)key;
}

static uint32_t pid_hash(int64_t pid)
{
	return (uint32_t)pc_hash64((uint64_t)pid);
}

uint32_t pc_process_find(const struct pc_model *m, int64_t pid)
{
	uint32_t slot;

	return pc_itab_find(&m->processes.index, pid_hash(pid), pid_eq, &m->processes, &pid, &slot);
}

uint32_t pc_process_add(struct pc_model *m, int64_t pid)
{
	struct pc_process_table *t = &m->processes;
	struct pc_process *p;
	uint32_t slot;

	if (pc_itab_find(&t->index, pid_hash(pid), pid_eq, t, &pid, &slot) != PC_NONE) {
		pc_fail(m->ctx, PROFCONV_ERR_INTERNAL, NULL, "process %lld added twice",
			(long long)pid);
		return PC_NONE;
	}
	if (t->len == UINT32_MAX - 1 ||
	    pc_grow(m->ctx, (void **)&t->rows, sizeof(*t->rows), &t->cap, (size_t)t->len + 1))
		return PC_NONE;
	p = &t->rows[t->len];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->type = "default";
	p->start = PC_NO_TIME;
	p->end = PC_NO_TIME;
	p->main_thread = PC_NONE;
	p->more = PC_NONE;
	if (pc_itab_insert(m->ctx, &t->index, slot, pid_hash(pid), t->len))
		return PC_NONE;
	return t->len++;
}

uint32_t pc_process_get(struct pc_model *m, int64_t pid)
{
	uint32_t r = pc_process_find(m, pid);

	return r != PC_NONE ? r : pc_process_add(m, pid);
}

int pc_process_add_mapping(struct pc_model *m, uint32_t proc, uint32_t lib, uint64_t start,
			   uint64_t end, uint64_t offset)
{
	struct pc_process *p = &m->processes.rows[proc];
	struct pc_mapping *mp;

	if (pc_grow(m->ctx, (void **)&p->maps, sizeof(*p->maps), &p->maps_cap,
		    (size_t)p->nmaps + 1))
		return PROFCONV_ERR_NOMEM;
	mp = &p->maps[p->nmaps++];
	mp->lib = lib;
	mp->start = start;
	mp->end = end;
	mp->offset = offset;
	return 0;
}

/* Insertion sort: mappings arrive nearly sorted, and it is stable. */
int pc_process_sort_maps(struct pc_model *m, uint32_t proc)
{
	struct pc_process *p = &m->processes.rows[proc];
	uint32_t i, j;

	for (i = 1; i < p->nmaps; i++) {
		struct pc_mapping x = p->maps[i];

		for (j = i; j > 0 && p->maps[j - 1].start > x.start; j--)
			p->maps[j] = p->maps[j - 1];
		p->maps[j] = x;
	}
	return 0;
}

/* --- the (pid, tid) thread index --- */

struct tid_key {
	int64_t pid, tid;
};

static int tid_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_model *m = table;
	const struct tid_key *k = key;

	return m->threads[row]->pid == k->pid && m->threads[row]->tid == k->tid;
}

static uint32_t tid_hash(int64_t pid, int64_t tid)
{
	return (uint32_t)pc_hash64((uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ (uint64_t)tid);
}

/* Index thread t (about to be row idx); a second thread with the same
 * (pid, tid) is allowed (a tid reused) and lookups find the first. */
int pc_thread_index_add(struct pc_model *m, const struct pc_thread *t, uint32_t idx)
{
	struct tid_key k = { t->pid, t->tid };
	uint32_t slot, h = tid_hash(t->pid, t->tid);

	if (pc_itab_find(&m->thread_index, h, tid_eq, m, &k, &slot) != PC_NONE)
		return 0;
	return pc_itab_insert(m->ctx, &m->thread_index, slot, h, idx);
}

int pc_thread_set_ids(struct pc_model *m, struct pc_thread *t, int64_t pid, int64_t tid)
{
	uint32_t idx = pc_thread_index(m, t), i;
	int reindex = t->process != PC_NONE;
	int err = 0;

	if (idx == PC_NONE)
		return pc_fail(m->ctx, PROFCONV_ERR_INTERNAL, NULL, "thread not in the model");
	t->pid = pid;
	t->tid = tid;
	t->process = pc_process_get(m, pid);
	if (t->process == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	if (reindex) { /* ids changed: the index is rebuilt from the rows */
		pc_itab_free(m->ctx, &m->thread_index);
		for (i = 0; i < m->nthreads && !err; i++)
			if (m->threads[i]->process != PC_NONE)
				err = pc_thread_index_add(m, m->threads[i], i);
	} else {
		err = pc_thread_index_add(m, t, idx);
	}
	if (!err && tid == pid && m->processes.rows[t->process].main_thread == PC_NONE)
		m->processes.rows[t->process].main_thread = idx;
	return err;
}

struct pc_thread *pc_thread_find(const struct pc_model *m, int64_t pid, int64_t tid)
{
	struct tid_key k = { pid, tid };
	uint32_t slot, r;

	r = pc_itab_find(&m->thread_index, tid_hash(pid, tid), tid_eq, m, &k, &slot);
	return r == PC_NONE ? NULL : m->threads[r];
}

uint32_t pc_thread_index(const struct pc_model *m, const struct pc_thread *t)
{
	uint32_t i;

	for (i = 0; i < m->nthreads; i++)
		if (m->threads[i] == t)
			return i;
	return PC_NONE;
}

int pc_thread_add_paused(struct pc_model *m, struct pc_thread *t, int64_t start, int64_t end,
			 const char *reason)
{
	struct pc_paused_range *r;
	const char *kept = NULL;

	if (reason) {
		kept = pc_model_keep(m, reason, strlen(reason));
		if (!kept)
			return PROFCONV_ERR_NOMEM;
	}
	if (pc_grow(m->ctx, (void **)&t->paused, sizeof(*t->paused), &t->paused_cap,
		    (size_t)t->npaused + 1))
		return PROFCONV_ERR_NOMEM;
	r = &t->paused[t->npaused++];
	r->start = start;
	r->end = end;
	r->reason = kept;
	return 0;
}

/* --- optional sample columns --- */

/* Allocate an optional column at the samples' capacity, rows filled with none. */
static int opt_col64(struct pc_model *m, struct pc_samples *s, int64_t **col, int64_t none)
{
	uint32_t i;

	if (*col)
		return 0;
	*col = pc_alloc(m->ctx, (size_t)(s->cap ? s->cap : 1) * sizeof(**col));
	if (!*col)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < s->len; i++)
		(*col)[i] = none;
	return 0;
}

static int last_row(struct pc_model *m, const struct pc_samples *s)
{
	if (!s->len)
		return pc_fail(m->ctx, PROFCONV_ERR_INTERNAL, NULL,
			       "sample column set before any sample");
	return 0;
}

int pc_sample_set_cpu_delta(struct pc_model *m, struct pc_thread *t, int64_t delta)
{
	struct pc_samples *s = &t->samples;
	int err = last_row(m, s);

	if (!err)
		err = opt_col64(m, s, &s->cpu_delta, INT64_MIN);
	if (!err)
		s->cpu_delta[s->len - 1] = delta;
	return err;
}

int pc_sample_set_event_delay(struct pc_model *m, struct pc_thread *t, int64_t delay_ns)
{
	struct pc_samples *s = &t->samples;
	int err = last_row(m, s);

	if (!err)
		err = opt_col64(m, s, &s->event_delay, PC_NO_TIME);
	if (!err)
		s->event_delay[s->len - 1] = delay_ns;
	return err;
}

int pc_sample_set_context_set(struct pc_model *m, struct pc_thread *t, uint32_t set)
{
	struct pc_samples *s = &t->samples;
	int err = last_row(m, s);
	uint32_t i;

	if (err)
		return err;
	if (!s->context_set) {
		s->context_set = pc_alloc(m->ctx, (size_t)s->cap * sizeof(*s->context_set));
		if (!s->context_set)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < s->len; i++)
			s->context_set[i] = PC_NONE;
	}
	s->context_set[s->len - 1] = set;
	return 0;
}

/* --- counters --- */

static const char *keep_or_null(struct pc_model *m, const char *s, int *err)
{
	const char *d;

	if (!s)
		return NULL;
	d = pc_model_keep(m, s, strlen(s));
	if (!d)
		*err = PROFCONV_ERR_NOMEM;
	return d;
}

uint32_t pc_counter_add(struct pc_model *m, const char *name, const char *category,
			const char *description, uint32_t process)
{
	struct pc_counter_table *t = &m->counters;
	struct pc_counter *c;
	int err = 0;

	if (pc_grow(m->ctx, (void **)&t->rows, sizeof(*t->rows), &t->cap, (size_t)t->len + 1))
		return PC_NONE;
	c = &t->rows[t->len];
	memset(c, 0, sizeof(*c));
	c->name = keep_or_null(m, name ? name : "", &err);
	c->category = keep_or_null(m, category ? category : "", &err);
	c->description = keep_or_null(m, description ? description : "", &err);
	c->process = process;
	c->main_thread = process != PC_NONE ? m->processes.rows[process].main_thread : PC_NONE;
	c->display = PC_NONE;
	if (err)
		return PC_NONE;
	return t->len++;
}

int pc_counter_sample(struct pc_model *m, uint32_t counter, int64_t time, double count,
		      int has_number, double number)
{
	struct pc_counter *c = &m->counters.rows[counter];

	if (c->len == c->cap) {
		uint32_t cap = c->cap, cap2 = c->cap, cap3 = c->cap;

		if (pc_grow(m->ctx, (void **)&c->time, sizeof(*c->time), &cap, (size_t)c->len + 1) ||
		    pc_grow(m->ctx, (void **)&c->count, sizeof(*c->count), &cap2,
			    (size_t)c->len + 1) ||
		    (c->number && pc_grow(m->ctx, (void **)&c->number, sizeof(*c->number), &cap3,
					  (size_t)c->len + 1)))
			return PROFCONV_ERR_NOMEM;
		c->cap = cap;
		if (cap2 != cap || (c->number && cap3 != cap))
			return pc_fail(m->ctx, PROFCONV_ERR_INTERNAL, NULL, "counter columns out of step");
	}
	if (has_number && !c->number) {
		uint32_t i;

		c->number = pc_alloc(m->ctx, (size_t)c->cap * sizeof(*c->number));
		if (!c->number)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < c->len; i++)
			c->number[i] = 0;
	}
	c->time[c->len] = time;
	c->count[c->len] = count;
	if (c->number)
		c->number[c->len] = has_number ? number : 0;
	c->len++;
	return 0;
}

/* --- pages --- */

uint32_t pc_page_add(struct pc_model *m, const struct pc_page *p)
{
	struct pc_page_table *t = &m->pages;
	struct pc_page *d;
	int err = 0;

	if (pc_grow(m->ctx, (void **)&t->rows, sizeof(*t->rows), &t->cap, (size_t)t->len + 1))
		return PC_NONE;
	d = &t->rows[t->len];
	*d = *p;
	d->url = keep_or_null(m, p->url ? p->url : "", &err);
	d->favicon = keep_or_null(m, p->favicon, &err);
	if (err)
		return PC_NONE;
	return t->len++;
}

/* --- contexts --- */

struct obj_key {
	const char *scope, *id;
	int64_t pid;
};

static int obj_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_context_tables *t = table;
	const struct obj_key *k = key;

	return t->obj_pid[row] == k->pid && strcmp(t->obj_scope[row], k->scope) == 0 &&
	       strcmp(t->obj_id[row], k->id) == 0;
}

static uint32_t obj_hash(const struct obj_key *k)
{
	uint64_t h = pc_hash_bytes(k->scope, strlen(k->scope), (uint64_t)k->pid);

	return (uint32_t)pc_hash_bytes(k->id, strlen(k->id), h);
}

uint32_t pc_ctxobj_intern(struct pc_model *m, const char *scope, const char *id, int64_t pid)
{
	struct pc_context_tables *t = &m->contexts;
	struct obj_key k = { scope, id, pid };
	uint32_t h = obj_hash(&k), slot, r, cap;
	int err = 0;

	r = pc_itab_find(&t->obj_index, h, obj_eq, t, &k, &slot);
	if (r != PC_NONE)
		return r;
	cap = t->obj_cap;
	if (pc_grow(m->ctx, (void **)&t->obj_scope, sizeof(*t->obj_scope), &cap,
		    (size_t)t->nobj + 1))
		return PC_NONE;
	cap = t->obj_cap;
	if (pc_grow(m->ctx, (void **)&t->obj_id, sizeof(*t->obj_id), &cap, (size_t)t->nobj + 1))
		return PC_NONE;
	cap = t->obj_cap;
	if (pc_grow(m->ctx, (void **)&t->obj_pid, sizeof(*t->obj_pid), &cap, (size_t)t->nobj + 1))
		return PC_NONE;
	t->obj_cap = cap;
	t->obj_scope[t->nobj] = keep_or_null(m, scope, &err);
	t->obj_id[t->nobj] = keep_or_null(m, id, &err);
	t->obj_pid[t->nobj] = pid;
	if (err || pc_itab_insert(m->ctx, &t->obj_index, slot, h, t->nobj))
		return PC_NONE;
	return t->nobj++;
}

struct ctx_key {
	const char *type;
	uint32_t obj;
};

static int ctx_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_context_tables *t = table;
	const struct ctx_key *k = key;

	return t->ctx_obj[row] == k->obj && strcmp(t->ctx_type[row], k->type) == 0;
}

uint32_t pc_context_intern(struct pc_model *m, const char *type, uint32_t obj)
{
	struct pc_context_tables *t = &m->contexts;
	struct ctx_key k = { type, obj };
	uint32_t h = (uint32_t)pc_hash_bytes(type, strlen(type), obj), slot, r, cap;
	int err = 0;

	r = pc_itab_find(&t->ctx_index, h, ctx_eq, t, &k, &slot);
	if (r != PC_NONE)
		return r;
	cap = t->ctx_cap;
	if (pc_grow(m->ctx, (void **)&t->ctx_type, sizeof(*t->ctx_type), &cap,
		    (size_t)t->nctx + 1))
		return PC_NONE;
	cap = t->ctx_cap;
	if (pc_grow(m->ctx, (void **)&t->ctx_obj, sizeof(*t->ctx_obj), &cap, (size_t)t->nctx + 1))
		return PC_NONE;
	t->ctx_cap = cap;
	t->ctx_type[t->nctx] = keep_or_null(m, type, &err);
	t->ctx_obj[t->nctx] = obj;
	if (err || pc_itab_insert(m->ctx, &t->ctx_index, slot, h, t->nctx))
		return PC_NONE;
	return t->nctx++;
}

struct set_key {
	const uint32_t *v;
	uint32_t n;
};

static int set_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_context_tables *t = table;
	const struct set_key *k = key;
	uint32_t n = t->set_start[row + 1] - t->set_start[row];

	return n == k->n && (!n || memcmp(t->set_members + t->set_start[row], k->v,
					  (size_t)n * sizeof(*k->v)) == 0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t set_add(struct pc_model *m, const uint32_t *v, uint32_t n)
{
	struct pc_context_tables *t = &m->contexts;
	struct set_key k = { v, n };
	uint32_t h = (uint32_t)pc_hash_bytes(v, (size_t)n * sizeof(*v), n), slot, r;

	r = pc_itab_find(&t->set_index, h, set_eq, t, &k, &slot);
	if (r != PC_NONE)
		return r;
	/* set_start has nsets + 1 entries: room for one more */
	if (pc_grow(m->ctx, (void **)&t->set_start, sizeof(*t->set_start), &t->sets_cap,
		    (size_t)t->nsets + 2))
		return PC_NONE;
	if (n && pc_grow(m->ctx, (void **)&t->set_members, sizeof(*t->set_members),
			 &t->members_cap, (size_t)t->nmembers + n))
		return PC_NONE;
	if (!t->nsets)
		t->set_start[0] = 0;
	if (n)
		memcpy(t->set_members + t->nmembers, v, (size_t)n * sizeof(*v));
	t->nmembers += n;
	t->set_start[t->nsets + 1] = t->nmembers;
	if (pc_itab_insert(m->ctx, &t->set_index, slot, h, t->nsets))
		return PC_NONE;
	return t->nsets++;
}

uint32_t pc_ctxset_intern(struct pc_model *m, const uint32_t *ctxs, uint32_t n)
{
	uint32_t buf[16], *v = buf, i, k = 0, r;

	if (!m->contexts.nsets && set_add(m, NULL, 0) == PC_NONE) /* set 0: the empty set */
		return PC_NONE;
	if (n > PC_ARRAY_SIZE(buf)) {
		v = pc_alloc(m->ctx, (size_t)n * sizeof(*v));
		if (!v)
			return PC_NONE;
	}
	if (n)
		memcpy(v, ctxs, (size_t)n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	r = set_add(m, v, k);
	if (v != buf)
		pc_free(m->ctx, v);
	return r;
}

uint32_t pc_ctxset_members(const struct pc_model *m, uint32_t set, const uint32_t **members)
{
	const struct pc_context_tables *t = &m->contexts;

	if (set == PC_NONE || set >= t->nsets) {
		*members = NULL;
		return 0;
	}
	*members = t->set_members ? t->set_members + t->set_start[set] : NULL;
	return t->set_start[set + 1] - t->set_start[set];
}

int pc_ctxsnap_add(struct pc_model *m, uint32_t obj, int64_t time, uint32_t props)
{
	struct pc_context_tables *t = &m->contexts;
	uint32_t cap = t->snap_cap;

	if (pc_grow(m->ctx, (void **)&t->snap_obj, sizeof(*t->snap_obj), &cap,
		    (size_t)t->nsnap + 1))
		return PROFCONV_ERR_NOMEM;
	cap = t->snap_cap;
	if (pc_grow(m->ctx, (void **)&t->snap_time, sizeof(*t->snap_time), &cap,
		    (size_t)t->nsnap + 1))
		return PROFCONV_ERR_NOMEM;
	cap = t->snap_cap;
	if (pc_grow(m->ctx, (void **)&t->snap_props, sizeof(*t->snap_props), &cap,
		    (size_t)t->nsnap + 1))
		return PROFCONV_ERR_NOMEM;
	t->snap_cap = cap;
	t->snap_obj[t->nsnap] = obj;
	t->snap_time[t->nsnap] = time;
	t->snap_props[t->nsnap] = props;
	t->nsnap++;
	return 0;
}

/* --- freeing --- */

void pc_model_free_tables(struct pc_model *m)
{
	struct profconv_ctx *ctx = m->ctx;
	struct pc_context_tables *c = &m->contexts;
	uint32_t i;

	pc_itab_free(ctx, &m->thread_index);
	for (i = 0; i < m->processes.len; i++)
		pc_free(ctx, m->processes.rows[i].maps);
	pc_free(ctx, m->processes.rows);
	pc_itab_free(ctx, &m->processes.index);
	pc_free(ctx, m->pv.nodes);
	pc_strtab_free(ctx, &m->pv.text);
	pc_free(ctx, m->schemas.rows);
	for (i = 0; i < m->counters.len; i++) {
		pc_free(ctx, m->counters.rows[i].time);
		pc_free(ctx, m->counters.rows[i].count);
		pc_free(ctx, m->counters.rows[i].number);
	}
	pc_free(ctx, m->counters.rows);
	pc_free(ctx, m->pages.rows);
	pc_free(ctx, c->obj_scope);
	pc_free(ctx, c->obj_id);
	pc_free(ctx, c->obj_pid);
	pc_itab_free(ctx, &c->obj_index);
	pc_free(ctx, c->ctx_type);
	pc_free(ctx, c->ctx_obj);
	pc_itab_free(ctx, &c->ctx_index);
	pc_free(ctx, c->set_start);
	pc_free(ctx, c->set_members);
	pc_itab_free(ctx, &c->set_index);
	pc_free(ctx, c->snap_obj);
	pc_free(ctx, c->snap_time);
	pc_free(ctx, c->snap_props);
	pc_free(ctx, m->meta.extra);
}

/* --- reordering the thread list --- */

struct thread_pos {
	const struct pc_thread *t;
	uint32_t old;
};

static int cmp_pos(const void *a, const void *b)
{
	const struct thread_pos *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

int pc_model_sort_thread_list(struct pc_model *m, int (*cmp)(const void *, const void *))
{
	struct thread_pos *pos;
	uint32_t *map, i;
	int err = 0;

	if (m->nthreads < 2)
		return 0;
	pos = pc_alloc(m->ctx, (size_t)m->nthreads * sizeof(*pos));
	map = pc_alloc(m->ctx, (size_t)m->nthreads * sizeof(*map));
	if (!pos || !map) {
		pc_free(m->ctx, pos);
		pc_free(m->ctx, map);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < m->nthreads; i++) {
		pos[i].t = m->threads[i];
		pos[i].old = i;
	}
	qsort(m->threads, m->nthreads, sizeof(*m->threads), cmp);
	qsort(pos, m->nthreads, sizeof(*pos), cmp_pos);
	for (i = 0; i < m->nthreads; i++) {
		struct thread_pos key = { m->threads[i], 0 }, *f;

		f = bsearch(&key, pos, m->nthreads, sizeof(*pos), cmp_pos);
		map[f->old] = i;
	}
	for (i = 0; i < m->processes.len; i++)
		if (m->processes.rows[i].main_thread != PC_NONE)
			m->processes.rows[i].main_thread = map[m->processes.rows[i].main_thread];
	for (i = 0; i < m->counters.len; i++)
		if (m->counters.rows[i].main_thread != PC_NONE)
			m->counters.rows[i].main_thread = map[m->counters.rows[i].main_thread];
	pc_itab_free(m->ctx, &m->thread_index);
	for (i = 0; i < m->nthreads && !err; i++)
		if (m->threads[i]->process != PC_NONE)
			err = pc_thread_index_add(m, m->threads[i], i);
	pc_free(m->ctx, pos);
	pc_free(m->ctx, map);
	return err;
}

int pc_model_permute_threads(struct pc_model *m, const uint32_t *order)
{
	struct pc_thread **old;
	uint32_t *map, i;
	int err = 0;

	if (m->nthreads < 2)
		return 0;
	old = pc_alloc(m->ctx, (size_t)m->nthreads * sizeof(*old));
	map = pc_alloc(m->ctx, (size_t)m->nthreads * sizeof(*map));
	if (!old || !map) {
		pc_free(m->ctx, old);
		pc_free(m->ctx, map);
		return PROFCONV_ERR_NOMEM;
	}
	memcpy(old, m->threads, (size_t)m->nthreads * sizeof(*old));
	for (i = 0; i < m->nthreads; i++) {
		m->threads[i] = old[order[i]];
		map[order[i]] = i;
	}
	for (i = 0; i < m->processes.len; i++)
		if (m->processes.rows[i].main_thread != PC_NONE)
			m->processes.rows[i].main_thread = map[m->processes.rows[i].main_thread];
	for (i = 0; i < m->counters.len; i++)
		if (m->counters.rows[i].main_thread != PC_NONE)
			m->counters.rows[i].main_thread = map[m->counters.rows[i].main_thread];
	pc_itab_free(m->ctx, &m->thread_index);
	for (i = 0; i < m->nthreads && !err; i++)
		if (m->threads[i]->process != PC_NONE)
			err = pc_thread_index_add(m, m->threads[i], i);
	pc_free(m->ctx, old);
	pc_free(m->ctx, map);
	return err;
}
