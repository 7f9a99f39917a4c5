#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# batch_docs_test.sh - the CI job files of docs/batch/ run:
#   - the copies in docs/batch.md are the files;
#   - the YAML parses (python3-yaml) and the Slurm script passes sh -n;
#   - each has what its scheduler needs: GitHub Actions one build job whose
#     packages artifact the shard jobs and the merge job install (no
#     submodule), a matrix of N shards that does not fail fast, a merge job
#     that runs always; Kubernetes a volume claim the indexed Job of N
#     completions mounts, and a merge Job; Slurm an array of N;
#   - the commands they run, run here on a small batch (4 inputs, 3
#     shards) with the built profconv on the PATH: GitHub's convert and
#     merge steps (the build step is scripts/container-build.sh, which the
#     container test runs), the Kubernetes pods' commands with their
#     JOB_COMPLETION_INDEX, and the Slurm script itself, submitted through a
#     stand-in sbatch that runs each job at once and fails, as Slurm does,
#     when the --output directory does not exist;
#   - each merge with --expect 3 passes, and fails once a shard's report is
#     removed.
#
# usage: batch_docs_test.sh PROFCONV
set -u
PC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
D="$here/../docs"
FX="$here/fixtures/perf"
fail() {
	echo "FAIL: batch-docs: $*" >&2
	exit 1
}
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-batchdocs.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is not installed (scripts/setup.sh installs it)"
sh -n "$D/batch/slurm.sh" || fail "slurm.sh: sh -n"

# The checks, and the commands to run, written into $T as scripts.
python3 - "$D" "$T" <<'PY' || fail "job files"
import os, re, sys, yaml
d, t = sys.argv[1], sys.argv[2]
text = open(d + "/batch.md").read()
files = [("github-actions.yml", "yaml"), ("k8s-job.yaml", "yaml"), ("k8s-merge.yaml", "yaml"),
         ("slurm.sh", "sh")]
for name, lang in files:
    body = open(d + "/batch/" + name).read().rstrip("\n")
    # the first block after the heading naming the file, before any other heading
    m = re.search(r"### [^\n]*`docs/batch/%s`\)\n(?:(?!```|#)[^\n]*\n)*```%s\n" % (re.escape(name), lang),
                  text)
    m = m and re.match(r"(.*?)\n```", text[m.end():], re.S)
    assert m, "batch.md: no block for " + name
    assert m.group(1) == body, name + ": the copy in batch.md differs from the file"
N = 3

def write(name, script):
    with open(os.path.join(t, name), "w") as f:
        f.write(script + "\n")

# --- GitHub Actions
gh = yaml.safe_load(open(d + "/batch/github-actions.yml"))
jobs = gh["jobs"]
build, conv, rep = jobs["build"], jobs["convert"], jobs["report"]
def step(job, sid):
    s = [s for s in job["steps"] if s.get("id") == sid]
    assert len(s) == 1, "no step with id %s" % sid
    return s[0]["run"]
def uses(job, action):
    return [s for s in job["steps"] if s.get("uses", "").startswith(action)]
assert "submodules" not in open(d + "/batch/github-actions.yml").read(), "a submodule"
co = uses(build, "actions/checkout")
assert co and co[0]["with"]["repository"] and co[0]["with"]["path"] == "profconv-src", co
assert step(build, "build") == "sh profconv-src/scripts/container-build.sh debs", step(build, "build")
up = uses(build, "actions/upload-artifact")[0]["with"]
assert up["name"] == "profconv-debs" and up["path"] == "debs/*.deb", up
for job in (conv, rep):
    assert "build" in (job["needs"] if isinstance(job["needs"], list) else [job["needs"]])
    dl = [s["with"] for s in uses(job, "actions/download-artifact") if s["with"].get("name") == "profconv-debs"]
    assert dl and dl[0]["path"] == "debs", dl
    assert "./debs/profconv_*.deb" in step(job, "install"), step(job, "install")
