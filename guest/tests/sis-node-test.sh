#!/bin/sh
# lab-boot: scaled 1 4
# lab-boot: mmc 1 2 4
# Guest tests of SIS_NODE, SIS_NODE_LIMIT and SIS_NODE_MMC: with CPU 0's
# LLC full, a task woken there lands on an idle CPU of the next LLC only
# while SIS_NODE is on; with the next LLC full too, SIS_NODE_LIMIT with
# sis_node_limit=1, or SIS_NODE_MMC (the pair of LLCs 0 and 1), stops the
# search before the idle third LLC; a wakee allowed only LLCs 0 and 3
# costs one LLC scan per wakeup, not one per LLC of the node.
. /lab/sis-lib.sh
ktap_begin
N=200

require_feature SIS_NODE
llc=$(llc 0)
llc1=$(llc 1)
wide=$llc,$llc1
was=$(feature_state SIS_NODE)

hogs "$llc"
for f in NO_SIS_NODE SIS_NODE; do
	echo "$f" >"$SCHED_FEATURES"
	/lab/sis-stats.sh --audit sis-load -c "$llc" wakeups "$N" "$wide" >"/tmp/$f" 2>&1
	echo "== $f"
	cat "/tmp/$f"
done
stop_hogs
echo "$was" >"$SCHED_FEATURES"

# llc_away: wakeups placed in neither prev's nor the waker's LLC (both
# are LLC 0 here), which only SIS_NODE does
scans=$(sis_stat node_scans /tmp/NO_SIS_NODE)
miss=$(sis_stat audit_node_miss /tmp/NO_SIS_NODE)
away=$(sis_stat llc_away /tmp/NO_SIS_NODE)
if [ "$scans" = 0 ] && [ "$away" = 0 ] && [ "${miss:-0}" -ge $((N * 9 / 10)) ]; then
	result sis-node-off ok "no node scans, none away from LLC 0, $miss of $N wakeups left an idle CPU of the node unused"
else
	result sis-node-off FAIL "node_scans ${scans:-?}, llc_away ${away:-?}, audit_node_miss ${miss:-?} of $N"
fi
hits=$(sis_stat node_hits /tmp/SIS_NODE)
miss=$(sis_stat audit_node_miss /tmp/SIS_NODE)
away=$(sis_stat llc_away /tmp/SIS_NODE)
if [ "${hits:-0}" -ge $((N * 9 / 10)) ] && [ "${miss:-0}" -le $((N / 10)) ] &&
	[ "${away:-0}" -ge $((N * 9 / 10)) ]; then
	result sis-node-on ok "$hits of $N wakeups found an idle CPU in another LLC ($away counted away from LLC 0), $miss misses"
else
	result sis-node-on FAIL "node_hits ${hits:-?}, llc_away ${away:-?}, audit_node_miss ${miss:-?} of $N"
fi

# The walk visits only LLCs the wakee may use: allowed CPU 0's LLC and the
# fourth LLC of the node, each wakeup scans one other LLC, not three
node=$(cat /sys/devices/system/node/node0/cpulist)
if [ "$(count "$node")" -ge $((4 * $(count "$llc"))) ]; then
	hogs "$llc"
	echo SIS_NODE >"$SCHED_FEATURES"
	/lab/sis-stats.sh sis-load -c "$llc" wakeups "$N" "$llc,$(llc 3)" >/tmp/allowed 2>&1
	echo "$was" >"$SCHED_FEATURES"
	stop_hogs
	echo "== SIS_NODE, wakee allowed LLCs 0 and 3"
	cat /tmp/allowed
	scans=$(sis_stat node_scans /tmp/allowed)
	hits=$(sis_stat node_hits /tmp/allowed)
	if [ "${hits:-0}" -ge $((N * 9 / 10)) ] && [ "${scans:-0}" -le $((N * 11 / 10)) ]; then
		result sis-node-allowed ok "$scans LLC scans, $hits hits for $N wakeups allowed LLCs 0 and 3"
	else
		result sis-node-allowed FAIL "${scans:-?} LLC scans, ${hits:-?} hits for $N wakeups allowed LLCs 0 and 3 (want one scan per wakeup)"
	fi
