#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench_batch.sh - batch mode's parallel speed-up: convert N copies of a
# recording with --jobs 1 and with --jobs J and print, side by side, the
# wall and CPU (user+sys) times and their ratios (issue 26's goal with
# symbols from this machine's debug files: at least 1.7 with 2 jobs on 2
# cores for 50 files, and under 0.3 s in all).  With BASE set, the same
# for a second binary (an older build) in the same run, interleaved, and
# the ratios between the two.
#
# usage: bench/bench_batch.sh [RECORDING]
#   RECORDING  a perf.data to copy (default examples/workload.perf.data)
# environment:
#   PROFCONV   the binary (default build/profconv)
#   BASE       a second binary to compare with (default: none)
#   FILES      copies (default 50)
#   JOBS       parallel jobs to compare with 1 (default: the number of CPUs)
#   RUNS       timed runs of each, the best kept (default 5)
#   SYMBOLS    1: symbolicate (default 0: --no-symbols, so the host's debug
#              files do not decide the figure)
# CPU time needs GNU time (/usr/bin/time); without it only wall time.  On a
# loaded machine (the load average is printed) wall times and so the
# speed-up say little: compare CPU times.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PROFCONV=${PROFCONV:-$top/build/profconv}
BASE=${BASE:-}
REC=${1:-$top/examples/workload.perf.data}
FILES=${FILES:-50}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN)}
RUNS=${RUNS:-5}
SYMS=--no-symbols
[ "${SYMBOLS:-0}" = 1 ] && SYMS=
for b in "$PROFCONV" $BASE; do
	[ -x "$b" ] || { echo "bench_batch: no $b (build first)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-bench-batch.XXXXXX")
trap 'rm -rf "$T"' EXIT
i=1
while [ "$i" -le "$FILES" ]; do
	cp "$REC" "$T/r$i.data"
	i=$((i + 1))
done
GT=
[ -x /usr/bin/time ] && GT=/usr/bin/time

# one BIN JOBS: "wall cpu" of one run, in seconds
one() {
	rm -rf "$T/out"
	if [ -n "$GT" ]; then
		$GT -f '%e %U %S' -o "$T/t" "$1" -q $SYMS -O "$T/out" --jobs "$2" "$T"/r*.data
		awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$T/t"
	else
		_t0=$(date +%s.%N)
		"$1" -q $SYMS -O "$T/out" --jobs "$2" "$T"/r*.data
		_t1=$(date +%s.%N)
		awk "BEGIN { printf \"%.3f nan\n\", $_t1 - $_t0 }"
	fi
}

# the best (least wall, least CPU, each on its own) of RUNS runs of each
# binary and job count, the runs interleaved so that load hits all alike
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
: >"$T/rows"
r=0
while [ "$r" -lt "$RUNS" ]; do
	for b in "$PROFCONV" $BASE; do
		for j in 1 "$JOBS"; do
			echo "$b $j $(one "$b" "$j")" >>"$T/rows"
		done
	done
	r=$((r + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
size=$(du -k "$REC" | cut -f1)
echo "recording:   $REC (${size} KiB), $FILES copies, ${SYMS:-with symbols}, best of $RUNS"
echo "machine:     $(getconf _NPROCESSORS_ONLN) CPUs, load average $load0 before, $load1 after"
awk -v jobs="$JOBS" -v main="$PROFCONV" '
{ k = $1 " " $2
  if (!(k in w) || $3 < w[k]) w[k] = $3
  if (!(k in c) || $4 < c[k]) c[k] = $4
  if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
END {
  printf "%-40s %9s %9s %9s %9s %9s\n", "binary", "wall j1", "wall j" jobs, "speed-up", "CPU j1", "CPU j" jobs
  for (i = 0; i < n; i++) {
    b = order[i]; a = b " 1"; p = b " " jobs
    printf "%-40s %8.3fs %8.3fs %8.2fx %8.3fs %8.3fs\n", b, w[a], w[p], w[a] / w[p], c[a], c[p]
  }
  if (n > 1) {
    b = order[1]
    printf "%s / %s: wall j1 %.2fx, wall j%s %.2fx, CPU j1 %.2fx\n", b, main,
      w[b " 1"] / w[main " 1"], jobs, w[b " " jobs] / w[main " " jobs], c[b " 1"] / c[main " 1"]
  }
  printf "goal (2 idle cores, with symbols): speed-up >= 1.7 and wall j2 <= 0.3 s\n"
}' "$T/rows"
