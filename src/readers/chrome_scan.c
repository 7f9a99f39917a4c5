/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * chrome_scan.c - the Chrome reader's event scanner: the events array read
 * and each event scanned in one pass (syntax checked, the members the reader
 * uses decoded, the args text kept), a batch of events at a time, on a
 * thread of its own while read_chrome.c turns the previous batches into the
 * model.
 *
 * Pipeline: the scanner thread owns the pull tokenizer, the input and the
 * scanner for as long as the events array lasts, and reports to a ctx of
 * its own (pc_ctx_worker()); read_chrome.c's thread owns the model and the
 * caller's ctx.  They share only the ring of batches, under its mutex.  A
 * batch holds its events and one scratch buffer with every decoded string,
 * args text and (for the kinds handled with cJSON) the event's own text;
 * the reader decodes the args members of the events that need them
 * (pc_chrome_args(): a payload the cache does not have, M events).  Batches come out in file order, so what the
 * reader does, and the output, do not depend on the thread: when no thread
 * can be started (or the input is read through the caller's callback) the
 * same batches are filled on the caller's thread as they are asked for.
 * A batch's scratch has its room reserved up front and does not move while
 * the batch fills: the scanner writes each string's pointer as it decodes
 * it.  An event that needs more than the room left (a huge args text)
 * makes it grow into a new one, and the outgrown ones are kept until the
 * batch is filled again (keep_old() through struct pc_jscan), so what
 * points into them stays valid.
 *
 * Balance: the scanner also decodes the args of events whose args text it
 * has not seen (pre_args()) and works out each batch's hashes of its
 * cats (batch_hash()), work the reader would otherwise do,
 * but only while it is
 * ahead: a batch it begins while the reader has no other batch waiting
 * (LEAN_FULL) leaves both to the reader's thread (pc_chrome_args(),
 * pc_chrome_scan_next()).  On a real trace the scan is the longer of the
 * two threads' work (bound per token), and the reader would wait for it;
 * on one whose events cost the reader more (V8 profiles) the scanner
 * takes the work back.  Either way the same function does the same work
 * on the same bytes, so the output does not depend on which thread did
 * it.  PROFCONV_CHROME_LEAN=0 in the environment makes the scanner do
 * both always, =1 never (the tests run both ways).
 *
 * Args texts are checked once: one byte for byte the same as a text checked
 * before is taken as it is (skip_args()), and an event's args.s points to
 * the remembered text's bytes instead of a copy in the batch's scratch
 * (when they fill their store, okb, a new one starts and the old one is
 * kept with the batch being filled, keep_old(), so it outlives every
 * batch that points into it); numbers of up to 15 digits are
 * read inline (pc_jscan_int15()), and a pid or tid written as the last
 * one was is that number (repeat_number()).
 *
 * The scanner stops at the end of the array, or at the first error, which
 * travels in the last batch: the reader first handles the events before it,
 * then adopts the error (pc_ctx_adopt()), so messages and the events read
 * before a cut are what they were when reading and handling alternated.
 * When the reader fails first, the scanner is stopped and its error, if
 * any, dropped (the reader's comes first in the file).
 */
#include "core/pc_config.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "readers/pc_chrome.h"

#define BATCH_EVENTS 1024
#define BATCH_BYTES ((size_t)256 << 10) /* scratch: start a new batch past this */
/* a batch's scratch from its start: an event begun before BATCH_BYTES
 * must need more than the rest to make it grow */
#define SCRATCH_BYTES (2 * BATCH_BYTES)
#define NBATCH 4			/* in the ring */
/* a batch the scanner begins while the reader has at most this many (the
 * one it handles included) leaves its args and hashes to the reader */
#define LEAN_FULL 1

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define LIKELY(x) (x)
#endif

#define SEEN_SLOTS ((size_t)1 << 14) /* args texts' hashes the scanner remembers */
/* args texts the scanner checked and remembers (their bytes), found by
 * their first OK_KEY, 2 * OK_KEY or 4 * OK_KEY bytes (skip_args()): OK_WAYS
 * slots a bucket, up to OK_BYTES of text (then all forgotten), none of
 * OK_MAX bytes or more */
#define OK_BUCKETS ((size_t)1 << 12)
#define OK_WAYS 4
#define OK_KEY 32
#define OK_BYTES ((size_t)1 << 20)
#define OK_MAX ((size_t)256)

/* (16 bytes: a bucket's OK_WAYS slots are one cache line) */
struct okslot {
	uint32_t key;  /* okey() of the text's first bytes, its low half (0: empty) */
	uint32_t off;  /* the text: okb[off..off + len) */
	uint32_t id;   /* the text's id (struct cev's aid): one per text remembered */
	uint16_t len;  /* (< OK_MAX) */
	uint8_t room;  /* ok_room() when checked */
	uint8_t nl;    /* it holds a newline (in whitespace) */
};

enum mkey {
	K_OTHER,
	K_NAME,
	K_CAT,
	K_PH,
	K_SCOPE,
	K_TS,
	K_DUR,
	K_PID,
	K_TID,
	K_ID,
	K_BIND_ID,
	K_FLOW_IN,
	K_FLOW_OUT,
	K_BP,
	K_ID2,
	K_ARGS,
	K_TTS,	/* tts, tdur, s: K_OTHER's (told apart for the key guess) */
	K_TDUR,
	K_S,
	K_SLOW,	 /* not matched by fast_key(): read the key */
	K_START, /* (before the first key: the key guess's) */
	K_COUNT
};

/*
 * The key guessed after a key (struct cscan's guess[], by the key before
 * it): its '"', its bytes, its '"' and its ':' (len bytes in all, at most
 * 8: w under mask), and the member it names.  Events of one kind write
 * their keys in the same order (Chrome sorts them), so one compare most
 * often takes a key and its ':' (scan_event()).  Nothing to guess: mask
 * is all ones and w 0 (a key starts with '"').
 */
struct kguess {
	uint64_t w, mask;
	uint8_t len, mk;
};
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KGUESS 1
#else
#define KGUESS 0
#endif

/*
 * The last pid or tid read as it was written: its bytes and the one that
 * ended it (1 to 8 in all, in w under mask), its length n (0: none) and
 * its value.  The same bytes again make the same number, ended at the same
 * place (what ends a number is a byte of its own), so most events' pid and
 * tid, which repeat the last event's, are one compare (repeat_number()).
 */
struct numo {
	uint64_t w, mask;
	double d;
	size_t n;
};

struct cscan {
	struct profconv_ctx *ctx;  /* the scanner's (pc_ctx_worker()) */
	struct numo num[2];	   /* the last pid, tid */
	struct kguess guess[K_COUNT]; /* the key that came after each key last */
	uint32_t *seen;		   /* SEEN_SLOTS hashes' high halves of args texts decoded, direct-mapped */
	size_t args_at;		   /* the last event's args text: its offset in the event's text */
	struct okslot *ok;	   /* args texts checked: OK_BUCKETS * OK_WAYS */
	uint8_t *okrr;		   /* each bucket's next way to replace */
	char *okb;		   /* their bytes: OK_BYTES */
	size_t okn;		   /* bytes of okb used */
	uint64_t h_empty;	   /* pc_chrome_hash() of "{}" */
	uint32_t okseq;		   /* the last text id given (ids stop short of wrapping) */
	int ok_hit;		   /* the last args text was a remembered one */
	const char *ok_text;	   /* the last args text's bytes in okb, or NULL (not remembered) */
	struct profconv_ctx *rctx; /* the reader's (the caller's) */
	struct pc_jpull *p;
	struct pc_jscan js;
	struct cbatch b[NBATCH];
	struct cbatch *cur; /* the batch being filled */
	unsigned fill;	    /* the batch the scanner fills next */
	unsigned take;	    /* the batch the reader takes next */
	unsigned full;	    /* batches filled and not yet given back */
	int held;	    /* the reader holds batch take - 1 */
	int ended;	    /* the scanner filled its last batch */
	int stop;	    /* the reader wants no more */
	int threaded;
	int lean;	    /* the batch being filled leaves pre_args() and batch_hash() to the reader */
	int lean_env;	    /* PROFCONV_CHROME_LEAN: 0 never lean, 1 always, -1 by the ring */
	pthread_t th;
	pthread_mutex_t mu; /* guards fill, take, full, ended, stop */
	pthread_cond_t cv;
};

static int keep_old(void *arg, char *old);

/* --- scanning an event --- */

const struct cevx pc_chrome_no_x = { .scope = { .kind = CJ_NONE } };

/* e's block of the members most events lack (each absent), made on first use. */
static struct cevx *ev_x(struct cscan *s, struct cev *e)
{
	if (!e->x) {
		struct cbatch *b = s->cur;

		/* (room for one an event: the batch's events are at most BATCH_EVENTS) */
		e->x = &b->xs[b->nx++];
		memset(e->x, 0, sizeof(*e->x)); /* (CJ_NONE) */
	}
	return e->x;
}

/* Which member a key names (compared as C strings, as cJSON compares them). */
static enum mkey member_key(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return K_PH;
		if (k[0] == 't' && k[1] == 's')
			return K_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return K_ID;
		if (k[0] == 'b' && k[1] == 'p')
			return K_BP;
		break;
	case 3:
		if (memcmp(k, "cat", 3) == 0)
			return K_CAT;
		if (memcmp(k, "dur", 3) == 0)
			return K_DUR;
		if (memcmp(k, "pid", 3) == 0)
			return K_PID;
		if (memcmp(k, "tid", 3) == 0)
			return K_TID;
		if (memcmp(k, "id2", 3) == 0)
			return K_ID2;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return K_NAME;
		if (memcmp(k, "args", 4) == 0)
			return K_ARGS;
		break;
	case 5:
		if (memcmp(k, "scope", 5) == 0)
			return K_SCOPE;
		break;
	case 7:
		if (memcmp(k, "bind_id", 7) == 0)
			return K_BIND_ID;
		if (memcmp(k, "flow_in", 7) == 0)
			return K_FLOW_IN;
		break;
	case 8:
		if (memcmp(k, "flow_out", 8) == 0)
			return K_FLOW_OUT;
		break;
	default:
		break;
	}
	return K_OTHER;
}

