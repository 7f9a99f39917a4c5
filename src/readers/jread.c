/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jread.c - helpers for the JSON profile readers (see pc_jread.h).
 */
#define _GNU_SOURCE 1 /* memmem */
#include "readers/pc_jread.h"

#include "json/pc_validate.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define PC_JREAD_SSE2 1
#include <emmintrin.h>
#endif

const char *pc_jr_type_name(enum pc_jtype type)
{
	switch (type) {
	case PC_JT_EOF:
		return "the end of input";
	case PC_JT_OBJ_BEGIN:
		return "an object";
	case PC_JT_OBJ_END:
		return "'}'";
	case PC_JT_ARR_BEGIN:
		return "an array";
	case PC_JT_ARR_END:
		return "']'";
	case PC_JT_KEY:
		return "a key";
	case PC_JT_STRING:
		return "a string";
	case PC_JT_NUMBER:
		return "a number";
	case PC_JT_TRUE:
	case PC_JT_FALSE:
		return "a boolean";
	case PC_JT_NULL:
		return "null";
	}
	return "a token";
}

int pc_jr_fail(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *tok,
	       int code, const char *fmt, ...)
{
	struct pc_loc loc;
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pc_jpull_loc(p, tok, &loc);
	return pc_fail(ctx, code, &loc, "%s", msg);
}

int pc_jr_warn(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *tok,
	       const char *kind, const char *fmt, ...)
{
	struct pc_loc loc;
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pc_jpull_loc(p, tok, &loc);
	return pc_warn(ctx, kind, &loc, "%s", msg);
}

int pc_jr_corrupt(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *tok,
		  const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pc_jr_fail(ctx, p, tok, PROFCONV_ERR_CORRUPT, "%s", msg);
}

int pc_jr_corrupt_at(struct profconv_ctx *ctx, const struct pc_loc *loc, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pc_fail(ctx, PROFCONV_ERR_CORRUPT, loc && loc->path ? loc : NULL, "%s", msg);
}

int pc_jr_expect(struct profconv_ctx *ctx, struct pc_jpull *p, enum pc_jtype want,
		 const char *what, const struct pc_jtok **tok)
{
	int err = pc_jpull_next(p, tok);

	if (err)
		return err;
	if ((*tok)->type == want ||
	    (want == PC_JT_TRUE && (*tok)->type == PC_JT_FALSE))
		return 0;
	return pc_jr_fail(ctx, p, *tok, PROFCONV_ERR_CORRUPT, "expected %s for %s, got %s",
			  pc_jr_type_name(want), what, pc_jr_type_name((*tok)->type));
}

static size_t peek_skip_ws(const unsigned char *peek, size_t len, size_t i)
{
	while (i < len && (peek[i] == ' ' || peek[i] == '\t' || peek[i] == '\n' || peek[i] == '\r'))
		i++;
	return i;
}

size_t pc_jr_peek_start(const unsigned char *peek, size_t len)
{
	size_t i = 0;

	if (len >= 3 && peek[0] == 0xef && peek[1] == 0xbb && peek[2] == 0xbf)
		i = 3;
	return peek_skip_ws(peek, len, i);
}

int pc_jr_peek_is_object(const unsigned char *peek, size_t len)
{
	size_t i = pc_jr_peek_start(peek, len);

	return i < len && peek[i] == '{';
}

int pc_jr_peek_first_key(const unsigned char *peek, size_t len, const char *key)
{
	size_t i = pc_jr_peek_start(peek, len), n = strlen(key);

	if (i >= len || peek[i] != '{')
		return 0;
	i = peek_skip_ws(peek, len, i + 1);
	if (n > len - i || memcmp(peek + i, key, n) != 0)
		return 0;
	i = peek_skip_ws(peek, len, i + n);
	return i < len && peek[i] == ':';
}

