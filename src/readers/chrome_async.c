/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_async.c - async spans (b/e, S/F) and async instants (n): markers
 * on a track of their own per process (a marker-only thread, "Async
 * events"), as async spans belong to the process, not to a thread.  A span
 * of one key (cat, scope, id, and the pid for id2.local) closes the latest
 * open one with that key (spans of one id nest).
 */
#include "core/pc_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_chrome.h"

static int async_key(const struct cev *e, int64_t pid, char *key, size_t cap)
{
	const struct cevx *x = pc_chrome_x(e);
	const struct cjv *id = &x->id;
	const char *cat = pc_chrome_cv_str(&e->cat), *scope = pc_chrome_cv_str(&x->scope);
	char idt[64];
	struct kbuf it = { idt, 0, sizeof(idt) }, k = { key, 0, cap };
	int local = 0;

	if (x->id2) {
		local = x->id2_local.kind != CJ_NONE;
		id = local ? &x->id2_local : &x->id2_global;
	}
	idt[0] = 0;
	if (id->kind == CJ_STR) {
		pc_chrome_kb_put(&it, "s", 1);
		pc_chrome_kb_z(&it, id->s);
	} else if (id->kind == CJ_NUM && id->d > -1e17 && id->d < 1e17 &&
		   id->d == (double)(long long)id->d && (id->d != 0 || !signbit(id->d))) {
		pc_chrome_kb_put(&it, "n", 1); /* what "%.17g" prints for an integer below 1e17 */
		pc_chrome_kb_dec(&it, (long long)id->d);
	} else if (id->kind == CJ_NUM) {
		pc_snprintf(idt, sizeof(idt), "n%.17g", id->d);
		it.n = strlen(idt);
	} else {
		return -1;
	}
	key[0] = 0;
	pc_chrome_kb_z(&k, cat ? cat : "");
	pc_chrome_kb_put(&k, "\x1f", 1);
	pc_chrome_kb_z(&k, scope ? scope : "");
	pc_chrome_kb_put(&k, "\x1f", 1);
	pc_chrome_kb_put(&k, idt, it.n);
	pc_chrome_kb_put(&k, "\x1f", 1);
	pc_chrome_kb_dec(&k, local ? (long long)pid : -1LL);
	return 0;
}

/*
 * A process's track for its async events: a marker-only thread named
 * "Async events", sorted after the process's other threads.  Its tid is
 * made up (below -1000000, one per process in file order): async spans
 * belong to the process, not to a thread.
 */
struct tinfo *pc_chrome_async_thread(struct rd *r, int64_t pid)
{
	struct pmeta *pm = pc_chrome_pmeta(r, pid);
	struct tinfo *ti;

	if (!pm)
		return NULL;
	if (pm->async_thread)
		return &r->th[pm->async_thread - 1];
	ti = pc_chrome_thread(r, pid, -1000000 - (int64_t)(pm - r->pm));
	if (!ti)
		return NULL;
	ti->t->name = pc_chrome_intern(r, "Async events");
	if (ti->t->name == PC_NONE)
		return NULL;
	ti->sort_index = INT64_MAX;
	ti->has_sort = 1;
	pm->async_thread = (uint32_t)(ti - r->th) + 1;
	return ti;
}

int pc_chrome_async_begin(struct rd *r, struct tinfo *ti, const struct cev *ev, int64_t pid,
			  int64_t ts, uint32_t name, uint16_t cat, const char *catname)
{
	char key[512];
	struct async_open *a;
	struct tinfo *at;
	uint32_t set, prev;

	if (async_key(ev, pid, key, sizeof(key)))
		return pc_warn(r->ctx, W_BAD_EVENT, NULL, "%s: an async event without an id",
			       r->name);
	set = pc_chrome_active_set(r, ti); /* async spans inherit the thread's set */
	at = pc_chrome_async_thread(r, pid);	   /* (may move r->th: ti is not used after) */
	if (!at ||
	    pc_grow(r->ctx, (void **)&r->as, sizeof(*r->as), &r->as_cap, (size_t)r->nas + 1))
		return PROFCONV_ERR_NOMEM;
	a = &r->as[r->nas];
	a->key = pc_strdup(r->ctx, key);
	if (!a->key)
		return PROFCONV_ERR_NOMEM;
	a->thread = (uint32_t)(at - r->th);
	a->set = set;
	a->name = name;
	a->cat = cat;
	a->start = ts;
	a->payload = pc_chrome_payload(r, ev, catname, a->set);
	prev = pc_smap_get(&r->as_latest, key, strlen(key));
	a->prev = prev == PC_NONE ? 0 : prev;
	r->nas++; /* owned from here (freed with the others) */
	if (a->payload == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	return pc_smap_put(&r->as_latest, key, strlen(key), r->nas);
}

/*
 * Drop the closed spans from r->as, keeping the open ones in their order
 * (pc_chrome_close_open() makes the unclosed ones markers in that order), and
 * renumber the per-key chains.
 */
static int async_compact(struct rd *r)
{
	uint32_t *to = pc_alloc(r->ctx, (size_t)r->nas * sizeof(*to) + 1);
	uint32_t i, j = 0;

	if (!to)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < r->nas; i++) {
		to[i] = 0;
		if (r->as[i].key) {
			r->as[j] = r->as[i];
			to[i] = ++j;
		}
	}
	r->nas = j;
	r->nas_closed = 0;
	for (i = 0; i < j; i++) {
		if (r->as[i].prev)
			r->as[i].prev = to[r->as[i].prev - 1];
		/* in order: the last put for a key is its latest span */
		if (pc_smap_put(&r->as_latest, r->as[i].key, strlen(r->as[i].key), i + 1)) {
			pc_free(r->ctx, to);
			return PROFCONV_ERR_NOMEM;
		}
	}
	pc_free(r->ctx, to);
	return 0;
}

int pc_chrome_async_end(struct rd *r, const struct cev *ev, int64_t pid, int64_t ts)
{
	char key[512];
	struct async_open a;
	uint32_t cur;
	size_t n;
	int err;

	if (async_key(ev, pid, key, sizeof(key)))
		return 0;
	/* the latest open span with this key (spans of one id nest) */
	n = strlen(key);
	cur = pc_smap_get(&r->as_latest, key, n);
	if (cur == PC_NONE || cur == 0)
		return 0;
	a = r->as[cur - 1];
	err = pc_chrome_push_marker_set(r, &r->th[a.thread], a.name, a.start, ts,
					PC_PHASE_INTERVAL, a.cat, a.payload, a.set);
	pc_free(r->ctx, a.key);
	r->as[cur - 1].key = NULL; /* closed */
	r->nas_closed++;
	if (!err)
		err = pc_smap_put(&r->as_latest, key, n, a.prev);
	if (!err && r->nas_closed > 64 && r->nas_closed > r->nas / 2)
		err = async_compact(r);
	return err;
}
