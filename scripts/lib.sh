# Shared helpers for the host-side harness.  Sourced, not executed.
# shellcheck shell=sh

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
LOGS=$BUILD/logs
mkdir -p "$LOGS"

die() {
	printf '\nerror: %s\n' "$*" >&2
	exit 1
}

# stage NAME CMD...: run one visible stage, time it, fail loudly.
stage() {
	_name=$1
	shift
	printf '==> %s\n' "$_name"
	_t0=$(date +%s)
	if "$@"; then
		printf '<== %s (%ss)\n' "$_name" $(($(date +%s) - _t0))
	else
		_rc=$?
		printf '<== %s FAILED after %ss\n' "$_name" $(($(date +%s) - _t0)) >&2
		exit "$_rc"
	fi
}

# logged LOG CMD...: run CMD with output to LOG, show the tail on failure.
logged() {
	_log=$1
	shift
	"$@" >"$_log" 2>&1 && return 0
	_rc=$?
	echo "---- last 40 lines of $_log ----" >&2
	tail -n 40 "$_log" >&2
	echo "---- full log: $_log ----" >&2
	return "$_rc"
}

# A make of ours that calls make (kernel, selftest) must not hand it our
# variables or job server: those makes run on their own.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