int pc_jr_peek_has(const unsigned char *peek, size_t len, const char *needle)
{
	size_t n = strlen(needle), i = 0;

	if (!n || n > len)
		return 0;
#ifdef PC_JREAD_SSE2
	/*
	 * Every reader's detection looks through the whole peek (256 KiB) for
	 * needles that are mostly not there: 16 places a step whose bytes a
	 * and b (the needle's second and second-to-last, inside its quotes)
	 * both match, then memcmp() at those; memmem() took twice as long.
	 */
	if (n >= 4) {
		size_t a = 1, b = n - 2;
		const __m128i va = _mm_set1_epi8(needle[a]), vb = _mm_set1_epi8(needle[b]);

		for (; i + b + 16 <= len; i += 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(peek + i + a));
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(peek + i + b));
			unsigned m = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(y, vb)));

			while (m) {
				size_t at = i + (size_t)__builtin_ctz(m);

				if (at + n <= len && memcmp(peek + at, needle, n) == 0)
					return 1;
				m &= m - 1;
			}
		}
	}
#endif
	/* the rest (all of it without SSE2) */
	return i + n <= len && memmem(peek + i, len - i, needle, n) != NULL;
}

/* --- categories --- */

/* Categories from a captured JSON array (cJSON: a small member). */
int pc_jr_categories(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *at,
		     struct pc_model *m, const char *json, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(json, len), *c;
	int err = 0, n;

	if (!root)
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory (cJSON)");
	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		return pc_jr_fail(ctx, p, at, PROFCONV_ERR_CORRUPT,
				  "meta.categories: expected an array");
	}
	n = cJSON_GetArraySize(root);
	if (n >= PC_NO_CATEGORY) {
		cJSON_Delete(root);
		return pc_jr_fail(ctx, p, at, PROFCONV_ERR_LIMIT,
				  "meta.categories has %d entries; at most %d are read", n,
				  PC_NO_CATEGORY - 1);
	}
	pc_model_clear_categories(m);
	cJSON_ArrayForEach(c, root)
	{
		cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		cJSON *color = cJSON_GetObjectItemCaseSensitive(c, "color");
		cJSON *subs = cJSON_GetObjectItemCaseSensitive(c, "subcategories"), *s;
		struct pc_category *cat;
		const char *nm, *cl;
		uint16_t ci;

		if (!cJSON_IsString(name) || !cJSON_IsString(color)) {
			err = pc_jr_fail(ctx, p, at, PROFCONV_ERR_CORRUPT,
					 "meta.categories[%u]: needs a string name and color",
					 m->ncategories);
			break;
		}
		nm = pc_model_keep(m, name->valuestring, strlen(name->valuestring));
		if (!pc_category_color_known(color->valuestring)) {
			err = pc_jr_warn(ctx, p, at, "unknown category colors replaced",
					 "meta.categories[%u]: color '%s' is not one the front-end draws; grey is used",
					 m->ncategories, color->valuestring);
			if (err)
				break;
			cl = "grey";
		} else {
			cl = pc_model_keep(m, color->valuestring, strlen(color->valuestring));
		}
		if (!nm || !cl) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		ci = pc_model_add_category(m, nm, cl);
		if (ci == PC_NO_CATEGORY) {
			err = ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
			break;
		}
		if (!cJSON_IsArray(subs) || cJSON_GetArraySize(subs) == 0)
			continue; /* subcategory 0 "Other" is there */
		if (cJSON_GetArraySize(subs) >= PC_NO_CATEGORY) {
			err = pc_jr_fail(ctx, p, at, PROFCONV_ERR_LIMIT,
					 "meta.categories[%u] has %d subcategories; at most %d are read",
					 m->ncategories - 1, cJSON_GetArraySize(subs),
					 PC_NO_CATEGORY - 1);
			break;
		}
		cat = &m->categories[ci];
		cat->nsub = 0; /* replaced by the listed ones */
		cJSON_ArrayForEach(s, subs)
		{
			const char *v = cJSON_IsString(s) ? s->valuestring : "Other";
			const char *kv = pc_model_keep(m, v, strlen(v));

			if (!kv || pc_model_add_subcategory(m, ci, kv) == PC_NO_CATEGORY) {
				err = ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
				break;
			}
			cat = &m->categories[ci];
		}
		if (err)
			break;
	}
	cJSON_Delete(root);
	return err;
}

