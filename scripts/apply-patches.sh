#!/bin/bash
# Prepare the work tree: a copy of the base tree with patches/series applied.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--upto N] [--help]

Copy the base tree (KERNEL_SRC, or the unpacked linux-source-7.3) to
\$LAB_OUT/tree once, then apply patches/series to it with quilt.  Patches
already applied are popped first, so the tree always matches the series.
LAB_PATCHES=DIR takes the series from DIR instead of patches/;
LAB_TREE=DIR works in DIR instead of \$LAB_OUT/tree.
--upto N applies only the first N patches (bisection builds).
Prints the tree path.
EOT
}
upto=
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--upto) need_value "$@"; upto=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $upto in ''|*[!0-9]*) [ -z "$upto" ] || die "--upto takes a number, not '$upto'" ;; esac

command -v quilt >/dev/null || die "quilt is not installed (apt-get install quilt)"

src=$(base_tree)

tree=${LAB_TREE:-$LAB_OUT/tree}
if [ ! -f "$tree/.lab-source" ] || [ "$(cat "$tree/.lab-source")" != "$src" ]; then
	note "copying $src to $tree"
	copy_tree "$src" "$tree"
	printf '%s\n' "$src" >"$tree/.lab-source"
fi

export QUILT_PATCHES=${LAB_PATCHES:-$LAB_TOP/patches} QUILT_PC=.pc
cd "$tree"
if [ -s .pc/applied-patches ]; then
	quilt pop -a -q >/dev/null ||
		die "cannot pop the applied patches in $tree; remove $tree and retry"
fi
# quilt records the patches directory; it may have moved with the checkout
rm -rf .pc

series=$QUILT_PATCHES/series
n=0
[ -f "$series" ] && n=$(series_patches "$QUILT_PATCHES" | wc -l)
[ -n "$upto" ] || upto=$n
[ "$upto" -le "$n" ] || die "--upto $upto: the series has only $n patches"

i=0
while [ "$i" -lt "$upto" ]; do
	if ! out=$(quilt push -q 2>&1); then
		p=$(quilt next 2>/dev/null || echo "patch $((i + 1))")
		printf '%s\n' "$out" >&2
		quilt pop -a -q >/dev/null 2>&1 || true
		die "${p##*/} does not apply to $src"
	fi
	i=$((i + 1))
done
note "applied $i of $n patches to $tree"
printf '%s\n' "$tree"
