/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * api_view.c - the read-only views of a profile (profconv.h): what an
 * importer iterates instead of the model's structs, which stay private and
 * free to change.  Each getter copies a row's cells into a small public
 * struct; strings point into the profile.
 */
#include "core/pc_config.h"

#include "writers/pc_pvemit.h"

#define NONE_STR(s) ((s) ? (s) : "")

static const char *str_or_empty(const struct pc_model *m, uint32_t row)
{
	return row == PC_NONE || row >= m->strings.len ? "" : pc_str(m, row);
}

static const char *category_name(const struct pc_model *m, uint32_t c)
{
	return c < m->ncategories ? NONE_STR(m->categories[c].name) : "";
}

/* A view's struct, filled into the caller's (sized) one. */
#define FILL(out, v) pc_api_fill((out), &(v), sizeof(v), sizeof(v))

PROFCONV_API int profconv_profile_meta(const struct profconv_profile *p, struct profconv_meta *out)
{
	const struct pc_meta *mt;
	struct profconv_meta v, *o = &v;

	if (!p)
		return PROFCONV_ERR_USAGE;
	mt = &p->m.meta;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->input_format = NONE_STR(p->m.reader);
	o->product = NONE_STR(mt->product);
	o->platform = NONE_STR(mt->platform);
	o->oscpu = NONE_STR(mt->oscpu);
	o->interval_ns = mt->interval_ns;
	o->start_time_ns = mt->has_start_time ? mt->start_time_ns : 0;
	o->symbolicated = mt->symbolicated;
	return FILL(out, v);
}

PROFCONV_API size_t profconv_profile_thread_count(const struct profconv_profile *p)
{
	return p ? p->m.nthreads : 0;
}

PROFCONV_API int profconv_profile_thread(const struct profconv_profile *p, size_t i,
					 struct profconv_thread *out)
{
	struct profconv_thread v, *o = &v;
	const struct pc_thread *t;

	if (!p || i >= p->m.nthreads)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	t = p->m.threads[i];
	o->name = str_or_empty(&p->m, t->name);
	o->process_name = t->process < p->m.processes.len
				    ? NONE_STR(p->m.processes.rows[t->process].name)
				    : "";
	o->pid = t->pid;
	o->tid = t->tid;
	o->is_main = t->is_main;
	o->samples = t->samples.len;
	o->markers = t->markers.len;
	return FILL(out, v);
}

PROFCONV_API int profconv_profile_sample(const struct profconv_profile *p, size_t thread,
					 size_t i, struct profconv_sample *out)
{
	struct profconv_sample v, *o = &v;
	const struct pc_samples *s;

	if (!p || thread >= p->m.nthreads || i >= p->m.threads[thread]->samples.len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	s = &p->m.threads[thread]->samples;
	o->time = s->time[i];
	o->stack = s->stack[i];
	o->weight = s->weight ? s->weight[i] : 1;
	return FILL(out, v);
}

PROFCONV_API int profconv_profile_marker(const struct profconv_profile *p, size_t thread,
					 size_t i, struct profconv_marker *out)
{
	struct profconv_marker v, *o = &v;
	const struct pc_markers *mk;

	if (!p || thread >= p->m.nthreads || i >= p->m.threads[thread]->markers.len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	mk = &p->m.threads[thread]->markers;
	o->name = str_or_empty(&p->m, mk->name[i]);
	o->category = category_name(&p->m, mk->category[i]);
	o->start = mk->start[i];
	o->end = mk->end[i];
	o->cause_stack = mk->cause_stack ? mk->cause_stack[i] : PROFCONV_NONE;
	o->has_data = mk->payload[i] != PC_NONE;
	return FILL(out, v);
}

/* A string-table reference in a payload: its text. */
static void view_sref(struct pc_jw *w, const struct pc_model *m, uint32_t row, void *user)
{
	(void)user;
	if (row < m->strings.len)
		pc_jw_str(w, m->strings.ptr[row], m->strings.lens[row]);
	else
		pc_jw_null(w);
}

struct view_cause {
	const struct pc_markers *mk;
	size_t i;
};

/* The cause: {"time": ms, "stack": row}, or null when it has none. */
static void view_cause(struct pc_jw *w, const struct pc_model *m, void *user)
{
	const struct view_cause *c = user;

	(void)m;
	if (!c->mk->cause_stack || c->mk->cause_stack[c->i] == PC_NONE) {
		pc_jw_null(w);
		return;
	}
	pc_jw_obj_begin(w);
	if (c->mk->cause_time && c->mk->cause_time[c->i] != PC_NO_TIME) {
		pc_jw_key(w, "time");
		pc_jw_ns_ms(w, c->mk->cause_time[c->i]);
	}
	pc_jw_key(w, "stack");
	pc_jw_u64(w, c->mk->cause_stack[c->i]);
	pc_jw_obj_end(w);
}

PROFCONV_API int profconv_profile_marker_data(struct profconv_ctx *ctx,
					      const struct profconv_profile *p, size_t thread,
					      size_t i, profconv_write_fn *fn, void *user)
{
	const struct pc_markers *mk;
	struct view_cause vc;
	struct pc_pvemit e = { view_sref, view_cause, &vc };
	struct pc_jw *w;

	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (!p || !fn)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "profconv_profile_marker_data: NULL %s",
			       p ? "callback" : "profile");
	if (thread >= p->m.nthreads || i >= p->m.threads[thread]->markers.len)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "no marker %zu on thread %zu", i,
			       thread);
	mk = &p->m.threads[thread]->markers;
	vc.mk = mk;
	vc.i = i;
	w = pc_jw_new(ctx, fn, user);
	if (!w)
		return PROFCONV_ERR_NOMEM;
	if (mk->payload[i] == PC_NONE)
		pc_jw_null(w);
	else
		pc_pv_emit(w, &p->m, mk->payload[i], &e);
	return pc_jw_finish(w);
}

