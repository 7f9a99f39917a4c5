/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_breakpad.c - breakpad .sym text files as a symbol source.
 *
 * The format (breakpad docs/symbol_files.md; docs/formats in the shared
 * notes, symbolication.md 1.7) is line oriented, fields separated by spaces,
 * hex without 0x, the last field of a record may contain spaces:
 *
 *   MODULE <os> <arch> <debug id> <name>        first line, always
 *   INFO ...                                    ignored
 *   FILE <num> <path>
 *   INLINE_ORIGIN <num> <name>
 *   FUNC [m] <addr> <size> <param size> <name>
 *   <addr> <size> <line> <filenum>              line record of the open FUNC
 *   INLINE <depth> <call line> <call file> <origin> (<addr> <size>)+
 *   PUBLIC [m] <addr> <param size> <name>       no size: up to the next symbol
 *   STACK ...                                   unwind info, ignored
 *
 * A libxul file is hundreds of MB, so it is read line by line through a
 * bounded buffer and indexed compactly: one 40-byte row per FUNC/PUBLIC,
 * 12 bytes per line record and 24 per INLINE range, offsets relative to the
 * FUNC start, and all names in one string arena addressed by 32-bit offsets.
 * A line record's extent is implicit (up to the next record of its FUNC or
 * the FUNC end); where the file leaves a hole, a gap record (file BP_GAP)
 * marks it.  The records of one FUNC are collected in a reused scratch
 * array, sorted if needed and compacted when the FUNC block ends.  Nothing
 * is allocated per line.
 *
 * Addresses: .sym addresses are module-relative.  For ELF, dump_syms makes
 * them relative to the module's lowest PT_LOAD p_vaddr, while our rel is the
 * file offset (ip - map.start + map.pgoff).  We assume the two coincide,
 * which holds when the segment holding the code has p_vaddr - lowest p_vaddr
 * == p_offset: true for the GNU ld-linked PIE/.so files we deal with (first
 * PT_LOAD at offset 0 and vaddr 0, text mapped at vaddr == offset), but not
 * for every lld output, where later segments can sit a page above their
 * file offset.  A caller that has the ELF at hand should convert.
 *
 * Damage policy: a missing or garbled MODULE line is an error (nothing else
 * can be trusted); any other malformed line is skipped and counted with
 * pc_warn(kind "malformed symbol-file lines skipped"), reported with its line
 * number; unknown upper-case record types are ignored silently (forward
 * compatibility).  Line and INLINE ranges are clipped to their FUNC.
 */
#include "symbolicate/pc_symlines.h"
#include "symbolicate/pc_symsrc.h"

#include <stdlib.h>

#define BP_MAX_LINE  (1u << 20) /* longer lines are skipped (counted) */
#define BP_MALFORMED "malformed symbol-file lines skipped"
#define BP_NO_ORIGIN "(unknown inlined function)"
#define BP_GAP	     UINT32_MAX /* bp_line.file: no line information from here */

struct bp_sym {
	uint64_t addr;	 /* module-relative */
	uint32_t size;	 /* FUNC size; 0 for PUBLIC */
	uint32_t name;	 /* arena offset */
	uint32_t line0;	 /* first row in lines[] */
	uint32_t nlines; /* sorted by off, distinct offs */
	uint32_t inl0;	 /* first row in inls[] */
	uint32_t ninl;	 /* sorted by (depth, off) after loading */
	uint32_t seq;	 /* file order: duplicates resolve deterministically */
	uint32_t is_func;
};

/* One line record, extending to the next one (or the FUNC end). */
struct bp_line {
	uint32_t off; /* from the FUNC start */
	uint32_t line;
	uint32_t file; /* FILE number, or BP_GAP */
};

/* A line record as read, before compaction. */
struct bp_rawline {
	uint32_t off; /* from the FUNC start */
	uint32_t size;
	uint32_t line;
	uint32_t file;
};

struct bp_inl {
	uint32_t depth;
	uint32_t off; /* from the FUNC start */
	uint32_t size;
	uint32_t call_line;
	uint32_t call_file;
	uint32_t origin;
};

