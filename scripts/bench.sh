#!/bin/bash
# The main job: boot the patched kernel and run the benchmark matrix for
# every SIS variant in one boot, then print the report.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

Environment: NPS (1|2|4, default 1), SHAPE (scaled|full), ROUNDS (default
3), LOOPS (hackbench loops, default 100), VARIANTS (default "tip SIS_SHORT SIS_CORE SIS_NODE SIS_NODE_LIMIT
SIS_NODE_MMC"; "a+b" combines features).  Applies the series, builds the
qemu kernel, boots it and runs tests/guest/bench-guest.sh, which flips the
features at run time and interleaves the variants round by round.  Raw
results go to \$LAB_OUT/bench/<time>-nps<N>/results.csv as each run ends;
scripts/bench-report.sh prints the summary table.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }
shape_init
rounds=${ROUNDS:-3}
case $rounds in ''|*[!0-9]*|0) die "ROUNDS must be a positive number, not '$rounds'" ;; esac
command -v hackbench >/dev/null || die "hackbench (rt-tests) is not installed"

"$LAB_TOP/scripts/apply-patches.sh" >/dev/null
"$LAB_TOP/scripts/build.sh" qemu >/dev/null
out=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-nps$NPS
mkdir -p "$out"
note "results in $out"
"$LAB_TOP/scripts/boot.sh" -v --nps "$NPS" --shape "${SHAPE:-scaled}" --out "$out" --log "$out/console.log" -- \
	"VARIANTS='${VARIANTS:-}' ROUNDS=$rounds LOOPS=${LOOPS:-100} /lab/bench-guest.sh" |
	grep --line-buffered '^bench:' || true
[ -s "$out/results.csv" ] || die "no results were written (see $out/console.log)"
"$LAB_TOP/scripts/bench-report.sh" "$out/results.csv" | tee "$out/report.txt"
