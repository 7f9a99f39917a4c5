#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# cli_test.sh - end-to-end checks of the profconv command, one case per call
# (registered in tests/cli.cmake).  usage: cli_test.sh PROFCONV CASE [ARG]
#
# Every case fails loudly with what differed.  Nothing here times anything:
# speed is measured by bench/, not by tests.  One exception, chrome-contexts,
# compares two CPU times of one build (a ratio: linear or quadratic cost).
set -u
PC=$1
CASE=$2
ARG=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
# the Python checks below import tests/pc_testlib.py
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
FX="$here/fixtures/perf"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $CASE${ARG:+ $ARG}: $*" >&2
	exit 1
}

expect_rc() { # expect_rc WANT cmd...
	_want_rc=$1
	shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_want_rc" ] || fail "'$*' exited $_rc, expected $_want_rc"
}

case "$CASE" in
dwarf)
	# --call-graph dwarf (y_dwarf.data.zst, README): user stacks unwound from
	# the copied stack through src/dwarfprog (-O2 -fomit-frame-pointer),
	# libc's qsort calling back into it, system calls (kernel frames above
	# the user ones) and the vdso; binaries from the fixture only (a cut
	# libc keeping its tables, perf's copy of the vdso in build-id layout).
	S="--symbol-dir $FX/src --symbol-dir $FX/dwarf-syms"
	# shellcheck disable=SC2086
	expect_rc 0 "$PC" -q --no-symbols $S "$FX/y_dwarf.data.zst" -o "$T/dw.json"
	"$PC" validate "$T/dw.json" >/dev/null || fail "invalid output"
	# every frame of every sample (955 samples, 12487 frames) is perf script's
	python3 "$FX/check_processed.py" -q --dwarf "$T/dw.json" "$FX/y_dwarf.data.script.txt.gz" \
		>"$T/chk" 2>&1 || { cat "$T/chk" >&2; fail "unwound stacks differ from perf script"; }
	grep -q "^ok: 1 threads, 955 samples, 12487 frames" "$T/chk" || { cat "$T/chk" >&2; fail "frame count"; }
	# symbolicated: the program's own functions, named and in perf script's
	# order (PLT stubs as NAME@plt), for every sample (the issue asks 99 %)
	# shellcheck disable=SC2086
	expect_rc 0 "$PC" -q $S "$FX/y_dwarf.data.zst" -o "$T/dws.json"
	python3 - "$T/dws.json" "$FX/y_dwarf.data.script.txt.gz" <<'PY' || fail "program frames differ from perf script"
import gzip, json, sys
d = json.load(open(sys.argv[1]))
want, cur = [], None
for line in gzip.open(sys.argv[2], "rt"):
    if line.startswith("#"):
        continue
    if " cpu-clock:" in line:
        cur = []
        want.append(cur)
    elif line.startswith("\t") and cur is not None:
        parts = line.split()
        if parts[-1].endswith("/dwarfprog)"):
            cur.append(parts[1])
    elif not line.strip():
        cur = None
s, ft, fn = d["shared"]["stackTable"], d["shared"]["frameTable"], d["shared"]["funcTable"]
strs, libs = d["shared"]["stringArray"], d["libs"]
res = d["shared"]["resourceTable"]
po = s["prefixOffset"]  # format 69: prefix = index - offset, 0 = none
th = d["threads"][0]
got = []
for st in th["samples"]["stack"]:
    names = []
    while st is not None:
        f = s["frame"][st]
        fu = ft["func"][f]
        r = fn["resource"][fu]
        if ft["inlineDepth"][f] == 0 and r is not None and r >= 0 and \
                libs[res["lib"][r]]["name"] == "dwarfprog":
            names.append(strs[fn["name"][fu]])
        st = None if po[st] == 0 else st - po[st]
    got.append(names)
assert len(got) == len(want) == 955, (len(got), len(want))
same = sum(1 for a, b in zip(got, want) if a == b)
assert same == len(want), (same, [(a, b) for a, b in zip(got, want) if a != b][:3])
# PLT stubs are named as perf names them
assert sum(1 for w in want if "getppid@plt" in w) >= 1
chain = ["leaf_work", "cmp_slow", "sort_some.constprop.0", "stage_b.constprop.0", "run", "main", "_start"]
assert sum(1 for g in got if g == chain) > 300, sum(1 for g in got if g == chain)
PY
	# a binary that cannot be found: chains go on through it only by frame
	# pointers (libc keeps none, so they end there), one warning naming it and
	# the count of samples that reached it
	"$PC" --no-symbols --symbol-dir "$FX/src" "$FX/y_dwarf.data.zst" -o "$T/cut.json" 2>"$T/err" ||
		fail "conversion without libc's tables"
	grep -q "no unwind tables for /usr/lib/x86_64-linux-gnu/libc.so.6: user stacks go on through it only by frame pointers" "$T/err" ||
		{ cat "$T/err" >&2; fail "no warning naming libc"; }
	grep -q "warning: 955 user stacks through binaries without unwind tables (frame pointers only)" "$T/err" ||
		{ cat "$T/err" >&2; fail "no count of the stacks that reached it"; }
	expect_rc 1 "$PC" -q --strict --no-symbols --symbol-dir "$FX/src" "$FX/y_dwarf.data.zst" -o "$T/strict.json"
	# --unwind no: kernel frames and the sampled instruction, said once
	"$PC" --no-symbols --unwind no $S "$FX/y_dwarf.data.zst" -o "$T/off.json" 2>"$T/err" ||
		fail "conversion with --unwind no"
	grep -q "unwinding is off" "$T/err" || { cat "$T/err" >&2; fail "no warning with --unwind no"; }
	# the second recording (y_dwarf_dl): dlopen/dlclose in a loop, samples in
	# ld.so, libm, libz and in their crt code without CFI (_fini,
	# __do_global_dtors_aux), which is walked by frame pointer as perf does.
	# perf's libunwind then loses the chain to a [stack] or //anon address
	# where ours goes on by CFI to main: those frames are the only
	# differences allowed (11 of 496 samples); every other frame is perf's.
	"$PC" -v --no-symbols $S "$FX/y_dwarf_dl.data.zst" -o "$T/dl.json" 2>"$T/dl.err" ||
		{ cat "$T/dl.err" >&2; fail "conversion of y_dwarf_dl"; }
	grep -q "unwound 496 user stacks, [0-9]* frames ([1-9][0-9]* through frame pointers" "$T/dl.err" ||
		{ cat "$T/dl.err" >&2; fail "no frame through a frame pointer"; }
	python3 "$FX/check_processed.py" -q --dwarf --max-errors 1000 "$T/dl.json" \
		"$FX/y_dwarf_dl.data.script.txt.gz" >"$T/dlchk" 2>&1
	python3 - "$T/dlchk" <<'PY' || { cat "$T/dlchk" >&2; fail "y_dwarf_dl differs from perf script"; }
import re, sys
text = open(sys.argv[1]).read()
assert "496 samples" in text, text[-300:]
errors = text.count("\nerror:") + text.startswith("error:")
assert errors <= 11, errors
for line in text.splitlines():
    if line.startswith("  !!"):
        perf_side = line[9:].split("->")[0].strip()
        assert perf_side == "-" or perf_side.endswith("([stack])") or perf_side.endswith("(//anon)"), line
PY
	# info says what the samples carry
	"$PC" info "$FX/y_dwarf.data.zst" >"$T/info" || fail "info"
	grep -q "955 samples  freq 1000  callchains + user stacks to unwind (--call-graph dwarf)  (selected)" "$T/info" ||
		{ cat "$T/info" >&2; fail "info event line"; }
	if grep -q "lacks:.*user callchains" "$T/info"; then fail "info says user callchains are lacking"; fi
	# deterministic
	# shellcheck disable=SC2086
	expect_rc 0 "$PC" -q --no-symbols $S "$FX/y_dwarf.data.zst" -o "$T/dw2.json"
	cmp "$T/dw.json" "$T/dw2.json" || fail "unwound output is not deterministic"
	;;
offcpu)
	# --switch-events: every stretch a thread spent off the CPU is an
	# Off-CPU marker (preempted or sleeping), as many and as long per
	# thread as perf script's SWITCH records say (saved beside the
	# fixture; perf prints whole microseconds), and samples carry the CPU
	# time used since the thread's previous sample.
	"$PC" -q --no-symbols "$FX/y_switch.data" -o "$T/sw.json" || fail "conversion"
	"$PC" validate "$T/sw.json" >/dev/null || fail "invalid output"
	python3 - "$FX/y_switch.data.switches.txt.gz" "$T/sw.json" <<'PY' || fail "off-CPU intervals"
import gzip, json, re, sys
from pc_testlib import stimes
want, since = {}, {}
for line in gzip.open(sys.argv[1], "rt"):
    m = re.match(r"\s*(\d+)\s+([\d.]+): PERF_RECORD_SWITCH (OUT|IN)(?: (preempt))?", line)
    tid, t = int(m.group(1)), float(m.group(2)) * 1000
    if m.group(3) == "OUT":
        since[tid] = (t, bool(m.group(4)))
    elif tid in since:
        b, pre = since.pop(tid)
        want.setdefault(tid, []).append((t - b, "preempted" if pre else "sleeping"))
d = json.load(open(sys.argv[2]))
strs = d["shared"]["stringArray"]
assert d["meta"]["sampleUnits"]["threadCPUDelta"] == "ns"
seen = 0
for th in d["threads"]:
    mk = th["markers"]
    got = [(mk["endTime"][i] - mk["startTime"][i], mk["data"][i]["reason"])
           for i in range(mk["length"]) if strs[mk["name"][i]] == "Off-CPU"]
    w = want.get(th["tid"], [])
    assert len(got) == len(w), (th["tid"], len(got), len(w))
    for (g, gr), (x, xr) in zip(got, w):
        assert abs(g - x) <= 0.002 and gr == xr, (th["tid"], g, gr, x, xr)
    s = th["samples"]
    cpu = s["threadCPUDelta"]
    assert len(cpu) == s["length"] and all(c is not None and c >= 0 for c in cpu[1:])
    span = (stimes(s)[-1] - stimes(s)[0]) * 1e6
    assert sum(cpu[1:]) <= span + 1000, (th["tid"], sum(cpu[1:]), span)
    seen += len(got)
assert seen == 549, seen
sleepy = [t for t in d["threads"] if t["name"] == "pc-sleepy"][0]
assert any(sleepy["markers"]["data"][i]["reason"] == "sleeping" for i in range(sleepy["markers"]["length"]))
for th in d["threads"]:
    mk = th["markers"]
    for i in range(mk["length"]):
        c = (mk["data"][i] or {}).get("cause")
        assert c is None or abs(c["time"] - mk["startTime"][i]) < 1e-6, (c, mk["startTime"][i])
PY
	# sched:sched_switch samples: a stretch closed by a switch-in to its
	# thread is an Off-CPU interval, one whose end the per-task recording
	# lacks a "Switched out" instant; the same whichever event is the call
	# tree (the expectation is worked out from perf script's fields).
	for ev in cpu-clock sched:sched_switch; do
		"$PC" -q --no-symbols --event "$ev" "$FX/y_pipe_tracepoint.data" -o "$T/sched.json" ||
			fail "sched_switch conversion ($ev)"
		"$PC" validate "$T/sched.json" >/dev/null || fail "invalid sched_switch output ($ev)"
		python3 - "$FX/y_pipe_tracepoint.data.sched.txt.gz" "$T/sched.json" <<'PY' || fail "sched_switch off-CPU ($ev)"
import gzip, json, re, sys
evs = []
for line in gzip.open(sys.argv[1], "rt"):
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)", line)
    evs.append((float(m.group(2)) * 1000, int(m.group(1)), m.group(3), m.group(4)))
off, iv, inst = {}, {}, {}
def unclosed(tid):
    off.pop(tid)
    inst[tid] = inst.get(tid, 0) + 1
for t, tid, ev, tr in evs:
    if ev == "cpu-clock":
        if tid in off:
            unclosed(tid)
        continue
    f = dict(kv.split("=", 1) for kv in tr.split() if "=" in kv)
    prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
    if prev in off:
        unclosed(prev)
    off[prev] = (t, "preempted" if f["prev_state"].startswith("R") else "sleeping")
    if nxt in off and nxt != prev:
        b, why = off.pop(nxt)
        iv.setdefault(nxt, []).append((t - b, why))
for tid in list(off):
    unclosed(tid)
d = json.load(open(sys.argv[2]))
strs = d["shared"]["stringArray"]
nint = ninst = 0
for th in d["threads"]:
    mk = th["markers"]
    names = [strs[n] for n in mk["name"]]
    got = [(mk["endTime"][i] - mk["startTime"][i], mk["data"][i]["reason"])
           for i in range(mk["length"]) if names[i] == "Off-CPU"]
    w = iv.get(th["tid"], [])
    assert len(got) == len(w), (th["tid"], len(got), len(w))
    for (g, gr), (x, xr) in zip(got, w):
        assert abs(g - x) <= 0.002 and gr == xr, (th["tid"], g, gr, x, xr)
    n = names.count("Switched out")
    assert n == inst.get(th["tid"], 0), (th["tid"], n, inst.get(th["tid"]))
    for i in range(mk["length"]):
        c = (mk["data"][i] or {}).get("cause")
        assert c and abs(c["time"] - mk["startTime"][i]) < 1e-6, (c, mk["startTime"][i])
    nint += len(got)
    ninst += n
assert (nint, ninst) == (33, 68), (nint, ninst)
PY
	done
	;;
chrome-v8-arrays)
	# a ProfileChunk's samples and timeDeltas (y_synth_v8_arrays.json, README):
	# the compact integer loop and the general reading agree; each element
	# a JSON number counts (others are skipped with their pair), an object's
	# members' values count; the samples, in time order, have the leaf
	# functions and times worked out here from the raw events
	# (a member is the first one with its key; y_synth_v8_order.json has
	# the members of data, cpuProfile, nodes and callFrames in other
	# orders, repeated, or not objects, which the reader walks once)
	C="$here/fixtures/chrome"
	for f in y_synth_v8_arrays.json:16 y_synth_v8_order.json:8; do
	"$PC" -q "$C/${f%:*}" -o "$T/v.json" 2>"$T/err" || fail "conversion: $(cat "$T/err")"
	python3 - "$C/${f%:*}" "$T/v.json" "${f#*:}" <<'PY' || fail "V8 samples of ${f%:*} differ from the raw events"
import json, math, sys
def first(kv):  # the first member with a key, in order
    d = {}
    for k, v in kv:
        d.setdefault(k, v)
    return d
ev = json.load(open(sys.argv[1]), object_pairs_hook=first)["traceEvents"]
out = json.load(open(sys.argv[2]))
sh = out["shared"]; strs = sh["stringArray"]
leaf = lambda s: None if s is None else strs[sh["funcTable"]["name"][sh["frameTable"]["func"][sh["stackTable"]["frame"][s]]]]
num = lambda v: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan
vals = lambda a: [num(v) for v in (a.values() if isinstance(a, dict) else a)]
names, want, t, zero = {}, [], 0.0, min(e["ts"] for e in ev)
for e in ev:
    d = e["args"]["data"]
    if e["name"] == "Profile":
        t = d["startTime"]
        continue
    cp = d.get("cpuProfile") if isinstance(d.get("cpuProfile"), dict) else {}
    for n in cp.get("nodes", []):
        cf = n.get("callFrame") if isinstance(n.get("callFrame"), dict) else {}
        names[n["id"]] = cf.get("functionName") or "(anonymous)"
    for sv, dv in zip(vals(cp.get("samples", [])), vals(d["timeDeltas"])):
        if math.isnan(sv) or math.isnan(dv):
            continue
        t += dv
        want.append((t - zero, names.get(int(sv))))
want.sort(key=lambda x: x[0])  # stable, as the reader's sort
(th,) = out["threads"]
s = th["samples"]
have, t = [], 0.0
for st, d in zip(s["stack"], s["timeDeltas"]):
    t += d
    have.append((t * 1000, leaf(st)))
assert len(have) == len(want) == int(sys.argv[3]), (len(have), len(want))
for (wt, wn), (ht, hn) in zip(want, have):
    assert wn == hn and abs(wt - ht) <= 1e-6 * max(1.0, abs(wt)), (want, have)
print("ok:", len(have), "samples")
PY
	done
	;;
