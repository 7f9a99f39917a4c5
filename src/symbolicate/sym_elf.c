/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_elf.c - the ELF symbol source: function symbols from .symtab and
 * .dynsym, the GNU build id, .gnu_debuglink, and (through sym_dwarf.c) DWARF
 * inline chains with file:line.
 *
 * Our own small ELF reader: the file is mapped read-only and every header,
 * table and string is bounds-checked against the file size before use.
 * ELF32 and ELF64, either byte order.
 *
 * Addresses.  A lookup gets a file offset (perf: ip - map.start +
 * map.pgoff); the PT_LOAD segment holding that offset turns it into an SVMA
 * (the link-time address symbols and DWARF use): svma = off - p_offset +
 * p_vaddr.  The symbol start goes back the same way, so sym_start is a file
 * offset too.  A separate debug file (objcopy --only-keep-debug) keeps the
 * program headers' addresses and sizes in memory but not their file offsets
 * or file sizes; for such a file the offsets are laid out again the way the
 * linkers do it (each segment at the first offset >= the end of the previous
 * one that is congruent to its p_vaddr modulo p_align), which gives back
 * the original offsets for GNU ld and lld layouts.
 *
 * Symbols.  STT_FUNC and STT_GNU_IFUNC, plus STT_NOTYPE symbols in
 * executable sections (assembler code) unless they fall inside a sized
 * function.  Size 0 runs to the next symbol or the end of the section.
 * Several names at one address: FUNC before NOTYPE, then GLOBAL, WEAK,
 * LOCAL, then fewer leading underscores, then the shorter name, then
 * strcmp order.  Names are demangled on their first hit.
 *
 * Not read: .gnu_debugdata (MiniDebugInfo), PLT stubs (no symbols), ET_REL
 * objects (kernel modules), dwz supplementary files, split DWARF.
 */
#include "core/pc_config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolicate/pc_cfi.h"
#include "symbolicate/pc_dwarf.h"
#include "symbolicate/pc_sympersist.h"
#include "symbolicate/pc_symsrc.h"

/* The ELF constants used here (no <elf.h>: not every platform has one). */
#define E_CLASS32	 1
#define E_CLASS64	 2
#define E_DATA_LSB	 1
#define E_DATA_MSB	 2
#define E_ET_REL	 1
#define E_ET_EXEC	 2
#define E_ET_DYN	 3
#define E_EM_ARM	 40
#define E_EM_X86_64	 62
#define E_EM_AARCH64	 183
#define E_SHT_RELA	 4
#define E_PT_LOAD	 1
#define E_PT_NOTE	 4
#define E_PF_W		 2
#define E_PF_X		 1
#define E_PN_XNUM	 0xffff
#define E_SHT_SYMTAB	 2
#define E_SHT_STRTAB	 3
#define E_SHT_NOTE	 7
#define E_SHT_NOBITS	 8
#define E_SHT_DYNSYM	 11
#define E_SHT_SYMTAB_SHNDX 18
#define E_SHF_EXECINSTR	 0x4
#define E_SHF_COMPRESSED 0x800
#define E_COMPRESS_ZSTD	 2
#define E_SHN_UNDEF	 0
#define E_SHN_LORESERVE	 0xff00
#define E_SHN_XINDEX	 0xffff
#define E_STT_NOTYPE	 0
#define E_STT_FUNC	 2
#define E_STT_GNU_IFUNC	 10
#define E_STB_LOCAL	 0
#define E_STB_GLOBAL	 1
#define E_STB_WEAK	 2
#define E_NT_GNU_BUILD_ID 3

#define DEMANGLE_MAX 16384

/* A mapped ELF file and its header fields. */
struct elf_map {
	const char *path;
	const unsigned char *p;
	uint64_t size;
	int fd;
	int is64, swap;
	uint16_t type, machine;
	uint64_t phoff, shoff;
	uint32_t phnum, shnum, shstrndx;
	uint32_t phentsize, shentsize;
	const char *bad; /* what was wrong, for pc_fail */
	uint64_t bad_off;
};

struct elf_shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, entsize, addralign;
};

struct elf_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

/* A loadable segment, as used for address conversion. */
struct elf_seg {
	uint64_t off, vaddr, filesz;
	int exec;
};

struct elf_sym {
	uint64_t addr;	    /* SVMA */
	uint64_t end;	    /* exclusive; 0 = not sized yet */
	uint64_t sec_end;   /* end of its section */
	const char *name;   /* in the mapped string table */
	const char *shown;  /* demangled name, filled on the first hit */
	uint32_t ord;	    /* .symtab entries first, then .dynsym, each in table order */
	uint8_t type_rank;  /* 0 FUNC/IFUNC, 1 NOTYPE */
	uint8_t bind_rank;  /* 0 GLOBAL, 1 LOCAL and others, 2 WEAK, 3 a PLT stub */
	uint8_t sized;
	uint8_t plt;	    /* a PLT stub: shown as NAME@plt */
};

/* A file's PT_LOAD segments. */
struct elf_segs {
	struct elf_seg *segs;
	uint32_t nsegs;
};

struct elf_src {
	struct pc_symsrc base;
	struct elf_map m;
	struct elf_map rt; /* the binary of a debug file, for its PLT (rt.p NULL: none) */
	struct elf_segs sg;
	struct elf_sym *syms;
	uint32_t nsyms;
	struct pc_dwarf *dw;
	/*
	 * Lookups may run on several threads at once (a source shared by a
	 * batch's conversions, pc_symcache.h): what is computed on first use
	 * (a symbol's shown name, the DWARF index) is made under mu, which
	 * also guards the source's ctx, and published atomically; lookups
	 * that find it published take no lock.
	 */
	pthread_mutex_t mu;
	char dembuf[DEMANGLE_MAX];
	/*
	 * The persistent cache (pc_sympersist.h), or NULL.  When it held this
	 * file's results (deferred), the symbol table and DWARF are read only
	 * once a lookup misses it (loaded, under mu; load_err: that failed).
	 */
	struct pc_sympersist *pc;
	uint64_t warn_base; /* the ctx's warnings after opening: more, and nothing is written */
	int deferred, loaded, load_err, cached_dwarf;
};

/* --- the mapped file --- */

static int corrupt(struct elf_map *m, uint64_t off, const char *what)
{
	if (!m->bad) {
		m->bad = what;
		m->bad_off = off;
	}
	return -1;
}

static uint16_t ld16(const struct elf_map *m, uint64_t off)
{
	return pc_load_u16(m->p + off, m->swap);
}

static uint32_t ld32(const struct elf_map *m, uint64_t off)
{
	return pc_load_u32(m->p + off, m->swap);
}

static uint64_t ld64(const struct elf_map *m, uint64_t off)
{
	return pc_load_u64(m->p + off, m->swap);
}

static void map_close(struct elf_map *m)
{
	if (m->p)
		munmap((void *)m->p, m->size);
	if (m->fd >= 0)
		close(m->fd);
	m->p = NULL;
	m->fd = -1;
}

static int host_is_big_endian(void)
{
	const uint16_t one = 1;
	unsigned char b;

	memcpy(&b, &one, 1);
	return b == 0;
}

