#!/bin/sh
# lab-boot: scaled 2
# Guest test of SIS_CORE, SIS_NODE_CORE and SIS_NODE_SUMMARY at
# saturation: hackbench (rt-tests, processes over pipes) with as many
# tasks as CPUs, SIS_UTIL on as booted, under the missed-idle audit.
# There most wakeups find the target's LLC full while other LLCs of the
# node have idle CPUs.  NPS2: four LLCs per node, as many as the summary
# needs to have a walk to shorten.
#  - SIS_CORE: its masks must not name CPUs that a wakeup is already on
#    its way to; such names cost two probes each and find nothing.
#  - SIS_NODE_CORE: the other LLCs' masks find the node's idle CPUs, so
#    few wakeups land on a busy CPU while the node has an idle one, at
#    about SIS_CORE's probes.
#  - SIS_NODE_SUMMARY: the walk visits fewer LLCs than without the list,
#    and the list hides for good no LLC that names a core.
#    An LLC hidden for good misses idle CPUs as SIS_CORE does, hundreds per
#    1000.  Seen: 1 per 1000 in NPS1, 2, 6, 2, 1 and 69 in NPS2
#    (SIS_NODE_CORE alone 0 to 3); a walk misses an LLC unlisted when it
#    reads the list (named after that, or dropped for a moment by another
#    walk before its re-check), windows TCG stretches whenever the host
#    leaves a vCPU waiting; which caused the 69 is not measured.  So at
#    most a fifth of SIS_CORE's rate in the same run: that catches a list
#    that hides LLCs wholesale (one never listed again), not one LLC of
#    three hidden now and then.
# One round of each: 1800 to 4500 wakeups a variant.
. /lab/sis-lib.sh
ktap_begin
ROUNDS=1

require_feature SIS_NODE SIS_CORE SIS_NODE_CORE
command -v hackbench >/dev/null || { result sis-busy FAIL "no hackbench in the guest"; exit 0; }
variants="SIS_CORE SIS_NODE_CORE"
# a kernel without the summary still has the other two checked
summary=$(feature_state SIS_NODE_SUMMARY 2>/dev/null)
[ -z "$summary" ] || variants="$variants SIS_NODE_SUMMARY"
# shellcheck disable=SC2086
busy_rounds busy "$ROUNDS" $variants

for v in $variants; do
	w=$(stat_total calls /tmp/busy-"$v"-*)
	p=$(($(stat_total scan_probes /tmp/busy-"$v"-*) + $(stat_total smt_probes /tmp/busy-"$v"-*)))
	eval "calls_$v=$w probes_$v=$(per_k 100 "$p" "$w")"
	eval "miss_$v=$(per_k 1000 "$(stat_total audit_node_miss /tmp/busy-"$v"-*)" "$(stat_total audit_checks /tmp/busy-"$v"-*)")"
	eval "visits_$v=$(per_k 100 "$(stat_total node_visits /tmp/busy-"$v"-*)" "$(stat_total node_walks /tmp/busy-"$v"-*)")"
done
# shellcheck disable=SC2154
{
	cp=$probes_SIS_CORE np=$probes_SIS_NODE_CORE
	cm=$miss_SIS_CORE nm=$miss_SIS_NODE_CORE
	cw=$calls_SIS_CORE nw=$calls_SIS_NODE_CORE nv=$visits_SIS_NODE_CORE
}
# Measured before the masks dropped CPUs with a wakeup on its way: 277 to
# 432 probes per 100 wakeups in four runs; after, 121 to 165 in six
# (NPS1, three rounds each); in NPS2, one round: 119 to 142 in three runs,
# SIS_NODE_CORE missing 0 to 3 per 1000.
if [ "$cw" -gt 0 ] && [ "$cp" -ge 0 ] && [ "$cp" -le 220 ]; then
	result sis-core-busy-probes ok "SIS_CORE: $cp probes per 100 wakeups ($cw wakeups)"
else
	result sis-core-busy-probes FAIL "SIS_CORE: $cp probes per 100 wakeups ($cw wakeups; want at most 220)"
fi
if [ "$nw" -gt 0 ] && [ "$nm" -ge 0 ] && [ "$nm" -le 10 ]; then
	result sis-node-core-busy-missed ok "SIS_NODE_CORE: node missed-idle $nm per 1000 audited wakeups, SIS_CORE $cm ($nw and $cw wakeups)"
else
	result sis-node-core-busy-missed FAIL "SIS_NODE_CORE: node missed-idle $nm per 1000 audited wakeups (want at most 10), SIS_CORE $cm"
fi
if [ "$np" -ge 0 ] && [ "$np" -le $((cp * 3 / 2)) ]; then
	result sis-node-core-busy-probes ok "SIS_NODE_CORE: $np probes per 100 wakeups, SIS_CORE $cp"
else
	result sis-node-core-busy-probes FAIL "SIS_NODE_CORE: $np probes per 100 wakeups, SIS_CORE $cp (want at most 1.5 times)"
fi
if [ -z "$summary" ]; then
	result sis-node-summary-busy SKIP "no SIS_NODE_SUMMARY in $SCHED_FEATURES"
	exit 0
fi
# shellcheck disable=SC2154
sm=$miss_SIS_NODE_SUMMARY sw=$calls_SIS_NODE_SUMMARY sv=$visits_SIS_NODE_SUMMARY
if [ "$sw" -gt 0 ] && [ "$sm" -ge 0 ] && [ "$cm" -gt 0 ] && [ "$sm" -le $((cm / 5)) ] &&
	[ "$sv" -ge 0 ] && [ "$sv" -lt "$nv" ]; then
	result sis-node-summary-busy ok "node missed-idle $sm per 1000 audited wakeups, $sv LLCs visited per 100 walks; SIS_NODE_CORE alone $nm and $nv, SIS_CORE $cm missed ($sw, $nw and $cw wakeups)"
else
	result sis-node-summary-busy FAIL "node missed-idle $sm per 1000 audited wakeups (want at most a fifth of SIS_CORE's $cm), $sv LLCs visited per 100 walks (want fewer than SIS_NODE_CORE's $nv; $sw and $nw wakeups)"
fi
exit 0
