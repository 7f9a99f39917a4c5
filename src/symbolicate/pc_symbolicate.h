/*
 * pc_symbolicate.h - symbolicate a model in place (see symbolicate.c).
 */
#ifndef PC_SYMBOLICATE_H
#define PC_SYMBOLICATE_H

#include "model/pc_model.h"

/*
 * Find symbols for every lib that frames use, re-collapse frames into funcs,
 * expand inline frames, and keep the old-func -> new-func map in
 * m->func_map.  Libraries without symbols keep their address funcs.
 * Returns 0 or an error (ctx set); per-lib outcomes are notes (--verbose).
 */
int pc_symbolicate(struct profconv_ctx *ctx, struct pc_model *m);

#endif /* PC_SYMBOLICATE_H */
