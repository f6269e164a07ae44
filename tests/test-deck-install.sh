#!/bin/sh
# deck/install.sh into a temporary home: binaries, data, units pointed at
# the prefix and time, the env file kept across installs, refusals, and
# --uninstall.  systemctl and sudo are not touched (--no-systemctl, no --udev).
set -eu
src=${RXDECK_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-install-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/build/harness" "$tmp/build/renderer/forest" "$tmp/home"
printf '#!/bin/sh\necho rxdeck\n' > "$tmp/build/harness/rxdeck"
printf '#!/bin/sh\necho forest\n' > "$tmp/build/renderer/forest/rxdeck-forest"
chmod +x "$tmp/build/harness/rxdeck" "$tmp/build/renderer/forest/rxdeck-forest"
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/config"
prefix=$tmp/home/local

"$src/deck/install.sh" --build "$tmp/build" --prefix "$prefix" --at 02:30 --no-systemctl --enable-timer > "$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "install failed"; }
[ -x "$prefix/bin/rxdeck" ] || fail "rxdeck not installed"
[ -x "$prefix/bin/rxdeck-forest" ] || fail "rxdeck-forest not installed"
[ -f "$prefix/share/rxdeck/doc/deck.md" ] || fail "deck doc not installed"
svc=$XDG_CONFIG_HOME/systemd/user/rxdeck-overnight.service
tmr=$XDG_CONFIG_HOME/systemd/user/rxdeck-overnight.timer
grep -qx 'ConditionACPower=true' "$svc" || fail "service not limited to AC power"
# rxdeck is the main process (it holds the inhibitor itself): no wrapper
# that a stop would SIGTERM in its place
grep -qx "ExecStart=$prefix/bin/rxdeck \$RXDECK_OVERNIGHT_ARGS" "$svc" || fail "service does not run the installed rxdeck as its main process"
grep -q 'systemd-inhibit' "$svc" && fail "service still wraps rxdeck in systemd-inhibit"
grep -qx 'KillMode=mixed' "$svc" || fail "service does not SIGTERM rxdeck alone first"
# --no-systemctl does not claim what it did not do
grep -q '^enabled' "$tmp/out" && fail "--no-systemctl said the timer was enabled"
grep -q '^not enabled (--no-systemctl)' "$tmp/out" || fail "--no-systemctl did not say the timer is not enabled"
grep -qx 'OnCalendar=\*-\*-\* 02:30:00' "$tmr" || fail "timer not at 02:30"
env=$XDG_CONFIG_HOME/rxdeck/overnight.env
grep -q '^RXDECK_OVERNIGHT_ARGS=' "$env" || fail "no overnight.env"
# a late timer start meets its night's deadline: the guard refuses it
grep -qx 'RXDECK_OVERNIGHT_ARGS=run --scheduled 02:30 --until 07:00' "$env" || fail "overnight.env does not pass the timer's time as --scheduled"
grep -qx 'SuccessExitStatus=5' "$svc" || fail "the guard's refusal (exit 5) would mark the service failed"
# a new --at moves --scheduled with the timer
"$src/deck/install.sh" --build "$tmp/build" --prefix "$prefix" --at 01:15 --no-systemctl > "$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "install --at 01:15 failed"; }
grep -qx 'RXDECK_OVERNIGHT_ARGS=run --scheduled 01:15 --until 07:00' "$env" || fail "--at did not move --scheduled"
if [ ! -e /etc/udev/rules.d/70-rxdeck-uinput.rules ]; then
	grep -q 'with --udev' "$tmp/out" || fail "no word on the uinput rule"
fi

# A second install keeps the user's env file.
echo 'RXDECK_OVERNIGHT_ARGS=resume' > "$env"
"$src/deck/install.sh" --build "$tmp/build" --prefix "$prefix" --no-systemctl > "$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "second install failed"; }
grep -qx 'RXDECK_OVERNIGHT_ARGS=resume' "$env" || fail "overnight.env overwritten"
grep -qx 'OnCalendar=\*-\*-\* 01:00:00' "$tmr" || fail "default time not 01:00"

# Refusals.
rc=0; "$src/deck/install.sh" --at 25:00 --no-systemctl > "$tmp/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "bad time gave exit $rc"
grep -q "bad time '25:00'" "$tmp/out" || fail "bad time not named"
rc=0; "$src/deck/install.sh" --build "$tmp/nowhere" --prefix "$prefix" --no-systemctl > "$tmp/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "missing build gave exit $rc"
grep -q "no rxdeck binary at '$tmp/nowhere/harness/rxdeck'" "$tmp/out" || fail "missing binary not named"

"$src/deck/install.sh" --prefix "$prefix" --no-systemctl --uninstall > "$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "uninstall failed"; }
[ ! -e "$prefix/bin/rxdeck" ] || fail "rxdeck left after uninstall"
[ ! -e "$svc" ] || fail "service left after uninstall"
[ -f "$env" ] || fail "uninstall removed the user's env file"
echo "install.sh: all checks passed"
