/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * batch.c - many inputs, one output directory: profconv -O OUTDIR INPUT...
 *
 *   inputs      the operands, then the lines of --inputs FILE (or -)
 *   names       OUTDIR/BASENAME.json, where BASENAME is the input's file
 *               name without a compression suffix (.gz .zst .xz .bz2 .lz4)
 *               and then without its last extension; when two inputs give
 *               one name the later ones (in list order) get -2, -3, ...
 *               The names are decided on the whole list before --shard
 *               picks a part, so every shard names a file the same way.
 *   --shard K/N the inputs whose path hashes (FNV-1a 64) to K-1 mod N;
 *               K is 1-based (1/2 and 2/2 cover a list once)
 *   --jobs N    N conversions at a time, each on its own context (default:
 *               the number of CPUs); one bad input never stops the others
 *   --report F  one JSON line per input, in input order (format below)
 *
 * Exit status 0 when every input converted (with --strict, warnings are
 * errors, so also none warned), 1 otherwise, 2 on a usage error.
 *
 * SIGINT, SIGTERM and SIGHUP: no input is started any more, the temporary
 * files of the conversions in progress are removed, the report is written
 * for the inputs that finished (without the end line: report merge
 * --expect then sees the shard did not finish), and the command dies of
 * the signal.  The signals are taken by a thread of their own (sigwait), so
 * all of this is ordinary code, not a handler's.  SIGBUS (an input cut
 * short while it was read through a mapping) is handed to that thread too:
 * the same, except that the error names the inputs in progress and the
 * exit status is 1.
 *
 * A report line (the version of profconv that wrote it, and the shard,
 * "1/1" without --shard):
 *   {"version": "0.1.0", "shard": "2/3", "input": "a/perf.data",
 *    "output": "out/perf.json", "format": "perf",
 *    "status": "ok" | "failed", "error": null | "text naming file and offset",
 *    "error_code": null | "corrupt input", "error_offset": null | N,
 *    "error_line": null | N, "error_column": null | N,
 *    "warnings": {"kind": count, ...},
 *    "diagnostics": [{"severity": "error" | "warning", "code": N, "id": "ident",
 *                     "count": N}, ...],
 *    "threads": N, "samples": N,
 *    "markers": N, "bytes_in": N, "bytes_out": N, "seconds": 0.123}
 * "diagnostics" is the machine-readable form: the error (if any), then each
 * kind of warning, with the stable codes and identifiers of
 * docs/diagnostics.md.  A last line says the shard's report is complete
 * (report merge --expect N counts these):
 *   {"version": "0.2.0", "shard": "2/3", "end": true, "inputs": N,
 *    "converted": N, "failed": N}
 */
#define _XOPEN_SOURCE 700 /* realpath() */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "cli.h"

struct item {
	const char *input;
	char *owned_input; /* a line of --inputs: freed at the end */
	char *output;
	/* while converting (under the batch lock): its ctx, and whether it writes */
	struct profconv_ctx *ctx;
	int writing;
	/* results */
	int done;
	int err;
	char *error;
	char *error_code;
	uint64_t error_offset;
	uint32_t error_line, error_col;
	char *format;
	char **warn_kinds;
	uint64_t *warn_counts;
	int *warn_codes; /* stable codes and identifiers (docs/diagnostics.md) */
	const char **warn_ids; /* static strings of the library */
	size_t nwarn;
	size_t threads, samples, markers;
	uint64_t bytes_in, bytes_out;
	double seconds;
};

struct batch {
	const struct cli_settings *s;
	const char *report; /* --report FILE, or NULL */
	FILE *report_f;	    /* opened before the first conversion */
	const char *shard;  /* "K/N" */
	struct item **todo; /* this shard's items, in input order */
	size_t ntodo;
	size_t next, ndone;
	int progress;
	int stop;     /* a signal came: start no more inputs */
	int finished; /* every input is done: a signal now just ends the command */
	atomic_int caught; /* the signal the signal thread took, from sigwait() on */
	sigset_t sigs; /* the signals the signal thread takes */
	int busfwd;    /* the one of them SIGBUS is handed on as (cli_sigbus_forward()) */
	int map_inputs; /* PROFCONV_INPUT_MAP=1 and SIGBUS handled so: plain JSON inputs mapped */
	time_t started;
	pthread_mutex_t lock;
	/* symbol files opened once for all the conversions (NULL: none) */
	struct profconv_symcache *symcache;
	int no_threads; /* the jobs fill the CPUs: conversions start no threads */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		fputs("profconv: out of memory\n", stderr);
		exit(1);
	}
	return d;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("profconv: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* --- names --- */

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && strncmp(s + len - n, suffix, n) == 0;
}

