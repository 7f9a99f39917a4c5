/*
 * read_processed.c - a Firefox Profiler processed profile (format version 70)
 * back into the model, faithfully: every table keeps its row numbers, so our
 * own output read and written again gives the same bytes.
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
 * Dropped, with a counted warning: counters, source-mapped locations
 * (originalLocation, sourceLocationTable), allocation tables; samples'
 * eventDelay/threadCPUDelta (a note).  Versions other than 70 are refused.
 */
#include "core/pc_config.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_jread.h"
#include "readers/pc_reader.h"

#define NULLV	      INT64_MIN	       /* a null in a parsed column */
#define MAX_CAPTURE   ((size_t)64 << 20) /* one meta member, payload or lib */
#define VERSION	      70

#define WARN_COUNTERS "counters dropped"
#define WARN_ORIGLOC  "source-mapped locations dropped"
#define WARN_ALLOC    "allocation tables dropped"
#define WARN_WEIGHT   "non-integer sample weights rounded"
#define WARN_PID      "non-numeric pids or tids replaced by 0"
#define WARN_UTF8     "input strings with invalid UTF-8 replaced"

enum ckind {
	K_INT,	  /* integer or null */
	K_MS,	  /* milliseconds -> ns, or null */
	K_BOOL,	  /* true/false (or 0/1) */
	K_STR,	  /* a string (pooled) or null */
	K_RAW,	  /* any value as raw JSON (pooled), or null */
	K_WEIGHT, /* a number, rounded to an integer */
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
};

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
	uint64_t origloc, weight_rounded, utf8_repaired;
	struct pc_loc loc_meta;
	/* column locations for the final checks */
	struct pc_loc st_frame, fr_func, fr_lib, fr_nsym, fr_cat, fn_name, fn_res, fn_src;
	struct pc_loc rs_name, rs_host, ns_lib, ns_name, sr_file, sr_url;
	struct tloc *tlocs;
	uint32_t tlocs_cap;
};

static const struct colspec stack_cols[] = {
	{ "frame", K_INT },
	{ "prefixOffset", K_INT },
};
enum { ST_FRAME, ST_PREFIX };

static const struct colspec frame_cols[] = {
	{ "address", K_INT },	  { "lib", K_INT },	     { "inlineDepth", K_INT },
	{ "category", K_INT },	  { "subcategory", K_INT },  { "func", K_INT },
	{ "nativeSymbol", K_INT }, { "innerWindowID", K_INT }, { "line", K_INT },
	{ "column", K_INT },	  { "originalLocation", K_INT },
};
enum { FR_ADDRESS, FR_LIB, FR_INLINE, FR_CAT, FR_SUBCAT, FR_FUNC, FR_NSYM, FR_IW, FR_LINE,
       FR_COLUMN, FR_ORIGLOC };

static const struct colspec func_cols[] = {
	{ "name", K_INT },	 { "isJS", K_BOOL },	     { "relevantForJS", K_BOOL },
	{ "resource", K_INT },	 { "source", K_INT },	     { "lineNumber", K_INT },
	{ "columnNumber", K_INT }, { "originalLocation", K_INT },
};
enum { FN_NAME, FN_ISJS, FN_RELJS, FN_RES, FN_SRC, FN_LINE, FN_COLUMN, FN_ORIGLOC };

static const struct colspec resource_cols[] = {
	{ "name", K_INT },
	{ "host", K_INT },
	{ "type", K_INT },
	{ "lib", K_INT }, /* versions before 70 */
};
enum { RS_NAME, RS_HOST, RS_TYPE, RS_LIB };

static const struct colspec nsym_cols[] = {
	{ "libIndex", K_INT },
	{ "address", K_INT },
	{ "name", K_INT },
	{ "functionSize", K_INT },
};
enum { NS_LIB, NS_ADDRESS, NS_NAME, NS_SIZE };

static const struct colspec source_cols[] = {
	{ "id", K_STR },	  { "filename", K_INT },     { "startLine", K_INT },
	{ "startColumn", K_INT }, { "sourceMapURL", K_INT }, { "content", K_STR },
};
enum { SR_ID, SR_FILE, SR_LINE, SR_COLUMN, SR_URL, SR_CONTENT };

static const struct colspec srcloc_cols[] = {
	{ "source", K_INT },
	{ "line", K_INT },
	{ "column", K_INT },
};

static const struct colspec sample_cols[] = {
	{ "stack", K_INT },
	{ "time", K_MS },
	{ "timeDeltas", K_MS },
	{ "weight", K_WEIGHT },
};
enum { SA_STACK, SA_TIME, SA_DELTAS, SA_WEIGHT };

