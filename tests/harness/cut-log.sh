#!/bin/sh
# Cut a guest's results.log down to a few columns and tests, for the
# recorded cases of scripts/selfcheck.sh; prints the cut log.  Only real
# lines come out, in their order: the guest's lines around the columns
# (IMM-BOOT, IMM-GUARD, IMM-DONE, ...), the IMM-FS-BEGIN/END block of each
# column asked for, and in it the TAP headers and trailers of each program
# that ran one of the tests asked for, and each such test's lines (its
# "#  RUN", diagnostics and "ok"/"not ok" line).
# Usage: cut-log.sh LOG COLUMNS TESTS [COLUMN:TEST=DONOR ...]
#   COLUMNS: comma separated; TESTS: a file, one test name a line;
#   COLUMN:TEST=DONOR: take the lines of TEST on COLUMN from the results.log
#   DONOR instead (a real FAIL of that test from another kernel's run)
set -eu
[ $# -ge 3 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
log=$1 cols=$2 tests=$3
shift 3

# unit FILE COLUMN TEST: the lines of TEST on COLUMN in FILE
unit() {
	awk -v c="$2" -v t="$3" '
		{ r = $0; sub(/\r$/, "", r); split(r, f, " ") }
		r ~ /^IMM-FS-BEGIN / { fs = f[2]; u = ""; next }
		r ~ /^IMM-FS-END / { fs = ""; next }
		fs != c { next }
		r ~ /^TAP version / || r ~ /^1\.\.[0-9]+$/ || r ~ /^# Starting [0-9]+ tests/ { u = ""; next }
		r ~ /^# (PASSED|FAILED|Totals):/ { u = ""; next }
		{ u = u $0 "\n" }
		r ~ /^(not )?ok [0-9]+ / {
			if ((r ~ /^not ok/ ? f[4] : f[3]) == t) { printf "%s", u; found = 1; exit }
			u = ""
		}
		END { if (!found) { printf "cut-log.sh: no %s on %s in %s\n", t, c, FILENAME > "/dev/stderr"; exit 1 } }' "$1"
}

# the donors' units, each as "@@ COLUMN TEST" and its lines
donors=$(mktemp)
trap 'rm -f "$donors"' EXIT
for d; do
	ct=${d%%=*} file=${d#*=}
	echo "@@ ${ct%%:*} ${ct#*:}" >>"$donors"
	unit "$file" "${ct%%:*}" "${ct#*:}" >>"$donors"
done

awk -v cols=",$cols," -v tests="$tests" -v donors="$donors" '
	BEGIN {
		while ((getline l < tests) > 0) if (l != "") want[l] = 1
		while ((getline l < donors) > 0) {
			if (l ~ /^@@ /) { split(l, a, " "); key = a[2] SUBSEP a[3]; continue }
			donor[key] = donor[key] l "\n"
		}
	}
	# r: the line without the carriage return that some lines end in
	{ r = $0; sub(/\r$/, "", r); split(r, f, " ") }
	r ~ /^IMM-FS-BEGIN / { fs = f[2]; keep = index(cols, "," fs ",") > 0; if (keep) print; next }
	r ~ /^IMM-FS-END / { if (keep) print; fs = ""; keep = 0; next }
	fs == "" { print; next }
	!keep { next }
	r ~ /^TAP version / { head = $0 "\n"; shown = 0; u = ""; next }
	r ~ /^1\.\.[0-9]+$/ || r ~ /^# Starting [0-9]+ tests/ { head = head $0 "\n"; next }
	r ~ /^# (PASSED|FAILED|Totals):/ { if (shown) print; next }
	r ~ /^IMM-/ { print; next }
	{ u = u $0 "\n" }
	r ~ /^(not )?ok [0-9]+ / {
		n = r ~ /^not ok/ ? f[4] : f[3]
		if (n in want) {
			if (!shown) printf "%s", head
			shown = 1
			printf "%s", ((fs, n) in donor) ? donor[fs, n] : u
		}
		u = ""
	}
	# a column cut off: what the guest wrote last
	END { if (keep && u != "") printf "%s", u }' "$log"
