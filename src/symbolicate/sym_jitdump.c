/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_jitdump.c - the jitdump file a JIT writes for perf (jit-PID.dump) as a
 * symbol source for that process's anonymous executable mappings.
 *
 * Format (facts from the Linux tree's tools/perf/util/jitdump.h and
 * Documentation/jitdump-specification.txt): a header of at least 40 bytes
 * (u32 magic 0x4A695444 "JiTD" in the writer's byte order, so a reader that
 * sees 0x4454694A swaps; u32 version; u32 total_size of the header; u32
 * elf_mach; u32 pad; u32 pid; u64 timestamp; u64 flags), then records, each
 * a 16-byte prefix (u32 id, u32 total_size including the prefix, u64
 * timestamp) and a body:
 *   0 CODE_LOAD: u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size,
 *     u64 code_index, NUL-terminated name, then code_size bytes of code.
 *   1 CODE_MOVE: u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *     u64 new_code_addr, u64 code_size, u64 code_index.
 *   2 CODE_DEBUG_INFO: u64 code_addr, u64 nr_entry, then nr_entry entries
 *     of u64 addr, u32 lineno, u32 discrim, NUL-terminated file name (the
 *     name "\xff" means "same file as the previous entry").  It precedes the
 *     CODE_LOAD of the code at code_addr, which it describes.
 *   3 CODE_CLOSE: no body.
 *   4 CODE_UNWINDING_INFO: unwind tables for the next load; skipped here.
 * Unknown ids are skipped by their total_size.
 *
 * Addresses are absolute (the code lives in anonymous memory), so, as for a
 * perf map, rel is the absolute address.  A later load removes every earlier
 * one it overlaps (the code was replaced), like the perf-map source.
 *
 * Damage: a record whose size is below its fixed part or past the end of the
 * file ends the parse (what came before is kept); a record whose contents are
 * absurd (name without NUL, more debug entries than fit) is skipped; each kind
 * is counted once through pc_warn ("damaged jitdump records skipped").  The
 * code bytes are never read: a record is read up to its name only, so a dump
 * of any size costs memory for names and lines only.
 */
#include "symbolicate/pc_symsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define JD_MAGIC     0x4A695444u
#define JD_MAGIC_SW  0x4454694Au
#define JD_HDR	     40u
#define JD_PREFIX    16u
#define JD_LOAD_FIX  40u /* pid, tid, vma, code_addr, code_size, code_index */
#define JD_MOVE_FIX  48u
#define JD_DEBUG_FIX 16u
#define JD_ENT_FIX   16u /* addr, lineno, discrim; the name follows */
#define JD_DAMAGED   "damaged jitdump records skipped"
#define JD_BAD_HEADER "jitdumps with a damaged header ignored"

enum { JD_LOAD = 0, JD_MOVE = 1, JD_DEBUG = 2, JD_CLOSE = 3, JD_UNWIND = 4 };

struct jd_line {
	uint64_t addr;
	uint32_t line;
	uint32_t file; /* arena offset */
};

struct jd_ent {
	uint64_t start, end; /* absolute, end exclusive */
	uint64_t seq;	     /* file order, for overlap resolution */
	uint32_t name;	     /* arena offset */
	uint32_t line0, nline; /* into lines[], sorted by addr */
};

struct jd_src {
	struct pc_symsrc base;
	char *arena;
	size_t arena_len, arena_cap;
	struct jd_ent *ents;
	uint32_t n, cap;
	struct jd_line *lines;
	uint32_t nlines, linecap;
	int swap;
};

/* --- storage --- */

static int jd_str(struct profconv_ctx *ctx, struct jd_src *j, const char *s, size_t len,
		  uint32_t *off)
{
	size_t need = j->arena_len + len + 1;

	if (need > UINT32_MAX)
		return pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL, "%s: jitdump names exceed 4 GiB",
			       j->base.path);
	if (need > j->arena_cap) {
		size_t cap = j->arena_cap ? j->arena_cap * 2 : 16 * 1024;
		char *p;

		while (cap < need)
			cap *= 2;
		if (cap > UINT32_MAX)
			cap = UINT32_MAX;
		p = pc_realloc(ctx, j->arena, cap);
		if (!p)
			return PROFCONV_ERR_NOMEM;
		j->arena = p;
		j->arena_cap = cap;
	}
	memcpy(j->arena + j->arena_len, s, len);
	j->arena[j->arena_len + len] = 0;
	*off = (uint32_t)j->arena_len;
	j->arena_len = need;
	return 0;
}

static uint32_t rd32(const struct jd_src *j, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return j->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct jd_src *j, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return j->swap ? __builtin_bswap64(v) : v;
}

