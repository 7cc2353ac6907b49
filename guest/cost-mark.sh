#!/bin/sh
# The next cost marker, counted in the file COST_MARKS (default
# /tmp/cost-marks), which holds the number of the next marker: the
# sis-cost plugin numbers its reports the same way, from 0.  The marker
# is COST_MARK NAME when COST_MARK is set; otherwise hostname NAME (a
# system call no benchmark makes, on which the plugin reports its counts),
# but only in a guest booted with the plugin (boot.sh --cost puts
# lab.cost=1 on its command line): never on a real machine.  The drivers
# (score-guest.sh, cost-jobs.sh, bench-guest.sh) read the count before
# and after a run.
f=${COST_MARKS:-/tmp/cost-marks}
n=$(cat "$f" 2>/dev/null || echo 0)
if [ -n "${COST_MARK:-}" ]; then
	$COST_MARK "sis-cost-$n" || exit
elif grep -qw 'lab\.cost=1' /proc/cmdline 2>/dev/null; then
	hostname "sis-cost-$n" || exit
fi
echo $((n + 1)) >"$f"