else
	result sis-node-allowed ok "skipped: node 0 ($node) has fewer than 4 LLCs"
fi

# SIS_NODE_LIMIT needs a third LLC in the node
if [ "$(count "$node")" -lt $((3 * $(count "$llc"))) ]; then
	result sis-node-limit ok "skipped: node 0 ($node) has fewer than 3 LLCs"
	exit 0
fi
require_feature SIS_NODE_LIMIT SIS_NODE_MMC
L=/sys/kernel/debug/sched/sis_node_limit
old_limit=$(cat "$L")
hogs "$llc"
hogs "$llc1"
echo SIS_NODE >"$SCHED_FEATURES"
wide=$llc,$llc1,$(llc 2)
for lim in 1 2; do
	echo "$lim" >"$L"
	echo SIS_NODE_LIMIT >"$SCHED_FEATURES"
	/lab/sis-stats.sh sis-load -c "$llc" wakeups "$N" "$wide" >"/tmp/limit$lim" 2>&1
	echo "== SIS_NODE_LIMIT, sis_node_limit=$lim"
	cat "/tmp/limit$lim"
done
echo NO_SIS_NODE_LIMIT >"$SCHED_FEATURES"
echo SIS_NODE_MMC >"$SCHED_FEATURES"
/lab/sis-stats.sh sis-load -c "$llc" wakeups "$N" "$wide" >/tmp/mmc 2>&1
echo "== SIS_NODE_MMC"
cat /tmp/mmc
echo NO_SIS_NODE_MMC >"$SCHED_FEATURES"
stop_hogs
echo NO_SIS_NODE_LIMIT >"$SCHED_FEATURES"
echo "$was" >"$SCHED_FEATURES"
echo "$old_limit" >"$L"
hits1=$(sis_stat node_hits /tmp/limit1)
scans1=$(sis_stat node_scans /tmp/limit1)
hits2=$(sis_stat node_hits /tmp/limit2)
if [ "${hits1:-1}" -le $((N / 10)) ] && [ "${scans1:-0}" -ge $((N * 9 / 10)) ] &&
	[ "${scans1:-0}" -le $((N * 11 / 10)) ] && [ "${hits2:-0}" -ge $((N * 9 / 10)) ]; then
	result sis-node-limit ok "limit 1: $scans1 scans, $hits1 hits; limit 2: $hits2 hits of $N"
else
	result sis-node-limit FAIL "limit 1: ${scans1:-?} scans, ${hits1:-?} hits; limit 2: ${hits2:-?} hits of $N"
fi
hits=$(sis_stat node_hits /tmp/mmc)
scans=$(sis_stat node_scans /tmp/mmc)
if grep -qx MMC /sys/kernel/debug/sched/domains/cpu0/domain*/name; then
	if [ "${hits:-1}" -le $((N / 10)) ] && [ "${scans:-0}" -ge $((N * 9 / 10)) ] &&
		[ "${scans:-0}" -le $((N * 11 / 10)) ]; then
		result sis-node-mmc ok "$scans scans of the MMC sibling, $hits hits of $N"
	else
		result sis-node-mmc FAIL "${scans:-?} scans, ${hits:-?} hits of $N (expected one scan, no hit each)"
	fi
# without the level (no sched_mmc) the domain above the LLC is the node
elif [ "${hits:-0}" -ge $((N * 9 / 10)) ]; then
	result sis-node-mmc ok "no MMC level: searched the node as SIS_NODE does, $hits hits of $N"
else
	result sis-node-mmc FAIL "no MMC level: ${hits:-?} hits of $N, ${scans:-?} scans (expected the node search of SIS_NODE)"
fi
if echo bogus >"$L" 2>/dev/null; then
	result sis-node-limit-garbage FAIL "sis_node_limit accepted 'bogus'"
else
	result sis-node-limit-garbage ok "sis_node_limit rejects 'bogus'"
fi
exit 0
