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
Each run's command is bracketed by two cost markers (SCORE_MARK, default
hostname: a system call no benchmark makes, on which the sis-cost plugin
reports its counts); the row's cost_from and cost_to are the plugin's
report numbers, and work is the job's units of work (hackbench messages,
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
MARK=${SCORE_MARK:-hostname}
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
ncpu=$(nproc)
T=${TMPDIR:-/tmp}/score.$$
mkdir -p "$T"
# netperf-clients N: N netperf TCP_RR clients at once (Debian's netperf,
# 100-byte requests and responses), then their outputs
cat >"$T/netperf-clients" <<EOT
#!/bin/sh
i=0
while [ "\$i" -lt "\$1" ]; do
	netperf -H 127.0.0.1 -p $NETPERF_PORT -t TCP_RR -l $RUNTIME -- -r 100 -k THROUGHPUT >$T/np.\$i 2>&1 &
	i=\$((i + 1))
done
wait
cat $T/np.*
rm -f $T/np.*
EOT
chmod +x "$T/netperf-clients"
# cost-mark: the next cost marker; $T/marks counts them (the plugin
# numbers its reports the same way, from 0)
echo 0 >"$T/marks"
cat >"$T/cost-mark" <<EOT
#!/bin/sh
n=\$(cat $T/marks)
$MARK "sis-cost-\$n" || exit
echo \$((n + 1)) >$T/marks
EOT
chmod +x "$T/cost-mark"
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

# tasks FRACTION: that fraction ("1/16", "2") of the CPU count, at least 1
tasks() {
	echo "$1" | awk -F/ -v n="$ncpu" '{ t = int(n * $1 / ($2 ? $2 : 1) + 0.5); print (t > 0 ? t : 1) }'
}

# job BENCH TASKS: set $cmd (the command line) and $ntasks (the tasks it
# runs, which want a CPU each) for about TASKS tasks of BENCH
job() {
	case $1 in
	hackbench)
		# rt-tests: a group is 2 x fds processes passing messages over
		# pipes, at most 20 fds (its default); messages per run stay near
		# MESSAGES, at least 10 per sender and receiver (a light load
		# needs many: its pipes take hundreds before a writer waits)
		g=$((($2 + 39) / 40))
		fd=$(($2 / (2 * g) > 0 ? $2 / (2 * g) : 1))
		l=$((MESSAGES / (g * fd * fd)))
		[ "$l" -ge 10 ] || l=10
		ntasks=$((2 * g * fd)) cmd="hackbench -p -g $g -f $fd -l $l" ;;
	schbench)
		# two message threads, each with its workers
		w=$((($2 - 2) / 2 > 0 ? ($2 - 2) / 2 : 1))
		ntasks=$((2 + 2 * w)) cmd="sis-schbench -m 2 -t $w -r $RUNTIME -i 0" ;;
	tbench)
		# a client and its server process each; under TCG the clients
		# take 3 s and a second per 4 clients to start (as bench-guest.sh)
		c=$(($2 / 2 > 0 ? $2 / 2 : 1))
		s=$((RUNTIME > 3 + c / 4 ? RUNTIME : 3 + c / 4))
		ntasks=$((2 * c)) cmd="tbench -t $s -c /usr/share/dbench/client.txt $c 127.0.0.1" ;;
	netperf)
		# Debian's netperf, one TCP_RR client process per connection,
		# each with its netserver child (netperf-clients, above)
		c=$(($2 / 2 > 0 ? $2 / 2 : 1))
		ntasks=$((2 * c)) cmd="netperf-clients $c" ;;
	esac
}

# figure BENCH: why the output in $T/cmd lacks BENCH's result, if it does
# (a load that did not run to its end measures something else)
figure() {
	case $1 in
	hackbench) grep -q '^Time:' "$T/cmd" || echo "no Time: line in hackbench's output" ;;
	schbench) grep -q '^average rps:' "$T/cmd" || echo "no average rps in schbench's output" ;;
	tbench)
		awk '/^Throughput/ { ok = $2 + 0 > 0 } END { exit !ok }' "$T/cmd" ||
			echo "no positive tbench Throughput (the run ended within its warm-up?)" ;;
	netperf)
		[ "$(grep -c '^THROUGHPUT=' "$T/cmd")" = "$c" ] ||
			echo "$(grep -c '^THROUGHPUT=' "$T/cmd") of $c netperf clients printed their THROUGHPUT" ;;
	esac
}

