/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sym_text.c - perf-PID.map and kallsyms symbol sources: lookups at,
 * inside and past entries, samply's "a later overlapping entry wins",
 * kallsyms aliases, sizes bounded by the next symbol, a module's last
 * symbol, and the reasons given for unusable files (kptr_restrict, no _text).
 * Fixtures: tests/fixtures/sym/{perf-4242.map,perf-bad.map,kallsyms*.txt}.
 * The kallsyms cache's lookups (which answers come from the cache and which
 * from the file) on a kallsyms written here, as the host's
 * (PROFCONV_TEST_HOST_KERNEL).
 */
#include "symbolicate/pc_symsrc.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pc_test.h"

#define TEXT 0xffffffff81000000ULL /* _text in kallsyms.txt */

static struct profconv_ctx *ctx;
static char first_diag[1024];

static void diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	if (d->severity != PROFCONV_ERROR && !first_diag[0])
		pc_snprintf(first_diag, sizeof(first_diag), "%s", d->message);
}

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("PC_FIXTURES");

	pc_snprintf(path, sizeof(path), "%s/sym/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

/* Look rel up; expect name (NULL = not found), start and size. */
static void expect(struct pc_symsrc *s, uint64_t rel, const char *name, uint64_t start,
		   uint32_t size)
{
	struct pc_sym_result r;
	int found = pc_symsrc_lookup(s, rel, &r);

	if (!name) {
		PC_CHECK_EQ_INT(found, 0);
		if (found)
			fprintf(stderr, "  0x%llx: unexpected %s\n", (unsigned long long)rel,
				r.frames[0].name);
		return;
	}
	PC_CHECK_EQ_INT(found, 1);
	if (found != 1) {
		fprintf(stderr, "  0x%llx: expected %s\n", (unsigned long long)rel, name);
		return;
	}
	PC_CHECK_EQ_INT(r.nframes, 1);
	PC_CHECK_EQ_STR(r.frames[0].name, name);
	PC_CHECK(r.frames[0].file == NULL);
	PC_CHECK_EQ_INT(r.frames[0].line, 0);
	PC_CHECK(r.sym_start == start);
	PC_CHECK_EQ_INT(r.sym_size, size);
}

static void test_perf_map(void)
{
	struct pc_symsrc *s = NULL;
	char why[512];
	int err = pc_symsrc_open_perf_map(ctx, fixture("perf-4242.map"), &s, why, sizeof(why));

	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s != NULL);
	if (!s)
		return;
	PC_CHECK_EQ_STR(s->ops->kind, "perf-map");
	/* At, inside and just past an entry (addresses are absolute). */
	expect(s, 0x7f3a10001000, "LazyCompile:~foo /app/a.js:1", 0x7f3a10001000, 0x40);
	expect(s, 0x7f3a1000103f, "LazyCompile:~foo /app/a.js:1", 0x7f3a10001000, 0x40);
	/* 0x prefixes on both numbers. */
	expect(s, 0x7f3a10001040, "LazyCompile:*bar /app/a.js:10", 0x7f3a10001040, 0x20);
	expect(s, 0x7f3a1000105f, "LazyCompile:*bar /app/a.js:10", 0x7f3a10001040, 0x20);
	expect(s, 0x7f3a10001060, NULL, 0, 0);
	expect(s, 0x7f3a10000fff, NULL, 0, 0);
	/* baz overlaps the trampoline listed before it: the trampoline is gone, whole. */
	expect(s, 0x7f3a10001100, NULL, 0, 0);
	expect(s, 0x7f3a1000117f, NULL, 0, 0);
	expect(s, 0x7f3a10001180, "JS:*baz /app/b.js:3", 0x7f3a10001180, 0x40);
	expect(s, 0x7f3a100011bf, "JS:*baz /app/b.js:3", 0x7f3a10001180, 0x40);
	expect(s, 0x7f3a100011c0, NULL, 0, 0);
	/* Same start twice: the later line wins. */
	expect(s, 0x7f3a10002000, "Stub:new", 0x7f3a10002000, 0x18);
	expect(s, 0x7f3a10002014, "Stub:new", 0x7f3a10002000, 0x18);
	expect(s, 0x7f3a10002018, NULL, 0, 0);
	/* Spaces and brackets inside a name. */
	expect(s, 0x7f3a10003010, "Function:wasm-function[7] <anonymous>", 0x7f3a10003000, 0x30);
	expect(s, 0x7f3a10003030, NULL, 0, 0);
	expect(s, 0, NULL, 0, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 0);
	pc_symsrc_close(s);
}

