#!/usr/bin/env bash
# forest-arms: the readback arms on rxdeck-forest, interleaved, measured from
# the renderer's frame logs with `rxdeck frames --json` (docs/metrics.md
# defines every figure).  Arms: A default, B RX_VK_READBACK_EARLY=1,
# C RX_VK_READBACK_LATE=newest, D both.  Each round runs ABCDDCBA, after
# one unmeasured warm-up run.  The Markdown table goes to stdout, progress
# to stderr.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: forest-arms.sh [OPTION]... FOREST [-- GAME-ARGUMENT...]

Runs the rxdeck-forest binary FOREST in the four readback arms, interleaved
(ABCDDCBA per round), the same scene and duration in every run, and prints
a Markdown table: real fps, frame-time p50/p95/p99 and readback wait per
real frame, each arm's mean and its runs.

options:
  --rxdeck PATH    the rxdeck command that measures frame logs (default: the
                   build's harness/rxdeck next to FOREST, else rxdeck on PATH)
  --seconds S      length of each run (default 20)
  --warmup S       seconds left out at the start of each run (default 3)
  --rounds N       rounds of ABCDDCBA (default 1)
  --out DIR        keep frame logs and game logs in DIR (default: a temporary
                   folder, removed at the end)
  -h, --help       this help
GAME-ARGUMENTs after -- set the scene (e.g. -- --size 640x360 --draws 1200);
--seconds, --pad none and --log-every 0 are added by the script.
EOF
}

die() {
	echo "forest-arms: $*" >&2
	exit 2
}

rxdeck=""
seconds=20
warmup=3
rounds=1
out=""
forest=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rxdeck) [ $# -ge 2 ] || die "--rxdeck needs a path"; rxdeck=$2; shift 2 ;;
	--seconds) [ $# -ge 2 ] || die "--seconds needs a value"; seconds=$2; shift 2 ;;
	--warmup) [ $# -ge 2 ] || die "--warmup needs a value"; warmup=$2; shift 2 ;;
	--rounds) [ $# -ge 2 ] || die "--rounds needs a value"; rounds=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) [ -z "$forest" ] || die "unexpected argument '$1' (see --help)"; forest=$1; shift ;;
	esac
done
[ -n "$forest" ] || { usage >&2; exit 2; }
[ -x "$forest" ] || die "cannot run '$forest': not an executable file"
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 5 ] || die "--seconds '$seconds': expected a whole number of at least 5"
[[ "$warmup" =~ ^[0-9]+$ ]] && [ "$warmup" -lt $((seconds - 2)) ] ||
	die "--warmup '$warmup': expected a whole number under --seconds minus 2"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a whole number of at least 1"
if [ -z "$rxdeck" ]; then
	guess="$(cd "$(dirname "$forest")" && pwd)/../../harness/rxdeck"
	if [ -x "$guess" ]; then
		rxdeck=$guess
	else
		rxdeck=$(command -v rxdeck) || die "no rxdeck command found: give one with --rxdeck PATH"
	fi
fi
"$rxdeck" frames --help >/dev/null 2>&1 || die "'$rxdeck' has no working 'frames' subcommand"

if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/forest-arms-XXXXXX)
	trap 'rm -rf "$out"' EXIT
else
	mkdir -p "$out"
fi

arm_names=(A B C D)
arm_labels=(default early late both)
arm_env() {
	case "$1" in
	A) echo "" ;;
	B) echo "RX_VK_READBACK_EARLY=1" ;;
	C) echo "RX_VK_READBACK_LATE=newest" ;;
	D) echo "RX_VK_READBACK_EARLY=1 RX_VK_READBACK_LATE=newest" ;;
	esac
}

