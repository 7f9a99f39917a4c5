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
# usage: license_test.sh SOURCE_DIR [--fix]
# --fix adds the line where it is missing (after a merge brings new files):
# a C comment first in C and C++ files, a # comment elsewhere, after the
# shebang; the sources of committed fixture binaries (tests/fixtures/) get
# it joined to their first line, so their line numbers stay those the
# binaries' debug info records.
set -u
fail() {
	echo "FAIL: license: $*" >&2
	exit 1
}
[ $# -eq 1 ] || { [ $# -eq 2 ] && [ "$2" = --fix ]; } || {
	echo "usage: license_test.sh SOURCE_DIR [--fix]" >&2
	exit 2
}
S=$1
FIX=${2:-}
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
src, tag, fix = sys.argv[1], sys.argv[2], sys.argv[3] == "--fix"
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
        if fix:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            c = ext in ("c", "h", "cpp")
            if c and name.startswith("tests/fixtures/"):
                lines[0] = ("/* " + tag if lines[0] == "/*" else "/* %s */ %s" % (tag, lines[0]))
            else:
                lines.insert(first, "/* %s */" % tag if c else "# " + tag)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
print("license: %d source files checked" % n)
if bad and fix:
    print("license: added the SPDX line to:\n  " + "\n  ".join(bad))
elif bad:
    print("no %r on the first line (after a shebang):\n  %s" % (tag, "\n  ".join(bad)), file=sys.stderr)
    sys.exit(1)
' "$S" "$TAG" "$FIX" || fail "source files without the SPDX line (license_test.sh SOURCE_DIR --fix adds it)"
exit 0