chrome-weights)
	# samples stand for time (issue 21): on a cut of the real Chromium 156
	# trace (two renderers' V8 profiles, CrBrowserMain's slices), each
	# function's self time and share equal what the raw events say, worked
	# out here from them alone: V8 samples by the time to their profile's
	# next sample in time order (the last: the profile's mean interval),
	# slices by their self time; then the processed output reads back to
	# the same bytes, and --to gecko says once that it drops the weights
	C="$here/fixtures/chrome"
	"$PC" -q "$C/chromium156-weights.json.zst" -o "$T/w.json" 2>"$T/err" || fail "conversion: $(cat "$T/err")"
	"$PC" validate "$T/w.json" >/dev/null || fail "output invalid"
	zstd -q -dc "$C/chromium156-weights.json.zst" >"$T/w.in.json"
	python3 - "$T/w.in.json" "$T/w.json" <<'PY' || fail "self times differ from the raw events"
import collections, json, sys
from pc_testlib import stimes
ev = json.load(open(sys.argv[1]))["traceEvents"]
out = json.load(open(sys.argv[2]))
sh = out["shared"]; strs = sh["stringArray"]
leaf = lambda s: strs[sh["funcTable"]["name"][sh["frameTable"]["func"][sh["stackTable"]["frame"][s]]]]

def got(t):  # self ms per leaf function name, as the call tree sums the weights
    s = t["samples"]
    assert s["weightType"] == "tracing-ms", (t["name"], s["weightType"])
    c = collections.Counter()
    for st, w in zip(s["stack"], s["weight"]):
        if st is None:  # a gap between derived samples' slices
            assert w == 0, (t["name"], st, w)
            continue
        assert w > 0, (t["name"], st, w)
        c[leaf(st)] += w
    return c

def compare(what, want, have, top):
    wt, ht = sum(want.values()), sum(have.values())
    assert abs(wt - ht) < 1e-6 * wt, (what, "total", wt, ht)
    for name, w in want.most_common(top):
        ws, hs = 100 * w / wt, 100 * have[name] / ht
        assert abs(ws - hs) < 1 and abs(w - have[name]) < 1e-3, (what, name, ws, hs, w, have[name])
    print(f"{what}: {wt:.3f} ms; " + ", ".join(f"{n} {100 * w / wt:.2f} %" for n, w in want.most_common(3)))

thread = lambda pid, tid: [t for t in out["threads"] if t["pid"] == str(pid) and t["tid"] == tid][0]
# V8 profiles: node names, sample node ids, time deltas (us), per (pid, id)
prof = {}
for e in ev:
    if e.get("ph") == "P" and e["name"] in ("Profile", "ProfileChunk"):
        p = prof.setdefault((e["pid"], e["id"]), {"node": {}, "samples": [], "deltas": []})
        data = e["args"]["data"]
        if e["name"] == "Profile":
            p["start"], p["tid"] = data["startTime"], e["tid"]
            continue
        for n in data["cpuProfile"].get("nodes", []):
            p["node"][n["id"]] = n["callFrame"]["functionName"] or "(anonymous)"
        p["samples"] += data["cpuProfile"]["samples"]
        p["deltas"] += data["timeDeltas"]
assert len(prof) == 2
negative = 0
for (pid, pfid), p in sorted(prof.items()):
    ts, t = [], p["start"]
    for d in p["deltas"]:
        t += d
        ts.append(t)
        negative += d < 0
    order = sorted(range(len(ts)), key=lambda i: ts[i])
    mean = (ts[order[-1]] - ts[order[0]]) / (len(ts) - 1)
    want, count = collections.Counter(), collections.Counter()
    for k, i in enumerate(order):
        w = ts[order[k + 1]] - ts[i] if k + 1 < len(order) else mean
        want[p["node"][p["samples"][i]]] += w / 1000
        count[p["node"][p["samples"][i]]] += 1
    th = thread(pid, p["tid"])
    assert th["samples"]["length"] == len(ts), (th["samples"]["length"], len(ts))
    compare(f"V8 profile {pid}", want, got(th), 12)
    if pid == 15264:  # counted, not timed, the shares differ by more than a point
        n = count.most_common(1)[0][0]
        assert abs(100 * count[n] / len(ts) - 100 * want[n] / sum(want.values())) > 4, n
assert negative == 68, negative
# CrBrowserMain: each stretch of time belongs to the innermost open slice
# (the latest begun, then the shortest); X slices, and B/E pairs
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
key = [k for k, v in names.items() if v == "CrBrowserMain"][0]
sl, openb = [], []
for i, e in enumerate(ev):
    if (e.get("pid"), e.get("tid")) != key:
        continue
    if e["ph"] == "X":
        sl.append((e["ts"], e["ts"] + e["dur"], e["name"], i))
    elif e["ph"] == "B":
        openb.append((e["ts"], e["name"], i))
    elif e["ph"] == "E" and openb:
        b = openb.pop()
        sl.append((b[0], e["ts"], b[1], b[2]))
assert len(sl) == 1998, len(sl)
pts = sorted({x for s in sl for x in s[:2]})
sl.sort(key=lambda s: (s[0], -s[1], s[3]))
want, active, j = collections.Counter(), [], 0
for a, b in zip(pts, pts[1:]):
    while j < len(sl) and sl[j][0] <= a:
        active.append(sl[j])
        j += 1
    active = [s for s in active if s[1] > a]
    if active:
        want[max(active, key=lambda s: (s[0], -s[1], s[3]))[2]] += (b - a) / 1000
compare("CrBrowserMain slices", want, got(thread(*key)), 8)
# a gap with no slice open between two slices starts with one empty sample
# weighing nothing (the front-end draws each sample until the next one)
ends = []  # the ends of the stretches covered by slices, but the last
reach = None
for a, b, _, _ in sl:
    if b <= a:  # an empty slice opens no stretch
        continue
    if reach is not None and a > reach:
        ends.append(reach)
    reach = b if reach is None else max(reach, b)
s = thread(*key)["samples"]
st = stimes(s)
empty = [round(st[i] - st[0], 6) for i in range(s["length"]) if s["stack"][i] is None]
assert empty == [round((e - sl[0][0]) / 1000, 6) for e in ends], (len(empty), len(ends), empty[:5], ends[:5])
assert all(w == 0 for st, w in zip(s["stack"], s["weight"]) if st is None)
assert s["stack"][0] is not None and s["stack"][-1] is not None
print(f"CrBrowserMain: {len(ends)} gaps, {s['length']} samples")
PY
	"$PC" -q "$T/w.json" -o "$T/w2.json" || fail "reading the output back"
	cmp -s "$T/w.json" "$T/w2.json" || fail "the output read back and written again differs (tracing-ms weights)"
	"$PC" --to gecko "$C/chromium156-weights.json.zst" -o "$T/wg.json" 2>"$T/err" || fail "--to gecko: $(cat "$T/err")"
	[ "$(grep -c "weights were dropped" "$T/err")" = 1 ] && grep -q "^profconv: warning: 3 threads whose sample weights were dropped" "$T/err" ||
		fail "--to gecko: the dropped weights' warning: $(cat "$T/err")"
	;;
