/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_read_gecko.c - the Gecko profile reader.
 *
 *   - tests/fixtures/gecko/esr153-cut.json, a cut of a real Firefox ESR 153
 *     profile: thread, sample and marker counts as Python counted them
 *     (make_cut.py), the subprocess time shift, and the converted profile
 *     written, read back as processed and written again: the same bytes;
 *   - a hand-written profile with 0x addresses in a lib: lib-relative
 *     addresses, the return-address nudge, one func per address, a marker
 *     backtrace turned into a cause, the other location kinds;
 *   - counters: every column of their samples, read back the same from
 *     the Gecko writer's output;
 *   - a subprocess whose shift to the parent's start leaves int64 ns: the
 *     times that still fit are exact, the samples and markers that do not
 *     are dropped with a counted warning;
 *   - samples' eventDelay and threadCPUDelta kept (and in the fixture, all
 *     of them: tests/fixtures/gecko/count_check.py checks every value);
 *   - broken inputs fail with FILE:LINE:COL and the documented message.
 */
#include "readers/pc_jread.h"
#include "readers/pc_reader.h"
#include "json/pc_jw.h"
#include "writers/pc_pvemit.h"
#include "writers/pc_writer.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "pc_test.h"

/* A payload subtree as JSON text (malloc'ed), through the writers' emitter. */
static char *pv_text(const struct pc_model *m, uint32_t node)
{
	struct membuf b = { 0 };
	struct pc_jw *w = pc_jw_new(m->ctx, mem_write, &b);

	pc_pv_emit(w, m, node, NULL);
	pc_jw_finish(w);
	if (b.len && b.p[b.len - 1] == '\n')
		b.p[--b.len] = 0;
	return b.p;
}

/* A marker's data as the processed writer would write it, parsed. */
static cJSON *pv_json(const struct pc_model *m, const struct pc_thread *t, uint32_t k)
{
	char *s = pv_text(m, t->markers.payload[k]);
	cJSON *d = s ? cJSON_Parse(s) : NULL;
	cJSON *c, *cause;

	free(s);
	if (!d)
		return NULL;
	/* the writer puts the cause at its placeholder: do the same */
	cJSON_DeleteItemFromObject(d, "cause");
	if (t->markers.cause_stack[k] != PC_NONE) {
		cause = cJSON_AddObjectToObject(d, "cause");
		if (t->markers.cause_tid[k] != PC_NO_TID)
			cJSON_AddNumberToObject(cause, "tid", (double)t->markers.cause_tid[k]);
		if (t->markers.cause_time[k] != PC_NO_TIME)
			cJSON_AddNumberToObject(cause, "time", (double)t->markers.cause_time[k] / 1e6);
		c = cJSON_AddNumberToObject(cause, "stack", t->markers.cause_stack[k]);
		(void)c;
	}
	return d;
}

static struct pc_model *read_mem(struct profconv_ctx *ctx, const struct pc_reader *r,
				 const char *text, size_t len, const char *name, int *errp)
{
	struct pc_input *in = NULL;
	struct pc_model *m = NULL;
	int err;

	pc_clear_error(ctx);
	err = pc_input_open_mem(ctx, text, len, name, &in);
	if (!err) {
		m = pc_model_new(ctx);
		err = m ? r->read(ctx, in, m) : PROFCONV_ERR_NOMEM;
		pc_input_close(in);
	}
	if (err) {
		pc_model_free(m);
		m = NULL;
	}
	*errp = err;
	return m;
}

static void esr_cut(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct membuf a = { 0 }, b = { 0 };
	struct pc_model *m, *back;
	const char *fx = getenv("PC_FIXTURES");
	char path[4200], *text;
	size_t len = 0;
	int err;

	pc_snprintf(path, sizeof(path), "%s/gecko/esr153-cut.json", fx ? fx : "tests/fixtures");
	text = pc_test_slurp(path, &len);
	PC_CHECK(text != NULL);
	if (!text) {
		profconv_ctx_free(ctx);
		return;
	}
	PC_CHECK(pc_reader_detect((const unsigned char *)text, len < 4096 ? len : 4096) ==
		 &pc_reader_gecko);
	m = read_mem(ctx, &pc_reader_gecko, text, len, path, &err);
	if (err)
		fprintf(stderr, "esr153-cut.json: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	if (m) {
		/*
		 * The counts make_cut.py prints (Python over the same file, with
		 * processGeckoProfile's rules):
		 *   GeckoMain: 213 samples, 135 markers
		 *   GeckoMain: 29 samples, 61 markers
		 */
		PC_CHECK_EQ_INT(m->nthreads, 2);
		if (m->nthreads == 2) {
			PC_CHECK_EQ_INT(m->threads[0]->samples.len, 213);
			PC_CHECK_EQ_INT(m->threads[0]->markers.len, 135);
			PC_CHECK_EQ_INT(m->threads[1]->samples.len, 29);
			PC_CHECK_EQ_INT(m->threads[1]->markers.len, 61);
			PC_CHECK_EQ_INT(m->threads[0]->pid, 24031);
			PC_CHECK_EQ_INT(m->threads[1]->pid, 24148);
			PC_CHECK(m->threads[0]->is_main && m->threads[1]->is_main);
			PC_CHECK_EQ_STR(pc_str(m, m->threads[1]->name), "GeckoMain");
			/* subprocess: startTime 1795311054743.6814 - 1795311053805.2407 ms */
			PC_CHECK_EQ_INT(m->processes.rows[m->threads[0]->process].start, 0);
			PC_CHECK_EQ_INT(m->processes.rows[m->threads[1]->process].start, 938440700);
			PC_CHECK(m->threads[0]->process != m->threads[1]->process);
			/* each process has the mappings of the libs its frames use */
			PC_CHECK(m->processes.rows[m->threads[0]->process].nmaps > 0);
			/*
			 * samples' eventDelay (ms, to the ns) and threadCPUDelta
			 * (ns) as written; gecko.counts.* checks every value
			 */
			{
				const struct pc_samples *s = &m->threads[0]->samples;

				PC_CHECK(s->event_delay && s->cpu_delta);
				if (s->event_delay && s->cpu_delta && s->len == 213) {
					/* [.., null, null], [.., 0, null], [.., 3.5423389999999997, 12959812] */
					PC_CHECK_EQ_INT(s->event_delay[0], PC_NO_TIME);
					PC_CHECK_EQ_INT(s->cpu_delta[0], INT64_MIN);
					PC_CHECK_EQ_INT(s->event_delay[2], 0);
					PC_CHECK_EQ_INT(s->cpu_delta[2], INT64_MIN);
					PC_CHECK_EQ_INT(s->event_delay[15], 3542339);
					PC_CHECK_EQ_INT(s->cpu_delta[15], 12959812);
				}
				s = &m->threads[1]->samples;
				PC_CHECK(s->event_delay && s->cpu_delta);
				if (s->event_delay && s->cpu_delta && s->len == 29) {
					PC_CHECK_EQ_INT(s->event_delay[6], 7318396);
					PC_CHECK_EQ_INT(s->cpu_delta[1], 2737539);
				}
			}
			PC_CHECK_EQ_STR(m->meta.unit_cpu_delta, "ns");
		}
		PC_CHECK_EQ_INT(m->meta.start_time_ns, 1795311053805240700LL);
		PC_CHECK_EQ_INT(m->meta.interval_ns, 20000000);
		PC_CHECK_EQ_INT(m->ncategories, 26);
		PC_CHECK_EQ_STR(m->categories[0].name, "Idle");
		PC_CHECK(m->schemas.len >= 36);
		PC_CHECK_EQ_INT(m->meta.symbolicated, 0);
		PC_CHECK(m->libs.len > 0);
		/* processed JSON of it reads back and writes the same bytes */
		err = pc_writer_processed.write(ctx, m, mem_write, &a);
		PC_CHECK_EQ_INT(err, 0);
		back = read_mem(ctx, &pc_reader_processed, a.p, a.len, "out.json", &err);
		PC_CHECK_EQ_INT(err, 0);
		if (back) {
			err = pc_writer_processed.write(ctx, back, mem_write, &b);
			PC_CHECK_EQ_INT(err, 0);
			PC_CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
			pc_model_free(back);
		}
		pc_model_free(m);
	}
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	free(a.p);
	free(b.p);
	free(text);
	profconv_ctx_free(ctx);
}

