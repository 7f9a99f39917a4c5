/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli.h - what the command's files share: the settings parsed from the
 * command line, replayed onto every context a command creates (batch mode
 * makes one per input).
 */
#ifndef PC_CLI_H
#define PC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "profconv.h"

#define CLI_MAX_SETTINGS 128

struct cli_settings {
	/* profconv_set_option() calls, in command-line order */
	const char *keys[CLI_MAX_SETTINGS];
	const char *values[CLI_MAX_SETTINGS];
	size_t n;
	int strict, verbose, quiet;
	uint64_t max_memory; /* 0: the library's default */
	const char *to;	     /* output format */
};

/* A new context with s applied and the command's diagnostics printer; NULL
 * (after a message) on failure. */
struct profconv_ctx *cli_ctx_new(const struct cli_settings *s);
/* Print "profconv: error: MSG" for ctx's last error; returns 1. */
int cli_fail(struct profconv_ctx *ctx);

/* Batch mode: convert every input into outdir (batch.c). */
struct cli_batch {
	const char *outdir;
	const char *inputs_file; /* --inputs FILE or "-", or NULL */
	const char *report;	 /* --report FILE, or NULL */
	const char *shard;	 /* --shard K/N, or NULL */
	unsigned jobs;		 /* 0: the number of CPUs */
};
int cli_batch_run(const struct cli_settings *s, const struct cli_batch *b, char **inputs,
		  int ninputs);
/* profconv report merge R.jsonl... (batch.c) */
/* profconv report merge [--expect N] R.jsonl... (batch.c); expect 0: any shards */
int cli_report(const struct cli_settings *s, const char *output, unsigned expect, int argc,
	       char **argv);

/* profconv serve INPUT... and view INPUT (serve.c): serve until SIGINT/SIGTERM. */
#define CLI_MAX_SOURCE_MAPS 16
struct cli_serve {
	const char *host;   /* --host ADDR, NULL: 127.0.0.1 */
	unsigned port;	    /* --port N, 0: any free port */
	const char *origin; /* --origin URL of the front-end */
	int allow_remote;   /* --allow-remote: a --host that is not loopback */
	int no_open;
	unsigned timeout;   /* --timeout SEC: exit 1 if nothing fetched a profile by then */
	const char *source_maps[CLI_MAX_SOURCE_MAPS]; /* --source-map FROM=TO */
	size_t nsource_maps;
};
int cli_serve(const struct cli_settings *s, const struct cli_serve *o, char **inputs,
	      int ninputs);
/* profconv gecko-dump --from-scrape PREFIX -o FILE (geckodump.c); argv[0] is "gecko-dump". */
int cli_gecko_dump(int argc, char **argv);

/* Progress on a terminal (progress.c): a line on stderr, redrawn in place. */
int cli_progress_enabled(const struct cli_settings *s);
void cli_progress_bytes(void *user, uint64_t done, uint64_t total);
void cli_progress_files(size_t done, size_t total, const char *last);
void cli_progress_clear(void);

/*
 * SIGINT, SIGTERM and SIGHUP while ctx writes an output (main.c): remove its
 * temporary file (profconv_pending_output()), then die of the signal.  A
 * signal ignored when this is called (nohup) stays ignored.
 */
void cli_cleanup_on_signals(struct profconv_ctx *ctx);
/* An input cut short while mapped (SIGBUS): a message naming input (NULL:
 * "an input"), the temporary output removed, exit status 1. */
void cli_on_sigbus(const char *input);
/* Batch mode (batch.c): SIGBUS is handed on as signal sig, which the batch's
 * signal thread takes (it knows the conversions in progress); the thread
 * that faulted waits there.  0: handled as cli_on_sigbus() says. */
void cli_sigbus_forward(int sig);
/* Whether plain JSON inputs are read through mappings: PROFCONV_INPUT_MAP=1. */
int cli_input_map(void);

/* Write s as a JSON string (UTF-8 checked; invalid bytes become U+FFFD). */
void cli_json_str(FILE *f, const char *s);

#endif /* PC_CLI_H */