# one run: $1 arm, $2 tag, $3 seconds
run() {
	local arm=$1 tag=$2 secs=$3
	shift 3
	local -a env=(RX_FRAME_LOG="$out/$tag.csv")
	local e
	for e in $(arm_env "$arm"); do env+=("$e"); done
	echo "forest-arms: $tag: arm $arm ($(arm_env "$arm" | sed 's/^$/no switch/')), $secs s" >&2
	# the arm's switches only: none inherited from the caller's environment
	if ! env -u RX_VK_READBACK_EARLY -u RX_VK_READBACK_LATE "${env[@]}" \
		"$forest" --seconds "$secs" --pad none --log-every 0 "$@" >"$out/$tag.log" 2>&1; then
		echo "forest-arms: run $tag failed; its log:" >&2
		cat "$out/$tag.log" >&2
		exit 1
	fi
}

load() { [ -r /proc/loadavg ] && cut -d' ' -f1 /proc/loadavg || echo unknown; }
load_before=$(load)
shift_args=("$@")
run A warmup 5 "${shift_args[@]}"
device=$(sed -n "s/.*forest: settings: .*device '\(.*\)'$/\1/p" "$out/warmup.log" | head -n1)
order=""
for ((r = 1; r <= rounds; r++)); do order+="ABCDDCBA"; done

# a number from the one-object JSON array of `rxdeck frames --json`
get() { echo "$json" | grep -o "\"$1\":[-0-9.eE+]*" | head -n1 | cut -d: -f2; }

declare -A fps p50 p95 p99 wait runs
for ((i = 0; i < ${#order}; i++)); do
	arm=${order:i:1}
	tag=$(printf 'run%02d-%s' $((i + 1)) "$arm")
	run "$arm" "$tag" "$seconds" "${shift_args[@]}"
	json=$("$rxdeck" frames "$out/$tag.csv" --window "${warmup}s" "$((seconds - 1))s" --json | tr -d ' \n')
	fps[$arm]+="$(get real_fps) "
	p50[$arm]+="$(get p50_ms) "
	p95[$arm]+="$(get p95_ms) "
	p99[$arm]+="$(get p99_ms) "
	wait[$arm]+="$(get rb_wait_ms) "
	runs[$arm]=$((${runs[$arm]:-0} + 1))
done

load_after=$(load)

# "mean (run, run, ...)" with d decimals
cell() {
	echo "$1" | awk -v d="$2" '{
		s = 0; list = "";
		for (i = 1; i <= NF; i++) { s += $i; list = list (i > 1 ? ", " : "") sprintf("%." d "f", $i) }
		printf "%." d "f (%s)", s / NF, list
	}'
}

echo "### rxdeck-forest readback arms: ${device:-unknown device}"
echo
# (no such variable is no error: grep's status is not the pipeline's)
extra_env=$({ env | grep -E '^(LP_NUM_THREADS|RX_VK_[A-Z_]+)=' | grep -v -E '^RX_VK_READBACK_(EARLY|LATE)=' ||
	true; } | sort | tr '\n' ' ' | sed 's/ $//')
[ -z "$extra_env" ] || { echo "Environment in every run: \`$extra_env\`."; echo; }
echo "Scene: \`${shift_args[*]:-(defaults)}\`; ${seconds} s runs measured from ${warmup} s to $((seconds - 1)) s" \
	"after the first frame; order $order after one warm-up run; load average $load_before before," \
	"$load_after after; $(nproc 2>/dev/null || echo '?') CPUs. Each cell: the arm's mean (its runs in order)."
echo
printf '| metric |'
for k in 0 1 2 3; do printf ' %s %s |' "${arm_names[k]}" "${arm_labels[k]}"; done
printf '\n|---|---|---|---|---|\n'
row() {
	local label=$1 d=$2
	local -n vals=$3
	printf '| %s |' "$label"
	for a in A B C D; do printf ' %s |' "$(cell "${vals[$a]}" "$d")"; done
	printf '\n'
}
row "real fps" 1 fps
row "frame time p50, ms" 1 p50
row "frame time p95, ms" 1 p95
row "frame time p99, ms" 1 p99
row "readback wait per frame, ms" 2 wait
