#!/bin/bash
# Build the base kernel that the patched one is compared with.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [CONFIG]

Copy the base tree (KERNEL_SRC, or the unpacked linux-source-7.3) to
\$LAB_OUT/base/tree, apply only the first patch of patches/series (it
shows imb_numa_nr in debugfs, so that both kernels show every balancing
parameter) and build CONFIG (default qemu, see build.sh) into
\$LAB_OUT/base/obj-CONFIG: laid out as the main tree and its objects,
so that ccache serves every file the series does not change.  Prints
the bzImage path.
EOT
}
case ${1:-} in --help) usage; exit 0 ;; -*) usage >&2; exit 2 ;; esac
[ $# -le 1 ] || { usage >&2; exit 2; }
cfg=${1:-qemu}
tree=$(LAB_TREE=$LAB_OUT/base/tree "$LAB_TOP/scripts/apply-patches.sh" --upto 1)
OBJ=$LAB_OUT/base/obj-$cfg "$LAB_TOP/scripts/build.sh" --tree "$tree" "$cfg"
