#!/bin/bash
# Print the sched domain hierarchy, NUMA node cpulists and LLCs that Linux
# must build for an emulated platform and shape, in topo-dump.sh's format.
# shellcheck disable=SC2154 # PLAT_* (platform_load) and the VAR arguments of lib.sh
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--mmc|--cpus] [--help]

Computed from SHAPE (scaled|full|small), NPS (the platform's modes) and
MODEL (a platform of configs/platform/: $(platform_names))
in the environment.  The machine is laid out in QEMU's vCPU order
(socket-major, then LLC (die), core, thread) and every CPU printed under
the number Linux gives it (linux_cpu in scripts/lib.sh): with the
firmware's numbering (every AMD platform) the SMT siblings of CPU n are
n and n + NR_CPUS/2, and a node's cpulist has two ranges.  Besides the
DOMAIN, NODE and LLC lines,
"X86 <cpu> <apicid> <llc_id>" gives the APIC ID and the LLC ID the x86
topology code must derive (debugfs x86/topo/cpus/N; AMD's path shifts
the APIC ID, Intel's masks it), and "VENDOR <id>
<topoext>" the CPU vendor and whether the topoext flag is visible.
--mmc expects the MMC level of the patch series (the LLCs of a node in
pairs, an odd last one joining the last pair).  --cpus prints, instead
of the boot's expectation, what tests/topology/ holds for every
platform, shape and NPS mode: the NODE lines, "LLC <cpulist>" per LLC,
"SMT <siblings>" per core and the X86 lines.
EOT
}
mmc=0 cpus=0
case ${1:-} in
--help) usage; exit 0 ;;
--mmc) mmc=1 ;;
--cpus) cpus=1 ;;
'') ;;
*) usage >&2; exit 2 ;;
esac
shape_init
declare -a SPAN SPAN_OF

# Flags of each level, as the 7.3 topology code sets them: cpu_smt_flags()
# for SMT, x86_core_flags() for MC, the defaults of sd_init() for MMC, PKG
# and the NODE level, and sched_init_numa()'s NUMA levels, which keep
# the exec/fork/wake-affine flags only up to node_reclaim_distance:
# RECLAIM_DISTANCE (30), but 32 on AMD Zen (init_amd_zen_common()), so on
# the AMD platforms the other socket (32) keeps them too.
BASE="SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE"
reclaim_distance=30
[ "$PLAT_vendor" != amd ] || reclaim_distance=32
flags_of() {
	case $1 in
	SMT) echo "$BASE SD_SHARE_CPUCAPACITY SD_SHARE_LLC SD_PREFER_SIBLING" ;;
	MC) echo "$BASE SD_SHARE_LLC SD_PREFER_SIBLING" ;;
	MMC|PKG|NODE) echo "$BASE SD_PREFER_SIBLING" ;;
	NUMA*)
		if [ "${1#NUMA}" -le "$reclaim_distance" ]; then
			echo "$BASE SD_SERIALIZE SD_NUMA"
		else
			echo "SD_BALANCE_NEWIDLE SD_SERIALIZE SD_NUMA"
		fi ;;
	esac
}

# LIN[q]: the Linux number of QEMU vCPU q
declare -a LIN
for ((q = 0; q < NR_CPUS; q++)); do
	linux_cpu "$q" "LIN[q]"
done

# MMC groups the LLCs of a node two by two in LLC ID (here: die) order,
# an odd last one joining the last pair (patch 0004, tl_mmc_mask()).
# mmc_group Q: FIRST and COUNT, the vCPUs of Q's group
llcs=$((NODE_CPUS / CCX_CPUS))
mmc_group() {
	local rank=$(($1 % NODE_CPUS / CCX_CPUS)) g n=2
	g=$((rank / 2))
	if [ $((llcs % 2)) = 1 ] && [ "$llcs" -gt 1 ] && [ "$g" -ge $((llcs / 2 - 1)) ]; then
		g=$((llcs / 2 - 1)) n=3
	fi
	FIRST=$(($1 / NODE_CPUS * NODE_CPUS + g * 2 * CCX_CPUS)) COUNT=$((n * CCX_CPUS))
}

