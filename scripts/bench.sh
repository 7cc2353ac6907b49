#!/bin/bash
# The lab's run driver.  make bench: the benchmark matrix for every SIS
# variant in one boot (QEMU, or this machine with --host), then the
# reports.  make score (--score, scripts/score.sh): the SIS scoreboard, a
# load sweep per variant in one boot per NPS mode, then its report.  Both
# run guest/engine.sh in the guest, through bench-guest.sh and
# score-guest.sh.
set -eu
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# the scoreboard's variants, in report order (tip: every feature off)
SCORE_VARIANTS="tip SIS_CORE SIS_NODE SIS_NODE+SIS_NODE_MMC SIS_SHORT+SIS_CORE+SIS_NODE SIS_NODE+SIS_CORE+SIS_NODE_CORE"
# the benchmarks of the decision figures: make score's, make bench's at
# SIZE small (hackbench: threads over pipes in both, guest/bench/
# hackbench.sh); the results name the command run, the reports the program
DECISION_BENCHES="hackbench schbench tbench netperf"
# make bench's variants: SIZE tiny and small, and full
BENCH_VARIANTS="tip SIS_CORE SIS_NODE SIS_NODE+SIS_CORE+SIS_NODE_CORE"
BENCH_VARIANTS_FULL="tip SIS_SHORT SIS_CORE SIS_NODE SIS_NODE_LIMIT SIS_NODE_MMC SIS_NODE+SIS_CORE+SIS_NODE_CORE SIS_SHORT+SIS_CORE+SIS_NODE_MMC"
# seconds a scoreboard boot may take before its guest dumps its stacks
# and stops
SCORE_TIMEOUT_DEFAULT=14400

