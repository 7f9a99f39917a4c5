/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cfi.c - DWARF call frame information: FDE lookup, the CFA program, rule
 * evaluation (see pc_cfi.h).
 *
 * Formats: DWARF 5 §6.4 (Call Frame Information) for .debug_frame; the
 * Linux Standard Base Core spec §10.6 (.eh_frame: CIE id 0, the CIE pointer
 * relative to itself, 'z' augmentation data with pointer encodings) and
 * §10.6.2 (.eh_frame_hdr: the binary search table).  Checked against what
 * gcc 12 and glibc 2.36 emit (docs/formats/perf-data.md, "Unwinding").
 *
 * Why a parser of our own and not libdwarf's frame API: libdwarf is entered
 * by one thread at a time in this project (it is not thread-safe), it copies
 * and validates whole sections on open, and its per-address query allocates;
 * the unwinder asks a few rows per sample, hundreds of thousands of times.
 * This file keeps the .eh_frame_hdr table as it is in the file (no copy), parses
 * one FDE per new address and caches rows.  Measured (bench/bench_cfi.sh,
 * docs/formats/perf-data.md §5.1): 1.6 to 5.5 times faster per frame than
 * libdwarf's lookup alone, 30 to 80 times faster to open.
 */
#include "core/pc_config.h"

#include <stdlib.h>
#include <string.h>

#include "symbolicate/pc_cfi.h"

/* --- caps: hostile CFI ends the step, never loops or recurses deeply --- */
#define MAX_INSNS	 4096 /* CFA instructions run for one row */
#define MAX_EXPR_OPS	 1024 /* expression operations for one value */
#define EXPR_STACK	 64
#define REMEMBER_DEPTH	 16
#define ROW_CACHE	 256 /* rows per binary, two-way (about 850 bytes each) */
#define MAX_FDES	 (1u << 24)

/* DW_EH_PE pointer encodings */
enum {
	PE_ABSPTR = 0x00,
	PE_ULEB128 = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

enum rule_kind {
	R_SAME = 0, /* no rule, or DW_CFA_same_value: the value is unchanged */
	R_UNDEF,
	R_OFFSET,     /* saved at CFA + off */
	R_VAL_OFFSET, /* the value is CFA + off */
	R_REGISTER,   /* the value is in register reg */
	R_EXPR,	      /* saved at the address the expression gives */
	R_VAL_EXPR,   /* the value is what the expression gives */
};

struct rule {
	uint8_t kind;
	uint8_t reg;
	uint32_t len;		  /* expression length */
	int64_t off;
	const unsigned char *expr;
};

struct cfa {
	uint8_t is_expr;
	uint8_t reg;
	uint32_t len;
	int64_t off;
	const unsigned char *expr;
};

struct state {
	struct cfa cfa;
	struct rule r[PC_CFI_NREGS];
	uint8_t ra_mangled; /* aarch64: DW_CFA_AARCH64_negate_ra_state seen an odd number of times */
};

struct row {
	uint64_t svma; /* UINT64_MAX: empty */
	uint64_t ruled; /* bit n: register n has a rule other than R_SAME */
	struct state st;
	uint8_t ra;
	uint8_t signal;
	int8_t result; /* 0: usable, else a PC_CFI_* error to return */
	uint8_t lru;   /* 1: the other way of its pair was used more recently */
};

struct fde_ent {
	uint64_t start, end;
	uint32_t off; /* of the FDE in its section */
	uint8_t debug;	/* in .debug_frame */
};

struct pc_cfi {
	struct profconv_ctx *ctx;
	struct pc_cfi_sections s;
	enum pc_arch arch;
	uint8_t sp_reg;
	/* .eh_frame_hdr's table, used in place (datarel sdata4 pairs) */
	const unsigned char *hdr_table;
	uint64_t hdr_count;
	/* otherwise, and for .debug_frame: every FDE, sorted by start */
	struct fde_ent *fdes;
	uint32_t nfdes;
	struct row *rows; /* ROW_CACHE, allocated on the first step */
};

/* --- a bounds-checked cursor --- */

struct cur {
	const unsigned char *p, *end;
	int swap;
	int bad;
};

static uint8_t u8(struct cur *c)
{
	if (c->bad || c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

static uint64_t fixed(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || c->p > c->end || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	if (n == 2)
		v = pc_load_u16(c->p, c->swap);
	else if (n == 4)
		v = pc_load_u32(c->p, c->swap);
	else if (n == 8)
		v = pc_load_u64(c->p, c->swap);
	else if (n == 1)
		v = *c->p;
	c->p += n;
	return v;
}

/* The bits of a LEB128 number; *shift and *last tell where it ended (for a sign). */
static uint64_t leb_bits(struct cur *c, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		b = u8(c);
		if (*shift < 64)
			v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while ((b & 0x80) && !c->bad);
	*last = b;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	unsigned shift;
	uint8_t last;

	return leb_bits(c, &shift, &last);
}

static int64_t sleb(struct cur *c)
{
	unsigned shift;
	uint8_t last;
	uint64_t v = leb_bits(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/*
 * An encoded pointer.  here: the address of the field (for pcrel); data:
 * the datarel base.  Indirect pointers (a load from the process) are not
 * followed: they only appear for personality routines, which are skipped.
 */
static uint64_t encoded(struct cur *c, uint8_t enc, uint64_t here, uint64_t data, unsigned addr_size)
{
	uint64_t v;

	if (enc == PE_OMIT)
		return 0;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
		v = fixed(c, addr_size);
		break;
	case PE_ULEB128:
		v = uleb(c);
		break;
	case PE_UDATA2:
		v = fixed(c, 2);
		break;
	case PE_UDATA4:
		v = fixed(c, 4);
		break;
	case PE_UDATA8:
		v = fixed(c, 8);
		break;
	case PE_SLEB128:
		v = (uint64_t)sleb(c);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)fixed(c, 2);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)fixed(c, 4);
		break;
	case PE_SDATA8:
		v = fixed(c, 8);
		break;
	default:
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		v += here;
		break;
	case PE_DATAREL:
		v += data;
		break;
	default: /* textrel, funcrel, aligned: not emitted for x86_64 or aarch64 */
		c->bad = 1;
		return 0;
	}
	return v;
}

/* The size in bytes of an encoding's value (0 for the LEB128 forms and errors). */
static unsigned enc_size(uint8_t enc, unsigned addr_size)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
		return addr_size;
	case PE_UDATA2:
	case PE_SDATA2:
		return 2;
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	default:
		return 0;
	}
}

