#!/bin/bash
# The main job: run the benchmark matrix for every SIS variant in one boot
# (QEMU, or this machine with --host), then write the reports.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--host | --kernel BZIMAGE] [--help]

Applies the series, builds the qemu kernel, boots it on the emulated Zen3
topology and runs guest/bench-guest.sh there, which flips the SIS
features at run time (tip = every feature of the series off), rotates the
variant order each round and re-runs significant regressions for the
[Verification Run] rows.  With --host it runs the same matrix on this
machine instead (root, a kernel with the series, debugfs mounted): for
users with real Zen3 hardware.  --kernel boots BZIMAGE as it is, skipping
the patch and build steps.

Environment:
  NPS       1|2|4 (default 1; --host: only labels the report)
  SHAPE     scaled|full|small (default scaled: 128 CPUs; full: 2x64C/128T;
            small: 64 CPUs)
  MODEL     $(platform_names | tr ' ' '|') (default milan; the platforms of
            configs/platform, see boot.sh --help)
  VARIANTS  default "tip SIS_SHORT SIS_CORE SIS_NODE SIS_NODE_LIMIT
            SIS_NODE_MMC SIS_SHORT+SIS_CORE+SIS_NODE_MMC" ("a+b" combines)
  KNOBS     "NAME=VALUE,VALUE... ..." (default none): sched debugfs knobs
            (/sys/kernel/debug/sched/NAME; a directory such as
            llc_balancing means its "enabled" switch) as a dimension next
            to the variants: every variant runs with each combination of
            values, labelled VARIANT@NAME=VALUE (KNOBS=llc_balancing=0,1:
            tip@llc_balancing=0, tip@llc_balancing=1, ...), compared with
            tip at each knob's first value.  A knob or value the kernel
            lacks stops the bench with one line before any run; every knob
            gets its old value back at the end
  BENCHES   default "$(bench_names)"
            (guest/bench-meta.txt, the registry; hackbench is perf bench
            sched messaging -p -t)
  SIZE      tiny|small|full (default small; full: the LKML ranges, e.g.
            1..16 hackbench groups on 256 CPUs, 30 s runs)
  ROUNDS    runs per data point (default 3); RUNTIME, LOOPS override the
            seconds per timed run and the hackbench loops of SIZE
  VERIFY    re-runs of each significant regression (default 2, 0 = off)
  BASE      1 (default) also boots the unpatched base kernel (build-base.sh)
            and runs the matrix there as variant "base", so that the
            report shows what the series changes with every feature off
            (tip); 0 skips it.  Not with --host.
  BENCH_AUDIT  1 runs sis-stats.sh --audit in every run, for the
            missed-idle rates (default 1 under emulation, 0 with --host: the
            audit walks a NUMA node per wakeup)
  COST      1 (default, not with --host): count each run's cost with the
            sis-cost TCG plugin (boot.sh --cost), as make score does:
            placement, upkeep and kernel/sched instructions per wakeup,
            line transfers per wakeup, in the SIS decisions, for runs
            without the audit (BENCH_AUDIT=0; its probes of every CPU of
            the node would count as placement); 0: without
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
EOT
}
host=0 kernel=
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--host) host=1; shift ;;
	--kernel) need_value "$@"; kernel=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -z "$kernel" ] || [ -f "$kernel" ] || die "no kernel image at '$kernel'"
user_nps=${NPS:-}
shape_init
rounds=${ROUNDS:-3}
case $rounds in ''|*[!0-9]*|0) die "ROUNDS must be a positive number, not '$rounds'" ;; esac
case ${VERIFY:-2} in *[!0-9]*|'') die "VERIFY must be a number, not '${VERIFY:-}'" ;; esac
case ${BASE:-1} in 0|1) ;; *) die "BASE must be 0 or 1, not '${BASE:-}'" ;; esac
case ${SIZE:-small} in tiny|small|full) ;; *) die "unknown SIZE '${SIZE:-}' (tiny, small or full)" ;; esac
case ${BENCH_AUDIT:-0} in 0|1) ;; *) die "BENCH_AUDIT must be 0 or 1, not '${BENCH_AUDIT:-}'" ;; esac
case ${VARIANTS:-} in *@*) die "VARIANTS names no knob values ('@'); KNOBS does" ;; esac
knobs=${KNOBS:-} names=' '
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
for v in ${RUNTIME:-} ${LOOPS:-} ${RUN_LIMIT:-} ${NETPERF_PORT:-}; do
	case $v in *[!0-9]*|0) die "RUNTIME, LOOPS, RUN_LIMIT and NETPERF_PORT must be positive numbers, not '$v'" ;; esac
done
known=$(bench_names)
benches=${BENCHES:-$known}
for b in $benches; do
	case " $known " in
	*" $b "*) ;;
	*) die "unknown benchmark '$b' ($known)" ;;
	esac
done
bins="mawk $(bench_host_programs $benches)"
for b in $bins; do
	command -v "$b" >/dev/null || die "$b is not installed (make deps)"
done
[ -r /usr/share/dbench/client.txt ] || case " $benches " in
	*" tbench "*) die "/usr/share/dbench/client.txt is missing (apt-get install dbench)" ;;
esac

