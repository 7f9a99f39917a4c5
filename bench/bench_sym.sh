#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# bench_sym.sh - time profconv's ELF/DWARF symbolication against
# llvm-symbolizer and addr2line on the same addresses, in the same run.
#
# usage: bench/bench_sym.sh [--quick] [BINARY...]
#
#   (none)       two targets:
#                  libc   /usr/lib/x86_64-linux-gnu/libc.so.6, symbolicated
#                         from its separate debug file
#                         /usr/lib/debug/.build-id/xx/rest.debug (libc6-dbg)
#                  c++    a large C++ program with debug info, built here with
#                         g++ -O2 -g from generated sources that instantiate
#                         std:: containers, algorithms, regex, iostreams,
#                         variant and function templates (kept in
#                         $BENCH_DIR/cxx; built once, a few minutes of CPU)
#   BINARY...    these ELF files instead; each must hold DWARF itself or
#                have a debug file under /usr/lib/debug/.build-id
#   --quick      10,000 addresses per target, 1 run per tool
#
# For each target NADDR addresses (default 100,000) are drawn uniformly at
# random, with a fixed seed, from the binary's .text and written once to a
# file; every tool reads that file on stdin, output to /dev/null:
#   profconv         bench/sym_addrs --vma --phdrs BINARY DEBUGFILE
#                    (profconv's pc_symsrc_open_elf/pc_symsrc_lookup; the
#                    driver turns each address into a file offset)
#   llvm-symbolizer  llvm-symbolizer --obj=DEBUGFILE --inlines
#   addr2line        addr2line -f -i -C -e DEBUGFILE
# RUNS times each (default 3), round-robin, under /usr/bin/time -f
# '%e %U %S %M'.  Then one untimed pass over the first COMPARE_N addresses
# (default 10,000) checks that the three agree (function chain and
# file:line, columns and discriminators dropped).
#
# Goal, per target: profconv's median CPU time (user+sys) <= llvm-symbolizer's
# and profconv's peak RSS < llvm-symbolizer's.  CPU time, not wall time: the
# machine is shared and busy, and wall time measures the neighbours as much
# as the tool.
#
# environment:
#   BENCH_DIR       scratch directory (default /tmp/profconv-bench-sym):
#                   the profconv build, the driver, address lists, the C++
#                   program, logs
#   PROFCONV_BUILD  build directory of profconv; configured there
#                   (RelWithDebInfo, tests off) if it has no CMakeCache.txt,
#                   then the target profconv_internal is built (default
#                   $BENCH_DIR/build)
#   RUNS            timed runs per tool (default 3; --quick 1)
#   NADDR           addresses per target (default 100000; --quick 10000)
#   SEED            random seed (default 1)
#   COMPARE_N       addresses in the agreement check (default 10000; 0: none)
#   CXX_TUS         translation units of the C++ program (default 12)
#   CXX_KPER        template instances per translation unit (default 24)
#
# Exit status: 0 every target that ran passed (--quick: 0 whatever the
# verdict), 1 a FAIL, an error or no target ran, 2 usage error or missing tool.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench-sym}
SEED=${SEED:-1}
COMPARE_N=${COMPARE_N:-10000}
CXX_TUS=${CXX_TUS:-12}
CXX_KPER=${CXX_KPER:-24}
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6

quick=0
targets=()

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() { echo "bench_sym: $*" >&2; exit 1; }
note() { echo "bench_sym: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; targets+=("$@"); break ;;
	-*) echo "bench_sym: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) targets+=("$1") ;;
	esac
	shift
done
if [ $quick = 1 ]; then
	RUNS=${RUNS:-1}
	NADDR=${NADDR:-10000}
else
	RUNS=${RUNS:-3}
	NADDR=${NADDR:-100000}
fi
for v in RUNS NADDR SEED; do
	case ${!v} in '' | *[!0-9]* | 0) echo "bench_sym: $v must be a positive integer" >&2; exit 2 ;; esac
