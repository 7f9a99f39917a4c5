#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench_batch.sh - batch mode's parallel speed-up: convert N copies of a
# recording with --jobs 1 and with --jobs J and print, side by side, the
# wall and CPU (user+sys) times, their ratios and the peak RSS, with the
# persistent symbol cache off, cold (emptied before every run) and warm
# (filled once before), and perf script on the same N files one after the
# other for reference (issue 26's goal with symbols from this machine's
# debug files: at least 1.7 with 2 jobs on 2 cores for 50 files, and under
# 0.3 s in all).  With BASE set, the same for a second binary (an older
# build, run without cache options) in the same run, interleaved.
#
# The default recording was made on another kernel, so its kernel frames are
# not looked up in /proc/kallsyms; a recording of this machine (perf record
# -a -g -- sleep 1) shows the kallsyms cache too: the cache directory holds
# it with the symbol files' (cold: read /proc/kallsyms once per batch; warm:
# never).  With --jobs at least the CPUs, conversions start no threads of
# their own (the library's "threads" "no").
#
# usage: bench/bench_batch.sh [RECORDING]
#   RECORDING  a perf.data to copy (default examples/workload.perf.data)
# environment:
#   PROFCONV   the binary (default build/profconv)
#   BASE       a second binary to compare with (default: none)
#   FILES      copies (default 50)
#   JOBS       parallel jobs to compare with 1 (default: the number of CPUs)
#   RUNS       timed runs of each, the best kept (default 5)
#   SYMBOLS    1 (default): symbolicate from this machine's debug files;
#              0: --no-symbols (then only the "off" row)
#   PERF       perf for the reference row (default perf; "" skips it)
# CPU time and RSS need GNU time (/usr/bin/time); without it only wall time.
# On a loaded machine (the load average is printed) wall times and so the
# speed-up say little: compare CPU times.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PROFCONV=${PROFCONV:-$top/build/profconv}
BASE=${BASE:-}
REC=${1:-$top/examples/workload.perf.data}
FILES=${FILES:-50}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN)}
RUNS=${RUNS:-5}
PERF=${PERF-perf}
SYMS=
MODES="off cold warm"
if [ "${SYMBOLS:-1}" = 0 ]; then
	SYMS=--no-symbols
	MODES=off
fi
for b in "$PROFCONV" $BASE; do
	[ -x "$b" ] || { echo "bench_batch: no $b (build first)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-bench-batch.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/in"
i=1
while [ "$i" -le "$FILES" ]; do
	cp "$REC" "$T/in/r$i.data"
	i=$((i + 1))
done
GT=
[ -x /usr/bin/time ] && GT=/usr/bin/time

# timed CMD...: "wall cpu rss_kib" of one run; the wall time from the
# nanosecond clock (GNU time's %e counts in 10 ms steps: a fifth of a warm
# batch), RSS from GNU time, CPU from perf stat's task-clock (ms, GNU time's
# in the same 10 ms steps; it includes GNU time's own, a fraction of a ms)
# when perf is there, else from GNU time
PS=
command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null && PS=1
timed() {
	if [ -n "$GT" ]; then
		_t0=$(date +%s.%N)
		if [ -n "$PS" ]; then
			perf stat -x, -e task-clock -o "$T/ps" $GT -f '%e %U %S %M' -o "$T/t" "$@"
		else
			$GT -f '%e %U %S %M' -o "$T/t" "$@"
		fi
		_t1=$(date +%s.%N)
		_c=$( [ -n "$PS" ] && awk -F, '/task-clock/ { printf "%.4f", $1 / 1000 }' "$T/ps")
		awk -v w="$(awk "BEGIN { print $_t1 - $_t0 }")" -v c="$_c" \
			'{ printf "%.3f %.4f %s\n", w, c != "" ? c : $2 + $3, $4 }' "$T/t"
	else
		_t0=$(date +%s.%N)
		"$@"
		_t1=$(date +%s.%N)
		awk "BEGIN { printf \"%.3f nan nan\n\", $_t1 - $_t0 }"
	fi
}

# one BIN MODE JOBS: one run
one() {
	rm -rf "$T/out"
	case $2 in
	off) c=--no-symbol-cache ;;
	cold) rm -rf "$T/cold"; c="--symbol-cache $T/cold" ;;
	warm) c="--symbol-cache $T/warm" ;;
	base) c= ;;
	esac
	timed "$1" -q $SYMS $c -O "$T/out" --jobs "$3" "$T"/in/r*.data
}

