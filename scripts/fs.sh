#!/bin/sh
# Answer questions about config/filesystems, the table of columns.
# Usage:
#   fs.sh names [GROUP]       the columns (of GROUP), comma separated
#   fs.sh get NAME FIELD      one field of a column (kind, size, type, make,
#                             options, fsck, package, config, groups)
#   fs.sh lower NAME          the column a stacked column stands on, or NAME
#   fs.sh config NAMES        the config symbols that NAMES need, with those
#                             of the columns they stand on, one per line
#   fs.sh packages            the Debian packages of every column
#   fs.sh check NAMES         fail unless every name is a column
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
TABLE=${FS_TABLE:-$TOP/config/filesystems}

# The table without comments, fields trimmed, separated by tabs.
rows() {
	awk -F'|' '
		/^[ \t]*(#|$)/ { next }
		{
			for (i = 1; i <= NF; i++) { gsub(/^[ \t]+|[ \t]+$/, "", $i) }
			if (NF != 10) { printf "config/filesystems: %d fields in the line of %s, want 10\n", NF, $1 > "/dev/stderr"; exit 1 }
			if ($2 !~ /^(block|pmem|tmpfs|stacked)$/) { printf "config/filesystems: %s: unknown kind %s (block, pmem, tmpfs, stacked)\n", $1, $2 > "/dev/stderr"; exit 1 }
			if ($2 == "stacked" && $5 !~ /^on [a-z0-9-]+$/) { printf "config/filesystems: %s: a stacked column is made \"on COLUMN\"\n", $1 > "/dev/stderr"; exit 1 }
			n = split($10, g, ",")
			for (i = 1; i <= n; i++) if (g[i] !~ /^(matrix|debug|debug-full|crash|bench|guard)$/) { printf "config/filesystems: %s: unknown group %s (matrix, debug, debug-full, crash, bench, guard)\n", $1, g[i] > "/dev/stderr"; exit 1 }
			out = $1; for (i = 2; i <= NF; i++) out = out "\t" $i; print out
		}' "$TABLE"
}

# checked once: a bad line stops every question
ROWS=$(rows) || exit 2
rows() { printf '%s\n' "$ROWS"; }

field_no() {
	case $1 in
	name) echo 1 ;; kind) echo 2 ;; size) echo 3 ;; type) echo 4 ;;
	make) echo 5 ;; options) echo 6 ;; fsck) echo 7 ;; package) echo 8 ;;
	config) echo 9 ;; groups) echo 10 ;;
	*) echo "fs.sh: no field $1" >&2; exit 2 ;;
	esac
}

get() {
	n=$(field_no "$2")
	v=$(rows | awk -F'\t' -v c="$1" -v n="$n" '$1 == c { print $n; found = 1 } END { exit !found }') || {
		echo "fs.sh: no column $1 in config/filesystems" >&2
		exit 2
	}
	[ "$v" = - ] || echo "$v"
}

lower() {
	m=$(get "$1" make)
	case $(get "$1" kind) in
	stacked) echo "${m#on }" ;;
	*) echo "$1" ;;
	esac
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
names)
	rows | awk -F'\t' -v g="${1:-}" 'g == "" || ("," $10 ",") ~ ("," g ",") { printf "%s%s", sep, $1; sep = "," } END { print "" }' ;;
get) get "$1" "$2" ;;
lower) lower "$1" ;;
config)
	for c in $(echo "$1" | tr , ' '); do
		get "$c" config | tr ' ' '\n'
		l=$(lower "$c")
		[ "$l" = "$c" ] || get "$l" config | tr ' ' '\n'
	done | grep . | sort -u ;;
packages) rows | cut -f8 | grep -vx -- - | sort -u | xargs ;;
check)
	for c in $(echo "$1" | tr , ' '); do get "$c" name >/dev/null; done ;;
*)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
	exit 2 ;;
esac
