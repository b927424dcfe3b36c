#!/bin/sh
# Crash consistency of chattr +i: write without syncing, set the flag, kill
# QEMU at a random delay after the ioctl returned, repair the image with the
# column's fsck (config/filesystems), reboot on it and check that a file
# found immutable holds exactly what it held when the ioctl returned.
# Usage: crash.sh CUTS FSLIST [KERNEL]
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cuts=$1
fslist=$2
kernel=${3:-patched}
export CACHE=directsync TIMEOUT=300
bad=0
for fs in $(echo "$fslist" | tr , ' '); do
	fsck=$(sh "$(dirname "$0")/fs.sh" get "$fs" fsck)
	landed=0 intact=0 i=1
	while [ $i -le "$cuts" ]; do
		delay=$(awk -v s="$i$$" 'BEGIN { srand(s); printf "%.2f", rand() * 4 }')
		run=crash-$fs-$i
		IMAGES=crash-$fs CUT_DELAY=$delay KEEP_IMAGES='' \
			sh "$(dirname "$0")/boot.sh" "$kernel" "$run-w" crash "$fs" write >/dev/null ||
			die "cut $i on $fs failed; see $LOGS/$run-w/"
		mark=$(awk '/^IMM-MARK/ { print $2 }' "$LOGS/$run-w/results.log")
		img=$BUILD/images/crash-$fs/$fs.img
		if [ -n "$fsck" ]; then
			# shellcheck disable=SC2086
			$fsck "$img" >"$LOGS/$run-fsck.log" 2>&1 || [ $? -le 1 ] ||
				die "$fsck failed on $img; see $LOGS/$run-fsck.log"
		fi
		IMAGES=crash-$fs KEEP_IMAGES=1 \
			sh "$(dirname "$0")/boot.sh" "$kernel" "$run-c" crash "$fs" check >/dev/null ||
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
