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
 *                                  dispatch() -> processes, threads, maps,
 *                                                samples -> model
 *
 * Every length read from the file is checked against what remains of its
 * container before use; a record's size must be at least its header, so
 * the loop always advances.  Damage confined to a record is a counted
 * warning; a truncated data section converts what is there.
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

/*
 * uthash allocates through the ctx allocator (every use is inside a function
 * with `p` in scope) and reports OOM instead of exiting.
 */
#define HASH_NONFATAL_OOM 1
#define uthash_malloc(sz)    pc_alloc(p->ctx, sz)
#define uthash_free(ptr, sz) pc_free(p->ctx, ptr)
#include <uthash.h>

#include "readers/pc_reader.h"

/* --- format constants (include/uapi/linux/perf_event.h, tools/perf) --- */

enum {
	REC_MMAP = 1,
	REC_LOST = 2,
	REC_COMM = 3,
	REC_EXIT = 4,
	REC_THROTTLE = 5,
	REC_UNTHROTTLE = 6,
	REC_FORK = 7,
	REC_READ = 8,
	REC_SAMPLE = 9,
	REC_MMAP2 = 10,
	REC_AUX = 11,
	REC_ITRACE_START = 12,
	REC_LOST_SAMPLES = 13,
	REC_SWITCH = 14,
	REC_SWITCH_CPU_WIDE = 15,
	REC_NAMESPACES = 16,
	REC_KSYMBOL = 17,
	REC_BPF_EVENT = 18,
	REC_CGROUP = 19,
	REC_TEXT_POKE = 20,
	REC_AUX_OUTPUT_HW_ID = 21,
	REC_KERNEL_MAX = 22,

	REC_HEADER_ATTR = 64,
	REC_HEADER_EVENT_TYPE = 65,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_ID_INDEX = 69,
	REC_AUXTRACE_INFO = 70,
	REC_AUXTRACE = 71,
	REC_AUXTRACE_ERROR = 72,
	REC_THREAD_MAP = 73,
	REC_CPU_MAP = 74,
	REC_STAT_CONFIG = 75,
	REC_STAT = 76,
	REC_STAT_ROUND = 77,
	REC_EVENT_UPDATE = 78,
	REC_TIME_CONV = 79,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_FINISHED_INIT = 82,
	REC_COMPRESSED2 = 83,
	REC_USER_MAX = 84,
};

#define S_IP		 (1ull << 0)
#define S_TID		 (1ull << 1)
#define S_TIME		 (1ull << 2)
#define S_ADDR		 (1ull << 3)
#define S_READ		 (1ull << 4)
#define S_CALLCHAIN	 (1ull << 5)
#define S_ID		 (1ull << 6)
#define S_CPU		 (1ull << 7)
#define S_PERIOD	 (1ull << 8)
#define S_STREAM_ID	 (1ull << 9)
#define S_RAW		 (1ull << 10)
#define S_BRANCH_STACK	 (1ull << 11)
#define S_REGS_USER	 (1ull << 12)
#define S_STACK_USER	 (1ull << 13)
#define S_WEIGHT	 (1ull << 14)
#define S_DATA_SRC	 (1ull << 15)
#define S_IDENTIFIER	 (1ull << 16)
#define S_TRANSACTION	 (1ull << 17)
#define S_REGS_INTR	 (1ull << 18)
#define S_PHYS_ADDR	 (1ull << 19)
#define S_AUX		 (1ull << 20)
#define S_CGROUP	 (1ull << 21)
#define S_DATA_PAGE_SIZE (1ull << 22)
#define S_CODE_PAGE_SIZE (1ull << 23)
#define S_WEIGHT_STRUCT	 (1ull << 24)
#define S_KNOWN		 ((1ull << 25) - 1)

#define RF_TOTAL_TIME_ENABLED (1ull << 0)
#define RF_TOTAL_TIME_RUNNING (1ull << 1)
#define RF_ID		      (1ull << 2)
#define RF_GROUP	      (1ull << 3)
#define RF_LOST		      (1ull << 4)

#define AF_FREQ		 (1ull << 10)
#define AF_SAMPLE_ID_ALL (1ull << 18)
#define AF_USE_CLOCKID	 (1ull << 25)
#define AF_EXCL_CALLCHAIN_USER (1ull << 22)

#define BRANCH_HW_INDEX (1ull << 17)

#define MISC_CPUMODE_MASK 7u
#define MISC_KERNEL	  1u
#define MISC_USER	  2u
#define MISC_GUEST_KERNEL 4u
#define MISC_MMAP_DATA	  (1u << 13) /* MMAP: not executable */
#define MISC_COMM_EXEC	  (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_BUILD_ID_SIZE (1u << 15)

#define CTX_HV		 ((uint64_t)-32)
#define CTX_KERNEL	 ((uint64_t)-128)
#define CTX_USER	 ((uint64_t)-512)
#define CTX_GUEST	 ((uint64_t)-2048)
#define CTX_GUEST_KERNEL ((uint64_t)-2176)
#define CTX_GUEST_USER	 ((uint64_t)-2560)
#define CTX_MAX		 ((uint64_t)-4095)

#define PROT_EXEC_BIT 4u

enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_CPU_TOPOLOGY = 13,
	FEAT_SAMPLE_TIME = 21,
	FEAT_CLOCKID = 23,
	FEAT_COMPRESSED = 27,
	FEAT_CLOCK_DATA = 29,
	FEAT_LAST = 32,
};

#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0	 64
#define MAX_ATTRS	 4096
#define MAX_IDS		 (1u << 20)
#define QUEUE_LIMIT	 ((size_t)64 << 20) /* bytes of queued records before a forced flush */
#define ZOUT_SIZE	 ((size_t)1 << 20)
/*
 * perf's zstd records compress about 10:1 (26:1 seen at most); a stream that
 * expands more than ZBOMB_RATIO times past ZBOMB_FLOOR bytes is refused.
 */
#define ZBOMB_RATIO 1000
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define ZBOMB_FLOOR ((uint64_t)1 << 20) /* fuzz inputs are small: stop bombs early */
#else
#define ZBOMB_FLOOR ((uint64_t)64 << 20)
#endif

static const char W_UNKNOWN[] = "records of unknown type skipped";
static const char W_BAD_RECORD[] = "malformed records skipped";
static const char W_TRUNCATED[] = "truncated inputs (the tail was ignored)";
static const char W_NO_ATTR[] = "samples of unknown events skipped";
static const char W_FEATURE[] = "malformed feature sections ignored";
static const char W_BACKWARDS[] = "records out of time order";
static const char W_NO_USER_STACK[] =
	"samples without user stacks (--call-graph dwarf is not unwound yet)";

/* --- reader state --- */

struct attr {
	uint32_t type;
	uint64_t config;
	uint64_t period_or_freq;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint64_t branch_sample_type;
	uint64_t regs_user;
	uint64_t regs_intr;
	int32_t clockid;
	char name[128];
	uint64_t nsamples;
	int selected;
};

struct id_map {
	uint64_t id;
	uint32_t attr;
	UT_hash_handle hh;
};

struct mapping {
	uint64_t start, end; /* [start, end) */
	uint64_t rel_base;   /* relative address = avma - rel_base */
	uint32_t lib;
};

struct process {
	int32_t pid;
	uint32_t name;	   /* string, PC_NONE until known */
	int exec_named;	   /* name came from an exec COMM: later renames keep it */
	struct mapping *maps; /* sorted by start, non-overlapping */
	uint32_t nmaps, maps_cap;
	int64_t start, end;
	UT_hash_handle hh;
};

struct thread_state {
	uint64_t key; /* pid << 32 | tid */
	int32_t pid, tid;
	uint32_t name; /* string or PC_NONE */
	int64_t start, end;
	struct pc_thread *t;
	/* the last resolved chain, root first: frames and their stacks */
	uint32_t *last_frames, *last_stacks;
	uint32_t nlast, last_cap;
	UT_hash_handle hh;
};

struct build_id {
	uint32_t path; /* string */
	uint8_t bytes[20];
	uint8_t len;
	uint8_t kernel;
};

struct lib_key {
	uint32_t path;
	uint32_t lib;
};

struct qchunk {
	struct qchunk *next;	  /* every chunk, for freeing */
	struct qchunk *next_free; /* chunks with no live record */
	size_t used, size;
	uint32_t live; /* queued records in this chunk */
	unsigned char data[];
};

struct qent {
	int64_t time;
	uint64_t off; /* file offset, for messages */
	unsigned char *rec;
	struct qchunk *chunk;
};

/* Direct-mapped cache: (lib, address, flags) -> frame row. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define FCACHE_BITS 8 /* small inputs: keep each run cheap */
#else
#define FCACHE_BITS 16
#endif
struct fcache_ent {
	uint64_t addr;
	uint32_t lib;
	uint32_t frame; /* PC_NONE = empty */
	uint32_t flags;
};

/*
 * Callchain cache: a raw callchain (the u64s as recorded, context markers
 * included) of a pid under one map generation always resolves to the same
 * stack, so it is resolved once.  Real profiles repeat callchains heavily
 * (1.3 M samples, 263 k distinct chains in the benchmark recording).  The
 * cache is dropped when its ips arena passes CC_ARENA_MAX, which bounds it.
 */
#define CC_ARENA_MAX ((size_t)8 << 20) /* u64s (64 MiB) */
struct cc_ent {
	uint64_t hash;
	uint64_t off; /* into cc_ips */
	uint32_t nr;
	uint32_t stack;
	int32_t pid;
	uint32_t gen;
};

