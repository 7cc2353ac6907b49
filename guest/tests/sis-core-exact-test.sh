#!/bin/sh
# lab-boot: isolcpus 1
# Guest tests of the SIS_CORE masks on the paths that bypass the run
# queue hooks, each set up so that the old code fails it:
#
#  claim     (SIS_NODE_CORE) a task sleeps on the only free CPU X of an
#            LLC and, asleep, is moved off X; its wakeup may still return
#            X (idle prev), which select_task_rq() replaces: X must stay
#            named, so that the wakeups that follow find it (no LLC miss);
#  idle-on   (SIS_CORE) a cgroup whose tasks run on the LLC's other cores
#            gets cpu.idle 1: its CPUs become free for ordinary wakees, as
#            the base kernel finds them, and must be named (no LLC miss);
#            without the upkeep in sched_group_set_idle() they are named
#            by the next per-CPU kthread that runs there and leaves (in one
#            boot 1.2 s after the write, EXPLAIN=1), so the case fails only
#            when the wakeups come first;
#  idle-off  (SIS_NODE_CORE) the same group back to cpu.idle 0: its CPUs
#            are busy and must leave the masks (no named core found busy);
#  seed      (SIS_NODE_CORE) after a domain rebuild (CPU hotplug) and after
#            SIS_CORE is switched on, with every core of the LLC busy: the
#            masks must start from the run queues, not full (no named core
#            found busy, so no probe of a busy core);
#  split     (SIS_CORE, needs isolcpus=domain splitting a core other than
#            the first of its LLC) the isolated thread busy, its sibling J
#            idle, another core idle, the LLC's idle-core hint set: the
#            wakeups hunting idle cores must take the idle core, not J.
#
# The audit counts the wakeups left on a busy CPU while the LLC had an
# idle one the task may use (audit_llc_miss); core_busy counts the named
# cores a scan found without a free CPU.  The shell and what it starts
# stay off the LLCs under test: a task forked onto a free CPU names it
# when it leaves, whatever the masks said before.
#
# CASES (default "claim idle seed split") picks the cases to run.
. /lab/sis-lib.sh
ktap_begin
N=200
CASES=${CASES:-claim idle seed split}
# want CASE: whether CASES names it
want() {
	case " $CASES " in *" $1 "*) return 0 ;; esac
	return 1
}

require_feature SIS_NODE SIS_CORE SIS_NODE_CORE
saved=$(features_saved)
features_off
# SIS_UTIL's budget cuts scans short and hides the masks' errors
echo NO_SIS_UTIL >"$SCHED_FEATURES"

iso=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
all=$(cat /sys/devices/system/cpu/online)
L=$(llc 2)
H=$(first "$L")
S=$(without "$(siblings "$H")" "$H")
# the other cores of the LLC: X1 the first thread of the first of them,
# X1S its sibling, R the CPUs of the others
X1=$(first "$(without "$L" "$(siblings "$H")")")
X1S=$(without "$(siblings "$X1")" "$X1")
R=$(without "$L" "$(siblings "$H"),$(siblings "$X1")")
away=$(llc 4)
echo "LLC $L: waker $H, busy sibling $S, X $X1 (sibling $X1S), other cores $R; the shell on $away"
taskset -p -c "$away" $$ >/dev/null

# wakeups NAME [SETUP]: N wakeups of a task allowed on the LLC from the
# waker on H, audited, right after the shell command SETUP if given; sets
# checks, miss, busy and probes
wakeups() {
	# shellcheck disable=SC2016 # $1.. are the inner shell's
	/lab/sis-stats.sh --audit sh -c "${2:-:}"' && exec sis-load -c "$1" wakeups "$2" "$3"' \
		wakeups "$H" "$N" "$L" >"/tmp/ce-$1" 2>&1
	echo "== $1"
	cat "/tmp/ce-$1"
	checks=$(sis_stat audit_checks "/tmp/ce-$1")
	miss=$(sis_stat audit_llc_miss "/tmp/ce-$1")
	busy=$(sis_stat core_busy "/tmp/ce-$1")
	probes=$(sis_stat scan_probes "/tmp/ce-$1")
}

# no_miss NAME WHAT: at least half of the N wakeups audited (a wakeup that
# finds the sleeper still queued needs no CPU), none left on a busy CPU
no_miss() {
	if [ "${checks:-0}" -ge $((N / 2)) ] && [ "$miss" = 0 ]; then
		result "sis-core-exact-$1" ok "$2: $checks wakeups audited, no LLC miss"
	else
		result "sis-core-exact-$1" FAIL "$2: ${miss:-?} LLC misses in ${checks:-?} audited wakeups"
	fi
}

