/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read_gecko.c - a Gecko profile (the JSON Firefox writes, format versions 20
 * to 36) into the model, converted the way the front-end's
 * processGeckoProfile() does (src/profile-logic/process-profile.ts in
 * firefox-devtools/profiler; firefox-profiler-formats.md sections 5 and 7):
 *
 *   { meta, libs, sources, threads, pausedRanges, processes: [ same shape ],
 *     counters?, pages?, profilerOverhead?, ... }
 *
 * Per thread, Gecko has its own stringTable, frameTable and stackTable, each
 * table as {schema: {column: position}, data: [[row], ...]}.  Those are
 * merged into the model's shared tables:
 *
 *   - strings are re-interned;
 *   - a frame's location string is classified like
 *     extractFuncsAndResourcesFromFrameLocations():
 *       "0x<hex>"                  an address: the lib whose mapping holds it
 *                                  (start <= a < end), the lib-relative
 *                                  address a - (start - offset), one func per
 *                                  location named by it, with the lib's
 *                                  Library resource;
 *       "name (in lib) ..."        a symbolicated native frame (Library
 *                                  resource by name, no address);
 *       "name (url:line:col)[src]" a JS function (isJS, URL resource, source);
 *       anything else              a label frame;
 *   - profconv's own frameTable columns, which profconv's Gecko writer adds
 *     and the front-end ignores (pc_gecko.h, frame_cols; x_columns(),
 *     frame_func()): a "name (in lib)" frame's address (its lib), inline
 *     depth, native symbol and its function's source;
 *   - every lib of `libs` is kept, those no frame uses after the others
 *     (add_unused_libs());
 *   - the return-address nudge of nudgeReturnAddresses() is done while the
 *     stacks are built: a frame with an address used by a stack that is a
 *     prefix (a caller), or by a marker's backtrace, gets address - 1; used
 *     as a sample's leaf it keeps its address.  A frame in both roles becomes
 *     two frames sharing the func, and a stack in both roles two stacks;
 *   - subprocess times are shifted by sub.meta.startTime - meta.startTime,
 *     exactly (gecko_shift_time()); samples, markers and counter samples
 *     whose shifted time leaves int64 ns are dropped with a counted warning.
 *
 * Markers are sorted as _sortMarkers() does, payload stacks become causes
 * (stack indexes remapped), GCSlice/GCMajor/IPC payloads are converted and
 * unique-string fields re-interned as in _processMarkerPayload().  Marker
 * payloads are otherwise kept as raw JSON text.
 *
 * Counters are kept, their times exact (add_counters()), and so are samples'
 * eventDelay and threadCPUDelta (sample_delays()).  Dropped with a counted
 * warning: allocation markers, markers with neither time.
 *
 * Keys may come in any order.  A thread is converted as soon as its object
 * ends if its process's meta, libs and sources (and the top-level meta) are
 * known, as in files Firefox writes; otherwise it waits, buffered, until
 * they are.
 */
#include "readers/pc_gecko.h"

/* --- bidding --- */

static int bid(const unsigned char *peek, size_t len)
{
	/* a Chrome trace's usual first member: no need to look further */
	if (!pc_jr_peek_is_object(peek, len) || pc_jr_peek_first_key(peek, len, "\"traceEvents\"") ||
	    pc_jr_peek_has(peek, len, "\"preprocessedProfileVersion\"") ||
	    pc_jr_peek_has(peek, len, "\"shared\""))
		return 0;
	if (pc_jr_peek_has(peek, len, "\"meta\"") && pc_jr_peek_has(peek, len, "\"threads\""))
		return 24;
	/* Firefox writes libs first: LibMapping entries have start/end/offset */
	if (pc_jr_peek_has(peek, len, "\"libs\"") && pc_jr_peek_has(peek, len, "\"breakpadId\"") &&
	    pc_jr_peek_has(peek, len, "\"offset\""))
		return 24;
	if (pc_jr_peek_has(peek, len, "\"stringTable\"") && pc_jr_peek_has(peek, len, "\"schema\""))
		return 24;
	return 0;
}

/* --- helpers --- */

uint32_t gecko_intern(struct gr *r, const char *s, size_t len)
{
	return pc_str_intern(r->m, s, len);
}

int gecko_nomem(struct gr *r)
{
	return r->ctx->status ? r->ctx->status : PROFCONV_ERR_NOMEM;
}

/* The next value: a string interned into the model (null -> PC_NONE). */
static int str_value(struct gr *r, const char *what, uint32_t *out)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	*out = PC_NONE;
	if (t->type == PC_JT_NULL)
		return 0;
	if (t->type != PC_JT_STRING)
		return fail_tok(r, t, "expected a string for %s, got %s", what,
				pc_jr_type_name(t->type));
	*out = gecko_intern(r, t->str, t->len);
	return *out == PC_NONE ? gecko_nomem(r) : 0;
}

int gecko_meta_str(struct gr *r, const char *what, char **field)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NULL)
		return 0;
	if (t->type != PC_JT_STRING)
		return fail_tok(r, t, "expected a string for %s, got %s", what,
				pc_jr_type_name(t->type));
	return pc_meta_set(r->m, field, t->str);
}

/* A time in ms (null -> PC_NO_TIME). */
int gecko_ms_value(struct gr *r, const char *what, int64_t *ns)
{
	return pc_jr_ms_value(r->ctx, r->p, what, ns);
}

int gecko_int_value(struct gr *r, const char *what, int64_t *v)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type != PC_JT_NUMBER || !t->is_int)
		return fail_tok(r, t, "expected an integer for %s", what);
	*v = t->i;
	return 0;
}

/* A pid or tid: a number or a string of digits. */
static int id_value(struct gr *r, const char *what, int64_t *v)
{
	return pc_jr_id_value(r->ctx, r->p, what, v);
}

/* The next value if it is a scalar (*t), else skipped (*t = NULL). */
int gecko_scalar_value(struct gr *r, const struct pc_jtok **t)
{
	enum pc_jtype type;
	int err = pc_jpull_peek(r->p, &type);

	*t = NULL;
	if (err)
		return err;
	if (type == PC_JT_OBJ_BEGIN || type == PC_JT_ARR_BEGIN)
		return pc_jpull_skip_value(r->p);
	return pc_jpull_next(r->p, t);
}

/* Decimal or 0x-hex digits of an unsigned 64-bit integer (libs' start/end/offset). */
int gecko_parse_u64(const char *s, size_t len, int hex, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (hex && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (hex && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
			return -1;
		v = v * (hex ? 16 : 10) + d;
	}
	*out = v;
	return 0;
}

static int u64_value(struct gr *r, const char *what, uint64_t *v)
{
	const struct pc_jtok *t;
	int err = pc_jpull_next(r->p, &t);

	if (err)
		return err;
	if (t->type == PC_JT_NUMBER && gecko_parse_u64(t->str, t->len, 0, v) == 0)
		return 0;
	if (t->type == PC_JT_NUMBER && !t->is_int && t->d >= 0 && t->d < 1.8e19) {
		*v = (uint64_t)t->d; /* 1e15-style spellings of an address */
		return 0;
	}
	return fail_tok(r, t, "expected a non-negative integer for %s", what);
}

/*
 * A subprocess's time t (ns since its own start) as ns since the parent's:
 * t + (start - parent_start), exactly.  Returns 0, or -1 when that leaves
 * int64 ns (or is PC_NO_TIME), with *out saturated as pc_time_add() would.
 * The difference of the starts may itself leave int64 (starts of opposite
 * signs far apart) while the sum fits; then t + start is formed first: it
 * can overflow only when t pushes the same way as the starts' difference,
 * and so would the sum.
 */
int gecko_shift_time(int64_t t, int64_t start, int64_t parent_start, int64_t *out)
{
	int64_t d, x;
	int bad;

	if (!__builtin_sub_overflow(start, parent_start, &d))
		bad = __builtin_add_overflow(t, d, &x);
	else
		bad = __builtin_add_overflow(t, start, &x) ||
		      __builtin_sub_overflow(x, parent_start, &x);
	if (bad || x == PC_NO_TIME) {
		/* the sum is 2^63 ns or more from 0: rounding cannot change its sign */
		*out = (double)t + (double)start - (double)parent_start > 0 ? INT64_MAX
									     : INT64_MIN + 1;
		return -1;
	}
	*out = x;
	return 0;
}

/* --- tables --- */

static void gtable_init(struct gtable *g, const char *name, const char *const *cols)
{
	unsigned i;

	memset(g, 0, sizeof(*g));
	g->name = name;
	g->cols = cols;
	for (i = 0; i < MAX_COLS; i++)
		g->pos[i] = -1;
}

static void gtable_free(struct profconv_ctx *ctx, struct gtable *g)
{
	pc_free(ctx, g->v);
	pc_free(ctx, g->t);
	pc_free(ctx, g->row);
	g->v = NULL;
	g->t = NULL;
	g->row = NULL;
	g->ncell = g->ccap = g->nrows = g->rcap = 0;
}

static int push_cell(struct gr *r, struct gtable *g, uint8_t type, int64_t v)
{
	if (g->ncell == g->ccap) {
		uint32_t cap = g->ccap;

		if (pc_grow(r->ctx, (void **)&g->v, sizeof(*g->v), &cap, (size_t)g->ncell + 1))
			return PROFCONV_ERR_NOMEM;
		cap = g->ccap;
		if (pc_grow(r->ctx, (void **)&g->t, sizeof(*g->t), &cap, (size_t)g->ncell + 1))
			return PROFCONV_ERR_NOMEM;
		g->ccap = cap;
	}
	g->v[g->ncell] = v;
	g->t[g->ncell] = type;
	g->ncell++;
	return 0;
}

static int read_schema(struct gr *r, struct gtable *g)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, g->name, &t);
	while (!err) {
		unsigned i;
		char key[64];

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		for (i = 0; g->cols[i]; i++)
			if (strcmp(key, g->cols[i]) == 0 ||
			    (g->cols == source_cols && i == SR_ID && strcmp(key, "uuid") == 0))
				break;
		err = pc_jpull_next(r->p, &t);
		if (err)
			break;
		if (t->type != PC_JT_NUMBER || !t->is_int || t->i < 0 || t->i > 255)
			return fail_tok(r, t, "%s.schema.%s: expected a column position (0 to 255)",
					g->name, key);
		if (g->cols[i])
			g->pos[i] = (int)t->i;
	}
	g->have_schema = 1;
	return err;
}

