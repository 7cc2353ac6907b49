#!/bin/bash
# Print the sched domain hierarchy, NUMA node cpulists and LLCs that Linux
# must build for the emulated Zen3 2P shape, in topo-dump.sh's format.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--mmc] [--help]

Computed from SHAPE (scaled|full|small) and NPS (1|2|4) in the environment.
CPU numbering is QEMU's: socket-major, then CCX (die), core, thread, so the
SMT siblings of a core are adjacent.  --mmc expects the MMC level of the
patch series (pairs of LLCs inside a node).
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

# Flags of each level, as the 7.3 topology code sets them: cpu_smt_flags()
# for SMT, x86_core_flags() for MC, the defaults of sd_init() for MMC, PKG
# and the NODE level, and sched_init_numa()'s NUMA levels, which keep
# the exec/fork/wake-affine flags only up to RECLAIM_DISTANCE (30).
BASE="SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE"
flags_of() {
	case $1 in
	SMT) echo "$BASE SD_SHARE_CPUCAPACITY SD_SHARE_LLC SD_PREFER_SIBLING" ;;
	MC) echo "$BASE SD_SHARE_LLC SD_PREFER_SIBLING" ;;
	MMC|PKG|NODE) echo "$BASE SD_PREFER_SIBLING" ;;
	NUMA12) echo "$BASE SD_SERIALIZE SD_NUMA" ;;
	NUMA32) echo "SD_BALANCE_NEWIDLE SD_SERIALIZE SD_NUMA" ;;
	esac
}

# span WIDTH CPU: the aligned block of WIDTH CPUs holding CPU
span() {
	local first=$(($2 / $1 * $1))
	echo "$first-$((first + $1 - 1))"
}

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

c=0
while [ "$c" -lt "$NR_CPUS" ]; do
	lvl=0
	for l in $levels; do
		name=${l%%:*}
		echo "DOMAIN $c $lvl ${name%%[0-9]*} $(span "${l#*:}" "$c") $(flags_of "$name")"
		lvl=$((lvl + 1))
	done
	c=$((c + 1))
done
n=0
while [ "$n" -lt "$NODES" ]; do
	echo "NODE $n $(span "$NODE_CPUS" $((n * NODE_CPUS)))"
	n=$((n + 1))
done
c=0
while [ "$c" -lt "$NR_CPUS" ]; do
	echo "LLC $c $(span "$CCX_CPUS" "$c")"
	c=$((c + 1))
done
