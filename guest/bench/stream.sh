# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# stream: the lab's sis-stream (tools/sis-stream.c), STREAM's kernels with
# one thread group per LLC.  A benchmark file: sourced by the guest
# drivers (sis-lib.sh bench_load, which describes the functions).

# result 60: stream-10|higher|HMean|Test|Normalized Bandwidth, MB/s|lab sis-stream sis-stream -j LLCs, the lab's own, STREAM's kernels, spin-then-sleep barrier|stream|
# result 60: stream-100|higher|HMean|Test|Normalized Bandwidth, MB/s|lab sis-stream sis-stream -j LLCs, the lab's own, STREAM's kernels, spin-then-sleep barrier|stream|

# stream_cases: the percentage of the arrays' elements per run
stream_cases() {
	case $SIZE in
	tiny|small) echo 10 ;;
	full) echo 10 100 ;;
	esac
}

# stream_elements: STREAM's rule, each array 4x all last-level caches,
# within a quarter of the free memory (three arrays)
stream_elements() {
	case $SIZE in
	tiny) echo 100000; return ;;
	small) echo 1000000; return ;;
	esac
	l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null | tr -d K)
	want=$(( ${l3:-32768} * 1024 * nllc * 4 / 8 ))
	mem=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
	cap=$(( mem * 1024 / 4 / 3 / 8 ))
	[ "$want" -le "$cap" ] || want=$cap
	echo "$want"
}

stream_run() {
	measure sis-stream -n "$(stream_elements)" -t "$1" -j "$nllc"
	for k in Copy Scale Add Triad; do
		emit "stream-$1" "$k" "$(stream_figure "$k" "$BENCH_OUT")"
	done
}

# stream_figure Copy|Scale|Add|Triad FILE: the kernel's best rate, MB/s,
# from a run that validated
stream_figure() {
	${AWK:-awk} -v k="$1:" '$1 == k { v = $2 } /^Solution Validates/ { ok = 1 }
		END { if (ok && v != "") print v }' "$2"
}
