/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_perf.h - the perf.data reader's private state and constants, shared by
 * its files: read_perf.c (the record stream, samples, the result),
 * perf_header.c (file header, attrs, features), perf_maps.c (processes,
 * threads, mappings, libs) and perf_queue.c (the ordered queue).
 * Nothing outside the reader includes it.
 */
#ifndef PC_PERF_H
#define PC_PERF_H

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
#define AF_CONTEXT_SWITCH (1ull << 26)

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
	"samples without user stacks (--call-graph dwarf with unwinding off)";
static const char W_UNWIND_NO_CFI[] =
	"user stacks through binaries without unwind tables (frame pointers only)";
static const char W_UNWIND_ABI[] = "user stacks of 32-bit processes not unwound";
static const char W_UNWIND_ARCH[] =
	"user stacks not unwound (architecture or recorded registers not supported)";

/* --- reader state --- */

/* The unwinder's state (perf_unwind.c). */
struct unwind_lib {
	struct pc_symsrc *src; /* "elf-cfi", or NULL */
	uint8_t tried;
	uint64_t cut;	       /* samples whose user stack reached it, without tables */
};

struct perf_unwind {
	int off;	 /* option "unwind" "no" */
	struct profconv_ctx *fctx; /* the table search's and the tables' own context */
	int arch;	 /* enum pc_arch of the recording, 0 until known */
	struct unwind_lib *libs; /* by model lib */
	uint32_t nlibs, libs_cap;
	unsigned char *chain;	 /* the rebuilt callchain, in the file's byte order */
	uint32_t chain_cap;
	uint64_t samples, frames, stop_end, stop_no_map, stop_no_cfi, stop_no_fde, stop_cfi, stop_stack,
		stop_regs, stop_loop, stop_depth;
	uint64_t cut_more; /* samples that reached a binary warned about already */
	uint64_t fp_frames; /* steps taken by the frame pointer (no CFI for the code) */
};


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
	uint8_t sched_switch; /* sched:sched_switch samples: off-CPU stretches */
	/*
	 * parse_sample()'s fixed layout, worked out at the attr's first sample:
	 * when nothing of variable size comes before the callchain and nothing
	 * parse_sample() reads comes after it, the byte offsets of what it reads
	 * (-1: absent) and the bytes before the callchain's count.
	 */
	uint8_t layout; /* 0 not worked out, 1 fixed, 2 the general parse */
	int16_t o_ip, o_tid, o_time, o_period, o_nr;
	uint16_t fixed;
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
	uint32_t map_hint; /* the map perf_find_mapping() found last (checked before use) */
	int64_t start, end;
	UT_hash_handle hh;
};

