#!/bin/sh
# Configure and build one kernel out of tree, with ccache.
# Usage: kernel.sh NAME SRCDIR OBJDIR FRAGMENT...
#   tinyconfig + the fragments, every symbol of which must hold; the
#   bzImage and .config go to build/kernels/NAME.
# Env: TARGETS (instead of bzImage: build these, copy nothing)
# OBJDIR is relative to SRCDIR, so that ccache hits across the pristine,
# patched and bisect trees.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=$1
srcdir=$(cd "$2" && pwd)
objname=$3
shift 3
frags=
for f; do
	[ -f "$f" ] || die "no config fragment $f"
	frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done
# shellcheck disable=SC2086
set -- $frags
obj=$srcdir/$objname
log=$LOGS/build-$name.log
mkdir -p "$obj"

export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$BUILD"
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=harness \
	KBUILD_BUILD_HOST=qemu
kmake() {
	make -C "$srcdir" O="$objname" ARCH=x86_64 CC="ccache gcc" \
		HOSTCC="ccache gcc" "$@"
}

want=$(cat "$@" | sha256sum | cut -c1-16)
if [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ] || [ ! -f "$obj/.config" ]; then
	echo "configuring $name: tinyconfig + $(echo "$@" | xargs -n1 basename | xargs)"
	logged "$log" kmake tinyconfig || die "tinyconfig failed for $name"
	(cd "$obj" && "$srcdir"/scripts/kconfig/merge_config.sh -m .config "$@") \
		>>"$log" 2>&1 || die "merge_config.sh failed (see $log)"
	logged "$log.olddefconfig" kmake olddefconfig || die "olddefconfig failed"
	# Every symbol asked for must survive olddefconfig.
	bad=0
	for f in "$@"; do
		grep -E '^(CONFIG_[A-Z0-9_]+=.*|# CONFIG_[A-Z0-9_]+ is not set)$' "$f" |
		while read -r line; do
			case $line in
			"# "*) sym=${line#"# "}; sym=${sym%% *}
				! grep -q "^$sym=" "$obj/.config" || { echo "  $sym still set"; exit 1; } ;;
			*) grep -qx "$line" "$obj/.config" || { echo "  $line not in .config"; exit 1; } ;;
			esac
		done || bad=1
	done
	[ $bad = 0 ] || die "config fragments do not hold for $name (dependencies missing?)"
	echo "$want" >"$obj/.fragments"
fi
if [ -n "${TARGETS:-}" ]; then
	# shellcheck disable=SC2086
	logged "$log" kmake -j"$(nproc)" $TARGETS
	exit
fi
echo "building $name in ${obj#"$TOP"/} (log: ${log#"$TOP"/})"
logged "$log" kmake -j"$(nproc)" bzImage || die "kernel build of $name failed"
mkdir -p "$BUILD/kernels/$name"
cp "$obj/arch/x86/boot/bzImage" "$BUILD/kernels/$name/bzImage"
cp "$obj/.config" "$BUILD/kernels/$name/config"
