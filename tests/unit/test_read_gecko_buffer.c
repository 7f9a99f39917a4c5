/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_read_gecko_buffer.c - the PGKB producer (profconv_gecko_dump_scrape)
 * and the gecko-buffer reader on a real Firefox ESR 153 scrape
 * (tests/fixtures/gecko-buffer, README there): blocks, kinds, samples and
 * markers per thread against the reference decoder's counts, marker names
 * against the same session's shutdown JSON, and damaged dumps.
 */
#include "pc_test.h"

#include <unistd.h>

#include <cJSON.h>

#include "model/pc_model.h"
#include "readers/pc_reader.h"

#define START_NS 1059014505695ULL /* the shutdown JSON's startTimeAsClockMonotonic... */
#define EPOCH_MS 1795311669769.112

static char fixtures[4096], prefix[4200], dump[4200];

static cJSON *load_json(const char *name)
{
	char path[4400];
	size_t len;
	char *text;
	cJSON *j;

	snprintf(path, sizeof(path), "%s/gecko-buffer/%s", fixtures, name);
	text = pc_test_slurp(path, &len);
	PC_CHECK(text != NULL);
	j = text ? cJSON_Parse(text) : NULL;
	free(text);
	PC_CHECK(j != NULL);
	return j;
}

static int text_out(void *user, const void *buf, size_t len)
{
	return mem_write(user, buf, len);
}

static struct pc_thread *thread_of(struct profconv_profile *p, long long tid)
{
	uint32_t i;

	for (i = 0; i < p->m.nthreads; i++)
		if (p->m.threads[i]->tid == tid)
			return p->m.threads[i];
	return NULL;
}

static int64_t member_int(struct profconv_profile *p, uint32_t obj, const char *key)
{
	uint32_t n = pc_pv_member(&p->m, obj, key);

	if (n == PC_NONE)
		return -999;
	return pc_pv(&p->m, n)->kind == PC_VAL_INT ? pc_pv(&p->m, n)->v.i : -998;
}

static const char *member_str(struct profconv_profile *p, uint32_t obj, const char *key)
{
	uint32_t n = pc_pv_member(&p->m, obj, key);

	if (n == PC_NONE || pc_pv(&p->m, n)->kind != PC_VAL_STR)
		return NULL;
	return pc_pv_text(&p->m, pc_pv(&p->m, n)->v.s, NULL);
}

/*
 * The last 300 samples of each thread against the shutdown JSON's stacks at
 * the same times (frame names root first, "(root)" dropped; addresses as
 * Gecko names them): the CompactStack and same-sample decoding, frame order,
 * label and dynamic-string names.  The fixture holds only those samples.
 */
static void check_last_stacks(struct profconv_profile *p)
{
	cJSON *ref = load_json("esr153-run2.shutdown-last-stacks.json"), *it;
	const struct pc_model *m = &p->m;

	cJSON_ArrayForEach(it, ref)
	{
		struct pc_thread *t = thread_of(p, atoll(it->string));
		cJSON *stacks = cJSON_GetObjectItem(it, "stacks");
		cJSON *samples = cJSON_GetObjectItem(it, "samples"), *sm;
		uint32_t i, equal = 0, n = (uint32_t)cJSON_GetArraySize(samples);

		PC_CHECK(t != NULL && t->samples.len >= n);
		if (!t || t->samples.len < n)
			continue;
		i = t->samples.len - n;
		cJSON_ArrayForEach(sm, samples)
		{
			cJSON *want = cJSON_GetArrayItem(stacks, cJSON_GetArrayItem(sm, 1)->valueint);
			int64_t us = (int64_t)cJSON_GetArrayItem(sm, 0)->valuedouble;
			const char *names[256];
			uint32_t depth = 0, s = t->samples.stack[i], k;
			int same;

			while (s != PC_NONE && depth < 256) {
				names[depth++] = pc_str(m, m->funcs.name[m->frames.func[m->stacks.frame[s]]]);
				s = m->stacks.prefix[s];
			}
			same = s == PC_NONE && depth == (uint32_t)cJSON_GetArraySize(want) &&
			       llabs(t->samples.time[i] / 1000 - us) <= 1;
			for (k = 0; same && k < depth; k++)
				same = strcmp(names[depth - 1 - k],
					      cJSON_GetArrayItem(want, (int)k)->valuestring) == 0;
			equal += same;
			i++;
		}
		PC_CHECK_EQ_INT(equal, n);
		PC_CHECK_EQ_INT(n, 300);
	}
	cJSON_Delete(ref);
}

