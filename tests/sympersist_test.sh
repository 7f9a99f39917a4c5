#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# sympersist_test.sh - the persistent symbol cache (--symbol-cache): a
# conversion writes what it resolved from each symbol file into the cache
# directory, the next reads it back instead of the file's symbol table and
# DWARF, and the output is byte-identical with the cache cold, warm, damaged
# or off.  usage: sympersist_test.sh PROFCONV
#
# tests/fixtures/symperf's real recording, symbolicated from the committed
# binary (DWARF 5 with inline chains) and from the stripped binary with its
# separate debug file.  Every cache here is a directory of this test's own;
# the user's (~/.cache/profconv) is never touched: CTest sets
# PROFCONV_SYMBOL_CACHE=none, and HOME and XDG_CACHE_HOME point here.
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
SP="$here/fixtures/symperf"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-sympersist.XXXXXX")
trap 'rm -rf "$T"' EXIT
HOME=$T/home
export HOME
unset XDG_CACHE_HOME

fail() {
	echo "FAIL: sympersist: $*" >&2
	exit 1
}

cd "$T" || exit 1
mkdir home dl dl/.debug in
cp "$SP/prog.stripped" dl/prog
cp "$SP/prog-dbg.debug" dl/.debug/prog-dbg.debug
for i in 1 2 3 4; do cp "$SP/y_sym.data" "in/r$i.data"; done

# tamper FILE OLD NEW [keep-sum]: replace a string of the cache file's string
# table (same length) and, unless told, fix the checksum so it still validates
tamper() {
	python3 "$here/cache_tamper.py" "$@"
}

