/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_text.c - one-line-per-symbol text sources: /tmp/perf-PID.map and
 * /proc/kallsyms.
 *
 * Both become one sorted array of non-overlapping [start, end) ranges with
 * names in a string arena; a lookup is a binary search.  Addresses are kept
 * absolute and a bias is subtracted on the way out: 0 for a perf map (its
 * "lib-relative" addresses are absolute), the address of _text for kallsyms
 * (rel = address - _text, with wrap-around for symbols below _text, such as
 * arm64 modules: both directions wrap the same way).
 *
 * perf map ("START SIZE name", hex with optional 0x, the name may contain
 * spaces): entries are applied in file order and a later entry removes every
 * earlier one it overlaps, whole, as samply does (its perf_map.rs feeds
 * each line to LibMappings::add_mapping, which drops overlapping mappings).
 * So an address that only a removed entry covered is not found.  A zero-size
 * entry covers nothing but still removes the entry containing its start.
 *
 * kallsyms ("ADDR TYPE NAME [module]"): text symbols (t T w W, core kernel
 * and modules) are looked up.  A symbol ends at the next symbol of any type
 * in the same module (so data symbols bound text ones); the last symbol of a
 * module gets perf's guess, up to the next page boundary plus one page, and
 * size 0 (unknown).  Of several aliases at one address the last in file
 * order is the name, as perf 6.1 shows it: its kallsyms loader sets each
 * symbol's end (symbols__fixup_end()) before it drops duplicates
 * (symbols__fixup_duplicate()), so every alias but the last has size 0 and
 * choose_best_symbol()'s first rule, a sized symbol over one of size 0,
 * decides (checked with perf report --kallsyms on files with an alias put
 * before or after a sampled symbol: weak or with more underscores, the one
 * after wins).
 *
 * Damage: a malformed line is skipped and counted (pc_warn kind "malformed
 * symbol-file lines skipped", with its line number).
 */
#include "symbolicate/pc_symlines.h"
#include "symbolicate/pc_symsrc.h"
#include "symbolicate/pc_sympersist.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define TX_MAX_LINE  (1u << 16) /* longer lines are skipped (counted) */
#define TX_MALFORMED "malformed symbol-file lines skipped"
#define TX_HEX	     (PC_SYM_HEX_0X | PC_SYM_HEX_BLANK) /* optional 0x, ends at a blank */

struct tx_ent {
	uint64_t start, end; /* absolute, end exclusive */
	uint32_t name;	     /* arena offset */
	uint32_t size;	     /* reported size; 0 = unknown */
};
/* the kallsyms cache keeps them as they are (pc_sympersist.h) */
_Static_assert(sizeof(struct tx_ent) == 24, "struct tx_ent is the kallsyms cache's entry");

struct tx_src {
	struct pc_symsrc base;
	char *arena;
	size_t arena_len, arena_cap;
	struct tx_ent *ents; /* sorted by start, non-overlapping */
	uint32_t n, cap;
	uint64_t bias; /* subtracted from addresses: 0 or _text */
	/* kallsyms: 1 for a core kernel symbol with a known end (pc_sympersist.h) */
	uint8_t *sure;
	/* read from the kallsyms cache: ents, arena and sure point into blob;
	 * a lookup that is not sure reads real_path once, into real */
	unsigned char *blob;
	pthread_mutex_t mu;
	int has_mu;
	_Atomic(struct pc_symsrc *) real;
	int real_tried;
};

/* --- storage, lookup --- */

static int arena_add(struct profconv_ctx *ctx, struct tx_src *t, const char *s, size_t len,
		     uint32_t *off)
{
	size_t need = t->arena_len + len + 1;

	if (need > UINT32_MAX)
		return pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL, "%s: symbol names exceed 4 GiB",
			       t->base.path);
	if (need > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap * 2 : 64 * 1024;
		char *p;

		while (cap < need)
			cap *= 2;
		if (cap > UINT32_MAX)
			cap = UINT32_MAX;
		p = pc_realloc(ctx, t->arena, cap);
		if (!p)
			return PROFCONV_ERR_NOMEM;
		t->arena = p;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_len, s, len);
	t->arena[t->arena_len + len] = 0;
	*off = (uint32_t)t->arena_len;
	t->arena_len = need;
	return 0;
}

