# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The host section, sourced by tests/run.sh: it calls the tests of
# tests/host/ and holds the helpers they share.

# sysrq_dump_asked FILE: FILE (a fake sysrq trigger) got what a guest
# writes for a hung run: loglevel 7 (the blocked-task lines are info level
# and the lab boots with loglevel=5), every CPU's stack, the blocked tasks,
# then the loglevel back (one digit)
sysrq_dump_asked() {
	case $(tr '\n' ' ' <"$1") in
	"7 l w "[0-9]" ") return 0 ;;
	*) return 1 ;;
	esac
}

# fake_sched DIR: a fake sched debugfs for the guest code run on this host
# (LAB_SCHED_DEBUGFS=DIR): a features file with SIS_UTIL on and two of
# the series' features off
fake_sched() {
	mkdir -p "$1"
	echo "SIS_UTIL NO_SIS_NODE NO_SIS_CORE" >"$1/features"
}

# The host section runs the guest code on this host (bench-guest.sh,
# score-guest.sh, sis-stats.sh, sis-lib.sh's helpers), each time with
# LAB_SCHED_DEBUGFS and the sysrq trigger pointed at fakes.  strace follows
# the whole section and every process it starts (trace_begin), and
# host_state_untouched fails on any system call that named the host's
# debugfs or sysrq trigger, whether the path exists here or not.

# trace_begin FILE: strace attached to this shell from now on, following
# every process it starts, each system call that names a file written to
# FILE; false, with the reason in FILE.err, when it cannot attach
trace_begin() {
	local i me=$BASHPID
	TRACER=
	command -v strace >/dev/null || { echo "strace is not installed" >"$1.err"; return 1; }
	strace -f -qq -e trace=%file,sethostname -o "$1" -p "$me" 2>"$1.err" &
	TRACER=$!
	for i in $(seq 100); do
		[ "$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$me/status")" != "$TRACER" ] || return 0
		kill -0 "$TRACER" 2>/dev/null || break
		sleep 0.1
	done
	kill "$TRACER" 2>/dev/null || true
	wait "$TRACER" 2>/dev/null || true
	[ -s "$1.err" ] || echo "strace did not attach within 10 s" >"$1.err"
	TRACER=
	return 1
}

# trace_end: strace detached
trace_end() {
	[ -n "${TRACER:-}" ] || return 0
	kill "$TRACER" 2>/dev/null || true
	wait "$TRACER" 2>/dev/null || true
	TRACER=
}

# host_state_untouched FILE: the system calls of the trace FILE that named
# the host's debugfs (/sys/kernel/debug: the sched features, the SIS
# statistics, the knobs) or its sysrq trigger, or set its host name (the
# guest's cost marker, guest/cost-mark.sh): none, or a failure
host_state_untouched() {
	local hits
	hits=$(grep -E '^[0-9]+ +[a-z0-9_]+\(([A-Z_]+|[0-9]+), "(/sys/kernel/debug|/proc/sysrq-trigger)|^[0-9]+ +[a-z0-9_]+\("(/sys/kernel/debug|/proc/sysrq-trigger)|^[0-9]+ +sethostname\(' "$1" || true)
	if [ -z "$hits" ]; then
		ok "host tests: no system call named the host's /sys/kernel/debug or /proc/sysrq-trigger or set its host name ($(grep -c '' "$1") calls traced)"
	else
		notok "host tests: $(echo "$hits" | wc -l) system calls named the host's kernel state, first: $(echo "$hits" | head -n3 | cut -c1-160 | tr '\n' '|')"
	fi
}

