/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_pgkb.h - the PGKB container (docs/formats/gecko-buffer-dump.md): its
 * constants and a bounds-checked cursor over its bytes, shared by the
 * producer (gecko/gbuf_pack.c) and the reader (readers/read_gecko_buffer.c).
 * Definitions only: no state, no allocation.
 */
#ifndef PC_PGKB_H
#define PC_PGKB_H

#include "core/pc_core.h"

#define PGKB_MAGIC "PGKBUF1\0"
#define PGKB_MAJOR 1
#define PGKB_MINOR 0
#define PGKB_HEADER_SIZE 24
#define PGKB_SECTION_HEADER_SIZE 16

#define PGKB_FOURCC(a, b, c, d)                                                                 \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define PGKB_META PGKB_FOURCC('M', 'E', 'T', 'A')
#define PGKB_KIND PGKB_FOURCC('K', 'I', 'N', 'D')
#define PGKB_CATS PGKB_FOURCC('C', 'A', 'T', 'S')
#define PGKB_THRD PGKB_FOURCC('T', 'H', 'R', 'D')
#define PGKB_LIBS PGKB_FOURCC('L', 'I', 'B', 'S')
#define PGKB_STRS PGKB_FOURCC('S', 'T', 'R', 'S')
#define PGKB_CNTR PGKB_FOURCC('C', 'N', 'T', 'R')
#define PGKB_MTYP PGKB_FOURCC('M', 'T', 'Y', 'P')
#define PGKB_SRCS PGKB_FOURCC('S', 'R', 'C', 'S')
#define PGKB_PAGE PGKB_FOURCC('P', 'A', 'G', 'E')
#define PGKB_JITF PGKB_FOURCC('J', 'I', 'T', 'F')
#define PGKB_SYMS PGKB_FOURCC('S', 'Y', 'M', 'S')
#define PGKB_BUFR PGKB_FOURCC('B', 'U', 'F', 'R')
#define PGKB_CHNK PGKB_FOURCC('C', 'H', 'N', 'K')

#define PGKB_MODERN_SIZE 0xFF /* KIND: a size-prefixed (non-legacy) kind */

/* MTYP serial types */
enum pgkb_serial {
	PGKB_S_U8 = 1,
	PGKB_S_U16,
	PGKB_S_U32,
	PGKB_S_U64,
	PGKB_S_I32,
	PGKB_S_I64,
	PGKB_S_F64,
	PGKB_S_BOOL,
	PGKB_S_STR8VIEW,
	PGKB_S_STR16VIEW,
	PGKB_S_NSCSTRING,
	PGKB_S_NSSTRING,
	PGKB_S_STDSTRING,
	PGKB_S_TIMESTAMP,
	PGKB_S_DURATION,
	PGKB_S_FLOW,
	PGKB_S_OPAQUE = 255,
};

/*
 * A cursor over untrusted bytes: every getter checks what remains and, when
 * it does not suffice, latches bad and returns 0, so a caller checks once
 * after a group of reads.
 */
struct pgkb_cur {
	const unsigned char *p;
	size_t len, pos;
	int bad;
};

static inline void pgkb_cur_init(struct pgkb_cur *c, const void *p, size_t len)
{
	c->p = (const unsigned char *)p;
	c->len = len;
	c->pos = 0;
	c->bad = 0;
}

static inline size_t pgkb_left(const struct pgkb_cur *c)
{
	return c->bad ? 0 : c->len - c->pos;
}

static inline const unsigned char *pgkb_take(struct pgkb_cur *c, size_t n)
{
	const unsigned char *r;

	if (c->bad || n > c->len - c->pos) {
		c->bad = 1;
		return NULL;
	}
	r = c->p + c->pos;
	c->pos += n;
	return r;
}

static inline uint8_t pgkb_u8(struct pgkb_cur *c)
{
	const unsigned char *q = pgkb_take(c, 1);

	return q ? q[0] : 0;
}

static inline uint16_t pgkb_u16(struct pgkb_cur *c)
{
	const unsigned char *q = pgkb_take(c, 2);

	return q ? pc_load_u16(q, 0) : 0;
}

static inline uint32_t pgkb_u32(struct pgkb_cur *c)
{
	const unsigned char *q = pgkb_take(c, 4);

	return q ? pc_load_u32(q, 0) : 0;
}

static inline uint64_t pgkb_u64(struct pgkb_cur *c)
{
	const unsigned char *q = pgkb_take(c, 8);

	return q ? pc_load_u64(q, 0) : 0;
}

/* An unsigned integer of n (1, 2, 4 or 8) bytes. */
static inline uint64_t pgkb_uint(struct pgkb_cur *c, unsigned n)
{
	switch (n) {
	case 1:
		return pgkb_u8(c);
	case 2:
		return pgkb_u16(c);
	case 4:
		return pgkb_u32(c);
	case 8:
		return pgkb_u64(c);
	default:
		c->bad = 1;
		return 0;
	}
}

static inline double pgkb_f64(struct pgkb_cur *c)
{
	uint64_t v = pgkb_u64(c);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

/* ULEB128: at most 10 bytes, at most 2^64 - 1. */
static inline uint64_t pgkb_uleb(struct pgkb_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b;

		if (c->bad || c->pos >= c->len || shift > 63) {
			c->bad = 1;
			return 0;
		}
		b = c->p[c->pos++];
		if (shift == 63 && (b & 0x7e)) {
			c->bad = 1;
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
}

/* A str (uleb length + bytes): *len set, pointer into the bytes (not terminated). */
static inline const char *pgkb_str(struct pgkb_cur *c, size_t *len)
{
	uint64_t n = pgkb_uleb(c);
	const unsigned char *q;

	if (n > pgkb_left(c)) {
		c->bad = 1;
		*len = 0;
		return "";
	}
	q = pgkb_take(c, (size_t)n);
	*len = q ? (size_t)n : 0;
	return q ? (const char *)q : "";
}

#endif /* PC_PGKB_H */
