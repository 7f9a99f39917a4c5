/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_gbuf_libs.h - names for the frames of a live capture that the buffer
 * leaves as addresses (gecko/gbuf_libs.c): JIT code ranges from the JS
 * engine's own table, and the vdso image's symbols.
 */
#ifndef PC_GBUF_LIBS_H
#define PC_GBUF_LIBS_H

#include "core/pc_core.h"
#include "gecko/pc_gbuf_pack.h"

/* Reads n bytes of the target's memory at addr into dst; the bytes read. */
typedef size_t (*pc_mem_read_fn)(void *user, uint64_t addr, void *dst, size_t n);

/* A pc_mem_read_fn over a process's /proc/PID/mem: user is its int fd; the
 * bytes read from addr, fewer at an unreadable page (0: none). */
size_t pc_gbuf_fd_read(void *user, uint64_t addr, void *dst, size_t n);

/* A JitcodeGlobalEntry found in memory. */
struct pc_jit_raw {
	uint64_t start, end, sampled, rejoin;
	size_t label; /* offset into the scan's pool */
	uint32_t line, column;
	uint8_t impl, is_ic, has_label;
};

struct pc_jit_scan {
	struct profconv_ctx *ctx;
	pc_mem_read_fn read;
	void *user;
	const uint64_t *exec; /* (start, end) pairs of the executable anonymous mappings, sorted */
	size_t nexec;
	struct pc_jit_raw *raw;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	size_t dropped; /* stale copies of a range, IC stubs without their Ion code */
};

void pc_jit_scan_init(struct pc_jit_scan *s, struct profconv_ctx *ctx, pc_mem_read_fn read,
		      void *user, const uint64_t *exec, size_t nexec);
/* Every 8-byte-aligned position of p[0..len) tried as an entry (the last 80 bytes: context only). */
int pc_jit_scan_block(struct pc_jit_scan *s, const unsigned char *p, size_t len);
/* The named ranges, sorted and not overlapping (*out: pc_alloc'd; labels point into s->pool). */
int pc_jit_scan_finish(struct pc_jit_scan *s, struct pc_pgkb_jit **out, size_t *nout);
void pc_jit_scan_free(struct pc_jit_scan *s);

/* A vdso image's build id and function symbols (names point into the image). */
struct pc_vdso {
	struct pc_pgkb_buildid id;
	int has_id;
	struct pc_pgkb_sym *syms; /* pc_alloc'd, sorted by offset */
	size_t nsyms;
};
/* 0 also when the image is not a 64-bit little-endian ELF (nothing found). */
int pc_vdso_parse(struct profconv_ctx *ctx, const unsigned char *img, size_t len,
		  struct pc_vdso *out);

#ifdef __linux__
struct pc_gbuf_jit_result {
	struct pc_pgkb_jit *jit;
	size_t njit, dropped, exec_regions;
	char *pool; /* the labels */
};
/* The JIT table of the process whose memory is open at mem (its maps text given). */
int pc_gbuf_read_jit(struct profconv_ctx *ctx, int mem, const char *maps,
		     struct pc_gbuf_jit_result *res);
void pc_gbuf_jit_free(struct profconv_ctx *ctx, struct pc_gbuf_jit_result *res);

struct pc_gbuf_vdso_result {
	uint64_t start, end; /* the [vdso] mapping; 0, 0: none */
	unsigned char *image;
	size_t len;
	struct pc_vdso vdso;
};
int pc_gbuf_read_vdso(struct profconv_ctx *ctx, int mem, const char *maps,
		      struct pc_gbuf_vdso_result *res);
void pc_gbuf_vdso_free(struct profconv_ctx *ctx, struct pc_gbuf_vdso_result *res);
#endif

#endif /* PC_GBUF_LIBS_H */