static void test_perf_map_bad(void)
{
	struct profconv_ctx *c = profconv_ctx_new();
	struct pc_symsrc *s = NULL;
	char why[512];
	int err;

	first_diag[0] = 0;
	profconv_set_diagnostics(c, diag, NULL);
	err = pc_symsrc_open_perf_map(c, fixture("perf-bad.map"), &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s != NULL);
	PC_CHECK_EQ_INT(profconv_warning_count(c), 4);
	PC_CHECK_EQ_STR(profconv_warning_summary(c), "4 malformed symbol-file lines skipped");
	PC_CHECK(strstr(first_diag, "perf-bad.map:2:1: bad start address; line skipped") != NULL);
	if (s) {
		expect(s, 0x7f3a10001010, "ok_entry", 0x7f3a10001000, 0x40);
		expect(s, 0x7f3a10001300, NULL, 0, 0);
		pc_symsrc_close(s);
	}
	PC_CHECK_EQ_INT(c->mem_used, 0);
	profconv_ctx_free(c);

	/* Strict: the first bad line is an error with its line number. */
	c = profconv_ctx_new();
	profconv_set_strict(c, 1);
	s = NULL;
	err = pc_symsrc_open_perf_map(c, fixture("perf-bad.map"), &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, PROFCONV_ERR_STRICT);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(profconv_errmsg(c), "perf-bad.map:2:1:") != NULL);
	PC_CHECK_EQ_INT(c->mem_used, 0);
	profconv_ctx_free(c);

	/* Absent and empty files: a reason, no error. */
	c = profconv_ctx_new();
	err = pc_symsrc_open_perf_map(c, fixture("perf-1.map"), &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "no such file") != NULL);
	err = pc_symsrc_open_perf_map(c, "/dev/null", &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "no symbols") != NULL);
	profconv_ctx_free(c);
}

static void check_kallsyms(const char *path)
{
	struct pc_symsrc *s = NULL;
	char why[512];
	int err = pc_symsrc_open_kallsyms(ctx, path, &s, why, sizeof(why));

	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "kallsyms: %s\n", why);
		return;
	}
	PC_CHECK_EQ_STR(s->ops->kind, "kallsyms");
	/* rel 0 = _text; of four aliases perf 6.1 shows the last in the file. */
	expect(s, 0, "__pi__text", 0, 0x10);
	expect(s, 0xf, "__pi__text", 0, 0x10);
	expect(s, 0x10, "__entry_text_start", 0x10, 0x30);
	/* At, inside and just past. */
	expect(s, 0x80, "entry_SYSCALL_64", 0x80, 0x2c);
	expect(s, 0x85, "entry_SYSCALL_64", 0x80, 0x2c);
	expect(s, 0xac, "entry_SYSCALL_64_safe_stack", 0xac, 0x0e);
	/* A local (t) symbol. */
	expect(s, 0x138, "syscall_return_via_sysret", 0x138, 0x87);
	/* Aliases irq_entries_start / __irqentry_text_start: the last wins. */
	expect(s, 0x300, "__irqentry_text_start", 0x300, 0x660);
	/* A weak (W) symbol. */
	expect(s, 0x207612, "abort", 0x207610, 7);
	/* _etext is bounded by the data symbol after it; data is not looked up. */
	expect(s, 0x120bb10, "_etext", 0x120bb08, 0x1f44f8);
	expect(s, 0x1400000, NULL, 0, 0);
	expect(s, 0x1460000, NULL, 0, 0);
	/* A module's (last) symbol: size unknown, a page at most. */
	expect(s, 0xffffffffc0201000ULL - TEXT, "ftrace_trampoline", 0xffffffffc0201000ULL - TEXT,
	       0);
	expect(s, 0xffffffffc0201fffULL - TEXT, "ftrace_trampoline", 0xffffffffc0201000ULL - TEXT,
	       0);
	expect(s, 0xffffffffc0202000ULL - TEXT, NULL, 0, 0);
	/* Below _text (rel wraps around). */
	expect(s, (uint64_t)-16, NULL, 0, 0);
	PC_CHECK_EQ_INT(profconv_warning_count(ctx), 0);
	pc_symsrc_close(s);
}

