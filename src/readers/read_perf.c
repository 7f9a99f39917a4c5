/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * read_perf.c - Linux perf.data (file and pipe mode, either byte order,
 * zstd-compressed records) into the model.
 *
 * Layout: tools/perf/Documentation/perf.data-file-format.txt, record bodies
 * from include/uapi/linux/perf_event.h and tools/perf/util/evsel.c
 * (evsel__parse_sample), feature encodings from tools/perf/util/header.c.
 * The traps found on real files are in docs/formats/perf-data.md.
 *
 * Pipeline:
 *
 *   header + attrs + features (file mode: random access; pipe mode: from
 *   HEADER_ATTR / HEADER_FEATURE records)
 *        |
 *   record stream (data section, or stdin) --COMPRESSED--> zstd stream
 *        |                                                     |
 *        +---------------------- handle_record() <-------------+
 *                                      |
 *                 records with a time: ordered queue (FINISHED_ROUND)
 *                 records without one: handled at once
 *                                      |
 *                                  perf_dispatch() -> processes, threads, maps,
 *                                                samples -> model
 *
 * Every length read from the file is checked against what remains of its
 * container before use; a record's size must be at least its header, so
 * the loop always advances.  Damage confined to a record is a counted
 * warning; a truncated data section converts what is there.
 */
#include "core/pc_config.h"
#include "readers/pc_perf.h"

/* --- helpers --- */

int perf_corrupt(struct perf *p, uint64_t off, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pc_fail_at(p->ctx, PROFCONV_ERR_CORRUPT, p->path, off, "%s", msg);
}

int perf_warn_at(struct perf *p, const char *kind, uint64_t off, const char *fmt, ...)
{
	struct pc_loc loc = { p->path, off, 0, 0 };
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pc_warn(p->ctx, kind, &loc, "%s", msg);
}

static const char *record_name(uint32_t type)
{
	static const char *const kernel[] = {
		"", "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK",
		"READ", "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH",
		"SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE",
		"AUX_OUTPUT_HW_ID",
	};
	static const char *const user[] = {
		"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
		"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
	};

	if (type > 0 && type < PC_ARRAY_SIZE(kernel))
		return kernel[type];
	if (type >= 64 && type - 64 < PC_ARRAY_SIZE(user))
		return user[type - 64];
	return "unknown";
}

static int bid(const unsigned char *peek, size_t len)
{
	if (len >= 8 && (memcmp(peek, "PERFILE2", 8) == 0 || memcmp(peek, "2ELIFREP", 8) == 0))
		return 64;
	return 0;
}

/* --- sample_id trailer --- */

/* perf_attr_for_id() when the id is not in its cache slot: found and cached there. */
const struct attr *perf_attr_for_id_slow(struct perf *p, uint64_t id, uint32_t slot)
{
	struct id_map *e;

	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	if (!e)
		return NULL;
	p->idc_id[slot] = id;
	p->idc_attr[slot] = e->attr + 1;
	return &p->attrs[e->attr];
}

/* Parse the trailer of a non-sample kernel record; body is [b, b+size). */
void perf_parse_sid(struct perf *p, const unsigned char *b, size_t size, size_t fixed,
		    struct sid *s)
{
	const struct attr *a = p->nattrs ? &p->attrs[0] : NULL;
	const unsigned char *end = b + size;
	uint64_t st;

	memset(s, 0, sizeof(*s));
	s->time = PC_NO_TIME;
	if (!a)
		return;
	if (p->all_identifier && size >= fixed + 8) {
		const struct attr *x;

		s->id = ld64(p, end - 8);
		s->has_id = 1;
		x = perf_attr_for_id(p, s->id);
		if (x)
			a = x;
	} else if (!p->same_layout) {
		return; /* cannot tell the layout */
	}
	if (!(a->flags & AF_SAMPLE_ID_ALL))
		return;
	st = a->sample_type;
	{
		size_t need = 8 * (size_t)__builtin_popcountll(st & (S_TID | S_TIME | S_ID |
								      S_STREAM_ID | S_CPU |
								      S_IDENTIFIER));

		if (size < fixed + need)
			return;
	}
	if (st & S_IDENTIFIER)
		end -= 8;
	if (st & S_CPU)
		end -= 8;
	if (st & S_STREAM_ID)
		end -= 8;
	if (st & S_ID) {
		end -= 8;
		if (!s->has_id) {
			s->id = ld64(p, end);
			s->has_id = 1;
		}
	}
	if (st & S_TIME) {
		end -= 8;
		s->time = (int64_t)ld64(p, end);
	}
	if (st & S_TID) {
		end -= 8;
		s->pid = (int32_t)ld32(p, end);
		s->tid = (int32_t)ld32(p, end + 4);
		s->has_tid = 1;
	}
}

/* --- samples --- */

/*
 * Work out a's fixed layout (struct attr's layout): the fields up to the
 * callchain in evsel__parse_sample order, when none of them has a variable
 * size (S_READ) and none that parse_sample() reads follows the callchain.
 */
static void sample_layout(struct attr *a)
{
	static const uint64_t order[] = { S_IDENTIFIER, S_IP,	    S_TID, S_TIME, S_ADDR,
					  S_ID,		S_STREAM_ID, S_CPU, S_PERIOD };
	uint64_t st = a->sample_type;
	int16_t pos = 0;
	size_t i;

	a->layout = 2;
	if (st & (S_READ | S_RAW | S_BRANCH_STACK | S_REGS_USER | S_STACK_USER))
		return;
	a->o_ip = a->o_tid = a->o_time = a->o_period = a->o_nr = -1;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		if (order[i] == S_IP)
			a->o_ip = pos;
		else if (order[i] == S_TID)
			a->o_tid = pos;
		else if (order[i] == S_TIME)
			a->o_time = pos;
		else if (order[i] == S_PERIOD)
			a->o_period = pos;
		pos += 8;
	}
	if (st & S_CALLCHAIN) {
		a->o_nr = pos;
		pos += 8;
	}
	a->fixed = (uint16_t)pos;
	a->layout = 1;
}

/*
 * Parse a SAMPLE body in evsel__parse_sample order.  Returns 0, or 1 when
 * the record is malformed (the caller warns and skips it).
 */
static int parse_sample(struct perf *p, const unsigned char *b, size_t size, struct sample *s)
{
	const struct attr *a = p->nattrs ? &p->attrs[0] : NULL;
	size_t pos = 0;
	uint64_t st;

#define NEED(n)                                                                                    \
	do {                                                                                       \
		if ((n) > size - pos)                                                              \
			return 1;                                                                  \
	} while (0)

	memset(s, 0, sizeof(*s));
	s->time = PC_NO_TIME;
	if (!a)
		return 1;
	if (p->all_identifier) {
		NEED(8);
		a = perf_attr_for_id(p, ld64(p, b));
		if (!a)
			return 2;
	} else if (p->nattrs > 1 && p->same_layout && (a->sample_type & S_ID)) {
		/* find ID after IP, TID, TIME, ADDR */
		size_t ipos = 8 * (size_t)__builtin_popcountll(a->sample_type &
								 (S_IP | S_TID | S_TIME | S_ADDR));

		if (ipos + 8 > size)
			return 1;
		a = perf_attr_for_id(p, ld64(p, b + ipos));
		if (!a)
			return 2;
	}
	s->attr = a;
	if (!a->layout)
		sample_layout((struct attr *)a);
	if (a->layout == 1) {
		/* the common layout: every field at a known place */
		if (size < a->fixed)
			return 1;
		if (a->o_ip >= 0)
			s->ip = ld64(p, b + a->o_ip);
		if (a->o_tid >= 0) {
			s->pid = (int32_t)ld32(p, b + a->o_tid);
			s->tid = (int32_t)ld32(p, b + a->o_tid + 4);
		}
		if (a->o_time >= 0)
			s->time = (int64_t)ld64(p, b + a->o_time);
		s->period = a->o_period >= 0 ? ld64(p, b + a->o_period) : 1;
		if (a->o_nr >= 0) {
			s->nr = ld64(p, b + a->o_nr);
			if (s->nr > (size - a->fixed) / 8)
				return 1;
			s->ips = b + a->fixed;
		}
		return 0;
	}
	st = a->sample_type;
	if (st & S_IDENTIFIER) {
		NEED(8);
		pos += 8;
	}
	if (st & S_IP) {
		NEED(8);
		s->ip = ld64(p, b + pos);
		pos += 8;
	}
	if (st & S_TID) {
		NEED(8);
		s->pid = (int32_t)ld32(p, b + pos);
		s->tid = (int32_t)ld32(p, b + pos + 4);
		pos += 8;
	}
	if (st & S_TIME) {
		NEED(8);
		s->time = (int64_t)ld64(p, b + pos);
		pos += 8;
	}
	if (st & S_ADDR) {
		NEED(8);
		pos += 8;
	}
	if (st & S_ID) {
		NEED(8);
		pos += 8;
	}
	if (st & S_STREAM_ID) {
		NEED(8);
		pos += 8;
	}
	if (st & S_CPU) {
		NEED(8);
		pos += 8;
	}
	s->period = 1;
	if (st & S_PERIOD) {
		NEED(8);
		s->period = ld64(p, b + pos);
		pos += 8;
	}
	if (st & S_READ) {
		uint64_t rf = a->read_format, per = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);

		if (rf & RF_GROUP) {
			uint64_t nr;

			NEED(8);
			nr = ld64(p, b + pos);
			pos += 8;
			if (rf & RF_TOTAL_TIME_ENABLED)
				pos += 8;
			if (rf & RF_TOTAL_TIME_RUNNING)
				pos += 8;
			if (pos > size || nr > (size - pos) / (8 * per))
				return 1;
			pos += (size_t)(nr * 8 * per);
		} else {
			size_t n = 8 * (size_t)(per + !!(rf & RF_TOTAL_TIME_ENABLED) +
						!!(rf & RF_TOTAL_TIME_RUNNING));

			NEED(n);
			pos += n;
		}
	}
	if (st & S_CALLCHAIN) {
		NEED(8);
		s->nr = ld64(p, b + pos);
		pos += 8;
		if (s->nr > (size - pos) / 8)
			return 1;
		s->ips = b + pos;
		pos += (size_t)s->nr * 8;
	}
	if (st & S_RAW) {
		NEED(4);
		s->raw_size = ld32(p, b + pos);
		pos += 4;
		NEED(s->raw_size);
		s->raw = b + pos;
		pos += s->raw_size;
	}
	if (st & S_BRANCH_STACK) {
		uint64_t nr;

		NEED(8);
		nr = ld64(p, b + pos);
		pos += 8;
		if (a->branch_sample_type & BRANCH_HW_INDEX) {
			NEED(8);
			pos += 8;
		}
		if (nr > (size - pos) / 24)
			return 1;
		pos += (size_t)nr * 24;
	}
	if (st & S_REGS_USER) {
		NEED(8);
		s->regs_abi = ld64(p, b + pos);
		pos += 8;
		if (s->regs_abi) {
			s->nregs = (uint32_t)__builtin_popcountll(a->regs_user);
			NEED(8 * (size_t)s->nregs);
			s->regs = b + pos;
			pos += 8 * (size_t)s->nregs;
		}
	}
	if (st & S_STACK_USER) {
		uint64_t sz;

		NEED(8);
		sz = ld64(p, b + pos);
		pos += 8;
		if (sz) {
			NEED(sz);
			s->stack = b + pos;
			pos += (size_t)sz;
			NEED(8);
			/* only dyn_size bytes were copied (it may be 0) */
			s->stack_size = ld64(p, b + pos);
			if (s->stack_size > sz)
				s->stack_size = sz;
			pos += 8;
		}
	}
	/* Nothing after STACK_USER is used; the layout was checked up to here. */
