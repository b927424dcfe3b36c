#!/bin/sh
# Build immguard and the guest layer that runs it (make guard).
#   - the kernel's BTF: extracted from the first guarded Debian image of
#     config/kernels (build/kernels/NAME/vmlinux.btf); the objects are
#     CO-RE and load on Debian's other kernels as well;
#   - guard/ built into build/guard (BPF objects, skeletons, the static
#     loader);
#   - the selftest with guard/selftest-guard.patch, built from a copy in
#     build/guard/tree unless the series has taken the patch already;
#   - build/guard/guard.cpio: /bin/immguard, the guest workload
#     /bin/imm-guard and the selftest, laid over the initramfs (boot.sh
#     EXTRA_INITRD), so that every side of make guard-check runs the same
#     test programs.
# Usage: guard.sh SELFTEST_DIR BTF_KERNEL
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

testdir=$1 kname=$2
out=$BUILD/guard
kdir=$BUILD/kernels/$kname
mkdir -p "$out"

# The BTF of the kernel the objects are compiled against: Debian ships it
# in the image; scripts/extract-vmlinux of the tree unpacks the image.
btf=$kdir/vmlinux.btf
if [ ! -s "$btf" ] || [ -n "$(find "$kdir/bzImage" -newer "$btf")" ]; then
	echo "extracting the BTF of $kname"
	sh "$BUILD/src/scripts/extract-vmlinux" "$kdir/bzImage" >"$out/vmlinux.$kname" ||
		die "cannot extract vmlinux from $kdir/bzImage"
	llvm-objcopy --dump-section .BTF="$btf.tmp" "$out/vmlinux.$kname" ||
		die "$kname's image has no .BTF section (CONFIG_DEBUG_INFO_BTF)"
	mv "$btf.tmp" "$btf"
	rm -f "$out/vmlinux.$kname"
fi
logged "$LOGS/guard-build.log" make -C "$TOP/guard" BTF="$btf" OUT="$out" ||
	die "guard/ does not build"

# The selftest with the guard's proposal applied, on a copy of its tree.
patch=$TOP/guard/selftest-guard.patch
tree=$out/tree
sel=${testdir#"$BUILD/src/"}
rm -rf "$tree" && mkdir -p "$tree/$sel"
sdir=$BUILD/src/tools/testing/selftests
cp "$sdir"/lib.mk "$sdir"/*.h "$tree/tools/testing/selftests/"
cp -r "$sdir/kselftest" "$tree/tools/testing/selftests/" 2>/dev/null || true
cp -r "$testdir/." "$tree/$sel/"
if patch -s -p1 -R --dry-run -d "$tree" <"$patch" >/dev/null 2>&1; then
	echo "the selftest has guard/selftest-guard.patch already"
elif ! patch -s -p1 -d "$tree" <"$patch" >"$LOGS/guard-patch.log" 2>&1; then
	cat "$LOGS/guard-patch.log" >&2
	die "guard/selftest-guard.patch does not apply to the selftest any more: redo it (README: the guard and the selftest)"
fi
rm -rf "$out/tests" && mkdir -p "$out/tests"
logged "$LOGS/guard-build.log" make -C "$tree/$sel" OUTPUT="$out/tests" \
	KHDR_INCLUDES= LDFLAGS=-static || die "the patched selftest does not build"

layer=$out/layer
rm -rf "$layer" && mkdir -p "$layer/bin" "$layer/tests"
cp "$out/immguard" "$layer/bin/immguard"
cp "$TOP/guest/guard" "$layer/bin/imm-guard"
cp "$TOP/guest/guard-nolsm" "$layer/bin/imm-guard-nolsm"
chmod +x "$layer/bin/imm-guard" "$layer/bin/imm-guard-nolsm"
cp "$out/race" "$layer/tests/guard_race"
cp "$out/leak" "$layer/tests/guard_leak"
cp "$out/reload" "$layer/tests/guard_reload"
cp "$out/fat" "$layer/tests/guard_fat"
for p in "$out"/tests/*; do
	[ -x "$p" ] && [ -f "$p" ] && cp "$p" "$layer/tests/"
done
(cd "$layer" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$out/guard.cpio"
echo "guard layer: $(du -h "$out/guard.cpio" | cut -f1), tests: $(cd "$layer/tests" && echo *)"
