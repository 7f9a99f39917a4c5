#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# report_test.sh - batch reports and report merge, as CI shards use them:
#   - every report line carries the profconv version and its shard, and a
#     report ends with its shard's end line;
#   - report merge --expect N fails when a shard's report is missing, given
#     twice, or of another shard count, and passes when all N are there;
#   - report merge -o onto one of its reports (same path, ./path, a symlink)
#     is refused before anything is truncated (issue 22 item 5);
#   - a FIFO in --inputs is refused with its reason instead of blocking the
#     batch; an input that is also its output says so; the merge summary
#     counts inputs once (issue 22 item 14);
#   - a --report path that cannot be written fails before any conversion.
#
# usage: report_test.sh PROFCONV
set -u
PC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
FX="$here/fixtures/perf"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-report.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() {
	echo "FAIL: report: $*" >&2
	exit 1
}
VERSION=$("$PC" --version | sed -n 's/^profconv \([0-9][0-9.]*\) .*/\1/p')
[ -n "$VERSION" ] || fail "no version in '$("$PC" --version)'"

cp "$FX/y_fp.data" a.data
cp "$FX/y_multi_event.data" b.data
cp "$FX/n_zero_size_record.data" c.data
cp "$FX/y_pipe_zstd.data" d.data
printf '%s\n' a.data b.data c.data d.data >list

# --- three shards, merged ---------------------------------------------------
for k in 1 2 3; do
	"$PC" -q --no-symbols -O out --shard $k/3 --inputs list --report r$k.jsonl 2>/dev/null
	[ -s r$k.jsonl ] || fail "shard $k wrote no report"
done
python3 - "$VERSION" r1.jsonl r2.jsonl r3.jsonl <<'PY' || fail "report lines"
import json, sys
version, inputs = sys.argv[1], []
for k, path in enumerate(sys.argv[2:], 1):
    lines = [json.loads(l) for l in open(path)]
    end = lines[-1]
    assert end.get("end") is True and end["shard"] == "%d/3" % k, (path, end)
    assert end["inputs"] == len(lines) - 1, (path, end)
    assert end["converted"] + end["failed"] == end["inputs"], end
    for l in lines:
        assert l["version"] == version and l["shard"] == "%d/3" % k, (path, l)
    inputs += [l["input"] for l in lines[:-1]]
assert sorted(inputs) == ["a.data", "b.data", "c.data", "d.data"], inputs
PY
"$PC" report merge --expect 3 r1.jsonl r2.jsonl r3.jsonl -o all.jsonl 2>err
[ $? = 1 ] || fail "merge with c.data failed exited $?, expected 1 (a failed input)"
grep -q "^profconv: 3 reports (3 of 3 shards), 4 inputs: 3 converted, 1 failed$" err ||
	fail "merge summary: $(cat err)"
[ "$(wc -l <all.jsonl)" = 7 ] || fail "merged report: $(wc -l <all.jsonl) lines, expected 4 + 3 end lines"
# the merged report merges again (its end lines say all three are there)
"$PC" -q report merge --expect 3 all.jsonl >/dev/null 2>err
grep -q "^profconv: 1 report (3 of 3 shards), 4 inputs: 3 converted, 1 failed$" err ||
	fail "re-merge: $(cat err)"

# a shard whose inputs all converted, so that only the shards count below
printf '%s\n' a.data b.data d.data >good
for k in 1 2 3; do
	"$PC" -q --no-symbols -O gout --shard $k/3 --inputs good --report g$k.jsonl ||
		fail "good shard $k failed"
done
"$PC" -q report merge --expect 3 g1.jsonl g2.jsonl g3.jsonl -o g.jsonl || fail "complete merge failed"
for missing in 1 2 3; do
	set --
	for k in 1 2 3; do [ $k = $missing ] || set -- "$@" g$k.jsonl; done
	"$PC" -q report merge --expect 3 "$@" -o g.jsonl 2>err
	[ $? = 1 ] || fail "merge without shard $missing exited 0"
	grep -q "the report of shard $missing/3 is missing" err || fail "missing shard $missing: $(cat err)"
done
"$PC" -q report merge --expect 3 g1.jsonl g2.jsonl g3.jsonl g2.jsonl -o g.jsonl 2>err &&
	fail "a shard given twice merged"
