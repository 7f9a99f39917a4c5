/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_dlopen.c - serve's libraries (libmicrohttpd, capstone), loaded when
 * first needed (cli_dlopen.h says why).  The sonames are those of the
 * libraries the build found (CMakeLists.txt); the packages that ship them
 * are dependencies of the profconv package all the same.
 */
#define CLI_DLOPEN_IMPL
#include "cli_dlopen.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#ifndef PROFCONV_MHD_SONAME
#define PROFCONV_MHD_SONAME "libmicrohttpd.so.12"
#endif
#ifndef PROFCONV_CAPSTONE_SONAME
#define PROFCONV_CAPSTONE_SONAME "libcapstone.so.4"
#endif

struct cli_mhd_fns cli_mhd;
struct cli_cs_fns cli_cs;

struct dl_sym {
	const char *name;
	void **slot;
};

struct dl_lib {
	const char *soname;
	const struct dl_sym *syms;
	size_t nsyms;
	pthread_once_t once;
	int ok;
	char why[512];
};

/* Open lib and fill its table; every symbol or none. */
static void dl_load(struct dl_lib *lib)
{
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h) {
		const char *e = dlerror();

		snprintf(lib->why, sizeof(lib->why), "%s", e ? e : lib->soname);
		return;
	}
	for (i = 0; i < lib->nsyms; i++) {
		void *f = dlsym(h, lib->syms[i].name);

		if (!f) {
			snprintf(lib->why, sizeof(lib->why), "%s has no %s", lib->soname,
				 lib->syms[i].name);
			for (i = 0; i < lib->nsyms; i++)
				*lib->syms[i].slot = NULL;
			dlclose(h);
			return;
		}
		*lib->syms[i].slot = f;
	}
	lib->ok = 1; /* h stays open for the process's life */
}

static int dl_need(struct dl_lib *lib, void (*once)(void), char *why, size_t cap)
{
	pthread_once(&lib->once, once);
	if (lib->ok)
		return 0;
	snprintf(why, cap, "cannot load %s (%s)", lib->soname, lib->why);
	return -1;
}

#define SYM(tab, field, name) { name, (void **)(void *)&tab.field }

static const struct dl_sym mhd_syms[] = {
	SYM(cli_mhd, start_daemon, "MHD_start_daemon"),
	SYM(cli_mhd, stop_daemon, "MHD_stop_daemon"),
	SYM(cli_mhd, lookup_connection_value, "MHD_lookup_connection_value"),
	SYM(cli_mhd, add_response_header, "MHD_add_response_header"),
	SYM(cli_mhd, create_response_from_buffer, "MHD_create_response_from_buffer"),
	SYM(cli_mhd, create_response_from_fd, "MHD_create_response_from_fd"),
	SYM(cli_mhd, queue_response, "MHD_queue_response"),
	SYM(cli_mhd, destroy_response, "MHD_destroy_response"),
};

static const struct dl_sym cs_syms[] = {
	SYM(cli_cs, open, "cs_open"),
	SYM(cli_cs, close, "cs_close"),
	SYM(cli_cs, malloc, "cs_malloc"),
	SYM(cli_cs, free, "cs_free"),
	SYM(cli_cs, disasm_iter, "cs_disasm_iter"),
};

static struct dl_lib mhd_lib = { PROFCONV_MHD_SONAME, mhd_syms,
				 sizeof(mhd_syms) / sizeof(mhd_syms[0]), PTHREAD_ONCE_INIT, 0, "" };
static struct dl_lib cs_lib = { PROFCONV_CAPSTONE_SONAME, cs_syms,
				sizeof(cs_syms) / sizeof(cs_syms[0]), PTHREAD_ONCE_INIT, 0, "" };

static void mhd_once(void)
{
	dl_load(&mhd_lib);
}

static void cs_once(void)
{
	dl_load(&cs_lib);
}

int cli_dl_mhd(char *why, size_t cap)
{
	return dl_need(&mhd_lib, mhd_once, why, cap);
}

int cli_dl_capstone(char *why, size_t cap)
{
	return dl_need(&cs_lib, cs_once, why, cap);
}
