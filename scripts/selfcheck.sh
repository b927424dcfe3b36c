#!/bin/sh
# Check the harness itself, in seconds and without QEMU: run each judge on
# the recorded cases of tests/harness and compare what it says with what
# it said when the case was recorded; then shellcheck every shell script.
#
# A case is a directory tests/harness/CASE holding
#   build/        the files the judge reads (logs cut from real runs)
#   cmd           one line: the judge and its arguments, run by sh from the
#                 top of the repository with BUILD set to a copy of build/
#   expected      the judge's stdout, then a last line "exit N"
#   kernels, expectations, filesystems
#                 the case's own tables, if it has them (KERNELS_TABLE,
#                 EXPECTATIONS, FS_TABLE point at them; else at config/)
# In the judge's stdout, the copy's path reads "$BUILD".  tests/harness/
# README says where each case's logs come from.
#
# Usage: selfcheck.sh [CASE...]       the cases (all by default; with
#                                     none named, ShellCheck after them);
#                                     ends "N passed, N failed"
#        selfcheck.sh --record CASE...
#                                     rewrite the cases' expected from what
#                                     the judges say now: for when a judge's
#                                     output changes on purpose (read the
#                                     diff of expected before committing it)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cases_dir=$TOP/tests/harness
record=
if [ "${1:-}" = --record ]; then
	record=1
	shift
	[ $# -gt 0 ] || { echo "selfcheck.sh --record: name the cases to record" >&2; exit 2; }
fi

# the judges must say the same whatever the caller's locale and settings
export LC_ALL=C TOP
unset REFUSED FS_TABLE KERNELS_TABLE EXPECTATIONS MAKEFLAGS MFLAGS MAKELEVEL || true

tmp=$(mktemp -d "${TMPDIR:-/tmp}/selfcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# sed_escape STRING: STRING as a literal sed pattern
sed_escape() { printf '%s\n' "$1" | sed 's/[]\/$*.^[]/\\&/g'; }

# judge CASE OUT: run the case on a fresh copy of its build/; its stdout
# (paths of the copy as $BUILD) and "exit N" into OUT, its stderr into
# OUT.stderr
judge() {
	c=$cases_dir/$1
	[ -f "$c/cmd" ] || { echo "no case $1 (no $c/cmd)" >"$2"; return 1; }
	w=$tmp/$1
	rm -rf "$w"
	mkdir -p "$w"
	if [ -d "$c/build" ]; then cp -R "$c/build" "$w/build"; else mkdir "$w/build"; fi
	(
		cd "$TOP"
		BUILD=$w/build
		export BUILD
		[ ! -f "$c/kernels" ] || export KERNELS_TABLE="$c/kernels"
		[ ! -f "$c/expectations" ] || export EXPECTATIONS="$c/expectations"
		[ ! -f "$c/filesystems" ] || export FS_TABLE="$c/filesystems"
		sh -c "$(cat "$c/cmd")" </dev/null >"$2.raw" 2>"$2.stderr"
	) && rc=0 || rc=$?
	# the copy's path, whole or as the judges shorten it under TOP
	b=$(sed_escape "$w/build")
	rel=
	case $w/build in "$TOP"/*) rel=$(sed_escape "${w#"$TOP"/}/build") ;; esac
	sed "s/$b/\$BUILD/g${rel:+; s/$rel/\$BUILD/g}" "$2.raw" >"$2"
	echo "exit $rc" >>"$2"
}

if [ -n "$record" ]; then
	for name; do
		judge "$name" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
		cp "$tmp/out" "$cases_dir/$name/expected"
		echo "recorded $name ($(tail -n 1 "$tmp/out")): tests/harness/$name/expected"
		[ ! -s "$tmp/out.stderr" ] || sed 's/^/   stderr: /' "$tmp/out.stderr"
	done
	exit 0
fi

passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$*"; }
nok() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }

if [ $# -gt 0 ]; then
	cases=$*
else
	cases=$(cd "$cases_dir" && for d in */; do [ ! -f "$d/cmd" ] || echo "${d%/}"; done)
fi
for name in $cases; do
	if ! judge "$name" "$tmp/out"; then
		nok "$name: $(cat "$tmp/out")"
	elif [ ! -f "$cases_dir/$name/expected" ]; then
		nok "$name: no expected (sh scripts/selfcheck.sh --record $name)"
	elif diff -u "$cases_dir/$name/expected" "$tmp/out" >"$tmp/diff"; then
		ok "$name"
	else
		nok "$name: the judge says otherwise than tests/harness/$name/expected"
		sed -n '3,$p' "$tmp/diff" | sed 's/^/     /'
		[ ! -s "$tmp/out.stderr" ] || sed 's/^/     stderr: /' "$tmp/out.stderr"
	fi
done

# ShellCheck, on every shell script of the repository
if [ $# -eq 0 ]; then
	cd "$TOP"
	scripts="scripts/*.sh tests/harness/*.sh .ci/run guest/init guest/lib.sh guest/suite guest/guard guest/guard-nolsm guest/bench guest/crash guest/shell guest/system/imm-system guest/system/imm-guard-system guest/system/imm-appender guest/system/lib.sh"
	if ! command -v shellcheck >/dev/null 2>&1; then
		nok "shellcheck: not installed; install it (Debian: apt-get install shellcheck) and run again"
	else
		# shellcheck disable=SC2086
		set -- $scripts
		if shellcheck -x -s sh -f gcc "$@" >"$tmp/sc" 2>&1; then
			ok "shellcheck: $# scripts, no findings"
		else
			nok "shellcheck -x -s sh: $(grep -c . "$tmp/sc") findings"
			sed 's/^/     /' "$tmp/sc"
		fi
	fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
