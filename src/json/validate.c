/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * validate.c - the structural checker for Firefox Profiler files (see
 * pc_validate.h).  Spec: docs/formats (processed v70: src/types/profile.ts,
 * Gecko v36: src/types/gecko-profile.ts of firefox-devtools/profiler).
 *
 * One pass over the file with the pull tokenizer.  Key order is arbitrary
 * (Firefox writes libs before meta), so nothing is checked against a table
 * that has not been seen yet:
 *
 *   - every table column is checked cell by cell as it streams past for
 *     what needs only the cell (type, prefixOffset vs own index, phase);
 *   - index columns are kept as int32 arrays (S_NULL / S_BAD sentinels) and
 *     become "pending" checks, resolved as soon as the length of the table
 *     they point into is known: at once, at the end of the thread (Gecko
 *     per-thread tables) or at the end of the profile;
 *   - string tables are only counted; meta and single libs entries, which
 *     are small, are captured and read with cJSON.
 *
 * A table object is parsed in either layout: processed columns
 * ({length, col: [...]}) or Gecko rows ({schema: {col: pos}, data: [[...]]}).
 * A Gecko "data" array that comes before its "schema" is captured raw and
 * replayed once the schema is known.
 *
 * Problems are counted per kind; the first PC_VALIDATE_MAX_SHOWN of each go
 * to the diagnostics callback as "FILE: json.path[i]: what".  Kinds marked
 * warn are things the front-end tolerates; they do not make a file invalid.
 */
#include "json/pc_vstate.h"

/* --- paths and problems --- */

size_t v_path_push_key(struct vstate *v, const char *key)
{
	size_t old = v->plen;

	v->plen += pc_snprintf(v->path + v->plen, sizeof(v->path) - v->plen, "%s%s",
			       v->plen ? "." : "", key);
	return old;
}

size_t v_path_push_idx(struct vstate *v, uint64_t i)
{
	size_t old = v->plen;

	v->plen += pc_snprintf(v->path + v->plen, sizeof(v->path) - v->plen, "[%llu]",
			       (unsigned long long)i);
	return old;
}

void v_path_pop(struct vstate *v, size_t len)
{
	v->plen = len;
	v->path[len] = 0;
}

static void PC_PRINTF(4, 0)
	vproblem(struct vstate *v, enum kind k, const char *path, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t n;

	v->count[k]++;
	if (v->count[k] > PC_VALIDATE_MAX_SHOWN || !pc_has_diag(v->ctx))
		return;
	if (path && *path)
		n = pc_snprintf(msg, sizeof(msg), "%s: %s: ", v->name, path);
	else
		n = pc_snprintf(msg, sizeof(msg), "%s: ", v->name);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	(kinds[k].warn ? pc_diag_warning : pc_diag_error)(v->ctx, msg);
}

/* A problem at an explicit path. */
void PC_PRINTF(4, 5) v_problem_at(struct vstate *v, enum kind k, const char *path,
				  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, k, path, fmt, ap);
	va_end(ap);
}

/* A problem at the current path. */
void PC_PRINTF(3, 4) v_problem(struct vstate *v, enum kind k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(v, k, v->path, fmt, ap);
	va_end(ap);
}

/* The JSON path of one cell of a table. */
static void cell_path(const struct table *tb, unsigned ci, uint32_t row, char *buf, size_t size)
{
	const struct colstate *c = &tb->col[ci];

	if (tb->gecko)
		pc_snprintf(buf, size, "%s.data[%u][%d]", tb->path, row, c->pos);
	else
		pc_snprintf(buf, size, "%s.%s[%u]", tb->path, tb->spec->cols[ci].name, row);
}

void PC_PRINTF(6, 7) v_cell_problem(struct vstate *v, enum kind k, const struct table *tb,
				    unsigned ci, uint32_t row, const char *fmt, ...)
{
	char path[PATH_MAX_LEN + 64];
	va_list ap;

	if (v->count[k] >= PC_VALIDATE_MAX_SHOWN || !pc_has_diag(v->ctx)) {
		v->count[k]++;
		return;
	}
	cell_path(tb, ci, row, path, sizeof(path));
	va_start(ap, fmt);
	vproblem(v, k, path, fmt, ap);
	va_end(ap);
}

const char *v_cv_describe(const struct cval *cv, char *buf, size_t size)
{
	switch (cv->t) {
	case CV_MISSING:
		return "nothing (the row is too short)";
	case CV_NULL:
		return "null";
	case CV_NUM:
		pc_snprintf(buf, size, "%.40s", cv->raw ? cv->raw : "a number");
		return buf;
	case CV_STR:
		return "a string";
	case CV_BOOL:
		return cv->boolval ? "true" : "false";
	case CV_OBJ:
		return "an object";
	case CV_ARR:
		return "an array";
	case CV_BADNUM:
		return "a number too large for a double (it reads as infinity)";
	}
	return "?";
}

