# shellcheck shell=sh disable=SC2154
# The run engine of the guest drivers, bench-guest.sh (make bench) and
# score-guest.sh (make score): variants switched at run time, their
# rotation over rounds, the benchmarks' servers, and measured runs (a time
# limit, the SIS statistics around them, cost markers).  Sourced after
# sis-lib.sh; the driver sets first:
#   T        a scratch directory (removed at the end)
#   LIMIT    seconds before a run counts as hung; SYSRQ the sysrq trigger
#   AUDIT    1: the statistics with the missed-idle audit (sis-stats.sh
#            --audit), 0: without
#   COST_RERUN  with the audit, each run once more between two cost
#            markers without the statistics, when the guest counts cost:
#            "fail", a failed second run fails the run (make score, whose
#            rows are the cost figures' too); "keep", it leaves the run's
#            figures and only its cost NA (make bench); 0: no cost figures
#            for audited runs
# A run's own output goes to $BENCH_OUT ($T/cmd), the statistics' to
# $T/out.
BENCH_OUT=$T/cmd

# variant NAME: every feature of the series off, then those of NAME
# ("a+b") on, in the order named, each with what it refines (sis-lib.sh
# feature_on); tip (and base, the unpatched kernel) has them all off.
# Fails when this kernel lacks one of them.
variant() {
	features_off
	case $1 in tip|base) return 0 ;; esac
	[ -z "$(variant_lacks "$1")" ] || return 1
	for _vf in $(echo "$1" | tr + ' '); do
		feature_on "$_vf" || return 1
	done
}

# variant_lacks NAME: the features of variant NAME this kernel lacks
variant_lacks() {
	case $1 in tip|base) return 0 ;; esac
	for _vf in $(echo "$1" | tr + ' '); do
		[ -n "$(feature_state "$_vf")" ] || printf ' %s' "$_vf"
	done
}

# rotation ROUND LABEL...: the labels, the first ROUND - 1 moved to the
# end, so that over the rounds each runs first as often (drift spreads)
rotation() {
	_rr=$1
	shift
	printf '%s\n' "$@" | awk -v r="$_rr" '{ a[NR] = $0 } END {
		for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }'
}

# engine_start BENCH...: start the benchmarks' servers; at exit stop them,
# switch every feature off, run the driver's $ENGINE_EXIT and remove $T.
# Fails when a server did not start ($BENCH_PORTS names their ports).
engine_start() {
	bench_servers "$@"
	# each step of its own: the driver may run under set -e, and a server
	# that died makes kill fail
	trap '[ -z "$BENCH_SRVS" ] || kill $BENCH_SRVS 2>/dev/null || true
		variant tip || true; ${ENGINE_EXIT:-:} || true; rm -rf "$T"' EXIT
	trap 'exit 130' INT TERM
	bench_servers_up
}

# cells_done CSV LAST KEY-COLUMNS [COL=VALUE...]: the cells of a resumed
# boot that have a complete result in CSV, as $T/done, one "LABEL JOB
# ROUND KIND" a line (cell_done): the rows that match every COL=VALUE and
# have their columns up to LAST, whose status is ok or failed.
# KEY-COLUMNS names the label, job, round and kind columns ("-kind" for
# a constant "run"; JOB "A:B" joins two columns).  A boot that is no
# resumption finds none.  scripts/bench.sh drops a line cut short before
# it boots the guest again.
cells_done() {
	_csv=$1 _last=$2 _keys=$3
	shift 3
	: >"$T/done"
	[ -s "$_csv" ] || return 0
	awk -F, -v keys="$_keys" -v last="$_last" -v match_="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; nk = split(keys, k, " "); nm = split(match_, m, " "); next }
		function col(name, _p) {
			if (name == "-kind") return "run"
			if (index(name, ":")) { split(name, _p, ":"); return $c[_p[1]] ":" $c[_p[2]] }
			return $c[name]
		}
		NF < c[last] || $c["status"] !~ /^(ok|failed: )/ { next }
		{
			for (i = 1; i <= nm; i++) { split(m[i], kv, "="); if ($c[kv[1]] != kv[2]) next }
			print col(k[1]), col(k[2]), col(k[3]), col(k[4])
		}' "$_csv" | sort -u >"$T/done"
}

# cell_done LABEL JOB ROUND KIND: the cell has a result from an earlier
# boot of this run (cells_done)
cell_done() {
	[ -s "$T/done" ] && grep -qxF "$1 $2 $3 $4" "$T/done"
}

# sweep ROUNDS SET RUN LABELS JOBS: for each round, each label in that
# round's rotation is switched on with SET LABEL, then each job runs
# with RUN JOB, but for the cells done (cell_done, kind run) in an earlier
# boot of a resumed run.  RUN sees $round, $n (this run's number in the
# whole sweep), $total and $eta ("(ELAPSEDs, about REMAININGs left)").
sweep() {
	_rounds=$1 _set=$2 _run=$3 _labels=$4 _jobs=$5
	total=$((_rounds * $(echo $_labels | wc -w) * $(echo $_jobs | wc -w)))
	_left=$(grep -c ' run$' "$T/done" 2>/dev/null || true)
	n=0 round=1 _ran=0 _left=$((total - ${_left:-0}))
	_start=$(date +%s)
	while [ "$round" -le "$_rounds" ]; do
		# shellcheck disable=SC2086
		for _l in $(rotation "$round" $_labels); do
			$_set "$_l"
			for _j in $_jobs; do
				n=$((n + 1))
				! cell_done "$_l" "$_j" "$round" run || continue
				_el=$(($(date +%s) - _start))
				eta="(${_el}s, about $((_el * (_left - _ran) / (_ran > 0 ? _ran : 1)))s left)"
				_ran=$((_ran + 1))
				$_run "$_j"
			done
		done
		round=$((round + 1))
	done
	sweep_secs=$(($(date +%s) - _start))
}

