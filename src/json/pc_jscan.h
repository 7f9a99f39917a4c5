/*
 * pc_jscan.h - a checking scanner over one small JSON text held in memory
 * (an event of a Chrome trace, which pc_jpull_raw_rest() hands over).
 *
 * It accepts exactly what the pull tokenizer (pc_jpull.h) accepts: RFC 8259
 * syntax, no raw control characters in strings, no leading zeros, nesting
 * up to a given depth.  It does not say why a text is invalid: a caller
 * that gets PC_JSCAN_BAD asks pc_jpull_recheck() for the FILE:LINE:COL
 * message the tokenizer would give.
 *
 * What it produces goes into one scratch buffer (out), reset per text, so
 * results are offsets into it, valid until the next pc_jscan_start():
 *
 *   strings  decoded: escapes and surrogate pairs; a lone surrogate becomes
 *            U+FFFD (as the tokenizer decodes it); other bytes, invalid
 *            UTF-8 included, are kept as they are (as cJSON keeps them);
 *            NUL-terminated; a "\u0000" escape makes an embedded NUL
 *   numbers  the double strtod() gives for the text, under the "C" locale
 *            (the tokenizer's and cJSON's value)
 *   values   printed as cJSON_PrintUnformatted() prints the value cJSON
 *            parses from them (pc_jscan_print()), so a reader that used to
 *            keep nested values as cJSON's text keeps the same bytes
 *            without building a cJSON tree
 */
#ifndef PC_JSCAN_H
#define PC_JSCAN_H

#include "core/pc_core.h"

#include <locale.h>

#define PC_JSCAN_BAD (-1) /* the text is not valid JSON (ask pc_jpull_recheck()) */

struct pc_jscan {
	struct profconv_ctx *ctx;
	const char *p, *end; /* cursor and end of the text */
	unsigned depth, max_depth;
	int nul;   /* the last string pc_jscan_string() decoded holds a NUL */
	char *out; /* scratch: decoded strings, printed values */
	size_t olen, ocap;
	locale_t cloc; /* "C" numeric locale, or (locale_t)0 */
};

void pc_jscan_init(struct pc_jscan *s, struct profconv_ctx *ctx);
void pc_jscan_free(struct pc_jscan *s);
/*
 * Scan text[0..len) from its start; max_depth is how many containers may
 * be open at once (counting from the text's own); out is emptied.
 */
void pc_jscan_start(struct pc_jscan *s, const char *text, size_t len, unsigned max_depth);

/* Skip whitespace; the next byte (not consumed), or -1 at the end. */
static inline int pc_jscan_ws(struct pc_jscan *s)
{
	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p;

		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return c;
		s->p++;
	}
	return -1;
}

/*
 * At a '"': the string, decoded into out at *off and NUL-terminated (the
 * NUL is kept in out), its decoded length in *len.  0, PC_JSCAN_BAD or
 * PROFCONV_ERR_NOMEM.
 */
int pc_jscan_string(struct pc_jscan *s, size_t *off, size_t *len);
/*
 * At a '"': a key to compare, not to keep: *k points into the text when it
 * has no escape, else into out (decoded, *len up to a decoded NUL; the
 * caller may take olen back to where it was).  0, PC_JSCAN_BAD or
 * PROFCONV_ERR_NOMEM.
 */
int pc_jscan_key(struct pc_jscan *s, const char **k, size_t *len);
/* At a number's first byte: its value.  0, PC_JSCAN_BAD or PROFCONV_ERR_NOMEM. */
int pc_jscan_number(struct pc_jscan *s, double *d);
/* At a value's first byte: check it and skip it.  0, PC_JSCAN_BAD or an error. */
int pc_jscan_skip(struct pc_jscan *s);
/*
 * At a value's first byte: check it and append to out what
 * cJSON_PrintUnformatted() prints for it (not NUL-terminated; the caller
 * reads out[from..olen)).  0, PC_JSCAN_BAD or an error.
 */
int pc_jscan_print(struct pc_jscan *s);
/* Append bytes to out.  0 or PROFCONV_ERR_NOMEM. */
int pc_jscan_put(struct pc_jscan *s, const void *b, size_t n);

/* A pointer into out (valid until out grows). */
static inline const char *pc_jscan_at(const struct pc_jscan *s, size_t off)
{
	return s->out + off;
}

#endif /* PC_JSCAN_H */
