/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_v8.c - V8 CPU profiles (P events Profile and ProfileChunk): the
 * profile's nodes (indexed by id), JS frames with their script as the file
 * and 1-based lines and columns, samples at their recorded times (deltas
 * summed, negatives included), read from the event text with the scanner's
 * primitives; after the events, each sample weighs the time until its
 * profile's next one (pc_chrome_v8_weights()).
 */
#include "core/pc_config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_chrome.h"

static struct v8prof *profile_of(struct rd *r, int64_t pid, const char *id, int add)
{
	uint32_t i;

	for (i = 0; i < r->nprof; i++)
		if (r->prof[i].pid == pid && strcmp(r->prof[i].id, id) == 0)
			return &r->prof[i];
	if (!add)
		return NULL;
	if (pc_grow(r->ctx, (void **)&r->prof, sizeof(*r->prof), &r->prof_cap, (size_t)r->nprof + 1))
		return NULL;
	memset(&r->prof[r->nprof], 0, sizeof(r->prof[r->nprof]));
	r->prof[r->nprof].pid = pid;
	r->prof[r->nprof].id = pc_strdup(r->ctx, id);
	r->prof[r->nprof].thread = PC_NONE;
	if (!r->prof[r->nprof].id)
		return NULL;
	return &r->prof[r->nprof++];
}

/*
 * The last node with id.  Samples name nodes from all over a profile,
 * which grows by every chunk's new nodes: looked up through by_id, not by
 * a walk over the nodes (a long real trace's profile has tens of thousands).
 */
static struct v8node *node_of(struct v8prof *pf, int64_t id)
{
	uint32_t i;

	if (id >= 0 && id < (int64_t)pf->by_id_cap)
		return pf->by_id[id] ? &pf->nodes[pf->by_id[id] - 1] : NULL;
	/* ids past the index (sparse or negative ones): look from the end */
	for (i = pf->nnodes; i-- > 0;)
		if (pf->nodes[i].id == id)
			return &pf->nodes[i];
	return NULL;
}

/*
 * Note that node i has its id.  The index covers ids up to a few times the
 * node count (more would be memory for a sparse numbering); a node whose id
 * lies past it is found by node_of()'s walk.  0 or PROFCONV_ERR_NOMEM.
 */
static int node_index(struct rd *r, struct v8prof *pf, uint32_t i)
{
	int64_t id = pf->nodes[i].id;
	uint32_t old = pf->by_id_cap, k;

	if (id < 0)
		return 0;
	if (id >= (int64_t)old) {
		if (id >= (int64_t)4 * pf->nnodes + 1024)
			return 0;
		if (pc_grow(r->ctx, (void **)&pf->by_id, sizeof(*pf->by_id), &pf->by_id_cap,
			    (size_t)id + 1))
			return PROFCONV_ERR_NOMEM;
		memset(pf->by_id + old, 0, (size_t)(pf->by_id_cap - old) * sizeof(*pf->by_id));
		/* the nodes before whose ids the index did not reach until now */
		for (k = 0; k < i; k++)
			if (pf->nodes[k].id >= (int64_t)old &&
			    pf->nodes[k].id < (int64_t)pf->by_id_cap)
				pf->by_id[pf->nodes[k].id] = k + 1;
	}
	pf->by_id[id] = i + 1;
	return 0;
}

/*
 * The frame of a V8 callFrame: its functionName and url (NULL when absent
 * or not strings), lineNumber and columnNumber (-1 when unknown).
 */