/* --- CIEs and FDEs --- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	uint8_t has_z;
	uint8_t signal;
	uint8_t addr_size;
	const unsigned char *insns, *insns_end;
};

struct fde {
	struct cie cie;
	uint64_t start, end;
	const unsigned char *insns, *insns_end;
};

/*
 * An entry's length and id at off of a section.  Returns 0 with *body (after
 * the id), *next (the following entry), *id_pos and *id; 1 for the
 * terminator (length 0); -1 when malformed.
 */
static int entry_header(const unsigned char *sec, uint64_t size, uint64_t off, int swap,
			int debug, const unsigned char **body, uint64_t *next, uint64_t *id_pos,
			uint64_t *id, int *dwarf64)
{
	struct cur c = { sec + off, sec + size, swap, 0 };
	uint64_t len;

	if (off >= size)
		return -1;
	len = fixed(&c, 4);
	*dwarf64 = 0;
	if (len == 0xffffffffu) {
		len = fixed(&c, 8);
		*dwarf64 = 1;
	}
	if (c.bad)
		return -1;
	if (len == 0)
		return debug ? -1 : 1;
	/* the length covers the id: one shorter than that would put the body
	 * past the entry's end (issue 22 item 1) */
	if (len < (*dwarf64 ? 8u : 4u) || len > (uint64_t)(c.end - c.p))
		return -1;
	*next = (uint64_t)(c.p - sec) + len;
	*id_pos = (uint64_t)(c.p - sec);
	*id = fixed(&c, *dwarf64 ? 8 : 4);
	if (c.bad)
		return -1;
	*body = c.p;
	return 0;
}

static int is_cie_id(uint64_t id, int debug, int dwarf64)
{
	if (!debug)
		return id == 0;
	return dwarf64 ? id == UINT64_MAX : id == 0xffffffffu;
}

static int parse_cie(const struct pc_cfi *cf, int debug, uint64_t off, struct cie *out)
{
	const unsigned char *sec = debug ? cf->s.debug_frame : cf->s.eh_frame;
	uint64_t size = debug ? cf->s.debug_frame_size : cf->s.eh_frame_size;
	const unsigned char *body, *aug;
	uint64_t next, id_pos, id, alen = 0;
	struct cur c;
	uint8_t version;
	int d64;

	if (entry_header(sec, size, off, cf->s.swap, debug, &body, &next, &id_pos, &id, &d64) != 0 ||
	    !is_cie_id(id, debug, d64))
		return -1;
	memset(out, 0, sizeof(*out));
	out->addr_size = 8;
	out->fde_enc = PE_ABSPTR;
	c.p = body;
	c.end = sec + next;
	c.swap = cf->s.swap;
	c.bad = 0;
	version = u8(&c);
	if (version != 1 && version != 3 && version != 4)
		return -1;
	aug = c.p;
	while (u8(&c) != 0 && !c.bad)
		;
	if (c.bad)
		return -1;
	if (version == 4) {
		out->addr_size = u8(&c);
		if (u8(&c) != 0 || (out->addr_size != 4 && out->addr_size != 8))
			return -1; /* segment selectors are not supported */
	}
	out->code_align = uleb(&c);
	out->data_align = sleb(&c);
	out->ra = version == 1 ? u8(&c) : uleb(&c);
	if (c.bad)
		return -1;
	if (aug[0] == 'z') {
		const unsigned char *adata_end;
		const unsigned char *a;

		out->has_z = 1;
		alen = uleb(&c);
		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return -1;
		adata_end = c.p + alen;
		for (a = aug + 1; *a; a++) {
			if (*a == 'R') {
				out->fde_enc = u8(&c);
			} else if (*a == 'P') {
				uint8_t penc = u8(&c);
				unsigned n = enc_size(penc, out->addr_size);

				if (n && (size_t)n > (size_t)(c.end - c.p))
					return -1;
				if (n)
					c.p += n;
				else
					(void)uleb(&c);
			} else if (*a == 'L') {
				(void)u8(&c);
			} else if (*a == 'S') {
				out->signal = 1;
			} else if (*a == 'B' || *a == 'G') {
				/* aarch64 BTI / MTE marks: no data */
			} else {
				break; /* unknown: the 'z' length skips the rest */
			}
			if (c.bad)
				return -1;
		}
		c.p = adata_end;
	} else if (aug[0] == 'e' && aug[1] == 'h') {
		(void)fixed(&c, out->addr_size); /* old gcc's EH data pointer */
	} else if (aug[0] != 0) {
		return -1; /* unknown augmentation without a length: cannot parse */
	}
	if (c.bad || c.p > c.end)
		return -1;
	out->insns = c.p;
	out->insns_end = c.end;
	return 0;
}

