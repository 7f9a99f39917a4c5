/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_stacks.c - the Trace Event Format's own sampled stacks: the
 * `stackFrames` dictionary ({"id": {name, category, parent}}, at the top of
 * the object form, or per process in an `M` event named stackFrames), `P`
 * events pointing into it with `sf` (or carrying a `stack` array, root
 * first), and the object form's global `samples` array ({cpu, tid, ts,
 * name, sf, weight}, matched to threads by tid alone, as catapult does).
 * Facts: ../shared/docs/chrome-trace.md section 4.
 *
 * The dictionary may come after the events in the file (JSON object
 * members have no order), so samples are kept as (thread, time, weight,
 * frame key) and turned into stacks once the whole trace is read.  Frames
 * are label frames named after the stack frame, in the frame's category.
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_chrome.h"

#define MAX_DEPTH 1024 /* deeper parent chains (or loops) are cut */

struct sframe {
	char *key; /* "g<id>" (global) or "p<pid>:<id>" (a process's) */
	char *parent; /* its key, or NULL */
	uint32_t name;
	uint16_t cat;
	uint32_t stack; /* PC_NONE until built */
	uint8_t busy;	/* on the chain being built (a loop) */
	UT_hash_handle hh;
};

struct psample {
	uint32_t thread; /* r->th index; UINT32_MAX: by tid at the end */
	int64_t tid;
	int64_t ts;
	int64_t weight;
	char *sf; /* frame key candidates "p<pid>:<id>\0g<id>", or NULL */
	uint32_t stack; /* a `stack` array's, built at once */
};

/* A label frame: a func named name (no resource, source or address), category cat. */
uint32_t pc_chrome_label_frame(struct rd *r, uint32_t name, uint16_t cat)
{
	struct pc_func_key fk;
	struct pc_frame_key k;

	memset(&fk, 0, sizeof(fk));
	fk.name = name;
	fk.resource = PC_NONE;
	fk.source = PC_NONE;
	memset(&k, 0, sizeof(k));
	k.address = PC_NO_ADDRESS;
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.func = pc_func_intern(r->m, &fk);
	k.category = cat;
	if (k.func == PC_NONE)
		return PC_NONE;
	return pc_frame_intern(r->m, &k);
}

/* An id as text: a string as it is, an integer number without a fraction. */
static int id_text(const cJSON *v, char *buf, size_t cap)
{
	if (cJSON_IsString(v) && v->valuestring[0]) {
		pc_snprintf(buf, cap, "%s", v->valuestring);
		return 0;
	}
	if (cJSON_IsNumber(v)) {
		pc_snprintf(buf, cap, "%.17g", v->valuedouble);
		return 0;
	}
	return -1;
}

static int is_id(const cJSON *v)
{
	return (cJSON_IsString(v) && v->valuestring[0]) || cJSON_IsNumber(v);
}

/* One stackFrames member: id -> {name, category, parent}. */
int pc_chrome_stack_frame(struct rd *r, const char *prefix, const char *id, const cJSON *fr)
{
	const char *name = pc_chrome_jstr(fr, "name"), *cat = pc_chrome_jstr(fr, "category");
	const cJSON *parent = cJSON_GetObjectItemCaseSensitive(fr, "parent");
	char key[320], pk[320];
	struct sframe *f;

	if (!cJSON_IsObject(fr))
		return pc_warn(r->ctx, W_BAD_FRAME, NULL,
			       "%s: stackFrames[\"%s\"] is not an object; skipped", r->name, id);
	pc_snprintf(key, sizeof(key), "%s%s", prefix, id);
	HASH_FIND_STR(r->sframes, key, f);
	if (f)
		return 0; /* the first definition wins */
	f = pc_calloc(r->ctx, 1, sizeof(*f));
	if (!f)
		return PROFCONV_ERR_NOMEM;
	f->key = pc_strdup(r->ctx, key);
	f->name = pc_str_intern_z(r->m, name ? name : "(unnamed frame)");
	f->cat = pc_chrome_category(r, cat);
	f->stack = PC_NONE;
	if (is_id(parent)) {
		char pid_[300];

		id_text(parent, pid_, sizeof(pid_));
		pc_snprintf(pk, sizeof(pk), "%s%s", prefix, pid_);
		f->parent = pc_strdup(r->ctx, pk);
	}
	if (!f->key || f->name == PC_NONE || (is_id(parent) && !f->parent)) {
		pc_free(r->ctx, f->key);
		pc_free(r->ctx, f->parent);
		pc_free(r->ctx, f);
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	}
	HASH_ADD_KEYPTR(hh, r->sframes, f->key, strlen(f->key), f);
	return 0;
}

