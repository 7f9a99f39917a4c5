/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_validate.c - the structural checker.
 *
 * Every tests/fixtures/validate/y_*.json (or .json.gz) must validate with
 * no error diagnostics; every n_*.json must fail, and its first error (the first
 * PROFCONV_ERROR diagnostic, or the error message when the file is not
 * JSON) must equal the first line of the sibling .err file.  Messages name
 * the file as opened, so the directory part is stripped before comparing.
 * Then: summary lines, the per-kind cap on diagnostics, warnings that keep
 * a file valid, and allocation failures at every step.
 */
/* on_diag() goes through the deprecated profconv_set_diag() on purpose: the
 * wrapper's contract (notes, warnings and validate's problems) stays tested */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "core/pc_config.h"

#include <dirent.h>
#include <stdlib.h>

#include "json/pc_validate.h"
#include "pc_test.h"

struct diags {
	int errors, warnings, lines;
	char first_error[1024];
	char last[1024];
};

static void on_diag(void *user, enum profconv_severity sev, const char *msg)
{
	struct diags *d = user;

	d->lines++;
	pc_snprintf(d->last, sizeof(d->last), "%s", msg);
	if (sev == PROFCONV_ERROR) {
		if (!d->errors)
			pc_snprintf(d->first_error, sizeof(d->first_error), "%s", msg);
		d->errors++;
	} else if (sev == PROFCONV_WARNING) {
		d->warnings++;
	}
}

struct sink {
	char buf[4096];
	size_t len;
};

static int on_write(void *user, const void *data, size_t len)
{
	struct sink *s = user;

	if (s->len + len >= sizeof(s->buf))
		return -1;
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	s->buf[s->len] = 0;
	return 0;
}

/* Validate one document; the summary goes to *s, diagnostics to *d. */
static int run_mem(const char *doc, size_t len, const char *name, struct diags *d, struct sink *s)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct pc_text_out out = { on_write, s, 0 };
	struct pc_input *in;
	int err;

	memset(d, 0, sizeof(*d));
	memset(s, 0, sizeof(*s));
	profconv_set_diag(ctx, on_diag, d);
	err = pc_input_open_mem(ctx, doc, len, name, &in);
	if (!err) {
		err = pc_validate(ctx, in, &out);
		if (err && err != PROFCONV_ERR_INVALID)
			pc_snprintf(d->first_error, sizeof(d->first_error), "%s",
				    profconv_errmsg(ctx));
		pc_input_close(in);
	}
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_fixture(const char *dir, const char *name)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	struct sink s = { "", 0 };
	struct pc_text_out out = { on_write, &s, 0 };
	char path[1024], errpath[1024], want[1024];
	struct diags d;
	struct pc_input *in;
	size_t plen, len;
	char *exp;
	int err;

	memset(&d, 0, sizeof(d));
	profconv_set_diag(ctx, on_diag, &d);
	pc_snprintf(path, sizeof(path), "%s/%s", dir, name);
	plen = strlen(dir) + 1;
	err = pc_input_open_path(ctx, path, &in);
	PC_CHECK_EQ_INT(err, 0);
	if (err) {
		profconv_ctx_free(ctx);
		return;
	}
	err = pc_validate(ctx, in, &out);
	pc_input_close(in);
	if (name[0] == 'y') {
		if (err || d.errors)
			fprintf(stderr, "%s: rc %d, first error: %s %s\n", name, err, d.first_error,
				profconv_errmsg(ctx));
		PC_CHECK_EQ_INT(err, 0);
		PC_CHECK_EQ_INT(d.errors, 0);
		PC_CHECK(strncmp(s.buf, path, strlen(path)) == 0);
		PC_CHECK(strstr(s.buf, ": valid ") != NULL);
	} else {
		const char *got = err == PROFCONV_ERR_INVALID ? d.first_error : profconv_errmsg(ctx);

		PC_CHECK(err != 0);
		if (err == PROFCONV_ERR_INVALID)
			PC_CHECK(strstr(s.buf, ": INVALID ") != NULL);
		else
			PC_CHECK_EQ_INT(s.len, 0);
		pc_snprintf(errpath, sizeof(errpath), "%s", path);
		memcpy(errpath + strlen(errpath) - 5, ".err", 5);
		exp = pc_test_slurp(errpath, &len);
		PC_CHECK(exp != NULL);
		if (exp) {
			char *nl = strchr(exp, '\n');

			if (nl)
				*nl = 0;
			pc_snprintf(want, sizeof(want), "%s", exp);
			free(exp);
			if (strncmp(got, path, plen) == 0)
				got += plen;
			if (strcmp(got, want) != 0)
				fprintf(stderr, "fixture %s:\n", name);
			PC_CHECK_EQ_STR(got, want);
		}
	}
	PC_CHECK_EQ_INT(ctx->mem_used, 0);
	profconv_ctx_free(ctx);
}