/* data: [[cell, ...], ...]; objects and arrays inside rows are kept as raw JSON. */
static int read_data(struct gr *r, struct gtable *g, struct pc_spool *raw)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, g->name, &t);
	if (err)
		return err;
	pc_jpull_loc(r->p, t, &g->loc);
	g->have_data = 1;
	for (;;) {
		err = pc_jpull_next(r->p, &t);
		if (err)
			return err;
		if (t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_ARR_BEGIN)
			return fail_tok(r, t, "%s.data[%u]: expected an array (a row), got %s",
					g->name, g->nrows, pc_jr_type_name(t->type));
		if (pc_grow(r->ctx, (void **)&g->row, sizeof(*g->row), &g->rcap,
			    (size_t)g->nrows + 2))
			return PROFCONV_ERR_NOMEM;
		g->row[g->nrows++] = g->ncell;
		for (;;) {
			enum pc_jtype type;
			uint32_t idx;
			int64_t v = 0;
			uint8_t ct;

			err = pc_jpull_peek(r->p, &type);
			if (err)
				return err;
			if (type == PC_JT_OBJ_BEGIN || type == PC_JT_ARR_BEGIN) {
				const char *buf;
				size_t len;

				err = pc_jpull_capture_value(r->p, &buf, &len, MAX_CAPTURE);
				if (!err)
					err = pc_spool_add(raw, buf, len, &idx);
				if (!err)
					err = push_cell(r, g, CT_RAW, idx);
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
				ct = CT_NULL;
				break;
			case PC_JT_TRUE:
				ct = CT_TRUE;
				break;
			case PC_JT_FALSE:
				ct = CT_FALSE;
				break;
			case PC_JT_STRING:
				err = pc_spool_add(raw, t->str, t->len, &idx);
				if (err)
					return err;
				ct = CT_STR;
				v = idx;
				break;
			default: /* a number */
				if (t->is_int) {
					ct = CT_INT;
					v = t->i;
				} else if (pc_jr_ms_to_ns(t->str, t->len, &v) == 0) {
					ct = CT_NS;
				} else {
					ct = CT_BADNUM;
				}
				break;
			}
			err = push_cell(r, g, ct, v);
			if (err)
				return err;
		}
	}
	if (pc_grow(r->ctx, (void **)&g->row, sizeof(*g->row), &g->rcap, (size_t)g->nrows + 1))
		return PROFCONV_ERR_NOMEM;
	g->row[g->nrows] = g->ncell;
	return 0;
}

/* A {schema, data} object (the '{' is next). */
static int read_gtable(struct gr *r, struct gtable *g, struct pc_spool *raw)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, g->name, &t);
	if (!err && (g->have_schema || g->have_data))
		err = fail_tok(r, t, "%s appears twice", g->name);
	while (!err) {
		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "schema") == 0)
			err = read_schema(r, g);
		else if (strcmp(t->str, "data") == 0)
			err = read_data(r, g, raw);
		else
			err = pc_jpull_skip_value(r->p);
	}
	if (!err && g->have_data && !g->have_schema)
		err = fail_loc(r, &g->loc, "%s has data but no schema", g->name);
	return err;
}

/* Cell (row, column): JS's `fieldIndex in entry ? entry[fieldIndex] : null`. */
uint8_t gecko_cell(const struct gtable *g, uint32_t row, unsigned col, int64_t *v)
{
	int pos = g->pos[col];
	uint32_t b, e;

	*v = 0;
	if (pos < 0 || row >= g->nrows)
		return CT_ABSENT;
	b = g->row[row];
	e = g->row[row + 1];
	if ((uint32_t)pos >= e - b)
		return CT_ABSENT;
	*v = g->v[b + (uint32_t)pos];
	return g->t[b + (uint32_t)pos];
}

/* An index cell: a non-negative integer, or (nullable) null -> PC_NONE. */
int gecko_cell_index(struct gr *r, const struct gtable *g, uint32_t row, unsigned col,
		     int nullable, uint32_t limit, uint32_t *out)
{
	int64_t v;
	uint8_t t = gecko_cell(g, row, col, &v);

	if ((t == CT_NULL || t == CT_ABSENT) && nullable) {
		*out = PC_NONE;
		return 0;
	}
	if (t == CT_INT && v >= 0 && v < (int64_t)limit) {
		*out = (uint32_t)v;
		return 0;
	}
	if (t == CT_INT)
		return fail_loc(r, &g->loc, "%s.data[%u]: %s %lld is out of range (0 to %u)",
				g->name, row, g->cols[col], (long long)v, limit ? limit - 1 : 0);
	return fail_loc(r, &g->loc, "%s.data[%u]: %s is not an index", g->name, row,
			g->cols[col]);
}

/* A time cell (ms) as ns; null -> PC_NO_TIME. */
int gecko_cell_time(struct gr *r, const struct gtable *g, uint32_t row, unsigned col,
		    int64_t *ns)
{
	int64_t v;
	uint8_t t = gecko_cell(g, row, col, &v);

	switch (t) {
	case CT_NULL:
	case CT_ABSENT:
		*ns = PC_NO_TIME;
		return 0;
	case CT_NS:
		*ns = v;
		return 0;
	case CT_INT:
		if (v <= INT64_MAX / 1000000 && v >= -(INT64_MAX / 1000000)) {
			*ns = v * 1000000;
			return 0;
		}
		break;
	default:
		break;
	}
	return fail_loc(r, &g->loc, "%s.data[%u]: %s is not a time in milliseconds", g->name, row,
			g->cols[col]);
}

/* A small non-negative integer cell (line, column); null or bad -> 0. */
static uint32_t cell_u32(const struct gtable *g, uint32_t row, unsigned col)
{
	int64_t v;

	if (gecko_cell(g, row, col, &v) == CT_INT && v > 0 && v <= (int64_t)UINT32_MAX)
		return (uint32_t)v;
	return 0;
}

/* --- processes --- */

static struct gproc *new_proc(struct gr *r)
{
	struct gproc *pr;

