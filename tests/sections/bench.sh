# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The bench section, sourced by tests/run.sh.

# the bench pipeline at its smallest size
sec_bench() {
	# the benchmark pipeline end to end, at its smallest size: every benchmark
	# runs in the guest, results, reports, JSON and plots come out; the
	# numbers themselves are not checked.  KNOBS=llc_balancing=0 (one value:
	# no more runs) sets cache-aware scheduling's knob for every run.
	# COST=0: the cost path is the engine's, which the cost boot runs
	# (tests/cost), and the plugin doubles the audited runs.  BASE=0: the
	# base kernel is a second full compile on a fresh machine; its boot as
	# variant base is make check-full's (bench_base_test)
	d=
	if [ "${TEST_BENCH:-1}" = 1 ]; then
		echo "== bench smoke run (SIZE=tiny)"
		rc=0
		SIZE=tiny ROUNDS=2 VERIFY=1 VARIANTS="tip SIS_SHORT+SIS_CORE" KNOBS=llc_balancing=0 NPS=1 COST=0 \
			BASE=0 "$S/bench.sh" --kernel "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" \
			>"$logs/bench-smoke.log" 2>&1 || rc=$?
		d=$(sed -n 's/^bench.sh: results in //p' "$logs/bench-smoke.log")
		# 3: some runs failed, which the report must then say first
		if [ "$rc" = 3 ] && [ "$(head -n1 "$d/report.txt")" = "MISSING RESULTS" ]; then
			ok "bench smoke: $(grep -c ',failed: ' "$d/results.csv") failed results, listed at the top of the report"
			rc=0
		fi
		if [ "$rc" = 0 ]; then
			for b in $(awk -F'|' '!/^#/ && NF { print $1 }' <(sh "$G/bench-registry.sh") | grep -v 'stream-100'); do
				n=$(csv_cols "$d/results.csv" bench kind value |
					awk -F, -v b="$b" '$1 == b && $2 == "run" && $3 ~ /^[0-9.]+$/' | wc -l)
				if [ "$n" -ge 4 ]; then
					ok "bench smoke: $b: $n numeric results, in the report: $(grep -c "^Test          : $b\$" "$d/report.txt")"
				else
					notok "bench smoke: $b: $n numeric results (want 4 at least), see $d"
				fi
			done
			for f in report.txt report-old.txt results.json system.txt programs.txt plots/hackbench.png; do
				if [ -s "$d/$f" ]; then ok "bench smoke: wrote $f"; else notok "bench smoke: no $f in $d"; fi
			done
			# emulated: the SIS decisions (with the audit's missed-idle
			# rates) lead, the timings follow, marked; the knob's runs
			# and cache-aware scheduling's state; the programs
			sis=$(grep -n '^o SIS Decisions$' "$d/report.txt" | cut -d: -f1)
			tim=$(grep -n '^o Timings under QEMU TCG emulation: plumbing only, not performance$' "$d/report.txt" | cut -d: -f1)
			if [ -n "$sis" ] && [ -n "$tim" ] && [ "$sis" -lt "$tim" ] &&
				grep -q '^   missed idle, LLC ' "$d/report.txt" &&
				grep -q '^Timings       : emulated (QEMU TCG)' "$d/report.txt"; then
				ok "bench smoke: the report leads with the SIS decisions (line $sis, missed-idle rates included), the emulated timings follow (line $tim)"
			else
				notok "bench smoke: SIS decisions at line '$sis', timings heading at line '$tim' of $d/report.txt"
			fi
			if grep -q '^sched_cache: CONFIG_SCHED_CACHE=y, llc_balancing/enabled ' "$d/system.txt" &&
				grep -q '^  - cache-aware scheduling: CONFIG_SCHED_CACHE=y' "$d/report.txt" &&
				[ "$(csv_cols "$d/results.csv" variant | grep -vc '@llc_balancing=0$')" = 0 ]; then
				ok "bench smoke: every run labelled @llc_balancing=0, cache-aware scheduling in the report ($(sed -n 's/^sched_cache: //p' "$d/system.txt"))"
			else
				notok "bench smoke: KNOBS=llc_balancing=0: $(grep sched_cache "$d/system.txt"), $(csv_cols "$d/results.csv" variant | sort -u | tr '\n' ' ')"
			fi
			# the SIS figures the guest's sis-stats.sh printed as KEY=VALUE
			# lines, read there by bench-guest.sh: numbers in every ok run
			# of the patched kernel (the base kernel has no statistics)
			sisbad=$(csv_cols "$d/results.csv" variant status wakeups probes_per_wakeup idle_hit_pct \
				missed_idle_llc_pct missed_idle_node_pct short_taken_pct core_busy node_scans |
				awk -F, '$1 !~ /^base/ && $2 == "ok" { n++; for (i = 3; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) { print; next } }
					END { if (!n) print "no ok run of the patched kernel" }' | head -n3 | tr '\n' ' ')
			if [ -z "$sisbad" ]; then
				ok "bench smoke: every ok run of the patched kernel has its SIS figures (wakeups to SIS_NODE scans) from the guest's KEY=VALUE lines"
			else
				notok "bench smoke: runs without SIS figures (variant, status, wakeups to node_scans): $sisbad"
			fi
			if grep -q '^o Programs$' "$d/report.txt" && grep -q '^  tbench: .*(Debian dbench ' "$d/report.txt"; then
				ok "bench smoke: the Programs block ($(grep '^  tbench: ' "$d/report.txt" | sed 's/^ *//'))"
			else
				notok "bench smoke: no Programs block in $d/report.txt"
			fi
		else
			notok "bench smoke run failed: $(tail -n2 "$logs/bench-smoke.log" | tr '\n' ' ')"
		fi
	fi
}

# bench_killed_test: a guest killed before its end (make check-full's
# boots-extra): make bench must fail and say so
bench_killed_test() {
	local try rc killed
	# a guest killed before its end (a 600 s tbench run, a 180 s limit
	# for the whole boot): make bench must fail and say so
	# (with KNOBS=llc_balancing=0,1, which the guest must accept: every
	# value is written once before the first run).  The guest must
	# reach user space within the limit to record its kernel: at 60 s
	# one boot did not, its vCPUs in a stop_machine() and on
	# wq_mayday_lock (Documentation/tcg.md); one that does not is run once more,
	# as boot_check boots again a guest stopped before user space
	for try in 1 2; do
		rc=0
		BASE=0 SHAPE=small SIZE=tiny RUNTIME=600 ROUNDS=1 VERIFY=0 VARIANTS=tip BENCHES=tbench NPS=1 COST=0 \
			KNOBS=llc_balancing=0,1 BENCH_TIMEOUT=180 "$S/bench.sh" \
			--kernel "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" \
			>"$logs/bench-killed.log" 2>&1 || rc=$?
		# its own results directory, which has no report
		killed=$(sed -n 's/^bench.sh: results in //p' "$logs/bench-killed.log")
		grep -q 'LAB-BOOTED: ' "$killed/console.log" 2>/dev/null || [ "$try" = 2 ] || {
			echo "# bench: the killed run's guest never reached user space ($killed/console.log); running again"
			continue
		}
		break
	done
	if [ "$rc" != 0 ] && [ "$rc" != 3 ] && grep -q 'stopped early' "$logs/bench-killed.log" &&
		grep -qx 'knobs: llc_balancing=0,1' "$killed/system.txt" &&
		grep -q '^kernel: ' "$killed/system.txt"; then
		ok "bench: a guest ended by its time limit fails make bench (status $rc) and is reported (it took KNOBS=llc_balancing=0,1)"
	else
		notok "bench: a guest ended by its time limit: status $rc, $(tail -n1 "$logs/bench-killed.log")"
	fi
}

# bench_base_test: make bench boots the unpatched base kernel after the
# patched one, as variant base (make check-full's boots-extra: the base is
# a second full compile on a fresh machine)
bench_base_test() {
	local rc=0 b nb
	echo "== bench with the base kernel (SIZE=tiny, hackbench)"
	SIZE=tiny ROUNDS=1 VERIFY=0 VARIANTS=tip BENCHES=hackbench KNOBS=llc_balancing=0 NPS=1 COST=0 \
		BASE=1 "$S/bench.sh" --kernel "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" \
		>"$logs/bench-base.log" 2>&1 || rc=$?
	b=$(sed -n 's/^bench.sh: results in //p' "$logs/bench-base.log")
	nb=$(csv_cols "$b/results.csv" variant value 2>/dev/null |
		awk -F, '$1 == "base@llc_balancing=0" && $2 ~ /^[0-9.]+$/' | wc -l)
	# 3: a run failed, which the report says first
	if { [ "$rc" = 0 ] || [ "$rc" = 3 ]; } && [ "$nb" -ge 1 ] && grep -q '^kernel of base: ' "$b/system.txt" &&
		grep -qw base "$b/report.txt"; then
		ok "bench: the base kernel ran as variant base ($nb numeric results, in the report)"
	else
		notok "bench: no base variant in ${b:-no results directory} (status $rc, $nb numeric results): $(tail -n1 "$logs/bench-base.log")"
	fi
}
