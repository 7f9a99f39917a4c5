/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_api_symbols.c - symbols on demand (profconv_symbols_*, src/api_symbols.c)
 * for the libs of a profile converted without symbols: tests/fixtures/symperf's
 * recording of prog, whose binary and debug file are shipped beside it.
 * Expectations from prog.symbolizer.txt (llvm-symbolizer) and objdump -d.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <unistd.h>

#include "profconv.h"
#include "pc_test.h"

static char dir[4096];

static struct profconv_ctx *ctx_with(const char *symdir)
{
	struct profconv_ctx *ctx = profconv_ctx_new();

	PC_CHECK(ctx != NULL);
	PC_CHECK_EQ_INT(profconv_set_option(ctx, "host-symbols", "no"), PROFCONV_OK);
	if (symdir)
		PC_CHECK_EQ_INT(profconv_set_option(ctx, "symbol-dir", symdir), PROFCONV_OK);
	return ctx;
}

/* prog's lib in p: its debug name and breakpad id. */
static int prog_lib(const struct profconv_profile *p, struct profconv_lib *out)
{
	size_t i;

	for (i = 0; i < profconv_profile_lib_count(p); i++)
		if (profconv_profile_lib(p, i, out) == PROFCONV_OK &&
		    strcmp(out->debug_name, "prog") == 0)
			return 0;
	return -1;
}

static void test_lookup_and_code(const struct profconv_profile *p, const struct profconv_lib *lib)
{
	struct profconv_ctx *ctx = ctx_with(dir);
	struct profconv_symbols *s = NULL;
	struct profconv_symbol sym = PROFCONV_INIT(struct profconv_symbol);
	struct profconv_code code = PROFCONV_INIT(struct profconv_code);
	static const unsigned char fib_head[] = { 0x55, 0x48, 0x89, 0xe5, 0x41, 0x55 };

	PC_CHECK_EQ_INT(profconv_symbols_new(ctx, &s), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_symbols_add_libs(s, p), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_symbols_add_libs(s, p), PROFCONV_OK); /* twice: no duplicates */

	/* mix() inlined into scale() inlined into work() */
	PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", lib->breakpad_id, 0x1255, &sym),
			PROFCONV_OK);
	PC_CHECK(sym.lib_found);
	PC_CHECK_EQ_INT(sym.nframes, 3);
	if (sym.nframes == 3) {
		PC_CHECK_EQ_STR(sym.frames[0].name, "work");
		PC_CHECK_EQ_INT(sym.frames[0].line, 47);
		PC_CHECK_EQ_STR(sym.frames[1].name, "scale");
		PC_CHECK_EQ_INT(sym.frames[1].line, 25);
		PC_CHECK_EQ_STR(sym.frames[2].name, "mix");
		PC_CHECK_EQ_INT(sym.frames[2].line, 16);
		PC_CHECK_EQ_STR(sym.frames[2].file, "/work/main/tests/fixtures/symperf/prog.c");
	}
	PC_CHECK(sym.start <= 0x1255 && sym.start + sym.length > 0x1255);
	/* fib: a symbol of 0x4a bytes at 0x11d0 (nm -S) */
	PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", lib->breakpad_id, 0x11d6, &sym),
			PROFCONV_OK);
	PC_CHECK_EQ_INT(sym.nframes, 1);
	PC_CHECK_EQ_STR(sym.nframes ? sym.frames[0].name : NULL, "fib");
	PC_CHECK_EQ_INT(sym.frames[0].line, 40);
	PC_CHECK_EQ_INT(sym.start, 0x11d0);
	PC_CHECK_EQ_INT(sym.length, 0x4a);
	/* the breakpad id compares without case; a lib not in the profile is unknown */
	{
		char lower[64];
		size_t i;

		snprintf(lower, sizeof(lower), "%s", lib->breakpad_id);
		for (i = 0; lower[i]; i++)
			if (lower[i] >= 'A' && lower[i] <= 'F')
				lower[i] = (char)(lower[i] - 'A' + 'a');
		PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", lower, 0x11d6, &sym), PROFCONV_OK);
		PC_CHECK_EQ_INT(sym.nframes, 1);
	}
	PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", "0123", 0x11d6, &sym), PROFCONV_OK);
	PC_CHECK(!sym.lib_found && sym.nframes == 0);
	PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "nolib", lib->breakpad_id, 0x11d6, &sym),
			PROFCONV_OK);
	PC_CHECK(!sym.lib_found && sym.nframes == 0);
	/* no symbol in the ELF header */
	PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", lib->breakpad_id, 0x10, &sym),
			PROFCONV_OK);
	PC_CHECK(sym.lib_found && sym.nframes == 0);

	/* the code of fib from the binary (objdump -d: 55 / 48 89 e5 / 41 55) */
	PC_CHECK_EQ_INT(profconv_symbols_code(s, "prog", lib->breakpad_id, 0x11d0, 0x4a, &code),
			PROFCONV_OK);
	PC_CHECK_EQ_INT(code.len, 0x4a);
	PC_CHECK_EQ_INT(code.svma, 0x11d0);
	PC_CHECK_EQ_STR(code.arch, "x86_64");
	PC_CHECK(code.len >= sizeof(fib_head) && memcmp(code.bytes, fib_head, sizeof(fib_head)) == 0);
	/* a size past the end of .text is cut there; no code outside it */
	PC_CHECK_EQ_INT(profconv_symbols_code(s, "prog", lib->breakpad_id, 0x11d0, 1 << 20, &code),
			PROFCONV_OK);
	PC_CHECK(code.len > 0x4a && code.len < 0x1000);
	PC_CHECK_EQ_INT(profconv_symbols_code(s, "prog", lib->breakpad_id, 0x10, 16, &code),
			PROFCONV_OK);
	PC_CHECK_EQ_INT(code.len, 0);
	PC_CHECK_EQ_INT(profconv_symbols_code(s, "nolib", "0", 0x11d0, 16, &code), PROFCONV_OK);
	PC_CHECK_EQ_INT(code.len, 0);
	profconv_symbols_free(s);
	profconv_ctx_free(ctx);
}