	if (pc_grow(r->ctx, (void **)&r->procs, sizeof(*r->procs), &r->procs_cap,
		    (size_t)r->nprocs + 1))
		return NULL;
	pr = pc_calloc(r->ctx, 1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->shutdown_ns = PC_NO_TIME;
	pr->paused = PC_NONE;
	pr->counters = PC_NONE;
	gtable_init(&pr->sources, "sources", source_cols);
	pc_spool_init(&pr->sources_raw, r->ctx);
	r->procs[r->nprocs++] = pr;
	return pr;
}

static void gthread_free(struct gr *r, struct gthread *gt)
{
	if (!gt)
		return;
	pc_spool_free(&gt->strs);
	pc_spool_free(&gt->raw);
	gtable_free(r->ctx, &gt->frames);
	gtable_free(r->ctx, &gt->stacks);
	gtable_free(r->ctx, &gt->samples);
	gtable_free(r->ctx, &gt->markers);
	pc_free(r->ctx, gt);
}

static void free_proc(struct gr *r, struct gproc *pr)
{
	uint32_t i;

	pc_free(r->ctx, pr->libs);
	gtable_free(r->ctx, &pr->sources);
	pc_spool_free(&pr->sources_raw);
	pc_free(r->ctx, pr->source_rows);
	for (i = 0; i < pr->npending; i++)
		gthread_free(r, pr->pending[i]);
	pc_free(r->ctx, pr->pending);
	pc_free(r->ctx, pr);
}

/* --- libs --- */

static int cmp_lib(const void *a, const void *b)
{
	const struct glib *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* as in the file */
}

static int read_libs(struct gr *r, struct gproc *pr)
{
	static const char *const keys[] = { "name",	  "path",	"debugName", "debugPath",
					    "breakpadId", "codeId",	"arch" };
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "libs", &t);
	if (!err && pr->libs_seen)
		err = fail_tok(r, t, "a process has two \"libs\" members");
	while (!err) {
		struct glib *l;
		uint32_t s[PC_ARRAY_SIZE(keys)];
		struct pc_loc at;
		size_t i;
		int has_start = 0, has_end = 0;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_OBJ_BEGIN)
			return fail_tok(r, t, "libs[%u]: expected an object, got %s", pr->nlibs,
					pc_jr_type_name(t->type));
		pc_jpull_loc(r->p, t, &at);
		if (pc_grow(r->ctx, (void **)&pr->libs, sizeof(*pr->libs), &pr->libs_cap,
			    (size_t)pr->nlibs + 1))
			return PROFCONV_ERR_NOMEM;
		l = &pr->libs[pr->nlibs];
		memset(l, 0, sizeof(*l));
		for (i = 0; i < PC_ARRAY_SIZE(keys); i++)
			s[i] = PC_NONE;
		for (;;) {
			err = pc_jpull_next(r->p, &t);
			if (err || t->type == PC_JT_OBJ_END)
				break;
			for (i = 0; i < PC_ARRAY_SIZE(keys); i++)
				if (strcmp(t->str, keys[i]) == 0)
					break;
			if (i < PC_ARRAY_SIZE(keys)) {
				err = str_value(r, keys[i], &s[i]);
			} else if (strcmp(t->str, "start") == 0) {
				err = u64_value(r, "libs[].start", &l->start);
				has_start = 1;
			} else if (strcmp(t->str, "end") == 0) {
				err = u64_value(r, "libs[].end", &l->end);
				has_end = 1;
			} else if (strcmp(t->str, "offset") == 0) {
				err = u64_value(r, "libs[].offset", &l->offset);
			} else {
				err = pc_jpull_skip_value(r->p);
			}
			if (err)
				return err;
		}
		if (err)
			break;
		if (!has_start || !has_end)
			return fail_loc(r, &at, "libs[%u] has no start or end address", pr->nlibs);
		for (i = 0; i < 5 && !err; i++)
			if (s[i] == PC_NONE && (s[i] = gecko_intern(r, "", 0)) == PC_NONE)
				err = gecko_nomem(r);
		l->name = s[0];
		l->path = s[1];
		l->debug_name = s[2];
		l->debug_path = s[3];
		l->breakpad_id = s[4];
		l->code_id = s[5];
		l->arch = s[6];
		l->global = PC_NONE;
		l->seq = pr->nlibs;
		pr->nlibs++;
	}
	if (err)
		return err;
	/* AddressLocator needs them sorted by start (Firefox writes them sorted) */
	if (pr->nlibs > 1)
		qsort(pr->libs, pr->nlibs, sizeof(*pr->libs), cmp_lib);
	pr->libs_seen = 1;
	return 0;
}

/* The process lib holding address a (binary search like AddressLocator), or NULL. */
struct glib *gecko_locate(struct gproc *pr, uint64_t a)
{
	uint32_t lo = 0, hi = pr->nlibs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a >= pr->libs[mid].end)
			lo = mid + 1;
		else if (a < pr->libs[mid].start)
			hi = mid;
		else
			return &pr->libs[mid];
	}
	return NULL;
}

/* The Library resource for a lib name (indexForLibResourceByName). */
uint32_t gecko_lib_resource(struct gr *r, uint32_t name)
{
	return pc_resource_intern(r->m, name, PC_NONE, PC_RES_LIBRARY, PC_NONE);
}

/* The model lib of a process lib (indexForLib: one per debugName/breakpadId). */
uint32_t gecko_global_lib(struct gr *r, struct glib *l)
{
	struct pc_model *m = r->m;
	char key[1024];
	size_t n;
	uint32_t g;
	struct pc_lib lib;

	if (l->global != PC_NONE)
		return l->global;
	n = pc_snprintf(key, sizeof(key), "%s/%s", pc_str(m, l->debug_name),
			pc_str(m, l->breakpad_id));
	g = pc_smap_get(&r->lib_keys, key, n);
	if (g == PC_NONE) {
		const char *name = pc_str(m, l->name);

		memset(&lib, 0, sizeof(lib));
		lib.name = l->name;
		lib.path = l->path;
		lib.debug_name = l->debug_name;
		lib.debug_path = l->debug_path;
		lib.breakpad_id = l->breakpad_id;
		lib.code_id = l->code_id;
		lib.arch = l->arch;
		lib.resource = gecko_lib_resource(r, l->name);
		lib.is_kernel = strncmp(name, "[kernel", 7) == 0;
		if (lib.resource == PC_NONE)
			return PC_NONE;
		g = pc_lib_add(m, &lib);
		if (g == PC_NONE || pc_smap_put(&r->lib_keys, key, n, g))
			return PC_NONE;
	}
	l->global = g;
	return g;
}

/* --- sources --- */

/* indexForSource(id, filename, startLine, startColumn, sourceMapURL). */
uint32_t gecko_source_row(struct gr *r, uint32_t id, uint32_t filename, uint32_t line,
			  uint32_t column, uint32_t url)
{
	struct pc_model *m = r->m;
	struct pc_source_row row;
	uint32_t s;

	if (id != PC_NONE)
		s = pc_smap_get(&r->src_ids, m->strings.ptr[id], m->strings.lens[id]);
	else
		s = pc_smap_get(&r->src_files, m->strings.ptr[filename], m->strings.lens[filename]);
	if (s != PC_NONE)
		return s;
	row.filename = filename;
	row.id = id;
	row.start_line = line;
	row.start_column = column;
	row.source_map_url = url;
	row.content = PC_NONE;
	s = pc_source_append(m, &row);
	if (s == PC_NONE)
		return PC_NONE;
	if (id != PC_NONE) {
		if (pc_smap_put(&r->src_ids, m->strings.ptr[id], m->strings.lens[id], s))
			return PC_NONE;
	} else if (pc_smap_put(&r->src_files, m->strings.ptr[filename], m->strings.lens[filename],
			       s)) {
		return PC_NONE;
	}
	return s;
}

/* A string cell of the process sources table, interned (PC_NONE if not a string). */
static uint32_t source_str(struct gr *r, struct gproc *pr, uint32_t row, unsigned col)
{
	int64_t v;

	if (gecko_cell(&pr->sources, row, col, &v) != CT_STR)
		return PC_NONE;
	return gecko_intern(r, pc_spool_str(&pr->sources_raw, (uint32_t)v),
		      pc_spool_len(&pr->sources_raw, (uint32_t)v));
}

/* The model source of the process's source idx, or PC_NONE when there is none. */
int gecko_process_source(struct gr *r, struct gproc *pr, uint32_t idx, uint32_t *out)
{
	uint32_t id, file, url, line, column;

	*out = PC_NONE;
	if (idx >= pr->sources.nrows)
		return 0;
	if (!pr->source_rows) {
		uint32_t i;

		pr->source_rows = pc_alloc(r->ctx, (size_t)pr->sources.nrows * sizeof(uint32_t));
		if (!pr->source_rows)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < pr->sources.nrows; i++)
			pr->source_rows[i] = PC_NONE;
	}
	if (pr->source_rows[idx] != PC_NONE) {
		*out = pr->source_rows[idx];
		return 0;
	}
	file = source_str(r, pr, idx, SR_FILE);
	if (file == PC_NONE)
		return 0; /* no filename: treated like an unknown source */
	id = source_str(r, pr, idx, SR_ID);
	url = source_str(r, pr, idx, SR_URL);
	line = cell_u32(&pr->sources, idx, SR_LINE);
	column = cell_u32(&pr->sources, idx, SR_COLUMN);
	*out = gecko_source_row(r, id, file, line ? line : 1, column ? column : 1, url);
	if (*out == PC_NONE)
		return gecko_nomem(r);
	pr->source_rows[idx] = *out;
	return 0;
}

/* --- threads --- */

uint32_t gecko_model_str(struct conv *c, uint32_t i)
{
	if (c->mstr[i] == PC_NONE)
		c->mstr[i] = gecko_intern(c->r, pc_spool_str(&c->gt->strs, i),
				    pc_spool_len(&c->gt->strs, i));
	return c->mstr[i];
}

/*
 * A "0x..." string cell of frame f's column col, as a number; 0 when the cell
 * is absent or null, -1 (counted) when it is something else.
 */