PROFCONV_API size_t profconv_profile_stack_count(const struct profconv_profile *p)
{
	return p ? p->m.stacks.len : 0;
}

PROFCONV_API int profconv_profile_stack(const struct profconv_profile *p, size_t i,
					struct profconv_stack *out)
{
	struct profconv_stack v, *o = &v;
	if (!p || i >= p->m.stacks.len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->prefix = p->m.stacks.prefix[i];
	o->frame = p->m.stacks.frame[i];
	return FILL(out, v);
}

PROFCONV_API size_t profconv_profile_frame_count(const struct profconv_profile *p)
{
	return p ? p->m.frames.len : 0;
}

PROFCONV_API int profconv_profile_frame(const struct profconv_profile *p, size_t i,
					struct profconv_frame *out)
{
	struct profconv_frame v, *o = &v;
	const struct pc_frame_table *f = &p->m.frames;

	if (!p || i >= f->len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->func = f->func[i];
	o->lib = f->lib[i];
	o->address = f->address[i];
	o->line = f->line[i];
	o->column = f->column[i];
	o->inline_depth = f->inline_depth[i];
	o->category = f->category[i] == UINT16_MAX ? "" : category_name(&p->m, f->category[i]);
	return FILL(out, v);
}

PROFCONV_API size_t profconv_profile_func_count(const struct profconv_profile *p)
{
	return p ? p->m.funcs.len : 0;
}

PROFCONV_API int profconv_profile_func(const struct profconv_profile *p, size_t i,
				       struct profconv_func *out)
{
	struct profconv_func v, *o = &v;
	const struct pc_model *m = &p->m;
	const struct pc_func_table *fn = &m->funcs;

	if (!p || i >= fn->len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->name = str_or_empty(m, fn->name[i]);
	o->file = fn->source[i] < m->sources.len
			    ? str_or_empty(m, m->sources.filename[fn->source[i]])
			    : "";
	o->resource = fn->resource[i] < m->resources.len
				? str_or_empty(m, m->resources.name[fn->resource[i]])
				: "";
	o->line = fn->line[i];
	o->is_js = fn->is_js[i];
	return FILL(out, v);
}

PROFCONV_API const char *profconv_profile_func_name(const struct profconv_profile *p, size_t i)
{
	if (!p || i >= p->m.funcs.len)
		return NULL;
	return pc_str(&p->m, p->m.funcs.name[i]);
}

PROFCONV_API size_t profconv_profile_lib_count(const struct profconv_profile *p)
{
	return p ? p->m.libs.len : 0;
}

PROFCONV_API int profconv_profile_lib(const struct profconv_profile *p, size_t i,
				      struct profconv_lib *out)
{
	struct profconv_lib v, *o = &v;
	const struct pc_lib *l;

	if (!p || i >= p->m.libs.len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	l = &p->m.libs.rows[i];
	o->name = str_or_empty(&p->m, l->name);
	o->path = str_or_empty(&p->m, l->path);
	o->debug_name = str_or_empty(&p->m, l->debug_name);
	o->debug_path = str_or_empty(&p->m, l->debug_path);
	o->breakpad_id = str_or_empty(&p->m, l->breakpad_id);
	o->code_id = str_or_empty(&p->m, l->code_id);
	return FILL(out, v);
}

PROFCONV_API size_t profconv_profile_counter_count(const struct profconv_profile *p)
{
	return p ? p->m.counters.len : 0;
}

PROFCONV_API int profconv_profile_counter(const struct profconv_profile *p, size_t i,
					  struct profconv_counter *out)
{
	struct profconv_counter v, *o = &v;
	const struct pc_counter *c;

	if (!p || i >= p->m.counters.len)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	c = &p->m.counters.rows[i];
	o->name = NONE_STR(c->name);
	o->category = NONE_STR(c->category);
	o->description = NONE_STR(c->description);
	o->pid = c->process < p->m.processes.len ? p->m.processes.rows[c->process].pid : -1;
	o->samples = c->len;
	return FILL(out, v);
}

PROFCONV_API int profconv_profile_counter_sample(const struct profconv_profile *p, size_t i,
						 size_t j, int64_t *time, double *count)
{
	const struct pc_counter *c;

	if (!p || !time || !count || i >= p->m.counters.len || j >= p->m.counters.rows[i].len)
		return PROFCONV_ERR_USAGE;
	c = &p->m.counters.rows[i];
	*time = c->time[j];
	*count = c->count[j];
	return PROFCONV_OK;
}

/* The 0.1 shorthands. */

PROFCONV_API const char *profconv_profile_thread_name(const struct profconv_profile *p, size_t i)
{
	if (!p || i >= p->m.nthreads)
		return NULL;
	return pc_str(&p->m, p->m.threads[i]->name);
}

PROFCONV_API int64_t profconv_profile_thread_pid(const struct profconv_profile *p, size_t i)
{
	return p && i < p->m.nthreads ? p->m.threads[i]->pid : -1;
}

PROFCONV_API int64_t profconv_profile_thread_tid(const struct profconv_profile *p, size_t i)
{
	return p && i < p->m.nthreads ? p->m.threads[i]->tid : -1;
}

PROFCONV_API size_t profconv_profile_sample_count(const struct profconv_profile *p, size_t i)
{
	return p && i < p->m.nthreads ? p->m.threads[i]->samples.len : 0;
}

PROFCONV_API size_t profconv_profile_func_map(const struct profconv_profile *p,
					      const uint32_t **map)
{
	if (!map)
		return 0;
	*map = p ? p->m.func_map : NULL;
	return p ? p->m.func_map_len : 0;
}