/* The front-end's getDefaultCategories(), for a profile without meta.categories. */
void pc_jr_default_categories(struct pc_model *m)
{
	static const char *const cats[][2] = {
		{ "Other", "grey" },	     { "Idle", "transparent" }, { "Layout", "purple" },
		{ "JavaScript", "yellow" }, { "GC / CC", "orange" },	{ "Network", "lightblue" },
		{ "Graphics", "green" },    { "DOM", "blue" },
	};
	size_t i;

	pc_model_clear_categories(m);
	for (i = 0; i < PC_ARRAY_SIZE(cats); i++)
		pc_model_add_category(m, cats[i][0], cats[i][1]);
}

/* --- milliseconds to nanoseconds --- */

#define MAX_DIGITS 24 /* more significant digits than int64 ns can hold */

int pc_jr_ms_to_ns(const char *s, size_t len, int64_t *ns)
{
	char dig[MAX_DIGITS];
	int nd = 0, neg = 0;
	long e10 = 0, ev = 0;
	size_t i = 0;
	uint64_t v = 0;
	long shift, k;
	int round_up = 0;

	if (i < len && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (i >= len || s[i] < '0' || s[i] > '9')
		return -1;
	/* digits before and after the point: value = dig * 10^e10 (ms) */
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (nd == 0 && s[i] == '0')
			continue;
		if (nd < MAX_DIGITS)
			dig[nd++] = s[i];
		else
			e10++;
	}
	if (i < len && s[i] == '.') {
		i++;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (nd == 0 && s[i] == '0') {
				e10--;
				continue;
			}
			if (nd < MAX_DIGITS) {
				dig[nd++] = s[i];
				e10--;
			}
		}
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		if (i >= len)
			return -1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (ev < 100000)
				ev = ev * 10 + (s[i] - '0');
		e10 += eneg ? -ev : ev;
	}
	if (i != len)
		return -1;
	if (nd == 0) {
		*ns = 0;
		return 0;
	}
	shift = e10 + 6; /* value in ns = dig * 10^shift */
	if (shift >= 0) {
		if (nd + shift > 19)
			return -1;
		for (k = 0; k < nd; k++)
			v = v * 10 + (uint64_t)(dig[k] - '0');
		for (k = 0; k < shift; k++)
			v *= 10;
	} else {
		long keep = nd + shift; /* digits before the ns point */

		if (keep > 19)
			return -1;
		for (k = 0; k < keep; k++)
			v = v * 10 + (uint64_t)(dig[k] - '0');
		if (keep >= 0 && keep < nd)
			round_up = dig[keep] >= '5';
		if (round_up)
			v++;
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int pc_jr_tok_ns(const struct pc_jtok *t, int64_t *ns)
{
	if (t->type != PC_JT_NUMBER)
		return -1;
	if (t->is_int) {
		if (t->i > INT64_MAX / 1000000 || t->i < -(INT64_MAX / 1000000))
			return -1;
		*ns = t->i * 1000000;
		return 0;
	}
	return pc_jr_ms_to_ns(t->str, t->len, ns);
}

int pc_jr_ms_value(struct profconv_ctx *ctx, struct pc_jpull *p, const char *what, int64_t *ns)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NULL) {
		*ns = PC_NO_TIME;
		return 0;
	}
	if (t->type != PC_JT_NUMBER)
		return pc_jr_corrupt(ctx, p, t, "expected a number of milliseconds for %s, got %s",
				     what, pc_jr_type_name(t->type));
	if (pc_jr_tok_ns(t, ns) || *ns == PC_NO_TIME)
		return pc_jr_corrupt(ctx, p, t, "%s: %s ms is out of range", what, t->str);
	return 0;
}