static void test_fixtures(void)
{
	const char *root = getenv("PC_FIXTURES");
	char dir[1024], *names[512];
	struct dirent *e;
	size_t n = 0, i, ny = 0, nn = 0;
	DIR *dh;

	PC_CHECK(root != NULL);
	if (!root)
		return;
	pc_snprintf(dir, sizeof(dir), "%s/validate", root);
	dh = opendir(dir);
	PC_CHECK(dh != NULL);
	if (!dh)
		return;
	while ((e = readdir(dh)) != NULL && n < PC_ARRAY_SIZE(names)) {
		size_t l = strlen(e->d_name);

		if ((e->d_name[0] != 'y' && e->d_name[0] != 'n') || e->d_name[1] != '_' || l < 9)
			continue;
		/* compressed inputs go through the input layer's gzip path */
		if (strcmp(e->d_name + l - 5, ".json") != 0 &&
		    (e->d_name[0] != 'y' || strcmp(e->d_name + l - 8, ".json.gz") != 0))
			continue;
		names[n] = malloc(l + 1);
		if (!names[n])
			break;
		memcpy(names[n++], e->d_name, l + 1);
	}
	closedir(dh);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (i = 0; i < n; i++) {
		test_fixture(dir, names[i]);
		if (names[i][0] == 'y')
			ny++;
		else
			nn++;
		free(names[i]);
	}
	PC_CHECK(ny >= 7);
	PC_CHECK(nn >= 20);
	printf("%zu valid and %zu invalid fixtures\n", ny, nn);
}

/* The minimal processed profile with a few substitutions. */
static const char proc_fmt[] =
	"{\"meta\": {\"version\": 36, \"preprocessedProfileVersion\": %s, \"interval\": 1,"
	" \"startTime\": 0, \"markerSchema\": [], \"categories\": ["
	"{\"name\": \"Other\", \"color\": \"%s\", \"subcategories\": [\"Other\"]},"
	"{\"name\": \"User\", \"color\": \"yellow\", \"subcategories\": [\"Other\"]}]},"
	" \"libs\": [], \"shared\": {\"stringArray\": [\"main\", %s],"
	" \"stackTable\": {\"length\": %d, \"frame\": [%s], \"prefixOffset\": [%s]},"
	" \"frameTable\": {\"length\": 1, \"address\": [-1], \"lib\": [-1], \"inlineDepth\": [0],"
	" \"category\": [1], \"subcategory\": [0], \"func\": [0], \"nativeSymbol\": [null],"
	" \"innerWindowID\": [0], \"line\": [null], \"column\": [null], \"originalLocation\": [null]},"
	" \"funcTable\": {\"length\": 1, \"name\": [0], \"isJS\": [false], \"relevantForJS\": [false],"
	" \"resource\": [-1], \"source\": [null], \"lineNumber\": [null], \"columnNumber\": [null],"
	" \"originalLocation\": [null]},"
	" \"resourceTable\": {\"length\": 0, \"name\": [], \"host\": [], \"type\": []},"
	" \"nativeSymbols\": {\"length\": 0, \"libIndex\": [], \"address\": [], \"name\": [],"
	" \"functionSize\": []},"
	" \"sources\": {\"length\": 0, \"id\": [], \"filename\": [], \"startLine\": [],"
	" \"startColumn\": [], \"sourceMapURL\": [], \"content\": []},"
	" \"sourceLocationTable\": {\"length\": 0, \"source\": [], \"line\": [], \"column\": []}},"
	" \"threads\": [{\"name\": \"t\", \"processType\": \"default\", \"pid\": %s, \"tid\": 1,"
	" \"isMainThread\": true, \"processStartupTime\": 0, \"processShutdownTime\": null,"
	" \"registerTime\": 0, \"unregisterTime\": null, \"pausedRanges\": [],"
	" \"samples\": {\"length\": 4, \"weightType\": \"samples\", \"weight\": null,"
	" \"stack\": [0, 0, null, 0], \"time\": [%s]},"
	" \"markers\": {\"length\": 0, \"name\": [], \"startTime\": [], \"endTime\": [],"
	" \"phase\": [], \"category\": [], \"data\": []}}]}";