const char *v_tok_describe(enum pc_jtype t)
{
	switch (t) {
	case PC_JT_OBJ_BEGIN:
		return "an object";
	case PC_JT_ARR_BEGIN:
		return "an array";
	case PC_JT_STRING:
		return "a string";
	case PC_JT_NUMBER:
		return "a number";
	case PC_JT_TRUE:
	case PC_JT_FALSE:
		return "a boolean";
	case PC_JT_NULL:
		return "null";
	default:
		return "no value";
	}
}

/* --- token helpers --- */

static void tok_to_cval(const struct pc_jtok *t, struct cval *cv)
{
	cv->integral = 0;
	cv->raw = NULL;
	switch (t->type) {
	case PC_JT_NUMBER:
		/* the readers' rule (pc_jpull.h): indexes in integer syntax only,
		 * every number finite */
		cv->t = pc_jnum_is_finite(t) ? CV_NUM : CV_BADNUM;
		cv->d = t->d;
		cv->raw = t->str;
		if (pc_jnum_is_index(t)) {
			cv->integral = 1;
			cv->i = t->i;
		}
		break;
	case PC_JT_STRING:
		cv->t = CV_STR;
		break;
	case PC_JT_TRUE:
	case PC_JT_FALSE:
		cv->t = CV_BOOL;
		cv->boolval = t->type == PC_JT_TRUE;
		break;
	case PC_JT_OBJ_BEGIN:
		cv->t = CV_OBJ;
		break;
	case PC_JT_ARR_BEGIN:
		cv->t = CV_ARR;
		break;
	default:
		cv->t = CV_NULL;
		break;
	}
}

/* Read one value into *cv; a container is skipped after its first token. */
int v_read_cval(struct vstate *v, struct cval *cv, enum pc_jtype *type)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jpull_next(v->p, &t);
	if (err)
		return err;
	*type = t->type;
	if (t->type == PC_JT_ARR_END || t->type == PC_JT_OBJ_END)
		return 0;
	tok_to_cval(t, cv);
	if (t->type == PC_JT_OBJ_BEGIN || t->type == PC_JT_ARR_BEGIN)
		return pc_jpull_skip_rest(v->p);
	return 0;
}

/* Consume one token (a '[' or ']' the caller has peeked). */
int v_consume(struct vstate *v)
{
	const struct pc_jtok *t;

	return pc_jpull_next(v->p, &t);
}

/* If the next value is not of type want, report it at the current path and skip it: returns 1. */
int v_expect(struct vstate *v, enum pc_jtype want, int *err)
{
	enum pc_jtype t;

	*err = pc_jpull_peek(v->p, &t);
	if (*err)
		return 1;
	if (t == want)
		return 0;
	v_problem(v, K_TYPE, "expected %s, got %s", v_tok_describe(want), v_tok_describe(t));
	*err = pc_jpull_skip_value(v->p);
	return 1;
}

/* Skip a value that must be an array (or is reported). */
static int skip_expect(struct vstate *v, enum pc_jtype want)
{
	int err;

	if (v_expect(v, want, &err))
		return err;
	return pc_jpull_skip_value(v->p);
}

/* --- pending index checks --- */

static void free_pending(struct vstate *v, struct pending *pd)
{
	pc_free(v->ctx, pd->path);
	pc_free(v->ctx, pd->v);
	pc_free(v->ctx, pd->sub);
	pc_free(v->ctx, pd);
}

static void pending_path(const struct pending *pd, int sub, uint32_t row, char *buf, size_t size)
{
	if (pd->pos >= 0)
		pc_snprintf(buf, size, "%s.data[%u][%d]", pd->path, row, sub ? pd->subpos : pd->pos);
	else
		pc_snprintf(buf, size, "%s.%s[%u]", pd->path, sub ? "subcategory" : pd->col, row);
}

