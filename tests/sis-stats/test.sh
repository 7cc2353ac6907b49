# shellcheck shell=bash
# guest/sis-stats.sh and its readers on this host, sourced by tests/run.sh
# (sec_host), whose $top, $G, $tmp, ok, notok and skipped they use.
#
# Fixtures, one case each: NAME.before and NAME.after, the SIS statistics
# file (sched/sis/stats) before and after the command, which the fake
# sched debugfs is given; NAME.want, what sis-stats.sh printed for them
# before it printed KEY=VALUE figures (git show ec62651:guest/sis-stats.sh,
# run by hand on the same fake and command): its sis.NAME lines and the
# summary for people, which must not change.
#   all      every counter of patch 0023, --audit, the command exits 3
#   noaudit  wakeups, without the audit, no LLC or node scan, no shortcut
#   idle     every counter, none counted
#   old      the ten counters of a kernel without SIS_SHORT, SIS_CORE,
#            SIS_NODE, the audit and llc_away
# The figures each case must give are computed by hand below.

# sis_stats_case NAME: in $sis_want the KEY=VALUE lines sis-stats.sh must
# print for the case NAME, in their order, joined by spaces; in $sis_cells
# the CSV cells bench-guest.sh records from them, wakeups to node_hit_pct
sis_stats_case() {
	case $1 in
	all)
		# deltas: calls 800, exit_target 200, exit_prev 100, exit_recent
		# 41, smt_probes 300, smt_hits 60, llc_scans 400, scan_probes
		# 1700, llc_idle_core 100, llc_idle_cpu 150, short_taken 37,
		# core_busy 9, node_scans 30, node_probes 200, node_hits 20,
		# llc_away 25, audit_checks 600, audit_llc_miss 7,
		# audit_node_miss 5, audit_llcs_full 45 (exit_kthread 2 is no hit).
		# probes (1700 + 300) / 800 = 2.50; per LLC scan (1700 - 200) /
		# 400 = 3.75; hits 200 + 100 + 41 + 60 + 100 + 150 + 20 = 671,
		# 671 / 800 = 83.875%; 7 / 600 = 1.17%, 5 / 600 = 0.83%, 45 / 600
		# = 7.5%; 25 / 800 = 3.125%; 37 / 800 = 4.625%; 200 / 30 = 6.67;
		# 20 / 30 = 66.67%
		sis_cells=800,2.50,83.9,1.2,0.8,4.6,9,30,6.67,66.7
		sis_want="wakeups=800 probes_per_wakeup=2.50 probes_per_llc_scan=3.75 idle_hit_pct=83.9"
		sis_want="$sis_want audited=600 llc_missed_pct=1.2 node_missed_pct=0.8 llcs_full_pct=7.5"
		sis_want="$sis_want left_llc_pct=3.1 short_taken_pct=4.6 core_busy=9 node_scans=30"
		sis_want="$sis_want node_probes_per_scan=6.67 node_hit_pct=66.7" ;;
	noaudit)
		# deltas: calls 120, exit_target 42, exit_prev 3, smt_probes 30,
		# smt_hits 8, llc_idle_cpu 11, llc_away 1, the others 0.  probes
		# 30 / 120 = 0.25; no LLC scan; hits 42 + 3 + 8 + 11 = 64, 64 /
		# 120 = 53.33%; nothing audited; 1 / 120 = 0.83%; no shortcut of
		# 120 wakeups is 0.0%; no node scan
		sis_cells=120,0.25,53.3,NA,NA,0.0,0,0,NA,NA
		sis_want="wakeups=120 probes_per_wakeup=0.25 probes_per_llc_scan=n/a idle_hit_pct=53.3"
		sis_want="$sis_want audited=0 llc_missed_pct=n/a node_missed_pct=n/a llcs_full_pct=n/a"
		sis_want="$sis_want left_llc_pct=0.8 short_taken_pct=0.0 core_busy=0 node_scans=0"
		sis_want="$sis_want node_probes_per_scan=n/a node_hit_pct=n/a" ;;
	idle)
		# no wakeup, nothing audited, no node scan: no rate
		sis_cells=0,NA,NA,NA,NA,NA,0,0,NA,NA
		sis_want="wakeups=0 probes_per_wakeup=n/a probes_per_llc_scan=n/a idle_hit_pct=n/a"
		sis_want="$sis_want audited=0 llc_missed_pct=n/a node_missed_pct=n/a llcs_full_pct=n/a"
		sis_want="$sis_want left_llc_pct=n/a short_taken_pct=n/a core_busy=0 node_scans=0"
		sis_want="$sis_want node_probes_per_scan=n/a node_hit_pct=n/a" ;;
	old)
		# deltas: calls 64, exit_target 1, exit_prev 2, exit_recent 3,
		# smt_probes 4, smt_hits 5, llc_scans 6, scan_probes 70,
		# llc_idle_core 8, llc_idle_cpu 10.  probes (70 + 4) / 64 = 1.156;
		# per LLC scan 70 / 6 = 11.67; hits 1 + 2 + 3 + 5 + 8 + 10 = 29,
		# 29 / 64 = 45.31%; no key for the counters it lacks
		sis_cells=64,1.16,45.3,NA,NA,NA,NA,NA,NA,NA
		sis_want="wakeups=64 probes_per_wakeup=1.16 probes_per_llc_scan=11.67 idle_hit_pct=45.3" ;;
	esac
}