static const struct colspec marker_cols[] = {
	{ "name", K_INT },  { "startTime", K_MS }, { "endTime", K_MS },
	{ "phase", K_INT }, { "category", K_INT }, { "data", K_RAW },
};
enum { MK_NAME, MK_START, MK_END, MK_PHASE, MK_CAT, MK_DATA };

/* --- bidding --- */

static int bid(const unsigned char *peek, size_t len)
{
	if (!pc_jr_peek_is_object(peek, len))
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
	const struct pc_jtok *t;
	char *end;
	int err = pc_jpull_next(r->p, &t);

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
		return fail_tok(r, t, "expected a number or a string for %s, got %s", what,
				pc_jr_type_name(t->type));
	*v = 0;
	return pc_jr_warn(r->ctx, r->p, t, WARN_PID, "%s \"%.40s\" is not an integer; 0 is used",
			  what, t->str);
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
			const char *raw;
			size_t len;
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
				err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
				if (!err)
					err = pc_spool_add(&r->sp, raw, len, &idx);
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
				if (t->is_int) {
					v = t->i;
				} else if (t->d > -9e18 && t->d < 9e18) { /* not NaN either */
					v = (int64_t)(t->d < 0 ? t->d - 0.5 : t->d + 0.5);
					r->weight_rounded++;
				} else {
					goto bad;
				}
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

	for (i = 0; i < tb->ncols; i++)
		pc_free(r->ctx, tb->cols[i].v);
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
		if (i < tb->ncols) {
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
		if (iw < 0) {
			err = fail_loc(r, &tb.cols[FR_IW].loc,
				       "shared.frameTable.innerWindowID[%u] = %lld is negative", i,
				       (long long)iw);
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

/* meta.extra: our own perf.data section comes back into the meta fields. */
static int load_extra(struct rd *r, const char *json, size_t len)
{
	struct pc_meta *mt = &r->m->meta;
	cJSON *root = cJSON_ParseWithLength(json, len), *sec, *e;
	int err = 0;

	if (!root)
		return pc_fail(r->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory (cJSON)");
	cJSON_ArrayForEach(sec, root)
	{
		cJSON *label = cJSON_GetObjectItemCaseSensitive(sec, "label");

		if (!cJSON_IsString(label) || strcmp(label->valuestring, "perf.data") != 0)
			continue;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sec, "entries"))
		{
			cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "label");
			cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "value");
			char **field = NULL;

			if (!cJSON_IsString(l) || !cJSON_IsString(v))
				continue;
			if (strcmp(l->valuestring, "Host") == 0)
				field = &mt->hostname;
			else if (strcmp(l->valuestring, "perf version") == 0)
				field = &mt->perf_version;
			else if (strcmp(l->valuestring, "Command line") == 0)
				field = &mt->command_line;
			else if (strcmp(l->valuestring, "Event") == 0)
				field = &mt->event_name;
			if (field && !err)
				err = pc_meta_set(r->m, field, v->valuestring);
		}
	}
	cJSON_Delete(root);
	return err;
}

static int load_marker_schema(struct rd *r)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "meta.markerSchema", &t);
	while (!err) {
		const char *raw;
		size_t len;

		err = pc_jpull_peek(r->p, &type);
		if (err)
			break;
		if (type == PC_JT_ARR_END)
			return pc_jpull_next(r->p, &t);
		err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
		if (!err)
			err = pc_jr_add_schema(r->m, raw, len, &r->utf8_repaired);
	}
	return err;
}

static int load_meta(struct rd *r)
{
	struct pc_meta *mt = &r->m->meta;
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
		if (err)
			return err;
		if (t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "preprocessedProfileVersion") == 0) {
			err = pc_jpull_next(r->p, &t);
			if (err)
				return err;
			if (t->type != PC_JT_NUMBER || !t->is_int)
				return fail_tok(r, t, "meta.preprocessedProfileVersion: expected an integer");
			if (t->i != VERSION && t->i != VERSION - 1)
				return pc_jr_fail(r->ctx, r->p, t, PROFCONV_ERR_UNSUPPORTED,
						  "processed profile version %lld; only %d and %d are read: load it in profiler.firefox.com and save it again to upgrade",
						  (long long)t->i, VERSION - 1, VERSION);
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
			err = meta_str(r, "meta.oscpu", &mt->os_release);
		} else if (strcmp(t->str, "abi") == 0) {
			err = meta_str(r, "meta.abi", &mt->arch);
		} else if (strcmp(t->str, "CPUName") == 0) {
			err = meta_str(r, "meta.CPUName", &mt->cpu_desc);
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
			err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
			if (!err)
				err = load_extra(r, raw, len);
		} else {
			err = pc_jpull_skip_value(r->p);
		}
		if (err)
			return err;
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
	int err;

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
				r->m->meta.weight_type = types[k];
	}
	tl->stack = tb.cols[SA_STACK].loc;
	for (i = 0; i < n && !err; i++) {
		uint32_t stack = PC_NONE;
		int64_t w = val(&tb, SA_WEIGHT, i, 1);

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
		/* data holds a pooled string until fix_strings() */
		if (!err)
			err = pc_marker_add(r->m, th, name, start == NULLV ? PC_NO_TIME : start,
					    end == NULLV ? PC_NO_TIME : end, (uint8_t)phase,
					    (uint16_t)cat, data == NULLV ? PC_NONE : (uint32_t)data);
	}
	table_free(r, &tb);
	return err;
}