struct perf_stats {
	uint64_t records[REC_USER_MAX];
	uint64_t unknown_records;
	uint64_t samples_used;
	uint64_t samples_total;
	uint64_t lost;
	uint64_t lost_samples;
	int64_t first_time, last_time;
	uint64_t compressed_in, compressed_out;
};

struct perf {
	struct profconv_ctx *ctx;
	struct pc_input *in;
	struct pc_model *m;
	const char *path;
	/* Header features (owned): the model gets platform facts and a
	 * "perf.data" section of meta extra entries from them. */
	char *f_host, *f_osrel, *f_version, *f_arch, *f_cpu, *f_cmdline;
	int swap;
	int pipe;
	int info_only;

	uint64_t data_off, data_size;
	uint64_t feat_flags[4];

	struct attr *attrs;
	uint32_t nattrs, attrs_cap;
	struct id_map *ids;
	int all_identifier;
	int same_layout;
	int selected_any;

	struct process *procs;
	struct thread_state *threads;
	struct process *last_pr;      /* the last looked up (entries are never removed */
	struct thread_state *last_ts; /* while reading, so the pointers stay valid) */
	struct build_id *build_ids;
	uint32_t nbuild_ids, build_ids_cap;
	struct lib_key *lib_keys;
	uint32_t nlib_keys, lib_keys_cap;
	uint32_t kernel_lib_name;

	/* ordered queue */
	struct qent *q, *qtmp;
	uint32_t qlen, qcap, qtmp_cap;
	struct qchunk *qchunks, *qcur, *qfree;
	size_t qbytes;
	int64_t round_max, prev_round_max;
	int64_t qmin; /* smallest time queued (INT64_MAX when empty) */
	int rounds_seen;
	int64_t last_dispatched;

	/* zstd */
	ZSTD_DStream *zs;
	unsigned char *zout;
	size_t zpending;

	/* per-sample scratch */
	uint32_t map_gen; /* bumped on every mapping change */
	struct cc_ent *cc;
	uint32_t ncc, cc_cap;
	uint32_t *cc_slots; /* entry index + 1, 0 = empty */
	uint32_t cc_mask;
	uint64_t *cc_ips;
	size_t ncc_ips, cc_ips_cap;
	struct fcache_ent *fcache;
	uint32_t *frames;
	uint32_t frames_cap;

	uint16_t cat_user, cat_kernel;
	int64_t first_sample, last_sample;
	int have_time;
	int truncated; /* the data section was cut short: warned once already */
	int lost_markers, throttle_markers;
	uint64_t payload;      /* bytes after a record its handler consumed */
	uint64_t payload_room; /* bytes left in the data for such a payload */

	/* features */
	int64_t clock_tod_ns, clock_ref_ns;
	int32_t clock_data_id;
	int has_clock_data;
	uint64_t sample_time_first, sample_time_last;
	uint32_t nr_cpus_online, nr_cpus_avail;
	char *cmdline;

	struct perf_stats st;
};

/* --- helpers --- */

static inline uint64_t ld64(const struct perf *p, const unsigned char *b)
{
	return pc_load_u64(b, p->swap);
}

static inline uint32_t ld32(const struct perf *p, const unsigned char *b)
{
	return pc_load_u32(b, p->swap);
}

static inline uint16_t ld16(const struct perf *p, const unsigned char *b)
{
	return pc_load_u16(b, p->swap);
}

static int corrupt(struct perf *p, uint64_t off, const char *fmt, ...) PC_PRINTF(3, 4);

static int corrupt(struct perf *p, uint64_t off, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pc_fail_at(p->ctx, PROFCONV_ERR_CORRUPT, p->path, off, "%s", msg);
}

static int warn_at(struct perf *p, const char *kind, uint64_t off, const char *fmt, ...)
	PC_PRINTF(4, 5);

static int warn_at(struct perf *p, const char *kind, uint64_t off, const char *fmt, ...)
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

/* --- attrs --- */

static int add_id(struct perf *p, uint64_t id, uint32_t attr)
{
	struct id_map *e;

	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	if (e)
		return 0;
	e = pc_calloc(p->ctx, 1, sizeof(*e));
	if (!e)
		return PROFCONV_ERR_NOMEM;
	e->id = id;
	e->attr = attr;
	HASH_ADD(hh, p->ids, id, sizeof(e->id), e);
	if (!e->hh.tbl) /* uthash could not allocate its table (HASH_NONFATAL_OOM) */
		return pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	return 0;
}

static void event_name(const struct attr *a, char *buf, size_t cap)
{
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output", "cgroup-switches",
	};
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
		"ref-cycles",
	};

	if (a->type == 1 && a->config < PC_ARRAY_SIZE(sw))
		pc_snprintf(buf, cap, "%s", sw[a->config]);
	else if (a->type == 0 && a->config < PC_ARRAY_SIZE(hw))
		pc_snprintf(buf, cap, "%s", hw[a->config]);
	else
		pc_snprintf(buf, cap, "event(type %u, config 0x%llx)", a->type,
			    (unsigned long long)a->config);
}

/*
 * Parse one perf_event_attr of avail bytes (its own size field says how
 * much of it the writer filled; the rest is zero, as in the kernel's ABI).
 */
static int parse_attr(struct perf *p, const unsigned char *b, size_t avail, uint64_t off,
		      struct attr *a)
{
	unsigned char buf[256];
	uint32_t size;

	if (avail < ATTR_SIZE_VER0)
		return corrupt(p, off, "perf_event_attr of %zu bytes; expected at least %d", avail,
			       ATTR_SIZE_VER0);
	size = ld32(p, b + 4);
	if (size == 0)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0)
		return corrupt(p, off + 4, "perf_event_attr.size %u; expected at least %d", size,
			       ATTR_SIZE_VER0);
	if (size > avail)
		size = (uint32_t)avail;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, b, size < sizeof(buf) ? size : sizeof(buf));
	memset(a, 0, sizeof(*a));
	a->type = ld32(p, buf + 0);
	a->config = ld64(p, buf + 8);
	a->period_or_freq = ld64(p, buf + 16);
	a->sample_type = ld64(p, buf + 24);
	a->read_format = ld64(p, buf + 32);
	a->flags = ld64(p, buf + 40);
	a->branch_sample_type = ld64(p, buf + 72);
	a->regs_user = ld64(p, buf + 80);
	a->clockid = (int32_t)ld32(p, buf + 92);
	a->regs_intr = ld64(p, buf + 96);
	if (p->swap) {
		/*
		 * The flags word is a bitfield, which a big-endian compiler
		 * allocates from the most significant bit of each byte.  perf
		 * does not byte-swap it: it reverses the bits of every byte in
		 * place (swap_bitfield() in tools/perf/util/session.c).
		 */
		uint64_t raw = pc_load_u64(buf + 40, 0), r = 0;
		int i;

		for (i = 0; i < 64; i++)
			if (raw >> i & 1)
				r |= 1ull << ((i & ~7) | (7 - (i & 7)));
		a->flags = r;
	}
	event_name(a, a->name, sizeof(a->name));
	return 0;
}

static int add_attr(struct perf *p, const struct attr *a)
{
	if (p->nattrs >= MAX_ATTRS)
		return corrupt(p, PC_NO_OFFSET, "more than %d events", MAX_ATTRS);
	if (pc_grow(p->ctx, (void **)&p->attrs, sizeof(*p->attrs), &p->attrs_cap,
		    (size_t)p->nattrs + 1))
		return PROFCONV_ERR_NOMEM;
	p->attrs[p->nattrs++] = *a;
	return 0;
}

/* Called once all attrs are known: layout facts used by every record. */
static void attrs_done(struct perf *p)
{
	uint32_t i;

	p->all_identifier = p->nattrs > 0;
	p->same_layout = 1;
	for (i = 0; i < p->nattrs; i++) {
		if (!(p->attrs[i].sample_type & S_IDENTIFIER))
			p->all_identifier = 0;
		if (p->attrs[i].sample_type != p->attrs[0].sample_type ||
		    (p->attrs[i].flags & AF_SAMPLE_ID_ALL) != (p->attrs[0].flags & AF_SAMPLE_ID_ALL))
			p->same_layout = 0;
	}
}

/* Choose the event whose samples become the call tree. */
static int select_event(struct perf *p)
{
	uint32_t i;

	if (p->selected_any)
		return 0;
	p->selected_any = 1;
	for (i = 0; i < p->nattrs; i++)
		p->attrs[i].selected = 0;
	if (p->ctx->event[0]) {
		for (i = 0; i < p->nattrs; i++)
			if (strcmp(p->attrs[i].name, p->ctx->event) == 0)
				p->attrs[i].selected = 1;
		for (i = 0; i < p->nattrs; i++)
			if (p->attrs[i].selected)
				return 0;
		{
			char list[512];
			size_t n = 0;

			list[0] = 0;
			for (i = 0; i < p->nattrs; i++)
				n += pc_snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
						 p->attrs[i].name);
			return pc_fail(p->ctx, PROFCONV_ERR_USAGE, NULL,
				       "%s: no event named '%s' (the file has: %s)", p->path,
				       p->ctx->event, list);
		}
	}
	/* Default: the first event that samples (dummy tracking events don't). */
	for (i = 0; i < p->nattrs; i++) {
		if (strncmp(p->attrs[i].name, "dummy", 5) == 0)
			continue;
		p->attrs[i].selected = 1;
		return 0;
	}
	if (p->nattrs)
		p->attrs[0].selected = 1;
	return 0;
}

/* --- features --- */

