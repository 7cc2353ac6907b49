#!/bin/sh
# cost-mark.sh [--next]: run the next cost marker, or (--next) print its
# number.  The sis-cost plugin numbers its reports from 0, one per marker
# run: hostname NAME, a system call no benchmark makes.  In a guest booted
# with the plugin (boot.sh --cost puts lab.cost=1 on its command line) the
# number comes from the host name the last marker set (sis-cost-N), so it
# follows the plugin even when a marker's caller was killed after the
# system call; never on a real machine.  Elsewhere, or with COST_MARK (a
# command run instead of hostname, for tests), it is counted in the file
# COST_MARKS (default /tmp/cost-marks).  The drivers (score-guest.sh,
# cost-jobs.sh, bench-guest.sh) take --next before and after a run.
f=${COST_MARKS:-/tmp/cost-marks}
if [ -z "${COST_MARK:-}" ] && grep -qw 'lab\.cost=1' /proc/cmdline 2>/dev/null; then
	h=$(hostname)
	case $h in
	sis-cost-[0-9]*) n=$((${h#sis-cost-} + 1)) ;;
	*) n=0 ;;
	esac
	[ "${1:-}" = --next ] && { echo "$n"; exit 0; }
	exec hostname "sis-cost-$n"
fi
n=$(cat "$f" 2>/dev/null || echo 0)
[ "${1:-}" = --next ] && { echo "$n"; exit 0; }
if [ -n "${COST_MARK:-}" ]; then
	$COST_MARK "sis-cost-$n" || exit
fi
echo $((n + 1)) >"$f"
