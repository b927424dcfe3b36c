#!/bin/sh
# Judge what the targets of make check produced; do no work.
#  (a) the patched kernel passes every test on every column it can run;
#  (b) every test keeps its declaration in config/expectations against the
#      6.12 kernels: a "fix" test fails on one of them on at least one
#      column, a "keep" test fails on none; a "search" (for races) is
#      judged by (a) alone;
#  (c) every patch is checkpatch.pl --strict clean (build/checkpatch.tsv);
#  (d) every prefix of the series builds (build/bisect.tsv);
#  (g) no patch reworks what an earlier one added (build/rework.txt);
#  (e) the benchmarks run (build/bench.txt);
#  (f) the debug kernel (lockdep, KASAN) passes on its columns.
# Usage: check.sh PARTS FSLIST BEFORE DEBUG_FS
#   PARTS: letters of the parts to judge (abcdefg); BEFORE: the 6.12
#   kernels, comma separated
set -eu
. "$(dirname "$0")/lib.sh"

parts=$1 fslist=$2 before=$3 debugfs=$4
passed=0
failed=0
ok() { passed=$((passed + 1)); printf '  ok   %s\n' "$*"; }
nok() { failed=$((failed + 1)); printf '  FAIL %s\n' "$*"; }
want() { case $parts in *$1*) return 0 ;; esac; return 1; }
res=$BUILD/results.tsv

if want a || want b; then
	# shellcheck disable=SC2046
	sh "$(dirname "$0")/matrix.sh" "$fslist" $(echo "$before" | tr , ' ') patched || true
fi

if want a; then
	echo "==> (a) the patched kernel passes on every column"
	for fs in $(echo "$fslist" | tr , ' '); do
		n=$(awk -F'\t' -v f="$fs" '$1 == "patched" && $2 == f && $3 != "-"' "$res" | wc -l)
		bad=$(awk -F'\t' -v f="$fs" '$1 == "patched" && $2 == f && ($4 == "FAIL" || $4 == "missing" || $4 == "n/a") { print $3 }' "$res" | xargs)
		if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
			ok "patched $fs: $n tests, none failed"
		else
			nok "patched $fs: failed or missing: ${bad:-no results}"
		fi
	done
fi

if want b; then
	echo "==> (b) every test keeps its declaration (config/expectations) against 6.12 ($before)"
	exp=$TOP/config/expectations
	for t in $(awk -F'\t' '$3 != "-" { print $3 }' "$res" | sort -u); do
		fails=$(awk -F'\t' -v t="$t" -v b=",$before," 'index(b, "," $1 ",") && $3 == t && $4 == "FAIL" { print $1 ":" $2 }' "$res" | xargs)
		case $(awk -v t="$t" '$1 == t { print $2 }' "$exp") in
		fix) if [ -n "$fails" ]; then ok "$t guards a fix: fails on $fails"
			else nok "$t is declared a fix but passes on 6.12 everywhere"; fi ;;
		keep) if [ -z "$fails" ]; then ok "$t guards against regressions: passes on 6.12"
			else nok "$t is declared a regression guard but fails on $fails"; fi ;;
		search) ok "$t searches for races: judged on the patched kernel only" ;;
		*) nok "$t: no declaration in config/expectations" ;;
		esac
	done
	for t in $(awk '!/^#/ && NF { print $1 }' "$exp"); do
		grep -q "	$t	" "$res" || nok "$t is declared in config/expectations but gave no result"
	done
fi

if want c; then
	echo "==> (c) checkpatch.pl --strict"
	if [ ! -s "$BUILD/checkpatch.tsv" ]; then
		nok "checkpatch: no results (make checkpatch)"
	else
		while IFS="$(printf '\t')" read -r st name ign; do
			[ "$ign" = - ] && ign= || ign=" (ignoring $ign, see checkpatch-exceptions)"
			[ "$st" = ok ] && ok "checkpatch: $name$ign" || nok "checkpatch: $name$ign"
		done <"$BUILD/checkpatch.tsv"
		[ ! -s "$LOGS/checkpatch.log" ] || sed 's/^/       /' "$LOGS/checkpatch.log"
	fi
fi

if want d; then
	echo "==> (d) every prefix of the series builds"
	if [ ! -s "$BUILD/bisect.tsv" ]; then
		nok "bisect: no results (make bisect)"
	else
		while IFS="$(printf '\t')" read -r st secs subj; do
			[ "$st" = ok ] && ok "builds ($secs s): $subj" || nok "does not build: $subj (build/logs/bisect-failed-*.log)"
		done <"$BUILD/bisect.tsv"
	fi
fi

if want g; then
	echo "==> (g) no patch reworks what an earlier one added"
	if ! grep -q '^checked ' "$BUILD/rework.txt" 2>/dev/null; then
		nok "rework: no results (make rework)"
	elif grep -q '^REWORK' "$BUILD/rework.txt"; then
		nok "rework: $(grep -m1 '^checked' "$BUILD/rework.txt")"
		grep '^REWORK' "$BUILD/rework.txt" | sed 's/^/       /'
	else
		ok "rework: $(grep -m1 '^checked' "$BUILD/rework.txt")"
	fi
fi

if want e; then
	echo "==> (e) the benchmarks run (short form; the figures come from make bench)"
	n=$(grep -c . "$BUILD/bench-short.tsv" 2>/dev/null || true)
	if [ "${n:-0}" -ge 5 ] && ! grep -q '^IMM-BENCH-FAILED' "$LOGS"/bench-short-*/results.log; then
		ok "bench: $n measurements on the patched kernel"
	else
		nok "bench: ${n:-0} measurements (log: build/logs/bench-short-*/results.log)"
	fi
fi

if want f; then
	echo "==> (f) the debug kernel (lockdep, KASAN) on $debugfs"
	sh "$(dirname "$0")/results.sh" "$debugfs" debug >"$BUILD/results-debug.tsv"
	bad=$(awk -F'\t' '$4 == "FAIL" || $4 == "missing" || $4 == "n/a" { print $2 ":" $3 }' "$BUILD/results-debug.tsv" | xargs)
	n=$(awk -F'\t' '$3 != "-"' "$BUILD/results-debug.tsv" | wc -l)
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
		ok "debug kernel: no kernel report, $n verdicts, none failed"
	else
		nok "debug kernel: failed or missing: ${bad:-no results}"
	fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
