#!/bin/sh
# Boot one kernel in QEMU (TCG) with fresh disk images, run the guest init
# and keep the console and the results.
# Usage: boot.sh KERNEL_NAME RUN_NAME MODE FSLIST [TIMEOUT_S] [EXTRA_APPEND]
#   MODE run|shell|bench|crash-*; FSLIST comma separated columns: ext2 ext3
#   ext4 xfs btrfs f2fs jfs nilfs2 gfs2 ocfs2 (a disk each), tmpfs, ext2-dax
#   ext4-dax xfs-dax (persistent memory, -o dax), ext4-pmem (without dax),
#   ovl-ext4 ovl-xfs (overlayfs, layers on a disk each), ovl-tmpfs
# Env: ACCEL (tcg), SMP (2), MEM (1024, 2560 with DAX), ICOUNT (empty, or
#   shift for -icount)
set -eu
. "$(dirname "$0")/lib.sh"

name=$1
kernel=$BUILD/bzImage-$name
run=$2
mode=$3
fslist=$4
tmo=${5:-600}
extra=${6:-}
dir=$LOGS/$run
initrd=$BUILD/initramfs.cpio
[ -f "$kernel" ] || die "no kernel $kernel; run make build"
[ -f "$initrd" ] || die "no initramfs; run make build"
rm -rf "$dir" && mkdir -p "$dir"
img=$BUILD/images/${IMAGES:-$run}
[ -n "${KEEP_IMAGES:-}" ] || { rm -rf "$img" && mkdir -p "$img"; }

# One disk per block-device column asked for, attached in FSLIST order; the
# guest learns the order from imm.disks= (the Nth disk is /dev/vd<N>).
mkfs_disk() {
	case $1 in
	ext2) mkfs.ext2 -q -F "$2" ;;
	ext3) mkfs.ext3 -q -F "$2" ;;
	ext4) mkfs.ext4 -q -F "$2" ;;
	xfs) mkfs.xfs -q -f "$2" ;;
	btrfs) mkfs.btrfs -q -f "$2" >/dev/null ;;
	f2fs) mkfs.f2fs -q -f "$2" >/dev/null ;;
	jfs) mkfs.jfs -q "$2" >/dev/null ;;
	nilfs2) mkfs.nilfs2 -q -f "$2" ;;
	gfs2) mkfs.gfs2 -O -q -p lock_nolock -j 1 "$2" >/dev/null ;;
	ocfs2) mkfs.ocfs2 -q -F -M local "$2" >/dev/null ;;
	ovl-*) mkfs_disk "${1#ovl-}" "$2" ;;
	*) die "no mkfs for $1" ;;
	esac
}
drives= disks=
for fs in $(echo "$fslist" | tr , ' '); do
	case $fs in tmpfs | ovl-tmpfs | *-dax | *-pmem) continue ;; esac
	f=$img/$fs.img
	if [ -z "${KEEP_IMAGES:-}" ]; then
		rm -f "$f" && truncate -s "${IMG_SIZE:-512M}" "$f" ||
			die "cannot create $f"
		mkfs_disk "$fs" "$f" || die "mkfs for $fs failed (is its package installed? make deps)"
	fi
	drives="$drives -drive file=$f,if=virtio,format=raw,cache=${CACHE:-unsafe}"
	disks=$disks${disks:+,}$fs
done

