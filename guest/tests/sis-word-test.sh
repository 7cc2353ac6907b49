#!/bin/sh
# lab-boot: scaled 1 2
# Guest test of SIS_WORD (lab only): LLCs 0, 1 and 2 of node 0 full, LLC 3
# idle, and a task woken in LLC 0 that may use the four.  SIS_NODE scans
# LLCs 1 and 2 CPU by CPU before it finds LLC 3; with SIS_WORD the walk
# reads the words of LLCs 1 and 2, empty since their cores are busy, and
# claims a core of LLC 3; with SIS_WORD_SUMMARY it reads the node's word
# and visits LLC 3 alone.  Then LLC 3 runs SCHED_IDLE hogs only: its CPUs
# never enter idle, yet SIS_WORD must still find them, also after the
# wakeups of a SCHED_IDLE task, which cannot use them (claiming their cores
# for it dropped them for good before).  Last, SIS_WORD_SPARE with
# SIS_WORD_EXIT: with LLCs 3 to 7 idle (five of the seven others) the walk
# leaves for LLC 3; with LLCs 4 and 5 busy too (three idle) it stays in
# LLC 0.
. /lab/sis-lib.sh
ktap_begin
N=100

require_feature SIS_NODE SIS_WORD SIS_WORD_SUMMARY SIS_WORD_SPARE SIS_WORD_EXIT
node=$(cat /sys/devices/system/node/node0/cpulist)
llc=$(llc 0)
if [ "$(count "$node")" -lt $((4 * $(count "$llc"))) ]; then
	result sis-word ok "skipped: node 0 ($node) has fewer than 4 LLCs"
	exit 0
fi
# the SIS_WORD_SPARE cases want the 8 LLCs of a node of NPS1
eight=
[ "$(count "$node")" -lt $((8 * $(count "$llc"))) ] || eight=y
wide=$llc,$(llc 1),$(llc 2),$(llc 3)
saved=$(features_saved)
features_off
for f in NO_SIS_UTIL SIS_NODE; do
	echo "$f" >"$SCHED_FEATURES"
done

hogs "$llc"
hogs "$(llc 1)"
hogs "$(llc 2)"
# run MODE FEATURES...: N wakeups from LLC 0 with FEATURES on, SIS_WORD and
# its refinements off otherwise
run() {
	m=$1
	shift
	for f in SIS_WORD_EXIT SIS_WORD_SPARE SIS_WORD_SUMMARY SIS_WORD; do
		echo "NO_$f" >"$SCHED_FEATURES"
	done
	for f in "$@"; do
		echo "$f" >"$SCHED_FEATURES"
	done
	/lab/sis-stats.sh --audit sis-load -c "$llc" wakeups "$N" "$wide" >"/tmp/sw-$m" 2>&1
	echo "== $m: SIS_NODE $*"
	cat "/tmp/sw-$m"
}
run node
run word SIS_WORD
run word-sum SIS_WORD SIS_WORD_SUMMARY
# LLC 3 busy with SCHED_IDLE tasks only: free for an ordinary wakee, even
# after a SCHED_IDLE wakee has looked for a CPU there N times.  The
# features stay as the last run left them: switching SIS_WORD on again
# would fill the words afresh.
start_hogs IH "$(llc 3)" -i
/lab/sis-stats.sh sis-load -i -c "$llc" wakeups "$N" "$wide" >/tmp/sw-poison 2>&1
/lab/sis-stats.sh --audit sis-load -c "$llc" wakeups "$N" "$wide" >/tmp/sw-word-idle 2>&1
echo "== word-idle: SIS_NODE SIS_WORD SIS_WORD_SUMMARY, LLC 3 SCHED_IDLE, after a SCHED_IDLE wakee's $N"
cat /tmp/sw-word-idle
end_hogs IH
# a node with idle cores to spare, then one without
if [ -n "$eight" ]; then
	run word-spare SIS_WORD SIS_WORD_SUMMARY SIS_WORD_EXIT SIS_WORD_SPARE
	hogs "$(llc 4),$(llc 5)"
	/lab/sis-stats.sh --audit sis-load -c "$llc" wakeups "$N" "$wide" >/tmp/sw-word-spare-busy 2>&1
	echo "== word-spare-busy: as word-spare, LLCs 4 and 5 busy"
	cat /tmp/sw-word-spare-busy