int pc_jr_id_value(struct profconv_ctx *ctx, struct pc_jpull *p, const char *what, int64_t *v)
{
	const struct pc_jtok *t;
	char *end;
	int err = pc_jpull_next(p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NUMBER && t->is_int) {
		*v = t->i;
		return 0;
	}
	if (t->type == PC_JT_STRING && t->len && t->len < 21) {
		long long x;

		errno = 0;
		x = strtoll(t->str, &end, 10);
		if (!errno && end == t->str + t->len) {
			*v = x;
			return 0;
		}
	}
	if (t->type != PC_JT_STRING && t->type != PC_JT_NUMBER)
		return pc_jr_corrupt(ctx, p, t, "expected a number or a string for %s, got %s", what,
				     pc_jr_type_name(t->type));
	*v = 0;
	return pc_jr_warn(ctx, p, t, PC_JR_WARN_PID,
			  "%s \"%.40s\" is not an integer; 0 is used", what, t->str);
}

const char *pc_jr_pv_str(const struct pc_model *m, uint32_t obj, const char *key)
{
	uint32_t v = pc_pv_member(m, obj, key);

	if (v == PC_NONE || pc_pv(m, v)->kind != PC_VAL_STR)
		return NULL;
	return pc_pv_text(m, pc_pv(m, v)->v.s, NULL);
}

int pc_jr_sample_units(struct profconv_ctx *ctx, struct pc_jpull *p, struct pc_model *m)
{
	struct pc_meta *mt = &m->meta;
	uint32_t root;
	int err = pc_jr_pv_read(ctx, p, m, 1, &root);
	const char *s;

	if (err || pc_pv(m, root)->kind != PC_VAL_OBJ)
		return err;
	if ((s = pc_jr_pv_str(m, root, "time")) != NULL)
		err = pc_meta_keep(m, &mt->unit_time, s);
	if (!err && (s = pc_jr_pv_str(m, root, "eventDelay")) != NULL)
		err = pc_meta_keep(m, &mt->unit_event_delay, s);
	if (!err && (s = pc_jr_pv_str(m, root, "threadCPUDelta")) != NULL)
		err = pc_meta_keep(m, &mt->unit_cpu_delta, s);
	return err;
}

/* --- raw JSON text with invalid UTF-8 --- */

