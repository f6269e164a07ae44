#!/bin/sh
# check-includes.sh on tests/include-check, a harness in small with one
# forbidden include and one private one: it must exit 1 naming both, and
# nothing else.
#
#   test-check-includes.sh CHECK_SCRIPT FIXTURE_DIR
set -u
check=${1:?usage: test-check-includes.sh CHECK_SCRIPT FIXTURE_DIR}
fixture=${2:?usage: test-check-includes.sh CHECK_SCRIPT FIXTURE_DIR}
out=$(sh "$check" "$fixture" 2>&1)
rc=$?
want="$fixture/a/a.c:3: 'a' may not include 'b/b.h' (harness/README.md)
$fixture/a/a.c:4: 'b/b-private.h' is private to 'b'"
if [ "$rc" != 1 ]; then
	echo "FAIL: check-includes.sh exited $rc, not 1" >&2
	exit 1
fi
if [ "$out" != "$want" ]; then
	printf 'FAIL: check-includes.sh said:\n%s\nnot:\n%s\n' "$out" "$want" >&2
	exit 1
fi
echo "the forbidden and the private include are both caught"