#undef NEED
	return 0;
}

/* "0x" + lower-case hex of v into buf (>= 19 bytes); returns the length. */
static size_t hex_name(char *buf, uint64_t v)
{
	buf[0] = '0';
	buf[1] = 'x';
	return 2 + pc_fmt_hex(buf + 2, v);
}

static int fcache_first(struct perf *p);

static inline uint32_t fcache_slot(const struct perf *p, uint64_t key, uint32_t lib, uint32_t flags)
{
	return (uint32_t)(pc_hash64(key ^ (uint64_t)lib << 40 ^ (uint64_t)flags << 60) >>
			  (64 - p->fcache_bits));
}

/*
 * The frame table's slot (struct ftab_ent's frame[]) for a frame of (key,
 * lib): its mode and whether it is a return address, except that a return
 * address whose frame would equal the other's (the same category and the
 * same address once nudged and normalized as pc_frame_intern() does: no
 * mapping, key 0, or both past INT64_MAX) takes that one's slot.  The
 * frame's other key columns are the same for every variant, its func is
 * (key, lib)'s (a distinct name and resource per (key, lib): each lib has
 * its own resource), so slots and the model's distinct frames correspond.
 */
static inline uint32_t frame_variant(const struct perf *p, int mapped, uint64_t key, int in_kernel,
				     int is_caller)
{
	uint32_t v = in_kernel && p->cat_kernel != p->cat_user ? 2 : 0;

	if (is_caller && mapped && key && key - 1 <= (uint64_t)INT64_MAX)
		v |= 1;
	return v;
}

/*
 * Frame for one address of a callchain.  Before symbolication every
 * address is its own func, named by its hex address (lib-relative when a
 * mapping covers it, absolute otherwise).  is_caller marks a return
 * address: the frame stores address - 1 (the front-end's "nudge"), the
 * func keeps the address itself.
 */
static uint32_t resolve_frame(struct perf *p, struct process *pr, struct process *kernel,
			      uint64_t addr, int in_kernel, int is_caller)
{
	const struct mapping *mp = perf_find_mapping(in_kernel ? kernel : pr, addr);
	uint32_t lib = PC_NONE, flags = (uint32_t)(is_caller | in_kernel << 1), h, v = 0;
	struct fcache_ent *ce;
	struct ftab_ent *fe = NULL;
	struct pc_func_key fk;
	struct pc_frame_key k;
	char name[24];
	uint64_t key;

	if (!mp)
		mp = perf_find_mapping(in_kernel ? pr : kernel, addr);
	if (mp) {
		lib = mp->lib;
		key = addr - mp->rel_base;
	} else {
		key = addr;
	}
	if (!p->fcache && fcache_first(p))
		return PC_NONE;
	h = fcache_slot(p, key, lib, flags);
	ce = &p->fcache[h];
	if (ce->frame != PC_NONE && ce->addr == key && ce->lib == lib && ce->flags == flags)
		return ce->frame;

	if (p->ftab_on) {
		fe = perf_ftab_get(p, key, lib, &fk.name);
		if (!fe)
			return PC_NONE;
		v = frame_variant(p, mp != NULL, key, in_kernel, is_caller);
		if (fe->frame[v] != PC_NONE) {
			ce->frame = fe->frame[v];
			goto cached;
		}
	}
	memset(&k, 0, sizeof(k));
	if (mp) {
		k.address = is_caller && key ? key - 1 : key;
	} else {
		k.address = PC_NO_ADDRESS;
	}
	k.lib = lib;
	k.func = fe ? fe->func : PC_NONE;
	if (k.func == PC_NONE) {
		/* the frame table asks for each key's name once: pc_str_add_hex() */
		if (!fe)
			fk.name = pc_str_intern(p->m, name, hex_name(name, key));
		else if (fk.name == PC_NONE)
			fk.name = pc_str_add_hex(p->m, key);
		if (fk.name == PC_NONE)
			return PC_NONE;
		fk.source = PC_NONE;
		fk.line = fk.column = 0;
		fk.is_js = fk.relevant_for_js = 0;
		fk.resource = mp ? p->m->libs.rows[lib].resource : PC_NONE;
		k.func = fe ? pc_func_add_new(p->m, &fk) : pc_func_intern(p->m, &fk);
		if (k.func == PC_NONE)
			return PC_NONE;
		if (fe)
			fe->func = k.func;
	}
	k.native_symbol = PC_NONE;
	k.category = in_kernel ? p->cat_kernel : p->cat_user;
	k.subcategory = 0;
	if (fe) {
		ce->frame = fe->frame[v] = pc_frame_add_new(p->m, &k);
	} else {
		ce->frame = pc_frame_intern(p->m, &k);
	}
cached:
	ce->addr = key;
	ce->lib = lib;
	ce->flags = flags;
	return ce->frame;
}

/*
 * resolve_frame()'s common case, inlined in the loop over a chain: the
 * mapping pr found last covers addr (perf_find_mapping() would answer it,
 * the maps not overlapping), and the frame cache holds (its key, flags).
 * That frame, or PC_NONE: resolve_frame() decides.  p->fcache is made.
 */
static inline uint32_t frame_cached(const struct perf *p, const struct process *pr,
				    uint64_t addr, uint32_t flags)
{
	const struct mapping *mp;
	const struct fcache_ent *ce;
	uint64_t key;

	if (!pr || pr->map_hint >= pr->nmaps)
		return PC_NONE;
	mp = &pr->maps[pr->map_hint];
	if (addr < mp->start || addr >= mp->end)
		return PC_NONE;
	key = addr - mp->rel_base;
	ce = &p->fcache[fcache_slot(p, key, mp->lib, flags)];
	return ce->frame != PC_NONE && ce->addr == key && ce->lib == mp->lib && ce->flags == flags
		       ? ce->frame
		       : PC_NONE;
}

/*
 * The frame cache, at the first frame, when a file-mode recording has said
 * how much data it has: one entry per 64 bytes of it (a sample's chain of
 * 8-byte addresses repeats most of them), 1024 at least and 2^FCACHE_BITS
 * at most (a pipe's data size is unknown: the most).  A small recording's
 * cache stays in the heap instead of a fresh 1.5 MiB mapping whose every
 * page is faulted in and zeroed again: that was half the page faults of
 * converting a 200 KiB recording.  It is only a cache: the frames made are
 * the same.  0, or NOMEM (ctx set).
 */
static int fcache_first(struct perf *p)
{
	const char *e;
	uint64_t want = p->data_size ? p->data_size / 64 : UINT64_MAX;
	unsigned bits = FCACHE_BITS < 10 ? FCACHE_BITS : 10;
	size_t i, n;

	while (bits < FCACHE_BITS && ((uint64_t)1 << bits) < want)
		bits++;
	n = (size_t)1 << bits;
	p->fcache = pc_alloc(p->ctx, n * sizeof(*p->fcache));
	if (!p->fcache)
		return PROFCONV_ERR_NOMEM;
	/* every func and frame of the model will be this reader's: its frame
	 * table knows which are new (PROFCONV_PERF_FRAME_TABLE=off: the model
	 * interns them, as the tests compare) */
	e = getenv("PROFCONV_PERF_FRAME_TABLE");
	p->ftab_on = p->m->funcs.len == 0 && p->m->frames.len == 0 && !(e && strcmp(e, "off") == 0);
	for (i = 0; i < n; i++)
		p->fcache[i].frame = PC_NONE;
	p->fcache_bits = bits;
	/* the address cache: one entry per 8 of the frame cache's, at most
	 * 2^ICACHE_BITS (192 KiB) */
	bits = bits > 3 ? bits - 3 : 1;
	if (bits > ICACHE_BITS)
		bits = ICACHE_BITS;
	n = (size_t)1 << bits;
	p->icache = pc_alloc(p->ctx, n * sizeof(*p->icache));
	if (!p->icache)
		return PROFCONV_ERR_NOMEM;
	memset(p->icache, 0, n * sizeof(*p->icache));
	for (i = 0; i < n; i++)
		p->icache[i].frame = PC_NONE; /* (a match on it resolves) */
	p->icache_bits = bits;
	return 0;
}