static void run_pending(struct vstate *v, struct pending *pd, int64_t lim, int in_thread)
{
	const char *tname = in_thread ? thread_target_name[pd->tgt] : proc_target[pd->tgt];
	const char *unit = pd->tgt == T_STRINGS ? "strings" :
			   pd->tgt == T_LIBS || pd->tgt == T_CATEGORIES ? "entries" : "rows";
	char path[PATH_MAX_LEN + 64];
	uint32_t i;

	if (in_thread && pd->tgt == T_STRINGS)
		tname = pd->pos >= 0 ? "the thread's stringTable" : "the thread's stringArray";
	for (i = 0; i < pd->n; i++) {
		int32_t x = pd->v[i];

		if (x == S_NULL || x == S_BAD || x == -1)
			continue;
		if (x >= lim) {
			if (v->count[K_RANGE] < PC_VALIDATE_MAX_SHOWN) {
				pending_path(pd, 0, i, path, sizeof(path));
				v_problem_at(v, K_RANGE, path, "%s %d is out of range (%s has %lld %s)",
					   pd->col, x, tname, (long long)lim, unit);
			} else {
				v->count[K_RANGE]++;
			}
			continue;
		}
		if (!pd->sub)
			continue;
		/* a frame's category is set: its subcategory must be one of that category's */
		if (pd->sub[i] == S_NULL) {
			pending_path(pd, 1, i, path, sizeof(path));
			v_problem_at(v, K_CATEGORY, path,
				   "subcategory is null but the frame's category is %d", x);
		} else if (pd->sub[i] != S_BAD && v->prof->subcats &&
			   (uint32_t)pd->sub[i] >= v->prof->subcats[x]) {
			pending_path(pd, 1, i, path, sizeof(path));
			v_problem_at(v, K_CATEGORY, path,
				   "subcategory %d is out of range (category %d has %u subcategories)",
				   pd->sub[i], x, v->prof->subcats[x]);
		}
	}
}

/*
 * Whether pd's target is a table of the thread being parsed: always for
 * Gecko tables, and for processed ones only before they moved to
 * profile.shared (v60; the string table moved in v56).
 */
static int thread_owned(const struct vstate *v, const struct pending *pd)
{
	if (!v->thr || !thread_target(pd->tgt))
		return 0;
	if (pd->pos >= 0)
		return 1;
	if (v_processed_version(v) >= 60)
		return 0;
	return pd->tgt != T_STRINGS || v_processed_version(v) < 56;
}

/* Check pd now if its target's size is known, else queue it on its scope. */
void v_resolve_or_defer(struct vstate *v, struct pending *pd)
{
	int in_thread = thread_owned(v, pd);
	struct scope *s = in_thread ? v->thr : &v->prof->sc;

	if (s->lim[pd->tgt] >= 0) {
		run_pending(v, pd, s->lim[pd->tgt], in_thread);
		free_pending(v, pd);
		return;
	}
	pd->next = s->pending;
	s->pending = pd;
}

/*
 * At the end of a thread: check what its own tables allow, hand the rest
 * to the profile (a processed profile's shared tables may still come).
 */
static void flush_thread(struct vstate *v, struct scope *ts)
{
	struct pending *pd, *next, *rev = NULL;
	struct scope *saved = v->thr;

	for (pd = ts->pending; pd; pd = next) { /* oldest first */
		next = pd->next;
		pd->next = rev;
		rev = pd;
	}
	ts->pending = NULL;
	for (pd = rev; pd; pd = next) {
		next = pd->next;
		if (ts->lim[pd->tgt] >= 0) {
			run_pending(v, pd, ts->lim[pd->tgt], 1);
			free_pending(v, pd);
		} else if (pd->pos >= 0) {
			free_pending(v, pd); /* the Gecko table is missing: reported */
		} else {
			v->thr = NULL;
			v_resolve_or_defer(v, pd);
			v->thr = saved;
		}
	}
}

/* Run what can be run; drop the rest (their target is missing, already reported). */
static void flush_scope(struct vstate *v, struct scope *s)
{
	struct pending *pd, *next, *rev = NULL;

	for (pd = s->pending; pd; pd = next) { /* oldest first */
		next = pd->next;
		pd->next = rev;
		rev = pd;
	}
	for (pd = rev; pd; pd = next) {
		next = pd->next;
		if (s->lim[pd->tgt] >= 0)
			run_pending(v, pd, s->lim[pd->tgt], 0);
		free_pending(v, pd);
	}
	s->pending = NULL;
}

static void scope_init(struct scope *s)
{
	unsigned i;

	for (i = 0; i < NTARGETS; i++)
		s->lim[i] = -1;
	s->pending = NULL;
}

/* --- shared, threads --- */

