#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test.sh - the README's second command (and what CI runs): install what is
# missing, build, and run the whole test suite twice: once in a normal build
# and once with AddressSanitizer + UndefinedBehaviorSanitizer.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

echo "== build and test (RelWithDebInfo, warnings as errors)"
BUILD_DIR=${BUILD_DIR:-$top/build} EXTRA_PKGS=clang CMAKE_ARGS="-DPROFCONV_WERROR=ON ${CMAKE_ARGS:-}" "$top/scripts/setup.sh"
ctest --test-dir "${BUILD_DIR:-$top/build}" --output-on-failure -j "$(nproc)"

echo "== build and test (ASan + UBSan)"
BUILD_DIR="$top/build-asan" BUILD_TYPE=Debug CMAKE_ARGS="-DPROFCONV_SANITIZE=ON -DPROFCONV_WERROR=ON" "$top/scripts/setup.sh"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir "$top/build-asan" --output-on-failure -j "$(nproc)"

# A user's or a distribution's plain build: Release, no -Werror, with each
# compiler (it must build; the tests above cover behaviour).
for cc in gcc clang; do
	echo "== plain Release build with $cc"
	rm -rf "$top/build-release-$cc"
	CC=$cc cmake -S "$top" -B "$top/build-release-$cc" -DCMAKE_BUILD_TYPE=Release \
		-DPROFCONV_BUILD_TESTS=OFF >/dev/null
	cmake --build "$top/build-release-$cc" -j "$(nproc)" >/dev/null
	echo "   ok"
done
