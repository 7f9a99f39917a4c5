/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay.c - run fuzz inputs through a target without libFuzzer (the idea of
 * zstd's tests/regression_driver.c), so the corpus and every fixed crasher
 * stay regression tests under plain CTest and, in the sanitizer build, under
 * ASan and UBSan.
 *
 * usage: replay_perf PATH...
 *
 * Each PATH is a file or a directory; a directory contributes the regular
 * files directly inside it (not recursively, names starting with '.'
 * skipped), in name order so runs are repeatable.  Each file's bytes go to
 * LLVMFuzzerTestOneInput() once.  A target can only fail by crashing (or by
 * a sanitizer stopping the process), so the summary is always
 * "N passed, 0 failed"; exit status 2 means a path could not be read.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read path whole into a malloc'd buffer (never NULL on success, even when empty). */
static int slurp(const char *path, unsigned char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return -1;
	for (;;) {
		size_t got;

		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			unsigned char *b = realloc(buf, ncap);

			if (!b) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return -1;
			}
			buf = b;
			cap = ncap;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* exactly the file's size, so ASan sees a read past its end */
	{
		unsigned char *b = realloc(buf, n ? n : 1);

		if (b)
			buf = b;
	}
	*out = buf;
	*len = n;
	return 0;
}

static int run_file(const char *path, unsigned long *count)
{
	unsigned char *buf;
	size_t len;

	if (slurp(path, &buf, &len) != 0) {
		fprintf(stderr, "replay: %s: cannot read: %s\n", path, strerror(errno));
		return -1;
	}
	/* Tell which input is running: a crash report then names it. */
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	(*count)++;
	return 0;
}

static int run_dir(const char *dir, unsigned long *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: cannot open: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **nn = realloc(names, ncap * sizeof(*names));

			if (!nn) {
				err = -1;
				break;
			}
			names = nn;
			cap = ncap;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n]) {
			err = -1;
			break;
		}
		snprintf(names[n], strlen(dir) + strlen(e->d_name) + 2, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!err && stat(names[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    run_file(names[i], count) != 0)
			err = -1;
		free(names[i]);
	}
	free(names);
	if (err)
		fprintf(stderr, "replay: %s: could not run every file\n", dir);
	return err;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int i, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count) != 0)
				bad = 1;
		} else if (run_file(argv[i], &count) != 0) {
			bad = 1;
		}
	}
	printf("replayed %lu inputs\n", count);
	printf("%lu passed, 0 failed\n", count);
	return bad ? 2 : 0;
}
