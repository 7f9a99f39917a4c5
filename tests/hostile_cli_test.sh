#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# hostile_cli_test.sh PROFCONV CASE - the command under hostile use (issue 22):
#
#   self-output     a single conversion (or symbolicate) with -o onto its own
#                   input, by the same path, a ./ path, an absolute path, a
#                   symlink, a hard link or standard input redirected from
#                   it: refused (exit 2, the reason said), the input intact;
#                   it used to replace the recording, exit 0
#   batch-signals   batch mode killed by SIGTERM, SIGHUP or SIGINT while an
#                   output is being written: no NAME.json.tmp-XXXXXX left,
#                   the report written for the inputs that finished, the
#                   command dead of the signal; it used to leave the
#                   temporary file and write no report.  An ignored SIGHUP
#                   (nohup) stays ignored
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-hostile.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $1: $2" >&2
	exit 1
}

case $2 in
self-output)
	cd "$T" || exit 1
	cp "$here/fixtures/perf/y_fp.data" rec.data
	cksum <rec.data >sum
	ln -s rec.data link.data
	ln rec.data hard.data
	for out in rec.data ./rec.data "$T/rec.data" link.data hard.data "$T/./link.data"; do
		"$PC" -q --no-symbols rec.data -o "$out" 2>err
		rc=$?
		[ $rc = 2 ] || fail self-output "-o $out: exit $rc, expected 2: $(cat err)"
		grep -qF "profconv: error: $out: is the input rec.data itself (the same file)" err ||
			fail self-output "-o $out: $(cat err)"
		cksum <rec.data | cmp -s - sum || fail self-output "-o $out replaced the recording"
		ls | grep -q 'tmp-' && fail self-output "-o $out left a temporary file"
	done
	# the input named differently, the output by name
	"$PC" -q --no-symbols "$T/link.data" -o rec.data 2>err
	[ $? = 2 ] || fail self-output "input through a link: $(cat err)"
	# standard input redirected from the output file
	"$PC" -q --no-symbols - -o rec.data <rec.data 2>err
	[ $? = 2 ] || fail self-output "stdin from the output: $(cat err)"
	grep -qF "is the input (standard input) itself" err || fail self-output "stdin: $(cat err)"
	cksum <rec.data | cmp -s - sum || fail self-output "stdin: the recording was replaced"
	# symbolicate is a conversion too
	"$PC" -q --no-symbols rec.data -o p.json 2>err || fail self-output "convert: $(cat err)"
	cp p.json p.orig
	"$PC" -q symbolicate p.json -o ./p.json 2>err
	[ $? = 2 ] || fail self-output "symbolicate onto its input: $(cat err)"
	cmp -s p.json p.orig || fail self-output "symbolicate replaced its input"
	# another output still converts
	"$PC" -q --no-symbols rec.data -o other.json 2>err || fail self-output "other output: $(cat err)"
	;;
batch-signals)
	cd "$T" || exit 1
	mkdir in
	cp "$here/fixtures/chrome/y_synth_slices.json" in/a.json
	cp "$here/fixtures/chrome/y_synth_flows.json" in/b.json
	# about 10 MB in and out: writing it takes long enough to be caught at it
	python3 - in/big.json <<'PY'
import sys
ev = ['{"name":"s%d","ph":"X","ts":%d,"dur":5,"pid":1,"tid":1,"cat":"c","args":{"k":"%d%s"}}'
      % (i % 500, i * 10, i, "v" * 100) for i in range(60000)]
open(sys.argv[1], "w").write('{"traceEvents":[' + ",".join(ev) + "]}")
PY
	cp "$here/fixtures/chrome/y_synth_order.json" in/z.json
	# python polls the output folder and signals the batch as soon as the
	# temporary file of big.json's output is there (a few tries: on a loaded
	# machine the write may end before it is seen)
	python3 - "$PC" <<'PY' || exit 1
import json, os, signal, subprocess, sys, time

pc = sys.argv[1]

def fail(msg):
    print("FAIL: batch-signals: " + msg, file=sys.stderr)
    sys.exit(1)