done
for v in COMPARE_N CXX_TUS CXX_KPER; do
	case ${!v} in '' | *[!0-9]*) echo "bench_sym: $v must be an integer" >&2; exit 2 ;; esac
done
[ "$SEED" -lt 2147483647 ] || { echo "bench_sym: SEED must be below 2147483647" >&2; exit 2; }
[ "$COMPARE_N" -le "$NADDR" ] || COMPARE_N=$NADDR

# ---- required tools --------------------------------------------------------
TIME=/usr/bin/time
if [ ! -x "$TIME" ] || ! "$TIME" -f '%e' true >/dev/null 2>&1; then
	echo "bench_sym: GNU time ($TIME) is missing; install it with:" >&2
	echo "    apt-get install -y time" >&2
	exit 2
fi
need() { # need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "bench_sym: $1 is missing; install it with:" >&2
	echo "    apt-get install -y $2" >&2
	exit 2
}
need llvm-symbolizer llvm
need addr2line binutils
need readelf binutils
need cmake cmake
need cc gcc
need pkg-config pkg-config

mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
logdir=$BENCH_DIR/logs
mkdir -p "$logdir"

# ---- profconv and the driver -------------------------------------------------
bdir=${PROFCONV_BUILD:-$BENCH_DIR/build}
if [ ! -f "$bdir/CMakeCache.txt" ]; then
	gen=()
	if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
	note "configuring profconv (RelWithDebInfo) in $bdir"
	cmake -S "$root" -B "$bdir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DPROFCONV_BUILD_TESTS=OFF >"$logdir/cmake.log" 2>&1 ||
		{ cat "$logdir/cmake.log" >&2; die "cmake configure failed"; }
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$bdir/CMakeCache.txt")
note "building profconv_internal in $bdir"
cmake --build "$bdir" --target profconv_internal >"$logdir/build.log" 2>&1 ||
	{ tail -n 40 "$logdir/build.log" >&2; die "profconv build failed"; }
lib=$bdir/libprofconv_internal.a
[ -f "$lib" ] || die "build produced no $lib"

driver=$BENCH_DIR/sym_addrs
note "building the driver $driver"
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -O2 -g -DNDEBUG -Wall -Wextra -I "$root/include" -I "$root/src" \
	"$here/sym_addrs.c" "$lib" $(pkg-config --libs libarchive libzstd libcjson zlib) \
	-ldwarf -ldl -o "$driver" >"$logdir/driver-build.log" 2>&1 ||
	{ cat "$logdir/driver-build.log" >&2; die "driver build failed"; }

# ---- helpers -----------------------------------------------------------------
human() { # human BYTES -> "12.3 MiB"
	awk -v b="$1" 'BEGIN {
		split("B KiB MiB GiB", u, " "); i = 1
		while (b >= 1024 && i < 4) { b /= 1024; i++ }
		if (i == 1) printf "%d B\n", b; else printf "%.1f %s\n", b, u[i] }'
}
# section FILE NAME -> "ADDR SIZE" (hex, no 0x) of the section, or nothing
section() {
	readelf -SW "$1" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' |
		awk -v n="$2" '$1 == n { print $3, $5; exit }'
}
build_id() { # build_id FILE -> lower-case hex, or nothing
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print tolower($3); exit }'
}
has_dwarf() { [ -n "$(section "$1" .debug_info)" ]; }

