#!/bin/sh
# fuzz-run.sh BUILD SECONDS [TARGET...]: runs every libFuzzer target of a
# -Dfuzz=true build (fuzz-NAME or test-fuzz-NAME programs) for SECONDS each, starting from its
# checked-in corpus tests/corpus/NAME.  New inputs go to a scratch folder, so
# the checked-in corpus only changes by hand.  A crash, leak, sanitizer report
# or timeout fails the target; libFuzzer keeps the input as
# BUILD/fuzz-crashes/NAME/crash-* (or leak-*, timeout-*): copy it into
# tests/corpus/NAME/ as regress-<what>, fix the bug, and the plain corpus
# test (meson test fuzz-NAME) keeps it fixed.
# Prints one line per target and "fuzz: N passed, N failed" last.
set -u

if [ $# -lt 2 ]; then
	echo "usage: tests/fuzz-run.sh BUILD SECONDS [TARGET...]" >&2
	exit 2
fi
build=$1
seconds=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -eq 0 ]; then
	set -- $(find "$build" -type f -perm -u+x \( -name 'fuzz-*' -o -name 'test-fuzz-*' \) \
		-printf '%f\n' | sed 's/^test-//' | sort -u)
fi
if [ $# -eq 0 ]; then
	echo "fuzz-run: no fuzz-* program in '$build'" >&2
	exit 2
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pass=0
fail=0
for target in "$@"; do
	name=${target#fuzz-}
	exe=$(find "$build" -type f -perm -u+x \( -name "fuzz-$name" -o -name "test-fuzz-$name" \) |
		head -n 1)
	corpus=$src/tests/corpus/$name
	if [ -z "$exe" ] || [ ! -d "$corpus" ]; then
		echo "fuzz-$name: FAIL (no program in '$build' or no corpus '$corpus')"
		fail=$((fail + 1))
		continue
	fi
	mkdir -p "$scratch/$name" "$build/fuzz-crashes/$name"
	log=$build/fuzz-crashes/$name/log
	# -rss_limit_mb: parsers read whole files; 10 MB lines are legal input
	if "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz-crashes/$name/" \
		"$scratch/$name" "$corpus" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz-$name: ok, ${runs:-?} inputs in ${seconds} s"
		pass=$((pass + 1))
	else
		echo "fuzz-$name: FAIL, see $log"
		ls "$build/fuzz-crashes/$name" | grep -v '^log$' | sed "s|^|  input: $build/fuzz-crashes/$name/|"
		tail -n 30 "$log" | sed 's/^/  /'
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