/* The FDE at off: its CIE, range and instructions. 0, or -1 when malformed. */
static int parse_fde(const struct pc_cfi *cf, int debug, uint64_t off, struct fde *out)
{
	const unsigned char *sec = debug ? cf->s.debug_frame : cf->s.eh_frame;
	uint64_t size = debug ? cf->s.debug_frame_size : cf->s.eh_frame_size;
	uint64_t sec_addr = debug ? 0 : cf->s.eh_frame_addr;
	const unsigned char *body;
	uint64_t next, id_pos, id, cie_off, range;
	struct cur c;
	uint8_t enc;
	int d64;

	if (entry_header(sec, size, off, cf->s.swap, debug, &body, &next, &id_pos, &id, &d64) != 0 ||
	    is_cie_id(id, debug, d64))
		return -1;
	if (debug) {
		cie_off = id;
	} else {
		if (id > id_pos)
			return -1;
		cie_off = id_pos - id;
	}
	if (cie_off >= size || parse_cie(cf, debug, cie_off, &out->cie) != 0)
		return -1;
	c.p = body;
	c.end = sec + next;
	c.swap = cf->s.swap;
	c.bad = 0;
	enc = debug && !out->cie.has_z ? PE_ABSPTR : out->cie.fde_enc;
	out->start = encoded(&c, enc, sec_addr + (uint64_t)(c.p - sec), 0, out->cie.addr_size);
	range = encoded(&c, (uint8_t)(enc & 0x0f), 0, 0, out->cie.addr_size);
	if (c.bad)
		return -1;
	out->end = out->start + range;
	if (out->end < out->start)
		out->end = UINT64_MAX;
	if (out->cie.has_z) {
		uint64_t alen = uleb(&c);

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return -1;
		c.p += alen;
	}
	out->insns = c.p;
	out->insns_end = c.end;
	return 0;
}

/* --- the index --- */

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->debug != y->debug)
		return x->debug < y->debug ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Every FDE of a section into cf->fdes. */
static int index_section(struct pc_cfi *cf, int debug)
{
	const unsigned char *sec = debug ? cf->s.debug_frame : cf->s.eh_frame;
	uint64_t size = debug ? cf->s.debug_frame_size : cf->s.eh_frame_size;
	uint64_t off = 0;
	uint32_t cap = cf->nfdes;

	while (off < size && off <= UINT32_MAX) {
		const unsigned char *body;
		uint64_t next, id_pos, id;
		struct fde f;
		int d64, r = entry_header(sec, size, off, cf->s.swap, debug, &body, &next, &id_pos,
					  &id, &d64);

		if (r != 0)
			break; /* the terminator, or damage: what came before stays */
		if (!is_cie_id(id, debug, d64) && parse_fde(cf, debug, off, &f) == 0 &&
		    f.end > f.start) {
			if (cf->nfdes >= MAX_FDES)
				break;
			if (pc_grow(cf->ctx, (void **)&cf->fdes, sizeof(*cf->fdes), &cap,
				    (size_t)cf->nfdes + 1))
				return PROFCONV_ERR_NOMEM;
			cf->fdes[cf->nfdes].start = f.start;
			cf->fdes[cf->nfdes].end = f.end;
			cf->fdes[cf->nfdes].off = (uint32_t)off;
			cf->fdes[cf->nfdes].debug = (uint8_t)debug;
			cf->nfdes++;
		}
		off = next;
	}
	return 0;
}

/* Use .eh_frame_hdr's table when it is the usual datarel sdata4 form and fits. */
static void use_hdr(struct pc_cfi *cf)
{
	const unsigned char *h = cf->s.eh_frame_hdr;
	struct cur c;
	uint8_t version, ptr_enc, count_enc, table_enc;
	uint64_t count;

	if (!h || cf->s.eh_frame_hdr_size < 4)
		return;
	c.p = h;
	c.end = h + cf->s.eh_frame_hdr_size;
	c.swap = cf->s.swap;
	c.bad = 0;
	version = u8(&c);
	ptr_enc = u8(&c);
	count_enc = u8(&c);
	table_enc = u8(&c);
	if (version != 1 || table_enc != (PE_DATAREL | PE_SDATA4) || count_enc == PE_OMIT)
		return;
	(void)encoded(&c, ptr_enc, cf->s.eh_frame_hdr_addr + (uint64_t)(c.p - h),
		      cf->s.eh_frame_hdr_addr, 8);
	count = encoded(&c, count_enc, cf->s.eh_frame_hdr_addr + (uint64_t)(c.p - h),
			cf->s.eh_frame_hdr_addr, 8);
	if (c.bad || count > (uint64_t)(c.end - c.p) / 8)
		return;
	cf->hdr_table = c.p;
	cf->hdr_count = count;
}