/*
 * At a key's '"': the member it names when it is one of the keys Chrome
 * writes, matched with its closing quote in one 8-byte load (so no escape
 * can hide in it), and the cursor after it; K_SLOW for any other key, or
 * too near the text's end, with the cursor left where it was.  Reading the
 * key byte by byte and then matching it by its length was a fifth of the
 * scan.
 */
static inline enum mkey fast_key(struct pc_jscan *js)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KB(c, i) ((uint64_t)(unsigned char)(c) << (8 * (i)))
#define K2(a, b) (KB(a, 0) | KB(b, 1) | KB('"', 2))
#define K3(a, b, c) (KB(a, 0) | KB(b, 1) | KB(c, 2) | KB('"', 3))
#define K4(a, b, c, d) (KB(a, 0) | KB(b, 1) | KB(c, 2) | KB(d, 3) | KB('"', 4))
#define KEY_IS(n, word, k)                                                                        \
	do {                                                                                       \
		if ((w & ((n) == 8 ? ~(uint64_t)0 : KB(1, (n) & 7) - 1)) == (word)) {             \
			js->p = b + (n);                                                           \
			return k;                                                                  \
		}                                                                                  \
	} while (0)
	const char *b = js->p + 1;
	uint64_t w;

	if (js->end - b < 8)
		return K_SLOW;
	memcpy(&w, b, 8);
	switch (b[0]) {
	case 'a':
		KEY_IS(5, K4('a', 'r', 'g', 's'), K_ARGS);
		break;
	case 'b':
		KEY_IS(3, K2('b', 'p'), K_BP);
		KEY_IS(8, K4('b', 'i', 'n', 'd') | KB('_', 4) | KB('i', 5) | KB('d', 6) | KB('"', 7),
		       K_BIND_ID);
		break;
	case 'c':
		KEY_IS(4, K3('c', 'a', 't'), K_CAT);
		break;
	case 'd':
		KEY_IS(4, K3('d', 'u', 'r'), K_DUR);
		break;
	case 'f':
		KEY_IS(8, K4('f', 'l', 'o', 'w') | KB('_', 4) | KB('i', 5) | KB('n', 6) | KB('"', 7),
		       K_FLOW_IN);
		break;
	case 'i':
		KEY_IS(3, K2('i', 'd'), K_ID);
		KEY_IS(4, K3('i', 'd', '2'), K_ID2);
		break;
	case 'n':
		KEY_IS(5, K4('n', 'a', 'm', 'e'), K_NAME);
		break;
	case 'p':
		KEY_IS(3, K2('p', 'h'), K_PH);
		KEY_IS(4, K3('p', 'i', 'd'), K_PID);
		break;
	case 's':
		KEY_IS(2, KB('s', 0) | KB('"', 1), K_S);
		KEY_IS(6, K4('s', 'c', 'o', 'p') | KB('e', 4) | KB('"', 5), K_SCOPE);
		break;
	case 't':
		KEY_IS(3, K2('t', 's'), K_TS);
		KEY_IS(4, K3('t', 'i', 'd'), K_TID);
		KEY_IS(4, K3('t', 't', 's'), K_TTS);
		KEY_IS(5, K4('t', 'd', 'u', 'r'), K_TDUR);
		break;
	default:
		break;
	}
