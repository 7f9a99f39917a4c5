/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profconv.h - convert profiling data into the Firefox Profiler's formats.
 *
 * The only public header of libprofconv.  Every handle is opaque; every
 * fallible call returns an enum profconv_status and leaves a message naming
 * the file and byte offset (or line:column) in the context, readable with
 * profconv_errmsg().
 *
 * Thread safety, stated on each function below as one of:
 *   [any thread]  may be called from any thread at any time (static data);
 *   [ctx]         a context is used by one thread at a time; separate
 *                 contexts may be used in parallel from different threads;
 *   [profile]     reads a profile only: any number of threads may call these
 *                 on one profile at once, as long as none frees it;
 *   [ctx+profile] both of the above.
 * Threads and process-wide state, all of it internal:
 *   - symbolication (option "symbols" "yes") may run one worker thread of
 *     its own for the duration of a profconv_read_*() call; it is joined
 *     before the call returns and never calls back into the caller except
 *     through the context's diagnostics callback, which is always called on
 *     the caller's thread;
 *   - the perf reader may run one more worker thread (interning stacks) for
 *     the duration of a profconv_read_*() call on a recording of many
 *     callchains; it is joined before the call returns and never calls back
 *     into the caller;
 *   - libdwarf is not thread-safe, so every entry into it is serialised by
 *     one process-wide mutex (contexts used in parallel wait on it when
 *     they index debug info; lookups in what is indexed take no lock);
 *   - the library installs no signal handlers and changes no locale.
 *
 * ABI: the shared library's symbols carry the version node PROFCONV_0
 * (objdump -T shows "PROFCONV_0" beside each); nothing else is exported.
 * Every struct the library fills or reads carries its size as its first
 * member: the caller sets it (PROFCONV_INIT()), the library checks it,
 * accepts the smaller size of a struct from an older header (it fills or
 * reads only the members that size holds) and zeroes the members a newer
 * header added that it does not know.  A struct the library hands to a
 * callback carries the library's size: test PROFCONV_HAS() before reading
 * a member added after PROFCONV_0.  Members are only ever appended.
 *
 * Typical use:
 *
 *	struct profconv_ctx *ctx = profconv_ctx_new();
 *	struct profconv_profile *p = NULL;
 *	if (profconv_read_path(ctx, "perf.data", &p) == PROFCONV_OK &&
 *	    profconv_write_path(ctx, p, PROFCONV_OUT_PROCESSED, "out.json") == PROFCONV_OK)
 *		puts("done");
 *	else
 *		fprintf(stderr, "%s\n", profconv_errmsg(ctx));
 *	profconv_profile_free(p);
 *	profconv_ctx_free(ctx);
 */
#ifndef PROFCONV_H
#define PROFCONV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROFCONV_VERSION_MAJOR 0
#define PROFCONV_VERSION_MINOR 2
#define PROFCONV_VERSION_PATCH 0
#define PROFCONV_VERSION_NUMBER                                                                    \
	(PROFCONV_VERSION_MAJOR * 10000 + PROFCONV_VERSION_MINOR * 100 + PROFCONV_VERSION_PATCH)
#define PROFCONV_VERSION_STRING "0.2.0"

/*
 * Output format versions, as the Firefox Profiler front-end reads them: the
 * newest processed version written (option "processed-version"), the one
 * written by default (what profiler.firefox.com as deployed reads), and the
 * Gecko version.
 */
#define PROFCONV_PROCESSED_FORMAT_VERSION 70
#define PROFCONV_PROCESSED_FORMAT_DEFAULT 69
#define PROFCONV_GECKO_FORMAT_VERSION	  36

#if defined(__GNUC__) && __GNUC__ >= 4
#define PROFCONV_API __attribute__((visibility("default")))
#define PROFCONV_DEPRECATED __attribute__((deprecated))
#else
#define PROFCONV_API
#define PROFCONV_DEPRECATED
#endif

/*
 * Sized structs: PROFCONV_INIT(struct profconv_thread) is an initializer
 * that sets the size member ("struct profconv_thread t = PROFCONV_INIT(...)"
 * or "t.size = sizeof t"); PROFCONV_HAS(s, member) is non-zero when the
 * struct *s (as the library filled it, e.g. in a callback) holds member.
 */
#ifdef __cplusplus
#define PROFCONV_INIT(type) { sizeof(type) }
#else
#define PROFCONV_INIT(type) { .size = sizeof(type) }
#endif
#define PROFCONV_HAS(s, member)                                                                    \
	((s)->size >= (size_t)((const char *)&(s)->member - (const char *)(s)) + sizeof((s)->member))

/*
 * Result codes.  The low byte is the primary code; extended codes add detail
 * above it, so (code & 0xff) is always a primary code.  Never renumbered;
 * new codes are only appended.
 */