out=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-$MODEL-$SHAPE-nps$NPS
[ "$host" = 0 ] || out=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-host${user_nps:+-nps$user_nps}
mkdir -p "$out"
note "results in $out"
# the run configuration, which the guest (or --host, this machine) reads
# and the results keep; make bench's base kernel runs from its own copy
audit=${BENCH_AUDIT:-1}
[ "$host" = 0 ] || audit=${BENCH_AUDIT:-0}
cat >"$out/bench.conf" <<EOT
variants=${VARIANTS:-tip SIS_SHORT SIS_CORE SIS_NODE SIS_NODE_LIMIT SIS_NODE_MMC SIS_SHORT+SIS_CORE+SIS_NODE_MMC}
knobs=$knobs
benches=$benches
size=${SIZE:-small}
rounds=$rounds
runtime=${RUNTIME:-}
loops=${LOOPS:-}
verify=${VERIFY:-2}
run_limit=${RUN_LIMIT:-}
audit=$audit
netperf_port=${NETPERF_PORT:-12875}
EOT
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
		echo "machine: QEMU TCG guest, $MODEL model, $SHAPE shape, NPS$NPS"
		echo "emulation: QEMU TCG"
	fi
	[ -z "$knobs" ] || echo "knobs: $knobs"
	[ "$audit" = 0 ] || echo "audit: sis-stats.sh --audit in every run"
} >"$out/system.txt"
if [ "$host" = 1 ]; then
	[ "$(id -u)" = 0 ] || die "--host needs root (it writes sched features)"
	[ -w /sys/kernel/debug/sched/features ] ||
		die "/sys/kernel/debug/sched/features is not writable (mount debugfs)"
	make -s -C "$LAB_TOP/tools" O="$LAB_OUT/tools" || die "cannot build tools/"
	# the guest's folder, run in place
	LAB_DIR=$LAB_TOP/guest OUT=$out PATH="$LAB_OUT/tools:$LAB_TOP/guest:$PATH" \
		sh "$LAB_TOP/guest/bench-guest.sh" "$out/bench.conf" 2>&1 | tee "$out/console.log" |
		grep --line-buffered '^bench:' || true
	# a knob or variant this kernel lacks: the guest's one line
	[ ! -s "$out/refused" ] || die "$(cat "$out/refused")"
else
	if [ -z "$kernel" ]; then
		"$LAB_TOP/scripts/apply-patches.sh" >/dev/null
		kernel=$("$LAB_TOP/scripts/build.sh" qemu)
	fi
	base=
	[ "${BASE:-1}" = 0 ] || base=$("$LAB_TOP/scripts/build-base.sh" qemu)
	# guest_matrix KERNEL LOG CONF: one boot running the matrix of CONF;
	# a guest that stops early (boot.sh fails, a hang ends in its sysrq
	# dump) is noted in $out/stopped
	cost=${COST:-1}
	case $cost in
	0) ;;
	1) cost_plugin "$out/cost.err" ||
		{ note "no cost plugin ($(tail -n1 "$out/cost.err")): no cost figures"; cost=0; } ;;
	*) die "COST must be 0 or 1, not '$cost'" ;;
	esac
	guest_matrix() {
		local rc c=()
		[ "$cost" = 0 ] || c=(--cost "$out/cost-${2%.log}.out")
		set +e
		# each run has its own time limit in the guest; the boot's is
		# the last resort (BENCH_TIMEOUT)
		LAB_GUEST_BINS="$bins" "$LAB_TOP/scripts/boot.sh" -v --kernel "$1" --nps "$NPS" \
			--shape "$SHAPE" --model "$MODEL" --out "$out" --log "$out/$2" \
			--timeout "${BENCH_TIMEOUT:-86400}" "${c[@]}" -- "/lab/bench-guest.sh /lab/out/$3" \
			2>"$out/boot.err" | grep --line-buffered '^bench:'
		rc=${PIPESTATUS[0]}
		set -e
		# the cost figures of this boot's rows: the base kernel's boot ran
		# variant base alone (base@KNOB=VALUE with KNOBS)
		if [ -f "$out/results.csv" ]; then
			local rows=(--except 'variant=base*')
			[ "$3" != bench-base.conf ] || rows=(--only 'variant=base*')
			"$LAB_TOP/scripts/sis_cost.py" attach "${rows[@]}" "$out/results.csv" \
				"$out/cost-${2%.log}.out" 2>"$out/cost.err" ||
				note "no cost figures for $2: $(tail -n1 "$out/cost.err")"
		fi
		# a knob or variant this kernel lacks: the guest's one line, or,
		# after a boot that ran, what is missing
		if [ -s "$out/refused" ]; then
			[ "$(wc -l 2>/dev/null <"$out/results.csv" || echo 0)" -gt 1 ] ||
				die "$(cat "$out/refused")"
			echo "the guest of $2 ran nothing: $(cat "$out/refused")" >>"$out/stopped"
			rm -f "$out/refused"
			return
		fi
		# 3: the guest ran everything, some runs failed (listed in results.csv)
		case $rc in
		0|3) ;;
		*) echo "the guest of $2 stopped early (status $rc): $(tail -n1 "$out/boot.err")" >>"$out/stopped" ;;
		esac
	}
	guest_matrix "$kernel" console.log bench.conf
	# the base kernel has none of the series' features: every run is the
	# base as it is, labelled base; nothing to verify against tip there
	[ -z "$base" ] || guest_matrix "$base" console-base.log bench-base.conf
fi
# the program and version of each benchmark, from this machine (the
# guest runs copies of its programs)
tools=$LAB_OUT/tools-static
[ "$host" = 0 ] || tools=$LAB_OUT/tools
"$LAB_TOP/scripts/bench-programs.sh" --tools "$tools" >"$out/programs.txt" ||
	{ rm -f "$out/programs.txt"; note "the programs' versions were not recorded"; }
# the header alone, if the guest got that far
[ "$(wc -l 2>/dev/null <"$out/results.csv" || echo 0)" -gt 1 ] ||
	die "no results were written (see $out/console.log) $(cat "$out/stopped" 2>/dev/null || true)"
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
