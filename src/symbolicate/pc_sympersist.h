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

#endif /* PC_SYMPERSIST_H */
