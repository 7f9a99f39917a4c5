/*
 * pc_chrome.h - what the Chrome trace reader's files share (read_chrome.c:
 * events to the model; chrome_ctx.c: FrameBlamer contexts and their cost).
 */
#ifndef PC_CHROME_H
#define PC_CHROME_H

#include <cJSON.h>
#include <uthash.h>

#include "json/pc_jscan.h"
#include "readers/pc_jread.h"
#include "readers/pc_reader.h"

#define EVENT_MAX ((size_t)64 << 20) /* the largest single event (a ProfileChunk) */
#define DERIVED_NS 1000000	    /* derived samples: one per ms */
#define MAX_ARG_KEYS 64
#define LF_SLOTS 4096 /* the label frame cache (a power of 2) */

#define W_TRUNCATED "truncated traces (the events before the cut were read)"
#define W_SKIPPED "events of kinds not imported"
#define W_BAD_EVENT "events without a usable name, phase or time"
#define W_UNMATCHED "E events without a matching B"
#define W_BAD_FRAME "stackFrames entries that are not objects (skipped)"

/* An open B slice, per thread. */
struct open_b {
	uint32_t name;	   /* string */
	int64_t start;	   /* ns */
	uint16_t cat;	   /* category */
	uint32_t payload;  /* or PC_NONE */
	uint32_t set;	   /* context set at the B */
	uint32_t order;	   /* file order */
};

/* A label frame remembered by (name, category). */
struct lf_slot {
	uint32_t name;
	uint16_t cat;
	uint32_t frame; /* PC_NONE: empty */
};

/*
 * A marker payload remembered by what it is made of: the event's cat, its
 * context set and its args object's text as it is in the trace.  Most
 * events repeat the args of an earlier one (89 % of the slices of a real
 * Chromium 156 trace): they share its payload instead of building,
 * interning and storing it again.
 */
struct pl_slot {
	uint64_t hash;
	uint32_t pl; /* payload root; PC_NONE: empty */
	uint32_t set;
	uint32_t crow; /* the cat's string row */
	uint32_t alen, cap;
	char *key; /* the args text */
};
#define PL_SLOTS 16384	  /* a power of 2 */
#define PL_MAX_KEY 1024 /* longer args texts are not remembered */

/*
 * The strings nearly every event repeats (its name, its cat) remembered by
 * their bytes in a small direct-mapped table: a hash of a few bytes and one
 * cache line instead of a lookup in the string table or the category map.
 */
struct smemo {
	uint64_t hash;
	uint32_t len; /* UINT32_MAX: empty */
	uint32_t row; /* string row (PC_NONE: not yet) */
	uint16_t cat; /* category (cats' memo) */
	char s[46];   /* the bytes (longer strings are not remembered) */
};
#define SMEMO_SLOTS 1024 /* a power of 2 */

/*
 * The hash the memos and the payload cache look things up by (they compare
 * the bytes too, so it only has to spread): 8 bytes a step and the tail in
 * one load, no byte loop.  Never 0 (0: not worked out yet).
 */
static inline uint64_t pc_chrome_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	return h ? h : 1;
}

/* Per-thread reader state. */
struct tinfo {
	struct pc_thread *t;
	int64_t pid, tid;
	struct open_b *open;
	uint32_t nopen, open_cap;
	int64_t sort_index;
	int has_sort;
	int has_real_samples;
	/* which of t's markers are slices (X, B/E), for derived samples: a bit per row */
	uint64_t *sbits;
	uint32_t sbits_cap, sbits_used; /* words */
	uint32_t nslices;
};

/* What M events say of a process: process_sort_index and process_labels. */
struct pmeta {
	int64_t pid;
	int64_t sort_index;
	const char *labels; /* kept, or NULL */
	uint32_t async_thread; /* its "Async events" thread: r->th index + 1, or 0 */
};

/* An async span waiting for its end: key (cat, id, scope, pid if local). */
struct async_open {
	char *key; /* owned (pc_alloc); NULL once closed */
	uint32_t prev; /* the open span of the same key begun before it: index + 1, or 0 */
	uint32_t thread;
	uint32_t name;
	uint16_t cat;
	int64_t start;
	uint32_t payload;
	uint32_t set; /* the beginning thread's context set */
};