enum profconv_status {
	PROFCONV_OK = 0,
	PROFCONV_ERR_NOMEM = 1,	       /* allocation failed or the memory limit was hit */
	PROFCONV_ERR_IO = 2,	       /* open/read/write failed */
	PROFCONV_ERR_UNRECOGNIZED = 3, /* no reader recognised the input */
	PROFCONV_ERR_CORRUPT = 4,      /* the input violates its format */
	PROFCONV_ERR_UNSUPPORTED = 5,  /* valid input that cannot be converted (yet) */
	PROFCONV_ERR_LIMIT = 6,	       /* a configured size or count limit was hit */
	PROFCONV_ERR_USAGE = 7,	       /* bad argument or call order */
	PROFCONV_ERR_INTERNAL = 8,     /* a bug in profconv */
	PROFCONV_ERR_STRICT = 9,       /* a warning was made fatal by strict mode */
	PROFCONV_ERR_INVALID = 10,     /* profconv_validate_path() found problems */
	PROFCONV_ERR_CANCELLED = 11,   /* the cancel callback asked to stop (profconv_set_cancel()) */
	PROFCONV_ERR_CORRUPT_TRUNCATED = PROFCONV_ERR_CORRUPT | (1 << 8),
	PROFCONV_ERR_CORRUPT_BAD_SIZE = PROFCONV_ERR_CORRUPT | (2 << 8),
};

enum profconv_severity {
	PROFCONV_NOTE = 0,    /* verbose information (--verbose) */
	PROFCONV_WARNING = 1, /* recoverable damage; counted */
	PROFCONV_ERROR = 2,
};

/* Output formats for profconv_write_*() (profconv_formats() lists them all). */
#define PROFCONV_OUT_PROCESSED "processed"
#define PROFCONV_OUT_GECKO     "gecko"

/* Null row index in the read-only views below. */
#define PROFCONV_NONE UINT32_MAX
/* Null time in the read-only views below. */
#define PROFCONV_NO_TIME INT64_MIN

struct profconv_ctx;	 /* options, error state, diagnostics, allocator */
struct profconv_profile; /* the converted profile (the columnar model) */

/*
 * A diagnostic: a note, a warning or an error with its parts.  code and id
 * are stable (docs/diagnostics.md, one table, append-only): errors carry
 * the PROFCONV_ERR_* returned (e.g. 260, "corrupt-truncated"), warnings a
 * code from 1000 up naming their kind (e.g. 1001, "perf-unknown-records"),
 * notes 0 and "note".  Every pointer is borrowed for the call.
 */
struct profconv_diag {
	size_t size; /* sizeof(struct profconv_diag) as the library or caller knows it */
	enum profconv_severity severity;
	int code;	     /* the stable numeric code (see above) */
	const char *kind;    /* warnings: the kind counted, e.g. "unknown records skipped";
				the same text as in profconv_warning_summary(); NULL otherwise */
	const char *file;    /* the input or output named, or NULL */
	uint64_t offset;     /* byte offset in file, or UINT64_MAX */
	uint32_t line, column; /* 1-based position in a text input; 0 if none */
	const char *message; /* the whole message, naming file and position */
	const char *id;	     /* the stable short identifier of code, e.g. "corrupt" */
};
/*
 * The diagnostics callback (profconv_set_diagnostics()): called on the
 * caller's thread for every note (when verbose), the first warning of each
 * kind and every error as it is recorded: the error a call fails with (also
 * returned, and readable with profconv_errmsg()) and each problem
 * profconv_validate_path() finds (code PROFCONV_ERR_INVALID).
 */
typedef void profconv_diagnostic_fn(void *user, const struct profconv_diag *d);

/* Deprecated (0.1): the message alone; see profconv_set_diag(). */
typedef void profconv_diag_fn(void *user, enum profconv_severity sev, const char *msg);

/* Output callback for the writers: return 0 on success, non-zero to abort. */
typedef int profconv_write_fn(void *user, const void *buf, size_t len);

/* [any thread] */
PROFCONV_API int profconv_version_number(void);
/* [any thread] */
PROFCONV_API const char *profconv_version_string(void);
/* Static text naming a status code.  Never NULL.  [any thread] */
PROFCONV_API const char *profconv_strerror(int status);
/*
 * The stable short identifier of a diagnostic code (a status such as
 * PROFCONV_ERR_CORRUPT_TRUNCATED: "corrupt-truncated", or a warning code:
 * docs/diagnostics.md), or NULL for a code profconv does not know.
 * [any thread]
 */
PROFCONV_API const char *profconv_code_id(int code);

/* Returns NULL only when out of memory.  Free with profconv_ctx_free().  [any thread] */
PROFCONV_API struct profconv_ctx *profconv_ctx_new(void);
/* Accepts NULL.  [ctx] */
PROFCONV_API void profconv_ctx_free(struct profconv_ctx *ctx);
/*
 * Message for the last failure on ctx ("" if none); owned by ctx, valid
 * until the next call.  [ctx]
 */
PROFCONV_API const char *profconv_errmsg(const struct profconv_ctx *ctx);

/*
 * The diagnostics callback of ctx (struct profconv_diag above); NULL turns
 * it off.  A context has one callback: this replaces what
 * profconv_set_diag() set and the reverse.  [ctx]
 */