grep -q "shard 2/3 is in two reports" err || fail "duplicate shard: $(cat err)"
"$PC" -q report merge --expect 2 g1.jsonl g2.jsonl g3.jsonl -o g.jsonl 2>err && fail "--expect 2 of 3 shards passed"
grep -q "the report of shard 1/3, not of one of 2 shards" err || fail "shard count: $(cat err)"
# a report cut short (a killed shard: no end line) counts as missing
head -n 1 g1.jsonl >cut.jsonl
[ "$(wc -l <g1.jsonl)" -gt 1 ] || fail "shard 1 of good has no input (the cut below would be empty)"
"$PC" -q report merge --expect 3 cut.jsonl g2.jsonl g3.jsonl -o g.jsonl 2>err && fail "a cut report passed"
grep -q "the report of shard 1/3 is missing" err || fail "cut report: $(cat err)"
"$PC" --expect 3 a.data -o x.json 2>err
[ $? = 2 ] || fail "--expect outside report merge accepted"
"$PC" report merge --expect 0 g1.jsonl 2>err
[ $? = 2 ] || fail "--expect 0 accepted"

# --- -o onto one of the reports (issue 22 item 5) ---------------------------
cp g1.jsonl s1.jsonl
cp g2.jsonl s2.jsonl
cp s1.jsonl keep1
ln -s s1.jsonl link.jsonl
for o in s1.jsonl ./s1.jsonl "$T/s1.jsonl" link.jsonl; do
	"$PC" -q report merge s1.jsonl s2.jsonl -o "$o" 2>err
	[ $? = 2 ] || fail "merge -o $o (one of its reports) exited $?, expected 2"
	cmp -s s1.jsonl keep1 || fail "merge -o $o changed the report s1.jsonl"
	grep -q "is also the report s1.jsonl; nothing merged" err || fail "-o $o: $(cat err)"
done

# --- batch inputs that are not files, and an input that is its output -------
mkfifo fifo.data || fail "mkfifo"
printf '%s\n' a.data fifo.data b.data >flist
# (a reader blocked on the FIFO would never return: timeout says so)
timeout 60 "$PC" -q --no-symbols -O fout --inputs flist --report f.jsonl 2>err
rc=$?
[ $rc = 124 ] && fail "a FIFO in --inputs blocked the batch"
[ $rc = 1 ] || fail "batch with a FIFO exited $rc, expected 1"
grep -q "^profconv: error: fifo.data: not a regular file (a FIFO); batch inputs must be files$" err ||
	fail "FIFO: $(cat err)"
[ -f fout/a.json ] && [ -f fout/b.json ] || fail "the files beside the FIFO were not converted: $(ls fout)"
grep -q '"input": "fifo.data", .*"status": "failed", "error": "fifo.data: not a regular file' f.jsonl ||
	fail "FIFO report line: $(cat f.jsonl)"
mkdir self
cp "$FX/y_fp.data" self/p.json
"$PC" -q --no-symbols -O self self/p.json 2>err
[ $? = 1 ] || fail "an input that is its own output converted"
grep -q "^profconv: error: self/p.json: is also the output self/p.json; not converted$" err ||
	fail "self output gives no reason: $(cat err)"
cmp -s self/p.json "$FX/y_fp.data" || fail "the input that is its output was changed"

# --- the summary counts inputs, not lines -----------------------------------
"$PC" report merge s1.jsonl s1.jsonl s2.jsonl -o m.jsonl 2>err
[ $? = 1 ] || fail "a report given twice merged"
n=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if "input" in json.loads(l)))' g1.jsonl)
n2=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if "input" in json.loads(l)))' g2.jsonl)
grep -q "^profconv: 3 reports, $((n + n2)) inputs: $((n + n2)) converted, 0 failed; $n lines\{0,1\} repeats\{0,1\} another report's$" err ||
	fail "merge summary with a repeated report: $(cat err)"

# --- --report is checked before converting ----------------------------------
"$PC" -q --no-symbols -O early a.data --report no/such/dir/r.jsonl 2>err
[ $? = 1 ] || fail "--report in a missing directory did not fail"
grep -q "^profconv: error: --report no/such/dir/r.jsonl: cannot write the report: .*; nothing converted$" err ||
	fail "--report message: $(cat err)"
[ ! -e early ] || fail "converted (or made -O's directory) before finding the report path unwritable"
exit 0
