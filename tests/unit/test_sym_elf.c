/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sym_elf.c - the ELF + DWARF symbol source against llvm-symbolizer.
 *
 * For every binary in tests/fixtures/sym/ with a BINARY.expected file (made
 * by gen_expected.py from llvm-symbolizer 14), each listed address is looked
 * up by its file offset and the chain of (function, file base name, line),
 * outer first, must match.  Expected names are mangled and demangled here
 * with pc_demangle, so two demanglers never have to agree; a C++ function
 * without a linkage name may come out qualified ("ns::Class::f" where
 * llvm-symbolizer prints "f").  Also: the separate debug file alone, the
 * .dynsym-only and .symtab-only copies, build ids and mismatches, the
 * debuglink, synthetic ELF32/ELF64 files in both byte orders (aliases, size-0
 * and assembler symbols), and the demangler.  Each DWARF fixture's line
 * programs are read by sym_dwarf.c's own reader, row for row as libdwarf
 * reads them (DWARF 4 and 5, GCC and clang, zlib-compressed, ELF32, big
 * endian), and its GCC C units are walked by sym_dwarf.c's own DIE reader,
 * node for node as the walk through libdwarf makes them.
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pc_test.h"
#include "symbolicate/pc_symsrc.h"

static struct profconv_ctx *ctx;
static const char *cur_binary = "";

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("PC_FIXTURES");

	pc_snprintf(path, sizeof(path), "%s/sym/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

/* --- expected files --- */

struct xframe {
	char name[512];
	char file[128];
	uint32_t line;
};

struct xrec {
	uint64_t off, svma;
	uint32_t declared; /* N on the @ line */
	uint32_t n;	   /* frame lines read */
	struct xframe f[PC_MAX_INLINE];
};

struct xfile {
	struct xrec *recs;
	size_t n;
	char build_id[128];
};

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
}

