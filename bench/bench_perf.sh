#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# bench_perf.sh - time profconv against perf script / perf report on one
# large perf.data, in the same run, and check the speed goal.
#
# usage: bench/bench_perf.sh [--quick] [--rerecord] [--deep | --one] [PERF.DATA]
#
#   PERF.DATA    benchmark this recording (nothing is recorded)
#   (none)       record one with the test workload:
#                  perf record -e cpu-clock -g -F 50000 -o $BENCH_DIR/large.data \
#                      workload -s 28 -t 4
#                and re-record longer if it holds fewer than MIN_SAMPLES
#                callchain samples; an existing $BENCH_DIR/large.data is reused
#   --quick      smoke run: record $BENCH_DIR/quick.data with -s 3, no sample
#                minimum
#   --rerecord   record again even if the recording exists
#   --deep       the second recording instead: bench/deep.c (random
#                recursion through 16 functions, 1 to 10 levels, 2 threads)
#                recorded the same way into $BENCH_DIR/deep.data: about as
#                many samples but hundreds of thousands of distinct stacks,
#                the case where interning, not decoding, dominates
#   (default)    with no PERF.DATA and neither --quick nor --one, the
#                --deep benchmark runs after the first, so one run prints
#                both ratios, and then bench_dwarf.sh: a --call-graph dwarf
#                recording of tests/fixtures/perf/src/dwarfprog (about
#                31,000 samples) converted with unwinding and symbols beside
#                perf script -F tid,ip,sym,dso on it
#   --one        only the first recording
#
# environment:
#   BENCH_DIR    scratch directory (default /tmp/profconv-bench): recordings,
#                profconv output, logs, the profconv build
#   RUNS         timed runs of each tool (default 3; quick mode 1)
#   PROFCONV     profconv binary to time; without it profconv is built
#                (CMAKE_BUILD_TYPE=RelWithDebInfo, tests off) in
#                $BENCH_DIR/build
#   PROFCONV_REV a git revision: build that commit (git archive into
#                $BENCH_DIR/src-REV, build in $BENCH_DIR/build-REV) instead of
#                the work tree, which may hold half-done edits
#   MIN_SAMPLES  callchain samples the recording must reach (default 1000000)
#   SIZES        1 (default): one untimed pass of perf script and perf report
#                through wc -c to get their output sizes; 0 skips it
#
# Tools timed with /usr/bin/time -f '%e %U %S %M', round-robin (each round
# starts with the next tool), so machine noise hits all of them alike:
#   profconv FILE -o OUT.json
#   perf script -i FILE > /dev/null
#   perf report -i FILE --stdio > /dev/null
# Goal (see docs): profconv median wall <= perf script median wall / 8 and
# profconv peak RSS < 200 MB.  Exit status: 0 PASS (--quick: 0 whatever the
# verdict), 1 FAIL or error (also: profconv's output fails 'profconv
# validate'), 2 usage error or missing tool.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/profconv-bench}
MIN_SAMPLES=${MIN_SAMPLES:-1000000}
SIZES=${SIZES:-1}
RSS_BUDGET_MB=200   # 10^6 bytes
SPEED_FACTOR=8
FREQ=50000
SECONDS_FULL=28
SECONDS_QUICK=3
MAX_SECONDS=300     # never record longer than this when topping up samples

quick=0
rerecord=0
deep=0
one=0
input=

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

die() { echo "bench_perf: $*" >&2; exit 1; }
note() { echo "bench_perf: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--rerecord) rerecord=1 ;;
	--deep) deep=1 ;;
	--one) one=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) echo "bench_perf: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) [ -z "$input" ] || { echo "bench_perf: one PERF.DATA only" >&2; exit 2; }
	   input=$1 ;;
	esac
	shift
