# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# KNOBS in the bench driver on this host, with a fake sched debugfs and a
# fake tbench whose figure is the knob's value: each variant runs once per
# value, labelled VARIANT@NAME=VALUE, with the knob at that value during
# the run and at its old one afterwards; a knob the kernel lacks is refused
# with one line before any run, with nothing written and every knob as it
# was; the same in make score's guest.  The SIS figures of a run:
# sis-stats.sh on a fake statistics directory, read back as the CSV's
# cells.
bench_knobs() {
	local b=$tmp/bk rc got want knob
	fake_sched "$b/sched"
	mkdir -p "$b/bin" "$b/sched/llc_balancing" "$b/sis"
	knob=$b/sched/llc_balancing/enabled
	echo 1 >"$knob"
	cat >"$b/bin/tbench" <<-'EOT'
		#!/bin/sh
		echo "Throughput 10$(cat "$KNOB") MB/sec  1 clients  1 procs  max_latency=1.000 ms"
	EOT
	printf '#!/bin/sh\nexec sleep 600\n' >"$b/bin/tbench_srv"
	chmod +x "$b/bin/tbench" "$b/bin/tbench_srv"
	run_knobs() {
		rm -rf "$b/out"
		mkdir -p "$b/out"
		printf '%s\n' variants=tip "knobs=$1" benches=tbench size=tiny rounds=1 verify=0 \
			audit=0 netperf_port=12875 >"$b/out/bench.conf"
		rc=0
		KNOB=$knob LAB_SCHED_DEBUGFS=$b/sched BENCH_SYSRQ=$b/sysrq LAB_DIR=$G OUT=$b/out \
			PATH="$b/bin:$G:$PATH" hang_guard 1200 "$b/hung" sh "$G/bench-guest.sh" >"$b/log" 2>&1 || rc=$?
		[ "$rc" != 124 ] || sed 's/^/# /' "$b/hung"
	}
	run_knobs llc_balancing=0,1
	got=$(csv_cols "$b/out/results.csv" variant value 2>/dev/null | tr ',\n' ': ')
	want="tip@llc_balancing=0:100 tip@llc_balancing=1:101 "
	if [ "$rc" = 0 ] && [ "$got" = "$want" ] && [ "$(cat "$knob")" = 1 ] &&
		grep -qx 'sched_cache: CONFIG_SCHED_CACHE=y, llc_balancing/enabled 1' "$b/out/system.txt"; then
		ok "bench KNOBS=llc_balancing=0,1: each run labelled and set (${got% }), the old value back after, CONFIG_SCHED_CACHE in system.txt"
	else
		notok "bench KNOBS=llc_balancing=0,1: status $rc, results '$got' (want '$want'), knob $(cat "$knob") after: $(tail -n1 "$b/log")"
	fi
	run_knobs "llc_balancing=0 no_such_knob=1"
	got=$(grep '^bench' "$b/log")
	want="bench-guest: error: this kernel has no sched knob no_such_knob (no $b/sched/no_such_knob)"
	if [ "$rc" = 2 ] && [ "$got" = "$want" ] && [ "$(cat "$b/out/refused")" = "${want#bench-guest: error: }" ] &&
		[ ! -e "$b/out/results.csv" ] && [ ! -e "$b/out/system.txt" ] && [ "$(cat "$knob")" = 1 ]; then
		ok "bench: a knob the kernel lacks is refused before any run, in one line, the other knob as it was ($got)"
	else
		notok "bench: a missing knob: status $rc, '$got', results $(cd "$b/out" 2>/dev/null && echo *), knob $(cat "$knob")"
	fi
	# make score's guest: the same knob dimension (engine.sh knob_labels)
	mkdir -p "$b/sched/sis"
	printf 'calls 0\n' >"$b/sched/sis/stats"
	echo 0 >"$b/sched/sis/enabled"
	echo 0 >"$b/sched/sis/audit"
	cat >"$b/bin/tbench" <<-'EOT'
		#!/bin/sh
		cat "$KNOB" >>"$KNOB_SEEN"
		echo "Throughput 100 MB/sec  1 clients  1 procs  max_latency=1.000 ms"
	EOT
	run_score_knobs() {
		rm -rf "$b/out" "$b/seen"
		mkdir -p "$b/out"
		printf '%s\n' variants=tip "knobs=$1" benches=tbench jobs=tbench:1 rounds=1 runtime=1 \
			messages=1000 run_limit=60 >"$b/out/score.conf"
		rc=0
		KNOB=$knob KNOB_SEEN=$b/seen LAB_SCHED_DEBUGFS=$b/sched SCORE_SYSRQ=$b/sysrq LAB_DIR=$G \
			OUT=$b/out PATH="$b/bin:$G:$PATH" hang_guard 1200 "$b/hung" sh "$G/score-guest.sh" 1 1 >"$b/log" 2>&1 || rc=$?
		[ "$rc" != 124 ] || sed 's/^/# /' "$b/hung"
	}
	run_score_knobs llc_balancing=0,1
	got=$(csv_cols "$b/out/score.csv" variant 2>/dev/null | tr '\n' ' ')
	want="tip@llc_balancing=0 tip@llc_balancing=1 "
	if [ "$got" = "$want" ] && [ "$(cat "$b/seen" 2>/dev/null | tr '\n' ' ')" = "0 1 " ] && [ "$(cat "$knob")" = 1 ]; then
		ok "score KNOBS=llc_balancing=0,1: each run labelled (${got% }) and run at its value (0, then 1), the old value back after"
	else
		notok "score KNOBS=llc_balancing=0,1: status $rc, rows '$got' (want '$want'), values seen '$(cat "$b/seen" 2>/dev/null | tr '\n' ' ')', knob $(cat "$knob") after: $(tail -n1 "$b/log")"
	fi
	run_score_knobs "llc_balancing=0 no_such_knob=1"
	got=$(grep '^score' "$b/log")
	want="score: error: this kernel has no sched knob no_such_knob (no $b/sched/no_such_knob)"
	if [ "$rc" = 2 ] && [ "$got" = "$want" ] && [ ! -e "$b/out/score.csv" ] && [ "$(cat "$knob")" = 1 ]; then
		ok "score: a knob the kernel lacks is refused before any run, in one line, the other knob as it was"
	else
		notok "score: a missing knob: status $rc, '$got', results $(cd "$b/out" 2>/dev/null && echo *), knob $(cat "$knob")"
	fi
	# sis-stats.sh's summary of a run, as bench-guest.sh records it
	printf '%s\n' calls scan_probes smt_probes node_probes llc_scans exit_target exit_prev \
		exit_recent smt_hits llc_idle_core llc_idle_cpu node_hits audit_checks audit_llc_miss \
		audit_node_miss short_taken core_busy node_scans | awk '{ print $1, 0 }' >"$b/sis/stats"
	paste -d' ' <(cut -d' ' -f1 "$b/sis/stats") <(printf '%s\n' 1000 2000 500 400 400 300 200 0 100 \
		100 100 75 1000 12 34 123 5 150) >"$b/sis/after"
	echo 0 >"$b/sis/enabled"
	echo 0 >"$b/sis/audit"
	SIS_DEBUGFS=$b/sis sh "$G/sis-stats.sh" --audit cp "$b/sis/after" "$b/sis/stats" >"$b/sis/out" 2>&1 || true
	got=$(LAB_DIR=$G sh "$G/bench-guest.sh" --parse sis "$b/sis/out")
	want=1000,2.50,87.5,1.2,3.4,12.3,5,150,2.67,50.0
	if [ "$got" = "$want" ]; then
		ok "bench: a run's SIS figures from sis-stats.sh --audit (wakeups, probes, idle hits, missed idle LLC and node, SIS_SHORT, SIS_CORE, SIS_NODE): $got"
	else
		notok "bench: SIS figures '$got', want '$want', from: $(tail -n4 "$b/sis/out" | tr '\n' ' ')"
	fi
}
