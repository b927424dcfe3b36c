#!/bin/sh
# Print the before/after matrix and write it to build/matrix.md.
# Usage: matrix.sh FSLIST
# Exit status: non-zero when the patched kernel fails or misses anything.
set -eu
. "$(dirname "$0")/lib.sh"

fslist=$1
sh "$(dirname "$0")/results.sh" "$fslist" >"$BUILD/results.tsv"
awk -F'\t' -v fslist="$fslist" -v md="$BUILD/matrix.md" '
	BEGIN { nfs = split(fslist, fs, ",") }
	{
		key = $1 SUBSEP $2 SUBSEP $3
		st[key] = $4
		if ($3 != "-" && !($3 in seen)) { seen[$3] = 1; order[++nt] = $3 }
		if ($4 == "missing") missing[$1 " " $2] = 1
		count[$1, $4]++
	}
	function cell(k, f, t) { return ((k, f, t) in st) ? st[k, f, t] : "-" }
	function out(s) { printf "%s", s; printf "%s", s >md }
	END {
		w = 0
		for (i = 1; i <= nt; i++) if (length(order[i]) > w) w = length(order[i])
		hdr = sprintf("| %-" w "s |", "test (6.12 / patched)")
		sep = "|" sprintf("%" w + 2 "s", "") "|"
		gsub(/ /, "-", sep)
		for (j = 1; j <= nfs; j++) {
			hdr = hdr sprintf(" %-11s |", fs[j])
			sep = sep "-------------|"
		}
		out(hdr "\n" sep "\n")
		for (i = 1; i <= nt; i++) {
			t = order[i]
			line = sprintf("| %-" w "s |", t)
			for (j = 1; j <= nfs; j++)
				line = line sprintf(" %-4s / %-4s |", cell("pristine", fs[j], t), cell("patched", fs[j], t))
			out(line "\n")
		}
		bad = 0
		for (m in missing) { out("\nrun incomplete: " m "\n"); if (m ~ /^patched/) bad = 1 }
		s = sprintf("\npristine 6.12: %d pass, %d FAIL, %d skip; patched: %d pass, %d FAIL, %d skip\n",
			count["pristine", "pass"], count["pristine", "FAIL"], count["pristine", "skip"],
			count["patched", "pass"], count["patched", "FAIL"], count["patched", "skip"])
		out(s)
		if (count["patched", "FAIL"] || bad) exit 1
	}
' "$BUILD/results.tsv" && rc=0 || rc=$?
echo "matrix written to ${BUILD#"$TOP"/}/matrix.md; results in ${BUILD#"$TOP"/}/results.tsv"
exit $rc