fi
stop_hogs
features_restore "$saved"

# a run's figures: hits, misses and probes per wakeup
np=$(sis_stat node_probes /tmp/sw-node)
for m in word word-sum word-idle word-spare word-spare-busy; do
	eval "h_$(echo $m | tr - _)=\$(sis_stat node_hits /tmp/sw-$m)"
	eval "x_$(echo $m | tr - _)=\$(sis_stat audit_node_miss /tmp/sw-$m)"
	eval "p_$(echo $m | tr - _)=\$(sis_stat node_probes /tmp/sw-$m)"
	eval "v_$(echo $m | tr - _)=\$(sis_stat node_visits /tmp/sw-$m)"
done
if [ "${h_word:-0}" -ge $((N * 9 / 10)) ] && [ "${x_word:-$N}" -le $((N / 10)) ] &&
	[ "${p_word:-0}" -gt 0 ] && [ "$((2 * p_word))" -le "${np:-0}" ]; then
	result sis-word-finds ok "$h_word of $N wakeups took a core of LLC 3 with $p_word probes in all, SIS_NODE $np; $x_word misses"
else
	result sis-word-finds FAIL "SIS_WORD: ${h_word:-?} hits, ${x_word:-?} misses of $N, ${p_word:-?} probes; SIS_NODE: ${np:-?} probes (want at most half)"
fi
# without the summary the walk reads LLCs 1, 2 and 3; with it LLC 3, and
# LLCs 4 to 7 (idle, listed, outside the task's CPUs) while LLC 3's word
# is empty for a moment, its cores claimed and not yet idle again: at
# most half the visits (113 and 307 for 100 wakeups in one run)
if [ "${h_word_sum:-0}" -ge $((N * 9 / 10)) ] && [ "${v_word:-0}" -ge $((2 * N)) ] &&
	[ "${v_word_sum:-0}" -gt 0 ] && [ "$((2 * v_word_sum))" -le "$v_word" ]; then
	result sis-word-summary ok "$v_word_sum LLCs visited for $N wakeups with the node's word, $v_word without; $h_word_sum hits"
else
	result sis-word-summary FAIL "${v_word_sum:-?} LLCs visited with SIS_WORD_SUMMARY, ${v_word:-?} without (want at least $((2 * N)), and at most half that with it), ${h_word_sum:-?} hits of $N"
fi
if [ "${h_word_idle:-0}" -ge $((N * 9 / 10)) ] && [ "${x_word_idle:-$N}" -le $((N / 10)) ]; then
	result sis-word-sched-idle ok "LLC 3 running SCHED_IDLE tasks only, after $N wakeups of a SCHED_IDLE task: $h_word_idle of $N wakeups took it, $x_word_idle misses"
else
	result sis-word-sched-idle FAIL "LLC 3 running SCHED_IDLE tasks only, after $N wakeups of a SCHED_IDLE task: ${h_word_idle:-?} of $N wakeups took it, ${x_word_idle:-?} misses (want 9 in 10, at most a tenth)"
fi
if [ -z "$eight" ]; then
	result sis-word-spare ok "skipped: node 0 ($node) has fewer than 8 LLCs"
elif [ "${h_word_spare:-0}" -ge $((N * 9 / 10)) ] && [ -n "${h_word_spare_busy:-}" ] &&
	[ "$h_word_spare_busy" -le $((N / 10)) ]; then
	result sis-word-spare ok "LLCs 3 to 7 idle: $h_word_spare of $N wakeups left for LLC 3; LLCs 3, 6 and 7: $h_word_spare_busy"
else
	result sis-word-spare FAIL "SIS_WORD_SPARE: ${h_word_spare:-?} of $N wakeups left LLC 0 with LLCs 3 to 7 idle (want 9 in 10), ${h_word_spare_busy:-?} with LLCs 3, 6 and 7 (want at most a tenth)"
fi