struct thread_state {
	uint64_t key; /* pid << 32 | tid */
	int32_t pid, tid;
	uint32_t name; /* string or PC_NONE */
	int64_t start, end;
	struct pc_thread *t;
	struct process *pr; /* its process (pid), once a sample looked it up */
	uint32_t stk_ix; /* its number in perf_stacks.c (from 1), 0 until its first chain */
	/* the same chain as recorded, root first (context markers included):
	 * each entry's address, frame (PC_NONE for a marker) and the mode it was
	 * read in (1: kernel); valid when raw_ok and the maps are still raw_gen;
	 * raw_first is the leaf frame's entry in the chain's own order */
	uint64_t *raw_ips;
	uint32_t *raw_frames;
	uint8_t *raw_kernel;
	uint32_t raw_nr, raw_cap, raw_first, raw_gen;
	int raw_ok;
	/* off-CPU (SWITCH records): when it went off or on the CPU, the CPU
	 * time it had used then, and the stack of its last sample */
	int64_t off_since, on_since; /* PC_NO_TIME: not known */
	int64_t cpu_used, cpu_at_sample;
	uint32_t last_sample_stack;
	uint8_t off_preempt, switch_known;
	/* off-CPU (sched:sched_switch samples): the open stretch, if any */
	int64_t sched_off_since; /* PC_NO_TIME: on the CPU, or not known */
	uint32_t sched_cause;	 /* the stack it went off the CPU with */
	uint8_t sched_preempt, sched_known;
	UT_hash_handle hh;
	UT_hash_handle hh_tid; /* perf.by_tid: the newest thread of each tid */
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
 * Frame table (perf_frames.c), behind the frame cache: every (lib-relative
 * address, lib) the recording resolved, with its func and its frames, one
 * per [kernel mode][return address] (a variant whose frame would equal
 * another's shares its slot: see frame_variant() in read_perf.c).  Unlike
 * the frame cache it forgets nothing, so a miss is a new func or frame, and
 * the reader adds those to the model without the model's own lookups
 * (pc_func_add_new(), pc_frame_add_new()).  Entries are dense, in the order
 * made, indexed by the model's pc_itab (hashed by the key alone).
 */
struct ftab_ent {
	uint64_t key; /* lib-relative address, or the address when lib is PC_NONE */
	uint32_t lib;
	uint32_t func;	   /* PC_NONE until made */
	uint32_t frame[4]; /* PC_NONE until made */
};

struct ftab {
	struct pc_itab index; /* entries by key */
	struct ftab_ent *ents;
	uint32_t len, cap;
};

/*
 * Address cache, in front of the frame cache: (address, pid, map generation,
 * flags) -> frame row, direct-mapped.  A chain's address under the same maps
 * always resolves to the same frame (see struct cc_slot), so an entry is
 * right while the generation is the one it was made under; the lookup takes
 * no mapping search and no lib-relative key.  Deep, varied stacks repeat
 * their few thousand addresses in ever new chains: there the callchain cache
 * misses and this one answers.
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define ICACHE_BITS 6
#else
#define ICACHE_BITS 13
#endif
struct icache_ent {
	uint64_t addr;
	uint64_t tag;	/* map generation << 32 | pid */
	uint32_t flags; /* as the frame cache's */
	uint32_t frame; /* PC_NONE = empty */
};

/*
 * Path index (perf_stacks.c): the stack rows this reader made, keyed by a
 * hash of their whole path (the frames from the root down).  Unlike the
 * model's (prefix, frame) index, every level of a chain can be looked up
 * without knowing the row of the level above, so the lookups of one chain
 * are issued together (prefetched) instead of one cache miss after another.
 * The perf reader makes all of its stacks through it (they go to the model
 * at the end of reading); the model's own index is rebuilt if anything
 * interns later.  Paths are confused only if their 64-bit hashes agree.
 *
 * A slot holds the hash's high half and the row (8 bytes: a deep recording's
 * million rows took 32 MiB in 16-byte slots, 48 MiB while they doubled);
 * the low half, which also picks the home slot, is kept per row in
 * perf_stacks.path_lo and compared only when the high halves agree.
 */
struct path_slot {
	uint32_t tag; /* hash >> 32 */
	uint32_t row; /* PC_NONE = empty */
};
#define PATH_SEED 0x243f6a8885a308d3ULL

/*
 * Callchain cache: a raw callchain (the u64s as recorded, context markers
 * included) of a pid under one map generation always resolves to the same
 * stack, so a chain seen recently is not resolved again.  Real profiles
 * repeat their hot chains heavily.
 *
 * A chain is known by two independent 64-bit hashes of its words, seeded
 * with its length, pid and map generation; a slot holds them and the
 * stack, nothing else.  Two different chains would have to agree on all 128
 * bits to be confused (odds about 2^-128 per pair).  The table is
 * direct-mapped (a new chain replaces the one in its slot) and small
 * enough to stay in the CPU's cache (CC_SLOTS * 24 bytes, 96 KiB): a miss
 * then costs a few nanoseconds.  Measured on three recordings (bench/README.md)
 * against a table of up to 2^20 slots, which missed the cache on every lookup:
 * 17 % faster on deep, varied stacks, a little faster on the others.
 */
#ifndef CC_SLOTS
#define CC_SLOTS ((uint32_t)1 << 12)
#endif
struct cc_slot {
	uint64_t h1, h2;
	uint32_t stack;
	uint32_t used;
};

/*
 * Direct-mapped caches in front of the uthash tables a sample looks up
 * (attrs by id, threads by pid/tid, processes by pid): a system-wide
 * recording interleaves the samples of hundreds of threads, so "the last
 * one looked up" misses most of the time, and uthash's lookup (Jenkins
 * hash, bucket chain) cost about 100 instructions a time.  Entries are never
 * removed from those tables while reading, and an id keeps its first attr,
 * so a cached answer stays right.
 */
#define LCACHE_BITS 8
#define LCACHE_SLOTS (1u << LCACHE_BITS)
static inline uint32_t lcache_slot(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - LCACHE_BITS));
}

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
	const char *event;  /* option "event", or NULL: the first sampling event */
	int weight_period;  /* option "weight" is "period" */

	struct process *procs;
	struct thread_state *threads;
	struct process *kernel_pr;    /* pid -1, the kernel's, once looked up */
	/* the caches in front of ids, threads and procs (see LCACHE_BITS) */
	uint64_t idc_id[LCACHE_SLOTS];
	uint32_t idc_attr[LCACHE_SLOTS]; /* attr index + 1; 0: empty */
	struct thread_state *tsc[LCACHE_SLOTS];
	struct process *prc[LCACHE_SLOTS];
	struct build_id *build_ids;
	uint32_t nbuild_ids, build_ids_cap;
	struct lib_key *lib_keys;
	uint32_t nlib_keys, lib_keys_cap;
	uint32_t kernel_lib_name;

	/* ordered queue */
	struct qent *q, *qtmp; /* the queue is q[qhead .. qhead + qlen) */
	uint32_t qhead, qlen, qcap, qtmp_cap;
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
	struct cc_slot *cc; /* CC_SLOTS slots; NULL until the first chain */
	uint32_t cc_mask;
	struct fcache_ent *fcache; /* made at the first frame (fcache_first()) */
	unsigned fcache_bits;
	struct icache_ent *icache; /* made with the frame cache */
	unsigned icache_bits;
	/* the frame table, when the model had no func and no frame at the first
	 * frame (so that every one is this reader's); else the model interns */
	struct ftab ftab;
	int ftab_on;
	struct perf_stacks *stk; /* perf_stacks.c: NULL until the first chain */
	uint32_t *frames;
	uint32_t frames_cap;

	uint16_t cat_user, cat_kernel;
	int64_t first_sample, last_sample;
	int have_time;
	int truncated; /* the data section was cut short: warned once already */
	int lost_markers, throttle_markers, offcpu_markers;
	int saw_switch; /* SWITCH records: samples get threadCPUDelta */
	struct thread_state *by_tid; /* sched_switch's next_pid names a tid only */
	uint64_t sched_closed, sched_unclosed; /* sched_switch stretches */
	uint64_t payload;      /* bytes after a record its handler consumed */
	uint64_t payload_room; /* bytes left in the data for such a payload */

	/* features */
	int64_t clock_tod_ns, clock_ref_ns;
	int32_t clock_data_id;
	int has_clock_data;
	uint64_t sample_time_first, sample_time_last;
	uint32_t nr_cpus_online, nr_cpus_avail;
	char *cmdline;

	struct perf_unwind uw;

	struct perf_stats st;
};

