#!/bin/sh
# Fetch one of Debian's own kernels (nothing is installed on the host):
# apt-get download, unpack, keep the bzImage and config, and pack the
# modules the columns and the selftest need, with their dependencies.
# Usage: stock.sh NAME PACKAGE VERSION SYMBOLS_FILE
#   NAME: build/kernels/NAME; SYMBOLS_FILE: config symbols, one per line,
#   whose modules the guest loads
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=$1 pkg=$2 version=$3 syms=$4
dir=$BUILD/kernels/$name
debs=$BUILD/debs
mkdir -p "$debs"
# shellcheck disable=SC2010 # Debian's package file names
deb=$(ls "$debs/${pkg}_"*.deb 2>/dev/null | grep -F "_$(echo "$version" | sed 's/:/%3a/')_" || true)
if [ -z "$deb" ]; then
	fetch() { (cd "$debs" && apt-get download "$pkg=$version") >"$LOGS/download-$name.log" 2>&1; }
	if ! fetch; then
		# the package lists may be older than the pin: update once
		logged "$LOGS/apt-update.log" apt-get update ||
			die "apt-get update failed; is Debian's archive reachable?"
		if ! fetch; then
			cat "$LOGS/download-$name.log" >&2
			echo "Debian's archive has no $pkg=$version; it has:" >&2
			abi=$(echo "$pkg" | sed 's/^linux-image-\([0-9]*\.[0-9]*\).*/\1/')
			apt-cache search --names-only "^linux-image-${abi}[.-].*-amd64-unsigned\$" |
				awk '{ print "   " $1 }' >&2
			for p in $(apt-cache search --names-only "^linux-image-${abi}[.-].*-amd64-unsigned\$" | awk '{ print $1 }'); do
				apt-cache madison "$p" | awk -F'|' -v p="$p" '{ gsub(/ /, "", $2); print "   " p "=" $2 }'
			done | sort -u >&2
			die "pick one in versions.mk (the package and its version)"
		fi
	fi
	deb=$(ls "$debs/${pkg}_"*.deb)
fi

stamp=$(cat "$deb" "$syms" | sha256sum | cut -c1-16)
[ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && { echo "$name: $pkg $version (unpacked)"; exit 0; }
echo "$name: unpacking $(basename "$deb")"
rm -rf "$dir" && mkdir -p "$dir"
dpkg-deb -x "$deb" "$dir/root" || die "cannot unpack $deb"
cp "$dir"/root/boot/vmlinuz-* "$dir/bzImage"
cp "$dir"/root/boot/config-* "$dir/config"
kver=$(basename "$dir"/root/lib/modules/*)
all=$dir/root/lib/modules/$kver

# The modules of the symbols that this kernel builds as modules: the
# objects that kbuild links for them (obj-$(CONFIG_X) += name.o).
mods=
# shellcheck disable=SC2013 # one symbol per line
for sym in $(sort -u "$syms"); do
	grep -q "^CONFIG_$sym=m$" "$dir/config" || continue
	# kbuild lines, continuations joined: obj-$(CONFIG_X) += a.o b.o
	# shellcheck disable=SC2016,SC2020 # an awk program; tr maps characters
	m=$(git -C "$BUILD/src" ls-files -- '*Makefile' '*Kbuild' |
		(cd "$BUILD/src" && xargs awk -v s="CONFIG_$sym" '
			{ line = line $0 }
			/\\$/ { sub(/\\$/, " ", line); next }
			{ if (index(line, "obj-$(" s ")") == 1) { sub(/^[^=]*=/, "", line); print line }; line = "" }') |
		tr ' \t' '\n\n' | sed -n 's/\.o$//p' | tr - _)
	[ -n "$m" ] || die "no module found for CONFIG_$sym=m in $kver"
	mods="$mods $m"
done

# Their dependencies, from a modules.dep made here (the package has
# none); modules decompressed, so that busybox loads them.
find "$all" -name '*.ko.xz' -exec xz -d {} +
busybox depmod -b "$dir/root" "$kver" || die "depmod failed for $kver"
# shellcheck disable=SC2020 # tr maps characters
sel=$(for m in $mods; do
	awk -F: -v m="$m" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko$/, "", n); gsub(/-/, "_", n) } n == m' \
		"$all/modules.dep" | tr ': ' '\n\n'
done | grep . | sort -u)
root=$dir/modroot
mkdir -p "$root/lib/modules/$kver"
for f in $sel; do
	mkdir -p "$root/lib/modules/$kver/$(dirname "$f")"
	cp "$all/$f" "$root/lib/modules/$kver/$f"
done
cp "$all/modules.builtin" "$all/modules.order" "$root/lib/modules/$kver/"
busybox depmod -b "$root" "$kver"
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$dir/modules.cpio"
echo "$mods" | tr ' ' '\n' | grep . | sort -u >"$dir/modules"
rm -rf "$dir/root" "$root"
echo "$stamp" >"$dir/.stamp"
echo "$name: $kver, $(wc -l <"$dir/modules") modules to load ($(echo "$sel" | wc -w) with dependencies, $(du -h "$dir/modules.cpio" | cut -f1))"
