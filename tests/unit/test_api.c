/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_api.c - the library as an importer uses it, through profconv.h only:
 * the format registry and its options, reading from memory and from a
 * callback, compressed output to a callback, the read-only views, structured
 * diagnostics, and that a library conversion does not symbolicate unless
 * asked.
 *
 * Fixtures: tests/fixtures/perf/y_fp.data (a real `perf record -g`
 * recording: 4 threads, 601 cpu-clock samples), i_unknown_record.data (the
 * same kind of file with one record's type changed to 200), and
 * validate/y_processed_reordered.json.gz (a gzip-compressed processed
 * profile: one thread "myprog", 4 samples).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, popen */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profconv.h"

#include "pc_test.h"

static char *load(const char *rel, size_t *len)
{
	const char *fx = getenv("PC_FIXTURES");
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", fx ? fx : "tests/fixtures", rel);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void test_formats(void)
{
	struct profconv_format f = PROFCONV_INIT(struct profconv_format);
	size_t i;
	int perf = 0, processed_in = 0, processed_out = 0, event = 0, version = 0;

	for (i = 0; profconv_formats(i, &f) == PROFCONV_OK; i++) {
		const struct profconv_option *o;

		PC_CHECK(f.name && f.summary && f.options);
		if (f.kind == PROFCONV_FORMAT_INPUT && strcmp(f.name, "perf") == 0)
			perf = 1;
		if (f.kind == PROFCONV_FORMAT_INPUT && strcmp(f.name, "processed") == 0)
			processed_in = 1;
		if (f.kind == PROFCONV_FORMAT_OUTPUT && strcmp(f.name, "processed") == 0)
			processed_out = 1;
		for (o = f.options; o->key; o++) {
			if (strcmp(o->key, "event") == 0 && strcmp(f.name, "perf") == 0)
				event = 1;
			if (strcmp(o->key, "processed-version") == 0 &&
			    f.kind == PROFCONV_FORMAT_OUTPUT) {
				PC_CHECK_EQ_STR(o->choices, "69|70");
				PC_CHECK_EQ_STR(o->def, "69");
				version = 1;
			}
		}
	}
	PC_CHECK(i >= 4);
	PC_CHECK(perf && processed_in && processed_out && event && version);
	PC_CHECK_EQ_INT(profconv_formats(i, &f), PROFCONV_ERR_USAGE);
}

static void test_options(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();

	PC_CHECK_EQ_INT(profconv_set_option(ctx, "weight", "period"), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "weight", "bytes"), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_STR(profconv_errmsg(ctx),
			"--weight takes 'samples' or 'period', not 'bytes'");
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "processed-version", "70"), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "no-such-option", "1"), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "unknown option 'no-such-option'") != NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "event") != NULL);
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "from", "nonsense"), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "known: perf, processed") != NULL);
	/* a good call clears the stale error */
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "from", "perf"), PROFCONV_OK);
	PC_CHECK_EQ_STR(profconv_errmsg(ctx), "");
	profconv_ctx_free(ctx);
}

/* The views of y_fp.data, however it was read. */
static void check_y_fp(const struct profconv_profile *p)
{
	static const char *const names[] = { "workload", "pc-fib", "pc-matmul", "pc-hash" };
	static const size_t samples[] = { 136, 130, 177, 158 };
	struct profconv_thread t = PROFCONV_INIT(struct profconv_thread);
	struct profconv_sample s = PROFCONV_INIT(struct profconv_sample);
	struct profconv_stack st = PROFCONV_INIT(struct profconv_stack);
	struct profconv_frame fr = PROFCONV_INIT(struct profconv_frame);
	struct profconv_func fn = PROFCONV_INIT(struct profconv_func);
	struct profconv_lib lib = PROFCONV_INIT(struct profconv_lib);
	struct profconv_meta meta = PROFCONV_INIT(struct profconv_meta);
	size_t i, j, bad = 0, hex = 0, total = 0, kernel = 0;

	PC_CHECK_EQ_INT(profconv_profile_meta(p, &meta), PROFCONV_OK);
	PC_CHECK_EQ_STR(meta.product, "perf");
	PC_CHECK_EQ_STR(meta.platform, "Linux");
	PC_CHECK_EQ_INT(meta.symbolicated, 0);
	PC_CHECK_EQ_INT(profconv_profile_thread_count(p), 4);
	for (i = 0; i < 4 && profconv_profile_thread(p, i, &t) == PROFCONV_OK; i++) {
		PC_CHECK_EQ_STR(t.name, names[i]);
		PC_CHECK_EQ_STR(t.process_name, "workload");
		PC_CHECK_EQ_INT(t.pid, 4104);
		PC_CHECK_EQ_INT(t.samples, samples[i]);
		PC_CHECK_EQ_INT(t.is_main, i == 0);
	}
	PC_CHECK_EQ_INT(profconv_profile_thread(p, 4, &t), PROFCONV_ERR_USAGE);
	/* every sample's stack walks to a root through valid frames and funcs */
	for (i = 0; i < 4; i++) {
		int64_t last = INT64_MIN;

		for (j = 0; profconv_profile_sample(p, i, j, &s) == PROFCONV_OK; j++) {
			uint32_t k = s.stack, depth = 0;

			total++;
			if (s.time < last || s.weight != 1)
				bad++;
			last = s.time;
			while (k != PROFCONV_NONE && depth++ < 1000) {
				if (profconv_profile_stack(p, k, &st) != PROFCONV_OK ||
				    (st.prefix != PROFCONV_NONE && st.prefix >= k) ||
				    profconv_profile_frame(p, st.frame, &fr) != PROFCONV_OK ||
				    profconv_profile_func(p, fr.func, &fn) != PROFCONV_OK) {
					bad++;
					break;
				}
				k = st.prefix;
			}
		}
	}
	PC_CHECK_EQ_INT(total, 601);
	PC_CHECK_EQ_INT(bad, 0);
	/* not symbolicated: every func is an address */
	for (i = 0; profconv_profile_func(p, i, &fn) == PROFCONV_OK; i++)
		if (strncmp(fn.name, "0x", 2) == 0)
			hex++;
	PC_CHECK_EQ_INT(i, profconv_profile_func_count(p));
	PC_CHECK_EQ_INT(hex, i);
	for (i = 0; profconv_profile_lib(p, i, &lib) == PROFCONV_OK; i++)
		if (strcmp(lib.name, "[kernel.kallsyms]") == 0)
			kernel++;
	PC_CHECK_EQ_INT(i, 5);
	PC_CHECK_EQ_INT(kernel, 1);
}

