/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_writer.h - the writer interface and registry.
 *
 * A writer streams a model to a profconv_write_fn through pc_jw.  Writers
 * include model/, json/ and core/, never readers/.  Adding an output format
 * is one file plus one line in the table in writers.c.
 */
#ifndef PC_WRITER_H
#define PC_WRITER_H

#include "model/pc_model.h"

struct pc_writer {
	const char *name;    /* "processed", "gecko" */
	const char *summary; /* one line for --help */
	/* Options, as in struct pc_reader; NULL when there are none. */
	const struct profconv_option *options;
	int (*write)(struct profconv_ctx *ctx, const struct pc_model *m, profconv_write_fn *fn,
		     void *user);
};

/* NULL-terminated. */
extern const struct pc_writer *const pc_writers[];
const struct pc_writer *pc_writer_find(const char *name);

extern const struct pc_writer pc_writer_processed;
extern const struct pc_writer pc_writer_gecko;

#endif /* PC_WRITER_H */