static inline struct icache_ent *icache_at(const struct perf *p, uint64_t addr, uint64_t tag,
					   uint32_t flags)
{
	uint64_t h = (addr ^ tag << 7 ^ (uint64_t)flags << 62) * 0x9e3779b97f4a7c15ULL;

	return &p->icache[h >> (64 - p->icache_bits)];
}

/*
 * Entries [from, to) of s's callchain resolved, each stored in ts's raw
 * arrays root first (entry i at nr - 1 - i: its address, its frame, PC_NONE
 * for a context marker, and its mode), the frames appended to p->frames;
 * *in_kernel is the mode the markers set, *first the index of the leaf
 * frame.  0, or -1 when a frame could not be made (ctx status set, else out
 * of memory).
 */
static int resolve_entries(struct perf *p, const struct sample *s, struct process *pr,
			   struct process *kernel, struct thread_state *ts, uint32_t from,
			   uint32_t to, int *in_kernel, uint32_t *nframes, uint32_t *first)
{
	/* locals, not the pointers: the byte stores below may alias them */
	uint32_t i, n = *nframes, *raw_frames = ts->raw_frames, *frames = p->frames,
		    top = (uint32_t)s->nr - 1;
	uint64_t *raw_ips = ts->raw_ips;
	uint64_t tag = (uint64_t)p->map_gen << 32 | (uint32_t)pr->pid;
	uint8_t *raw_kernel = ts->raw_kernel;
	int kern = *in_kernel, ret = 0;

	for (i = from; i < to; i++) {
		uint64_t ip = ld64(p, s->ips + 8 * (size_t)i);
		uint32_t f = PC_NONE, flags;
		struct icache_ent *ie = NULL;
		int hit = 0;

		raw_ips[top - i] = ip;
		raw_kernel[top - i] = (uint8_t)kern;
		if (ip >= CTX_MAX) {
			kern = ip == CTX_KERNEL || ip == CTX_GUEST_KERNEL || ip == CTX_HV;
			raw_frames[top - i] = PC_NONE;
			continue;
		}
		flags = (uint32_t)((n > 0) | kern << 1);
		if (p->icache) {
			ie = icache_at(p, ip, tag, flags);
			if (ie->addr == ip && ie->tag == tag && ie->flags == flags) {
				f = ie->frame;
				hit = f != PC_NONE;
			} else {
				f = frame_cached(p, kern ? kernel : pr, ip, flags);
			}
		}
		if (f == PC_NONE) {
			f = resolve_frame(p, pr, kernel, ip, kern, n > 0);
			if (f == PC_NONE) {
				ret = -1;
				break;
			}
			if (!ie && p->icache)
				ie = icache_at(p, ip, tag, flags);
		}
		if (ie && !hit) {
			ie->addr = ip;
			ie->tag = tag;
			ie->flags = flags;
			ie->frame = f;
		}
		if (!n)
			*first = i;
		raw_frames[top - i] = f;
		frames[n++] = f;
	}
	*nframes = n;
	*in_kernel = kern;
	return ret;
}

/*
 * Resolve a callchain to a stack: *out is its ticket (perf_stacks.c).  Frames
 * are collected leaf first (context markers set the mode of the frames after
 * them), then interned root first.  An empty chain (only markers) gives
 * PC_NONE, the empty stack.
 *
 * The thread's raw arrays keep its previous chain root first, so the part a
 * chain shares with it (its root part) stays where it is and only the
 * entries before it are written.
 */
static int chain_to_stack(struct perf *p, const struct sample *s, struct process *pr,
			  struct process *kernel, struct thread_state *ts, uint32_t *out)
{
	uint32_t nframes = 0, cap, k;
	uint32_t nr = (uint32_t)s->nr, shared = 0, split, old_split, first = PC_NONE;
	int in_kernel = 0;

	if ((size_t)s->nr + 1 > p->frames_cap &&
	    pc_grow(p->ctx, (void **)&p->frames, sizeof(*p->frames), &p->frames_cap,
		    (size_t)s->nr + 1))
		return PROFCONV_ERR_NOMEM;
	/*
	 * The entries this chain ends with (its root part) that end the thread's
	 * previous chain too, under the same maps: from the first of them on, if
	 * it is read in the same mode and after the leaf frame in both chains,
	 * every frame is the one resolved then (resolve_frame() depends on the
	 * address, the mode, the maps and whether the frame is the leaf only).
	 */
	if (ts->raw_ok && ts->raw_gen == p->map_gen)
		while (shared < nr && shared < ts->raw_nr &&
		       ld64(p, s->ips + 8 * (size_t)(nr - 1 - shared)) == ts->raw_ips[shared])
			shared++;
	split = nr - shared;
	old_split = ts->raw_nr - shared; /* the first shared entry in the previous chain */
	/* the arrays keep their first `shared` entries while this chain is resolved */
	ts->raw_ok = 0;
	if (nr > ts->raw_cap) {
		cap = ts->raw_cap;
		if (pc_grow(p->ctx, (void **)&ts->raw_ips, sizeof(*ts->raw_ips), &cap, nr))
			return PROFCONV_ERR_NOMEM;
		cap = ts->raw_cap;
		if (pc_grow(p->ctx, (void **)&ts->raw_frames, sizeof(*ts->raw_frames), &cap, nr) ||
		    pc_grow(p->ctx, (void **)&ts->raw_kernel, sizeof(*ts->raw_kernel),
			    &ts->raw_cap, nr))
			return PROFCONV_ERR_NOMEM;
	}
	if (resolve_entries(p, s, pr, kernel, ts, 0, split, &in_kernel, &nframes, &first))
		return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	if (split < nr && (!nframes || old_split <= ts->raw_first ||
			   ts->raw_kernel[shared - 1] != (uint8_t)in_kernel)) {
		/* not the same frames after all: resolve the rest too */
		if (resolve_entries(p, s, pr, kernel, ts, split, nr, &in_kernel, &nframes, &first))
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
		split = nr;
	}
	if (split < nr)
		for (k = shared; k-- > 0;)
			if (ts->raw_frames[k] != PC_NONE)
				p->frames[nframes++] = ts->raw_frames[k];
	ts->raw_nr = nr;
	ts->raw_first = first != PC_NONE ? first : nr;
	ts->raw_gen = p->map_gen;
	ts->raw_ok = 1;
	return perf_stacks_chain(p, ts, p->frames, nframes, out);
}

/* The two hashes of s's chain (see struct cc_slot). */
static void cc_hash(const struct perf *p, const struct sample *s, uint64_t *h1, uint64_t *h2)
{
	uint64_t a = pc_hash64((uint64_t)(uint32_t)s->pid << 32 | p->map_gen) ^ s->nr;
	uint64_t b = pc_hash64(a ^ 0x5851f42d4c957f2dULL);
	size_t i;

	for (i = 0; i < s->nr; i++) {
		uint64_t w;

		memcpy(&w, s->ips + 8 * i, 8);
		a = (a ^ w) * 0x9e3779b97f4a7c15ULL;
		a ^= a >> 29;
		b = (b + w) * 0xc2b2ae3d27d4eb4fULL;
		b ^= b >> 31;
	}
	*h1 = pc_hash64(a);
	*h2 = pc_hash64(b ^ (a >> 7));
}

/* The stack of the chain with hashes (h1, h2), or PC_NONE; *slot is where it goes. */
static uint32_t cc_find(const struct perf *p, uint64_t h1, uint64_t h2, uint32_t *slot)
{
	const struct cc_slot *c;

	*slot = (uint32_t)h1 & p->cc_mask;
	c = &p->cc[*slot];
	return c->used && c->h1 == h1 && c->h2 == h2 ? c->stack : PC_NONE;
}

static void cc_insert(struct perf *p, uint64_t h1, uint64_t h2, uint32_t slot, uint32_t stack)
{
	p->cc[slot].h1 = h1;
	p->cc[slot].h2 = h2;
	p->cc[slot].stack = stack;
	p->cc[slot].used = 1;
}

/* The stack of a parsed sample: its callchain, or the sampled instruction alone. */
static int sample_stack(struct perf *p, uint16_t misc, struct sample *s, struct process *pr,
			struct process *kernel, struct thread_state *ts, uint32_t *stack)
{
	*stack = PC_NONE;
	if (s->ips && s->nr) {
		uint64_t h1, h2;
		uint32_t slot = 0;

		if (!p->cc) {
			p->cc = pc_calloc(p->ctx, CC_SLOTS, sizeof(*p->cc));
			if (!p->cc)
				return PROFCONV_ERR_NOMEM;
			p->cc_mask = CC_SLOTS - 1;
		}
		cc_hash(p, s, &h1, &h2);
		*stack = cc_find(p, h1, h2, &slot);
		if (*stack == PC_NONE) {
			int err = chain_to_stack(p, s, pr, kernel, ts, stack);

			if (!err)
				cc_insert(p, h1, h2, slot, *stack);
			return err;
		}
	} else if (s->attr->sample_type & S_IP) {
		unsigned mode = misc & MISC_CPUMODE_MASK;
		uint32_t f = resolve_frame(p, pr, kernel, s->ip,
					   mode == MISC_KERNEL || mode == MISC_GUEST_KERNEL, 0);

		if (f == PC_NONE)
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
		return perf_stacks_root(p, f, stack);
	}
	return 0;
}

