#!/bin/sh
# Build the guest programs statically and pack the initramfs: busybox,
# guest/init and the workloads, the selftest programs (built with their
# own kselftest Makefile) and the benchmark and crash programs.
# Usage: guest.sh SELFTEST_DIR
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dir=$1
out=$BUILD/guest
rm -rf "$out" && mkdir -p "$out/tests"
[ -f "$dir/Makefile" ] || die "no selftest in $dir; is the series applied?"
echo "building the selftest (static) in ${dir#"$BUILD"/}"
logged "$LOGS/guest-build.log" make -C "$dir" OUTPUT="$out/tests" \
	KHDR_INCLUDES= LDFLAGS=-static ||
	die "the selftest does not build"
progs=$(make -s -C "$dir" OUTPUT="$out/tests" -f Makefile -f - print-progs <<'MK'
print-progs:
	@echo $(TEST_GEN_PROGS)
MK
) || die "cannot list the selftest's programs"
[ -n "$progs" ] || die "the selftest has no TEST_GEN_PROGS"
for p in $progs; do
	[ -x "$p" ] || die "the selftest did not build $p"
done
for p in bench crash; do
	logged "$LOGS/guest-build.log" gcc -static -Wall -O2 \
		-o "$out/$p" "$TOP/guest/$p.c" || die "guest/$p.c does not build"
done

root=$BUILD/initramfs
rm -rf "$root"
mkdir -p "$root"/bin "$root"/sbin "$root"/proc "$root"/sys "$root"/dev \
	"$root"/mnt "$root"/tmp "$root"/run "$root"/tests
bb=/bin/busybox
[ -x "$bb" ] || die "busybox-static is not installed (make deps)"
cp "$bb" "$root"/bin/busybox
for app in $("$bb" --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done
ln -s ../bin/busybox "$root"/sbin/modprobe
cp "$TOP"/guest/init "$root"/init
cp "$TOP"/guest/lib.sh "$root"/bin/imm-lib.sh
for w in suite bench crash shell; do cp "$TOP/guest/$w" "$root/bin/imm-$w"; done
chmod +x "$root"/init "$root"/bin/imm-*
cp "$out/bench" "$out/crash" "$root"/bin/
for p in $progs; do cp "$p" "$root"/tests/; done
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$BUILD/initramfs.cpio.tmp"
mv "$BUILD/initramfs.cpio.tmp" "$BUILD/initramfs.cpio"
echo "initramfs: $(du -h "$BUILD/initramfs.cpio" | cut -f1), tests: $(for p in $progs; do basename "$p"; done | xargs)"