static int load_expected(const char *name, struct xfile *x)
{
	char line[2048];
	size_t cap = 0, i;
	struct xrec *cur = NULL;
	FILE *f = fopen(fixture(name), "r");

	memset(x, 0, sizeof(*x));
	if (!f) {
		fprintf(stderr, "cannot open %s\n", fixture(name));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		chomp(line);
		if (strncmp(line, "# build-id ", 11) == 0) {
			pc_snprintf(x->build_id, sizeof(x->build_id), "%s", line + 11);
		} else if (line[0] == '@') {
			char *end;

			if (x->n == cap) {
				struct xrec *grown;

				cap = cap ? cap * 2 : 256;
				grown = realloc(x->recs, cap * sizeof(*x->recs));
				if (!grown) {
					fclose(f);
					free(x->recs);
					x->recs = NULL;
					return -1;
				}
				x->recs = grown;
			}
			cur = &x->recs[x->n++];
			memset(cur, 0, sizeof(*cur));
			cur->off = strtoull(line + 2, &end, 16);
			cur->svma = strtoull(end, &end, 16);
			cur->declared = (uint32_t)strtoul(end, &end, 10);
		} else if (cur && line[0] && line[0] != '#' && cur->n < PC_MAX_INLINE) {
			struct xframe *fr = &cur->f[cur->n++];
			char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

			if (!t2)
				continue;
			*t1 = 0;
			*t2 = 0;
			pc_snprintf(fr->name, sizeof(fr->name), "%s", line);
			pc_snprintf(fr->file, sizeof(fr->file), "%s", t1 + 1);
			fr->line = (uint32_t)strtoul(t2 + 1, NULL, 10);
		}
	}
	fclose(f);
	for (i = 0; i < x->n; i++)
		if (x->recs[i].n != x->recs[i].declared) {
			fprintf(stderr, "%s: bad record at offset 0x%llx\n", name,
				(unsigned long long)x->recs[i].off);
			free(x->recs);
			x->recs = NULL;
			return -1;
		}
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static size_t qualified; /* frames where we add scopes llvm-symbolizer leaves out */

/* ours == expected (demangled), or ours is expected qualified by its scopes */
static int same_name(const char *ours, const char *mangled)
{
	char buf[16384];
	const char *want = pc_demangle(mangled, buf, sizeof(buf));
	size_t lo = strlen(ours), lw = strlen(want);

	if (strcmp(ours, want) == 0)
		return 1;
	if (lo > lw + 2 && strcmp(ours + lo - lw, want) == 0 &&
	    memcmp(ours + lo - lw - 2, "::", 2) == 0) {
		qualified++;
		return 1;
	}
	return 0;
}

struct stats {
	size_t compared, mismatched, missing, extra;
	size_t stretched; /* llvm: a size-0 symbol runs on into the next section */
	size_t stt_file;  /* llvm: the file of a function without DWARF from STT_FILE */
};

static void show(const char *what, const struct xrec *x, const struct pc_sym_result *r, int found)
{
	uint32_t k;

	fprintf(stderr, "  %s: %s at offset 0x%llx (svma 0x%llx)\n    expected:", cur_binary, what,
		(unsigned long long)x->off, (unsigned long long)x->svma);
	for (k = 0; k < x->n; k++)
		fprintf(stderr, " [%s %s:%u]", x->f[k].name, x->f[k].file, x->f[k].line);
	fprintf(stderr, "\n    got:     ");
	for (k = 0; found == 1 && k < r->nframes; k++)
		fprintf(stderr, " [%s %s:%u]", r->frames[k].name,
			r->frames[k].file ? base_name(r->frames[k].file) : "?", r->frames[k].line);
	fprintf(stderr, "%s\n", found == 1 ? "" : " nothing");
}

/* Each record of expected against s; counts into st. */
static void compare(struct pc_symsrc *s, const struct xfile *x, struct stats *st)
{
	size_t i;

	for (i = 0; i < x->n; i++) {
		const struct xrec *e = &x->recs[i];
		struct pc_sym_result r;
		int found = pc_symsrc_lookup(s, e->off, &r), bad = 0;
		uint32_t k;

		if (found < 0) {
			PC_CHECK(found >= 0);
			return;
		}
		if (e->n == 0 || strcmp(e->f[0].name, "?") == 0) {
			/* llvm-symbolizer knows no function here */
			if (found == 1) {
				st->extra++;
				if (st->extra <= 3)
					show("extra", e, &r, found);
			}
			continue;
		}
		st->compared++;
		/*
		 * Two llvm-symbolizer habits we do not copy: a size-0 symbol (_init
		 * in crti.o) covers the .plt after its section; a function without
		 * DWARF gets the preceding STT_FILE symbol as its file (line 0).
		 */
		if (found == 0 && e->n == 1 && strcmp(e->f[0].name, "_init") == 0 &&
		    strcmp(e->f[0].file, "?") == 0) {
			st->stretched++;
			continue;
		}
		if (found == 1 && e->n == 1 && r.nframes == 1 && e->f[0].line == 0 &&
		    strcmp(e->f[0].file, "?") != 0 && !r.frames[0].file && r.frames[0].line == 0 &&
		    same_name(r.frames[0].name, e->f[0].name)) {
			st->stt_file++;
			continue;
		}
		if (found != 1) {
			st->missing++;
			if (st->missing + st->mismatched <= 100000)
				show("missing", e, &r, found);
			continue;
		}
		if (r.nframes != e->n)
			bad = 1;
		for (k = 0; !bad && k < e->n; k++) {
			const char *file = r.frames[k].file ? base_name(r.frames[k].file) : "?";

			if (!same_name(r.frames[k].name, e->f[k].name) ||
			    strcmp(file, e->f[k].file) != 0 || r.frames[k].line != e->f[k].line)
				bad = 1;
		}
		/* the symbol start is a file offset covering this address */
		if (!bad && !(r.sym_start <= e->off &&
			      (r.sym_size == 0 || e->off - r.sym_start < r.sym_size)))
			bad = 2;
		if (bad) {
			st->mismatched++;
			if (st->missing + st->mismatched <= 100000)
				show(bad == 2 ? "symbol range" : "mismatch", e, &r, found);
		}
	}
}

/* Open binary, compare with expected_name; kind must match. */
static void check_binary_own(const char *binary, const char *expected_name, const char *kind,
			     int own_walk, size_t *total)
{
	struct pc_symsrc *s = NULL;
	struct stats st = { 0, 0, 0, 0, 0, 0 };
	struct xfile x;
	char why[512] = "", have[128];
	int rc;

	if (load_expected(expected_name, &x)) {
		PC_CHECK(0);
		return;
	}
	PC_CHECK_EQ_INT(pc_elf_build_id(fixture(binary), have, sizeof(have)), 0);
	PC_CHECK_EQ_STR(have, x.build_id);
	rc = pc_symsrc_open_elf(ctx, fixture(binary), x.build_id, &s, why, sizeof(why));
	PC_CHECK_EQ_INT(rc, 0);
	PC_CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "  %s: %s\n", binary, why);
		free(x.recs);
		return;
	}
	PC_CHECK_EQ_STR(s->ops->kind, kind);
	cur_binary = binary;
	compare(s, &x, &st);
	printf("%-18s vs %-22s %4zu addresses: %zu mismatched, %zu missing, %zu extra; "
	       "llvm-only: %zu past _init, %zu STT_FILE names\n",
	       binary, expected_name, st.compared, st.mismatched, st.missing, st.extra,
	       st.stretched, st.stt_file);
	PC_CHECK(st.compared > 0);
	PC_CHECK_EQ_INT(st.mismatched, 0);
	PC_CHECK_EQ_INT(st.missing, 0);
	*total += st.compared;
	if (strcmp(kind, "elf+dwarf") == 0) {
		/*
		 * every unit's line program read by our reader, row for row
		 * libdwarf's; GCC's C units (DW_FORM_addr addresses, in
		 * uncompressed sections) walked by our DIE reader, node for
		 * node libdwarf's walk
		 */
		uint32_t lines = 0, walks = 0, bad = pc_elf_check_own(s, &lines, &walks);

		PC_CHECK(lines > 0);
		PC_CHECK_EQ_INT(bad, 0);
		if (own_walk)
			PC_CHECK(walks > 0);
		else
			PC_CHECK_EQ_INT(walks, 0);
	}
	pc_symsrc_close(s);
	free(x.recs);
}

