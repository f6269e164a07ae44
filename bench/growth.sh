#!/bin/sh
# growth: how the harness's and the renderer's costs grow with size.
#
#   bench/growth.sh BUILD_DIR EXPORT.json [REPEATS]
#
#  - frames: bench-frames at 10k, 100k, 1M and 10M frames (the renderer
#    log's read + parse + metrics, median of REPEATS), with the process's
#    peak RSS (/usr/bin/time; it holds the renderer log and a MangoHud log
#    of the same length);
#  - runs: `rxdeck report` (Markdown) on one campaign of 10, 100, 1000 and
#    2000 runs in one database, made by `rxdeck db import` of EXPORT.json
#    (an `rxdeck db export` of a real campaign) with its runs repeated;
#  - guest memory: the demo game's start-up to its first frame and exit
#    (`rxdeck-forest --frames 1`, 64x64, on RX_VK_DEVICE, default
#    llvmpipe) at RX_VK_GUEST_MB 256,
#    1024, 2048 and 4096, interleaved; a size the device refuses is shown
#    with the game's error.
# Times are min / median / max of REPEATS (default 3), wall clock.
# GROWTH_ONLY=frames,runs,guest (the default) picks the parts to run.
set -eu
only=${GROWTH_ONLY:-frames,runs,guest}
build=$(cd "${1:?usage: growth.sh BUILD_DIR EXPORT.json [REPEATS]}" && pwd)
export_json=${2:?an rxdeck db export}
reps=${3:-3}
t=$(mktemp -d /tmp/rxdeck-growth-XXXXXX)
trap 'rm -rf "$t"' EXIT
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f / %.3f / %.3f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
now() { date +%s.%N; }
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
want() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }
if want frames; then
echo
echo "| frames | read + parse + metrics, renderer log: best / median, s | peak RSS of bench-frames |"
echo "|---|---|---|"
for n in 10000 100000 1000000 10000000; do
	TMPDIR=$t /usr/bin/time -f '%M' -o "$t/rss" "$build/bench/bench-frames" "$n" "$reps" > "$t/bf.txt" 2>&1
	line=$(awk '/^renderer frame log/ { f = 1 } f && $1 == "total" { print $3 " / " $6; exit }' "$t/bf.txt")
	echo "| $n | $line | $(($(tail -n 1 "$t/rss") / 1024)) MiB |"
done
fi
if want runs; then
echo
echo "| runs in the campaign | rxdeck report: min / median / max, s | database size |"
echo "|---|---|---|"
for n in 10 100 1000 2000; do
	python3 - "$export_json" "$n" "$t/x.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
c = d["campaigns"][0]
src = [r for r in c["runs"] if not r["is_warmup"]]
runs = []
for i in range(n):
    r = copy.deepcopy(src[i % len(src)])
    r["position"] = i + 1
    r["round"] = i // len(c["order"]) + 1
    r["arm"] = c["order"][i % len(c["order"])]
    runs.append(r)
c["runs"] = runs
c["rounds"] = (n + len(c["order"]) - 1) // len(c["order"])
c["name"] = "growth-%d" % n
c["posts"] = []
d["campaigns"] = [c]
d["posts"] = []
json.dump(d, open(sys.argv[3], "w"))
PY
	rm -f "$t/g.db"
	"$build/harness/rxdeck" db import "$t/x.json" --db "$t/g.db" > /dev/null
	for r in $(seq "$reps"); do
		a=$(now); "$build/harness/rxdeck" report "growth-$n" --db "$t/g.db" --format md > /dev/null; b=$(now)
		echo "$b - $a" | bc
	done > "$t/rt"
	echo "| $n | $(stats < "$t/rt") | $(($(stat -c %s "$t/g.db") / 1048576)) MiB |"
done
fi
if want guest; then
echo
echo "| RX_VK_GUEST_MB | rxdeck-forest --frames 1: min / median / max, s |"
echo "|---|---|"
sizes="256 1024 2048 4096"
for r in $(seq "$reps"); do
	for mb in $sizes; do
		a=$(now)
		if RX_VK_DEVICE=${RX_VK_DEVICE:-llvmpipe} RX_VK_GUEST_MB=$mb "$build/renderer/forest/rxdeck-forest" --frames 1 \
			--size 64x64 --pad none > "$t/out" 2>&1; then
			b=$(now)
			echo "$b - $a" | bc >> "$t/g$mb"
		else
			grep -m 1 'cannot start' "$t/out" > "$t/e$mb" || true
		fi
	done
done
for mb in $sizes; do
	if [ -s "$t/g$mb" ]; then
		echo "| $mb | $(stats < "$t/g$mb") |"
	else
		echo "| $mb | does not start: $(cat "$t/e$mb") |"
	fi
done
fi
