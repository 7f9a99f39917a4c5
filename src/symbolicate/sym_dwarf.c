/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_dwarf.c - inline chains and file:line from DWARF, through libdwarf.
 *
 * The index (docs: symbolication.md 3.4), built lazily:
 *
 *   open:   every CU's address ranges (from the CU DIE: low/high pc or
 *           DW_AT_ranges, not .debug_aranges), sorted by start;
 *   a CU's first hit: one walk over its DIEs collects
 *           subs[]  (lo, hi, node) per DW_TAG_subprogram range,
 *           inls[]  (lo, hi, node, sub, depth) per DW_TAG_inlined_subroutine
 *                   range, sorted by (sub, depth, lo),
 *           and its line program becomes rows[] (addr, file, line), the
 *           sequences sorted by address;
 *   lookup: the covering sub, then per depth a binary search in that sub's
 *           inline ranges; the deepest hit and its parents are the chain.
 *
 * No DIE is visited per address except once per distinct function (its name,
 * cached).  Names: DW_AT_linkage_name (demangled) or DW_AT_name, following
 * DW_AT_abstract_origin and DW_AT_specification; a C++ function without a
 * linkage name gets the names of its enclosing namespaces and classes.
 * Locations: the line row for the innermost frame, DW_AT_call_file and
 * DW_AT_call_line of the next deeper inline for the others.  In C++ the walk
 * also enters functions without code and unnamed classes: a lambda's
 * operator() is defined inside its closure type, inside the abstract
 * instance of the inline or template function that made it.  Children of a
 * declaration (DW_AT_declaration: no body, nothing defined inside) are
 * skipped: in C++ they are most of the DIEs outside code.
 *
 * Threads: indexing a CU and resolving a name need libdwarf and fill the
 * handle's caches, so they run under the process-wide lock below and one
 * thread at a time per handle (the caller's part).  A CU is published as
 * ready (an atomic release store of its state) only once its tables are
 * complete, and a node's name likewise; lookups that find everything they
 * need published run without any lock (pc_dwarf_lookup_fast()), so threads
 * sharing a handle wait for each other only on first touches.
 *
 * libdwarf 20210528 needs three workarounds (symbolication.md 2):
 *   1. with no Dwarf_Error pointer and no handler it calls abort(): every
 *      call here passes an error pointer, and a handler is installed too;
 *   2. dwarf_formudata() rejects DW_FORM_implicit_const (GCC 11+ uses it for
 *      DW_AT_call_file): read with dwarf_formsdata() instead;
 *   3. for DWARF 5 line programs its file register starts at 0, not 1, so
 *      rows before the first DW_LNS_set_file of a sequence name file 0.
 *      GCC ("GNU " producers) never uses file 0: there 0 means 1.  LLVM
 *      (clang, rustc) uses file 0 for the primary file, so a row reading 0
 *      may be either: fix_llvm_file1() decides from the DW_AT_decl_file of
 *      the innermost function at the row.
 *
 * Not handled: split DWARF (.dwo/.dwp), dwz supplementary files (names in
 * them stay unresolved), type units (no code), two-level line tables.
 */
#include "core/pc_config.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include <dwarf.h>
#include <libdwarf.h>
#include <zlib.h>

#include "symbolicate/pc_dwarf.h"

#define MAX_DIE_DEPTH 200 /* nesting we follow; deeper DIEs are skipped */
#define MAX_REF_HOPS  8	  /* abstract_origin/specification links followed for a name */
#define MAX_CHAIN     256
#define SCOPE_MAX     2048
#define ARENA_CHUNK   65536
#define DEMANGLE_MAX  16384
#define ROW_END	      0x80000000u
#define DECL_FILE_UNKNOWN (-2)

enum { CU_NEW, CU_READY };

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

/* DIE offset -> string; key 0 is free (no DIE sits at offset 0). */
struct offmap {
	uint64_t *keys;
	const char **vals;
	uint32_t cap, len;
};

struct dw_node {
	Dwarf_Off name_off;  /* the DIE whose name this is (an inline's abstract origin) */
	const char *name;    /* resolved on first use (published atomically: see below) */
	int64_t decl_file;   /* DECL_FILE_UNKNOWN until needed (LLVM line tables) */
	uint32_t parent;     /* enclosing node; PC_NONE for a subprogram */
	uint32_t call_file;  /* inlines: where the enclosing function calls this one */
	uint32_t call_line;
	uint32_t inl_begin;  /* subprograms: their inline ranges in cu->inls */
	uint32_t inl_end;
	uint32_t max_depth;
};

struct dw_range {
	uint64_t lo, hi;
	uint32_t node;
	uint32_t sub;
	uint32_t depth;
};

struct dw_row {
	uint64_t addr;
	uint32_t line;
	uint32_t file; /* | ROW_END on the end_sequence row */
};

struct dw_cu {
	Dwarf_Off die_off;
	uint64_t base;	      /* DW_AT_low_pc of the CU DIE: base of DWARF 4 range lists */
	uint16_t version;
	uint8_t addr_size;
	uint8_t is_gnu;
	uint8_t state;	      /* CU_READY once indexed (atomic store, release) */
	uint8_t loaded;	      /* load_cu() ran (under the lock) */
	uint8_t is_c;	      /* C: no member functions, so no need to look into types */
	uint8_t has_stmt;     /* stmt_list read: the line program's offset in .debug_line */
	uint8_t offsz;	      /* 4 or 8: 32- or 64-bit DWARF */
	uint64_t stmt_list;
	uint64_t unit_off;    /* the unit header's offset in .debug_info, and the unit's end */
	uint64_t unit_end;
	uint64_t abbrev_off;  /* its abbreviations in .debug_abbrev */
	int64_t file_base;    /* the file number of files[0] */
	struct dw_node *nodes;
	uint32_t nnodes, cap_nodes;
	struct dw_range *subs;
	uint32_t nsubs, cap_subs;
	uint64_t *subs_maxhi; /* max hi of subs[0..i] */
	struct dw_range *inls;
	uint32_t ninls, cap_inls;
	struct dw_row *rows;
	uint32_t nrows;
	const char **files;
	uint32_t nfiles;
};

struct cu_range {
	uint64_t lo, hi;
	uint32_t cu;
};

/* Attributes of one DIE that the index uses. */
struct die_info {
	Dwarf_Addr low, high;
	int has_low, has_high, high_is_off;
	Dwarf_Attribute ranges; /* kept until read, then freed */
	Dwarf_Half ranges_form;
	const char *name, *linkage, *producer;
	uint64_t language;
	Dwarf_Off origin, spec;
	uint64_t call_file, call_line;
	uint64_t decl_file;
	int has_decl_file;
	int has_linkage;
	int declaration;
	int has_stmt;
	uint64_t stmt_list;
};

/* Strings read_attrs() reads (checking one scans it: C++ linkage names are long). */
#define RD_NAME	    1u
#define RD_LINKAGE  2u
#define RD_PRODUCER 4u
#define RD_STMT	    8u /* DW_AT_stmt_list (a CU DIE's), quietly: libdwarf reports its problems */

/* A .debug_rnglists unit: its lists lie in [lists, end). */
struct rl_unit {
	uint64_t lists, end;
};

struct pc_dwarf {
	struct profconv_ctx *ctx;
	Dwarf_Debug dbg;
	int text_at_zero;
	int status; /* a warning made fatal (strict mode) */
	uint64_t errors;
	struct dw_cu *cus;
	uint32_t ncus, cap_cus;
	struct cu_range *crs;
	uint32_t ncrs, cap_crs;
	uint64_t *crs_maxhi;
	struct offmap names; /* name DIE -> display name */
	struct offmap quals; /* subprogram DIE without a linkage name -> qualified name */
	struct arena_chunk *arena;
	/*
	 * .debug_line for our own line reader (load_lines()): sec as the file
	 * has it; lines/nlines its bytes, inflated on the first unit's use
	 * (owned when inflated); lines_state 0 not yet, 1 ready, -1 unusable.
	 */
	struct pc_dwarf_secs secs;
	const unsigned char *lines;
	unsigned char *lines_owned;
	/*
	 * With secs.nall > 0 libdwarf reads the sections through obj:
	 * obj_map[i] is the secs.all[] entry of its section i (0: the null
	 * section), and each section's bytes are sec_p/sec_n, inflated once
	 * (sec_owned) for libdwarf and our readers both (sec_data()).
	 */
	int use_obj;
	Dwarf_Obj_Access_Interface obj;
	struct dw_objref {
		char tag; /* 0: see obj_setup() */
		struct pc_dwarf *d;
	} objref;
	uint32_t obj_map[PC_DWARF_MAX_SECS + 1];
	uint32_t obj_n;
	unsigned char *sec_owned[PC_DWARF_MAX_SECS];
	const unsigned char *sec_p[PC_DWARF_MAX_SECS];
	uint64_t sec_n[PC_DWARF_MAX_SECS];
	int8_t sec_state[PC_DWARF_MAX_SECS]; /* 0 not yet, 1 ready, -1 unusable */
	int line_k;			     /* secs.line's entry in secs.all[], or -1 */
	uint64_t nlines;
	int lines_state;
	/*
	 * .debug_rnglists's units as rnglists_sound() checked them: a
	 * reference is handed to libdwarf only when it lands inside one
	 * (libdwarf 20210528 crashes following some that do not).
	 */
	struct rl_unit *rl_units;
	uint32_t n_rl_units;
	uint32_t rl_max_count; /* the largest offset table (DW_FORM_rnglistx) */
	/* ranges of the DIE being read */
	struct dw_range *rbuf;
	uint32_t nr, cap_r;
	size_t scope_len;
	char scope[SCOPE_MAX];
	char dembuf[DEMANGLE_MAX];
	char path[4096];
};

/* --- small helpers --- */

/*
 * libdwarf's allocation tracking is a process-wide switch: turn it off once
 * (every open does the same, and lookups may run on two threads).  A host
 * program that uses libdwarf itself and relies on dwarf_finish() freeing
 * what it forgot to free should know (docs/formats/symbol-files.md).
 */
static pthread_once_t de_alloc_once = PTHREAD_ONCE_INIT;

static void de_alloc_off(void)
{
	dwarf_set_de_alloc_flag(0);
}

static void on_dwarf_error(Dwarf_Error err, Dwarf_Ptr arg)
{
	/* only reached if a call ever lacks an error pointer: never abort() */
	(void)err;
	(void)arg;
}

/* Swallow a libdwarf error: counted, the first reported as a warning. */
static void drop(struct pc_dwarf *d, Dwarf_Error *err)
{
	if (d->errors++ == 0) {
		int rc = pc_warn(d->ctx, "debug info problems skipped", NULL, "%s: DWARF: %s",
				 d->path, *err ? dwarf_errmsg(*err) : "unreadable");

		if (rc)
			__atomic_store_n(&d->status, rc, __ATOMIC_RELAXED);
	}
	if (*err)
		dwarf_dealloc_error(d->dbg, *err);
	*err = NULL;
}

static char *arena_alloc(struct pc_dwarf *d, size_t len)
{
	struct arena_chunk *c = d->arena;
	char *p;

	if (!c || c->cap - c->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;

		c = pc_alloc(d->ctx, sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = d->arena;
		d->arena = c;
	}
	p = c->data + c->used;
	c->used += len;
	return p;
}

static char *arena_strndup(struct pc_dwarf *d, const char *s, size_t len)
{
	char *p = arena_alloc(d, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

/* scope + "::" + name, in the arena (no stack buffer: this runs deep in the DIE walk) */
static const char *qualify(struct pc_dwarf *d, const char *name)
{
	size_t ln = strlen(name);
	char *q = arena_alloc(d, d->scope_len + 2 + ln + 1);

	if (!q)
		return NULL;
	memcpy(q, d->scope, d->scope_len);
	memcpy(q + d->scope_len, "::", 2);
	memcpy(q + d->scope_len + 2, name, ln + 1);
	return q;
}

static const char **offmap_get(const struct offmap *m, uint64_t key)
{
	uint32_t i;

	if (!m->cap)
		return NULL;
	for (i = (uint32_t)pc_hash64(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return &m->vals[i];
	return NULL;
}

static int offmap_put(struct pc_dwarf *d, struct offmap *m, uint64_t key, const char *val)
{
	uint32_t i;

	if ((uint64_t)(m->len + 1) * 2 > m->cap) {
		struct offmap n;
		uint32_t k;

		if (m->cap >= (1u << 30))
			return pc_fail(d->ctx, PROFCONV_ERR_LIMIT, NULL, "%s: too many DWARF names",
				       d->path);
		n.cap = m->cap ? m->cap * 2 : 256;
		n.len = m->len;
		n.keys = pc_calloc(d->ctx, n.cap, sizeof(*n.keys));
		n.vals = pc_alloc(d->ctx, (size_t)n.cap * sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			pc_free(d->ctx, n.keys);
			pc_free(d->ctx, n.vals);
			return PROFCONV_ERR_NOMEM;
		}
		for (k = 0; k < m->cap; k++) {
			if (!m->keys[k])
				continue;
			for (i = (uint32_t)pc_hash64(m->keys[k]) & (n.cap - 1); n.keys[i];
			     i = (i + 1) & (n.cap - 1))
				;
			n.keys[i] = m->keys[k];
			n.vals[i] = m->vals[k];
		}
		pc_free(d->ctx, m->keys);
		pc_free(d->ctx, m->vals);
		*m = n;
	}
	for (i = (uint32_t)pc_hash64(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

static void offmap_free(struct pc_dwarf *d, struct offmap *m)
{
	pc_free(d->ctx, m->keys);
	pc_free(d->ctx, m->vals);
	memset(m, 0, sizeof(*m));
}

/* --- attributes --- */

static int is_addr_form(Dwarf_Half form)
{
	switch (form) {
	case DW_FORM_addr:
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		return 1;
	default:
		return 0;
	}
}

/* An unsigned constant, including DW_FORM_implicit_const (workaround 2). */
static int attr_udata(struct pc_dwarf *d, Dwarf_Attribute a, uint64_t *v)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed sv;
	Dwarf_Half form;

	if (dwarf_whatform(a, &form, &err) != DW_DLV_OK) {
		drop(d, &err);
		return -1;
	}
	if (form != DW_FORM_implicit_const) {
		if (dwarf_formudata(a, &u, &err) == DW_DLV_OK) {
			*v = u;
			return 0;
		}
		if (err)
			dwarf_dealloc_error(d->dbg, err);
		err = NULL;
	}
	if (dwarf_formsdata(a, &sv, &err) == DW_DLV_OK) {
		*v = (uint64_t)sv;
		return 0;
	}
	drop(d, &err);
	return -1;
}

static void attr_string(struct pc_dwarf *d, Dwarf_Attribute a, const char **out)
{
	Dwarf_Error err = NULL;
	char *s;

	if (dwarf_formstring(a, &s, &err) == DW_DLV_OK)
		*out = s;
	else if (err)
		drop(d, &err);
}

static void attr_ref(struct pc_dwarf *d, Dwarf_Attribute a, Dwarf_Off *out)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off;

	if (dwarf_global_formref(a, &off, &err) == DW_DLV_OK)
		*out = off;
	else if (err)
		drop(d, &err);
}

/* A section offset (DW_FORM_sec_offset, or data4/data8 before DWARF 4); errors not counted. */
static int attr_offset(struct pc_dwarf *d, Dwarf_Attribute a, uint64_t *out)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	Dwarf_Unsigned u;

	if (dwarf_global_formref(a, &off, &err) == DW_DLV_OK) {
		*out = off;
		return 0;
	}
	if (err)
		dwarf_dealloc_error(d->dbg, err);
	err = NULL;
	if (dwarf_formudata(a, &u, &err) == DW_DLV_OK) {
		*out = u;
		return 0;
	}
	if (err)
		dwarf_dealloc_error(d->dbg, err);
	return -1;
}

static void read_attrs(struct pc_dwarf *d, Dwarf_Die die, struct die_info *in, unsigned strings)
{
	Dwarf_Attribute *list;
	Dwarf_Signed n, i;
	Dwarf_Error err = NULL;

	memset(in, 0, sizeof(*in));
	if (dwarf_attrlist(die, &list, &n, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Attribute a = list[i];
		Dwarf_Half num, form;
		int keep = 0;

		if (dwarf_whatattr(a, &num, &err) != DW_DLV_OK) {
			drop(d, &err);
			dwarf_dealloc_attribute(a);
			continue;
		}
		switch (num) {
		case DW_AT_low_pc:
			if (dwarf_formaddr(a, &in->low, &err) == DW_DLV_OK)
				in->has_low = 1;
			else
				drop(d, &err);
			break;
		case DW_AT_high_pc:
			if (dwarf_whatform(a, &form, &err) != DW_DLV_OK) {
				drop(d, &err);
			} else if (is_addr_form(form)) {
				if (dwarf_formaddr(a, &in->high, &err) == DW_DLV_OK)
					in->has_high = 1;
				else
					drop(d, &err);
			} else {
				uint64_t v;

				if (attr_udata(d, a, &v) == 0) {
					in->high = v;
					in->has_high = 1;
					in->high_is_off = 1;
				}
			}
			break;
		case DW_AT_ranges:
			if (in->ranges || dwarf_whatform(a, &in->ranges_form, &err) != DW_DLV_OK) {
				if (err)
					drop(d, &err);
				break;
			}
			in->ranges = a;
			keep = 1;
			break;
		case DW_AT_name:
			if (strings & RD_NAME)
				attr_string(d, a, &in->name);
			break;
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
			in->has_linkage = 1;
			if (strings & RD_LINKAGE)
				attr_string(d, a, &in->linkage);
			break;
		case DW_AT_producer:
			if (strings & RD_PRODUCER)
				attr_string(d, a, &in->producer);
			break;
		case DW_AT_stmt_list:
			if (strings & RD_STMT)
				in->has_stmt = attr_offset(d, a, &in->stmt_list) == 0;
			break;
		case DW_AT_language:
			attr_udata(d, a, &in->language);
			break;
		case DW_AT_abstract_origin:
			attr_ref(d, a, &in->origin);
			break;
		case DW_AT_specification:
			attr_ref(d, a, &in->spec);
			break;
		case DW_AT_call_file:
			attr_udata(d, a, &in->call_file);
			break;
		case DW_AT_call_line:
			attr_udata(d, a, &in->call_line);
			break;
		case DW_AT_decl_file:
			in->has_decl_file = attr_udata(d, a, &in->decl_file) == 0;
			break;
		case DW_AT_declaration: {
			Dwarf_Bool yes = 0;

			if (dwarf_formflag(a, &yes, &err) == DW_DLV_OK)
				in->declaration = yes != 0;
			else
				drop(d, &err);
			break;
		}
		default:
			break;
		}
		if (!keep)
			dwarf_dealloc_attribute(a);
	}
	dwarf_dealloc(d->dbg, list, DW_DLA_LIST);
}

static int has_attr(struct pc_dwarf *d, Dwarf_Die die, Dwarf_Half attr)
{
	Dwarf_Error err = NULL;
	Dwarf_Bool yes = 0;

	if (dwarf_hasattr(die, attr, &yes, &err) != DW_DLV_OK) {
		drop(d, &err);
		return 0;
	}
	return yes != 0;
}

/* DW_AT_declaration true: no body, so nothing is defined inside. */
static int is_declaration(struct pc_dwarf *d, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Attribute a;
	Dwarf_Bool yes = 0;
	int r = dwarf_attr(die, DW_AT_declaration, &a, &err);

	if (r != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	if (dwarf_formflag(a, &yes, &err) != DW_DLV_OK)
		drop(d, &err);
	dwarf_dealloc_attribute(a);
	return yes != 0;
}

static void free_attrs(struct die_info *in)
{
	if (in->ranges)
		dwarf_dealloc_attribute(in->ranges);
	in->ranges = NULL;
}

/* --- address ranges --- */

static int push_range(struct pc_dwarf *d, const struct dw_cu *cu, uint64_t lo, uint64_t hi)
{
	uint64_t tomb = cu->addr_size == 4 ? UINT32_MAX : UINT64_MAX;

	/* empty, or a discarded function's tombstone (0, -1 or -2) */
	if (lo >= hi || (lo == 0 && !d->text_at_zero) || lo >= tomb - 1)
		return 0;
	if (pc_grow(d->ctx, (void **)&d->rbuf, sizeof(*d->rbuf), &d->cap_r, (size_t)d->nr + 1))
		return PROFCONV_ERR_NOMEM;
	d->rbuf[d->nr].lo = lo;
	d->rbuf[d->nr].hi = hi;
	d->nr++;
	return 0;
}

static int rnglists_ref_ok(const struct pc_dwarf *d, Dwarf_Half form, uint64_t val);

static int rnglists(struct pc_dwarf *d, const struct dw_cu *cu, struct die_info *in)
{
	Dwarf_Rnglists_Head head;
	Dwarf_Unsigned val, count, goff, i;
	Dwarf_Error err = NULL;
	int r;

	if (in->ranges_form == DW_FORM_rnglistx)
		r = dwarf_formudata(in->ranges, &val, &err);
	else
		r = dwarf_global_formref(in->ranges, &val, &err);
	if (r != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	if (!rnglists_ref_ok(d, in->ranges_form, val))
		return 0; /* outside every unit: what libdwarf would crash on */
	r = dwarf_rnglists_get_rle_head(in->ranges, in->ranges_form, val, &head, &count, &goff,
					&err);
	if (r != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	for (i = 0; i < count; i++) {
		unsigned len, code;
		Dwarf_Unsigned raw1, raw2, lo, hi;
		Dwarf_Bool unavailable = 0;

		r = dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
						      &unavailable, &lo, &hi, &err);
		if (r != DW_DLV_OK) {
			if (err)
				drop(d, &err);
			break;
		}
		if (code == DW_RLE_end_of_list)
			break;
		if (unavailable || code == DW_RLE_base_address || code == DW_RLE_base_addressx)
			continue;
		if (push_range(d, cu, lo, hi)) {
			dwarf_dealloc_rnglists_head(head);
			return PROFCONV_ERR_NOMEM;
		}
	}
	dwarf_dealloc_rnglists_head(head);
	return 0;
}

static int v4_ranges(struct pc_dwarf *d, const struct dw_cu *cu, Dwarf_Die die,
		     struct die_info *in)
{
	Dwarf_Ranges *rl;
	Dwarf_Signed n, i;
	Dwarf_Unsigned bytes;
	Dwarf_Off off, real;
	Dwarf_Error err = NULL;
	uint64_t base = cu->base;
	int r = 0;

	if (dwarf_global_formref(in->ranges, &off, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	if (dwarf_get_ranges_b(d->dbg, off, die, &real, &rl, &n, &bytes, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	for (i = 0; i < n && !r; i++) {
		if (rl[i].dwr_type == DW_RANGES_END)
			break;
		if (rl[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = rl[i].dwr_addr2;
		else
			r = push_range(d, cu, base + rl[i].dwr_addr1, base + rl[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(d->dbg, rl, n);
	return r;
}

/* The DIE's ranges into d->rbuf[0..nr). */
static int die_ranges(struct pc_dwarf *d, const struct dw_cu *cu, Dwarf_Die die,
		      struct die_info *in)
{
	d->nr = 0;
	if (in->has_low && in->has_high)
		return push_range(d, cu, in->low, in->high_is_off ? in->low + in->high : in->high);
	if (!in->ranges)
		return 0;
	if (cu->version >= 5 || in->ranges_form == DW_FORM_rnglistx)
		return rnglists(d, cu, in);
	return v4_ranges(d, cu, die, in);
}

/* --- open: the CU table --- */

static int cu_range_cmp(const void *pa, const void *pb)
{
	const struct cu_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->cu < b->cu ? -1 : a->cu > b->cu;
}

static int add_cu(struct pc_dwarf *d, Dwarf_Half version, Dwarf_Half addr_size, Dwarf_Half offsz,
		  uint64_t abbrev_off, uint64_t unit_off, uint64_t unit_end)
{
	Dwarf_Die die = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Half tag;
	struct die_info in;
	struct dw_cu *cu;
	uint32_t i;
	int r;

	if (dwarf_siblingof_b(d->dbg, NULL, 1, &die, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
		drop(d, &err);
		dwarf_dealloc_die(die);
		return 0;
	}
	if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit) {
		dwarf_dealloc_die(die);
		return 0;
	}
	if (pc_grow(d->ctx, (void **)&d->cus, sizeof(*d->cus), &d->cap_cus, (size_t)d->ncus + 1)) {
		dwarf_dealloc_die(die);
		return PROFCONV_ERR_NOMEM;
	}
	cu = &d->cus[d->ncus];
	memset(cu, 0, sizeof(*cu));
	if (dwarf_dieoffset(die, &cu->die_off, &err) != DW_DLV_OK) {
		drop(d, &err);
		dwarf_dealloc_die(die);
		return 0;
	}
	cu->version = version;
	cu->addr_size = (uint8_t)addr_size;
	cu->offsz = (uint8_t)offsz;
	cu->abbrev_off = abbrev_off;
	cu->unit_off = unit_off;
	cu->unit_end = unit_end;
	read_attrs(d, die, &in, RD_PRODUCER | RD_STMT);
	cu->base = in.has_low ? in.low : 0;
	cu->has_stmt = (uint8_t)in.has_stmt;
	cu->stmt_list = in.stmt_list;
	cu->is_gnu = in.producer && strncmp(in.producer, "GNU ", 4) == 0;
	cu->is_c = in.language == DW_LANG_C89 || in.language == DW_LANG_C ||
		   in.language == DW_LANG_C99 || in.language == DW_LANG_C11;
	r = die_ranges(d, cu, die, &in);
	free_attrs(&in);
	dwarf_dealloc_die(die);
	if (r)
		return r;
	if (!d->nr)
		return 0; /* no code */
	if (pc_grow(d->ctx, (void **)&d->crs, sizeof(*d->crs), &d->cap_crs,
		    (size_t)d->ncrs + d->nr))
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < d->nr; i++) {
		d->crs[d->ncrs].lo = d->rbuf[i].lo;
		d->crs[d->ncrs].hi = d->rbuf[i].hi;
		d->crs[d->ncrs].cu = d->ncus;
		d->ncrs++;
	}
	d->ncus++;
	return 0;
}

static void dwarf_close_unlocked(struct pc_dwarf *d);

static int rnglists_sound(struct pc_dwarf *d, const struct pc_dwarf_sec *sec,
			  uint64_t *bad_off, const char **why);
static int chdr_size(const struct pc_dwarf_sec *sec, uint64_t *size_out, uint64_t *hdr_out);
static int sec_data(struct pc_dwarf *d, uint32_t k);

/*
 * libdwarf's object access (pc_dwarf.h): the file's .debug_* sections but
 * the location lists, section 0 the null section as in ELF.  A compressed
 * section is given at its inflated size and inflated when libdwarf loads
 * it (or when our readers did already): libdwarf sees plain sections.
 */
static int obj_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *out, int *error)
{
	struct pc_dwarf *d = ((struct dw_objref *)obj)->d;
	const struct pc_dwarf_osec *o;
	uint64_t size, hdr;

	(void)error;
	memset(out, 0, sizeof(*out));
	if (i >= d->obj_n)
		return DW_DLV_NO_ENTRY;
	if (i == 0) {
		out->name = "";
		return DW_DLV_OK;
	}
	/*
	 * Plain data, whatever the header says: the ELF's links and group or
	 * relocation types name its own section numbers, not these, and
	 * libdwarf 20210528 follows them without checking (a SEGV in
	 * dwarf_object_init_b(), found by fuzz_sym).
	 */
	o = &d->secs.all[d->obj_map[i]];
	out->addr = o->addr;
	out->type = 1; /* SHT_PROGBITS */
	out->name = o->name;
	out->size = o->s.size;
	if (o->s.compressed)
		out->size = chdr_size(&o->s, &size, &hdr) ? size : 0;
	return DW_DLV_OK;
}

static Dwarf_Endianness obj_byte_order(void *obj)
{
	const struct pc_dwarf *d = ((struct dw_objref *)obj)->d;

	return d->secs.big_endian ? DW_OBJECT_MSB : DW_OBJECT_LSB;
}

static Dwarf_Small obj_word_size(void *obj)
{
	const struct pc_dwarf *d = ((struct dw_objref *)obj)->d;

	return d->secs.is64 ? 8 : 4;
}

static Dwarf_Unsigned obj_section_count(void *obj)
{
	const struct pc_dwarf *d = ((struct dw_objref *)obj)->d;

	return d->obj_n;
}

static int obj_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	struct pc_dwarf *d = ((struct dw_objref *)obj)->d;
	uint32_t k;
	int r;

	if (i == 0 || i >= d->obj_n)
		return DW_DLV_NO_ENTRY;
	k = d->obj_map[i];
	r = sec_data(d, k);
	if (r <= 0) {
		if (r < 0 && !d->status)
			d->status = PROFCONV_ERR_NOMEM;
		*error = r < 0 ? DW_DLE_ALLOC_FAIL : DW_DLE_ZLIB_UNCOMPRESS_ERROR;
		return DW_DLV_ERROR;
	}
	/* libdwarf only reads it (nothing is relocated) */
	*data = (Dwarf_Small *)(uintptr_t)d->sec_p[k];
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods obj_methods = {
	.get_section_info = obj_section_info,
	.get_byte_order = obj_byte_order,
	.get_length_size = obj_word_size,
	.get_pointer_size = obj_word_size,
	.get_section_count = obj_section_count,
	.load_section = obj_load_section,
	.relocate_a_section = NULL,
};

/*
 * Set up the object access and point our readers' sections at the same
 * bytes, inflated (.debug_line on its first use).  0 or NOMEM.
 */
static int obj_setup(struct pc_dwarf *d)
{
	struct pc_dwarf_sec *own[4] = { &d->secs.info, &d->secs.abbrev, &d->secs.rnglists,
					&d->secs.ranges };
	uint32_t k, j;
	int r;

	d->use_obj = 1;
	d->obj_n = 1;
	d->obj_map[0] = 0;
	for (k = 0; k < d->secs.nall && k < PC_DWARF_MAX_SECS; k++) {
		const struct pc_dwarf_osec *o = &d->secs.all[k];

		if (!o->s.p || strcmp(o->name, ".debug_loc") == 0 ||
		    strcmp(o->name, ".debug_loclists") == 0)
			continue;
		d->obj_map[d->obj_n++] = k;
		if (d->secs.line.p == o->s.p)
			d->line_k = (int)k;
		for (j = 0; j < 4; j++) {
			if (!own[j]->p || own[j]->p != o->s.p || !own[j]->compressed)
				continue;
			r = sec_data(d, k);
			if (r < 0)
				return -r;
			if (r > 0) {
				own[j]->p = d->sec_p[k];
				own[j]->size = d->sec_n[k];
				own[j]->compressed = 0;
			}
		}
	}
	return 0;
}

static int dwarf_open_unlocked(struct profconv_ctx *ctx, int fd, const char *path, int text_at_zero,
		  const struct pc_dwarf_secs *secs, struct pc_dwarf **out)
{
	struct pc_dwarf *d;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned at = 0;
	uint32_t i;
	int r, rc = 0;

	*out = NULL;
	d = pc_calloc(ctx, 1, sizeof(*d));
	if (!d)
		return PROFCONV_ERR_NOMEM;
	d->ctx = ctx;
	d->text_at_zero = text_at_zero;
	d->line_k = -1;
	if (secs)
		d->secs = *secs;
	pc_snprintf(d->path, sizeof(d->path), "%s", path);
	/*
	 * No record of every allocation for dwarf_finish() to free: keeping
	 * it (a search tree insert and delete per DIE, attribute and line
	 * row) cost a third of indexing a large C++ CU.  Everything taken
	 * here is given back explicitly.
	 */
	pthread_once(&de_alloc_once, de_alloc_off);
	if (secs && secs->nall) {
		rc = obj_setup(d);
		if (rc) {
			dwarf_close_unlocked(d);
			return rc;
		}
	}
	if (d->secs.rnglists.p) {
		uint64_t bad_off = 0;
		const char *why = NULL;

		r = rnglists_sound(d, &d->secs.rnglists, &bad_off, &why);
		if (r <= 0) {
			rc = r < 0 ? -r
				   : pc_warn(ctx, "debug info problems skipped", NULL,
					     "%s: .debug_rnglists at offset %llu: %s; its DWARF is "
					     "not read (symbols only)",
					     path, (unsigned long long)bad_off, why);
			dwarf_close_unlocked(d);
			return rc;
		}
	}
	if (d->use_obj) {
		/*
		 * libdwarf 20210528 tells its own object readers apart by the
		 * first byte of obj.object ('E' ELF, 'M' Mach-O, 'P' PE) and
		 * treats an 'E' as its ELF reader's (its section groups): the
		 * object is a struct whose first byte is 0, never our struct,
		 * whose first byte is a pointer's (an 'E' there crashed
		 * dwarf_object_init_b() in fuzz_sym, one heap layout in 256).
		 */
		d->objref.tag = 0;
		d->objref.d = d;
		d->obj.object = &d->objref;
		d->obj.methods = &obj_methods;
		r = dwarf_object_init_b(&d->obj, on_dwarf_error, NULL, DW_GROUPNUMBER_ANY, &d->dbg,
					&err);
	} else {
		r = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, on_dwarf_error, NULL, &d->dbg,
				 &err);
	}
	if (r != DW_DLV_OK) {
		if (r == DW_DLV_ERROR) {
			rc = pc_warn(ctx, "debug info problems skipped", NULL,
				     "%s: DWARF unreadable: %s", path,
				     err ? dwarf_errmsg(err) : "libdwarf error");
			if (err)
				dwarf_dealloc_error(NULL, err);
		} else {
			pc_note(ctx, "%s: no DWARF", path);
		}
		d->dbg = NULL;
		dwarf_close_unlocked(d);
		return rc;
	}
	for (;;) {
		Dwarf_Unsigned hlen, typeoff, next, unit = at;
		Dwarf_Half version, addr_size, len_size, ext_size, ut;
		Dwarf_Off abbrev;
		Dwarf_Sig8 sig;

		r = dwarf_next_cu_header_d(d->dbg, 1, &hlen, &version, &abbrev, &addr_size,
					   &len_size, &ext_size, &sig, &typeoff, &next, &ut, &err);
		if (r == DW_DLV_NO_ENTRY)
			break;
		if (r != DW_DLV_OK) {
			drop(d, &err);
			break;
		}
		at = next;
		if (ut == DW_UT_type || ut == DW_UT_skeleton || ut == DW_UT_split_compile ||
		    ut == DW_UT_split_type)
			continue;
		rc = add_cu(d, version, addr_size, len_size, abbrev, unit, next);
		if (rc)
			break;
	}
	if (!rc)
		rc = d->status;
	if (rc) {
		dwarf_close_unlocked(d);
		return rc;
	}
	if (!d->ncrs) {
		pc_note(ctx, "%s: DWARF without code ranges", path);
		dwarf_close_unlocked(d);
		return 0;
	}
	qsort(d->crs, d->ncrs, sizeof(*d->crs), cu_range_cmp);
	d->crs_maxhi = pc_alloc(ctx, (size_t)d->ncrs * sizeof(*d->crs_maxhi));
	if (!d->crs_maxhi) {
		dwarf_close_unlocked(d);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < d->ncrs; i++)
		d->crs_maxhi[i] = i && d->crs_maxhi[i - 1] > d->crs[i].hi ? d->crs_maxhi[i - 1]
									 : d->crs[i].hi;
	*out = d;
	return 0;
}

/* --- a CU's index --- */

static uint32_t new_node(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Off name_off,
			 uint32_t parent, const struct die_info *in)
{
	struct dw_node *n;

	if (pc_grow(d->ctx, (void **)&cu->nodes, sizeof(*cu->nodes), &cu->cap_nodes,
		    (size_t)cu->nnodes + 1))
		return PC_NONE;
	n = &cu->nodes[cu->nnodes];
	memset(n, 0, sizeof(*n));
	n->name_off = name_off;
	n->parent = parent;
	n->decl_file = DECL_FILE_UNKNOWN;
	n->call_file = in->call_file > UINT32_MAX ? 0 : (uint32_t)in->call_file;
	n->call_line = in->call_line > UINT32_MAX ? 0 : (uint32_t)in->call_line;
	return cu->nnodes++;
}

static int add_ranges(struct pc_dwarf *d, struct dw_range **arr, uint32_t *len, uint32_t *cap,
		      uint32_t node, uint32_t sub, uint32_t depth)
{
	uint32_t i;

	if (!d->nr)
		return 0;
	if (pc_grow(d->ctx, (void **)arr, sizeof(**arr), cap, (size_t)*len + d->nr))
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < d->nr; i++) {
		struct dw_range *g = &(*arr)[(*len)++];

		g->lo = d->rbuf[i].lo;
		g->hi = d->rbuf[i].hi;
		g->node = node;
		g->sub = sub;
		g->depth = depth;
	}
	return 0;
}

static int walk(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, uint32_t sub,
		uint32_t parent, uint32_t depth, unsigned level);

/*
 * Definitions can nest in a function without code: the operator() of a
 * lambda sits in its closure type inside the abstract instance of the
 * (inline or template) function that made it.  C has none of that.
 */
static int walk_codeless(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, unsigned level)
{
	if (cu->is_c)
		return 0;
	return walk(d, cu, die, PC_NONE, PC_NONE, 0, level + 1);
}

static int visit_subprogram(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, uint32_t sub,
			    unsigned level)
{
	struct die_info in;
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	uint32_t node;
	int r;

	if (dwarf_dieoffset(die, &off, &err) != DW_DLV_OK) {
		drop(d, &err);
		return 0;
	}
	/* most are declarations: no code, and only a qualified name may be wanted */
	if (!(sub == PC_NONE && d->scope_len) && !has_attr(d, die, DW_AT_low_pc) &&
	    !has_attr(d, die, DW_AT_ranges)) {
		if (is_declaration(d, die))
			return 0;
		return walk_codeless(d, cu, die, level);
	}
	read_attrs(d, die, &in, sub == PC_NONE && d->scope_len ? RD_NAME : 0);
	if (sub == PC_NONE && in.name && !in.has_linkage && d->scope_len) {
		const char *q = qualify(d, in.name);

		if (!q || offmap_put(d, &d->quals, off, q)) {
			free_attrs(&in);
			return PROFCONV_ERR_NOMEM;
		}
	}
	r = die_ranges(d, cu, die, &in);
	free_attrs(&in);
	if (r)
		return r;
	if (!d->nr)
		return in.declaration ? 0 : walk_codeless(d, cu, die, level);
	node = new_node(d, cu, off, PC_NONE, &in);
	if (node == PC_NONE ||
	    add_ranges(d, &cu->subs, &cu->nsubs, &cu->cap_subs, node, node, 0))
		return PROFCONV_ERR_NOMEM;
	return walk(d, cu, die, node, node, 0, level + 1);
}

static int visit_inline(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, uint32_t sub,
			uint32_t parent, uint32_t depth, unsigned level)
{
	struct die_info in;
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	uint32_t node;
	int r;

	if (dwarf_dieoffset(die, &off, &err) != DW_DLV_OK) {
		drop(d, &err);
		return 0;
	}
	read_attrs(d, die, &in, 0);
	r = die_ranges(d, cu, die, &in);
	free_attrs(&in);
	if (r)
		return r;
	node = new_node(d, cu, in.origin ? in.origin : off, parent, &in);
	if (node == PC_NONE ||
	    add_ranges(d, &cu->inls, &cu->ninls, &cu->cap_inls, node, sub, depth + 1))
		return PROFCONV_ERR_NOMEM;
	return walk(d, cu, die, sub, node, depth + 1, level + 1);
}

/*
 * A namespace or class: its name extends the scope for the DIEs inside.  An
 * unnamed class adds nothing but is still searched (a lambda's closure type
 * holds its operator()).  Functions inside start their own chains.
 */
static int visit_scope(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, Dwarf_Half tag,
		       unsigned level)
{
	Dwarf_Error err = NULL;
	size_t saved = d->scope_len;
	char *name = NULL;
	int r;

	r = dwarf_diename(die, &name, &err);
	if (r == DW_DLV_ERROR)
		drop(d, &err);
	if ((r != DW_DLV_OK || !name) && tag == DW_TAG_namespace)
		name = "(anonymous namespace)";
	if (name && d->scope_len + strlen(name) + 3 < sizeof(d->scope))
		d->scope_len += pc_snprintf(d->scope + d->scope_len,
					    sizeof(d->scope) - d->scope_len, "%s%s",
					    d->scope_len ? "::" : "", name);
	r = walk(d, cu, die, PC_NONE, PC_NONE, 0, level + 1);
	d->scope_len = saved;
	d->scope[saved] = 0;
	return r;
}

static int visit(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, uint32_t sub,
		 uint32_t parent, uint32_t depth, unsigned level)
{
	Dwarf_Error err = NULL;
	Dwarf_Half tag;

	if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
		drop(d, &err);
		return 0;
	}
	switch (tag) {
	case DW_TAG_subprogram:
		return visit_subprogram(d, cu, die, sub, level);
	case DW_TAG_inlined_subroutine:
		if (sub == PC_NONE)
			return walk_codeless(d, cu, die, level);
		return visit_inline(d, cu, die, sub, parent, depth, level);
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		if (sub == PC_NONE)
			return walk_codeless(d, cu, die, level);
		return walk(d, cu, die, sub, parent, depth, level + 1);
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		if (cu->is_c)
			return 0; /* no member functions */
		return visit_scope(d, cu, die, tag, level);
	case DW_TAG_namespace:
		return visit_scope(d, cu, die, tag, level);
	default:
		return 0;
	}
}

static int walk(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die die, uint32_t sub,
		uint32_t parent, uint32_t depth, unsigned level)
{
	Dwarf_Error err = NULL;
	Dwarf_Die c = NULL, next = NULL;
	int r;

	if (level > MAX_DIE_DEPTH)
		return 0;
	r = dwarf_child(die, &c, &err);
	if (r == DW_DLV_ERROR)
		drop(d, &err);
	while (r == DW_DLV_OK) {
		int rc = visit(d, cu, c, sub, parent, depth, level);

		if (rc) {
			dwarf_dealloc_die(c);
			return rc;
		}
		r = dwarf_siblingof_b(d->dbg, c, 1, &next, &err);
		dwarf_dealloc_die(c);
		if (r == DW_DLV_ERROR)
			drop(d, &err);
		c = next;
	}
	return 0;
}

static int range_lo_cmp(const void *pa, const void *pb)
{
	const struct dw_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

static int range_sub_cmp(const void *pa, const void *pb)
{
	const struct dw_range *a = pa, *b = pb;

	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return range_lo_cmp(pa, pb);
}

/* --- line rows --- */

struct seq {
	uint64_t lo;
	uint32_t begin, end; /* rows [begin, end) */
};

struct row_idx {
	struct dw_row row;
	uint32_t idx;
};

static int seq_cmp(const void *pa, const void *pb)
{
	const struct seq *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* Row order: address, then an end_sequence row before a row that starts there. */
static int row_before(const struct dw_row *a, const struct dw_row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return (a->file & ROW_END) && !(b->file & ROW_END);
}

static int row_idx_cmp(const void *pa, const void *pb)
{
	const struct row_idx *a = pa, *b = pb;

	if (row_before(&a->row, &b->row))
		return -1;
	if (row_before(&b->row, &a->row))
		return 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int sort_rows(struct pc_dwarf *d, struct dw_cu *cu, struct dw_row *raw, struct seq *seqs,
		     uint32_t nseqs)
{
	uint32_t i, n = 0, total = 0;
	struct row_idx *t;

	for (i = 0; i < nseqs; i++)
		total += seqs[i].end - seqs[i].begin;
	if (!total)
		return 0;
	cu->rows = pc_alloc(d->ctx, (size_t)total * sizeof(*cu->rows));
	if (!cu->rows)
		return PROFCONV_ERR_NOMEM;
	qsort(seqs, nseqs, sizeof(*seqs), seq_cmp);
	for (i = 0; i < nseqs; i++) {
		memcpy(cu->rows + n, raw + seqs[i].begin,
		       (size_t)(seqs[i].end - seqs[i].begin) * sizeof(*raw));
		n += seqs[i].end - seqs[i].begin;
	}
	cu->nrows = n;
	for (i = 1; i < n; i++)
		if (row_before(&cu->rows[i], &cu->rows[i - 1]))
			break;
	if (i >= n)
		return 0;
	/* overlapping sequences: a full sort, stable by position */
	t = pc_alloc(d->ctx, (size_t)n * sizeof(*t));
	if (!t)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		t[i].row = cu->rows[i];
		t[i].idx = i;
	}
	qsort(t, n, sizeof(*t), row_idx_cmp);
	for (i = 0; i < n; i++)
		cu->rows[i] = t[i].row;
	pc_free(d->ctx, t);
	return 0;
}

/*
 * The unit's file table.  quiet (our line reader's rows): a failure is not
 * counted but returns -1, and libdwarf reads the unit's lines instead,
 * reporting what dwarf_srclines_b finds wrong first, as it always did.
 */
static int load_files(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die cu_die, int64_t file_base,
		      int quiet)
{
	Dwarf_Error err = NULL;
	Dwarf_Signed cnt = 0, i;
	char **src;
	int rc = 0;

	cu->file_base = file_base;
	if (dwarf_srcfiles(cu_die, &src, &cnt, &err) != DW_DLV_OK) {
		if (quiet) {
			if (err)
				dwarf_dealloc_error(d->dbg, err);
			return -1;
		}
		if (err)
			drop(d, &err);
		return 0;
	}
	if (cnt > 0 && cnt < (Dwarf_Signed)UINT32_MAX) {
		cu->files = pc_calloc(d->ctx, (size_t)cnt, sizeof(*cu->files));
		if (!cu->files)
			rc = PROFCONV_ERR_NOMEM;
		else
			cu->nfiles = (uint32_t)cnt;
	}
	for (i = 0; i < cnt; i++) {
		if (!rc && src[i]) {
			cu->files[i] = arena_strndup(d, src[i], strlen(src[i]));
			if (!cu->files[i])
				rc = PROFCONV_ERR_NOMEM;
		}
		dwarf_dealloc(d->dbg, src[i], DW_DLA_STRING);
	}
	dwarf_dealloc(d->dbg, src, DW_DLA_LIST);
	return rc;
}

static const struct dw_range *find_sub(const struct dw_cu *cu, uint64_t a);

/* DW_AT_decl_file of a DIE or what it refers to; -1 if none. */
static int64_t decl_file_of(struct pc_dwarf *d, Dwarf_Off off)
{
	unsigned hop;

	for (hop = 0; hop < MAX_REF_HOPS && off; hop++) {
		Dwarf_Error err = NULL;
		struct die_info in;
		Dwarf_Die die;

		if (dwarf_offdie_b(d->dbg, off, 1, &die, &err) != DW_DLV_OK) {
			if (err)
				drop(d, &err);
			break;
		}
		read_attrs(d, die, &in, 0);
		free_attrs(&in);
		dwarf_dealloc_die(die);
		if (in.has_decl_file)
			return in.decl_file > INT32_MAX ? -1 : (int64_t)in.decl_file;
		off = in.origin ? in.origin : in.spec;
	}
	return -1;
}

static uint32_t innermost_node(const struct dw_cu *cu, uint64_t a, const struct dw_range **sub);

static int64_t node_decl_file(struct pc_dwarf *d, struct dw_node *n)
{
	if (n->decl_file == DECL_FILE_UNKNOWN)
		n->decl_file = decl_file_of(d, n->name_off);
	return n->decl_file;
}

/*
 * Workaround 3 for DWARF 5 from LLVM (clang, rustc): LLVM names the primary
 * file 0 and writes DW_LNS_set_file only when the file differs from the
 * register, which starts at 1; libdwarf starts it at 0.  So the rows of a
 * sequence before its first set_file read 0 whether they were 1 (the
 * default) or 0 (set explicitly).  A row is in the file of the innermost
 * function there (its DW_AT_decl_file): while that is 1, the row was 1; the
 * first row in a function of file 0 shows where LLVM set file 0, and from
 * there on 0 is true.
 */
static void fix_llvm_file1(struct pc_dwarf *d, struct dw_cu *cu, struct dw_row *raw,
			   const struct seq *seqs, uint32_t nseqs)
{
	uint32_t i, k;

	for (i = 0; i < nseqs && cu->nsubs; i++) {
		for (k = seqs[i].begin; k < seqs[i].end && !(raw[k].file & ~ROW_END); k++) {
			uint32_t n;

			if (raw[k].file & ROW_END)
				break;
			n = innermost_node(cu, raw[k].addr, NULL);
			if (n == PC_NONE || node_decl_file(d, &cu->nodes[n]) == 0)
				break;
			raw[k].file |= 1;
		}
	}
}

/* A line program's rows as it gives them, cut into sequences. */
struct rowset {
	struct dw_row *raw;
	uint32_t nraw, cap_raw;
	struct seq *seqs;
	uint32_t nseqs, cap_seqs;
	uint32_t begin; /* first row of the open sequence */
	int fix_file0;	/* workaround 3 (GCC, DWARF 5): file 0 is file 1 */
};

/* The open sequence ends: kept unless a discarded function's (at 0 or -1). */
static int end_seq(struct pc_dwarf *d, const struct dw_cu *cu, struct rowset *rs)
{
	uint64_t tomb = cu->addr_size == 4 ? UINT32_MAX : UINT64_MAX;
	uint64_t lo;

	if (rs->nraw == rs->begin)
		return 0;
	lo = rs->raw[rs->begin].addr;
	if (!((lo == 0 && !d->text_at_zero) || lo >= tomb - 1)) {
		if (pc_grow(d->ctx, (void **)&rs->seqs, sizeof(*rs->seqs), &rs->cap_seqs,
			    (size_t)rs->nseqs + 1))
			return PROFCONV_ERR_NOMEM;
		rs->seqs[rs->nseqs].lo = lo;
		rs->seqs[rs->nseqs].begin = rs->begin;
		rs->seqs[rs->nseqs].end = rs->nraw;
		rs->nseqs++;
	}
	rs->begin = rs->nraw;
	return 0;
}

static int add_row(struct pc_dwarf *d, const struct dw_cu *cu, struct rowset *rs, uint64_t addr,
		   uint64_t line, uint64_t file, int end)
{
	struct dw_row *w;

	if (rs->nraw >= rs->cap_raw &&
	    (rs->nraw >= UINT32_MAX - 1 ||
	     pc_grow(d->ctx, (void **)&rs->raw, sizeof(*rs->raw), &rs->cap_raw,
		     (size_t)rs->nraw + 1)))
		return PROFCONV_ERR_NOMEM;
	if (file == 0 && rs->fix_file0)
		file = 1;
	w = &rs->raw[rs->nraw++];
	w->addr = addr;
	w->line = line > UINT32_MAX ? 0 : (uint32_t)line;
	w->file = (file >= ROW_END ? 0 : (uint32_t)file) | (end ? ROW_END : 0);
	return end ? end_seq(d, cu, rs) : 0;
}

static void rowset_free(struct pc_dwarf *d, struct rowset *rs)
{
	pc_free(d->ctx, rs->raw);
	pc_free(d->ctx, rs->seqs);
	memset(rs, 0, sizeof(*rs));
}

/*
 * Our own line program reader.  libdwarf's dwarf_srclines_b() makes an
 * object per row (allocated, then freed one by one): on large units that
 * was most of the cost of a CU's first hit.  The rows here are those
 * libdwarf gives, register for register (its file register starts at 0 in
 * DWARF 5, workaround 3), for the well-formed programs compilers write:
 * DWARF 2 to 5, one operation per instruction, the standard opcodes with
 * their standard operand counts, and the extended opcodes end_sequence,
 * set_address and set_discriminator.  Anything else (a vendor opcode,
 * DW_LNE_define_file, a header whose tables do not end where its length
 * says, a truncated program) is left to libdwarf, which also reports it.
 */
struct lcur {
	const unsigned char *p, *end;
	int big;
	int bad;
};

static uint64_t lc_fixed(struct lcur *c, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * (c->big ? n - 1 - i : i));
	c->p += n;
	return v;
}

static uint64_t lc_uleb(struct lcur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		unsigned b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			c->bad = 1; /* does not fit */
		shift += 7;
		if (!(b & 0x80))
			return v;
		if (shift > 70)
			break;
	}
	c->bad = 1;
	return 0;
}

static int64_t lc_sleb(struct lcur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end && shift < 64) {
		unsigned b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	c->bad = 1;
	return 0;
}

static void lc_cstr(struct lcur *c, int *empty)
{
	const unsigned char *z = memchr(c->p, 0, (size_t)(c->end - c->p));

	if (!z) {
		c->bad = 1;
		c->p = c->end;
		*empty = 1;
		return;
	}
	*empty = z == c->p;
	c->p = z + 1;
}

/* Skip a DWARF 5 directory or file entry field of this form; 0 = known form. */
static int lc_skip_form(struct lcur *c, uint64_t form, unsigned offsz)
{
	int empty;

	switch (form) {
	case DW_FORM_string:
		lc_cstr(c, &empty);
		return 0;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
	case DW_FORM_sec_offset:
		lc_fixed(c, offsz);
		return 0;
	case DW_FORM_udata:
	case DW_FORM_strx:
		lc_uleb(c);
		return 0;
	case DW_FORM_data1:
	case DW_FORM_strx1:
		lc_fixed(c, 1);
		return 0;
	case DW_FORM_data2:
	case DW_FORM_strx2:
		lc_fixed(c, 2);
		return 0;
	case DW_FORM_strx3:
		lc_fixed(c, 3);
		return 0;
	case DW_FORM_data4:
	case DW_FORM_strx4:
		lc_fixed(c, 4);
		return 0;
	case DW_FORM_data8:
		lc_fixed(c, 8);
		return 0;
	case DW_FORM_data16:
		lc_fixed(c, 8);
		lc_fixed(c, 8);
		return 0;
	case DW_FORM_block: {
		uint64_t n = lc_uleb(c);

		if (n > (uint64_t)(c->end - c->p))
			c->bad = 1;
		else
			c->p += n;
		return 0;
	}
	default:
		return -1;
	}
}

/* DWARF 5's directory and file tables: their formats, then their entries. */
static int lc_skip_v5_table(struct lcur *c, unsigned offsz)
{
	uint64_t forms[32], count, i;
	unsigned nfmt = (unsigned)lc_fixed(c, 1), k;

	if (nfmt > 32)
		return -1;
	/* (with no formats, the count would be looped over reading nothing) */
	for (k = 0; k < nfmt; k++) {
		lc_uleb(c); /* content type */
		forms[k] = lc_uleb(c);
	}
	count = lc_uleb(c);
	if (count && !nfmt)
		return -1;
	for (i = 0; i < count && !c->bad; i++)
		for (k = 0; k < nfmt; k++)
			if (lc_skip_form(c, forms[k], offsz))
				return -1;
	return c->bad ? -1 : 0;
}

/* The standard opcodes' operand counts (DW_LNS_copy .. DW_LNS_set_isa). */
static const uint8_t std_lens[13] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };

/*
 * A section's bytes: *p and *n give them in the file, or, when it is
 * zlib-compressed (SHF_COMPRESSED), into *owned, inflated here (the caller
 * frees it).  1 = ready, 0 = unusable (not zlib, sizes that do not add up,
 * a stream that does not inflate to its stated size), -NOMEM.
 */
/*
 * A compressed section's stated size and header length: 1, or 0 when the
 * header is not zlib's or its sizes do not add up.
 */
static int chdr_size(const struct pc_dwarf_sec *sec, uint64_t *size_out, uint64_t *hdr_out)
{
	struct lcur c;
	uint64_t type, size, hdr;

	c.p = sec->p;
	c.end = sec->p + sec->size;
	c.big = sec->big_endian;
	c.bad = 0;
	type = lc_fixed(&c, 4);
	if (sec->is64) {
		lc_fixed(&c, 4); /* ch_reserved */
		size = lc_fixed(&c, 8);
		hdr = 24;
	} else {
		size = lc_fixed(&c, 4);
		hdr = 12;
	}
	/* zlib only; deflate inflates at most 1032 times */
	if (c.bad || type != 1 || sec->size < hdr || size == 0 ||
	    size / 1032 > sec->size - hdr + 1 || size > (uint64_t)(uLongf)-1 || size > SIZE_MAX)
		return 0;
	*size_out = size;
	*hdr_out = hdr;
	return 1;
}

static int sec_bytes(struct profconv_ctx *ctx, const struct pc_dwarf_sec *sec,
		     unsigned char **owned, const unsigned char **p, uint64_t *n)
{
	uint64_t size, hdr, zn, in_left, out_left;
	const unsigned char *z;
	z_stream zs;
	int zr;

	*owned = NULL;
	if (!sec->p)
		return 0;
	if (!sec->compressed) {
		*p = sec->p;
		*n = sec->size;
		return 1;
	}
	if (!chdr_size(sec, &size, &hdr))
		return 0;
	/*
	 * A zlib stream (RFC 1950): its header checked here, the deflate data
	 * inflated raw, without the Adler-32 of the output (a tenth of the
	 * inflating; our readers and libdwarf check what they read as they do
	 * for uncompressed sections).
	 */
	z = sec->p + hdr;
	zn = sec->size - hdr;
	if (zn < 2 || (z[0] & 0x0f) != 8 || (z[0] >> 4) > 7 || ((unsigned)z[0] << 8 | z[1]) % 31 ||
	    (z[1] & 0x20))
		return 0;
	*owned = pc_alloc(ctx, (size_t)size);
	if (!*owned)
		return -PROFCONV_ERR_NOMEM;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK) {
		pc_free(ctx, *owned);
		*owned = NULL;
		return -PROFCONV_ERR_NOMEM;
	}
	in_left = zn - 2;
	out_left = size;
	zs.next_in = (Bytef *)(uintptr_t)(z + 2);
	zs.next_out = *owned;
	do {
		if (!zs.avail_in && in_left) {
			zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
			in_left -= zs.avail_in;
		}
		if (!zs.avail_out && out_left) {
			zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
			out_left -= zs.avail_out;
		}
		zr = inflate(&zs, Z_NO_FLUSH);
	} while (zr == Z_OK);
	inflateEnd(&zs);
	if (zr != Z_STREAM_END || zs.total_out != size) {
		pc_free(ctx, *owned);
		*owned = NULL;
		return 0;
	}
	*p = *owned;
	*n = size;
	return 1;
}

/*
 * secs.all[k]'s bytes in sec_p[k]/sec_n[k], inflated on first use when
 * compressed and kept for libdwarf and our readers: 1 = ready, 0 =
 * unusable, -NOMEM.
 */
static int sec_data(struct pc_dwarf *d, uint32_t k)
{
	int r;

	if (d->sec_state[k])
		return d->sec_state[k] > 0;
	r = sec_bytes(d->ctx, &d->secs.all[k].s, &d->sec_owned[k], &d->sec_p[k], &d->sec_n[k]);
	if (r < 0)
		return r;
	d->sec_state[k] = r ? 1 : -1;
	return r;
}

/* .debug_line's bytes, inflated on first use when compressed: 1 = ready, 0 = none, -NOMEM. */
static int lines_ready(struct pc_dwarf *d)
{
	int r;

	if (d->lines_state)
		return d->lines_state > 0;
	if (d->line_k >= 0) {
		r = sec_data(d, (uint32_t)d->line_k);
		if (r < 0)
			return r;
		d->lines_state = r ? 1 : -1;
		d->lines = d->sec_p[d->line_k];
		d->nlines = d->sec_n[d->line_k];
		return r;
	}
	d->lines_state = -1;
	r = sec_bytes(d->ctx, &d->secs.line, &d->lines_owned, &d->lines, &d->nlines);
	if (r > 0)
		d->lines_state = 1;
	return r;
}

/*
 * Whether .debug_rnglists's unit headers hold together: each unit's length
 * within the section, version 5, an address size of 4 or 8, no segment
 * selectors, and its offset table inside the unit.  libdwarf reads these
 * headers when it opens a file, and the version Debian ships (20210528)
 * frees memory twice on some damaged ones (found by fuzz_sym.c): such a
 * file's DWARF is not handed to it.  1 = sound (or no such section), 0 =
 * damaged (*bad_off: the unit's offset; why: what was wrong), -NOMEM.
 */
static int rnglists_sound(struct pc_dwarf *d, const struct pc_dwarf_sec *sec,
			  uint64_t *bad_off, const char **why)
{
	struct profconv_ctx *ctx = d->ctx;
	unsigned char *owned;
	const unsigned char *p;
	uint64_t n, at = 0;
	uint32_t cap = 0;
	int r = sec_bytes(ctx, sec, &owned, &p, &n);

	if (r < 0)
		return r;
	if (r == 0) {
		*bad_off = 0;
		*why = "a compressed section that does not inflate";
		return sec->p ? 0 : 1;
	}
	r = 1;
	*why = NULL;
	while (at < n) {
		struct lcur c;
		uint64_t len, offsz = 4, count, tab, end, k;
		unsigned ver, asz, ssz;

		c.p = p + at;
		c.end = p + n;
		c.big = sec->big_endian;
		c.bad = 0;
		len = lc_fixed(&c, 4);
		if (len == 0xffffffffu) {
			len = lc_fixed(&c, 8);
			offsz = 8;
		} else if (len >= 0xfffffff0u) {
			*why = "a reserved unit length";
		}
		if (!*why && (c.bad || len < 8 || len > (uint64_t)(c.end - c.p)))
			*why = "a unit longer than the section";
		if (!*why) {
			end = (uint64_t)(c.p - p) + len;
			ver = (unsigned)lc_fixed(&c, 2);
			asz = (unsigned)lc_fixed(&c, 1);
			ssz = (unsigned)lc_fixed(&c, 1);
			count = lc_fixed(&c, 4);
			tab = (uint64_t)(c.p - p);
			if (ver != 5)
				*why = "a unit whose version is not 5";
			else if (asz != 4 && asz != 8)
				*why = "an address size other than 4 or 8";
			else if (ssz != 0)
				*why = "segment selectors";
			else if (count > (len - 8) / offsz)
				*why = "an offset table longer than its unit";
			/* every offset in the table must name a list inside the unit */
			for (k = 0; !*why && k < count; k++) {
				uint64_t o = lc_fixed(&c, (unsigned)offsz);

				if (o < count * offsz || o >= end - tab)
					*why = "an offset table entry outside its unit";
			}
			if (!*why) {
				if (pc_grow(ctx, (void **)&d->rl_units, sizeof(*d->rl_units), &cap,
					    (size_t)d->n_rl_units + 1)) {
					r = -PROFCONV_ERR_NOMEM;
					break;
				}
				d->rl_units[d->n_rl_units].lists = tab + count * offsz;
				d->rl_units[d->n_rl_units].end = end;
				d->n_rl_units++;
				if (count > d->rl_max_count)
					d->rl_max_count = (uint32_t)(count > UINT32_MAX ? UINT32_MAX : count);
			}
		}
		if (*why) {
			*bad_off = at;
			r = 0;
			break;
		}
		at += (offsz == 8 ? 12 : 4) + len;
	}
	pc_free(ctx, owned);
	return r;
}

/* Whether a DW_AT_ranges value is one rnglists_sound() found room for. */
static int rnglists_ref_ok(const struct pc_dwarf *d, Dwarf_Half form, uint64_t val)
{
	uint32_t i;

	if (!d->secs.rnglists.p)
		return 1; /* no section seen here: libdwarf finds none either */
	if (form == DW_FORM_rnglistx)
		return val < d->rl_max_count;
	for (i = 0; i < d->n_rl_units; i++)
		if (val >= d->rl_units[i].lists && val < d->rl_units[i].end)
			return 1;
	return 0;
}

/*
 * The CU's line program read by our reader: 1 = done (rs filled, *version
 * set, *empty when the program has no rows: no files either, as libdwarf's
 * table count 0), 0 = left to libdwarf (rs may hold rows: the caller frees
 * them), or minus an error code.
 */
static int own_lines(struct pc_dwarf *d, const struct dw_cu *cu, struct rowset *rs,
		     unsigned *version, int *empty)
{
	struct lcur c;
	const unsigned char *prog;
	uint64_t len, hlen, addr, file, line, file0;
	unsigned offsz = 4, ver, min_inst, line_range, opbase, i;
	int line_base, rc, e;
	uint8_t lens[256];

	if (!cu->has_stmt)
		return 0;
	rc = lines_ready(d);
	if (rc <= 0)
		return rc;
	if (cu->stmt_list >= d->nlines)
		return 0;
	c.p = d->lines + cu->stmt_list;
	c.end = d->lines + d->nlines;
	c.big = d->secs.line.big_endian;
	c.bad = 0;
	len = lc_fixed(&c, 4);
	if (len == 0xffffffffu) {
		offsz = 8;
		len = lc_fixed(&c, 8);
	} else if (len >= 0xfffffff0u) {
		return 0;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return 0;
	c.end = c.p + len;
	ver = (unsigned)lc_fixed(&c, 2);
	if (ver < 2 || ver > 5)
		return 0;
	if (ver >= 5) {
		lc_fixed(&c, 1); /* address_size */
		if (lc_fixed(&c, 1) != 0)
			return 0; /* segment selectors */
	}
	hlen = lc_fixed(&c, offsz);
	if (c.bad || hlen > (uint64_t)(c.end - c.p))
		return 0;
	prog = c.p + hlen;
	min_inst = (unsigned)lc_fixed(&c, 1);
	if (ver >= 4 && lc_fixed(&c, 1) != 1)
		return 0; /* VLIW: several operations per instruction */
	lc_fixed(&c, 1); /* default_is_stmt */
	line_base = (int8_t)lc_fixed(&c, 1);
	line_range = (unsigned)lc_fixed(&c, 1);
	opbase = (unsigned)lc_fixed(&c, 1);
	if (c.bad || !line_range || !opbase)
		return 0;
	for (i = 1; i < opbase; i++) {
		lens[i] = (uint8_t)lc_fixed(&c, 1);
		if (i < 13 && lens[i] != std_lens[i])
			return 0;
	}
	if (ver < 5) {
		do /* include_directories */
			lc_cstr(&c, &e);
		while (!e && !c.bad);
		for (;;) { /* file_names */
			lc_cstr(&c, &e);
			if (e || c.bad)
				break;
			lc_uleb(&c);
			lc_uleb(&c);
			lc_uleb(&c);
		}
	} else if (lc_skip_v5_table(&c, offsz) || lc_skip_v5_table(&c, offsz)) {
		return 0;
	}
	if (c.bad || c.p != prog)
		return 0;
	*version = ver;
	rs->fix_file0 = cu->is_gnu && ver >= 5; /* workaround 3 */
	*empty = prog >= c.end;
	if (*empty)
		return 1;
	file0 = ver >= 5 ? 0 : 1;
	addr = 0;
	file = file0;
	line = 1;
	rc = 0;
	while (c.p < c.end) {
		unsigned op = *c.p++;

		if (op >= opbase) {
			unsigned adj = op - opbase;

			addr += (uint64_t)min_inst * (adj / line_range);
			line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
			rc = add_row(d, cu, rs, addr, line, file, 0);
		} else if (op == 0) {
			const unsigned char *next;
			uint64_t n = lc_uleb(&c);

			if (c.bad || n == 0 || n > (uint64_t)(c.end - c.p))
				return 0;
			next = c.p + n;
			switch (*c.p++) {
			case DW_LNE_end_sequence:
				rc = add_row(d, cu, rs, addr, line, file, 1);
				addr = 0;
				file = file0;
				line = 1;
				break;
			case DW_LNE_set_address:
				if (n - 1 != 4 && n - 1 != 8)
					return 0;
				addr = lc_fixed(&c, (unsigned)(n - 1));
				break;
			case DW_LNE_set_discriminator:
				break;
			default:
				return 0;
			}
			c.p = next;
		} else {
			switch (op) {
			case DW_LNS_copy:
				rc = add_row(d, cu, rs, addr, line, file, 0);
				break;
			case DW_LNS_advance_pc:
				addr += (uint64_t)min_inst * lc_uleb(&c);
				break;
			case DW_LNS_advance_line:
				line += (uint64_t)lc_sleb(&c);
				break;
			case DW_LNS_set_file:
				file = lc_uleb(&c);
				break;
			case DW_LNS_const_add_pc:
				addr += (uint64_t)min_inst * ((255 - opbase) / line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				addr += lc_fixed(&c, 2);
				break;
			default: /* set_column, set_isa, and opcodes past DWARF's */
				for (i = 0; i < lens[op]; i++)
					lc_uleb(&c);
				break;
			}
		}
		if (rc)
			return -rc;
		if (c.bad)
			return 0;
	}
	/* rows after the last end_sequence make a sequence too */
	rc = end_seq(d, cu, rs);
	return rc ? -rc : 1;
}

static int load_lines(struct pc_dwarf *d, struct dw_cu *cu, Dwarf_Die cu_die)
{
	Dwarf_Unsigned version;
	Dwarf_Small tcount;
	Dwarf_Line_Context lctx;
	Dwarf_Line *lines;
	Dwarf_Signed n = 0, i, base, count, end;
	Dwarf_Error err = NULL;
	struct rowset rs;
	unsigned own_version = 0;
	int rc = 0, empty = 0, bad = 0;

	memset(&rs, 0, sizeof(rs));
	rc = own_lines(d, cu, &rs, &own_version, &empty);
	if (rc < 0) {
		rc = -rc;
		goto done;
	}
	if (rc == 1) {
		rc = 0;
		if (empty)
			goto done;
		/* libdwarf's first file index: 0 in DWARF 5, else 1 */
		rc = load_files(d, cu, cu_die, own_version >= 5 ? 0 : 1, 1);
		version = own_version;
		if (rc >= 0)
			goto rows;
		rc = 0;
	}
	rowset_free(d, &rs);
	if (dwarf_srclines_b(cu_die, &version, &tcount, &lctx, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return 0;
	}
	if (tcount != 1)
		goto out;
	base = 0;
	if (dwarf_srclines_files_indexes(lctx, &base, &count, &end, &err) != DW_DLV_OK)
		drop(d, &err);
	rc = load_files(d, cu, cu_die, base, 0);
	if (rc)
		goto out;
	if (dwarf_srclines_from_linecontext(lctx, &lines, &n, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		goto out;
	}
	if (n <= 0 || n >= (Dwarf_Signed)UINT32_MAX)
		goto out;
	if (pc_grow(d->ctx, (void **)&rs.raw, sizeof(*rs.raw), &rs.cap_raw, (size_t)n)) {
		rc = PROFCONV_ERR_NOMEM;
		goto out;
	}
	rs.fix_file0 = cu->is_gnu && version >= 5; /* workaround 3 */
	for (i = 0; i < n && !rc && !bad; i++) {
		Dwarf_Addr addr;
		Dwarf_Unsigned line, file;
		Dwarf_Bool end_seq_row;

		if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK ||
		    dwarf_lineno(lines[i], &line, &err) != DW_DLV_OK ||
		    dwarf_line_srcfileno(lines[i], &file, &err) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end_seq_row, &err) != DW_DLV_OK) {
			drop(d, &err);
			bad = 1; /* the rows after the last whole sequence are dropped */
			break;
		}
		rc = add_row(d, cu, &rs, addr, line, file, end_seq_row);
	}
	/* the last row ends a sequence too */
	if (!rc && !bad)
		rc = end_seq(d, cu, &rs);
out:
	dwarf_srclines_dealloc_b(lctx);
rows:
	if (!rc) {
		if (!cu->is_gnu && version >= 5)
			fix_llvm_file1(d, cu, rs.raw, rs.seqs, rs.nseqs);
		rc = sort_rows(d, cu, rs.raw, rs.seqs, rs.nseqs);
	}
done:
	rowset_free(d, &rs);
	return rc;
}

static int finish_cu(struct pc_dwarf *d, struct dw_cu *cu)
{
	uint32_t i;

	if (cu->nsubs) {
		qsort(cu->subs, cu->nsubs, sizeof(*cu->subs), range_lo_cmp);
		cu->subs_maxhi = pc_alloc(d->ctx, (size_t)cu->nsubs * sizeof(*cu->subs_maxhi));
		if (!cu->subs_maxhi)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < cu->nsubs; i++)
			cu->subs_maxhi[i] = i && cu->subs_maxhi[i - 1] > cu->subs[i].hi
						    ? cu->subs_maxhi[i - 1]
						    : cu->subs[i].hi;
	}
	if (cu->ninls)
		qsort(cu->inls, cu->ninls, sizeof(*cu->inls), range_sub_cmp);
	for (i = 0; i < cu->ninls; i++) {
		struct dw_node *s = &cu->nodes[cu->inls[i].sub];

		if (i == 0 || cu->inls[i - 1].sub != cu->inls[i].sub)
			s->inl_begin = i;
		s->inl_end = i + 1;
		s->max_depth = cu->inls[i].depth;
	}
	return 0;
}

/*
 * Our own DIE walk, for C units.  Walking a unit through libdwarf costs an
 * allocation per DIE and per attribute, and a search of the abbreviation
 * for each sibling step: on libpython's large C units that was most of
 * indexing them.  In a C unit the walk needs no names (C has no scopes: no
 * namespaces, no member functions), so it reads DIEs here, straight from
 * .debug_info and .debug_abbrev, and makes the same nodes and ranges, in
 * the same order, as walk() does.  It takes uncompressed sections, DWARF 2
 * to 5, and the forms GCC and clang write for the attributes it reads
 * (addresses as DW_FORM_addr, ranges as DW_FORM_sec_offset into
 * .debug_rnglists or .debug_ranges, references within the unit or
 * DW_FORM_ref_addr); anything else (an unknown form, DW_FORM_addrx, a
 * truncated unit, a namespace in a C unit) and the unit is walked again by
 * libdwarf, which also reports what is wrong with it.
 */
struct ow_abbrev {
	uint64_t tag;
	uint32_t first, n; /* its attributes in ow.specs */
	uint8_t children;
	uint8_t used;
};

struct ow_spec {
	uint64_t at, form;
	int64_t implicit;
};

struct ow {
	struct pc_dwarf *d;
	struct dw_cu *cu;
	struct lcur c;	   /* over the unit */
	const unsigned char *info;
	struct ow_abbrev *abbrevs; /* by code */
	uint32_t nabbrevs, cap_abbrevs;
	struct ow_spec *specs;
	uint32_t nspecs, cap_specs;
	unsigned offsz, addr_size, version;
	int fallback;	   /* leave the unit to libdwarf */
};

/* What the walk reads of one DIE (the attributes read_attrs() gives it). */
struct ow_die {
	uint64_t off;
	const struct ow_abbrev *ab;
	struct die_info in;
	int has_ranges_attr, has_low_attr;
	uint64_t ranges_off;
	uint64_t sibling; /* DW_AT_sibling (has_sibling): where its children must end */
	int has_sibling;
};

#define OW_MAX_CODE 65536

/* The forms ow_value() reads (DW_FORM_indirect is not one). */
static int known_form(uint64_t form)
{
	return (form >= DW_FORM_addr && form <= DW_FORM_addrx4 && form != 0x02 &&
		form != DW_FORM_indirect) ||
	       form == DW_FORM_GNU_addr_index || form == DW_FORM_GNU_str_index ||
	       form == DW_FORM_GNU_ref_alt || form == DW_FORM_GNU_strp_alt;
}

static int ow_abbrevs(struct ow *w)
{
	const struct pc_dwarf_sec *sec = &w->d->secs.abbrev;
	struct lcur c;

	if (!sec->p || sec->compressed || w->cu->abbrev_off >= sec->size)
		return -1;
	c.p = sec->p + w->cu->abbrev_off;
	c.end = sec->p + sec->size;
	c.big = sec->big_endian;
	c.bad = 0;
	for (;;) {
		uint64_t code = lc_uleb(&c), at, form, ch;
		struct ow_abbrev *a;

		if (c.bad)
			return -1;
		if (code == 0)
			return 0;
		if (code >= OW_MAX_CODE)
			return -1;
		if (code >= w->nabbrevs) {
			uint32_t old = w->cap_abbrevs;

			if (pc_grow(w->d->ctx, (void **)&w->abbrevs, sizeof(*w->abbrevs),
				    &w->cap_abbrevs, (size_t)code + 1))
				return PROFCONV_ERR_NOMEM;
			memset(w->abbrevs + old, 0, (w->cap_abbrevs - old) * sizeof(*w->abbrevs));
			w->nabbrevs = (uint32_t)code + 1;
		}
		a = &w->abbrevs[code];
		if (a->used)
			return -1; /* a code defined twice */
		a->used = 1;
		a->tag = lc_uleb(&c);
		ch = lc_fixed(&c, 1);
		if (a->tag == 0 || a->tag > 0xffff || ch > 1)
			return -1;
		a->children = (uint8_t)ch;
		a->first = w->nspecs;
		for (;;) {
			at = lc_uleb(&c);
			form = lc_uleb(&c);
			if (c.bad)
				return -1;
			if (at == 0 && form == 0)
				break;
			/* libdwarf rejects a unit whose abbreviations hold an unknown form */
			if (at == 0 || at > 0x3fff || !known_form(form))
				return -1;
			if (pc_grow(w->d->ctx, (void **)&w->specs, sizeof(*w->specs), &w->cap_specs,
				    (size_t)w->nspecs + 1))
				return PROFCONV_ERR_NOMEM;
			w->specs[w->nspecs].at = at;
			w->specs[w->nspecs].form = form;
			w->specs[w->nspecs].implicit = form == DW_FORM_implicit_const ? lc_sleb(&c) : 0;
			w->nspecs++;
		}
		a->n = w->nspecs - a->first;
	}
}

/* A value of form: *v the number it holds (offsets, constants, addresses); -1 unknown form. */
static int ow_value(struct ow *w, uint64_t form, int64_t implicit, uint64_t *v)
{
	struct lcur *c = &w->c;
	uint64_t n;
	int empty;

	*v = 0;
	switch (form) {
	case DW_FORM_addr:
		*v = lc_fixed(c, w->addr_size);
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		*v = lc_fixed(c, 1);
		return 0;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		*v = lc_fixed(c, 2);
		return 0;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		*v = lc_fixed(c, 3);
		return 0;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_ref_sup4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
		*v = lc_fixed(c, 4);
		return 0;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		*v = lc_fixed(c, 8);
		return 0;
	case DW_FORM_data16:
		lc_fixed(c, 8);
		lc_fixed(c, 8);
		return 0;
	case DW_FORM_sdata:
		*v = (uint64_t)lc_sleb(c);
		return 0;
	case DW_FORM_udata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		*v = lc_uleb(c);
		return 0;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		*v = lc_fixed(c, w->offsz);
		return 0;
	case DW_FORM_ref_addr:
		*v = lc_fixed(c, w->version <= 2 ? w->addr_size : w->offsz);
		return 0;
	case DW_FORM_string:
		lc_cstr(c, &empty);
		return 0;
	case DW_FORM_block1:
		n = lc_fixed(c, 1);
		break;
	case DW_FORM_block2:
		n = lc_fixed(c, 2);
		break;
	case DW_FORM_block4:
		n = lc_fixed(c, 4);
		break;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		n = lc_uleb(c);
		break;
	case DW_FORM_flag_present:
		*v = 1;
		return 0;
	case DW_FORM_implicit_const:
		*v = (uint64_t)implicit;
		return 0;
	default:
		return -1; /* DW_FORM_indirect and anything unknown */
	}
	if (n > (uint64_t)(c->end - c->p))
		c->bad = 1;
	else
		c->p += n;
	return 0;
}

static int is_ref_form(uint64_t form)
{
	return form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 ||
	       form == DW_FORM_ref8 || form == DW_FORM_ref_udata;
}

static int is_const_form(uint64_t form)
{
	return form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 ||
	       form == DW_FORM_data8 || form == DW_FORM_udata || form == DW_FORM_implicit_const;
}

/* The DIE at the cursor; 0 = read, 1 = a null entry (end of siblings), -1 = fall back. */
static int ow_die(struct ow *w, struct ow_die *e)
{
	struct lcur *c = &w->c;
	uint64_t code;
	uint32_t k;

	e->off = (uint64_t)(c->p - w->info);
	code = lc_uleb(c);
	if (c->bad)
		return -1;
	if (code == 0)
		return 1;
	if (code >= w->nabbrevs || !w->abbrevs[code].used)
		return -1;
	e->ab = &w->abbrevs[code];
	memset(&e->in, 0, sizeof(e->in));
	e->has_ranges_attr = e->has_low_attr = 0;
	e->ranges_off = 0;
	e->sibling = 0;
	e->has_sibling = 0;
	for (k = 0; k < e->ab->n; k++) {
		const struct ow_spec *sp = &w->specs[e->ab->first + k];
		uint64_t v;

		if (ow_value(w, sp->form, sp->implicit, &v) || c->bad)
			return -1;
		switch (sp->at) {
		case DW_AT_low_pc:
			if (sp->form != DW_FORM_addr)
				return -1;
			e->has_low_attr = 1;
			e->in.low = v;
			e->in.has_low = 1;
			break;
		case DW_AT_high_pc:
			if (sp->form == DW_FORM_addr) {
				e->in.high = v;
			} else if (is_const_form(sp->form)) {
				e->in.high = v;
				e->in.high_is_off = 1;
			} else {
				return -1;
			}
			e->in.has_high = 1;
			break;
		case DW_AT_ranges:
			if (sp->form != DW_FORM_sec_offset)
				return -1;
			if (!e->has_ranges_attr) {
				e->has_ranges_attr = 1;
				e->ranges_off = v;
			}
			break;
		case DW_AT_abstract_origin:
		case DW_AT_specification:
			if (is_ref_form(sp->form))
				v += w->cu->unit_off;
			else if (sp->form != DW_FORM_ref_addr)
				return -1;
			if (sp->at == DW_AT_abstract_origin)
				e->in.origin = v;
			else
				e->in.spec = v;
			break;
		case DW_AT_call_file:
		case DW_AT_call_line:
			if (!is_const_form(sp->form))
				return -1;
			if (sp->at == DW_AT_call_file)
				e->in.call_file = v;
			else
				e->in.call_line = v;
			break;
		case DW_AT_sibling:
			if (!is_ref_form(sp->form))
				return -1;
			e->sibling = v + w->cu->unit_off;
			e->has_sibling = 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/*
 * Past the children of a DIE just read (its subtree); 0 or -1.  Nesting
 * deeper than OW_MAX_SKIP (only a hostile file has it) is left to libdwarf.
 */
#define OW_MAX_SKIP (4 * MAX_DIE_DEPTH)

/*
 * A DIE's children ended at the cursor: where its DW_AT_sibling says, if
 * it has one (libdwarf steps to the sibling by it and rejects a bad one:
 * any disagreement leaves the unit to libdwarf).  0 or -1.
 */
static int ow_children_end(const struct ow *w, const struct ow_die *e)
{
	return e->has_sibling && e->sibling != (uint64_t)(w->c.p - w->info) ? -1 : 0;
}

static int ow_skip(struct ow *w, const struct ow_die *e, unsigned nest)
{
	struct ow_die k;
	int r;

	if (!e->ab->children)
		return 0;
	if (nest > OW_MAX_SKIP)
		return -1;
	for (;;) {
		r = ow_die(w, &k);
		if (r < 0)
			return -1;
		if (r > 0)
			return ow_children_end(w, e);
		if (ow_skip(w, &k, nest + 1))
			return -1;
	}
}

static int ow_skip_children(struct ow *w, const struct ow_die *e)
{
	return ow_skip(w, e, 0);
}

/* A range list's ranges into d->rbuf (rnglists() and v4_ranges() on our bytes). */
static int ow_ranges(struct ow *w, uint64_t off)
{
	struct pc_dwarf *d = w->d;
	const struct dw_cu *cu = w->cu;
	int v5 = cu->version >= 5;
	const struct pc_dwarf_sec *sec = v5 ? &d->secs.rnglists : &d->secs.ranges;
	uint64_t base = cu->base, maxa = cu->addr_size == 4 ? UINT32_MAX : UINT64_MAX;
	struct lcur c;

	d->nr = 0;
	if (!sec->p || sec->compressed || off >= sec->size)
		return -1;
	c.p = sec->p + off;
	c.end = sec->p + sec->size;
	c.big = sec->big_endian;
	c.bad = 0;
	for (;;) {
		uint64_t a, b;
		int r = 0;

		if (v5) {
			switch (lc_fixed(&c, 1)) {
			case DW_RLE_end_of_list:
				return c.bad ? -1 : 0;
			case DW_RLE_offset_pair:
				a = lc_uleb(&c);
				b = lc_uleb(&c);
				r = push_range(d, cu, base + a, base + b);
				break;
			case DW_RLE_base_address:
				base = lc_fixed(&c, cu->addr_size);
				break;
			case DW_RLE_start_end:
				a = lc_fixed(&c, cu->addr_size);
				b = lc_fixed(&c, cu->addr_size);
				r = push_range(d, cu, a, b);
				break;
			case DW_RLE_start_length:
				a = lc_fixed(&c, cu->addr_size);
				b = lc_uleb(&c);
				r = push_range(d, cu, a, a + b);
				break;
			default:
				return -1; /* the addrx kinds, or not a range list */
			}
		} else {
			a = lc_fixed(&c, cu->addr_size);
			b = lc_fixed(&c, cu->addr_size);
			if (c.bad)
				return -1;
			if (a == 0 && b == 0)
				return 0;
			if (a == maxa)
				base = b;
			else
				r = push_range(d, cu, base + a, base + b);
		}
		if (r)
			return r;
		if (c.bad)
			return -1;
	}
}

/* die_ranges() for a DIE read here; 0, -1 (fall back) or an error code. */
static int ow_die_ranges(struct ow *w, struct ow_die *e)
{
	struct pc_dwarf *d = w->d;

	d->nr = 0;
	if (e->in.has_low && e->in.has_high)
		return push_range(d, w->cu, e->in.low,
				  e->in.high_is_off ? e->in.low + e->in.high : e->in.high);
	if (!e->has_ranges_attr)
		return 0;
	return ow_ranges(w, e->ranges_off);
}

static int ow_walk(struct ow *w, const struct ow_die *parent_die, uint32_t sub, uint32_t parent,
		   uint32_t depth, unsigned level);

/* visit() for a C unit; the cursor is past e's attributes, and ends past its subtree. */
static int ow_visit(struct ow *w, struct ow_die *e, uint32_t sub, uint32_t parent, uint32_t depth,
		    unsigned level)
{
	struct pc_dwarf *d = w->d;
	struct dw_cu *cu = w->cu;
	uint32_t node;
	int r;

	switch (e->ab->tag) {
	case DW_TAG_subprogram:
		if (!e->has_low_attr && !e->has_ranges_attr)
			return ow_skip_children(w, e);
		r = ow_die_ranges(w, e);
		if (r)
			return r;
		if (!d->nr)
			return ow_skip_children(w, e);
		node = new_node(d, cu, e->off, PC_NONE, &e->in);
		if (node == PC_NONE ||
		    add_ranges(d, &cu->subs, &cu->nsubs, &cu->cap_subs, node, node, 0))
			return PROFCONV_ERR_NOMEM;
		return ow_walk(w, e, node, node, 0, level + 1);
	case DW_TAG_inlined_subroutine:
		if (sub == PC_NONE)
			return ow_skip_children(w, e);
		r = ow_die_ranges(w, e);
		if (r)
			return r;
		node = new_node(d, cu, e->in.origin ? e->in.origin : e->off, parent, &e->in);
		if (node == PC_NONE ||
		    add_ranges(d, &cu->inls, &cu->ninls, &cu->cap_inls, node, sub, depth + 1))
			return PROFCONV_ERR_NOMEM;
		return ow_walk(w, e, sub, node, depth + 1, level + 1);
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		if (sub == PC_NONE)
			return ow_skip_children(w, e);
		return ow_walk(w, e, sub, parent, depth, level + 1);
	case DW_TAG_namespace:
		return -1; /* not C after all */
	default:
		return ow_skip_children(w, e);
	}
}

/* walk(): the children of parent_die, the cursor just past its attributes. */
static int ow_walk(struct ow *w, const struct ow_die *parent_die, uint32_t sub, uint32_t parent,
		   uint32_t depth, unsigned level)
{
	struct ow_die e;
	int r;

	if (!parent_die->ab->children)
		return 0;
	if (level > MAX_DIE_DEPTH)
		return ow_skip_children(w, parent_die);
	for (;;) {
		r = ow_die(w, &e);
		if (r)
			return r > 0 ? ow_children_end(w, parent_die) : -1;
		r = ow_visit(w, &e, sub, parent, depth, level);
		if (r)
			return r;
	}
}

/*
 * Walk a C unit here: 0 = done (the unit's nodes and ranges made), -1 =
 * not for us (nothing made), or an error code.
 */
static int own_walk(struct pc_dwarf *d, struct dw_cu *cu)
{
	const struct pc_dwarf_sec *info = &d->secs.info;
	struct ow w;
	struct ow_die root;
	int r;

	if (!cu->is_c || !info->p || info->compressed || cu->unit_end > info->size ||
	    cu->die_off < cu->unit_off || cu->die_off >= cu->unit_end || cu->version < 2 ||
	    cu->version > 5 || (cu->offsz != 4 && cu->offsz != 8) ||
	    (cu->addr_size != 4 && cu->addr_size != 8))
		return -1;
	memset(&w, 0, sizeof(w));
	w.d = d;
	w.cu = cu;
	w.info = info->p;
	w.offsz = cu->offsz;
	w.addr_size = cu->addr_size;
	w.version = cu->version;
	r = ow_abbrevs(&w);
	if (!r) {
		w.c.p = info->p + cu->die_off;
		w.c.end = info->p + cu->unit_end;
		w.c.big = info->big_endian;
		w.c.bad = 0;
		r = ow_die(&w, &root);
		if (r == 0 && root.ab->tag != DW_TAG_compile_unit &&
		    root.ab->tag != DW_TAG_partial_unit)
			r = -1;
		else if (r > 0)
			r = -1;
		if (!r)
			r = ow_walk(&w, &root, PC_NONE, PC_NONE, 0, 0);
	}
	pc_free(d->ctx, w.abbrevs);
	pc_free(d->ctx, w.specs);
	if (r < 0) {
		/* undo: libdwarf walks it from the start */
		cu->nnodes = cu->nsubs = cu->ninls = 0;
		d->nr = 0;
	}
	return r;
}

static int same_ranges(const struct dw_range *a, const struct dw_range *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (a[i].lo != b[i].lo || a[i].hi != b[i].hi || a[i].node != b[i].node ||
		    a[i].sub != b[i].sub || a[i].depth != b[i].depth)
			return 0;
	return 1;
}

/* The unit's nodes and ranges made by our walk and by libdwarf's: 1 same, 0 not, -1 not ours. */
static int check_walk(struct pc_dwarf *d, const struct dw_cu *cu)
{
	struct dw_cu a = *cu, b = *cu;
	Dwarf_Die die;
	Dwarf_Error err = NULL;
	int same = -1;

	a.nodes = b.nodes = NULL;
	a.subs = b.subs = a.inls = b.inls = NULL;
	a.nnodes = b.nnodes = a.cap_nodes = b.cap_nodes = 0;
	a.nsubs = b.nsubs = a.cap_subs = b.cap_subs = 0;
	a.ninls = b.ninls = a.cap_inls = b.cap_inls = 0;
	if (own_walk(d, &a) == 0) {
		same = 0;
		if (dwarf_offdie_b(d->dbg, cu->die_off, 1, &die, &err) == DW_DLV_OK) {
			same = walk(d, &b, die, PC_NONE, PC_NONE, 0, 0) == 0 && a.nnodes == b.nnodes &&
			       a.nsubs == b.nsubs && a.ninls == b.ninls &&
			       (!a.nnodes ||
				memcmp(a.nodes, b.nodes, a.nnodes * sizeof(*a.nodes)) == 0) &&
			       same_ranges(a.subs, b.subs, a.nsubs) && same_ranges(a.inls, b.inls, a.ninls);
			dwarf_dealloc_die(die);
		} else if (err) {
			dwarf_dealloc_error(d->dbg, err);
		}
	}
	pc_free(d->ctx, a.nodes);
	pc_free(d->ctx, b.nodes);
	pc_free(d->ctx, a.subs);
	pc_free(d->ctx, b.subs);
	pc_free(d->ctx, a.inls);
	pc_free(d->ctx, b.inls);
	return same;
}

/*
 * For the tests: every unit read both ways, by our readers and by
 * libdwarf: the line program's rows (same rows, sequences, version and
 * first file index), and a C unit's walk (same nodes and ranges).
 * *lines, *walks: the units our readers took; returns those that differ.
 */
static uint32_t check_own_unlocked(struct pc_dwarf *d, uint32_t *lines_units, uint32_t *walks)
{
	uint32_t k, bad = 0;

	*lines_units = *walks = 0;
	for (k = 0; k < d->ncus; k++) {
		struct dw_cu *cu = &d->cus[k];
		struct rowset a, b;
		Dwarf_Die die;
		Dwarf_Error err = NULL;
		Dwarf_Unsigned version = 0;
		Dwarf_Small tcount = 0;
		Dwarf_Line_Context lctx;
		Dwarf_Line *lines;
		Dwarf_Signed n = 0, i, base = -1, count, end;
		unsigned own_version = 0;
		int empty = 0, same = 1;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		same = check_walk(d, cu);
		if (same >= 0) {
			++*walks;
			bad += !same;
		}
		if (own_lines(d, cu, &a, &own_version, &empty) != 1) {
			rowset_free(d, &a);
			continue;
		}
		++*lines_units;
		if (dwarf_offdie_b(d->dbg, cu->die_off, 1, &die, &err) != DW_DLV_OK) {
			if (err)
				dwarf_dealloc_error(d->dbg, err);
			rowset_free(d, &a);
			bad++;
			continue;
		}
		same = 1;
		if (dwarf_srclines_b(die, &version, &tcount, &lctx, &err) != DW_DLV_OK) {
			if (err)
				dwarf_dealloc_error(d->dbg, err);
			same = 0;
		} else {
			same = (tcount == 1) == !empty && (empty || version == own_version);
			if (same && !empty &&
			    dwarf_srclines_files_indexes(lctx, &base, &count, &end, &err) == DW_DLV_OK)
				same = base == (own_version >= 5 ? 0 : 1);
			if (same && !empty &&
			    dwarf_srclines_from_linecontext(lctx, &lines, &n, &err) == DW_DLV_OK) {
				b.fix_file0 = a.fix_file0;
				for (i = 0; i < n && same; i++) {
					Dwarf_Addr addr = 0;
					Dwarf_Unsigned line = 0, file = 0;
					Dwarf_Bool es = 0;

					same = dwarf_lineaddr(lines[i], &addr, &err) == DW_DLV_OK &&
					       dwarf_lineno(lines[i], &line, &err) == DW_DLV_OK &&
					       dwarf_line_srcfileno(lines[i], &file, &err) == DW_DLV_OK &&
					       dwarf_lineendsequence(lines[i], &es, &err) == DW_DLV_OK &&
					       add_row(d, cu, &b, addr, line, file, es) == 0;
				}
				same = same && end_seq(d, cu, &b) == 0 && a.nraw == b.nraw &&
				       a.nseqs == b.nseqs &&
				       (!a.nraw || memcmp(a.raw, b.raw, a.nraw * sizeof(*a.raw)) == 0) &&
				       (!a.nseqs || memcmp(a.seqs, b.seqs, a.nseqs * sizeof(*a.seqs)) == 0);
			} else if (same && !empty) {
				same = 0;
			}
			if (err)
				dwarf_dealloc_error(d->dbg, err);
			dwarf_srclines_dealloc_b(lctx);
		}
		dwarf_dealloc_die(die);
		rowset_free(d, &a);
		rowset_free(d, &b);
		bad += !same;
	}
	return bad;
}

static int load_cu(struct pc_dwarf *d, struct dw_cu *cu)
{
	Dwarf_Die die;
	Dwarf_Error err = NULL;
	int rc;

	cu->loaded = 1; /* whatever happens, this CU is read once */
	if (dwarf_offdie_b(d->dbg, cu->die_off, 1, &die, &err) != DW_DLV_OK) {
		if (err)
			drop(d, &err);
		return d->status;
	}
	rc = own_walk(d, cu);
	if (rc < 0)
		rc = walk(d, cu, die, PC_NONE, PC_NONE, 0, 0);
	if (!rc)
		rc = finish_cu(d, cu);
	if (!rc)
		rc = load_lines(d, cu, die);
	dwarf_dealloc_die(die);
	/* complete: lookups without the lock may read it from now on */
	if (!rc && !d->status)
		__atomic_store_n(&cu->state, CU_READY, __ATOMIC_RELEASE);
	return rc ? rc : d->status;
}

/* --- names --- */

static const char *resolve_name(struct pc_dwarf *d, Dwarf_Off off)
{
	const char **cached = offmap_get(&d->names, off);
	const char *linkage = NULL, *qual = NULL, *bare = NULL, *name;
	Dwarf_Off cur = off;
	unsigned hop;

	if (cached)
		return *cached;
	for (hop = 0; hop < MAX_REF_HOPS && cur; hop++) {
		const char **q = offmap_get(&d->quals, cur);
		Dwarf_Error err = NULL;
		struct die_info in;
		Dwarf_Die die;

		if (q && !qual)
			qual = *q;
		if (dwarf_offdie_b(d->dbg, cur, 1, &die, &err) != DW_DLV_OK) {
			if (err)
				drop(d, &err);
			break;
		}
		read_attrs(d, die, &in, RD_NAME | RD_LINKAGE);
		free_attrs(&in);
		dwarf_dealloc_die(die);
		if (in.linkage) {
			linkage = in.linkage;
			break;
		}
		if (in.name && !bare)
			bare = in.name;
		cur = in.origin ? in.origin : in.spec;
	}
	if (linkage) {
		name = pc_demangle(linkage, d->dembuf, sizeof(d->dembuf));
		if (name == d->dembuf)
			name = arena_strndup(d, name, strlen(name));
	} else {
		name = qual ? qual : bare ? bare : "<unnamed>";
	}
	if (!name || offmap_put(d, &d->names, off, name))
		return NULL;
	return name;
}

static const char *node_name(struct pc_dwarf *d, struct dw_node *n)
{
	if (!n->name)
		__atomic_store_n(&n->name, resolve_name(d, n->name_off), __ATOMIC_RELEASE);
	return n->name;
}

static const char *file_name(const struct dw_cu *cu, uint32_t file)
{
	int64_t i = (int64_t)file - cu->file_base;

	if (i < 0 || i >= (int64_t)cu->nfiles)
		return NULL;
	return cu->files[i];
}

/* --- lookup --- */

static const struct dw_row *find_row(const struct dw_cu *cu, uint64_t a)
{
	uint32_t lo = 0, hi = cu->nrows;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cu->rows[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || (cu->rows[lo - 1].file & ROW_END))
		return NULL;
	return &cu->rows[lo - 1];
}

static const struct dw_range *find_sub(const struct dw_cu *cu, uint64_t a)
{
	uint32_t lo = 0, hi = cu->nsubs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cu->subs[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && cu->subs_maxhi[lo] > a)
		if (a < cu->subs[lo].hi)
			return &cu->subs[lo];
	return NULL;
}

/* The inline node at depth dd covering a within a sub's inls [b, e), or PC_NONE. */
static uint32_t find_inline(const struct dw_cu *cu, uint32_t b, uint32_t e, uint32_t dd,
			    uint64_t a)
{
	uint32_t lo = b, hi = e;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct dw_range *g = &cu->inls[mid];

		if (g->depth < dd || (g->depth == dd && g->lo <= a))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b)
		return PC_NONE;
	if (cu->inls[lo - 1].depth != dd || a >= cu->inls[lo - 1].hi)
		return PC_NONE;
	return cu->inls[lo - 1].node;
}

/* The deepest function (inline or not) covering a; PC_NONE if none. */
static uint32_t innermost_node(const struct dw_cu *cu, uint64_t a, const struct dw_range **sub)
{
	const struct dw_range *sr = find_sub(cu, a);
	const struct dw_node *s;
	uint32_t deepest, dd;

	if (sub)
		*sub = sr;
	if (!sr)
		return PC_NONE;
	s = &cu->nodes[sr->node];
	deepest = sr->node;
	for (dd = 1; dd <= s->max_depth && s->inl_end > s->inl_begin; dd++) {
		uint32_t x = find_inline(cu, s->inl_begin, s->inl_end, dd, a);

		if (x != PC_NONE)
			deepest = x;
	}
	return deepest;
}

/*
 * fast: without the lock, a name not resolved yet makes it give up
 * (PC_DWARF_SLOW) instead of resolving it.
 */
static int fill_chain(struct pc_dwarf *d, struct dw_cu *cu, const struct dw_range *sr,
		      uint32_t deepest, uint64_t a, struct pc_dwarf_hit *hit, int fast)
{
	uint32_t chain[MAX_CHAIN], n = 0, k, skip;
	const struct dw_row *row;

	/* innermost first, then reversed */
	for (k = deepest; k != PC_NONE && n < MAX_CHAIN; k = cu->nodes[k].parent)
		chain[n++] = k;
	for (k = 0; k < n / 2; k++) {
		uint32_t t = chain[k];

		chain[k] = chain[n - 1 - k];
		chain[n - 1 - k] = t;
	}
	/* too deep: keep the outer function and the innermost levels */
	skip = n > PC_MAX_INLINE ? n - PC_MAX_INLINE : 0;
	hit->nframes = n - skip;
	for (k = 0; k < hit->nframes; k++) {
		uint32_t c = k == 0 ? 0 : k + skip;
		struct pc_sym_frame *f = &hit->frames[k];

		if (fast) {
			f->name = __atomic_load_n(&cu->nodes[chain[c]].name, __ATOMIC_ACQUIRE);
			if (!f->name)
				return PC_DWARF_SLOW;
			goto named;
		}
		f->name = node_name(d, &cu->nodes[chain[c]]);
		if (!f->name)
			return PROFCONV_ERR_NOMEM;
named:
		if (c + 1 < n) {
			const struct dw_node *callee = &cu->nodes[chain[c + 1]];

			f->file = file_name(cu, callee->call_file);
			f->line = callee->call_line;
		} else {
			row = find_row(cu, a);
			f->file = row ? file_name(cu, row->file & ~ROW_END) : NULL;
			f->line = row ? row->line : 0;
		}
	}
	hit->sub_lo = sr->lo;
	hit->sub_hi = sr->hi;
	return 0;
}

/*
 * fast: the lookup without the lock, on what is indexed already: it reads
 * only CUs published as ready and names published as resolved, and gives
 * PC_DWARF_SLOW where it would need libdwarf or the handle's caches.
 */
static int dwarf_lookup_unlocked(struct pc_dwarf *d, uint64_t a, struct pc_dwarf_hit *hit,
				 int fast)
{
	const struct dw_row *line_row = NULL;
	const struct dw_cu *line_cu = NULL;
	uint32_t lo = 0, hi = d->ncrs;
	int rc, status = __atomic_load_n(&d->status, __ATOMIC_RELAXED);

	hit->nframes = 0;
	hit->sub_lo = hit->sub_hi = 0;
	if (status)
		return fast ? PC_DWARF_SLOW : -status;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->crs[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && d->crs_maxhi[lo] > a) {
		struct dw_cu *cu;
		const struct dw_range *sr;
		uint32_t deepest;

		if (a >= d->crs[lo].hi)
			continue;
		cu = &d->cus[d->crs[lo].cu];
		if (fast) {
			if (__atomic_load_n(&cu->state, __ATOMIC_ACQUIRE) != CU_READY)
				return PC_DWARF_SLOW;
		} else if (!cu->loaded) {
			rc = load_cu(d, cu);
			if (rc)
				return -rc;
		}
		deepest = cu->nsubs ? innermost_node(cu, a, &sr) : PC_NONE;
		if (deepest != PC_NONE) {
			rc = fill_chain(d, cu, sr, deepest, a, hit, fast);
			if (rc == PC_DWARF_SLOW)
				return rc;
			return rc ? -rc : 1;
		}
		if (!line_row) {
			line_row = find_row(cu, a);
			line_cu = cu;
		}
	}
	if (!line_row)
		return 0;
	/* assembler: a line row but no function */
	hit->nframes = 1;
	hit->frames[0].name = NULL;
	hit->frames[0].file = file_name(line_cu, line_row->file & ~ROW_END);
	hit->frames[0].line = line_row->line;
	return 1;
}

static void dwarf_close_unlocked(struct pc_dwarf *d)
{
	struct profconv_ctx *ctx;
	Dwarf_Error err = NULL;
	uint32_t i;

	if (!d)
		return;
	ctx = d->ctx;
	for (i = 0; i < d->ncus; i++) {
		struct dw_cu *cu = &d->cus[i];

		pc_free(ctx, cu->nodes);
		pc_free(ctx, cu->subs);
		pc_free(ctx, cu->subs_maxhi);
		pc_free(ctx, cu->inls);
		pc_free(ctx, cu->rows);
		pc_free(ctx, cu->files);
	}
	pc_free(ctx, d->cus);
	pc_free(ctx, d->crs);
	pc_free(ctx, d->crs_maxhi);
	pc_free(ctx, d->rbuf);
	pc_free(ctx, d->lines_owned);
	pc_free(ctx, d->rl_units);
	offmap_free(d, &d->names);
	offmap_free(d, &d->quals);
	while (d->arena) {
		struct arena_chunk *c = d->arena;

		d->arena = c->next;
		pc_free(ctx, c);
	}
	if (d->dbg &&
	    (d->use_obj ? dwarf_object_finish(d->dbg, &err) : dwarf_finish(d->dbg, &err)) !=
		    DW_DLV_OK &&
	    err)
		dwarf_dealloc_error(NULL, err);
	for (i = 0; i < PC_DWARF_MAX_SECS; i++)
		pc_free(ctx, d->sec_owned[i]);
	pc_free(ctx, d);
}

/*
 * libdwarf (20210528 here) is not thread-safe: it keeps process-wide state
 * (its error and allocation bookkeeping, dwarf_srcfiles() buffers), and
 * symbolication looks libraries up on two threads.  Every entry into it
 * goes through these three functions, which hold one process-wide lock
 * (two conversions on two contexts in one process also share it).  A
 * lookup takes it only when it must index a CU or resolve a name: the
 * lookups of addresses seen before (a batch's conversions sharing one
 * source, pc_symcache.h) run without it.
 */
static pthread_mutex_t dwarf_lock = PTHREAD_MUTEX_INITIALIZER;

int pc_dwarf_open(struct profconv_ctx *ctx, int fd, const char *path, int text_at_zero,
		  const struct pc_dwarf_secs *secs, struct pc_dwarf **out)
{
	int err;

	pthread_mutex_lock(&dwarf_lock);
	err = dwarf_open_unlocked(ctx, fd, path, text_at_zero, secs, out);
	pthread_mutex_unlock(&dwarf_lock);
	return err;
}

int pc_dwarf_lookup_fast(struct pc_dwarf *d, uint64_t svma, struct pc_dwarf_hit *hit)
{
	return dwarf_lookup_unlocked(d, svma, hit, 1);
}

int pc_dwarf_lookup(struct pc_dwarf *d, uint64_t svma, struct pc_dwarf_hit *hit)
{
	int err = dwarf_lookup_unlocked(d, svma, hit, 1);

	if (err != PC_DWARF_SLOW)
		return err;
	pthread_mutex_lock(&dwarf_lock);
	err = dwarf_lookup_unlocked(d, svma, hit, 0);
	pthread_mutex_unlock(&dwarf_lock);
	return err;
}

uint32_t pc_dwarf_check_own(struct pc_dwarf *d, uint32_t *lines, uint32_t *walks)
{
	uint32_t bad;

	pthread_mutex_lock(&dwarf_lock);
	bad = check_own_unlocked(d, lines, walks);
	pthread_mutex_unlock(&dwarf_lock);
	return bad;
}

void pc_dwarf_close(struct pc_dwarf *d)
{
	pthread_mutex_lock(&dwarf_lock);
	dwarf_close_unlocked(d);
	pthread_mutex_unlock(&dwarf_lock);
}
