#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench_system.sh - system-wide recordings (perf record -a -g while a build
# runs: many threads, many libraries, symbols from this machine's debug
# files) converted by profconv beside perf script on the same file, in one
# run: issue 26's goals, profconv <= 1/4 of perf script on a 20 s recording
# and <= 1 on a small (about 2 MB) one.  One row per recording and way:
#
#   off       symbols, --no-symbol-cache (every symbol file read)
#   cold      symbols, an emptied --symbol-cache before each run (read, and
#             the cache written)
#   warm      symbols, a --symbol-cache filled by one conversion beforehand
#   no-syms   --no-symbols
#   perf      perf script -i FILE > /dev/null
#
# with the best wall and CPU (user+sys) time of RUNS interleaved runs, the
# peak RSS, and the ratios to perf script's wall and CPU time.  Under load
# (the load average is printed) compare CPU times.
#
# usage: bench/bench_system.sh [RECORDING...]
#   RECORDING  perf.data files to convert; without any, $BENCH_DIR/system.data
#              and $BENCH_DIR/system-small.data, recorded first when missing
#              (needs root or perf_event_paranoid <= 0): perf record -a -g for
#              20 s and for 2 s while this tree builds (make -j2) in
#              $BENCH_DIR/load
# environment:
#   PROFCONV   the binary (default build/profconv)
#   BENCH_DIR  scratch directory (default /tmp/profconv-bench-system)
#   RUNS       timed runs of each (default 3)
#   PERF       perf (default perf)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PROFCONV=${PROFCONV:-$top/build/profconv}
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench-system}
RUNS=${RUNS:-3}
PERF=${PERF:-perf}
[ -x "$PROFCONV" ] || { echo "bench_system: no $PROFCONV (build first)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "bench_system: needs GNU time" >&2; exit 1; }
mkdir -p "$BENCH_DIR"
T=$(mktemp -d "$BENCH_DIR/run.XXXXXX")
trap 'rm -rf "$T"' EXIT

# record NAME SECONDS: a system-wide recording while the tree builds
record() {
	rm -rf "$BENCH_DIR/load"
	mkdir -p "$BENCH_DIR/load"
	(cd "$top" && git archive HEAD) | tar -x -C "$BENCH_DIR/load"
	cmake -S "$BENCH_DIR/load" -B "$BENCH_DIR/load/b" -DCMAKE_BUILD_TYPE=Release \
		-DPROFCONV_BUILD_TESTS=OFF >/dev/null 2>&1 || true
	(cmake --build "$BENCH_DIR/load/b" -j2 >/dev/null 2>&1 &)
	sleep 1
	"$PERF" record -a -g -o "$BENCH_DIR/$1" -- sleep "$2" >/dev/null 2>&1
	# let the build end before the next step
	while pgrep -f "$BENCH_DIR/load/b" >/dev/null 2>&1; do sleep 1; done
}

if [ $# = 0 ]; then
	[ -s "$BENCH_DIR/system.data" ] || record system.data 20
	[ -s "$BENCH_DIR/system-small.data" ] || record system-small.data 2
	set -- "$BENCH_DIR/system.data" "$BENCH_DIR/system-small.data"
fi

# timed CMD...: "wall cpu rss_kib"
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$T/t" "$@" >/dev/null 2>&1 || {
		echo "bench_system: failed: $*" >&2
		exit 1
	}
	awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$T/t"
}

run() { # REC WAY
	case $2 in
	off) timed "$PROFCONV" -q --no-symbol-cache -o "$T/o.json" "$1" ;;
	cold) rm -rf "$T/cold"; timed "$PROFCONV" -q --symbol-cache "$T/cold" -o "$T/o.json" "$1" ;;
	warm) timed "$PROFCONV" -q --symbol-cache "$T/warm" -o "$T/o.json" "$1" ;;
	no-syms) timed "$PROFCONV" -q --no-symbols -o "$T/o.json" "$1" ;;
	perf) timed sh -c '"$0" script -i "$1" >/dev/null 2>&1' "$PERF" "$1" ;;
	esac
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$T/rows"
for rec in "$@"; do
	[ -s "$rec" ] || { echo "bench_system: no $rec" >&2; exit 1; }
	cat "$rec" >/dev/null
	rm -rf "$T/warm"
	"$PROFCONV" -q --symbol-cache "$T/warm" -o "$T/o.json" "$rec"
	# the same bytes whichever way
	"$PROFCONV" -q --no-symbol-cache -o "$T/ref.json" "$rec"
	cmp -s "$T/o.json" "$T/ref.json" || { echo "bench_system: $rec: cached output differs" >&2; exit 1; }
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		for way in off cold warm no-syms perf; do
			echo "$rec $way $(run "$rec" "$way")" >>"$T/rows"
		done
		r=$((r + 1))
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "machine:  $(getconf _NPROCESSORS_ONLN) CPUs, load average $load0 before, $load1 after; best of $RUNS"
for rec in "$@"; do
	echo "$rec: $(du -k "$rec" | cut -f1) KiB, $("$PROFCONV" info "$rec" 2>/dev/null | grep -i -m1 'samples' || true)"
done
awk '
{ k = $1 " " $2
  if (!(k in w) || $3 < w[k]) w[k] = $3
  if (!(k in c) || $4 < c[k]) c[k] = $4
  if (!(k in m) || $5 > m[k]) m[k] = $5
  if (!($1 in seen)) { seen[$1] = 1; recs[n++] = $1 } }
END {
  printf "%-28s %-8s %8s %8s %8s %10s %10s\n", "recording", "way", "wall", "CPU", "RSS MiB",
    "wall/perf", "CPU/perf"
  split("off cold warm no-syms perf", ways, " ")
  for (i = 0; i < n; i++) {
    r = recs[i]; p = r " perf"; nm = r; sub(/.*\//, "", nm)
    for (k = 1; k <= 5; k++) {
      x = r " " ways[k]
      printf "%-28s %-8s %7.3fs %7.3fs %8.1f %10.3f %10.3f\n", nm, ways[k], w[x], c[x], m[x] / 1024,
        w[x] / w[p], c[x] / c[p]
    }
  }
  print "goals: the 20 s recording <= 0.25 of perf script, the small one <= 1 (quiet machine, wall)"
}' "$T/rows"
