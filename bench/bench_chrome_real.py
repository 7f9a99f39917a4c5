#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench_chrome_real.py - bench_chrome.sh --real: profconv against Python's
json.load on a real Chrome trace and its tilings, in one run, one table row
per input.

usage: bench_chrome.sh --real REAL.json[.zst] [SIZE_MIB...]   (default: 256)

Inputs: the real trace (decompressed into BENCH_DIR when it ends in .zst),
then one tiling of it per SIZE_MIB (tile_chrome_trace.py, made once and
kept in BENCH_DIR).  Each tool runs RUNS times (default 3) per input, the
two alternating run by run (the machine's speed drifts alike for both), timed
from its spawn to its exit (os.wait4(): wall to the microsecond, where
/usr/bin/time's %e has 10 ms steps, a quarter of the real trace's time;
CPU and peak RSS from the child's rusage): profconv converts (`profconv -q IN -o BENCH_DIR/out.json`,
the previous output deleted outside the timing), json.load parses.  A row
gives the medians of wall and CPU (user+sys) time, profconv's peak RSS and
the ratios profconv / json.load of median wall and of median CPU time,
and the median of the run-by-run wall ratios (each profconv run against the
json.load run next to it: the machine's drift between minutes, which moves
both medians, cancels out there; the goal is judged on the ratio of
medians, as before).
json.load is skipped above JSONLOAD_MAX_MIB (default 512; it needs about
6x the input in memory).  Goals: ratio <= 0.10, peak RSS < 400 MB.
Environment: BENCH_DIR (/tmp/profconv-bench-chrome), RUNS, PROFCONV.
"""
import os
import statistics as st
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
bench_dir = os.environ.get("BENCH_DIR", "/tmp/profconv-bench-chrome")
runs = int(os.environ.get("RUNS", "3"))
jl_max = float(os.environ.get("JSONLOAD_MAX_MIB", "512"))
profconv = os.environ.get("PROFCONV") or (
    os.path.join(top, "build-release-gcc/profconv")
    if os.access(os.path.join(top, "build-release-gcc/profconv"), os.X_OK)
    else os.path.join(top, "build/profconv"))


def timed(cmd):
    """(wall s, CPU s, max RSS MiB) of one run of cmd."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode:
            err.seek(0)
            sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                               err.read().decode(errors="replace")))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    if not sys.argv[1:]:
        sys.stderr.write(__doc__)
        return 2
    real, sizes = sys.argv[1], [float(x) for x in sys.argv[2:]] or [256]
    os.makedirs(bench_dir, exist_ok=True)
    base = os.path.basename(real)
    if base.endswith(".zst"):
        base = base[:-4]
        plain = os.path.join(bench_dir, base)
        if not os.path.exists(plain):
            with open(plain + ".tmp", "wb") as f:
                subprocess.run(["zstd", "-dc", real], stdout=f, check=True)
            os.rename(plain + ".tmp", plain)
        real = plain
    stem = base[:-5] if base.endswith(".json") else base
    inputs = [("real", real)]
    for s in sizes:
        t = os.path.join(bench_dir, "tile2-%s-%g.json" % (stem, s))
        if not os.path.exists(t):
            print("tiling %s into %s (%g MiB)..." % (real, t, s), flush=True)
            subprocess.run([sys.executable, os.path.join(here, "tile_chrome_trace.py"), real,
                            str(s), t + ".tmp"], check=True)
            os.rename(t + ".tmp", t)
        inputs.append(("tile %g MiB" % s, t))
    print("== profconv Chrome benchmark on a real trace, %d runs each" % runs)
    print("machine:  nproc %d, %s" % (os.cpu_count(), next(
        (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")))
    print("load avg: %s (at start)" % loadavg())
    print("profconv: %s" % profconv)
    out = os.path.join(bench_dir, "out.json")
    rows, ok = [], True
    for label, path in inputs:
        size = os.path.getsize(path)
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # page cache
        # the two tools alternate, run by run: this VM's speed drifts by a
        # third between minutes, and a drift then hits both alike
        pc, jl = [], []
        for _ in range(runs):
            if os.path.exists(out):
                os.remove(out)
            pc.append(timed([profconv, "-q", path, "-o", out]))
            if size / 2**20 <= jl_max:
                jl.append(timed([sys.executable, "-c",
                                 "import json, sys; json.load(open(sys.argv[1]))", path]))
        pw, pcpu = st.median(x[0] for x in pc), st.median(x[1] for x in pc)
        rss = max(x[2] for x in pc)
        if jl:
            jw, jcpu = st.median(x[0] for x in jl), st.median(x[1] for x in jl)
            rw, rc = pw / jw, pcpu / jcpu
            rp = st.median(a[0] / b[0] for a, b in zip(pc, jl))
            ok = ok and rw <= 0.10
            jcol = "%.3f | %.3f | %.3f | %.3f | %.3f" % (jw, jcpu, rw, rc, rp)
        else:
            jcol = "- | - | - | - | -"
        ok = ok and rss * 1.048576 < 400
        rows.append("| %s | %.1f | %.3f | %.3f | %.1f | %s |" % (
            label, size / 2**20, pw, pcpu, rss, jcol))
    print("load avg: %s (at end)" % loadavg())
    print("| input | MiB | profconv wall s | profconv CPU s | peak RSS MiB | json.load wall s "
          "| json.load CPU s | ratio wall | ratio CPU | ratio wall, run by run |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("%s: goal ratio wall <= 0.10 where json.load ran, peak RSS < 400 MB" %
          ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
