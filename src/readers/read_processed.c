/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read_processed.c - a Firefox Profiler processed profile (format version
 * 69 or 70) back into the model, faithfully: every table keeps its row
 * numbers, so our own output read and written again gives the same bytes.
 *
 * Shape: docs firefox-profiler-formats.md section 4 (src/types/profile.ts in
 * firefox-devtools/profiler):
 *
 *   { meta, libs, shared: { stringArray, stackTable, frameTable, funcTable,
 *     resourceTable, nativeSymbols, sources, sourceLocationTable }, threads,
 *     counters?, pages?, ... }
 *
 * The file is streamed with pc_jpull, members in any order; only small
 * pieces (meta.categories, meta.extra) go through cJSON.  Each table's
 * columns are parsed into temporary arrays, then appended row by row with
 * the model's pc_*_append() functions (which keep duplicate rows).  Strings
 * that are values rather than string-table indexes (lib names, thread names,
 * sources.id, marker payloads) are pooled while parsing and interned only
 * after the whole file, once the stringArray is in place: its rows must
 * keep their numbers, and the file may list threads before shared.
 * References between tables are checked at the end, with the location of
 * the column that holds a bad index.
 *
 * Counters are kept, their times exact (load_counters()), and so are
 * pages and samples' eventDelay/threadCPUDelta.  Dropped, with a counted
 * warning: source-mapped locations (originalLocation, sourceLocationTable),
 * allocation tables.  Versions other than 69 and 70 are refused.
 */
#include "core/pc_config.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/pc_pcols.h"
#include "readers/pc_jread.h"
#include "readers/pc_reader.h"

#define NULLV	      INT64_MIN	       /* a null in a parsed column */
#define MAX_CAPTURE   ((size_t)64 << 20) /* one meta member, payload or lib */
#define VERSION	      70

#define WARN_COUNTERS "counters dropped"
#define WARN_PAGES    "pages dropped"
#define WARN_PAUSED   "paused ranges ignored"
#define WARN_SREF     "marker string fields out of range"
#define WARN_MTIME    "markers without the time their phase needs made instants"
#define WARN_ORIGLOC  "source-mapped locations dropped"
#define WARN_ALLOC    "allocation tables dropped"
#define WARN_WEIGHT   "non-integer sample weights rounded"
#define WARN_UTF8     "input strings with invalid UTF-8 replaced"

enum ckind {
	K_INT,	  /* integer or null */
	K_MS,	  /* milliseconds -> ns, or null */
	K_BOOL,	  /* true/false (or 0/1) */
	K_STR,	  /* a string (pooled) or null */
	K_RAW,	  /* any value as a payload tree (its root node), or null */
	K_WEIGHT, /* a number, rounded to an integer; also kept as ms -> ns (tracing-ms) */
	K_SKIP,	  /* a column of older versions: skipped */
};

struct colspec {
	const char *key;
	enum ckind kind;
};

struct col {
	int64_t *v;
	uint32_t n, cap;
	int present;
	struct pc_loc loc; /* the column's '[' */
	/* K_WEIGHT: each value also read as ms -> ns (NULLV: null; NS_RANGE: out
	 * of range), for the weightType "tracing-ms", which may come after the
	 * column; and how many values were not integers */
	int64_t *ns;
	uint32_t ns_cap;
	uint64_t rounded;
};
#define NS_RANGE (INT64_MIN + 1)

/* A parsed table: its columns, its "length" and where it began. */
struct table {
	const char *name; /* "shared.frameTable", for messages */
	const struct colspec *spec;
	unsigned ncols;
	struct col cols[12];
	int64_t length; /* -1 if absent */
	struct pc_loc loc;
	char weight_type[16]; /* samples only */
};

/* Locations of the columns whose indexes are checked at the end. */
struct tloc {
	struct pc_loc stack, mname, mcat;
};

struct rd {
	struct profconv_ctx *ctx;
	struct pc_jpull *p;
	const char *name; /* the input's name */
	struct pc_model *m;
	struct pc_spool sp; /* strings interned at the end */
	int seen_meta, seen_categories, seen_strings, version;
	struct pc_loc rs_lib;
	uint64_t origloc, weight_rounded, utf8_repaired, bad_srefs, bad_times, dropped_markers;
	struct pc_loc loc_meta;
	/* column locations for the final checks */
	struct pc_loc st_frame, fr_func, fr_lib, fr_nsym, fr_cat, fn_name, fn_res, fn_src;
	struct pc_loc rs_name, rs_host, ns_lib, ns_name, sr_file, sr_url;
	struct tloc *tlocs;
	uint32_t tlocs_cap;
};

/* The columns, from the list shared with `validate` (json/pc_pcols.h). */
#define R_COL(id, name, rule, tgt, flags, since, kind) { name, kind },
#define R_ID(id, name, rule, tgt, flags, since, kind) id,
static const struct colspec stack_cols[] = { PC_PCOLS_STACK(R_COL) };
enum { PC_PCOLS_STACK(R_ID) };
static const struct colspec frame_cols[] = { PC_PCOLS_FRAME(R_COL) };
enum { PC_PCOLS_FRAME(R_ID) };
static const struct colspec func_cols[] = { PC_PCOLS_FUNC(R_COL) };
enum { PC_PCOLS_FUNC(R_ID) };
static const struct colspec resource_cols[] = { PC_PCOLS_RESOURCE(R_COL) };
enum { PC_PCOLS_RESOURCE(R_ID) };
static const struct colspec nsym_cols[] = { PC_PCOLS_NATSYM(R_COL) };
enum { PC_PCOLS_NATSYM(R_ID) };
static const struct colspec source_cols[] = { PC_PCOLS_SOURCE(R_COL) };
enum { PC_PCOLS_SOURCE(R_ID) };
static const struct colspec srcloc_cols[] = { PC_PCOLS_SRCLOC(R_COL) };
enum { PC_PCOLS_SRCLOC(R_ID) };
static const struct colspec sample_cols[] = { PC_PCOLS_SAMPLES(R_COL) };
enum { PC_PCOLS_SAMPLES(R_ID) };
static const struct colspec marker_cols[] = { PC_PCOLS_MARKERS(R_COL) };
enum { PC_PCOLS_MARKERS(R_ID) };
#undef R_COL
#undef R_ID

/* --- bidding --- */

static int bid(const unsigned char *peek, size_t len)
{
	/* a Chrome trace's usual first member: no need to look further */
	if (!pc_jr_peek_is_object(peek, len) || pc_jr_peek_first_key(peek, len, "\"traceEvents\""))
		return 0;
	if (pc_jr_peek_has(peek, len, "\"preprocessedProfileVersion\""))
		return 56;
	if (pc_jr_peek_has(peek, len, "\"shared\"") &&
	    !pc_jr_peek_has(peek, len, "\"stringTable\""))
		return 24;
	return 0;
}

/* --- small token helpers --- */

/* PROFCONV_ERR_CORRUPT at token t / at location loc (see pc_jr_corrupt()). */
#define fail_tok(r, t, ...) pc_jr_corrupt((r)->ctx, (r)->p, (t), __VA_ARGS__)
#define fail_loc(r, loc, ...) pc_jr_corrupt_at((r)->ctx, (loc), __VA_ARGS__)

/* A string value (pooled), or null (PC_NONE). */
static int pooled_str_or_null(struct rd *r, const char *what, uint32_t *out)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	*out = PC_NONE;
	if (t->type == PC_JT_NULL)
		return 0;
	if (t->type != PC_JT_STRING)
		return fail_tok(r, t, "expected a string or null for %s, got %s", what,
				pc_jr_type_name(t->type));
	return pc_spool_add(&r->sp, t->str, t->len, out);
}

/* A string value copied to an owned meta field (pc_meta_set). */
static int meta_str(struct rd *r, const char *what, char **field)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NULL)
		return pc_meta_set(r->m, field, NULL);
	if (t->type != PC_JT_STRING)
		return fail_tok(r, t, "expected a string for %s, got %s", what,
				pc_jr_type_name(t->type));
	return pc_meta_set(r->m, field, t->str);
}

/* A time in ms (or null: PC_NO_TIME). */
static int ms_value(struct rd *r, const char *what, int64_t *ns)
{
	return pc_jr_ms_value(r->ctx, r->p, what, ns);
}

static int int_value(struct rd *r, const char *what, int64_t lo, int64_t hi, int64_t *v)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type != PC_JT_NUMBER || !t->is_int || t->i < lo || t->i > hi)
		return fail_tok(r, t, "expected an integer from %lld to %lld for %s", (long long)lo,
				(long long)hi, what);
	*v = t->i;
	return 0;
}

static int bool_value(struct rd *r, const char *what, int *v)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_TRUE || t->type == PC_JT_FALSE) {
		*v = t->type == PC_JT_TRUE;
		return 0;
	}
	if (t->type == PC_JT_NUMBER && t->is_int && (t->i == 0 || t->i == 1)) {
		*v = (int)t->i;
		return 0;
	}
	return fail_tok(r, t, "expected a boolean for %s, got %s", what, pc_jr_type_name(t->type));
}