static long read_fails(void *user, void *buf, size_t cap)
{
	struct pc_test_chunks *c = user;

	if (c->pos >= (c->fail_at ? c->fail_at : 100))
		return -1;
	return pc_test_read_7(user, buf, cap);
}

static void test_read_mem_cb(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct pc_test_chunks c;
	size_t len;
	char *data = load("perf/y_fp.data", &len);

	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "y_fp.data", &p), PROFCONV_OK);
	if (p)
		check_y_fp(p);
	profconv_profile_free(p);

	/* a callback: file-mode perf.data needs random access, so it is spooled */
	memset(&c, 0, sizeof(c));
	c.data = data;
	c.len = len;
	p = NULL;
	PC_CHECK_EQ_INT(profconv_read_cb(ctx, pc_test_read_7, &c, "cb.data", &p), PROFCONV_OK);
	PC_CHECK(c.pos == len && c.calls > len / 7);
	if (p)
		check_y_fp(p);
	profconv_profile_free(p);

	memset(&c, 0, sizeof(c));
	c.data = data;
	c.len = len;
	p = NULL;
	PC_CHECK_EQ_INT(profconv_read_cb(ctx, read_fails, &c, "failing.data", &p), PROFCONV_ERR_IO);
	PC_CHECK(p == NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "failing.data") != NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "the read callback failed") != NULL);
	/* at the first byte not delivered: 15 calls of 7 bytes went through */
	PC_CHECK(strstr(profconv_errmsg(ctx), "offset 0x69:") != NULL);

	/* the same while spooling (past the first peek): 715 calls, 5005 bytes */
	memset(&c, 0, sizeof(c));
	c.data = data;
	c.len = len;
	c.fail_at = 5000;
	PC_CHECK_EQ_INT(profconv_read_cb(ctx, read_fails, &c, "failing.data", &p), PROFCONV_ERR_IO);
	PC_CHECK(p == NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "failing.data: offset 0x138d: the read callback failed") !=
		 NULL);
	{
		struct profconv_diag last = PROFCONV_INIT(struct profconv_diag);

		PC_CHECK_EQ_INT(profconv_last_error(ctx, &last), PROFCONV_OK);
		PC_CHECK_EQ_INT(last.offset, 5005);
		PC_CHECK_EQ_STR(last.id, "io");
	}
	free(data);

	/* compressed memory is undone like a compressed file */
	data = load("validate/y_processed_reordered.json.gz", &len);
	p = NULL;
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "mem.json.gz", &p), PROFCONV_OK);
	if (p) {
		PC_CHECK_EQ_INT(profconv_profile_thread_count(p), 1);
		PC_CHECK_EQ_STR(profconv_profile_thread_name(p, 0), "myprog");
		PC_CHECK_EQ_INT(profconv_profile_sample_count(p, 0), 4);
	}
	profconv_profile_free(p);
	free(data);
	profconv_ctx_free(ctx);
}

/* Write p as processed JSON to memory with the "compress" option set to how. */
static struct membuf write_mem(struct profconv_ctx *ctx, const struct profconv_profile *p,
			       const char *how)
{
	struct membuf b;

	memset(&b, 0, sizeof(b));
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "compress", how), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_write_cb(ctx, p, PROFCONV_OUT_PROCESSED, mem_write, &b), PROFCONV_OK);
	return b;
}

