#!/bin/sh
# logging-cost: what logging every frame costs the demo game: the
# renderer's own frame log (RX_FRAME_LOG) against MangoHud's logging layer
# (MANGOHUD=1, autostart_log=1, log_interval=0: every frame; no_display, so
# its overlay draws nothing; MangoHud 0.6.8 writes its CSV when logging
# stops, so log_duration stops it 1 s before the end: it logs from 1 s to
# SECONDS - 1 s) against neither, on the same scene.
#
#   bench/logging-cost.sh BUILD_DIR [SECONDS] [REPEATS] [FOREST OPTIONS...]
#
# rxdeck-forest runs SECONDS (default 5) in an X window (MangoHud hooks the
# present; under xvfb-run when there is no DISPLAY), the three arms
# interleaved REPEATS times (default 10), RX_VK_DEVICE as set (default
# llvmpipe).  FOREST OPTIONS default to the smallest scene (64x64, 64 draws,
# no extra ALU, no job work), which runs at hundreds of frames a second, so
# that a cost of a few microseconds a frame is not lost in the frame time.
# Per arm, min / median / max of:
#   - real fps, from the game's own exit line;
#   - CPU a frame: the process's user + system time (getrusage of the child,
#     through /usr/bin/time) over its real frames, in µs;
# and each logging arm's medians against neither's (+x % is costlier).  The
# renderer's log also times itself (the `vk: frame log:` line: presenter
# time spent formatting and writing rows); that figure against the median
# frame time is the direct answer to "under 0.5 % of frame time".  Both logs
# are checked to hold a row per frame while they logged.
#
# LOGGING_COST_PERF=yes adds three MangoHud runs under `perf record` (at
# 4999 Hz, the game wrapped in /usr/bin/time): the share of the process's
# CPU samples that fall in MangoHud's own library (libMangoHud*.so) times
# that run's CPU a frame is the time MangoHud's own code takes a frame, a
# lower bound on its cost (its calls into libc, libstdc++ and the driver
# are not counted), to set beside the renderer's log timing itself.
#
# LOGGING_COST_WINDOW=no runs the game offscreen (no X: a machine without
# one, such as a GPU server); MangoHud has no present to hook there, so its
# arm is left out and the table says so.
set -eu
build=$(cd "${1:?usage: logging-cost.sh BUILD_DIR [SECONDS] [REPEATS] [FOREST OPTIONS...]}" && pwd)
secs=${2:-5}
reps=${3:-10}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- --size 64x64 --draws 64 --scale 0.1 --alu 0 --cull-alu 0 --job-ms 0 --switches 2 --view 10
window=--window
arms="neither rxvk mangohud"
if [ "${LOGGING_COST_WINDOW:-yes}" = no ]; then
	window=
	arms="neither rxvk"
elif [ -z "${DISPLAY:-}" ]; then
	exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$build" "$secs" "$reps" "$@"
