/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gbuf_libs.c - what `profconv gecko-dump PID` reads from a Firefox
 * process's memory to name the frames the profiler's buffer leaves as
 * addresses (docs/formats/gecko-buffer-dump.md section 8, steps 6e, 6f):
 *
 *   - JIT code: the JS engine's own table of its code ranges
 *     (js/src/jit/JitcodeMap.h: one JitcodeGlobalEntry per piece of
 *     generated code, each giving the range [start, end) and, for Baseline
 *     and Ion code, the "name (file:line:col)" string the profiler itself
 *     streams for a JIT return address).  The table is found by its
 *     entries' contents, as the chunks are: every 8-byte-aligned position of
 *     the private anonymous writable memory is tried as an entry;
 *   - the vdso: the kernel's image is mapped at [vdso]; its .dynsym names
 *     what runs there (clock_gettime and the like) and its note gives the
 *     build id.
 *
 * The entry layout is Firefox ESR 153's on x86-64, measured on a live
 * 153.7.0esr (Debian) content process, whose shutdown profile named the
 * same code the same way (see the format page): Firefox does not publish
 * it, and other versions may differ (then nothing is found, and the frames
 * stay addresses as before).  Linux only, like the capture.
 */
#include "core/pc_config.h"

#include <stdlib.h>

#include "gecko/pc_gbuf_libs.h"

#define JIT_LABEL_MAX 1023
#define JIT_ENTRIES_MAX 200000u

/* JitcodeGlobalEntry (ESR 153, x86-64): offsets in bytes */
#define JE_START 0	 /* void *nativeStartAddr_ */
#define JE_END 8	 /* void *nativeEndAddr_ */
#define JE_CODE 16	 /* JitCode *jitcode_ (null once collected) */
#define JE_SAMPLED 32	 /* uint64_t samplePositionInBuffer_ (UINT64_MAX: none) */
#define JE_KIND 40	 /* Kind: 0 Ion, 1 IonIC, 2 Baseline, ... 5 */
#define JE_BASELINE_STR 72 /* BaselineEntry: UniqueChars str_ */
#define JE_ION_LIST 48	 /* IonEntry: ScriptList (begin, length, capacity, inline storage) */
#define JE_ION_ITEM 40	 /* one ScriptListEntry */
#define JE_ION_ITEM_LINE 24 /* u32 line, u32 column */
#define JE_ION_ITEM_STR 32 /* UniqueChars str */
#define JE_IC_REJOIN 48	 /* IonICEntry: void *rejoinAddr_ */
#define JE_SIZE 80	 /* bytes read per candidate */

enum { JK_ION = 0, JK_IONIC = 1, JK_BASELINE = 2, JK_LAST = 5 };

static uint32_t ld32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ld64(const unsigned char *p)
{
	return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

void pc_jit_scan_init(struct pc_jit_scan *s, struct profconv_ctx *ctx, pc_mem_read_fn read,
		      void *user, const uint64_t *exec, size_t nexec)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->read = read;
	s->user = user;
	s->exec = exec;
	s->nexec = nexec;
}

/* The end of the executable region holding a, or 0. */
static uint64_t exec_end(const struct pc_jit_scan *s, uint64_t a)
{
	size_t lo = 0, hi = s->nexec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < s->exec[2 * mid])
			hi = mid;
		else if (a >= s->exec[2 * mid + 1])
			lo = mid + 1;
		else
			return s->exec[2 * mid + 1];
	}
	return 0;
}

/* A printable NUL-terminated string of 1 to JIT_LABEL_MAX bytes at addr, into the pool. */
static int take_label(struct pc_jit_scan *s, uint64_t addr, size_t *off)
{
	char buf[JIT_LABEL_MAX + 1];
	size_t got, n;

	if (!addr || (got = s->read(s->user, addr, buf, sizeof(buf))) == 0)
		return 0;
	for (n = 0; n < got && buf[n] && (unsigned char)buf[n] >= 0x20 && buf[n] != 0x7f; n++)
		;
	if (n == 0 || n == got || buf[n])
		return 0;
	if (s->pool_len + n + 1 > s->pool_cap) {
		size_t cap = s->pool_cap ? s->pool_cap : 4096;
		char *np;

		while (cap < s->pool_len + n + 1)
			cap *= 2;
		np = pc_realloc(s->ctx, s->pool, cap);
		if (!np)
			return -1;
		s->pool = np;
		s->pool_cap = cap;
	}
	memcpy(s->pool + s->pool_len, buf, n);
	s->pool[s->pool_len + n] = 0;
	*off = s->pool_len;
	s->pool_len += n + 1;
	return 1;
}

