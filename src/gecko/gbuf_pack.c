/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gbuf_pack.c - write a PGKB dump (docs/formats/gecko-buffer-dump.md) from
 * a memory scrape of a Firefox process: the profiler's chunks, the strings
 * behind the pointers they hold, the threads, /proc/PID/maps and the
 * observed marker tag map.
 *
 * A scrape knows nothing of the producer's tables, so the entry-kind table
 * and the category list written are those of Firefox ESR 153 (the release
 * the scrapes come from; ProfileBufferEntryKinds.h and the category list of
 * its shutdown profiles), and marker types carry names but no field lists.
 *
 * The dump is built in memory (the buffer is a few MiB to a few dozen; the
 * ctx memory limit applies) and written once, through the output layer, so
 * a failed run never leaves a partial file.
 *
 * gecko/ is a producer layer: it includes core/, io/ and json/ (cJSON for
 * the small side files), never readers/ or writers/.
 */
#include "core/pc_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "gecko/pc_gbuf_pack.h"
#include "gecko/pc_pgkb.h"
#include "io/pc_input.h"
#include "io/pc_output.h"

#define SMALL_MAX (64u << 20) /* side files: more is not a scrape */
#define CHUNK_HEADER 56
#define CHUNK_MAX (1u << 30)

/* --- a growing byte buffer --- */

struct wbuf {
	struct profconv_ctx *ctx;
	unsigned char *p;
	size_t len, cap;
	int err;
};

static void wb_put(struct wbuf *b, const void *s, size_t n)
{
	if (b->err || n == 0)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *np;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->err = pc_fail(b->ctx, PROFCONV_ERR_NOMEM, NULL, "dump too large");
				return;
			}
			cap *= 2;
		}
		np = pc_realloc(b->ctx, b->p, cap);
		if (!np) {
			b->err = b->ctx->status ? b->ctx->status : PROFCONV_ERR_NOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void wb_u8(struct wbuf *b, uint8_t v)
{
	wb_put(b, &v, 1);
}

static void wb_u16(struct wbuf *b, uint16_t v)
{
	unsigned char q[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	wb_put(b, q, 2);
}

static void wb_u32(struct wbuf *b, uint32_t v)
{
	unsigned char q[4];
	int i;

	for (i = 0; i < 4; i++)
		q[i] = (unsigned char)(v >> (8 * i));
	wb_put(b, q, 4);
}

static void wb_u64(struct wbuf *b, uint64_t v)
{
	unsigned char q[8];
	int i;

	for (i = 0; i < 8; i++)
		q[i] = (unsigned char)(v >> (8 * i));
	wb_put(b, q, 8);
}

static void wb_f64(struct wbuf *b, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	wb_u64(b, v);
}

static void wb_uleb(struct wbuf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		wb_u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void wb_strn(struct wbuf *b, const char *s, size_t n)
{
	wb_uleb(b, n);
	wb_put(b, s, n);
}

static void wb_str(struct wbuf *b, const char *s)
{
	wb_strn(b, s ? s : "", s ? strlen(s) : 0);
}

/* Append section (fourcc, body) to the file buffer. */
static void wb_section(struct wbuf *f, uint32_t fourcc, const struct wbuf *body, uint64_t *count)
{
	if (body->err) {
		f->err = body->err;
		return;
	}
	wb_u32(f, fourcc);
	wb_u32(f, 0);
	wb_u64(f, body->len);
	wb_put(f, body->p, body->len);
	(*count)++;
}

/* --- reading the side files --- */

/* The whole (decompressed) file, at most max bytes; NUL-terminated. */
static int slurp(struct profconv_ctx *ctx, const char *path, size_t max, unsigned char **out,
		 size_t *outlen)
{
	struct pc_input *in;
	struct wbuf b = { ctx, NULL, 0, 0, 0 };
	int err;

	*out = NULL;
	*outlen = 0;
	err = pc_input_open_path(ctx, path, &in);
	if (err)
		return err;
	for (;;) {
		unsigned char tmp[65536];
		size_t got = 0;

		err = pc_input_read(in, tmp, sizeof(tmp), &got);
		if (err)
			break;
		if (got > max - b.len) {
			err = pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL,
				      "%s: larger than %zu bytes; not a scrape file", path, max);
			break;
		}
		wb_put(&b, tmp, got);
		if (b.err) {
			err = b.err;
			break;
		}
		if (got < sizeof(tmp))
			break;
	}
	pc_input_close(in);
	if (!err) {
		wb_u8(&b, 0);
		err = b.err;
	}
	if (err) {
		pc_free(ctx, b.p);
		return err;
	}
	*out = b.p;
	*outlen = b.len - 1;
	return 0;
}

/* Prefix + suffix into buf; 0 or a usage error. */
static int side_path(struct profconv_ctx *ctx, char *buf, size_t size, const char *prefix,
		     const char *suffix)
{
	if (pc_snprintf(buf, size, "%s%s", prefix, suffix) >= size - 1)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "scrape prefix too long: %s", prefix);
	return 0;
}

/* An optional side file: missing is a counted warning and leaves *out NULL. */
static int slurp_optional(struct profconv_ctx *ctx, const char *prefix, const char *suffix,
			  unsigned char **out, size_t *len, char *used, size_t used_size)
{
	char path[4096];
	int err = side_path(ctx, path, sizeof(path), prefix, suffix);

	*out = NULL;
	*len = 0;
	if (err)
		return err;
	if (access(path, R_OK) != 0) {
		char xz[4200];

		/* the compressed form is read as well (content decides) */
		pc_snprintf(xz, sizeof(xz), "%s.xz", path);
		if (access(xz, R_OK) != 0)
			return pc_warn(ctx, "scrape side files missing", NULL,
				       "%s: missing; the dump goes without it", path);
		pc_snprintf(used, used_size, "%s", xz);
		return slurp(ctx, xz, SMALL_MAX, out, len);
	}
	pc_snprintf(used, used_size, "%s", path);
	return slurp(ctx, path, SMALL_MAX, out, len);
}

/* A text side file holds no NUL byte (it would end the text there, unseen). */
static int side_text(struct profconv_ctx *ctx, const char *file, const unsigned char *text,
		     size_t len, const char *expected)
{
	const unsigned char *nul = text ? memchr(text, 0, len) : NULL;

	if (!nul)
		return 0;
	return pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, file, (uint64_t)(nul - text),
			  "a NUL byte: expected text (%s)", expected);
}

