# shellcheck shell=bash
# The scoreboard's host tests, sourced by tests/run.sh (sec_host), whose
# $top, $S, $G, $tmp, ok, notok and expect_error they use.  No timing.
#
# Fixtures: score.csv (NPS1 and NPS4, two boots of two rounds, tip,
# SIS_CORE and SIS_NODE, hackbench and netperf at 1/16 and 2 x the CPUs,
# one hung run) with its score.conf and notes.txt; expect-report.txt,
# expect-cover.txt and expect-markdown.txt are score_report.py's output
# for it.  Checked by hand there: NPS1 SIS_CORE hackbench 1/16 has probes
# 1.41, 1.35, 1.34, 1.47 (mean 1.39, sd 0.06), NPS1 SIS_NODE hackbench 2
# has LLCs full 4.3, 3.9, 4.3, 4.6 (mean 4.3, sd 0.3); the hung run
# shows as 3/4 in NPS4 SIS_NODE netperf 2 and is listed; boot to boot is
# measured (two boots).

# one_error NAME PATTERN CMD...: CMD fails with exactly one line on stderr,
# which matches PATTERN
one_error() {
	local name=$1 pat=$2 rc=0
	shift 2
	"$@" >/dev/null 2>"$tmp/score.err" || rc=$?
	if [ "$rc" = 0 ]; then
		notok "$name: succeeded, expected an error"
	elif [ "$(wc -l <"$tmp/score.err")" != 1 ] || ! grep -q -- "$pat" "$tmp/score.err"; then
		notok "$name: status $rc, wanted one line matching '$pat': $(head -n3 "$tmp/score.err" | tr '\n' ' ')"
	else
		ok "$name: $(cat "$tmp/score.err")"
	fi
}

