/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * symbolicate.c - find symbols for every library of a model and re-collapse
 * its frames into functions.
 *
 * Before symbolication each frame address is its own func (named by its
 * hex address).  When a library's symbols arrive:
 *
 *   1. every distinct frame address of the lib is looked up once;
 *   2. the depth-0 frame takes the outer function: funcs are keyed by
 *      (name, file), so all frames inside one symbol's range collapse into
 *      one func; nativeSymbols records each symbol (lib, start, name, size);
 *   3. an address inside inlined code becomes a chain of frames sharing the
 *      address and native symbol, with inlineDepth 1..n, each its own func,
 *      file and line;
 *   4. the stack table is rebuilt: a stack whose frame expands into a chain
 *      becomes that chain of stacks (outer -> inner), and every sample is
 *      remapped;
 *   5. funcs no frame uses any more are dropped, and the map from each old
 *      func to its new func is kept (PC_NONE where an old func split).
 *
 * This is the state the Firefox Profiler reaches when it symbolicates
 * (src/profile-logic/symbolication.ts), computed ahead of time.
 *
 * Where symbols come from, in order, for a lib (each attempt is reported
 * with --verbose):
 *   --symbol-dir DIRs: breakpad store NAME/DEBUGID/NAME.sym, a plain folder
 *     (NAME, NAME.debug), a perf build-id cache (.build-id/xx/rest[/elf|/debug|/vdso],
 *     PATH/BUILDID/elf), or a perf archive tarball (read through libarchive);
 *   the separate debug file by build id: /usr/lib/debug/.build-id/xx/rest.debug,
 *     ~/.debug (perf's cache), even when the binary is not on this machine;
 *   the binary at its recorded path, only when its build id matches (or the
 *     recording has none to compare): its .gnu_debuglink file (next to it,
 *     in .debug/, under /usr/lib/debug; the CRC is not checked), else the
 *     binary itself;
 *   JIT code (/tmp/perf-PID.map libs): the map file in a symbol dir, then
 *     at /tmp;
 * With option "host-symbols" "no", only the symbol dirs and --kallsyms are
 * searched (none of the host's paths below), so tests and reproducible
 * builds get the same result on every machine.
 *   the kernel: --kallsyms FILE, or /proc/kallsyms when the recording's
 *     kernel build id matches this machine's (/sys/kernel/notes) or, with no
 *     build id recorded (pipe mode, -z), when the kernel releases match.
 */
#include "core/pc_config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "io/pc_input.h"
#include "io/pc_libarchive.h"
#include "model/pc_model.h"
#include "symbolicate/pc_symbolicate.h"
#include "symbolicate/pc_symcache.h"
#include "symbolicate/pc_symsrc.h"
#include "symbolicate/pc_sympersist.h"

#define WHY_MAX 2048

struct finder {
	struct profconv_ctx *ctx;
	const char *oscpu;    /* the recorded kernel release (meta.oscpu), or NULL */
	uint8_t is_kernel;    /* the lib is the kernel image */
	const char *name;     /* lib basename */
	const char *path;     /* recorded path */
	const char *build_id; /* lower-case hex or NULL */
	const char *debug_id; /* breakpad id or NULL */
	char why[WHY_MAX];    /* what was tried, for --verbose */
	size_t whylen;
	/*
	 * A member extracted from a perf archive: a nameless temporary file
	 * (pc_tmpfile_anon()) opened by its descriptor's path
	 * (/proc/self/fd/N), so that no file is left behind whatever ends
	 * the process; tmp_fd1 is that fd + 1 (0: none).
	 */
	char tmp_path[4096];
	int tmp_fd1;
	char own_build_id[128]; /* the binary's own, when the recording has none */
	/* what an ELF candidate is opened as: symbols (pc_symsrc_open_elf, the
	 * default) or unwind tables (pc_symsrc_open_elf_cfi) */
	int (*elf_open)(struct profconv_ctx *ctx, const char *path, const char *expect,
			struct pc_symsrc **out, char *why, size_t whylen);
};

static void tried(struct finder *f, const char *what, const char *reason)
{
	f->whylen += pc_snprintf(f->why + f->whylen, sizeof(f->why) - f->whylen, "%s%s (%s)",
				 f->whylen ? "; " : "", what, reason);
}

/* The extracted member's descriptor closed (the source opened its own). */
static void finder_done(struct finder *f)
{
	if (f->tmp_fd1)
		close(f->tmp_fd1 - 1);
	f->tmp_fd1 = 0;
	f->tmp_path[0] = 0;
}

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

typedef int open_fn(struct profconv_ctx *ctx, const char *path, const char *expect,
		    struct pc_symsrc **out, char *why, size_t whylen);

/* Try one symbol file; 1 = opened, 0 = absent or not usable (said why), <0 error. */
static int try_file(struct finder *f, open_fn *open, const char *expect, const char *p,
		    struct pc_symsrc **out)
{
	char why[512];
	int err;

	if (!is_file(p))
		return 0;
	why[0] = 0;
	if (open == pc_symsrc_open_elf) {
		/* a debug file: the PLT stubs' names from the binary at the
		 * recorded path (a host file: only with host symbols on) */
		const char *rt = !f->ctx->opt.no_host_symbols && f->path && f->path[0] == '/' &&
						 strcmp(p, f->path) != 0
					 ? f->path
					 : NULL;

		if (f->ctx->symcache && p != f->tmp_path)
			/* shared with the batch's other conversions (an archive's
			 * member is not: its extracted copy is this conversion's) */
			err = pc_symcache_open_elf(f->ctx, p, expect, rt, out, why, sizeof(why));
		else
			err = pc_symsrc_open_elf_rt(f->ctx, p, expect, rt, out, why, sizeof(why));
	} else {
		err = open(f->ctx, p, expect, out, why, sizeof(why));
	}
	if (err == PROFCONV_ERR_NOMEM || err == PROFCONV_ERR_STRICT)
		return -err;
	if (err) {
		/* a damaged candidate is passed over, like a missing one */
		tried(f, p, profconv_errmsg(f->ctx));
		pc_clear_error(f->ctx);
		return 0;
	}
	if (*out)
		return 1;
	tried(f, p, why[0] ? why : "not usable");
	return 0;
}

/* An ELF binary or .debug file, checked against the recorded build id. */
static int try_elf(struct finder *f, const char *p, struct pc_symsrc **out)
{
	return try_file(f, f->elf_open ? f->elf_open : pc_symsrc_open_elf, f->build_id, p, out);
}

/* A breakpad .sym file, checked against the breakpad id. */
static int try_breakpad(struct finder *f, const char *p, struct pc_symsrc **out)
{
	return try_file(f, pc_symsrc_open_breakpad, f->debug_id, p, out);
}

/*
 * A perf archive (perf.data.tar.bz2 from `perf archive`): the members are
 * the binaries under .build-id/xx/rest (symlinks) and PATH/BUILDID/elf.
 * Extract the one for this lib into an unlinked temporary file, opened
 * through /proc/self/fd (nothing is left behind if the process is killed).
 */
static int try_archive(struct finder *f, const char *tarball, struct pc_symsrc **out)
{
	struct archive *a;
	struct archive_entry *e;
	char want1[4200], want2[128], why[600];
	int found = 0, r, fd = -1;

	if (!f->build_id)
		return 0;
	pc_snprintf(want1, sizeof(want1), "%s/%s/elf", f->path[0] == '/' ? f->path + 1 : f->path,
		    f->build_id);
	pc_snprintf(want2, sizeof(want2), ".build-id/%.2s/%s", f->build_id, f->build_id + 2);
	if (pc_libarchive_load(why, sizeof(why))) {
		tried(f, tarball, why);
		return 0;
	}
	a = archive_read_new();
	if (!a)
		return -PROFCONV_ERR_NOMEM;
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, tarball, 65536) != ARCHIVE_OK) {
		tried(f, tarball, archive_error_string(a));
		archive_read_free(a);
		return 0;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *n = archive_entry_pathname(e);

		if (archive_entry_filetype(e) != AE_IFREG || !n)
			continue;
		if (strncmp(n, "./", 2) == 0)
			n += 2;
		if (strcmp(n, want1) != 0 && strcmp(n, want2) != 0)
			continue;
		fd = pc_tmpfile_anon("sym"); /* nameless: nothing left on a signal */
		if (fd < 0 || archive_read_data_into_fd(a, fd) != ARCHIVE_OK) {
			tried(f, tarball, "cannot extract the member");
			if (fd >= 0)
				close(fd);
			f->tmp_path[0] = 0;
			break;
		}
		f->tmp_fd1 = fd + 1;
		pc_snprintf(f->tmp_path, sizeof(f->tmp_path), "/proc/self/fd/%d", fd);
		found = 1;
		break;
	}
	archive_read_free(a);
	if (!found) {
		if (!f->tmp_path[0])
			tried(f, tarball, "no member for this build id");
		return 0;
	}
	r = try_elf(f, f->tmp_path, out);
	if (r > 0)
		pc_snprintf((*out)->path, sizeof((*out)->path), "%s:%s", tarball, want2);
	return r;
}

/*
 * The .gnu_debuglink file of a binary (next to it, in .debug/, under
 * /usr/lib/debug); the debug file must carry the recorded build id.
 */