# ---- the C++ program -----------------------------------------------------------
# Each translation unit instantiates work<N>() for CXX_KPER values of N: a
# Store<N> of std::map / unordered_map / set / list / deque / shared_ptr,
# sorting with lambdas, std::function, std::regex, iostreams and
# std::variant + std::visit.  g++ -O2 inlines deeply, so the DWARF carries
# long inline chains.
write_cxx_sources() { # write_cxx_sources DIR
	cat >"$1/tu.cpp" <<'EOF'
#include <algorithm>
#include <deque>
#include <functional>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace tu_ns {
template <int N> struct Key {
	long v;
	std::string s;
	bool operator<(const Key &o) const { return v < o.v || (v == o.v && s < o.s); }
	bool operator==(const Key &o) const { return v == o.v && s == o.s; }
};
template <int N> struct KeyHash {
	std::size_t operator()(const Key<N> &k) const
	{
		return std::hash<std::string>()(k.s) ^ (std::size_t)k.v * (N + 1);
	}
};
template <int N> std::ostream &operator<<(std::ostream &os, const Key<N> &k)
{
	return os << k.v << ':' << k.s;
}

template <int N> class Store {
	std::map<Key<N>, std::vector<std::string>> by_key_;
	std::unordered_map<Key<N>, std::deque<long>, KeyHash<N>> hist_;
	std::set<std::pair<long, std::string>> order_;
	std::list<std::shared_ptr<Key<N>>> owned_;

public:
	void add(const Key<N> &k, const std::string &val)
	{
		by_key_[k].push_back(val);
		hist_[k].push_back(k.v * N);
		order_.emplace(k.v, val);
		owned_.push_back(std::make_shared<Key<N>>(k));
	}
	std::size_t scan(const std::regex &re) const
	{
		std::size_t n = 0;
		for (const auto &kv : by_key_)
			for (const auto &s : kv.second)
				n += std::regex_search(s, re) ? 1 : 0;
		return n;
	}
	std::string dump() const
	{
		std::ostringstream os;
		for (const auto &kv : by_key_)
			os << kv.first << '=' << kv.second.size() << ';';
		return os.str();
	}
	std::vector<Key<N>> sorted() const
	{
		std::vector<Key<N>> v;
		for (const auto &p : owned_)
			v.push_back(*p);
		std::sort(v.begin(), v.end(), [](const Key<N> &a, const Key<N> &b) { return b < a; });
		std::stable_sort(v.begin(), v.end(), [](const Key<N> &a, const Key<N> &b) {
			return a.s.size() < b.s.size();
		});
		return v;
	}
	long fold(std::function<long(long, const Key<N> &)> f) const
	{
		long acc = 0;
		for (const auto &kv : hist_)
			acc = f(acc, kv.first);
		return acc;
	}
};

using Val = std::variant<long, double, std::string>;
template <int N> Val pick(long i)
{
	if (i % 3 == 0)
		return Val(i * N);
	if (i % 3 == 1)
		return Val(double(i) / (N + 1));
	return Val(std::to_string(i + N));
}

template <int N> __attribute__((noinline)) long work(const std::string &input)
{
	Store<N> st;
	std::istringstream is(input);
	std::string w;
	long i = 0;
	while (is >> w)
		st.add(Key<N>{i++ % 97, w}, w + std::to_string(N));
	std::regex re("[a-z]+[0-9]{" + std::to_string(N % 3 + 1) + "}");
	long r = (long)st.scan(re) + (long)st.dump().size() + (long)st.sorted().size();
	r += st.fold([](long a, const Key<N> &k) { return a * 31 + k.v; });
	std::optional<Val> best;
	for (long j = 0; j < 16; j++) {
		Val v = pick<N>(j);
		r += std::visit(
			[](auto &&x) -> long {
				using T = std::decay_t<decltype(x)>;
				if constexpr (std::is_same_v<T, std::string>)
					return (long)x.size();
				else
					return (long)x;
			},
			v);
		if (!best || v.index() > best->index())
			best = v;
	}
	return r + (long)best->index();
}

template <int... Ns> long run_all(const std::string &in, std::integer_sequence<int, Ns...>)
{
	return (work<Ns + TU * 1000>(in) + ...);
}
} // namespace tu_ns

