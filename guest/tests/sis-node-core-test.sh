#!/bin/sh
# lab-boot: scaled 1
# Guest test of SIS_NODE_CORE: LLCs 0, 1 and 2 full, LLC 3 idle, and a
# task woken in LLC 0 that may use the four.  SIS_NODE scans LLCs 1 and 2
# CPU by CPU before it finds LLC 3; with SIS_CORE and SIS_NODE_CORE the
# empty idle masks of LLCs 1 and 2 skip them, so every wakeup scans one
# LLC and probes a named core of LLC 3.  Without SIS_UTIL, whose budget
# hides the cost of busy LLCs only while it judges them overloaded.
# While core scheduling is in use, SIS_NODE keeps its rules for every
# wakee, and scans the three LLCs again.
# Then, with the wakee's previous CPU in another LLC than its waker, that
# SIS_NODE_CORE goes back to prev's LLC, or to the waker's, rather than to
# a third one.
. /lab/sis-lib.sh
ktap_begin
N=100

require_feature SIS_NODE SIS_CORE SIS_NODE_CORE
node=$(cat /sys/devices/system/node/node0/cpulist)
llc=$(llc 0)
if [ "$(count "$node")" -lt $((4 * $(count "$llc"))) ]; then
	result sis-node-core ok "skipped: node 0 ($node) has fewer than 4 LLCs"
	exit 0
fi
wide=$llc,$(llc 1),$(llc 2),$(llc 3)
saved=$(features_saved)
for f in NO_SIS_UTIL NO_SIS_NODE_LIMIT NO_SIS_NODE_MMC SIS_NODE; do
	echo "$f" >"$SCHED_FEATURES"
done

hogs "$llc"
hogs "$(llc 1)"
hogs "$(llc 2)"
# run MODE FEATURES...: N wakeups with FEATURES on, SIS_CORE and
# SIS_NODE_CORE off otherwise; the waker on $home, the sleeper's home
# $sleep (default $home)
home=$llc sleep=
run() {
	m=$1
	shift
	echo NO_SIS_CORE >"$SCHED_FEATURES"
	echo NO_SIS_NODE_CORE >"$SCHED_FEATURES"
	for f in "$@"; do
		echo "$f" >"$SCHED_FEATURES"
	done
	/lab/sis-stats.sh --audit sis-load -c "$home" -s "${sleep:-$home}" \
		wakeups "$N" "$wide" >"/tmp/nc-$m" 2>&1
	echo "== $m: SIS_NODE $*, waker on $home, prev on ${sleep:-$home}"
	cat "/tmp/nc-$m"
}
run node
run core SIS_CORE
run node-core SIS_CORE SIS_NODE_CORE
# Core scheduling in use anywhere (one task with a cookie, off the node's
# walk): an untagged wakee may not take a CPU whose core runs a cookie,
# so the masks no longer answer for it and SIS_NODE keeps its rules
kc=$(cpus "$(cat /sys/devices/system/cpu/online)" | tail -n1)
if start_hogs KH "$kc" -k 2>/dev/null; then
	run node-core-sched SIS_CORE SIS_NODE_CORE
else
	kc=
fi
end_hogs KH
stop_hogs

# Back to prev's LLC: the waker alone on CPU $w of LLC 0, so that its sync
# wakeups target it, the rest of LLC 0 busy, and the sleeper's previous
# CPU $s in LLC 2 busy but LLCs 1, 2 and 3 otherwise idle.  SIS_NODE takes
# LLC 1, the one after the target's, where the wakee has neither its own
# cache nor its waker's; SIS_NODE_CORE goes back to LLC 2.
w=$(first "$llc")
s=$(first "$(llc 2)")
hogs "$(rest "$llc"),$s"
home=$w sleep=$s
run prev-core SIS_CORE
run prev-node-core SIS_CORE SIS_NODE_CORE
stop_hogs

# To the waker's LLC: the waker on CPU $w behind two hogs, so that
# wake_affine() keeps the wakeup on prev's side (the waker's CPU is the
# more loaded), the rest of LLC 0 idle, LLC 2 full with prev's CPU $s in
# it, LLCs 1 and 3 idle.  SIS_NODE takes LLC 3, the one after prev's;
# SIS_NODE_CORE goes to the waker's LLC 0.
hogs "$(llc 2)"
hogs "$w"
hogs "$w"
run waker-core SIS_CORE
run waker-node-core SIS_CORE SIS_NODE_CORE
stop_hogs
features_restore "$saved"

# probes SIS_NODE spent per wakeup that left the LLC, as "N.NN"
per() {
	awk -v a="$(sis_stat "$1" "/tmp/nc-$2")" -v b="$N" 'BEGIN { printf "%.2f", a / b }'
}
np=$(sis_stat node_probes /tmp/nc-node)
cp=$(sis_stat node_probes /tmp/nc-node-core)
cs=$(sis_stat node_scans /tmp/nc-core)
ns=$(sis_stat node_scans /tmp/nc-node-core)
hits=$(sis_stat node_hits /tmp/nc-node-core)
miss=$(sis_stat audit_node_miss /tmp/nc-node-core)
if [ "${hits:-0}" -ge $((N * 9 / 10)) ] && [ "${miss:-$N}" -le $((N / 10)) ] &&
	[ "${cp:-0}" -gt 0 ] && [ "$((2 * cp))" -le "${np:-0}" ]; then
	result sis-node-core-probes ok "$hits of $N wakeups found an idle CPU in LLC 3 with $(per node_probes node-core) probes each, SIS_NODE with $(per node_probes node); $miss misses"