/* An M event named stackFrames: args.stackFrames, the process's own frames. */
int pc_chrome_stack_frames_event(struct rd *r, const cJSON *ev, int64_t pid)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(args, "stackFrames"), *it;
	char prefix[40];
	int err = 0;

	if (!cJSON_IsObject(d))
		return 0;
	pc_snprintf(prefix, sizeof(prefix), "p%lld:", (long long)pid);
	cJSON_ArrayForEach(it, d)
	{
		if (it->string)
			err = pc_chrome_stack_frame(r, prefix, it->string, it);
		if (err)
			return err;
	}
	return 0;
}

static int push(struct rd *r, const struct psample *s)
{
	if (pc_grow(r->ctx, (void **)&r->ps, sizeof(*r->ps), &r->ps_cap, (size_t)r->nps + 1))
		return PROFCONV_ERR_NOMEM;
	r->ps[r->nps++] = *s;
	return 0;
}

/* sf as the two keys it may name: the process's frames first, then the global ones. */
static char *sf_keys(struct rd *r, const cJSON *sf, int64_t pid)
{
	char id[300], buf[700];
	size_t n;
	char *out;

	if (id_text(sf, id, sizeof(id)))
		return NULL;
	n = (size_t)pc_snprintf(buf, sizeof(buf), "p%lld:%s", (long long)pid, id) + 1;
	n += (size_t)pc_snprintf(buf + n, sizeof(buf) - n, "g%s", id) + 1;
	out = pc_alloc(r->ctx, n);
	if (out)
		memcpy(out, buf, n);
	return out;
}

