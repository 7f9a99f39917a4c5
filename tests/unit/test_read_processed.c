/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_read_processed.c - the processed (v70) reader.
 *
 *   - round trip: every golden file in tests/golden (our own output) read and written
 *     again gives the same bytes, also with its top-level members reordered
 *     (threads before shared, meta last);
 *   - duplicate rows (strings, frames, funcs, stacks) keep their row numbers;
 *   - broken inputs fail with FILE:LINE:COL and the documented message;
 *   - counter times are exact to the ends of int64 ns;
 *   - payload numbers are read as the JSON has them, every digit, and
 *     written back the same;
 *   - samples' eventDelay and threadCPUDelta, pages and other meta and
 *     thread members are kept (docs/formats/processed-profile.md section 10).
 */
#include "readers/pc_jread.h"
#include "readers/pc_reader.h"
#include "writers/pc_writer.h"

#include "json/pc_jpull.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pc_test.h"
#include "pc_test_locale.h"

static const char *golden_dir(void)
{
	static char dir[4096];
	const char *fx = getenv("PC_FIXTURES");

	pc_snprintf(dir, sizeof(dir), "%s/../golden", fx ? fx : "tests/fixtures");
	return dir;
}

/* Read text as a processed profile; write it to out.  0 or the reader's error. */
static int convert(struct profconv_ctx *ctx, const char *text, size_t len, const char *name,
		   struct membuf *out, struct pc_model **keep)
{
	struct pc_input *in = NULL;
	struct pc_model *m;
	int err;

	pc_clear_error(ctx);
	err = pc_input_open_mem(ctx, text, len, name, &in);
	if (err)
		return err;
	m = pc_model_new(ctx);
	err = m ? pc_reader_processed.read(ctx, in, m) : PROFCONV_ERR_NOMEM;
	pc_input_close(in);
	if (!err && out)
		err = pc_writer_processed.write(ctx, m, mem_write, out);
	if (keep && !err)
		*keep = m;
	else
		pc_model_free(m);
	return err;
}

/* The golden's top-level members reordered: counters and threads before shared, meta last. */
static char *reorder(struct profconv_ctx *ctx, const char *text, size_t len)
{
	static const char *const order[] = { "counters", "threads", "pages", "shared", "libs",
					      "meta" };
	struct pc_input *in;
	struct pc_jpull *p;
	const struct pc_jtok *t;
	size_t from[8], to[8];
	char names[8][16];
	unsigned n = 0, i, k;
	char *out;
	size_t o = 0;

	if (pc_input_open_mem(ctx, text, len, "reorder", &in))
		return NULL;
	if (pc_jpull_new(ctx, in, NULL, &p)) {
		pc_input_close(in);
		return NULL;
	}
	pc_jpull_next(p, &t); /* { */
	while (!pc_jpull_next(p, &t) && t->type == PC_JT_KEY && n < 8) {
		from[n] = (size_t)t->offset;
		pc_snprintf(names[n], sizeof(names[n]), "%s", t->str);
		pc_jpull_skip_value(p);
		to[n] = (size_t)pc_jpull_offset(p);
		n++;
	}
	pc_jpull_free(p);
	pc_input_close(in);
	out = malloc(len + 16);
	if (!out)
		return NULL;
	out[o++] = '{';
	for (k = 0; k < PC_ARRAY_SIZE(order); k++)
		for (i = 0; i < n; i++)
			if (strcmp(names[i], order[k]) == 0) {
				if (o > 1)
					out[o++] = ',';
				memcpy(out + o, text + from[i], to[i] - from[i]);
				o += to[i] - from[i];
			}
	out[o++] = '}';
	out[o++] = '\n';
	out[o] = 0;
	return out;
}

static void round_trip(const char *name)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct membuf out = { 0 }, out2 = { 0 };
	char path[4200], *text, *re;
	size_t len = 0;
	int err;

	pc_snprintf(path, sizeof(path), "%s/%s.json", golden_dir(), name);
	text = pc_test_slurp(path, &len);
	PC_CHECK(text != NULL);
	if (!text) {
		fprintf(stderr, "cannot read %s\n", path);
		profconv_ctx_free(ctx);
		return;
	}
	err = convert(ctx, text, len, path, &out, NULL);
	if (err)
		fprintf(stderr, "%s: %s\n", name, ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(out.len, len);
	PC_CHECK(out.p && out.len == len && memcmp(out.p, text, len) == 0);

	/* any member order reads the same */
	re = reorder(ctx, text, len);
	PC_CHECK(re != NULL);
	if (re) {
		err = convert(ctx, re, strlen(re), "reordered", &out2, NULL);
		if (err)
			fprintf(stderr, "%s reordered: %s\n", name, ctx->errmsg);
		PC_CHECK_EQ_INT(err, 0);
		PC_CHECK(out2.p && out2.len == len && memcmp(out2.p, text, len) == 0);
	}
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	free(re);
	free(out.p);
	free(out2.p);
	free(text);
	profconv_ctx_free(ctx);
}