static int hex_cell_q(struct conv *c, uint32_t f, unsigned col, uint64_t *a, int count)
{
	const struct gtable *g = &c->gt->frames;
	const char *s;
	size_t n;
	int64_t v;
	uint8_t t = gecko_cell(g, f, col, &v);

	if (t == CT_ABSENT || t == CT_NULL)
		return 0;
	if (t == CT_STR) {
		s = pc_spool_str(&c->gt->raw, (uint32_t)v);
		n = pc_spool_len(&c->gt->raw, (uint32_t)v);
		if (n > 2 && s[0] == '0' && s[1] == 'x' && gecko_parse_u64(s + 2, n - 2, 1, a) == 0)
			return 1;
	}
	if (count)
		c->r->bad_xcols++;
	return -1;
}

static int hex_cell(struct conv *c, uint32_t f, unsigned col, uint64_t *a)
{
	return hex_cell_q(c, f, col, a, 1);
}

/* The lib that was libs[i] in the file (they are sorted by start, then i). */
static struct glib *lib_at(struct gproc *pr, uint32_t i)
{
	uint32_t k;

	if (pr->libs[i].seq == i)
		return &pr->libs[i];
	for (k = 0; k < pr->nlibs; k++)
		if (pr->libs[k].seq == i)
			return &pr->libs[k];
	return NULL;
}

/*
 * The lib of absolute address a in frame f's "address" column: the
 * file's libs[lib] when the "lib" column names one, else the lib whose
 * range holds a (NULL: none).
 */
static struct glib *column_lib(struct conv *c, uint32_t f, uint64_t a)
{
	int64_t v;
	uint8_t t = gecko_cell(&c->gt->frames, f, FC_LIB, &v);

	if (t == CT_INT)
		return v >= 0 && v < c->pr->nlibs ? lib_at(c->pr, (uint32_t)v) : NULL;
	if (t == CT_ABSENT || t == CT_NULL)
		return gecko_locate(c->pr, a);
	return NULL;
}

/*
 * profconv's own frame columns (pc_gecko.h, frame_cols): the address of a
 * frame whose location does not give one (a "name (in lib)" frame), its
 * inline depth and native symbol, into k.
 */
static int x_columns(struct conv *c, uint32_t f, int caller, struct pc_frame_key *k)
{
	struct gr *r = c->r;
	const struct gtable *g = &c->gt->frames;
	struct glib *l;
	uint64_t a, sa;
	int64_t v;
	uint8_t t;
	uint32_t name;

	t = gecko_cell(g, f, FC_INLINE, &v);
	if (t == CT_INT && v >= 0 && v <= UINT16_MAX)
		k->inline_depth = (uint16_t)v;
	else if (t != CT_ABSENT && t != CT_NULL)
		r->bad_xcols++;
	if (hex_cell(c, f, FC_ADDRESS, &a) <= 0)
		return 0;
	l = column_lib(c, f, a);
	if (k->lib != PC_NONE || !l) {
		r->bad_xcols++; /* an address location already, or in no lib */
		return 0;
	}
	k->lib = gecko_global_lib(r, l);
	if (k->lib == PC_NONE)
		return gecko_nomem(r);
	/* nudged as a "0x..." location is (frame_for()) */
	k->address = a - (l->start - l->offset) - (caller ? 1 : 0);
	t = gecko_cell(g, f, FC_NSYM, &v);
	if (t == CT_ABSENT || t == CT_NULL)
		return 0;
	if (t != CT_INT || v < 0 || v >= c->nstr || hex_cell(c, f, FC_NSYM_ADDR, &sa) <= 0) {
		r->bad_xcols++;
		return 0;
	}
	name = gecko_model_str(c, (uint32_t)v);
	if (name == PC_NONE)
		return gecko_nomem(r);
	k->native_symbol = pc_native_symbol_intern(r->m, k->lib, sa - (l->start - l->offset), name,
						   cell_u32(g, f, FC_NSYM_SIZE));
	return k->native_symbol == PC_NONE ? gecko_nomem(r) : 0;
}

/* The model frame for Gecko frame f as a leaf (caller = 0) or as a caller (nudged). */
static uint32_t frame_for(struct conv *c, uint32_t f, int caller)
{
	struct gr *r = c->r;
	const struct gtable *g = &c->gt->frames;
	uint32_t *memo = caller ? c->ra : c->ip;
	const struct floc *l = &c->locs[c->ffunc[f]];
	struct pc_frame_key k;
	int64_t v;
	uint8_t t;

	if (memo[f] != PC_NONE)
		return memo[f];
	memset(&k, 0, sizeof(k));
	k.address = l->addr;
	if (caller && l->addr != PC_NO_ADDRESS)
		k.address = l->addr - 1;
	k.lib = l->lib;
	k.func = c->ffn[f];
	k.native_symbol = PC_NONE;
	k.line = cell_u32(g, f, FC_LINE);
	k.column = cell_u32(g, f, FC_COLUMN);
	k.category = PC_NO_CATEGORY;
	t = gecko_cell(g, f, FC_CAT, &v);
	if (t == CT_INT && v >= 0 && v < r->m->ncategories) {
		k.category = (uint16_t)v;
		t = gecko_cell(g, f, FC_SUBCAT, &v);
		if (t == CT_INT && v >= 0 && v < r->m->categories[k.category].nsub)
			k.subcategory = (uint16_t)v;
		else if (t != CT_NULL && t != CT_ABSENT)
			r->bad_categories++;
	} else if (t != CT_NULL && t != CT_ABSENT) {
		r->bad_categories++;
	}
	if (x_columns(c, f, caller, &k))
		return PC_NONE;
	t = gecko_cell(g, f, FC_IW, &v);
	/* past 2^53 - 1 no window has it (PC_MAX_WINDOW_ID): none, as for a non-integer */
	memo[f] = pc_frame_intern_iw(r->m, &k,
				     t == CT_INT && v > 0 && (uint64_t)v <= PC_MAX_WINDOW_ID ? (uint64_t)v
											 : 0);
	return memo[f];
}

/* The model stack for Gecko stack s used by a sample (leaf) or as a caller. */
uint32_t gecko_stack_for(struct conv *c, uint32_t s, int caller)
{
	uint32_t *memo = caller ? c->caller : c->leaf, pre = PC_NONE, f;

	if (memo[s] != PC_NONE)
		return memo[s];
	if (c->prefix[s] != PC_NONE) {
		pre = gecko_stack_for(c, c->prefix[s], 1); /* computed already: prefixes come first */
		if (pre == PC_NONE)
			return PC_NONE;
	}
	f = frame_for(c, c->frame[s], caller);
	if (f == PC_NONE)
		return PC_NONE;
	memo[s] = pc_stack_intern(c->r->m, pre, f);
	return memo[s];
}

static void conv_free(struct conv *c)
{
	struct profconv_ctx *ctx = c->r->ctx;

	pc_free(ctx, c->mstr);
	pc_free(ctx, c->locs);
	pc_free(ctx, c->ffunc);
	pc_free(ctx, c->ffn);
	pc_free(ctx, c->ip);
	pc_free(ctx, c->ra);
	pc_free(ctx, c->prefix);
	pc_free(ctx, c->frame);
	pc_free(ctx, c->leaf);
	pc_free(ctx, c->caller);
}

static uint32_t *alloc_none(struct profconv_ctx *ctx, uint32_t n)
{
	uint32_t *a = pc_alloc(ctx, ((size_t)n + 1) * sizeof(*a)), i;

	if (a)
		for (i = 0; i < n; i++)
			a[i] = PC_NONE;
	return a;
}

/*
 * The func of Gecko frame f with location l: the location's, or, when
 * profconv's "source" column gives a native function's source file, the
 * same function with that source (pc_gecko.h, frame_cols).
 */
static int frame_func(struct conv *c, uint32_t f, struct floc *l)
{
	struct gr *r = c->r;
	struct pc_func_key k = l->key;
	int64_t v;
	uint8_t t = gecko_cell(&c->gt->frames, f, FC_SOURCE, &v);
	uint64_t a;
	struct glib *gl;
	int changed = 0;

	/*
	 * "0x2a4 (in lib)", an unsymbolicated frame of a lib no process maps,
	 * with its lib in the "lib" column: named 0x2a4 with the lib's
	 * resource, as it was written (the front-end names it by the whole
	 * text, with no resource).
	 */
	if (l->lib == PC_NONE && k.resource == PC_NONE && !k.is_js &&
	    hex_cell_q(c, f, FC_ADDRESS, &a, 0) > 0 && (gl = column_lib(c, f, a)) != NULL) {
		const char *s = pc_str(r->m, k.name);
		size_t n = r->m->strings.lens[k.name], i = 2;

		while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			i++;
		if (n > 2 && s[0] == '0' && s[1] == 'x' && i > 2 && n - i > 5 &&
		    memcmp(s + i, " (in ", 5) == 0) {
			uint32_t lib = gecko_global_lib(r, gl);

			if (lib == PC_NONE || (k.name = gecko_intern(r, s, i)) == PC_NONE)
				return gecko_nomem(r);
			k.resource = r->m->libs.rows[lib].resource;
			changed = 1;
		}
	}
	if (t == CT_INT && v >= 0 && v < UINT32_MAX && !k.is_js) {
		int err = gecko_process_source(r, c->pr, (uint32_t)v, &k.source);

		if (err)
			return err;
		if (k.source != PC_NONE)
			changed = 1;
		else
			r->bad_xcols++;
	} else if (t != CT_ABSENT && t != CT_NULL) {
		r->bad_xcols++;
	}
	if (changed) {
		c->ffn[f] = pc_func_intern(r->m, &k);
		return c->ffn[f] == PC_NONE ? gecko_nomem(r) : 0;
	}
	if (l->func == PC_NONE) {
		l->func = pc_func_intern(r->m, &l->key);
		if (l->func == PC_NONE)
			return gecko_nomem(r);
	}
	c->ffn[f] = l->func;
	return 0;
}

