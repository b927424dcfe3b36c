#!/bin/sh
# (d) Every prefix of the series builds.
# Usage: bisect.sh objects|full FRAGMENT...
#   objects: after each patch, compile every object file that the series
#            touches (make fs/ioctl.o ...), in one worktree whose build
#            directory only recompiles what the patch changed; the whole
#            tree is built by make kernel-patched
#   full:    build the whole kernel after each patch (make check-full)
# Writes build/bisect.tsv: STATUS SECONDS SUBJECT.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mode=$1
shift
src=$BUILD/src
wt=$BUILD/bisect
out=$BUILD/bisect.tsv
g() { git -C "$src" "$@"; }
[ -d "$wt" ] || g worktree add -q --detach "$wt" pristine

objs=
if [ "$mode" = objects ]; then
	# every .c file that the series changes and the config builds
	for f in $(g diff --name-only pristine HEAD -- '*.c' | grep -v '^tools/'); do
		o=${f%.c}.o
		[ -f "$src/.build/$o" ] && objs="$objs $o" ||
			echo "   not in the config, not compiled: $f"
	done
	[ -n "$objs" ] || die "no object of the series is built by the config; build the patched kernel first"
	echo "   compiling after each patch:$objs" | fold -s -w 78
fi

: >"$out"
bad=0
for c in $(g rev-list --reverse pristine..HEAD); do
	subj=$(g log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	t0=$(date +%s)
	if [ "$mode" = objects ]; then
		# objects that exist at this commit (a patch may add a file)
		here=
		for o in $objs; do [ -f "$wt/${o%.o}.c" ] && here="$here $o"; done
		TARGETS="$here" sh "$(dirname "$0")/kernel.sh" bisect "$wt" .build "$@" \
			>"$LOGS/bisect-step.log" 2>&1 && st=ok || st=FAIL
	else
		sh "$(dirname "$0")/kernel.sh" bisect "$wt" .build-full "$@" \
			>"$LOGS/bisect-step.log" 2>&1 && st=ok || st=FAIL
	fi
	printf '%s\t%s\t%s\n' "$st" $(($(date +%s) - t0)) "$subj" >>"$out"
	printf '   %-4s %4ss %s\n' "$st" $(($(date +%s) - t0)) "$subj"
	if [ "$st" = FAIL ]; then
		cp "$LOGS/build-bisect.log" "$LOGS/bisect-failed-$(g log -1 --format=%f "$c" | cut -c1-40).log"
		bad=1
	fi
done
[ $bad = 0 ] || die "a prefix of the series does not build (logs: $LOGS/bisect-failed-*.log)"
