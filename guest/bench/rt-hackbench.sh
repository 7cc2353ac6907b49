# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# rt-hackbench: rt-tests' hackbench (processes over pipes), for make
# bench.  A benchmark file: sourced by the guest drivers (sis-lib.sh
# bench_load, which describes the functions).

# rt_hackbench_cases: groups per run, as perf's hackbench
rt_hackbench_cases() {
	case $SIZE in
	tiny) echo 1 ;;
	small) printf '%s\n' 1 $((ncpu / 40 + 1)) | sort -nu ;;
	full) powers $(((ncpu * 5 / 2 + 39) / 40)) ;;
	esac
}

rt_hackbench_run() {
	measure hackbench -p -g "$1" -l "$LOOPS"
	emit rt-hackbench "$1-groups" "$(rt_hackbench_figure "$BENCH_OUT")"
}

# rt_hackbench_figure FILE: its time, seconds
rt_hackbench_figure() {
	${AWK:-awk} '/^Time:/ { print $2 }' "$1"
}
