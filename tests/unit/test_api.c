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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct profconv_format f;
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
	struct profconv_thread t;
	struct profconv_sample s;
	struct profconv_stack st;
	struct profconv_frame fr;
	struct profconv_func fn;
	struct profconv_lib lib;
	struct profconv_meta meta;
	size_t i, j, bad = 0, hex = 0, total = 0, kernel = 0;

	profconv_profile_meta(p, &meta);
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

	if (c->pos >= 100)
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
	char kind[128], file[128], message[512];
	uint64_t offset;
	int code;
};

static void collect(void *user, const struct profconv_diag *d)
{
	struct diags *g = user;

	if (d->severity == PROFCONV_WARNING) {
		g->warnings++;
		snprintf(g->kind, sizeof(g->kind), "%s", d->kind ? d->kind : "(null)");
		snprintf(g->file, sizeof(g->file), "%s", d->file ? d->file : "(null)");
		g->offset = d->offset;
	} else if (d->severity == PROFCONV_ERROR) {
		g->errors++;
		g->code = d->code;
		snprintf(g->message, sizeof(g->message), "%s", d->message);
	} else {
		g->notes++;
	}
}

static void test_diagnostics(void)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct profconv_profile *p = NULL;
	struct profconv_diag last;
	struct diags g;
	size_t len;
	char *data = load("perf/i_unknown_record.data", &len);

	memset(&g, 0, sizeof(g));
	profconv_set_diagnostics(ctx, collect, &g);
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "i_unknown_record.data", &p), PROFCONV_OK);
	profconv_profile_free(p);
	PC_CHECK_EQ_INT(g.warnings, 1);
	PC_CHECK_EQ_STR(g.file, "i_unknown_record.data");
	PC_CHECK_EQ_INT(g.offset, 0x5e8);
	PC_CHECK(strstr(profconv_warning_summary(ctx), g.kind) != NULL);
	PC_CHECK_EQ_INT(g.errors, 0);

	/* strict: the same warning is the error, with its parts */
	profconv_set_strict(ctx, 1);
	p = NULL;
	PC_CHECK_EQ_INT(profconv_read_mem(ctx, data, len, "i_unknown_record.data", &p),
			PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_INT(g.errors, 1);
	PC_CHECK_EQ_INT(g.code, PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_STR(g.message, profconv_errmsg(ctx));
	profconv_last_error(ctx, &last);
	PC_CHECK_EQ_INT(last.code, PROFCONV_ERR_STRICT);
	PC_CHECK_EQ_STR(last.file, "i_unknown_record.data");
	PC_CHECK_EQ_INT(last.offset, 0x5e8);
	free(data);
	profconv_ctx_free(ctx);
}

int main(void)
{
	test_formats();
	test_options();
	test_read_mem_cb();
	test_compress_cb();
	test_diagnostics();
	return pc_test_done();
}
