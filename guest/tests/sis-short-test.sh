#!/bin/sh
# lab-boot: scaled 2
# Guest test of SIS_SHORT: a short ping-pong pair that starts on CPU 0 and
# may use CPU 0's LLC, whose other CPUs are busy: each partner is woken on
# the waker's CPU without a scan while SIS_SHORT is on, and goes through
# the LLC scan while it is off.  A new pair inherits wakee_flips from its
# parent, which decay by half per second of wakeups, so the pair warms up
# for 8 s and is measured in steady state.
#
# Then the cases where SIS_SHORT must not stack, with SIS_SHORT on: a short
# pair whose partners move back to the LLC's first CPU before each sleep,
# so that every wakeup has that CPU as waker's, target, prev and recent
# CPU, and may use the whole LLC, whose other CPUs are idle (an idle core
# is known) or of which only that CPU's SMT sibling is idle (prev has an
# idle sibling): the wakee goes to an idle CPU instead of stacking.  And
# the case it is for, over loopback TCP, where the partner is woken from
# the receiving softirq: the pair on the busy LLC, netperf's TCP_RR and,
# when the guest has tbench (LAB_GUEST_BINS="tbench tbench_srv"), tbench,
# each confined to one LLC with as many clients as it has CPUs.
. /lab/sis-lib.sh
ktap_begin

require_feature SIS_SHORT
llc=$(llc_of 0)
was=$(feature_state SIS_SHORT)

# "Short" is a run time between sleeps below migration_cost (0.5 ms).
# Under TCG a vCPU waits for the host now and then, which stretches the
# pair's run times past that: at 0.5 ms, between 8% and 69% of the pair's
# wakeups were stacked from one boot to the next (8% failed the check
# below).  So the decision is checked at 50 ms, which the emulator does
# not reach; whether each pair ran short is checked, not assumed.  For
# the test's length migration_cost also keeps tasks cache hot for load
# balancing longer, sets the wakeup preemption bound of sync wakeups and
# lets newly idle CPUs skip balancing sooner; the loads here are confined
# to one LLC, whose other CPUs are busy or idle as each case sets them.
MC=/sys/kernel/debug/sched/migration_cost_ns
mc_was=$(cat "$MC")
trap '_rc=$?; echo "$mc_was" >"$MC"; (exit $_rc); ktap_end' EXIT
echo 50000000 >"$MC"

# shorts_of PIDS: "S of N": how many of the tasks PIDS run shorter than
# migration_cost between sleeps (se.dur_avg, printed in ms)
shorts_of() {
	mc=$(cat "$MC")
	for pid in $1; do
		awk '$1 == "se.dur_avg" { print $3 }' "/proc/$pid/sched" 2>/dev/null
	done | awk -v mc="$mc" '{ n++; if ($1 > 0 && $1 * 1e6 < mc) s++ }
		END { printf "%d of %d", s, n }'
}

# shorts PROG: shorts_of every task of PROG
shorts() {
	shorts_of "$(pidof "$1")"
}

# pair_of PID: PID and its children (sis-load forks the partner)
pair_of() {
	# shellcheck disable=SC2046 # one word per PID
	echo "$1" $(awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null)
}

# busy_llc: every CPU of the LLC but the first spins.  The idle core hint
# set while the LLC was idle is cleared only by a scan that finds no idle
# core, which SIS_UTIL stops before it starts in a busy LLC; so busy one
# thread of each core first, wake a pair that scans the LLC, then the rest.
busy_llc() {
	one= others=
	for c in $(cpus "$(rest "$llc")"); do
		if [ "$(first "$(siblings "$c")")" = "$c" ]; then
			others="$others,$c"
		else
			one="$one,$c"
		fi
	done
	[ -z "$one" ] || hogs "${one#,}"
	sis-load -c "$llc" pingpong 2000
	[ -z "$others" ] || hogs "${others#,}"
}

# steady NAME MODE WARMUP [SECONDS]: a sis-load MODE pair started on the
# LLC's first CPU and free in the LLC, warmed up WARMUP s; SECONDS (3) s
# of SIS figures go to /tmp/NAME, how many of the pair ran short
# (shorts_of) to $short
steady() {
	sis-load -c "$(first "$llc")" "$2" 1000000000 "$llc" &
	pair=$!
	sleep "$3"
	/lab/sis-stats.sh sleep "${4:-3}" >"/tmp/$1" 2>&1
	short=$(shorts_of "$(pair_of "$pair")")
	kill "$pair"
	wait "$pair"
}

busy_llc
for f in NO_SIS_SHORT SIS_SHORT; do
	echo "$f" >"$SCHED_FEATURES"
	steady "$f" pingpong 8
	echo "== $f ($short of the pair short)"
	cat "/tmp/$f"
