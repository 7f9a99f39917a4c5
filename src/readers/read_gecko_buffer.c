/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read_gecko_buffer.c - a PGKB dump of Firefox's profiler buffer
 * (docs/formats/gecko-buffer-dump.md) into the model.
 *
 * This file reads the container: the header, the sections (any order,
 * unknown ones skipped by length) and the side tables the buffer's pointers
 * and tags need (entry kinds by name, categories, static strings, libs,
 * threads, marker types, counters).  gbuf_decode.c walks the buffer itself.
 *
 * The input is read whole into memory (a dump is the size of the profiler's
 * buffer: a few MiB to a few dozen), counted against the ctx memory limit;
 * every count read from it is checked against the bytes left in its section
 * before anything is allocated.  What the dump lacks degrades with a counted
 * warning (unknown kinds skipped, unresolved pointers as 0x labels, marker
 * payloads without a field table kept as {type}).
 */
#include "readers/pc_gbuf.h"
#include "json/pc_validate.h"

#include <math.h>
#include <stdlib.h>

static int bid(const unsigned char *peek, size_t len)
{
	return len >= 8 && memcmp(peek, PGKB_MAGIC, 8) == 0 ? 64 : 0;
}

int gb_nomem(struct gb *g)
{
	return g->ctx->status ? g->ctx->status : pc_fail(g->ctx, PROFCONV_ERR_NOMEM, NULL,
							  "%s: out of memory", g->path);
}

static int slurp(struct gb *g, struct pc_input *in)
{
	size_t cap = 0;

	for (;;) {
		size_t got = 0, want;
		int err;

		if (g->flen == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			unsigned char *np;

			if (ncap < cap)
				return pc_fail(g->ctx, PROFCONV_ERR_LIMIT, NULL, "%s: too large",
					       g->path);
			np = pc_realloc(g->ctx, g->file, ncap);
			if (!np)
				return gb_nomem(g);
			g->file = np;
			cap = ncap;
		}
		want = cap - g->flen;
		err = pc_input_read(in, g->file + g->flen, want, &got);
		if (err)
			return err;
		g->flen += got;
		if (got < want)
			return 0;
	}
}

static int corrupt(struct gb *g, uint64_t off, const char *what)
{
	return pc_fail_at(g->ctx, PROFCONV_ERR_CORRUPT, g->path, off, "%s", what);
}

/* --- lookups --- */

const struct gb_str *gb_find_str(const struct gb *g, uint64_t addr)
{
	uint32_t lo = 0, hi = g->nstrs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->strs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nstrs && g->strs[lo].addr == addr ? &g->strs[lo] : NULL;
}