/* The thread a sample was taken on, with its process and the kernel's. */
static int sample_thread(struct perf *p, const struct sample *s, struct process **pr,
			 struct process **kernel, struct thread_state **ts)
{
	/* the kernel's own: kept aside */
	if (!p->kernel_pr)
		p->kernel_pr = perf_get_process(p, -1);
	*kernel = p->kernel_pr;
	*ts = perf_get_thread(p, s->pid, s->tid);
	if (!*ts)
		return PROFCONV_ERR_NOMEM;
	if (!(*ts)->pr)
		(*ts)->pr = perf_get_process(p, s->pid);
	*pr = (*ts)->pr;
	return *pr && *kernel ? 0 : PROFCONV_ERR_NOMEM;
}

/* A sched:sched_switch sample of an event other than the call tree's. */
static int sched_sample(struct perf *p, uint16_t misc, struct sample *s, uint64_t off)
{
	struct process *pr, *kernel;
	struct thread_state *ts;
	uint32_t stack;
	int err;

	if (s->time == PC_NO_TIME || p->saw_switch)
		return 0;
	err = sample_thread(p, s, &pr, &kernel, &ts);
	if (!err)
		err = sample_stack(p, misc, s, pr, kernel, ts, &stack);
	if (!err && !perf_model_thread(p, ts))
		err = PROFCONV_ERR_NOMEM;
	return err ? err : perf_sched_switch(p, ts, s->attr, s->time, s->raw, s->raw_size, stack, off);
}

static int handle_sample(struct perf *p, uint16_t misc, const unsigned char *b, size_t size,
			 uint64_t off)
{
	struct process *pr, *kernel;
	struct thread_state *ts;
	struct pc_thread *t;
	struct sample s;
	uint32_t prefix = PC_NONE;
	int64_t weight;
	int r, err;

	r = parse_sample(p, b, size, &s);
	if (r == 2)
		return perf_warn_at(p, W_NO_ATTR, off, "sample of an event id the file does not declare");
	if (r)
		return perf_warn_at(p, W_BAD_RECORD, off,
			       "SAMPLE record of %zu bytes is shorter than its sample_type needs",
			       size + 8);
	p->st.samples_total++;
	((struct attr *)s.attr)->nsamples++;
	if (!s.attr->selected && s.attr->sched_switch && !p->info_only)
		return sched_sample(p, misc, &s, off);
	if (!s.attr->selected || p->info_only) {
		if (s.attr->selected)
			p->st.samples_used++;
		else if (p->by_tid && s.time != PC_NO_TIME && (s.attr->sample_type & S_TID)) {
			/* any event's sample shows its thread running */
			struct thread_state *run = perf_find_thread_by_tid(p, s.tid);

			r = run ? perf_sched_seen_running(p, run, s.time) : 0;
			if (r)
				return r;
		}
		if (s.time != PC_NO_TIME && s.attr->selected) {
			if (p->first_sample == PC_NO_TIME || s.time < p->first_sample)
				p->first_sample = s.time;
			if (p->last_sample == PC_NO_TIME || s.time > p->last_sample)
				p->last_sample = s.time;
		}
		return 0;
	}
	p->st.samples_used++;
	err = sample_thread(p, &s, &pr, &kernel, &ts);
	if (err)
		return err;
	t = perf_model_thread(p, ts);
	if (!t)
		return PROFCONV_ERR_NOMEM;
	if (s.time == PC_NO_TIME)
		s.time = p->last_sample == PC_NO_TIME ? 0 : p->last_sample;
	if (p->first_sample == PC_NO_TIME || s.time < p->first_sample)
		p->first_sample = s.time;
	if (p->last_sample == PC_NO_TIME || s.time > p->last_sample)
		p->last_sample = s.time;

	if ((s.attr->flags & AF_EXCL_CALLCHAIN_USER) && (s.attr->sample_type & S_STACK_USER)) {
		/* --call-graph dwarf: the user part is unwound from the copied stack */
		err = perf_unwind_sample(p, misc, pr, &s, off);
		if (err)
			return err;
	}
	err = sample_stack(p, misc, &s, pr, kernel, ts, &prefix);
	if (err)
		return err;
	weight = p->weight_period ? (int64_t)s.period : 1;
	err = pc_sample_add(p->m, t, prefix, s.time, weight);
	if (!err)
		err = perf_sample_cpu_delta(p, ts, t, s.time, prefix);
	if (err)
		return err;
	if (s.attr->sched_switch)
		return p->saw_switch ? 0 : perf_sched_switch(p, ts, s.attr, s.time, s.raw,
							     s.raw_size, prefix, off);
	return perf_sched_seen_running(p, ts, s.time);
}

/* --- other kernel records --- */

static int body_string(const unsigned char *b, size_t avail, char *out, size_t cap)
{
	size_t n = strnlen((const char *)b, avail);

	if (n >= cap)
		n = cap - 1;
	memcpy(out, b, n);
	out[n] = 0;
	return 0;
}

/*
 * Memory perf takes for a JIT's (tools/perf/util/map.c, is_anon_memory()):
 * of memfd mappings only .NET's doublemapper; another memfd (a sealed
 * executable image, say) is a file, its addresses relative to it.
 */
static int is_anon(const char *file)
{
	return strcmp(file, "//anon") == 0 || strncmp(file, "[anon", 5) == 0 ||
	       strncmp(file, "/memfd:doublemapper", 19) == 0 ||
	       strncmp(file, "/dev/zero", 9) == 0 || strncmp(file, "/anon_hugepage", 14) == 0 ||
	       strcmp(file, "[heap]") == 0 || strcmp(file, "[stack]") == 0;
}

static int handle_mmap(struct perf *p, uint32_t type, uint16_t misc, const unsigned char *b,
		       size_t size, uint64_t off)
{
	size_t fixed = type == REC_MMAP ? 32 : 64;
	uint64_t addr, len, pgoff;
	const uint8_t *id = NULL;
	size_t idlen = 0;
	char file[4096];
	struct process *pr;
	struct mapping mp;
	int32_t pid;
	int kernel;
	uint32_t cpumode = misc & MISC_CPUMODE_MASK;

	if (size < fixed + 1)
		return perf_warn_at(p, W_BAD_RECORD, off, "%s record too short (%zu bytes)",
			       record_name(type), size + 8);
	pid = (int32_t)ld32(p, b);
	addr = ld64(p, b + 8);
	len = ld64(p, b + 16);
	pgoff = ld64(p, b + 24);
	if (type == REC_MMAP) {
		if (misc & MISC_MMAP_DATA)
			return 0;
	} else {
		uint32_t prot = ld32(p, b + 56);

		/* perf synthesizes the kernel map with prot 0: keep pid -1 maps */
		if (!(prot & PROT_EXEC_BIT) && pid != -1)
			return 0;
		if (misc & MISC_MMAP_BUILD_ID) {
			idlen = b[32];
			if (idlen > 20)
				idlen = 20;
			id = b + 36;
		}
	}
	body_string(b + fixed, size - fixed, file, sizeof(file));
	kernel = pid == -1 || cpumode == MISC_KERNEL || cpumode == MISC_GUEST_KERNEL;
	pr = perf_get_process(p, kernel ? -1 : pid);
	if (!pr)
		return PROFCONV_ERR_NOMEM;
	memset(&mp, 0, sizeof(mp));
	mp.start = addr;
	mp.end = len > UINT64_MAX - addr ? UINT64_MAX : addr + len;
	mp.rel_base = kernel ? addr : addr - pgoff;
	if (!kernel && is_anon(file)) {
		/*
		 * Anonymous executable memory is JIT code.  It becomes one lib per
		 * process named after the perf map a JIT writes for it
		 * (/tmp/perf-PID.map), with absolute addresses as its relative
		 * addresses, which is how those map files count.
		 */
		pc_snprintf(file, sizeof(file), "/tmp/perf-%d.map", (int)pid);
		mp.rel_base = 0;
	}
	mp.lib = perf_lib_for(p, file, id, idlen, kernel);
	if (mp.lib == PC_NONE)
		return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	/*
	 * The model's per-process mapping (the kernel's process is pid -1),
	 * with the offset that makes start - offset the base of its relative
	 * addresses (the Gecko writer turns them back into absolute ones): 0
	 * for the kernel, the file offset for a file, the start for JIT code.
	 */
	if (!p->info_only) {
		uint32_t proc = pc_process_get(p->m, kernel ? -1 : pid);

		if (proc == PC_NONE ||
		    pc_process_add_mapping(p->m, proc, mp.lib, addr, mp.end, addr - mp.rel_base))
			return PROFCONV_ERR_NOMEM;
	}
	return perf_add_mapping(p, pr, &mp);
}

static int handle_comm(struct perf *p, uint16_t misc, const unsigned char *b, size_t size,
		       uint64_t off)
{
	struct thread_state *ts;
	struct process *pr;
	char comm[256];
	int32_t pid, tid;
	uint32_t name;

	if (size < 9)
		return perf_warn_at(p, W_BAD_RECORD, off, "COMM record too short (%zu bytes)", size + 8);
	pid = (int32_t)ld32(p, b);
	tid = (int32_t)ld32(p, b + 4);
	body_string(b + 8, size - 8, comm, sizeof(comm));
	name = pc_str_intern_z(p->m, comm);
	ts = perf_get_thread(p, pid, tid);
	pr = perf_get_process(p, pid);
	if (name == PC_NONE || !ts || !pr)
		return PROFCONV_ERR_NOMEM;
	ts->name = name;
	if (misc & MISC_COMM_EXEC) {
		/* exec: the process image is new, its old mappings are gone */
		pr->nmaps = 0;
		pr->name = name;
		pr->exec_named = 1;
		p->map_gen++;
	} else if (pid == tid && !pr->exec_named &&
		   (pr->name == PC_NONE || strcmp(comm, "perf-exec") != 0)) {
		/* a process that was running before the recording: its COMM */
		pr->name = name;
	}
	return 0;
}