shards = conv["strategy"]["matrix"]["shard"]
assert shards == list(range(1, N + 1)), shards
assert conv["strategy"]["fail-fast"] is False
assert "convert" in rep["needs"] and rep["if"].startswith("always()"), rep
reports = [s["with"] for s in uses(rep, "actions/download-artifact") if "pattern" in s["with"]]
assert reports and reports[0]["pattern"] == "report-*" and reports[0]["merge-multiple"] is True, reports
assert reports[0]["path"] == "reports"
assert "--expect %d" % N in step(rep, "merge")
for k in shards:
    write("gh-convert-%d.sh" % k, step(conv, "convert").replace("${{ matrix.shard }}", str(k)))
write("gh-merge.sh", step(rep, "merge"))

# --- Kubernetes
docs = list(yaml.safe_load_all(open(d + "/batch/k8s-job.yaml")))
pvc = [x for x in docs if x["kind"] == "PersistentVolumeClaim"]
job = [x for x in docs if x["kind"] == "Job"]
assert len(pvc) == 1 and len(job) == 1, [x["kind"] for x in docs]
spec = job[0]["spec"]
assert job[0]["apiVersion"] == "batch/v1" and spec["completionMode"] == "Indexed"
assert spec["completions"] == N and spec["parallelism"] == N, spec
pod = spec["template"]["spec"]
assert pod["restartPolicy"] in ("Never", "OnFailure")
def mounted(pod):
    vols = {v["name"]: v for v in pod["volumes"]}
    c = pod["containers"][0]
    assert c["workingDir"] == "/data", c
    m = [v for v in c["volumeMounts"] if v["mountPath"] == "/data"]
    assert m and vols[m[0]["name"]]["persistentVolumeClaim"]["claimName"] == pvc[0]["metadata"]["name"]
    assert c["command"] == ["/bin/sh", "-c"] and len(c["args"]) == 1, c
    assert pod["securityContext"]["runAsUser"] != 0 and "fsGroup" in pod["securityContext"]
    return c["args"][0]
write("k8s-convert.sh", mounted(pod))
merge = yaml.safe_load(open(d + "/batch/k8s-merge.yaml"))
assert merge["kind"] == "Job"
margs = mounted(merge["spec"]["template"]["spec"])
assert "report merge --expect %d" % N in margs, margs
write("k8s-merge.sh", margs)

# --- Slurm
sl = open(d + "/batch/slurm.sh").read()
arr = re.search(r"^#SBATCH --array=1-(\d+)$", sl, re.M)
assert arr and int(arr.group(1)) == N, "slurm.sh: --array is not 1-%d" % N
assert '--shard "${SLURM_ARRAY_TASK_ID}/%d"' % N in sl and "--expect %d" % N in sl
PY

# A small batch: four recordings, listed in traces.txt.
mkbatch() { # mkbatch DIR
	mkdir -p "$1/traces"
	cp "$FX/y_fp.data" "$1/traces/a.data"
	cp "$FX/y_multi_event.data" "$1/traces/b.data"
	cp "$FX/y_pipe_zstd.data" "$1/traces/c.data"
	cp "$FX/y_clock.data" "$1/traces/d.data"
	printf '%s\n' traces/a.data traces/b.data traces/c.data traces/d.data >"$1/traces.txt"
}
mkdir "$T/bin"
ln -s "$PC" "$T/bin/profconv"
PATH="$T/bin:$PATH"
export PATH
merged() { # merged WHAT DIR: report.jsonl holds the four inputs and three end lines
	python3 - "$2/report.jsonl" <<'PY' || fail "$1: merged report"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(l["input"] for l in lines if "input" in l) == ["traces/%s.data" % c for c in "abcd"], lines
assert sorted(l["shard"] for l in lines if l.get("end")) == ["1/3", "2/3", "3/3"], lines
assert all(l["status"] == "ok" for l in lines if "input" in l), lines
PY
	[ "$(ls "$2/out" | wc -l)" = 4 ] || fail "$1: outputs $(ls "$2/out")"
}
# missing WHAT DIR REPORT MERGE-SCRIPT: without REPORT the merge fails
missing() {
	rm "$2/$3"
	(cd "$2" && sh "$4") >/dev/null 2>"$T/err" && fail "$1: the merge passed without $3"
	grep -q "the report of shard [0-9]/3 is missing" "$T/err" || fail "$1: $(cat "$T/err")"
}

