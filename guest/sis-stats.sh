#!/bin/sh
# Measure what select_idle_sibling() did while a command ran.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--audit] [--help] [--] CMD [ARGS...]

Needs the SIS statistics patch (/sys/kernel/debug/sched/sis).  Enables the
counters (and with --audit the missed-idle audit), snapshots them before
and after CMD, and prints the deltas as "sis.NAME VALUE" lines followed by:
probes per wakeup, idle-hit rate, missed-idle rates (LLC, node) and the
outcomes of each SIS variant the kernel has.  CMD's exit status is kept.
EOT
}
audit=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--audit) audit=1; shift ;;
	--) shift; break ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { usage >&2; exit 2; }
D=${SIS_DEBUGFS:-${LAB_SCHED_DEBUGFS:-/sys/kernel/debug/sched}/sis}
[ -r "$D/stats" ] || { echo "${0##*/}: $D/stats missing (kernel without the SIS statistics patch?)" >&2; exit 1; }

was_enabled=$(cat "$D/enabled")
was_audit=$(cat "$D/audit")
echo 1 >"$D/enabled"
[ "$audit" = 0 ] || echo 1 >"$D/audit"
before=$(cat "$D/stats")
rc=0
"$@" || rc=$?
after=$(cat "$D/stats")
echo "$was_enabled" >"$D/enabled"
echo "$was_audit" >"$D/audit"

printf '%s\n%s\n' "$before" "$after" | awk -v nb="$(printf '%s\n' "$before" | wc -l)" '
NR <= nb { b[$1] = $2; next }
{ d[$1] = $2 - b[$1]; order[++n] = $1 }
function v(k) { return (k in d) ? d[k] : 0 }
function pct(a, b) { return b ? sprintf("%.1f%%", 100 * a / b) : "n/a" }
function ratio(a, b) { return b ? sprintf("%.2f", a / b) : "n/a" }
END {
	for (i = 1; i <= n; i++)
		printf "sis.%s %d\n", order[i], d[order[i]]
	w = v("calls")
	probes = v("scan_probes") + v("smt_probes")
	hits = v("exit_target") + v("exit_prev") + v("exit_recent") + v("smt_hits") \
		+ v("llc_idle_core") + v("llc_idle_cpu") + v("node_hits")
	printf "wakeups:            %d\n", w
	printf "probes per wakeup:  %s (per LLC scan %s)\n", ratio(probes, w), \
		ratio(v("scan_probes") - v("node_probes"), v("llc_scans"))
	printf "idle-hit rate:      %s\n", pct(hits, w)
	if (v("audit_checks"))
		printf "missed-idle rate:   LLC %s, node %s (%d audited)\n", \
			pct(v("audit_llc_miss"), v("audit_checks")), \
			pct(v("audit_node_miss"), v("audit_checks")), v("audit_checks")
	if (v("audit_checks") && ("audit_llcs_full" in d))
		printf "LLCs full:          %s (prev and waker LLC busy, node not)\n", \
			pct(v("audit_llcs_full"), v("audit_checks"))
	if ("short_taken" in d)
		printf "SIS_SHORT:          shortcut taken %s of wakeups\n", pct(v("short_taken"), w)
	if ("core_busy" in d)
		printf "SIS_CORE:           %d mask candidates proved busy\n", v("core_busy")
	if ("node_scans" in d)
		printf "SIS_NODE:           %d scans, %s probes per scan, %s hit\n", \
			v("node_scans"), ratio(v("node_probes"), v("node_scans")), \
			pct(v("node_hits"), v("node_scans"))
}'
exit "$rc"