static int try_debuglink(struct finder *f, const char *binary, struct pc_symsrc **out)
{
	char p[4600], link[256], dir[4096];
	char *slash;
	int r;

	if (pc_elf_debuglink(binary, link, sizeof(link)) != 0 || !link[0])
		return 0;
	pc_snprintf(dir, sizeof(dir), "%s", binary);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = 0;
	pc_snprintf(p, sizeof(p), "%s/%s", dir, link);
	if (strcmp(p, binary) != 0) {
		r = try_elf(f, p, out);
		if (r)
			return r;
	}
	pc_snprintf(p, sizeof(p), "%s/.debug/%s", dir, link);
	r = try_elf(f, p, out);
	if (r)
		return r;
	pc_snprintf(p, sizeof(p), "/usr/lib/debug%s/%s", dir, link);
	return try_elf(f, p, out);
}

static int try_symbol_dir(struct finder *f, const char *dir, struct pc_symsrc **out)
{
	char p[4600];
	int r;

	if (!is_dir(dir))
		return is_file(dir) ? try_archive(f, dir, out) : 0;
	/* breakpad symbol store: NAME/DEBUGID/NAME.sym */
	if (f->debug_id && f->debug_id[0]) {
		pc_snprintf(p, sizeof(p), "%s/%s/%s/%s.sym", dir, f->name, f->debug_id, f->name);
		r = try_breakpad(f, p, out);
		if (r)
			return r;
	}
	/* perf build-id cache */
	if (f->build_id) {
		static const char *const tails[] = { "/debug", "/elf", "/vdso", "" };
		size_t i;

		for (i = 0; i < PC_ARRAY_SIZE(tails); i++) {
			pc_snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s%s", dir, f->build_id,
				    f->build_id + 2, tails[i]);
			r = try_elf(f, p, out);
			if (r)
				return r;
		}
		pc_snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", dir, f->build_id,
			    f->build_id + 2);
		r = try_elf(f, p, out);
		if (r)
			return r;
		pc_snprintf(p, sizeof(p), "%s%s%s/%s/elf", dir, f->path[0] == '/' ? "" : "/",
			    f->path, f->build_id);
		r = try_elf(f, p, out);
		if (r)
			return r;
	}
	/* a plain folder of binaries or .debug files */
	pc_snprintf(p, sizeof(p), "%s/%s.debug", dir, f->name);
	r = try_elf(f, p, out);
	if (r)
		return r;
	pc_snprintf(p, sizeof(p), "%s/%s", dir, f->name);
	if (is_file(p)) {
		/* a stripped binary: its debug file first */
		r = try_debuglink(f, p, out);
		if (r)
			return r;
	}
	return try_elf(f, p, out);
}

/* The separate debug file of the binary at f->path (which matched). */
/* Debug files found by build id alone: the binary need not be here. */
static int try_build_id_files(struct finder *f, struct pc_symsrc **out)
{
	const char *home = getenv("HOME");
	char p[4600];
	int r = 0;

	if (f->build_id) {
		pc_snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%.2s/%s.debug", f->build_id,
			    f->build_id + 2);
		r = try_elf(f, p, out);
		if (r)
			return r;
		if (home) {
			pc_snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/debug", home,
				    f->build_id, f->build_id + 2);
			r = try_elf(f, p, out);
			if (r)
				return r;
			pc_snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/elf", home,
				    f->build_id, f->build_id + 2);
			r = try_elf(f, p, out);
			if (r)
				return r;
			/* perf's copy of a [vdso] image */
			pc_snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/vdso", home,
				    f->build_id, f->build_id + 2);
			r = try_elf(f, p, out);
		}
	}
	return r;
}

/* This machine's kernel build id, from /sys/kernel/notes (NT_GNU_BUILD_ID). */
static int running_kernel_build_id(char *hex, size_t hexlen)
{
	unsigned char buf[4096];
	ssize_t n;
	size_t pos = 0;
	char pbuf[4200];
	int fd = open(pc_host_kernel_file(PC_HK_NOTES, pbuf, sizeof(pbuf)), O_RDONLY | O_CLOEXEC);

	hex[0] = 0;
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && pos + 12 <= (size_t)n) {
		uint32_t namesz = pc_load_u32(buf + pos, 0), descsz = pc_load_u32(buf + pos + 4, 0);
		uint32_t type = pc_load_u32(buf + pos + 8, 0);
		size_t name_off = pos + 12, desc_off = name_off + ((namesz + 3) & ~3u);

		if (desc_off + descsz > (size_t)n)
			break;
		if (type == 3 && namesz == 4 && memcmp(buf + name_off, "GNU", 4) == 0 &&
		    descsz * 2 + 1 <= hexlen) {
			uint32_t i;

			for (i = 0; i < descsz; i++)
				pc_snprintf(hex + 2 * i, 3, "%02x", buf[desc_off + i]);
			return 0;
		}
		pos = desc_off + ((descsz + 3) & ~3u);
	}
	return -1;
}

