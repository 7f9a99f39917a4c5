#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare a `profconv gecko-dump PID` capture (converted to Gecko JSON with
`profconv -t gecko`) with Firefox's own shutdown profile of the same run
(MOZ_PROFILER_SHUTDOWN), per thread of the dumped process.

usage: firefox_live_compare.py SHUTDOWN.json DUMP.json LABEL [BASE_NS]
  BASE_NS  the time base the capture used (its -v note), compared with the
           shutdown profile's startTimeAsClockMonotonicNanosecondsSinceBoot

Prints one row per thread of the dumped process:
  samples  = shutdown samples up to the dump's end (its last sample time) that
             the dump holds at the same time (to 1 us), and their share;
  markers  = dump markers matched by name, phase and category to a shutdown
             marker of that thread, and the largest |offset| of their start
             (or end) time from the matched one, in ms;
  labels   = processType / processName in the dump and in the shutdown profile;
  register = registerTime in the dump minus the shutdown profile's, ms
             (informative: the dump's is the thread's start from /proc).
Exit status 1 when a thread misses the goals (>= 99.5 % samples, every marker
within 5 ms, labels equal)."""
import json
import sys


def threads_by_pid(prof):
    """{pid: (process meta, [threads])} over the profile and its subprocesses."""
    out = {}

    def walk(p):
        for t in p.get("threads", []):
            out.setdefault(str(t.get("pid")), (p["meta"], []))[1].append(t)
        for sub in p.get("processes", []):
            walk(sub)
    walk(prof)
    return out


def strings(t):
    return t.get("stringTable") or []


def col(t, table, key):
    return t[table]["schema"][key]


def samples(t):
    i = col(t, "samples", "time")
    return [round(r[i], 3) for r in t["samples"]["data"]]


def markers(t, cats):
    s = col(t, "markers", "name"), col(t, "markers", "startTime"), col(t, "markers", "endTime")
    ph, ca = col(t, "markers", "phase"), col(t, "markers", "category")
    st = strings(t)
    out = []
    for r in t["markers"]["data"]:
        name = st[r[s[0]]] if isinstance(r[s[0]], int) and r[s[0]] < len(st) else r[s[0]]
        cat = cats[r[ca]]["name"] if isinstance(r[ca], int) and r[ca] < len(cats) else r[ca]
        out.append((name, r[ph], cat, r[s[1]], r[s[2]]))
    return out


def when(m):
    """The time a marker's phase gives: an end marker's end, else its start."""
    t = m[4] if m[1] == 3 else m[3]
    return t if t is not None else 0.0


def main():
    shut = json.load(open(sys.argv[1]))
    dump = json.load(open(sys.argv[2]))
    label = sys.argv[3]
    base = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None
    sp, dp = threads_by_pid(shut), threads_by_pid(dump)
    ok = True
    for pid, (dmeta, dthreads) in dp.items():
        if pid not in sp:
            print(f"{label}: pid {pid}: not in the shutdown profile")
            ok = False
            continue
        smeta, sthreads = sp[pid]
        stid = {str(t["tid"]): t for t in sthreads}
        dend = max((max(samples(t), default=0) for t in dthreads), default=0)
        dcats, scats = dmeta.get("categories", []), smeta.get("categories", [])
        sbase = smeta.get("startTimeAsClockMonotonicNanosecondsSinceBoot")
        diff = f" ({(base - sbase) / 1e6:+.3f} ms)" if base is not None and sbase else ""
        print(f"{label}: pid {pid}: dump's end {dend:.3f} ms; time base dump {base} shutdown "
              f"{sbase}{diff}; startTime dump {dmeta.get('startTime')} shutdown "
              f"{smeta.get('startTime')}; interval dump {dmeta.get('interval')} shutdown "
              f"{smeta.get('interval')}")
        print(f"  {'thread':<16} {'tid':>7} {'samples':>15} {'share':>8} {'markers':>13} "
              f"{'max|dt| ms':>10} {'median dt':>9} {'register':>9}  labels (dump | shutdown)")
        for t in dthreads:
            s = stid.get(str(t["tid"]))
            if s is None:
                continue  # a thread the shutdown profile's filter left out
            dset = set(samples(t))
            want = [x for x in samples(s) if x <= dend]
            have = sum(1 for x in want if x in dset)
            share = 100.0 * have / len(want) if want else 100.0
            # markers: each dump marker to the shutdown marker of its kind nearest in time
            bykind = {}
            for m in markers(s, scats):
                bykind.setdefault(m[:3], []).append(m)
            matched, offs = 0, []
            dms = markers(t, dcats)
            for m in dms:
                cands = bykind.get(m[:3])
                if not cands:
                    continue
                best = min(cands, key=lambda c: abs(when(c) - when(m)))
                matched += 1
                offs.append(when(m) - when(best))
                if m[1] == 1 and m[4] is not None and best[4] is not None:
                    offs.append(m[4] - best[4])  # an interval's end too
            offs.sort()
            mx = max((abs(o) for o in offs), default=0.0)
            med = offs[len(offs) // 2] if offs else 0.0
            lab_d = f"{t.get('processType')}/{t.get('processName')}"
            lab_s = f"{s.get('processType')}/{s.get('processName')}"
            reg = (t.get("registerTime") or 0) - (s.get("registerTime") or 0)
            good = share >= 99.5 and mx <= 5.0 and lab_d == lab_s
            ok &= good
            print(f"  {t['name'][:16]:<16} {t['tid']:>7} {have:>7}/{len(want):<7} {share:7.2f}% "
                  f"{matched:>6}/{len(dms):<6} {mx:10.3f} {med:9.3f} {reg:+9.1f}  {lab_d} | {lab_s}"
                  f"{'' if good else '  <-- MISSES'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
