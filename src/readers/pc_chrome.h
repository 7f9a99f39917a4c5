/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_chrome.h - what the Chrome trace reader's files share (read_chrome.c:
 * entry points and each event's dispatch; chrome_scan.c: the event scanner;
 * chrome_markers.c: slices, instants and their payloads; chrome_async.c:
 * async spans; chrome_v8.c: V8 CPU profiles; chrome_samples.c: samples
 * derived from slices; chrome_flows.c: flows; chrome_stacks.c: stackFrames
 * samples; chrome_ctx.c: FrameBlamer contexts and their cost).
 */
#ifndef PC_CHROME_H
#define PC_CHROME_H

#include <cJSON.h>
#include <uthash.h>

#include "json/pc_jscan.h"
#include "readers/pc_jread.h"
#include "readers/pc_reader.h"

#define EVENT_MAX ((size_t)64 << 20) /* the largest single event (a ProfileChunk) */
#define DERIVED_NS 1000000	    /* the interval of a trace without V8 samples: 1 ms */
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
	uint32_t flow;	   /* its v2 flow (bind_id): r->fl index + 1, or 0 */
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
	uint32_t aid; /* the scanner's id of the args text in key (struct cev's aid), or 0 */
	char *key; /* the args text */
};
#define PL_SLOTS 16384	  /* a power of 2 */
#define PL_MAX_KEY 1024 /* longer args texts are not remembered */
#define PL_CHUNK (64 * 1024) /* the args texts' chunks (> PL_MAX_KEY + 64) */
#define AID_SLOTS 16384 /* args text id -> payload slot (a power of 2) */

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
 * the bytes too): pc_hash_mem().  Never 0 (0: not worked out yet).
 */
static inline uint64_t pc_chrome_hash(const char *s, size_t len)
{
	return pc_hash_mem(s, len);
}

/*
 * The names' memo's hash (pc_chrome_name_row()): the length and the first,
 * middle and last 8 bytes (4 and 4 in a name of 4 to 7 bytes), a few
 * instructions where pc_chrome_hash() takes a step per 8 bytes; the memo
 * compares the bytes, and a trace's few hundred names do not share these.
 * Never 0.
 */
static inline uint64_t pc_chrome_name_hash(const char *s, size_t len)
{
	uint64_t a = 0, z = 0, m = 0, h;

	if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&z, s + len - 8, 8);
		if (len > 16)
			memcpy(&m, s + len / 2 - 4, 8);
	} else if (len >= 4) {
		uint32_t x, y;

		memcpy(&x, s, 4);
		memcpy(&y, s + len - 4, 4);
		a = x;
		z = y;
	} else if (len) {
		a = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
		    (uint64_t)(unsigned char)s[len - 1] << 16;
	}
	h = ((a ^ len) * 0x9e3779b97f4a7c15ULL) ^ (z * 0xff51afd7ed558ccdULL) ^
	    (m * 0xc4ceb9fe1a85ec53ULL);
	return pc_hash64(h) | 1; /* (every bit into the memo's slot) */
}

/* Per-thread reader state. */
struct tinfo {
	struct pc_thread *t;
	int64_t pid, tid;
	struct open_b *open;
	uint32_t nopen, open_cap;
	int64_t sort_index;
	int has_sort;
	int named; /* a thread_name event was read (the first one counts) */
	int has_real_samples;
	/* which of t's markers are slices (X, B/E), for derived samples: a bit per row */
	uint64_t *sbits;
	uint32_t sbits_cap, sbits_used; /* words */
	uint32_t nslices;
};

/*
 * One end of a flow: a v1 event (s, t, f) or a v2 slice's bind_id, with the
 * slice it binds (found at the end by time for v1, the slice itself for v2).
 */
