#!/bin/sh
# The benchmark registry, collected from the benchmarks' own files.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [DIR]

Prints the registry of the benchmarks in DIR (default bench/ next to this
script): every line "# result RANK: ENTRY" of DIR/*.sh, ENTRY alone, in
the order of RANK (the order of the reports and of the default BENCHES).
An ENTRY is
  RESULT|DIRECTION|STATISTIC|CASE LABEL|UNITS|PROGRAM|BENCHMARK|HOST PROGRAMS
RESULT names one figure the benchmark records (results.csv's bench
column); DIRECTION lower or higher is better; STATISTIC AMean, HMean or
Median; PROGRAM "deb COMMAND DESCRIPTION" (a Debian package's command,
its package and version recorded on the host at run time) or "lab
PROGRAM DESCRIPTION" (the lab's own tools/PROGRAM.c); BENCHMARK the file's
name, as BENCHES names it; HOST PROGRAMS the host commands the guest
needs for it (with their libraries; netperf and the lab's programs are
always in the guest).  Read by bench-stats.awk, benchreport_lib.py,
bench-programs.sh and scripts/lib.sh.  Busybox sh and sort suffice.
EOT
}
case ${1:-} in
--help) usage; exit 0 ;;
-*) usage >&2; exit 2 ;;
esac
dir=${1:-$(dirname "$0")/bench}
[ -d "$dir" ] || { echo "bench-registry: no directory $dir" >&2; exit 2; }
# a rank sorts numerically; a file without one is not a benchmark of the
# reports (it can still be run)
cat "$dir"/*.sh | sed -n 's/^# result \([0-9][0-9]*\): \(.*\)$/\1 \2/p' |
	sort -s -n -k1,1 | sed 's/^[0-9]* //'