static char doc[1 << 16];

static size_t make_proc(const char *ver, const char *color, const char *strings, int nstacks,
			const char *frames, const char *prefixes, const char *pid, const char *times)
{
	return pc_snprintf(doc, sizeof(doc), proc_fmt, ver, color, strings, nstacks, frames,
			   prefixes, pid, times);
}

static void test_summaries(void)
{
	struct diags d;
	struct sink s;
	size_t len;
	char frames[4096], prefixes[4096];
	size_t fn = 0, pn = 0;
	int i, err;

	len = make_proc("70", "grey", "\"x\"", 1, "0", "0", "\"1\"", "0, 1, 2, 3");
	err = run_mem(doc, len, "m.json", &d, &s);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_STR(s.buf,
			"m.json: valid processed profile v70: 1 thread, 4 samples, 1 stack, 1 frame, 1 func\n");
	PC_CHECK_EQ_INT(d.lines, 0);

	/* warnings keep a file valid */
	len = make_proc("70", "gray", "\"caf\xff\"", 1, "0", "0", "1", "0, 2, 1, 3");
	err = run_mem(doc, len, "w.json", &d, &s);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK_EQ_INT(d.errors, 0);
	PC_CHECK_EQ_INT(d.warnings, 5);
	PC_CHECK_EQ_STR(s.buf,
			"w.json: valid processed profile v70: 1 thread, 4 samples, 1 stack, 1 frame, 1 func; 5 warnings (1 no grey category, 1 non-standard color, 1 samples out of time order, 1 pid not a string, 1 invalid UTF-8)\n");
	PC_CHECK_EQ_STR(d.last,
			"w.json: 1 strings hold invalid UTF-8 or lone surrogates (shown as U+FFFD)");

	/* newer and older versions */
	/* a newer version is an error: the front-end refuses the file */
	len = make_proc("71", "grey", "\"x\"", 1, "0", "0", "\"1\"", "0, 1, 2, 3");
	err = run_mem(doc, len, "v.json", &d, &s);
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_INVALID);
	PC_CHECK_EQ_STR(d.last,
			"v.json: meta.preprocessedProfileVersion: 71 is newer than 70, the newest the front-end reads (it refuses the file)");
	/* 69 (what the deployed front-end reads, and our default) needs no note */
	len = make_proc("69", "grey", "\"x\"", 1, "0", "0", "\"1\"", "0, 1, 2, 3");
	err = run_mem(doc, len, "o.json", &d, &s);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(strstr(s.buf, "note:") == NULL);
	len = make_proc("68", "grey", "\"x\"", 1, "0", "0", "\"1\"", "0, 1, 2, 3");
	err = run_mem(doc, len, "o.json", &d, &s);
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(strstr(s.buf, "; note: v68 is older than v70, the front-end upgrades it on load\n") !=
		 NULL);

	/* 30 bad frames: 20 shown, then one line for the rest */
	for (i = 0; i < 30; i++) {
		fn += pc_snprintf(frames + fn, sizeof(frames) - fn, "%s9", i ? "," : "");
		pn += pc_snprintf(prefixes + pn, sizeof(prefixes) - pn, "%s0", i ? "," : "");
	}
	len = make_proc("70", "grey", "\"x\"", 30, frames, prefixes, "\"1\"", "0, 1, 2, 3");
	err = run_mem(doc, len, "c.json", &d, &s);
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_INVALID);
	PC_CHECK_EQ_INT(d.errors, PC_VALIDATE_MAX_SHOWN + 1);
	PC_CHECK_EQ_STR(d.first_error,
			"c.json: shared.stackTable.frame[0]: frame 9 is out of range (shared.frameTable has 1 rows)");
	PC_CHECK_EQ_STR(d.last, "c.json: 10 more 'index out of range' problems not shown");
	PC_CHECK_EQ_STR(s.buf,
			"c.json: INVALID processed profile v70: 30 problems (30 index out of range)\n");

	/* not a profile at all */
	err = run_mem("[1, 2]", 6, "a.json", &d, &s);
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_INVALID);
	PC_CHECK_EQ_STR(d.first_error,
			"a.json: the top-level value is an array, not an object: not a Firefox profile");
	err = run_mem("{}", 2, "e.json", &d, &s);
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_INVALID);
	PC_CHECK_EQ_STR(d.first_error, "e.json: missing 'meta'");
	PC_CHECK_EQ_STR(s.buf,
			"e.json: INVALID profile of unknown format: 3 problems (3 missing field)\n");

	/* not JSON: the tokenizer's error, no summary */
	err = run_mem("{\"meta\": {\"version\": 36,}}", 26, "j.json", &d, &s);
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_CORRUPT);
	PC_CHECK_EQ_STR(d.first_error, "j.json:1:25: expected a string key after ',', got '}'");
	PC_CHECK_EQ_INT(s.len, 0);
}

