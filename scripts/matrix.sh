#!/bin/sh
# Print the before/after matrix and write it to build/matrix.md: a row per
# test, a column per filesystem, each cell the verdicts of the kernels in
# order (pass, FAIL, skip; n/a: the kernel cannot run the column; -: no
# result).
# Usage: matrix.sh FSLIST KERNEL[=RUN]...
# Exit status: non-zero when the last kernel fails or misses anything.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

fslist=$1
shift
sh "$(dirname "$0")/results.sh" "$fslist" "$@" >"$BUILD/results.tsv"
kernels=$(for k; do echo "${k%%=*}"; done | xargs)
awk -F'\t' -v fslist="$fslist" -v kernels="$kernels" -v md="$BUILD/matrix.md" '
	BEGIN { nfs = split(fslist, fs, ","); nk = split(kernels, ks, " ") }
	{
		st[$1, $2, $3] = $4
		if ($3 != "-" && !($3 in seen)) { seen[$3] = 1; order[++nt] = $3 }
		if ($4 == "missing") missing[$1 " " $2] = 1
		if ($4 == "n/a") na[$1, $2] = 1
		count[$1, $4]++
	}
	function cell(f, t,   c, i, s) {
		c = ""
		for (i = 1; i <= nk; i++) {
			s = ((ks[i], f, t) in st) ? st[ks[i], f, t] : (((ks[i], f) in na) ? "n/a" : "-")
			c = c (i > 1 ? " / " : "") sprintf("%-4s", s)
		}
		return c
	}
	function out(s) { printf "%s", s; printf "%s", s >md }
	END {
		w = 0
		for (i = 1; i <= nt; i++) if (length(order[i]) > w) w = length(order[i])
		cw = nk * 7 - 3
		title = "test ("; for (i = 1; i <= nk; i++) title = title (i > 1 ? " / " : "") ks[i]; title = title ")"
		if (length(title) > w) w = length(title)
		hdr = sprintf("| %-" w "s |", title)
		sep = "|" sprintf("%" w + 2 "s", "") "|"
		gsub(/ /, "-", sep)
		for (j = 1; j <= nfs; j++) {
			hdr = hdr sprintf(" %-" cw "s |", fs[j])
			d = sprintf("%" cw + 2 "s", ""); gsub(/ /, "-", d)
			sep = sep d "|"
		}
		out(hdr "\n" sep "\n")
		for (i = 1; i <= nt; i++) {
			line = sprintf("| %-" w "s |", order[i])
			for (j = 1; j <= nfs; j++) line = line " " cell(fs[j], order[i]) " |"
			out(line "\n")
		}
		bad = 0
		for (m in missing) { out("\nrun incomplete: " m "\n"); if (index(m, ks[nk] " ") == 1) bad = 1 }
		out("\n")
		for (i = 1; i <= nk; i++)
			out(sprintf("%s: %d pass, %d FAIL, %d skip%s\n", ks[i], count[ks[i], "pass"],
				count[ks[i], "FAIL"], count[ks[i], "skip"],
				count[ks[i], "n/a"] ? sprintf(", %d columns n/a", count[ks[i], "n/a"]) : ""))
		if (count[ks[nk], "FAIL"] || bad) exit 1
	}
' "$BUILD/results.tsv" && rc=0 || rc=$?
echo "matrix written to ${BUILD#"$TOP"/}/matrix.md; results in ${BUILD#"$TOP"/}/results.tsv"
exit "$rc"