done
stop_hogs

calls=$(sis_stat calls /tmp/NO_SIS_SHORT)
taken=$(sis_stat short_taken /tmp/NO_SIS_SHORT)
scans=$(sis_stat llc_scans /tmp/NO_SIS_SHORT)
if [ "$taken" = 0 ] && [ "${scans:-0}" -ge $((calls / 2)) ] && [ "${calls:-0}" -ge 100 ]; then
	result sis-short-off ok "$calls wakeups, $scans LLC scans, no shortcut"
else
	result sis-short-off FAIL "calls ${calls:-?}, llc_scans ${scans:-?}, short_taken ${taken:-?}"
fi
calls=$(sis_stat calls /tmp/SIS_SHORT)
taken=$(sis_stat short_taken /tmp/SIS_SHORT)
scans=$(sis_stat llc_scans /tmp/SIS_SHORT)
partner=$(sis_stat short_partner /tmp/SIS_SHORT)
flips=$(sis_stat short_flips /tmp/SIS_SHORT)
long=$(sis_stat short_long /tmp/SIS_SHORT)
# The share stacked is not a property of SIS_SHORT alone: 25% to 73%
# from one boot to the next, and none of 4760 in a v2 CI run.  The
# counters of SIS_SHORT's last tests say why: a boot of 2026-12-05
# stacked 1041 of 7374 wakeups and refused 6299 for wakee_flips above 1,
# none for the run time, after 40 s of warm-up.  Each task of the pair
# changed partner about once a second (a temporary counter in
# record_wakee(): a wakeup of another task and the next of the partner
# are two changes; half of them from softirq, where the interrupted task
# is charged), and wakee_flips, halved once a second, then swings between
# 1 and 2 against SIS_SHORT's bound of 1 (the original's was 0).  So
# check the decision, not the rate: a pair that runs short is never
# refused for its run time, every wakeup that reaches the LLC scan
# without being stacked was refused as unstable (wakee_flips, or the
# wakee's last wakeup of another task: 0 to 128 of 7593 in three boots),
# and some are stacked; the rate stays a scoreboard figure.  A pair whose
# wakee_flips never fell to 1 in the window shows nothing of the stacking
# itself: skipped, with the counts.  The run time is the emulator's as
# well: a vCPU that waits for the host for 50 ms makes one run look long
# (1 of 2520 wakeups refused so, with three guests on the host's two
# cores), so at most one wakeup in a hundred may be refused for it.
detail="$taken of $calls wakeups stacked on the waker, $scans LLC scans; refused: partner $partner, wakee_flips $flips, run time $long"
if [ "$short" != "2 of 2" ]; then
	result sis-short-on FAIL "the pair did not run short ($short), nothing checked"
elif [ "${long:-1}" -gt $((${calls:-0} / 100)) ] || [ $((taken + scans)) -lt $((calls * 9 / 10)) ] ||
	[ $((taken + partner + flips + long)) -lt $((calls * 9 / 10)) ]; then
	result sis-short-on FAIL "$detail"
elif [ "${taken:-0}" = 0 ]; then
	result sis-short-on SKIP "the pair's wakee_flips never fell to 1: $detail"
else
	result sis-short-on ok "$detail"
fi

# rehomed NAME BUSY: SIS_SHORT on, every CPU of BUSY spinning, the pair
# above re-homed to the LLC's first CPU before each sleep, measured after
# 7 s, for 6 s (a re-homing pair beside busy CPUs woke 95 to 529 times
# in 3 s).  Each wakeup must go to an idle CPU, not stack on the waker's, as
# long as one is known: prev's SMT sibling, the only CPU left idle when
# BUSY is the rest of the LLC, is found busy now and then itself (seen:
# 27 of 219 probes, and 27 wakeups stacked; the partner or the migration
# that re-homes it may still be on it), and a wakeup whose probe of it
# failed may stack (smt_probes - smt_hits).
# Without the check of prev's siblings (a stale idle-core hint skips
# select_idle_smt()) the stacked wakeups have no failed probe to match.
rehomed() {
	[ -z "$2" ] || hogs "$2"
	echo SIS_SHORT >"$SCHED_FEATURES"
	steady "$1" rehome 7 6
	[ -z "$2" ] || stop_hogs
	echo "== $1 (busy: ${2:-none}; $short of the pair short)"
	cat "/tmp/$1"
	calls=$(sis_stat calls "/tmp/$1")
	taken=$(sis_stat short_taken "/tmp/$1")
	probes=$(sis_stat smt_probes "/tmp/$1")
	hits=$(sis_stat smt_hits "/tmp/$1")
	busy=$((${probes:-0} - ${hits:-0}))
	if [ "$short" != "2 of 2" ]; then
		result "$1" FAIL "the pair did not run short ($short), nothing checked"
	elif [ "${calls:-0}" -lt 50 ]; then
		result "$1" FAIL "${calls:-no} wakeups in the run, at least 50 needed: nothing checked (${taken:-?} stacked)"
	elif [ "${taken:-0}" -le $((busy + calls / 20)) ]; then
		result "$1" ok "$taken of $calls wakeups stacked, $busy probes of prev's sibling found it busy"
	else
		result "$1" FAIL "${taken:-?} of ${calls:-?} wakeups stacked while idle CPUs were known ($busy probes of prev's sibling found it busy)"
	fi
}