const struct gb_jit *gb_find_jit(const struct gb *g, uint64_t addr)
{
	uint32_t lo = 0, hi = g->njit;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->jit[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->njit && g->jit[lo].addr == addr ? &g->jit[lo] : NULL;
}

const struct gb_lib *gb_find_lib(const struct gb *g, uint64_t addr)
{
	uint32_t lo = 0, hi = g->nlibs;

	/* the last mapping starting at or before addr */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->libs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < g->libs[lo - 1].end ? &g->libs[lo - 1] : NULL;
}

/* The thread state of tid, adding the model thread on first use; NULL on OOM. */
struct gb_tstate *gb_thread(struct gb *g, uint64_t tid)
{
	struct gb_tstate *s;
	struct pc_thread *t;
	uint32_t i;
	char name[64];
	const char *nm = NULL;
	size_t nlen = 0;
	double reg_ms = 0;

	uint32_t h;

	if (g->ts_slots) {
		for (h = (uint32_t)pc_hash64(tid) & g->ts_mask; g->ts_slots[h];
		     h = (h + 1) & g->ts_mask)
			if (g->ts[g->ts_slots[h] - 1].tid == tid)
				return &g->ts[g->ts_slots[h] - 1];
	}
	/* keep the table at most half full */
	if ((uint64_t)(g->nts + 1) * 2 > (uint64_t)(g->ts_slots ? g->ts_mask + 1 : 0)) {
		uint32_t nslots = g->ts_slots ? (g->ts_mask + 1) * 2 : 64;
		uint32_t *ns = pc_calloc(g->ctx, nslots, sizeof(*ns));

		if (!ns)
			return NULL;
		for (i = 0; i < g->nts; i++) {
			for (h = (uint32_t)pc_hash64(g->ts[i].tid) & (nslots - 1); ns[h];
			     h = (h + 1) & (nslots - 1))
				;
			ns[h] = i + 1;
		}
		pc_free(g->ctx, g->ts_slots);
		g->ts_slots = ns;
		g->ts_mask = nslots - 1;
	}
	if (pc_grow(g->ctx, (void **)&g->ts, sizeof(*g->ts), &g->ts_cap, (size_t)g->nts + 1))
		return NULL;
	t = pc_thread_add(g->m, (int64_t)g->pid, (int64_t)tid);
	if (!t)
		return NULL;
	for (i = 0; i < g->nthr; i++) {
		if (g->thr[i].tid == tid) {
			nm = g->thr[i].name;
			nlen = g->thr[i].name_len;
			t->is_main = (uint8_t)g->thr[i].is_main;
			reg_ms = g->thr[i].register_ms;
			break;
		}
	}
	if (!nm) {
		nlen = pc_snprintf(name, sizeof(name), "Thread %llu", (unsigned long long)tid);
		nm = name;
	}
	t->name = pc_str_intern(g->m, nm, nlen);
	if (t->name == PC_NONE)
		return NULL;
	if (tid == g->pid)
		t->is_main = 1;
	t->register_time = (int64_t)(reg_ms * 1e6);
	for (h = (uint32_t)pc_hash64(tid) & g->ts_mask; g->ts_slots[h]; h = (h + 1) & g->ts_mask)
		;
	g->ts_slots[h] = g->nts + 1;
	s = &g->ts[g->nts++];
	s->tid = tid;
	s->t = t;
	s->last_stack = PC_NONE;
	s->has_last = 0;
	return s;
}

/* --- sections --- */

static const char *const kind_names[GK_COUNT_OF_KINDS] = {
	[GK_CATEGORY_PAIR] = "CategoryPair",
	[GK_COLLECTION_START] = "CollectionStart",
	[GK_COLLECTION_END] = "CollectionEnd",
	[GK_LABEL] = "Label",
	[GK_FRAME_FLAGS] = "FrameFlags",
	[GK_DYNAMIC_STRING_FRAGMENT] = "DynamicStringFragment",
	[GK_JIT_RETURN_ADDR] = "JitReturnAddr",
	[GK_INNER_WINDOW_ID] = "InnerWindowID",
	[GK_SOURCE_ID] = "SourceId",
	[GK_LINE_NUMBER] = "LineNumber",
	[GK_COLUMN_NUMBER] = "ColumnNumber",
	[GK_NATIVE_LEAF_ADDR] = "NativeLeafAddr",
	[GK_PAUSE] = "Pause",
	[GK_RESUME] = "Resume",
	[GK_PAUSE_SAMPLING] = "PauseSampling",
	[GK_RESUME_SAMPLING] = "ResumeSampling",
	[GK_RESPONSIVENESS] = "Responsiveness",
	[GK_THREAD_ID] = "ThreadId",
	[GK_TIME] = "Time",
	[GK_TIME_BEFORE_COMPACT_STACK] = "TimeBeforeCompactStack",
	[GK_TIME_BEFORE_SAME_SAMPLE] = "TimeBeforeSameSample",
	[GK_COUNTER_ID] = "CounterId",
	[GK_NUMBER] = "Number",
	[GK_COUNT] = "Count",
	[GK_OVERHEAD_TIME] = "ProfilerOverheadTime",
	[GK_OVERHEAD_DURATION] = "ProfilerOverheadDuration",
	[GK_MARKER] = "Marker",
	[GK_RUNNING_TIMES] = "RunningTimes",
	[GK_UNRESPONSIVE_DURATION_MS] = "UnresponsiveDurationMs",
	[GK_COMPACT_STACK] = "CompactStack",
	[GK_SAME_SAMPLE] = "SameSample",
};

static int name_is(const char *s, size_t len, const char *z)
{
	return strlen(z) == len && memcmp(s, z, len) == 0;
}

static int sec_kind(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i;

	/* each row is at least 3 bytes */
	if (n > pgkb_left(c) / 3)
		c->bad = 1;
	for (i = 0; i < n && !c->bad; i++) {
		uint8_t tag = pgkb_u8(c);
		size_t len;
		const char *s = pgkb_str(c, &len);
		unsigned k;

		pgkb_u8(c); /* payload size: the decoder knows each kind's own */
		for (k = 1; k < GK_COUNT_OF_KINDS; k++)
			if (name_is(s, len, kind_names[k]) ||
			    (k == GK_SOURCE_ID && name_is(s, len, "ScriptId")))
				break;
		g->kind_of_tag[tag] = k < GK_COUNT_OF_KINDS ? (uint8_t)k : GK_NONE;
	}
	g->kind_of_tag[0] = GK_NONE;
	return c->bad;
}

/* the largest META epoch (ms) whose ns fit int64 (the year 2255) */
#define PGKB_MAX_EPOCH_MS 9e12

static int sec_meta(struct gb *g, struct pgkb_cur *c)
{
	size_t len;
	const char *s;
	uint64_t n, i;
	struct pc_model *m = g->m;
	char buf[256];

	s = pgkb_str(c, &len); /* product */
	if (len && len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = 0;
		if (pc_meta_set(m, &m->meta.product, buf))
			return -1;
	}
	pgkb_str(c, &len); /* gecko_version */
	pgkb_str(c, &len); /* build_id */
	pgkb_str(c, &len); /* source_stamp */
	pgkb_u32(c);
	g->pid = pgkb_u64(c);
	pgkb_u32(c);
	s = pgkb_str(c, &len); /* process type name */
	if (!c->bad && len) {
		const char *k = pc_model_keep(m, s, len);

		g->proc = pc_process_get(m, (int64_t)g->pid);
		if (!k || g->proc == PC_NONE)
			return -1;
		m->processes.rows[g->proc].type = k;
	}
	s = pgkb_str(c, &len); /* process name */
	if (!c->bad && len) {
		const char *k = pc_model_keep(m, s, len);

		g->proc = pc_process_get(m, (int64_t)g->pid);
		if (!k || g->proc == PC_NONE)
			return -1;
		m->processes.rows[g->proc].name = k;
	}
	g->epoch_ms = pgkb_f64(c);
	g->start_ticks = pgkb_u64(c);
	g->ticks_per_ms = pgkb_f64(c);
	pgkb_str(c, &len); /* clock */
	pgkb_f64(c);
	pgkb_f64(c);
	g->interval_ms = pgkb_f64(c);
	pgkb_u32(c);
	n = pgkb_uleb(c);
	for (i = 0; i < n && !c->bad; i++)
		pgkb_str(c, &len);
	n = pgkb_uleb(c);
	for (i = 0; i < n && !c->bad; i++)
		pgkb_str(c, &len);
	s = pgkb_str(c, &len);
	if (!c->bad && len && pc_meta_keep(m, &m->meta.platform, pc_model_keep(m, s, len)))
		return -1;
	s = pgkb_str(c, &len);
	if (!c->bad && len && pc_meta_keep(m, &m->meta.oscpu, pc_model_keep(m, s, len)))
		return -1;
	s = pgkb_str(c, &len);
	if (!c->bad && len && pc_meta_keep(m, &m->meta.abi, pc_model_keep(m, s, len)))
		return -1;
	pgkb_str(c, &len); /* toolkit */
	s = pgkb_str(c, &len);
	if (!c->bad && len && pc_meta_keep(m, &m->meta.unit_cpu_delta, pc_model_keep(m, s, len)))
		return -1;
	if (pgkb_left(c))
		g->start_estimated = pgkb_u8(c) & 1;
	if (c->bad)
		return 1;
	/* every double from the file range-checked before any cast: a tick rate
	 * from one tick a second to a tick a femtosecond (1e6: Linux ns) */
	if (!(g->ticks_per_ms >= 1e-3 && g->ticks_per_ms <= 1e12)) {
		g->w_meta++;
		g->ticks_per_ms = 1e6;
	}
	if (g->epoch_ms != 0 && !(g->epoch_ms > 0 && g->epoch_ms < PGKB_MAX_EPOCH_MS)) {
		g->w_meta++;
		g->epoch_ms = 0; /* unknown */
	}
	if (g->interval_ms != 0 && !(g->interval_ms > 0 && g->interval_ms < 1e9))
		g->w_meta++; /* the default 1 ms below */
	return 0;
}

static int sec_cats(struct gb *g, struct pgkb_cur *c)
{
	struct pc_model *m = g->m;
	uint64_t n = pgkb_uleb(c), i, j;
	uint32_t cap = 0;

	if (n == 0 || n > pgkb_left(c) / 3 || n >= PC_NO_CATEGORY)
		return 1;
	pc_model_clear_categories(m);
	for (i = 0; i < n && !c->bad; i++) {
		size_t nl, cl;
		const char *nm = pgkb_str(c, &nl), *col = pgkb_str(c, &cl);
		uint64_t ns;
		uint16_t ci;

		if (c->bad)
			break;
		nm = pc_model_keep(m, nm, nl);
		col = pc_model_keep(m, col, cl);
		if (!nm || !col)
			return -1;
		if (!pc_category_color_known(col)) {
			g->w_color++; /* validate would reject it: grey, as the JSON readers do */
			col = "grey";
		}
		ci = pc_model_add_category(m, nm, col);
		if (ci == PC_NO_CATEGORY)
			return -1;
		ns = pgkb_uleb(c);
		if (ns > pgkb_left(c) || ns >= PC_NO_CATEGORY)
			return 1;
		if (ns)
			m->categories[ci].nsub = 0;
		for (j = 0; j < ns && !c->bad; j++) {
			size_t sl;
			const char *sn = pgkb_str(c, &sl);
			uint16_t si;

			if (c->bad)
				break;
			sn = pc_model_keep(m, sn, sl);
			if (!sn)
				return -1;
			si = pc_model_add_subcategory(m, ci, sn);
			if (si == PC_NO_CATEGORY)
				return -1;
			if (pc_grow(g->ctx, (void **)&g->pair_cat, sizeof(*g->pair_cat), &cap,
				    (size_t)g->npairs + 1))
				return -1;
			g->pair_cat[g->npairs++] = ci;
		}
		if (!ns) {
			if (pc_grow(g->ctx, (void **)&g->pair_cat, sizeof(*g->pair_cat), &cap,
				    (size_t)g->npairs + 1))
				return -1;
			g->pair_cat[g->npairs++] = ci;
		}
	}
	if (c->bad)
		return 1;
	/* subcategory of each pair: its position within its category */
	g->pair_sub = pc_calloc(g->ctx, g->npairs ? g->npairs : 1, sizeof(*g->pair_sub));
	if (!g->pair_sub)
		return -1;
	for (i = 1; i < g->npairs; i++)
		g->pair_sub[i] = g->pair_cat[i] == g->pair_cat[i - 1] ? g->pair_sub[i - 1] + 1 : 0;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	const struct gb_str *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sec_strs(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i;

	if (n > pgkb_left(c) / 9)
		return 1;
	g->strs = pc_calloc(g->ctx, n ? n : 1, sizeof(*g->strs));
	if (!g->strs)
		return -1;
	for (i = 0; i < n && !c->bad; i++) {
		g->strs[i].addr = pgkb_u64(c);
		g->strs[i].s = pgkb_str(c, &g->strs[i].len);
	}
	if (c->bad)
		return 1;
	g->nstrs = (uint32_t)n;
	qsort(g->strs, n, sizeof(*g->strs), cmp_str);
	return 0;
}

static int cmp_lib(const void *a, const void *b)
{
	const struct gb_lib *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int sec_libs(struct gb *g, struct pgkb_cur *c)
{
	struct pc_model *m = g->m;
	uint64_t n = pgkb_uleb(c), i;

	/* 24 bytes of addresses and 7 strings per row */
	if (n > pgkb_left(c) / 31)
		return 1;
	g->libs = pc_calloc(g->ctx, n ? n : 1, sizeof(*g->libs));
	if (!g->libs)
		return -1;
	if (g->proc == PC_NONE) {
		g->proc = pc_process_get(m, (int64_t)g->pid);
		if (g->proc == PC_NONE)
			return -1;
	}
	for (i = 0; i < n && !c->bad; i++) {
		struct gb_lib *l = &g->libs[i];
		const char *f[7];
		size_t fl[7];
		struct pc_lib lib;
		uint32_t j, row = PC_NONE, path;
		int k;

		l->start = pgkb_u64(c);
		l->end = pgkb_u64(c);
		l->offset = pgkb_u64(c);
		for (k = 0; k < 7; k++)
			f[k] = pgkb_str(c, &fl[k]);
		if (c->bad)
			break;
		path = pc_str_intern(m, f[1], fl[1]);
		if (path == PC_NONE)
			return -1;
		/* one model lib per path, each mapping recorded in the process */
		if (path >= g->lib_of_path_cap) {
			uint32_t old_cap = g->lib_of_path_cap;

			if (pc_grow(g->ctx, (void **)&g->lib_of_path, sizeof(*g->lib_of_path),
				    &g->lib_of_path_cap, (size_t)path + 1))
				return -1;
			for (j = old_cap; j < g->lib_of_path_cap; j++)
				g->lib_of_path[j] = PC_NONE;
		}
		row = g->lib_of_path[path];
		if (row == PC_NONE) {
			memset(&lib, 0, sizeof(lib));
			lib.name = pc_str_intern(m, f[0], fl[0]);
			lib.path = path;
			lib.debug_name = pc_str_intern(m, f[2], fl[2]);
			lib.debug_path = pc_str_intern(m, f[3], fl[3]);
			lib.breakpad_id = pc_str_intern(m, f[4], fl[4]);
			lib.code_id = fl[5] ? pc_str_intern(m, f[5], fl[5]) : PC_NONE;
			lib.arch = fl[6] ? pc_str_intern(m, f[6], fl[6]) : PC_NONE;
			if (lib.name == PC_NONE || lib.debug_name == PC_NONE ||
			    lib.debug_path == PC_NONE || lib.breakpad_id == PC_NONE)
				return -1;
			lib.resource = pc_resource_intern(m, lib.name, PC_NONE, PC_RES_LIBRARY,
							  m->libs.len);
			if (lib.resource == PC_NONE)
				return -1;
			row = pc_lib_add(m, &lib);
			if (row == PC_NONE)
				return -1;
			g->lib_of_path[path] = row;
		}
		l->lib = row;
		if (l->end > l->start &&
		    pc_process_add_mapping(m, g->proc, row, l->start, l->end, l->offset))
			return -1;
	}
	if (c->bad)
		return 1;
	g->nlibs = (uint32_t)n;
	qsort(g->libs, n, sizeof(*g->libs), cmp_lib);
	return pc_process_sort_maps(m, g->proc) ? -1 : 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct gb_sym *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * SYMS: symbols of an image whose file is not on the machine (the vdso
 * read from the process), for the LIBS mapping that starts at start.
 */
static int sec_syms(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i, total = 0;
	size_t mark = c->pos;

	/* count first: one array for all (a u64, a u32 and a str per row) */
	if (n > pgkb_left(c) / 9)
		return 1;
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t m, j;
		size_t len;

		pgkb_u64(c);
		m = pgkb_uleb(c);
		if (m > pgkb_left(c) / 13)
			return 1;
		for (j = 0; j < m && !c->bad; j++) {
			pgkb_u64(c);
			pgkb_u32(c);
			pgkb_str(c, &len);
		}
		total += m;
	}
	if (c->bad || total > UINT32_MAX)
		return 1;
	g->syms = pc_calloc(g->ctx, total ? total : 1, sizeof(*g->syms));
	if (!g->syms)
		return -1;
	c->pos = mark;
	for (i = 0; i < n; i++) {
		uint64_t start = pgkb_u64(c), m = pgkb_uleb(c), j;
		struct gb_lib *l = (struct gb_lib *)gb_find_lib(g, start);
		uint32_t first = g->nsyms;

		for (j = 0; j < m; j++) {
			struct gb_sym *s = &g->syms[g->nsyms++];

			s->off = pgkb_u64(c);
			s->size = pgkb_u32(c);
			s->name = pgkb_str(c, &s->len);
		}
		qsort(g->syms + first, (size_t)m, sizeof(*g->syms), cmp_sym);
		/* a row for a mapping LIBS does not have is of no use */
		if (l && l->start == start) {
			l->syms = g->syms + first;
			l->nsyms = (uint32_t)m;
		}
	}
	return c->bad;
}

static int cmp_jit(const void *a, const void *b)
{
	const struct gb_jit *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* JITF: the frames of the buffer's JIT return addresses (buffer ranges: all one here). */
static int sec_jitf(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i, naddr = 0, nfr = 0;
	size_t mark = c->pos;

	if (n > pgkb_left(c) / 17)
		return 1;
	/* count first (an address is at least 9 bytes, a frame 14) */
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t m, j;

		pgkb_u64(c);
		pgkb_u64(c);
		m = pgkb_uleb(c);
		if (m > pgkb_left(c) / 9)
			return 1;
		for (j = 0; j < m && !c->bad; j++) {
			uint64_t k, q;
			size_t len;

			pgkb_u64(c);
			k = pgkb_uleb(c);
			if (k > pgkb_left(c) / 14)
				return 1;
			for (q = 0; q < k && !c->bad; q++) {
				pgkb_str(c, &len);
				pgkb_take(c, 13);
			}
			nfr += k;
		}
		naddr += m;
	}
	if (c->bad || naddr > UINT32_MAX || nfr > UINT32_MAX)
		return 1;
	g->jit = pc_calloc(g->ctx, naddr ? naddr : 1, sizeof(*g->jit));
	g->jitfr = pc_calloc(g->ctx, nfr ? nfr : 1, sizeof(*g->jitfr));
	if (!g->jit || !g->jitfr)
		return -1;
	c->pos = mark;
	for (i = 0; i < n; i++) {
		uint64_t m, j;

		pgkb_u64(c);
		pgkb_u64(c);
		m = pgkb_uleb(c);
		for (j = 0; j < m; j++) {
			struct gb_jit *a = &g->jit[g->njit++];
			uint64_t k, q;

			a->addr = pgkb_u64(c);
			k = pgkb_uleb(c);
			a->first = g->njitfr;
			a->count = (uint32_t)k;
			for (q = 0; q < k; q++) {
				struct gb_jit_frame *f = &g->jitfr[g->njitfr++];

				f->label = pgkb_str(c, &f->len);
				pgkb_u8(c); /* implementation: the model keeps none */
				f->line = pgkb_u32(c);
				f->column = pgkb_u32(c);
				f->pair = pgkb_u32(c);
			}
		}
	}
	/* an address listed twice: its first rows */
	qsort(g->jit, g->njit, sizeof(*g->jit), cmp_jit);
	return c->bad;
}

static int sec_thrd(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i;

	if (n > pgkb_left(c) / 27)
		return 1;
	g->thr = pc_calloc(g->ctx, n ? n : 1, sizeof(*g->thr));
	if (!g->thr)
		return -1;
	for (i = 0; i < n && !c->bad; i++) {
		g->thr[i].tid = pgkb_u64(c);
		g->thr[i].name = pgkb_str(c, &g->thr[i].name_len);
		g->thr[i].is_main = pgkb_u8(c) & 1;
		g->thr[i].register_ms = pgkb_f64(c);
		/* ms since the time base: within the ~285 years of int64 ns, else unknown */
		if (!(g->thr[i].register_ms > 0 && g->thr[i].register_ms < 9e12))
			g->thr[i].register_ms = 0;
		pgkb_f64(c);
		pgkb_u8(c);
	}
	g->nthr = c->bad ? 0 : (uint32_t)n;
	return c->bad;
}

/* A marker schema for a type whose fields are known: where the front-end shows them. */
static int add_schema(struct gb *g, const struct gb_mtype *t)
{
	static const char *const display[] = { "marker-chart", "marker-table", "marker-tooltip",
					       NULL };
	struct pc_schema_field f[32];
	const char *name = pc_model_keep(g->m, t->name, t->name_len);
	uint32_t i, n = t->nfields < 32 ? t->nfields : 32;

	if (!name)
		return -1;
	if (pc_schema_find(g->m, name) != PC_NONE)
		return 0;
	for (i = 0; i < n; i++) {
		f[i].key = pc_model_keep(g->m, t->fields[i].key, t->fields[i].key_len);
		f[i].label = t->fields[i].label;
		f[i].format = t->fields[i].format;
		f[i].hidden = 0;
		if (!f[i].key)
			return -1;
	}
	return pc_schema_add_simple(g->m, name, display, f, n, NULL, NULL, NULL, NULL) == PC_NONE
		       ? -1
		       : 0;
}

static int sec_mtyp(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i, j;

	if (n > pgkb_left(c) / 6 || n > 2 * 256)
		return 1;
	g->mtypes = pc_calloc(g->ctx, n ? n : 1, sizeof(*g->mtypes));
	if (!g->mtypes)
		return -1;
	for (i = 0; i < n && !c->bad; i++) {
		struct gb_mtype *t = &g->mtypes[i];
		uint8_t pt = pgkb_u8(c), tag = pgkb_u8(c);
		uint64_t nf;
		size_t len;

		t->name = pgkb_str(c, &t->name_len);
		t->complete = pgkb_u8(c) & 1;
		nf = pgkb_uleb(c);
		if (nf > pgkb_left(c) / 7)
			return 1;
		t->fields = pc_calloc(g->ctx, nf ? nf : 1, sizeof(*t->fields));
		if (!t->fields)
			return -1;
		g->nmtypes = (uint32_t)i + 1; /* freed with the table from here on */
		for (j = 0; j < nf && !c->bad; j++) {
			const char *lb, *fm;
			size_t ll, fl;

			t->fields[j].key = pgkb_str(c, &t->fields[j].key_len);
			t->fields[j].type = pgkb_u8(c);
			t->fields[j].flags = pgkb_u8(c);
			lb = pgkb_str(c, &ll);
			fm = pgkb_str(c, &fl);
			pgkb_u8(c); /* searchable */
			t->fields[j].label = pc_model_keep(g->m, lb, ll);
			t->fields[j].format = pc_model_keep(g->m, fl ? fm : "string", fl ? fl : 6);
			if (!t->fields[j].label || !t->fields[j].format)
				return -1;
		}
		t->nfields = (uint32_t)nf;
		pgkb_str(c, &len); /* display schema: not used yet (the fields make one) */
		if (c->bad)
			break;
		if (t->complete && add_schema(g, t))
			return -1;
		if (pt < 2 && tag)
			g->mtype_ix[pt][tag] = (uint16_t)(i + 1);
	}
	return c->bad;
}

static int cmp_counter(const void *a, const void *b)
{
	const struct gb_counter *x = a, *y = b;

	return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

struct gb_counter *gb_find_counter(struct gb *g, uint64_t ptr)
{
	uint32_t lo = 0, hi = g->ncounters;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->counters[mid].ptr < ptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->ncounters && g->counters[lo].ptr == ptr ? &g->counters[lo] : NULL;
}

static int sec_cntr(struct gb *g, struct pgkb_cur *c)
{
	uint64_t n = pgkb_uleb(c), i;

	if (n > pgkb_left(c) / 11)
		return 1;
	g->counters = pc_calloc(g->ctx, n ? n : 1, sizeof(*g->counters));
	if (!g->counters)
		return -1;
	for (i = 0; i < n && !c->bad; i++) {
		struct gb_counter *k = &g->counters[i];
		const char *s[3];
		size_t l[3];
		int j;

		k->ptr = pgkb_u64(c);
		for (j = 0; j < 3; j++)
			s[j] = pgkb_str(c, &l[j]);
		if (c->bad)
			break;
		k->label = pc_model_keep(g->m, s[0], l[0]);
		k->category = pc_model_keep(g->m, s[1], l[1]);
		k->description = pc_model_keep(g->m, s[2], l[2]);
		if (!k->label || !k->category || !k->description)
			return -1;
		k->row = PC_NONE;
		g->ncounters = (uint32_t)i + 1;
	}
	if (c->bad)
		return 1;
	qsort(g->counters, g->ncounters, sizeof(*g->counters), cmp_counter);
	return 0;
}

/* The sections this reader uses, in the order they are processed (LIBS needs META's pid). */
static const uint32_t sec_order[] = { PGKB_META, PGKB_KIND, PGKB_CATS, PGKB_STRS, PGKB_THRD,
				      PGKB_LIBS, PGKB_SYMS, PGKB_JITF, PGKB_MTYP, PGKB_CNTR,
				      PGKB_BUFR };

/* Walk the sections (any order; unknown ones skipped), then fill the side tables. */
static int read_sections(struct gb *g)
{
	struct pgkb_cur h;
	uint64_t nsec, i, off = PGKB_HEADER_SIZE;
	uint64_t at[PC_ARRAY_SIZE(sec_order)], len_of[PC_ARRAY_SIZE(sec_order)];
	int have[PC_ARRAY_SIZE(sec_order)];
	uint16_t major;
	unsigned k;
	int err;

	memset(have, 0, sizeof(have));
	pgkb_cur_init(&h, g->file, g->flen);
	if (g->flen < PGKB_HEADER_SIZE || memcmp(g->file, PGKB_MAGIC, 8) != 0)
		return corrupt(g, 0, "not a PGKB dump: the 24-byte header with magic PGKBUF1 expected");
	pgkb_take(&h, 8);
	major = pgkb_u16(&h);
	pgkb_u16(&h);
	g->ptr_size = pgkb_u8(&h);
	g->tid_size = pgkb_u8(&h);
	g->ts_size = pgkb_u8(&h);
	if (major != PGKB_MAJOR)
		return pc_fail_at(g->ctx, PROFCONV_ERR_UNSUPPORTED, g->path, 8,
				  "PGKB version %u; this profconv reads version %u", major,
				  PGKB_MAJOR);
	if (pgkb_u8(&h) & 1)
		return pc_fail_at(g->ctx, PROFCONV_ERR_UNSUPPORTED, g->path, 15,
				  "a big-endian producer's dump is not supported");
	if ((g->ptr_size != 4 && g->ptr_size != 8) || (g->tid_size != 4 && g->tid_size != 8) ||
	    g->ts_size != 8)
		return pc_fail_at(g->ctx, PROFCONV_ERR_UNSUPPORTED, g->path, 12,
				  "pointer/thread id/timestamp sizes %u/%u/%u: 4 or 8, 4 or 8, and 8 expected",
				  g->ptr_size, g->tid_size, g->ts_size);
	nsec = pgkb_u64(&h);
	for (i = 0; i < nsec; i++) {
		uint32_t fourcc;
		uint64_t len;

		if (g->flen - off < PGKB_SECTION_HEADER_SIZE)
			return pc_fail_at(g->ctx, PROFCONV_ERR_CORRUPT_TRUNCATED, g->path, off,
					  "section %llu of %llu: a 16-byte section header expected",
					  (unsigned long long)i + 1, (unsigned long long)nsec);
		fourcc = pc_load_u32(g->file + off, 0);
		len = pc_load_u64(g->file + off + 8, 0);
		if (len > g->flen - off - PGKB_SECTION_HEADER_SIZE && fourcc == PGKB_BUFR) {
			/* a dump cut short: the buffer's blocks that are there still read */
			uint64_t have_len = g->flen - off - PGKB_SECTION_HEADER_SIZE;

			err = pc_warn(g->ctx, "truncated dump", NULL,
				      "%s: offset %llu: BUFR section of %llu bytes has only %llu; reading those",
				      g->path, (unsigned long long)off, (unsigned long long)len,
				      (unsigned long long)have_len);
			if (err)
				return err;
			len = have_len;
		}
		if (len > g->flen - off - PGKB_SECTION_HEADER_SIZE)
			return pc_fail_at(g->ctx, PROFCONV_ERR_CORRUPT_BAD_SIZE, g->path, off + 8,
					  "section length %llu exceeds the %zu bytes left",
					  (unsigned long long)len,
					  (size_t)(g->flen - off - PGKB_SECTION_HEADER_SIZE));
		for (k = 0; k < PC_ARRAY_SIZE(sec_order) && sec_order[k] != fourcc; k++)
			;
		if (k < PC_ARRAY_SIZE(sec_order)) {
			if (have[k])
				return corrupt(g, off, "a section appears twice");
			have[k] = 1;
			at[k] = off + PGKB_SECTION_HEADER_SIZE;
			len_of[k] = len;
		}
		/* SRCS, PAGE, CHNK and unknown sections: skipped */
		off += PGKB_SECTION_HEADER_SIZE + len;
	}
	if (!have[0] || !have[1] || !have[PC_ARRAY_SIZE(sec_order) - 1])
		return corrupt(g, PGKB_HEADER_SIZE, "META, KIND and BUFR sections are required");
	for (k = 0; k < PC_ARRAY_SIZE(sec_order); k++) {
		struct pgkb_cur c;

		if (!have[k])
			continue;
		pgkb_cur_init(&c, g->file + at[k], (size_t)len_of[k]);
		switch (sec_order[k]) {
		case PGKB_META:
			err = sec_meta(g, &c);
			break;
		case PGKB_KIND:
			err = sec_kind(g, &c);
			break;
		case PGKB_CATS:
			err = sec_cats(g, &c);
			break;
		case PGKB_STRS:
			err = sec_strs(g, &c);
			break;
		case PGKB_LIBS:
			err = sec_libs(g, &c);
			break;
		case PGKB_THRD:
			err = sec_thrd(g, &c);
			break;
		case PGKB_SYMS:
			err = sec_syms(g, &c);
			break;
		case PGKB_JITF:
			err = sec_jitf(g, &c);
			break;
		case PGKB_MTYP:
			err = sec_mtyp(g, &c);
			break;
		case PGKB_CNTR:
			err = sec_cntr(g, &c);
			break;
		default: /* BUFR */
			g->bufr = g->file + at[k];
			g->bufr_len = (size_t)len_of[k];
			g->bufr_off = at[k];
			err = 0;
			break;
		}
		if (err < 0)
			return gb_nomem(g);
		if (err) {
			char what[80];

			pc_snprintf(what, sizeof(what), "section %.4s: its content overruns its length",
				    (const char *)g->file + at[k] - PGKB_SECTION_HEADER_SIZE);
			return corrupt(g, at[k] - PGKB_SECTION_HEADER_SIZE, what);
		}
	}
	return 0;
}

static void gb_free(struct gb *g)
{
	uint32_t i;

	for (i = 0; i < g->nmtypes; i++)
		pc_free(g->ctx, g->mtypes[i].fields);
	pc_free(g->ctx, g->mtypes);
	pc_free(g->ctx, g->pair_cat);
	pc_free(g->ctx, g->pair_sub);
	pc_free(g->ctx, g->strs);
	pc_free(g->ctx, g->libs);
	pc_free(g->ctx, g->syms);
	pc_free(g->ctx, g->jit);
	pc_free(g->ctx, g->jitfr);
	pc_free(g->ctx, g->thr);
	pc_free(g->ctx, g->counters);
	pc_free(g->ctx, g->ts);
	pc_free(g->ctx, g->ts_slots);
	pc_free(g->ctx, g->lib_of_path);
	pc_free(g->ctx, g->fr);
	pc_free(g->ctx, g->dyn);
	pc_free(g->ctx, g->paused);
	pc_free(g->ctx, g->paused_reason);
	pc_free(g->ctx, g->file);
}

static int load(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m, struct gb *g)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->ctx = ctx;
	g->m = m;
	g->path = pc_input_name(in);
	g->proc = PC_NONE;
	err = slurp(g, in);
	if (!err)
		err = read_sections(g);
	return err;
}

static int warn_counts(struct gb *g)
{
	struct profconv_ctx *ctx = g->ctx;
	int err = 0;

	if (!err && g->w_meta)
		err = pc_warn_n(ctx, "META values out of range", g->w_meta, NULL,
				"%s: %llu of META's start ticks, tick rate, epoch and interval out of range; defaults used",
				g->path, (unsigned long long)g->w_meta);
	if (!err && g->w_mtime)
		err = pc_warn_n(ctx, "markers without the times their phase needs", g->w_mtime, NULL,
				"%s: %llu markers had a null or out-of-range time: intervals kept as their start or end, the others dropped",
				g->path, (unsigned long long)g->w_mtime);
	if (!err && g->w_color)
		err = pc_warn_n(ctx, "unknown category colors replaced", g->w_color, NULL,
				"%s: %llu CATS colors are not ones the front-end draws; grey is used",
				g->path, (unsigned long long)g->w_color);
	if (!err && g->w_window)
		err = pc_warn_n(ctx, "inner window ids out of range", g->w_window, NULL,
				"%s: %llu frame or marker inner window ids past 2^53 - 1 (none that Gecko makes; no page has them) were dropped",
				g->path, (unsigned long long)g->w_window);
	if (!err && g->w_unknown_tag)
		err = pc_warn_n(ctx, "unknown buffer entry kinds skipped", g->w_unknown_tag, NULL,
				"%s: %llu entries of kinds the dump's KIND table does not name were skipped",
				g->path, (unsigned long long)g->w_unknown_tag);
	if (!err && g->w_unresolved)
		err = pc_warn_n(ctx, "unresolved string pointers", g->w_unresolved, NULL,
				"%s: %llu string pointers not in the STRS table became 0x labels",
				g->path, (unsigned long long)g->w_unresolved);
	if (!err && g->w_untyped)
		err = pc_warn_n(ctx, "marker types unknown", g->w_untyped, NULL,
				"%s: %llu markers have a tag the MTYP table lacks (type UnknownTag<n>)",
				g->path, (unsigned long long)g->w_untyped);
	if (!err && g->w_fields)
		err = pc_warn_n(ctx, "marker payload fields not decoded", g->w_fields, NULL,
				"%s: %llu marker payloads kept as their type only: the dump has no complete field list for them",
				g->path, (unsigned long long)g->w_fields);
	if (!err && g->w_jit)
		err = pc_warn_n(ctx, "JIT frames without JIT info", g->w_jit, NULL,
				"%s: %llu JIT return addresses kept as addresses (not in a JITF section)",
				g->path, (unsigned long long)g->w_jit);
	if (!err && g->w_cut)
		err = pc_warn_n(ctx, "incomplete samples dropped", g->w_cut, NULL,
				"%s: %llu samples were cut off before their stack", g->path,
				(unsigned long long)g->w_cut);
	if (!err && g->w_same_nostack)
		err = pc_warn_n(ctx, "same-samples without a stack dropped", g->w_same_nostack, NULL,
				"%s: %llu same-sample entries had no earlier stack of their thread in the buffer",
				g->path, (unsigned long long)g->w_same_nostack);
	if (!err && g->w_overrun)
		err = pc_warn_n(ctx, "damaged buffer entries", g->w_overrun, NULL,
				"%s: %llu entries or nested buffers overran their size; their rest was dropped",
				g->path, (unsigned long long)g->w_overrun);
	if (!err && g->w_stray)
		err = pc_warn_n(ctx, "stray buffer entries", g->w_stray, NULL,
				"%s: %llu entries out of their grammar's place were ignored", g->path,
				(unsigned long long)g->w_stray);
	if (!err && g->w_counter)
		err = pc_warn_n(ctx, "counters without a name", g->w_counter, NULL,
				"%s: %llu counter samples name a counter the CNTR table lacks",
				g->path, (unsigned long long)g->w_counter);
	return err;
}

static int read_dump(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct gb g;
	uint32_t i, j;
	int err;

	m->reader = "gecko-buffer";
	err = load(ctx, in, m, &g);
	if (err)
		goto out;
	if (g.npairs == 0) {
		/* no CATS: every pair is "Other" */
		g.pair_cat = NULL;
	}
	if (g.proc == PC_NONE) {
		g.proc = pc_process_get(m, (int64_t)g.pid);
		if (g.proc == PC_NONE) {
			err = gb_nomem(&g);
			goto out;
		}
	}
	m->meta.interval_ns = g.interval_ms > 0 && g.interval_ms < 1e9
				      ? (int64_t)(g.interval_ms * 1e6 + 0.5)
				      : 1000000;
	{
		double zero = (double)g.start_ticks * (1e6 / g.ticks_per_ms);

		if (zero >= 0 && zero < 9e18) {
			m->meta.zero_ns = (int64_t)zero;
		} else {
			/* a start past int64 ns: unknown (0), as a dump without one */
			g.w_meta++;
			g.start_ticks = 0;
			m->meta.zero_ns = 0;
		}
	}
	if (g.epoch_ms > 0) {
		m->meta.start_time_ns = (int64_t)(g.epoch_ms * 1e6);
		m->meta.has_start_time = 1;
	}
	if (pc_meta_set(m, &m->meta.imported_from, "Gecko profiler buffer dump (PGKB)")) {
		err = gb_nomem(&g);
		goto out;
	}
	if (g.start_estimated)
		pc_note(ctx, "%s: the process start time is an estimate; marker times may be off by a few ms",
			g.path);
	err = gb_decode(&g);
	if (err)
		goto out;
	for (i = 0; i < g.nts; i++)
		for (j = 0; j < g.npaused; j++)
			if (pc_thread_add_paused(m, g.ts[i].t, g.paused[2 * j], g.paused[2 * j + 1],
						 g.paused_reason[j])) {
				err = gb_nomem(&g);
				goto out;
			}
	err = warn_counts(&g);
	/* a dump in which no thread has a sample or marker: said (fatal with --strict) */
	if (!err && g.nts == 0)
		err = pc_warn(ctx, "dumps in which no thread has a sample or marker", NULL,
			      "%s: no thread has a sample or marker in this dump (%llu blocks): the profile is empty",
			      g.path, (unsigned long long)g.blocks);
	if (!err && pc_model_sort_threads(m))
		err = gb_nomem(&g);
out:
	gb_free(&g);
	return err;
}

static int info(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out)
{
	struct pc_model *m = pc_model_new(ctx);
	struct gb g;
	uint32_t i;
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	err = load(ctx, in, m, &g);
	if (!err)
		err = gb_decode(&g);
	if (!err) {
		pc_text_printf(out, "format: Gecko profiler buffer dump (PGKB %u)\n", PGKB_MAJOR);
		pc_text_printf(out, "pid: %llu\n", (unsigned long long)g.pid);
		pc_text_printf(out, "buffer: %zu bytes, %llu blocks\n", g.bufr_len,
			       (unsigned long long)g.blocks);
		pc_text_printf(out, "samples: %llu, markers: %llu\n",
			       (unsigned long long)g.samples, (unsigned long long)g.markers);
		for (i = 0; i < g.nts; i++)
			pc_text_printf(out, "thread %llu %s: %u samples, %u markers\n",
				       (unsigned long long)g.ts[i].tid, pc_str(m, g.ts[i].t->name),
				       g.ts[i].t->samples.len, g.ts[i].t->markers.len);
		for (i = 1; i < GK_COUNT_OF_KINDS; i++)
			if (g.kind_count[i])
				pc_text_printf(out, "entries %s: %llu\n", kind_names[i],
					       (unsigned long long)g.kind_count[i]);
		err = out->err ? PROFCONV_ERR_IO : 0;
	}
	gb_free(&g);
	pc_model_free(m);
	return err;
}

const struct pc_reader pc_reader_gecko_buffer = {
	.name = "gecko-buffer",
	.summary = "Firefox profiler buffer dump (PGKB, from profconv gecko-dump)",
	.flags = 0,
	.options = NULL,
	.bid = bid,
	.read = read_dump,
	.info = info,
};