static int get_shdr(struct elf_map *m, uint32_t i, struct elf_shdr *sh)
{
	uint64_t o = m->shoff + (uint64_t)i * m->shentsize;

	if (i >= m->shnum && !(i == 0 && m->shoff))
		return -1;
	if (!pc_fits(o, m->is64 ? 64 : 40, m->size))
		return corrupt(m, o, "section header outside the file");
	sh->name = ld32(m, o);
	sh->type = ld32(m, o + 4);
	if (m->is64) {
		sh->flags = ld64(m, o + 8);
		sh->addr = ld64(m, o + 16);
		sh->offset = ld64(m, o + 24);
		sh->size = ld64(m, o + 32);
		sh->link = ld32(m, o + 40);
		sh->info = ld32(m, o + 44);
		sh->addralign = ld64(m, o + 48);
		sh->entsize = ld64(m, o + 56);
	} else {
		sh->flags = ld32(m, o + 8);
		sh->addr = ld32(m, o + 12);
		sh->offset = ld32(m, o + 16);
		sh->size = ld32(m, o + 20);
		sh->link = ld32(m, o + 24);
		sh->info = ld32(m, o + 28);
		sh->addralign = ld32(m, o + 32);
		sh->entsize = ld32(m, o + 36);
	}
	return 0;
}

static int get_phdr(struct elf_map *m, uint32_t i, struct elf_phdr *ph)
{
	uint64_t o = m->phoff + (uint64_t)i * m->phentsize;

	if (!pc_fits(o, m->is64 ? 56 : 32, m->size))
		return corrupt(m, o, "program header outside the file");
	ph->type = ld32(m, o);
	if (m->is64) {
		ph->flags = ld32(m, o + 4);
		ph->offset = ld64(m, o + 8);
		ph->vaddr = ld64(m, o + 16);
		ph->filesz = ld64(m, o + 32);
		ph->memsz = ld64(m, o + 40);
		ph->align = ld64(m, o + 48);
	} else {
		ph->offset = ld32(m, o + 4);
		ph->vaddr = ld32(m, o + 8);
		ph->filesz = ld32(m, o + 16);
		ph->memsz = ld32(m, o + 20);
		ph->flags = ld32(m, o + 24);
		ph->align = ld32(m, o + 28);
	}
	return 0;
}

/* The section's bytes are in the file (not NOBITS, inside the size). */
static int sec_in_file(const struct elf_map *m, const struct elf_shdr *sh)
{
	return sh->type != E_SHT_NOBITS && pc_fits(sh->offset, sh->size, m->size);
}

/* A NUL-terminated string at off inside [base, base + size), or NULL. */
static const char *str_at(const struct elf_map *m, uint64_t base, uint64_t size, uint64_t off)
{
	const unsigned char *s;

	if (off >= size)
		return NULL;
	s = m->p + base + off;
	if (!memchr(s, 0, size - off))
		return NULL;
	return (const char *)s;
}

static const char *sec_name(struct elf_map *m, const struct elf_shdr *sh)
{
	struct elf_shdr st;
	const char *n;

	if (m->shstrndx == 0 || get_shdr(m, m->shstrndx, &st) || !sec_in_file(m, &st))
		return "";
	n = str_at(m, st.offset, st.size, sh->name);
	return n ? n : "";
}

static int find_section(struct elf_map *m, const char *name, struct elf_shdr *out)
{
	uint32_t i;

	for (i = 1; i < m->shnum; i++) {
		if (get_shdr(m, i, out))
			return -1;
		if (strcmp(sec_name(m, out), name) == 0)
			return 0;
	}
	return -1;
}

/*
 * Map path and read the ELF header.  0 = ready; 1 = not usable (why set:
 * absent, unreadable, not ELF); -1 = corrupt (m->bad set).
 */
static int map_open(struct elf_map *m, const char *path, char *why, size_t whylen)
{
	static const unsigned char magic[4] = { 0x7f, 'E', 'L', 'F' };
	struct stat st;
	void *p;
	int cls, data;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->path = path;
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		pc_snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return 1;
	}
	if (fstat(m->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		pc_snprintf(why, whylen, "not a regular file");
		map_close(m);
		return 1;
	}
	if (st.st_size < 52) {
		pc_snprintf(why, whylen, "not an ELF file (%lld bytes)", (long long)st.st_size);
		map_close(m);
		return 1;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		pc_snprintf(why, whylen, "too large to map");
		map_close(m);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, m->fd, 0);
	if (p == MAP_FAILED) {
		pc_snprintf(why, whylen, "cannot map: %s", strerror(errno));
		map_close(m);
		return 1;
	}
	m->p = p;
	m->size = (uint64_t)st.st_size;
	if (memcmp(m->p, magic, 4) != 0) {
		pc_snprintf(why, whylen, "not an ELF file");
		map_close(m);
		return 1;
	}
	cls = m->p[4];
	data = m->p[5];
	if ((cls != E_CLASS32 && cls != E_CLASS64) || (data != E_DATA_LSB && data != E_DATA_MSB)) {
		pc_snprintf(why, whylen, "unknown ELF class %d or byte order %d", cls, data);
		map_close(m);
		return 1;
	}
	m->is64 = cls == E_CLASS64;
	m->swap = (data == E_DATA_MSB) != host_is_big_endian();
	if (m->is64 && m->size < 64)
		return corrupt(m, 0, "ELF header truncated");
	m->type = ld16(m, 16);
	m->machine = ld16(m, 18);
	if (m->is64) {
		m->phoff = ld64(m, 32);
		m->shoff = ld64(m, 40);
		m->phentsize = ld16(m, 54);
		m->phnum = ld16(m, 56);
		m->shentsize = ld16(m, 58);
		m->shnum = ld16(m, 60);
		m->shstrndx = ld16(m, 62);
	} else {
		m->phoff = ld32(m, 28);
		m->shoff = ld32(m, 32);
		m->phentsize = ld16(m, 42);
		m->phnum = ld16(m, 44);
		m->shentsize = ld16(m, 46);
		m->shnum = ld16(m, 48);
		m->shstrndx = ld16(m, 50);
	}
	if (m->shoff == 0) {
		m->shnum = 0;
		m->shstrndx = 0;
	} else {
		if (m->shentsize < (m->is64 ? 64u : 40u))
			return corrupt(m, m->is64 ? 58 : 46, "section header entry size too small");
		if (m->shnum == 0 || m->shstrndx == E_SHN_XINDEX || m->phnum == E_PN_XNUM) {
			struct elf_shdr sh0;

			/* extended numbering: the real counts live in section header 0 */
			if (get_shdr(m, 0, &sh0))
				return -1;
			if (m->shnum == 0)
				m->shnum = sh0.size > UINT32_MAX ? UINT32_MAX : (uint32_t)sh0.size;
			if (m->shstrndx == E_SHN_XINDEX)
				m->shstrndx = sh0.link;
			if (m->phnum == E_PN_XNUM)
				m->phnum = sh0.info;
		}
		if ((uint64_t)m->shnum * m->shentsize > m->size ||
		    !pc_fits(m->shoff, (uint64_t)m->shnum * m->shentsize, m->size))
			return corrupt(m, m->shoff, "section header table outside the file");
		if (m->shstrndx >= m->shnum)
			m->shstrndx = 0;
	}
	if (m->phoff == 0) {
		m->phnum = 0;
	} else if (m->phnum) {
		if (m->phentsize < (m->is64 ? 56u : 32u))
			return corrupt(m, m->is64 ? 54 : 42, "program header entry size too small");
		if ((uint64_t)m->phnum * m->phentsize > m->size ||
		    !pc_fits(m->phoff, (uint64_t)m->phnum * m->phentsize, m->size))
			return corrupt(m, m->phoff, "program header table outside the file");
	}
	return 0;
}

/* --- notes: the GNU build id --- */