# score_guest_driver: guest/score-guest.sh on this host with a fake
# debugfs and a fake hackbench: a good run gives its figures, one that
# fails, hangs (sysrq 7, l, w and the old loglevel, then killed at
# run_limit) or prints no result is recorded as failed with its reason
# and no figures, status 3;
# the figures come from sis-stats.sh's KEY=VALUE lines alone: a good run
# whose sis-stats.sh printed those lines alone (keys) gives them, one
# whose sis-stats.sh printed every line but those (summary) is failed;
# a variant with a feature the kernel lacks is skipped with one line
score_guest_driver() {
	local g=$tmp/score-guest kind want rc row n
	mkdir -p "$g/bin" "$g/sis"
	for n in calls exit_target scan_probes smt_probes llc_idle_cpu node_hits llc_away \
		audit_checks audit_llc_miss audit_node_miss audit_llcs_full; do
		echo "$n 0"
	done >"$g/sis/stats"
	echo 0 >"$g/sis/enabled"
	echo 0 >"$g/sis/audit"
	cat >"$g/bin/hackbench" <<-'EOT'
		#!/bin/sh
		case $FAKE in
		hang) exec sleep 600 ;;
		fail) echo "hackbench: fork failed" >&2; exit 1 ;;
		silent) exit 0 ;;
		esac
		awk 'BEGIN { a["calls"] = 100; a["scan_probes"] = 250; a["exit_target"] = 40
			a["llc_idle_cpu"] = 20; a["node_hits"] = 10; a["llc_away"] = 7
			a["audit_checks"] = 80
			a["audit_llc_miss"] = 4; a["audit_node_miss"] = 2; a["audit_llcs_full"] = 6 }
			{ print $1, $2 + a[$1] }' "$SIS_DEBUGFS/stats" >"$SIS_DEBUGFS/new"
		mv "$SIS_DEBUGFS/new" "$SIS_DEBUGFS/stats"
		echo "Time: 0.5"
	EOT
	chmod +x "$g/bin/hackbench"
	# sis-stats.sh with its KEY=VALUE lines alone (keys) or without them
	# (summary), ahead of the real one on the PATH
	mkdir -p "$g/filter"
	cat >"$g/filter/sis-stats.sh" <<-EOT
		#!/bin/sh
		rc=0
		out=\$(sh "$G/sis-stats.sh" "\$@") || rc=\$?
		case \$FAKE in
		keys) printf '%s\n' "\$out" | grep -E '^[a-z_]+=' ;;
		*) printf '%s\n' "\$out" | grep -vE '^[a-z_]+=' ;;
		esac
		exit "\$rc"
	EOT
	chmod +x "$g/filter/sis-stats.sh"
	# the cost marker, which would be hostname: the names it was given
	printf '#!/bin/sh\necho "$1" >>"%s"\n' "$g/marks" >"$g/bin/mark"
	chmod +x "$g/bin/mark"
	for kind in ok fail hang silent keys summary; do
		case $kind in
		# work: 1 group x 1 sender x 1 receiver x 2000 messages; the
		# cost markers are the first two (0 and 1)
		ok|keys) want=",100,80,2.50,70.0,5.0,2.5,7.0,7.5,2000,0,1,[0-9]*,ok" ;;
		fail) want=",NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,[0-9]*,failed: exit status 1: hackbench: fork failed" ;;
		hang) want=",NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,[0-9]*,failed: hung: killed after 2 s; stacks of all CPUs" ;;
		silent) want=",NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,[0-9]*,failed: no Time: line in hackbench's output" ;;
		summary) want=",NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,[0-9]*,failed: sis-stats printed no figures (no wakeups= line)" ;;
		esac
		filter=
		case $kind in keys|summary) filter=$g/filter: ;; esac
		rm -rf "$g/out" "$g/marks" "$g/cost-marks"
		mkdir -p "$g/out"
		printf '%s\n' features="SIS_NODE SIS_CORE" variants="tip SIS_NODE+SIS_NODE_CORE" \
			benches=hackbench jobs=hackbench:1/16 rounds=1 runtime=1 messages=2000 run_limit=2 \
			>"$g/out/score.conf"
		echo "SIS_UTIL NO_SIS_NODE NO_SIS_CORE" >"$g/features"
		: >"$g/sysrq"
		rc=0
		FAKE=$kind LAB_SCHED_DEBUGFS=$g SCORE_SYSRQ=$g/sysrq \
			COST_MARK="$g/bin/mark" COST_MARKS="$g/cost-marks" \
			LAB_DIR=$G OUT=$g/out PATH="$filter$g/bin:$G:$PATH" \
			hang_guard 1200 "$g/hung" sh "$G/score-guest.sh" 1 1 >"$g/log" 2>&1 || rc=$?
		row=$(tail -n +2 "$g/out/score.csv" 2>/dev/null)
		case $kind:$rc in ok:0|fail:3|hang:3|silent:3|keys:0|summary:3) ;; *) row="status $rc: $row" ;; esac
		# shellcheck disable=SC2254
		case $row in
		"1,tip,hackbench,1/16,1,1,2,hackbench -T -p -g 1 -f 1 -l 2000"$want*)
			if { [ "$kind" = ok ] || [ "$kind" = keys ]; } && [ "$(tr '\n' ' ' <"$g/marks")" != "sis-cost-0 sis-cost-1 " ]; then
				notok "score guest driver: the ok run's cost markers were '$(tr '\n' ' ' <"$g/marks")', want 'sis-cost-0 sis-cost-1'"
			elif [ "$kind" = hang ] && ! sysrq_dump_asked "$g/sysrq"; then
				notok "score guest driver: the hung run did not ask for sysrq 7, l, w and the old loglevel: $(tr '\n' ' ' <"$g/sysrq")"
			else
				case $kind in
				keys) ok "score guest driver: a run whose sis-stats.sh printed its KEY=VALUE lines alone gives its figures, status $rc and '${row##*,}'" ;;
				summary) ok "score guest driver: a run whose sis-stats.sh printed all but its KEY=VALUE lines gives status $rc and '${row##*,}'" ;;
				*) ok "score guest driver: a run that does '$kind' gives status $rc and '${row##*,}'" ;;
				esac
			fi ;;
		*) notok "score guest driver: '$kind': row '$row', want '$want' (log: $(tail -n2 "$g/log" | tr '\n' ' '))" ;;
		esac
	done
	if [ "$(grep -c 'skipping variant SIS_NODE+SIS_NODE_CORE: this kernel has no SIS_NODE_CORE' "$g/log")" = 1 ] &&
		[ "$(cat "$g/out/notes.txt")" = "skipped variant SIS_NODE+SIS_NODE_CORE: the kernel has no SIS_NODE_CORE" ]; then
		ok "score guest driver: a variant with a feature the kernel lacks is skipped with one line"
	else
		notok "score guest driver: the skipped variant: $(grep skipping "$g/log"; cat "$g/out/notes.txt")"
	fi
}

