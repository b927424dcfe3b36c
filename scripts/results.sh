#!/bin/sh
# Turn the TAP that the guests wrote into one line per result:
#   KERNEL FS TEST STATUS       (STATUS: pass, FAIL, skip)
# plus "KERNEL FS - missing" for a filesystem whose run did not complete.
# Usage: results.sh FSLIST (comma separated) > results.tsv
set -eu
. "$(dirname "$0")/lib.sh"

for k in ${KERNELS:-pristine patched}; do
	f=$LOGS/run-$k/results.log
	[ -f "$f" ] || continue
	tr -d '\r' <"$f" | awk -v k="$k" -v fslist="$1" '
		BEGIN { n = split(fslist, want, ",") }
		/^IMM-FS-BEGIN / { fs = $2; next }
		/^IMM-FS-END / { done[$2] = 1; fs = ""; next }
		fs == "" { next }
		/^(not )?ok [0-9]+ [a-z_]+\.[a-z0-9_]+/ {
			st = /^not ok/ ? "FAIL" : "pass"
			name = /^not ok/ ? $4 : $3
			if ($0 ~ /# SKIP/) st = "skip"
			print k "\t" fs "\t" name "\t" st
		}
		END { for (i = 1; i <= n; i++) if (!done[want[i]]) print k "\t" want[i] "\t-\tmissing" }
	'
done
