/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * progress.c - a progress line on stderr when it is a terminal: bytes read
 * of a single conversion, or files done of a batch.  Redrawn in place with
 * \r and cleared before anything else is printed; never shown with --quiet
 * or when stderr is a file or a pipe (CI logs stay clean).
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static int shown;	     /* a progress line is on the screen */
static double last_draw;     /* seconds, monotonic */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cli_progress_enabled(const struct cli_settings *s)
{
	return !s->quiet && isatty(2);
}

/* At most 10 redraws a second, except the last one. */
static int throttle(int final)
{
	double t = now();

	if (!final && t - last_draw < 0.1)
		return 1;
	last_draw = t;
	return 0;
}

void cli_progress_bytes(void *user, uint64_t done, uint64_t total)
{
	const char *name = user;
	double mib = (double)done / 1048576.0;

	if (throttle(total && done >= total))
		return;
	if (total)
		fprintf(stderr, "\r\033[Kprofconv: reading %s: %3u%% (%.1f of %.1f MiB)", name,
			(unsigned)(done * 100 / total), mib, (double)total / 1048576.0);
	else
		fprintf(stderr, "\r\033[Kprofconv: reading %s: %.1f MiB", name, mib);
	shown = 1;
}

void cli_progress_files(size_t done, size_t total, const char *last)
{
	if (throttle(done == total))
		return;
	fprintf(stderr, "\r\033[Kprofconv: %zu/%zu files%s%s", done, total, last ? ", last " : "",
		last ? last : "");
	shown = 1;
}

void cli_progress_clear(void)
{
	if (shown)
		fputs("\r\033[K", stderr);
	shown = 0;
}