/*
 * kallsyms.txt as the kernel gives it (in address order: sorting is
 * skipped), and with its last six lines (data and a module's symbol) moved
 * to the front: sorted by address, aliases kept in file order, the same.
 */
static void test_kallsyms(void)
{
	char tmpl[] = "/tmp/profconv-ks.XXXXXX", path[4200], *lines[128];
	char *d, buf[512];
	FILE *in, *out;
	size_t n = 0, i;

	check_kallsyms(fixture("kallsyms.txt"));
	d = mkdtemp(tmpl);
	PC_CHECK(d != NULL);
	if (!d)
		return;
	pc_snprintf(path, sizeof(path), "%s/kallsyms", d);
	in = fopen(fixture("kallsyms.txt"), "r");
	PC_CHECK(in != NULL);
	while (in && n < 128 && fgets(buf, sizeof(buf), in))
		lines[n++] = strdup(buf);
	if (in)
		fclose(in);
	PC_CHECK(n > 6 && n < 128);
	out = fopen(path, "w");
	PC_CHECK(out != NULL);
	for (i = 0; out && i < n; i++)
		fputs(lines[(i + n - 6) % n], out);
	if (out)
		fclose(out);
	check_kallsyms(path);
	for (i = 0; i < n; i++)
		free(lines[i]);
	unlink(path);
	rmdir(d);
}

static void test_kallsyms_unusable(void)
{
	struct pc_symsrc *s = (struct pc_symsrc *)1;
	char why[512];
	int err;

	err = pc_symsrc_open_kallsyms(ctx, fixture("kallsyms-zero.txt"), &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "kptr_restrict") != NULL);

	err = pc_symsrc_open_kallsyms(ctx, fixture("kallsyms-notext.txt"), &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "_text") != NULL);

	err = pc_symsrc_open_kallsyms(ctx, fixture("no-such-kallsyms"), &s, why, sizeof(why));
	PC_CHECK_EQ_INT(err, 0);
	PC_CHECK(s == NULL);
	PC_CHECK(strstr(why, "no such file") != NULL);
	PC_CHECK_EQ_INT(ctx->status, 0);
}

/* A host kallsyms of 300 core symbols (past the first page) and a BPF program. */
static void write_kallsyms(const char *path, const char *fn299, const char *bpf)
{
	FILE *f = fopen(path, "w");
	int i;

	PC_CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "ffffffff81000000 T _text\n");
	for (i = 1; i < 300; i++)
		fprintf(f, "%llx T %s\n", (unsigned long long)(TEXT + 0x100 * (uint64_t)i),
			i == 299 ? fn299 : "fn_xxx");
	fprintf(f, "ffffffff82000000 D __start_rodata\n");
	fprintf(f, "ffffffffa0001000 t %s\t[bpf]\n", bpf);
	fclose(f);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	pc_snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	PC_CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The cache answers only for core symbols with a known end: a BPF program
 * (or anything not sure) is looked up in the file, read then, since those
 * come and go under one key.  The second kallsyms differs from the cached
 * one past the first page only (same key): its renamed core symbol shows
 * the cache's answer, its renamed BPF program the file's.
 */