/*
 * A model with duplicate rows everywhere, written, read back: the rows keep
 * their numbers (interning would have merged them), and the second writing
 * gives the same bytes.
 */
static void duplicates(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = pc_model_new(ctx), *back = NULL;
	struct membuf a = { 0 }, b = { 0 };
	struct pc_func_key fk;
	struct pc_frame_key k;
	struct pc_thread *t;
	uint32_t s0, s1, f0;
	int err;

	PC_CHECK(m != NULL);
	if (!m)
		return;
	pc_str_append(m, "dup", 3);
	pc_str_append(m, "dup", 3); /* string 2 == string 1 */
	memset(&fk, 0, sizeof(fk));
	fk.name = 1;
	fk.resource = PC_NONE;
	fk.source = PC_NONE;
	pc_func_append(m, &fk);
	pc_func_append(m, &fk);
	memset(&k, 0, sizeof(k));
	k.address = PC_NO_ADDRESS;
	k.lib = PC_NONE;
	k.native_symbol = PC_NONE;
	k.category = PC_NO_CATEGORY;
	f0 = pc_frame_append(m, &k, 0);
	pc_frame_append(m, &k, 0);
	pc_frame_append(m, &k, 7); /* differs only in innerWindowID */
	s0 = pc_stack_append(m, PC_NONE, f0);
	s1 = pc_stack_append(m, PC_NONE, f0);
	pc_stack_append(m, s1, 2);
	t = pc_thread_add(m, 1, 1);
	t->name = 2;
	pc_sample_add(m, t, s0, 0, 1);
	pc_sample_add(m, t, s1, 1000000, 1);
	PC_CHECK_EQ_INT(m->strings.len, 3);
	PC_CHECK_EQ_INT(m->frames.len, 3);
	PC_CHECK_EQ_INT(m->stacks.len, 3);
	/* interning finds the first of equal rows */
	PC_CHECK_EQ_INT(pc_str_intern(m, "dup", 3), 1);
	PC_CHECK_EQ_INT(pc_stack_intern(m, PC_NONE, f0), s0);
	PC_CHECK_EQ_INT(pc_frame_intern_iw(m, &k, 7), 2);
	err = pc_writer_processed.write(ctx, m, mem_write, &a);
	PC_CHECK_EQ_INT(err, 0);
	err = convert(ctx, a.p, a.len, "dups", &b, &back);
	if (err)
		fprintf(stderr, "duplicates: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(b.len == a.len && memcmp(a.p, b.p, a.len) == 0);
	if (back) {
		PC_CHECK_EQ_INT(back->strings.len, 3);
		PC_CHECK_EQ_INT(back->funcs.len, 2);
		PC_CHECK_EQ_INT(back->frames.len, 3);
		PC_CHECK_EQ_INT(back->stacks.len, 3);
		PC_CHECK_EQ_INT(pc_frame_inner_window_id(&back->frames, 2), 7);
		PC_CHECK_EQ_INT(back->threads[0]->samples.stack[1], 1);
		PC_CHECK_EQ_STR(pc_str(back, back->threads[0]->name), "dup");
		/* the index rebuild keeps every row in place */
		PC_CHECK_EQ_INT(pc_frame_index_rebuild(back), 0);
		PC_CHECK_EQ_INT(pc_func_index_rebuild(back), 0);
		PC_CHECK_EQ_INT(back->frames.len, 3);
		PC_CHECK_EQ_INT(pc_frame_inner_window_id(&back->frames, 2), 7);
		pc_model_free(back);
	}
	pc_model_free(m);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	free(a.p);
	free(b.p);
	profconv_ctx_free(ctx);
}

/* A broken document must fail with exactly this message (location included). */
static void broken(const char *json, int want_code, const char *want)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	int err = convert(ctx, json, strlen(json), "t.json", NULL, NULL);

	PC_CHECK_EQ_INT(err & 0xff, want_code);
	PC_CHECK_EQ_STR(ctx->errmsg, want);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

#define META "{\"meta\":{\"preprocessedProfileVersion\":70,\"interval\":1}"

static void broken_inputs(void)
{
	broken("{\"meta\":{\"version\":36,\n \"preprocessedProfileVersion\":68}}",
	       PROFCONV_ERR_UNSUPPORTED,
	       "t.json:2:31: processed profile version 68; only 69 and 70 are read: load it in profiler.firefox.com and save it again to upgrade");
	broken("{\"meta\":{\"preprocessedProfileVersion\":71}}", PROFCONV_ERR_UNSUPPORTED,
	       "t.json:1:39: processed profile version 71; only 69 and 70 are read: load it in profiler.firefox.com and save it again to upgrade");
	broken("{\"meta\":{\"interval\":1}}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:9: meta has no preprocessedProfileVersion: not a processed profile (a Gecko profile? try --from gecko)");
	broken("{\"libs\":[]}", PROFCONV_ERR_CORRUPT,
	       "t.json: no \"meta\" member: not a processed profile");
	broken(META ",\"shared\":{\"stringArray\":[\"a\",]}}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:85: expected a value after ',', got ']'");
	broken(META ",\"shared\":{\"stringArray\":[\"a\",1]}}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:85: shared.stringArray[1]: expected a string, got a number");
	broken(META ",\n\"shared\":{\"stackTable\":{\"frame\":[0,0],\n\"prefixOffset\":[0,2]}}}",
	       PROFCONV_ERR_CORRUPT,
	       "t.json:3:16: shared.stackTable.prefixOffset[1] = 2: the parent stack must come before it");
	broken(META ",\"shared\":{\"stackTable\":{\"frame\":[0,0],\"prefixOffset\":[0]}}}",
	       PROFCONV_ERR_CORRUPT,
	       "t.json:1:109: shared.stackTable.prefixOffset has 1 entries, but the table has 2 rows");
	broken(META ",\"shared\":{\"stackTable\":{\"frame\":[0],\"prefixOffset\":[0.5]}}}",
	       PROFCONV_ERR_CORRUPT,
	       "t.json:1:108: shared.stackTable.prefixOffset[0]: expected an integer or null, got 0.5");
	broken(META ",\"shared\":{\"stackTable\":{\"frame\":[3],\"prefixOffset\":[0]}}}",
	       PROFCONV_ERR_CORRUPT,
	       "t.json:1:88: shared.stackTable.frame[0] = 3 is out of range (frameTable has 0 rows)");
	broken(META ",\"shared\":{\"frameTable\":{\"func\":[0],\"length\":1}}}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:87: shared.frameTable.func[0] = 0 is out of range (funcTable has 0 rows)");
	broken(META ",\"shared\":{\"frameTable\":{\"address\":[-1],\"length\":1}}}",
	       PROFCONV_ERR_CORRUPT, "t.json:1:79: shared.frameTable has no \"func\" column");
	broken(META ",\"threads\":[{\"samples\":{\"stack\":[0],\"time\":[1]}}]}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:87: samples.stack[0] = 0 is out of range (stackTable has 0 rows)");
	broken(META ",\"threads\":[{\"samples\":{\"stack\":[null]}}]}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:78: samples has neither \"time\" nor \"timeDeltas\"");
	broken(META ",\"threads\":[{\"markers\":{\"name\":[0],\"category\":[9],\"startTime\":[1]}}]}",
	       PROFCONV_ERR_CORRUPT,
	       "t.json:1:101: markers.category[0] = 9 is out of range (meta.categories has 8 rows)");
	broken(META ",\"threads\":[{\"samples\":{\"stack\":[null],\"time\":[1e300]}}]}",
	       PROFCONV_ERR_CORRUPT, "t.json:1:102: samples.time[0]: 1e300 ms is out of range");
}

/* A foreign profile: null weight, timeDeltas, a string tid, a counter, default categories. */
static void foreign(void)
{
	static const char doc[] =
		"{\"counters\":[{},{}],\"meta\":{\"preprocessedProfileVersion\":70,\"interval\":0.5,"
		"\"startTime\":1700000000000.123456,\"symbolicated\":true,\"product\":\"x\"},"
		"\"threads\":[{\"name\":\"T\",\"tid\":\"42\",\"pid\":\"7\",\"processType\":\"tab\","
		"\"samples\":{\"stack\":[null,null,null],\"timeDeltas\":[1.5,0.25,0.000001],"
		"\"weight\":null,\"weightType\":\"tracing-ms\",\"length\":3},"
		"\"markers\":{\"name\":[0],\"startTime\":[2],\"endTime\":[null],\"phase\":[0],"
		"\"category\":[7],\"data\":[{\"type\":\"X\", \"a\":[1,2]}],\"length\":1}}],"
		"\"shared\":{\"stringArray\":[\"m\"]}}";
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = NULL;
	struct membuf out = { 0 };
	int err = convert(ctx, doc, sizeof(doc) - 1, "foreign.json", &out, &m);

	if (err)
		fprintf(stderr, "foreign: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 2); /* the two counters */
	if (m) {
		const struct pc_thread *t = m->threads[0];

		PC_CHECK_EQ_INT(m->ncategories, 8);
		PC_CHECK_EQ_INT(m->meta.interval_ns, 500000);
		PC_CHECK_EQ_INT(m->meta.start_time_ns, 1700000000000123456LL);
		PC_CHECK_EQ_INT(m->meta.symbolicated, 1);
		PC_CHECK_EQ_STR(t->samples.weight_type, "tracing-ms");
		PC_CHECK_EQ_INT(t->tid, 42);
		PC_CHECK_EQ_INT(t->pid, 7);
		PC_CHECK(t->process != PC_NONE && pc_thread_find(m, 7, 42) == t);
		PC_CHECK_EQ_STR(m->processes.rows[t->process].type, "tab");
		PC_CHECK_EQ_INT(t->samples.len, 3);
		PC_CHECK_EQ_INT(t->samples.time[2], 1750001);
		PC_CHECK_EQ_INT(t->markers.category[0], 7);
		/* the payload is a tree, not a string */
		PC_CHECK(t->markers.payload[0] != PC_NONE);
		PC_CHECK_EQ_INT(pc_pv(m, pc_pv_member(m, t->markers.payload[0], "a"))->v.n, 2);
		PC_CHECK_EQ_INT(m->strings.len, 2); /* "m" and "T" */
		if (m->strings.len != 2)
			for (uint32_t si = 0; si < m->strings.len; si++)
				fprintf(stderr, "string %u: %s\n", si, pc_str(m, si));
		PC_CHECK_EQ_STR(pc_str(m, t->name), "T");
		pc_model_free(m);
	}
	free(out.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/*
 * The time a marker's phase does not use (an Instant's or IntervalStart's
 * end, an IntervalEnd's start) is not read, as the front-end does not, and
 * is written 0: no null among a column's numbers.  Samples are written as
 * timeDeltas, unless a difference would overflow.
 */
static void unused_times(void)
{
	static const char doc[] =
		"{\"meta\":{\"preprocessedProfileVersion\":69,\"interval\":1},"
		"\"threads\":[{\"name\":\"T\",\"tid\":1,\"pid\":\"1\","
		"\"samples\":{\"stack\":[null,null],\"time\":[1,3.5],\"length\":2},"
		"\"markers\":{\"name\":[0,0,0,0],\"startTime\":[2,1,6,3],\"endTime\":[5,4,7,9],"
		"\"phase\":[0,1,2,3],\"category\":[0,0,0,0],\"data\":[null,null,null,null],"
		"\"length\":4}}],\"shared\":{\"stringArray\":[\"m\"]}}";
	static const char wide[] =
		"{\"meta\":{\"preprocessedProfileVersion\":69,\"interval\":1},"
		"\"threads\":[{\"name\":\"T\",\"tid\":1,\"pid\":\"1\","
		"\"samples\":{\"stack\":[null,null],\"time\":[-9000000000000,9000000000000],"
		"\"length\":2}}],\"shared\":{\"stringArray\":[]}}";
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = NULL;
	struct membuf out = { 0 };
	int err = convert(ctx, doc, sizeof(doc) - 1, "unused.json", &out, &m);
	uint32_t i, seen = 0;

	if (err)
		fprintf(stderr, "unused_times: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	if (m) {
		const struct pc_markers *mk = &m->threads[0]->markers;

		PC_CHECK_EQ_INT(mk->len, 4);
		for (i = 0; i < mk->len; i++) {
			seen |= 1u << mk->phase[i];
			switch (mk->phase[i]) {
			case PC_PHASE_INSTANT:
				PC_CHECK(mk->start[i] == 2000000 && mk->end[i] == PC_NO_TIME);
				break;
			case PC_PHASE_INTERVAL:
				PC_CHECK(mk->start[i] == 1000000 && mk->end[i] == 4000000);
				break;
			case PC_PHASE_START:
				PC_CHECK(mk->start[i] == 6000000 && mk->end[i] == PC_NO_TIME);
				break;
			default:
				PC_CHECK(mk->start[i] == PC_NO_TIME && mk->end[i] == 9000000);
			}
		}
		PC_CHECK_EQ_INT(seen, 15);
		pc_model_free(m);
	}
	PC_CHECK(out.p && strstr(out.p, "\"timeDeltas\":[1,2.5]") != NULL);
	PC_CHECK(out.p && strstr(out.p, "\"startTime\":[2,1,6,0],\"endTime\":[0,4,0,9],") != NULL);
	free(out.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);

	/* samples whose difference does not fit int64 ns: "time", not deltas */
	ctx = profconv_ctx_new();
	memset(&out, 0, sizeof(out));
	err = convert(ctx, wide, sizeof(wide) - 1, "wide.json", &out, NULL);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(out.p && strstr(out.p, "\"time\":[-9000000000000,9000000000000]") != NULL &&
		 strstr(out.p, "timeDeltas") == NULL);
	free(out.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/*
 * out, which a document converted to (unless err), reads back to the same
 * bytes; then out and ctx are freed, and every byte ctx gave was given back.
 */
static void reads_back_and_end(struct profconv_ctx *ctx, int err, struct membuf *out)
{
	struct membuf again = { 0 };

	if (!err) {
		PC_CHECK_EQ_INT(convert(ctx, out->p, out->len, "out.json", &again, NULL), 0);
		PC_CHECK(again.len == out->len && memcmp(again.p, out->p, out->len) == 0);
	}
	free(out->p);
	free(again.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}
/*
 * Counter times are exact ns (as sample and marker times are), up to the
 * ends of int64: a Chrome counter at a huge ts is written as
 * 9223372036854.775807 ms and must read back as INT64_MAX ns, not 0 (the
 * old double path clamped past 9.2e12 ms and rounded above 2^53 ns).
 * Counts keep the tokenizer's doubles; integer pids keep every digit.  A
 * counter with a null time or deltas running out of int64 is dropped with
 * the counted warning.
 */
static void counter_times(void)
{
	static const char doc[] =
		"{\"meta\":{\"preprocessedProfileVersion\":70,\"interval\":1},"
		"\"threads\":[{\"name\":\"T\",\"tid\":1,\"pid\":\"1\"}],"
		"\"counters\":["
		"{\"name\":\"a\",\"pid\":9007199254740993,\"samples\":{\"time\":[0,"
		"9200000000001.000001,9223372036854.775807,-9223372036854.775807,"
		"9007199254.740993],"
		"\"count\":[1,0.30000000000000004,2.2250738585072014e-308,1e3,-0],\"length\":5}},"
		"{\"name\":\"b\",\"samples\":{\"timeDeltas\":[0.000001,9223372036854.775806],"
		"\"count\":[1,2],\"length\":2}},"
		"{\"name\":\"c\",\"samples\":{\"time\":[null],\"count\":[1],\"length\":1}},"
		"{\"name\":\"d\",\"samples\":{\"timeDeltas\":[9223372036854.775807,0.000001],"
		"\"count\":[1,2],\"length\":2}},"
		"{\"name\":\"e\",\"samples\":{\"time\":[1e300],\"count\":[1],\"length\":1}}],"
		"\"shared\":{\"stringArray\":[]}}";
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = NULL;
	struct membuf out = { 0 };
	int err = convert(ctx, doc, sizeof(doc) - 1, "counters.json", &out, &m);

	if (err)
		fprintf(stderr, "counter_times: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 3); /* c, d and e dropped */
	if (m) {
		PC_CHECK_EQ_INT(m->counters.len, 2);
		if (m->counters.len == 2) {
			const struct pc_counter *a = &m->counters.rows[0], *b = &m->counters.rows[1];

			PC_CHECK_EQ_INT(a->len, 5);
			PC_CHECK_EQ_INT(a->time[1], 9200000000001000001LL);
			PC_CHECK_EQ_INT(a->time[2], INT64_MAX);
			PC_CHECK_EQ_INT(a->time[3], -INT64_MAX);
			PC_CHECK_EQ_INT(a->time[4], 9007199254740993LL);
			PC_CHECK(a->count[1] == 0.1 + 0.2);
			PC_CHECK(a->count[2] == 2.2250738585072014e-308);
			PC_CHECK(a->count[3] == 1000.0);
			PC_CHECK(a->process != PC_NONE &&
				 m->processes.rows[a->process].pid == 9007199254740993LL);
			PC_CHECK_EQ_INT(b->len, 2);
			PC_CHECK_EQ_INT(b->time[0], 1);
			PC_CHECK_EQ_INT(b->time[1], INT64_MAX);
		}
		pc_model_free(m);
	}
	/* and our output reads back to the same bytes */
	if (!err)
		PC_CHECK(strstr(out.p, "9223372036854.775807") != NULL);
	reads_back_and_end(ctx, err, &out);
}

/* Payload member key of marker 0 of thread 0 as a double (NAN when it is not one). */
static double pl_double(const struct pc_model *m, const char *key)
{
	double d;

	return pc_jr_pv_double(m, pc_pv_member(m, m->threads[0]->markers.payload[0], key), &d)
		       ? d
		       : NAN;
}

/*
 * Payload numbers are the values the JSON has (pc_jr_pv_double(): the
 * nearest double to the text, every digit; pc_jr_pv_int(): integers exact
 * past 2^53).  They were read through the ms -> ns parser, which keeps six
 * decimals: 0.1234567 came out 0.123457, 1e-9 came out 0, and a
 * unique-string field holding 1.0000001 was taken for string index 1 and
 * written back as a string reference instead of its number.
 */
static void payload_numbers(void)
{
	static const char doc[] =
		"{\"meta\":{\"preprocessedProfileVersion\":70,\"interval\":1,"
		"\"markerSchema\":[{\"name\":\"N\",\"display\":[\"marker-chart\"],\"fields\":["
		"{\"key\":\"u\",\"format\":\"unique-string\"},{\"key\":\"x\",\"format\":\"number\"}]}]},"
		"\"threads\":[{\"name\":\"T\",\"tid\":1,\"pid\":\"1\","
		"\"markers\":{\"name\":[0],\"startTime\":[1],\"endTime\":[null],\"phase\":[0],"
		"\"category\":[0],\"data\":[{\"type\":\"N\",\"u\":1.0000001,\"x\":0.1234567,"
		"\"y\":1e-9,\"z\":0.30000000000000004,\"w\":-123456.7890123,"
		"\"i\":9007199254740993,\"e\":2.5e1}],\"length\":1}}],"
		"\"shared\":{\"stringArray\":[\"N\",\"a\",\"b\"]}}";
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = NULL;
	struct membuf out = { 0 };
	int err = convert(ctx, doc, sizeof(doc) - 1, "numbers.json", &out, &m);

	if (err)
		fprintf(stderr, "payload_numbers: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	/* u is no string index: kept as it is, with the counted warning */
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 1);
	if (m) {
		uint32_t pl = m->threads[0]->markers.payload[0];
		int64_t i = 0;

		PC_CHECK(pl_double(m, "x") == 0.1234567);
		PC_CHECK(pl_double(m, "y") == 1e-9);
		PC_CHECK(pl_double(m, "z") == 0.1 + 0.2);
		PC_CHECK(pl_double(m, "w") == -123456.7890123);
		PC_CHECK(pl_double(m, "u") == 1.0000001);
		PC_CHECK_EQ_INT(pc_pv(m, pc_pv_member(m, pl, "u"))->kind, PC_VAL_NUM);
		PC_CHECK(!pc_jr_pv_int(m, pc_pv_member(m, pl, "u"), &i));
		PC_CHECK(pc_jr_pv_int(m, pc_pv_member(m, pl, "i"), &i) && i == 9007199254740993LL);
		PC_CHECK(pc_jr_pv_int(m, pc_pv_member(m, pl, "e"), &i) && i == 25);
		/* a host locale with a decimal comma does not change them (strtod path) */
		{
			locale_t comma = pc_test_comma_locale(), old;

			if (comma != (locale_t)0) {
				old = uselocale(comma);
				PC_CHECK(pl_double(m, "z") == 0.1 + 0.2);
				PC_CHECK(pl_double(m, "x") == 0.1234567);
				uselocale(old);
				freelocale(comma);
			}
		}
		pc_model_free(m);
	}
	/* written as they came, and our output reads back to the same bytes */
	if (!err) {
		PC_CHECK(strstr(out.p, "\"u\":1.0000001,\"x\":0.1234567,\"y\":1e-9,"
				       "\"z\":0.30000000000000004,\"w\":-123456.7890123") != NULL);
	}
	reads_back_and_end(ctx, err, &out);
}

/*
 * What section 10 of docs/formats/processed-profile.md says is kept: the
 * samples' eventDelay and threadCPUDelta with meta.sampleUnits, pages, and
 * the meta and thread members the model has no field for; an unknown
 * top-level member is not.
 */
static void kept_members(void)
{
	static const char doc[] =
		"{\"meta\":{\"preprocessedProfileVersion\":70,\"interval\":1,"
		"\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":\"\\u00b5s\"},"
		"\"fooBar\":{\"x\":1.5}},"
		"\"threads\":[{\"name\":\"T\",\"tid\":1,\"pid\":\"1\",\"someThing\":[1,2],"
		"\"samples\":{\"stack\":[null,null,null],\"time\":[1,2,3],"
		"\"eventDelay\":[null,0.25,1.000001],\"threadCPUDelta\":[null,7,900],\"length\":3}}],"
		"\"pages\":[{\"tabID\":5,\"innerWindowID\":6,\"url\":\"https://example.com/\","
		"\"embedderInnerWindowID\":0}],"
		"\"zzz\":3,\"shared\":{\"stringArray\":[]}}";
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = NULL;
	struct membuf out = { 0 };
	int err = convert(ctx, doc, sizeof(doc) - 1, "kept.json", &out, &m);

	if (err)
		fprintf(stderr, "kept_members: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 0);
	if (m) {
		const struct pc_samples *sa = &m->threads[0]->samples;

		PC_CHECK(sa->event_delay != NULL && sa->cpu_delta != NULL);
		if (sa->event_delay && sa->cpu_delta && sa->len == 3) {
			PC_CHECK_EQ_INT(sa->event_delay[0], PC_NO_TIME);
			PC_CHECK_EQ_INT(sa->event_delay[2], 1000001);
			PC_CHECK_EQ_INT(sa->cpu_delta[0], INT64_MIN);
			PC_CHECK_EQ_INT(sa->cpu_delta[2], 900);
		}
		PC_CHECK_EQ_INT(m->pages.len, 1);
		if (m->pages.len == 1) {
			PC_CHECK_EQ_INT(m->pages.rows[0].tab_id, 5);
			PC_CHECK_EQ_STR(m->pages.rows[0].url, "https://example.com/");
		}
		pc_model_free(m);
	}
	if (!err) {
		PC_CHECK(strstr(out.p, "\"eventDelay\":[null,0.25,1.000001]") != NULL);
		PC_CHECK(strstr(out.p, "\"threadCPUDelta\":[null,7,900]") != NULL);
		PC_CHECK(strstr(out.p, "\"threadCPUDelta\":\"\u00b5s\"") != NULL);
		PC_CHECK(strstr(out.p, "\"fooBar\":{\"x\":1.5}") != NULL);
		PC_CHECK(strstr(out.p, "\"someThing\":[1,2]") != NULL);
		PC_CHECK(strstr(out.p, "\"tabID\":5") != NULL);
		PC_CHECK(strstr(out.p, "zzz") == NULL);
	}
	reads_back_and_end(ctx, err, &out);
}

static void bids(void)
{
	static const char a[] = "\xef\xbb\xbf {\"meta\":{\"preprocessedProfileVersion\":70}}";
	static const char b[] = "{\"libs\":[],\"shared\":{}}";
	static const char c[] = "{\"meta\":{\"version\":34},\"threads\":[]}";

	PC_CHECK_EQ_INT(pc_reader_processed.bid((const unsigned char *)a, sizeof(a) - 1), 56);
	PC_CHECK_EQ_INT(pc_reader_processed.bid((const unsigned char *)b, sizeof(b) - 1), 24);
	PC_CHECK_EQ_INT(pc_reader_processed.bid((const unsigned char *)c, sizeof(c) - 1), 0);
	PC_CHECK_EQ_INT(pc_reader_processed.bid((const unsigned char *)"PERFILE2", 8), 0);
	PC_CHECK(pc_reader_detect((const unsigned char *)a, sizeof(a) - 1) == &pc_reader_processed);
}

/*
 * A Chrome trace whose first member is traceEvents: the JSON profile readers
 * bid 0 at once (pc_jr_peek_first_key()), whatever names its events carry;
 * traceEvents after another member still goes through the searches.  The
 * Chrome bid skips a UTF-8 BOM, as the other JSON readers' do.
 */
static void first_key(void)
{
	static const char t[] = "\xef\xbb\xbf \n{ \"traceEvents\" :[{\"name\":\"shared\",\"args\":"
				"{\"preprocessedProfileVersion\":1,\"meta\":1,\"threads\":[]}}]}";
	static const char g[] = "{\"traceEvents\":[{\"name\":\"meta\",\"args\":{\"threads\":1}}]}";
	static const char arr[] = "\xef\xbb\xbf[{\"ph\":\"X\"}]";
	static const char late[] = "{\"meta\":{\"preprocessedProfileVersion\":1},\"traceEvents\":[]}";
	static const unsigned char *const u = (const unsigned char *)t;

	PC_CHECK(pc_jr_peek_first_key(u, sizeof(t) - 1, "\"traceEvents\""));
	PC_CHECK(!pc_jr_peek_first_key(u, sizeof(t) - 1, "\"meta\""));
	PC_CHECK(!pc_jr_peek_first_key(u, 20, "\"traceEvents\"")); /* no ':' yet */
	PC_CHECK(!pc_jr_peek_first_key((const unsigned char *)"[{\"traceEvents\":1}]", 19,
				       "\"traceEvents\""));
	PC_CHECK(!pc_jr_peek_first_key((const unsigned char *)late, sizeof(late) - 1,
				       "\"traceEvents\""));
	PC_CHECK_EQ_INT(pc_reader_processed.bid(u, sizeof(t) - 1), 0);
	PC_CHECK_EQ_INT(pc_reader_gecko.bid((const unsigned char *)g, sizeof(g) - 1), 0);
	PC_CHECK(pc_reader_detect(u, sizeof(t) - 1) == &pc_reader_chrome);
	PC_CHECK(pc_reader_detect((const unsigned char *)late, sizeof(late) - 1) ==
		 &pc_reader_processed);
	/* the array form after a BOM too (it was "unrecognized format") */
	PC_CHECK(pc_reader_detect((const unsigned char *)arr, sizeof(arr) - 1) == &pc_reader_chrome);
}

/*
 * Sample weights: "tracing-ms" weights are durations in ms, kept as ns
 * (weightType after the column, as profconv writes it; fractions exact, not
 * rounded; a null is 1 ms) and written back the same; other weights are
 * counts, a fraction rounded with a warning; a tracing-ms weight past int64
 * ns fails.
 */
static void weights(void)
{
	static const char ms[] = META ",\"threads\":[{\"samples\":{\"stack\":[null,null,null,null],"
				 "\"time\":[0,1,2,3],\"weight\":[0.5,1.000001,null,2],"
				 "\"weightType\":\"tracing-ms\",\"length\":4}}]}";
	static const char counts[] = META ",\"threads\":[{\"samples\":{\"stack\":[null,null],"
				     "\"time\":[0,1],\"weight\":[1.5,3],\"length\":2}}]}";
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m = NULL;
	struct membuf out = { 0 };
	int err = convert(ctx, ms, sizeof(ms) - 1, "ms.json", &out, &m);

	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 0);
	if (m) {
		const struct pc_samples *s = &m->threads[0]->samples;

		PC_CHECK_EQ_STR(s->weight_type, "tracing-ms");
		PC_CHECK(s->weight != NULL);
		if (s->weight) {
			PC_CHECK_EQ_INT(s->weight[0], 500000);
			PC_CHECK_EQ_INT(s->weight[1], 1000001);
			PC_CHECK_EQ_INT(s->weight[2], 1000000);
			PC_CHECK_EQ_INT(s->weight[3], 2000000);
		}
		pc_model_free(m);
	}
	PC_CHECK(out.p && strstr(out.p, "\"weight\":[0.5,1.000001,1,2]") != NULL);
	reads_back_and_end(ctx, err, &out);

	ctx = profconv_ctx_new();
	m = NULL;
	memset(&out, 0, sizeof(out));
	err = convert(ctx, counts, sizeof(counts) - 1, "counts.json", &out, &m);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 1); /* 1.5 rounded */
	if (m) {
		const struct pc_samples *s = &m->threads[0]->samples;

		PC_CHECK_EQ_STR(s->weight_type, "samples");
		PC_CHECK(s->weight && s->weight[0] == 2 && s->weight[1] == 3);
		pc_model_free(m);
	}
	reads_back_and_end(ctx, err, &out);
	broken(META ",\"threads\":[{\"samples\":{\"stack\":[null],\"time\":[1],\"weight\":[1e13],"
	       "\"weightType\":\"tracing-ms\"}}]}",
	       PROFCONV_ERR_CORRUPT, "t.json:1:114: samples.weight[0] (tracing-ms) is out of range");
}

/*
 * pc_jr_peek_has() (16 places a step where SSE2 is there, then memmem()):
 * the needle at every place near the start and the end of peeks of every
 * length up to 80, cut short by one byte, and near misses (the filter's two
 * bytes right, another wrong), against a plain search (pc_test_has_bytes()).
 */
static void peek_has(void)
{
	static const char *const needles[] = { "\"traceEvents\"", "\"ph\"", "\"meta\"", "ab",
						"x", "\"preprocessedProfileVersion\"" };
	unsigned char buf[96];
	size_t k, len, at, bad = 0;

	for (k = 0; k < sizeof(needles) / sizeof(needles[0]); k++) {
		const char *nd = needles[k];
		size_t n = strlen(nd);

		for (len = 0; len <= 80; len++)
			for (at = 0; at <= len; at++) {
				int miss;

				for (miss = 0; miss < 3; miss++) {
					memset(buf, 'q', sizeof(buf));
					if (at + n <= len + (miss == 2)) {
						memcpy(buf + at, nd, n);
						if (miss == 1 && n >= 3)
							buf[at + n - 1] ^= 1; /* the last byte wrong */
						if (miss == 2 && n >= 4)
							buf[at] = '"' + 1; /* the first byte wrong, or past the end */
					}
					if (pc_jr_peek_has(buf, len, nd) != pc_test_has_bytes(buf, len, nd))
						bad++;
				}
			}
	}
	PC_CHECK(bad == 0);
}

int main(void)
{
	round_trip("y_fork_exec");
	round_trip("y_synth_le");
	round_trip("i_truncated_tail");
	round_trip("processed_small");
	duplicates();
	broken_inputs();
	foreign();
	unused_times();
	weights();
	counter_times();
	payload_numbers();
	kept_members();
	bids();
	first_key();
	peek_has();
	return pc_test_done();
}
