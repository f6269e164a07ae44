#!/bin/sh
# The bundle in a clean root: deck/bundle.sh makes the tarball from the
# build; a root holding only glibc (from this host) and a static busybox —
# no -dev packages, no libinih, libjansson, libcurl, libsqlite3 or any other
# library rxdeck links — unpacks and installs it with its install.sh into
# ~/.local as a user would, then runs the installed rxdeck from an empty
# folder with no source tree: --version, --help, a route check of the
# installed routes, deck info --json; then --uninstall.  The root is kept
# under the build folder and made once.  Skips (77) where it cannot be
# made: not root (chroot, mount of /proc), no static busybox, no patchelf.
#
#   test-deck-bundle.sh BUILD_DIR
set -u
build=${1:?usage: test-deck-bundle.sh BUILD_DIR}
src=${RXDECK_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skip: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "chroot into the clean root needs root"
command -v chroot >/dev/null 2>&1 || skip "no chroot"
command -v patchelf >/dev/null 2>&1 || skip "no patchelf (Debian package patchelf)"
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
