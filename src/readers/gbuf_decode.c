/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gbuf_decode.c - the buffer of a PGKB dump (docs/formats/gecko-buffer-dump.md
 * sections 4 and 5): blocks, the sample grammar, frames and markers.
 *
 * Blocks are read in index order from the concatenated chunk buffers; each
 * entry's kind comes from the dump's KIND table by name.  Samples follow
 * Gecko's own reader (DoStreamSamplesAndMarkersToJSON in
 * ProfileBufferEntry.cpp): a ThreadId starts a sample; after
 * TimeBeforeCompactStack / TimeBeforeSameSample the RunningTimes,
 * UnresponsiveDurationMs and the CompactStack or SameSample may come with
 * other threads' markers in between; a same-sample repeats the thread's
 * previous stack.  Markers are independent entries.
 *
 * Native addresses become frames of the lib whose mapping holds them
 * (lib-relative; a caller's address, and every address of a marker's
 * backtrace, one less, as the front-end's nudgeReturnAddresses() does),
 * named "0x<absolute address>" as Gecko's JSON names them.
 */
#include "readers/pc_gbuf.h"

#include <math.h>

/* ProfilingStackFrame::Flags (js/public/ProfilingStack.h) */
#define FF_IS_JS_FRAME (1u << 2)
#define FF_STRING_TEMPLATE_METHOD (1u << 4)
#define FF_STRING_TEMPLATE_GETTER (1u << 5)
#define FF_STRING_TEMPLATE_SETTER (1u << 6)
#define FF_RELEVANT_FOR_JS (1u << 7)

static int64_t ms_to_ns(double ms)
{
	double ns = ms * 1e6;

	/* not llround(): the library does not link libm */
	if (!(ns > -9e18 && ns < 9e18))
		return PC_NO_TIME;
	return (int64_t)(ns >= 0 ? ns + 0.5 : ns - 0.5);
}

/* A raw TimeStamp as ns since the process start; PC_NO_TIME for null. */
static int64_t ts_to_ns(const struct gb *g, uint64_t ts)
{
	double d;

	if (ts == 0)
		return PC_NO_TIME;
	d = ts >= g->start_ticks ? (double)(ts - g->start_ticks) : -(double)(g->start_ticks - ts);
	return ms_to_ns(d / g->ticks_per_ms);
}

static int is_frame_kind(unsigned k)
{
	switch (k) {
	case GK_NATIVE_LEAF_ADDR:
	case GK_LABEL:
	case GK_FRAME_FLAGS:
	case GK_DYNAMIC_STRING_FRAGMENT:
	case GK_JIT_RETURN_ADDR:
	case GK_INNER_WINDOW_ID:
	case GK_SOURCE_ID:
	case GK_LINE_NUMBER:
	case GK_COLUMN_NUMBER:
	case GK_CATEGORY_PAIR:
		return 1;
	default:
		return 0;
	}
}

/* --- frames --- */

static void fr_reset(struct gb *g)
{
	g->nfr = 0;
	g->dyn_len = 0;
}

static struct gb_frame *fr_new(struct gb *g, unsigned kind, uint64_t addr)
{
	struct gb_frame *f;

	if (pc_grow(g->ctx, (void **)&g->fr, sizeof(*g->fr), &g->fr_cap, (size_t)g->nfr + 1))
		return NULL;
	f = &g->fr[g->nfr++];
	memset(f, 0, sizeof(*f));
	f->kind = (uint8_t)kind;
	f->addr = addr;
	f->dyn_off = g->dyn_len;
	return f;
}

/*
 * One legacy frame entry (c after the kind byte) into the frame being
 * collected.  1 consumed, 0 not a frame entry, -1 out of memory.
 */
static int fr_entry(struct gb *g, unsigned k, struct pgkb_cur *c)
{
	struct gb_frame *f = g->nfr ? &g->fr[g->nfr - 1] : NULL;
	const unsigned char *q;

	switch (k) {
	case GK_NATIVE_LEAF_ADDR:
	case GK_LABEL:
	case GK_JIT_RETURN_ADDR: {
		uint64_t a = pgkb_uint(c, g->ptr_size);

		if (c->bad) {
			g->w_overrun++;
			return 1;
		}
		return fr_new(g, k, a) ? 1 : -1;
	}
	default:
		break;
	}
	if (!is_frame_kind(k))
		return 0;
	if (!f) {
		g->w_stray++;
		return 1;
	}
	switch (k) {
	case GK_FRAME_FLAGS:
		f->flags = pgkb_u64(c);
		break;
	case GK_DYNAMIC_STRING_FRAGMENT:
		q = pgkb_take(c, 8);
		if (!q)
			break;
		if (g->dyn_len > UINT32_MAX - 16)
			break;
		if (pc_grow(g->ctx, (void **)&g->dyn, 1, &g->dyn_cap, (size_t)g->dyn_len + 8))
			return -1;
		memcpy(g->dyn + g->dyn_len, q, 8);
		g->dyn_len += 8;
		f->dyn_len += 8;
		break;
	case GK_INNER_WINDOW_ID:
		f->inner_window_id = pgkb_u64(c);
		if (f->inner_window_id > PC_MAX_WINDOW_ID) {
			g->w_window++; /* no window has it (see PC_MAX_WINDOW_ID) */
			f->inner_window_id = 0;
		}
		break;
	case GK_SOURCE_ID:
		f->source_id = pgkb_u32(c);
		f->has_source = 1;
		break;
	case GK_LINE_NUMBER:
		f->line = pgkb_u32(c);
		break;
	case GK_COLUMN_NUMBER:
		f->column = pgkb_u32(c);
		break;
	case GK_CATEGORY_PAIR:
		f->pair = pgkb_u32(c);
		f->has_pair = 1;
		break;
	}
	if (c->bad)
		g->w_overrun++;
	return 1;
}

static size_t hex_name(char *buf, size_t size, uint64_t a)
{
	return pc_snprintf(buf, size, "0x%llx", (unsigned long long)a);
}

/* The text at a string pointer, or "0x..." (counted) into buf. */
static const char *ptr_text(struct gb *g, uint64_t addr, char *buf, size_t size, size_t *len)
{
	const struct gb_str *s = gb_find_str(g, addr);

	if (s) {
		*len = s->len;
		return s->s;
	}
	g->w_unresolved++;
	*len = hex_name(buf, size, addr);
	return buf;
}

static void pair_category(const struct gb *g, const struct gb_frame *f, uint16_t *cat,
			  uint16_t *sub)
{
	if (f->has_pair && f->pair < g->npairs) {
		*cat = g->pair_cat[f->pair];
		*sub = g->pair_sub[f->pair];
	} else {
		*cat = PC_NO_CATEGORY;
		*sub = 0;
	}
}

/* The SYMS symbol of lib l holding the lib-relative address a, or NULL. */
static const struct gb_sym *find_sym(const struct gb_lib *l, uint64_t a)
{
	uint32_t lo = 0, hi = l->nsyms;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->syms[mid].off <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a - l->syms[lo - 1].off >= l->syms[lo - 1].size)
		return NULL;
	return &l->syms[lo - 1];
}

