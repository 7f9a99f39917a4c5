#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# race_loop.sh - the libdwarf race reproducer at full length, by hand: 100
# symbolicating conversions of tests/fixtures/race/y_race_truncated.data with
# the sanitizer build (build-asan, made by scripts/test.sh), as in the
# original report (a heap-buffer-overflow in dwarf_srcfiles 3 times in 40).
# usage: bench/race_loop.sh [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PC=${PROFCONV:-$top/build-asan/profconv}
[ -x "$PC" ] || { echo "race_loop: no $PC (run sh scripts/test.sh first, or set PROFCONV)" >&2; exit 1; }
RACE_RUNS=${1:-100} exec sh "$top/tests/race_test.sh" "$PC"
