#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# container_test.sh - the Dockerfile's build steps run here, outside Docker
# (there is no Docker engine on the build machines): its build stage's RUN
# lines are taken from the Dockerfile, /src made this source tree and /out a
# scratch directory, and run with BUILD_DIR set to this build tree (reused:
# setup.sh finds it configured and built, so only cpack runs).  Then:
#   - every RUN of the build stage is scripts/container-build.sh;
#   - the packages the last stage installs (its apt-get's /tmp/debs/ glob)
#     are among what the build stage made, exactly one file;
#   - the image runs as a non-root user that a RUN line creates, with
#     profconv as the entry point; the base is a Debian image;
#   - the packaged program runs (container-build.sh checks --version; here
#     it converts a fixture too).
#
# usage: container_test.sh BUILD_DIR
set -u
fail() {
	echo "FAIL: container: $*" >&2
	exit 1
}
[ $# -eq 1 ] && [ -f "$1/CMakeCache.txt" ] || {
	echo "usage: container_test.sh BUILD_DIR" >&2
	exit 2
}
B=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-container.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

python3 - "$top/Dockerfile" "$T" <<'PY' || fail "Dockerfile"
import json, re, sys
path, t = sys.argv[1], sys.argv[2]
text = open(path).read().replace("\\\n", " ")
stages, args = [], {}
for line in text.split("\n"):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    word, _, rest = line.partition(" ")
    word = word.upper()
    if word == "ARG":
        k, _, v = rest.partition("=")
        args[k] = v
    elif word == "FROM":
        image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), rest.split()[0])
        stages.append({"from": image, "run": [], "user": None, "entry": None, "copy": []})
    elif stages:
        s = stages[-1]
        if word == "RUN":
            s["run"].append(rest)
        elif word == "USER":
            s["user"] = rest.strip()
        elif word == "ENTRYPOINT":
            s["entry"] = json.loads(rest)
        elif word == "COPY":
            s["copy"].append(rest)
assert len(stages) >= 2, "expected a build stage and a runtime stage"
for s in stages:
    assert s["from"].startswith("debian:"), "not a Debian base: " + s["from"]
build, final = stages[0], stages[-1]
assert build["run"], "the build stage runs nothing"
for r in build["run"]:
    assert re.fullmatch(r"sh /src/scripts/container-build\.sh /out", r), \
        "a build step that is not scripts/container-build.sh: " + r
assert ". /src" in build["copy"], build["copy"]
assert final["user"] and final["user"] not in ("root", "0"), "the image runs as root"
assert any(re.search(r"\buseradd\b.*\b%s$" % re.escape(final["user"]), r) for r in final["run"]), \
    "no RUN creates the user " + final["user"]
assert final["entry"] == ["profconv"], final["entry"]
globs = [g for r in final["run"] for g in re.findall(r"(/tmp/debs/\S+\.deb)", r)]
assert globs, "the last stage installs no package from /tmp/debs"
assert any(c.startswith("--from=build /out/ /tmp/debs/") for c in final["copy"]), final["copy"]
with open(t + "/build.sh", "w") as f:
    for r in build["run"]:
        f.write(r.replace("/src/", "$TOP/").replace("/out", "$OUT") + "\n")
with open(t + "/globs", "w") as f:
    f.write("\n".join(g.replace("/tmp/debs/", "") for g in globs) + "\n")
PY
# the build stage, here
TOP="$top" OUT="$T/out" BUILD_DIR="$B" sh -eu "$T/build.sh" >"$T/build.log" 2>&1 ||
	fail "the Dockerfile's build steps failed:
$(tail -n 30 "$T/build.log")"
grep -q "^profconv [0-9]" "$T/build.log" || fail "the packaged profconv --version printed nothing"
while read -r g; do
	n=$(cd "$T/out" && ls $g 2>/dev/null | wc -l)
	[ "$n" = 1 ] || fail "the last stage installs /tmp/debs/$g: $n files match in $(ls "$T/out")"
done <"$T/globs"
mkdir "$T/root"
dpkg-deb -x "$T/out"/profconv_*.deb "$T/root" || fail "dpkg-deb -x"
"$T/root/usr/bin/profconv" -q --no-symbols "$here/fixtures/perf/y_fp.data" -o "$T/p.json" ||
	fail "the packaged profconv does not convert y_fp.data"
echo "container: build steps ran; $(ls "$T/out" | tr '\n' ' ')"
exit 0
