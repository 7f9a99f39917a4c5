/*
 * profconv.h - convert profiling data into the Firefox Profiler's formats.
 *
 * The only public header of libprofconv.  Every handle is opaque; every
 * fallible call returns an enum profconv_status and leaves a message naming
 * the file and byte offset (or line:column) in the context, readable with
 * profconv_errmsg().
 *
 * A context is used by one thread at a time; separate contexts may be used
 * in parallel (there is no global mutable state).
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
#define PROFCONV_VERSION_MINOR 1
#define PROFCONV_VERSION_PATCH 0
#define PROFCONV_VERSION_NUMBER                                                                    \
	(PROFCONV_VERSION_MAJOR * 10000 + PROFCONV_VERSION_MINOR * 100 + PROFCONV_VERSION_PATCH)
#define PROFCONV_VERSION_STRING "0.1.0"

/* Output format versions, as the Firefox Profiler front-end reads them. */
#define PROFCONV_PROCESSED_FORMAT_VERSION 70
#define PROFCONV_GECKO_FORMAT_VERSION	  36

#if defined(__GNUC__) && __GNUC__ >= 4
#define PROFCONV_API __attribute__((visibility("default")))
#else
#define PROFCONV_API
#endif

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
	PROFCONV_ERR_CORRUPT_TRUNCATED = PROFCONV_ERR_CORRUPT | (1 << 8),
	PROFCONV_ERR_CORRUPT_BAD_SIZE = PROFCONV_ERR_CORRUPT | (2 << 8),
};

enum profconv_severity {
	PROFCONV_NOTE = 0,    /* verbose information (--verbose) */
	PROFCONV_WARNING = 1, /* recoverable damage; counted */
	PROFCONV_ERROR = 2,
};

/* Output formats for profconv_write_*(). */
#define PROFCONV_OUT_PROCESSED "processed"

struct profconv_ctx;	 /* options, error state, diagnostics, allocator */
struct profconv_profile; /* the converted profile (the columnar model) */

/*
 * Diagnostics callback: called for the first occurrence of each kind of
 * warning, for every error, and for notes when verbose.  msg already names
 * the file and position.  Borrowed; valid during the call only.
 */
typedef void profconv_diag_fn(void *user, enum profconv_severity sev, const char *msg);

/* Output callback for the writers: return 0 on success, non-zero to abort. */
typedef int profconv_write_fn(void *user, const void *buf, size_t len);

PROFCONV_API int profconv_version_number(void);
PROFCONV_API const char *profconv_version_string(void);
/* Static text naming a status code.  Never NULL. */
PROFCONV_API const char *profconv_strerror(int status);

/* Returns NULL only when out of memory.  Free with profconv_ctx_free(). */
PROFCONV_API struct profconv_ctx *profconv_ctx_new(void);
/* Accepts NULL. */
PROFCONV_API void profconv_ctx_free(struct profconv_ctx *ctx);
/* Message for the last failure on ctx ("" if none); owned by ctx, valid until the next call. */
PROFCONV_API const char *profconv_errmsg(const struct profconv_ctx *ctx);

PROFCONV_API void profconv_set_diag(struct profconv_ctx *ctx, profconv_diag_fn *fn, void *user);
/* Non-zero: the first warning becomes an error (PROFCONV_ERR_STRICT). */
PROFCONV_API void profconv_set_strict(struct profconv_ctx *ctx, int strict);
/* Non-zero: notes are passed to the diagnostics callback. */
PROFCONV_API void profconv_set_verbose(struct profconv_ctx *ctx, int verbose);
/* Ceiling on the bytes the library allocates; 0 = no limit (default 8 GiB). */
PROFCONV_API void profconv_set_max_memory(struct profconv_ctx *ctx, uint64_t bytes);

/*
 * Reader and conversion options, by name:
 *   "from"   reader name ("perf", "processed", "gecko") to skip content detection
 *   "event"  perf.data: the event whose samples become the call tree
 *            (default: the first sampling event)
 *   "weight" "samples" (default) or "period"
 *   "symbols"     "yes" (default) or "no": symbolicate while converting
 *   "symbolicate" "auto" (default): symbolicate only inputs whose meta does
 *                 not say they are symbolicated; "always": also those (a
 *                 processed or Gecko profile with symbolicated: true may still
 *                 have frames without symbols; frames that have a native
 *                 symbol are left as they are).  "symbols" "no" wins.
 *   "symbol-dir"  a directory (breakpad store, folder of binaries or .debug
 *                 files, perf build-id cache) or a perf archive tarball to
 *                 search for symbols; repeatable, searched in order
 *   "kallsyms"    a kallsyms file for the kernel's symbols
 * Returns PROFCONV_ERR_USAGE for an unknown key or value.
 */
