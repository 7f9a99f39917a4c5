#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""gen_ctx_trace.py - a deterministic Chrome trace heavy in FrameBlamer
contexts, for timing context resolution and `profconv blame` (issue 22
item 12: a 12 MB trace of this kind took 52 s to convert and to blame).

usage: gen_ctx_trace.py SIZE_MIB OUT.json [SEED [NEW_FRAME_SHARE]]

Shape (the events of tests/fixtures/chrome/contexts, many times over): per
renderer process one PlatformThread object and a tree of RenderFrame
objects (`O` snapshots with a parent and, for some, a url; a snapshot
again now and then, as frames navigate; `D` when a frame goes away), and on
each renderer main thread a stream of tasks: a FrameBlameContext `(`, a
TaskQueueContext `(` for some, nested `X` slices (up to 4 deep), the
matching `)`s.  Each process also has a browser-side counterpart
(`sibling` link) so merged totals have groups.  V8 samples are left out
(bench_chrome.sh times those).  Python's standard library only; the same
arguments give the same bytes.  NEW_FRAME_SHARE (default 0.3) is the share
of tasks that first make a new frame: 1 gives the most objects and
snapshots for the size, the worst case for anything that searches them.
"""
import json
import random
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    size = int(float(sys.argv[1]) * 1024 * 1024)
    out = sys.argv[2]
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    share = float(sys.argv[4]) if len(sys.argv) > 4 else 0.3
    nproc = 8
    ev = []
    total = 0

    def emit(e):
        nonlocal total
        s = json.dumps(e, separators=(",", ":"))
        ev.append(s)
        total += len(s) + 2

    frames = {p: [] for p in range(nproc)}
    next_id = [1]
    ts = 1000

    def new_frame(pid, t):
        fid = "0x%x" % next_id[0]
        next_id[0] += 1
        par = frames[pid][rnd.randrange(len(frames[pid]))] if frames[pid] else None
        snap = {}
        if par:
            snap["parent"] = {"idRef": par, "scope": "RenderFrame"}
        else:
            snap["parent"] = {"idRef": "0x1", "scope": "PlatformThread"}
        if rnd.random() < 0.5:
            snap["url"] = "https://site%d.example/page%d" % (pid, next_id[0])
        if rnd.random() < 0.3:
            snap["sibling"] = {"idRef": fid, "scope": "RenderFrame", "pidRef": 1}
        emit({"ph": "O", "name": "RenderFrame", "cat": "blink", "pid": 10 + pid,
              "tid": 10 + pid, "ts": t, "scope": "RenderFrame", "id": fid,
              "args": {"snapshot": snap}})
        frames[pid].append(fid)
        return fid

    for p in range(nproc):
        emit({"ph": "M", "name": "process_name", "pid": 10 + p, "tid": 0, "ts": 0,
              "args": {"name": "Renderer"}})
        emit({"ph": "M", "name": "thread_name", "pid": 10 + p, "tid": 10 + p, "ts": 0,
              "args": {"name": "CrRendererMain"}})
        emit({"ph": "O", "name": "TopLevel", "cat": "blink", "pid": 10 + p, "tid": 10 + p,
              "ts": 0, "scope": "PlatformThread", "id": "0x1", "args": {"snapshot": {}}})
    while total < size:
        p = rnd.randrange(nproc)
        pid = 10 + p
        if not frames[p] or rnd.random() < share:
            new_frame(p, ts)
        elif rnd.random() < 0.05:
            fid = frames[p][rnd.randrange(len(frames[p]))]
            emit({"ph": "O", "name": "RenderFrame", "cat": "blink", "pid": pid, "tid": pid,
                  "ts": ts, "scope": "RenderFrame", "id": fid,
                  "args": {"snapshot": {"parent": {"idRef": "0x1", "scope": "PlatformThread"},
                                        "url": "https://nav.example/%d" % ts}}})
        fid = frames[p][rnd.randrange(len(frames[p]))]
        emit({"ph": "(", "name": "FrameBlameContext", "cat": "blink", "pid": pid, "tid": pid,
              "ts": ts, "scope": "RenderFrame", "id": fid})
        tq = "0x%x" % (0x70 + rnd.randrange(16)) if rnd.random() < 0.4 else None
        if tq:
            emit({"ph": "(", "name": "TaskQueueContext", "cat": "renderer.scheduler",
                  "pid": pid, "tid": pid, "ts": ts, "scope": "TaskQueue", "id": tq})
        depth = rnd.randrange(1, 5)
        dur = 400
        for d in range(depth):
            emit({"ph": "X", "name": "Task%d" % d, "cat": "toplevel", "pid": pid, "tid": pid,
                  "ts": ts + d * 10, "dur": dur - d * 20})
        if tq:
            emit({"ph": ")", "name": "TaskQueueContext", "cat": "renderer.scheduler",
                  "pid": pid, "tid": pid, "ts": ts + dur, "scope": "TaskQueue", "id": tq})
        emit({"ph": ")", "name": "FrameBlameContext", "cat": "blink", "pid": pid, "tid": pid,
              "ts": ts + dur, "scope": "RenderFrame", "id": fid})
        if rnd.random() < 0.01 and len(frames[p]) > 4:
            gone = frames[p].pop(rnd.randrange(1, len(frames[p])))
            emit({"ph": "D", "name": "RenderFrame", "cat": "blink", "pid": pid, "tid": pid,
                  "ts": ts + dur, "scope": "RenderFrame", "id": gone})
        ts += dur + 10
    with open(out, "w") as f:
        f.write("[\n")
        f.write(",\n".join(ev))
        f.write("\n]\n")


if __name__ == "__main__":
    main()