fi
[ -x /usr/bin/time ] || { echo "logging-cost: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
export RX_VK_DEVICE=${RX_VK_DEVICE:-llvmpipe}
t=$(mktemp -d /tmp/rxdeck-logcost-XXXXXX)
trap 'rm -rf "$t"' EXIT
forest="$build/renderer/forest/rxdeck-forest"
run() {   # ARM FOREST-OPTIONS...: one run; fps, frames, rows, CPU µs a frame, log µs a row into $t/res
	arm=$1
	shift
	rm -rf "$t/mh" "$t/frames.csv"
	mkdir -p "$t/mh"
	set -- /usr/bin/time -f "cpu %U %S" -o "$t/cpu.txt" "$forest" $window --seconds "$secs" --pad none --log-every 0 "$@"
	case $arm in
	neither) env -u MANGOHUD -u RX_FRAME_LOG "$@" ;;
	rxvk) env -u MANGOHUD RX_FRAME_LOG="$t/frames.csv" "$@" ;;
	mangohud) env -u RX_FRAME_LOG MANGOHUD=1 \
		MANGOHUD_CONFIG="no_display,autostart_log=1,log_duration=$((secs - 2)),log_interval=0,output_folder=$t/mh" "$@" ;;
	esac > "$t/out.txt" 2>&1 || echo "logging-cost: the $arm run failed: $(tail -n 3 "$t/out.txt")" >&2
	line=$(sed -n 's/.*forest: stopped after \([0-9]*\) real frames ([0-9]* presented) in \([0-9.]*\) s.*/\1 \2/p' "$t/out.txt")
	frames=${line%% *}
	fps=$(echo "$line" | awk '{ printf "%.3f", $1 / $2 }')
	cpu=$(awk -v n="$frames" '$1 == "cpu" { printf "%.2f", ($2 + $3) * 1e6 / n }' "$t/cpu.txt")
	rows=- logus=-
	if [ "$arm" = rxvk ]; then
		rows=$(($(grep -c ',real,' "$t/frames.csv") + 0))
		logus=$(sed -n 's/.*vk: frame log: [0-9]* rows, \([0-9.]*\) us a row.*/\1/p' "$t/out.txt")
		[ "$rows" = "$frames" ] || echo "logging-cost: the renderer's log has $rows rows for $frames real frames" >&2
	fi
	[ "$arm" = mangohud ] && rows=$(cat "$t"/mh/*.csv 2>/dev/null | grep -c '^[0-9]' || true)
	echo "$arm $fps $frames $rows $cpu ${logus:--}" >> "$t/res"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$reps"); do
	for arm in $arms; do
		run $arm "$@"
	done
done
echo "rxdeck-forest $window --seconds $secs $* on $RX_VK_DEVICE, $reps rounds interleaved;" \
	"$(nproc) cores, load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "| arm | real fps min / median / max | CPU a frame min / median / max, µs | median fps against neither | median CPU a frame against neither | rows logged a run, min / max |"
echo "|---|---|---|---|---|---|"
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
bfps=$(awk '$1 == "neither" { print $2 }' "$t/res" | med | awk '{ print $2 }')
bcpu=$(awk '$1 == "neither" { print $5 }' "$t/res" | med | awk '{ print $2 }')
for arm in $arms; do
	f=$(awk -v a=$arm '$1 == a { print $2 }' "$t/res" | med)
	c=$(awk -v a=$arm '$1 == a { print $5 }' "$t/res" | med)
	rw=$(awk -v a=$arm '$1 == a && $4 != "-" { print $4 }' "$t/res" | med)
	[ -n "$(echo "$rw" | tr -d ' ')" ] || rw="- - -"
	echo "$arm $f $c $rw" | awk -v bf="$bfps" -v bc="$bcpu" '{
		vs_f = $1 == "neither" ? "-" : sprintf("%+.2f %%", 100 * (bf / $3 - 1))
		vs_c = $1 == "neither" ? "-" : sprintf("%+.2f %%", 100 * ($6 / bc - 1))
		printf "| %s | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %s | %s | %s / %s |\n",
			$1, $2, $3, $4, $5, $6, $7, vs_f, vs_c, $8, $10 }'
done
for arm in $arms; do
	echo "$arm, each run in order: fps $(awk -v a=$arm '$1 == a { printf "%s ", $2 }' "$t/res"); CPU µs a frame $(awk -v a=$arm '$1 == a { printf "%s ", $5 }' "$t/res")"
done | sed 's/^/    /' > "$t/raw"
[ -n "$window" ] || echo "| mangohud | not run: offscreen, MangoHud has no present to hook | | | | |"
echo
awk '$1 == "rxvk" { print $6 }' "$t/res" | med | awk -v bf="$bfps" '{
	printf "the renderer'"'"'s log timing itself: %.2f / %.2f / %.2f µs a row (min / median / max of the runs);\n", $1, $2, $3
	printf "at neither'"'"'s median frame time (%.3f ms) the median is %.3f %% of a frame\n", 1000 / bf, 100 * $2 / (1e6 / bf) }'
echo
cat "$t/raw"
if [ "${LOGGING_COST_PERF:-no}" = yes ] && [ -n "$window" ]; then
	command -v perf > /dev/null || { echo "logging-cost: LOGGING_COST_PERF=yes needs perf (Debian package linux-perf)" >&2; exit 1; }
	echo
	for k in 1 2 3; do
	rm -rf "$t/mh" && mkdir -p "$t/mh"
	env -u RX_FRAME_LOG MANGOHUD=1 \
		MANGOHUD_CONFIG="no_display,autostart_log=1,log_duration=$((secs - 2)),log_interval=0,output_folder=$t/mh" \
		perf record -q -F 4999 -o "$t/perf.data" -- /usr/bin/time -f "cpu %U %S" -o "$t/cpu.txt" \
		"$forest" --window --seconds "$secs" --pad none --log-every 0 "$@" \
		> "$t/out.txt" 2>&1 || echo "logging-cost: the perf run failed: $(tail -n 3 "$t/out.txt")" >&2
	frames=$(sed -n 's/.*forest: stopped after \([0-9]*\) real frames.*/\1/p' "$t/out.txt")
	perf report -i "$t/perf.data" --sort dso --stdio 2> /dev/null |
		awk '/libMangoHud/ { sub("%", "", $1); s += $1 } END { printf "%.3f\n", s + 0 }' > "$t/share"
	awk -v n="$frames" -v share="$(cat "$t/share")" '$1 == "cpu" { c = ($2 + $3) * 1e6 / n
		printf "MangoHud under perf record (4999 Hz, one run of %d real frames, %.1f µs of CPU a frame): ", n, c
		printf "%.3f %% of the process'"'"'s CPU samples in libMangoHud*.so,\n", share
		printf "so at least %.2f µs a frame of MangoHud'"'"'s own code (its calls into other libraries not counted)\n", share / 100 * c }' "$t/cpu.txt"
	done
fi
