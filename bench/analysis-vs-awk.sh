#!/bin/sh
# analysis-vs-awk: `rxdeck frames` on a million-frame log and `rxdeck report`
# on a campaign's database, each against a plain awk/sort pipeline that
# computes the same percentiles (DESIGN.md 9: under 0.5 s and under 1 s).
#
#   bench/analysis-vs-awk.sh BUILD_DIR DATABASE [CAMPAIGN] [FRAMES] [REPEATS]
#
# FRAMES (default 1000000) rows of a renderer frame log at ~60 fps are
# written to a temporary file.  Each repetition runs, interleaved:
#   rxdeck frames LOG --json                    (fps, p50/p95/p99, ...)
#   awk/sort: real frames' present-to-present intervals, sorted, the
#             nearest-rank p50/p95/p99 and the real fps
#   rxdeck report CAMPAIGN --db DATABASE --format md > /dev/null
#   sqlite3 | sort | awk: each arm's finished runs' real_fps, their median
#             and nearest-rank p10/p90
# and prints wall-clock min / median / max of REPEATS (default 5) for each,
# and the two sides' percentiles once, to show they agree.
set -eu
build=$(cd "${1:?usage: analysis-vs-awk.sh BUILD_DIR DATABASE [CAMPAIGN] [FRAMES] [REPEATS]}" && pwd)
db=${2:?a results database}
camp=${3:-night}
n=${4:-1000000}
reps=${5:-5}
t=$(mktemp -d /tmp/rxdeck-vs-awk-XXXXXX)
trap 'rm -rf "$t"' EXIT
awk -v n="$n" 'BEGIN {
	srand(7); t = 1000000000000; print "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms"
	for (i = 0; i < n; i++) {
		d = 16666667 + int((rand() - 0.5) * 4000000); if (i % 997 == 0) d += 50000000
		t += d; printf "%d,%.0f,%s,%.3f,%d,%.3f,%.3f\n", i, t, (i % 4 == 3) ? "shown" : "real", d / 1e6, 1200, 0, 0.01
	} }' > "$t/frames.csv"
frames_awk() {
	awk -F, 'NR > 1 && $3 == "real" { if (p) print ($2 - p) / 1e6; else first = $2; p = $2; n++ }
		END { printf "fps %.4f\n", (n - 1) / ((p - first) / 1e9) > "/dev/stderr" }' "$t/frames.csv" |
		sort -g | awk '{ v[NR] = $1 } END {
			printf "p50 %.3f p95 %.3f p99 %.3f\n", v[int(NR * 0.50 + 0.999999)], v[int(NR * 0.95 + 0.999999)], v[int(NR * 0.99 + 0.999999)] }'
}
report_awk() {
	sqlite3 -separator ' ' "$db" "SELECT a.letter, m.value FROM metric m JOIN run r ON r.id = m.run_id
		JOIN arm a ON a.id = r.arm_id JOIN campaign c ON c.id = r.campaign_id
		WHERE c.name = '$camp' AND r.status = 'done' AND NOT r.is_warmup AND m.name = 'real_fps'" |
		sort -k1,1 -k2,2g | awk '{ if ($1 != a && n) out(); a = $1; v[++n] = $2 } END { out() }
		function out() { printf "%s: median %.3f p10 %.3f p90 %.3f (%d runs)\n", a,
			(n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[int(n * 0.1 + 0.999999)], v[int(n * 0.9 + 0.999999)], n; n = 0 }'
}
now() { date +%s.%N; }
for r in $(seq "$reps"); do
	a=$(now); "$build/harness/rxdeck" frames "$t/frames.csv" --json > "$t/f.json"; b=$(now)
	echo "rxdeck-frames $(echo "$b - $a" | bc)" >> "$t/times"
	a=$(now); frames_awk > "$t/f.awk" 2>&1; b=$(now)
	echo "awk-frames $(echo "$b - $a" | bc)" >> "$t/times"
	a=$(now); "$build/harness/rxdeck" report "$camp" --db "$db" --format md > /dev/null; b=$(now)
	echo "rxdeck-report $(echo "$b - $a" | bc)" >> "$t/times"
	a=$(now); report_awk > "$t/r.awk"; b=$(now)
	echo "awk-report $(echo "$b - $a" | bc)" >> "$t/times"
done
echo "$n frames ($(du -m "$t/frames.csv" | cut -f1) MB); campaign '$camp': $(sqlite3 "$db" "SELECT count(*) FROM run r JOIN campaign c ON c.id = r.campaign_id WHERE c.name = '$camp'") runs; $reps repetitions, interleaved; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| what | min / median / max, s |"
echo "|---|---|"
for k in rxdeck-frames awk-frames rxdeck-report awk-report; do
	grep "^$k " "$t/times" | cut -d' ' -f2 | sort -g |
		awk -v k="$k" '{ v[NR] = $1 } END { printf "| %s | %.3f / %.3f / %.3f |\n", k, v[1], v[int((NR + 1) / 2)], v[NR] }'
done
echo
echo "rxdeck frames: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print("fps %.4f p50 %.3f p95 %.3f p99 %.3f" % (d["real_fps"], d["p50_ms"], d["p95_ms"], d["p99_ms"]))' "$t/f.json")"
echo "awk/sort:      $(tr '\n' ' ' < "$t/f.awk")"
echo "awk/sort on the database's real_fps:"
cat "$t/r.awk"
