#!/bin/sh
# Build the guest programs statically and pack the initramfs.
# Usage: guest.sh SELFTEST_DIR
set -eu
. "$(dirname "$0")/lib.sh"

dir=$1
out=$BUILD/guest
mkdir -p "$out"
[ -f "$dir/immutable_test.c" ] || die "no selftest in $dir; is the series applied?"
echo "building immutable_test (static) from ${dir#"$BUILD"/}"
logged "$LOGS/guest-build.log" gcc -static -Wall -O2 -pthread \
	-o "$out/immutable_test" "$dir/immutable_test.c" ||
	die "the selftest does not build"
echo "building bench (static) from guest/"
logged "$LOGS/guest-build.log" gcc -static -Wall -O2 \
	-o "$out/bench" "$TOP/guest/bench.c" || die "guest/bench.c does not build"
logged "$LOGS/guest-build.log" gcc -static -Wall -O2 \
	-o "$out/crash" "$TOP/guest/crash.c" || die "guest/crash.c does not build"
sh "$(dirname "$0")/initramfs.sh" "$BUILD/initramfs.cpio" \
	"$out/immutable_test" "$out/bench" "$out/crash"
echo "initramfs: $(du -h "$BUILD/initramfs.cpio" | cut -f1)"
