#!/bin/sh
# cost-mark.sh [--next | --around FILE CMD...]: run the next cost marker;
# with --next print its number instead; with --around run CMD between two
# markers, its output into FILE ("-": left as it is), and exit with CMD's
# status (or the second marker's, when that fails).
#
# The sis-cost plugin numbers its reports from 0, one per marker run:
# hostname NAME, a system call no benchmark makes.  In a guest booted with
# the plugin (boot.sh --cost puts lab.cost=1 on its command line) the
# number comes from the host name the last marker set (sis-cost-N), so it
# follows the plugin even when a marker's caller was killed after the
# system call; never on a real machine.  Elsewhere, or with COST_MARK (a
# command run instead of hostname, for tests), it is counted in the file
# COST_MARKS (default /tmp/cost-marks).  The drivers (score-guest.sh,
# cost-jobs.sh, bench-guest.sh) take --next before and after a run.
f=${COST_MARKS:-/tmp/cost-marks}
if [ -z "${COST_MARK:-}" ] && grep -qw 'lab\.cost=1' /proc/cmdline 2>/dev/null; then
	cost=hostname
else
	cost=
fi

next() {
	if [ -n "$cost" ]; then
		h=$(hostname)
		case $h in
		sis-cost-[0-9]*) echo $((${h#sis-cost-} + 1)) ;;
		*) echo 0 ;;
		esac
	else
		cat "$f" 2>/dev/null || echo 0
	fi
}

mark() {
	n=$(next)
	if [ -n "$cost" ]; then
		hostname "sis-cost-$n"
		return
	fi
	if [ -n "${COST_MARK:-}" ]; then
		$COST_MARK "sis-cost-$n" || return
	fi
	echo $((n + 1)) >"$f"
}

case ${1:-} in
--next) next ;;
--around)
	[ $# -ge 3 ] || { echo "usage: ${0##*/} --around FILE CMD..." >&2; exit 2; }
	out=$2
	shift 2
	mark || exit
	if [ "$out" = - ]; then
		"$@"
	else
		"$@" >"$out" 2>&1
	fi
	r=$?
	mark || exit
	exit "$r" ;;
'') mark ;;
*) echo "usage: ${0##*/} [--next | --around FILE CMD...]" >&2; exit 2 ;;
esac
