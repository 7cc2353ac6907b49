#!/bin/sh
# Run scoreboard jobs between cost markers on any kernel (the base too,
# which has no SIS statistics), for the sis-cost plugin's comparison of
# two kernels (scripts/sis_cost.py compare).
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--help] ROUNDS JOB...

Runs each JOB (BENCH:LOAD, BENCH hackbench or schbench, LOAD a fraction
of the CPU count, as in the scoreboard) ROUNDS times, in order, each run
between two cost markers, and prints per run
  cost-job ROUND BENCH LOAD WORK FROM TO STATUS
(WORK the job's units of work, FROM and TO the markers' numbers, STATUS
ok or failed: why).  RUNTIME (default 2) and MESSAGES (default 64000)
as in score.conf; COST_MARK (default hostname) is the marker command.
EOT
}
case ${1:-} in
--help) usage; exit 0 ;;
''|-*) usage >&2; exit 2 ;;
esac
[ $# -ge 2 ] || { usage >&2; exit 2; }
case $1 in *[!0-9]*|0) echo "${0##*/}: ROUNDS must be a positive number, not '$1'" >&2; exit 2 ;; esac
rounds=$1
shift
for j in "$@"; do
	case $j in
	hackbench:?*|schbench:?*) ;;
	*) echo "${0##*/}: a job is hackbench:LOAD or schbench:LOAD, not '$j'" >&2; exit 2 ;;
	esac
done
LAB_DIR=${LAB_DIR:-/lab}
RUNTIME=${RUNTIME:-2} MESSAGES=${MESSAGES:-64000} NETPERF_PORT=12875
T=${TMPDIR:-/tmp}/cost-jobs.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
. "$LAB_DIR/jobs.sh"
PATH="$T:$PATH"

r=1
while [ "$r" -le "$rounds" ]; do
	for j in "$@"; do
		b=${j%%:*} load=${j#*:}
		job "$b" "$(tasks "$load")"
		from=$(cost-mark.sh --next)
		st=ok
		# shellcheck disable=SC2086
		cost-mark.sh --around "$T/cmd" $cmd ||
			st="failed: exit status $?"
		to=$(($(cost-mark.sh --next) - 1))
		[ "$st" != ok ] || [ -z "$(figure "$b")" ] || st="failed: $(figure "$b")"
		[ "$to" = "$((from + 1))" ] || st="failed: no second cost marker"
		echo "cost-job $r $b $load $(work "$b") $from $to $st"
	done
	r=$((r + 1))
done
