#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench_faults.sh - kernel time and page faults of two profconv builds on the
# same inputs, measured alternately (issue 26): for each input, RUNS rounds
# of `perf stat -r REPS -e task-clock,page-faults,context-switches` of the
# reference build then of the new one, and a row per build with the medians
# of user and system CPU (ms), page faults, context switches and peak RSS
# (MB, /usr/bin/time), and the load average.
#
#   BASE=/path/to/old/profconv NEW=build-rel/profconv sh bench/bench_faults.sh [INPUT...]
#
# Inputs default to the real Chromium 156 trace and its 256 MiB tiling
# (/tmp/profconv-bench-chrome), system.data with a warm symbol cache and
# deep.data (the perf recordings issue 26 names).  RUNS (default 2) and
# REPS (default 10).  Outputs go to $BENCH_DIR (default /tmp/profconv-bench-faults).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
NEW=${NEW:-$top/build-rel/profconv}
BASE=${BASE:?set BASE to the reference profconv binary}
RUNS=${RUNS:-2}
REPS=${REPS:-10}
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench-faults}
mkdir -p "$BENCH_DIR"
if [ $# -eq 0 ]; then
	set -- /tmp/profconv-bench-chrome/chromium156-small.json \
		/tmp/profconv-bench-chrome/tile2-chromium156-small-256.json \
		/tmp/profconv-bench-perf-sys/system.data /tmp/profconv-bench-perf-deep/deep.data
fi

# one perf stat run: prints "user_ms sys_ms faults cs"
stat1() {
	perf stat -x, -r "$REPS" -e task-clock,page-faults,context-switches,user_time,system_time \
		"$@" 2>&1 >/dev/null | awk -F, '
		$3 ~ /^page-faults/ { f = $1 } $3 ~ /^context-switches/ { c = $1 }
		$3 ~ /^user_time/ { u = $1 / 1e6 } $3 ~ /^system_time/ { s = $1 / 1e6 }
		END { printf "%.1f %.1f %d %d\n", u, s, f, c }'
}

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '| input | build | user ms | sys ms | page faults | context switches | peak RSS MB | load |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for in in "$@"; do
	[ -s "$in" ] || { echo "$in: missing" >&2; continue; }
	args="-q"
	case $in in *.data) args="-q --symbol-cache $BENCH_DIR/warm" ;; esac
	"$BASE" $args -o "$BENCH_DIR/warm.json" "$in" 2>/dev/null || true # fill the cache
	"$NEW" $args -o "$BENCH_DIR/warm.json" "$in" 2>/dev/null || true
	: >"$BENCH_DIR/base.txt"
	: >"$BENCH_DIR/new.txt"
	r=0
	while [ $r -lt "$RUNS" ]; do
		stat1 "$BASE" $args -o "$BENCH_DIR/o.json" "$in" >>"$BENCH_DIR/base.txt"
		stat1 "$NEW" $args -o "$BENCH_DIR/o.json" "$in" >>"$BENCH_DIR/new.txt"
		r=$((r + 1))
	done
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	for b in base new; do
		bin=$BASE
		[ $b = new ] && bin=$NEW
		rss=$(/usr/bin/time -f %M "$bin" $args -o "$BENCH_DIR/o.json" "$in" 2>&1 >/dev/null | tail -1)
		printf '| %s | %s | %s | %s | %s | %s | %.1f | %s |\n' "$(basename "$in")" $b \
			"$(cut -d' ' -f1 "$BENCH_DIR/$b.txt" | med)" "$(cut -d' ' -f2 "$BENCH_DIR/$b.txt" | med)" \
			"$(cut -d' ' -f3 "$BENCH_DIR/$b.txt" | med)" "$(cut -d' ' -f4 "$BENCH_DIR/$b.txt" | med)" \
			"$(echo "$rss" | awk '{ print $1 / 1000 }')" "$load"
	done
done
