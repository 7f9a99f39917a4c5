#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench_all.sh - issue 26's figures in one run: every benchmark one after the
# other on the same machine, then their tables together with the load
# average at each start.
#
#   chrome   bench_chrome.sh --real: the Chromium 156 trace, its 256 MiB and
#            1 GiB tilings, profconv against json.load
#   open     bench_open.sh: conversion plus the production front-end opening
#            the output, against the front-end importing the raw trace
#            (needs ~/fe-validator; the 1 GiB raw import takes minutes, 6 GB)
#   deep     bench_deep.sh: a deep-stack perf recording against perf script
#   system   bench_system.sh: system-wide recordings made during a build,
#            symbols from this machine's debug files, against perf script
#   batch    bench_batch.sh: 50 recordings, --jobs 1 against --jobs 2
#
# usage: bench/bench_all.sh [NAME...]      (default: all five, in that order)
# environment: PROFCONV (default: build-release-gcc/profconv, the Release
#   build scripts/test.sh makes, else build/profconv), FIXTURE (the real
#   Chrome trace; default ../shared/fixtures/chrome/chromium156-small.json.zst
#   next to this tree), LOGS (default /tmp/profconv-bench-all), DEEP_DATA (a
#   deep-stack recording to use instead of recording one), SYSTEM_DATA
#   (system-wide recordings, space-separated, likewise); every
#   script's own variables pass through.  Needs root for the perf recordings
#   (or kernel.perf_event_paranoid <= 0).  Exit status: 1 if any benchmark
#   failed to run or missed its goal, else 0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
LOGS=${LOGS:-/tmp/profconv-bench-all}
FIXTURE=${FIXTURE:-$top/../shared/fixtures/chrome/chromium156-small.json.zst}
if [ -z "${PROFCONV:-}" ]; then
	for p in "$top/build-release-gcc/profconv" "$top/build/profconv"; do
		[ -x "$p" ] && PROFCONV=$p && break
	done
fi
[ -n "${PROFCONV:-}" ] || { echo "bench_all.sh: no profconv binary: build it or set PROFCONV" >&2; exit 2; }
export PROFCONV
mkdir -p "$LOGS"
names=${*:-chrome open deep system batch}
status=0

run() {
	name=$1
	shift
	echo "== $name: $* (load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M:%S) UTC)" |
		tee "$LOGS/$name.head"
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	echo "   exit $rc, load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$LOGS/$name.head"
	[ $rc -eq 0 ] || status=1
}

for n in $names; do
	case $n in
	chrome) run chrome bash "$here/bench_chrome.sh" --real "$FIXTURE" 256 1024 ;;
	open) run open env FIXTURE="$FIXTURE" bash "$here/bench_open.sh" ;;
	deep) run deep bash "$here/bench_deep.sh" ${DEEP_DATA:-} ;;
	system) run system sh "$here/bench_system.sh" ${SYSTEM_DATA:-} ;;
	batch) run batch sh "$here/bench_batch.sh" ;;
	*) echo "bench_all.sh: unknown benchmark '$n' (chrome, open, deep, system, batch)" >&2; exit 2 ;;
	esac
done

echo
echo "machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), profconv $PROFCONV"
for n in $names; do
	echo
	cat "$LOGS/$n.head"
	# each script ends with its table and verdict
	tail -n 16 "$LOGS/$n.log"
done
exit $status