# both modes' --help on --out and --resume
RESUME_HELP="--out DIR puts a run's results in DIR (which must not exist) instead
of a new directory under \$LAB_OUT.  A run writes its plan to plan.txt as it starts (the run configuration,
the machine, the boots, the kernels' SHA-256).  --resume DIR goes on
with a run that stopped (the driver killed, a guest stopped early): it
refuses in one line, changing nothing, when the settings now plan
otherwise; it boots only the boots that did not run everything, as the
plan laid them out (the same NPS mode and boot index), and the guest
runs only the cells without a whole row there (a run cut short runs
again whole).  The reports then equal those of a run never stopped.
The rows, notes.txt, system.txt and stopped are put together from
parts/ (the run's, each boot's) in plan order; done lists the boots
that ran everything; what a boot run again replaces is in
interrupted/BOOT-N/."

bench_usage() {
	cat <<EOT
usage: ${0##*/} [--host | --kernel BZIMAGE] [--score] [--out DIR | --resume DIR] [--help]

Applies the series, builds the qemu kernel, boots it on the emulated Zen3
topology and runs guest/bench-guest.sh there, which flips the SIS
features at run time (tip = every feature of the series off), rotates the
variant order each round and re-runs significant regressions for the
[Verification Run] rows.  With --host it runs the same matrix on this
machine instead (root, a kernel with the series, debugfs mounted): for
users with real Zen3 hardware.  --kernel boots BZIMAGE as it is, skipping
the patch and build steps.  --score runs the SIS scoreboard instead
(scripts/score.sh, a preset of this driver: see its --help).  --resume
DIR goes on with the run whose results are in DIR (below).

Environment:
  NPS       1|2|4 (default 1; --host: only labels the report)
  SHAPE     scaled|full|small (default scaled: 128 CPUs; full: 2x64C/128T;
            small: 64 CPUs)
  MODEL     $(platform_names | tr ' ' '|') (default milan; the platforms of
            configs/platform, see boot.sh --help)
  VARIANTS  default "$BENCH_VARIANTS" (SIZE tiny
            and small), "$BENCH_VARIANTS_FULL" (full); "a+b" combines.  A
            feature the series lacks is an error in VARIANTS and skips a
            default variant with one line; MMC as for make score (MMC=1
            boots with sched_mmc, and needs BASE=0: the base kernel has no
            MMC level; without it the SIS_NODE_MMC variants are skipped
            with one line)
  KNOBS     "NAME=VALUE,VALUE... ..." (default none): sched debugfs knobs
            (/sys/kernel/debug/sched/NAME; a directory such as
            llc_balancing means its "enabled" switch) as a dimension next
            to the variants: every variant runs with each combination of
            values, labelled VARIANT@NAME=VALUE (KNOBS=llc_balancing=0,1:
            tip@llc_balancing=0, tip@llc_balancing=1, ...), compared with
            tip at each knob's first value.  A knob or value the kernel
            lacks stops the bench with one line before any run; every knob
            gets its old value back at the end
  BENCHES   default "$DECISION_BENCHES" at SIZE small, every
            benchmark of the registry at tiny and full: "$(bench_names)"
            (guest/bench-registry.sh; hackbench is threads over pipes,
            as perf bench sched messaging -p -t, rt-hackbench processes)
  SIZE      tiny|small|full (default small: the decision figures of the
            default variants and the base kernel, one round, within 30
            minutes on two host cores; tiny: every benchmark, plumbing;
            full: the LKML ranges, e.g. 1..16 hackbench groups (of 40
            tasks on 256 CPUs, 20 on 128), 30 s runs, every variant)
  ROUNDS    runs per data point (default 1 at SIZE small, else 3; the
            [Verification Run] rows need 2); RUNTIME, LOOPS override the
            seconds per timed run and the hackbench loops of SIZE
  VERIFY    re-runs of each significant regression (default 2, 0 = off;
            only with ROUNDS 2 or more)
  BASE      1 (default) also boots the unpatched base kernel (build-base.sh)
            and runs the matrix there as variant "base", so that the
            report shows what the series changes with every feature off
            (tip); 0 skips it.  Not with --host.
  BENCH_AUDIT  1 runs sis-stats.sh --audit in every run, for the
            missed-idle rates (default 1 under emulation, 0 with --host: the
            audit walks a NUMA node per wakeup)
  COST      1 (not with --host): count each run's cost with the sis-cost
            TCG plugin (boot.sh --cost), as make score does by default:
            placement, upkeep and kernel/sched instructions per wakeup,
            line transfers per wakeup, in the SIS decisions; an audited
            run is run once more without the statistics for them (the
            audit's probes of every CPU of the node would count as
            placement).  0 (default): without; under the plugin every run
            is slower, the loaded ones most (Documentation/tcg.md)
  NETPERF_PORT  the port of the netserver the bench starts (default
            12875, so that a netserver on netperf's 12865 stays out of the
            way, with --host); tbench_srv takes 7003

Each run has a time limit in the guest (RUN_LIMIT seconds, default 300 +
20 x the run's length): a run that exceeds it, fails or prints no figure
(or tbench's 0 MB/s) is recorded as failed with its reason, never as a
value, and a hung run first has the guest print all CPUs' stacks and its
blocked tasks (sysrq).  The reports then start with MISSING RESULTS,
listing each failed result and a guest that stopped early (BENCH_TIMEOUT,
default 86400 s, or a crash), and bench.sh exits 3 (runs failed) or 4
(a guest stopped early) after writing them.

Under emulation (every run but --host) report.txt leads with the SIS
decisions (select_idle_sibling() statistics: probes per wakeup, idle-hit
and missed-idle rates, SIS_SHORT, SIS_CORE and SIS_NODE figures) and
marks every timing table "emulated, not performance"; with --host the
timing tables lead.  The report names each benchmark's program and
version (programs.txt: Debian package versions from this machine, the
lab's own programs by commit) and cache-aware scheduling's state
(CONFIG_SCHED_CACHE, llc_balancing).

Results go to \$LAB_OUT/bench/<time>-<model>-<shape>-nps<N>/ (--host:
<time>-host/): bench.conf (the run configuration the guest read;
bench-base.conf the base kernel's), results.csv (one row per run,
written as it ends), system.txt, programs.txt, report.txt (normalized
blocks), report-old.txt (value (pct) tables), results.json and
plots/*.png.
$RESUME_HELP
EOT
}

score_usage() {
	cat <<EOT
usage: ${0##*/} [--kernel BZIMAGE] [--out DIR | --resume DIR] [--help]

The scoreboard mode of scripts/bench.sh (bench.sh --score, the same
driver and guest engine, guest/engine.sh).  Applies the series and
builds the qemu kernel (or boots BZIMAGE as it is), then boots it once
per NPS mode (BOOTS times) on the emulated Zen3 topology and runs
guest/score-guest.sh there: for each variant
(its features switched on at run time, every feature of the series off
first), a load sweep of hackbench (threads over pipes, groups of 40 tasks
on 256 CPUs and 20 on 128, as the hardware reports' groups of 40),
schbench (sis-schbench -m 2), tbench clients and netperf TCP_RR clients
at fractions of the CPU count, each run under sis-stats.sh --audit.
Recorded per run: probes per wakeup, idle-hit rate, missed-idle rate in
the LLC and in the node, and the share of wakeups placed in an LLC that
is neither the wakee's previous CPU's nor the waking CPU's (sis.llc_away
/ sis.calls: the cache cost SIS_NODE adds; without it there are none),
and the share of audited wakeups for which neither of those two LLCs in
the chosen CPU's node had an idle CPU while that node had one
(sis.audit_llcs_full: each of them either misses an idle CPU or leaves
both LLCs).

Environment:
  NPS       NPS modes to boot (default "1 2 4")
  SHAPE     scaled|full|small (default scaled, 128 CPUs); MODEL
            $(platform_names | tr ' ' '|') (default milan)
  VARIANTS  default "$SCORE_VARIANTS"
            ("a+b" switches a, then b on).  A feature the series lacks is
            an error in VARIANTS, and skips that default variant with one
            line; a feature the kernel lacks skips the variant, one line.
  MMC       0 (default): variants with SIS_NODE_MMC are skipped, since the
            MMC level it stops at exists only with the sched_mmc boot
            option; 1 boots with sched_mmc, which adds the MMC level (and
            its load balancing) under every variant, tip included
  BENCHES   default "$DECISION_BENCHES"
  SIZE      tiny|small|full|past (default small): load points (fractions of
            the CPU count), seconds per timed run, hackbench messages:
              tiny   1/16 1                 1 s   64000
              small  1/16 1/4 1/2 1 2       2 s   64000  (about 20 minutes
                                                   per NPS mode and boot,
                                                   128 CPUs)
              full   1/16 1/8 1/4 1/2 1 2   5 s   256000
              past   1 2                    2 s   64000  (past the
                     ceilings: SHAPE small by default, every vCPU in
                     one host thread (LAB_TCG_THREAD=single), no
                     CEILINGS, RUN_LIMIT 1800 s; not in make check;
                     QEMU 7.2's plugin core aborted in one such run,
                     trixie's QEMU 10 ran it: QEMU=build/qemu-trixie/
                     qemu-system-x86_64 after make qemu-full)
  LOADS     load points instead of SIZE's ("1/16 1/2 1 2")
  JOBS      BENCH:LOAD pairs instead of BENCHES at LOADS
            ("hackbench:5/32 schbench:1/64"; CEILINGS still apply)
  KNOBS     sched debugfs knobs, as for make bench: every variant runs at
            each combination of values, labelled VARIANT@NAME=VALUE
            (KNOBS=llc_balancing=0: tip@llc_balancing=0, ...)
  CEILINGS  the highest load point per benchmark (default
            "$SCORE_CEILINGS": under TCG the
            guest livelocks above them; "" on a host that copes); the
            points left out are listed in notes.txt and the report
  ROUNDS    runs of each variant and load point per boot (default 3)
  BOOTS     boots per NPS mode (default 1; 2 measures boot-to-boot spread)
  RUN_LIMIT seconds before a run counts as hung (default 300 + 20 x the
            run's seconds); SCORE_TIMEOUT: per boot (default $SCORE_TIMEOUT_DEFAULT)
  COST      1 (default): count each run's cost with the sis-cost TCG
            plugin (boot.sh --cost): instructions per wakeup of placement,
            of the series' mask upkeep and of all of kernel/sched, those
            per unit of work, line transfers per wakeup; 0: without it,
            those columns are NA

Results go to \$LAB_OUT/score/<time>-<model>-<shape>/
(\$LAB_OUT/score/latest links to the newest): score.conf (the run
configuration the guest reads), score.csv (one row per run, written as
it ends: nps, variant, load, load_point, round, boot, tasks, command,
wakeups, audited and the figures, work, cost_from, cost_to, seconds,
status, then the cost figures of scripts/sis_cost.py), cost-npsN-bootB.out
(the plugin's reports, with .map),
notes.txt (skipped variants, guests that stopped), the console logs,
report.txt, cover-letter.txt (the compact table for the cover letter,
marked emulated), results.md (the scoreboard's Markdown tables for
Documentation/results.md) and frontier-npsN.png (scripts/score_report.py).
A failed run is recorded as failed with its reason, never with figures;
score.sh then exits 3, or 4 when a guest stopped early.
$RESUME_HELP
EOT
}

mode=${LAB_RUN_MODE:-bench} host=0 kernel= resume= outdir=
case $mode in
bench|score) ;;
*) die "LAB_RUN_MODE is bench or score, not '$mode'" ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	--help) "${mode}_usage"; exit 0 ;;
	--host) host=1; shift ;;
	--score) mode=score; shift ;;
	--kernel) need_value "$@"; kernel=$2; shift 2 ;;
	--resume) need_value "$@"; resume=$2; shift 2 ;;
	--out) need_value "$@"; outdir=$2; shift 2 ;;
	*) "${mode}_usage" >&2; exit 2 ;;
	esac
