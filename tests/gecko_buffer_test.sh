#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# gecko_buffer_test.sh PROFCONV - end to end: `profconv gecko-dump` packs the
# ESR 153 scrape in tests/fixtures/gecko-buffer, profconv converts the dump,
# the output validates and is byte-identical across runs, and the command's
# usage errors are errors.
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures/gecko-buffer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" gecko-dump --from-scrape "$fx/esr153-run2" -o "$tmp/a.pgkb" \
	--process-start-ns 1059014505695 --start-time-ms 1795311669769.112 --interval-ms 1 \
	|| fail "gecko-dump"
head -c 8 "$tmp/a.pgkb" | od -c | grep -q 'P   G   K   B   U   F   1' || fail "magic"
"$bin" info "$tmp/a.pgkb" > "$tmp/info.txt" 2>/dev/null || fail "info"
grep -q '^buffer: 4158687 bytes, 52059 blocks$' "$tmp/info.txt" || fail "blocks: $(cat "$tmp/info.txt")"
grep -q '^samples: 10015, markers: 10725$' "$tmp/info.txt" || fail "counts"
"$bin" -q "$tmp/a.pgkb" -o "$tmp/a.json" 2>/dev/null || fail "convert"
"$bin" -q "$tmp/a.pgkb" -o "$tmp/b.json" 2>/dev/null || fail "convert again"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "output not deterministic"
"$bin" validate "$tmp/a.json" > "$tmp/v.txt" 2>/dev/null || fail "validate: $(cat "$tmp/v.txt")"
grep -q '3 threads, 10015 samples' "$tmp/v.txt" || fail "validate summary: $(cat "$tmp/v.txt")"
# strict: the scrape lacks marker field lists, so warnings are fatal
if "$bin" -q --strict "$tmp/a.pgkb" -o "$tmp/c.json" 2>/dev/null; then fail "strict passed"; fi
# usage errors
if "$bin" gecko-dump -o "$tmp/x.pgkb" 2>/dev/null; then fail "no --from-scrape accepted"; fi
if "$bin" gecko-dump --from-scrape "$tmp/none" -o "$tmp/x.pgkb" 2>/dev/null; then fail "missing scrape accepted"; fi
[ ! -e "$tmp/x.pgkb" ] || fail "partial output left"
if "$bin" gecko-dump --from-scrape "$fx/esr153-run2" -o "$tmp/x.pgkb" --process-start-ns abc 2>/dev/null; then
	fail "bad number accepted"
fi
echo "gecko-buffer: ok"
