#!/bin/sh
# What CI runs after both kernels ran the suite:
#  (a) the patched kernel passes every test on every filesystem;
#  (b) every test keeps its declaration: fixture "fix" fails on pristine
#      6.12 on at least one filesystem, fixture "keep" never fails; fixture
#      "stress" (a timed search for races) is judged by (a) alone;
#  (c) every patch is checkpatch.pl --strict clean, but for the exceptions
#      listed in patches/checkpatch-exceptions;
#  (d) the kernel builds after every patch of the series;
#  (g) no patch reworks lines that an earlier patch of the series added,
#      but for the exceptions listed in patches/rework-exceptions.
# Usage: check.sh FSLIST FRAGMENT...
set -eu
. "$(dirname "$0")/lib.sh"

fslist=$1
shift
passed=0
failed=0
ok() { passed=$((passed + 1)); printf '  ok   %s\n' "$*"; }
nok() { failed=$((failed + 1)); printf '  FAIL %s\n' "$*"; }

sh "$(dirname "$0")/matrix.sh" "$fslist" || true
res=$BUILD/results.tsv

echo "==> (a) patched kernel passes on every filesystem"
for fs in $(echo "$fslist" | tr , ' '); do
	n=$(awk -F'\t' -v f="$fs" '$1 == "patched" && $2 == f && $4 != "missing"' "$res" | wc -l)
	bad=$(awk -F'\t' -v f="$fs" '$1 == "patched" && $2 == f && ($4 == "FAIL" || $4 == "missing") { print $3 }' "$res" | xargs)
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
		ok "patched $fs: $n tests, none failed"
	else
		nok "patched $fs: failed or missing: ${bad:-no results}"
	fi
done

echo "==> (b) every test keeps its declaration against pristine 6.12"
for t in $(cut -f3 "$res" | grep -v '^-$' | sort -u); do
	fails=$(awk -F'\t' -v t="$t" '$1 == "pristine" && $3 == t && $4 == "FAIL" { print $2 }' "$res" | xargs)
	case $t in
	fix.*) if [ -n "$fails" ]; then ok "$t guards a fix: fails on 6.12 on $fails"
		else nok "$t is declared a fix but passes on 6.12 everywhere"; fi ;;
	keep.*) if [ -z "$fails" ]; then ok "$t guards against regressions: passes on 6.12"
		else nok "$t is declared a regression guard but fails on 6.12 on $fails"; fi ;;
	stress.*) ok "$t searches for races: judged on the patched kernel only${fails:+ (found one on 6.12 on $fails)}" ;;
	*) nok "$t: fixture is neither fix, keep nor stress" ;;
	esac
done

echo "==> (c) checkpatch.pl --strict"
exc=$TOP/patches/checkpatch-exceptions
for p in "$TOP"/patches/[0-9]*.patch; do
	case $p in */0000-*) continue ;; esac
	name=$(basename "$p")
	ignore=$(awk -v n="$name" '$1 == n { print $2 }' "$exc" 2>/dev/null | paste -sd, -)
	out=$(cd "$BUILD/src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse \
		--no-summary ${ignore:+--ignore "$ignore"} "$p" 2>&1) || true
	if [ -z "$out" ]; then
		ok "checkpatch: $name${ignore:+ (ignoring $ignore, see checkpatch-exceptions)}"
	else
		nok "checkpatch: $name"
		echo "$out" | sed 's/^/       /'
	fi
done

echo "==> (d) the kernel builds after every patch"
bis=$BUILD/bisect
src=$BUILD/src
[ -d "$bis" ] || git -C "$src" worktree add -q --detach "$bis" pristine
for c in $(git -C "$src" rev-list --reverse pristine..HEAD); do
	subj=$(git -C "$src" log -1 --format=%s "$c")
	git -C "$bis" checkout -q --detach "$c"
	t0=$(date +%s)
	if sh "$(dirname "$0")/kernel.sh" "$bis" bisect "$@" >"$LOGS/bisect-step.log" 2>&1; then
		ok "builds: $subj ($(($(date +%s) - t0))s)"
	else
		nok "does not build: $subj (log: $LOGS/build-bisect.log)"
	fi
done

echo "==> (g) no patch reworks what an earlier one added"
if sh "$(dirname "$0")/check-rework.sh" >"$LOGS/rework.log" 2>&1; then
	ok "rework: $(git -C "$BUILD/src" rev-list --count pristine..HEAD) patches, none changes lines an earlier one added$(grep -c '^excused' "$LOGS/rework.log" | sed 's/^0$//; s/^[1-9].*/ (& excused, see rework-exceptions)/')"
else
	nok "rework (log: $LOGS/rework.log)"
	grep '^REWORK' "$LOGS/rework.log" | sed 's/^/       /'
fi

echo "==> (e) the benchmarks run (short form; the figures come from make bench)"
if sh "$(dirname "$0")/bench.sh" 1 short >"$LOGS/bench-short.log" 2>&1 &&
	[ "$(grep -c '^ratio' "$BUILD/bench.txt")" -ge 6 ]; then
	ok "bench: $(grep -c . "$BUILD/bench.tsv") measurements on both kernels"
else
	nok "bench short form failed (log: $LOGS/bench-short.log)"
	tail -n 20 "$LOGS/bench-short.log" | sed 's/^/       /'
fi

if [ -n "${DEBUG_FS:-}" ]; then
	echo "==> (f) the debug kernel (lockdep, KASAN) runs the suite on $DEBUG_FS"
	if OBJ=debug sh "$(dirname "$0")/kernel.sh" "$BUILD/src" debug "$@" "$TOP/config/debug.config" \
		>"$LOGS/debug-build-step.log" 2>&1 &&
		sh "$(dirname "$0")/boot.sh" debug run-debug run "$DEBUG_FS" 5400 \
			"imm.stress=${DEBUG_STRESS:-10} panic_on_warn=1" >"$LOGS/debug-run.log" 2>&1 &&
		sh "$(dirname "$0")/check-debug.sh" "$DEBUG_FS" >>"$LOGS/debug-run.log" 2>&1; then
		ok "debug kernel: no report, every test passed on $DEBUG_FS"
	else
		nok "debug kernel (log: $LOGS/debug-run.log)"
		tail -n 20 "$LOGS/debug-run.log" | sed 's/^/       /'
	fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
