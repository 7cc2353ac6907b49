#!/bin/bash
# Compile what the series touches under other configurations.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [CONFIG...]

For each CONFIG (default: nonuma up, see build.sh) configure
\$LAB_OUT/obj-CONFIG from the patched tree (\$LAB_OUT/tree) and compile
kernel/sched/ and the directories of every C file the series touches,
failing on any error or compiler warning.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
tree=${LAB_TREE:-$LAB_OUT/tree}
[ -s "$tree/.pc/applied-patches" ] || die "no patched tree at $tree (run make patch first)"
dirs=$(touched_dirs "${LAB_PATCHES:-$LAB_TOP/patches}"/*.patch)
mkdir -p "$LAB_OUT/logs"
[ $# -gt 0 ] || set -- nonuma up
for cfg in "$@"; do
	log=$LAB_OUT/logs/build-$cfg.log
	obj=$LAB_OUT/obj-$cfg
	OBJ=$obj "$LAB_TOP/scripts/build.sh" --tree "$tree" --config-only "$cfg" >/dev/null 2>"$log" ||
		die "$cfg: cannot configure: $(tail -n1 "$log")"
	# shellcheck disable=SC2086
	kernel_make "$tree" "$obj" $dirs >>"$log" 2>&1 ||
		die "$cfg: $dirs do not build (see $log)"
	! grep -q 'warning:' "$log" || die "$cfg: compiler warnings (see $log)"
	note "$cfg: $dirs build without warnings"
done