perf_all() {
	timed sh -c 'p=$1; shift; for f; do "$p" script -i "$f" >/dev/null 2>&1; done' sh \
		"$PERF" "$T"/in/r*.data
}

# fill the warm cache once
[ "$SYMS" ] || "$PROFCONV" -q --symbol-cache "$T/warm" -O "$T/out" --jobs 1 "$T/in/r1.data"

# the best (least wall, least CPU, each on its own) of RUNS runs of each,
# the runs interleaved so that load hits all alike
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
: >"$T/rows"
r=0
while [ "$r" -lt "$RUNS" ]; do
	for m in $MODES; do
		for j in 1 "$JOBS"; do
			echo "$PROFCONV $m $j $(one "$PROFCONV" "$m" "$j")" >>"$T/rows"
		done
	done
	for b in $BASE; do
		for j in 1 "$JOBS"; do
			echo "$b base $j $(one "$b" base "$j")" >>"$T/rows"
		done
	done
	if [ -n "$PERF" ] && command -v "$PERF" >/dev/null 2>&1; then
		echo "perf-script script 1 $(perf_all)" >>"$T/rows"
	fi
	r=$((r + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
size=$(du -k "$REC" | cut -f1)
echo "recording:   $REC (${size} KiB), $FILES copies, ${SYMS:-with symbols}, best of $RUNS"
echo "machine:     $(getconf _NPROCESSORS_ONLN) CPUs, load average $load0 before, $load1 after"
echo "cache:       off = --no-symbol-cache; cold = an empty --symbol-cache before each run;"
echo "             warm = a --symbol-cache filled by one conversion beforehand"
awk -v jobs="$JOBS" '
function fn(n) { return n == "" ? "-" : n }
{ k = $1 " " $2 " " $3
  if (!(k in w) || $4 < w[k]) w[k] = $4
  if (!(k in c) || $5 < c[k]) c[k] = $5
  if (!(k in m) || $6 > m[k]) m[k] = $6
  kk = $1 " " $2
  if (!(kk in seen)) { seen[kk] = 1; order[n++] = kk } }
END {
  ps = "perf-script script 1"
  printf "%-44s %-5s %8s %8s %8s %8s %8s %8s %9s\n", "binary", "cache", "wall j1", "wall j" jobs,
    "speed-up", "CPU j1", "CPU j" jobs, "RSS MiB", "wall/perf"
  for (i = 0; i < n; i++) {
    split(order[i], f, " ")
    if (f[2] == "script") continue
    a = order[i] " 1"; p = order[i] " " jobs
    ratio = (ps in w && w[ps] > 0) ? sprintf("%9.3f", w[p] / w[ps]) : "        -"
    printf "%-44s %-5s %7.3fs %7.3fs %7.2fx %7.4fs %7.4fs %8.1f %s\n", f[1], f[2], w[a], w[p],
      w[a] / w[p], c[a], c[p], (m[a] > m[p] ? m[a] : m[p]) / 1024, ratio
  }
  if (ps in w)
    printf "%-44s %-5s %7.3fs %8s %8s %7.4fs %8s %8.1f\n", "perf script (each file, one by one)", "-",
      w[ps], "", "", c[ps], "", m[ps] / 1024
  printf "goal (2 idle cores, with symbols): speed-up >= 1.7 and wall j2 <= 0.3 s\n"
}' "$T/rows"
