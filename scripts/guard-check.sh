#!/bin/sh
# Judge make guard-check from what its runs left in build/logs; do no work.
# Sides, from config/kernels: each guarded kernel K without immguard (K,
# run guard-off-K) and with it (K+guard, run guard-on-K), then the
# reference (guard-ref: the series, run guard-ref-R).  Each cell of the
# matrix holds their verdicts in that order: P pass, F FAIL, s skip, R
# skip because the guard refused the flag (EBUSY) on a mapped file, - no
# result, n column not on this kernel.
#  (1) immguard loaded and stayed attached on every guard side, refused to
#      start on the nolsm kernels booted without bpf in lsm=, and every run
#      completed every column;
#  (2) every test has a line in config/expectations and every line there a
#      result;
#  (3) on the guard sides every test keeps its GUARD verdict: "pass" passes
#      or skips everywhere, "refused" is refused somewhere on each kernel
#      and fails or passes nowhere, "open" is recorded; cells that the line
#      excepts (KERNEL:COLUMN=open) are recorded only;
#  (4) the keep tests pass (or skip) on every side, but for excepted cells
#      (both sides of that kernel);
#  (5) every fix test expected "pass" or "refused" fails on a side without
#      the guard somewhere: the test can fail;
#  (6) the reference passes (or skips) every test (the series, too,
#      refuses the flag on a mapped tmpfs file).
# Usage: guard-check.sh FSLIST
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

fslist=$1
kern() { sh "$TOP/scripts/kernels.sh" names "$1" | tr , ' '; }
guarded=$(kern guard) refs=$(kern guard-ref) nolsm=$(kern nolsm)
# SIDE=RUN, in matrix order; the sides with the guard; without it
sides='' on='' off=''
for k in $guarded; do
	sides="$sides $k=guard-off-$k $k+guard=guard-on-$k"
	on="$on $k+guard" off="$off $k"
done
for k in $refs; do sides="$sides $k=guard-ref-$k"; done
res=$BUILD/guard-results.tsv
md=$BUILD/guard-matrix.md
exp=$(sh "$TOP/scripts/expect.sh" table) || die "config/expectations does not read (above)"

# SIDE FS TEST STATUS, STATUS one of pass FAIL skip refused missing n/a
# shellcheck disable=SC2086
REFUSED=1 sh "$TOP/scripts/results.sh" "$fslist" $sides >"$res"

tests=$(awk -F'\t' '$3 != "-" && !seen[$3]++ { print $3 }' "$res")
col() { printf '%s\n' "$exp" | awk -F'\t' -v t="$1" -v n="$2" '$1 == t { print $n; exit }'; }
verdict() { col "$1" 3; }
kind() { col "$1" 2; }
# the cells that a line excepts: KERNEL:COLUMN=VERDICT after the verdict,
# as "KERNEL+guard:COLUMN VERDICT" and "KERNEL:COLUMN VERDICT" lines
excepted() {
	col "$1" 4 | tr ' ' '\n' | awk -F= '$0 != "-" && $0 != "" {
		split($1, a, ":")
		print a[1] "+guard:" a[2] " " $2; print $1 " " $2
	}'
}
# drop CELLS (side:fs ...) that the line of TEST excepts
unexcepted() {
	_x=" $(excepted "$1" | awk '{ print $1 }' | xargs) "
	for _c in $2; do
		case $_x in *" $_c "*) ;; *) printf '%s ' "$_c" ;; esac
	done | xargs
}

