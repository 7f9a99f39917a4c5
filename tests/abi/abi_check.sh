#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# abi_check.sh - fail when libprofconv's ABI changes without the version
# changing.
#
# The ABI recorded in the tree for one version (tests/abi/profconv.abi.txt
# and profconv.abi.xml) is compared with the one of the build:
#   - the exported symbols with their version nodes (objdump -T of the
#     shared library): all versioned, and the same set as the functions
#     include/profconv.h declares;
#   - the declarations of profconv.h (every PROFCONV_API function and
#     callback typedef, whitespace collapsed), each function with a
#     thread-safety statement ([any thread], [ctx], [profile]) in its comment;
#   - the layouts of every public struct, enum and callback type: abidw
#     (abigail-tools) of tests/abi/abi_probe.c built from the header alone,
#     compared with abidiff.
# Same ABI: pass.  A different ABI with the version still the recorded one:
# fail ("bump the version").  A different ABI under a new version: fail
# until it is recorded (--update), so the record is always the ABI of the
# version the tree says.
#
# usage: abi_check.sh LIBPROFCONV.so INCLUDE_DIR [--update]
#   INCLUDE_DIR holds the profconv.h to check (tests pass a modified copy).
#   --update records the current ABI (do it when the version was bumped).
set -u

fail() {
	echo "FAIL: abi_check: $*" >&2
	exit 1
}

[ $# -ge 2 ] || {
	echo "usage: abi_check.sh LIBPROFCONV.so INCLUDE_DIR [--update]" >&2
	exit 2
}
LIB=$1
INC=$(cd "$2" && pwd) || fail "no directory $2"
UPDATE=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
H="$INC/profconv.h"
[ -f "$LIB" ] || fail "no library $LIB"
[ -f "$H" ] || fail "no header $H"
for t in abidw abidiff objdump; do
	command -v $t >/dev/null 2>&1 ||
		fail "$t not found (abidw/abidiff: Debian package abigail-tools, objdump: binutils; scripts/setup.sh installs them)"
done
CC=${CC:-cc}
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-abi.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$T"' EXIT

version=$(sed -n 's/^#define PROFCONV_VERSION_STRING "\(.*\)"$/\1/p' "$H")
[ -n "$version" ] || fail "$H: no PROFCONV_VERSION_STRING"

# --- the text part: symbols and declarations ---------------------------------
python3 - "$H" "$LIB" >"$T/now.txt" <<'PY' || exit 1
import re, subprocess, sys
h, lib = sys.argv[1], sys.argv[2]
text = open(h).read()
# comments out, then one line per declaration
code = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
code = re.sub(r"^\s*#.*$", " ", code, flags=re.M)
decls = []
for m in re.finditer(r"\bPROFCONV_API\b[^;{]*;", code):
    decls.append(" ".join(m.group(0).split()))
for m in re.finditer(r"\btypedef\b[^;{]*;", code):
    decls.append(" ".join(m.group(0).split()))
declared = sorted(set(re.findall(r"\b(profconv_[a-z0-9_]+)\s*\(", " ".join(d for d in decls if d.startswith("PROFCONV_API")))))
out = subprocess.run(["objdump", "-T", lib], capture_output=True, text=True, check=True).stdout
syms, bad = [], []
for line in out.splitlines():
    f = line.split()
    # ADDR FLAGS... SECTION SIZE [VERSION] NAME
    if len(f) < 5 or not re.match(r"^[0-9a-f]{8,}$", f[0]) or "*UND*" in f:
        continue
    name, ver = f[-1], f[-2]
    if "*ABS*" in f and name == ver:
        continue  # the version node itself
    if not ver.startswith("PROFCONV_"):
        bad.append("%s exported without a version node (%s)" % (name, ver))
        continue
    syms.append("%s %s" % (ver, name))
# each function has a thread-safety statement in the comment before it
prev = 0
for m in re.finditer(r"^PROFCONV_API[^;]*;", text, re.M):
    if not re.search(r"\[(any thread|ctx|profile|ctx\+profile)\]", text[prev:m.start()]):
        bad.append("%s: no thread-safety statement ([any thread], [ctx], [profile]) in profconv.h" %
                   re.search(r"(profconv_[a-z0-9_]+)\(", m.group(0)).group(1))
    prev = m.end()
names = sorted(s.split()[1] for s in syms)
for n in sorted(set(names) - set(declared)):
    bad.append("%s exported but not declared in profconv.h" % n)
for n in sorted(set(declared) - set(names)):
    bad.append("%s declared in profconv.h but not exported" % n)
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
for s in sorted(syms):
    print("symbol " + s)
for d in decls:
    print("decl " + d)
PY

# every public type is in the probe
for ty in $(sed -n 's/^\(struct\|enum\) \(profconv_[a-z_]*\) {.*/\2/p; s/^typedef .* \(profconv_[a-z_]*_fn\)(.*/\1/p' "$H"); do
	grep -q "\b$ty\b" "$here/abi_probe.c" || fail "$ty (profconv.h) is missing from tests/abi/abi_probe.c"
done

# --- the layouts --------------------------------------------------------------
$CC -g -O0 -shared -fPIC -I"$INC" -o "$T/probe.so" "$here/abi_probe.c" 2>"$T/cc.log" ||
	fail "building the probe failed: $(cat "$T/cc.log")"
abidw --no-corpus-path --out-file "$T/now.xml" "$T/probe.so" 2>"$T/abidw.log" ||
	fail "abidw failed: $(cat "$T/abidw.log")"

if [ "$UPDATE" = --update ]; then
	{ echo "version $version"; cat "$T/now.txt"; } >"$here/profconv.abi.txt"
	cp "$T/now.xml" "$here/profconv.abi.xml"
	echo "abi_check: recorded the ABI of $version in $here"
	exit 0
fi

[ -f "$here/profconv.abi.txt" ] && [ -f "$here/profconv.abi.xml" ] ||
	fail "no recorded ABI in $here: run abi_check.sh $LIB $2 --update"
recorded=$(sed -n '1s/^version //p' "$here/profconv.abi.txt")
changed=""
sed 1d "$here/profconv.abi.txt" >"$T/was.txt"
if ! diff -u "$T/was.txt" "$T/now.txt" >"$T/text.diff"; then
	changed="symbols or declarations"
fi
abidiff --no-show-locs "$here/profconv.abi.xml" "$T/now.xml" >"$T/layout.diff" 2>&1
rc=$?
# abidiff: bit 0 an error, bit 1 a usage error, bits 2/3 an ABI change
[ $((rc & 3)) = 0 ] || fail "abidiff failed ($rc): $(cat "$T/layout.diff")"
[ "$rc" = 0 ] || changed="${changed:+$changed and }type layouts"

if [ -z "$changed" ]; then
	echo "abi_check: the ABI of $version is the recorded one ($(grep -c '^symbol ' "$T/now.txt") symbols)"
	exit 0
fi
{
	cat "$T/text.diff"
	[ "$rc" = 0 ] || cat "$T/layout.diff"
} >&2
if [ "$version" = "$recorded" ]; then
	fail "the ABI changed ($changed) but the version is still $version: bump the version (CMakeLists.txt project(), include/profconv.h), then record the new ABI with tests/abi/abi_check.sh LIB include --update"
fi
fail "the ABI changed ($changed) with the version ($recorded -> $version): record it with tests/abi/abi_check.sh LIB include --update"