static int add_raw(struct pc_jit_scan *s, const struct pc_jit_raw *r)
{
	if (s->n == JIT_ENTRIES_MAX)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct pc_jit_raw *np = pc_realloc(s->ctx, s->raw, cap * sizeof(*np));

		if (!np)
			return -1;
		s->raw = np;
		s->cap = cap;
	}
	s->raw[s->n++] = *r;
	return 0;
}

/* One candidate entry at p (JE_SIZE bytes, from address at). */
static int try_entry(struct pc_jit_scan *s, const unsigned char *p)
{
	uint64_t start = ld64(p + JE_START), end = ld64(p + JE_END), code = ld64(p + JE_CODE);
	uint64_t sampled = ld64(p + JE_SAMPLED), rend;
	unsigned kind = p[JE_KIND];
	struct pc_jit_raw r;
	int t;

	rend = exec_end(s, start);
	/* jitcode_ is null once the code is collected: the profiler keeps a sampled entry */
	if (!rend || end <= start || end > rend || (code & 7) || kind > JK_LAST)
		return 0;
	/* a buffer position (the profiler's index space) or none */
	if (sampled != UINT64_MAX && sampled >= (uint64_t)1 << 48)
		return 0;
	memset(&r, 0, sizeof(r));
	r.start = start;
	r.end = end;
	r.sampled = sampled;
	switch (kind) {
	case JK_BASELINE:
		t = take_label(s, ld64(p + JE_BASELINE_STR), &r.label);
		if (t <= 0)
			return t;
		r.impl = 2;
		break;
	case JK_ION: {
		uint64_t begin = ld64(p + JE_ION_LIST), len = ld64(p + JE_ION_LIST + 8),
			 cap = ld64(p + JE_ION_LIST + 16);
		unsigned char item[JE_ION_ITEM];

		if (len == 0 || len > cap || cap > 4096 || !begin || (begin & 7) ||
		    s->read(s->user, begin, item, sizeof(item)) != sizeof(item))
			return 0;
		t = take_label(s, ld64(item + JE_ION_ITEM_STR), &r.label);
		if (t <= 0)
			return t;
		r.impl = 1;
		r.line = ld32(item + JE_ION_ITEM_LINE);
		r.column = ld32(item + JE_ION_ITEM_LINE + 4);
		if (r.line > 100000000 || r.column > 100000000)
			r.line = r.column = 0;
		break;
	}
	case JK_IONIC:
		r.rejoin = ld64(p + JE_IC_REJOIN);
		if (!exec_end(s, r.rejoin))
			return 0;
		r.impl = 1;
		r.is_ic = 1;
		break;
	default:
		return 0; /* the baseline interpreter, trampolines, dummies: no script of their own */
	}
	return add_raw(s, &r);
}

int pc_jit_scan_block(struct pc_jit_scan *s, const unsigned char *p, size_t len)
{
	size_t k;

	if (!s->nexec)
		return 0;
	for (k = 0; k + JE_SIZE <= len; k += 8) {
		uint64_t v = ld64(p + k);

		/* the cheap test first: a pointer into the JIT's code */
		if (v < s->exec[0] || v >= s->exec[2 * s->nexec - 1])
			continue;
		if (try_entry(s, p + k) < 0)
			return s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
	}
	return 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct pc_jit_raw *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* of copies of one range: the one the profiler marked sampled (latest) first */
	if (x->sampled != y->sampled) {
		if (x->sampled == UINT64_MAX || y->sampled == UINT64_MAX)
			return x->sampled == UINT64_MAX ? 1 : -1;
		return x->sampled > y->sampled ? -1 : 1;
	}
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The named (Ion or Baseline) entry holding addr, among the sorted kept ones; or NULL. */
static const struct pc_jit_raw *find_named(const struct pc_jit_raw *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < v[mid].start)
			hi = mid;
		else if (addr >= v[mid].end)
			lo = mid + 1;
		else
			return v[mid].is_ic ? NULL : &v[mid];
	}
	return NULL;
}

