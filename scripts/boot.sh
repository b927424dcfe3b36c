#!/bin/sh
# Boot one kernel in QEMU (TCG) on fresh images of the columns asked for,
# hand the guest its plan and workload, keep the console and the results.
# Usage: boot.sh KERNEL RUN WORKLOAD FSLIST [ARG...]
#   KERNEL    a directory of build/kernels (bzImage, config, and for a
#             Debian kernel modules.cpio and modules)
#   RUN       the name of the run: logs in build/logs/RUN
#   WORKLOAD  suite, bench, crash or shell (guest/WORKLOAD); ARGs go to it
#   FSLIST    comma separated columns of config/filesystems
# Env: TIMEOUT (seconds per column, 150), APPEND (kernel command line),
#   GUEST_ENV (VAR=value ... for the workload), ACCEL (tcg), SMP (2),
#   MEM (MiB besides persistent memory, 1024), ICOUNT (shift for -icount),
#   CACHE (unsafe), IMAGES (image directory name, RUN), KEEP_IMAGES (reuse
#   them), CUT_DELAY (kill QEMU that many seconds after IMM-MARK),
#   EXTRA_INITRD (a cpio archive laid over the initramfs: make guard-check)
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kname=$1 run=$2 workload=$3 fslist=$4
shift 4
# what this run was asked, for its rerun script
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
boot_args="$(q "$kname") $(q "$run") $(q "$workload") $(q "$fslist")"
for a; do boot_args="$boot_args $(q "$a")"; done
kdir=$BUILD/kernels/$kname
dir=$LOGS/$run
fs() { sh "$TOP/scripts/fs.sh" "$@"; }
[ -f "$kdir/bzImage" ] || die "no kernel $kname in $kdir; run make (or make kernel-$kname)"
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs; run make guest"
fs check "$fslist"
rm -rf "$dir" && mkdir -p "$dir/initrd/run"
img=$BUILD/images/${IMAGES:-$run}
[ -n "${KEEP_IMAGES:-}" ] || { rm -rf "$img" && mkdir -p "$img"; }

# A column runs only on a kernel that has what it needs: Debian's kernels
# have no fs/ext2, for one.
available() {
	for sym in $(fs config "$1"); do
		grep -Eq "^CONFIG_$sym=(y|m)$" "$kdir/config" || { echo "$sym"; return 1; }
	done
}

# make_image COLUMN FILE: a fresh image of COLUMN's filesystem
make_image() {
	[ -n "${KEEP_IMAGES:-}" ] && [ -f "$2" ] && return 0
	rm -f "$2"
	truncate -s "$(fs get "$1" size)" "$2" || die "cannot create $2"
	# shellcheck disable=SC2046
	logged "$dir/mkfs-$1.log" $(fs get "$1" make) "$2" ||
		die "mkfs for $1 failed (is $(fs get "$1" package) installed? make deps)"
}

# Block devices are attached in order (/dev/vda, vdb, ...); persistent
# memory follows the guest's MEM, one region per image, numbered in address
# order (/dev/pmem0, ...), loaded by QEMU and made legacy pmem by memmap=;
# 128 MiB of RAM above them keep them clear of what the firmware reserves
# at the top of memory.
letters=abcdefghijklmnopqrstuvwxyz
nblk=0 npmem=0 mem=$((${MEM:-1024} + 128)) pmem_at=${MEM:-1024}
drives='' loaders='' memmap='' plan=
# attach COLUMN: prints the guest device of a fresh image of COLUMN
attach() {
	case $(fs get "$1" kind) in
	block)
		make_image "$1" "$img/$run_col.img"
		drives="$drives -drive file=$img/$run_col.img,if=virtio,format=raw,cache=${CACHE:-unsafe}"
		dev=/dev/vd$(echo $letters | cut -c$((nblk + 1)))
		nblk=$((nblk + 1)) ;;
	pmem)
		make_image "$1" "$img/$run_col.img"
		mib=$(($(stat -c %s "$img/$run_col.img") / 1048576))
		loaders="$loaders -device loader,file=$img/$run_col.img,addr=$(printf 0x%x $((pmem_at * 1048576))),force-raw=on"
		memmap="$memmap memmap=${mib}M!${pmem_at}M"
		pmem_at=$((pmem_at + mib)) mem=$((mem + mib))
		dev=/dev/pmem$npmem
		npmem=$((npmem + 1)) ;;
	tmpfs) dev=tmpfs ;;
	*) die "column $1: a stacked column cannot stand on a stacked one" ;;
	esac
}

: >"$dir/unavailable"
for col in $(echo "$fslist" | tr , ' '); do
	if ! miss=$(available "$col"); then
		echo "$col CONFIG_$miss" >>"$dir/unavailable"
		continue
	fi
	run_col=$col
	kind=$(fs get "$col" kind)
	type=$(fs get "$col" type)
	opts=$(fs get "$col" options)
	if [ "$kind" = stacked ]; then
		lower=$(fs lower "$col")
		attach "$lower"
		lopts=$(fs get "$lower" options)
		[ "$(fs get "$lower" kind)" = tmpfs ] && lopts=size=$(fs get "$lower" size)
		line="$col stacked $type overlay ${opts:--} $(fs get "$lower" type) $dev ${lopts:--}"
	else
		attach "$col"
		[ "$kind" = tmpfs ] && opts=size=$(fs get "$col" size)${opts:+,$opts}
		line="$col $kind $type $dev ${opts:--}"
	fi
	plan="$plan$line