PROFCONV_API void profconv_set_diagnostics(struct profconv_ctx *ctx, profconv_diagnostic_fn *fn,
					   void *user);
/*
 * Deprecated since 0.2, to be removed before 1.0: a wrapper over
 * profconv_set_diagnostics() that passes notes' and warnings' messages
 * alone to fn (errors are read with profconv_errmsg()).  [ctx]
 */
PROFCONV_API PROFCONV_DEPRECATED void profconv_set_diag(struct profconv_ctx *ctx,
							profconv_diag_fn *fn, void *user);
/*
 * The last failure on ctx with its parts (the same as the last error
 * diagnostic); severity PROFCONV_ERROR, code 0, id "ok" and message "" if
 * none.
 * out->size must be set (PROFCONV_INIT); PROFCONV_ERR_USAGE otherwise.
 * [ctx]
 */
PROFCONV_API int profconv_last_error(const struct profconv_ctx *ctx, struct profconv_diag *out);
/* Non-zero: the first warning becomes an error (PROFCONV_ERR_STRICT).  [ctx] */
PROFCONV_API void profconv_set_strict(struct profconv_ctx *ctx, int strict);
/* Non-zero: notes are passed to the diagnostics callback.  [ctx] */
PROFCONV_API void profconv_set_verbose(struct profconv_ctx *ctx, int verbose);
/* Ceiling on the bytes the library allocates; 0 = no limit (default 8 GiB).  [ctx] */
PROFCONV_API void profconv_set_max_memory(struct profconv_ctx *ctx, uint64_t bytes);

/*
 * Options, by name (the CLI's long options carry the same names).
 * The pipeline's own:
 *   "from"        reader name (see profconv_formats()) to skip content detection
 *   "symbols"     "no" (the library's default) or "yes": symbolicate while
 *                 converting, from the host's files (debug dirs, the binaries
 *                 recorded, /proc/kallsyms, the perf build-id cache) and the
 *                 "symbol-dir"s.  Off by default so that what a library
 *                 conversion gives does not depend on the host; the
 *                 profconv command turns it on ("--no-symbols" turns it off).
 *   "symbolicate" "auto" (default): symbolicate only inputs whose meta does
 *                 not say they are symbolicated; "always": also those (a
 *                 processed or Gecko profile with symbolicated: true may still
 *                 have frames without symbols; frames that have a native
 *                 symbol are left as they are).  Implies nothing without
 *                 "symbols" "yes".
 *   "symbol-dir"  a directory (breakpad store, folder of binaries or .debug
 *                 files, perf build-id cache) or a perf archive tarball to
 *                 search for symbols; repeatable, searched in order
 *   "kallsyms"    a kallsyms file for the kernel's symbols
 *   "host-symbols" "yes" (default) or "no": "no" searches only the
 *                 "symbol-dir"s and "kallsyms", none of the host's paths
 *                 (debug dirs, ~/.debug, the recorded binaries,
 *                 /proc/kallsyms, /tmp/perf-PID.map), so the result is the
 *                 same on every machine
 *   "symbol-cache" DIR, or "" (the library's default: none): a persistent
 *                 cache of what each ELF symbol file resolved, one file per
 *                 symbol file named by its build id, read back by later
 *                 conversions (of this process or another) so that a file
 *                 whose addresses are all cached is not read further; the
 *                 output is the same with and without it.  The profconv
 *                 command uses $PROFCONV_SYMBOL_CACHE, else
 *                 $XDG_CACHE_HOME/profconv, else ~/.cache/profconv.
 *                 Conversions sharing a profconv_symcache use the first
 *                 one's directory for a file they share.  The host's
 *                 /proc/kallsyms is kept there too, parsed (its core
 *                 kernel symbols are answered from it; see
 *                 docs/formats/symbol-files.md).
 *   "threads"     "yes" (default) or "no": "no" runs the whole conversion
 *                 on the calling thread (no symbol prefetch, output,
 *                 Chrome scanner, perf stack-interning or marker-writing
 *                 helper threads); for callers that run as
 *                 many conversions at once as there are CPUs.  The output
 *                 is the same.
 *   "input-map"   "no" (default) or "yes": read plain (uncompressed) JSON
 *                 files through read-only mappings, 4 MiB at a time, rather
 *                 than copy them with read() (the same output).  Less
 *                 kernel time on big traces where mapping a page is cheap;
 *                 slower where the page tables are a hypervisor's (each
 *                 page mapped traps: two fifths more time on a 1 GiB trace
 *                 on such a machine).  A file changed since the open
 *                 is read with read() from then on, but one cut short by
 *                 another process while a mapped part of it is being read
 *                 raises SIGBUS in the reading thread: ask for it only when
 *                 the process handles SIGBUS (the profconv command handles
 *                 it, and asks for the mapping with PROFCONV_INPUT_MAP=1).
 *                 PROFCONV_INPUT_MAP=0 in the environment turns it off.
 *   "compress"    "auto" (default), "none", "gzip" or "zstd": compress the
 *                 output in the same pass; "auto" compresses what
 *                 profconv_write_path() writes to FILE.gz (gzip) or
 *                 FILE.zst (zstd) and nothing written to a callback.  The
 *                 Firefox Profiler opens gzip files directly.  The gzip
 *                 header holds no name or time: the same bytes every run.
 * and every option a format declares (struct profconv_option, listed by
 * profconv_formats()), e.g. "event" and "weight" of the perf reader and
 * "processed-version" of the processed writer; a value is checked against
 * the declared choices when there are any.
 * Returns PROFCONV_ERR_USAGE for an unknown key or value.  [ctx]
 */