static uint32_t v8_frame(struct rd *r, const char *fn, const char *url, double line, double col)
{
	struct pc_func_key fk;
	struct pc_frame_key k;
	uint16_t cat;

	if (!fn || !*fn)
		fn = "(anonymous)";
	memset(&fk, 0, sizeof(fk));
	fk.name = pc_chrome_intern(r, fn);
	fk.resource = PC_NONE;
	fk.source = PC_NONE;
	if (strcmp(fn, "(idle)") == 0)
		cat = r->cat_idle;
	else if (strcmp(fn, "(garbage collector)") == 0)
		cat = r->cat_gc;
	else if (strcmp(fn, "(root)") == 0 || strcmp(fn, "(program)") == 0)
		cat = 0;
	else if (url && *url)
		cat = r->cat_js; /* a script's function (builtins have no url: Native) */
	else
		cat = r->cat_native;
	if (url && *url) {
		fk.source = pc_source_intern(r->m, pc_chrome_intern(r, url));
		fk.resource = pc_resource_intern(r->m, pc_chrome_intern(r, url), PC_NONE,
						 PC_RES_URL, PC_NONE);
	}
	fk.is_js = cat == r->cat_js;
	fk.relevant_for_js = 0;
	/* 0-based in the trace, 1-based in the profile; -1: unknown */
	fk.line = line >= 0 && line < 4294967295.0 ? (uint32_t)line + 1 : 0;
	fk.column = col >= 0 && col < 4294967295.0 ? (uint32_t)col + 1 : 0;
	memset(&k, 0, sizeof(k));
	k.address = PC_NO_ADDRESS;
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.func = pc_func_intern(r->m, &fk);
	k.line = fk.line;
	k.column = fk.column;
	k.category = cat;
	if (k.func == PC_NONE)
		return PC_NONE;
	return pc_frame_intern(r->m, &k);
}

/* The stack of node n (its ancestors first), interned on first use. */
static uint32_t v8_stack(struct rd *r, struct v8prof *pf, struct v8node *n, int depth)
{
	uint32_t pre = PC_NONE;

	if (n->stack != PC_NONE)
		return n->stack;
	if (n->frame == PC_NONE || depth > 4096)
		return PC_NONE;
	if (n->parent >= 0) {
		struct v8node *p = node_of(pf, n->parent);

		if (p)
			pre = v8_stack(r, pf, p, depth + 1);
	}
	n->stack = pc_stack_intern(r->m, pre, n->frame);
	return n->stack;
}

/*
 * A V8 profile's events are read from their text with the scanner's
 * primitives, not as a cJSON tree (a tree's allocations and number parsing
 * were a third of the reader's thread on a real trace).  They give what
 * cJSON gave: a member is the first one with its key, a container that
 * is not an array still has its values iterated (cJSON_ArrayForEach()),
 * numbers are strtod's doubles and strings decode as read_chrome.c's
 * with_cjson() has them decoded.
 */

/*
 * The first members of the object at the cursor named in keys[0..n): their
 * values' starts in at[].  The cursor ends past the object, or, with
 * early, where the last of them is found when all are (the caller then
 * stands it elsewhere with v8_at(): the values skipped to go on were most
 * of a ProfileChunk's reading, its arrays skipped once per level).
 */
