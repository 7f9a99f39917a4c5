#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""compare_perf_report.py - per-function self sample counts: profconv vs perf report.

    compare_perf_report.py [--profconv BIN] [--top N] PERF_DATA [PROFCONV_ARGS...]

Converts PERF_DATA with profconv (processed output, symbols on unless
PROFCONV_ARGS say otherwise) and counts, per function name, the samples whose
leaf frame is in that function, counting an inline frame to its outermost
function (the frame of inline depth 0 at the same address), as perf does.
Then runs `perf report --no-children --sort sym -F sample,sym` on the same
file and compares the two by name. Prints the N largest differences and
a summary line; exits 1 when any function differs.

perf's name for an unsymbolicated address is its hex value (0x0000abcd);
both sides are compared with leading zeros dropped. perf also shows C++
names without their parameter lists and template functions without\ntheir return types, which profconv keeps (as the Firefox
Profiler shows them): those are dropped from profconv's names to compare. Needs perf and the
binaries and debug files the recording names (this is a check on this
machine, not a hermetic test).
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile


def strip_params(name):
    """perf shows C++ names without their parameter list (and cv-qualifiers)."""
    n = re.sub(r"( \[clone [^]]*\])+$", "", name)
    for q in (" const", " volatile", " &&", " &"):
        if n.endswith(q):
            n = n[: -len(q)]
    if not n.endswith(")") or n.startswith("("):
        return n
    depth = 0
    for i in range(len(n) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(n[i], 0)
        if depth == 0:
            return n[:i] if i > 0 else name
    return n


def last_word(name):
    """perf drops a template function's return type: the last top-level word."""
    depth, start = 0, 0
    for i, c in enumerate(name):
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif c == " " and depth == 0:
            start = i + 1
    return name[start:]


def norm(name):
    m = re.fullmatch(r"0x0*([0-9a-fA-F]+)", name)
    if m:
        return "0x" + m.group(1).lower()
    plt = name.endswith("@plt")
    name = last_word(strip_params(name[:-4] if plt else name))
    return name + "@plt" if plt else name


def ours(profconv, data, extra):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        subprocess.run([profconv, data, "-o", out, *extra], check=True,
                       stderr=subprocess.DEVNULL)
        with open(out) as f:
            p = json.load(f)
    shared = p.get("shared", {})
    strings = shared.get("stringArray")
    counts = collections.Counter()
    total = 0
    for t in p["threads"]:
        st = t.get("stringArray", strings)
        ft, fn, stk = (t.get(k, shared.get(k)) for k in ("frameTable", "funcTable", "stackTable"))
        depth = ft.get("inlineDepth") or [0] * ft["length"]
        samples = t["samples"]
        w = samples.get("weight") or [1] * samples["length"]
        if "prefixOffset" in stk:
            prefix = [i - o if o else None for i, o in enumerate(stk["prefixOffset"])]
        else:
            prefix = stk["prefix"]
        for s, n in zip(samples["stack"], w):
            if s is None:
                continue
            # the outermost function at the leaf's address
            while depth[stk["frame"][s]] > 0 and prefix[s] is not None:
                s = prefix[s]
            name = st[fn["name"][ft["func"][stk["frame"][s]]]]
            counts[norm(name)] += n
            total += n
    return counts, total


def perfs(data):
    r = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym",
                        "--stdio", "-g", "none", "-F", "sample,sym", "-q"],
                       check=True, capture_output=True, text=True)
    counts = collections.Counter()
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\d+)\s+\[.\]\s+(.*?)\s*$", line)
        if m:
            counts[norm(m.group(2))] += int(m.group(1))
    return counts, sum(counts.values())


def main(argv):
    profconv = os.path.join(os.path.dirname(__file__), "..", "build", "profconv")
    top = 15
    while argv and argv[0].startswith("--"):
        if argv[0] == "--profconv":
            profconv = argv[1]
            argv = argv[2:]
        elif argv[0] == "--top":
            top = int(argv[1])
            argv = argv[2:]
        else:
            break
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    data, extra = argv[0], argv[1:]
    a, ta = ours(profconv, data, extra)
    b, tb = perfs(data)
    diff = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b) if a.get(k, 0) != b.get(k, 0)}
    for k in sorted(diff, key=lambda k: (-abs(diff[k]), k))[:top]:
        print(f"{a.get(k, 0):8d} {b.get(k, 0):8d} {diff[k]:+7d}  {k}")
    same = sum(min(a[k], b.get(k, 0)) for k in a)
    print(f"{os.path.basename(data)}: {len(b)} perf functions, {len(a)} profconv functions, "
          f"{tb} / {ta} samples, {len(diff)} functions differ, "
          f"{100.0 * same / max(tb, 1):.2f} % of samples agree")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