#define CAT2(a, b) a##b
#define CAT(a, b)  CAT2(a, b)
long CAT(entry_, TU)(const std::string &in);
long CAT(entry_, TU)(const std::string &in)
{
	return tu_ns::run_all(in, std::make_integer_sequence<int, KPER>{});
}
EOF
	{
		echo '#include <iostream>'
		echo '#include <iterator>'
		echo '#include <string>'
		local i
		for ((i = 0; i < CXX_TUS; i++)); do
			echo "long entry_$i(const std::string &in);"
		done
		echo 'int main()'
		echo '{'
		echo '	std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());'
		echo '	long r = 0;'
		for ((i = 0; i < CXX_TUS; i++)); do
			echo "	r += entry_$i(in);"
		done
		echo '	std::cout << r << std::endl;'
		echo '	return 0;'
		echo '}'
	} >"$1/main.cpp"
}

cxx=
build_cxx() { # build_cxx -> sets cxx to the binary's path, or leaves it empty
	local dir=$BENCH_DIR/cxx bin i jobs
	bin=$dir/bigcxx_${CXX_TUS}x${CXX_KPER}
	if [ -x "$bin" ] && has_dwarf "$bin"; then
		cxx=$bin
		return 0
	fi
	command -v g++ >/dev/null 2>&1 || {
		note "g++ is missing (apt-get install -y g++): skipping the C++ target"
		return 0
	}
	if [ "$CXX_TUS" -eq 0 ] || [ "$CXX_KPER" -eq 0 ]; then return 0; fi
	mkdir -p "$dir"
	write_cxx_sources "$dir"
	jobs=$(nproc)
	note "building the C++ program $bin: $CXX_TUS translation units x $CXX_KPER instances, g++ -O2 -g, $jobs jobs (minutes of CPU)"
	for ((i = 0; i < CXX_TUS; i++)); do echo "$i"; done |
		xargs -P "$jobs" -I{} g++ -std=c++17 -O2 -g -DTU={} -DKPER="$CXX_KPER" \
			-c "$dir/tu.cpp" -o "$dir/tu{}.o" >"$logdir/cxx-build.log" 2>&1 ||
		{ tail -n 40 "$logdir/cxx-build.log" >&2; die "C++ build failed"; }
	if ! g++ -std=c++17 -O2 -g -c "$dir/main.cpp" -o "$dir/main.o" >>"$logdir/cxx-build.log" 2>&1 ||
		! g++ -O2 -g -o "$bin.tmp" "$dir/main.o" "$dir"/tu[0-9]*.o >>"$logdir/cxx-build.log" 2>&1; then
		tail -n 40 "$logdir/cxx-build.log" >&2
		die "C++ link failed"
	fi
	mv -f "$bin.tmp" "$bin"
	rm -f "$dir"/tu[0-9]*.o "$dir/main.o"
	cxx=$bin
}

# ---- targets -----------------------------------------------------------------
# Each: name, the binary (its .text and program headers), the file with the
# DWARF the tools read.
t_name=()
t_bin=()
t_dbg=()
skipped=()

add_target() { # add_target NAME BINARY
	local name=$1 bin=$2 id dbg
	if [ ! -r "$bin" ]; then
		skipped+=("$name: cannot read $bin")
		return 0
	fi
	if has_dwarf "$bin"; then
		dbg=$bin
	else
		id=$(build_id "$bin")
		dbg=
		if [ -n "$id" ]; then
			dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		fi
		if [ -z "$dbg" ] || [ ! -r "$dbg" ] || ! has_dwarf "$dbg"; then
			if [ "$bin" = "$LIBC" ] || [ "$(readlink -f "$bin")" = "$(readlink -f "$LIBC")" ]; then
				echo "bench_sym: no debug file for $bin (build id ${id:-none}); install it with:" >&2
				echo "    apt-get install libc6-dbg" >&2
				skipped+=("$name: no debug file (apt-get install libc6-dbg)")
			else
				skipped+=("$name: $bin has no DWARF and no /usr/lib/debug/.build-id file (build id ${id:-none})")
				note "skipping $bin: no DWARF, no debug file"
			fi
			return 0
		fi
	fi
	if [ -z "$(section "$bin" .text)" ]; then
		skipped+=("$name: $bin has no .text")
		return 0
	fi
	t_name+=("$name")
	t_bin+=("$bin")
	t_dbg+=("$dbg")
}

