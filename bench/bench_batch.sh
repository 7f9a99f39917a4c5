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
# their own (the library's "threads" "no"), but for the batch's first.
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
# The wall time is perf stat's "time elapsed" when perf is there (the
# command's own, without perf's start and end: see timed() below).
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

# timed CMD...: "wall cpu rss_kib user sys" of one run.  With perf: the
# wall time is perf stat's "time elapsed" (from starting the command to its
# exit, nanoseconds; perf's own start and end, 10-20 ms of CPU and more
# under load, are outside it: taken around perf stat they were a serial part
# of every run, a fifth of a warm batch's wall time; the 6th field is the
# wall time around perf stat), CPU its task-clock
# (ms), user and system time the command's rusage (microseconds); they
# include GNU time's own, a fraction of a ms.  RSS from GNU time.  Without
# perf: the wall from the nanosecond clock around the command, the rest
# from GNU time (10 ms steps).
PS=
command -v perf >/dev/null 2>&1 && perf stat -e task-clock -o /dev/null true 2>/dev/null && PS=1
timed() {
	if [ -n "$GT" ] && [ -n "$PS" ]; then
		_t0=$(date +%s.%N)
		perf stat --no-big-num -e task-clock -o "$T/ps" $GT -f '%e %U %S %M' -o "$T/t" "$@"
		_t1=$(date +%s.%N)
		awk -v rss="$(cut -d' ' -f4 "$T/t")" -v o="$(awk "BEGIN { print $_t1 - $_t0 }")" '
			/msec task-clock/ { c = $1 / 1000 }
			/seconds time elapsed/ { w = $1 }
			/seconds user/ { u = $1 }
			/seconds sys/ { s = $1 }
			END { printf "%.4f %.4f %s %.4f %.4f %.4f\n", w, c, rss, u, s, o }' "$T/ps"
	elif [ -n "$GT" ]; then
		_t0=$(date +%s.%N)
		$GT -f '%e %U %S %M' -o "$T/t" "$@"
		_t1=$(date +%s.%N)
		awk -v w="$(awk "BEGIN { print $_t1 - $_t0 }")" \
			'{ printf "%.4f %.4f %s %s %s\n", w, $2 + $3, $4, $2, $3 }' "$T/t"
	else
		_t0=$(date +%s.%N)
		"$@"
		_t1=$(date +%s.%N)
		awk "BEGIN { printf \"%.4f nan nan nan nan\\n\", $_t1 - $_t0 }"
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
  if (!(k in c) || $5 < c[k]) { c[k] = $5; u[k] = $7; s[k] = $8 }
  if (!(k in m) || $6 > m[k]) m[k] = $6
  if ($9 != "") { no++; od[no] = $9 - $4 }
  kk = $1 " " $2
  if (!(kk in seen)) { seen[kk] = 1; order[n++] = kk } }
END {
  ps = "perf-script script 1"
  printf "%-44s %-5s %8s %8s %8s %8s %8s %15s %15s %8s %9s\n", "binary", "cache", "wall j1", "wall j" jobs,
    "speed-up", "CPU j1", "CPU j" jobs, "user/sys j1", "user/sys j" jobs, "RSS MiB", "wall/perf"
  for (i = 0; i < n; i++) {
    split(order[i], f, " ")
    if (f[2] == "script") continue
    a = order[i] " 1"; p = order[i] " " jobs
    ratio = (ps in w && w[ps] > 0) ? sprintf("%9.3f", w[p] / w[ps]) : "        -"
    printf "%-44s %-5s %7.3fs %7.3fs %7.2fx %7.4fs %7.4fs %7.4f/%.4f %7.4f/%.4f %8.1f %s\n", f[1], f[2], w[a], w[p],
      w[a] / w[p], c[a], c[p], u[a], s[a], u[p], s[p], (m[a] > m[p] ? m[a] : m[p]) / 1024, ratio
  }
  if (ps in w)
    printf "%-44s %-5s %7.3fs %8s %8s %7.4fs %8s %15s %15s %8.1f\n", "perf script (each file, one by one)", "-",
      w[ps], "", "", c[ps], "", u[ps] "/" s[ps], "", m[ps] / 1024
  if (no) {
    # the median time perf stat takes around the command (not in the walls)
    for (i = 1; i <= no; i++) for (j = i + 1; j <= no; j++) if (od[j] < od[i]) { t = od[i]; od[i] = od[j]; od[j] = t }
    printf "timer:       perf stat'"'"'s own start and end took %.1f ms a run (median of %d; outside the walls above)\n",
      od[int((no + 1) / 2)] * 1000, no
  }
  printf "goal (2 idle cores, with symbols): speed-up >= 1.7 and wall j2 <= 0.3 s\n"
}' "$T/rows"