static int note_align(uint64_t a)
{
	return a == 8 ? 8 : 4;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Search the notes in [off, off + size) for NT_GNU_BUILD_ID; 0 = found. */
static int scan_notes(const struct elf_map *m, uint64_t off, uint64_t size, int align,
		      const unsigned char **id, uint32_t *idlen)
{
	uint64_t pos = off, end = off + size;

	while (end - pos >= 12) {
		uint32_t namesz = ld32(m, pos), descsz = ld32(m, pos + 4), type = ld32(m, pos + 8);
		uint64_t name_off = pos + 12;
		uint64_t desc_off = name_off + align_up(namesz, (uint64_t)align);

		if (desc_off > end || descsz > end - desc_off)
			return -1;
		if (type == E_NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(m->p + name_off, "GNU", 4) == 0 && descsz > 0) {
			*id = m->p + desc_off;
			*idlen = descsz;
			return 0;
		}
		pos = desc_off + align_up(descsz, (uint64_t)align);
		if (pos > end)
			return -1;
	}
	return -1;
}

static int find_build_id(struct elf_map *m, const unsigned char **id, uint32_t *idlen)
{
	struct elf_shdr sh;
	struct elf_phdr ph;
	uint32_t i;

	for (i = 1; i < m->shnum; i++) {
		if (get_shdr(m, i, &sh))
			return -1;
		if (sh.type == E_SHT_NOTE && sec_in_file(m, &sh) &&
		    scan_notes(m, sh.offset, sh.size, note_align(sh.addralign), id, idlen) == 0)
			return 0;
	}
	for (i = 0; i < m->phnum; i++) {
		if (get_phdr(m, i, &ph))
			return -1;
		if (ph.type == E_PT_NOTE && pc_fits(ph.offset, ph.filesz, m->size) &&
		    scan_notes(m, ph.offset, ph.filesz, note_align(ph.align), id, idlen) == 0)
			return 0;
	}
	return -1;
}

static int to_hex(const unsigned char *id, uint32_t len, char *hex, size_t hexlen)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t i;

	if (hexlen < (size_t)len * 2 + 1)
		return -1;
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * len] = 0;
	return 0;
}

/*
 * Our build id against the recording's: equal ignoring case; a recorded id
 * longer than ours matches when the rest is zeros (perf pads ids to 20 bytes).
 */
static int build_id_matches(const char *have, const char *want)
{
	size_t n = strlen(have), i;

	if (strlen(want) < n)
		return 0;
	for (i = 0; i < n; i++) {
		char w = want[i];

		if (w >= 'A' && w <= 'F')
			w = (char)(w - 'A' + 'a');
		if (w != have[i])
			return 0;
	}
	for (; want[i]; i++)
		if (want[i] != '0')
			return 0;
	return 1;
}

int pc_elf_build_id(const char *path, char *hex, size_t hexlen)
{
	struct elf_map m;
	const unsigned char *id;
	uint32_t idlen;
	char why[128];
	int r = -1;

	if (!hex || hexlen == 0)
		return -1;
	hex[0] = 0;
	if (map_open(&m, path, why, sizeof(why)) != 0) {
		map_close(&m);
		return -1;
	}
	if (find_build_id(&m, &id, &idlen) == 0)
		r = to_hex(id, idlen, hex, hexlen);
	if (r)
		hex[0] = 0;
	map_close(&m);
	return r;
}

int pc_elf_debuglink(const char *path, char *name, size_t namelen)
{
	struct elf_map m;
	struct elf_shdr sh;
	const char *s;
	char why[128];
	int r = -1;

	if (!name || namelen == 0)
		return -1;
	name[0] = 0;
	if (map_open(&m, path, why, sizeof(why)) != 0) {
		map_close(&m);
		return -1;
	}
	if (find_section(&m, ".gnu_debuglink", &sh) == 0 && sec_in_file(&m, &sh)) {
		s = str_at(&m, sh.offset, sh.size, 0);
		if (s && s[0] && strlen(s) < namelen) {
			memcpy(name, s, strlen(s) + 1);
			r = 0;
		}
	}
	map_close(&m);
	return r;
}

/* --- segments --- */

static int load_segments(struct profconv_ctx *ctx, struct elf_map *m, struct elf_segs *s)
{
	struct elf_phdr ph;
	uint32_t i, n = 0;
	int mangled = 0;
	uint64_t pos = 0;

	for (i = 0; i < m->phnum; i++) {
		if (get_phdr(m, i, &ph))
			return -1;
		if (ph.type != E_PT_LOAD || ph.memsz == 0)
			continue;
		n++;
		/* a read-only segment without file bytes: a separate debug file */
		if (ph.filesz == 0 && !(ph.flags & E_PF_W))
			mangled = 1;
	}
	if (!n)
		return 0;
	s->segs = pc_calloc(ctx, n, sizeof(*s->segs));
	if (!s->segs)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < m->phnum; i++) {
		struct elf_seg *g;

		if (get_phdr(m, i, &ph))
			return -1;
		if (ph.type != E_PT_LOAD || ph.memsz == 0)
			continue;
		g = &s->segs[s->nsegs++];
		g->vaddr = ph.vaddr;
		g->exec = (ph.flags & E_PF_X) != 0;
		if (!mangled) {
			g->off = ph.offset;
			g->filesz = ph.filesz;
			continue;
		}
		/* lay the segments out again as the linker did */
		if (ph.align > 1 && (ph.align & (ph.align - 1)) == 0) {
			uint64_t mask = ph.align - 1;

			pos += (ph.vaddr - pos) & mask;
		}
		g->off = pos;
		g->filesz = ph.memsz;
		pos += ph.memsz;
	}
	if (mangled)
		pc_note(ctx, "%s: a separate debug file: segment offsets laid out again", m->path);
	return 0;
}

static int off_to_svma(const struct elf_segs *s, uint64_t off, uint64_t *svma)
{
	int pass;
	uint32_t i;

	if (!s->nsegs) {
		*svma = off;
		return 0;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < s->nsegs; i++) {
			const struct elf_seg *g = &s->segs[i];

			if (g->exec == !pass && off >= g->off && off - g->off < g->filesz) {
				*svma = off - g->off + g->vaddr;
				return 0;
			}
		}
	return -1;
}

/* An SVMA back to a file offset; from, at are the looked-up pair for a fallback. */
static uint64_t svma_to_off(const struct elf_segs *s, uint64_t svma, uint64_t from_off,
			    uint64_t from_svma)
{
	int pass;
	uint32_t i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < s->nsegs; i++) {
			const struct elf_seg *g = &s->segs[i];

			if (g->exec == !pass && svma >= g->vaddr && svma - g->vaddr < g->filesz)
				return svma - g->vaddr + g->off;
		}
	if (from_svma >= svma && from_off >= from_svma - svma)
		return from_off - (from_svma - svma);
	return svma;
}

/* --- symbols --- */

static unsigned underscores(const char *s)
{
	unsigned n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Symbols at one address sort best first, by perf's rule for aliases
 * (tools/perf/util/symbol.c, choose_best_symbol()): a sized symbol over one
 * of size 0, a function over a NOTYPE label, not weak over weak, global over
 * any other binding, fewer leading underscores, then the longer name
 * (__memmove_avx512_unaligned_erms over __memcpy_avx512_unaligned_erms,
 * cfree@GLIBC_2.2.5 over free); on a full tie the one perf reads first.
 */
static int sym_cmp(const void *pa, const void *pb)
{
	const struct elf_sym *a = pa, *b = pb;
	unsigned ua, ub;
	size_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->sized != b->sized)
		return a->sized ? -1 : 1;
	if (a->type_rank != b->type_rank)
		return a->type_rank < b->type_rank ? -1 : 1;
	if (a->bind_rank != b->bind_rank)
		return a->bind_rank < b->bind_rank ? -1 : 1;
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	if (a->ord != b->ord)
		return a->ord < b->ord ? -1 : 1;
	return strcmp(a->name, b->name);
}