/*
 * libfoo.so is mapped at 0x11000..0x20000 from file offset 0x1000, so its
 * base is 0x10000: 0x11100 is lib-relative 0x1100, 0x11200 is 0x1200.
 *
 * stacks: s0 main; s1 s0>0x11100; s2 s1>0x11200; s3 s1>0x500000 (no lib);
 *         s4 s0>run (JS); s5 s4>label
 * samples: s1, s2, s3, s5, (empty)
 * 0x11100 is a sampled leaf (s1) and a caller (of s2 and s3): two frames,
 * 0x1100 and 0x10ff, one func, named "0x1100".  The marker's backtrace is s2 as a caller:
 * its leaf 0x11200 becomes 0x11ff.
 */
static const char tiny[] =
	"{\"meta\":{\"version\":36,\"startTime\":1000,\"shutdownTime\":null,\"interval\":1,"
	"\"stackwalk\":1,\"processType\":0,\"product\":\"Firefox\","
	"\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
	"{\"name\":\"JavaScript\",\"color\":\"yellow\",\"subcategories\":[\"Other\",\"Baseline\"]}],"
	"\"markerSchema\":[{\"name\":\"Phase\",\"display\":[\"marker-chart\"],\"data\":["
	"{\"key\":\"detail\",\"format\":\"string\",\"searchable\":true},"
	"{\"key\":\"what\",\"label\":\"What\",\"format\":\"unique-string\"},"
	"{\"label\":\"Description\",\"value\":\"A phase.\"}]}]},\n"
	"\"libs\":[{\"start\":1048576,\"end\":1052672,\"offset\":0,\"name\":\"libunused.so\","
	"\"path\":\"/lib/libunused.so\",\"debugName\":\"libunused.so\",\"debugPath\":\"/lib/libunused.so\","
	"\"breakpadId\":\"DEF0\",\"arch\":\"x86_64\"},"
	"{\"start\":69632,\"end\":131072,\"offset\":4096,\"name\":\"libfoo.so\","
	"\"path\":\"/lib/libfoo.so\",\"debugName\":\"libfoo.so\",\"debugPath\":\"/lib/libfoo.so\","
	"\"breakpadId\":\"ABC0\",\"codeId\":\"abc\",\"arch\":\"x86_64\"}],\n"
	"\"sources\":{\"schema\":{\"id\":0,\"filename\":1,\"startLine\":2,\"startColumn\":3,"
	"\"sourceMapURL\":4},\"data\":[[\"s1\",\"http://example.com/a.js\",1,1,null]]},\n"
	"\"pausedRanges\":[],\"processes\":[],\n"
	"\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"default\",\"processName\":\"Parent\","
	"\"tid\":11,\"pid\":10,\"registerTime\":0,\"unregisterTime\":null,\n"
	"\"stringTable\":[\"0x11100\",\"0x11200\",\"0x500000\",\"non-virtual thunk to main (in libfoo.so) + 12\","
	"\"run (http://Example.com:80/x -> http://example.com:80/a.js:10:5)[0]\",\"label\",\"Phase\","
	"\"what-value\"],\n"
	"\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,\"innerWindowID\":2,"
	"\"implementation\":3,\"line\":4,\"column\":5,\"category\":6,\"subcategory\":7},\"data\":["
	"[3,false,0,null,null,null,0,0],[0,false,0,null,null,null,0,0],"
	"[1,false,0,null,null,null,null,null],[2,false,0,null,null,null,0,0],"
	"[4,false,7,null,10,5,1,1],[5,true,0,null,null,null,0,0]]},\n"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},"
	"\"data\":[[null,0],[0,1],[1,2],[1,3],[0,4],[4,5]]},\n"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2},"
	"\"data\":[[1,1.5,0],[2,2.5,0],[3,3,0],[5,4,0],[null,5,0]]},\n"
	"\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,"
	"\"data\":5},\"data\":["
	"[6,3,4,1,0,{\"type\":\"Phase\",\"what\":7,\"stack\":{\"tid\":11,\"samples\":{\"schema\":"
	"{\"stack\":0,\"time\":1},\"data\":[[2,3.5]]}}}],"
	"[6,1,null,0,1,null],[6,null,null,0,0,null]]}}]}\n";

/* The model frame whose func is named name and whose address is addr. */
static uint32_t find_frame(const struct pc_model *m, const char *name, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < m->frames.len; i++)
		if (m->frames.address[i] == addr &&
		    strcmp(pc_str(m, m->funcs.name[m->frames.func[i]]), name) == 0)
			return i;
	return PC_NONE;
}