PROFCONV_API int profconv_set_option(struct profconv_ctx *ctx, const char *key, const char *value);

/*
 * An option a format declares.  Static strings.  The one public struct
 * without a size member: it is an element of the static arrays that
 * struct profconv_format points to, so its layout is frozen as PROFCONV_0
 * has it (five strings); what an option may gain later comes through a
 * new function.
 */
struct profconv_option {
	const char *key;     /* "event": the profconv_set_option() key and the CLI's --event */
	const char *arg;     /* what the value is, for usage text: "NAME", "N", ... */
	const char *choices; /* "samples|period", or NULL when any text is taken */
	const char *def;     /* the default, or NULL */
	const char *help;    /* one line */
};

enum profconv_format_kind {
	PROFCONV_FORMAT_INPUT = 1,  /* a reader: profconv_read_*() and option "from" */
	PROFCONV_FORMAT_OUTPUT = 2, /* a writer: the format argument of profconv_write_*() */
};

struct profconv_format {
	size_t size; /* set by the caller: PROFCONV_INIT(struct profconv_format) */
	const char *name;    /* "perf", "processed", ... */
	const char *summary; /* one line */
	enum profconv_format_kind kind;
	const struct profconv_option *options; /* ends at a NULL key; never NULL */
};

/*
 * The i-th format profconv knows, readers first, then writers (a name may
 * appear once as each).  Fills *out and returns PROFCONV_OK, or returns
 * PROFCONV_ERR_USAGE when i is past the end.  The registry is static:
 * iterate from 0 until it fails.  out->size must be set.  [any thread]
 */
PROFCONV_API int profconv_formats(size_t i, struct profconv_format *out);

/*
 * The i-th kind of warning counted on ctx so far: its text (static, the
 * summary's wording, e.g. "unknown records skipped") and count.
 * PROFCONV_OK, or PROFCONV_ERR_USAGE past the last kind.  [ctx]
 */
PROFCONV_API int profconv_warning_kind(const struct profconv_ctx *ctx, size_t i,
				       const char **kind, uint64_t *count);
/* The same with the kind's stable code and identifier (docs/diagnostics.md). */
struct profconv_warning {
	size_t size;	  /* set by the caller: PROFCONV_INIT(struct profconv_warning) */
	int code;	  /* e.g. 1001 */
	const char *id;	  /* e.g. "perf-unknown-records" */
	const char *kind; /* the summary's wording, as profconv_warning_kind() */
	uint64_t count;
};
/* PROFCONV_OK, or PROFCONV_ERR_USAGE past the last kind or for a bad out->size.  [ctx] */
PROFCONV_API int profconv_warning_get(const struct profconv_ctx *ctx, size_t i,
				      struct profconv_warning *out);

/*
 * Progress callback: done of total input bytes read so far (total 0 when
 * the size is unknown, e.g. a pipe).  For a compressed input both count
 * compressed bytes.  Called on the caller's thread, about every MiB and
 * once at the end of the input.  [ctx]
 */
typedef void profconv_progress_fn(void *user, uint64_t done, uint64_t total);
PROFCONV_API void profconv_set_progress(struct profconv_ctx *ctx, profconv_progress_fn *fn,
					void *user);
/*
 * Cancel callback: called on the caller's thread about every MiB a read
 * takes in (profconv_read_*(), also while spooling a callback's input) and
 * every MiB a write puts out (profconv_write_*()).  Returning non-zero
 * stops the call: it returns PROFCONV_ERR_CANCELLED, frees what it
 * allocated, and leaves nothing behind (a profconv_write_path() output is
 * not created or replaced; its temporary file is removed).  NULL turns it
 * off.  [ctx]
 */
typedef int profconv_cancel_fn(void *user);
PROFCONV_API void profconv_set_cancel(struct profconv_ctx *ctx, profconv_cancel_fn *fn,
				      void *user);

/* Number of warnings counted on ctx so far (all kinds).  [ctx] */
PROFCONV_API uint64_t profconv_warning_count(const struct profconv_ctx *ctx);
/*
 * One line summarising the warnings so far ("" if none), e.g.
 * "3 unknown records skipped; 12 lost samples".  Owned by ctx.  [ctx]
 */
PROFCONV_API const char *profconv_warning_summary(struct profconv_ctx *ctx);