done
if [ $# -gt 0 ]; then
	if [ -n "$input" ] || [ $# -ne 1 ]; then
		echo "bench_perf: one PERF.DATA only" >&2
		exit 2
	fi
	input=$1
fi
if [ $quick = 1 ]; then
	RUNS=${RUNS:-1}
else
	RUNS=${RUNS:-3}
fi
case $RUNS in '' | *[!0-9]* | 0) echo "bench_perf: RUNS must be a positive integer" >&2; exit 2 ;; esac
case $MIN_SAMPLES in '' | *[!0-9]*) echo "bench_perf: MIN_SAMPLES must be an integer" >&2; exit 2 ;; esac

if [ -n "$input" ] && { [ ! -f "$input" ] || [ ! -r "$input" ]; }; then
	echo "bench_perf: cannot read $input" >&2
	exit 2
fi

# ---- required tools --------------------------------------------------------
TIME=/usr/bin/time
if [ ! -x "$TIME" ] || ! "$TIME" -f '%e' true >/dev/null 2>&1; then
	echo "bench_perf: GNU time ($TIME) is missing; install it with:" >&2
	echo "    apt-get install -y time" >&2
	exit 2
fi
command -v perf >/dev/null 2>&1 || {
	echo "bench_perf: perf is missing; install it with:" >&2
	echo "    apt-get install -y linux-perf" >&2
	exit 2
}

mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
logdir=$BENCH_DIR/logs
mkdir -p "$logdir"

# ---- profconv binary ---------------------------------------------------------
if [ -n "${PROFCONV:-}" ]; then
	[ -x "$PROFCONV" ] || die "PROFCONV=$PROFCONV is not an executable"
	profconv=$PROFCONV
	build_note="PROFCONV=$PROFCONV (as given)"
else
	src=$root
	rev=
	bdir=$BENCH_DIR/build
	if [ -n "${PROFCONV_REV:-}" ]; then
		# Build a committed revision, untouched by edits in the work tree.
		rev=$(git -C "$root" rev-parse --verify --short "${PROFCONV_REV}^{commit}") ||
			die "PROFCONV_REV=$PROFCONV_REV is not a commit"
		src=$BENCH_DIR/src-$rev
		bdir=$BENCH_DIR/build-$rev
		if [ ! -f "$src/CMakeLists.txt" ]; then
			note "exporting profconv $rev into $src"
			rm -rf "$src" "$src.tmp"
			mkdir -p "$src.tmp"
			git -C "$root" archive "$rev" | tar -x -C "$src.tmp" ||
				die "git archive $rev failed"
			mv "$src.tmp" "$src"
		fi
	fi
	gen=()
	if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
	[ -f "$bdir/CMakeCache.txt" ] && gen=()   # the generator is fixed once
	# RelWithDebInfo (-O2 -g), like the project's own build: the project
	# builds with -Werror and gcc's -O3 (Release) raises -Wmaybe-uninitialized
	# false alarms in places.
	note "configuring profconv (RelWithDebInfo) in $bdir"
	cmake -S "$src" -B "$bdir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DPROFCONV_BUILD_TESTS=OFF >"$logdir/cmake.log" 2>&1 ||
		{ cat "$logdir/cmake.log" >&2; die "cmake configure failed"; }
	note "building profconv in $bdir"
	cmake --build "$bdir" --target profconv-cli >"$logdir/build.log" 2>&1 ||
		{ tail -n 40 "$logdir/build.log" >&2; die "profconv build failed"; }
	profconv=$bdir/profconv
	[ -x "$profconv" ] || die "build produced no $profconv"
	if [ -n "$rev" ]; then from="commit $rev"; else from="the work tree $root"; fi
	build_note="$profconv (built here, RelWithDebInfo, from $from)"
fi