static void hand_written(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m;
	uint32_t leaf, caller, f2, f2c, nolib, fmain, fjs, flabel, u, s, res;
	int err;

	m = read_mem(ctx, &pc_reader_gecko, tiny, sizeof(tiny) - 1, "tiny.json", &err);
	if (err)
		fprintf(stderr, "tiny.json: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	/* every lib of `libs`: the one an address needs, then the unused one */
	PC_CHECK_EQ_INT(m->libs.len, 2);
	PC_CHECK_EQ_STR(pc_str(m, m->libs.rows[0].name), "libfoo.so");
	if (m->libs.len == 2)
		PC_CHECK_EQ_STR(pc_str(m, m->libs.rows[1].name), "libunused.so");
	PC_CHECK_EQ_INT(m->processes.len, 1);
	if (m->processes.len == 1)
		PC_CHECK_EQ_INT(m->processes.rows[0].nmaps, 2);
	PC_CHECK_EQ_STR(pc_str(m, m->libs.rows[0].code_id), "abc");
	res = m->libs.rows[0].resource;
	PC_CHECK(res != PC_NONE);
	if (res != PC_NONE) {
		PC_CHECK_EQ_STR(pc_str(m, m->resources.name[res]), "libfoo.so");
		PC_CHECK_EQ_INT(m->resources.type[res], PC_RES_LIBRARY);
	}

	/* address funcs are named by their lib-relative address */
	leaf = find_frame(m, "0x1100", 0x1100);
	caller = find_frame(m, "0x1100", 0x10ff);
	f2 = find_frame(m, "0x1200", 0x1200);
	f2c = find_frame(m, "0x1200", 0x11ff);
	nolib = find_frame(m, "0x500000", PC_NO_ADDRESS);
	fmain = find_frame(m, "main", PC_NO_ADDRESS);
	fjs = find_frame(m, "run", PC_NO_ADDRESS);
	flabel = find_frame(m, "label", PC_NO_ADDRESS);
	PC_CHECK(leaf != PC_NONE && caller != PC_NONE && f2 != PC_NONE && f2c != PC_NONE);
	PC_CHECK(nolib != PC_NONE && fmain != PC_NONE && fjs != PC_NONE && flabel != PC_NONE);
	if (leaf == PC_NONE || caller == PC_NONE || f2 == PC_NONE || f2c == PC_NONE ||
	    nolib == PC_NONE || fmain == PC_NONE || fjs == PC_NONE || flabel == PC_NONE)
		goto out;
	/* one func per address, shared by the leaf and the nudged caller frame */
	PC_CHECK_EQ_INT(m->frames.func[leaf], m->frames.func[caller]);
	PC_CHECK(m->frames.func[leaf] != m->frames.func[f2]);
	PC_CHECK_EQ_INT(m->frames.func[f2], m->frames.func[f2c]);
	PC_CHECK_EQ_INT(m->frames.lib[leaf], 0);
	PC_CHECK_EQ_INT(m->funcs.resource[m->frames.func[leaf]], res);
	PC_CHECK_EQ_INT(m->frames.category[f2], PC_NO_CATEGORY);
	/* 0x500000 is in no lib: no address, no lib, no resource */
	PC_CHECK_EQ_INT(m->frames.lib[nolib], PC_NONE);
	PC_CHECK_EQ_INT(m->funcs.resource[m->frames.func[nolib]], PC_NONE);
	/* "non-virtual thunk to main (in libfoo.so) + 12": the lib's resource by name */
	PC_CHECK_EQ_INT(m->funcs.resource[m->frames.func[fmain]], res);
	PC_CHECK_EQ_INT(m->frames.lib[fmain], PC_NONE);
	/* JS: the last URL of the chain, default port dropped from the origin */
	u = m->frames.func[fjs];
	PC_CHECK(m->funcs.is_js[u]);
	PC_CHECK_EQ_INT(m->funcs.line[u], 10);
	PC_CHECK_EQ_INT(m->funcs.column[u], 5);
	PC_CHECK_EQ_INT(m->frames.line[fjs], 10);
	PC_CHECK_EQ_INT(m->frames.category[fjs], 1);
	PC_CHECK_EQ_INT(m->frames.subcategory[fjs], 1);
	PC_CHECK_EQ_INT(pc_frame_inner_window_id(&m->frames, fjs), 7);
	res = m->funcs.resource[u];
	PC_CHECK(res != PC_NONE);
	if (res != PC_NONE) {
		PC_CHECK_EQ_STR(pc_str(m, m->resources.name[res]), "http://example.com");
		PC_CHECK_EQ_STR(pc_str(m, m->resources.host[res]), "example.com");
		PC_CHECK_EQ_INT(m->resources.type[res], PC_RES_WEBHOST);
	}
	s = m->funcs.source[u];
	PC_CHECK(s != PC_NONE);
	if (s != PC_NONE) {
		struct pc_source_row row;

		pc_source_get(m, s, &row);
		PC_CHECK_EQ_STR(pc_str(m, row.filename), "http://example.com/a.js");
		PC_CHECK(row.id != PC_NONE && strcmp(pc_str(m, row.id), "s1") == 0);
	}
	PC_CHECK(m->funcs.relevant_for_js[m->frames.func[flabel]]);
	PC_CHECK_EQ_INT(m->funcs.resource[m->frames.func[flabel]], PC_NONE);

	/* samples: leaf frames keep their address, their callers are nudged */
	PC_CHECK_EQ_INT(m->nthreads, 1);
	{
		const struct pc_thread *t = m->threads[0];
		const uint32_t *st = t->samples.stack;

		PC_CHECK(t->is_main);
		PC_CHECK_EQ_INT(t->samples.len, 5);
		PC_CHECK_EQ_INT(t->samples.time[0], 1500000);
		PC_CHECK_EQ_INT(m->stacks.frame[st[0]], leaf);
		PC_CHECK_EQ_INT(m->stacks.frame[st[1]], f2);
		PC_CHECK_EQ_INT(m->stacks.frame[m->stacks.prefix[st[1]]], caller);
		PC_CHECK_EQ_INT(m->stacks.frame[m->stacks.prefix[st[2]]], caller);
		PC_CHECK_EQ_INT(m->stacks.prefix[st[1]], m->stacks.prefix[st[2]]);
		PC_CHECK_EQ_INT(m->stacks.frame[st[3]], flabel);
		PC_CHECK_EQ_INT(st[4], PC_NONE);

		/* markers: sorted by end || start, the timeless one dropped */
		PC_CHECK_EQ_INT(t->markers.len, 2);
		PC_CHECK_EQ_INT(profconv_warning_count(ctx), 1);
		if (t->markers.len == 2) {
			cJSON *d;

			PC_CHECK_EQ_INT(t->markers.start[0], 1000000);
			PC_CHECK_EQ_INT(t->markers.category[0], 1);
			PC_CHECK_EQ_INT(t->markers.payload[0], PC_NONE);
			PC_CHECK_EQ_INT(t->markers.start[1], 3000000);
			PC_CHECK_EQ_INT(t->markers.end[1], 4000000);
			PC_CHECK_EQ_STR(pc_str(m, t->markers.name[1]), "Phase");
			/* the cause is in the cause columns; the payload as written */
			PC_CHECK_EQ_INT(t->markers.cause_tid[1], 11);
			PC_CHECK_EQ_INT(t->markers.cause_time[1], 3500000);
			PC_CHECK(pc_pv_member(m, t->markers.payload[1], "what") != PC_NONE &&
				 pc_pv(m, pc_pv_member(m, t->markers.payload[1], "what"))->kind ==
					 PC_VAL_SREF);
			d = pv_json(m, t, 1);
			PC_CHECK(d != NULL);
			if (d) {
				cJSON *cause = cJSON_GetObjectItem(d, "cause");
				cJSON *what = cJSON_GetObjectItem(d, "what");

				PC_CHECK(!cJSON_GetObjectItem(d, "stack"));
				PC_CHECK(cJSON_IsNumber(what) &&
					 strcmp(pc_str(m, (uint32_t)what->valuedouble),
						"what-value") == 0);
				PC_CHECK(cJSON_IsObject(cause));
				if (cJSON_IsObject(cause)) {
					uint32_t cs = (uint32_t)cJSON_GetObjectItem(cause, "stack")
							      ->valuedouble;

					PC_CHECK_EQ_INT(cJSON_GetObjectItem(cause, "tid")->valuedouble, 11);
					PC_CHECK(cJSON_GetObjectItem(cause, "time")->valuedouble == 3.5);
					PC_CHECK(cs < m->stacks.len);
					if (cs < m->stacks.len) {
						PC_CHECK_EQ_INT(m->stacks.frame[cs], f2c);
						PC_CHECK_EQ_INT(m->stacks.prefix[cs],
								m->stacks.prefix[st[1]]);
					}
				}
				cJSON_Delete(d);
			}
		}
	}
	/* the schema: data -> fields (searchable dropped), static field -> description */
	PC_CHECK_EQ_INT(m->schemas.len, 1);
	if (m->schemas.len == 1) {
		char *js = pv_text(m, m->schemas.rows[0].body);

		PC_CHECK_EQ_STR(js,
				"{\"name\":\"Phase\",\"display\":[\"marker-chart\"],\"fields\":[{\"key\":\"detail\",\"format\":\"string\"},{\"key\":\"what\",\"label\":\"What\",\"format\":\"unique-string\"}],\"description\":\"A phase.\"}");
		free(js);
	}
	PC_CHECK_EQ_STR(m->meta.product, "Firefox");
out:
	pc_model_free(m);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/*
 * A malloc counter as Firefox writes it (time, count, number), then times
 * a double cannot hold (past 2^53 ns, and at the ends of int64 ns), counts
 * with more than six decimals, and samples with no usable time or count.
 * The subprocess starts 1 ns later: its counter's times are shifted by 1
 * ns, and INT64_MAX ns shifted leaves int64.
 */
static const char counted[] =
	"{\"meta\":{\"version\":36,\"startTime\":1000,\"interval\":1,\"processType\":0},"
	"\"libs\":[],\"pausedRanges\":[],\n"
	"\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"default\",\"tid\":11,\"pid\":10,"
	"\"registerTime\":0,\"unregisterTime\":null,\"stringTable\":[\"main\"],"
	"\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2},\"data\":[[0,1.5,0]]}}],\n"
	"\"counters\":[{\"name\":\"malloc\",\"category\":\"Memory\",\"description\":\"Amount of allocated memory\","
	"\"samples\":{\"schema\":{\"time\":0,\"count\":1,\"number\":2},\"data\":["
	"[98.789523,772576,1459],[108.869031,-344176,2617],"
	"[4503599627.370497,0.1234567,1],[9223372036854.775807,1e-9,2],"
	"[-9223372036854.775807,0.30000000000000004,3],[9200000000001.000001,5,7],"
	"[null,1,1],[1e300,1,1],[1,null,1],7]}}],\n"
	"\"processes\":[{\"meta\":{\"version\":36,\"startTime\":1000.000001,\"interval\":1,"
	"\"processType\":2},\"libs\":[],\"pausedRanges\":[],\"processes\":[],"
	"\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"tab\",\"tid\":21,\"pid\":20,"
	"\"registerTime\":0,\"unregisterTime\":null,\"stringTable\":[\"main\"],"
	"\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2},\"data\":[[0,1,0]]}}],"
	"\"counters\":[{\"name\":\"sub\",\"category\":\"Memory\",\"description\":\"\","
	"\"samples\":{\"schema\":{\"time\":0,\"count\":1},\"data\":["
	"[9223372036854.775807,1],[18014398509.481985,2]]}}]}]}\n";

/* Counter i of a and b hold the same samples, exactly. */
static void same_counter(const struct pc_model *a, const struct pc_model *b, uint32_t i)
{
	const struct pc_counter *x = &a->counters.rows[i], *y = &b->counters.rows[i];
	uint32_t k;

	PC_CHECK_EQ_INT(x->len, y->len);
	PC_CHECK((x->number == NULL) == (y->number == NULL));
	for (k = 0; k < x->len && k < y->len; k++) {
		PC_CHECK_EQ_INT(x->time[k], y->time[k]);
		PC_CHECK(x->count[k] == y->count[k]);
		PC_CHECK(!x->number || !y->number || x->number[k] == y->number[k]);
	}
}

/*
 * A counter's samples keep every column: the number column (allocations
 * since the previous sample) came out all 0, as the call that read it was
 * given num before the argument beside it had set it.  Times are exact ns,
 * as sample and marker times are: through a double, 4503599627.370497 ms
 * came back 1 ns off, and past 9.2e12 ms a sample was dropped without a
 * word.  Counts keep every digit.  The Gecko writer's output and the
 * processed writer's read back to the same counters.
 */
static void counters(void)
{
	static const int64_t want_t[] = { 98789523,	     108869031,  4503599627370497LL,
					  INT64_MAX,	     -INT64_MAX, 9200000000001000001LL };
	static const double want_c[] = { 772576, -344176, 0.1234567, 1e-9, 0.1 + 0.2, 5 };
	static const double want_n[] = { 1459, 2617, 1, 2, 3, 7 };
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct membuf g = { 0 }, pr = { 0 };
	struct pc_model *m, *back;
	uint32_t k;
	int err;

	m = read_mem(ctx, &pc_reader_gecko, counted, sizeof(counted) - 1, "counted.json", &err);
	if (err)
		fprintf(stderr, "counted.json: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	/* [null,1,1], [1e300,1,1], [1,null,1], 7 and the shifted INT64_MAX */
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 5);
	PC_CHECK_EQ_INT(m->counters.len, 2);
	if (m->counters.len == 2) {
		const struct pc_counter *c = &m->counters.rows[0], *sub = &m->counters.rows[1];

		PC_CHECK_EQ_STR(c->name, "malloc");
		PC_CHECK_EQ_INT(c->len, 6);
		PC_CHECK(c->number != NULL);
		for (k = 0; k < c->len && k < 6 && c->number; k++) {
			PC_CHECK_EQ_INT(c->time[k], want_t[k]);
			PC_CHECK(c->count[k] == want_c[k]);
			PC_CHECK(c->number[k] == want_n[k]);
		}
		PC_CHECK(c->process != PC_NONE && c->process == m->threads[0]->process);
		PC_CHECK_EQ_STR(sub->name, "sub");
		PC_CHECK_EQ_INT(sub->len, 1);
		PC_CHECK(sub->number == NULL);
		if (sub->len == 1) {
			PC_CHECK_EQ_INT(sub->time[0], 18014398509481986LL);
			PC_CHECK(sub->count[0] == 2);
		}
		PC_CHECK(sub->process != PC_NONE && sub->process != c->process);
	}
	/* --to gecko and back, and processed and back: the same counters */
	PC_CHECK_EQ_INT(pc_writer_gecko.write(ctx, m, mem_write, &g), 0);
	back = g.p ? read_mem(ctx, &pc_reader_gecko, g.p, g.len, "back.json", &err) : NULL;
	PC_CHECK(back != NULL);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 5); /* no new one */
	if (back) {
		PC_CHECK_EQ_INT(back->counters.len, m->counters.len);
		for (k = 0; k < m->counters.len && k < back->counters.len; k++)
			same_counter(m, back, k);
		pc_model_free(back);
	}
	PC_CHECK_EQ_INT(pc_writer_processed.write(ctx, m, mem_write, &pr), 0);
	back = pr.p ? read_mem(ctx, &pc_reader_processed, pr.p, pr.len, "back.json", &err) : NULL;
	PC_CHECK(back != NULL);
	if (back) {
		PC_CHECK_EQ_INT(back->counters.len, m->counters.len);
		for (k = 0; k < m->counters.len && k < back->counters.len; k++)
			same_counter(m, back, k);
		pc_model_free(back);
	}
	PC_CHECK(pr.p && strstr(pr.p, "9223372036854.775807") && strstr(pr.p, "4503599627.370497"));
	pc_model_free(m);
	free(g.p);
	free(pr.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/*
 * A parent process starting at -9e12 ms and a subprocess at +9e12 ms: the
 * subprocess's shift, 1.8e19 ns, leaves int64 (UBSan: signed overflow in
 * convert_thread(), then in adding it to sample and marker times).  A time
 * t of the subprocess is t + 1.8e19 ns in the parent's: at t = -9e12 ms that
 * is 9e18 ns and is kept, exactly; at t >= 0 it leaves int64 and its sample,
 * marker (either end) or counter sample is dropped with a counted warning.
 * The thread's and process's own times saturate.
 */
static const char shifted[] =
	"{\"meta\":{\"version\":36,\"startTime\":-9e12,\"interval\":1,\"processType\":0},"
	"\"libs\":[],\"pausedRanges\":[],\"threads\":[],\n"
	"\"processes\":[{\"meta\":{\"version\":36,\"startTime\":9e12,\"shutdownTime\":2,"
	"\"interval\":1,\"processType\":2},\"libs\":[],\"pausedRanges\":[],\"processes\":[],\n"
	"\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"tab\",\"tid\":21,\"pid\":20,"
	"\"registerTime\":0,\"unregisterTime\":3,\"stringTable\":[\"main\",\"M\"],"
	"\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},\n"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2},\"data\":["
	"[0,-9223372036854.775807,0],[0,-9000000000000,0],[0,1,0]]},\n"
	"\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,"
	"\"data\":5},\"data\":[[1,1,null,0,0,null],[1,-9000000000000,-8999999999999,1,0,"
	"{\"type\":\"M\",\"startTime\":-9000000000000}],[1,-9000000000000,1,1,0,null]]}}],\n"
	"\"counters\":[{\"name\":\"c\",\"category\":\"Memory\",\"description\":\"\","
	"\"samples\":{\"schema\":{\"time\":0,\"count\":1},\"data\":[[-9000000000000,5],[1,6]]}}]}]}\n";

static void subprocess_shift(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct membuf out = { 0 };
	struct pc_model *m;
	int err;

	m = read_mem(ctx, &pc_reader_gecko, shifted, sizeof(shifted) - 1, "shifted.json", &err);
	if (err)
		fprintf(stderr, "shifted.json: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	PC_CHECK_EQ_STR(profconv_warning_summary(ctx),
			"1 counter samples dropped; "
			"3 subprocess samples and markers shifted out of range dropped");
	PC_CHECK_EQ_INT(m->nthreads, 1);
	if (m->nthreads == 1) {
		const struct pc_thread *t = m->threads[0];
		const struct pc_process *p = &m->processes.rows[t->process];

		PC_CHECK_EQ_INT(t->samples.len, 2);
		if (t->samples.len == 2) {
			/* -INT64_MAX + 1.8e19 */
			PC_CHECK_EQ_INT(t->samples.time[0], 8776627963145224193LL);
			PC_CHECK_EQ_INT(t->samples.time[1], 9000000000000000000LL);
		}
		PC_CHECK_EQ_INT(t->markers.len, 1);
		if (t->markers.len == 1) {
			uint32_t st = pc_pv_member(m, t->markers.payload[0], "startTime");
			double d = 0;

			PC_CHECK_EQ_INT(t->markers.start[0], 9000000000000000000LL);
			PC_CHECK_EQ_INT(t->markers.end[0], 9000000000001000000LL);
			/* the payload's own times move with it (as doubles) */
			PC_CHECK(st != PC_NONE && pc_jr_pv_double(m, st, &d) && d == 9e12);
		}
		PC_CHECK_EQ_INT(t->register_time, INT64_MAX);
		PC_CHECK_EQ_INT(t->unregister_time, INT64_MAX);
		PC_CHECK_EQ_INT(p->start, INT64_MAX);
		PC_CHECK_EQ_INT(p->end, INT64_MAX);
	}
	PC_CHECK_EQ_INT(m->counters.len, 1);
	if (m->counters.len == 1) {
		PC_CHECK_EQ_INT(m->counters.rows[0].len, 1);
		if (m->counters.rows[0].len == 1)
			PC_CHECK_EQ_INT(m->counters.rows[0].time[0], 9000000000000000000LL);
	}
	PC_CHECK_EQ_INT(pc_writer_processed.write(ctx, m, mem_write, &out), 0);
	PC_CHECK(out.p && strstr(out.p, "9000000000000") != NULL);
	pc_model_free(m);
	free(out.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

/*
 * Samples' eventDelay and threadCPUDelta, kept as the front-end keeps them
 * (_processSamples()): eventDelay (ms) whenever the schema names it, nulls
 * included; threadCPUDelta (in sampleUnits.threadCPUDelta units) when some
 * sample of the thread has one.  Columns are found through the schema, in
 * any order, and a row may stop short (absent is null).  Values the model
 * cannot hold ("x", 1e300 ms, a fraction of a CPU delta) are made null with
 * one counted warning.  The subprocess starts 1 ms later: its sample times
 * move, its delays (durations) do not.
 */
static const char delayed[] =
	"{\"meta\":{\"version\":36,\"startTime\":1000,\"interval\":1,\"processType\":0,"
	"\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":\"\\u00b5s\"}},"
	"\"libs\":[],\"pausedRanges\":[],\n"
	"\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"default\",\"tid\":11,\"pid\":10,"
	"\"registerTime\":0,\"unregisterTime\":null,\"stringTable\":[\"main\"],"
	"\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},\n"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2,\"threadCPUDelta\":3},"
	"\"data\":[[0,1,null,null],[0,2,0,1500],[0,3,16.5,2000],[0,4,3.5423389999999997,-7],"
	"[0,5],[0,6,\"x\",1.5],[0,7,1e300,9223372036854775807]]}},\n"
	"{\"name\":\"Other\",\"processType\":\"default\",\"tid\":12,\"pid\":10,"
	"\"registerTime\":0,\"unregisterTime\":null,\"stringTable\":[\"main\"],"
	"\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},\n"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[0,1],[0,2]]}}],\n"
	"\"processes\":[{\"meta\":{\"version\":36,\"startTime\":1001,\"interval\":1,"
	"\"processType\":2},\"libs\":[],\"pausedRanges\":[],\"processes\":[],"
	"\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"tab\",\"tid\":21,\"pid\":20,"
	"\"registerTime\":0,\"unregisterTime\":null,\"stringTable\":[\"main\"],"
	"\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},\n"
	"\"samples\":{\"schema\":{\"threadCPUDelta\":0,\"time\":1,\"eventDelay\":2,\"stack\":3},"
	"\"data\":[[null,1,2.5,0],[null,2,null,0]]}}]}]}\n";