static int conv_frames_stacks(struct conv *c)
{
	struct gr *r = c->r;
	struct gthread *gt = c->gt;
	uint32_t i;
	int err = 0;

	c->mstr = alloc_none(r->ctx, c->nstr);
	c->locs = pc_calloc(r->ctx, (size_t)c->nstr + 1, sizeof(*c->locs));
	c->ffunc = alloc_none(r->ctx, c->nf);
	c->ffn = alloc_none(r->ctx, c->nf);
	c->ip = alloc_none(r->ctx, c->nf);
	c->ra = alloc_none(r->ctx, c->nf);
	c->prefix = alloc_none(r->ctx, c->ns);
	c->frame = alloc_none(r->ctx, c->ns);
	c->leaf = alloc_none(r->ctx, c->ns);
	c->caller = alloc_none(r->ctx, c->ns);
	if (!c->mstr || !c->locs || !c->ffunc || !c->ffn || !c->ip || !c->ra || !c->prefix || !c->frame ||
	    !c->leaf || !c->caller)
		return PROFCONV_ERR_NOMEM;
	/* funcs for every frame's location, as extractFuncsAndResources... does */
	for (i = 0; i < c->nf && !err; i++) {
		uint32_t li;
		int64_t v;
		uint8_t t;

		err = gecko_cell_index(r, &gt->frames, i, FC_LOCATION, 0, c->nstr, &li);
		if (err)
			break;
		c->ffunc[i] = li;
		if (!c->locs[li].done) {
			t = gecko_cell(&gt->frames, i, FC_RELJS, &v);
			err = gecko_extract(r, c->pr, gt, li, t == CT_TRUE || (t == CT_INT && v),
					    &c->locs[li]);
		}
		if (!err)
			err = frame_func(c, i, &c->locs[li]);
	}
	for (i = 0; i < c->ns && !err; i++) {
		int64_t v;

		if (gecko_cell(&gt->stacks, i, SC_PREFIX, &v) == CT_INT && v >= i)
			return fail_loc(r, &gt->stacks.loc,
					"stackTable.data[%u]: prefix %lld is not before the stack", i,
					(long long)v);
		err = gecko_cell_index(r, &gt->stacks, i, SC_PREFIX, 1, i, &c->prefix[i]);
		if (!err)
			err = gecko_cell_index(r, &gt->stacks, i, SC_FRAME, 0, c->nf, &c->frame[i]);
	}
	/* callers first, in order, so that every prefix exists before its stacks */
	for (i = 0; i < c->ns && !err; i++)
		if (c->prefix[i] != PC_NONE && c->caller[c->prefix[i]] == PC_NONE &&
		    gecko_stack_for(c, c->prefix[i], 1) == PC_NONE)
			err = gecko_nomem(r);
	return err;
}

/*
 * A sample's eventDelay (ms, as ns) and threadCPUDelta (an integer in
 * meta.sampleUnits.threadCPUDelta units), kept as processGeckoProfile()
 * keeps them (_processSamples()): eventDelay whenever the schema names it,
 * nulls included; threadCPUDelta only if some sample of the thread has one
 * (the column is made at the first value).  Neither is shifted with a
 * subprocess's times: they are durations.  A value that is not a number,
 * or not one the model's column can hold (a fraction of a CPU delta,
 * 1e300 ms), becomes null and is counted.
 */
static int sample_delays(struct conv *c, const struct gtable *g, uint32_t i, struct pc_thread *th)
{
	struct gr *r = c->r;
	int64_t v;
	uint8_t t;

	if (g->pos[SA_DELAY] >= 0) {
		int64_t ns = PC_NO_TIME;
		int err;

		t = gecko_cell(g, i, SA_DELAY, &v);
		if (t == CT_NS)
			ns = v;
		else if (t == CT_INT && v <= INT64_MAX / 1000000 && v >= -(INT64_MAX / 1000000))
			ns = v * 1000000;
		else if (t != CT_NULL && t != CT_ABSENT)
			r->bad_delays++;
		err = pc_sample_set_event_delay(r->m, th, ns);
		if (err)
			return err;
	}
	t = gecko_cell(g, i, SA_CPU, &v);
	if (t == CT_INT && v != INT64_MIN)
		return pc_sample_set_cpu_delta(r->m, th, v);
	if (t != CT_NULL && t != CT_ABSENT)
		r->bad_delays++;
	return 0;
}

static int conv_samples(struct conv *c)
{
	struct gr *r = c->r;
	const struct gtable *g = &c->gt->samples;
	struct pc_thread *th = r->m->threads[c->gt->mt];
	uint32_t i;
	int err = 0;

	for (i = 0; i < g->nrows && !err; i++) {
		uint32_t s, stack = PC_NONE;
		int64_t time = PC_NO_TIME, w = 1, v;

		err = gecko_cell_index(r, g, i, SA_STACK, 1, c->ns, &s);
		if (!err)
			err = gecko_cell_time(r, g, i, SA_TIME, &time);
		if (err)
			break;
		if (time == PC_NO_TIME)
			return fail_loc(r, &g->loc, "samples.data[%u] has no time", i);
		if (s != PC_NONE) {
			stack = gecko_stack_for(c, s, 0);
			if (stack == PC_NONE)
				return gecko_nomem(r);
		}
		if (gecko_cell(g, i, SA_WEIGHT, &v) == CT_INT)
			w = v;
		if (gecko_shift_time(time, c->pr->start_ns, r->procs[0]->start_ns, &time)) {
			r->shifted_out++;
			continue;
		}
		err = pc_sample_add(r->m, th, stack, time, w);
		if (!err)
			err = sample_delays(c, g, i, th);
	}
	return err;
}

/* Convert a buffered thread into its model thread, then free the buffer. */
static int add_mappings(struct gr *r, const struct gproc *pr, uint32_t proc);

static int convert_thread(struct gr *r, struct gproc *pr, struct gthread *gt)
{
	struct pc_thread *th = r->m->threads[gt->mt];
	struct conv c;
	int err;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.pr = pr;
	c.gt = gt;
	c.nstr = gt->strs.n;
	c.nf = gt->frames.nrows;
	c.ns = gt->stacks.nrows;
	/*
	 * The thread's and process's own times saturate where the shift takes
	 * them out of int64 ns (they have no row to drop); samples and markers
	 * that leave it are dropped (conv_samples(), gecko_conv_markers()).
	 */
	gecko_shift_time(gt->register_ns, pr->start_ns, r->procs[0]->start_ns,
			 &th->register_time);
	th->unregister_time = PC_NO_TIME;
	if (gt->unregister_ns != PC_NO_TIME)
		gecko_shift_time(gt->unregister_ns, pr->start_ns, r->procs[0]->start_ns,
				 &th->unregister_time);
	{
		struct pc_process *mp = &r->m->processes.rows[th->process];

		if (mp->start == PC_NO_TIME)
			gecko_shift_time(0, pr->start_ns, r->procs[0]->start_ns, &mp->start);
		if (mp->end == PC_NO_TIME && pr->shutdown_ns != PC_NO_TIME)
			gecko_shift_time(pr->shutdown_ns, pr->start_ns, r->procs[0]->start_ns,
					 &mp->end);
	}
	err = conv_frames_stacks(&c);
	if (!err)
		err = add_mappings(r, pr, th->process);
	if (!err)
		err = conv_samples(&c);
	if (!err)
		err = gecko_conv_markers(&c);
	conv_free(&c);
	gthread_free(r, gt);
	return err;
}

/*
 * The process's mappings of the libs its frames used (the model's libs are
 * those frames need; each gets the addresses its process mapped it at).
 */