for layout in "$SP" "$T/dl"; do
	S="--no-host-symbols --symbol-dir=$layout"
	C="$T/cache"
	rm -rf "$C"
	"$PC" -q $S --no-symbol-cache in/r1.data -o ref.json || fail "$layout: no cache"
	grep -q '"mix"' ref.json || fail "$layout: mix (inlined) not in the output"
	[ ! -e home/.cache ] || fail "$layout: --no-symbol-cache wrote $(ls -R home)"
	# cold: written, one file for the one symbol file, named by its build id
	"$PC" -q $S --symbol-cache "$C" in/r1.data -o cold.json || fail "$layout: cold"
	cmp -s ref.json cold.json || fail "$layout: cold output differs"
	set -- "$C"/*.pcsym
	[ $# = 1 ] && [ -f "$1" ] || fail "$layout: cache files: $(ls -a "$C")"
	f=$1
	case $(basename "$f") in
	????????????????????????????????????????-????????????????.pcsym) ;;
	*) fail "$layout: cache file name $(basename "$f")" ;;
	esac
	cp "$f" saved.pcsym
	ls -a "$C" | grep -q '^\.tmp' && fail "$layout: temporary file left: $(ls -a "$C")"
	# warm: the same bytes; nothing new, so the file is not rewritten
	"$PC" -q $S --symbol-cache "$C" in/r1.data -o warm.json || fail "$layout: warm"
	cmp -s ref.json warm.json || fail "$layout: warm output differs"
	cmp -s "$f" saved.pcsym || fail "$layout: warm run rewrote the cache file"
	# the warm run read its names from the cache: a changed name shows
	tamper "$f" mix MIX
	"$PC" -q $S --symbol-cache "$C" in/r1.data -o t.json || fail "$layout: tampered"
	grep -q '"MIX"' t.json || fail "$layout: the cache was not read"
	# a damaged file (bad checksum, truncated, garbage) is not used, and replaced
	for how in sum trunc junk; do
		cp saved.pcsym "$f"
		case $how in
		sum) tamper "$f" mix MIX keep-sum ;;
		trunc) head -c 100 saved.pcsym >"$f" ;;
		junk) head -c 4096 /dev/zero >"$f" ;;
		esac
		"$PC" -q $S --symbol-cache "$C" in/r1.data -o d.json 2>err ||
			fail "$layout: damaged ($how): $(cat err)"
		cmp -s ref.json d.json || fail "$layout: damaged ($how): output differs"
		[ ! -s err ] || fail "$layout: damaged ($how) said: $(cat err)"
		cmp -s "$f" saved.pcsym || fail "$layout: damaged ($how): not replaced by a sound file"
	done
	# a batch sharing the file, warm and cold, on two jobs: the same bytes
	for state in warm cold; do
		[ $state = cold ] && rm -rf "$C"
		rm -rf out
		"$PC" -q $S --symbol-cache "$C" -O out --jobs 2 in/r1.data in/r2.data in/r3.data \
			in/r4.data || fail "$layout: batch ($state)"
		for i in 1 2 3 4; do
			cmp -s ref.json "out/r$i.json" || fail "$layout: batch ($state): r$i differs"
		done
	done
	cmp -s "$f" saved.pcsym || fail "$layout: the batch's cache file differs from one conversion's"
done

# where the command puts it: PROFCONV_SYMBOL_CACHE, else $XDG_CACHE_HOME/profconv,
# else ~/.cache/profconv; "none" and --no-symbol-cache turn it off
S="--no-host-symbols --symbol-dir=$SP"
run() {
	env "$@" "$PC" -q $S in/r1.data -o e.json || fail "$*: conversion"
	cmp -s ref0.json e.json || fail "$*: output differs"
}
"$PC" -q $S --no-symbol-cache in/r1.data -o ref0.json || fail "ref0"
rm -rf home/.cache x e1
run -u PROFCONV_SYMBOL_CACHE
ls home/.cache/profconv/*.pcsym >/dev/null 2>&1 || fail "default: nothing in ~/.cache/profconv"
run -u PROFCONV_SYMBOL_CACHE XDG_CACHE_HOME="$T/x"
ls x/profconv/*.pcsym >/dev/null 2>&1 || fail "XDG_CACHE_HOME: nothing in it"
run PROFCONV_SYMBOL_CACHE="$T/e1" XDG_CACHE_HOME="$T/x2"
ls e1/*.pcsym >/dev/null 2>&1 || fail "PROFCONV_SYMBOL_CACHE: nothing in it"
[ ! -e x2 ] || fail "PROFCONV_SYMBOL_CACHE: XDG_CACHE_HOME written too"
rm -rf home/.cache
run PROFCONV_SYMBOL_CACHE=none XDG_CACHE_HOME="$T/x3"
[ ! -e x3 ] && [ ! -e home/.cache ] || fail "PROFCONV_SYMBOL_CACHE=none: written"
env PROFCONV_SYMBOL_CACHE="$T/e2" "$PC" -q $S --no-symbol-cache in/r1.data -o e.json ||
	fail "--no-symbol-cache"
[ ! -e e2 ] || fail "--no-symbol-cache: written"
"$PC" -q $S --symbol-cache "" in/r1.data -o e.json 2>/dev/null && fail "--symbol-cache '' accepted"
# a writer killed before its rename (Ctrl-C while a cache file is written)
# leaves DIR/.tmp-*: the next process writing there removes those an hour
# old and leaves younger ones (another writer's, at work)
C="$T/stale"
mkdir "$C"
: >"$C/.tmp-old-AAAAAA"
touch -d '2 hours ago' "$C/.tmp-old-AAAAAA"
: >"$C/.tmp-new-BBBBBB"
"$PC" -q $S --symbol-cache "$C" in/r1.data -o e.json || fail "stale temporaries: conversion"
ls "$C"/*.pcsym >/dev/null 2>&1 || fail "stale temporaries: nothing written"
[ ! -e "$C/.tmp-old-AAAAAA" ] || fail "an abandoned temporary file (2 hours old) was left"
[ -e "$C/.tmp-new-BBBBBB" ] || fail "a fresh temporary file was removed"
exit 0