static void test_pack_and_counts(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_gecko_scrape_opts o = { sizeof(o), START_NS, EPOCH_MS, 1.0 };
	struct profconv_profile *p = NULL;
	cJSON *sum = load_json("esr153-run2.decoded-summary.json");
	cJSON *names = load_json("esr153-run2.shutdown-marker-names.json");
	cJSON *it, *kinds, *top;
	struct membuf info;
	uint32_t i, j;

	PC_CHECK_EQ_INT(profconv_gecko_dump_scrape(ctx, prefix, &o, dump), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 0);
	PC_CHECK_EQ_INT(profconv_read_path(ctx, dump, &p), PROFCONV_OK);
	/* counted: 88 string pointers the scrape did not resolve (the 41 top-level
	 * Base-Profiler labels among them), 6402 payloads of types with no known
	 * field list, 1025 JIT return addresses (no JIT info in a scrape), 24
	 * frame inner window ids of 2^64 - 1 (no window: Gecko's are 53 bits) */
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 88 + 6402 + 1025 + 24);
	if (!p || !sum || !names)
		goto out;
	/* none past 2^53 - 1: what validate and the processed reader take */
	for (i = 0, j = 0; i < p->m.frames.len; i++)
		j += pc_frame_inner_window_id(&p->m.frames, i) > PC_MAX_WINDOW_ID;
	PC_CHECK_EQ_INT(j, 0);
	PC_CHECK_EQ_STR(p->m.reader, "gecko-buffer");
	PC_CHECK_EQ_INT(p->m.nthreads, 3);

	/* samples per thread: the reference counts sample starts by kind */
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(sum, "markers_by_tid"))
	{
		struct pc_thread *t = thread_of(p, atoll(it->string));
		long long want = 0;
		cJSON *s;

		PC_CHECK(t != NULL);
		if (!t)
			continue;
		PC_CHECK_EQ_INT(t->markers.len, it->valueint);
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(sum, "samples"))
			if (atoll(s->string) == t->tid)
				want += s->valueint;
		PC_CHECK_EQ_INT(t->samples.len, want);
		PC_CHECK(t->samples.cpu_delta != NULL);
	}
	PC_CHECK_EQ_STR(pc_str(&p->m, thread_of(p, 2068)->name), "GeckoMain");
	PC_CHECK_EQ_STR(pc_str(&p->m, thread_of(p, 2154)->name), "Compositor");

	/* every marker name is one the shutdown JSON has on the same thread */
	for (i = 0; i < p->m.nthreads; i++) {
		struct pc_thread *t = p->m.threads[i];
		char key[32];
		cJSON *list;
		uint32_t bad = 0;

		snprintf(key, sizeof(key), "%lld", (long long)t->tid);
		list = cJSON_GetObjectItem(names, key);
		PC_CHECK(list != NULL);
		for (j = 0; list && j < t->markers.len; j++) {
			const char *nm = pc_str(&p->m, t->markers.name[j]);
			cJSON *n;
			int found = 0;

			cJSON_ArrayForEach(n, list)
				found |= strcmp(n->valuestring, nm) == 0;
			bad += !found;
		}
		PC_CHECK_EQ_INT(bad, 0);
	}
	/* the commonest names, counted over all threads */
	top = cJSON_GetObjectItem(sum, "top_marker_names");
	cJSON_ArrayForEach(it, top)
	{
		const char *nm = cJSON_GetArrayItem(it, 0)->valuestring;
		long long n = 0;

		for (i = 0; i < p->m.nthreads; i++)
			for (j = 0; j < p->m.threads[i]->markers.len; j++)
				n += strcmp(pc_str(&p->m, p->m.threads[i]->markers.name[j]), nm) == 0;
		PC_CHECK_EQ_INT(n, cJSON_GetArrayItem(it, 1)->valueint);
	}
	/* times: as the shutdown JSON has them (ms since the process start) */
	{
		struct pc_thread *t = thread_of(p, 2154);

		PC_CHECK_EQ_STR(pc_str(&p->m, t->markers.name[0]), "Awake");
		PC_CHECK_EQ_INT(t->markers.phase[0], PC_PHASE_START);
		PC_CHECK_EQ_INT(t->markers.start[0], 2493854808LL);
		t = thread_of(p, 2068);
		PC_CHECK_EQ_STR(pc_str(&p->m, t->markers.name[0]), "ReadAheadLib");
		PC_CHECK_EQ_INT(t->markers.start[0], 1063552LL);
		PC_CHECK_EQ_INT(t->markers.end[0], 1070761LL);
		/* a payload field, as the shutdown JSON has it */
		PC_CHECK_EQ_STR(member_str(p, t->markers.payload[0], "type"), "TextStack");
		PC_CHECK_EQ_STR(member_str(p, t->markers.payload[0], "name"),
				"/usr/lib/firefox-esr/libmozsandbox.so");
	}
	PC_CHECK(p->m.meta.has_start_time);
	check_last_stacks(p);

	/* info: blocks and entries of every kind, as the reference counted them */
	memset(&info, 0, sizeof(info));
	PC_CHECK_EQ_INT(profconv_info_path(ctx, dump, text_out, &info), PROFCONV_OK);
	if (info.p) {
		char want[128];

		snprintf(want, sizeof(want), " %d blocks\n",
			 cJSON_GetObjectItem(sum, "blocks")->valueint);
		PC_CHECK(strstr(info.p, want) != NULL);
		kinds = cJSON_GetObjectItem(sum, "kinds");
		cJSON_ArrayForEach(it, kinds)
		{
			snprintf(want, sizeof(want), "entries %s: %d\n", it->string, it->valueint);
			PC_CHECK(strstr(info.p, want) != NULL);
		}
	}
	free(info.p);