/* perf_header_string: u32 len (incl. NUL, padded) + bytes.  Returns bytes consumed or 0. */
static size_t read_hstring(struct perf *p, const unsigned char *b, size_t avail, char *out,
			   size_t cap)
{
	uint32_t len;
	size_t n;

	if (avail < 4)
		return 0;
	len = ld32(p, b);
	if (len > avail - 4)
		return 0;
	n = strnlen((const char *)b + 4, len);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, b + 4, n);
	out[n] = 0;
	return 4 + (size_t)len;
}

static int set_meta_str(struct perf *p, char **field, const char *s)
{
	char *d = pc_strdup(p->ctx, s);

	if (!d)
		return PROFCONV_ERR_NOMEM;
	pc_free(p->ctx, *field);
	*field = d;
	return 0;
}

static int late_build_id(struct perf *p, const struct build_id *b);

static int add_build_id(struct perf *p, const char *path, const unsigned char *id, size_t len,
			int kernel)
{
	struct build_id *b;
	uint32_t s = pc_str_intern_z(p->m, path);

	if (s == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	if (pc_grow(p->ctx, (void **)&p->build_ids, sizeof(*p->build_ids), &p->build_ids_cap,
		    (size_t)p->nbuild_ids + 1))
		return PROFCONV_ERR_NOMEM;
	b = &p->build_ids[p->nbuild_ids++];
	memset(b, 0, sizeof(*b));
	b->path = s;
	b->len = (uint8_t)(len > 20 ? 20 : len);
	memcpy(b->bytes, id, b->len);
	b->kernel = (uint8_t)kernel;
	return late_build_id(p, b);
}

/* One build-id event (BUILD_ID feature entry or HEADER_BUILD_ID record body). */
static int parse_build_id_event(struct perf *p, const unsigned char *b, size_t size)
{
	uint16_t misc;
	size_t len = 20;
	char path[4096];
	size_t n;

	if (size < 8 + 4 + 24)
		return 0;
	misc = ld16(p, b + 4);
	if (misc & MISC_BUILD_ID_SIZE) {
		len = b[8 + 4 + 20];
		if (len > 20)
			len = 20;
	} else {
		while (len >= 4 && memcmp(b + 12 + len - 4, "\0\0\0\0", 4) == 0)
			len -= 4;
	}
	n = strnlen((const char *)b + 36, size - 36);
	if (n >= sizeof(path))
		n = sizeof(path) - 1;
	memcpy(path, b + 36, n);
	path[n] = 0;
	return add_build_id(p, path, b + 12, len,
			    (misc & MISC_CPUMODE_MASK) == MISC_KERNEL ||
				    (misc & MISC_CPUMODE_MASK) == MISC_GUEST_KERNEL);
}

static int parse_event_desc(struct perf *p, const unsigned char *b, size_t len, uint64_t off)
{
	uint32_t nr, asz, i;
	size_t pos = 8;

	if (len < 8)
		return warn_at(p, W_FEATURE, off, "EVENT_DESC section too short");
	nr = ld32(p, b);
	asz = ld32(p, b + 4);
	if (asz < ATTR_SIZE_VER0 || asz > 4096)
		return warn_at(p, W_FEATURE, off, "EVENT_DESC attr size %u out of range", asz);
	for (i = 0; i < nr; i++) {
		struct attr a;
		uint32_t nids, j;
		char name[128];
		size_t used;
		int err;

		if (len - pos < (size_t)asz + 4)
			return warn_at(p, W_FEATURE, off + pos, "EVENT_DESC entry %u truncated", i);
		err = parse_attr(p, b + pos, asz, off + pos, &a);
		if (err)
			return err;
		pos += asz;
		nids = ld32(p, b + pos);
		pos += 4;
		used = read_hstring(p, b + pos, len - pos, name, sizeof(name));
		if (!used)
			return warn_at(p, W_FEATURE, off + pos, "EVENT_DESC name %u truncated", i);
		pos += used;
		if (nids > (len - pos) / 8)
			return warn_at(p, W_FEATURE, off + pos, "EVENT_DESC ids of entry %u truncated",
				       i);
		/* Name the attr that owns these ids (or the i-th attr). */
		for (j = 0; j < nids; j++) {
			uint64_t id = ld64(p, b + pos + 8 * (size_t)j);
			struct id_map *e;

			HASH_FIND(hh, p->ids, &id, sizeof(id), e);
			if (e)
				pc_snprintf(p->attrs[e->attr].name, sizeof(p->attrs[0].name), "%s",
					    name);
		}
		if (!nids && i < p->nattrs)
			pc_snprintf(p->attrs[i].name, sizeof(p->attrs[0].name), "%s", name);
		pos += 8 * (size_t)nids;
	}
	return 0;
}

static int parse_feature(struct perf *p, unsigned id, const unsigned char *b, size_t len,
			 uint64_t off)
{
	char s[1024];
	int err = 0;

	switch (id) {
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH:
	case FEAT_CPUDESC:
		if (!read_hstring(p, b, len, s, sizeof(s)))
			return warn_at(p, W_FEATURE, off, "feature %u: string truncated", id);
		if (id == FEAT_HOSTNAME)
			err = set_meta_str(p, &p->f_host, s);
		else if (id == FEAT_OSRELEASE)
			err = set_meta_str(p, &p->f_osrel, s);
		else if (id == FEAT_VERSION)
			err = set_meta_str(p, &p->f_version, s);
		else if (id == FEAT_ARCH)
			err = set_meta_str(p, &p->f_arch, s);
		else
			err = set_meta_str(p, &p->f_cpu, s);
		return err;
	case FEAT_NRCPUS:
		if (len < 8)
			return warn_at(p, W_FEATURE, off, "NRCPUS section too short");
		p->nr_cpus_avail = ld32(p, b);
		p->nr_cpus_online = ld32(p, b + 4);
		p->m->meta.logical_cpus = p->nr_cpus_online;
		return 0;
	case FEAT_CMDLINE: {
		uint32_t nr, i;
		size_t pos = 4, n = 0;
		char line[4096];

		if (len < 4)
			return warn_at(p, W_FEATURE, off, "CMDLINE section too short");
		nr = ld32(p, b);
		line[0] = 0;
		for (i = 0; i < nr; i++) {
			size_t used = read_hstring(p, b + pos, len - pos, s, sizeof(s));

			if (!used)
				return warn_at(p, W_FEATURE, off + pos, "CMDLINE entry %u truncated",
					       i);
			pos += used;
			n += pc_snprintf(line + n, sizeof(line) - n, "%s%s", i ? " " : "", s);
		}
		return set_meta_str(p, &p->f_cmdline, line);
	}
	case FEAT_EVENT_DESC:
		return parse_event_desc(p, b, len, off);
	case FEAT_BUILD_ID: {
		size_t pos = 0;

		while (len - pos >= 8) {
			uint16_t size = ld16(p, b + pos + 6);

			if (size < 8 || size > len - pos)
				return warn_at(p, W_FEATURE, off + pos,
					       "BUILD_ID entry of size %u overruns the section",
					       size);
			err = parse_build_id_event(p, b + pos, size);
			if (err)
				return err;
			pos += size;
		}
		return 0;
	}
	case FEAT_SAMPLE_TIME:
		if (len >= 16) {
			p->sample_time_first = ld64(p, b);
			p->sample_time_last = ld64(p, b + 8);
		}
		return 0;
	case FEAT_CLOCK_DATA:
		if (len < 24)
			return warn_at(p, W_FEATURE, off, "CLOCK_DATA section too short");
		if (ld32(p, b) != 1)
			return warn_at(p, W_FEATURE, off, "CLOCK_DATA version %u; expected 1",
				       ld32(p, b));
		p->clock_data_id = (int32_t)ld32(p, b + 4);
		p->clock_tod_ns = (int64_t)ld64(p, b + 8);
		p->clock_ref_ns = (int64_t)ld64(p, b + 16);
		p->has_clock_data = 1;
		return 0;
	default:
		return 0;
	}
}

/* --- file header --- */

static int read_exact(struct perf *p, void *buf, size_t n, uint64_t off, const char *what)
{
	size_t got;
	int err = pc_input_pread(p->in, buf, n, off, &got);

	if (err)
		return err;
	if (got < n)
		return pc_fail_at(p->ctx, PROFCONV_ERR_CORRUPT_TRUNCATED, p->path, off + got,
				  "file ends inside %s (%zu of %zu bytes present)", what, got, n);
	return 0;
}

static int read_attrs_section(struct perf *p, const unsigned char *h, uint64_t fsize)
{
	uint64_t attr_size = ld64(p, h + 16), off = ld64(p, h + 24), size = ld64(p, h + 32), n, i;
	uint64_t total_ids = 0;
	unsigned char *buf;
	int err = 0;

	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return corrupt(p, 16, "attr_size %llu; expected %d..4096 (perf_event_attr + ids section)",
			       (unsigned long long)attr_size, ATTR_SIZE_VER0 + 16);
	if (!pc_fits(off, size, fsize))
		return corrupt(p, 24, "attrs section [0x%llx, +0x%llx) lies beyond the end of the file (0x%llx bytes)",
			       (unsigned long long)off, (unsigned long long)size,
			       (unsigned long long)fsize);
	if (size % attr_size)
		return corrupt(p, 32, "attrs section size %llu is not a multiple of attr_size %llu",
			       (unsigned long long)size, (unsigned long long)attr_size);
	n = size / attr_size;
	if (n == 0)
		return corrupt(p, 32, "no events: the attrs section is empty");
	if (n > MAX_ATTRS)
		return corrupt(p, 32, "%llu events; at most %d supported", (unsigned long long)n,
			       MAX_ATTRS);
	buf = pc_alloc(p->ctx, (size_t)attr_size);
	if (!buf)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < n && !err; i++) {
		uint64_t aoff = off + i * attr_size, ids_off, ids_size, k;
		struct attr a;

		err = read_exact(p, buf, (size_t)attr_size, aoff, "an attr");
		if (err)
			break;
		err = parse_attr(p, buf, (size_t)attr_size - 16, aoff, &a);
		if (err)
			break;
		err = add_attr(p, &a);
		if (err)
			break;
		ids_off = ld64(p, buf + attr_size - 16);
		ids_size = ld64(p, buf + attr_size - 8);
		if (!pc_fits(ids_off, ids_size, fsize) || ids_size / 8 > MAX_IDS) {
			err = corrupt(p, aoff + attr_size - 16,
				      "ids of event %llu [0x%llx, +0x%llx) lie beyond the end of the file",
				      (unsigned long long)i, (unsigned long long)ids_off,
				      (unsigned long long)ids_size);
			break;
		}
		total_ids += ids_size / 8;
		if (total_ids > MAX_IDS) {
			err = corrupt(p, aoff + attr_size - 8,
				      "more than %u event ids in all; the file is damaged", MAX_IDS);
			break;
		}
		if (ids_size / 8) {
			unsigned char *idb = pc_alloc(p->ctx, (size_t)ids_size);

			if (!idb) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
			err = read_exact(p, idb, (size_t)ids_size, ids_off, "the event ids");
			for (k = 0; k < ids_size / 8 && !err; k++)
				err = add_id(p, ld64(p, idb + 8 * k), p->nattrs - 1);
			pc_free(p->ctx, idb);
		}
	}
	pc_free(p->ctx, buf);
	return err;
}

