#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# gecko_capture_test.sh PROFCONV TARGET - `profconv gecko-dump PID` on a
# stand-in process (gecko_capture_target.c) that holds the ESR 153 scrape's
# chunks in anonymous memory among decoys: the capture finds the 4 chunks
# and leaves the decoys out (three of them claim chunk 0's range with a
# later start time: such junk displaced the real chunk 0), the dump decodes to the same samples and
# markers per thread as the --from-scrape dump of the same chunks, the
# process runs on afterwards (and one found stopped is left stopped), and
# a process without chunks, one whose only chunk header holds noise (chance
# headers, as in python3 and node), a zombie, profconv's own pid and a pid
# that does not exist are clear errors.  Exit 77 (skipped) where this
# machine does not let a process read another's memory (after the checks
# that need no such right).
set -eu
bin=$1
target=$2
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures/gecko-buffer
tmp=$(mktemp -d)
tpid=
npid=
zparent=
cpid=
opid=
cleanup() {
	[ -z "$tpid" ] || kill -CONT "$tpid" 2>/dev/null || true
	for p in $tpid $npid $zparent ${cpid:-} ${opid:-}; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
state_of() { sed 's/.*) \(.\).*/\1/' "/proc/$1/stat"; }

# profconv's own pid is refused (SIGSTOP would stop it for good: it hung)
rc=0
timeout -k 5 20 sh -c 'exec "$0" gecko-dump $$ -o "$1"' "$bin" "$tmp/self.pgkb" 2>"$tmp/err" || rc=$?
[ $rc = 2 ] || fail "own pid: exit $rc: $(cat "$tmp/err")"
grep -q "is profconv itself" "$tmp/err" || fail "own pid error: $(cat "$tmp/err")"
[ ! -e "$tmp/self.pgkb" ] || fail "own pid: an output was written"
# a zombie is said to be one (it was blamed on permissions, even as root)
python3 -c 'import os, sys, time
p = os.fork()
if p == 0:
    os._exit(0)
open(sys.argv[1], "w").write(str(p))
time.sleep(30)' "$tmp/zpid" &
zparent=$!
i=0
while [ ! -s "$tmp/zpid" ] || [ "$(state_of "$(cat "$tmp/zpid")" 2>/dev/null)" != Z ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "no zombie to test with"
	sleep 0.05
done
zpid=$(cat "$tmp/zpid")
if "$bin" gecko-dump "$zpid" -o "$tmp/z.pgkb" 2>"$tmp/err"; then fail "a zombie gave a dump"; fi
grep -q "pid $zpid: is a zombie" "$tmp/err" || fail "zombie error: $(cat "$tmp/err")"
kill "$zparent" 2>/dev/null || true
zparent=

xz -dc "$fx/esr153-run2.chunks.xz" >"$tmp/run2.chunks"
"$target" "$tmp/run2.chunks" "$tmp/ready" &
tpid=$!
i=0
while [ ! -s "$tmp/ready" ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the stand-in did not start"
	sleep 0.05
done
[ "$(cat "$tmp/ready")" = 4 ] || fail "the stand-in placed $(cat "$tmp/ready") chunks"

# (--start-time-ms: meta.startTime is otherwise worked out from the clocks
# at each capture, which differ by microseconds; the stopped capture below
# must give the same bytes)
if ! "$bin" gecko-dump -v --start-time-ms 1795311669769 "$tpid" -o "$tmp/live.pgkb" 2>"$tmp/err"; then
	if grep -q -e "cannot read its memory" -e "needs root or CAP_SYS_PTRACE" "$tmp/err"; then
		echo "SKIP: this machine does not let profconv read another process's memory: $(cat "$tmp/err")"
		exit 77
	fi
	fail "gecko-dump PID: $(cat "$tmp/err")"
fi
cp "$tmp/err" "$tmp/live.err"
grep -q "pid $tpid: stopped for [0-9.]* ms; a run of 4 chunks (4210688 bytes; [0-9]* other chunk headers left out)" "$tmp/err" ||
	fail "capture note: $(cat "$tmp/err")"
# the headers claiming chunk 0's range with a later start time are not
# preferred to the real chunk 0 (that lost chunk 0): decoy 4 is rejected by
# its start time, decoy 5 by its first block, decoy 6 (sound, but a 4 KiB
# buffer's) is a copy of a range already taken
rej=$(sed -n "s/^.*pid $tpid: chunk headers rejected by their contents: \([0-9]*\) with a first block .*, [0-9]* with a block count .*, \([0-9]*\) with an impossible start or done time; \([0-9]*\) copies of a range already taken$/\1 \2 \3/p" "$tmp/err")
[ -n "$rej" ] || fail "no rejection note: $(cat "$tmp/err")"
set -- $rej
[ "$1" -ge 1 ] && [ "$2" -ge 1 ] && [ "$3" -ge 1 ] || fail "rejections: $(cat "$tmp/err")"
# no profiler time base in its memory: the /proc start, with a warning of how
# far off it may be (it was the first chunk's start, silently: marker times
# were off by up to 2 s); with --strict that is an error (checked on the
# one-chunk stand-in below)
grep -q "warning: pid $tpid: the profiler's time base (TimeStamp::ProcessCreation) was not found in its memory; using the start of the process from /proc/$tpid/stat, .* up to about 20 ms" "$tmp/live.err" ||
	fail "no time-base warning: $(cat "$tmp/live.err")"
# without the right (another user's process, not root): the error says what
# is needed and how to grant it (it said only "Permission denied")
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	mkdir "$tmp/nobody"
	chmod 711 "$tmp"
	chmod 777 "$tmp/nobody"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" gecko-dump "$tpid" -o "$tmp/nobody/x.pgkb" 2>"$tmp/err" || rc=$?
	chmod 700 "$tmp"
	if [ -x "$bin" ] && ! grep -q "Permission denied" "$tmp/err" && grep -q "cannot execute\|not found" "$tmp/err"; then
		echo "note: the non-root check is skipped: user 65534 cannot run $bin here"
	else
		[ $rc = 1 ] || fail "non-root: exit $rc: $(cat "$tmp/err")"
		grep -q "needs root or CAP_SYS_PTRACE" "$tmp/err" || fail "non-root error: $(cat "$tmp/err")"
		grep -q 'sudo setcap cap_sys_ptrace+ep \$(command -v profconv)' "$tmp/err" ||
			fail "non-root error, no way to grant: $(cat "$tmp/err")"
		grep -q "kernel.yama.ptrace_scope" "$tmp/err" || fail "non-root error, no ptrace_scope: $(cat "$tmp/err")"
	fi
else
	echo "note: the non-root check is skipped: not root, or no setpriv to drop to user 65534"
fi
# the stand-in was continued: sleeping in pause(), not stopped
state=$(sed 's/.*) \(.\).*/\1/' "/proc/$tpid/stat")
[ "$state" = S ] || fail "the process was left in state $state"

"$bin" gecko-dump --from-scrape "$fx/esr153-run2" -o "$tmp/scrape.pgkb" 2>/dev/null || fail "scrape dump"
"$bin" info "$tmp/live.pgkb" >"$tmp/live.info" 2>/dev/null || fail "info live"
"$bin" info "$tmp/scrape.pgkb" >"$tmp/scrape.info" 2>/dev/null || fail "info scrape"
grep -q '^buffer: 4158687 bytes, 52059 blocks$' "$tmp/live.info" || fail "blocks: $(cat "$tmp/live.info")"
grep -q '^samples: 10015, markers: 10725$' "$tmp/live.info" || fail "counts: $(cat "$tmp/live.info")"
# per thread: the same samples and markers (names differ: the stand-in's
# threads are not Firefox's)
for f in live scrape; do
	sed -n 's/^thread \([0-9]*\) .*: \([0-9]*\) samples, \([0-9]*\) markers$/\1 \2 \3/p' "$tmp/$f.info" >"$tmp/$f.threads"
done
[ -s "$tmp/live.threads" ] || fail "no thread lines: $(cat "$tmp/live.info")"
cmp -s "$tmp/live.threads" "$tmp/scrape.threads" ||
	fail "threads differ: $(cat "$tmp/live.threads") vs $(cat "$tmp/scrape.threads")"
"$bin" -q "$tmp/live.pgkb" -o "$tmp/live.json" 2>/dev/null || fail "convert"
"$bin" validate "$tmp/live.json" >/dev/null 2>&1 || fail "invalid output"

# the build ids of the mapped files, read from the process's memory (the
# ELF note of each file's first mapping): the stand-in's own binary's is
# the one in its file (libs had none: "no build id recorded")
grep -q "pid $tpid: build ids of [1-9][0-9]* mapped files read from its memory" "$tmp/live.err" ||
	fail "build id note: $(cat "$tmp/live.err")"
python3 - "$tmp/live.json" "$target" <<'PY' || fail "build ids"
import json, re, sys
data = open(sys.argv[2], "rb").read()
m = re.search(rb"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00(.{20})", data, re.S)
assert m, "the stand-in has no GNU build id note"
want = m.group(1).hex()
libs = {l["name"]: l for l in json.load(open(sys.argv[1]))["libs"]}
lib = libs.get(sys.argv[2].rsplit("/", 1)[1])
assert lib, sorted(libs)
assert lib["codeId"] == want, (lib["codeId"], want)
b = m.group(1)
guid = b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:16]
assert lib["breakpadId"] == guid.hex().upper() + "0", (lib["breakpadId"], guid.hex())
PY

# a process found stopped (job control, a debugger) is left stopped: it
# used to be continued (T -> S)
kill -STOP "$tpid"
i=0
while [ "$(state_of "$tpid")" != T ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the stand-in did not stop"
	sleep 0.05
done
"$bin" gecko-dump -v --start-time-ms 1795311669769 "$tpid" -o "$tmp/stopped.pgkb" 2>"$tmp/err" || fail "stopped target: $(cat "$tmp/err")"
grep -q "pid $tpid: was stopped already; left stopped" "$tmp/err" || fail "stopped note: $(cat "$tmp/err")"
[ "$(state_of "$tpid")" = T ] || fail "a stopped process was left in state $(state_of "$tpid")"
cmp -s "$tmp/stopped.pgkb" "$tmp/live.pgkb" || fail "the dump of the stopped process differs"
kill -CONT "$tpid"

# a Firefox child process is labelled by the type its command line ends
# with (it was "Parent Process" / default); the parent stays the parent
cpid=
"$target" "$tmp/run2.chunks" "$tmp/cready" -contentproc -isForBrowser 7 tab &
cpid=$!
i=0
while [ ! -s "$tmp/cready" ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the child stand-in did not start"
	sleep 0.05
done
"$bin" gecko-dump -v "$cpid" -o "$tmp/child.pgkb" 2>"$tmp/err" || fail "child: $(cat "$tmp/err")"
cpid_was=$cpid
kill "$cpid"
cpid=
grep -q "a Firefox child process of type tab (from its command line)" "$tmp/err" || fail "child note: $(cat "$tmp/err")"
# its time base is read from its memory, exactly (mozglue's pair in the bss),
# not estimated; its name is completed from its main thread's 15 bytes
base=$(cat "$tmp/cready.base")
grep -q "pid $cpid_was: time base $base ns (CLOCK_MONOTONIC): TimeStamp::ProcessCreation, read from its memory\$" "$tmp/err" ||
	fail "child time base (want $base): $(cat "$tmp/err")"
! grep -q "warning" "$tmp/err" || fail "child warnings: $(cat "$tmp/err")"
grep -q "pid $cpid_was: named \"Isolated Web Content\" (from its main thread's name \"Isolated Web Co\")" "$tmp/err" ||
	fail "child name: $(cat "$tmp/err")"
"$bin" -q "$tmp/child.pgkb" -o "$tmp/child.json" 2>/dev/null || fail "convert child"
python3 - "$tmp/child.json" "$tmp/live.json" <<'PY' || fail "process types"
import json, sys
child = {(t["processType"], t.get("processName")) for t in json.load(open(sys.argv[1]))["threads"]}
parent = {(t["processType"], t.get("processName")) for t in json.load(open(sys.argv[2]))["threads"]}
assert child == {("tab", "Isolated Web Content")}, child
assert parent == {("default", "Parent Process")}, parent
PY

# a young process has only its chunk 0: of the one-chunk runs at range 1 the
# 1 MiB chunk is taken, not the 4 KiB one-chunk buffer started after it
# (decoy 6; Firefox's preallocated and new content processes gave "no
# profiler buffer found": a chance header of a few KiB won)
head -c $((56 + 1052616)) "$tmp/run2.chunks" >"$tmp/one.chunks"
"$target" "$tmp/one.chunks" "$tmp/oready" &
opid=$!
i=0
while [ ! -s "$tmp/oready" ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the one-chunk stand-in did not start"
	sleep 0.05
done
# (with --strict: the run is noted, then its estimated time base is fatal)
rc=0
"$bin" gecko-dump -v --strict "$opid" -o "$tmp/one.pgkb" 2>"$tmp/err" || rc=$?
kill "$opid"
grep -q "pid $opid: stopped for [0-9.]* ms; a run of 1 chunks (1052672 bytes;" "$tmp/err" ||
	fail "one chunk: not chunk 0: $(cat "$tmp/err")"
[ $rc = 1 ] && grep -q "error: pid $opid: the profiler's time base .* was not found in its memory" "$tmp/err" ||
	fail "--strict, estimated time base: exit $rc: $(cat "$tmp/err")"
[ ! -e "$tmp/one.pgkb" ] || fail "--strict: a dump was written"
opid=

# a process whose only chunk header is consistent but holds noise (the
# chance finds in python3 and node): an error, no dump (it was a 0-thread
# dump, exit 0)
python3 - "$tmp/noise.chunks" <<'PY'
import struct, sys
n = 4096
hdr = struct.pack("<IIQQIIQIIQ", 0, n, 123456789, 0, n, 40, 1, 0, 0, 0)
x, buf = 12345, bytearray()
for _ in range(n):
    x = (x * 1103515245 + 12345) & 0x7fffffff
    buf.append((x >> 16) & 0xff)
open(sys.argv[1], "wb").write(hdr + bytes(buf))
PY
"$target" "$tmp/noise.chunks" "$tmp/nready" &
npid=$!
i=0
while [ ! -s "$tmp/nready" ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the noise stand-in did not start"
	sleep 0.05
done
rc=0
"$bin" gecko-dump "$npid" -o "$tmp/n.pgkb" 2>"$tmp/err" || rc=$?
[ $rc = 1 ] || fail "chunk headers holding noise: exit $rc: $(cat "$tmp/err")"
grep -q -e "no profiler buffer found in pid $npid: the [0-9]* chunk headers found (a run of 1, 4152 bytes) hold no sample or marker of any thread" \
	-e "no profiler buffer found in pid $npid: no chunk of one in its memory" "$tmp/err" ||
	fail "noise error: $(cat "$tmp/err")"
[ ! -e "$tmp/n.pgkb" ] || fail "noise: an output was written"
# continued (R or S; R on a loaded machine, before it is back in pause())
case $(state_of "$npid") in [Tt]) fail "the noise stand-in was left stopped" ;; esac
kill "$npid"
npid=

# errors: a process with no profiler, a pid that does not exist.  Wait
# until the background job is sleep itself: until it execs, it is a copy of
# this shell, whose memory is not a fixed thing to scan (under load the
# capture once took it for a dump; CI runs the tests two at a time)
sleep 30 &
spid=$!
n=0
while [ "$(cat "/proc/$spid/comm" 2>/dev/null)" != sleep ] && [ $n -lt 200 ]; do
	n=$((n + 1))
	sleep 0.05
done
rc=0
"$bin" gecko-dump --strict "$spid" -o "$tmp/x.pgkb" 2>"$tmp/err" || rc=$?
kill "$spid" 2>/dev/null || true
[ $rc = 1 ] || fail "a process without chunks: exit $rc: $(cat "$tmp/err")"
grep -q "no profiler buffer found in pid $spid: no chunk of one in its memory" "$tmp/err" || fail "no-chunk error: $(cat "$tmp/err")"
[ ! -e "$tmp/x.pgkb" ] || fail "partial output left"
if "$bin" gecko-dump 2147483000 -o "$tmp/x.pgkb" 2>"$tmp/err"; then fail "a missing pid gave a dump"; fi
grep -q "pid 2147483000: no such process" "$tmp/err" || fail "missing pid error: $(cat "$tmp/err")"
if "$bin" gecko-dump 12abc -o "$tmp/x.pgkb" 2>/dev/null; then fail "a bad pid was accepted"; fi
echo "gecko-capture: ok"
