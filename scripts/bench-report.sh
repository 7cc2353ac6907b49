#!/bin/bash
# Turn a bench results.csv into LKML-style reports, JSON and plots.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--format norm|old|json] [--sig ci|welch] [--nps N]
       [--plot DIR] [--help] RESULTS.CSV

Prints the report of a scripts/bench.sh run:
  norm  (default) system and kernel details, then one normalized block per
        benchmark (Test, Units, Interpretation, Statistic; cells
        "value [pct imp](CV)") with the SIS efficiency figures below it
  old   "value (x.xx pct)" tables per benchmark with * rows and their
        [Verification Run] re-runs
  json  every statistic, one object per benchmark
pct imp is positive for an improvement.  Cells are marked * (significant
regression against tip) or ^ (significant improvement): with --sig ci
(default) the mean +- 1.96 stddev intervals must not overlap, with --sig
welch Welch's t-test must give p < 0.05.  --plot DIR writes one PNG per
benchmark (gnuplot).  system.txt next to RESULTS.CSV, written by the
runner, fills in the system details; --nps overrides its NPS mode.
EOT
}

fmt=norm sig=ci nps='' plot=''
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--format) fmt=${2:-}; shift 2 ;;
	--sig) sig=${2:-}; shift 2 ;;
	--nps) nps=${2:-}; shift 2 ;;
	--plot) plot=${2:-}; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
csv=$1
[ -r "$csv" ] || die "cannot read $csv"
case $fmt in norm|old|json) ;; *) die "unknown format '$fmt' (norm, old or json)" ;; esac
case $sig in ci|welch) ;; *) die "unknown significance test '$sig' (ci or welch)" ;; esac
head -n1 "$csv" | grep -q '^bench,case,variant,round,value' ||
	die "$csv is not a bench results file"
sys=$(dirname "$csv")/system.txt
# sysval KEY: a "KEY: value" line of system.txt
sysval() {
	[ ! -r "$sys" ] || sed -n "s/^$1: //p" "$sys" | head -n1
}
[ -n "$nps" ] || nps=$(sysval nps)
meta=$LAB_TOP/scripts/bench-meta.txt
stats() {
	awk -f "$LAB_TOP/scripts/bench-stats.awk" -v sig="$sig" -v nps="$nps" "$@" "$meta" "$csv"
}

if [ "$fmt" = norm ]; then
	variants=$(awk -F, 'NR > 1 && !s[$3]++ { print $3 }' "$csv")
	echo "o System Details"
	echo
	if [ -r "$sys" ]; then
		echo "  - $(sysval cpu), $(sysval cpus) CPUs, $(sysval llcs) LLCs, $(sysval nodes) NUMA nodes${nps:+ (NPS$nps)}"
		echo "  - $(sysval machine)"
	else
		echo "  - (no system.txt next to $csv)"
	fi
	echo
	echo "o Kernels"
	echo
	kernel=$(sysval kernel)
	for v in $variants; do
		if [ "$v" = tip ]; then
			printf '  %-22s %s\n' "tip:" "${kernel:-the patched kernel}, every SIS feature of the series off"
		else
			printf '  %-22s %s\n' "$v:" "tip with $(echo "$v" | sed 's/+/ + /g') on (sched_feat, same boot)"
		fi
	done
	echo
	echo "o Benchmark Results"
	echo
	echo "  * - significant regression, ^ - significant improvement ($([ "$sig" = ci ] &&
		echo 'mean +- 1.96 stddev intervals do not overlap' || echo "Welch's t-test, p < 0.05"))"
	echo "  runs per data point: $(awk -F, 'NR > 1 && $4 !~ /^v/ && $5 != "NA" { n[$1 FS $2 FS $3]++ }
		END { for (k in n) { if (!min || n[k] < min) min = n[k]; if (n[k] > max) max = n[k] }
		print (min == max ? min : min "-" max) }' "$csv")"
	echo
fi
stats -v mode="$fmt"

if [ -n "$plot" ]; then
	command -v gnuplot >/dev/null || die "gnuplot is not installed (apt-get install gnuplot-nox)"
	mkdir -p "$plot"
	for b in $(awk -F, 'NR > 1 && $4 !~ /^v/ && !s[$1]++ { print $1 }' "$csv"); do
		stats -v mode=plot -v only="$b" >"$plot/$b.dat"
		[ "$(grep -vc '^#' "$plot/$b.dat")" -gt 0 ] || { rm -f "$plot/$b.dat"; continue; }
		nv=$(head -n1 "$plot/$b.dat" | awk '{ print (NF - 2) / 2 }')
		dir=$(awk -F'|' -v b="$b" '$1 == b { print $2 }' "$meta")
		units=$(awk -F'|' -v b="$b" '$1 == b { print $5 }' "$meta")
		{
			echo "set terminal pngcairo size 960,540 noenhanced font ',10'"
			echo "set output '$plot/$b.png'"
			echo "set title '$b${nps:+ (NPS$nps)}: normalized to tip, ${dir:-higher} is better, error bars: CV'"
			echo "set ylabel '${units:-Normalized value}'"
			echo "set datafile missing '-'"
			echo "set style data histograms"
			echo "set style histogram errorbars gap 1 lw 1"
			echo "set style fill solid 0.7 border -1"
			echo "set key outside right top"
			echo "set yrange [0:*]"
			echo "set grid ytics"
			printf "plot '%s' using 2:3:xtic(1) title columnhead(2)" "$plot/$b.dat"
			i=2
			while [ "$i" -le "$nv" ]; do
				printf ", '' using %d:%d title columnhead(%d)" $((2 * i)) $((2 * i + 1)) $((2 * i))
				i=$((i + 1))
			done
			echo
		} >"$plot/$b.gp"
		# columnhead() reads the "# case tip err ..." line without its '#'
		sed -i '1s/^# //' "$plot/$b.dat"
		gnuplot "$plot/$b.gp" 2>"$plot/$b.err" || die "gnuplot failed for $b: $(head -n1 "$plot/$b.err")"
		rm -f "$plot/$b.err"
	done
fi
