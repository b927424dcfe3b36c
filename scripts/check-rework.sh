#!/bin/sh
# (g) No patch reworks what an earlier patch of the series added: for every
# line a patch removes or changes, git blame in its parent must name the
# pristine tree, not a commit of the series.  Exceptions are listed, each
# with its reason, in patches/rework-exceptions as
#   LATER-PATCH EARLIER-PATCH REASON...
# (file names without the directory).  Prints one line per finding and
# exits non-zero if any is not excused.
# Usage: check-rework.sh
set -eu
. "$(dirname "$0")/lib.sh"

src=${SRC:-$BUILD/src}
exc=$TOP/patches/rework-exceptions
g() { git -C "$src" "$@"; }

# The series' commits, in order, each with the file name of its patch.
names=$BUILD/rework-names
: >"$names"
n=1
for c in $(g rev-list --reverse pristine..HEAD); do
	printf '%s %04d-%s.patch\n' "$c" "$n" "$(g log -1 --format=%f "$c" | cut -c1-52)" >>"$names"
	n=$((n + 1))
done

bad=0
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
		g blame --porcelain -L "$start,+$cnt" "$c^" -- "$f" |
			awk '/^[0-9a-f]+ [0-9]+ [0-9]+/ && length($1) == 40 { print $1 }'
	done | sort -u | while read -r b; do
		earlier=$(awk -v b="$b" '$1 == b { print $2 }' "$names")
		[ -n "$earlier" ] || continue
		why=$(awk -v l="$name" -v e="$earlier" '$1 == l && $2 == e { $1 = $2 = ""; sub(/^ +/, ""); print }' "$exc" 2>/dev/null || true)
		if [ -n "$why" ]; then
			echo "excused: $name reworks $earlier: $why"
		else
			echo "REWORK: $name changes lines that $earlier added"
		fi
	done
done <"$names" | tee "$BUILD/rework.txt"
! grep -q '^REWORK' "$BUILD/rework.txt"
