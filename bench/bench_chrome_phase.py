#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench_chrome_phase.py - the Chrome reading phase's two threads, from a
perf timeline: one table row per binary.

usage: bench_chrome_phase.py TRACE.json PROFCONV [PROFCONV...]

Each binary converts TRACE (`-q TRACE -o BENCH_DIR/phase-out.json`) RUNS
times (default 9, the binaries alternating) under
`perf record -e cpu-clock -c 100000` (a sample per 0.1 ms of a thread's
CPU).  The reading phase is the scanner thread's first to last sample (the
scanner: the thread with the most samples in scan_event, batch_fill or
check_value); a row gives the medians of the phase's wall time, the
scanner's and the reader's (the main thread's) CPU in it, and the whole
run's span.  On a shared machine these move with the load: take the load
average with them.  Environment: BENCH_DIR (/tmp/profconv-bench-chrome),
RUNS, PROFCONV_CHROME_LEAN (passed on).
"""
import os
import statistics
import subprocess
import sys


def one(binary, trace, out, data):
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", data, binary, "-q",
                    trace, "-o", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = subprocess.run(["perf", "script", "-i", data, "-F", "tid,time,ip,sym"], capture_output=True,
                          text=True, check=True).stdout
    samples = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3:
            samples.append((int(f[0]), float(f[1].rstrip(":")), f[3] if len(f) > 3 else ""))
    scan = {}
    for tid, _, sym in samples:
        if sym.startswith(("scan_event", "batch_fill", "check_value")):
            scan[tid] = scan.get(tid, 0) + 1
    if not scan:
        raise SystemExit("no scanner samples (a build without symbols?)")
    st = max(scan, key=scan.get)
    main = min(tid for tid, _, _ in samples)
    ts = [t for tid, t, _ in samples if tid == st]
    a, b = min(ts), max(ts)
    reader = sum(1 for tid, t, _ in samples if tid == main and a <= t <= b)
    span = [t for _, t, _ in samples]
    return ((b - a) * 1e3, len(ts) * 0.1, reader * 0.1, (max(span) - min(span)) * 1e3)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    trace, bins = sys.argv[1], sys.argv[2:]
    d = os.environ.get("BENCH_DIR", "/tmp/profconv-bench-chrome")
    runs = int(os.environ.get("RUNS", "9"))
    out, data = os.path.join(d, "phase-out.json"), os.path.join(d, "phase-perf.data")
    rows = {b: [] for b in bins}
    for _ in range(runs):
        for b in bins:
            rows[b].append(one(b, trace, out, data))
    for f in (out, data):
        if os.path.exists(f):
            os.unlink(f)
    print("load average %.2f %.2f %.2f" % os.getloadavg())
    print("| profconv | phase wall ms | scanner CPU ms | reader CPU ms | run ms |")
    print("|---|---|---|---|---|")
    for b in bins:
        m = [statistics.median(c) for c in zip(*rows[b])]
        print("| %s | %.1f | %.1f | %.1f | %.1f |" % (b, *m))


if __name__ == "__main__":
    main()
