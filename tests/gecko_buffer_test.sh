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

# damaged side files (they were taken silently: thread names and libs lost).
# A scrape copy whose .threads or .maps is replaced; the rest linked.
side() { # side SUFFIX: a scrape in $tmp/s whose SUFFIX file is written by the caller
	rm -rf "$tmp/s"
	mkdir "$tmp/s"
	for f in "$fx"/esr153-run2.*; do ln -s "$f" "$tmp/s/"; done
	rm -f "$tmp/s/esr153-run2$1" "$tmp/s/esr153-run2$1.xz"
}
dump() { "$bin" gecko-dump "$@" --from-scrape "$tmp/s/esr153-run2" -o "$tmp/d.pgkb" 2>"$tmp/err"; }
# empty: a counted warning, as a missing file; --strict: fatal
side .threads
: >"$tmp/s/esr153-run2.threads"
dump || fail "empty .threads: $(cat "$tmp/err")"
grep -q "warning: $tmp/s/esr153-run2.threads: empty; the dump goes without thread names" "$tmp/err" ||
	fail "empty .threads message: $(cat "$tmp/err")"
if dump --strict; then fail "empty .threads passed --strict"; fi
# garbage: no line is a thread: an error naming the file and line
side .threads
printf '\n# not a thread list\nfoo bar\n' >"$tmp/s/esr153-run2.threads"
rm -f "$tmp/d.pgkb"
if dump; then fail "a garbage .threads was accepted"; fi
grep -q "error: $tmp/s/esr153-run2.threads:2:1: expected 'TID NAME'" "$tmp/err" ||
	fail "garbage .threads message: $(cat "$tmp/err")"
[ ! -e "$tmp/d.pgkb" ] || fail "garbage .threads: a dump was written"
# binary: a NUL byte is an error at its offset
side .threads
printf '2068 firefox-esr\n20\00079 x\n' >"$tmp/s/esr153-run2.threads"
if dump; then fail "a .threads with a NUL byte was accepted"; fi
grep -q "error: $tmp/s/esr153-run2.threads: offset 0x13: a NUL byte" "$tmp/err" ||
	fail "NUL .threads message: $(cat "$tmp/err")"
# some lines unreadable: the rest kept, a counted warning naming the first
side .threads
{ cat "$fx/esr153-run2.threads"; echo "-5 negative"; echo "garbage"; } >"$tmp/s/esr153-run2.threads"
n=$(wc -l <"$tmp/s/esr153-run2.threads")
dump || fail "partly damaged .threads: $(cat "$tmp/err")"
grep -q "warning: $tmp/s/esr153-run2.threads:$((n - 1)):1: expected 'TID NAME' (a thread id, a space, its name); 2 of $n lines left out" "$tmp/err" ||
	fail "partly damaged .threads message: $(cat "$tmp/err")"
"$bin" info "$tmp/d.pgkb" 2>/dev/null | grep -q "^thread 2068 GeckoMain: " || fail "thread names lost"
if dump --strict; then fail "a partly damaged .threads passed --strict"; fi
# .maps: garbage is an error, an empty one a warning, a bad line counted
side .maps
printf 'hello world\n' >"$tmp/s/esr153-run2.maps"
if dump; then fail "a garbage .maps was accepted"; fi
grep -q "error: $tmp/s/esr153-run2.maps:1:1: expected a /proc/PID/maps line" "$tmp/err" ||
	fail "garbage .maps message: $(cat "$tmp/err")"
: >"$tmp/s/esr153-run2.maps"
dump || fail "empty .maps: $(cat "$tmp/err")"
grep -q "warning: $tmp/s/esr153-run2.maps: empty; the dump goes without libraries" "$tmp/err" ||
	fail "empty .maps message: $(cat "$tmp/err")"
{ xz -dc "$fx/esr153-run2.maps.xz"; echo "7f00-7e00 r-xp 0 0:0 0 /backwards"; } >"$tmp/s/esr153-run2.maps"
n=$(wc -l <"$tmp/s/esr153-run2.maps")
dump || fail "partly damaged .maps: $(cat "$tmp/err")"
grep -q "warning: $tmp/s/esr153-run2.maps:$n:1: expected a /proc/PID/maps line .*; 1 of $n lines left out" "$tmp/err" ||
	fail "partly damaged .maps message: $(cat "$tmp/err")"
# the dump onto one of the scrape's own files: refused before anything is
# written, by file identity (it replaced the file, exit 0)
side .threads
cp "$fx/esr153-run2.threads" "$tmp/s/esr153-run2.threads"
ln -s "$tmp/s/esr153-run2.threads" "$tmp/link"
for out in "$tmp/s/esr153-run2.threads" "$tmp/s/../s/esr153-run2.threads" "$tmp/link"; do
	rc=0
	"$bin" gecko-dump --from-scrape "$tmp/s/esr153-run2" -o "$out" 2>"$tmp/err" || rc=$?
	[ $rc = 2 ] || fail "-o $out (a scrape file): exit $rc"
	grep -q "is the scrape's file $tmp/s/esr153-run2.threads itself" "$tmp/err" ||
		fail "-o $out message: $(cat "$tmp/err")"
	cmp -s "$fx/esr153-run2.threads" "$tmp/s/esr153-run2.threads" || fail "-o $out replaced the scrape's file"
done
# a dump in which no thread has a sample or marker (chunk 0 holding one
# block, a lone ThreadId of the main thread: kind 18 in ESR 153): converting
# it says so, and --strict fails (it gave an empty profile, exit 0, even
# with --strict)
side .chunks
xz -dc "$fx/esr153-run2.chunks.xz" | python3 -c '
import struct, sys
d = sys.stdin.buffer.read()
h = bytearray(d[:56])
first = struct.unpack_from("<I", h)[0]
n = struct.unpack_from("<I", h, 24)[0]
buf = bytearray(d[56:56 + n])
buf[first:first + 10] = bytes([9, 18]) + struct.pack("<Q", 2068)
struct.pack_into("<II", h, 0, first, first + 10)
struct.pack_into("<I", h, 28, 1)
sys.stdout.buffer.write(bytes(h) + bytes(buf))
' >"$tmp/s/esr153-run2.chunks"
dump || fail "thread-less dump: $(cat "$tmp/err")"
"$bin" info "$tmp/d.pgkb" 2>/dev/null | grep -q '^samples: 0, markers: 0$' || fail "thread-less dump has entries"
rc=0
"$bin" --strict "$tmp/d.pgkb" -o "$tmp/d.json" 2>"$tmp/err" || rc=$?
[ $rc = 1 ] || fail "thread-less dump, --strict: exit $rc: $(cat "$tmp/err")"
grep -q "no thread has a sample or marker in this dump" "$tmp/err" || fail "thread-less message: $(cat "$tmp/err")"
"$bin" "$tmp/d.pgkb" -o "$tmp/d.json" 2>"$tmp/err" || fail "thread-less dump, not strict: $(cat "$tmp/err")"
grep -q "warning: .*no thread has a sample or marker in this dump" "$tmp/err" || fail "thread-less warning: $(cat "$tmp/err")"
echo "gecko-buffer: ok"
