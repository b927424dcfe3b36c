#!/bin/sh
# (c) checkpatch.pl --strict on every patch, but for the exceptions listed
# in patches/checkpatch-exceptions as "PATCH-FILE TYPE[,TYPE] REASON...".
# Writes build/checkpatch.tsv (STATUS PATCH IGNORED) and the findings to
# build/logs/checkpatch.log.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

exc=$TOP/patches/checkpatch-exceptions
out=$BUILD/checkpatch.tsv
: >"$out"
: >"$LOGS/checkpatch.log"
for p in "$TOP"/patches/[0-9]*.patch; do
	case $p in */0000-*) continue ;; esac
	name=$(basename "$p")
	ignore=$(awk -v n="$name" '$1 == n { print $2 }' "$exc" 2>/dev/null | paste -sd, -)
	# Debian's python3 has ply for spdxcheck.py, a python of the user's
	# PATH may not
	res=$(cd "$BUILD/src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse \
		--no-summary ${ignore:+--ignore "$ignore"} "$p" 2>&1) || true
	if [ -z "$res" ]; then
		printf 'ok\t%s\t%s\n' "$name" "${ignore:--}" >>"$out"
	else
		printf 'FAIL\t%s\t%s\n' "$name" "${ignore:--}" >>"$out"
		echo "$res" >>"$LOGS/checkpatch.log"
	fi
done