/* The index of the entry holding addr, or -1 (entries sorted, not overlapping). */
static int64_t tx_find(const struct tx_src *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < t->ents[lo - 1].end ? (int64_t)lo - 1 : -1;
}

static int tx_answer(const struct tx_src *t, int64_t i, struct pc_sym_result *out)
{
	const struct tx_ent *e;

	if (i < 0)
		return 0;
	e = &t->ents[i];
	out->sym_start = e->start - t->bias;
	out->sym_size = e->size;
	out->nframes = 1;
	out->frames[0].name = t->arena + e->name;
	out->frames[0].file = NULL;
	out->frames[0].line = 0;
	return 1;
}

static int tx_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out)
{
	const struct tx_src *t = (const struct tx_src *)s;

	return tx_answer(t, tx_find(t, rel + t->bias), out);
}

static void tx_close(struct pc_symsrc *s)
{
	struct tx_src *t = (struct tx_src *)s;
	struct profconv_ctx *ctx = s->ctx;
	struct pc_symsrc *real = atomic_load(&t->real);

	if (t->blob) {
		pc_free(ctx, t->blob);
	} else {
		pc_free(ctx, t->arena);
		pc_free(ctx, t->ents);
		pc_free(ctx, t->sure);
	}
	if (real)
		real->ops->close(real);
	if (t->has_mu)
		pthread_mutex_destroy(&t->mu);
	pc_free(ctx, t);
}

static const struct pc_symsrc_ops perf_map_ops = {
	.kind = "perf-map",
	.lookup = tx_lookup,
	.close = tx_close,
};

static const struct pc_symsrc_ops kallsyms_ops = {
	.kind = "kallsyms",
	.lookup = tx_lookup,
	.close = tx_close,
};

/*
 * Common opening: the file and the source (the reader allocates its line
 * buffer when it reads the first line).  On success with *out NULL (file
 * absent, why[] set) or on an error, nothing is left open.
 */
static int tx_open(struct profconv_ctx *ctx, const char *path, const struct pc_symsrc_ops *ops,
		   struct pc_line_reader *r, struct tx_src **out, char *why, size_t whylen)
{
	struct tx_src *t;
	int err;

	*out = NULL;
	err = pc_line_reader_open(ctx, r, path, TX_MAX_LINE, why, whylen);
	if (err || !r->fp)
		return err;
	t = pc_calloc(ctx, 1, sizeof(*t));
	if (!t) {
		pc_line_reader_close(r);
		return PROFCONV_ERR_NOMEM;
	}
	t->base.ops = ops;
	t->base.ctx = ctx;
	pc_snprintf(t->base.path, sizeof(t->base.path), "%s", path);
	*out = t;
	return 0;
}

static int warn_line(struct profconv_ctx *ctx, const struct pc_line_reader *r, const char *what)
{
	struct pc_loc loc = { r->path, r->line_off, r->lineno, 1 };

	return pc_warn(ctx, TX_MALFORMED, &loc, "%s; line skipped", what);
}

/* --- perf map --- */