PROFCONV_API int profconv_set_option(struct profconv_ctx *ctx, const char *key, const char *value);

/* Number of warnings counted on ctx so far (all kinds). */
PROFCONV_API uint64_t profconv_warning_count(const struct profconv_ctx *ctx);
/*
 * One line summarising the warnings so far ("" if none), e.g.
 * "3 unknown records skipped; 12 lost samples".  Owned by ctx.
 */
PROFCONV_API const char *profconv_warning_summary(struct profconv_ctx *ctx);

/*
 * Read and convert an input.  path "-" reads standard input.  The format is
 * found from the content (option "from" forces one); gzip, xz, bzip2 and zstd
 * compression and a tar or zip holding one file are undone first.
 * On success *out is set; caller owns it, free with profconv_profile_free().
 * On failure *out is NULL.
 */
PROFCONV_API int profconv_read_path(struct profconv_ctx *ctx, const char *path,
				    struct profconv_profile **out);
/* The same from an open file descriptor (not closed); name is used in messages. */
PROFCONV_API int profconv_read_fd(struct profconv_ctx *ctx, int fd, const char *name,
				  struct profconv_profile **out);
/* Accepts NULL. */
PROFCONV_API void profconv_profile_free(struct profconv_profile *p);

/*
 * Write a profile.  format is PROFCONV_OUT_PROCESSED.  For _path, "-" is
 * standard output; any other path is written to a temporary file beside it
 * and renamed over it only once complete, so an existing file is never
 * replaced by a partial one.
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
 * directory exists and takes new files.  PROFCONV_OK or an error. */
PROFCONV_API int profconv_output_check(struct profconv_ctx *ctx, const char *path);
/*
 * The temporary file profconv_write_path() is writing on ctx right now, or
 * "" (owned by ctx).  A program's SIGINT/SIGTERM handler may unlink() it
 * before re-raising; the library installs no signal handlers itself.
 */
PROFCONV_API const char *profconv_pending_output(const struct profconv_ctx *ctx);
PROFCONV_API int profconv_write_cb(struct profconv_ctx *ctx, const struct profconv_profile *p,
				   const char *format, profconv_write_fn *fn, void *user);

/* Read-only views of a profile, for library users and summaries. */
PROFCONV_API size_t profconv_profile_thread_count(const struct profconv_profile *p);
/* Thread name, owned by p.  NULL if i is out of range. */
PROFCONV_API const char *profconv_profile_thread_name(const struct profconv_profile *p, size_t i);
PROFCONV_API int64_t profconv_profile_thread_pid(const struct profconv_profile *p, size_t i);
PROFCONV_API int64_t profconv_profile_thread_tid(const struct profconv_profile *p, size_t i);
PROFCONV_API size_t profconv_profile_sample_count(const struct profconv_profile *p, size_t i);
PROFCONV_API size_t profconv_profile_stack_count(const struct profconv_profile *p);
PROFCONV_API size_t profconv_profile_frame_count(const struct profconv_profile *p);
PROFCONV_API size_t profconv_profile_func_count(const struct profconv_profile *p);
PROFCONV_API size_t profconv_profile_lib_count(const struct profconv_profile *p);
/* Func name, owned by p.  NULL if i is out of range. */
PROFCONV_API const char *profconv_profile_func_name(const struct profconv_profile *p, size_t i);
/*
 * After symbolication: the map from each func before symbols (one per frame
 * address) to the func it collapsed into; UINT32_MAX where an old func was
 * split between several functions.  *map is owned by p (NULL and 0 when the
 * profile was not symbolicated).  Returns the map's length (the old func
 * count).
 */
PROFCONV_API size_t profconv_profile_func_map(const struct profconv_profile *p,
					      const uint32_t **map);

/*
 * Describe an input without converting it: format, events, processes,
 * threads, samples, time span, metadata, and what the file lacks.  The text
 * is passed to fn in pieces.
 */
PROFCONV_API int profconv_info_path(struct profconv_ctx *ctx, const char *path,
				    profconv_write_fn *fn, void *user);

/*
 * Check a processed (v70) or Gecko profile JSON file from any producer:
 * column lengths, every index in range, parents before children,
 * categories and subcategories, marker phases.  Each problem is passed to
 * the diagnostics callback as an error (the first 20 of each kind); a
 * summary line goes to fn.  Returns PROFCONV_OK when the file is valid,
 * PROFCONV_ERR_INVALID when problems were found, or another error when the
 * file could not be read as JSON.
 */
PROFCONV_API int profconv_validate_path(struct profconv_ctx *ctx, const char *path,
					profconv_write_fn *fn, void *user);

#ifdef __cplusplus
}
#endif
#endif /* PROFCONV_H */