/*
 * Read and convert an input.  path "-" reads standard input.  The format is
 * found from the content (option "from" forces one); gzip, xz, bzip2 and zstd
 * compression and a tar or zip holding one file are undone first.
 * On success *out is set; caller owns it, free with profconv_profile_free().
 * On failure *out is NULL.  A NULL ctx, path or out is PROFCONV_ERR_USAGE
 * (without a ctx, no message).  With option "input-map" "yes", a plain
 * (uncompressed) JSON file, by path or fd, is read through read-only
 * mappings of it instead of read(); a file cut short by another process
 * while it is being read then raises SIGBUS in the reading thread (with
 * read() the input ends where it was cut, as any input cut short), so only
 * a caller that handles SIGBUS should ask for it (the CLI handles it, and
 * reports it as an error).  [ctx]
 */
PROFCONV_API int profconv_read_path(struct profconv_ctx *ctx, const char *path,
				    struct profconv_profile **out);
/* The same from an open file descriptor (not closed); name is used in messages.  [ctx] */
PROFCONV_API int profconv_read_fd(struct profconv_ctx *ctx, int fd, const char *name,
				  struct profconv_profile **out);
/*
 * The same from len bytes at data (borrowed for the call; compressed data
 * is undone as for a file); name is used in messages.  [ctx]
 */
PROFCONV_API int profconv_read_mem(struct profconv_ctx *ctx, const void *data, size_t len,
				   const char *name, struct profconv_profile **out);
/*
 * Input callback: copy up to cap bytes into buf and return how many (0 at
 * the end of the input), or -1 on failure (the read then fails with
 * PROFCONV_ERR_IO).  Called on the caller's thread only.
 */
typedef long profconv_read_fn(void *user, void *buf, size_t cap);
/*
 * The same from a callback, for inputs that are neither files nor memory
 * (a socket, a decompressor of the caller's).  The input is read once, in
 * order; a format that needs random access (file-mode perf.data) is
 * spooled to an unlinked temporary file first.  A failing callback fails
 * the read with PROFCONV_ERR_IO at the offset of the first byte it did not
 * deliver.  [ctx]
 */
PROFCONV_API int profconv_read_cb(struct profconv_ctx *ctx, profconv_read_fn *fn, void *user,
				  const char *name, struct profconv_profile **out);
/* Accepts NULL.  [profile], and no other thread may use p then. */
PROFCONV_API void profconv_profile_free(struct profconv_profile *p);

/*
 * Write a profile.  format is PROFCONV_OUT_PROCESSED or PROFCONV_OUT_GECKO.  For _path, "-" is
 * standard output; any other path is written to a temporary file beside it
 * and renamed over it only once complete, so an existing file is never
 * replaced by a partial one.  A NULL ctx, profile, path or callback is
 * PROFCONV_ERR_USAGE.  [ctx+profile]: several contexts may write one
 * profile at once.
 */
PROFCONV_API int profconv_write_path(struct profconv_ctx *ctx, const struct profconv_profile *p,
				     const char *format, const char *path);
/*
 * Where the output goes: "-" is standard output; an existing character
 * device, FIFO or socket (after following symlinks) is opened and written in
 * place; a symlink is followed and its final target replaced; any other
 * path is written to a temporary file beside it, renamed over it only once
 * complete.
 */
/* Check an output path before converting: not empty, not a directory, its
 * directory exists and takes new files.  PROFCONV_OK or an error.  [ctx] */
PROFCONV_API int profconv_output_check(struct profconv_ctx *ctx, const char *path);
/*
 * The temporary file profconv_write_path() is writing on ctx right now, or
 * "" (owned by ctx).  A program's SIGINT/SIGTERM handler may unlink() it
 * before re-raising; the library installs no signal handlers itself, and
 * blocks signals in the calling thread between creating the file and
 * storing its name, so a handler in that thread finds the name of every
 * file that exists.  [ctx], and also from a signal handler interrupting the
 * thread that uses ctx (it only reads a buffer of ctx).
 */
PROFCONV_API const char *profconv_pending_output(const struct profconv_ctx *ctx);
/* The same to fn (see profconv_write_path()).  [ctx+profile] */
PROFCONV_API int profconv_write_cb(struct profconv_ctx *ctx, const struct profconv_profile *p,
				   const char *format, profconv_write_fn *fn, void *user);

/*
 * Read-only views of a profile.  Every string is owned by the profile and
 * valid until profconv_profile_free(); every index is a row of the table
 * named, PROFCONV_NONE for none.  Times are nanoseconds from the profile's
 * zero (profconv_profile_meta()), PROFCONV_NO_TIME for none.  The tables
 * are the Firefox Profiler's processed format's: stacks, frames, funcs and
 * libs are shared by all threads; samples and markers are per thread.
 * A getter returns PROFCONV_OK, or PROFCONV_ERR_USAGE for an index out of
 * range, a NULL argument or an out->size smaller than the PROFCONV_0 struct
 * (out is then untouched).  Set out->size first: PROFCONV_INIT(type).
 * Every getter below is [profile] (profconv_profile_marker_data()
 * [ctx+profile]).
 */
struct profconv_meta {
	size_t size; /* set by the caller */
	const char *input_format; /* the reader that read it: "perf", "gecko", ... */
	const char *product;  /* "perf", "Firefox", ... or "" */
	const char *platform; /* "Linux", "Windows", ... or "" */
	const char *oscpu;    /* or "" */
	int64_t interval_ns;  /* sampling interval */
	int64_t start_time_ns; /* wall clock (Unix epoch) of time 0; 0 if unknown */
	int symbolicated;
};