# sis_stats_run NAME OUT [SHELL...]: sis-stats.sh (under SHELL, default
# sh) on a fake sched debugfs holding NAME.before, around a command that
# notes the enabled and audit switches and writes NAME.after; its output
# in OUT, its stderr in OUT.err, its status in $sis_rc (a sentence when
# the status or the switches were wrong: on during the command, on for
# the audit with --audit alone, as they were after it)
sis_stats_run() {
	local name=$1 out=$2 d=$tmp/sis-stats/$1 audit='' st=0
	shift 2
	[ $# -gt 0 ] || set -- sh
	rm -rf "$d"
	mkdir -p "$d/sis"
	cp "$top/tests/sis-stats/$name.before" "$d/sis/stats"
	echo 0 >"$d/sis/enabled"
	echo 0 >"$d/sis/audit"
	case $name in all) audit=--audit st=3 ;; esac
	sis_rc=0
	# shellcheck disable=SC2016 # the command's own arguments
	LAB_SCHED_DEBUGFS=$d "$@" "$G/sis-stats.sh" ${audit:+"$audit"} sh -c \
		'echo "$(cat "$1/enabled") $(cat "$1/audit")" >"$1/during"; cp "$2" "$1/stats"; exit "$3"' \
		- "$d/sis" "$top/tests/sis-stats/$name.after" "$st" >"$out" 2>"$out.err" || sis_rc=$?
	sis_switches="$(cat "$d/sis/during" 2>/dev/null), $(cat "$d/sis/enabled") $(cat "$d/sis/audit")"
	case $name:$sis_rc:$sis_switches in
	all:3:"1 1, 0 0"|noaudit:0:"1 0, 0 0"|idle:0:"1 0, 0 0"|old:0:"1 0, 0 0") ;;
	*) sis_rc="status $sis_rc (want $st), enabled and audit during the command and after it '$sis_switches'" ;;
	esac
}

