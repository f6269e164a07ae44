#!/bin/sh
# The harness's include directions, as harness/README.md lists them between
# its "include-directions" markers ("- MODULE: MODULE..."): every
# `#include "DIR/FILE"` in harness/MODULE/ must name MODULE itself or a
# module on MODULE's line, and never another module's *-private.h.  A
# module folder missing from the list fails too.  Prints every forbidden
# include as FILE:LINE: and exits 1; exits 0 when there is none.
#
#   check-includes.sh HARNESS_DIR
set -u
harness=${1:?usage: check-includes.sh HARNESS_DIR}
readme=$harness/README.md
rules=$(sed -n '/<!-- include-directions: begin -->/,/<!-- include-directions: end -->/p' "$readme" |
	sed -n 's/^- \([a-z-]*\):\(.*\)$/\1 \2/p')
[ -n "$rules" ] || { echo "FAIL: no include directions in '$readme'" >&2; exit 1; }

failed=0
for dir in "$harness"/*/; do
	module=$(basename "$dir")
	allowed=$(printf '%s\n' "$rules" | awk -v m="$module" '$1 == m { $1 = ""; print }')
	if ! printf '%s\n' "$rules" | awk -v m="$module" '$1 == m { found = 1 } END { exit !found }'; then
		echo "$dir: module '$module' is not in the include directions of '$readme'" >&2
		failed=1
		continue
	fi
	for f in "$dir"*.c "$dir"*.h; do
		[ -f "$f" ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*/' "$f" |
		while IFS= read -r hit; do
			line=${hit%%:*}
			path=$(printf '%s\n' "$hit" | sed 's/^[^"]*"\([^"]*\)".*$/\1/')
			target=${path%%/*}
			file=${path##*/}
			[ "$target" = "$module" ] && continue
			case $file in
			*-private.h)
				echo "$f:$line: '$path' is private to '$target'"
				continue ;;
			esac
			ok=0
			for a in $allowed; do
				[ "$a" = "$target" ] && ok=1
			done
			[ "$ok" = 1 ] || echo "$f:$line: '$module' may not include '$path' (harness/README.md)"
		done
	done
done > "${TMPDIR:-/tmp}/check-includes.$$" 
if [ -s "${TMPDIR:-/tmp}/check-includes.$$" ]; then
	cat "${TMPDIR:-/tmp}/check-includes.$$" >&2
	failed=1
fi
rm -f "${TMPDIR:-/tmp}/check-includes.$$"
[ "$failed" = 0 ] && echo "every include in '$harness' goes the way harness/README.md allows"
exit "$failed"
