#!/bin/sh
# The benchmark matrix, run inside the guest by scripts/bench.sh (or on a
# real machine by "scripts/bench.sh --host").  For each round, every
# variant is switched on at run time (sched_feat) and every benchmark job
# runs once; the variant order rotates each round so drift spreads evenly.
# Each result is appended to $OUT/results.csv as soon as its run ends, so an
# interrupted run keeps what finished.  Afterwards the cases where a variant
# regressed significantly are run VERIFY more times (kind "verify", rounds
# 1, 2...; the matrix's runs are kind "run") for tip and that variant, for
# the report's [Verification Run] rows.
#
# KNOBS ("NAME=VALUE,VALUE... ...", e.g. llc_balancing=0,1) adds a
# dimension: every variant runs with each combination of the values of the
# sched debugfs knobs named ($LAB_SCHED_DEBUGFS/NAME, a directory
# meaning its "enabled" file), as "VARIANT@NAME=VALUE" (tip@llc_balancing=0);
# tip at the first value of each knob is then the base the re-runs compare
# with.  A knob, a value or a variant this kernel lacks is refused before
# any run: one line on stderr and in $OUT/refused, exit status 2, no knob
# left changed.
#
# usage: bench-guest.sh [CONF] | --parse BENCH ARG... FILE
# CONF (default $OUT/bench.conf) is the run configuration scripts/bench.sh
# wrote and checked, one KEY=VALUE a line: variants, knobs, benches, size
# (tiny|small|full), rounds, runtime and loops (seconds per timed run and
# hackbench loops; empty: SIZE's), verify, run_limit (seconds; empty: 300
# + 20 x runtime), audit (1: sis-stats.sh --audit, the missed-idle rates)
# and netperf_port.  The results keep it.  Environment: OUT (default
# $LAB_DIR/out), LAB_DIR (default /lab: where sis-lib.sh, bench-stats.awk,
# bench-registry.sh and the benchmarks, bench/NAME.sh, live),
# LAB_SCHED_DEBUGFS (sis-lib.sh: the sched debugfs, default
# /sys/kernel/debug/sched, where the features, the SIS statistics and the
# knobs are), BENCH_SYSRQ (the sysrq trigger, for the
# lab's tests).
LAB_DIR=${LAB_DIR:-/lab}
. "$LAB_DIR/sis-lib.sh"
OUT=${OUT:-$LAB_DIR/out}
SCHED=$LAB_SCHED_DEBUGFS
AWK="awk"
command -v mawk >/dev/null && AWK=mawk

# Each benchmark is a file, bench/NAME.sh (sis-lib.sh's bench_load lists
# what it defines): its cases, its run, its figure parser and its server.
bench_load

# sis_figures FILE: the figures sis-stats.sh printed into FILE as KEY=VALUE
# lines, as CSV cells: those of figures.txt with a bench column (wakeups,
# probes per wakeup, idle-hit and missed-idle rates, SIS_SHORT's, SIS_CORE's
# and SIS_NODE's figures), NA for what it did not print (sis-lib.sh's
# figures, sis_keys)
FIG_KEYS=$(figures bench | cut -d' ' -f1 | tr '\n' ' ')
FIG_COLS=$(figures bench | cut -d' ' -f2 | tr '\n' ',' | sed 's/,$//')
sis_figures() {
	# shellcheck disable=SC2086
	sis_keys "$1" $FIG_KEYS
}

# --parse BENCH ARG... FILE: print the figure BENCH's NAME_figure finds in
# FILE (for the lab's tests), then exit
if [ "${1:-}" = --parse ]; then
	[ "${2:-}" != sis ] || { sis_figures "$3"; exit; }
	f=$(bench_fn "${2:-}" figure)
	[ -n "${2:-}" ] && [ -n "$f" ] ||
		{ echo "bench: --parse BENCH|sis ARG... FILE (BENCH: $(echo $(ls "$LAB_DIR/bench" | sed -n 's/\.sh$//p')))" >&2; exit 2; }
	shift 2
	$f "$@"
	exit
fi
CONF=${1:-$OUT/bench.conf}
[ -r "$CONF" ] || { echo "bench: no run configuration at $CONF" >&2; exit 2; }
# scripts/bench.sh writes and checks every key; a file without one is
# not its own
for k in variants benches size rounds verify netperf_port; do
	[ -n "$(conf $k)" ] || { echo "bench: $CONF has no $k=" >&2; exit 2; }
