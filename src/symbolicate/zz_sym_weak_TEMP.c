/* Temporary weak stand-ins until the symbol sources land (removed then). */
#include "symbolicate/pc_symsrc.h"

#define WEAK __attribute__((weak))

WEAK int pc_symsrc_open_elf(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			    struct pc_symsrc **out, char *why, size_t whylen)
{
	(void)ctx, (void)path, (void)expect_build_id;
	*out = NULL;
	pc_snprintf(why, whylen, "ELF symbols not built yet");
	return 0;
}

WEAK int pc_symsrc_open_breakpad(struct profconv_ctx *ctx, const char *path,
				 const char *expect_debug_id, struct pc_symsrc **out, char *why,
				 size_t whylen)
{
	(void)ctx, (void)path, (void)expect_debug_id;
	*out = NULL;
	pc_snprintf(why, whylen, "breakpad not built yet");
	return 0;
}

WEAK int pc_symsrc_open_perf_map(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
				 char *why, size_t whylen)
{
	(void)ctx, (void)path;
	*out = NULL;
	pc_snprintf(why, whylen, "perf maps not built yet");
	return 0;
}

WEAK int pc_symsrc_open_kallsyms(struct profconv_ctx *ctx, const char *path, struct pc_symsrc **out,
				 char *why, size_t whylen)
{
	(void)ctx, (void)path;
	*out = NULL;
	pc_snprintf(why, whylen, "kallsyms not built yet");
	return 0;
}

WEAK int pc_elf_build_id(const char *path, char *hex, size_t hexlen)
{
	(void)path;
	if (hexlen)
		hex[0] = 0;
	return -1;
}

WEAK int pc_elf_debuglink(const char *path, char *name, size_t namelen)
{
	(void)path;
	if (namelen)
		name[0] = 0;
	return -1;
}