if [ ${#targets[@]} -eq 0 ]; then
	add_target libc "$LIBC"
	build_cxx
	if [ -n "$cxx" ]; then add_target c++ "$cxx"; else skipped+=("c++: not built"); fi
else
	for f in "${targets[@]}"; do add_target "$(basename "$f")" "$f"; done
fi

# ---- header ------------------------------------------------------------------
cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
[ -n "$cpu_model" ] || cpu_model=$(uname -m)
echo "== profconv symbolication benchmark  $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:   nproc $(nproc), CPU ${cpu_model}, $(awk '{ printf "%.1f GiB RAM", $2 / 1048576; exit }' /proc/meminfo), kernel $(uname -r)"
echo "load avg:  $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
echo "profconv:  $driver on $lib (${build_type:-?}), work tree $root at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' + local edits')"
echo "llvm:      $(llvm-symbolizer --version 2>/dev/null | awk '/version/ { print; exit }')"
echo "addr2line: $(addr2line --version 2>/dev/null | head -n 1)"
echo "addresses: $NADDR per target, uniform over .text, seed $SEED"
echo "runs:      $RUNS per tool, round-robin; /usr/bin/time -f '%e %U %S %M'"
echo "note:      the machine is shared: CPU time (user+sys) is the fair metric, wall"
echo "           time includes waiting for other processes' CPU"
for s in ${skipped[@]+"${skipped[@]}"}; do echo "skipped:   $s"; done
[ ${#t_name[@]} -gt 0 ] || die "no target to benchmark"

# ---- per target --------------------------------------------------------------
tools=(profconv llvm-symbolizer addr2line)
labels=("profconv (sym_addrs)" "llvm-symbolizer --inlines" "addr2line -f -i -C")
results=$logdir/times.tsv # target<TAB>tool<TAB>run<TAB>wall<TAB>user<TAB>sys<TAB>maxrss_kb
: >"$results"
summary=()
verdicts=()

# gen_addrs LO SIZE N SEED: N hex addresses uniform in [LO, LO+SIZE), MINSTD
# (exact in awk's doubles; mawk's %x stops at 32 bits, hence two halves).
gen_addrs() {
	awk -v lo="$1" -v size="$2" -v n="$3" -v seed="$4" 'BEGIN {
		m = 2147483647; x = seed % m; if (x == 0) x = 1
		for (i = 0; i < n; i++) {
			x = (48271 * x) % m
			a = lo + (x % size)
			hi = int(a / 4294967296); l = a - hi * 4294967296
			if (hi) printf "0x%x%08x\n", hi, l; else printf "0x%x\n", l
		} }'
}

run_cmd() { # run_cmd TOOL BIN DBG ADDRS OUT -> runs it, stdout to OUT
	local tool=$1 bin=$2 dbg=$3 addrs=$4 out=$5
	case $tool in
	profconv) "$driver" --vma --phdrs "$bin" "$dbg" <"$addrs" >"$out" ;;
	llvm-symbolizer) llvm-symbolizer --obj="$dbg" --inlines <"$addrs" >"$out" ;;
	addr2line) addr2line -f -i -C -e "$dbg" <"$addrs" >"$out" ;;
	esac
}