int pc_cfi_new(struct profconv_ctx *ctx, const struct pc_cfi_sections *s, enum pc_arch arch,
	       struct pc_cfi **out)
{
	struct pc_cfi *cf = pc_calloc(ctx, 1, sizeof(*cf));
	int err = 0;

	*out = NULL;
	if (!cf)
		return PROFCONV_ERR_NOMEM;
	cf->ctx = ctx;
	cf->s = *s;
	cf->arch = arch;
	cf->sp_reg = arch == PC_ARCH_AARCH64 ? 31 : 7;
	if (cf->s.eh_frame) {
		use_hdr(cf);
		if (!cf->hdr_table)
			err = index_section(cf, 0);
	}
	if (!err && cf->s.debug_frame)
		err = index_section(cf, 1);
	if (err) {
		pc_cfi_free(cf);
		return err;
	}
	if (cf->nfdes > 1)
		qsort(cf->fdes, cf->nfdes, sizeof(*cf->fdes), cmp_fde);
	*out = cf;
	return 0;
}

void pc_cfi_free(struct pc_cfi *c)
{
	if (!c)
		return;
	pc_free(c->ctx, c->fdes);
	pc_free(c->ctx, c->rows);
	pc_free(c->ctx, c);
}

uint64_t pc_cfi_fde_count(const struct pc_cfi *c)
{
	return c->hdr_count + c->nfdes;
}

/* The FDE covering svma: from the hdr table, else the sorted index. */
static int find_fde(const struct pc_cfi *cf, uint64_t svma, struct fde *out)
{
	if (cf->hdr_table && cf->hdr_count) {
		uint64_t lo = 0, hi = cf->hdr_count, base = cf->s.eh_frame_hdr_addr;

		/* the last entry whose start is <= svma */
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;
			uint64_t start = base + (uint64_t)(int64_t)(int32_t)pc_load_u32(
							cf->hdr_table + 8 * mid, cf->s.swap);

			if (start <= svma)
				lo = mid;
			else
				hi = mid;
		}
		{
			uint64_t start = base + (uint64_t)(int64_t)(int32_t)pc_load_u32(
							cf->hdr_table + 8 * lo, cf->s.swap);
			uint64_t fde = base + (uint64_t)(int64_t)(int32_t)pc_load_u32(
						      cf->hdr_table + 8 * lo + 4, cf->s.swap);

			if (start <= svma && fde >= cf->s.eh_frame_addr &&
			    fde - cf->s.eh_frame_addr < cf->s.eh_frame_size &&
			    parse_fde(cf, 0, fde - cf->s.eh_frame_addr, out) == 0 &&
			    out->start <= svma && svma < out->end)
				return 0;
		}
	}
	if (cf->nfdes) {
		uint32_t lo = 0, hi = cf->nfdes;

		/* the first entry whose start is > svma */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (cf->fdes[mid].start <= svma)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* entries may overlap (both sections): try the nearest few */
		for (hi = lo; hi > 0 && lo - hi < 8; hi--) {
			const struct fde_ent *e = &cf->fdes[hi - 1];

			if (svma < e->end && parse_fde(cf, e->debug, e->off, out) == 0 &&
			    out->start <= svma && svma < out->end)
				return 0;
		}
	}
	return -1;
}

/* --- the CFA program --- */

/* v * factor in two's complement: hostile factors wrap instead of overflowing. */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

static int set_rule(struct state *st, uint64_t reg, uint8_t kind, int64_t off, uint8_t from,
		    const unsigned char *expr, uint32_t len)
{
	if (reg >= PC_CFI_NREGS)
		return 0; /* registers we do not track (vector, ...) */
	st->r[reg].kind = kind;
	st->r[reg].off = off;
	st->r[reg].reg = from;
	st->r[reg].expr = expr;
	st->r[reg].len = len;
	return 0;
}

/*
 * Run instructions [p, end) from loc until an advance passes target.
 * init: the state after the CIE's instructions (for DW_CFA_restore), or NULL
 * while running those.  Returns 0, or -1 when malformed.
 */