/* A pid or tid: a number or a string of digits. */
static int id_value(struct rd *r, const char *what, int64_t *v)
{
	return pc_jr_id_value(r->ctx, r->p, what, v);
}

/* --- columns and tables --- */

static int col_push(struct rd *r, struct col *c, int64_t v)
{
	if (c->n == c->cap &&
	    pc_grow(r->ctx, (void **)&c->v, sizeof(*c->v), &c->cap, (size_t)c->n + 1))
		return PROFCONV_ERR_NOMEM;
	c->v[c->n++] = v;
	return 0;
}

static int col_push_ns(struct rd *r, struct col *c, int64_t ns)
{
	if (c->n >= c->ns_cap &&
	    pc_grow(r->ctx, (void **)&c->ns, sizeof(*c->ns), &c->ns_cap, (size_t)c->n + 1))
		return PROFCONV_ERR_NOMEM;
	c->ns[c->n] = ns; /* (c->n: the row col_push() adds next) */
	return 0;
}

static int read_col(struct rd *r, const char *table, const struct colspec *cs, struct col *c)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	int err;

	err = pc_jpull_next(r->p, &t);
	if (err)
		return err;
	if (t->type == PC_JT_NULL)
		return 0; /* e.g. samples.weight: null */
	if (t->type != PC_JT_ARR_BEGIN)
		return fail_tok(r, t, "expected an array for %s.%s, got %s", table, cs->key,
				pc_jr_type_name(t->type));
	pc_jpull_loc(r->p, t, &c->loc);
	c->present = 1;
	for (;;) {
		int64_t v = NULLV;

		if (cs->kind == K_RAW) {
			uint32_t idx = 0;

			err = pc_jpull_peek(r->p, &type);
			if (err)
				return err;
			if (type == PC_JT_ARR_END) {
				err = pc_jpull_next(r->p, &t);
				break;
			}
			if (type == PC_JT_NULL) {
				err = pc_jpull_next(r->p, &t);
			} else {
				/* a payload tree, numbers kept as written */
				err = pc_jr_pv_read(r->ctx, r->p, r->m, 1, &idx);
				v = idx;
			}
			if (!err)
				err = col_push(r, c, v);
			if (err)
				return err;
			continue;
		}
		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_ARR_END)
			break;
		switch (t->type) {
		case PC_JT_NULL:
			v = cs->kind == K_BOOL ? 0 : NULLV;
			if (cs->kind == K_WEIGHT && col_push_ns(r, c, NULLV))
				return PROFCONV_ERR_NOMEM;
			break;
		case PC_JT_TRUE:
		case PC_JT_FALSE:
			if (cs->kind != K_BOOL)
				goto bad;
			v = t->type == PC_JT_TRUE;
			break;
		case PC_JT_NUMBER:
			if (cs->kind == K_MS) {
				if (pc_jr_tok_ns(t, &v) || v == NULLV)
					return fail_tok(r, t, "%s.%s[%u]: %s ms is out of range",
							table, cs->key, c->n, t->str);
			} else if (cs->kind == K_INT || cs->kind == K_BOOL) {
				if (!t->is_int || t->i == NULLV)
					goto bad;
				if (cs->kind == K_BOOL && t->i != 0 && t->i != 1)
					goto bad;
				v = t->i;
			} else if (cs->kind == K_WEIGHT) {
				int64_t ns;

				if (t->is_int) {
					v = t->i;
				} else if (t->d > -9e18 && t->d < 9e18) { /* not NaN either */
					v = (int64_t)(t->d < 0 ? t->d - 0.5 : t->d + 0.5);
					c->rounded++;
				} else {
					goto bad;
				}
				if (pc_jr_tok_ns(t, &ns) || ns == NULLV)
					ns = NS_RANGE;
				if (col_push_ns(r, c, ns))
					return PROFCONV_ERR_NOMEM;
			} else {
				goto bad;
			}
			break;
		case PC_JT_STRING:
			if (cs->kind != K_STR)
				goto bad;
			{
				uint32_t idx;

				err = pc_spool_add(&r->sp, t->str, t->len, &idx);
				if (err)
					return err;
				v = idx;
			}
			break;
		default:
			goto bad;
		}
		err = col_push(r, c, v);
		if (err)
			return err;
	}
	return err;
bad:
	return fail_tok(r, t, "%s.%s[%u]: expected %s, got %s", table, cs->key, c->n,
			cs->kind == K_MS	 ? "a number of milliseconds or null" :
			cs->kind == K_BOOL	 ? "a boolean" :
			cs->kind == K_STR	 ? "a string or null" :
			cs->kind == K_WEIGHT ? "a number" :
					       "an integer or null",
			t->type == PC_JT_NUMBER ? t->str : pc_jr_type_name(t->type));
}

static void table_free(struct rd *r, struct table *tb)
{
	unsigned i;

	for (i = 0; i < tb->ncols; i++) {
		pc_free(r->ctx, tb->cols[i].v);
		pc_free(r->ctx, tb->cols[i].ns);
	}
	memset(tb->cols, 0, sizeof(tb->cols));
}

/*
 * After the table's '{': its columns, "length", and for samples
 * "weightType"; other members are skipped.  Every present column must have
 * "length" entries (or all the same count when "length" is absent).
 */
static int read_table(struct rd *r, struct table *tb, uint32_t *nrows)
{
	const struct pc_jtok *t;
	uint32_t n = 0;
	unsigned i;
	int err, have_n = 0;

	tb->length = -1;
	for (;;) {
		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_OBJ_END)
			break;
		for (i = 0; i < tb->ncols; i++)
			if (strcmp(t->str, tb->spec[i].key) == 0)
				break;
		if (i < tb->ncols && tb->spec[i].kind == K_SKIP) {
			err = pc_jpull_skip_value(r->p);
		} else if (i < tb->ncols) {
			if (tb->cols[i].present)
				return fail_tok(r, t, "%s has two \"%s\" members", tb->name,
						tb->spec[i].key);
			err = read_col(r, tb->name, &tb->spec[i], &tb->cols[i]);
		} else if (strcmp(t->str, "length") == 0) {
			err = int_value(r, "length", 0, UINT32_MAX - 1, &tb->length);
		} else if (strcmp(t->str, "weightType") == 0 && tb->spec == sample_cols) {
			err = pc_jr_expect(r->ctx, r->p, PC_JT_STRING, "samples.weightType", &t);
			if (!err)
				pc_snprintf(tb->weight_type, sizeof(tb->weight_type), "%s", t->str);
		} else {
			err = pc_jpull_skip_value(r->p);
		}
		if (err)
			return err;
	}
	if (tb->length >= 0) {
		n = (uint32_t)tb->length;
		have_n = 1;
	}
	for (i = 0; i < tb->ncols; i++) {
		const struct col *c = &tb->cols[i];

		if (!c->present)
			continue;
		if (!have_n) {
			n = c->n;
			have_n = 1;
		}
		if (c->n != n)
			return fail_loc(r, &c->loc, "%s.%s has %u entries, but the table has %u rows",
					tb->name, tb->spec[i].key, c->n, n);
	}
	*nrows = n;
	return 0;
}

/* Open a table object (the '{' is next) and read it. */
static int load_table(struct rd *r, struct table *tb, const char *name,
		      const struct colspec *spec, unsigned ncols, uint32_t *nrows)
{
	const struct pc_jtok *t;
	int err;

	memset(tb, 0, sizeof(*tb));
	tb->name = name;
	tb->spec = spec;
	tb->ncols = ncols;
	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, name, &t);
	if (err)
		return err;
	pc_jpull_loc(r->p, t, &tb->loc);
	return read_table(r, tb, nrows);
}

static int need(struct rd *r, const struct table *tb, unsigned c, uint32_t nrows)
{
	if (tb->cols[c].present || nrows == 0)
		return 0;
	return fail_loc(r, &tb->loc, "%s has no \"%s\" column", tb->name, tb->spec[c].key);
}

static int64_t val(const struct table *tb, unsigned c, uint32_t i, int64_t def)
{
	return tb->cols[c].present ? tb->cols[c].v[i] : def;
}

/* An index column value: null (or -1 where allowed) -> PC_NONE. */
static int to_index(struct rd *r, const struct table *tb, unsigned c, uint32_t i, int nullable,
		    uint32_t *out)
{
	int64_t v = val(tb, c, i, NULLV);

	if (nullable && (v == NULLV || v == -1)) {
		*out = PC_NONE;
		return 0;
	}
	if (v >= 0 && v < (int64_t)UINT32_MAX) {
		*out = (uint32_t)v;
		return 0;
	}
	if (v == NULLV)
		return fail_loc(r, &tb->cols[c].loc, "%s.%s[%u] is null", tb->name,
				tb->spec[c].key, i);
	return fail_loc(r, &tb->cols[c].loc, "%s.%s[%u] = %lld is not a valid index", tb->name,
			tb->spec[c].key, i, (long long)v);
}

