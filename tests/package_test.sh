#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# package_test.sh - the Debian packages, from the build tree already built:
#
#   1. cpack -G DEB makes profconv, libprofconvN and libprofconv-dev (into a
#      scratch directory, not the build tree);
#   2. dpkg-deb -I: names, version (project(VERSION) in CMakeLists.txt, then
#      -1), sections, and Depends: every shared library the binary and the
#      library need (their DT_NEEDED) is provided by a package they depend
#      on (dpkg -S on this machine); -dev depends on the exact library;
#   3. dpkg-deb -c: the files each must hold (program, man page, bash and
#      zsh completions, LICENSE, CHANGELOG, copyright; the library; header,
#      .so link, pkg-config and CMake files) and nothing of the others;
#   4. dpkg-deb -x into a scratch root, then run the unpacked program (its
#      version, a conversion of tests/fixtures/perf/y_fp.data validated) and
#      build examples/convert.c against the unpacked -dev files through
#      pkg-config (the .pc is relocatable: PKG_CONFIG_PATH is enough) and
#      run it against the unpacked library (find_package(profconv) from a
#      relocated prefix is the install test's).
#
# usage: package_test.sh BUILD_DIR
set -u
fail() {
	echo "FAIL: package: $*" >&2
	exit 1
}
[ $# -eq 1 ] && [ -f "$1/CPackConfig.cmake" ] || {
	echo "usage: package_test.sh BUILD_DIR (configured, with CPackConfig.cmake)" >&2
	exit 2
}
B=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
for tool in cpack dpkg-deb dpkg pkg-config; do
	command -v $tool >/dev/null 2>&1 || fail "$tool is not installed"
done
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-package.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cache() { sed -n "s/^$1:[A-Z]*=//p" "$B/CMakeCache.txt" | head -n 1; }
VERSION=$(sed -n 's/^project(profconv VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
[ -n "$VERSION" ] || fail "no project(profconv VERSION ...) in CMakeLists.txt"
MAJOR=${VERSION%%.*}
LIBPKG=libprofconv$MAJOR

# --- 1. build the packages ----------------------------------------------
(cd "$B" && cpack -G DEB -B "$T/pkg") >"$T/cpack.log" 2>&1 || fail "cpack failed:
$(cat "$T/cpack.log")"
deb() { # deb NAME: the one package file of NAME
	set -- "$T/pkg/$1"_*.deb
	[ $# = 1 ] && [ -f "$1" ] || fail "expected one package $1, found: $(ls "$T/pkg")"
	echo "$1"
}
BIN=$(deb profconv) || exit 1
LIB=$(deb "$LIBPKG") || exit 1
DEV=$(deb libprofconv-dev) || exit 1
[ "$(ls "$T/pkg"/*.deb | wc -l)" = 3 ] || fail "more than three packages: $(ls "$T/pkg")"

# --- 2. metadata --------------------------------------------------------
field() { dpkg-deb -f "$1" "$2"; }
for d in "$BIN" "$LIB" "$DEV"; do
	[ "$(field "$d" Version)" = "$VERSION-1" ] || fail "$d: Version $(field "$d" Version), expected $VERSION-1"
	[ -n "$(field "$d" Description)" ] || fail "$d: no Description"
	dpkg-deb -I "$d" >/dev/null || fail "dpkg-deb -I $d"
done
[ "$(field "$BIN" Section)" = utils ] || fail "profconv: Section $(field "$BIN" Section)"
[ "$(field "$LIB" Section)" = libs ] || fail "$LIBPKG: Section $(field "$LIB" Section)"
field "$DEV" Depends | grep -q "$LIBPKG (= $VERSION-1)" ||
	fail "libprofconv-dev does not depend on $LIBPKG (= $VERSION-1): $(field "$DEV" Depends)"
# every DT_NEEDED of the program and the library, by the package providing it
# and of the libraries it loads with dlopen() when first needed (their
# sonames are strings in it: src/io/libarchive_dl.c, cli/cli_dlopen.c),
# which dpkg-shlibdeps cannot see
needed_pkgs() { # needed_pkgs ELF: the Debian packages of its DT_NEEDED and dlopen()ed libraries
	{
		objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }'
		grep -a -o -E 'lib(archive|microhttpd|capstone)\.so\.[0-9]+' "$1" | sort -u
	} | while read -r so; do
		path=$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
		[ -n "$path" ] || { echo "?$so"; continue; }
		real=$(readlink -f "$path")
		dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p' | grep . ||
			dpkg -S "$real" 2>/dev/null | sed -n '1s/:.*//p' | grep . || echo "?$so"
	done
}
check_depends() { # check_depends DEB ELF
	deps=$(field "$1" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//')
	[ -n "$deps" ] || fail "$(basename "$1"): no Depends"
	for p in $(needed_pkgs "$2"); do
		case $p in \?*) fail "$(basename "$2") needs ${p#?}, which no package provides here" ;; esac
		echo "$deps" | grep -qx "$p" || fail "$(basename "$1") lacks Depends on $p ($(basename "$2") links or loads a library of it): $(field "$1" Depends)"
	done
}

# --- 3. contents --------------------------------------------------------
contents() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's#^\./#/#' | grep -v '/$'; }
contents "$BIN" >"$T/bin.list"
contents "$LIB" >"$T/lib.list"
contents "$DEV" >"$T/dev.list"
has() { # has LIST PATH-REGEX WHAT
	grep -qx "$2" "$T/$1.list" || fail "$1 package lacks $3 ($2):
$(cat "$T/$1.list")"
}
has bin /usr/bin/profconv "the program"
has bin /usr/share/man/man1/profconv.1 "the man page"
has bin /usr/share/bash-completion/completions/profconv "the bash completion"
has bin /usr/share/zsh/vendor-completions/_profconv "the zsh completion"
has bin /usr/share/doc/profconv/LICENSE "the license"
has bin /usr/share/doc/profconv/copyright "the copyright file"
has bin /usr/share/doc/profconv/CHANGELOG.md "the changelog"
has lib "/usr/lib.*/libprofconv\.so\.$MAJOR" "the soname link"
has lib "/usr/lib.*/libprofconv\.so\.$VERSION" "the library"
has lib "/usr/share/doc/$LIBPKG/copyright" "the copyright file"
has dev /usr/include/profconv.h "the header"
has dev "/usr/lib.*/libprofconv\.so" "the link-time .so"
has dev "/usr/lib.*/pkgconfig/profconv\.pc" "the pkg-config file"
has dev "/usr/lib.*/cmake/profconv/profconvConfig\.cmake" "the CMake package"
has dev "/usr/lib.*/cmake/profconv/profconvTargets\.cmake" "the CMake targets"
has dev /usr/share/doc/libprofconv-dev/copyright "the copyright file"
grep -q 'include\|\.so$\|\.pc$\|cmake' "$T/bin.list" && fail "profconv holds development files: $(cat "$T/bin.list")"
grep -q '/bin/\|include\|\.pc$' "$T/lib.list" && fail "$LIBPKG holds more than the library: $(cat "$T/lib.list")"
grep -q '/bin/\|\.so\.' "$T/dev.list" && fail "libprofconv-dev holds the program or the library: $(cat "$T/dev.list")"
cmp -s "$top/LICENSE" /dev/null && fail "empty LICENSE"

