/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_symsrc.h - symbol sources: something that turns a lib-relative address
 * into a function (and, with debug info, an inline chain with file:line).
 *
 * A source is opened for one library and answers lookups until closed.
 * Addresses are "lib-relative" exactly as in the model's frameTable: for an
 * ELF file that is the file offset the address maps to (perf gives
 * ip - map.start + map.pgoff), which each source converts to its own
 * convention (ELF: through the PT_LOAD segments to an SVMA; breakpad: module
 * RVA; kallsyms: absolute address - _text; perf map: absolute address).
 *
 * Result strings are owned by the source and stay valid until it is closed;
 * the caller interns what it keeps.
 *
 * symbolicate/ includes model/ and core/ only.
 */
#ifndef PC_SYMSRC_H
#define PC_SYMSRC_H

#include "core/pc_core.h"
#include "symbolicate/pc_cfi.h"

#define PC_MAX_INLINE 32

/* One function level at an address. */
struct pc_sym_frame {
	const char *name; /* demangled when possible; never NULL */
	const char *file; /* source file path, or NULL */
	uint32_t line;	  /* 1-based line inside this function, 0 = unknown */
};

struct pc_sym_result {
	uint64_t sym_start; /* lib-relative start of the outer symbol */
	uint32_t sym_size;  /* bytes, 0 = unknown */
	/*
	 * frames[0] is the outer (real, not inlined) function; frames[k] for
	 * k >= 1 is inlined into frames[k-1]; frames[nframes-1] is innermost.
	 * frames[k].line is the line executing in that function: for k <
	 * nframes-1 the line of the call to frames[k+1].
	 */
	uint32_t nframes; /* >= 1 when found */
	struct pc_sym_frame frames[PC_MAX_INLINE];
};

struct pc_symsrc;

struct pc_symsrc_ops {
	const char *kind; /* "elf", "elf+dwarf", "breakpad", "perf-map", "kallsyms", "jitdump" */
	/* 1 = found (out filled), 0 = no symbol covers rel, negative = error (ctx set). */
	int (*lookup)(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out);
	void (*close)(struct pc_symsrc *s);
};

struct pc_symsrc {
	const struct pc_symsrc_ops *ops;
	struct profconv_ctx *ctx;
	char path[4096]; /* the file the symbols come from, for --verbose */
	/* owned by a shared cache (pc_symcache.h): close leaves it open, and
	 * lookups may come from several threads at once */
	uint8_t shared;
};

static inline int pc_symsrc_lookup(struct pc_symsrc *s, uint64_t rel, struct pc_sym_result *out)
{
	return s->ops->lookup(s, rel, out);
}

static inline void pc_symsrc_close(struct pc_symsrc *s)
{
	if (s && !s->shared)
		s->ops->close(s);
}

/*
 * Openers.  Each returns 0 with *out set, or 0 with *out NULL and a reason
 * in why[] (file absent, build id mismatch, no symbols), or an error code
 * for I/O or corrupt input (ctx error set).
 *
 * expect_build_id: lower-case hex of the build id the recording names, or
 * NULL when unknown (then any file is accepted).
 */
int pc_symsrc_open_elf(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
		       struct pc_symsrc **out, char *why, size_t whylen);
/*
 * The same, for a separate debug file whose binary is at runtime_path (or
 * NULL): a debug file's .plt and .rela.plt have no contents, so the PLT
 * stubs' names (NAME@plt) come from the binary, as perf takes them from its
 * "runtime" image, when its build id matches too.
 */
int pc_symsrc_open_elf_rt(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			  const char *runtime_path, struct pc_symsrc **out, char *why,
			  size_t whylen);
/* expect_debug_id: the 33-hex-digit breakpad id, or NULL. */
int pc_symsrc_open_breakpad(struct profconv_ctx *ctx, const char *path,
			    const char *expect_debug_id, struct pc_symsrc **out, char *why,
			    size_t whylen);
/* /tmp/perf-PID.map lines: "START SIZE name" (hex, optional 0x).  Addresses absolute. */
int pc_symsrc_open_perf_map(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
			    char *why, size_t whylen);
/* /proc/kallsyms format: "ADDR TYPE NAME [module]".  rel = address - _text. */
int pc_symsrc_open_kallsyms(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
			    char *why, size_t whylen);
/*
 * The host's /proc/kallsyms (or the test's stand-in), read through the
 * kallsyms cache in the ctx's "symbol-cache" directory when there is one
 * (pc_sympersist.h): the same answers as pc_symsrc_open_kallsyms().
 */
int pc_symsrc_open_host_kallsyms(struct profconv_ctx *ctx, struct pc_symsrc **out, char *why,
				 size_t whylen);

/*
 * A JIT's jit-PID.dump (perf's jitdump format): code loads with names and
 * DEBUG_INFO lines.  Addresses absolute, as for a perf map.
 */
int pc_symsrc_open_jitdump(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
			   char *why, size_t whylen);

/*
 * An ELF file's call frame information for the unwinder (pc_cfi.h):
 * .eh_frame (with .eh_frame_hdr's table) and .debug_frame, and its PT_LOAD
 * segments to turn file offsets into SVMAs.  It is a source of kind
 * "elf-cfi" so that the symbol search finds it the way it finds symbols;
 * its lookup finds no functions.  x86_64 and aarch64 ELF64 files only.
 */
int pc_symsrc_open_elf_cfi(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			   struct pc_symsrc **out, char *why, size_t whylen);
/* The tables of an "elf-cfi" source and its machine, or NULL for any other source. */
struct pc_cfi *pc_elf_cfi(struct pc_symsrc *s, enum pc_arch *arch);
/* A file offset of an "elf-cfi" source to its SVMA; 0, or -1 outside every segment. */
int pc_elf_cfi_svma(const struct pc_symsrc *s, uint64_t off, uint64_t *svma);
/*
 * For the tests: an ELF source's DWARF units read by sym_dwarf.c's own
 * readers and by libdwarf (pc_dwarf_check_own()); *lines, *walks = the
 * units our line reader and DIE walk took (0 without DWARF), returns how
 * many differ.
 */
uint32_t pc_elf_check_own(struct pc_symsrc *s, uint32_t *lines, uint32_t *walks);

/* ELF helpers shared by the finder: the GNU build id (hex) and .gnu_debuglink name. */
int pc_elf_build_id(const char *path, char *hex, size_t hexlen);
int pc_elf_debuglink(const char *path, char *name, size_t namelen);

/* Demangle C++ (Itanium) and Rust legacy names into buf; returns buf, or name unchanged. */
const char *pc_demangle(const char *name, char *buf, size_t buflen);

/*
 * An ELF file's machine code, for a disassembler: an executable or shared
 * library whose executable sections have their bytes in the file (not a
 * separate debug file).  Source kind "elf-code"; its lookup finds no
 * functions.  pc_elf_code() gives the bytes at a lib-relative address (a
 * file offset, as for symbols): up to *len bytes from the one executable
 * section holding off, its SVMA and the ELF machine (EM_*); 0, or -1 when
 * no executable section holds off.
 */
int pc_symsrc_open_elf_code(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			    struct pc_symsrc **out, char *why, size_t whylen);
int pc_elf_code(const struct pc_symsrc *s, uint64_t off, const unsigned char **bytes, uint64_t *len,
		uint64_t *svma, unsigned *machine);

#endif /* PC_SYMSRC_H */
