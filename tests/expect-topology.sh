#!/bin/bash
# Print the sched domain hierarchy, NUMA node cpulists and LLCs that Linux
# must build for the emulated Zen3 2P shape, in topo-dump.sh's format.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--mmc] [--help]

Computed from SHAPE (scaled|full|small), NPS (1|2|4) and MODEL
(milan|intel) in the environment.  The machine is laid out in QEMU's vCPU
order (socket-major, then CCX (die), core, thread) and every CPU printed
under the number Linux gives it in MODEL (linux_cpu in scripts/lib.sh):
with milan the SMT siblings of CPU n are n and n + NR_CPUS/2, and a
node's cpulist has two ranges.  Besides the DOMAIN, NODE and LLC lines,
"X86 <cpu> <apicid> <llc_id>" gives the APIC ID and the LLC ID the x86
topology code must derive (debugfs x86/topo/cpus/N; AMD's path shifts
the APIC ID, Intel's masks it), and "VENDOR <id>
<topoext>" the CPU vendor and whether the topoext flag is visible.
--mmc expects the MMC level of the patch series (pairs of LLCs inside a
node).
EOT
}
mmc=0
case ${1:-} in
--help) usage; exit 0 ;;
--mmc) mmc=1 ;;
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
# milan the other socket (32) keeps them too.
BASE="SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE"
reclaim_distance=30
[ "$MODEL" != milan ] || reclaim_distance=32
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
q=0
while [ "$q" -lt "$NR_CPUS" ]; do
	LIN[q]=$(linux_cpu "$q")
	q=$((q + 1))
done

# Levels below the NUMA ones, bottom up, as NAME:WIDTH.  PKG is dropped
# when a package holds several nodes; MMC (pairs of LLCs) is dropped where
# it spans the node, and takes the place of a NODE level of equal span.
levels="SMT:$THREADS MC:$CCX_CPUS"
mmc_cpus=$((2 * CCX_CPUS))
if [ "$mmc" = 1 ] && [ "$mmc_cpus" -lt "$NODE_CPUS" ]; then
	levels="$levels MMC:$mmc_cpus"
fi
if [ "$NPS" = 1 ]; then
	levels="$levels PKG:$SOCKET_CPUS"
elif [ "$mmc" = 1 ] && [ "$mmc_cpus" -eq "$NODE_CPUS" ]; then
	levels="$levels MMC:$NODE_CPUS"
else
	levels="$levels NODE:$NODE_CPUS"
fi
# one NUMA level per SLIT distance above local: 12 (socket), 32 (all)
[ "$NPS" = 1 ] || levels="$levels NUMA$(node_distance 0 1):$SOCKET_CPUS"
levels="$levels NUMA$(node_distance 0 $NPS):$NR_CPUS"

# one span per block and level, then a line per CPU
for l in $levels; do
	w=${l#*:}
	for ((q = 0; q < NR_CPUS; q += w)); do
		SPAN[q]=$(block_list "$w" "$q")
	done
	for ((q = 0; q < NR_CPUS; q++)); do
		SPAN_OF[q]+="${SPAN[q / w * w]} "
	done
done
for ((q = 0; q < NR_CPUS; q++)); do
	lvl=0
	read -r -a spans <<<"${SPAN_OF[q]}"
	for l in $levels; do
		name=${l%%:*}
		echo "DOMAIN ${LIN[q]} $lvl ${name%%[0-9]*} ${spans[lvl]} $(flags_of "$name")"
		lvl=$((lvl + 1))
	done
done
for ((n = 0; n < NODES; n++)); do
	echo "NODE $n $(block_list "$NODE_CPUS" $((n * NODE_CPUS)))"
done
llc_shift=$(bits "$CCX_CPUS")
for ((q = 0; q < NR_CPUS; q += CCX_CPUS)); do
	llc=$(block_list "$CCX_CPUS" "$q")
	for ((i = q; i < q + CCX_CPUS; i++)); do
		a=$(apic_id "$i")
		echo "LLC ${LIN[i]} $llc"
		# AMD (CPUID 0x8000001D) shifts the sharing bits out of
		# the APIC ID, Intel (leaf 4) masks them
		if [ "$MODEL" = milan ]; then
			echo "X86 ${LIN[i]} $a $((a >> llc_shift))"
		else
			echo "X86 ${LIN[i]} $a $((a >> llc_shift << llc_shift))"
		fi
	done
done
if [ "$MODEL" = milan ]; then
	echo "VENDOR AuthenticAMD topoext"
else
	echo "VENDOR GenuineIntel no-topoext"
fi