static uint8_t bind_rank(unsigned bind)
{
	switch (bind) {
	case E_STB_GLOBAL:
		return 0;
	case E_STB_WEAK:
		return 2;
	default:
		return 1; /* LOCAL, GNU_UNIQUE, ...: not weak, not global */
	}
}

/*
 * Walk one symbol table (section index tab); with out == NULL only count.
 * Returns the number of symbols kept, or -1 when corrupt.
 */
static int64_t scan_symtab(struct elf_map *m, uint32_t tab, struct elf_sym *out)
{
	struct elf_shdr sh, strs, xsh, sec;
	uint64_t entsize = m->is64 ? 24 : 16, count, i;
	const unsigned char *xidx = NULL;
	uint64_t nxidx = 0;
	int64_t kept = 0;
	uint32_t k;

	if (get_shdr(m, tab, &sh) || !sec_in_file(m, &sh))
		return 0;
	if (sh.entsize < entsize || sh.link >= m->shnum || get_shdr(m, sh.link, &strs) ||
	    strs.type != E_SHT_STRTAB || !sec_in_file(m, &strs))
		return 0;
	entsize = sh.entsize;
	count = sh.size / entsize;
	for (k = 1; k < m->shnum; k++) {
		if (get_shdr(m, k, &xsh))
			return -1;
		if (xsh.type == E_SHT_SYMTAB_SHNDX && xsh.link == tab && sec_in_file(m, &xsh)) {
			xidx = m->p + xsh.offset;
			nxidx = xsh.size / 4;
			break;
		}
	}
	for (i = 1; i < count; i++) {
		uint64_t o = sh.offset + i * entsize, value, size;
		uint32_t name_off, shndx;
		unsigned info, type, bind;
		const char *name;
		uint8_t type_rank;

		name_off = ld32(m, o);
		if (m->is64) {
			info = m->p[o + 4];
			shndx = ld16(m, o + 6);
			value = ld64(m, o + 8);
			size = ld64(m, o + 16);
		} else {
			value = ld32(m, o + 4);
			size = ld32(m, o + 8);
			info = m->p[o + 12];
			shndx = ld16(m, o + 14);
		}
		type = info & 15;
		bind = info >> 4;
		if (type == E_STT_FUNC || type == E_STT_GNU_IFUNC)
			type_rank = 0;
		else if (type == E_STT_NOTYPE)
			type_rank = 1;
		else
			continue;
		if (shndx == E_SHN_XINDEX) {
			if (!xidx || i >= nxidx)
				continue;
			shndx = pc_load_u32(xidx + i * 4, m->swap);
		} else if (shndx == E_SHN_UNDEF || shndx >= E_SHN_LORESERVE) {
			continue;
		}
		if (shndx >= m->shnum || get_shdr(m, shndx, &sec))
			continue;
		if (type_rank == 1 && !(sec.flags & E_SHF_EXECINSTR))
			continue;
		name = str_at(m, strs.offset, strs.size, name_off);
		if (!name || !name[0])
			continue;
		/* ARM/AArch64 mapping symbols ($a, $t, $d, $x) and local labels */
		if (type_rank == 1 && (name[0] == '$' || (name[0] == '.' && name[1] == 'L')))
			continue;
		if (m->machine == E_EM_ARM && type_rank == 0)
			value &= ~(uint64_t)1;
		if (out) {
			struct elf_sym *y = &out[kept];

			memset(y, 0, sizeof(*y));
			y->addr = value;
			y->sized = size != 0 && value + size > value;
			y->end = y->sized ? value + size : 0;
			y->sec_end = sec.addr + sec.size > sec.addr ? sec.addr + sec.size : 0;
			y->name = name;
			y->type_rank = type_rank;
			y->bind_rank = bind_rank(bind);
		}
		kept++;
	}
	return kept;
}

/*
 * PLT stubs, named NAME@plt after the .dynsym symbol of their .rela.plt
 * entry, as perf does (tools/perf/util/symbol-elf.c,
 * dso__synthesize_plt_symbols): entry i of .plt.sec, or of .plt after its
 * header (16 bytes on x86_64, 32 on aarch64); 16-byte entries.  ELF64
 * x86_64 and aarch64 only.  Returns the count (written to out when set).
 */
static int64_t scan_plt(struct elf_map *m, struct elf_sym *out)
{
	struct elf_shdr rela, plt, dyn, strs;
	uint64_t header, n, i, base, end;
	int64_t kept = 0;

	if (!m->is64 || (m->machine != E_EM_X86_64 && m->machine != E_EM_AARCH64))
		return 0;
	if (find_section(m, ".rela.plt", &rela) || rela.type != E_SHT_RELA ||
	    !sec_in_file(m, &rela) || rela.entsize < 24 || rela.link >= m->shnum ||
	    get_shdr(m, rela.link, &dyn) || !sec_in_file(m, &dyn) || dyn.entsize < 24 ||
	    dyn.link >= m->shnum || get_shdr(m, dyn.link, &strs) || !sec_in_file(m, &strs))
		return 0;
	if (find_section(m, ".plt.sec", &plt) == 0) {
		header = 0;
	} else if (find_section(m, ".plt", &plt) == 0) {
		header = m->machine == E_EM_X86_64 ? 16 : 32;
	} else {
		return 0;
	}
	n = rela.size / rela.entsize;
	base = plt.addr + header;
	end = plt.addr + plt.size;
	if (end < plt.addr || plt.size < header || n > (plt.size - header) / 16)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t info = ld64(m, rela.offset + i * rela.entsize + 8), sym = info >> 32;
		const char *name;

		if (sym >= dyn.size / dyn.entsize)
			continue;
		/* symbol 0 (an IRELATIVE slot): perf names it "@plt" */
		name = sym ? str_at(m, strs.offset, strs.size, ld32(m, dyn.offset + sym * dyn.entsize))
			   : "";
		if (!name)
			continue;
		if (out) {
			struct elf_sym *y = &out[kept];

			memset(y, 0, sizeof(*y));
			y->addr = base + 16 * i;
			y->end = y->addr + 16;
			y->sized = 1;
			y->sec_end = end;
			y->name = name;
			y->type_rank = 0;
			y->bind_rank = 3; /* a real symbol at the same address wins */
			y->plt = 1;
		}
		kept++;
	}
	return kept;
}

struct sym_key {
	uint64_t addr;
	uint32_t idx;
};

/*
 * The symbols in sym_cmp() order, which is total (ord breaks every tie), so
 * any sort gives the same array.  qsort with sym_cmp was a sixth of opening
 * a large symbol table cold; here the (address, index) keys are radix
 * sorted, the symbols moved once, and the rare runs of one address put in
 * sym_cmp() order by qsort.  0 or NOMEM (ctx set).
 */