struct profconv_thread {
	size_t size; /* set by the caller */
	const char *name;
	const char *process_name; /* "" if unknown */
	int64_t pid, tid;
	int is_main; /* the main thread of its process */
	size_t samples, markers;
};

struct profconv_sample {
	size_t size; /* set by the caller */
	int64_t time;	/* ns */
	uint32_t stack; /* stack row, PROFCONV_NONE for an empty stack */
	int64_t weight; /* 1 unless the thread's samples are weighted (a time in ns
			   for samples that stand for time, as a Chrome trace's do) */
};

struct profconv_stack {
	size_t size; /* set by the caller */
	uint32_t prefix; /* the caller's stack row, PROFCONV_NONE at a root */
	uint32_t frame;
};

struct profconv_frame {
	size_t size; /* set by the caller */
	uint32_t func;
	uint32_t lib;	  /* lib row, PROFCONV_NONE if none */
	uint64_t address; /* relative to the lib, UINT64_MAX if none */
	uint32_t line, column; /* 1-based; 0 if unknown */
	uint32_t inline_depth; /* 0 for the outermost function at an address */
	const char *category;
};

struct profconv_func {
	size_t size; /* set by the caller */
	const char *name;
	const char *file; /* source file, "" if unknown */
	const char *resource; /* the lib's or script's name, "" if none */
	uint32_t line;	  /* 1-based first line, 0 if unknown */
	int is_js;
};

struct profconv_lib {
	size_t size; /* set by the caller */
	const char *name, *path, *debug_name, *debug_path;
	const char *breakpad_id; /* 33 hex digits or "" */
	const char *code_id;	 /* build id in hex, or "" */
};

struct profconv_marker {
	size_t size; /* set by the caller */
	const char *name;
	const char *category;
	int64_t start, end; /* ns; an instant has no end, an interval both */
	uint32_t cause_stack; /* stack row where it was caused, PROFCONV_NONE if none */
	int has_data;	      /* has a payload: profconv_profile_marker_data() */
};

struct profconv_counter {
	size_t size; /* set by the caller */
	const char *name, *category, *description;
	int64_t pid; /* -1 if none */
	size_t samples;
};

PROFCONV_API int profconv_profile_meta(const struct profconv_profile *p, struct profconv_meta *out);
/* [profile] */
PROFCONV_API size_t profconv_profile_thread_count(const struct profconv_profile *p);
/* [profile] */
PROFCONV_API int profconv_profile_thread(const struct profconv_profile *p, size_t i,
					 struct profconv_thread *out);
/* [profile] */
PROFCONV_API int profconv_profile_sample(const struct profconv_profile *p, size_t thread,
					 size_t i, struct profconv_sample *out);
/* [profile] */
PROFCONV_API int profconv_profile_marker(const struct profconv_profile *p, size_t thread,
					 size_t i, struct profconv_marker *out);
/* The marker's payload as one JSON object ("null" when it has none), to fn.  [ctx+profile] */
PROFCONV_API int profconv_profile_marker_data(struct profconv_ctx *ctx,
					      const struct profconv_profile *p, size_t thread,
					      size_t i, profconv_write_fn *fn, void *user);
/* [profile] */
PROFCONV_API size_t profconv_profile_stack_count(const struct profconv_profile *p);
/* [profile] */
PROFCONV_API int profconv_profile_stack(const struct profconv_profile *p, size_t i,
					struct profconv_stack *out);
/* [profile] */
PROFCONV_API size_t profconv_profile_frame_count(const struct profconv_profile *p);
/* [profile] */
PROFCONV_API int profconv_profile_frame(const struct profconv_profile *p, size_t i,
					struct profconv_frame *out);
/* [profile] */
PROFCONV_API size_t profconv_profile_func_count(const struct profconv_profile *p);
/* [profile] */
PROFCONV_API int profconv_profile_func(const struct profconv_profile *p, size_t i,
				       struct profconv_func *out);
/* [profile] */
PROFCONV_API size_t profconv_profile_lib_count(const struct profconv_profile *p);
/* [profile] */
PROFCONV_API int profconv_profile_lib(const struct profconv_profile *p, size_t i,
				      struct profconv_lib *out);
/* [profile] */
PROFCONV_API size_t profconv_profile_counter_count(const struct profconv_profile *p);
/* [profile] */
PROFCONV_API int profconv_profile_counter(const struct profconv_profile *p, size_t i,
					  struct profconv_counter *out);
/* The j-th sample of counter i: its time (ns) and count.  [profile] */
PROFCONV_API int profconv_profile_counter_sample(const struct profconv_profile *p, size_t i,
						 size_t j, int64_t *time, double *count);