static int parse_shared(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	int err;

	if (pr->shared_seen) {
		v_problem(v, K_VALUE, "duplicate shared");
		return pc_jpull_skip_value(v->p);
	}
	pr->shared_seen = 1;
	if (v_expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	while (!err) {
		char key[64];
		unsigned k;
		size_t old;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		old = v_path_push_key(v, key);
		if (strcmp(key, "stringArray") == 0) {
			int64_t n;

			err = v_parse_strings(v, &n);
			pr->shared_tables |= SHARED_STRINGS_BIT;
			if (n >= 0)
				pr->sc.lim[T_STRINGS] = n;
			v_path_pop(v, old);
			continue;
		}
		for (k = 0; k < PC_ARRAY_SIZE(shared_tables); k++)
			if (strcmp(key, shared_tables[k]->name) == 0)
				break;
		if (k < PC_ARRAY_SIZE(shared_tables)) {
			enum fmt layout;

			pr->shared_tables |= 1u << k;
			err = v_parse_table(v, shared_tables[k], NULL, &layout);
		} else {
			err = pc_jpull_skip_value(v->p);
		}
		v_path_pop(v, old);
	}
	return err;
}

enum thread_field {
	TF_NAME,
	TF_PID,
	TF_TID,
	TF_SAMPLES,
	TF_MARKERS,
	TF_STACKS,
	TF_FRAMES,
	TF_STRINGS,
	TF_PROCESS_TYPE,
	TF_IS_MAIN,
	TF_REGISTER,
	TF_UNREGISTER,
	TF_STARTUP,
	TF_SHUTDOWN,
	TF_PAUSED,
	TF_FUNCS,
	TF_RESOURCES,
	TF_NATSYMS,
	TF_STRING_ARRAY,
	TF_COUNT
};

static const char *const thread_fields[TF_COUNT] = {
	"name",	     "pid",	       "tid",	       "samples",	    "markers",
	"stackTable", "frameTable",    "stringTable", "processType",	    "isMainThread",
	"registerTime", "unregisterTime", "processStartupTime", "processShutdownTime", "pausedRanges",
	"funcTable",  "resourceTable", "nativeSymbols", "stringArray",
};

static void drop_scope(struct vstate *v, struct scope *s)
{
	struct pending *pd, *next;

	for (pd = s->pending; pd; pd = next) {
		next = pd->next;
		free_pending(v, pd);
	}
	s->pending = NULL;
}

static void thread_end(struct vstate *v, struct profile *pr, uint32_t idx, unsigned seen,
		       int gecko, enum pc_jtype pid_type)
{
	static const enum thread_field gecko_req[] = { TF_STRINGS, TF_SAMPLES, TF_MARKERS,
						       TF_FRAMES, TF_STACKS };
	static const enum thread_field proc_tables[] = { TF_STACKS, TF_FRAMES, TF_FUNCS,
							 TF_RESOURCES, TF_NATSYMS };
	static const enum thread_field proc_opt[] = { TF_NAME,	   TF_PROCESS_TYPE, TF_IS_MAIN,
						      TF_STARTUP,  TF_SHUTDOWN,	    TF_REGISTER,
						      TF_UNREGISTER, TF_PAUSED };
	unsigned k;

	v->st.threads++;
	if (gecko) {
		if (!pr->gecko_threads++)
			pr->first_gecko_thread = idx;
		for (k = 0; k < PC_ARRAY_SIZE(gecko_req); k++)
			if (!(seen & (1u << gecko_req[k])))
				v_problem(v, K_MISSING, "missing '%s'", thread_fields[gecko_req[k]]);
		if (!(seen & (1u << TF_TID)))
			v_problem(v, W_TID, "missing tid");
		return;
	}
	if (!pr->proc_threads++)
		pr->first_proc_thread = idx;
	if (!(seen & (1u << TF_SAMPLES)))
		v_problem(v, K_MISSING, "missing 'samples'");
	if (!(seen & (1u << TF_MARKERS)))
		v_problem(v, K_MISSING, "missing 'markers'");
	if (!(seen & (1u << TF_PID)))
		v_problem(v, W_PID, "missing pid (the format wants a string)");
	else if (pid_type == PC_JT_NUMBER && v_processed_version(v) >= 47)
		v_problem(v, W_PID, "pid is a number; the format wants a string (since v47)");
	else if (pid_type != PC_JT_STRING && pid_type != PC_JT_NUMBER)
		v_problem(v, K_TYPE, "pid: expected a string, got %s", v_tok_describe(pid_type));
	if (!(seen & (1u << TF_TID)))
		v_problem(v, W_TID, "missing tid");
	if (v_processed_version(v) < 60) {
		/* before v60 every thread had its own tables */
		for (k = 0; k < PC_ARRAY_SIZE(proc_tables); k++)
			if (!(seen & (1u << proc_tables[k])))
				v_problem(v, K_MISSING, "missing '%s' (per thread before v60)",
					thread_fields[proc_tables[k]]);
		if (v_processed_version(v) < 56 && !(seen & (1u << TF_STRING_ARRAY)))
			v_problem(v, K_MISSING, "missing 'stringArray' (per thread before v56)");
	}
	for (k = 0; k < PC_ARRAY_SIZE(proc_opt); k++)
		if (!(seen & (1u << proc_opt[k])) &&
		    (proc_opt[k] != TF_IS_MAIN || v_processed_version(v) >= 46))
			v_problem(v, W_OPTIONAL, "missing '%s' (the front-end tolerates it)",
				thread_fields[proc_opt[k]]);
}

static int parse_thread(struct vstate *v, struct profile *pr, uint32_t idx)
{
	enum pc_jtype pid_type = PC_JT_EOF;
	const struct pc_jtok *t;
	unsigned seen = 0;
	struct scope ts;
	int gecko = 0, proc = 0, err;

	if (v_expect(v, PC_JT_OBJ_BEGIN, &err))
		return err;
	scope_init(&ts);
	v->thr = &ts;
	err = pc_jpull_next(v->p, &t);
	while (!err) {
		enum pc_jtype type;
		enum fmt layout = F_UNKNOWN;
		char key[64];
		unsigned k;
		size_t old;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		for (k = 0; k < TF_COUNT; k++)
			if (strcmp(key, thread_fields[k]) == 0)
				break;
		if (k == TF_COUNT) {
			err = pc_jpull_skip_value(v->p);
			continue;
		}
		if (seen & (1u << k)) {
			old = v_path_push_key(v, key);
			v_problem(v, K_VALUE, "duplicate member");
			v_path_pop(v, old);
			err = pc_jpull_skip_value(v->p);
			continue;
		}
		seen |= 1u << k;
		old = v_path_push_key(v, key);
		switch ((enum thread_field)k) {
		case TF_SAMPLES:
			err = v_parse_table(v, &p_samples, &g_samples, &layout);
			break;
		case TF_MARKERS:
			err = v_parse_table(v, &p_markers, &g_markers, &layout);
			break;
		case TF_STACKS:
			err = v_parse_table(v, &p_stack, &g_stack, &layout);
			break;
		case TF_FRAMES:
			err = v_parse_table(v, &p_frame, &g_frame, &layout);
			break;
		case TF_FUNCS:
			err = v_parse_table(v, &p_func, NULL, &layout);
			break;
		case TF_RESOURCES:
			err = v_parse_table(v, &p_resource, NULL, &layout);
			break;
		case TF_NATSYMS:
			err = v_parse_table(v, &p_natsym, NULL, &layout);
			break;
		case TF_STRING_ARRAY: {
			int64_t n;

			err = v_parse_strings(v, &n);
			if (n >= 0)
				ts.lim[T_STRINGS] = n;
			break;
		}
		case TF_STRINGS: {
			int64_t n;

			gecko = 1;
			err = v_parse_strings(v, &n);
			if (n >= 0)
				ts.lim[T_STRINGS] = n;
			break;
		}
		case TF_PID:
			err = pc_jpull_peek(v->p, &pid_type);
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		case TF_NAME:
			err = skip_expect(v, PC_JT_STRING);
			break;
		case TF_PAUSED:
			err = skip_expect(v, PC_JT_ARR_BEGIN);
			break;
		case TF_PROCESS_TYPE:
			err = skip_expect(v, PC_JT_STRING);
			break;
		case TF_IS_MAIN:
			err = pc_jpull_peek(v->p, &type);
			if (!err && type != PC_JT_TRUE && type != PC_JT_FALSE)
				v_problem(v, K_TYPE, "expected true or false, got %s",
					v_tok_describe(type));
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		case TF_REGISTER:
		case TF_STARTUP:
		case TF_UNREGISTER:
		case TF_SHUTDOWN:
			err = pc_jpull_peek(v->p, &type);
			if (!err && type != PC_JT_NUMBER &&
			    (type != PC_JT_NULL || k == TF_REGISTER || k == TF_STARTUP))
				v_problem(v, K_TYPE, "expected a number%s, got %s",
					k == TF_REGISTER || k == TF_STARTUP ? "" : " or null",
					v_tok_describe(type));
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		case TF_TID:
			err = pc_jpull_peek(v->p, &type);
			if (!err && type != PC_JT_NUMBER && type != PC_JT_STRING)
				v_problem(v, K_TYPE, "expected a number or a string, got %s",
					v_tok_describe(type));
			if (!err)
				err = pc_jpull_skip_value(v->p);
			break;
		default:
			err = pc_jpull_skip_value(v->p);
			break;
		}
		if (layout == F_GECKO)
			gecko = 1;
		else if (layout == F_PROCESSED || k == TF_STRING_ARRAY)
			proc = 1;
		v_path_pop(v, old);
	}
	if (!gecko && !proc && pr->fmt == F_GECKO)
		gecko = 1; /* no tables at all: judge it by the profile's format */
	if (!err) {
		thread_end(v, pr, idx, seen, gecko, pid_type);
		flush_thread(v, &ts);
	} else {
		drop_scope(v, &ts);
	}
	v->thr = NULL;
	return err;
}

static int parse_threads(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	uint32_t i;
	int err;

	if (pr->threads_seen) {
		v_problem(v, K_VALUE, "duplicate threads");
		return pc_jpull_skip_value(v->p);
	}
	pr->threads_seen = 1;
	if (v_expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	for (i = 0; !err; i++) {
		size_t old;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		old = v_path_push_idx(v, i);
		err = parse_thread(v, pr, i);
		v_path_pop(v, old);
	}
	if (!err)
		err = pc_jpull_next(v->p, &t);
	return err;
}

/* --- profiles --- */

static int profile_init(struct vstate *v, struct profile *pr, int is_sub)
{
	memset(pr, 0, sizeof(*pr));
	scope_init(&pr->sc);
	pr->is_sub = is_sub;
	pr->first_gecko_thread = -1;
	pr->first_proc_thread = -1;
	pr->path = pc_strdup(v->ctx, v->path);
	return pr->path ? 0 : PROFCONV_ERR_NOMEM;
}

static void profile_free(struct vstate *v, struct profile *pr)
{
	drop_scope(v, &pr->sc);
	pc_free(v->ctx, pr->path);
	pc_free(v->ctx, pr->subcats);
	pc_free(v->ctx, pr->libs);
	pc_free(v->ctx, pr->libs_path);
}

static void join_path(char *buf, size_t size, const char *base, const char *key)
{
	pc_snprintf(buf, size, "%s%s%s", base, *base ? "." : "", key);
}

static void finish_profile(struct vstate *v, struct profile *pr)
{
	char path[PATH_MAX_LEN + 64];
	enum fmt f = pr->fmt;
	unsigned k;

	if (f == F_UNKNOWN) {
		if (pr->shared_seen || pr->proc_threads)
			f = F_PROCESSED;
		else if (pr->gecko_threads || pr->processes_seen || pr->sources_seen)
			f = F_GECKO;
		pr->fmt = f;
	}
	if (!pr->meta_seen)
		v_problem_at(v, K_MISSING, pr->path, "missing 'meta'");
	if (!pr->libs_seen)
		v_problem_at(v, K_MISSING, pr->path, "missing 'libs'");
	if (!pr->threads_seen)
		v_problem_at(v, K_MISSING, pr->path, "missing 'threads'");
	if (f == F_PROCESSED) {
		int ver = v_processed_version(v);

		join_path(path, sizeof(path), pr->path, "shared");
		if (!pr->shared_seen && ver < 56) {
			/* the tables are per thread */
		} else if (!pr->shared_seen) {
			v_problem_at(v, K_MISSING, pr->path, "missing 'shared'");
		} else if (ver < 60) {
			if (!(pr->shared_tables & SHARED_STRINGS_BIT))
				v_problem_at(v, K_MISSING, path, "missing 'stringArray'");
		} else {
			if (!(pr->shared_tables & SHARED_STRINGS_BIT))
				v_problem_at(v, K_MISSING, path, "missing 'stringArray'");
			for (k = 0; k < PC_ARRAY_SIZE(shared_tables); k++)
				if (!(pr->shared_tables & (1u << k)) && ver >= shared_minver[k])
					v_problem_at(v, K_MISSING, path, "missing '%s'",
						   shared_tables[k]->name);
		}
		if (pr->gecko_threads) {
			join_path(path, sizeof(path), pr->path, "threads");
			v_problem_at(v, K_LAYOUT, path,
				   "%u threads (the first is [%lld]) use the Gecko layout in a processed profile",
				   pr->gecko_threads, (long long)pr->first_gecko_thread);
		}
	} else if (f == F_GECKO) {
		if (!pr->processes_seen && !pr->is_sub) /* the front-end never reads nested ones */
			v_problem_at(v, K_MISSING, pr->path,
				   "missing 'processes' (the front-end fails: processes is not iterable)");
		if (!pr->paused_seen)
			v_problem_at(v, W_OPTIONAL, pr->path, "missing 'pausedRanges'");
		if (!pr->sources_seen && pr->version >= 33)
			v_problem_at(v, W_OPTIONAL, pr->path,
				   "missing 'sources' (part of the Gecko format since v33)");
		if (pr->shared_seen)
			v_problem_at(v, K_LAYOUT, pr->path,
				   "'shared' (processed format) in a Gecko profile");
		if (pr->proc_threads) {
			join_path(path, sizeof(path), pr->path, "threads");
			v_problem_at(v, K_LAYOUT, path,
				   "%u threads (the first is [%lld]) use the processed layout in a Gecko profile",
				   pr->proc_threads, (long long)pr->first_proc_thread);
		}
		v->st.processes++;
	}
	v_check_libs(v, pr, f);
	flush_scope(v, &pr->sc);
}

static int parse_profile_body(struct vstate *v, struct profile *pr);

static int parse_processes(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	enum pc_jtype type;
	uint32_t i;
	int err;

	pr->processes_seen = 1;
	if (v_expect(v, PC_JT_ARR_BEGIN, &err))
		return err;
	err = pc_jpull_next(v->p, &t);
	for (i = 0; !err; i++) {
		struct profile sub;
		size_t old;

		err = pc_jpull_peek(v->p, &type);
		if (err || type == PC_JT_ARR_END)
			break;
		old = v_path_push_idx(v, i);
		if (!v_expect(v, PC_JT_OBJ_BEGIN, &err)) {
			err = profile_init(v, &sub, 1);
			if (!err) {
				v->prof = &sub;
				err = parse_profile_body(v, &sub);
				if (!err)
					finish_profile(v, &sub);
				v->prof = pr;
			}
			profile_free(v, &sub);
		}
		v_path_pop(v, old);
	}
	if (!err)
		err = pc_jpull_next(v->p, &t);
	return err;
}

/* The members of a profile object, from its '{' to its '}'. */
static int parse_profile_body(struct vstate *v, struct profile *pr)
{
	const struct pc_jtok *t;
	int err;

	err = pc_jpull_next(v->p, &t);
	while (!err) {
		enum fmt layout;
		char key[64];
		size_t old;

		err = pc_jpull_next(v->p, &t);
		if (err || t->type == PC_JT_OBJ_END)
			break;
		pc_snprintf(key, sizeof(key), "%s", t->str);
		old = v_path_push_key(v, key);
		if (strcmp(key, "meta") == 0) {
			err = v_parse_meta(v, pr);
		} else if (strcmp(key, "libs") == 0) {
			err = v_parse_libs(v, pr);
		} else if (strcmp(key, "shared") == 0) {
			err = parse_shared(v, pr);
		} else if (strcmp(key, "threads") == 0) {
			err = parse_threads(v, pr);
		} else if (strcmp(key, "processes") == 0) {
			err = parse_processes(v, pr);
		} else if (strcmp(key, "pausedRanges") == 0) {
			pr->paused_seen = 1;
			err = skip_expect(v, PC_JT_ARR_BEGIN);
		} else if (strcmp(key, "sources") == 0) {
			pr->sources_seen = 1;
			err = v_parse_table(v, NULL, &g_source, &layout);
		} else if (strcmp(key, "pages") == 0 || strcmp(key, "counters") == 0) {
			err = skip_expect(v, PC_JT_ARR_BEGIN);
		} else {
			err = pc_jpull_skip_value(v->p);
		}
		v_path_pop(v, old);
	}
	return err;
}

/* --- the entry point --- */

/* "12 threads" + sep, or "1 thread" + sep. */
static size_t count_word(char *buf, size_t size, uint64_t n, const char *word, const char *sep)
{
	const char *suffix = n == 1 ? "" : strcmp(word, "process") == 0 ? "es" : "s";

	return pc_snprintf(buf, size, "%llu %s%s%s", (unsigned long long)n, word, suffix, sep);
}

static void summary(struct vstate *v, const struct profile *top, struct pc_text_out *out)
{
	const char *what = top->fmt == F_PROCESSED ? "processed profile" :
			   top->fmt == F_GECKO	   ? "Gecko profile" :
						     "profile of unknown format";
	uint64_t errors = 0, warnings = 0;
	char ver[32] = "", line[1024];
	size_t n = 0;
	unsigned k;
	int first;

	for (k = 0; k < NKINDS; k++) {
		if (kinds[k].warn)
			warnings += v->count[k];
		else
			errors += v->count[k];
	}
	if (top->fmt == F_PROCESSED && top->has_pver)
		pc_snprintf(ver, sizeof(ver), " v%lld", (long long)top->pver);
	else if (top->fmt == F_GECKO && top->has_version)
		pc_snprintf(ver, sizeof(ver), " v%lld", (long long)top->version);
	if (errors) {
		n += pc_snprintf(line + n, sizeof(line) - n, "%s: INVALID %s%s: %llu problem%s (",
				 v->name, what, ver, (unsigned long long)errors,
				 errors == 1 ? "" : "s");
		for (k = 0, first = 1; k < NKINDS; k++) {
			if (kinds[k].warn || !v->count[k])
				continue;
			n += pc_snprintf(line + n, sizeof(line) - n, "%s%llu %s", first ? "" : ", ",
					 (unsigned long long)v->count[k], kinds[k].name);
			first = 0;
		}
		n += pc_snprintf(line + n, sizeof(line) - n, ")");
	} else {
		n += pc_snprintf(line + n, sizeof(line) - n, "%s: valid %s%s: ", v->name, what, ver);
		if (top->fmt == F_GECKO)
			n += count_word(line + n, sizeof(line) - n, v->st.processes, "process", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.threads, "thread", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.samples, "sample", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.stacks, "stack", ", ");
		n += count_word(line + n, sizeof(line) - n, v->st.frames, "frame", ", ");
		if (top->fmt == F_GECKO)
			n += count_word(line + n, sizeof(line) - n, v->st.markers, "marker", "");
		else
			n += count_word(line + n, sizeof(line) - n, v->st.funcs, "func", "");
	}
	if (warnings) {
		n += pc_snprintf(line + n, sizeof(line) - n, "; %llu warning%s (",
				 (unsigned long long)warnings, warnings == 1 ? "" : "s");
		for (k = 0, first = 1; k < NKINDS; k++) {
			if (!kinds[k].warn || !v->count[k])
				continue;
			n += pc_snprintf(line + n, sizeof(line) - n, "%s%llu %s", first ? "" : ", ",
					 (unsigned long long)v->count[k], kinds[k].name);
			first = 0;
		}
		n += pc_snprintf(line + n, sizeof(line) - n, ")");
	}
	/* 69 is what the deployed front-end reads at most (and what we write) */
	if (top->fmt == F_PROCESSED && top->has_pver && top->pver < PROCESSED_VERSION - 1)
		n += pc_snprintf(line + n, sizeof(line) - n,
				 "; note: v%lld is older than v%d, the front-end upgrades it on load",
				 (long long)top->pver, PROCESSED_VERSION);
	else if (top->fmt == F_GECKO && top->has_version && top->version < GECKO_VERSION)
		n += pc_snprintf(line + n, sizeof(line) - n,
				 "; note: v%lld is older than v%d, the front-end upgrades it on load",
				 (long long)top->version, GECKO_VERSION);
	pc_text_printf(out, "%s\n", line);
}

/*
 * Captured text goes to cJSON, which refuses lone surrogate escapes that
 * JSON allows: they become U+FFFD first (the pull tokenizer counted them),
 * and the path of the first is kept for the warning.
 */
void v_note_surrogates(struct vstate *v, char *raw, size_t len, const char *base)
{
	char path[256];

	if (pc_json_fix_surrogates(raw, len, base, path, sizeof(path)) && !v->surrogate_path[0])
		pc_snprintf(v->surrogate_path, sizeof(v->surrogate_path), "%s", path);
}

int pc_validate(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out)
{
	struct vstate v;
	struct profile top;
	enum pc_jtype type;
	uint64_t errors = 0;
	unsigned k;
	int err;

	memset(&v, 0, sizeof(v));
	v.ctx = ctx;
	v.name = pc_input_name(in);
	err = pc_jpull_new(ctx, in, NULL, &v.p);
	if (err)
		return err;
	err = profile_init(&v, &top, 0);
	if (err) {
		pc_jpull_free(v.p);
		return err;
	}
	v.prof = &top;
	err = pc_jpull_peek(v.p, &type);
	if (!err) {
		if (type == PC_JT_OBJ_BEGIN) {
			err = parse_profile_body(&v, &top);
		} else {
			v_problem(&v, K_TYPE,
				"the top-level value is %s, not an object: not a Firefox profile",
				v_tok_describe(type));
			err = pc_jpull_skip_value(v.p);
		}
	}
	if (!err) {
		const struct pc_jtok *t;

		err = pc_jpull_next(v.p, &t); /* end of input: only whitespace may follow */
	}
	if (!err) {
		finish_profile(&v, &top);
		if (pc_jpull_bad_utf8(v.p))
			v_problem(&v, W_UTF8,
				"%llu strings hold invalid UTF-8 or lone surrogates (shown as U+FFFD)%s%s",
				(unsigned long long)pc_jpull_bad_utf8(v.p),
				v.surrogate_path[0] ? "; the first lone surrogate is at " : "",
				v.surrogate_path);
		for (k = 0; k < NKINDS; k++) {
			if (!kinds[k].warn)
				errors += v.count[k];
			if (v.count[k] > PC_VALIDATE_MAX_SHOWN && pc_has_diag(ctx)) {
				char msg[256];

				pc_snprintf(msg, sizeof(msg), "%s: %llu more '%s' problems not shown",
					    v.name,
					    (unsigned long long)(v.count[k] - PC_VALIDATE_MAX_SHOWN),
					    kinds[k].name);
				(kinds[k].warn ? pc_diag_warning : pc_diag_error)(ctx, msg);
			}
		}
		summary(&v, &top, out);
		if (!err && out->err)
			err = pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: writing the summary failed",
				      v.name);
	}
	profile_free(&v, &top);
	pc_jpull_free(v.p);
	if (err)
		return err;
	return errors ? PROFCONV_ERR_INVALID : 0;
}
