#!/bin/sh
# deck/install.sh: installs rxdeck for the current user on a Steam Deck
# (SteamOS) or any systemd Linux, into ~/.local:
#
#   ~/.local/bin/rxdeck (and rxdeck-forest when built)
#   ~/.local/share/rxdeck/{routes,profiles,doc}
#   ~/.config/systemd/user/rxdeck-overnight.{service,timer}
#   ~/.config/rxdeck/overnight.env (kept when it exists)
#   /etc/udev/rules.d/70-rxdeck-uinput.rules (only with --udev; needs sudo)
#
# From a bundle made by deck/bundle.sh (BUNDLE, a .tar.gz, or this script
# run from an unpacked bundle): the binaries with their libraries in
# ~/.local/lib/rxdeck, no compiler or -dev package needed.  Else from a
# meson build folder (--build, default ./build) and this source tree.
#
#   deck/install.sh [BUNDLE] [--build DIR] [--prefix DIR] [--at HH:MM]
#                   [--enable-timer] [--udev] [--no-systemctl] [--uninstall]
#                   [--runner URL TOKEN LABELS [--runner-binary FILE]
#                    [--runner-name NAME]]
#
# --runner also makes the Deck a Forgejo Actions runner of a fleet
# (docs/fleet.md): the forgejo-runner binary you provide (none is bundled
# or downloaded) goes to PREFIX/bin, is registered with the forge at URL
# with the registration TOKEN and the comma-separated LABELS (each run on
# the host, plus the label rxdeck), and runs as the systemd user service
# rxdeck-runner.service from ~/.local/share/rxdeck/runner.
set -eu

usage() {
	sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
	cat <<USAGE

options:
  BUNDLE            a tarball made by deck/bundle.sh
  --build DIR       meson build folder holding harness/rxdeck (default: ./build)
  --prefix DIR      install under DIR instead of ~/.local
  --at HH:MM        start the overnight campaign at this time (default 01:00)
  --enable-timer    enable and start the overnight timer now
  --udev            also install the uinput udev rule (asks for sudo)
  --no-systemctl    copy the unit files but do not call systemctl
  --uninstall       remove what this script installed (keeps overnight.env and results)
  --runner URL TOKEN LABELS
                    also register this Deck as a forgejo-runner of the forge at URL with
                    the registration TOKEN and LABELS (steamdeck-lcd,steamdeck-oled,...)
  --runner-binary FILE
                    the forgejo-runner binary to install (default: forgejo-runner in PATH)
  --runner-name NAME
                    the runner's name on the forge (default: the host name)
  -h, --help        print this help
USAGE
}

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
prefix=$HOME/.local
at=01:00
enable_timer=0
udev=0
systemctl_ok=1
uninstall=0
bundle=
runner_url=
runner_token=
runner_labels=
runner_binary=
runner_name=

die() {
	echo "install.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build) [ $# -ge 2 ] || die "option '--build' needs DIR"; build=$2; shift 2 ;;
	--prefix) [ $# -ge 2 ] || die "option '--prefix' needs DIR"; prefix=$2; shift 2 ;;
	--at) [ $# -ge 2 ] || die "option '--at' needs HH:MM"; at=$2; shift 2 ;;
	--enable-timer) enable_timer=1; shift ;;
	--udev) udev=1; shift ;;
	--no-systemctl) systemctl_ok=0; shift ;;
	--uninstall) uninstall=1; shift ;;
	--runner)
		[ $# -ge 4 ] || die "option '--runner' needs URL TOKEN LABELS"
		runner_url=$2; runner_token=$3; runner_labels=$4; shift 4 ;;
	--runner-binary) [ $# -ge 2 ] || die "option '--runner-binary' needs FILE"; runner_binary=$2; shift 2 ;;
	--runner-name) [ $# -ge 2 ] || die "option '--runner-name' needs NAME"; runner_name=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) [ -z "$bundle" ] || die "one bundle at a time ('$bundle' and '$1')"; bundle=$1; shift ;;
	esac
done

case "$at" in
	[0-1][0-9]:[0-5][0-9]|2[0-3]:[0-5][0-9]) ;;
	*) echo "install.sh: bad time '$at': expected HH:MM, 00:00 to 23:59" >&2; exit 2 ;;