static int v8_members(struct pc_jscan *js, const char *const *keys, const char **at, size_t n,
		      int early)
{
	struct pc_jscan_it it;
	const char *k;
	size_t kl, i, found = 0;
	int more, err;

	for (i = 0; i < n; i++)
		at[i] = NULL;
	if (pc_jscan_ws(js) != '{') {
		pc_jscan_skip_checked(js); /* not an object: none of them */
		return 0;
	}
	err = pc_jscan_enter(js, &it);
	while (!err && !(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
		for (i = 0; i < n; i++)
			if (!at[i] && kl == strlen(keys[i]) && memcmp(k, keys[i], kl) == 0) {
				at[i] = js->p;
				found++;
				break;
			}
		if (early && found == n)
			break;
		/* the scanner checked the event's text: only its end is wanted */
		pc_jscan_skip_checked(js);
	}
	return err;
}

/* Stand the scanner at a value found before (at, in the event's text). */
static void v8_at(struct pc_jscan *js, const char *at)
{
	js->p = at;
	js->depth = 0;
}

/*
 * Go into the container found at at (NULL: none), whose values are then
 * taken as cJSON_ArrayForEach() takes them: an array's elements, an
 * object's members' values.  *in: there is one.
 */
static int v8_enter(struct pc_jscan *js, const char *at, struct pc_jscan_it *it, int *in)
{
	int c;

	*in = 0;
	if (!at)
		return 0;
	v8_at(js, at);
	c = pc_jscan_ws(js);
	if (c != '[' && c != '{')
		return 0;
	*in = 1;
	return pc_jscan_enter(js, it);
}

/*
 * The value at the cursor as pc_chrome_jnum() reads a member: a finite
 * number, or a string strtod() reads whole (*out gets strtod's value even
 * when it does not, as there).  *ok: it was one.
 */
static int v8_num(struct pc_jscan *js, double *out, int *ok)
{
	int c = pc_jscan_ws(js), err;

	*ok = 0;
	if (c == '"') {
		size_t off, len;
		const char *t;
		char *end;

		err = pc_jscan_string(js, &off, &len);
		if (err || !*(t = pc_jscan_at(js, off)))
			return err;
		*out = strtod(t, &end);
		*ok = !*end && pc_jnum_finite(*out);
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		double d;

		err = pc_jscan_number(js, &d);
		if (!err && pc_jnum_finite(d)) {
			*out = d;
			*ok = 1;
		}
		return err;
	}
	return pc_jscan_skip(js);
}

/* The string at the cursor into the scratch (*off), or *off SIZE_MAX when it is not a string. */
static int v8_str(struct pc_jscan *js, size_t *off)
{
	size_t len;

	*off = SIZE_MAX;
	if (pc_jscan_ws(js) != '"')
		return pc_jscan_skip(js);
	return pc_jscan_string(js, off, &len);
}

/*
 * v8_numbers()'s loop over an array as V8 writes samples and timeDeltas:
 * no whitespace, integers of up to 15 digits (exact as doubles, the value
 * pc_jscan_number() gives them).  It stops at anything else, where
 * pc_jscan_next() goes on (it->first kept); at the array's end it->close
 * is 0 (the array is done).
 */
static int v8_ints(struct rd *r, struct pc_jscan *js, struct pc_jscan_it *it, uint32_t from,
		   uint32_t *n)
{
	const char *p = js->p, *e = js->end;
	double *val = r->v8val;
	size_t k = (size_t)from + *n, cap = r->v8val_cap; /* (kept here: stores through val
							    * would make them reloaded) */
	int first = it->first, err = 0;

	for (;;) {
		const char *q = p, *d0;
		uint64_t v = 0;
		int neg;

		if (q < e && *q == ']') {
			js->p = q + 1;
			js->depth--;
			it->close = 0;
			break;
		}
		if (!first) {
			if (q == e || *q != ',')
				break;
			q++;
		}
		neg = q < e && *q == '-';
		q += neg;
		d0 = q;
		if (q < e && *q == '0') {
			if (neg)
				break; /* -0 */
			q++;
		} else {
			unsigned dg;

			while (q < e && (dg = (unsigned)(unsigned char)*q - '0') <= 9 && q - d0 < 16) {
				v = v * 10 + dg;
				q++;
			}
			if (q == d0 || q - d0 > 15)
				break;
		}
		if (q == e || (*q != ',' && *q != ']'))
			break;
		if (k + 1 > cap) {
			if (pc_grow(r->ctx, (void **)&r->v8val, sizeof(*r->v8val), &r->v8val_cap,
				    k + 1)) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
			val = r->v8val;
			cap = r->v8val_cap;
		}
		val[k++] = neg ? -(double)v : (double)v;
		first = 0;
		p = q;
	}
	if (it->close)
		js->p = p;
	it->first = first;
	*n = (uint32_t)(k - from);
	return err;
}

/*
 * The values of the container at at (an array's elements, an object's
 * members' values), each as a number (NaN: not a JSON number) into
 * r->v8val from index from; *n: how many.  Not a container: none.
 */
static int v8_numbers(struct rd *r, const char *at, uint32_t from, uint32_t *n)
{
	struct pc_jscan *js = &r->v8js;
	struct pc_jscan_it it;
	const char *k;
	size_t kl;
	int more, in, c, err = v8_enter(js, at, &it, &in);

	*n = 0;
	if (in && !err && it.close == ']') {
		err = v8_ints(r, js, &it, from, n);
		if (err || it.close == 0)
			return err;
	}
	while (in && !err && !(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
		double d = NAN;

		if (pc_grow(r->ctx, (void **)&r->v8val, sizeof(*r->v8val), &r->v8val_cap,
			    (size_t)from + *n + 1))
			return PROFCONV_ERR_NOMEM;
		c = pc_jscan_ws(js);
		err = c == '-' || (c >= '0' && c <= '9') ? pc_jscan_number(js, &d) : pc_jscan_skip(js);
		r->v8val[from + (*n)++] = d;
	}
	return err;
}

/*
 * A node's members at the cursor, as v8_members() gives them: nat[] the
 * first id, parent and callFrame, cat[] the first callFrame's first
 * functionName, url, lineNumber and columnNumber.  The callFrame is walked
 * where it stands (skipping it and walking it again afterwards was a third
 * of a node's reading).  The cursor ends past the node.
 */
static int v8_node_members(struct pc_jscan *js, const char **nat, const char **cat)
{
	static const char *const cf_keys[] = { "functionName", "url", "lineNumber", "columnNumber" };
	struct pc_jscan_it it;
	const char *k;
	size_t kl;
	int more, err;

	nat[0] = nat[1] = nat[2] = NULL;
	cat[0] = cat[1] = cat[2] = cat[3] = NULL;
	if (pc_jscan_ws(js) != '{') {
		pc_jscan_skip_checked(js); /* not an object: none of them */
		return 0;
	}
	err = pc_jscan_enter(js, &it);
	while (!err && !(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
		if (kl == 2 && memcmp(k, "id", 2) == 0 && !nat[0]) {
			nat[0] = js->p;
		} else if (kl == 6 && memcmp(k, "parent", 6) == 0 && !nat[1]) {
			nat[1] = js->p;
		} else if (kl == 9 && memcmp(k, "callFrame", 9) == 0 && !nat[2]) {
			nat[2] = js->p;
			err = v8_members(js, cf_keys, cat, 4, 0); /* ends past it */
			continue;
		}
		pc_jscan_skip_checked(js);
	}
	return err;
}

/* A ProfileChunk's nodes (the container at at): each node with a numeric id, in order. */
static int v8_nodes(struct rd *r, struct v8prof *pf, const char *at)
{
	struct pc_jscan *js = &r->v8js;
	struct pc_jscan_it it;
	const char *k;
	size_t kl;
	int more, in, err = v8_enter(js, at, &it, &in);

	while (in && !err && !(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
		const char *nat[3], *cat[4], *next;
		double nid = 0, par = -1, line = -1, col = -1;
		size_t fn = SIZE_MAX, url = SIZE_MAX;
		struct v8node *n;
		int ok;

		/* the node's members (its callFrame's too, where it stands),
		 * then past it to go on with the next one */
		err = v8_node_members(js, nat, cat);
		if (err)
			break;
		next = js->p;
		js->olen = 0;
		if (nat[0]) {
			v8_at(js, nat[0]);
			err = v8_num(js, &nid, &ok);
		}
		if (err || !nat[0] || !ok) {
			v8_at(js, next);
			continue;
		}
		if (nat[1]) {
			v8_at(js, nat[1]);
			err = v8_num(js, &par, &ok);
		}
		if (!err && nat[2]) {
			if (cat[0]) {
				v8_at(js, cat[0]);
				err = v8_str(js, &fn);
			}
			if (!err && cat[1]) {
				v8_at(js, cat[1]);
				err = v8_str(js, &url);
			}
			if (!err && cat[2]) {
				v8_at(js, cat[2]);
				err = v8_num(js, &line, &ok);
			}
			if (!err && cat[3]) {
				v8_at(js, cat[3]);
				err = v8_num(js, &col, &ok);
			}
		}
		if (err)
			break;
		if (pc_grow(r->ctx, (void **)&pf->nodes, sizeof(*pf->nodes), &pf->nodes_cap,
			    (size_t)pf->nnodes + 1))
			return PROFCONV_ERR_NOMEM;
		n = &pf->nodes[pf->nnodes++];
		n->id = pc_chrome_to_i64(nid);
		n->parent = pc_chrome_to_i64(par);
		n->stack = PC_NONE;
		if (node_index(r, pf, pf->nnodes - 1))
			return PROFCONV_ERR_NOMEM;
		n->frame = v8_frame(r, fn == SIZE_MAX ? NULL : pc_jscan_at(js, fn),
				    url == SIZE_MAX ? NULL : pc_jscan_at(js, url), line, col);
		if (n->frame == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		v8_at(js, next);
	}
	return err;
}

/*
 * A container value at the cursor read where it stands: a chunk's nodes
 * into pf by v8_nodes() (pf not NULL), else numbers into r->v8val from
 * from by v8_numbers() (*n of them).  Both stand the scanner at it and
 * leave it past the container; the cursor's depth is kept for the walk
 * around it.  Anything else is skipped (a value that is not a container
 * has none).
 */
static int v8_here(struct rd *r, struct v8prof *pf, uint32_t from, uint32_t *n)
{
	struct pc_jscan *js = &r->v8js;
	unsigned depth = js->depth;
	int c = pc_jscan_ws(js), err;

	if (n)
		*n = 0;
	if (c != '[' && c != '{') {
		pc_jscan_skip_checked(js);
		return 0;
	}
	err = pf ? v8_nodes(r, pf, js->p) : v8_numbers(r, js->p, from, n);
	js->depth = depth;
	return err;
}

/*
 * A ProfileChunk's args.data (the object at the cursor), walked once: the
 * first cpuProfile's first nodes are read where they stand (v8_nodes()),
 * its first samples into r->v8val from 0 (*ns), the first timeDeltas after
 * them (*nd).  What v8_members() found and v8_nodes() and v8_numbers()
 * read after the walk, read without skipping the arrays first (the nodes
 * were skipped twice, the samples once: a third of a chunk's reading).
 */
static int v8_chunk_data(struct rd *r, struct v8prof *pf, uint32_t *ns, uint32_t *nd)
{
	struct pc_jscan *js = &r->v8js;
	struct pc_jscan_it it, cit;
	const char *k, *deltas = NULL;
	size_t kl;
	int more, err, cp = 0, dl = 0, nodes = 0, samples = 0;

	*ns = *nd = 0;
	if (pc_jscan_ws(js) != '{') {
		pc_jscan_skip_checked(js); /* not an object: none of them */
		return v8_numbers(r, NULL, 0, nd);
	}
	err = pc_jscan_enter(js, &it);
	while (!err && !(cp && dl) && !(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
		if (kl == 10 && memcmp(k, "cpuProfile", 10) == 0 && !cp) {
			cp = 1;
			if (pc_jscan_ws(js) != '{') {
				pc_jscan_skip_checked(js);
				continue;
			}
			err = pc_jscan_enter(js, &cit);
			while (!err && !(err = pc_jscan_next(js, &cit, &k, &kl, &more)) && more) {
				if (kl == 5 && memcmp(k, "nodes", 5) == 0 && !nodes) {
					nodes = 1;
					err = v8_here(r, pf, 0, NULL);
				} else if (kl == 7 && memcmp(k, "samples", 7) == 0 && !samples) {
					samples = 1;
					err = v8_here(r, NULL, 0, ns);
				} else {
					pc_jscan_skip_checked(js);
				}
			}
		} else if (kl == 10 && memcmp(k, "timeDeltas", 10) == 0 && !dl) {
			dl = 1;
			if (cp) {
				err = v8_here(r, NULL, *ns, nd);
				deltas = NULL;
			} else {
				deltas = js->p; /* read once the samples are */
				pc_jscan_skip_checked(js);
			}
		} else {
			pc_jscan_skip_checked(js);
		}
	}
	if (!err && deltas)
		err = v8_numbers(r, deltas, *ns, nd);
	return err;
}

/* err from reading a V8 profile event's text again (the scanner accepted it). */
static int v8_reread_error(struct rd *r, const struct cevr *ev, int err)
{
	return err == PC_JSCAN_BAD ? pc_fail_at(r->ctx, PROFCONV_ERR_INTERNAL, r->name, ev->off,
						"a V8 profile event the scanner accepted could not be read again")
				   : err;
}

int pc_chrome_profile_event(struct rd *r, struct tinfo *ti, const struct cevr *ev, int64_t pid,
			    int64_t ts, const char *name)
{
	static const char *const args_keys[] = { "data" };
	static const char *const start_key[] = { "startTime" };
	const struct cev *e = &ev->e;
	const struct cjv *id = &pc_chrome_x(e)->id;
	struct pc_jscan *js = &r->v8js;
	const char *args, *data;
	struct pc_jscan_it it;
	char idbuf[64];
	struct v8prof *pf;
	int err, ok;

	if (id->kind == CJ_STR)
		pc_snprintf(idbuf, sizeof(idbuf), "%s", id->s);
	else if (id->kind == CJ_NUM)
		pc_snprintf(idbuf, sizeof(idbuf), "0x%llx",
			    id->d >= 0 && id->d < 1.8446744073709552e19
				    ? (unsigned long long)id->d
				    : (unsigned long long)pc_chrome_to_i64(id->d));
	else
		return pc_warn(r->ctx, W_BAD_EVENT, NULL, "%s: a %s event without an id", r->name,
			       name);
	pf = profile_of(r, pid, idbuf, 1);
	if (!pf)
		return PROFCONV_ERR_NOMEM;
	/* args.data's members, in the text after the event's '{' */
	pc_jscan_start(js, ev->text, ev->len, UINT_MAX);
	it.close = '}';
	it.first = 1;
	js->depth = 1;
	{
		const char *k;
		size_t kl;
		int more;

		args = NULL;
		while (!(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
			if (kl == 4 && memcmp(k, "args", 4) == 0) {
				args = js->p;
				break;
			}
			pc_jscan_skip_checked(js);
		}
	}
	data = NULL;
	if (!err && args) {
		v8_at(js, args);
		err = v8_members(js, args_keys, &data, 1, 1);
	}
	if (strcmp(name, "Profile") == 0) {
		const char *start = NULL;
		double st = 0;

		if (!err && data) {
			v8_at(js, data);
			err = v8_members(js, start_key, &start, 1, 1);
		}
		if (err)
			return v8_reread_error(r, ev, err);
		/* samples belong to the Profile event's thread */
		pf->thread = (uint32_t)(ti - r->th);
		ok = 0;
		if (start) {
			v8_at(js, start);
			err = v8_num(js, &st, &ok);
		}
		pf->time = ok ? pc_chrome_us_to_ns(st) : ts;
		return err;
	}
	{
		uint32_t ns = 0, nd = 0, i;
		struct tinfo *st;

		/* the nodes, then the samples' node ids and the time deltas */
		if (!err && data) {
			v8_at(js, data);
			err = v8_chunk_data(r, pf, &ns, &nd);
		}
		if (err)
			return v8_reread_error(r, ev, err);
		if (pf->thread == PC_NONE) {
			/* no Profile event seen: the chunk's own thread */
			pf->thread = (uint32_t)(ti - r->th);
			pf->time = ts;
		}
		st = &r->th[pf->thread];
		if (ns != nd)
			return pc_warn(r->ctx, W_BAD_EVENT, NULL,
				       "%s: a ProfileChunk with %d samples and %d timeDeltas", r->name,
				       (int)ns, (int)nd);
		for (i = 0; i < ns; i++) {
			double sv = r->v8val[i], dv = r->v8val[ns + i];
			struct v8node *n;
			uint32_t stack;

			if (isnan(sv) || isnan(dv))
				continue;
			/* the running sum, negative deltas included */
			pf->time = pc_time_add(pf->time, pc_chrome_us_to_ns(dv));
			n = node_of(pf, pc_chrome_to_i64(sv));
			stack = n ? v8_stack(r, pf, n, 0) : PC_NONE;
			/* weighed by pc_chrome_v8_weights() once the profile is
			 * whole (0 until then) */
			if (pc_grow(r->ctx, (void **)&pf->rows, sizeof(*pf->rows), &pf->rows_cap,
				    (size_t)pf->nrows + 1))
				return PROFCONV_ERR_NOMEM;
			err = pc_sample_add(r->m, st->t, stack, pf->time, 0);
			if (err)
				return err;
			pf->rows[pf->nrows].thread = pf->thread;
			pf->rows[pf->nrows++].row = st->t->samples.len - 1;
			if (!r->nv8_samples || pf->time < r->v8_first)
				r->v8_first = pf->time;
			if (!r->nv8_samples || pf->time > r->v8_last)
				r->v8_last = pf->time;
			r->nv8_samples++;
			st->has_real_samples = 1;
			r->any_samples = 1;
		}
	}
	return 0;
}

/* The time of a V8 sample (user: the struct rd). */
static int64_t v8row_time(const struct rd *r, const struct v8row *v)
{
	return r->th[v->thread].t->samples.time[v->row];
}

/*
 * V8 samples stand for time, as DevTools counts them: each weighs the time
 * until its profile's next sample in time order (timeDeltas may be
 * negative: the samples are put in order of time first, a stable sort),
 * and the last one the profile's mean interval, (last - first) / (n - 1),
 * as DevTools' CPUProfileDataModel gives its last sample.  A profile of one
 * sample: it weighs interval (the trace's).  The threads with V8 samples
 * get weight type "tracing-ms" (ns in the model); another sample on such a
 * thread (a P sample of a stackFrames dictionary) weighs its weight times
 * interval.
 */
int pc_chrome_v8_weights(struct rd *r, int64_t interval)
{
	uint32_t *idx = NULL, *tmp = NULL, cap = 0, i, k;
	int64_t *key = NULL;
	int err = 0;

	for (i = 0; i < r->nprof; i++)
		for (k = 0; k < r->prof[i].nrows; k++) {
			struct pc_samples *s = &r->th[r->prof[i].rows[k].thread].t->samples;

			/* (the thread of the row before: done) */
			if (k && r->prof[i].rows[k].thread == r->prof[i].rows[k - 1].thread)
				continue;
			if (strcmp(s->weight_type, "tracing-ms") != 0) {
				uint32_t j;

				s->weight_type = "tracing-ms";
				for (j = 0; s->weight && j < s->len; j++)
					s->weight[j] = s->weight[j] > INT64_MAX / interval ||
							       s->weight[j] < INT64_MIN / interval
						? 0
						: s->weight[j] * interval;
			}
		}
	for (i = 0; i < r->nprof && !err; i++) {
		struct v8prof *pf = &r->prof[i];
		int64_t first, last, mean;

		if (!pf->nrows)
			continue;
		if (pf->nrows > cap) {
			pc_free(r->ctx, idx);
			pc_free(r->ctx, tmp);
			pc_free(r->ctx, key);
			cap = pf->nrows;
			idx = pc_alloc(r->ctx, (size_t)cap * sizeof(*idx));
			tmp = pc_alloc(r->ctx, (size_t)cap * sizeof(*tmp));
			key = pc_alloc(r->ctx, (size_t)cap * sizeof(*key));
			if (!idx || !tmp || !key) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
		}
		/* the times taken out once: the sort compares them */
		for (k = 0; k < pf->nrows; k++) {
			idx[k] = k;
			key[k] = v8row_time(r, &pf->rows[k]);
		}
		pc_sort_by_key(idx, tmp, key, pf->nrows);
		first = key[idx[0]];
		last = key[idx[pf->nrows - 1]];
		mean = pf->nrows > 1 ? pc_time_sub(last, first) / (int64_t)(pf->nrows - 1) : interval;
		for (k = 0; k < pf->nrows; k++) {
			const struct v8row *v = &pf->rows[idx[k]];

			r->th[v->thread].t->samples.weight[v->row] =
				k + 1 < pf->nrows ? pc_time_sub(key[idx[k + 1]], key[idx[k]]) : mean;
		}
	}
	pc_free(r->ctx, idx);
	pc_free(r->ctx, tmp);
	pc_free(r->ctx, key);
	return err;
}