/* Shorthands kept from 0.1 (the same as the fields above).  [profile] */
PROFCONV_API const char *profconv_profile_thread_name(const struct profconv_profile *p, size_t i);
/* [profile] */
PROFCONV_API int64_t profconv_profile_thread_pid(const struct profconv_profile *p, size_t i);
/* [profile] */
PROFCONV_API int64_t profconv_profile_thread_tid(const struct profconv_profile *p, size_t i);
/* [profile] */
PROFCONV_API size_t profconv_profile_sample_count(const struct profconv_profile *p, size_t i);
/* Func name, owned by p.  NULL if i is out of range.  [profile] */
PROFCONV_API const char *profconv_profile_func_name(const struct profconv_profile *p, size_t i);
/*
 * After symbolication: the map from each func before symbols (one per frame
 * address) to the func it collapsed into; UINT32_MAX where an old func was
 * split between several functions.  *map is owned by p (NULL and 0 when the
 * profile was not symbolicated).  Returns the map's length (the old func
 * count).  [profile]
 */
PROFCONV_API size_t profconv_profile_func_map(const struct profconv_profile *p,
					      const uint32_t **map);

/*
 * Describe an input without converting it: format, events, processes,
 * threads, samples, time span, metadata, and what the file lacks.  The text
 * is passed to fn in pieces.  [ctx]
 */
PROFCONV_API int profconv_info_path(struct profconv_ctx *ctx, const char *path,
				    profconv_write_fn *fn, void *user);

/*
 * The cost of the work done for each context object of a Chrome trace
 * with FrameBlamer contexts (( and ) events, O snapshots): per slice its
 * context set, self time and the objects charged; per object the self time
 * charged to it; per group of cross-process counterparts (sibling /
 * renderFrame links) the same summed.  Work for several related contexts
 * of one tree is charged to their lowest common ancestor; unrelated trees
 * are each charged in full; "(none)" is work with no context.  json 0:
 * the text of [slices], [totals] and [merged-totals] sections (times in
 * whole microseconds); json 1: one JSON document with "slices", "totals"
 * and "merged_totals" ({"object": "scope:id@pid", "self_us": N}).  A
 * trace with samples adds [sample-totals] ("sample_totals": {"object",
 * "samples": N}): the samples charged to each object, at their own times.
 * [ctx]
 */
PROFCONV_API int profconv_blame_path(struct profconv_ctx *ctx, const char *path, int json,
				     profconv_write_fn *fn, void *user);

/*
 * Check a processed (v69, v70 and older) or Gecko profile JSON file from any producer:
 * column lengths, every index in range, parents before children,
 * categories and subcategories, marker phases.  Each problem is passed to
 * the diagnostics callback as an error (the first 20 of each kind); a
 * summary line goes to fn.  Returns PROFCONV_OK when the file is valid,
 * PROFCONV_ERR_INVALID when problems were found, or another error when the
 * file could not be read as JSON.  [ctx]
 */
PROFCONV_API int profconv_validate_path(struct profconv_ctx *ctx, const char *path,
					profconv_write_fn *fn, void *user);

/*
 * Pack a memory scrape of a Firefox process's profiler buffer into a PGKB
 * dump (docs/formats/gecko-buffer-dump.md), which profconv then reads like
 * any input.  prefix names the scrape's files: PREFIX.chunks (required;
 * compressed is fine, also found as PREFIX.chunks.xz), PREFIX.strings.json,
 * PREFIX.threads, PREFIX.maps, PREFIX.tagmap.json (each optional: a missing
 * one is a counted warning).  opts may be NULL; zero fields are unknown:
 * without process_start_ns the first chunk's start time stands in for the
 * process start (marker times then shift by up to a few milliseconds).
 * out_path is replaced only once the dump is complete.  opts->size must be
 * set (PROFCONV_INIT).  [ctx]
 */
struct profconv_gecko_scrape_opts {
	size_t size; /* set by the caller */
	uint64_t process_start_ns; /* raw CLOCK_MONOTONIC ns of the process start */
	double start_time_ms;	   /* wall clock of the process start, ms since the epoch */
	double interval_ms;	   /* the sampling interval */
};
PROFCONV_API int profconv_gecko_dump_scrape(struct profconv_ctx *ctx, const char *prefix,
					    const struct profconv_gecko_scrape_opts *opts,
					    const char *out_path);
/*
 * A PGKB dump of a running Firefox process's profiler buffer (Linux): the
 * process is stopped (SIGSTOP) while its private writable memory is scanned
 * through /proc/PID/mem for the profiler's chunks and the static strings
 * they point to are read, then continued (SIGCONT), also on error; the
 * caller's SIGINT/SIGTERM/SIGHUP/SIGQUIT wait until then.  Needs the right
 * to read the process's memory (root, CAP_SYS_PTRACE, or ptrace_scope).
 * opts may be NULL.  Elsewhere: PROFCONV_ERR_USAGE.  [ctx]; the process-wide
 * signal mask and dispositions are changed for the call (see above).
 */
PROFCONV_API int profconv_gecko_dump_pid(struct profconv_ctx *ctx, int pid,
					 const struct profconv_gecko_scrape_opts *opts,
					 const char *out_path);

