# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# rt-hackbench: rt-tests' hackbench (processes over pipes), for make
# bench.  A benchmark file: sourced by the guest drivers (sis-lib.sh
# bench_load, which describes the functions).

# result 10: rt-hackbench|lower|AMean|Case|Normalized time in seconds|deb hackbench hackbench -p -g N -l LOOPS|rt-hackbench|hackbench

# rt_hackbench_cases: groups per run, as perf's hackbench (bench/hackbench.sh)
rt_hackbench_cases() {
	hackbench_cases
}

rt_hackbench_run() {
	measure hackbench -p -g "$1" -l "$LOOPS"
	emit rt-hackbench "$1-groups" "$(rt_hackbench_figure "$BENCH_OUT")"
}

# rt_hackbench_figure FILE: its time, seconds
rt_hackbench_figure() {
	${AWK:-awk} '/^Time:/ { print $2 }' "$1"
}