/* --- the ESR 153 tables --- */

/* ProfileBufferEntryKinds.h as built into Firefox ESR 153 (SourceId at 9). */
static const struct {
	uint8_t tag;
	const char *name;
	uint8_t size;
} esr153_kinds[] = {
	{ 1, "CategoryPair", 4 },	    { 2, "CollectionStart", 8 },
	{ 3, "CollectionEnd", 8 },	    { 4, "Label", 8 },
	{ 5, "FrameFlags", 8 },		    { 6, "DynamicStringFragment", 8 },
	{ 7, "JitReturnAddr", 8 },	    { 8, "InnerWindowID", 8 },
	{ 9, "SourceId", 4 },		    { 10, "LineNumber", 4 },
	{ 11, "ColumnNumber", 4 },	    { 12, "NativeLeafAddr", 8 },
	{ 13, "Pause", 8 },		    { 14, "Resume", 8 },
	{ 15, "PauseSampling", 8 },	    { 16, "ResumeSampling", 8 },
	{ 17, "Responsiveness", 8 },	    { 18, "ThreadId", 8 },
	{ 19, "Time", 8 },		    { 20, "TimeBeforeCompactStack", 8 },
	{ 21, "TimeBeforeSameSample", 8 },  { 22, "CounterId", 8 },
	{ 23, "Number", 8 },		    { 24, "Count", 8 },
	{ 25, "ProfilerOverheadTime", 8 },  { 26, "ProfilerOverheadDuration", 8 },
	{ 27, "Marker", PGKB_MODERN_SIZE }, { 28, "RunningTimes", PGKB_MODERN_SIZE },
	{ 29, "UnresponsiveDurationMs", PGKB_MODERN_SIZE },
	{ 30, "CompactStack", PGKB_MODERN_SIZE },
	{ 31, "SameSample", PGKB_MODERN_SIZE },
};
#define ESR153_LEGACY_LIMIT 27

/* The category list of ESR 153 profiles: name, colour, subcategories ('|'-separated). */
static const char *const esr153_cats[][3] = {
	{ "Idle", "transparent", "Other" },
	{ "Other", "grey", "Other|Preference Read|Profiling" },
	{ "Test", "darkgray", "Test" },
	{ "Layout", "purple",
	  "Other|Frame construction|Reflow|CSS parsing|Selector query|Style computation|"
	  "Layout cleanup|Printing" },
	{ "JavaScript", "yellow",
	  "Other|Parsing|JIT Compile (baseline)|JIT Compile (ion)|Interpreter|"
	  "JIT (baseline-interpreter)|JIT (baseline)|JIT (ion)|Builtin API|Wasm (ion)|"
	  "Wasm (baseline)|Wasm (other)" },
	{ "GC / CC", "orange",
	  "Other|Minor GC|Major GC (Other)|Major GC (Mark)|Major GC (Sweep)|Major GC (Compact)|"
	  "Unmark Gray|Barrier|CC (Free Snow White)|CC (Build Graph)|CC (Scan Roots)|"
	  "CC (Collect White)|CC (Finalize)" },
	{ "Network", "lightblue", "Other" },
	{ "Graphics", "green",
	  "Other|DisplayList building|DisplayList merging|Layer building|Tile allocation|"
	  "WebRender display list|Rasterization|Flushing async paints|Image decoding|WebGPU|"
	  "VSync triggered animation" },
	{ "DOM", "blue", "Other" },
	{ "Android", "yellow", "Other" },
	{ "AndroidX", "orange", "Other" },
	{ "Java", "blue", "Other" },
	{ "Mozilla", "green", "Other" },
	{ "Kotlin", "purple", "Other" },
	{ "Blocked", "lightblue", "Other" },
	{ "Mailnews", "brown", "Other" },
	{ "IPC", "lightgreen", "Other" },
	{ "Media", "orange", "Other|Cubeb|Playback|Real-time rendering" },
	{ "Accessibility", "brown", "Other" },
	{ "Profiler", "lightred", "Other" },
	{ "Timer", "grey", "Other" },
	{ "Remote-Protocol", "grey", "Other" },
	{ "Sandbox", "grey", "Other" },
	{ "Telemetry", "grey", "Other" },
	{ "ML", "magenta", "Other|Inference|Setup" },
	{ "Logs", "lightblue", "Other" },
};