static int sort_syms(struct profconv_ctx *ctx, struct elf_sym *y, uint32_t n)
{
	struct sym_key *a, *b, *t;
	struct elf_sym *tmp;
	uint32_t (*count)[256], i, j;
	unsigned d;

	if (n < 256) {
		qsort(y, n, sizeof(*y), sym_cmp);
		return 0;
	}
	a = pc_alloc(ctx, (size_t)n * sizeof(*a));
	b = pc_alloc(ctx, (size_t)n * sizeof(*b));
	count = pc_calloc(ctx, 8, sizeof(*count));
	tmp = pc_alloc(ctx, (size_t)n * sizeof(*tmp));
	if (!a || !b || !count || !tmp) {
		pc_free(ctx, a);
		pc_free(ctx, b);
		pc_free(ctx, count);
		pc_free(ctx, tmp);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < n; i++) {
		a[i].addr = y[i].addr;
		a[i].idx = i;
		for (d = 0; d < 8; d++)
			count[d][(y[i].addr >> (8 * d)) & 0xff]++;
	}
	/* one stable counting pass per byte of the address, least significant first */
	for (d = 0; d < 8; d++) {
		uint32_t sum = 0;

		if (count[d][(a[0].addr >> (8 * d)) & 0xff] == n)
			continue; /* every address has this byte: nothing moves */
		for (j = 0; j < 256; j++) {
			uint32_t c = count[d][j];

			count[d][j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[d][(a[i].addr >> (8 * d)) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && a[j].addr == a[i].addr; j++)
			tmp[j] = y[a[j].idx];
		if (j - i > 1)
			qsort(tmp + i, j - i, sizeof(*tmp), sym_cmp);
	}
	memcpy(y, tmp, (size_t)n * sizeof(*y));
	pc_free(ctx, a);
	pc_free(ctx, b);
	pc_free(ctx, count);
	pc_free(ctx, tmp);
	return 0;
}

static int load_symbols(struct profconv_ctx *ctx, struct elf_src *s)
{
	struct elf_map *m = &s->m, *plt = s->rt.p ? &s->rt : &s->m;
	struct elf_shdr sh;
	struct elf_sym *y;
	uint64_t total = 0, cover_start = 0, cover_end = 0;
	uint32_t i, n, w;
	int pass, kind;

	for (pass = 0; pass < 2; pass++) {
		uint64_t at = 0;

		/* .symtab before .dynsym: the order perf reads aliases in */
		for (kind = 0; kind < 2; kind++)
			for (i = 1; i < m->shnum; i++) {
				int64_t r;

				if (get_shdr(m, i, &sh))
					return -1;
				if (sh.type != (kind ? E_SHT_DYNSYM : E_SHT_SYMTAB))
					continue;
				r = scan_symtab(m, i, pass ? s->syms + at : NULL);
				if (r < 0)
					return -1;
				at += (uint64_t)r;
			}
		at += (uint64_t)scan_plt(plt, pass ? s->syms + at : NULL);
		if (pass == 0) {
			total = at;
			if (total == 0)
				return 0;
			if (total > UINT32_MAX - 1)
				return pc_fail_at(ctx, PROFCONV_ERR_LIMIT, m->path, PC_NO_OFFSET,
						  "more than 2^32 symbols");
			s->syms = pc_alloc(ctx, (size_t)total * sizeof(*s->syms));
			if (!s->syms)
				return PROFCONV_ERR_NOMEM;
		}
	}
	n = (uint32_t)total;
	for (i = 0; i < n; i++)
		s->syms[i].ord = i;
	if (sort_syms(ctx, s->syms, n))
		return PROFCONV_ERR_NOMEM;
	/* one entry per address (the best name), spanning its widest sized alias */
	y = s->syms;
	w = 0;
	for (i = 0; i < n; i++) {
		if (w && y[w - 1].addr == y[i].addr) {
			struct elf_sym *k = &y[w - 1];

			if (y[i].sized && (!k->sized || y[i].end > k->end)) {
				k->end = y[i].end;
				k->sized = 1;
			}
			if (y[i].sec_end > k->sec_end)
				k->sec_end = y[i].sec_end;
			continue;
		}
		y[w++] = y[i];
	}
	n = w;
	/* assembler labels inside a sized function are not functions of their own */
	w = 0;
	for (i = 0; i < n; i++) {
		if (y[i].type_rank == 1 && y[i].addr > cover_start && y[i].addr < cover_end)
			continue;
		if (y[i].type_rank == 0 && y[i].sized && y[i].end > cover_end) {
			cover_start = y[i].addr;
			cover_end = y[i].end;
		}
		y[w++] = y[i];
	}
	n = w;
	/* unsized: up to the next symbol or the end of the section */
	for (i = 0; i < n; i++) {
		uint64_t end;

		if (y[i].sized)
			continue;
		end = y[i].sec_end > y[i].addr ? y[i].sec_end : UINT64_MAX;
		if (i + 1 < n && y[i + 1].addr < end)
			end = y[i + 1].addr;
		if (end == UINT64_MAX)
			end = y[i].addr + 1;
		y[i].end = end;
	}
	s->nsyms = n;
	return 0;
}

static const struct elf_sym *find_sym(const struct elf_src *s, uint64_t a)
{
	uint32_t lo = 0, hi = s->nsyms, k;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: the first symbol above a; a few steps back for a symbol that spans others */
	for (k = 0; k < 8 && k < lo; k++) {
		const struct elf_sym *y = &s->syms[lo - 1 - k];

		if (a < y->end)
			return y;
	}
	return NULL;
}

static const char *shown_name(struct elf_src *s, struct elf_sym *y)
{
	const char *d;

	/* under s->mu */
	if (y->shown)
		return y->shown;
	d = pc_demangle(y->name, s->dembuf, sizeof(s->dembuf));
	if (y->plt) {
		size_t n = strlen(d);
		char *copy = pc_alloc(s->base.ctx, n + 5);

		if (!copy)
			return NULL;
		memcpy(copy, d, n);
		memcpy(copy + n, "@plt", 5);
		__atomic_store_n(&y->shown, copy, __ATOMIC_RELEASE);
	} else if (d == y->name) {
		__atomic_store_n(&y->shown, y->name, __ATOMIC_RELEASE);
	} else {
		char *copy = pc_strdup(s->base.ctx, d);

		if (!copy)
			return NULL;
		__atomic_store_n(&y->shown, copy, __ATOMIC_RELEASE);
	}
	return y->shown;
}

/* --- the source --- */

static int lookup_now(struct elf_src *s, uint64_t rel, struct pc_sym_result *out)
{
	struct pc_dwarf_hit hitbuf, *hit = &hitbuf;
	const struct elf_sym *cy;
	uint64_t a, start, size;
	const char *name = NULL;
	uint32_t k;
	int r = 0;

	out->nframes = 0;
	out->sym_start = 0;
	out->sym_size = 0;
	if (off_to_svma(&s->sg, rel, &a))
		return 0;
	cy = find_sym(s, a);
	hit->nframes = 0;
	/* first without a lock, on what earlier lookups computed */
	if (s->dw)
		r = pc_dwarf_lookup_fast(s->dw, a, hit);
	if (cy)
		name = __atomic_load_n(&cy->shown, __ATOMIC_ACQUIRE);
	if (r == PC_DWARF_SLOW || (cy && !name)) {
		pthread_mutex_lock(&s->mu);
		if (r == PC_DWARF_SLOW)
			r = pc_dwarf_lookup(s->dw, a, hit);
		if (cy && !name && r >= 0)
			name = shown_name(s, &s->syms[cy - s->syms]);
		pthread_mutex_unlock(&s->mu);
		if (r >= 0 && cy && !name)
			return -PROFCONV_ERR_NOMEM;
	}
	if (r < 0)
		return r;
	if (cy) {
		start = cy->addr;
		size = cy->end - cy->addr;
	} else if (hit->nframes && hit->frames[0].name && hit->sub_hi > hit->sub_lo) {
		name = hit->frames[0].name;
		start = hit->sub_lo;
		size = hit->sub_hi - hit->sub_lo;
	} else {
		return 0;
	}
	if (hit->nframes) {
		out->nframes = hit->nframes;
		for (k = 0; k < hit->nframes; k++)
			out->frames[k] = hit->frames[k];
	} else {
		out->nframes = 1;
		out->frames[0].file = NULL;
		out->frames[0].line = 0;
	}
	out->frames[0].name = name;
	out->sym_start = svma_to_off(&s->sg, start, rel, a);
	out->sym_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	return 1;
}

static int load_full(struct profconv_ctx *ctx, struct elf_src *s, const char *path);

/* Read what a deferred source put off; 0 or an error code (ctx set). */
static int ensure_loaded(struct elf_src *s)
{
	int err;

	if (!s->deferred || __atomic_load_n(&s->loaded, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&s->mu);
	if (!s->loaded && !s->load_err) {
		pc_note(s->base.ctx, "%s: an address the symbol cache does not hold: reading the file",
			s->base.path);
		err = load_full(s->base.ctx, s, s->base.path);
		if (err)
			s->load_err = err;
		else
			__atomic_store_n(&s->loaded, 1, __ATOMIC_RELEASE);
	}
	err = s->load_err;
	pthread_mutex_unlock(&s->mu);
	return err;
}

static int elf_lookup(struct pc_symsrc *base, uint64_t rel, struct pc_sym_result *out)
{
	struct elf_src *s = (struct elf_src *)base;
	int r;

	if (s->pc) {
		r = pc_sympersist_find(s->pc, rel, out);
		if (r >= 0)
			return r;
	}
	r = ensure_loaded(s);
	if (r)
		return -r;
	r = lookup_now(s, rel, out);
	if (r >= 0 && s->pc) {
		pthread_mutex_lock(&s->mu);
		pc_sympersist_add(s->pc, rel, r, out);
		pthread_mutex_unlock(&s->mu);
	}
	return r;
}

static uint64_t warn_total(const struct profconv_ctx *ctx)
{
	uint64_t n = 0;
	unsigned k;

	for (k = 0; k < ctx->nwarns; k++)
		n += ctx->warns[k].count;
	return n;
}

static void elf_close(struct pc_symsrc *base)
{
	struct elf_src *s = (struct elf_src *)base;
	struct profconv_ctx *ctx = base->ctx;
	uint32_t i;

	/* written only when nothing since the opening warned (a warm run must warn as a cold one) */
	pc_sympersist_close(s->pc, !s->load_err && warn_total(ctx) == s->warn_base,
			    s->deferred && !s->loaded ? s->cached_dwarf : s->dw != NULL);
	pc_dwarf_close(s->dw);
	for (i = 0; i < s->nsyms; i++)
		if (s->syms[i].shown && s->syms[i].shown != s->syms[i].name)
			pc_free(ctx, (void *)s->syms[i].shown);
	pc_free(ctx, s->syms);
	pc_free(ctx, s->sg.segs);
	map_close(&s->m);
	if (s->rt.p)
		map_close(&s->rt);
	pthread_mutex_destroy(&s->mu);
	pc_free(ctx, s);
}

static const struct pc_symsrc_ops elf_ops = {
	.kind = "elf",
	.lookup = elf_lookup,
	.close = elf_close,
};

static const struct pc_symsrc_ops elf_dwarf_ops = {
	.kind = "elf+dwarf",
	.lookup = elf_lookup,
	.close = elf_close,
};

/* Code at address 0 (then DWARF ranges at 0 are real, not tombstones). */
static int has_text_at_zero(struct elf_map *m)
{
	struct elf_shdr sh;
	uint32_t i;

	for (i = 1; i < m->shnum; i++)
		if (get_shdr(m, i, &sh) == 0 && (sh.flags & E_SHF_EXECINSTR) && sh.addr == 0 &&
		    sh.size)
			return 1;
	return 0;
}

/*
 * 1 when the file has DWARF that libdwarf can read; 0 when none; -1 when
 * the sections are zstd-compressed (libdwarf 20210528 inflates zlib only).
 */
static int has_debug_info(struct elf_map *m)
{
	struct elf_shdr sh;

	if (find_section(m, ".debug_info", &sh) == 0 && sec_in_file(m, &sh) && sh.size) {
		/* Elf_Chdr.ch_type: 1 zlib, 2 zstd */
		if ((sh.flags & E_SHF_COMPRESSED) && sh.size >= 4 &&
		    ld32(m, sh.offset) == E_COMPRESS_ZSTD)
			return -1;
		return 1;
	}
	return find_section(m, ".zdebug_info", &sh) == 0 && sec_in_file(m, &sh) && sh.size;
}

/*
 * Map path and check that it is an executable or shared library with the
 * expected build id (NULL or "": any).  0 = ready; 1 = not usable (why
 * set); -1 = corrupt (m->bad set).  The map is left for the caller to close.
 */
static int open_checked(struct elf_map *m, const char *path, const char *expect_build_id,
			char *why, size_t whylen)
{
	const unsigned char *id;
	uint32_t idlen;
	char have[256];
	int r = map_open(m, path, why, whylen);

	if (r)
		return r;
	if (m->type != E_ET_EXEC && m->type != E_ET_DYN) {
		pc_snprintf(why, whylen, "ELF type %u is not an executable or shared library",
			    m->type);
		return 1;
	}
	have[0] = 0;
	if (find_build_id(m, &id, &idlen) == 0 && to_hex(id, idlen, have, sizeof(have)))
		have[0] = 0;
	if (m->bad)
		return -1;
	if (expect_build_id && expect_build_id[0]) {
		if (!have[0]) {
			pc_snprintf(why, whylen, "no build id in the file; the recording's is %s",
				    expect_build_id);
			return 1;
		}
		if (!build_id_matches(have, expect_build_id)) {
			pc_snprintf(why, whylen, "build id %s does not match the recording's %s",
				    have, expect_build_id);
			return 1;
		}
	}
	return 0;
}

int pc_symsrc_open_elf(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
		       struct pc_symsrc **out, char *why, size_t whylen)
{
	return pc_symsrc_open_elf_rt(ctx, path, expect_build_id, NULL, out, why, whylen);
}

/* Whether the file's PLT can be read from it (a debug file's cannot). */
static int plt_in_file(struct elf_map *m)
{
	struct elf_shdr sh;

	return find_section(m, ".rela.plt", &sh) == 0 && sec_in_file(m, &sh);
}

/* A DWARF section's bytes as the file has them, for sym_dwarf.c's own readers. */
static void debug_sec(struct elf_map *m, const char *name, struct pc_dwarf_sec *out)
{
	struct elf_shdr sh;

	memset(out, 0, sizeof(*out));
	if (find_section(m, name, &sh) || !sec_in_file(m, &sh))
		return;
	out->p = m->p + sh.offset;
	out->size = sh.size;
	out->compressed = (sh.flags & E_SHF_COMPRESSED) != 0;
	out->is64 = m->is64 != 0;
	out->big_endian = host_is_big_endian() != (m->swap != 0);
}

/*
 * Every .debug_* section for libdwarf (pc_dwarf.h); secs->nall stays 0
 * (libdwarf opens the file itself) when the file has GNU .zdebug_
 * sections or relocations for its DWARF, or more sections than all[] holds.
 */
static void debug_secs_all(struct elf_map *m, struct pc_dwarf_secs *secs)
{
	struct elf_shdr sh;
	uint32_t i, n = 0;

	secs->nall = 0;
	secs->is64 = m->is64 != 0;
	secs->big_endian = host_is_big_endian() != (m->swap != 0);
	for (i = 1; i < m->shnum; i++) {
		struct pc_dwarf_osec *o;
		const char *name;

		if (get_shdr(m, i, &sh))
			return;
		name = sec_name(m, &sh);
		if (strncmp(name, ".zdebug", 7) == 0 || strncmp(name, ".rela.debug", 11) == 0 ||
		    strncmp(name, ".rel.debug", 10) == 0)
			return;
		if (strncmp(name, ".debug_", 7) != 0)
			continue;
		if (n == PC_DWARF_MAX_SECS)
			return;
		o = &secs->all[n++];
		memset(o, 0, sizeof(*o));
		o->name = name;
		if (sec_in_file(m, &sh)) {
			o->s.p = m->p + sh.offset;
			o->s.size = sh.size;
			o->s.compressed = (sh.flags & E_SHF_COMPRESSED) != 0;
		}
		o->s.is64 = secs->is64;
		o->s.big_endian = secs->big_endian;
		o->addr = sh.addr;
	}
	secs->nall = n;
}

/*
 * The symbol table and DWARF: at opening, or at the first lookup the
 * persistent cache cannot answer.  0 or an error code (ctx set).
 */
static int load_full(struct profconv_ctx *ctx, struct elf_src *s, const char *path)
{
	int r, err = load_symbols(ctx, s);

	if (err < 0)
		goto bad;
	if (err)
		return err;
	r = has_debug_info(&s->m);
	if (r > 0) {
		struct pc_dwarf_secs secs;

		debug_sec(&s->m, ".debug_line", &secs.line);
		debug_sec(&s->m, ".debug_info", &secs.info);
		debug_sec(&s->m, ".debug_abbrev", &secs.abbrev);
		debug_sec(&s->m, ".debug_rnglists", &secs.rnglists);
		debug_sec(&s->m, ".debug_ranges", &secs.ranges);
		debug_secs_all(&s->m, &secs);
		err = pc_dwarf_open(ctx, s->m.fd, path, has_text_at_zero(&s->m), &secs, &s->dw);
		if (err)
			return err;
	} else if (r < 0) {
		err = pc_warn(ctx, "debug info problems skipped", NULL,
			      "%s: zstd-compressed DWARF (libdwarf reads zlib only); symbols only",
			      path);
		if (err)
			return err;
	}
	if (!s->m.bad)
		return 0;
bad:
	return pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, path, s->m.bad_off, "ELF: %s",
			  s->m.bad ? s->m.bad : "malformed");
}

static int file_id(struct elf_map *m, char *hex, size_t hexlen, struct pc_sympersist_id *id)
{
	const unsigned char *b;
	uint32_t blen;
	struct stat st;

	hex[0] = 0;
	if (fstat(m->fd, &st) != 0)
		return -1;
	if (find_build_id(m, &b, &blen) == 0 && to_hex(b, blen, hex, hexlen))
		hex[0] = 0;
	id->build_id = hex;
	id->size = (uint64_t)st.st_size;
	id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	id->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	return 0;
}

/* The persistent cache's entry for s (none when the file has no build id).  0 or NOMEM. */
static int persist_open(struct profconv_ctx *ctx, struct elf_src *s)
{
	struct pc_sympersist_id fid, rid;
	char fhex[256], rhex[256];

	if (file_id(&s->m, fhex, sizeof(fhex), &fid) || !fhex[0])
		return 0;
	if (s->rt.p && file_id(&s->rt, rhex, sizeof(rhex), &rid))
		return 0;
	return pc_sympersist_open(ctx, ctx->opt.symbol_cache, &fid, s->rt.p ? &rid : NULL, &s->pc);
}

int pc_symsrc_open_elf_rt(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			  const char *runtime_path, struct pc_symsrc **out, char *why,
			  size_t whylen)
{
	struct elf_src *s;
	uint64_t w0;
	int r, err = 0;

	*out = NULL;
	if (why && whylen)
		why[0] = 0;
	s = pc_calloc(ctx, 1, sizeof(*s));
	if (!s)
		return PROFCONV_ERR_NOMEM;
	if (pthread_mutex_init(&s->mu, NULL) != 0) {
		pc_free(ctx, s);
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "%s: no mutex", path);
	}
	s->base.ctx = ctx;
	r = open_checked(&s->m, path, expect_build_id, why, whylen);
	if (r > 0)
		goto not_usable;
	if (r < 0)
		goto bad;
	err = load_segments(ctx, &s->m, &s->sg);
	if (err < 0)
		goto bad;
	if (err)
		goto fail;
	if (runtime_path && strcmp(runtime_path, path) != 0 && !plt_in_file(&s->m)) {
		char rwhy[256];

		/* the binary's PLT, if it is the same build; else none */
		if (open_checked(&s->rt, runtime_path, expect_build_id, rwhy, sizeof(rwhy)) != 0 ||
		    s->rt.bad || !plt_in_file(&s->rt)) {
			if (s->rt.p)
				map_close(&s->rt);
			memset(&s->rt, 0, sizeof(s->rt));
		}
	}
	pc_snprintf(s->base.path, sizeof(s->base.path), "%s", path);
	if (ctx->opt.symbol_cache && ctx->opt.symbol_cache[0]) {
		err = persist_open(ctx, s);
		if (err)
			goto fail;
		if (pc_sympersist_valid(s->pc, &s->cached_dwarf)) {
			/* this file opened cleanly before: its tables wait for a miss */
			s->deferred = 1;
			s->warn_base = warn_total(ctx);
			s->base.ops = s->cached_dwarf ? &elf_dwarf_ops : &elf_ops;
			*out = &s->base;
			return 0;
		}
	}
	w0 = warn_total(ctx);
	err = load_full(ctx, s, path);
	if (err)
		goto fail;
	if (!s->nsyms && !s->dw) {
		pc_snprintf(why, whylen, "no symbols (no functions in .symtab/.dynsym, no DWARF)");
		goto not_usable;
	}
	s->warn_base = warn_total(ctx);
	if (s->warn_base != w0) {
		/* an opening that warned is not cached: the next would not warn */
		pc_sympersist_close(s->pc, 0, 0);
		s->pc = NULL;
	}
	s->base.ops = s->dw ? &elf_dwarf_ops : &elf_ops;
	*out = &s->base;
	return 0;

bad:
	err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, path, s->m.bad_off, "ELF: %s",
			 s->m.bad ? s->m.bad : "malformed");
	goto fail;
not_usable:
	err = 0;
fail:
	elf_close(&s->base);
	return err;
}

