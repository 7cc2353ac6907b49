#!/bin/sh
# The SIS scoreboard's load sweep, run inside the guest by scripts/score.sh
# (one boot per NPS mode).  For each round, each variant (every feature of
# the series off, then the variant's on) runs every job (a benchmark at a
# load point) once under sis-stats.sh --audit; the variant order rotates
# each round so that drift spreads evenly.  Each run appends one row to
# $OUT/score.csv as soon as it ends; a run that fails is recorded as
# failed with its reason, never with figures.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--help] NPS BOOT

Runs the sweep that \$OUT/score.conf (written by scripts/score.sh) asks
for: variants (the series' features this kernel has all off, then the
variant's on: sis-lib.sh's features_off and feature_on), benches
(whose servers start), jobs (BENCH:LOAD, LOAD a fraction of the CPU
count), knobs (sched debugfs knobs, NAME=VALUE[,VALUE...]: each
variant runs at each combination, labelled VARIANT@NAME=VALUE, as in
make bench), rounds, runtime (seconds per timed run), messages (hackbench
messages per run) and run_limit (seconds before a run counts as hung:
the guest prints every CPU's stack and the blocked tasks, sysrq l and w,
and kills it).  NPS and BOOT label the rows.
A variant naming a feature this kernel lacks is skipped with one line, on
the console and in \$OUT/notes.txt.  A failed run's reason goes into its
row, and the end of its output into \$OUT/failed-runs.log.  Exits 3 when
runs failed.
With the cost plugin, each job runs a second time without the
statistics, between two cost markers (cost-mark.sh: a system call no
benchmark makes, on which the plugin reports its counts; the audit's
probes would count as placement); the row's cost_from and cost_to are
the plugin's report numbers, and work is that run's units of work
(hackbench messages, schbench requests, netperf transactions; NA for
tbench, which prints none), so that scripts/score.sh can add the cost
figures; without the plugin, work is the measured run's.
OUT defaults to \$LAB_DIR/out, LAB_DIR to /lab.
EOT
}
case ${1:-} in
--help) usage; exit 0 ;;
-*) usage >&2; exit 2 ;;
esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
NPS=$1 BOOT=$2
LAB_DIR=${LAB_DIR:-/lab}
OUT=${OUT:-$LAB_DIR/out}
. "$LAB_DIR/sis-lib.sh"
CONF=$OUT/score.conf
CSV=$OUT/score.csv
SYSRQ=${SCORE_SYSRQ:-/proc/sysrq-trigger}
# not netperf's 12865, so a running netserver does not get in the way
NETPERF_PORT=12875

say() {
	echo "score: $*"
}

[ -r "$CONF" ] || { say "no run configuration at $CONF" >&2; exit 1; }
[ -r "$SIS_DEBUGFS/stats" ] || { say "$SIS_DEBUGFS/stats missing: this kernel lacks the SIS statistics patch" >&2; exit 1; }
VARIANTS=$(conf variants) KNOBS=$(conf knobs) BENCHES=$(conf benches)
JOBS=$(conf jobs) ROUNDS=$(conf rounds) RUNTIME=$(conf runtime)
MESSAGES=$(conf messages) LIMIT=$(conf run_limit)
T=${TMPDIR:-/tmp}/score.$$
mkdir -p "$T"
. "$LAB_DIR/jobs.sh"
export PATH="$T:$PATH"
# the engine (engine.sh): every run audited, and with the cost plugin run
# once more for the cost figures
AUDIT=1 COST_RERUN=fail
. "$LAB_DIR/engine.sh"

# the variants this kernel can run; each other one is named once
run_variants=
for v in $VARIANTS; do
	lack=$(variant_lacks "$v")
	if [ -n "$lack" ]; then
		say "skipping variant $v: this kernel has no$lack"
		echo "skipped variant $v: the kernel has no$lack" >>"$OUT/notes.txt"
	else
		run_variants="$run_variants $v"
	fi
done
[ -n "$run_variants" ] || { say "this kernel can run none of the variants" >&2; exit 1; }

# refuse MESSAGE: a knob or value this kernel lacks, found before any run:
# one line on stderr and in $OUT/refused (which bench.sh prints), every
# knob as it was, exit status 2
refuse() {
	say "error: $1" >&2
	echo "$1" >"$OUT/refused"
	restore_knobs
	rm -rf "$T"
	exit 2
}
# the run labels: each variant at each combination of the knobs' values
# (KNOBS, engine.sh knob_labels), tip@llc_balancing=0 for instance
# shellcheck disable=SC2086
knob_labels "$run_variants" "$KNOBS"

