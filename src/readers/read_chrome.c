/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read_chrome.c - Chrome's Trace Event Format (JSON), as Chrome, Perfetto's
 * JSON export and many tools write it (docs/formats/chrome-trace.md; facts
 * from catapult's trace_event_importer, Perfetto's JSON importer and the
 * Firefox Profiler's chrome.ts, collected in ../shared/docs/chrome-trace.md).
 *
 *   input        the array form [ev, ...] (a missing ']' at the end, as Chrome
 *                leaves it when it cannot finish, is one warning), or the
 *                object form {"traceEvents": [...], "metadata": {...}, ...};
 *                streamed with the pull tokenizer; each event object is
 *                scanned once where it lies in the input chunk (read_event(),
 *                scan_event(): syntax checked, the members used decoded,
 *                args members kept; the document is never a tree); V8
 *                Profile/ProfileChunk events are read again from their text
 *                (profile_event()); only C, other P, context events and a
 *                process's stackFrames are parsed with cJSON (with_cjson())
 *   M            process_name, thread_name, process/thread_sort_index,
 *                process_labels
 *   X, B/E       interval markers (B without E: an IntervalStart marker)
 *   I, i, R, n   instant markers
 *   b/e, S/F, n  async spans and instants: markers on a track of their own
 *                per process (a marker-only thread, "Async events")
 *   C            counters, one per (pid, name[, id], series)
 *   P Profile/ProfileChunk
 *                V8 CPU profiles: real samples at their recorded times
 *                (deltas summed, negatives included, then sorted), JS frames
 *                with their script as the file and 1-based lines/columns
 *   (no samples) a thread with slices and no samples gets samples derived
 *                from its slice nesting, one per stretch of unchanged open
 *                slices weighing its time, and an empty one weighing
 *                nothing at the start of each gap between slices, so the
 *                call tree shows where its time went
 *   s, t, f      flows (v1), and bind_id with flow_in/flow_out on a slice
 *                (v2): no markers of their own, fields of the slices they
 *                bind (chrome_flows.c)
 * Marker payloads: {type: "TraceEvent", cat, and each args member (nested
 * values as JSON text)}, with a schema listing the members seen.
 *   stackFrames, samples, other P
 *                trace samples with stacks from the stackFrames
 *                dictionaries or stack arrays (chrome_stacks.c)
 * Not imported (one counted warning each): other phases.
 */
#include "core/pc_config.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/pc_itab.h"
#include "readers/pc_chrome.h"

/* --- detection --- */

static int bid(const unsigned char *peek, size_t len)
{
	size_t i = 0;

	while (i < len && (peek[i] == ' ' || peek[i] == '\n' || peek[i] == '\r' || peek[i] == '\t'))
		i++;
	if (i == len)
		return 0;
	if (peek[i] == '{' && pc_jr_peek_has(peek, len, "\"traceEvents\""))
		return 48;
	if (peek[i] == '[' && pc_jr_peek_has(peek, len, "\"ph\"") &&
	    !pc_jr_peek_has(peek, len, "\"preprocessedProfileVersion\""))
		return 40;
	return 0;
}

/* --- helpers --- */

const char *pc_chrome_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number or a numeric string (Perfetto accepts both), as a double. */
int pc_chrome_jnum(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *end;

	if (cJSON_IsNumber(v) && pc_jnum_finite(v->valuedouble)) {
		*out = v->valuedouble;
		return 1;
	}
	if (cJSON_IsString(v) && v->valuestring[0]) {
		*out = strtod(v->valuestring, &end);
		return !*end && pc_jnum_finite(*out);
	}
	return 0;
}

/* A member as pc_chrome_jstr() / pc_chrome_jnum() read it. */
static const char *cv_str(const struct cjv *v)
{
	return v->kind == CJ_STR ? v->s : NULL;
}

static int cv_num(const struct cjv *v, double *out)
{
	char *end;

	if (v->kind == CJ_NUM && pc_jnum_finite(v->d)) {
		*out = v->d;
		return 1;
	}
	if (v->kind == CJ_STR && v->s[0]) {
		*out = strtod(v->s, &end);
		return !*end && pc_jnum_finite(*out);
	}
	return 0;
}

/*
 * A double as int64, truncated; INT64_MIN when it does not fit (what the
 * x86-64 conversion the reader used to rely on gives, without the
 * undefined behaviour).
 */
static int64_t to_i64(double d)
{
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		return (int64_t)d;
	return INT64_MIN;
}

/* pid/tid: numbers; a string is hashed into a stable negative id. */
static int64_t cv_id(const struct cjv *v, int64_t dflt)
{
	if (v->kind == CJ_NUM)
		return to_i64(v->d);
	if (v->kind == CJ_STR) {
		char *end;
		long long n = strtoll(v->s, &end, 10);

		if (v->s[0] && !*end)
			return n;
		return -(int64_t)(pc_hash_bytes(v->s, strlen(v->s), 0) >> 2) - 2;
	}
	return dflt;
}

/* The first args member named key (cJSON_GetObjectItemCaseSensitive), or NULL. */
static const struct cjv *cv_arg(const struct cev *e, const char *key)
{
	uint32_t i;

	if (e->args.kind != CJ_OBJ)
		return NULL;
	for (i = 0; i < e->na; i++)
		if (strcmp(e->a[i].key, key) == 0)
			return &e->a[i].v;
	return NULL;
}

int64_t pc_chrome_us_to_ns(double us)
{
	double ns = us * 1000.0;

	if (ns >= 9.2e18)
		return INT64_MAX - 1;
	if (ns <= -9.2e18)
		return INT64_MIN + 1;
	return (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
}

static uint32_t intern(struct rd *r, const char *s)
{
	return pc_str_intern_z(r->m, s ? s : "");
}

static int flow_key(const struct cev *e, int bind, int64_t pid, const char *cat, const char *name,
		    char *key, size_t cap);

/*
 * The memo slot for s[0..len), NULL when it is too long to remember; *hit:
 * it holds s.  h: pc_chrome_hash() of s when already worked out (ev_ahead()),
 * else 0.
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

/* intern() of an event's name (len bytes, hash h or 0), through the names' memo. */
static uint32_t name_row(struct rd *r, const char *s, size_t len, uint64_t h)
{
	int hit;
	struct smemo *m;

	if (!s)
		return intern(r, s);
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
static uint16_t cat_memo(struct rd *r, const char *cat, size_t len, uint64_t h, uint32_t *row)
{
	int hit;
	struct smemo *m = cat ? smemo_slot(r->catm, cat, len, h, &hit) : NULL;

	if (!m) {
		if (row)
			*row = pc_str_intern(r->m, cat ? cat : "", cat ? len : 0);
		return category_of(r, cat);
	}
	if (!hit) {
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

struct tinfo *pc_chrome_thread(struct rd *r, int64_t pid, int64_t tid)
{
	struct pc_thread *t;
	uint32_t i;
	char name[64];

	if (r->last_th && r->last_pid == pid && r->last_tid == tid)
		return &r->th[r->last_th - 1];
	t = pc_thread_find(r->m, pid, tid);
	if (t) {
		for (i = 0; i < r->nth; i++)
			if (r->th[i].t == t) {
				r->last_pid = pid;
				r->last_tid = tid;
				r->last_th = i + 1;
				return &r->th[i];
			}
	}
	if (pc_grow(r->ctx, (void **)&r->th, sizeof(*r->th), &r->th_cap, (size_t)r->nth + 1) ||
	    pc_grow(r->ctx, (void **)&r->cs, sizeof(*r->cs), &r->cs_cap, (size_t)r->nth + 1))
		return NULL;
	memset(&r->cs[r->nth], 0, sizeof(r->cs[r->nth]));
	t = pc_thread_add(r->m, pid, tid);
	if (!t)
		return NULL;
	pc_snprintf(name, sizeof(name), "Thread %lld", (long long)tid);
	t->name = intern(r, name);
	memset(&r->th[r->nth], 0, sizeof(r->th[r->nth]));
	r->th[r->nth].t = t;
	r->th[r->nth].pid = pid;
	r->th[r->nth].tid = tid;
	return &r->th[r->nth++];
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

/* The hash of an event's cat (ev_ahead() worked it out), 0 for another one passed for it. */
static uint64_t cat_hash(const struct cev *e, const char *cat)
{
	return e->cat.kind == CJ_STR && cat == e->cat.s ? e->hcat : 0;
}

/* The category of an event's cat. */
static uint16_t ev_category(struct rd *r, const struct cev *e)
{
	return e->cat.kind == CJ_STR ? cat_memo(r, e->cat.s, e->cat.len, e->hcat, NULL)
				     : pc_chrome_category(r, NULL);
}

static uint32_t build_payload(struct rd *r, const struct cev *e, const char *cat, uint32_t set);

/* The payload cache's hash of a cat's and an args text's hashes (0: no args) and a context set. */
static inline uint64_t pl_hash(uint64_t hcat, uint64_t hargs, uint32_t set)
{
	return pc_hash64(hargs ^ (hcat * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)set << 32 | set));
}

/*
 * A few events ahead of the one being handled: hash its name, cat and args
 * text (the memos and the payload cache look them up by these), and start
 * loading the payload cache slot it will look in, guessing it gets the
 * context set the last one got.  The slots are spread over 16,384, and
 * most lookups waited for memory.
 */
static inline void ev_ahead(const struct rd *r, struct cev *e)
{
	if (e->name.kind == CJ_STR)
		e->hname = pc_chrome_hash(e->name.s, e->name.len);
	if (e->args.kind == CJ_OBJ)
		e->hargs = pc_chrome_hash(e->args.s, e->args.len);
	if (e->cat.kind == CJ_STR) {
		e->hcat = pc_chrome_hash(e->cat.s, e->cat.len);
#if defined(__GNUC__)
		__builtin_prefetch(&r->pl[pl_hash(e->hcat, e->args.kind == CJ_OBJ ? e->hargs : 0,
						  r->pl_set) &
					  (PL_SLOTS - 1)]);
#endif
	}
}

#define AHEAD 4 /* events */

/* Nearer: start loading the key the slot holds (the slot has come by now). */
static inline void ev_nearer(const struct rd *r, const struct cev *e)
{
#if defined(__GNUC__)
	const struct pl_slot *sl;

	if (!e->hcat)
		return;
	if (e->args.kind != CJ_OBJ)
		return;
	sl = &r->pl[pl_hash(e->hcat, e->hargs, r->pl_set) & (PL_SLOTS - 1)];
	if (sl->key)
		__builtin_prefetch(sl->key);
#else
	(void)r;
	(void)e;
#endif
}

/*
 * {type, cat, args...} for a marker; PC_NONE on OOM (ctx set).  One that
 * the same cat, context set and args text made before is shared (a payload
 * is never changed once built).
 */
static uint32_t payload(struct rd *r, const struct cev *e, const char *cat, uint32_t set)
{
	size_t clen, alen = e->args.kind == CJ_OBJ ? e->args.len : 0;
	const char *args = e->args.kind == CJ_OBJ ? e->args.s : "";
	struct pl_slot *sl;
	uint64_t h, hc;
	uint32_t pl, crow;

	if (!cat || alen > PL_MAX_KEY)
		return build_payload(r, e, cat, set);
	/* the cat by its string row (the payload interns it first thing anyway) */
	clen = cat_len(e, cat);
	hc = cat_hash(e, cat);
	if (!hc)
		hc = pc_chrome_hash(cat, clen);
	cat_memo(r, cat, clen, hc, &crow);
	if (crow == PC_NONE)
		return PC_NONE;
	h = pl_hash(hc, !alen ? 0 : e->hargs ? e->hargs : pc_chrome_hash(args, alen), set);
	sl = &r->pl[h & (PL_SLOTS - 1)];
	r->pl_set = set;
	if (sl->pl != PC_NONE && sl->hash == h && sl->set == set && sl->crow == crow &&
	    sl->alen == alen && (!alen || memcmp(sl->key, args, alen) == 0))
		return sl->pl;
	pl = build_payload(r, e, cat, set);
	if (pl == PC_NONE)
		return pl;
	if (alen && (!sl->key || sl->cap < alen)) {
		size_t cap = (alen + 64) & ~(size_t)63;
		char *k = pc_realloc(r->ctx, sl->key, cap);

		if (!k)
			return PC_NONE;
		sl->key = k;
		sl->cap = (uint32_t)cap;
	}
	if (alen)
		memcpy(sl->key, args, alen);
	sl->hash = h;
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

	pc_pvb_begin(&b, r->m, 0);
	pc_pvb_key_row(&b, r->row_type);
	pc_pvb_str_row(&b, r->row_trace_event);
	if (cat) {
		uint32_t row;

		pc_pvb_key_row(&b, r->row_cat);
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
		 * see strings_or_refs()) */
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
static uint32_t merge_end_args(struct rd *r, uint32_t bpl, const struct cev *e)
{
	struct pc_pvb b;
	uint32_t epl, i, c;

	if (e->args.kind != CJ_OBJ || !e->na)
		return bpl;
	epl = payload(r, e, NULL, PC_NONE); /* {type, args...} */
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

static int push_marker_set(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start,
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

static int push_marker(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start, int64_t end,
		       uint8_t phase, uint16_t cat, uint32_t pl)
{
	return push_marker_set(r, ti, name, start, end, phase, cat, pl, PC_NONE);
}

/* pc_chrome_label_frame() through a small direct-mapped cache. */
static uint32_t label_frame(struct rd *r, uint32_t name, uint16_t cat)
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
 * derive_samples(), which reads the slices back from the marker table.
 */
static int keep_slice(struct rd *r, struct tinfo *ti, int64_t start, int64_t end, uint32_t name,
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
	return label_frame(r, name, cat) == PC_NONE ? PROFCONV_ERR_NOMEM : 0;
}

static struct pmeta *pmeta_of(struct rd *r, int64_t pid);

/* --- async spans --- */

/*
 * Keys built without printf (a flow or an async event is one in five of a
 * trace's events): kb_*() append to key[0..cap), cut where snprintf() would
 * cut, NUL-terminated.
 */
struct kbuf {
	char *p;
	size_t n, cap;
};

static void kb_put(struct kbuf *k, const char *s, size_t len)
{
	size_t room = k->cap - 1 - k->n;

	if (len > room)
		len = room;
	memcpy(k->p + k->n, s, len);
	k->n += len;
	k->p[k->n] = 0;
}

static void kb_z(struct kbuf *k, const char *s)
{
	kb_put(k, s, strlen(s));
}

/* "%llx" */
static void kb_hex(struct kbuf *k, unsigned long long v)
{
	char t[16];
	int i = 16;

	do {
		t[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	kb_put(k, t + i, (size_t)(16 - i));
}

/* "%lld" */
static void kb_dec(struct kbuf *k, long long v)
{
	char t[24];

	kb_put(k, t, pc_fmt_i64(t, (int64_t)v));
}

static int async_key(const struct cev *e, int64_t pid, char *key, size_t cap)
{
	const struct cjv *id = &e->id;
	const char *cat = cv_str(&e->cat), *scope = cv_str(&e->scope);
	char idt[64];
	struct kbuf it = { idt, 0, sizeof(idt) }, k = { key, 0, cap };
	int local = 0;

	if (e->id2.kind == CJ_OBJ) {
		local = e->id2_local.kind != CJ_NONE;
		id = local ? &e->id2_local : &e->id2_global;
	}
	idt[0] = 0;
	if (id->kind == CJ_STR) {
		kb_put(&it, "s", 1);
		kb_z(&it, id->s);
	} else if (id->kind == CJ_NUM && id->d > -1e17 && id->d < 1e17 &&
		   id->d == (double)(long long)id->d && (id->d != 0 || !signbit(id->d))) {
		kb_put(&it, "n", 1); /* what "%.17g" prints for an integer below 1e17 */
		kb_dec(&it, (long long)id->d);
	} else if (id->kind == CJ_NUM) {
		pc_snprintf(idt, sizeof(idt), "n%.17g", id->d);
		it.n = strlen(idt);
	} else {
		return -1;
	}
	key[0] = 0;
	kb_z(&k, cat ? cat : "");
	kb_put(&k, "\x1f", 1);
	kb_z(&k, scope ? scope : "");
	kb_put(&k, "\x1f", 1);
	kb_put(&k, idt, it.n);
	kb_put(&k, "\x1f", 1);
	kb_dec(&k, local ? (long long)pid : -1LL);
	return 0;
}

/*
 * A process's track for its async events: a marker-only thread named
 * "Async events", sorted after the process's other threads.  Its tid is
 * made up (below -1000000, one per process in file order): async spans
 * belong to the process, not to a thread.
 */
static struct tinfo *async_thread(struct rd *r, int64_t pid)
{
	struct pmeta *pm = pmeta_of(r, pid);
	struct tinfo *ti;

	if (!pm)
		return NULL;
	if (pm->async_thread)
		return &r->th[pm->async_thread - 1];
	ti = pc_chrome_thread(r, pid, -1000000 - (int64_t)(pm - r->pm));
	if (!ti)
		return NULL;
	ti->t->name = intern(r, "Async events");
	if (ti->t->name == PC_NONE)
		return NULL;
	ti->sort_index = INT64_MAX;
	ti->has_sort = 1;
	pm->async_thread = (uint32_t)(ti - r->th) + 1;
	return ti;
}

static int async_begin(struct rd *r, struct tinfo *ti, const struct cev *ev, int64_t pid,
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
	at = async_thread(r, pid);	   /* (may move r->th: ti is not used after) */
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
	a->payload = payload(r, ev, catname, a->set);
	prev = pc_smap_get(&r->as_latest, key, strlen(key));
	a->prev = prev == PC_NONE ? 0 : prev;
	r->nas++; /* owned from here (freed with the others) */
	if (a->payload == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	return pc_smap_put(&r->as_latest, key, strlen(key), r->nas);
}

/*
 * Drop the closed spans from r->as, keeping the open ones in their order
 * (close_open() makes the unclosed ones markers in that order), and
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

static int async_end(struct rd *r, const struct cev *ev, int64_t pid, int64_t ts)
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
	err = push_marker_set(r, &r->th[a.thread], a.name, a.start, ts, PC_PHASE_INTERVAL, a.cat,
			      a.payload, a.set);
	pc_free(r->ctx, a.key);
	r->as[cur - 1].key = NULL; /* closed */
	r->nas_closed++;
	if (!err)
		err = pc_smap_put(&r->as_latest, key, n, a.prev);
	if (!err && r->nas_closed > 64 && r->nas_closed > r->nas / 2)
		err = async_compact(r);
	return err;
}

/* --- flows --- */

/*
 * A flow's identity as a string: the id as hex (numbers, and strings that
 * are hex, as Perfetto parses them; other strings as they are), id2.local
 * scoped to the process, and for v1 events the category and name too
 * (catapult and Perfetto key a v1 flow by id, cat and name).  -1: no id.
 */
static int flow_key(const struct cev *e, int bind, int64_t pid, const char *cat, const char *name,
		    char *key, size_t cap)
{
	const struct cjv *id = bind ? &e->bind_id : &e->id;
	char idt[128];
	struct kbuf it = { idt, 0, sizeof(idt) }, k = { key, 0, cap };
	int local = 0;

	idt[0] = 0;
	if (id->kind == CJ_NONE && e->id2.kind == CJ_OBJ) {
		local = e->id2_local.kind != CJ_NONE;
		id = local ? &e->id2_local : &e->id2_global;
	}
	if (id->kind == CJ_NUM && id->d >= 0 && id->d < 1.8446744073709552e19) {
		kb_hex(&it, (unsigned long long)id->d);
	} else if (id->kind == CJ_STR && id->s[0]) {
		const char *v = id->s;
		char *end;
		unsigned long long n = strtoull(v, &end, 16);

		if (*end == 0 && v[0] != '-' && v[0] != '+' && v[0] != ' ')
			kb_hex(&it, n);
		else
			kb_z(&it, v);
	} else {
		return -1;
	}
	key[0] = 0;
	kb_put(&k, idt, it.n);
	if (local) {
		kb_put(&k, "@", 1);
		kb_dec(&k, (long long)pid);
	}
	if (name) {
		kb_put(&k, " ", 1);
		kb_z(&k, cat ? cat : "");
		kb_put(&k, "/", 1);
		kb_z(&k, name);
	}
	return 0;
}

/*
 * s, t, f: one end of a flow, bound to a slice of its thread at the end
 * (chrome_flows.c).  An f binds the slice open at its time with bp "e"
 * (Chrome writes it on every f), else the next slice to begin, as
 * Perfetto binds them; s and t bind the slice open at their time.
 */
static int flow_event(struct rd *r, struct tinfo *ti, const struct cev *ev, int64_t pid, int64_t ts,
		      const char *name, const char *cat, char ph, uint64_t off)
{
	char key[600];
	uint32_t row;
	int enclosing = ev->bp.kind == CJ_STR && strcmp(ev->bp.s, "e") == 0;

	if (flow_key(ev, 0, pid, cat, name, key, sizeof(key)))
		return pc_warn(r->ctx, W_BAD_EVENT, &(struct pc_loc){ r->name, off, 0, 0 },
			       "a flow ('%c') event without an id", ph);
	row = pc_str_intern_z(r->m, key);
	if (row == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	return pc_chrome_flow_add(r, (uint32_t)(ti - r->th), ts, row, ph, ph == 'f' && !enclosing,
				  PC_NONE)
		       ? 0
		       : PROFCONV_ERR_NOMEM;
}

/*
 * A slice with bind_id and flow_in/flow_out (flow v2) is an end of that
 * flow itself: row is its marker (PC_NONE for a B until its E).  *out: the
 * end's r->fl index + 1, or 0 when the slice has none.
 */
static int flow_v2(struct rd *r, struct tinfo *ti, const struct cev *e, int64_t ts, uint32_t row,
		   uint32_t *out)
{
	int in = e->flow_in.kind == CJ_TRUE, on = e->flow_out.kind == CJ_TRUE;
	char key[600];
	uint32_t k;

	*out = 0;
	if (e->bind_id.kind == CJ_NONE || (!in && !on) ||
	    flow_key(e, 1, 0, NULL, NULL, key, sizeof(key)))
		return 0;
	k = pc_str_intern_z(r->m, key);
	if (k == PC_NONE)
		return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	*out = pc_chrome_flow_add(r, (uint32_t)(ti - r->th), ts, k,
				  in && on ? 't' : on ? 's' : 'f', 0, row);
	return *out ? 0 : PROFCONV_ERR_NOMEM;
}

/* --- counters --- */

static int counter_event(struct rd *r, const cJSON *ev, int64_t pid, int64_t ts, const char *name,
			 const char *catname)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args"), *a;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");
	int err = 0;

	if (!cJSON_IsObject(args))
		return 0;
	cJSON_ArrayForEach(a, args)
	{
		char key[512], cname[300];
		double v;
		uint32_t i, c = PC_NONE;

		if (!a->string)
			continue;
		if (cJSON_IsNumber(a))
			v = a->valuedouble;
		else if (cJSON_IsString(a) && a->valuestring[0])
			v = strtod(a->valuestring, NULL);
		else
			continue;
		if (cJSON_IsString(id))
			pc_snprintf(cname, sizeof(cname), "%s[%s]", name, id->valuestring);
		else if (cJSON_IsNumber(id))
			pc_snprintf(cname, sizeof(cname), "%s[%.17g]", name, id->valuedouble);
		else
			pc_snprintf(cname, sizeof(cname), "%s", name);
		if (strcmp(a->string, "value") != 0 && cJSON_GetArraySize(args) > 1)
			pc_snprintf(cname + strlen(cname), sizeof(cname) - strlen(cname), " %s",
				    a->string);
		pc_snprintf(key, sizeof(key), "%lld\x1f%s", (long long)pid, cname);
		for (i = 0; i < r->nck; i++)
			if (strcmp(r->ck[i].key, key) == 0)
				c = r->ck[i].counter;
		if (c == PC_NONE) {
			uint32_t proc = pc_process_get(r->m, pid);

			if (pc_grow(r->ctx, (void **)&r->ck, sizeof(*r->ck), &r->ck_cap,
				    (size_t)r->nck + 1))
				return PROFCONV_ERR_NOMEM;
			c = pc_counter_add(r->m, cname, catname ? catname : "Trace", cname, proc);
			r->ck[r->nck].key = pc_strdup(r->ctx, key);
			if (c == PC_NONE || !r->ck[r->nck].key) {
				pc_free(r->ctx, r->ck[r->nck].key);
				return PROFCONV_ERR_NOMEM;
			}
			r->ck[r->nck++].counter = c;
		}
		err = pc_counter_sample(r->m, c, ts, v, 0, 0);
		if (err)
			return err;
	}
	return err;
}

/* --- V8 CPU profiles --- */

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
	fk.name = intern(r, fn);
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
		fk.source = pc_source_intern(r->m, intern(r, url));
		fk.resource = pc_resource_intern(r->m, intern(r, url), PC_NONE, PC_RES_URL, PC_NONE);
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
 * numbers are strtod's doubles and strings decode as with_cjson() has
 * them decoded.
 */

/* The first members of the object at the cursor named in keys[0..n): their values' starts in at[]. */
static int v8_members(struct pc_jscan *js, const char *const *keys, const char **at, size_t n)
{
	struct pc_jscan_it it;
	const char *k;
	size_t kl, i;
	int more, err;

	for (i = 0; i < n; i++)
		at[i] = NULL;
	if (pc_jscan_ws(js) != '{')
		return pc_jscan_skip(js); /* not an object: none of them */
	err = pc_jscan_enter(js, &it);
	while (!err && !(err = pc_jscan_next(js, &it, &k, &kl, &more)) && more) {
		for (i = 0; i < n; i++)
			if (!at[i] && kl == strlen(keys[i]) && memcmp(k, keys[i], kl) == 0) {
				at[i] = js->p;
				break;
			}
		err = pc_jscan_skip(js);
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

/* A ProfileChunk's nodes (the container at at): each node with a numeric id, in order. */
static int v8_nodes(struct rd *r, struct v8prof *pf, const char *at)
{
	static const char *const node_keys[] = { "id", "parent", "callFrame" };
	static const char *const cf_keys[] = { "functionName", "url", "lineNumber", "columnNumber" };
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

		/* the node's members, then past it to go on with the next one */
		err = v8_members(js, node_keys, nat, 3);
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
			v8_at(js, nat[2]);
			err = v8_members(js, cf_keys, cat, 4);
			if (!err && cat[0]) {
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
		n->id = to_i64(nid);
		n->parent = to_i64(par);
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

static int profile_event(struct rd *r, struct tinfo *ti, const struct cevr *ev, int64_t pid,
			 int64_t ts, const char *name)
{
	static const char *const args_keys[] = { "data" };
	static const char *const data_keys[] = { "startTime", "cpuProfile", "timeDeltas" };
	static const char *const cp_keys[] = { "nodes", "samples" };
	const struct cev *e = &ev->e;
	struct pc_jscan *js = &r->v8js;
	const char *args, *data, *dat[3], *cpat[2] = { NULL, NULL };
	struct pc_jscan_it it;
	char idbuf[64];
	struct v8prof *pf;
	int err, ok;

	if (e->id.kind == CJ_STR)
		pc_snprintf(idbuf, sizeof(idbuf), "%s", e->id.s);
	else if (e->id.kind == CJ_NUM)
		pc_snprintf(idbuf, sizeof(idbuf), "0x%llx",
			    e->id.d >= 0 && e->id.d < 1.8446744073709552e19
				    ? (unsigned long long)e->id.d
				    : (unsigned long long)to_i64(e->id.d));
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
			err = pc_jscan_skip(js);
			if (err)
				break;
		}
	}
	data = NULL;
	if (!err && args) {
		v8_at(js, args);
		err = v8_members(js, args_keys, &data, 1);
	}
	dat[0] = dat[1] = dat[2] = NULL;
	if (!err && data) {
		v8_at(js, data);
		err = v8_members(js, data_keys, dat, 3);
	}
	if (!err && dat[1]) {
		v8_at(js, dat[1]);
		err = v8_members(js, cp_keys, cpat, 2);
	}
	if (err)
		return err == PC_JSCAN_BAD ? pc_fail_at(r->ctx, PROFCONV_ERR_INTERNAL, r->name, ev->off,
							"a V8 profile event the scanner accepted could not be read again")
					   : err;
	if (strcmp(name, "Profile") == 0) {
		double st = 0;

		/* samples belong to the Profile event's thread */
		pf->thread = (uint32_t)(ti - r->th);
		ok = 0;
		if (dat[0]) {
			v8_at(js, dat[0]);
			err = v8_num(js, &st, &ok);
		}
		pf->time = ok ? pc_chrome_us_to_ns(st) : ts;
		return err;
	}
	{
		uint32_t ns, nd, i;
		struct tinfo *st;

		err = v8_nodes(r, pf, cpat[0]);
		if (err)
			return err;
		if (pf->thread == PC_NONE) {
			/* no Profile event seen: the chunk's own thread */
			pf->thread = (uint32_t)(ti - r->th);
			pf->time = ts;
		}
		st = &r->th[pf->thread];
		/* the samples' node ids, then the time deltas, after them */
		err = v8_numbers(r, cpat[1], 0, &ns);
		if (!err)
			err = v8_numbers(r, dat[2], ns, &nd);
		if (err)
			return err;
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
			n = node_of(pf, to_i64(sv));
			stack = n ? v8_stack(r, pf, n, 0) : PC_NONE;
			/* weighed by v8_weights() once the profile is whole (0 until then) */
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

struct v8order {
	const struct rd *r;
	const struct v8row *rows;
};

static int v8row_before(const void *user, uint32_t x, uint32_t y)
{
	const struct v8order *o = user;

	return v8row_time(o->r, &o->rows[x]) < v8row_time(o->r, &o->rows[y]);
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
static int v8_weights(struct rd *r, int64_t interval)
{
	uint32_t *idx = NULL, *tmp = NULL, cap = 0, i, k;
	int err = 0;

	for (i = 0; i < r->nprof; i++)
		for (k = 0; k < r->prof[i].nrows; k++) {
			struct pc_samples *s = &r->th[r->prof[i].rows[k].thread].t->samples;

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
		struct v8order o = { r, pf->rows };
		int64_t first, last, mean;

		if (!pf->nrows)
			continue;
		if (pf->nrows > cap) {
			pc_free(r->ctx, idx);
			pc_free(r->ctx, tmp);
			cap = pf->nrows;
			idx = pc_alloc(r->ctx, (size_t)cap * sizeof(*idx));
			tmp = pc_alloc(r->ctx, (size_t)cap * sizeof(*tmp));
			if (!idx || !tmp) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
		}
		for (k = 0; k < pf->nrows; k++)
			idx[k] = k;
		pc_merge_sort(idx, tmp, pf->nrows, v8row_before, &o);
		first = v8row_time(r, &pf->rows[idx[0]]);
		last = v8row_time(r, &pf->rows[idx[pf->nrows - 1]]);
		mean = pf->nrows > 1 ? pc_time_sub(last, first) / (int64_t)(pf->nrows - 1) : interval;
		for (k = 0; k < pf->nrows; k++) {
			const struct v8row *v = &pf->rows[idx[k]];

			r->th[v->thread].t->samples.weight[v->row] =
				k + 1 < pf->nrows
					? pc_time_sub(v8row_time(r, &pf->rows[idx[k + 1]]),
						      v8row_time(r, v))
					: mean;
		}
	}
	pc_free(r->ctx, idx);
	pc_free(r->ctx, tmp);
	return err;
}

/* --- metadata --- */

static struct pmeta *pmeta_of(struct rd *r, int64_t pid)
{
	uint32_t i;

	for (i = 0; i < r->npm; i++)
		if (r->pm[i].pid == pid)
			return &r->pm[i];
	if (pc_grow(r->ctx, (void **)&r->pm, sizeof(*r->pm), &r->pm_cap, (size_t)r->npm + 1))
		return NULL;
	memset(&r->pm[r->npm], 0, sizeof(r->pm[r->npm]));
	r->pm[r->npm].pid = pid;
	return &r->pm[r->npm++];
}

static int metadata_event(struct rd *r, struct tinfo *ti, const struct cev *e, int64_t pid,
			  const char *name)
{
	const struct cjv *sv = cv_arg(e, "name"), *nv;
	const char *s = sv ? cv_str(sv) : NULL;
	double v;

	if (strcmp(name, "thread_name") == 0 && s && ti) {
		ti->t->name = intern(r, s);
		return ti->t->name == PC_NONE ? PROFCONV_ERR_NOMEM : 0;
	}
	if (strcmp(name, "process_name") == 0 && s) {
		uint32_t proc = pc_process_get(r->m, pid);

		if (proc == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		r->m->processes.rows[proc].name = pc_model_keep(r->m, s, strlen(s));
		return 0;
	}
	nv = cv_arg(e, "sort_index");
	if (strcmp(name, "process_sort_index") == 0 && nv && cv_num(nv, &v)) {
		struct pmeta *pm = pmeta_of(r, pid);

		if (!pm)
			return PROFCONV_ERR_NOMEM;
		pm->sort_index = to_i64(v);
		return 0;
	}
	sv = cv_arg(e, "labels");
	if (strcmp(name, "process_labels") == 0 && sv && (s = cv_str(sv)) && *s) {
		struct pmeta *pm = pmeta_of(r, pid);

		if (!pm)
			return PROFCONV_ERR_NOMEM;
		pm->labels = pc_model_keep(r->m, s, strlen(s));
		return pm->labels ? 0 : PROFCONV_ERR_NOMEM;
	}
	if (ti && strcmp(name, "thread_sort_index") == 0 && nv && cv_num(nv, &v)) {
		ti->sort_index = to_i64(v);
		ti->has_sort = 1;
	}
	return 0;
}

/* --- one event --- */

/*
 * The kinds whose handlers read deep into the event (V8 profiles, stack
 * samples, contexts, counters, a process's stackFrames): the event text
 * parsed with cJSON.  Lone surrogate escapes become U+FFFD first, as the
 * scanner decodes them (cJSON refuses them).
 */
static int with_cjson(struct rd *r, const struct cevr *ev, cJSON **out)
{
	size_t len = ev->len;
	char *doc = pc_alloc(r->ctx, len + 2);
	uint64_t off = ev->off;

	*out = NULL;
	if (!doc)
		return PROFCONV_ERR_NOMEM;
	doc[0] = '{';
	memcpy(doc + 1, ev->text, len);
	doc[len + 1] = 0;
	pc_json_fix_surrogates(doc, len + 1, "", NULL, 0);
	*out = cJSON_ParseWithLength(doc, len + 1);
	pc_free(r->ctx, doc);
	return *out ? 0
		    : pc_fail_at(r->ctx, PROFCONV_ERR_NOMEM, r->name, off,
				 "an object could not be parsed (out of memory)");
}

static int handle_event(struct rd *r, const struct cevr *ev)
{
	const struct cev *e = &ev->e;
	uint64_t off = ev->off;
	const char *name = cv_str(&e->name), *ph = cv_str(&e->ph);
	const char *cat = cv_str(&e->cat);
	struct pc_loc loc = { r->name, off, 0, 0 };
	int64_t pid = cv_id(&e->pid, 0), tid, ts;
	double tsu = 0, dur;
	struct tinfo *ti;
	uint32_t nm, set;
	uint16_t c;
	cJSON *cj;
	int err;

	if (!ph || !ph[0] || ph[1])
		return e->nmembers == 0 ? 0 /* {} */
					: pc_warn(r->ctx, W_BAD_EVENT, &loc,
						  "an event without a one-letter ph");
	tid = cv_id(&e->tid, pid);
	if (!cv_num(&e->ts, &tsu) && ph[0] != 'M')
		return pc_warn(r->ctx, W_BAD_EVENT, &loc, "a '%s' event without a numeric ts", ph);
	ts = pc_chrome_us_to_ns(tsu);
	if (ph[0] != 'M' && (r->first_ts == PC_NO_TIME || ts < r->first_ts))
		r->first_ts = ts;
	if (ph[0] != 'M' && ts > r->last_ts)
		r->last_ts = ts;
	if (ph[0] == 'X' && cv_num(&e->dur, &dur) && dur > 0 &&
	    pc_time_add(ts, pc_chrome_us_to_ns(dur)) > r->last_ts)
		r->last_ts = pc_time_add(ts, pc_chrome_us_to_ns(dur));
	if (ph[0] == 'M' && name && strncmp(name, "process_", 8) == 0)
		return metadata_event(r, NULL, e, pid, name); /* no thread of its own */
	ti = pc_chrome_thread(r, pid, tid);
	if (!ti)
		return PROFCONV_ERR_NOMEM;
	if (ph[0] == 'M') {
		if (!name)
			return 0;
		if (!pc_chrome_cjson_kind('M', name, e->name.len))
			return metadata_event(r, ti, e, pid, name);
		err = with_cjson(r, ev, &cj);
		if (!err)
			err = pc_chrome_stack_frames_event(r, cj, pid);
		cJSON_Delete(cj);
		return err;
	}
	if (!name && ph[0] != 'E')
		return pc_warn(r->ctx, W_BAD_EVENT, &loc, "a '%s' event without a name", ph);
	switch (ph[0]) {
	case 'X': {
		uint32_t pl, fl;
		int64_t end;

		if (!cv_num(&e->dur, &dur) || dur < 0)
			dur = 0;
		nm = name_row(r, name, e->name.len, e->hname);
		c = ev_category(r, e);
		set = pc_chrome_active_set(r, ti);
		pl = payload(r, e, cat, set);
		if (pl == PC_NONE || nm == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		end = pc_time_add(ts, pc_chrome_us_to_ns(dur));
		err = push_marker_set(r, ti, nm, ts, end, PC_PHASE_INTERVAL, c, pl, set);
		if (!err && e->bind_id.kind != CJ_NONE)
			err = flow_v2(r, ti, e, ts, ti->t->markers.len - 1, &fl);
		if (!err && r->blame)
			err = pc_chrome_add_cslice(r, ti, nm, ts, end, set, 0, r->norder++);
		return err ? err : keep_slice(r, ti, ts, end, nm, c);
	}
	case 'B': {
		struct open_b *b;

		if (pc_grow(r->ctx, (void **)&ti->open, sizeof(*ti->open), &ti->open_cap,
			    (size_t)ti->nopen + 1))
			return PROFCONV_ERR_NOMEM;
		b = &ti->open[ti->nopen];
		b->name = name_row(r, name, e->name.len, e->hname);
		b->start = ts;
		b->cat = ev_category(r, e);
		b->set = pc_chrome_active_set(r, ti);
		b->payload = payload(r, e, cat, b->set);
		if (b->payload == PC_NONE || b->name == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		b->order = r->norder++;
		b->flow = 0;
		ti->nopen++;
		return e->bind_id.kind != CJ_NONE ? flow_v2(r, ti, e, ts, PC_NONE, &b->flow) : 0;
	}
	case 'E': {
		struct open_b b;

		if (!ti->nopen)
			return pc_warn(r->ctx, W_UNMATCHED, &loc,
				       "an E event at %.3f us on thread %lld closes no B", tsu,
				       (long long)tid);
		b = ti->open[--ti->nopen];
		b.payload = merge_end_args(r, b.payload, e);
		if (b.payload == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		err = push_marker_set(r, ti, b.name, b.start, ts, PC_PHASE_INTERVAL, b.cat, b.payload,
				      b.set);
		if (!err && b.flow)
			r->fl[b.flow - 1].row = ti->t->markers.len - 1;
		if (!err && r->blame)
			err = pc_chrome_add_cslice(r, ti, b.name, b.start, ts, b.set, 1, b.order);
		return err ? err : keep_slice(r, ti, b.start, ts, b.name, b.cat);
	}
	case 'I':
	case 'i':
	case 'R':
	case 'n': {
		uint32_t pl = payload(r, e, cat, PC_NONE); /* instants get no context (R6) */

		nm = name_row(r, name, e->name.len, e->hname);
		if (pl == PC_NONE || nm == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		if (ph[0] == 'n') {
			/* an async instant: on the process's async track */
			ti = async_thread(r, pid);
			if (!ti)
				return PROFCONV_ERR_NOMEM;
		}
		return push_marker(r, ti, nm, ts, PC_NO_TIME, PC_PHASE_INSTANT,
				   ev_category(r, e), pl);
	}
	case 'b':
	case 'S':
		return async_begin(r, ti, e, pid, ts, name_row(r, name, e->name.len, e->hname),
				   ev_category(r, e),
				   cat);
	case 'e':
	case 'F':
		return async_end(r, e, pid, ts);
	case 's':
	case 't':
	case 'f':
		return flow_event(r, ti, e, pid, ts, name, cat, ph[0], off);
	default:
		if (pc_chrome_cjson_kind(ph[0], NULL, 0))
			break;
		return pc_warn(r->ctx, W_SKIPPED, &loc,
			       "'%s' events (and other kinds profconv does not import) skipped", ph);
	}
	if (ph[0] == 'P' && (strcmp(name, "Profile") == 0 || strcmp(name, "ProfileChunk") == 0))
		return profile_event(r, ti, ev, pid, ts, name);
	/* the kinds read through cJSON */
	err = with_cjson(r, ev, &cj);
	if (err)
		return err;
	switch (ph[0]) {
	case 'C':
		err = counter_event(r, cj, pid, ts, name, cat);
		break;
	case 'P':
		err = pc_chrome_p_sample(r, ti, cj, pid, ts, off);
		break;
	default:
		err = pc_chrome_context_event(r, ti, cj, pid, ts, ph[0]);
		break;
	}
	cJSON_Delete(cj);
	return err;
}

/* --- the event array --- */

/* Capture the object after an OBJ_BEGIN token (at off) and parse it alone with cJSON. */
static int parse_rest(struct rd *r, uint64_t off, cJSON **out)
{
	const char *buf;
	size_t len;
	char *doc;
	int err = pc_jpull_capture_rest(r->p, &buf, &len, EVENT_MAX);

	*out = NULL;
	if (err)
		return err;
	doc = pc_alloc(r->ctx, len + 2);
	if (!doc)
		return PROFCONV_ERR_NOMEM;
	doc[0] = '{';
	memcpy(doc + 1, buf, len);
	doc[len + 1] = 0;
	*out = cJSON_ParseWithLength(doc, len + 1);
	pc_free(r->ctx, doc);
	return *out ? 0
		    : pc_fail_at(r->ctx, PROFCONV_ERR_NOMEM, r->name, off,
				 "an object could not be parsed (out of memory)");
}

/*
 * The events array, from chrome_scan.c's batches (scanned on a thread of
 * its own while the previous ones are handled here, in file order).
 */
static int read_events(struct rd *r)
{
	struct cbatch *b;
	struct cscan *s;
	uint64_t reported = 0;
	int err = pc_chrome_scan_begin(r->ctx, r->p, &s);

	if (err)
		return err;
	while (!err && (b = pc_chrome_scan_next(s)) != NULL) {
		uint32_t i;

		for (i = 0; i < b->n && i < AHEAD; i++)
			ev_ahead(r, &b->ev[i].e);
		for (i = 0; i < b->n && !err; i++) {
			if (i + AHEAD < b->n)
				ev_ahead(r, &b->ev[i + AHEAD].e);
			if (i + AHEAD / 2 < b->n)
				ev_nearer(r, &b->ev[i + AHEAD / 2].e);
			r->nevents++;
			err = handle_event(r, &b->ev[i]);
		}
		/* the scanner reads on a context of its own: progress and the
		 * cancel callback are asked here, on the caller's thread */
		if (!err && (r->ctx->progress || r->ctx->cancel) &&
		    b->done - reported >= ((uint64_t)1 << 20)) {
			reported = b->done;
			if (r->ctx->progress)
				r->ctx->progress(r->ctx->progress_user, b->done, b->total);
			err = pc_cancelled(r->ctx, pc_input_name(pc_jpull_input(r->p)), b->done);
		}
		if (b->end)
			break;
	}
	if (err) /* the reader's error comes first in the file: the scanner's is dropped */
		pc_chrome_scan_end(s);
	else
		err = pc_chrome_scan_end(s);
	if ((err & 0xff) == PROFCONV_ERR_CORRUPT && pc_jpull_at_eof(r->p)) {
		/* Chrome could not finish the file: keep what came before */
		char why[1024];

		pc_snprintf(why, sizeof(why), "%s", r->ctx->errmsg);
		pc_clear_error(r->ctx);
		return pc_warn(r->ctx, W_TRUNCATED, NULL,
			       "%s (the trace is cut off; the %llu events before the cut were read)",
			       why, (unsigned long long)r->nevents);
	}
	return err;
}

/* The object form's stackFrames: {"id": {name, category, parent}, ...}, member by member. */
static int read_stack_frames(struct rd *r)
{
	const struct pc_jtok *t;
	int err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "stackFrames", &t);

	while (!err) {
		char id[300];
		cJSON *fr;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(id, sizeof(id), "%s", t->str);
		{
			enum pc_jtype type;

			err = pc_jpull_peek(r->p, &type);
			if (!err && type != PC_JT_OBJ_BEGIN) {
				/* damage inside the dictionary: this entry only */
				err = pc_jpull_skip_value(r->p);
				if (!err)
					err = pc_warn(r->ctx, W_BAD_FRAME, NULL,
						      "%s: stackFrames[\"%s\"] is not an object; skipped",
						      r->name, id);
				continue;
			}
		}
		if (!err)
			err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "a stackFrames entry", &t);
		if (!err)
			err = parse_rest(r, t->offset, &fr);
		if (!err) {
			err = pc_chrome_stack_frame(r, "g", id, fr);
			cJSON_Delete(fr);
		}
	}
	return err;
}

/* The object form's samples: [{cpu, tid, ts, name, sf, weight}, ...]. */
static int read_samples(struct rd *r)
{
	const struct pc_jtok *t;
	int err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "samples", &t);

	while (!err) {
		uint64_t off;
		cJSON *o;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_ARR_END)
			break;
		off = t->offset;
		if (t->type != PC_JT_OBJ_BEGIN)
			return pc_jr_corrupt(r->ctx, r->p, t, "expected a sample object, got %s",
					     pc_jr_type_name(t->type));
		err = parse_rest(r, off, &o);
		if (!err) {
			err = pc_chrome_global_sample(r, o, off);
			cJSON_Delete(o);
		}
	}
	return err;
}

static int read_top(struct rd *r)
{
	const struct pc_jtok *t;
	int err, seen = 0;

	err = pc_jpull_next(r->p, &t);
	if (err)
		return err;
	if (t->type == PC_JT_ARR_BEGIN)
		return read_events(r);
	if (t->type != PC_JT_OBJ_BEGIN)
		return pc_jr_corrupt(r->ctx, r->p, t, "expected a trace ([ or {), got %s",
				     pc_jr_type_name(t->type));
	for (;;) {
		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "traceEvents") == 0) {
			err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "traceEvents", &t);
			if (!err)
				err = read_events(r);
			seen = 1;
			if (!err && r->ctx->warn_total && pc_jpull_at_eof(r->p))
				return 0; /* cut off inside traceEvents: done */
		} else if (strcmp(t->str, "stackFrames") == 0) {
			err = read_stack_frames(r);
		} else if (strcmp(t->str, "samples") == 0) {
			err = read_samples(r);
		} else if (strcmp(t->str, "systemTraceEvents") == 0) {
			pc_note(r->ctx, "%s: systemTraceEvents (ftrace/ETW text) skipped", r->name);
			err = pc_jpull_skip_value(r->p);
		} else {
			err = pc_jpull_skip_value(r->p);
		}
		if (err)
			return err;
	}
	if (!seen)
		return pc_fail_at(r->ctx, PROFCONV_ERR_CORRUPT, r->name, 0,
				  "the trace object has no traceEvents array");
	return 0;
}

/* --- after the events --- */

/* Slice a before slice b: earlier start, then the longer one (it encloses), then file order. */
static int slice_before(const void *markers, uint32_t a, uint32_t b)
{
	const struct pc_markers *mk = markers;

	if (mk->start[a] != mk->start[b])
		return mk->start[a] < mk->start[b];
	if (mk->end[a] != mk->end[b])
		return mk->end[a] > mk->end[b];
	return a < b;
}

#define DS_CACHE 4096 /* a power of 2 */
#define DS_NARROW 8	/* children a prefix keeps in a list only */

/*
 * The derived samples' stacks, found by (prefix, frame).  Nearly every
 * prefix has a few children (a generated 250 MiB trace: 31,000 of its
 * 561,000 stacks are children of a prefix with more than 8), so each
 * stack's children are a list, walked; only the children of the wide
 * prefixes (and of no prefix, past 8) are in a hash index.  The index
 * stays small (a few hundred KiB) where one over every stack was as big as
 * the stack table, missed the caches on nearly every lookup and cost its
 * fresh pages.  Rows are made in the same order as pc_stack_intern() would
 * make them, with pc_stack_add_new() (the model's own index, 16 bytes a
 * stack, is not grown for them; the model rebuilds it if anything interns a
 * stack later).
 */
struct dstacks {
	struct pc_model *m;
	uint32_t *child; /* stack row -> its first child, or PC_NONE */
	uint32_t *sib;	 /* stack row -> the next child of its prefix, or PC_NONE */
	uint8_t *nkids;	 /* stack row -> its children, up to 255 */
	uint32_t cap;	 /* rows child, sib and nkids hold */
	uint32_t root;	 /* the first stack without a prefix */
	uint32_t nroot;	 /* stacks without a prefix */
	struct pc_itab index; /* the children of wide prefixes */
	/* the (prefix, frame) pairs looked up lately */
	struct {
		uint64_t key; /* UINT64_MAX: empty (a frame is never PC_NONE) */
		uint32_t row;
	} cache[DS_CACHE];
};

static int dstack_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_stack_table *t = table;
	uint64_t k;

	memcpy(&k, key, sizeof(k));
	return t->prefix[row] == (uint32_t)(k >> 32) && t->frame[row] == (uint32_t)k;
}

static int dstacks_room(struct dstacks *d, uint32_t rows)
{
	uint32_t cap = d->cap;

	if (rows <= d->cap)
		return 0;
	if (pc_grow(d->m->ctx, (void **)&d->child, sizeof(*d->child), &cap, rows))
		return PROFCONV_ERR_NOMEM;
	cap = d->cap;
	if (pc_grow(d->m->ctx, (void **)&d->sib, sizeof(*d->sib), &cap, rows))
		return PROFCONV_ERR_NOMEM;
	cap = d->cap;
	if (pc_grow(d->m->ctx, (void **)&d->nkids, sizeof(*d->nkids), &cap, rows))
		return PROFCONV_ERR_NOMEM;
	d->cap = cap;
	return 0;
}

/* Row into the index (a child of a wide prefix). */
static int dstack_index(struct dstacks *d, uint32_t row)
{
	uint64_t key = (uint64_t)d->m->stacks.prefix[row] << 32 | d->m->stacks.frame[row];
	uint32_t h = (uint32_t)pc_hash64(key), slot;

	if (pc_itab_find(&d->index, h, dstack_eq, &d->m->stacks, &key, &slot) != PC_NONE)
		return 0; /* (a duplicate pair: the first one stays found) */
	return pc_itab_insert(d->m->ctx, &d->index, slot, h, row);
}

static uint32_t dstack_intern(struct dstacks *d, uint32_t prefix, uint32_t frame)
{
	uint64_t key = (uint64_t)prefix << 32 | frame;
	uint32_t h = (uint32_t)pc_hash64(key), c = h & (DS_CACHE - 1);
	const uint32_t *fr = d->m->stacks.frame;
	uint32_t n = prefix == PC_NONE ? d->nroot : d->nkids[prefix], row, slot = PC_NONE;

	if (d->cache[c].key == key)
		return d->cache[c].row;
	if (n > DS_NARROW) {
		row = pc_itab_find(&d->index, h, dstack_eq, &d->m->stacks, &key, &slot);
	} else {
		for (row = prefix == PC_NONE ? d->root : d->child[prefix]; row != PC_NONE;
		     row = d->sib[row])
			if (fr[row] == frame)
				break;
	}
	if (row == PC_NONE) {
		uint32_t *head;

		row = pc_stack_add_new(d->m, prefix, frame);
		if (row == PC_NONE || dstacks_room(d, row + 1))
			return PC_NONE;
		head = prefix == PC_NONE ? &d->root : &d->child[prefix];
		d->child[row] = PC_NONE;
		d->nkids[row] = 0;
		d->sib[row] = *head;
		*head = row;
		if (prefix == PC_NONE)
			d->nroot++;
		else if (d->nkids[prefix] < 255)
			d->nkids[prefix]++;
		if (n > DS_NARROW) {
			if (pc_itab_insert(d->m->ctx, &d->index, slot, h, row))
				return PC_NONE;
		} else if (n == DS_NARROW) { /* now wide: its children into the index */
			uint32_t k;

			for (k = *head; k != PC_NONE; k = d->sib[k])
				if (dstack_index(d, k))
					return PC_NONE;
		}
	}
	d->cache[c].key = key;
	d->cache[c].row = row;
	return row;
}

/* The stacks there are so far (each list in row order: the first row of a pair wins). */
static int dstacks_init(struct dstacks *d, struct pc_model *m)
{
	uint32_t i;

	d->m = m;
	d->child = d->sib = NULL;
	d->nkids = NULL;
	d->cap = 0;
	d->root = PC_NONE;
	d->nroot = 0;
	memset(&d->index, 0, sizeof(d->index));
	memset(d->cache, 0xff, sizeof(d->cache));
	if (dstacks_room(d, m->stacks.len + 1))
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < m->stacks.len; i++) {
		d->child[i] = PC_NONE;
		d->nkids[i] = 0;
	}
	for (i = m->stacks.len; i-- > 0;) {
		uint32_t p = m->stacks.prefix[i];

		if (p == PC_NONE) {
			d->sib[i] = d->root;
			d->root = i;
			d->nroot++;
		} else {
			d->sib[i] = d->child[p];
			d->child[p] = i;
			if (d->nkids[p] < 255)
				d->nkids[p]++;
		}
	}
	/* the wide ones' children into the index, in row order */
	for (i = 0; i < m->stacks.len; i++) {
		uint32_t p = m->stacks.prefix[i];

		if ((p == PC_NONE ? d->nroot : d->nkids[p]) > DS_NARROW && dstack_index(d, i))
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

static void dstacks_free(struct dstacks *d)
{
	pc_free(d->m->ctx, d->child);
	pc_free(d->m->ctx, d->sib);
	pc_free(d->m->ctx, d->nkids);
	pc_itab_free(d->m->ctx, &d->index);
}

/*
 * Threads with slices and no samples: a sample for each stretch of time in
 * which the open slices (outermost first) stay the same, at its start,
 * weighing its duration (weight type "tracing-ms", ns in the model), so a
 * function's self time is its slices' self time exactly.  A stretch with no
 * slice open between two slices gets one sample at its start with no stack
 * and weight 0 (the front-end draws a sample until the next one: without it
 * the gap would look busy in the stack chart and the graphs); two stretches one after the other with the same
 * stack are one.  The slices are the thread's markers keep_slice() flagged,
 * taken in order of start (the longer first, then file order); a slice
 * ends the stretch of those it starts inside, and closes when it is the
 * innermost one and its end has come (one that ends before a slice inside
 * it, which the format does not allow, stays open until that one closes).
 */
static int derive_samples(struct rd *r)
{
	uint32_t th, depth, known;
	uint32_t stack_frames[256];
	uint32_t stack_rows[256]; /* [d]: the stack of frames 0..d; rows below known are */
	int64_t stack_end[256];
	uint32_t *idx = NULL, *tmp = NULL;
	size_t cap = 0;
	struct dstacks ds;
	int err = 0;

	for (th = 0; th < r->nth; th++)
		if (r->th[th].nslices && !r->th[th].has_real_samples)
			break;
	if (th == r->nth)
		return 0; /* nothing to derive */
	err = dstacks_init(&ds, r->m);
	for (th = 0; th < r->nth && !err; th++) {
		struct tinfo *ti = &r->th[th];
		const struct pc_markers *mk = &ti->t->markers;
		struct pc_samples *sm = &ti->t->samples;
		uint32_t n = 0, k, w, last = PC_NONE; /* last: the sample the stretch before made */
		int64_t t, next, last_end = 0;

		if (!ti->nslices || ti->has_real_samples)
			continue;
		sm->weight_type = "tracing-ms";
		if (ti->nslices > cap) {
			pc_free(r->ctx, idx);
			pc_free(r->ctx, tmp);
			cap = ti->nslices;
			idx = pc_alloc(r->ctx, cap * sizeof(*idx));
			tmp = pc_alloc(r->ctx, cap * sizeof(*tmp));
			if (!idx || !tmp) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
		}
		for (w = 0; w < ti->sbits_used; w++) {
			uint64_t bits = ti->sbits[w];

			while (bits) {
				k = w * 64 + (uint32_t)__builtin_ctzll(bits);
				bits &= bits - 1;
				idx[n++] = k;
			}
		}
		pc_merge_sort(idx, tmp, n, slice_before, mk);
		depth = 0;
		known = 0;
		k = 0;
		t = n ? mk->start[idx[0]] : 0;
		while (!err && (k < n || depth)) {
			uint32_t s = PC_NONE, d;

			/* the slices that have begun by t, each closing what ended before it */
			while (k < n && mk->start[idx[k]] <= t) {
				uint32_t row = idx[k];

				while (depth && stack_end[depth - 1] <= mk->start[row])
					depth--;
				if (known > depth)
					known = depth;
				if (depth < PC_ARRAY_SIZE(stack_frames)) {
					stack_frames[depth] =
						label_frame(r, mk->name[row], mk->category[row]);
					if (stack_frames[depth] == PC_NONE) {
						err = PROFCONV_ERR_NOMEM;
						break;
					}
					stack_end[depth] = mk->end[row];
					depth++;
				}
				k++;
			}
			while (depth && stack_end[depth - 1] <= t)
				depth--;
			if (known > depth)
				known = depth;
			if (err)
				break;
			/* the stretch runs to the next start or the innermost slice's end */
			next = k < n ? mk->start[idx[k]] : INT64_MAX;
			if (depth && stack_end[depth - 1] < next)
				next = stack_end[depth - 1];
			if (!depth) {
				/* a gap before the next slice: an empty sample
				 * weighing nothing ends the stretch before it in
				 * the stack chart and the graphs */
				if (last != PC_NONE && last_end == t && k < n && next > t) {
					err = pc_sample_add(r->m, ti->t, PC_NONE, t, 0);
					if (err)
						break;
				}
				t = next; /* (k < n: the loop goes on) */
				continue;
			}
			/* the open slices' stack, interned from the first level not
			 * known since they last changed (the same rows, in the same
			 * order, as interning the whole path each time) */
			for (d = known; d < depth; d++) {
				s = dstack_intern(&ds, d ? stack_rows[d - 1] : PC_NONE, stack_frames[d]);
				if (s == PC_NONE) {
					err = r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
					break;
				}
				stack_rows[d] = s;
			}
			if (err)
				break;
			known = depth;
			s = stack_rows[depth - 1];
			if (last != PC_NONE && sm->stack[last] == s && last_end == t) {
				sm->weight[last] = pc_time_sub(next, sm->time[last]); /* the same stack goes on */
			} else if (next > t) {
				err = pc_sample_add(r->m, ti->t, s, t, 0);
				if (!err && !sm->weight)
					err = PROFCONV_ERR_INTERNAL; /* (a weight of 0 makes the column) */
				if (err)
					break;
				last = sm->len - 1;
				sm->weight[last] = pc_time_sub(next, t);
			}
			last_end = next;
			t = next;
		}
	}
	pc_free(r->ctx, idx);
	pc_free(r->ctx, tmp);
	dstacks_free(&ds);
	return err;
}

/* Unclosed B and async spans become IntervalStart markers. */
static int close_open(struct rd *r)
{
	uint32_t i, k;
	int err = 0;

	for (i = 0; i < r->nth && !err; i++)
		for (k = 0; k < r->th[i].nopen && !err; k++) {
			err = push_marker(r, &r->th[i], r->th[i].open[k].name, r->th[i].open[k].start,
					  PC_NO_TIME, PC_PHASE_START, r->th[i].open[k].cat,
					  r->th[i].open[k].payload);
			if (!err && r->th[i].open[k].flow)
				r->fl[r->th[i].open[k].flow - 1].row = r->th[i].t->markers.len - 1;
		}
	for (i = 0; i < r->nas && !err; i++)
		if (r->as[i].key) /* still open */
			err = push_marker(r, &r->th[r->as[i].thread], r->as[i].name,
					  r->as[i].start, PC_NO_TIME, PC_PHASE_START, r->as[i].cat,
					  r->as[i].payload);
	return err;
}

/* The TraceEvent schema: type, cat and every args key seen. */
/* The kinds of values an args key had (0: none seen). */
static uint8_t arg_kinds(struct rd *r, const char *key)
{
	uint32_t row = pc_pv_text_intern(r->m, key, strlen(key)); /* there already */

	return row != PC_NONE && row < r->nkinds ? r->kinds[row] : 0;
}

/*
 * TraceEvent payloads hold their string values as string-table references
 * (format unique-string: a repeated value is written once, in the string
 * table).  A key that also had numbers or booleans, or that did not make
 * it into the schema (more than MAX_ARG_KEYS keys), gets format string: its
 * references become plain strings again.  A payload may be shared by many
 * markers; one already mended is left as it is.
 */
static int strings_or_refs(struct rd *r)
{
	struct pc_model *m = r->m;
	uint8_t *plain;
	uint32_t i, k;
	int any = 0;

	if (!r->nkinds)
		return 0;
	plain = pc_calloc(r->ctx, r->nkinds, 1);
	if (!plain)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < r->nkinds; i++) {
		size_t len;
		const char *key;

		if (!(r->kinds[i] & KIND_STR) || i == r->row_cat || i == r->row_flow ||
		    i == r->row_tflow)
			continue;
		key = pc_pv_text(m, i, &len);
		plain[i] = r->kinds[i] != KIND_STR ||
			   (i != r->row_contexts && pc_smap_get(&r->arg_seen, key, len) == PC_NONE);
		any |= plain[i];
	}
	for (i = 0; any && i < r->nth; i++) {
		const struct pc_markers *mk = &r->th[i].t->markers;

		for (k = 0; k < mk->len; k++) {
			uint32_t p = mk->payload[k], c, j;
			const struct pc_val *o;

			if (p == PC_NONE || (o = pc_pv(m, p))->kind != PC_VAL_OBJ || !o->v.n ||
			    pc_pv(m, p + 1)->key != r->row_type ||
			    pc_pv(m, p + 1)->kind != PC_VAL_STR ||
			    pc_pv(m, p + 1)->v.s != r->row_trace_event)
				continue;
			for (j = 0, c = p + 1; j < o->v.n; j++, c += pc_val_span(pc_pv(m, c))) {
				struct pc_val *v = &m->pv.nodes[c];
				uint32_t row;

				if (v->kind != PC_VAL_SREF || v->key >= r->nkinds || !plain[v->key])
					continue;
				row = pc_pv_text_intern(m, pc_str(m, v->v.s), m->strings.lens[v->v.s]);
				if (row == PC_NONE) {
					pc_free(r->ctx, plain);
					return PROFCONV_ERR_NOMEM;
				}
				v->kind = PC_VAL_STR;
				v->v.s = row;
			}
		}
	}
	pc_free(r->ctx, plain);
	return 0;
}

static int add_schema(struct rd *r)
{
	static const char *const display[] = { "marker-chart", "marker-table", "timeline-overview",
					       NULL };
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
			{ "flowFrom", "Flow from", "string", 0 },
			{ "flowTo", "Flow to", "string", 0 },
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
	return pc_schema_add_simple(r->m, "TraceEvent", display, f, n, "{marker.name}", NULL, NULL,
				    "A Chrome trace event") == PC_NONE
		       ? PROFCONV_ERR_NOMEM
		       : 0;
}

/* Threads in the order order_threads() chose. */
static int tinfo_cmp_model(const void *a, const void *b)
{
	const struct pc_thread *x = *(const struct pc_thread *const *)a;
	const struct pc_thread *y = *(const struct pc_thread *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* The keys order_threads() sorts by, one row per thread. */
struct tkey {
	int64_t psort, pid, tsort, tid;
	int main;
	struct pc_thread *t;
};

static int tkey_cmp(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;

	if (x->psort != y->psort)
		return x->psort < y->psort ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tsort != y->tsort)
		return x->tsort < y->tsort ? -1 : 1;
	if (x->main != y->main)
		return x->main ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Is ti a main thread as the Firefox Profiler's Chrome importer decides
 * (chrome.ts, getThreadInfo(), production branch): a name that starts with
 * "Cr" and ends with "Main" (CrBrowserMain, CrRendererMain, CrGpuMain; not
 * network.CrUtilityMain, which is main by its tid), or tid = pid other than
 * pid 0.  The importer looks only at threads that have a thread_name event;
 * a nameless thread with tid = pid counts here too (its process would get
 * no main-thread track otherwise).
 */
static int main_candidate(const struct rd *r, const struct tinfo *ti)
{
	const char *nm = pc_str(r->m, ti->t->name);
	size_t n = nm ? strlen(nm) : 0;

	if (ti->pid != 0 && ti->tid == ti->pid)
		return 1;
	return n >= 6 && strncmp(nm, "Cr", 2) == 0 && strcmp(nm + n - 4, "Main") == 0;
}

/*
 * As the Firefox Profiler's Chrome importer orders them: processes by
 * process_sort_index, threads of a process by thread_sort_index, where
 * CrBrowserMain and CrGpuMain without one count as -1; then (where it
 * takes first appearance) by pid, the main thread (main_candidate()) first,
 * and tid.  Process labels join the process name as the importer shows
 * them: "Name (labels)".
 *
 * Main threads: the first candidate of each process in that order, one per
 * process.  The importer flags every candidate, and the front-end's track
 * code then gives the process's track to the last of them and no track at
 * all to the others (computeGlobalTracks/computeLocalTracksByPid); with one
 * flagged, the others stay visible as threads of their own.  The process
 * row's main thread is set to it too (counters are drawn with it).
 */
static int order_threads(struct rd *r)
{
	struct tkey *k = pc_alloc(r->ctx, ((size_t)r->nth + 1) * sizeof(*k));
	uint32_t i, j;

	if (!k)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < r->nth; i++) {
		struct tinfo *ti = &r->th[i];
		const char *nm = pc_str(r->m, ti->t->name);

		k[i].psort = 0;
		for (j = 0; j < r->npm; j++)
			if (r->pm[j].pid == ti->pid)
				k[i].psort = r->pm[j].sort_index;
		k[i].pid = ti->pid;
		k[i].tsort = ti->has_sort ? ti->sort_index
					  : strcmp(nm, "CrBrowserMain") == 0 || strcmp(nm, "CrGpuMain") == 0
						    ? -1
						    : 0;
		k[i].tid = ti->tid;
		k[i].main = main_candidate(r, ti);
		k[i].t = ti->t;
		ti->t->is_main = 0;
	}
	qsort(k, r->nth, sizeof(*k), tkey_cmp);
	for (i = 0, j = 0; i < r->nth; i++) {
		struct pc_thread *t = k[i].t;
		uint32_t idx;

		t->order = i;
		if (i == 0 || k[i].pid != k[i - 1].pid)
			j = 0; /* a new process (a run of the sorted keys): no main thread yet */
		if (!k[i].main || j)
			continue;
		j = 1;
		t->is_main = 1;
		idx = pc_thread_index(r->m, t);
		if (t->process != PC_NONE && idx != PC_NONE)
			r->m->processes.rows[t->process].main_thread = idx;
	}
	pc_free(r->ctx, k);
	for (i = 0; i < r->npm; i++) {
		uint32_t proc;
		const char *old;
		char *buf;
		size_t len;

		if (!r->pm[i].labels)
			continue;
		proc = pc_process_get(r->m, r->pm[i].pid);
		if (proc == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		old = r->m->processes.rows[proc].name;
		len = (old ? strlen(old) : 32) + strlen(r->pm[i].labels) + 4;
		buf = pc_alloc(r->ctx, len);
		if (!buf)
			return PROFCONV_ERR_NOMEM;
		if (old)
			pc_snprintf(buf, len, "%s (%s)", old, r->pm[i].labels);
		else
			pc_snprintf(buf, len, "Process %lld (%s)", (long long)r->pm[i].pid,
				    r->pm[i].labels);
		r->m->processes.rows[proc].name = pc_model_keep(r->m, buf, strlen(buf));
		pc_free(r->ctx, buf);
		if (!r->m->processes.rows[proc].name)
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

static int finish(struct rd *r)
{
	struct pc_meta *mt = &r->m->meta;
	int64_t step;
	uint32_t i;
	int err;

	err = close_open(r);
	if (!err)
		err = pc_chrome_flows_bind(r); /* before the contexts' markers come */
	if (!err)
		err = pc_chrome_p_finish(r);
	if (!err)
		err = pc_chrome_ctx_close(r);
	/*
	 * The sampling interval: the V8 profiles' mean sample spacing.  A
	 * trace without V8 samples has none (its derived samples weigh their
	 * slices' time): 1 ms, or a thousandth of a trace shorter than 1 s
	 * (the front-end draws a thread's last sample that long).
	 */
	step = DERIVED_NS;
	if (r->first_ts != PC_NO_TIME && r->last_ts > r->first_ts &&
	    pc_time_sub(r->last_ts, r->first_ts) < (int64_t)1000 * DERIVED_NS)
		step = (r->last_ts - r->first_ts) / 1000 > 1000 ? (r->last_ts - r->first_ts) / 1000
								 : 1000;
	mt->interval_ns = step;
	if (r->nv8_samples > 1 && r->v8_last > r->v8_first)
		mt->interval_ns =
			pc_time_sub(r->v8_last, r->v8_first) / (int64_t)(r->nv8_samples - 1);
	if (mt->interval_ns <= 0)
		mt->interval_ns = step;
	if (!err)
		err = v8_weights(r, mt->interval_ns);
	if (!err)
		err = derive_samples(r);
	if (!err)
		err = pc_chrome_sample_sets(r);
	if (!err)
		err = pc_chrome_blame_finish(r);
	if (!err)
		err = strings_or_refs(r);
	if (!err)
		err = add_schema(r);
	if (err)
		return err;
	/* threads with nothing in them (a thread_name and no events) are dropped */
	for (i = 0; i < r->nth; i++) {
		struct pc_thread *t = r->th[i].t;

		if (!t->samples.len && !t->markers.len)
			t->register_time = PC_NO_TIME;
	}
	err = order_threads(r);
	if (!err)
		err = pc_model_sort_thread_list(r->m, tinfo_cmp_model);
	if (err)
		return err;
	/* time 0 is the first event; times were kept in trace ns */
	mt->zero_ns = r->first_ts == PC_NO_TIME ? 0 : r->first_ts;
	for (i = 0; i < r->m->nthreads; i++) {
		struct pc_thread *t = r->m->threads[i];
		uint32_t k;

		for (k = 0; k < t->samples.len; k++)
			t->samples.time[k] = pc_time_sub(t->samples.time[k], mt->zero_ns);
		for (k = 0; k < t->markers.len; k++) {
			if (t->markers.start[k] != PC_NO_TIME)
				t->markers.start[k] = pc_time_sub(t->markers.start[k], mt->zero_ns);
			if (t->markers.end[k] != PC_NO_TIME)
				t->markers.end[k] = pc_time_sub(t->markers.end[k], mt->zero_ns);
		}
		t->register_time = 0;
	}
	for (i = 0; i < r->m->counters.len; i++) {
		struct pc_counter *c = &r->m->counters.rows[i];
		uint32_t k;

		for (k = 0; k < c->len; k++)
			c->time[k] = pc_time_sub(c->time[k], mt->zero_ns);
	}
	for (i = 0; i < r->m->contexts.nsnap; i++)
		r->m->contexts.snap_time[i] = pc_time_sub(r->m->contexts.snap_time[i], mt->zero_ns);
	mt->zero_ns = 0;
	mt->symbolicated = 1;
	err = pc_meta_set(r->m, &mt->product, "Chrome trace");
	if (!err)
		err = pc_meta_set(r->m, &mt->imported_from, "Chrome trace events");
	if (!err)
		err = pc_model_sort_threads(r->m);
	return err;
}

static void rd_free(struct rd *r)
{
	uint32_t i;

	for (i = 0; i < r->nth; i++) {
		pc_free(r->ctx, r->th[i].open);
		pc_free(r->ctx, r->th[i].sbits);
	}
	pc_free(r->ctx, r->th);
	pc_jscan_free(&r->v8js);
	pc_free(r->ctx, r->v8val);
	for (i = 0; i < r->nas; i++)
		pc_free(r->ctx, r->as[i].key);
	pc_free(r->ctx, r->as);
	for (i = 0; i < r->nprof; i++) {
		pc_free(r->ctx, r->prof[i].id);
		pc_free(r->ctx, r->prof[i].nodes);
		pc_free(r->ctx, r->prof[i].by_id);
		pc_free(r->ctx, r->prof[i].rows);
	}
	pc_free(r->ctx, r->prof);
	for (i = 0; i < r->nck; i++)
		pc_free(r->ctx, r->ck[i].key);
	pc_free(r->ctx, r->ck);
	pc_free(r->ctx, r->pm);
	for (i = 0; i < r->narg_keys; i++)
		pc_free(r->ctx, r->arg_keys[i]);
	pc_smap_free(&r->cats);
	pc_smap_free(&r->arg_seen);
	pc_smap_free(&r->as_latest);
	pc_free(r->ctx, r->lf);
	pc_free(r->ctx, r->names);
	pc_free(r->ctx, r->catm);
	pc_free(r->ctx, r->kinds);
	for (i = 0; r->pl && i < PL_SLOTS; i++)
		pc_free(r->ctx, r->pl[i].key);
	pc_free(r->ctx, r->pl);
	pc_chrome_ctx_free(r);
	pc_chrome_stacks_free(r);
	pc_chrome_flows_free(r);
	pc_jpull_free(r->p);
}

/* Read the trace into m; with blame set, also print the context attribution. */
static int chrome_run(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m,
		      struct pc_text_out *blame, int json)
{
	struct rd r;
	uint32_t i;
	int err;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.m = m;
	r.blame = blame;
	r.blame_json = json;
	r.name = pc_input_name(in);
	r.first_ts = PC_NO_TIME;
	r.last_ts = INT64_MIN;
	m->lean_markers = 1; /* few Chrome markers have a cause or a context set */
	pc_smap_init(&r.cats, ctx);
	pc_smap_init(&r.arg_seen, ctx);
	pc_smap_init(&r.as_latest, ctx);
	r.lf = pc_alloc(ctx, LF_SLOTS * sizeof(*r.lf));
	pc_jscan_init(&r.v8js, ctx);
	r.pl = pc_calloc(ctx, PL_SLOTS, sizeof(*r.pl));
	r.pl_set = PC_NONE;
	r.names = pc_calloc(ctx, SMEMO_SLOTS, sizeof(*r.names));
	r.catm = pc_calloc(ctx, SMEMO_SLOTS, sizeof(*r.catm));
	for (i = 0; r.names && r.catm && i < SMEMO_SLOTS; i++)
		r.names[i].len = r.catm[i].len = UINT32_MAX;
	for (i = 0; r.pl && i < PL_SLOTS; i++)
		r.pl[i].pl = PC_NONE;
	err = r.lf && r.pl && r.names && r.catm ? pc_jpull_new(ctx, in, NULL, &r.p)
						 : PROFCONV_ERR_NOMEM;
	for (i = 0; r.lf && i < LF_SLOTS; i++)
		r.lf[i].frame = PC_NONE;
	if (!err) {
		/* the categories the V8 samples use; trace categories follow */
		r.cat_idle = pc_model_add_category(m, "Idle", "transparent");
		r.cat_js = pc_model_add_category(m, "JavaScript", "yellow");
		r.cat_gc = pc_model_add_category(m, "GC / CC", "orange");
		r.cat_native = pc_model_add_category(m, "Native", "blue");
		/* the payload text every TraceEvent marker has */
		r.row_type = pc_pv_text_intern(m, "type", 4);
		r.row_trace_event = pc_pv_text_intern(m, "TraceEvent", 10);
		r.row_cat = pc_pv_text_intern(m, "cat", 3);
		r.row_contexts = pc_pv_text_intern(m, "contexts", 8);
		r.row_flow = pc_pv_text_intern(m, "flow", 4);
		r.row_tflow = pc_pv_text_intern(m, "terminatingFlow", 15);
		if (r.cat_idle == PC_NO_CATEGORY || r.cat_js == PC_NO_CATEGORY ||
		    r.cat_gc == PC_NO_CATEGORY || r.cat_native == PC_NO_CATEGORY ||
		    r.row_type == PC_NONE || r.row_trace_event == PC_NONE || r.row_cat == PC_NONE ||
		    r.row_contexts == PC_NONE || r.row_flow == PC_NONE || r.row_tflow == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	if (!err)
		err = read_top(&r);
	if (!err)
		err = finish(&r);
	rd_free(&r);
	return err;
}

static int read_chrome(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	return chrome_run(ctx, in, m, NULL, 0);
}

int pc_chrome_blame(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out,
		    int json)
{
	struct pc_model *m = pc_model_new(ctx);
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = chrome_run(ctx, in, m, out, json);
	pc_model_free(m);
	return err;
}

static int chrome_info(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *o)
{
	struct pc_model *m = pc_model_new(ctx);
	uint64_t samples = 0, markers = 0;
	uint32_t i;
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = read_chrome(ctx, in, m);
	if (!err) {
		for (i = 0; i < m->nthreads; i++) {
			samples += m->threads[i]->samples.len;
			markers += m->threads[i]->markers.len;
		}
		pc_text_printf(o, "file:        %s\nformat:      Chrome trace events (JSON)\n",
			       pc_input_name(in));
		pc_text_printf(o, "processes:   %u\nthreads:     %u\nsamples:     %llu%s\n",
			       m->processes.len, m->nthreads, (unsigned long long)samples,
			       m->meta.interval_ns == DERIVED_NS ? " (derived from slices, 1 ms)" : "");
		pc_text_printf(o, "markers:     %llu\ncounters:    %u\n", (unsigned long long)markers,
			       m->counters.len);
	}
	pc_model_free(m);
	return err;
}

const struct pc_reader pc_reader_chrome = {
	.name = "chrome",
	.summary = "Chrome trace events JSON (array or object form; V8 CPU profiles)",
	.flags = 0,
	.options = NULL,
	.bid = bid,
	.read = read_chrome,
	.info = chrome_info,
};