/* A small non-negative integer (line, column, depth); null -> def. */
static int to_u32(struct rd *r, const struct table *tb, unsigned c, uint32_t i, uint32_t def,
		  uint32_t max, uint32_t *out)
{
	int64_t v = val(tb, c, i, NULLV);

	if (v == NULLV) {
		*out = def;
		return 0;
	}
	if (v >= 0 && v <= (int64_t)max) {
		*out = (uint32_t)v;
		return 0;
	}
	return fail_loc(r, &tb->cols[c].loc, "%s.%s[%u] = %lld is out of range (0 to %u)",
			tb->name, tb->spec[c].key, i, (long long)v, max);
}

/* --- shared tables --- */

/*
 * Read shared table name (its '{' is next) into tb: the columns in need (a bit per column
 * index) must be there, and the table must not have been read before (had: the model's rows).
 */
static int load_shared_table(struct rd *r, struct table *tb, const char *name,
			     const struct colspec *spec, unsigned ncols, unsigned need_mask,
			     uint32_t had, uint32_t *n)
{
	unsigned c;
	int err;

	err = load_table(r, tb, name, spec, ncols, n);
	for (c = 0; c < ncols && !err; c++)
		if (need_mask & 1u << c)
			err = need(r, tb, c, *n);
	if (!err && had)
		err = fail_loc(r, &tb->loc, "%s appears twice", name);
	return err;
}

static int load_stacks(struct rd *r)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_shared_table(r, &tb, "shared.stackTable", stack_cols, PC_ARRAY_SIZE(stack_cols),
				1u << ST_FRAME | 1u << ST_PREFIX, r->m->stacks.len, &n);
	r->st_frame = tb.cols[ST_FRAME].loc;
	for (i = 0; i < n && !err; i++) {
		uint32_t frame = 0, prefix = PC_NONE;
		int64_t off = val(&tb, ST_PREFIX, i, 0);

		err = to_index(r, &tb, ST_FRAME, i, 0, &frame);
		if (err)
			break;
		if (off == NULLV)
			off = 0;
		if (off < 0 || off > (int64_t)i) {
			err = fail_loc(r, &tb.cols[ST_PREFIX].loc,
				       "shared.stackTable.prefixOffset[%u] = %lld: the parent stack must come before it",
				       i, (long long)off);
			break;
		}
		if (off)
			prefix = i - (uint32_t)off;
		if (pc_stack_append(r->m, prefix, frame) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	table_free(r, &tb);
	return err;
}

static int load_frames(struct rd *r)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_shared_table(r, &tb, "shared.frameTable", frame_cols, PC_ARRAY_SIZE(frame_cols),
				1u << FR_FUNC, r->m->frames.len, &n);
	r->fr_func = tb.cols[FR_FUNC].loc;
	r->fr_lib = tb.cols[FR_LIB].loc;
	r->fr_nsym = tb.cols[FR_NSYM].loc;
	r->fr_cat = tb.cols[FR_CAT].loc;
	for (i = 0; i < n && !err; i++) {
		struct pc_frame_key k;
		int64_t addr = val(&tb, FR_ADDRESS, i, -1), iw = val(&tb, FR_IW, i, 0);
		uint32_t cat = 0, sub = 0, depth = 0;

		memset(&k, 0, sizeof(k));
		if (addr == NULLV || addr == -1) {
			k.address = PC_NO_ADDRESS;
		} else if (addr < 0) {
			err = fail_loc(r, &tb.cols[FR_ADDRESS].loc,
				       "shared.frameTable.address[%u] = %lld is negative", i,
				       (long long)addr);
			break;
		} else {
			k.address = (uint64_t)addr;
		}
		if (iw == NULLV)
			iw = 0;
		if (iw < 0 || (uint64_t)iw > PC_MAX_WINDOW_ID) {
			err = fail_loc(r, &tb.cols[FR_IW].loc,
				       "shared.frameTable.innerWindowID[%u] = %lld is not a window id (an integer 0 to 2^53 - 1)",
				       i, (long long)iw);
			break;
		}
		err = to_index(r, &tb, FR_LIB, i, 1, &k.lib);
		if (!err)
			err = to_index(r, &tb, FR_FUNC, i, 0, &k.func);
		if (!err)
			err = to_index(r, &tb, FR_NSYM, i, 1, &k.native_symbol);
		if (!err)
			err = to_u32(r, &tb, FR_LINE, i, 0, UINT32_MAX, &k.line);
		if (!err)
			err = to_u32(r, &tb, FR_COLUMN, i, 0, UINT32_MAX, &k.column);
		if (!err)
			err = to_u32(r, &tb, FR_CAT, i, PC_NO_CATEGORY, PC_NO_CATEGORY - 1, &cat);
		if (!err)
			err = to_u32(r, &tb, FR_SUBCAT, i, 0, UINT16_MAX, &sub);
		if (!err)
			err = to_u32(r, &tb, FR_INLINE, i, 0, UINT16_MAX, &depth);
		if (err)
			break;
		if (val(&tb, FR_ORIGLOC, i, NULLV) != NULLV)
			r->origloc++;
		k.category = (uint16_t)cat;
		k.subcategory = cat == PC_NO_CATEGORY ? 0 : (uint16_t)sub;
		k.inline_depth = (uint16_t)depth;
		if (pc_frame_append(r->m, &k, (uint64_t)iw) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	table_free(r, &tb);
	return err;
}

static int load_funcs(struct rd *r)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_shared_table(r, &tb, "shared.funcTable", func_cols, PC_ARRAY_SIZE(func_cols),
				1u << FN_NAME, r->m->funcs.len, &n);
	r->fn_name = tb.cols[FN_NAME].loc;
	r->fn_res = tb.cols[FN_RES].loc;
	r->fn_src = tb.cols[FN_SRC].loc;
	for (i = 0; i < n && !err; i++) {
		struct pc_func_key k;

		memset(&k, 0, sizeof(k));
		err = to_index(r, &tb, FN_NAME, i, 0, &k.name);
		if (!err)
			err = to_index(r, &tb, FN_RES, i, 1, &k.resource);
		if (!err)
			err = to_index(r, &tb, FN_SRC, i, 1, &k.source);
		if (!err)
			err = to_u32(r, &tb, FN_LINE, i, 0, UINT32_MAX, &k.line);
		if (!err)
			err = to_u32(r, &tb, FN_COLUMN, i, 0, UINT32_MAX, &k.column);
		if (err)
			break;
		k.is_js = val(&tb, FN_ISJS, i, 0) != 0;
		k.relevant_for_js = val(&tb, FN_RELJS, i, 0) != 0;
		if (val(&tb, FN_ORIGLOC, i, NULLV) != NULLV)
			r->origloc++;
		if (pc_func_append(r->m, &k) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	table_free(r, &tb);
	return err;
}

static int load_resources(struct rd *r)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_shared_table(r, &tb, "shared.resourceTable", resource_cols,
				PC_ARRAY_SIZE(resource_cols), 1u << RS_NAME, r->m->resources.len,
				&n);
	r->rs_name = tb.cols[RS_NAME].loc;
	r->rs_lib = tb.cols[RS_LIB].loc;
	r->rs_host = tb.cols[RS_HOST].loc;
	for (i = 0; i < n && !err; i++) {
		uint32_t name = 0, host = PC_NONE, type = 0, lib = PC_NONE;

		err = to_index(r, &tb, RS_NAME, i, 0, &name);
		if (!err)
			err = to_index(r, &tb, RS_HOST, i, 1, &host);
		if (!err)
			err = to_u32(r, &tb, RS_TYPE, i, PC_RES_UNKNOWN, UINT8_MAX, &type);
		if (!err)
			err = to_index(r, &tb, RS_LIB, i, 1, &lib);
		if (!err && pc_resource_append(r->m, name, host, (uint8_t)type, lib) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	table_free(r, &tb);
	return err;
}

static int load_native_symbols(struct rd *r)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_shared_table(r, &tb, "shared.nativeSymbols", nsym_cols, PC_ARRAY_SIZE(nsym_cols),
				1u << NS_LIB | 1u << NS_NAME, r->m->native_symbols.len, &n);
	r->ns_lib = tb.cols[NS_LIB].loc;
	r->ns_name = tb.cols[NS_NAME].loc;
	for (i = 0; i < n && !err; i++) {
		uint32_t lib = 0, name = 0, size = 0;
		int64_t addr = val(&tb, NS_ADDRESS, i, 0);

		if (addr < 0) {
			err = fail_loc(r, &tb.cols[NS_ADDRESS].loc,
				       "shared.nativeSymbols.address[%u] is null or negative", i);
			break;
		}
		err = to_index(r, &tb, NS_LIB, i, 0, &lib);
		if (!err)
			err = to_index(r, &tb, NS_NAME, i, 0, &name);
		if (!err)
			err = to_u32(r, &tb, NS_SIZE, i, 0, UINT32_MAX, &size);
		if (!err && pc_native_symbol_append(r->m, lib, (uint64_t)addr, name, size) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	table_free(r, &tb);
	return err;
}

static int load_sources(struct rd *r)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_shared_table(r, &tb, "shared.sources", source_cols, PC_ARRAY_SIZE(source_cols),
				1u << SR_FILE, r->m->sources.len, &n);
	r->sr_file = tb.cols[SR_FILE].loc;
	r->sr_url = tb.cols[SR_URL].loc;
	for (i = 0; i < n && !err; i++) {
		struct pc_source_row row;
		int64_t id = val(&tb, SR_ID, i, NULLV), content = val(&tb, SR_CONTENT, i, NULLV);

		/* id and content hold pooled strings until the end (fix_strings()) */
		row.id = id == NULLV ? PC_NONE : (uint32_t)id;
		row.content = content == NULLV ? PC_NONE : (uint32_t)content;
		err = to_index(r, &tb, SR_FILE, i, 0, &row.filename);
		if (!err)
			err = to_u32(r, &tb, SR_LINE, i, 1, UINT32_MAX, &row.start_line);
		if (!err)
			err = to_u32(r, &tb, SR_COLUMN, i, 1, UINT32_MAX, &row.start_column);
		if (!err)
			err = to_index(r, &tb, SR_URL, i, 1, &row.source_map_url);
		if (!err && pc_source_append(r->m, &row) == PC_NONE)
			err = PROFCONV_ERR_NOMEM;
	}
	table_free(r, &tb);
	return err;
}

static int load_source_locations(struct rd *r)
{
	struct table tb;
	uint32_t n;
	int err;

	err = load_table(r, &tb, "shared.sourceLocationTable", srcloc_cols,
			 PC_ARRAY_SIZE(srcloc_cols), &n);
	if (!err && n)
		err = pc_warn_n(r->ctx, WARN_ORIGLOC, n, &tb.loc,
				"shared.sourceLocationTable has %u rows; source-mapped locations are not kept",
				n);
	table_free(r, &tb);
	return err;
}

static int load_string_array(struct rd *r)
{
	const struct pc_jtok *t;
	int err;

	if (r->seen_strings)
		return fail_loc(r, &r->loc_meta, "shared.stringArray appears twice");
	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "shared.stringArray", &t);
	if (err)
		return err;
	r->seen_strings = 1;
	pc_str_clear(r->m);
	for (;;) {
		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_STRING)
			return fail_tok(r, t, "shared.stringArray[%u]: expected a string, got %s",
					r->m->strings.len, pc_jr_type_name(t->type));
		if (pc_str_append(r->m, t->str, t->len) == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	}
	return 0;
}

static int load_shared(struct rd *r)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "shared", &t);
	while (!err) {
		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "stringArray") == 0)
			err = load_string_array(r);
		else if (strcmp(t->str, "stackTable") == 0)
			err = load_stacks(r);
		else if (strcmp(t->str, "frameTable") == 0)
			err = load_frames(r);
		else if (strcmp(t->str, "funcTable") == 0)
			err = load_funcs(r);
		else if (strcmp(t->str, "resourceTable") == 0)
			err = load_resources(r);
		else if (strcmp(t->str, "nativeSymbols") == 0)
			err = load_native_symbols(r);
		else if (strcmp(t->str, "sources") == 0)
			err = load_sources(r);
		else if (strcmp(t->str, "sourceLocationTable") == 0)
			err = load_source_locations(r);
		else
			err = pc_jpull_skip_value(r->p);
	}
	return err;
}