/* FILE and INLINE_ORIGIN tables: sorted by id after loading. */
struct bp_name {
	uint32_t id;
	uint32_t str; /* arena offset */
};

struct bp_src {
	struct pc_symsrc base;
	char *arena;
	size_t arena_len, arena_cap;
	struct bp_sym *syms;
	struct bp_line *lines;
	struct bp_rawline *scratch; /* the open FUNC's line records */
	struct bp_inl *inls;
	struct bp_name *files;
	struct bp_name *origins;
	uint32_t nsyms, syms_cap;
	uint32_t nlines, lines_cap;
	uint32_t nscratch, scratch_cap;
	uint32_t ninls, inls_cap;
	uint32_t nfiles, files_cap;
	uint32_t norigins, origins_cap;
	/* parse state */
	uint32_t cur;	 /* the open FUNC (index in syms) or PC_NONE */
	int in_bad_func; /* the open FUNC was malformed: drop its records quietly */
};

/* --- tokens --- */

/* Decimal that fits in 32 bits, ending at a space or the end of the line. */
static int parse_dec(const char **pp, uint32_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -1;
		p++;
	}
	if (*p && *p != ' ')
		return -1;
	*pp = p;
	*out = (uint32_t)v;
	return 0;
}

/* The record keyword: the first token if it is all upper case (or '_'), else "". */
static size_t keyword_len(const char *s)
{
	size_t n = 0;
	int only_hex = 1;

	while ((s[n] >= 'A' && s[n] <= 'Z') || s[n] == '_') {
		if (s[n] > 'F' || s[n] == '_')
			only_hex = 0;
		n++;
	}
	if (s[n] && s[n] != ' ')
		return 0;
	return only_hex ? 0 : n; /* "ABCD 10 3 0" is an upper-case line record */
}

static int is_word(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(s, w, n) == 0;
}

static int ascii_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = (unsigned char)*a, cb = (unsigned char)*b;

		if (ca >= 'A' && ca <= 'Z')
			ca += 'a' - 'A';
		if (cb >= 'A' && cb <= 'Z')
			cb += 'a' - 'A';
		if (ca != cb || !ca)
			return ca - cb;
	}
}

/* --- storage --- */

static int arena_add(struct profconv_ctx *ctx, struct bp_src *b, const char *s, uint32_t *off)
{
	size_t len = strlen(s);
	size_t need = b->arena_len + len + 1;

	if (need > UINT32_MAX)
		return pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL, "%s: symbol names exceed 4 GiB",
			       b->base.path);
	if (need > b->arena_cap) {
		size_t cap = b->arena_cap ? b->arena_cap * 2 : 64 * 1024;
		char *p;

		while (cap < need)
			cap *= 2;
		if (cap > UINT32_MAX)
			cap = UINT32_MAX;
		p = pc_realloc(ctx, b->arena, cap);
		if (!p)
			return PROFCONV_ERR_NOMEM;
		b->arena = p;
		b->arena_cap = cap;
	}
	memcpy(b->arena + b->arena_len, s, len + 1);
	*off = (uint32_t)b->arena_len;
	b->arena_len = need;
	return 0;
}

#define BP_PUSH(ctx, arr, n, cap) \
	pc_grow((ctx), (void **)&(arr), sizeof(*(arr)), &(cap), (size_t)(n) + 1)

/* --- records --- */

/*
 * Each parser returns NULL when the record was taken (or deliberately
 * dropped), else a short description of what is wrong with it; *err is set
 * on a hard failure (out of memory, limits).
 */

