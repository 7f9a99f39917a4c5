#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench_open.sh - what a user waits for: profconv's conversion plus the
# deployed front-end opening the output, against the front-end importing the
# raw input itself, one table row per input, and the issue's goal:
# (conversion + open) <= raw import / 4.
#
# usage: bench/bench_open.sh [INPUT...]
# Without INPUT: the Chromium 156 fixture and its tilings to 260 and 1024
# MiB (tile_chrome_trace.py; made once in BENCH_DIR).  An INPUT may be a
# Chrome trace, a Gecko profile (the front-end imports both itself) or a
# perf.data (no raw import: its columns say -).
#
# Columns: input size; conversion wall s and CPU s (user+sys) and peak RSS;
# output size; the front-end opening the output (validate.sh --production
# --fast --no-invariants: the app's own loading into its store, no selector
# pass): its "loaded in" wall s, the process's CPU s and peak RSS; the same
# for the raw input; ratio = (conversion + open) / raw import, from CPU
# times (on a loaded machine wall times are noise) and from wall times.
# A front-end run that fails (out of memory, ...) prints FAIL in its columns.
#
# environment: BENCH_DIR (default /tmp/profconv-bench-open), PROFCONV (a
#   profconv binary; default: build-release-gcc/profconv, else build/profconv),
#   FE (fe-validator's validator directory; default ~/fe-validator/validator),
#   FIXTURE (the real trace; default /work/shared/fixtures/chrome/chromium156-small.json.zst),
#   SIZES (tilings in MiB; default "260 1024"), RAW=0 (skip the raw imports),
#   KEEP=1 (keep the outputs; default: each is deleted after its row),
#   WARM=0 (no untimed conversion before the timed one)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench-open}
FE=${FE:-$HOME/fe-validator/validator}
FIXTURE=${FIXTURE:-/work/shared/fixtures/chrome/chromium156-small.json.zst}
SIZES=${SIZES:-260 1024}
RAW=${RAW:-1}
if [ -z "${PROFCONV:-}" ]; then
	PROFCONV=$top/build/profconv
	[ -x "$top/build-release-gcc/profconv" ] && PROFCONV=$top/build-release-gcc/profconv
fi
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install -y time)"; exit 2; }
[ -x "$PROFCONV" ] || { echo "no profconv at $PROFCONV (build it, or set PROFCONV)"; exit 2; }
[ -x "$FE/validate.sh" ] || { echo "no fe-validator at $FE (set FE)"; exit 2; }
mkdir -p "$BENCH_DIR"

inputs=("$@")
if [ ${#inputs[@]} = 0 ]; then
	real=$BENCH_DIR/chromium156-small.json
	if [ ! -s "$real" ]; then
		case $FIXTURE in
		*.zst) zstd -q -dc "$FIXTURE" >"$real.tmp" ;;
		*) cp "$FIXTURE" "$real.tmp" ;;
		esac
		mv "$real.tmp" "$real"
	fi
	inputs=("$real")
	for s in $SIZES; do
		t=$BENCH_DIR/tile2-$s.json
		if [ ! -s "$t" ]; then
			echo "tiling $real into $t ($s MiB)..." >&2
			python3 "$here/tile_chrome_trace.py" "$real" "$s" "$t.tmp" && mv "$t.tmp" "$t"
		fi
		inputs+=("$t")
	done
fi

tf=$BENCH_DIR/time.$$
trap 'rm -f "$tf" "$BENCH_DIR"/out.$$.json "$BENCH_DIR"/fe.$$.log' EXIT
# run CMD...: sets wall cpu rss (s, s, MB) from GNU time; returns CMD's status
run() {
	local st=0
	/usr/bin/time -o "$tf" -f '%e %U %S %M' "$@" || st=$?
	read -r wall u s kb < <(tail -n 1 "$tf")
	cpu=$(echo "$u $s" | awk '{printf "%.2f", $1 + $2}')
	rss=$((kb / 1024))
	return $st
}
# fe FILE: the front-end loading FILE; sets fe_load (the app's "loaded in",
# s), fe_cpu, fe_rss, or fe_load=FAIL
fe() {
	if run "$FE/validate.sh" --production --fast --no-invariants "$1" >"$BENCH_DIR/fe.$$.log" 2>&1 &&
		grep -q '^OK' "$BENCH_DIR/fe.$$.log"; then
		fe_load=$(sed -n 's/.*loaded in \([0-9]*\) ms.*/\1/p' "$BENCH_DIR/fe.$$.log" | head -n 1)
		fe_load=$(echo "$fe_load" | awk '{printf "%.2f", $1 / 1000}')
	else
		fe_load=FAIL
	fi
	fe_cpu=$cpu
	fe_rss=$rss
}
mb() { stat -c %s "$1" | awk '{printf "%.1f", $1 / 1048576}'; }
ratio() {
	if [ "$3" = FAIL ] || [ "$3" = - ]; then echo -; else echo "$1 $2 $3" | awk '{printf "%.3f", ($1 + $2) / $3}'; fi
}

echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) profconv=$PROFCONV front-end=production"
printf '%-22s %8s | %6s %6s %6s %8s | %6s %6s %6s | %6s %6s %6s | %6s %6s\n' \
	input in_MiB conv_s conv_cpu conv_MB out_MiB open_s open_cpu open_MB raw_s raw_cpu raw_MB \
	r_cpu r_wall
for in in "${inputs[@]}"; do
	out=$BENCH_DIR/out.$$.json
	# one conversion first, untimed: the input in the page cache, as in
	# bench_chrome.sh's runs after its first (a tiling just written is still
	# being written back: the 260 MiB one's single conversion took 1.06 s
	# then, 0.67 s warm)
	[ "${WARM:-1}" = 1 ] && { "$PROFCONV" -q "$in" -o "$out" || true; rm -f "$out"; }
	run "$PROFCONV" -q "$in" -o "$out" || { echo "$in: conversion failed"; continue; }
	c_wall=$wall c_cpu=$cpu c_rss=$rss
	osize=$(mb "$out")
	fe "$out"
	o_load=$fe_load o_cpu=$fe_cpu o_rss=$fe_rss
	[ "${KEEP:-0}" = 1 ] && cp "$out" "$BENCH_DIR/$(basename "$in").out.json"
	rm -f "$out"
	r_load=- r_cpu=- r_rss=-
	if [ "$RAW" = 1 ] && ! head -c 4 "$in" | grep -q PERF; then
		fe "$in"
		r_load=$fe_load r_cpu=$fe_cpu r_rss=$fe_rss
	fi
	rc=$(ratio "$c_cpu" "$o_cpu" "$r_cpu")
	[ "$o_load" = FAIL ] && rc=-
	rw=-
	[ "$o_load" != FAIL ] && [ "$r_load" != FAIL ] && [ "$r_load" != - ] &&
		rw=$(ratio "$c_wall" "$o_load" "$r_load")
	printf '%-22s %8s | %6s %6s %6s %8s | %6s %6s %6s | %6s %6s %6s | %6s %6s\n' \
		"$(basename "$in" | cut -c1-22)" "$(mb "$in")" "$c_wall" "$c_cpu" "$c_rss" "$osize" \
		"$o_load" "$o_cpu" "$o_rss" "$r_load" "$r_cpu" "$r_rss" "$rc" "$rw"
done
echo "# r_cpu = (conversion CPU + open CPU) / raw import CPU, whole processes;" \
	"r_wall = (conversion wall + open's loaded-in) / raw's loaded-in; goal <= 0.25"