/*
 * The "compress" option on a callback: gzip and zstd only when named ("auto"
 * has no file name to go by), the gzip header without a time (the same bytes
 * each run), and the library reading back what it wrote.
 */
static void test_compress_cb(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL, *q;
	struct membuf plain, autob, gz, gz2, zst, back;
	const char *how[2] = { "gzip", "zstd" };
	size_t len;
	int i;
	unsigned char *g, *z;
	char *data = load("validate/y_processed_reordered.json.gz", &len);

	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "mem.json.gz", &p), PROFCONV_OK);
	free(data);
	if (!p) {
		profconv_ctx_free(ctx);
		return;
	}
	plain = write_mem(ctx, p, "none");
	autob = write_mem(ctx, p, "auto");
	gz = write_mem(ctx, p, "gzip");
	gz2 = write_mem(ctx, p, "gzip");
	zst = write_mem(ctx, p, "zstd");
	g = (unsigned char *)gz.p;
	z = (unsigned char *)zst.p;
	PC_CHECK(plain.len > 100 && plain.p[0] == '{');
	PC_CHECK(autob.len == plain.len && memcmp(autob.p, plain.p, plain.len) == 0);
	/* gzip magic, deflate, and MTIME (bytes 4-7) zero */
	PC_CHECK(gz.len > 18 && gz.len < plain.len);
	PC_CHECK(g[0] == 0x1f && g[1] == 0x8b && g[2] == 8);
	PC_CHECK(g[4] == 0 && g[5] == 0 && g[6] == 0 && g[7] == 0);
	PC_CHECK(gz2.len == gz.len && memcmp(gz2.p, gz.p, gz.len) == 0);
	PC_CHECK(zst.len > 4 && zst.len < plain.len);
	PC_CHECK(z[0] == 0x28 && z[1] == 0xb5 && z[2] == 0x2f && z[3] == 0xfd);
	for (i = 0; i < 2; i++) {
		struct membuf *in = i ? &zst : &gz;

		q = NULL;
		PC_CHECK_EQ_INT(profconv_read_mem(ctx, in->p, in->len, how[i], &q), PROFCONV_OK);
		if (!q)
			continue;
		PC_CHECK_EQ_INT(profconv_profile_sample_count(q, 0), 4);
		back = write_mem(ctx, q, "none");
		PC_CHECK(back.len == plain.len && memcmp(back.p, plain.p, plain.len) == 0);
		mem_reset(&back);
		profconv_profile_free(q);
	}
	/* a failing sink under the compressor fails the write */
	memset(&back, 0, sizeof(back));
	back.fail_after = 16;
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "compress", "gzip"), PROFCONV_OK);
	PC_CHECK(profconv_write_cb(ctx, p, PROFCONV_OUT_PROCESSED, mem_write, &back) != PROFCONV_OK);
	PC_CHECK(back.failed);
	mem_reset(&back);
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "compress", "lz4"), PROFCONV_ERR_USAGE);
	mem_reset(&plain);
	mem_reset(&autob);
	mem_reset(&gz);
	mem_reset(&gz2);
	mem_reset(&zst);
	profconv_profile_free(p);
	profconv_ctx_free(ctx);
}

struct diags {
	int warnings, errors, notes;
	char kind[128], file[128], message[512], wid[64], eid[64];
	uint64_t offset;
	int code, wcode, bad_size;
};

static void collect(void *user, const struct profconv_diag *d)
{
	struct diags *g = user;

	/* the library's struct: every member of this header's is there */
	if (d->size != sizeof(*d) || !PROFCONV_HAS(d, id) || !d->id)
		g->bad_size++;
	if (d->severity == PROFCONV_WARNING) {
		g->warnings++;
		snprintf(g->kind, sizeof(g->kind), "%s", d->kind ? d->kind : "(null)");
		snprintf(g->file, sizeof(g->file), "%s", d->file ? d->file : "(null)");
		g->offset = d->offset;
		g->wcode = d->code;
		snprintf(g->wid, sizeof(g->wid), "%s", d->id);
	} else if (d->severity == PROFCONV_ERROR) {
		g->errors++;
		g->code = d->code;
		snprintf(g->eid, sizeof(g->eid), "%s", d->id);
		snprintf(g->message, sizeof(g->message), "%s", d->message);
	} else {
		g->notes++;
	}
}