/* --- call frame information for the unwinder (pc_cfi.h) --- */


struct elf_cfi_src {
	struct pc_symsrc base;
	struct elf_map m;
	struct elf_segs sg;
	struct pc_cfi *cfi;
	enum pc_arch arch;
};

static int cfi_lookup(struct pc_symsrc *base, uint64_t rel, struct pc_sym_result *out)
{
	(void)base;
	(void)rel;
	(void)out;
	return 0; /* unwind tables name no functions */
}

static void cfi_close(struct pc_symsrc *base)
{
	struct elf_cfi_src *s = (struct elf_cfi_src *)base;

	pc_cfi_free(s->cfi);
	pc_free(base->ctx, s->sg.segs);
	map_close(&s->m);
	pc_free(base->ctx, s);
}

static const struct pc_symsrc_ops elf_cfi_ops = {
	.kind = "elf-cfi",
	.lookup = cfi_lookup,
	.close = cfi_close,
};

/* A section's bytes and address when it has bytes in the file, else NULL. */
static const unsigned char *cfi_section(struct elf_map *m, const char *name, uint64_t *size,
					uint64_t *addr)
{
	struct elf_shdr sh;

	if (find_section(m, name, &sh) != 0 || !sec_in_file(m, &sh) || !sh.size ||
	    (sh.flags & E_SHF_COMPRESSED))
		return NULL;
	*size = sh.size;
	*addr = sh.addr;
	return m->p + sh.offset;
}