static const char *parse_func(struct profconv_ctx *ctx, struct bp_src *b, const char *p, int *err)
{
	uint64_t addr, size, param;
	struct bp_sym *f;

	b->cur = PC_NONE;
	b->in_bad_func = 1; /* until the record is taken */
	if (pc_sym_skip_spaces(&p))
		return "no address";
	if (p[0] == 'm' && p[1] == ' ')
		p += 2;
	if (pc_sym_parse_hex(&p, 0, &addr))
		return "bad address";
	if (pc_sym_skip_spaces(&p) || pc_sym_parse_hex(&p, 0, &size))
		return "bad size";
	if (size > UINT32_MAX || addr + size < addr)
		return "absurd size";
	if (pc_sym_skip_spaces(&p) || pc_sym_parse_hex(&p, 0, &param))
		return "bad parameter size";
	if (pc_sym_skip_spaces(&p))
		return "no name";
	*err = BP_PUSH(ctx, b->syms, b->nsyms, b->syms_cap);
	if (*err)
		return NULL;
	f = &b->syms[b->nsyms];
	memset(f, 0, sizeof(*f));
	*err = arena_add(ctx, b, p, &f->name);
	if (*err)
		return NULL;
	f->addr = addr;
	f->size = (uint32_t)size;
	f->inl0 = b->ninls;
	f->seq = b->nsyms;
	f->is_func = 1;
	b->cur = b->nsyms++;
	b->in_bad_func = 0;
	return NULL;
}

static const char *parse_public(struct profconv_ctx *ctx, struct bp_src *b, const char *p, int *err)
{
	uint64_t addr, param;
	struct bp_sym *s;

	if (pc_sym_skip_spaces(&p))
		return "no address";
	if (p[0] == 'm' && p[1] == ' ')
		p += 2;
	if (pc_sym_parse_hex(&p, 0, &addr))
		return "bad address";
	if (pc_sym_skip_spaces(&p) || pc_sym_parse_hex(&p, 0, &param))
		return "bad parameter size";
	if (pc_sym_skip_spaces(&p))
		return "no name";
	*err = BP_PUSH(ctx, b->syms, b->nsyms, b->syms_cap);
	if (*err)
		return NULL;
	s = &b->syms[b->nsyms];
	memset(s, 0, sizeof(*s));
	*err = arena_add(ctx, b, p, &s->name);
	if (*err)
		return NULL;
	s->addr = addr;
	s->inl0 = b->ninls;
	s->seq = b->nsyms++;
	return NULL;
}

/* FILE <num> <path> and INLINE_ORIGIN <num> <name>. */
static const char *parse_name(struct profconv_ctx *ctx, struct bp_src *b, const char *p, int origin,
			      int *err)
{
	struct bp_name **arr = origin ? &b->origins : &b->files;
	uint32_t *n = origin ? &b->norigins : &b->nfiles;
	uint32_t *cap = origin ? &b->origins_cap : &b->files_cap;
	struct bp_name *e;
	uint32_t id;

	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &id))
		return "bad index";
	if (pc_sym_skip_spaces(&p))
		return "no name";
	if (origin) {
		/*
		 * Early dump_syms -d wrote "INLINE_ORIGIN <num> <filenum> <name>".
		 * A function name cannot start with a decimal number and a
		 * space, so such a field is the old file number: drop it.
		 */
		const char *q = p;
		uint32_t filenum;

		if (*q == '-')
			q++;
		if (!parse_dec(&q, &filenum) && *q == ' ' && q[1])
			p = q + 1;
	}
	*err = pc_grow(ctx, (void **)arr, sizeof(**arr), cap, (size_t)*n + 1);
	if (*err)
		return NULL;
	e = &(*arr)[*n];
	*err = arena_add(ctx, b, p, &e->str);
	if (*err)
		return NULL;
	e->id = id;
	(*n)++;
	return NULL;
}

/* Clip [addr, addr + size) to the open FUNC; 0 if nothing is left. */
static int clip(const struct bp_sym *f, uint64_t addr, uint64_t size, uint32_t *off, uint32_t *len)
{
	uint64_t fend = f->addr + f->size;
	uint64_t lo = addr > f->addr ? addr : f->addr;
	uint64_t hi = addr + size < fend ? addr + size : fend;

	if (lo >= hi)
		return 0;
	*off = (uint32_t)(lo - f->addr);
	*len = (uint32_t)(hi - lo);
	return 1;
}