#undef KEY_IS
#undef K4
#undef K3
#undef K2
#undef KB
#else
	(void)js;
#endif
	return K_SLOW;
}

/* The kind of the value at the cursor, by its first byte. */
static uint8_t value_kind(int c)
{
	switch (c) {
	case '{':
		return CJ_OBJ;
	case '[':
		return CJ_ARR;
	case '"':
		return CJ_STR;
	case 't':
		return CJ_TRUE;
	case 'f':
		return CJ_FALSE;
	case 'n':
		return CJ_NULL;
	default:
		return CJ_NUM;
	}
}

/*
 * A scalar value into v (strings decoded into the scratch, numbers parsed);
 * containers are only checked (v->kind says what they were); with print,
 * containers are printed as cJSON prints them.
 */
static int scan_value(struct pc_jscan *js, struct cjv *v, int print)
{
	int c = pc_jscan_ws(js);

	v->kind = value_kind(c);
	switch (v->kind) {
	case CJ_STR: {
		size_t len;

		c = pc_jscan_string(js, &v->off, &len);
		if (!c && js->nul) /* cJSON's C string ends at the NUL */
			len = strlen(pc_jscan_at(js, v->off));
		v->len = (uint32_t)len; /* (an event is at most EVENT_MAX bytes) */
		return c;
	}
	case CJ_NUM:
		return pc_jscan_number(js, &v->d);
	case CJ_OBJ:
	case CJ_ARR:
		if (print) {
			v->off = js->olen;
			c = pc_jscan_print(js);
			if (c)
				return c;
			v->len = (uint32_t)(js->olen - v->off);
			return pc_jscan_put(js, "", 1); /* a NUL after the text */
		}
		return pc_jscan_skip(js);
	default:
		return pc_jscan_skip(js);
	}
}

/* scan_value(js, v, 0) for an event's member: a string's pointer, not its offset. */
static int event_value(struct pc_jscan *js, struct cjv *v)
{
	int err = scan_value(js, v, 0);

	if (!err && v->kind == CJ_STR)
		v->s = pc_jscan_at(js, v->off);
	return err;
}

/*
 * scan_value(js, v, 0) at a member's value, with the kinds most members
 * hold (a string, a number written without whitespace before it) read
 * here, without the call and the second look at the first byte.
 */
static inline int member_value(struct pc_jscan *js, struct cjv *v)
{
	if (LIKELY(js->p < js->end)) {
		unsigned char c = (unsigned char)*js->p;

		if (c == '"') {
			size_t off, len;
			int err = pc_jscan_string(js, &off, &len);

			v->kind = CJ_STR;
			if (err)
				return err;
			/* (where it stays: the batch's scratch does not move) */
			v->s = pc_jscan_at(js, off);
			if (js->nul) /* cJSON's C string ends at the NUL */
				len = strlen(v->s);
			v->len = (uint32_t)len;
			return 0;
		}
		if ((unsigned)(c - '0') < 10 || c == '-') {
			v->kind = CJ_NUM;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* ts, dur, pid, tid: an integer of up to 15 digits read
			 * here (pc_jscan_number() was an out-of-line call and a
			 * sixth of the scan) */
			if ((unsigned)(c - '1') < 9 && js->end - js->p >= 16) {
				uint64_t m;
				unsigned n = pc_jscan_int15(js->simd, js->p, &m);

				if (n) {
					v->d = (double)(int64_t)m;
					js->p += n;
					return 0;
				}
			}
#endif
			return pc_jscan_number(js, &v->d);
		}
	}
	return event_value(js, v);
}

/*
 * At a number that starts with a digit 1-9 and is only checked (tts,
 * tdur): an integer of up to 15 digits is found 8 bytes a step and taken
 * as pc_jscan_number() takes it (no fraction or exponent after it),
 * without working out its value; anything else goes to pc_jscan_number().
 */
static inline int check_number(struct pc_jscan *js)
{
	double d;

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *p = js->p;

	if (js->end - p >= 16) {
		unsigned k = pc_jscan_digits16_at(js->simd, p);

		if (k < 16) {
			p += k;
			if (*p != '.' && (*p | 0x20) != 'e') {
				js->p = p;
				return 0;
			}
		}
	}
#endif
	return pc_jscan_number(js, &d);
}

/*
 * A pid or tid into v (absent so far) at the cursor: the same bytes as the
 * last one (o) taken as that number, else member_value(), and a number
 * that starts the value, of up to 7 bytes, remembered.
 */
static inline int repeat_number(struct pc_jscan *js, struct numo *o, struct cjv *v)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *from = js->p;
	uint64_t w;
	size_t n;
	int err;

	if (js->end - from < 8)
		return member_value(js, v);
	memcpy(&w, from, 8);
	if (((w ^ o->w) & o->mask) == 0 && o->n) {
		v->kind = CJ_NUM;
		v->d = o->d;
		js->p = from + o->n;
		return 0;
	}
	err = member_value(js, v);
	n = (size_t)(js->p - from);
	if (!err && v->kind == CJ_NUM && n < 8 && ((unsigned)(*from - '0') < 10 || *from == '-')) {
		/* (no whitespace before it: its newline would not be counted again) */
		o->w = w;
		o->mask = ~(uint64_t)0 >> (8 * (7 - n));
		o->d = v->d;
		o->n = n;
	}
	return err;
#else
	(void)o;
	return member_value(js, v);
#endif
}

/* A key of the 32 bytes at p, chained on the key h of those before them (never 0). */
static inline uint64_t okey(const char *p, uint64_t h)
{
	uint64_t w0, w1, w2, w3;

	memcpy(&w0, p, 8);
	memcpy(&w1, p + 8, 8);
	memcpy(&w2, p + 16, 8);
	memcpy(&w3, p + 24, 8);
	h = (h * 0xd6e8feb86659fd93ULL) ^ (w0 * 0x9e3779b97f4a7c15ULL) ^ (w1 * 0xff51afd7ed558ccdULL) ^
	    (w2 * 0xc4ceb9fe1a85ec53ULL) ^ (w3 * 0x94d049bb133111ebULL);
	h ^= h >> 29;
	return h | 1;
}

/*
 * The containers that could open in an args text (max_depth - depth) as
 * the slots keep it: a text shorter than OK_MAX = 256 bytes opens at most
 * 127, so any room of 128 or more checks it the same way, and 255 stands
 * for them all.
 */