# the benchmark programs' self-tests and the report generator (host)
sec_host() {
	echo "== benchmark programs and report generator (host)"
	local traced=0
	if trace_begin "$tmp/host.trace"; then
		traced=1
	else
		skipped "host tests: strace cannot follow them, host kernel state not checked: $(head -n1 "$tmp/host.trace.err")"
	fi
	ktap_harvest
	ktap_skips
	script_names_apart
	readme_reference
	runner_size
	budget_table
	guest_test_boots
	if make -s -C "$top/tools" O="$LAB_OUT/tools" check >"$logs/tools-check.log" 2>&1; then
		while read -r line; do
			ok "$line"
		done < <(grep 'self-test: ok' "$logs/tools-check.log")
	else
		notok "tools self-tests: $(tail -n1 "$logs/tools-check.log")"
	fi
	host_bench_programs
	bench_registry_one_file
	figures_one_list
	engine_exit_status
	matrix_resume
	ground_truth_scores
	results_traceable
	base_fixture_use
	bench_driver_failures
	refresh_refuses_edited_stack
	cover_letter_numbers
	# the scoreboard: its reader on fixed inputs, bad input, the guest driver
	. "$top/tests/score/test.sh"
	score_tests
	# sis-stats.sh on fixed counters: its KEY=VALUE figures, its summary,
	# under busybox as well, and their readers
	. "$top/tests/sis-stats/test.sh"
	sis_stats_tests
	# the cost plugin's reader on fixed inputs, and bad input
	cost_host_tests
	# the platforms' topology without booting, against fixtures
	. "$top/tests/topology/test.sh"
	topology_tests
	# the models of interleavings, each showing the earlier protocols lose
	# what the kernel's keeps: the SIS_CORE naming of two racing scans
	# (0011, 0012) and SIS_WORD's bits with store buffers (0024)
	local model name out
	for model in "sis-rename.py:naming model" "sis-word.py:idle-word model"; do
		name=${model#*:}
		if out=$("$top/tests/model/${model%%:*}" 2>&1); then
			ok "$name: $(echo "$out" | tr '\n' ';' | sed 's/;$//')"
		else
			notok "$name: $(echo "$out" | tr '\n' ';' | sed 's/;$//')"
		fi
	done
	# which boots are booted again (retry_splats): fixed guest logs, a soft
	# lockup or a warning outside the series' files alone (retry-*), with
	# another splat or none (no-retry-*)
	for f in "$top"/tests/splat/*.log; do
		case ${f##*/}:$(retry_splats "$f" && echo y) in
		retry-*:y) ok "boot retry rule: tests/splat/${f##*/} is booted again" ;;
		no-retry-*:) ok "boot retry rule: tests/splat/${f##*/} is not booted again" ;;
		*) notok "boot retry rule: wrong verdict on tests/splat/${f##*/}" ;;
		esac
	done
	# what boot.sh prints of a guest it stopped: fixed console logs
	for f in "$top"/tests/hang/*.log; do
		if "$S/hang-digest.sh" --map "$top/tests/hang/System.map" "$f" |
			diff "${f%.log}.want" - >"$tmp/diff"; then
			ok "hang digest: tests/hang/${f##*/} gives its .want"
		else
			notok "hang digest: tests/hang/${f##*/}: $(head -n3 "$tmp/diff" | tr '\n' ' ')"
		fi
	done
	# the stall check's verdicts: the jiffies_lock convoy in busy.log (3 of
	# 5 vCPUs on it), a convoy on another lock in rcu.log (9 of 16
	# spinning, 8 on a field of rcu_state: the CI's NPS1 stall of stop
	# 42), none in lone.log (2 of 16) and idle.log (no registers); the
	# looks for the second kind follow the kernel's stall reports, which
	# kept that console from falling silent (2 in rcu.log, none in busy.log)
	local f v got=
	for f in busy rcu lone idle; do
		v=0
		"$S/hang-digest.sh" --convoy --map "$top/tests/hang/System.map" "$top/tests/hang/$f.log" >/dev/null || v=$?
		got=$got$v
	done
	got="$got, $(stall_reports "$top/tests/hang/rcu.log") $(stall_reports "$top/tests/hang/busy.log")"
	if [ "$got" = "0311, 2 0" ]; then
		ok "hang digest --convoy: jiffies_lock's convoy in tests/hang/busy.log, another lock's in rcu.log (2 stall reports), none in lone.log and idle.log"
	else
		notok "hang digest --convoy: statuses and stall reports $got for busy rcu lone idle (want 0311, 2 0)"
	fi
	hang_guard_kills
	bench_knobs
	bench_programs_record
	# fixed inputs with known outputs: sign rule (lower-is-better baselines
	# print -0.00), CV, HMean and Median statistics, both significance tests,
	# [Verification Run] rows; results-by-name.csv holds the same results
	# with the columns in another order and a kind column (verify rows).
	# emulated/ is a QEMU TCG run with KNOBS=llc_balancing=0,1, every SIS
	# figure, a failed run, a base kernel without statistics and
	# programs.txt: the SIS decisions lead, the timings are marked emulated
	# (norm and old); host-knobs/ holds the same results from a machine
	# itself (--host): the timings lead, the SIS decisions follow
	rep=$top/tests/report
	while read -r name exp csv opts; do
		# shellcheck disable=SC2086
		if "$S/bench-report.sh" $opts "$rep/$csv" >"$tmp/rep" 2>&1 &&
			diff -u "$rep/expect-$exp.txt" "$tmp/rep" >"$tmp/rep.diff"; then
			ok "bench-report $name output equals tests/report/expect-$exp.txt"
		else
			notok "bench-report $name: $(head -n8 "$tmp/rep.diff" "$tmp/rep" | tr '\n' ' ')"
		fi
	done <<-EOT
	norm norm results.csv --format norm
	old old results.csv --format old
	norm-welch norm-welch results.csv --sig welch
	by-column-name norm results-by-name.csv --format norm
	by-column-name-old old results-by-name.csv --format old
	emulated emulated-norm emulated/results.csv --format norm
	emulated-old emulated-old emulated/results.csv --format old
	host-knobs host-knobs host-knobs/results.csv --format norm
	EOT
	if "$S/bench-report.sh" --format json "$rep/emulated/results.csv" | python3 -c '
