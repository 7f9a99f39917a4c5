/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_jread.h - helpers shared by the readers of JSON profile formats
 * (read_processed.c, read_gecko.c): token expectations with file:line:col
 * errors, exact millisecond-to-nanosecond conversion of number texts, a
 * string pool and a string map.
 *
 * Not a reader itself; it depends on json/, model/ (for pc_itab) and core/.
 */
#ifndef PC_JREAD_H
#define PC_JREAD_H

#include "json/pc_jpull.h"
#include "model/pc_model.h"

/* "an object", "a string", ... for messages. */
const char *pc_jr_type_name(enum pc_jtype type);

/* pc_fail() at tok's line:col. */
int pc_jr_fail(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *tok,
	       int code, const char *fmt, ...) PC_PRINTF(5, 6);
/* pc_warn() at tok's line:col. */
int pc_jr_warn(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *tok,
	       const char *kind, const char *fmt, ...) PC_PRINTF(5, 6);

/* PROFCONV_ERR_CORRUPT at tok's line:col (the message cut at 639 bytes). */
int pc_jr_corrupt(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *tok,
		  const char *fmt, ...) PC_PRINTF(4, 5);
/* PROFCONV_ERR_CORRUPT at loc (none when loc or its path is NULL), the message cut likewise. */
int pc_jr_corrupt_at(struct profconv_ctx *ctx, const struct pc_loc *loc, const char *fmt, ...)
	PC_PRINTF(3, 4);

/*
 * The next token, which must be of type want (what names the value for the
 * message: "expected an array for shared.stackTable.frame, got a string").
 */
int pc_jr_expect(struct profconv_ctx *ctx, struct pc_jpull *p, enum pc_jtype want,
		 const char *what, const struct pc_jtok **tok);

/*
 * Milliseconds as a JSON number text -> integer nanoseconds, exact for up to
 * six decimals, rounded half away from zero beyond.  -1 when the value does
 * not fit in int64 nanoseconds (about +-292 years) or is not a number.
 */
int pc_jr_ms_to_ns(const char *text, size_t len, int64_t *ns);
/* The same for a NUMBER token. */
int pc_jr_tok_ns(const struct pc_jtok *t, int64_t *ns);
/* The next value: a time in ms as *ns, or null (PC_NO_TIME); what names it for messages. */
int pc_jr_ms_value(struct profconv_ctx *ctx, struct pc_jpull *p, const char *what, int64_t *ns);
/*
 * The next value as a pid or tid: an integer, or a string of decimal
 * digits (some producers write them as strings).  Any other string or
 * number is 0 with a PC_JR_WARN_PID warning; another type is corrupt.
 */
#define PC_JR_WARN_PID "non-numeric pids or tids replaced by 0"
int pc_jr_id_value(struct profconv_ctx *ctx, struct pc_jpull *p, const char *what, int64_t *v);

/* The text of string member key of payload object obj, or NULL. */
const char *pc_jr_pv_str(const struct pc_model *m, uint32_t obj, const char *key);
/*
 * The next value as meta.sampleUnits ({time, eventDelay, threadCPUDelta},
 * the same in both JSON formats): its string members kept in m's meta;
 * any other value is passed over.
 */
int pc_jr_sample_units(struct profconv_ctx *ctx, struct pc_jpull *p, struct pc_model *m);

/*
 * Bidding helpers (no allocation): where peek[0..len)'s top-level value
 * starts (after a UTF-8 BOM and whitespace; len if nowhere), whether it
 * starts with '{', whether that object's first member
 * is named key (a quoted name, e.g. "\"traceEvents\""), and whether
 * peek contains needle.
 */
size_t pc_jr_peek_start(const unsigned char *peek, size_t len);
int pc_jr_peek_is_object(const unsigned char *peek, size_t len);
int pc_jr_peek_first_key(const unsigned char *peek, size_t len, const char *key);
int pc_jr_peek_has(const unsigned char *peek, size_t len, const char *needle);

/*
 * meta.categories (processed and Gecko share the shape) from the captured
 * JSON array json[0..len) (at: where it is, for messages) into m, replacing
 * m's list.  Names are kept with pc_model_keep().
 */
int pc_jr_categories(struct profconv_ctx *ctx, const struct pc_jpull *p, const struct pc_jtok *at,
		     struct pc_model *m, const char *json, size_t len);
/* The front-end's getDefaultCategories(), for a profile without meta.categories. */
void pc_jr_default_categories(struct pc_model *m);

/*
 * A marker schema given as JSON text (the Gecko reader converts each with
 * cJSON) into the model's schema table: invalid UTF-8 in its strings is
 * repaired first (each invalid byte becomes U+FFFD, as jpull does for the
 * strings it decodes; *repaired counts it).  An entry without a string
 * name is left out.  0 or an error.
 */
int pc_jr_add_schema(struct pc_model *m, const char *s, size_t len, uint64_t *repaired);

/* A pool of byte strings (each NUL-terminated), addressed by index. */
struct pc_spool {
	struct profconv_ctx *ctx;
	char *buf;
	size_t len, cap;
	uint64_t *off;
	uint32_t *slen;
	uint32_t n, ncap;
};

