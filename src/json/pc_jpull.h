/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_jpull.h - a streaming JSON pull tokenizer over a struct pc_input.
 *
 * The input is read in chunks (256 KiB by default) and never held whole; a
 * plain file's chunks are lent from a mapping of it (pc_input_borrow()).
 * Each pc_jpull_next() yields one token: object/array begin and end, a key,
 * a string, a number, true, false or null, with the byte offset and the
 * 1-based line and byte column of its first byte.  Syntax is checked
 * strictly (RFC 8259): no trailing commas, no comments, no leading zeros,
 * no raw control characters in strings, one top-level value followed only by
 * whitespace; a UTF-8 byte order mark at the start is skipped.
 *
 * Strings are decoded (escapes, surrogate pairs) into a reusable buffer with
 * a size cap; invalid UTF-8 and lone surrogates become U+FFFD and are
 * counted (pc_jpull_bad_utf8()), not rejected, because browsers decode such
 * files the same way.  Numbers come both as raw text and parsed: an int64
 * when the text is an integer in range, and always as a double (parsed
 * independently of the locale).
 *
 * Errors go through pc_fail() with "FILE:LINE:COL: what" and return
 * PROFCONV_ERR_CORRUPT (syntax), PROFCONV_ERR_LIMIT (string, value or depth
 * caps) or the input's error.  After an error the parser must not be used
 * again, except for pc_jpull_free().
 *
 * Typical use:
 *
 *	const struct pc_jtok *t;
 *	while (!(err = pc_jpull_next(p, &t)) && t->type != PC_JT_EOF)
 *		...;
 */
#ifndef PC_JPULL_H
#define PC_JPULL_H

#include "core/pc_core.h"
#include "io/pc_input.h"

enum pc_jtype {
	PC_JT_EOF = 0, /* after the top-level value; returned again on later calls */
	PC_JT_OBJ_BEGIN,
	PC_JT_OBJ_END,
	PC_JT_ARR_BEGIN,
	PC_JT_ARR_END,
	PC_JT_KEY, /* an object member's name; its ':' has been consumed */
	PC_JT_STRING,
	PC_JT_NUMBER,
	PC_JT_TRUE,
	PC_JT_FALSE,
	PC_JT_NULL,
};

struct pc_jtok {
	enum pc_jtype type;
	uint32_t line;	 /* 1-based line of the first byte */
	uint32_t col;	 /* 1-based byte column of the first byte */
	uint64_t offset; /* of the first byte in the (decompressed) input */
	/*
	 * KEY, STRING: the decoded bytes, NUL-terminated (a "\u0000" escape
	 * makes an embedded NUL, so len is authoritative).  NUMBER: the raw
	 * text.  Owned by the parser; valid until the next call on it.
	 */
	const char *str;
	size_t len;
	int is_int; /* NUMBER: integer syntax (no '.', no exponent) and fits int64 */
	int64_t i;  /* NUMBER: the value when is_int */
	double d;   /* NUMBER: the value (also set for integers); +-inf on overflow */
	unsigned depth; /* open containers after this token */
};

/*
 * The one rule for JSON numbers, shared by the readers and `validate`:
 * a row index, count, id or enum value is written as an integer (digits,
 * no fraction, no exponent: 5.0 is not one) that fits int64; any other
 * number (a time, an interval, a weight) must be finite once read: 1e400
 * overflows to infinity and is refused.
 */
static inline int pc_jnum_is_index(const struct pc_jtok *t)
{
	return t->type == PC_JT_NUMBER && t->is_int;
}

static inline int pc_jnum_is_finite(const struct pc_jtok *t)
{
	return t->type == PC_JT_NUMBER && t->d - t->d == 0; /* not inf, not nan */
}