/* Only the separate debug file, as a build-id cache: symbols, but no code. */
static void test_debug_file_only(const struct profconv_profile *p, const struct profconv_lib *lib)
{
	char tmp[] = "/tmp/pc-api-symbols-XXXXXX", path[4200], src[4200];
	struct profconv_ctx *ctx;
	struct profconv_symbols *s = NULL;
	struct profconv_symbol sym = PROFCONV_INIT(struct profconv_symbol);
	struct profconv_code code = PROFCONV_INIT(struct profconv_code);

	PC_CHECK(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/.build-id", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", tmp, lib->code_id);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", tmp, lib->code_id,
		 lib->code_id + 2);
	snprintf(src, sizeof(src), "%s/prog-dbg.debug", dir);
	PC_CHECK(symlink(src, path) == 0);
	ctx = ctx_with(tmp);
	PC_CHECK_EQ_INT(profconv_symbols_new(ctx, &s), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_symbols_add_libs(s, p), PROFCONV_OK);
	PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", lib->breakpad_id, 0x1255, &sym),
			PROFCONV_OK);
	PC_CHECK_EQ_INT(sym.nframes, 3);
	PC_CHECK_EQ_INT(profconv_symbols_code(s, "prog", lib->breakpad_id, 0x11d0, 16, &code),
			PROFCONV_OK);
	PC_CHECK_EQ_INT(code.len, 0);
	profconv_symbols_free(s);
	profconv_ctx_free(ctx);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", tmp, lib->code_id);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.build-id", tmp);
	rmdir(path);
	rmdir(tmp);
}

int main(void)
{
	const char *fx = getenv("PC_FIXTURES");
	struct profconv_ctx *ctx;
	struct profconv_profile *p = NULL;
	struct profconv_lib lib = PROFCONV_INIT(struct profconv_lib);
	char in[4200];

	snprintf(dir, sizeof(dir), "%s/symperf", fx ? fx : "tests/fixtures");
	snprintf(in, sizeof(in), "%s/y_sym.data", dir);
	ctx = ctx_with(NULL);
	PC_CHECK_EQ_INT(profconv_read_path(ctx, in, &p), PROFCONV_OK);
	if (p && prog_lib(p, &lib) == 0) {
		PC_CHECK_EQ_STR(lib.code_id, "317f0509f407ea0b2a6ab597c180e6330c80997a");
		test_lookup_and_code(p, &lib);
		test_debug_file_only(p, &lib);
	} else {
		PC_CHECK(!"no prog lib in y_sym.data");
	}
	profconv_profile_free(p);
	profconv_ctx_free(ctx);
	profconv_symbols_free(NULL);
	{
		/* NULL arguments and unsized structs are usage errors, not crashes */
		struct profconv_symbol sym = PROFCONV_INIT(struct profconv_symbol), bare;
		struct profconv_code code = PROFCONV_INIT(struct profconv_code);
		struct profconv_symbols *s = NULL;

		ctx = ctx_with(NULL);
		PC_CHECK_EQ_INT(profconv_symbols_new(NULL, &s), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_new(ctx, NULL), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_lookup(NULL, "prog", "0", 0, &sym),
				PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_code(NULL, "prog", "0", 0, 1, &code),
				PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_new(ctx, &s), PROFCONV_OK);
		PC_CHECK_EQ_INT(profconv_symbols_add_libs(s, NULL), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_lookup(s, NULL, "0", 0, &sym), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", "0", 0, NULL), PROFCONV_ERR_USAGE);
		memset(&bare, 0, sizeof(bare));
		PC_CHECK_EQ_INT(profconv_symbols_lookup(s, "prog", "0", 0, &bare), PROFCONV_ERR_USAGE);
		PC_CHECK_EQ_INT(profconv_symbols_code(s, "prog", NULL, 0, 1, &code), PROFCONV_ERR_USAGE);
		profconv_symbols_free(s);
		profconv_ctx_free(ctx);
	}
	return pc_test_done();
}