/* GCC's C, uncompressed or zlib-compressed: our DIE walk takes it; anything else is walked by libdwarf */
static void check_binary(const char *binary, const char *expected_name, const char *kind,
			 size_t *total)
{
	int own_walk = strcmp(kind, "elf+dwarf") == 0 && strstr(binary, "clang") == NULL &&
		       strncmp(binary, "cxx", 3) != 0 &&
		       strstr(binary, "ppc") == NULL;

	check_binary_own(binary, expected_name, kind, own_walk, total);
}

/* --- build ids, debuglink, unusable files --- */

static void test_ids(void)
{
	struct pc_symsrc *s = NULL;
	char why[512], id[128], upper[128], padded[128], link[256];
	size_t i;
	int rc;

	PC_CHECK_EQ_INT(pc_elf_build_id(fixture("inline"), id, sizeof(id)), 0);
	PC_CHECK_EQ_INT(strlen(id), 40);
	PC_CHECK_EQ_INT(pc_elf_build_id(fixture("inline.debug"), upper, sizeof(upper)), 0);
	PC_CHECK_EQ_STR(upper, id);
	PC_CHECK_EQ_INT(pc_elf_build_id(fixture("inline.stripped"), upper, sizeof(upper)), 0);
	PC_CHECK_EQ_STR(upper, id);
	/* too small a buffer, not ELF, absent */
	PC_CHECK(pc_elf_build_id(fixture("inline"), upper, 40) != 0);
	PC_CHECK_EQ_STR(upper, "");
	PC_CHECK(pc_elf_build_id(fixture("inline.expected"), upper, sizeof(upper)) != 0);
	PC_CHECK(pc_elf_build_id(fixture("no-such-file"), upper, sizeof(upper)) != 0);

	PC_CHECK_EQ_INT(pc_elf_debuglink(fixture("inline.stripped"), link, sizeof(link)), 0);
	PC_CHECK_EQ_STR(link, "inline.debug");
	PC_CHECK(pc_elf_debuglink(fixture("inline"), link, sizeof(link)) != 0);
	PC_CHECK_EQ_STR(link, "");
	PC_CHECK(pc_elf_debuglink(fixture("inline.stripped"), link, 5) != 0);

	/* mismatch */
	rc = pc_symsrc_open_elf(ctx, fixture("inline"), "00112233445566778899aabbccddeeff00112233",
				&s, why, sizeof(why));
	PC_CHECK_EQ_INT(rc, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "build id ") && strstr(why, id) &&
		 strstr(why, "does not match the recording's 0011223344"));
	/* the recording's id in upper case, or padded with zeros (perf) */
	for (i = 0; id[i]; i++)
		upper[i] = (char)(id[i] >= 'a' && id[i] <= 'f' ? id[i] - 'a' + 'A' : id[i]);
	upper[i] = 0;
	rc = pc_symsrc_open_elf(ctx, fixture("inline"), upper, &s, why, sizeof(why));
	PC_CHECK(rc == 0 && s != NULL);
	pc_symsrc_close(s);
	s = NULL;
	PC_CHECK_EQ_INT(pc_elf_build_id(fixture("tiny-ppc32be"), id, sizeof(id)), 0);
	PC_CHECK_EQ_INT(strlen(id), 16); /* lld's 8-byte xxhash id */
	pc_snprintf(padded, sizeof(padded), "%s000000000000000000000000", id);
	rc = pc_symsrc_open_elf(ctx, fixture("tiny-ppc32be"), padded, &s, why, sizeof(why));
	PC_CHECK(rc == 0 && s != NULL);
	pc_symsrc_close(s);
	s = NULL;
	padded[strlen(padded) - 1] = '1';
	rc = pc_symsrc_open_elf(ctx, fixture("tiny-ppc32be"), padded, &s, why, sizeof(why));
	PC_CHECK(rc == 0 && s == NULL);

	/* unusable files: a reason, no error */
	rc = pc_symsrc_open_elf(ctx, fixture("no-such-file"), NULL, &s, why, sizeof(why));
	PC_CHECK(rc == 0 && s == NULL && strstr(why, "cannot open"));
	rc = pc_symsrc_open_elf(ctx, fixture("inline.expected"), NULL, &s, why, sizeof(why));
	PC_CHECK(rc == 0 && s == NULL && strstr(why, "not an ELF file"));
	PC_CHECK_EQ_INT(ctx->status, 0);
}