/*
 * The JSON number grammar, for the tokenizer and the Chrome event scanner
 * alike: the parts of the number at [s, e), as many bytes as make one
 * (what follows is the caller's to check), 0 when the grammar fails.  Up to
 * 19 significant digits are kept in m, e10 is the power of ten that goes
 * with them, exact says none were lost.
 */
struct pc_jnum {
	uint64_t m;
	long e10;
	int neg, exact, nd, has_frac, has_exp;
};
size_t pc_jnum_scan(const char *s, const char *e, struct pc_jnum *n);
/* Its value where that needs no strtod(): 1 with *d set exactly, else 0. */
int pc_jnum_value(const struct pc_jnum *n, double *d);
/*
 * A number literal's text s[0..len), which a NUL (or anything else that
 * cannot continue a number) follows, as the double the tokenizer gives for
 * it, whatever the host's locale: 1 with *d set; 0 when the text is not one
 * JSON number or its value is not finite (1e400).  For the numbers a
 * payload keeps as their text (PC_VAL_NUM), in readers and writers alike.
 */
int pc_jnum_text(const char *s, size_t len, double *d);

/* The same rule for a number cJSON read from a small subtree. */
static inline int pc_jnum_finite(double d)
{
	return d - d == 0;
}

struct pc_jpull_opts {
	size_t chunk;	    /* bytes read at a time; 0 = 256 KiB (tests use tiny ones) */
	size_t max_string;  /* longest decoded string or number text; 0 = 64 MiB */
	unsigned max_depth; /* deepest nesting; 0 = 512 */
};

struct pc_jpull;

/*
 * New parser over in (borrowed; must outlive the parser).  opts may be
 * NULL.  On success *out is set; free with pc_jpull_free().
 */
int pc_jpull_new(struct profconv_ctx *ctx, struct pc_input *in, const struct pc_jpull_opts *opts,
		 struct pc_jpull **out);
/* Accepts NULL. */
void pc_jpull_free(struct pc_jpull *p);

/* The next token in *tok (owned by the parser, valid until the next call).  0 or error. */
int pc_jpull_next(struct pc_jpull *p, const struct pc_jtok **tok);
/*
 * The type of the next token without consuming it (a ',' before it is
 * consumed).  A syntax error that next() would report is reported here.
 */
int pc_jpull_peek(struct pc_jpull *p, enum pc_jtype *type);
/* Consume the next value (a scalar or a whole container), checking its syntax. */
int pc_jpull_skip_value(struct pc_jpull *p);
/* After an OBJ_BEGIN or ARR_BEGIN token: consume through the matching end. */
int pc_jpull_skip_rest(struct pc_jpull *p);
/*
 * Consume the next value and return its raw bytes (syntax checked),
 * NUL-terminated, in a buffer owned by the parser and valid until the next
 * capture.  A value longer than max bytes fails with PROFCONV_ERR_LIMIT.
 * Meant for small members (meta, a marker payload) that are then handed to
 * cJSON.
 */
int pc_jpull_capture_value(struct pc_jpull *p, const char **buf, size_t *len, size_t max);

/*
 * After an OBJ_BEGIN or ARR_BEGIN token: consume through the matching end
 * and return the raw bytes from after the opening bracket through the
 * closing one (the caller prepends '{' or '[' to get the whole value).
 * Same buffer and limits as pc_jpull_capture_value().
 */
int pc_jpull_capture_rest(struct pc_jpull *p, const char **buf, size_t *len, size_t max);

/*
 * The fast way through an event-sized object, for readers that check and
 * decode its bytes themselves (src/json/jscan.c).  After an OBJ_BEGIN token
 * (at offset off, line, col): consume through the matching '}' by bracket
 * counting alone (strings and their escapes are skipped; nothing else is
 * checked) and return the bytes after the '{' through the '}' in
 * *buf and *len: a pointer into the input chunk when the object lies inside it
 * (valid until the next call on the parser), else into the capture buffer.
 * The parser then stands after the object, as after its OBJ_END token.
 * An object longer than max bytes fails with PROFCONV_ERR_LIMIT; one that
 * the input ends inside fails with the error the strict tokenizer gives
 * there (FILE:LINE:COL; pc_jpull_at_eof() is then true).
 *
 * The caller must check the bytes (syntax as strict as pc_jpull_next()'s);
 * when they are not valid JSON, pc_jpull_recheck() reports the exact error.
 */
