#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# bench_deep.sh - profconv against perf script on a recording of deep, varied
# stacks (bench/deep.c), in one run, and the issue-26 goal: profconv's wall
# time at most 1/16 of perf script's, peak RSS under 100 MB, on a recording
# of at least 300,000 distinct stacks.
#
# usage: bench/bench_deep.sh [--rerecord] [PERF.DATA]
#
#   PERF.DATA    benchmark this recording (nothing is recorded)
#   (none)       reuse $BENCH_DIR/deep.data, or record it:
#                  perf record -e cpu-clock -g -F 50000 -o $BENCH_DIR/deep.data \
#                      deep SECONDS 2
#                (deep built from bench/deep.c into $BENCH_DIR), SECONDS=30,
#                longer (up to 3 times, at most 300 s) while the output has
#                fewer than MIN_STACKS stacks
#   --rerecord   record again even if the recording exists
#
# environment:
#   BENCH_DIR    scratch directory (default /tmp/profconv-bench-deep)
#   PROFCONV     profconv binary (default: build/profconv of this tree)
#   RUNS         timed runs of each tool, alternating (default 5)
#   MIN_STACKS   distinct stacks the recording must give (default 300000)
#
# Each run is timed with /usr/bin/time -f '%e %U %S %M'; profconv converts
# with symbols (the CLI's default) to a new file each run.  Printed: the
# machine's load before and after, every run, then one table row: samples,
# distinct stacks (rows of the output's stack table), profconv median wall and
# CPU (user+sys) s and peak RSS, perf script median wall and CPU s, the ratios
# profconv / perf script of the medians (wall and CPU), and the verdict.  On a
# busy machine (load average above nproc) compare the CPU ratio.
# Exit status: 0 PASS, 1 FAIL or error, 2 usage error or a missing tool.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench-deep}
RUNS=${RUNS:-5}
MIN_STACKS=${MIN_STACKS:-300000}
RSS_BUDGET_MB=100 # 10^6 bytes
FACTOR=16
rerecord=0
input=

die() { echo "bench_deep: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--rerecord) rerecord=1 ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	-*) echo "bench_deep: unknown option $1" >&2; exit 2 ;;
	*) [ -z "$input" ] || { echo "bench_deep: one PERF.DATA only" >&2; exit 2; }
	   input=$1 ;;
	esac
	shift
done
case $RUNS in '' | *[!0-9]* | 0) echo "bench_deep: RUNS must be a positive integer" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "bench_deep: GNU time is missing (apt-get install -y time)" >&2; exit 2; }
command -v perf >/dev/null 2>&1 || { echo "bench_deep: perf is missing (apt-get install -y linux-perf)" >&2; exit 2; }
profconv=${PROFCONV:-$root/build/profconv}
[ -x "$profconv" ] || { echo "bench_deep: no profconv at $profconv (build it, or set PROFCONV)" >&2; exit 2; }
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
out=$BENCH_DIR/out.json

# the stack table's rows, from the conversion's summary line
stacks_of() { # stacks_of FILE
	"$profconv" "$1" -o "$out" 2>&1 | sed -n 's/.* \([0-9]*\) stacks,.*/\1/p' | tail -n 1
}

if [ -n "$input" ]; then
	data=$input
	[ -r "$data" ] || { echo "bench_deep: cannot read $data" >&2; exit 2; }
else
	data=$BENCH_DIR/deep.data
	if [ ! -x "$BENCH_DIR/deep" ] || [ "$here/deep.c" -nt "$BENCH_DIR/deep" ]; then
		cc -O1 -fno-omit-frame-pointer -g -pthread "$here/deep.c" -o "$BENCH_DIR/deep" ||
			die "building bench/deep.c failed"
	fi
	secs=30
	tries=0
	while :; do
		if [ ! -s "$data" ] || [ $rerecord = 1 ]; then
			echo "recording: perf record -e cpu-clock -g -F 50000 -o $data deep $secs 2" >&2
			perf record -e cpu-clock -g -F 50000 -o "$data.tmp" "$BENCH_DIR/deep" "$secs" 2 \
				>"$BENCH_DIR/record.log" 2>&1 ||
				{ cat "$BENCH_DIR/record.log" >&2; rm -f "$data.tmp"; die "perf record failed"; }
			mv -f "$data.tmp" "$data"
			rerecord=0
		fi
		n=$(stacks_of "$data")
		[ -n "$n" ] || die "cannot convert $data"
		[ "$n" -ge "$MIN_STACKS" ] && break
		tries=$((tries + 1))
		[ $tries -le 3 ] || die "$data has only $n stacks after $tries recordings"
		secs=$((secs * (MIN_STACKS * 23 / 20) / (n > 0 ? n : 1) + 1))
		[ $secs -le 300 ] || secs=300
		echo "only $n stacks: recording again for $secs s" >&2
		rerecord=1
	done
