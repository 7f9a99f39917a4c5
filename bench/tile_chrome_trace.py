#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""tile_chrome_trace.py - a large trace made of copies of a real one, for
bench_chrome.sh --tile: the real trace's own events (their kinds, sizes,
args, V8 samples) at a size no real capture here has.

usage: tile_chrome_trace.py REAL.json SIZE_MIB OUT.json

Copy k of the events has its ts moved k trace spans later (and a V8
Profile event its args.data.startTime, which its chunks' sample times
count from: until 2026-11-27 the copies' V8 samples all fell on the first
copy's times, a million samples on 50 k distinct times); the metadata
(M) events come once; an event's id gets "-k" added (a string) or k * 10^7
(a number), so that each copy's flows, async spans and V8 profiles are its
own (their nodes, samples and args repeat copy after copy: the reader's
payload cache sees each copy's args again, which a longer real trace would
only partly do).  The other top-level members are kept.  Python's standard
library only; the same arguments give the same bytes.
"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    src, target, out = sys.argv[1], int(float(sys.argv[2]) * 1024 * 1024), sys.argv[3]
    with open(src) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    times = [e["ts"] for e in events
             if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float))]
    span = max(times) - min(times) + 1000
    with open(out, "w") as f:
        f.write('{"traceEvents":[\n')
        written, first, k = 20, True, 0
        while written < target:
            for e in events:
                if k and e.get("ph") == "M":
                    continue
                if k:
                    e = dict(e)
                    if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float)):
                        e["ts"] += k * span
                    data = (e.get("args") or {}).get("data")
                    if (e.get("name") == "Profile" and isinstance(data, dict) and
                            isinstance(data.get("startTime"), (int, float))):
                        e["args"] = dict(e["args"])
                        e["args"]["data"] = dict(data, startTime=data["startTime"] + k * span)
                    if isinstance(e.get("id"), str):
                        e["id"] = "%s-%d" % (e["id"], k)
                    elif isinstance(e.get("id"), int):
                        e["id"] += k * 10 ** 7
                s = json.dumps(e, separators=(",", ":"))
                f.write(s if first else ",\n" + s)
                first = False
                written += len(s) + 2
                if written >= target:
                    break
            k += 1
        rest = {key: v for key, v in doc.items() if key != "traceEvents"} if isinstance(doc, dict) else {}
        f.write("\n]")
        for key, v in rest.items():
            f.write(",%s:%s" % (json.dumps(key), json.dumps(v, separators=(",", ":"))))
        f.write("}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