/* Model frame of a JIT return address's JITF frame: a JS function; PC_NONE on OOM. */
static uint32_t make_jit_frame(struct gb *g, const struct gb_jit_frame *j)
{
	struct pc_model *m = g->m;
	struct pc_func_key fk;
	struct pc_frame_key k;

	memset(&fk, 0, sizeof(fk));
	memset(&k, 0, sizeof(k));
	fk.resource = PC_NONE;
	fk.source = PC_NONE;
	fk.name = pc_str_intern(m, j->label, j->len);
	fk.is_js = 1; /* as a label frame of the same function, so both are one func */
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.address = PC_NO_ADDRESS;
	k.line = j->line;
	k.column = j->column;
	if (j->pair < g->npairs) {
		k.category = g->pair_cat[j->pair];
		k.subcategory = g->pair_sub[j->pair];
	} else {
		k.category = PC_NO_CATEGORY;
	}
	if (fk.name == PC_NONE)
		return PC_NONE;
	k.func = pc_func_intern(m, &fk);
	if (k.func == PC_NONE)
		return PC_NONE;
	return pc_frame_intern(m, &k);
}

/* Model frame of g->fr[i]; PC_NONE on OOM. */
static uint32_t make_frame(struct gb *g, const struct gb_frame *f, int is_caller)
{
	struct pc_model *m = g->m;
	struct pc_func_key fk;
	struct pc_frame_key k;
	char buf[64];
	size_t len;

	memset(&fk, 0, sizeof(fk));
	memset(&k, 0, sizeof(k));
	fk.resource = PC_NONE;
	fk.source = PC_NONE;
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.address = PC_NO_ADDRESS;
	k.category = PC_NO_CATEGORY;
	if (f->kind == GK_LABEL) {
		const char *label = "", *dyn = g->dyn ? g->dyn + f->dyn_off : "";
		size_t llen = 0, dlen = 0, n;
		char *name;
		uint32_t flags = (uint32_t)f->flags;

		if (f->addr)
			label = ptr_text(g, f->addr, buf, sizeof(buf), &llen);
		while (dlen < f->dyn_len && dyn[dlen])
			dlen++;
		name = pc_alloc(g->ctx, llen + dlen + 8);
		if (!name)
			return PC_NONE;
		if (llen && dlen) {
			const char *pre = "", *sep = " ";

			if (flags & FF_STRING_TEMPLATE_METHOD)
				sep = ".";
			else if (flags & FF_STRING_TEMPLATE_GETTER)
				pre = "get ", sep = ".";
			else if (flags & FF_STRING_TEMPLATE_SETTER)
				pre = "set ", sep = ".";
			n = pc_snprintf(name, llen + dlen + 8, "%s%.*s%s%.*s", pre, (int)llen,
					label, sep, (int)dlen, dyn);
		} else if (dlen) {
			memcpy(name, dyn, dlen);
			n = dlen;
		} else {
			memcpy(name, label, llen);
			n = llen;
		}
		fk.name = pc_str_intern(m, name, n);
		pc_free(g->ctx, name);
		fk.is_js = (flags & FF_IS_JS_FRAME) != 0;
		fk.relevant_for_js = (flags & FF_RELEVANT_FOR_JS) != 0;
		k.line = f->line;
		k.column = f->column;
		pair_category(g, f, &k.category, &k.subcategory);
	} else {
		const struct gb_lib *l = f->kind == GK_NATIVE_LEAF_ADDR ? gb_find_lib(g, f->addr) : NULL;
		const struct gb_sym *sym = NULL;

		if (f->kind == GK_JIT_RETURN_ADDR)
			g->w_jit++;
		if (l) {
			uint64_t rel = f->addr - (l->start - l->offset);

			fk.resource = m->libs.rows[l->lib].resource;
			k.lib = l->lib;
			k.address = is_caller && rel ? rel - 1 : rel;
			sym = find_sym(l, k.address);
		}
		if (sym) {
			/* an image read from the process (the vdso): named here */
			fk.name = pc_str_intern(m, sym->name, sym->len);
		} else {
			len = hex_name(buf, sizeof(buf), f->addr);
			fk.name = pc_str_intern(m, buf, len);
		}
	}
	if (fk.name == PC_NONE)
		return PC_NONE;
	k.func = pc_func_intern(m, &fk);
	if (k.func == PC_NONE)
		return PC_NONE;
	return f->inner_window_id ? pc_frame_intern_iw(m, &k, f->inner_window_id)
				  : pc_frame_intern(m, &k);
}

