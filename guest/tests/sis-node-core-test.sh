#!/bin/sh
# Guest test of SIS_NODE_CORE: LLCs 0, 1 and 2 full, LLC 3 idle, and a
# task woken in LLC 0 that may use the four.  SIS_NODE scans LLCs 1 and 2
# CPU by CPU before it finds LLC 3; with SIS_CORE and SIS_NODE_CORE the
# empty idle masks of LLCs 1 and 2 skip them, so every wakeup scans one
# LLC and probes a named core of LLC 3.  Without SIS_UTIL, whose budget
# hides the cost of busy LLCs only while it judges them overloaded.
. /lab/sis-lib.sh
ktap_begin
N=200

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
	echo "$f" >"$F"
done

hogs "$llc"
hogs "$(llc 1)"
hogs "$(llc 2)"
# run MODE FEATURES...: N wakeups with FEATURES on, SIS_CORE and
# SIS_NODE_CORE off otherwise
run() {
	m=$1
	shift
	echo NO_SIS_CORE >"$F"
	echo NO_SIS_NODE_CORE >"$F"
	for f in "$@"; do
		echo "$f" >"$F"
	done
	/lab/sis-stats.sh --audit sis-load -c "$llc" wakeups "$N" "$wide" >"/tmp/nc-$m" 2>&1
	echo "== $m: SIS_NODE $*"
	cat "/tmp/nc-$m"
}
run node
run core SIS_CORE
run node-core SIS_CORE SIS_NODE_CORE
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