int pc_jpull_raw_rest(struct pc_jpull *p, const char **buf, size_t *len, size_t max);

/*
 * The bytes of the current input chunk not yet consumed, for a reader that
 * scans an event in place after its OBJ_BEGIN token (no copy, no read);
 * *len may be 0.  When what the reader scanned there is the rest of the
 * object through its '}' (checked by the reader), pc_jpull_consume_object()
 * moves past it; otherwise the reader takes pc_jpull_raw_rest().
 */
void pc_jpull_window(const struct pc_jpull *p, const char **buf, size_t *len);
/*
 * pc_jpull_next() when the next token is an object that follows an array
 * element as Chrome writes it (",{" or ",\n{" in the current chunk): that
 * OBJ_BEGIN token, the parser moved past it as pc_jpull_next() moves it;
 * else NULL, and the parser has not moved (the caller asks
 * pc_jpull_next()).
 */
const struct pc_jtok *pc_jpull_next_object(struct pc_jpull *p);
/* Consume the first n bytes of the window, the rest of the object just opened
 * (lines are counted, unless newlines is 0: the caller saw none); the
 * parser then stands as after its OBJ_END token. */
void pc_jpull_consume_object(struct pc_jpull *p, size_t n, int newlines);

/*
 * Run the strict tokenizer over the object obj[0..len) (its '{' included)
 * that began at offset off, line, col in this parser's input, at the depth
 * it had there (pc_jpull_depth() just after its OBJ_BEGIN token).  Returns
 * the error the strict tokenizer finds there, with its FILE:LINE:COL, as if
 * it had read the input itself, or 0 when the object is valid.  The parser
 * itself does not move.
 */
int pc_jpull_recheck(struct pc_jpull *p, const char *obj, size_t len, uint64_t off, uint32_t line,
		     uint32_t col, unsigned depth);

/* The ctx the parser and its input report to from now on (a reader that
 * reads on a thread of its own gives it that thread's). */
void pc_jpull_set_ctx(struct pc_jpull *p, struct profconv_ctx *ctx);
/* The input the parser reads. */
struct pc_input *pc_jpull_input(const struct pc_jpull *p);

/* Open containers right now. */
unsigned pc_jpull_depth(const struct pc_jpull *p);
/* How many may be open at once (pc_jpull_opts.max_depth). */
unsigned pc_jpull_max_depth(const struct pc_jpull *p);
/* Strings seen so far holding invalid UTF-8 or lone surrogates (decoded as U+FFFD). */
uint64_t pc_jpull_bad_utf8(const struct pc_jpull *p);
/* Bytes consumed so far. */
uint64_t pc_jpull_offset(const struct pc_jpull *p);
/* Non-zero once every input byte has been read (after an error: the error
 * was the input ending early, e.g. a trace cut off mid-array). */
int pc_jpull_at_eof(const struct pc_jpull *p);
/* The location of tok, for pc_fail()/pc_warn(). */
void pc_jpull_loc(const struct pc_jpull *p, const struct pc_jtok *tok, struct pc_loc *loc);

/*
 * Replace each lone UTF-16 surrogate escape (\ud800 alone, ...) in the
 * syntax-checked JSON text s[0..len) by \ufffd, in place (same length), for
 * parsers that refuse them (cJSON).  Returns how many; the JSON path of the
 * first (base followed by the members and indexes inside s) goes to first.
 */
size_t pc_json_fix_surrogates(char *s, size_t len, const char *base, char *first, size_t cap);

#endif /* PC_JPULL_H */
