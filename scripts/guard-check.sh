#!/bin/sh
# Judge make guard-check from what its runs left in build/logs; do no work.
# Sides: SIDE=RUN below; each cell of the matrix is, in that order,
#   Debian's 6.1 / 6.1 with immguard | 6.12 / 6.12 with immguard / patched
# Verdicts: P pass, F FAIL, s skip, R skip because the guard refused the
# flag (EBUSY) on a mapped file, - no result, n column not on this kernel.
#  (1) immguard loaded and stayed attached on both guard sides, refused to
#      start on 6.1 booted without bpf in lsm=, and every run completed
#      every column;
#  (2) every test has a line in config/expect-guard, every line there a
#      result, and every test of config/expectations a line;
#  (3) on both guard sides every test keeps its expectation: "pass" passes
#      or skips everywhere, "refused" is refused somewhere on each kernel
#      and fails or passes nowhere, "open" is recorded; cells that the line
#      excepts (KERNEL:COLUMN=open) are recorded only;
#  (4) the keep tests of config/expectations pass (or skip) on every side,
#      but for excepted cells (both sides of that kernel);
#  (5) every fix test of config/expectations (and guard/race.c's) expected
#      "pass" or "refused" fails on a stock side somewhere: the test can
#      fail;
#  (6) the patched kernel passes (or skips) every test (the series, too,
#      refuses the flag on a mapped tmpfs file).
# Usage: guard-check.sh FSLIST          judge
#        guard-check.sh expect FSLIST   config/expect-guard, with a "?" line
#                                       for each test it lacks
set -eu
. "$(dirname "$0")/lib.sh"

mode=judge
[ "$1" = expect ] && { mode=expect; shift; }
fslist=$1
sides="stock-6.1=guard-stock-6.1 guard-6.1=guard-on-6.1 stock-6.12=guard-stock-6.12 guard-6.12=guard-on-6.12 patched=guard-patched"
expect=$TOP/config/expect-guard
kinds=$TOP/config/expectations
res=$BUILD/guard-results.tsv
md=$BUILD/guard-matrix.md

# SIDE FS TEST STATUS, STATUS one of pass FAIL skip refused missing n/a
# shellcheck disable=SC2086
REFUSED=1 sh "$TOP/scripts/results.sh" "$fslist" $sides >"$res"

tests=$(awk -F'\t' '$3 != "-" && !seen[$3]++ { print $3 }' "$res")
verdict() { awk -v t="$1" '$1 == t { print $2; exit }' "$expect"; }
# fix, keep or search: what the series' harness declares; of the guard's
# own tests, the race search can fail without the guard, the leak test
# guards the guard's bookkeeping and passes without it
kind() {
	case $1 in
	guard.raises_are_lowered) echo keep; return ;;
	guard.*) echo fix; return ;;
	esac
	awk -v t="$1" '!/^#/ && $1 == t { print $2; exit }' "$kinds"
}
# the cells that an expectation line excepts: KERNEL:COLUMN=VERDICT after
# the verdict, as "guard-KERNEL:COLUMN VERDICT" and "stock-KERNEL:COLUMN
# VERDICT" lines
excepted() {
	awk -v t="$1" '$1 == t {
		for (i = 3; i <= NF && $i !~ /^#/; i++) {
			split($i, a, "=")
			print "guard-" a[1] " " a[2]; print "stock-" a[1] " " a[2]
		}
		exit
	}' "$expect"
}
# drop CELLS (side:fs ...) that the line of TEST excepts
unexcepted() {
	_x=" $(excepted "$1" | awk '{ print $1 }' | xargs) "
	for _c in $2; do
		case $_x in *" $_c "*) ;; *) printf '%s ' "$_c" ;; esac
	done | xargs
}

if [ $mode = expect ]; then
	cat "$expect"
	for t in $tests; do
		[ -n "$(verdict "$t")" ] || printf '%s\t?\n' "$t"
	done
	exit 0
fi

