#!/bin/sh
# Boot one kernel in QEMU (TCG) with fresh disk images, run the guest init
# and keep the console and the results.
# Usage: boot.sh KERNEL_NAME RUN_NAME MODE FSLIST [TIMEOUT_S] [EXTRA_APPEND]
#   MODE run|shell; FSLIST comma separated (ext2,ext4,xfs,btrfs,f2fs,tmpfs,
#   ext4-dax,xfs-dax,ext4-pmem)
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

drives=
for fs in ext2 ext4 xfs btrfs f2fs; do
	f=$img/$fs.img
	if [ -n "${KEEP_IMAGES:-}" ]; then
		drives="$drives -drive file=$f,if=virtio,format=raw,cache=${CACHE:-unsafe}"
		continue
	fi
	truncate -s "${IMG_SIZE:-512M}" "$f"
	case $fs in
	ext2) mkfs.ext2 -q -F "$f" ;;
	ext4) mkfs.ext4 -q -F "$f" ;;
	xfs) mkfs.xfs -q -f "$f" ;;
	btrfs) mkfs.btrfs -q -f "$f" >/dev/null ;;
	f2fs) mkfs.f2fs -q -f "$f" >/dev/null ;;
	esac || die "mkfs.$fs failed"
	drives="$drives -drive file=$f,if=virtio,format=raw,cache=${CACHE:-unsafe}"
done

# Persistent memory: QEMU loads an xfs image at 512 MiB and an ext4 image
# (PMEM_MIB, 256) at 1 GiB into guest RAM, and memmap=size!addr makes those
# ranges legacy pmem devices.  ext4-dax and xfs-dax mount them with -o dax,
# ext4-pmem without (a disk whose writes cost no host I/O, for make bench).
pmem= mem=${MEM:-1024}
case ,$fslist, in
*,ext4-dax,* | *,xfs-dax,* | *,ext4-pmem,*)
	pm=${PMEM_MIB:-256}
	[ -n "${KEEP_IMAGES:-}" ] || {
		truncate -s 320M "$img/xfs-pmem.img" &&
		mkfs.xfs -q -f -m reflink=0 "$img/xfs-pmem.img" &&
		truncate -s "${pm}M" "$img/ext4-pmem.img" &&
		mkfs.ext4 -q -F -b 4096 "$img/ext4-pmem.img"
	} || die "mkfs of the persistent memory images failed"
	pmem="-device loader,file=$img/xfs-pmem.img,addr=0x20000000,force-raw=on
	      -device loader,file=$img/ext4-pmem.img,addr=0x40000000,force-raw=on"
	extra="memmap=320M!512M memmap=${pm}M!1G $extra"
	mem=${MEM:-2560}
	;;
esac

accel=${ACCEL:-tcg}
icount=
[ -n "${ICOUNT:-}" ] && icount="-icount shift=$ICOUNT,sleep=off"
# no_timer_check: a starved TCG vCPU can fail the IO-APIC timer check
# at boot and panic when the host is busy.
append="console=ttyS0 panic=-1 oops=panic loglevel=5 no_timer_check imm.mode=$mode imm.fs=$fslist $extra"

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