/* --- lookup --- */

static int jd_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out)
{
	const struct jd_src *j = (const struct jd_src *)s;
	uint32_t lo = 0, hi = j->n;
	const struct jd_ent *e;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (j->ents[mid].start <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	e = &j->ents[lo - 1];
	if (rel >= e->end)
		return 0;
	memset(out, 0, sizeof(*out));
	out->sym_start = e->start;
	out->sym_size = e->end - e->start > UINT32_MAX ? 0 : (uint32_t)(e->end - e->start);
	out->nframes = 1;
	out->frames[0].name = j->arena + e->name;
	if (e->nline) {
		/* The last line entry at or before rel (entries are sorted by addr). */
		const struct jd_line *l = j->lines + e->line0;
		uint32_t a = 0, b = e->nline;

		while (a < b) {
			uint32_t mid = a + (b - a) / 2;

			if (l[mid].addr <= rel)
				a = mid + 1;
			else
				b = mid;
		}
		if (a) {
			out->frames[0].file = j->arena + l[a - 1].file;
			out->frames[0].line = l[a - 1].line;
		}
	}
	return 1;
}

static void jd_close(struct pc_symsrc *s)
{
	struct jd_src *j = (struct jd_src *)s;
	struct profconv_ctx *ctx = s->ctx;

	pc_free(ctx, j->arena);
	pc_free(ctx, j->ents);
	pc_free(ctx, j->lines);
	pc_free(ctx, j);
}

static const struct pc_symsrc_ops jitdump_ops = { "jitdump", jd_lookup, jd_close };

/* --- parse --- */

struct jd_parse {
	struct profconv_ctx *ctx;
	struct jd_src *j;
	FILE *fp;
	uint64_t off, size; /* current record offset, file size */
	unsigned char *buf;
	size_t bufcap;
	uint64_t dbg_addr;	/* code_addr of the pending DEBUG_INFO, if any */
	uint32_t dbg_line0, dbg_n; /* its lines, at the end of j->lines */
	int dbg_pending;
	uint64_t seq;
};

static int jd_warn(struct jd_parse *p, const char *what)
{
	struct pc_loc loc = { p->j->base.path, p->off, 0, 0 };

	return pc_warn(p->ctx, JD_DAMAGED, &loc, "%s", what);
}

/* Read len bytes at p->off + at into p->buf. */
static int jd_read(struct jd_parse *p, uint64_t at, size_t len)
{
	if (len > p->bufcap) {
		unsigned char *b = pc_realloc(p->ctx, p->buf, len);

		if (!b)
			return PROFCONV_ERR_NOMEM;
		p->buf = b;
		p->bufcap = len;
	}
	if (fseeko(p->fp, (off_t)(p->off + at), SEEK_SET) || fread(p->buf, 1, len, p->fp) != len)
		return pc_fail_at(p->ctx, PROFCONV_ERR_IO, p->j->base.path, p->off + at,
				  "cannot read %zu bytes of the jitdump", len);
	return 0;
}

static int jd_load(struct jd_parse *p, uint32_t total)
{
	struct jd_src *j = p->j;
	uint64_t code_addr, code_size;
	size_t namemax, namelen;
	struct jd_ent *e;
	int err;

	if (total < JD_PREFIX + JD_LOAD_FIX + 1)
		return jd_warn(p, "CODE_LOAD record shorter than its fixed part");
	err = jd_read(p, JD_PREFIX, JD_LOAD_FIX);
	if (err)
		return err;
	code_addr = rd64(j, p->buf + 16);
	code_size = rd64(j, p->buf + 24);
	if (code_size > total - JD_PREFIX - JD_LOAD_FIX - 1 || code_addr + code_size < code_addr)
		return jd_warn(p, "CODE_LOAD code size larger than its record");
	namemax = (size_t)(total - JD_PREFIX - JD_LOAD_FIX - code_size);
	err = jd_read(p, JD_PREFIX + JD_LOAD_FIX, namemax);
	if (err)
		return err;
	namelen = strnlen((const char *)p->buf, namemax);
	if (namelen == namemax)
		return jd_warn(p, "CODE_LOAD name without its NUL");
	err = pc_grow(p->ctx, (void **)&j->ents, sizeof(*j->ents), &j->cap, (size_t)j->n + 1);
	if (err)
		return err;
	e = &j->ents[j->n];
	memset(e, 0, sizeof(*e));
	err = jd_str(p->ctx, j, (const char *)p->buf, namelen, &e->name);
	if (err)
		return err;
	e->start = code_addr;
	e->end = code_addr + code_size;
	e->seq = p->seq++;
	if (p->dbg_pending && p->dbg_addr == code_addr) {
		e->line0 = p->dbg_line0;
		e->nline = p->dbg_n;
	}
	p->dbg_pending = 0;
	if (code_size)
		j->n++;
	return 0;
}

static int jd_move(struct jd_parse *p, uint32_t total)
{
	struct jd_src *j = p->j;
	uint64_t old_addr, new_addr, size;
	uint32_t i;
	int err;

	if (total < JD_PREFIX + JD_MOVE_FIX)
		return jd_warn(p, "CODE_MOVE record shorter than its fixed part");
	err = jd_read(p, JD_PREFIX, JD_MOVE_FIX);
	if (err)
		return err;
	old_addr = rd64(j, p->buf + 16);
	new_addr = rd64(j, p->buf + 24);
	size = rd64(j, p->buf + 32);
	if (!size || new_addr + size < new_addr)
		return jd_warn(p, "CODE_MOVE with an empty or wrapping range");
	/* The most recent load at old_addr names the moved code (moves are rare). */
	for (i = j->n; i-- > 0;) {
		struct jd_ent *e;

		if (j->ents[i].start != old_addr)
			continue;
		err = pc_grow(p->ctx, (void **)&j->ents, sizeof(*j->ents), &j->cap,
			      (size_t)j->n + 1);
		if (err)
			return err;
		e = &j->ents[j->n++];
		*e = j->ents[i];
		e->start = new_addr;
		e->end = new_addr + size;
		e->seq = p->seq++;
		e->nline = 0; /* line addresses refer to the old place */
		return 0;
	}
	return jd_warn(p, "CODE_MOVE of code that was never loaded");
}

/*
 * A file name with control bytes is damage: node 20's V8 writes some script
 * names as the right length of the wrong bytes (with NULs inside), after
 * which the entries cannot be found again.  The whole block is dropped.
 */
static int has_ctl(const unsigned char *s, size_t n)
{
	size_t i;

	if (n == 1 && s[0] == 0xff)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct jd_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

static int jd_debug(struct jd_parse *p, uint32_t total)
{
	struct jd_src *j = p->j;
	uint64_t code_addr, nent, k;
	size_t pos, len;
	uint32_t prev_file = 0, line0 = j->nlines;
	int have_prev = 0, err;

	if (total < JD_PREFIX + JD_DEBUG_FIX)
		return jd_warn(p, "CODE_DEBUG_INFO record shorter than its fixed part");
	len = total - JD_PREFIX;
	err = jd_read(p, JD_PREFIX, len);
	if (err)
		return err;
	code_addr = rd64(j, p->buf);
	nent = rd64(j, p->buf + 8);
	if (nent > (len - JD_DEBUG_FIX) / (JD_ENT_FIX + 1))
		return jd_warn(p, "CODE_DEBUG_INFO with more entries than fit in its record");
	pos = JD_DEBUG_FIX;
	for (k = 0; k < nent; k++) {
		struct jd_line *l;
		size_t nl;

		if (len - pos < JD_ENT_FIX + 1)
			goto bad;
		nl = strnlen((const char *)p->buf + pos + JD_ENT_FIX, len - pos - JD_ENT_FIX);
		if (nl == len - pos - JD_ENT_FIX)
			goto bad;
		err = pc_grow(p->ctx, (void **)&j->lines, sizeof(*j->lines), &j->linecap,
			      (size_t)j->nlines + 1);
		if (err)
			return err;
		l = &j->lines[j->nlines];
		l->addr = rd64(j, p->buf + pos);
		if (l->addr - code_addr > UINT32_MAX || has_ctl(p->buf + pos + JD_ENT_FIX, nl))
			goto bad;
		l->line = rd32(j, p->buf + pos + 8);
		if (nl == 1 && p->buf[pos + JD_ENT_FIX] == 0xff && have_prev) {
			l->file = prev_file;
		} else {
			err = jd_str(p->ctx, j, (const char *)p->buf + pos + JD_ENT_FIX, nl,
				     &l->file);
			if (err)
				return err;
		}
		prev_file = l->file;
		have_prev = 1;
		j->nlines++;
		pos += JD_ENT_FIX + nl + 1;
	}
	/*
	 * V8 does not always emit entries in address order; a lookup wants
	 * them sorted.  The key is total, so the order is deterministic.
	 */
	if (j->nlines > line0) /* j->lines is NULL before the first entry */
		qsort(j->lines + line0, j->nlines - line0, sizeof(*j->lines), cmp_line);
	p->dbg_pending = 1;
	p->dbg_addr = code_addr;
	p->dbg_line0 = line0;
	p->dbg_n = j->nlines - line0;
	return 0;
bad:
	j->nlines = line0;
	return jd_warn(p, "CODE_DEBUG_INFO entries damaged (past the record, "
			  "addresses outside the code, control bytes in a file name)");
}

static int cmp_ent(const void *a, const void *b)
{
	const struct jd_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort by start and drop overlaps: of two overlapping entries the later one
 * (in file order) stays.  Sweeping in start order, a new entry that overlaps
 * the kept tail either pops it (newer) or is dropped (older).
 */
static void jd_resolve(struct jd_src *j)
{
	uint32_t i, n = 0;

	if (!j->n)
		return;
	qsort(j->ents, j->n, sizeof(*j->ents), cmp_ent);
	for (i = 0; i < j->n; i++) {
		struct jd_ent cur = j->ents[i];
		int drop = 0;

		while (n && j->ents[n - 1].end > cur.start) {
			if (j->ents[n - 1].seq > cur.seq) {
				drop = 1;
				break;
			}
			n--;
		}
		if (!drop)
			j->ents[n++] = cur;
	}
	j->n = n;
}

int pc_symsrc_open_jitdump(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
			   char *why, size_t whylen)
{
	struct jd_parse p;
	struct jd_src *j;
	struct stat st;
	uint32_t magic, hsize;
	int err = 0;

	*out = NULL;
	pc_snprintf(why, whylen, "%s", "");
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.fp = fopen(path, "rbe");
	if (!p.fp) {
		pc_snprintf(why, whylen, "%s: cannot open", path);
		return 0;
	}
	j = pc_calloc(ctx, 1, sizeof(*j));
	if (!j) {
		fclose(p.fp);
		return PROFCONV_ERR_NOMEM;
	}
	j->base.ops = &jitdump_ops;
	j->base.ctx = ctx;
	pc_snprintf(j->base.path, sizeof(j->base.path), "%s", path);
	p.j = j;
	if (fstat(fileno(p.fp), &st) || st.st_size < (off_t)JD_HDR) {
		pc_snprintf(why, whylen, "%s: not a jitdump (shorter than its header)", path);
		goto out;
	}
	p.size = (uint64_t)st.st_size;
	err = jd_read(&p, 0, JD_HDR);
	if (err)
		goto out;
	memcpy(&magic, p.buf, 4);
	if (magic != JD_MAGIC && magic != JD_MAGIC_SW) {
		pc_snprintf(why, whylen, "%s: not a jitdump (bad magic)", path);
		goto out;
	}
	j->swap = magic == JD_MAGIC_SW;
	hsize = rd32(j, p.buf + 8);
	if (hsize < JD_HDR || hsize > p.size) {
		/* a bad symbol source, not a bad recording: warn and look further,
		 * as for any other unusable symbol file (issue 22 item 15) */
		struct pc_loc loc = { path, 8, 0, 0 };

		pc_snprintf(why, whylen, "%s: offset 8: jitdump header size %u outside [40, %llu]",
			    path, hsize, (unsigned long long)p.size);
		err = pc_warn(ctx, JD_BAD_HEADER, &loc,
			      "jitdump header size %u outside [40, the file's %llu bytes]; file ignored",
			      hsize, (unsigned long long)p.size);
		goto out;
	}
	for (p.off = hsize; p.off < p.size && !err;) {
		uint32_t id, total;

		if (p.size - p.off < JD_PREFIX) {
			err = jd_warn(&p, "record prefix cut short at the end of the file");
			break;
		}
		err = jd_read(&p, 0, JD_PREFIX);
		if (err)
			break;
		id = rd32(j, p.buf);
		total = rd32(j, p.buf + 4);
		if (total < JD_PREFIX || total > p.size - p.off) {
			/* Without a sound size the next record cannot be found. */
			err = jd_warn(&p, "record size below 16 or past the end of the file; "
					  "the rest of the dump is ignored");
			break;
		}
		switch (id) {
		case JD_LOAD:
			err = jd_load(&p, total);
			break;
		case JD_MOVE:
			err = jd_move(&p, total);
			break;
		case JD_DEBUG:
			err = jd_debug(&p, total);
			break;
		case JD_CLOSE:
			p.off = p.size; /* the writer is done; anything after is not ours */
			continue;
		default: /* JD_UNWIND and future records */
			break;
		}
		p.off += total;
	}
	if (err)
		goto out;
	jd_resolve(j);
	if (!j->n) {
		pc_snprintf(why, whylen, "%s: no code loads", path);
		goto out;
	}
	*out = &j->base;
	j = NULL;
out:
	fclose(p.fp);
	pc_free(ctx, p.buf);
	if (j)
		jd_close(&j->base);
	return err;
}
