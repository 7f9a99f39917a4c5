/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_test_locale.h - a locale whose decimal point is a comma, for the tests
 * that check a host application's locale cannot change our numbers.
 *
 * Many machines have no such locale installed (a Debian container has C,
 * C.utf8 and POSIX only), and a check that is skipped there proves nothing.
 * So one is made: localedef (part of glibc's libc-bin) compiles a small
 * LC_NUMERIC definition, with a two-character charmap of its own, into a
 * temporary directory, and newlocale() finds it there through LOCPATH; no
 * locale data of the host is read.  Only if that fails is an installed
 * de_DE or fr_FR tried, and only if none works does the caller skip, with a
 * message on stderr.
 *
 * Use: locale_t c = pc_test_comma_locale(); if (c) { old = uselocale(c);
 * ...; uselocale(old); freelocale(c); }
 */
#ifndef PC_TEST_LOCALE_H
#define PC_TEST_LOCALE_H

#include <dirent.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/*
 * glibc's newlocale() does not free its copy of LOCPATH (built with
 * argz_add_sep()) when it loads a locale from there: LeakSanitizer's report
 * of it is not ours to fix.  Read only by sanitizer builds.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:__argz_add_sep\n";
}

static inline int pc_test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return -1;
	bad = fputs(text, f) < 0;
	return fclose(f) != 0 || bad ? -1 : 0;
}

/* rm -r of a directory, depth levels of directories down at most. */
static inline void pc_test_rmtree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (unlink(path) != 0 && depth > 0)
			pc_test_rmtree(path, depth - 1);
	}
	closedir(d);
	rmdir(dir);
}

/* The comma locale compiled into a temporary directory, or (locale_t)0. */
static inline locale_t pc_test_made_comma_locale(void)
{
	/* the escape character must be set for /x2c to be a byte */
	static const char charmap[] = "<code_set_name> PC_COMMA\n<escape_char> /\n"
				      "<mb_cur_min> 1\n<mb_cur_max> 1\nCHARMAP\n"
				      "<U002C> /x2c\n<U002E> /x2e\nEND CHARMAP\n";
	static const char numeric[] = "LC_NUMERIC\ndecimal_point \"<U002C>\"\n"
				      "thousands_sep \"<U002E>\"\ngrouping 3;3\nEND LC_NUMERIC\n";
	const char *tmp = getenv("TMPDIR");
	char dir[1024], cm[1100], src[1100], out[1100], *old_path = NULL;
	char *argv[] = { "localedef", "-c", "-f", cm, "-i", src, out, NULL };
	posix_spawn_file_actions_t fa;
	locale_t l = (locale_t)0;
	pid_t pid;
	int st;

	snprintf(dir, sizeof(dir), "%s/pc_comma_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return l;
	snprintf(cm, sizeof(cm), "%s/comma.cm", dir);
	snprintf(src, sizeof(src), "%s/numeric.src", dir);
	snprintf(out, sizeof(out), "%s/pc_COMMA", dir);
	if (pc_test_write_file(cm, charmap) || pc_test_write_file(src, numeric) ||
	    posix_spawn_file_actions_init(&fa) != 0) {
		pc_test_rmtree(dir, 2);
		return l;
	}
	/* it warns about every category but LC_NUMERIC (-c writes them all the same) */
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "localedef", &fa, NULL, argv, environ) == 0 &&
	    waitpid(pid, &st, 0) == pid) {
		if (getenv("LOCPATH"))
			old_path = strdup(getenv("LOCPATH"));
		setenv("LOCPATH", dir, 1);
		l = newlocale(LC_NUMERIC_MASK, "pc_COMMA", (locale_t)0);
		if (old_path)
			setenv("LOCPATH", old_path, 1);
		else
			unsetenv("LOCPATH");
		free(old_path);
	}
	posix_spawn_file_actions_destroy(&fa);
	pc_test_rmtree(dir, 2); /* dir/pc_COMMA/LC_MESSAGES/; newlocale() has read it */
	return l;
}

/* l if its decimal point is a comma, else (locale_t)0 (l freed). */
static inline locale_t pc_test_if_comma(locale_t l)
{
	if (l != (locale_t)0 && strcmp(nl_langinfo_l(RADIXCHAR, l), ",") != 0) {
		freelocale(l);
		l = (locale_t)0;
	}
	return l;
}

static inline locale_t pc_test_comma_locale(void)
{
	static const char *const installed[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
						  "fr_FR.utf8", "de_DE", "fr_FR" };
	locale_t l = pc_test_if_comma(pc_test_made_comma_locale());
	size_t i;

	for (i = 0; i < sizeof(installed) / sizeof(installed[0]) && l == (locale_t)0; i++)
		l = pc_test_if_comma(newlocale(LC_NUMERIC_MASK, installed[i], (locale_t)0));
	if (l == (locale_t)0)
		fprintf(stderr, "skipped: no decimal-comma locale (localedef failed, none installed)\n");
	return l;
}

#endif /* PC_TEST_LOCALE_H */