void pc_spool_init(struct pc_spool *sp, struct profconv_ctx *ctx);
/* Append s[0..len); *idx gets its index.  0 or error. */
int pc_spool_add(struct pc_spool *sp, const char *s, size_t len, uint32_t *idx);
void pc_spool_clear(struct pc_spool *sp);
void pc_spool_free(struct pc_spool *sp);

static inline const char *pc_spool_str(const struct pc_spool *sp, uint32_t i)
{
	return sp->buf + sp->off[i];
}

static inline uint32_t pc_spool_len(const struct pc_spool *sp, uint32_t i)
{
	return sp->slen[i];
}

/* A map from byte strings to uint32 values. */
struct pc_smap {
	struct pc_spool keys;
	uint32_t *val;
	uint32_t vcap;
	struct pc_itab index;
};

void pc_smap_init(struct pc_smap *m, struct profconv_ctx *ctx);
/* The value for s[0..len), or PC_NONE. */
uint32_t pc_smap_get(const struct pc_smap *m, const char *s, size_t len);
/* Set (or replace) the value for s[0..len).  0 or error. */
int pc_smap_put(struct pc_smap *m, const char *s, size_t len, uint32_t val);
void pc_smap_free(struct pc_smap *m);

/*
 * Payload trees from the pull tokenizer: the next value becomes a payload
 * (struct pc_val nodes, see model/pc_model.h) built in one pass.  With
 * literal set, numbers keep their JSON text (PC_VAL_NUM: a round trip gives
 * the same bytes); otherwise they become PC_VAL_INT / PC_VAL_DBL.  Depth is
 * capped at PC_PV_MAX_DEPTH (an error naming the location).  *root is the
 * value's node (for null too: a PC_VAL_NULL node).
 */
int pc_jr_pv_read(struct profconv_ctx *ctx, struct pc_jpull *p, struct pc_model *m, int literal,
		  uint32_t *root);
/* The same, when the value's first token was already taken (t). */
int pc_jr_pv_read_from(struct profconv_ctx *ctx, struct pc_jpull *p, struct pc_model *m,
		       int literal, const struct pc_jtok *t, uint32_t *root);
/*
 * A payload number node as a double: a literal (PC_VAL_NUM) gives the
 * nearest double to its text, as the tokenizer reads numbers, with every
 * digit it has; 0 if the node is not a finite number.
 */
int pc_jr_pv_double(const struct pc_model *m, uint32_t node, double *out);
/* The same as an exact integer: an integer literal keeps every digit, other
 * numbers must be integral within +-2^53; 0 if it is not one. */
int pc_jr_pv_int(const struct pc_model *m, uint32_t node, int64_t *out);
/* A payload time in ms (a number node) as ns; 0 if it is one. */
int pc_jr_pv_ns(const struct pc_model *m, uint32_t node, int64_t *ns);
/*
 * A marker payload's "cause" member ({tid?, time?, stack}) moved to the
 * marker's cause columns of row r: the member becomes a PC_VAL_CAUSE
 * placeholder in place (its span is kept, so walks skip the old children).
 * Returns 1 when a cause was taken, 0 when there is none or it is not
 * usable (then nothing changes).
 */
int pc_jr_take_cause(struct pc_model *m, uint32_t payload, struct pc_marker_row *r);
/*
 * The payload's fields that its schema (by its "type") declares as
 * unique-string, flow-id or terminating-flow-id become string references
 * (PC_VAL_SREF), when they hold an integer in [0, nstrings).  Returns how
 * many fields could not be resolved.
 */
uint32_t pc_jr_resolve_srefs(struct pc_model *m, uint32_t payload, uint32_t nstrings);

/*
 * Members a reader does not map to a model field, kept in input order and
 * made into one payload object (meta.more, thread->more): add values as
 * they come, build at the end (which frees the list).
 */
struct pc_jr_more {
	uint32_t *keys, *vals; /* text rows, payload roots */
	uint32_t n, cap;
};
int pc_jr_more_add(struct pc_jr_more *mo, struct pc_model *m, const char *key, size_t klen,
		   uint32_t value);
/* Read the next value (literal numbers) and add it under key. */
int pc_jr_more_read(struct pc_jr_more *mo, struct profconv_ctx *ctx, struct pc_jpull *p,
		    struct pc_model *m, const char *key, size_t klen);
/* The object of every member added (PC_NONE when none or on error). */
uint32_t pc_jr_more_build(struct pc_jr_more *mo, struct pc_model *m);
void pc_jr_more_free(struct pc_jr_more *mo, struct pc_model *m);

/* A pages list (a payload array of {tabID, innerWindowID, url,
 * embedderInnerWindowID, isPrivateBrowsing?, favicon?}) into the model;
 * entries that are not objects are counted in *skipped.  0 or error. */
int pc_jr_pages(struct pc_model *m, uint32_t root, uint64_t *skipped);

/* A decimal integer (optional '-', digits only, in range) into *out; 1 if it is one. */
int pc_jr_parse_i64(const char *s, int64_t *out);

/*
 * A cJSON value (one payload or event argument) as a payload tree:
 * integral numbers below 2^53 become PC_VAL_INT, others PC_VAL_DBL.
 * Returns 0 (*root set), 1 when the value is nested deeper than a payload
 * may be (nothing built: the caller drops it with a warning), or an error.
 */
struct cJSON;
int pc_jr_pv_from_cjson(struct pc_model *m, const struct cJSON *v, uint32_t *root);

#endif /* PC_JREAD_H */