# work BENCH: the units of work the run in $T/cmd did, or NA
work() {
	case $1 in
	hackbench) echo $((g * fd * fd * l)) ;;
	schbench) awk -v t="$RUNTIME" '/^average rps:/ { printf "%d\n", $3 * t; f = 1 } END { if (!f) print "NA" }' "$T/cmd" ;;
	netperf) awk -v t="$RUNTIME" -F= '/^THROUGHPUT=/ { s += $2; f = 1 } END { print f ? int(s * t) : "NA" }' "$T/cmd" ;;
	*) echo NA ;;
	esac
}

# measure: run $cmd under sis-stats.sh --audit in its own session, at
# most LIMIT seconds, between two cost markers (inside the statistics'
# reads, so those are not counted); $fail says why it failed, if it did,
# and $cost_from and $cost_to are the markers' numbers (NA when the run
# did not reach its second one)
measure() {
	rm -f "$T/cmd"
	cost_from=$(cat "$T/marks")
	# the statistics into $T/out, the command's output into $T/cmd
	# shellcheck disable=SC2086
	run_limited "$LIMIT" "$SYSRQ" "$T/out" "$T/cmd" \
		sis-stats.sh --audit sh -c 'cost-mark && "$@" >"$0" 2>&1; r=$?; cost-mark && exit $r' "$T/cmd" $cmd
	cost_to=$(($(cat "$T/marks") - 1))
	[ "$cost_to" = "$((cost_from + 1))" ] || cost_from=NA cost_to=NA
}

# emit BENCH LOAD: one row from $T/out (variant, round, tasks, command and
# seconds from the caller); failed rows carry NA for every figure
emit() {
	[ -n "$fail" ] || fail=$(figure "$1")
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(awk '
		function pc(s) { sub("%,?$", "", s); return s == "n/a" ? "" : s }
		$1 == "sis.calls" { calls = $2 }
		$1 == "sis.llc_away" { left = $2; has = 1 }
		$1 == "sis.audit_llcs_full" { full = $2; hasf = 1 }
		/^probes per wakeup:/ { pp = ($4 == "n/a") ? "" : $4 }
		/^idle-hit rate:/ { hit = pc($3) }
		/^missed-idle rate:/ { llc = pc($4); node = pc($6); aud = substr($7, 2) }
		END {
			# wakeups placed in an LLC that is neither the one of prev nor the waker
			lp = (has && calls) ? sprintf("%.1f", 100 * left / calls) : "NA"
			# audited wakeups whose prev and waker LLCs had no idle CPU, the node one
			fp = (hasf && aud) ? sprintf("%.1f", 100 * full / aud) : "NA"
			printf "%s %s %s %s %s %s %s %s\n", calls + 0, aud + 0, pp == "" ? "NA" : pp,
				hit == "" ? "NA" : hit, llc == "" ? "NA" : llc,
				node == "" ? "NA" : node, lp, fp
		}' "$T/out")
	if [ -z "$fail" ] && [ "$3" = 0 ]; then
		fail="sis-stats counted no wakeup"
	elif [ -z "$fail" ] && [ "$4" = 0 ]; then
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
		st=ok wk=$(work "$1")
	fi
	echo "$NPS,$v,$1,$2,$round,$BOOT,$ntasks,$cmd,$3,$4,$5,$6,$7,$8,$9,${10},$wk,$cost_from,$cost_to,$secs,$st" >>"$CSV"
}

[ -f "$CSV" ] ||
	echo "nps,variant,load,load_point,round,boot,tasks,command,wakeups,audited,probes_per_wakeup,idle_hit_pct,missed_llc_pct,missed_node_pct,left_llc_pct,llcs_full_pct,work,cost_from,cost_to,seconds,status" >"$CSV"
srv=
case " $BENCHES " in *" tbench "*) tbench_srv >/dev/null 2>&1 & srv="$srv $!" ;; esac
# -D: netserver stays in the foreground and forks per test
case " $BENCHES " in *" netperf "*) netserver -D -L 127.0.0.1 -p "$NETPERF_PORT" >/dev/null 2>&1 & srv="$srv $!" ;; esac
trap '[ -z "$srv" ] || kill $srv 2>/dev/null || true; variant tip; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
sleep 1
for pid in $srv; do
	kill -0 "$pid" 2>/dev/null ||
		{ say "a benchmark server did not start (tbench uses port 7003, netperf $NETPERF_PORT)" >&2; exit 1; }
done

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
