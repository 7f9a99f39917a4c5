#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# readme_test.sh - the shell examples of README.md run, as written, against
# the built command, in a scratch directory holding the files they name.
# usage: readme_test.sh PROFCONV
#
# The convention (README.md says it too):
#   - every ```sh block runs, one line at a time, with profconv on the PATH;
#     a line must exit 0, or the status its trailing "# exits N" comment says;
#   - a block right after a <!-- test: skip (why) --> line is not run;
#   - a plain ``` block right after a ```sh block is the output shown: each
#     of its lines must appear in what the block printed (stdout + stderr),
#     unless a <!-- test: output varies (why) --> line comes before it.
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-readme.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin" "$T/work" "$T/work/traces"
ln -s "$(cd "$(dirname "$PC")" && pwd)/$(basename "$PC")" "$T/bin/profconv"
# the files the examples name
cp "$top/examples/workload.perf.data" "$T/work/perf.data"
cp "$here/fixtures/perf/y_multi_event.data" "$T/work/multi.data"
cp "$here/fixtures/perf/i_truncated_tail.data" "$T/work/truncated.data"
cp "$here/fixtures/perf/y_fp.data" "$T/work/traces/a.data"
cp "$here/fixtures/perf/y_clock.data" "$T/work/traces/b.data"
PATH="$T/bin:$PATH" python3 - "$top/README.md" "$T/work" <<'PY'
import re, subprocess, sys
readme, work = sys.argv[1], sys.argv[2]
lines = open(readme).read().split("\n")
i, ran, checked, skipped, fails = 0, 0, 0, 0, []
last_out, last_sh_end = None, -10
while i < len(lines):
    line = lines[i]
    if line == "```sh" or line == "```":
        kind = line
        j = i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        body = lines[i + 1:j]
        marker = lines[i - 1] if i > 0 else ""
        if kind == "```sh":
            if marker.startswith("<!-- test: skip"):
                skipped += 1
                last_out = None
            else:
                out = ""
                for cmd in body:
                    if not cmd.strip():
                        continue
                    m = re.search(r"\s+# exits (\d+)$", cmd)
                    want = int(m.group(1)) if m else 0
                    r = subprocess.run(cmd, shell=True, cwd=work, capture_output=True, text=True)
                    out += r.stdout + r.stderr
                    ran += 1
                    if r.returncode != want:
                        fails.append("README.md:%d: '%s' exited %d, expected %d:\n%s" %
                                     (i + 1, cmd, r.returncode, want, r.stderr[-2000:]))
                last_out = out
            last_sh_end = j
        else:
            # a plain block right after an sh block (a blank line, maybe a
            # marker, between them): the output shown
            if last_out is not None and i in (last_sh_end + 2, last_sh_end + 3):
                if marker.startswith("<!-- test: output varies"):
                    skipped += 1
                else:
                    got = set(last_out.split("\n"))
                    for k, want in enumerate(body):
                        if want not in got:
                            fails.append("README.md:%d: shown output line not printed: %s\n(printed:\n%s)" %
                                         (i + 2 + k, want, last_out[-2000:]))
                    checked += 1
            last_out = None
        i = j + 1
        continue
    i += 1
for f in fails:
    print("FAIL: readme: " + f, file=sys.stderr)
print("readme: %d commands run, %d outputs compared, %d blocks skipped" % (ran, checked, skipped))
sys.exit(1 if fails else 0)
PY