/* The test's stand-in for uname's release (pc_host_kernel_file()); 0 or -1. */
static int host_release(char *buf, size_t n)
{
	char pbuf[4200];
	FILE *fp = fopen(pc_host_kernel_file(PC_HK_RELEASE, pbuf, sizeof(pbuf)), "re");
	int ok;

	if (!fp)
		return -1;
	ok = fgets(buf, (int)n, fp) != NULL;
	fclose(fp);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int find_kernel(struct finder *f, struct pc_symsrc **out)
{
	char why[512], running[128];
	int err;

	if (f->ctx->no_kallsyms) {
		tried(f, "--kallsyms", "unusable (see the warning)");
		return 0;
	}
	if (f->ctx->opt.kallsyms) {
		why[0] = 0;
		err = pc_symsrc_open_kallsyms(f->ctx, f->ctx->opt.kallsyms, out, why, sizeof(why));
		if (err || *out)
			return err;
		tried(f, f->ctx->opt.kallsyms, why);
		return 0;
	}
	if (f->ctx->opt.no_host_symbols && !pc_host_kernel_faked()) {
		tried(f, "/proc/kallsyms", "not searched (host symbols are off)");
		return 0;
	}
	if (f->build_id) {
		if (running_kernel_build_id(running, sizeof(running)) != 0 ||
		    strcmp(running, f->build_id) != 0) {
			tried(f, "/proc/kallsyms",
			      "the running kernel is not the recorded one; use --kallsyms");
			return 0;
		}
	} else {
		/* no kernel build id recorded (pipe mode, -z): compare releases */
		struct utsname u;

		if (pc_host_kernel_faked() && host_release(u.release, sizeof(u.release)) != 0)
			u.release[0] = 0;
		else if (!pc_host_kernel_faked() && uname(&u) != 0)
			u.release[0] = 0;
		/* meta.oscpu holds the recorded release for perf.data */
		if (!f->oscpu || !u.release[0] || strcmp(u.release, f->oscpu) != 0) {
			tried(f, "/proc/kallsyms",
			      "no kernel build id recorded and the kernel release differs; use --kallsyms");
			return 0;
		}
	}
	why[0] = 0;
	err = f->ctx->symcache ? pc_symcache_open_host_kallsyms(f->ctx, out, why, sizeof(why))
			       : pc_symsrc_open_host_kallsyms(f->ctx, out, why, sizeof(why));
	if (!err && !*out)
		tried(f, "/proc/kallsyms", why);
	return err;
}

/*
 * A JIT's jit-PID.dump covers the same anonymous code as its perf-PID.map,
 * with the same absolute addresses, and adds source lines: in each symbol
 * directory it is tried before the map.  Its recorded path is not known here
 * (the runtime chooses it), so only --symbol-dir finds it.
 */
static int find_jitdump(struct finder *f, const char *dir, struct pc_symsrc **out)
{
	char p[4600], why[512];
	unsigned long pid;
	char *end;
	int err;

	pid = strtoul(f->name + 5, &end, 10);
	if (end == f->name + 5 || strcmp(end, ".map") != 0)
		return 0;
	pc_snprintf(p, sizeof(p), "%s/jit-%lu.dump", dir, pid);
	if (!is_file(p)) {
		tried(f, p, "absent");
		return 0;
	}
	why[0] = 0;
	err = pc_symsrc_open_jitdump(f->ctx, p, out, why, sizeof(why));
	if (!err && !*out)
		tried(f, p, why);
	return err;
}

static int find_perf_map(struct finder *f, struct pc_symsrc **out)
{
	char p[4600], why[512];
	unsigned i;
	int err;

	for (i = 0; i <= f->ctx->opt.nsymbol_dirs; i++) {
		if (i < f->ctx->opt.nsymbol_dirs) {
			err = find_jitdump(f, f->ctx->opt.symbol_dirs[i], out);
			if (err || *out)
				return err;
			pc_snprintf(p, sizeof(p), "%s/%s", f->ctx->opt.symbol_dirs[i], f->name);
		}
		else if (f->ctx->opt.no_host_symbols)
			break; /* not the recorded /tmp/perf-PID.map */
		else
			pc_snprintf(p, sizeof(p), "%s", f->path);
		if (!is_file(p)) {
			tried(f, p, "absent");
			continue;
		}
		why[0] = 0;
		err = pc_symsrc_open_perf_map(f->ctx, p, out, why, sizeof(why));
		if (err || *out)
			return err;
		tried(f, p, why);
	}
	return 0;
}

static int find_source(struct finder *f, struct pc_symsrc **out)
{
	unsigned i;
	int r;

	*out = NULL;
	if (f->is_kernel && strcmp(f->name, "[kernel.kallsyms]") != 0) {
		/* module frames are module-relative; kallsyms is _text-relative */
		tried(f, f->name, "kernel module symbols are not supported yet");
		return 0;
	}
	if (f->is_kernel)
		return find_kernel(f, out);
	if (strncmp(f->name, "perf-", 5) == 0 && strstr(f->name, ".map"))
		return find_perf_map(f, out);
	if (f->name[0] == '[') {
		/* [vdso] and the like have no file, but perf keeps a copy of the
		 * image in its build-id cache */
		if (!f->build_id) {
			tried(f, f->name, "a kernel-provided image with no file and no build id");
			return 0;
		}
		for (i = 0; i < f->ctx->opt.nsymbol_dirs; i++) {
			r = try_symbol_dir(f, f->ctx->opt.symbol_dirs[i], out);
			if (r)
				return r < 0 ? -r : 0;
		}
		if (f->ctx->opt.no_host_symbols) {
			tried(f, "~/.debug", "not searched (host symbols are off)");
			return 0;
		}
		r = try_build_id_files(f, out);
		return r < 0 ? -r : 0;
	}
	for (i = 0; i < f->ctx->opt.nsymbol_dirs; i++) {
		r = try_symbol_dir(f, f->ctx->opt.symbol_dirs[i], out);
		if (r)
			return r < 0 ? -r : 0;
	}
	if (f->ctx->opt.no_host_symbols) {
		/* only what the caller named: results do not depend on this host */
		tried(f, f->path, "not searched (host symbols are off)");
		return 0;
	}
	/*
	 * No build id recorded (perf writes them only for some libs, and none
	 * in pipe mode): take the one of the binary at the recorded path,
	 * unverified, to find its debug file.
	 */
	if (!f->build_id && is_file(f->path) &&
	    pc_elf_build_id(f->path, f->own_build_id, sizeof(f->own_build_id)) == 0 &&
	    f->own_build_id[0]) {
		f->build_id = f->own_build_id;
		tried(f, f->path, "no build id recorded: using the file's own, unverified");
	}
	/* the debug file by build id, even when the binary is not on this machine */
	r = try_build_id_files(f, out);
	if (r)
		return r < 0 ? -r : 0;
	if (!is_file(f->path)) {
		tried(f, f->path, "absent");
		return 0;
	}
	if (f->build_id) {
		char have[128];

		if (pc_elf_build_id(f->path, have, sizeof(have)) != 0 || strcmp(have, f->build_id)) {
			char why[300];

			pc_snprintf(why, sizeof(why), "build id %s does not match the recording's %s",
				    have[0] ? have : "(none)", f->build_id);
			tried(f, f->path, why);
			return 0;
		}
	}
	r = try_debuglink(f, f->path, out);
	if (r)
		return r < 0 ? -r : 0;
	r = try_elf(f, f->path, out);
	return r < 0 ? -r : 0;
}

int pc_find_cfi(struct profconv_ctx *ctx, const struct pc_model *m, uint32_t lib,
		struct pc_symsrc **out, char *why, size_t whylen)
{
	const struct pc_lib *l = &m->libs.rows[lib];
	struct finder f;
	int err = 0;

	*out = NULL;
	memset(&f, 0, sizeof(f));
	f.ctx = ctx;
	f.oscpu = m->meta.oscpu;
	f.is_kernel = l->is_kernel;
	f.name = pc_str(m, l->name);
	f.path = pc_str(m, l->path);
	f.build_id = l->code_id != PC_NONE ? pc_str(m, l->code_id) : NULL;
	f.elf_open = pc_symsrc_open_elf_cfi;
	if (l->is_kernel || (strncmp(f.name, "perf-", 5) == 0 && strstr(f.name, ".map")))
		tried(&f, f.name, "no unwind tables: kernel or JIT code");
	else
		err = find_source(&f, out);
	pc_snprintf(why, whylen, "%s", f.whylen ? f.why : "nothing to try");
	finder_done(&f); /* an archive member: mapped already, or not used */
	return err;
}

/*
 * The symbol source (what 0) or code source (what 1: pc_symsrc_open_elf_code)
 * of a lib named by its parts, by the same search as conversion: for a
 * symbol server that answers for libs after the profile is written.  A
 * member extracted from a perf archive is unlinked at once (the source
 * keeps it mapped and open).
 */
int pc_find_lib_source(struct profconv_ctx *ctx, const struct pc_libid *id, int what,
		       struct pc_symsrc **out, char *why, size_t whylen)
{
	struct finder f;
	int err = 0;

	*out = NULL;
	memset(&f, 0, sizeof(f));
	f.ctx = ctx;
	f.oscpu = id->oscpu;
	f.is_kernel = (uint8_t)id->is_kernel;
	f.name = id->name ? id->name : "";
	f.path = id->path ? id->path : "";
	f.build_id = id->build_id && id->build_id[0] ? id->build_id : NULL;
	f.debug_id = id->debug_id && id->debug_id[0] ? id->debug_id : NULL;
	if (what == 1) {
		f.elf_open = pc_symsrc_open_elf_code;
		if (id->is_kernel || f.name[0] == '[' ||
		    (strncmp(f.name, "perf-", 5) == 0 && strstr(f.name, ".map")))
			tried(&f, f.name, "no code file: kernel, vdso or JIT code");
		else
			err = find_source(&f, out);
	} else {
		err = find_source(&f, out);
	}
	pc_snprintf(why, whylen, "%s", f.whylen ? f.why : "nothing to try");
	finder_done(&f);
	return err;
}

/* --- re-collapse --- */

/*
 * A frame's inline levels: how many, per original frame (a byte: at most
 * PC_MAX_INLINE - 1), and where they start in inl[] for the few frames that
 * have some, sorted by frame before the stacks are rebuilt.  (A pair of
 * words per frame was 1.3 MiB on a system-wide recording, touched at random
 * by the results and the stack rebuild, for a few hundred chains.)
 */
struct chain {
	uint32_t frame;
	uint32_t first; /* index into inl[] of this frame's inline frames */
};

struct pc_symwork {
	struct pc_model *m;
	uint32_t nframes_before;
	uint8_t *chain_n;	    /* per original frame: inline levels (0 = none) */
	struct chain *chains;	    /* the frames with some, by frame after the results */
	uint32_t nchains, chains_cap;
	struct pc_frame_key *inl;   /* inline frame keys, interned after the rebuild */
	uint32_t ninl, inl_cap;
	uint32_t *inl_rows;
	uint32_t *old_func_new;	    /* per original func: its new func, PC_NONE, or split */
	uint32_t nold_funcs;
	uint64_t addrs_found, addrs_total;
};

#define FUNC_SPLIT (PC_NONE - 1)

static void note_func(struct pc_symwork *w, uint32_t old, uint32_t neu)
{
	if (old >= w->nold_funcs)
		return;
	if (w->old_func_new[old] == PC_NONE)
		w->old_func_new[old] = neu;
	else if (w->old_func_new[old] != neu)
		w->old_func_new[old] = FUNC_SPLIT;
}

/*
 * Symbolication of one lib is split in two so that libs can be looked up in
 * parallel: the lookup (find the source, open it, look every address up)
 * touches nothing shared and runs on a worker with a private ctx; applying
 * the results to the model is done by the caller, lib after lib, in order,
 * so the output does not depend on the threads.
 */
struct lib_res {
	uint64_t sym_start;
	uint32_t sym_size;
	uint32_t frame; /* frame row */
	uint32_t first; /* into pool[] */
	uint32_t n;	/* levels, outer first */
};

struct lib_job {
	uint32_t lib;
	struct finder f;
	struct pc_symsrc *src;
	struct profconv_ctx *ctx; /* the worker's: the source allocates through it */
	struct lib_res *res;
	uint32_t nres, res_cap;
	struct pc_sym_frame *pool; /* strings owned by src, valid until it is closed */
	uint32_t npool, pool_cap;
	uint64_t looked_up;
	int err;
	/* the lib's wanted frames in frame order (lookup_wanted()), made once
	 * for all libs by pc_symbolicate_prepared(); NULL: scan the table */
	const uint32_t *rows;
	uint32_t nrows;
	/* diagnostics the worker produced, replayed by the caller in lib order */
	char (*msgs)[512];
	enum profconv_severity *sevs;
	uint32_t nmsgs;
	/* a prefetched job (pc_symprep): the finder's strings, and whether
	 * find_source() has run (then src, err and f.why are its outcome) */
	char *own;
	uint8_t found;
	/*
	 * The prefetch's lookups: the lib's frames as they were added (row and
	 * address), under the prep's mutex; the first ndone are looked up
	 * (results in res/pool), the last of them failing with qerr if set.
	 */
	uint8_t busy;	  /* a thread is looking some up */
	uint32_t *qrow;
	uint64_t *qaddr;
	uint32_t nq, qrow_cap, qaddr_cap, ndone;
	int qerr;
};

#define JOB_MAX_MSGS 16

/* Notes and warnings (the job's error is its context's, adopted later). */
static void job_diag(void *user, const struct profconv_diag *d)
{
	struct lib_job *j = user;

	if (j->nmsgs == JOB_MAX_MSGS ||
	    (d->severity == PROFCONV_ERROR && d->code != PROFCONV_ERR_INVALID))
		return;
	pc_snprintf(j->msgs[j->nmsgs], sizeof(j->msgs[0]), "%s", d->message);
	j->sevs[j->nmsgs++] = d->severity;
}

/* Frame f is one the lookups of lib are for. */
static int lookup_wanted(const struct pc_frame_table *ft, uint32_t f, uint32_t lib)
{
	/* frames that already have a symbol (an input symbolicated before) stay */
	return ft->lib[f] == lib && ft->inline_depth[f] == 0 && ft->address[f] != PC_NO_ADDRESS &&
	       ft->native_symbol[f] == PC_NONE;
}

/* Look frame f (at lib-relative a) up in j->src and keep a hit in j; 0 or an error. */
static int lookup_one(struct lib_job *j, struct pc_sym_result *r, uint32_t f, uint64_t a)
{
	struct lib_res *res;
	int found;

	j->looked_up++;
	found = pc_symsrc_lookup(j->src, a, r);
	if (found < 0) /* a shared source's error is on its own ctx: the code only */
		return j->ctx->status ? j->ctx->status : -found;
	if (!found || r->nframes == 0)
		return 0;
	if (r->nframes > PC_MAX_INLINE)
		r->nframes = PC_MAX_INLINE;
	if (pc_grow(j->ctx, (void **)&j->res, sizeof(*j->res), &j->res_cap, (size_t)j->nres + 1) ||
	    pc_grow(j->ctx, (void **)&j->pool, sizeof(*j->pool), &j->pool_cap,
		    (size_t)j->npool + r->nframes))
		return PROFCONV_ERR_NOMEM;
	res = &j->res[j->nres++];
	res->sym_start = r->sym_start;
	res->sym_size = r->sym_size;
	res->frame = f;
	res->first = j->npool;
	res->n = r->nframes;
	memcpy(j->pool + j->npool, r->frames, (size_t)r->nframes * sizeof(*r->frames));
	j->npool += r->nframes;
	return 0;
}

/*
 * Look every address of the job's lib up in j->src, in frame order;
 * results into j (nothing shared is written).  The first j->ndone frames
 * were looked up by the prefetch already.
 */
static int lookup_all(struct lib_job *j, const struct pc_model *m)
{
	const struct pc_frame_table *ft = &m->frames;
	struct pc_sym_result *r;
	uint32_t f, k = 0;
	int err = 0;

	r = pc_alloc(j->ctx, sizeof(*r));
	if (!r)
		return PROFCONV_ERR_NOMEM;
	if (j->rows)
		for (k = j->ndone; k < j->nrows && !err; k++)
			err = lookup_one(j, r, j->rows[k], ft->address[j->rows[k]]);
	else
		for (f = 0; f < ft->len && !err; f++)
			if (lookup_wanted(ft, f, j->lib) && k++ >= j->ndone)
				err = lookup_one(j, r, f, ft->address[f]);
	pc_free(j->ctx, r);
	return err;
}

/* Find, open and query the source of one lib (a worker). */
static void lookup_lib(struct lib_job *j, const struct pc_model *m)
{
	if (!j->found)
		j->err = find_source(&j->f, &j->src);
	j->found = 1;
	if (!j->err && j->src)
		j->err = lookup_all(j, m);
}

/*
 * What apply_results() interned for one lib, keyed by what the source gave:
 * a name's string row by the name's pointer, a func by its name's and
 * file's pointers, a native symbol by its start.  A source hands out the
 * same pointer for the same text (a symbol's name, a cache file's string),
 * so most of a lib's addresses need no hashing of their names; a key seen
 * first is interned as before, so the model's rows and their order do not
 * change.  The table starts at a slot per result and doubles at half full:
 * a lib's keys are its distinct symbols' names, funcs and starts, far fewer
 * than its addresses' levels (a system-wide recording: 41,000 results,
 * 6,400 symbols), and the three arrays sized for every level and address
 * before (5 MiB for the biggest lib) cost a page fault per 4 KiB touched
 * and a cache miss per probe.  A slot holds its key and value together.
 */
struct memo_slot {
	uint64_t ka, kb;
	uint32_t val; /* PC_NONE: empty */
};

struct memo {
	struct profconv_ctx *ctx;
	struct memo_slot *slots;
	uint32_t mask, used;
};

enum { MEMO_NAME = 1, MEMO_FUNC, MEMO_NSYM };

static int memo_alloc(struct memo *mm, uint32_t cap)
{
	uint32_t i;

	mm->slots = pc_alloc(mm->ctx, (size_t)cap * sizeof(*mm->slots));
	if (!mm->slots)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < cap; i++)
		mm->slots[i].val = PC_NONE;
	mm->mask = cap - 1;
	return 0;
}