done
if [ -n "$resume" ]; then
	[ -d "$resume" ] || die "--resume $resume: no such directory"
	resume=$(cd "$resume" && pwd)
	[ -f "$resume/plan.txt" ] || die "--resume $resume: no plan.txt there (not the results directory of a run)"
fi
[ "$mode$host" != score1 ] || die "--host runs make bench's matrix, not the scoreboard"
[ -z "$kernel" ] || [ -f "$kernel" ] || die "no kernel image at '$kernel'"
[ -z "$outdir" ] || [ -z "$resume" ] || die "--out starts a run, --resume goes on with one: not both"
[ -z "$outdir" ] || [ ! -e "$outdir" ] || die "--out $outdir exists (--resume $outdir goes on with a run there)"

# positive NAME VALUE: VALUE is a positive number
positive() {
	case $2 in ''|*[!0-9]*|0) die "$1 must be a positive number, not '$2'" ;; esac
}
append=()
case ${MMC:-0} in
0) ;;
1) append=(--append sched_mmc) ;;
*) die "MMC must be 0 or 1, not '${MMC:-}'" ;;
esac
# the cost plugin: make score's figures; make bench's only when asked
cost=${COST:-1}
[ "$mode" = score ] || cost=${COST:-0}
case $cost in 0|1) ;; *) die "COST must be 0 or 1, not '$cost'" ;; esac
[ "$host" = 0 ] || cost=0