/*
 * The stack of the collected frames (root first); PC_NONE for none.  With
 * all_callers every address is a return address (a backtrace).
 * 0 or -1 on OOM.
 */
static int fr_finish(struct gb *g, int all_callers, uint32_t *out)
{
	uint32_t prefix = PC_NONE, i;

	for (i = 0; i < g->nfr; i++) {
		const struct gb_jit *jit = g->fr[i].kind == GK_JIT_RETURN_ADDR && g->njit
						   ? gb_find_jit(g, g->fr[i].addr)
						   : NULL;
		uint32_t fr, q;

		if (jit && jit->count) {
			/* JITF lists the inline stack innermost first: pushed outermost first */
			for (q = jit->count; q > 0; q--) {
				fr = make_jit_frame(g, &g->jitfr[jit->first + q - 1]);
				if (fr == PC_NONE)
					return -1;
				prefix = pc_stack_intern(g->m, prefix, fr);
				if (prefix == PC_NONE)
					return -1;
			}
			continue;
		}
		fr = make_frame(g, &g->fr[i], all_callers || i + 1 < g->nfr);
		if (fr == PC_NONE)
			return -1;
		prefix = pc_stack_intern(g->m, prefix, fr);
		if (prefix == PC_NONE)
			return -1;
	}
	*out = prefix;
	return 0;
}

/*
 * A serialized ProfileChunkedBuffer at c (section 3.12 layout) holding
 * [ThreadId Time] frame*: the frames into g->fr.  0, 1 when it overran
 * (counted; c is bad), -1 on OOM.
 */
static int nested(struct gb *g, struct pgkb_cur *c, uint64_t *tid, double *time, int *has_time)
{
	struct pgkb_cur b;
	uint64_t len = pgkb_uleb(c);
	const unsigned char *bytes;

	fr_reset(g);
	*has_time = 0;
	if (c->bad || len == 0)
		return c->bad;
	pgkb_u64(c); /* start index */
	if (len > pgkb_left(c)) {
		c->bad = 1;
		return 1;
	}
	bytes = pgkb_take(c, (size_t)len);
	pgkb_u64(c); /* pushed */
	pgkb_u64(c); /* cleared */
	if (c->bad)
		return 1;
	pgkb_cur_init(&b, bytes, (size_t)len);
	while (pgkb_left(&b)) {
		uint64_t size = pgkb_uleb(&b);
		struct pgkb_cur e;
		const unsigned char *q;
		unsigned k;
		int r;

		if (b.bad || size == 0 || size > pgkb_left(&b)) {
			g->w_overrun++;
			return 0; /* the frames so far stand */
		}
		q = pgkb_take(&b, (size_t)size);
		k = g->kind_of_tag[q[0]];
		pgkb_cur_init(&e, q + 1, (size_t)size - 1);
		if (k == GK_THREAD_ID) {
			*tid = pgkb_uint(&e, g->tid_size);
		} else if (k == GK_TIME) {
			*time = pgkb_f64(&e);
			*has_time = !e.bad;
		} else {
			r = fr_entry(g, k, &e);
			if (r < 0)
				return -1;
			if (r == 0 && k == GK_NONE)
				g->w_unknown_tag++;
		}
	}
	return 0;
}

