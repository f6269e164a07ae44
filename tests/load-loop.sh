#!/usr/bin/env bash
# load-loop.sh: the tests named, ROUNDS rounds in a row on a machine kept
# busy on purpose.  While the loop runs, `stress-ng --cpu N` (LOAD_WORKERS,
# default 4; two shell busy loops a worker where stress-ng is missing)
# keeps the CPUs spinning on top of whatever else the machine runs; each
# round is one `meson test` of all the tests named, two at a time, never
# retried.  It prints a line a round: passed or the tests that failed, how
# long the round took and the range of the 1-minute load average sampled
# every 5 s during it; then a summary.  It stops at the first failing round
# (KEEP_GOING=1 runs every round) and keeps that round's meson log,
# BUILD/meson-logs/load-loop-N.txt.  Exit status 0 when every round passed.
#
#   tests/load-loop.sh BUILD-DIR ROUNDS TEST...
#   tests/load-loop.sh build 20 run-sequential route-player rxvk-readback
set -uo pipefail

if [ $# -lt 3 ]; then
	echo "usage: tests/load-loop.sh BUILD-DIR ROUNDS TEST..." >&2
	exit 2
fi
build=$1 rounds=$2
shift 2
case $rounds in
'' | *[!0-9]*) echo "load-loop: ROUNDS '$rounds' is not a number" >&2; exit 2 ;;
esac
[ -f "$build/build.ninja" ] || { echo "load-loop: '$build' is not a meson build folder" >&2; exit 2; }
workers=${LOAD_WORKERS:-4}
meson compile -C "$build" >/dev/null || { echo "load-loop: '$build' does not build" >&2; exit 2; }

load_pids=""
stop_load() {
	for p in $load_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $load_pids; do
		wait "$p" 2>/dev/null
	done
	load_pids=""
}
trap 'stop_load' EXIT
trap 'exit 130' INT TERM
if command -v stress-ng >/dev/null 2>&1; then
	stress-ng --cpu "$workers" --quiet &
	load_pids=$!
	echo "load: stress-ng --cpu $workers (pid $load_pids)"
else
	for _ in $(seq $((2 * workers))); do
		sh -c 'while :; do :; done' &
		load_pids="$load_pids $!"
	done
	echo "load: $((2 * workers)) shell busy loops (pids$load_pids)"
fi

passed=0 failed=0 all_lo="" all_hi=""
for round in $(seq "$rounds"); do
	samples=$(mktemp)
	( while :; do cut -d' ' -f1 /proc/loadavg; sleep 5; done ) >"$samples" &
	sampler=$!
	start=$(date +%s)
	meson test -C "$build" --no-rebuild --num-processes 2 --logbase "load-loop-$round" "$@" \
		>"$build/meson-logs/load-loop-$round.out" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	cut -d' ' -f1 /proc/loadavg >>"$samples"
	lo=$(sort -g "$samples" | head -1) hi=$(sort -g "$samples" | tail -1)
	rm -f "$samples"
	all_lo=$(printf '%s\n' "$lo" $all_lo | sort -g | head -1)
	all_hi=$(printf '%s\n' "$hi" $all_hi | sort -g | tail -1)
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "round $round: passed in ${took} s, load average $lo-$hi"
		rm -f "$build/meson-logs/load-loop-$round".*
	else
		failed=$((failed + 1))
		names=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|ERROR) ' "$build/meson-logs/load-loop-$round.out" |
		        awk '{print $4}' | tr '\n' ' ')
		echo "round $round: FAILED ${names:-(meson exited $rc)}in ${took} s, load average $lo-$hi" \
		     "(log: $build/meson-logs/load-loop-$round.txt)"
		[ "${KEEP_GOING:-0}" = 1 ] || break
	fi
done
echo "load-loop: $passed passed, $failed failed of $rounds rounds; load average $all_lo-$all_hi;" \
     "tests: $*"
[ $failed -eq 0 ] && [ $passed -eq "$rounds" ]
