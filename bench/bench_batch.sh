#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench_batch.sh - batch mode's parallel speed-up: convert N copies of a
# recording with --jobs 1 and with --jobs J and print the times and their
# ratio (issue 10's goal: at least 1.7 with 2 jobs on 2 cores for 50 files).
#
# usage: bench/bench_batch.sh [RECORDING]
#   RECORDING  a perf.data to copy (default examples/workload.perf.data)
# environment:
#   PROFCONV   the binary (default build/profconv)
#   FILES      copies (default 50)
#   JOBS       parallel jobs to compare with 1 (default: the number of CPUs)
#   RUNS       timed runs of each, the best kept (default 5)
#   SYMBOLS    1: symbolicate (default 0: --no-symbols, so the host's debug
#              files do not decide the figure)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PROFCONV=${PROFCONV:-$top/build/profconv}
REC=${1:-$top/examples/workload.perf.data}
FILES=${FILES:-50}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN)}
RUNS=${RUNS:-5}
SYMS=--no-symbols
[ "${SYMBOLS:-0}" = 1 ] && SYMS=
[ -x "$PROFCONV" ] || { echo "bench_batch: no $PROFCONV (build first)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-bench-batch.XXXXXX")
trap 'rm -rf "$T"' EXIT
i=1
while [ "$i" -le "$FILES" ]; do
	cp "$REC" "$T/r$i.data"
	i=$((i + 1))
done

best() { # best JOBS: the fastest of RUNS runs, in seconds
	_best=
	_r=0
	while [ "$_r" -lt "$RUNS" ]; do
		rm -rf "$T/out"
		_t0=$(date +%s.%N)
		"$PROFCONV" -q $SYMS -O "$T/out" --jobs "$1" "$T"/r*.data
		_t1=$(date +%s.%N)
		_s=$(awk "BEGIN { print $_t1 - $_t0 }")
		if [ -z "$_best" ] || [ "$(awk "BEGIN { print ($_s < $_best) }")" = 1 ]; then _best=$_s; fi
		_r=$((_r + 1))
	done
	echo "$_best"
}

one=$(best 1)
par=$(best "$JOBS")
size=$(du -k "$REC" | cut -f1)
echo "recording:   $REC (${size} KiB), $FILES copies, ${SYMS:-with symbols}, best of $RUNS"
printf 'jobs 1:      %.2f s\n' "$one"
printf 'jobs %s:      %.2f s\n' "$JOBS" "$par"
printf 'speed-up:    %.2f (goal >= 1.7 with 2 jobs on 2 idle cores)\n' "$(awk "BEGIN { print $one / $par }")"