# ---- sample count ------------------------------------------------------------
# Callchain samples: the per-event lines of `profconv info` that say
# "callchains"; if info fails, SAMPLE events of `perf report --stats` when
# `perf evlist -v` shows CALLCHAIN in the sample type.
count_samples() { # count_samples FILE -> prints the number (or nothing)
	local f=$1 n
	n=$("$profconv" info "$f" 2>/dev/null | awk '
		/^events:/ { inev = 1; next }
		inev && /^  / { if ($0 ~ /callchains/) { for (i = 1; i < NF; i++) if ($(i+1) == "samples") { s += $i; break } } next }
		inev { inev = 0 }
		END { if (s != "") print s }') || n=
	if [ -z "$n" ]; then
		if perf evlist -v -i "$f" 2>/dev/null | grep -q CALLCHAIN; then
			n=$(perf report --stats -i "$f" 2>/dev/null |
				awk '/^ *SAMPLE events:/ { print $3; exit }')
		fi
	fi
	echo "${n:-}"
}

# ---- recording ---------------------------------------------------------------
workload=$root/tests/fixtures/perf/src/workload
wl_args() { echo "-s $1 -t 4"; }
if [ $deep = 1 ]; then
	# built from bench/deep.c into the bench directory
	workload=$BENCH_DIR/deep
	wl_args() { echo "$1 2"; }
	SECONDS_FULL=35
fi

record() { # record OUT SECONDS
	local out=$1 secs=$2 tmp
	tmp=$out.tmp-$$
	note "recording: perf record -e cpu-clock -g -F $FREQ -o $out $workload $(wl_args "$secs")"
	# shellcheck disable=SC2046 # the workload's arguments
	if ! perf record -e cpu-clock -g -F "$FREQ" -o "$tmp" \
		"$workload" $(wl_args "$secs") >"$logdir/record.log" 2>&1; then
		cat "$logdir/record.log" >&2
		rm -f "$tmp"
		die "perf record failed (needs root or kernel.perf_event_paranoid <= 1)"
	fi
	mv -f "$tmp" "$out"
}

if [ -n "$input" ]; then
	data=$input
	recorded_note="given on the command line"
else
	if [ $deep = 1 ]; then
		if [ ! -x "$workload" ] || [ "$here/deep.c" -nt "$workload" ]; then
			note "building bench/deep.c"
			cc -O1 -fno-omit-frame-pointer -g -pthread "$here/deep.c" -o "$workload" \
				>"$logdir/workload-build.log" 2>&1 ||
				{ cat "$logdir/workload-build.log" >&2; die "deep.c build failed"; }
		fi
	elif [ ! -x "$workload" ] || [ "$workload.c" -nt "$workload" ]; then
		note "building the workload"
		make -C "$(dirname "$workload")" workload >"$logdir/workload-build.log" 2>&1 ||
			{ cat "$logdir/workload-build.log" >&2; die "workload build failed"; }
	fi
	if [ $deep = 1 ]; then
		data=$BENCH_DIR/deep.data
		secs=$SECONDS_FULL
		min=$MIN_SAMPLES
	elif [ $quick = 1 ]; then
		data=$BENCH_DIR/quick.data
		secs=$SECONDS_QUICK
		min=0
	else
		data=$BENCH_DIR/large.data
		secs=$SECONDS_FULL
		min=$MIN_SAMPLES
	fi
	if [ -s "$data" ] && [ $rerecord = 0 ]; then
		recorded_note="reused (pass --rerecord to record again)"
	else
		record "$data" "$secs"
		recorded_note="recorded now, $(basename "$workload") $(wl_args "$secs")"
	fi
	tries=0
	while :; do
		n=$(count_samples "$data")
		[ -n "$n" ] || die "cannot count the samples of $data"
		[ "$n" -ge "$min" ] && break
		tries=$((tries + 1))
		[ $tries -le 3 ] || die "$data still has only $n callchain samples after $((tries - 1)) longer recordings"
		[ "$n" -gt 0 ] || die "$data has no callchain samples"
		# Scale the duration to the shortfall, with 15 % headroom.
		new=$(awk -v s="$secs" -v n="$n" -v m="$min" 'BEGIN { x = s * m * 1.15 / n; if (x < s + 1) x = s + 1; printf "%d", x + 0.999 }')
		[ "$new" -le $MAX_SECONDS ] || new=$MAX_SECONDS
		[ "$new" -gt "$secs" ] || die "$data has $n < $min callchain samples and recording longer than ${MAX_SECONDS}s is not allowed"
		echo "bench_perf: $data has only $n callchain samples (< $min); re-recording with -s $new instead of -s $secs" >&2
		secs=$new
		record "$data" "$secs"
		recorded_note="recorded now, $(basename "$workload") $(wl_args "$secs") (re-recorded longer to reach $min samples)"
	done
fi
samples=$(count_samples "$data")
if [ -n "$input" ] && [ $quick = 0 ] && [ -n "$samples" ] && [ "$samples" -lt "$MIN_SAMPLES" ]; then
	note "warning: $data has $samples callchain samples, fewer than the $MIN_SAMPLES the goal is stated for"
fi

# ---- helpers -----------------------------------------------------------------
human() { # human BYTES -> "12.3 MiB"
	awk -v b="$1" 'BEGIN {
		if (b == "" || b == "-") { print "-"; exit }
		split("B KiB MiB GiB", u, " "); i = 1
		while (b >= 1024 && i < 4) { b /= 1024; i++ }
		if (i == 1) printf "%d B\n", b; else printf "%.1f %s\n", b, u[i] }'
}
filesize() { wc -c <"$1" | tr -d ' '; }

