#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# By-hand check of `profconv gecko-dump PID` on a live Firefox (issue 25): starts
# firefox-esr headless with the profiler on from launch (1 ms, js,stackwalk,cpu) and
# MOZ_PROFILER_SHUTDOWN, on a page of JS and DOM work that closes its window after
# SECONDS; dumps the parent and the content process of the page while it runs; waits
# for Firefox's own shutdown profile; compares per thread (firefox_live_compare.py):
# samples, marker times, process labels; and loads each dump strict in the deployed
# front-end.  Needs root (reading another process's memory) and firefox-esr
# (apt-get install firefox-esr).  Not part of the test suite.
#
# usage: sudo sh bench/firefox_live_check.sh [PROFCONV]
#   PROFCONV  the profconv binary (default: build/profconv)
#   env: SECONDS_RUN (page's run time, default 20), DUMP_AT (seconds after start,
#        default 12: earlier, on a loaded machine, only the base profiler may be
#        running, whose buffer holds the main thread alone), WORK (default
#        /tmp/profconv-firefox-live), VALIDATE (the front-end's validate.sh,
#        default ~/fe-validator/validator/validate.sh)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PROFCONV=${1:-$here/../build/profconv}
PROFCONV=$(cd "$(dirname "$PROFCONV")" && pwd)/$(basename "$PROFCONV")
SECONDS_RUN=${SECONDS_RUN:-20}
DUMP_AT=${DUMP_AT:-12}
WORK=${WORK:-/tmp/profconv-firefox-live}
VALIDATE=${VALIDATE:-$HOME/fe-validator/validator/validate.sh}
FIREFOX=${FIREFOX:-firefox-esr}

[ "$(id -u)" = 0 ] || { echo "needs root (gecko-dump reads another process's memory)" >&2; exit 2; }
command -v "$FIREFOX" >/dev/null || { echo "no $FIREFOX (apt-get install firefox-esr)" >&2; exit 2; }
[ -x "$PROFCONV" ] || { echo "no profconv at $PROFCONV" >&2; exit 2; }

rm -rf "$WORK"
mkdir -p "$WORK/profile"
cp "$here/firefox_live_page.html" "$WORK/page.html"
# a fresh profile: no first-run tabs (the page's window.close() must close the last tab)
cat >"$WORK/profile/user.js" <<'PREFS'
user_pref("dom.allow_scripts_to_close_windows", true);
user_pref("browser.tabs.closeWindowWithLastTab", true);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("datareporting.policy.firstRunURL", "");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.page", 0);
user_pref("app.update.enabled", false);
PREFS

MOZ_PROFILER_STARTUP=1 MOZ_PROFILER_STARTUP_INTERVAL=1 \
MOZ_PROFILER_STARTUP_FEATURES=js,stackwalk,cpu \
MOZ_PROFILER_SHUTDOWN="$WORK/shutdown.json" \
	"$FIREFOX" --headless -no-remote -profile "$WORK/profile" \
	"file://$WORK/page.html#$SECONDS_RUN" >"$WORK/firefox.log" 2>&1 &
ff=$!
t0=$(date +%s)
trap 'kill $ff 2>/dev/null || true' EXIT INT TERM

# the content process of the page: the fork server's (or the parent's) child
# named "file:// Content" (or a web content one) by Firefox
content=
while [ $(($(date +%s) - t0)) -lt "$DUMP_AT" ] || [ -z "$content" ]; do
	[ $(($(date +%s) - t0)) -lt 60 ] || { echo "no content process for the page" >&2; exit 1; }
	# only this Firefox's processes: children of it or of its fork server
	kids=$(ps -o pid= --ppid "$ff" 2>/dev/null || true)
	for k in $kids; do
		kids="$kids $(ps -o pid= --ppid "$k" 2>/dev/null || true)"
	done
	for p in $kids; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "file:// Content" ] && content=$p
	done
	sleep 0.5
done

status=0
for what in parent content; do
	if [ $what = parent ]; then pid=$ff; else pid=$content; fi
	/usr/bin/time -f '%e' -o "$WORK/$what.time" \
		"$PROFCONV" gecko-dump "$pid" -o "$WORK/$what.pgkb" -v 2>"$WORK/$what.dump.log" ||
		{ echo "$what: gecko-dump $pid failed:" >&2; cat "$WORK/$what.dump.log" >&2; status=1; }
done

# Firefox writes its profile once the page has closed the window
i=0
while kill -0 $ff 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 240 ] || { echo "firefox did not end within 120 s after the dumps" >&2; exit 1; }
	sleep 0.5
done
trap - EXIT INT TERM
[ -s "$WORK/shutdown.json" ] || { echo "no shutdown profile (see $WORK/firefox.log)" >&2; exit 1; }

echo "firefox_live_check: $("$FIREFOX" --version 2>/dev/null), dumps at ${DUMP_AT} s, page ${SECONDS_RUN} s, load $(cut -d' ' -f1-3 /proc/loadavg)"
for what in parent content; do
	[ -s "$WORK/$what.pgkb" ] || continue
	"$PROFCONV" -t gecko "$WORK/$what.pgkb" -o "$WORK/$what.gecko.json" 2>"$WORK/$what.conv.log" || status=1
	"$PROFCONV" "$WORK/$what.pgkb" -o "$WORK/$what.processed.json" 2>>"$WORK/$what.conv.log" || status=1
	stopped=$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$WORK/$what.dump.log")
	base=$(sed -n 's/.*time base [0-9]* ns (CLOCK_MONOTONIC): //p' "$WORK/$what.dump.log")
	if [ -x "$VALIDATE" ]; then
		if "$VALIDATE" --strict --production "$WORK/$what.processed.json" >"$WORK/$what.validate.log" 2>&1; then
			valid=ok
		else
			valid=FAILED
			status=1
		fi
	else
		valid="not run (no $VALIDATE)"
	fi
	echo "$what: pid $(sed -n 's/.*pid \([0-9]*\): stopped.*/\1/p' "$WORK/$what.dump.log"), stopped ${stopped:-?} ms, whole command $(cat "$WORK/$what.time") s; time base: ${base:-?}; front-end --strict: $valid"
	base_ns=$(sed -n 's/.*time base \([0-9]*\) ns (CLOCK_MONOTONIC).*/\1/p' "$WORK/$what.dump.log")
	python3 "$here/firefox_live_compare.py" "$WORK/shutdown.json" "$WORK/$what.gecko.json" "$what" "$base_ns" || status=1
done
exit $status