static int read_features(struct perf *p, uint64_t fsize)
{
	uint64_t idx = p->data_off + p->data_size;
	unsigned bit;
	int err = 0;

	for (bit = 0; bit < 256 && !err; bit++) {
		unsigned char sec[16], *buf;
		uint64_t off, size;

		if (!(p->feat_flags[bit / 64] >> (bit % 64) & 1))
			continue;
		if (!pc_fits(idx, 16, fsize))
			return warn_at(p, W_FEATURE, idx,
				       "feature index ends early (feature %u missing): the file is truncated",
				       bit);
		err = read_exact(p, sec, 16, idx, "the feature index");
		if (err)
			return err;
		idx += 16;
		off = ld64(p, sec);
		size = ld64(p, sec + 8);
		if (!pc_fits(off, size, fsize) || size > (64u << 20)) {
			err = warn_at(p, W_FEATURE, idx - 16,
				      "feature %u section [0x%llx, +0x%llx) lies beyond the end of the file",
				      bit, (unsigned long long)off, (unsigned long long)size);
			continue;
		}
		if (bit == FEAT_TRACING_DATA)
			continue; /* large and unused */
		buf = pc_alloc(p->ctx, (size_t)size + 1);
		if (!buf)
			return PROFCONV_ERR_NOMEM;
		err = read_exact(p, buf, (size_t)size, off, "a feature section");
		if (!err)
			err = parse_feature(p, bit, buf, (size_t)size, off);
		pc_free(p->ctx, buf);
	}
	return err;
}

/*
 * The attrs and data sections must lie after the header and apart from each
 * other: a file whose sections overlap (one changed byte can do it) would
 * otherwise read header or attr bytes as records and "convert" garbage.
 * (Feature sections are checked as they are read; the feature index sits
 * right after the data.)
 */
static int check_sections(struct perf *p, const unsigned char *h, uint64_t hsize)
{
	uint64_t a_off = ld64(p, h + 24), a_size = ld64(p, h + 32);
	uint64_t d_off = ld64(p, h + 40), d_size = ld64(p, h + 48);

	if (a_size && a_off < hsize)
		return corrupt(p, 24, "attrs section starts at 0x%llx, inside the %llu-byte file header",
			       (unsigned long long)a_off, (unsigned long long)hsize);
	if (d_off < hsize)
		return corrupt(p, 40, "data section starts at 0x%llx, inside the %llu-byte file header",
			       (unsigned long long)d_off, (unsigned long long)hsize);
	if (a_size && d_size && a_off < d_off + d_size && d_off < a_off + a_size &&
	    pc_fits(a_off, a_size, UINT64_MAX) && pc_fits(d_off, d_size, UINT64_MAX))
		return corrupt(p, 24, "attrs section [0x%llx, +0x%llx) overlaps the data section [0x%llx, +0x%llx)",
			       (unsigned long long)a_off, (unsigned long long)a_size,
			       (unsigned long long)d_off, (unsigned long long)d_size);
	return 0;
}

static int read_file_header(struct perf *p)
{
	unsigned char h[FILE_HEADER_SIZE];
	uint64_t fsize, hsize;
	int err, i;

	err = pc_input_spool(p->in);
	if (err)
		return err;
	fsize = pc_input_size(p->in);
	err = read_exact(p, h, FILE_HEADER_SIZE, 0, "the perf.data header");
	if (err)
		return err;
	hsize = ld64(p, h + 8);
	if (hsize < FILE_HEADER_SIZE || hsize > fsize)
		return corrupt(p, 8, "header size %llu; expected %d..%llu",
			       (unsigned long long)hsize, FILE_HEADER_SIZE,
			       (unsigned long long)fsize);
	for (i = 0; i < 4; i++)
		p->feat_flags[i] = ld64(p, h + 72 + 8 * i);
	err = check_sections(p, h, hsize);
	if (err)
		return err;
	err = read_attrs_section(p, h, fsize);
	if (err)
		return err;
	attrs_done(p);
	p->data_off = ld64(p, h + 40);
	p->data_size = ld64(p, h + 48);
	if (p->data_off > fsize)
		return corrupt(p, 40, "data section starts at 0x%llx, beyond the end of the file (0x%llx bytes)",
			       (unsigned long long)p->data_off, (unsigned long long)fsize);
	if (p->data_size == 0 && fsize > p->data_off) {
		/* perf record was killed before it wrote the header back. */
		err = warn_at(p, W_TRUNCATED, 48,
			      "data size is 0 (perf record did not finish); reading to the end of the file");
		if (err)
			return err;
		p->data_size = fsize - p->data_off;
		memset(p->feat_flags, 0, sizeof(p->feat_flags));
		p->truncated = 1;
	} else if (!pc_fits(p->data_off, p->data_size, fsize)) {
		err = warn_at(p, W_TRUNCATED, fsize,
			      "file ends at 0x%llx, inside the data section [0x%llx, +0x%llx): converting what is there",
			      (unsigned long long)fsize, (unsigned long long)p->data_off,
			      (unsigned long long)p->data_size);
		if (err)
			return err;
		p->data_size = fsize - p->data_off;
		memset(p->feat_flags, 0, sizeof(p->feat_flags));
		p->truncated = 1;
	} else {
		err = read_features(p, fsize);
		if (err)
			return err;
	}
	return pc_input_seek(p->in, p->data_off);
}

/* --- processes, threads, maps, libs --- */

static struct process *get_process(struct perf *p, int32_t pid)
{
	struct process *pr;

	if (p->last_pr && p->last_pr->pid == pid)
		return p->last_pr;
	HASH_FIND(hh, p->procs, &pid, sizeof(pid), pr);
	if (pr) {
		p->last_pr = pr;
		return pr;
	}
	pr = pc_calloc(p->ctx, 1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->pid = pid;
	pr->name = PC_NONE;
	pr->start = PC_NO_TIME;
	pr->end = PC_NO_TIME;
	HASH_ADD(hh, p->procs, pid, sizeof(pr->pid), pr);
	if (!pr->hh.tbl) {
		pc_free(p->ctx, pr);
		pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		return NULL;
	}
	return pr;
}

static struct thread_state *get_thread(struct perf *p, int32_t pid, int32_t tid)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
	struct thread_state *ts;

	if (p->last_ts && p->last_ts->key == key)
		return p->last_ts; /* samples come in runs per thread */
	HASH_FIND(hh, p->threads, &key, sizeof(key), ts);
	if (ts) {
		p->last_ts = ts;
		return ts;
	}
	ts = pc_calloc(p->ctx, 1, sizeof(*ts));
	if (!ts)
		return NULL;
	ts->key = key;
	ts->pid = pid;
	ts->tid = tid;
	ts->name = PC_NONE;
	ts->start = PC_NO_TIME;
	ts->end = PC_NO_TIME;
	HASH_ADD(hh, p->threads, key, sizeof(ts->key), ts);
	if (!ts->hh.tbl) {
		pc_free(p->ctx, ts);
		pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		return NULL;
	}
	return ts;
}

/* The model thread for ts, created on first use. */
static struct pc_thread *model_thread(struct perf *p, struct thread_state *ts)
{
	if (!ts->t)
		ts->t = pc_thread_add(p->m, ts->pid, ts->tid);
	return ts->t;
}

static void hex(char *out, const uint8_t *b, size_t n, int upper)
{
	const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

/*
 * Breakpad id of an ELF build id: its first 16 bytes read as a GUID
 * (u32, u16, u16 little-endian, then 8 bytes), upper-case hex, plus age 0.
 */
static void breakpad_id(char *out, const uint8_t *id, size_t len)
{
	uint8_t g[16] = { 0 };

	memcpy(g, id, len < 16 ? len : 16);
	{
		uint8_t s[16] = { g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9],
				  g[10], g[11], g[12], g[13], g[14], g[15] };

		hex(out, s, 16, 1);
	}
	out[32] = '0';
	out[33] = 0;
}