int pc_jit_scan_finish(struct pc_jit_scan *s, struct pc_pgkb_jit **out, size_t *nout)
{
	struct pc_pgkb_jit *e;
	size_t i, k = 0;

	*out = NULL;
	*nout = 0;
	if (!s->n)
		return 0;
	qsort(s->raw, s->n, sizeof(*s->raw), raw_cmp);
	/* one entry per range: an overlapping later one is a stale copy */
	for (i = 0; i < s->n; i++) {
		if (k && s->raw[i].start < s->raw[k - 1].end) {
			s->dropped++;
			continue;
		}
		s->raw[k++] = s->raw[i];
	}
	s->n = k;
	/* an Ion IC stub is named by the Ion code it rejoins */
	for (i = 0; i < s->n; i++)
		if (s->raw[i].is_ic) {
			const struct pc_jit_raw *ion = find_named(s->raw, s->n, s->raw[i].rejoin);

			s->raw[i].has_label = ion != NULL;
			if (ion)
				s->raw[i].label = ion->label;
		} else {
			s->raw[i].has_label = 1;
		}
	e = pc_alloc(s->ctx, s->n * sizeof(*e));
	if (!e)
		return s->ctx->status ? s->ctx->status : PROFCONV_ERR_NOMEM;
	for (i = k = 0; i < s->n; i++) {
		if (!s->raw[i].has_label) {
			s->dropped++;
			continue;
		}
		e[k].start = s->raw[i].start;
		e[k].end = s->raw[i].end;
		e[k].label = s->pool + s->raw[i].label;
		e[k].impl = s->raw[i].impl;
		e[k].line = s->raw[i].is_ic ? 0 : s->raw[i].line;
		e[k].column = s->raw[i].is_ic ? 0 : s->raw[i].column;
		k++;
	}
	*out = e;
	*nout = k;
	return 0;
}

void pc_jit_scan_free(struct pc_jit_scan *s)
{
	pc_free(s->ctx, s->raw);
	pc_free(s->ctx, s->pool);
	s->raw = NULL;
	s->pool = NULL;
	s->n = s->cap = s->pool_len = s->pool_cap = 0;
}

/* --- the vdso --- */