# ---- header ------------------------------------------------------------------
cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
[ -n "$cpu_model" ] || cpu_model=$(uname -m)
echo "== profconv benchmark  $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:   nproc $(nproc), CPU ${cpu_model}, $(awk '{ printf "%.1f GiB RAM", $2 / 1048576; exit }' /proc/meminfo), kernel $(uname -r)"
echo "load avg:  $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
echo "perf:      $(perf --version 2>/dev/null)"
echo "profconv:  $build_note, $("$profconv" --version 2>/dev/null | head -n 1)"
echo "input:     $data ($recorded_note)"
echo "size:      $(filesize "$data") B ($(human "$(filesize "$data")"))"
echo "samples:   ${samples:-?} callchain samples"
# distinct stacks: what the converter made of them (its summary line)
stacks=$("$profconv" --no-symbols "$data" -o /dev/null 2>&1 |
	sed -n 's/.* samples, \([0-9]*\) stacks,.*/\1/p')
echo "stacks:    ${stacks:-?} distinct stacks (profconv --no-symbols)"
echo "runs:      $RUNS per tool, round-robin; /usr/bin/time -f '%e %U %S %M'"

# ---- warm-up: page cache, and output sizes of perf's text ---------------------
cat "$data" >/dev/null
out_json=$BENCH_DIR/out.json
size_script=-
size_report=-
if [ "$SIZES" = 1 ]; then
	note "untimed pass for output sizes (perf script | wc -c, perf report --stdio | wc -c)"
	size_script=$(perf script -i "$data" 2>"$logdir/perf-script-size.err" | wc -c | tr -d ' ')
	size_report=$(perf report -i "$data" --stdio 2>"$logdir/perf-report-size.err" | wc -c | tr -d ' ')
fi

# ---- timed runs --------------------------------------------------------------
tools=(profconv "perf script" "perf report")
results=$logdir/times.tsv   # tool<TAB>run<TAB>wall<TAB>user<TAB>sys<TAB>maxrss_kb
: >"$results"