static const struct build_id *find_build_id(const struct perf *p, uint32_t path)
{
	uint32_t i;

	for (i = p->nbuild_ids; i-- > 0;)
		if (p->build_ids[i].path == path)
			return &p->build_ids[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Set a lib's ids from a build id. 0 or NOMEM. */
static int set_lib_ids(struct perf *p, struct pc_lib *lib, const uint8_t *id, size_t idlen)
{
	char bp[40], code[48];

	if (idlen > 20)
		idlen = 20; /* build ids are at most 20 bytes (SHA-1) */
	breakpad_id(bp, id, idlen);
	hex(code, id, idlen, 0);
	lib->breakpad_id = pc_str_intern_z(p->m, bp);
	lib->code_id = pc_str_intern_z(p->m, code);
	return lib->breakpad_id == PC_NONE || lib->code_id == PC_NONE ? PROFCONV_ERR_NOMEM : 0;
}

/*
 * A build id that arrives after its lib was made (HEADER_BUILD_ID records
 * in pipe mode can follow the MMAP): give it to the lib if it has none.
 */
static int late_build_id(struct perf *p, const struct build_id *b)
{
	uint32_t i;

	for (i = 0; i < p->nlib_keys; i++) {
		struct pc_lib *lib = &p->m->libs.rows[p->lib_keys[i].lib];

		if (p->lib_keys[i].path == b->path && lib->code_id == PC_NONE && b->len)
			return set_lib_ids(p, lib, b->bytes, b->len);
	}
	return 0;
}

/* The lib row for a mapped file: one per path (the first build id seen names it). */
static uint32_t lib_for(struct perf *p, const char *file, const uint8_t *inline_id,
			size_t inline_len, int kernel)
{
	char name[4096];
	const struct build_id *b;
	struct pc_lib lib;
	uint32_t path, i, row;
	const uint8_t *id = inline_id;
	size_t idlen = inline_len;

	pc_snprintf(name, sizeof(name), "%s", file);
	if (kernel) {
		/* "[kernel.kallsyms]_text" -> "[kernel.kallsyms]" (perf's dso name) */
		char *t = strstr(name, "]_");

		if (t && name[0] == '[')
			t[1] = 0;
	}
	path = pc_str_intern_z(p->m, name);
	if (path == PC_NONE)
		return PC_NONE;
	for (i = 0; i < p->nlib_keys; i++)
		if (p->lib_keys[i].path == path)
			return p->lib_keys[i].lib;
	if (!id) {
		b = find_build_id(p, path);
		if (b) {
			id = b->bytes;
			idlen = b->len;
		}
	}
	memset(&lib, 0, sizeof(lib));
	lib.path = path;
	lib.name = pc_str_intern_z(p->m, base_name(name));
	lib.debug_path = path;
	lib.debug_name = lib.name;
	lib.code_id = PC_NONE;
	lib.arch = p->f_arch ? pc_str_intern_z(p->m, p->f_arch) : PC_NONE;
	lib.is_kernel = (uint8_t)kernel;
	lib.breakpad_id = pc_str_intern_z(p->m, "");
	if (id && idlen && set_lib_ids(p, &lib, id, idlen))
		return PC_NONE;
	if (lib.name == PC_NONE || lib.breakpad_id == PC_NONE)
		return PC_NONE;
	lib.resource = pc_resource_intern(p->m, lib.name, PC_NONE, PC_RES_LIBRARY, p->m->libs.len);
	if (lib.resource == PC_NONE)
		return PC_NONE;
	row = pc_lib_add(p->m, &lib);
	if (row == PC_NONE)
		return PC_NONE;
	if (pc_grow(p->ctx, (void **)&p->lib_keys, sizeof(*p->lib_keys), &p->lib_keys_cap,
		    (size_t)p->nlib_keys + 1))
		return PC_NONE;
	p->lib_keys[p->nlib_keys].path = path;
	p->lib_keys[p->nlib_keys].lib = row;
	p->nlib_keys++;
	return row;
}

/*
 * Insert [start, end) into a process's sorted, non-overlapping map list:
 * later mappings replace whatever part of earlier ones they cover.
 */
static int add_mapping(struct perf *p, struct process *pr, const struct mapping *nm)
{
	struct mapping keep[2];
	uint32_t i, first, last, nkeep = 0, nins;

	if (nm->end <= nm->start)
		return 0;
	p->map_gen++;
	/* first overlapping: the first with end > nm->start */
	for (first = 0; first < pr->nmaps && pr->maps[first].end <= nm->start; first++)
		;
	for (last = first; last < pr->nmaps && pr->maps[last].start < nm->end; last++)
		;
	/* maps [first, last) overlap; keep their parts outside nm */
	if (first < last && pr->maps[first].start < nm->start) {
		keep[nkeep] = pr->maps[first];
		keep[nkeep++].end = nm->start;
	}
	if (first < last && pr->maps[last - 1].end > nm->end) {
		keep[nkeep] = pr->maps[last - 1];
		keep[nkeep++].start = nm->end;
	}
	nins = 1 + nkeep;
	if (pc_grow(p->ctx, (void **)&pr->maps, sizeof(*pr->maps), &pr->maps_cap,
		    (size_t)pr->nmaps - (last - first) + nins))
		return PROFCONV_ERR_NOMEM;
	memmove(pr->maps + first + nins, pr->maps + last,
		(size_t)(pr->nmaps - last) * sizeof(*pr->maps));
	pr->nmaps = pr->nmaps - (last - first) + nins;
	i = first;
	if (nkeep && keep[0].start < nm->start)
		pr->maps[i++] = keep[0];
	pr->maps[i++] = *nm;
	if (nkeep && keep[nkeep - 1].start >= nm->end)
		pr->maps[i++] = keep[nkeep - 1];
	return 0;
}

static const struct mapping *find_mapping(const struct process *pr, uint64_t addr)
{
	uint32_t lo = 0, hi;

	if (!pr)
		return NULL;
	hi = pr->nmaps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pr->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pr->nmaps && pr->maps[lo].start <= addr)
		return &pr->maps[lo];
	return NULL;
}

/* --- sample_id trailer --- */

struct sid {
	int32_t pid, tid;
	int64_t time; /* PC_NO_TIME if absent */
	uint64_t id;
	int has_id;
	int has_tid;
};

static const struct attr *attr_for_id(struct perf *p, uint64_t id)
{
	struct id_map *e;

	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	return e ? &p->attrs[e->attr] : NULL;
}

/* Parse the trailer of a non-sample kernel record; body is [b, b+size). */
static void parse_sid(struct perf *p, const unsigned char *b, size_t size, size_t fixed,
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
		x = attr_for_id(p, s->id);
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

struct sample {
	const struct attr *attr;
	uint64_t ip;
	int32_t pid, tid;
	int64_t time;
	uint64_t period;
	uint64_t nr;
	const unsigned char *ips; /* nr u64s */
};

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
		a = attr_for_id(p, ld64(p, b));
		if (!a)
			return 2;
	} else if (p->nattrs > 1 && p->same_layout && (a->sample_type & S_ID)) {
		/* find ID after IP, TID, TIME, ADDR */
		size_t ipos = 8 * (size_t)__builtin_popcountll(a->sample_type &
								 (S_IP | S_TID | S_TIME | S_ADDR));

		if (ipos + 8 > size)
			return 1;
		a = attr_for_id(p, ld64(p, b + ipos));
		if (!a)
			return 2;
	}
	s->attr = a;
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
	/* Nothing after the callchain is used; the layout was checked up to here. */
#undef NEED
	return 0;
}