static const char *parse_line_record(struct profconv_ctx *ctx, struct bp_src *b, const char *p,
				     int *err)
{
	uint64_t addr, size;
	uint32_t line, file, off, len;
	struct bp_rawline *l;

	if (b->cur == PC_NONE && b->in_bad_func)
		return NULL; /* belongs to a FUNC already reported */
	if (pc_sym_parse_hex(&p, 0, &addr))
		return "bad address";
	if (pc_sym_skip_spaces(&p) || pc_sym_parse_hex(&p, 0, &size))
		return "bad size";
	if (addr + size < addr)
		return "address range overflows";
	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &line))
		return "bad line number";
	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &file))
		return "bad file number";
	if (*p && (pc_sym_skip_spaces(&p) || *p))
		return "trailing fields";
	if (b->cur == PC_NONE)
		return "outside a FUNC";
	if (!clip(&b->syms[b->cur], addr, size, &off, &len))
		return NULL;
	*err = BP_PUSH(ctx, b->scratch, b->nscratch, b->scratch_cap);
	if (*err)
		return NULL;
	l = &b->scratch[b->nscratch++];
	l->off = off;
	l->size = len;
	l->line = line;
	l->file = file;
	return NULL;
}

static const char *parse_inline(struct profconv_ctx *ctx, struct bp_src *b, const char *p, int *err)
{
	uint32_t depth, call_line, call_file, origin, off, len;
	uint32_t first = b->ninls;
	const char *why = NULL;
	struct bp_inl *in;
	uint64_t addr, size;

	if (b->cur == PC_NONE && b->in_bad_func)
		return NULL; /* belongs to a FUNC already reported */
	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &depth))
		return "bad nest level";
	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &call_line))
		return "bad call line";
	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &call_file))
		return "bad call file";
	if (pc_sym_skip_spaces(&p) || parse_dec(&p, &origin))
		return "bad origin";
	if (b->cur == PC_NONE)
		return "outside a FUNC";
	if (!*p)
		return "no address range";
	while (*p) {
		if (pc_sym_skip_spaces(&p) || pc_sym_parse_hex(&p, 0, &addr)) {
			why = "bad range address";
			break;
		}
		if (pc_sym_skip_spaces(&p) || pc_sym_parse_hex(&p, 0, &size)) {
			why = "bad range size";
			break;
		}
		if (addr + size < addr) {
			why = "address range overflows";
			break;
		}
		if (!clip(&b->syms[b->cur], addr, size, &off, &len))
			continue;
		*err = BP_PUSH(ctx, b->inls, b->ninls, b->inls_cap);
		if (*err)
			return NULL;
		in = &b->inls[b->ninls++];
		in->depth = depth;
		in->off = off;
		in->size = len;
		in->call_line = call_line;
		in->call_file = call_file;
		in->origin = origin;
	}
	if (why) {
		b->ninls = first; /* all or nothing */
		return why;
	}
	b->syms[b->cur].ninl += b->ninls - first;
	return NULL;
}

/* --- MODULE --- */

/*
 * "MODULE <os> <arch> <id> <name>": 0 with the id copied into id[], or -1
 * (with what[] describing it) when the line is not a valid MODULE record.
 */
static int parse_module(const char *p, char *id, size_t idlen, const char **what)
{
	const char *s;
	size_t n;

	if (strncmp(p, "MODULE ", 7) != 0) {
		*what = "expected a MODULE record";
		return -1;
	}
	p += 6;
	for (n = 0; n < 2; n++) {
		if (pc_sym_skip_spaces(&p) || !*p) {
			*what = n ? "MODULE record has no debug id" : "MODULE record has no arch";
			return -1;
		}
		while (*p && *p != ' ')
			p++;
	}
	if (pc_sym_skip_spaces(&p) || !*p) {
		*what = "MODULE record has no debug id";
		return -1;
	}
	s = p;
	while (pc_sym_hexval((unsigned char)*p) >= 0)
		p++;
	n = (size_t)(p - s);
	if ((*p && *p != ' ') || n == 0 || n >= idlen) {
		*what = "MODULE debug id is not a hex string of at most 79 digits";
		return -1;
	}
	if (pc_sym_skip_spaces(&p) || !*p) {
		*what = "MODULE record has no name";
		return -1;
	}
	memcpy(id, s, n);
	id[n] = 0;
	return 0;
}