# none_busy NAME WHAT: no named core found without a free CPU
none_busy() {
	if [ -n "$busy" ] && [ "$busy" = 0 ]; then
		result "sis-core-exact-$1" ok "$2: no named core found busy, $probes probes in $N wakeups"
	else
		result "sis-core-exact-$1" FAIL "$2: ${busy:-?} named cores found busy, ${probes:-?} probes in $N wakeups"
	fi
}

# 1. claim.  Every CPU of the LLC but X1 busy (the waker's core included);
# a task T sleeps on X1, is allowed two CPUs of the shell's LLC while
# asleep, and wakes (a timer): with X1 idle and the waker's CPU not
# allowed, select_idle_sibling() returns prev X1, and select_task_rq()
# puts T elsewhere.
if want claim; then
	echo "# case claim"
	feature_on SIS_NODE_CORE
	start_hogs AH "$S,$X1S,$R"
	taskset -c "$X1" sleep 3 &
	T=$!
	sleep 1
	st=$(cut -d' ' -f3,39 "/proc/$T/stat")
	W=$(first "$away"),$(first "$(rest "$away")")
	taskset -p -c "$W" "$T" >/dev/null
	wait "$T"
	echo "T (pid $T) state and CPU before the move: $st; allowed $W while asleep"
	wakeups claim
	no_miss claim "a task woken from CPU $X1 after its affinity dropped it"
	end_hogs AH
	features_off
	echo NO_SIS_UTIL >"$SCHED_FEATURES"
fi

# 2. a cgroup's cpu.idle.  The group's hogs run on every core of the LLC
# but the waker's; SIS_CORE's scans drop those cores, then the group
# turns idle.  The wakeups start right after the write: any task that
# visits one of those CPUs and leaves names it (EXPLAIN=1 lists them),
# which would hide the change's own upkeep.
cg=/sys/fs/cgroup
mkdir -p "$cg"
[ -f "$cg/cgroup.procs" ] || mount -t cgroup2 none "$cg" 2>/dev/null
echo +cpu >"$cg/cgroup.subtree_control" 2>/dev/null
G=$cg/sis-exact
mkdir -p "$G" 2>/dev/null
if ! want idle; then
	:
elif [ ! -f "$G/cpu.idle" ]; then
	result sis-core-exact-idle-on SKIP "no cpu.idle in $G (cgroup2 with the cpu controller, CONFIG_FAIR_GROUP_SCHED)"
	result sis-core-exact-idle-off SKIP "no cpu.idle in $G"
else
	echo "# case idle-on"
	echo SIS_CORE >"$SCHED_FEATURES"
	start_hogs SH "$S"
	start_hogs GH "$(without "$L" "$(siblings "$H")")" -g "$G"
	# the scans find the group's cores busy and drop them
	sis-load -c "$H" wakeups "$N" "$L"
	wakeups idle-on "echo 1 >$G/cpu.idle"
	no_miss idle-on "cpu.idle 0 to 1 for the tasks on the LLC's other cores, SIS_CORE"

	# EXPLAIN=1: how soon after the write a per-CPU kthread (ksoftirqd,
	# the stopper, a kworker) of the group's CPUs runs there: each such
	# visit leaves the CPU through sub_nr_running(), which names it
	if [ "${EXPLAIN:-0}" = 1 ]; then
		ks=
		for c in $(cpus "$(without "$L" "$(siblings "$H")")"); do
			for d in /proc/[0-9]*; do
				read -r comm <"$d/comm" 2>/dev/null || continue
				case $comm in
				ksoftirqd/"$c"|migration/"$c"|kworker/"$c":*) ks="$ks ${d#/proc/}" ;;
				esac
			done
		done
		runs() {
			r=
			for k in $ks; do
				read -r _ _ n <"/proc/$k/schedstat"
				r="$r $k:$n"
			done
			echo "$r"
		}
		echo 0 >"$G/cpu.idle"
		sis-load -c "$H" wakeups "$N" "$L"
		r0=$(runs)
		echo 1 >"$G/cpu.idle"
		read -r u0 _ </proc/uptime
		t=0
		while [ "$t" -lt 200 ]; do
			r=$(runs)
			[ "$r" = "$r0" ] || break
			t=$((t + 1))
		done
		read -r u1 _ </proc/uptime
		echo "# EXPLAIN the group's CPUs' kthreads ($ks) ran after the write: $([ "$r" = "$r0" ] && echo no || echo yes), $t polls, $u0 s to $u1 s uptime"
		echo "# EXPLAIN before: $r0"
		echo "# EXPLAIN after:  $r"
	fi

	echo "# case idle-off"
	# the group's CPUs free and named (SIS_CORE switched on names them),
	# then the group back to ordinary
	echo NO_SIS_CORE >"$SCHED_FEATURES"
	feature_on SIS_NODE_CORE
	sleep 1
	echo 0 >"$G/cpu.idle"
	wakeups idle-off
	none_busy idle-off "cpu.idle 1 to 0 for the tasks on the LLC's other cores, SIS_NODE_CORE"
	end_hogs GH
	end_hogs SH
	rmdir "$G" 2>/dev/null
	features_off
	echo NO_SIS_UTIL >"$SCHED_FEATURES"
