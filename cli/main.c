/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c - the profconv command.  Uses only the public header.
 *
 *   profconv [options] INPUT [-o OUT]   convert
 *   profconv info INPUT                 describe an input
 *   profconv symbolicate IN [-o OUT]    symbolicate a processed or Gecko profile
 *   profconv validate FILE...           check processed / Gecko profile JSON
 *
 * Exit status: 0 success, 1 failure (bad input, invalid profile, I/O),
 * 2 usage error.  Messages go to stderr prefixed "profconv: "; standard
 * output carries only the requested output.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* sbrk(), MADV_HUGEPAGE */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli.h"

#define PC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int quiet;
static int verbose; /* -v: also the time each step took */

/* "a, b, c": the names of the formats of one kind, from the registry. */
static void format_names(enum profconv_format_kind kind, char *buf, size_t cap)
{
	struct profconv_format f = PROFCONV_INIT(struct profconv_format);
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; profconv_formats(i, &f) == PROFCONV_OK; i++)
		if (f.kind == kind && n < cap)
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", f.name);
}

/*
 * One option line: "      --key ARG" then the help from column 24,
 * wrapped at word boundaries to 80 columns.
 */
static void usage_option(FILE *f, const char *name, const char *arg, const char *help)
{
	int col = fprintf(f, "      --%s %s", name, arg);
	const char *p = help;

	if (col < 0)
		return;
	if (col >= 24) {
		fputc('\n', f);
		col = 0;
	}
	fprintf(f, "%*s", 24 - col, "");
	col = 24;
	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > 24 && col + 1 + (int)w > 80) {
			fprintf(f, "\n%24s", "");
			col = 24;
		} else if (col > 24) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	struct profconv_format fm = PROFCONV_INIT(struct profconv_format);
	char in[256], out[256];
	size_t i;

	format_names(PROFCONV_FORMAT_INPUT, in, sizeof(in));
	format_names(PROFCONV_FORMAT_OUTPUT, out, sizeof(out));
	fputs("usage: profconv [options] INPUT [-o OUT]\n"
	      "       profconv info INPUT\n"
	      "       profconv [options] symbolicate IN [-o OUT]\n"
	      "       profconv validate FILE...\n"
	      "       profconv [options] -O OUTDIR [batch options] INPUT...\n"
	      "       profconv report merge [--expect N] REPORT.jsonl... [-o OUT]\n"
	      "       profconv [options] view [--no-open] [--timeout SEC] INPUT\n"
	      "       profconv [options] serve [serve options] INPUT...\n"
	      "       profconv blame [--json] TRACE\n"
	      "       profconv gecko-dump PID -o FILE.pgkb [options]\n"
	      "       profconv gecko-dump --from-scrape PREFIX -o FILE.pgkb [options]\n"
	      "\n"
	      "Convert profiling data into the Firefox Profiler's formats.\n"
	      "INPUT may be a path or - (standard input); gzip, xz, bzip2, zstd, lz4\n"
	      "and lzma compression, and a tar, cpio or zip archive holding one file,\n"
	      "are undone first.\n"
	      "'serve' converts each INPUT (or every file of a folder), serves them on\n"
	      "127.0.0.1 until Ctrl-C with the symbol server API (symbols, source and\n"
	      "assembly on demand) and prints (and opens, on a desktop) one\n"
	      "profiler.firefox.com URL per profile; 'view' is 'serve' for one INPUT.\n"
	      "'blame' prints, for a Chrome trace with FrameBlamer contexts, the self time\n"
	      "of its slices charged to each context object.\n"
	      "'symbolicate' reads a processed or Gecko profile (or any INPUT) and writes\n"
	      "it symbolicated from local files, offline, even when its meta says it\n"
	      "already is; running it again on its output changes nothing.\n"
	      "'gecko-dump' writes a PGKB dump of a running Firefox's profiler buffer\n"
	      "(or of a scrape of it), which profconv then converts ('gecko-dump --help').\n"
	      "'report merge' joins the --report files of batch shards; --expect N fails\n"
	      "unless shards 1 to N of N are each there once.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE     write to FILE (- for standard output); an existing\n"
	      "                        FILE is replaced only once the output is complete\n"
	      "      --compress METHOD gzip, zstd, none, or auto (the default: gzip for\n"
	      "                        FILE.gz, zstd for FILE.zst, else none)\n",
	      f);
	fprintf(f, "  -f, --from FORMAT     input format, skipping detection (%s)\n", in);
	fprintf(f, "  -t, --to FORMAT       output format (%s; default processed)\n", out);
	fputs("\nserve options (serve and view):\n"
	      "      --port N          listen on port N (default: any free port)\n"
	      "      --host ADDR       listen on ADDR (default 127.0.0.1; an address that\n"
	      "                        is not loopback also needs --allow-remote)\n"
	      "      --allow-remote    allow a --host that other machines may reach\n"
	      "      --origin URL      the Firefox Profiler to answer (default\n"
	      "                        https://profiler.firefox.com)\n"
	      "      --source-map FROM=TO  read source files named FROM/... from TO/...\n"
	      "      --no-open         only print the URLs, do not open a browser\n"
	      "      --timeout SEC     exit 1 if nothing fetched a profile in SEC seconds\n", f);
	fputs("\nbatch options (with -O):\n"
	      "  -O, --output-dir DIR  convert every INPUT into DIR/NAME.json (NAME: the\n"
	      "                        input's file name without compression suffix and\n"
	      "                        extension; clashes get -2, -3, ... in list order)\n"
	      "      --inputs FILE     also convert the paths listed in FILE (- for stdin),\n"
	      "                        one per line\n"
	      "      --jobs N          conversions at a time (default: the number of CPUs)\n"
	      "      --report FILE     one JSON line per input, in input order\n"
	      "      --shard K/N       only the inputs whose path hashes to shard K of N\n"
	      "                        (1 <= K <= N), for one worker of N\n"
	      "\n"
	      "conversion options:\n"
	      "      --no-symbols      do not symbolicate (frames stay addresses)\n"
	      "      --symbol-dir DIR  also look for symbols in DIR: a breakpad store,\n"
	      "                        a folder of binaries or .debug files, a perf\n"
	      "                        build-id cache, or a perf archive tarball\n"
	      "                        (repeatable; searched first, in order)\n"
	      "      --kallsyms FILE   kernel symbols (default: /proc/kallsyms when the\n"
	      "                        recording's kernel is the running one)\n"
	      "      --no-host-symbols search only --symbol-dir and --kallsyms, none of this\n"
	      "                        machine's paths (debug dirs, the recorded binaries,\n"
	      "                        /proc/kallsyms, /tmp/perf-PID.map): the same result\n"
	      "                        everywhere\n"
	      "      --symbol-cache DIR  keep what was resolved from each symbol file in\n"
	      "                        DIR, by build id, and read it back next time\n"
	      "                        (default: $PROFCONV_SYMBOL_CACHE, else\n"
	      "                        $XDG_CACHE_HOME/profconv, else ~/.cache/profconv;\n"
	      "                        the output is the same with and without it)\n"
	      "      --no-symbol-cache do not read or write the symbol cache\n"
	      "      --strict          treat recoverable damage as an error\n"
	      "      --max-memory SIZE stop with an error past this much memory (default 8G;\n"
	      "                        a number of MiB, or with K, M, G or T); it covers what\n"
	      "                        profconv allocates, not libdwarf's own memory nor\n"
	      "                        mapped symbol files\n"
	      "  -q, --quiet           print nothing but errors\n"
	      "  -v, --verbose         print notes about what is done\n"
	      "  -h, --help            this text\n"
	      "  -V, --version         print the version\n",
	      f);
	for (i = 0; profconv_formats(i, &fm) == PROFCONV_OK; i++) {
		const struct profconv_option *o;

		if (!fm.options[0].key)
			continue;
		fprintf(f, "\n%s %s options:\n", fm.name,
			fm.kind == PROFCONV_FORMAT_INPUT ? "input" : "output");
		for (o = fm.options; o->key; o++) {
			char help[512];

			if (o->choices)
				snprintf(help, sizeof(help), "%s: %s%s%s", o->choices, o->help,
					 o->def ? "; default " : "", o->def ? o->def : "");
			else
				snprintf(help, sizeof(help), "%s", o->help);
			usage_option(f, o->key, o->arg, help);
		}
	}
	fputs("\nExit status: 0 ok, 1 failed, 2 usage error.  See profconv(1).\n", f);
}

