#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# hermetic_check.sh - by hand: prove the test suite never looks at this
# host's symbol sources.  Runs ctest under strace with HOME set to an empty
# directory and lists every path a test process opened or stat'ed under
# /usr/lib/debug, $HOME/.debug, /tmp/perf-*.map, /proc/kallsyms or
# /sys/kernel/notes (the host searches in src/symbolicate/symbolicate.c),
# or the user's persistent symbol cache, $HOME/.cache/profconv.
# Any hit means a test depends on the host (exit 1).
# usage: bench/hermetic_check.sh [BUILD_DIR]   (default: build; needs strace)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$top/build}
command -v strace >/dev/null || { echo "hermetic_check: no strace" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-herm.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/home" "$T/tr"
HOME="$T/home" strace -f -qq -o "$T/tr/t" \
	-e trace=open,openat,stat,newfstatat,lstat,access,faccessat,faccessat2,statx \
	ctest --test-dir "$B" -j2 --output-on-failure >"$T/ctest.log" 2>&1 ||
	{ tail -30 "$T/ctest.log"; echo "hermetic_check: ctest failed with HOME empty" >&2; exit 1; }
grep -hoE '"(/usr/lib/debug[^"]*|'"$T"'/home/\.debug[^"]*|'"$T"'/home/\.cache/profconv[^"]*|/tmp/perf-[0-9]+\.map|/proc/kallsyms|/sys/kernel/notes)"' \
	"$T"/tr/t* | sort | uniq -c >"$T/hits" || true
if [ -s "$T/hits" ]; then
	echo "hermetic_check: tests looked at host symbol sources:" >&2
	cat "$T/hits" >&2
	exit 1
fi
echo "hermetic_check: $(grep -c 'Test *#' "$T/ctest.log") tests, none opened a host symbol source"
