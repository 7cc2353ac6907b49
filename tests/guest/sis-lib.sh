# Helpers shared by the guest tests; sourced.
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

# feature_state NAME: NAME or NO_NAME as the features file shows it,
# nothing if the kernel lacks the feature
feature_state() {
	tr ' ' '\n' <"$F" | grep -x -e "$1" -e "NO_$1"
}

# require_feature NAME...: report a failure and end the test script unless
# the kernel has every feature
require_feature() {
	for f in "$@"; do
		if [ -z "$(feature_state "$f")" ]; then
			result "$(echo "$f" | tr 'A-Z_' 'a-z-')" FAIL "no $f in $F"
			exit 0
		fi
	done
}