/* A V8 CPU profile (Profile + ProfileChunks), keyed by (pid, id). */
struct v8node {
	int64_t id, parent;
	uint32_t frame;	 /* PC_NONE until known */
	uint32_t stack;	 /* PC_NONE until resolved */
};

struct v8prof {
	int64_t pid;
	char *id;	 /* owned */
	uint32_t thread; /* the Profile event's thread */
	int64_t time;	 /* running time, ns */
	struct v8node *nodes;
	uint32_t nnodes, nodes_cap;
	/* node id -> index + 1 of the last node with it (0: none), for the
	 * ids below by_id_cap; V8 numbers its nodes from 1 */
	uint32_t *by_id;
	uint32_t by_id_cap;
};

struct counter_key {
	char *key; /* owned: "pid\x1fname\x1fseries" */
	uint32_t counter;
};

/* Per-thread context state (R2): the active set and a stack per type. */
struct ctx_stack {
	const char *type; /* kept */
	uint32_t *items;  /* context rows */
	uint64_t *seq;	  /* parallel to items: when each was pushed (ctx_state.clock) */
	uint32_t n, cap, seq_cap;
};

struct ctx_state {
	int seen; /* this thread has had context events */
	uint32_t *active; /* context rows */
	uint32_t nactive, active_cap;
	int64_t *since; /* parallel to active: when each became active (ns) */
	uint32_t since_cap;
	struct ctx_stack *stacks;
	uint32_t nstacks, stacks_cap;
	/* D: when each object was last destroyed here (open addressing by
	 * object row, PC_NONE empty); stack items pushed before are skipped */
	uint64_t clock;
	uint32_t *dobj;
	uint64_t *dseq;
	uint32_t dn, dcap;
};

/* A slice for the cost attribution (X or B/E), in file order of its begin. */
struct cslice {
	uint32_t thread;
	uint32_t name; /* string */
	int64_t start, end; /* ns as in the trace */
	uint32_t set;	    /* context set row */
	uint32_t order;	    /* file order */
	uint8_t be;	    /* B/E (else X) */
	int64_t self;	    /* ns, computed at the end */
};

/* One activation of a context on a thread (end INT64_MAX: never left). */
struct activation {
	uint32_t thread, ctx;
	int64_t start, end;
};

/* A snapshot's links (R8, R9), from its args.snapshot. */
struct csnap {
	uint32_t obj;
	int64_t time;
	uint32_t parent;  /* object row or PC_NONE */
	uint32_t sibling; /* object row or PC_NONE */
	const char *url;  /* the snapshot's url (frames), kept, or NULL */
};

/*
 * An event member as cJSON would have typed it (read_chrome.c scans events
 * straight from their bytes; only some kinds go through cJSON).
 */
enum cjk { CJ_NONE = 0 /* absent */, CJ_NUM, CJ_STR, CJ_TRUE, CJ_FALSE, CJ_NULL, CJ_OBJ, CJ_ARR };

struct cjv {
	uint8_t kind; /* enum cjk */
	size_t len;   /* of s */
	union {
		double d;      /* CJ_NUM */
		const char *s; /* CJ_STR: decoded, ends at its first NUL (cJSON's C string);
				  CJ_OBJ/CJ_ARR args members: cJSON's unformatted text */
		size_t off;    /* while scanning: where s will be in the batch's scratch */
	};
};

struct carg {
	union {
		const char *key; /* decoded, ends at its first NUL */
		size_t koff;	 /* while scanning */
	};
	size_t klen;
	struct cjv v;
};

/* The members of one event the reader uses (the first of each name, as cJSON finds them). */
struct cev {
	uint32_t nmembers;
	struct cjv name, cat, ph, scope, ts, dur, pid, tid, id, bind_id, flow_in, flow_out, id2,
		id2_local, id2_global, args; /* args.s: the object's text, as it is in the trace */
	struct carg *a; /* args members in order (duplicates too), when args is an object */
	uint32_t na;
	uint32_t a_first; /* while scanning: where a starts in the batch's args */
	/* pc_chrome_hash() of the args text, the name and the cat, which the
	 * reader's payload cache and memos look them up by: worked out by the
	 * reader a few events ahead (0: not yet) */
	uint64_t hargs, hname, hcat;
};

/* A scanned event: its members, where it began, and for the kinds handled
 * with cJSON its text after the '{' (else text is NULL). */
