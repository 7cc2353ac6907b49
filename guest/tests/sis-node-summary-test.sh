#!/bin/sh
# lab-boot: scaled 2
# Guest test of SIS_NODE_SUMMARY: every LLC of node 0 full but LLC 3, and a
# task woken in LLC 0 that may run on every CPU.  SIS_NODE_CORE's walk
# reads the masks of LLCs 1 and 2, empty, before it finds LLC 3's; with
# the node's list of the LLCs that may name a core, the walk goes to
# LLC 3 at once: one LLC visited per walk, the same hits.  (A task whose
# affinity leaves out CPUs walks every LLC it may use, reading their
# masks: sis-node-core-test.sh; at saturation: sis-busy-test.sh.)
. /lab/sis-lib.sh
ktap_begin
N=100

require_feature SIS_NODE SIS_CORE SIS_NODE_CORE SIS_NODE_SUMMARY
node=$(cat /sys/devices/system/node/node0/cpulist)
llc=$(llc 0)
nl=$(($(count "$node") / $(count "$llc")))
if [ "$nl" -lt 4 ]; then
	result sis-node-summary ok "skipped: node 0 ($node) has fewer than 4 LLCs"
	exit 0
fi
saved=$(features_saved)
for f in NO_SIS_UTIL NO_SIS_NODE_LIMIT NO_SIS_NODE_MMC; do
	echo "$f" >"$SCHED_FEATURES"
done
feature_on SIS_NODE_CORE

full='' i=0
while [ "$i" -lt "$nl" ]; do
	[ "$i" = 3 ] || full=$full${full:+,}$(llc "$i")
	i=$((i + 1))
done
hogs "$full"
all=$(cat /sys/devices/system/cpu/possible)
# run MODE FEATURE: N wakeups of a sleeper allowed every CPU, its waker
# and its previous CPU in LLC 0
run() {
	echo "$2" >"$SCHED_FEATURES"
	/lab/sis-stats.sh --audit sis-load -c "$llc" wakeups "$N" "$all" >"/tmp/ns-$1" 2>&1
	echo "== $1: $2, every LLC of node 0 full but LLC 3 ($full)"
	cat "/tmp/ns-$1"
}
run walk NO_SIS_NODE_SUMMARY
run summary SIS_NODE_SUMMARY
stop_hogs
features_restore "$saved"

# visits per walk of MODE, as "N.NN" (-1 without walks)
visits() {
	awk -v v="$(sis_stat node_visits "/tmp/ns-$1")" -v w="$(sis_stat node_walks "/tmp/ns-$1")" \
		'BEGIN { if (w > 0) printf "%.2f", v / w; else print -1 }'
}
wv=$(visits walk) sv=$(visits summary)
wh=$(sis_stat node_hits /tmp/ns-walk)
sh=$(sis_stat node_hits /tmp/ns-summary)
sm=$(sis_stat audit_node_miss /tmp/ns-summary)
if awk -v s="$sv" -v w="$wv" 'BEGIN { exit !(s >= 1 && s <= 1.1 && w >= 2) }' &&
	[ "${sh:-0}" -ge $((N * 9 / 10)) ] && [ "${sm:-$N}" -le $((N / 10)) ]; then
	result sis-node-summary-visits ok "$sv LLCs visited per walk with the list, $wv without; $sh and ${wh:-?} of $N wakeups found LLC 3; $sm misses"
else
	result sis-node-summary-visits FAIL "$sv LLCs visited per walk with the list (want 1 to 1.1), $wv without (want 2 or more); ${sh:-?} and ${wh:-?} of $N found LLC 3 (want 9 in 10); ${sm:-?} misses"
fi
exit 0
