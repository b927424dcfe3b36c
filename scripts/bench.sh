#!/bin/sh
# Boot the kernels alternately with -icount and collect the guest
# benchmarks; print median, min, max per kernel and, for the first kernel
# (the baseline) and the last (the series), the ratios the series is
# judged by.
# Usage: bench.sh BOOTS short|full KERNEL...
#        bench.sh summary short|full KERNEL...   only the summary, of the
#                                                build/bench-SIZE.tsv there is
# Writes build/bench-SIZE.tsv and build/bench-SIZE.txt.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

boots=$1
size=$2
shift 2
out=$BUILD/bench-$size.tsv
if [ "$boots" = summary ]; then boots=0; else : >"$out"; fi
# pwrite() through the page cache of a disk and of tmpfs, first stores to
# a shared mapping on xfs and tmpfs, and chattr +i against fsync() on ext4
# on persistent memory without DAX, so that writeback is guest work and no
# host I/O enters the timed region (-icount counts guest instructions), and
# there chattr +i of a file a reader holds a page of (guest/bench.c).
fslist=$(sh "$(dirname "$0")/fs.sh" names bench)
export ICOUNT=0 MEM=2048
i=1
while [ "$i" -le "$boots" ]; do
	for k; do
		sh "$(dirname "$0")/boot.sh" "$k" "bench-$size-$k-$i" bench "$fslist" \
			"$size" pwrite:ext4 pwrite:tmpfs fault:xfs fault:tmpfs \
			chattr:ext4-pmem reader:ext4-pmem >/dev/null
		f=$LOGS/bench-$size-$k-$i/results.log
		! grep -q '^IMM-BENCH-FAILED' "$f" ||
			die "a benchmark failed in $f: $(grep -m1 '^IMM-BENCH-FAILED' "$f")"
		tr -d '\r' <"$f" | awk -v k="$k" -v i="$i" \
			'$1 == "BENCH" { print k "\t" i "\t" $2 "\t" $3 "\t" $4 }' >>"$out"
	done
	echo "   boot pair $i of $boots done"
	i=$((i + 1))
done

base=$1
for series; do :; done
sort -t"$(printf '\t')" -k3,3 -k1,1 -k4,4g "$out" | awk -F'\t' -v base="$base" -v series="$series" '
	{ key = $3 SUBSEP $1; v[key, ++n[key]] = $4; unit[$3] = $5; if (!($3 in names)) { names[$3] = 1; order[++nn] = $3 } }
	function med(key,   c) { c = n[key]; return c % 2 ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2 }
	END {
		printf "%-22s %-8s %12s %12s %12s  %s\n", "benchmark", "kernel", "median", "min", "max", "unit"
		for (j = 1; j <= nn && (name = order[j]) != ""; j++) for (kk = 1; kk <= 2; kk++) {
			k = kk == 1 ? base : series; key = name SUBSEP k
			if (kk == 2 && series == base) continue
			if (!n[key]) continue
			m[name, k] = med(key)
			printf "%-22s %-8s %12.1f %12.1f %12.1f  %s\n", name, k, m[name, k], v[key, 1], v[key, n[key]], unit[name]
		}
		print ""
		for (j = 1; j <= nn && (name = order[j]) != ""; j++) if (name ~ /^(pwrite|fault)/ && series != base && m[name, base] > 0)
			printf "ratio %s/%s %-16s %.4f\n", series, base, name, m[name, series] / m[name, base]
		for (j = 1; j <= nn && (name = order[j]) != ""; j++) if (name ~ /^chattr-reader/) {
			f = name; sub(/^chattr-reader/, "chattr-alone", f)
			for (kk = 1; kk <= 2; kk++) {
				k = kk == 1 ? base : series
				if ((kk == 1 || series != base) && m[f, k] > 0)
					printf "ratio reader/alone %-8s %-16s %.3f\n", k, name, m[name, k] / m[f, k]
			}
		}
		for (j = 1; j <= nn && (name = order[j]) != ""; j++) if (name ~ /^chattr[0-9]/) {
			f = name; sub(/^chattr/, "fsync", f)
			for (kk = 1; kk <= 2; kk++) {
				k = kk == 1 ? base : series
				if ((kk == 1 || series != base) && m[f, k] > 0)
					printf "ratio chattr/fsync %-8s %-16s %.3f\n", k, name, m[name, k] / m[f, k]
			}
		}
	}' | tee "$BUILD/bench-$size.txt"
echo "raw results: ${out#"$TOP"/}, summary: ${BUILD#"$TOP"/}/bench-$size.txt"