c0=$(first "$llc")
# the rest of the LLC idle: has_idle_core
rehomed sis-short-idle-core ""
# only c0's core idle beside the pair: no idle core, but prev's sibling
if [ "$(count "$(siblings "$c0")")" -gt 1 ] &&
   [ -n "$(without "$llc" "$(siblings "$c0")")" ]; then
	rehomed sis-short-prev-sibling "$(without "$llc" "$(siblings "$c0")")"
fi

# tcp NAME PROG: short_taken must be above zero over 4 s of the TCP load
# that runs now, with SIS_SHORT on, unless no task of PROG is short (a
# task that runs long between sleeps is not a case for SIS_SHORT).  A
# window without a stacked wakeup while some task is short is measured
# once more (the load runs for 14 s): under TCG, netperf's pairs ran long
# at each of 541 wakeups in one window, 2 of its 8 tasks short after it
tcp() {
	tcp_window "$1" "$2"
	if [ "${taken:-0}" = 0 ] && [ "${short%% *}" != 0 ]; then
		echo "$1: no wakeup stacked with $short $2 tasks short, once more"
		tcp_window "$1" "$2"
	fi
	if [ "${taken:-0}" -gt 0 ]; then
		result "$1" ok "$taken of $calls wakeups stacked on the waker"
	elif [ "$short" = "0 of 0" ]; then
		result "$1" FAIL "no $2 task ran (${calls:-?} wakeups in 4 s)"
	elif [ "${short%% *}" = 0 ]; then
		result "$1" ok "not measured: none of the $2 tasks ran short ($short)"
	else
		result "$1" FAIL "short_taken ${taken:-?} of ${calls:-?} wakeups, $short $2 tasks short, in two windows"
	fi
}

# tcp_window NAME PROG: 4 s of statistics; sets short, calls, taken
tcp_window() {
	/lab/sis-stats.sh sleep 4 >"/tmp/$1" 2>&1
	short=$(shorts "$2")
	echo "== $1 ($short $2 tasks short)"
	cat "/tmp/$1"
	calls=$(sis_stat calls "/tmp/$1")
	taken=$(sis_stat short_taken "/tmp/$1")
}

echo SIS_SHORT >"$SCHED_FEATURES"
# the pair over TCP, as the pipe pair above, measured in steady state
busy_llc
sis-load -c "$c0" tcppingpong 1000000000 "$llc" &
pair=$!
sleep 8
tcp sis-short-tcp sis-load
kill "$pair"
wait "$pair"
stop_hogs

n=$(count "$llc")
taskset -c "$llc" netserver -D -L 127.0.0.1 -p 12866 >/dev/null 2>&1 &
srv=$!
sleep 1
i=0 pids=
while [ "$i" -lt "$n" ]; do
	taskset -c "$llc" netperf -H 127.0.0.1 -p 12866 -t TCP_RR -l 14 -- -r 100 \
		-k THROUGHPUT >"/tmp/np.$i" &
	pids="$pids $!" i=$((i + 1))
done
sleep 2
tcp sis-short-netperf netperf
wait $pids
kill "$srv"
wait "$srv" 2>/dev/null
cat /tmp/np.*

if command -v tbench >/dev/null && [ -f /usr/share/dbench/client.txt ]; then
	taskset -c "$llc" tbench_srv >/dev/null 2>&1 &
	srv=$!
	sleep 1
	taskset -c "$llc" tbench -t 14 -c /usr/share/dbench/client.txt "$n" \
		127.0.0.1 >/tmp/tbench 2>&1 &
	pids=$!
	sleep 3
	tcp sis-short-tbench tbench
	wait $pids
	kill "$srv"
	wait "$srv" 2>/dev/null
	grep -i throughput /tmp/tbench
else
	echo "sis-short-tbench: no tbench in the guest (LAB_GUEST_BINS), skipped"
fi

echo "$was" >"$SCHED_FEATURES"
echo "$mc_was" >"$MC"
exit 0
