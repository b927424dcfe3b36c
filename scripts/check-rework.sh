#!/bin/sh
# (g) No patch reworks what an earlier patch of the series added.  For every
# run of lines that a patch removes or changes, git blame in its parent must
# name the pristine tree, not a commit of the series, both for those lines
# and for the line directly above and below them: a patch that changes a
# pristine line right next to what an earlier patch added is most likely
# mending that patch (v3's patch 23 deleting the line above patch 17's
# check).  Exceptions are listed, each with its reason, in
# patches/rework-exceptions as
#   LATER-PATCH EARLIER-PATCH REASON...
# (file names without the directory).  Writes one line per finding and a
# summary ("checked ...") to build/rework.txt; exits non-zero if a finding
# is not excused.
# Usage: check-rework.sh
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

src=${SRC:-$BUILD/src}
exc=$TOP/patches/rework-exceptions
out=${REWORK_OUT:-$BUILD/rework.txt}
g() { git -C "$src" "$@"; }

# The series' commits, in order, each with the file name of its patch.
names=$BUILD/rework-names
: >"$names"
n=1
for c in $(g rev-list --reverse pristine..HEAD); do
	printf '%s %04d-%s.patch\n' "$c" "$n" "$(g log -1 --format=%f "$c" | cut -c1-52)" >>"$names"
	n=$((n + 1))
done

# blamed COMMIT FILE START COUNT: the commits that last touched lines
# START..START+COUNT-1 of FILE in COMMIT, one per line
blamed() {
	g blame --porcelain -L "$3,+$4" "$1" -- "$2" 2>/dev/null |
		awk '/^[0-9a-f]+ [0-9]+ [0-9]+/ && length($1) == 40 { print $1 }'
}

# shellcheck disable=SC2094 # $names is read, $out.tmp written
while read -r c name; do
	# removed line ranges of this commit: FILE START COUNT
	g diff -U0 --no-renames "$c^" "$c" | awk '
		/^--- a\// { f = substr($0, 7); next }
		/^--- / { f = ""; next }
		/^@@ / && f != "" {
			split($2, o, ",")
			start = substr(o[1], 2); cnt = (2 in o) ? o[2] : 1
			if (cnt > 0) print f, start, cnt
		}' | while read -r f start cnt; do
		len=$(g show "$c^:$f" | wc -l)
		blamed "$c^" "$f" "$start" "$cnt" | sed 's/$/ changes lines that/'
		[ "$start" -gt 1 ] &&
			blamed "$c^" "$f" $((start - 1)) 1 | sed 's/$/ changes the line next to lines that/'
		[ $((start + cnt)) -le "$len" ] &&
			blamed "$c^" "$f" $((start + cnt)) 1 | sed 's/$/ changes the line next to lines that/'
		true
	done | sort -u | while read -r b what; do
		earlier=$(awk -v b="$b" '$1 == b { print $2 }' "$names")
		[ -n "$earlier" ] || continue
		why=$(awk -v l="$name" -v e="$earlier" '$1 == l && $2 == e { $1 = $2 = ""; sub(/^ +/, ""); print }' "$exc" 2>/dev/null || true)
		if [ -n "$why" ]; then
			echo "excused: $name reworks $earlier: $why"
		else
			echo "REWORK: $name $what $earlier added"
		fi
	done
done <"$names" >"$out.tmp"
sort -u "$out.tmp" >"$out"
rm -f "$out.tmp"
echo "checked $(grep -c . "$names") patches: $(grep -c '^REWORK' "$out") findings, $(grep -c '^excused' "$out") excused" >>"$out"
cat "$out"
! grep -q '^REWORK' "$out"