static int sym_cmp(const void *a, const void *b)
{
	const struct pc_pgkb_sym *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The GNU build id note among len bytes of notes at p, into id; 1 when found. */
static int note_build_id(const unsigned char *p, size_t len, struct pc_pgkb_buildid *id)
{
	static const unsigned char order[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
						 8, 9, 10, 11, 12, 13, 14, 15 };
	size_t at = 0;

	while (at + 12 <= len) {
		uint32_t nsz = ld32(p + at), dsz = ld32(p + at + 4), type = ld32(p + at + 8);
		size_t name_at = at + 12, desc_at = name_at + ((nsz + 3) & ~(size_t)3);
		uint32_t q;

		if (nsz > 64 || dsz > 64 || desc_at + dsz > len)
			return 0;
		if (type == 3 && nsz == 4 && !memcmp(p + name_at, "GNU", 4) && dsz >= 16 && dsz <= 40) {
			for (q = 0; q < dsz; q++)
				pc_snprintf(id->code_id + 2 * q, 3, "%02x", p[desc_at + q]);
			for (q = 0; q < 16; q++)
				pc_snprintf(id->breakpad_id + 2 * q, 3, "%02X", p[desc_at + order[q]]);
			id->breakpad_id[32] = '0';
			id->breakpad_id[33] = 0;
			return 1;
		}
		at = desc_at + ((dsz + 3) & ~(size_t)3);
	}
	return 0;
}

int pc_vdso_parse(struct profconv_ctx *ctx, const unsigned char *img, size_t len,
		  struct pc_vdso *out)
{
	uint64_t shoff, phoff;
	uint16_t shnum, shentsize, phnum, phentsize, i;
	size_t k, n = 0, names = 0;
	struct pc_pgkb_sym *syms = NULL;

	memset(out, 0, sizeof(*out));
	if (len < 64 || memcmp(img, "\177ELF", 4) || img[4] != 2 || img[5] != 1)
		return 0; /* 64-bit little-endian only */
	phoff = ld64(img + 32);
	shoff = ld64(img + 40);
	phentsize = (uint16_t)(img[54] | img[55] << 8);
	phnum = (uint16_t)(img[56] | img[57] << 8);
	shentsize = (uint16_t)(img[58] | img[59] << 8);
	shnum = (uint16_t)(img[60] | img[61] << 8);
	/* the build id: PT_NOTE segments (file offsets: the image is the file) */
	if (phentsize >= 56 && phoff < len && phnum <= (len - phoff) / phentsize)
		for (i = 0; i < phnum && !out->has_id; i++) {
			const unsigned char *ph = img + phoff + (size_t)i * phentsize;
			uint64_t off = ld64(ph + 8), sz = ld64(ph + 32);

			if (ld32(ph) == 4 && off < len && sz <= len - off)
				out->has_id = note_build_id(img + off, (size_t)sz, &out->id);
		}
	if (shentsize < 64 || shoff >= len || shnum > (len - shoff) / shentsize)
		return 0;
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = img + shoff + (size_t)i * shentsize;
		const unsigned char *str;
		uint64_t off = ld64(sh + 24), size = ld64(sh + 32), entsize = ld64(sh + 56);
		uint64_t stroff, strsize;
		uint32_t link = ld32(sh + 40);

		if (ld32(sh + 4) != 11 || link >= shnum || entsize < 24) /* SHT_DYNSYM */
			continue;
		str = img + shoff + (size_t)link * shentsize;
		stroff = ld64(str + 24);
		strsize = ld64(str + 32);
		if (off >= len || size > len - off || stroff >= len || strsize > len - stroff)
			return 0;
		n = (size_t)(size / entsize);
		if (n > 4096)
			n = 4096; /* a vdso has a dozen */
		syms = pc_alloc(ctx, (n ? n : 1) * sizeof(*syms));
		if (!syms)
			return ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
		for (k = 0; k < n; k++) {
			const unsigned char *s = img + off + k * entsize;
			uint32_t name = ld32(s);
			unsigned type = s[4] & 0xf, bind = s[4] >> 4;
			uint64_t value = ld64(s + 8), ssize = ld64(s + 16);
			const char *nm = (const char *)img + stroff + name;
			size_t j, dup = SIZE_MAX;

			if (type != 2 || !value || !ssize || ssize > UINT32_MAX || name >= strsize ||
			    !memchr(nm, 0, (size_t)(strsize - name)) || !nm[0])
				continue; /* STT_FUNC with an address, a size and a name */
			for (j = 0; j < names; j++)
				if (syms[j].offset == value)
					dup = j;
			/* clock_gettime is a weak alias of __vdso_clock_gettime: the global name */
			if (dup != SIZE_MAX) {
				if (bind == 1)
					syms[dup].name = nm;
				continue;
			}
			syms[names].offset = value;
			syms[names].size = (uint32_t)ssize;
			syms[names].name = nm;
			names++;
		}
		break;
	}
	/* st_value is a virtual address; frames carry file offsets (the first PT_LOAD maps both) */
	if (phentsize >= 56 && phoff < len && phnum <= (len - phoff) / phentsize)
		for (i = 0; i < phnum; i++) {
			const unsigned char *ph = img + phoff + (size_t)i * phentsize;

			if (ld32(ph) == 1) { /* PT_LOAD */
				uint64_t off = ld64(ph + 8), vaddr = ld64(ph + 16);

				for (k = 0; k < names; k++)
					syms[k].offset = syms[k].offset - vaddr + off;
				break;
			}
		}
	qsort(syms, names, sizeof(*syms), sym_cmp);
	out->syms = syms;
	out->nsyms = names;
	return 0;
}

#ifdef __linux__

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#define SCAN_BLOCK ((size_t)1 << 20)
#define REGION_MAX ((uint64_t)16 << 30)
#define VDSO_MAX ((size_t)1 << 20)

size_t pc_gbuf_fd_read(void *user, uint64_t addr, void *dst, size_t n)
{
	int fd = *(const int *)user;
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)dst + got, n - got, (off_t)(addr + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* One /proc/PID/maps line: 1 when it parses; path (256 bytes) cut to 255. */
static int maps_line(const char *s, uint64_t *a, uint64_t *b, char perms[8], char path[256])
{
	unsigned long long x, y, off;
	char line[512];
	size_t len = strcspn(s, "\n");
	int n;

	/* this line only: sscanf's blanks would skip the newline into the next one */
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, s, len);
	line[len] = 0;
	path[0] = 0;
	n = sscanf(line, "%llx-%llx %7s %llx %*s %*s %255[^\n]", &x, &y, perms, &off, path);
	if (n < 4 || y <= x || strlen(perms) < 4)
		return 0;
	if (n < 5)
		path[0] = 0;
	*a = x;
	*b = y;
	return 1;
}

int pc_gbuf_read_jit(struct profconv_ctx *ctx, int mem, const char *maps,
		     struct pc_gbuf_jit_result *res)
{
	struct pc_jit_scan s;
	uint64_t *exec = NULL;
	size_t nexec = 0, cap = 0;
	unsigned char *blk = NULL;
	const char *p;
	int err = 0;