/* The output file name for input (without the -N of a clash), malloc'd. */
static char *base_name(const char *input)
{
	static const char *const comp[] = { ".gz", ".zst", ".xz", ".bz2", ".lz4", ".tar", ".zip" };
	const char *slash = strrchr(input, '/');
	const char *b = slash ? slash + 1 : input;
	size_t len = strlen(b), i;
	char *out;

	for (i = 0; i < sizeof(comp) / sizeof(comp[0]); i++)
		if (ends_with(b, len, comp[i]))
			len -= strlen(comp[i]);
	/* then the last extension, if the name is more than one */
	for (i = len; i > 1; i--) {
		if (b[i - 1] == '.') {
			len = i - 1;
			break;
		}
	}
	if (len == 0) {
		b = "profile";
		len = strlen(b);
	}
	out = xrealloc(NULL, len + 1);
	memcpy(out, b, len);
	out[len] = 0;
	return out;
}

/* The output suffix: .json, or .json.gz / .json.zst with --compress. */
static const char *out_suffix(const struct cli_settings *s)
{
	const char *c = NULL;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], "compress") == 0)
			c = s->values[i];
	if (c && strcmp(c, "gzip") == 0)
		return ".json.gz";
	if (c && strcmp(c, "zstd") == 0)
		return ".json.zst";
	return ".json";
}

/* OUTDIR/NAME[-K].json for every item, unique in the whole list. */
static void name_outputs(struct item *items, size_t n, const char *outdir, const char *suffix)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		char *b = base_name(items[i].input);
		size_t cap = strlen(outdir) + strlen(b) + 32;
		unsigned k;

		items[i].output = xrealloc(NULL, cap);
		for (k = 1;; k++) {
			if (k == 1)
				snprintf(items[i].output, cap, "%s/%s%s", outdir, b, suffix);
			else
				snprintf(items[i].output, cap, "%s/%s-%u%s", outdir, b, k, suffix);
			for (j = 0; j < i && strcmp(items[j].output, items[i].output) != 0; j++)
				;
			if (j == i)
				break;
		}
		free(b);
	}
}

/* --- sharding --- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* "K/N" with 1 <= K <= N. */
static int parse_shard(const char *s, unsigned long *k, unsigned long *n)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	*k = strtoul(s, &end, 10);
	if (errno || *end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	*n = strtoul(end + 1, &end, 10);
	if (errno || *end || *n == 0 || *k == 0 || *k > *n)
		return -1;
	return 0;
}

