#!/bin/sh
# Boot each kernel RUNS times and fail when a test changes its verdict
# between runs on the same kernel and filesystem.  "fix" and "keep" tests
# (config/expectations) must be stable on every kernel; a "search" for
# races, whose outcome on a before kernel depends on timing, must pass on
# every run of the series and is only reported for the others.
# Usage: repeat.sh RUNS FSLIST STRESS BEFORE AFTER
#        repeat.sh judge RUNS FSLIST BEFORE AFTER
#   BEFORE: the before kernels, comma separated; AFTER: the series; judge:
#   boot nothing, compare the runs that build/logs holds
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

judge_only=
[ "$1" = judge ] && { judge_only=1; shift; set -- "$1" "$2" 0 "$3" "$4"; }
runs=$1
fslist=$2
stress=$3
before=$4
after=$5
out=$BUILD/repeat.tsv
kernels=

i=1
[ -z "$judge_only" ] || i=$((runs + 1))
while [ "$i" -le "$runs" ]; do
	for k in $(echo "$before" | tr , ' ') "$after"; do
		echo "   run $i of $runs: $k"
		# no race search on a before kernel: it livelocks ocfs2 on 6.12
		# (README)
		s=$stress
		[ "$k" = "$after" ] || s=0
		GUEST_ENV="IMMUTABLE_STRESS_SECONDS=$s" \
			sh "$(dirname "$0")/boot.sh" "$k" "repeat-$k-$i" suite "$fslist" ||
			die "run $i of $k failed (see above)"
	done
	i=$((i + 1))
done
i=1
while [ "$i" -le "$runs" ]; do
	for k in $(echo "$before" | tr , ' ') "$after"; do
		kernels="$kernels $k@$i=repeat-$k-$i"
	done
	i=$((i + 1))
done

# shellcheck disable=SC2086
sh "$(dirname "$0")/results.sh" "$fslist" $kernels |
	sed 's/^\([^@\t]*\)@\([0-9]*\)\t/\1\t\2\t/' >"$out"

search=$(sh "$TOP/scripts/expect.sh" table | awk -F'\t' '$2 == "search" { printf "%s,", $1 }')
awk -F'\t' -v runs="$runs" -v search=",$search" -v after="$after" '
	# kernel run fs test status
	$5 == "n/a" { next }
	$5 == "missing" { missing = missing " " $1 "-" $2 ":" $3; next }
	{
		key = $1 SUBSEP $3 SUBSEP $4
		if (!(key in first)) { first[key] = $5; order[++n] = key }
		else if ($5 != first[key]) changed[key] = 1
		seen[key] = seen[key] " " $5
		cnt[key]++
		if ($1 == after && index(search, "," $4 ",") && $5 == "FAIL") sfail[key] = 1
		tests[$1 SUBSEP $3]++
	}
	END {
		bad = 0
		for (i = 1; i <= n; i++) {
			key = order[i]
			split(key, f, SUBSEP)
			if (cnt[key] != runs) {
				printf "   %s %s %s: %d results in %d runs\n", f[1], f[2], f[3], cnt[key], runs
				bad = 1
			}
			if (!(key in changed)) continue
			if (index(search, "," f[3] ",") && f[1] != after) {
				printf "   note: %s %s %s:%s (a search, judged on %s alone)\n", f[1], f[2], f[3], seen[key], after
				continue
			}
			printf "   CHANGED %s %s %s:%s\n", f[1], f[2], f[3], seen[key]
			bad = 1
		}
		for (key in sfail) {
			split(key, f, SUBSEP)
			printf "   stress found a change on %s %s\n", after, f[2]
			bad = 1
		}
		if (missing != "") { printf "   incomplete runs:%s\n", missing; bad = 1 }
		nk = 0
		for (key in tests) nk++
		printf "   %d kernel x filesystem pairs, %d runs each, %d verdicts compared\n", nk, runs, NR
		exit bad
	}' "$out" && rc=0 || rc=$?
echo "   verdicts per run: ${out#"$TOP"/}"
[ "$rc" = 0 ] || die "a verdict changed between runs (above)"
echo "every verdict was the same in all $runs runs of each kernel"
