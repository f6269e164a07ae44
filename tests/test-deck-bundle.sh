#!/bin/sh
# The bundle, twice.
#
# First, under Steam's LD_LIBRARY_PATH: Steam starts a non-Steam shortcut
# with its runtime's libraries first in LD_LIBRARY_PATH.  Stand-ins for
# them are built here: a libcurl.so.4 whose only version node is
# CURL_OPENSSL_3 (a linker version script; rxdeck needs CURL_OPENSSL_4)
# and an empty libsqlite3.so.0 (no symbols at all).  The unpacked bundle's
# rxdeck must still run --version, deck info and a short campaign with
# LD_LIBRARY_PATH naming them (its DT_RPATH is searched first), and the
# game it starts must get that LD_LIBRARY_PATH unchanged.  A control run
# of the same binaries with DT_RUNPATH shows the stand-ins do break a
# binary that searches them first.
#
# Then in a clean root: deck/bundle.sh makes the tarball from the
# build; a root holding only glibc (from this host) and a static busybox —
# no -dev packages, no libinih, libjansson, libcurl, libsqlite3 or any other
# library rxdeck links — unpacks and installs it with its install.sh into
# ~/.local as a user would, then runs the installed rxdeck from an empty
# folder with no source tree: --version, --help, a route check of the
# installed routes, deck info --json; then --uninstall.  The root is kept
# under the build folder and made once.  That part skips (77) where it
# cannot be made: not root (chroot, mount of /proc), no static busybox.
# Both skip without patchelf or a C compiler.
#
#   test-deck-bundle.sh BUILD_DIR
set -u
build=${1:?usage: test-deck-bundle.sh BUILD_DIR}
build=$(cd "$build" && pwd) || exit 1
src=${RXDECK_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skip: $*"; exit 77; }

command -v patchelf >/dev/null 2>&1 || skip "no patchelf (Debian package patchelf)"
cc=$(command -v cc || command -v gcc || true)
[ -n "$cc" ] || skip "no C compiler to build the stand-in libraries"

# ---- under Steam's LD_LIBRARY_PATH ---------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-bundle-steam-XXXXXX")
trap 'rm -rf "$work"' EXIT
sh "$src/deck/bundle.sh" --build "$build" --output "$work/rxdeck.tar.gz" > "$work/bundle.out" 2>&1 ||
	{ cat "$work/bundle.out"; fail "bundle.sh failed"; }
mkdir "$work/unpacked" && tar -C "$work/unpacked" -xzf "$work/rxdeck.tar.gz" || fail "cannot unpack"
top=$(echo "$work"/unpacked/rxdeck-*)
[ -x "$top/bin/rxdeck" ] || fail "no bin/rxdeck in the bundle"
[ -e "$top/lib/rxdeck/libcurl.so.4" ] || fail "the bundle has no libcurl.so.4"
# DT_RPATH, not DT_RUNPATH, on the binary and on every library
for f in "$top/bin/rxdeck" "$top"/lib/rxdeck/*; do
	[ -n "$(patchelf --print-rpath "$f")" ] || fail "'$f' has no search path"
	readelf -d "$f" | grep -q '(RUNPATH)' && fail "'$f' has DT_RUNPATH (searched after LD_LIBRARY_PATH)"
	readelf -d "$f" | grep -q '(RPATH)' || fail "'$f' has no DT_RPATH"
done

steam=$work/steam-runtime
mkdir "$steam"
printf 'const char *curl_version(void) { return "stand-in"; }\n' > "$work/curl.c"
printf 'CURL_OPENSSL_3 { global: curl_version; local: *; };\n' > "$work/curl.map"
"$cc" -shared -fPIC -o "$steam/libcurl.so.4" -Wl,-soname,libcurl.so.4 \
	-Wl,--version-script="$work/curl.map" "$work/curl.c" || fail "cannot build the libcurl stand-in"
: > "$work/empty.c"
"$cc" -shared -fPIC -o "$steam/libsqlite3.so.0" -Wl,-soname,libsqlite3.so.0 "$work/empty.c" ||
	fail "cannot build the libsqlite3 stand-in"
readelf -V "$steam/libcurl.so.4" | grep -q 'CURL_OPENSSL_3' || fail "the stand-in has no CURL_OPENSSL_3 node"
readelf -V "$steam/libcurl.so.4" | grep -q 'CURL_OPENSSL_4' && fail "the stand-in has CURL_OPENSSL_4"

# Control: the same binary with DT_RUNPATH loads the stand-ins and fails.
cp "$top/bin/rxdeck" "$work/rxdeck-runpath"
patchelf --remove-rpath "$work/rxdeck-runpath"
patchelf --set-rpath "$top/lib/rxdeck" "$work/rxdeck-runpath"
if out=$(LD_LIBRARY_PATH=$steam "$work/rxdeck-runpath" --version 2>&1); then
	echo "$out"; fail "the stand-ins did not break a DT_RUNPATH binary: the test proves nothing"
fi
echo "$out" | grep -Eq 'CURL_OPENSSL_4|libsqlite3|symbol' || { echo "$out"; fail "unexpected control failure"; }

export LD_LIBRARY_PATH="$steam"
out=$("$top/bin/rxdeck" --version 2>&1) || { echo "$out"; fail "--version under Steam's LD_LIBRARY_PATH"; }
echo "$out" | grep -q '^rxdeck ' || fail "rxdeck --version said '$out'"
out=$("$top/bin/rxdeck" deck info 2>&1) || { echo "$out"; fail "deck info under Steam's LD_LIBRARY_PATH"; }
echo "$out" | grep -q '^readings' || { echo "$out"; fail "deck info printed no readings"; }

# deck check: every bundled library rxdeck loaded is the bundle's
out=$("$top/bin/rxdeck" deck check --json 2>&1)
echo "$out" | grep -A3 '"check": "libraries"' | grep -q '"status": "ok"' ||
	{ echo "$out"; fail "deck check did not find the bundle's libraries loaded"; }
echo "$out" | grep -q "bundled libraries loaded from $top/lib/rxdeck" ||
	{ echo "$out"; fail "deck check did not name the bundle's folder"; }

# A short campaign: the game is a script that records LD_LIBRARY_PATH and
# runs the game double.
cat > "$work/game.sh" <<EOS
#!/bin/sh
printf '%s\n' "\$LD_LIBRARY_PATH" >> "$work/game-env"
exec "$build/harness/run/game-double" "\$@"
EOS
chmod +x "$work/game.sh"
printf 'route short\nduration 2s\nwindow 0.5s 2s\n0s press A 100ms\n' > "$work/short.route"
cat > "$work/plan.ini" <<EOS
[campaign]
name = steam
route = short.route
profile = lavapipe
order = AB
rounds = 1
warmup = no
pad = socket

[build double]
binary = $work/game.sh
pad_option = --pad

[arm A]
[arm B]
EOS
out=$(cd "$work" && XDG_DATA_HOME="$work/data" RXDECK_DECK_ROOT="$work/no-deck" "$top/bin/rxdeck" run plan.ini --db "$work/results.db" -q 2>&1) ||
	{ echo "$out"; fail "a short campaign under Steam's LD_LIBRARY_PATH"; }
[ "$(wc -l < "$work/game-env")" -ge 2 ] || fail "the game did not run twice"
grep -qvx "$steam" "$work/game-env" && { cat "$work/game-env"; fail "the game did not get Steam's LD_LIBRARY_PATH"; }
out=$("$top/bin/rxdeck" report --db "$work/results.db" 2>&1) || { echo "$out"; fail "report"; }
unset LD_LIBRARY_PATH
# deck check tells a library taken from LD_LIBRARY_PATH: a DT_RUNPATH copy
# of rxdeck in the bundle's bin/, and a folder holding another copy of a
# library it links, first in LD_LIBRARY_PATH.
jansson=$(cd "$top/lib/rxdeck" && ls libjansson.so.* 2>/dev/null | head -n 1)
if [ -n "$jansson" ]; then
	mkdir "$work/other"
	cp "$top/lib/rxdeck/$jansson" "$work/other/"
	cp "$top/bin/rxdeck" "$top/bin/rxdeck-runpath"
	patchelf --remove-rpath "$top/bin/rxdeck-runpath"
	patchelf --set-rpath '$ORIGIN/../lib/rxdeck' "$top/bin/rxdeck-runpath"
	out=$(LD_LIBRARY_PATH="$work/other" "$top/bin/rxdeck-runpath" deck check --json 2>&1)
	echo "$out" | grep -A3 '"check": "libraries"' | grep -q '"status": "fail"' ||
		{ echo "$out"; fail "deck check did not see $jansson taken from LD_LIBRARY_PATH"; }
	echo "$out" | grep -q "$jansson from $work/other/$jansson" ||
		{ echo "$out"; fail "deck check did not name where $jansson came from"; }
	rm -f "$top/bin/rxdeck-runpath"
fi
echo "bundle: runs under Steam's LD_LIBRARY_PATH"

# ---- in a clean root -------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "chroot into the clean root needs root"
command -v chroot >/dev/null 2>&1 || skip "no chroot"
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	[ -x /bin/busybox ] && ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' && busybox=/bin/busybox
[ -n "$busybox" ] && ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	skip "no static busybox (Debian package busybox-static)"

root=$build/deck-bundle-root
# The clean root: glibc from this host, a static busybox for the shell and
# the tools install.sh uses, /dev/null.  Made once, reused.
if [ ! -e "$root/.made" ]; then
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/tmp" "$root/dev" \
		"$root/home/deck" "$root/etc"
	cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
	for l in libc.so.6 libm.so.6 libresolv.so.2 libpthread.so.0 libdl.so.2 librt.so.1; do
		cp -L "/lib/x86_64-linux-gnu/$l" "$root/lib/x86_64-linux-gnu/"
	done
	cp "$busybox" "$root/bin/busybox"
	for a in sh tar gzip cp mv rm mkdir chmod sed find ls wc id grep awk dirname basename \
		mktemp head tr cat sort cut; do
		ln -sf busybox "$root/bin/$a"
	done
	mknod -m 666 "$root/dev/null" c 1 3 2>/dev/null || skip "cannot make /dev/null in the root (mknod)"
	echo "deck:x:1000:1000::/home/deck:/bin/sh" > "$root/etc/passwd"
	chmod 1777 "$root/tmp"
	touch "$root/.made"
fi
# No library of rxdeck's but glibc's in the root.
ls "$root/lib/x86_64-linux-gnu" | grep -Eq 'inih|jansson|curl|sqlite|evdev|png|systemd' &&
	fail "the clean root has rxdeck's libraries"

# /proc, as on any running system: ld.so finds $ORIGIN through /proc/self/exe
mkdir -p "$root/proc"
mountpoint -q "$root/proc" 2>/dev/null || mount -t proc proc "$root/proc" 2>/dev/null ||
	skip "cannot mount /proc in the clean root"
trap 'umount "$root/proc" 2>/dev/null' EXIT
rm -rf "$root/tmp/"* "$root/home/deck/".??* "$root/home/deck/"* 2>/dev/null
sh "$src/deck/bundle.sh" --build "$build" --output "$root/tmp/rxdeck.tar.gz" > "$root/tmp/bundle.out" 2>&1 ||
	{ cat "$root/tmp/bundle.out"; fail "bundle.sh failed"; }

in_root() {
	chroot "$root" /bin/sh -c "export HOME=/home/deck PATH=/bin LANG=C; $1"
}
out=$(in_root 'cd /tmp && tar xzf rxdeck.tar.gz && ./rxdeck-*/install.sh --no-systemctl 2>&1') ||
	{ echo "$out"; fail "install from the unpacked bundle failed"; }
echo "$out" | grep -q 'installed /home/deck/.local/lib/rxdeck' || { echo "$out"; fail "no libraries installed"; }
in_root '[ -x /home/deck/.local/bin/rxdeck ] && [ -f /home/deck/.local/share/rxdeck/routes/smoke.route ] && [ -f /home/deck/.local/share/man/man1/rxdeck-deck.1 ] && [ -f /home/deck/.config/systemd/user/rxdeck-overnight.service ]' ||
	fail "the bundle's files are not where install.sh puts them"

# The installed rxdeck, from an empty folder, nothing but glibc around it.
out=$(in_root 'mkdir -p /tmp/empty && cd /tmp/empty && ~/.local/bin/rxdeck --version 2>&1') ||
	{ echo "$out"; fail "the installed rxdeck does not start in the clean root"; }
echo "$out" | grep -q '^rxdeck ' || fail "rxdeck --version said '$out'"
in_root 'cd /tmp/empty && ~/.local/bin/rxdeck --help' > /dev/null || fail "rxdeck --help failed"
out=$(in_root 'cd /tmp/empty && ~/.local/bin/rxdeck route check ~/.local/share/rxdeck/routes/smoke.route 2>&1') ||
	{ echo "$out"; fail "route check of the installed route failed"; }
out=$(in_root 'cd /tmp/empty && ~/.local/bin/rxdeck deck info --json 2>&1') ||
	{ echo "$out"; fail "deck info failed"; }
echo "$out" | grep -q '"readings"' || fail "deck info --json printed no readings"
[ -e "$src/build" ] && in_root "[ ! -e '$src' ]" || true # the source tree is not in the root

# install.sh BUNDLE, then --uninstall
out=$(in_root 'cd /tmp && ./rxdeck-*/install.sh /tmp/rxdeck.tar.gz --no-systemctl --prefix /home/deck/other 2>&1') ||
	{ echo "$out"; fail "install.sh BUNDLE failed"; }
in_root 'cd /tmp/empty && /home/deck/other/bin/rxdeck --version' > /dev/null || fail "the rxdeck installed from BUNDLE does not start"
out=$(in_root 'cd /tmp && ./rxdeck-*/install.sh --no-systemctl --uninstall 2>&1') || { echo "$out"; fail "uninstall failed"; }
in_root '[ ! -e /home/deck/.local/bin/rxdeck ] && [ ! -e /home/deck/.local/lib/rxdeck ]' || fail "uninstall left files"
echo "bundle: all checks passed"