"
done
printf '%s' "$plan" >"$dir/initrd/run/plan"
echo "$workload $*" >"$dir/initrd/run/workload"
: >"$dir/initrd/run/env"
for v in ${GUEST_ENV:-}; do echo "$v" >>"$dir/initrd/run/env"; done
[ -f "$kdir/modules" ] && cp "$kdir/modules" "$dir/initrd/run/modules"
cp "$dir/initrd/run/plan" "$dir/plan"
(cd "$dir/initrd" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$dir/run.cpio"
# the kernel unpacks concatenated archives in order
mods=
[ -f "$kdir/modules.cpio" ] && mods=$kdir/modules.cpio
# shellcheck disable=SC2086 # each is one path or nothing
cat "$BUILD/initramfs.cpio" $mods ${EXTRA_INITRD:-} "$dir/run.cpio" >"$dir/initrd.cpio"
rm -rf "$dir/initrd" "$dir/run.cpio"

ncols=$(grep -c . "$dir/plan" || true)
tmo=$((${TIMEOUT:-150} * ncols + 120))
[ "$workload" = shell ] && tmo=0
icount=
[ -n "${ICOUNT:-}" ] && icount="-icount shift=$ICOUNT,sleep=off"
# no_timer_check: a starved TCG vCPU can fail the IO-APIC timer check at
# boot and panic when the host is busy.  tsc=unstable: under TCG the kernel
# finds the TSC unstable a few seconds into boot and then rewrites the
# sched_clock_stable() jump labels while the other vCPU runs them; QEMU
# 7.2's TCG has executed the int3 that text_poke_bp() leaves there for a
# moment after it was gone (an "Oops: int3" in sched_clock_cpu(), seen
# twice on Debian's 6.12).  Said at boot, the key is never turned on.
# Under -icount the TSC counts instructions as every other clock does, so
# it is declared reliable instead: without ACPI our kernels find no HPET,
# and tsc=unstable would leave the benchmarks a jiffies clock (4 ms).
tsc=unstable
[ -n "$icount" ] && tsc=reliable
append="console=ttyS0 panic=-1 oops=panic loglevel=5 no_timer_check tsc=$tsc${memmap} ${APPEND:-}"
# shellcheck disable=SC2086
set -- qemu-system-x86_64 -accel "${ACCEL:-tcg}" $icount -smp "${SMP:-2}" \
	-m "$mem" -cpu max -no-reboot -display none -vga none \
	-kernel "$kdir/bzImage" -initrd "$dir/initrd.cpio" -append "$append" \
	$drives $loaders

# The rerun script: the run again from fresh images, as make ran it, or
# QEMU alone on this run's initramfs and the images as the run left them.
# shellcheck disable=SC2016,SC2094 # the script's own text; $dir is named, not read
{
	echo '#!/bin/sh'
	echo "# Rerun $run: $kname, $workload on $fslist."
	case $run in
	run-* | guard-*) echo "# made by: make $run" ;;
	bench-*) echo "# made by: make bench or make bench-short" ;;
	repeat-*) echo "# made by: make check-repeat" ;;
	crash-*) echo "# made by: make check-crash" ;;
	esac
	echo "#   sh $(q "$dir/rerun.sh")        the run again, fresh images (scripts/boot.sh)"
	echo "#   sh $(q "$dir/rerun.sh") qemu   QEMU alone on this run's initrd and images"
	echo "cd $(q "$TOP") || exit 1"
	echo 'if [ "${1:-}" = qemu ]; then'
	printf '\texec'
	for a; do printf ' %s' "$(q "$a")"; done
	printf ' -monitor none -serial stdio -serial %s\n' "$(q "file:$dir/rerun-results.log")"
	echo 'fi'
	printf 'exec env BUILD=%s' "$(q "$BUILD")"
	for v in TIMEOUT APPEND GUEST_ENV ACCEL SMP MEM ICOUNT CACHE IMAGES KEEP_IMAGES CUT_DELAY EXTRA_INITRD; do
		eval "val=\${$v-}"
		# shellcheck disable=SC2154
		[ -z "$val" ] || printf ' %s=%s' "$v" "$(q "$val")"
	done
	printf ' sh scripts/boot.sh %s\n' "$boot_args"
} >"$dir/rerun.sh"

if [ "$workload" = shell ]; then
	"$@" -serial mon:stdio -serial file:"$dir/results.log"
	exit 0
fi
t0=$(date +%s)
echo "booting $kname ($run: $(awk '{ print $1 }' "$dir/plan" | paste -sd, -), $workload, timeout ${tmo}s); console: ${dir#"$TOP"/}/console.log"
[ -s "$dir/unavailable" ] && sed 's/^/   not on this kernel: /; s/ CONFIG_/ (no CONFIG_/; s/$/)/' "$dir/unavailable"
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
		kill -KILL "$(cat "$dir/qemu.pid")"
	) &
fi
rc=0
{ timeout -k 5 "$tmo" "$@" -pidfile "$dir/qemu.pid" -monitor none -serial file:"$dir/console.log" \
	-serial stdio </dev/null || echo $? >"$dir/qemu.rc"; } |
	tee "$dir/results.log" |
	awk '/^IMM-(FS-END|BENCH-FAILED|CRASH|MODPROBE|MOUNT)|^# [0-9]+ toggles/ { print "   " $0; fflush() }'
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
why=$(sh "$TOP/scripts/run-verdict.sh" "$dir" "${tmo}s (TIMEOUT=${TIMEOUT:-150} s per column)") || fail "$why"
