#!/bin/sh
# Judge one guest run from what it left in its log folder: QEMU's exit
# status (qemu.rc, none when 0), the kernel's console (console.log) and the
# workload's results (results.log).  Silent and successful for a good run;
# otherwise one line that says what went wrong, and failure.
# Usage: run-verdict.sh DIR TIMEOUT_TEXT
#   TIMEOUT_TEXT: how long QEMU was given, for the message
set -eu
dir=$1 tmo=$2
rc=0
[ -f "$dir/qemu.rc" ] && rc=$(cat "$dir/qemu.rc")
case $rc in
0) ;;
124 | 137) echo "QEMU timed out after $tmo; the guest hung or is too slow"; exit 1 ;;
*) echo "QEMU exited with status $rc"; exit 1 ;;
esac
bad=$(tr -d '\r' <"$dir/console.log" | grep -n -m1 -E 'Kernel panic|Oops|BUG:|WARNING:|INFO: task .* blocked|soft lockup|general protection fault|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|Call Trace:' || true)
[ -z "$bad" ] || { echo "the kernel reported a problem: $bad"; exit 1; }
grep -q '^IMM-DONE rc=0' "$dir/results.log" 2>/dev/null ||
	{ echo "the guest did not finish its workload ($(grep -m1 '^IMM-DONE' "$dir/results.log" 2>/dev/null || echo 'no IMM-DONE'))"; exit 1; }
