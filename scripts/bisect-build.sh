#!/bin/bash
# Build every prefix of the series, so each patch is known to compile on
# its own (bisectability).
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--full] [--help] [CONFIG...]

For N = 1 .. number of patches: apply the first N patches to a tree of its
own (\$LAB_OUT/bisect/tree, so the main tree keeps its timestamps) and,
for each CONFIG (default qemu; see build.sh: qemu, nonuma, up...), compile
kernel/sched/ and the directories of the C files patch N touches in
\$LAB_OUT/bisect/obj-CONFIG (laid out as the main tree and its objects,
for ccache), failing on any error or compiler warning in them.  --full
builds the whole bzImage at every step instead.  Leaves the whole series
applied.
EOT
}
full=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--full) full=1; shift ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- qemu
series=${LAB_PATCHES:-$LAB_TOP/patches}/series
n=$(series_patches "${series%/series}" | wc -l)
export LAB_TREE=$LAB_OUT/bisect/tree
tree=$LAB_TREE
log=$LAB_OUT/logs/bisect.log
mkdir -p "$LAB_OUT/logs"
: >"$log"

# build CFG PATCH N: patches 1-N with configuration CFG
build() {
	local cfg=$1 p=$2 i=$3 dirs
	export OBJ=$LAB_OUT/bisect/obj-$cfg
	if [ "$full" = 1 ]; then
		"$LAB_TOP/scripts/build.sh" --tree "$tree" "$cfg" >/dev/null 2>>"$log" ||
			die "$p: the kernel does not build with patches 1-$i, $cfg (see $log)"
		return
	fi
	[ -f "$OBJ/.config" ] ||
		"$LAB_TOP/scripts/build.sh" --tree "$tree" --config-only "$cfg" \
			>/dev/null 2>>"$log" || die "cannot configure $OBJ (see $log)"
	dirs=$(touched_dirs "${LAB_PATCHES:-$LAB_TOP/patches}/$p")
	# shellcheck disable=SC2086
	kernel_make "$tree" "$OBJ" $dirs >>"$log" 2>&1 ||
		die "$p: $dirs do not build with patches 1-$i, $cfg (see $log)"
}

# the tree is ours alone: when the patches changed since the last run,
# put back quilt's copies of the originals rather than give up
if [ -s "$tree/.pc/applied-patches" ]; then
	(cd "$tree" && QUILT_PATCHES=${LAB_PATCHES:-$LAB_TOP/patches} QUILT_PC=.pc \
		quilt pop -a -f -q >/dev/null) || die "cannot reset $tree; remove it and retry"
fi

i=1
for p in $(series_patches "${series%/series}"); do
	"$LAB_TOP/scripts/apply-patches.sh" --upto "$i" >/dev/null
	for cfg in "$@"; do
		build "$cfg" "$p" "$i"
	done
	if grep -q 'warning:' "$log"; then
		die "$p: compiler warnings with patches 1-$i (see $log)"
	fi
	note "patches 1-$i build ($*): $p"
	i=$((i + 1))
done
[ "$i" -gt "$n" ] || die "series ended early"
