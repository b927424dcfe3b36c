#!/bin/sh
# Turn the TAP that the guests wrote into one line per result:
#   KERNEL FS TEST STATUS       (STATUS: pass, FAIL, skip)
# plus "KERNEL FS - missing" for a column whose run did not complete and
# "KERNEL FS - n/a" for one that the kernel cannot run.
# Usage: results.sh FSLIST KERNEL[=RUN]...   (RUN defaults to run-KERNEL)
# Env: REFUSED=1 reports a test that skipped because its chattr was refused
#   on a mapped file (immguard; tmpfs) as "refused" rather than "skip".
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

fslist=$1
shift
for k; do
	run=run-${k%%=*}
	case $k in *=*) run=${k#*=} k=${k%%=*} ;; esac
	f=$LOGS/$run/results.log
	if [ ! -f "$f" ]; then
		for fs in $(echo "$fslist" | tr , ' '); do printf '%s\t%s\t-\tmissing\n' "$k" "$fs"; done
		continue
	fi
	tr -d '\r' <"$f" | awk -v k="$k" -v fslist="$fslist" -v refused="${REFUSED:-}" \
		-v na="$LOGS/$run/unavailable" '
		BEGIN {
			n = split(fslist, want, ",")
			while ((getline line < na) > 0) { split(line, a, " "); unavail[a[1]] = 1 }
		}
		/^IMM-FS-BEGIN / { fs = $2; next }
		/^IMM-FS-END / { if ($3 != "rc=mount-failed") done[$2] = 1; fs = ""; next }
		fs == "" { next }
		/^(not )?ok [0-9]+ [a-z0-9_]+\.[a-z0-9_.]+/ {
			st = /^not ok/ ? "FAIL" : "pass"
			name = /^not ok/ ? $4 : $3
			if ($0 ~ /# SKIP/) st = "skip"
			if (refused && $0 ~ /# SKIP.*refused with EBUSY while mapped shared/) st = "refused"
			print k "\t" fs "\t" name "\t" st
		}
		END {
			for (i = 1; i <= n; i++) {
				if (want[i] in unavail) print k "\t" want[i] "\t-\tn/a"
				else if (!done[want[i]]) print k "\t" want[i] "\t-\tmissing"
			}
		}
	'
done
