#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""gen_chrome_trace.py - a deterministic Chrome trace of a given size, shaped
like a real one, for bench_chrome.sh (the real 264 MiB trace the issue was
measured on is not ours to ship).

usage: gen_chrome_trace.py [--unique-args] SIZE_MIB OUT.json [SEED]

Shape, from the Chromium 156 fixture (../shared/fixtures/chrome,
chromium156-small.json.zst: 62,125 events, 217 bytes each on average) and
../shared/docs/chrome-trace.md: the object form with `traceEvents` and
`metadata`; per process a process_name and per thread a thread_name `M`
event; by count about 59 % `X` (nested up to 6 deep, 89 % with `tdur` and
`tts`, small `args`), 21 % `I`, 5 % each `s` and `f` flows (int ids, `bp:
"e"` on `f`), 4 % each `b` and `e` async pairs, a few `n`, `R`, `B`/`E` and
`C` counters, and V8 `Profile`/`ProfileChunk` samples on the renderers'
main threads (a chunk every ~100 ms with ~100 samples and new nodes). All
`ts` are integers, as Chrome writes them. Python's standard library only;
the same arguments give the same bytes.

args repeat as they do in the fixture, where 56 % of the events have empty
args and 10 % of the args objects are distinct (6,148 of 62,125): a frame
is named by one of its process's few frame tokens (the fixture has 4, 32
hex digits each) and slices carry a nodeId; resource URLs and counter
values are new each time.  An event's category follows from its name, as
in the fixture, where 506 of its 507 names always come with the same `cat`
(so 10 % of the events have a distinct cat and args, as in the fixture;
with a category drawn for every event it was 24 %).  --unique-args gives
the shape this script had before: a fresh random frame id in every args
object (about half the events' args distinct) and a random category for
every event, a worst case for anything that shares repeated values.
"""
import json
import random
import sys

NAMES = ["RunTask", "ThreadControllerImpl::RunTask", "Layout", "UpdateLayoutTree",
         "Paint", "CompositeLayers", "FunctionCall", "v8.callFunction", "ParseHTML",
         "EvaluateScript", "v8.compile", "MinorGC", "MajorGC", "ResourceSendRequest",
         "ScheduleStyleRecalculation", "HitTest", "PrePaint", "Commit", "BeginFrame",
         "ProxyMain::BeginMainFrame", "LocalFrameView::UpdateLifecyclePhases",
         "SimpleWatcher::OnHandleReady", "ChannelMojo::OnMessageReceived"]
CATS = ["toplevel", "devtools.timeline", "blink", "v8", "disabled-by-default-devtools.timeline",
        "loading", "cc", "ipc,toplevel", "benchmark", "renderer.scheduler"]
INSTANTS = ["ScheduleStyleRecalculation", "InvalidateLayout", "TracingStartedInBrowser",
            "UpdateCounters", "SetLayerTreeId", "ResourceChangePriority"]
JS = [("fib", "https://example.com/app.js"), ("render", "https://example.com/app.js"),
      ("parse", "https://example.com/lib.js"), ("(garbage collector)", ""),
      ("(program)", ""), ("sieve", "https://example.com/app.js"), ("onload", "https://example.com/")]


def main():
    argv = sys.argv[1:]
    unique = bool(argv) and argv[0] == "--unique-args"
    if unique:
        argv = argv[1:]
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    target = int(float(argv[0]) * 1024 * 1024)
    out = argv[1]
    rnd = random.Random(int(argv[2]) if len(argv) == 3 else 1)
    procs = []
    pid = 15000
    for kind, nthreads in (("Browser", 9), ("GPU Process", 5), ("Renderer", 8),
                           ("Renderer", 8), ("Renderer", 6), ("Utility", 3)):
        pid += rnd.randint(10, 90)
        tids = [pid] + [pid + rnd.randint(1, 400) + 400 * i for i in range(1, nthreads)]
        procs.append((pid, kind, tids))
    threads = [(p, t, k) for p, k, ts in procs for t in ts]
    frnd = random.Random(rnd.random()) if not unique else None  # (--unique-args: the old bytes)
    frames = {p: ["%032X" % frnd.getrandbits(128) for _ in range(frnd.randint(1, 4) if k == "Renderer" else 1)]
              for p, k, ts in procs} if not unique else {}

    # each name's one category (--unique-args: a category drawn per event)
    cat_of = {n: CATS[i % len(CATS)] for i, n in enumerate(NAMES + INSTANTS)}

    def cat_name(names):
        if unique:
            c = rnd.choice(CATS)
            return c, rnd.choice(names)
        n = rnd.choice(names)
        return cat_of[n], n

    def frame(p):
        return "0x%x" % rnd.randrange(1 << 40) if unique else rnd.choice(frames[p])
    with open(out, "w") as f:
        f.write('{"traceEvents":[\n')
        written = 20
        first = True

        def emit(ev):
            nonlocal written, first
            s = json.dumps(ev, separators=(",", ":"))
            f.write(s if first else ",\n" + s)
            first = False
            written += len(s) + 2

        main_name = {"Browser": "CrBrowserMain", "GPU Process": "CrGpuMain",
                     "Renderer": "CrRendererMain", "Utility": "CrUtilityMain"}
        for p, k, ts in procs:
            emit({"args": {"name": k}, "cat": "__metadata", "name": "process_name", "ph": "M",
                  "pid": p, "tid": p, "ts": 0})
            for i, t in enumerate(ts):
                emit({"args": {"name": main_name[k] if i == 0 else "ThreadPoolForegroundWorker"},
                      "cat": "__metadata", "name": "thread_name", "ph": "M", "pid": p, "tid": t,
                      "ts": 0})
        ts = 1706968000000
        flow_id = 0
        async_id = 0
        open_async = []
        profiles = {}
        node_next = {}
        for p, k, tt in procs:
            if k == "Renderer":
                emit({"args": {"data": {"startTime": ts}}, "cat": "disabled-by-default-v8.cpu_profiler",
                      "id": "0x%x" % p, "name": "Profile", "ph": "P", "pid": p, "tid": tt[0], "ts": ts})
                profiles[p] = tt[0]
                node_next[p] = 1
        last_chunk = ts
        while written < target:
            p, t, k = threads[rnd.randrange(len(threads))]
            ts += rnd.randint(1, 40)
            # a task: nested X slices
            depth = rnd.choice((1, 1, 1, 2, 2, 3, 4, 6))
            start = ts
            stack = []
            for d in range(depth):
                dur = rnd.randint(5, 3000) >> d
                args = {} if rnd.random() < 0.6 else \
                    {"data": {"frame": frame(p), ("nodes" if unique else "nodeId"): rnd.randint(1, 500)}}
                cat, name = cat_name(NAMES)
                if args and not unique:  # each name its own few nodes
                    data = args["data"]
                    data["nodeId"] = 1000 * NAMES.index(name) + data["nodeId"] % 15 + 1
                ev = {"args": args, "cat": cat, "dur": max(dur, 1), "name": name,
                      "ph": "X", "pid": p, "tid": t, "ts": start + d}
                if rnd.random() < 0.89:
                    ev["tdur"] = max(dur - 1, 0)
                    ev["tts"] = rnd.randint(1, 10 ** 8)
                emit(ev)
                stack.append(ev)
            if rnd.random() < 0.9:
                args = {"data": {"frame": frame(p)}}
                cat, name = cat_name(INSTANTS)
                emit({"args": args, "cat": cat,
                      "name": name, "ph": "I", "pid": p, "s": "t", "tid": t, "ts": start + 1})
            if rnd.random() < 0.22:
                flow_id += 1
                cat, name = cat_name(NAMES)
                emit({"args": {}, "cat": cat, "id": flow_id, "name": name, "ph": "s", "pid": p, "tid": t,
                      "ts": start})
                q, u, _ = threads[rnd.randrange(len(threads))]
                emit({"args": {}, "bp": "e", "cat": cat, "id": flow_id, "name": name, "ph": "f", "pid": q,
                      "tid": u, "ts": start + rnd.randint(1, 500)})
            if rnd.random() < 0.18:
                async_id += 1
                ev = {"args": {"data": {"url": "https://example.com/r/%d" % async_id}}, "cat": "loading",
                      "id2": {"local": "0x%x" % async_id}, "name": "ResourceLoad", "ph": "b", "pid": p,
                      "tid": t, "ts": start}
                emit(ev)
                open_async.append((p, t, async_id))
            if open_async and rnd.random() < 0.18:
                ap, at, aid = open_async.pop(0)
                emit({"args": {}, "cat": "loading", "id2": {"local": "0x%x" % aid}, "name": "ResourceLoad",
                      "ph": "e", "pid": ap, "tid": at, "ts": ts})
            if rnd.random() < 0.01:
                emit({"args": {"jsHeapSizeUsed": rnd.randint(10 ** 6, 10 ** 8), "nodes": rnd.randint(10, 9000)},
                      "cat": "disabled-by-default-devtools.timeline", "name": "UpdateCounters", "ph": "C",
                      "pid": p, "tid": t, "ts": ts})
            if rnd.random() < 0.003:
                emit({"args": {}, "cat": "blink.user_timing", "name": "mark-%d" % rnd.randint(0, 99),
                      "ph": "R", "pid": p, "tid": t, "ts": ts})
            if ts - last_chunk > 100000:
                # every ~100 ms: a ProfileChunk per renderer
                for rp, rt in profiles.items():
                    nodes = []
                    if node_next[rp] == 1:
                        nodes.append({"callFrame": {"codeType": "other", "functionName": "(root)",
                                                    "scriptId": 0}, "id": 1})
                        node_next[rp] = 2
                    for _ in range(rnd.randint(0, 6)):
                        nid = node_next[rp]
                        node_next[rp] += 1
                        fn, url = JS[rnd.randrange(len(JS))]
                        nodes.append({"callFrame": {"codeType": "JS", "functionName": fn, "scriptId": 7,
                                                    "url": url, "lineNumber": rnd.randint(0, 400),
                                                    "columnNumber": rnd.randint(0, 80)},
                                      "id": nid, "parent": rnd.randint(1, nid - 1)})
                    top = max(node_next[rp] - 1, 1)
                    n = rnd.randint(60, 120)
                    emit({"args": {"data": {"cpuProfile": {"nodes": nodes,
                                                           "samples": [rnd.randint(1, top) for _ in range(n)]},
                                            "timeDeltas": [rnd.randint(100, 1500) for _ in range(n)]}},
                          "cat": "disabled-by-default-v8.cpu_profiler", "id": "0x%x" % rp,
                          "name": "ProfileChunk", "ph": "P", "pid": rp, "tid": rt + 7, "ts": ts})
                last_chunk = ts
        f.write('\n],\n"metadata":{"command_line":"generated by bench/gen_chrome_trace.py",'
                '"product-version":"Chrome/156.0.8078.79","trace-config":""}}\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
