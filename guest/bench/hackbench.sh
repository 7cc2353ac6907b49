# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# hackbench: groups of threads passing messages over pipes, rt-tests'
# hackbench -T -p, the work of the hardware reports' perf bench sched
# messaging -p -t (both are the same hackbench; rt-tests' takes -f, which
# perf 6.1's lacks).  One command for make bench and make score: a group
# is 40 tasks on 256 CPUs, the reports' group, and scales with the CPU
# count as the emulated shapes scale the LLC (20 on 128, 10 on 64), so
# that N groups load every shape as N groups loaded the reports' machine.
# A benchmark file: sourced by the guest drivers (sis-lib.sh bench_load,
# which describes the functions).

# result 20: hackbench|lower|AMean|Case|Normalized time in seconds|deb hackbench hackbench -T -p -g N -f FDS -l LOOPS|hackbench|hackbench

# hackbench_fds: senders (and receivers) per group, 20 per 256 CPUs
hackbench_fds() {
	echo $((ncpu * 20 / 256 > 0 ? ncpu * 20 / 256 : 1))
}

# hackbench_cmd MODE GROUPS LOOPS: the command line, MODE -T (threads)
# or -P (processes, rt-hackbench)
hackbench_cmd() {
	echo "hackbench $1 -p -g $2 -f $(hackbench_fds) -l $3"
}

# hackbench_cases: groups per run; full: the reports' 1..16 groups
hackbench_cases() {
	case $SIZE in
	tiny) echo 1 ;;
	small) echo 1 8 ;;
	full) powers 16 ;;
	esac
}

hackbench_run() {
	# shellcheck disable=SC2046
	measure $(hackbench_cmd -T "$1" "$LOOPS")
	emit hackbench "$1-groups" "$(hackbench_figure "$BENCH_OUT")"
}

# hackbench_figure FILE: its time, seconds
hackbench_figure() {
	${AWK:-awk} '/^Time:/ { print $2 }' "$1"
}

# the host programs its scoreboard job needs in the guest (scripts/score.sh)
hackbench_score_programs='hackbench'

# hackbench_job TASKS: the groups nearest TASKS tasks (one at least);
# messages per run stay near MESSAGES, at least 10 loops (a light load
# needs many: its pipes take hundreds before a writer waits)
hackbench_job() {
	hb_f=$(hackbench_fds)
	hb_g=$((($1 + hb_f) / (2 * hb_f)))
	[ "$hb_g" -ge 1 ] || hb_g=1
	hb_l=$((MESSAGES / (hb_g * hb_f * hb_f)))
	[ "$hb_l" -ge 10 ] || hb_l=10
	ntasks=$((2 * hb_g * hb_f)) cmd=$(hackbench_cmd -T "$hb_g" "$hb_l")
}

hackbench_missing() {
	grep -q '^Time:' "$1" || echo "no Time: line in hackbench's output"
}

# hackbench_work FILE: the messages of the last job
hackbench_work() {
	echo $((hb_g * hb_f * hb_f * hb_l))
}