static int run_cfa(const struct pc_cfi *cf, const struct cie *cie, const unsigned char *p,
		   const unsigned char *end, uint64_t loc, uint64_t target, struct state *st,
		   const struct state *init, unsigned *budget)
{
	struct cur c = { p, end, cf->s.swap, 0 };
	struct state stack[REMEMBER_DEPTH];
	unsigned depth = 0;

	while (c.p < c.end) {
		uint8_t op = u8(&c), low = op & 0x3f;
		uint64_t reg, delta = 0;
		int64_t off;

		if ((*budget)-- == 0)
			return -1;
		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			delta = low;
			goto advance;
		case 2: /* DW_CFA_offset */
			off = scaled(uleb(&c), cie->data_align);
			set_rule(st, low, R_OFFSET, off, 0, NULL, 0);
			continue;
		case 3: /* DW_CFA_restore */
			if (!init)
				return -1;
			if (low < PC_CFI_NREGS)
				st->r[low] = init->r[low];
			continue;
		default:
			break;
		}
		switch (op) {
		case 0x00: /* nop */
			break;
		case 0x01: { /* set_loc */
			uint64_t nloc = encoded(&c, cie->fde_enc, 0, 0, cie->addr_size);

			if (c.bad)
				return -1;
			if (nloc > target)
				return 0;
			loc = nloc;
			break;
		}
		case 0x02:
			delta = fixed(&c, 1);
			goto advance;
		case 0x03:
			delta = fixed(&c, 2);
			goto advance;
		case 0x04:
			delta = fixed(&c, 4);
			goto advance;
		case 0x05: /* offset_extended */
			reg = uleb(&c);
			off = scaled(uleb(&c), cie->data_align);
			set_rule(st, reg, R_OFFSET, off, 0, NULL, 0);
			break;
		case 0x06: /* restore_extended */
			reg = uleb(&c);
			if (!init)
				return -1;
			if (reg < PC_CFI_NREGS)
				st->r[reg] = init->r[reg];
			break;
		case 0x07: /* undefined */
			set_rule(st, uleb(&c), R_UNDEF, 0, 0, NULL, 0);
			break;
		case 0x08: /* same_value */
			set_rule(st, uleb(&c), R_SAME, 0, 0, NULL, 0);
			break;
		case 0x09: { /* register */
			uint64_t r2;

			reg = uleb(&c);
			r2 = uleb(&c);
			if (r2 >= PC_CFI_NREGS) {
				set_rule(st, reg, R_UNDEF, 0, 0, NULL, 0);
				break;
			}
			set_rule(st, reg, R_REGISTER, 0, (uint8_t)r2, NULL, 0);
			break;
		}
		case 0x0a: /* remember_state */
			if (depth >= REMEMBER_DEPTH)
				return -1;
			stack[depth++] = *st;
			break;
		case 0x0b: /* restore_state: every rule, the CFA's too (as libgcc and
			    * LLVM's libunwind do) */
			if (depth == 0)
				return -1;
			*st = stack[--depth];
			break;
		case 0x0c: /* def_cfa */
			reg = uleb(&c);
			off = (int64_t)uleb(&c);
			goto def_cfa;
		case 0x0d: /* def_cfa_register */
			reg = uleb(&c);
			if (st->cfa.is_expr)
				return -1;
			off = st->cfa.off;
			goto def_cfa;
		case 0x0e: /* def_cfa_offset */
			if (st->cfa.is_expr)
				return -1;
			st->cfa.off = (int64_t)uleb(&c);
			break;
		case 0x0f: { /* def_cfa_expression */
			uint64_t n = uleb(&c);

			if (c.bad || n > (uint64_t)(c.end - c.p))
				return -1;
			st->cfa.is_expr = 1;
			st->cfa.expr = c.p;
			st->cfa.len = (uint32_t)n;
			c.p += n;
			break;
		}
		case 0x10:   /* expression */
		case 0x16: { /* val_expression */
			uint64_t n;

			reg = uleb(&c);
			n = uleb(&c);
			if (c.bad || n > (uint64_t)(c.end - c.p))
				return -1;
			set_rule(st, reg, op == 0x10 ? R_EXPR : R_VAL_EXPR, 0, 0, c.p, (uint32_t)n);
			c.p += n;
			break;
		}
		case 0x11: /* offset_extended_sf */
			reg = uleb(&c);
			off = scaled((uint64_t)sleb(&c), cie->data_align);
			set_rule(st, reg, R_OFFSET, off, 0, NULL, 0);
			break;
		case 0x12: /* def_cfa_sf */
			reg = uleb(&c);
			off = scaled((uint64_t)sleb(&c), cie->data_align);
			goto def_cfa;
		case 0x13: /* def_cfa_offset_sf */
			if (st->cfa.is_expr)
				return -1;
			st->cfa.off = scaled((uint64_t)sleb(&c), cie->data_align);
			break;
		case 0x14: /* val_offset */
			reg = uleb(&c);
			off = scaled(uleb(&c), cie->data_align);
			set_rule(st, reg, R_VAL_OFFSET, off, 0, NULL, 0);
			break;
		case 0x15: /* val_offset_sf */
			reg = uleb(&c);
			off = scaled((uint64_t)sleb(&c), cie->data_align);
			set_rule(st, reg, R_VAL_OFFSET, off, 0, NULL, 0);
			break;
		case 0x2d: /* GNU_window_save; on aarch64 AARCH64_negate_ra_state */
			if (cf->arch != PC_ARCH_AARCH64)
				return -1; /* SPARC register windows */
			st->ra_mangled ^= 1;
			break;
		case 0x2e: /* GNU_args_size */
			(void)uleb(&c);
			break;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(&c);
			off = scaled(0 - uleb(&c), cie->data_align);
			set_rule(st, reg, R_OFFSET, off, 0, NULL, 0);
			break;
		default:
			return -1;
		}
		if (c.bad)
			return -1;
		continue;
def_cfa:
		if (c.bad || reg >= PC_CFI_NREGS)
			return -1;
		st->cfa.is_expr = 0;
		st->cfa.reg = (uint8_t)reg;
		st->cfa.off = off;
		continue;
advance:
		if (c.bad)
			return -1;
		if (cie->code_align && delta > (UINT64_MAX - loc) / cie->code_align)
			return 0;
		loc += delta * cie->code_align;
		if (loc > target)
			return 0;
	}
	return c.bad ? -1 : 0;
}

