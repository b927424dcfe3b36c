#!/bin/sh
# Answer questions about config/expectations, what each test guards; the
# one reader of that table.
# Usage:
#   expect.sh table            TEST KIND GUARD EXCEPTIONS, tab separated,
#                              every line checked (EXCEPTIONS: KERNEL:COLUMN=
#                              VERDICT, space separated, or -)
#   expect.sh tests [suite|guard|system|guard-system]
#                              the tests (suite: the selftest's, which make
#                              check runs; guard: those make guard-check
#                              runs, the selftest's and guard/'s own;
#                              system: make check-system's scenarios;
#                              guard-system: make guard-system's)
#   expect.sh kind TEST        fix, keep or search
#   expect.sh guard TEST       pass, refused or open
#   expect.sh missing FSLIST GUARD_FSLIST
#                              the table, with a "?" line for each test of
#                              the last runs (run-*, guard-*) that it lacks
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
TABLE=${EXPECTATIONS:-$TOP/config/expectations}

table() {
	awk '
		function bad(m) { printf "config/expectations: %s: %s\n", $1, m > "/dev/stderr"; err = 1; exit 1 }
		/^[ \t]*(#|$)/ { next }
		{
			sub(/[ \t]*#.*/, "")
			if (NF < 3) bad("want TEST KIND GUARD [KERNEL:COLUMN=VERDICT ...]")
			if ($2 !~ /^(fix|keep|search)$/) bad("unknown kind " $2 " (fix, keep, search)")
			if ($3 !~ /^(pass|refused|open|-)$/) bad("unknown guard verdict " $3 " (pass, refused, open, -)")
			if (($1 ~ /^system\./) != ($3 == "-")) bad("GUARD is - for the scenarios of make check-system (system.*) and only for them")
			if (seen[$1]++) bad("two lines")
			x = ""
			for (i = 4; i <= NF; i++) {
				if ($i !~ /^[a-z0-9._-]+:[a-z0-9_-]+=(pass|refused|open)$/) bad("exception " $i " is not KERNEL:COLUMN=VERDICT")
				x = x (x == "" ? "" : " ") $i
			}
			print $1 "\t" $2 "\t" $3 "\t" (x == "" ? "-" : x)
		}' "$TABLE"
}

field() {
	v=$(table | awk -F'\t' -v t="$1" -v n="$2" '$1 == t { print $n; found = 1 } END { exit !found }') || {
		echo "expect.sh: $1 has no line in config/expectations" >&2
		exit 2
	}
	echo "$v"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
table) table ;;
tests)
	table | awk -F'\t' -v s="${1:-}" '
		s == "" ||
		(s == "suite" && $1 !~ /^(guard|system)\./) ||
		(s == "guard" && $1 !~ /^(system|guard\.system)\./) ||
		(s == "system" && $1 ~ /^system\./) ||
		(s == "guard-system" && $1 ~ /^guard\.system\./) { print $1 }' ;;
kind) field "$1" 2 ;;
guard) field "$1" 3 ;;
missing)
	. "$TOP/scripts/lib.sh"
	t=$(table) || exit 2
	cat "$TABLE"
	for run in "$LOGS"/run-* "$LOGS"/guard-*; do
		[ -f "$run/results.log" ] || continue
		case ${run##*/} in run-*) l=$1 ;; *) l=$2 ;; esac
		sh "$TOP/scripts/results.sh" "$l" "x=${run##*/}"
	done | awk -F'\t' '$3 != "-" { print $3 }' | sort -u |
	while read -r name; do
		printf '%s\n' "$t" | awk -F'\t' -v n="$name" '$1 == n { f = 1 } END { exit !f }' ||
			printf '%s\t?\t?\n' "$name"
	done ;;
*)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
	exit 2 ;;
esac