static inline uint8_t ok_room(unsigned room)
{
	return room < 255 ? (uint8_t)room : 255;
}

/* The slot of a remembered args text with key k at from (avail bytes there), or NULL. */
static inline struct okslot *ok_find(const struct cscan *s, uint64_t k, const char *from, size_t avail,
				     uint8_t room)
{
	struct okslot *o = &s->ok[(size_t)(k >> 52) * OK_WAYS];
	unsigned w;

	for (w = 0; w < OK_WAYS; w++)
		if (o[w].key == (uint32_t)k && o[w].len <= avail && o[w].room == room &&
		    memcmp(s->okb + o[w].off, from, o[w].len) == 0)
			return &o[w];
	return NULL;
}

/*
 * At an event's args '{': check the object and skip it, e->aid the id
 * of the remembered text it is (0: none; scan_event() hashes the texts
 * without one).  Most args texts
 * of a trace repeat (the same frame, the same empty data): a text whose
 * bytes are those of one checked before (remembered, and found by its
 * first bytes) is taken as it is, without a second check; any other is
 * checked (pc_jscan_skip()), so a text that is not valid JSON is refused
 * where it was before, and remembered when it is valid.  The check of
 * the same bytes from the same place would take the same path: its
 * result, end and newline flag are the remembered one's.
 *
 * A text is remembered under the key of its first 32 bytes when it is
 * shorter than 64 (the bytes after it in the key), of its first 64 when
 * shorter than 128, else of its first 128 (texts of one kind share long
 * beginnings: the same frame id, a different node); a lookup tries the
 * three in turn, as far as the bytes at hand go.
 */
static int skip_args(struct cscan *s, struct cev *e)
{
	struct pc_jscan *js = &s->js;
	const char *from = js->p;
	struct okslot *f;
	size_t avail = (size_t)(js->end - from), len;
	uint8_t room = ok_room(js->max_depth - js->depth);
	unsigned tier;
	uint64_t k[3] = { 0, 0, 0 };
	int nl = js->nl, err;

	if (avail >= OK_KEY) {
		if (PC_UNLIKELY(!s->ok)) {
			/* (cleared here: a fresh mapping's zero pages read
			 * first by the lookups and written later fault twice) */
			s->ok = pc_alloc(s->ctx, OK_BUCKETS * OK_WAYS * sizeof(*s->ok));
			s->okrr = pc_alloc(s->ctx, OK_BUCKETS * sizeof(*s->okrr));
			s->okb = pc_alloc(s->ctx, OK_BYTES);
			if (!s->ok || !s->okrr || !s->okb)
				return PROFCONV_ERR_NOMEM; /* (freed by pc_chrome_scan_end()) */
			memset(s->ok, 0, OK_BUCKETS * OK_WAYS * sizeof(*s->ok));
			memset(s->okrr, 0, OK_BUCKETS * sizeof(*s->okrr));
		}
		k[0] = okey(from, 0);
		f = ok_find(s, k[0], from, avail, room);
		if (!f && avail >= 2 * OK_KEY) {
			k[1] = okey(from + OK_KEY, k[0]);
			f = ok_find(s, k[1], from, avail, room);
			if (!f && avail >= 4 * OK_KEY) {
				k[2] = okey(from + 3 * OK_KEY, okey(from + 2 * OK_KEY, k[1]));
				f = ok_find(s, k[2], from, avail, room);
			}
		}
		if (f) {
			js->p = from + f->len;
			js->nl |= f->nl;
			e->aid = f->id; /* (the reader hashes the text only if it needs to) */
			s->ok_hit = 1;
			s->ok_text = s->okb + f->off;
			return 0;
		}
	}
	s->ok_hit = 0;
	s->ok_text = NULL;
	js->nl = 0;
	err = pc_jscan_skip(js);
	if (err)
		return err;
	len = (size_t)(js->p - from);
	tier = len < 2 * OK_KEY ? 0 : len < 4 * OK_KEY ? 1 : 2;
	if (len < OK_MAX && k[tier]) {
		/* remembered, in place of the bucket's oldest */
		size_t bk = (size_t)(k[tier] >> 52);
		struct okslot *o = &s->ok[bk * OK_WAYS + s->okrr[bk]];

		s->okrr[bk] = (uint8_t)((s->okrr[bk] + 1) % OK_WAYS);
		if (s->okn + len > OK_BYTES) {
			/* all forgotten, and their bytes kept with the batch
			 * (events of it and of the batches before it point to
			 * them: keep_old()) */
			char *nb = pc_alloc(s->ctx, OK_BYTES);

			if (!nb || keep_old(s->cur, s->okb)) {
				pc_free(s->ctx, nb);
				return PROFCONV_ERR_NOMEM;
			}
			s->okb = nb;
			memset(s->ok, 0, OK_BUCKETS * OK_WAYS * sizeof(*s->ok));
			s->okn = 0;
		}
		memcpy(s->okb + s->okn, from, len);
		s->ok_text = s->okb + s->okn;
		o->key = (uint32_t)k[tier];
		o->id = e->aid = s->okseq < UINT32_MAX ? ++s->okseq : 0;
		o->off = (uint32_t)s->okn;
		o->len = (uint16_t)len;
		o->room = room;
		o->nl = (uint8_t)js->nl;
		s->okn += len;
	}
	js->nl |= nl;
	return 0;
}

/* The members of an object at the cursor: each key and value to fn. */
#define SCAN_OBJECT(js, err, KEYVAR, KLEN, BODY)                                                  \
	do {                                                                                       \
		int mc_;                                                                            \
		if (pc_jscan_ws(js) != '{' || (js)->depth >= (js)->max_depth) {                    \
			err = PC_JSCAN_BAD;                                                        \
			break;                                                                     \
		}                                                                                  \
		(js)->depth++;                                                                     \
		(js)->p++;                                                                         \
		mc_ = pc_jscan_ws(js);                                                              \
		if (mc_ == '}') {                                                                   \
			(js)->p++;                                                                 \
			(js)->depth--;                                                             \
			break;                                                                     \
		}                                                                                  \
		for (;;) {                                                                         \
			size_t KEYVAR, KLEN;                                                       \
			if (mc_ != '"') {                                                           \
				err = PC_JSCAN_BAD;                                                \
				break;                                                             \
			}                                                                          \
			err = pc_jscan_string(js, &KEYVAR, &KLEN);                                 \
			if (!err && pc_jscan_ws(js) != ':')                                        \
				err = PC_JSCAN_BAD;                                                \
			if (err)                                                                   \
				break;                                                             \
			(js)->p++;                                                                 \
			BODY;                                                                      \
			if (err)                                                                   \
				break;                                                             \
			mc_ = pc_jscan_ws(js);                                                      \
			if (mc_ == '}') {                                                           \
				(js)->p++;                                                         \
				(js)->depth--;                                                     \
				break;                                                             \
			}                                                                          \
			if (mc_ != ',') {                                                           \
				err = PC_JSCAN_BAD;                                                \
				break;                                                             \
			}                                                                          \
			(js)->p++;                                                                 \
			mc_ = pc_jscan_ws(js);                                                      \
		}                                                                                  \
	} while (0)