/* --- meta --- */

/* meta.extra: [{label, entries: [{label, format, value}]}], every section kept. */
static int load_extra(struct rd *r)
{
	struct pc_model *m = r->m;
	uint32_t root, sec, i, j, e, entries;
	int err = pc_jr_pv_read(r->ctx, r->p, m, 1, &root);

	if (err || pc_pv(m, root)->kind != PC_VAL_ARR)
		return err;
	for (i = 0, sec = root + 1; i < pc_pv(m, root)->v.n && !err;
	     i++, sec += pc_val_span(pc_pv(m, sec))) {
		const char *label = pc_jr_pv_str(m, sec, "label");

		entries = pc_pv_member(m, sec, "entries");
		if (!label || entries == PC_NONE || pc_pv(m, entries)->kind != PC_VAL_ARR)
			continue;
		for (j = 0, e = entries + 1; j < pc_pv(m, entries)->v.n && !err;
		     j++, e += pc_val_span(pc_pv(m, e))) {
			const char *el = pc_jr_pv_str(m, e, "label");
			const char *fmt = pc_jr_pv_str(m, e, "format");
			uint32_t v = pc_pv_member(m, e, "value");

			if (el && v != PC_NONE)
				err = pc_meta_extra_add(m, label, el, fmt ? fmt : "string", v);
		}
	}
	return err;
}

static int load_marker_schema(struct rd *r)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "meta.markerSchema", &t);
	while (!err) {
		uint32_t body;
		const char *name;

		err = pc_jpull_peek(r->p, &type);
		if (err)
			break;
		if (type == PC_JT_ARR_END)
			return pc_jpull_next(r->p, &t);
		err = pc_jpull_next(r->p, &t);
		if (!err && t->type != PC_JT_OBJ_BEGIN)
			return fail_tok(r, t, "meta.markerSchema: expected an object, got %s",
					pc_jr_type_name(t->type));
		if (!err)
			err = pc_jr_pv_read_from(r->ctx, r->p, r->m, 1, t, &body);
		if (err)
			break;
		name = pc_jr_pv_str(r->m, body, "name");
		if (!name)
			return fail_loc(r, &r->loc_meta, "meta.markerSchema: an entry has no name");
		if (pc_schema_add(r->m, name, body) == PC_NONE)
			return PROFCONV_ERR_NOMEM;
	}
	return err;
}

/* A string (or null) into a kept meta field. */
static int meta_kept(struct rd *r, const char *what, const char **field)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NULL)
		return pc_meta_keep(r->m, field, NULL);
	if (t->type != PC_JT_STRING)
		return fail_tok(r, t, "expected a string for %s, got %s", what,
				pc_jr_type_name(t->type));
	return pc_meta_keep(r->m, field, t->str);
}

static int load_meta(struct rd *r)
{
	struct pc_meta *mt = &r->m->meta;
	struct pc_jr_more more = { 0 };
	const struct pc_jtok *t;
	int64_t v;
	int err, b = 0;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "meta", &t);
	if (err)
		return err;
	if (r->seen_meta)
		return fail_tok(r, t, "the profile has two \"meta\" members");
	r->seen_meta = 1;
	pc_jpull_loc(r->p, t, &r->loc_meta);
	for (;;) {
		const char *raw;
		size_t len;

		err = pc_jpull_next(r->p, &t);
		if (err) {
			pc_jr_more_free(&more, r->m);
			return err;
		}
		if (t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "preprocessedProfileVersion") == 0) {
			err = pc_jpull_next(r->p, &t);
			if (!err && (t->type != PC_JT_NUMBER || !t->is_int))
				err = fail_tok(r, t, "meta.preprocessedProfileVersion: expected an integer");
			else if (!err && t->i != VERSION && t->i != VERSION - 1)
				err = pc_jr_fail(r->ctx, r->p, t, PROFCONV_ERR_UNSUPPORTED,
						 "processed profile version %lld; only %d and %d are read: load it in profiler.firefox.com and save it again to upgrade",
						 (long long)t->i, VERSION - 1, VERSION);
			else if (!err)
				r->version = (int)t->i;
		} else if (strcmp(t->str, "interval") == 0) {
			err = ms_value(r, "meta.interval", &v);
			if (!err && v != PC_NO_TIME)
				mt->interval_ns = v;
		} else if (strcmp(t->str, "startTime") == 0) {
			err = ms_value(r, "meta.startTime", &v);
			if (!err && v != PC_NO_TIME) {
				mt->start_time_ns = v;
				mt->has_start_time = 1;
			}
		} else if (strcmp(t->str, "profilingStartTime") == 0) {
			err = ms_value(r, "meta.profilingStartTime", &mt->profiling_start);
		} else if (strcmp(t->str, "profilingEndTime") == 0) {
			err = ms_value(r, "meta.profilingEndTime", &mt->profiling_end);
		} else if (strcmp(t->str, "symbolicated") == 0) {
			err = bool_value(r, "meta.symbolicated", &b);
			mt->symbolicated = b;
		} else if (strcmp(t->str, "product") == 0) {
			err = meta_str(r, "meta.product", &mt->product);
		} else if (strcmp(t->str, "importedFrom") == 0) {
			err = meta_str(r, "meta.importedFrom", &mt->imported_from);
		} else if (strcmp(t->str, "oscpu") == 0) {
			err = meta_kept(r, "meta.oscpu", &mt->oscpu);
		} else if (strcmp(t->str, "platform") == 0) {
			err = meta_kept(r, "meta.platform", &mt->platform);
		} else if (strcmp(t->str, "abi") == 0) {
			err = meta_kept(r, "meta.abi", &mt->abi);
		} else if (strcmp(t->str, "CPUName") == 0) {
			err = meta_kept(r, "meta.CPUName", &mt->cpu_name);
		} else if (strcmp(t->str, "mainMemory") == 0) {
			err = int_value(r, "meta.mainMemory", 0, INT64_MAX, &v);
			mt->main_memory = (uint64_t)v;
		} else if (strcmp(t->str, "sampleUnits") == 0) {
			err = pc_jr_sample_units(r->ctx, r->p, r->m);
		} else if (strcmp(t->str, "logicalCPUs") == 0) {
			err = int_value(r, "meta.logicalCPUs", 0, UINT32_MAX, &v);
			mt->logical_cpus = (uint32_t)v;
		} else if (strcmp(t->str, "physicalCPUs") == 0) {
			err = int_value(r, "meta.physicalCPUs", 0, UINT32_MAX, &v);
			mt->physical_cpus = (uint32_t)v;
		} else if (strcmp(t->str, "markerSchema") == 0) {
			err = load_marker_schema(r);
		} else if (strcmp(t->str, "categories") == 0) {
			enum pc_jtype type;

			err = pc_jpull_peek(r->p, &type);
			if (!err && type == PC_JT_NULL) {
				err = pc_jpull_skip_value(r->p);
			} else if (!err) {
				err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
				if (!err)
					err = pc_jr_categories(r->ctx, r->p, t, r->m, raw, len);
				r->seen_categories = !err;
			}
		} else if (strcmp(t->str, "extra") == 0) {
			err = load_extra(r);
		} else if (strcmp(t->str, "version") == 0 || strcmp(t->str, "processType") == 0 ||
			   strcmp(t->str, "stackwalk") == 0) {
			err = pc_jpull_skip_value(r->p); /* the writers write their own */
		} else {
			err = pc_jr_more_read(&more, r->ctx, r->p, r->m, t->str, t->len);
		}
		if (err) {
			pc_jr_more_free(&more, r->m);
			return err;
		}
	}
	if (more.n) {
		mt->more = pc_jr_more_build(&more, r->m);
		if (mt->more == PC_NONE)
			return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
	}
	if (!r->version)
		return fail_loc(r, &r->loc_meta,
				"meta has no preprocessedProfileVersion: not a processed profile (a Gecko profile? try --from gecko)");
	return 0;
}

