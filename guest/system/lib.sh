# Sourced by the scenario runners of guest/system (installed as
# /usr/local/lib/imm-system/lib.sh): results to ttyS1, and the FIFO
# handshake with imm-hold.
# shellcheck shell=sh
out=/dev/ttyS1
lib=/usr/local/lib/imm-system
run=/run/imm-system
mkdir -p $run
say() { echo "$*" >$out; }
# verdict NAME true|false WHAT
verdict() {
	if [ "$2" = true ]; then say "IMM-SYS ok $1: $3"; else say "IMM-SYS FAIL $1: $3"; fi
}
# hold FILE: imm-hold on FILE, fds 3 (its stdin) and 4 (its stdout)
hold() {
	rm -f $run/in $run/out
	mkfifo $run/in $run/out
	$lib/imm-hold "$1" <$run/in >$run/out &
	exec 3>$run/in 4<$run/out
	read -r _hold <&4
	[ "$_hold" = held ] || say "IMM-SYS FAIL hold $1: $_hold"
}
# released: let imm-hold write back what it read; print what it says
released() {
	echo go >&3
	read -r _hold <&4
	exec 3>&- 4<&-
	wait
	echo "$_hold"
}
