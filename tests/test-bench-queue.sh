#!/bin/sh
# rxvk-bench-queue (renderer/bench/bench-queue.c) on the test machine's
# Vulkan device (lavapipe here), validation layer on (RX_VK_VALIDATION=1 in
# the test environment: a message makes the program exit 1): a table with
# one row per fill size, count and shape, each row's figures numbers; bad
# options refused with exit 2 and a message naming the option.  The figures
# themselves are timing and are not judged here (docs/performance.md).
set -u
bin=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-bench-queue-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" --fill 4,64 --parts 8,12 --rounds 2 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 77 ] && { echo "skip: $(tail -n 1 "$tmp/err")"; exit 77; }
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
for fill in 4 64; do
	for parts in 8 12; do
		for shape in bare "renderer's"; do
			row=$(grep -F "| $fill B | $parts | $shape |" "$tmp/out") ||
				fail "no row for $fill B, $parts parts, $shape"
			# six figures: three submit means, submit to finish, held
			# back (and pending), recording a part
			echo "$row" | grep -Eq "^\| $fill B \| $parts \| [^|]+ \| [0-9]+\.[0-9]{2} / [0-9]+\.[0-9]{2} / [0-9]+\.[0-9]{2} \| [0-9]+\.[0-9]{2} \| [0-9]+ \| (none|[0-9]+ \([12] of 2 rounds\)) \| [0-9]+\.[0-9]{2} \|$" ||
				fail "row not as documented: $row"
		done
	done
done
[ "$(grep -c '^| [0-9]* B |' "$tmp/out")" -eq 8 ] || fail "expected 8 rows: $(cat "$tmp/out")"

# --waiter: a third shape, with a thread waiting on the timeline meanwhile
"$bin" --fill 4 --parts 8 --rounds 1 --waiter > "$tmp/out" 2> "$tmp/err" || fail "--waiter: exit $?: $(cat "$tmp/err")"
[ "$(grep -c '^| 4 B | 8 |' "$tmp/out")" -eq 3 ] || fail "--waiter: expected 3 rows: $(cat "$tmp/out")"
grep -qF "| 4 B | 8 | renderer's, a thread waiting |" "$tmp/out" || fail "--waiter: no waiting row: $(cat "$tmp/out")"

refused() { # option value, what the message must name
	"$bin" "$1" "$2" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$1 $2: exit $rc, expected 2"
	grep -qF -- "$3" "$tmp/err" || fail "$1 $2: message does not name '$3': $(cat "$tmp/err")"
}
refused --fill 6 "a multiple of 4"
refused --fill 4,x "--fill '4,x'"
refused --parts 1 "--parts '1'"
refused --parts 4,,8 "--parts '4,,8'"
refused --rounds 0 "--rounds '0'"
refused --bogus 1 "usage: rxvk-bench-queue"
echo "ok: 8 rows, 3 with --waiter, 6 bad options refused"
