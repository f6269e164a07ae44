#!/bin/sh
# test-security-exec: no program of the project runs a command through a
# shell.  Every C source outside tests/ is searched for the calls that take
# a command line (system, popen, the exec*p family that searches PATH, and
# "sh -c"); a game is started only with execve() of an absolute path and an
# argv (harness/run/run-game.c).  docs/security.md describes the rule.
# Usage: test-security-exec.sh SOURCE_ROOT
set -u
root=${1:?usage: test-security-exec.sh SOURCE_ROOT}
cd "$root" || exit 1
found=$(grep -rnE --include='*.c' --include='*.h' \
	'(^|[^_a-zA-Z0-9])(system|popen|execlp|execvp|execvpe|posix_spawnp|wordexp)[[:space:]]*\(|"sh"[[:space:]]*,[[:space:]]*"-c"|/bin/sh' \
	harness renderer results-db deck | grep -v '^[^:]*:[0-9]*:[[:space:]]*\(/\*\|\*\)')
if [ -n "$found" ]; then
	echo "a command line run through a shell or PATH search:"
	echo "$found"
	exit 1
fi
execs=$(grep -rnE --include='*.c' '(^|[^_a-zA-Z0-9])(execve|execv|execl|fexecve|posix_spawn)[[:space:]]*\(' \
	harness renderer results-db deck | grep -v '^[^:]*:[0-9]*:[[:space:]]*\(/\*\|\*\)')
echo "no shell, no PATH search; the programs started:"
echo "$execs"
[ -n "$execs" ] || { echo "no execve found at all: the search itself is broken"; exit 1; }