/* --- samples --- */

struct pend {
	int active;
	unsigned kind;
	uint64_t tid;
	double ms;
	int has_cpu, has_delay;
	uint64_t cpu;
	double delay_ms;
};

static int emit_sample(struct gb *g, const struct pend *p, uint32_t stack, int set_last)
{
	struct gb_tstate *ts;
	int64_t t = ms_to_ns(p->ms);

	if (t == PC_NO_TIME) {
		g->w_overrun++;
		return 0;
	}
	ts = gb_thread(g, p->tid);
	if (!ts)
		return -1;
	if (set_last) {
		ts->last_stack = stack;
		ts->has_last = 1;
	}
	/* Gecko does not stream a sample with neither frames nor running times */
	if (stack == PC_NONE && !p->has_cpu)
		return 0;
	if (pc_sample_add(g->m, ts->t, stack, t, 1))
		return -1;
	if (p->has_cpu && pc_sample_set_cpu_delta(g->m, ts->t, (int64_t)(p->cpu & INT64_MAX)))
		return -1;
	if (p->has_delay) {
		int64_t d = ms_to_ns(p->delay_ms);

		if (d != PC_NO_TIME && pc_sample_set_event_delay(g->m, ts->t, d))
			return -1;
	}
	g->samples++;
	return 0;
}

/* --- markers --- */

/* A ProfilerString8View (unit 1) or 16-bit view (unit 2): its text, length in units (literal pointers resolve through STRS, else a 0x name in buf). */
static const unsigned char *str_view(struct gb *g, struct pgkb_cur *c, size_t unit, char *buf,
				     size_t size, size_t *len, int *owned)
{
	uint64_t v = pgkb_uleb(c), n = v >> 1;

	*owned = (int)(v & 1);
	*len = 0;
	if (c->bad)
		return NULL;
	if (v & 1) {
		const unsigned char *q;

		if (n > pgkb_left(c) / unit) {
			c->bad = 1;
			return NULL;
		}
		q = pgkb_take(c, (size_t)n * unit);
		*len = (size_t)n;
		return q;
	} else {
		uint64_t a = pgkb_uint(c, g->ptr_size);

		if (c->bad)
			return NULL;
		return (const unsigned char *)ptr_text(g, a, buf, size, len);
	}
}