/* A parsed SAMPLE record (pointers into the record). */
struct sample {
	const struct attr *attr;
	uint64_t ip;
	int32_t pid, tid;
	int64_t time;
	uint64_t period;
	uint64_t nr;
	const unsigned char *ips; /* nr u64s, in the file's byte order */
	const unsigned char *raw; /* PERF_SAMPLE_RAW: raw_size bytes, or NULL */
	uint32_t raw_size;
	uint64_t regs_abi;	    /* PERF_SAMPLE_REGS_USER: 0 none, 1 32-bit, 2 64-bit */
	const unsigned char *regs;  /* nregs u64s, in the attr's regs_user bit order */
	uint32_t nregs;
	const unsigned char *stack; /* PERF_SAMPLE_STACK_USER: stack_size valid bytes */
	uint64_t stack_size;
};

/* --- shared between the reader's files --- */

/* A record's sample_id trailer (perf_parse_sid()). */
struct sid {
	int32_t pid, tid;
	int64_t time; /* PC_NO_TIME if absent */
	uint64_t id;
	int has_id;
	int has_tid;
};

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

/*
 * Functions one of the reader's files defines and another calls (the
 * perf_ prefix keeps them apart from other readers' names).
 */
/* Add an attr (off: where it was read, for the error). */
int perf_add_attr(struct perf *p, const struct attr *a, uint64_t off);
int perf_add_id(struct perf *p, uint64_t id, uint32_t attr);
int perf_add_mapping(struct perf *p, struct process *pr, const struct mapping *nm);
const struct attr *perf_attr_for_id_slow(struct perf *p, uint64_t id, uint32_t slot);