/*
 * Scan the event text "{" + text[0..len) into e: check its syntax
 * (PC_JSCAN_BAD when it is not valid JSON), decode the members the reader
 * uses and keep the args object's text (its members are decoded by the
 * reader when it needs them, pc_chrome_args()).  Strings point into the
 * scratch, which holds the whole batch and does not move while it fills.
 * max_depth: containers that may be open.
 */
static int scan_event(struct cscan *s, struct cev *e, const char *text, size_t len,
		      unsigned max_depth, size_t *used)
{
	struct pc_jscan *js = &s->js;
	size_t base = js->olen;
	int err = 0;

	/* each member absent (only kind is read of an absent member; a memset
	 * of the whole struct was a tenth of the scan; those of x when it is
	 * made) */
	e->nmembers = 0;
	e->name.kind = e->cat.kind = e->ph.kind = e->ts.kind = CJ_NONE;
	e->dur.kind = e->pid.kind = e->tid.kind = e->args.kind = CJ_NONE;
	e->x = NULL;
	e->na = 0;
	e->args_later = 0;
	e->a = NULL;
	e->hargs = e->hname = e->hcat = 0;
	e->aid = 0;
	pc_jscan_start(js, text, len, max_depth);
	js->olen = base; /* the batch's scratch goes on */
	/* the text starts after the '{': begin inside the object */
	js->depth = 1;
	{
		int c_ = pc_jscan_ws(js);
		enum mkey prev = K_START; /* the last key (the key guess is by it) */

		if (c_ == '}') {
			js->p++;
			goto done;
		}
		for (;;) {
			const char *key, *kfrom = js->p;
			size_t kl, at;
			struct cjv *v = NULL, dummy;
			struct kguess *g = &s->guess[prev];
			enum mkey mk;
			uint64_t kw = 0;

			if (c_ != '"')
				return PC_JSCAN_BAD;
#if KGUESS
			/* the key that came after the last one the last time, and
			 * its ':', in one compare: the same bytes, the same key */
			if (LIKELY(js->end - kfrom >= 8)) {
				memcpy(&kw, kfrom, 8);
				if (LIKELY(((kw ^ g->w) & g->mask) == 0)) {
					mk = (enum mkey)g->mk;
					js->p = kfrom + g->len;
					goto have_key;
				}
			}
#endif
			mk = fast_key(js);
			if (mk == K_SLOW) {
				at = js->olen;
				err = pc_jscan_key(js, &key, &kl);
				if (err)
					return err;
				mk = member_key(key, kl);
				js->olen = at;
			}
#if KGUESS
			else if (LIKELY(js->p < js->end && *js->p == ':') && js->p - kfrom <= 7 &&
				 js->end - kfrom >= 8) {
				/* guessed after prev from now on */
				js->p++;
				g->len = (uint8_t)(js->p - kfrom);
				g->mask = ~(uint64_t)0 >> (8 * (8 - g->len));
				g->w = kw & g->mask;
				g->mk = (uint8_t)mk;
				goto have_key;
			}
#endif
			if (LIKELY(js->p < js->end && *js->p == ':'))
				js->p++;
			else if (pc_jscan_ws(js) == ':')
				js->p++;
			else
				return PC_JSCAN_BAD;
have_key:
			prev = mk;
			e->nmembers++;
			switch (mk) {
			case K_NAME:
				if (e->name.kind == CJ_NONE) {
					/* the names' memo's key, from the bytes just
					 * written (a few instructions: no pass of its
					 * own on either thread) */
					err = member_value(js, &e->name);
					if (err)
						return err;
					if (e->name.kind == CJ_STR &&
					    e->name.len <= sizeof(((struct smemo *)0)->s))
						e->hname = pc_chrome_name_hash(e->name.s, e->name.len);
					goto next;
				}
				break;
			case K_CAT:
				v = &e->cat;
				break;
			case K_PH:
				v = &e->ph;
				break;
			case K_SCOPE:
				v = &ev_x(s, e)->scope;
				break;
			case K_TS:
				v = &e->ts;
				break;
			case K_DUR:
				v = &e->dur;
				break;
			case K_PID:
				if (e->pid.kind == CJ_NONE) {
					err = repeat_number(js, &s->num[0], &e->pid);
					if (err)
						return err;
					goto next;
				}
				break;
			case K_TID:
				if (e->tid.kind == CJ_NONE) {
					err = repeat_number(js, &s->num[1], &e->tid);
					if (err)
						return err;
					goto next;
				}
				break;
			case K_ID:
				v = &ev_x(s, e)->id;
				break;
			case K_BIND_ID:
				v = &ev_x(s, e)->bind_id;
				break;
			case K_FLOW_IN:
			case K_FLOW_OUT:
			case K_BP: {
				/* only their kinds are kept (and whether bp is "e") */
				struct cevx *x = ev_x(s, e);
				uint8_t *k = mk == K_FLOW_IN	? &x->flow_in
					     : mk == K_FLOW_OUT ? &x->flow_out
								: &x->bp;

				if (*k == CJ_NONE) {
					/* (rare: not member_value(), which is
					 * inlined where the members most events
					 * have are read) */
					err = event_value(js, &dummy);
					if (err)
						return err;
					*k = dummy.kind;
					if (mk == K_BP)
						x->bp_e = dummy.kind == CJ_STR &&
							  strcmp(dummy.s, "e") == 0;
					goto next;
				}
				break;
			}
			case K_ID2:
				if ((!e->x || !e->x->id2) && pc_jscan_ws(js) == '{') {
					struct cevx *x = ev_x(s, e);

					x->id2 = 1;
					SCAN_OBJECT(js, err, k2, l2, {
						const char *kk = pc_jscan_at(js, k2);
						struct cjv *w = &dummy;

						(void)l2;
						if (strcmp(kk, "local") == 0 &&
						    x->id2_local.kind == CJ_NONE)
							w = &x->id2_local;
						else if (strcmp(kk, "global") == 0 &&
							 x->id2_global.kind == CJ_NONE)
							w = &x->id2_global;
						err = event_value(js, w);
					});
					if (err)
						return err;
					goto next;
				}
				break;
			case K_ARGS:
				if (e->args.kind == CJ_NONE && pc_jscan_ws(js) == '{') {
					const char *from = js->p, *q = from + 1;

					s->args_at = (size_t)(from - text);

					/* checked here, its members decoded by the reader
					 * when it needs them (pc_chrome_args()) */
					e->args.kind = CJ_OBJ;
					if (js->end - from >= 2 && from[1] == '}' &&
					    js->depth < js->max_depth) {
						/* "{}" (half of a trace's events): what
						 * skip_args() and batch_hash() would find,
						 * without a lookup or a hash */
						js->p = from + 2;
						e->hargs = s->h_empty;
						e->args.len = 2;
						e->args.s = "{}";
						goto next;
					}
					err = skip_args(s, e);
					if (err)
						return err;
					while (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')
						q++;
					e->args_later = *q != '}';
					/* its text: the reader's payload cache key (the
					 * remembered text's bytes, which stay where they
					 * are until the reader is done with the batch, or
					 * a copy in the scratch) */
					e->args.len = (uint32_t)(js->p - from);
					if (!e->aid) /* (a text not remembered, long: hashed
						      * while its bytes are at hand) */
						e->hargs = pc_chrome_hash(from, e->args.len);
					if (s->ok_text) {
						e->args.s = s->ok_text;
						goto next;
					}
					at = js->olen;
					err = pc_jscan_put(js, from, e->args.len);
					if (err)
						return err;
					e->args.s = pc_jscan_at(js, at);
					goto next;
				}
				break;
			default:
				break;
			}
			if (v && v->kind == CJ_NONE) {
				err = member_value(js, v);
			} else {
				int c = pc_jscan_ws(js);

				/* (tts, tdur: checked on the number fast path; s: a
				 * string without escapes is one search) */
				if (c >= '1' && c <= '9') {
					err = check_number(js);
				} else if (c == '"') {
					const char *q = pc_jscan_plain(js->simd, js->p + 1, js->end);

					if (q < js->end && *q == '"')
						js->p = q + 1;
					else
						err = pc_jscan_skip(js);
				} else {
					err = pc_jscan_skip(js);
				}
			}
			if (err)
				return err;
next:
			/* compact text: ',' and the next key's '"' */
			if (LIKELY(js->end - js->p >= 2 && pc_load_u16((const unsigned char *)js->p, 0) ==
					   pc_load_u16((const unsigned char *)",\"", 0))) {
				js->p++;
				c_ = '"';
				continue;
			}
			c_ = pc_jscan_ws(js);
			if (c_ == '}') {
				js->p++;
				break;
			}
			if (c_ != ',')
				return PC_JSCAN_BAD;
			js->p++;
			c_ = pc_jscan_ws(js);
		}
	}
done:
	if (used)
		*used = (size_t)(js->p - text);
	else if (js->p != js->end)
		return PC_JSCAN_BAD;
	return 0;
}

int pc_chrome_scan_args(struct pc_jscan *js, struct profconv_ctx *ctx, struct carg **args,
			uint32_t *nargs, uint32_t *cap, uint32_t *na)
{
	int err = 0, checked = js->checked;

	*na = 0;
	/* an args text scan_event() accepted: its nested values are printed
	 * without a second check (pc_jscan_print()) */
	js->checked = 1;
	SCAN_OBJECT(js, err, k2, l2, {
		struct carg *a;

		if (*nargs == *cap &&
		    pc_grow(ctx, (void **)args, sizeof(**args), cap, (size_t)*nargs + 1)) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		a = &(*args)[(*nargs)++];
		(*na)++;
		a->koff = k2;
		a->klen = js->nul ? strlen(pc_jscan_at(js, k2)) : l2;
		err = scan_value(js, &a->v, 1);
	});
	js->checked = checked;
	return err;
}

/* --- one event, the batch --- */

/* The kinds read_chrome.c hands to cJSON, which needs the event's text. */
static int keeps_text(const struct pc_jscan *js, const struct cev *e)
{
	if (e->ph.kind != CJ_STR || e->ph.len != 1)
		return 0;
	(void)js;
	return pc_chrome_cjson_kind(*e->ph.s, e->name.kind == CJ_STR ? e->name.s : NULL,
				    e->name.kind == CJ_STR ? e->name.len : 0);
}

/*
 * The args members of an event whose args text the scanner has not seen
 * (the reader builds a payload for such an event, which needs them:
 * pc_chrome_args()), decoded here into the batch, so that the reader's
 * thread finds them done (only while the scanner is ahead of the reader:
 * a lean batch leaves them to it, see the top of the file).  An args text
 * seen before (found among the texts skip_args() remembers, or by its
 * hash in a direct-mapped table) is left to the reader, whose payload
 * cache most likely has it.  The members are
 * those pc_chrome_args() decodes: the same function over the same bytes.
 * text: the event's text, which holds its args at s->args_at.
 */
static int pre_args(struct cscan *s, struct cbatch *b, struct cevr *r, const char *text)
{
	struct pc_jscan *js = &s->js;
	struct cev *e = &r->e;
	const char *a = text + s->args_at, *sp = js->p, *se = js->end;
	unsigned depth = js->depth, max_depth = js->max_depth;
	uint32_t first = b->nargs, k;
	size_t olen = js->olen;
	struct carg *args = b->args;
	int nl = js->nl, err;

	if (e->aid) {
		/* a text the scanner remembers: seen before when it was found
		 * there, else new */
		if (s->ok_hit)
			return 0;
	} else {
		uint64_t h = e->hargs ? e->hargs : pc_chrome_hash(a, e->args.len);
		uint32_t *slot, hi = (uint32_t)(h >> 32) | 1;

		e->hargs = h;
		if (!s->seen) {
			s->seen = pc_alloc(s->ctx, SEEN_SLOTS * sizeof(*s->seen));
			if (!s->seen)
				return PROFCONV_ERR_NOMEM;
			memset(s->seen, 0, SEEN_SLOTS * sizeof(*s->seen)); /* (see skip_args()) */
		}
		/* (a text taken for one seen by its slot and the hash's high
		 * half is only left to the reader) */
		slot = &s->seen[(size_t)(h ^ h >> 32) & (SEEN_SLOTS - 1)];
		if (*slot == hi)
			return 0;
		*slot = hi;
	}
	/* pc_chrome_args()'s pc_jscan_start(), the scratch kept */
	js->p = a;
	js->end = a + e->args.len;
	js->depth = 0;
	js->max_depth = UINT_MAX;
	err = pc_chrome_scan_args(js, s->ctx, &b->args, &b->nargs, &b->args_cap, &e->na);
	js->p = sp;
	js->end = se;
	js->depth = depth;
	js->max_depth = max_depth;
	js->nl = nl;
	if (err == PC_JSCAN_BAD) { /* (cannot be: checked) left to the reader */
		js->olen = olen;
		b->nargs = first;
		e->na = 0;
		return 0;
	}
	if (err)
		return err;
	/* the members' pointers (the scratch does not move), and the
	 * events' before this one again if the members' array moved */
	for (k = first; k < b->nargs; k++) {
		struct carg *m = &b->args[k];

		m->key = pc_jscan_at(js, m->koff);
		if (m->v.kind == CJ_STR || m->v.kind == CJ_OBJ || m->v.kind == CJ_ARR)
			m->v.s = pc_jscan_at(js, m->v.off);
	}
	if (b->args != args)
		for (k = 0; k < b->n; k++)
			if (b->ev[k].e.na)
				b->ev[k].e.a = b->args + b->ev[k].a0;
	r->a0 = first;
	e->a = e->na ? b->args + first : NULL;
	e->args_later = 0;
	return 0;
}

/*
 * One event after its OBJ_BEGIN token t into the next slot of b: scanned in
 * one pass where it lies in the input chunk, or, when it does not end there
 * (or the scanner refuses it), from the bytes pc_jpull_raw_rest() gathers.
 * A text the scanner refuses is handed to the strict tokenizer for its
 * FILE:LINE:COL message.
 */
static int scan_one(struct cscan *s, struct cbatch *b, const struct pc_jtok *t)
{
	struct pc_jscan *js = &s->js;
	struct cevr *r = &b->ev[b->n];
	uint64_t off = t->offset;
	uint32_t line = t->line, col = t->col;
	unsigned depth = pc_jpull_depth(s->p);
	unsigned max_depth = pc_jpull_max_depth(s->p) - (depth - 1);
	size_t olen = js->olen, used, len;
	uint32_t nx = b->nx;
	const char *text;
	int err;

	r->off = off;
	r->text = NULL;
	r->len = 0;
	r->a0 = 0;
	pc_jpull_window(s->p, &text, &len);
	if (len && scan_event(s, &r->e, text, len, max_depth, &used) == 0) {
		len = used;
		pc_jpull_consume_object(s->p, used, js->nl);
	} else {
		js->olen = olen;
		b->nx = nx;
		err = pc_jpull_raw_rest(s->p, &text, &len, EVENT_MAX);
		if (err)
			return err;
		err = scan_event(s, &r->e, text, len, max_depth, NULL);
		if (err == PC_JSCAN_BAD) {
			err = pc_jpull_recheck(s->p, text, len, off, line, col, depth);
			if (!err)
				err = pc_fail_at(s->ctx, PROFCONV_ERR_INTERNAL,
						 pc_input_name(pc_jpull_input(s->p)), off,
						 "the event scanner refused an event the tokenizer accepts");
			return err;
		}
		if (err)
			return err;
	}
	if (keeps_text(js, &r->e)) {
		size_t at = js->olen;

		r->len = (uint32_t)len; /* (at most EVENT_MAX) */
		err = pc_jscan_put(js, text, len);
		if (err)
			return err;
		r->text = pc_jscan_at(js, at);
	} else if (r->e.args_later && !s->lean) {
		err = pre_args(s, b, r, text);
		if (err)
			return err;
	}
	b->n++;
	return 0;
}

/* a[0..n) and b[0..n) hold the same bytes (n >= 8), inline: the first and
 * last 8 bytes, 16 at a time in longer ones (cats are of 8 to 63). */
static inline int same8(const char *a, const char *b, size_t n)
{
	uint64_t x, y, u, v;
	size_t i;

	if (n <= 16) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(&u, a + n - 8, 8);
		memcpy(&v, b + n - 8, 8);
		return !((x ^ y) | (u ^ v));
	}
#ifdef PC_JSCAN_SSE2
	for (i = 0; i + 16 < n; i += 16)
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
						     _mm_loadu_si128((const __m128i *)(const void *)(b + i)))) !=
		    0xffff)
			return 0;
	return _mm_movemask_epi8(
		       _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
				      _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16)))) == 0xffff;
