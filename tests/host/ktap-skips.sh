# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# A feature or tool the guest lacks is a skipped case with its reason,
# not a failure (sis-lib.sh require_feature, require_tool, on a fake
# features file without SIS_NODE_CORE), and the runner counts it as
# skipped (ktap_report), named above the closing "N passed, N failed"
ktap_skips() {
	local k=$tmp/ktap-skip got want counts last
	fake_sched "$k/sched"
	cat >"$k/feature-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		result before ok
		require_feature SIS_NODE SIS_NODE_CORE
		result after ok
		exit 0
	EOT
	cat >"$k/tool-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		require_tool sh no-such-tool-here
		result after ok
		exit 0
	EOT
	{
		LAB_SCHED_DEBUGFS=$k/sched sh "$k/feature-test.sh"; echo "# status $?"
		LAB_SCHED_DEBUGFS=$k/sched sh "$k/tool-test.sh"; echo "# status $?"
	} >"$k/log" 2>&1
	got=$(ktap_results "$k/log" | tr '\n' '|')
	want="ok before |skip sis-node-core no SIS_NODE_CORE in $k/sched/features|skip no-such-tool-here no-such-tool-here is not installed here|"
	counts=$(PASS=0 FAIL=0 SKIP=0; ktap_report t "$k/log" >/dev/null; echo "$PASS $FAIL $SKIP")
	last=$(PASS=1 FAIL=0 SKIP=2; summary | tr '\n' '|')
	if [ "$got" = "$want" ] && [ "$counts" = "1 0 2" ] &&
		grep -qx "ok 2 sis-node-core # SKIP no SIS_NODE_CORE in $k/sched/features" "$k/log" &&
		grep -qx '# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0' "$k/log" &&
		[ "$(grep -cx '# status 0' "$k/log")" = 2 ] &&
		[ "$last" = "2 skipped (the 'skip' lines: a feature or tool missing here)|1 passed, 0 failed|" ]; then
		ok "KTAP: a missing feature or tool is '# SKIP' with its reason, counted as skipped, not failed ($(grep -c SKIP "$k/log") SKIP lines)"
	else
		notok "KTAP skip: got '$got' (want '$want'), counted '$counts' (want '1 0 2'), summary '$last': $(tr '\n' '|' <"$k/log" | cut -c1-400)"
	fi
}
