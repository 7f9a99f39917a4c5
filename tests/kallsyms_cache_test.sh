#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# kallsyms_cache_test.sh - the kallsyms cache (--symbol-cache): the host's
# /proc/kallsyms as parsed, kept next to the ELF symbol cache, keyed by the
# boot id, the kernel release, /proc/modules and the first page of
# kallsyms; the output is byte-identical with the cache cold, warm, stale
# (a key part changed), damaged or off.  usage: kallsyms_cache_test.sh PROFCONV
#
# Hermetic: the "host kernel" is a directory of this test's own
# (PROFCONV_TEST_HOST_KERNEL: kallsyms, notes, boot_id, modules, osrelease),
# never /proc or /sys.  Its kallsyms is tests/fixtures/sym/kallsyms.txt and
# its notes carry the kernel build id recorded in tests/fixtures/symperf's
# y_sym.data (4a5a9b0a...), so that recording's kernel frames resolve from
# it as they would from the real /proc/kallsyms of the machine it was made on.
set -u
PC=$1
here=$(cd "$(dirname "$0")" && pwd)
SP="$here/fixtures/symperf"
T=$(mktemp -d "${TMPDIR:-/tmp}/profconv-kcache.XXXXXX")
trap 'rm -rf "$T"' EXIT
HOME=$T/home
export HOME
unset XDG_CACHE_HOME

fail() {
	echo "FAIL: kallsyms-cache: $*" >&2
	exit 1
}

cd "$T" || exit 1
mkdir home k
K=$T/k
cp "$here/fixtures/sym/kallsyms.txt" k/kallsyms
echo 6.18.44-fc-v669 >k/osrelease
echo 11111111-2222-3333-4444-555555555555 >k/boot_id
printf 'foo 16384 0 - Live 0xffffffffc0200000\nbar 8192 1 foo, Live 0xffffffffc0300000 (O)\n' >k/modules
python3 - "$K/notes" <<'EOF'
import struct, sys
bid = bytes.fromhex('4a5a9b0affb66c437abcd455d2738af879985fa9')
open(sys.argv[1], 'wb').write(struct.pack('=III', 4, len(bid), 3) + b'GNU\0' + bid)
EOF

# tamper FILE OLD NEW [keep-sum]: replace a string of the cache file (same
# length) and, unless told, fix its word hash so that it still validates
tamper() {
	python3 "$here/cache_tamper.py" "$@"
}

PROFCONV_TEST_HOST_KERNEL=$K
export PROFCONV_TEST_HOST_KERNEL
S="--no-host-symbols --symbol-dir=$SP"
C=$T/cache
in=$SP/y_sym.data
conv() { # OUT [options]: convert with the cache in $C, notes in OUT.notes
	o=$1
	shift
	"$PC" -v $S "$@" "$in" -o "$o" 2>"$o.notes" || fail "$o: $(cat "$o.notes")"
}
kfile() {
	set -- "$C"/kallsyms-*.pcsym
	[ $# = 1 ] && [ -f "$1" ] || fail "kallsyms cache files: $(ls -a "$C")"
	f=$1
}

# the reference: no cache; the same as naming the file with --kallsyms
conv ref.json --no-symbol-cache
grep -q "symbols for \[kernel.kallsyms\]: $K/kallsyms (kallsyms), 21 of 21" ref.json.notes ||
	fail "the test's host kallsyms was not used: $(cat ref.json.notes)"
grep -q '"make_task_dead.cold"' ref.json || fail "no kernel name in the output"
conv kfile.json --no-symbol-cache --kallsyms "$K/kallsyms"
cmp -s ref.json kfile.json || fail "the host path and --kallsyms differ"
[ ! -e home/.cache ] || fail "--no-symbol-cache wrote $(ls -R home)"

# --kallsyms FILE is not cached
conv kf2.json --symbol-cache "$C" --kallsyms "$K/kallsyms"
ls "$C"/kallsyms-* >/dev/null 2>&1 && fail "--kallsyms FILE was cached"
rm -rf "$C"

# cold: written; warm: read (a note says so), not rewritten
conv cold.json --symbol-cache "$C"
cmp -s ref.json cold.json || fail "cold output differs"
kfile
cp "$f" saved.pcsym
ls -a "$C" | grep -q '^\.tmp' && fail "temporary file left: $(ls -a "$C")"
conv warm.json --symbol-cache "$C"
cmp -s ref.json warm.json || fail "warm output differs"
grep -q "from the kallsyms cache" warm.json.notes || fail "warm: not read: $(cat warm.json.notes)"
grep -q "not sure of" warm.json.notes && fail "warm: read the file: $(cat warm.json.notes)"
cmp -s "$f" saved.pcsym || fail "warm run rewrote the cache file"
# the warm run took its names from the cache: a changed name shows
tamper "$f" make_task_dead.cold MAKE_TASK_DEAD.cold
conv t.json --symbol-cache "$C"
grep -q '"MAKE_TASK_DEAD.cold"' t.json || fail "the cache was not read"

# stale: each part of the key changed; the old (tampered) file is not used,
# and the new key's file replaces it
sname=$(basename "$f")
cp "$f" tampered.pcsym
for part in boot_id modules osrelease kallsyms; do
	cp "k/$part" "$part.saved"
	case $part in
	boot_id) echo 11111111-2222-3333-4444-666666666666 >k/boot_id ;;
	modules) sed -i 's/^bar 8192/bar 12288/' k/modules ;;
	osrelease) echo 6.18.44-fc-v670 >k/osrelease ;;
	kallsyms) sed -i '1s/srso_alias_untrain_ret/srso_alias_untrain_reT/' k/kallsyms ;;
	esac
	conv s.json --symbol-cache "$C"
	grep -q "from the kallsyms cache" s.json.notes && fail "stale ($part): a cache was read"
	cmp -s ref.json s.json || fail "stale ($part): output differs"
	kfile
	[ "$(basename "$f")" != "$sname" ] || fail "stale ($part): the same key"
	conv s2.json --symbol-cache "$C"
	grep -q "from the kallsyms cache" s2.json.notes || fail "stale ($part): the new file was not read"
	cmp -s ref.json s2.json || fail "stale ($part): output differs from the new file"
	# back: the old key, with the tampered file
	cp "$part.saved" "k/$part"
	rm -f "$C"/kallsyms-*
	cp tampered.pcsym "$C/$sname"