sis_stats_tests() {
	local fx=$top/tests/sis-stats name o want got keys bb a d
	mkdir -p "$tmp/sis-stats"
	for name in all noaudit idle old; do
		o=$tmp/sis-stats/$name.out
		sis_stats_run "$name" "$o"
		sis_stats_case "$name"
		want=$sis_want
		keys=$(grep -E '^[a-z_]+=' "$o" | tr '\n' ' ' | sed 's/ $//')
		case $sis_rc in
		0|3) ;;
		*) notok "sis-stats.sh on tests/sis-stats/$name: $sis_rc"; continue ;;
		esac
		if [ "$keys" = "$want" ] && [ ! -s "$o.err" ]; then
			ok "sis-stats.sh on tests/sis-stats/$name: the figures as KEY=VALUE lines, as computed by hand (n/a or no key where a figure does not exist), status and switches kept"
		else
			notok "sis-stats.sh on tests/sis-stats/$name: KEY=VALUE lines '$keys', want '$want'; stderr: $(head -n2 "$o.err" | tr '\n' ' ')"
		fi
		# every other line as the old sis-stats.sh printed it, the KEY=VALUE
		# lines between the counters and the summary
		# (the blocks: c counters, k KEY=VALUE lines, s summary)
		got=$(awk '/^sis\./ { t = "c" } /^[a-z_]+=/ { t = "k" } !/^sis\./ && !/^[a-z_]+=/ { t = "s" }
			t != last { s = s t; last = t } END { print s }' "$o")
		if grep -vE '^[a-z_]+=' "$o" | diff -u "$fx/$name.want" - >"$o.diff" && [ "$got" = cks ]; then
			ok "sis-stats.sh on tests/sis-stats/$name: the sis.NAME lines and the summary as the old sis-stats.sh printed them ($name.want), the KEY=VALUE lines between"
		else
			notok "sis-stats.sh on tests/sis-stats/$name: blocks '$got' (want cks: counters, KEY=VALUE lines, summary); against $name.want: $(head -n12 "$o.diff" | tr '\n' ' ')"
		fi
		# the summary from the KEY=VALUE lines alone
		got=$(grep -E '^[a-z_]+=' "$o" | sh "$G/sis-stats.sh" --summary 2>&1 || echo "status $?")
		if [ "$got" = "$(grep -v '^sis\.' "$fx/$name.want")" ]; then
			ok "sis-stats.sh --summary on the KEY=VALUE lines of tests/sis-stats/$name alone: the summary of $name.want"
		else
			notok "sis-stats.sh --summary on tests/sis-stats/$name: $(echo "$got" | head -n4 | tr '\n' '|')"
		fi
		# the bench driver's CSV cells from the output, and from its
		# KEY=VALUE lines alone; from the rest (counters and summary) none
		grep -E '^[a-z_]+=' "$o" >"$o.keys" || true
		grep -vE '^[a-z_]+=' "$o" >"$o.prose" || true
		got=$(LAB_DIR=$G sh "$G/bench-guest.sh" --parse sis "$o" 2>&1)/$(LAB_DIR=$G sh "$G/bench-guest.sh" --parse sis "$o.keys" 2>&1)/$(LAB_DIR=$G sh "$G/bench-guest.sh" --parse sis "$o.prose" 2>&1)
		want=$sis_cells/$sis_cells/NA,NA,NA,NA,NA,NA,NA,NA,NA,NA
		if [ "$got" = "$want" ]; then
			ok "bench-guest.sh --parse sis on tests/sis-stats/$name: $sis_cells, from the KEY=VALUE lines (alone as well), none from the counters and summary"
		else
			notok "bench-guest.sh --parse sis on tests/sis-stats/$name (whole/keys/rest): '$got', want '$want'"
		fi
	done
	# a statistics file without calls (no kernel has printed one): no
	# wakeup count and nothing per wakeup, n/a rather than 0, in the
	# summary as well (where the old sis-stats.sh printed "wakeups: 0")
	d=$tmp/sis-stats/nocalls
	mkdir -p "$d/sis"
	printf 'llc_scans 0\nscan_probes 0\n' >"$d/sis/stats"
	printf 'llc_scans 2\nscan_probes 5\n' >"$d/after"
	echo 0 >"$d/sis/enabled"
	echo 0 >"$d/sis/audit"
	got=$(LAB_SCHED_DEBUGFS=$d sh "$G/sis-stats.sh" cp "$d/after" "$d/sis/stats" 2>&1 | grep -v '^sis\.' | tr '\n' '|')
	want="wakeups=n/a|probes_per_wakeup=n/a|probes_per_llc_scan=2.50|idle_hit_pct=n/a|wakeups:            n/a|"
	want="${want}probes per wakeup:  n/a (per LLC scan 2.50)|idle-hit rate:      n/a|"
	if [ "$got" = "$want" ]; then
		ok "sis-stats.sh without a calls counter: wakeups=n/a and n/a per wakeup, never 0; 5 probes in 2 LLC scans: 2.50"
	else
		notok "sis-stats.sh without a calls counter: '$got', want '$want'"
	fi
	# the node walks' counters (a later addition, in no fixture): 5 LLCs
	# visited in 4 walks, 1.25 per walk, and its summary line
	d=$tmp/sis-stats/walks
	mkdir -p "$d/sis"
	printf 'calls 0\nnode_walks 0\nnode_visits 0\n' >"$d/sis/stats"
	printf 'calls 10\nnode_walks 4\nnode_visits 5\n' >"$d/after"
	echo 0 >"$d/sis/enabled"
	echo 0 >"$d/sis/audit"
	got=$(LAB_SCHED_DEBUGFS=$d sh "$G/sis-stats.sh" cp "$d/after" "$d/sis/stats" 2>&1 | grep -e '^node_visits' -e '^node walks' | tr '\n' '|')
	want="node_visits_per_walk=1.25|node walks:         1.25 LLCs visited per walk|"
	if [ "$got" = "$want" ]; then
		ok "sis-stats.sh: 5 other LLCs visited in 4 node walks is node_visits_per_walk=1.25, in the summary too"
	else
		notok "sis-stats.sh node walks: '$got', want '$want'"
	fi
	# busybox, the guest's shell and awk, alone on the PATH
	bb=$(command -v busybox || true)
	if [ -z "$bb" ]; then
		skipped "sis-stats.sh under busybox: busybox is not installed here"
	else
		mkdir -p "$tmp/sis-stats/bb"
		for a in sh awk cat cp wc; do
			ln -sf "$bb" "$tmp/sis-stats/bb/$a"
		done
		for name in all old; do
			o=$tmp/sis-stats/$name.bb
			sis_stats_run "$name" "$o" env PATH="$tmp/sis-stats/bb" "$tmp/sis-stats/bb/sh"
			got=$(grep -E '^[a-z_]+=' "$o" | PATH="$tmp/sis-stats/bb" "$tmp/sis-stats/bb/sh" "$G/sis-stats.sh" --summary 2>&1 || true)
			if [ "$sis_rc" = "$([ "$name" = all ] && echo 3 || echo 0)" ] &&
				cmp -s "$o" "$tmp/sis-stats/$name.out" && [ ! -s "$o.err" ] &&
				[ "$got" = "$(grep -v '^sis\.' "$fx/$name.want")" ]; then
				ok "sis-stats.sh under busybox sh and awk on tests/sis-stats/$name: the same output, --summary the same summary"
			else
				notok "sis-stats.sh under busybox on tests/sis-stats/$name: $sis_rc; $(diff "$tmp/sis-stats/$name.out" "$o" | head -n4 | tr '\n' ' ') $(head -n2 "$o.err")"
			fi
		done
	fi
	# no reader of the summary's lines left: no script of the lab anchors a
	# pattern on them (awk /^...:/, grep, sed) or tests a line's start
	got=$(cd "$top" && grep -rlE --include='*.sh' --include='*.awk' --include='*.py' \
		-e '\^(wakeups|probes per wakeup|idle-hit rate|missed-idle rate|LLCs full|SIS_SHORT|SIS_CORE|SIS_NODE):' \
		-e 'startswith\(.(wakeups|probes per wakeup|idle-hit rate|missed-idle rate|LLCs full|SIS_SHORT|SIS_CORE|SIS_NODE):' \
		guest scripts tests tools 2>/dev/null | tr '\n' ' ')
	if [ -z "$got" ]; then
		ok "sis-stats.sh's summary for people: no script of guest/, scripts/, tests/, tools/ reads its lines"
	else
		notok "sis-stats.sh's summary is read by: $got"
	fi
}
