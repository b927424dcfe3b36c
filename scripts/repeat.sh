#!/bin/sh
# Boot each kernel RUNS times and fail when a test changes its verdict
# between runs on the same kernel and filesystem.  "fix" and "keep" tests
# (config/expectations) must be stable on both kernels; a "search" for
# races, whose outcome on 6.12 depends on timing, must pass on every
# patched run and is only reported for 6.12.
# Usage: repeat.sh RUNS FSLIST STRESS BEFORE   (BEFORE: the 6.12 kernel)
set -eu
. "$(dirname "$0")/lib.sh"

runs=$1
fslist=$2
stress=$3
before=$4
out=$BUILD/repeat.tsv
kernels=

i=1
while [ "$i" -le "$runs" ]; do
	for k in "$before" patched; do
		echo "   run $i of $runs: $k"
		# no race search on 6.12: it livelocks ocfs2 there (README)
		s=$stress
		[ "$k" = patched ] || s=0
		GUEST_ENV="IMMUTABLE_STRESS_SECONDS=$s" \
			sh "$(dirname "$0")/boot.sh" "$k" "repeat-$k-$i" suite "$fslist" ||
			die "run $i of $k failed (see above)"
		kernels="$kernels $k-$i=repeat-$k-$i"
	done
	i=$((i + 1))
done

# shellcheck disable=SC2086
sh "$(dirname "$0")/results.sh" "$fslist" $kernels |
	sed 's/^\([a-z0-9.-]*\)-\([0-9]*\)\t/\1\t\2\t/' >"$out"

search=$(awk '$2 == "search" { printf "%s,", $1 }' "$TOP/config/expectations")
awk -F'\t' -v runs="$runs" -v search=",$search" '
	# kernel run fs test status
	$5 == "n/a" { next }
	$5 == "missing" { missing = missing " " $1 "-" $2 ":" $3; next }
	{
		key = $1 SUBSEP $3 SUBSEP $4
		if (!(key in first)) { first[key] = $5; order[++n] = key }
		else if ($5 != first[key]) changed[key] = 1
		seen[key] = seen[key] " " $5
		cnt[key]++
		if ($1 == "patched" && index(search, "," $4 ",") && $5 == "FAIL") sfail[key] = 1
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
			if (index(search, "," f[3] ",") && f[1] != "patched") {
				printf "   note: %s %s %s:%s (a search, not judged on 6.12)\n", f[1], f[2], f[3], seen[key]
				continue
			}
			printf "   CHANGED %s %s %s:%s\n", f[1], f[2], f[3], seen[key]
			bad = 1
		}
		for (key in sfail) {
			split(key, f, SUBSEP)
			printf "   stress found a change on patched %s\n", f[2]
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