/* Addresses outside every segment, and the ELF header, find nothing. */
static void test_outside(void)
{
	struct pc_symsrc *s = NULL;
	struct pc_sym_result r;
	char why[256];

	PC_CHECK_EQ_INT(pc_symsrc_open_elf(ctx, fixture("inline"), NULL, &s, why, sizeof(why)), 0);
	if (!s)
		return;
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0, &r), 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, 0x10000000, &r), 0);
	PC_CHECK_EQ_INT(pc_symsrc_lookup(s, UINT64_MAX, &r), 0);
	pc_symsrc_close(s);
}

/* --- synthetic ELF files --- */

struct synth {
	unsigned char b[4096];
	int is64, be;
};

static void put(struct synth *e, size_t off, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		e->b[off + (size_t)i] = (unsigned char)(v >> (8 * (e->be ? n - 1 - i : i)));
}

struct ssec {
	unsigned name, type;
	uint64_t flags, addr, off, size;
	unsigned link, info;
	uint64_t align, entsize;
};

struct ssym {
	const char *name;
	uint64_t value, size;
	unsigned bind, type, shndx;
};

/*
 * One PT_LOAD (offset 0 -> vaddr 0x10000), a build-id note, .text at
 * 0x10200..0x10300, .data (NOBITS), .symtab, .strtab, .shstrtab,
 * .gnu_debuglink.  Returns the file size.
 */