/*
 * The delay columns of the three threads of delayed[], in any model of it;
 * all_ed: the second thread has an eventDelay column of nulls (what the
 * Gecko writer writes, since the front-end needs one).
 */
static void check_delays(const struct pc_model *m, const char *what, int all_ed)
{
	static const int64_t ed0[] = { PC_NO_TIME, 0,	       16500000,  3542339,
				       PC_NO_TIME, PC_NO_TIME, PC_NO_TIME };
	static const int64_t cpu0[] = { INT64_MIN, 1500, 2000, -7, INT64_MIN, INT64_MIN, INT64_MAX };
	const struct pc_samples *s;
	uint32_t k;

	PC_CHECK_EQ_INT(m->nthreads, 3);
	if (m->nthreads != 3)
		return;
	s = &m->threads[0]->samples;
	PC_CHECK_EQ_INT(s->len, 7);
	PC_CHECK(s->event_delay != NULL && s->cpu_delta != NULL);
	for (k = 0; k < s->len && k < 7 && s->event_delay && s->cpu_delta; k++) {
		if (s->event_delay[k] != ed0[k] || s->cpu_delta[k] != cpu0[k])
			fprintf(stderr, "%s: sample %u: eventDelay %lld, threadCPUDelta %lld\n", what,
				k, (long long)s->event_delay[k], (long long)s->cpu_delta[k]);
		PC_CHECK_EQ_INT(s->event_delay[k], ed0[k]);
		PC_CHECK_EQ_INT(s->cpu_delta[k], cpu0[k]);
	}
	/* no eventDelay in the schema, no threadCPUDelta: neither column */
	s = &m->threads[1]->samples;
	PC_CHECK_EQ_INT(s->len, 2);
	PC_CHECK(s->cpu_delta == NULL);
	if (all_ed)
		PC_CHECK(s->event_delay && s->len == 2 && s->event_delay[0] == PC_NO_TIME &&
			 s->event_delay[1] == PC_NO_TIME);
	else
		PC_CHECK(s->event_delay == NULL);
	/* every threadCPUDelta null: no column; eventDelay not shifted */
	s = &m->threads[2]->samples;
	PC_CHECK_EQ_INT(s->len, 2);
	PC_CHECK(s->cpu_delta == NULL && s->event_delay != NULL);
	if (s->len == 2 && s->event_delay) {
		PC_CHECK_EQ_INT(s->time[0], 2000000);
		PC_CHECK_EQ_INT(s->event_delay[0], 2500000);
		PC_CHECK_EQ_INT(s->event_delay[1], PC_NO_TIME);
	}
	PC_CHECK(m->meta.unit_cpu_delta && strcmp(m->meta.unit_cpu_delta, "\xc2\xb5s") == 0);
	PC_CHECK(m->meta.unit_event_delay && strcmp(m->meta.unit_event_delay, "ms") == 0);
}

