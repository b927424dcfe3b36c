#!/bin/sh
# What immguard costs where its hooks run on every call (make guard-bench):
# each kernel booted with -icount (guest time counts instructions),
# alternately without and with immguard loaded (guest/bench with
# BENCH_GUARD=1: loaded, attached, still attached at the end), BOOTS times
# each side, the same kernel command line on both.  The benchmarks of
# guest/bench.c: pwrite (4 KiB, page cache: lsm/file_permission), fault
# (first store to each page of a shared mapping: no hook of the guard) and
# mmap (mmap() and munmap() of one shared writable page per call:
# lsm/mmap_file and fexit/do_mmap).  Prints per benchmark the median of
# each side and the ratio guard/stock, each judged against LIMIT; ends in
# "N passed, N failed".
# Usage: guard-bench.sh BOOTS KERNEL...
#        guard-bench.sh summary KERNEL...   only the judging, of the
#                                           build/guard-bench.tsv there is
# Env: APPEND (both sides: bpf in lsm=), EXTRA_INITRD (immguard's layer,
#   build/guard/guard.cpio), LIMIT (1.02), TIMEOUT (seconds per column, 300)
# Writes build/guard-bench.tsv and build/guard-bench.txt.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

boots=$1
shift
[ $# -gt 0 ] || die "usage: guard-bench.sh BOOTS|summary KERNEL..."
limit=${LIMIT:-1.02}
out=$BUILD/guard-bench.tsv
# 4 KiB pwrite() through the page cache of a disk and of tmpfs, first
# stores on xfs, ext4 and tmpfs, mmap()/munmap() on ext4 and tmpfs
fslist=ext4,xfs,tmpfs
items="pwrite:ext4 pwrite:tmpfs fault:xfs fault:ext4 fault:tmpfs mmap:ext4 mmap:tmpfs"
export ICOUNT=0 MEM=2048 TIMEOUT="${TIMEOUT:-300}"
if [ "$boots" = summary ]; then
	boots=0
else
	[ -f "${EXTRA_INITRD:-}" ] || die "no immguard layer in EXTRA_INITRD (${EXTRA_INITRD:-unset}); make guard"
	# every boot with the same immguard, whatever make guard does meanwhile
	cp "$EXTRA_INITRD" "$BUILD/guard-bench.cpio.tmp"
	mv "$BUILD/guard-bench.cpio.tmp" "$BUILD/guard-bench.cpio"
	export EXTRA_INITRD="$BUILD/guard-bench.cpio"
	: >"$out"
fi
i=1
while [ "$i" -le "$boots" ]; do
	for k; do
		for side in stock guard; do
			run=guard-bench-$k-$side-$i
			env=
			[ "$side" = stock ] || env=BENCH_GUARD=1
			# shellcheck disable=SC2086 # one benchmark per word
			GUEST_ENV=$env sh "$(dirname "$0")/boot.sh" "$k" "$run" bench "$fslist" full $items
			f=$LOGS/$run/results.log
			! grep -q '^IMM-BENCH-FAILED' "$f" ||
				die "$run: $(grep -m1 '^IMM-BENCH-FAILED' "$f"); see $f"
			if [ "$side" = guard ]; then
				grep -q '^IMM-BENCH-GUARD immguard: loaded, [0-9]* programs attached' "$f" ||
					die "$run: immguard did not report itself attached; see $f"
			elif grep -q '^IMM-BENCH-GUARD' "$f"; then
				die "$run: immguard ran on the side without it; see $f"
			fi
			tr -d '\r' <"$f" | awk -v k="$k" -v s="$side" -v i="$i" \
				'$1 == "BENCH" { print k "\t" s "\t" i "\t" $2 "\t" $3 "\t" $4 }' >>"$out"
		done
	done
	echo "   boot pair $i of $boots done"
	i=$((i + 1))
done

[ -s "$out" ] || die "no results in ${out#"$TOP"/}"
sort -t"$(printf '\t')" -k1,1 -k4,4 -k2,2 -k5,5g "$out" | awk -F'\t' -v limit="$limit" -v kernels="$*" '
	BEGIN { nk = split(kernels, kern, " "); for (a = 1; a <= nk; a++) want[kern[a]] = 1 }
	!($1 in want) { next }
	{
		key = $1 SUBSEP $4 SUBSEP $2; v[key, ++n[key]] = $5; unit[$4] = $6
		if (!(($1, $4) in seen)) { seen[$1, $4] = 1; names[$1, ++nn[$1]] = $4 }
	}
	function med(key,   c) { c = n[key]; return c % 2 ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2 }
	function side(key) { return sprintf("%10.1f (%.1f-%.1f)", med(key), v[key, 1], v[key, n[key]]) }
	END {
		printf "%-13s %-12s %-30s %-30s %7s  %s\n", "kernel", "benchmark", "stock: median (min-max)", "guard: median (min-max)", "ratio", "unit, boots"
		for (a = 1; a <= nk; a++) for (b = 1; b <= nn[k = kern[a]]; b++) {
			name = names[k, b]; s = k SUBSEP name SUBSEP "stock"; g = k SUBSEP name SUBSEP "guard"
			if (!n[s] || !n[g] || med(s) <= 0) {
				line[++nl] = sprintf("FAIL %s %s: %s", k, name, !n[s] ? "no result without the guard" : !n[g] ? "no result with the guard" : "no time")
				failed++
				continue
			}
			r = med(g) / med(s)
			printf "%-13s %-12s %-30s %-30s %7.4f  %s, %d+%d\n", k, name, side(s), side(g), r, unit[name], n[s], n[g]
			if (r > limit) {
				line[++nl] = sprintf("FAIL %s %s: guard/stock %.4f > %s (%+.1f%%)", k, name, r, limit, (r - 1) * 100)
				failed++
			} else {
				line[++nl] = sprintf("ok   %s %s: guard/stock %.4f <= %s", k, name, r, limit)
				passed++
			}
		}
		for (a = 1; a <= nk; a++) if (!nn[kern[a]]) { line[++nl] = "FAIL " kern[a] ": no results"; failed++ }
		print ""
		for (j = 1; j <= nl; j++) print line[j]
		printf "\n%d passed, %d failed\n", passed, failed
		exit failed > 0
	}' >"$BUILD/guard-bench.txt" && rc=0 || rc=$?
cat "$BUILD/guard-bench.txt"
echo "raw results: ${out#"$TOP"/}, summary: ${BUILD#"$TOP"/}/guard-bench.txt"
exit "$rc"