/*
 * Symbols on demand: what a symbol server answers for the libs of profiles
 * already written (profconv serve's /symbolicate/v5, /source/v1 and
 * /asm/v1), by the same search as conversion with option "symbols" "yes"
 * (the ctx's "symbol-dir"s, "host-symbols", "kallsyms").  A lib is named as
 * the front-end names it: its debug name and breakpad id.  Each lib's
 * symbols and code file are found and opened once, on first use, and kept
 * until profconv_symbols_free().  One thread at a time uses an object and
 * its ctx (the ctx must outlive it).
 */
struct profconv_symbols;
/* [ctx] (the object is then used with its ctx, by one thread at a time) */
PROFCONV_API int profconv_symbols_new(struct profconv_ctx *ctx, struct profconv_symbols **out);
/* Accepts NULL.  [ctx] */
PROFCONV_API void profconv_symbols_free(struct profconv_symbols *s);
/* Learn the libs of p (what is kept is copied: p may be freed after).  [ctx] */
PROFCONV_API int profconv_symbols_add_libs(struct profconv_symbols *s,
					   const struct profconv_profile *p);

/* An element of profconv_symbol's frames array: frozen as it is (an array
 * element cannot carry its size), like struct profconv_option. */
struct profconv_symbol_frame {
	const char *name; /* never NULL */
	const char *file; /* source file as the debug info names it, "" if unknown */
	uint32_t line;	  /* the line executing in this function, 0 if unknown */
};

struct profconv_symbol {
	size_t size;	  /* set by the caller: PROFCONV_INIT(struct profconv_symbol) */
	int lib_found;	  /* the lib is known and its symbols were found */
	uint64_t start;	  /* lib-relative address of the outer function */
	uint64_t length;  /* its size in bytes, 0 if unknown */
	uint32_t nframes; /* 0: no function covers the address */
	/* [0] the outer function, [k] inlined into [k-1]; owned by s, valid
	   until the next call on s */
	const struct profconv_symbol_frame *frames;
};
/*
 * The function, inline frames and file:line at a lib-relative address (as
 * in the frame table).  PROFCONV_OK (out->lib_found and out->nframes say
 * what was found), or an error for lack of memory; PROFCONV_ERR_USAGE for a
 * NULL argument or out->size unset.  [ctx]
 */
PROFCONV_API int profconv_symbols_lookup(struct profconv_symbols *s, const char *debug_name,
					 const char *breakpad_id, uint64_t address,
					 struct profconv_symbol *out);

struct profconv_code {
	size_t size;		    /* set by the caller: PROFCONV_INIT(struct profconv_code) */
	const unsigned char *bytes; /* owned by s, valid until profconv_symbols_free() */
	size_t len;		    /* 0: no code file found, or no code at address */
	uint64_t svma;		    /* the link-time address of bytes[0] */
	const char *arch;	    /* "x86_64", "aarch64", "i686", "arm", or "" */
};
/*
 * The machine code at a lib-relative address, up to size bytes (fewer at
 * the end of its section), from the lib's binary (a file with the code
 * itself, not a separate debug file), checked against its build id.
 * PROFCONV_OK (out->len 0 when nothing was found), or an error;
 * PROFCONV_ERR_USAGE for a NULL argument or out->size unset.  [ctx]
 */
PROFCONV_API int profconv_symbols_code(struct profconv_symbols *s, const char *debug_name,
				       const char *breakpad_id, uint64_t address, uint64_t size,
				       struct profconv_code *out);

/*
 * A symbol cache shared by contexts: the conversions of a batch that
 * symbolicate (option "symbols" "yes") open each ELF symbol file once
 * (a separate debug file with its DWARF, or a binary) and look their
 * addresses up in the one copy, on any number of threads at once.  A file
 * is the one the context's own search chooses (its options still apply),
 * taken from the cache when the same file (path, device, inode, size,
 * modification time), checked against the same build id, was opened
 * before; the notes and warnings of its opening are given again to each
 * context that takes it.  Output is byte-identical to conversions without
 * the cache.  The cache keeps what it opened (mapped files, indexes) until
 * the cache is freed and no context shares it any more; the memory is not
 * counted against a context's profconv_set_max_memory().
 */
struct profconv_symcache;
/* *out is NULL when it fails (PROFCONV_ERR_NOMEM, or USAGE for NULL out).  [any thread] */
PROFCONV_API int profconv_symcache_new(struct profconv_symcache **out);
/*
 * Drop the caller's reference; the cache goes when the last context sharing
 * it is freed (or shares another).  Accepts NULL.  [any thread]
 */
PROFCONV_API void profconv_symcache_free(struct profconv_symcache *c);
/*
 * ctx shares c from now on (a reference is taken); NULL shares none.  One
 * cache may be shared by any number of contexts used in parallel on
 * different threads.  PROFCONV_OK, or PROFCONV_ERR_USAGE for a NULL ctx.
 * [ctx]
 */
PROFCONV_API int profconv_ctx_share_symbols(struct profconv_ctx *ctx,
					    struct profconv_symcache *c);

#ifdef __cplusplus
}
#endif
#endif /* PROFCONV_H */