/* --- finishing --- */

static int cmp_sym(const void *a, const void *b)
{
	const struct bp_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_func != y->is_func)
		return x->is_func ? -1 : 1; /* a FUNC beats a PUBLIC at its address */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Total order, so that the result does not depend on qsort's choices. */
static int cmp_rawline(const void *a, const void *b)
{
	const struct bp_rawline *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

static int push_line(struct profconv_ctx *ctx, struct bp_src *b, uint32_t off, uint32_t line,
		     uint32_t file)
{
	struct bp_line *l;
	int err = BP_PUSH(ctx, b->lines, b->nlines, b->lines_cap);

	if (err)
		return err;
	l = &b->lines[b->nlines++];
	l->off = off;
	l->line = line;
	l->file = file;
	return 0;
}

/*
 * End the open FUNC block: its line records (already clipped to the FUNC)
 * go to lines[] in address order, a record at an offset already taken is
 * dropped, and holes get gap records.
 */
static int close_func(struct profconv_ctx *ctx, struct bp_src *b)
{
	struct bp_rawline *v = b->scratch;
	uint32_t i, n = b->nscratch, end = 0;
	struct bp_sym *f;
	int err;

	b->nscratch = 0;
	if (b->cur == PC_NONE)
		return 0;
	f = &b->syms[b->cur];
	b->cur = PC_NONE;
	f->line0 = b->nlines;
	for (i = 1; i < n; i++)
		if (cmp_rawline(&v[i - 1], &v[i]) > 0)
			break;
	if (i < n)
		qsort(v, n, sizeof(*v), cmp_rawline);
	for (i = 0; i < n; i++) {
		if (i && v[i].off == v[i - 1].off)
			continue;
		if (i && end < v[i].off) {
			err = push_line(ctx, b, end, 0, BP_GAP);
			if (err)
				return err;
		}
		err = push_line(ctx, b, v[i].off, v[i].line, v[i].file);
		if (err)
			return err;
		end = v[i].off + v[i].size; /* clipped: no overflow */
	}
	if (n && end < f->size) {
		err = push_line(ctx, b, end, 0, BP_GAP);
		if (err)
			return err;
	}
	f->nlines = b->nlines - f->line0;
	return 0;
}

static int cmp_inl(const void *a, const void *b)
{
	const struct bp_inl *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_name(const void *a, const void *b)
{
	const struct bp_name *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->str < y->str ? -1 : x->str > y->str; /* file order */
}

/* Sort by id; of duplicate ids the last record wins. */
static uint32_t finish_names(struct bp_name *v, uint32_t n)
{
	uint32_t i, k = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_name);
	for (i = 0; i < n; i++) {
		if (k && v[k - 1].id == v[i].id)
			k--;
		v[k++] = v[i];
	}
	return k;
}

static void finish(struct profconv_ctx *ctx, struct bp_src *b)
{
	uint32_t i, k;
	void *p;

	pc_free(ctx, b->scratch);
	b->scratch = NULL;
	b->scratch_cap = 0;

	for (i = 0; i < b->nsyms; i++) {
		struct bp_sym *f = &b->syms[i];
		struct bp_inl *in = b->inls + f->inl0;
		uint32_t j;

		for (j = 1; j < f->ninl; j++)
			if (cmp_inl(&in[j - 1], &in[j]) > 0)
				break;
		if (j < f->ninl)
			qsort(in, f->ninl, sizeof(*in), cmp_inl);
	}
	if (b->nsyms > 1)
		qsort(b->syms, b->nsyms, sizeof(*b->syms), cmp_sym);
	for (i = 0, k = 0; i < b->nsyms; i++)
		if (!k || b->syms[k - 1].addr != b->syms[i].addr)
			b->syms[k++] = b->syms[i];
	b->nsyms = k;
	b->nfiles = finish_names(b->files, b->nfiles);
	b->norigins = finish_names(b->origins, b->norigins);

	/* Give back the growth slack of the two big arrays (failure is harmless). */
	if (b->arena_len && b->arena_len < b->arena_cap) {
		p = pc_realloc(ctx, b->arena, b->arena_len);
		if (p) {
			b->arena = p;
			b->arena_cap = b->arena_len;
		}
	}
	if (b->nlines && b->nlines < b->lines_cap) {
		p = pc_realloc(ctx, b->lines, (size_t)b->nlines * sizeof(*b->lines));
		if (p) {
			b->lines = p;
			b->lines_cap = b->nlines;
		}
	}
}

/* --- lookup --- */

static const char *name_by_id(const struct bp_src *b, const struct bp_name *v, uint32_t n,
			      uint32_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? b->arena + v[lo].str : NULL;
}

static const struct bp_inl *inline_at(const struct bp_src *b, const struct bp_sym *f,
				      uint32_t depth, uint32_t off)
{
	const struct bp_inl *v = b->inls + f->inl0;
	uint32_t lo = 0, hi = f->ninl;

	/* The last range with (depth, off) <= (depth, rel off). */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].depth < depth || (v[mid].depth == depth && v[mid].off <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	v += lo - 1;
	if (v->depth != depth || off - v->off >= v->size)
		return NULL;
	return v;
}

static const struct bp_line *line_at(const struct bp_src *b, const struct bp_sym *f, uint32_t off)
{
	const struct bp_line *v = b->lines + f->line0;
	uint32_t lo = 0, hi = f->nlines;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || v[lo - 1].file == BP_GAP)
		return NULL;
	return &v[lo - 1];
}