/*
 * A usage error: one line naming the program and the problem, and where to
 * look (exit status 2).  Always "profconv", never argv[0]'s path.
 */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("profconv: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(". Try 'profconv --help'.\n", stderr);
	return 2;
}

/* Edit distance of a and b, capped at 3 (enough to suggest an option). */
static unsigned edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned row[64], prev, tmp;

	if (la >= 64 || lb >= 64)
		return 3;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb] < 3 ? row[lb] : 3;
}

/*
 * getopt_long's complaint, said our way: an unknown option (with the
 * closest known long option when one is near), a missing argument or an
 * argument given to a flag.
 */
static int option_error(int c, const char *arg, const struct option *opts)
{
	const struct option *o, *near = NULL;
	unsigned best = 3;
	char name[64];
	const char *eq;
	size_t len;

	if (!arg || strncmp(arg, "--", 2) != 0 || !arg[2]) {
		if (c == ':')
			return usage_error("option '-%c' needs an argument", optopt);
		return usage_error("unknown option '-%c'", optopt);
	}
	eq = strchr(arg, '=');
	len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, arg + 2, len);
	name[len] = 0;
	for (o = opts; o->name; o++) {
		/* a known option getopt_long found fault with (optopt: its value) */
		if (optopt && optopt == o->val && strcmp(o->name, name) == 0)
			return usage_error(c == ':' ? "option '--%s' needs an argument" :
						      "option '--%s' takes no argument",
					   name);
		if (edits(name, o->name) < best) {
			best = edits(name, o->name);
			near = o;
		}
	}
	if (optopt) { /* a short option after this long one, e.g. --strict -x */
		if (c == ':')
			return usage_error("option '-%c' needs an argument", optopt);
		return usage_error("unknown option '-%c'", optopt);
	}
	for (o = opts; o->name; o++) /* an ambiguous abbreviation */
		if (strncmp(o->name, name, len) == 0)
			return usage_error("option '--%s' is ambiguous (--%s, ...)", name, o->name);
	if (near)
		return usage_error("unknown option '--%s' (did you mean '--%s'?)", name, near->name);
	return usage_error("unknown option '--%s'", name);
}

