/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * validate_tables.c - cells (one rule per column kind) and tables (columns, schema/data rows, lengths, references)
 * (the validator; see validate.c and pc_vstate.h).
 */
#include "json/pc_vstate.h"

/* --- cells --- */

static int store_push(struct vstate *v, struct colstate *c, uint32_t row, int32_t x)
{
	if (row >= c->cap) {
		void *p = c->store;
		int err = pc_grow(v->ctx, &p, sizeof(int32_t), &c->cap, (size_t)row + 1);

		if (err)
			return err;
		c->store = p;
	}
	c->store[row] = x;
	return 0;
}

static void bad_type(struct vstate *v, const struct table *tb, unsigned ci, uint32_t row,
		     const struct cval *cv, const char *want)
{
	char d[64];

	v_cell_problem(v, K_TYPE, tb, ci, row, "%s: expected %s, got %s", tb->spec->cols[ci].name,
		     want, v_cv_describe(cv, d, sizeof(d)));
}

static int index_value(struct vstate *v, const struct table *tb, unsigned ci, uint32_t row,
		       const struct cval *cv, int32_t *out)
{
	const struct colspec *cs = &tb->spec->cols[ci];
	int isnull = cv->t == CV_NULL || cv->t == CV_MISSING;

	if (isnull) {
		if (cs->flags & F_NULL_OK) {
			*out = S_NULL;
			return 0;
		}
		bad_type(v, tb, ci, row, cv, "an index");
	} else if (!cv->integral) {
		bad_type(v, tb, ci, row, cv, (cs->flags & F_NULL_OK) ? "an index or null" : "an index");
	} else if (cv->i == -1 && (cs->flags & F_NEG1_OK)) {
		*out = -1;
		return 0;
	} else if (cv->i < 0 || cv->i > INT32_MAX) {
		v_cell_problem(v, K_RANGE, tb, ci, row, "%s %lld is out of range", cs->name,
			     (long long)cv->i);
	} else {
		*out = (int32_t)cv->i;
		return 0;
	}
	*out = S_BAD;
	return 0;
}

static const char *const phase_names[] = { "Instant", "Interval", "IntervalStart", "IntervalEnd" };