/* --- conversion --- */

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void batch_diag(void *user, const struct profconv_diag *d)
{
	const struct cli_settings *s = user;
	enum profconv_severity sev = d->severity;
	const char *msg = d->message;

	/* an input's error is printed once, by convert_one() */
	if (sev == PROFCONV_ERROR && d->code != PROFCONV_ERR_INVALID)
		return;
	if ((sev == PROFCONV_WARNING && s->quiet) || (sev == PROFCONV_NOTE && !s->verbose))
		return;
	pthread_mutex_lock(&print_lock);
	cli_progress_clear();
	fprintf(stderr, "profconv: %s: %s\n",
		sev == PROFCONV_NOTE ? "note" : sev == PROFCONV_WARNING ? "warning" : "error", msg);
	pthread_mutex_unlock(&print_lock);
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* An input refused before it is read: the reason, printed and kept for the report. */
static void refuse(struct item *it, struct profconv_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void refuse(struct item *it, struct profconv_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	it->error = xrealloc(NULL, (size_t)(n > 0 ? n : 0) + 1);
	va_start(ap, fmt);
	vsnprintf(it->error, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	va_end(ap);
	it->err = PROFCONV_ERR_USAGE;
	it->error_code = xstrdup(profconv_strerror(it->err));
	it->error_offset = UINT64_MAX;
	pthread_mutex_lock(&print_lock);
	cli_progress_clear();
	fprintf(stderr, "profconv: error: %s\n", it->error);
	pthread_mutex_unlock(&print_lock);
	profconv_ctx_free(ctx);
}

static void convert_one(struct batch *b, struct item *it, int first)
{
	const struct cli_settings *s = b->s;
	struct profconv_ctx *ctx = cli_ctx_new(s);
	struct profconv_profile *p = NULL;
	struct stat st;
	double t0 = now();
	size_t i;
	int err;

	if (!ctx) {
		it->err = PROFCONV_ERR_NOMEM;
		it->error = xstrdup("out of memory");
		it->error_code = xstrdup(profconv_strerror(it->err));
		return;
	}
	profconv_set_diagnostics(ctx, batch_diag, (void *)s);
	if (b->symcache)
		profconv_ctx_share_symbols(ctx, b->symcache);
	/*
	 * The batch's first conversion keeps its threads: it opens the symbol
	 * files every other conversion then takes from the cache, and the
	 * other jobs wait for them meanwhile, so its prefetch and its lookup
	 * worker open two sources at once (kallsyms and libc's DWARF, say) on
	 * CPUs that would be idle.  The output does not depend on the threads.
	 */
	if (b->no_threads && !first)
		profconv_set_option(ctx, "threads", "no");
	if (stat(it->input, &st) == 0) {
		it->bytes_in = (uint64_t)st.st_size;
		/* a FIFO (or a device) would block this worker, or never end */
		if (!S_ISREG(st.st_mode)) {
			refuse(it, ctx, "%s: not a regular file (%s); batch inputs must be files",
			       it->input, S_ISFIFO(st.st_mode) ? "a FIFO" :
				       S_ISDIR(st.st_mode)  ? "a directory" :
				       S_ISSOCK(st.st_mode) ? "a socket" :
							      "a device");
			return;
		}
	}
	if (same_file(it->input, it->output)) {
		refuse(it, ctx, "%s: is also the output %s; not converted", it->input, it->output);
		return;
	}
	if (b->map_inputs)
		profconv_set_option(ctx, "input-map", "yes");
	pthread_mutex_lock(&b->lock);
	it->ctx = ctx;
	pthread_mutex_unlock(&b->lock);
	err = profconv_read_path(ctx, it->input, &p);
	if (!err) {
		pthread_mutex_lock(&b->lock);
		it->writing = 1;
		pthread_mutex_unlock(&b->lock);
		err = profconv_write_path(ctx, p, s->to, it->output);
	}
	if (p) {
		struct profconv_meta meta = PROFCONV_INIT(struct profconv_meta);

		profconv_profile_meta(p, &meta);
		it->format = xstrdup(meta.input_format);
	}
	if (!err) {
		for (i = 0; i < profconv_profile_thread_count(p); i++) {
			struct profconv_thread t = PROFCONV_INIT(struct profconv_thread);

			if (profconv_profile_thread(p, i, &t) == PROFCONV_OK) {
				it->samples += t.samples;
				it->markers += t.markers;
			}
		}
		it->threads = profconv_profile_thread_count(p);
		if (stat(it->output, &st) == 0)
			it->bytes_out = (uint64_t)st.st_size;
	} else {
		struct profconv_diag d = PROFCONV_INIT(struct profconv_diag);

		profconv_last_error(ctx, &d);
		it->error = xstrdup(profconv_errmsg(ctx));
		it->error_code = xstrdup(profconv_strerror(err));
		it->error_offset = d.offset;
		it->error_line = d.line;
		it->error_col = d.column;
		pthread_mutex_lock(&print_lock);
		cli_progress_clear();
		fprintf(stderr, "profconv: error: %s\n", profconv_errmsg(ctx));
		pthread_mutex_unlock(&print_lock);
	}
	it->err = err;
	for (i = 0;; i++) {
		struct profconv_warning w = PROFCONV_INIT(struct profconv_warning);

		if (profconv_warning_get(ctx, i, &w) != PROFCONV_OK)
			break;
		it->warn_kinds = xrealloc(it->warn_kinds, (i + 1) * sizeof(*it->warn_kinds));
		it->warn_counts = xrealloc(it->warn_counts, (i + 1) * sizeof(*it->warn_counts));
		it->warn_codes = xrealloc(it->warn_codes, (i + 1) * sizeof(*it->warn_codes));
		it->warn_ids = xrealloc(it->warn_ids, (i + 1) * sizeof(*it->warn_ids));
		it->warn_kinds[i] = xstrdup(w.kind);
		it->warn_counts[i] = w.count;
		it->warn_codes[i] = w.code;
		it->warn_ids[i] = w.id;
		it->nwarn = i + 1;
	}
	profconv_profile_free(p);
	pthread_mutex_lock(&b->lock);
	it->ctx = NULL;
	it->writing = 0;
	pthread_mutex_unlock(&b->lock);
	profconv_ctx_free(ctx);
	it->seconds = now() - t0;
}

/* Has one of the batch's signals come (taken, or still pending)? */
static int signal_came(struct batch *b)
{
	sigset_t pend;
	int sig;

	if (atomic_load(&b->caught))
		return 1;
	if (sigpending(&pend) != 0)
		return 0;
	for (sig = 1; sig < 32; sig++)
		if (sigismember(&b->sigs, sig) == 1 && sigismember(&pend, sig) == 1)
			return 1;
	return 0;
}

static void *worker(void *arg)
{
	struct batch *b = arg;

	for (;;) {
		struct item *it;
		int first;

		pthread_mutex_lock(&b->lock);
		/* a signal stops the batch: no input is started after it */
		if (b->next == b->ntodo || b->stop || signal_came(b)) {
			pthread_mutex_unlock(&b->lock);
			return NULL;
		}
		first = b->next == 0;
		it = b->todo[b->next++];
		pthread_mutex_unlock(&b->lock);

		convert_one(b, it, first);

		pthread_mutex_lock(&b->lock);
		it->done = 1;
		b->ndone++;
		if (b->progress) {
			pthread_mutex_lock(&print_lock);
			cli_progress_files(b->ndone, b->ntodo, it->input);
			pthread_mutex_unlock(&print_lock);
		}
		pthread_mutex_unlock(&b->lock);
	}
}

/* --- the report --- */

static void json_u64_or_null(FILE *f, const char *key, uint64_t v, int present)
{
	fprintf(f, ", \"%s\": ", key);
	if (present)
		fprintf(f, "%llu", (unsigned long long)v);
	else
		fputs("null", f);
}

static void report_line(FILE *f, const struct item *it, const char *shard)
{
	size_t i;

	fputs("{\"version\": ", f);
	cli_json_str(f, profconv_version_string());
	fputs(", \"shard\": ", f);
	cli_json_str(f, shard);
	fputs(", \"input\": ", f);
	cli_json_str(f, it->input);
	fputs(", \"output\": ", f);
	if (it->err)
		fputs("null", f);
	else
		cli_json_str(f, it->output);
	fputs(", \"format\": ", f);
	if (it->format)
		cli_json_str(f, it->format);
	else
		fputs("null", f);
	fprintf(f, ", \"status\": \"%s\", \"error\": ", it->err ? "failed" : "ok");
	if (it->err)
		cli_json_str(f, it->error);
	else
		fputs("null", f);
	fputs(", \"error_code\": ", f);
	if (it->err)
		cli_json_str(f, it->error_code);
	else
		fputs("null", f);
	json_u64_or_null(f, "error_offset", it->error_offset,
			 it->err && it->error_offset != UINT64_MAX);
	json_u64_or_null(f, "error_line", it->error_line, it->err && it->error_line);
	json_u64_or_null(f, "error_column", it->error_col, it->err && it->error_line);
	fputs(", \"warnings\": {", f);
	for (i = 0; i < it->nwarn; i++) {
		fputs(i ? ", " : "", f);
		cli_json_str(f, it->warn_kinds[i]);
		fprintf(f, ": %llu", (unsigned long long)it->warn_counts[i]);
	}
	fputs("}, \"diagnostics\": [", f);
	if (it->err) {
		const char *id = profconv_code_id(it->err);

		fprintf(f, "{\"severity\": \"error\", \"code\": %d, \"id\": ", it->err);
		cli_json_str(f, id ? id : "unknown");
		fputs(", \"count\": 1}", f);
	}
	for (i = 0; i < it->nwarn; i++) {
		fprintf(f, "%s{\"severity\": \"warning\", \"code\": %d, \"id\": ",
			i || it->err ? ", " : "", it->warn_codes[i]);
		cli_json_str(f, it->warn_ids[i]);
		fprintf(f, ", \"count\": %llu}", (unsigned long long)it->warn_counts[i]);
	}
	fprintf(f, "], \"threads\": %zu, \"samples\": %zu, \"markers\": %zu", it->threads,
		it->samples, it->markers);
	fprintf(f, ", \"bytes_in\": %llu, \"bytes_out\": %llu, \"seconds\": %.3f}\n",
		(unsigned long long)it->bytes_in, (unsigned long long)it->bytes_out, it->seconds);
}

/* The report, opened before anything is converted. */
static FILE *open_report(const char *path, const struct item *items, size_t n)
{
	FILE *f;
	size_t i;

	if (strcmp(path, "-") == 0)
		return stdout;
	for (i = 0; i < n; i++) {
		if (same_file(path, items[i].input)) {
			fprintf(stderr, "profconv: error: --report %s: is also an input; nothing converted\n",
				path);
			return NULL;
		}
	}
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr,
			"profconv: error: --report %s: cannot write the report: %s; nothing converted\n",
			path, strerror(errno));
	return f;
}

/*
 * The report's lines, then its end line; with done_only (a signal stopped
 * the batch) the lines of the inputs that finished and no end line, so
 * report merge --expect sees that the shard did not finish.
 */
static int write_report(FILE *f, const char *path, struct item **todo, size_t n,
			const char *shard, int done_only)
{
	size_t i, ok = 0;
	int bad;

	for (i = 0; i < n; i++) {
		if (done_only && !todo[i]->done)
			continue;
		report_line(f, todo[i], shard);
		ok += !todo[i]->err;
	}
	if (!done_only) {
		fputs("{\"version\": ", f);
		cli_json_str(f, profconv_version_string());
		fputs(", \"shard\": ", f);
		cli_json_str(f, shard);
		fprintf(f, ", \"end\": true, \"inputs\": %zu, \"converted\": %zu, \"failed\": %zu}\n",
			n, ok, n - ok);
	}
	bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	if (bad)
		fprintf(stderr, "profconv: error: %s: writing the report failed\n", path);
	return bad ? 1 : 0;
}

/* --- signals --- */

/*
 * Remove the temporary output of a conversion in progress: the path the
 * library says it writes (profconv_pending_output()), when it is whole: the
 * output's real path, ".tmp-" and six characters.  The worker may be
 * setting it right now (mkstemp() done, the name not yet stored): then the
 * output's folder is searched for that name pattern, made by this user
 * since the batch started.
 */
static void remove_temporary(const struct batch *b, const struct item *it)
{
	const char *pend = profconv_pending_output(it->ctx);
	char final[PATH_MAX], dir[PATH_MAX];
	const char *base;
	size_t n, blen;
	DIR *d;
	struct dirent *e;

	if (!realpath(it->output, final)) {
		if (strlen(it->output) >= sizeof(final))
			return;
		strcpy(final, it->output); /* not there yet: as output.c names it */
	}
	n = strlen(final);
	if (strlen(pend) == n + 11 && strncmp(pend, final, n) == 0 &&
	    strncmp(pend + n, ".tmp-", 5) == 0) {
		unlink(pend);
		return;
	}
	base = strrchr(final, '/');
	if (base) {
		snprintf(dir, sizeof(dir), "%.*s", base == final ? 1 : (int)(base - final), final);
		base++;
	} else {
		strcpy(dir, ".");
		base = final;
	}
	blen = strlen(base);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		struct stat st;

		if (strlen(e->d_name) != blen + 11 || strncmp(e->d_name, base, blen) != 0 ||
		    strncmp(e->d_name + blen, ".tmp-", 5) != 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    st.st_mtime >= b->started)
			unlink(path);
	}
	closedir(d);
}

/*
 * SIGBUS, handed on by the thread that faulted (cli_sigbus_forward()): an
 * input cut short while a conversion read it through a mapping.  The error
 * names the inputs in progress (which one faulted is not known here), the
 * temporary files are removed and the report written as for the other
 * signals, and the command exits 1.  Called with the lock held.
 */
static void bus_stop(struct batch *b)
{
	size_t i, done = 0, busy = 0;

	pthread_mutex_lock(&print_lock);
	cli_progress_clear();
	fputs("profconv: error: ", stderr);
	for (i = 0; i < b->ntodo; i++) {
		const struct item *it = b->todo[i];

		if (!b->finished && it->ctx) {
			fprintf(stderr, "%s%s", busy++ ? " or " : "", it->input);
			if (it->writing)
				remove_temporary(b, it);
		}
		done += it->done;
	}
	fprintf(stderr, "%san input file changed (was cut short) while it was read through a mapping\n",
		busy ? ": " : "");
	if (!b->finished) {
		fprintf(stderr, "profconv: stopped: %zu of %zu inputs finished%s\n", done, b->ntodo,
			b->report ? "; the report lists them" : "");
		if (b->report_f)
			write_report(b->report_f, b->report, b->todo, b->ntodo, b->shard, 1);
	}
	fflush(stderr);
	_exit(1);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* The thread that takes the batch's signals (blocked in every other thread). */
static void *signal_thread(void *arg)
{
	struct batch *b = arg;
	sigset_t set;
	size_t i, done = 0;
	int sig = 0;

	while (sigwait(&b->sigs, &sig) != 0)
		;
	atomic_store(&b->caught, sig);
	pthread_mutex_lock(&b->lock); /* held till the end: no worker starts or ends an input */
	if (sig == b->busfwd)
		bus_stop(b);
	if (b->finished)
		goto die; /* the report is being written: the signal's default action */
	b->stop = 1;
	for (i = 0; i < b->ntodo; i++) {
		if (b->todo[i]->ctx && b->todo[i]->writing)
			remove_temporary(b, b->todo[i]);
		done += b->todo[i]->done;
	}
	pthread_mutex_lock(&print_lock);
	cli_progress_clear();
	fprintf(stderr, "profconv: stopped by %s: %zu of %zu inputs finished%s\n", signal_name(sig),
		done, b->ntodo, b->report ? "; the report lists them" : "");
	if (b->report_f)
		write_report(b->report_f, b->report, b->todo, b->ntodo, b->shard, 1);
	fflush(stderr);
die:
	/* die of the signal, as without this thread */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig); /* not reached */
}

/* --- the list --- */

static void add_input(struct item **items, size_t *n, size_t *cap, const char *path)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*items = xrealloc(*items, *cap * sizeof(**items));
	}
	memset(&(*items)[*n], 0, sizeof(**items));
	(*items)[*n].input = path;
	(*n)++;
}