# ---- the matrix
awk -F'\t' -v fslist="$fslist" -v md="$md" -v sidelist="$(for s in $sides; do printf '%s ' "${s%%=*}"; done)" '
	BEGIN {
		nfs = split(fslist, fs, ",")
		ns = split(sidelist, side, " ")
		letter["pass"] = "P"; letter["FAIL"] = "F"; letter["skip"] = "s"
		letter["refused"] = "R"; letter["n/a"] = "n"
	}
	{
		if ($3 == "-") { colst[$1, $2] = $4; next }
		st[$1, $2, $3] = $4
		if (!($3 in seen)) { seen[$3] = 1; order[++nt] = $3 }
		count[$1, $2, $4]++
	}
	function cell(f, t,   c, i, s) {
		c = ""
		for (i = 1; i <= ns; i++) {
			s = ((side[i], f, t) in st) ? letter[st[side[i], f, t]] : (((side[i], f) in colst) ? letter[colst[side[i], f]] : "-")
			if (s == "") s = "-"
			c = c s (side[i] ~ /\+guard$/ && i < ns ? ", " : (i < ns ? " " : ""))
		}
		return c
	}
	function out(s) { printf "%s", s; printf "%s", s >md }
	END {
		w = 0
		for (i = 1; i <= nt; i++) if (length(order[i]) > w) w = length(order[i])
		title = "test ("
		for (i = 1; i <= ns; i++) title = title (i > 1 ? (side[i - 1] ~ /\+guard$/ ? ", " : " ") : "") (side[i] ~ /\+guard$/ ? "+guard" : side[i])
		title = title ")"
		if (length(title) > w) w = length(title)
		hdr = sprintf("| %-" w "s |", title); sep = "|" sprintf("%" w + 2 "s", "") "|"
		gsub(/ /, "-", sep)
		cw = 2 * ns - 1
		for (i = 1; i < ns; i++) if (side[i] ~ /\+guard$/) cw++
		for (j = 1; j <= nfs; j++) {
			hdr = hdr sprintf(" %-" cw "s |", fs[j])
			d = sprintf("%" cw + 2 "s", ""); gsub(/ /, "-", d); sep = sep d "|"
		}
		out(hdr "\n" sep "\n")
		for (i = 1; i <= nt; i++) {
			line = sprintf("| %-" w "s |", order[i])
			for (j = 1; j <= nfs; j++) line = line " " cell(fs[j], order[i]) " |"
			out(line "\n")
		}
		out("\nP pass, F FAIL, s skip, R refused (EBUSY, mapped), n not on this kernel, - no result\n\n")
		out(sprintf("| %-16s | %-9s | %4s | %4s | %4s | %7s |\n", "side", "column", "pass", "FAIL", "skip", "refused"))
		out("|------------------|-----------|------|------|------|---------|\n")
		for (i = 1; i <= ns; i++) for (j = 1; j <= nfs; j++)
			out(sprintf("| %-16s | %-9s | %4d | %4d | %4d | %7d |\n", side[i], fs[j],
				count[side[i], fs[j], "pass"], count[side[i], fs[j], "FAIL"],
				count[side[i], fs[j], "skip"], count[side[i], fs[j], "refused"]))
	}' "$res"
echo "matrix written to ${md#"$TOP"/}; results in ${res#"$TOP"/}"
echo

passed=0
failed=0
ok() { passed=$((passed + 1)); printf '  ok   %s\n' "$*"; }
nok() { failed=$((failed + 1)); printf '  FAIL %s\n' "$*"; }
# cells SIDES TEST STATUSES: "side:fs" of every result of TEST on SIDES
# (space separated) whose status is one of STATUSES
cells() {
	awk -F'\t' -v s=" $1 " -v t="$2" -v st=" $3 " \
		'index(s, " " $1 " ") && $3 == t && index(st, " " $4 " ") { print $1 ":" $2 }' "$res" | xargs
}

echo "==> (1) immguard attached; every run complete"
for k in $guarded; do
	f=$LOGS/guard-on-$k/results.log
	if grep -q '^IMM-GUARD immguard: loaded, ' "$f" 2>/dev/null &&
		! grep -q '^IMM-GUARD-FAILED' "$f"; then
		ok "$k+guard: $(grep -m1 '^IMM-GUARD immguard: loaded' "$f" | sed 's/^IMM-GUARD immguard: //'); $(grep -m1 '^IMM-GUARD lsm=' "$f" | sed 's/^IMM-GUARD //')"
	else
		nok "$k+guard: immguard did not load or detached ($(grep -m1 '^IMM-GUARD-FAILED' "$f" 2>/dev/null || echo "no log: $f"))"
	fi
done
for k in $nolsm; do
	f=$LOGS/guard-nolsm-$k/results.log
	if grep -q '^IMM-GUARD-NOLSM refused' "$f" 2>/dev/null; then
		ok "$k without bpf in lsm= ($(grep -m1 '^IMM-GUARD lsm=' "$f" | sed 's/^IMM-GUARD //')): immguard refuses to start: $(grep -m1 'enable it' "$f" | sed 's/^IMM-GUARD immguard: //')"
	else
		nok "$k without bpf in lsm=: immguard did not refuse as it should ($(grep -m1 '^IMM-GUARD-NOLSM' "$f" 2>/dev/null || echo "no log: $f"))"
	fi