static void test_diagnostics(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct profconv_diag last = PROFCONV_INIT(struct profconv_diag);
	struct profconv_warning w = PROFCONV_INIT(struct profconv_warning);
	struct diags g;
	size_t len;
	char *data = load("perf/i_unknown_record.data", &len);

	memset(&g, 0, sizeof(g));
	profconv_set_diagnostics(ctx, collect, &g);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "i_unknown_record.data", &p), PROFCONV_OK);
	profconv_profile_free(p);
	PC_CHECK_EQ_INT(g.warnings, 1);
	PC_CHECK_EQ_INT(g.bad_size, 0);
	{
		/* PROFCONV_HAS() on a struct of an older, smaller size */
		struct profconv_diag old = PROFCONV_INIT(struct profconv_diag);

		old.size = offsetof(struct profconv_diag, id);
		PC_CHECK(PROFCONV_HAS(&old, message) && !PROFCONV_HAS(&old, id));
	}
	PC_CHECK_EQ_STR(g.file, "i_unknown_record.data");
	PC_CHECK_EQ_INT(g.offset, 0x5e8);
	PC_CHECK(strstr(profconv_warning_summary(ctx), g.kind) != NULL);
	PC_CHECK_EQ_INT(g.errors, 0);
	/* its stable code and identifier (docs/diagnostics.md) */
	PC_CHECK_EQ_INT(g.wcode, 1023);
	PC_CHECK_EQ_STR(g.wid, "perf-record-unknown-type");
	PC_CHECK_EQ_INT(profconv_warning_get(ctx, 0, &w), PROFCONV_OK);
	PC_CHECK_EQ_INT(w.code, 1023);
	PC_CHECK_EQ_STR(w.id, "perf-record-unknown-type");
	PC_CHECK_EQ_STR(w.kind, g.kind);
	PC_CHECK_EQ_INT(w.count, 1);
	PC_CHECK_EQ_INT(profconv_warning_get(ctx, 1, &w), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_STR(profconv_code_id(1023), "perf-record-unknown-type");
	PC_CHECK_EQ_STR(profconv_code_id(PROFCONV_ERR_CORRUPT_TRUNCATED), "corrupt-truncated");
	PC_CHECK_EQ_STR(profconv_code_id(PROFCONV_ERR_CANCELLED), "cancelled");
	PC_CHECK(profconv_code_id(99999) == NULL);

	/* strict: the same warning is the error, with its parts */
	profconv_set_strict(ctx, 1);
	p = NULL;
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "i_unknown_record.data", &p),
			PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_INT(g.errors, 1);
	PC_CHECK_EQ_INT(g.code, PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_STR(g.message, profconv_errmsg(ctx));
	PC_CHECK_EQ_STR(g.eid, "strict");
	PC_CHECK_EQ_INT(profconv_last_error(ctx, &last), PROFCONV_OK);
	PC_CHECK_EQ_INT(last.code, PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_STR(last.id, "strict");
	PC_CHECK_EQ_STR(last.file, "i_unknown_record.data");
	PC_CHECK_EQ_INT(last.offset, 0x5e8);
	free(data);
	profconv_ctx_free(ctx);
}


/*
 * Sized structs: a getter checks the caller's size member, fills only what
 * an older (smaller) struct holds and zeroes what a newer (larger) one has
 * beyond the library's.
 */
static void test_sizes(const struct profconv_profile *p)
{
	struct profconv_thread t = PROFCONV_INIT(struct profconv_thread);
	struct {
		struct profconv_thread t;
		unsigned char newer[16];
	} big;
	unsigned char raw[sizeof(struct profconv_thread)];
	struct profconv_thread *old = (struct profconv_thread *)raw;
	size_t i, old_size = offsetof(struct profconv_thread, pid);

	/* no size set: a usage error, out untouched */
	memset(&t, 0, sizeof(t));
	t.name = "untouched";
	PC_CHECK_EQ_INT(profconv_profile_thread(p, 0, &t), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_STR(t.name, "untouched");
	/* an older caller's smaller struct: only its members are written */
	memset(raw, 0xa5, sizeof(raw));
	old->size = old_size;
	PC_CHECK_EQ_INT(profconv_profile_thread(p, 0, old), PROFCONV_ERR_USAGE);
	/* (PROFCONV_0 is the oldest layout: smaller than it is refused) */
	old->size = sizeof(*old);
	PC_CHECK_EQ_INT(profconv_profile_thread(p, 0, old), PROFCONV_OK);
	PC_CHECK_EQ_STR(old->name, "workload");
	/* a newer caller's larger struct: the library's part, then zeros */
	memset(&big, 0xa5, sizeof(big));
	big.t.size = sizeof(big);
	PC_CHECK_EQ_INT(profconv_profile_thread(p, 0, &big.t), PROFCONV_OK);
	PC_CHECK_EQ_INT(big.t.size, sizeof(big));
	PC_CHECK_EQ_STR(big.t.name, "workload");
	for (i = 0; i < sizeof(big.newer); i++)
		PC_CHECK_EQ_INT(big.newer[i], 0);
	PC_CHECK_EQ_INT(profconv_profile_thread(p, 0, NULL), PROFCONV_ERR_USAGE);
}

static void test_sizes_read(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct profconv_gecko_scrape_opts o = PROFCONV_INIT(struct profconv_gecko_scrape_opts);
	size_t len;
	char *data = load("perf/y_fp.data", &len);

	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "y_fp.data", &p), PROFCONV_OK);
	if (p)
		test_sizes(p);
	profconv_profile_free(p);
	free(data);
	/* an input struct without its size is refused before anything is read */
	o.size = 0;
	PC_CHECK_EQ_INT(profconv_gecko_dump_scrape(ctx, "/nonexistent/x", &o, "/nonexistent/y"),
			PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "PROFCONV_INIT") != NULL);
	profconv_ctx_free(ctx);
}