struct pm_raw {
	uint64_t start, end, kill_end;
	uint32_t name;
	uint32_t pad;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct tx_ent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static uint32_t coord_index(const uint64_t *c, uint32_t m, uint64_t x)
{
	uint32_t lo = 0, hi = m;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t dsu_find(uint32_t *parent, uint32_t x)
{
	uint32_t root = x, next;

	while (parent[root] != root)
		root = parent[root];
	while (parent[x] != root) {
		next = parent[x];
		parent[x] = root;
		x = next;
	}
	return root;
}

/*
 * Keep the entries that no later entry overlaps (see the top comment).
 * Entry i dies iff some j > i has start_j < end_i and kill_end_j > start_i,
 * where kill_end is end, or start + 1 for a zero-size entry.  Walking from
 * the last entry back, the union of the later entries' [start, kill_end)
 * is kept as marked elementary segments between the sorted distinct
 * coordinates: a Fenwick tree counts marks for the overlap query and a
 * "next unmarked segment" union-find marks each segment once, so the whole
 * pass is O(n log n) whatever the overlaps.
 */
static int pm_resolve(struct profconv_ctx *ctx, struct tx_src *t, const struct pm_raw *raw,
		      uint32_t n)
{
	uint64_t *coord = NULL;
	uint32_t *parent = NULL, *fen = NULL;
	uint32_t m = 0, i, k;
	int err = 0;

	if (!n)
		return 0;
	coord = pc_calloc(ctx, (size_t)n * 3, sizeof(*coord));
	t->ents = pc_calloc(ctx, n, sizeof(*t->ents));
	if (!coord || !t->ents) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	t->cap = n;
	for (i = 0; i < n; i++) {
		coord[m++] = raw[i].start;
		coord[m++] = raw[i].end;
		coord[m++] = raw[i].kill_end;
	}
	qsort(coord, m, sizeof(*coord), cmp_u64);
	for (i = 0, k = 0; i < m; i++)
		if (!k || coord[k - 1] != coord[i])
			coord[k++] = coord[i];
	m = k;
	/* Segment g = [coord[g], coord[g + 1]), g < m - 1; parent[m - 1] is a sentinel. */
	parent = pc_calloc(ctx, m, sizeof(*parent));
	fen = pc_calloc(ctx, (size_t)m + 1, sizeof(*fen));
	if (!parent || !fen) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < m; i++)
		parent[i] = i;

	for (i = n; i-- > 0;) {
		const struct pm_raw *e = &raw[i];
		uint32_t a = coord_index(coord, m, e->start);
		uint32_t b = coord_index(coord, m, e->end);
		uint32_t kb = coord_index(coord, m, e->kill_end);
		uint32_t g, j, marked = 0;

		if (b > a) {
			/* marks in segments [a, b) = prefix(b) - prefix(a) */
			for (j = b; j; j &= j - 1)
				marked += fen[j];
			for (j = a; j; j &= j - 1)
				marked -= fen[j];
			if (!marked) {
				struct tx_ent *o = &t->ents[t->n++];

				o->start = e->start;
				o->end = e->end;
				o->name = e->name;
				o->size = (uint32_t)(e->end - e->start);
			}
		}
		for (g = dsu_find(parent, a); g < kb; g = dsu_find(parent, g)) {
			for (j = g + 1; j <= m; j += j & -j)
				fen[j]++;
			parent[g] = g + 1;
		}
	}
	if (t->n > 1)
		qsort(t->ents, t->n, sizeof(*t->ents), cmp_ent);
out:
	pc_free(ctx, coord);
	pc_free(ctx, parent);
	pc_free(ctx, fen);
	return err;
}

/* "START SIZE name"; NULL when taken, else what is wrong. */
static const char *pm_parse(const char *p, uint64_t *start, uint64_t *size, const char **name)
{
	if (pc_sym_parse_hex(&p, TX_HEX, start))
		return "bad start address";
	if (pc_sym_skip_blanks(&p) || pc_sym_parse_hex(&p, TX_HEX, size))
		return "bad size";
	if (*size > UINT32_MAX || *start + *size < *start)
		return "absurd size";
	if (pc_sym_skip_blanks(&p) || !*p)
		return "no name";
	*name = p;
	return NULL;
}

int pc_symsrc_open_perf_map(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
			    char *why, size_t whylen)
{
	struct pc_line_reader r;
	struct tx_src *t = NULL;
	struct pm_raw *raw = NULL;
	uint32_t nraw = 0, rawcap = 0;
	enum pc_line_what what;
	int err;

	*out = NULL;
	pc_snprintf(why, whylen, "%s", "");
	err = tx_open(ctx, path, &perf_map_ops, &r, &t, why, whylen);
	if (err || !t)
		return err;
	for (;;) {
		const char *bad, *name = NULL;
		uint64_t start = 0, size = 0;
		char *line;
		struct pm_raw *e;

		err = pc_line_reader_next(&r, &line, &what);
		if (err || what == PC_LINE_END)
			break;
		if (what == PC_LINE_LONG) {
			err = warn_line(ctx, &r, "line longer than 64 KiB");
			if (err)
				break;
			continue;
		}
		if (!*line)
			continue;
		bad = pm_parse(line, &start, &size, &name);
		if (bad) {
			err = warn_line(ctx, &r, bad);
			if (err)
				break;
			continue;
		}
		err = pc_grow(ctx, (void **)&raw, sizeof(*raw), &rawcap, (size_t)nraw + 1);
		if (err)
			break;
		e = &raw[nraw];
		err = arena_add(ctx, t, name, strlen(name), &e->name);
		if (err)
			break;
		e->start = start;
		e->end = start + size;
		e->kill_end = size ? e->end : start + (start != UINT64_MAX);
		e->pad = 0;
		nraw++;
	}
	if (!err)
		err = pm_resolve(ctx, t, raw, nraw);
	if (!err && !t->n)
		pc_snprintf(why, whylen, "%s: no symbols", path);
	if (!err && t->n) {
		*out = &t->base;
		t = NULL;
	}
	if (t)
		tx_close(&t->base);
	pc_free(ctx, raw);
	pc_line_reader_close(&r);
	return err;
}

/* --- kallsyms --- */

struct ks_raw {
	uint64_t addr;
	uint32_t name;	 /* arena offset, text symbols only; else PC_NONE */
	uint32_t module; /* arena offset of the module name, PC_NONE = core kernel */
	uint32_t seq;
	char type;
};

static int cmp_ks(const void *a, const void *b)
{
	const struct ks_raw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ks_is_text(int type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int same_module(const struct tx_src *t, uint32_t a, uint32_t b)
{
	if (a == b)
		return 1;
	if (a == PC_NONE || b == PC_NONE)
		return 0;
	return strcmp(t->arena + a, t->arena + b) == 0;
}

static int ks_build(struct profconv_ctx *ctx, struct tx_src *t, struct ks_raw *raw, uint32_t n)
{
	uint32_t i = 0, j, best, ntext = 0;

	for (j = 0; j < n; j++)
		ntext += raw[j].name != PC_NONE;
	if (!ntext)
		return 0;
	t->ents = pc_calloc(ctx, ntext, sizeof(*t->ents));
	t->sure = pc_calloc(ctx, ntext, 1);
	if (!t->ents || !t->sure)
		return PROFCONV_ERR_NOMEM;
	t->cap = ntext;
	/* /proc/kallsyms is in address order already (seq rises with the line) */
	for (j = 1; j < n && raw[j - 1].addr <= raw[j].addr; j++)
		;
	if (j < n)
		qsort(raw, n, sizeof(*raw), cmp_ks);
	while (i < n) {
		struct tx_ent *o;
		uint64_t addr = raw[i].addr;

		best = PC_NONE;
		for (j = i; j < n && raw[j].addr == addr; j++)
			if (raw[j].name != PC_NONE)
				best = j; /* the last text symbol here (see the top) */
		/* raw[j] is now the first symbol above addr, if any */
		if (best != PC_NONE) {
			o = &t->ents[t->n++];
			o->start = addr;
			o->name = raw[best].name;
			if (j < n && same_module(t, raw[best].module, raw[j].module)) {
				uint64_t gap = raw[j].addr - addr;

				o->end = raw[j].addr;
				o->size = gap > UINT32_MAX ? 0 : (uint32_t)gap;
				t->sure[t->n - 1] = raw[best].module == PC_NONE;
			} else {
				/* perf's guess for a module's last symbol; size unknown */
				uint64_t page = (addr + 4095) & ~(uint64_t)4095;

				if (page < addr || page > UINT64_MAX - 4096)
					o->end = UINT64_MAX;
				else
					o->end = page + 4096;
				o->size = 0;
			}
		}
		i = j;
	}
	return 0;
}

/* "ADDR TYPE NAME[\t[module]]"; NULL when well-formed, else what is wrong. */
static const char *ks_parse(char *p, uint64_t *addr, char *type, char **name, size_t *namelen,
			    char **module, size_t *modlen)
{
	const char *q = p;
	char *s;

	if (pc_sym_parse_hex(&q, TX_HEX, addr))
		return "bad address";
	if (pc_sym_skip_blanks(&q) || !*q || (q[1] && !pc_sym_is_blank((unsigned char)q[1])))
		return "bad symbol type";
	*type = *q++;
	if (pc_sym_skip_blanks(&q) || !*q)
		return "no name";
	s = p + (q - p);
	*name = s;
	while (*s && !pc_sym_is_blank((unsigned char)*s))
		s++;
	*namelen = (size_t)(s - *name);
	*module = NULL;
	*modlen = 0;
	while (pc_sym_is_blank((unsigned char)*s))
		s++;
	if (*s) {
		char *e;

		if (*s != '[')
			return "trailing fields";
		e = strchr(s, ']');
		if (!e || e == s + 1)
			return "bad module name";
		*module = s + 1;
		*modlen = (size_t)(e - s - 1);
	}
	return NULL;
}

int pc_symsrc_open_kallsyms(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
			    char *why, size_t whylen)
{
	struct pc_line_reader r;
	struct tx_src *t = NULL;
	struct ks_raw *raw = NULL;
	uint32_t nraw = 0, rawcap = 0, last_mod = PC_NONE;
	uint64_t text_addr = 0;
	enum pc_line_what what;
	int err, have_text = 0, nonzero = 0;

	*out = NULL;
	pc_snprintf(why, whylen, "%s", "");
	err = tx_open(ctx, path, &kallsyms_ops, &r, &t, why, whylen);
	if (err || !t)
		return err;
	for (;;) {
		char *line, *name = NULL, *mod = NULL;
		size_t namelen = 0, modlen = 0;
		uint64_t addr = 0;
		const char *bad;
		struct ks_raw *e;
		char type = 0;

		err = pc_line_reader_next(&r, &line, &what);
		if (err || what == PC_LINE_END)
			break;
		if (what == PC_LINE_LONG) {
			err = warn_line(ctx, &r, "line longer than 64 KiB");
			if (err)
				break;
			continue;
		}
		if (!*line)
			continue;
		bad = ks_parse(line, &addr, &type, &name, &namelen, &mod, &modlen);
		if (bad) {
			err = warn_line(ctx, &r, bad);
			if (err)
				break;
			continue;
		}
		nonzero |= addr != 0;
		if (!have_text && !mod && namelen == 5 && memcmp(name, "_text", 5) == 0) {
			have_text = 1;
			text_addr = addr;
		}
		err = pc_grow(ctx, (void **)&raw, sizeof(*raw), &rawcap, (size_t)nraw + 1);
		if (err)
			break;
		e = &raw[nraw];
		memset(e, 0, sizeof(*e));
		e->addr = addr;
		e->type = type;
		e->seq = nraw;
		e->name = PC_NONE;
		e->module = PC_NONE;
		if (ks_is_text((unsigned char)type)) {
			err = arena_add(ctx, t, name, namelen, &e->name);
			if (err)
				break;
		}
		if (mod) {
			/* A module's symbols are contiguous: reuse the last copy of its name. */
			if (last_mod != PC_NONE && strlen(t->arena + last_mod) == modlen &&
			    memcmp(t->arena + last_mod, mod, modlen) == 0) {
				e->module = last_mod;
			} else {
				err = arena_add(ctx, t, mod, modlen, &e->module);
				if (err)
					break;
				last_mod = e->module;
			}
		}
		nraw++;
	}
	if (err)
		goto out;
	if (!nraw) {
		pc_snprintf(why, whylen, "%s: no symbols", path);
		goto out;
	}
	if (!nonzero) {
		pc_snprintf(why, whylen,
			    "%s: all addresses are zero: kernel.kptr_restrict hides them "
			    "(read it as root, or set /proc/sys/kernel/kptr_restrict to 0)",
			    path);
		goto out;
	}
	if (!have_text) {
		pc_snprintf(why, whylen, "%s: no _text symbol to make addresses relative to", path);
		goto out;
	}
	t->bias = text_addr;
	err = ks_build(ctx, t, raw, nraw);
	if (err)
		goto out;
	if (!t->n) {
		pc_snprintf(why, whylen, "%s: no text symbols", path);
		goto out;
	}
	*out = &t->base;
	t = NULL;
out:
	if (t)
		tx_close(&t->base);
	pc_free(ctx, raw);
	pc_line_reader_close(&r);
	return err;
}

/* --- the host's kallsyms, through the kallsyms cache (pc_sympersist.h) --- */

static int kc_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out);

static const struct pc_symsrc_ops kallsyms_cached_ops = {
	.kind = "kallsyms",
	.lookup = kc_lookup,
	.close = tx_close,
};

/* The real file, read on the first lookup the cache cannot answer; NULL if unreadable. */
static struct pc_symsrc *kc_real(struct tx_src *t)
{
	struct pc_symsrc *real = atomic_load(&t->real);
	char why[512];

	if (real || t->real_tried)
		return real;
	pthread_mutex_lock(&t->mu);
	if (!t->real_tried) {
		pc_note(t->base.ctx, "%s: an address the kallsyms cache is not sure of: reading the file",
			t->base.path);
		if (pc_symsrc_open_kallsyms(t->base.ctx, t->base.path, &real, why, sizeof(why)) == 0 &&
		    real)
			atomic_store(&t->real, real);
		t->real_tried = 1;
	}
	pthread_mutex_unlock(&t->mu);
	return atomic_load(&t->real);
}

static int kc_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out)
{
	struct tx_src *t = (struct tx_src *)s;
	int64_t i = tx_find(t, rel + t->bias);
	struct pc_symsrc *real;

	/* in a core symbol with a known end: what the file says now too */
	if (i >= 0 && t->sure[i])
		return tx_answer(t, i, out);
	real = kc_real(t);
	return real ? real->ops->lookup(real, rel, out) : tx_answer(t, i, out);
}

int pc_symsrc_open_host_kallsyms(struct profconv_ctx *ctx, struct pc_symsrc **out, char *why,
				 size_t whylen)
{
	const char *dir = ctx->opt.symbol_cache;
	char pbuf[4200], key[1024], key2[1024];
	const char *path = pc_host_kernel_file(PC_HK_KALLSYMS, pbuf, sizeof(pbuf));
	size_t keylen = 0;
	uint64_t warns;
	struct pc_kpersist d;
	struct tx_src *t;
	int err;

	*out = NULL;
	if (dir && dir[0])
		keylen = pc_kpersist_key(key, sizeof(key));
	if (keylen && pc_kpersist_read(ctx, dir, key, keylen, &d) == 0) {
		t = pc_calloc(ctx, 1, sizeof(*t));
		if (!t) {
			pc_free(ctx, d.buf);
			return PROFCONV_ERR_NOMEM;
		}
		if (pthread_mutex_init(&t->mu, NULL) != 0) {
			pc_free(ctx, d.buf);
			pc_free(ctx, t);
			return PROFCONV_ERR_NOMEM;
		}
		t->has_mu = 1;
		t->base.ops = &kallsyms_cached_ops;
		t->base.ctx = ctx;
		pc_snprintf(t->base.path, sizeof(t->base.path), "%s", path);
		t->blob = d.buf;
		t->ents = (struct tx_ent *)(uintptr_t)d.ents;
		t->n = (uint32_t)d.n;
		t->sure = (uint8_t *)(uintptr_t)d.sure;
		t->arena = (char *)(uintptr_t)d.str;
		t->arena_len = t->arena_cap = (size_t)d.nstr;
		t->bias = d.bias;
		atomic_init(&t->real, NULL);
		pc_note(ctx, "%s: from the kallsyms cache in %s", path, dir);
		*out = &t->base;
		return 0;
	}
	warns = ctx->warn_total;
	err = pc_symsrc_open_kallsyms(ctx, path, out, why, whylen);
	/* written only when it read cleanly and the key still holds afterwards */
	if (!err && *out && keylen && ctx->warn_total == warns &&
	    pc_kpersist_key(key2, sizeof(key2)) == keylen && memcmp(key, key2, keylen) == 0) {
		t = (struct tx_src *)*out;
		d.buf = NULL;
		d.n = t->n;
		d.ents = t->ents;
		d.sure = t->sure;
		d.str = t->arena;
		d.nstr = t->arena_len;
		d.bias = t->bias;
		pc_kpersist_write(ctx, dir, key, keylen, &d);
	}
	return err;
}