static void put_kinds(struct wbuf *b)
{
	size_t i;

	wb_uleb(b, PC_ARRAY_SIZE(esr153_kinds));
	for (i = 0; i < PC_ARRAY_SIZE(esr153_kinds); i++) {
		wb_u8(b, esr153_kinds[i].tag);
		wb_str(b, esr153_kinds[i].name);
		wb_u8(b, esr153_kinds[i].size);
	}
	wb_u8(b, ESR153_LEGACY_LIMIT);
}

static void put_cats(struct wbuf *b)
{
	size_t i;

	wb_uleb(b, PC_ARRAY_SIZE(esr153_cats));
	for (i = 0; i < PC_ARRAY_SIZE(esr153_cats); i++) {
		const char *s = esr153_cats[i][2];
		uint64_t n = 1;
		const char *q;

		wb_str(b, esr153_cats[i][0]);
		wb_str(b, esr153_cats[i][1]);
		for (q = s; *q; q++)
			n += *q == '|';
		wb_uleb(b, n);
		for (;;) {
			q = strchr(s, '|');
			wb_strn(b, s, q ? (size_t)(q - s) : strlen(s));
			if (!q)
				break;
			s = q + 1;
		}
	}
}

/* --- the side files --- */

/*
 * What a side file of lines held: lines that are what was expected, lines
 * that are not (the first one's number kept), blank lines aside.
 */
struct side_lines {
	const char *file; /* for messages */
	uint64_t good, bad;
	uint32_t lineno, first_bad;
};

static void side_line(struct side_lines *sl, int good)
{
	if (good) {
		sl->good++;
	} else {
		sl->bad++;
		if (!sl->first_bad)
			sl->first_bad = sl->lineno;
	}
}

/*
 * The verdict on a side file: empty is a counted warning (the dump goes
 * without what it gives, as when it is missing); some lines unreadable, a
 * counted warning naming the first; no line readable at all, an error (not
 * such a file).  --strict makes the warnings fatal.
 */
static int side_verdict(struct profconv_ctx *ctx, const struct side_lines *sl,
			const char *expected, const char *lost)
{
	struct pc_loc loc = { sl->file, PC_NO_OFFSET, sl->first_bad, 1 };

	if (!sl->good && !sl->bad)
		return pc_warn(ctx, "scrape side files empty", NULL,
			       "%s: empty; the dump goes without %s", sl->file, lost);
	if (!sl->good)
		return pc_fail(ctx, PROFCONV_ERR_CORRUPT, &loc,
			       "expected %s; no line of the file is one", expected);
	if (sl->bad)
		return pc_warn_n(ctx, "scrape side file lines unreadable", sl->bad, &loc,
				 "expected %s; %llu of %llu lines left out (%s missing from the dump)",
				 expected, (unsigned long long)sl->bad,
				 (unsigned long long)(sl->bad + sl->good), lost);
	return 0;
}

static int is_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/*
 * PREFIX.threads: "tid comm" lines (a decimal thread id from 1 to 2^31-1, a
 * space, the name).  *pid: the first tid when it was 0 (the process id).
 */
static int put_threads(struct wbuf *b, const char *text, const char *file, uint64_t *pid,
		       const struct pc_pgkb_parts *in)
{
	struct wbuf rows = { b->ctx, NULL, 0, 0, 0 };
	struct side_lines sl = { file, 0, 0, 0, 0 };
	const char *s = text;
	int err;

	while (s && *s) {
		const char *eol = strchr(s, '\n');
		size_t linelen = eol ? (size_t)(eol - s) : strlen(s);
		char *end;
		unsigned long long tid;

		sl.lineno++;
		if (is_blank(s, linelen)) {
			s = eol ? eol + 1 : NULL;
			continue;
		}
		tid = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
		if (tid && tid <= 0x7fffffff && (size_t)(end - s) + 1 < linelen && *end == ' ') {
			const char *name = end + 1;
			size_t nlen = linelen - (size_t)(name - s);

			if (nlen && name[nlen - 1] == '\r')
				nlen--;
			if (!*pid)
				*pid = tid;
			wb_u64(&rows, tid);
			/* Gecko registers the main thread as GeckoMain whatever its comm */
			if (tid == *pid)
				wb_str(&rows, "GeckoMain");
			else
				wb_strn(&rows, name, nlen);
			wb_u8(&rows, tid == *pid);
			{
				double reg = 0.0;
				size_t k;

				for (k = 0; k < in->ntreg; k++)
					if (in->treg[k].tid == tid)
						reg = in->treg[k].register_ms;
				wb_f64(&rows, reg);
			}
			wb_f64(&rows, NAN);
			wb_u8(&rows, 0);
			side_line(&sl, 1);
		} else {
			side_line(&sl, 0);
		}
		s = eol ? eol + 1 : NULL;
	}
	err = side_verdict(b->ctx, &sl, "'TID NAME' (a thread id, a space, its name)",
			   "thread names");
	wb_uleb(b, sl.good);
	wb_put(b, rows.p, rows.len);
	if (rows.err)
		b->err = rows.err;
	pc_free(b->ctx, rows.p);
	return err;
}

