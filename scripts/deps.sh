#!/bin/sh
# Install what the harness needs from Debian's archive, and nothing else:
# the tools below, the mkfs and fsck packages of config/filesystems, and
# linux-source-6.12 at the version asked for.
# Usage: deps.sh DEBIAN_VERSION_OF_linux-source-6.12
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

want=$1
pkgs="qemu-system-x86 busybox-static build-essential flex bison bc libelf-dev
libssl-dev cpio ccache xz-utils git perl python3 python3-ply python3-git
clang llvm libbpf-dev bpftool zlib1g-dev patch shellcheck
mmdebstrap libsqlite3-dev debhelper dpkg-dev kmod rsync
$(sh "$(dirname "$0")/fs.sh" packages)"

have_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^install ok installed //p'
}

missing=
for p in $pkgs; do
	[ -n "$(have_version "$p")" ] || missing="$missing $p"
done
src=
[ "$(have_version linux-source-6.12)" = "$want" ] || src="linux-source-6.12=$want"

if [ -z "$missing$src" ]; then
	echo "all packages present (linux-source-6.12 $want)"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "missing packages:$missing $src; run as root or install them"
export DEBIAN_FRONTEND=noninteractive
echo "installing:$missing $src"
logged "$LOGS/apt-update.log" apt-get update ||
	die "apt-get update failed; is Debian's archive reachable?"
if [ -n "$src" ] && ! apt-cache madison linux-source-6.12 | grep -q "| $want |"; then
	echo "linux-source-6.12 $want is not in the archive; it has:" >&2
	apt-cache madison linux-source-6.12 | awk -F'|' '{print "   " $2}' >&2
	die "pick one with: make LINUX_DEB_VERSION=<version> (or edit versions.mk)"
fi
# shellcheck disable=SC2086
logged "$LOGS/apt-install.log" apt-get install -y --no-install-recommends \
	--allow-downgrades $missing $src ||
	die "apt-get install failed (see $LOGS/apt-install.log)"
