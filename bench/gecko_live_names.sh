#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# gecko_live_names.sh - by hand, not in the test suite (needs root, firefox-esr
# and about 2 minutes): what `profconv gecko-dump PID` names of a live
# Firefox ESR's frames, against Firefox's own shutdown profile of the same run
# (issue 25): JIT return addresses (JITF), vdso frames (SYMS), libxul.
#
#   sudo sh bench/gecko_live_names.sh [PROFCONV] [WORKDIR]
#
# Starts firefox-esr headless with the profiler (1 ms, js,stackwalk,cpu) on a
# page running fib() and domWork() for 90 s, dumps the page's content process
# and the parent 14 s in, converts both, waits for the shutdown profile, and
# prints one row per process: JIT return addresses left unnamed, JIT names in
# the dump / in the shutdown profile / in both, the vdso frames' names, and
# libxul frame addresses named of all.
set -eu
PC=${1:-build/profconv}
W=${2:-/tmp/profconv-bench-live-names}
PC=$(cd "$(dirname "$PC")" && pwd)/$(basename "$PC")
rm -rf "$W"
mkdir -p "$W/prof"
cat >"$W/page.html" <<'EOF'
<!doctype html><html><head><title>live names</title></head><body>
<div id="out"></div>
<script>
function fib(n){return n<2?n:fib(n-1)+fib(n-2);}
function domWork(k){const d=document.getElementById("out");for(let i=0;i<k;i++){const p=document.createElement("p");p.textContent="r"+i;d.appendChild(p);}while(d.firstChild)d.removeChild(d.firstChild);return k;}
const t0=performance.now(); let acc=0;
while(performance.now()-t0<90000){acc+=fib(16);acc+=domWork(50);}
document.getElementById("out").textContent="done "+acc;
</script></body></html>
EOF
MOZ_PROFILER_STARTUP=1 MOZ_PROFILER_STARTUP_INTERVAL=1 \
MOZ_PROFILER_STARTUP_FEATURES=js,stackwalk,cpu \
MOZ_PROFILER_STARTUP_FILTERS="GeckoMain,Compositor,DOM Worker" \
MOZ_PROFILER_SHUTDOWN="$W/shutdown.json" \
	timeout 300 firefox-esr --headless -no-remote -profile "$W/prof" \
	--screenshot "$W/shot.png" "file://$W/page.html" >"$W/firefox.log" 2>&1 &
tpid=$!
sleep 14
# the parent: timeout's child (pgrep -f would also see short-lived forks of it)
parent=$(pgrep -P "$tpid" | head -1)
# the page's content process: the busiest descendant (the fork server forks them)
content=$(ps -e -o pid=,ppid=,pcpu=,args= | awk -v root="$parent" '
	{ pp[$1] = $2; cpu[$1] = /-isForBrowser/ ? $3 : -1 }
	END { for (p in pp) { q = p; while (q in pp && q != root && q > 1) q = pp[q]
			      if (q == root && p != root && cpu[p] + 0 >= best) { best = cpu[p] + 0; pick = p } }
	      print pick }')
for p in "$content" "$parent"; do
	"$PC" gecko-dump "$p" -o "$W/$p.pgkb" -v 2>"$W/$p.dump.log" || cat "$W/$p.dump.log"
done
for p in "$content" "$parent"; do
	"$PC" "$W/$p.pgkb" -o "$W/$p.json" -v 2>"$W/$p.conv.log" || true
done
i=0
# Firefox writes the shutdown profile as it exits: wait for the exit
while kill -0 "$tpid" 2>/dev/null && [ $i -lt 280 ]; do sleep 1; i=$((i + 1)); done
printf 'process pid unnamed_jit_addrs jit_names_dump jit_names_shutdown both vdso_names libxul_named/addrs\n'
for p in "$content" "$parent"; do
	python3 - "$W" "$p" <<'EOF'
import json, re, struct, sys, collections
w, pid = sys.argv[1], sys.argv[2]
def uleb(d, o):
    v = s = 0
    while True:
        b = d[o]; o += 1; v |= (b & 0x7f) << s; s += 7
        if not b & 0x80: return v, o
d = open(f"{w}/{pid}.pgkb", "rb").read()
off, dump = 24, set()
while off < len(d):
    fc, ln = d[off:off + 4], struct.unpack_from("<Q", d, off + 8)[0]
    body = d[off + 16:off + 16 + ln]
    if fc == b"JITF":
        o = 0; nr, o = uleb(body, o)
        for _ in range(nr):
            o += 16; m, o = uleb(body, o)
            for _ in range(m):
                o += 8; k, o = uleb(body, o)
                for _ in range(k):
                    l, o = uleb(body, o); dump.add(body[o:o + l].decode()); o += l + 13
    off += 16 + ln
unnamed = 0
for line in open(f"{w}/{pid}.conv.log"):
    m = re.search(r"(\d+) JIT return addresses kept", line)
    if m: unnamed = int(m.group(1))
shut = set(); ptype = "?"
try:
    p = json.load(open(f"{w}/shutdown.json"))
    def walk(p):
        yield p
        for s in p.get("processes", []): yield from walk(s)
    for pr in walk(p):
        for t in pr["threads"]:
            if str(t["pid"]) != pid: continue
            ptype = pr["meta"].get("processType", ptype)
            st, ft = t["stringTable"], t["frameTable"]; sch = ft["schema"]
            for row in ft["data"]:
                i = sch["implementation"]
                if len(row) > i and row[i] is not None and st[row[i]] in ("ion", "baseline"):
                    shut.add(re.sub(r"\[\d+\]$", "", st[row[sch["location"]]]))
except (OSError, ValueError):
    pass
j = json.load(open(f"{w}/{pid}.json")); sh = j["shared"]; st = sh["stringArray"]
ft, fr, rt = sh["funcTable"], sh["frameTable"], sh["resourceTable"]
vdso, xul, xul_named = collections.Counter(), set(), set()
for i in range(fr["length"]):
    f = fr["func"][i]; r = ft["resource"][f]
    if r < 0: continue
    lib, name = st[rt["name"][r]], st[ft["name"][f]]
    if lib == "[vdso]": vdso[name] += 1
    if lib == "libxul.so":
        xul.add(fr["address"][i])
        if not name.startswith("0x"): xul_named.add(fr["address"][i])
print(ptype, pid, unnamed, len(dump), len(shut), len(dump & shut),
      ",".join(sorted(vdso)) or "-", f"{len(xul_named)}/{len(xul)}")
EOF
done