# the figures of figures.txt with a score column: the keys read, the
# columns written (probes per wakeup, idle-hit and missed-idle rates,
# left LLC, LLCs full: left_llc_pct is the share of wakeups placed in an
# LLC that is neither the one of prev nor the waker's, llcs_full_pct that
# of audited wakeups whose prev and waker LLCs had no idle CPU, the node
# one)
FIG_KEYS=$(figures score | cut -d' ' -f1 | tr '\n' ' ')
FIG_COLS=$(figures score | cut -d' ' -f2 | tr '\n' ',' | sed 's/,$//')

# emit BENCH LOAD: one row from $T/out (variant, round, tasks, command and
# seconds from the caller): wakeups, audited and the figures sis-stats.sh
# printed there as KEY=VALUE lines (sis-lib.sh's sis_keys); failed rows
# carry NA for every figure
emit() {
	[ -n "$fail" ] || fail=$(figure "$1")
	# shellcheck disable=SC2086
	figs=$(sis_keys "$T/out" wakeups audited $FIG_KEYS)
	wakeups=${figs%%,*} audited=${figs#*,}
	audited=${audited%%,*}
	if [ -z "$fail" ] && [ "$wakeups" = NA ]; then
		fail="sis-stats printed no figures (no wakeups= line)"
	elif [ -z "$fail" ] && [ "$wakeups" = 0 ]; then
		fail="sis-stats counted no wakeup"
	elif [ -z "$fail" ] && { [ "$audited" = 0 ] || [ "$audited" = NA ]; }; then
		fail="the missed-idle audit checked no wakeup"
	fi
	if [ -n "$fail" ]; then
		nfail=$((nfail + 1))
		say "$1 $2 $v round $round failed: $fail" >&2
		{
			echo "== NPS$NPS boot $BOOT round $round $v $1 $2 ($cmd): $fail"
			tail -n 20 "$T/cmd" 2>/dev/null || true
		} >>"$OUT/failed-runs.log"
		figs=$(echo "$figs" | sed 's/[^,]*/NA/g')
		st="failed: $(printf '%s' "$fail" | tr ',\n"' "; '")"
		wk=NA cost_from=NA cost_to=NA
	else
		# the units of work of the run the cost figures come from, or
		# without the plugin of the run measured
		st=ok wk=$(work "$1" "$cost_out")
	fi
	echo "$NPS,$v,$1,$2,$round,$BOOT,$ntasks,$cmd,$figs,$wk,$cost_from,$cost_to,$secs,$st" >>"$CSV"
}

[ -f "$CSV" ] ||
	echo "nps,variant,load,load_point,round,boot,tasks,command,wakeups,audited,$FIG_COLS,work,cost_from,cost_to,seconds,status" >"$CSV"
# the servers of the benchmarks (bench/NAME.sh's NAME_server), stopped at
# the end with every knob's old value back
ENGINE_EXIT=restore_knobs
# shellcheck disable=SC2086
engine_start $BENCHES || { say "a benchmark server did not start ($BENCH_PORTS)" >&2; exit 1; }

# score_run BENCH:LOAD: one run of the job, its row
score_run() {
	b=${1%%:*} load=${1#*:}
	job "$b" "$(tasks "$load")"
	say "[$n/$total] NPS$NPS boot $BOOT round $round/$ROUNDS $v $b $load: $ntasks tasks $eta"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	measure $cmd
	secs=$(($(date +%s) - t0))
	emit "$b" "$load"
}

# set_variant LABEL: the run label's variant and knob values on, named
# for the rows
set_variant() {
	v=$1
	run_as "$v"
}

nfail=0
# a resumed boot (scripts/bench.sh --resume) runs only the cells without
# a complete row of this NPS mode and boot
cells_done "$CSV" status "variant load:load_point round -kind" "nps=$NPS" "boot=$BOOT"
[ ! -s "$T/done" ] || say "NPS$NPS boot $BOOT resumed: $(grep -c '' "$T/done") runs done before"
# shellcheck disable=SC2086
sweep "$ROUNDS" set_variant score_run "$LABELS" "$JOBS"
say "NPS$NPS boot $BOOT done: $n runs in ${sweep_secs}s, $nfail failed"
[ "$nfail" = 0 ] || exit 3