# pick_variants DEFAULT: the variants to run, VARIANTS or DEFAULT, into
# $variants: every feature named must be one of the series (an error in
# VARIANTS; a default variant is skipped with one line in $notes), and
# SIS_NODE_MMC needs the sched_mmc boot option
notes=()
pick_variants() {
	local features v f skip
	features=$(series_features)
	variants=
	for v in ${VARIANTS:-$1}; do
		skip=
		if [ "$v" != tip ]; then
			for f in ${v//+/ }; do
				[ -n "$f" ] && [[ " $features " == *" $f "* ]] && continue
				[ -z "${VARIANTS:-}" ] ||
					die "unknown feature '$f' in variant '$v' (the series has: $features)"
				skip="the series has no $f"
			done
		fi
		if [ -z "$skip" ] && [[ +$v+ == *+SIS_NODE_MMC+* ]] && [ "${MMC:-0}" = 0 ]; then
			skip="SIS_NODE_MMC stops at the MMC level, which needs the sched_mmc boot option (MMC=1 boots with it, adding the level under every variant)"
		fi
		if [ -n "$skip" ]; then
			notes+=("skipped variant $v: $skip")
		else
			variants="$variants $v"
		fi
	done
	variants=${variants# }
	[ -n "$variants" ] || die "no variant left to run"
}

# knobs_plan: KNOBS checked, as $knobs (both modes: the guest's engine.sh
# knob_labels makes each variant run at each combination of values)
knobs_plan() {
	local spec k names=' '
	case ${VARIANTS:-} in *@*) die "VARIANTS names no knob values ('@'); KNOBS does" ;; esac
	knobs=${KNOBS:-}
	for spec in $knobs; do
		[[ $spec =~ ^[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*=[A-Za-z0-9_.+-]+(,[A-Za-z0-9_.+-]+)*$ ]] ||
			die "KNOBS: '$spec' is not NAME=VALUE[,VALUE...] (e.g. KNOBS=llc_balancing=0,1)"
		k=${spec%%=*}
		case $k in
		features|sis|sis/*) die "KNOBS: $k is not a knob here (VARIANTS switch the features; sis/ holds the statistics)" ;;
		esac
		case $names in *" $k "*) die "KNOBS: $k is named twice" ;; esac
		names="$names$k "
	done
}

# the run plan of each mode: checks its input and sets $out (made later,
# when ${mode}_conf writes the run configuration there), $csv, $benches,
# $bins (the host programs the guest needs), $timeout and $nps_list
score_plan() {
	# past the ceilings: under multi-threaded TCG a spinning vCPU waits
	# for the host to run a lock holder's thread (schbench at 1x: 0
	# requests in one run, a 162 s soft lockup in the next); one thread
	# for every vCPU ran it (small shape, 30 requests, no lockup)
	if [ "${SIZE:-}" = past ]; then
		SHAPE=${SHAPE:-small}
		export LAB_TCG_THREAD=single
	fi
	local n b c l ceiling left bf
	nps_list=${NPS:-1 2 4}
	[ -n "${nps_list// /}" ] || die "NPS names no mode"
	for n in $nps_list; do
		NPS=$n
		shape_init
	done
	rounds=${ROUNDS:-3} boots=${BOOTS:-1} timeout=${SCORE_TIMEOUT:-$SCORE_TIMEOUT_DEFAULT}
	positive ROUNDS "$rounds"
	positive BOOTS "$boots"
	positive SCORE_TIMEOUT "$timeout"
	size=${SIZE:-small}
	case $size in
	tiny) loads="1/16 1" runtime=1 messages=64000 ;;
	small) loads="1/16 1/4 1/2 1 2" runtime=2 messages=64000 ;;
	full) loads="1/16 1/8 1/4 1/2 1 2" runtime=5 messages=256000 ;;
	past) loads="1 2" runtime=2 messages=64000 RUN_LIMIT=${RUN_LIMIT:-1800} CEILINGS=${CEILINGS-} ;;
	*) die "unknown SIZE '$size' (tiny, small, full or past)" ;;
	esac
	loads=${LOADS:-$loads}
	for l in $loads; do
		fraction_ok "$l"
	done
	ceilings=${CEILINGS-$SCORE_CEILINGS}
	for c in $ceilings; do
		[[ $c == *=* && " $DECISION_BENCHES " == *" ${c%%=*} "* ]] ||
			die "CEILINGS takes BENCH=FRACTION ($DECISION_BENCHES), not '$c'"
		fraction_ok "${c#*=}"
	done
	[ -z "${RUN_LIMIT:-}" ] || positive RUN_LIMIT "$RUN_LIMIT"
	benches=${BENCHES:-$DECISION_BENCHES}
	# JOBS: BENCH:LOAD pairs instead of every benchmark at every load
	if [ -n "${JOBS:-}" ]; then
		[ -z "${BENCHES:-}${LOADS:-}" ] || die "JOBS names the benchmarks and loads: not with BENCHES or LOADS"
		benches=
		for c in $JOBS; do
			[[ $c == ?*:?* ]] || die "JOBS takes BENCH:LOAD pairs (hackbench:5/32), not '$c'"
			fraction_ok "${c#*:}"
			[[ " $benches " == *" ${c%%:*} "* ]] || benches="$benches ${c%%:*}"
		done
		benches=${benches# }
	fi
	bins= jobs=
	for b in $benches; do
		ceiling=
		for c in $ceilings; do
			[ "${c%%=*}" != "$b" ] || ceiling=${c#*=}
		done
		left=
		for l in $(score_loads "$b"); do
			if [ -n "$ceiling" ] && above "$l" "$ceiling"; then
				left="$left $l"
			else
				jobs="$jobs $b:$l"
			fi
		done
		[ -z "$left" ] || notes+=("$b: load points$left left out, above its ceiling $ceiling (CEILINGS)")
		# a benchmark of the scoreboard is guest/bench/NAME.sh with a
		# NAME_job; its NAME_score_programs, the host programs it needs
		bf=$LAB_TOP/guest/bench/$b.sh
		[[ $b =~ ^[a-z0-9-]+$ && -r $bf ]] && grep -q "^${b//-/_}_job()" "$bf" ||
			die "unknown benchmark '$b' ($DECISION_BENCHES)"
		bins="$bins $(sed -n "s/^${b//-/_}_score_programs='\(.*\)'\$/\1/p" "$bf")"
	done
	jobs=${jobs# }
	[ -n "$jobs" ] || die "no load point is left under the CEILINGS"
	knobs_plan
	pick_variants "$SCORE_VARIANTS"
	out=$LAB_OUT/score/$(date +%Y%m%d-%H%M%S)-$MODEL-$SHAPE
	csv=$out/score.csv
}
# score_loads BENCH: its load points, JOBS' or LOADS'
score_loads() {
	local c
	if [ -n "${JOBS:-}" ]; then
		for c in $JOBS; do
			[ "${c%%:*}" != "$1" ] || echo "${c#*:}"
		done
	else
		printf '%s\n' $loads
	fi
}
# score_conf: the run configuration the guest reads, score.conf
score_conf() {
	score_conf_text >"$out/score.conf"
}
score_conf_text() {
	cat <<-EOT
	machine=QEMU TCG guest${LAB_TCG_THREAD:+ (TCG thread=$LAB_TCG_THREAD)}, $MODEL model, $SHAPE shape, $NR_CPUS CPUs
	model=$MODEL
	shape=$SHAPE
	cpus=$NR_CPUS
	kernel=${version:-unknown}
	boot_args=${append[1]:-}
	nps=$nps_list
	boots=$boots
	features=$(series_features)
	variants=$variants
	knobs=$knobs
	benches=$benches
	size=$size
	loads=$loads
	ceilings=$ceilings
	jobs=$jobs
	rounds=$rounds
	runtime=$runtime
	messages=$messages
	run_limit=${RUN_LIMIT:-$((300 + 20 * runtime))}
	EOT
}
# fraction_ok X: X is a load point, a fraction of the CPU count
fraction_ok() {
	[[ $1 =~ ^[1-9][0-9]*(/[1-9][0-9]*)?$ ]] ||
		die "a load point is a fraction of the CPU count (1/16, 1, 2), not '$1'"
}
# above A B: fraction A is larger than fraction B
above() {
	local a=$1 b=$2
	[[ $a == */* ]] || a=$a/1
	[[ $b == */* ]] || b=$b/1
	((${a%/*} * ${b#*/} > ${b%/*} * ${a#*/}))
}

