# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# hackbench: groups of tasks passing messages over pipes.  make bench runs
# perf's version (perf bench sched messaging, threads); the scoreboard's
# load is rt-tests' hackbench (processes), sized to a task count.
# A benchmark file: sourced by the guest drivers (sis-lib.sh bench_load,
# which describes the functions).

# result 20: hackbench|lower|AMean|Case|Normalized time in seconds|deb perf perf bench sched messaging -p -t -g N -l LOOPS|hackbench|perf

# hackbench_cases: groups per run; full: the ranges of the LKML reports
# (256 CPUs -> 1..16 groups)
hackbench_cases() {
	case $SIZE in
	tiny) echo 1 ;;
	small) printf '%s\n' 1 $((ncpu / 40 + 1)) | sort -nu ;;
	full) powers $(((ncpu * 5 / 2 + 39) / 40)) ;;
	esac
}

hackbench_run() {
	measure perf bench sched messaging -p -t -g "$1" -l "$LOOPS"
	emit hackbench "$1-groups" "$(hackbench_figure "$BENCH_OUT")"
}

# hackbench_figure FILE: perf's total time, seconds
hackbench_figure() {
	${AWK:-awk} '/Total time:/ { print $3 }' "$1"
}

# the host programs its scoreboard job needs in the guest (scripts/score.sh)
hackbench_score_programs='hackbench'

# hackbench_job TASKS: a group is 2 x fds processes, at most 20 fds (its
# default); messages per run stay near MESSAGES, at least 10 per sender
# and receiver (a light load needs many: its pipes take hundreds before a
# writer waits)
hackbench_job() {
	hb_g=$((($1 + 39) / 40))
	hb_fd=$(($1 / (2 * hb_g) > 0 ? $1 / (2 * hb_g) : 1))
	hb_l=$((MESSAGES / (hb_g * hb_fd * hb_fd)))
	[ "$hb_l" -ge 10 ] || hb_l=10
	ntasks=$((2 * hb_g * hb_fd)) cmd="hackbench -p -g $hb_g -f $hb_fd -l $hb_l"
}

hackbench_missing() {
	grep -q '^Time:' "$1" || echo "no Time: line in hackbench's output"
}

# hackbench_work FILE: the messages of the last job
hackbench_work() {
	echo $((hb_g * hb_fd * hb_fd * hb_l))
}