/* --- libs --- */

static int load_libs(struct rd *r)
{
	static const char *const keys[] = { "arch",	 "name",       "path",	 "debugName",
					    "debugPath", "breakpadId", "codeId" };
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "libs", &t);
	if (err)
		return err;
	if (r->m->libs.len)
		return fail_tok(r, t, "the profile has two \"libs\" members");
	for (;;) {
		struct pc_lib lib;
		uint32_t s[PC_ARRAY_SIZE(keys)];
		size_t i;

		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_OBJ_BEGIN)
			return fail_tok(r, t, "libs[%u]: expected an object, got %s", r->m->libs.len,
					pc_jr_type_name(t->type));
		for (i = 0; i < PC_ARRAY_SIZE(keys); i++)
			s[i] = PC_NONE;
		for (;;) {
			err = pc_jpull_next(r->p, &t);
			if (err)
				return err;
			if (t->type == PC_JT_OBJ_END)
				break;
			for (i = 0; i < PC_ARRAY_SIZE(keys); i++)
				if (strcmp(t->str, keys[i]) == 0)
					break;
			if (i < PC_ARRAY_SIZE(keys))
				err = pooled_str_or_null(r, keys[i], &s[i]);
			else
				err = pc_jpull_skip_value(r->p);
			if (err)
				return err;
		}
		/* pooled strings until fix_strings() */
		memset(&lib, 0, sizeof(lib));
		lib.arch = s[0];
		lib.name = s[1];
		lib.path = s[2];
		lib.debug_name = s[3];
		lib.debug_path = s[4];
		lib.breakpad_id = s[5];
		lib.code_id = s[6];
		lib.resource = PC_NONE;
		if (pc_lib_add(r->m, &lib) == PC_NONE)
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

/* --- threads --- */

static int load_samples(struct rd *r, struct pc_thread *th, struct tloc *tl)
{
	struct table tb;
	uint32_t n, i;
	int64_t time = 0;
	int err, ms;

	err = load_table(r, &tb, "samples", sample_cols, PC_ARRAY_SIZE(sample_cols), &n);
	if (!err)
		err = need(r, &tb, SA_STACK, n);
	if (!err && n && !tb.cols[SA_TIME].present && !tb.cols[SA_DELTAS].present)
		err = fail_loc(r, &tb.loc, "samples has neither \"time\" nor \"timeDeltas\"");
	if (!err && th->samples.len)
		err = fail_loc(r, &tb.loc, "the thread has two \"samples\" members");
	if (!err && tb.weight_type[0]) {
		static const char *const types[] = { "samples", "tracing-ms", "bytes" };
		size_t k;

		for (k = 0; k < PC_ARRAY_SIZE(types); k++)
			if (strcmp(tb.weight_type, types[k]) == 0)
				th->samples.weight_type = types[k];
	}
	tl->stack = tb.cols[SA_STACK].loc;
	/* "tracing-ms" weights are durations in ms: ns in the model, as times
	 * (a null weight is 1 ms, the format's unit); others are counts */
	ms = strcmp(th->samples.weight_type, "tracing-ms") == 0;
	if (!err && !ms)
		r->weight_rounded += tb.cols[SA_WEIGHT].rounded;
	for (i = 0; i < n && !err; i++) {
		uint32_t stack = PC_NONE;
		int64_t w = val(&tb, SA_WEIGHT, i, 1);

		if (ms) {
			w = tb.cols[SA_WEIGHT].present ? tb.cols[SA_WEIGHT].ns[i] : NULLV;
			if (w == NS_RANGE) {
				err = fail_loc(r, &tb.cols[SA_WEIGHT].loc,
					       "samples.weight[%u] (tracing-ms) is out of range", i);
				break;
			}
			if (w == NULLV)
				w = 1000000;
		}

		if (tb.cols[SA_TIME].present) {
			time = tb.cols[SA_TIME].v[i];
		} else {
			int64_t d = tb.cols[SA_DELTAS].v[i];

			if (d == NULLV || (d > 0 && time > INT64_MAX - d) ||
			    (d < 0 && time < INT64_MIN + 1 - d)) {
				err = fail_loc(r, &tb.cols[SA_DELTAS].loc,
					       "samples.timeDeltas[%u] is null or overflows", i);
				break;
			}
			time += d;
		}
		if (time == NULLV) {
			err = fail_loc(r, &tb.cols[SA_TIME].loc, "samples.time[%u] is null", i);
			break;
		}
		err = to_index(r, &tb, SA_STACK, i, 1, &stack);
		if (!err)
			err = pc_sample_add(r->m, th, stack, time, w == NULLV ? 1 : w);
		if (!err && tb.cols[SA_DELAY].present)
			err = pc_sample_set_event_delay(r->m, th, val(&tb, SA_DELAY, i, NULLV));
		if (!err && tb.cols[SA_CPU].present)
			err = pc_sample_set_cpu_delta(r->m, th, val(&tb, SA_CPU, i, NULLV));
	}
	table_free(r, &tb);
	return err;
}

static int load_markers(struct rd *r, struct pc_thread *th, struct tloc *tl)
{
	struct table tb;
	uint32_t n, i;
	int err;

	err = load_table(r, &tb, "markers", marker_cols, PC_ARRAY_SIZE(marker_cols), &n);
	if (!err)
		err = need(r, &tb, MK_NAME, n);
	if (!err && th->markers.len)
		err = fail_loc(r, &tb.loc, "the thread has two \"markers\" members");
	tl->mname = tb.cols[MK_NAME].loc;
	tl->mcat = tb.cols[MK_CAT].loc;
	for (i = 0; i < n && !err; i++) {
		uint32_t name = 0, phase = 0, cat = 0;
		int64_t start = val(&tb, MK_START, i, NULLV), end = val(&tb, MK_END, i, NULLV);
		int64_t data = val(&tb, MK_DATA, i, NULLV);

		err = to_index(r, &tb, MK_NAME, i, 0, &name);
		if (!err)
			err = to_u32(r, &tb, MK_PHASE, i, PC_PHASE_INSTANT, PC_PHASE_END, &phase);
		if (!err)
			err = to_u32(r, &tb, MK_CAT, i, 0, PC_NO_CATEGORY - 1, &cat);
		if (!err) {
			struct pc_marker_row row;

			pc_marker_row_init(&row);
			row.name = name;
			row.start = start == NULLV ? PC_NO_TIME : start;
			row.end = end == NULLV ? PC_NO_TIME : end;
			row.phase = (uint8_t)phase;
			/* the time a phase has no use for is not read, as the
			 * front-end does not (profconv writes 0 there) */
			if (phase == PC_PHASE_INSTANT || phase == PC_PHASE_START)
				row.end = PC_NO_TIME;
			else if (phase == PC_PHASE_END)
				row.start = PC_NO_TIME;
			/* the time its phase needs (Instant, IntervalStart: start;
			 * IntervalEnd: end; Interval: both), else an instant at the
			 * time it has; with no time at all it cannot be drawn */
			if (((phase == PC_PHASE_INSTANT || phase == PC_PHASE_START ||
			      phase == PC_PHASE_INTERVAL) && row.start == PC_NO_TIME) ||
			    ((phase == PC_PHASE_END || phase == PC_PHASE_INTERVAL) &&
			     row.end == PC_NO_TIME)) {
				if (row.start == PC_NO_TIME)
					row.start = row.end;
				row.end = PC_NO_TIME;
				row.phase = PC_PHASE_INSTANT;
				r->bad_times++;
				if (row.start == PC_NO_TIME) {
					r->dropped_markers++;
					continue;
				}
			}
			row.category = (uint16_t)cat;
			row.payload = data == NULLV ? PC_NONE : (uint32_t)data;
			if (row.payload != PC_NONE && pc_pv(r->m, row.payload)->kind == PC_VAL_NULL)
				row.payload = PC_NONE;
			pc_jr_take_cause(r->m, row.payload, &row);
			err = pc_marker_push(r->m, th, &row);
		}
	}
	table_free(r, &tb);
	return err;
}