out:
	cJSON_Delete(sum);
	cJSON_Delete(names);
	profconv_profile_free(p);
	profconv_ctx_free(ctx);
}

/* Damage: a cut dump reads leniently and fails in strict mode; bad headers fail. */
static void test_damage(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	size_t len = 0;
	char *d = pc_test_slurp(dump, &len);
	uint64_t markers = 0;
	uint32_t i;

	PC_CHECK(d != NULL && len > 300000);
	if (!d)
		goto out;
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, d, len - 200000, "cut.pgkb", &p), PROFCONV_OK);
	PC_CHECK(profconv_warning_count(ctx) > 3);
	if (p)
		for (i = 0; i < p->m.nthreads; i++)
			markers += p->m.threads[i]->markers.len;
	PC_CHECK(markers > 1000 && markers < 10725);
	profconv_profile_free(p);
	p = NULL;
	profconv_set_strict(ctx, 1);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, d, len - 200000, "cut.pgkb", &p), PROFCONV_ERR_STRICT);
	PC_CHECK(p == NULL);
	profconv_set_strict(ctx, 0);

	d[8] = 2; /* major version 2 */
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, d, len, "v2.pgkb", &p), PROFCONV_ERR_UNSUPPORTED);
	d[8] = 1;
	/* the first section's length beyond the file */
	d[24 + 15] = 0x7f;
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, d, len, "bad.pgkb", &p) & 0xff, PROFCONV_ERR_CORRUPT);
	PC_CHECK(strstr(profconv_errmsg(ctx), "bad.pgkb") != NULL);
	PC_CHECK(p == NULL);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, d, 20, "short.pgkb", &p), PROFCONV_ERR_CORRUPT);
out:
	free(d);
	profconv_ctx_free(ctx);
}

/* Without the process start the first chunk's start stands in (about 1 ms off here). */
static void test_estimated_start(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct pc_thread *t;

	PC_CHECK_EQ_INT(profconv_gecko_dump_scrape(ctx, prefix, NULL, dump), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_read_path(ctx, dump, &p), PROFCONV_OK);
	t = p ? thread_of(p, 2154) : NULL;
	PC_CHECK(t != NULL);
	if (t) {
		int64_t off = t->markers.start[0] - 2493854808LL;

		PC_CHECK(off < 0 && off > -2000000);
	}
	profconv_profile_free(p);
	/* a scrape that is not there */
	PC_CHECK_EQ_INT(profconv_gecko_dump_scrape(ctx, "/nonexistent/x", NULL, dump), PROFCONV_ERR_IO);
	profconv_ctx_free(ctx);
}

/*
 * The synthetic dump (tests/fuzz/make_gbuf_seeds.py): what a scrape lacks.
 * Marker fields of every serial type, a literal name through STRS, an
 * unresolved one, a backtrace as the cause, a counter, paused ranges, a
 * labelled frame with a getter's dynamic string, native frames of a lib.
 */
