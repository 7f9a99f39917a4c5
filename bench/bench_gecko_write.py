#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""bench_gecko_write.py - `--to gecko` of one input by two or more profconv
builds (or one build under two environments), alternating run by run, one
table row per variant.

usage: bench_gecko_write.py INPUT RUNS VARIANT...
  VARIANT: PROFCONV_BINARY[|ENV=VALUE;ENV2=VALUE]

Each run is `BINARY -v --to gecko INPUT -o OUT` (the previous output deleted
outside the timing), timed from spawn to exit with os.wait4() (wall, user +
sys CPU, peak RSS from the child's rusage); `-v`'s "read X s, wrote Y s"
gives the reading and writing phases.  A row gives the medians (and the
minimum of the writing phase and of wall) and the load average before and
after, as the machine is shared: compare rows of one run only.
Environment: BENCH_DIR (/tmp/profconv-bench-gecko-write) for the output.
"""
import os
import re
import statistics as st
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    inp, runs, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    bdir = os.environ.get("BENCH_DIR", "/tmp/profconv-bench-gecko-write")
    os.makedirs(bdir, exist_ok=True)
    out = os.path.join(bdir, "out.json")
    res = {v: {"wall": [], "cpu": [], "rss": [], "read": [], "write": []} for v in variants}
    load0 = os.getloadavg()
    for _ in range(runs):
        for v in variants:
            b, _, e = v.partition("|")
            env = dict(os.environ)
            for kv in filter(None, e.split(";")):
                k, _, val = kv.partition("=")
                env[k] = val
            if os.path.exists(out):
                os.remove(out)
            t = time.perf_counter()
            p = subprocess.Popen([b, "-v", "--to", "gecko", inp, "-o", out], env=env,
                                 stderr=subprocess.PIPE, text=True)
            err = p.stderr.read()
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t
            if status != 0:
                sys.exit("%s failed: %s" % (v, err))
            m = re.search(r"read ([0-9.]+) s, wrote ([0-9.]+) s", err)
            r = res[v]
            r["wall"].append(wall)
            r["cpu"].append(ru.ru_utime + ru.ru_stime)
            r["rss"].append(ru.ru_maxrss / 1024)
            if m:
                r["read"].append(float(m.group(1)))
                r["write"].append(float(m.group(2)))
    load1 = os.getloadavg()
    print("input %s, %d runs each, load average %.2f before, %.2f after" %
          (inp, runs, load0[0], load1[0]))
    print("%-60s %9s %9s %9s %9s %9s %9s" % ("variant", "write med", "write min", "wall med",
                                            "wall min", "CPU med", "RSS MB"))
    for v in variants:
        r = res[v]
        wr = r["write"] or [float("nan")]
        print("%-60s %9.3f %9.3f %9.3f %9.3f %9.3f %9.1f" %
              (v[-60:], st.median(wr), min(wr), st.median(r["wall"]), min(r["wall"]),
               st.median(r["cpu"]), st.median(r["rss"])))


if __name__ == "__main__":
    main()