int pc_symsrc_open_elf_cfi(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			   struct pc_symsrc **out, char *why, size_t whylen)
{
	struct elf_cfi_src *s;
	struct pc_cfi_sections cs;
	int r, err = 0;

	*out = NULL;
	if (why && whylen)
		why[0] = 0;
	s = pc_calloc(ctx, 1, sizeof(*s));
	if (!s)
		return PROFCONV_ERR_NOMEM;
	s->base.ctx = ctx;
	r = open_checked(&s->m, path, expect_build_id, why, whylen);
	if (r > 0)
		goto not_usable;
	if (r < 0)
		goto bad;
	if (!s->m.is64 || (s->m.machine != E_EM_X86_64 && s->m.machine != E_EM_AARCH64)) {
		pc_snprintf(why, whylen, "ELF machine %u (%s): only x86_64 and aarch64 are unwound",
			    s->m.machine, s->m.is64 ? "64-bit" : "32-bit");
		goto not_usable;
	}
	s->arch = s->m.machine == E_EM_X86_64 ? PC_ARCH_X86_64 : PC_ARCH_AARCH64;
	memset(&cs, 0, sizeof(cs));
	cs.swap = s->m.swap;
	cs.eh_frame_hdr = cfi_section(&s->m, ".eh_frame_hdr", &cs.eh_frame_hdr_size,
				      &cs.eh_frame_hdr_addr);
	cs.eh_frame = cfi_section(&s->m, ".eh_frame", &cs.eh_frame_size, &cs.eh_frame_addr);
	{
		uint64_t unused;

		cs.debug_frame = cfi_section(&s->m, ".debug_frame", &cs.debug_frame_size, &unused);
	}
	if (s->m.bad)
		goto bad;
	if (!cs.eh_frame && !cs.debug_frame) {
		pc_snprintf(why, whylen, "no call frame information (.eh_frame, .debug_frame)");
		goto not_usable;
	}
	err = load_segments(ctx, &s->m, &s->sg);
	if (err < 0)
		goto bad;
	if (err)
		goto fail;
	err = pc_cfi_new(ctx, &cs, s->arch, &s->cfi);
	if (err)
		goto fail;
	s->base.ops = &elf_cfi_ops;
	pc_snprintf(s->base.path, sizeof(s->base.path), "%s", path);
	*out = &s->base;
	return 0;

bad:
	err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, path, s->m.bad_off, "ELF: %s",
			 s->m.bad ? s->m.bad : "malformed");
	goto fail;
