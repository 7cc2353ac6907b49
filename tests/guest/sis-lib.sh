# Helpers shared by the guest SIS tests; sourced.
F=/sys/kernel/debug/sched/features
D=/sys/kernel/debug/sched/sis

result() {
	echo "RESULT $1 $2 ${3:-}"
}

# stat NAME FILE: the sis.NAME value printed by sis-stats.sh into FILE
stat() {
	awk -v k="sis.$1" '$1 == k { print $2 }' "$2"
}

# hogs CPULIST: one spinning task on each CPU of an "a-b" range, until
# stop_hogs
hogs() {
	c=${1%-*}
	while [ "$c" -le "${1#*-}" ]; do
		sis-load -c "$c" spin 3600 &
		HOGS="${HOGS:-} $!"
		c=$((c + 1))
	done
	sleep 1
}

stop_hogs() {
	kill $HOGS 2>/dev/null
	wait
	HOGS=
}

# llc_of CPU: the "a-b" list of CPU's last level cache
llc_of() {
	idx=$(ls -d /sys/devices/system/cpu/cpu"$1"/cache/index* | sort | tail -n1)
	cat "$idx/shared_cpu_list"
}

# has_feature NAME: the kernel knows the sched feature NAME
has_feature() {
	tr ' ' '\n' <"$F" | grep -qx -e "$1" -e "NO_$1"
}
