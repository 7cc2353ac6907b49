#!/bin/bash
# The SIS scoreboard: what select_idle_sibling() decides under a load
# sweep, for each variant, in one boot per NPS mode; then its report.
set -eu
. "$(dirname "$0")/lib.sh"

# the scoreboard's variants, in report order (tip: every feature off)
DEFAULT_VARIANTS="tip SIS_CORE SIS_NODE SIS_NODE+SIS_NODE_MMC SIS_SHORT+SIS_CORE+SIS_NODE SIS_NODE+SIS_CORE+SIS_NODE_CORE"
DEFAULT_BENCHES="hackbench schbench tbench netperf"
# seconds a boot may take before its guest dumps its stacks and stops
DEFAULT_TIMEOUT=14400
# The highest load point of each benchmark under TCG.  Above them the
# 128-vCPU guest on two host cores spends minutes in soft lockups, its
# spinlock holders waiting for the host to run their vCPU (measured:
# schbench with 128 workers on a page table lock, tbench with 64 clients
# on the slab node lock), or runs take a minute (netperf, 32 clients:
# 36-68 s); hackbench's processes over pipes reach 2x in 35-70 s.
DEFAULT_CEILINGS="schbench=1/4 tbench=1/4 netperf=1/4"

usage() {
	cat <<EOT
usage: ${0##*/} [--kernel BZIMAGE] [--help]

Applies the series and builds the qemu kernel (or boots BZIMAGE as it
is), then boots it once per NPS mode (BOOTS times) on the emulated Zen3
topology and runs guest/score-guest.sh there: for each variant
(its features switched on at run time, every feature of the series off
first), a load sweep of hackbench (rt-tests, processes over pipes),
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
  VARIANTS  default "$DEFAULT_VARIANTS"
            ("a+b" switches a, then b on).  A feature the series lacks is
            an error in VARIANTS, and skips that default variant with one
            line; a feature the kernel lacks skips the variant, one line.
  MMC       0 (default): variants with SIS_NODE_MMC are skipped, since the
            MMC level it stops at exists only with the sched_mmc boot
            option; 1 boots with sched_mmc, which adds the MMC level (and
            its load balancing) under every variant, tip included
  BENCHES   default "$DEFAULT_BENCHES"
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
  CEILINGS  the highest load point per benchmark (default
            "$DEFAULT_CEILINGS": under TCG the
            guest livelocks above them; "" on a host that copes); the
            points left out are listed in notes.txt and the report
  ROUNDS    runs of each variant and load point per boot (default 3)
  BOOTS     boots per NPS mode (default 1; 2 measures boot-to-boot spread)
  RUN_LIMIT seconds before a run counts as hung (default 300 + 20 x the
            run's seconds); SCORE_TIMEOUT: per boot (default $DEFAULT_TIMEOUT)
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
EOT
}
kernel=
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--kernel) need_value "$@"; kernel=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -z "$kernel" ] || [ -f "$kernel" ] || die "no kernel image at '$kernel'"

# past the ceilings: under multi-threaded TCG a spinning vCPU waits for
# the host to run a lock holder's thread (schbench at 1x: 0 requests in
# one run, a 162 s soft lockup in the next); one thread for every vCPU
# ran it (small shape, 30 requests, no lockup)
if [ "${SIZE:-}" = past ]; then
	SHAPE=${SHAPE:-small}
	export LAB_TCG_THREAD=single
fi
nps_list=${NPS:-1 2 4}
[ -n "${nps_list// /}" ] || die "NPS names no mode"
for n in $nps_list; do
	NPS=$n
	shape_init
done
number() {
	case $2 in ''|*[!0-9]*|0) die "$1 must be a positive number, not '$2'" ;; esac
}
rounds=${ROUNDS:-3} boots=${BOOTS:-1} timeout=${SCORE_TIMEOUT:-$DEFAULT_TIMEOUT}
number ROUNDS "$rounds"
number BOOTS "$boots"
number SCORE_TIMEOUT "$timeout"
append=()
case ${MMC:-0} in
0) ;;
1) append=(--append sched_mmc) ;;
*) die "MMC must be 0 or 1, not '${MMC:-}'" ;;
esac
size=${SIZE:-small}
case $size in
tiny) loads="1/16 1" runtime=1 messages=64000 ;;
small) loads="1/16 1/4 1/2 1 2" runtime=2 messages=64000 ;;
full) loads="1/16 1/8 1/4 1/2 1 2" runtime=5 messages=256000 ;;
past) loads="1 2" runtime=2 messages=64000 RUN_LIMIT=${RUN_LIMIT:-1800} CEILINGS=${CEILINGS-} ;;
*) die "unknown SIZE '$size' (tiny, small, full or past)" ;;
esac
loads=${LOADS:-$loads}
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
for l in $loads; do
	fraction_ok "$l"
done
ceilings=${CEILINGS-$DEFAULT_CEILINGS}
for c in $ceilings; do
	[[ $c == *=* && " $DEFAULT_BENCHES " == *" ${c%%=*} "* ]] ||
		die "CEILINGS takes BENCH=FRACTION ($DEFAULT_BENCHES), not '$c'"
	fraction_ok "${c#*=}"