run_tool() { # run_tool INDEX RUN
	local i=$1 r=$2 tf=$logdir/time.$$ name=${tools[$1]} rc=0 line
	case $i in
	0) rm -f "$out_json"
	   "$TIME" -f '%e %U %S %M' -o "$tf" "$profconv" -q "$data" -o "$out_json" \
		>/dev/null 2>"$logdir/profconv.err" || rc=$? ;;
	1) "$TIME" -f '%e %U %S %M' -o "$tf" perf script -i "$data" \
		>/dev/null 2>"$logdir/perf-script.err" || rc=$? ;;
	2) "$TIME" -f '%e %U %S %M' -o "$tf" perf report -i "$data" --stdio \
		>/dev/null 2>"$logdir/perf-report.err" || rc=$? ;;
	esac
	if [ $rc -ne 0 ]; then
		echo "bench_perf: $name exited with status $rc; its stderr:" >&2
		tail -n 20 "$logdir/$(echo "$name" | tr ' ' '-').err" >&2
		exit 1
	fi
	line=$(tail -n 1 "$tf")
	rm -f "$tf"
	# shellcheck disable=SC2086 # split the four numbers
	set -- $line
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$r" "$1" "$2" "$3" "$4" >>"$results"
	printf '  run %d/%d  %-12s wall %6.2f s  cpu %6.2f s  rss %6.1f MiB\n' \
		"$r" "$RUNS" "$name" "$1" "$(awk -v u="$2" -v s="$3" 'BEGIN { print u + s }')" \
		"$(awk -v k="$4" 'BEGIN { print k / 1024 }')"
}

echo
echo "-- runs"
n=${#tools[@]}
for ((r = 1; r <= RUNS; r++)); do
	for ((k = 0; k < n; k++)); do
		run_tool $(((r - 1 + k) % n)) "$r"
	done
done
size_json=$(filesize "$out_json")

# ---- statistics --------------------------------------------------------------
tstat() { # tstat TOOL FIELD -> median min max of FIELD for TOOL
	# FIELD: wall | cpu | rss (KiB)
	awk -F'\t' -v t="$1" -v f="$2" '$1 == t {
		v = (f == "wall") ? $3 : (f == "cpu") ? $4 + $5 : $6
		print v }' "$results" | sort -g | awk '
		{ a[NR] = $1 }
		END { if (NR == 0) { print "- - -"; exit }
		      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      print m, a[1], a[NR] }'
}

declare -A med_wall min_wall med_cpu max_rss
for t in "${tools[@]}"; do
	read -r m lo _ <<<"$(tstat "$t" wall)"; med_wall[$t]=$m; min_wall[$t]=$lo
	read -r m _ _ <<<"$(tstat "$t" cpu)"; med_cpu[$t]=$m
	read -r _ _ hi <<<"$(tstat "$t" rss)"; max_rss[$t]=$hi
done

echo
echo "-- results ($RUNS runs each; load avg now $(cut -d' ' -f1-3 /proc/loadavg))"
echo
printf '| %-36s | %13s | %10s | %12s | %11s | %11s |\n' tool "median wall s" "min wall s" "median CPU s" "max RSS MiB" "output size"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..38})" "$(printf -- '-%.0s' {1..14})-" \
	"$(printf -- '-%.0s' {1..12})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..13})" "$(printf -- '-%.0s' {1..13})"
row() { # row LABEL TOOL SIZE
	printf '| %-36s | %13.2f | %10.2f | %12.2f | %11.1f | %11s |\n' "$1" \
		"${med_wall[$2]}" "${min_wall[$2]}" "${med_cpu[$2]}" \
		"$(awk -v k="${max_rss[$2]}" 'BEGIN { print k / 1024 }')" "$(human "$3")"
}
row "profconv FILE -o OUT.json" profconv "$size_json"
row "perf script > /dev/null" "perf script" "$size_script"
row "perf report --stdio > /dev/null" "perf report" "$size_report"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "inf" }'; }
echo
printf 'ratio perf script / profconv:  wall %s, CPU %s\n' \
	"$(ratio "${med_wall[perf script]}" "${med_wall[profconv]}")" \
	"$(ratio "${med_cpu[perf script]}" "${med_cpu[profconv]}")"
printf 'ratio perf report / profconv:  wall %s, CPU %s\n' \
	"$(ratio "${med_wall[perf report]}" "${med_wall[profconv]}")" \
	"$(ratio "${med_cpu[perf report]}" "${med_cpu[profconv]}")"