done
VARIANTS=$(conf variants) KNOBS=$(conf knobs) BENCHES=$(conf benches)
SIZE=$(conf size) ROUNDS=$(conf rounds) RUNTIME=$(conf runtime)
LOOPS=$(conf loops) VERIFY=$(conf verify) RUN_LIMIT=$(conf run_limit)
BENCH_AUDIT=$(conf audit) NETPERF_PORT=$(conf netperf_port)
CSV=$OUT/results.csv
T=${TMPDIR:-/tmp}/bench.$$
mkdir -p "$T" "$OUT"
ncpu=$(nproc)
nllc=$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)
[ "$nllc" -gt 0 ] || nllc=1
nnode=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)

# what SIZE means for a run's length and hackbench's loops
case $SIZE in
tiny) RUNTIME=${RUNTIME:-1} LOOPS=${LOOPS:-10} ;;
small) RUNTIME=${RUNTIME:-3} LOOPS=${LOOPS:-100} ;;
full) RUNTIME=${RUNTIME:-30} LOOPS=${LOOPS:-10000} ;;
*) echo "bench: unknown size '$SIZE' in $CONF (tiny, small or full)" >&2; exit 2 ;;
esac

# powers MAX: 1 2 4 ... up to MAX
powers() {
	p=1
	while [ "$p" -le "$1" ]; do
		echo "$p"
		p=$((p * 2))
	done
}

# cases BENCH: the parameters a benchmark runs with (its NAME_cases);
# sizes scale with the CPU count
cases() {
	f=$(bench_fn "$1" cases)
	[ -z "$f" ] || $f
}

# emit RESULT CASE VALUE: one result row, into $T/rows (run_job appends
# a job's rows to the results at once) (job, run label, round and kind
# from the caller's $job, $v, $round and $kind; SIS figures, $fail and the
# cost markers from the last measure, engine.sh's).  A run that failed,
# or printed no figure or one its benchmark $b's NAME_check refuses
# (tbench's 0 before its warm-up ended), is recorded as failed with its
# reason in the status column, never as a value.
emit() {
	st=ok val=$3
	if [ -n "$fail" ]; then
		st="failed: $fail"
	elif [ -z "$val" ]; then
		st="failed: no figure in the output ($(tail -n1 "$BENCH_OUT" | cut -c1-80))"
	else
		f=$(bench_fn "$b" check) why=
		[ -z "$f" ] || why=$($f "$val")
		[ -z "$why" ] || st="failed: $why"
	fi
	[ "$st" = ok ] || { val=; nfail=$((nfail + 1)); echo "bench: $1/$2 $v round $round $st" >&2; }
	echo "$1,$2,$v,$round,$kind,${val:-NA},$(sis_figures "$T/out"),$job,$(printf '%s' "$st" | tr ',\n"' "; '"),$cost_from,$cost_to" >>"$T/rows"
	msg="$msg $1/$2=${val:-FAILED}"
}

# The time a run may take before it counts as hung: RUN_LIMIT seconds, or
# 300 plus 20 times the timed length of a run (hackbench's loops under
# TCG take minutes at 128 CPUs, but not tens of them).  A hung run gets
# the stacks of all CPUs and the blocked tasks written to the console
# (sysrq l and w; BENCH_SYSRQ names the trigger file) and is killed.
LIMIT=${RUN_LIMIT:-$((300 + 20 * RUNTIME))}
SYSRQ=${BENCH_SYSRQ:-/proc/sysrq-trigger}

# the engine (engine.sh): the audit as the configuration says; with the
# cost plugin an audited run is run once more for its cost figures, as
# make score's
AUDIT=${BENCH_AUDIT:-0} COST_RERUN=keep
. "$LAB_DIR/engine.sh"

# run_job JOB: run one benchmark job ("bench:param", bench/NAME.sh's
# NAME_run) and record its rows
run_job() {
	b=${1%%:*}
	msg=
	rm -f "$T/rows"
	"$(bench_fn "$b" run)" "${1#*:}"
	# the job's rows in one write: a boot stopped in the middle of a job
	# leaves none of them, and a resumption runs it again whole
	[ ! -f "$T/rows" ] || cat "$T/rows" >>"$CSV"
	echo "bench:   $v round $round:$msg"
}

jobs=
for b in $BENCHES; do
	for p in $(cases "$b") ; do
		jobs="$jobs $b:$p"
	done
done
[ -n "$jobs" ] || { echo "bench: no benchmark of '$BENCHES' has a case at size $SIZE" >&2; exit 2; }

