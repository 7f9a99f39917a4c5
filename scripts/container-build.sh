#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# container-build.sh - the build steps of the Dockerfile, which runs this
# script and no other build command; tests/container_test.sh runs it outside
# Docker, so the two cannot drift apart.
#
#   1. scripts/setup.sh, the README's set-up: the Debian packages the build
#      needs (installed when run as root), then a Release build without the
#      tests into $BUILD_DIR (an existing configured build is reused as is);
#   2. cpack: the Debian packages profconv, libprofconvN, libprofconv-dev
#      into OUTDIR, which the image's last stage installs with apt-get (so
#      apt brings exactly the runtime libraries they depend on);
#   3. the packaged program runs (--version, unpacked into a scratch dir).
#
# usage: container-build.sh OUTDIR
#   BUILD_DIR  the build tree (default: build-container in the source tree)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || {
	echo "usage: container-build.sh OUTDIR" >&2
	exit 2
}
OUT=$1
BUILD_DIR=${BUILD_DIR:-$top/build-container}
BUILD_DIR=$BUILD_DIR BUILD_TYPE=Release CMAKE_ARGS="-DPROFCONV_BUILD_TESTS=OFF ${CMAKE_ARGS:-}" \
	sh "$top/scripts/setup.sh"
mkdir -p "$OUT"
rm -rf "$OUT/cpack"
(cd "$BUILD_DIR" && cpack -G DEB -B "$OUT/cpack" >&2)
mv "$OUT"/cpack/*.deb "$OUT"/
rm -rf "$OUT/cpack" "$OUT/check"
dpkg-deb -x "$OUT"/profconv_*.deb "$OUT/check"
"$OUT/check/usr/bin/profconv" --version
rm -rf "$OUT/check"