static int cell(struct vstate *v, struct table *tb, unsigned ci, uint32_t row,
		const struct cval *cv)
{
	const struct colspec *cs = &tb->spec->cols[ci];
	struct colstate *c = &tb->col[ci];
	int isnull = cv->t == CV_NULL || cv->t == CV_MISSING;
	int32_t sv = 0;
	char d[64];

	switch ((enum rule)cs->rule) {
	case R_ANY:
		return 0;
	case R_NUM:
		if (cv->t != CV_NUM)
			bad_type(v, tb, ci, row, cv, "a number");
		return 0;
	case R_NUM_NULL:
		if (!isnull && cv->t != CV_NUM)
			bad_type(v, tb, ci, row, cv, "a number or null");
		return 0;
	case R_INT:
		if (!cv->integral)
			bad_type(v, tb, ci, row, cv, "an integer");
		return 0;
	case R_INT_NULL:
		if (!isnull && !cv->integral)
			bad_type(v, tb, ci, row, cv, "an integer or null");
		return 0;
	case R_ADDR:
		if (!cv->integral || cv->i < -1)
			bad_type(v, tb, ci, row, cv, "an address (an integer >= 0, or -1)");
		return 0;
	case R_NONNEG:
		if (!cv->integral || cv->i < 0)
			bad_type(v, tb, ci, row, cv, "an integer >= 0");
		return 0;
	case R_NONNEG_NULL:
		if (!isnull && (!cv->integral || cv->i < 0))
			bad_type(v, tb, ci, row, cv, "an integer >= 0 or null");
		return 0;
	case R_WINDOW_ID: /* the processed reader's rule: an integer, 0 to 2^53 - 1 */
		if (!isnull && (!cv->integral || cv->i < 0 || cv->i > (int64_t)PC_MAX_WINDOW_ID))
			bad_type(v, tb, ci, row, cv, "a window id (an integer 0 to 2^53 - 1) or null");
		return 0;
	case R_RES_TYPE: /* ResourceType in src/types/profile.ts */
		if (!cv->integral || cv->i < 0 || cv->i > 5)
			bad_type(v, tb, ci, row, cv, "a resource type (an integer 0..5)");
		return 0;
	case R_BOOL:
		if (cv->t != CV_BOOL)
			bad_type(v, tb, ci, row, cv, "true or false");
		return 0;
	case R_BOOL_NULL:
		if (!isnull && cv->t != CV_BOOL)
			bad_type(v, tb, ci, row, cv, "true, false or null");
		return 0;
	case R_STR:
		if (cv->t != CV_STR)
			bad_type(v, tb, ci, row, cv, "a string");
		return 0;
	case R_STR_NULL:
		if (!isnull && cv->t != CV_STR)
			bad_type(v, tb, ci, row, cv, "a string or null");
		return 0;
	case R_OBJ_NULL:
		if (!isnull && cv->t != CV_OBJ)
			bad_type(v, tb, ci, row, cv, "an object or null");
		return 0;
	case R_PREFIX_OFFSET:
		if (!cv->integral)
			bad_type(v, tb, ci, row, cv, "an integer offset");
		else if (cv->i < 0)
			v_cell_problem(v, K_ORDER, tb, ci, row, "parent %lld is not before stack %u",
				     (long long)row - cv->i, row);
		else if (cv->i > row)
			v_cell_problem(v, K_RANGE, tb, ci, row,
				     "prefixOffset %lld reaches before the first stack (stack %u)",
				     (long long)cv->i, row);
		return 0;
	case R_PREFIX:
		if (isnull)
			return 0;
		if (!cv->integral)
			bad_type(v, tb, ci, row, cv, "a stack index or null");
		else if (cv->i < 0)
			v_cell_problem(v, K_RANGE, tb, ci, row, "prefix %lld is negative",
				     (long long)cv->i);
		else if (cv->i >= row)
			v_cell_problem(v, K_ORDER, tb, ci, row, "prefix %lld is not before stack %u",
				     (long long)cv->i, row);
		return 0;
	case R_TIME:
		if (cv->t != CV_NUM) {
			bad_type(v, tb, ci, row, cv, "a number");
			return 0;
		}
		if (c->has_prev && cv->d < c->prev)
			v_cell_problem(v, W_TIME_ORDER, tb, ci, row,
				     "time %s is before the previous sample's", v_cv_describe(cv, d, sizeof(d)));
		c->prev = cv->d;
		c->has_prev = 1;
		return 0;
	case R_TDELTA:
		if (cv->t != CV_NUM)
			bad_type(v, tb, ci, row, cv, "a number");
		else if (cv->d < 0 && row > 0)
			v_cell_problem(v, W_TIME_ORDER, tb, ci, row, "negative time delta %s",
				     v_cv_describe(cv, d, sizeof(d)));
		return 0;
	case R_REF:
	case R_CAT:
		index_value(v, tb, ci, row, cv, &sv);
		break;
	case R_SUBCAT:
		if (isnull) {
			sv = S_NULL;
		} else if (!cv->integral || cv->i < 0 || cv->i > INT32_MAX) {
			bad_type(v, tb, ci, row, cv, "a subcategory index or null");
			sv = S_BAD;
		} else {
			sv = (int32_t)cv->i;
		}
		break;
	case R_PHASE:
		if (!cv->integral || cv->i < 0 || cv->i > 3) {
			v_cell_problem(v, K_MARKER, tb, ci, row, "phase %s is not 0, 1, 2 or 3",
				     v_cv_describe(cv, d, sizeof(d)));
			sv = S_BAD;
		} else {
			sv = (int32_t)cv->i;
		}
		break;
	case R_MTIME:
		if (isnull) {
			sv = 1;
		} else if (cv->t == CV_NUM) {
			sv = 0;
		} else {
			bad_type(v, tb, ci, row, cv, "a number or null");
			sv = S_BAD;
		}
		break;
	}
	return store_push(v, c, row, sv);
}

/* --- tables --- */

