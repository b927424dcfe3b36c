#!/bin/sh
# Build the series as a Debian kernel package (make bindeb-pkg) from
# Debian's own config: everything but the series is what Debian ships.
# Usage: deb.sh NAME SRCDIR DEBIAN_CONFIG full|trimmed [LSMOD]
#   DEBIAN_CONFIG: the /boot/config-* of Debian's image (build/kernels/
#   BEFORE/config); trimmed: only the modules in LSMOD (a /proc/modules
#   of the Debian system the tests boot: make localmodconfig), no debug
#   info; full: Debian's config whole (hours on 2 cores)
# The package goes to build/debs/ and its name to build/kernels/NAME/deb.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=$1 srcdir=$(cd "$2" && pwd) dconfig=$3 how=$4 lsmod=${5:-}
obj=.build-$name
log=$LOGS/build-$name.log
[ -f "$dconfig" ] || die "no Debian config $dconfig"
mkdir -p "$srcdir/$obj" "$BUILD/debs" "$BUILD/kernels/$name"
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$BUILD"
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=harness \
	KBUILD_BUILD_HOST=qemu
kmake() {
	make -C "$srcdir" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}
cfg() { "$srcdir/scripts/config" --file "$srcdir/$obj/.config" "$@"; }

want=$(cat "$dconfig" ${lsmod:+"$lsmod"} "$0" | sha256sum | cut -c1-16)-$how
if [ "$(cat "$srcdir/$obj/.deb-config" 2>/dev/null)" != "$want" ]; then
	echo "configuring $name: Debian's config ($how)"
	cp "$dconfig" "$srcdir/$obj/.config"
	# Debian signs with its own keys, which are not ours to have
	cfg --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str LOCALVERSION "-imm" --disable LOCALVERSION_AUTO
	if [ "$how" = trimmed ]; then
		[ -s "$lsmod" ] || die "no module list $lsmod (boot the Debian system first: make check-system)"
		logged "$log" kmake LSMOD="$lsmod" localmodconfig </dev/null ||
			die "localmodconfig failed"
		cfg --disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
			--disable DEBUG_INFO_DWARF5 --disable DEBUG_INFO_BTF \
			--enable DEBUG_INFO_NONE
	fi
	logged "$log.olddefconfig" kmake olddefconfig || die "olddefconfig failed"
	echo "$want" >"$srcdir/$obj/.deb-config"
fi
echo "building $name: make bindeb-pkg in ${srcdir#"$TOP"/}/$obj (log: ${log#"$TOP"/})"
# the release is 6.12.N-imm, with a "+" where the tree is not at a tag
rm -f "$srcdir"/linux-*imm*.deb "$srcdir"/linux-*imm*.buildinfo "$srcdir"/linux-*imm*.changes
logged "$log" kmake -j"$(nproc)" KDEB_PKGVERSION="$(make -s -C "$srcdir" kernelversion)-1imm" \
	bindeb-pkg || die "make bindeb-pkg failed for $name"
deb=
for f in "$srcdir"/linux-image-*imm*_*.deb; do
	case $f in *-dbg_*) ;; *) [ -f "$f" ] && deb=$f ;; esac
done
[ -n "$deb" ] || die "make bindeb-pkg left no linux-image package"
mv "$srcdir"/linux-*imm*.deb "$BUILD/debs/"
echo "$BUILD/debs/${deb##*/}" >"$BUILD/kernels/$name/deb"
cp "$srcdir/$obj/.config" "$BUILD/kernels/$name/config"
echo "$name: $(cat "$BUILD/kernels/$name/deb")"