/* The length of the valid UTF-8 sequence at s[0..n) (1 to 4), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1fu;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0fu;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07u;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* s repaired into a new buffer (pc_alloc), or NULL when it is valid or on OOM (*err). */
static char *utf8_repair(struct profconv_ctx *ctx, const char *s, size_t len, size_t *out_len,
			 int *err)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, o = 0, bad = 0;
	char *d;

	*err = 0;
	for (i = 0; i < len;) {
		size_t k = utf8_seq(u + i, len - i);

		if (!k) {
			bad++;
			k = 1;
		}
		i += k;
	}
	if (!bad)
		return NULL;
	d = pc_alloc(ctx, len + 2 * bad + 1);
	if (!d) {
		*err = PROFCONV_ERR_NOMEM;
		return NULL;
	}
	for (i = 0; i < len;) {
		size_t k = utf8_seq(u + i, len - i);

		if (k) {
			memcpy(d + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(d + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	d[o] = 0;
	*out_len = o;
	return d;
}

int pc_jr_add_schema(struct pc_model *m, const char *s, size_t len, uint64_t *repaired)
{
	size_t n = 0;
	int err;
	char *fixed = utf8_repair(m->ctx, s, len, &n, &err);
	cJSON *root, *name;
	uint32_t body;

	if (err)
		return err;
	if (fixed)
		(*repaired)++;
	root = cJSON_ParseWithLength(fixed ? fixed : s, fixed ? n : len);
	pc_free(m->ctx, fixed);
	if (!root)
		return pc_fail(m->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory (cJSON)");
	name = cJSON_GetObjectItemCaseSensitive(root, "name");
	err = 0;
	if (cJSON_IsObject(root) && cJSON_IsString(name)) {
		err = pc_jr_pv_from_cjson(m, root, &body);
		if (err == 1)
			err = 0; /* too deep to be a schema: left out */
		else if (!err && pc_schema_add(m, name->valuestring, body) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	cJSON_Delete(root);
	return err;
}

/* --- string pool --- */

void pc_spool_init(struct pc_spool *sp, struct profconv_ctx *ctx)
{
	memset(sp, 0, sizeof(*sp));
	sp->ctx = ctx;
}

int pc_spool_add(struct pc_spool *sp, const char *s, size_t len, uint32_t *idx)
{
	if (sp->n == UINT32_MAX - 1)
		return pc_fail(sp->ctx, PROFCONV_ERR_LIMIT, NULL, "more than 2^32 strings");
	if (len > UINT32_MAX - 1)
		return pc_fail(sp->ctx, PROFCONV_ERR_LIMIT, NULL, "string of %zu bytes", len);
	if (sp->len + len + 1 > sp->cap) {
		size_t cap = sp->cap ? sp->cap : 4096;
		char *nb;

		while (cap < sp->len + len + 1)
			cap *= 2;
		nb = pc_realloc(sp->ctx, sp->buf, cap);
		if (!nb)
			return PROFCONV_ERR_NOMEM;
		sp->buf = nb;
		sp->cap = cap;
	}
	if (sp->n == sp->ncap) {
		uint32_t cap = sp->ncap;

		if (pc_grow(sp->ctx, (void **)&sp->off, sizeof(*sp->off), &cap, (size_t)sp->n + 1))
			return PROFCONV_ERR_NOMEM;
		cap = sp->ncap;
		if (pc_grow(sp->ctx, (void **)&sp->slen, sizeof(*sp->slen), &cap,
			    (size_t)sp->n + 1))
			return PROFCONV_ERR_NOMEM;
		sp->ncap = cap;
	}
	if (len)
		memcpy(sp->buf + sp->len, s, len);
	sp->buf[sp->len + len] = 0;
	sp->off[sp->n] = sp->len;
	sp->slen[sp->n] = (uint32_t)len;
	sp->len += len + 1;
	*idx = sp->n++;
	return 0;
}

void pc_spool_clear(struct pc_spool *sp)
{
	sp->len = 0;
	sp->n = 0;
}

void pc_spool_free(struct pc_spool *sp)
{
	pc_free(sp->ctx, sp->buf);
	pc_free(sp->ctx, sp->off);
	pc_free(sp->ctx, sp->slen);
	sp->buf = NULL;
	sp->off = NULL;
	sp->slen = NULL;
	sp->len = sp->cap = 0;
	sp->n = sp->ncap = 0;
}

/* --- string map --- */

struct smap_key {
	const char *s;
	size_t len;
};

static int smap_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_spool *sp = table;
	const struct smap_key *k = key;

	return sp->slen[row] == k->len && memcmp(pc_spool_str(sp, row), k->s, k->len) == 0;
}

void pc_smap_init(struct pc_smap *m, struct profconv_ctx *ctx)
{
	memset(m, 0, sizeof(*m));
	pc_spool_init(&m->keys, ctx);
}

uint32_t pc_smap_get(const struct pc_smap *m, const char *s, size_t len)
{
	struct smap_key k = { s, len };
	uint32_t slot, row;

	row = pc_itab_find(&m->index, (uint32_t)pc_hash_bytes(s, len, 0), smap_eq, &m->keys, &k,
			   &slot);
	return row == PC_NONE ? PC_NONE : m->val[row];
}

int pc_smap_put(struct pc_smap *m, const char *s, size_t len, uint32_t val)
{
	struct smap_key k = { s, len };
	uint32_t h = (uint32_t)pc_hash_bytes(s, len, 0), slot, row;
	int err;

	row = pc_itab_find(&m->index, h, smap_eq, &m->keys, &k, &slot);
	if (row != PC_NONE) {
		m->val[row] = val;
		return 0;
	}
	err = pc_spool_add(&m->keys, s, len, &row);
	if (err)
		return err;
	if (pc_grow(m->keys.ctx, (void **)&m->val, sizeof(*m->val), &m->vcap, (size_t)row + 1))
		return PROFCONV_ERR_NOMEM;
	m->val[row] = val;
	return pc_itab_insert(m->keys.ctx, &m->index, slot, h, row);
}

void pc_smap_free(struct pc_smap *m)
{
	struct profconv_ctx *ctx = m->keys.ctx;

	pc_itab_free(ctx, &m->index);
	pc_free(ctx, m->val);
	m->val = NULL;
	m->vcap = 0;
	pc_spool_free(&m->keys);
}