# refuse MESSAGE: a request this kernel cannot serve, found before any
# run: one line on stderr and in $OUT/refused (which bench.sh prints),
# every feature and knob as it was, exit status 2
refuse() {
	echo "bench-guest: error: $1" >&2
	echo "$1" >"$OUT/refused"
	variant tip 2>/dev/null
	restore_knobs
	rm -rf "$T"
	exit 2
}

for v in $VARIANTS; do
	variant "$v" || refuse "this kernel lacks a feature of variant $v"
done
variant tip
knob_labels "$VARIANTS" "$KNOBS"

# sched_cache: cache-aware scheduling (CONFIG_SCHED_CACHE) on this kernel
sched_cache() {
	if [ -f "$SCHED/llc_balancing/enabled" ]; then
		echo "CONFIG_SCHED_CACHE=y, llc_balancing/enabled $(cat "$SCHED/llc_balancing/enabled")"
	elif [ -d "$SCHED" ]; then
		echo "CONFIG_SCHED_CACHE off (no $SCHED/llc_balancing)"
	else
		echo "not known (no $SCHED)"
	fi
}

# what only the machine knows; the host wrote the rest of system.txt
# (machine, nps, emulation, knobs, audit).  The base kernel's boot into
# the same results (variants=base) only adds its kernel.
if [ "$VARIANTS" = base ]; then
	echo "kernel of $VARIANTS: $(uname -r)" >>"$OUT/system.txt"
	echo "sched_cache of $VARIANTS: $(sched_cache)" >>"$OUT/system.txt"
else
	cat >>"$OUT/system.txt" <<EOT
kernel: $(uname -r)
cpu: $($AWK -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
cpus: $ncpu
llcs: $nllc
nodes: $nnode
size: $SIZE, runtime ${RUNTIME}s per timed run, hackbench loops $LOOPS
sched_cache: $(sched_cache)
EOT
fi
[ -f "$CSV" ] || echo "bench,case,variant,round,kind,value,$FIG_COLS,job,status,cost_from,cost_to" >"$CSV"
nfail=0
# the servers of the benchmarks (NAME_server), stopped at the end with
# every knob's old value back
ENGINE_EXIT=restore_knobs
# shellcheck disable=SC2086
engine_start $BENCHES ||
	{ echo "bench: a benchmark server did not start (port taken? $BENCH_PORTS)" >&2; exit 1; }

# bench_as LABEL: the run label's variant and knob values on, named for the rows
bench_as() {
	v=$1
	run_as "$v"
}

# bench_one JOB: a matrix run of the job
bench_one() {
	job=$1
	echo "bench: [$n/$total] round $round/$ROUNDS $v $job $eta"
	run_job "$job"
}

# a resumed boot (scripts/bench.sh --resume) runs only the cells (a job
# of a run label in a round, of its kind) without their rows
cells_done "$CSV" cost_to "variant job round kind"
[ ! -s "$T/done" ] || echo "bench: resumed: $(grep -c '' "$T/done") runs done before"
kind=run start=$(date +%s)
sweep "$ROUNDS" bench_as bench_one "$LABELS" "$jobs"
runs=$n

# re-run the significant regressions: tip (BASE_LABEL) and the variant,
# alternating
if [ "$VERIFY" -gt 0 ] && [ "$ROUNDS" -ge 2 ]; then
	sh "$LAB_DIR/bench-registry.sh" "$LAB_DIR/bench" >"$T/registry" ||
		{ echo "bench: no benchmark registry" >&2; exit 1; }
	$AWK -f "$LAB_DIR/bench-stats.awk" -v mode=outliers -v base="$BASE_LABEL" \
		"$T/registry" "$CSV" |
		sort -u >"$T/outliers"
	echo "bench: $(wc -l <"$T/outliers") significant regressions to verify"
	for job in $(cut -d' ' -f1 "$T/outliers" | sort -u); do
		i=1
		while [ "$i" -le "$VERIFY" ]; do
			round=$i kind=verify
			for v in $BASE_LABEL $($AWK -v j="$job" '$1 == j { print $2 }' "$T/outliers"); do
				! cell_done "$v" "$job" "$i" verify || continue
				run_as "$v"
				echo "bench: verify $job $v (run $i of $VERIFY)"
				run_job "$job"
			done
			i=$((i + 1))
		done
	done
fi
echo "bench: done, $runs runs and their verification runs in $(($(date +%s) - start))s, $nfail results failed"
# make bench tells failed runs from a guest that stopped early by this
[ "$nfail" = 0 ] || exit 3