def run(sig, out, ignore=False):
    for attempt in range(8):
        for d in (out,):
            if os.path.isdir(d):
                for f in os.listdir(d):
                    os.unlink(os.path.join(d, f))
        if os.path.exists("r.jsonl"):
            os.unlink("r.jsonl")
        def pre():
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_DFL)
            if ignore:
                signal.signal(sig, signal.SIG_IGN)
        p = subprocess.Popen([pc, "-q", "--no-symbols", "--jobs", "1", "-O", out,
                              "--report", "r.jsonl", "in/a.json", "in/b.json", "in/big.json",
                              "in/z.json"], stderr=subprocess.PIPE, preexec_fn=pre)
        seen = False
        while p.poll() is None:
            try:
                names = os.listdir(out)
            except FileNotFoundError:
                continue
            if any(n.startswith("big.json.tmp-") for n in names):
                seen = True
                p.send_signal(sig)
                break
        err = p.communicate()[1].decode()
        if not seen:
            continue  # finished before the temporary file was seen: again
        return p.returncode, err
    fail("the temporary output was never seen (%s)" % sig.name)

for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    rc, err = run(sig, "out")
    if rc != -sig:
        fail("%s: exit %s, expected death by the signal: %s" % (sig.name, rc, err))
    # big.json may have been finished in the meantime (on a loaded machine);
    # z.json is never started after the signal
    left = sorted(os.listdir("out"))
    if left not in (["a.json", "b.json"], ["a.json", "b.json", "big.json"]):
        fail("%s: the output folder holds %s" % (sig.name, left))
    want = "profconv: stopped by %s: %d of 4 inputs finished; the report lists them" % (
        sig.name, len(left))
    if want not in err:
        fail("%s: %r" % (sig.name, err))
    lines = [json.loads(l) for l in open("r.jsonl")]
    got = [(l["input"], l["status"], l["output"]) for l in lines if "input" in l]
    if got != [("in/" + n, "ok", "out/" + n) for n in left]:
        fail("%s: report %s" % (sig.name, got))
    # no end line: report merge --expect sees that the shard did not finish
    if any(l.get("end") for l in lines):
        fail("%s: a stopped batch's report has an end line" % sig.name)

# SIGBUS (what reading a mapped input that another process cut short
# raises, in whichever thread read it): the batch stops as for SIGTERM,
# but the error names the input in progress and the exit status is 1
rc, err = run(signal.SIGBUS, "out")
if rc != 1:
    fail("SIGBUS: exit %s, expected 1: %s" % (rc, err))
left = sorted(os.listdir("out"))
if left not in (["a.json", "b.json"], ["a.json", "b.json", "big.json"]):
    fail("SIGBUS: the output folder holds %s" % left)
want = ("profconv: error: in/big.json: an input file changed (was cut short) while it was read "
        "through a mapping\n"
        "profconv: stopped: %d of 4 inputs finished; the report lists them\n" % len(left))
if left == ["a.json", "b.json"] and want not in err:
    fail("SIGBUS: %r" % err)
lines = [json.loads(l) for l in open("r.jsonl")]
got = [(l["input"], l["status"], l["output"]) for l in lines if "input" in l]
if got != [("in/" + n, "ok", "out/" + n) for n in left] or any(l.get("end") for l in lines):
    fail("SIGBUS: report %s" % got)

# nohup: an ignored SIGHUP stays ignored (the batch goes on to the end)
rc, err = run(signal.SIGHUP, "out2", ignore=True)
if rc != 0:
    fail("ignored SIGHUP: exit %s: %s" % (rc, err))
if sorted(os.listdir("out2")) != ["a.json", "b.json", "big.json", "z.json"]:
    fail("ignored SIGHUP: %s" % sorted(os.listdir("out2")))
lines = [json.loads(l) for l in open("r.jsonl")]
if len([l for l in lines if "input" in l]) != 4 or not lines[-1].get("end"):
    fail("ignored SIGHUP: the report is not whole")
PY
	;;
*)
	echo "unknown case $2" >&2
	exit 2
	;;
esac
echo "hostile-cli $2: ok"