# measure CMD...: run CMD in its own session, at most LIMIT seconds, its
# output into $BENCH_OUT, under the SIS statistics when the kernel has
# them ($T/out); $fail says why it failed, if it did.  $cost_from and
# $cost_to are the numbers of the cost markers around the run the cost
# figures come from, NA without one, and $cost_out that run's output:
#   - without the audit, this run, between two markers inside the
#     statistics' reads;
#   - with it, none, or with COST_RERUN set in a guest that counts cost
#     (booted with the plugin, or COST_MARK set) a second run without the
#     statistics: the audit probes every CPU of the node on each wakeup
#     through the functions placement uses, which must not count as
#     placement.
measure() {
	rm -f "$BENCH_OUT"
	cost_from=NA cost_to=NA cost_out=$BENCH_OUT
	_m=$(cost-mark.sh --next)
	if [ ! -r "$SIS_DEBUGFS/stats" ]; then
		run_limited "$LIMIT" "$SYSRQ" "$T/out" "$BENCH_OUT" \
			cost-mark.sh --around "$BENCH_OUT" "$@"
	elif [ "$AUDIT" = 0 ]; then
		run_limited "$LIMIT" "$SYSRQ" "$T/out" "$BENCH_OUT" \
			sis-stats.sh cost-mark.sh --around "$BENCH_OUT" "$@"
	else
		# shellcheck disable=SC2016
		run_limited "$LIMIT" "$SYSRQ" "$T/out" "$BENCH_OUT" \
			sis-stats.sh --audit sh -c 'exec "$@" >"$0" 2>&1' "$BENCH_OUT" "$@"
		[ -z "$fail" ] && [ "$COST_RERUN" != 0 ] || return 0
		[ -n "${COST_MARK:-}" ] || grep -qw 'lab\.cost=1' /proc/cmdline 2>/dev/null || return 0
		cost_out=$T/cost.out
		_m=$(cost-mark.sh --next)
		run_limited "$LIMIT" "$SYSRQ" "$T/cost" "$cost_out" \
			cost-mark.sh --around "$cost_out" "$@"
		if [ -n "$fail" ]; then
			if [ "$COST_RERUN" = fail ]; then
				fail="the cost run: $fail"
			else
				echo "${0##*/}: the cost run failed, its figures NA: $fail" >&2
				fail=
			fi
			return 0
		fi
	fi
	[ "$(($(cost-mark.sh --next) - 1))" != "$((_m + 1))" ] || cost_from=$_m cost_to=$((_m + 1))
}

# knob_file NAME: the debugfs file of the sched knob NAME; a directory
# (llc_balancing) stands for its "enabled" switch
knob_file() {
	if [ -d "$LAB_SCHED_DEBUGFS/$1" ]; then
		echo "$LAB_SCHED_DEBUGFS/$1/enabled"
	else
		echo "$LAB_SCHED_DEBUGFS/$1"
	fi
}

# restore_knobs: every knob of KNOBS back to its value before the run
# (knob_labels saved them)
restore_knobs() {
	for _kv in ${knobs_saved:-}; do
		echo "${_kv#*=}" 2>/dev/null >"$(knob_file "${_kv%%=*}")"
	done
}

# run_as LABEL: the variant of a run label ("VARIANT@NAME=VALUE...") on,
# and its knob values written
run_as() {
	variant "${1%%@*}" || return 1
	for _kv in $(echo "${1#"${1%%@*}"}" | tr '@' ' '); do
		echo "${_kv#*=}" >"$(knob_file "${_kv%%=*}")" || return 1
	done
}

# knob_labels VARIANTS KNOBS: the run labels, each variant with each
# combination of the knobs' values ("NAME=VALUE[,VALUE...] ...": tip,
# KNOBS llc_balancing=0,1: tip@llc_balancing=0 tip@llc_balancing=1), as
# $LABELS; $BASE_LABEL is tip at each knob's first value.  Every value is
# tried once (the old one written back, and kept for restore_knobs)
# before any run; a knob or value this kernel lacks is the driver's
# refuse MESSAGE.
knob_labels() {
	knobs_saved='' _suffixes=-
	for _spec in $2; do
		_k=${_spec%%=*}
		_vals=$(echo "${_spec#*=}" | tr ',' ' ')
		case $_spec:$_k in
		*=*:*..*|*=*:/*|*=*:) refuse "KNOBS: '$_spec' does not name a knob under $LAB_SCHED_DEBUGFS" ;;
		*=*:*) ;;
		*) refuse "KNOBS: '$_spec' is not NAME=VALUE[,VALUE...]" ;;
		esac
		[ -n "$_vals" ] || refuse "KNOBS: '$_spec' has no value"
		_f=$(knob_file "$_k")
		[ -f "$_f" ] || refuse "this kernel has no sched knob $_k (no $LAB_SCHED_DEBUGFS/$_k)"
		_old=$(cat "$_f")
		knobs_saved="$knobs_saved $_k=$_old"
		for _x in $_vals; do
			echo "$_x" 2>/dev/null >"$_f" || refuse "the sched knob $_k does not take '$_x' ($_f)"
		done
		echo "$_old" >"$_f"
		_new=
		for _c in $_suffixes; do
			for _x in $_vals; do
				_new="$_new ${_c#-}@$_k=$_x"
			done
		done
		_suffixes=$_new
	done
	LABELS=
	for _v in $1; do
		for _c in $_suffixes; do
			LABELS="$LABELS $_v${_c#-}"
		done
	done
	LABELS=${LABELS# }
	# shellcheck disable=SC2086
	set -- $_suffixes
	BASE_LABEL=tip${1#-}
}