# Levels below the NUMA ones, bottom up, as NAME:WIDTH (MMC:group, the
# groups above).  PKG is dropped when a package holds several nodes; MMC
# is dropped where it is one LLC, and where it spans the node it takes
# the place of the level of equal span above it (NODE, or PKG in NPS1).
levels="SMT:$THREADS MC:$CCX_CPUS"
if [ "$mmc" = 1 ] && [ "$llcs" -gt 3 ]; then
	levels="$levels MMC:group"
fi
if [ "$mmc" = 1 ] && [ "$llcs" -gt 1 ] && [ "$llcs" -le 3 ]; then
	levels="$levels MMC:$NODE_CPUS"
elif [ "$NPS" = 1 ]; then
	levels="$levels PKG:$SOCKET_CPUS"
else
	levels="$levels NODE:$NODE_CPUS"
fi
# one NUMA level per SLIT distance above local: 12 (socket), 32 (all)
[ "$NPS" = 1 ] || levels="$levels NUMA$(node_distance 0 1):$SOCKET_CPUS"
levels="$levels NUMA$(node_distance 0 $NPS):$NR_CPUS"

# one span per block and level, then a line per CPU (no domains: --cpus)
[ "$cpus" = 0 ] || levels=
for l in $levels; do
	w=${l#*:}
	if [ "$w" = group ]; then
		for ((q = 0; q < NR_CPUS; q += COUNT)); do
			mmc_group "$q"
			range_list "$FIRST" "$COUNT" span
			for ((i = FIRST; i < FIRST + COUNT; i++)); do
				SPAN_OF[i]+="$span "
			done
		done
		continue
	fi
	for ((q = 0; q < NR_CPUS; q += w)); do
		block_list "$w" "$q" "SPAN[q]"
	done
	for ((q = 0; q < NR_CPUS; q++)); do
		SPAN_OF[q]+="${SPAN[q / w * w]} "
	done
done
declare -A FLAGS
for l in $levels; do
	FLAGS[${l%%:*}]=$(flags_of "${l%%:*}")
done
for ((q = 0; cpus == 0 && q < NR_CPUS; q++)); do
	lvl=0
	read -r -a spans <<<"${SPAN_OF[q]}"
	for l in $levels; do
		name=${l%%:*}
		echo "DOMAIN ${LIN[q]} $lvl ${name%%[0-9]*} ${spans[lvl]} ${FLAGS[$name]}"
		lvl=$((lvl + 1))
	done
done
for ((n = 0; n < NODES; n++)); do
	echo "NODE $n $(block_list "$NODE_CPUS" $((n * NODE_CPUS)))"
done
llc_shift=$(bits "$CCX_CPUS")
for ((q = 0; q < NR_CPUS; q += CCX_CPUS)); do
	block_list "$CCX_CPUS" "$q" llc
	[ "$cpus" = 0 ] || echo "LLC $llc"
	for ((i = q; i < q + CCX_CPUS; i++)); do
		apic_id "$i" a
		if [ "$cpus" = 0 ]; then
			echo "LLC ${LIN[i]} $llc"
		elif [ $((i % THREADS)) = 0 ]; then
			block_list "$THREADS" "$i" smt
			echo "SMT $smt"
		fi
		# AMD (CPUID 0x8000001D) shifts the sharing bits out of
		# the APIC ID, Intel (leaf 4) masks them
		if [ "$PLAT_vendor" = amd ]; then
			echo "X86 ${LIN[i]} $a $((a >> llc_shift))"
		else
			echo "X86 ${LIN[i]} $a $((a >> llc_shift << llc_shift))"
		fi
	done
done
[ "$cpus" = 0 ] || exit 0
if [ "$PLAT_vendor" = amd ]; then
	echo "VENDOR AuthenticAMD topoext"
else
	echo "VENDOR GenuineIntel no-topoext"
fi