struct cevr {
	struct cev e;
	uint64_t off;
	const char *text;
	size_t toff, len;
	int keep;
};

/*
 * The events read_chrome.c reads from their text, for which the scanner
 * keeps it: by ph, and for M the name.  V8 profiles (P Profile and
 * ProfileChunk) are read again with the scanner's primitives; counters,
 * other P samples, contexts and a process's stackFrames are parsed with
 * cJSON.
 */
static inline int pc_chrome_cjson_kind(char ph, const char *name, size_t name_len)
{
	if (ph == 'M')
		return name && name_len == 11 && memcmp(name, "stackFrames", 11) == 0;
	switch (ph) {
	case 'C':
	case '(':
	case ')':
	case 'O':
	case 'D':
	case 'N':
	case 'P':
		return 1;
	default:
		return 0;
	}
}

/* Events in file order, as the scanner hands them over (chrome_scan.c). */
struct cbatch {
	struct cevr *ev;
	uint32_t n;
	struct carg *args;
	uint32_t nargs, args_cap;
	char *scratch; /* every string the events point to */
	size_t scap;
	int end;	      /* the last batch: the array ended, or err */
	int err;	      /* the error the scanner stopped at (its ctx has the message) */
	uint64_t done, total; /* the input's progress after this batch */
};

struct rd {
	struct profconv_ctx *ctx;
	struct pc_model *m;
	struct pc_jpull *p;
	const char *name;
	uint32_t row_type, row_trace_event, row_cat; /* payload text rows */
	uint32_t noted[64]; /* args keys' text rows (+ 1) note_arg_key() has seen */
	/* the last event's thread (most events follow one of the same thread) */
	int64_t last_pid, last_tid;
	uint32_t last_th; /* index + 1, 0: none */
	struct tinfo *th;
	uint32_t nth, th_cap;
	struct async_open *as; /* open spans in begin order (and closed ones, key NULL) */
	uint32_t nas, as_cap;
	uint32_t nas_closed;	  /* closed ones still in as (dropped when they are half) */
	struct pc_smap as_latest; /* key -> the latest open span with it (index + 1), or 0 */
	struct v8prof *prof;
	uint32_t nprof, prof_cap;
	struct pc_jscan v8js; /* reads V8 profile events again, from their text */
	double *v8val;	      /* a ProfileChunk's samples, then its time deltas */
	uint32_t v8val_cap;
	struct counter_key *ck;
	uint32_t nck, ck_cap;
	struct lf_slot *lf; /* label frames of slices: LF_SLOTS, allocated */
	struct pl_slot *pl; /* payloads: PL_SLOTS, allocated */
	uint32_t pl_set;    /* the context set the last lookup had */
	struct smemo *names, *catm; /* SMEMO_SLOTS each, allocated */
	/* categories by name: category index + 1 in a small map */
	struct pc_smap cats;
	uint16_t cat_js, cat_gc, cat_idle, cat_native;
	/* args keys seen in marker payloads (for the schema) */
	char *arg_keys[MAX_ARG_KEYS];
	uint32_t narg_keys;
	struct pc_smap arg_seen; /* every key note_arg_key() has seen (value unused) */
	uint8_t *kinds; /* payload text row of an args key -> KIND_* of its values */
	uint32_t nkinds;
	uint32_t row_contexts, row_flow, row_tflow; /* payload text rows */
	/* a flow marker's payload text rows: TraceEventFlow, phase, and start,
	 * step and end (the phase's values) */
	uint32_t row_flow_type, row_phase, row_flow_ph[3];
	uint64_t nevents;
	int64_t first_ts, last_ts;
	int any_samples;
	struct pmeta *pm;
	uint32_t npm, pm_cap;
	/* stackFrames and P / global samples (chrome_stacks.c) */
	struct sframe *sframes;
	struct psample *ps;
	uint32_t nps, ps_cap;
	/* flows: v1 events (s/t/f) seen; v2 bindings (bind_id) on slices seen */
	int any_flows, any_flow_slices;
	/* contexts */
	struct ctx_state *cs; /* parallel to th */
	uint32_t cs_cap;
	int any_contexts;
	struct cslice *cslices;
	struct activation *acts;
	uint32_t nacts, acts_cap;
	uint32_t ncslices, cslices_cap, norder;
	struct csnap *snaps;
	uint32_t nsnaps, snaps_cap;
	struct pc_ctx_index *cx; /* the snapshots by object (chrome_ctx.c) */
	uint16_t cat_ctx; /* the Context category, once used */
	/* blame: set by profconv_blame_path(), the attribution is printed */
	struct pc_text_out *blame;
	int blame_json;
	/* V8 samples: how many and their time span, for the interval */
	uint64_t nv8_samples;
	int64_t v8_first, v8_last;
};


