#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench_write_phase.py - the writing phase's wall time and each thread's
CPU in it, from a perf timeline, for one or more profconv binaries
(alternating, so that they share the machine's load), one table row per
input and binary.

usage: bench_write_phase.py [-n RUNS] [-a 'PROFCONV ARGS'] INPUT BIN [BIN...]

Each run is `perf record -e cpu-clock -c 100000` (a sample every 0.1 ms of
a thread's CPU) of `BIN ARGS INPUT -o OUT`; `perf script -F tid,time,ip,sym`
gives the samples.  The writing phase runs from the first sample of the
writer's helper thread (a thread with samples in helper(), format_job(),
any_job_fn(), col_job_run() or mk_job()) to the last sample of the helper
or of the output thread (samples in the kernel's page-cache write,
copy_folio_*() or ext4_*()); the main thread's, the helper's and the output
thread's samples in it are their CPU.  A row gives the medians over the
runs.  Without a helper (a small profile, `--threads no`) a run is skipped.
Set PC_CHRT=1 to run under `chrt -f 10` (a shared machine's other load
then waits; needs root).
"""
import collections
import os
import statistics as st
import subprocess
import sys
import tempfile

HELPER = {"helper", "format_job", "any_job_fn", "col_job_run", "mk_job", "former_sink"}


def phase(script):
    by = collections.defaultdict(list)
    for line in script.splitlines():
        p = line.split()
        if len(p) < 3:
            continue
        try:
            tid, t = int(p[0]), float(p[1].rstrip(":"))
        except ValueError:
            continue
        # without the compiler's suffixes (helper.lto_priv.0, col_job_run.part.0)
        by[tid].append((t, p[3].split(".")[0] if len(p) > 3 else "?"))
    if not by:
        return None
    main = min(by)
    helpers = [t for t in by if t != main and any(s in HELPER for _, s in by[t])]
    if not helpers:
        return None
    h = helpers[0]
    outs = [t for t in by if t not in (main, h)
            and any(s.startswith(("copy_folio", "ext4_")) for _, s in by[t])]
    start = min(t for t, _ in by[h])
    end = max(t for tid in [h] + outs for t, _ in by[tid])

    def cpu(tids):
        return 0.1 * sum(1 for tid in tids for t, _ in by[tid] if start <= t <= end)

    return (end - start) * 1e3, cpu([main]), cpu([h]), cpu(outs)


def main():
    args = sys.argv[1:]
    runs, extra = 5, []
    while args and args[0] in ("-n", "-a"):
        if args[0] == "-n":
            runs = int(args[1])
        else:
            extra = args[1].split()
        args = args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    inp, bins = args[0], args[1:]
    res = {b: [] for b in bins}
    with tempfile.TemporaryDirectory(prefix="pc-wphase-") as d:
        out, rec = os.path.join(d, "out.json"), os.path.join(d, "perf.data")
        for _ in range(runs):
            for b in bins:
                if os.path.exists(out):
                    os.remove(out)
                cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", rec,
                       b, "-q"] + extra + [inp, "-o", out]
                if os.environ.get("PC_CHRT"):
                    cmd = ["chrt", "-f", "10"] + cmd
                subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
                s = subprocess.run(["perf", "script", "-i", rec, "-F", "tid,time,ip,sym"],
                                   capture_output=True, text=True).stdout
                r = phase(s)
                if r:
                    res[b].append(r)
    print("| input | binary | runs | phase ms | main CPU ms | helper CPU ms | output CPU ms |")
    print("|---|---|---|---|---|---|---|")
    for b in bins:
        if not res[b]:
            print("| %s | %s | 0 | - | - | - | - |" % (os.path.basename(inp), b))
            continue
        med = [st.median(x[i] for x in res[b]) for i in range(4)]
        print("| %s %s | %s | %d | %.2f | %.1f | %.1f | %.1f |" % (
            os.path.basename(inp), " ".join(extra), b, len(res[b]), *med))


if __name__ == "__main__":
    main()
