#!/bin/bash
# Re-apply the series one patch at a time and refresh each patch, so that
# offsets and fuzz never pile up and all patches share one diff format.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

Works in \$LAB_OUT/tree (see apply-patches.sh): pops everything, then
pushes and refreshes every patch of patches/series with -p ab,
--no-timestamps, --no-index and a diffstat.  Headers are kept.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }

tree=$LAB_OUT/tree
[ -d "$tree/.pc" ] || [ -f "$tree/Makefile" ] || die "no work tree at $tree (run make patch)"
export QUILT_PATCHES=${LAB_PATCHES:-$LAB_TOP/patches} QUILT_PC=.pc
cd "$tree"
# a patch edited under an applied stack does not pop: say so, touch nothing
if quilt applied >/dev/null 2>&1; then
	quilt pop -a -q >/dev/null 2>&1 ||
		die "$(quilt top) does not pop cleanly (edited while applied?): quilt pop -f, then run again"
fi
while quilt next >/dev/null 2>&1; do
	p=$(quilt next)
	quilt push -q >/dev/null || die "${p##*/} does not apply"
	quilt refresh -p ab --no-timestamps --no-index --diffstat >/dev/null
done
rm -f "$QUILT_PATCHES"/*~
note "refreshed $(quilt applied | wc -l) patches"
