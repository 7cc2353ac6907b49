#!/bin/bash
# Build every prefix of the series, so each patch is known to compile on
# its own (bisectability).
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--full] [--help] [CONFIG]

For N = 1 .. number of patches: apply the first N patches to a tree of its
own (\$LAB_OUT/tree-bisect, so the main tree keeps its timestamps) and
compile kernel/sched/ and the directories of the C files patch N
touches with
CONFIG (default qemu), failing on any error or compiler warning in them.
--full builds the whole bzImage at every step instead.  Leaves the whole
series applied.
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
cfg=${1:-qemu}
series=${LAB_PATCHES:-$LAB_TOP/patches}/series
n=$(grep -cv '^[[:space:]]*\(#\|$\)' "$series" || true)
export LAB_TREE=$LAB_OUT/tree-bisect OBJ=$LAB_OUT/obj-bisect-$cfg
obj=$OBJ
tree=$LAB_TREE
log=$LAB_OUT/logs/bisect.log
mkdir -p "$LAB_OUT/logs"
: >"$log"

i=1
for p in $(grep -v '^[[:space:]]*\(#\|$\)' "$series"); do
	"$LAB_TOP/scripts/apply-patches.sh" --upto "$i" >/dev/null
	if [ "$full" = 1 ]; then
		"$LAB_TOP/scripts/build.sh" --tree "$tree" "$cfg" >/dev/null 2>>"$log" ||
			die "$p: the kernel does not build with patches 1-$i (see $log)"
	else
		[ -f "$obj/.config" ] ||
			"$LAB_TOP/scripts/build.sh" --tree "$tree" --config-only "$cfg" \
				>/dev/null 2>>"$log" || die "cannot configure $obj (see $log)"
		# the directories of the C files the patch touches, and
		# kernel/sched/ for any header
		dirs=$( { echo kernel/sched/; sed -n 's|^+++ b/\(.*\)/[^/]*\.c$|\1/|p' \
			"${LAB_PATCHES:-$LAB_TOP/patches}/$p"; } | sort -u | tr '\n' ' ')
		# shellcheck disable=SC2086
		if ! make -s -C "$tree" O="$obj" CC="ccache gcc" -j"$(nproc)" \
			$dirs >>"$log" 2>&1; then
			die "$p: $dirs do not build with patches 1-$i (see $log)"
		fi
	fi
	if grep -q 'warning:' "$log"; then
		die "$p: compiler warnings with patches 1-$i (see $log)"
	fi
	note "patches 1-$i build: $p"
	i=$((i + 1))
done
[ "$i" -gt "$n" ] || die "series ended early"
