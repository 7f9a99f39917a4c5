/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gecko_capture_target.c - a stand-in for a Firefox process, for
 * gecko_capture_test.sh (CI has no Firefox): it puts the chunks of a real
 * scrape (56-byte ProfileBufferChunk headers, each followed by its buffer)
 * into anonymous memory, one mapping per chunk and in reverse order, with
 * decoys a capture must pass over: a header whose offsets contradict
 * themselves, a recycled chunk (range start 0), a consistent chunk of
 * another buffer far away in the index space, and two headers claiming
 * chunk 0's range over garbage (one with an impossible start time, one with
 * a plausible one and a first block that is not a block), and a sound
 * one-chunk buffer of 4 KiB claiming range 1 too, started after all of them.  Then it says it is ready
 * (writes READY_FILE) and waits to be killed.
 *
 * Started as a Firefox child (an argument "-contentproc"), it also names
 * itself as Firefox names an isolated content process ("Isolated Web Co",
 * the 15 bytes of "Isolated Web Content" a thread name holds) and keeps a
 * profiler time base as mozglue does (TimeStampInitialization: the first
 * TimeStamp, then the process creation, in the executable's bss): the
 * creation is CLOCK_MONOTONIC at its start, the chunks' start and done times
 * are moved to just after it (a profiler starts after its process), and
 * READY_FILE.base gets the creation's ns.
 *
 * usage: gecko_capture_target CHUNKS_FILE READY_FILE [ARG...]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define HDR 56

/* mozglue's TimeStampInitialization: mFirstTimeStamp, mProcessCreation (bss) */
static volatile uint64_t ts_init[2];

static void *place(const unsigned char *src, size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memcpy(p, src, n);
	return p;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	FILE *f;
	unsigned char *all = NULL;
	size_t len = 0, cap = 0, off, starts[256];
	int n = 0, i, child = 0;
	uint64_t creation = 0;
	struct timespec ts;

	/* more arguments are ignored: they make a command line like a Firefox child's */
	if (argc < 3) {
		fprintf(stderr, "usage: %s CHUNKS_FILE READY_FILE [ARG...]\n", argv[0]);
		return 2;
	}
#ifdef PR_SET_PTRACER
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama ptrace_scope 1 */
#endif
	for (i = 3; i < argc; i++)
		child |= !strcmp(argv[i], "-contentproc");
	if (child) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		creation = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#ifdef PR_SET_NAME
		prctl(PR_SET_NAME, "Isolated Web Co", 0, 0, 0);
#endif
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			cap = cap ? cap * 2 : (1u << 20);
			all = realloc(all, cap);
			if (!all)
				return 2;
		}
		got = fread(all + len, 1, cap - len, f);
		if (!got)
			break;
		len += got;
	}
	fclose(f);
	for (off = 0; off + HDR <= len && n < 256; off += HDR + le32(all + off + 24))
		starts[n++] = off;
	if (child && n) {
		/* the chunks' times moved to 1 ms after the creation, in their order */
		uint64_t s0 = (uint64_t)le32(all + 8) | (uint64_t)le32(all + 12) << 32;

		for (i = 0; i < n; i++) {
			unsigned char *h = all + starts[i];
			uint64_t st = (uint64_t)le32(h + 8) | (uint64_t)le32(h + 12) << 32;
			uint64_t dn = (uint64_t)le32(h + 16) | (uint64_t)le32(h + 20) << 32;

			put64(h + 8, st - s0 + creation + 1000000);
			if (dn)
				put64(h + 16, dn - s0 + creation + 1000000);
		}
		ts_init[0] = creation + 1000; /* the first Now(), just after */
		ts_init[1] = creation;
	}
	/* the chunks, last first, each in a mapping of its own */
	for (i = n - 1; i >= 0; i--)
		place(all + starts[i], HDR + le32(all + starts[i] + 24));
	if (n) {
		size_t sz = HDR + le32(all + 24);
		unsigned char *d = malloc(sz);

		if (!d)
			return 2;
		/* decoy 1: its first block starts past the end of its buffer */
		memcpy(d, all, sz);
		{
			uint32_t v = le32(all + 24) + 8;

			d[0] = (unsigned char)v;
			d[1] = (unsigned char)(v >> 8);
			d[2] = (unsigned char)(v >> 16);
			d[3] = (unsigned char)(v >> 24);
		}
		place(d, sz);
		/* decoy 2: a recycled chunk, range start 0 */
		memcpy(d, all, sz);
		put64(d + 32, 0);
		place(d, sz);
		/* decoy 3: a consistent chunk of another buffer */
		memcpy(d, all, sz);
		put64(d + 32, 1 + (uint64_t)1000 * le32(all + 24));
		place(d, sz);
		/*
		 * decoys 4 and 5 claim range 1 (chunk 0's) over garbage; the
		 * capture used to take the one started last and lose chunk 0:
		 * 4, a start time of 0xffffffff00000001 (seen in Firefox's
		 * heap); 5, a plausible start (just after chunk 0's) and a first
		 * block whose size is 0
		 */
		memcpy(d, all, HDR);
		memset(d + HDR, 0xa5, sz - HDR);
		put64(d + 8, 0xffffffff00000001ull);
		place(d, sz);
		memcpy(d, all, HDR);
		memset(d + HDR, 0xa5, sz - HDR);
		put64(d + 8, (uint64_t)le32(all + 8) + ((uint64_t)le32(all + 12) << 32) + 1);
		d[HDR + le32(all)] = 0;
		place(d, sz);
		/*
		 * decoy 6: a sound one-chunk buffer of 4 KiB (as a backtrace's),
		 * range start 1 too, started after every real chunk: chunk 0's
		 * first 4 KiB, whose first block is a real one
		 */
		if (le32(all + 24) >= 4096) {
			uint64_t t = 0;

			for (i = 0; i < n; i++) {
				uint64_t s = (uint64_t)le32(all + starts[i] + 8) |
					     (uint64_t)le32(all + starts[i] + 12) << 32;

				t = s > t ? s : t;
			}
			memcpy(d, all, HDR + 4096);
			put32(d + 4, 4096);
			put32(d + 24, 4096);
			put32(d + 28, 1);
			put64(d + 8, t + 1000);
			put64(d + 16, t + 2000);
			place(d, HDR + 4096);
		}
		free(d);
	}
	free(all);
	/* before READY_FILE: the test reads it once that is there */
	if (child) {
		char path[4200];

		snprintf(path, sizeof(path), "%s.base", argv[2]);
		f = fopen(path, "w");
		if (!f)
			return 2;
		fprintf(f, "%llu\n", (unsigned long long)ts_init[1]);
		fclose(f);
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 2;
	fprintf(f, "%d\n", n);
	fclose(f);
	for (;;)
		pause();
}
