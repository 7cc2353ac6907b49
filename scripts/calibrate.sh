#!/bin/bash
# make calibrate: the replay of the hardware table's cells that the lab
# can reach, as make score runs (one per part), resumable; see --help.
set -eu
. "$(dirname "$0")/lib.sh"

HW=$LAB_TOP/data/hardware/zen3-sis-node-2023.csv
GT=$LAB_TOP/scripts/ground_truth.py
# The parts of the replay, in the order they run: NAME, benchmarks, which
# of their reachable load points (all; over: at or above one task per
# CPU; ends: the lowest and the highest), variants, sched_mmc boot (MMC),
# KNOBS, cost plugin (0, 1, or loc: with its locality mode), rounds and
# boots per NPS mode.  Times and decisions come from the parts without the
# plugin (4 runs per cell over 2 boots), the plugin's counts from boots of
# their own (1 run per cell); the locality mode's at the ends of the
# load range alone (a run under it took 14 times as long as under the
# plugin alone at hackbench 5/16, data/runs/20261207-locality-slowdown),
# with a run limit of an hour.  The
# hardware's kernel predates cache-aware scheduling: llc_balancing is off
# but in the hb-llc part, its second column at the overload points.
PARTS="
hb|hackbench|all|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=0|0|2|2
hb-mmc|hackbench|all|tip SIS_NODE+SIS_NODE_MMC|1|llc_balancing=0|0|2|2
hb-cost|hackbench|all|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=0|1|1|1
hb-mmc-cost|hackbench|all|tip SIS_NODE+SIS_NODE_MMC|1|llc_balancing=0|1|1|1
hb-loc|hackbench|ends|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=0|loc|1|1
hb-mmc-loc|hackbench|ends|tip SIS_NODE+SIS_NODE_MMC|1|llc_balancing=0|loc|1|1
hb-llc|hackbench|over|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=1|0|2|2
rest|schbench tbench netperf|all|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=0|0|2|2
rest-mmc|schbench tbench netperf|all|tip SIS_NODE+SIS_NODE_MMC|1|llc_balancing=0|0|2|2
rest-cost|schbench tbench netperf|ends|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=0|1|1|1
rest-mmc-cost|schbench tbench netperf|ends|tip SIS_NODE+SIS_NODE_MMC|1|llc_balancing=0|1|1|1
"
# the hardware's NPS modes
CAL_NPS="1 4"

usage() {
	cat <<EOT
usage: ${0##*/} [--out DIR | --resume DIR] [--parts "NAME..."] [--kernel BZIMAGE] [--grid | --plan] [--help]

The ground-truth replay: the cells of ${HW#"$LAB_TOP"/} (K Prateek
Nayak's Zen3 tables of tip, SIS_NODE, SIS_NODE_LIMIT and
SIS_NODE_TOPOEXT, NPS1 and NPS4) that the lab can reach, each as make
score runs it (scripts/score.sh: the variant switched on at run time,
every run under the missed-idle audit), NPS $CAL_NPS, on the load
grid of scripts/ground_truth.py grid: the table's cases in tasks per
CPU of its 256 CPUs, run on this shape's CPUs (hackbench groups scale
with the CPU count, guest/bench/hackbench.sh).  A case whose tasks here
are no whole number, or whose load lies above a benchmark's ceiling
(SCORE_CEILINGS: $SCORE_CEILINGS), is listed as unreachable with its
reason in grid.txt.  TOPOEXT is SIS_NODE+SIS_NODE_MMC in boots with
sched_mmc, beside their own tip.

It runs the parts in order, each a make score run in DIR/PART:
$(echo "$PARTS" | awk -F'|' 'NF { printf "  %-13s %s (%s load points): %s\n  %-13s MMC=%s KNOBS=%s COST=%s, %s rounds x %s boots\n", $1, $2, $3, $4, "", $5, $6, $7, $8, $9 }')
(all: every reachable point; over: those at or above one task per CPU;
ends: the lowest and the highest).  Every part, in whatever session it
resumes, runs the kernel the plan names by its SHA-256: this tree's qemu
kernel (build/obj-qemu, built or found up to date); a resumption refuses
another.  At the end,
DIR/calibration.csv (ground_truth.py
replay): every cell of the table, with the lab's figures of each way it
ran it, or why it did not; DIR/predictions-DESIGN.csv and
terms-DESIGN.csv (ground_truth.py predict, each design) and
DIR/agreement.txt: the predictor's designs and the load-only rule
scored on the same cells, and the table of every cell.

  --out DIR     start a replay in DIR (default data/calibrate/<date>-<model>-<shape>:
                its records are committed data, data/.gitignore
                leaves out its logs, the plugin's reports and the kernel;
                commit them as they come: a replay cut short resumes
                from the commit where the commit builds the same kernel)
  --resume DIR  go on with the replay in DIR: a part not started starts,
                a part cut short resumes (score.sh --resume: only the
                cells without a complete row run); refused in one line
                when DIR's plan differs from this one
  --parts LIST  only these parts (default: all), in the order above
  --kernel BZIMAGE  run this kernel, in its build directory (the plugin's
                parts need its System.map), instead of building the tree's
  --grid        print the load grid and its unreachable cells, and stop
  --plan        print the plan (plan.txt) this replay would write and stop;
                with --resume, after checking it against DIR's

What differs from the hardware's runs: the shape (the scaled one has the
real part's LLCs per node and socket with 4 cores each, not 8: 128 CPUs;
SHAPE=full is the real part, for the overload points), so a hackbench
group is 20 tasks, not 40 (threads over pipes, rt-tests' hackbench -T
-p, the work of perf bench sched messaging -p -t, which cannot size a
group); a run's length is set by its work (64000 hackbench messages,
2 s of the others), not the reports' loops and times; the kernel is 7.3
(EEVDF, cache-aware scheduling: llc_balancing off but in hb-llc); the
times are TCG's, so only the decisions and the plugin's counts compare.

