#!/bin/sh
# Judge make check-system from what its runs left in build/logs; do no
# work.  Each system kernel of config/kernels ran guest/system/imm-system
# on a Debian system (build/logs/system-NAME/results.log: "IMM-SYS ok|FAIL
# NAME: what was seen").
#  (1) every run booted with systemd and finished its scenarios;
#  (2) every scenario has a line in config/expectations (system.NAME) and
#      every such line a result on every system kernel;
#  (3) the system-after kernels pass every scenario;
#  (4) on the system-before kernels a "fix" scenario fails somewhere (the
#      scenario can fail) and a "keep" scenario fails nowhere.
# With "guard", make guard-system instead: each guarded kernel of
# config/kernels ran guest/system/imm-guard-system with immguard installed
# from its package (build/logs/guard-system-NAME) and again booted without
# bpf in lsm= (guard-system-nolsm-NAME); every guard.system.* scenario
# must pass on every one, and the LSMs of Debian's default command line
# are reported.
# Usage: system-check.sh [guard]
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kern() { sh "$TOP/scripts/kernels.sh" names "$1" | tr , ' '; }
before=$(kern system-before) after=$(kern system-after)
mode=system prefix=system
runs() { echo "$LOGS/system-$1/results.log"; }
if [ "${1:-}" = guard ]; then
	mode=guard-system prefix=guard.system before='' after=$(kern guard)
	runs() { echo "$LOGS/guard-system-$1/results.log $LOGS/guard-system-nolsm-$1/results.log"; }
fi
exp=$(sh "$TOP/scripts/expect.sh" table) || die "config/expectations does not read (above)"
res=$BUILD/$mode-results.tsv
passed=0
failed=0
ok() { passed=$((passed + 1)); printf '  ok   %s\n' "$*"; }
nok() { failed=$((failed + 1)); printf '  FAIL %s\n' "$*"; }

# KERNEL system.NAME ok|FAIL
for k in $before $after; do
	for f in $(runs "$k"); do
		[ -f "$f" ] || continue
		tr -d '\r' <"$f" | awk -v k="$k" -v p="$prefix" '$1 == "IMM-SYS" && ($2 == "ok" || $2 == "FAIL") {
			n = $3; sub(/:$/, "", n); if (p == "system") n = "system." n; print k "\t" n "\t" $2 }'
	done
done >"$res"

echo "==> (1) every system booted with systemd and finished"
for k in $before $after; do
	for f in $(runs "$k"); do
		if grep -q '^IMM-DONE rc=0' "$f" 2>/dev/null; then
			ok "$k: $(grep -m1 '^IMM-SYS-BOOT' "$f" | tr -d '\r' | sed 's/^IMM-SYS-BOOT //; s/; \([a-z]*\)$/; at the start of the scenarios: \1/'); $(grep -m1 '^IMM-SYS-INFO lsm=' "$f" | tr -d '\r' | sed 's/^IMM-SYS-INFO //; s/; cmdline: .*//')"
		else
			nok "$k: no finished run in ${f#"$TOP"/}"
		fi
	done
done

echo "==> (2) every scenario has its line in config/expectations"
names=$(sh "$TOP/scripts/expect.sh" tests "$mode")
n=0
for t in $(cut -f2 "$res" | sort -u | xargs); do
	echo "$names" | grep -qxF "$t" || { nok "$t: no line in config/expectations"; n=$((n + 1)); }
done
for t in $names; do
	for k in $before $after; do
		grep -q "^$k	$t	" "$res" || { nok "$t: no result on $k"; n=$((n + 1)); }
	done
done
[ $n -gt 0 ] || ok "$(echo "$names" | grep -c .) scenarios, each with its line and a result on every system"

echo "==> (3) every scenario passes on $after"
for t in $names; do
	bad=
	for k in $after; do
		grep -q "^$k	$t	ok$" "$res" || bad="$bad$k "
	done
	n=$t
	[ $prefix = system ] && n=${t#system.}
	# shellcheck disable=SC2046
	why=$(for k in $after; do cat $(runs "$k") 2>/dev/null; done | grep -m1 "^IMM-SYS FAIL $n:" | sed 's/^IMM-SYS FAIL [^:]*: //')
	if [ -z "$bad" ]; then ok "$t"; else nok "$t fails on $bad: $why"; fi
done

[ -n "$before" ] && echo "==> (4) the scenarios against Debian's kernels ($before)"
[ -n "$before" ] && for t in $names; do
	kind=$(printf '%s\n' "$exp" | awk -F'\t' -v t="$t" '$1 == t { print $2 }')
	fails=$(awk -F'\t' -v t="$t" -v b=" $before " 'index(b, " " $1 " ") && $2 == t && $3 == "FAIL" { printf "%s ", $1 }' "$res")
	case $kind in
	fix)
		if [ -n "$fails" ]; then
			ok "$t guards a fix: fails on $fails($(for k in $before; do grep -m1 "^IMM-SYS FAIL ${t#system.}:" "$LOGS/system-$k/results.log" 2>/dev/null; done | tr -d '\r' | sed 's/^IMM-SYS FAIL [^:]*: //' | cut -c1-100 | head -n 1))"
		else
			nok "$t is declared a fix but passes on $before"
		fi ;;
	keep)
		if [ -z "$fails" ]; then ok "$t passes on $before"; else nok "$t is declared keep but fails on $fails"; fi ;;
	*) nok "$t: kind $kind, want fix or keep" ;;
	esac
done

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
