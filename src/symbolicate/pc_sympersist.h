/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_sympersist.h - the persistent symbol cache (sym_persist.c): what an
 * ELF symbol source resolved, kept on disk per symbol file so that the next
 * conversion that needs the same file's addresses reads them back instead
 * of opening its symbol table and DWARF.  Internal to src/symbolicate/.
 *
 * One cache file per symbol file, named by the file's build id and a hash
 * of its key: profconv's own build (its build id, or the version), the
 * file's build id, size and modification time, and those of the binary its
 * PLT names come from.  A file is read whole and validated (magic, key,
 * sizes, checksum, every offset) before anything in it is used; a bad or
 * stale one is ignored and replaced.  It is written (to a temporary file,
 * then renamed) when the source closes, holding what was there plus what
 * this run resolved, only when the source gave no warning.
 */
#ifndef PC_SYMPERSIST_H
#define PC_SYMPERSIST_H

#include "symbolicate/pc_symsrc.h"

struct pc_sympersist;

/* What identifies a file for the key (stat fields and its build id). */
struct pc_sympersist_id {
	const char *build_id; /* lower-case hex, "" = none */
	uint64_t size;
	int64_t mtime_sec, mtime_nsec;
};

/*
 * The cache entry for a file in dir (created when missing): *out NULL when
 * the file has no build id or dir cannot be used.  rt: the PLT's binary, or
 * NULL.  After it, pc_sympersist_valid() says whether a cache file was read
 * (then *has_dwarf says what the source had).  0 or NOMEM.
 */
int pc_sympersist_open(struct profconv_ctx *ctx, const char *dir,
		       const struct pc_sympersist_id *file, const struct pc_sympersist_id *rt,
		       struct pc_sympersist **out);
int pc_sympersist_valid(const struct pc_sympersist *p, int *has_dwarf);

/*
 * The cached result for rel: 1 found (out filled, strings owned by p), 0
 * cached as "no symbol", -1 not cached.  Lock-free: the read part never
 * changes after open.
 */
int pc_sympersist_find(const struct pc_sympersist *p, uint64_t rel, struct pc_sym_result *out);

/*
 * Keep a result (r: 1 found, 0 none) of this run for writing; out's strings
 * must stay valid until pc_sympersist_close().  Callers serialize.  0, or
 * NOMEM (then nothing is written).
 */
int pc_sympersist_add(struct pc_sympersist *p, uint64_t rel, int r,
		      const struct pc_sym_result *out);

/* Write (when write and there is something new) and free. */
void pc_sympersist_close(struct pc_sympersist *p, int write, int has_dwarf);

/*
 * The kallsyms cache: the host's /proc/kallsyms as parsed (sym_text.c),
 * kept in the same directory (DIR/kallsyms-KEYHASH.pcsym, counted in the
 * same size bound) so that a conversion does not pay the ~40 ms the kernel
 * takes to format it.  Only the host's file is cached (a --kallsyms FILE is
 * read as it is).  The key is what a reader can check cheaply: profconv's
 * own build, the boot id, the kernel release, /proc/modules (names, sizes,
 * states, addresses) and the first page of /proc/kallsyms (the kernel base
 * under KASLR, and whether this reader sees addresses or, kptr_restrict,
 * zeros).  What it cannot check, the entries that come and go within a
 * boot (BPF programs, ftrace and kprobe trampolines: the kernel lists them
 * as pseudo-modules after the modules' symbols), is left to the source: an
 * entry is "sure" when it is a core kernel symbol with a known end (core
 * text never moves and nothing is mapped inside it), and a lookup that does
 * not land in a sure entry reads the real file once and answers from it.
 */
enum pc_host_kernel {
	PC_HK_KALLSYMS, /* /proc/kallsyms */
	PC_HK_NOTES,	/* /sys/kernel/notes (the running kernel's build id) */
	PC_HK_BOOT_ID,	/* /proc/sys/kernel/random/boot_id */
	PC_HK_MODULES,	/* /proc/modules */
	PC_HK_RELEASE,	/* /proc/sys/kernel/osrelease (uname -r) */
};

/*
 * The path of one of the host kernel's files; tests set
 * PROFCONV_TEST_HOST_KERNEL=DIR to put DIR/kallsyms, DIR/notes,
 * DIR/boot_id, DIR/modules and DIR/osrelease in their place (then
 * pc_host_kernel_faked() is 1 and "host-symbols" "no" does not hide them).
 */
const char *pc_host_kernel_file(enum pc_host_kernel what, char *buf, size_t n);
int pc_host_kernel_faked(void);

/* The key text for now (into key, n bytes), its length; 0: do not cache. */
size_t pc_kpersist_key(char *key, size_t n);

/* A cache file's content: entries are struct tx_ent's layout (24 bytes). */
struct pc_kpersist {
	unsigned char *buf; /* read: what to free (pc_free) */
	uint64_t n;	    /* entries */
	const void *ents;   /* { u64 start, u64 end, u32 name, u32 size } */
	const uint8_t *sure; /* n bytes, 1 = answer from the cache */
	const char *str;
	uint64_t nstr;
	uint64_t bias; /* _text */
};

/* Read and validate the file for key in dir: 0 (out set) or -1. */
int pc_kpersist_read(struct profconv_ctx *ctx, const char *dir, const char *key, size_t keylen,
		     struct pc_kpersist *out);
/* Write d as the file for key in dir (atomically), removing other keys' files. */
void pc_kpersist_write(struct profconv_ctx *ctx, const char *dir, const char *key, size_t keylen,
		       const struct pc_kpersist *d);

#endif /* PC_SYMPERSIST_H */
