# The questions fs.sh and kernels.sh both answer about their tables.
# Sourced, not executed.  The sourcing script sets ROWS (its table,
# checked, one row per line, fields separated by tabs), FIELDS (the
# fields' names in order) and TABLE_NAME (what a row is, for messages),
# and defines known() (the names of the rows, for a message).
# shellcheck shell=sh

# field_no FIELD: the position of FIELD in a row
field_no() {
	_i=1
	for _f in $FIELDS; do
		[ "$_f" = "$1" ] && { echo "$_i"; return; }
		_i=$((_i + 1))
	done
	echo "$(basename "$0"): no field $1 ($(echo "$FIELDS" | sed 's/ /, /g'))" >&2
	exit 2
}

# get NAME FIELD: one field of the row NAME ("-" prints nothing)
get() {
	_n=$(field_no "$2")
	_v=$(printf '%s\n' "$ROWS" | awk -F'\t' -v k="$1" -v n="$_n" '$1 == k { print $n; found = 1 } END { exit !found }') || {
		echo "no $TABLE_NAME named $1; the names are: $(known)" >&2
		exit 2
	}
	[ "$_v" = - ] || echo "$_v"
}

# names_in FIELD [GROUP]: the names of the rows whose FIELD (a comma
# separated list) holds GROUP, or of all rows, comma separated
names_in() {
	printf '%s\n' "$ROWS" | awk -F'\t' -v n="$(field_no "$1")" -v g="${2:-}" '
		g == "" || ("," $n ",") ~ ("," g ",") { printf "%s%s", sep, $1; sep = "," }
		END { print "" }'
}