fi
stacks=$(stacks_of "$data")
samples=$("$profconv" info "$data" 2>/dev/null | awk '/^samples:/ { print $2; exit }')
cat "$data" >/dev/null # page cache

echo "== bench_deep  $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  nproc $(nproc), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
echo "load avg: $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
echo "profconv: $profconv ($("$profconv" --version 2>&1 | head -n 1))"
echo "perf:     $(perf --version 2>&1)"
echo "input:    $data ($(stat -L -c %s "$data") B, $samples samples, $stacks stacks)"
times=$BENCH_DIR/times.tsv
: >"$times"
for i in $(seq "$RUNS"); do
	order="profconv perf"
	[ $((i % 2)) = 0 ] && order="perf profconv"
	for tool in $order; do
		if [ "$tool" = profconv ]; then
			rm -f "$out"
			/usr/bin/time -f '%e %U %S %M' -o "$BENCH_DIR/t" "$profconv" -q "$data" -o "$out"
		else
			/usr/bin/time -f '%e %U %S %M' -o "$BENCH_DIR/t" perf script -i "$data" >/dev/null 2>"$BENCH_DIR/perf.err"
		fi
		read -r e u s m <"$BENCH_DIR/t"
		printf '%s\t%s\t%s\t%s\t%s\n' "$tool" "$e" "$u" "$s" "$m" >>"$times"
		printf '  run %d/%d  %-8s  wall %6.2f s  cpu %6.2f s  rss %7.1f MiB\n' "$i" "$RUNS" "$tool" \
			"$e" "$(echo "$u $s" | awk '{ print $1 + $2 }')" "$(echo "$m" | awk '{ print $1 / 1024 }')"
	done
done
echo "load avg: $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
awk -v samples="$samples" -v stacks="$stacks" -v factor=$FACTOR -v budget=$RSS_BUDGET_MB \
	-v nproc="$(nproc)" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n[$1]++; w[$1, n[$1]] = $2; c[$1, n[$1]] = $3 + $4; if ($5 > rss[$1]) rss[$1] = $5 }
END {
	for (t in n) { delete a; for (i = 1; i <= n[t]; i++) a[i] = w[t, i]; mw[t] = median(a, n[t])
		       delete a; for (i = 1; i <= n[t]; i++) a[i] = c[t, i]; mc[t] = median(a, n[t]) }
	rw = mw["perf"] > 0 ? mw["profconv"] / mw["perf"] : 0
	rc = mc["perf"] > 0 ? mc["profconv"] / mc["perf"] : 0
	mb = rss["profconv"] * 1024 / 1e6
	iw = (rw > 0) ? 1 / rw : 0
	ic = (rc > 0) ? 1 / rc : 0
	print ""
	print "| samples | stacks | profconv wall s | profconv CPU s | profconv peak RSS | perf script wall s | perf script CPU s | ratio wall | ratio CPU |"
	print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	printf "| %d | %d | %.2f | %.2f | %.1f MB | %.2f | %.2f | 1/%.1f (%.3f) | 1/%.1f (%.3f) |\n", samples, stacks,
		mw["profconv"], mc["profconv"], mb, mw["perf"], mc["perf"], iw, rw, ic, rc
	print ""
	if ((load + 0) > (nproc + 0))
		printf "warning: the machine is busy (load %s on %d CPUs): wall times are inflated; compare the CPU ratio\n", load, nproc
	fast = (rw <= 1 / factor)
	small = (mb < budget)
	ok = (fast && small && stacks >= 300000)
	printf "%s: profconv median wall %.2f s %s perf script median wall / %d = %.2f s; peak RSS %.1f MB %s %d MB; %d stacks\n",
		(ok ? "PASS" : "FAIL"), mw["profconv"], (fast ? "<=" : ">"), factor, mw["perf"] / factor,
		mb, (small ? "<" : ">="), budget, stacks
	exit ok ? 0 : 1
}' "$times"
