# The scoreboard's jobs: a benchmark at a load point, as a command line,
# its figure check and its units of work, each from the benchmark's file
# bench/NAME.sh (sis-lib.sh's bench_load: NAME_job, NAME_missing,
# NAME_work); sourced by score-guest.sh and cost-jobs.sh after
# sis-lib.sh or with LAB_DIR set, and after they set T (a scratch
# directory, which the caller adds to PATH), RUNTIME (seconds per timed
# run), MESSAGES (hackbench messages per run) and NETPERF_PORT.
ncpu=$(nproc)
command -v bench_load >/dev/null 2>&1 || . "$LAB_DIR/sis-lib.sh"
bench_load

# tasks FRACTION: that fraction ("1/16", "2") of the CPU count, at least 1
tasks() {
	echo "$1" | awk -F/ -v n="$ncpu" '{ t = int(n * $1 / ($2 ? $2 : 1) + 0.5); print (t > 0 ? t : 1) }'
}

# job BENCH TASKS: set $cmd (the command line) and $ntasks (the tasks it
# runs, which want a CPU each) for about TASKS tasks of BENCH
job() {
	cmd='' ntasks=''
	_jf=$(bench_fn "$1" job)
	[ -z "$_jf" ] || $_jf "$2"
}

# figure BENCH: why the output in $T/cmd lacks BENCH's result, if it does
# (a load that did not run to its end measures something else)
figure() {
	_jf=$(bench_fn "$1" missing)
	[ -z "$_jf" ] || $_jf "$T/cmd"
}

# work BENCH [FILE]: the units of work the run whose output is in FILE
# (default $T/cmd) did, or NA
work() {
	_jf=$(bench_fn "$1" work)
	if [ -n "$_jf" ]; then
		$_jf "${2:-$T/cmd}"
	else
		echo NA
	fi
}