/* For a lib of nres results: a slot a result (a few doublings fewer for the big libs). */
static int memo_init(struct profconv_ctx *ctx, struct memo *mm, uint32_t nres)
{
	uint32_t cap = 256;

	memset(mm, 0, sizeof(*mm));
	mm->ctx = ctx;
	while (cap < nres && cap < (1u << 20))
		cap *= 2;
	return memo_alloc(mm, cap);
}

static void memo_free(struct memo *mm)
{
	pc_free(mm->ctx, mm->slots);
	mm->slots = NULL;
	mm->mask = 0;
}

static uint32_t memo_hash(uint64_t ka, uint64_t kb)
{
	return (uint32_t)pc_hash64(ka ^ pc_hash64(kb));
}

/* Twice the slots, the keys re-placed.  0 or NOMEM (then the memo is as it was). */
static int memo_grow(struct memo *mm)
{
	struct memo_slot *old = mm->slots;
	uint32_t i, omask = mm->mask;

	if (omask >= (1u << 30) || memo_alloc(mm, (omask + 1) * 2)) {
		mm->slots = old;
		mm->mask = omask;
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i <= omask; i++) {
		uint32_t j;

		if (old[i].val == PC_NONE)
			continue;
		for (j = memo_hash(old[i].ka, old[i].kb) & mm->mask; mm->slots[j].val != PC_NONE;
		     j = (j + 1) & mm->mask)
			;
		mm->slots[j] = old[i];
	}
	pc_free(mm->ctx, old);
	return 0;
}

/*
 * The value of (kind, a, b), or PC_NONE with *slot where to store it
 * (memo_put()).  b is 0 or a pointer (under 2^62): the kind in its low bits
 * keeps the kinds apart.
 */
static uint32_t memo_get(const struct memo *mm, unsigned kind, uint64_t a, uint64_t b,
			 uint32_t *slot)
{
	uint64_t kb = b << 2 | kind;
	uint32_t i;

	for (i = memo_hash(a, kb) & mm->mask; mm->slots[i].val != PC_NONE; i = (i + 1) & mm->mask)
		if (mm->slots[i].ka == a && mm->slots[i].kb == kb)
			return mm->slots[i].val;
	*slot = i;
	return PC_NONE;
}

/* Store val (not PC_NONE) at the slot memo_get() gave: val, or PC_NONE when out of memory. */
static uint32_t memo_put(struct memo *mm, uint32_t slot, unsigned kind, uint64_t a, uint64_t b,
			 uint32_t val)
{
	mm->slots[slot].ka = a;
	mm->slots[slot].kb = b << 2 | kind;
	mm->slots[slot].val = val;
	if (++mm->used * 2 > mm->mask + 1 && memo_grow(mm))
		return PC_NONE;
	return val;
}

static uint32_t memo_name(struct pc_model *m, struct memo *mm, const char *name)
{
	uint32_t v, slot;

	v = memo_get(mm, MEMO_NAME, (uint64_t)(uintptr_t)name, 0, &slot);
	if (v != PC_NONE)
		return v;
	v = pc_str_intern_z(m, name);
	return v == PC_NONE ? v : memo_put(mm, slot, MEMO_NAME, (uint64_t)(uintptr_t)name, 0, v);
}

/* The func of one level, keyed by (name, library resource, file). */
static uint32_t memo_func(struct pc_model *m, struct memo *mm, const struct pc_sym_frame *sf,
			  uint32_t resource)
{
	struct pc_func_key k;
	uint32_t v, slot;

	v = memo_get(mm, MEMO_FUNC, (uint64_t)(uintptr_t)sf->name, (uint64_t)(uintptr_t)sf->file,
		     &slot);
	if (v != PC_NONE)
		return v;
	/* new rows in this order: the name's string, the file's, its source, the func */
	memset(&k, 0, sizeof(k));
	k.name = memo_name(m, mm, sf->name);
	k.resource = resource;
	k.source = PC_NONE;
	if (k.name == PC_NONE)
		return PC_NONE;
	if (sf->file) {
		uint32_t fs = pc_str_intern_z(m, sf->file);

		if (fs == PC_NONE)
			return PC_NONE;
		k.source = pc_source_intern(m, fs);
		if (k.source == PC_NONE)
			return PC_NONE;
	}
	v = pc_func_intern(m, &k);
	if (v == PC_NONE)
		return PC_NONE;
	/* memo_name() may have grown the table: find the slot again */
	memo_get(mm, MEMO_FUNC, (uint64_t)(uintptr_t)sf->name, (uint64_t)(uintptr_t)sf->file, &slot);
	return memo_put(mm, slot, MEMO_FUNC, (uint64_t)(uintptr_t)sf->name,
			(uint64_t)(uintptr_t)sf->file, v);
}

static int apply_memo(struct pc_symwork *w, const struct lib_job *j, uint32_t resource,
		      struct memo *mm)
{
	struct pc_model *m = w->m;
	struct pc_frame_table *ft = &m->frames;
	uint32_t i;

