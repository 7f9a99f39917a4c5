#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# batch_test.sh - batch mode (profconv -O OUTDIR ...), shards and report
# merging, end to end.  usage: batch_test.sh PROFCONV
#
# The inputs are a mix: two real recordings with one file name (a clash),
# a truncated one (converts with a warning), a file that is no profile, a
# missing path and an empty file.  Nothing here times anything.
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
FX="$here/fixtures/perf"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-batch.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: batch: $*" >&2
	exit 1
}

cd "$T" || exit 1
mkdir in in/sub
cp "$FX/y_fp.data" in/a.data
cp "$FX/y_clock.data" in/sub/a.data
cp "$FX/i_truncated_tail.data" in/trunc.data
cp "$FX/n_bad_magic.data" in/bad.data
cp "$FX/y_pipe.data" in/pipe.data.gz.data
: >in/empty.data
gzip -c "$FX/y_multi_event.data" >in/multi.data.gz
printf '%s\n' in/a.data in/sub/a.data in/trunc.data in/bad.data in/missing.data \
	in/empty.data in/multi.data.gz in/pipe.data.gz.data >list

# One run, two jobs: exit 1 (some failed), one report line per input in input
# order, outputs named as documented, nothing partial left behind.
"$PC" --no-symbols -O out --jobs 2 --inputs list --report r.jsonl 2>err
rc=$?
[ "$rc" = 1 ] || fail "mixed batch exited $rc, expected 1: $(cat err)"
python3 - r.jsonl <<'PY' || fail "report"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
# every line says which profconv wrote it and its shard; the last one ends it
end = lines.pop()
assert end == {"version": end["version"], "shard": "1/1", "end": True, "inputs": 8,
               "converted": 5, "failed": 3}, end
assert all(l["version"] == end["version"] and l["shard"] == "1/1" for l in lines), lines
want = [("in/a.data", "ok", "out/a.json", 601), ("in/sub/a.data", "ok", "out/a-2.json", None),
        ("in/trunc.data", "ok", "out/trunc.json", 20), ("in/bad.data", "failed", None, 0),
        ("in/missing.data", "failed", None, 0), ("in/empty.data", "failed", None, 0),
        ("in/multi.data.gz", "ok", "out/multi.json", None),
        ("in/pipe.data.gz.data", "ok", "out/pipe.data.gz.json", None)]
assert len(lines) == len(want), len(lines)
for l, (inp, st, out, samples) in zip(lines, want):
    assert l["input"] == inp and l["status"] == st and l["output"] == out, l
    if samples is not None:
        assert l["samples"] == samples, l
    if st == "ok":
        assert l["format"] == "perf" and l["threads"] > 0 and l["bytes_out"] > 0, l
        assert l["error"] is None, l
    else:
        assert l["error"] and l["error_code"], l
assert lines[2]["warnings"] == {"truncated inputs (the tail was ignored)": 1}, lines[2]
# the same with stable codes (docs/diagnostics.md), and the error's
assert lines[2]["diagnostics"] == [{"severity": "warning", "code": 1025,
                                    "id": "perf-input-truncated", "count": 1}], lines[2]
assert lines[0]["diagnostics"] == [], lines[0]
assert lines[3]["diagnostics"] == [{"severity": "error", "code": 3, "id": "unrecognized",
                                    "count": 1}], lines[3]
assert lines[4]["diagnostics"][0]["id"] == "io", lines[4]
assert lines[3]["error_offset"] == 0 and "unrecognized format" in lines[3]["error"], lines[3]
assert "missing.data: cannot open" in lines[4]["error"], lines[4]
assert lines[5]["error"].startswith("in/empty.data: offset 0x0: empty input"), lines[5]
PY
[ "$(ls out | sort | tr '\n' ' ')" = "a-2.json a.json multi.json pipe.data.gz.json trunc.json " ] ||
	fail "outputs: $(ls -a out)"
