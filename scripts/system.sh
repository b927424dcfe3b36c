#!/bin/sh
# Debian systems for make check-system: a Debian 12 root filesystem built
# with mmdebstrap from Debian's packages, a kernel package installed in it
# with dpkg, booted in QEMU with systemd as PID 1.
# Usage:
#   system.sh base                  build/system/base.tar: the root
#                                   filesystem without a kernel (made again
#                                   when the package list changes)
#   system.sh image NAME DEB...     build/system/NAME/: root.img with the
#                                   packages DEB (a kernel's, immguard's)
#                                   installed by dpkg, and the vmlinuz and
#                                   initrd.img they installed
#   system.sh boot NAME RUN         boot it on fresh ext4 and xfs disks;
#                                   the scenarios run; logs in
#                                   build/logs/RUN
# Env of image: SCENARIO (system: guest/system/imm-system, the default;
#   guard-system: imm-guard-system).  Env of boot: TIMEOUT (seconds, 900),
#   SMP (2), MEM (MiB, 2048), APPEND (more of the command line)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

sys=$BUILD/system
# what the scenarios need besides the kernel; linux-base and
# initramfs-tools for the kernel package's own scripts
PACKAGES="systemd systemd-sysv udev kmod e2fsprogs xfsprogs sqlite3
libsqlite3-0 procps util-linux initramfs-tools linux-base zstd libbpf1
libelf1 zlib1g"
MIRRORS="deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main"

base() {
	stamp=$(echo "$PACKAGES $MIRRORS" | sha256sum | cut -c1-16)
	if [ -f "$sys/base.tar" ] && [ "$(cat "$sys/base.stamp" 2>/dev/null)" = "$stamp" ]; then
		echo "Debian root filesystem: $sys/base.tar (made before)"
		return
	fi
	command -v mmdebstrap >/dev/null || die "mmdebstrap is not installed (make deps)"
	mkdir -p "$sys"
	echo "building the Debian 12 root filesystem with mmdebstrap (log: ${LOGS#"$TOP"/}/mmdebstrap.log)"
	# shellcheck disable=SC2086 # the package list, one word each
	logged "$LOGS/mmdebstrap.log" mmdebstrap --variant=apt \
		--include="$(echo $PACKAGES | tr ' ' ,)" bookworm "$sys/base.tmp.tar" "$MIRRORS" ||
		die "mmdebstrap failed; is Debian's archive reachable?"
	mv "$sys/base.tmp.tar" "$sys/base.tar"
	echo "$stamp" >"$sys/base.stamp"
}

# the guest programs of guest/system, built here against Debian 12's
# libsqlite3 (the root filesystem's own)
programs() {
	o=$sys/programs
	mkdir -p "$o"
	logged "$LOGS/system-build.log" gcc -Wall -O2 -static -o "$o/imm-hold" "$TOP/guest/system/hold.c" ||
		die "guest/system/hold.c does not build"
	logged "$LOGS/system-build.log" gcc -Wall -O2 -o "$o/imm-sqlite" "$TOP/guest/system/sqlite.c" -lsqlite3 ||
		die "guest/system/sqlite.c does not build (libsqlite3-dev: make deps)"
}