static int sink_ok(void *user, const void *buf, size_t len)
{
	(void)user;
	(void)buf;
	(void)len;
	return 0;
}

/*
 * Issue 22 item 4: NULL arguments are usage errors, never a crash (a NULL
 * ctx has nowhere to put a message: only the code).
 */
static void test_null_args(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	size_t len;
	char *data = load("perf/y_fp.data", &len);
	struct profconv_thread t = PROFCONV_INIT(struct profconv_thread);

	PC_CHECK_EQ_INT(profconv_read_path(NULL, "x", &p), PROFCONV_ERR_USAGE);
	PC_CHECK(p == NULL);
	PC_CHECK_EQ_INT(profconv_read_mem(NULL, data, len, "x", &p), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_read_fd(NULL, 0, "x", &p), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_read_cb(NULL, pc_test_read_7, NULL, "x", &p), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_read_path(ctx, NULL, &p), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "NULL path") != NULL);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "x", NULL), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "NULL out") != NULL);
	PC_CHECK_EQ_INT(profconv_write_path(NULL, NULL, NULL, "x"), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_write_path(ctx, NULL, NULL, "/nonexistent/x"), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "NULL profile") != NULL);
	PC_CHECK_EQ_INT(profconv_write_cb(ctx, NULL, NULL, sink_ok, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "y_fp.data", &p), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_write_path(ctx, p, NULL, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "NULL path") != NULL);
	PC_CHECK_EQ_INT(profconv_write_cb(ctx, p, NULL, NULL, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK(strstr(profconv_errmsg(ctx), "NULL callback") != NULL);
	PC_CHECK_EQ_INT(profconv_write_cb(NULL, p, NULL, sink_ok, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_profile_marker_data(ctx, NULL, 0, 0, sink_ok, NULL),
			PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_profile_marker_data(NULL, p, 0, 0, sink_ok, NULL),
			PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_info_path(ctx, NULL, sink_ok, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_info_path(NULL, "x", sink_ok, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_validate_path(ctx, "x", NULL, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_blame_path(ctx, "x", 0, NULL, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_output_check(NULL, "x"), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_output_check(ctx, NULL), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_set_option(NULL, "from", "perf"), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_profile_thread(NULL, 0, &t), PROFCONV_ERR_USAGE);
	PC_CHECK_EQ_INT(profconv_profile_thread_count(NULL), 0);
	PC_CHECK(profconv_profile_thread_name(NULL, 0) == NULL);
	PC_CHECK_EQ_STR(profconv_pending_output(NULL), "");
	PC_CHECK_EQ_STR(profconv_warning_summary(NULL), "");
	PC_CHECK_EQ_INT(profconv_warning_count(NULL), 0);
	PC_CHECK(profconv_errmsg(NULL)[0] != 0);
	profconv_set_strict(NULL, 1);
	profconv_set_diagnostics(NULL, NULL, NULL);
	profconv_set_cancel(NULL, NULL, NULL);
	/* a shared symbol cache: NULLs, and it lives while a context shares it */
	{
		struct profconv_symcache *sc = NULL;
		struct profconv_ctx *c2 = profconv_ctx_new();

		PC_CHECK_EQ_INT(profconv_symcache_new(NULL), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symcache_new(&sc), PROFCONV_OK);
		PC_CHECK_EQ_INT(profconv_ctx_share_symbols(NULL, sc), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_ctx_share_symbols(ctx, sc), PROFCONV_OK);
		PC_CHECK_EQ_INT(profconv_ctx_share_symbols(c2, sc), PROFCONV_OK);
		profconv_symcache_free(sc); /* the contexts keep it */
		PC_CHECK_EQ_INT(profconv_ctx_share_symbols(c2, NULL), PROFCONV_OK);
		profconv_symcache_free(NULL);
		profconv_ctx_free(c2);
	}
	profconv_profile_free(p);
	free(data);
	profconv_ctx_free(ctx);
}

/* A Chrome trace of n complete events with distinct names (about 100 B each). */
static char *big_trace(size_t n, size_t *len)
{
	size_t cap = n * 128 + 64, k = 0, i;
	char *b = malloc(cap);

	if (!b)
		exit(1);
	k += (size_t)snprintf(b + k, cap - k, "{\"traceEvents\":[");
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(b + k, cap - k,
				      "%s{\"name\":\"task_%zu\",\"ph\":\"X\",\"ts\":%zu,\"dur\":5,\"pid\":1,\"tid\":1}",
				      i ? "," : "", i, i * 10);
	k += (size_t)snprintf(b + k, cap - k, "]}");
	*len = k;
	return b;
}

static int cancel_after(void *user)
{
	int *calls = user;

	return ++*calls >= 1;
}

static size_t count_entries(const char *dir)
{
	char cmd[4200];
	FILE *f;
	size_t n = 0;
	int c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	f = popen(cmd, "r");
	if (!f)
		return 999;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	pclose(f);
	return n;
}

/*
 * The cancel callback: a read stops with PROFCONV_ERR_CANCELLED and no
 * profile; a write to a path stops the same way, creates nothing, leaves an
 * existing output as it was and removes its temporary file.
 */
static void test_cancel(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	char dir[] = "/tmp/profconv-cancel-XXXXXX", out[4200], buf[16];
	size_t len;
	char *trace = big_trace(60000, &len);
	int calls = 0;
	FILE *f;

	PC_CHECK(len > (3u << 20));
	profconv_set_cancel(ctx, cancel_after, &calls);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, trace, len, "big.json", &p), PROFCONV_ERR_CANCELLED);
	PC_CHECK(p == NULL);
	PC_CHECK_EQ_INT(calls, 1);
	PC_CHECK(strstr(profconv_errmsg(ctx), "big.json: offset 0x") != NULL);
	PC_CHECK(strstr(profconv_errmsg(ctx), "cancelled") != NULL);
	PC_CHECK_EQ_STR(profconv_code_id(PROFCONV_ERR_CANCELLED), "cancelled");
	PC_CHECK_EQ_STR(profconv_strerror(PROFCONV_ERR_CANCELLED), "cancelled");

	profconv_set_cancel(ctx, NULL, NULL);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, trace, len, "big.json", &p), PROFCONV_OK);
	if (!p || !mkdtemp(dir)) {
		PC_CHECK(0);
		return;
	}
	snprintf(out, sizeof(out), "%s/out.json", dir);
	calls = 0;
	profconv_set_cancel(ctx, cancel_after, &calls);
	PC_CHECK_EQ_INT(profconv_write_path(ctx, p, NULL, out), PROFCONV_ERR_CANCELLED);
	PC_CHECK_EQ_INT(calls, 1);
	PC_CHECK_EQ_INT(count_entries(dir), 0); /* no output, no temporary file */
	/* an existing output stays as it was */
	f = fopen(out, "w");
	PC_CHECK(f != NULL);
	if (f) {
		fputs("previous", f);
		fclose(f);
	}
	calls = 0;
	PC_CHECK_EQ_INT(profconv_write_path(ctx, p, NULL, out), PROFCONV_ERR_CANCELLED);
	PC_CHECK_EQ_INT(count_entries(dir), 1);
	f = fopen(out, "r");
	memset(buf, 0, sizeof(buf));
	PC_CHECK(f && fread(buf, 1, sizeof(buf) - 1, f) == 8);
	if (f)
		fclose(f);
	PC_CHECK_EQ_STR(buf, "previous");
	/* to a callback (and through a compressor) the same code */
	calls = 0;
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "compress", "gzip"), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_write_cb(ctx, p, NULL, sink_ok, NULL), PROFCONV_ERR_CANCELLED);
	unlink(out);
	rmdir(dir);
	profconv_profile_free(p);
	free(trace);
	profconv_ctx_free(ctx);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int legacy_warnings, legacy_errors;

static void legacy_diag(void *user, enum profconv_severity sev, const char *msg)
{
	(void)user;
	(void)msg;
	legacy_warnings += sev == PROFCONV_WARNING;
	legacy_errors += sev == PROFCONV_ERROR;
}

/*
 * The deprecated profconv_set_diag(): a wrapper over the one callback, with
 * its 0.1 contract (warnings, not the error a call fails with); setting
 * either callback replaces the other.
 */
static void test_legacy_diag(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct diags g;
	size_t len;
	char *data = load("perf/i_unknown_record.data", &len);

	profconv_set_diag(ctx, legacy_diag, NULL);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "u.data", &p), PROFCONV_OK);
	profconv_profile_free(p);
	PC_CHECK_EQ_INT(legacy_warnings, 1);
	profconv_set_strict(ctx, 1);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "u.data", &p), PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_INT(legacy_errors, 0);
	memset(&g, 0, sizeof(g));
	profconv_set_diagnostics(ctx, collect, &g);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "u.data", &p), PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_INT(g.errors, 1);
	PC_CHECK_EQ_INT(legacy_warnings + legacy_errors, 1);
	free(data);
	profconv_ctx_free(ctx);
}
#pragma GCC diagnostic pop