/* The row at svma, computed or from the cache. */
static const struct row *get_row(struct pc_cfi *cf, uint64_t svma)
{
	struct row *rw;
	struct fde f;
	struct state init;
	unsigned budget = MAX_INSNS;

	if (!cf->rows) {
		uint32_t i;

		cf->rows = pc_alloc(cf->ctx, ROW_CACHE * sizeof(*cf->rows));
		if (!cf->rows)
			return NULL;
		for (i = 0; i < ROW_CACHE; i++) {
			cf->rows[i].svma = UINT64_MAX;
			cf->rows[i].lru = (uint8_t)(i & 1);
		}
	}
	{
		/* two ways: an even slot and its neighbour; a new row replaces the
		 * one of the pair used less recently (lru 1) */
		uint32_t h = (uint32_t)(pc_hash64(svma) >> 40) & (ROW_CACHE - 2);

		if (cf->rows[h].svma == svma) {
			cf->rows[h].lru = 0;
			cf->rows[h + 1].lru = 1;
			return &cf->rows[h];
		}
		if (cf->rows[h + 1].svma == svma) {
			cf->rows[h + 1].lru = 0;
			cf->rows[h].lru = 1;
			return &cf->rows[h + 1];
		}
		rw = cf->rows[h].lru ? &cf->rows[h] : &cf->rows[h + 1];
		cf->rows[h].lru = rw != &cf->rows[h];
		cf->rows[h + 1].lru = rw == &cf->rows[h];
	}
	rw->svma = svma;
	rw->result = 0;
	if (find_fde(cf, svma, &f) != 0) {
		rw->result = PC_CFI_NO_FDE;
		return rw;
	}
	if (f.cie.ra >= PC_CFI_NREGS) {
		rw->result = PC_CFI_BAD;
		return rw;
	}
	memset(&init, 0, sizeof(init));
	init.cfa.reg = cf->sp_reg;
	if (run_cfa(cf, &f.cie, f.cie.insns, f.cie.insns_end, 0, UINT64_MAX, &init, NULL, &budget) !=
	    0) {
		rw->result = PC_CFI_BAD;
		return rw;
	}
	rw->st = init;
	if (run_cfa(cf, &f.cie, f.insns, f.insns_end, f.start, svma, &rw->st, &init, &budget) != 0) {
		rw->result = PC_CFI_BAD;
		return rw;
	}
	rw->ra = (uint8_t)f.cie.ra;
	rw->signal = f.cie.signal;
	rw->ruled = 0;
	{
		unsigned i;

		for (i = 0; i < PC_CFI_NREGS; i++)
			if (rw->st.r[i].kind != R_SAME)
				rw->ruled |= 1ull << i;
	}
	return rw;
}

/* --- evaluation --- */

struct eval {
	const struct pc_cfi *cf;
	const struct pc_cfi_regs *regs;
	pc_cfi_read_fn *read;
	void *user;
};

static int get_reg(const struct eval *ev, uint64_t reg, uint64_t *v)
{
	if (reg >= PC_CFI_NREGS || !(ev->regs->valid & (1ull << reg)))
		return PC_CFI_NO_REG;
	*v = ev->regs->r[reg];
	return 0;
}

