#!/bin/sh
# Pack the guest: busybox-static, guest/init and the static test programs.
# Usage: initramfs.sh OUT.cpio PROGRAM...
set -eu
. "$(dirname "$0")/lib.sh"

out=$1
shift
root=$BUILD/initramfs
rm -rf "$root"
mkdir -p "$root"/bin "$root"/sbin "$root"/proc "$root"/sys "$root"/dev \
	"$root"/mnt "$root"/tmp
bb=/bin/busybox
[ -x "$bb" ] || die "busybox-static is not installed (make deps)"
cp "$bb" "$root"/bin/busybox
for app in $("$bb" --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done
cp "$TOP"/guest/init "$root"/init
for prog; do
	[ -x "$prog" ] || die "guest program $prog was not built"
	cp "$prog" "$root"/bin/
done
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$out.tmp"
mv "$out.tmp" "$out"