/* The whole file at path, or NULL (*len 0). */
/*
 * "threads" "no" (batch mode's, when its jobs fill the CPUs): the same
 * output from files read and written on the caller's thread alone (the
 * Chrome scanner, the perf symbol prefetch and the output writer each have
 * a thread otherwise).
 */
/*
 * trace converted to processed JSON with "threads" "yes" (into b[0]) and
 * "no" (into b[1]); a failed conversion leaves its buffer empty.
 */
static void write_threads_yes_no(const char *trace, size_t len, const char *name,
				 struct membuf b[2])
{
	size_t k;

	for (k = 0; k < 2; k++) {
		struct profconv_ctx *ctx = profconv_ctx_new();
		struct profconv_profile *p = NULL;

		PC_CHECK_EQ_INT(profconv_set_option(ctx, "threads", k ? "no" : "yes"), PROFCONV_OK);
		PC_CHECK_EQ_INT(profconv_read_mem(ctx, trace, len, name, &p), PROFCONV_OK);
		memset(&b[k], 0, sizeof(b[k]));
		if (p)
			b[k] = write_mem(ctx, p, "none");
		profconv_profile_free(p);
		profconv_ctx_free(ctx);
	}
}

/*
 * A profile big enough for the writer's helper thread to format the shared
 * tables' columns (60,000 stacks, frames and strings: above the 65,536
 * column elements that start it) and its markers: the same bytes with
 * "threads" "yes" and "no".
 */
