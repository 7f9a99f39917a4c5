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

PROFCONV_API void profconv_profile_meta(const struct profconv_profile *p, struct profconv_meta *out)
{
	const struct pc_meta *mt = &p->m.meta;

	memset(out, 0, sizeof(*out));
	out->input_format = NONE_STR(p->m.reader);
	out->product = NONE_STR(mt->product);
	out->platform = NONE_STR(mt->platform);
	out->oscpu = NONE_STR(mt->oscpu);
	out->interval_ns = mt->interval_ns;
	out->start_time_ns = mt->has_start_time ? mt->start_time_ns : 0;
	out->symbolicated = mt->symbolicated;
}

PROFCONV_API size_t profconv_profile_thread_count(const struct profconv_profile *p)
{
	return p->m.nthreads;
}

PROFCONV_API int profconv_profile_thread(const struct profconv_profile *p, size_t i,
					 struct profconv_thread *out)
{
	const struct pc_thread *t;

	if (i >= p->m.nthreads)
		return PROFCONV_ERR_USAGE;
	t = p->m.threads[i];
	memset(out, 0, sizeof(*out));
	out->name = str_or_empty(&p->m, t->name);
	out->process_name = t->process < p->m.processes.len
				    ? NONE_STR(p->m.processes.rows[t->process].name)
				    : "";
	out->pid = t->pid;
	out->tid = t->tid;
	out->is_main = t->is_main;
	out->samples = t->samples.len;
	out->markers = t->markers.len;
	return PROFCONV_OK;
}

PROFCONV_API int profconv_profile_sample(const struct profconv_profile *p, size_t thread,
					 size_t i, struct profconv_sample *out)
{
	const struct pc_samples *s;

	if (thread >= p->m.nthreads || i >= p->m.threads[thread]->samples.len)
		return PROFCONV_ERR_USAGE;
	s = &p->m.threads[thread]->samples;
	out->time = s->time[i];
	out->stack = s->stack[i];
	out->weight = s->weight ? s->weight[i] : 1;
	return PROFCONV_OK;
}

PROFCONV_API int profconv_profile_marker(const struct profconv_profile *p, size_t thread,
					 size_t i, struct profconv_marker *out)
{
	const struct pc_markers *mk;

	if (thread >= p->m.nthreads || i >= p->m.threads[thread]->markers.len)
		return PROFCONV_ERR_USAGE;
	mk = &p->m.threads[thread]->markers;
	memset(out, 0, sizeof(*out));
	out->name = str_or_empty(&p->m, mk->name[i]);
	out->category = category_name(&p->m, mk->category[i]);
	out->start = mk->start[i];
	out->end = mk->end[i];
	out->cause_stack = mk->cause_stack ? mk->cause_stack[i] : PROFCONV_NONE;
	out->has_data = mk->payload[i] != PC_NONE;
	return PROFCONV_OK;
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

	pc_clear_error(ctx);
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
	return p->m.stacks.len;
}

PROFCONV_API int profconv_profile_stack(const struct profconv_profile *p, size_t i,
					struct profconv_stack *out)
{
	if (i >= p->m.stacks.len)
		return PROFCONV_ERR_USAGE;
	out->prefix = p->m.stacks.prefix[i];
	out->frame = p->m.stacks.frame[i];
	return PROFCONV_OK;
}

PROFCONV_API size_t profconv_profile_frame_count(const struct profconv_profile *p)
{
	return p->m.frames.len;
}

PROFCONV_API int profconv_profile_frame(const struct profconv_profile *p, size_t i,
					struct profconv_frame *out)
{
	const struct pc_frame_table *f = &p->m.frames;

	if (i >= f->len)
		return PROFCONV_ERR_USAGE;
	memset(out, 0, sizeof(*out));
	out->func = f->func[i];
	out->lib = f->lib[i];
	out->address = f->address[i];
	out->line = f->line[i];
	out->column = f->column[i];
	out->inline_depth = f->inline_depth[i];
	out->category = f->category[i] == UINT16_MAX ? "" : category_name(&p->m, f->category[i]);
	return PROFCONV_OK;
}

PROFCONV_API size_t profconv_profile_func_count(const struct profconv_profile *p)
{
	return p->m.funcs.len;
}