static size_t build_synth(struct synth *e)
{
	static const struct ssym syms[] = {
		{ "alias_local", 0x10200, 0x20, 0, 2, 2 },
		{ "alias_weak", 0x10200, 0x20, 2, 2, 2 },
		{ "__alias_global", 0x10200, 0x20, 1, 2, 2 },
		{ "alias", 0x10200, 0x10, 1, 2, 2 },
		{ "label", 0x10208, 0, 0, 0, 2 },
		{ "nosize", 0x10220, 0, 1, 2, 2 },
		{ "asm_entry", 0x10240, 0, 1, 0, 2 },
		{ "_ZN2ns3fooEv", 0x10260, 0x10, 1, 2, 2 },
		{ "obj", 0x10280, 0x10, 1, 1, 2 },
		{ "$x", 0x10290, 0, 0, 0, 2 },
		{ "data_label", 0x20000, 0, 1, 0, 6 },
		{ "tail", 0x102e0, 0, 0, 2, 2 },
		{ "undef", 0, 0, 1, 2, 0 },
		{ "ifunc", 0x102a0, 0x8, 1, 10, 2 },
		/* perf's alias rule: local over weak, then the longer name */
		{ "__memcpy_avx", 0x102b0, 0x10, 0, 2, 2 },
		{ "__memmove_avx_weak", 0x102b0, 0x10, 2, 2, 2 },
		{ "__memmove_avx", 0x102b0, 0x10, 0, 2, 2 },
		/* a sized symbol over one of size 0; on a full tie the first */
		{ "z", 0x102c0, 0, 1, 2, 2 },
		{ "zz_sized", 0x102c0, 0x10, 1, 2, 2 },
		{ "tie_b", 0x102d0, 0x10, 0, 2, 2 },
		{ "tie_a", 0x102d0, 0x10, 0, 2, 2 },
	};
	static const char shstr[] = "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0.shstrtab\0"
				    ".data\0.gnu_debuglink";
	/* offsets of the names in shstr */
	enum { N_NOTE = 1, N_TEXT = 20, N_SYMTAB = 26, N_STRTAB = 34, N_SHSTRTAB = 42,
	       N_DATA = 52, N_LINK = 58 };
	size_t ehsize = e->is64 ? 64 : 52, phent = e->is64 ? 56 : 32, shent = e->is64 ? 64 : 40;
	size_t syment = e->is64 ? 24 : 16, nsyms = PC_ARRAY_SIZE(syms) + 1;
	size_t symtab = 0x300, strtab = symtab + nsyms * syment, strpos = 1, shstrtab, linkoff;
	size_t shoff, i, end;
	int w = e->is64 ? 8 : 4;
	struct ssec sh[8];

	memset(e->b, 0, sizeof(e->b));
	memset(sh, 0, sizeof(sh));
	/* symbols and their names */
	for (i = 0; i < PC_ARRAY_SIZE(syms); i++) {
		size_t o = symtab + (i + 1) * syment, nl = strlen(syms[i].name) + 1;

		memcpy(e->b + strtab + strpos, syms[i].name, nl);
		put(e, o, strpos, 4);
		if (e->is64) {
			e->b[o + 4] = (unsigned char)(syms[i].bind << 4 | syms[i].type);
			put(e, o + 6, syms[i].shndx, 2);
			put(e, o + 8, syms[i].value, 8);
			put(e, o + 16, syms[i].size, 8);
		} else {
			put(e, o + 4, syms[i].value, 4);
			put(e, o + 8, syms[i].size, 4);
			e->b[o + 12] = (unsigned char)(syms[i].bind << 4 | syms[i].type);
			put(e, o + 14, syms[i].shndx, 2);
		}
		strpos += nl;
	}
	shstrtab = strtab + strpos;
	memcpy(e->b + shstrtab, shstr, sizeof(shstr));
	linkoff = (shstrtab + sizeof(shstr) + 3) & ~(size_t)3;
	memcpy(e->b + linkoff, "syn.debug\0\0\0\x12\x34\x56\x78", 16);
	shoff = (linkoff + 16 + 7) & ~(size_t)7;
	end = shoff + 8 * shent;
	/* the build-id note at 0x100 */
	put(e, 0x100, 4, 4);
	put(e, 0x104, 8, 4);
	put(e, 0x108, 3, 4);
	memcpy(e->b + 0x10c, "GNU", 4);
	for (i = 0; i < 8; i++)
		e->b[0x110 + i] = (unsigned char)(i + 1);
	/* sections */
	sh[1] = (struct ssec){ N_NOTE, 7, 2, 0x10100, 0x100, 0x18, 0, 0, 4, 0 };
	sh[2] = (struct ssec){ N_TEXT, 1, 6, 0x10200, 0x200, 0x100, 0, 0, 16, 0 };
	sh[3] = (struct ssec){ N_SYMTAB, 2, 0, 0, symtab, nsyms * syment, 4, 1, 8, syment };
	sh[4] = (struct ssec){ N_STRTAB, 3, 0, 0, strtab, strpos, 0, 0, 1, 0 };
	sh[5] = (struct ssec){ N_SHSTRTAB, 3, 0, 0, shstrtab, sizeof(shstr), 0, 0, 1, 0 };
	sh[6] = (struct ssec){ N_DATA, 8, 3, 0x20000, end, 0x100, 0, 0, 8, 0 };
	sh[7] = (struct ssec){ N_LINK, 1, 0, 0, linkoff, 16, 0, 0, 4, 0 };
	for (i = 0; i < 8; i++) {
		size_t o = shoff + i * shent;

		put(e, o, sh[i].name, 4);
		put(e, o + 4, sh[i].type, 4);
		put(e, o + 8, sh[i].flags, w);
		put(e, o + 8 + (size_t)w, sh[i].addr, w);
		put(e, o + 8 + 2 * (size_t)w, sh[i].off, w);
		put(e, o + 8 + 3 * (size_t)w, sh[i].size, w);
		put(e, o + 8 + 4 * (size_t)w, sh[i].link, 4);
		put(e, o + 12 + 4 * (size_t)w, sh[i].info, 4);
		put(e, o + 16 + 4 * (size_t)w, sh[i].align, w);
		put(e, o + 16 + 5 * (size_t)w, sh[i].entsize, w);
	}
	/* ELF header */
	memcpy(e->b, "\177ELF", 4);
	e->b[4] = e->is64 ? 2 : 1;
	e->b[5] = e->be ? 2 : 1;
	e->b[6] = 1;
	put(e, 16, 2, 2); /* ET_EXEC */
	put(e, 18, e->is64 ? 62 : 3, 2);
	put(e, 20, 1, 4);
	if (e->is64) {
		put(e, 32, ehsize, 8);
		put(e, 40, shoff, 8);
		put(e, 52, ehsize, 2);
		put(e, 54, phent, 2);
		put(e, 56, 2, 2);
		put(e, 58, shent, 2);
		put(e, 60, 8, 2);
		put(e, 62, 5, 2);
	} else {
		put(e, 28, ehsize, 4);
		put(e, 32, shoff, 4);
		put(e, 40, ehsize, 2);
		put(e, 42, phent, 2);
		put(e, 44, 2, 2);
		put(e, 46, shent, 2);
		put(e, 48, 8, 2);
		put(e, 50, 5, 2);
	}
	/* PT_LOAD R+X: offset 0 -> 0x10000, all of the file; PT_NOTE */
	for (i = 0; i < 2; i++) {
		size_t o = ehsize + i * phent;
		uint64_t type = i ? 4 : 1, off = i ? 0x100 : 0, va = i ? 0x10100 : 0x10000;
		uint64_t sz = i ? 0x18 : end, flags = i ? 4 : 5, align = i ? 4 : 0x1000;

		put(e, o, type, 4);
		if (e->is64) {
			put(e, o + 4, flags, 4);
			put(e, o + 8, off, 8);
			put(e, o + 16, va, 8);
			put(e, o + 24, va, 8);
			put(e, o + 32, sz, 8);
			put(e, o + 40, sz, 8);
			put(e, o + 48, align, 8);
		} else {
			put(e, o + 4, off, 4);
			put(e, o + 8, va, 4);
			put(e, o + 12, va, 4);
			put(e, o + 16, sz, 4);
			put(e, o + 20, sz, 4);
			put(e, o + 24, flags, 4);
			put(e, o + 28, align, 4);
		}
	}
	return end;
}

