# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# rt-hackbench: hackbench with processes instead of threads (rt-tests'
# hackbench -P -p), the groups of bench/hackbench.sh, for make bench.  A
# benchmark file: sourced by the guest drivers (sis-lib.sh bench_load,
# which describes the functions).

# result 10: rt-hackbench|lower|AMean|Case|Normalized time in seconds|deb hackbench hackbench -P -p -g N -f FDS -l LOOPS|rt-hackbench|hackbench

rt_hackbench_cases() {
	hackbench_cases
}

rt_hackbench_run() {
	# shellcheck disable=SC2046
	measure $(hackbench_cmd -P "$1" "$LOOPS")
	emit rt-hackbench "$1-groups" "$(hackbench_figure "$BENCH_OUT")"
}

rt_hackbench_figure() {
	hackbench_figure "$@"
}
