#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make_json_seeds.py - write the seeds of corpus/json/ (fuzz_json.c).

  processed_small.json   tests/golden/processed_small.json (our writer's output)
  processed_synth.json   tests/golden/y_synth_le.json
  processed_reordered.json  processed_small with its members in another order,
                         timeDeltas instead of time, a counter and a tid string
  gecko_mini.json        a small cut of tests/fixtures/gecko/esr153-cut.json (a
                         real Firefox ESR 153 profile): 12 samples and one
                         marker per payload type in the parent process, 4
                         samples in the content process
  gecko_tiny.json        the hand-written profile of tests/unit/test_read_gecko.c
                         (0x addresses in a lib, a marker backtrace, JS frames)
  gecko_counters.json    the counters profile of tests/unit/test_read_gecko.c
                         (counter times a double cannot hold, at the ends of
                         int64 ns and shifted past them; unusable samples)
  gecko_shift_extremes.json  the shifted profile of tests/unit/test_read_gecko.c
                         (a parent starting at -9e12 ms, a subprocess at 9e12:
                         the shift between them leaves int64 ns)
  gecko_delays.json      the delayed profile of tests/unit/test_read_gecko.c
                         (samples' eventDelay and threadCPUDelta through their
                         schema, short rows, unusable values)
  gecko_xcols.json       the xcols profile of tests/unit/test_read_gecko.c
                         (profconv's own frameTable columns: address, inline
                         depth, native symbol, source; unusable values)

Run from anywhere; it overwrites those files only.
"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
out = os.path.join(here, "corpus", "json")


def write(name, text):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)


def golden(name):
    with open(os.path.join(root, "tests", "golden", name), encoding="utf-8") as f:
        return f.read()


write("processed_small.json", golden("processed_small.json"))
write("processed_synth.json", golden("y_synth_le.json"))

p = json.loads(golden("processed_small.json"))
t = p["threads"][0]
times = t["samples"].pop("time")
t["samples"]["timeDeltas"] = [b - a for a, b in zip([0] + times, times)]
t["tid"] = str(t["tid"])
re = {"threads": p["threads"], "counters": [{"name": "c"}], "shared": p["shared"],
      "libs": p["libs"], "meta": p["meta"]}
write("processed_reordered.json", json.dumps(re, ensure_ascii=False) + "\n")

with open(os.path.join(root, "tests", "fixtures", "gecko", "esr153-cut.json"), encoding="utf-8") as f:
    g = json.load(f)


def shrink(th, nsamples):
    th["samples"]["data"] = th["samples"]["data"][:nsamples]
    ms = th["markers"]["schema"]
    seen, keep = set(), []
    for row in th["markers"]["data"]:
        pl = row[ms["data"]] if len(row) > ms["data"] else None
        key = pl.get("type") if isinstance(pl, dict) else None
        if key not in seen:
            seen.add(key)
            keep.append(row)
    th["markers"]["data"] = keep


shrink(g["threads"][0], 12)
shrink(g["processes"][0]["threads"][0], 4)
g["meta"]["markerSchema"] = g["meta"]["markerSchema"][:12]
g["processes"][0]["meta"]["markerSchema"] = []
write("gecko_mini.json", json.dumps(g, separators=(",", ":"), ensure_ascii=False) + "\n")

# the hand-written profiles, taken from the C test so the two stay the same
src = open(os.path.join(root, "tests", "unit", "test_read_gecko.c"), encoding="utf-8").read()


def c_string(name):
    start = src.index("static const char %s[] =" % name) + len("static const char %s[] =" % name)
    end = src.index(";\n", start)
    text = ""
    for line in src[start:end].splitlines():
        line = line.strip()
        if line.startswith('"'):
            text += json.loads(line)
    return text


write("gecko_tiny.json", c_string("tiny"))
write("gecko_counters.json", c_string("counted"))
write("gecko_shift_extremes.json", c_string("shifted"))
write("gecko_delays.json", c_string("delayed"))
write("gecko_xcols.json", c_string("xcols"))
for n in sorted(os.listdir(out)):
    print(n, os.path.getsize(os.path.join(out, n)))