static void diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	/* the error a command fails with is printed once, from profconv_errmsg() */
	if (d->severity == PROFCONV_ERROR && d->code != PROFCONV_ERR_INVALID)
		return;
	cli_progress_clear();
	if (d->severity == PROFCONV_NOTE) {
		fprintf(stderr, "profconv: note: %s\n", d->message);
		return;
	}
	if (d->severity == PROFCONV_WARNING && quiet)
		return;
	fprintf(stderr, "profconv: %s: %s\n", d->severity == PROFCONV_WARNING ? "warning" : "error",
		d->message);
}

static int out_stdout(void *user, const void *buf, size_t len)
{
	(void)user;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

/*
 * A size: digits (no sign), then an optional unit K, M, G or T (powers of
 * 1024; M when there is none, as before), nonzero, below 2^64 bytes.
 */
static int parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 20;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case 0:
		break;
	case 'k': case 'K':
		shift = 10;
		p++;
		break;
	case 'm': case 'M':
		p++;
		break;
	case 'g': case 'G':
		shift = 30;
		p++;
		break;
	case 't': case 'T':
		shift = 40;
		p++;
		break;
	default:
		return -1;
	}
	if ((*p == 'i' || *p == 'I') && (p[1] == 'B' || p[1] == 'b'))
		p += 2;
	else if (*p == 'B' || *p == 'b')
		p++;
	if (*p || !v || v > UINT64_MAX >> shift)
		return -1;
	*out = v << shift;
	return 0;
}

static int fail(struct profconv_ctx *ctx)
{
	fprintf(stderr, "profconv: error: %s\n", profconv_errmsg(ctx));
	return 1;
}

static void warning_summary(struct profconv_ctx *ctx)
{
	if (!quiet && profconv_warning_count(ctx))
		fprintf(stderr, "profconv: warning: %s\n", profconv_warning_summary(ctx));
}

static int cmd_info(struct profconv_ctx *ctx, int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 1)
		return usage_error("info needs an INPUT");
	for (i = 0; i < argc; i++) {
		if (profconv_info_path(ctx, argv[i], out_stdout, NULL) != PROFCONV_OK)
			rc = fail(ctx);
		warning_summary(ctx);
	}
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}

static int cmd_validate(struct profconv_ctx *ctx, int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 1)
		return usage_error("validate needs a FILE");
	for (i = 0; i < argc; i++) {
		int err = profconv_validate_path(ctx, argv[i], out_stdout, NULL);

		if (err == PROFCONV_ERR_INVALID)
			rc = 1;
		else if (err != PROFCONV_OK)
			rc = fail(ctx);
	}
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}

static int cmd_convert(struct profconv_ctx *ctx, const char *input, const char *output,
		       const char *to);

/* symbolicate IN: a conversion that symbolicates even "symbolicated" inputs. */
static int cmd_symbolicate(struct profconv_ctx *ctx, int argc, char **argv, const char *output,
			   const char *to, int no_symbols)
{
	if (argc != 1)
		return usage_error(argc ? "symbolicate takes one IN" : "symbolicate needs an IN");
	if (no_symbols)
		return usage_error("symbolicate and --no-symbols contradict each other");
	if (profconv_set_option(ctx, "symbolicate", "always"))
		return usage_error("%s", profconv_errmsg(ctx));
	return cmd_convert(ctx, argv[0], output, to);
}

/*
 * SIGINT, SIGTERM and SIGHUP while an output file is being written: remove
 * the temporary file, then die of the signal as we would have.  The path is
 * read from the library (set before the first byte is written); unlink()
 * and raise() are async-signal-safe.
 */
static struct profconv_ctx *signal_ctx;

