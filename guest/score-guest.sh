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
count), rounds, runtime (seconds per timed run), messages (hackbench
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
the plugin's report numbers, and work is the job's units of work (hackbench messages,
schbench requests, netperf transactions; NA for tbench, which prints
none), so that scripts/score.sh can add the cost figures.
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
[ -r "$D/stats" ] || { say "$D/stats missing: this kernel lacks the SIS statistics patch" >&2; exit 1; }
VARIANTS=$(conf variants) BENCHES=$(conf benches)
JOBS=$(conf jobs) ROUNDS=$(conf rounds) RUNTIME=$(conf runtime)
MESSAGES=$(conf messages) LIMIT=$(conf run_limit)
T=${TMPDIR:-/tmp}/score.$$
mkdir -p "$T"
. "$LAB_DIR/jobs.sh"
export PATH="$T:$PATH"

# variant NAME: every feature of the series off, then those of NAME
# ("a+b") on, in the order named, each with what it refines
variant() {
	features_off
	[ "$1" = tip ] && return 0
	for f in $(echo "$1" | tr + ' '); do
		feature_on "$f"
	done
}

# the variants this kernel can run; each other one is named once
run_variants=
for v in $VARIANTS; do
	lack=
	if [ "$v" != tip ]; then
		for f in $(echo "$v" | tr + ' '); do
			[ -n "$(feature_state "$f")" ] || lack="$lack $f"
		done
	fi
	if [ -n "$lack" ]; then
		say "skipping variant $v: this kernel has no$lack"
		echo "skipped variant $v: the kernel has no$lack" >>"$OUT/notes.txt"
	else
		run_variants="$run_variants $v"
	fi
done
[ -n "$run_variants" ] || { say "this kernel can run none of the variants" >&2; exit 1; }

# measure: run $cmd under sis-stats.sh --audit in its own session, at
# most LIMIT seconds; $fail says why it failed, if it did.  Then, in a
# guest that counts cost (booted with the plugin, or COST_MARK set), run
# it once more between two cost markers, without the statistics: the
# missed-idle audit probes every CPU of the node on each wakeup, through
# the very functions placement uses, and must not be counted as
# placement.  $cost_from and $cost_to are the markers' numbers (NA without
# that run, or when it did not reach its second marker or failed).
measure() {
	rm -f "$T/cmd"
	cost_from=NA cost_to=NA
	# the statistics into $T/out, the command's output into $T/cmd
	# shellcheck disable=SC2086
	run_limited "$LIMIT" "$SYSRQ" "$T/out" "$T/cmd" \
		sis-stats.sh --audit sh -c 'exec "$@" >"$0" 2>&1' "$T/cmd" $cmd
	[ -z "$fail" ] || return 0
	[ -n "${COST_MARK:-}" ] || grep -qw 'lab\.cost=1' /proc/cmdline 2>/dev/null || return 0
	local from
	from=$(cost-mark.sh --next)
	# shellcheck disable=SC2086
	run_limited "$LIMIT" "$SYSRQ" "$T/cost" "$T/cost" \
		cost-mark.sh --around "$T/cost.out" $cmd
	if [ -n "$fail" ]; then
		fail="the cost run: $fail"
	elif [ "$(($(cost-mark.sh --next) - 1))" = "$((from + 1))" ]; then
		cost_from=$from cost_to=$((from + 1))
	fi
}

# emit BENCH LOAD: one row from $T/out (variant, round, tasks, command and
# seconds from the caller): the figures sis-stats.sh printed there as
# KEY=VALUE lines (sis-lib.sh's sis_keys); failed rows carry NA for every
# figure
emit() {
	[ -n "$fail" ] || fail=$(figure "$1")
	# left_llc_pct: wakeups placed in an LLC that is neither the one of
	# prev nor the waker's; llcs_full_pct: audited wakeups whose prev and
	# waker LLCs had no idle CPU, the node one
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(sis_keys "$T/out" wakeups audited probes_per_wakeup idle_hit_pct \
		llc_missed_pct node_missed_pct left_llc_pct llcs_full_pct | tr , ' ')
	if [ -z "$fail" ] && [ "$3" = NA ]; then
		fail="sis-stats printed no figures (no wakeups= line)"
	elif [ -z "$fail" ] && [ "$3" = 0 ]; then
		fail="sis-stats counted no wakeup"
	elif [ -z "$fail" ] && { [ "$4" = 0 ] || [ "$4" = NA ]; }; then
		fail="the missed-idle audit checked no wakeup"
	fi
	if [ -n "$fail" ]; then
		nfail=$((nfail + 1))
		say "$1 $2 $v round $round failed: $fail" >&2
		{
			echo "== NPS$NPS boot $BOOT round $round $v $1 $2 ($cmd): $fail"
			tail -n 20 "$T/cmd" 2>/dev/null || true
		} >>"$OUT/failed-runs.log"
		set -- "$1" "$2" NA NA NA NA NA NA NA NA
		st="failed: $(printf '%s' "$fail" | tr ',\n' '; ')"
		wk=NA cost_from=NA cost_to=NA
	else
		# the units of work of the run the cost figures come from
		st=ok wk=NA
		[ "$cost_from" = NA ] || wk=$(work "$1" "$T/cost.out")
	fi
	echo "$NPS,$v,$1,$2,$round,$BOOT,$ntasks,$cmd,$3,$4,$5,$6,$7,$8,$9,${10},$wk,$cost_from,$cost_to,$secs,$st" >>"$CSV"
}

[ -f "$CSV" ] ||
	echo "nps,variant,load,load_point,round,boot,tasks,command,wakeups,audited,probes_per_wakeup,idle_hit_pct,missed_llc_pct,missed_node_pct,left_llc_pct,llcs_full_pct,work,cost_from,cost_to,seconds,status" >"$CSV"
# the servers of the benchmarks (bench/NAME.sh's NAME_server), stopped
# at the end
# shellcheck disable=SC2086
bench_servers $BENCHES
trap '[ -z "$BENCH_SRVS" ] || kill $BENCH_SRVS 2>/dev/null || true; variant tip; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
bench_servers_up || { say "a benchmark server did not start ($BENCH_PORTS)" >&2; exit 1; }

nvar=$(echo "$run_variants" | wc -w)
total=$((ROUNDS * nvar * $(echo "$JOBS" | wc -w)))
n=0 nfail=0
start=$(date +%s)
round=1
while [ "$round" -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	order=$(printf '%s\n' $run_variants | awk -v r="$round" '{ a[NR] = $0 } END {
		for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }')
	for v in $order; do
		variant "$v"
		for j in $JOBS; do
			b=${j%%:*} load=${j#*:}
			n=$((n + 1))
			el=$(($(date +%s) - start))
			job "$b" "$(tasks "$load")"
			say "[$n/$total] NPS$NPS boot $BOOT round $round/$ROUNDS $v $b $load: $ntasks tasks (${el}s, about $((el * (total - n + 1) / (n > 1 ? n - 1 : 1)))s left)"
			t0=$(date +%s)
			measure
			secs=$(($(date +%s) - t0))
			emit "$b" "$load"
		done
	done
	round=$((round + 1))
done
say "NPS$NPS boot $BOOT done: $n runs in $(($(date +%s) - start))s, $nfail failed"
[ "$nfail" = 0 ] || exit 3
