#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# setup.sh - shared by demo.sh and test.sh: make sure the Debian packages the
# build needs are installed, then configure and build into $BUILD_DIR.
#
# As root, missing packages are installed with apt-get; otherwise the one
# apt-get line to run is printed and the script stops.
set -eu

PKGS="build-essential cmake ninja-build pkg-config libarchive-dev libzstd-dev libcjson-dev zlib1g-dev libdwarf-dev uthash-dev libmicrohttpd-dev libcapstone-dev python3 python3-yaml zstd xz-utils bzip2 zsh dpkg-dev file abigail-tools ${EXTRA_PKGS:-}"
# Tests also use perf-free tools only (zsh: the zsh completion's test;
# abigail-tools' abidw and abidiff: the ABI check, tests/abi/); the sanitizer
# build uses gcc's runtimes.  cpack's Debian packages need dpkg-dev
# (dpkg-shlibdeps) and file, which a slim image lacks.

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "setup: installing:$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >&2
	else
		echo "setup: missing Debian packages. Run:" >&2
		echo "  sudo apt-get install -y$missing" >&2
		exit 1
	fi
fi

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$top/build}
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
GEN=""
command -v ninja >/dev/null 2>&1 && GEN="-G Ninja"
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
	# shellcheck disable=SC2086
	cmake -S "$top" -B "$BUILD_DIR" $GEN -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${CMAKE_ARGS:-} >&2
fi
cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