static int find_col(const struct tablespec *spec, const char *name)
{
	unsigned i;

	for (i = 0; i < spec->ncols; i++)
		if (strcmp(spec->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int table_init(struct vstate *v, struct table *tb)
{
	unsigned i;

	memset(tb, 0, sizeof(*tb));
	tb->length = -1;
	for (i = 0; i < MAX_POS; i++)
		tb->pos_col[i] = -1;
	for (i = 0; i < MAX_COLS; i++)
		tb->col[i].pos = -1;
	tb->path = pc_strdup(v->ctx, v->path);
	return tb->path ? 0 : PROFCONV_ERR_NOMEM;
}

static void table_free(struct vstate *v, struct table *tb)
{
	unsigned i;

	for (i = 0; i < MAX_COLS; i++)
		pc_free(v->ctx, tb->col[i].store);
	pc_free(v->ctx, tb->path);
	pc_free(v->ctx, tb->deferred);
}

int v_processed_version(const struct vstate *v)
{
	const struct profile *pr = v->prof;

	if (pr->has_pver && pr->pver >= 0 && pr->pver < 1000)
		return (int)pr->pver;
	return PROCESSED_VERSION; /* meta not seen yet: assume the current version */
}

static int col_required(const struct vstate *v, const struct table *tb, const struct colspec *cs)
{
	if (!(cs->flags & F_REQ))
		return 0;
	return tb->gecko || v_processed_version(v) >= cs->minver;
}

/* The cells of a processed column, after its '['. */
static int column_body(struct vstate *v, struct table *tb, unsigned ci)
{
	enum pc_jtype type;
	struct cval cv = { 0 };
	uint32_t row;
	int err = 0;

	for (row = 0; !err; row++) {
		err = v_read_cval(v, &cv, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		err = cell(v, tb, ci, row, &cv);
	}
	tb->col[ci].n = row;
	return err;
}

static int parse_column(struct vstate *v, struct table *tb, unsigned ci)
{
	const struct colspec *cs = &tb->spec->cols[ci];
	struct colstate *c = &tb->col[ci];
	char path[PATH_MAX_LEN + 64];
	enum pc_jtype type;
	int err;

	pc_snprintf(path, sizeof(path), "%s.%s", tb->path, cs->name);
	if (c->seen) {
		v_problem_at(v, K_VALUE, path, "duplicate column");
		return pc_jpull_skip_value(v->p);
	}
	c->seen = 1;
	err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type == PC_JT_NULL && (cs->flags & F_NULLCOL)) {
		c->is_null = 1;
		return pc_jpull_skip_value(v->p);
	}
	if (type != PC_JT_ARR_BEGIN) {
		v_problem_at(v, K_TYPE, path, "expected an array, got %s", v_tok_describe(type));
		c->is_null = 1;
		return pc_jpull_skip_value(v->p);
	}
	err = v_consume(v); /* the '[' */
	return err ? err : column_body(v, tb, ci);
}

static int parse_schema(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	const struct pc_jtok *t;
	int err, ci;

	pc_snprintf(path, sizeof(path), "%s.schema", tb->path);
	if (v_expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	while (!err) {
		struct cval cv;
		enum pc_jtype type;
		char key[64];

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		ci = find_col(tb->spec, t->str);
		pc_snprintf(key, sizeof(key), "%s", t->str);
		err = v_read_cval(v, &cv, &type);
		if (err)
			break;
		if (!cv.integral || cv.i < 0) {
			char d[64];

			v_problem_at(v, K_TYPE, path, "'%s': expected a column position, got %s", key,
				   v_cv_describe(&cv, d, sizeof(d)));
			continue;
		}
		if (ci < 0)
			continue;
		if (cv.i >= MAX_POS) {
			v_problem_at(v, K_VALUE, path, "'%s': position %lld is implausibly large", key,
				   (long long)cv.i);
			continue;
		}
		if (tb->pos_col[cv.i] >= 0) {
			v_problem_at(v, K_VALUE, path, "'%s' and '%s' share position %lld", key,
				   tb->spec->cols[tb->pos_col[cv.i]].name, (long long)cv.i);
			continue;
		}
		if (tb->col[ci].pos >= 0)
			tb->pos_col[tb->col[ci].pos] = -1;
		tb->col[ci].pos = (int)cv.i;
		tb->pos_col[cv.i] = (int8_t)ci;
	}
	tb->schema_seen = 1;
	return err;
}

/* The rows of a Gecko table's data, after its '['. */
static int rows_body(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	unsigned mapped[MAX_COLS], nmapped = 0, k;
	enum pc_jtype type;
	struct cval cv, missing = { .t = CV_MISSING };
	uint32_t row;
	int err = 0;

	for (k = 0; k < tb->spec->ncols; k++)
		if (tb->col[k].pos >= 0)
			mapped[nmapped++] = k;
	for (row = 0; !err; row++) {
		int pos;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		if (type != PC_JT_ARR_BEGIN) {
			pc_snprintf(path, sizeof(path), "%s.data[%u]", tb->path, row);
			v_problem_at(v, K_TYPE, path, "expected a row (an array), got %s",
				   v_tok_describe(type));
			err = pc_jpull_skip_value(v->p);
			for (k = 0; k < nmapped && !err; k++)
				err = store_push(v, &tb->col[mapped[k]], row, S_BAD);
			continue;
		}
		err = v_consume(v); /* the row's '[' */
		for (pos = 0; !err; pos++) {
			err = v_read_cval(v, &cv, &type);
			if (err || type == PC_JT_ARR_END)
				break;
			if (pos < MAX_POS && tb->pos_col[pos] >= 0)
				err = cell(v, tb, (unsigned)tb->pos_col[pos], row, &cv);
		}
		for (k = 0; k < nmapped && !err; k++)
			if (tb->col[mapped[k]].pos >= pos)
				err = cell(v, tb, mapped[k], row, &missing);
	}
	if (!err)
		err = v_consume(v); /* the ']' */
	tb->rows = row;
	return err;
}

static int parse_rows(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	enum pc_jtype type;
	int err;

	pc_snprintf(path, sizeof(path), "%s.data", tb->path);
	err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type != PC_JT_ARR_BEGIN) {
		v_problem_at(v, K_TYPE, path, "expected an array, got %s", v_tok_describe(type));
		return pc_jpull_skip_value(v->p);
	}
	err = v_consume(v); /* the '[' */
	return err ? err : rows_body(v, tb);
}

/* Keep a copy of Gecko rows seen before their schema; text after the '[' when rest. */
static int defer_rows(struct vstate *v, struct table *tb, int rest)
{
	const char *raw;
	size_t len;
	int err;

	tb->data_seen = 1;
	if (rest)
		err = pc_jpull_capture_rest(v->p, &raw, &len, DATA_MAX);
	else
		err = pc_jpull_capture_value(v->p, &raw, &len, DATA_MAX);
	if (err)
		return err;
	tb->deferred = pc_alloc(v->ctx, len + 2);
	if (!tb->deferred)
		return PROFCONV_ERR_NOMEM;
	if (rest)
		tb->deferred[0] = '[';
	memcpy(tb->deferred + rest, raw, len);
	tb->deferred_len = len + (size_t)rest;
	tb->deferred[tb->deferred_len] = 0;
	return 0;
}

/*
 * "data" in a markers table before anything told the layouts apart: a
 * processed column holds objects and nulls, Gecko rows are arrays.
 */
static int ambiguous_data(struct vstate *v, struct table *tb, const struct tablespec *pspec,
			  const struct tablespec *gspec, unsigned ci)
{
	enum pc_jtype type;
	int err;

	err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type != PC_JT_ARR_BEGIN) {
		tb->proc = 1;
		tb->spec = pspec;
		return parse_column(v, tb, ci);
	}
	err = v_consume(v);
	if (!err)
		err = pc_jpull_peek(v->p, &type);
	if (err)
		return err;
	if (type == PC_JT_ARR_BEGIN) {
		tb->gecko = 1;
		tb->spec = gspec;
		return defer_rows(v, tb, 1);
	}
	if (type == PC_JT_ARR_END) {
		tb->empty_data = 1;
		return v_consume(v);
	}
	tb->proc = 1;
	tb->spec = pspec;
	tb->col[ci].seen = 1;
	return column_body(v, tb, ci);
}

/* Gecko data that came before its schema: parse the captured copy now. */
static int replay_rows(struct vstate *v, struct table *tb)
{
	struct pc_jpull *save = v->p, *p2 = NULL;
	struct pc_input *in2 = NULL;
	int err;

	err = pc_input_open_mem(v->ctx, tb->deferred, tb->deferred_len, v->name, &in2);
	if (!err)
		err = pc_jpull_new(v->ctx, in2, NULL, &p2);
	if (!err) {
		v->p = p2;
		err = parse_rows(v, tb);
		v->p = save;
	}
	pc_jpull_free(p2);
	if (in2)
		pc_input_close(in2);
	return err;
}

static int read_length(struct vstate *v, struct table *tb)
{
	char path[PATH_MAX_LEN + 64];
	enum pc_jtype type;
	struct cval cv = { 0 };
	int err;

	err = v_read_cval(v, &cv, &type);
	if (err)
		return err;
	if (!cv.integral || cv.i < 0 || cv.i > INT32_MAX) {
		char d[64];

		pc_snprintf(path, sizeof(path), "%s.length", tb->path);
		v_problem_at(v, K_TYPE, path, "expected a row count, got %s",
			   v_cv_describe(&cv, d, sizeof(d)));
		return 0;
	}
	tb->length = cv.i;
	return 0;
}

static int read_weight_type(struct vstate *v, struct table *tb)
{
	static const char *const ok[] = { "samples", "tracing-ms", "bytes" };
	char path[PATH_MAX_LEN + 64];
	const struct pc_jtok *t;
	unsigned i;
	int err;

	tb->weight_type_seen = 1;
	pc_snprintf(path, sizeof(path), "%s.weightType", tb->path);
	err = pc_jpull_next(v->p, &t);
	if (err)
		return err;
	if (t->type != PC_JT_STRING) {
		v_problem_at(v, K_TYPE, path, "expected a string, got %s", v_tok_describe(t->type));
		return t->type == PC_JT_OBJ_BEGIN || t->type == PC_JT_ARR_BEGIN ?
			       pc_jpull_skip_rest(v->p) : 0;
	}
	for (i = 0; i < PC_ARRAY_SIZE(ok); i++)
		if (strcmp(t->str, ok[i]) == 0)
			return 0;
	v_problem_at(v, K_VALUE, path, "'%.40s' is not samples, tracing-ms or bytes", t->str);
	return 0;
}

static void markers_check(struct vstate *v, struct table *tb, uint32_t rows)
{
	int ph = find_col(tb->spec, "phase"), st = find_col(tb->spec, "startTime");
	int en = find_col(tb->spec, "endTime");
	const int32_t *phase, *start, *end;
	uint32_t r;

	if (ph < 0 || st < 0 || en < 0)
		return;
	phase = tb->col[ph].store;
	start = tb->col[st].store;
	end = tb->col[en].store;
	if (!phase || !start || !end)
		return;
	for (r = 0; r < rows && r < tb->col[ph].n; r++) {
		int32_t p = phase[r];

		if (p == S_BAD)
			continue;
		if (p != 3 && r < tb->col[st].n && start[r] == 1)
			v_cell_problem(v, K_MARKER, tb, (unsigned)st, r,
				     "startTime is null but phase %d (%s) needs it", p, phase_names[p]);
		if ((p == 1 || p == 3) && r < tb->col[en].n && end[r] == 1)
			v_cell_problem(v, K_MARKER, tb, (unsigned)en, r,
				     "endTime is null but phase %d (%s) needs it", p, phase_names[p]);
	}
}

/* Turn the table's index columns into pending checks (the stores move into them). */
static int table_refs(struct vstate *v, struct table *tb, uint32_t rows)
{
	int sub = find_col(tb->spec, "subcategory");
	unsigned ci;

	for (ci = 0; ci < tb->spec->ncols; ci++) {
		const struct colspec *cs = &tb->spec->cols[ci];
		struct colstate *c = &tb->col[ci];
		struct pending *pd;

		if ((cs->rule != R_REF && cs->rule != R_CAT) || !c->store)
			continue;
		pd = pc_calloc(v->ctx, 1, sizeof(*pd));
		if (!pd)
			return PROFCONV_ERR_NOMEM;
		pd->path = pc_strdup(v->ctx, tb->path);
		if (!pd->path) {
			pc_free(v->ctx, pd);
			return PROFCONV_ERR_NOMEM;
		}
		pd->col = cs->name;
		pd->pos = tb->gecko ? c->pos : -1;
		pd->subpos = -1;
		pd->tgt = (enum target)cs->tgt;
		pd->v = c->store;
		pd->n = tb->gecko ? rows : c->n;
		c->store = NULL;
		if (cs->rule == R_CAT && sub >= 0 && tb->col[sub].store &&
		    tb->col[sub].n >= pd->n) {
			pd->sub = tb->col[sub].store;
			pd->subpos = tb->col[sub].pos;
			tb->col[sub].store = NULL;
		}
		v_resolve_or_defer(v, pd);
	}
	return 0;
}

static void set_self(struct vstate *v, const struct table *tb, int64_t rows)
{
	enum target self = tb->spec->self;

	if (self == T_NONE)
		return;
	if (v->thr)
		v->thr->lim[self] = rows;
	else
		v->prof->sc.lim[self] = rows;
}

static int finish_processed(struct vstate *v, struct table *tb)
{
	const struct tablespec *spec = tb->spec;
	char path[PATH_MAX_LEN + 64];
	uint32_t rows = 0;
	unsigned ci;

	if (tb->length < 0)
		v_problem_at(v, K_MISSING, tb->path, "missing length");
	for (ci = 0; ci < spec->ncols; ci++) {
		const struct colspec *cs = &spec->cols[ci];
		const struct colstate *c = &tb->col[ci];

		if (!c->seen) {
			if (col_required(v, tb, cs))
				v_problem_at(v, K_MISSING, tb->path, "missing column '%s'", cs->name);
			continue;
		}
		if (c->is_null)
			continue;
		if (c->n > rows)
			rows = c->n;
		if (tb->length >= 0 && c->n != tb->length) {
			pc_snprintf(path, sizeof(path), "%s.%s", tb->path, cs->name);
			v_problem_at(v, K_LENGTH, path, "has %u entries but length is %lld", c->n,
				   (long long)tb->length);
		}
	}
	if (tb->length >= 0)
		rows = (uint32_t)tb->length;
	if (spec == &p_stack && !tb->col[1].seen && tb->col[2].seen && v_processed_version(v) >= 66)
		v_problem_at(v, K_MISSING, tb->path,
			   "has 'prefix' (before v66) but not 'prefixOffset'");
	if (spec->kind == TK_SAMPLES) {
		if (!tb->col[1].seen && !tb->col[2].seen)
			v_problem_at(v, K_MISSING, tb->path,
				   "has neither 'time' nor 'timeDeltas' (the front-end fails)");
		if (!tb->weight_type_seen && v_processed_version(v) >= 29)
			v_problem_at(v, K_MISSING, tb->path, "missing weightType");
		v->st.samples += rows;
	} else if (spec->kind == TK_MARKERS) {
		markers_check(v, tb, rows);
		v->st.markers += rows;
	} else if (spec->self == T_STACKS) {
		v->st.stacks += rows;
	} else if (spec->self == T_FRAMES) {
		v->st.frames += rows;
	} else if (spec->self == T_FUNCS) {
		v->st.funcs += rows;
	}
	set_self(v, tb, rows);
	return table_refs(v, tb, rows);
}

static int finish_gecko(struct vstate *v, struct table *tb)
{
	const struct tablespec *spec = tb->spec;
	unsigned ci;
	int err;

	if (!tb->schema_seen)
		v_problem_at(v, K_MISSING, tb->path, "missing schema");
	if (!tb->data_seen)
		v_problem_at(v, K_MISSING, tb->path, "missing data");
	if (!tb->schema_seen)
		return 0;
	if (tb->deferred) {
		err = replay_rows(v, tb);
		if (err)
			return err;
	}
	for (ci = 0; ci < spec->ncols; ci++) {
		if ((spec->cols[ci].flags & F_REQ) && tb->col[ci].pos < 0)
			v_problem_at(v, K_MISSING, tb->path, "schema has no '%s' column",
				   spec->cols[ci].name);
		tb->col[ci].n = tb->rows;
	}
	if (spec->kind == TK_SAMPLES) {
		if (tb->col[2].pos < 0 && tb->col[3].pos < 0)
			v_problem_at(v, K_MISSING, tb->path,
				   "schema has neither 'eventDelay' nor 'responsiveness' (the front-end fails)");
		v->st.samples += tb->rows;
	} else if (spec->kind == TK_MARKERS) {
		markers_check(v, tb, tb->rows);
		v->st.markers += tb->rows;
	} else if (spec->self == T_STACKS) {
		v->st.stacks += tb->rows;
	} else if (spec->self == T_FRAMES) {
		v->st.frames += tb->rows;
	}
	set_self(v, tb, tb->rows);
	return table_refs(v, tb, tb->rows);
}

/*
 * A table object in either layout.  pspec: its processed columns (NULL: not
 * a processed table here); gspec: its Gecko layout (NULL: not Gecko here).
 * *layout gets F_GECKO or F_PROCESSED (F_UNKNOWN if it could not tell).
 */
int v_parse_table(struct vstate *v, const struct tablespec *pspec,
		  const struct tablespec *gspec, enum fmt *layout)
{
	const struct pc_jtok *t;
	struct table tb;
	int err;

	*layout = F_UNKNOWN;
	if (v_expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = table_init(v, &tb);
	if (!err)
		err = pc_jpull_next(v->p, &t);
	while (!err) {
		int is_schema, ci = -1;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		is_schema = strcmp(t->str, "schema") == 0;
		if (is_schema || strcmp(t->str, "data") == 0) {
			int pdata = pspec && !tb.gecko ? find_col(pspec, "data") : -1;

			if (!is_schema && pdata >= 0 && (tb.proc || !gspec)) {
				tb.proc = 1;
				tb.spec = pspec;
				err = parse_column(v, &tb, (unsigned)pdata);
				continue;
			}
			if (!is_schema && pdata >= 0) {
				err = ambiguous_data(v, &tb, pspec, gspec, (unsigned)pdata);
				continue;
			}
			if (!gspec || tb.proc) {
				v_problem_at(v, K_LAYOUT, tb.path,
					   "'%s' (Gecko layout) in a processed-format table",
					   is_schema ? "schema" : "data");
				err = pc_jpull_skip_value(v->p);
				continue;
			}
			tb.gecko = 1;
			tb.spec = gspec;
			if (is_schema) {
				err = parse_schema(v, &tb);
			} else if (tb.data_seen) {
				v_problem_at(v, K_VALUE, tb.path, "duplicate data");
				err = pc_jpull_skip_value(v->p);
			} else if (tb.schema_seen) {
				tb.data_seen = 1;
				err = parse_rows(v, &tb);
			} else {
				err = defer_rows(v, &tb, 0);
			}
			continue;
		}
		if (strcmp(t->str, "length") == 0)
			tb.saw_length = 1;
		if (pspec && !tb.gecko) {
			if (strcmp(t->str, "length") == 0) {
				tb.proc = 1;
				tb.spec = pspec;
				err = read_length(v, &tb);
				continue;
			}
			if (pspec->kind == TK_SAMPLES && strcmp(t->str, "weightType") == 0) {
				tb.proc = 1;
				tb.spec = pspec;
				err = read_weight_type(v, &tb);
				continue;
			}
			ci = find_col(pspec, t->str);
			if (ci >= 0) {
				tb.proc = 1;
				tb.spec = pspec;
				err = parse_column(v, &tb, (unsigned)ci);
				continue;
			}
		}
		err = pc_jpull_skip_value(v->p);
	}
	if (!err) {
		if (!tb.gecko && !tb.proc) {
			/* an empty or unrecognised table: judge it by what it should be */
			if (pspec && (!gspec || v->prof->fmt != F_GECKO))
				tb.proc = 1;
			else if (gspec && !tb.saw_length)
				tb.gecko = 1;
			tb.spec = tb.gecko ? gspec : pspec;
		}
		if (tb.empty_data && tb.gecko && !tb.data_seen) {
			tb.data_seen = 1;
		} else if (tb.empty_data && tb.proc) {
			int pdata = find_col(tb.spec, "data");

			if (pdata >= 0)
				tb.col[pdata].seen = 1;
		}
		if (tb.gecko) {
			*layout = F_GECKO;
			err = finish_gecko(v, &tb);
		} else if (tb.proc) {
			*layout = F_PROCESSED;
			err = finish_processed(v, &tb);
		}
	}
	table_free(v, &tb);
	return err;
}

/* An array of strings (stringArray, stringTable): count them. */
int v_parse_strings(struct vstate *v, int64_t *count)
{
	enum pc_jtype type;
	struct cval cv = { 0 };
	uint64_t i;
	int err;

	*count = -1;
	if (v_expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = v_consume(v);
	for (i = 0; !err; i++) {
		err = v_read_cval(v, &cv, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		if (cv.t != CV_STR) {
			char d[64];
			size_t old = v_path_push_idx(v, i);

			v_problem(v, K_TYPE, "expected a string, got %s", v_cv_describe(&cv, d, sizeof(d)));
			v_path_pop(v, old);
		}
	}
	*count = (int64_t)i;
	return err;
}