PROFCONV_API int profconv_profile_func(const struct profconv_profile *p, size_t i,
				       struct profconv_func *out)
{
	const struct pc_model *m = &p->m;
	const struct pc_func_table *fn = &m->funcs;

	if (i >= fn->len)
		return PROFCONV_ERR_USAGE;
	memset(out, 0, sizeof(*out));
	out->name = str_or_empty(m, fn->name[i]);
	out->file = fn->source[i] < m->sources.len
			    ? str_or_empty(m, m->sources.filename[fn->source[i]])
			    : "";
	out->resource = fn->resource[i] < m->resources.len
				? str_or_empty(m, m->resources.name[fn->resource[i]])
				: "";
	out->line = fn->line[i];
	out->is_js = fn->is_js[i];
	return PROFCONV_OK;
}

PROFCONV_API const char *profconv_profile_func_name(const struct profconv_profile *p, size_t i)
{
	if (i >= p->m.funcs.len)
		return NULL;
	return pc_str(&p->m, p->m.funcs.name[i]);
}

PROFCONV_API size_t profconv_profile_lib_count(const struct profconv_profile *p)
{
	return p->m.libs.len;
}

PROFCONV_API int profconv_profile_lib(const struct profconv_profile *p, size_t i,
				      struct profconv_lib *out)
{
	const struct pc_lib *l;

	if (i >= p->m.libs.len)
		return PROFCONV_ERR_USAGE;
	l = &p->m.libs.rows[i];
	out->name = str_or_empty(&p->m, l->name);
	out->path = str_or_empty(&p->m, l->path);
	out->debug_name = str_or_empty(&p->m, l->debug_name);
	out->debug_path = str_or_empty(&p->m, l->debug_path);
	out->breakpad_id = str_or_empty(&p->m, l->breakpad_id);
	out->code_id = str_or_empty(&p->m, l->code_id);
	return PROFCONV_OK;
}

PROFCONV_API size_t profconv_profile_counter_count(const struct profconv_profile *p)
{
	return p->m.counters.len;
}

PROFCONV_API int profconv_profile_counter(const struct profconv_profile *p, size_t i,
					  struct profconv_counter *out)
{
	const struct pc_counter *c;

	if (i >= p->m.counters.len)
		return PROFCONV_ERR_USAGE;
	c = &p->m.counters.rows[i];
	out->name = NONE_STR(c->name);
	out->category = NONE_STR(c->category);
	out->description = NONE_STR(c->description);
	out->pid = c->process < p->m.processes.len ? p->m.processes.rows[c->process].pid : -1;
	out->samples = c->len;
	return PROFCONV_OK;
}

PROFCONV_API int profconv_profile_counter_sample(const struct profconv_profile *p, size_t i,
						 size_t j, int64_t *time, double *count)
{
	const struct pc_counter *c;

	if (i >= p->m.counters.len || j >= p->m.counters.rows[i].len)
		return PROFCONV_ERR_USAGE;
	c = &p->m.counters.rows[i];
	*time = c->time[j];
	*count = c->count[j];
	return PROFCONV_OK;
}

/* The 0.1 shorthands. */

PROFCONV_API const char *profconv_profile_thread_name(const struct profconv_profile *p, size_t i)
{
	if (i >= p->m.nthreads)
		return NULL;
	return pc_str(&p->m, p->m.threads[i]->name);
}

PROFCONV_API int64_t profconv_profile_thread_pid(const struct profconv_profile *p, size_t i)
{
	return i < p->m.nthreads ? p->m.threads[i]->pid : -1;
}

PROFCONV_API int64_t profconv_profile_thread_tid(const struct profconv_profile *p, size_t i)
{
	return i < p->m.nthreads ? p->m.threads[i]->tid : -1;
}

PROFCONV_API size_t profconv_profile_sample_count(const struct profconv_profile *p, size_t i)
{
	return i < p->m.nthreads ? p->m.threads[i]->samples.len : 0;
}

PROFCONV_API size_t profconv_profile_func_map(const struct profconv_profile *p,
					      const uint32_t **map)
{
	*map = p->m.func_map;
	return p->m.func_map_len;
}