run_timed() { # run_timed TARGET INDEX RUN BIN DBG ADDRS
	local target=$1 i=$2 r=$3 bin=$4 dbg=$5 addrs=$6 tf=$logdir/time.$$ tool line rc=0
	tool=${tools[$i]}
	case $tool in
	profconv) "$TIME" -f '%e %U %S %M' -o "$tf" "$driver" --vma --phdrs "$bin" "$dbg" \
		<"$addrs" >/dev/null 2>"$logdir/$target-$tool.err" || rc=$? ;;
	llvm-symbolizer) "$TIME" -f '%e %U %S %M' -o "$tf" llvm-symbolizer --obj="$dbg" --inlines \
		<"$addrs" >/dev/null 2>"$logdir/$target-$tool.err" || rc=$? ;;
	addr2line) "$TIME" -f '%e %U %S %M' -o "$tf" addr2line -f -i -C -e "$dbg" \
		<"$addrs" >/dev/null 2>"$logdir/$target-$tool.err" || rc=$? ;;
	esac
	if [ $rc -ne 0 ]; then
		echo "bench_sym: $tool on $target exited with status $rc; its stderr:" >&2
		tail -n 20 "$logdir/$target-$tool.err" >&2
		exit 1
	fi
	line=$(tail -n 1 "$tf")
	rm -f "$tf"
	# shellcheck disable=SC2086 # split the four numbers
	set -- $line
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$tool" "$r" "$1" "$2" "$3" "$4" >>"$results"
	printf '  run %d/%d  %-16s wall %6.2f s  cpu %6.2f s  rss %7.1f MiB\n' \
		"$r" "$RUNS" "$tool" "$1" "$(awk -v u="$2" -v s="$3" 'BEGIN { print u + s }')" \
		"$(awk -v k="$4" 'BEGIN { print k / 1024 }')"
}

tstat() { # tstat TARGET TOOL FIELD -> median min max; FIELD wall | cpu | rss (KiB)
	awk -F'\t' -v g="$1" -v t="$2" -v f="$3" '$1 == g && $2 == t {
		v = (f == "wall") ? $4 : (f == "cpu") ? $5 + $6 : $7
		print v }' "$results" | sort -g | awk '
		{ a[NR] = $1 }
		END { if (NR == 0) { print "- - -"; exit }
		      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      print m, a[1], a[NR] }'
}

# Agreement: every tool's output as blank-line-separated records of
# name / file:line pairs, innermost first; llvm-symbolizer's columns and
# addr2line's discriminators dropped, "??:?" and "file:?" read as line 0.
normalize() { # normalize STYLE < OUT
	awk -v style="$1" '
		function flush() { if (n) { for (j = 1; j <= n; j++) print rec[j]; print "" } n = 0 }
		style == "a2l" && /^0x[0-9a-f]+$/ { flush(); next }
		style != "a2l" && NF == 0 { flush(); next }
		{ n++; s = $0
		  if (n % 2 == 0) {
			sub(/ \(discriminator [0-9]+\)$/, "", s)
			if (style == "llvm") sub(/:[0-9]+$/, "", s)
			sub(/:\?$/, ":0", s)
		  }
		  rec[n] = s }
		END { flush() }'
}
agree() { # agree REF OTHER -> "%same-chains %same-lines"
	# same chain: every name and file:line; same lines: the file:line of
	# every level (names aside: several symbols often share an address)
	awk 'function locs(   j, l) { l = NF; for (j = 2; j <= NF; j += 2) l = l "\n" $j; return l }
		BEGIN { RS = ""; FS = "\n" }
		NR == FNR { ref[FNR] = $0; rl[FNR] = locs(); next }
		{ t++; if ($0 == ref[FNR]) full++; if (locs() == rl[FNR]) lines++ }
		END { if (!t) { print "- -"; exit }
		      printf "%.1f %.1f\n", 100 * full / t, 100 * lines / t }' "$1" "$2"
}

