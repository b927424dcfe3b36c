# Sourced by the guest workloads: the columns of /run/plan, mounted at
# /mnt/NAME.  Nothing here knows a filesystem by name.
out=/dev/ttyS1
log() { echo "$*" >$out; }

columns() { awk '{ print $1 }' /run/plan; }

# plan NAME: set kind type dev opts ltype ldev lopts from the plan line
plan() {
	# shellcheck disable=SC2046 # the plan line, one field per word
	set -- $(awk -v n="$1" '$1 == n' /run/plan)
	[ $# -ge 5 ] || { echo "no plan for $1" >&2; return 1; }
	kind=$2 type=$3 dev=$4 opts=$5 ltype=${6:--} ldev=${7:--} lopts=${8:--}
}

# mnt TYPE DEV OPTS DIR: mount and check that the mount has TYPE
mnt() {
	mkdir -p "$4"
	if [ "$3" = - ]; then
		mount -t "$1" "$2" "$4"
	else
		mount -t "$1" -o "$3" "$2" "$4"
	fi || return 1
	_t=$(awk -v m="$4" '$2 == m { t = $3 } END { print t }' /proc/mounts)
	[ "$_t" = "$1" ] && return 0
	echo "$4 is $_t, not $1" >&2
	umount "$4"
	return 1
}

# mount_column NAME [EXTRA_OPTS]: mount column NAME at /mnt/NAME.  A
# stacked column's layers live on its lower filesystem at /mnt/.NAME.
mount_column() {
	plan "$1" || return 1
	_o=$opts
	[ -n "${2:-}" ] && { [ "$_o" = - ] && _o=$2 || _o=$_o,$2; }
	if [ "$kind" != stacked ]; then
		mnt "$type" "$dev" "$_o" "/mnt/$1"
		return
	fi
	_b=/mnt/.$1
	mnt "$ltype" "$ldev" "$lopts" "$_b" || return 1
	mkdir -p "$_b/lower" "$_b/upper" "$_b/work"
	_s=lowerdir=$_b/lower,upperdir=$_b/upper,workdir=$_b/work
	[ "$_o" = - ] || _s=$_s,$_o
	mnt "$type" "$dev" "$_s" "/mnt/$1" && return 0
	umount "$_b"
	return 1
}

umount_column() {
	plan "$1" || return 1
	umount "/mnt/$1" || return 1
	[ "$kind" != stacked ] || umount "/mnt/.$1"
}