#else
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&u, a + n - 8, 8);
	memcpy(&v, b + n - 8, 8);
	return u == v;
#endif
}

#define CAT_RECENT 4 /* batch_hash()'s cats */

/*
 * The cats' keys of the reader's memo and payload cache (pc_chrome_hash()),
 * worked out on the scanner's thread when it is ahead, else on the
 * reader's (the names' and the args texts' are worked out as they are
 * scanned).  A cat the same as one of the last CAT_RECENT the batch hashed
 * (95 % of a real trace's: a few cats take turns) takes its hash: their
 * bytes do not move.
 */
static void batch_hash(struct cbatch *b)
{
	struct {
		const char *s;
		size_t len; /* 0: none yet */
		uint64_t h;
	} rc[CAT_RECENT];
	unsigned next = 0, k;
	uint32_t i;

	for (k = 0; k < CAT_RECENT; k++)
		rc[k].len = 0;
	for (i = 0; i < b->n; i++) {
		struct cev *e = &b->ev[i].e;
		const char *c;
		size_t n;

		if (e->cat.kind != CJ_STR)
			continue;
		c = e->cat.s;
		n = e->cat.len;
		if (n < 8) {
			e->hcat = pc_chrome_hash(c, n);
			continue;
		}
		for (k = 0; k < CAT_RECENT; k++)
			if (rc[k].len == n && same8(rc[k].s, c, n))
				break;
		if (k == CAT_RECENT) {
			k = next;
			next = (next + 1) % CAT_RECENT;
			rc[k].s = c;
			rc[k].len = n;
			rc[k].h = pc_chrome_hash(c, n);
		}
		e->hcat = rc[k].h;
	}
}