static int bp_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out)
{
	const struct bp_src *b = (const struct bp_src *)s;
	const struct bp_sym *f;
	const struct bp_line *l;
	uint32_t lo = 0, hi = b->nsyms, off, depth, n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->syms[mid].addr <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	f = &b->syms[lo - 1];
	if (f->is_func && rel - f->addr >= f->size)
		return 0; /* past the end of the nearest FUNC: a gap */
	out->sym_start = f->addr;
	out->sym_size = f->size;
	out->frames[0].name = b->arena + f->name;
	out->frames[0].file = NULL;
	out->frames[0].line = 0;
	out->nframes = 1;
	if (!f->is_func)
		return 1; /* PUBLIC: extends to the next symbol, size unknown */

	off = (uint32_t)(rel - f->addr);
	n = 1;
	for (depth = 0; n < PC_MAX_INLINE; depth++) {
		const struct bp_inl *in = inline_at(b, f, depth, off);
		const char *name;

		if (!in)
			break;
		/* The outer level executes the call to this one. */
		out->frames[n - 1].file = name_by_id(b, b->files, b->nfiles, in->call_file);
		out->frames[n - 1].line = in->call_line;
		name = name_by_id(b, b->origins, b->norigins, in->origin);
		out->frames[n].name = name ? name : BP_NO_ORIGIN;
		out->frames[n].file = NULL;
		out->frames[n].line = 0;
		n++;
	}
	l = line_at(b, f, off);
	if (l) {
		out->frames[n - 1].file = name_by_id(b, b->files, b->nfiles, l->file);
		out->frames[n - 1].line = l->line;
	}
	out->nframes = n;
	return 1;
}

static void bp_close(struct pc_symsrc *s)
{
	struct bp_src *b = (struct bp_src *)s;
	struct profconv_ctx *ctx = s->ctx;

	pc_free(ctx, b->arena);
	pc_free(ctx, b->syms);
	pc_free(ctx, b->lines);
	pc_free(ctx, b->scratch);
	pc_free(ctx, b->inls);
	pc_free(ctx, b->files);
	pc_free(ctx, b->origins);
	pc_free(ctx, b);
}

static const struct pc_symsrc_ops bp_ops = {
	.kind = "breakpad",
	.lookup = bp_lookup,
	.close = bp_close,
};

/* --- opening --- */