for ((ti = 0; ti < ${#t_name[@]}; ti++)); do
	target=${t_name[$ti]}
	bin=${t_bin[$ti]}
	dbg=${t_dbg[$ti]}
	read -r tlo tsize <<<"$(section "$bin" .text)"
	dinfo=$(section "$dbg" .debug_info)
	dinfo_size=$((0x${dinfo#* }))
	comp=
	if readelf -SW "$dbg" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".debug_info" { exit !($7 ~ /^[A-Za-z]*C[A-Za-z]*$/) }'; then
		comp=", compressed"
	fi
	addrs=$BENCH_DIR/addrs-$target-$NADDR-$SEED.txt
	gen_addrs "$((0x$tlo))" "$((0x$tsize))" "$NADDR" "$SEED" >"$addrs"

	echo
	echo "== target $target"
	echo "binary:    $bin (build id $(build_id "$bin"))"
	echo "debug:     $dbg ($(human "$(wc -c <"$dbg")"); .debug_info $(human "$dinfo_size")$comp)"
	printf '.text:     0x%x, %s\n' "$((0x$tlo))" "$(human "$((0x$tsize))")"
	echo "addresses: $addrs"
	cat "$bin" "$dbg" "$addrs" >/dev/null # page cache

	echo "-- runs"
	n=${#tools[@]}
	for ((r = 1; r <= RUNS; r++)); do
		for ((k = 0; k < n; k++)); do
			run_timed "$target" $(((r - 1 + k) % n)) "$r" "$bin" "$dbg" "$addrs"
		done
	done
	tail -n 1 "$logdir/$target-profconv.err" | sed 's/^/  /'

	declare -A med_wall=() med_cpu=() max_rss=()
	for t in "${tools[@]}"; do
		read -r m _ _ <<<"$(tstat "$target" "$t" wall)"; med_wall[$t]=$m
		read -r m _ _ <<<"$(tstat "$target" "$t" cpu)"; med_cpu[$t]=$m
		read -r _ _ hi <<<"$(tstat "$target" "$t" rss)"; max_rss[$t]=$hi
	done

	# agreement on the first COMPARE_N addresses
	agree_p=("-" "-" "-")
	agree_a2l=-
	if [ "$COMPARE_N" -gt 0 ]; then
		sub=$BENCH_DIR/cmp-$target.addrs
		head -n "$COMPARE_N" "$addrs" >"$sub"
		run_cmd profconv "$bin" "$dbg" "$sub" "$BENCH_DIR/cmp-$target.raw" 2>/dev/null
		normalize ours <"$BENCH_DIR/cmp-$target.raw" >"$BENCH_DIR/cmp-$target.profconv"
		run_cmd llvm-symbolizer "$bin" "$dbg" "$sub" "$BENCH_DIR/cmp-$target.raw" 2>/dev/null
		normalize llvm <"$BENCH_DIR/cmp-$target.raw" >"$BENCH_DIR/cmp-$target.llvm-symbolizer"
		addr2line -a -f -i -C -e "$dbg" <"$sub" 2>/dev/null | normalize a2l >"$BENCH_DIR/cmp-$target.addr2line"
		rm -f "$BENCH_DIR/cmp-$target.raw"
		for k in 0 2; do
			read -r full lines <<<"$(agree "$BENCH_DIR/cmp-$target.llvm-symbolizer" "$BENCH_DIR/cmp-$target.${tools[$k]}")"
			agree_p[k]="$full / $lines"
		done
		agree_p[1]="(reference)"
		read -r full lines <<<"$(agree "$BENCH_DIR/cmp-$target.addr2line" "$BENCH_DIR/cmp-$target.profconv")"
		agree_a2l="$full / $lines"
	fi

	echo
	echo "-- $target: $NADDR addresses, $RUNS runs each (load avg now $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
	printf '| %-26s | %13s | %12s | %12s | %12s | %8s | %8s | %19s |\n' tool "median wall s" "median CPU s" "addr/s (CPU)" "peak RSS MiB" "CPU/llvm" "RSS/llvm" "agree % chain/lines"
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..28})" "$(printf -- '-%.0s' {1..15})" \
		"$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..14})" \
		"$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..21})"
	for ((k = 0; k < n; k++)); do
		t=${tools[$k]}
		printf '| %-26s | %13.2f | %12.2f | %12s | %12.1f | %8s | %8s | %19s |\n' "${labels[$k]}" \
			"${med_wall[$t]}" "${med_cpu[$t]}" \
			"$(awk -v n="$NADDR" -v c="${med_cpu[$t]}" 'BEGIN { if (c > 0) printf "%.0f", n / c; else print "inf" }')" \
			"$(awk -v x="${max_rss[$t]}" 'BEGIN { print x / 1024 }')" \
			"$(awk -v a="${med_cpu[$t]}" -v b="${med_cpu[llvm-symbolizer]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
			"$(awk -v a="${max_rss[$t]}" -v b="${max_rss[llvm-symbolizer]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
			"${agree_p[$k]}"
	done
	if [ "$COMPARE_N" -gt 0 ]; then
		echo "(agree: of the first $COMPARE_N addresses, % where the whole inline chain (names and file:line) / the file:line of every level is the same as llvm-symbolizer's;"
		echo " profconv against addr2line instead: $agree_a2l; outputs in $BENCH_DIR/cmp-$target.*)"
	fi

	cpu_ok=$(awk -v p="${med_cpu[profconv]}" -v l="${med_cpu[llvm-symbolizer]}" 'BEGIN { print (p <= l) ? 1 : 0 }')
	rss_ok=$(awk -v p="${max_rss[profconv]}" -v l="${max_rss[llvm-symbolizer]}" 'BEGIN { print (p < l) ? 1 : 0 }')
	wall_ok=$(awk -v p="${med_wall[profconv]}" -v l="${med_wall[llvm-symbolizer]}" 'BEGIN { print (p <= l) ? "yes" : "no" }')
	if [ "$cpu_ok" = 1 ] && [ "$rss_ok" = 1 ]; then v=PASS; else v=FAIL; fi
	verdicts+=("$v")
	line=$(printf '%s %s: profconv median CPU %.2f s %s llvm-symbolizer %.2f s (%s vs %s addr/s); peak RSS %.1f MiB %s %.1f MiB (wall: %s)' \
		"$v" "$target" "${med_cpu[profconv]}" "$([ "$cpu_ok" = 1 ] && echo '<=' || echo '>')" \
		"${med_cpu[llvm-symbolizer]}" \
		"$(awk -v n="$NADDR" -v c="${med_cpu[profconv]}" 'BEGIN { if (c > 0) printf "%.0f", n / c; else print "inf" }')" \
		"$(awk -v n="$NADDR" -v c="${med_cpu[llvm-symbolizer]}" 'BEGIN { if (c > 0) printf "%.0f", n / c; else print "inf" }')" \
		"$(awk -v k="${max_rss[profconv]}" 'BEGIN { print k / 1024 }')" \
		"$([ "$rss_ok" = 1 ] && echo '<' || echo '>=')" \
		"$(awk -v k="${max_rss[llvm-symbolizer]}" 'BEGIN { print k / 1024 }')" \
		"$([ "$wall_ok" = yes ] && echo 'also faster' || echo 'slower')")
	echo
	echo "$line"
	summary+=("$line")
	unset med_wall med_cpu max_rss
done

# ---- verdict -----------------------------------------------------------------
echo
echo "== summary (load avg now $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
busy=$(awk -v n="$(nproc)" '{ print ($1 > n) ? 1 : 0 }' /proc/loadavg)
if [ "$busy" = 1 ]; then
	echo "warning: the machine is busy: wall times are inflated; the verdict uses CPU time"
fi
for s in "${summary[@]}"; do echo "$s"; done
for s in ${skipped[@]+"${skipped[@]}"}; do echo "SKIPPED $s"; done
echo "raw times: $results"
[ $quick = 1 ] && exit 0
for v in "${verdicts[@]}"; do [ "$v" = PASS ] || exit 1; done
exit 0
