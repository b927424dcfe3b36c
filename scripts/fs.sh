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

FIELDS="name kind size type make options fsck package config groups"
TABLE_NAME="column of config/filesystems"
known() { names_in name | sed 's/,/, /g'; }
# shellcheck source=table.sh
. "$TOP/scripts/table.sh"

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
names) names_in groups "${1:-}" ;;
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
