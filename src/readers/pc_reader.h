/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_reader.h - the reader interface and registry.
 *
 * How reading works:
 *   * The pipeline opens a struct pc_input and peeks at its first bytes;
 *     nothing is consumed.
 *   * Every registered reader's bid() looks at the peeked bytes and returns
 *     how many bits of evidence it found (an 8-byte magic = 64), or 0.
 *   * The highest bid wins; ties go to the earlier table entry.  With the
 *     "from" option the bidding is skipped.
 *   * The winner's read() streams the input and fills the model; info()
 *     describes the input without building a profile.
 *
 * Readers include model/, io/, json/ and core/, never writers/ or another
 * reader.  Adding a format is one file plus one line in readers.c.
 */
#ifndef PC_READER_H
#define PC_READER_H

#include "io/pc_input.h"
#include "model/pc_model.h"

#define PC_READER_NOT_IN_AUTO (1u << 0) /* only used when named */

struct pc_reader {
	const char *name;    /* "perf", "chrome", ... */
	const char *summary; /* one line for --help */
	unsigned flags;
	/* What profconv_set_option() and the CLI accept for this format;
	 * terminated by a NULL key; NULL when there are none. */
	const struct profconv_option *options;
	/* 0..64 bits of evidence in peek[0..len).  Must not allocate. */
	int (*bid)(const unsigned char *peek, size_t len);
	/* Parse the whole input into m.  0 or a PROFCONV_ERR_* code (ctx error set). */
	int (*read)(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m);
	/* Describe the input.  May be NULL. */
	int (*info)(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out);
};

/* NULL-terminated. */
extern const struct pc_reader *const pc_readers[];
const struct pc_reader *pc_reader_find(const char *name);
/* Highest bidder for the peeked bytes, or NULL. */
const struct pc_reader *pc_reader_detect(const unsigned char *peek, size_t len);

extern const struct pc_reader pc_reader_perf;
extern const struct pc_reader pc_reader_processed;
extern const struct pc_reader pc_reader_gecko;
extern const struct pc_reader pc_reader_chrome;

/*
 * The cost of the work done for each context of a Chrome trace (FrameBlamer;
 * read_chrome.c, chrome_ctx.c), as text ([slices], [totals],
 * [merged-totals]) or JSON.  For profconv_blame_path().
 */
int pc_chrome_blame(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out,
		    int json);
extern const struct pc_reader pc_reader_gecko_buffer;

#endif /* PC_READER_H */
