#!/bin/sh
# Measure what select_idle_sibling() did while a command ran.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--audit] [--help] [--] CMD [ARGS...]
       ${0##*/} --summary [FILE]

Needs the SIS statistics patch (/sys/kernel/debug/sched/sis).  Enables the
counters (and with --audit the missed-idle audit), snapshots them before
and after CMD, and prints the deltas as "sis.NAME VALUE" lines, then the
figures derived from them as "KEY=VALUE" lines, then a summary for people
made from those KEY=VALUE lines alone: probes per wakeup, idle-hit rate,
missed-idle rates (LLC, node) and the outcomes of each SIS variant the
kernel has.  CMD's exit status is kept.

The figures, computed here once (rates in per cent, without the sign).
A figure that does not exist is n/a, never 0: wakeups without a calls
counter, a rate or ratio whose divisor is 0.  The first four are always
printed; the others only when the kernel has their counters (one
without SIS_SHORT prints no short_taken_pct line):
  wakeups               calls
  probes_per_wakeup     (scan_probes + smt_probes) / calls
  probes_per_llc_scan   (scan_probes - node_probes) / llc_scans
  idle_hit_pct          wakeups placed on an idle CPU (exit_target,
                        exit_prev, exit_recent, smt_hits, llc_idle_core,
                        llc_idle_cpu, node_hits) / calls
  audited               audit_checks, the wakeups the audit checked
  llc_missed_pct        audit_llc_miss / audit_checks
  node_missed_pct       audit_node_miss / audit_checks
  llcs_full_pct         audit_llcs_full / audit_checks
  left_llc_pct          llc_away / calls
  short_taken_pct       SIS_SHORT: short_taken / calls
  core_busy             SIS_CORE: mask candidates proved busy
  node_scans            SIS_NODE: scans of the node's other LLCs
  node_probes_per_scan  node_probes / node_scans
  node_hit_pct          node_hits / node_scans
  node_visits_per_walk  node_visits / node_walks: the other LLCs a walk of
                        the node took (read the mask of, or scanned)
A reader takes the last line of each key.  --summary prints the summary
of the KEY=VALUE lines in FILE (default: standard input), such as a
run's saved output.
EOT
}

# summary [FILE...]: the lines for people, from the KEY=VALUE lines alone
# (the last of each key); the missed-idle line once the audit checked a
# wakeup, a variant's line when its figures are there
summary() {
	awk '
	/^[a-z_]+=/ { i = index($0, "="); f[substr($0, 1, i - 1)] = substr($0, i + 1) }
	function g(k) { return (k in f) ? f[k] : "n/a" }
	function pc(k) { return g(k) == "n/a" ? "n/a" : g(k) "%" }
	END {
		printf "wakeups:            %s\n", g("wakeups")
		printf "probes per wakeup:  %s (per LLC scan %s)\n", g("probes_per_wakeup"), \
			g("probes_per_llc_scan")
		printf "idle-hit rate:      %s\n", pc("idle_hit_pct")
		audited = ("audited" in f) && f["audited"] + 0
		if (audited)
			printf "missed-idle rate:   LLC %s, node %s (%s audited)\n", \
				pc("llc_missed_pct"), pc("node_missed_pct"), f["audited"]
		if (audited && ("llcs_full_pct" in f))
			printf "LLCs full:          %s (prev and waker LLC busy, node not)\n", \
				pc("llcs_full_pct")
		if ("short_taken_pct" in f)
			printf "SIS_SHORT:          shortcut taken %s of wakeups\n", pc("short_taken_pct")
		if ("core_busy" in f)
			printf "SIS_CORE:           %s mask candidates proved busy\n", f["core_busy"]
		if ("node_scans" in f)
			printf "SIS_NODE:           %s scans, %s probes per scan, %s hit\n", \
				f["node_scans"], g("node_probes_per_scan"), pc("node_hit_pct")
		if ("node_visits_per_walk" in f)
			printf "node walks:         %s LLCs visited per walk\n", g("node_visits_per_walk")
	}' "$@"
}

audit=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--audit) audit=1; shift ;;
	--summary) [ $# -le 2 ] || { usage >&2; exit 2; }; shift; summary "$@"; exit ;;
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

# the counters' deltas, then every figure from them
figures=$(printf '%s\n%s\n' "$before" "$after" | awk -v nb="$(printf '%s\n' "$before" | wc -l)" '
NR <= nb { b[$1] = $2; next }
{ d[$1] = $2 - b[$1]; order[++n] = $1 }
function v(k) { return (k in d) ? d[k] : 0 }
function pct(a, b) { return b ? sprintf("%.1f", 100 * a / b) : "n/a" }
function ratio(a, b) { return b ? sprintf("%.2f", a / b) : "n/a" }
function put(k, x) { printf "%s=%s\n", k, x }
END {
	for (i = 1; i <= n; i++)
		printf "sis.%s %d\n", order[i], d[order[i]]
	w = v("calls")
	put("wakeups", ("calls" in d) ? sprintf("%d", w) : "n/a")
	put("probes_per_wakeup", ratio(v("scan_probes") + v("smt_probes"), w))
	put("probes_per_llc_scan", ratio(v("scan_probes") - v("node_probes"), v("llc_scans")))
	put("idle_hit_pct", pct(v("exit_target") + v("exit_prev") + v("exit_recent") + v("smt_hits") \
		+ v("llc_idle_core") + v("llc_idle_cpu") + v("node_hits"), w))
	if ("audit_checks" in d) {
		a = v("audit_checks")
		put("audited", sprintf("%d", a))
		put("llc_missed_pct", pct(v("audit_llc_miss"), a))
		put("node_missed_pct", pct(v("audit_node_miss"), a))
	}
	if ("audit_llcs_full" in d)
		put("llcs_full_pct", pct(v("audit_llcs_full"), v("audit_checks")))
	if ("llc_away" in d)
		put("left_llc_pct", pct(v("llc_away"), w))
	if ("short_taken" in d)
		put("short_taken_pct", pct(v("short_taken"), w))
	if ("core_busy" in d)
		put("core_busy", sprintf("%d", v("core_busy")))
	if ("node_scans" in d) {
		put("node_scans", sprintf("%d", v("node_scans")))
		put("node_probes_per_scan", ratio(v("node_probes"), v("node_scans")))
		put("node_hit_pct", pct(v("node_hits"), v("node_scans")))
	}
	if ("node_walks" in d)
		put("node_visits_per_walk", ratio(v("node_visits"), v("node_walks")))
}')
printf '%s\n' "$figures"
printf '%s\n' "$figures" | summary
exit "$rc"