/* A P event that is not a V8 profile: one sample, by sf or a stack array. */
int pc_chrome_p_sample(struct rd *r, struct tinfo *ti, const cJSON *ev, int64_t pid, int64_t ts,
		       uint64_t off)
{
	const cJSON *sf = cJSON_GetObjectItemCaseSensitive(ev, "sf");
	const cJSON *stack = cJSON_GetObjectItemCaseSensitive(ev, "stack"), *it;
	struct psample s;

	memset(&s, 0, sizeof(s));
	s.thread = (uint32_t)(ti - r->th);
	s.ts = ts;
	s.weight = 1;
	s.stack = PC_NONE;
	if (sf) {
		s.sf = sf_keys(r, sf, pid);
		if (!s.sf)
			return is_id(sf) ? PROFCONV_ERR_NOMEM
				       : pc_warn(r->ctx, W_BAD_EVENT,
						 &(struct pc_loc){ r->name, off, 0, 0 },
						 "a P event whose sf is not an id");
	} else if (cJSON_IsArray(stack)) {
		uint16_t cat = pc_chrome_category(r, pc_chrome_jstr(ev, "cat"));

		cJSON_ArrayForEach(it, stack)
		{
			uint32_t name, frame;

			if (!cJSON_IsString(it))
				continue;
			name = pc_str_intern_z(r->m, it->valuestring);
			frame = name == PC_NONE ? PC_NONE : pc_chrome_label_frame(r, name, cat);
			if (frame != PC_NONE)
				s.stack = pc_stack_intern(r->m, s.stack, frame);
			if (frame == PC_NONE || s.stack == PC_NONE)
				return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		}
	} else {
		return pc_warn(r->ctx, W_BAD_EVENT, &(struct pc_loc){ r->name, off, 0, 0 },
			       "a P event with neither sf nor stack");
	}
	if (push(r, &s)) {
		pc_free(r->ctx, s.sf);
		return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

/* One member of the object form's samples array. */
int pc_chrome_global_sample(struct rd *r, const cJSON *o, uint64_t off)
{
	const cJSON *sf = cJSON_GetObjectItemCaseSensitive(o, "sf");
	const cJSON *tid = cJSON_GetObjectItemCaseSensitive(o, "tid");
	double ts, w;
	struct psample s;

	memset(&s, 0, sizeof(s));
	if (!cJSON_IsNumber(tid) || !pc_chrome_jnum(o, "ts", &ts) || !is_id(sf))
		return pc_warn(r->ctx, W_BAD_EVENT, &(struct pc_loc){ r->name, off, 0, 0 },
			       "a samples entry without a numeric tid and ts and an sf");
	s.thread = UINT32_MAX;
	s.tid = pc_chrome_to_i64(tid->valuedouble);
	s.ts = pc_chrome_us_to_ns(ts);
	/* in range before the cast (a NaN fails the test too) */
	s.weight = pc_chrome_jnum(o, "weight", &w) && w >= 1 && w < 9e18 ? (int64_t)w : 1;
	s.stack = PC_NONE;
	/* global samples name global frames only */
	{
		char id[300];

		id_text(sf, id, sizeof(id));
		s.sf = pc_alloc(r->ctx, strlen(id) + 2);
		if (!s.sf)
			return PROFCONV_ERR_NOMEM;
		s.sf[0] = 'g';
		memcpy(s.sf + 1, id, strlen(id) + 1);
	}
	if (r->first_ts == PC_NO_TIME || s.ts < r->first_ts)
		r->first_ts = s.ts;
	if (s.ts > r->last_ts)
		r->last_ts = s.ts;
	if (push(r, &s)) {
		pc_free(r->ctx, s.sf);
		return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

/* The stack of a frame: its parents' first (iteratively: chains may be deep). */
static uint32_t frame_stack(struct rd *r, struct sframe *f, int *cut)
{
	struct sframe *chain[MAX_DEPTH];
	uint32_t n = 0, stack = PC_NONE;

	while (f && f->stack == PC_NONE && !f->busy && n < MAX_DEPTH) {
		f->busy = 1;
		chain[n++] = f;
		if (f->parent) {
			const char *pk = f->parent; /* HASH_FIND clears f before reading the key */

			HASH_FIND_STR(r->sframes, pk, f);
		} else {
			f = NULL;
		}
	}
	if (f && f->stack == PC_NONE)
		*cut = 1; /* a loop, or deeper than MAX_DEPTH: the root part is left out */
	if (f && f->stack != PC_NONE)
		stack = f->stack;
	while (n) {
		struct sframe *g = chain[--n];
		uint32_t frame = pc_chrome_label_frame(r, g->name, g->cat);

		g->busy = 0;
		if (frame == PC_NONE)
			return PC_NONE;
		stack = pc_stack_intern(r->m, stack, frame);
		if (stack == PC_NONE)
			return PC_NONE;
		g->stack = stack;
	}
	return stack;
}

/* After all events: the samples, with their stacks. */
int pc_chrome_p_finish(struct rd *r)
{
	uint32_t i, k, unknown = 0;
	int cut = 0, err = 0;

	for (i = 0; i < r->nps && !err; i++) {
		struct psample *s = &r->ps[i];
		struct tinfo *ti;
		uint32_t stack = s->stack;

		if (s->thread == UINT32_MAX) {
			for (k = 0; k < r->nth && r->th[k].tid != s->tid; k++)
				;
			ti = k < r->nth ? &r->th[k] : pc_chrome_thread(r, s->tid, s->tid);
			if (!ti)
				return PROFCONV_ERR_NOMEM;
		} else {
			ti = &r->th[s->thread];
		}
		if (s->sf) {
			struct sframe *f;
			const char *key = s->sf;

			HASH_FIND_STR(r->sframes, key, f);
			if (!f && key[0] == 'p') {
				key += strlen(key) + 1;
				HASH_FIND_STR(r->sframes, key, f);
			}
			if (!f) {
				unknown++;
				continue;
			}
			stack = frame_stack(r, f, &cut);
			if (stack == PC_NONE)
				return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		}
		err = pc_sample_add(r->m, ti->t, stack, s->ts, s->weight);
		ti->has_real_samples = 1;
		r->any_samples = 1;
	}
	if (!err && unknown)
		err = pc_warn_n(r->ctx, "samples naming an unknown stack frame dropped", unknown, NULL,
				"%s: %u samples name a stack frame that stackFrames lacks; dropped",
				r->name, unknown);
	if (!err && cut)
		err = pc_warn(r->ctx, "stackFrames parent chains cut", NULL,
			      "%s: a stackFrames parent chain loops or is deeper than %d frames; its root part is left out",
			      r->name, MAX_DEPTH);
	return err;
}

void pc_chrome_stacks_free(struct rd *r)
{
	struct sframe *f, *tmp;
	uint32_t i;

	HASH_ITER(hh, r->sframes, f, tmp)
	{
		HASH_DEL(r->sframes, f);
		pc_free(r->ctx, f->key);
		pc_free(r->ctx, f->parent);
		pc_free(r->ctx, f);
	}
	for (i = 0; i < r->nps; i++)
		pc_free(r->ctx, r->ps[i].sf);
	pc_free(r->ctx, r->ps);
	r->ps = NULL;
	r->nps = 0;
}