static int add_mappings(struct gr *r, const struct gproc *pr, uint32_t proc)
{
	const struct pc_process *mp = &r->m->processes.rows[proc];
	uint32_t i, k;

	for (i = 0; i < pr->nlibs; i++) {
		const struct glib *l = &pr->libs[i];

		if (l->global == PC_NONE)
			continue;
		for (k = 0; k < mp->nmaps; k++)
			if (mp->maps[k].lib == l->global && mp->maps[k].start == l->start)
				break;
		if (k < mp->nmaps)
			continue;
		if (pc_process_add_mapping(r->m, proc, l->global, l->start, l->end, l->offset))
			return PROFCONV_ERR_NOMEM;
		mp = &r->m->processes.rows[proc];
	}
	return 0;
}

static int ready(struct gr *r, const struct gproc *pr)
{
	return pr->has_meta && pr->libs_seen && pr->sources_seen && r->procs[0]->has_meta;
}

static int read_string_table(struct gr *r, struct gthread *gt)
{
	const struct pc_jtok *t;
	uint32_t idx;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "stringTable", &t);
	if (!err && gt->strs.n)
		err = fail_tok(r, t, "a thread has two \"stringTable\" members");
	while (!err) {
		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_STRING)
			return fail_tok(r, t, "stringTable[%u]: expected a string, got %s",
					gt->strs.n, pc_jr_type_name(t->type));
		err = pc_spool_add(&gt->strs, t->str, t->len, &idx);
	}
	return err;
}

static int read_thread(struct gr *r, uint32_t pi)
{
	const char *pname = NULL, *ptype = NULL;
	struct pc_model *m = r->m;
	struct gproc *pr = r->procs[pi];
	struct gthread *gt;
	struct pc_thread *th;
	const struct pc_jtok *t;
	int err = 0;

	gt = pc_calloc(r->ctx, 1, sizeof(*gt));
	if (!gt)
		return PROFCONV_ERR_NOMEM;
	pc_spool_init(&gt->strs, r->ctx);
	pc_spool_init(&gt->raw, r->ctx);
	gtable_init(&gt->frames, "frameTable", frame_cols);
	gtable_init(&gt->stacks, "stackTable", stack_cols);
	gtable_init(&gt->samples, "samples", sample_cols);
	gtable_init(&gt->markers, "markers", marker_cols);
	gt->proc = pi;
	gt->seq = pr->nthreads++;
	gt->unregister_ns = PC_NO_TIME;
	th = pc_thread_add(m, PC_NO_PID, 0); /* its ids come with its members */
	if (!th || pc_grow(r->ctx, (void **)&r->tproc, sizeof(*r->tproc), &r->tcap, m->nthreads)) {
		gthread_free(r, gt);
		return PROFCONV_ERR_NOMEM;
	}
	gt->mt = m->nthreads - 1;
	r->tproc[gt->mt] = pi;
	th->name = PC_NONE;
	th->pid = 0;
	for (;;) {
		int64_t v;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "name") == 0) {
			err = str_value(r, "threads[].name", &th->name);
		} else if (strcmp(t->str, "processName") == 0) {
			err = gecko_scalar_value(r, &t);
			if (!err && t && t->type == PC_JT_STRING) {
				pname = pc_model_keep(m, t->str, t->len);
				if (!pname)
					err = PROFCONV_ERR_NOMEM;
			}
		} else if (strcmp(t->str, "processType") == 0) {
			err = gecko_scalar_value(r, &t);
			if (!err && t && t->type == PC_JT_STRING && strcmp(t->str, "default") != 0) {
				ptype = pc_model_keep(m, t->str, t->len);
				if (!ptype)
					err = PROFCONV_ERR_NOMEM;
			}
		} else if (strcmp(t->str, "tid") == 0) {
			err = id_value(r, "threads[].tid", &th->tid);
		} else if (strcmp(t->str, "pid") == 0) {
			err = id_value(r, "threads[].pid", &th->pid);
		} else if (strcmp(t->str, "registerTime") == 0) {
			err = gecko_ms_value(r, "threads[].registerTime", &v);
			gt->register_ns = v == PC_NO_TIME ? 0 : v;
		} else if (strcmp(t->str, "unregisterTime") == 0) {
			err = gecko_ms_value(r, "threads[].unregisterTime", &gt->unregister_ns);
		} else if (strcmp(t->str, "stringTable") == 0) {
			err = read_string_table(r, gt);
		} else if (strcmp(t->str, "frameTable") == 0) {
			err = read_gtable(r, &gt->frames, &gt->raw);
		} else if (strcmp(t->str, "stackTable") == 0) {
			err = read_gtable(r, &gt->stacks, &gt->raw);
		} else if (strcmp(t->str, "samples") == 0) {
			err = read_gtable(r, &gt->samples, &gt->raw);
		} else if (strcmp(t->str, "markers") == 0) {
			err = read_gtable(r, &gt->markers, &gt->raw);
		} else {
			err = pc_jpull_skip_value(r->p);
		}
		if (err)
			break;
	}
	if (!err && th->name == PC_NONE)
		th->name = gecko_intern(r, "", 0);
	if (!err && th->name == PC_NONE)
		err = gecko_nomem(r);
	/* the thread joins its process; the first thread that names it, or
	 * gives its type, sets it (processName: '' when absent) */
	if (!err)
		err = pc_thread_set_ids(m, th, th->pid, th->tid);
	if (!err) {
		struct pc_process *mp = &m->processes.rows[th->process];

		if (!mp->name && pname)
			mp->name = pname;
		if (ptype && strcmp(mp->type, "default") == 0)
			mp->type = ptype;
	}
	if (err) {
		gthread_free(r, gt);
		return err;
	}
	/* isMainThread: the front-end gives it to GeckoMain threads only */
	th->is_main = strcmp(pc_str(m, th->name), "GeckoMain") == 0;
	if (th->is_main) {
		struct pc_process *mp = &m->processes.rows[th->process];

		if (mp->main_thread == PC_NONE || !m->threads[mp->main_thread]->is_main)
			mp->main_thread = m->nthreads - 1;
	}
	if (ready(r, pr))
		return convert_thread(r, pr, gt);
	if (pc_grow(r->ctx, (void **)&pr->pending, sizeof(*pr->pending), &pr->pending_cap,
		    (size_t)pr->npending + 1)) {
		gthread_free(r, gt);
		return PROFCONV_ERR_NOMEM;
	}
	pr->pending[pr->npending++] = gt;
	return 0;
}

/* Convert the threads that waited for their process (or the top-level meta). */
static int finish_proc(struct gr *r, uint32_t pi)
{
	struct gproc *pr = r->procs[pi];
	uint32_t i;
	int err = 0;

	if (!r->procs[0]->has_meta)
		return 0; /* waits for the top-level meta */
	if (!pr->has_meta)
		return fail_loc(r, &pr->loc, "processes[%u] has no meta", pi - 1);
	pr->libs_seen = 1; /* absent: none */
	pr->sources_seen = 1;
	for (i = 0; i < pr->npending; i++) {
		struct gthread *gt = pr->pending[i];

		pr->pending[i] = NULL;
		if (!err)
			err = convert_thread(r, pr, gt);
		else
			gthread_free(r, gt);
	}
	pr->npending = 0;
	return err;
}

static int read_process(struct gr *r, uint32_t pi);

static int read_processes(struct gr *r)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "processes", &t);
	while (!err) {
		struct gproc *pr;

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_ARR_END)
			break;
		if (t->type != PC_JT_OBJ_BEGIN)
			return fail_tok(r, t, "processes[%u]: expected an object, got %s",
					r->nprocs - 1, pc_jr_type_name(t->type));
		pr = new_proc(r);
		if (!pr)
			return PROFCONV_ERR_NOMEM;
		pc_jpull_loc(r->p, t, &pr->loc);
		err = read_process(r, r->nprocs - 1);
		if (!err)
			err = finish_proc(r, r->nprocs - 1);
	}
	return err;
}

