#!/bin/bash
# Turn a bench results.csv into LKML-style reports, JSON and plots.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--format norm|old|json] [--sig ci|welch] [--nps N]
       [--plot DIR] [--help] RESULTS.CSV

Prints the report of a scripts/bench.sh run:
  norm  (default) system details (cache-aware scheduling's state too),
        the program and version of each benchmark, the kernels, then one
        normalized block per benchmark (Test, Units, Interpretation,
        Statistic; cells "value [pct imp](CV)") with the SIS efficiency
        figures below it.  Under emulation ("emulation: QEMU TCG" in
        system.txt) the SIS decisions (every select_idle_sibling() figure
        of the runs) lead and the timing blocks follow under "Timings
        under QEMU TCG emulation: plumbing only, not performance"
  old   "value (x.xx pct)" tables per benchmark with * rows and their
        [Verification Run] re-runs (marked as emulated timings when so)
  json  every statistic, one object per benchmark, with its program
pct imp is positive for an improvement.  Cells are marked * (significant
regression against tip) or ^ (significant improvement): with --sig ci
(default) the mean +- 1.96 stddev intervals must not overlap, with --sig
welch Welch's t-test must give p < 0.05.  --plot DIR writes one PNG per
benchmark (gnuplot).  system.txt next to RESULTS.CSV, written by the
runner, fills in the system details (--nps overrides its NPS mode), and
programs.txt (scripts/bench-programs.sh) the programs' versions.
RESULTS.CSV is read by column name (bench, case, variant, round, value;
job, kind and the SIS figures, probes_per_wakeup, idle_hit_pct,
missed_idle_llc_pct..., when present).  Variants named VARIANT@KNOB=VALUE
(bench.sh's KNOBS) are compared with tip at the first knob values.  The
work is done by scripts/benchreport_lib.py with Debian's python3 and
python3-scipy (make deps); PYTHON overrides the interpreter (default
/usr/bin/python3).
EOT
}

fmt=norm sig=ci nps='' plot=''
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--format) need_value "$@"; fmt=$2; shift 2 ;;
	--sig) need_value "$@"; sig=$2; shift 2 ;;
	--nps) need_value "$@"; nps=$2; shift 2 ;;
	--plot) need_value "$@"; plot=$2; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
csv=$1
[ -r "$csv" ] || die "cannot read $csv"
py=${PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3
BENCH_REPORT_PROG=${0##*/} exec "$py" "$LAB_TOP/scripts/benchreport_lib.py" \
	--format "$fmt" --sig "$sig" ${nps:+--nps "$nps"} ${plot:+--plot "$plot"} -- "$csv"