static int handle_fork_exit(struct perf *p, uint32_t type, const unsigned char *b, size_t size,
			    uint64_t off)
{
	int32_t pid, ppid, tid;
	int64_t time;
	struct thread_state *ts;
	struct process *pr;

	if (size < 24)
		return perf_warn_at(p, W_BAD_RECORD, off, "%s record too short (%zu bytes)",
			       record_name(type), size + 8);
	pid = (int32_t)ld32(p, b);
	ppid = (int32_t)ld32(p, b + 4);
	tid = (int32_t)ld32(p, b + 8);
	time = (int64_t)ld64(p, b + 16);
	ts = perf_get_thread(p, pid, tid);
	pr = perf_get_process(p, pid);
	if (!ts || !pr)
		return PROFCONV_ERR_NOMEM;
	if (type == REC_EXIT) {
		ts->end = time;
		if (pid == tid)
			pr->end = time;
		return 0;
	}
	ts->start = time;
	if (pid != ppid && pid == tid) {
		/* a new process: it starts with a copy of its parent's maps and name */
		struct process *parent = perf_get_process(p, ppid);

		if (!parent)
			return PROFCONV_ERR_NOMEM;
		pr->start = time;
		if (parent->name != PC_NONE)
			pr->name = parent->name;
		if (ts->name == PC_NONE)
			ts->name = parent->name;
		if (parent->nmaps && parent != pr) {
			if (pc_grow(p->ctx, (void **)&pr->maps, sizeof(*pr->maps), &pr->maps_cap,
				    parent->nmaps))
				return PROFCONV_ERR_NOMEM;
			memcpy(pr->maps, parent->maps, (size_t)parent->nmaps * sizeof(*pr->maps));
			pr->nmaps = parent->nmaps;
			p->map_gen++;
		}
	} else if (ts->name == PC_NONE) {
		struct thread_state *parent = perf_get_thread(p, pid, (int32_t)ld32(p, b + 12));

		if (!parent)
			return PROFCONV_ERR_NOMEM;
		ts->name = parent->name;
	}
	return 0;
}

/* An instant marker with payload {"type": type[, "lost": lost, "record": record]}. */
static int add_marker_for(struct perf *p, const struct sid *s, const char *name, int64_t start,
			  const char *type, uint64_t lost, const char *record)
{
	struct pc_marker_row r;
	struct thread_state *ts;
	struct pc_thread *t;
	struct pc_pvb b;

	if (p->info_only || !s->has_tid)
		return 0;
	ts = perf_get_thread(p, s->pid, s->tid);
	if (!ts)
		return PROFCONV_ERR_NOMEM;
	t = perf_model_thread(p, ts);
	if (!t)
		return PROFCONV_ERR_NOMEM;
	pc_marker_row_init(&r);
	r.name = pc_str_intern_z(p->m, name);
	r.start = start;
	r.phase = PC_PHASE_INSTANT;
	pc_pvb_begin(&b, p->m, 0);
	pc_pvb_key_z(&b, "type");
	pc_pvb_str_z(&b, type);
	if (record) {
		pc_pvb_key_z(&b, "lost");
		pc_pvb_int(&b, lost > INT64_MAX ? INT64_MAX : (int64_t)lost);
		pc_pvb_key_z(&b, "record");
		pc_pvb_str_z(&b, record);
	}
	r.payload = pc_pvb_end(&b);
	if (r.name == PC_NONE || r.payload == PC_NONE)
		return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	return pc_marker_push(p->m, t, &r);
}

static int handle_lost(struct perf *p, uint32_t type, const unsigned char *b, size_t size,
		       uint64_t off)
{
	uint64_t lost;
	struct sid s;

	if (size < (type == REC_LOST ? 16u : 8u))
		return perf_warn_at(p, W_BAD_RECORD, off, "%s record too short", record_name(type));
	lost = type == REC_LOST ? ld64(p, b + 8) : ld64(p, b);
	perf_parse_sid(p, b, size, type == REC_LOST ? 16 : 8, &s);
	if (type == REC_LOST)
		p->st.lost += lost;
	else
		p->st.lost_samples += lost;
	if (s.time == PC_NO_TIME)
		return 0;
	p->lost_markers = 1;
	return add_marker_for(p, &s, "Lost samples", s.time, "PerfLost", lost, record_name(type));
}

static int handle_throttle(struct perf *p, uint32_t type, const unsigned char *b, size_t size,
			   uint64_t off)
{
	struct sid s;
	int64_t time;

	if (size < 24)
		return perf_warn_at(p, W_BAD_RECORD, off, "%s record too short", record_name(type));
	time = (int64_t)ld64(p, b);
	perf_parse_sid(p, b, size, 24, &s);
	p->throttle_markers = 1;
	return add_marker_for(p, &s, type == REC_THROTTLE ? "Throttled" : "Unthrottled", time,
			      "PerfThrottle", 0, NULL);
}

/* --- dispatch (records in time order) --- */

int perf_dispatch(struct perf *p, const unsigned char *rec, uint64_t off)
{
	uint32_t type = ld32(p, rec);
	uint16_t misc = ld16(p, rec + 4);
	size_t size = ld16(p, rec + 6);
	const unsigned char *b = rec + 8;
	size_t bs = size - 8;

	switch (type) {
	case REC_SAMPLE:
		return handle_sample(p, misc, b, bs, off);
	case REC_MMAP:
	case REC_MMAP2:
		return handle_mmap(p, type, misc, b, bs, off);
	case REC_COMM:
		return handle_comm(p, misc, b, bs, off);
	case REC_FORK:
	case REC_EXIT:
		return handle_fork_exit(p, type, b, bs, off);
	case REC_LOST:
	case REC_LOST_SAMPLES:
		return handle_lost(p, type, b, bs, off);
	case REC_THROTTLE:
	case REC_UNTHROTTLE:
		return handle_throttle(p, type, b, bs, off);
	case REC_SWITCH:
	case REC_SWITCH_CPU_WIDE:
		return perf_handle_switch(p, type, misc, b, bs, off);
	default:
		return 0;
	}
}

static int truncated_tail(struct perf *p, uint64_t off, const char *fmt, ...) PC_PRINTF(3, 4);

static int truncated_tail(struct perf *p, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (p->truncated)
		return 0;
	p->truncated = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return perf_warn_at(p, W_TRUNCATED, off, "%s", msg);
}

/* --- the record stream --- */

static int handle_record(struct perf *p, const unsigned char *rec, size_t size, uint64_t off,
			 int nested);

static int handle_compressed(struct perf *p, const unsigned char *b, size_t bs, uint64_t off,
			     int v2)
{
	ZSTD_inBuffer zin;
	int err = 0;

	if (v2) {
		uint64_t dsize;

		if (bs < 8)
			return perf_warn_at(p, W_BAD_RECORD, off, "COMPRESSED2 record too short");
		dsize = ld64(p, b);
		if (dsize > bs - 8)
			return perf_warn_at(p, W_BAD_RECORD, off,
				       "COMPRESSED2 data size %llu exceeds the record",
				       (unsigned long long)dsize);
		b += 8;
		bs = (size_t)dsize;
	}
	if (!p->zs) {
		p->zs = ZSTD_createDStream();
		p->zout = pc_alloc(p->ctx, ZOUT_SIZE);
		if (!p->zs || !p->zout)
			return pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		ZSTD_initDStream(p->zs);
	}
	p->st.compressed_in += bs;
	zin.src = b;
	zin.size = bs;
	zin.pos = 0;
	while (zin.pos < zin.size && !err) {
		ZSTD_outBuffer zo = { p->zout, ZOUT_SIZE, p->zpending };
		size_t r = ZSTD_decompressStream(p->zs, &zo, &zin), pos = 0;

		if (ZSTD_isError(r))
			return perf_corrupt(p, off, "zstd stream in COMPRESSED record: %s",
				       ZSTD_getErrorName(r));
		p->st.compressed_out += zo.pos - p->zpending;
		if (p->st.compressed_out > ZBOMB_FLOOR &&
		    p->st.compressed_out / ZBOMB_RATIO > p->st.compressed_in)
			return perf_corrupt(p, off,
				       "compressed records expand to %llu bytes from %llu: more than %d times; the data is damaged",
				       (unsigned long long)p->st.compressed_out,
				       (unsigned long long)p->st.compressed_in, ZBOMB_RATIO);
		/* hand over every whole record; carry a partial one to the next call */
		while (zo.pos - pos >= 8 && !err) {
			size_t rs = ld16(p, p->zout + pos + 6);

			if (rs < 8)
				return perf_corrupt(p, off,
					       "record of size %zu inside a COMPRESSED record (at +0x%zx of its decompressed data); expected at least 8",
					       rs, pos);
			if (rs > zo.pos - pos)
				break;
			err = handle_record(p, p->zout + pos, rs, off, 1);
			pos += rs;
		}
		memmove(p->zout, p->zout + pos, zo.pos - pos);
		p->zpending = zo.pos - pos;
		if (zo.pos == ZOUT_SIZE && pos == 0)
			return perf_corrupt(p, off, "decompressed record does not fit %zu bytes",
				       ZOUT_SIZE);
		if (r == 0 && zin.pos < zin.size)
			ZSTD_initDStream(p->zs); /* a new frame follows */
	}
	return err;
}