/*
 * A batch's scratch that pc_jscan_grow() replaced: kept until the batch is
 * filled again, since its events point into it (keep_old of struct
 * pc_jscan).
 */
static int keep_old(void *arg, char *old)
{
	struct cbatch *b = arg;

	if (b->nold == PC_ARRAY_SIZE(b->old))
		return PROFCONV_ERR_NOMEM; /* (cannot be: each scratch is twice the last,
					    * and a batch fills okb at most once) */
	b->old[b->nold++] = old;
	return 0;
}

static void free_old(struct profconv_ctx *ctx, struct cbatch *b)
{
	while (b->nold)
		pc_free(ctx, b->old[--b->nold]);
}

/*
 * Fill b with the next events (the scanner's thread, or the reader's when
 * there is none).  The batch's scratch becomes the scanner's while it fills.
 */
static void batch_fill(struct cscan *s, struct cbatch *b)
{
	struct pc_jscan *js = &s->js;
	const struct pc_jtok *t;
	int err = 0;

	b->n = 0;
	b->nx = 0;
	b->nargs = 0;
	b->end = 0;
	b->err = 0;
	free_old(s->ctx, b); /* (the reader is done with them) */
	if (b->scap < SCRATCH_BYTES) {
		/* room for the batch up front: its strings do not move */
		pc_free(s->ctx, b->scratch);
		b->scap = 0;
		b->scratch = pc_alloc(s->ctx, SCRATCH_BYTES);
		if (b->scratch)
			b->scap = SCRATCH_BYTES;
		else
			err = PROFCONV_ERR_NOMEM;
	}
	js->out = b->scratch;
	js->ocap = b->scap;
	js->olen = 0;
	js->keep_old = keep_old;
	js->keep_arg = b;
	if (!err && !b->ev) {
		b->ev = pc_alloc(s->ctx, BATCH_EVENTS * sizeof(*b->ev));
		if (!b->ev)
			err = PROFCONV_ERR_NOMEM;
	}
	if (!err && !b->xs) {
		b->xs = pc_alloc(s->ctx, BATCH_EVENTS * sizeof(*b->xs));
		if (!b->xs)
			err = PROFCONV_ERR_NOMEM;
	}
	s->cur = b;
	while (!err && b->n < BATCH_EVENTS && js->olen < BATCH_BYTES &&
	       !__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		t = pc_jpull_next_object(s->p);
		if (!t) {
			err = pc_jpull_next(s->p, &t);
			if (err)
				break;
		}
		if (t->type == PC_JT_ARR_END) {
			b->end = 1;
			break;
		}
		if (t->type != PC_JT_OBJ_BEGIN) {
			err = pc_jr_corrupt(s->ctx, s->p, t, "expected an event object, got %s",
					    pc_jr_type_name(t->type));
			break;
		}
		err = scan_one(s, b, t);
	}
	if (err) {
		b->end = 1;
		b->err = err;
	}
	b->scratch = js->out;
	b->scap = js->ocap;
	js->out = NULL;
	js->ocap = 0;
	js->keep_old = NULL;
	pc_input_progress(pc_jpull_input(s->p), &b->done, &b->total);
	b->hashed = !s->lean;
	if (b->hashed)
		batch_hash(b);
}

