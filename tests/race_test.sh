#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# race_test.sh - the libdwarf race reproducer: RACE_RUNS (default 10)
# symbolicating conversions of a truncated real recording whose two
# libraries are symbolicated from DWARF on two threads; every run must
# succeed (under ASan in the sanitizer build) and give the same bytes.
# usage: race_test.sh PROFCONV
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
R="$here/fixtures/race"
N=${RACE_RUNS:-10}
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-race.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: race: $*" >&2
	exit 1
}
PROFCONV_HOST_SYMBOLS=no "$PC" -q -v --symbol-dir "$R" "$R/y_race_truncated.data" -o "$T/ref.json" 2>"$T/notes" ||
	fail "first run: $(cat "$T/notes")"
grep -q "symbols for liba.so: $R/liba.so (elf+dwarf)" "$T/notes" || fail "liba.so not from DWARF: $(cat "$T/notes")"
grep -q "symbols for libb.so: $R/libb.so (elf+dwarf)" "$T/notes" || fail "libb.so not from DWARF: $(cat "$T/notes")"
i=1
while [ "$i" -le "$N" ]; do
	PROFCONV_HOST_SYMBOLS=no "$PC" -q --symbol-dir "$R" "$R/y_race_truncated.data" -o "$T/run.json" 2>"$T/err" ||
		fail "run $i: $(cat "$T/err")"
	cmp -s "$T/ref.json" "$T/run.json" || fail "run $i gave other bytes"
	i=$((i + 1))
done
echo "race: $N runs, all identical"