	for (i = 0; i < j->nres; i++) {
		const struct lib_res *res = &j->res[i];
		const struct pc_sym_frame *lv = j->pool + res->first;
		uint32_t f = res->frame, func, nsym, k, name, slot;

		func = memo_func(m, mm, &lv[0], resource);
		name = memo_name(m, mm, lv[0].name);
		if (func == PC_NONE || name == PC_NONE)
			return PROFCONV_ERR_NOMEM;
		/* interned by (lib, start): the name and size of its first lookup */
		nsym = memo_get(mm, MEMO_NSYM, res->sym_start, 0, &slot);
		if (nsym == PC_NONE) {
			nsym = pc_native_symbol_intern(m, j->lib, res->sym_start, name, res->sym_size);
			if (nsym == PC_NONE ||
			    memo_put(mm, slot, MEMO_NSYM, res->sym_start, 0, nsym) == PC_NONE)
				return PROFCONV_ERR_NOMEM;
		}
		note_func(w, ft->func[f], func);
		ft->func[f] = func;
		ft->native_symbol[f] = nsym;
		ft->line[f] = lv[0].line;
		w->chain_n[f] = (uint8_t)(res->n - 1);
		if (res->n > 1) {
			if (pc_grow(m->ctx, (void **)&w->chains, sizeof(*w->chains), &w->chains_cap,
				    (size_t)w->nchains + 1))
				return PROFCONV_ERR_NOMEM;
			w->chains[w->nchains].frame = f;
			w->chains[w->nchains++].first = w->ninl;
		}
		for (k = 1; k < res->n; k++) {
			struct pc_frame_key *key;

			if (pc_grow(m->ctx, (void **)&w->inl, sizeof(*w->inl), &w->inl_cap,
				    (size_t)w->ninl + 1))
				return PROFCONV_ERR_NOMEM;
			key = &w->inl[w->ninl++];
			memset(key, 0, sizeof(*key));
			key->address = ft->address[f];
			key->lib = j->lib;
			key->func = memo_func(m, mm, &lv[k], resource);
			if (key->func == PC_NONE)
				return PROFCONV_ERR_NOMEM;
			key->native_symbol = nsym;
			key->line = lv[k].line;
			key->category = ft->category[f];
			key->subcategory = ft->subcategory[f];
			key->inline_depth = (uint16_t)k;
		}
	}
	return 0;
}

/* Apply one lib's lookups to the model (the caller's thread). */
static int apply_results(struct pc_symwork *w, const struct lib_job *j)
{
	struct pc_model *m = w->m;
	uint32_t resource = m->libs.rows[j->lib].resource;
	struct memo mm;
	int err;

	w->addrs_total += j->looked_up;
	w->addrs_found += j->nres;
	if (!j->nres)
		return 0;
	err = memo_init(m->ctx, &mm, j->nres);
	if (!err)
		err = apply_memo(w, j, resource, &mm);
	memo_free(&mm);
	return err;
}

/*
 * A marker's cause (a backtrace, as in Firefox profiles) is a stack row in
 * the markers' cause_stack column, which must follow the rebuilt stack
 * table: a column walk, no payload is looked at.
 */
static int remap_marker_causes(struct pc_thread *t, const uint32_t *map, uint32_t nold)
{
	uint32_t k;

	for (k = 0; k < t->markers.len; k++) {
		uint32_t *c = &t->markers.cause_stack[k];

		if (*c != PC_NONE && *c < nold)
			*c = map[*c];
	}
	return 0;
}

static int chain_cmp(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;

	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Where frame f's inline levels start in inl[] (f has some; w->chains
 * sorted): the last entry for f, the results applied last, as chain_n[f].
 */
static uint32_t chain_first(const struct pc_symwork *w, uint32_t f)
{
	uint32_t lo = 0, hi = w->nchains;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (w->chains[mid].frame <= f)
			lo = mid;
		else
			hi = mid;
	}
	return w->chains[lo].first;
}

/*
 * Rebuild the stack table with inline chains expanded; remap samples.
 *
 * Every (prefix, frame) pair here is new: old stacks are distinct, the map
 * is one-to-one, and an inline level's prefix is a stack made for this old
 * stack alone.  So the rows are written straight into columns of the final
 * length, unindexed (as pc_stack_add_new() leaves them: the index is built
 * on the next pc_stack_intern(), which no conversion makes after this),
 * rather than appended one at a time through columns that double as they
 * grow.  The old frame column turns into the map (old stack -> its
 * innermost new row) as it is read: a stack's prefix is an earlier row, so
 * map[prefix] is written before it is needed.
 */
static int rebuild_stacks(struct pc_symwork *w, uint32_t nframes_before)
{
	struct pc_model *m = w->m;
	struct pc_stack_table *t = &m->stacks;
	uint32_t *map = t->frame, *frame, *prefix, s, i, at = 0;
	uint64_t total = t->len;
	int err = 0;

	for (s = 0; s < t->len; s++)
		if (t->frame[s] < nframes_before)
			total += w->chain_n[t->frame[s]];
	if (total >= PC_NONE)
		return pc_fail(m->ctx, PROFCONV_ERR_LIMIT, NULL, "table over 2^32 rows");
	frame = pc_alloc(m->ctx, (size_t)total * sizeof(*frame) + 1);
	prefix = pc_alloc(m->ctx, (size_t)total * sizeof(*prefix) + 1);
	if (!frame || !prefix) {
		pc_free(m->ctx, frame);
		pc_free(m->ctx, prefix);
		return PROFCONV_ERR_NOMEM;
	}
	for (s = 0; s < t->len; s++) {
		uint32_t f = t->frame[s], p = t->prefix[s];

		frame[at] = f;
		prefix[at] = p == PC_NONE ? PC_NONE : map[p];
		at++;
		if (f < nframes_before && w->chain_n[f]) {
			uint32_t first = chain_first(w, f);

			for (i = 0; i < w->chain_n[f]; i++, at++) {
				frame[at] = w->inl_rows[first + i];
				prefix[at] = at - 1;
			}
		}
		map[s] = at - 1; /* frame[s] is not read again */
	}
	for (i = 0; i < m->nthreads && !err; i++) {
		struct pc_samples *sm = &m->threads[i]->samples;
		uint32_t k;

		for (k = 0; k < sm->len; k++)
			if (sm->stack[k] != PC_NONE)
				sm->stack[k] = map[sm->stack[k]];
		err = remap_marker_causes(m->threads[i], map, t->len);
	}
	pc_free(m->ctx, t->frame);
	pc_free(m->ctx, t->prefix);
	pc_free(m->ctx, t->slots);
	t->frame = frame;
	t->prefix = prefix;
	t->len = t->cap = (uint32_t)total;
	t->slots = NULL;
	t->mask = 0;
	t->unindexed = 1;
	return err;
}

/* Drop funcs no frame uses; renumber; record old -> new in m->func_map. */
static int compact_funcs(struct pc_symwork *w)
{
	struct pc_model *m = w->m;
	struct pc_func_table *t = &m->funcs;
	uint32_t *newidx, i, n = 0;
	uint8_t *used;

	used = pc_calloc(m->ctx, (size_t)t->len + 1, 1);
	newidx = pc_alloc(m->ctx, ((size_t)t->len + 1) * sizeof(*newidx));
	if (!used || !newidx) {
		pc_free(m->ctx, used);
		pc_free(m->ctx, newidx);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < m->frames.len; i++)
		used[m->frames.func[i]] = 1;
	for (i = 0; i < t->len; i++) {
		newidx[i] = used[i] ? n : PC_NONE;
		if (used[i]) {
			t->name[n] = t->name[i];
			t->resource[n] = t->resource[i];
			t->source[n] = t->source[i];
			t->line[n] = t->line[i];
			t->column[n] = t->column[i];
			t->is_js[n] = t->is_js[i];
			t->relevant_for_js[n] = t->relevant_for_js[i];
			n++;
		}
	}
	t->len = n;
	for (i = 0; i < m->frames.len; i++)
		m->frames.func[i] = newidx[m->frames.func[i]];
	/* the func index: rebuilt from the compacted rows at the next func
	 * lookup, if one comes (equal rows may exist in a profile read back
	 * from JSON; lookups find the first) */
	pc_func_index_defer(m);
	/* old func -> new func, through the collapse and the compaction */
	pc_free(m->ctx, m->func_map);
	m->func_map = pc_alloc(m->ctx, ((size_t)w->nold_funcs + 1) * sizeof(*m->func_map));
	if (!m->func_map) {
		pc_free(m->ctx, used);
		pc_free(m->ctx, newidx);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < w->nold_funcs; i++) {
		uint32_t to = w->old_func_new[i];

		if (to == FUNC_SPLIT)
			m->func_map[i] = PC_NONE;
		else if (to == PC_NONE)
			m->func_map[i] = newidx[i]; /* untouched: itself, renumbered */
		else
			m->func_map[i] = newidx[to];
	}
	m->func_map_len = w->nold_funcs;
	pc_free(m->ctx, used);
	pc_free(m->ctx, newidx);
	return 0;
}

/*
 * Which libs some frame uses (in_use), and each lib's wanted frames
 * (lookup_wanted()) in frame order: rows[start[lib] .. start[lib + 1]).
 * One pass over the frames for all libs, where each lib's lookups and the
 * check of its prefetch would scan the whole table (a system-wide
 * recording: 100 libs, 160,000 frames).
 */
