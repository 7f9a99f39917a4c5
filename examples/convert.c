/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * convert.c - libprofconv in a few lines: read a profile (perf.data, or
 * "-" for standard input), print each thread's sample count, and write a
 * Firefox Profiler processed profile.  Uses only <profconv.h>.
 *
 *   usage: convert INPUT OUTPUT.json
 *
 * Build it against an installed profconv with the Makefile (pkg-config) or
 * the CMakeLists.txt (find_package) next to it; see README.md.
 */
#include <stdio.h>

#include <profconv.h>

/*
 * Diagnostics arrive here: notes (when verbose), the first warning of each
 * kind (recoverable damage in the input) and errors, each with a stable
 * code and identifier (docs/diagnostics.md).  The error a call fails with
 * is printed below from profconv_errmsg().
 */
static void on_diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	if (d->severity == PROFCONV_WARNING)
		fprintf(stderr, "convert: warning %d (%s): %s\n", d->code, d->id, d->message);
}

int main(int argc, char **argv)
{
	struct profconv_ctx *ctx;
	struct profconv_profile *p = NULL;
	size_t i, total = 0;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s INPUT OUTPUT.json\n", argv[0]);
		return 2;
	}
	ctx = profconv_ctx_new();
	if (!ctx) {
		fputs("convert: out of memory\n", stderr);
		return 1;
	}
	profconv_set_diagnostics(ctx, on_diag, NULL);

	err = profconv_read_path(ctx, argv[1], &p);
	if (err == PROFCONV_OK) {
		for (i = 0; i < profconv_profile_thread_count(p); i++) {
			/* every struct the library fills carries its size: set it first */
			struct profconv_thread t = PROFCONV_INIT(struct profconv_thread);

			if (profconv_profile_thread(p, i, &t) != PROFCONV_OK)
				break;
			printf("pid %lld tid %lld %-16s %zu samples\n", (long long)t.pid,
			       (long long)t.tid, t.name, t.samples);
			total += t.samples;
		}
		printf("total: %zu threads, %zu samples, %zu stacks, %zu frames, %zu libs\n",
		       profconv_profile_thread_count(p), total, profconv_profile_stack_count(p),
		       profconv_profile_frame_count(p), profconv_profile_lib_count(p));
		err = profconv_write_path(ctx, p, PROFCONV_OUT_PROCESSED, argv[2]);
	}
	if (err != PROFCONV_OK)
		fprintf(stderr, "convert: %s (%s)\n", profconv_errmsg(ctx), profconv_strerror(err));
	else if (profconv_warning_count(ctx))
		fprintf(stderr, "convert: warnings: %s\n", profconv_warning_summary(ctx));

	profconv_profile_free(p);
	profconv_ctx_free(ctx);
	return err == PROFCONV_OK ? 0 : 1;
}