/* rwxp-style permissions: 4 characters, each its letter or '-'. */
static int maps_perms(const char *p)
{
	return strlen(p) == 4 && (p[0] == 'r' || p[0] == '-') && (p[1] == 'w' || p[1] == '-') &&
	       (p[2] == 'x' || p[2] == '-') && (p[3] == 'p' || p[3] == 's');
}

/* PREFIX.maps: /proc/PID/maps; executable mappings of files become libs. */
static int put_libs(struct wbuf *b, const char *text, const char *file,
		    const struct pc_pgkb_buildid *ids, size_t nids, const struct pc_pgkb_parts *in)
{
	struct wbuf rows = { b->ctx, NULL, 0, 0, 0 };
	struct side_lines sl = { file, 0, 0, 0, 0 };
	const char *s = text;
	uint64_t n = 0;
	int err;

	while (s && *s) {
		const char *eol = strchr(s, '\n');
		char line[4352], perms[8], path[4096];
		unsigned long long start, end, off;
		size_t linelen = eol ? (size_t)(eol - s) : strlen(s);
		int k;

		sl.lineno++;
		if (is_blank(s, linelen)) {
			s = eol ? eol + 1 : NULL;
			continue;
		}
		if (linelen >= sizeof(line) || *s < '0' || (*s > '9' && (*s | 0x20) < 'a') ||
		    (*s | 0x20) > 'f') {
			side_line(&sl, 0);
			s = eol ? eol + 1 : NULL;
			continue;
		}
		memcpy(line, s, linelen);
		line[linelen] = 0;
		path[0] = 0;
		k = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   path);
		if (k < 4 || end <= start || !maps_perms(perms)) {
			side_line(&sl, 0);
		} else {
			side_line(&sl, 1);
			if (k == 5 && perms[2] == 'x' && path[0] == '/') {
				const char *base = strrchr(path, '/') + 1;
				const struct pc_pgkb_buildid *id = NULL;
				size_t j;

				for (j = 0; j < nids && !id; j++)
					if (!strcmp(ids[j].path, path))
						id = &ids[j];

				wb_u64(&rows, start);
				wb_u64(&rows, end);
				wb_u64(&rows, off);
				wb_str(&rows, base);
				wb_str(&rows, path);
				wb_str(&rows, base);
				wb_str(&rows, path);
				wb_str(&rows, id ? id->breakpad_id : "");
				wb_str(&rows, id ? id->code_id : "");
				wb_str(&rows, "");
				n++;
			}
		}
		s = eol ? eol + 1 : NULL;
	}
	err = side_verdict(b->ctx, &sl, "a /proc/PID/maps line (START-END PERMS OFFSET DEV INODE [PATH])",
			   "libraries");
	if (in->vdso_end > in->vdso_start) {
		/* the kernel's image read from the process (SYMS names its code) */
		wb_u64(&rows, in->vdso_start);
		wb_u64(&rows, in->vdso_end);
		wb_u64(&rows, 0);
		wb_str(&rows, "[vdso]");
		wb_str(&rows, "[vdso]");
		wb_str(&rows, "[vdso]");
		wb_str(&rows, "[vdso]");
		wb_str(&rows, in->vdso_id ? in->vdso_id->breakpad_id : "");
		wb_str(&rows, in->vdso_id ? in->vdso_id->code_id : "");
		wb_str(&rows, "");
		n++;
	}
	wb_uleb(b, n);
	wb_put(b, rows.p, rows.len);
	if (rows.err)
		b->err = rows.err;
	pc_free(b->ctx, rows.p);
	return err;
}

static int json_fail(struct profconv_ctx *ctx, const char *prefix, const char *suffix,
		     const char *what)
{
	return pc_fail(ctx, PROFCONV_ERR_CORRUPT, NULL, "%s%s: %s", prefix, suffix, what);
}

/* Strings a live capture read: (address, text) pairs. */
static void put_string_pairs(struct wbuf *b, const struct pc_pgkb_str *s, size_t n)
{
	size_t i;

	wb_uleb(b, n);
	for (i = 0; i < n; i++) {
		wb_u64(b, s[i].addr);
		wb_str(b, s[i].text);
	}
}

/* PREFIX.strings.json: {"0x<hex>": "text", ...}. */
static int put_strings(struct wbuf *b, const char *text, const char *prefix)
{
	cJSON *root = cJSON_Parse(text), *it;
	uint64_t n = 0;

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return json_fail(b->ctx, prefix, ".strings.json",
				 "expected a JSON object of \"0x<address>\": string");
	}
	cJSON_ArrayForEach(it, root)
		n += cJSON_IsString(it) && it->string;
	wb_uleb(b, n);
	cJSON_ArrayForEach(it, root)
	{
		if (!cJSON_IsString(it) || !it->string)
			continue;
		wb_u64(b, strtoull(it->string, NULL, 16));
		wb_str(b, it->valuestring);
	}
	cJSON_Delete(root);
	return 0;
}