bench_plan() {
	local v b known
	user_nps=${NPS:-}
	shape_init
	nps_list=$NPS boots=1 timeout=${BENCH_TIMEOUT:-86400}
	size=${SIZE:-small}
	case $size in tiny|small|full) ;; *) die "unknown SIZE '$size' (tiny, small or full)" ;; esac
	rounds=${ROUNDS:-1}
	[ "$size" = small ] || rounds=${ROUNDS:-3}
	positive ROUNDS "$rounds"
	case ${VERIFY:-2} in *[!0-9]*|'') die "VERIFY must be a number, not '${VERIFY:-}'" ;; esac
	case ${BASE:-1} in 0|1) ;; *) die "BASE must be 0 or 1, not '${BASE:-}'" ;; esac
	case ${BENCH_AUDIT:-0} in 0|1) ;; *) die "BENCH_AUDIT must be 0 or 1, not '${BENCH_AUDIT:-}'" ;; esac
	knobs_plan
	for v in ${RUNTIME:-} ${LOOPS:-} ${RUN_LIMIT:-} ${NETPERF_PORT:-}; do
		case $v in *[!0-9]*|0) die "RUNTIME, LOOPS, RUN_LIMIT and NETPERF_PORT must be positive numbers, not '$v'" ;; esac
	done
	known=$(bench_names)
	[ -n "$known" ] || die "no benchmark registry (guest/bench-registry.sh)"
	benches=${BENCHES:-$known}
	[ -n "${BENCHES:-}" ] || [ "$size" != small ] || benches=$DECISION_BENCHES
	for b in $benches; do
		case " $known " in
		*" $b "*) ;;
		*) die "unknown benchmark '$b' ($known)" ;;
		esac
	done
	bins="mawk $(bench_host_programs $benches)"
	if [ "$size" = full ]; then
		pick_variants "$BENCH_VARIANTS_FULL"
	else
		pick_variants "$BENCH_VARIANTS"
	fi
	[ "${MMC:-0}" = 0 ] || [ "${BASE:-1}" = 0 ] || [ "$host" = 1 ] ||
		die "MMC=1 adds the MMC level, which the base kernel lacks: BASE=0 with it"
	out=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-$MODEL-$SHAPE-nps$NPS
	[ "$host" = 0 ] || out=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-host${user_nps:+-nps$user_nps}
	csv=$out/results.csv
	audit=${BENCH_AUDIT:-1}
	[ "$host" = 0 ] || audit=${BENCH_AUDIT:-0}
}
# bench_conf_text: bench.conf, the run configuration, which the guest
# (or --host, this machine) reads and the results keep
bench_conf_text() {
	cat <<-EOT
	variants=$variants
	knobs=$knobs
	benches=$benches
	size=$size
	rounds=$rounds
	runtime=${RUNTIME:-}
	loops=${LOOPS:-}
	verify=${VERIFY:-2}
	run_limit=${RUN_LIMIT:-}
	audit=$audit
	netperf_port=${NETPERF_PORT:-12875}
	EOT
}
# bench_conf: the run configuration, which the guest (or --host, this
# machine) reads and the results keep (the base kernel runs from its own
# copy), and what the host knows of the run, system.txt
bench_conf() {
	bench_conf_text >"$out/bench.conf"
	sed -e 's/^variants=.*/variants=base/' -e 's/^verify=.*/verify=0/' "$out/bench.conf" >"$out/bench-base.conf"
	# what the host knows of the run; the guest adds what the machine says
	{
		if [ "$host" = 1 ]; then
			# on a real machine NPS is whatever its firmware says: a label only
			echo "nps: $user_nps"
			echo "machine: $(uname -n) (--host, no emulation)"
			echo "emulation: none"
		else
			echo "nps: $NPS"
			echo "machine: QEMU TCG guest, $MODEL model, $SHAPE shape, NPS$NPS${append[1]:+, booted with ${append[1]}}"
			echo "emulation: QEMU TCG"
		fi
		[ -z "$knobs" ] || echo "knobs: $knobs"
		[ "$audit" = 0 ] || echo "audit: sis-stats.sh --audit in every run"
	} >"$out/system.txt"
}

"${mode}_plan"
[ -z "$outdir" ] || out=$outdir csv=$outdir/${csv##*/}
for b in $bins; do
	command -v "$b" >/dev/null || die "$b is not installed (make deps)"
done
[ -r /usr/share/dbench/client.txt ] || case " $benches " in
	*" tbench "*) die "/usr/share/dbench/client.txt is missing (apt-get install dbench)" ;;
esac

# the kernels, or on this machine (--host) the tools
base= version=
if [ "$host" = 1 ]; then
	[ "$(id -u)" = 0 ] || die "--host needs root (it writes sched features)"
	[ -w /sys/kernel/debug/sched/features ] ||
		die "/sys/kernel/debug/sched/features is not writable (mount debugfs)"
	make -s -C "$LAB_TOP/tools" O="$LAB_OUT/tools" || die "cannot build tools/"
else
	if [ -z "$kernel" ]; then
		"$LAB_TOP/scripts/apply-patches.sh" >/dev/null
		kernel=$("$LAB_TOP/scripts/build.sh" qemu)
	fi
	[ "$mode" = score ] || [ "${BASE:-1}" = 0 ] || base=$("$LAB_TOP/scripts/build-base.sh" qemu)
	version=$(file -b "$kernel" | sed -n 's/.*version \([^ ,]*\).*/\1/p')