esac
case "$prefix" in
	/*) ;;
	*) die "prefix '$prefix' must be an absolute path" ;;
esac

# The runner's arguments are checked before anything is installed.
runner_labels_host=
if [ -n "$runner_url" ]; then
	case "$runner_url" in
		https://?*) ;;
		http://127.0.0.1[:/]*|http://127.0.0.1|http://localhost[:/]*|http://localhost|http://\[::1\]*) ;;
		*) echo "install.sh: bad forge URL '$runner_url': expected https://... (http:// only for 127.0.0.1 or localhost)" >&2; exit 2 ;;
	esac
	[ -n "$runner_token" ] || { echo "install.sh: the runner registration TOKEN is empty" >&2; exit 2; }
	old_ifs=$IFS
	IFS=,
	for label in $runner_labels; do
		case "$label" in
			""|*[!A-Za-z0-9._-]*)
				IFS=$old_ifs
				echo "install.sh: bad runner label '$label' in '$runner_labels': letters, digits, '.', '_' and '-' only, comma-separated" >&2
				exit 2 ;;
		esac
		# ':host': the jobs run on the Deck itself, not in a container
		runner_labels_host="$runner_labels_host${runner_labels_host:+,}$label:host"
	done
	IFS=$old_ifs
	[ -n "$runner_labels_host" ] || { echo "install.sh: no runner LABELS (e.g. steamdeck-oled)" >&2; exit 2; }
	case ",$runner_labels," in
		*,rxdeck,*) ;;
		*) runner_labels_host="$runner_labels_host,rxdeck:host" ;;
	esac
	if [ -z "$runner_binary" ]; then
		runner_binary=$(command -v forgejo-runner 2>/dev/null || true)
		[ -n "$runner_binary" ] ||
			die "no forgejo-runner binary: name it with --runner-binary FILE (download it from the forge's runner releases yourself; none is bundled)"
	fi
	[ -f "$runner_binary" ] && [ -x "$runner_binary" ] || die "no executable forgejo-runner at '$runner_binary'"
	[ -n "$runner_name" ] || runner_name=$(uname -n)
fi

bindir=$prefix/bin
datadir=$prefix/share/rxdeck
config=${XDG_CONFIG_HOME:-$HOME/.config}
unitdir=$config/systemd/user
envfile=$config/rxdeck/overnight.env
rule=/etc/udev/rules.d/70-rxdeck-uinput.rules
runnerdir=${XDG_DATA_HOME:-$HOME/.local/share}/rxdeck/runner

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

user_systemctl() {
	[ "$systemctl_ok" = 1 ] || return 0
	if ! systemctl --user "$@"; then
		echo "install.sh: 'systemctl --user $*' failed; run it in your desktop session" >&2
		return 1
	fi
}

if [ "$uninstall" = 1 ]; then
	user_systemctl disable --now rxdeck-overnight.timer 2>/dev/null || true
	if [ -e "$unitdir/rxdeck-runner.service" ]; then
		user_systemctl disable --now rxdeck-runner.service 2>/dev/null || true
		echo "removed the runner service; its registration stays on the forge until you delete it there"
	fi
	rm -rf "${runnerdir:?}"
	rm -f "$bindir/rxdeck" "$bindir/rxdeck-forest" "$bindir/forgejo-runner" \
		"$unitdir/rxdeck-runner.service" \
		"$unitdir/rxdeck-overnight.service" "$unitdir/rxdeck-overnight.timer" \
		"$prefix"/share/man/man1/rxdeck*.1
	rm -rf "${prefix:?}/lib/rxdeck"
	rm -rf "${datadir:?}/routes" "${datadir:?}/profiles" "${datadir:?}/doc"
	user_systemctl daemon-reload || true
	if [ -e "$rule" ]; then
		echo "install.sh: removing $rule (sudo)"
		as_root rm -f "$rule"
		as_root udevadm control --reload-rules || true
	fi
	echo "rxdeck uninstalled from $prefix; kept $envfile and the results database"
	exit 0
fi

# Where each piece comes from: a bundle, or the build folder and this tree.
if [ -n "$bundle" ]; then
	[ -f "$bundle" ] || die "no bundle '$bundle'"
	unpack=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-install-XXXXXX")
	trap 'rm -rf "$unpack"' EXIT
	tar -C "$unpack" -xzf "$bundle" || die "cannot unpack '$bundle'"
	from=$(find "$unpack" -mindepth 2 -maxdepth 3 -path '*/bin/rxdeck' | head -n 1)
	[ -n "$from" ] || die "'$bundle' is not an rxdeck bundle (no bin/rxdeck in it)"
	from=$(dirname "$(dirname "$from")")
elif [ -x "$(dirname "$0")/bin/rxdeck" ]; then
	from=$(cd "$(dirname "$0")" && pwd) # this script at the top of an unpacked bundle
else
	from=
fi
if [ -n "$from" ]; then
	rxdeck_bin=$from/bin/rxdeck
	forest=$from/bin/rxdeck-forest
	[ -x "$forest" ] || forest=
	data_src=$from/share/rxdeck
	doc_src=$from/share/rxdeck/doc/deck.md
	unit_src=$from/systemd
	rule_src=$from/udev/70-rxdeck-uinput.rules
	lib_src=$from/lib/rxdeck
	man_src=$from/share/man/man1
