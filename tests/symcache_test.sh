#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# symcache_test.sh - a batch opens each symbol file once and shares it
# between its conversions (profconv_ctx_share_symbols()), with outputs
# byte-identical to conversions on their own.  usage: symcache_test.sh PROFCONV
#
# Four copies of tests/fixtures/symperf's real recording, symbolicated from
# the committed binary (DWARF 5 with inline chains), and from the stripped
# binary with its separate debug file (the PLT names come from the binary).
# Nothing here times anything.
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
SP="$here/fixtures/symperf"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-symcache.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: symcache: $*" >&2
	exit 1
}

cd "$T" || exit 1
mkdir in dl dl/.debug
for i in 1 2 3 4; do cp "$SP/y_sym.data" "in/r$i.data"; done
# the debuglink layout: DIR/prog (stripped) names .debug/prog-dbg.debug
cp "$SP/prog.stripped" dl/prog
cp "$SP/prog-dbg.debug" dl/.debug/prog-dbg.debug

for layout in "$SP" "$T/dl"; do
	S="--no-host-symbols --symbol-dir=$layout"
	for jobs in 2 1; do
		rm -rf "out$jobs"
		"$PC" -v $S -O "out$jobs" --jobs $jobs in/r1.data in/r2.data in/r3.data \
			in/r4.data 2>"err$jobs" || fail "$layout: batch --jobs $jobs: $(cat "err$jobs")"
		# every conversion found prog's symbols with inline frames ...
		n=$(grep -c "symbols for prog: .*(elf+dwarf), 31 of 32 addresses found" "err$jobs")
		[ "$n" = 4 ] || fail "$layout --jobs $jobs: $n conversions symbolicated prog, not 4: $(cat "err$jobs")"
		# ... from one opening of the file
		n=$(grep -c "note: symbol cache: opened" "err$jobs")
		[ "$n" = 1 ] || fail "$layout --jobs $jobs: $n symbol files opened, not 1: $(cat "err$jobs")"
	done
	# the same bytes as a conversion on its own (no cache), and with either --jobs
	"$PC" -q $S in/r1.data -o alone.json || fail "$layout: alone"
	grep -q '"mix"' alone.json || fail "$layout: mix (inlined) not in the output"
	for i in 1 2 3 4; do
		cmp -s alone.json "out2/r$i.json" || fail "$layout: out2/r$i.json differs from alone"
		cmp -s alone.json "out1/r$i.json" || fail "$layout: out1/r$i.json differs from alone"
	done
	# a separate debug file: the note names it, once
	if [ "$layout" = "$T/dl" ]; then
		grep -q "symbol cache: opened $T/dl/.debug/prog-dbg.debug" err2 ||
			fail "debuglink: $(cat err2)"
	fi
done

# The warnings of a shared file's opening reach every conversion that takes
# it, as they do without the cache: the binary with zstd-compressed DWARF
# (libdwarf reads zlib only) gives each conversion its warning.  (Made with
# objcopy here, when this binutils can; the build id stays.)
mkdir zd
if objcopy --compress-debug-sections=zstd "$SP/prog" zd/prog 2>/dev/null; then
	"$PC" --no-host-symbols --symbol-dir=zd -O outz --jobs 2 --report z.jsonl \
		in/r1.data in/r2.data in/r3.data 2>errz || fail "zstd batch: $(cat errz)"
	n=$(grep -c '"debug info problems skipped": 1' z.jsonl)
	[ "$n" = 3 ] || fail "zstd: $n of 3 conversions warned: $(cat z.jsonl)"
	"$PC" -q --no-host-symbols --symbol-dir=zd in/r1.data -o z.json 2>/dev/null ||
		fail "zstd alone"
	cmp -s z.json outz/r1.json || fail "zstd: the batch's output differs from alone"
else
	echo "symcache: objcopy cannot compress with zstd here; the warning replay is not checked"
fi
echo "symcache: ok"