/* The members of a process object (the top level or a processes[] entry). */
static int read_process(struct gr *r, uint32_t pi)
{
	const struct pc_jtok *t;
	int err;

	for (;;) {
		struct gproc *pr = r->procs[pi];

		err = pc_jpull_next(r->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		if (strcmp(t->str, "meta") == 0) {
			err = gecko_read_meta(r, pr, pi == 0);
		} else if (strcmp(t->str, "libs") == 0) {
			err = read_libs(r, pr);
		} else if (strcmp(t->str, "sources") == 0) {
			err = read_gtable(r, &pr->sources, &pr->sources_raw);
			pr->sources_seen = 1;
		} else if (strcmp(t->str, "threads") == 0) {
			err = pc_jr_expect(r->ctx, r->p, PC_JT_ARR_BEGIN, "threads", &t);
			while (!err) {
				err = pc_jpull_next(r->p, &t);
				if (err || t->type == PC_JT_ARR_END)
					break;
				if (t->type != PC_JT_OBJ_BEGIN)
					return fail_tok(r, t, "threads[]: expected an object, got %s",
							pc_jr_type_name(t->type));
				err = read_thread(r, pi);
			}
		} else if (strcmp(t->str, "pausedRanges") == 0) {
			struct pc_loc loc;

			pc_jpull_loc(r->p, t, &loc);
			err = pc_jr_pv_read(r->ctx, r->p, r->m, 1, &pr->paused);
			if (!err && pc_pv(r->m, pr->paused)->kind != PC_VAL_ARR &&
			    pc_pv(r->m, pr->paused)->kind != PC_VAL_NULL) {
				pr->paused = PC_NONE;
				err = pc_warn(r->ctx, WARN_PAUSED, &loc,
					      "pausedRanges is not an array; ignored");
			}
		} else if (strcmp(t->str, "processes") == 0 && pi == 0) {
			err = read_processes(r);
		} else if (strcmp(t->str, "counters") == 0) {
			pc_jpull_loc(r->p, t, &pr->counters_loc);
			err = pc_jr_pv_read(r->ctx, r->p, r->m, 1, &pr->counters);
		} else if (strcmp(t->str, "pages") == 0 && pi == 0) {
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
		} else if (strcmp(t->str, "processes") == 0) {
			err = pc_jpull_skip_value(r->p); /* a subprocess's own: none in practice */
		} else {
			if (pc_smap_get(&r->noted, t->str, t->len) == PC_NONE) {
				pc_note(r->ctx, "%s: the member \"%s\" is not kept", r->name,
					t->str);
				err = pc_smap_put(&r->noted, t->str, t->len, 1);
			}
			if (!err)
				err = pc_jpull_skip_value(r->p);
		}
		if (err)
			break;
	}
	return err;
}

/* Threads in the front-end's order: the parent process's, then each subprocess's. */
/* The process's paused ranges, for each of its threads. */
static int add_paused(struct gr *r, const struct gproc *pr, struct pc_thread *th)
{
	struct pc_model *m = r->m;
	uint32_t i, e;
	int err = 0;

	if (pr->paused == PC_NONE || pc_pv(m, pr->paused)->kind != PC_VAL_ARR)
		return 0;
	for (i = 0, e = pr->paused + 1; i < pc_pv(m, pr->paused)->v.n && !err;
	     i++, e += pc_val_span(pc_pv(m, e))) {
		int64_t start = PC_NO_TIME, end = PC_NO_TIME;
		uint32_t reason = pc_pv_member(m, e, "reason");

		if (pc_pv(m, e)->kind != PC_VAL_OBJ) {
			r->bad_paused++;
			continue;
		}
		pc_jr_pv_ns(m, pc_pv_member(m, e, "startTime"), &start);
		pc_jr_pv_ns(m, pc_pv_member(m, e, "endTime"), &end);
		err = pc_thread_add_paused(m, th, start, end,
					   reason != PC_NONE && pc_pv(m, reason)->kind == PC_VAL_STR
						   ? pc_pv_text(m, pc_pv(m, reason)->v.s, NULL)
						   : NULL);
	}
	return err;
}

/*
 * Every lib of every process's `libs`, not only those frames use (the
 * front-end lists only those): the ones no frame used are added after the
 * others, in process and `libs` order, each mapped in the process of the
 * Gecko process's first thread, so a profile written by profconv keeps all
 * its libs when read back.
 */
static int add_unused_libs(struct gr *r)
{
	struct pc_model *m = r->m;
	uint32_t k, i, t;

	for (k = 0; k < r->nprocs; k++) {
		struct gproc *pr = r->procs[k];
		uint32_t proc = PC_NONE;

		for (t = 0; t < m->nthreads; t++)
			if (r->tproc[t] == k) {
				proc = m->threads[t]->process;
				break;
			}
		for (i = 0; i < pr->nlibs; i++) {
			if (pr->libs[i].global != PC_NONE)
				continue;
			if (gecko_global_lib(r, &pr->libs[i]) == PC_NONE)
				return gecko_nomem(r);
		}
		if (proc != PC_NONE && add_mappings(r, pr, proc))
			return PROFCONV_ERR_NOMEM;
	}
	return 0;
}

/* Threads in process order (the top-level process first), as the front-end
 * lists them; each gets its process's paused ranges. */
static int order_threads(struct gr *r)
{
	struct pc_model *m = r->m;
	uint32_t *order, i, k, n = 0;
	int err = 0;

	order = pc_alloc(r->ctx, ((size_t)m->nthreads + 1) * sizeof(*order));
	if (!order)
		return PROFCONV_ERR_NOMEM;
	for (k = 0; k < r->nprocs && !err; k++)
		for (i = 0; i < m->nthreads && !err; i++)
			if (r->tproc[i] == k) {
				err = add_paused(r, r->procs[k], m->threads[i]);
				order[n++] = i;
			}
	if (!err && n && n == m->nthreads) {
		err = pc_model_permute_threads(m, order);
		/* tproc follows: thread i's process */
		for (i = 0; i < n && !err; i++)
			order[i] = r->tproc[order[i]];
		if (!err)
			memcpy(r->tproc, order, (size_t)n * sizeof(*order));
	}
	pc_free(r->ctx, order);
	return err;
}

/*
 * Gecko counters: [{name, category, description, samples: {schema: {time,
 * count, number}, data: [[t, count, number], ...]}}] per process, times in
 * ms since that process's start.  Each joins the process of the process's
 * threads (and is shown with its main thread).
 *
 * The tree keeps every number as its text (PC_VAL_NUM), so that times are
 * converted exactly, as sample and marker times are (pc_jr_pv_ns(), the
 * exact ms -> ns parser): a time is int64 ns written as ms with up to six
 * decimals, and past 2^53 ns (about 104 days) a double cannot hold it.
 * Counts and numbers are the doubles their texts stand for.  A sample
 * without a usable time or count, or whose time leaves int64 ns once
 * shifted to the parent's start, is dropped with a counted warning.
 */
static int add_counters(struct gr *r, uint32_t pi)
{
	struct pc_model *m = r->m;
	struct gproc *pr = r->procs[pi];
	uint32_t c, i, proc = PC_NONE;
	int err = 0;

	if (pr->counters == PC_NONE)
		return 0;
	if (pc_pv(m, pr->counters)->kind != PC_VAL_ARR)
		return pc_warn(r->ctx, WARN_COUNTERS, &pr->counters_loc,
			       "counters is not an array; ignored");
	for (i = 0; i < m->nthreads; i++)
		if (r->tproc[i] == pi) {
			proc = m->threads[i]->process;
			break;
		}
	for (i = 0, c = pr->counters + 1; i < pc_pv(m, pr->counters)->v.n && !err;
	     i++, c += pc_val_span(pc_pv(m, c))) {
		uint32_t smp = pc_pv_member(m, c, "samples"), sch, data, ct, row, k;
		int64_t ti = -1, ci = -1, ni = -1;
		const char *name, *cat, *desc;
		uint32_t nm, cg, ds;

		sch = pc_pv_member(m, smp, "schema");
		data = pc_pv_member(m, smp, "data");
		if (pc_pv(m, c)->kind != PC_VAL_OBJ || sch == PC_NONE || data == PC_NONE ||
		    pc_pv(m, data)->kind != PC_VAL_ARR ||
		    !pc_jr_pv_int(m, pc_pv_member(m, sch, "time"), &ti) ||
		    !pc_jr_pv_int(m, pc_pv_member(m, sch, "count"), &ci)) {
			r->counters++;
			continue;
		}
		pc_jr_pv_int(m, pc_pv_member(m, sch, "number"), &ni);
		nm = pc_pv_member(m, c, "name");
		cg = pc_pv_member(m, c, "category");
		ds = pc_pv_member(m, c, "description");
		name = nm != PC_NONE && pc_pv(m, nm)->kind == PC_VAL_STR ? pc_pv_text(m, pc_pv(m, nm)->v.s, NULL) : "";
		cat = cg != PC_NONE && pc_pv(m, cg)->kind == PC_VAL_STR ? pc_pv_text(m, pc_pv(m, cg)->v.s, NULL) : "";
		desc = ds != PC_NONE && pc_pv(m, ds)->kind == PC_VAL_STR ? pc_pv_text(m, pc_pv(m, ds)->v.s, NULL) : "";
		ct = pc_counter_add(m, name, cat, desc, proc);
		if (ct == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		for (k = 0, row = data + 1; k < pc_pv(m, data)->v.n && !err;
		     k++, row += pc_val_span(pc_pv(m, row))) {
			uint32_t tn = PC_NONE, cn = PC_NONE, nn = PC_NONE, e, j;
			double cnt = 0, num = 0;
			int64_t t;
			int has_num;

			if (pc_pv(m, row)->kind != PC_VAL_ARR) {
				r->counter_samples++;
				continue;
			}
			for (j = 0, e = row + 1; j < pc_pv(m, row)->v.n;
			     j++, e += pc_val_span(pc_pv(m, e))) {
				if ((int64_t)j == ti)
					tn = e;
				if ((int64_t)j == ci)
					cn = e;
				if ((int64_t)j == ni)
					nn = e;
			}
			if (!pc_jr_pv_ns(m, tn, &t) ||
			    gecko_shift_time(t, pr->start_ns, r->procs[0]->start_ns, &t) ||
			    !pc_jr_pv_double(m, cn, &cnt)) {
				r->counter_samples++;
				continue;
			}
			/*
			 * num is set before the call: as two arguments, the one
			 * reading it and the one setting it are evaluated in no
			 * set order (gcc read it first, and every number was 0).
			 */
			has_num = nn != PC_NONE && pc_jr_pv_double(m, nn, &num);
			err = pc_counter_sample(m, ct, t, cnt, has_num, num);
		}
	}
	return err;
}

static int add_schemas(struct gr *r)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < r->main_schemas.n && !err; i++)
		err = pc_jr_add_schema(r->m, pc_spool_str(&r->main_schemas, i),
				       pc_spool_len(&r->main_schemas, i), &r->utf8_repaired);
	for (i = 0; i < r->sub_schemas.n && !err; i++)
		err = pc_jr_add_schema(r->m, pc_spool_str(&r->sub_schemas, i),
				       pc_spool_len(&r->sub_schemas, i), &r->utf8_repaired);
	return err;
}