static void on_signal(int sig)
{
	const char *tmp = signal_ctx ? profconv_pending_output(signal_ctx) : "";

	if (tmp[0])
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * SIGBUS: a file read through a mapping of it and cut short by another
 * process meanwhile faults where its pages are gone: an ELF symbol source,
 * or with PROFCONV_INPUT_MAP=1 a plain JSON input (option "input-map"; the
 * library checks the file's size and times before each chunk, which
 * catches only a cut made before it).  Say so and exit 1 rather than die
 * of the signal: remove the temporary output file as above, and write the
 * message with write(), which is async-signal-safe.
 */
static const char *sigbus_input; /* the conversion's input, when one */
static volatile sig_atomic_t sigbus_forward; /* cli_sigbus_forward()'s signal */

static void put_err(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t k = write(2, s, n);

		if (k <= 0)
			break;
		s += k;
		n -= (size_t)k;
	}
}

static void on_sigbus(int sig)
{
	const char *tmp = signal_ctx ? profconv_pending_output(signal_ctx) : "";

	(void)sig;
	if (sigbus_forward) {
		/* a batch: its signal thread ends the process; returning would
		 * fault again */
		kill(getpid(), sigbus_forward);
		for (;;)
			pause();
	}
	if (tmp[0])
		unlink(tmp);
	put_err("profconv: error: ");
	if (sigbus_input) {
		put_err(sigbus_input);
		put_err(": ");
	}
	put_err("an input file changed (was cut short) while it was read through a mapping\n");
	_exit(1);
}