score_tests() {
	local d=$top/tests/score f
	for f in report cover markdown; do
		if "$S/score_report.py" --format "$f" "$d/score.csv" >"$tmp/score.$f" 2>&1 &&
			diff -u "$d/expect-$f.txt" "$tmp/score.$f" >"$tmp/score.diff"; then
			ok "score_report $f output equals tests/score/expect-$f.txt"
		else
			notok "score_report $f: $(head -n8 "$tmp/score.diff" "$tmp/score.$f" | tr '\n' ' ')"
		fi
	done
	if "$S/score_report.py" --plot "$tmp/score-plots" "$d/score.csv" >/dev/null 2>"$tmp/score.err" &&
		[ "$(head -c4 "$tmp/score-plots/frontier-nps1.png" | tail -c3)" = PNG ] &&
		[ "$(head -c4 "$tmp/score-plots/frontier-nps4.png" | tail -c3)" = PNG ]; then
		ok "score_report --plot writes frontier-nps1.png and frontier-nps4.png"
	else
		notok "score_report --plot: $(head -n2 "$tmp/score.err")"
	fi
	# results from before the LLCs full figure: read, that figure n/a
	mkdir -p "$tmp/score-old"
	cut -d, -f1-15,17- "$d/score.csv" >"$tmp/score-old/score.csv"
	cp "$d/score.conf" "$d/notes.txt" "$tmp/score-old/"
	if "$S/score_report.py" "$tmp/score-old/score.csv" >"$tmp/score.old" 2>&1 &&
		grep -q '^  hackbench 2     4/4  7.98 ± 0.24 .* 14.8 ± 0.2  n/a$' "$tmp/score.old"; then
		ok "score_report reads results without llcs_full_pct (n/a there)"
	else
		notok "score_report on results without llcs_full_pct: $(grep -m1 -e error -e '^  hackbench 2' "$tmp/score.old")"
	fi
	# make mail's tables: a topic's rows (tip and its variants) out of the
	# full cover table, or its variants' skipped sentences and status 3
	local rc=0 sel
	sel=$("$S/score_report.py" --format cover --variants "tip NODE" "$d/score.csv") || rc=$?
	if [ "$rc" = 0 ] && [ "$(echo "$sel" | grep -c '^NODE ')" = 2 ] && ! echo "$sel" | grep -q '^CORE ' &&
		[ "$(echo "$sel" | grep -vE '^(CORE|Skipped|  level|  adding) ' | grep -c '')" = "$(grep -vE '^CORE |^Skipped|^  level|^  adding' "$d/expect-cover.txt" | grep -c '')" ]; then
		ok "score_report --variants 'tip NODE': the cover table with the rows of tip and NODE alone"
	else
		notok "score_report --variants 'tip NODE': status $rc, $(echo "$sel" | grep -E '^(tip|NODE|CORE) ' | tr '\n' '|')"
	fi
	rc=0
	sel=$("$S/score_report.py" --format cover --variants "tip NODE+NODE_MMC" "$d/score.csv") || rc=$?
	if [ "$rc" = 3 ] && [ "$(echo "$sel" | head -n1)" = "Skipped variant SIS_NODE+SIS_NODE_MMC: SIS_NODE_MMC stops at the MMC" ]; then
		ok "score_report --variants with no row but tip: status 3 and the reason the run skipped them ($(echo "$sel" | tr -s ' \n' ' '))"
	else
		notok "score_report --variants 'tip NODE+NODE_MMC': status $rc (want 3), '$(echo "$sel" | head -n2 | tr '\n' ' ')'"
	fi
	one_error "score_report: unknown NPS" "line 3: unknown NPS '3'" "$S/score_report.py" "$d/bad-nps.csv"
	one_error "score_report: unknown feature" "unknown feature 'SIS_FOO' in variant 'SIS_NODE+SIS_FOO'" \
		"$S/score_report.py" "$d/bad-variant.csv"
	# a counter read in flight may pass 100% by a wakeup or so, not more
	one_error "score_report: rate over 100%" "line 2: idle_hit_pct '101.5' is not a percentage" \
		"$S/score_report.py" "$d/bad-pct.csv"
	one_error "score_report: empty CSV" "empty.csv is empty" "$S/score_report.py" "$d/empty.csv"
	one_error "score_report: unknown format" "invalid choice: 'xml'" "$S/score_report.py" --format xml "$d/score.csv"
	one_error "score: unknown NPS" "unknown NPS '3'" env NPS="1 3" "$S/score.sh"
	one_error "score: unknown feature" "unknown feature 'SIS_FOO' in variant 'SIS_NODE+SIS_FOO'" \
		env VARIANTS="tip SIS_NODE+SIS_FOO" "$S/score.sh"
	one_error "score: unknown size" "unknown SIZE 'huge'" env SIZE=huge "$S/score.sh"
	one_error "score: bad load point" "not '0.5'" env LOADS="1/16 0.5" "$S/score.sh"
	score_guest_driver
}