Environment: SHAPE (default scaled), MODEL (default milan) as for make
score; NPS overrides the NPS modes.  Exits 3 when runs failed, 4 when a
guest stopped early (resume then), after every part ran.
EOT
}

out= resume= only= gridonly=0 kernel= planonly=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--out) need_value "$@"; out=$2; shift 2 ;;
	--resume) need_value "$@"; resume=$2; shift 2 ;;
	--parts) need_value "$@"; only=$2; shift 2 ;;
	--kernel) need_value "$@"; kernel=$2; shift 2 ;;
	--grid) gridonly=1; shift ;;
	--plan) planonly=1; shift ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -z "$out" ] || [ -z "$resume" ] || die "--out starts a replay, --resume goes on with one: not both"
nps_list=${NPS:-$CAL_NPS}
for p in $only; do
	echo "$PARTS" | grep -q "^$p|" || die "no part '$p' (the parts: $(echo "$PARTS" | cut -d'|' -f1 | xargs))"
done
NPS=${nps_list%% *}
shape_init
cpus=$NR_CPUS

# the grid on this shape: BENCH CASE TASKS-PER-CPU LOAD STATUS
grid=$("$GT" grid --cpus "$cpus" --ceilings "$SCORE_CEILINGS" "$HW") || exit 1
if [ "$gridonly" = 1 ]; then
	printf '%s\n' "$grid"
	exit 0
fi

# part_jobs BENCHES WHICH: the JOBS of a part (BENCH:LOAD)
part_jobs() {
	local b
	for b in $1; do
		printf '%s\n' "$grid" | awk -v b="$b" -v w="$2" '
			$1 == b && $5 == "ok" && (w != "over" || $3 >= 1) { p[++n] = $4 }
			END { for (i = 1; i <= n; i++) if (w != "ends" || i == 1 || i == n) printf "%s:%s ", b, p[i] }'
	done
}

# plan_text KERNEL-SHA256: what decides the replay's cells
plan_text() {
	cat <<-EOT
	kernel=$1
	hardware=$(sha256sum <"$HW" | cut -d' ' -f1)
	shape=$SHAPE
	model=$MODEL
	cpus=$cpus
	nps=$nps_list
	ceilings=$SCORE_CEILINGS
	EOT
	echo "$PARTS" | awk -F'|' 'NF { print "part." $1 "=" $0 }'
}

# started_lines FILE: the lines of plan FILE that a resumption must keep:
# the replay's own and those of the parts that started (a directory in
# $out); a part not started yet may be defined anew
started_lines() {
	local d
	grep -v '^part\.' "$1"
	for d in "$out"/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		grep "^part\.${d##*/}=" "$1" || true
	done
}

# plan_differs KERNEL-SHA256: the first lines of $out's plan that differ
# from this one's, among those a resumption must keep
plan_differs() {
	local now
	now=$(mktemp)
	plan_text "$1" >"$now"
	diff <(started_lines "$out/plan.txt") <(started_lines "$now") | grep '^[<>]' | head -n2 | paste -sd' '
	rm -f "$now"
}

if [ -n "$resume" ]; then
	[ -f "$resume/plan.txt" ] || die "--resume $resume: no plan.txt there (not a replay's directory)"
	out=$(cd "$resume" && pwd)
else
	out=${out:-$LAB_TOP/data/calibrate/$(date +%Y%m%d)-$MODEL-$SHAPE}
	[ "$planonly" = 1 ] || [ ! -e "$out" ] || die "$out exists (--resume $out goes on with it)"
fi