static void expect_sym(struct pc_symsrc *s, uint64_t rel, const char *name, uint64_t start,
		       uint32_t size)
{
	struct pc_sym_result r;
	int found = pc_symsrc_lookup(s, rel, &r);

	if (!name) {
		PC_CHECK_EQ_INT(found, 0);
		if (found == 1)
			fprintf(stderr, "  0x%llx: unexpected %s\n", (unsigned long long)rel,
				r.frames[0].name);
		return;
	}
	PC_CHECK_EQ_INT(found, 1);
	if (found != 1) {
		fprintf(stderr, "  0x%llx: expected %s\n", (unsigned long long)rel, name);
		return;
	}
	PC_CHECK_EQ_INT(r.nframes, 1);
	PC_CHECK_EQ_STR(r.frames[0].name, name);
	PC_CHECK(r.frames[0].file == NULL);
	PC_CHECK_EQ_INT(r.sym_start, start);
	PC_CHECK_EQ_INT(r.sym_size, size);
}

static void test_synthetic(void)
{
	char dem[256];
	const char *foo = pc_demangle("_ZN2ns3fooEv", dem, sizeof(dem));
	int variant;

	for (variant = 0; variant < 4; variant++) {
		struct synth e;
		struct pc_symsrc *s = NULL;
		char path[] = "/tmp/pc-test-sym-elf-XXXXXX", why[256], id[64], link[64];
		size_t len;
		FILE *f;
		int fd;

		e.is64 = variant & 1;
		e.be = (variant >> 1) & 1;
		len = build_synth(&e);
		fd = mkstemp(path);
		PC_CHECK(fd >= 0);
		if (fd < 0)
			return;
		f = fdopen(fd, "wb");
		PC_CHECK(f && fwrite(e.b, 1, len, f) == len);
		if (f)
			fclose(f);
		PC_CHECK_EQ_INT(pc_elf_build_id(path, id, sizeof(id)), 0);
		PC_CHECK_EQ_STR(id, "0102030405060708");
		PC_CHECK_EQ_INT(pc_elf_debuglink(path, link, sizeof(link)), 0);
		PC_CHECK_EQ_STR(link, "syn.debug");
		PC_CHECK_EQ_INT(pc_symsrc_open_elf(ctx, path, "0102030405060708", &s, why,
						   sizeof(why)),
				0);
		PC_CHECK(s != NULL);
		if (s) {
			PC_CHECK_EQ_STR(s->ops->kind, "elf");
			expect_sym(s, 0x200, "alias", 0x200, 0x20);
			expect_sym(s, 0x208, "alias", 0x200, 0x20);
			expect_sym(s, 0x21f, "alias", 0x200, 0x20);
			expect_sym(s, 0x220, "nosize", 0x220, 0x20);
			expect_sym(s, 0x23f, "nosize", 0x220, 0x20);
			expect_sym(s, 0x240, "asm_entry", 0x240, 0x20);
			expect_sym(s, 0x26f, foo, 0x260, 0x10);
			expect_sym(s, 0x270, NULL, 0, 0);
			expect_sym(s, 0x28f, NULL, 0, 0);
			expect_sym(s, 0x290, NULL, 0, 0);
			expect_sym(s, 0x2a4, "ifunc", 0x2a0, 8);
			expect_sym(s, 0x2b4, "__memmove_avx", 0x2b0, 0x10);
			expect_sym(s, 0x2c0, "zz_sized", 0x2c0, 0x10);
			expect_sym(s, 0x2d8, "tie_b", 0x2d0, 0x10);
			expect_sym(s, 0x2e0, "tail", 0x2e0, 0x20);
			expect_sym(s, 0x2ff, "tail", 0x2e0, 0x20);
			expect_sym(s, 0x300, NULL, 0, 0);
			expect_sym(s, 0x10000, NULL, 0, 0);
			pc_symsrc_close(s);
		}
		/* damage: the section header table beyond the end of the file */
		put(&e, e.is64 ? 40 : 32, len - 8, e.is64 ? 8 : 4);
		f = fopen(path, "wb");
		PC_CHECK(f && fwrite(e.b, 1, len, f) == len);
		if (f)
			fclose(f);
		s = NULL;
		PC_CHECK_EQ_INT(pc_symsrc_open_elf(ctx, path, NULL, &s, why, sizeof(why)),
				PROFCONV_ERR_CORRUPT);
		PC_CHECK(s == NULL);
		PC_CHECK(strstr(ctx->errmsg, "section header table outside the file") != NULL);
		pc_clear_error(ctx);
		PC_CHECK(pc_elf_build_id(path, id, sizeof(id)) != 0);
		/* truncated to its first 100 bytes */
		PC_CHECK_EQ_INT(truncate(path, 100), 0);
		PC_CHECK(pc_symsrc_open_elf(ctx, path, NULL, &s, why, sizeof(why)) != 0 || !s);
		pc_clear_error(ctx);
		unlink(path);
	}
}

