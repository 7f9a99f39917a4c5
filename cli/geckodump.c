/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * geckodump.c - `profconv gecko-dump PID -o FILE.pgkb` (a running Firefox
 * process, profconv_gecko_dump_pid()) and `profconv gecko-dump --from-scrape
 * PREFIX -o FILE.pgkb` (a memory scrape's files,
 * profconv_gecko_dump_scrape()): a PGKB dump of Firefox's profiler buffer
 * (docs/formats/gecko-buffer-dump.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void usage(FILE *f)
{
	fputs("usage: profconv gecko-dump PID -o FILE.pgkb [options]\n"
	      "       profconv gecko-dump --from-scrape PREFIX -o FILE.pgkb [options]\n"
	      "  PID                      a running Firefox process with the profiler on:\n"
	      "                           stopped while its memory is read, then continued\n"
	      "                           (needs root or CAP_SYS_PTRACE)\n"
	      "  --from-scrape PREFIX     PREFIX.chunks[.xz] and its side files\n"
	      "                           (.strings.json .threads .maps .tagmap.json)\n"
	      "  -o, --output FILE        the dump to write\n"
	      "  --process-start-ns N     raw CLOCK_MONOTONIC ns of the process start\n"
	      "                           (startTimeAsClockMonotonicNanosecondsSinceBoot)\n"
	      "  --start-time-ms T        wall clock of the process start (meta.startTime)\n"
	      "  --interval-ms T          the sampling interval\n"
	      "  --strict                 make warnings fatal\n"
	      "  -q, --quiet  -v, --verbose\n",
	      f);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_dbl(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= 0))
		return -1;
	*out = v;
	return 0;
}

int cli_gecko_dump(int argc, char **argv)
{
	enum { OPT_SCRAPE = 256, OPT_START_NS, OPT_START_MS, OPT_INTERVAL, OPT_STRICT };
	static const struct option opts[] = {
		{ "from-scrape", required_argument, NULL, OPT_SCRAPE },
		{ "output", required_argument, NULL, 'o' },
		{ "process-start-ns", required_argument, NULL, OPT_START_NS },
		{ "start-time-ms", required_argument, NULL, OPT_START_MS },
		{ "interval-ms", required_argument, NULL, OPT_INTERVAL },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profconv_gecko_scrape_opts go;
	struct cli_settings st;
	struct profconv_ctx *ctx;
	const char *prefix = NULL, *output = NULL;
	int c, rc;

	memset(&go, 0, sizeof(go));
	go.size = sizeof(go);
	memset(&st, 0, sizeof(st));
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SCRAPE:
			prefix = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_START_NS:
			if (parse_u64(optarg, &go.process_start_ns)) {
				fprintf(stderr, "profconv: --process-start-ns: not a number: %s\n",
					optarg);
				return 2;
			}
			break;
		case OPT_START_MS:
		case OPT_INTERVAL:
			if (parse_dbl(optarg, c == OPT_START_MS ? &go.start_time_ms
								 : &go.interval_ms)) {
				fprintf(stderr, "profconv: %s: not a number: %s\n",
					c == OPT_START_MS ? "--start-time-ms" : "--interval-ms",
					optarg);
				return 2;
			}
			break;
		case OPT_STRICT:
			st.strict = 1;
			break;
		case 'q':
			st.quiet = 1;
			break;
		case 'v':
			st.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	{
		uint64_t pid = 0;

		if (!output || (prefix ? optind != argc : optind != argc - 1) ||
		    (!prefix && (parse_u64(argv[optind], &pid) || pid == 0 || pid > 0x7fffffff))) {
			usage(stderr);
			return 2;
		}
		ctx = cli_ctx_new(&st);
		if (!ctx)
			return 1;
		cli_cleanup_on_signals(ctx); /* the dump's temporary file */
		rc = prefix ? profconv_gecko_dump_scrape(ctx, prefix, &go, output)
			    : profconv_gecko_dump_pid(ctx, (int)pid, &go, output);
		/* a usage error (the output is an input, the pid is profconv's own) exits 2 */
		if (rc)
			rc = cli_fail(ctx) && rc == PROFCONV_ERR_USAGE ? 2 : 1;
	}
	profconv_ctx_free(ctx);
	return rc;
}