done
[ -z "${RUN_LIMIT:-}" ] || number RUN_LIMIT "$RUN_LIMIT"
case ${COST:-1} in
0|1) ;;
*) die "COST must be 0 or 1, not '${COST:-}'" ;;
esac
benches=${BENCHES:-$DEFAULT_BENCHES}
bins=
notes=()
jobs=
for b in $benches; do
	ceiling=
	for c in $ceilings; do
		[ "${c%%=*}" != "$b" ] || ceiling=${c#*=}
	done
	left=
	for l in $loads; do
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
		die "unknown benchmark '$b' ($DEFAULT_BENCHES)"
	bins="$bins $(sed -n "s/^${b//-/_}_score_programs='\(.*\)'\$/\1/p" "$bf")"
done
jobs=${jobs# }
[ -n "$jobs" ] || die "no load point is left under the CEILINGS"
for b in $bins; do
	command -v "$b" >/dev/null || die "$b is not installed (make deps)"
done
[ -r /usr/share/dbench/client.txt ] || case " $benches " in
	*" tbench "*) die "/usr/share/dbench/client.txt is missing (apt-get install dbench)" ;;
esac

# the variants to run: every feature named must be one of the series
features=$(series_features)
variants=
for v in ${VARIANTS:-$DEFAULT_VARIANTS}; do
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
for n in "${notes[@]}"; do
	note "$n"
done

if [ -z "$kernel" ]; then
	"$LAB_TOP/scripts/apply-patches.sh" >/dev/null
	kernel=$("$LAB_TOP/scripts/build.sh" qemu)
fi
version=$(file -b "$kernel" | sed -n 's/.*version \([^ ,]*\).*/\1/p')

# the cost plugin for the QEMU boot.sh will take; without it the runs go
# on and their cost columns are NA
if [ "${COST:-1}" = 1 ]; then
	if ! cost_plugin "$LAB_OUT/cost-plugin.err"; then
		notes+=("no cost plugin ($(tail -n1 "$LAB_OUT/cost-plugin.err")): the cost columns are NA")
		note "${notes[-1]}"
		COST=0
	fi
fi

stamp=$(date +%Y%m%d-%H%M%S)-$MODEL-$SHAPE
out=$LAB_OUT/score/$stamp
mkdir -p "$out"
note "results in $out"
[ ${#notes[@]} = 0 ] || printf '%s\n' "${notes[@]}" >"$out/notes.txt"
cat >"$out/score.conf" <<EOT
machine=QEMU TCG guest${LAB_TCG_THREAD:+ (TCG thread=$LAB_TCG_THREAD)}, $MODEL model, $SHAPE shape, $NR_CPUS CPUs
model=$MODEL
shape=$SHAPE
cpus=$NR_CPUS
kernel=${version:-unknown}
boot_args=${append[1]:-}
nps=$nps_list
boots=$boots
features=$features
variants=$variants
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

# boots outermost, so that a second pass over the NPS modes measures the
# boot-to-boot spread with drift spread over the whole run
for ((b = 1; b <= boots; b++)); do
	for n in $nps_list; do
		log=$out/console-nps$n-boot$b.log
		cost=()
		[ "${COST:-1}" = 0 ] || cost=(--cost "$out/cost-nps$n-boot$b.out")
		note "NPS$n boot $b of $boots"
		set +e
		LAB_GUEST_BINS="$bins" "$LAB_TOP/scripts/boot.sh" -v --kernel "$kernel" \
			--nps "$n" --shape "$SHAPE" --model "$MODEL" --out "$out" --log "$log" \
			--timeout "$timeout" "${append[@]}" "${cost[@]}" \
			-- "/lab/score-guest.sh $n $b" 2>"$out/boot.err" | grep --line-buffered '^score:'
		rc=${PIPESTATUS[0]}
		set -e
		# 3: the guest ran the sweep, some runs failed (in score.csv)
		case $rc in
		0|3) ;;
		*) echo "the guest of NPS$n boot $b stopped early (status $rc): $(tail -n1 "$out/boot.err")" |
			tee -a "$out/notes.txt" "$out/stopped" >&2 ;;
		esac
		# the cost figures of this boot's rows (NA without the plugin)
		[ ! -f "$out/score.csv" ] ||
			"$LAB_TOP/scripts/sis_cost.py" attach --only nps="$n" --only boot="$b" "$out/score.csv" \
				"$out/cost-nps$n-boot$b.out" 2>"$out/cost.err" ||
			echo "no cost figures for NPS$n boot $b: $(tail -n1 "$out/cost.err")" |
				tee -a "$out/notes.txt" >&2
	done
done

[ "$(wc -l <"$out/score.csv" 2>/dev/null || echo 0)" -gt 1 ] ||
	die "no results were written (see $out/console-*.log) $(cat "$out/stopped" 2>/dev/null || true)"
r=$LAB_TOP/scripts/score_report.py
"$r" --plot "$out" "$out/score.csv" >"$out/report.txt"
"$r" --format cover "$out/score.csv" >"$out/cover-letter.txt"
"$r" --format markdown "$out/score.csv" >"$out/results.md"
ln -sfn "$stamp" "$LAB_OUT/score/latest"
cat "$out/report.txt"
note "report: $out/report.txt; cover letter table: $LAB_OUT/score/latest/cover-letter.txt; results tables: $out/results.md; plots: $out/frontier-nps*.png"
failed=$(grep -c ',failed: ' "$out/score.csv" || true)
[ ! -s "$out/stopped" ] || exit 4
[ "$failed" = 0 ] || { note "$failed runs failed (status column of $out/score.csv)"; exit 3; }
