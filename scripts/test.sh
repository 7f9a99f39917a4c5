#!/bin/sh
# test.sh - the README's second command (and what CI runs): install what is
# missing, build, and run the whole test suite twice: once in a normal build
# and once with AddressSanitizer + UndefinedBehaviorSanitizer.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

echo "== build and test (RelWithDebInfo)"
BUILD_DIR=${BUILD_DIR:-$top/build} "$top/scripts/setup.sh"
ctest --test-dir "${BUILD_DIR:-$top/build}" --output-on-failure -j "$(nproc)"

echo "== build and test (ASan + UBSan)"
BUILD_DIR="$top/build-asan" BUILD_TYPE=Debug CMAKE_ARGS="-DPROFCONV_SANITIZE=ON" "$top/scripts/setup.sh"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir "$top/build-asan" --output-on-failure -j "$(nproc)"