static void libs_in_use(const struct pc_model *m, uint8_t *in_use, uint32_t *start,
			uint32_t *rows)
{
	const struct pc_frame_table *ft = &m->frames;
	uint32_t i, nlibs = m->libs.len, sum = 0;

	memset(start, 0, ((size_t)nlibs + 1) * sizeof(*start));
	for (i = 0; i < ft->len; i++) {
		uint32_t lib = ft->lib[i];

		if (lib == PC_NONE || lib >= nlibs)
			continue;
		in_use[lib] = 1;
		if (lookup_wanted(ft, i, lib))
			start[lib]++;
	}
	for (i = 0; i <= nlibs; i++) { /* counts -> ends of the previous libs' runs */
		uint32_t c = i < nlibs ? start[i] : 0;

		start[i] = sum;
		sum += c;
	}
	/* fill: start[lib] runs ahead as lib's rows come, then is put back */
	for (i = 0; i < ft->len; i++) {
		uint32_t lib = ft->lib[i];

		if (lib != PC_NONE && lib < nlibs && lookup_wanted(ft, i, lib))
			rows[start[lib]++] = i;
	}
	for (i = nlibs; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;
}

int pc_symwork_begin(struct profconv_ctx *ctx, struct pc_model *m, struct pc_symwork **out)
{
	struct pc_symwork *w = pc_calloc(ctx, 1, sizeof(*w));
	uint32_t i;

	*out = NULL;
	if (!w)
		return PROFCONV_ERR_NOMEM;
	w->m = m;
	w->nold_funcs = m->funcs.len;
	w->nframes_before = m->frames.len;
	w->chain_n = pc_calloc(ctx, (size_t)w->nframes_before + 1, 1);
	w->old_func_new = pc_alloc(ctx, ((size_t)w->nold_funcs + 1) * sizeof(*w->old_func_new));
	if (!w->chain_n || !w->old_func_new) {
		pc_symwork_free(w);
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < w->nold_funcs; i++)
		w->old_func_new[i] = PC_NONE;
	*out = w;
	return 0;
}

int pc_symwork_apply(struct pc_symwork *w, uint32_t lib, struct pc_symsrc *src)
{
	struct lib_job j;
	int err;

	memset(&j, 0, sizeof(j));
	j.lib = lib;
	j.ctx = w->m->ctx;
	j.src = src;
	err = lookup_all(&j, w->m);
	if (!err)
		err = apply_results(w, &j);
	pc_free(j.ctx, j.res);
	pc_free(j.ctx, j.pool);
	return err;
}

void pc_symwork_free(struct pc_symwork *w)
{
	struct profconv_ctx *ctx;

	if (!w)
		return;
	ctx = w->m->ctx;
	pc_free(ctx, w->chain_n);
	pc_free(ctx, w->chains);
	pc_free(ctx, w->inl);
	pc_free(ctx, w->inl_rows);
	pc_free(ctx, w->old_func_new);
	pc_free(ctx, w);
}

int pc_symwork_finish(struct pc_symwork *w)
{
	struct pc_model *m = w->m;
	struct profconv_ctx *ctx = m->ctx;
	uint32_t i;
	int err = 0;

	/*
	 * The depth-0 frames were edited in place, so the frame index holds
	 * them under their old keys.  The index is looked in below only for
	 * the inline levels' keys (inline depth 1..n), which no depth-0 row
	 * can equal; a lookup compares a slot's row as it is now, so a stale
	 * slot never gives a wrong match.  So when no row had an inline depth
	 * before (a perf recording: all of them), the index answers those
	 * lookups as a rebuilt one would, and re-indexing every frame (most
	 * of the work here for a system-wide recording, for a few hundred
	 * inline frames) is skipped.  Otherwise re-index the rows where they
	 * are (a profile read back from JSON may hold equal frames, which
	 * re-interning would merge and shift).  (The index is stale again
	 * after compact_funcs() renumbers the funcs; nothing interns frames
	 * after symbolication.)
	 */
	for (i = 0; i < w->nframes_before && m->frames.inline_depth[i] == 0; i++)
		;
	if (i < w->nframes_before) {
		err = pc_frame_index_rebuild(m);
		if (err)
			goto out;
	}
	w->inl_rows = pc_alloc(ctx, ((size_t)w->ninl + 1) * sizeof(*w->inl_rows));
	if (!w->inl_rows) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < w->ninl; i++) {
		w->inl_rows[i] = pc_frame_intern(m, &w->inl[i]);
		if (w->inl_rows[i] == PC_NONE) {
			err = PROFCONV_ERR_NOMEM;
			goto out;
		}
	}
	/* with no symbols found nothing changed: leave the tables as they are */
	if (w->ninl) {
		qsort(w->chains, w->nchains, sizeof(*w->chains), chain_cmp);
		err = rebuild_stacks(w, w->nframes_before);
	}
	if (!err && w->addrs_found)
		err = compact_funcs(w);
	/*
	 * Mark the profile symbolicated only when some symbols were found: a
	 * profile with none stays open to the front-end's own symbol servers.
	 */
	if (!err && w->addrs_found)
		m->meta.symbolicated = 1;
out:
	pc_symwork_free(w);
	return err;
}

/*
 * Parallel lookups.  Each job (one lib) has a private ctx and writes
 * nothing shared, so jobs run on two threads: this one and a worker, each
 * taking the next job from a shared counter.  The kernel and perf-map jobs
 * go first (reading /proc/kallsyms is slow: the kernel formats every line).
 * Results are applied here afterwards, lib after lib in order, so the
 * output does not depend on the threads.  (Each DWARF source has its own
 * libdwarf handle; ThreadSanitizer runs of the conversion are clean.)
 */
struct job_set {
	struct lib_job *jobs;
	uint32_t *order; /* job indices, kernel and perf-map jobs first */
	uint32_t n;
	const struct pc_model *m;
	atomic_uint next;
};

static int job_first(const struct lib_job *j)
{
	return j->f.is_kernel ||
	       (strncmp(j->f.name, "perf-", 5) == 0 && strstr(j->f.name, ".map"));
}

static void *run_jobs(void *arg)
{
	struct job_set *js = arg;
	unsigned i;

	while ((i = atomic_fetch_add(&js->next, 1)) < js->n)
		lookup_lib(&js->jobs[js->order[i]], js->m);
	return NULL;
}

/* Replay a job's diagnostics on the caller's ctx (warnings keep their kinds and counts). */
static int replay_diags(struct profconv_ctx *ctx, const struct lib_job *j)
{
	unsigned kind = 0;
	uint32_t k;
	int err = 0;

	for (k = 0; k < j->nmsgs && !err; k++) {
		if (j->sevs[k] == PROFCONV_NOTE) {
			pc_note(ctx, "%s", j->msgs[k]);
		} else if (j->sevs[k] == PROFCONV_WARNING && kind < j->ctx->nwarns) {
			err = pc_warn_n(ctx, j->ctx->warns[kind].kind, j->ctx->warns[kind].count, NULL,
					"%s", j->msgs[k]);
			kind++;
		}
	}
	for (; kind < j->ctx->nwarns && !err; kind++)
		err = pc_warn_n(ctx, j->ctx->warns[kind].kind, j->ctx->warns[kind].count, NULL,
				"%s", j->ctx->warns[kind].kind);
	return err;
}

static void free_job(struct profconv_ctx *ctx, struct lib_job *j)
{
	if (j->ctx) {
		pc_symsrc_close(j->src);
		j->src = NULL;
		finder_done(&j->f);
		pc_free(j->ctx, j->res);
		pc_free(j->ctx, j->pool);
		profconv_ctx_free(j->ctx);
		j->ctx = NULL;
	}
	pc_free(ctx, j->msgs);
	pc_free(ctx, j->sevs);
	pc_free(ctx, j->own);
	pc_free(ctx, j->qrow);
	pc_free(ctx, j->qaddr);
	j->qrow = NULL;
	j->qaddr = NULL;
	j->msgs = NULL;
	j->sevs = NULL;
	j->own = NULL;
}

/* A job for one lib: a private ctx with the caller's options.  0 or NOMEM. */
static int job_init(struct profconv_ctx *ctx, struct lib_job *j, uint32_t lib)
{
	j->lib = lib;
	j->ctx = profconv_ctx_new();
	j->msgs = pc_alloc(ctx, JOB_MAX_MSGS * sizeof(*j->msgs));
	j->sevs = pc_alloc(ctx, JOB_MAX_MSGS * sizeof(*j->sevs));
	if (!j->ctx || !j->msgs || !j->sevs || pc_options_copy(j->ctx, ctx) ||
	    pc_symcache_attach(j->ctx, ctx->symcache))
		return PROFCONV_ERR_NOMEM;
	j->ctx->no_kallsyms = ctx->no_kallsyms;
	j->ctx->strict = ctx->strict;
	j->ctx->verbose = ctx->verbose;
	j->ctx->mem_limit = ctx->mem_limit;
	profconv_set_diagnostics(j->ctx, job_diag, j);
	j->f.ctx = j->ctx;
	return 0;
}

/*
 * Symbol prefetch.  Finding and opening a lib's symbol source (stat the
 * candidates, map the ELF file, read the DWARF unit headers, which inflates
 * compressed sections, parse kallsyms) does not need the addresses, only
 * the lib, and the lib is known as soon as a frame names it: early in a
 * perf.data, long before its last sample.  So while a reader reads, the
 * model's frame hook queues a job for each lib a frame needs symbols for,
 * and one worker thread, started with the first job, runs find_source()
 * for them in that order.  When reading ends the caller's thread joins the
 * worker until the queue is empty, and pc_symbolicate_prepared() adopts
 * every job whose lib still has the identity it had when it was queued
 * (name, path, ids, kernel release): its source, its "passed over" text and its
 * diagnostics are exactly what find_source() would give now, so the output
 * and the notes do not depend on whether or when the prefetch ran.  Any
 * other lib is found as before.
 *
 * Threads: the hook runs on the reader's thread and is the only one that
 * touches the caller's ctx and the model; the worker touches its job (its
 * own ctx, its copies of the strings) and the filesystem, and takes jobs
 * under the mutex.  The caller reads the jobs only after joining it.
 */
#define PREP_PEND 64

struct pc_symprep {
	struct profconv_ctx *ctx;
	struct pc_model *m;
	uint32_t *job_of_lib; /* lib row -> index in jobs[], PC_NONE */
	uint32_t nlibs, libs_cap;
	uint8_t no_kallsyms;  /* as check_symbol_paths() will decide */
	uint8_t broken;	      /* out of memory: no more jobs */
	uint8_t running;      /* the worker was started (by the first job) */
	uint8_t no_thread;    /* starting it failed: the caller does the work */
	pthread_t th;
	pthread_mutex_t mu;   /* guards jobs, njobs, jobs_cap, next, stop */
	pthread_cond_t cv;
	struct lib_job **jobs;
	uint32_t njobs, jobs_cap, next;
	int stop;
	/*
	 * Frames the hook met and has not queued yet (the hook's thread only):
	 * they are queued PREP_PEND at a time under one taking of mu rather
	 * than one at a time (160,000 frames in a system-wide recording), in
	 * the order met, with their job and address as they were then.
	 */
	struct lib_job *pend_job[PREP_PEND];
	uint32_t pend_row[PREP_PEND];
	uint64_t pend_addr[PREP_PEND];
	uint32_t npend;
};

