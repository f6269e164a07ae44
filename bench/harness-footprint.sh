#!/bin/sh
# harness-footprint: what the harness itself costs while a long route plays
# (DESIGN.md 9: under 0.5 % of one core; route events within 1 ms at p99).
#
#   bench/harness-footprint.sh BUILD_DIR [MINUTES]      (default 10)
#
# Makes a route of MINUTES minutes (a walk, a pan, a press and a trigger
# every 5 s), then:
#  1. `rxdeck run` of one run of the demo game on lavapipe (which keeps both
#     cores busy) through the socket pad; the rxdeck process's own CPU
#     (utime + stime from /proc, its children not included) and its peak
#     RSS (VmHWM) are read every second until it exits; the route's lateness
#     p99 and max come from the run's metrics;
#  2. bench-route on the same route with --busy: the route player alone,
#     lateness p50/p99/max against schedule and its CPU from getrusage.
# Prints one Markdown table.  Needs rxdeck, rxdeck-forest and bench-route in
# BUILD_DIR.
set -eu
build=$(cd "${1:?usage: harness-footprint.sh BUILD_DIR [MINUTES]}" && pwd)
min=${2:-10}
src=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d /tmp/rxdeck-footprint-XXXXXX)
trap 'rm -rf "$t"' EXIT
s=$((min * 60))
{
	echo "route footprint"
	echo "duration ${s}s"
	echo "window 2s $((s - 1))s"
	i=0
	while [ $i -lt $((s - 5)) ]; do
		echo "${i}s press A 100ms"
		echo "$((i + 1))s stick left 0 -1 for 2s"
		echo "$((i + 3))s stick right 1 0 for 1s"
		echo "$((i + 4))s trigger right 0.5 for 500ms"
		i=$((i + 5))
	done
} > "$t/long.route"
cat > "$t/plan.ini" <<PLAN
[campaign]
name = footprint
route = $t/long.route
order = A
rounds = 1
warmup = no
pad = socket
[build forest]
command = $build/renderer/forest/rxdeck-forest --size 320x180 --log-every 0
pad_option = --pad
[arm A]
label = off
PLAN
export XDG_DATA_HOME="$t/data" TMPDIR="$t" RX_VK_DEVICE=llvmpipe
"$build/harness/rxdeck" run "$t/plan.ini" --db "$t/r.db" -q > "$t/run.txt" 2>&1 &
pid=$!
t0=$(date +%s.%N)
tck=$(getconf CLK_TCK)
cpu=0
hwm=0
while kill -0 $pid 2>/dev/null; do
	c=$(awk '{print $14 + $15}' /proc/$pid/stat 2>/dev/null || echo "")
	h=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || echo "")
	[ -n "$c" ] && cpu=$c
	[ -n "$h" ] && hwm=$h
	sleep 1
done
wait $pid || true
t1=$(date +%s.%N)
late=$(sqlite3 "$t/r.db" "SELECT group_concat(printf('%.3f', value), ' / ') FROM (SELECT value FROM metric WHERE name IN ('route_late_p99_ms', 'route_late_max_ms') ORDER BY name DESC)")
status=$(sqlite3 "$t/r.db" "SELECT status || coalesce(': ' || void_reason, '') FROM run")
echo "machine: $(nproc) cores, load average before the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rxdeck run: the run $status"
echo
echo "| measure | value |"
echo "|---|---|"
awk -v c="$cpu" -v k="$tck" -v a="$t0" -v b="$t1" 'BEGIN {
	printf "| rxdeck run: CPU of the harness process (its children not included) | %.2f s over %.1f s: %.3f%% of one core |\n", c / k, b - a, 100 * c / k / (b - a) }'
echo "| rxdeck run: peak RSS of the harness process (VmHWM) | $((hwm / 1024)) MiB ($hwm KiB) |"
echo "| rxdeck run: route lateness p99 / max (the run's metrics) | $late ms |"
"$build/bench/bench-route" "$t/long.route" --busy | grep '^| [a-zA-Z]' | grep -v '^| measure' |
	sed 's/^| /| bench-route --busy: /'