# --- 4. unpack and run ----------------------------------------------------
R="$T/root"
for d in "$BIN" "$LIB" "$DEV"; do
	dpkg-deb -x "$d" "$R" || fail "dpkg-deb -x $d"
done
cmp -s "$R/usr/share/doc/profconv/LICENSE" "$top/LICENSE" || fail "the packaged LICENSE differs"
LIBSO=$(cd "$R" && ls usr/lib*/libprofconv.so.$VERSION usr/lib/*/libprofconv.so.$VERSION 2>/dev/null | head -n 1)
[ -n "$LIBSO" ] || fail "no unpacked libprofconv.so.$VERSION"
LIBDIR=$(dirname "$R/$LIBSO")
check_depends "$BIN" "$R/usr/bin/profconv"
check_depends "$LIB" "$R/$LIBSO"
P="$R/usr/bin/profconv"
"$P" --version | grep -q "^profconv $VERSION " || fail "unpacked profconv --version: $("$P" --version)"
FX="$here/fixtures/perf/y_fp.data"
"$P" -q --no-symbols "$FX" -o "$T/p.json" || fail "the unpacked profconv did not convert $FX"
"$P" validate "$T/p.json" | grep -q "601 samples" || fail "the unpacked profconv's output: $("$P" validate "$T/p.json")"

CC=$(cache CMAKE_C_COMPILER)
[ -n "$CC" ] || CC=cc
SAN=""
[ "$(cache PROFCONV_SANITIZE)" = ON ] && SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
PCDIR=$(dirname "$(find "$R" -name profconv.pc)")
cflags=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags profconv) || fail "pkg-config --cflags profconv"
libs=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --libs profconv) || fail "pkg-config --libs profconv"
found=""
for f in $cflags; do
	case $f in -I*) [ "$(cd "${f#-I}" 2>/dev/null && pwd -P)" = "$(cd "$R/usr/include" && pwd -P)" ] && found=1 ;; esac
done
[ -n "$found" ] || fail "pkg-config --cflags gives '$cflags': no -I names $R/usr/include"
# shellcheck disable=SC2086
$CC -O1 -Wall -Wextra -Werror $SAN $cflags -o "$T/convert-pc" "$top/examples/convert.c" $libs \
	>"$T/cc.log" 2>&1 || fail "building examples/convert.c with pkg-config failed:
$(cat "$T/cc.log")"
run_example() { # run_example EXE
	LD_LIBRARY_PATH="$LIBDIR" "$1" "$FX" "$T/ex.json" >"$T/ex.out" 2>&1 ||
		fail "$1 failed: $(cat "$T/ex.out")"
	grep -q "^total: 4 threads, 601 samples," "$T/ex.out" || fail "$1: $(cat "$T/ex.out")"
	# and it used the unpacked library, not another one
	LD_LIBRARY_PATH="$LIBDIR" ldd "$1" | grep -q "libprofconv.so.$MAJOR => $LIBDIR/" ||
		fail "$1 does not load $LIBDIR/libprofconv.so.$MAJOR: $(LD_LIBRARY_PATH="$LIBDIR" ldd "$1")"
}
run_example "$T/convert-pc"
# (find_package(profconv) from a relocated prefix: the install test builds
# examples/CMakeLists.txt that way; the packaged CMake files are those files)
[ -f "$PCDIR/../cmake/profconv/profconvConfig.cmake" ] || fail "no CMake package beside profconv.pc"
echo "package: $(basename "$BIN") $(basename "$LIB") $(basename "$DEV"): contents, depends, unpacked program and library checked"
exit 0