#define PREP_BATCH 64
/*
 * The worker is woken when a job has PREP_WAKE frames waiting (it then
 * looks up every job's whole batches before it waits again), not for each
 * batch: on a system-wide recording a wake-up per 64 frames was a thousand
 * context switches, half the conversion's, each also preempting the reader.
 */
#define PREP_WAKE 1024

/*
 * A found job with queued frames to look up that no thread is on, or NULL
 * (under mu).  While the reader reads, only a whole batch is worth waking
 * up for; once stopping, any frame left.
 */
static struct lib_job *prep_lookups(struct pc_symprep *p)
{
	uint32_t i, min = p->stop ? 1 : PREP_BATCH;

	for (i = 0; i < p->next; i++) {
		struct lib_job *j = p->jobs[i];

		if (j->found && j->src && !j->err && !j->qerr && !j->busy && j->nq - j->ndone >= min)
			return j;
	}
	return NULL;
}

/*
 * Work until told to stop: find the queued libs' sources, in order, then
 * look their queued frames up, a batch at a time.  p->stop 1: nothing more
 * will be queued, finish it all (the caller's thread helps); 2: leave the
 * rest.  A job's source is used by one thread at a time (busy).
 */
static void prep_work(struct pc_symprep *p)
{
	struct pc_sym_result r;
	uint32_t rows[PREP_BATCH];
	uint64_t addrs[PREP_BATCH];

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct lib_job *j;
		uint32_t n, k;
		int err = 0;

		while (!p->stop && p->next == p->njobs && !prep_lookups(p))
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->stop == 2)
			break;
		if (p->next < p->njobs) {
			j = p->jobs[p->next++];
			pthread_mutex_unlock(&p->mu);
			err = find_source(&j->f, &j->src);
			pthread_mutex_lock(&p->mu);
			j->err = err;
			j->found = 1;
			continue;
		}
		j = prep_lookups(p);
		if (!j)
			break; /* stopping, and nothing left that no other thread is on */
		n = j->nq - j->ndone < PREP_BATCH ? j->nq - j->ndone : PREP_BATCH;
		memcpy(rows, j->qrow + j->ndone, n * sizeof(*rows));
		memcpy(addrs, j->qaddr + j->ndone, n * sizeof(*addrs));
		j->busy = 1;
		pthread_mutex_unlock(&p->mu);
		for (k = 0; k < n && !err; k++)
			err = lookup_one(j, &r, rows[k], addrs[k]);
		pthread_mutex_lock(&p->mu);
		/* a failed lookup counts as done: lookup_all() stops at it too */
		j->ndone += err ? k : n;
		j->qerr = err;
		j->busy = 0;
	}
	pthread_mutex_unlock(&p->mu);
}

static void *prep_run(void *arg)
{
	prep_work(arg);
	return NULL;
}

static char *copy_str(char **at, const char *s)
{
	char *r = *at;
	size_t n = strlen(s) + 1;

	memcpy(r, s, n);
	*at += n;
	return r;
}

/* Queue a job for a lib (the reader's thread). */
static void prep_add(struct pc_symprep *p, const struct pc_model *m, uint32_t lib)
{
	const struct pc_lib *l = &m->libs.rows[lib];
	const char *name = pc_str(m, l->name), *path = pc_str(m, l->path);
	const char *bid = l->code_id != PC_NONE ? pc_str(m, l->code_id) : NULL;
	const char *did = pc_str(m, l->breakpad_id);
	/* find_kernel() compares releases when no build id was recorded */
	const char *os = l->is_kernel && !bid ? m->meta.oscpu : NULL;
	struct lib_job *j;
	char *at;
	uint32_t i;

	if (lib >= p->nlibs) {
		if (pc_grow(p->ctx, (void **)&p->job_of_lib, sizeof(*p->job_of_lib), &p->libs_cap,
			    (size_t)lib + 1))
			goto nomem;
		for (i = p->nlibs; i <= lib; i++)
			p->job_of_lib[i] = PC_NONE;
		p->nlibs = lib + 1;
	}
	j = pc_calloc(p->ctx, 1, sizeof(*j));
	if (!j)
		goto nomem;
	j->own = pc_alloc(p->ctx, strlen(name) + strlen(path) + (bid ? strlen(bid) : 0) +
					  strlen(did) + (os ? strlen(os) : 0) + 5);
	if (!j->own || job_init(p->ctx, j, lib)) {
		free_job(p->ctx, j);
		pc_free(p->ctx, j);
		goto nomem;
	}
	j->ctx->no_kallsyms = p->no_kallsyms;
	at = j->own;
	j->f.name = copy_str(&at, name);
	j->f.path = copy_str(&at, path);
	j->f.build_id = bid ? copy_str(&at, bid) : NULL;
	j->f.debug_id = copy_str(&at, did);
	j->f.oscpu = os ? copy_str(&at, os) : NULL;
	j->f.is_kernel = l->is_kernel;
	pthread_mutex_lock(&p->mu);
	if (pc_grow(p->ctx, (void **)&p->jobs, sizeof(*p->jobs), &p->jobs_cap,
		    (size_t)p->njobs + 1)) {
		pthread_mutex_unlock(&p->mu);
		free_job(p->ctx, j);
		pc_free(p->ctx, j);
		goto nomem;
	}
	p->job_of_lib[lib] = p->njobs;
	p->jobs[p->njobs++] = j;
	pthread_mutex_unlock(&p->mu);
	/*
	 * The worker starts with the first job: a reader whose frames name no
	 * lib (a Chrome trace) never pays for a thread.  Without one, the
	 * caller's thread finds the sources in pc_symprep_stop().
	 */
	if (!p->running && !p->no_thread) {
		if (pthread_create(&p->th, NULL, prep_run, p) == 0)
			p->running = 1;
		else
			p->no_thread = 1;
	}
	pthread_cond_signal(&p->cv);
	return;
nomem:
	p->broken = 1; /* the ctx holds the error: the conversion fails */
}

/*
 * Queue a frame of j's lib for the prefetch's lookups (the reader's thread,
 * under mu).  1: the worker is to be woken (after mu is let go).
 */
static int prep_queue_frame(struct pc_symprep *p, struct lib_job *j, uint32_t row, uint64_t a)
{
	/* nothing will look it up: no source, or a lookup failed */
	if (j->found && (!j->src || j->err || j->qerr))
		return 0;
	if (pc_grow(p->ctx, (void **)&j->qrow, sizeof(*j->qrow), &j->qrow_cap, (size_t)j->nq + 1) ||
	    pc_grow(p->ctx, (void **)&j->qaddr, sizeof(*j->qaddr), &j->qaddr_cap,
		    (size_t)j->nq + 1)) {
		p->broken = 1; /* the ctx holds the error: the conversion fails */
		return 0;
	}
	j->qrow[j->nq] = row;
	j->qaddr[j->nq] = a;
	j->nq++;
	/* wake the worker once many are waiting, not for every frame */
	return j->found && (j->nq - j->ndone) % PREP_WAKE == 0;
}

/* Queue the frames the hook has met (its thread). */
static void prep_flush(struct pc_symprep *p)
{
	uint32_t i;
	int wake = 0;

	if (!p->npend)
		return;
	pthread_mutex_lock(&p->mu);
	for (i = 0; i < p->npend && !p->broken; i++)
		wake |= prep_queue_frame(p, p->pend_job[i], p->pend_row[i], p->pend_addr[i]);
	pthread_mutex_unlock(&p->mu);
	p->npend = 0;
	/* outside mu: the worker wakes to take it, not to wait for it */
	if (wake)
		pthread_cond_signal(&p->cv);
}

/* The model's frame hook: a frame that will be looked up names its lib. */
static void prep_frame(void *user, const struct pc_model *m, uint32_t row)
{
	struct pc_symprep *p = user;
	const struct pc_frame_table *ft = &m->frames;
	uint32_t lib = ft->lib[row];

	if (lib == PC_NONE || lib >= m->libs.len || ft->inline_depth[row] != 0 ||
	    ft->address[row] == PC_NO_ADDRESS || ft->native_symbol[row] != PC_NONE)
		return;
	if (p->broken)
		return;
	if (lib >= p->nlibs || p->job_of_lib[lib] == PC_NONE) {
		prep_add(p, m, lib);
		if (p->broken)
			return;
	}
	p->pend_job[p->npend] = p->jobs[p->job_of_lib[lib]];
	p->pend_row[p->npend] = row;
	p->pend_addr[p->npend] = ft->address[row];
	if (++p->npend == PREP_PEND)
		prep_flush(p);
}

/* --kallsyms names something that is not a regular file (check_symbol_paths()) */
static int kallsyms_unusable(const struct profconv_ctx *ctx)
{
	struct stat st;

	return ctx->opt.kallsyms && (stat(ctx->opt.kallsyms, &st) != 0 || !S_ISREG(st.st_mode));
}