/* The attr of a sample id, or NULL if the file does not declare it. */
static inline const struct attr *perf_attr_for_id(struct perf *p, uint64_t id)
{
	uint32_t h = lcache_slot(id);

	if (p->idc_attr[h] && p->idc_id[h] == id)
		return &p->attrs[p->idc_attr[h] - 1];
	return perf_attr_for_id_slow(p, id, h);
}
void perf_attrs_done(struct perf *p);
int perf_corrupt(struct perf *p, uint64_t off, const char *fmt, ...) PC_PRINTF(3, 4);
int perf_dispatch(struct perf *p, const unsigned char *rec, uint64_t off);
int perf_enqueue(struct perf *p, const unsigned char *rec, size_t size, int64_t time,
		 uint64_t off);
const struct mapping *perf_find_mapping(struct process *pr, uint64_t addr);
int perf_flush_queue(struct perf *p, int64_t limit);
void perf_free_qchunks(struct perf *p, struct qchunk *c);
struct process *perf_get_process(struct perf *p, int32_t pid);
/*
 * perf_frames.c: (key, lib)'s entry, made (func and frames PC_NONE) when
 * new, and then *name is the name string of key's func in another lib, or
 * PC_NONE when key has none yet.  NULL on OOM.
 */
struct ftab_ent *perf_ftab_get(struct perf *p, uint64_t key, uint32_t lib, uint32_t *name);
void perf_ftab_free(struct perf *p);

struct thread_state *perf_get_thread(struct perf *p, int32_t pid, int32_t tid);
struct thread_state *perf_find_thread_by_tid(struct perf *p, int32_t tid);
int perf_handle_switch(struct perf *p, uint32_t type, uint16_t misc, const unsigned char *b,
		       size_t size, uint64_t off);
int perf_offcpu_finish(struct perf *p);
int perf_sample_cpu_delta(struct perf *p, struct thread_state *ts, struct pc_thread *t,
			  int64_t time, uint32_t stack);
int perf_sched_is_switch(const struct attr *a);
int perf_sched_seen_running(struct perf *p, struct thread_state *ts, int64_t time);
int perf_sched_switch(struct perf *p, struct thread_state *ts, const struct attr *a,
		      int64_t time, const unsigned char *raw, uint32_t raw_size, uint32_t stack,
		      uint64_t off);
int perf_late_build_id(struct perf *p, const struct build_id *b);
uint32_t perf_lib_for(struct perf *p, const char *file, const uint8_t *inline_id,
		      size_t inline_len, int kernel);
struct pc_thread *perf_model_thread(struct perf *p, struct thread_state *ts);
int perf_parse_attr(struct perf *p, const unsigned char *b, size_t avail, uint64_t off,
		    struct attr *a);
int perf_parse_build_id_event(struct perf *p, const unsigned char *b, size_t size);
int perf_parse_feature(struct perf *p, unsigned id, const unsigned char *b, size_t len,
		       uint64_t off);
void perf_parse_sid(struct perf *p, const unsigned char *b, size_t size, size_t fixed,
		    struct sid *s);
int perf_read_file_header(struct perf *p);
int64_t perf_record_time(struct perf *p, uint32_t type, const unsigned char *rec, size_t size);
int perf_select_event(struct perf *p);
int perf_warn_at(struct perf *p, const char *kind, uint64_t off, const char *fmt, ...)
	PC_PRINTF(4, 5);
int perf_unwind_sample(struct perf *p, uint16_t misc, struct process *pr, struct sample *s,
		       uint64_t off);
void perf_unwind_free(struct perf *p);
int perf_unwind_report(struct perf *p);
/*
 * perf_stacks.c: a resolved chain (frame rows, leaf first; none: the empty
 * stack) of a thread, or a one-frame stack, interned in the order submitted,
 * maybe on a second thread; *ticket stands for its stack until
 * perf_stacks_end(), which makes the model's stack rows and puts the stacks
 * in place of the tickets in the samples, the markers' causes and the open
 * sched_switch stretches.  PC_NONE is the empty stack throughout.
 */
int perf_stacks_chain(struct perf *p, struct thread_state *ts, const uint32_t *frames,
		      uint32_t nframes, uint32_t *ticket);
int perf_stacks_root(struct perf *p, uint32_t frame, uint32_t *ticket);
int perf_stacks_end(struct perf *p);
void perf_stacks_free(struct perf *p);

#endif /* PC_PERF_H */