/*
 * C++ marker types whose serialized arguments were checked byte for byte
 * against the paired shutdown profile of an ESR 153 scrape (each field's
 * value equals the JSON's): their field lists are complete.  Types whose
 * JSON is computed from the arguments (enums named, fields left out when
 * zero: Preference, Awake, Url, Hist, ...) are not listed: their payloads
 * stay {type}.
 */
static const struct {
	const char *type;
	const char *key; /* NULL: no fields */
	uint8_t serial;
} esr153_fields[] = {
	{ "Text", "name", PGKB_S_STR8VIEW },
	{ "TextStack", "name", PGKB_S_STR8VIEW },
	{ "FlowMarker", "flow", PGKB_S_FLOW },
	{ "FlowStackMarker", "flow", PGKB_S_FLOW },
	{ "TerminatingFlowMarker", "terminatingFlow", PGKB_S_FLOW },
	{ "StackMarker", NULL, 0 },
	{ "NoPayloadUserData", NULL, 0 },
};

static void put_type_fields(struct wbuf *b, unsigned ptype, const char *name)
{
	size_t i;

	for (i = 0; ptype == 0 && i < PC_ARRAY_SIZE(esr153_fields); i++) {
		if (strcmp(esr153_fields[i].type, name) != 0)
			continue;
		wb_u8(b, 1); /* complete */
		if (!esr153_fields[i].key) {
			wb_uleb(b, 0);
			return;
		}
		wb_uleb(b, 1);
		wb_str(b, esr153_fields[i].key);
		wb_u8(b, esr153_fields[i].serial);
		wb_u8(b, 0);
		wb_str(b, esr153_fields[i].key);
		wb_str(b, esr153_fields[i].serial == PGKB_S_FLOW ? "flow-id" : "string");
		wb_u8(b, esr153_fields[i].serial != PGKB_S_FLOW);
		return;
	}
	wb_u8(b, 0); /* field list unknown (a scrape has none) */
	wb_uleb(b, 0);
}

/* PREFIX.tagmap.json: {"tag/ptype": {"TypeName": count, ...}}: the commonest name. */
static int put_tagmap(struct wbuf *b, const char *text, const char *prefix)
{
	cJSON *root = cJSON_Parse(text), *it, *ty;
	struct wbuf rows = { b->ctx, NULL, 0, 0, 0 };
	uint64_t n = 0;

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return json_fail(b->ctx, prefix, ".tagmap.json",
				 "expected a JSON object of \"tag/type\": {name: count}");
	}
	cJSON_ArrayForEach(it, root)
	{
		unsigned tag, ptype;
		const char *best = NULL;
		double bestn = -1;
		char extra;

		if (!it->string || sscanf(it->string, "%u/%u%c", &tag, &ptype, &extra) != 2 ||
		    tag == 0 || tag > 255 || ptype > 1 || !cJSON_IsObject(it))
			continue;
		cJSON_ArrayForEach(ty, it)
		{
			if (cJSON_IsNumber(ty) && ty->string && ty->valuedouble > bestn) {
				best = ty->string;
				bestn = ty->valuedouble;
			}
		}
		if (!best)
			continue;
		wb_u8(&rows, (uint8_t)ptype);
		wb_u8(&rows, (uint8_t)tag);
		wb_str(&rows, best);
		put_type_fields(&rows, ptype, best);
		wb_str(&rows, "");
		n++;
	}
	cJSON_Delete(root);
	wb_uleb(b, n);
	wb_put(b, rows.p, rows.len);
	if (rows.err)
		b->err = rows.err;
	pc_free(b->ctx, rows.p);
	return 0;
}

/* --- the chunks --- */

struct chunk {
	uint32_t off_first, off_past, bytes, blocks;
	uint64_t start_ts, range_start;
	const unsigned char *buf;
};

/*
 * PREFIX.chunks: 56-byte headers each followed by its buffer.  The longest
 * run of chunks contiguous in Gecko's index space becomes BUFR.
 */