static void test_threads_big(void)
{
	size_t len;
	char *trace = big_trace(60000, &len);
	struct membuf b[2];

	write_threads_yes_no(trace, len, "big.json", b);
	PC_CHECK(b[0].len > (1u << 20) && b[0].len == b[1].len && b[0].p && b[1].p &&
		 memcmp(b[0].p, b[1].p, b[0].len) == 0);
	free(b[0].p);
	free(b[1].p);
	free(trace);
}

/*
 * A V8 CPU profile of n samples on one thread (varying stacks and time
 * deltas) and n / 2 slices: each thread's samples (stack, timeDeltas) and
 * markers are cut into the writer's helper jobs; the same bytes with
 * "threads" "yes" and "no".
 */
static char *samples_trace(size_t n, size_t *len)
{
	size_t cap = n * 48 + 4096, k = 0, i;
	char *b = malloc(cap);

	if (!b)
		exit(1);
	k += (size_t)snprintf(
		b + k, cap - k,
		"{\"traceEvents\":[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":1,"
		"\"tid\":1,\"ts\":0,\"args\":{\"data\":{\"startTime\":0}}},"
		"{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":1,\"tid\":1,"
		"\"ts\":1,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
		"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","
		"\"lineNumber\":-1,\"columnNumber\":-1}},"
		"{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"run\","
		"\"url\":\"https://example.com/a.js\",\"lineNumber\":3,\"columnNumber\":4}},"
		"{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"step\","
		"\"url\":\"https://example.com/a.js\",\"lineNumber\":9,\"columnNumber\":2}}],"
		"\"samples\":[");
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(b + k, cap - k, "%s%zu", i ? "," : "", 2 + i % 3 / 2);
	k += (size_t)snprintf(b + k, cap - k, "]},\"timeDeltas\":[");
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(b + k, cap - k, "%s%zu", i ? "," : "", 1 + i * 7 % 13);
	k += (size_t)snprintf(b + k, cap - k, "]}}}");
	for (i = 0; i < n / 2; i++)
		k += (size_t)snprintf(b + k, cap - k,
				      ",{\"name\":\"t%zu\",\"ph\":\"X\",\"ts\":%zu,\"dur\":3,\"pid\":1,\"tid\":1}",
				      i % 50, i * 9);
	k += (size_t)snprintf(b + k, cap - k, "]}");
	*len = k;
	return b;
}

static void test_threads_samples(void)
{
	size_t len;
	char *trace = samples_trace(50000, &len);
	struct membuf b[2];

	write_threads_yes_no(trace, len, "samples.json", b);
	PC_CHECK(b[0].len > 300000 && b[0].len == b[1].len && b[0].p && b[1].p &&
		 memcmp(b[0].p, b[1].p, b[0].len) == 0);
	/* the samples are there, as timeDeltas, and 25,000 markers */
	PC_CHECK(pc_test_has_bytes(b[1].p, b[1].len, "\"timeDeltas\":[0.001,0.008,0.002,0.009") &&
		 pc_test_has_bytes(b[1].p, b[1].len, "\"length\":50000") &&
		 pc_test_has_bytes(b[1].p, b[1].len, "\"length\":25000"));
	free(b[0].p);
	free(b[1].p);
	free(trace);
}

/*
 * n threads of per slices each, named from 600 names of some 300 bytes
 * (180 KB of strings): the writer's helper takes the small threads whole,
 * in jobs of several threads, and the string table in jobs cut by bytes.
 */
static char *threads_trace(size_t n, size_t per, size_t *len)
{
	size_t cap = n * per * 420 + 64, k = 0, t, i;
	char *b = malloc(cap), pad[301];

	if (!b)
		exit(1);
	memset(pad, 'x', 300);
	pad[300] = '\0';
	k += (size_t)snprintf(b + k, cap - k, "{\"traceEvents\":[");
	for (t = 0; t < n; t++)
		for (i = 0; i < per; i++)
			k += (size_t)snprintf(
				b + k, cap - k,
				"%s{\"name\":\"%s_%zu\",\"ph\":\"X\",\"ts\":%zu,\"dur\":3,\"pid\":%zu,\"tid\":%zu}",
				k > 20 ? "," : "", pad + (t + i) % 7, (t * per + i) % 600, i * 10 + t,
				1 + t / 50, 1 + t);
	k += (size_t)snprintf(b + k, cap - k, "]}");
	*len = k;
	return b;
}

