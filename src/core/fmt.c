/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fmt.c - locale-independent number formatting and byte hashing.
 */
#include "core/pc_core.h"

size_t pc_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = 0;
	return n;
}

size_t pc_fmt_hex(char *buf, uint64_t v)
{
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1, i;

	for (i = n; i > 0; i--) {
		buf[i - 1] = "0123456789abcdef"[v & 15];
		v >>= 4;
	}
	buf[n] = 0;
	return n;
}

size_t pc_fmt_i64(char *buf, int64_t v)
{
	if (v < 0) {
		buf[0] = '-';
		return 1 + pc_fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
	}
	return pc_fmt_u64(buf, (uint64_t)v);
}

size_t pc_fmt_ns_as_ms(char *buf, int64_t ns)
{
	uint64_t a, whole, frac;
	size_t n = 0;
	int digits = 6;
	char f[7];

	if (ns < 0) {
		buf[n++] = '-';
		a = (uint64_t)0 - (uint64_t)ns;
	} else {
		a = (uint64_t)ns;
	}
	whole = a / 1000000;
	frac = a % 1000000;
	n += pc_fmt_u64(buf + n, whole);
	if (frac) {
		int i;

		for (i = 5; i >= 0; i--) {
			f[i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		while (digits > 0 && f[digits - 1] == '0')
			digits--;
		buf[n++] = '.';
		memcpy(buf + n, f, (size_t)digits);
		n += (size_t)digits;
	}
	buf[n] = 0;
	return n;
}

uint64_t pc_hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return pc_hash64(h ^ len);
}
