#!/bin/bash
# Configure and build bzImage for one configuration, with ccache.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--tree DIR] [--config-only] [--help] CONFIG

Build \$LAB_OUT/obj-CONFIG/arch/x86/boot/bzImage from the work tree
(default \$LAB_OUT/tree, see apply-patches.sh).  CONFIG is one of:
  qemu   tinyconfig + configs/qemu.config (the guest of make boot)
  debug  tinyconfig + configs/qemu.config + configs/debug.config
  zen3   x86_64_defconfig (or BASECONFIG=file) + configs/zen3.config
  nonuma, up
         the qemu configuration without NUMA or without SMP (x86 selects
         SCHED_SMT with SMP, so up is also the !SCHED_SMT build)
Every option of the fragments (for nonuma and up: of their own fragment)
must survive olddefconfig.  --config-only
stops after writing and checking .config.
EOT
}
tree=$LAB_OUT/tree
config_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--config-only) config_only=1; shift ;;
	--tree) need_value "$@"; tree=$2; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
cfg=$1
checked=
case $cfg in
qemu) base=tinyconfig; frags="qemu" ;;
debug) base=tinyconfig; frags="qemu debug" ;;
zen3) base=${BASECONFIG:-x86_64_defconfig}; frags="zen3" ;;
# what depends on the option turned off goes with it
nonuma|up) base=tinyconfig; frags="qemu $cfg"; checked=$cfg ;;
*) die "unknown configuration '$cfg' (qemu, debug, zen3, nonuma or up)" ;;
esac
checked=${checked:-$frags}
[ -f "$tree/Makefile" ] || die "no kernel tree at $tree (run make patch first)"
command -v ccache >/dev/null || die "ccache is not installed"

obj=${OBJ:-$LAB_OUT/obj-$cfg}
mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
kmake() {
	kernel_make "$tree" "$obj" "$@"
}

fraglist=
for f in $frags; do
	fraglist="$fraglist $LAB_TOP/configs/$f.config"
done
# Configuring runs a few hundred compiler probes; do it only when the base
# or a fragment changed.  Later Kconfig changes of the series are taken
# care of by the build's own syncconfig.
# shellcheck disable=SC2086
stamp=$( { echo "$base"; [ ! -f "$base" ] || cat "$base"; cat $fraglist; } | sha256sum)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.lab-config" 2>/dev/null)" != "$stamp" ]; then
	if [ -f "$base" ]; then
		cp "$base" "$obj/.config"
		kmake olddefconfig
	else
		kmake "$base" >/dev/null
	fi
	# shellcheck disable=SC2086
	(cd "$obj" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" .config $fraglist >/dev/null)
	kmake olddefconfig

	missing=
	for f in $checked; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) grep -qxF "$line" "$obj/.config" || missing="$missing $line" ;;
			"# CONFIG_"*" is not set")
				opt=${line#\# }
				opt=${opt%% *}
				! grep -q "^$opt=" "$obj/.config" || missing="$missing $opt=n" ;;
			esac
		done <"$LAB_TOP/configs/$f.config"
	done
	[ -z "$missing" ] || die "options lost by olddefconfig:$missing"
	printf '%s\n' "$stamp" >"$obj/.lab-config"
fi

if [ "$config_only" = 1 ]; then
	printf '%s\n' "$obj/.config"
	exit 0
fi
note "building bzImage in $obj (-j${JOBS:-$(nproc)})"
kmake bzImage
printf '%s\n' "$obj/arch/x86/boot/bzImage"
