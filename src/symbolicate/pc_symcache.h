/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_symcache.h - symbol sources shared by the conversions of a batch
 * (symcache.c; the public face is profconv_symcache_new() and
 * profconv_ctx_share_symbols()).
 *
 * A context that shares a cache opens the ELF symbol files its search
 * chooses through it: a file already opened by another conversion (the
 * same path, device, inode, size and modification time, checked against
 * the same build id, with the same binary for its PLT) is used as it is,
 * with the notes and warnings its opening gave replayed on the asking
 * context, so that output and diagnostics are those of an own open.  The
 * search itself (which file) still runs per conversion, as it depends on
 * each context's options.
 */
#ifndef PC_SYMCACHE_H
#define PC_SYMCACHE_H

#include "symbolicate/pc_symsrc.h"

struct profconv_symcache;

/* ctx shares c (a reference is taken; NULL: none).  0 or NOMEM. */
int pc_symcache_attach(struct profconv_ctx *ctx, struct profconv_symcache *c);

/*
 * pc_symsrc_open_elf_rt() through ctx's cache (ctx->symcache set): the same
 * contract; a source it gives is marked shared (pc_symsrc_close() leaves it
 * to the cache) and answers lookups from any thread.
 */
int pc_symcache_open_elf(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			 const char *runtime_path, struct pc_symsrc **out, char *why,
			 size_t whylen);

/*
 * The host's kallsyms (pc_symsrc_open_host_kallsyms()), opened once for all
 * the conversions sharing the cache while its kallsyms cache key stays the
 * same (pc_kpersist_key()).  0 or an error, as that function.
 */
int pc_symcache_open_host_kallsyms(struct profconv_ctx *ctx, struct pc_symsrc **out, char *why,
				   size_t whylen);

#endif /* PC_SYMCACHE_H */