# the patched qemu kernel of this tree, built or found up to date, which
# a resumption checks against its plan (the plugin's parts need the
# kernel in its build directory: it is not kept in the replay); the fixed
# stamps of kernel_make, build number included, make one tree build the
# same bytes with one compiler
if [ -z "$kernel" ]; then
	"$LAB_TOP/scripts/apply-patches.sh" >/dev/null
	kernel=$("$LAB_TOP/scripts/build.sh" qemu)
fi
[ -f "$kernel" ] || die "no kernel image at '$kernel'"
ksum=$(sha256sum <"$kernel" | cut -d' ' -f1)

if [ -n "$resume" ]; then
	was=$(sed -n 's/^kernel=//p' "$out/plan.txt")
	[ "$was" = "$ksum" ] ||
		die "$out ran the kernel $was, this tree builds $ksum: check out the commit the replay started on (git log $out/plan.txt)"
	why=$(plan_differs "$ksum")
	[ -z "$why" ] || die "$out was planned otherwise: $why (resume it as it was started)"
	[ "$planonly" = 0 ] || { plan_text "$ksum"; exit 0; }
	# the parts not started take this plan's definitions
	plan_text "$ksum" >"$out/plan.txt"
	echo "calibrate: resuming $out"
elif [ "$planonly" = 1 ]; then
	plan_text "$ksum"
	exit 0
else
	mkdir -p "$out"
	plan_text "$ksum" >"$out/plan.txt"
	printf '%s\n' "$grid" >"$out/grid.txt"
	echo "calibrate: replay in $out"
fi
echo "calibrate: $(grep -c ' ok$' "$out/grid.txt") cases of $(grep -c '' "$out/grid.txt") reachable on $cpus CPUs; unreachable:"
grep -v ' ok$' "$out/grid.txt" | sed 's/^/  /'

rc=0
while IFS='|' read -r name benches which variants mmc knobs cost rounds boots; do
	[ -n "$name" ] || continue
	[ -z "$only" ] || [[ " $only " == *" $name "* ]] || continue
	jobs=$(part_jobs "$benches" "$which")
	echo "calibrate: part $name: $jobs"
	if [ -d "$out/$name" ]; then
		where=(--resume "$out/$name")
	else
		where=(--out "$out/$name")
	fi
	set +e
	loc=0 limit=${RUN_LIMIT:-}
	[ "$cost" != loc ] || cost=1 loc=1 limit=3600
	NPS=$nps_list VARIANTS=$variants MMC=$mmc KNOBS=$knobs COST=$cost COST_LOCALITY=$loc \
		ROUNDS=$rounds BOOTS=$boots RUN_LIMIT=$limit \
		JOBS=$jobs BENCHES='' LOADS='' SIZE=small CEILINGS=$SCORE_CEILINGS \
		"$LAB_TOP/scripts/score.sh" --kernel "$kernel" "${where[@]}" 2>&1 | tee -a "$out/$name.log"
	r=${PIPESTATUS[0]}
	set -e
	case $r in
	0) echo "calibrate: part $name done" ;;
	3) echo "calibrate: part $name done, runs failed (status column of $out/$name/score.csv)"; [ "$rc" = 4 ] || rc=3 ;;
	4) echo "calibrate: part $name: a guest stopped early (--resume $out goes on)"; rc=4 ;;
	*) echo "calibrate: part $name failed (status $r): $(tail -n1 "$out/$name.log")"; exit 1 ;;
	esac
done <<<"$PARTS"
# the calibration CSV: every hardware cell, run, not run or unreachable
"$GT" replay "$HW" "$out" >"$out/calibration.csv.new" && mv "$out/calibration.csv.new" "$out/calibration.csv"
# the predictor's designs on it, scored beside the load-only rule on the
# same cells
designs=$("$GT" designs)
for d in $designs; do
	"$GT" predict --design "$d" "$HW" "$out/calibration.csv" >"$out/predictions-$d.csv"
	"$GT" predict --design "$d" --terms "$HW" "$out/calibration.csv" >"$out/terms-$d.csv"
done
{
	for d in $designs; do
		"$GT" score --predictions "$out/predictions-$d.csv" "$HW" | sed "s/^predictions,/predictor ($d design),/"
	done
	"$GT" score --cells-of "$out/predictions-${designs%%$'\n'*}.csv" "$HW"
	"$GT" score "$HW"
	for d in $designs; do
		echo
		echo "predictor ($d design), every cell:"
		"$GT" score --predictions "$out/predictions-$d.csv" --format table "$HW"
	done
} >"$out/agreement.txt"
echo "calibrate: $out/calibration.csv: $(awk -F, 'NR > 1 { n[$NF ~ /^unreachable/ ? "unreachable" : $NF]++ }
	END { for (s in n) { printf "%s%d %s", sep, n[s], s; sep = ", " } }' "$out/calibration.csv")"
exit "$rc"