/*
 * pausedRanges: [{startTime, endTime, reason}].  Anything else is ignored
 * with a warning (the front-end would fail on it).
 */
static int load_paused(struct rd *r, struct pc_thread *th, const struct pc_jtok *key)
{
	struct pc_model *m = r->m;
	uint32_t root, e, i;
	struct pc_loc loc;
	int err;

	pc_jpull_loc(r->p, key, &loc);
	err = pc_jr_pv_read(r->ctx, r->p, m, 1, &root);
	if (err)
		return err;
	if (pc_pv(m, root)->kind != PC_VAL_ARR)
		return pc_warn(r->ctx, WARN_PAUSED, &loc,
			       "threads[%u].pausedRanges is not an array; ignored", m->nthreads - 1);
	for (i = 0, e = root + 1; i < pc_pv(m, root)->v.n && !err;
	     i++, e += pc_val_span(pc_pv(m, e))) {
		int64_t start = PC_NO_TIME, end = PC_NO_TIME;

		if (pc_pv(m, e)->kind != PC_VAL_OBJ) {
			err = pc_warn(r->ctx, WARN_PAUSED, &loc,
				      "threads[%u].pausedRanges[%u] is not an object; ignored",
				      m->nthreads - 1, i);
			continue;
		}
		pc_jr_pv_ns(m, pc_pv_member(m, e, "startTime"), &start);
		pc_jr_pv_ns(m, pc_pv_member(m, e, "endTime"), &end);
		err = pc_thread_add_paused(m, th, start, end, pc_jr_pv_str(m, e, "reason"));
	}
	return err;
}

static int load_thread(struct rd *r)
{
	struct pc_model *m = r->m;
	struct pc_jr_more more = { 0 };
	struct pc_thread *th;
	struct tloc *tl;
	const struct pc_jtok *t;
	const char *ptype = NULL, *pname = NULL;
	int64_t v, pstart = 0, pend = PC_NO_TIME;
	int err, b = 0;

	th = pc_thread_add(m, PC_NO_PID, 0); /* its ids come with its members */
	if (!th || pc_grow(r->ctx, (void **)&r->tlocs, sizeof(*r->tlocs), &r->tlocs_cap,
			   m->nthreads))
		return PROFCONV_ERR_NOMEM;
	th->pid = 0;
	tl = &r->tlocs[m->nthreads - 1];
	memset(tl, 0, sizeof(*tl));
	/* pooled strings until fix_strings() */
	th->name = PC_NONE;
	for (;;) {
		err = pc_jpull_next(r->p, &t);
		if (err) {
			pc_jr_more_free(&more, m);
			return err;
		}
		if (t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "name") == 0) {
			err = pooled_str_or_null(r, "threads[].name", &th->name);
		} else if (strcmp(t->str, "processName") == 0) {
			err = pc_jpull_next(r->p, &t);
			if (!err && t->type == PC_JT_STRING) {
				pname = pc_model_keep(m, t->str, t->len);
				if (!pname)
					err = PROFCONV_ERR_NOMEM;
			} else if (!err && t->type != PC_JT_NULL) {
				err = fail_tok(r, t, "expected a string for threads[].processName, got %s",
					       pc_jr_type_name(t->type));
			}
		} else if (strcmp(t->str, "processType") == 0) {
			err = pc_jr_expect(r->ctx, r->p, PC_JT_STRING, "threads[].processType", &t);
			if (!err) {
				ptype = pc_model_keep(m, t->str, t->len);
				if (!ptype)
					err = PROFCONV_ERR_NOMEM;
			}
		} else if (strcmp(t->str, "pid") == 0) {
			err = id_value(r, "threads[].pid", &th->pid);
		} else if (strcmp(t->str, "tid") == 0) {
			err = id_value(r, "threads[].tid", &th->tid);
		} else if (strcmp(t->str, "isMainThread") == 0) {
			err = bool_value(r, "threads[].isMainThread", &b);
			th->is_main = (uint8_t)b;
		} else if (strcmp(t->str, "processStartupTime") == 0) {
			err = ms_value(r, "threads[].processStartupTime", &v);
			pstart = v == PC_NO_TIME ? 0 : v;
		} else if (strcmp(t->str, "processShutdownTime") == 0) {
			err = ms_value(r, "threads[].processShutdownTime", &pend);
		} else if (strcmp(t->str, "registerTime") == 0) {
			err = ms_value(r, "threads[].registerTime", &v);
			th->register_time = v == PC_NO_TIME ? 0 : v;
		} else if (strcmp(t->str, "unregisterTime") == 0) {
			err = ms_value(r, "threads[].unregisterTime", &th->unregister_time);
		} else if (strcmp(t->str, "pausedRanges") == 0) {
			err = load_paused(r, th, t);
		} else if (strcmp(t->str, "samples") == 0) {
			err = load_samples(r, th, tl);
		} else if (strcmp(t->str, "markers") == 0) {
			err = load_markers(r, th, tl);
		} else if (strcmp(t->str, "jsAllocations") == 0 ||
			   strcmp(t->str, "nativeAllocations") == 0) {
			err = pc_jr_warn(r->ctx, r->p, t, WARN_ALLOC,
					 "threads[%u].%s: allocation tables are not kept",
					 m->nthreads - 1, t->str);
			if (!err)
				err = pc_jpull_skip_value(r->p);
		} else {
			err = pc_jr_more_read(&more, r->ctx, r->p, m, t->str, t->len);
		}
		if (err) {
			pc_jr_more_free(&more, m);
			return err;
		}
	}
	th->more = pc_jr_more_build(&more, m);
	if (more.n == 0 && r->ctx->status)
		return r->ctx->status;
	/* the process row: the first thread that names a fact sets it */
	err = pc_thread_set_ids(m, th, th->pid, th->tid);
	if (!err) {
		struct pc_process *pr = &m->processes.rows[th->process];

		if (ptype && strcmp(pr->type, "default") == 0)
			pr->type = ptype;
		if (pname && !pr->name)
			pr->name = pname;
		if (pr->start == PC_NO_TIME)
			pr->start = pstart;
		if (pr->end == PC_NO_TIME)
			pr->end = pend;
		if (th->is_main && (pr->main_thread == PC_NONE ||
				    !m->threads[pr->main_thread]->is_main))
			pr->main_thread = m->nthreads - 1;
	}
	return err;
}

static int load_threads(struct rd *r)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "threads", &t);
	if (!err && r->m->nthreads)
		err = fail_tok(r, t, "the profile has two \"threads\" members");
	while (!err) {
		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_OBJ_BEGIN)
			return fail_tok(r, t, "threads[%u]: expected an object, got %s",
					r->m->nthreads, pc_jr_type_name(t->type));
		err = load_thread(r);
	}
	return err;
}


/* --- the end: interning the pooled strings, checking references --- */

/* A pooled string (or PC_NONE, or "" where empty) into the string table. */
static int intern_pooled(struct rd *r, uint32_t *s, int null_as_empty)
{
	if (*s == PC_NONE) {
		if (!null_as_empty)
			return 0;
		*s = pc_str_intern(r->m, "", 0);
	} else {
		*s = pc_str_intern(r->m, pc_spool_str(&r->sp, *s), pc_spool_len(&r->sp, *s));
	}
	return *s == PC_NONE ? (r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM) : 0;
}

static int fix_strings(struct rd *r)
{
	struct pc_model *m = r->m;
	uint32_t i, k;
	int err = 0;

	for (i = 0; i < m->libs.len && !err; i++) {
		struct pc_lib *l = &m->libs.rows[i];

		err = intern_pooled(r, &l->arch, 0);
		if (!err)
			err = intern_pooled(r, &l->name, 1);
		if (!err)
			err = intern_pooled(r, &l->path, 1);
		if (!err)
			err = intern_pooled(r, &l->debug_name, 1);
		if (!err)
			err = intern_pooled(r, &l->debug_path, 1);
		if (!err)
			err = intern_pooled(r, &l->breakpad_id, 1);
		if (!err)
			err = intern_pooled(r, &l->code_id, 0);
	}
	for (i = 0; i < m->sources.ext_len && !err; i++) {
		err = intern_pooled(r, &m->sources.id[i], 0);
		if (!err)
			err = intern_pooled(r, &m->sources.content[i], 0);
	}
	for (i = 0; i < m->nthreads && !err; i++) {
		struct pc_thread *th = m->threads[i];

		err = intern_pooled(r, &th->name, 1);
		for (k = 0; k < th->markers.len && !err; k++)
			r->bad_srefs += pc_jr_resolve_srefs(m, th->markers.payload[k],
							   m->strings.len);
	}
	return err;
}

