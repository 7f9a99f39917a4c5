#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""When the Chrome reader's thread finishes reading, against the scanner.

chrome_readend.py DATA[,DATA...] [DATA[,DATA...] ...]

Each DATA is a `perf record -e cpu-clock -c 100000 --call-graph dwarf,8192`
recording of one conversion (a sample per 0.1 ms of CPU).  For each group
of recordings (comma-separated) it prints medians of: the scanner thread's
last sample (stacks with scan_thread()), the reader's last sample in
read_events() (the caller's thread), the gap between the two, and each
one's CPU (samples x 0.1 ms), in ms from the first sample.
"""
import statistics as st
import subprocess
import sys


def one(data):
    out = subprocess.run(['perf', 'script', '-i', data, '-F', 'tid,time,ip,sym'],
                         capture_output=True, text=True).stdout
    samples, cur = [], None
    for line in out.split('\n'):
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = None
            continue
        if not line.startswith('\t'):
            p = line.split()
            cur = [int(p[0]), float(p[1].rstrip(':')), []]
        elif cur:
            f = line.split()
            cur[2].append(f[1] if len(f) > 1 else '')
    if cur:
        samples.append(cur)
    t0 = samples[0][1]
    scan = [s for s in samples if any('scan_thread' in f for f in s[2])]
    rd = [s for s in samples
          if any('read_events' in f for f in s[2]) and not any('scan_thread' in f for f in s[2])]
    return ((scan[-1][1] - t0) * 1e3 if scan else 0.0, (rd[-1][1] - t0) * 1e3 if rd else 0.0,
            len(rd) * 0.1, len(scan) * 0.1)


for group in sys.argv[1:]:
    rows = [one(d) for d in group.split(',')]
    print('%s n=%d scanner end %.1f reader end %.1f after %.2f reader cpu %.2f scanner cpu %.2f'
          % (group.split(',')[0], len(rows), st.median(r[0] for r in rows),
             st.median(r[1] for r in rows), st.median(r[1] - r[0] for r in rows),
             st.median(r[2] for r in rows), st.median(r[3] for r in rows)))