static int put_buffer(struct profconv_ctx *ctx, struct wbuf *b, const unsigned char *data,
		      size_t len, const char *path, uint64_t *first_ts)
{
	struct chunk *ch = NULL;
	uint32_t nch = 0, cap = 0, i, best = 0, bestn = 0, run = 0;
	size_t off = 0;
	uint64_t total = 0, pushed = 0;
	int err = 0;

	while (off < len) {
		struct chunk c;
		const unsigned char *h = data + off;

		if (len - off < CHUNK_HEADER) {
			err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT_TRUNCATED, path, off,
					 "a 56-byte chunk header expected, %zu bytes left", len - off);
			break;
		}
		c.off_first = pc_load_u32(h, 0);
		c.off_past = pc_load_u32(h + 4, 0);
		c.start_ts = pc_load_u64(h + 8, 0);
		c.bytes = pc_load_u32(h + 24, 0);
		c.blocks = pc_load_u32(h + 28, 0);
		c.range_start = pc_load_u64(h + 32, 0);
		if (c.bytes == 0 || c.bytes > CHUNK_MAX || c.bytes > len - off - CHUNK_HEADER) {
			err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT_BAD_SIZE, path, off + 24,
					 "chunk buffer size %u does not fit in the %zu bytes left",
					 c.bytes, len - off - CHUNK_HEADER);
			break;
		}
		if (c.off_first > c.off_past || c.off_past > c.bytes || c.range_start == 0) {
			err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, path, off,
					 "chunk header inconsistent (first block %u, past last %u, "
					 "size %u, range start %llu)",
					 c.off_first, c.off_past, c.bytes,
					 (unsigned long long)c.range_start);
			break;
		}
		c.buf = h + CHUNK_HEADER;
		if (pc_grow(ctx, (void **)&ch, sizeof(*ch), &cap, (size_t)nch + 1)) {
			err = PROFCONV_ERR_NOMEM;
			break;
		}
		ch[nch++] = c;
		off += CHUNK_HEADER + (size_t)c.bytes;
	}
	if (!err && nch == 0)
		err = pc_fail_at(ctx, PROFCONV_ERR_CORRUPT, path, 0, "no chunk in the file");
	if (err) {
		pc_free(ctx, ch);
		return err;
	}
	for (i = 0; i < nch; i++) {
		if (i == 0 || ch[i].range_start != ch[i - 1].range_start + ch[i - 1].bytes)
			run = 0;
		run++;
		if (run > bestn) {
			bestn = run;
			best = i + 1 - run;
		}
	}
	if (bestn < nch)
		err = pc_warn_n(ctx, "discontinuous chunks left out", nch - bestn, NULL,
				"%s: %u of %u chunks are not contiguous with the longest run; left out",
				path, nch - bestn, nch);
	for (i = best; i < best + bestn; i++) {
		uint32_t from = i == best ? ch[i].off_first : 0;

		total += ch[i].off_past - from;
		pushed += ch[i].blocks;
	}
	*first_ts = ch[best].start_ts;
	wb_uleb(b, total);
	if (total) {
		wb_u64(b, ch[best].range_start + ch[best].off_first);
		for (i = best; i < best + bestn; i++) {
			uint32_t from = i == best ? ch[i].off_first : 0;

			wb_put(b, ch[i].buf + from, ch[i].off_past - from);
		}
		wb_u64(b, pushed);
		wb_u64(b, 0);
	}
	pc_free(ctx, ch);
	return err ? err : b->err;
}

static void put_meta(struct wbuf *b, const struct pc_pgkb_parts *in, uint64_t pid,
		     uint64_t start_ticks, int estimated, const struct profconv_gecko_scrape_opts *o)
{
	wb_str(b, "Firefox");
	wb_str(b, in->version ? in->version : "");
	wb_str(b, in->build_id ? in->build_id : "");
	wb_str(b, in->source_stamp ? in->source_stamp : "");
	wb_u32(b, 0);
	wb_u64(b, pid);
	wb_u32(b, in->process_type_name ? in->process_type : 0);
	wb_str(b, in->process_type_name ? in->process_type_name : "default");
	wb_str(b, in->process_name ? in->process_name : "Parent Process");
	wb_f64(b, o && o->start_time_ms > 0 ? o->start_time_ms : 0.0);
	wb_u64(b, start_ticks);
	wb_f64(b, 1e6);
	wb_str(b, "CLOCK_MONOTONIC");
	wb_f64(b, NAN);
	wb_f64(b, NAN);
	wb_f64(b, o && o->interval_ms > 0 ? o->interval_ms : 0.0);
	wb_u32(b, 0);
	wb_uleb(b, 0);
	wb_uleb(b, 0);
	wb_str(b, "Linux");
	wb_str(b, "");
	wb_str(b, "x86_64-gcc3");
	wb_str(b, "");
	wb_str(b, "ns");
	wb_u8(b, estimated ? 1 : 0);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The JIT range holding a (in->jit sorted, not overlapping), or NULL. */
static const struct pc_pgkb_jit *jit_at(const struct pc_pgkb_parts *in, uint64_t a)
{
	size_t lo = 0, hi = in->njit;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < in->jit[mid].start)
			hi = mid;
		else if (a >= in->jit[mid].end)
			lo = mid + 1;
		else
			return &in->jit[mid];
	}
	return NULL;
}

/*
 * JITF from the JIT ranges read from the process: one buffer range (the
 * whole run) and every 8-byte value of the chunks (at any offset: entries
 * are packed) that falls in a range, with its range's label.  Values that
 * are no JitReturnAddr add rows no frame asks for.
 */
static int put_jit(struct wbuf *b, const struct pc_pgkb_parts *in)
{
	uint64_t *addr = NULL, lo = in->jit[0].start, hi = in->jit[in->njit - 1].end;
	size_t n = 0, cap = 0, k, i;

	for (k = 0; k + 8 <= in->chunks_len; k++) {
		uint64_t v = pc_load_u64(in->chunks + k, 0);

		if (v < lo || v >= hi || !jit_at(in, v))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			uint64_t *np;

			if (ncap > ((size_t)1 << 24))
				break; /* 16 M candidates: enough */
			np = pc_realloc(b->ctx, addr, ncap * sizeof(*np));
			if (!np) {
				pc_free(b->ctx, addr);
				return b->ctx->status ? b->ctx->status : PROFCONV_ERR_NOMEM;
			}
			addr = np;
			cap = ncap;
		}
		addr[n++] = v;
	}
	if (n)
		qsort(addr, n, sizeof(*addr), u64_cmp);
	for (i = k = 0; i < n; i++)
		if (!k || addr[k - 1] != addr[i])
			addr[k++] = addr[i];
	n = k;
	wb_uleb(b, 1);
	wb_u64(b, 0);
	wb_u64(b, UINT64_MAX);
	wb_uleb(b, n);
	for (i = 0; i < n; i++) {
		const struct pc_pgkb_jit *j = jit_at(in, addr[i]);

		wb_u64(b, addr[i]);
		wb_uleb(b, 1);
		wb_str(b, j->label);
		wb_u8(b, j->impl);
		wb_u32(b, j->line);
		wb_u32(b, j->column);
		/* JavaScript / JIT (ion) or JIT (baseline) in the ESR 153 CATS table */
		wb_u32(b, j->impl == 1 ? 20 : 19);
	}
	pc_free(b->ctx, addr);
	return 0;
}

