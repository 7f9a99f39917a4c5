#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# bench_dwarf.sh - profconv on a --call-graph dwarf recording (unwinding every
# sample's user stack from its stack copy, then symbolicating) against
# `perf script -F tid,ip,sym,dso` (perf's own unwinding and symbols) on the
# same file, in the same run, round-robin.
#
# usage: bench/bench_dwarf.sh [PERF.DATA]   (default $BENCH_DIR/dwarf.data)
#   When PERF.DATA does not exist it is recorded: tests/fixtures/perf/src/dwarfprog
#           (no frame pointers; qsort callbacks through libc, system calls,
#           the vdso) under perf record -e cpu-clock --call-graph dwarf -F 4000
#           for SECONDS_REC seconds (default 8: about 31,000 samples and 260 MB
#           here); reused when it exists
# environment: BENCH_DIR (/tmp/profconv-bench-dwarf), RUNS (3), SECONDS_REC (8),
#              PROFCONV (default: build/profconv of this tree)
# Goal (issue 7): profconv's median wall time <= perf script's.  Exit 0 when
# it holds, 1 when not, 2 for a missing tool.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench-dwarf}
RUNS=${RUNS:-3}
SECONDS_REC=${SECONDS_REC:-8}
PROFCONV=${PROFCONV:-$top/build/profconv}
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install -y time)"; exit 2; }
[ -x "$PROFCONV" ] || { echo "no profconv at $PROFCONV (build it, or set PROFCONV)"; exit 2; }
command -v perf >/dev/null || { echo "needs perf"; exit 2; }
mkdir -p "$BENCH_DIR"
data=${1:-$BENCH_DIR/dwarf.data}
mkdir -p "$(dirname "$data")"
if [ ! -s "$data" ]; then
	prog=$top/tests/fixtures/perf/src/dwarfprog
	[ -x "$prog" ] || make -s -C "$top/tests/fixtures/perf/src" dwarfprog
	echo "recording $data ($SECONDS_REC s)..."
	perf record -q -e cpu-clock --call-graph dwarf -F 4000 -o "$data.tmp" "$prog" "$SECONDS_REC" \
		>/dev/null 2>"$BENCH_DIR/record.log" || { cat "$BENCH_DIR/record.log"; exit 1; }
	mv "$data.tmp" "$data"
fi
cat "$data" >/dev/null # page cache
samples=$(perf report --stats -i "$data" 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }')
echo "== profconv --call-graph dwarf benchmark  $(date -u '+%F %T') UTC"
echo "machine:  nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load avg: $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
echo "perf:     $(perf --version)"
echo "input:    $data, $(stat -c %s "$data") bytes, ${samples:-?} samples"
"$PROFCONV" -v "$data" -o "$BENCH_DIR/out.json" 2>&1 | grep -E "unwound|wrote"
times=$BENCH_DIR/times.tsv
: >"$times"
run() { # label command...
	local label=$1
	shift
	/usr/bin/time -f "$label %e %U %S %M" -o "$BENCH_DIR/t" "$@" >/dev/null 2>"$BENCH_DIR/err" ||
		{ cat "$BENCH_DIR/err"; exit 1; }
	cat "$BENCH_DIR/t" >>"$times"
}
for i in $(seq "$RUNS"); do
	if [ $((i % 2)) = 1 ]; then
		run profconv "$PROFCONV" -q "$data" -o "$BENCH_DIR/out.json"
		run perf-script perf script -i "$data" -F tid,ip,sym,dso
	else
		run perf-script perf script -i "$data" -F tid,ip,sym,dso
		run profconv "$PROFCONV" -q "$data" -o "$BENCH_DIR/out.json"
	fi
done
"$PROFCONV" validate "$BENCH_DIR/out.json" | head -1
echo "load avg: $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
python3 - "$times" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        rows.setdefault(f[0], []).append((float(f[1]), float(f[2]) + float(f[3]), int(f[4]) / 1024))
print("| tool | runs | median wall s | min wall s | median CPU s | peak RSS MiB |")
print("|---|---:|---:|---:|---:|---:|")
for k in ("profconv", "perf-script"):
    r = rows[k]
    print("| %s | %d | %.2f | %.2f | %.2f | %.0f |" % (k, len(r), st.median(x[0] for x in r),
          min(x[0] for x in r), st.median(x[1] for x in r), max(x[2] for x in r)))
pw = st.median(x[0] for x in rows["profconv"])
sw = st.median(x[0] for x in rows["perf-script"])
print("perf script / profconv (median wall): %.1fx" % (sw / pw))
ok = pw <= sw
print("%s: profconv (unwinding + symbols) %s perf script -F tid,ip,sym,dso" % ("PASS" if ok else "FAIL",
      "no slower than" if ok else "slower than"))
sys.exit(0 if ok else 1)
PY