/* chrome_scan.c */
struct cscan;
/* Start scanning the events array p stands in (after its '['); p and its
 * input belong to the scanner until pc_chrome_scan_end(). */
int pc_chrome_scan_begin(struct profconv_ctx *ctx, struct pc_jpull *p, struct cscan **out);
/* The next batch, valid until the next call (the reader may note things
 * in its events); NULL after the last one. */
struct cbatch *pc_chrome_scan_next(struct cscan *s);
/* Stop and free the scanner; its error, if it stopped at one (adopted into
 * ctx when ctx has none yet: after the events before it), else 0. */
int pc_chrome_scan_end(struct cscan *s);

/* read_chrome.c */
const char *pc_chrome_jstr(const cJSON *o, const char *key);
int pc_chrome_jnum(const cJSON *o, const char *key, double *out);
struct tinfo *pc_chrome_thread(struct rd *r, int64_t pid, int64_t tid);
/* The category for a trace event's cat (comma lists: the first). */
uint16_t pc_chrome_category(struct rd *r, const char *cat);
/* Microseconds (possibly fractional) to ns, rounded and clamped. */
int64_t pc_chrome_us_to_ns(double us);

/*
 * A number of the trace used as an integer id (pid, tid, pidRef): truncated
 * toward zero; INT64_MIN when it does not fit (1e300, -1e300, 2^63), as
 * read_chrome.c's to_i64() gives for an event's own pid and tid, so a
 * reference and the event it names agree.  Casting such a double is
 * undefined behaviour in C; a NaN (never parsed from JSON) gives INT64_MIN.
 */
static inline int64_t pc_chrome_to_i64(double d)
{
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		return (int64_t)d;
	return INT64_MIN;
}

/* chrome_stacks.c */
/* A label frame: a func named name, category cat; PC_NONE on OOM. */
uint32_t pc_chrome_label_frame(struct rd *r, uint32_t name, uint16_t cat);
/* One member of a stackFrames dictionary; prefix "g" (global) or "p<pid>:". */
int pc_chrome_stack_frame(struct rd *r, const char *prefix, const char *id, const cJSON *fr);
/* An M event named stackFrames (the process's own dictionary). */
int pc_chrome_stack_frames_event(struct rd *r, const cJSON *ev, int64_t pid);
/* A P event other than a V8 profile: a sample by sf or stack. */
int pc_chrome_p_sample(struct rd *r, struct tinfo *ti, const cJSON *ev, int64_t pid, int64_t ts,
		       uint64_t off);
/* One entry of the object form's samples array. */
int pc_chrome_global_sample(struct rd *r, const cJSON *o, uint64_t off);
/* After all events: those samples into the model. */
int pc_chrome_p_finish(struct rd *r);
void pc_chrome_stacks_free(struct rd *r);

/* chrome_ctx.c */
/* (, ), O, D events; 0 or error */
int pc_chrome_context_event(struct rd *r, struct tinfo *ti, const cJSON *ev, int64_t pid, int64_t ts,
			    char ph);
/* The active context set of a thread (PC_NONE when it has none). */
uint32_t pc_chrome_active_set(struct rd *r, struct tinfo *ti);
/* "Type/scope:id@pid, ..." for a context set; its length (0: empty). */
size_t pc_chrome_set_text(struct rd *r, uint32_t set, char *buf, size_t cap);
/* Record a slice for the attribution. */
int pc_chrome_add_cslice(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start,
			 int64_t end, uint32_t set, int be, uint32_t order);
/* After all events and samples: compute and (when asked) print the attribution
 * (slices, and real samples charged by the same rules). */
int pc_chrome_blame_finish(struct rd *r);
/* Every sample's context set: the contexts active on its thread at its time. */
int pc_chrome_sample_sets(struct rd *r);
/* Contexts still active at the end: open activation markers. */
int pc_chrome_ctx_close(struct rd *r);
void pc_chrome_ctx_free(struct rd *r);

#endif /* PC_CHROME_H */