# --- GitHub Actions: three shard jobs, the artifacts, the merge job
W="$T/gh"
mkbatch "$W"
for k in 1 2 3; do
	(cd "$W" && sh -e "$T/gh-convert-$k.sh") 2>"$T/err" || fail "GitHub shard $k: $(cat "$T/err")"
done
mkdir "$W/reports"
cp "$W"/report-*.jsonl "$W/reports/" # download-artifact, pattern report-*, merge-multiple
(cd "$W" && sh -e "$T/gh-merge.sh") 2>"$T/err" || fail "GitHub merge: $(cat "$T/err")"
merged GitHub "$W"
missing GitHub "$W" reports/report-2.jsonl "$T/gh-merge.sh"

# --- Kubernetes: the indexed Job's three pods on the volume, then the merge Job
W="$T/k8s"
mkbatch "$W"
for i in 0 1 2; do
	(cd "$W" && JOB_COMPLETION_INDEX=$i sh -c "$(cat "$T/k8s-convert.sh")") 2>"$T/err" ||
		fail "Kubernetes pod $i: $(cat "$T/err")"
done
(cd "$W" && sh -c "$(cat "$T/k8s-merge.sh")") 2>"$T/err" || fail "Kubernetes merge: $(cat "$T/err")"
merged Kubernetes "$W"
missing Kubernetes "$W" reports/report-3.jsonl "$T/k8s-merge.sh"

# --- Slurm: the script submits itself through sbatch
cat >"$T/bin/sbatch" <<'SB'
#!/bin/sh
# a stand-in sbatch: runs the job now, in the submission directory
out="" wrap="" script=""
for a in "$@"; do
	case $a in
	--output=*) out=${a#--output=} ;;
	--wrap) wrap=next ;;
	--*) ;;
	*) if [ "$wrap" = next ]; then wrap=$a; else script=$a; fi ;;
	esac
done
[ -n "$out" ] || out=$(sed -n 's/^#SBATCH --output=//p' "$script")
dir=$(dirname "$out")
[ -d "$dir" ] || { echo "sbatch stand-in: job fails: $dir does not exist" >&2; exit 1; }
n=$(cat "$SB_COUNT" 2>/dev/null || echo 100)
echo $((n + 1)) >"$SB_COUNT"
if [ -n "$wrap" ]; then
	printf '%s\n' "$wrap" >"$SB_WRAP"
	sh -c "$wrap" >"$dir/wrap.log" 2>&1
	echo $? >"$SB_WRAP.rc"
else
	hi=$(sed -n 's/^#SBATCH --array=1-//p' "$script")
	k=1
	while [ "$k" -le "$hi" ]; do
		SLURM_ARRAY_TASK_ID=$k SLURM_CPUS_PER_TASK=2 SLURM_JOB_ID=$n sh "$script" >"$dir/task-$k.log" 2>&1
		k=$((k + 1))
	done
fi
echo "$n"
SB
chmod +x "$T/bin/sbatch"
W="$T/slurm"
mkbatch "$W"
(cd "$W" && SB_COUNT="$T/sbcount" SB_WRAP="$T/wrap" sh "$D/batch/slurm.sh") >"$T/out" 2>"$T/err" ||
	fail "Slurm submission: $(cat "$T/err")"
[ -d "$W/logs" ] || fail "slurm.sh made no logs/"
[ "$(cat "$T/wrap.rc")" = 0 ] || fail "Slurm merge job: $(cat "$W/logs/wrap.log")"
merged Slurm "$W"
missing Slurm "$W" reports/report-1.jsonl "$T/wrap"
echo "batch-docs: GitHub Actions, Kubernetes and Slurm ran 3 shards each and merged them"
exit 0