/* v < limit, else an error naming the column and row. */
static int check_ref(struct rd *r, const struct pc_loc *loc, const char *col, uint32_t row,
		     uint32_t v, uint32_t limit, const char *table)
{
	if (v == PC_NONE || v < limit)
		return 0;
	return fail_loc(r, loc, "%s[%u] = %u is out of range (%s has %u rows)", col, row, v,
			table, limit);
}

static int check_refs(struct rd *r)
{
	const struct pc_model *m = r->m;
	uint32_t ns = m->strings.len, i, k;
	int err = 0;

	for (i = 0; i < m->stacks.len && !err; i++)
		err = check_ref(r, &r->st_frame, "shared.stackTable.frame", i, m->stacks.frame[i],
				m->frames.len, "frameTable");
	for (i = 0; i < m->frames.len && !err; i++) {
		uint16_t c = m->frames.category[i];

		err = check_ref(r, &r->fr_func, "shared.frameTable.func", i, m->frames.func[i],
				m->funcs.len, "funcTable");
		if (!err)
			err = check_ref(r, &r->fr_lib, "shared.frameTable.lib", i,
					m->frames.lib[i], m->libs.len, "libs");
		if (!err)
			err = check_ref(r, &r->fr_nsym, "shared.frameTable.nativeSymbol", i,
					m->frames.native_symbol[i], m->native_symbols.len,
					"nativeSymbols");
		if (!err && c != PC_NO_CATEGORY)
			err = check_ref(r, &r->fr_cat, "shared.frameTable.category", i, c,
					m->ncategories, "meta.categories");
		if (!err && c != PC_NO_CATEGORY && m->frames.subcategory[i] >= m->categories[c].nsub)
			err = fail_loc(r, &r->fr_cat,
				       "shared.frameTable.subcategory[%u] = %u is out of range (category %u has %u subcategories)",
				       i, m->frames.subcategory[i], c, m->categories[c].nsub);
	}
	for (i = 0; i < m->funcs.len && !err; i++) {
		err = check_ref(r, &r->fn_name, "shared.funcTable.name", i, m->funcs.name[i], ns,
				"stringArray");
		if (!err)
			err = check_ref(r, &r->fn_res, "shared.funcTable.resource", i,
					m->funcs.resource[i], m->resources.len, "resourceTable");
		if (!err)
			err = check_ref(r, &r->fn_src, "shared.funcTable.source", i,
					m->funcs.source[i], m->sources.len, "sources");
	}
	for (i = 0; i < m->resources.len && !err; i++) {
		err = check_ref(r, &r->rs_name, "shared.resourceTable.name", i,
				m->resources.name[i], ns, "stringArray");
		if (!err)
			err = check_ref(r, &r->rs_host, "shared.resourceTable.host", i,
					m->resources.host[i], ns, "stringArray");
	}
	for (i = 0; i < m->native_symbols.len && !err; i++) {
		err = check_ref(r, &r->ns_lib, "shared.nativeSymbols.libIndex", i,
				m->native_symbols.lib[i], m->libs.len, "libs");
		if (!err)
			err = check_ref(r, &r->ns_name, "shared.nativeSymbols.name", i,
					m->native_symbols.name[i], ns, "stringArray");
	}
	for (i = 0; i < m->sources.len && !err; i++) {
		struct pc_source_row row;

		pc_source_get(m, i, &row);
		err = check_ref(r, &r->sr_file, "shared.sources.filename", i, row.filename, ns,
				"stringArray");
		if (!err)
			err = check_ref(r, &r->sr_url, "shared.sources.sourceMapURL", i,
					row.source_map_url, ns, "stringArray");
	}
	for (i = 0; i < m->nthreads && !err; i++) {
		const struct pc_thread *th = m->threads[i];
		const struct tloc *tl = &r->tlocs[i];

		for (k = 0; k < th->samples.len && !err; k++)
			err = check_ref(r, &tl->stack, "samples.stack", k, th->samples.stack[k],
					m->stacks.len, "stackTable");
		for (k = 0; k < th->markers.len && !err; k++) {
			err = check_ref(r, &tl->mname, "markers.name", k, th->markers.name[k], ns,
					"stringArray");
			if (!err)
				err = check_ref(r, &tl->mcat, "markers.category", k,
						th->markers.category[k], m->ncategories,
						"meta.categories");
		}
	}
	return err;
}

/*
 * Reader-private lib facts: the Library resource (by name; processed v70 has
 * no resource -> lib link) that symbolication gives new funcs, and whether
 * the lib is the kernel (symbols from kallsyms).
 */
static int link_libs(struct rd *r)
{
	struct pc_model *m = r->m;
	struct pc_smap byname;
	uint32_t i;
	int err = 0;

	pc_smap_init(&byname, r->ctx);
	for (i = 0; i < m->resources.len && !err; i++) {
		uint32_t s = m->resources.name[i];

		if (m->resources.type[i] == PC_RES_LIBRARY &&
		    pc_smap_get(&byname, m->strings.ptr[s], m->strings.lens[s]) == PC_NONE)
			err = pc_smap_put(&byname, m->strings.ptr[s], m->strings.lens[s], i);
	}
	for (i = 0; i < m->libs.len && !err; i++) {
		struct pc_lib *l = &m->libs.rows[i];
		const char *name = pc_str(m, l->name);

		l->resource = pc_smap_get(&byname, name, m->strings.lens[l->name]);
		l->is_kernel = strncmp(name, "[kernel", 7) == 0 || strcmp(name, "vmlinux") == 0;
	}
	pc_smap_free(&byname);
	return err;
}

/*
 * Before version 70 a frame's lib is its func's resource's lib (the v70
 * upgrader of the front-end derives frameTable.lib the same way).
 */
static int derive_frame_libs(struct rd *r)
{
	struct pc_model *m = r->m;
	uint32_t i;
	int err = 0;

	for (i = 0; i < m->resources.len && !err; i++)
		err = check_ref(r, &r->rs_lib, "shared.resourceTable.lib", i, m->resources.lib[i],
				m->libs.len, "libs");
	for (i = 0; i < m->frames.len && !err; i++) {
		uint32_t res = m->funcs.resource[m->frames.func[i]];

		m->frames.lib[i] = res == PC_NONE ? PC_NONE : m->resources.lib[res];
	}
	if (!err)
		err = pc_frame_index_rebuild(m);
	return err;
}

/*
 * Counters are read as one payload tree with every number kept as its text
 * (PC_VAL_NUM), so that times can be converted exactly: a counter time is
 * int64 ns written as ms with up to six decimals, and anything past 2^53 ns
 * (about 104 days) does not survive a trip through a double.  Counts are
 * the doubles their texts stand for (pc_jr_pv_double()); pid,
 * mainThreadIndex and length keep every digit (pc_jr_pv_int()).
 */

/*
 * The array member key of a payload object, of n elements: *out gets room
 * for them (elem bytes each) and *first its first element's node.  0 with
 * *out NULL when there is no such array, -1 when its length is not n.
 */
static int pv_column(const struct pc_model *m, uint32_t obj, const char *key, uint32_t n,
		     size_t elem, void **out, uint32_t *first)
{
	uint32_t a = pc_pv_member(m, obj, key);

	*out = NULL;
	if (a == PC_NONE || pc_pv(m, a)->kind != PC_VAL_ARR)
		return 0;
	if (pc_pv(m, a)->v.n != n)
		return -1;
	*out = pc_alloc(m->ctx, ((size_t)n + 1) * elem);
	if (!*out)
		return PROFCONV_ERR_NOMEM;
	*first = a + 1;
	return 0;
}

/* A number column of a payload object as doubles (NULL when absent). */
static int pv_numbers(const struct pc_model *m, uint32_t obj, const char *key, uint32_t n,
		      double **out)
{
	uint32_t i, e = 0;
	void *col;
	int err = pv_column(m, obj, key, n, sizeof(**out), &col, &e);

	*out = col;
	if (err || !col)
		return err;
	for (i = 0; i < n; i++, e += pc_val_span(pc_pv(m, e)))
		if (!pc_jr_pv_double(m, e, &(*out)[i]))
			(*out)[i] = 0;
	return 0;
}

/*
 * A time column (ms, or ms between samples with delta) as exact ns (NULL
 * when absent); -1 when its length is not n or a time is not a number that
 * fits int64 ns (pc_jr_ms_to_ns(); PC_NO_TIME excluded), or a running sum
 * of deltas leaves that range.
 */
static int pv_times(const struct pc_model *m, uint32_t obj, const char *key, uint32_t n,
		    int delta, int64_t **out)
{
	uint32_t i, e = 0;
	int64_t ns, sum = 0;
	void *col;
	int err = pv_column(m, obj, key, n, sizeof(**out), &col, &e);

	*out = col;
	if (err || !col)
		return err;
	for (i = 0; i < n; i++, e += pc_val_span(pc_pv(m, e))) {
		if (!pc_jr_pv_ns(m, e, &ns))
			return -1;
		if (delta && i) {
			if (__builtin_add_overflow(sum, ns, &ns) || ns == PC_NO_TIME)
				return -1;
		}
		sum = ns;
		(*out)[i] = ns;
	}
	return 0;
}