done
conv t2.json --symbol-cache "$C"
grep -q '"MAKE_TASK_DEAD.cold"' t2.json || fail "the key did not come back"

# damaged (bad hash, truncated, garbage, a bad offset): not used, and replaced
for how in sum trunc junk; do
	cp saved.pcsym "$C/$sname"
	case $how in
	sum) tamper "$C/$sname" make_task_dead.cold MAKE_TASK_DEAD.cold keep-sum ;;
	trunc) head -c 1000 saved.pcsym >"$C/$sname" ;;
	junk) head -c 4096 /dev/zero >"$C/$sname" ;;
	esac
	"$PC" -q $S --symbol-cache "$C" "$in" -o d.json 2>err || fail "damaged ($how): $(cat err)"
	cmp -s ref.json d.json || fail "damaged ($how): output differs"
	[ ! -s err ] || fail "damaged ($how) said: $(cat err)"
	cmp -s "$C/$sname" saved.pcsym || fail "damaged ($how): not replaced by a sound file"
done

# a batch on two jobs, warm and cold: the same bytes; kallsyms is opened
# once for the batch (its notes given to each conversion)
mkdir in
for i in 1 2 3; do cp "$in" "in/r$i.data"; done
for state in warm cold; do
	[ $state = cold ] && rm -rf "$C"
	rm -rf out
	"$PC" -v $S --symbol-cache "$C" -O out --jobs 2 in/r1.data in/r2.data in/r3.data \
		2>b.notes || fail "batch ($state): $(cat b.notes)"
	for i in 1 2 3; do
		cmp -s ref.json "out/r$i.json" || fail "batch ($state): r$i differs"
	done
	[ "$(grep -c 'symbol cache: opened kallsyms' b.notes)" = 1 ] ||
		fail "batch ($state): kallsyms not opened once: $(cat b.notes)"
	n=$(grep -c 'from the kallsyms cache' b.notes)
	[ $state = warm ] && [ "$n" != 3 ] && fail "batch (warm): $n conversions read the cache"
	[ $state = cold ] && [ "$n" != 0 ] && fail "batch (cold): $n conversions read a cache"
done
cmp -s "$C/$sname" saved.pcsym || fail "the batch's kallsyms cache differs from one conversion's"

# PROFCONV_SYMBOL_CACHE=none and --no-symbol-cache: nothing written
rm -rf "$C" home/.cache
PROFCONV_SYMBOL_CACHE=none "$PC" -q $S "$in" -o n.json || fail "PROFCONV_SYMBOL_CACHE=none"
cmp -s ref.json n.json || fail "PROFCONV_SYMBOL_CACHE=none: output differs"
[ ! -e home/.cache ] || fail "PROFCONV_SYMBOL_CACHE=none: written"
# and the default place: ~/.cache/profconv
env -u PROFCONV_SYMBOL_CACHE "$PC" -q $S "$in" -o n.json || fail "default cache"
ls home/.cache/profconv/kallsyms-*.pcsym >/dev/null 2>&1 || fail "default: nothing in ~/.cache/profconv"
exit 0
