# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# The bench driver on this host with a fake tbench: a run that hangs, one
# that fails and one that prints tbench's 0 MB/s are each recorded as
# failed with their reason and no value; the hang is killed at the time
# limit after the sysrq requests for every CPU's stack and the blocked
# tasks; the driver ends with status 3.  A good run is recorded as ok.
bench_driver_failures() {
	local b=$tmp/bd kind want rc sched
	mkdir -p "$b/bin"
	cat >"$b/bin/tbench" <<-'EOT'
		#!/bin/sh
		case $FAKE in
		hang) exec sleep 600 ;;
		fail) echo "tbench: connection refused" >&2; exit 1 ;;
		zero) echo "Throughput 0 MB/sec  1 clients  1 procs  max_latency=0.000 ms" ;;
		nofig) echo "tbench: 1 clients started" ;;
		ok) echo "Throughput 123.5 MB/sec  1 clients  1 procs  max_latency=1.000 ms" ;;
		esac
	EOT
	printf '#!/bin/sh
exec sleep 600
' >"$b/bin/tbench_srv"
	chmod +x "$b/bin/tbench" "$b/bin/tbench_srv"
	fake_sched "$b/sched"
	# statistics for the run without a figure, whose reason must quote
	# tbench's last line, not the statistics' summary printed after it
	fake_sched "$b/sis-sched"
	mkdir -p "$b/sis-sched/sis"
	printf '%s\n' "calls 5" "scan_probes 7" >"$b/sis-sched/sis/stats"
	echo 0 >"$b/sis-sched/sis/enabled"
	echo 0 >"$b/sis-sched/sis/audit"
	for kind in hang fail zero nofig ok; do
		sched=$b/sched
		case $kind in
		hang) want="failed: hung: killed after 2 s" ;;
		fail) want="failed: exit status 1: tbench: connection refused" ;;
		zero) want="failed: tbench printed 0 MB/s" ;;
		nofig) want="failed: no figure in the output (tbench: 1 clients started)" sched=$b/sis-sched ;;
		ok) want="ok" ;;
		esac
		rm -rf "$b/out"
		mkdir -p "$b/out"
		printf '%s\n' variants=tip benches=tbench size=tiny rounds=1 verify=0 run_limit=2 \
			audit=0 netperf_port=12875 >"$b/out/bench.conf"
		: >"$b/sysrq"
		rc=0
		rm -f "$b/cost-marks"
		FAKE=$kind LAB_SCHED_DEBUGFS=$sched BENCH_SYSRQ=$b/sysrq LAB_DIR=$G OUT=$b/out \
			COST_MARKS=$b/cost-marks \
			PATH="$b/bin:$G:$PATH" hang_guard 1200 "$b/hung" sh "$G/bench-guest.sh" >"$b/log" 2>&1 || rc=$?
		[ "$rc" != 124 ] || sed 's/^/# /' "$b/hung"
		row=$(tail -n +2 "$b/out/results.csv" 2>/dev/null)
		case $kind:$rc:$row in
		hang:3:*",NA,"*",$want"*|fail:3:*",NA,"*",$want"*|zero:3:*",NA,"*",$want"*|nofig:3:*",NA,"*",$want"*|ok:0:*",1,run,123.5,"*",ok,0,1")
			if [ "$kind" != hang ] || sysrq_dump_asked "$b/sysrq"; then
				ok "bench driver: a run that does '$kind' is recorded as '$want' (status $rc)"
			else
				notok "bench driver: the hung run did not ask for sysrq 7, l, w and the old loglevel: $(tr '\n' ' ' <"$b/sysrq")"
			fi ;;
		*) notok "bench driver: '$kind': status $rc, row '$row', want '$want'" ;;
		esac
	done
	pkill -f "$b/bin/tbench_srv" 2>/dev/null || true
	# a run configuration that is not bench.sh's: one line, no run
	rm -rf "$b/out"
	mkdir -p "$b/out"
	printf '%s\n' variants=tip benches=tbench rounds=1 verify=0 netperf_port=12875 >"$b/out/bench.conf"
	expect_error "bench driver: a run configuration without its size" "has no size=" \
		env LAB_SCHED_DEBUGFS="$b/sched" LAB_DIR="$G" OUT="$b/out" sh "$G/bench-guest.sh"
}
