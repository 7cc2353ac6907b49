# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# unixbench: the lab's sis-ubench (tools/sis-ubench.c), UnixBench's
# syscall, pipe, context1, spawn and execl tests.  A benchmark file:
# sourced by the guest drivers (sis-lib.sh bench_load, which describes
# the functions).

# result 70: unixbench-syscall|higher|HMean|Copies|Normalized loops per second|lab sis-ubench sis-ubench, the lab's own, UnixBench's tests (execl, spawn: dynamic)|unixbench|
# result 70: unixbench-pipe|higher|HMean|Copies|Normalized loops per second|lab sis-ubench sis-ubench, the lab's own, UnixBench's tests (execl, spawn: dynamic)|unixbench|
# result 70: unixbench-context1|higher|HMean|Copies|Normalized loops per second|lab sis-ubench sis-ubench, the lab's own, UnixBench's tests (execl, spawn: dynamic)|unixbench|
# result 70: unixbench-spawn|higher|HMean|Copies|Normalized loops per second|lab sis-ubench sis-ubench, the lab's own, UnixBench's tests (execl, spawn: dynamic)|unixbench|
# result 70: unixbench-execl|higher|HMean|Copies|Normalized loops per second|lab sis-ubench sis-ubench, the lab's own, UnixBench's tests (execl, spawn: dynamic)|unixbench|

# unixbench_cases: TEST:COPIES
unixbench_cases() {
	for t in syscall pipe context1 spawn execl; do
		case $SIZE in
		tiny) echo "$t:1" ;;
		small) echo "$t:1 $t:$((ncpu / 4))" ;;
		full) echo "$t:1 $t:$((ncpu * 2))" ;;
		esac
	done
}

unixbench_run() {
	measure sis-ubench -c "${1#*:}" -t "$RUNTIME" "${1%%:*}"
	emit "unixbench-${1%%:*}" "${1#*:}" "$(unixbench_figure "$BENCH_OUT")"
}

# unixbench_figure FILE: the loops per second of sis-ubench's result line
unixbench_figure() {
	${AWK:-awk} '/ lps / { v = $(NF - 5) } END { if (v != "") print v }' "$1"
}
