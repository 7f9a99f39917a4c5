/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libarchive_dl.c - libarchive loaded when first needed (pc_libarchive.h
 * says why).  The soname is that of the libarchive the build found
 * (CMakeLists.txt); the packages depend on the package that ships it.
 */
#define PC_LIBARCHIVE_IMPL
#include "core/pc_config.h"

#include <dlfcn.h>
#include <pthread.h>

#include "core/pc_core.h"
#include "io/pc_libarchive.h"

#ifndef PROFCONV_LIBARCHIVE_SONAME
#define PROFCONV_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

struct pc_libarchive_fns pc_libarchive;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failed[512];

static void load(void)
{
	void *h = dlopen(PROFCONV_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!h) {
		const char *e = dlerror();

		pc_snprintf(failed, sizeof(failed), "cannot load %s (%s)",
			    PROFCONV_LIBARCHIVE_SONAME, e ? e : "dlopen failed");
		return;
	}
#define PC_LIBARCHIVE_SYM(f)                                                                       \
	if (!missing && !(*(void **)(void *)&pc_libarchive.f = dlsym(h, #f)))                      \
		missing = #f;
	PC_LIBARCHIVE_FNS(PC_LIBARCHIVE_SYM)
#undef PC_LIBARCHIVE_SYM
	if (missing) {
		pc_snprintf(failed, sizeof(failed), "cannot load %s (it has no %s)",
			    PROFCONV_LIBARCHIVE_SONAME, missing);
		memset(&pc_libarchive, 0, sizeof(pc_libarchive));
		dlclose(h);
		return;
	}
	loaded = 1; /* h stays open for the process's life */
}

int pc_libarchive_load(char *why, size_t cap)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	pc_snprintf(why, cap, "%s", failed);
	return -1;
}

int pc_libarchive_need(struct profconv_ctx *ctx, const char *what)
{
	char why[600];

	if (!pc_libarchive_load(why, sizeof(why)))
		return 0;
	return pc_fail(ctx, PROFCONV_ERR_UNSUPPORTED, NULL, "%s needs libarchive: %s", what, why);
}