not_usable:
	err = 0;
fail:
	s->base.ops = &elf_cfi_ops;
	cfi_close(&s->base);
	return err;
}

struct pc_cfi *pc_elf_cfi(struct pc_symsrc *src, enum pc_arch *arch)
{
	struct elf_cfi_src *s = (struct elf_cfi_src *)src;

	if (!src || src->ops != &elf_cfi_ops)
		return NULL;
	if (arch)
		*arch = s->arch;
	return s->cfi;
}

uint32_t pc_elf_check_own(struct pc_symsrc *src, uint32_t *lines, uint32_t *walks)
{
	struct elf_src *s = (struct elf_src *)src;
	uint32_t bad;

	*lines = *walks = 0;
	if (src->ops != &elf_dwarf_ops || ensure_loaded(s) || !s->dw)
		return 0;
	pthread_mutex_lock(&s->mu);
	bad = pc_dwarf_check_own(s->dw, lines, walks);
	pthread_mutex_unlock(&s->mu);
	return bad;
}

int pc_elf_cfi_svma(const struct pc_symsrc *src, uint64_t off, uint64_t *svma)
{
	const struct elf_cfi_src *s = (const struct elf_cfi_src *)src;

	return off_to_svma(&s->sg, off, svma);
}

/* --- machine code for a disassembler (pc_symsrc.h) --- */

struct elf_code_src {
	struct pc_symsrc base;
	struct elf_map m;
};

static int code_lookup(struct pc_symsrc *base, uint64_t rel, struct pc_sym_result *out)
{
	(void)base;
	(void)rel;
	(void)out;
	return 0;
}

static void code_close(struct pc_symsrc *base)
{
	struct elf_code_src *s = (struct elf_code_src *)base;

	map_close(&s->m);
	pc_free(base->ctx, s);
}

static const struct pc_symsrc_ops elf_code_ops = {
	.kind = "elf-code",
	.lookup = code_lookup,
	.close = code_close,
};

/* The executable section whose bytes in the file hold off; 0 or -1. */
static int code_section(struct elf_map *m, uint64_t off, struct elf_shdr *out)
{
	uint32_t i;

	for (i = 1; i < m->shnum; i++) {
		if (get_shdr(m, i, out))
			return -1;
		if ((out->flags & E_SHF_EXECINSTR) && out->size && sec_in_file(m, out) &&
		    off >= out->offset && off - out->offset < out->size)
			return 0;
	}
	return -1;
}

int pc_symsrc_open_elf_code(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			    struct pc_symsrc **out, char *why, size_t whylen)
{
	struct elf_code_src *s;
	struct elf_shdr sh;
	uint32_t i;
	int r, err = 0, any = 0;

	*out = NULL;
	if (why && whylen)
		why[0] = 0;
	s = pc_calloc(ctx, 1, sizeof(*s));
	if (!s)
		return PROFCONV_ERR_NOMEM;
	s->base.ctx = ctx;
	s->base.ops = &elf_code_ops;
	r = open_checked(&s->m, path, expect_build_id, why, whylen);
	if (r > 0)
		goto not_usable;
	if (r < 0)
		goto bad;
	for (i = 1; i < s->m.shnum && !any; i++) {
		if (get_shdr(&s->m, i, &sh))
			goto bad;
		any = (sh.flags & E_SHF_EXECINSTR) && sh.size && sec_in_file(&s->m, &sh);
	}
	if (!any) {
		pc_snprintf(why, whylen, "no machine code in the file (a separate debug file?)");
		goto not_usable;
	}
	pc_snprintf(s->base.path, sizeof(s->base.path), "%s", path);
	*out = &s->base;
	return 0;

bad:
	err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, path, s->m.bad_off, "ELF: %s",
			 s->m.bad ? s->m.bad : "malformed");
	goto fail;
not_usable:
	err = 0;
fail:
	code_close(&s->base);
	return err;
}

int pc_elf_code(const struct pc_symsrc *src, uint64_t off, const unsigned char **bytes, uint64_t *len,
		uint64_t *svma, unsigned *machine)
{
	struct elf_code_src *s = (struct elf_code_src *)src;
	struct elf_shdr sh;
	uint64_t avail;

	if (!src || src->ops != &elf_code_ops || code_section(&s->m, off, &sh))
		return -1;
	avail = sh.size - (off - sh.offset);
	if (*len > avail)
		*len = avail;
	*bytes = s->m.p + off;
	*svma = sh.addr + (off - sh.offset);
	*machine = s->m.machine;
	return 0;
}
