#!/bin/sh
# bundle.sh: a relocatable tarball of rxdeck for a Steam Deck (or any
# x86-64 Linux with glibc 2.36 or newer), made from a build folder.
#
#   deck/bundle.sh [--build DIR] [--output FILE.tar.gz]
#
# SteamOS has no compiler or -dev packages and may lack the libraries the
# binaries link (libinih, libjansson, libcurl and theirs).  The bundle
# holds the binaries in bin/, every library they need that is not part of
# glibc in lib/rxdeck/ (found with ldd, copied), with the run-time search
# path set so they are found there wherever the bundle is unpacked
# ($ORIGIN/../lib/rxdeck for the binaries, $ORIGIN for the libraries), plus
# the man pages, routes, profiles, systemd user units, udev rule,
# docs/deck.md and install.sh.  glibc itself is the host's.
# The search path is DT_RPATH (patchelf --force-rpath), which the loader
# searches before LD_LIBRARY_PATH, not DT_RUNPATH, searched after it:
# Steam starts a non-Steam shortcut with its runtime's libraries first in
# LD_LIBRARY_PATH (an older libcurl.so.4, ...), and the bundle's binaries
# must still load their own.  LD_LIBRARY_PATH itself is left as it is, so
# the game rxdeck starts gets the environment Steam gave.
# Install it with:  tar xzf rxdeck-*.tar.gz && rxdeck-*/install.sh
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
output=

die() {
	echo "bundle.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build) [ $# -ge 2 ] || die "option '--build' needs DIR"; build=$2; shift 2 ;;
	--output) [ $# -ge 2 ] || die "option '--output' needs FILE"; output=$2; shift 2 ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bundle.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done

[ -x "$build/harness/rxdeck" ] || die "no rxdeck binary at '$build/harness/rxdeck' (build first)"
command -v patchelf >/dev/null 2>&1 || die "patchelf is needed (Debian package patchelf)"
command -v ldd >/dev/null 2>&1 || die "ldd is needed (Debian package libc-bin)"

version=$("$build/harness/rxdeck" --version 2>/dev/null | awk '{print $NF; exit}')
[ -n "$version" ] || version=0
name=rxdeck-$version-x86_64
[ -n "$output" ] || output=$PWD/$name.tar.gz
case "$output" in /*) ;; *) output=$PWD/$output ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-bundle-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
top=$tmp/$name
mkdir -p "$top/bin" "$top/lib/rxdeck" "$top/share/man/man1" "$top/share/rxdeck/doc" \
	"$top/systemd" "$top/udev"

bins="$build/harness/rxdeck"
[ -x "$build/renderer/forest/rxdeck-forest" ] && bins="$bins $build/renderer/forest/rxdeck-forest"

# glibc's own libraries stay the host's: they must match its ld.so.
is_glibc() {
	case "$1" in
	ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|libutil.so*|\
	libanl.so*|libnss_*|libmvec.so*|libBrokenLocale.so*|libthread_db.so*|libcrypt.so*) return 0 ;;
	*) return 1 ;;
	esac
}

for b in $bins; do
	cp "$b" "$top/bin/"
	# ldd lists the whole closure: "libfoo.so.1 => /lib/.../libfoo.so.1 (0x...)"
	ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
		is_glibc "$soname" && continue
		[ -e "$top/lib/rxdeck/$soname" ] || cp -L "$path" "$top/lib/rxdeck/$soname"
	done
	patchelf --remove-rpath "$top/bin/$(basename "$b")"
	patchelf --force-rpath --set-rpath '$ORIGIN/../lib/rxdeck' "$top/bin/$(basename "$b")"
done
for l in "$top"/lib/rxdeck/*; do
	[ -e "$l" ] || continue
	chmod u+w "$l"
	patchelf --remove-rpath "$l"
	patchelf --force-rpath --set-rpath '$ORIGIN' "$l"
done

cp "$src"/docs/man/*.1 "$top/share/man/man1/"
cp -R "$src/routes" "$src/profiles" "$top/share/rxdeck/"
rm -f "$top/share/rxdeck/routes/meson.build" "$top/share/rxdeck/profiles/meson.build"
cp "$src/docs/deck.md" "$top/share/rxdeck/doc/deck.md"
cp "$src"/deck/systemd/*.service "$src"/deck/systemd/*.timer "$top/systemd/"
cp "$src/deck/70-rxdeck-uinput.rules" "$top/udev/"
cp "$src/deck/install.sh" "$top/install.sh"
chmod +x "$top/install.sh"

tar -C "$tmp" -czf "$output" "$name"
echo "wrote $output ($(ls "$top/lib/rxdeck" | wc -l) libraries beside the binaries)"
