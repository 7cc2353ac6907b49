#!/bin/sh
# lab-boot: small 1 2 4
# Guest test: the SIS_CORE masks of a cpuset partition across SMT turned
# off and on.  Nothing keeps the masks without SMT (the run queue hooks
# test sched_smt_active()), and a root partition of first threads keeps
# its domains, and with them its masks, while the siblings go offline and
# come back: no domain rebuild fills them.  With SIS_NODE_CORE on, a hog
# started on a partition CPU while SMT is off leaves that CPU named; once
# SMT is back, the wakeups in the partition must find no named core busy
# (core_busy 0), which holds only if the masks were filled again.  A busy
# CPU leaves its mask only through a scan or a fill (a task that visits
# it and leaves does not free it), so the case is deterministic.
#
# Takes every sibling offline and back (smt/control): slow under TCG.
. /lab/sis-lib.sh
ktap_begin
N=200
smt=/sys/devices/system/cpu/smt/control

require_feature SIS_NODE SIS_CORE SIS_NODE_CORE
if [ "$(cat "$smt" 2>/dev/null)" != on ]; then
	result sis-smt-refill SKIP "SMT is not on and switchable here ($smt: $(cat "$smt" 2>/dev/null))"
	exit 0
fi
cg=/sys/fs/cgroup
mkdir -p "$cg"
[ -f "$cg/cgroup.procs" ] || mount -t cgroup2 none "$cg" 2>/dev/null
echo +cpuset >"$cg/cgroup.subtree_control" 2>/dev/null
saved=$(features_saved)
features_off
# SIS_UTIL's budget cuts scans short and hides the masks' errors
echo NO_SIS_UTIL >"$SCHED_FEATURES"
feature_on SIS_NODE_CORE

# the partition: the first thread of each of LLC 1's first two cores, A
# the waker's CPU and B the hog's
L=$(llc 1)
A=$(first "$L")
B=$(first "$(without "$L" "$(siblings "$A")")")
P=$cg/sis-smt
mkdir -p "$P"
if ! { echo "$A,$B" >"$P/cpuset.cpus" && echo root >"$P/cpuset.cpus.partition" &&
	grep -qx root "$P/cpuset.cpus.partition"; }; then
	result sis-smt-refill FAIL "no root partition of CPUs $A,$B: $(cat "$P/cpuset.cpus.partition" 2>&1)"
	rmdir "$P" 2>/dev/null
	features_restore "$saved"
	exit 0
fi
echo "partition $A,$B of LLC $L; SMT off"
echo off >"$smt"
start_hogs PH "$B" -g "$P"
echo on >"$smt"
echo "SMT $(cat "$smt"), CPUs online $(cat /sys/devices/system/cpu/online)"
# shellcheck disable=SC2016 # the inner shell's $1..
/lab/sis-stats.sh --audit sh -c 'echo $$ >"$1/cgroup.procs" && exec sis-load -c "$2" wakeups "$3" "$4"' \
	wakeups "$P" "$A" "$N" "$A,$B" >/tmp/smt-wakeups 2>&1
cat /tmp/smt-wakeups
busy=$(sis_stat core_busy /tmp/smt-wakeups)
probes=$(sis_stat scan_probes /tmp/smt-wakeups)
end_hogs PH
echo member >"$P/cpuset.cpus.partition"
rmdir "$P"
features_off
features_restore "$saved"
if [ -n "$busy" ] && [ "$busy" = 0 ]; then
	result sis-smt-refill ok "hog on CPU $B started with SMT off, SMT on: no named core found busy, $probes probes in $N wakeups"
else
	result sis-smt-refill FAIL "hog on CPU $B started with SMT off, SMT on: ${busy:-?} named cores found busy, ${probes:-?} probes in $N wakeups"
fi
exit 0
