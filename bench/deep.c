/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * deep.c - a workload with many distinct call stacks, for bench_perf.sh's
 * second recording: each thread recurses through 6 of 16 functions chosen by a
 * pseudo-random walk, 1 to 10 levels deep, and burns a little CPU at the
 * leaf, so a high-rate recording holds hundreds of thousands of distinct
 * callchains (the case where interning, not decoding, dominates).
 *
 * usage: deep SECONDS THREADS      build: cc -O1 -fno-omit-frame-pointer -g -pthread
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static double seconds;

typedef void step_fn(uint64_t *rng, int depth);
static step_fn *steps[16];

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void leaf(uint64_t *rng)
{
	uint64_t x = *rng;
	int i;

	for (i = 0; i < 2000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink += x;
}

#define STEP(n)                                                                     \
	static __attribute__((noinline)) void step##n(uint64_t *rng, int depth)     \
	{                                                                            \
		uint64_t r = next(rng);                                              \
		if (depth == 0)                                                      \
			leaf(rng);                                                   \
		else                                                                 \
			steps[r % 6](rng, depth - 1);                                  \
		sink += r;                                                           \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uintptr_t)arg;
	double end = now() + seconds;

	while (now() < end) {
		int i;

		for (i = 0; i < 64; i++)
			steps[next(&rng) % 6](&rng, (int)(next(&rng) % 10));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	step_fn *all[16] = { step0, step1, step2,  step3,  step4,  step5,  step6,  step7,
			     step8, step9, step10, step11, step12, step13, step14, step15 };
	pthread_t th[64];
	int i, n;

	if (argc != 3)
		return 2;
	seconds = atof(argv[1]);
	n = atoi(argv[2]);
	if (n < 1 || n > 64)
		return 2;
	for (i = 0; i < 16; i++)
		steps[i] = all[i];
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