static int parse_body_line(struct profconv_ctx *ctx, struct bp_src *b,
			   const struct pc_line_reader *r, const char *line)
{
	size_t kw = keyword_len(line);
	const char *why = NULL, *rec = "line";
	int err = 0;

	if (!*line)
		return 0;
	if (kw && is_word(line, kw, "INLINE")) {
		rec = "INLINE";
		why = parse_inline(ctx, b, line + kw, &err);
	} else if (kw) {
		err = close_func(ctx, b); /* any other record ends the FUNC block */
		if (err)
			return err;
		b->in_bad_func = 0;
		if (is_word(line, kw, "FUNC")) {
			rec = "FUNC";
			why = parse_func(ctx, b, line + kw, &err);
		} else if (is_word(line, kw, "PUBLIC")) {
			rec = "PUBLIC";
			why = parse_public(ctx, b, line + kw, &err);
		} else if (is_word(line, kw, "FILE")) {
			rec = "FILE";
			why = parse_name(ctx, b, line + kw, 0, &err);
		} else if (is_word(line, kw, "INLINE_ORIGIN")) {
			rec = "INLINE_ORIGIN";
			why = parse_name(ctx, b, line + kw, 1, &err);
		}
		/* INFO, STACK, a repeated MODULE and unknown records: ignored. */
	} else {
		why = parse_line_record(ctx, b, line, &err);
	}
	if (err)
		return err;
	if (why) {
		struct pc_loc loc = { r->path, r->line_off, r->lineno, 1 };

		return pc_warn(ctx, BP_MALFORMED, &loc, "malformed %s record (%s); line skipped",
			       rec, why);
	}
	return 0;
}

int pc_symsrc_open_breakpad(struct profconv_ctx *ctx, const char *path, const char *expect_debug_id,
			    struct pc_symsrc **out, char *why, size_t whylen)
{
	struct pc_line_reader r;
	struct bp_src *b = NULL;
	enum pc_line_what what;
	char id[80];
	char *line;
	int err;

	*out = NULL;
	pc_snprintf(why, whylen, "%s", "");
	err = pc_line_reader_open(ctx, &r, path, BP_MAX_LINE, why, whylen);
	if (err || !r.fp)
		return err;
	b = pc_calloc(ctx, 1, sizeof(*b));
	if (!b) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	b->base.ops = &bp_ops;
	b->base.ctx = ctx;
	pc_snprintf(b->base.path, sizeof(b->base.path), "%s", path);
	b->cur = PC_NONE;

	err = pc_line_reader_next(&r, &line, &what);
	if (err)
		goto out;
	if (what == PC_LINE_OK && r.lineno == 1 && memcmp(line, "\xef\xbb\xbf", 3) == 0)
		line += 3; /* a UTF-8 byte order mark */
	{
		const char *bad = "empty file; expected a MODULE record";

		if (what == PC_LINE_LONG)
			bad = "first line longer than 1 MiB; expected a MODULE record";
		if (what != PC_LINE_OK || parse_module(line, id, sizeof(id), &bad)) {
			struct pc_loc loc = { path, 0, 1, 1 };

			err = pc_fail(ctx, PROFCONV_ERR_CORRUPT, &loc,
				      "not a breakpad symbol file: %s", bad);
			goto out;
		}
	}
	if (expect_debug_id && ascii_casecmp(id, expect_debug_id) != 0) {
		pc_snprintf(why, whylen, "%s: debug id %s does not match the expected %s", path, id,
			    expect_debug_id);
		goto out;
	}

	for (;;) {
		err = pc_line_reader_next(&r, &line, &what);
		if (err || what == PC_LINE_END)
			break;
		if (what == PC_LINE_LONG) {
			struct pc_loc loc = { path, r.line_off, r.lineno, 1 };

			err = pc_warn(ctx, BP_MALFORMED, &loc, "line longer than 1 MiB; skipped");
		} else {
			err = parse_body_line(ctx, b, &r, line);
		}
		if (err)
			break;
	}
	if (!err)
		err = close_func(ctx, b);
	if (err)
		goto out;
	finish(ctx, b);
	if (!b->nsyms) {
		pc_snprintf(why, whylen, "%s: no FUNC or PUBLIC records", path);
		goto out;
	}
	*out = &b->base;
	b = NULL;
out:
	if (b)
		bp_close(&b->base);
	pc_line_reader_close(&r);
	return err;
}
