#!/bin/sh
# Crash consistency of chattr +i: write without syncing, set the flag, kill
# QEMU at a random delay after the ioctl returned, reboot on the same image
# (after fsck where the filesystem has one) and check that a file found
# immutable holds exactly what it held when the ioctl returned.
# Usage: crash.sh CUTS FSLIST [KERNEL]
set -eu
. "$(dirname "$0")/lib.sh"

cuts=$1
fslist=$2
kernel=${3:-patched}
export CACHE=directsync KEEP_IMAGES=
bad=0
for fs in $(echo "$fslist" | tr , ' '); do
	landed=0 intact=0 i=1
	while [ $i -le "$cuts" ]; do
		delay=$(awk -v s="$i$$" 'BEGIN { srand(s); printf "%.2f", rand() * 4 }')
		run=crash-$fs-$i
		IMAGES=crash CUT_DELAY=$delay KEEP_IMAGES= \
			sh "$(dirname "$0")/boot.sh" "$kernel" "$run-w" crash-write "$fs" 300 >/dev/null ||
			die "cut $i on $fs failed; see $LOGS/$run-w/"
		mark=$(awk '/^IMM-MARK/ { print $2 }' "$LOGS/$run-w/results.log")
		img=$BUILD/images/crash/$fs.img
		case $fs in
		ext4) e2fsck -fy "$img" >"$LOGS/$run-fsck.log" 2>&1 || [ $? -le 1 ] ||
			die "e2fsck failed on $img; see $LOGS/$run-fsck.log" ;;
		f2fs) fsck.f2fs -a "$img" >"$LOGS/$run-fsck.log" 2>&1 ||
			die "fsck.f2fs failed on $img; see $LOGS/$run-fsck.log" ;;
		esac
		IMAGES=crash KEEP_IMAGES=1 \
			sh "$(dirname "$0")/boot.sh" "$kernel" "$run-c" crash-check "$fs" 300 >/dev/null ||
			die "check after cut $i on $fs failed; see $LOGS/$run-c/"
		line=$(grep -m1 '^IMM-CRASH' "$LOGS/$run-c/results.log" || true)
		case $line in
		*flag=1*)
			landed=$((landed + 1))
			got=$(echo "$line" | sed -n 's/.*sum=\([0-9a-f]*\).*/\1/p')
			if [ -n "$mark" ] && [ "$got" = "$mark" ]; then
				intact=$((intact + 1))
			else
				echo "   $fs cut $i (+${delay}s): immutable but changed: $line, expected $mark"
				bad=1
			fi ;;
		*flag=0*) ;;
		*) die "no verdict after cut $i on $fs: $LOGS/$run-c/results.log" ;;
		esac
		i=$((i + 1))
	done
	echo "   $fs: $cuts cuts, flag persisted in $landed, full content in $intact of those"
done
[ $bad = 0 ]