# ---- the matrix
awk -F'\t' -v fslist="$fslist" -v md="$md" '
	BEGIN {
		nfs = split(fslist, fs, ",")
		ns = split("stock-6.1 guard-6.1 stock-6.12 guard-6.12 patched", side, " ")
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
			c = c s (i == 2 ? " | " : (i < ns ? " " : ""))
		}
		return c
	}
	function out(s) { printf "%s", s; printf "%s", s >md }
	END {
		w = 0
		for (i = 1; i <= nt; i++) if (length(order[i]) > w) w = length(order[i])
		title = "test (6.1 +guard | 6.12 +guard patched)"
		if (length(title) > w) w = length(title)
		hdr = sprintf("| %-" w "s |", title); sep = "|" sprintf("%" w + 2 "s", "") "|"
		gsub(/ /, "-", sep)
		for (j = 1; j <= nfs; j++) { hdr = hdr sprintf(" %-13s |", fs[j]); sep = sep "---------------|" }
		out(hdr "\n" sep "\n")
		for (i = 1; i <= nt; i++) {
			line = sprintf("| %-" w "s |", order[i])
			for (j = 1; j <= nfs; j++) line = line " " cell(fs[j], order[i]) " |"
			out(line "\n")
		}
		out("\nP pass, F FAIL, s skip, R refused (EBUSY, mapped), n not on this kernel, - no result\n\n")
		out(sprintf("| %-10s | %-9s | %4s | %4s | %4s | %7s |\n", "side", "column", "pass", "FAIL", "skip", "refused"))
		out("|------------|-----------|------|------|------|---------|\n")
		for (i = 1; i <= ns; i++) for (j = 1; j <= nfs; j++)
			out(sprintf("| %-10s | %-9s | %4d | %4d | %4d | %7d |\n", side[i], fs[j],
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
for s in guard-6.1=guard-on-6.1 guard-6.12=guard-on-6.12; do
	f=$LOGS/${s#*=}/results.log
	if grep -q '^IMM-GUARD immguard: loaded, ' "$f" 2>/dev/null &&
		! grep -q '^IMM-GUARD-FAILED' "$f"; then
		ok "${s%%=*}: $(grep -m1 '^IMM-GUARD immguard: loaded' "$f" | sed 's/^IMM-GUARD immguard: //'); $(grep -m1 '^IMM-GUARD lsm=' "$f" | sed 's/^IMM-GUARD //')"
	else
		nok "${s%%=*}: immguard did not load or detached ($(grep -m1 '^IMM-GUARD-FAILED' "$f" 2>/dev/null || echo "no log: $f"))"
	fi
done
f=$LOGS/guard-nolsm/results.log
if grep -q '^IMM-GUARD-NOLSM refused' "$f" 2>/dev/null; then
	ok "without bpf in lsm= ($(grep -m1 '^IMM-GUARD lsm=' "$f" | sed 's/^IMM-GUARD //')) immguard refuses to start: $(grep -m1 'enable it' "$f" | sed 's/^IMM-GUARD immguard: //')"
else
	nok "without bpf in lsm=, immguard did not refuse as it should ($(grep -m1 '^IMM-GUARD-NOLSM' "$f" 2>/dev/null || echo "no log: $f"))"
fi
for s in $sides; do
	bad=$(awk -F'\t' -v k="${s%%=*}" '$1 == k && ($4 == "missing" || $4 == "n/a") { print $2 }' "$res" | xargs)
	[ -z "$bad" ] && ok "${s%%=*}: every column ran" || nok "${s%%=*}: no results on $bad"
done

echo "==> (2) every test has an expectation (config/expect-guard)"
n=0
for t in $tests; do
	if [ -z "$(verdict "$t")" ]; then nok "$t: no line in config/expect-guard (make guard-expect)"; n=$((n + 1)); fi
done
[ $n -gt 0 ] || ok "$(echo "$tests" | grep -c .) tests, each with its expectation"
for t in $(awk '!/^#/ && NF { print $1 }' "$expect"); do
	echo "$tests" | grep -qxF "$t" || nok "$t: in config/expect-guard, but no side gave a result"
done
n=0
for t in $(awk '!/^#/ && NF { print $1 }' "$kinds"); do
	[ -n "$(verdict "$t")" ] || { nok "$t: in config/expectations, not in config/expect-guard"; n=$((n + 1)); }
done
[ $n -gt 0 ] || ok "every test of config/expectations has its line"

echo "==> (3) the guard sides keep the expectations"
for t in $tests; do
	v=$(verdict "$t")
	x=$(excepted "$t" | awk '{ printf "%s%s=%s", sep, $1, $2; sep = ", " }')
	x=${x:+ (excepted: $x)}
	case $v in
	pass)
		bad=$(unexcepted "$t" "$(cells "guard-6.1 guard-6.12" "$t" "FAIL refused")")
		[ -z "$bad" ] && ok "$t: pass$x" || nok "$t: expected pass, fails on $bad" ;;
	refused)
		bad=$(unexcepted "$t" "$(cells "guard-6.1 guard-6.12" "$t" "FAIL pass")")
		r61=$(cells guard-6.1 "$t" refused) r612=$(cells guard-6.12 "$t" refused)
		if [ -z "$bad" ] && [ -n "$r61" ] && [ -n "$r612" ]; then
			ok "$t: chattr refused on $(echo "$r61 $r612" | wc -w) columns"
		else
			nok "$t: expected refused; ${bad:+not refused on $bad}${r61:-; never refused on 6.1}${r612:-; never refused on 6.12}"
		fi ;;
	open)
		f=$(cells "guard-6.1 guard-6.12" "$t" FAIL)
		ok "$t: open (README table)${f:+, fails on $f}" ;;
	"") ;;
	*) nok "$t: unknown verdict $v in config/expect-guard" ;;
	esac
done

echo "==> (4) keep tests pass on every side"
for t in $tests; do
	[ "$(kind "$t")" = keep ] || continue
	x=$(excepted "$t" | awk '{ printf "%s%s", sep, $1; sep = " " }')
	bad=$(unexcepted "$t" "$(cells "stock-6.1 guard-6.1 stock-6.12 guard-6.12 patched" "$t" "FAIL refused")")
	f=$(cells "stock-6.1 guard-6.1 stock-6.12 guard-6.12" "$t" "FAIL refused")
	[ -z "$bad" ] && ok "$t: passes everywhere${x:+ but the excepted $x}${x:+${f:+ (fails on $f)}}" || nok "$t: fails on $bad"
done

echo "==> (5) the fix tests the guard must close fail on stock somewhere"
for t in $tests; do
	[ "$(kind "$t")" = fix ] || continue
	case $(verdict "$t") in pass | refused) ;; *) continue ;; esac
	f=$(cells "stock-6.1 stock-6.12" "$t" FAIL)
	[ -n "$f" ] && ok "$t: stock fails on $(echo "$f" | wc -w) cells (e.g. $(echo "$f" | cut -d' ' -f1))" ||
		nok "$t: passes on both stock kernels on every guard column: proves nothing here"
done

echo "==> (6) the patched kernel passes"
bad=$(awk -F'\t' '$1 == "patched" && $4 == "FAIL" { print $2 ":" $3 }' "$res" | xargs)
n=$(awk -F'\t' '$1 == "patched" && $3 != "-"' "$res" | wc -l)
[ -z "$bad" ] && [ "$n" -gt 0 ] && ok "patched: $n verdicts, none failed" || nok "patched: ${bad:-no results}"

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