/* "0x" + lower-case hex of v into buf (>= 19 bytes); returns the length. */
static size_t hex_name(char *buf, uint64_t v)
{
	static const char d[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0, i;

	do {
		tmp[n++] = d[v & 15];
		v >>= 4;
	} while (v);
	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	buf[2 + n] = 0;
	return 2 + n;
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
	const struct mapping *mp = find_mapping(in_kernel ? kernel : pr, addr);
	uint32_t lib = PC_NONE, flags = (uint32_t)(is_caller | in_kernel << 1), h;
	struct fcache_ent *ce;
	struct pc_func_key fk;
	struct pc_frame_key k;
	char name[24];
	uint64_t key;

	if (!mp)
		mp = find_mapping(in_kernel ? pr : kernel, addr);
	if (mp) {
		lib = mp->lib;
		key = addr - mp->rel_base;
	} else {
		key = addr;
	}
	h = (uint32_t)(pc_hash64(key ^ (uint64_t)lib << 40 ^ (uint64_t)flags << 60) >>
		       (64 - FCACHE_BITS));
	ce = &p->fcache[h];
	if (ce->frame != PC_NONE && ce->addr == key && ce->lib == lib && ce->flags == flags)
		return ce->frame;

	memset(&fk, 0, sizeof(fk));
	memset(&k, 0, sizeof(k));
	fk.source = PC_NONE;
	fk.name = pc_str_intern(p->m, name, hex_name(name, key));
	if (fk.name == PC_NONE)
		return PC_NONE;
	if (mp) {
		fk.resource = p->m->libs.rows[lib].resource;
		k.address = is_caller && key ? key - 1 : key;
	} else {
		fk.resource = PC_NONE;
		k.address = PC_NO_ADDRESS;
	}
	k.lib = lib;
	k.func = pc_func_intern(p->m, &fk);
	if (k.func == PC_NONE)
		return PC_NONE;
	k.native_symbol = PC_NONE;
	k.category = in_kernel ? p->cat_kernel : p->cat_user;
	k.subcategory = 0;
	ce->frame = pc_frame_intern(p->m, &k);
	ce->addr = key;
	ce->lib = lib;
	ce->flags = flags;
	return ce->frame;
}

/*
 * Resolve a callchain to a stack.  Frames are collected leaf first (context
 * markers set the mode of the frames after them), then interned root first.
 * An empty chain (only markers) gives PC_NONE, the empty stack.
 */
static int chain_to_stack(struct perf *p, const struct sample *s, struct process *pr,
			  struct process *kernel, struct thread_state *ts, uint32_t *out)
{
	uint32_t nframes = 0, prefix = PC_NONE, i, same = 0, cap;
	int in_kernel = 0;

	if (pc_grow(p->ctx, (void **)&p->frames, sizeof(*p->frames), &p->frames_cap,
		    (size_t)s->nr + 1))
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < s->nr; i++) {
		uint64_t ip = ld64(p, s->ips + 8 * (size_t)i);
		uint32_t f;

		if (ip >= CTX_MAX) {
			in_kernel = ip == CTX_KERNEL || ip == CTX_GUEST_KERNEL || ip == CTX_HV;
			continue;
		}
		f = resolve_frame(p, pr, kernel, ip, in_kernel, nframes > 0);
		if (f == PC_NONE)
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
		p->frames[nframes++] = f;
	}
	/*
	 * Successive samples of a thread share most of their root part: reuse
	 * the stacks of the common prefix of the thread's previous chain and
	 * intern only the levels below it.
	 */
	while (same < ts->nlast && same < nframes &&
	       ts->last_frames[same] == p->frames[nframes - 1 - same])
		same++;
	if (same)
		prefix = ts->last_stacks[same - 1];
	cap = ts->last_cap;
	if (pc_grow(p->ctx, (void **)&ts->last_frames, sizeof(*ts->last_frames), &cap, nframes) ||
	    pc_grow(p->ctx, (void **)&ts->last_stacks, sizeof(*ts->last_stacks), &ts->last_cap,
		    nframes))
		return PROFCONV_ERR_NOMEM;
	for (i = same; i < nframes; i++) {
		prefix = pc_stack_intern(p->m, prefix, p->frames[nframes - 1 - i]);
		if (prefix == PC_NONE)
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
		ts->last_frames[i] = p->frames[nframes - 1 - i];
		ts->last_stacks[i] = prefix;
	}
	ts->nlast = nframes;
	*out = prefix;
	return 0;
}

static void cc_reset(struct perf *p)
{
	p->ncc = 0;
	p->ncc_ips = 0;
	if (p->cc_slots)
		memset(p->cc_slots, 0, ((size_t)p->cc_mask + 1) * sizeof(*p->cc_slots));
}

/* Look a callchain up; returns its stack or PC_NONE, and sets *slot for cc_insert(). */
static uint32_t cc_find(struct perf *p, const struct sample *s, uint64_t h, uint32_t *slot)
{
	uint32_t i;

	if (!p->cc_slots) {
		*slot = UINT32_MAX;
		return PC_NONE;
	}
	for (i = (uint32_t)h & p->cc_mask;; i = (i + 1) & p->cc_mask) {
		const struct cc_ent *e;

		if (!p->cc_slots[i]) {
			*slot = i;
			return PC_NONE;
		}
		e = &p->cc[p->cc_slots[i] - 1];
		if (e->hash == h && e->nr == s->nr && e->pid == s->pid && e->gen == p->map_gen &&
		    memcmp(p->cc_ips + e->off, s->ips, (size_t)s->nr * 8) == 0)
			return e->stack;
	}
}

static int cc_insert(struct perf *p, const struct sample *s, uint64_t h, uint32_t slot,
		     uint32_t stack)
{
	struct cc_ent *e;

	if (p->ncc_ips + s->nr > CC_ARENA_MAX) {
		cc_reset(p);
		slot = UINT32_MAX;
	}
	if (!p->cc_slots || (uint64_t)(p->ncc + 1) * 2 > (uint64_t)p->cc_mask + 1) {
		uint32_t nslots = p->cc_slots ? (p->cc_mask + 1) * 2 : 4096, i;
		uint32_t *ns = pc_calloc(p->ctx, nslots, sizeof(*ns));

		if (!ns)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < p->ncc; i++) {
			uint32_t j = (uint32_t)p->cc[i].hash & (nslots - 1);

			while (ns[j])
				j = (j + 1) & (nslots - 1);
			ns[j] = i + 1;
		}
		pc_free(p->ctx, p->cc_slots);
		p->cc_slots = ns;
		p->cc_mask = nslots - 1;
		slot = UINT32_MAX;
	}
	if (slot == UINT32_MAX)
		for (slot = (uint32_t)h & p->cc_mask; p->cc_slots[slot];
		     slot = (slot + 1) & p->cc_mask)
			;
	if (pc_grow(p->ctx, (void **)&p->cc, sizeof(*p->cc), &p->cc_cap, (size_t)p->ncc + 1))
		return PROFCONV_ERR_NOMEM;
	if (p->ncc_ips + s->nr > p->cc_ips_cap) {
		size_t ncap = p->cc_ips_cap ? p->cc_ips_cap * 2 : 65536;
		void *q;

		while (ncap < p->ncc_ips + s->nr)
			ncap *= 2;
		q = pc_realloc(p->ctx, p->cc_ips, ncap * 8);
		if (!q)
			return PROFCONV_ERR_NOMEM;
		p->cc_ips = q;
		p->cc_ips_cap = ncap;
	}
	memcpy(p->cc_ips + p->ncc_ips, s->ips, (size_t)s->nr * 8);
	e = &p->cc[p->ncc];
	e->hash = h;
	e->off = p->ncc_ips;
	e->nr = (uint32_t)s->nr;
	e->stack = stack;
	e->pid = s->pid;
	e->gen = p->map_gen;
	p->ncc_ips += s->nr;
	p->cc_slots[slot] = ++p->ncc;
	return 0;
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
	int r;

	r = parse_sample(p, b, size, &s);
	if (r == 2)
		return warn_at(p, W_NO_ATTR, off, "sample of an event id the file does not declare");
	if (r)
		return warn_at(p, W_BAD_RECORD, off,
			       "SAMPLE record of %zu bytes is shorter than its sample_type needs",
			       size + 8);
	p->st.samples_total++;
	((struct attr *)s.attr)->nsamples++;
	if (!s.attr->selected || p->info_only) {
		if (s.attr->selected)
			p->st.samples_used++;
		if (s.time != PC_NO_TIME && s.attr->selected) {
			if (p->first_sample == PC_NO_TIME || s.time < p->first_sample)
				p->first_sample = s.time;
			if (p->last_sample == PC_NO_TIME || s.time > p->last_sample)
				p->last_sample = s.time;
		}
		return 0;
	}
	p->st.samples_used++;
	pr = get_process(p, s.pid);
	kernel = get_process(p, -1);
	ts = get_thread(p, s.pid, s.tid);
	if (!pr || !kernel || !ts)
		return PROFCONV_ERR_NOMEM;
	t = model_thread(p, ts);
	if (!t)
		return PROFCONV_ERR_NOMEM;
	if (s.time == PC_NO_TIME)
		s.time = p->last_sample == PC_NO_TIME ? 0 : p->last_sample;
	if (p->first_sample == PC_NO_TIME || s.time < p->first_sample)
		p->first_sample = s.time;
	if (p->last_sample == PC_NO_TIME || s.time > p->last_sample)
		p->last_sample = s.time;

	if (s.ips && s.nr) {
		uint64_t h = pc_hash_bytes(s.ips, (size_t)s.nr * 8,
					   (uint64_t)(uint32_t)s.pid << 32 | p->map_gen);
		uint32_t slot = UINT32_MAX;

		prefix = cc_find(p, &s, h, &slot);
		if (prefix == PC_NONE) {
			int err = chain_to_stack(p, &s, pr, kernel, ts, &prefix);

			if (!err)
				err = cc_insert(p, &s, h, slot, prefix);
			if (err)
				return err;
		}
	} else if (s.attr->sample_type & S_IP) {
		/* No callchain (or an empty one): the sampled instruction alone. */
		unsigned mode = misc & MISC_CPUMODE_MASK;
		uint32_t f = resolve_frame(p, pr, kernel, s.ip,
					   mode == MISC_KERNEL || mode == MISC_GUEST_KERNEL, 0);

		if (f == PC_NONE)
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
		prefix = pc_stack_intern(p->m, PC_NONE, f);
		if (prefix == PC_NONE)
			return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	}
	if ((s.attr->flags & AF_EXCL_CALLCHAIN_USER) && (s.attr->sample_type & S_STACK_USER)) {
		/*
		 * --call-graph dwarf: the callchain holds only the kernel part;
		 * the user part must be unwound from the copied stack, which is
		 * not done yet.  Say so once, with a count.
		 */
		int err = pc_warn(p->ctx, W_NO_USER_STACK, &(struct pc_loc){ p->path, off, 0, 0 },
				  "recorded with --call-graph dwarf: user stacks need unwinding from the stack copy, which profconv does not do yet; samples keep their kernel frames and sampled instruction only (record with -g for frame-pointer stacks)");

		if (err)
			return err;
	}
	weight = p->ctx->weight == PC_WEIGHT_PERIOD ? (int64_t)s.period : 1;
	return pc_sample_add(p->m, t, prefix, s.time, weight);
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