/*
 * PLT stubs (plt.c): puts@plt and strlen@plt, and perf's "@plt" for the
 * IRELATIVE slot of a local ifunc.  A debug file's .plt has no contents: its
 * stubs are named from the binary given as its runtime image, as perf does.
 */
static void test_plt(void)
{
	static const char *const binaries[] = { "plt.stripped", "plt.debug" };
	struct pc_symsrc *s;
	char why[256], path[4096];
	unsigned i;

	for (i = 0; i < 3; i++) {
		s = NULL;
		snprintf(path, sizeof(path), "%s", fixture("plt.stripped"));
		PC_CHECK_EQ_INT(pc_symsrc_open_elf_rt(ctx, fixture(binaries[i ? 1 : 0]),
						      "5f16f665d70ec4de55f3bc0b3d9bc34f73cfd94b",
						      i == 2 ? path : NULL, &s, why, sizeof(why)),
				0);
		PC_CHECK(s != NULL);
		if (!s)
			continue;
		if (i == 1) {
			/* the debug file alone: no stub has a name */
			expect_sym(s, 0x1034, NULL, 0, 0);
		} else {
			expect_sym(s, 0x1030, "puts@plt", 0x1030, 0x10);
			expect_sym(s, 0x1044, "strlen@plt", 0x1040, 0x10);
			expect_sym(s, 0x105f, "@plt", 0x1050, 0x10);
		}
		pc_symsrc_close(s);
	}
	/* a runtime image of another build (one byte of its build id changed) is not used */
	{
		static const unsigned char id[] = { 0x5f, 0x16, 0xf6, 0x65, 0xd7 };
		char tmp[] = "/tmp/pc-test-plt-XXXXXX";
		unsigned char buf[32768];
		size_t n = 0, k;
		FILE *f = fopen(fixture("plt.stripped"), "rb");
		int fd;

		if (f) {
			n = fread(buf, 1, sizeof(buf), f);
			fclose(f);
		}
		for (k = 0; k + sizeof(id) <= n && memcmp(buf + k, id, sizeof(id)) != 0; k++)
			;
		PC_CHECK(n > 0 && n < sizeof(buf) && k + sizeof(id) <= n);
		buf[k] ^= 1;
		fd = mkstemp(tmp);
		PC_CHECK(fd >= 0 && write(fd, buf, n) == (ssize_t)n);
		if (fd >= 0)
			close(fd);
		s = NULL;
		PC_CHECK_EQ_INT(pc_symsrc_open_elf_rt(ctx, fixture("plt.debug"),
						      "5f16f665d70ec4de55f3bc0b3d9bc34f73cfd94b", tmp,
						      &s, why, sizeof(why)),
				0);
		if (s) {
			expect_sym(s, 0x1034, NULL, 0, 0);
			pc_symsrc_close(s);
		}
		unlink(tmp);
	}
}

/* --- the demangler --- */

