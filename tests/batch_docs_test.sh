#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# batch_docs_test.sh - the job files of docs/batch.md: the copies in the
# text are the files, the YAML parses (python3's yaml when installed) with
# the structure each scheduler needs, the Slurm script passes sh -n, and
# each file's shard count agrees with its worker count.
set -u
here=$(cd "$(dirname "$0")" && pwd)
D="$here/../docs"
fail() {
	echo "FAIL: batch-docs: $*" >&2
	exit 1
}
python3 - "$D" <<'PY' || fail "docs/batch.md"
import re, sys
d = sys.argv[1]
text = open(d + "/batch.md").read()
for name, lang in [("github-actions.yml", "yaml"), ("k8s-job.yaml", "yaml"), ("slurm.sh", "sh")]:
    body = open(d + "/batch/" + name).read().rstrip("\n")
    m = re.search(r"### [^\n]*`docs/batch/%s`\)\n\n```%s\n(.*?)\n```" % (re.escape(name), lang), text, re.S)
    assert m, "no block for " + name
    assert m.group(1) == body, name + ": the copy in batch.md differs from the file"
PY
sh -n "$D/batch/slurm.sh" || fail "slurm.sh: sh -n"
arr=$(sed -n 's/^#SBATCH --array=1-\([0-9]*\)$/\1/p' "$D/batch/slurm.sh")
grep -q -- "--shard \"\${SLURM_ARRAY_TASK_ID}/$arr\"" "$D/batch/slurm.sh" || fail "slurm.sh: --array 1-$arr and --shard disagree"
if python3 -c 'import yaml' 2>/dev/null; then
	python3 - "$D" <<'PY' || fail "YAML job files"
import re, sys, yaml
d = sys.argv[1]
gh = yaml.safe_load(open(d + "/batch/github-actions.yml"))
conv = gh["jobs"]["convert"]
shards = conv["strategy"]["matrix"]["shard"]
assert shards == list(range(1, len(shards) + 1)), shards
run = " ".join(s.get("run", "") for s in conv["steps"])
assert "--shard ${{ matrix.shard }}/%d" % len(shards) in run, run
assert conv["strategy"]["fail-fast"] is False
rep = gh["jobs"]["report"]
assert rep["needs"] == "convert" and "report merge" in " ".join(s.get("run", "") for s in rep["steps"])
k8s = yaml.safe_load(open(d + "/batch/k8s-job.yaml"))
assert k8s["apiVersion"] == "batch/v1" and k8s["kind"] == "Job"
spec = k8s["spec"]
assert spec["completionMode"] == "Indexed"
n = spec["completions"]
c = spec["template"]["spec"]["containers"][0]
args = " ".join(c["args"])
assert "--shard $((JOB_COMPLETION_INDEX + 1))/%d" % n in args, args
assert spec["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure")
PY
else
	echo "batch-docs: python3-yaml not installed; YAML structure not checked"
fi
exit 0
