/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_symlines.h - what the line-oriented symbol files (breakpad .sym, perf
 * map, kallsyms) share: a bounded line reader and the token helpers.
 * Internal to src/symbolicate/ (sym_lines.c).
 *
 * The reader goes through one buffer of max_line + 1 bytes, allocated on
 * the first pc_line_reader_next(), so a file of any size is read without
 * allocating per line.  A line longer than max_line is not returned but
 * reported once as PC_LINE_LONG and skipped; the caller decides what to
 * say about it.
 *
 * Tokens: fields are separated by spaces only in breakpad, by blanks
 * (space or tab) in the text formats, hence the two skip functions and the
 * PC_SYM_HEX_* flags.
 */
#ifndef PC_SYMLINES_H
#define PC_SYMLINES_H

#include "core/pc_core.h"

#include <stdio.h>

struct pc_line_reader {
	/* read by the caller */
	const char *path;  /* as given to pc_line_reader_open() */
	uint64_t line_off; /* file offset of the line last returned (or skipped) */
	uint32_t lineno;   /* its 1-based line number */
	/* private */
	struct profconv_ctx *ctx;
	FILE *fp;
	char *buf; /* max_line + 1 bytes, NULL until the first line is read */
	size_t max_line;
	size_t start, end;
	uint64_t off; /* file offset of buf[start] */
	int eof, skipping;
};

enum pc_line_what {
	PC_LINE_END,  /* the input ended */
	PC_LINE_OK,   /* a line came */
	PC_LINE_LONG, /* a line longer than max_line was skipped */
};

/*
 * Open path for reading lines of at most max_line bytes: 0 with r->fp set,
 * 0 with r->fp NULL and why[] saying so when the file does not exist, or an
 * I/O error code (ctx error set).  Nothing is allocated.
 */
int pc_line_reader_open(struct profconv_ctx *ctx, struct pc_line_reader *r, const char *path,
			size_t max_line, char *why, size_t whylen);
/*
 * Next line into *line (NUL-terminated, without "\n" and trailing "\r",
 * valid until the next call); *what says whether a line came, the input
 * ended or an over-long line was skipped.  Returns 0, PROFCONV_ERR_NOMEM or
 * PROFCONV_ERR_IO (ctx error set).
 */
int pc_line_reader_next(struct pc_line_reader *r, char **line, enum pc_line_what *what);
/* Free the buffer and close the file of an opened reader (r->fp may be NULL). */
void pc_line_reader_close(struct pc_line_reader *r);

/* The value of hex digit c, or -1. */
int pc_sym_hexval(int c);
/* Non-zero for a blank: space or tab. */
int pc_sym_is_blank(int c);
/* Skip one or more spaces (tabs are not spaces); -1 if there is none. */
int pc_sym_skip_spaces(const char **pp);
/* Skip one or more blanks; -1 if there is none. */
int pc_sym_skip_blanks(const char **pp);

#define PC_SYM_HEX_0X	 0x1u /* an optional 0x or 0X prefix */
#define PC_SYM_HEX_BLANK 0x2u /* the number may end at a tab too, not only at a space */

/*
 * Hex digits (one or more, after a 0x with PC_SYM_HEX_0X; the value fits in
 * 64 bits) ending at a space (a blank with PC_SYM_HEX_BLANK) or the end of
 * the string: 0 with *out set and *pp past the digits, or -1 with both
 * untouched.
 */
int pc_sym_parse_hex(const char **pp, unsigned int flags, uint64_t *out);

#endif /* PC_SYMLINES_H */