static int is_anon(const char *file)
{
	return strcmp(file, "//anon") == 0 || strncmp(file, "[anon", 5) == 0 ||
	       strncmp(file, "/memfd:", 7) == 0 || strncmp(file, "/dev/zero", 9) == 0 ||
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
		return warn_at(p, W_BAD_RECORD, off, "%s record too short (%zu bytes)",
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
	pr = get_process(p, kernel ? -1 : pid);
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
	mp.lib = lib_for(p, file, id, idlen, kernel);
	if (mp.lib == PC_NONE)
		return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	/* the model's per-process mapping (the kernel's process is pid -1) */
	if (!p->info_only) {
		uint32_t proc = pc_process_get(p->m, kernel ? -1 : pid);

		if (proc == PC_NONE ||
		    pc_process_add_mapping(p->m, proc, mp.lib, addr, mp.end,
					   kernel ? 0 : (mp.rel_base == 0 ? 0 : pgoff)))
			return PROFCONV_ERR_NOMEM;
	}
	return add_mapping(p, pr, &mp);
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
		return warn_at(p, W_BAD_RECORD, off, "COMM record too short (%zu bytes)", size + 8);
	pid = (int32_t)ld32(p, b);
	tid = (int32_t)ld32(p, b + 4);
	body_string(b + 8, size - 8, comm, sizeof(comm));
	name = pc_str_intern_z(p->m, comm);
	ts = get_thread(p, pid, tid);
	pr = get_process(p, pid);
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
		return warn_at(p, W_BAD_RECORD, off, "%s record too short (%zu bytes)",
			       record_name(type), size + 8);
	pid = (int32_t)ld32(p, b);
	ppid = (int32_t)ld32(p, b + 4);
	tid = (int32_t)ld32(p, b + 8);
	time = (int64_t)ld64(p, b + 16);
	ts = get_thread(p, pid, tid);
	pr = get_process(p, pid);
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
		struct process *parent = get_process(p, ppid);

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
		struct thread_state *parent = get_thread(p, pid, (int32_t)ld32(p, b + 12));

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
	ts = get_thread(p, s->pid, s->tid);
	if (!ts)
		return PROFCONV_ERR_NOMEM;
	t = model_thread(p, ts);
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
		return warn_at(p, W_BAD_RECORD, off, "%s record too short", record_name(type));
	lost = type == REC_LOST ? ld64(p, b + 8) : ld64(p, b);
	parse_sid(p, b, size, type == REC_LOST ? 16 : 8, &s);
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
		return warn_at(p, W_BAD_RECORD, off, "%s record too short", record_name(type));
	time = (int64_t)ld64(p, b);
	parse_sid(p, b, size, 24, &s);
	p->throttle_markers = 1;
	return add_marker_for(p, &s, type == REC_THROTTLE ? "Throttled" : "Unthrottled", time,
			      "PerfThrottle", 0, NULL);
}

/* --- dispatch (records in time order) --- */

static int dispatch(struct perf *p, const unsigned char *rec, uint64_t off)
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
	default:
		return 0;
	}
}

/* --- the ordered queue (tools/perf/util/ordered-events.c's contract) --- */

/*
 * Stable natural merge sort by time.  Each round holds a few runs that are
 * already in order (one per CPU buffer, plus what the last flush kept), so
 * this costs O(n log runs) and keeps arrival order among equal times.
 */
static int sort_queue(struct perf *p)
{
	uint32_t n = p->qlen;
	struct qent *a = p->q, *t;

	if (pc_grow(p->ctx, (void **)&p->qtmp, sizeof(*p->qtmp), &p->qtmp_cap, n))
		return PROFCONV_ERR_NOMEM;
	t = p->qtmp;
	for (;;) {
		uint32_t lo = 0, runs = 0;

		while (lo < n) {
			uint32_t mid = lo + 1, hi, i, j, o = lo;

			while (mid < n && a[mid].time >= a[mid - 1].time)
				mid++;
			hi = mid;
			if (hi < n) {
				hi++;
				while (hi < n && a[hi].time >= a[hi - 1].time)
					hi++;
			}
			runs++;
			for (i = lo, j = mid; i < mid && j < hi;)
				t[o++] = a[j].time < a[i].time ? a[j++] : a[i++];
			while (i < mid)
				t[o++] = a[i++];
			while (j < hi)
				t[o++] = a[j++];
			lo = hi;
		}
		{
			struct qent *x = a;

			a = t;
			t = x;
		}
		if (runs <= 1)
			break;
	}
	if (a != p->q) {
		/* the sorted data ended up in the scratch array: swap the arrays */
		uint32_t c = p->qcap;

		p->qtmp = p->q;
		p->q = a;
		p->qcap = p->qtmp_cap;
		p->qtmp_cap = c;
	}
	return 0;
}

static void free_qchunks(struct perf *p, struct qchunk *c)
{
	while (c) {
		struct qchunk *n = c->next;

		pc_free(p->ctx, c);
		c = n;
	}
}

static unsigned char *qalloc(struct perf *p, size_t n, struct qchunk **chunk)
{
	struct qchunk *c = p->qcur;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		if (p->qfree && p->qfree->size >= n) {
			c = p->qfree;
			p->qfree = c->next_free;
		} else {
			size_t size = n > ((size_t)1 << 20) ? n : ((size_t)1 << 20);

			c = pc_alloc(p->ctx, sizeof(*c) + size);
			if (!c)
				return NULL;
			c->next = p->qchunks;
			c->size = size;
			p->qchunks = c;
		}
		c->used = 0;
		c->live = 0;
		c->next_free = NULL;
		p->qcur = c;
	}
	c->used += n;
	c->live++;
	p->qbytes += n;
	*chunk = c;
	return c->data + c->used - n;
}

/* A queued record was handled: its chunk is reused once it holds no live record. */
static void qrelease(struct perf *p, const struct qent *e)
{
	struct qchunk *c = e->chunk;

	p->qbytes -= (ld16(p, e->rec + 6) + 7u) & ~7u;
	if (--c->live)
		return;
	if (c == p->qcur) {
		c->used = 0;
	} else {
		c->next_free = p->qfree;
		p->qfree = c;
	}
}

/* Dispatch every queued record with time <= limit, in (time, arrival) order. */
static int flush_queue(struct perf *p, int64_t limit)
{
	uint32_t i, n = 0;
	int err;

	/* nothing due: many rounds in a row must not rescan the queue each time */
	if (!p->qlen || limit < p->qmin)
		return 0;
	err = sort_queue(p);
	if (err)
		return err;
	while (n < p->qlen && p->q[n].time <= limit)
		n++;
	for (i = 0; i < n && !err; i++) {
		if (p->q[i].time < p->last_dispatched)
			err = warn_at(p, W_BACKWARDS, p->q[i].off,
				      "record time %lld is before an already processed one (%lld)",
				      (long long)p->q[i].time, (long long)p->last_dispatched);
		else
			p->last_dispatched = p->q[i].time;
		if (!err)
			err = dispatch(p, p->q[i].rec, p->q[i].off);
		qrelease(p, &p->q[i]);
	}
	if (err)
		return err;
	memmove(p->q, p->q + n, (size_t)(p->qlen - n) * sizeof(*p->q));
	p->qlen -= n;
	p->qmin = p->qlen ? p->q[0].time : INT64_MAX;
	return 0;
}

static int64_t record_time(struct perf *p, uint32_t type, const unsigned char *rec, size_t size)
{
	const unsigned char *b = rec + 8;
	size_t bs = size - 8;

	if (type == REC_SAMPLE) {
		const struct attr *a = p->nattrs ? &p->attrs[0] : NULL;
		size_t pos = 0;

		if (!a)
			return PC_NO_TIME;
		if (p->all_identifier) {
			if (bs < 8)
				return PC_NO_TIME;
			a = attr_for_id(p, ld64(p, b));
			if (!a)
				return PC_NO_TIME;
		}
		if (!(a->sample_type & S_TIME))
			return PC_NO_TIME;
		pos = 8 * (size_t)__builtin_popcountll(a->sample_type &
							(S_IDENTIFIER | S_IP | S_TID));
		if (pos + 8 > bs)
			return PC_NO_TIME;
		return (int64_t)ld64(p, b + pos);
	}
	if (type < REC_KERNEL_MAX) {
		struct sid s;

		parse_sid(p, b, bs, 0, &s);
		return s.time;
	}
	return PC_NO_TIME;
}

static int enqueue(struct perf *p, const unsigned char *rec, size_t size, int64_t time,
		   uint64_t off)
{
	unsigned char *c;

	if (p->qbytes > QUEUE_LIMIT) {
		/* No FINISHED_ROUND in sight: flush the older half (perf does the same). */
		int64_t mid;
		int err = sort_queue(p);

		if (err)
			return err;
		mid = p->q[p->qlen / 2].time;
		err = flush_queue(p, mid);
		if (err)
			return err;
	}
	if (pc_grow(p->ctx, (void **)&p->q, sizeof(*p->q), &p->qcap, (size_t)p->qlen + 1))
		return PROFCONV_ERR_NOMEM;
	c = qalloc(p, size, &p->q[p->qlen].chunk);
	if (!c)
		return PROFCONV_ERR_NOMEM;
	memcpy(c, rec, size);
	p->q[p->qlen].time = time;
	p->q[p->qlen].off = off;
	p->q[p->qlen].rec = c;
	p->qlen++;
	if (time > p->round_max)
		p->round_max = time;
	if (time < p->qmin)
		p->qmin = time;
	return 0;
}