/* SYMS: the symbols of the image mapped at start (a LIBS row's). */
static void put_syms(struct wbuf *b, uint64_t start, const struct pc_pgkb_sym *s, size_t n)
{
	size_t i;

	wb_uleb(b, 1);
	wb_u64(b, start);
	wb_uleb(b, n);
	for (i = 0; i < n; i++) {
		wb_u64(b, s[i].offset);
		wb_u32(b, s[i].size);
		wb_str(b, s[i].name);
	}
}

static int file_write(void *user, const void *buf, size_t len)
{
	struct pc_output *o = user;

	return pc_output_sink()(o, buf, len);
}

/* The dump from its parts (docs/formats/gecko-buffer-dump.md), written once to out_path. */
int pc_pgkb_write(struct profconv_ctx *ctx, const struct pc_pgkb_parts *in,
		  const struct profconv_gecko_scrape_opts *opts, const char *out_path)
{
	struct wbuf file = { ctx, NULL, 0, 0, 0 }, sec = { ctx, NULL, 0, 0, 0 };
	struct wbuf meta = { ctx, NULL, 0, 0, 0 };
	uint64_t nsec = 0, pid = in->pid, first_ts = 0, start;
	struct pc_output out;
	int err = 0;

	/* header; section_count patched at the end */
	wb_put(&file, PGKB_MAGIC, 8);
	wb_u16(&file, PGKB_MAJOR);
	wb_u16(&file, PGKB_MINOR);
	wb_u8(&file, 8);
	wb_u8(&file, 8);
	wb_u8(&file, 8);
	wb_u8(&file, 0);
	wb_u64(&file, 0);

	if (in->threads) {
		err = put_threads(&sec, in->threads, in->threads_name ? in->threads_name : in->name,
				  &pid, in);
		if (err)
			goto out;
		wb_section(&file, PGKB_THRD, &sec, &nsec);
		sec.len = 0;
	}
	put_kinds(&sec);
	wb_section(&file, PGKB_KIND, &sec, &nsec);
	sec.len = 0;
	put_cats(&sec);
	wb_section(&file, PGKB_CATS, &sec, &nsec);
	sec.len = 0;
	if (in->maps) {
		err = put_libs(&sec, in->maps, in->maps_name ? in->maps_name : in->name, in->ids,
			       in->nids, in);
		if (err)
			goto out;
		wb_section(&file, PGKB_LIBS, &sec, &nsec);
		sec.len = 0;
	}
	if (in->strings_json || in->nstrs) {
		if (in->strings_json)
			err = put_strings(&sec, in->strings_json, in->name);
		else
			put_string_pairs(&sec, in->strs, in->nstrs);
		if (err)
			goto out;
		wb_section(&file, PGKB_STRS, &sec, &nsec);
		sec.len = 0;
	}
	if (in->tagmap_json) {
		err = put_tagmap(&sec, in->tagmap_json, in->name);
		if (err)
			goto out;
		wb_section(&file, PGKB_MTYP, &sec, &nsec);
		sec.len = 0;
	}
	if (in->njit) {
		err = put_jit(&sec, in);
		if (err)
			goto out;
		wb_section(&file, PGKB_JITF, &sec, &nsec);
		sec.len = 0;
	}
	if (in->nvdso_syms && in->vdso_end > in->vdso_start) {
		put_syms(&sec, in->vdso_start, in->vdso_syms, in->nvdso_syms);
		wb_section(&file, PGKB_SYMS, &sec, &nsec);
		sec.len = 0;
	}
	err = put_buffer(ctx, &sec, in->chunks, in->chunks_len, in->chunks_name, &first_ts);
	if (err)
		goto out;
	/* META last in the building, first in the file would need a copy: order is free */
	start = opts && opts->process_start_ns ? opts->process_start_ns : first_ts;
	put_meta(&meta, in, pid, start, in->start_estimated || !(opts && opts->process_start_ns), opts);
	wb_section(&file, PGKB_META, &meta, &nsec);
	wb_section(&file, PGKB_BUFR, &sec, &nsec);
	err = file.err;
	if (err)
		goto out;
	{
		int i;

		for (i = 0; i < 8; i++)
			file.p[16 + i] = (unsigned char)(nsec >> (8 * i));
	}
	err = pc_output_open(ctx, out_path, &out);
	if (!err)
		err = pc_output_close(&out, file_write(&out, file.p, file.len));
out:
	pc_free(ctx, file.p);
	pc_free(ctx, sec.p);
	pc_free(ctx, meta.p);
	return err;
}

