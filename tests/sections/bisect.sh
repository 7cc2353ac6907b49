# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The bisect section (make check-full), sourced by tests/run.sh.

# every prefix of the series builds: qemu, and up (!SMP, hence also
# SCHED_SMT and NUMA off); nonuma (CONFIG_NUMA=n with SMP) builds the
# whole series in the configs section
sec_bisect() {
	echo "== every prefix of the series"
	local cfgs=${TEST_BISECT_CONFIGS:-qemu up}
	# shellcheck disable=SC2086
	if "$S/bisect-build.sh" $cfgs 2>"$logs/bisect.err"; then
		ok "every prefix of the series builds with: $cfgs ($(grep -c ' build ' "$logs/bisect.err") steps, no warnings)"
	else
		notok "bisect build: $(tail -n1 "$logs/bisect.err")"
	fi
}