static void test_demangle(void)
{
	char buf[512], tiny[8];
	const char *r;

	r = pc_demangle("_ZN2ns3fooEi", buf, sizeof(buf));
	if (r == buf) {
		PC_CHECK_EQ_STR(r, "ns::foo(int)");
		PC_CHECK_EQ_STR(pc_demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", buf,
					    sizeof(buf)),
				"core::ptr::drop_in_place");
		PC_CHECK_EQ_STR(
			pc_demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
				    "17h0123456789abcdefE",
				    buf, sizeof(buf)),
			"std::rt::lang_start::{{closure}}");
		PC_CHECK_EQ_STR(pc_demangle("_ZN4core3fmt9Formatter3pad"
					    "17h7b5f3c7e9a8d6e21E.llvm.12",
					    buf, sizeof(buf)),
				"core::fmt::Formatter::pad");
		PC_CHECK_EQ_STR(pc_demangle("_ZN4core3fmt9Formatter3pad17h7b5f3c7e9a8d6e21E.cold.1",
					    buf, sizeof(buf)),
				"core::fmt::Formatter::pad [clone .cold.1]");
		PC_CHECK_EQ_STR(
			pc_demangle("_ZN50_$LT$$RF$mut$u20$W$u20$as$u20$core..fmt..Write$GT$"
				    "9write_str17h0123456789abcdefE",
				    buf, sizeof(buf)),
			"<&mut W as core::fmt::Write>::write_str");
		PC_CHECK_EQ_STR(pc_demangle("_Z3fooi.constprop.0", buf, sizeof(buf)),
				"foo(int) [clone .constprop.0]");
	} else {
		printf("no __cxa_demangle in this process: names stay mangled\n");
		PC_CHECK_EQ_STR(r, "_ZN2ns3fooEi");
	}
	/* Rust v0, C names, garbage and short buffers stay as they are */
	PC_CHECK_EQ_STR(pc_demangle("_RNvCs1234_7mycrate3foo", buf, sizeof(buf)),
			"_RNvCs1234_7mycrate3foo");
	PC_CHECK_EQ_STR(pc_demangle("main", buf, sizeof(buf)), "main");
	PC_CHECK_EQ_STR(pc_demangle("_Zgarbage", buf, sizeof(buf)), "_Zgarbage");
	PC_CHECK_EQ_STR(pc_demangle("_ZN2ns3fooEi", tiny, sizeof(tiny)), "_ZN2ns3fooEi");
}

int main(void)
{
	size_t total = 0;
	uint64_t warns;

	ctx = profconv_ctx_new();
	if (!ctx)
		return 1;
	test_demangle();
	test_ids();
	test_outside();
	test_synthetic();
	test_plt();
	check_binary("inline", "inline.expected", "elf+dwarf", &total);
	check_binary("inline.debug", "inline.expected", "elf+dwarf", &total);
	check_binary("inline-nopie", "inline-nopie.expected", "elf+dwarf", &total);
	check_binary("inline-nopie.debug", "inline-nopie.expected", "elf+dwarf", &total);
	check_binary("inline-dwarf4", "inline-dwarf4.expected", "elf+dwarf", &total);
	check_binary("inline-clang", "inline-clang.expected", "elf+dwarf", &total);
	check_binary("cxx", "cxx.expected", "elf+dwarf", &total);
	check_binary("cxx-clang", "cxx-clang.expected", "elf+dwarf", &total);
	check_binary("tiny-i386", "tiny-i386.expected", "elf+dwarf", &total);
	check_binary("tiny-ppc32be", "tiny-ppc32be.expected", "elf+dwarf", &total);
	check_binary("tiny-ppc64be", "tiny-ppc64be.expected", "elf+dwarf", &total);
	check_binary("tiny-ppc64be.debug", "tiny-ppc64be.expected", "elf+dwarf", &total);
	check_binary("inline.nodebug", "inline.nodebug.expected", "elf", &total);
	check_binary("inline.zlib", "inline.expected", "elf+dwarf", &total);
	/* libdwarf 20210528 cannot inflate zstd: a warning, then the symbol table alone */
	warns = ctx->warn_total;
	check_binary("inline.zstd", "inline.nodebug.expected", "elf", &total);
	PC_CHECK_EQ_INT(ctx->warn_total, warns + 1);
	check_binary("inline.stripped", "inline.stripped.expected", "elf", &total);
	/* damaged .debug_rnglists headers (libdwarf 20210528 frees memory twice on
	 * them): a warning, then the symbol table alone */
	warns = ctx->warn_total;
	check_binary("inline.bad-rnglists.debug", "inline.nodebug.expected", "elf", &total);
	PC_CHECK_EQ_INT(ctx->warn_total, warns + 1);
	printf("%zu addresses compared with llvm-symbolizer (%zu frames named with their scopes)\n",
	       total, qualified);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return pc_test_done();
}