int pc_scrape_opts(struct profconv_ctx *ctx, const struct profconv_gecko_scrape_opts *opts,
		   struct profconv_gecko_scrape_opts *out)
{
	size_t size, i;

	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	if (!opts)
		return 0;
	size = opts->size;
	if (size < sizeof(*out) || size > ((size_t)1 << 16))
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
			       "struct profconv_gecko_scrape_opts: size %zu, expected at least %zu (set it with PROFCONV_INIT)",
			       size, sizeof(*out));
	/* a newer caller's members this library does not know must be unset */
	for (i = sizeof(*out); i < size; i++)
		if (((const unsigned char *)opts)[i])
			return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				       "struct profconv_gecko_scrape_opts: options of a newer profconv set (byte %zu); this is %s",
				       i, PROFCONV_VERSION_STRING);
	memcpy(out, opts, sizeof(*out));
	return 0;
}

/* Is the output one of the scrape's files (one device and inode, links followed)? */
static int output_is_scrape_file(struct profconv_ctx *ctx, const char *prefix, const char *out_path)
{
	static const char *const sfx[] = { ".chunks",	    ".chunks.xz",	".strings.json",
					   ".strings.json.xz", ".threads",	".threads.xz",
					   ".maps",	       ".maps.xz",	".tagmap.json",
					   ".tagmap.json.xz" };
	struct stat so, si;
	char path[4200];
	size_t i;

	if (strcmp(out_path, "-") == 0 || stat(out_path, &so) != 0 || !S_ISREG(so.st_mode))
		return 0;
	for (i = 0; i < PC_ARRAY_SIZE(sfx); i++) {
		pc_snprintf(path, sizeof(path), "%s%s", prefix, sfx[i]);
		if (stat(path, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			pc_fail(ctx, PROFCONV_ERR_USAGE, NULL,
				"%s: is the scrape's file %s itself (the same file); writing the dump there would replace it: give another -o",
				out_path, path);
			return 1;
		}
	}
	return 0;
}

PROFCONV_API int profconv_gecko_dump_scrape(struct profconv_ctx *ctx, const char *prefix,
					    const struct profconv_gecko_scrape_opts *opts,
					    const char *out_path)
{
	unsigned char *chunks = NULL, *strs = NULL, *thr = NULL, *maps = NULL, *tags = NULL;
	size_t chunks_len, strs_len, thr_len, maps_len, tags_len;
	struct pc_pgkb_parts parts;
	char path[4096], thr_path[4200] = "", maps_path[4200] = "", other_path[4200];
	struct profconv_gecko_scrape_opts o;
	int err;

	if (!ctx)
		return PROFCONV_ERR_USAGE;
	pc_clear_error(ctx);
	if (!prefix || !out_path)
		return pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "a scrape prefix and an output path are needed");
	err = pc_scrape_opts(ctx, opts, &o);
	if (err)
		return err;
	opts = opts ? &o : NULL;
	err = side_path(ctx, path, sizeof(path), prefix, ".chunks");
	if (!err && access(path, R_OK) != 0) {
		char xz[4200];

		pc_snprintf(xz, sizeof(xz), "%s.xz", path);
		if (access(xz, R_OK) == 0)
			memcpy(path, xz, strlen(xz) + 1 < sizeof(path) ? strlen(xz) + 1 : 0);
	}
	if (!err && output_is_scrape_file(ctx, prefix, out_path))
		err = PROFCONV_ERR_USAGE;
	if (!err)
		err = pc_output_check(ctx, out_path);
	if (!err)
		err = slurp(ctx, path, SIZE_MAX - 1, &chunks, &chunks_len);
	if (!err)
		err = slurp_optional(ctx, prefix, ".strings.json", &strs, &strs_len, other_path,
				     sizeof(other_path));
	if (!err)
		err = slurp_optional(ctx, prefix, ".threads", &thr, &thr_len, thr_path,
				     sizeof(thr_path));
	if (!err)
		err = side_text(ctx, thr_path, thr, thr_len, "'TID NAME' lines");
	if (!err)
		err = slurp_optional(ctx, prefix, ".maps", &maps, &maps_len, maps_path,
				     sizeof(maps_path));
	if (!err)
		err = side_text(ctx, maps_path, maps, maps_len, "/proc/PID/maps lines");
	if (!err)
		err = slurp_optional(ctx, prefix, ".tagmap.json", &tags, &tags_len, other_path,
				     sizeof(other_path));
	if (!err) {
		memset(&parts, 0, sizeof(parts));
		parts.name = prefix;
		parts.chunks = chunks;
		parts.chunks_len = chunks_len;
		parts.chunks_name = path;
		parts.strings_json = (const char *)strs;
		parts.threads = (const char *)thr;
		parts.threads_name = thr_path;
		parts.maps = (const char *)maps;
		parts.maps_name = maps_path;
		parts.tagmap_json = (const char *)tags;
		err = pc_pgkb_write(ctx, &parts, opts, out_path);
	}
	pc_free(ctx, chunks);
	pc_free(ctx, strs);
	pc_free(ctx, thr);
	pc_free(ctx, maps);
	pc_free(ctx, tags);
	return err;
}
