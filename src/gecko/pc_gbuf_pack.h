/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_gbuf_pack.h - the PGKB producer (gecko/gbuf_pack.c) and what feeds it:
 * a scrape's files (profconv_gecko_dump_scrape) or a live capture
 * (gecko/gbuf_capture.c, profconv_gecko_dump_pid).
 */
#ifndef PC_GBUF_PACK_H
#define PC_GBUF_PACK_H

#include "core/pc_core.h"

struct profconv_gecko_scrape_opts;

struct pc_pgkb_str {
	uint64_t addr;
	const char *text;
};

/* The parts of a dump; text parts are NUL-terminated, NULL when absent. */
/* A mapped file's GNU build id, as LIBS writes it. */
struct pc_pgkb_buildid {
	const char *path;
	char code_id[81];     /* the note's bytes in hex */
	char breakpad_id[34]; /* its first 16 bytes as a GUID, upper case, and age 0 */
};

/* A thread's register time (THRD's register_ms: ms since the time base). */
struct pc_pgkb_treg {
	uint64_t tid;
	double register_ms;
};

/*
 * A JIT code range named from the JS engine's own table in the process's
 * memory (gecko/gbuf_libs.c): what JITF says of the buffer's return
 * addresses inside it.
 */
struct pc_pgkb_jit {
	uint64_t start, end;
	const char *label;     /* "fib (file:///page.html:4:13)" */
	uint8_t impl;	       /* 1 ion, 2 baseline (JITF) */
	uint32_t line, column; /* 0: unknown */
};

/* A symbol of an image read from the process's memory (the vdso): SYMS. */
struct pc_pgkb_sym {
	uint64_t offset; /* file offset in the image, as frame addresses are */
	uint32_t size;
	const char *name;
};

struct pc_pgkb_parts {
	const char *name;		     /* for messages: the scrape prefix or "pid N" */
	uint64_t pid;			     /* 0: the first thread's */
	const unsigned char *chunks;	     /* 56-byte chunk headers, each followed by its buffer */
	size_t chunks_len;
	const char *chunks_name;	     /* for error locations */
	const char *threads;		     /* "tid comm" lines */
	const char *threads_name;	     /* for messages (NULL: name) */
	const char *maps;		     /* /proc/PID/maps text */
	const char *maps_name;		     /* for messages (NULL: name) */
	const char *strings_json;	     /* {"0x<address>": text} */
	const struct pc_pgkb_str *strs;	     /* or these pairs */
	size_t nstrs;
	const char *tagmap_json;	     /* {"tag/ptype": {TypeName: count}} */
	const char *process_type_name;	     /* GeckoProcessType's string ("tab"); NULL: "default" */
	uint32_t process_type;		     /* its number (2 for "tab") */
	const char *process_name;	     /* NULL: "Parent Process" */
	const struct pc_pgkb_buildid *ids;   /* build ids read from the process's memory */
	size_t nids;
	const char *version;		     /* product version ("153.7.0"), or NULL */
	const char *build_id;		     /* its build id ("20261103151912"), or NULL */
	const char *source_stamp;	     /* its source revision, or NULL */
	int start_estimated;		     /* opts' process_start_ns is an estimate */
	const struct pc_pgkb_treg *treg;     /* threads' register times, or NULL */
	size_t ntreg;
	const struct pc_pgkb_jit *jit;	     /* JIT code ranges, sorted by start, not overlapping */
	size_t njit;
	/* the [vdso] image read from the process: its mapping, build id and symbols */
	uint64_t vdso_start, vdso_end;	     /* 0, 0: none */
	const struct pc_pgkb_buildid *vdso_id; /* or NULL */
	const struct pc_pgkb_sym *vdso_syms; /* sorted by offset */
	size_t nvdso_syms;
};

int pc_pgkb_write(struct profconv_ctx *ctx, const struct pc_pgkb_parts *in,
		  const struct profconv_gecko_scrape_opts *opts, const char *out_path);

/*
 * The caller's options checked (size member; a newer caller's unknown
 * members unset) and copied into out, zero when opts is NULL.
 */
int pc_scrape_opts(struct profconv_ctx *ctx, const struct profconv_gecko_scrape_opts *opts,
		   struct profconv_gecko_scrape_opts *out);

#endif /* PC_GBUF_PACK_H */
