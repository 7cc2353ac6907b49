#!/bin/bash
# Run the lab's tests: bad input, build, and boots on NPS1/2/4.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/tests/lib.sh"
. "$top/tests/cost/test.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [SECTION...]

Runs the named sections, in this order when none is named (make check):
bad-input, host (benchmark programs' self-tests, report generator),
patches (checkpatch), build, configs (nonuma, up, sparse), boots (needs
the build), bench, mail.  Only when named (make check-full: build and
these): bisect (every prefix built), boots-extra (the base kernel
built and booted, NPS2, the MMC, isolcpus, split_llc, platform,
small-shape and hang boots, the cost plugin against the base and its
scoreboard job, make bench with the base, a bench guest killed), full
(the full 256-CPU shape and the Intel model).  Ends with each section's
time beside its budget (tests/budgets.txt, or TEST_BUDGETS=FILE); a
section without one fails.

Every boot uses the Milan model (MODEL, default milan) but the platform
boots and, in the full section, the TEST_INTEL_NPS ones (default "1";
the Intel model, scaled shape, topology only).
Environment: TEST_NPS (default "1 4", scaled 128-CPU shape, the boots
section), TEST_EXTRA_NPS (default "2", the same in boots-extra),
TEST_FULL_NPS (default "1 2 4"; NPS modes the full section boots in
the 256-CPU shape), TEST_SMALL_NPS (default "4"; NPS modes booted in the
64-CPU shape with one cycle of reliability-test.sh and sis-smt-test.sh,
"" for none),
TEST_FEATURES (sched features flipped in the guest; default SIS_UTIL and
the SCHED_FEAT(SIS_...) names the series adds),
TEST_BASE=0 (never build or boot the base kernel; by default the boots
section compares the patched kernel's domains with the base's committed
dumps, tests/base/, and builds and boots the base only for another tree,
KERNEL_SRC, or a dump of another base; boots-extra builds and boots it:
its dumps against the committed ones, its cost against the patched
kernel's, make bench with it as variant base),
TEST_MMC_NPS (default "1"; NPS modes booted with sched_mmc: MMC topology,
SIS_NODE_MMC, MMC groups across LLC hotplug, the difference to the base),
TEST_SPLIT=0 (skip the split_llc=2 sched_mmc boot),
TEST_PLATFORMS (default "rome genoa turin": platforms booted once each in
the small shape, NPS1, with the topology and feature checks, Genoa also
in NPS4 with sched_mmc; "" for none),
TEST_ISOLCPUS=0 (skip the isolcpus=domain boot of the SIS_CORE mask tests),
TEST_BISECT_CONFIGS (configurations each prefix is built with, default
"qemu up"; the configs section builds the whole series with nonuma),
TEST_BOOT_TIMEOUT (default 1200: seconds a test boot may take before its
guest dumps its stacks and the boot fails), TEST_BOOT_LIMIT (default 400:
seconds it may take to reach user space; a full-shape boot that does
not is booted once more), TEST_BOOT_STALL (default 150: seconds of a
silent guest after which boot.sh looks for a lock convoy, twice a
minute apart; a guest stalled so is booted once more),
TEST_BENCH=0 (skip the bench smoke run, the base's and the killed one),
TEST_HANG=0 (skip the hung guest boots), TEST_COST=0 (skip the cost
plugin's boots and its scoreboard job),
TEST_GUEST (guest test scripts run in the scaled boots; by default
those of guest/tests/ whose "# lab-boot: scaled NPS..." line names the
boot's NPS mode; the other boots run those that name them the same way:
mmc, isolcpus, small).
Ends with "N passed, N failed"; exits non-zero on any failure.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }

S=$top/scripts
G=$top/guest
logs=$LAB_OUT/logs
boot_timeout=${TEST_BOOT_TIMEOUT:-1200}
boot_limit=${TEST_BOOT_LIMIT:-400}
boot_stall=${TEST_BOOT_STALL:-150}
mkdir -p "$logs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$top"/tests/host/*.sh "$top"/tests/sections/*.sh; do
	# shellcheck disable=SC1090
	. "$f"
done

sections="bad-input host patches build configs boots bench mail"
full_sections="bisect boots-extra full"
for s in "$@"; do
	case " $sections $full_sections " in
	*" $s "*) ;;
	*) echo "run.sh: error: unknown section '$s' ($sections $full_sections)" >&2; exit 2 ;;
	esac
done
d=
took=
for s in ${*:-$sections}; do
	t0=$(date +%s)
	"sec_$(echo "$s" | tr - _)"
	t0=$(($(date +%s) - t0))
	took="$took $s=$t0"
	echo "== section $s: $t0 s"
done
# shellcheck disable=SC2086
budget_report $took
summary