/* A DWARF expression (the subset CFI uses); push: the CFA pushed first, or NULL. */
static int eval_expr(const struct eval *ev, const unsigned char *e, uint32_t len,
		     const uint64_t *push, uint64_t *out)
{
	struct cur c = { e, e + len, ev->cf->s.swap, 0 };
	uint64_t st[EXPR_STACK];
	unsigned n = 0, ops = 0;
	int r;

#define NEED(k)                                                                                    \
	do {                                                                                       \
		if (n < (k))                                                                       \
			return PC_CFI_BAD;                                                         \
	} while (0)
#define PUSH(v)                                                                                    \
	do {                                                                                       \
		uint64_t pushed_ = (v);                                                            \
		if (n >= EXPR_STACK)                                                               \
			return PC_CFI_BAD;                                                         \
		st[n] = pushed_;                                                                   \
		n++;                                                                               \
	} while (0)

	if (push)
		PUSH(*push);
	while (c.p < c.end) {
		uint8_t op = u8(&c);
		uint64_t a, b, v;

		if (++ops > MAX_EXPR_OPS)
			return PC_CFI_BAD;
		if (op >= 0x30 && op <= 0x4f) { /* lit0..31 */
			PUSH((uint64_t)(op - 0x30));
			continue;
		}
		if (op >= 0x50 && op <= 0x6f) { /* reg0..31: a register location, not a value */
			return PC_CFI_BAD;
		}
		if (op >= 0x70 && op <= 0x8f) { /* breg0..31 */
			int64_t o = sleb(&c);

			r = get_reg(ev, op - 0x70u, &v);
			if (r)
				return r;
			PUSH(v + (uint64_t)o);
			continue;
		}
		switch (op) {
		case 0x06: /* deref */
			NEED(1);
			if (ev->read(ev->user, st[n - 1], &v))
				return PC_CFI_MEMORY;
			st[n - 1] = v;
			break;
		case 0x94: { /* deref_size */
			uint8_t sz = u8(&c);

			NEED(1);
			if (sz == 0 || sz > 8 || ev->read(ev->user, st[n - 1], &v))
				return PC_CFI_MEMORY;
			if (sz < 8)
				v &= (1ull << (8 * sz)) - 1; /* little-endian targets */
			st[n - 1] = v;
			break;
		}
		case 0x08: PUSH(fixed(&c, 1)); break;
		case 0x09: PUSH((uint64_t)(int64_t)(int8_t)fixed(&c, 1)); break;
		case 0x0a: PUSH(fixed(&c, 2)); break;
		case 0x0b: PUSH((uint64_t)(int64_t)(int16_t)fixed(&c, 2)); break;
		case 0x0c: PUSH(fixed(&c, 4)); break;
		case 0x0d: PUSH((uint64_t)(int64_t)(int32_t)fixed(&c, 4)); break;
		case 0x0e:
		case 0x0f: PUSH(fixed(&c, 8)); break;
		case 0x10: PUSH(uleb(&c)); break;
		case 0x11: PUSH((uint64_t)sleb(&c)); break;
		case 0x12: NEED(1); PUSH(st[n - 1]); break; /* dup */
		case 0x13: NEED(1); n--; break;		    /* drop */
		case 0x14: NEED(2); PUSH(st[n - 2]); break; /* over */
		case 0x15: {				    /* pick */
			uint8_t i = u8(&c);

			NEED((unsigned)i + 1);
			PUSH(st[n - 1 - i]);
			break;
		}
		case 0x16: /* swap */
			NEED(2);
			a = st[n - 1];
			st[n - 1] = st[n - 2];
			st[n - 2] = a;
			break;
		case 0x17: /* rot */
			NEED(3);
			a = st[n - 1];
			st[n - 1] = st[n - 2];
			st[n - 2] = st[n - 3];
			st[n - 3] = a;
			break;
		case 0x19: NEED(1); st[n - 1] = (int64_t)st[n - 1] < 0 ? -st[n - 1] : st[n - 1]; break;
		case 0x1f: NEED(1); st[n - 1] = -st[n - 1]; break;
		case 0x20: NEED(1); st[n - 1] = ~st[n - 1]; break;
		case 0x23: NEED(1); st[n - 1] += uleb(&c); break; /* plus_uconst */
		case 0x1a: case 0x1b: case 0x1c: case 0x1d: case 0x1e: case 0x21: case 0x22:
		case 0x24: case 0x25: case 0x26: case 0x27:
		case 0x29: case 0x2a: case 0x2b: case 0x2c: case 0x2d: case 0x2e:
			NEED(2);
			b = st[--n];
			a = st[n - 1];
			switch (op) {
			case 0x1a: v = a & b; break;
			case 0x1b: /* div (signed) */
				if (b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
					return PC_CFI_BAD;
				v = (uint64_t)((int64_t)a / (int64_t)b);
				break;
			case 0x1c: v = a - b; break;
			case 0x1d:
				if (b == 0)
					return PC_CFI_BAD;
				v = a % b;
				break;
			case 0x1e: v = a * b; break;
			case 0x21: v = a | b; break;
			case 0x22: v = a + b; break;
			case 0x24: v = b >= 64 ? 0 : a << b; break;
			case 0x25: v = b >= 64 ? 0 : a >> b; break;
			case 0x26: /* shra */
				v = b >= 64 ? ((int64_t)a < 0 ? UINT64_MAX : 0)
					    : (uint64_t)((int64_t)a >> b);
				break;
			case 0x27: v = a ^ b; break;
			case 0x29: v = a == b; break;
			case 0x2a: v = (int64_t)a >= (int64_t)b; break;
			case 0x2b: v = (int64_t)a > (int64_t)b; break;
			case 0x2c: v = (int64_t)a <= (int64_t)b; break;
			case 0x2d: v = (int64_t)a < (int64_t)b; break;
			default:   v = a != b; break;
			}
			st[n - 1] = v;
			break;
		case 0x28:   /* bra */
		case 0x2f: { /* skip */
			int16_t d = (int16_t)fixed(&c, 2);
			int take = 1;

			if (op == 0x28) {
				NEED(1);
				take = st[--n] != 0;
			}
			if (take) {
				if ((d < 0 && (size_t)-d > (size_t)(c.p - e)) ||
				    (d > 0 && (size_t)d > (size_t)(c.end - c.p)))
					return PC_CFI_BAD;
				c.p += d;
			}
			break;
		}
		case 0x92: { /* bregx */
			uint64_t reg = uleb(&c);
			int64_t o = sleb(&c);

			r = get_reg(ev, reg, &v);
			if (r)
				return r;
			PUSH(v + (uint64_t)o);
			break;
		}
		case 0x96: /* nop */
			break;
		default:
			return PC_CFI_BAD; /* addr (needs the load bias), call, piece, ... */
		}
		if (c.bad)
			return PC_CFI_BAD;
	}
#undef NEED
#undef PUSH
	if (c.bad || n == 0)
		return PC_CFI_BAD;
	*out = st[n - 1];
	return 0;
}

int pc_cfi_step(struct pc_cfi *cf, uint64_t svma, struct pc_cfi_regs *regs, pc_cfi_read_fn *read,
		void *user)
{
	const struct row *rw = get_row(cf, svma);
	struct eval ev = { cf, regs, read, user };
	struct pc_cfi_regs out;
	uint64_t cfa, v, ruled;
	unsigned i;
	int r;

	if (!rw)
		return PC_CFI_BAD; /* out of memory: ends this chain (the ctx holds the error) */
	if (rw->result)
		return rw->result;
	if (rw->st.cfa.is_expr) {
		r = eval_expr(&ev, rw->st.cfa.expr, rw->st.cfa.len, NULL, &cfa);
		if (r)
			return r;
	} else {
		r = get_reg(&ev, rw->st.cfa.reg, &v);
		if (r)
			return r;
		cfa = v + (uint64_t)rw->st.cfa.off;
	}
	if (rw->st.r[rw->ra].kind == R_UNDEF)
		return PC_CFI_END;
	out = *regs;
	for (ruled = rw->ruled; ruled; ruled &= ruled - 1) {
		const struct rule *ru;

		i = (unsigned)__builtin_ctzll(ruled);
		ru = &rw->st.r[i];
		switch (ru->kind) {
		case R_SAME:
			continue;
		case R_UNDEF:
			out.valid &= ~(1ull << i);
			continue;
		case R_OFFSET:
			r = read(user, cfa + (uint64_t)ru->off, &v) ? PC_CFI_MEMORY : 0;
			break;
		case R_VAL_OFFSET:
			v = cfa + (uint64_t)ru->off;
			r = 0;
			break;
		case R_REGISTER:
			r = get_reg(&ev, ru->reg, &v);
			break;
		case R_EXPR:
			r = eval_expr(&ev, ru->expr, ru->len, &cfa, &v);
			if (!r && read(user, v, &v))
				r = PC_CFI_MEMORY;
			break;
		default: /* R_VAL_EXPR */
			r = eval_expr(&ev, ru->expr, ru->len, &cfa, &v);
			break;
		}
		if (r) {
			/*
			 * Only the return address must be recovered.  Another
			 * register that cannot be is unknown from here on (gcc
			 * keeps a popped register's rule until the return, where
			 * its slot lies below the stack pointer and outside the
			 * copy); a later rule that needs it fails then.
			 */
			if (i == rw->ra)
				return r;
			out.valid &= ~(1ull << i);
			continue;
		}
		out.r[i] = v;
		out.valid |= 1ull << i;
	}
	if (rw->st.r[cf->sp_reg].kind == R_SAME) {
		out.r[cf->sp_reg] = cfa;
		out.valid |= 1ull << cf->sp_reg;
	}
	if (!(out.valid & (1ull << rw->ra)))
		return PC_CFI_NO_REG;
	out.pc = out.r[rw->ra];
	if (cf->arch == PC_ARCH_AARCH64)
		out.pc &= 0x00ffffffffffffffULL; /* the top byte is ignored (TBI) */
	if (cf->arch == PC_ARCH_AARCH64 && rw->st.ra_mangled)
		out.pc &= 0x0000ffffffffffffULL; /* pointer authentication bits */
	out.exact_pc = rw->signal;
	*regs = out;
	return PC_CFI_STEPPED;
}

/* --- perf's sampled registers --- */

/*
 * perf's register numbers (arch/x86/include/uapi/asm/perf_regs.h) -> DWARF's;
 * -1 not tracked, -2 the pc.
 */
static const int8_t x86_64_dwarf[24] = {
	0,  /* AX */
	3,  /* BX */
	2,  /* CX */
	1,  /* DX */
	4,  /* SI */
	5,  /* DI */
	6,  /* BP */
	7,  /* SP */
	-2, /* IP */
	-1, -1, -1, -1, -1, -1, -1, /* FLAGS, CS, SS, DS, ES, FS, GS */
	8, 9, 10, 11, 12, 13, 14, 15 /* R8-R15 */
};

int pc_cfi_perf_regs(enum pc_arch arch, uint64_t mask, const uint64_t *vals, uint32_t nvals,
		     struct pc_cfi_regs *out)
{
	uint32_t k = 0;
	unsigned bit;

	memset(out, 0, sizeof(*out));
	for (bit = 0; bit < 64 && k < nvals; bit++) {
		int d;

		if (!(mask & (1ull << bit)))
			continue;
		if (arch == PC_ARCH_X86_64)
			d = bit < PC_ARRAY_SIZE(x86_64_dwarf) ? x86_64_dwarf[bit] : -1;
		else if (arch == PC_ARCH_AARCH64) /* X0-X30, SP (31), PC (32) */
			d = bit <= 31 ? (int)bit : bit == 32 ? -2 : -1;
		else
			return -1;
		if (d == -2) {
			out->pc = vals[k];
			if (arch == PC_ARCH_X86_64) {
				out->r[16] = vals[k]; /* the return address column */
				out->valid |= 1ull << 16;
			}
		} else if (d >= 0) {
			out->r[d] = vals[k];
			out->valid |= 1ull << d;
		}
		k++;
	}
	/* the pc and the stack pointer are what every step needs */
	if (arch == PC_ARCH_X86_64)
		return (mask & (1ull << 8)) && (mask & (1ull << 7)) ? 0 : -1;
	return (mask & (1ull << 32)) && (mask & (1ull << 31)) ? 0 : -1;
}

const char *pc_cfi_strerror(int r)
{
	switch (r) {
	case PC_CFI_NO_FDE:
		return "no call frame information covers the address";
	case PC_CFI_BAD:
		return "the call frame information cannot be evaluated";
	case PC_CFI_MEMORY:
		return "a saved register lies outside the copied stack";
	case PC_CFI_NO_REG:
		return "a rule needs a register that was not recorded";
	default:
		return "stopped";
	}
}
