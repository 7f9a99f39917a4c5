#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# install_test.sh - the installed profconv works for a program outside the
# tree.  Installs BUILD_DIR into a temporary prefix (cmake --install), then
# builds examples/convert.c against that copy twice:
#
#   1. examples/Makefile, through pkg-config (PKG_CONFIG_PATH = the
#      installed profconv.pc's directory);
#   2. examples/CMakeLists.txt, through find_package(profconv)
#      (CMAKE_PREFIX_PATH = the prefix);
#
# runs each on tests/fixtures/perf/y_fp.data (LD_LIBRARY_PATH = the
# installed library's directory), checks the sample count perf script gives
# (601) and validates the JSON with the installed profconv.
#
# usage: install_test.sh BUILD_DIR
# A build configured with PROFCONV_SANITIZE=ON installs a sanitized
# library, so the examples are then built with the same -fsanitize flags.
set -u

fail() {
	echo "FAIL: install_test: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: install_test.sh BUILD_DIR" >&2
	exit 2
}
[ -f "$1/CMakeCache.txt" ] || fail "$1 is not a configured build directory (no CMakeCache.txt)"
B=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
FX="$here/fixtures/perf/y_fp.data"
WANT_SAMPLES=601 # tests/fixtures/perf/README.md: y_fp total
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-install.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$T"' EXIT
P="$T/prefix"

cache() { # cache VAR: a value from the build's CMakeCache.txt
	sed -n "s/^$1:[A-Z]*=//p" "$B/CMakeCache.txt" | head -n 1
}

# --- install ---------------------------------------------------------------
cmake --install "$B" --prefix "$P" >"$T/install.log" 2>&1 ||
	fail "cmake --install $B --prefix $P failed:
$(cat "$T/install.log")"

same_file() { # same_file A B: both paths name one file (POSIX sh has no -ef)
	[ -e "$1" ] && [ -e "$2" ] &&
		[ "$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")" = \
			"$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")" ]
}

one() { # one WHAT PATTERN: the single installed file matching PATTERN
	n=$(find "$P" -name "$2" ! -type d | wc -l)
	[ "$n" = 1 ] || fail "expected one installed $1 ($2), found $n under $P:
$(cd "$P" && find . | sort)"
	find "$P" -name "$2" ! -type d
}
HDR=$(one header profconv.h) || exit 1
LIB=$(one "shared library" libprofconv.so) || exit 1
PC=$(one "pkg-config file" profconv.pc) || exit 1
one "CMake package config" profconvConfig.cmake >/dev/null || exit 1
BIN="$P/bin/profconv" # (the bash completion is a file named profconv too)
[ -f "$BIN" ] || fail "no program $BIN:
$(cd "$P" && find . | sort)"
one "man page" profconv.1 >/dev/null || exit 1
same_file "$HDR" "$P/include/profconv.h" || fail "header installed as $HDR, not $P/include/profconv.h"
[ -x "$BIN" ] || fail "$BIN is not executable"
LIBDIR=$(dirname "$LIB")

# Only the public API is exported from the shared library.
if command -v nm >/dev/null 2>&1; then
	# (an "A" symbol PROFCONV_0 is the version node of the exported symbols)
	extra=$(nm -D --defined-only "$LIB" | awk '!($2 == "A" && $3 ~ /^PROFCONV_/) { print $3 }' |
		grep -v '^profconv_')
	[ -z "$extra" ] || fail "$LIB exports non-API symbols: $extra"
fi

CC=$(cache CMAKE_C_COMPILER)
[ -n "$CC" ] || CC=cc
SAN=""
[ "$(cache PROFCONV_SANITIZE)" = ON ] && SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

check_run() { # check_run HOW EXE: run EXE on the fixture, check its output
	how=$1
	exe=$2
	LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$exe" "$FX" "$T/$how.json" >"$T/$how.out" 2>"$T/$how.err" ||
		fail "$how: '$exe $FX $T/$how.json' failed:
$(cat "$T/$how.out" "$T/$how.err")"
	grep -q "^total: 4 threads, $WANT_SAMPLES samples," "$T/$how.out" ||
		fail "$how: expected 'total: 4 threads, $WANT_SAMPLES samples, ...', got:
$(cat "$T/$how.out")"
	LD_LIBRARY_PATH="$LIBDIR" "$BIN" validate "$T/$how.json" >"$T/$how.val" 2>&1 ||
		fail "$how: the written profile does not validate:
$(cat "$T/$how.val")"
	echo "ok: $how: $(grep '^total:' "$T/$how.out")"
}

# --- 1. pkg-config + examples/Makefile --------------------------------------
PCDIR=$(dirname "$PC")
cflags=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags profconv 2>&1) ||
	fail "pkg-config --cflags profconv failed (PKG_CONFIG_PATH=$PCDIR): $cflags"
libs=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --libs profconv 2>&1) ||
	fail "pkg-config --libs profconv failed (PKG_CONFIG_PATH=$PCDIR): $libs"
# The flags must lead to the installed copy, wherever --prefix put it.
found=""
for f in $cflags; do
	case "$f" in -I*) same_file "${f#-I}/profconv.h" "$HDR" && found=1 ;; esac
done
[ -n "$found" ] || fail "pkg-config --cflags profconv gives '$cflags': no -I names the installed $HDR.
profconv.pc says:
$(cat "$PC")"
found=""
for f in $libs; do
	case "$f" in -L*) same_file "${f#-L}/libprofconv.so" "$LIB" && found=1 ;; esac
done
[ -n "$found" ] || fail "pkg-config --libs profconv gives '$libs': no -L names $LIBDIR"
# The shared library's dependencies are private: a program that links it
# needs none of them (Requires.private, Libs.private; libdwarf has no .pc in
# Debian), and the CMake package's target carries no link interface.
req=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --print-requires profconv 2>&1)
[ -z "$req" ] || fail "profconv.pc has public Requires: $req"
req=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --print-requires-private profconv 2>&1 | tr '\n' ' ')
[ "$req" = "libarchive libzstd libcjson zlib " ] ||
	fail "profconv.pc Requires.private: '$req', expected 'libarchive libzstd libcjson zlib '"
! grep -q "INTERFACE_LINK_LIBRARIES" "$(dirname "$(one "CMake targets" profconvTargets.cmake)")"/profconvTargets*.cmake ||
	fail "the CMake package's target exports link dependencies"

mkdir "$T/mk" || fail "cannot create $T/mk"
cp "$top/examples/convert.c" "$top/examples/Makefile" "$T/mk/" || fail "cannot copy the example"
make -C "$T/mk" PKG_CONFIG_PATH="$PCDIR" CC="$CC" CFLAGS="-O2 -g -Wall -Wextra -Werror $SAN" \
	LDFLAGS="$SAN" >"$T/mk.log" 2>&1 || fail "make (pkg-config) failed:
$(cat "$T/mk.log")"
check_run pkg-config "$T/mk/convert"

# --- 2. CMake find_package + examples/CMakeLists.txt ------------------------
cmake -S "$top/examples" -B "$T/cm" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC" \
	-DCMAKE_C_FLAGS="-Wall -Wextra -Werror $SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" \
	>"$T/cm.log" 2>&1 || fail "cmake configure (find_package) failed:
$(cat "$T/cm.log")"
cmake --build "$T/cm" >>"$T/cm.log" 2>&1 || fail "cmake build (find_package) failed:
$(cat "$T/cm.log")"
check_run find_package "$T/cm/convert"
exit 0