fi
# plan_text: the plan of the run, plan.txt: everything that decides its
# cells and how they run (the run configuration the guest reads, the
# machine, the boots, the kernels by their SHA-256); a resumption must
# plan the same
plan_text() {
	local ksum=none bsum=none
	if [ "$host" = 1 ]; then
		ksum="this machine's $(uname -r)"
	else
		ksum=$(sha256sum <"$kernel" | cut -d' ' -f1)
		[ -z "$base" ] || bsum=$(sha256sum <"$base" | cut -d' ' -f1)
	fi
	cat <<-EOT
	mode=$mode
	host=$host
	model=$MODEL
	shape=$SHAPE
	nps=$nps_list
	boots=$boots
	boot_args=${append[1]:-}
	tcg_thread=${LAB_TCG_THREAD:-}
	cost=$cost
	kernel=$ksum
	base_kernel=$bsum
	EOT
	# the plugin's locality mode (boot.sh reads COST_LOCALITY)
	[ "$cost" = 0 ] || echo "cost_locality=${COST_LOCALITY:-0}"
	"${mode}_conf_text" | sed 's/^/conf./'
}

# plan_differs OLD: the first line of the plan that differs from OLD's,
# as "KEY was 'A', now 'B'"
plan_differs() {
	plan_text | awk -F= -v old="$1" '
		BEGIN { while ((getline l < old) > 0) { k = l; sub(/=.*/, "", k); v = l; sub(/^[^=]*=/, "", v); o[k] = v; order[++n] = k } }
		{ k = $1; v = $0; sub(/^[^=]*=/, "", v); seen[k] = 1
		  if (!(k in o)) { printf "%s was not set, now '\''%s'\''\n", k, v; done = 1; exit }
		  if (o[k] != v) { printf "%s was '\''%s'\'', now '\''%s'\''\n", k, o[k], v; done = 1; exit } }
		END { for (i = 1; !done && i <= n; i++) if (!(order[i] in seen)) { printf "%s was '\''%s'\'', now not set\n", order[i], o[order[i]]; exit } }'
}

# the cost plugin for the QEMU boot.sh will take; without it the runs go
# on and their cost columns are NA (the plan says which)
plugin_err=$(mktemp)
trap 'rm -f "$plugin_err"' EXIT
cost_note=
if [ "$cost" = 1 ] && ! cost_plugin "$plugin_err"; then
	cost_note="no cost plugin ($(tail -n1 "$plugin_err")): the cost columns are NA"
	cost=0
fi

if [ -n "$resume" ]; then
	why=$(plan_differs "$resume/plan.txt")
	[ -z "$why" ] || die "$resume was planned otherwise: $why (resume it as it was started, or start a new run)"
fi
for n in "${notes[@]}"; do
	note "$n"
done
if [ -n "$resume" ]; then
	out=$resume csv=$resume/${csv##*/}
	exec 9>>"$out/lock"
	flock -n 9 || die "$out: another bench.sh (or the QEMU of a driver stopped alone) still writes there"
	note "resuming $out"
	[ -z "$cost_note" ] || note "$cost_note"
else
	mkdir -p "${out%/*}"
	mkdir "$out" 2>/dev/null || die "$out exists: another run started this second"
	exec 9>>"$out/lock"
	flock 9
	plan_text >"$out/plan.txt"
	"${mode}_conf"
	note "results in $out"
	[ ${#notes[@]} = 0 ] || printf '%s\n' "${notes[@]}" >>"$out/notes.txt"
	if [ -n "$cost_note" ]; then
		cp "$plugin_err" "$out/cost-plugin.err"
		echo "$cost_note" | tee -a "$out/notes.txt" | sed "s/^/${0##*/}: /" >&2
	fi
fi

# guest_boot KERNEL NPS LABEL LOG COST GUEST-COMMAND ROWS...: one boot
# running GUEST-COMMAND, its console in $out/LOG, the cost plugin's
# reports in $out/COST.  A guest that refused its run configuration (a
# knob or variant the kernel lacks: $out/refused) stops the driver with
# its line when nothing ran before it; a guest that stopped early
# (boot.sh failed, a hang ended in its sysrq dump) is noted as LABEL in
# $out/stopped and notes.txt.  Then the cost figures of its rows
# (sis_cost.py attach's --rows ROWS; NA without the plugin).
# $guest_rc is boot.sh's status (3: the guest ran everything, some runs
# failed).  LAB_BOOT_SH (default scripts/boot.sh) is for the lab's
# tests, which run the guest on the host.
guest_boot() {
	local k=$1 n=$2 label=$3 log=$4 co=$5 cmd=$6 c=()
	shift 6
	[ "$cost" = 0 ] || c=(--cost "$out/$co")
	set +e
	# each run has its own time limit in the guest; the boot's is the
	# last resort
	LAB_GUEST_BINS="$bins" "${LAB_BOOT_SH:-$LAB_TOP/scripts/boot.sh}" -v --kernel "$k" --nps "$n" \
		--shape "$SHAPE" --model "$MODEL" --out "$out" --log "$out/$log" \
		--timeout "$timeout" "${append[@]}" "${c[@]}" -- "$cmd" \
		2>"$out/boot.err" | grep --line-buffered "^$mode:"
	guest_rc=${PIPESTATUS[0]}
	set -e
	if [ -s "$out/refused" ]; then
		[ "$(wc -l 2>/dev/null <"$csv" || echo 0)" -gt 1 ] || die "$(cat "$out/refused")"
		echo "the guest of $label ran nothing: $(cat "$out/refused")" >>"$out/stopped"
		rm -f "$out/refused"
		guest_rc=refused
	else
		case $guest_rc in
		0|3) ;;
		*) echo "the guest of $label stopped early (status $guest_rc): $(tail -n1 "$out/boot.err")" |
			tee -a "$out/notes.txt" "$out/stopped" >&2 ;;
		esac
	fi
	[ ! -f "$csv" ] ||
		"$LAB_TOP/scripts/sis_cost.py" attach "$@" "$csv" "$out/$co" 2>"$out/cost.err" ||
		echo "no cost figures for $label: $(tail -n1 "$out/cost.err")" | tee -a "$out/notes.txt" >&2
}

# The boots of the plan are its groups, in order (make score: NPS mode
# and boot index; make bench: the patched kernel, then the base, or this
# machine with --host).  The results directory is the run's part (what
# was written before the first boot) and each group's part (the rows it
# ran, the lines it added to notes.txt, system.txt, stopped and
# failed-runs.log), kept in
# parts/GROUP/ when it ends and put together in plan order; a group whose
# guest ran everything is listed in done.  A resumption (--resume) keeps
# the rows of a group that did not end, or was ended early, drops the
# rest of its part (to interrupted/, with its console log and cost
# reports), and boots it again, the guest skipping the cells with rows.
PART_FILES="notes.txt system.txt stopped failed-runs.log"
parts=$out/parts
if [ "$mode" = score ]; then
	groups=$(for ((b = 1; b <= boots; b++)); do for n in $nps_list; do echo "nps$n-boot$b"; done; done)
	last_col=status
elif [ "$host" = 1 ]; then
	groups=host last_col=cost_to
else
	groups=patched${base:+ base} last_col=cost_to
fi
groups=$(echo $groups)

# lines FILE: its lines (0 when it is missing)
lines() {
	if [ -f "$1" ]; then grep -c '' "$1" || true; else echo 0; fi
}

# complete_rows: the rows on stdin that are whole (every column up to the
# guest's last, a status; the guests write no quote or comma in a cell):
# a boot stopped while it wrote leaves a row cut short, which is dropped
# (its cell runs again), as reopen drops a last line without its newline
complete_rows() {
	awk -F, -v hdr="$(head -n1 "$csv")" -v last="$last_col" '
		BEGIN { n = split(hdr, h, ","); for (i = 1; i <= n; i++) c[h[i]] = i }
		NF >= c[last] && $c["status"] ~ /^(ok|failed: )/'
}

# assemble [UPTO]: the run's files made of the run part and the parts of
# the groups before UPTO (every group: no UPTO), in plan order; the rows
# under the results' header
assemble() {
	local f g
	for f in $PART_FILES; do
		{
			cat "$parts/run/$f" 2>/dev/null || true
			for g in $groups; do
				[ "$g" != "${1:-}" ] || break
				cat "$parts/$g/$f" 2>/dev/null || true
			done
		} >"$out/$f.new"
		if [ -s "$out/$f.new" ]; then mv "$out/$f.new" "$out/$f"; else rm -f "$out/$f.new" "$out/$f"; fi
	done
	[ -f "$csv" ] || return 0
	{
		head -n1 "$csv"
		for g in $groups; do
			[ "$g" != "${1:-}" ] || break
			cat "$parts/$g/rows" 2>/dev/null || true
		done
	} >"$csv.new"
	mv "$csv.new" "$csv"
}

# part_since P DIR: into DIR, the lines each part file gained since the
# group whose part is P started (P/start), none for a file that gained none
part_since() {
	local f n
	for f in $PART_FILES; do
		n=$(sed -n "s/^$f //p" "$1/start")
		rm -f "$2/$f"
		[ "$(lines "$out/$f")" -le "$n" ] || tail -n +"$((n + 1))" "$out/$f" >"$2/$f"
	done
}

# group_files GROUP: the console log and cost reports of the group's boot
group_files() {
	case $1 in
	nps*) echo "console-${1}.log cost-${1}.out cost-${1}.out.map" ;;
	patched) echo "console.log cost-console.out cost-console.out.map" ;;
	base) echo "console-base.log cost-console-base.out cost-console-base.out.map" ;;
	host) echo "console.log - -" ;;
	esac
}