else
	[ -x "$build/harness/rxdeck" ] ||
		die "no rxdeck binary at '$build/harness/rxdeck': build first (meson setup build && meson compile -C build), name the build folder with --build, or give a bundle made by deck/bundle.sh"
	rxdeck_bin=$build/harness/rxdeck
	forest=$(find "$build/renderer" -name rxdeck-forest -type f -perm -u+x 2>/dev/null | head -n 1 || true)
	data_src=$src
	doc_src=$src/docs/deck.md
	unit_src=$src/deck/systemd
	rule_src=$src/deck/70-rxdeck-uinput.rules
	lib_src=
	man_src=$src/docs/man
fi

mkdir -p "$bindir" "$datadir/doc" "$unitdir" "$(dirname "$envfile")"

# Binaries: copied to a temporary name and renamed, so a running rxdeck
# keeps its file and a failed copy leaves the old one.
install_bin() {
	cp "$1" "$bindir/.$2.new"
	chmod 0755 "$bindir/.$2.new"
	mv -f "$bindir/.$2.new" "$bindir/$2"
	echo "installed $bindir/$2"
}
# The bundle's libraries first: its binaries look for them in ../lib/rxdeck.
if [ -n "$lib_src" ] && [ -d "$lib_src" ]; then
	rm -rf "$prefix/lib/rxdeck.new"
	mkdir -p "$prefix/lib/rxdeck.new"
	cp "$lib_src"/* "$prefix/lib/rxdeck.new/" 2>/dev/null || true
	rm -rf "$prefix/lib/rxdeck"
	mv "$prefix/lib/rxdeck.new" "$prefix/lib/rxdeck"
	echo "installed $prefix/lib/rxdeck ($(ls "$prefix/lib/rxdeck" | wc -l) libraries)"
fi
install_bin "$rxdeck_bin" rxdeck
if [ -n "$forest" ]; then
	install_bin "$forest" rxdeck-forest
else
	echo "note: no rxdeck-forest to install; the demo game is not installed"
fi
if [ -d "$man_src" ]; then
	mkdir -p "$prefix/share/man/man1"
	cp "$man_src"/rxdeck*.1 "$prefix/share/man/man1/"
	echo "installed $prefix/share/man/man1/rxdeck*.1"
fi

# Data.
for d in routes profiles; do
	if [ -d "$data_src/$d" ]; then
		rm -rf "$datadir/$d.new"
		mkdir -p "$datadir/$d.new"
		find "$data_src/$d" -maxdepth 1 -type f ! -name meson.build -exec cp {} "$datadir/$d.new/" \;
		rm -rf "${datadir:?}/$d"
		mv "$datadir/$d.new" "$datadir/$d"
		echo "installed $datadir/$d"
	fi
done
cp "$doc_src" "$datadir/doc/deck.md"
fleet_doc=$(dirname "$doc_src")/fleet.md
[ ! -f "$fleet_doc" ] || cp "$fleet_doc" "$datadir/doc/fleet.md"

# Systemd user units, pointed at this prefix and time.
sed "s|%h/.local/bin/rxdeck|$bindir/rxdeck|" "$unit_src/rxdeck-overnight.service" \
	> "$unitdir/rxdeck-overnight.service"
sed "s|^OnCalendar=.*|OnCalendar=*-*-* $at:00|" "$unit_src/rxdeck-overnight.timer" \
	> "$unitdir/rxdeck-overnight.timer"
echo "installed $unitdir/rxdeck-overnight.service and .timer (nightly at $at, on AC power only)"

if [ ! -e "$envfile" ]; then
	cat > "$envfile" <<ENV
# What the overnight service runs: the arguments given to rxdeck, split
# at spaces (see 'rxdeck run --help' for naming a plan and a game).
# --scheduled is the timer's time: --until counts from it, so a start that
# comes late (a time missed in suspend fires on waking) is refused (exit 5)
# instead of running until tomorrow's 07:00.  To finish a campaign a night
# cut short instead: RXDECK_OVERNIGHT_ARGS=resume
RXDECK_OVERNIGHT_ARGS=run --scheduled $at --until 07:00
ENV
	echo "wrote $envfile: set what the overnight service runs there"
elif grep -q '^RXDECK_OVERNIGHT_ARGS=.*--scheduled [0-9][0-9]:[0-9][0-9]' "$envfile" &&
	! grep -q "^RXDECK_OVERNIGHT_ARGS=.*--scheduled $at" "$envfile"; then
	# the timer's time changed: the guard counts from the new one
	sed "s|^\(RXDECK_OVERNIGHT_ARGS=.*--scheduled \)[0-9][0-9]:[0-9][0-9]|\1$at|" "$envfile" > "$envfile.new" &&
		mv "$envfile.new" "$envfile"
	echo "set --scheduled $at in $envfile, the timer's new time"
fi

user_systemctl daemon-reload || true
if [ "$enable_timer" = 1 ]; then
	if [ "$systemctl_ok" = 1 ]; then
		user_systemctl enable --now rxdeck-overnight.timer && echo "enabled rxdeck-overnight.timer"
	else
		echo "not enabled (--no-systemctl): systemctl --user enable --now rxdeck-overnight.timer"
	fi
	# Without lingering, user units stop at logout; the Deck in game mode
	# stays logged in, a desktop session may not.
	if command -v loginctl >/dev/null 2>&1 && [ "$(loginctl show-user "$(id -un)" -p Linger --value 2>/dev/null || echo no)" != yes ]; then
		echo "note: to run while logged out, enable lingering: loginctl enable-linger $(id -un)"
	fi
else
	echo "to run it nightly: systemctl --user enable --now rxdeck-overnight.timer"
fi

if [ "$udev" = 1 ]; then
	echo "install.sh: installing $rule (sudo)"
	as_root install -m 0644 "$rule_src" "$rule"
	as_root udevadm control --reload-rules
	as_root udevadm trigger --subsystem-match=misc --sysname-match=uinput || true
	if ! id -nG | tr ' ' '\n' | grep -qx input; then
		echo "note: for the overnight service (no seat), add yourself to group input: sudo usermod -aG input $(id -un), then log in again"
	fi
elif [ -w /dev/uinput ]; then
	# SteamOS's steam-devices rule gives the seat's user /dev/uinput already
	echo "/dev/uinput is writable for you: the virtual pad needs no udev rule"
elif [ ! -e "$rule" ]; then
	echo "the virtual pad needs /dev/uinput access, which you do not have: run again with --udev"
	echo "(sudo asks for your password; on SteamOS the deck user has none until 'passwd' sets one), or"
	echo "  sudo install -m 0644 $rule_src $rule && sudo udevadm control --reload-rules && sudo udevadm trigger --subsystem-match=misc --sysname-match=uinput"
fi

# The fleet's runner: installed, registered, a user service.
if [ -n "$runner_url" ]; then
	install_bin "$runner_binary" forgejo-runner
	if [ -e "$runnerdir/.runner" ]; then
		die "this Deck is registered already ('$runnerdir/.runner'); to register again, delete the runner on the forge, remove that file and run this again"
	fi
	mkdir -p "$runnerdir"
	chmod 0700 "$runnerdir"
	# A night is longer than the runner's default job timeout (3h).
	(cd "$runnerdir" && "$bindir/forgejo-runner" generate-config > config.yml.new) ||
		die "'$bindir/forgejo-runner generate-config' failed"
	sed 's/^\(  timeout:\) .*/\1 12h/' "$runnerdir/config.yml.new" > "$runnerdir/config.yml"
	rm -f "$runnerdir/config.yml.new"
	echo "wrote $runnerdir/config.yml (job timeout 12h)"
	# The token is the forge's one-time registration token; it is not
	# printed, and the runner keeps its own credentials in .runner.
	(cd "$runnerdir" && "$bindir/forgejo-runner" register --no-interactive \
		--instance "$runner_url" --token "$runner_token" --name "$runner_name" \
		--labels "$runner_labels_host" --config config.yml) ||
		die "forgejo-runner could not register with '$runner_url' (see its message above)"
	chmod 0600 "$runnerdir/.runner" 2>/dev/null || true
	echo "registered runner '$runner_name' with $runner_url, labels $runner_labels_host"
	cat > "$unitdir/rxdeck-runner.service" <<UNIT
[Unit]
Description=forgejo-runner for rxdeck nights (labels $runner_labels_host)
Documentation=file://$datadir/doc/fleet.md
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
WorkingDirectory=$runnerdir
ExecStart=$bindir/forgejo-runner daemon --config config.yml
Environment=PATH=$bindir:/usr/local/bin:/usr/bin:/bin
Restart=on-failure
RestartSec=30

[Install]
WantedBy=default.target
UNIT
	echo "installed $unitdir/rxdeck-runner.service"
	user_systemctl daemon-reload || true
	if [ "$systemctl_ok" = 1 ]; then
		user_systemctl enable --now rxdeck-runner.service && echo "enabled rxdeck-runner.service"
	else
		echo "runner not started (--no-systemctl): systemctl --user enable --now rxdeck-runner.service"
	fi
	command -v node >/dev/null 2>&1 ||
		echo "note: no node in PATH: the workflow's checkout and artifact steps are JavaScript actions that a host runner runs with node (docs/fleet.md)"
fi

case ":$PATH:" in
	*":$bindir:"*) ;;
	*) echo "note: $bindir is not in PATH" ;;
esac
