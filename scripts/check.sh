#!/bin/sh
# Judge what the targets of make check produced; do no work.  The parts:
#  patched       the series' kernel (config/kernels: after) passes every
#                test on every column it can run;
#  expectations  every test keeps its kind in config/expectations against
#                the before kernels: a "fix" test fails on one of them on
#                at least one column, a "keep" test fails on none; a
#                "search" (for races) is judged by the first part alone;
#  checkpatch    every patch is checkpatch.pl --strict clean
#                (build/checkpatch.tsv);
#  bisect        every prefix of the series builds (build/bisect.tsv);
#  rework        no patch reworks what an earlier one added
#                (build/rework.txt);
#  bench         the benchmarks run (build/bench-short.tsv);
#  debug         the debug kernel (lockdep, KASAN) passes on its columns.
# Usage: check.sh PARTS FSLIST BEFORE DEBUG_FS
#   PARTS: the parts to judge, comma separated, in that order; BEFORE: the
#   before kernels, comma separated
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

parts=$1 fslist=$2 before=$3 debugfs=$4
passed=0
failed=0
ok() { passed=$((passed + 1)); printf '  ok   %s\n' "$*"; }
nok() { failed=$((failed + 1)); printf '  FAIL %s\n' "$*"; }
all=patched,expectations,checkpatch,bisect,rework,bench,debug
for p in $(echo "$parts" | tr , ' '); do
	case ,$all, in *,"$p",*) ;; *) die "check.sh: no part $p (the parts: $all)" ;; esac
done
want() { case ,$parts, in *,"$1",*) return 0 ;; esac; return 1; }
res=$BUILD/results.tsv
after=$(sh "$TOP/scripts/kernels.sh" names after)
debug=$(sh "$TOP/scripts/kernels.sh" names debug)

if want patched || want expectations; then
	# shellcheck disable=SC2046
	sh "$TOP/scripts/matrix.sh" "$fslist" $(echo "$before" | tr , ' ') "$after" || true
fi

if want patched; then
	echo "==> patched: the series ($after) passes on every column"
	for fs in $(echo "$fslist" | tr , ' '); do
		n=$(awk -F'\t' -v k="$after" -v f="$fs" '$1 == k && $2 == f && $3 != "-"' "$res" | wc -l)
		bad=$(awk -F'\t' -v k="$after" -v f="$fs" '$1 == k && $2 == f && ($4 == "FAIL" || $4 == "missing" || $4 == "n/a") { print ($3 == "-" ? "(the column " ($4 == "n/a" ? "cannot run" : "did not finish") ")" : $3) }' "$res" | xargs)
		if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
			ok "$after $fs: $n tests, none failed"
		else
			nok "$after $fs: failed or missing: ${bad:-no results}"
		fi
	done
fi

if want expectations; then
	echo "==> expectations: every test keeps its kind (config/expectations) against $before"
	exp=$(sh "$TOP/scripts/expect.sh" table) || die "config/expectations does not read (above)"
	awk -F'\t' '$3 != "-" { print $3 }' "$res" | sort -u >"$BUILD/tests.txt"
	while read -r t; do
		fails=$(awk -F'\t' -v t="$t" -v b=",$before," 'index(b, "," $1 ",") && $3 == t && $4 == "FAIL" { print $1 ":" $2 }' "$res" | xargs)
		case $(printf '%s\n' "$exp" | awk -F'\t' -v t="$t" '$1 == t { print $2 }') in
		fix) if [ -n "$fails" ]; then ok "$t guards a fix: fails on $fails"
			else nok "$t is declared a fix but passes on $before everywhere"; fi ;;
		keep) if [ -z "$fails" ]; then ok "$t guards against regressions: passes on $before"
			else nok "$t is declared a regression guard but fails on $fails"; fi ;;
		search) ok "$t searches for races: judged on $after only" ;;
		*) nok "$t: no line in config/expectations (make expect)" ;;
		esac
	done <"$BUILD/tests.txt"
	for t in $(sh "$TOP/scripts/expect.sh" tests suite); do
		grep -q "	$t	" "$res" || nok "$t is in config/expectations but gave no result"
	done
fi

if want checkpatch; then
	echo "==> checkpatch: checkpatch.pl --strict"
	if [ ! -s "$BUILD/checkpatch.tsv" ]; then
		nok "checkpatch: no results (make checkpatch)"
	else
		while IFS="$(printf '\t')" read -r st name ign; do
			[ "$ign" = - ] && ign= || ign=" (ignoring $ign, see checkpatch-exceptions)"
			if [ "$st" = ok ]; then ok "checkpatch: $name$ign"; else nok "checkpatch: $name$ign"; fi
		done <"$BUILD/checkpatch.tsv"
		[ ! -s "$LOGS/checkpatch.log" ] || sed 's/^/       /' "$LOGS/checkpatch.log"
	fi
fi

if want bisect; then
	echo "==> bisect: every prefix of the series builds"
	if [ ! -s "$BUILD/bisect.tsv" ]; then
		nok "bisect: no results (make bisect)"
	else
		while IFS="$(printf '\t')" read -r st secs subj; do
			if [ "$st" = ok ]; then ok "builds ($secs s): $subj"; else nok "does not build: $subj (build/logs/bisect-failed-*.log)"; fi
		done <"$BUILD/bisect.tsv"
	fi
fi

if want rework; then
	echo "==> rework: no patch reworks what an earlier one added"
	if ! grep -q '^checked ' "$BUILD/rework.txt" 2>/dev/null; then
		nok "rework: no results (make rework)"
	elif grep -q '^REWORK' "$BUILD/rework.txt"; then
		nok "rework: $(grep -m1 '^checked' "$BUILD/rework.txt")"
		grep '^REWORK' "$BUILD/rework.txt" | sed 's/^/       /'
	else
		ok "rework: $(grep -m1 '^checked' "$BUILD/rework.txt")"
	fi
fi

if want bench; then
	echo "==> bench: the benchmarks run (short form; the figures come from make bench)"
	n=$(grep -c . "$BUILD/bench-short.tsv" 2>/dev/null || true)
	if [ "${n:-0}" -ge 5 ] && ! grep -q '^IMM-BENCH-FAILED' "$LOGS"/bench-short-*/results.log; then
		ok "bench: $n measurements on $after"
	else
		nok "bench: ${n:-0} measurements (log: build/logs/bench-short-*/results.log)"
	fi
fi

if want debug; then
	echo "==> debug: the debug kernel ($debug: lockdep, KASAN) on $debugfs"
	sh "$TOP/scripts/results.sh" "$debugfs" "$debug" >"$BUILD/results-debug.tsv"
	bad=$(awk -F'\t' '$4 == "FAIL" || $4 == "missing" || $4 == "n/a" { print $2 ":" $3 }' "$BUILD/results-debug.tsv" | xargs)
	n=$(awk -F'\t' '$3 != "-"' "$BUILD/results-debug.tsv" | wc -l)
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
		ok "$debug: no kernel report, $n verdicts, none failed"
	else
		nok "$debug: failed or missing: ${bad:-no results}"
	fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
