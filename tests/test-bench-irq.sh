#!/bin/sh
# rxvk-bench-replay --irq-table (renderer/bench/bench-replay.c): the GPU's
# interrupts by CPU as --off-irq-cpus reads /proc/interrupts, on samples
# in the kernel's layout (tests/data/interrupts/README.md): a column is the
# CPU its header names, a handler counts when its name is a GPU driver's
# whole name, first or shared; an unreadable file is refused with exit 2.
# No GPU needed: the table is read, nothing is submitted.
set -u
bin=$1 data=$2
fail() { echo "FAIL: $*"; exit 1; }
table() { "$bin" --irq-table "$1" | grep -E '^\| [0-9a-z]+ \| [0-9]+ \|$' | tr -d ' ' | paste -sd';'; }

got=$(table "$data/h100-lease.txt") || fail "h100-lease.txt: exit $?"
[ "$got" = "|0|14|;|14|598|" ] || fail "h100-lease.txt: $got"
got=$(table "$data/offline-shared.txt") || fail "offline-shared.txt: exit $?"
[ "$got" = "|0|5|;|1|10|;|3|900|" ] || fail "offline-shared.txt: $got"
# 1024 CPUs: lines of 11 KiB, read whole (a reader of 8 KiB pieces counted none)
got=$(table "$data/wide-1024.txt") || fail "wide-1024.txt: exit $?"
[ "$got" = "|3|5|;|200|700|" ] || fail "wide-1024.txt: $got"
# this machine's own file reads (whatever its GPU, or none)
"$bin" --irq-table /proc/interrupts >/dev/null || fail "/proc/interrupts: exit $?"
err=$("$bin" --irq-table "$data/no-such-file" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] || fail "a missing file: exit $rc"
case $err in *"--irq-table $data/no-such-file: No such file or directory"*) ;; *) fail "a missing file: $err" ;; esac
echo "ok: the GPU's interrupts by CPU from three samples; /proc/interrupts read; a missing file refused"