static int read_doc(struct gr *r)
{
	const struct pc_jtok *t;
	struct gproc *main_proc;
	uint32_t i;
	int err;

	main_proc = new_proc(r);
	if (!main_proc)
		return PROFCONV_ERR_NOMEM;
	err = pc_jr_expect(r->ctx, r->p, PC_JT_OBJ_BEGIN, "the profile", &t);
	if (!err) {
		pc_jpull_loc(r->p, t, &main_proc->loc);
		err = read_process(r, 0);
	}
	if (!err)
		err = pc_jpull_next(r->p, &t); /* the end, or trailing garbage */
	if (err)
		return err;
	if (!main_proc->has_meta)
		return pc_fail(r->ctx, PROFCONV_ERR_CORRUPT, NULL,
			       "%s: no \"meta\" member: not a Gecko profile", r->name);
	if (!r->seen_categories)
		pc_jr_default_categories(r->m);
	for (i = 0; i < r->nprocs && !err; i++)
		err = finish_proc(r, i);
	if (!err)
		err = add_unused_libs(r);
	if (!err)
		err = order_threads(r);
	for (i = 0; i < r->nprocs && !err; i++)
		err = add_counters(r, i);
	if (!err)
		err = add_schemas(r);
	/* string-index fields (re-interned above) become string references */
	for (i = 0; i < r->m->nthreads && !err; i++) {
		const struct pc_markers *mk = &r->m->threads[i]->markers;
		uint32_t k;

		for (k = 0; k < mk->len; k++)
			pc_jr_resolve_srefs(r->m, mk->payload[k], r->m->strings.len);
	}
	if (!err)
		err = pc_warn_n(r->ctx, WARN_COUNTERS, r->counters, NULL,
				"%s: %llu counters have no usable samples table; dropped", r->name,
				(unsigned long long)r->counters);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_CSAMPLES, r->counter_samples, NULL,
				"%s: %llu counter samples have no usable time or count; dropped",
				r->name, (unsigned long long)r->counter_samples);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_SHIFTED, r->shifted_out, NULL,
				"%s: %llu subprocess samples or markers have times that leave int64 nanoseconds once shifted to the parent process's start; dropped",
				r->name, (unsigned long long)r->shifted_out);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_SDELAY, r->bad_delays, NULL,
				"%s: %llu sample eventDelay or threadCPUDelta values are not numbers the model can hold (a number of ms, an integer); made null",
				r->name, (unsigned long long)r->bad_delays);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_XCOLS, r->bad_xcols, NULL,
				"%s: %llu values of profconv's frameTable columns (address, inlineDepth, nativeSymbol...) are not usable; ignored",
				r->name, (unsigned long long)r->bad_xcols);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_PAUSED, r->bad_paused, NULL,
				"%s: %llu paused ranges are not objects; ignored", r->name,
				(unsigned long long)r->bad_paused);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_ALLOC, r->dropped_alloc, NULL,
				"%s: %llu allocation markers are not kept", r->name,
				(unsigned long long)r->dropped_alloc);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_NOTIME, r->dropped_notime, NULL,
				"%s: %llu markers have neither a start nor an end time", r->name,
				(unsigned long long)r->dropped_notime);
	if (!err)
		err = r->empty_categories
			      ? pc_warn_n(r->ctx, WARN_CATEGORY, r->bad_categories + 1, NULL,
					  "%s: meta.categories is empty; the default category Other (grey) replaces %llu frame or marker categories",
					  r->name, (unsigned long long)r->bad_categories)
			      : pc_warn_n(r->ctx, WARN_CATEGORY, r->bad_categories, NULL,
					  "%s: %llu frame or marker categories are out of range; replaced",
					  r->name, (unsigned long long)r->bad_categories);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_MTIME, r->bad_times, NULL,
				"%s: %llu markers lack the time their phase needs; made instants at the time they have",
				r->name, (unsigned long long)r->bad_times);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_CAUSE, r->bad_causes, NULL,
				"%s: %llu marker backtraces name a stack the thread does not have",
				r->name, (unsigned long long)r->bad_causes);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_PAYLOAD, r->bad_payloads, NULL,
				"%s: %llu marker payloads are not objects (or nest deeper than %d levels); the markers are kept without them",
				r->name, (unsigned long long)r->bad_payloads, PC_PV_MAX_DEPTH - 1);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_USTR, r->bad_ustrs, NULL,
				"%s: %llu marker fields declared as string indexes are out of their thread's string table; removed",
				r->name, (unsigned long long)r->bad_ustrs);
	if (!err)
		err = pc_warn_n(r->ctx, WARN_UTF8, pc_jpull_bad_utf8(r->p) + r->utf8_repaired, NULL,
				"%s: %llu strings or raw values have invalid UTF-8; written with U+FFFD in its place",
				r->name, (unsigned long long)(pc_jpull_bad_utf8(r->p) + r->utf8_repaired));
	return err;
}

static int read_gecko(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct gr r;
	uint32_t i;
	int err;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.m = m;
	r.name = pc_input_name(in);
	pc_smap_init(&r.lib_keys, ctx);
	pc_smap_init(&r.origins, ctx);
	pc_smap_init(&r.src_ids, ctx);
	pc_smap_init(&r.src_files, ctx);
	pc_smap_init(&r.schema_names, ctx);
	pc_smap_init(&r.noted, ctx);
	pc_spool_init(&r.main_schemas, ctx);
	pc_spool_init(&r.sub_schemas, ctx);
	pc_spool_init(&r.ustr_pool, ctx);
	m->meta.zero_ns = 0;
	m->meta.symbolicated = 0;
	err = pc_jpull_new(ctx, in, NULL, &r.p);
	if (!err)
		err = read_doc(&r);
	pc_jpull_free(r.p);
	for (i = 0; i < r.nprocs; i++)
		free_proc(&r, r.procs[i]);
	pc_free(ctx, r.procs);
	pc_smap_free(&r.lib_keys);
	pc_smap_free(&r.origins);
	pc_smap_free(&r.src_ids);
	pc_smap_free(&r.src_files);
	pc_smap_free(&r.schema_names);
	pc_smap_free(&r.noted);
	pc_spool_free(&r.main_schemas);
	pc_spool_free(&r.sub_schemas);
	pc_spool_free(&r.ustr_pool);
	pc_free(ctx, r.ustrs);
	pc_free(ctx, r.tproc);
	return err;
}

static int gecko_info(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *o)
{
	struct pc_model *m = pc_model_new(ctx);
	uint64_t samples = 0, markers = 0;
	uint32_t i;
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = read_gecko(ctx, in, m);
	if (!err) {
		for (i = 0; i < m->nthreads; i++) {
			samples += m->threads[i]->samples.len;
			markers += m->threads[i]->markers.len;
		}
		pc_text_printf(o, "%s: Gecko profile (as Firefox writes it)\n", pc_input_name(in));
		if (m->meta.product)
			pc_text_printf(o, "product:     %s\n", m->meta.product);
		pc_text_printf(o, "threads:     %u\n", m->nthreads);
		pc_text_printf(o, "samples:     %llu\n", (unsigned long long)samples);
		pc_text_printf(o, "markers:     %llu\n", (unsigned long long)markers);
		pc_text_printf(o, "libs used:   %u\n", m->libs.len);
		pc_text_printf(o, "stacks:      %u, frames: %u, funcs: %u\n", m->stacks.len,
			       m->frames.len, m->funcs.len);
		if (o->err)
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "info: write failed");
	}
	pc_model_free(m);
	return err;
}

const struct pc_reader pc_reader_gecko = {
	.name = "gecko",
	.summary = "Gecko profile JSON as Firefox writes it (format versions 20 to 36)",
	.flags = 0,
	.bid = bid,
	.read = read_gecko,
	.info = gecko_info,
};
