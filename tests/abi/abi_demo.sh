#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# abi_demo.sh - the ABI check catches what it is for: a member added to a
# public struct without a version bump fails it; the same change under a
# new version fails until the new ABI is recorded; the unchanged header
# passes.  Runs abi_check.sh on modified copies of include/.
#
# usage: abi_demo.sh LIBPROFCONV.so
set -u

fail() {
	echo "FAIL: abi_demo: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: abi_demo.sh LIBPROFCONV.so" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
CHECK="$here/abi_check.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-abidemo.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$T"' EXIT

copy() { # copy DIR: a copy of include/ in T/DIR
	mkdir -p "$T/$1" && cp "$top/include/profconv.h" "$T/$1/" || fail "cannot copy the header"
}

# the header as it is: passes
copy same
sh "$CHECK" "$1" "$T/same" >"$T/same.log" 2>&1 || fail "the unchanged header fails: $(cat "$T/same.log")"

# a member appended to struct profconv_thread, the version unchanged
copy added
python3 - "$T/added/profconv.h" <<'PY' || fail "cannot edit the copy"
import sys
p = sys.argv[1]
s = open(p).read()
old = "\tsize_t samples, markers;\n};"
assert s.count(old) == 1
open(p, "w").write(s.replace(old, "\tsize_t samples, markers;\n\tint added_member;\n};"))
PY
sh "$CHECK" "$1" "$T/added" >"$T/added.log" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a member added without a version bump: exit $rc, expected 1: $(cat "$T/added.log")"
grep -q "but the version is still" "$T/added.log" || fail "no 'bump the version' message: $(cat "$T/added.log")"
grep -q "profconv_thread" "$T/added.log" || fail "the report does not name the struct: $(cat "$T/added.log")"

# the same change with the version bumped: fails until recorded
copy bumped
cp "$T/added/profconv.h" "$T/bumped/profconv.h"
sed -i 's/^#define PROFCONV_VERSION_STRING ".*"$/#define PROFCONV_VERSION_STRING "99.0.0"/' "$T/bumped/profconv.h"
sh "$CHECK" "$1" "$T/bumped" >"$T/bumped.log" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a bumped version without a recorded ABI: exit $rc, expected 1"
grep -q "record it with" "$T/bumped.log" || fail "no 'record it' message: $(cat "$T/bumped.log")"

# a function's declaration changed (a parameter's type), version unchanged
copy decl
sed -i 's/^PROFCONV_API void profconv_set_strict(struct profconv_ctx \*ctx, int strict);/PROFCONV_API void profconv_set_strict(struct profconv_ctx *ctx, long strict);/' "$T/decl/profconv.h"
! cmp -s "$T/decl/profconv.h" "$top/include/profconv.h" || fail "the declaration edit did not apply"
sh "$CHECK" "$1" "$T/decl" >"$T/decl.log" 2>&1
[ $? = 1 ] && grep -q "but the version is still" "$T/decl.log" ||
	fail "a changed declaration passes: $(cat "$T/decl.log")"
echo "abi_demo: an added member and a changed declaration fail the check; the header as it is passes"