done
for s in $sides; do
	bad=$(awk -F'\t' -v k="${s%%=*}" '$1 == k && ($4 == "missing" || $4 == "n/a") { print $2 }' "$res" | xargs)
	if [ -z "$bad" ]; then ok "${s%%=*}: every column ran"; else nok "${s%%=*}: no results on $bad"; fi
	# a test that has a result on a column elsewhere and none here: its
	# program died on this side before it printed it
	# shellcheck disable=SC2016 # an awk program
	lost=$(awk -F'\t' -v k="${s%%=*}" '
		$3 == "-" || $4 == "missing" || $4 == "n/a" { next }
		$1 == k { here[$2 SUBSEP $3] = 1; ran[$2] = 1; next }
		{ seen[$2 SUBSEP $3] = 1 }
		END { for (p in seen) { split(p, a, SUBSEP); if ((a[1] in ran) && !(p in here)) print a[1] ":" a[2] } }' "$res" | sort | head -n 5 | xargs)
	[ -z "$lost" ] || nok "${s%%=*}: no result where the other sides have one (the program died?): $lost"
done

echo "==> (2) every test has a line in config/expectations"
n=0
for t in $tests; do
	if [ -z "$(verdict "$t")" ]; then nok "$t: no line in config/expectations (make expect)"; n=$((n + 1)); fi
done
[ $n -gt 0 ] || ok "$(echo "$tests" | grep -c .) tests, each with its line"
for t in $(sh "$TOP/scripts/expect.sh" tests guard); do
	echo "$tests" | grep -qxF "$t" || nok "$t: in config/expectations, but no guard side gave a result"
done

echo "==> (3) the guard sides keep the expectations"
for t in $tests; do
	v=$(verdict "$t")
	x=$(excepted "$t" | awk '{ printf "%s%s=%s", sep, $1, $2; sep = ", " }')
	x=${x:+ (excepted: $x)}
	case $v in
	pass)
		bad=$(unexcepted "$t" "$(cells "$on" "$t" "FAIL refused")")
		if [ -z "$bad" ]; then ok "$t: pass$x"; else nok "$t: expected pass, fails on $bad"; fi ;;
	refused)
		bad=$(unexcepted "$t" "$(cells "$on" "$t" "FAIL pass")")
		n=0 never=''
		for k in $on; do
			r=$(cells "$k" "$t" refused)
			n=$((n + $(echo "$r" | wc -w)))
			[ -n "$r" ] || never="$never; never refused on $k"
		done
		if [ -z "$bad" ] && [ -z "$never" ]; then
			ok "$t: chattr refused on $n columns"
		else
			nok "$t: expected refused; ${bad:+not refused on $bad}$never"
		fi ;;
	open)
		f=$(cells "$on" "$t" FAIL)
		ok "$t: open (README table)${f:+, fails on $f}" ;;
	"") ;;
	*) nok "$t: unknown verdict $v in config/expectations" ;;
	esac
done

echo "==> (4) keep tests pass on every side"
for t in $tests; do
	[ "$(kind "$t")" = keep ] || continue
	x=$(excepted "$t" | awk '{ printf "%s%s", sep, $1; sep = " " }')
	bad=$(unexcepted "$t" "$(cells "$off $on $refs" "$t" "FAIL refused")")
	f=$(cells "$off $on" "$t" "FAIL refused")
	if [ -z "$bad" ]; then ok "$t: passes everywhere${x:+ but the excepted $x}${x:+${f:+ (fails on $f)}}"; else nok "$t: fails on $bad"; fi
done

echo "==> (5) the fix tests the guard must close fail without it somewhere"
for t in $tests; do
	[ "$(kind "$t")" = fix ] || continue
	case $(verdict "$t") in pass | refused) ;; *) continue ;; esac
	f=$(cells "$off" "$t" FAIL)
	if [ -n "$f" ]; then ok "$t: fails without the guard on $(echo "$f" | wc -w) cell(s) (e.g. $(echo "$f" | cut -d' ' -f1))"; else nok "$t: passes without the guard ($off) on every guard column: proves nothing here"; fi
done

echo "==> (6) the reference passes"
for k in $refs; do
	bad=$(awk -F'\t' -v k="$k" '$1 == k && $4 == "FAIL" { print $2 ":" $3 }' "$res" | xargs)
	n=$(awk -F'\t' -v k="$k" '$1 == k && $3 != "-"' "$res" | wc -l)
	if [ -z "$bad" ] && [ "$n" -gt 0 ]; then ok "$k: $n verdicts, none failed"; else nok "$k: ${bad:-no results}"; fi
done

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
