#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# license_test.sh - LICENSE is the BSD-2-Clause text, and every tracked
# source file (C and C++, headers, CMake, shell, Python, YAML, Makefiles,
# Dockerfile, completions, and anything else starting with #!) says
# "SPDX-License-Identifier: BSD-2-Clause" in its first lines: line 1, or
# line 2 after a shebang (or a zsh #compdef line).  The list comes from git
# at test time, so files added later are checked too.  Binary fixtures,
# fuzz corpora, JSON and Markdown are not source files.
#
# usage: license_test.sh SOURCE_DIR
set -u
fail() {
	echo "FAIL: license: $*" >&2
	exit 1
}
[ $# -eq 1 ] || {
	echo "usage: license_test.sh SOURCE_DIR" >&2
	exit 2
}
S=$1
TAG="SPDX-License-Identifier: BSD-2-Clause"
[ -f "$S/LICENSE" ] || fail "no LICENSE at the top of the tree"
grep -q '^BSD 2-Clause License$' "$S/LICENSE" && grep -q 'Copyright (c) 2026, the profconv authors' "$S/LICENSE" &&
	grep -q 'THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"' "$S/LICENSE" ||
	fail "LICENSE is not the BSD-2-Clause text with 'the profconv authors'"
command -v git >/dev/null 2>&1 && git -C "$S" rev-parse --git-dir >/dev/null 2>&1 || {
	echo "license: not a git checkout; SPDX lines not checked"
	exit 77
}
# tracked files plus new ones not yet committed (not the ignored ones)
git -C "$S" ls-files --cached --others --exclude-standard -z | python3 -c '
import os, sys
src, tag = sys.argv[1], sys.argv[2]
names = [n for n in sys.stdin.buffer.read().decode().split("\0") if n]
exts = {"c", "h", "cpp", "sh", "py", "cmake", "yml", "yaml", "bash", "in"}
plain = {"CMakeLists.txt", "Makefile", "Dockerfile", "_profconv"}
skip = ("tests/fuzz/corpus/",)
bad, n = [], 0
for name in names:
    path = os.path.join(src, name)
    if name.startswith(skip) or not os.path.isfile(path):
        continue
    base = os.path.basename(name)
    ext = base.rsplit(".", 1)[1] if "." in base else ""
    with open(path, "rb") as f:
        head = f.read(4096)
    if not (ext in exts or base in plain or head.startswith(b"#!")):
        continue
    lines = head.decode("utf-8", "replace").split("\n")
    first = 1 if lines[0].startswith(("#!", "#compdef")) else 0
    n += 1
    if tag not in lines[first]:
        bad.append(name)
print("license: %d source files checked" % n)
if bad:
    print("no %r on the first line (after a shebang):\n  %s" % (tag, "\n  ".join(bad)), file=sys.stderr)
    sys.exit(1)
' "$S" "$TAG" || fail "source files without the SPDX line"
exit 0