# reopen GROUP: before a resumption boots the group again, its rows kept
# (a boot stopped while it ran: the whole rows it wrote, with their cost
# figures from its reports) and the rest of its part moved to
# interrupted/GROUP-N/ with its console log and cost reports
reopen() {
	local g=$1 p=$parts/$1 f n=1 keep rows
	[ -f "$p/start" ] || return 0
	while [ -e "$out/interrupted/$g-$n" ]; do n=$((n + 1)); done
	local i=$out/interrupted/$g-$n
	mkdir -p "$i"
	if [ ! -f "$p/ended" ]; then
		# the driver stopped in this group: everything after its start
		# is its part
		keep= rows=
		read -r keep rows < <(sed -n 's/^rows //p' "$p/start") || true
		[ -n "$rows" ] || die "$p/start has no rows line: remove $p/start and resume again"
		if [ -f "$csv" ]; then
			# a last line without its newline is a row cut short
			[ -z "$(tail -c1 "$csv")" ] || sed -i '$d' "$csv"
			[ "$g" = host ] ||
				"$LAB_TOP/scripts/sis_cost.py" attach --rows "$((rows + keep + 1))-" "$csv" \
					"$out/$(group_files "$g" | cut -d' ' -f2)" 2>"$i/cost.err" || true
			tail -n +"$((rows + 2))" "$csv" >"$i/rows"
			complete_rows <"$i/rows" >"$p/rows"
		fi
		part_since "$p" "$i"
	else
		for f in $PART_FILES; do
			[ ! -f "$p/$f" ] || mv "$p/$f" "$i/$f"
		done
	fi
	for f in $(group_files "$g"); do
		[ ! -f "$out/$f" ] || mv "$out/$f" "$i/$f"
	done
	rm -f "$p/start" "$p/ended"
	find "$i" -type f -empty -delete
	note "$g: kept $(lines "$p/rows") rows, the rest of its last boot in ${i#"$out"/}"
}

