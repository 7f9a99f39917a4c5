#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# demo.sh - the README's first command: install what is missing, build, and
# convert the bundled example perf.data into a Firefox Profiler profile.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$top/build}
export BUILD_DIR
"$top/scripts/setup.sh"

in="$top/examples/workload.perf.data"
out="$BUILD_DIR/example.json"
echo
"$BUILD_DIR/profconv" info "$in"
echo
"$BUILD_DIR/profconv" "$in" -o "$out"
"$BUILD_DIR/profconv" validate "$out"
echo
echo "Result: $out"
echo "Open it at https://profiler.firefox.com/ (\"Load a profile from file\")."