	memset(res, 0, sizeof(*res));
	/*
	 * The JIT's code: its reservation, a run of adjacent anonymous
	 * mappings that are executable (code) or inaccessible (reserved, or
	 * code released since: the profiler keeps the entries the buffer's
	 * samples point to), with at least one executable.
	 */
	{
		uint64_t run_a = 0, run_b = 0;
		int run_x = 0;

		for (p = maps;; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			uint64_t a = 0, b = 0;
			char perms[8], path[256];
			int ok = p && *p && maps_line(p, &a, &b, perms, path);
			int member = ok && !path[0] && perms[0] != 's' && perms[3] == 'p' &&
				     (perms[2] == 'x' || (perms[0] == '-' && perms[1] == '-'));

			if (member && run_b == a && run_b) {
				run_b = b;
				run_x |= perms[2] == 'x';
			} else {
				if (run_b && run_x) {
					if (nexec == cap) {
						size_t ncap = cap ? cap * 2 : 16;
						uint64_t *np = pc_realloc(ctx, exec, ncap * 2 * sizeof(*np));

						if (!np) {
							pc_free(ctx, exec);
							return ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
						}
						exec = np;
						cap = ncap;
					}
					exec[2 * nexec] = run_a;
					exec[2 * nexec + 1] = run_b;
					nexec++;
				}
				run_a = member ? a : 0;
				run_b = member ? b : 0;
				run_x = member && perms[2] == 'x';
			}
			if (!p || !*p)
				break;
		}
	}
	res->exec_regions = nexec;
	if (!nexec)
		return 0;
	pc_jit_scan_init(&s, ctx, pc_gbuf_fd_read, &mem, exec, nexec);
	blk = pc_alloc(ctx, SCAN_BLOCK + JE_SIZE);
	if (!blk) {
		err = ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
		goto out;
	}
	/* the entries: malloc'd, in private anonymous writable memory */
	for (p = maps; p && *p && !err; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		uint64_t a, b, at;
		char perms[8], path[256];

		if (!maps_line(p, &a, &b, perms, path) || perms[0] != 'r' ||
		    perms[1] != 'w' || perms[3] != 'p' || path[0] == '/' || b - a > REGION_MAX)
			continue;
		for (at = a; at < b && !err;) {
			size_t want = b - at > SCAN_BLOCK + JE_SIZE ? SCAN_BLOCK + JE_SIZE
								    : (size_t)(b - at);
			size_t got = pc_gbuf_fd_read(&mem, at, blk, want);

			if (got == 0)
				break;
			err = pc_jit_scan_block(&s, blk, got);
			if (got < want)
				break;
			/* the last JE_SIZE bytes again: the positions not tried yet */
			at += want > JE_SIZE ? want - JE_SIZE + 8 : want;
		}
	}
	if (!err)
		err = pc_jit_scan_finish(&s, &res->jit, &res->njit);
	res->dropped = s.dropped;
	if (!err) {
		/* the labels stay in the pool: the result owns it */
		res->pool = s.pool;
		s.pool = NULL;
	}
out:
	pc_jit_scan_free(&s);
	pc_free(ctx, blk);
	pc_free(ctx, exec);
	return err;
}

int pc_gbuf_read_vdso(struct profconv_ctx *ctx, int mem, const char *maps,
		      struct pc_gbuf_vdso_result *res)
{
	const char *p;
	int err;

	memset(res, 0, sizeof(*res));
	for (p = maps; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		uint64_t a, b;
		char perms[8], path[256];
		size_t got;

		if (!maps_line(p, &a, &b, perms, path) || strcmp(path, "[vdso]") ||
		    b - a > VDSO_MAX)
			continue;
		res->image = pc_alloc(ctx, (size_t)(b - a));
		if (!res->image)
			return ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
		got = pc_gbuf_fd_read(&mem, a, res->image, (size_t)(b - a));
		res->len = got;
		res->start = a;
		res->end = b;
		err = pc_vdso_parse(ctx, res->image, got, &res->vdso);
		return err;
	}
	return 0;
}

void pc_gbuf_vdso_free(struct profconv_ctx *ctx, struct pc_gbuf_vdso_result *res)
{
	pc_free(ctx, res->vdso.syms);
	pc_free(ctx, res->image);
	memset(res, 0, sizeof(*res));
}

void pc_gbuf_jit_free(struct profconv_ctx *ctx, struct pc_gbuf_jit_result *res)
{
	pc_free(ctx, res->jit);
	pc_free(ctx, res->pool);
	memset(res, 0, sizeof(*res));
}

#endif /* __linux__ */