image() {
	k=$1
	shift
	[ -f "$sys/base.tar" ] || base
	programs
	d=$sys/$k
	root=$d/root
	rm -rf "$d" && mkdir -p "$root"
	tar -C "$root" -xf "$sys/base.tar" || die "cannot unpack $sys/base.tar"
	lib=$root/usr/local/lib/imm-system
	mkdir -p "$lib/selftest" "$root/etc/systemd/system/multi-user.target.wants" \
		"$root/mnt/ext4" "$root/mnt/xfs" "$root/var/log/journal"
	install -m 755 "$sys/programs/imm-hold" "$sys/programs/imm-sqlite" \
		"$TOP/guest/system/imm-appender" "$lib/"
	install -m 644 "$TOP/guest/system/lib.sh" "$lib/lib.sh"
	install -m 755 "$TOP/guest/system/imm-${SCENARIO:-system}" "$lib/imm-system" ||
		die "no scenario guest/system/imm-${SCENARIO:-system}"
	cp "$BUILD"/guest/tests/* "$lib/selftest/" 2>/dev/null || die "no selftest programs; run make guest"
	cp "$TOP"/guest/system/*.service "$root/etc/systemd/system/"
	ln -s ../imm-system.service "$root/etc/systemd/system/multi-user.target.wants/imm-system.service"
	cat >"$root/etc/fstab" <<-FSTAB
	/dev/vda / ext4 defaults 0 1
	/dev/vdb /mnt/ext4 ext4 defaults 0 2
	/dev/vdc /var/log/journal xfs defaults 0 0
	/dev/vdd /mnt/xfs xfs defaults 0 0
	FSTAB
	echo imm-system >"$root/etc/hostname"
	# the packages, installed as an administrator installs them
	for deb; do cp "$deb" "$root/tmp/"; done
	(
		trap 'umount "$root/dev" "$root/sys" "$root/proc" 2>/dev/null' EXIT
		mount --bind /dev "$root/dev" && mount -t proc proc "$root/proc" &&
			mount -t sysfs sys "$root/sys" || exit 1
		# shellcheck disable=SC2046
		chroot "$root" dpkg -i $(for deb; do echo "/tmp/${deb##*/}"; done)
	) >"$LOGS/dpkg-$k.log" 2>&1 || { tail -n 30 "$LOGS/dpkg-$k.log" >&2; die "dpkg -i failed in the root filesystem ($LOGS/dpkg-$k.log)"; }
	rm -f "$root"/tmp/*.deb
	v=
	for f in "$root"/boot/vmlinuz-*; do [ -f "$f" ] && v=$f; done
	[ -n "$v" ] || die "the package installed no /boot/vmlinuz-*"
	cp "$v" "$d/vmlinuz"
	cp "$root/boot/initrd.img-${v##*/vmlinuz-}" "$d/initrd.img" ||
		die "no initrd.img for ${v##*/vmlinuz-}: did update-initramfs run? ($LOGS/dpkg-$k.log)"
	echo "${v##*/vmlinuz-}" >"$d/release"
	truncate -s 3G "$d/root.img"
	logged "$LOGS/mkfs-system-$k.log" mkfs.ext4 -q -F -d "$root" "$d/root.img" ||
		die "mkfs.ext4 -d failed"
	rm -rf "$root"
	echo "$k: Debian 12, systemd, kernel $(cat "$d/release") and $(for deb; do basename "$deb" .deb; done | paste -sd' ' -) installed by dpkg ($(du -h "$d/root.img" | cut -f1) used)"
}

boot() {
	k=$1 run=$2
	d=$sys/$k
	dir=$LOGS/$run
	[ -f "$d/root.img" ] || die "no Debian system $k in $d (make check-system, make guard-system)"
	rm -rf "$dir" && mkdir -p "$dir"
	img=$BUILD/images/$run
	rm -rf "$img" && mkdir -p "$img"
	cp --sparse=always "$d/root.img" "$img/root.img"
	truncate -s 512M "$img/ext4.img" "$img/journal.img" "$img/xfs.img"
	{ mkfs.ext4 -q -F "$img/ext4.img" && mkfs.xfs -q -f "$img/journal.img" &&
		mkfs.xfs -q -f "$img/xfs.img"; } >"$dir/mkfs.log" 2>&1 || die "mkfs failed ($dir/mkfs.log)"
	tmo=${TIMEOUT:-900}
	set -- qemu-system-x86_64 -accel "${ACCEL:-tcg}" -smp "${SMP:-2}" -m "${MEM:-2048}" \
		-cpu max -no-reboot -display none -vga none \
		-kernel "$d/vmlinuz" -initrd "$d/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 no_timer_check tsc=unstable net.ifnames=0 ${APPEND:-}" \
		-drive "file=$img/root.img,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$img/ext4.img,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$img/journal.img,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$img/xfs.img,if=virtio,format=raw,cache=unsafe"
	{
		echo '#!/bin/sh'
		echo "# Rerun $run: the Debian system of $k (made by make check-system)"
		printf 'exec env BUILD=%s TIMEOUT=%s sh %s boot %s %s\n' "$BUILD" "$tmo" "$TOP/scripts/system.sh" "$k" "$run"
	} >"$dir/rerun.sh"
	echo "booting $k with systemd ($run, timeout ${tmo}s); console: ${dir#"$TOP"/}/console.log"
	t0=$(date +%s)
	{ timeout -k 5 "$tmo" "$@" -pidfile "$dir/qemu.pid" -monitor none \
		-serial file:"$dir/console.log" -serial stdio </dev/null || echo $? >"$dir/qemu.rc"; } |
		tee "$dir/results.log" |
		awk '/^IMM-SYS /{ print "   " $0; fflush() }'
	echo "   guest ran $(($(date +%s) - t0))s"
	why=$(sh "$TOP/scripts/run-verdict.sh" "$dir" "${tmo}s (TIMEOUT)") || {
		echo "---- last 40 lines of the console ($dir/console.log) ----" >&2
		tail -n 40 "$dir/console.log" >&2
		die "$run: $why; full console log: $dir/console.log"
	}
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
base) base ;;
image) image "$@" ;;
boot) boot "$@" ;;
*)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
	exit 2 ;;
esac