static int handle_event_update(struct perf *p, const unsigned char *b, size_t bs)
{
	const struct attr *a;
	uint64_t type, id;

	if (bs < 16)
		return 0;
	type = ld64(p, b);
	id = ld64(p, b + 8);
	a = perf_attr_for_id(p, id);
	if (type == 2 && a) { /* PERF_EVENT_UPDATE__NAME */
		char name[128];

		body_string(b + 16, bs - 16, name, sizeof(name));
		pc_snprintf(((struct attr *)a)->name, sizeof(a->name), "%s", name);
	}
	return 0;
}

static int handle_header_attr(struct perf *p, const unsigned char *b, size_t bs, uint64_t off)
{
	struct attr a;
	uint32_t asz;
	size_t k;
	int err;

	if (bs < ATTR_SIZE_VER0)
		return perf_corrupt(p, off, "HEADER_ATTR record too short (%zu bytes)", bs + 8);
	asz = ld32(p, b + 4);
	if (asz == 0)
		asz = ATTR_SIZE_VER0;
	if (asz < ATTR_SIZE_VER0 || asz > bs)
		return perf_corrupt(p, off, "HEADER_ATTR attr size %u does not fit the record", asz);
	err = perf_parse_attr(p, b, asz, off + 8, &a);
	if (!err)
		err = perf_add_attr(p, &a, off);
	for (k = asz; !err && k + 8 <= bs; k += 8)
		err = perf_add_id(p, ld64(p, b + k), p->nattrs - 1);
	perf_attrs_done(p);
	return err;
}

/* Records that are metadata (no time): handled as they come. */
static int handle_user_record(struct perf *p, uint32_t type, const unsigned char *rec,
			      size_t size, uint64_t off, int nested)
{
	const unsigned char *b = rec + 8;
	size_t bs = size - 8;
	uint64_t got;
	int err;

	switch (type) {
	case REC_HEADER_ATTR:
		return handle_header_attr(p, b, bs, off);
	case REC_HEADER_FEATURE:
		if (bs < 8)
			return perf_warn_at(p, W_BAD_RECORD, off, "HEADER_FEATURE record too short");
		return perf_parse_feature(p, (unsigned)ld64(p, b), b + 8, bs - 8, off + 16);
	case REC_HEADER_BUILD_ID:
		return perf_parse_build_id_event(p, rec, size);
	case REC_FINISHED_ROUND:
		p->rounds_seen = 1;
		err = perf_flush_queue(p, p->prev_round_max);
		p->prev_round_max = p->round_max;
		return err;
	case REC_ID_INDEX: {
		uint64_t nr, i;

		if (bs < 8)
			return perf_warn_at(p, W_BAD_RECORD, off, "ID_INDEX record too short");
		nr = ld64(p, b);
		if (nr > (bs - 8) / 32)
			return perf_warn_at(p, W_BAD_RECORD, off, "ID_INDEX count %llu overruns the record",
				       (unsigned long long)nr);
		for (i = 0; i < nr; i++) {
			uint64_t id = ld64(p, b + 8 + 32 * i), idx = ld64(p, b + 16 + 32 * i);

			if (idx < p->nattrs) {
				err = perf_add_id(p, id, (uint32_t)idx);
				if (err)
					return err;
			}
		}
		return 0;
	}
	case REC_EVENT_UPDATE:
		return handle_event_update(p, b, bs);
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (nested)
			return perf_warn_at(p, W_BAD_RECORD, off, "COMPRESSED record inside a COMPRESSED record");
		return handle_compressed(p, b, bs, off, type == REC_COMPRESSED2);
	case REC_HEADER_TRACING_DATA:
	case REC_AUXTRACE: {
		/* Their payload follows the record, uncounted in header.size. */
		uint64_t extra;

		if (nested)
			return perf_warn_at(p, W_BAD_RECORD, off, "%s inside a COMPRESSED record",
				       record_name(type));
		if (type == REC_HEADER_TRACING_DATA) {
			if (bs < 4)
				return perf_warn_at(p, W_BAD_RECORD, off, "TRACING_DATA record too short");
			extra = ld32(p, b);
			extra = (extra + 7) & ~(uint64_t)7;
		} else {
			if (bs < 8)
				return perf_warn_at(p, W_BAD_RECORD, off, "AUXTRACE record too short");
			extra = ld64(p, b);
		}
		/* A payload past the end of the data: skip to the end, and warn. */
		err = pc_input_skip(p->in, extra < p->payload_room ? extra : p->payload_room, &got);
		if (err)
			return err;
		p->payload = got;
		if (got < extra)
			return truncated_tail(p, off,
					      "%s payload of %llu bytes runs past the end of the data",
					      record_name(type), (unsigned long long)extra);
		return 0;
	}
	case REC_HEADER_EVENT_TYPE:
	case REC_AUXTRACE_INFO:
	case REC_AUXTRACE_ERROR:
	case REC_THREAD_MAP:
	case REC_CPU_MAP:
	case REC_STAT_CONFIG:
	case REC_STAT:
	case REC_STAT_ROUND:
	case REC_TIME_CONV:
	case REC_FINISHED_INIT:
		return 0;
	default:
		p->st.unknown_records++;
		return perf_warn_at(p, W_UNKNOWN, off, "record of unknown type %u (size %zu) skipped",
			       type, size);
	}
}

static int handle_record(struct perf *p, const unsigned char *rec, size_t size, uint64_t off,
			 int nested)
{
	uint32_t type = ld32(p, rec);
	int64_t time;

	if (type < REC_USER_MAX)
		p->st.records[type]++;
	if (type >= REC_HEADER_ATTR)
		return handle_user_record(p, type, rec, size, off, nested);
	if (type == 0 || type >= REC_KERNEL_MAX) {
		p->st.unknown_records++;
		return perf_warn_at(p, W_UNKNOWN, off, "record of unknown type %u (size %zu) skipped",
			       type, size);
	}
	if (!p->nattrs)
		return perf_corrupt(p, off, "%s record before any event attributes", record_name(type));
	if (!p->selected_any) {
		int err = perf_select_event(p);

		if (err)
			return err;
	}
	time = perf_record_time(p, type, rec, size);
	if (time != PC_NO_TIME) {
		p->have_time = 1;
		if (p->st.first_time == 0 || time < p->st.first_time)
			p->st.first_time = time;
		if (time > p->st.last_time)
			p->st.last_time = time;
		return perf_enqueue(p, rec, size, time, off);
	}
	return perf_dispatch(p, rec, off);
}

/*
 * Read records from the input until end (file mode: the data section's
 * size; pipe mode: EOF).  Records are at most 64 KiB (u16 size).
 */
static int read_records(struct perf *p, uint64_t limit)
{
	uint64_t done = 0;
	int err = 0;

	while (!err && done < limit) {
		const unsigned char *r;
		size_t avail, size;
		uint64_t off = pc_input_offset(p->in);

		r = pc_input_peek(p->in, 8, &avail);
		if (!r)
			return p->ctx->status;
		if (avail == 0 && p->pipe)
			break;
		if (avail < 8 || limit - done < 8)
			return truncated_tail(p, off,
				       "input ends inside a record header (%zu bytes left)",
				       avail < limit - done ? avail : (size_t)(limit - done));
		size = ld16(p, r + 6);
		if (size < 8)
			return perf_corrupt(p, off,
				       "record of size %zu (type %u); expected at least 8 bytes",
				       size, ld32(p, r));
		if (size > limit - done)
			return truncated_tail(p, off,
				       "record of size %zu (type %u) runs past the end of the data",
				       size, ld32(p, r));
		if (avail < size) { /* (the input has most often buffered more) */
			r = pc_input_peek(p->in, size, &avail);
			if (!r)
				return p->ctx->status;
		}
		if (avail < size)
			return truncated_tail(p, off,
				       "input ends inside a %s record (%zu of %zu bytes present)",
				       record_name(ld32(p, r)), avail, size);
		{
			/*
			 * Every whole, ordinary record already buffered is handled
			 * in place, and consumed together: a record's checks
			 * that fail (and the records with a payload) are left to
			 * the steps below, which read them exactly as before.
			 */
			size_t used = 0, rs;

			while (!err && avail - used >= 8 && limit - done >= 8 &&
			       (rs = ld16(p, r + used + 6)) >= 8 && rs <= avail - used &&
			       rs <= limit - done && ld32(p, r + used) != REC_HEADER_TRACING_DATA &&
			       ld32(p, r + used) != REC_AUXTRACE) {
				err = handle_record(p, r + used, rs, off + used, 0);
				used += rs;
				done += rs;
			}
			if (used) {
				pc_input_consume(p->in, used);
				continue;
			}
		}
		if (ld32(p, r) == REC_HEADER_TRACING_DATA || ld32(p, r) == REC_AUXTRACE) {
			/*
			 * Their payload follows the record, uncounted in its size:
			 * copy the record out, consume it, and let the handler
			 * skip the payload (at most what is left of the data).
			 */
			unsigned char tmp[64];

			if (size > sizeof(tmp))
				return perf_corrupt(p, off, "%s record of %zu bytes; expected at most %zu",
					       record_name(ld32(p, r)), size, sizeof(tmp));
			memcpy(tmp, r, size);
			pc_input_consume(p->in, size);
			done += size;
			p->payload_room = limit - done;
			p->payload = 0;
			err = handle_record(p, tmp, size, off, 0);
			done += p->payload;
			continue;
		}
		/* handled before it is consumed: r stays valid until the next input call */
		err = handle_record(p, r, size, off, 0);
		pc_input_consume(p->in, size);
		done += size;
	}
	return err;
}

