#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench_cfi.sh - build bench_cfi.c against the tree's internal library and
# libdwarf, and run it on a few system binaries (default: libc, the dynamic
# loader, and profconv itself).  Figures: bench/README.md.
# usage: bench/bench_cfi.sh [ELF...]   environment: BUILD_DIR (default build), LOOKUPS
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
b=${BUILD_DIR:-$top/build}
[ -f "$b/libprofconv_internal.a" ] || { echo "build the tree first (cmake --build $b)"; exit 2; }
out=${TMPDIR:-/tmp}/bench_cfi.$$
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2046
cc -O2 -I"$top/src" -I"$top/include" -I/usr/include/libdwarf "$here/bench_cfi.c" \
	"$b/libprofconv_internal.a" -o "$out" \
	$(pkg-config --libs libarchive libzstd libcjson zlib 2>/dev/null || echo -larchive -lzstd -lcjson -lz) \
	-ldwarf -lpthread -ldl
[ $# -gt 0 ] || set -- /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$b/profconv"
echo "== bench_cfi  $(date -u '+%F %T') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "$@"; do
	"$out" "$f" "${LOOKUPS:-1000000}" 2>/dev/null
done