static void test_threads_many(void)
{
	size_t len;
	char *trace = threads_trace(400, 12, &len);
	struct membuf b[2];

	write_threads_yes_no(trace, len, "threads.json", b);
	PC_CHECK(b[0].len > 300000 && b[0].len == b[1].len && b[0].p && b[1].p &&
		 memcmp(b[0].p, b[1].p, b[0].len) == 0);
	/* the last thread and the last name are there */
	PC_CHECK(pc_test_has_bytes(b[1].p, b[1].len, "\"tid\":400,") &&
		 pc_test_has_bytes(b[1].p, b[1].len, "xxx_599\""));
	free(b[0].p);
	free(b[1].p);
	free(trace);
}

/*
 * The Gecko writer's helper takes a thread's markers (25,000 on one thread
 * here; 400 threads of 12 in the other trace) while the writer writes the
 * thread's tables: the same bytes with "threads" "yes" and "no".
 */
static void test_threads_gecko(void)
{
	size_t len, t, k;
	char *traces[2];
	size_t lens[2];

	traces[0] = samples_trace(50000, &lens[0]);
	traces[1] = threads_trace(400, 12, &lens[1]);
	for (t = 0; t < 2; t++) {
		struct membuf b[2];

		for (k = 0; k < 2; k++) {
			struct profconv_ctx *ctx = profconv_ctx_new();
			struct profconv_profile *p = NULL;

			memset(&b[k], 0, sizeof(b[k]));
			PC_CHECK_EQ_INT(profconv_set_option(ctx, "threads", k ? "no" : "yes"),
					PROFCONV_OK);
			PC_CHECK_EQ_INT(profconv_read_mem(ctx, traces[t], lens[t], "g.json", &p),
					PROFCONV_OK);
			if (p)
				PC_CHECK_EQ_INT(profconv_write_cb(ctx, p, PROFCONV_OUT_GECKO, mem_write,
								  &b[k]),
						PROFCONV_OK);
			profconv_profile_free(p);
			profconv_ctx_free(ctx);
		}
		len = b[0].len;
		PC_CHECK(len > 300000 && len == b[1].len && b[0].p && b[1].p &&
			 memcmp(b[0].p, b[1].p, len) == 0);
		free(b[0].p);
		free(b[1].p);
		free(traces[t]);
	}
}

static void test_threads_option(void)
{
	static const char *const inputs[] = { "chrome/y_synth_slices.json", "perf/y_fp.data" };
	const char *fx = getenv("PC_FIXTURES");
	char in[4096], out[2][4200], tmpl[] = "/tmp/profconv-threads.XXXXXX";
	char *dir = mkdtemp(tmpl);
	size_t i, k;

	PC_CHECK(dir != NULL);
	if (!dir)
		return;
	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		char *b[2];
		size_t len[2];

		snprintf(in, sizeof(in), "%s/%s", fx ? fx : "tests/fixtures", inputs[i]);
		for (k = 0; k < 2; k++) {
			struct profconv_ctx *ctx = profconv_ctx_new();
			struct profconv_profile *p = NULL;

			snprintf(out[k], sizeof(out[k]), "%s/out%zu.json", dir, k);
			PC_CHECK_EQ_INT(profconv_set_option(ctx, "threads", k ? "no" : "yes"),
					PROFCONV_OK);
			PC_CHECK_EQ_INT(profconv_set_option(ctx, "symbols", "yes"), PROFCONV_OK);
			PC_CHECK_EQ_INT(profconv_set_option(ctx, "host-symbols", "no"), PROFCONV_OK);
			PC_CHECK_EQ_INT(profconv_read_path(ctx, in, &p), PROFCONV_OK);
			if (p)
				PC_CHECK_EQ_INT(profconv_write_path(ctx, p, PROFCONV_OUT_PROCESSED, out[k]),
						PROFCONV_OK);
			profconv_profile_free(p);
			profconv_ctx_free(ctx);
			b[k] = pc_test_slurp(out[k], &len[k]);
		}
		PC_CHECK(len[0] > 100 && len[0] == len[1] && b[0] && b[1] &&
			 memcmp(b[0], b[1], len[0]) == 0);
		free(b[0]);
		free(b[1]);
		unlink(out[0]);
		unlink(out[1]);
	}
	rmdir(dir);
	{
		struct profconv_ctx *ctx = profconv_ctx_new();

		PC_CHECK_EQ_INT(profconv_set_option(ctx, "threads", "maybe"), PROFCONV_ERR_USAGE);
		profconv_ctx_free(ctx);
	}
}

int main(void)
{
	test_formats();
	test_threads_samples();
	test_threads_many();
	test_threads_gecko();
	test_threads_option();
	test_options();
	test_read_mem_cb();
	test_compress_cb();
	test_diagnostics();
	test_sizes_read();
	test_null_args();
	test_cancel();
	test_threads_big();
	test_legacy_diag();
	return pc_test_done();
}