int pc_symprep_start(struct profconv_ctx *ctx, struct pc_model *m, struct pc_symprep **out)
{
	struct pc_symprep *p;

	*out = NULL;
	if (ctx->opt.no_threads)
		return 0; /* no prefetch: pc_symbolicate() opens the sources */
	p = pc_calloc(ctx, 1, sizeof(*p));
	if (!p)
		return PROFCONV_ERR_NOMEM;
	p->ctx = ctx;
	p->m = m;
	p->no_kallsyms = (uint8_t)kallsyms_unusable(ctx);
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		pc_free(ctx, p);
		return 0; /* no prefetch */
	}
	if (pthread_cond_init(&p->cv, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		pc_free(ctx, p);
		return 0;
	}
	m->frame_hook = prep_frame;
	m->frame_hook_user = p;
	*out = p;
	return 0;
}

void pc_symprep_stop(struct pc_symprep *p, int finish)
{
	if (!p)
		return;
	if (p->m->frame_hook_user == p) {
		p->m->frame_hook = NULL;
		p->m->frame_hook_user = NULL;
	}
	if (finish && !p->broken)
		prep_flush(p);
	p->npend = 0;
	if (p->running || (finish && p->njobs)) {
		pthread_mutex_lock(&p->mu);
		p->stop = finish ? 1 : 2;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (finish)
			prep_work(p);
	}
	if (p->running) {
		pthread_join(p->th, NULL);
		p->running = 0;
	}
}

void pc_symprep_free(struct pc_symprep *p)
{
	uint32_t i;

	if (!p)
		return;
	pc_symprep_stop(p, 0);
	for (i = 0; i < p->njobs; i++) {
		free_job(p->ctx, p->jobs[i]);
		pc_free(p->ctx, p->jobs[i]);
	}
	pc_free(p->ctx, p->jobs);
	pc_free(p->ctx, p->job_of_lib);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	pc_free(p->ctx, p);
}

static int same_str(const char *a, const char *b)
{
	return a ? b && strcmp(a, b) == 0 : !b;
}

/*
 * Move a lib's prefetched job into *to if it ran and the lib is still the
 * one it was queued for (after pc_symprep_stop()).  1 = adopted.
 */
static int prep_take(struct pc_symprep *p, const struct pc_model *m, uint32_t lib,
		     const uint32_t *rows, uint32_t nrows, struct lib_job *to)
{
	const struct pc_lib *l = &m->libs.rows[lib];
	const struct pc_frame_table *ft = &m->frames;
	struct lib_job *j;
	const char *bid;
	uint32_t k;

	if (!p || lib >= p->nlibs || p->job_of_lib[lib] == PC_NONE)
		return 0;
	j = p->jobs[p->job_of_lib[lib]];
	if (!j->found)
		return 0;
	/*
	 * The frames looked up must still be the lib's first ones, in order and
	 * at the same addresses (a reader may edit frames after adding them:
	 * the processed reader derives frame libs afterwards), so that
	 * lookup_all() goes on where the prefetch stopped.
	 */
	if (j->ndone > nrows)
		return 0;
	for (k = 0; k < j->ndone; k++)
		if (j->qrow[k] != rows[k] || j->qaddr[k] != ft->address[rows[k]])
			return 0;
	/* find_source() takes the binary's own build id when none was recorded */
	bid = j->f.build_id == j->f.own_build_id ? NULL : j->f.build_id;
	if (!same_str(j->f.name, pc_str(m, l->name)) || !same_str(j->f.path, pc_str(m, l->path)) ||
	    !same_str(bid, l->code_id != PC_NONE ? pc_str(m, l->code_id) : NULL) ||
	    !same_str(j->f.debug_id, pc_str(m, l->breakpad_id)) || j->f.is_kernel != l->is_kernel ||
	    (l->is_kernel && !bid && !same_str(j->f.oscpu, m->meta.oscpu)) ||
	    j->ctx->no_kallsyms != p->ctx->no_kallsyms)
		return 0;
	*to = *j;
	if (j->qerr)
		to->err = j->qerr; /* lookup_all() would have stopped there too */
	if (j->f.build_id == j->f.own_build_id)
		to->f.build_id = to->f.own_build_id;
	profconv_set_diagnostics(to->ctx, job_diag, to);
	memset(j, 0, sizeof(*j));
	return 1;
}

#define WARN_SYMPATH "unusable symbol paths ignored"

/*
 * The symbol paths the user gave, checked once here on the calling thread:
 * --kallsyms must be a regular file (a device, FIFO or endless pipe would
 * be read forever), --symbol-dir a directory or a regular file (a perf
 * archive).  An unusable one is said even without -v, and skipped.
 */
static int check_symbol_paths(struct profconv_ctx *ctx)
{
	struct stat st;
	unsigned i;
	int err = 0;

	const char *ks = ctx->opt.kallsyms;

	/* per run: the options themselves are the caller's and stay as set */
	ctx->no_kallsyms = 0;
	if (ks && (stat(ks, &st) != 0 || !S_ISREG(st.st_mode))) {
		err = pc_warn(ctx, WARN_SYMPATH, NULL,
			      "--kallsyms %s: %s; kernel frames stay unsymbolicated", ks,
			      stat(ks, &st) != 0 ? strerror(errno) : "not a regular file");
		ctx->no_kallsyms = 1;
	}
	for (i = 0; i < ctx->opt.nsymbol_dirs && !err; i++) {
		const char *d = ctx->opt.symbol_dirs[i];

		if (stat(d, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		err = pc_warn(ctx, WARN_SYMPATH, NULL,
			      "--symbol-dir %s: %s; not searched", d,
			      stat(d, &st) != 0 ? strerror(errno)
						 : "neither a directory nor a regular file");
	}
	return err;
}

int pc_symbolicate_prepared(struct profconv_ctx *ctx, struct pc_model *m, struct pc_symprep *prep)
{
	struct job_set js;
	struct pc_symwork *w;
	uint8_t *in_use;
	uint32_t *lib_start, *lib_rows;
	uint32_t lib, i, k = 0;
	pthread_t th;
	int err, threaded = 0;

	err = check_symbol_paths(ctx);
	if (err)
		return err;
	err = pc_symwork_begin(ctx, m, &w);
	if (err)
		return err;
	memset(&js, 0, sizeof(js));
	js.m = m;
	atomic_init(&js.next, 0);
	in_use = pc_calloc(ctx, (size_t)m->libs.len + 1, 1);
	js.jobs = pc_calloc(ctx, (size_t)m->libs.len + 1, sizeof(*js.jobs));
	js.order = pc_alloc(ctx, ((size_t)m->libs.len + 1) * sizeof(*js.order));
	lib_start = pc_alloc(ctx, ((size_t)m->libs.len + 1) * sizeof(*lib_start));
	lib_rows = pc_alloc(ctx, ((size_t)m->frames.len + 1) * sizeof(*lib_rows));
	if (!in_use || !js.jobs || !js.order || !lib_start || !lib_rows) {
		err = PROFCONV_ERR_NOMEM;
		goto out;
	}
	libs_in_use(m, in_use, lib_start, lib_rows);
	for (lib = 0; lib < m->libs.len; lib++) {
		const struct pc_lib *l = &m->libs.rows[lib];
		struct lib_job *j = &js.jobs[js.n];

		const uint32_t *rows = lib_rows + lib_start[lib];
		uint32_t nrows = lib_start[lib + 1] - lib_start[lib];

		if (!in_use[lib])
			continue;
		js.n++;
		if (prep_take(prep, m, lib, rows, nrows, j)) {
			j->rows = rows;
			j->nrows = nrows;
			continue;
		}
		err = job_init(ctx, j, lib);
		if (err)
			goto out;
		j->rows = rows;
		j->nrows = nrows;
		j->f.oscpu = m->meta.oscpu;
		j->f.is_kernel = l->is_kernel;
		j->f.name = pc_str(m, l->name);
		j->f.path = pc_str(m, l->path);
		j->f.build_id = l->code_id != PC_NONE ? pc_str(m, l->code_id) : NULL;
		j->f.debug_id = pc_str(m, l->breakpad_id);
	}
	for (i = 0; i < js.n; i++)
		if (job_first(&js.jobs[i]))
			js.order[k++] = i;
	for (i = 0; i < js.n; i++)
		if (!job_first(&js.jobs[i]))
			js.order[k++] = i;
	if (js.n > 1 && !ctx->opt.no_threads && pthread_create(&th, NULL, run_jobs, &js) == 0)
		threaded = 1;
	run_jobs(&js);
	if (threaded)
		pthread_join(th, NULL);

	for (i = 0; i < js.n && !err; i++) {
		struct lib_job *j = &js.jobs[i];

		err = replay_diags(ctx, j);
		if (!err && j->err)
			err = pc_fail(ctx, j->err, NULL, "%s", profconv_errmsg(j->ctx));
		if (err)
			break;
		if (j->src) {
			err = apply_results(w, j);
			pc_note(ctx, "symbols for %s: %s (%s), %u of %llu addresses found%s%s",
				j->f.name, j->src->path, j->src->ops->kind, j->nres,
				(unsigned long long)j->looked_up, j->f.whylen ? "; passed over: " : "",
				j->f.whylen ? j->f.why : "");
		} else {
			pc_note(ctx, "no symbols for %s: %s", j->f.name,
				j->f.whylen ? j->f.why : "nothing to try");
		}
	}
out:
	for (i = 0; i < js.n; i++)
		free_job(ctx, &js.jobs[i]);
	pc_free(ctx, js.jobs);
	pc_free(ctx, js.order);
	pc_free(ctx, in_use);
	pc_free(ctx, lib_start);
	pc_free(ctx, lib_rows);
	if (err) {
		pc_symwork_free(w);
		return err;
	}
	return pc_symwork_finish(w);
}

int pc_symbolicate(struct profconv_ctx *ctx, struct pc_model *m)
{
	return pc_symbolicate_prepared(ctx, m, NULL);
}