grep -q "^profconv: 8 inputs: 5 converted (1 with warnings), 3 failed" err || fail "summary: $(cat err)"
for f in out/*.json; do
	"$PC" validate "$f" >/dev/null || fail "$f does not validate"
done

# --jobs 1 gives the same bytes; every input converted alone gives them too.
"$PC" -q --no-symbols -O out1 --jobs 1 --inputs list 2>/dev/null
for f in out/*.json; do
	cmp -s "$f" "out1/${f#out/}" || fail "--jobs 1 and 2 differ on $f"
done
"$PC" -q --no-symbols in/sub/a.data -o one.json || fail "single conversion"
cmp -s one.json out/a-2.json || fail "batch output differs from a single conversion"

# Two shards cover the list once, with the names of the unsharded run.
"$PC" -q --no-symbols -O s --shard 1/2 --inputs list --report s1.jsonl 2>/dev/null
"$PC" -q --no-symbols -O s --shard 2/2 --inputs list --report s2.jsonl 2>/dev/null
n1=$(wc -l <s1.jsonl)
n2=$(wc -l <s2.jsonl)
[ $((n1 + n2)) = 10 ] || fail "shards have $n1 + $n2 lines, expected 8 and two end lines"
[ "$n1" -gt 1 ] && [ "$n2" -gt 1 ] || fail "one shard is empty ($n1, $n2)"
for f in out/*.json; do
	cmp -s "$f" "s/${f#out/}" || fail "sharded output differs on $f"
done
"$PC" report merge s1.jsonl s2.jsonl -o merged.jsonl 2>merr
rc=$?
[ "$rc" = 1 ] || fail "merge of reports with failures exited $rc"
grep -q "^profconv: 2 reports, 8 inputs: 5 converted, 3 failed" merr || fail "merge summary: $(cat merr)"
[ "$(wc -l <merged.jsonl)" = 10 ] || fail "merged report has $(wc -l <merged.jsonl) lines"
"$PC" report merge s1.jsonl s1.jsonl >/dev/null 2>merr && fail "a report merged with itself passed"
grep -q "is in two reports" merr || fail "duplicate not said: $(cat merr)"
printf 'not json\n' >junk.jsonl
"$PC" report merge junk.jsonl >/dev/null 2>merr && fail "junk report passed"
grep -q "^profconv: error: junk.jsonl:1: expected a report line" merr || fail "junk: $(cat merr)"

# All good: exit 0, and the summary is quiet with -q.
"$PC" -q --no-symbols -O good in/a.data in/trunc.data 2>err || fail "good batch failed: $(cat err)"
[ ! -s err ] || fail "-q batch printed: $(cat err)"
# --strict: the warning fails its input, the other converts.
"$PC" -q --strict --no-symbols -O strict in/a.data in/trunc.data --report st.jsonl 2>/dev/null &&
	fail "--strict batch with a warning passed"
grep -c '"status": "ok"' st.jsonl | grep -qx 1 || fail "--strict: $(cat st.jsonl)"
[ ! -e strict/trunc.json ] || fail "--strict left trunc.json"

# Usage errors.
"$PC" -O x --shard 3/2 in/a.data 2>err; [ $? = 2 ] || fail "--shard 3/2 accepted"
"$PC" -O x --jobs 0 in/a.data 2>err; [ $? = 2 ] || fail "--jobs 0 accepted"
"$PC" --jobs 2 in/a.data -o x.json 2>err; [ $? = 2 ] || fail "--jobs without -O accepted"
"$PC" -O x -o y in/a.data 2>err; [ $? = 2 ] || fail "-O with -o accepted"
"$PC" -O x - <in/a.data 2>err; [ $? = 2 ] || fail "- in a batch accepted"
: >file
"$PC" -O file in/a.data 2>err; [ $? = 1 ] || fail "-O on a file accepted"
grep -q "not a directory" err || fail "-O file: $(cat err)"
exit 0