static void test_synthetic(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct pc_thread *t;
	char path[4400];
	uint32_t pl, n, i, found = 0;

	snprintf(path, sizeof(path), "%s/gecko-buffer/synthetic.pgkb", fixtures);
	PC_CHECK_EQ_INT(profconv_read_path(ctx, path, &p), PROFCONV_OK);
	/* an unnamed kind, an unresolved pointer, a payload without its field list */
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 3);
	if (!p)
		goto out;
	PC_CHECK_EQ_INT(p->m.nthreads, 1);
	t = p->m.threads[0];
	PC_CHECK_EQ_INT(t->samples.len, 2);
	PC_CHECK_EQ_INT(t->samples.time[0], 1000000);
	PC_CHECK_EQ_INT(t->samples.stack[1], t->samples.stack[0]); /* same-sample */
	PC_CHECK(t->samples.cpu_delta && t->samples.cpu_delta[1] == 12345);
	PC_CHECK_EQ_INT(t->markers.len, 4);
	if (t->markers.len != 4)
		goto out;
	PC_CHECK_EQ_STR(pc_str(&p->m, t->markers.name[0]), "mark");
	PC_CHECK_EQ_INT(t->markers.start[0], 1000000);
	PC_CHECK_EQ_INT(t->markers.end[0], 3000000);
	pl = t->markers.payload[0];
	PC_CHECK_EQ_STR(member_str(p, pl, "type"), "AllTypes");
	PC_CHECK_EQ_INT(member_int(p, pl, "u16"), 300);
	PC_CHECK_EQ_INT(member_int(p, pl, "i32"), -3);
	PC_CHECK_EQ_STR(member_str(p, pl, "s8"), "hello");
	PC_CHECK_EQ_STR(member_str(p, pl, "s16"), "\xc3\xa9\xe2\x82\xac");
	PC_CHECK_EQ_STR(member_str(p, pl, "ns"), "hi");
	PC_CHECK_EQ_INT(member_int(p, pl, "maybe"), 9);
	PC_CHECK(pc_pv_member(&p->m, pl, "nothing") == PC_NONE);
	n = pc_pv_member(&p->m, pl, "dur");
	PC_CHECK(n != PC_NONE && pc_pv(&p->m, n)->kind == PC_VAL_DBL && pc_pv(&p->m, n)->v.d == 1.5);
	n = pc_pv_member(&p->m, pl, "ts"); /* 2 ms after the process start */
	PC_CHECK(n != PC_NONE && pc_pv(&p->m, n)->kind == PC_VAL_DBL && pc_pv(&p->m, n)->v.d == 2.0);
	PC_CHECK_EQ_STR(pc_str(&p->m, t->markers.name[1]), "literal name");
	PC_CHECK_EQ_STR(member_str(p, t->markers.payload[1], "type"), "RustThing");
	PC_CHECK_EQ_STR(pc_str(&p->m, t->markers.name[2]), "0x3000");
	PC_CHECK(t->markers.payload[2] == PC_NONE);
	PC_CHECK(t->markers.cause_stack[3] != PC_NONE);
	PC_CHECK_EQ_INT(t->markers.cause_time[3], 3000000);
	PC_CHECK_EQ_STR(member_str(p, t->markers.payload[3], "type"), "NoPayloadUserData");
	PC_CHECK_EQ_INT(member_int(p, t->markers.payload[3], "innerWindowID"), 7);
	PC_CHECK_EQ_INT(t->npaused, 2);
	PC_CHECK_EQ_INT(p->m.counters.len, 1);
	if (p->m.counters.len == 1) {
		PC_CHECK_EQ_INT(p->m.counters.rows[0].len, 1);
		PC_CHECK(p->m.counters.rows[0].count[0] == 4096);
		PC_CHECK(p->m.counters.rows[0].number && p->m.counters.rows[0].number[0] == 3);
	}
	for (i = 0; i < p->m.funcs.len; i++)
		found += strcmp(pc_str(&p->m, p->m.funcs.name[i]), "get Label.dynamic") == 0;
	PC_CHECK_EQ_INT(found, 1);
	/* native frames: lib-relative; the caller one less (a return address) */
	found = 0;
	for (i = 0; i < p->m.frames.len; i++) {
		const char *nm = pc_str(&p->m, p->m.funcs.name[p->m.frames.func[i]]);

		if (strcmp(nm, "0x401000") == 0)
			found += p->m.frames.address[i] == 0xfff;
		if (strcmp(nm, "0x401100") == 0)
			found += p->m.frames.address[i] == 0x1100;
	}
	PC_CHECK_EQ_INT(found, 2);
out:
	profconv_profile_free(p);
	profconv_ctx_free(ctx);
}

/* The first occurrence of the n bytes at from in d replaced by those at to. */
static int patch(char *d, size_t len, const void *from, const void *to, size_t n)
{
	size_t i;

	for (i = 0; i + n <= len; i++)
		if (memcmp(d + i, from, n) == 0) {
			memcpy(d + i, to, n);
			return 1;
		}
	return 0;
}