rss_kb=${max_rss[profconv]}
rss_ok=$(awk -v k="$rss_kb" -v b="$RSS_BUDGET_MB" 'BEGIN { print (k * 1024 < b * 1e6) ? 1 : 0 }')
printf 'profconv peak RSS:             %.1f MiB = %.1f MB of the %d MB budget (%.0f %%)\n' \
	"$(awk -v k="$rss_kb" 'BEGIN { print k / 1024 }')" \
	"$(awk -v k="$rss_kb" 'BEGIN { print k * 1024 / 1e6 }')" "$RSS_BUDGET_MB" \
	"$(awk -v k="$rss_kb" -v b="$RSS_BUDGET_MB" 'BEGIN { print k * 1024 / (b * 1e6) * 100 }')"
limit=$(awk -v w="${med_wall[perf script]}" -v f="$SPEED_FACTOR" 'BEGIN { printf "%.3f", w / f }')
wall_ok=$(awk -v p="${med_wall[profconv]}" -v l="$limit" 'BEGIN { print (p <= l) ? 1 : 0 }')

if "$profconv" validate "$out_json" >"$logdir/validate.log" 2>&1; then
	valid=ok
elif grep -q 'not built yet' "$logdir/validate.log"; then
	valid="not available in this profconv build"
else
	valid="FAILED (see $logdir/validate.log)"
fi
echo "profconv validate OUT.json:    $valid"
cpu_ok=$(awk -v p="${med_cpu[profconv]}" -v s="${med_cpu[perf script]}" -v f="$SPEED_FACTOR" 'BEGIN { print (p <= s / f) ? "yes" : "no" }')
echo "CPU view (for a busy machine): profconv median CPU <= perf script median CPU / $SPEED_FACTOR: $cpu_ok"

busy=$(awk -v n="$(nproc)" '{ print ($1 > n) ? 1 : 0 }' /proc/loadavg)
if [ "$busy" = 1 ]; then
	echo "warning: the machine is busy (load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs): wall times are inflated; compare CPU s or min wall s"
fi

echo
if [ "$wall_ok" = 1 ] && [ "$rss_ok" = 1 ]; then verdict=PASS; else verdict=FAIL; fi
printf '%s: profconv median wall %.2f s %s perf script median wall / %d = %.2f s; peak RSS %.1f MB %s %d MB\n' \
	"$verdict" "${med_wall[profconv]}" "$([ "$wall_ok" = 1 ] && echo '<=' || echo '>')" \
	"$SPEED_FACTOR" "$limit" "$(awk -v k="$rss_kb" 'BEGIN { print k * 1024 / 1e6 }')" \
	"$([ "$rss_ok" = 1 ] && echo '<' || echo '>=')" "$RSS_BUDGET_MB"
if [ -n "$samples" ] && [ "$samples" -lt "$MIN_SAMPLES" ]; then
	echo "(note: $samples samples < $MIN_SAMPLES: a smoke run, not the goal's measurement)"
fi
echo "raw times: $results"
case $valid in FAILED*) exit 1 ;; esac
status=0
# A quick run only smoke-tests the pipeline: its verdict does not set the status.
[ $quick = 1 ] || [ "$verdict" = PASS ] || status=1
if [ $deep = 0 ] && [ $quick = 0 ] && [ $one = 0 ] && [ -z "$input" ]; then
	echo
	echo "== the second recording: deep, varied stacks (--deep)"
	extra=()
	[ $rerecord = 1 ] && extra+=(--rerecord)
	PROFCONV=$profconv "$0" --deep "${extra[@]}" || status=1
	echo
	echo "== the third recording: --call-graph dwarf (bench_dwarf.sh)"
	[ $rerecord = 0 ] || rm -f "$BENCH_DIR/dwarf.data"
	BENCH_DIR=$BENCH_DIR PROFCONV=$profconv RUNS=$RUNS "$here/bench_dwarf.sh" "$BENCH_DIR/dwarf.data" ||
		status=1
fi
exit $status