/* UTF-16LE (n units) to UTF-8 in a new buffer (*out, *olen); -1 on OOM. */
static int utf16(struct gb *g, const unsigned char *q, size_t n, char **out, size_t *olen)
{
	char *s = pc_alloc(g->ctx, n * 3 + 1);
	size_t i, o = 0;

	if (!s)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t u = pc_load_u16(q + 2 * i, 0);

		if (u >= 0xd800 && u < 0xdc00 && i + 1 < n) {
			uint32_t lo = pc_load_u16(q + 2 * i + 2, 0);

			if (lo >= 0xdc00 && lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				i++;
				/* 4 bytes in the room of two units */
				s[o++] = (char)(0xf0 | u >> 18);
				s[o++] = (char)(0x80 | ((u >> 12) & 0x3f));
				s[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
				s[o++] = (char)(0x80 | (u & 0x3f));
				continue;
			}
		}
		if (u >= 0xd800 && u < 0xe000)
			u = 0xfffd;
		if (u < 0x80) {
			s[o++] = (char)u;
		} else if (u < 0x800) {
			s[o++] = (char)(0xc0 | u >> 6);
			s[o++] = (char)(0x80 | (u & 0x3f));
		} else {
			s[o++] = (char)(0xe0 | u >> 12);
			s[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
			s[o++] = (char)(0x80 | (u & 0x3f));
		}
	}
	s[o] = 0;
	*out = s;
	*olen = o;
	return 0;
}

/* One payload field into the builder.  0, or -1 on OOM. */
static int field(struct gb *g, struct pc_pvb *b, const struct gb_field *f, struct pgkb_cur *c)
{
	char buf[64];
	size_t len;
	int owned;
	const unsigned char *q;
	uint64_t u;

	if (f->flags & 1) {
		uint8_t mk = pgkb_u8(c);

		if (mk == 'm' || c->bad)
			return 0;
		if (mk != 'M') {
			c->bad = 1;
			return 0;
		}
	}
	switch (f->type) {
	case PGKB_S_U8:
	case PGKB_S_U16:
	case PGKB_S_U32:
	case PGKB_S_U64:
		u = pgkb_uint(c, f->type == PGKB_S_U8    ? 1
				 : f->type == PGKB_S_U16 ? 2
				 : f->type == PGKB_S_U32 ? 4
							 : 8);
		if (c->bad)
			return 0;
		pc_pvb_key(b, f->key, f->key_len);
		if (u > INT64_MAX)
			pc_pvb_dbl(b, (double)u);
		else
			pc_pvb_int(b, (int64_t)u);
		return 0;
	case PGKB_S_I32:
		u = pgkb_u32(c);
		if (!c->bad) {
			pc_pvb_key(b, f->key, f->key_len);
			pc_pvb_int(b, (int32_t)(uint32_t)u);
		}
		return 0;
	case PGKB_S_I64:
	case PGKB_S_DURATION:
		u = pgkb_u64(c);
		if (!c->bad) {
			pc_pvb_key(b, f->key, f->key_len);
			if (f->type == PGKB_S_I64)
				pc_pvb_int(b, (int64_t)u);
			else
				pc_pvb_dbl(b, (double)(int64_t)u / g->ticks_per_ms);
		}
		return 0;
	case PGKB_S_F64: {
		double d = pgkb_f64(c);

		if (!c->bad) {
			pc_pvb_key(b, f->key, f->key_len);
			pc_pvb_dbl(b, d);
		}
		return 0;
	}
	case PGKB_S_BOOL:
		u = pgkb_u8(c);
		if (!c->bad) {
			pc_pvb_key(b, f->key, f->key_len);
			pc_pvb_bool(b, u != 0);
		}
		return 0;
	case PGKB_S_TIMESTAMP: {
		int64_t t = ts_to_ns(g, pgkb_u64(c));

		if (!c->bad) {
			pc_pvb_key(b, f->key, f->key_len);
			pc_pvb_dbl(b, t == PC_NO_TIME ? 0.0 : (double)t / 1e6);
		}
		return 0;
	}
	case PGKB_S_FLOW: {
		uint32_t row;

		u = pgkb_u64(c);
		if (c->bad)
			return 0;
		/* a flow id only has to be equal where the flow is the same */
		len = pc_snprintf(buf, sizeof(buf), "%llx", (unsigned long long)u);
		row = pc_str_intern(g->m, buf, len);
		if (row == PC_NONE)
			return -1;
		pc_pvb_key(b, f->key, f->key_len);
		pc_pvb_sref(b, row);
		return 0;
	}
	case PGKB_S_STR8VIEW:
		q = str_view(g, c, 1, buf, sizeof(buf), &len, &owned);
		if (q) {
			pc_pvb_key(b, f->key, f->key_len);
			pc_pvb_str(b, (const char *)q, len);
		}
		return 0;
	case PGKB_S_NSCSTRING:
	case PGKB_S_STDSTRING:
		u = pgkb_uleb(c);
		if (u > pgkb_left(c)) {
			c->bad = 1;
			return 0;
		}
		q = pgkb_take(c, (size_t)u);
		if (q) {
			pc_pvb_key(b, f->key, f->key_len);
			pc_pvb_str(b, (const char *)q, (size_t)u);
		}
		return 0;
	case PGKB_S_STR16VIEW:
	case PGKB_S_NSSTRING: {
		char *s;
		size_t sl;

		if (f->type == PGKB_S_NSSTRING) {
			u = pgkb_uleb(c);
			if (u > pgkb_left(c) / 2) {
				c->bad = 1;
				return 0;
			}
			q = pgkb_take(c, (size_t)u * 2);
			len = (size_t)u;
			owned = 1;
		} else {
			q = str_view(g, c, 2, buf, sizeof(buf), &len, &owned);
		}
		if (!q)
			return 0;
		pc_pvb_key(b, f->key, f->key_len);
		if (!owned) {
			pc_pvb_str(b, (const char *)q, len);
			return 0;
		}
		if (utf16(g, q, len, &s, &sl))
			return -1;
		pc_pvb_str(b, s, sl);
		pc_free(g->ctx, s);
		return 0;
	}
	default: /* opaque, or a type this version does not know: the rest is skipped */
		c->bad = 1;
		return 0;
	}
}

/*
 * A marker whose phase needs a time that is null (raw 0) or out of range:
 * an interval keeps the side it has (as an interval start or end); with no
 * time left it is dropped (returns 1).  Either way counted: the output must
 * never hold what validate rejects (issue 22 item 8).
 */
static int fix_times(struct gb *g, struct pc_marker_row *row)
{
	int has_s = row->start != PC_NO_TIME, has_e = row->end != PC_NO_TIME;

	switch (row->phase) {
	case PC_PHASE_INTERVAL:
		if (has_s && has_e)
			return 0;
		g->w_mtime++;
		if (!has_s && !has_e)
			return 1;
		row->phase = has_s ? PC_PHASE_START : PC_PHASE_END;
		if (has_s)
			row->end = PC_NO_TIME;
		else
			row->start = PC_NO_TIME;
		return 0;
	case PC_PHASE_INSTANT:
	case PC_PHASE_START:
		if (has_s)
			return 0;
		g->w_mtime++;
		return 1;
	default:
		if (has_e)
			return 0;
		g->w_mtime++;
		return 1;
	}
}

static int marker(struct gb *g, struct pgkb_cur *c)
{
	struct pc_model *m = g->m;
	struct pc_marker_row row;
	struct gb_tstate *ts;
	uint64_t tid, iw, pair, stid = 0;
	uint64_t st = 0, en = 0;
	uint8_t phase, tag, ptype = 0;
	double stime = 0;
	int has_stime, r, owned;
	uint32_t cause = PC_NONE;
	const unsigned char *nm;
	char buf[64];
	size_t nlen;

	pc_marker_row_init(&row);
	tid = pgkb_uint(c, g->tid_size);
	phase = pgkb_u8(c);
	switch (phase) {
	case PC_PHASE_INSTANT:
	case PC_PHASE_START:
		st = pgkb_u64(c);
		break;
	case PC_PHASE_INTERVAL:
		st = pgkb_u64(c);
		en = pgkb_u64(c);
		break;
	case PC_PHASE_END:
		en = pgkb_u64(c);
		break;
	default:
		c->bad = 1;
		break;
	}
	if (c->bad) {
		g->w_overrun++;
		return 0;
	}
	r = nested(g, c, &stid, &stime, &has_stime);
	if (r < 0)
		return -1;
	if (r > 0) {
		g->w_overrun++;
		return 0;
	}
	if (g->nfr && fr_finish(g, 1, &cause))
		return -1;
	iw = pgkb_u64(c);
	if (iw > PC_MAX_WINDOW_ID) {
		g->w_window++;
		iw = 0;
	}
	nm = str_view(g, c, 1, buf, sizeof(buf), &nlen, &owned);
	pair = pgkb_uleb(c);
	tag = pgkb_u8(c);
	if (tag)
		ptype = pgkb_u8(c);
	if (c->bad || !nm) {
		g->w_overrun++;
		return 0;
	}
	row.phase = phase;
	row.start = ts_to_ns(g, st);
	row.end = ts_to_ns(g, en);
	if (fix_times(g, &row))
		return 0; /* no time it needs: dropped (counted) */
	ts = gb_thread(g, tid ? tid : g->pid);
	if (!ts)
		return -1;
	row.name = pc_str_intern(m, (const char *)nm, nlen);
	if (row.name == PC_NONE)
		return -1;
	row.category = pair < g->npairs ? g->pair_cat[pair] : 0;
	if (cause != PC_NONE) {
		row.cause_stack = cause;
		row.cause_time = has_stime ? ms_to_ns(stime) : PC_NO_TIME;
		row.cause_tid = stid ? (int64_t)stid : (int64_t)ts->tid;
	}
	if (tag || cause != PC_NONE || iw) {
		struct pc_pvb b;
		const struct gb_mtype *t = NULL;
		uint32_t i;

		if (tag && ptype < 2 && g->mtype_ix[ptype][tag])
			t = &g->mtypes[g->mtype_ix[ptype][tag] - 1];
		pc_pvb_begin(&b, m, 0);
		pc_pvb_key_z(&b, "type");
		if (t) {
			pc_pvb_str(&b, t->name, t->name_len);
		} else if (tag) {
			char tn[48];
			size_t tl = pc_snprintf(tn, sizeof(tn), "UnknownTag%u%s", tag,
						ptype ? "Rust" : "");

			g->w_untyped++;
			pc_pvb_str(&b, tn, tl);
		} else {
			pc_pvb_str_z(&b, "NoPayloadUserData");
		}
		if (iw) {
			pc_pvb_key_z(&b, "innerWindowID");
			pc_pvb_int(&b, (int64_t)iw);
		}
		if (cause != PC_NONE) {
			pc_pvb_key_z(&b, "cause");
			pc_pvb_cause(&b);
		}
		if (t) {
			for (i = 0; i < t->nfields && !c->bad; i++)
				if (field(g, &b, &t->fields[i], c))
					return -1;
			if (c->bad)
				g->w_overrun++;
			else if (!t->complete && pgkb_left(c))
				g->w_fields++;
		}
		row.payload = pc_pvb_end(&b);
		if (row.payload == PC_NONE)
			return -1;
	}
	if (pc_marker_push(m, ts->t, &row))
		return -1;
	g->markers++;
	return 0;
}

/* --- paused ranges, counters --- */

#define GB_MAX_PAUSED 4096

static int paused(struct gb *g, const char *reason, int open, double ms, int32_t *cur)
{
	int64_t t = ms_to_ns(ms);

	if (open) {
		uint32_t rcap = g->paused_cap;

		if (*cur >= 0)
			return 0; /* already open: the first start stands */
		/* every thread gets every range: a bound keeps that product sane */
		if (g->npaused >= GB_MAX_PAUSED) {
			g->w_stray++;
			return 0;
		}
		if (pc_grow(g->ctx, (void **)&g->paused, 2 * sizeof(*g->paused), &g->paused_cap,
			    (size_t)g->npaused + 1))
			return -1;
		if (g->paused_cap != rcap) {
			const char **nr = pc_realloc(g->ctx, g->paused_reason,
						     (size_t)g->paused_cap * sizeof(*nr));

			if (!nr)
				return -1;
			g->paused_reason = nr;
		}
		g->paused[2 * g->npaused] = t;
		g->paused[2 * g->npaused + 1] = PC_NO_TIME;
		g->paused_reason[g->npaused] = reason;
		*cur = (int32_t)g->npaused++;
	} else if (*cur >= 0) {
		g->paused[2 * *cur + 1] = t;
		*cur = -1;
	} else {
		g->w_stray++;
	}
	return 0;
}

struct pcount {
	int active, has_time, has_count;
	uint64_t ptr;
	double ms;
	int64_t count;
};

static int counter_flush(struct gb *g, struct pcount *k, int has_number, uint64_t number)
{
	struct gb_counter *c;
	int64_t t;

	if (!k->active)
		return 0;
	k->active = 0;
	if (!k->has_time || !k->has_count) {
		g->w_stray++;
		return 0;
	}
	c = gb_find_counter(g, k->ptr);
	t = ms_to_ns(k->ms);
	if (!c || t == PC_NO_TIME) {
		g->w_counter += !c;
		return 0;
	}
	if (c->row == PC_NONE) {
		c->row = pc_counter_add(g->m, c->label, c->category, c->description, g->proc);
		if (c->row == PC_NONE)
			return -1;
	}
	return pc_counter_sample(g->m, c->row, t, (double)k->count, has_number, (double)number)
		       ? -1
		       : 0;
}

/* --- the buffer --- */

int gb_decode(struct gb *g)
{
	struct pgkb_cur c, e;
	struct pend p;
	struct pcount k;
	uint64_t len, tid = 0;
	int after_tid = 0, sync = 0, r = 0;
	int32_t open_pause = -1, open_collect = -1;
	const unsigned char *q;

	memset(&p, 0, sizeof(p));
	memset(&k, 0, sizeof(k));
	pgkb_cur_init(&c, g->bufr, g->bufr_len);
	len = pgkb_uleb(&c);
	if (c.bad)
		return pc_fail_at(g->ctx, PROFCONV_ERR_CORRUPT, g->path, g->bufr_off,
				  "BUFR: a ULEB128 length expected");
	if (len == 0)
		return 0;
	pgkb_u64(&c);
	if (c.bad || len > pgkb_left(&c)) {
		if (pc_warn(g->ctx, "damaged buffer entries", NULL,
			    "%s: BUFR length %llu exceeds its section; reading what is there",
			    g->path, (unsigned long long)len))
			return g->ctx->status;
		len = pgkb_left(&c);
	}
	q = pgkb_take(&c, (size_t)len);
	pgkb_cur_init(&c, q, (size_t)len);
	while (pgkb_left(&c) && !r) {
		uint64_t size = pgkb_uleb(&c), off = c.pos;
		unsigned kind;

		if (c.bad || size == 0 || size > pgkb_left(&c)) {
			g->w_overrun++;
			break;
		}
		q = pgkb_take(&c, (size_t)size);
		(void)off;
		kind = g->kind_of_tag[q[0]];
		pgkb_cur_init(&e, q + 1, (size_t)size - 1);
		g->blocks++;
		g->kind_count[kind]++;
		if (kind == GK_NONE) {
			g->w_unknown_tag++;
			continue;
		}
		if (sync && !is_frame_kind(kind)) {
			uint32_t stack;

			sync = 0;
			r = fr_finish(g, 0, &stack);
			if (!r)
				r = emit_sample(g, &p, stack, 1);
			p.active = 0;
			if (r)
				break;
		}
		if (k.active && kind != GK_NUMBER && kind != GK_TIME && kind != GK_COUNT) {
			r = counter_flush(g, &k, 0, 0);
			if (r)
				break;
		}
		switch (kind) {
		case GK_THREAD_ID:
			if (p.active)
				g->w_cut++;
			p.active = 0;
			tid = pgkb_uint(&e, g->tid_size);
			after_tid = !e.bad;
			break;
		case GK_TIME:
			if (after_tid) {
				memset(&p, 0, sizeof(p));
				p.tid = tid;
				p.ms = pgkb_f64(&e);
				p.kind = kind;
				sync = 1;
				after_tid = 0;
				fr_reset(g);
			} else if (k.active && !k.has_time) {
				k.ms = pgkb_f64(&e);
				k.has_time = !e.bad;
			} else {
				g->w_stray++;
			}
			break;
		case GK_TIME_BEFORE_COMPACT_STACK:
		case GK_TIME_BEFORE_SAME_SAMPLE:
			if (!after_tid) {
				g->w_stray++;
				break;
			}
			memset(&p, 0, sizeof(p));
			p.active = 1;
			p.kind = kind;
			p.tid = tid;
			p.ms = pgkb_f64(&e);
			after_tid = 0;
			break;
		case GK_RUNNING_TIMES:
			if (p.active) {
				uint64_t bits = pgkb_uleb(&e);
				unsigned i;

				for (i = 0; i < 64 && !e.bad; i++) {
					if (bits & ((uint64_t)1 << i)) {
						uint64_t v = pgkb_uleb(&e);

						if (i == 0 && !e.bad) {
							p.has_cpu = 1;
							p.cpu = v;
						}
					}
				}
				if (e.bad)
					g->w_overrun++;
			} else {
				g->w_stray++;
			}
			break;
		case GK_UNRESPONSIVE_DURATION_MS:
			if (p.active) {
				p.delay_ms = pgkb_f64(&e);
				p.has_delay = !e.bad;
			} else {
				g->w_stray++;
			}
			break;
		case GK_COMPACT_STACK:
			if (p.active && p.kind == GK_TIME_BEFORE_COMPACT_STACK) {
				uint64_t t2 = 0;
				double ms2;
				int ht;
				uint32_t stack = PC_NONE;

				r = nested(g, &e, &t2, &ms2, &ht);
				if (r > 0) {
					g->w_overrun++;
					r = 0;
				}
				if (!r)
					r = fr_finish(g, 0, &stack);
				if (!r)
					r = emit_sample(g, &p, stack, 1);
				p.active = 0;
			} else {
				g->w_stray++;
			}
			break;
		case GK_SAME_SAMPLE:
			if (p.active && p.kind == GK_TIME_BEFORE_SAME_SAMPLE) {
				struct gb_tstate *ts = gb_thread(g, p.tid);

				if (!ts)
					r = -1;
				else if (!ts->has_last)
					g->w_same_nostack++;
				else
					r = emit_sample(g, &p, ts->last_stack, 0);
				p.active = 0;
			} else {
				g->w_stray++;
			}
			break;
		case GK_MARKER:
			r = marker(g, &e);
			break;
		case GK_COUNTER_ID:
			memset(&k, 0, sizeof(k));
			k.ptr = pgkb_u64(&e);
			k.active = !e.bad;
			break;
		case GK_COUNT:
			if (k.active) {
				k.count = (int64_t)pgkb_u64(&e);
				k.has_count = !e.bad;
			} else {
				g->w_stray++;
			}
			break;
		case GK_NUMBER:
			if (k.active)
				r = counter_flush(g, &k, 1, pgkb_u64(&e));
			else
				g->w_stray++;
			break;
		case GK_PAUSE:
		case GK_RESUME:
			r = paused(g, "profiler-paused", kind == GK_PAUSE, pgkb_f64(&e), &open_pause);
			break;
		case GK_COLLECTION_START:
		case GK_COLLECTION_END:
			r = paused(g, "collecting", kind == GK_COLLECTION_START, pgkb_f64(&e),
				   &open_collect);
			break;
		default:
			if (is_frame_kind(kind)) {
				if (sync)
					r = fr_entry(g, kind, &e) < 0 ? -1 : 0;
				else
					g->w_stray++;
			}
			/* overhead, PauseSampling, ResumeSampling, Responsiveness: not streamed */
			break;
		}
	}
	if (!r && sync) {
		uint32_t stack;

		r = fr_finish(g, 0, &stack);
		if (!r)
			r = emit_sample(g, &p, stack, 1);
	} else if (!r && p.active) {
		g->w_cut++;
	}
	if (!r)
		r = counter_flush(g, &k, 0, 0);
	return r ? gb_nomem(g) : 0;
}
