#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""End-to-end test of `profconv serve` (cli/serve.c), on 127.0.0.1 only.

Usage: serve_test.py PROFCONV FIXTURES_DIR PART

PART:
  serve     two inputs, each profile fetched twice (reload) and equal to the
            conversion's bytes, the index page, SIGINT: exit 0 and the
            temporary directory empty (also when SIGINT comes while still
            converting); --host without --allow-remote refused
  symbols   a --no-symbols profile's addresses through /symbolicate/v5 give
            the names, inline frames and lines of the conversion with symbols
  source    /source/v1 gives a fixture's source text; /etc/passwd and ../
            paths are 404
  asm       /asm/v1 for a function matches `objdump -d` (addresses, bytes)
  security  wrong Host, foreign Origin, preflight, oversized headers, an idle
            client (others still served), 200 concurrent requests
"""
import concurrent.futures
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PC, FX, PART = sys.argv[1], sys.argv[2], sys.argv[3]
SYMPERF = os.path.join(FX, "symperf")
Y_FP = os.path.join(FX, "perf", "y_fp.data")
Y_SYM = os.path.join(SYMPERF, "y_sym.data")
ORIGIN = "https://profiler.firefox.com"
# where prog was built: its DWARF names /work/main/tests/fixtures/symperf/prog.c
BUILT_AT = "/work/main/tests/fixtures/symperf"
SYMOPTS = ["--no-host-symbols", "--symbol-dir", SYMPERF]


def fail(msg):
    sys.exit("FAIL: " + msg)


class Server:
    def __init__(self, inputs, extra=(), origin=ORIGIN, env=None):
        self.tmp = tempfile.mkdtemp(prefix="pc-serve-test-")
        env = dict(os.environ, TMPDIR=self.tmp, **(env or {}))
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.p = subprocess.Popen(
            [PC, "serve", "--no-open", "--no-symbols"] + SYMOPTS
            + ["--source-map", BUILT_AT + "=" + SYMPERF] + list(extra) + inputs,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        self.urls = [self.p.stdout.readline().strip() for _ in inputs]
        if not all(u.startswith(origin + "/from-url/") for u in self.urls):
            self.p.kill()
            fail("no URLs printed: %r %s" % (self.urls, self.p.stderr.read()))
        self.profiles = []
        for u in self.urls:
            rest = u.split("/from-url/", 1)[1]
            prof, q = rest.split("/?symbolServer=", 1)
            self.profiles.append(urllib.parse.unquote(prof))
            self.symserver = urllib.parse.unquote(q)
        pu = urllib.parse.urlsplit(self.symserver)
        self.host, self.port = pu.hostname, pu.port
        self.token_path = pu.path  # /TOKEN

    def request(self, method, path, body=None, headers=None, host=None):
        c = http.client.HTTPConnection(self.host, self.port, timeout=20)
        h = {"Host": host or "%s:%d" % (self.host, self.port)}
        h.update(headers or {})
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in h.items():
            c.putheader(k, v)
        data = body.encode() if isinstance(body, str) else body
        if data is not None:
            c.putheader("Content-Length", str(len(data)))
        c.endheaders(data)
        r = c.getresponse()
        out = (r.status, dict(r.getheaders()), r.read())
        c.close()
        return out

    def api(self, name, query, status=200):
        st, hd, body = self.request("POST", self.token_path + "/" + name, json.dumps(query),
                                    {"Origin": ORIGIN, "Content-Type": "text/plain"})
        if st != status:
            fail("%s: status %d, wanted %d: %s" % (name, st, status, body[:300]))
        if hd.get("Access-Control-Allow-Origin") != ORIGIN:
            fail("%s: no CORS header: %r" % (name, hd))
        return json.loads(body)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        try:
            rc = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("serve did not stop on SIGINT")
        err = self.p.stderr.read()
        left = os.listdir(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)
        if rc != 0:
            fail("serve exited %d after SIGINT: %s" % (rc, err))
        if left:
            fail("temporary files left behind: %r" % left)
        return err


def convert(args, out):
    subprocess.run([PC, "-q"] + args + ["-o", out], check=True)
    with open(out, "rb") as f:
        return f.read()


def part_serve():
    tmp = tempfile.mkdtemp(prefix="pc-serve-want-")
    want = [convert(["--no-symbols"] + SYMOPTS + [Y_FP], os.path.join(tmp, "a.json")),
            convert(["--no-symbols"] + SYMOPTS + [Y_SYM], os.path.join(tmp, "b.json"))]
    shutil.rmtree(tmp)
    s = Server([Y_FP, Y_SYM])
    if len(set(s.profiles)) != 2:
        fail("the two profiles share a URL: %r" % s.profiles)
    for i, u in enumerate(s.profiles):
        path = urllib.parse.urlsplit(u).path
        for attempt in range(2):  # a reload fetches again
            st, hd, body = s.request("GET", path, headers={"Origin": ORIGIN})
            if st != 200 or body != want[i]:
                fail("profile %d fetch %d: status %d, %d bytes (wanted %d)"
                     % (i, attempt, st, len(body), len(want[i])))
            if hd.get("Access-Control-Allow-Origin") != ORIGIN:
                fail("no CORS header on the profile: %r" % hd)
            if hd.get("Content-Type") != "application/json":
                fail("Content-Type %r" % hd.get("Content-Type"))
    st, hd, body = s.request("GET", s.token_path + "/")
    text = body.decode()
    if st != 200 or not hd.get("Content-Type", "").startswith("text/html"):
        fail("index: %d %r" % (st, hd))
    for u in s.urls:
        if u.replace("&", "&amp;") not in text:
            fail("index lacks %s" % u)
    # without the token: nothing, and no listing
    for path in ["/", "/1/y_fp.data.json", s.token_path + "/3/x.json",
                 s.token_path + "x/", s.token_path + "/../" + s.token_path[1:] + "/"]:
        st, _, _ = s.request("GET", path)
        if st != 404:
            fail("GET %s: %d, wanted 404" % (path, st))
    s.stop()
    # memory does not grow with the profiles served: 2 and 50 profiles of the
    # demo recording, each fetched once (keeping the 50 models would add 6 MiB)
    workload = os.path.join(FX, "..", "..", "examples", "workload.perf.data")
    env = {"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "")
           + ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0"}
    rss = []
    for n in (2, 50):
        m = Server([workload] * n, env=env)
        for u in m.profiles:
            m.request("GET", urllib.parse.urlsplit(u).path)
        with open("/proc/%d/status" % m.p.pid) as f:
            rss.append(int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)))
        m.stop()
    if rss[1] - rss[0] > 3 * 1024:
        fail("resident memory: %d KiB with 2 profiles, %d KiB with 50" % tuple(rss))
    print("resident memory: %d KiB with 2 profiles, %d KiB with 50" % tuple(rss))
    # SIGINT while still converting: the files written so far are removed
    tmp = tempfile.mkdtemp(prefix="pc-serve-test-")
    p = subprocess.Popen([PC, "serve", "-q", "--no-open", "--no-symbols"] + [Y_FP] * 400,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, TMPDIR=tmp))
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30 and p.poll() is None:
        d = os.listdir(tmp)
        if d and len(os.listdir(os.path.join(tmp, d[0]))) >= 3:
            break
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=30)
    left = os.listdir(tmp)
    shutil.rmtree(tmp)
    if rc != -signal.SIGINT or left:
        fail("SIGINT while converting: status %d, left %r" % (rc, left))
    # a non-loopback --host needs --allow-remote
    r = subprocess.run([PC, "serve", "--no-open", "--host", "0.0.0.0", Y_FP],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 2 or "--allow-remote" not in r.stderr:
        fail("--host 0.0.0.0 without --allow-remote: %d %s" % (r.returncode, r.stderr))


def frames_by_address(p, libname):
    """lib-relative address -> [(name, file, line)] outer first, from a profile."""
    sh = p["shared"]
    strs = sh["stringArray"]
    lib = [i for i, l in enumerate(p["libs"]) if l["debugName"] == libname][0]
    res = sh["resourceTable"]
    ft, fu, src = sh["frameTable"], sh["funcTable"], sh["sources"]
    out = {}
    for i in range(ft["length"]):
        f = ft["func"][i]
        r = fu["resource"][f]
        if r is None or r < 0 or res["lib"][r] != lib:
            continue
        s = fu["source"][f]
        fname = strs[src["filename"][s]] if s is not None else None
        t = (strs[fu["name"][f]], fname, ft["line"][i])
        d = out.setdefault(ft["address"][i], {})
        if d.setdefault(ft["inlineDepth"][i], t) != t:
            fail("two frames at 0x%x depth %d: %r %r" % (ft["address"][i], ft["inlineDepth"][i],
                                                         d[ft["inlineDepth"][i]], t))
    return {a: [d[k] for k in sorted(d)] for a, d in out.items()}


def part_symbols():
    tmp = tempfile.mkdtemp(prefix="pc-serve-want-")
    sym = json.loads(convert(SYMOPTS + [Y_SYM], os.path.join(tmp, "s.json")))
    nosym = json.loads(convert(["--no-symbols", Y_SYM], os.path.join(tmp, "n.json")))
    shutil.rmtree(tmp)
    want = frames_by_address(sym, "prog")
    lib = [l for l in nosym["libs"] if l["debugName"] == "prog"][0]
    lib_i = nosym["libs"].index(lib)
    ft = nosym["shared"]["frameTable"]
    fu = nosym["shared"]["funcTable"]
    res = nosym["shared"]["resourceTable"]
    addrs = sorted({ft["address"][i] for i in range(ft["length"])
                    if fu["resource"][ft["func"][i]] is not None
                    and res["lib"][fu["resource"][ft["func"][i]]] == lib_i})
    if len(addrs) < 10 or set(addrs) != set(want):
        fail("addresses: %d unsymbolicated, %d symbolicated" % (len(addrs), len(want)))
    s = Server([Y_SYM])
    q = {"jobs": [{"memoryMap": [[lib["debugName"], lib["breakpadId"]], ["nolib", "0" * 33]],
                   "stacks": [[[0, a] for a in addrs] + [[1, 0x1234], [-1, 5]]]}]}
    r = s.api("symbolicate/v5", q)
    res0 = r["results"][0]
    key = "%s/%s" % (lib["debugName"], lib["breakpadId"])
    if res0["found_modules"] != {key: True, "nolib/" + "0" * 33: False}:
        fail("found_modules %r" % res0["found_modules"])
    stack = res0["stacks"][0]
    if len(stack) != len(addrs) + 2:
        fail("%d frames back for %d asked" % (len(stack), len(addrs) + 2))
    ninl = nosym_addrs = 0
    for a, fr in zip(addrs, stack):
        if fr["module_offset"] != hex(a) or fr["module"] != "prog":
            fail("frame %r for 0x%x" % (fr, a))
        if len(want[a]) == 1 and want[a][0][0].startswith("0x") and want[a][0][1] is None:
            # no symbol covers it (conversion left its address as the name)
            if "function" in fr:
                fail("0x%x: served %r, conversion found nothing" % (a, fr))
            nosym_addrs += 1
            continue
        if "function" not in fr:
            fail("0x%x not symbolicated: %r; conversion: %r" % (a, fr, want[a]))
        got = [(fr["function"], fr.get("file"), fr.get("line"))]
        got += [(i["function"], i.get("file"), i.get("line"))
                for i in reversed(fr.get("inlines", []))]
        ninl += len(fr.get("inlines", []))
        if got != want[a]:
            fail("0x%x: served %r, conversion %r" % (a, got, want[a]))
        if int(fr["function_offset"], 16) > a:
            fail("function_offset %r at 0x%x" % (fr["function_offset"], a))
    if ninl == 0:
        fail("no inline frames at all: the fixture has some")
    for fr in stack[-2:]:
        if "function" in fr:
            fail("a frame outside any known lib was named: %r" % fr)
    if nosym_addrs > 2:
        fail("%d addresses without symbols" % nosym_addrs)
    print("symbolicate/v5: %d addresses (%d without a symbol), %d inline frames, same as "
          "conversion" % (len(addrs), nosym_addrs, ninl))
    s.stop()


def prog_lib(s):
    st, _, body = s.request("GET", urllib.parse.urlsplit(s.profiles[0]).path)
    p = json.loads(body)
    return [l for l in p["libs"] if l["debugName"] == "prog"][0], p


def part_source():
    s = Server([Y_SYM])
    lib, _ = prog_lib(s)
    # an address in work(), whose debug info names prog.c
    q = {"jobs": [{"memoryMap": [[lib["debugName"], lib["breakpadId"]]],
                   "stacks": [[[0, 0x11c0]]]}]}
    fr = s.api("symbolicate/v5", q)["results"][0]["stacks"][0][0]
    f = fr.get("file")
    if not f or not f.endswith("/prog.c"):
        fail("no file at 0x11c0: %r" % fr)
    base = {"debugName": lib["debugName"], "debugId": lib["breakpadId"],
            "moduleOffset": "0x11c0"}
    r = s.api("source/v1", dict(base, file=f))
    with open(os.path.join(SYMPERF, "prog.c")) as fh:
        if r["source"] != fh.read() or r["file"] != f:
            fail("source/v1 did not give prog.c's text")
    bad_paths = ["/etc/passwd", f + "/../../../../../../etc/passwd",
                 os.path.dirname(f) + "/../../../../../etc/passwd", "../prog.c", "prog.c"]
    # the checkout's own copy, under a name the debug info does not give
    # (unless this checkout is where prog was built)
    if os.path.realpath(SYMPERF) != BUILT_AT:
        bad_paths.append(os.path.join(SYMPERF, "prog.c"))
    for bad in bad_paths:
        s.api("source/v1", dict(base, file=bad), status=404)
    # the right file at an address that names another lib or nothing
    s.api("source/v1", dict(base, file=f, debugName="nolib"), status=404)
    s.api("source/v1", dict(base, file=f, moduleOffset="0x0"), status=404)
    st, _, _ = s.request("GET", s.token_path + "/../../etc/passwd")
    if st != 404:
        fail("GET ../etc/passwd: %d" % st)
    print("source/v1: prog.c served (%d bytes); 8 other paths 404" % len(r["source"]))
    s.stop()


def objdump_function(binary, name):
    """[(file offset, bytes hex)] of one function, from objdump -d -F."""
    out = subprocess.run(["objdump", "-d", "-F", "-w", binary], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"^([0-9a-f]+) <%s> \(File Offset: 0x([0-9a-f]+)\):\n(.*?)(?:\n\n|\Z)"
                  % re.escape(name), out, re.S | re.M)
    if not m:
        fail("objdump has no %s" % name)
    svma0, off0 = int(m.group(1), 16), int(m.group(2), 16)
    insns = []
    for line in m.group(3).splitlines():
        lm = re.match(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)", line)
        if lm:
            insns.append((int(lm.group(1), 16) - svma0 + off0, lm.group(2).replace(" ", "")))
    return insns


def part_asm():
    s = Server([Y_SYM])
    lib, p = prog_lib(s)
    want = objdump_function(os.path.join(SYMPERF, "prog"), "fib")
    start = want[0][0]
    size = want[-1][0] + len(want[-1][1]) // 2 - start
    q = {"debugName": lib["debugName"], "debugId": lib["breakpadId"], "name": "prog",
         "codeId": lib["codeId"], "startAddress": hex(start), "size": hex(size)}
    r = s.api("asm/v1", q)
    got = [(int(r["startAddress"], 16) + i[0], i[2]["bytes"]) for i in r["instructions"]]
    if got != want:
        fail("asm/v1 fib: %r\nobjdump: %r" % (got[:8], want[:8]))
    if r["arch"] != "x86_64" or not all(isinstance(i[1], str) and i[1] for i in r["instructions"]):
        fail("asm/v1: %r" % r)
    # continueUntilFunctionEnd: from a size of 1 to the end of the symbol
    r2 = s.api("asm/v1", dict(q, size="0x1", continueUntilFunctionEnd=True))
    got2 = [(int(r2["startAddress"], 16) + i[0], i[2]["bytes"]) for i in r2["instructions"]]
    # the symbol's size (nm -S: 0x4a) ends before objdump's padding
    if got2 != [w for w in want if w[0] < start + 0x4a]:
        fail("continueUntilFunctionEnd: %r" % got2[-4:])
    s.api("asm/v1", dict(q, debugName="nolib"), status=404)
    print("asm/v1: fib, %d instructions, addresses and bytes as objdump -d" % len(want))
    s.stop()


def part_security():
    s = Server([Y_FP])
    path = urllib.parse.urlsplit(s.profiles[0]).path
    st, hd, body = s.request("GET", path)
    good = body
    if st != 200 or "Access-Control-Allow-Origin" in hd:
        fail("no Origin: %d %r" % (st, hd))
    for host in ["evil.example:%d" % s.port, "127.0.0.1:1", "127.0.0.1"]:
        st, hd, _ = s.request("GET", path, host=host, headers={"Origin": ORIGIN})
        if st != 403 or "Access-Control-Allow-Origin" in hd:
            fail("Host %s: %d %r" % (host, st, hd))
    st, hd, _ = s.request("GET", path, headers={"Origin": "https://evil.example"})
    if st != 403 or "Access-Control-Allow-Origin" in hd:
        fail("foreign Origin: %d %r" % (st, hd))
    st, hd, _ = s.request("POST", s.token_path + "/symbolicate/v5", '{"jobs": []}',
                          {"Origin": "http://localhost:4242"})
    if st != 403:
        fail("foreign Origin POST: %d" % st)
    st, hd, _ = s.request("OPTIONS", path, headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Private-Network": "true"})
    if (st != 204 or hd.get("Access-Control-Allow-Origin") != ORIGIN
            or hd.get("Access-Control-Allow-Private-Network") != "true"):
        fail("preflight: %d %r" % (st, hd))
    # oversized headers: refused, and the server goes on
    try:
        st, _, _ = s.request("GET", path, headers={"X-Big": "a" * 100000})
    except (ConnectionError, http.client.HTTPException):
        st = "closed"
    if st not in (413, 431, "closed"):
        fail("oversized header: %r" % st)
    try:
        st, _, _ = s.request("GET", path, headers={"X-H%d" % i: "v" * 40 for i in range(2000)})
    except (ConnectionError, http.client.HTTPException):
        st = "closed"
    if st not in (413, 431, "closed"):
        fail("2000 headers: %r" % st)
    # a body over 16 MiB: refused from its Content-Length, before it is sent
    k = socket.create_connection((s.host, s.port))
    k.sendall(("POST %s/symbolicate/v5 HTTP/1.1\r\nHost: %s:%d\r\nOrigin: %s\r\n"
               "Content-Length: %d\r\n\r\n" % (s.token_path, s.host, s.port, ORIGIN, 17 << 20)
               ).encode())
    k.settimeout(20)
    head = k.recv(4096).decode("latin-1")
    k.close()
    if not head.startswith("HTTP/1.1 413"):
        fail("17 MiB body: %r" % head[:100])
    # and a body that grows past 16 MiB without a length (chunked)
    k = socket.create_connection((s.host, s.port))
    k.sendall(("POST %s/symbolicate/v5 HTTP/1.1\r\nHost: %s:%d\r\nOrigin: %s\r\n"
               "Transfer-Encoding: chunked\r\n\r\n" % (s.token_path, s.host, s.port, ORIGIN)
               ).encode())
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b"x" * (1 << 20))
    try:
        for i in range(17):
            k.sendall(chunk)
        k.sendall(b"0\r\n\r\n")
        k.settimeout(20)
        head = k.recv(4096).decode("latin-1")
    except ConnectionError:
        head = "closed"
    k.close()
    if not head.startswith("HTTP/1.1 413"):
        fail("17 MiB chunked body: %r" % head[:100])
    # idle clients: connected, sending nothing or half a request
    idle = []
    for i in range(8):
        k = socket.create_connection((s.host, s.port))
        if i % 2:
            k.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: ")
        idle.append(k)
    t0 = time.monotonic()
    st, _, body = s.request("GET", path)
    if st != 200 or body != good or time.monotonic() - t0 > 5:
        fail("served %d in %.1f s with idle clients" % (st, time.monotonic() - t0))
    # 200 concurrent requests, all released at once
    barrier = threading.Barrier(200)

    def one(i):
        barrier.wait(timeout=60)
        if i % 2:
            return s.request("GET", path)[2] == good
        q = {"jobs": [{"memoryMap": [["x", "0"]], "stacks": [[[0, i]]]}]}
        return s.api("symbolicate/v5", q)["results"][0]["stacks"][0][0]["module_offset"] == hex(i)

    with concurrent.futures.ThreadPoolExecutor(200) as ex:
        results = list(ex.map(one, range(200)))
    if not all(results):
        fail("%d of 200 concurrent requests failed" % results.count(False))
    for k in idle:
        k.close()
    s.stop()
    # --origin: a self-hosted front-end is the one answered, and opened
    s = Server([Y_FP], ["--origin", "http://localhost:4242"], origin="http://localhost:4242")
    path = urllib.parse.urlsplit(s.profiles[0]).path
    st, hd, _ = s.request("GET", path, headers={"Origin": "http://localhost:4242"})
    if st != 200 or hd.get("Access-Control-Allow-Origin") != "http://localhost:4242":
        fail("--origin: %d %r" % (st, hd))
    st, hd, _ = s.request("GET", path, headers={"Origin": ORIGIN})
    if st != 403:
        fail("--origin: profiler.firefox.com answered: %d" % st)
    r = subprocess.run([PC, "serve", "--origin", "https://x.example/path/", Y_FP],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 2:
        fail("--origin with a path: %d" % r.returncode)
    print("security: Host, Origin, preflight, big headers and body, idle clients, "
          "200 concurrent requests in %.1f s" % (time.monotonic() - t0))
    s.stop()


{"serve": part_serve, "symbols": part_symbols, "source": part_source, "asm": part_asm,
 "security": part_security}[PART]()
print("ok", PART)