/* --- the thread and the ring --- */

static void *scan_thread(void *arg)
{
	struct cscan *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct cbatch *b;

		while (!s->stop && !s->ended && s->full == NBATCH)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->stop || s->ended)
			break;
		b = &s->b[s->fill % NBATCH];
		s->lean = s->lean_env >= 0 ? s->lean_env : s->full <= LEAN_FULL;
		pthread_mutex_unlock(&s->mu);
		batch_fill(s, b);
		pthread_mutex_lock(&s->mu);
		s->fill++;
		s->full++;
		s->ended = b->end;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int pc_chrome_scan_begin(struct profconv_ctx *ctx, struct pc_jpull *p, struct cscan **out)
{
	struct cscan *s = pc_calloc(ctx, 1, sizeof(*s));
	const char *env;
	unsigned i;

	*out = NULL;
	if (!s)
		return PROFCONV_ERR_NOMEM;
	s->rctx = ctx;
	s->p = p;
	s->ctx = pc_ctx_worker(ctx);
	if (!s->ctx) {
		pc_free(ctx, s);
		return pc_fail(ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	}
	pc_jscan_init(&s->js, s->ctx);
	pc_jpull_set_ctx(p, s->ctx);
	env = getenv("PROFCONV_CHROME_LEAN");
	s->lean_env = env && *env ? *env != '0' : -1;
	s->h_empty = pc_chrome_hash("{}", 2);
	for (i = 0; i < K_COUNT; i++)
		s->guess[i].mask = ~(uint64_t)0; /* (and w 0: nothing guessed) */
	*out = s;
	if (!pc_input_any_thread(pc_jpull_input(p)) || ctx->opt.no_threads)
		return 0;
	if (pthread_mutex_init(&s->mu, NULL))
		return 0;
	if (pthread_cond_init(&s->cv, NULL)) {
		pthread_mutex_destroy(&s->mu);
		return 0;
	}
	if (pthread_create(&s->th, NULL, scan_thread, s)) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		return 0;
	}
	s->threaded = 1;
	return 0;
}

struct cbatch *pc_chrome_scan_next(struct cscan *s)
{
	struct cbatch *b;

	if (!s->threaded) {
		b = &s->b[0];
		if (s->ended)
			return NULL;
		s->lean = s->lean_env > 0;
		batch_fill(s, b);
		s->ended = b->end;
		if (!b->hashed)
			batch_hash(b);
		return b;
	}
	pthread_mutex_lock(&s->mu);
	if (s->held) { /* the reader is done with the last one */
		s->held = 0;
		s->full--;
		pthread_cond_broadcast(&s->cv);
	}
	while (!s->full && !s->ended)
		pthread_cond_wait(&s->cv, &s->mu);
	b = NULL;
	if (s->full) {
		b = &s->b[s->take % NBATCH];
		s->take++;
		s->held = 1;
	}
	pthread_mutex_unlock(&s->mu);
	if (b && !b->hashed)
		batch_hash(b);
	return b;
}

int pc_chrome_scan_end(struct cscan *s)
{
	unsigned i;
	int err;

	if (!s)
		return 0;
	if (s->threaded) {
		pthread_mutex_lock(&s->mu);
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED); /* batch_fill() looks too */
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
	}
	for (i = 0; i < NBATCH; i++) {
		pc_free(s->ctx, s->b[i].ev);
		pc_free(s->ctx, s->b[i].xs);
		pc_free(s->ctx, s->b[i].scratch);
		free_old(s->ctx, &s->b[i]);
		pc_free(s->ctx, s->b[i].args);
	}
	pc_free(s->ctx, s->seen);
	pc_free(s->ctx, s->ok);
	pc_free(s->ctx, s->okrr);
	pc_free(s->ctx, s->okb);
	pc_jscan_free(&s->js);
	pc_jpull_set_ctx(s->p, s->rctx);
	err = pc_ctx_adopt(s->rctx, s->ctx);
	profconv_ctx_free(s->ctx);
	pc_free(s->rctx, s);
	return err;
}