static void sample_delays(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct membuf pr = { 0 }, g = { 0 };
	struct pc_model *m, *back;
	int err;

	m = read_mem(ctx, &pc_reader_gecko, delayed, sizeof(delayed) - 1, "delayed.json", &err);
	if (err)
		fprintf(stderr, "delayed.json: %s\n", ctx->errmsg);
	PC_CHECK_EQ_INT(err, 0);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	PC_CHECK_EQ_STR(profconv_warning_summary(ctx),
			"3 unusable sample eventDelay or threadCPUDelta values made null");
	check_delays(m, "read", 0);
	/* Gecko -> processed: the event-delay track and the CPU graph's data */
	PC_CHECK_EQ_INT(pc_writer_processed.write(ctx, m, mem_write, &pr), 0);
	PC_CHECK(pr.p && strstr(pr.p, "\"threadCPUDelta\":[null,1500,2000,-7,null,null,"
				     "9223372036854775807],\"eventDelay\":[null,0,16.5,3.542339,"
				     "null,null,null]"));
	PC_CHECK(pr.p && strstr(pr.p, "\"eventDelay\":[2.5,null]"));
	PC_CHECK(pr.p && strstr(pr.p, "\"threadCPUDelta\":\"\xc2\xb5s\""));
	back = pr.p ? read_mem(ctx, &pc_reader_processed, pr.p, pr.len, "back.json", &err) : NULL;
	PC_CHECK(back != NULL);
	if (back) {
		check_delays(back, "processed, read back", 0);
		pc_model_free(back);
	}
	/* and --to gecko, read back */
	PC_CHECK_EQ_INT(pc_writer_gecko.write(ctx, m, mem_write, &g), 0);
	back = g.p ? read_mem(ctx, &pc_reader_gecko, g.p, g.len, "back.json", &err) : NULL;
	PC_CHECK(back != NULL);
	if (back) {
		check_delays(back, "gecko, read back", 1);
		pc_model_free(back);
	}
	pc_model_free(m);
	free(pr.p);
	free(g.p);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

static void broken(const char *json, int want_code, const char *want)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m;
	int err;

	m = read_mem(ctx, &pc_reader_gecko, json, strlen(json), "t.json", &err);
	PC_CHECK(m == NULL);
	PC_CHECK_EQ_INT(err & 0xff, want_code);
	PC_CHECK_EQ_STR(ctx->errmsg, want);
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

#define GMETA "{\"meta\":{\"version\":36,\"startTime\":0},\"libs\":[],\"sources\":{}"

static void broken_inputs(void)
{
	broken("{\"meta\":{\"version\":19}}", PROFCONV_ERR_UNSUPPORTED,
	       "t.json:1:9: Gecko profile version 19; versions 20 to 36 are read");
	broken("{\"meta\":{\"version\":37}}", PROFCONV_ERR_UNSUPPORTED,
	       "t.json:1:9: Gecko profile version 37; versions 20 to 36 are read");
	broken("{\"threads\":[]}", PROFCONV_ERR_CORRUPT,
	       "t.json: no \"meta\" member: not a Gecko profile");
	broken(GMETA ",\"threads\":[{\"stringTable\":[\"a\"],"
		     "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},\n"
		     "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[1,0],[null,0]]}}]}",
	       PROFCONV_ERR_CORRUPT, "t.json:2:54: stackTable.data[0]: prefix 1 is not before the stack");
	broken(GMETA ",\"threads\":[{\"stringTable\":[\"a\"],"
		     "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[3]]}}]}",
	       PROFCONV_ERR_CORRUPT,
	       "t.json:1:138: frameTable.data[0]: location 3 is out of range (0 to 0)");
	broken(GMETA ",\"threads\":[{\"samples\":{\"data\":[]}}]}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:91: samples has data but no schema");
	broken(GMETA ",\"libs\":[{\"start\":1}]}", PROFCONV_ERR_CORRUPT,
	       "t.json:1:68: a process has two \"libs\" members");
	broken("{\"meta\":{\"version\":36},\"libs\":[{\"start\":1,\"name\":\"x\"}]}",
	       PROFCONV_ERR_CORRUPT, "t.json:1:32: libs[0] has no start or end address");
}

static void bids(void)
{
	static const char a[] = "{\"meta\":{\"version\":34},\"threads\":[]}";
	static const char b[] = "{\"libs\":[{\"start\":1,\"end\":2,\"offset\":0,\"breakpadId\":\"x\"";
	static const char c[] = "{\"meta\":{\"preprocessedProfileVersion\":70},\"threads\":[]}";

	PC_CHECK_EQ_INT(pc_reader_gecko.bid((const unsigned char *)a, sizeof(a) - 1), 24);
	PC_CHECK_EQ_INT(pc_reader_gecko.bid((const unsigned char *)b, sizeof(b) - 1), 24);
	PC_CHECK_EQ_INT(pc_reader_gecko.bid((const unsigned char *)c, sizeof(c) - 1), 0);
	PC_CHECK(pc_reader_detect((const unsigned char *)a, sizeof(a) - 1) == &pc_reader_gecko);
	PC_CHECK(pc_reader_detect((const unsigned char *)c, sizeof(c) - 1) == &pc_reader_processed);
}

/*
 * profconv's own frameTable columns (what "name (in lib)" cannot carry, as
 * write_gecko.c writes them): the frame's absolute address (lib and
 * lib-relative address, a caller nudged), inline depth, native symbol and
 * the native function's source; the "lib" column for a lib no process
 * maps (libbar.so, an empty range, as processed inputs' libs are written).
 * libfoo.so is mapped at 0x10000 from file offset 0x1000: lib-relative =
 * absolute - 0xf000.
 */
static const char xcols[] =
	"{\"meta\":{\"version\":36,\"startTime\":0,\"interval\":1,\"processType\":0,"
	"\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}]},\n"
	"\"libs\":[{\"start\":65536,\"end\":131072,\"offset\":4096,\"name\":\"libfoo.so\","
	"\"path\":\"/lib/libfoo.so\",\"debugName\":\"libfoo.so\",\"debugPath\":\"/lib/libfoo.so\","
	"\"breakpadId\":\"ABC0\",\"arch\":\"x86_64\"},"
	"{\"start\":0,\"end\":0,\"offset\":0,\"name\":\"libbar.so\",\"path\":\"/lib/libbar.so\","
	"\"debugName\":\"libbar.so\",\"debugPath\":\"/lib/libbar.so\",\"breakpadId\":\"DEF0\"}],\n"
	"\"sources\":{\"schema\":{\"id\":0,\"filename\":1,\"startLine\":2,\"startColumn\":3,"
	"\"sourceMapURL\":4},\"data\":[[null,\"/src/a.c\",1,1,null],[null,\"/src/b.c\",1,1,null]]},\n"
	"\"threads\":[{\"name\":\"t\",\"tid\":2,\"pid\":2,\"registerTime\":0,\n"
	"\"stringTable\":[\"main (in libfoo.so)\",\"inl (in libfoo.so)\",\"main\",\"st (in libfoo.so)\","
	"\"bad (in libfoo.so)\",\"0x40 (in libbar.so)\"],\n"
	"\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,\"innerWindowID\":2,"
	"\"implementation\":3,\"line\":4,\"column\":5,\"category\":6,\"subcategory\":7,"
	"\"address\":8,\"inlineDepth\":9,\"nativeSymbol\":10,\"nativeSymbolAddress\":11,"
	"\"nativeSymbolSize\":12,\"source\":13,\"lib\":14},\"data\":["
	"[0,false,null,null,12,null,0,0,\"0x11100\",null,2,\"0x11000\",64,0],"
	"[0,false,null,null,14,null,0,0,\"0x11200\",null,2,\"0x11000\",64,0],"
	"[1,false,null,null,5,null,0,0,\"0x11200\",1,2,\"0x11000\",64,0],"
	"[3,false,null,null,null,null,0,0,\"0x11300\",null,null,null,null,0],"
	"[3,false,null,null,null,null,0,0,\"0x11400\",null,null,null,null,1],"
	"[4,false,null,null,null,null,0,0,7,\"x\"],"
	"[5,false,null,null,null,null,0,0,\"0x40\",null,null,null,null,null,1]]},\n"
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},"
	"\"data\":[[null,0],[0,1],[1,2],[null,3],[null,4],[null,5],[null,6]]},\n"
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1},"
	"\"data\":[[2,1],[3,2],[4,3],[5,4],[6,5]]},\n"
	"\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,"
	"\"category\":4,\"data\":5},\"data\":[]}}],\"processes\":[]}\n";