/*
 * counters: [{name, category, description, pid, mainThreadIndex, samples:
 * {time | timeDeltas, count, number?, length}, display}].  A counter whose
 * columns do not fit is dropped with a warning.
 */
static int load_counters(struct rd *r, const struct pc_jtok *key)
{
	struct pc_model *m = r->m;
	uint32_t root, c, i, k;
	uint64_t dropped = 0;
	struct pc_loc loc;
	int err;

	pc_jpull_loc(r->p, key, &loc);
	err = pc_jr_pv_read(r->ctx, r->p, m, 1, &root);
	if (err)
		return err;
	if (pc_pv(m, root)->kind != PC_VAL_ARR)
		return pc_warn(r->ctx, WARN_COUNTERS, &loc, "counters is not an array; dropped");
	for (i = 0, c = root + 1; i < pc_pv(m, root)->v.n && !err;
	     i++, c += pc_val_span(pc_pv(m, c))) {
		uint32_t smp = pc_pv_member(m, c, "samples"), ci, proc = PC_NONE, disp;
		double *count = NULL, *number = NULL;
		int64_t *time = NULL, n = -1, pid, mti;
		int bad;

		if (pc_pv(m, c)->kind != PC_VAL_OBJ || smp == PC_NONE ||
		    !pc_jr_pv_int(m, pc_pv_member(m, smp, "length"), &n) || n < 0 ||
		    n > UINT32_MAX - 1) {
			dropped++;
			continue;
		}
		bad = pv_times(m, smp, "time", (uint32_t)n, 0, &time);
		if (!bad && !time)
			bad = pv_times(m, smp, "timeDeltas", (uint32_t)n, 1, &time);
		if (!bad)
			bad = pv_numbers(m, smp, "count", (uint32_t)n, &count);
		if (!bad)
			bad = pv_numbers(m, smp, "number", (uint32_t)n, &number);
		if (bad > 0) {
			err = bad;
		} else if (bad || !time || !count) {
			dropped++;
		} else {
			uint32_t pidv = pc_pv_member(m, c, "pid");

			if (pc_jr_pv_int(m, pidv, &pid) ||
			    (pidv != PC_NONE && pc_pv(m, pidv)->kind == PC_VAL_STR &&
			     pc_jr_parse_i64(pc_pv_text(m, pc_pv(m, pidv)->v.s, NULL), &pid)))
				proc = pc_process_get(m, pid);
			ci = pc_counter_add(m, pc_jr_pv_str(m, c, "name"),
					    pc_jr_pv_str(m, c, "category"),
					    pc_jr_pv_str(m, c, "description"), proc);
			if (ci == PC_NONE)
				err = PROFCONV_ERR_NOMEM;
			if (!err && pc_jr_pv_int(m, pc_pv_member(m, c, "mainThreadIndex"), &mti) &&
			    mti >= 0 && mti < UINT32_MAX)
				m->counters.rows[ci].main_thread = (uint32_t)mti;
			disp = pc_pv_member(m, c, "display");
			if (!err && disp != PC_NONE && pc_pv(m, disp)->kind == PC_VAL_OBJ)
				m->counters.rows[ci].display = disp;
			for (k = 0; k < (uint32_t)n && !err; k++)
				err = pc_counter_sample(m, ci, time[k], count[k], number != NULL,
							number ? number[k] : 0);
		}
		pc_free(r->ctx, time);
		pc_free(r->ctx, count);
		pc_free(r->ctx, number);
	}
	if (!err)
		err = pc_warn_n(r->ctx, WARN_COUNTERS, dropped, &loc,
				"%llu counters have unusable samples; dropped",
				(unsigned long long)dropped);
	return err;
}

static int read_doc(struct rd *r)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "the profile", &t);
	while (!err) {
		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "meta") == 0) {
			err = load_meta(r);
		} else if (strcmp(t->str, "libs") == 0) {
			err = load_libs(r);
		} else if (strcmp(t->str, "shared") == 0) {
			err = load_shared(r);
		} else if (strcmp(t->str, "threads") == 0) {
			err = load_threads(r);
		} else if (strcmp(t->str, "counters") == 0) {
			err = load_counters(r, t);
		} else if (strcmp(t->str, "pages") == 0) {
			uint32_t root;
			uint64_t skipped = 0;
			struct pc_loc loc;

			pc_jpull_loc(r->p, t, &loc);
			err = pc_jr_pv_read(r->ctx, r->p, r->m, 0, &root);
			if (!err)
				err = pc_jr_pages(r->m, root, &skipped);
			if (!err)
				err = pc_warn_n(r->ctx, WARN_PAGES, skipped, &loc,
						"pages: %llu entries are not objects (or the list is not an array); dropped",
						(unsigned long long)skipped);
		} else {
			pc_note(r->ctx, "%s: the top-level member \"%s\" is not kept", r->name,
				t->str);
			err = pc_jpull_skip_value(r->p);
		}
	}
	if (!err)
		err = pc_jpull_next(r->p, &t); /* the end of input, or trailing garbage */
	if (err)
		return err;
	if (!r->seen_meta)
		return pc_fail(r->ctx, PROFCONV_ERR_CORRUPT, NULL,
			       "%s: no \"meta\" member: not a processed profile", r->name);
	if (!r->seen_categories)
		pc_jr_default_categories(r->m);
	err = pc_warn_n(r->ctx, WARN_ORIGLOC, r->origloc, &r->loc_meta,
			"%llu frames or funcs have an originalLocation; source-mapped locations are not kept",
			(unsigned long long)r->origloc);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_WEIGHT, r->weight_rounded, &r->loc_meta,
				"%llu sample weights are not integers; they are rounded",
				(unsigned long long)r->weight_rounded);
	if (!err)
		err = fix_strings(r);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_MTIME, r->bad_times, &r->loc_meta,
				"%llu markers lack the time their phase needs; made instants at the time they have (%llu with no time at all dropped)",
				(unsigned long long)r->bad_times, (unsigned long long)r->dropped_markers);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_SREF, r->bad_srefs, &r->loc_meta,
				"%llu marker fields declared as string indexes hold no valid index; kept as they are",
				(unsigned long long)r->bad_srefs);
	for (uint32_t ci = 0; !err && ci < r->m->counters.len; ci++)
		if (r->m->counters.rows[ci].main_thread != PC_NONE &&
		    r->m->counters.rows[ci].main_thread >= r->m->nthreads)
			err = pc_fail(r->ctx, PROFCONV_ERR_CORRUPT, NULL,
				      "%s: counters[%u].mainThreadIndex = %u is out of range (%u threads)",
				      r->name, ci, r->m->counters.rows[ci].main_thread,
				      r->m->nthreads);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_UTF8, pc_jpull_bad_utf8(r->p) + r->utf8_repaired,
				&r->loc_meta,
				"%llu strings or raw values have invalid UTF-8; written with U+FFFD in its place",
				(unsigned long long)(pc_jpull_bad_utf8(r->p) + r->utf8_repaired));
	if (!err)
		err = check_refs(r);
	if (!err)
		err = link_libs(r);
	if (!err && r->version < VERSION)
		err = derive_frame_libs(r);
	return err;
}

static int read_processed(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct rd r;
	int err;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.m = m;
	r.name = pc_input_name(in);
	pc_spool_init(&r.sp, ctx);
	err = pc_jpull_new(ctx, in, NULL, &r.p);
	if (!err)
		err = read_doc(&r);
	pc_jpull_free(r.p);
	pc_spool_free(&r.sp);
	pc_free(ctx, r.tlocs);
	m->meta.zero_ns = 0;
	return err;
}

/* Format facts, then the model's counts (the file is read whole). */
static int processed_info(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *o)
{
	struct pc_model *m = pc_model_new(ctx);
	uint64_t samples = 0, markers = 0;
	uint32_t i;
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = read_processed(ctx, in, m);
	if (!err) {
		for (i = 0; i < m->nthreads; i++) {
			samples += m->threads[i]->samples.len;
			markers += m->threads[i]->markers.len;
		}
		pc_text_printf(o, "%s: Firefox Profiler processed profile, version %d\n",
			       pc_input_name(in), VERSION);
		if (m->meta.product)
			pc_text_printf(o, "product:     %s\n", m->meta.product);
		pc_text_printf(o, "symbolicated: %s\n", m->meta.symbolicated ? "yes" : "no");
		pc_text_printf(o, "threads:     %u\n", m->nthreads);
		pc_text_printf(o, "samples:     %llu\n", (unsigned long long)samples);
		pc_text_printf(o, "markers:     %llu\n", (unsigned long long)markers);
		pc_text_printf(o, "libs:        %u\n", m->libs.len);
		pc_text_printf(o, "stacks:      %u, frames: %u, funcs: %u, strings: %u\n",
			       m->stacks.len, m->frames.len, m->funcs.len, m->strings.len);
		if (o->err)
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "info: write failed");
	}
	pc_model_free(m);
	return err;
}

const struct pc_reader pc_reader_processed = {
	.name = "processed",
	.summary = "Firefox Profiler processed profile JSON (format version 70)",
	.flags = 0,
	.bid = bid,
	.read = read_processed,
	.info = processed_info,
};