# Persistent memory: QEMU loads each image into guest RAM, and
# memmap=size!addr makes those ranges legacy pmem devices, numbered in
# address order; the guest learns the order from imm.pmem=.  xfs (320 MiB)
# sits at 512 MiB, ext2 (160 MiB) at 832 MiB and ext4 (PMEM_MIB, 256) at
# 1 GiB.  *-dax columns mount them with -o dax, ext4-pmem without (a disk
# whose writes cost no host I/O, for make bench).
pmem= pmems= mem=${MEM:-1024}
for p in xfs:320:512M ext2:160:832M ext4:${PMEM_MIB:-256}:1G; do
	fs=${p%%:*} size=${p#*:} size=${size%%:*} addr=${p##*:}
	case ,$fslist, in *,$fs-dax,* | *,$fs-pmem,*) ;; *) continue ;; esac
	f=$img/$fs-pmem.img
	if [ -z "${KEEP_IMAGES:-}" ]; then
		rm -f "$f" && truncate -s "${size}M" "$f" || die "cannot create $f"
		case $fs in
		xfs) mkfs.xfs -q -f -m reflink=0 "$f" ;;
		ext2) mkfs.ext2 -q -F -b 4096 "$f" ;;
		ext4) mkfs.ext4 -q -F -b 4096 "$f" ;;
		esac || die "mkfs of the $fs persistent memory image failed"
	fi
	case $addr in
	*G) a=$((${addr%G} * 1024 * 1024 * 1024)) ;;
	*M) a=$((${addr%M} * 1024 * 1024)) ;;
	esac
	pmem="$pmem -device loader,file=$f,addr=$(printf 0x%x "$a"),force-raw=on"
	extra="memmap=${size}M!$addr $extra"
	pmems=$pmems${pmems:+,}$fs
	mem=${MEM:-2560}
done

accel=${ACCEL:-tcg}
icount=
[ -n "${ICOUNT:-}" ] && icount="-icount shift=$ICOUNT,sleep=off"
# no_timer_check: a starved TCG vCPU can fail the IO-APIC timer check
# at boot and panic when the host is busy.
append="console=ttyS0 panic=-1 oops=panic loglevel=5 no_timer_check imm.mode=$mode imm.fs=$fslist imm.disks=$disks imm.pmem=$pmems $extra"

set -- qemu-system-x86_64 -accel "$accel" $icount -smp "${SMP:-2}" \
	-m "$mem" -cpu max -no-reboot -display none -vga none \
	-kernel "$kernel" -initrd "$initrd" -append "$append" $drives $pmem

t0=$(date +%s)
if [ "$mode" = shell ]; then
	"$@" -serial mon:stdio -serial file:"$dir/results.log"
	exit 0
fi
echo "booting $name ($run: $fslist, timeout ${tmo}s); console: ${dir#"$TOP"/}/console.log"
rc=0
if [ -n "${CUT_DELAY:-}" ]; then
	# Pull the plug CUT_DELAY seconds after the guest's IMM-MARK.
	(
		n=0
		while ! grep -q '^IMM-MARK' "$dir/results.log" 2>/dev/null; do
			sleep 0.1
			n=$((n + 1))
			[ $n -lt 3000 ] || exit 0
		done
		sleep "$CUT_DELAY"
		pkill -KILL -f "file:$dir/console.log"
	) &
fi
{ timeout -k 5 "$tmo" "$@" -monitor none -serial file:"$dir/console.log" \
	-serial stdio </dev/null || echo $? >"$dir/qemu.rc"; } |
	tee "$dir/results.log" |
	awk '/^IMM-|^# [0-9]+ toggles/ { print "   " $0; fflush() }'
[ -f "$dir/qemu.rc" ] && rc=$(cat "$dir/qemu.rc")
echo "   guest ran $(($(date +%s) - t0))s"

fail() {
	echo "---- last 40 lines of the console ($dir/console.log) ----" >&2
	tail -n 40 "$dir/console.log" >&2
	die "$run: $*; full console log: $dir/console.log"
}
if [ -n "${CUT_DELAY:-}" ] && grep -q '^IMM-MARK' "$dir/results.log"; then
	wait
	[ "$rc" = 137 ] || fail "the guest ended before the cut (status $rc)"
	exit 0
fi
[ "$rc" = 124 ] || [ "$rc" = 137 ] && fail "QEMU timed out after ${tmo}s"
[ "$rc" = 0 ] || fail "QEMU exited with status $rc"
bad=$(grep -n -m1 -E 'Kernel panic|Oops|BUG:|WARNING:|INFO: task .* blocked|soft lockup|general protection fault|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|Call Trace:' "$dir/console.log" || true)
[ -z "$bad" ] || fail "the kernel reported a problem: $bad"
grep -q '^IMM-DONE' "$dir/results.log" || fail "the guest did not finish its run"