static uint32_t frame_at(const struct pc_model *m, const char *name, uint64_t addr,
			 uint16_t depth)
{
	uint32_t i;

	for (i = 0; i < m->frames.len; i++)
		if (m->frames.address[i] == addr && m->frames.inline_depth[i] == depth &&
		    strcmp(pc_str(m, m->funcs.name[m->frames.func[i]]), name) == 0)
			return i;
	return PC_NONE;
}

static void extension_columns(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_model *m;
	uint32_t root, mid, inl, st_a, st_b, bad, bar, ns, foo;
	struct pc_source_row ra, rb;
	int err;

	m = read_mem(ctx, &pc_reader_gecko, xcols, sizeof(xcols) - 1, "xcols.json", &err);
	PC_CHECK_EQ_INT(err, 0);
	if (!m) {
		profconv_ctx_free(ctx);
		return;
	}
	root = frame_at(m, "main", 0x20ff, 0); /* callers nudged */
	mid = frame_at(m, "main", 0x21ff, 0);
	inl = frame_at(m, "inl", 0x2200, 1); /* a leaf */
	st_a = frame_at(m, "st", 0x2300, 0);
	st_b = frame_at(m, "st", 0x2400, 0);
	bad = frame_at(m, "bad", PC_NO_ADDRESS, 0);
	bar = frame_at(m, "0x40", 0x40, 0); /* named as written, not "0x40 (in libbar.so)" */
	PC_CHECK(root != PC_NONE && mid != PC_NONE && inl != PC_NONE);
	PC_CHECK(st_a != PC_NONE && st_b != PC_NONE && bad != PC_NONE && bar != PC_NONE);
	if (root == PC_NONE || mid == PC_NONE || inl == PC_NONE || st_a == PC_NONE ||
	    st_b == PC_NONE || bad == PC_NONE || bar == PC_NONE)
		goto out;
	/* libs[1] of the file (sorted first by its start 0) */
	PC_CHECK(m->frames.lib[bar] < m->libs.len);
	if (m->frames.lib[bar] < m->libs.len) {
		PC_CHECK_EQ_STR(pc_str(m, m->libs.rows[m->frames.lib[bar]].name), "libbar.so");
		PC_CHECK_EQ_INT(m->funcs.resource[m->frames.func[bar]],
				m->libs.rows[m->frames.lib[bar]].resource);
	}
	foo = m->frames.lib[inl];
	PC_CHECK(foo < m->libs.len && strcmp(pc_str(m, m->libs.rows[foo].name), "libfoo.so") == 0);
	if (foo >= m->libs.len)
		goto out;
	PC_CHECK_EQ_INT(m->frames.line[inl], 5);
	PC_CHECK_EQ_INT(m->frames.func[root], m->frames.func[mid]);
	/* the native symbol: main at 0x2000, 64 bytes, shared by the three frames */
	ns = m->frames.native_symbol[inl];
	PC_CHECK(ns != PC_NONE);
	PC_CHECK_EQ_INT(m->frames.native_symbol[root], ns);
	PC_CHECK_EQ_INT(m->frames.native_symbol[mid], ns);
	if (ns != PC_NONE) {
		PC_CHECK_EQ_INT(m->native_symbols.lib[ns], foo);
		PC_CHECK_EQ_INT(m->native_symbols.address[ns], 0x2000);
		PC_CHECK_EQ_INT(m->native_symbols.size[ns], 64);
		PC_CHECK_EQ_STR(pc_str(m, m->native_symbols.name[ns]), "main");
	}
	/* two static functions "st" of one lib in two files are two functions */
	PC_CHECK(m->frames.func[st_a] != m->frames.func[st_b]);
	PC_CHECK_EQ_INT(m->frames.native_symbol[st_a], PC_NONE);
	PC_CHECK(m->funcs.source[m->frames.func[st_a]] < m->sources.len);
	PC_CHECK(m->funcs.source[m->frames.func[st_b]] < m->sources.len);
	if (m->funcs.source[m->frames.func[st_a]] < m->sources.len &&
	    m->funcs.source[m->frames.func[st_b]] < m->sources.len) {
		pc_source_get(m, m->funcs.source[m->frames.func[st_a]], &ra);
		pc_source_get(m, m->funcs.source[m->frames.func[st_b]], &rb);
		PC_CHECK_EQ_STR(pc_str(m, ra.filename), "/src/a.c");
		PC_CHECK_EQ_STR(pc_str(m, rb.filename), "/src/b.c");
	}
	PC_CHECK_EQ_INT(m->funcs.resource[m->frames.func[st_a]], m->libs.rows[foo].resource);
	/* "main (in libfoo.so)" made no function without its source */
	PC_CHECK_EQ_INT(m->funcs.len, 6);
	/* unusable values (an address that is not "0x...", an inline depth that is not a number) */
	PC_CHECK_EQ_INT(m->frames.lib[bad], PC_NONE);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 2);
	PC_CHECK_EQ_STR(profconv_warning_summary(ctx),
			"2 unusable profconv frame column values ignored");
out:
	pc_model_free(m);
	profconv_ctx_free(ctx);
}

int main(void)
{
	esr_cut();
	hand_written();
	extension_columns();
	counters();
	subprocess_shift();
	sample_delays();
	broken_inputs();
	bids();
	return pc_test_done();
}