struct flow_ev {
	int64_t ts;	 /* ns, trace time */
	uint32_t key;	 /* string row: the flow's identity (see flow_key()) */
	uint32_t thread; /* r->th index */
	uint32_t row;	 /* the slice: a marker row of that thread, or PC_NONE (not found yet) */
	uint32_t order;	 /* file order */
	uint8_t ph;	 /* 's' (the flow goes out), 't' (in and on), 'f' (in, ends) */
	uint8_t next;	 /* v1 'f' without bp "e": binds the next slice to begin */
};

/* What M events say of a process: process_sort_index and process_labels. */
struct pmeta {
	int64_t pid;
	int64_t sort_index;
	int has_sort;	    /* a process_sort_index event was read (the first counts) */
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

/* A V8 sample in the model: its thread (r->th index) and row, weighed at the end. */
struct v8row {
	uint32_t thread, row;
};

struct v8prof {
	int64_t pid;
	char *id;	 /* owned */
	uint32_t thread; /* the Profile event's thread */
	int64_t time;	 /* running time, ns */
	struct v8node *nodes;
	uint32_t nnodes, nodes_cap;
	struct v8row *rows; /* its samples, in file order */
	uint32_t nrows, rows_cap;
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
	uint32_t len; /* of s (an event is at most EVENT_MAX bytes) */
	union {
		double d;      /* CJ_NUM */
		const char *s; /* CJ_STR: decoded, ends at its first NUL (cJSON's C string);
				  CJ_OBJ/CJ_ARR args members: cJSON's unformatted text */
		size_t off;    /* pc_chrome_scan_args()'s: where s is in the scratch */
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

/*
 * The members most events lack, kept apart from struct cev (the scanner's
 * batch has a block for each event that has any of them, struct cev's x):
 * the records the scanner writes and the reader reads for every event stay
 * small (a record is written and read once per event, and the ring's
 * records are fresh memory the first time round).
 */
struct cevx {
	struct cjv scope, id, bind_id, id2_local, id2_global;
	uint8_t flow_in, flow_out, bp; /* their kinds (enum cjk) */
	uint8_t bp_e;		       /* bp is "e" */
	uint8_t id2;		       /* id2 is an object (id2_local, id2_global: its members) */
};

/* The members of one event the reader uses (the first of each name, as cJSON finds them). */
struct cev {
	struct cjv name, cat, ph, ts, dur, pid, tid,
		args; /* args.s: the object's text, as it is in the trace */
	/* scope, id, bind_id, flow_in, flow_out, bp, id2 and id2's local
	 * and global: NULL when the event has none of them
	 * (pc_chrome_x() reads them) */
	struct cevx *x;
	struct carg *a; /* args members in order (duplicates too), when args is an object;
			 * decoded by the reader when it needs them (pc_chrome_args()) */
	/* pc_chrome_hash() of the args text and of the cat, which the reader's
	 * payload cache and cats' memo look them up by, and
	 * pc_chrome_name_hash() of the name (the names' memo's): the name's
	 * and the args text's worked out as the event is scanned, the cat's
	 * with the batch (0: not a string / object, a name too long for the
	 * memo, or an args text with an id) */
	uint64_t hargs, hname, hcat;
	uint32_t nmembers;
	uint32_t na;
	/*
	 * The scanner's id of the args text (0: none): two events with the
	 * same id have args texts byte for byte the same (chrome_scan.c's
	 * skip_args() compared them), so the payload cache finds the slot
	 * of a text it has by its id, without hashing or comparing the text
	 * (hargs is then 0 until the reader needs it).  Ids count up, from 1,
	 * within one events array.
	 */
	uint32_t aid;
	uint8_t args_later; /* args is an object with members not decoded yet */
};

/* Every member of struct cevx absent (an event whose x is NULL). */
extern const struct cevx pc_chrome_no_x;

/* The members of struct cevx of e (all absent when it has none). */
static inline const struct cevx *pc_chrome_x(const struct cev *e)
{
	return e->x ? e->x : &pc_chrome_no_x;
}

/* A scanned event: its members, where it began, and for the kinds handled
 * with cJSON its text after the '{' (else text is NULL). */
struct cevr {
	struct cev e;
	uint64_t off;
	const char *text;
	uint32_t len;
	uint32_t a0; /* e.a is the batch's args[a0..] when the scanner decoded them */
};

/*
 * The events read_chrome.c reads from their text, for which the scanner
 * keeps it: by ph, and for M the name.  V8 profiles (P Profile and
 * ProfileChunk) are read again with the scanner's primitives; counters,
 * other P samples, contexts and a process's stackFrames are parsed with
 * cJSON.
 */
struct rd;
/*
 * The args members of e (e->a, e->na), decoded from its args text when
 * they were not yet: the scanner only checks and keeps the text, since an
 * event whose payload the cache already has (and one read from its text)
 * needs no members.  Valid until the next call.  0 or an error.
 */
int pc_chrome_args(struct rd *r, const struct cev *e);

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
	struct cevx *xs; /* the events' x blocks, xs[0..nx) (room for one an event) */
	uint32_t nx;
	char *scratch; /* every string the events point to */
	size_t scap;
	/* scratches the batch outgrew while it was filled, with strings
	 * its events point to (freed when it is filled again) */
	char *old[48];
	unsigned nold;
	struct carg *args; /* the args members the scanner decoded, events in order */
	uint32_t nargs, args_cap;
	int end;	      /* the last batch: the array ended, or err */
	int hashed;	      /* batch_hash() done (else the reader does it) */
	int err;	      /* the error the scanner stopped at (its ctx has the message) */
	uint64_t done, total; /* the input's progress after this batch */
};

struct rd {
	struct profconv_ctx *ctx;
	struct pc_model *m;
	struct pc_jpull *p;
	const char *name;
	uint32_t row_type, row_trace_event, row_cat; /* payload text rows */
	uint32_t row_dispatch;	/* PC_CHROME_DISPATCH_TYPE's text row */
	int any_dispatch;	/* a payload has that type: its schema is added */
	uint32_t noted[64]; /* args keys' text rows (+ 1) note_arg_key() has seen */
	/* the last event's thread (most events follow one of the same thread) */
	int64_t last_pid, last_tid;
	uint32_t last_th; /* index + 1, 0: none */
	/* the threads seen, by (pid, tid) (a direct-mapped memo in front of the
	 * model's thread index and the search of th[]) */
	struct {
		int64_t pid, tid;
		uint32_t th; /* index + 1, 0: empty */
	} tmemo[64];
	struct tinfo *th;
	uint32_t nth, th_cap;
	struct async_open *as; /* open spans in begin order (and closed ones, key NULL) */
	uint32_t nas, as_cap;
	uint32_t nas_closed;	  /* closed ones still in as (dropped when they are half) */
	struct pc_smap as_latest; /* key -> the latest open span with it (index + 1), or 0 */
	struct v8prof *prof;
	uint32_t nprof, prof_cap;
	struct pc_jscan v8js; /* reads V8 profile events again, from their text */
	struct pc_jscan ajs;  /* decodes an event's args members (pc_chrome_args()) */
	struct carg *aargs;   /* ... into these */
	uint32_t aargs_cap;
	double *v8val;	      /* a ProfileChunk's samples, then its time deltas */
	uint32_t v8val_cap;
	struct counter_key *ck;
	uint32_t nck, ck_cap;
	struct lf_slot *lf; /* label frames of slices: LF_SLOTS, allocated */
	struct pl_slot *pl; /* payloads: PL_SLOTS, allocated */
	uint32_t pl_set;    /* the context set the last lookup had */
	/* args text id (struct cev's aid) -> the payload slot last found
	 * for it (index + 1, 0: none): AID_SLOTS, allocated; a slot whose
	 * aid is not the event's is not its text's */
	uint32_t *aidm;
	/* the slots' args texts: cut from chunks of PL_CHUNK bytes, each
	 * starting with a pointer to the one before (freed at the end, a few
	 * frees where one a slot was a millisecond) */
	char *pl_chunk;
	size_t pl_used;
	struct smemo *names, *catm; /* SMEMO_SLOTS each, allocated */
	/* the cats' memo slot of the event handled (number evseq), while no
	 * slot has been written since (chrome_markers.c's ev_cat()) */
	struct smemo *cat_last;
	uint64_t cat_ev, evseq;
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
	uint64_t nevents;
	int64_t first_ts, last_ts;
	int any_samples;
	struct pmeta *pm;
	uint32_t npm, pm_cap;
	/* stackFrames and P / global samples (chrome_stacks.c) */
	struct sframe *sframes;
	struct psample *ps;
	uint32_t nps, ps_cap;
	/* flows (chrome_flows.c): every v1 event (s/t/f) and v2 binding
	 * (bind_id), bound to their slices at the end; some slice got flow
	 * fields (for the schema) */
	struct flow_ev *fl;
	uint32_t nfl, fl_cap;
	int any_flow_slices;
	int refs_mended; /* pc_chrome_strings_or_refs() was done before the flows' fields */
	struct flow_job *flow_job; /* pc_chrome_flows_begin() to _end() */
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
/*
 * The members of the object at js's cursor appended to *args (*nargs of
 * *cap), *na of them: keys and strings decoded into js's scratch, numbers
 * parsed, nested values printed as cJSON prints them; offsets into the
 * scratch (koff, v.off).  0, PC_JSCAN_BAD or PROFCONV_ERR_NOMEM.  The
 * object is one the scanner accepted (an event's args text): nested values
 * are printed without being checked again (pc_jscan_print(), checked).
 */
int pc_chrome_scan_args(struct pc_jscan *js, struct profconv_ctx *ctx, struct carg **args,
			uint32_t *nargs, uint32_t *cap, uint32_t *na);
/* The next batch, valid until the next call (the reader may note things
 * in its events); NULL after the last one. */
struct cbatch *pc_chrome_scan_next(struct cscan *s);
/* Stop and free the scanner; its error, if it stopped at one (adopted into
 * ctx when ctx has none yet: after the events before it), else 0. */
int pc_chrome_scan_end(struct cscan *s);

/* Helpers the reader's files share (on their hot paths: inline). */

/* A member as pc_chrome_jstr() / pc_chrome_jnum() read it. */
static inline const char *pc_chrome_cv_str(const struct cjv *v)
{
	return v->kind == CJ_STR ? v->s : NULL;
}

static inline uint32_t pc_chrome_intern(struct rd *r, const char *s)
{
	return pc_str_intern_z(r->m, s ? s : "");
}

/* The payload cache's hash of a cat's and an args text's hashes (0: no args) and a context set. */
static inline uint64_t pc_chrome_pl_hash(uint64_t hcat, uint64_t hargs, uint32_t set)
{
	return pc_hash64(hargs ^ (hcat * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)set << 32 | set));
}

/*
 * Keys built without printf (a flow or an async event is one in five of a
 * trace's events): kb_*() append to key[0..cap), cut where snprintf() would
 * cut, NUL-terminated.
 */
struct kbuf {
	char *p;
	size_t n, cap;
};

static inline void pc_chrome_kb_put(struct kbuf *k, const char *s, size_t len)
{
	size_t room = k->cap - 1 - k->n;

	if (len > room)
		len = room;
	memcpy(k->p + k->n, s, len);
	k->n += len;
	k->p[k->n] = 0;
}

static inline void pc_chrome_kb_z(struct kbuf *k, const char *s)
{
	pc_chrome_kb_put(k, s, strlen(s));
}

/* "%llx" */
static inline void pc_chrome_kb_hex(struct kbuf *k, unsigned long long v)
{
	char t[17];

	pc_chrome_kb_put(k, t, pc_fmt_hex(t, (uint64_t)v));
}

/* "%lld" */
static inline void pc_chrome_kb_dec(struct kbuf *k, long long v)
{
	char t[24];

	pc_chrome_kb_put(k, t, pc_fmt_i64(t, (int64_t)v));
}

/* read_chrome.c */
const char *pc_chrome_jstr(const cJSON *o, const char *key);
int pc_chrome_jnum(const cJSON *o, const char *key, double *out);
struct tinfo *pc_chrome_thread(struct rd *r, int64_t pid, int64_t tid);
/* The category for a trace event's cat (comma lists: the first). */
uint16_t pc_chrome_category(struct rd *r, const char *cat);
/* Microseconds (possibly fractional) to ns, rounded and clamped. */
int64_t pc_chrome_us_to_ns(double us);
/* The metadata of process pid, made on first use; NULL on OOM. */
struct pmeta *pc_chrome_pmeta(struct rd *r, int64_t pid);

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

/* chrome_markers.c: slices, instants, payloads and their cache, the schema */
/* An event's name's string row (len bytes, pc_chrome_name_hash() h or 0), through a memo. */
uint32_t pc_chrome_name_row(struct rd *r, const char *s, size_t len, uint64_t h);
/* The category of an event's cat. */
uint16_t pc_chrome_ev_category(struct rd *r, const struct cev *e);
/* {type, cat, args...} for a marker of e, shared when it repeats; PC_NONE on OOM. */
uint32_t pc_chrome_payload(struct rd *r, const struct cev *e, const char *cat, uint32_t set);
/* Free the payload cache's args texts (rd_free()). */
void pc_chrome_pl_keys_free(struct rd *r);
/* B's payload bpl with E event e's args merged in (the E's values win). */
uint32_t pc_chrome_merge_end_args(struct rd *r, uint32_t bpl, const struct cev *e);
int pc_chrome_push_marker_set(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start,
			      int64_t end, uint8_t phase, uint16_t cat, uint32_t pl, uint32_t set);
/* pc_chrome_push_marker_set() without a context set. */
int pc_chrome_push_marker(struct rd *r, struct tinfo *ti, uint32_t name, int64_t start,
			  int64_t end, uint8_t phase, uint16_t cat, uint32_t pl);
/* pc_chrome_label_frame() through a small direct-mapped cache. */
uint32_t pc_chrome_label_frame_cached(struct rd *r, uint32_t name, uint16_t cat);
/* The marker just pushed on ti is a slice: flag it for pc_chrome_derive_samples(). */
int pc_chrome_keep_slice(struct rd *r, struct tinfo *ti, int64_t start, int64_t end,
			 uint32_t name, uint16_t cat);
/* After the events: unclosed B and async spans become IntervalStart markers. */
int pc_chrome_close_open(struct rd *r);
/* After the events: string values of keys that were not only strings become plain strings. */
int pc_chrome_strings_or_refs(struct rd *r);
int pc_chrome_refs_scan(const struct rd *r, struct profconv_ctx *ctx, uint32_t **out,
			uint32_t *n, int *flow_keys);
int pc_chrome_refs_mend(struct rd *r, const uint32_t *list, uint32_t n);
/* After the events: the Trace (and Context) marker schemas. */
int pc_chrome_add_schema(struct rd *r);
/*
 * The schema name (payload type) of every trace event's marker.  Under 10
 * characters: V8's JSON.parse makes one shared string of a value that short,
 * and a new string per payload of a longer one ("TraceEvent": a third more
 * heap and half again the parse time for an args-less payload), so the
 * front-end opens the output faster (docs/formats/processed-profile.md §12).
 */
#define PC_CHROME_EVENT_TYPE "Trace"
/*
 * The schema name of the markers of EventDispatch events (an input or DOM
 * event's dispatch, which DevTools shows as an interaction).  Theirs is the
 * one schema whose markers are drawn in the thread's timeline overview, as
 * the front-end's own Chrome importer draws them; the Trace schema's
 * markers (every slice: a solid band where the thread was busy, redrawn
 * with each zoom) are not.
 */
#define PC_CHROME_DISPATCH_TYPE "EventDispatch"

/* chrome_async.c: async spans and instants, on a track of their own per process */
/* The process's "Async events" thread, made on first use (may move r->th). */
struct tinfo *pc_chrome_async_thread(struct rd *r, int64_t pid);
/* b, S: a span opens (name, cat: its row and category; catname: its cat). */
int pc_chrome_async_begin(struct rd *r, struct tinfo *ti, const struct cev *ev, int64_t pid,
			  int64_t ts, uint32_t name, uint16_t cat, const char *catname);
/* e, F: the latest open span of the event's key closes. */
int pc_chrome_async_end(struct rd *r, const struct cev *ev, int64_t pid, int64_t ts);

/* chrome_v8.c: V8 CPU profiles */
/* A P event named Profile or ProfileChunk, read from its text. */
int pc_chrome_profile_event(struct rd *r, struct tinfo *ti, const struct cevr *ev, int64_t pid,
			    int64_t ts, const char *name);
/* After the events: each V8 sample weighs the time to its profile's next one. */
int pc_chrome_v8_weights(struct rd *r, int64_t interval);

/* chrome_samples.c: samples derived from slices */
/* After the events: samples for the threads with slices and no samples. */
int pc_chrome_derive_samples(struct rd *r);

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

/* chrome_flows.c: flows become fields of the slices they bind. */
/* A flow's end on thread r->th[thread] (row PC_NONE: bound by time later);
 * returns its r->fl index + 1, or 0 on OOM (ctx set). */
uint32_t pc_chrome_flow_add(struct rd *r, uint32_t thread, int64_t ts, uint32_t key, char ph,
			    int next, uint32_t row);
/* After pc_chrome_close_open(), before the contexts close: bind, pair, write the fields. */
int pc_chrome_flows_bind(struct rd *r);
/*
 * pc_chrome_flows_bind() in two: _begin() binds and pairs the ends (with
 * overlap set, on a second thread when there are many, or as
 * PROFCONV_CHROME_FLOW_THREAD says: the caller's thread may meanwhile change
 * anything but r->fl, r->th and the markers), _end() waits for that and
 * writes the fields.  _end() (or pc_chrome_flows_free()) must follow.
 * pc_chrome_flows_threaded(): the binding runs on a second thread;
 * pc_chrome_flows_running(): and is not done yet.
 */
int pc_chrome_flows_begin(struct rd *r, int overlap);
int pc_chrome_flows_threaded(const struct rd *r);
int pc_chrome_flows_running(const struct rd *r);
int pc_chrome_flows_end(struct rd *r);
void pc_chrome_flows_free(struct rd *r);
/* s, t, f: one end of a flow (v1), bound to a slice of its thread at the end. */
int pc_chrome_flow_event(struct rd *r, struct tinfo *ti, const struct cev *ev, int64_t pid,
			 int64_t ts, const char *name, const char *cat, char ph, uint64_t off);
/* A slice with bind_id and flow_in/flow_out (v2): row its marker (PC_NONE for a B
 * until its E); *out its end's r->fl index + 1, or 0. */
int pc_chrome_flow_v2(struct rd *r, struct tinfo *ti, const struct cev *e, int64_t ts, uint32_t row,
		      uint32_t *out);
/* A payload member the flows write on the slices they bind. */
static inline int pc_chrome_is_flow_key(const char *k)
{
	return strcmp(k, "flow") == 0 || strcmp(k, "terminatingFlow") == 0 ||
	       strcmp(k, "flowFrom") == 0 || strcmp(k, "flowTo") == 0;
}
void pc_chrome_ctx_free(struct rd *r);

#endif /* PC_CHROME_H */
