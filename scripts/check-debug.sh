#!/bin/sh
# Judge a run on the debug kernel: boot.sh has already failed it on any
# lockdep, KASAN, hung-task or other kernel report; here every test must
# pass or skip.  Usage: check-debug.sh FSLIST
set -eu
. "$(dirname "$0")/lib.sh"

res=$(KERNELS=debug sh "$(dirname "$0")/results.sh" "$1")
total=$(echo "$res" | grep -c . || true)
bad=$(echo "$res" | awk -F'\t' '$4 == "FAIL" || $4 == "missing" { print $2 ":" $3 }' | xargs)
echo "$res" | awk -F'\t' '{ n[$2]++; s[$2, $4]++ } END { for (f in n) printf "   debug %-6s %d pass, %d skip, %d FAIL\n", f, s[f, "pass"], s[f, "skip"], s[f, "FAIL"] }'
[ "$total" -gt 0 ] || die "no results from the debug kernel"
[ -z "$bad" ] || die "failed on the debug kernel: $bad"
echo "debug kernel: no kernel report, every test passed or skipped"
