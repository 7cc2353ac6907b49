#!/bin/bash
# Faults under load with the debug kernel: hotplug, partitions, isolcpus,
# nosmt.  Slow (hours under TCG), so not part of make check.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$LAB_TOP/tests/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

Builds the debug configuration (lockdep, KASAN, UBSAN, kmemleak; see
configs/debug.config) with the series and boots it three times in the
shape SHAPE (default small: 64 CPUs, 2 cores per CCX; at 128 emulated CPUs
the debug kernel's sched-domain rebuilds stall for minutes in kmemleak)
with NPS (default 4) and MODEL (default milan):
  1. hackbench (4 tasks over pipes) and a feature flipper running while
     CPUs cycle through hotplug and cpuset root partitions are created
     and destroyed (guest/tests/reliability-test.sh, CYCLES each, default
     3; the last CPU of HOTPLUG_MAX LLCs, default 4), then the kselftest
     and a kmemleak scan;
  2. isolcpus=domain,<last LLC> and 3. nosmt: features flipped under
     hackbench, then the kselftest (on a quiet machine: its landing
     count is a functional check that load balancing would blur).
Every boot must end without a WARN/BUG/lockdep/KASAN/UBSAN splat, leak or
hang (each has a timeout).  Prints the counts and "N passed, N failed".
RELIABILITY_RUNS picks boots, RELIABILITY_APPEND adds kernel parameters.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }
NPS=${NPS:-4} SHAPE=${SHAPE:-small}
export NPS SHAPE MODEL
shape_init
cycles=${CYCLES:-3} hotplug_max=${HOTPLUG_MAX:-4}
case $cycles in ''|*[!0-9]*|0) die "CYCLES must be a positive number, not '$cycles'" ;; esac
case $hotplug_max in ''|*[!0-9]*|0) die "HOTPLUG_MAX must be a positive number, not '$hotplug_max'" ;; esac

# the debug kernel's guest memory, MB: KASAN's shadow and kmemleak's
# object pool do not fit boot.sh's default of 512 per node
DEBUG_MEM=4096
# seconds a debug boot may take (RELIABILITY_TIMEOUT) before it counts as hung
DEBUG_TIMEOUT=${RELIABILITY_TIMEOUT:-7200}

"$LAB_TOP/scripts/apply-patches.sh" >/dev/null
kernel=$("$LAB_TOP/scripts/build.sh" debug)
logs=$LAB_OUT/logs
mkdir -p "$logs"
flip="LAB_FEATURES='$(series_features)' /lab/tests/lab-test.sh"
# 2 senders and 2 receivers over pipes: more busy vCPUs, or skbs freed
# under kmemleak's lock, and the first CPU offline was not done after
# 25 minutes under TCG
fds=2
load="hackbench -p -g 1 -f $fds -l 200 >/dev/null"
# the last LLC: CPU 0's node keeps its LLCs for the kselftest
llc_last=$(block_list "$CCX_CPUS" $((NR_CPUS - 1)))

# run TAG APPEND CMD: one debug boot, its KTAP results and a splat check
run() {
	local tag=$1 append=$2 cmd=$3 log=$logs/reliability-$MODEL-$SHAPE-nps$NPS-$1.log rc=0
	note "booting $tag (${append:-no extra parameters})"
	"$LAB_TOP/scripts/boot.sh" --kernel "$kernel" --nps "$NPS" --mem "$DEBUG_MEM" \
		--timeout "$DEBUG_TIMEOUT" ${append:+--append "$append"} \
		--log "$log" -- "$cmd" >/dev/null 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^LAB-EXIT: 0' "$log"; then
		notok "$tag: the boot failed or hung (see $log)"
		return
	fi
	ktap_report "$tag" "$log"
	if [ -n "$(splats "$log")" ]; then
		notok "$tag: splat: $(splats "$log" | head -n1)"
	else
		ok "$tag: no WARN/BUG/lockdep/KASAN/UBSAN splat"
	fi
}

# RELIABILITY_APPEND: extra kernel parameters for every boot (loglevel=7
# shows hung-task traces); RELIABILITY_RUNS: which boots
extra=${RELIABILITY_APPEND:-}
for r in ${RELIABILITY_RUNS:-faults isolcpus nosmt}; do
	case $r in
	faults) run faults "$extra" "$flip; CYCLES=$cycles HOTPLUG_MAX=$hotplug_max LOAD_FDS=$fds /lab/tests/reliability-test.sh; /lab/tests/kselftest-test.sh" ;;
	isolcpus) run isolcpus "isolcpus=domain,$llc_last $extra" "$load & $flip; wait; /lab/tests/kselftest-test.sh" ;;
	nosmt) run nosmt "nosmt $extra" "$load & $flip; wait; /lab/tests/kselftest-test.sh" ;;
	*) die "unknown run '$r' (faults, isolcpus or nosmt)" ;;
	esac
done
summary