fi

# 3. seed.  Every CPU of the LLC but the waker's busy; the domains rebuilt
# by taking a CPU of another node offline and back, then SIS_CORE
# switched off and on.
if want seed; then
	echo "# case seed"
	feature_on SIS_NODE_CORE
	start_hogs DH "$(without "$L" "$H")"
	# node_of CPU: its NUMA node
	node_of() {
		for n in /sys/devices/system/cpu/cpu"$1"/node*; do
			echo "${n##*node}"
		done
	}
	last=$(cpus "$all" | tail -n1)
	if [ "$(node_of "$last")" = "$(node_of "$H")" ] ||
		! echo 0 >"/sys/devices/system/cpu/cpu$last/online"; then
		result sis-core-exact-seed-rebuild FAIL "could not take CPU $last offline"
	else
		echo 1 >"/sys/devices/system/cpu/cpu$last/online"
		wakeups seed-rebuild
		none_busy seed-rebuild "CPU $last offline and online with the LLC busy"
	fi
	echo NO_SIS_CORE >"$SCHED_FEATURES"
	echo SIS_CORE >"$SCHED_FEATURES"
	wakeups seed-switch
	none_busy seed-switch "SIS_CORE off and on with the LLC busy"
	# SIS_NODE_CORE switched on over masks kept without it: the LLC
	# idle (its CPUs name themselves), then busy while nothing claims
	# CPUs, so the masks name busy cores until a refill
	end_hogs DH
	echo NO_SIS_NODE_CORE >"$SCHED_FEATURES"
	sleep 1
	start_hogs DH "$(without "$L" "$H")"
	sleep 1
	echo SIS_NODE_CORE >"$SCHED_FEATURES"
	wakeups seed-node-core
	none_busy seed-node-core "SIS_NODE_CORE off, the LLC idle then busy, SIS_NODE_CORE on"
	end_hogs DH
	features_off
	echo NO_SIS_UTIL >"$SCHED_FEATURES"
fi

# 4. split.  isolcpus=domain took I out of the domains, its sibling J is
# in the LLC domain.  The waker on H1 (its sibling busy), I busy, J idle,
# the next core K idle, the others busy; a short task on K sets the LLC's
# idle-core hint.  The scan starts after H1; J comes first when J's core
# is the LLC's second, as with isolcpus=domain,69 (LLC 1: 4-7,68-71).
if [ -z "$iso" ] && want split; then
	result sis-core-exact-split SKIP "no CPU isolated from the domains (boot with isolcpus=domain,CPU)"
elif want split; then
	echo "# case split"
	I=$(first "$iso")
	J=$(first "$(without "$(siblings "$I")" "$iso")")
	L1=$(llc_of "$J")
	H1=$(first "$L1")
	S1=$(without "$(siblings "$H1")" "$H1")
	K=$(first "$(without "$L1" "$(siblings "$H1"),$(siblings "$J")")")
	RK=$(without "$L1" "$(siblings "$H1"),$(siblings "$J"),$(siblings "$K")")
	echo "isolated $I, its sibling $J, LLC $L1, waker $H1, idle core $(siblings "$K"), busy $S1,$I,$RK"
	echo SIS_CORE >"$SCHED_FEATURES"
	start_hogs IH "$S1,$I${RK:+,$RK}"
	taskset -c "$K" true
	# the statistics tell a returned CPU of a fully idle core (all its
	# SMT siblings idle, the isolated one included) from another one
	/lab/sis-stats.sh sis-load -c "$H1" wakeups "$N" "$(without "$L1" "$I")" >/tmp/ce-split 2>&1
	end_hogs IH
	cat /tmp/ce-split
	core=$(sis_stat llc_idle_core /tmp/ce-split)
	cpu=$(sis_stat llc_idle_cpu /tmp/ce-split)
	if [ "${core:-0}" -ge $((N / 2)) ] && [ "${cpu:-$N}" -le $((N / 10)) ]; then
		result sis-core-exact-split ok "$core idle cores and $cpu idle CPUs of busy cores (as $J beside busy isolated $I) returned in $N wakeups"
	else
		result sis-core-exact-split FAIL "${core:-?} idle cores and ${cpu:-?} idle CPUs of busy cores (as $J beside busy isolated $I) returned in $N wakeups"
	fi
	features_off
fi

taskset -p -c "$all" $$ >/dev/null
features_restore "$saved"
exit 0
