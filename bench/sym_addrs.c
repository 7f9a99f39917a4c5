/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_addrs.c - symbolicate a list of addresses with profconv's ELF/DWARF
 * symbol source, printing what `llvm-symbolizer --inlines` prints, for
 * bench/bench_sym.sh.
 *
 * usage: sym_addrs [--vma] [--phdrs ELF] [--build-id HEX] FILE < ADDRESSES
 *
 *   ADDRESSES   hex (0x optional), one per line.  By default they are file
 *               offsets, the "lib-relative" addresses profconv's sources take
 *               (perf: ip - map.start + map.pgoff).
 *   --vma       they are virtual addresses (what llvm-symbolizer and
 *               addr2line take); each is turned into a file offset through
 *               the PT_LOAD program headers (address - p_vaddr + p_offset).
 *   --phdrs ELF take those program headers from ELF instead of FILE.  A
 *               separate debug file (objcopy --only-keep-debug) keeps the
 *               segments' addresses but not their file offsets: pass the
 *               stripped binary it belongs to.
 *   --build-id  the build id FILE must have (as a recording would name it).
 *
 * Output, per address, innermost function first (as llvm-symbolizer
 * --inlines):
 *
 *   name
 *   file:line
 *   name-of-the-caller-it-is-inlined-into
 *   file:line
 *   <blank line>
 *
 * "??" and "??:0" when nothing is known.  A summary goes to stderr.
 *
 * Built against the static library (internal API), e.g.
 *   cc -O2 -I include -I src bench/sym_addrs.c BUILD/libprofconv_internal.a \
 *      $(pkg-config --libs libarchive libzstd libcjson zlib) -ldwarf -ldl
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolicate/pc_symsrc.h"

struct seg {
	uint64_t vaddr, memsz, off;
	int exec;
};

static void usage(FILE *f)
{
	fputs("usage: sym_addrs [--vma] [--phdrs ELF] [--build-id HEX] FILE < ADDRESSES\n", f);
}

/* The PT_LOAD segments of a little-endian ELF64 file (all this bench needs). */
static int read_segments(const char *path, struct seg **out, size_t *nout)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct seg *v;
	size_t n = 0;
	int fd, i;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "sym_addrs: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		fprintf(stderr, "sym_addrs: %s: not a little-endian ELF64 file\n", path);
		close(fd);
		return -1;
	}
	v = calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*v));
	if (!v) {
		close(fd);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph)) {
			fprintf(stderr, "sym_addrs: %s: truncated program headers\n", path);
			free(v);
			close(fd);
			return -1;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_flags & PF_X) && ph.p_filesz == 0 && ph.p_memsz != 0) {
			fprintf(stderr,
				"sym_addrs: %s: a separate debug file (its code segment has no file "
				"offsets); pass the stripped binary with --phdrs\n",
				path);
			free(v);
			close(fd);
			return -1;
		}
		v[n].vaddr = ph.p_vaddr;
		v[n].memsz = ph.p_memsz;
		v[n].off = ph.p_offset;
		v[n].exec = !!(ph.p_flags & PF_X);
		n++;
	}
	close(fd);
	*out = v;
	*nout = n;
	return 0;
}

/* VMA -> file offset; an executable segment wins over an overlapping other one. */
static int vma_to_off(const struct seg *v, size_t n, uint64_t a, uint64_t *off)
{
	int pass;
	size_t i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (v[i].exec == !pass && a >= v[i].vaddr && a - v[i].vaddr < v[i].memsz) {
				*off = a - v[i].vaddr + v[i].off;
				return 0;
			}
	return -1;
}

static void put_loc(const struct pc_sym_frame *f)
{
	if (f->file)
		printf("%s:%u\n", f->file, f->line);
	else
		fputs("??:0\n", stdout);
}

int main(int argc, char **argv)
{
	const char *file = NULL, *phdrs = NULL, *build_id = NULL;
	struct profconv_ctx *ctx;
	struct pc_symsrc *src = NULL;
	struct pc_sym_result res;
	struct seg *segs = NULL;
	size_t nsegs = 0;
	char why[512], line[256];
	unsigned long long n = 0, found = 0, located = 0, inlined = 0, unmapped = 0, bad = 0;
	int vma = 0, i, r, status = 0;
	static char obuf[1 << 16];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--vma"))
			vma = 1;
		else if (!strcmp(argv[i], "--phdrs") && i + 1 < argc)
			phdrs = argv[++i];
		else if (!strcmp(argv[i], "--build-id") && i + 1 < argc)
			build_id = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' || file) {
			usage(stderr);
			return 2;
		} else
			file = argv[i];
	}
	if (!file) {
		usage(stderr);
		return 2;
	}
	if (vma && read_segments(phdrs ? phdrs : file, &segs, &nsegs))
		return 1;

	ctx = profconv_ctx_new();
	if (!ctx) {
		fputs("sym_addrs: out of memory\n", stderr);
		return 1;
	}
	r = pc_symsrc_open_elf(ctx, file, build_id, &src, why, sizeof(why));
	if (r) {
		fprintf(stderr, "sym_addrs: %s\n", profconv_errmsg(ctx));
		profconv_ctx_free(ctx);
		return 1;
	}
	if (!src) {
		fprintf(stderr, "sym_addrs: %s: not usable: %s\n", file, why);
		profconv_ctx_free(ctx);
		return 1;
	}

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	while (fgets(line, sizeof(line), stdin)) {
		char *end;
		uint64_t a, off;
		uint32_t k;

		if (line[0] == '\n' || line[0] == 0)
			continue;
		n++;
		errno = 0;
		a = strtoull(line, &end, 16);
		if (errno || end == line || (*end && *end != '\n' && *end != '\r')) {
			bad++;
			fputs("??\n??:0\n\n", stdout);
			continue;
		}
		off = a;
		if (vma && vma_to_off(segs, nsegs, a, &off)) {
			unmapped++;
			fputs("??\n??:0\n\n", stdout);
			continue;
		}
		r = pc_symsrc_lookup(src, off, &res);
		if (r < 0) {
			fprintf(stderr, "sym_addrs: lookup of 0x%llx: %s\n", (unsigned long long)a,
				profconv_errmsg(ctx));
			status = 1;
			break;
		}
		if (r == 0 || res.nframes == 0) {
			fputs("??\n??:0\n\n", stdout);
			continue;
		}
		found++;
		if (res.frames[res.nframes - 1].file)
			located++;
		if (res.nframes > 1)
			inlined++;
		for (k = res.nframes; k-- > 0;) {
			fputs(res.frames[k].name, stdout);
			putchar('\n');
			put_loc(&res.frames[k]);
		}
		putchar('\n');
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "sym_addrs: write error\n");
		status = 1;
	}
	fprintf(stderr,
		"sym_addrs: %s (%s): %llu addresses, %llu found, %llu with file:line, "
		"%llu in inlined code, %llu outside the segments, %llu unreadable\n",
		file, src->ops->kind, n, found, located, inlined, unmapped, bad);
	pc_symsrc_close(src);
	profconv_ctx_free(ctx);
	free(segs);
	return status;
}
