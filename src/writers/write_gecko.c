/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * write_gecko.c - the Gecko profile format (version 36), the JSON the Gecko
 * profiler writes and the Firefox Profiler's processGeckoProfile() reads
 * (docs/formats/gecko-profile.md, "Writing"; ../shared facts: Firefox
 * Profiler src/types/gecko-profile.ts and src/profile-logic/process-profile.ts).
 *
 * From the model (processed-shaped, shared tables) to Gecko (per thread):
 *   - the first process (the one whose threads come first) is the top
 *     level; every other process is an entry of `processes`, each a Gecko
 *     profile with the short meta; their threads without samples are
 *     top-level threads instead (moves_to_top());
 *   - each process's `libs` are its own mappings, plus the kernel's (the
 *     model keeps those under pid -1), sorted by start, after the libs no
 *     process maps (a processed input's) as empty ranges at 0;
 *   - each thread gets its own stackTable, frameTable and stringTable with
 *     only the rows its samples and marker causes use, renumbered;
 *   - a frame's location is "0x<absolute address>" when it is still an
 *     address (lib-relative + start - offset of the mapping; return
 *     addresses un-nudged, since the front-end nudges callers itself),
 *     "name (in lib)" for a native symbol, "name (file:line:col)" for JS,
 *     else the name (a label); what "name (in lib)" cannot carry (the
 *     address, inline depth, native symbol) goes in profconv's own
 *     frameTable columns, which the front-end ignores;
 *   - marker payloads keep their members; string-index fields point into
 *     the thread's stringTable; a cause becomes the payload's `stack`, a
 *     one-sample "SyncProfile" thread, as Gecko writes it;
 *   - the schema's `fields` go back to Gecko's `data` (with the static
 *     description as a {label, value} entry).
 * What Gecko cannot carry is dropped with a counted warning: sample
 * weights.
 */
#include "core/pc_config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/pc_jpull.h"
#include "json/pc_jw.h"
#include "writers/pc_pvemit.h"
#include "writers/pc_write_helper.h"
#include "writers/pc_writer.h"

#define GECKO_VERSION 36

/* A JSON literal as one value. */
#define RAW(w, lit) pc_jw_raw(w, lit, sizeof(lit) - 1)

#define W_WEIGHTS "threads whose sample weights were dropped (the Gecko format has none)"

/* A per-thread string: a model string row, or a frame's location. */
#define STR_LOC 0x80000000u /* | local frame index */

/* A frame's extension cells' values (x_cells_of()). */
struct gxc {
	uint64_t a, sa;		/* its address, its symbol's */
	uint32_t ns, lib, src;	/* its native symbol row, x_lib(), x_source() (PC_NONE: none) */
	uint8_t have_a;		/* x_address() found one */
};

/*
 * One formatter's per-thread scratch: collect()'s maps and tables.  The
 * threads are formatted by the writer and by its helper (pc_write_helper.h),
 * each with a scratch of its own taken from gw's pool.  The maps hold a
 * local index + 1 (0: not used) in arrays that start zeroed (mapped pages:
 * only those a thread touches are ever faulted in), and collect() clears
 * only the rows the previous thread used: a thread costs what it uses, not
 * the model's size.
 */
struct gscr {
	/* per-thread maps, model row -> local index + 1 (0: not used) */
	uint32_t *stack_map, *frame_map, *str_map;
	/* local index -> model row */
	uint32_t *stacks, *frames, *strs;
	uint32_t nstacks, nframes, nstrs;
	uint32_t *loc_str; /* local frame -> its location's local string */
	struct gxc *xc;	   /* local frame -> its extension cells' values (x_cells_of()) */
	uint8_t *caller;   /* model frame: used as a caller in this thread */
	uint8_t *leaf;	   /* model frame: a sample's leaf (scratch, all 0 between uses) */
	/* mapping_of()'s answers: per lib, the process row + 1 it was asked
	 * for (0: none yet) and the mapping found */
	uint32_t *map_proc;
	const struct pc_mapping **map_memo;
	int busy; /* taken (gw's mutex) */
};

#define NSCR 2 /* formatters at once: the writer and its helper */

/*
 * The threads in output order (the top level's, then each entry of
 * `processes`' in turn), cut into segments between the threads the writer
 * writes itself (big_thread(): the big ones, and those whose markers go to
 * the marker helper); each segment's threads are jobs of a thread helper.
 */
struct gseg {
	const struct gw *gw;
	uint32_t first; /* its first position in gw's order */
};

/* A growing buffer in the ctx, as a profconv_write_fn's user. */
struct gbuf {
	struct profconv_ctx *ctx;
	char *p;
	size_t len, cap;
};

struct gw {
	struct profconv_ctx *ctx;
	const struct pc_model *m;
	struct pc_jw *w;
	uint8_t *moved;	 /* per thread: written at the top level (moves_to_top()) */
	uint32_t kernel; /* the kernel's process row, or PC_NONE */
	int has_src;	 /* some func has a source: `sources` are written */
	uint8_t *unmapped; /* per lib: no process maps it (a processed input's libs) */
	uint32_t *lib_slot; /* per lib: its index in every process's `libs`, or PC_NONE */
	int threads_ok;	    /* helpers allowed (not --no-threads) */
	int thread_help;    /* thread helpers: -1 by size, 0 never, 1 always (PROFCONV_GECKO_WRITE_THREAD) */
	/* the scratch pool; the mutex guards the busy flags */
	struct gscr scr[NSCR];
	pthread_mutex_t scr_mu;
	/* the threads in output order (thread rows; plan_order()), the next one */
	uint32_t *order, norder, at;
	/* the Gecko profiles: entry 0 the top level, then `processes`' */
	uint32_t *ent_proc, *ent_start, nent;
	struct gseg seg;    /* the segment being written */
	uint32_t seg_end;   /* its end in order */
	struct pc_wh *th_helper; /* its thread helper, or NULL */
	uint64_t replaced;	 /* strings the helpers wrote with U+FFFD */
	struct pc_wh_stats stats; /* the thread helpers' figures, summed */
	struct gbuf src;	  /* `sources` formatted once (src_once()) */
	int src_ok;		  /* src holds them */
	uint64_t src_replaced;	  /* strings in them written with U+FFFD */
};

/* A thread being formatted, by the writer or by its helper. */
struct gt {
	const struct gw *gw;
	const struct pc_model *m;
	struct gscr *s;
	struct pc_jw *w;
	const struct pc_thread *t;
	uint32_t proc; /* its process row, or PC_NONE */
	/* the thread's markers on the writer's helper (pc_write_helper.h), or NULL */
	struct pc_wh *mk_helper;
	uint64_t replaced; /* strings the marker helper wrote with U+FFFD */
};

/* --- small writers --- */

static void key_str(struct pc_jw *w, const char *key, const char *s)
{
	pc_jw_key(w, key);
	pc_jw_str_z(w, s);
}

static void key_i64(struct pc_jw *w, const char *key, int64_t v)
{
	pc_jw_key(w, key);
	pc_jw_i64(w, v);
}

static void key_time(struct pc_jw *w, const char *key, int64_t ns)
{
	pc_jw_key(w, key);
	if (ns == PC_NO_TIME)
		pc_jw_null(w);
	else
		pc_jw_ns_ms(w, ns);
}

static void time_or_null(struct pc_jw *w, int64_t ns)
{
	if (ns == PC_NO_TIME)
		pc_jw_null(w);
	else
		pc_jw_ns_ms(w, ns);
}

static const char *mstr(const struct pc_model *m, uint32_t row)
{
	return row == PC_NONE || row >= m->strings.len ? NULL : pc_str(m, row);
}

/* --- the per-thread tables --- */

/* A map's local index of model row (PC_NONE: not used). */
#define IX(map, row) ((map)[row] - 1u)

static uint32_t use_str(struct gt *g, uint32_t row)
{
	if (row == PC_NONE || row >= g->m->strings.len)
		return PC_NONE;
	if (!g->s->str_map[row]) {
		g->s->strs[g->s->nstrs++] = row;
		g->s->str_map[row] = g->s->nstrs;
	}
	return g->s->str_map[row] - 1;
}

/* Mark stack s and its ancestors used (and their frames), parents first. */
static void use_stack(struct gt *g, uint32_t s)
{
	const struct pc_stack_table *st = &g->m->stacks;
	uint32_t chain[1024], n = 0, i;

	while (s != PC_NONE && !g->s->stack_map[s] && n < PC_ARRAY_SIZE(chain)) {
		chain[n++] = s;
		s = st->prefix[s];
	}
	for (i = n; i-- > 0;) {
		uint32_t f = st->frame[chain[i]];

		g->s->stacks[g->s->nstacks++] = chain[i];
		g->s->stack_map[chain[i]] = g->s->nstacks;
		if (!g->s->frame_map[f]) {
			g->s->frames[g->s->nframes++] = f;
			g->s->frame_map[f] = g->s->nframes;
		}
		if (st->prefix[chain[i]] != PC_NONE)
			g->s->caller[st->frame[st->prefix[chain[i]]]] = 1;
	}
}

/* String rows referenced (PC_VAL_SREF) anywhere under payload node. */
static void use_payload_strs(struct gt *g, uint32_t node)
{
	const struct pc_model *m = g->m;
	uint32_t end, i;

	if (node == PC_NONE)
		return;
	end = node + pc_val_span(pc_pv(m, node));
	for (i = node; i < end; i++)
		if (pc_pv(m, i)->kind == PC_VAL_SREF)
			use_str(g, pc_pv(m, i)->v.s);
}

/* Everything thread t uses, in first-use order (deterministic). */
static void collect(struct gt *g, const struct pc_thread *t)
{
	uint32_t i;

	for (i = 0; i < g->s->nstacks; i++)
		g->s->stack_map[g->s->stacks[i]] = 0;
	for (i = 0; i < g->s->nframes; i++) {
		g->s->frame_map[g->s->frames[i]] = 0;
		g->s->caller[g->s->frames[i]] = 0;
	}
	for (i = 0; i < g->s->nstrs; i++)
		if (!(g->s->strs[i] & STR_LOC))
			g->s->str_map[g->s->strs[i]] = 0;
	g->s->nstacks = g->s->nframes = g->s->nstrs = 0;

	for (i = 0; i < t->samples.len; i++)
		use_stack(g, t->samples.stack[i]);
	for (i = 0; i < t->markers.len; i++)
		if (t->markers.cause_stack && t->markers.cause_stack[i] != PC_NONE)
			use_stack(g, t->markers.cause_stack[i]);
	/*
	 * A cause's own frame is a return address to the front-end (it nudges
	 * "sync backtrace" leaves as it nudges callers): un-nudge it too, unless
	 * a sample has the same frame as its leaf (an instruction pointer, as
	 * perf's context-switch causes have), which must stay as it is.
	 */
	for (i = 0; i < t->samples.len; i++)
		if (t->samples.stack[i] != PC_NONE)
			g->s->leaf[g->m->stacks.frame[t->samples.stack[i]]] = 1;
	for (i = 0; t->markers.cause_stack && i < t->markers.len; i++) {
		uint32_t s = t->markers.cause_stack[i];

		if (s != PC_NONE && !g->s->leaf[g->m->stacks.frame[s]])
			g->s->caller[g->m->stacks.frame[s]] = 1;
	}
	for (i = 0; i < t->samples.len; i++)
		if (t->samples.stack[i] != PC_NONE)
			g->s->leaf[g->m->stacks.frame[t->samples.stack[i]]] = 0;
	for (i = 0; i < t->markers.len; i++) {
		use_str(g, t->markers.name[i]);
		use_payload_strs(g, t->markers.payload[i]);
	}
	/* the native symbols' names of the frames' extension columns */
	for (i = 0; i < g->s->nframes; i++) {
		uint32_t ns = g->m->frames.native_symbol[g->s->frames[i]];

		if (ns != PC_NONE && ns < g->m->native_symbols.len)
			use_str(g, g->m->native_symbols.name[ns]);
	}
	/* one location string per frame, after the model strings */
	for (i = 0; i < g->s->nframes; i++) {
		g->s->loc_str[i] = g->s->nstrs;
		g->s->strs[g->s->nstrs++] = STR_LOC | i;
	}
}

/* The mapping of lib in process proc (or the kernel's), or NULL. */
static const struct pc_mapping *mapping_search(const struct gt *g, uint32_t lib)
{
	const struct pc_model *m = g->m;
	uint32_t procs[2] = { g->proc, g->gw->kernel }, k, i;

	for (k = 0; k < 2; k++) {
		const struct pc_process *p;

		if (procs[k] == PC_NONE)
			continue;
		p = &m->processes.rows[procs[k]];
		for (i = 0; i < p->nmaps; i++)
			if (p->maps[i].lib == lib && p->maps[i].end > p->maps[i].start)
				return &p->maps[i];
	}
	return NULL;
}

/*
 * The same, memoized per lib for the process asked (a frame's location,
 * its address column and its symbol's each ask; a system-wide recording's
 * processes map a hundred libs or more, searched in order).
 */
static const struct pc_mapping *mapping_of(const struct gt *g, uint32_t lib)
{
	const struct pc_mapping *mp;

	if (lib >= g->m->libs.len || g->proc == PC_NONE)
		return mapping_search(g, lib);
	if (g->s->map_proc[lib] == g->proc + 1)
		return g->s->map_memo[lib];
	mp = mapping_search(g, lib);
	g->s->map_proc[lib] = g->proc + 1;
	g->s->map_memo[lib] = mp;
	return mp;
}

/* Is this func's name an address the symbolicator left ("0x1234")? */
static int hex_name(const char *s)
{
	return s && s[0] == '0' && s[1] == 'x';
}

/*
 * The absolute address the front-end would see for model frame f of lib
 * lib at lib-relative address addr, as a "0x..." location writes it (the
 * caller nudge undone), or 0 when its process has no mapping of the lib.
 */
static int absolute(const struct gt *g, uint32_t f, uint64_t addr, uint64_t *out)
{
	const struct pc_model *m = g->m;
	uint32_t lib = m->frames.lib[f];
	const struct pc_mapping *mp;

	if (lib == PC_NONE || lib >= m->libs.len || addr == PC_NO_ADDRESS)
		return 0;
	mp = mapping_of(g, lib);
	if (!mp)
		return 0;
	/* the front-end nudges return addresses itself: undo ours */
	*out = addr + (g->s->caller[f] ? 1 : 0) + (mp->start - mp->offset);
	return 1;
}

/* Is model frame f written as an address location ("0x...")? */
static int hex_location(const struct gt *g, uint32_t f)
{
	const struct pc_model *m = g->m;
	uint32_t fn = m->frames.func[f];
	uint64_t a;

	return !m->funcs.is_js[fn] && hex_name(mstr(m, m->funcs.name[fn])) &&
	       absolute(g, f, m->frames.address[f], &a);
}

/*
 * profconv's own frameTable columns, for what a "name (in lib)" location
 * cannot carry (docs/formats/gecko-profile.md, "profconv's frameTable
 * columns"; the front-end ignores columns it does not know):
 *   address             "0x..." absolute, as a "0x..." location would be
 *                       (for a frame with "lib": relative to that lib's
 *                       entry, which is [0, 0) at offset 0: lib-relative)
 *   lib                 the `libs` index of a lib no process maps (a
 *                       processed input's), else absent (the lib whose
 *                       range holds the address)
 *   inlineDepth         the model's inline depth (0 not written)
 *   nativeSymbol        stringTable index of the native symbol's name
 *   nativeSymbolAddress "0x..." absolute, with the frame's own mapping
 *   nativeSymbolSize    bytes (absent: unknown)
 *   source              a native function's source file, an index into
 *                       `sources` (JS locations carry theirs as "[N]")
 * A symbol is only written with the frame's address.
 */
enum { XC_ADDRESS, XC_LIB, XC_INLINE, XC_NSYM, XC_NSYM_ADDR, XC_NSYM_SIZE, XC_SOURCE, XC_N };
static const char *const xcol_names[XC_N] = { "address",      "lib",
					      "inlineDepth",  "nativeSymbol",
					      "nativeSymbolAddress", "nativeSymbolSize",
					      "source" };

/* The source row of frame f's function for the "source" column (PC_NONE: none). */
static uint32_t x_source(const struct gt *g, uint32_t f)
{
	const struct pc_model *m = g->m;
	uint32_t fn = m->frames.func[f];

	if (m->funcs.is_js[fn] || m->funcs.source[fn] >= m->sources.len)
		return PC_NONE;
	return m->funcs.source[fn];
}

/*
 * The `libs` index for frame f's "lib" column: the lib of a frame with an
 * address that no process maps, written as an empty range [0, 0) at offset
 * 0 (write_libs()), so its "address" is lib-relative (PC_NONE: none).
 */
static uint32_t x_lib(const struct gt *g, uint32_t f)
{
	const struct pc_model *m = g->m;
	uint32_t lib = m->frames.lib[f];

	if (m->funcs.is_js[m->frames.func[f]] || lib >= m->libs.len || !g->gw->unmapped[lib] ||
	    m->frames.address[f] == PC_NO_ADDRESS)
		return PC_NONE;
	return g->gw->lib_slot[lib];
}

/* Frame f's address for the "address" column (0: none). */
static int x_address(const struct gt *g, uint32_t f, uint64_t *a)
{
	const struct pc_model *m = g->m;

	if (m->funcs.is_js[m->frames.func[f]] || hex_location(g, f))
		return 0;
	if (x_lib(g, f) != PC_NONE) {
		/* the caller nudge undone, as absolute() does */
		*a = m->frames.address[f] + (g->s->caller[f] ? 1 : 0);
		return 1;
	}
	return absolute(g, f, m->frames.address[f], a);
}

/* The part of an absolute address below frame f's lib (start - offset). */
static uint64_t lib_base(const struct gt *g, uint32_t f)
{
	const struct pc_mapping *mp;

	if (x_lib(g, f) != PC_NONE)
		return 0;
	mp = mapping_of(g, g->m->frames.lib[f]);
	return mp ? mp->start - mp->offset : 0;
}

/*
 * Text built in buf[0..cap) as pc_snprintf() would build it (cut at cap - 1
 * bytes, always ended with a NUL), without a format string to parse: a
 * system-wide recording's locations are 160,000 "0x..." and "name (in
 * lib)" strings, which vsnprintf() took a quarter of the Gecko writer's
 * instructions to print.
 */
struct sbuf {
	char *p;
	size_t cap, n; /* n < cap */
};

static void sb_put(struct sbuf *b, const char *s, size_t len)
{
	size_t room = b->cap - 1 - b->n;

	if (len > room)
		len = room;
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_u32(struct sbuf *b, uint32_t v)
{
	char t[24];

	sb_put(b, t, pc_fmt_u64(t, v));
}

/* "0x" and v in lowercase hex, as "0x%" PRIx64 prints it. */
static void sb_hex(struct sbuf *b, uint64_t v)
{
	char t[20] = "0x";

	sb_put(b, t, 2 + pc_fmt_hex(t + 2, v));
}

/* The location string of model frame f (Gecko's frameTable.location). */
static void location(const struct gt *g, uint32_t f, char *buf, size_t cap)
{
	struct sbuf b = { buf, cap, 0 };

	const struct pc_model *m = g->m;
	const struct pc_frame_table *ft = &m->frames;
	uint32_t fn = ft->func[f], lib = ft->lib[f];
	const char *name = mstr(m, m->funcs.name[fn]);
	uint64_t addr = ft->address[f];

	if (!name)
		name = "";
	if (m->funcs.is_js[fn]) {
		/*
		 * One location per JS function: the function's own line and
		 * column (the frame's are in the frame's columns) and its source
		 * index, so the front-end's _extractJsFunction() makes one func
		 * of them.  A line is always written (":0" when unknown), as its
		 * regexps need one: "name (url)" would be a label.
		 */
		uint32_t src = m->funcs.source[fn];
		const char *file = src < m->sources.len ? mstr(m, m->sources.filename[src]) : NULL;
		uint32_t line = m->funcs.line[fn], col = m->funcs.column[fn];

		sb_str(&b, name);
		if (!file || !*file)
			return;
		sb_put(&b, " (", 2);
		sb_str(&b, file);
		sb_put(&b, ":", 1);
		sb_u32(&b, line);
		if (col) {
			sb_put(&b, ":", 1);
			sb_u32(&b, col);
		}
		sb_put(&b, ")[", 2);
		sb_u32(&b, src);
		sb_put(&b, "]", 1);
		return;
	}
	if (hex_name(name) && absolute(g, f, addr, &addr)) {
		sb_hex(&b, addr);
		return;
	}
	sb_str(&b, name);
	if (lib != PC_NONE && lib < m->libs.len) {
		const char *ln = mstr(m, m->libs.rows[lib].name);

		sb_put(&b, " (in ", 5);
		sb_str(&b, ln ? ln : "?");
		sb_put(&b, ")", 1);
		return;
	}
	if (m->funcs.resource[fn] != PC_NONE && m->funcs.resource[fn] < m->resources.len &&
	    m->resources.type[m->funcs.resource[fn]] == PC_RES_LIBRARY) {
		const char *rn = mstr(m, m->resources.name[m->funcs.resource[fn]]);

		sb_put(&b, " (in ", 5);
		sb_str(&b, rn ? rn : "?");
		sb_put(&b, ")", 1);
	}
}

static void write_string_table(struct gt *g)
{
	char loc[4096];
	uint32_t i;

	pc_jw_key(g->w, "stringTable");
	pc_jw_arr_begin(g->w);
	for (i = 0; i < g->s->nstrs; i++) {
		uint32_t s = g->s->strs[i];

		if (s & STR_LOC) {
			location(g, g->s->frames[s & ~STR_LOC], loc, sizeof(loc));
			pc_jw_str_z(g->w, loc);
		} else {
			pc_jw_str(g->w, g->m->strings.ptr[s], g->m->strings.lens[s]);
		}
	}
	pc_jw_arr_end(g->w);
}

/*
 * A table row built as text and written as one value (pc_jw_raw()): the
 * same bytes as pc_jw_arr_begin(), its values one call each and
 * pc_jw_arr_end(), for a fraction of the calls (a system-wide recording's
 * threads have 363,000 stack rows and 285,000 frame rows).  Numbers,
 * literals and "0x..." strings only, which need no escaping.
 */
struct rowb {
	size_t n;
	char b[512]; /* 15 values of at most 24 bytes */
};

static void rb_begin(struct rowb *r)
{
	r->b[0] = '[';
	r->n = 1;
}

static void rb_sep(struct rowb *r)
{
	if (r->n > 1)
		r->b[r->n++] = ',';
}

static void rb_u64(struct rowb *r, uint64_t v)
{
	rb_sep(r);
	r->n += pc_fmt_u64(r->b + r->n, v);
}

static void rb_lit(struct rowb *r, const char *lit, size_t len)
{
	rb_sep(r);
	memcpy(r->b + r->n, lit, len);
	r->n += len;
}

#define RB_NULL(r) rb_lit(r, "null", 4)

/* "0x" and v in lowercase hex, as a JSON string (sb_hex()'s text). */
static void rb_hex_str(struct rowb *r, uint64_t v)
{
	rb_sep(r);
	memcpy(r->b + r->n, "\"0x", 3);
	r->n += 3;
	r->n += pc_fmt_hex(r->b + r->n, v);
	r->b[r->n++] = '"';
}

static void rb_end(struct pc_jw *w, struct rowb *r)
{
	r->b[r->n++] = ']';
	pc_jw_raw(w, r->b, r->n);
}

static void write_stack_table(struct gt *g)
{
	const struct pc_stack_table *st = &g->m->stacks;
	uint32_t i;

	pc_jw_key(g->w, "stackTable");
	pc_jw_obj_begin(g->w);
	pc_jw_key(g->w, "schema");
	RAW(g->w, "{\"prefix\":0,\"frame\":1}");
	pc_jw_key(g->w, "data");
	pc_jw_arr_begin(g->w);
	for (i = 0; i < g->s->nstacks; i++) {
		uint32_t s = g->s->stacks[i], pre = st->prefix[s];
		struct rowb r;

		rb_begin(&r);
		if (pre == PC_NONE)
			RB_NULL(&r);
		else
			rb_u64(&r, IX(g->s->stack_map, pre));
		rb_u64(&r, IX(g->s->frame_map, st->frame[s]));
		rb_end(g->w, &r);
	}
	pc_jw_arr_end(g->w);
	pc_jw_obj_end(g->w);
}

/*
 * Frame f's extension cells' values, worked out once per frame of a thread
 * (write_frame_table() needs them to choose its columns, then to write
 * them): x_address(), x_lib(), x_source(), its native symbol (only with
 * an address, of the frame's lib) and the symbol's absolute address.
 */
static void x_cells_of(const struct gt *g, uint32_t f, struct gxc *x)
{
	const struct pc_model *m = g->m;
	uint32_t ns = m->frames.native_symbol[f];

	x->a = x->sa = 0;
	x->have_a = (uint8_t)x_address(g, f, &x->a);
	x->lib = x_lib(g, f);
	x->src = x_source(g, f);
	if (ns == PC_NONE || ns >= m->native_symbols.len || !x->have_a ||
	    m->native_symbols.lib[ns] != m->frames.lib[f] ||
	    m->native_symbols.address[ns] == PC_NO_ADDRESS)
		ns = PC_NONE;
	x->ns = ns;
	if (ns != PC_NONE)
		x->sa = m->native_symbols.address[ns] + lib_base(g, f);
}

/* Frame f's extension cells (positions 8 to ncols - 1), trailing nulls left out. */
static void write_x_cells(struct gt *g, struct rowb *r, uint32_t f, const struct gxc *x,
			  const int *xpos, uint32_t ncols)
{
	const struct pc_model *m = g->m;
	uint32_t ns = x->ns, pos, k, last = 0;
	int have[XC_N] = { 0 };
	uint64_t a = x->a, sa = x->sa;

	have[XC_ADDRESS] = x->have_a;
	have[XC_INLINE] = m->frames.inline_depth[f] != 0;
	have[XC_SOURCE] = x->src != PC_NONE;
	have[XC_LIB] = x->lib != PC_NONE;
	if (ns != PC_NONE) {
		have[XC_NSYM] = have[XC_NSYM_ADDR] = 1;
		have[XC_NSYM_SIZE] = m->native_symbols.size[ns] != 0;
	}
	for (k = 0; k < XC_N; k++)
		if (have[k] && xpos[k] >= 0 && (uint32_t)xpos[k] + 1 > last)
			last = (uint32_t)xpos[k] + 1;
	for (pos = 8; pos < last && pos < ncols; pos++) {
		for (k = 0; k < XC_N && xpos[k] != (int)pos; k++)
			;
		if (k == XC_N || !have[k]) {
			RB_NULL(r);
			continue;
		}
		switch (k) {
		case XC_ADDRESS:
		case XC_NSYM_ADDR:
			rb_hex_str(r, k == XC_ADDRESS ? a : sa);
			break;
		case XC_INLINE:
			rb_u64(r, m->frames.inline_depth[f]);
			break;
		case XC_LIB:
			rb_u64(r, x->lib);
			break;
		case XC_SOURCE:
			rb_u64(r, x->src);
			break;
		case XC_NSYM:
			rb_u64(r, IX(g->s->str_map, m->native_symbols.name[ns]));
			break;
		default:
			rb_u64(r, m->native_symbols.size[ns]);
			break;
		}
	}
}

static void write_frame_table(struct gt *g)
{
	const struct pc_model *m = g->m;
	const struct pc_frame_table *ft = &m->frames;
	uint32_t i, k, ncols = 8;
	int xpos[XC_N];

	/* the extension columns some frame of the thread needs, from position 8 */
	for (k = 0; k < XC_N; k++)
		xpos[k] = -1;
	for (i = 0; i < g->s->nframes; i++) {
		uint32_t f = g->s->frames[i];
		const struct gxc *x = &g->s->xc[i];

		x_cells_of(g, f, &g->s->xc[i]);
		if (x->have_a)
			xpos[XC_ADDRESS] = 0;
		if (x->lib != PC_NONE)
			xpos[XC_LIB] = 0;
		if (ft->inline_depth[f])
			xpos[XC_INLINE] = 0;
		if (x->src != PC_NONE)
			xpos[XC_SOURCE] = 0;
		if (x->ns != PC_NONE) {
			xpos[XC_NSYM] = xpos[XC_NSYM_ADDR] = 0;
			if (m->native_symbols.size[ft->native_symbol[f]])
				xpos[XC_NSYM_SIZE] = 0;
		}
	}
	for (k = 0; k < XC_N; k++)
		if (xpos[k] == 0)
			xpos[k] = (int)ncols++;
	pc_jw_key(g->w, "frameTable");
	pc_jw_obj_begin(g->w);
	pc_jw_key(g->w, "schema");
	pc_jw_obj_begin(g->w);
	{
		static const char *const base[] = { "location", "relevantForJS", "innerWindowID",
						     "implementation", "line", "column",
						     "category", "subcategory" };

		for (k = 0; k < PC_ARRAY_SIZE(base); k++) {
			pc_jw_key(g->w, base[k]);
			pc_jw_u64(g->w, k);
		}
		for (k = 0; k < XC_N; k++)
			if (xpos[k] >= 0) {
				pc_jw_key(g->w, xcol_names[k]);
				pc_jw_u64(g->w, (uint64_t)xpos[k]);
			}
	}
	pc_jw_obj_end(g->w);
	pc_jw_key(g->w, "data");
	pc_jw_arr_begin(g->w);
	for (i = 0; i < g->s->nframes; i++) {
		uint32_t f = g->s->frames[i], fn = ft->func[f];
		uint64_t iw = ft->inner_window_id && f < ft->iw_len ? ft->inner_window_id[f] : 0;

		struct rowb r;

		rb_begin(&r);
		rb_u64(&r, g->s->loc_str[i]);
		if (m->funcs.relevant_for_js[fn])
			rb_lit(&r, "true", 4);
		else
			rb_lit(&r, "false", 5);
		if (iw)
			rb_u64(&r, iw);
		else
			RB_NULL(&r);
		RB_NULL(&r); /* implementation */
		if (ft->line[f])
			rb_u64(&r, ft->line[f]);
		else
			RB_NULL(&r);
		if (ft->column[f])
			rb_u64(&r, ft->column[f]);
		else
			RB_NULL(&r);
		if (ft->category[f] == UINT16_MAX) {
			RB_NULL(&r);
			RB_NULL(&r);
		} else {
			rb_u64(&r, ft->category[f]);
			rb_u64(&r, ft->subcategory[f]);
		}
		write_x_cells(g, &r, f, &g->s->xc[i], xpos, ncols);
		rb_end(g->w, &r);
	}
	pc_jw_arr_end(g->w);
	pc_jw_obj_end(g->w);
}

static void write_samples(struct gt *g, const struct pc_samples *s)
{
	uint32_t i;

	pc_jw_key(g->w, "samples");
	pc_jw_obj_begin(g->w);
	pc_jw_key(g->w, "schema");
	if (s->cpu_delta)
		RAW(g->w, "{\"stack\":0,\"time\":1,\"eventDelay\":2,\"threadCPUDelta\":3}");
	else
		RAW(g->w, "{\"stack\":0,\"time\":1,\"eventDelay\":2}");
	pc_jw_key(g->w, "data");
	pc_jw_arr_begin(g->w);
	for (i = 0; i < s->len; i++) {
		pc_jw_arr_begin(g->w);
		if (s->stack[i] == PC_NONE)
			pc_jw_null(g->w);
		else
			pc_jw_u64(g->w, IX(g->s->stack_map, s->stack[i]));
		pc_jw_ns_ms(g->w, s->time[i]);
		/* the front-end needs the column; null when there is none */
		time_or_null(g->w, s->event_delay ? s->event_delay[i] : PC_NO_TIME);
		if (s->cpu_delta) {
			if (s->cpu_delta[i] == INT64_MIN)
				pc_jw_null(g->w);
			else
				pc_jw_i64(g->w, s->cpu_delta[i]);
		}
		pc_jw_arr_end(g->w);
	}
	pc_jw_arr_end(g->w);
	pc_jw_obj_end(g->w);
}

/* --- markers --- */

struct marker_ctx {
	struct gt *g;
	const struct pc_markers *mk;
	uint32_t row;
};

static void marker_sref(struct pc_jw *w, const struct pc_model *m, uint32_t row, void *user)
{
	const struct marker_ctx *c = user;

	(void)m;
	if (row < m->strings.len && c->g->s->str_map[row])
		pc_jw_u64(w, IX(c->g->s->str_map, row));
	else
		pc_jw_null(w);
}

static int skip_cause(const char *key, void *user)
{
	(void)user;
	return strcmp(key, "cause") == 0;
}

static int skip_cause_timings(const char *key, void *user)
{
	(void)user;
	return strcmp(key, "cause") == 0 || strcmp(key, "timings") == 0;
}

/*
 * A numeric payload value, or 0 with *ok cleared.  A literal is read as the
 * readers read it (pc_jnum_text()): plain strtod() would take a host's
 * decimal comma, and stop 1500.5 at 1500.
 */
static double num_value(const struct pc_model *m, uint32_t node, int *ok)
{
	const struct pc_val *v = pc_pv(m, node);
	const char *text;
	size_t len;
	double d = 0;

	*ok = 1;
	if (v->kind == PC_VAL_INT)
		return (double)v->v.i;
	if (v->kind == PC_VAL_DBL)
		return v->v.d;
	if (v->kind == PC_VAL_NUM) {
		text = pc_pv_text(m, v->v.s, &len);
		if (pc_jnum_text(text, len, &d))
			return d;
	}
	*ok = 0;
	return 0;
}

/* The string value of member key of obj, or "". */
static const char *str_member(const struct pc_model *m, uint32_t obj, const char *key)
{
	uint32_t c = pc_pv_member(m, obj, key);
	size_t len;

	if (c == PC_NONE || pc_pv(m, c)->kind != PC_VAL_STR)
		return "";
	return pc_pv_text(m, pc_pv(m, c)->v.s, &len);
}

struct gc_skip {
	const char *skip1, *skip2, *skip3;
};

static int skip_gc_members(const char *key, void *user)
{
	const struct gc_skip *k = user;

	return strcmp(key, k->skip1) == 0 || strcmp(key, k->skip2) == 0 ||
	       strcmp(key, k->skip3) == 0;
}

/*
 * GC markers as Gecko writes them: the front-end turns a GCSlice's
 * timings.times (ms) and a GCMajor's timings.totals (ms) into phase_times
 * (us), and divides GCMajor's mmu_20ms/mmu_50ms by 100 (process-profile.ts,
 * GC marker processing; our Gecko reader does the same); undo that here.
 */
static void write_gc_timings(struct gt *g, struct pc_jw *w, uint32_t timings, int slice,
			     const struct pc_pvemit *e)
{
	const struct pc_model *m = g->m;
	struct gc_skip sk = { "phase_times", slice ? "phase_times" : "mmu_20ms",
			      slice ? "phase_times" : "mmu_50ms" };
	uint32_t pt = pc_pv_member(m, timings, "phase_times"), i, c;
	static const char *const mmu[] = { "mmu_20ms", "mmu_50ms" };
	int ok;

	pc_jw_obj_begin(w);
	pc_pv_emit_members(w, m, timings, e, skip_gc_members, &sk);
	if (!slice) {
		for (i = 0; i < 2; i++) {
			uint32_t v = pc_pv_member(m, timings, mmu[i]);
			double d = v != PC_NONE ? num_value(m, v, &ok) : 0;

			if (v == PC_NONE)
				continue;
			pc_jw_key(w, mmu[i]);
			if (ok)
				pc_jw_double(w, d * 100);
			else
				pc_pv_emit(w, m, v, e);
		}
	}
	if (pt != PC_NONE && pc_pv(m, pt)->kind == PC_VAL_OBJ) {
		pc_jw_key(w, slice ? "times" : "totals");
		pc_jw_obj_begin(w);
		for (i = 0, c = pt + 1; i < pc_pv(m, pt)->v.n; i++, c += pc_val_span(pc_pv(m, c))) {
			double d = num_value(m, c, &ok);
			size_t len;

			pc_jw_key(w, pc_pv_text(m, pc_pv(m, c)->key, &len));
			if (ok)
				pc_jw_double(w, d / 1000);
			else
				pc_jw_null(w);
		}
		pc_jw_obj_end(w);
	}
	pc_jw_obj_end(w);
}

/* A cause as Gecko writes it: a one-sample "SyncProfile" thread. */
static void write_sync_stack(struct gt *g, struct pc_jw *w, const struct pc_markers *mk, uint32_t i)
{
	const struct pc_thread *t = g->t;
	int64_t tid = mk->cause_tid && mk->cause_tid[i] != PC_NO_TID ? mk->cause_tid[i] : t->tid;

	pc_jw_obj_begin(w);
	key_str(w, "name", "SyncProfile");
	pc_jw_key(w, "registerTime");
	pc_jw_null(w);
	pc_jw_key(w, "unregisterTime");
	pc_jw_null(w);
	key_str(w, "processType", "default");
	key_i64(w, "tid", tid);
	key_i64(w, "pid", t->pid);
	pc_jw_key(w, "markers");
	RAW(w, "{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,\"data\":5},\"data\":[]}");
	pc_jw_key(w, "samples");
	pc_jw_obj_begin(w);
	pc_jw_key(w, "schema");
	RAW(w, "{\"stack\":0,\"time\":1,\"eventDelay\":2}");
	pc_jw_key(w, "data");
	pc_jw_arr_begin(w);
	pc_jw_arr_begin(w);
	pc_jw_u64(w, IX(g->s->stack_map, mk->cause_stack[i]));
	if (mk->cause_time && mk->cause_time[i] != PC_NO_TIME)
		pc_jw_ns_ms(w, mk->cause_time[i]);
	else
		time_or_null(w, mk->start[i] != PC_NO_TIME ? mk->start[i] : mk->end[i]);
	pc_jw_i64(w, 0);
	pc_jw_arr_end(w);
	pc_jw_arr_end(w);
	pc_jw_obj_end(w);
	pc_jw_obj_end(w);
}

static void write_marker_data(struct gt *g, struct pc_jw *w, const struct pc_markers *mk,
			      uint32_t i)
{
	struct marker_ctx mc = { g, mk, i };
	struct pc_pvemit e = { marker_sref, NULL, &mc };
	uint32_t p = mk->payload[i];
	int cause = mk->cause_stack && mk->cause_stack[i] != PC_NONE;

	if (p == PC_NONE && !cause) {
		pc_jw_null(w);
		return;
	}
	if (p != PC_NONE && pc_pv(g->m, p)->kind != PC_VAL_OBJ) {
		pc_pv_emit(w, g->m, p, &e);
		return;
	}
	pc_jw_obj_begin(w);
	if (p != PC_NONE) {
		const char *type = str_member(g->m, p, "type");
		int slice = strcmp(type, "GCSlice") == 0;
		uint32_t timings = pc_pv_member(g->m, p, "timings");

		if ((slice || strcmp(type, "GCMajor") == 0) && timings != PC_NONE &&
		    pc_pv(g->m, timings)->kind == PC_VAL_OBJ &&
		    strcmp(str_member(g->m, timings, "status"), "aborted") != 0) {
			pc_pv_emit_members(w, g->m, p, &e, skip_cause_timings, NULL);
			pc_jw_key(w, "timings");
			write_gc_timings(g, w, timings, slice, &e);
		} else {
			pc_pv_emit_members(w, g->m, p, &e, skip_cause, NULL);
		}
	}
	if (cause) {
		pc_jw_key(w, "stack");
		write_sync_stack(g, w, mk, i);
	}
	pc_jw_obj_end(w);
}

/*
 * The rows of markers [first, end) into the array open in w.  A payload
 * written before (without a cause) is written again from its text
 * (pc_pvmemo): its text depends only on it and the thread's maps.
 */
static void marker_rows(struct gt *g, struct pc_jw *w, const struct pc_markers *mk,
			uint32_t first, uint32_t end)
{
	struct pc_pvmemo *memo = pc_pvmemo_new();
	uint32_t i;

	for (i = first; i < end; i++) {
		uint32_t p = mk->payload[i];

		pc_jw_arr_begin(w);
		pc_jw_u64(w, IX(g->s->str_map, mk->name[i]));
		time_or_null(w, mk->start[i]);
		time_or_null(w, mk->end[i]);
		pc_jw_u64(w, mk->phase[i]);
		pc_jw_u64(w, mk->category[i]);
		if (p == PC_NONE || (mk->cause_stack && mk->cause_stack[i] != PC_NONE)) {
			write_marker_data(g, w, mk, i);
		} else if (!pc_pvmemo_again(memo, w, p)) {
			uint64_t from = pc_jw_tell(w), replaced = pc_jw_replaced(w);

			write_marker_data(g, w, mk, i);
			pc_pvmemo_keep(memo, w, p, from, replaced);
		}
		pc_jw_arr_end(w);
	}
	pc_pvmemo_free(memo);
}

/*
 * A thread's markers are most of a Chrome trace's Gecko output: a thread
 * with MK_HELP markers or more has them cut into jobs of MK_JOB that the
 * writer's helper (pc_write_helper.h) starts on once the thread's tables
 * are known (collect()), while the writer writes the string, stack and
 * frame tables and the samples.  The jobs read the thread's maps, which
 * stay as they are until the helper is stopped, after the markers.
 */
#define MK_JOB	2048
#define MK_HELP (2 * MK_JOB)

static void mk_job(struct pc_jw *w, uint32_t job, void *user)
{
	struct gt *g = user;
	const struct pc_markers *mk = &g->t->markers;
	uint32_t first = job * MK_JOB, end = mk->len - first < MK_JOB ? mk->len : first + MK_JOB;

	marker_rows(g, w, mk, first, end);
}

static void write_markers(struct gt *g, const struct pc_markers *mk)
{
	uint32_t job;

	pc_jw_key(g->w, "markers");
	pc_jw_obj_begin(g->w);
	pc_jw_key(g->w, "schema");
	RAW(g->w, "{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,\"data\":5}");
	pc_jw_key(g->w, "data");
	pc_jw_arr_begin(g->w);
	if (g->mk_helper) {
		for (job = 0; job * MK_JOB < mk->len; job++)
			pc_wh_put(g->mk_helper, g->w, job, mk_job, g);
		g->replaced += pc_wh_replaced(g->mk_helper);
		pc_wh_stop(g->mk_helper);
		g->mk_helper = NULL;
	} else {
		marker_rows(g, g->w, mk, 0, mk->len);
	}
	pc_jw_arr_end(g->w);
	pc_jw_obj_end(g->w);
}

static void write_paused(struct pc_jw *w, const struct pc_paused_range *r, uint32_t n)
{
	uint32_t i;

	pc_jw_key(w, "pausedRanges");
	pc_jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		pc_jw_obj_begin(w);
		key_time(w, "startTime", r[i].start);
		key_time(w, "endTime", r[i].end);
		key_str(w, "reason", r[i].reason ? r[i].reason : "profiler-paused");
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

static const char *process_type(const struct pc_model *m, uint32_t proc)
{
	return proc < m->processes.len && m->processes.rows[proc].type
		       ? m->processes.rows[proc].type
		       : "default";
}

/* Thread g->t's object into g->w (collect() done). */
static void thread_body(struct gt *g)
{
	const struct pc_model *m = g->m;
	const struct pc_thread *t = g->t;
	struct pc_jw *w = g->w;

	pc_jw_obj_begin(w);
	key_str(w, "name", mstr(m, t->name) ? mstr(m, t->name) : "");
	key_str(w, "processType", process_type(m, t->process));
	if (t->process < m->processes.len && m->processes.rows[t->process].name)
		key_str(w, "processName", m->processes.rows[t->process].name);
	key_i64(w, "tid", t->tid);
	key_i64(w, "pid", t->pid);
	key_time(w, "registerTime", t->register_time);
	key_time(w, "unregisterTime", t->unregister_time);
	write_string_table(g);
	write_stack_table(g);
	write_frame_table(g);
	write_samples(g, &t->samples);
	write_markers(g, &t->markers); /* (stops the marker helper) */
	if (t->npaused)
		write_paused(w, t->paused, t->npaused);
	pc_jw_obj_end(w);
}

/*
 * A scratch nobody uses, from gw's pool (either thread).  There are NSCR:
 * one for the writer, one for its helper, each using one at a time.
 */
static struct gscr *scr_take(const struct gw *gw)
{
	struct gw *g = (struct gw *)gw; /* the pool's flags only */
	struct gscr *s = NULL;
	unsigned i;

	pthread_mutex_lock(&g->scr_mu);
	for (i = 0; i < NSCR && !s; i++)
		if (g->scr[i].stack_map && !g->scr[i].busy)
			s = &g->scr[i];
	if (s)
		s->busy = 1;
	pthread_mutex_unlock(&g->scr_mu);
	return s;
}

static void scr_give(const struct gw *gw, struct gscr *s)
{
	struct gw *g = (struct gw *)gw;

	pthread_mutex_lock(&g->scr_mu);
	s->busy = 0;
	pthread_mutex_unlock(&g->scr_mu);
}

static void gt_init(struct gt *g, const struct gw *gw, struct pc_jw *w, const struct pc_thread *t)
{
	memset(g, 0, sizeof(*g));
	g->gw = gw;
	g->m = gw->m;
	g->w = w;
	g->t = t;
	g->proc = t->process;
}

/*
 * A thread helper's job: the thread at position seg->first + job of the
 * output order, into w.  It runs on either thread: it reads the model and
 * gw's read-only state, and writes only its scratch and w.
 */
static void thread_job(struct pc_jw *w, uint32_t job, void *user)
{
	const struct gseg *seg = user;
	const struct gw *gw = seg->gw;
	struct gt g;

	gt_init(&g, gw, w, gw->m->threads[gw->order[seg->first + job]]);
	g.s = scr_take(gw);
	collect(&g, g.t);
	thread_body(&g);
	scr_give(gw, g.s);
}

/* A big_thread(), by the writer; with MK_HELP markers or more, its markers on a marker helper. */
static void write_thread_big(struct gw *gw, const struct pc_thread *t)
{
	struct gt g;

	gt_init(&g, gw, gw->w, t);
	g.s = scr_take(gw);
	collect(&g, t);
	if (gw->threads_ok && t->markers.len >= MK_HELP)
		g.mk_helper = pc_wh_start((t->markers.len + MK_JOB - 1) / MK_JOB, mk_job, &g);
	thread_body(&g);
	gw->replaced += g.replaced;
	scr_give(gw, g.s);
}

/* --- meta, libs, counters, pages --- */

static void write_categories(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i, k;

	pc_jw_key(w, "categories");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->ncategories; i++) {
		const struct pc_category *c = &m->categories[i];

		pc_jw_obj_begin(w);
		key_str(w, "name", c->name);
		key_str(w, "color", c->color);
		pc_jw_key(w, "subcategories");
		pc_jw_arr_begin(w);
		for (k = 0; k < c->nsub; k++)
			pc_jw_str_z(w, c->subcategories[k]);
		pc_jw_arr_end(w);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

static int schema_skip(const char *key, void *user)
{
	(void)user;
	return strcmp(key, "fields") == 0 || strcmp(key, "description") == 0;
}

/* A processed schema ({..., fields, description}) as Gecko's ({..., data}). */
static void write_schema(struct pc_jw *w, const struct pc_model *m, uint32_t body)
{
	uint32_t fields = pc_pv_member(m, body, "fields"), desc = pc_pv_member(m, body, "description");

	if (pc_pv(m, body)->kind != PC_VAL_OBJ) {
		pc_pv_emit(w, m, body, NULL);
		return;
	}
	pc_jw_obj_begin(w);
	pc_pv_emit_members(w, m, body, NULL, schema_skip, NULL);
	pc_jw_key(w, "data");
	pc_jw_arr_begin(w);
	if (fields != PC_NONE && pc_pv(m, fields)->kind == PC_VAL_ARR) {
		uint32_t i, c;

		for (i = 0, c = fields + 1; i < pc_pv(m, fields)->v.n;
		     i++, c += pc_val_span(pc_pv(m, c)))
			pc_pv_emit(w, m, c, NULL);
	}
	if (desc != PC_NONE) {
		pc_jw_obj_begin(w);
		key_str(w, "label", "Description");
		pc_jw_key(w, "value");
		pc_pv_emit(w, m, desc, NULL);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
	pc_jw_obj_end(w);
}

/* meta members written from the model's fields, not from meta.more */
static int meta_written(const char *key, void *user)
{
	static const char *const keys[] = {
		"version",	   "startTime",	    "shutdownTime", "categories",   "markerSchema",
		"interval",	   "stackwalk",	    "debug",	    "gcpoison",	    "asyncstack",
		"processType",	   "profilingStartTime", "profilingEndTime", "product", "platform",
		"oscpu",	   "abi",	    "CPUName",	    "logicalCPUs",  "physicalCPUs",
		"mainMemory",	   "presymbolicated", "sampleUnits", "symbolicated",
		"preprocessedProfileVersion", "extra", "importedFrom",
	};
	size_t i;

	(void)user;
	for (i = 0; i < PC_ARRAY_SIZE(keys); i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

static void write_meta(struct pc_jw *w, const struct pc_model *m, int full)
{
	const struct pc_meta *mt = &m->meta;
	uint32_t i;

	pc_jw_key(w, "meta");
	pc_jw_obj_begin(w);
	key_i64(w, "version", GECKO_VERSION);
	/* epoch ms of time 0, exact */
	key_time(w, "startTime", mt->has_start_time ? mt->start_time_ns : 0);
	pc_jw_key(w, "shutdownTime");
	pc_jw_null(w);
	write_categories(w, m);
	pc_jw_key(w, "markerSchema");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->schemas.len; i++)
		write_schema(w, m, m->schemas.rows[i].body);
	pc_jw_arr_end(w);
	if (full) {
		pc_jw_key(w, "interval");
		pc_jw_ns_ms(w, mt->interval_ns > 0 ? mt->interval_ns : 1000000);
		key_i64(w, "stackwalk", 1);
		key_i64(w, "debug", 0);
		key_i64(w, "gcpoison", 0);
		key_i64(w, "asyncstack", 0);
		key_i64(w, "processType", 0);
		if (mt->profiling_start != PC_NO_TIME)
			key_time(w, "profilingStartTime", mt->profiling_start);
		if (mt->profiling_end != PC_NO_TIME)
			key_time(w, "profilingEndTime", mt->profiling_end);
		if (mt->product)
			key_str(w, "product", mt->product);
		if (mt->platform)
			key_str(w, "platform", mt->platform);
		if (mt->oscpu)
			key_str(w, "oscpu", mt->oscpu);
		if (mt->abi)
			key_str(w, "abi", mt->abi);
		if (mt->cpu_name)
			key_str(w, "CPUName", mt->cpu_name);
		if (mt->logical_cpus)
			key_i64(w, "logicalCPUs", mt->logical_cpus);
		if (mt->physical_cpus)
			key_i64(w, "physicalCPUs", mt->physical_cpus);
		if (mt->main_memory)
			key_i64(w, "mainMemory", (int64_t)mt->main_memory);
		pc_jw_key(w, "presymbolicated");
		pc_jw_bool(w, mt->symbolicated);
		if (mt->unit_cpu_delta || mt->unit_time || mt->unit_event_delay) {
			pc_jw_key(w, "sampleUnits");
			pc_jw_obj_begin(w);
			key_str(w, "time", mt->unit_time ? mt->unit_time : "ms");
			key_str(w, "eventDelay", mt->unit_event_delay ? mt->unit_event_delay : "ms");
			if (mt->unit_cpu_delta)
				key_str(w, "threadCPUDelta", mt->unit_cpu_delta);
			pc_jw_obj_end(w);
		}
		/* what other producers put in meta, as it came */
		if (mt->more != PC_NONE)
			pc_pv_emit_members(w, m, mt->more, NULL, meta_written, NULL);
	}
	pc_jw_obj_end(w);
}

/* One mapping as a Gecko lib. */
static void write_lib(struct pc_jw *w, const struct pc_model *m, const struct pc_mapping *mp)
{
	const struct pc_lib *l = &m->libs.rows[mp->lib];

	pc_jw_obj_begin(w);
	pc_jw_key(w, "start");
	pc_jw_u64(w, mp->start);
	pc_jw_key(w, "end");
	pc_jw_u64(w, mp->end);
	pc_jw_key(w, "offset");
	pc_jw_u64(w, mp->offset);
	key_str(w, "arch", mstr(m, l->arch) ? mstr(m, l->arch) : "");
	key_str(w, "name", mstr(m, l->name) ? mstr(m, l->name) : "");
	key_str(w, "path", mstr(m, l->path) ? mstr(m, l->path) : "");
	key_str(w, "debugName", mstr(m, l->debug_name) ? mstr(m, l->debug_name) : "");
	key_str(w, "debugPath", mstr(m, l->debug_path) ? mstr(m, l->debug_path) : "");
	key_str(w, "breakpadId", mstr(m, l->breakpad_id) ? mstr(m, l->breakpad_id) : "");
	if (mstr(m, l->code_id))
		key_str(w, "codeId", mstr(m, l->code_id));
	pc_jw_obj_end(w);
}

static int map_cmp(const void *a, const void *b)
{
	const struct pc_mapping *x = *(const struct pc_mapping *const *)a;
	const struct pc_mapping *y = *(const struct pc_mapping *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* A process's mappings and the kernel's, sorted, overlaps left out. */
static int write_libs(struct gw *g, uint32_t proc)
{
	const struct pc_model *m = g->m;
	const struct pc_process *ps[2] = { NULL, NULL };
	const struct pc_mapping **all;
	uint32_t n = 0, i, k;
	uint64_t end = 0;

	if (proc < m->processes.len)
		ps[0] = &m->processes.rows[proc];
	if (g->kernel != PC_NONE && g->kernel != proc)
		ps[1] = &m->processes.rows[g->kernel];
	all = pc_alloc(g->ctx, ((ps[0] ? ps[0]->nmaps : 0) + (ps[1] ? ps[1]->nmaps : 0) + 1) *
				       sizeof(*all));
	if (!all)
		return PROFCONV_ERR_NOMEM;
	for (k = 0; k < 2; k++)
		for (i = 0; ps[k] && i < ps[k]->nmaps; i++)
			if (ps[k]->maps[i].lib < m->libs.len && ps[k]->maps[i].end > ps[k]->maps[i].start)
				all[n++] = &ps[k]->maps[i];
	qsort(all, n, sizeof(*all), map_cmp);
	pc_jw_key(g->w, "libs");
	pc_jw_arr_begin(g->w);
	/*
	 * The libs no process maps (a processed input has no mappings), as
	 * empty ranges at 0 in every process, first: the front-end finds no
	 * address in them, profconv's "lib" frame column names them.
	 */
	for (i = 0; i < m->libs.len; i++) {
		if (g->unmapped[i]) {
			struct pc_mapping none = { 0 };

			none.lib = i;
			write_lib(g->w, m, &none); /* at its lib_slot[] */
		}
	}
	for (i = 0; i < n; i++) {
		if (i && all[i]->start < end)
			continue; /* the front-end's lookup needs them apart */
		write_lib(g->w, m, all[i]);
		end = all[i]->end;
	}
	pc_jw_arr_end(g->w);
	pc_free(g->ctx, all);
	return 0;
}

static void write_counters(struct gw *g, uint32_t proc)
{
	const struct pc_model *m = g->m;
	uint32_t i, j;

	pc_jw_key(g->w, "counters");
	pc_jw_arr_begin(g->w);
	for (i = 0; i < m->counters.len; i++) {
		const struct pc_counter *c = &m->counters.rows[i];

		if (c->process != proc || !c->len)
			continue;
		pc_jw_obj_begin(g->w);
		key_str(g->w, "name", c->name ? c->name : "");
		key_str(g->w, "category", c->category ? c->category : "");
		key_str(g->w, "description", c->description ? c->description : "");
		pc_jw_key(g->w, "samples");
		pc_jw_obj_begin(g->w);
		pc_jw_key(g->w, "schema");
		if (c->number)
			RAW(g->w, "{\"time\":0,\"count\":1,\"number\":2}");
		else
			RAW(g->w, "{\"time\":0,\"count\":1}");
		pc_jw_key(g->w, "data");
		pc_jw_arr_begin(g->w);
		for (j = 0; j < c->len; j++) {
			pc_jw_arr_begin(g->w);
			pc_jw_ns_ms(g->w, c->time[j]);
			pc_jw_double(g->w, c->count[j]);
			if (c->number)
				pc_jw_double(g->w, c->number[j]);
			pc_jw_arr_end(g->w);
		}
		pc_jw_arr_end(g->w);
		pc_jw_obj_end(g->w);
		pc_jw_obj_end(g->w);
	}
	pc_jw_arr_end(g->w);
}

static void write_pages(struct pc_jw *w, const struct pc_model *m)
{
	uint32_t i;

	pc_jw_key(w, "pages");
	pc_jw_arr_begin(w);
	for (i = 0; i < m->pages.len; i++) {
		const struct pc_page *p = &m->pages.rows[i];

		pc_jw_obj_begin(w);
		pc_jw_key(w, "tabID");
		pc_jw_u64(w, p->tab_id);
		pc_jw_key(w, "innerWindowID");
		pc_jw_u64(w, p->inner_window_id);
		key_str(w, "url", p->url ? p->url : "");
		pc_jw_key(w, "embedderInnerWindowID");
		pc_jw_u64(w, p->embedder_inner_window_id);
		if (p->is_private >= 0) {
			pc_jw_key(w, "isPrivateBrowsing");
			pc_jw_bool(w, p->is_private);
		}
		if (p->favicon)
			key_str(w, "favicon", p->favicon);
		pc_jw_obj_end(w);
	}
	pc_jw_arr_end(w);
}

/* --- processes --- */

/* The process a thread belongs to, or PC_NONE. */
static uint32_t thread_process(const struct pc_thread *t)
{
	return t->process;
}

/* Do mappings a and b (either NULL) place a lib at the same addresses? */
static int same_mapping(const struct pc_mapping *a, const struct pc_mapping *b)
{
	if (!a || !b)
		return a == b;
	return a->lib == b->lib && a->start == b->start && a->end == b->end &&
	       a->offset == b->offset;
}

/*
 * Is thread t, of a process other than top, written among the top-level
 * threads instead of in its process's `processes` entry?  Those with no
 * samples are, when nothing is lost by it.  The front-end shifts every
 * subprocess thread's samples with adjustTableTimeDeltas(), which adds the
 * shift to timeDeltas[0] even when there is no sample: an empty samples
 * table comes out with a one-entry timeDeltas (NaN) and length 0, a
 * data-consistency failure.  Top-level threads are not shifted.  The thread
 * keeps its pid, tid, processType and processName (all per thread), and
 * every process has the same meta.startTime, so it is the same thread once
 * processed.  It stays when moving it would change something:
 *   - it is named GeckoMain (counters attach to their sub-profile's
 *     GeckoMain, the top level's go to the first one among its threads),
 *     or its process has counters (they stay with its threads);
 *   - a frame it writes as an address ("0x...") would not be in the same
 *     mapping among the top level's libs.
 * Uses collect(): call it before write_thread(), which collects again.
 */
static int moves_to_top(struct gt *g, const struct pc_thread *t, uint32_t top)
{
	const struct pc_model *m = g->m;
	const struct pc_frame_table *ft = &m->frames;
	const char *name = mstr(m, t->name);
	uint32_t i;

	if (thread_process(t) == top || t->samples.len)
		return 0;
	if (name && strcmp(name, "GeckoMain") == 0)
		return 0;
	for (i = 0; i < m->counters.len; i++)
		if (m->counters.rows[i].process == thread_process(t) && m->counters.rows[i].len)
			return 0;
	g->t = t;
	g->proc = t->process;
	collect(g, t);
	for (i = 0; i < g->s->nframes; i++) {
		uint32_t f = g->s->frames[i], lib = ft->lib[f];
		const struct pc_mapping *own, *there;

		/* a "0x..." location or an "address" column */
		if (m->funcs.is_js[ft->func[f]] || lib == PC_NONE || lib >= m->libs.len ||
		    ft->address[f] == PC_NO_ADDRESS)
			continue;
		g->proc = t->process;
		own = mapping_of(g, lib);
		g->proc = top;
		there = mapping_of(g, lib);
		g->proc = t->process;
		if (own && !same_mapping(own, there))
			return 0;
	}
	return 1;
}

/*
 * `sources`: the model's, row for row, in every process, so a JS location's
 * "[N]" is the model's source row (empty when no function is JS).
 */
static void sources_value(const struct gw *g, struct pc_jw *w)
{
	const struct pc_model *m = g->m;
	uint32_t i;

	pc_jw_obj_begin(w);
	pc_jw_key(w, "schema");
	RAW(w, "{\"id\":0,\"filename\":1,\"startLine\":2,\"startColumn\":3,\"sourceMapURL\":4}");
	pc_jw_key(w, "data");
	pc_jw_arr_begin(w);
	for (i = 0; g->has_src && i < m->sources.len; i++) {
		struct pc_source_row r;
		const char *s;

		pc_source_get(m, i, &r);
		pc_jw_arr_begin(w);
		if ((s = mstr(m, r.id)) != NULL)
			pc_jw_str_z(w, s);
		else
			pc_jw_null(w);
		s = mstr(m, r.filename);
		pc_jw_str_z(w, s ? s : "");
		pc_jw_u64(w, r.start_line);
		pc_jw_u64(w, r.start_column);
		if ((s = mstr(m, r.source_map_url)) != NULL)
			pc_jw_str_z(w, s);
		else
			pc_jw_null(w);
		pc_jw_arr_end(w);
	}
	pc_jw_arr_end(w);
	pc_jw_obj_end(w);
}

static int gbuf_write(void *user, const void *p, size_t n)
{
	struct gbuf *b = user;

	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		q = pc_realloc(b->ctx, b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/*
 * `sources` are the same in every process: with more than one process and
 * sources to write, they are formatted once (src_once()) and copied.
 */
static void src_once(struct gw *g)
{
	struct pc_jw *ew;

	if (g->nent < 2 || !g->has_src || !g->m->sources.len)
		return;
	g->src.ctx = g->ctx;
	ew = pc_jw_new_elems(gbuf_write, &g->src);
	if (!ew)
		return;
	sources_value(g, ew);
	g->src_ok = pc_jw_elems_flush(ew) == 0 && g->src.len;
	g->src_replaced = pc_jw_replaced(ew);
	pc_jw_free(ew);
}

static void write_sources(struct gw *g)
{
	pc_jw_key(g->w, "sources");
	if (g->src_ok) {
		pc_jw_raw(g->w, g->src.p, g->src.len);
		g->replaced += g->src_replaced;
	} else {
		sources_value(g, g->w);
	}
}

/* Is thread i written in process proc's Gecko profile (top: the top level)? */
static int written_in(const struct gw *g, uint32_t i, uint32_t proc, uint32_t top)
{
	if (proc == top)
		return thread_process(g->m->threads[i]) == top || g->moved[i];
	return thread_process(g->m->threads[i]) == proc && !g->moved[i];
}

/* --- the threads, in output order, on the writer and its thread helper --- */

/* From this many samples and markers in a segment its threads go to a thread helper. */
#define TH_ROWS 8192
/*
 * A thread with this many samples and markers is written by the writer
 * itself, straight into the output: formatted by the helper, its output
 * (megabytes) would grow a buffer page by page and be copied again, and
 * a run of few threads, one of them most of the output, gains nothing.
 */
#define TH_BIG_ROWS 65536

/*
 * Is thread t written by the writer itself (a big one, and one whose
 * markers go to a marker helper), between two runs of thread jobs?
 */
static int big_thread(const struct gw *g, const struct pc_thread *t)
{
	return g->threads_ok && (t->markers.len >= MK_HELP ||
				 (uint64_t)t->samples.len + t->markers.len >= TH_BIG_ROWS);
}

static void seg_close(struct gw *g)
{
	struct pc_wh_stats st;

	if (!g->th_helper)
		return;
	pc_wh_stats(g->th_helper, &st);
	g->stats.helper += st.helper;
	g->stats.direct += st.direct;
	g->stats.ahead += st.ahead;
	g->stats.waits += st.waits;
	g->replaced += pc_wh_replaced(g->th_helper);
	pc_wh_stop(g->th_helper);
	g->th_helper = NULL;
}

/*
 * The segment from output position from: the threads up to the next one
 * big_thread() takes, their jobs on a thread helper when there are enough
 * of them (always with PROFCONV_GECKO_WRITE_THREAD=1, never with =0).
 */
static void seg_open(struct gw *g, uint32_t from)
{
	const struct pc_model *m = g->m;
	uint32_t end = from;
	uint64_t rows = 0;

	while (end < g->norder && !big_thread(g, m->threads[g->order[end]])) {
		rows += m->threads[g->order[end]]->samples.len + m->threads[g->order[end]]->markers.len;
		end++;
	}
	g->seg.gw = g;
	g->seg.first = from;
	g->seg_end = end;
	g->th_helper = NULL;
	if (end == from || !g->threads_ok || !g->thread_help || !g->scr[1].stack_map)
		return;
	if (g->thread_help < 0 && (end - from < 2 || rows < TH_ROWS))
		return;
	g->th_helper = pc_wh_start(end - from, thread_job, &g->seg);
	if (g->th_helper && g->thread_help > 0) {
		/*
		 * Forced (tests): the helper takes the first job before the
		 * writer comes to it, so both threads format some (up to 1 s).
		 */
		struct pc_wh_stats st;
		int k;

		for (k = 0; k < 10000; k++) {
			struct timespec ts = { 0, 100000 };

			pc_wh_stats(g->th_helper, &st);
			if (st.helper)
				break;
			nanosleep(&ts, NULL);
		}
	}
}

/* The thread at the next output position, by the writer or from its helper. */
static int put_thread(struct gw *g)
{
	const struct pc_model *m = g->m;
	uint32_t pos = g->at++;
	const struct pc_thread *t = m->threads[g->order[pos]];
	int err = 0;

	if (t->samples.weight && t->samples.len)
		err = pc_warn(g->ctx, W_WEIGHTS, NULL,
			      "thread %s: its samples are weighted (%s); the Gecko format has no weights, so each counts 1",
			      mstr(m, t->name) ? mstr(m, t->name) : "?", t->samples.weight_type);
	if (big_thread(g, t)) {
		write_thread_big(g, t);
		seg_open(g, pos + 1);
		return err;
	}
	pc_wh_put(g->th_helper, g->w, pos - g->seg.first, thread_job, &g->seg);
	if (pos + 1 == g->seg_end)
		seg_close(g);
	return err;
}

/*
 * The output order of the threads: the top level's (its process's and
 * those moves_to_top() moved), then each other process's, the processes in
 * the order their first thread comes (ent_proc[e], its threads at
 * order[ent_start[e] .. ent_start[e + 1]); entry 0 is the top level).
 */
static int plan_order(struct gw *g, uint32_t top)
{
	const struct pc_model *m = g->m;
	uint32_t nkeys = m->processes.len + 1, *first, *cur, i, e, pos;

	first = pc_alloc(g->ctx, (size_t)nkeys * sizeof(uint32_t));
	cur = pc_alloc(g->ctx, ((size_t)m->nthreads + 2) * sizeof(uint32_t));
	if (!first || !cur) {
		pc_free(g->ctx, first);
		pc_free(g->ctx, cur);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < nkeys; i++)
		first[i] = PC_NONE;
	g->norder = 0;
	for (i = 0; i < m->nthreads; i++)
		if (written_in(g, i, top, top))
			g->order[g->norder++] = i;
	g->ent_proc[0] = top;
	g->nent = 1;
	for (i = 0; i < m->nthreads; i++) {
		uint32_t p = thread_process(m->threads[i]), k = p < m->processes.len ? p : nkeys - 1;

		if (p == top || !written_in(g, i, p, top))
			continue;
		if (first[k] == PC_NONE) {
			first[k] = g->nent;
			g->ent_proc[g->nent] = p;
			cur[g->nent++] = 0;
		}
		cur[first[k]]++;
	}
	g->ent_start[0] = 0;
	pos = g->norder;
	for (e = 1; e < g->nent; e++) {
		uint32_t n = cur[e];

		g->ent_start[e] = cur[e] = pos;
		pos += n;
	}
	g->ent_start[g->nent] = pos;
	for (i = 0; i < m->nthreads; i++) {
		uint32_t p = thread_process(m->threads[i]), k = p < m->processes.len ? p : nkeys - 1;

		if (p == top || !written_in(g, i, p, top))
			continue;
		g->order[cur[first[k]]++] = i;
	}
	g->norder = pos;
	pc_free(g->ctx, first);
	pc_free(g->ctx, cur);
	return 0;
}

/*
 * One Gecko profile for entry e of the plan (plan_order(); its process
 * PC_NONE: threads with no process): meta, libs, threads; at the top, the
 * other processes nest in it, each written when at least one of its
 * threads stays in it (moves_to_top()).
 */
static int write_process(struct gw *g, uint32_t e)
{
	int top = e == 0;
	uint32_t proc = g->ent_proc[e];
	const struct pc_model *m = g->m;
	struct pc_jw *w = g->w;
	uint32_t i;
	int err = 0;

	pc_jw_obj_begin(w);
	write_meta(w, m, top);
	err = write_libs(g, proc);
	if (err)
		return err;
	write_sources(g);
	pc_jw_key(w, "threads");
	pc_jw_arr_begin(w);
	for (i = g->ent_start[e]; i < g->ent_start[e + 1] && !err; i++)
		err = put_thread(g);
	pc_jw_arr_end(w);
	if (err)
		return err;
	write_counters(g, proc);
	if (top) {
		write_pages(w, m);
		pc_jw_key(w, "pausedRanges");
		RAW(w, "[]");
		pc_jw_key(w, "processes");
		pc_jw_arr_begin(w);
		/* every other process with threads, in the order their first thread comes */
		for (i = 1; i < g->nent && !err; i++)
			err = write_process(g, i);
		pc_jw_arr_end(w);
	} else {
		pc_jw_key(w, "pausedRanges");
		RAW(w, "[]");
		pc_jw_key(w, "processes");
		RAW(w, "[]");
	}
	pc_jw_obj_end(w);
	return err;
}

/* A scratch's arrays, for the model's rows (zeroed: mapped pages, touched when used). */
static int scr_alloc(struct gw *g, struct gscr *s)
{
	const struct pc_model *m = g->m;
	struct profconv_ctx *ctx = g->ctx;

	s->stack_map = pc_calloc(ctx, (size_t)m->stacks.len + 1, sizeof(uint32_t));
	s->stacks = pc_alloc(ctx, ((size_t)m->stacks.len + 1) * sizeof(uint32_t));
	s->frame_map = pc_calloc(ctx, (size_t)m->frames.len + 1, sizeof(uint32_t));
	s->frames = pc_alloc(ctx, ((size_t)m->frames.len + 1) * sizeof(uint32_t));
	s->loc_str = pc_alloc(ctx, ((size_t)m->frames.len + 1) * sizeof(uint32_t));
	s->xc = pc_alloc(ctx, ((size_t)m->frames.len + 1) * sizeof(*s->xc));
	s->caller = pc_calloc(ctx, (size_t)m->frames.len + 1, 1);
	s->leaf = pc_calloc(ctx, (size_t)m->frames.len + 1, 1);
	s->map_proc = pc_calloc(ctx, (size_t)m->libs.len + 1, sizeof(uint32_t));
	s->map_memo = pc_alloc(ctx, ((size_t)m->libs.len + 1) * sizeof(*s->map_memo));
	s->str_map = pc_calloc(ctx, (size_t)m->strings.len + 1, sizeof(uint32_t));
	s->strs = pc_alloc(ctx, ((size_t)m->strings.len + m->frames.len + 1) * sizeof(uint32_t));
	if (!s->stack_map || !s->stacks || !s->frame_map || !s->frames || !s->loc_str || !s->xc ||
	    !s->caller || !s->leaf || !s->map_proc || !s->map_memo || !s->str_map || !s->strs)
		return PROFCONV_ERR_NOMEM;
	return 0;
}

static void scr_free(struct gw *g, struct gscr *s)
{
	struct profconv_ctx *ctx = g->ctx;

	pc_free(ctx, s->stack_map);
	pc_free(ctx, s->stacks);
	pc_free(ctx, s->frame_map);
	pc_free(ctx, s->frames);
	pc_free(ctx, s->loc_str);
	pc_free(ctx, s->xc);
	pc_free(ctx, s->caller);
	pc_free(ctx, s->leaf);
	pc_free(ctx, s->map_proc);
	pc_free(ctx, (void *)s->map_memo);
	pc_free(ctx, s->str_map);
	pc_free(ctx, s->strs);
	memset(s, 0, sizeof(*s));
}

/* PROFCONV_GECKO_WRITE_THREAD: "0" never a thread helper, "1" always, else -1 (by size). */
static int thread_help_env(void)
{
	const char *e = getenv("PROFCONV_GECKO_WRITE_THREAD");

	if (e && (e[0] == '0' || e[0] == '1') && !e[1])
		return e[0] == '1';
	return -1;
}

static int write_gecko(struct profconv_ctx *ctx, const struct pc_model *m, profconv_write_fn *fn,
		       void *user)
{
	struct gw g;
	uint32_t i, top = m->nthreads ? thread_process(m->threads[0]) : PC_NONE;
	int err, werr, mu = 0;

	memset(&g, 0, sizeof(g));
	g.ctx = ctx;
	g.m = m;
	g.kernel = pc_process_find(m, -1);
	g.threads_ok = !ctx->opt.no_threads;
	g.thread_help = thread_help_env();
	for (i = 0; i < m->funcs.len && !g.has_src; i++)
		g.has_src = m->funcs.is_js[i] != 0 || m->funcs.source[i] < m->sources.len;
	g.unmapped = pc_alloc(ctx, (size_t)m->libs.len + 1);
	g.lib_slot = pc_alloc(ctx, ((size_t)m->libs.len + 1) * sizeof(uint32_t));
	if (g.unmapped) {
		uint32_t p, k;

		memset(g.unmapped, 1, (size_t)m->libs.len + 1);
		for (p = 0; p < m->processes.len; p++)
			for (k = 0; k < m->processes.rows[p].nmaps; k++) {
				const struct pc_mapping *mp = &m->processes.rows[p].maps[k];

				if (mp->lib < m->libs.len && mp->end > mp->start)
					g.unmapped[mp->lib] = 0;
			}
	}
	/* the libs no process maps come first in every process's `libs` (write_libs()) */
	if (g.lib_slot && g.unmapped) {
		uint32_t slot = 0;

		for (i = 0; i <= m->libs.len; i++)
			g.lib_slot[i] = i < m->libs.len && g.unmapped[i] ? slot++ : PC_NONE;
	}
	g.moved = pc_calloc(ctx, (size_t)m->nthreads + 1, 1);
	g.order = pc_alloc(ctx, ((size_t)m->nthreads + 1) * sizeof(uint32_t));
	g.ent_proc = pc_alloc(ctx, ((size_t)m->nthreads + 2) * sizeof(uint32_t));
	g.ent_start = pc_alloc(ctx, ((size_t)m->nthreads + 2) * sizeof(uint32_t));
	g.w = pc_jw_new(ctx, fn, user);
	err = scr_alloc(&g, &g.scr[0]);
	if (!err && g.threads_ok && g.thread_help)
		err = scr_alloc(&g, &g.scr[1]);
	if (err || !g.unmapped || !g.lib_slot || !g.moved || !g.order || !g.ent_proc ||
	    !g.ent_start || !g.w) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	if (pthread_mutex_init(&g.scr_mu, NULL) != 0) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	mu = 1;
	{
		struct gt t;

		memset(&t, 0, sizeof(t));
		t.gw = &g;
		t.m = m;
		t.s = &g.scr[0];
		for (i = 0; i < m->nthreads; i++)
			g.moved[i] = (uint8_t)moves_to_top(&t, m->threads[i], top);
	}
	err = plan_order(&g, top);
	if (!err)
		src_once(&g);
	if (!err) {
		seg_open(&g, 0);
		err = write_process(&g, 0);
		seg_close(&g); /* after an error */
	}
out:
	if (err) {
		pc_jw_free(g.w);
		werr = 0;
	} else {
		uint64_t replaced = pc_jw_replaced(g.w) + g.replaced;

		werr = pc_jw_finish(g.w);
		if (!werr)
			werr = pc_warn_n(ctx, "strings with invalid UTF-8 (written with U+FFFD)",
					 replaced, NULL,
					 "%llu strings had invalid UTF-8, written with U+FFFD in its place",
					 (unsigned long long)replaced);
	}
	if (mu)
		pthread_mutex_destroy(&g.scr_mu);
	scr_free(&g, &g.scr[0]);
	scr_free(&g, &g.scr[1]);
	pc_free(ctx, g.unmapped);
	pc_free(ctx, g.lib_slot);
	pc_free(ctx, g.moved);
	pc_free(ctx, g.order);
	pc_free(ctx, g.ent_proc);
	pc_free(ctx, g.ent_start);
	pc_free(ctx, g.src.p);
	return err ? err : werr;
}

const struct pc_writer pc_writer_gecko = {
	.name = "gecko",
	.summary = "Gecko profile JSON (format version 36), as Firefox writes it",
	.options = NULL,
	.write = write_gecko,
};