chrome-contexts)
	# FrameBlamer contexts: every vector's per-slice sets, self times and
	# charged objects, totals and merged totals (profconv blame) equal the
	# hand-checked expected files; --json is one JSON document with the same
	# totals; vector 05's six no-op leaves are counted; the contexts reach
	# the markers of a normal conversion.
	V="$here/fixtures/chrome/contexts"
	n=0
	for f in "$V"/*.json; do
		b=${f%.json}
		"$PC" blame "$f" >"$T/got" 2>"$T/err" || fail "blame $(basename "$f"): $(cat "$T/err")"
		cmp -s "$T/got" "$b.expected.txt" || fail "blame $(basename "$f"): $(diff "$T/got" "$b.expected.txt" | head -5)"
		"$PC" blame --json "$f" >"$T/got.json" 2>/dev/null || fail "blame --json $(basename "$f")"
		python3 - "$T/got.json" "$b.expected.txt" <<'PY' || fail "blame --json $(basename "$f")"
import json, sys
d = json.load(open(sys.argv[1]))
want, sec = {}, None
for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if line.startswith("["):
        sec = line
    elif sec == "[totals]" and line:
        k, v = line.rsplit(" ", 1)
        want[k] = int(v)
got = {e["object"]: e["self_us"] for e in d["totals"]}
assert got == want, (got, want)
PY
		n=$((n + 1))
	done
	[ "$n" = 6 ] || fail "$n vectors, expected 6"
	"$PC" blame "$V/05-leave-without-enter.json" >/dev/null 2>"$T/err"
	grep -q "warning: 6 context events that match no active context (ignored)" "$T/err" || fail "05 warnings: $(cat "$T/err")"
	"$PC" -q "$V/03-nested-frames-lca.json" -o "$T/c.json" || fail "conversion with contexts"
	"$PC" validate "$T/c.json" >/dev/null || fail "contexts output invalid"
	"$PC" blame "$FX/y_fp.data" >/dev/null 2>&1 && fail "blame of a perf.data succeeded"
	# hostile shapes (issue 22 items 3, 10, 12), generated here
	python3 - "$T" <<'PY' || fail "generating the hostile context traces"
import json, sys
out = sys.argv[1]
def ev(ph, name, ts, **kw):
    e = {"ph": ph, "name": name, "cat": "blink", "pid": 2, "tid": 2, "ts": ts}
    e.update(kw)
    return e
def O(ts, oid, parent=None):
    snap = {"parent": {"idRef": parent, "scope": "RenderFrame"}} if parent else {}
    return ev("O", "RenderFrame", ts, scope="RenderFrame", id=oid, args={"snapshot": snap})
def w(name, evs):
    json.dump(evs, open("%s/%s.json" % (out, name), "w"), separators=(",", ":"))
# contexts, no slices (qsort(NULL, 0) before: UBSan)
w("noslices", [ev("(", "FrameBlameContext", 1, scope="RenderFrame", id="0x1"),
               ev(")", "FrameBlameContext", 2, scope="RenderFrame", id="0x1")])
# 300 nested slices, each 2 us shorter at each end: self 2 us each, 402 the innermost
w("deep", [ev("X", "s%d" % i, 10 + i, dur=1000 - 2 * i) for i in range(300)])
# a parent chain 100 deep; contexts on its 100th and 91st objects: the 91st is charged
w("chain", [O(0, "0x%x" % i, "0x%x" % (i - 1) if i else None) for i in range(100)]
    + [ev("(", "FrameBlameContext", 10, scope="RenderFrame", id="0x63"),
       ev("(", "PostMessageContext", 10, scope="RenderFrame", id="0x5a"),
       ev("X", "s", 10, dur=5)])
# one slice in 70 contexts of 70 types on unrelated objects: 70 charged
w("wide", [ev("(", "Ctx%d" % i, 10, scope="RenderFrame", id="0x%x" % (0x100 + i))
           for i in range(70)] + [ev("X", "s", 10, dur=5)])
# parents in a cycle 0x1 -> 0x2 -> 0x3 -> 0x1, contexts on 0x3 and 0x2: cut
# at 0x1 (the first object seen), 0x3 is 0x2's ancestor and charged once
w("cycle", [O(0, "0x1", "0x2"), O(0, "0x2", "0x3"), O(0, "0x3", "0x1"),
            ev("(", "FrameBlameContext", 10, scope="RenderFrame", id="0x3"),
            ev("(", "PostMessageContext", 10, scope="RenderFrame", id="0x2"),
            ev("X", "s", 10, dur=5)])
# N objects in a tree (log2 N deep), a task in each, for N = 4096 and 16384
for N in (4096, 16384):
    evs = [O(0, "0x%x" % i, "0x%x" % ((i - 1) // 2) if i else None) for i in range(N)]
    for i in range(N):
        oid = "0x%x" % ((i * 7919) % N)
        evs += [ev("(", "FrameBlameContext", 10 + 10 * i, scope="RenderFrame", id=oid),
                ev("X", "task", 10 + 10 * i, dur=5),
                ev(")", "FrameBlameContext", 16 + 10 * i, scope="RenderFrame", id=oid)]
    w("many%d" % N, evs)
# N contexts of one type entered without leaving (each pushes the one
# before: a stack N deep), then each destroyed (R5: off every stack)
for N in (8192, 65536):
    evs = [ev("(", "FrameBlameContext", 10 + i, scope="RenderFrame", id="0x%x" % i)
           for i in range(N)]
    evs += [ev("D", "RenderFrame", 20 + N + i, scope="RenderFrame", id="0x%x" % ((i * 7) % N))
            for i in range(N)]
    evs.append(ev("X", "s", 30 + 2 * N, dur=1))
    w("destroy%d" % N, evs)
PY
	"$PC" blame "$T/noslices.json" >"$T/got" || fail "blame without slices"
	printf '[slices]\n[totals]\n[merged-totals]\n' | cmp -s - "$T/got" || fail "blame without slices: $(cat "$T/got")"
	"$PC" blame "$T/deep.json" >"$T/got" || fail "blame deep"
	[ "$(grep -c ' self=2 ' "$T/got")" = 299 ] && grep -q '^s299 X .* self=402 ' "$T/got" ||
		fail "300 nested slices: $(grep -v ' self=2 ' "$T/got" | head -5)"
	"$PC" blame "$T/chain.json" >"$T/got" || fail "blame chain"
	grep -q '^s X .* -> RenderFrame:0x5a@2$' "$T/got" || fail "100-deep chain: $(grep '^s X' "$T/got")"
	"$PC" blame "$T/wide.json" >"$T/got" || fail "blame wide"
	[ "$(sed -n '/^\[totals\]/,/^\[merged/p' "$T/got" | grep -c '^RenderFrame:')" = 70 ] ||
		fail "70 contexts: $(sed -n '/^\[totals\]/,$p' "$T/got" | wc -l) lines"
	"$PC" blame "$T/cycle.json" >"$T/got" 2>"$T/err" || fail "blame cycle"
	grep -q '^s X .* -> RenderFrame:0x3@2$' "$T/got" || fail "cycle: $(grep '^s X' "$T/got")"
	grep -q "warning: 1 context parent cycles" "$T/err" || fail "cycle warning: $(cat "$T/err")"
	"$PC" --strict blame "$T/cycle.json" >/dev/null 2>&1 && fail "cycle with --strict succeeded"
	# context resolution is linear: 4 times the objects and tasks, at most
	# about 4 times the CPU time (before, each lookup passed over every
	# snapshot: 0.4 s and 5.5 s, 14 times; after, 0.08 s and 0.35 s).  A ratio
	# of CPU times, so the build type and the machine's load matter little.
	# The same for D on deep stacks: 8 times the contexts, at most 20 times
	# the CPU (each D was a pass over every stack: 0.06 s and 3.7 s before).
	python3 - "$PC" "$T" <<'PY' || fail "context resolution is not linear"
import resource, subprocess, sys
def cpu(path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run([sys.argv[1], "blame", path], stdout=subprocess.DEVNULL, check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
for name, n1, n2, most in (("many", 4096, 16384, 8), ("destroy", 8192, 65536, 20)):
    a = cpu("%s/%s%d.json" % (sys.argv[2], name, n1))
    b = cpu("%s/%s%d.json" % (sys.argv[2], name, n2))
    assert b < most * max(a, 0.05), "%s: %.2f s for %d, %.2f s for %d" % (name, a, n1, b, n2)
PY
	# V8 samples take the contexts active on their thread at their time and
	# are charged by the slices' rules (two related frames: their isolate)
	C="$here/fixtures/chrome"
	"$PC" blame "$C/y_synth_ctx_samples.json" >"$T/bs.txt" || fail "blame with samples"
	printf '%s\n' "[sample-totals]" "(none) 1" "Isolate:0x1@2 1" "RenderFrame:0x10@2 2" \
		"RenderFrame:0x20@2 2" >"$T/bs.want"
	sed -n '/^\[sample-totals\]/,$p' "$T/bs.txt" | diff "$T/bs.want" - >/dev/null ||
		fail "sample totals: $(cat "$T/bs.txt")"
	grep -q "^task1 X pid=2 tid=2 ts=10 dur=40 self=40 ctx={FrameBlameContext/RenderFrame:0x10@2} -> RenderFrame:0x10@2$" "$T/bs.txt" ||
		fail "slices with samples: $(cat "$T/bs.txt")"
	"$PC" blame --json "$C/y_synth_ctx_samples.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
got = {e["object"]: e["samples"] for e in d["sample_totals"]}
assert got == {"(none)": 1, "Isolate:0x1@2": 1, "RenderFrame:0x10@2": 2, "RenderFrame:0x20@2": 2}, got
assert {e["object"]: e["self_us"] for e in d["totals"]} == {"(none)": 1, "RenderFrame:0x10@2": 40}
' || fail "sample totals (json)"
	# activation markers are named after their context: a frame's url when
	# its snapshot has one, else the object
	"$PC" -q "$C/y_synth_ctx_samples.json" -o "$T/cs.json" || fail "conversion with contexts and samples"
	"$PC" validate "$T/cs.json" >/dev/null || fail "contexts and samples output invalid"
	python3 - "$T/cs.json" <<'PY' || fail "context markers"
import json, sys
d = json.load(open(sys.argv[1]))
strs = d["shared"]["stringArray"]
got = []
for t in d["threads"]:
    m = t["markers"]
    for i in range(m["length"]):
        x = m["data"][i]
        if x["type"] == "Context":
            # an instant's end is written 0: the front-end does not read it
            end = m["endTime"][i] if m["phase"][i] in (1, 3) else None
            got.append((strs[m["name"][i]], m["startTime"][i], end, x["name"], x.get("url")))
assert got == [
    ("FrameBlameContext", 0.01, 0.05, "https://example.com/", "https://example.com/"),
    ("PostMessageContext", 0.02, 0.03, "RenderFrame:0x20@2", None),
    ("FrameBlameContext", 0.06, None, "RenderFrame:0x20@2", None),
], got
sch = [s for s in d["meta"]["markerSchema"] if s["name"] == "Context"][0]
assert sch["chartLabel"] == "{marker.data.name}" and {f["key"]: f["format"] for f in sch["fields"]}["url"] == "url"
PY
	;;
chrome)
	# Chrome trace events: a real Chromium 156 cut (V8 CPU profile samples,
	# slices, instants, async spans) and a synthesized trace (unterminated
	# array, B/E nesting, counters, derived samples); counts checked against
	# the inputs themselves.
	C="$here/fixtures/chrome"
	# two traceEvents arrays: the events' memo tables are set up once, by
	# the first (after its scanner starts), and the second's args texts,
	# whose scanner ids start again from 1, must not find the first's
	# payloads by those ids
	cat >"$T/two.json" <<'EOF'
{"traceEvents":[
{"name":"A","cat":"c","ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"args":{"k":"first"}},
{"name":"B","cat":"c","ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"args":{"k":"second"}},
{"name":"A","cat":"c","ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"args":{"k":"first"}}
],
"traceEvents":[
{"name":"C","cat":"c","ph":"X","pid":1,"tid":1,"ts":7,"dur":1,"args":{"k":"third"}},
{"name":"D","cat":"c","ph":"X","pid":1,"tid":1,"ts":9,"dur":1,"args":{"k":"fourth"}},
{"name":"C","cat":"c","ph":"X","pid":1,"tid":1,"ts":11,"dur":1,"args":{"k":"third"}}
]}
EOF
	"$PC" -q --no-symbols "$T/two.json" -o "$T/two.out.json" || fail "two arrays: conversion"
	python3 - "$T/two.out.json" <<'PY' || fail "two arrays: payloads differ from the events'"
import json, sys
o = json.load(open(sys.argv[1]))
strs = o["shared"]["stringArray"]
(t,) = o["threads"]
m = t["markers"]
got = [(strs[n], strs[d["k"]]) for n, d in zip(m["name"], m["data"])]
want = [("A", "first"), ("B", "second"), ("A", "first"), ("C", "third"), ("D", "fourth"), ("C", "third")]
assert got == want, got
PY
	# of two M events saying the same thing the first counts, as in the
	# Firefox Profiler's importer (findEvent())
	cat >"$T/meta.json" <<'EOF'
{"traceEvents": [
{"ph": "M", "pid": 7, "tid": 7, "name": "process_name", "args": {"name": "Browser"}},
{"ph": "M", "pid": 7, "tid": 7, "name": "process_name", "args": {"name": "Later"}},
{"ph": "M", "pid": 7, "tid": 7, "name": "process_labels", "args": {"labels": "first"}},
{"ph": "M", "pid": 7, "tid": 7, "name": "process_labels", "args": {"labels": "second"}},
{"ph": "M", "pid": 7, "tid": 8, "name": "thread_name", "args": {"name": "Worker"}},
{"ph": "M", "pid": 7, "tid": 8, "name": "thread_name", "args": {"name": "Renamed"}},
{"ph": "M", "pid": 7, "tid": 8, "name": "thread_sort_index", "args": {"sort_index": -5}},
{"ph": "M", "pid": 7, "tid": 8, "name": "thread_sort_index", "args": {"sort_index": 9}},
{"ph": "X", "pid": 7, "tid": 7, "ts": 0, "dur": 10, "name": "A"},
{"ph": "X", "pid": 7, "tid": 8, "ts": 0, "dur": 10, "name": "B"}
]}
EOF
	"$PC" -q "$T/meta.json" -o "$T/meta.out.json" || fail "metadata trace"
	python3 - "$T/meta.out.json" <<'PY' || fail "the first of several M events"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(t["name"], t["processName"]) for t in d["threads"]]
assert got == [("Worker", "Browser (first)"), ("Thread 7", "Browser (first)")], got
PY
	"$PC" -q "$C/chromium156-cut.json.zst" -o "$T/real.json" 2>"$T/err" || fail "real cut: $(cat "$T/err")"
	"$PC" validate "$T/real.json" >/dev/null || fail "real cut output invalid"
	# the scanner's thread leaves the args it would decode and its batches'
	# fix-up to the reader's when the reader waits for it: the output is the
	# same with that never (PROFCONV_CHROME_LEAN=0) and always (=1)
	for lean in 0 1; do
		PROFCONV_CHROME_LEAN=$lean "$PC" -q "$C/chromium156-cut.json.zst" -o "$T/real$lean.json" ||
			fail "real cut, PROFCONV_CHROME_LEAN=$lean"
		cmp -s "$T/real.json" "$T/real$lean.json" || fail "PROFCONV_CHROME_LEAN=$lean changed the output"
	done
	# the flows' binding runs on a second thread (while the slices'
	# samples are derived) from 2048 flow ends: the output is the same with
	# that never (PROFCONV_CHROME_FLOW_THREAD=0) and always (=1)
	for ft in 0 1; do
		PROFCONV_CHROME_FLOW_THREAD=$ft "$PC" -q "$C/chromium156-cut.json.zst" -o "$T/realft$ft.json" ||
			fail "real cut, PROFCONV_CHROME_FLOW_THREAD=$ft"
		cmp -s "$T/real.json" "$T/realft$ft.json" || fail "PROFCONV_CHROME_FLOW_THREAD=$ft changed the output"
	done
	# on that thread, after the binding, the string values that become
	# plain strings are looked up too, and mended before the flows' fields
	# copy them: the output is the same with that never (EARLY_REFS=0)
	for er in 0 1; do
		PROFCONV_CHROME_FLOW_THREAD=1 PROFCONV_CHROME_EARLY_REFS=$er "$PC" -q "$C/chromium156-cut.json.zst" -o "$T/realer$er.json" ||
			fail "real cut, PROFCONV_CHROME_EARLY_REFS=$er"
		cmp -s "$T/real.json" "$T/realer$er.json" || fail "PROFCONV_CHROME_EARLY_REFS=$er changed the output"
	done
	# a key with strings and numbers ("id" on the flows' slices): its
	# strings are plain strings in the slices the flows' fields rebuilt too
	for er in 0 1; do
		PROFCONV_CHROME_FLOW_THREAD=1 PROFCONV_CHROME_EARLY_REFS=$er "$PC" -q --no-symbols "$C/y_synth_flow_refs.json" -o "$T/frefs$er.json" ||
			fail "flow refs, PROFCONV_CHROME_EARLY_REFS=$er"
		python3 - "$T/frefs$er.json" <<'PY' || fail "flow refs, PROFCONV_CHROME_EARLY_REFS=$er: ids"
import json, sys
ids = [d["id"] for t in json.load(open(sys.argv[1]))["threads"] for d in t["markers"]["data"]]
assert sorted(map(str, ids)) == ["0x2a", "0x2b", "7"], ids
PY
	done
	# without P samples, contexts or blame, the samples are shifted and
	# sorted while that binding still runs: the output is the same with
	# that never (PROFCONV_CHROME_EARLY_SORT=0) and always (=1)
	for es in 0 1; do
		PROFCONV_CHROME_EARLY_SORT=$es "$PC" -q "$C/chromium156-cut.json.zst" -o "$T/reales$es.json" ||
			fail "real cut, PROFCONV_CHROME_EARLY_SORT=$es"
		cmp -s "$T/real.json" "$T/reales$es.json" || fail "PROFCONV_CHROME_EARLY_SORT=$es changed the output"
	done
	zstd -q -dc "$C/chromium156-cut.json.zst" >"$T/real.in.json"
	python3 - "$T/real.in.json" "$T/real.json" <<'PY' || fail "real cut counts"
import collections, json, sys
from pc_testlib import stimes
src = json.load(open(sys.argv[1]))["traceEvents"]
out = json.load(open(sys.argv[2]))
ph = lambda p: [e for e in src if e.get("ph") == p]
strs = out["shared"]["stringArray"]
# markers per name per process: the trace's slices, instants and async
# spans (each b once), counted from the raw events; flows add none
want = collections.Counter((str(e["pid"]), e["name"]) for e in src if e.get("ph") in ("X", "B", "I", "i", "R", "n", "b", "S"))
got = collections.Counter((t["pid"], strs[t["markers"]["name"][i]]) for t in out["threads"] for i in range(t["markers"]["length"]))
assert got == want, (sum(got.values()), sum(want.values()), (got - want).most_common(3), (want - got).most_common(3))
assert not any(x and x["type"] == "TraceEventFlow" for t in out["threads"] for x in t["markers"]["data"])
# of the trace events' markers only EventDispatch's are drawn in the
# timeline overview, as the front-end's own importer draws them: their
# schema lists timeline-overview, the Trace schema does not
ms = {s["name"]: s for s in out["meta"]["markerSchema"]}
assert "timeline-overview" not in ms["Trace"]["display"], ms["Trace"]["display"]
assert ms["EventDispatch"]["display"] == ["marker-chart", "marker-table", "timeline-overview"], ms["EventDispatch"]
assert ms["EventDispatch"]["fields"] == ms["Trace"]["fields"]
types = collections.Counter((x["type"], strs[t["markers"]["name"][i]] == "EventDispatch")
                            for t in out["threads"] for i, x in enumerate(t["markers"]["data"]) if x)
assert types == {("Trace", False): sum(want.values()) - 9, ("EventDispatch", True): 9}, types
# main threads: a thread_name Cr...Main, or tid = pid (pid 0 aside); every
# process here has exactly one
names = {(str(e["pid"]), e["tid"]): e["args"]["name"] for e in ph("M") if e["name"] == "thread_name"}
for t in out["threads"]:
    nm = names.get((t["pid"], t["tid"]), "")
    want_main = (t["pid"] != "0" and t["pid"] == str(t["tid"])) or (nm.startswith("Cr") and nm.endswith("Main"))
    assert t["isMainThread"] == want_main, (t["name"], t["pid"], t["tid"], t["isMainThread"])
mains = collections.Counter(t["pid"] for t in out["threads"] if t["isMainThread"])
assert sorted(mains) == sorted({t["pid"] for t in out["threads"]} - {"0"}) and set(mains.values()) == {1}, mains
assert "network.CrUtilityMain" in {t["name"] for t in out["threads"] if t["isMainThread"]}
# flows: each end binds the innermost slice of its thread open at its time
# (an s, an f with bp "e"), worked out here from the raw X events; the
# slice at the start carries the flow's id in flow, the one at the end in
# terminatingFlow, and each names the other in flowTo / flowFrom
zero = min(e["ts"] for e in src if e.get("ph") != "M" and "ts" in e)
slices = collections.defaultdict(list)
for e in ph("X"):
    slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e.get("dur", 0), e["name"]))
tname = {(str(e["pid"]), e["tid"]): e["args"]["name"] for e in ph("M") if e["name"] == "thread_name"}
def bound(e):
    c = [x for x in slices[(e["pid"], e["tid"])] if x[0] <= e["ts"] <= x[1]]
    return max(c, key=lambda x: (x[0], -x[1])) if c else None
want = {}
for e in src:
    if e.get("ph") in ("s", "f"):
        key = "%x %s/%s" % (e["id"], e["cat"], e["name"])
        want.setdefault(key, {})[e["ph"]] = (str(e["pid"]), e["tid"], bound(e))
got = {}
tos = {}
for t in out["threads"]:
    m = t["markers"]
    for i in range(m["length"]):
        x = m["data"][i]
        here = (t["tid"], strs[m["name"][i]], round(m["startTime"][i], 6))
        for k, p in (("flow", "s"), ("terminatingFlow", "f")):
            if x and k in x:
                for key in strs[x[k]].split("; "):
                    got.setdefault(key, {})[p] = here
        if x and "flowTo" in x:
            tos[here] = strs[x["flowTo"]]
assert len(want) == 68, len(want)  # 32 whole flows, 36 cut in two
nb = nto = 0
for key, ends in want.items():
    exp = {p: (tid, b[2], round((b[0] - zero) / 1000, 6)) for p, (pid, tid, b) in ends.items() if b}
    nb += len(ends) - len(exp)
    assert got.get(key, {}) == exp, (key, got.get(key), exp)
    if "s" in exp and "f" in ends:
        pid, tid, b = ends["f"]
        to = "%s on %s (tid %d)" % (b[2] if b else "(no slice)", tname[(pid, tid)], tid)
        assert to in tos[exp["s"]], (key, to, tos[exp["s"]])
        nto += 1
assert nb < 10 and nto >= 30, (nb, nto)
prof = ph("P")[0]
v8 = sum(len(e["args"]["data"]["cpuProfile"]["samples"]) for e in ph("P") if e["name"] == "ProfileChunk")
th = [t for t in out["threads"] if t["pid"] == str(prof["pid"]) and t["tid"] == prof["tid"]][0]
assert th["samples"]["length"] == v8, (th["samples"]["length"], v8)
assert th["samples"]["weightType"] == "tracing-ms" and len(th["samples"]["weight"]) == v8, "V8 samples weigh time"
times = stimes(th["samples"])
assert times == sorted(times), "V8 samples not in time order"
sh = out["shared"]
fn, strs = sh["funcTable"], sh["stringArray"]
js = [i for i in range(len(fn["name"])) if fn["isJS"][i]]
assert js and all(fn["lineNumber"][i] and fn["lineNumber"][i] >= 1 for i in js), "JS lines"
names = {strs[fn["name"][i]] for i in js}
assert "fib" in names and "sieve" in names, sorted(names)[:20]
main = [t for t in out["threads"] if t["name"] == "CrBrowserMain"][0]
assert main["samples"]["length"] > 0 and main["samples"]["weight"], "CrBrowserMain has no derived samples"
# its gaps between slices: an empty sample each, weighing nothing
ms = main["samples"]
gaps = [i for i in range(ms["length"]) if ms["stack"][i] is None]
assert gaps and all(ms["weight"][i] == 0 and 0 < i < ms["length"] - 1 and ms["stack"][i + 1] is not None for i in gaps), gaps[:5]
PY
	"$PC" "$C/y_synth_slices.json" -o "$T/s.json" 2>"$T/err" || fail "synth: $(cat "$T/err")"
	grep -q "y_synth_slices.json:18:1: unexpected end of input: array opened at 1:1 is not closed (the trace is cut off; the 16 events before the cut were read)" "$T/err" ||
		fail "truncation warning: $(cat "$T/err")"
	"$PC" -q --strict "$C/y_synth_slices.json" -o "$T/x.json" 2>/dev/null && fail "--strict accepted a cut-off trace"
	python3 - "$T/s.json" <<'PY' || fail "synth contents"
import json, sys
from pc_testlib import stimes
d = json.load(open(sys.argv[1]))
sh = d["shared"]; strs = sh["stringArray"]
st, ft, fn = sh["stackTable"], sh["frameTable"], sh["funcTable"]
def chain(s):
    out = []
    while s is not None:
        out.append(strs[fn["name"][ft["func"][st["frame"][s]]]])
        off = st["prefixOffset"][s]
        s = None if off == 0 else s - off
    return out[::-1]
th = {t["name"]: t for t in d["threads"]}
assert sorted(th) == ["Async events", "Main", "Thread 7", "Worker"], sorted(th)
assert [(t["name"], t["tid"]) for t in d["threads"]] == [("Main", 1), ("Worker", 2), ("Async events", -1000000), ("Thread 7", 7)]
assert th["Main"]["processName"] == "Browser", th["Main"]["processName"]
mk = th["Main"]["markers"]
got = [(strs[mk["name"][i]], mk["startTime"][i], mk["endTime"][i], mk["phase"][i]) for i in range(mk["length"])]
assert got == [("RunTask", 0, 5, 1), ("Layout", 1, 3, 1), ("Style", 1.5, 2.5, 1), ("Mark", 3.5, 0, 0)], got  # an instant's end: 0
# the flow that starts in RunTask (its s, with no f) is a field of RunTask
assert strs[mk["data"][0]["flow"]] == "5 toplevel/flow" and "flowTo" not in mk["data"][0], mk["data"][0]
# string values are string-table indexes (format unique-string), numbers numbers
fmt = {f["key"]: f["format"] for s in d["meta"]["markerSchema"] if s["name"] == "Trace" for f in s["fields"]}
assert fmt["src"] == "unique-string" and fmt["cat"] == "unique-string" and fmt["nodes"] == "number", fmt
assert mk["data"][1]["nodes"] == 12 and strs[mk["data"][0]["src"]] == "a.cc", mk["data"][:3]
assert strs[mk["data"][0]["cat"]] == "toplevel", mk["data"][0]
w = th["Worker"]["markers"]
assert [(strs[w["name"][i]], w["phase"][i]) for i in range(w["length"])] == [("Open", 2)]
# async spans go to the process's own track
a = th["Async events"]["markers"]
assert [(strs[a["name"][i]], a["startTime"][i], a["endTime"][i], a["phase"][i]) for i in range(a["length"])] == [("Fetch", 0.5, 2.5, 1)]
assert th["Async events"]["samples"]["length"] == 0 and th["Async events"]["processName"] == "Browser"
s = th["Main"]["samples"]
# derived: one sample per stretch of the same open slices, weighing its time
# (ms); the interval of a trace without V8 samples shorter than 1 s is a
# thousandth of its span (7.5 ms here)
runs = [chain(x) for x in s["stack"]]
assert runs == [["RunTask"], ["RunTask", "Layout"], ["RunTask", "Layout", "Style"], ["RunTask", "Layout"], ["RunTask"]], runs
assert s["weightType"] == "tracing-ms" and stimes(s) == [0, 1, 1.5, 2.5, 3] and s["weight"] == [1, 0.5, 1, 0.5, 2], s
late = th["Thread 7"]["samples"]
assert (stimes(late), late["weight"], [chain(x) for x in late["stack"]]) == ([5], [2.5], [["Late"]]), late
assert d["meta"]["interval"] == 0.0075, d["meta"]["interval"]
c = {x["name"]: x["samples"]["count"] for x in d["counters"]}
assert c == {"Heap used": [100, 150], "Heap total": [200, 200]}, c
PY
	"$PC" info "$C/y_synth_slices.json" 2>/dev/null | grep -q "^format:      Chrome trace events (JSON)" || fail "info"
	# a trace big enough for the scanner's batches and the writer's helper
	# thread (over 8192 markers): every event becomes its marker, twice the
	# same bytes
	python3 "$here/../bench/gen_chrome_trace.py" 2 "$T/g2.json" || fail "gen_chrome_trace.py"
	"$PC" -q --no-symbols "$T/g2.json" -o "$T/g2a.json" || fail "generated trace: conversion"
	"$PC" -q --no-symbols "$T/g2.json" -o "$T/g2b.json" || fail "generated trace: conversion"
	cmp -s "$T/g2a.json" "$T/g2b.json" || fail "generated trace: two conversions differ"
	"$PC" validate "$T/g2a.json" >/dev/null || fail "generated trace: output invalid"
	python3 - "$T/g2.json" "$T/g2a.json" <<'PY' || fail "generated trace: markers"
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ph = collections.Counter(e["ph"] for e in ev)
d = json.load(open(sys.argv[2]))
n = sum(t["markers"]["length"] for t in d["threads"])
# X, I, R one each; an async pair (b, e) one, an unclosed b one; flows none
want = ph["X"] + ph["I"] + ph["R"] + ph["b"]
assert n == want and n > 8192, (n, want, ph)
strs = d["shared"]["stringArray"]
names = collections.Counter(e["name"] for e in ev if e["ph"] == "X")
got = collections.Counter(strs[t["markers"]["name"][i]] for t in d["threads"]
                          for i in range(t["markers"]["length"])
                          if t["markers"]["data"][i] and t["markers"]["data"][i]["type"] == "Trace"
                          and t["markers"]["phase"][i] == 1 and t["name"] != "Async events")
assert got == names, (got, names)
PY
	# flows: v1 s/t/f events keyed by (id as hex, cat, name), id2.local per
	# process, each bound to the innermost slice open on its thread (an f
	# without bp "e": the next slice); v2 bind_id + flow_in/flow_out on the
	# slices themselves (X, B closed and left open); no markers of their
	# own: fields of the slices they bind, naming the other end
	"$PC" -v --no-symbols "$C/y_synth_flows.json" -o "$T/fl.json" 2>"$T/err" || fail "flows: $(cat "$T/err")"
	grep -q "y_synth_flows.json: offset 0x4a5: a flow ('s') event without an id" "$T/err" || fail "flow without an id: $(cat "$T/err")"
	grep -q "y_synth_flows.json: 1 flow events bind no slice" "$T/err" || fail "flows binding no slice: $(cat "$T/err")"
	"$PC" validate "$T/fl.json" >/dev/null || fail "flows output invalid"
	python3 - "$T/fl.json" <<'PY' || fail "flows"
import json, sys
d = json.load(open(sys.argv[1]))
strs = d["shared"]["stringArray"]
ids = ("flow", "terminatingFlow", "flowFrom", "flowTo")
got = []
for t in d["threads"]:
    m = t["markers"]
    for i in range(m["length"]):
        x = m["data"][i]
        assert x["type"] == "Trace", x
        got.append((t["name"], strs[m["name"][i]], m["startTime"][i],
                    {k: strs[v] if k in ids else v for k, v in x.items() if k in ids or k.startswith("flow")}))
assert got == [
    ("Main", "Post", 0, {}),
    ("Main", "Inner", 0.04, {"flow": "1f ipc/Send; 7@1 ipc/Local",
                             "flowTo": "1f ipc/Send: Relay on IO (tid 2); 7@1 ipc/Local: RunTask on IO (tid 2)"}),
    ("Main", "Recv", 0.4, {}),
    ("Main", "RecvInner", 0.4, {"terminatingFlow": "1f ipc/Send", "flowFrom": "Relay on IO (tid 2)"}),
    ("Main", "RunTask", 1, {"flow": "abc", "flowTo": "RunTask on IO (tid 2)"}),
    ("Main", "RunTask", 1.2, {"terminatingFlow": "abc", "flowFrom": "RunTask on IO (tid 2)"}),
    ("Main", "Begin", 1.3, {"flow": "99", "flowTo": "Open on IO (tid 2)"}),
    ("IO", "Relay", 0.15, {"flow": "1f ipc/Send; 1f other/Send; 9 ipc/Lost",
                           "flowFrom": "1f ipc/Send: Inner on Main (tid 1)",
                           "flowTo": "1f ipc/Send: RecvInner on Main (tid 1); 9 ipc/Lost: (no slice) on Main (tid 1)"}),
    ("IO", "RunTask", 1.1, {"flow": "abc", "terminatingFlow": "7@1 ipc/Local",
                            "flowFrom": "7@1 ipc/Local: Inner on Main (tid 1); abc: RunTask on Main (tid 1)",
                            "flowTo": "RunTask on Main (tid 1)"}),
    ("IO", "Open", 1.5, {"terminatingFlow": "99", "flowFrom": "Begin on Main (tid 1)"}),
], got
ms = {s["name"]: s for s in d["meta"]["markerSchema"]}
assert "TraceEventFlow" not in ms, sorted(ms)
fmt = [(f["key"], f["format"]) for f in ms["Trace"]["fields"]]
assert fmt == [("cat", "unique-string"), ("n", "number"), ("flow", "flow-id"), ("terminatingFlow", "terminating-flow-id"),
               ("flowFrom", "unique-string"), ("flowTo", "unique-string")], fmt
main = [t for t in d["threads"] if t["name"] == "Main"][0]["markers"]
assert main["data"][5]["n"] == 1, main["data"][5]
PY
	# args string values are string-table indexes (unique-string); a key
	# that also had a number or a boolean keeps plain strings (string)
	printf '%s\n' '[{"name":"A","cat":"c","ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"args":{"k":"x","m":"y","o":{"p":1}}},' \
		'{"name":"B","cat":"c","ph":"X","pid":1,"tid":1,"ts":4,"dur":2,"args":{"k":7,"m":"y","b":true}},' \
		'{"name":"C","cat":"d","ph":"i","pid":1,"tid":1,"ts":5,"args":{"k":"x","m":"z"}}]' >"$T/mixed.json"
	"$PC" -q --no-symbols "$T/mixed.json" -o "$T/mixed.out.json" || fail "mixed args: conversion"
	"$PC" validate "$T/mixed.out.json" >/dev/null || fail "mixed args: output invalid"
	python3 - "$T/mixed.out.json" <<'PY' || fail "mixed args"
import json, sys
d = json.load(open(sys.argv[1]))
strs = d["shared"]["stringArray"]
fmt = {f["key"]: f["format"] for s in d["meta"]["markerSchema"] if s["name"] == "Trace" for f in s["fields"]}
assert fmt == {"cat": "unique-string", "k": "string", "m": "unique-string", "o": "unique-string", "b": "string"}, fmt
mk = d["threads"][0]["markers"]
got = [(strs[mk["name"][i]], {k: (strs[v] if fmt.get(k) == "unique-string" else v) for k, v in mk["data"][i].items()})
       for i in range(mk["length"])]
assert got == [("A", {"type": "Trace", "cat": "c", "k": "x", "m": "y", "o": '{"p":1}'}),
               ("B", {"type": "Trace", "cat": "c", "k": 7, "m": "y", "b": True}),
               ("C", {"type": "Trace", "cat": "d", "k": "x", "m": "z"})], got
PY
	# thread order and process names as the front-end's Chrome importer
	# makes them: process_sort_index, thread_sort_index (CrBrowserMain -1),
	# main threads first, process_labels appended to the process name.
	# Main threads as the importer marks them: a name Cr...Main (CrMain
	# too) or tid = pid (pid 0 aside; also without a thread_name), one per
	# process (pid 6 has two candidates: the first in order), and the
	# counters of a process drawn with its main thread (pid 8's Helper
	# comes first by its thread_sort_index)
	"$PC" -q --no-symbols "$C/y_synth_order.json" -o "$T/ord.json" || fail "order: conversion"
	python3 - "$T/ord.json" <<'PY' || fail "thread order"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(t["pid"], t["tid"], t["name"], t["processName"], t["isMainThread"]) for t in d["threads"]]
assert got == [
    ("2", 21, "CrBrowserMain", "Browser", True),
    ("2", 20, "Chrome_IOThread", "Browser", False),
    ("0", 0, "swapper", "", False),
    ("1", 11, "Compositor", "Renderer (Example Domain)", False),
    ("1", 10, "CrRendererMain", "Renderer (Example Domain)", True),
    ("3", 30, "Thread 30", "Process 3 (about:blank)", False),
    ("4", 4, "network.CrUtilityMain", "", True),
    ("4", 41, "Chrome_ChildIOThread", "", False),
    ("5", 51, "CrMain", "", True),
    ("6", 6, "Worker6", "", True),
    ("6", 60, "CrRendererMain", "", False),
    ("7", 7, "Thread 7", "", True),
    ("8", 80, "Helper", "", False),
    ("8", 81, "CrUtilityMain", "", True),
], got
assert [(c["name"], c["mainThreadIndex"]) for c in d["counters"]] == [("Load", 13)], d["counters"]
PY
	# stackFrames (global and a process's own from an M event, parents,
	# a loop), P samples by sf and by stack array, global samples by tid
	"$PC" --no-symbols "$C/y_synth_stackframes.json" -o "$T/sf.json" 2>"$T/err" || fail "stackFrames: $(cat "$T/err")"
	"$PC" validate "$T/sf.json" >/dev/null || fail "stackFrames output invalid"
	for w in "offset 0x2ca: a P event with neither sf nor stack" \
		"1 samples name a stack frame that stackFrames lacks; dropped" \
		"a stackFrames parent chain loops or is deeper than 1024 frames" \
		'stackFrames\["6"\] is not an object; skipped'; do
		grep -q "$w" "$T/err" || fail "stackFrames warning '$w': $(cat "$T/err")"
	done
	python3 - "$T/sf.json" <<'PY' || fail "stackFrames samples"
import json, sys
from pc_testlib import stimes
d = json.load(open(sys.argv[1]))
sh = d["shared"]; strs = sh["stringArray"]
st, ft, fn = sh["stackTable"], sh["frameTable"], sh["funcTable"]
def chain(s):
    out = []
    while s is not None:
        out.append(strs[fn["name"][ft["func"][st["frame"][s]]]])
        off = st["prefixOffset"][s]
        s = None if off == 0 else s - off
    return out[::-1]
got = {}
for t in d["threads"]:
    s = t["samples"]
    w = s.get("weight") or [1] * s["length"]
    got[t["name"]] = [(stimes(s)[i], chain(s["stack"][i]), w[i]) for i in range(s["length"])]
assert got == {
    "Main": [(0.1, ["main", "run", "work"], 2), (0.3, ["local_leaf"], 1),
             (0.4, ["main", "loop", "0x7f00abcd"], 1), (0.6, ["main", "run"], 1)],
    "Thread 99": [(0.7, ["back", "loopy"], 1)],
}, got
PY
	;;
gecko-writer)
	# --to gecko: the Gecko profile read back holds the same profile as the
	# direct processed conversion (every sample's stack by function and
	# library, every marker with its payload fields, counters, pages), it
	# validates, and two runs give the same bytes.  No thread of a
	# `processes` entry is without samples: the front-end's
	# adjustTableTimeDeltas() would give its empty samples table a one-entry
	# timeDeltas (the Chromium cut has 35 such threads, now top-level ones).
	G="$here/fixtures/gecko"
	SP="$here/fixtures/symperf"
	# Also, with round_trip.py, each thread's functions and their self
	# counts are the same (a function split in two or renamed is a
	# difference); "exact" specs also compare every lib of `libs`, every
	# frame (symbolicated ones too, whose address, inline depth, native
	# symbol and source file profconv's own frameTable columns carry) and
	# every stack.  The "p" inputs are processed outputs of the others
	# (processed -> Gecko -> processed: libs no process maps, written as
	# empty ranges with profconv's "lib" frame column).  PIE and non-PIE
	# executables, the vdso, the
	# kernel, JIT code (node's perf map), symbolicated frames (the
	# programs' own symbols only: --no-host-symbols), Firefox's JS
	# functions with source indexes (esr153-js-cut.json: fib's frames at
	# six line:column pairs, one function) and Chrome.  y_switch's
	# context-switch markers are "funcs" only: their causes' own frames are
	# instruction pointers, which the Gecko format cannot tell from the
	# return addresses it nudges (docs/formats/gecko-profile.md).
	NS=--no-symbols
	RT="--no-host-symbols+--symbol-dir=$FX/src"
	checks=
	for spec in "perf:$FX/y_fp.data:$NS:exact" "sym:$SP/y_sym.data:--symbol-dir=$SP:funcs" \
		"cut:$G/esr153-cut.json:$NS:exact" "extras:$G/esr153-extras.json:$NS:exact" \
		"js:$G/esr153-js-cut.json:$NS:exact" \
		"pie:$FX/y_pie.data:$NS:exact" "nopie:$FX/y_nopie.data:$NS:exact" \
		"piesym:$FX/y_pie.data:$RT:exact" "nopiesym:$FX/y_nopie.data:$RT:exact" \
		"fork:$FX/y_fork_exec.data:$NS:exact" "switch:$FX/y_switch.data:$NS:funcs" \
		"jit:$here/fixtures/jit/y_node_jit.data:$NS:exact" \
		"chrome:$here/fixtures/chrome/chromium156-cut.json.zst:$NS:funcs" \
		"ppiesym:$T/piesym.direct.json:$NS:exact" "pnopie:$T/nopie.direct.json:$NS:exact" \
		"pfork:$T/fork.direct.json:$NS:exact" "pjit:$T/jit.direct.json:$NS:exact"; do
		n=${spec%%:*}
		rest=${spec#*:}
		mode=${rest##*:}
		rest=${rest%:*}
		in=${rest%:*}
		opt=$(echo "${rest##*:}" | tr '+' ' ')
		"$PC" -q $opt "$in" -o "$T/$n.direct.json" || fail "$n: processed"
		"$PC" -q $opt -t gecko "$in" -o "$T/$n.gecko.json" || fail "$n: gecko"
		"$PC" -q $opt -t gecko "$in" -o "$T/$n.gecko2.json" || fail "$n: gecko again"
		cmp -s "$T/$n.gecko.json" "$T/$n.gecko2.json" || fail "$n: gecko output not deterministic"
		"$PC" validate "$T/$n.gecko.json" >"$T/v" 2>/dev/null || fail "$n: gecko output invalid: $(cat "$T/v")"
		grep -q "valid Gecko profile v36" "$T/v" || fail "$n: $(cat "$T/v")"
		"$PC" -q --no-symbols "$T/$n.gecko.json" -o "$T/$n.back.json" || fail "$n: reading the gecko output"
		checks="$checks $n:$mode"
	done
	# one Python for every input's checks (its start-up was most of the time)
	python3 - "$G" "$T" $checks >"$T/same" <<'PY' || fail "$(cat "$T/same")"
import contextlib, importlib.util, io, json, sys
def module(name):
    spec = importlib.util.spec_from_file_location(name, "%s/%s.py" % (sys.argv[1], name))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
same, rt = module("same_profile"), module("round_trip")
bad = []
for arg in sys.argv[3:]:
    n, mode = arg.split(":")
    d, b = "%s/%s.direct.json" % (sys.argv[2], n), "%s/%s.back.json" % (sys.argv[2], n)
    for what, main, args in (("not the same profile", same.main, [d, b]),
                             ("not the same functions", rt.main,
                              (["--exact"] if mode == "exact" else []) + [d, b])):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if main(args):
                bad.append("%s: %s: %s" % (n, what, out.getvalue()))
    p = json.load(open("%s/%s.gecko.json" % (sys.argv[2], n)))
    empty = ["processes[%d] %s (pid %s, tid %s)" % (i, t["name"], t["pid"], t["tid"])
             for i, sub in enumerate(p["processes"]) for t in sub["threads"]
             if not t["samples"]["data"]]
    if empty:
        bad.append("%s: %d subprocess threads without samples, e.g. %s" % (n, len(empty), empty[0]))
if bad:
    sys.exit("\n".join(bad))
print("%d inputs checked" % (len(sys.argv) - 3))
PY
	"$PC" --no-symbols --weight period -t gecko "$FX/y_fp.data" -o "$T/w.json" 2>"$T/err" || fail "weights"
	grep -q "4 threads whose sample weights were dropped (the Gecko format has none)" "$T/err" || fail "weights: $(cat "$T/err")"
	;;
view)
	# profconv view: the one-profile shorthand of serve (serve_test.py tests
	# the server): the profile at the URL the printed from-url link encodes,
	# with the CORS header, as often as asked (reloads); a wrong path is 404;
	# Ctrl-C ends it with status 0; --timeout with no fetch is status 1.
	"$PC" -q --no-symbols "$FX/y_fp.data" -o "$T/want.json" || fail "conversion"
	"$PC" view --no-open --timeout 60 --no-symbols "$FX/y_fp.data" >"$T/url" 2>"$T/err" &
	vpid=$!
	i=0
	while [ ! -s "$T/url" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	python3 - "$T/url" "$T/want.json" <<'PY' || { kill $vpid 2>/dev/null; fail "HTTP checks"; }
import sys, urllib.error, urllib.parse, urllib.request
u = open(sys.argv[1]).read().strip()
assert u.startswith("https://profiler.firefox.com/from-url/http%3A%2F%2F127.0.0.1%3A"), u
prof, sym = u.split("/from-url/", 1)[1].split("/?symbolServer=", 1)
local = urllib.parse.unquote(prof)
assert local.startswith(urllib.parse.unquote(sym) + "/"), (local, sym)
try:
    urllib.request.urlopen(local.rsplit("/", 2)[0] + "/wrong/y_fp.data.json", timeout=10)
    raise SystemExit("a wrong path was served")
except urllib.error.HTTPError as e:
    assert e.code == 404, e.code
origin = {"Origin": "https://profiler.firefox.com"}
r = urllib.request.urlopen(urllib.request.Request(local, method="OPTIONS", headers=dict(
    origin, **{"Access-Control-Request-Private-Network": "true"})), timeout=10)
assert r.status == 204 and r.headers["Access-Control-Allow-Origin"] == "https://profiler.firefox.com"
assert r.headers["Access-Control-Allow-Private-Network"] == "true", r.headers
for reload in range(2):
    r = urllib.request.urlopen(urllib.request.Request(local, headers=origin), timeout=10)
    body = r.read()
    assert r.status == 200, r.status
    assert r.headers["Access-Control-Allow-Origin"] == "https://profiler.firefox.com", r.headers
    assert r.headers["Content-Type"] == "application/json", r.headers
    assert int(r.headers["Content-Length"]) == len(body)
    assert body == open(sys.argv[2], "rb").read(), "the body is not the conversion's output"
PY
	kill -INT $vpid
	wait $vpid
	rc=$?
	[ "$rc" = 0 ] || fail "view exited $rc after SIGINT: $(cat "$T/err")"
	grep -q "stopped (SIGINT)" "$T/err" || fail "view: $(cat "$T/err")"
	"$PC" view --no-open --timeout 1 --no-symbols "$FX/y_fp.data" >/dev/null 2>"$T/err"
	[ $? = 1 ] || fail "view --timeout did not fail"
	grep -q "nothing fetched a profile in 1 s" "$T/err" || fail "timeout: $(cat "$T/err")"
	"$PC" view --no-open "$FX/y_fp.data" "$FX/y_fp.data" >/dev/null 2>"$T/err"
	[ $? = 2 ] || fail "view with two inputs did not fail"
	;;
startup-libs)
	# libarchive, libmicrohttpd and capstone are loaded with dlopen() when
	# first needed (compress-out, compressed and cli.serve.* use them), not
	# linked: relocating them cost every run of profconv a few ms
	command -v readelf >/dev/null || { echo "SKIP: no readelf"; exit 0; }
	needed=$(readelf -d "$PC" | grep NEEDED) || fail "readelf -d $PC"
	for lib in libarchive libmicrohttpd libcapstone; do
		case "$needed" in
		*"$lib"*) fail "$lib is linked: $needed" ;;
		esac
	done
	;;
compress-out)
	# --compress / FILE.gz / FILE.zst: compressed in the same pass, the same
	# bytes every run, decompressing to exactly the plain output, read back
	# by profconv and validate; batch names follow.
	in="$FX/y_fp.data"
	"$PC" -q --no-symbols "$in" -o "$T/p.json" || fail "plain"
	"$PC" -q --no-symbols "$in" -o "$T/p.json.gz" || fail "gz by name"
	"$PC" -q --no-symbols "$in" -o "$T/p.json.zst" || fail "zst by name"
	"$PC" -q --no-symbols --compress gzip "$in" -o - >"$T/stdout.gz" || fail "gz to stdout"
	"$PC" -q --no-symbols --compress none "$in" -o "$T/none.json.gz" || fail "none"
	sleep 1
	"$PC" -q --no-symbols "$in" -o "$T/again.json.gz" || fail "gz again"
	gzip -dc "$T/p.json.gz" | cmp -s - "$T/p.json" || fail "gzip output differs once decompressed"
	zstd -q -dc "$T/p.json.zst" | cmp -s - "$T/p.json" || fail "zstd output differs once decompressed"
	cmp -s "$T/stdout.gz" "$T/p.json.gz" || fail "--compress gzip to stdout differs from FILE.gz"
	cmp -s "$T/none.json.gz" "$T/p.json" || fail "--compress none compressed"
	cmp -s "$T/again.json.gz" "$T/p.json.gz" || fail "gzip output not deterministic (a timestamp?)"
	[ "$(wc -c <"$T/p.json.gz")" -lt "$(wc -c <"$T/p.json")" ] || fail "gzip did not shrink"
	"$PC" validate "$T/p.json.gz" >/dev/null || fail "validate FILE.gz"
	"$PC" -q "$T/p.json.zst" -o "$T/rt.json" || fail "reading FILE.zst back"
	cmp -s "$T/rt.json" "$T/p.json" || fail "FILE.zst read back differs"
	"$PC" --compress lz4 "$in" -o "$T/x" 2>"$T/err"; [ $? = 2 ] || fail "--compress lz4 accepted"
	"$PC" -q --no-symbols --compress zstd -O "$T/out" "$in" || fail "batch"
	[ -f "$T/out/y_fp.json.zst" ] || fail "batch name: $(ls "$T/out")"
	;;
hermetic)
	# The suite runs with PROFCONV_HOST_SYMBOLS=no (tests/CMakeLists.txt):
	# symbols come only from what the tests ship.  Check it: every library's
	# note names the shipped dir or says it was not searched.
	[ "${PROFCONV_HOST_SYMBOLS:-}" = no ] || fail "run without PROFCONV_HOST_SYMBOLS=no (not under CTest?)"
	SP="$here/fixtures/symperf"
	"$PC" -v --symbol-dir "$SP" "$SP/y_sym.data" -o "$T/a.json" 2>"$T/notes" || fail "conversion"
	grep -q "note: symbols for prog: $SP/prog (elf+dwarf)" "$T/notes" || fail "notes: $(cat "$T/notes")"
	grep -q "no symbols for \[kernel.kallsyms\]: /proc/kallsyms (not searched" "$T/notes" ||
		fail "/proc/kallsyms was read: $(cat "$T/notes")"
	grep "symbols for" "$T/notes" | grep -v "$SP" | grep -v "not searched (host symbols are off)" >"$T/leak" &&
		fail "a host path was searched: $(cat "$T/leak")"
	# and it is the same from another $HOME (perf's ~/.debug cache) and cwd
	mkdir "$T/home"
	(cd "$T" && HOME="$T/home" "$PC" -q --symbol-dir "$SP" "$SP/y_sym.data" -o "$T/b.json") ||
		fail "second run"
	cmp -s "$T/a.json" "$T/b.json" || fail "another \$HOME or cwd changed the output"
	;;
edges-input)
	# Issue 12's input edges: a stream spooled only as far as the perf.data
	# header says (trailing zeros are one warning, not 64 MiB of disk), any
	# spool capped by --max-memory, impossible sizes and empty archives said
	# as such, the 4097th event named with its offset, and validate and the
	# readers refusing the same numbers.
	in="$FX/y_fp.data"
	"$PC" -q --no-symbols "$in" -o "$T/plain.json" || fail "plain conversion"
	{ cat "$in"; head -c 67108864 /dev/zero; } | zstd -q -c >"$T/tail.zst"
	"$PC" --no-symbols "$T/tail.zst" -o "$T/tail.json" 2>"$T/err" || fail "trailing zeros: $(cat "$T/err")"
	grep -q "^profconv: warning: $T/tail.zst: offset 0x14444: the input goes on after the end of what its format describes (0x14444 bytes); the rest is not read" "$T/err" ||
		fail "trailing zeros: $(cat "$T/err")"
	cmp -s "$T/plain.json" "$T/tail.json" || fail "trailing zeros changed the output"
	"$PC" -q --strict --no-symbols "$T/tail.zst" -o "$T/tail.json" 2>/dev/null && fail "--strict accepted trailing bytes"
	# an unfinished recording (data size 0) must be read to the end: the cap
	python3 - "$in" "$T/unfinished.data" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[48:56] = bytes(8)
d[72:104] = bytes(32)
open(sys.argv[2], "wb").write(d)
PY
	{ cat "$T/unfinished.data"; head -c 33554432 /dev/zero; } | "$PC" -q --no-symbols --max-memory 16M - -o "$T/u.json" 2>"$T/err"
	[ $? = 1 ] || fail "an endless stream was spooled past --max-memory"
	grep -q "^profconv: error: <stdin>: offset 0x[0-9a-f]*: stopped copying the input to a temporary file: it would pass the memory limit of 16 MiB" "$T/err" ||
		fail "spool cap: $(cat "$T/err")"
	python3 - "$in" "$T/ds63.data" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], "rb").read())
d[48:56] = struct.pack("<Q", 1 << 63)
open(sys.argv[2], "wb").write(d)
PY
	"$PC" -q --no-symbols "$T/ds63.data" -o "$T/x.json" 2>"$T/err" && fail "data size 2^63 accepted"
	grep -q "offset 0x30: data size 0x8000000000000000 is impossible" "$T/err" || fail "data size 2^63: $(cat "$T/err")"
	head -c 1048576 /dev/zero | zstd -q -c >"$T/zeros.zst"
	"$PC" -q "$T/zeros.zst" -o "$T/x.json" 2>"$T/err" && fail "zeros accepted"
	grep -q "the zstd stream decompresses to an empty tar archive with no file in it" "$T/err" || fail "zeros: $(cat "$T/err")"
	# pipe mode: 4097 HEADER_ATTR records
	python3 - "$T/attrs.data" <<'PY'
import sys, struct
attr = struct.pack("<IIQQQQQ", 1, 128, 0, 0, 0, 0, 0) + bytes(128 - 48)
rec = struct.pack("<IHH", 64, 0, 8 + len(attr)) + attr
open(sys.argv[1], "wb").write(b"PERFILE2" + struct.pack("<Q", 16) + rec * 4097)
PY
	"$PC" -q "$T/attrs.data" -o "$T/x.json" 2>"$T/err" && fail "4097 events accepted"
	grep -q "attrs.data: offset 0x88010: event 4097: more than 4096 events (attrs); expected at most 4096" "$T/err" || fail "4097 events: $(cat "$T/err")"
	# validate and the readers: one rule for numbers
	for f in n_proc_interval_inf n_proc_time_inf n_proc_index_float; do
		"$PC" validate "$here/fixtures/validate/$f.json" >/dev/null 2>&1 && fail "validate accepted $f"
		"$PC" -q "$here/fixtures/validate/$f.json" -o "$T/x.json" 2>/dev/null && fail "the reader accepted $f"
	done
	;;
edges)
	# The edges a careful user hits: unusable symbol paths warn (without -v)
	# and never hang, sizes parse strictly, the memory limit says where it
	# was hit, info reads every input it is given.
	in="$FX/y_fp.data"
	mkfifo "$T/kfifo"
	for k in /dev/zero "$T/kfifo" "$T/missing"; do
		[ -e "$k" ] || [ "$k" = "$T/missing" ] || continue
		timeout 60 "$PC" --kallsyms "$k" "$in" -o "$T/k.json" 2>"$T/err"
		rc=$?
		[ "$rc" = 0 ] || fail "--kallsyms $k: exit $rc (124 is a hang)"
		grep -q "^profconv: warning: --kallsyms $k: " "$T/err" || fail "--kallsyms $k: no warning: $(cat "$T/err")"
	done
	"$PC" --symbol-dir "$T/missing" "$in" -o "$T/s.json" 2>"$T/err" || fail "--symbol-dir missing: failed"
	grep -q "^profconv: warning: --symbol-dir $T/missing: No such file or directory; not searched" "$T/err" ||
		fail "--symbol-dir missing: $(cat "$T/err")"
	for bad in -1 17592186044417 0 1.5 12Q; do
		"$PC" --max-memory "$bad" "$in" -o "$T/m.json" 2>"$T/err"
		[ $? = 2 ] || fail "--max-memory $bad: not refused"
		grep -q "takes a size" "$T/err" || fail "--max-memory $bad: $(cat "$T/err")"
	done
	expect_rc 0 "$PC" -q --no-symbols --max-memory 1G "$in" -o "$T/m.json"
	"$PC" -q --no-symbols --max-memory 16K "$in" -o "$T/m.json" 2>"$T/err"
	[ $? = 1 ] || fail "--max-memory 16K did not stop the conversion"
	grep -q "^profconv: error: $in: opening: memory limit of 16 KiB reached" "$T/err" ||
		fail "memory limit message: $(cat "$T/err")"
	"$PC" info "$in" "$FX/y_pipe.data" >"$T/info" 2>&1 || fail "info A B failed"
	[ "$(grep -c '^file:' "$T/info")" = 2 ] || fail "info A B did not describe both"
	;;
outputs-validate)
	# Whatever a reader accepts, the writer emits a profile validate accepts:
	# every JSON input of the fuzz corpus and the fixtures that converts.
	n=0
	for f in "$here"/fuzz/corpus/json/* "$here"/fixtures/gecko/*.json \
		"$here"/fixtures/validate/*.json "$here"/golden/*.json; do
		"$PC" -q --no-symbols "$f" -o "$T/out.json" 2>/dev/null || continue
		"$PC" validate "$T/out.json" >/dev/null 2>"$T/err" ||
			fail "$(basename "$f") converts into a profile validate refuses: $(head -1 "$T/err")"
		n=$((n + 1))
	done
	[ "$n" -ge 25 ] || fail "only $n inputs converted (28 expected)"
	# JSON allows a lone surrogate escape: validate reads it as U+FFFD and
	# says where (it used to report a wrong cause)
	V="$here/fixtures/validate"
	for c in "meta_lone_surrogate meta.product" "libs_lone_surrogate libs[1].path"; do
		set -- $c
		"$PC" validate "$V/y_$1.json" >/dev/null 2>"$T/err" || fail "y_$1 is refused: $(cat "$T/err")"
		grep -qF "the first lone surrogate is at $2" "$T/err" || fail "y_$1: $(cat "$T/err")"
	done
	;;
gecko-damaged)
	# One change each to a real Firefox profile: the reader repairs what the
	# output cannot carry with exactly one warning, the output validates,
	# and --strict fails with that warning.
	G="$here/fixtures/gecko"
	python3 "$G/make_damaged.py" "$G/esr153-cut.json" "$T" || fail "make_damaged.py"
	for d in categories_empty no_endtime data_array paused_5; do
		"$PC" --no-symbols "$T/$d.json" -o "$T/$d.out.json" 2>"$T/$d.err"
		[ $? = 0 ] || fail "$d: conversion failed: $(cat "$T/$d.err")"
		n=$(grep -c "^profconv: warning: $T/$d.json" "$T/$d.err")
		[ "$n" = 1 ] || fail "$d: $n warnings, expected 1: $(cat "$T/$d.err")"
		expect_rc 0 "$PC" validate "$T/$d.out.json"
		want=$(grep "^profconv: warning: $T/$d.json" "$T/$d.err" | sed 's/^profconv: warning: //')
		"$PC" --strict --no-symbols "$T/$d.json" -o "$T/$d.strict.json" 2>"$T/$d.serr"
		[ $? = 1 ] || fail "$d: --strict did not fail"
		grep -qF "profconv: error: $want" "$T/$d.serr" ||
			fail "$d: --strict error differs: $(cat "$T/$d.serr")"
		[ ! -e "$T/$d.strict.json" ] || fail "$d: --strict left an output"
	done
	;;
gecko-deep-payload)
	# A marker payload nested as deep as the Gecko reader takes (62 levels
	# under the payload object; 63 is refused with a warning) is written
	# whole in both formats, and the Gecko output reads back to the same
	# processed profile (the JSON writer's limit was once below it).
	G="$here/fixtures/gecko"
	python3 - "$G/esr153-cut.json" "$T/deep.json" <<'PY' || fail "making the deep payload"
import json, sys
p = json.load(open(sys.argv[1]))
def rows(p):
    for t in p["threads"]:
        m = t["markers"]
        for r in m["data"]:
            yield r, m["schema"]["data"]
    for sp in p.get("processes", []):
        yield from rows(sp)
r, k = next((r, k) for r, k in rows(p) if isinstance(r[k], dict))
d = "bottom"
for _ in range(62):
    d = {"n": d}
r[k]["deep"] = d
json.dump(p, open(sys.argv[2], "w"))
PY
	expect_rc 0 "$PC" -q --no-symbols "$T/deep.json" -o "$T/deep.out.json"
	expect_rc 0 "$PC" -q --no-symbols --to gecko "$T/deep.json" -o "$T/deep.gecko.json"
	expect_rc 0 "$PC" -q --no-symbols "$T/deep.gecko.json" -o "$T/deep.back.json"
	for f in deep.out.json deep.gecko.json deep.back.json; do
		python3 - "$T/$f" <<'PY' || fail "$f: the deep payload is not whole"
import json, sys
def walk(v):
    if isinstance(v, dict):
        if "deep" in v:
            yield v["deep"]
        for x in v.values():
            yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)
found = list(walk(json.load(open(sys.argv[1]))))
assert len(found) == 1, len(found)
d, n = found[0], 0
while isinstance(d, dict) and list(d) == ["n"]:
    d, n = d["n"], n + 1
assert n == 62, n
# a string is written as is (Gecko) or as a string-table index (processed)
assert d == "bottom" or isinstance(d, int), d
PY
	done
	;;
gecko-counts)
	# A real Firefox profile (a cut): every process, thread, sample (with its
	# eventDelay and threadCPUDelta), marker with its payload fields, counter
	# and page is kept, no payload text in
	# the string table, platform as in the source; the output validates, and
	# processed in, processed out is byte-identical.
	G="$here/fixtures/gecko"
	expect_rc 0 "$PC" -q --no-symbols "$G/$ARG.json" -o "$T/a.json"
	python3 "$G/count_check.py" "$G/$ARG.json" "$T/a.json" >"$T/counts" ||
		fail "counts differ: $(cat "$T/counts")"
	expect_rc 0 "$PC" validate "$T/a.json"
	expect_rc 0 "$PC" -q --no-symbols "$T/a.json" -o "$T/b.json"
	cmp "$T/a.json" "$T/b.json" || fail "processed round trip changed the profile"
	;;
outputs)
	# Where output goes: devices and FIFOs are written in place, a symlink's
	# target is replaced (not the link), write errors name the path, bad
	# paths are refused before any work, and a signal leaves no temp file.
	in="$FX/y_fork_exec.data"
	expect_rc 0 "$PC" -q --no-symbols "$in" -o "$T/ref.json"
	if [ -c /dev/null ] && [ -w /dev/null ]; then
		expect_rc 0 "$PC" -q --no-symbols "$in" -o /dev/null
		[ -c /dev/null ] || fail "/dev/null is no longer a character device"
	fi
	mkfifo "$T/fifo"
	cat "$T/fifo" >"$T/from-fifo.json" &
	reader=$!
	expect_rc 0 "$PC" -q --no-symbols "$in" -o "$T/fifo"
	wait "$reader"
	[ -p "$T/fifo" ] || fail "the FIFO was replaced"
	cmp "$T/ref.json" "$T/from-fifo.json" || fail "the FIFO got other bytes"
	echo old >"$T/target.json"
	ln -s target.json "$T/link.json"
	expect_rc 0 "$PC" -q --no-symbols "$in" -o "$T/link.json"
	[ -L "$T/link.json" ] || fail "the symlink was replaced"
	cmp "$T/ref.json" "$T/target.json" || fail "the symlink's target was not written"
	if [ -c /dev/full ]; then
		"$PC" -q --no-symbols "$in" -o /dev/full 2>"$T/err"
		[ $? = 1 ] || fail "/dev/full: exit status not 1"
		grep -q "/dev/full: write failed: No space left on device" "$T/err" ||
			fail "/dev/full: $(cat "$T/err")"
	fi
	"$PC" -q --no-symbols "$in" -o "" 2>"$T/err"
	[ $? = 2 ] || fail '-o "": exit status not 2'
	grep -q "the output path is empty" "$T/err" || fail "-o '': $(cat "$T/err")"
	mkdir "$T/dir"
	"$PC" -q --no-symbols "$in" -o "$T/dir" 2>"$T/err"
	[ $? = 2 ] || fail "-o DIR: exit status not 2"
	grep -q "$T/dir: is a directory" "$T/err" || fail "-o DIR: $(cat "$T/err")"
	"$PC" -q --no-symbols "$in" -o "$T/nodir/out.json" 2>"$T/err"
	[ $? = 1 ] || fail "-o in a missing directory: exit status not 1"
	grep -q "the directory $T/nodir: No such file or directory" "$T/err" ||
		fail "missing directory: $(cat "$T/err")"
	# SIGTERM while the temporary file is being written: stop the process
	# as soon as the file appears, queue the signal, let it run
	python3 - "$T/big.json" <<'PY'
import sys
n = 4000000
with open(sys.argv[1], "w") as f:
    f.write('{"meta":{"preprocessedProfileVersion":69,"interval":1,"markerSchema":[]},"libs":[],'
            '"shared":{"stringArray":["t"]},"threads":[{"name":"t","pid":"1","tid":1,"samples":'
            '{"stack":[' + ",".join(["null"] * n) + '],"time":[' +
            ",".join(str(i) for i in range(n)) + '],"length":%d}}]}' % n)
PY
	"$PC" -q --no-symbols "$T/big.json" -o "$T/sig/out.json" 2>/dev/null &&
		fail "no such directory: converted anyway"
	mkdir "$T/sig"
	# a signal while the temporary file is being written: convert, stop the
	# process as soon as the file appears, queue signal $1, let it run;
	# rc: its exit status.  The file lives some 40 ms: Python polls for it
	# every half millisecond (a shell loop that runs ls every 10 ms missed
	# it one time in three on a machine where starting a process is slow),
	# and starts over, up to five times, if the conversion was done first.
	# With $2 = held, the conversion runs under strace, which holds the
	# return of every openat for 150 ms, and gets the signal right after
	# the temporary file's open() returned (three tries: the file lives
	# 150 ms and more, missed only when Python is not run that long).
	signal_while_writing() {
		rc=$(python3 - "$PC" "$T/big.json" "$T/sig" "$1" "${2:-}" 2>"$T/err" <<'PY'
import os, signal, subprocess, sys, time
pc, big, d, sig, held = sys.argv[1:]
sig = getattr(signal, "SIG" + sig)
cmd = [pc, "-q", "--no-symbols", big, "-o", os.path.join(d, "out.json")]
if held:
    cmd = ["strace", "-qq", "-o", "/dev/null", "-e", "trace=openat",
           "-e", "inject=openat:delay_exit=150000"] + cmd

def tmp_there():
    return any(n.startswith("out.json.tmp-") for n in os.listdir(d))

for attempt in range(3 if held else 5):
    for n in os.listdir(d):
        os.unlink(os.path.join(d, n))
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE)
    seen = False
    while p.poll() is None:
        if tmp_there():
            if held:
                # the conversion is strace's child, held in that open()
                with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                    os.kill(int(f.read().split()[0]), sig)
                seen = True
                break
            os.kill(p.pid, signal.SIGSTOP)
            seen = tmp_there()
            if seen:
                os.kill(p.pid, sig)
            os.kill(p.pid, signal.SIGCONT)
            break
        time.sleep(0.0005)
    err = p.communicate()[1]
    if seen:
        sys.stderr.buffer.write(err)
        rc = p.returncode
        print(128 - rc if rc < 0 else rc)
        sys.exit(0)
print("never")
PY
)
		tries=5
		[ -z "${2:-}" ] || tries=3
		[ "$rc" != never ] || fail "SIG$1${2:+ ($2)}: the temporary file was never seen ($tries tries)"
	}
	signal_while_writing TERM
	[ "$rc" = 143 ] || fail "killed by SIGTERM: exit status $rc, expected 143"
	[ -z "$(ls "$T/sig")" ] || fail "files left after SIGTERM: $(ls "$T/sig")"
	# SIGBUS (what reading a mapped input that another process cut short
	# raises): the error names the input, exit status 1, no temporary file
	signal_while_writing BUS
	[ "$rc" = 1 ] || fail "SIGBUS: exit status $rc, expected 1"
	grep -q "^profconv: error: $T/big.json: an input file changed (was cut short) while it was read" "$T/err" ||
		fail "SIGBUS: $(cat "$T/err")"
	[ -z "$(ls "$T/sig")" ] || fail "files left after SIGBUS: $(ls "$T/sig")"
	# the same signals taken right after the temporary file's open()
	# returned (as when the process is preempted there): the name must be
	# known by then.
	# This left the file behind (and failed a CI run, through the cases
	# above) before the library blocked signals between creating the file
	# and storing its name.
	can_trace=
	if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
		can_trace=1
	else
		echo "outputs: strace cannot trace here; the signal-after-open() and input-mapping cases are not run" >&2
	fi
	if [ "$can_trace" ]; then
		for sig in TERM BUS; do
			signal_while_writing "$sig" held
			case $sig in TERM) want=143 ;; *) want=1 ;; esac
			[ "$rc" = "$want" ] ||
				fail "SIG$sig after the open(): exit status $rc, expected $want: $(cat "$T/err")"
			[ -z "$(ls "$T/sig")" ] ||
				fail "files left after SIG$sig right after the open(): $(ls "$T/sig")"
		done
	fi
	# a plain JSON input is read with read(), not mapped (no mmap() of
	# its descriptor), unless PROFCONV_INPUT_MAP=1 asks for the mapping
	# (LeakSanitizer cannot run under strace: no leak check there)
	if [ "$can_trace" ]; then
		for map in "" 1; do
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" PROFCONV_INPUT_MAP=$map \
				strace -qq -f -e trace=openat,mmap -o "$T/trace" \
				"$PC" -q --no-symbols "$T/big.json" -o "$T/mapped.json" 2>"$T/err" ||
				fail "PROFCONV_INPUT_MAP=$map: $(cat "$T/err")"
			fd=$(sed -n "s|.*openat(AT_FDCWD, \"$T/big.json\", O_RDONLY[^)]*) = \\([0-9]*\\)\$|\\1|p" "$T/trace" | head -1)
			[ -n "$fd" ] || fail "PROFCONV_INPUT_MAP=$map: no open of the input in the trace"
			# (mmap()s after that open: the loader's came before, on the same number)
			n=$(sed -n "\|openat(AT_FDCWD, \"$T/big.json\"|,\$p" "$T/trace" |
				grep -c "mmap(NULL, [0-9]*, PROT_READ, MAP_PRIVATE, $fd, ")
			if [ -z "$map" ]; then
				[ "$n" = 0 ] || fail "the input was mapped $n times by default"
			else
				[ "$n" -gt 0 ] || fail "PROFCONV_INPUT_MAP=1: the input was not mapped"
			fi
			rm -f "$T/mapped.json"
		done
	fi
	;;
perf-y)
	# A real recording: converts, matches perf script sample by sample and
	# frame by frame, passes our validator, and converts byte-identically twice.
	name=$ARG
	event=""
	[ -n "${4:-}" ] && event="--event $4"
	# shellcheck disable=SC2086
	expect_rc 0 "$PC" -q --no-symbols $event "$FX/$name.data" -o "$T/a.json"
	# shellcheck disable=SC2086
	python3 "$FX/check_processed.py" "$T/a.json" "$FX/$name.data.script.txt.gz" $event ||
		fail "profile differs from perf script"
	expect_rc 0 "$PC" validate "$T/a.json"
	# shellcheck disable=SC2086
	expect_rc 0 "$PC" -q --no-symbols $event "$FX/$name.data" -o "$T/b.json"
	cmp "$T/a.json" "$T/b.json" || fail "output is not deterministic"
	;;
perf-n)
	# A broken input: exit 1, the documented first error line, no output file.
	name=$ARG
	(cd "$FX" && "$PC" "$name.data" -o "$T/out.json" 2>"$T/err")
	rc=$?
	[ "$rc" = 1 ] || fail "exit $rc, expected 1"
	got=$(grep -m1 '^profconv: error: ' "$T/err" | sed 's/^profconv: //')
	want=$(cat "$FX/$name.data.err")
	[ "$got" = "$want" ] || fail "error text differs:
  got:      $got
  expected: $want"
	[ ! -e "$T/out.json" ] || fail "an output file was left behind"
	for f in "$T"/*tmp-*; do
		[ -e "$f" ] && fail "a temporary file was left behind: $f"
	done
	;;
perf-i)
	# Recoverable damage: converts what is sound, prints the documented first
	# warning once and a summary with a count; --strict makes it fatal.
	name=$ARG
	(cd "$FX" && "$PC" "$name.data" -o "$T/out.json" 2>"$T/err")
	rc=$?
	[ "$rc" = 0 ] || fail "exit $rc, expected 0: $(cat "$T/err")"
	got=$(grep -m1 '^profconv: warning: ' "$T/err" | sed 's/^profconv: //')
	want=$(cat "$FX/$name.data.warn")
	[ "$got" = "$want" ] || fail "warning text differs:
  got:      $got
  expected: $want"
	[ "$(grep -c "^profconv: warning: $(echo "$want" | sed 's/^warning: //' | cut -c1-20)" "$T/err")" = 1 ] ||
		fail "the warning was printed more than once: $(cat "$T/err")"
	grep -q '^profconv: warning: 1 [a-z]' "$T/err" || fail "no warning summary with a count: $(cat "$T/err")"
	expect_rc 0 "$PC" validate "$T/out.json"
	(cd "$FX" && "$PC" --strict "$name.data" -o "$T/strict.json" 2>"$T/err2")
	rc=$?
	[ "$rc" = 1 ] || fail "--strict: exit $rc, expected 1"
	got=$(grep -m1 '^profconv: error: ' "$T/err2" | sed 's/^profconv: error: //')
	# the same text, less what only a conversion does
	[ "$got" = "$(echo "$want" | sed 's/^warning: //; s/: converting what is there$//')" ] ||
		fail "--strict error differs from the warning: $got"
	[ ! -e "$T/strict.json" ] || fail "--strict left an output file"
	;;
perf-names)
	# Threads perf saw no COMM for, as a system-wide recording has them
	# (tests/fixtures/perf/make_synth.py: y_synth_idle.data): pid 0 is
	# perf's "swapper", another ":TID" (perf_session__register_idle_thread(),
	# thread__new()).
	expect_rc 0 "$PC" -q --no-symbols "$FX/y_synth_idle.data" -o "$T/idle.json"
	python3 - "$T/idle.json" <<'PY' || fail "thread names without COMM"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(t["name"], t["processName"], t["pid"], t["tid"], t["samples"]["length"]) for t in d["threads"]]
assert got == [("swapper", "swapper", "0", 0, 3), (":200", ":200", "200", 200, 1)], got
PY
	;;
perf-stack-thread)
	# The perf reader interns stacks on a second thread (perf_stacks.c) from
	# the PROFCONV_PERF_STACK_THREAD-th callchain on (16384 by default; these
	# recordings are smaller): the output is byte for byte that of interning
	# on the reader's thread (off), with samples, off-CPU causes from SWITCH
	# records (y_switch) and from sched:sched_switch samples
	# (y_pipe_tracepoint, a pipe), chains unwound from stack copies
	# (y_dwarf), one-frame stacks (y_synth_tail), and the worker started at
	# once (0) or after a few chains (3); and y_fork_exec's hand-checked golden.
	for c in "y_switch.data" "y_switch.data --to gecko" \
		"y_pipe_tracepoint.data --event sched:sched_switch" \
		"y_dwarf.data.zst --symbol-dir $FX/src --symbol-dir $FX/dwarf-syms" \
		"y_synth_tail.data" "y_fork_exec.data" "y_multi_event.data --event task-clock"; do
		set -- $c
		in=$1
		shift
		PROFCONV_PERF_STACK_THREAD=off expect_rc 0 "$PC" -v --no-symbols "$@" "$FX/$in" \
			-o "$T/off.json" 2>"$T/off.err"
		grep -q "second thread" "$T/off.err" && fail "$c: a second thread although off"
		for n in 0 3; do
			PROFCONV_PERF_STACK_THREAD=$n expect_rc 0 "$PC" -v --no-symbols "$@" "$FX/$in" \
				-o "$T/on.json" 2>"$T/on.err"
			grep -q "interning stacks on a second thread from callchain $n on" "$T/on.err" ||
				fail "$c: no second thread at $n: $(cat "$T/on.err")"
			cmp "$T/off.json" "$T/on.json" || fail "$c: threaded from chain $n converts differently"
		done
		[ "$in" = y_switch.data ] && [ $# = 0 ] && cp "$T/on.json" "$T/switch.json"
		[ "$in" = y_pipe_tracepoint.data ] && cp "$T/on.json" "$T/sched.json"
	done
	# Both ways share the tickets: an off-CPU marker's cause is the stack of
	# the thread's last sample at its start (from SWITCH records), or of the
	# sched_switch sample that starts it (545 and 101 causes)
	for f in switch:545 sched:101; do
		python3 - "$T/${f%:*}.json" "${f#*:}" <<'PY' || fail "$f: off-CPU causes are not the samples' stacks"
import bisect, json, sys
from pc_testlib import stimes
d = json.load(open(sys.argv[1]))
n = bad = 0
for t in d["threads"]:
    s, m = t["samples"], t["markers"]
    st = stimes(s)
    for i, x in enumerate(m["data"]):
        if isinstance(x, dict) and "cause" in x:
            k = bisect.bisect_right(st, m["startTime"][i] + 1e-9) - 1
            n += 1
            bad += k < 0 or s["stack"][k] != x["cause"]["stack"]
assert (n, bad) == (int(sys.argv[2]), 0), (n, bad)
PY
	done
	PROFCONV_PERF_STACK_THREAD=0 expect_rc 0 "$PC" -q --no-symbols "$FX/y_fork_exec.data" -o "$T/fe.json"
	cmp "$T/fe.json" "$here/golden/y_fork_exec.json" || fail "threaded output differs from the golden"
	;;
perf-frame-table)
	# The perf reader makes its funcs and frames through its own frame table
	# (perf_frames.c) and adds them to the model without the model's lookups;
	# PROFCONV_PERF_FRAME_TABLE=off interns each through the model as before.
	# Byte for byte the same, processed and Gecko, without symbols (every
	# recording: leaf and caller addresses, user and kernel, unmapped ones,
	# remaps, pipes) and with them (the symbolicator's lookups then enter
	# the reader's rows in the model's indexes).
	for c in $(cd "$FX" && ls y_*.data i_*.data y_*.data.zst) "$here/../examples/workload.perf.data" \
		"y_pie.data --no-host-symbols --symbol-dir $FX/src" \
		"y_dwarf.data.zst --no-host-symbols --symbol-dir $FX/src --symbol-dir $FX/dwarf-syms" \
		"$here/fixtures/symperf/y_sym.data --no-host-symbols --symbol-dir $here/fixtures/symperf"; do
		set -- $c
		in=$1
		shift
		case "$in" in /*) ;; *) in="$FX/$in" ;; esac
		case " $* " in *" --symbol-dir "*) sy="--no-symbol-cache" ;; *) sy=--no-symbols ;; esac
		for to in processed gecko; do
			PROFCONV_PERF_FRAME_TABLE=off expect_rc 0 "$PC" -q $sy --to $to "$@" "$in" -o "$T/off.json" 2>/dev/null
			expect_rc 0 "$PC" -q $sy --to $to "$@" "$in" -o "$T/on.json" 2>/dev/null
			cmp -s "$T/off.json" "$T/on.json" || fail "$c --to $to: the frame table converts differently"
		done
	done
	# y_synth_frames.data (make_synth.py), checked by hand: 15 frames, 10
	# funcs.  The unmapped 0x5000 as leaf and as caller is one frame, the
	# first byte of libsynth.so and of the kernel as leaf and as caller one
	# each; offset 0x1100 of synth and of libsynth.so and the unmapped
	# address 0x1100 are three funcs with one name string; the kernel
	# function read in user mode and the user one read in kernel mode are
	# frames of their own (their mode's category).
	expect_rc 0 "$PC" -q --no-symbols "$FX/y_synth_frames.data" -o "$T/frames.json"
	python3 - "$T/frames.json" <<'PY' || fail "y_synth_frames.data's frames and funcs"
import json, sys
sh = json.load(open(sys.argv[1]))["shared"]
fr, fu, sa = sh["frameTable"], sh["funcTable"], sh["stringArray"]
assert (fr["length"], fu["length"]) == (15, 10), (fr["length"], fu["length"])
names = [sa[n] for n in fu["name"]]
assert sorted(names) == sorted(["0x5000", "0x1100", "0x1305", "0x5010", "0x0", "0x1100", "0x0",
                                "0x100", "0x1205", "0x1100"]), names
assert sa.count("0x1100") == 1 and sa.count("0x0") == 1, sa
rows = list(zip(fr["address"], fr["func"], fr["category"]))
assert len(set(rows)) == 15, rows
assert sum(1 for a, f, c in rows if a == -1) == 3, rows  # 0x5000, 0x5010, 0x1100 unmapped
assert sum(1 for a, f, c in rows if a == 0) == 2, rows   # libsynth.so's and the kernel's first byte
PY
	;;
perf-chain-tail)
	# Chains of one thread that end with the same entries but must not share
	# their frames (tests/fixtures/perf/make_synth.py: y_synth_tail.data):
	# the first of two user addresses as the leaf (no return-address nudge),
	# then as a caller again, then both read in kernel mode.  The perf
	# reader takes the frames of a shared chain tail from the previous chain
	# only when mode and leaf agree.
	expect_rc 0 "$PC" -q --no-symbols "$FX/y_synth_tail.data" -o "$T/tail.json"
	python3 - "$T/tail.json" <<'PY' || fail "frames of a chain's shared tail"
import json, sys
d = json.load(open(sys.argv[1]))
sh = d["shared"]
st, ft = sh["stackTable"], sh["frameTable"]
cats = [c["name"] for c in d["meta"]["categories"]]
prefix = [i - o if o else None for i, o in enumerate(st["prefixOffset"])]
def chain(s):
    out = []
    while s is not None:
        f = st["frame"][s]
        out.append((hex(ft["address"][f]), cats[ft["category"][f]]))
        s = prefix[s]
    return out[::-1]
got = [chain(s) for s in d["threads"][0]["samples"]["stack"]]
user = [("0x1304", "User"), ("0x1204", "User"), ("0x1100", "User")]
want = [user,
        [("0x1304", "User"), ("0x1205", "User")],
        [("0x1304", "User"), ("0x1204", "User"), ("0x1150", "User")],
        [("0x1304", "Kernel"), ("0x1204", "Kernel"), ("0x100", "Kernel")]]
assert got == want, got
PY
	;;
perf-threads)
	# 300 threads in 150 processes, their samples interleaved round-robin,
	# of two events under 40 ids each (tests/fixtures/perf/make_synth.py:
	# y_synth_threads.data): more keys than the perf reader's 256-slot
	# caches of threads, processes and ids hold, so their slots collide.
	# Every thread keeps its own samples, names, process name and leaf
	# frames, and every sample goes to its own event.
	for ev in cpu-clock task-clock; do
		expect_rc 0 "$PC" -q --no-symbols --event $ev "$FX/y_synth_threads.data" -o "$T/thr-$ev.json"
	done
	python3 - "$T/thr-cpu-clock.json" "$T/thr-task-clock.json" <<'PY' || fail "interleaved threads and ids"
import json, sys
for path, nsamples in ((sys.argv[1], 2), (sys.argv[2], 1)):
    d = json.load(open(path))
    sh = d["shared"]
    st, ft = sh["stackTable"], sh["frameTable"]
    prefix = [i - o if o else None for i, o in enumerate(st["prefixOffset"])]
    def chain(s):
        out = []
        while s is not None:
            out.append(hex(ft["address"][st["frame"][s]]))
            s = prefix[s]
        return out[::-1]
    th = d["threads"]
    assert len(th) == 300, len(th)
    want = {}
    for n in range(300):
        pid = 1000 + 7 * (n // 2)
        tid = pid if n % 2 == 0 else pid + 3
        want[(pid, tid)] = hex(0x1100 + 0x10 * (n % 16))
    for t in th:
        key = (int(t["pid"]), int(t["tid"]))
        assert key in want, key
        assert t["name"] == "t%d" % key[1], (key, t["name"])
        assert t["processName"] == "t%d" % key[0], (key, t["processName"])
        got = [chain(s) for s in t["samples"]["stack"]]
        assert got == [["0x1304", want.pop(key)]] * nsamples, (path, key, got)
    assert not want, want
PY
	;;
perf-remap)
	# One chain in two processes that map different binaries at its
	# addresses, then in the first again after it maps a third binary there
	# (tests/fixtures/perf/make_synth.py: y_synth_remap.data): each sample's
	# frames are of the binary its process had mapped then, however the
	# reader's caches of addresses and chains hold them.
	expect_rc 0 "$PC" -q --no-symbols "$FX/y_synth_remap.data" -o "$T/remap.json"
	python3 - "$T/remap.json" <<'PY' || fail "frames of a remapped address"
import json, sys
d = json.load(open(sys.argv[1]))
sh = d["shared"]
st, ft, fn, res = sh["stackTable"], sh["frameTable"], sh["funcTable"], sh["resourceTable"]
po = st["prefixOffset"]
got = {}
for t in d["threads"]:
    out = []
    for s in t["samples"]["stack"]:
        c = []
        while s is not None:
            f = st["frame"][s]
            lib = d["libs"][res["lib"][fn["resource"][ft["func"][f]]]]["name"]
            c.append((hex(ft["address"][f]), lib))
            s = None if po[s] == 0 else s - po[s]
        out.append(c[::-1])
    got[t["pid"]] = out
def chain(lib):
    return [("0x1304", lib), ("0x1100", lib)]
want = {"400": [chain("synth-a"), chain("synth-a"), chain("synth-c")], "401": [chain("synth-b")]}
assert got == want, got
PY
	;;
synth-endian)
	# The big-endian synthetic file converts to exactly the bytes of its
	# little-endian twin (tests/fixtures/perf/make_synth.py).
	expect_rc 0 "$PC" -q "$FX/y_synth_le.data" -o "$T/le.json"
	expect_rc 0 "$PC" -q "$FX/y_synth_be.data" -o "$T/be.json"
	cmp "$T/le.json" "$T/be.json" || fail "big-endian input converts differently"
	expect_rc 0 "$PC" validate "$T/be.json"
	expect_rc 0 "$PC" -q --event task-clock "$FX/y_synth_be.data" -o "$T/task.json"
	python3 - "$T/task.json" <<'PY' || fail "--event task-clock on the big-endian file"
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["samples"]["length"] for t in d["threads"]] == [1, 0], d["threads"]
assert d["meta"]["interval"] == 0.5, d["meta"]["interval"]
PY
	;;
golden)
	# Byte-exact output, read by hand once.  PC_UPDATE_GOLDEN=1 rewrites it.
	# Unsymbolicated: symbols depend on the binaries of the machine.
	name=$ARG
	gold="$here/golden/$name.json"
	expect_rc 0 "$PC" -q --no-symbols "$FX/$name.data" -o "$T/out.json"
	if [ "${PC_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$T/out.json" "$gold"
		echo "updated $gold"
	fi
	cmp "$T/out.json" "$gold" || fail "output differs from $gold (diff it; PC_UPDATE_GOLDEN=1 rewrites)"
	;;
compressed)
	# gzip, xz, bzip2 and zstd inputs and a tar holding one file, detected by
	# content (the names say nothing), give the same bytes as the plain file.
	expect_rc 0 "$PC" -q "$FX/y_fp.data" -o "$T/plain.json"
	gzip -c "$FX/y_fp.data" >"$T/in1"
	xz -c "$FX/y_fp.data" >"$T/in2"
	bzip2 -c "$FX/y_fp.data" >"$T/in3"
	zstd -q -c "$FX/y_fp.data" >"$T/in4"
	(cd "$FX" && tar cf "$T/in5" y_fp.data)
	(cd "$FX" && tar czf "$T/in6" y_fp.data)
	for i in 1 2 3 4 5 6; do
		expect_rc 0 "$PC" -q "$T/in$i" -o "$T/c$i.json"
		# the input name differs, nothing else may
		cmp "$T/plain.json" "$T/c$i.json" || fail "compressed input $i converts differently"
	done
	;;
stdin)
	# A pipe-mode recording streamed through stdin, and a file-mode one
	# (spooled to a temporary file), convert like the files do.
	expect_rc 0 "$PC" -q "$FX/y_pipe.data" -o "$T/a.json"
	cat "$FX/y_pipe.data" | "$PC" -q - -o "$T/b.json" || fail "pipe-mode stdin failed"
	cmp "$T/a.json" "$T/b.json" || fail "stdin pipe-mode output differs"
	expect_rc 0 "$PC" -q "$FX/y_fp.data" -o "$T/c.json"
	cat "$FX/y_fp.data" | "$PC" -q - -o "$T/d.json" || fail "file-mode stdin failed"
	cmp "$T/c.json" "$T/d.json" || fail "stdin file-mode output differs"
	"$PC" -q "$FX/y_fp.data" -o - >"$T/e.json" || fail "-o - failed"
	cmp "$T/c.json" "$T/e.json" || fail "-o - output differs"
	;;
keep-output)
	# A failed conversion leaves an existing output untouched, and a write
	# error (a full disk) is reported with exit 1.
	echo "precious" >"$T/out.json"
	expect_rc 1 "$PC" "$FX/n_zero_size_record.data" -o "$T/out.json" 2>/dev/null
	[ "$(cat "$T/out.json")" = precious ] || fail "existing output was replaced"
	if [ -w /dev/full ]; then
		expect_rc 1 "$PC" -q "$FX/y_fp.data" -o - >/dev/full 2>"$T/err"
		grep -q 'error: .*write failed' "$T/err" || fail "no write error reported: $(cat "$T/err")"
	fi
	;;
usage)
	expect_rc 2 "$PC" 2>/dev/null
	expect_rc 2 "$PC" --weight bogus "$FX/y_fp.data" -o "$T/x.json" 2>"$T/err"
	grep -q "takes 'samples' or 'period'" "$T/err" || fail "bad --weight message: $(cat "$T/err")"
	expect_rc 2 "$PC" --no-such-option 2>/dev/null
	expect_rc 0 "$PC" --help >/dev/null
	"$PC" --version | grep -q 'processed format 69 by default, up to 70; Gecko format 36' || fail "--version"
	"$PC" --help | grep -q '^perf input options:' || fail "--help lacks the perf reader's options"
	"$PC" --help | grep -q -- '--processed-version N' || fail "--help lacks the processed writer's options"
	expect_rc 1 "$PC" "$T/missing.data" -o "$T/x.json" 2>"$T/err"
	grep -q "missing.data: cannot open: No such file" "$T/err" || fail "missing file message: $(cat "$T/err")"
	expect_rc 1 "$PC" --event nope "$FX/y_multi_event.data" -o "$T/x.json" 2>"$T/err"
	grep -q "no event named 'nope' (the file has: cpu-clock, task-clock)" "$T/err" ||
		fail "bad --event message: $(cat "$T/err")"
	;;
weight)
	# --weight period: every sample weighs its period (cpu-clock: ns).
	expect_rc 0 "$PC" -q --weight period "$FX/y_fp.data" -o "$T/w.json"
	python3 - "$T/w.json" <<'PY' || fail "period weights"
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for t in d["threads"]:
    s = t["samples"]
    assert s["weightType"] == "samples"
    assert s["weight"] is not None and len(s["weight"]) == s["length"], "no weights"
    assert all(w > 100000 for w in s["weight"]), "weights are not cpu-clock periods in ns"
    n += s["length"]
assert n == 601, n
PY
	;;
info)
	expect_rc 0 "$PC" info "$FX/y_multi_event.data" >"$T/info"
	for want in "perf.data, file mode" "cpu-clock .* 497 samples .*(selected)" "task-clock .* 94 samples" \
		"threads: *4" "samples: *591" "lacks: .*wall-clock"; do
		grep -q "$want" "$T/info" || fail "info lacks '$want':
$(cat "$T/info")"
	done
	expect_rc 0 "$PC" info "$FX/y_pipe_zstd.data" >"$T/info2"
	grep -q "pipe mode.*zstd-compressed" "$T/info2" || fail "pipe/zstd not reported: $(cat "$T/info2")"
	grep -q "wall clock:  yes" "$T/info2" && fail "y_pipe_zstd has no clock data"
	expect_rc 0 "$PC" info "$FX/y_clock.data" >"$T/info3"
	grep -q "wall clock:  yes" "$T/info3" || fail "y_clock clock data not reported"
	;;
clock)
	# -k CLOCK_MONOTONIC recordings carry CLOCK_DATA: meta.startTime is the
	# wall-clock time of the first sample (the recording was made on 2026-11-22).
	expect_rc 0 "$PC" -q "$FX/y_clock.data" -o "$T/c.json"
	python3 - "$T/c.json" <<'PY' || fail "startTime"
import json, sys
m = json.load(open(sys.argv[1]))["meta"]
assert 1795305600000 <= m["startTime"] < 1795392000000, m["startTime"]
PY
	;;
symbols)
	# End to end: a real recording of a committed binary, symbolicated from
	# --symbol-dir, against perf script's names and llvm-symbolizer's inline
	# chains (tests/fixtures/symperf/README.md).
	SP="$here/fixtures/symperf"
	expect_rc 0 "$PC" -q --no-symbols "$SP/y_sym.data" -o "$T/nosym.json"
	expect_rc 0 "$PC" -q --symbol-dir "$SP" "$SP/y_sym.data" -o "$T/sym.json"
	python3 "$SP/check_symbols.py" "$T/sym.json" "$T/nosym.json" "$SP/y_sym.data.script.txt.gz" \
		"$SP/prog.symbolizer.txt" || fail "symbols differ from the references"
	expect_rc 0 "$PC" validate "$T/sym.json"
	python3 "$FX/check_processed.py" "$T/sym.json" "$SP/y_sym.data.script.txt.gz" ||
		fail "symbolicated profile no longer matches perf script's stacks"
	expect_rc 0 "$PC" -q --symbol-dir "$SP" "$SP/y_sym.data" -o "$T/sym2.json"
	cmp "$T/sym.json" "$T/sym2.json" || fail "symbolicated output is not deterministic"
	# a stripped binary: its debug file found by build id in a cache layout,
	# and by its .gnu_debuglink (in .debug/ beside it); the same symbols
	mkdir -p "$T/bid/.build-id/31" "$T/dl/.debug"
	cp "$SP/prog-dbg.debug" "$T/bid/.build-id/31/7f0509f407ea0b2a6ab597c180e6330c80997a.debug"
	cp "$SP/prog.stripped" "$T/dl/prog"
	cp "$SP/prog-dbg.debug" "$T/dl/.debug/prog-dbg.debug"
	for d in bid dl; do
		expect_rc 0 "$PC" -v --symbol-dir "$T/$d" "$SP/y_sym.data" -o "$T/$d.json" 2>"$T/$d.err"
		grep -q "symbols for prog: $T/$d/.*prog-dbg.debug\|symbols for prog: $T/$d/.build-id/" "$T/$d.err" ||
			fail "$d: debug file not used: $(grep prog "$T/$d.err")"
		python3 "$SP/check_symbols.py" "$T/$d.json" "$T/nosym.json" "$SP/y_sym.data.script.txt.gz" \
			"$SP/prog.symbolizer.txt" || fail "$d: symbols differ from the references"
	done
	# a binary whose build id differs is refused, and said so with -v
	mkdir "$T/wrong" && cp "$FX/../sym/inline" "$T/wrong/prog" 2>/dev/null || cp /bin/true "$T/wrong/prog"
	expect_rc 0 "$PC" -v --symbol-dir "$T/wrong" "$SP/y_sym.data" -o "$T/wrong.json" 2>"$T/err"
	grep -q "symbols for prog: .*$T/wrong/prog (build id .* does not match the recording's 317f0509" "$T/err" ||
		fail "build-id mismatch not reported: $(grep prog "$T/err")"
	# a perf archive (`perf archive`'s .build-id/xx/rest layout in a
	# tar.bz2): the member found by build id, its symbols the same; it is
	# extracted to a file unlinked at once, so nothing is left in TMPDIR
	mkdir -p "$T/ar/.build-id/31" "$T/artmp"
	cp "$SP/prog" "$T/ar/.build-id/31/7f0509f407ea0b2a6ab597c180e6330c80997a"
	python3 -c "import sys, tarfile
with tarfile.open(sys.argv[1], 'w:bz2') as t: t.add(sys.argv[2], arcname='.build-id')" \
		"$T/perf.data.tar.bz2" "$T/ar/.build-id" || fail "cannot make the archive"
	expect_rc 0 env TMPDIR="$T/artmp" "$PC" -v --no-host-symbols --symbol-dir "$T/perf.data.tar.bz2" \
		"$SP/y_sym.data" -o "$T/ar.json" 2>"$T/ar.err"
	grep -q "symbols for prog: $T/perf.data.tar.bz2:.build-id/31/7f0509f4" "$T/ar.err" ||
		fail "archive member not used: $(grep prog "$T/ar.err")"
	python3 "$SP/check_symbols.py" "$T/ar.json" "$T/nosym.json" "$SP/y_sym.data.script.txt.gz" \
		"$SP/prog.symbolizer.txt" || fail "archive: symbols differ from the references"
	[ -z "$(ls -A "$T/artmp")" ] || fail "archive: files left in TMPDIR: $(ls "$T/artmp")"
	;;
jitdump)
	# A real node 20 recording with its jit-PID.dump (trimmed to the code the
	# samples hit; tests/fixtures/jit/README.md): JIT frames named from the
	# dump found through --symbol-dir, optimized ones with file:line.
	JD="$here/fixtures/jit"
	expect_rc 0 "$PC" -q --no-symbols "$JD/y_node_jit.data" -o "$T/nosym.json"
	expect_rc 0 "$PC" -v --symbol-dir "$JD" "$JD/y_node_jit.data" -o "$T/jit.json" 2>"$T/notes"
	grep -q "jit-17827.dump" "$T/notes" || fail "jitdump not used: $(cat "$T/notes")"
	expect_rc 0 "$PC" validate "$T/jit.json"
	python3 - "$T/jit.json" "$T/nosym.json" <<'PY' || fail "JIT frames not named from the jitdump"
import json, sys
def js(path):
    d = json.load(open(path))
    sh = d["shared"]; s = sh["stringArray"]; ft = sh["funcTable"]; fr = sh["frameTable"]
    src = sh["sources"]; out = {}
    for i in range(fr["length"]):
        f = fr["func"][i]; n = s[ft["name"][f]]
        if n.startswith("JS:"):
            so = ft["source"][f]
            out.setdefault(n, set()).add((s[src["filename"][so]] if so is not None else None,
                                          fr["line"][i]))
    return out
j, n = js(sys.argv[1]), js(sys.argv[2])
assert not n, "JS names without symbols"
assert len(j) >= 60, len(j)
for k in ("JS:*fib /tmp/offcpu-rec/fib.js:1:13", "JS:^fib /tmp/offcpu-rec/fib.js:1:13",
          "JS:~fib /tmp/offcpu-rec/fib.js:1:13"):
    assert k in j, k
want = {"JS:^compileForInternalLoader node:internal/bootstrap/realm:383:27":
            ("node:internal/bootstrap/realm", 408),
        "JS:^requireBuiltin node:internal/bootstrap/realm:420:24":
            ("node:internal/bootstrap/realm", 429),
        "JS:^internalBinding node:internal/bootstrap/realm:184:45":
            ("node:internal/bootstrap/realm", 190)}
for k, v in want.items():
    assert v in j.get(k, ()), (k, j.get(k))
PY
	expect_rc 0 "$PC" -q --symbol-dir "$JD" "$JD/y_node_jit.data" -o "$T/jit2.json"
	cmp "$T/jit.json" "$T/jit2.json" || fail "jitdump output is not deterministic"
	# a damaged header (size 20): the dump is ignored with a warning, the
	# conversion goes on (issue 22 item 15: it failed before)
	mkdir "$T/badjd"
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[8:12] = (20).to_bytes(4, "little"); open(sys.argv[2], "wb").write(d)' \
		"$JD/jit-17827.dump" "$T/badjd/jit-17827.dump"
	expect_rc 0 "$PC" --symbol-dir "$T/badjd" "$JD/y_node_jit.data" -o "$T/badjd.json" 2>"$T/err"
	grep -q "jitdump header size 20 outside" "$T/err" || fail "damaged jitdump header: $(cat "$T/err")"
	expect_rc 0 "$PC" validate "$T/badjd.json"
	;;
symbolicate)
	# profconv symbolicate IN -o OUT: any profile (here processed JSON read
	# back, and a Firefox Gecko profile) symbolicated offline; a second run
	# changes nothing.  y_synth_le's /usr/bin/synth exists nowhere, so no
	# symbols are found: the output is the input, byte for byte
	# (meta.symbolicated stays false: it turns true only when symbols are
	# found; the check below allows either).
	expect_rc 0 "$PC" -q --no-symbols "$FX/y_synth_le.data" -o "$T/in.json"
	expect_rc 0 "$PC" -q symbolicate "$T/in.json" -o "$T/s1.json"
	expect_rc 0 "$PC" -q symbolicate "$T/s1.json" -o "$T/s2.json"
	cmp "$T/s1.json" "$T/s2.json" || fail "a second symbolicate changed the profile"
	python3 - "$T/in.json" "$T/s1.json" <<'PY' || fail "symbolicate without symbols changed more than meta.symbolicated"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a["meta"].pop("symbolicated"); b["meta"].pop("symbolicated")
assert a == b
PY
	# with symbols: the same bytes as symbolicating while converting
	SP="$here/fixtures/symperf"
	expect_rc 0 "$PC" -q --no-symbols "$SP/y_sym.data" -o "$T/ns.json"
	expect_rc 0 "$PC" -q --symbol-dir "$SP" "$SP/y_sym.data" -o "$T/direct.json"
	expect_rc 0 "$PC" -q symbolicate --symbol-dir "$SP" "$T/ns.json" -o "$T/later.json"
	cmp "$T/direct.json" "$T/later.json" || fail "symbolicate of the processed profile differs from symbolicating the recording"
	expect_rc 0 "$PC" -q symbolicate --symbol-dir "$SP" "$T/later.json" -o "$T/later2.json"
	cmp "$T/later.json" "$T/later2.json" || fail "a second symbolicate changed the symbolicated profile"
	# a Gecko profile Firefox wrote (tests/fixtures/gecko): processed JSON out
	expect_rc 0 "$PC" -q symbolicate "$here/fixtures/gecko/esr153-cut.json" -o "$T/g1.json"
	expect_rc 0 "$PC" validate "$T/g1.json" >/dev/null 2>&1
	expect_rc 0 "$PC" -q symbolicate "$T/g1.json" -o "$T/g2.json"
	cmp "$T/g1.json" "$T/g2.json" || fail "a second symbolicate changed the converted Gecko profile"
	expect_rc 2 "$PC" symbolicate 2>/dev/null
	expect_rc 2 "$PC" --no-symbols symbolicate "$T/in.json" -o "$T/x.json" 2>/dev/null
	;;
gecko-write-thread)
	# --to gecko formats the thread objects on the writer and on its helper
	# thread (write_gecko.c; PROFCONV_GECKO_WRITE_THREAD=1: a helper for
	# every run of threads, taking the first thread before the writer comes
	# to it; =0: none): the same bytes and the same messages either way.
	# mt.json: three processes, 86 threads, one with 4500 markers (written
	# by the writer with its markers on the marker helper, between two runs
	# of thread jobs), invalid UTF-8 in two threads' strings (the U+FFFD
	# count), weighted samples (the writer's warning, once per thread).
	python3 - "$T/mt.json" <<'PY' || fail "generating mt.json"
import json, sys
ev = []
def th(pid, tid, name, n, bad=False):
    ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
    for i in range(n):
        ev.append({"ph": "X", "name": "Task%d" % (i % 7), "cat": "c", "pid": pid, "tid": tid,
                   "ts": 1000 + i * 10, "dur": 5, "args": {"i": i}})
    if bad:
        ev.append({"ph": "I", "name": "BAD", "cat": "c", "pid": pid, "tid": tid, "ts": 999, "s": "t"})
for pid in (1, 2, 3):
    ev.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "P%d" % pid}})
for t in range(1, 4):
    th(1, t, "A%d" % t, 40 + t, bad=(t == 2))
th(1, 4, "Big", 4500)
for t in range(5, 7):
    th(1, t, "B%d" % t, 30 + t)
for pid in (2, 3):
    for t in range(10, 50):
        th(pid, pid * 100 + t, "C%d" % t, 5 + t % 9, bad=(t == 20))
s = json.dumps({"traceEvents": ev}).encode().replace(b'"BAD"', b'"B\xffD"')
open(sys.argv[1], "wb").write(s)
PY
	for in in "$T/mt.json" "$FX/y_synth_threads.data" "$FX/y_fork_exec.data" "$FX/y_switch.data" \
		"$here/fixtures/gecko/esr153-extras.json" "$here/fixtures/chrome/chromium156-cut.json.zst"; do
		for v in 0 1; do
			PROFCONV_GECKO_WRITE_THREAD=$v "$PC" --no-symbols --to gecko "$in" -o "$T/w.json" \
				2>"$T/e$v" || fail "$in, PROFCONV_GECKO_WRITE_THREAD=$v: $(cat "$T/e$v")"
			mv "$T/w.json" "$T/w$v.json"
		done
		cmp -s "$T/w0.json" "$T/w1.json" || fail "$in: the thread helper changed the output"
		cmp -s "$T/e0" "$T/e1" || fail "$in: the thread helper changed the messages: $(cat "$T/e0") / $(cat "$T/e1")"
	done
	PROFCONV_GECKO_WRITE_THREAD=1 "$PC" --no-symbols --to gecko "$T/mt.json" -o "$T/w.json" 2>"$T/e" ||
		fail "mt.json: $(cat "$T/e")"
	grep -q "3 strings had invalid UTF-8" "$T/e" || fail "mt.json: U+FFFD count: $(cat "$T/e")"
	grep -q "86 threads whose sample weights were dropped" "$T/e" || fail "mt.json: weights: $(cat "$T/e")"
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
