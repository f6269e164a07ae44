#!/bin/sh
# The man pages against the program: every command `rxdeck --help` lists
# has docs/man/rxdeck-<name>.1, named in rxdeck.1; every long option a
# command's (or its subcommands') --help lists appears on its page; every
# page's .TH matches its file name; every page in MANDIR is among the
# PAGE arguments (the pages docs/meson.build installs) and each of those
# is in MANDIR; and every page renders through `groff -man -ww -z` without
# a warning.  The rendering check needs groff: without it the test skips
# (77) after the other checks have passed.
#
#   test-docs-man.sh RXDECK MANDIR PAGE...
set -u
usage="usage: test-docs-man.sh RXDECK MANDIR PAGE..."
rxdeck=${1:?$usage}
mandir=${2:?$usage}
shift 2
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

for p in "$@"; do
	[ "$(dirname "$p")" -ef "$mandir" ] && [ -f "$p" ] || fail "installed page '$p' is not a file in '$mandir'"
done
for page in "$mandir"/*.1; do
	listed=0
	for p in "$@"; do
		[ "$p" -ef "$page" ] && listed=1
	done
	[ "$listed" = 1 ] || fail "'$page' is not installed: add it to man_pages in docs/meson.build"
done

help=$("$rxdeck" --help) || { echo "FAIL: '$rxdeck --help' exited $?" >&2; exit 1; }
commands=$(printf '%s\n' "$help" | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ -n "$commands" ] || { echo "FAIL: no commands found in '$rxdeck --help'" >&2; exit 1; }
[ -f "$mandir/rxdeck.1" ] || fail "no page for rxdeck itself: '$mandir/rxdeck.1'"

# A long option as a page writes it: --db-path is \-\-db\-path.
roff_option() { printf '%s' "$1" | sed 's/-/\\-/g'; }

# Long options in a --help text, --help itself left out.
long_options() { printf '%s\n' "$1" | grep -o -e '--[a-z][a-z0-9-]*' | grep -vx -e '--help' | sort -u; }

n=0
for c in $commands; do
	n=$((n + 1))
	page=$mandir/rxdeck-$c.1
	if [ ! -f "$page" ]; then
		fail "command '$c' has no man page '$page'"
		continue
	fi
	if [ -f "$mandir/rxdeck.1" ] && ! grep -q "^\.BR rxdeck-$c (1)" "$mandir/rxdeck.1"; then
		fail "rxdeck.1 does not refer to rxdeck-$c(1)"
	fi
	text=$("$rxdeck" "$c" --help 2>&1) || { fail "'rxdeck $c --help' exited $?"; continue; }
	# subcommands: 'rxdeck C SUB ...' usage lines and the 'commands:' list
	subs=$(printf '%s\n' "$text" |
		awk -v c="$c" '
			{ for (i = 1; i < NF; i++) if ($i == "rxdeck" && $(i + 1) == c && $(i + 2) ~ /^[a-z]+$/) print $(i + 2) }
			/^commands:/ { on = 1; next }
			on && /^$/ { on = 0 }
			on && /^  [a-z]+( |$)/ { print $1 }' | sort -u)
	for s in $subs; do
		sub=$("$rxdeck" "$c" "$s" --help 2>&1) || { fail "'rxdeck $c $s --help' exited $?"; continue; }
		text="$text
$sub"
	done
	for o in $(long_options "$text"); do
		grep -qF -e "$(roff_option "$o")" "$page" || fail "rxdeck-$c.1 does not describe $o"
	done
done

for page in "$mandir"/*.1; do
	name=$(basename "$page" .1 | tr '[:lower:]' '[:upper:]')
	grep -q "^\.TH $name 1 " "$page" || fail "$page: .TH does not name $name, section 1"
done
[ "$failed" = 0 ] || exit 1
echo "$n commands, each with its page describing its options"

if ! command -v groff > /dev/null 2>&1; then
	echo "SKIP: groff is not installed (Debian package groff-base): pages not rendered"
	exit 77
fi
for page in "$mandir"/*.1; do
	out=$(groff -man -ww -z "$page" 2>&1)
	status=$?
	if [ "$status" != 0 ] || [ -n "$out" ]; then
		fail "$page does not render cleanly (groff exit $status):"
		printf '%s\n' "$out" >&2
	fi
done
[ "$failed" = 0 ] || exit 1
echo "every page renders without a warning"
