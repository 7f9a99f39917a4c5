/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_lines.c - the bounded line reader and the token helpers of the
 * line-oriented symbol files (sym_breakpad.c, sym_text.c); see pc_symlines.h.
 */
#include "symbolicate/pc_symlines.h"

#include <errno.h>

/* --- bounded line reader --- */

/* Open path; 0 with r->fp NULL and why[] set when it does not exist (see the header). */
int pc_line_reader_open(struct profconv_ctx *ctx, struct pc_line_reader *r, const char *path,
			size_t max_line, char *why, size_t whylen)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->path = path;
	r->max_line = max_line;
	r->fp = fopen(path, "rbe");
	if (!r->fp) {
		if (errno == ENOENT || errno == ENOTDIR) {
			pc_snprintf(why, whylen, "%s: no such file", path);
			return 0;
		}
		return pc_fail(ctx, PROFCONV_ERR_IO, NULL, "%s: cannot open: %s", path,
			       strerror(errno));
	}
	return 0;
}

/* Next line, end of input or a skipped over-long line; 0 or an error code (see the header). */
int pc_line_reader_next(struct pc_line_reader *r, char **line, enum pc_line_what *what)
{
	if (!r->buf) {
		r->buf = pc_alloc(r->ctx, r->max_line + 1);
		if (!r->buf)
			return PROFCONV_ERR_NOMEM;
	}
	for (;;) {
		size_t avail = r->end - r->start;
		char *p = r->buf + r->start;
		char *nl = avail ? memchr(p, '\n', avail) : NULL;
		size_t llen, n;

		if (nl || (r->eof && avail)) {
			llen = nl ? (size_t)(nl - p) : avail;
			r->start += nl ? llen + 1 : llen;
			r->line_off = r->off;
			r->off += nl ? llen + 1 : llen;
			if (r->skipping) {
				r->skipping = 0;
				continue;
			}
			r->lineno++;
			while (llen && p[llen - 1] == '\r')
				llen--;
			p[llen] = 0;
			*line = p;
			*what = PC_LINE_OK;
			return 0;
		}
		if (r->eof) {
			*what = PC_LINE_END;
			return 0;
		}
		if (r->start) {
			memmove(r->buf, p, avail);
			r->start = 0;
			r->end = avail;
		}
		if (r->end == r->max_line) {
			r->line_off = r->off;
			r->off += r->end;
			r->start = r->end = 0;
			if (r->skipping)
				continue;
			r->skipping = 1;
			r->lineno++;
			*what = PC_LINE_LONG;
			return 0;
		}
		n = fread(r->buf + r->end, 1, r->max_line - r->end, r->fp);
		r->end += n;
		if (n == 0) {
			if (ferror(r->fp))
				return pc_fail_at(r->ctx, PROFCONV_ERR_IO, r->path, r->off + r->end,
						  "read error: %s", strerror(errno));
			r->eof = 1;
		}
	}
}

/* Free the buffer and close the file (if one was opened). */
void pc_line_reader_close(struct pc_line_reader *r)
{
	pc_free(r->ctx, r->buf);
	r->buf = NULL;
	if (r->fp)
		fclose(r->fp);
	r->fp = NULL;
}

/* --- tokens --- */

/* The value of hex digit c, or -1. */
int pc_sym_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Space or tab. */
int pc_sym_is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* One or more spaces; -1 if there is none. */
int pc_sym_skip_spaces(const char **pp)
{
	const char *p = *pp;

	if (*p != ' ')
		return -1;
	while (*p == ' ')
		p++;
	*pp = p;
	return 0;
}

/* One or more blanks; -1 if there is none. */
int pc_sym_skip_blanks(const char **pp)
{
	const char *p = *pp;

	if (!pc_sym_is_blank((unsigned char)*p))
		return -1;
	while (pc_sym_is_blank((unsigned char)*p))
		p++;
	*pp = p;
	return 0;
}

/* pc_sym_hexval() as a table: a kallsyms file has 120,000 addresses and more */
static const signed char hex_digit[256] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1, -1, -1, -1, -1,
	-1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

/* Hex digits (optional 0x by flags) ending at a space or blank (by flags) or the end. */
int pc_sym_parse_hex(const char **pp, unsigned int flags, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d;

	if ((flags & PC_SYM_HEX_0X) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (hex_digit[(unsigned char)*p] < 0)
		return -1;
	while ((d = hex_digit[(unsigned char)*p]) >= 0) {
		if (v >> 60)
			return -1;
		v = v << 4 | (uint64_t)d;
		p++;
	}
	if (*p && *p != ' ' && !((flags & PC_SYM_HEX_BLANK) && pc_sym_is_blank((unsigned char)*p)))
		return -1;
	*pp = p;
	*out = v;
	return 0;
}
