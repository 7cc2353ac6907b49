# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# engine_exit_status: a guest driver under set -e whose benchmark server
# died during the sweep still ends with its own status and cleans up
# (guest/engine.sh's exit trap: a failing kill once ended it with status
# 1, its scratch directory left, and make score took the guest for one
# that stopped early)
engine_exit_status() {
	local e=$tmp/engine rc=0
	rm -rf "$e"
	mkdir -p "$e/T"
	# shellcheck disable=SC2016
	env LAB_DIR="$G" LAB_SCHED_DEBUGFS="$e/sched" T="$e/T" sh -c 'set -eu
		. "$LAB_DIR/sis-lib.sh"
		AUDIT=0 COST_RERUN=0
		. "$LAB_DIR/engine.sh"
		features_off() { :; }
		bench_servers() { sleep 0 & BENCH_SRVS=$!; }
		bench_servers_up() { :; }
		engine_start toy
		sleep 1
		exit 3' >"$e/log" 2>&1 || rc=$?
	if [ "$rc" = 3 ] && [ ! -e "$e/T" ]; then
		ok "engine: a driver whose server died exits with its own status (3) and removes its scratch directory"
	else
		notok "engine: exit status $rc (want 3), scratch directory $([ -e "$e/T" ] && echo left || echo removed): $(tail -n1 "$e/log")"
	fi
}
