#!/bin/sh
# Answer questions about config/kernels, the table of kernels, and do what
# a kernel of it needs.
# Usage:
#   kernels.sh names [ROLE]     the kernels (with ROLE), comma separated
#   kernels.sh get NAME FIELD   one field (kind, source, config, roles)
#   kernels.sh has NAME ROLE    succeed if NAME has ROLE
#   kernels.sh check NAMES      fail unless every name is a kernel
#   kernels.sh fragments NAME   the config fragments of a built kernel
#   kernels.sh objdir NAME      its object directory, relative to its tree
#   kernels.sh build NAME       fetch (debian) or build it: build/kernels/NAME
#   kernels.sh package NAME     the Debian package of a debian or deb kernel
# Env of build: SRC (build/src), PRISTINE (build/pristine), FS_CONFIG and
#   FS_DEBUG_CONFIG (the fs and fs-debug fragments), TEST_CONFIG, LSMOD (the
#   module list a trimmed deb keeps), DEB_CONFIG (full: build every deb
#   kernel from Debian's whole config).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
TABLE=${KERNELS_TABLE:-$TOP/config/kernels}
ROLES=" before after debug full bench guard guard-ref nolsm system-before system-after "

# The table without comments, fields trimmed, separated by tabs; each line
# checked.
rows() {
	awk -F'|' -v roles="$ROLES" '
		function bad(m) { printf "config/kernels: %s: %s\n", $1, m > "/dev/stderr"; err = 1; exit 1 }
		/^[ \t]*(#|$)/ { next }
		{
			for (i = 1; i <= NF; i++) { gsub(/^[ \t]+|[ \t]+$/, "", $i) }
			if (NF != 5) bad(sprintf("%d fields, want 5 (name|kind|source|config|roles)", NF))
			if ($1 !~ /^[a-z0-9][a-z0-9._-]*$/) bad("a name is lower case letters, digits, . _ -")
			if (seen[$1]++) bad("named twice")
			if ($2 == "debian") {
				if ($3 !~ /^linux-image-[^=]+=[^=]+$/) bad("a debian kernel'"'"'s source is linux-image-...=VERSION")
			} else if ($2 == "deb") {
				if ($3 == "-") bad("a deb kernel'"'"'s source is the debian kernel whose config it takes")
				if ($4 !~ /^(trimmed|full)$/) bad("a deb kernel'"'"'s config is trimmed or full")
			} else if ($2 == "series" || $2 == "pristine") {
				if ($4 == "-") bad("a built kernel needs config fragments")
				n = split($4, f, " ")
				for (i = 1; i <= n; i++)
					if (f[i] !~ /^(base|fs|fs-debug|test|debug)$/) bad("unknown config fragment " f[i] " (base, fs, fs-debug, test, debug)")
			} else bad("unknown kind " $2 " (debian, series, pristine, deb)")
			n = split($5, r, ",")
			for (i = 1; i <= n; i++) {
				if (index(roles, " " r[i] " ") == 0) bad("unknown role " r[i] " (" substr(roles, 2, length(roles) - 2) ")")
				if (r[i] == "after") after++
			}
			out = $1; for (i = 2; i <= NF; i++) out = out "\t" $i; print out
		}
		END { if (!err && after != 1) { printf "config/kernels: %d kernels have the role after, want exactly one\n", after > "/dev/stderr"; exit 1 } }' "$TABLE"
}

# checked once: a bad line stops every question
ROWS=$(rows) || exit 2
rows() { printf '%s\n' "$ROWS"; }

FIELDS="name kind source config roles"
TABLE_NAME="kernel of config/kernels"
known() { names_in name | sed 's/,/, /g'; }
# shellcheck source=table.sh
. "$TOP/scripts/table.sh"
names() { names_in roles "${1:-}"; }

fragments() {
	for f in $(get "$1" config); do
		case $f in
		base) echo "$TOP/config/base.config" ;;
		debug) echo "$TOP/config/debug.config" ;;
		fs) echo "${FS_CONFIG:?}" ;;
		fs-debug) echo "${FS_DEBUG_CONFIG:?}" ;;
		test) echo "${TEST_CONFIG:?}" ;;
		esac
	done
}

# The kernels of the after kernel's config share .build, so that ccache
# hits across build/src, build/pristine and the bisect tree; others have
# their own.
objdir() {
	a=$(names after)
	if [ "$(get "$1" config)" = "$(get "$a" config)" ]; then echo .build; else echo ".build-$1"; fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
names) names "${1:-}" ;;
get) get "$1" "$2" ;;
has) case ,$(get "$1" roles), in *,"$2",*) ;; *) exit 1 ;; esac ;;
check) for k in $(echo "$1" | tr , ' '); do get "$k" name >/dev/null; done ;;
fragments) fragments "$1" ;;
objdir) objdir "$1" ;;
package)
	case $(get "$1" kind) in
	debian)
		src=$(get "$1" source)
		v=$(echo "${src#*=}" | sed 's/:/%3a/')
		echo "${BUILD:?}/debs/${src%%=*}_${v}_amd64.deb" ;;
	deb) cat "${BUILD:?}/kernels/$1/deb" ;;
	*) echo "kernels.sh: $1 is not a Debian package" >&2; exit 2 ;;
	esac ;;
build)
	k=$1
	src=$(get "$k" source)
	case $(get "$k" kind) in
	debian)
		# the modules of every column and of the selftest; virtio_pci is
		# a module on some of Debian's kernels
		syms=${BUILD:?}/config/modules-$k.syms
		{ sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "${FS_CONFIG:?}" "${TEST_CONFIG:?}"; echo VIRTIO_PCI; } >"$syms"
		exec sh "$TOP/scripts/stock.sh" "$k" "${src%%=*}" "${src#*=}" "$syms" ;;
	series)
		# shellcheck disable=SC2046
		exec sh "$TOP/scripts/kernel.sh" "$k" "${SRC:?}" "$(objdir "$k")" $(fragments "$k") ;;
	pristine)
		# shellcheck disable=SC2046
		exec sh "$TOP/scripts/kernel.sh" "$k" "${PRISTINE:?}" "$(objdir "$k")" $(fragments "$k") ;;
	deb)
		exec sh "$TOP/scripts/deb.sh" "$k" "${SRC:?}" "${BUILD:?}/kernels/$src/config" \
			"${DEB_CONFIG:-$(get "$k" config)}" "${LSMOD:-}" ;;
	esac ;;
*)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
	exit 2 ;;
esac