static int read_pipe_header(struct perf *p)
{
	const unsigned char *h;
	size_t avail;
	uint64_t hsize;

	h = pc_input_peek(p->in, 16, &avail);
	if (!h)
		return p->ctx->status;
	hsize = ld64(p, h + 8);
	if (hsize != PIPE_HEADER_SIZE)
		return perf_corrupt(p, 8, "header size %llu; expected 104 (file) or 16 (pipe)",
			       (unsigned long long)hsize);
	pc_input_consume(p->in, 16);
	return 0;
}

/* --- result --- */

static int cmp_thread(const void *a, const void *b)
{
	const struct pc_thread *x = *(const struct pc_thread *const *)a;
	const struct pc_thread *y = *(const struct pc_thread *const *)b;
	int xm = x->tid == x->pid, ym = y->tid == y->pid;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (xm != ym)
		return xm ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static const char *const marker_display[] = { "marker-chart", "marker-table",
					      "timeline-overview", NULL };
static const struct pc_schema_field lost_fields[] = {
	{ "lost", "Lost", "integer", 0 },
	{ "record", "perf record", "string", 0 },
};

static int64_t rel(const struct perf *p, int64_t t)
{
	if (t == PC_NO_TIME)
		return PC_NO_TIME;
	return pc_time_sub(t, p->m->meta.zero_ns);
}

static int finish_model(struct perf *p)
{
	struct pc_model *m = p->m;
	struct thread_state *ts, *tmp;
	const struct attr *a = NULL;
	uint32_t i;
	int err;

	for (i = 0; i < p->nattrs; i++)
		if (p->attrs[i].selected) {
			a = &p->attrs[i];
			break;
		}
	err = perf_offcpu_finish(p);
	if (err)
		return err;
	m->meta.zero_ns = p->first_sample == PC_NO_TIME ? 0 : p->first_sample;
	if (a) {
		if (a->flags & AF_FREQ && a->period_or_freq)
			m->meta.interval_ns = (int64_t)(1000000000ull / a->period_or_freq);
		else if (a->type == 1 && a->config <= 1 && a->period_or_freq)
			m->meta.interval_ns = (int64_t)a->period_or_freq;
		if (p->has_clock_data && (a->flags & AF_USE_CLOCKID) &&
		    a->clockid == p->clock_data_id) {
			m->meta.start_time_ns = pc_time_add(p->clock_tod_ns,
							    pc_time_sub(m->meta.zero_ns, p->clock_ref_ns));
			m->meta.has_start_time = 1;
		}
	}
	if (p->first_sample != PC_NO_TIME) {
		m->meta.profiling_start = 0;
		/*
		 * The front-end keeps samples in [start, end): end one interval
		 * after the last sample, as it does itself without this field.
		 */
		m->meta.profiling_end = pc_time_add(pc_time_sub(p->last_sample, m->meta.zero_ns),
						    m->meta.interval_ns);
	}
	m->meta.symbolicated = 0;
	if (p->lost_markers &&
	    pc_schema_add_simple(m, "PerfLost", marker_display, lost_fields,
				 PC_ARRAY_SIZE(lost_fields), "{marker.data.lost} lost",
				 "{marker.data.lost} lost ({marker.data.record})", NULL,
				 "perf could not keep up: events or samples were lost.") == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	if (p->offcpu_markers) {
		static const struct pc_schema_field offcpu_fields[] = {
			{ "reason", "Reason", "string", 0 },
		};

		if (pc_schema_add_simple(m, "OffCPU", marker_display, offcpu_fields,
					 PC_ARRAY_SIZE(offcpu_fields), "Off-CPU ({marker.data.reason})",
					 "{marker.data.reason}", NULL,
					 "The thread was off the CPU: switched out while runnable (preempted) or waiting (sleeping); from perf's context-switch records or sched:sched_switch samples (an instant when the switch back in was not recorded).") ==
		    PC_NONE)
			return PROFCONV_ERR_NOMEM;
	}
	if (p->saw_switch && !m->meta.unit_cpu_delta)
		m->meta.unit_cpu_delta = "ns";
	if (p->throttle_markers &&
	    pc_schema_add_simple(m, "PerfThrottle", marker_display, NULL, 0, NULL, NULL, NULL,
				 "The kernel throttled (or unthrottled) sampling because the sample rate was too high.") == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	err = pc_meta_set(m, &m->meta.imported_from, "perf.data");
	if (!err)
		err = pc_meta_set(m, &m->meta.product, "perf");
	if (!err)
		err = pc_meta_keep(m, &m->meta.platform, "Linux");
	if (!err)
		err = pc_meta_keep(m, &m->meta.oscpu, p->f_osrel);
	if (!err)
		err = pc_meta_keep(m, &m->meta.abi, p->f_arch);
	if (!err)
		err = pc_meta_keep(m, &m->meta.cpu_name, p->f_cpu);
	/* the facts only perf.data has, in the profile-info panel */
	if (!err)
		err = pc_meta_extra_str(m, "perf.data", "Host", p->f_host);
	if (!err)
		err = pc_meta_extra_str(m, "perf.data", "perf version", p->f_version);
	if (!err)
		err = pc_meta_extra_str(m, "perf.data", "Command line", p->f_cmdline);
	if (!err && a)
		err = pc_meta_extra_str(m, "perf.data", "Event", a->name);
	if (err)
		return err;

	HASH_ITER(hh, p->threads, ts, tmp)
	{
		struct pc_thread *t = ts->t;
		struct process *pr;

		if (!t)
			continue;
		HASH_FIND(hh, p->procs, &ts->pid, sizeof(ts->pid), pr);
		if (ts->name == PC_NONE && (!pr || pr->name == PC_NONE)) {
			/* no COMM: perf's names, "swapper" for the idle task
			 * (perf_session__register_idle_thread()), else ":TID" */
			char nm[16];

			if (ts->tid == 0)
				memcpy(nm, "swapper", 8);
			else
				snprintf(nm, sizeof(nm), ":%d", (int)ts->tid);
			ts->name = pc_str_intern_z(m, nm);
			if (ts->name == PC_NONE)
				return PROFCONV_ERR_NOMEM;
			if (pr && ts->pid == ts->tid)
				pr->name = ts->name;
		}
		t->name = ts->name != PC_NONE ? ts->name
					      : (pr && pr->name != PC_NONE ? pr->name : 0);
		t->is_main = ts->pid == ts->tid;
		t->register_time = ts->start != PC_NO_TIME && ts->start > m->meta.zero_ns
					   ? rel(p, ts->start)
					   : 0;
		t->unregister_time = rel(p, ts->end);
		{
			struct pc_process *mp = &m->processes.rows[t->process];
			uint32_t pn = pr && pr->name != PC_NONE ? pr->name : t->name;

			mp->name = pc_model_keep(m, pc_str(m, pn), m->strings.lens[pn]);
			if (!mp->name)
				return PROFCONV_ERR_NOMEM;
			mp->start = pr && pr->start != PC_NO_TIME && pr->start > m->meta.zero_ns
					    ? rel(p, pr->start)
					    : 0;
			mp->end = pr ? rel(p, pr->end) : PC_NO_TIME;
		}
		for (i = 0; i < t->samples.len; i++)
			t->samples.time[i] = pc_time_sub(t->samples.time[i], m->meta.zero_ns);
		for (i = 0; i < t->markers.len; i++) {
			t->markers.start[i] = rel(p, t->markers.start[i]);
			t->markers.end[i] = rel(p, t->markers.end[i]);
			t->markers.cause_time[i] = rel(p, t->markers.cause_time[i]);
		}
	}
	for (i = 0; i < m->processes.len; i++)
		pc_process_sort_maps(m, i);
	err = pc_model_sort_thread_list(m, cmp_thread);
	if (err)
		return err;
	return pc_model_sort_threads(m);
}

static void perf_free(struct perf *p)
{
	struct process *pr, *ptmp;
	struct thread_state *ts, *ttmp;
	struct id_map *e, *etmp;

	pc_free(p->ctx, p->f_host);
	pc_free(p->ctx, p->f_osrel);
	pc_free(p->ctx, p->f_version);
	pc_free(p->ctx, p->f_arch);
	pc_free(p->ctx, p->f_cpu);
	pc_free(p->ctx, p->f_cmdline);
	perf_unwind_free(p);
	HASH_ITER(hh, p->procs, pr, ptmp)
	{
		HASH_DEL(p->procs, pr);
		pc_free(p->ctx, pr->maps);
		pc_free(p->ctx, pr);
	}
	HASH_CLEAR(hh_tid, p->by_tid);
	HASH_ITER(hh, p->threads, ts, ttmp)
	{
		HASH_DEL(p->threads, ts);
		pc_free(p->ctx, ts->raw_ips);
		pc_free(p->ctx, ts->raw_frames);
		pc_free(p->ctx, ts->raw_kernel);
		pc_free(p->ctx, ts);
	}
	HASH_ITER(hh, p->ids, e, etmp)
	{
		HASH_DEL(p->ids, e);
		pc_free(p->ctx, e);
	}
	perf_free_qchunks(p, p->qchunks);
	pc_free(p->ctx, p->q);
	pc_free(p->ctx, p->qtmp);
	pc_free(p->ctx, p->attrs);
	pc_free(p->ctx, p->build_ids);
	pc_free(p->ctx, p->lib_keys);
	pc_free(p->ctx, p->frames);
	pc_free(p->ctx, p->fcache);
	pc_free(p->ctx, p->icache);
	perf_ftab_free(p);
	perf_stacks_free(p);
	pc_free(p->ctx, p->cc);
	pc_free(p->ctx, p->zout);
	pc_free(p->ctx, p->cmdline);
	if (p->zs)
		ZSTD_freeDStream(p->zs);
}

static int perf_parse(struct perf *p)
{
	const unsigned char *h;
	size_t avail;
	int err;

	h = pc_input_peek(p->in, 16, &avail);
	if (!h)
		return p->ctx->status;
	if (avail < 16)
		return perf_corrupt(p, 0, "file of %zu bytes is too short for a perf.data header", avail);
	if (memcmp(h, "PERFILE2", 8) == 0) {
		p->swap = 0;
	} else if (memcmp(h, "2ELIFREP", 8) == 0) {
		p->swap = 1;
	} else if (memcmp(h, "PERFFILE", 8) == 0) {
		return pc_fail_at(p->ctx, PROFCONV_ERR_UNSUPPORTED, p->path, 0,
				  "perf.data version 1 (magic PERFFILE) is not supported");
	} else {
		return perf_corrupt(p, 0, "bad magic; expected \"PERFILE2\"");
	}
	p->pipe = ld64(p, h + 8) == PIPE_HEADER_SIZE;
	p->first_sample = p->last_sample = PC_NO_TIME;
	p->last_dispatched = INT64_MIN;
	p->round_max = p->prev_round_max = INT64_MIN;
	p->qmin = INT64_MAX;
	p->cat_user = pc_model_add_category(p->m, "User", "yellow");
	p->cat_kernel = pc_model_add_category(p->m, "Kernel", "orange");
	if (p->pipe) {
		err = read_pipe_header(p);
		if (!err)
			err = read_records(p, UINT64_MAX);
	} else {
		err = perf_read_file_header(p);
		if (!err)
			err = read_records(p, p->data_size);
	}
	if (!err && p->zpending)
		err = perf_warn_at(p, W_TRUNCATED, pc_input_offset(p->in),
			      "compressed stream ends inside a record (%zu bytes left over)",
			      p->zpending);
	if (!err)
		err = perf_flush_queue(p, INT64_MAX);
	if (!err && !p->nattrs)
		err = perf_corrupt(p, pc_input_offset(p->in), "no event attributes in the stream");
	if (!err && !p->selected_any)
		err = perf_select_event(p);
	return err;
}

static int read_perf(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct perf p;
	int err;

	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.in = in;
	p.event = pc_opt(ctx, "event");
	p.weight_period = pc_opt(ctx, "weight") && strcmp(pc_opt(ctx, "weight"), "period") == 0;
	p.uw.off = pc_opt(ctx, "unwind") && strcmp(pc_opt(ctx, "unwind"), "no") == 0;
	p.m = m;
	p.path = pc_input_name(in);
	err = perf_parse(&p);
	if (!err)
		err = perf_stacks_end(&p);
	if (!err)
		err = perf_unwind_report(&p);
	if (!err)
		err = finish_model(&p);
	perf_free(&p);
	return err;
}

static int perf_info(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *o)
{
	struct pc_model *m = pc_model_new(ctx);
	struct perf p;
	uint32_t i, nthreads = 0, nprocs = 0;
	struct thread_state *ts, *tt;
	struct process *pr, *pt;
	int err;

	if (!m)
		return PROFCONV_ERR_NOMEM;
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.in = in;
	p.event = pc_opt(ctx, "event");
	p.weight_period = pc_opt(ctx, "weight") && strcmp(pc_opt(ctx, "weight"), "period") == 0;
	p.uw.off = pc_opt(ctx, "unwind") && strcmp(pc_opt(ctx, "unwind"), "no") == 0;
	p.m = m;
	p.path = pc_input_name(in);
	p.info_only = 1;
	err = perf_parse(&p);
	if (err)
		goto out;
	pc_text_printf(o, "file:        %s%s%s\n", p.path, pc_input_filter(in) ? " via " : "",
		       pc_input_filter(in) ? pc_input_filter(in) : "");
	pc_text_printf(o, "format:      perf.data, %s mode, %s-endian%s\n",
		       p.pipe ? "pipe" : "file", p.swap ? "opposite" : "host",
		       p.st.records[REC_COMPRESSED] || p.st.records[REC_COMPRESSED2]
			       ? ", zstd-compressed records"
			       : "");
	if (p.f_host)
		pc_text_printf(o, "host:        %s\n", p.f_host);
	if (p.f_osrel)
		pc_text_printf(o, "os release:  %s\n", p.f_osrel);
	if (p.f_arch)
		pc_text_printf(o, "arch:        %s\n", p.f_arch);
	if (p.f_cpu)
		pc_text_printf(o, "cpu:         %s (%u online)\n", p.f_cpu,
			       p.nr_cpus_online);
	if (p.f_version)
		pc_text_printf(o, "perf:        %s\n", p.f_version);
	if (p.f_cmdline)
		pc_text_printf(o, "command:     %s\n", p.f_cmdline);
	pc_text_printf(o, "events:      %u\n", p.nattrs);
	for (i = 0; i < p.nattrs; i++) {
		const struct attr *a = &p.attrs[i];

		int dwarf = (a->flags & AF_EXCL_CALLCHAIN_USER) && (a->sample_type & S_STACK_USER);

		pc_text_printf(o, "  %-24s %10llu samples  %s %llu%s%s%s\n", a->name,
			       (unsigned long long)a->nsamples, a->flags & AF_FREQ ? "freq" : "period",
			       (unsigned long long)a->period_or_freq,
			       a->sample_type & S_CALLCHAIN ? "  callchains" : "",
			       dwarf ? " + user stacks to unwind (--call-graph dwarf)" : "",
			       a->selected ? "  (selected)" : "");
	}
	HASH_ITER(hh, p.procs, pr, pt)
	{
		if (pr->pid != -1)
			nprocs++;
	}
	HASH_ITER(hh, p.threads, ts, tt)
	{
		nthreads++;
	}
	pc_text_printf(o, "processes:   %u\n", nprocs);
	pc_text_printf(o, "threads:     %u\n", nthreads);
	pc_text_printf(o, "samples:     %llu\n", (unsigned long long)p.st.samples_total);
	if (p.first_sample != PC_NO_TIME) {
		char a[32], b[32];

		pc_fmt_ns_as_ms(a, pc_time_sub(p.last_sample, p.first_sample));
		pc_fmt_ns_as_ms(b, p.first_sample);
		pc_text_printf(o, "time span:   %s ms (from perf clock %s ms)\n", a, b);
	}
	if (p.has_clock_data)
		pc_text_printf(o, "wall clock:  yes (CLOCK_DATA, clock id %d)\n", p.clock_data_id);
	pc_text_printf(o, "records:    ");
	for (i = 0; i < REC_USER_MAX; i++)
		if (p.st.records[i])
			pc_text_printf(o, " %s=%llu", record_name(i),
				       (unsigned long long)p.st.records[i]);
	pc_text_printf(o, "\n");
	if (p.st.compressed_in)
		pc_text_printf(o, "compressed:  %llu -> %llu bytes\n",
			       (unsigned long long)p.st.compressed_in,
			       (unsigned long long)p.st.compressed_out);
	if (p.st.lost || p.st.lost_samples)
		pc_text_printf(o, "lost:        %llu events (LOST), %llu samples (LOST_SAMPLES)\n",
			       (unsigned long long)p.st.lost, (unsigned long long)p.st.lost_samples);
	pc_text_printf(o, "lacks:      ");
	{
		int any = 0;
		const struct attr *sel = NULL;

		for (i = 0; i < p.nattrs; i++)
			if (p.attrs[i].selected)
				sel = &p.attrs[i];
		if (sel && !(sel->sample_type & S_CALLCHAIN)) {
			pc_text_printf(o, " callchains (record with -g);");
			any = 1;
		}
		if (sel && (sel->flags & AF_EXCL_CALLCHAIN_USER) &&
		    (sel->sample_type & S_STACK_USER) && p.uw.off) {
			pc_text_printf(o, " user callchains (--call-graph dwarf, and --unwind no);");
			any = 1;
		}
		if (sel && !(sel->sample_type & S_TIME)) {
			pc_text_printf(o, " sample times;");
			any = 1;
		}
		if (!p.has_clock_data) {
			pc_text_printf(o, " wall-clock time (record with -k CLOCK_MONOTONIC);");
			any = 1;
		}
		if (!p.nbuild_ids && !p.st.records[REC_MMAP2]) {
			pc_text_printf(o, " build ids;");
			any = 1;
		}
		if (!p.st.records[REC_MMAP] && !p.st.records[REC_MMAP2]) {
			pc_text_printf(o, " memory maps;");
			any = 1;
		}
		pc_text_printf(o, "%s\n", any ? "" : " nothing");
	}
out:
	perf_free(&p);
	pc_model_free(m);
	return err ? err : o->err;
}

static const struct profconv_option perf_options[] = {
	{ "event", "NAME", NULL, NULL,
	  "the event whose samples make the call tree (default: the first sampling event; see 'info')" },
	{ "weight", "MODE", "samples|period", "samples",
	  "weigh each sample as one, or by its period (e.g. nanoseconds of cpu-clock)" },
	{ "unwind", "MODE", "yes|no", "yes",
	  "unwind --call-graph dwarf user stacks from the copied stack (binaries found like symbols)" },
	{ NULL, NULL, NULL, NULL, NULL },
};

const struct pc_reader pc_reader_perf = {
	.name = "perf",
	.summary = "Linux perf.data (file and pipe mode, either byte order, zstd records)",
	.flags = 0,
	.options = perf_options,
	.bid = bid,
	.read = read_perf,
	.info = perf_info,
};