static void test_kallsyms_cache(void)
{
	char tmpl[] = "/tmp/profconv-ksc.XXXXXX", k[4200], cache[4200], ks[4200], cmd[8600];
	char *d = mkdtemp(tmpl);
	struct profconv_ctx *c = profconv_ctx_new();
	struct pc_symsrc *s = NULL;
	char why[512];
	int err, pass;

	PC_CHECK(d != NULL && c != NULL);
	if (!d || !c)
		return;
	pc_snprintf(k, sizeof(k), "%s/k", d);
	pc_snprintf(cache, sizeof(cache), "%s/cache", d);
	pc_snprintf(ks, sizeof(ks), "%s/kallsyms", k);
	PC_CHECK_EQ_INT(mkdir(k, 0700), 0);
	put_file(k, "boot_id", "0f0f0f0f-1111-2222-3333-444444444444\n");
	put_file(k, "osrelease", "6.1.0-test\n");
	write_kallsyms(ks, "fn_299", "bpf_prog_aaaa_x");
	setenv("PROFCONV_TEST_HOST_KERNEL", k, 1);
	c->opt.symbol_cache = strdup(cache);
	for (pass = 0; pass < 2; pass++) {
		err = pc_symsrc_open_host_kallsyms(c, &s, why, sizeof(why));
		PC_CHECK_EQ_INT(err, 0);
		PC_CHECK(s != NULL);
		if (!s)
			break;
		expect(s, 0x100, "fn_xxx", 0x100, 0x100);
		expect(s, 0x100 * 299, "fn_299", 0x100 * 299, 0x1000000 - 0x100 * 299);
		expect(s, 0xffffffffa0001000ULL - TEXT, pass ? "bpf_prog_bbbb_x" : "bpf_prog_aaaa_x",
		       0xffffffffa0001000ULL - TEXT, 0);
		expect(s, 0xffffffff90000000ULL - TEXT, NULL, 0, 0);
		pc_symsrc_close(s);
		s = NULL;
		/* the same key: a change past the first page only */
		write_kallsyms(ks, "fn_29X", "bpf_prog_bbbb_x");
	}
	PC_CHECK_EQ_INT(profconv_warning_count(c), 0);
	PC_CHECK_EQ_INT(c->mem_used, 0);
	unsetenv("PROFCONV_TEST_HOST_KERNEL");
	profconv_ctx_free(c);
	pc_snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	PC_CHECK_EQ_INT(system(cmd), 0);
}

/* Every allocation failure is a clean error and frees what was taken. */
static void test_alloc_failures(void)
{
	const char *files[2] = { "perf-4242.map", "kallsyms.txt" };
	int f;

	for (f = 0; f < 2; f++) {
		long n;

		for (n = 1; n < 64; n++) {
			struct profconv_ctx *c = profconv_ctx_new();
			struct pc_symsrc *s = NULL;
			char why[512];
			int err;

			c->fault_alloc = n;
			if (f == 0)
				err = pc_symsrc_open_perf_map(c, fixture(files[f]), &s, why,
							      sizeof(why));
			else
				err = pc_symsrc_open_kallsyms(c, fixture(files[f]), &s, why,
							      sizeof(why));
			if (!err)
				pc_symsrc_close(s);
			else
				PC_CHECK_EQ_INT(err, PROFCONV_ERR_NOMEM);
			PC_CHECK_EQ_INT(c->mem_used, 0);
			profconv_ctx_free(c);
			if (!err)
				break;
		}
		PC_CHECK(n < 64);
	}
}

int main(void)
{
	struct profconv_ctx *main_ctx = profconv_ctx_new();

	ctx = main_ctx;
	test_perf_map();
	test_perf_map_bad();
	test_kallsyms();
	test_kallsyms_unusable();
	test_kallsyms_cache();
	test_alloc_failures();
	PC_CHECK_EQ_INT(main_ctx->mem_used, 0);
	profconv_ctx_free(main_ctx);
	return pc_test_done();
}