/* The data ends inside a record: one warning per input, however it shows. */
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
	return warn_at(p, W_TRUNCATED, off, "%s", msg);
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
			return warn_at(p, W_BAD_RECORD, off, "COMPRESSED2 record too short");
		dsize = ld64(p, b);
		if (dsize > bs - 8)
			return warn_at(p, W_BAD_RECORD, off,
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
			return corrupt(p, off, "zstd stream in COMPRESSED record: %s",
				       ZSTD_getErrorName(r));
		p->st.compressed_out += zo.pos - p->zpending;
		if (p->st.compressed_out > ZBOMB_FLOOR &&
		    p->st.compressed_out / ZBOMB_RATIO > p->st.compressed_in)
			return corrupt(p, off,
				       "compressed records expand to %llu bytes from %llu: more than %d times; the data is damaged",
				       (unsigned long long)p->st.compressed_out,
				       (unsigned long long)p->st.compressed_in, ZBOMB_RATIO);
		/* hand over every whole record; carry a partial one to the next call */
		while (zo.pos - pos >= 8 && !err) {
			size_t rs = ld16(p, p->zout + pos + 6);

			if (rs < 8)
				return corrupt(p, off,
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
			return corrupt(p, off, "decompressed record does not fit %zu bytes",
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
	a = attr_for_id(p, id);
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
		return corrupt(p, off, "HEADER_ATTR record too short (%zu bytes)", bs + 8);
	asz = ld32(p, b + 4);
	if (asz == 0)
		asz = ATTR_SIZE_VER0;
	if (asz < ATTR_SIZE_VER0 || asz > bs)
		return corrupt(p, off, "HEADER_ATTR attr size %u does not fit the record", asz);
	err = parse_attr(p, b, asz, off + 8, &a);
	if (!err)
		err = add_attr(p, &a);
	for (k = asz; !err && k + 8 <= bs; k += 8)
		err = add_id(p, ld64(p, b + k), p->nattrs - 1);
	attrs_done(p);
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
			return warn_at(p, W_BAD_RECORD, off, "HEADER_FEATURE record too short");
		return parse_feature(p, (unsigned)ld64(p, b), b + 8, bs - 8, off + 16);
	case REC_HEADER_BUILD_ID:
		return parse_build_id_event(p, rec, size);
	case REC_FINISHED_ROUND:
		p->rounds_seen = 1;
		err = flush_queue(p, p->prev_round_max);
		p->prev_round_max = p->round_max;
		return err;
	case REC_ID_INDEX: {
		uint64_t nr, i;

		if (bs < 8)
			return warn_at(p, W_BAD_RECORD, off, "ID_INDEX record too short");
		nr = ld64(p, b);
		if (nr > (bs - 8) / 32)
			return warn_at(p, W_BAD_RECORD, off, "ID_INDEX count %llu overruns the record",
				       (unsigned long long)nr);
		for (i = 0; i < nr; i++) {
			uint64_t id = ld64(p, b + 8 + 32 * i), idx = ld64(p, b + 16 + 32 * i);

			if (idx < p->nattrs) {
				err = add_id(p, id, (uint32_t)idx);
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
			return warn_at(p, W_BAD_RECORD, off, "COMPRESSED record inside a COMPRESSED record");
		return handle_compressed(p, b, bs, off, type == REC_COMPRESSED2);
	case REC_HEADER_TRACING_DATA:
	case REC_AUXTRACE: {
		/* Their payload follows the record, uncounted in header.size. */
		uint64_t extra;

		if (nested)
			return warn_at(p, W_BAD_RECORD, off, "%s inside a COMPRESSED record",
				       record_name(type));
		if (type == REC_HEADER_TRACING_DATA) {
			if (bs < 4)
				return warn_at(p, W_BAD_RECORD, off, "TRACING_DATA record too short");
			extra = ld32(p, b);
			extra = (extra + 7) & ~(uint64_t)7;
		} else {
			if (bs < 8)
				return warn_at(p, W_BAD_RECORD, off, "AUXTRACE record too short");
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
		return warn_at(p, W_UNKNOWN, off, "record of unknown type %u (size %zu) skipped",
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
		return warn_at(p, W_UNKNOWN, off, "record of unknown type %u (size %zu) skipped",
			       type, size);
	}
	if (!p->nattrs)
		return corrupt(p, off, "%s record before any event attributes", record_name(type));
	if (!p->selected_any) {
		int err = select_event(p);

		if (err)
			return err;
	}
	time = record_time(p, type, rec, size);
	if (time != PC_NO_TIME) {
		p->have_time = 1;
		if (p->st.first_time == 0 || time < p->st.first_time)
			p->st.first_time = time;
		if (time > p->st.last_time)
			p->st.last_time = time;
		return enqueue(p, rec, size, time, off);
	}
	return dispatch(p, rec, off);
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
			return corrupt(p, off,
				       "record of size %zu (type %u); expected at least 8 bytes",
				       size, ld32(p, r));
		if (size > limit - done)
			return truncated_tail(p, off,
				       "record of size %zu (type %u) runs past the end of the data",
				       size, ld32(p, r));
		r = pc_input_peek(p->in, size, &avail);
		if (!r)
			return p->ctx->status;
		if (avail < size)
			return truncated_tail(p, off,
				       "input ends inside a %s record (%zu of %zu bytes present)",
				       record_name(ld32(p, r)), avail, size);
		if (ld32(p, r) == REC_HEADER_TRACING_DATA || ld32(p, r) == REC_AUXTRACE) {
			/*
			 * Their payload follows the record, uncounted in its size:
			 * copy the record out, consume it, and let the handler
			 * skip the payload (at most what is left of the data).
			 */
			unsigned char tmp[64];

			if (size > sizeof(tmp))
				return corrupt(p, off, "%s record of %zu bytes; expected at most %zu",
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
		return corrupt(p, 8, "header size %llu; expected 104 (file) or 16 (pipe)",
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
	HASH_ITER(hh, p->procs, pr, ptmp)
	{
		HASH_DEL(p->procs, pr);
		pc_free(p->ctx, pr->maps);
		pc_free(p->ctx, pr);
	}
	HASH_ITER(hh, p->threads, ts, ttmp)
	{
		HASH_DEL(p->threads, ts);
		pc_free(p->ctx, ts->last_frames);
		pc_free(p->ctx, ts->last_stacks);
		pc_free(p->ctx, ts);
	}
	HASH_ITER(hh, p->ids, e, etmp)
	{
		HASH_DEL(p->ids, e);
		pc_free(p->ctx, e);
	}
	free_qchunks(p, p->qchunks);
	pc_free(p->ctx, p->q);
	pc_free(p->ctx, p->qtmp);
	pc_free(p->ctx, p->attrs);
	pc_free(p->ctx, p->build_ids);
	pc_free(p->ctx, p->lib_keys);
	pc_free(p->ctx, p->frames);
	pc_free(p->ctx, p->fcache);
	pc_free(p->ctx, p->cc);
	pc_free(p->ctx, p->cc_slots);
	pc_free(p->ctx, p->cc_ips);
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
		return corrupt(p, 0, "file of %zu bytes is too short for a perf.data header", avail);
	if (memcmp(h, "PERFILE2", 8) == 0) {
		p->swap = 0;
	} else if (memcmp(h, "2ELIFREP", 8) == 0) {
		p->swap = 1;
	} else if (memcmp(h, "PERFFILE", 8) == 0) {
		return pc_fail_at(p->ctx, PROFCONV_ERR_UNSUPPORTED, p->path, 0,
				  "perf.data version 1 (magic PERFFILE) is not supported");
	} else {
		return corrupt(p, 0, "bad magic; expected \"PERFILE2\"");
	}
	p->pipe = ld64(p, h + 8) == PIPE_HEADER_SIZE;
	p->first_sample = p->last_sample = PC_NO_TIME;
	p->last_dispatched = INT64_MIN;
	p->round_max = p->prev_round_max = INT64_MIN;
	p->qmin = INT64_MAX;
	p->fcache = pc_alloc(p->ctx, sizeof(*p->fcache) << FCACHE_BITS);
	if (!p->fcache)
		return PROFCONV_ERR_NOMEM;
	{
		size_t i;

		for (i = 0; i < (size_t)1 << FCACHE_BITS; i++)
			p->fcache[i].frame = PC_NONE;
	}
	p->cat_user = pc_model_add_category(p->m, "User", "yellow");
	p->cat_kernel = pc_model_add_category(p->m, "Kernel", "orange");
	if (p->pipe) {
		err = read_pipe_header(p);
		if (!err)
			err = read_records(p, UINT64_MAX);
	} else {
		err = read_file_header(p);
		if (!err)
			err = read_records(p, p->data_size);
	}
	if (!err && p->zpending)
		err = warn_at(p, W_TRUNCATED, pc_input_offset(p->in),
			      "compressed stream ends inside a record (%zu bytes left over)",
			      p->zpending);
	if (!err)
		err = flush_queue(p, INT64_MAX);
	if (!err && !p->nattrs)
		err = corrupt(p, pc_input_offset(p->in), "no event attributes in the stream");
	if (!err && !p->selected_any)
		err = select_event(p);
	return err;
}

static int read_perf(struct profconv_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct perf p;
	int err;

	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.in = in;
	p.m = m;
	p.path = pc_input_name(in);
	err = perf_parse(&p);
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

		pc_text_printf(o, "  %-24s %10llu samples  %s %llu%s%s\n", a->name,
			       (unsigned long long)a->nsamples, a->flags & AF_FREQ ? "freq" : "period",
			       (unsigned long long)a->period_or_freq,
			       a->sample_type & S_CALLCHAIN ? "  callchains" : "",
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
		    (sel->sample_type & S_STACK_USER)) {
			pc_text_printf(o, " user callchains (--call-graph dwarf: not unwound yet);");
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

const struct pc_reader pc_reader_perf = {
	.name = "perf",
	.summary = "Linux perf.data (file and pipe mode, either byte order, zstd records)",
	.flags = 0,
	.bid = bid,
	.read = read_perf,
	.info = perf_info,
};