/*
 * innerWindowID of the processed frame table: validate and the processed
 * reader take the same numbers (issue 22 item 9: validate took 2^64 - 1,
 * which the reader refuses and a JS number cannot hold).
 */
static void test_window_ids(void)
{
	static const struct {
		const char *v;
		int ok;
	} cases[] = {
		{ "0", 1 },	     { "null", 1 },	      { "9007199254740991", 1 },
		{ "9007199254740992", 0 }, { "18446744073709551615", 0 }, { "-1", 0 },
		{ "1.5", 0 },	     { "1e3", 0 },
	};
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(cases); i++) {
		struct profconv_ctx *ctx = profconv_ctx_new();
		struct profconv_profile *p = NULL;
		struct diags d;
		struct sink s;
		char *at;
		size_t len = make_proc("69", "grey", "\"x\"", 1, "0", "0", "\"1\"", "0, 1, 2, 3");
		char tail[1 << 15];
		int err;

		at = strstr(doc, "\"innerWindowID\": [0]");
		PC_CHECK(at != NULL);
		if (!at) {
			profconv_ctx_free(ctx);
			continue;
		}
		at += strlen("\"innerWindowID\": [");
		pc_snprintf(tail, sizeof(tail), "%s", at + 1);
		len = (size_t)(at - doc) + pc_snprintf(at, sizeof(doc) - (size_t)(at - doc), "%s%s",
						       cases[i].v, tail);
		err = run_mem(doc, len, "iw.json", &d, &s);
		PC_CHECK_EQ_INT(err, cases[i].ok ? 0 : PROFCONV_ERR_INVALID);
		if (!cases[i].ok)
			PC_CHECK(strstr(d.first_error, "innerWindowID") != NULL);
		profconv_set_diag(ctx, on_diag, &d);
		err = profconv_read_mem(ctx, doc, len, "iw.json", &p);
		PC_CHECK_EQ_INT(err == PROFCONV_OK, cases[i].ok);
		profconv_profile_free(p);
		profconv_ctx_free(ctx);
	}
}

/* Every allocation failing in turn: a clean NOMEM, nothing leaked. */
static void test_alloc_failures(void)
{
	struct sink s;
	size_t len;
	long n;
	int ok = 1, done = 0;

	len = make_proc("70", "grey", "\"x\"", 1, "0", "0", "\"1\"", "0, 1, 2, 3");
	for (n = 1; n < 400 && !done; n++) {
		struct profconv_ctx *ctx = profconv_ctx_new();
		struct pc_text_out out = { on_write, &s, 0 };
		struct pc_input *in;
		int err;

		memset(&s, 0, sizeof(s));
		ctx->fault_alloc = n;
		err = pc_input_open_mem(ctx, doc, len, "f.json", &in);
		if (!err) {
			err = pc_validate(ctx, in, &out);
			pc_input_close(in);
		}
		if (err && err != PROFCONV_ERR_NOMEM) {
			fprintf(stderr, "fault %ld: rc %d: %s\n", n, err, profconv_errmsg(ctx));
			ok = 0;
		}
		if (ctx->mem_used != 0) {
			fprintf(stderr, "fault %ld: %llu bytes leaked\n", n,
				(unsigned long long)ctx->mem_used);
			ok = 0;
		}
		if (!err)
			done = 1;
		profconv_ctx_free(ctx);
	}
	PC_CHECK(ok);
	PC_CHECK(done);
}

int main(void)
{
	test_fixtures();
	test_summaries();
	test_window_ids();
	test_alloc_failures();
	return pc_test_done();
}