/* The lines of --inputs FILE (or -): one path each, empty lines skipped. */
static int read_list(const char *file, struct item **items, size_t *n, size_t *cap)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;

	if (!f) {
		fprintf(stderr, "profconv: error: --inputs %s: %s\n", file, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &lcap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (len == 0)
			continue;
		add_input(items, n, cap, NULL);
		(*items)[*n - 1].owned_input = xstrdup(line);
		(*items)[*n - 1].input = (*items)[*n - 1].owned_input;
	}
	free(line);
	if (ferror(f)) {
		fprintf(stderr, "profconv: error: --inputs %s: read failed\n", file);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

int cli_batch_run(const struct cli_settings *s, const struct cli_batch *b, char **inputs,
		  int ninputs)
{
	struct item *items = NULL;
	size_t n = 0, cap = 0, i, ok = 0, warned = 0;
	unsigned long sk = 1, sn = 1;
	/* static: the signal thread uses them until the command ends (one batch a run) */
	static struct batch bt;
	static char shard[64];
	struct stat st;
	pthread_t *th, sigth;
	int have_sigth, stopping;
	FILE *report = NULL;
	unsigned jobs = b->jobs, started = 0;
	uint64_t in_total = 0, out_total = 0;
	double t0 = now();
	int rc = 0;

	if (b->shard && parse_shard(b->shard, &sk, &sn)) {
		fprintf(stderr, "profconv: --shard takes K/N with 1 <= K <= N, not '%s'\n", b->shard);
		return 2;
	}
	for (i = 0; i < (size_t)ninputs; i++)
		add_input(&items, &n, &cap, inputs[i]);
	if (b->inputs_file && read_list(b->inputs_file, &items, &n, &cap)) {
		for (i = 0; i < n; i++)
			free(items[i].owned_input);
		free(items);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(items[i].input, "-") == 0) {
			fputs("profconv: batch inputs are files; - (standard input) is not one\n",
			      stderr);
			for (i = 0; i < n; i++)
				free(items[i].owned_input);
			free(items);
			return 2;
		}
	}
	if (b->report && !(report = open_report(b->report, items, n))) {
		for (i = 0; i < n; i++)
			free(items[i].owned_input);
		free(items);
		return 1;
	}
	/* OUTDIR is made if missing (not its parents) */
	if (stat(b->outdir, &st) == 0 ? !S_ISDIR(st.st_mode) :
					 mkdir(b->outdir, 0777) != 0 && errno != EEXIST) {
		int e = errno;

		fprintf(stderr, "profconv: error: -O %s: %s\n", b->outdir,
			stat(b->outdir, &st) == 0 ? "not a directory" : strerror(e));
		if (report && report != stdout) {
			fclose(report);
			unlink(b->report);
		}
		for (i = 0; i < n; i++)
			free(items[i].owned_input);
		free(items);
		return 1;
	}
	snprintf(shard, sizeof(shard), "%lu/%lu", sk, sn);
	name_outputs(items, n, b->outdir, out_suffix(s));

	memset(&bt, 0, sizeof(bt));
	bt.s = s;
	bt.report = b->report;
	bt.report_f = report;
	bt.shard = shard;
	bt.started = time(NULL);
	bt.todo = xrealloc(NULL, (n ? n : 1) * sizeof(*bt.todo));
	for (i = 0; i < n; i++)
		if (fnv1a(items[i].input) % sn == sk - 1)
			bt.todo[bt.ntodo++] = &items[i];
	bt.progress = cli_progress_enabled(s);
	pthread_mutex_init(&bt.lock, NULL);
	/* no cache is only slower: every conversion opens its own */
	if (profconv_symcache_new(&bt.symcache) != PROFCONV_OK)
		bt.symcache = NULL;
	if (jobs == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = c > 0 ? (unsigned)c : 1;
	}
	if (jobs > bt.ntodo)
		jobs = bt.ntodo ? (unsigned)bt.ntodo : 1;
	/*
	 * When the jobs alone keep every CPU busy, a conversion's own helper
	 * threads (symbol prefetch, output writer, ...) only add switches:
	 * each conversion then runs on its job's thread (the same output).
	 */
	{
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		bt.no_threads = jobs > 1 && c > 0 && jobs >= (unsigned long)c;
	}
	th = xrealloc(NULL, jobs * sizeof(*th));
	/*
	 * the signals go to a thread of their own: blocked here and in every
	 * thread made here.  One ignored (nohup) stays ignored: a blocked
	 * signal would be queued for sigwait() even so.
	 */
	sigemptyset(&bt.sigs);
	for (i = 0; i < 3; i++) {
		static const int handled[] = { SIGINT, SIGTERM, SIGHUP };
		struct sigaction sa;

		if (sigaction(handled[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&bt.sigs, handled[i]);
	}
	/* and SIGBUS, handed on by the thread that faulted (main.c's on_sigbus()) */
	bt.busfwd = SIGRTMIN;
	sigaddset(&bt.sigs, bt.busfwd);
	pthread_sigmask(SIG_BLOCK, &bt.sigs, NULL);
	{
		/* a SIGBUS sent to the process is not the signal thread's to
		 * handle: it would wait in the handler for itself */
		sigset_t bus;

		sigemptyset(&bus);
		sigaddset(&bus, SIGBUS);
		pthread_sigmask(SIG_BLOCK, &bus, NULL);
		have_sigth = pthread_create(&sigth, NULL, signal_thread, &bt) == 0;
		pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
	}
	bt.map_inputs = have_sigth && cli_input_map();
	if (have_sigth)
		cli_sigbus_forward(bt.busfwd);
	else
		pthread_sigmask(SIG_UNBLOCK, &bt.sigs, NULL); /* no thread: as by default */
	for (i = 1; i < jobs; i++)
		if (pthread_create(&th[started], NULL, worker, &bt) == 0)
			started++;
	worker(&bt); /* this thread is one of the workers */
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	/*
	 * The signal thread stays in sigwait() (the signals stay blocked here)
	 * until the command ends: a signal from now on ends it at once, as by
	 * default.  (Cancelling the thread could lose a signal it has just
	 * taken.)  A signal being handled holds the lock and ends the process.
	 */
	cli_sigbus_forward(0); /* nothing is read any more */
	pthread_mutex_lock(&bt.lock);
	stopping = have_sigth && signal_came(&bt);
	bt.finished = !stopping;
	pthread_mutex_unlock(&bt.lock);
	if (stopping)
		pthread_join(sigth, NULL); /* it ends the process (a signal came before the end) */
	if (have_sigth)
		pthread_detach(sigth);
	/* the cache is freed at the end (the signal thread may still end the process) */
	cli_progress_clear();

	for (i = 0; i < bt.ntodo; i++) {
		const struct item *it = bt.todo[i];

		in_total += it->bytes_in;
		out_total += it->bytes_out;
		if (!it->err) {
			ok++;
			warned += it->nwarn > 0;
		}
	}
	if (report && write_report(report, b->report, bt.todo, bt.ntodo, shard, 0))
		rc = 1;
	if (!s->quiet || ok != bt.ntodo)
		fprintf(stderr,
			"profconv: %zu inputs%s%s: %zu converted (%zu with warnings), %zu failed; %.1f MiB in, %.1f MiB out, %.2f s\n",
			bt.ntodo, b->shard ? " in shard " : "", b->shard ? b->shard : "", ok, warned,
			bt.ntodo - ok, (double)in_total / 1048576.0, (double)out_total / 1048576.0,
			now() - t0);
	if (ok != bt.ntodo)
		rc = 1;
	for (i = 0; i < n; i++) {
		size_t k;

		free(items[i].output);
		free(items[i].owned_input);
		free(items[i].error);
		free(items[i].error_code);
		free(items[i].format);
		for (k = 0; k < items[i].nwarn; k++)
			free(items[i].warn_kinds[k]);
		free(items[i].warn_kinds);
		free(items[i].warn_counts);
		free(items[i].warn_codes);
		free(items[i].warn_ids);
	}
	profconv_symcache_free(bt.symcache);
	bt.symcache = NULL;
	free(bt.todo);
	free(items);
	return rc;
}

/* --- report merge --- */

/* A shard "K/N" of an end line, 1 <= K <= N. */
static int end_shard(const cJSON *j, unsigned long *k, unsigned long *n)
{
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(j, "shard");

	return cJSON_IsString(sh) ? parse_shard(sh->valuestring, k, n) : -1;
}

/*
 * profconv report merge [--expect N] R1.jsonl R2.jsonl ... [-o OUT]: the
 * lines of every report, in the order given, to OUT (default standard
 * output), and a summary on stderr.  A line that is not a report line, an
 * input that two reports both list, a shard whose end line two reports both
 * have, and any failed input are errors (exit 1).  With --expect N, so is a
 * shard of 1..N whose report (its end line) is missing, or a report of a
 * shard of another count.  OUT may not be one of the reports: it is
 * refused before anything is opened for writing (exit 2).
 */
int cli_report(const struct cli_settings *s, const char *output, unsigned expect, int argc,
	       char **argv)
{
	FILE *out;
	char **seen = NULL;
	unsigned char *have = NULL; /* have[K-1]: shard K's end line seen (--expect) */
	size_t nseen = 0, capseen = 0, ok = 0, failed = 0, dup = 0, bad = 0, k;
	size_t ends = 0, missing = 0, other = 0;
	char *line = NULL;
	size_t lcap = 0;
	int i, rc = 0;

	if (argc < 2 || strcmp(argv[0], "merge") != 0) {
		fputs("profconv: usage: profconv report merge [--expect N] REPORT.jsonl... [-o OUT]. "
		      "Try 'profconv --help'.\n",
		      stderr);
		return 2;
	}
	/* -o onto one of the reports would truncate it before it is read */
	for (i = 1; output && strcmp(output, "-") != 0 && i < argc; i++)
		if (same_file(argv[i], output)) {
			fprintf(stderr,
				"profconv: error: -o %s: is also the report %s; nothing merged (write the merge elsewhere)\n",
				output, argv[i]);
			return 2;
		}
	if (expect)
		have = calloc(expect, 1);
	if (expect && !have) {
		fputs("profconv: out of memory\n", stderr);
		return 1;
	}
	out = !output || strcmp(output, "-") == 0 ? stdout : fopen(output, "w");
	if (!out) {
		fprintf(stderr, "profconv: error: %s: %s\n", output, strerror(errno));
		free(have);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		unsigned long lineno = 0;
		ssize_t len;

		if (!f) {
			fprintf(stderr, "profconv: error: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		while ((len = getline(&line, &lcap, f)) >= 0) {
			cJSON *j, *in, *st;
			unsigned long sk, sn;

			lineno++;
			if (len == 0 || line[0] == '\n')
				continue;
			j = cJSON_Parse(line);
			if (cJSON_IsTrue(j ? cJSON_GetObjectItemCaseSensitive(j, "end") : NULL)) {
				/* a shard's end line: its report is complete */
				if (end_shard(j, &sk, &sn)) {
					fprintf(stderr,
						"profconv: error: %s:%lu: expected \"shard\": \"K/N\" in an end line\n",
						argv[i], lineno);
					bad++;
				} else if (expect && sn != expect) {
					fprintf(stderr,
						"profconv: error: %s:%lu: the report of shard %lu/%lu, not of one of %u shards\n",
						argv[i], lineno, sk, sn, expect);
					other++;
				} else if (expect && have[sk - 1]) {
					fprintf(stderr,
						"profconv: error: %s:%lu: shard %lu/%lu is in two reports\n",
						argv[i], lineno, sk, sn);
					dup++;
				} else {
					if (expect)
						have[sk - 1] = 1;
					ends++;
				}
				goto copy;
			}
			in = j ? cJSON_GetObjectItemCaseSensitive(j, "input") : NULL;
			st = j ? cJSON_GetObjectItemCaseSensitive(j, "status") : NULL;
			if (!cJSON_IsString(in) || !cJSON_IsString(st)) {
				fprintf(stderr,
					"profconv: error: %s:%lu: expected a report line (a JSON object with \"input\" and \"status\")\n",
					argv[i], lineno);
				bad++;
				cJSON_Delete(j);
				continue;
			}
			for (k = 0; k < nseen && strcmp(seen[k], in->valuestring) != 0; k++)
				;
			if (k < nseen) {
				fprintf(stderr, "profconv: error: %s:%lu: %s is in two reports\n",
					argv[i], lineno, in->valuestring);
				dup++;
			} else {
				if (nseen == capseen) {
					capseen = capseen ? capseen * 2 : 64;
					seen = xrealloc(seen, capseen * sizeof(*seen));
				}
				seen[nseen++] = xstrdup(in->valuestring);
				if (strcmp(st->valuestring, "ok") == 0)
					ok++;
				else
					failed++;
			}
copy:
			fputs(line, out);
			if (line[len - 1] != '\n')
				fputc('\n', out);
			cJSON_Delete(j);
		}
		fclose(f);
	}
	free(line);
	for (k = 0; k < expect; k++) {
		if (!have[k]) {
			fprintf(stderr,
				"profconv: error: the report of shard %zu/%u is missing (none of the reports ends with its end line)\n",
				k + 1, expect);
			missing++;
		}
	}
	free(have);
	if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) {
		fprintf(stderr, "profconv: error: %s: write failed\n", output ? output : "<stdout>");
		rc = 1;
	}
	if (!s->quiet || failed || dup || bad || missing || other) {
		fprintf(stderr, "profconv: %d report%s", argc - 1, argc - 1 == 1 ? "" : "s");
		if (expect)
			fprintf(stderr, " (%zu of %u shards)", ends, expect);
		fprintf(stderr, ", %zu input%s: %zu converted, %zu failed", nseen, nseen == 1 ? "" : "s",
			ok, failed);
		if (dup)
			fprintf(stderr, "; %zu line%s repeat%s another report's", dup, dup == 1 ? "" : "s",
				dup == 1 ? "s" : "");
		if (bad)
			fprintf(stderr, "; %zu line%s unreadable", bad, bad == 1 ? "" : "s");
		if (other)
			fprintf(stderr, "; %zu report%s of another shard count", other,
				other == 1 ? "" : "s");
		if (missing)
			fprintf(stderr, "; %zu shard%s missing", missing, missing == 1 ? "" : "s");
		fputc('\n', stderr);
	}
	for (k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	return rc || failed || dup || bad || missing || other ? 1 : 0;
}

/* --- JSON strings --- */

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

void cli_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}