void cli_on_sigbus(const char *input)
{
	struct sigaction sa;

	sigbus_input = input && strcmp(input, "-") != 0 ? input : NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

void cli_sigbus_forward(int sig)
{
	sigbus_forward = sig;
}

/*
 * Plain JSON inputs are read with read(), not through mappings (option
 * "input-map"), unless PROFCONV_INPUT_MAP=1.  On a machine whose page
 * tables are kept by a hypervisor (this project's paravirtualized 2-core
 * benchmark machine, 2026-11-28) every page mapped costs a trap: the
 * mapping made the real Chrome trace 76.4 ms against 67.5 ms with read(),
 * its 1 GiB tiling 3.27 s against 2.34 s, a processed profile read back
 * 207 ms against 135 ms.  On the earlier rounds' machine it saved a tenth
 * on the 256 MiB tiling.  read() also never faults: an input cut short
 * while it is read ends there, with the truncation warning.
 */
int cli_input_map(void)
{
	const char *e = getenv("PROFCONV_INPUT_MAP");

	return e && strcmp(e, "1") == 0;
}

void cli_cleanup_on_signals(struct profconv_ctx *ctx)
{
	struct sigaction sa, old;

	signal_ctx = ctx;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* a signal ignored (nohup) stays ignored */
	if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGTERM, &sa, NULL);
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Is the output the input itself?  Compared as files (device and inode,
 * symlinks followed), not by name: "x", "./x", "/abs/x" and a link to x are
 * one file.  "-" as the input is standard input, which may be the file
 * redirected.  Only a regular file can be replaced (a device or FIFO is
 * written in place).
 */
static int output_is_input(const char *input, const char *output)
{
	struct stat si, so;

	if (strcmp(output, "-") == 0 || stat(output, &so) != 0 || !S_ISREG(so.st_mode))
		return 0;
	if (strcmp(input, "-") == 0 ? fstat(0, &si) != 0 : stat(input, &si) != 0)
		return 0;
	return si.st_dev == so.st_dev && si.st_ino == so.st_ino;
}

/*
 * The converted profile, left for the exit to take back (cmd_convert()),
 * except where a sanitizer checks the frees.
 */
#if defined(__SANITIZE_ADDRESS__)
#define CLI_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define CLI_FREE_AT_EXIT 1
#endif
#endif
#ifndef CLI_FREE_AT_EXIT
static struct profconv_profile *kept_at_exit;
#endif

/*
 * One conversion, then the exit: glibc's heap grows 64 MiB at a time
 * (pages it does not touch cost nothing) and gives nothing back on the
 * way.  By default it grew 128 KiB at a time and trimmed its top whenever
 * 128 KiB were free there: 31 brk() and two madvise() on the 13 MB Chrome
 * trace, 4 brk() with a 4 MiB pad; a shrink while other threads run makes
 * each of their CPUs flush its TLB.  And the heap asks for transparent huge
 * pages: it is grown once now, by the pad, and that range advised, so that
 * the small blocks of the model (a thread's columns below 128 KiB, which
 * the library's allocator leaves to malloc) fill it a page fault per 2 MiB
 * instead of per 4 KiB.  On a machine where a page fault costs 11 us
 * (2026-11-27): the real 13 MB Chrome trace 1,737 -> 1,063 page faults,
 * 75.4 -> 71.1 ms; the 20 s system-wide recording with warm symbols 5,111
 * -> 3,491, 212 -> 196 ms; peak memory +1 MiB; the 1 GiB tiling's peak and
 * time unchanged (a heap is dense; past the first 64 MiB it grows without
 * the advice).  The CLI's choice: the library leaves the
 * process's malloc settings alone.
 */
static void heap_for_one_conversion(void)
{
#if defined(__GLIBC__)
	mallopt(M_TOP_PAD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#if __GLIBC_PREREQ(2, 33) && defined(MADV_HUGEPAGE)
	{
		/* a block bigger than the heap's free top makes glibc grow
		 * the heap by it and the pad (a block it would map instead
		 * lies above the heap's end: nothing is advised) */
		struct mallinfo2 mi = mallinfo2();
		char *t = malloc(mi.keepcost + 4096), *end = sbrk(0);
		uintptr_t from = ((uintptr_t)t + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);

		if (t && end != (void *)-1 && (uintptr_t)end > from)
			madvise((void *)from, (uintptr_t)end - from, MADV_HUGEPAGE);
		free(t);
	}
#endif
#endif
}

static int cmd_convert(struct profconv_ctx *ctx, const char *input, const char *output,
		       const char *to)
{
	struct profconv_profile *p = NULL;
	size_t i, samples = 0;
	double t0 = now_s(), t1, t2;
	int err;

	if (!output) {
		if (isatty(1)) {
			return usage_error("refusing to write JSON to a terminal; use -o FILE or -o -");
		}
		output = "-";
	}
	/* the recording is never replaced by its conversion: refused before anything is written */
	if (output_is_input(input, output)) {
		fprintf(stderr,
			"profconv: error: %s: is the input %s itself (the same file); writing the output there would replace it: give another -o\n",
			output, strcmp(input, "-") == 0 ? "(standard input)" : input);
		return 2;
	}
	/* a bad output path is said before any work is done */
	err = profconv_output_check(ctx, output);
	if (err) {
		fail(ctx);
		return err == PROFCONV_ERR_USAGE ? 2 : 1;
	}
	cli_cleanup_on_signals(ctx);
	cli_on_sigbus(input);
	/* PROFCONV_INPUT_MAP=1: plain JSON files through a mapping (SIGBUS
	 * is handled just above) */
	if (cli_input_map())
		profconv_set_option(ctx, "input-map", "yes");
	heap_for_one_conversion();
	if (!quiet && isatty(2))
		profconv_set_progress(ctx, cli_progress_bytes, (void *)input);
	err = profconv_read_path(ctx, input, &p);
	profconv_set_progress(ctx, NULL, NULL);
	cli_progress_clear();
	if (err) {
		warning_summary(ctx);
		return fail(ctx);
	}
	t1 = now_s();
	err = profconv_write_path(ctx, p, to, output);
	if (err) {
		profconv_profile_free(p);
		return fail(ctx);
	}
	t2 = now_s();
	for (i = 0; i < profconv_profile_thread_count(p); i++)
		samples += profconv_profile_sample_count(p, i);
	if (!quiet)
		fprintf(stderr,
			"profconv: wrote %s: %zu threads, %zu samples, %zu stacks, %zu frames, %zu libs\n",
			strcmp(output, "-") == 0 ? "<stdout>" : output,
			profconv_profile_thread_count(p), samples, profconv_profile_stack_count(p),
			profconv_profile_frame_count(p), profconv_profile_lib_count(p));
	warning_summary(ctx);
	/*
	 * The process ends now: the kernel takes the profile's memory back
	 * at exit in one go, where freeing it block by block (free() and
	 * munmap() of every table) took 1 ms of the 48 of a 13 MB Chrome
	 * trace.  The pointer stays reachable (a leak checker does not count
	 * it); a build with a sanitizer frees it, as a library user would.
	 */
#ifdef CLI_FREE_AT_EXIT
	profconv_profile_free(p);
#else
	kept_at_exit = p;
#endif
	if (verbose)
		fprintf(stderr, "profconv: read %.3f s, wrote %.3f s\n", t1 - t0, t2 - t1);
	return 0;
}

/* Is name an output format in the registry? */
static int is_output_format(const char *name)
{
	struct profconv_format f = PROFCONV_INIT(struct profconv_format);
	size_t i;

	for (i = 0; profconv_formats(i, &f) == PROFCONV_OK; i++)
		if (f.kind == PROFCONV_FORMAT_OUTPUT && strcmp(f.name, name) == 0)
			return 1;
	return 0;
}

#define OPT_FORMAT 1024 /* + index in fmt_keys: an option a format declares */
#define MAX_FMT_OPTS 64

/* Set an option on ctx and record it for the contexts made later. */
static int set(struct profconv_ctx *ctx, struct cli_settings *st, const char *key,
	       const char *value)
{
	if (profconv_set_option(ctx, key, value))
		return -1;
	if (st->n == CLI_MAX_SETTINGS) {
		fputs("profconv: too many options\n", stderr);
		return -1;
	}
	st->keys[st->n] = key;
	st->values[st->n] = value;
	st->n++;
	return 0;
}

struct profconv_ctx *cli_ctx_new(const struct cli_settings *st)
{
	struct profconv_ctx *ctx = profconv_ctx_new();
	size_t i;

	if (!ctx) {
		fputs("profconv: out of memory\n", stderr);
		return NULL;
	}
	profconv_set_diagnostics(ctx, diag, NULL);
	profconv_set_strict(ctx, st->strict);
	profconv_set_verbose(ctx, st->verbose);
	if (st->max_memory)
		profconv_set_max_memory(ctx, st->max_memory);
	for (i = 0; i < st->n; i++) {
		if (profconv_set_option(ctx, st->keys[i], st->values[i])) {
			fprintf(stderr, "profconv: %s\n", profconv_errmsg(ctx));
			profconv_ctx_free(ctx);
			return NULL;
		}
	}
	return ctx;
}

int cli_fail(struct profconv_ctx *ctx)
{
	return fail(ctx);
}

/* A whole number from 1 to max (digits only). */
static int parse_count(const char *s, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_STRICT = 256, OPT_MAXMEM, OPT_SYMDIR, OPT_KALLSYMS, OPT_NOSYMS, OPT_NOHOST, OPT_SYMCACHE, OPT_NOSYMCACHE,
	       OPT_COMPRESS, OPT_NOOPEN, OPT_TIMEOUT, OPT_JOBS, OPT_INPUTS, OPT_REPORT, OPT_SHARD,
	       OPT_JSON, OPT_EXPECT, OPT_PORT, OPT_HOST, OPT_ORIGIN, OPT_ALLOW_REMOTE,
	       OPT_SOURCE_MAP };
	static const struct option fixed[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "max-memory", required_argument, NULL, OPT_MAXMEM },
		{ "symbol-dir", required_argument, NULL, OPT_SYMDIR },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "no-symbols", no_argument, NULL, OPT_NOSYMS },
		{ "no-host-symbols", no_argument, NULL, OPT_NOHOST },
		{ "symbol-cache", required_argument, NULL, OPT_SYMCACHE },
		{ "no-symbol-cache", no_argument, NULL, OPT_NOSYMCACHE },
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "no-open", no_argument, NULL, OPT_NOOPEN },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "inputs", required_argument, NULL, OPT_INPUTS },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "origin", required_argument, NULL, OPT_ORIGIN },
		{ "allow-remote", no_argument, NULL, OPT_ALLOW_REMOTE },
		{ "source-map", required_argument, NULL, OPT_SOURCE_MAP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	/* the fixed options, then every option the formats declare */
	struct option opts[PC_ARRAY_LEN(fixed) + MAX_FMT_OPTS + 1];
	const char *fmt_keys[MAX_FMT_OPTS];
	struct profconv_format fm = PROFCONV_INIT(struct profconv_format);
	struct profconv_ctx *ctx = profconv_ctx_new();
	static struct cli_settings st;
	struct cli_batch batch;
	static struct cli_serve serve = { .origin = "https://profiler.firefox.com" };
	const char *output = NULL, *cmd = NULL;
	size_t nopts = 0, nfmt = 0, i, k;
	int c, rc, no_symbols = 0, no_open = 0, blame_json = 0;
	unsigned timeout = 0, expect = 0;

	if (!ctx) {
		fputs("profconv: out of memory\n", stderr);
		return 1;
	}
	cli_on_sigbus(NULL); /* (a single conversion names its input) */
	if (argc >= 2 && strcmp(argv[1], "gecko-dump") == 0) {
		profconv_ctx_free(ctx);
		return cli_gecko_dump(argc - 1, argv + 1);
	}
	memset(&batch, 0, sizeof(batch));
	st.to = PROFCONV_OUT_PROCESSED;
	for (i = 0; i < PC_ARRAY_LEN(fixed); i++)
		opts[nopts++] = fixed[i];
	for (i = 0; profconv_formats(i, &fm) == PROFCONV_OK; i++) {
		const struct profconv_option *o;

		for (o = fm.options; o->key && nfmt < MAX_FMT_OPTS; o++) {
			for (k = 0; k < nfmt && strcmp(fmt_keys[k], o->key) != 0; k++)
				;
			if (k < nfmt)
				continue; /* declared by two formats: one CLI option */
			fmt_keys[nfmt] = o->key;
			opts[nopts].name = o->key;
			opts[nopts].has_arg = required_argument;
			opts[nopts].flag = NULL;
			opts[nopts].val = OPT_FORMAT + (int)nfmt;
			nopts++;
			nfmt++;
		}
	}
	memset(&opts[nopts], 0, sizeof(opts[nopts]));
	profconv_set_diagnostics(ctx, diag, NULL);
	/* the command symbolicates by default; the library does not */
	if (set(ctx, &st, "symbols", "yes"))
		goto usage_err;
	/* PROFCONV_HOST_SYMBOLS=no: --no-host-symbols for every run (tests, CI) */
	{
		const char *hs = getenv("PROFCONV_HOST_SYMBOLS");

		if (hs && *hs && set(ctx, &st, "host-symbols", hs))
			goto usage_err;
	}
	/* the persistent symbol cache: PROFCONV_SYMBOL_CACHE (DIR, or "none"),
	 * else $XDG_CACHE_HOME/profconv, else ~/.cache/profconv */
	{
		const char *sc = getenv("PROFCONV_SYMBOL_CACHE"), *base = getenv("XDG_CACHE_HOME");
		static char dir[4096]; /* set() keeps the pointer */

		dir[0] = 0;
		if (sc && *sc) {
			if (strcmp(sc, "none") != 0)
				snprintf(dir, sizeof(dir), "%s", sc);
		} else if (base && base[0] == '/') {
			snprintf(dir, sizeof(dir), "%s/profconv", base);
		} else if ((base = getenv("HOME")) && base[0] == '/') {
			snprintf(dir, sizeof(dir), "%s/.cache/profconv", base);
		}
		if (dir[0] && set(ctx, &st, "symbol-cache", dir))
			goto usage_err;
	}
	opterr = 0; /* its messages name argv[0]'s path; option_error() says them */
	while ((c = getopt_long(argc, argv, ":o:O:f:t:qvhV", opts, NULL)) != -1) {
		if (c >= OPT_FORMAT && c < OPT_FORMAT + (int)nfmt) {
			if (set(ctx, &st, fmt_keys[c - OPT_FORMAT], optarg))
				goto usage_err;
			continue;
		}
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'O':
			batch.outdir = optarg;
			break;
		case 'f':
			if (set(ctx, &st, "from", optarg))
				goto usage_err;
			break;
		case 't':
			if (!is_output_format(optarg)) {
				char out[256];

				format_names(PROFCONV_FORMAT_OUTPUT, out, sizeof(out));
				profconv_ctx_free(ctx);
				return usage_error("unknown output format '%s' (known: %s)", optarg, out);
			}
			st.to = optarg;
			break;
		case OPT_STRICT:
			st.strict = 1;
			profconv_set_strict(ctx, 1);
			break;
		case OPT_SYMDIR:
			if (set(ctx, &st, "symbol-dir", optarg))
				goto usage_err;
			break;
		case OPT_KALLSYMS:
			if (set(ctx, &st, "kallsyms", optarg))
				goto usage_err;
			break;
		case OPT_JSON:
			blame_json = 1;
			break;
		case OPT_NOOPEN:
			no_open = 1;
			break;
		case OPT_PORT:
			if (parse_count(optarg, 65535, &serve.port)) {
				fprintf(stderr, "profconv: --port takes a number from 1 to 65535, not '%s'\n",
					optarg);
				profconv_ctx_free(ctx);
				return 2;
			}
			break;
		case OPT_HOST:
			serve.host = optarg;
			break;
		case OPT_ORIGIN:
			serve.origin = optarg;
			break;
		case OPT_ALLOW_REMOTE:
			serve.allow_remote = 1;
			break;
		case OPT_SOURCE_MAP:
			if (!strchr(optarg, '=') || optarg[0] == '=' ||
			    serve.nsource_maps == CLI_MAX_SOURCE_MAPS) {
				fprintf(stderr, "profconv: --source-map takes FROM=TO (at most %d), not '%s'\n",
					CLI_MAX_SOURCE_MAPS, optarg);
				profconv_ctx_free(ctx);
				return 2;
			}
			serve.source_maps[serve.nsource_maps++] = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_count(optarg, 86400, &timeout)) {
				profconv_ctx_free(ctx);
				return usage_error("--timeout takes seconds (1 to 86400), not '%s'", optarg);
			}
			break;
		case OPT_COMPRESS:
			if (set(ctx, &st, "compress", optarg))
				goto usage_err;
			break;
		case OPT_SYMCACHE:
			if (!optarg[0]) {
				profconv_ctx_free(ctx);
				return usage_error("--symbol-cache takes a directory");
			}
			if (set(ctx, &st, "symbol-cache", optarg))
				goto usage_err;
			break;
		case OPT_NOSYMCACHE:
			if (set(ctx, &st, "symbol-cache", ""))
				goto usage_err;
			break;
		case OPT_NOHOST:
			if (set(ctx, &st, "host-symbols", "no"))
				goto usage_err;
			break;
		case OPT_NOSYMS:
			if (set(ctx, &st, "symbols", "no"))
				goto usage_err;
			no_symbols = 1;
			break;
		case OPT_JOBS:
			if (parse_count(optarg, 1024, &batch.jobs)) {
				profconv_ctx_free(ctx);
				return usage_error("--jobs takes a number from 1 to 1024, not '%s'", optarg);
			}
			break;
		case OPT_INPUTS:
			batch.inputs_file = optarg;
			break;
		case OPT_REPORT:
			batch.report = optarg;
			break;
		case OPT_SHARD:
			batch.shard = optarg;
			break;
		case OPT_EXPECT:
			if (parse_count(optarg, 1000000, &expect)) {
				profconv_ctx_free(ctx);
				return usage_error("--expect takes a number of shards, not '%s'", optarg);
			}
			break;
		case OPT_MAXMEM: {
			uint64_t bytes;

			if (parse_size(optarg, &bytes)) {
				profconv_ctx_free(ctx);
				return usage_error(
					"--max-memory takes a size (digits, then K, M, G or T; M if none), not '%s'",
					optarg);
			}
			st.max_memory = bytes;
			profconv_set_max_memory(ctx, bytes);
			break;
		}
		case 'q':
			quiet = 1;
			st.quiet = 1;
			break;
		case 'v':
			verbose = 1;
			st.verbose = 1;
			profconv_set_verbose(ctx, 1);
			break;
		case 'h':
			usage(stdout);
			profconv_ctx_free(ctx);
			return 0;
		case 'V':
			printf("profconv %s (processed format %d by default, up to %d; Gecko format %d)\n",
			       profconv_version_string(), PROFCONV_PROCESSED_FORMAT_DEFAULT,
			       PROFCONV_PROCESSED_FORMAT_VERSION, PROFCONV_GECKO_FORMAT_VERSION);
			profconv_ctx_free(ctx);
			return 0;
		default:
			rc = option_error(c, argv[optind - 1], opts);
			profconv_ctx_free(ctx);
			return rc;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc >= 1 && (strcmp(argv[0], "info") == 0 || strcmp(argv[0], "validate") == 0 ||
			  strcmp(argv[0], "symbolicate") == 0 || strcmp(argv[0], "report") == 0 ||
			  strcmp(argv[0], "view") == 0 || strcmp(argv[0], "blame") == 0 ||
			  strcmp(argv[0], "serve") == 0)) {
		cmd = argv[0];
		argc--;
		argv++;
	}
	if (expect && !(cmd && strcmp(cmd, "report") == 0))
		rc = usage_error("--expect is for report merge");
	else if ((batch.jobs || batch.inputs_file || batch.report || batch.shard) && !batch.outdir) {
		rc = usage_error("--jobs, --inputs, --report and --shard are for batch mode (-O OUTDIR)");
	} else if (batch.outdir && (cmd || output)) {
		rc = usage_error(output ? "-O OUTDIR and -o OUT contradict each other" :
					  "-O OUTDIR converts; it does not go with a command");
	} else if (batch.outdir) {
		if (argc == 0 && !batch.inputs_file) {
			rc = usage_error("no INPUT given (operands or --inputs FILE)");
		} else {
			rc = cli_batch_run(&st, &batch, argv, argc);
		}
	} else if (cmd && strcmp(cmd, "info") == 0)
		rc = cmd_info(ctx, argc, argv);
	else if (cmd && strcmp(cmd, "symbolicate") == 0)
		rc = cmd_symbolicate(ctx, argc, argv, output, st.to, no_symbols);
	else if (cmd && strcmp(cmd, "report") == 0)
		rc = cli_report(&st, output, expect, argc, argv);
	else if (cmd && strcmp(cmd, "blame") == 0) {
		int json = 0;

		if (argc >= 1 && strcmp(argv[0], "--json") == 0) {
			json = 1;
			argc--;
			argv++;
		}
		if (argc != 1) {
			rc = usage_error("blame takes one TRACE");
		} else if (profconv_blame_path(ctx, argv[0], json || blame_json, out_stdout, NULL)) {
			rc = fail(ctx);
		} else {
			rc = fflush(stdout) != 0;
			warning_summary(ctx);
		}
	} else if (cmd && strcmp(cmd, "view") == 0) {
		if (argc != 1) {
			rc = usage_error(argc ? "view takes one FILE" : "view needs a FILE");
		} else {
			serve.no_open = no_open;
			serve.timeout = timeout;
			rc = cli_serve(&st, &serve, argv, 1);
		}
	} else if (cmd && strcmp(cmd, "serve") == 0) {
		serve.no_open = no_open;
		serve.timeout = timeout;
		if (argc < 1) {
			fputs("profconv: serve needs an INPUT\n", stderr);
			rc = 2;
		} else {
			rc = cli_serve(&st, &serve, argv, argc);
		}
	}
	else if (cmd)
		rc = cmd_validate(ctx, argc, argv);
	else if (argc == 1) {
		rc = cmd_convert(ctx, argv[0], output, st.to);
#ifndef CLI_FREE_AT_EXIT
		/*
		 * The context, too, is left for the exit (it stays reachable
		 * through signal_ctx): freeing the last one unmaps the
		 * library's mapping cache, 30 munmap() calls of pages the
		 * exit takes back anyway.
		 */
		if (rc == 0)
			return rc;
#endif
	} else
		rc = usage_error(argc ? "one INPUT at a time (or -O OUTDIR for many)" : "no INPUT given");
	profconv_ctx_free(ctx);
	return rc;

usage_err:
	usage_error("%s", profconv_errmsg(ctx));
	profconv_ctx_free(ctx);
	return 2;
}
