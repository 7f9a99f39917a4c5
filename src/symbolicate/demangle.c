/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * demangle.c - C++ (Itanium) and Rust legacy symbol names made readable.
 *
 * The demangler is the C++ runtime's own __cxa_demangle, found at run time
 * with dlopen("libstdc++.so.6") (then libc++abi), so the library has no
 * link-time dependency on a C++ runtime; when none is installed names stay
 * mangled.  The lookup happens once per process (pthread_once); the function
 * pointer it fills is the only mutable static state in this file and is
 * written before any reader can see it.
 *
 * Rust legacy names (_ZN...17h<16 hex digits>E) are Itanium-shaped, so the
 * same call demangles them; the trailing "::h<hash>" is then dropped and the
 * $LT$-style escapes are decoded, as rustc-demangle does.  Rust v0 names
 * (_R...) have a grammar of their own that __cxa_demangle does not know:
 * they stay mangled.
 */
#include "core/pc_config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "symbolicate/pc_symsrc.h"

typedef char *pc_cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

static pc_cxa_demangle_fn *cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void load_cxa_demangle(void)
{
	static const char *const libs[] = { "libstdc++.so.6", "libc++abi.so.1" };
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(libs); i++) {
		/* never dlclose()d: the function must stay mapped for the process */
		void *h = dlopen(libs[i], RTLD_LAZY | RTLD_LOCAL);
		void *sym;

		if (!h)
			continue;
		sym = dlsym(h, "__cxa_demangle");
		if (sym) {
			/* object pointer to function pointer, without a cast ISO C frowns on */
			memcpy(&cxa_demangle, &sym, sizeof(sym));
			return;
		}
		dlclose(h);
	}
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * A Rust legacy name: "_ZN" ... "17h" + 16 hex digits + "E", then the end
 * or a suffix such as ".llvm.1234" (ThinLTO).  Returns where the suffix
 * starts (possibly at the terminating NUL), or NULL for other names.
 */
static const char *rust_legacy_end(const char *name)
{
	const char *p = name + 3;

	if (strncmp(name, "_ZN", 3) != 0)
		return NULL;
	while ((p = strstr(p, "17h")) != NULL) {
		int k;

		for (k = 0; k < 16 && is_hex(p[3 + k]); k++)
			;
		if (k == 16 && p[19] == 'E' && (p[20] == 0 || p[20] == '.'))
			return p + 20;
		p++;
	}
	return NULL;
}

static int rust_escape(const char *p, size_t n, unsigned *out)
{
	static const struct {
		const char *esc;
		char c;
	} tab[] = { { "SP", '@' }, { "BP", '*' }, { "RF", '&' }, { "LT", '<' },
		    { "GT", '>' }, { "LP", '(' }, { "RP", ')' }, { "C", ',' } };
	unsigned v = 0;
	size_t i;

	for (i = 0; i < PC_ARRAY_SIZE(tab); i++)
		if (strlen(tab[i].esc) == n && memcmp(p, tab[i].esc, n) == 0) {
			*out = (unsigned char)tab[i].c;
			return 0;
		}
	if (n < 2 || n > 7 || p[0] != 'u')
		return -1;
	for (i = 1; i < n; i++) {
		if (!is_hex(p[i]))
			return -1;
		v = v * 16 + (unsigned)(p[i] <= '9' ? p[i] - '0' : p[i] - 'a' + 10);
	}
	/* only printable ASCII is decoded; anything else keeps its escape */
	if (v < 0x20 || v > 0x7e)
		return -1;
	*out = v;
	return 0;
}

/* Decode the legacy escapes in place: "$LT$" -> '<', ".." -> "::", "_$" at a segment start. */
static void rust_unescape(char *s)
{
	char *r = s, *w = s;
	int seg_start = 1;

	while (*r) {
		if (seg_start && r[0] == '_' && r[1] == '$')
			r++;
		seg_start = 0;
		if (r[0] == ':' && r[1] == ':') {
			*w++ = *r++;
			*w++ = *r++;
			seg_start = 1;
		} else if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
		} else if (r[0] == '$') {
			const char *end = strchr(r + 1, '$');
			unsigned c;

			if (end && rust_escape(r + 1, (size_t)(end - r - 1), &c) == 0) {
				*w++ = (char)c;
				r = (char *)end + 1;
			} else {
				*w++ = *r++;
			}
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
}

const char *pc_demangle(const char *name, char *buf, size_t buflen)
{
	const char *src = name, *suffix = NULL, *rust;
	char *out;
	size_t len;
	int status = -1;

	if (!name || !buf || buflen == 0 || name[0] != '_' || name[1] != 'Z')
		return name;
	pthread_once(&cxa_once, load_cxa_demangle);
	if (!cxa_demangle)
		return name;
	rust = rust_legacy_end(name);
	if (rust && *rust) {
		/* __cxa_demangle takes no suffix after a name without parameters */
		size_t n = (size_t)(rust - name);

		if (n >= buflen)
			return name;
		memcpy(buf, name, n);
		buf[n] = 0;
		src = buf;
		suffix = strncmp(rust, ".llvm.", 6) == 0 ? NULL : rust;
	}
	/* __cxa_demangle allocates with the C++ runtime's malloc; released with free() */
	out = cxa_demangle(src, NULL, NULL, &status);
	if (!out || status != 0) {
		free(out);
		return name;
	}
	len = strlen(out);
	if (len >= buflen) {
		free(out);
		return name;
	}
	memcpy(buf, out, len + 1);
	free(out);
	if (rust) {
		/* drop "::h" + 16 hex digits, then decode the escapes */
		if (len >= 19 && memcmp(buf + len - 19, "::h", 3) == 0)
			buf[len - 19] = 0;
		rust_unescape(buf);
		len = strlen(buf);
		if (suffix && len + strlen(suffix) + 10 < buflen)
			pc_snprintf(buf + len, buflen - len, " [clone %s]", suffix);
	}
	return buf;
}