import json, sys
d = {b["bench"]: b for b in json.load(sys.stdin)}
h = d["hackbench"]
assert h["base"] == "tip@llc_balancing=0" and h["timings"].startswith("emulated")
assert h["program"]["version"] == "Debian rt-tests 2.4-1"
r = [x for x in h["results"] if x["variant"] == "SIS_NODE@llc_balancing=1"][0]
assert r["knobs"] == {"llc_balancing": "1"} and r["marker"] == "*"
assert r["sis"]["missed_idle_node_pct"] == 2.2 and r["sis"]["node_hit_pct"] == 42.5
' 2>"$tmp/json.err"; then
		ok "bench-report json of the emulated run: base tip@llc_balancing=0, timings emulated, program versions, knobs and SIS figures per result"
	else
		notok "bench-report json of the emulated run: $(tail -n1 "$tmp/json.err")"
	fi
	if "$S/bench-report.sh" --format json "$rep/results.csv" |
		python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null; then
		ok "bench-report json output parses"
	else
		notok "bench-report json output is not valid"
	fi
	if [ "$("$S/bench-report.sh" --format json "$rep/results.csv" | grep -c '"marker": "\*"')" = 1 ]; then
		ok "bench-report marks exactly the one significant regression of the fixture"
	else
		notok "bench-report marks $("$S/bench-report.sh" --format json "$rep/results.csv" | grep -c '"marker": "\*"') regressions, expected 1"
	fi
	# the guest's pick of verification re-runs (mawk there, as here)
	for csv in results.csv results-by-name.csv; do
		outl=$(awk -f "$G/bench-stats.awk" -v mode=outliers <(sh "$G/bench-registry.sh") "$rep/$csv")
		if [ "$outl" = "hackbench:1 SIS_CORE" ]; then
			ok "outlier selection picks the regressed case of $csv for re-running ($outl)"
		else
			notok "outlier selection in $csv: got '$outl', expected 'hackbench:1 SIS_CORE'"
		fi
	done
	outl=$(awk -f "$G/bench-stats.awk" -v mode=outliers -v base=tip@llc_balancing=0 \
		<(sh "$G/bench-registry.sh") "$rep/emulated/results.csv" | tr '\n' ' ')
	if [ "$outl" = "hackbench:1 SIS_NODE@llc_balancing=0 hackbench:1 SIS_NODE@llc_balancing=1 " ]; then
		ok "outlier selection against tip@llc_balancing=0 picks what the report marks * (${outl% })"
	else
		notok "outlier selection against tip@llc_balancing=0: got '$outl'"
	fi
	expect_error "report: unknown format" "unknown format 'xml'" "$S/bench-report.sh" --format xml "$rep/results.csv"
	expect_error "report: option without its value" "--format needs a value" "$S/bench-report.sh" --format
	expect_error "report: not a results file" "is not a bench results file" "$S/bench-report.sh" "$rep/system.txt"
	expect_error "report: guest awk asked for a report" "only outliers runs here" \
		awk -f "$G/bench-stats.awk" -v mode=norm <(sh "$G/bench-registry.sh") "$rep/results.csv"
	expect_error "bench: bad ROUNDS" "ROUNDS must be a positive number" env ROUNDS=x "$S/bench.sh"
	expect_error "bench: unknown benchmark" "unknown benchmark 'foo' (rt-hackbench hackbench schbench" env BENCHES=foo "$S/bench.sh"
	expect_error "bench: bad RUN_LIMIT" "must be positive numbers, not 'soon'" env RUN_LIMIT=soon "$S/bench.sh"
	expect_error "bench: a feature the series lacks" "unknown feature 'SIS_FOO' in variant 'SIS_FOO'" \
		env VARIANTS="tip SIS_FOO" "$S/bench.sh"
	expect_error "bench: SIS_NODE_MMC without sched_mmc" "no variant left to run" \
		env VARIANTS=SIS_NODE+SIS_NODE_MMC MMC=0 "$S/bench.sh"
	expect_error "score: --host" "runs make bench's matrix, not the scoreboard" "$S/score.sh" --host
	expect_error "bench: KNOBS without a value" "KNOBS: 'llc_balancing' is not NAME=VALUE" \
		env KNOBS=llc_balancing "$S/bench.sh"
	expect_error "bench: KNOBS with an empty value" "KNOBS: 'llc_balancing=0,,1' is not NAME=VALUE" \
		env KNOBS=llc_balancing=0,,1 "$S/bench.sh"
	expect_error "bench: a knob named twice" "KNOBS: llc_balancing is named twice" \
		env KNOBS="llc_balancing=0 llc_balancing=1" "$S/bench.sh"
	expect_error "bench: the features as a knob" "KNOBS: features is not a knob here" \
		env KNOBS=features=SIS_NODE "$S/bench.sh"
	trace_end
	[ "$traced" = 0 ] || host_state_untouched "$tmp/host.trace"
}