# run_group GROUP: the group's boot, its part kept, the files put together
run_group() {
	local g=$1 p=$parts/$1 f rows keep from n b
	assemble "$g"
	mkdir -p "$p"
	rows=0
	[ ! -f "$csv" ] || rows=$(($(lines "$csv") - 1))
	keep=$(lines "$p/rows")
	# the rows kept from an earlier boot back first, then where the
	# group's part begins (one rename: a driver stopped before it finds
	# the kept rows where reopen left them)
	[ "$keep" = 0 ] || cat "$p/rows" >>"$csv"
	{
		echo "rows $keep $rows"
		for f in $PART_FILES; do echo "$f $(lines "$out/$f")"; done
	} >"$p/start.new"
	mv "$p/start.new" "$p/start"
	# the rows this boot appends, for their cost figures
	from=$((rows + keep + 1))
	case $g in
	nps*)
		n=${g#nps} n=${n%-boot*} b=${g#*-boot}
		note "NPS$n boot $b of $boots"
		guest_boot "$kernel" "$n" "NPS$n boot $b" "console-$g.log" "cost-$g.out" \
			"/lab/score-guest.sh $n $b" --rows "$from-" ;;
	patched)
		guest_boot "$kernel" "$NPS" console.log console.log cost-console.out \
			"/lab/bench-guest.sh /lab/out/bench.conf" --rows "$from-" ;;
	base)
		# the base kernel has none of the series' features: every run is
		# the base as it is, labelled base (base@KNOB=VALUE with KNOBS);
		# nothing to verify against tip there
		guest_boot "$base" "$NPS" console-base.log console-base.log cost-console-base.out \
			"/lab/bench-guest.sh /lab/out/bench-base.conf" --rows "$from-" ;;
	host)
		# the guest's folder, run in place
		guest_rc=0
		LAB_DIR=$LAB_TOP/guest OUT=$out PATH="$LAB_OUT/tools:$LAB_TOP/guest:$PATH" \
			sh "$LAB_TOP/guest/bench-guest.sh" "$out/bench.conf" 2>&1 | tee "$out/console.log" |
			grep --line-buffered '^bench:' || true
		# a knob or variant this kernel lacks: the guest's one line
		[ ! -s "$out/refused" ] || die "$(cat "$out/refused")"
		grep -q '^bench: done, ' "$out/console.log" || guest_rc=stopped ;;
	esac
	[ ! -f "$csv" ] || tail -n +"$((rows + 2))" "$csv" | complete_rows >"$p/rows"
	part_since "$p" "$p"
	touch "$p/ended"
	case $guest_rc in 0|3) echo "$g" >>"$out/done" ;; esac
	assemble
}

# the runs: the run part first (on a resumption, unless a group began),
# then on a resumption the groups to boot again reopened
if [ ! -d "$parts/run" ] && [ -z "$(ls "$parts"/*/start "$parts"/*/ended 2>/dev/null)" ]; then
	mkdir -p "$parts/run"
	for f in $PART_FILES; do
		[ ! -f "$out/$f" ] || cp "$out/$f" "$parts/run/$f"
	done
fi
if [ -n "$resume" ]; then
	for g in $groups; do
		grep -qx "$g" "$out/done" 2>/dev/null || reopen "$g"
	done
	assemble
fi
for g in $groups; do
	if grep -qx "$g" "$out/done" 2>/dev/null; then
		note "$g: every run done before, not run again"
	else
		run_group "$g"
	fi
done

[ "$(wc -l 2>/dev/null <"$csv" || echo 0)" -gt 1 ] ||
	die "no results were written (see $out/console*.log) $(cat "$out/stopped" 2>/dev/null || true)"

# score_report: the scoreboard's report, cover letter table, results
# tables and plots
score_report() {
	local r=$LAB_TOP/scripts/score_report.py
	"$r" --plot "$out" "$csv" >"$out/report.txt"
	"$r" --format cover "$csv" >"$out/cover-letter.txt"
	"$r" --format markdown "$csv" >"$out/results.md"
	[ "${out%/*}" != "$LAB_OUT/score" ] || ln -sfn "${out##*/}" "$LAB_OUT/score/latest"
	cat "$out/report.txt"
	note "report: $out/report.txt; cover letter table: $out/cover-letter.txt; results tables: $out/results.md; plots: $out/frontier-nps*.png"
	local failed
	failed=$(grep -c ',failed: ' "$csv" || true)
	[ ! -s "$out/stopped" ] || exit 4
	[ "$failed" = 0 ] || { note "$failed runs failed (status column of $csv)"; exit 3; }
}

# bench_report: the programs, the reports (LKML tables, the old format,
# JSON, plots), each led by what is missing and why
bench_report() {
	# the program and version of each benchmark, from this machine (the
	# guest runs copies of its programs)
	tools=$LAB_OUT/tools-static
	[ "$host" = 0 ] || tools=$LAB_OUT/tools
	"$LAB_TOP/scripts/bench-programs.sh" --tools "$tools" >"$out/programs.txt" ||
		{ rm -f "$out/programs.txt"; note "the programs' versions were not recorded"; }
	# what is missing and why leads every report
	failed=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		c["status"] && $c["status"] != "ok" {
			printf "  %s %s, %s, %s %s: %s\n", $c["bench"], $c["case"], $c["variant"],
				($c["kind"] == "verify" ? "verification run" : "round"), $c["round"], $c["status"] }' \
		"$out/results.csv")
	{
		[ ! -f "$out/stopped" ] || cat "$out/stopped"
		if [ -n "$failed" ]; then
			echo "$(printf '%s\n' "$failed" | wc -l) results failed and are left out of the tables:"
			printf '%s\n' "$failed"
		fi
	} >"$out/missing.txt"
	r=$LAB_TOP/scripts/bench-report.sh
	"$r" --format old "$out/results.csv" >"$out/report-old.body"
	"$r" --format json "$out/results.csv" >"$out/results.json"
	"$r" --plot "$out/plots" "$out/results.csv" >"$out/report.body"
	for f in report report-old; do
		if [ -s "$out/missing.txt" ]; then
			{ echo "MISSING RESULTS"; cat "$out/missing.txt"; echo; cat "$out/$f.body"; } >"$out/$f.txt"
		else
			cat "$out/$f.body" >"$out/$f.txt"
		fi
		rm -f "$out/$f.body"
	done
	cat "$out/report.txt"
	note "reports: $out/report.txt, $out/report-old.txt, $out/results.json, $out/plots/"
	if [ -s "$out/missing.txt" ]; then
		note "$(head -n1 "$out/missing.txt")"
		[ ! -s "$out/stopped" ] || exit 4
		exit 3
	fi
}

"${mode}_report"