static int load_thread(struct rd *r)
{
	struct pc_model *m = r->m;
	struct pc_thread *th;
	struct tloc *tl;
	const struct pc_jtok *t;
	int64_t v;
	int err, b = 0;

	th = pc_thread_add(m, 0, 0);
	if (!th || pc_grow(r->ctx, (void **)&r->tlocs, sizeof(*r->tlocs), &r->tlocs_cap,
			   m->nthreads))
		return PROFCONV_ERR_NOMEM;
	tl = &r->tlocs[m->nthreads - 1];
	memset(tl, 0, sizeof(*tl));
	/* pooled strings until fix_strings() */
	th->name = PC_NONE;
	th->process_name = PC_NONE;
	for (;;) {
		const char *raw;
		size_t len;

		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "name") == 0) {
			err = pooled_str_or_null(r, "threads[].name", &th->name);
		} else if (strcmp(t->str, "processName") == 0) {
			err = pooled_str_or_null(r, "threads[].processName", &th->process_name);
		} else if (strcmp(t->str, "processType") == 0) {
			err = pc_jr_expect(r->ctx, r->p, PC_JT_STRING, "threads[].processType", &t);
			if (!err && strcmp(t->str, "default") != 0) {
				th->process_type = pc_model_keep(m, t->str, t->len);
				if (!th->process_type)
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
			th->process_startup = v == PC_NO_TIME ? 0 : v;
		} else if (strcmp(t->str, "processShutdownTime") == 0) {
			err = ms_value(r, "threads[].processShutdownTime", &th->process_shutdown);
		} else if (strcmp(t->str, "registerTime") == 0) {
			err = ms_value(r, "threads[].registerTime", &v);
			th->register_time = v == PC_NO_TIME ? 0 : v;
		} else if (strcmp(t->str, "unregisterTime") == 0) {
			err = ms_value(r, "threads[].unregisterTime", &th->unregister_time);
		} else if (strcmp(t->str, "pausedRanges") == 0) {
			err = pc_jpull_capture_value(r->p, &raw, &len, MAX_CAPTURE);
			if (!err && strcmp(raw, "[]") != 0) {
				th->paused_ranges = pc_jr_keep_json(m, raw, len, &r->utf8_repaired);
				if (!th->paused_ranges)
					err = PROFCONV_ERR_NOMEM;
			}
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
			err = pc_jpull_skip_value(r->p);
		}
		if (err)
			return err;
	}
	return 0;
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

/* Count the elements of the array that is next, skipping them. */
static int count_elements(struct rd *r, uint64_t *n, const struct pc_jtok **at)
{
	enum pc_jtype type;
	int err;

	*n = 0;
	err = pc_jpull_next(r->p, at);
	if (err || (*at)->type != PC_JT_ARR_BEGIN)
		return err ? err : ((*at)->type == PC_JT_NULL ? 0 : pc_jpull_skip_rest(r->p));
	for (;;) {
		err = pc_jpull_peek(r->p, &type);
		if (err)
			return err;
		if (type == PC_JT_ARR_END)
			return pc_jpull_next(r->p, at);
		err = pc_jpull_skip_value(r->p);
		if (err)
			return err;
		(*n)++;
	}
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
		if (!err)
			err = intern_pooled(r, &th->process_name, 1);
		for (k = 0; k < th->markers.len && !err; k++) {
			uint32_t *d = &th->markers.data[k];

			if (*d == PC_NONE)
				continue;
			*d = pc_jr_intern_json(m, pc_spool_str(&r->sp, *d), pc_spool_len(&r->sp, *d),
					       &r->utf8_repaired);
			if (*d == PC_NONE)
				err = r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
		}
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

static int warn_counters(struct rd *r, const struct pc_jtok *t, uint64_t n)
{
	struct pc_loc loc;

	pc_jpull_loc(r->p, t, &loc);
	return pc_warn_n(r->ctx, WARN_COUNTERS, n, &loc,
			 "%llu counters are not kept (the model has no counter tracks)",
			 (unsigned long long)n);
}

static int read_doc(struct rd *r)
{
	const struct pc_jtok *t;
	uint64_t n;
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
			err = count_elements(r, &n, &t);
			if (!err)
				err = warn_counters(r, t, n);
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