else
	result sis-node-core-probes FAIL "SIS_NODE_CORE: ${hits:-?} hits, ${miss:-?} misses of $N, ${cp:-?} probes; SIS_NODE: ${np:-?} probes (want at most half)"
fi
# the empty masks, not SIS_CORE's scans of them, spare LLCs 1 and 2
if [ "${ns:-0}" -gt 0 ] && [ "$ns" -le $((N * 11 / 10)) ] && [ "${cs:-0}" -ge $((2 * N)) ]; then
	result sis-node-core-scans ok "$ns LLC scans for $N wakeups, $cs with SIS_CORE alone"
else
	result sis-node-core-scans FAIL "${ns:-?} LLC scans with SIS_NODE_CORE, ${cs:-?} with SIS_CORE alone, for $N wakeups (want one per wakeup against three)"
fi
# with core scheduling in use, every LLC of the walk is scanned again, as
# with SIS_CORE alone (one scan per wakeup when the masks skipped them);
# most wakeups still reach LLC 3 (185 of 200 in one run: the scans are
# CPU by CPU again, and the state moves under them)
ks=$(sis_stat node_scans /tmp/nc-node-core-sched 2>/dev/null)
kh=$(sis_stat node_hits /tmp/nc-node-core-sched 2>/dev/null)
if [ -z "$kc" ]; then
	result sis-node-core-coresched SKIP "no task with a core-scheduling cookie ran (CONFIG_SCHED_CORE=n?)"
elif [ "${ks:-0}" -ge $((2 * N)) ] && [ "${kh:-0}" -ge $((N / 2)) ]; then
	result sis-node-core-coresched ok "core scheduling in use: $ks LLC scans for $N wakeups of an untagged task ($ns without it), $kh found LLC 3"
else
	result sis-node-core-coresched FAIL "core scheduling in use: ${ks:-?} LLC scans, ${kh:-?} hits for $N wakeups of an untagged task (want SIS_NODE's rules: at least $((2 * N)) scans, as SIS_CORE's $cs)"
fi
# The audit's LLCs full: with the waker and prev both in the full LLC 0
# and LLC 3 idle, each of the N wakeups meets it; with prev's LLC 2 idle
# but for prev's CPU, none should.  The audit also sees the wakeups of
# other tasks (the shell, kworkers), hence N, not the audited count.
fa=$(sis_stat audit_checks /tmp/nc-node-core)
ff=$(sis_stat audit_llcs_full /tmp/nc-node-core)
pa=$(sis_stat audit_checks /tmp/nc-prev-node-core)
pf=$(sis_stat audit_llcs_full /tmp/nc-prev-node-core)
if [ "${ff:-0}" -ge $((N * 9 / 10)) ] &&
	[ "${pa:-0}" -ge $((N / 2)) ] && [ "${pf:-$N}" -le $((N / 10)) ]; then
	result sis-node-core-llcs-full ok "LLCs full in $ff of $fa audited wakeups ($N of the pair) with prev and the waker in the full LLC, $pf of $pa with prev's LLC idle"
else
	result sis-node-core-llcs-full FAIL "LLCs full in ${ff:-?} of ${fa:-?} audited wakeups ($N of the pair) with prev and the waker in the full LLC (want 9 in 10 of $N), ${pf:-?} of ${pa:-?} with prev's LLC idle (want at most $((N / 10)))"
fi
# away CASE LEFT: of the wakeups that left LEFT (the waker's or prev's
# full LLC) in run CASE-node-core, at most a tenth went into neither
# prev's nor the waker's LLC, where SIS_NODE (run CASE-core) sent at
# least 9 in 10.  The sleeper shares $s with a hog, so the waker's write
# may find it not yet asleep: count against the wakeups that left, not N.
away() {
	ca=$(sis_stat llc_away "/tmp/nc-$1-core")
	ch=$(sis_stat node_hits "/tmp/nc-$1-core")
	na=$(sis_stat llc_away "/tmp/nc-$1-node-core")
	nh=$(sis_stat node_hits "/tmp/nc-$1-node-core")
	if [ "${ch:-0}" -ge $((N / 2)) ] && [ "${ca:-0}" -ge $((ch * 9 / 10)) ] &&
		[ "${nh:-0}" -ge $((N / 2)) ] && [ "${na:-$N}" -le $((nh / 10)) ]; then
		result "sis-node-core-$1" ok "$nh wakeups left $2, $na of them into neither prev's nor the waker's LLC; SIS_NODE: $ca of $ch"
	else
		result "sis-node-core-$1" FAIL "SIS_NODE_CORE: ${na:-?} of ${nh:-?} wakeups that left $2 went into neither prev's nor the waker's LLC (want at most a tenth); SIS_NODE: ${ca:-?} of ${ch:-?} (want at least 9 in 10; at least $((N / 2)) each)"
	fi
}
away prev "the waker's LLC"
# with prev's LLC full, SIS_NODE_CORE takes the waker's LLC, not a third
away waker "prev's full LLC"
