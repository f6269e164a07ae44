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
# rxdeck-forest runs SECONDS (default 10) in an X window, with FOREST
# OPTIONS (default --size 320x180 --draws 300 --job-ms 0.5) (MangoHud hooks the
# present; under xvfb-run when there is no DISPLAY), the three arms
# interleaved REPEATS times (default 3), RX_VK_DEVICE as set (default
# llvmpipe).  Per arm: the real fps from the game's own exit line, min /
# median / max, and each logging arm's frame time against neither's medians
# (+x % is slower).  Both logs are checked to hold a row per frame.
set -eu
build=$(cd "${1:?usage: logging-cost.sh BUILD_DIR [SECONDS] [REPEATS] [FOREST OPTIONS...]}" && pwd)
secs=${2:-10}
reps=${3:-3}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- --size 320x180 --draws 300 --job-ms 0.5
if [ -z "${DISPLAY:-}" ]; then
	exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$build" "$secs" "$reps" "$@"
fi
export RX_VK_DEVICE=${RX_VK_DEVICE:-llvmpipe}
t=$(mktemp -d /tmp/rxdeck-logcost-XXXXXX)
trap 'rm -rf "$t"' EXIT
forest="$build/renderer/forest/rxdeck-forest"
run() {   # ARM FOREST-OPTIONS...: one run, its fps and rows into $t/res
	arm=$1
	shift
	rm -rf "$t/mh" "$t/frames.csv"
	mkdir -p "$t/mh"
	case $arm in
	neither) env -u MANGOHUD "$forest" --window --seconds "$secs" --pad none --log-every 0 "$@" ;;
	rxvk) RX_FRAME_LOG="$t/frames.csv" "$forest" --window --seconds "$secs" --pad none --log-every 0 "$@" ;;
	mangohud) MANGOHUD=1 MANGOHUD_CONFIG="no_display,autostart_log=1,log_duration=$((secs - 2)),log_interval=0,output_folder=$t/mh" \
		"$forest" --window --seconds "$secs" --pad none --log-every 0 "$@" ;;
	esac > "$t/out.txt" 2>&1 || echo "logging-cost: the $arm run failed: $(tail -n 3 "$t/out.txt")" >&2
	# real frames over the game's own running time (its exit line)
	fps=$(sed -n 's/.*forest: stopped after \([0-9]*\) real frames ([0-9]* presented) in \([0-9.]*\) s.*/\1 \2/p' \
		"$t/out.txt" | awk '{ printf "%.3f", $1 / $2 }')
	frames=$(sed -n 's/.*forest: stopped after \([0-9]*\) real frames.*/\1/p' "$t/out.txt")
	rows=-
	[ "$arm" = rxvk ] && rows=$(($(grep -c ',real,' "$t/frames.csv") + 0))
	[ "$arm" = mangohud ] && rows=$(cat "$t"/mh/*.csv 2>/dev/null | grep -c '^[0-9]' || true)
	echo "$arm $fps $frames $rows" >> "$t/res"
}
for r in $(seq "$reps"); do
	for arm in neither rxvk mangohud; do
		run $arm "$@"
	done
done
echo "rxdeck-forest --window --seconds $secs $* on $RX_VK_DEVICE, $reps rounds interleaved; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| arm | real fps min / median / max | frame time at the median | against neither | rows logged a run (frames) |"
echo "|---|---|---|---|---|"
base=$(awk '$1 == "neither" { print $2 }' "$t/res" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
for arm in neither rxvk mangohud; do
	awk -v a=$arm '$1 == a' "$t/res" | sort -k2,2g | awk -v a=$arm -v b="$base" '
		{ f[NR] = $2; fr[NR] = $3; rows[NR] = $4 }
		END { m = f[int((NR + 1) / 2)]; rl = ""
			for (i = 1; i <= NR; i++) rl = rl (i > 1 ? ", " : "") rows[i] " (" fr[i] ")"
			printf "| %s | %.2f / %.2f / %.2f | %.3f ms | %s | %s |\n", a, f[1], m, f[NR], 1000 / m,
				a == "neither" ? "-" : sprintf("%+.2f %%", 100 * (b / m - 1)), rl }'
done
