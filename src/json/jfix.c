/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jfix.c - lone UTF-16 surrogates in JSON text, replaced in place.
 *
 * JSON allows any \uXXXX escape, so "\ud800" alone is valid JSON (browsers
 * decode it to U+FFFD), but cJSON refuses it.  Text captured by the pull
 * tokenizer (already syntax-checked) goes through here before cJSON: every
 * lone surrogate escape becomes \ufffd, the same length, so nothing moves.
 * The JSON path of the first one is kept for the warning.
 */
#include "json/pc_jpull.h"

#include <stdio.h>

#define MAX_DEPTH 32

struct frame {
	int obj;	 /* in an object (keys) or an array (indexes) */
	uint32_t index;	 /* array element */
	char key[48];	 /* object member (cut) */
};

static int hexval(const char *p, unsigned *v)
{
	unsigned i, x = 0;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	*v = x;
	return 1;
}

static void path_of(const struct frame *st, int depth, const char *base, char *out, size_t cap)
{
	size_t n = pc_snprintf(out, cap, "%s", base);
	int i;

	for (i = 0; i < depth && n + 1 < cap; i++) {
		if (st[i].obj)
			n += pc_snprintf(out + n, cap - n, "%s%s", n ? "." : "", st[i].key);
		else
			n += pc_snprintf(out + n, cap - n, "[%u]", st[i].index);
	}
}

size_t pc_json_fix_surrogates(char *s, size_t len, const char *base, char *first, size_t cap)
{
	struct frame st[MAX_DEPTH];
	int depth = 0, want_key = 0;
	size_t i = 0, fixed = 0;

	while (i < len) {
		char c = s[i];

		if (c == '{' || c == '[') {
			if (depth < MAX_DEPTH) {
				st[depth].obj = c == '{';
				st[depth].index = 0;
				st[depth].key[0] = 0;
			}
			depth++;
			want_key = c == '{';
			i++;
		} else if (c == '}' || c == ']') {
			depth--;
			want_key = 0;
			i++;
		} else if (c == ',') {
			if (depth > 0 && depth <= MAX_DEPTH) {
				st[depth - 1].index++;
				want_key = st[depth - 1].obj;
			}
			i++;
		} else if (c == '"') {
			size_t start = ++i, k = 0;
			int is_key = want_key;

			while (i < len && s[i] != '"') {
				unsigned u, u2;

				if (s[i] != '\\') {
					i++;
					continue;
				}
				if (i + 1 < len && s[i + 1] == 'u' && i + 6 <= len && hexval(s + i + 2, &u)) {
					if (u >= 0xd800 && u <= 0xdbff && i + 12 <= len && s[i + 6] == '\\' &&
					    s[i + 7] == 'u' && hexval(s + i + 8, &u2) && u2 >= 0xdc00 &&
					    u2 <= 0xdfff) {
						i += 12; /* a pair */
						continue;
					}
					if (u >= 0xd800 && u <= 0xdfff) {
						if (!fixed && first && cap)
							path_of(st, depth < MAX_DEPTH ? depth : MAX_DEPTH,
								base, first, cap);
						memcpy(s + i + 2, "fffd", 4);
						fixed++;
					}
					i += 6;
					continue;
				}
				i += 2; /* any other escape */
			}
			if (is_key && depth > 0 && depth <= MAX_DEPTH) {
				k = i - start < sizeof(st[0].key) - 1 ? i - start : sizeof(st[0].key) - 1;
				memcpy(st[depth - 1].key, s + start, k);
				st[depth - 1].key[k] = 0;
			}
			want_key = 0;
			i++;
		} else {
			i++;
		}
	}
	return fixed;
}
