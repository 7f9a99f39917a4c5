/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_symbolicate.h - symbolicate a model in place (see symbolicate.c).
 */
#ifndef PC_SYMBOLICATE_H
#define PC_SYMBOLICATE_H

#include "model/pc_model.h"
#include "symbolicate/pc_symsrc.h"

/*
 * Find symbols for every lib that frames use, re-collapse frames into funcs,
 * expand inline frames, and keep the old-func -> new-func map in
 * m->func_map.  Libraries without symbols keep their address funcs.
 * Returns 0 or an error (ctx set); per-lib outcomes are notes (--verbose).
 */
int pc_symbolicate(struct profconv_ctx *ctx, struct pc_model *m);

/*
 * Symbol prefetch while a reader fills m (symbolicate.c): start before
 * reading (it sets m->frame_hook; *out stays NULL when no thread could be
 * made, which only loses the head start), stop after reading (finish: 1
 * to find the sources of every lib queued, with the calling thread's help,
 * when pc_symbolicate_prepared() follows; 0 to drop what is not started),
 * then pc_symbolicate_prepared() uses the sources found, and free.  prep
 * may be NULL everywhere.  start fails only for lack of memory.
 */
struct pc_symprep;
int pc_symprep_start(struct profconv_ctx *ctx, struct pc_model *m, struct pc_symprep **out);
void pc_symprep_stop(struct pc_symprep *prep, int finish);
void pc_symprep_free(struct pc_symprep *prep);
int pc_symbolicate_prepared(struct profconv_ctx *ctx, struct pc_model *m,
			    struct pc_symprep *prep);

/*
 * The steps of pc_symbolicate(), for callers (and tests) that bring their
 * own sources: begin, apply a source to each lib, finish.  finish and free
 * release the work; after an error from apply, call free.
 */
struct pc_symwork;
struct pc_symsrc;
int pc_symwork_begin(struct profconv_ctx *ctx, struct pc_model *m, struct pc_symwork **out);
int pc_symwork_apply(struct pc_symwork *w, uint32_t lib, struct pc_symsrc *src);
int pc_symwork_finish(struct pc_symwork *w);
void pc_symwork_free(struct pc_symwork *w);

/*
 * Find and open the unwind tables (an "elf-cfi" source, pc_symsrc.h) of a
 * lib by the same search as its symbols: --symbol-dir (perf build-id cache
 * layouts, plain folders, perf archives), then, unless host symbols are off,
 * the build-id debug dirs and ~/.debug, and the binary at its recorded path
 * when its build id matches.  Files without .eh_frame or .debug_frame are
 * passed over.  0 with *out set or NULL (why says what was tried), or an
 * error (ctx set).  Safe to call from the reader, on the reading thread.
 */
int pc_find_cfi(struct profconv_ctx *ctx, const struct pc_model *m, uint32_t lib,
		struct pc_symsrc **out, char *why, size_t whylen);

/* A lib by its parts (strings borrowed; NULL or "" for none). */
struct pc_libid {
	const char *name, *path, *build_id, *debug_id, *oscpu;
	int is_kernel;
};
/*
 * Find and open a lib's symbols (what 0) or the file holding its code (what
 * 1, an "elf-code" source, pc_symsrc.h) by the search conversion uses.  0
 * with *out set or NULL (why says what was tried), or an error (ctx set).
 */
int pc_find_lib_source(struct profconv_ctx *ctx, const struct pc_libid *id, int what,
		       struct pc_symsrc **out, char *why, size_t whylen);

#endif /* PC_SYMBOLICATE_H */