/*
 * One changed value in the synthetic dump (issue 22 items 2 and 8): META's
 * epoch, start ticks and tick rate out of range (UBSan float-cast-overflow
 * before), a marker interval's end or both times null, a CATS color the
 * front-end does not know.  Each converts with a counted warning into what
 * validate accepts.
 */
static void test_hostile_values(void)
{
	char path[4400];
	size_t len = 0;
	char *orig;
	unsigned k;

	snprintf(path, sizeof(path), "%s/gecko-buffer/synthetic.pgkb", fixtures);
	orig = pc_test_slurp(path, &len);
	PC_CHECK(orig != NULL);
	for (k = 0; orig && k < 6; k++) {
		struct profconv_ctx *ctx = profconv_ctx_new();
		struct profconv_profile *p = NULL;
		char *d = malloc(len);
		double f_from, f_to;
		uint64_t u_from, u_to;
		int ok = 0;

		if (!d)
			abort();
		memcpy(d, orig, len);
		switch (k) {
		case 0: /* epoch 1e13 ms: past int64 ns */
			f_from = 1.7e12;
			f_to = 1e13;
			ok = patch(d, len, &f_from, &f_to, 8);
			break;
		case 1: /* start ticks 2^64 - 1 */
			u_from = 1000000000;
			u_to = UINT64_MAX;
			ok = patch(d, len, &u_from, &u_to, 8);
			break;
		case 2: /* a tick rate of 1e-300 per ms */
			f_from = 1e6;
			f_to = 1e-300;
			ok = patch(d, len, &f_from, &f_to, 8);
			break;
		case 3: /* "mark" (Interval) without its end */
			u_from = 1003000000;
			u_to = 0;
			ok = patch(d, len, &u_from, &u_to, 8);
			break;
		case 4: /* "mark" without either time */
			u_from = 1003000000;
			u_to = 0;
			ok = patch(d, len, &u_from, &u_to, 8);
			u_from = 1001000000;
			ok = ok && patch(d, len, &u_from, &u_to, 8);
			break;
		default: /* a color no renderer knows */
			ok = patch(d, len, "yellow", "yellox", 6);
			break;
		}
		PC_CHECK(ok);
		PC_CHECK_EQ_INT(profconv_read_mem(ctx, d, len, "hostile.pgkb", &p), PROFCONV_OK);
		/* the synthetic dump's 3 warnings, and one for the change */
		PC_CHECK_EQ_INT(profconv_warning_count(ctx), 4);
		if (p) {
			struct pc_thread *t = p->m.threads[0];

			switch (k) {
			case 0:
				PC_CHECK(!p->m.meta.has_start_time);
				break;
			case 1:
				PC_CHECK_EQ_INT(p->m.meta.zero_ns, 0);
				break;
			case 2: /* the default 1e6 ticks per ms */
				PC_CHECK_EQ_INT(p->m.meta.zero_ns, 1000000000);
				PC_CHECK_EQ_INT(t->markers.start[0], 1000000);
				break;
			case 3:
				PC_CHECK_EQ_INT(t->markers.len, 4);
				PC_CHECK_EQ_INT(t->markers.phase[0], PC_PHASE_START);
				PC_CHECK_EQ_INT(t->markers.start[0], 1000000);
				PC_CHECK(t->markers.end[0] == PC_NO_TIME);
				break;
			case 4:
				PC_CHECK_EQ_INT(t->markers.len, 3);
				PC_CHECK_EQ_STR(pc_str(&p->m, t->markers.name[0]), "literal name");
				break;
			default:
				PC_CHECK(p->m.ncategories == 2 &&
					 strcmp(p->m.categories[1].color, "grey") == 0);
				break;
			}
		}
		profconv_profile_free(p);
		profconv_ctx_free(ctx);
		free(d);
	}
	free(orig);
}

int main(void)
{
	const char *fx = getenv("PC_FIXTURES");
	const char *tmp = getenv("TMPDIR");

	snprintf(fixtures, sizeof(fixtures), "%s", fx ? fx : "tests/fixtures");
	snprintf(prefix, sizeof(prefix), "%s/gecko-buffer/esr153-run2", fixtures);
	snprintf(dump, sizeof(dump), "%s/pc_gbuf_test_%ld.pgkb", tmp ? tmp : "/tmp", (long)getpid());
	test_pack_and_counts();
	test_damage();
	test_estimated_start();
	test_synthetic();
	test_hostile_values();
	unlink(dump);
	return pc_test_done();
}
