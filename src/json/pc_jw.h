/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_jw.h - the streaming JSON writer.
 *
 * Writes straight to a profconv_write_fn through an internal buffer; no
 * document is ever built in memory.  Commas are automatic (a per-depth
 * "need comma" flag), the first sink failure is latched and every later
 * call is a no-op, and pc_jw_finish() returns it.  Strings are escaped on
 * unsigned bytes; invalid UTF-8 becomes U+FFFD and is counted.  Integers,
 * times and integral doubles below 1e15 are printed by hand, other doubles
 * by snprintf under a private "C" locale, so a host's setlocale() cannot
 * change them.
 *
 * Misuse (a value in an object without a key, a key outside an object,
 * unbalanced ends, nesting deeper than PC_JW_MAX_DEPTH) latches
 * PROFCONV_ERR_INTERNAL.  pc_jw_finish() ends a complete document with "\n".
 */
#ifndef PC_JW_H
#define PC_JW_H

#include "core/pc_core.h"

struct pc_jw;

/* New writer; NULL on OOM (ctx error set). */
struct pc_jw *pc_jw_new(struct profconv_ctx *ctx, profconv_write_fn *fn, void *user);
/*
 * Flush and report the first error (0 if none); the writer is then freed.
 * NULL (pc_jw_new() failed) returns PROFCONV_ERR_NOMEM.
 */
int pc_jw_finish(struct pc_jw *w);
/* Free without flushing (after an error). Accepts NULL. */
void pc_jw_free(struct pc_jw *w);

/*
 * An element writer, for formatting part of an array on another thread: it
 * has no ctx (it is allocated with malloc, and its errors are latched in it
 * and reported to nobody: its owner formats the same part again with a
 * writer of its own, which reports them), and it starts inside an open
 * array with no element yet, where the values written into it are
 * elements; pc_jw_raw_elems() puts them into the real array.  NULL on OOM.
 */
struct pc_jw *pc_jw_new_elems(profconv_write_fn *fn, void *user);
/* Flush an element writer and return its error (0 if none). */
int pc_jw_elems_flush(struct pc_jw *w);
/* Start an element writer over: empty array, no error, counters 0. */
void pc_jw_elems_reset(struct pc_jw *w);
/*
 * Array elements already in JSON, separated by commas (an element writer's
 * output), appended to the array currently open.  len 0 writes nothing.
 */
void pc_jw_raw_elems(struct pc_jw *w, const char *json, size_t len);

void pc_jw_obj_begin(struct pc_jw *w);
void pc_jw_obj_end(struct pc_jw *w);
void pc_jw_arr_begin(struct pc_jw *w);
void pc_jw_arr_end(struct pc_jw *w);
/* An object key (the next value belongs to it). */
void pc_jw_key(struct pc_jw *w, const char *k);
/* The same with its length (k need not end with a NUL). */
void pc_jw_key_n(struct pc_jw *w, const char *k, size_t len);
void pc_jw_str(struct pc_jw *w, const char *s, size_t len); /* NULL writes null */
void pc_jw_str_z(struct pc_jw *w, const char *s); /* NULL writes null */
void pc_jw_i64(struct pc_jw *w, int64_t v);
void pc_jw_u64(struct pc_jw *w, uint64_t v);
void pc_jw_bool(struct pc_jw *w, int v);
void pc_jw_null(struct pc_jw *w);
/* Nanoseconds printed as milliseconds, exact (up to 6 decimals). */
void pc_jw_ns_ms(struct pc_jw *w, int64_t ns);
/* A finite double, shortest round-trip form; non-finite writes null. */
void pc_jw_double(struct pc_jw *w, double v);
/* Raw JSON text inserted as one value (the caller vouches for it). */
void pc_jw_raw(struct pc_jw *w, const char *json, size_t len);
/* Number of strings in which invalid UTF-8 was replaced. */
uint64_t pc_jw_replaced(const struct pc_jw *w);

/*
 * The text of a value just written: pc_jw_tell() before the value, then
 * pc_jw_since() gives its bytes (without the comma in front of it) and
 * their length while they are all still in the writer's buffer, else 0
 * (also after an error).  The bytes are valid until the next call that
 * writes; pc_jw_raw() writes them again as one value.
 */
uint64_t pc_jw_tell(const struct pc_jw *w);
size_t pc_jw_since(const struct pc_jw *w, uint64_t from, const char **s);

/*
 * Containers open at once.  Above what any writer needs: a marker payload
 * may nest PC_PV_MAX_DEPTH - 1 (63) levels (the builder's and the Gecko
 * reader's limit), and it sits 9 levels deep in a Gecko profile's
 * sub-process (root, processes, a process, threads, a thread, markers,
 * data, the row, the payload) and 5 in a processed profile; with 64 a
 * payload of more than 55 levels was refused as a writer misuse.
 */
#define PC_JW_MAX_DEPTH 128

/*
 * Bulk element writers for the big table columns: each appends n elements to
 * the array currently open (between pc_jw_arr_begin() and pc_jw_arr_end()),
 * formatting straight into the output buffer.  Where none_json is not NULL,
 * an element equal to none is written as that JSON token instead ("null",
 * "-1").  Calling them with n == 0 writes nothing; several calls may append
 * to one array (chunked columns).
 */
void pc_jw_u32s(struct pc_jw *w, const uint32_t *v, size_t n, uint32_t none,
		const char *none_json);
void pc_jw_u16s(struct pc_jw *w, const uint16_t *v, size_t n, uint16_t none,
		const char *none_json);
void pc_jw_u64s(struct pc_jw *w, const uint64_t *v, size_t n, uint64_t none,
		const char *none_json);
void pc_jw_i64s(struct pc_jw *w, const int64_t *v, size_t n);
void pc_jw_u8s(struct pc_jw *w, const uint8_t *v, size_t n);
/* Non-zero bytes as true, zero as false. */
void pc_jw_bools(struct pc_jw *w, const uint8_t *v, size_t n);
/* Nanoseconds as milliseconds (like pc_jw_ns_ms); none (e.g. PC_NO_TIME) as none_json. */
void pc_jw_ns_ms_s(struct pc_jw *w, const int64_t *v, size_t n, int64_t none,
		   const char *none_json);
/* Nanoseconds as milliseconds, each the difference to the one before (the
 * first: to 0); the caller checks that no difference overflows. */
void pc_jw_ns_ms_deltas(struct pc_jw *w, const int64_t *v, size_t n);
/* The same from v[0] - prev on (a column cut into parts: prev is the time
 * before v[0]). */
void pc_jw_ns_ms_deltas_from(struct pc_jw *w, const int64_t *v, size_t n, int64_t prev);
/* The raw JSON token json[0..len) n times ("null", "0", "1"). */
void pc_jw_raw_repeat(struct pc_jw *w, const char *json, size_t len, size_t n);

#endif /* PC_JW_H */
