#!/bin/bash
# Write the sis-cost plugin's locality topology of an emulated platform:
# each QEMU vCPU's LLC, NPS4 quadrant, NPS2 half and socket.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [--model M] [--shape S]

Prints the topology the sis-cost plugin's locality mode reads
(locality=FILE; boot.sh --cost FILE --locality writes it beside FILE):
a line "VCPU LLC QUADRANT HALF SOCKET" per QEMU vCPU index, the other
four the global numbers of the machine's physical units.  QEMU numbers
its vCPUs socket-major, then LLC (die), core, thread, whatever numbering
Linux gives them (scripts/lib.sh, linux_cpu); a socket's LLCs split in
order into 4 quadrants and 2 halves, which are physical: the same in
every NPS mode (NPS4 makes each quadrant a NUMA node, NPS2 each half).
--model (default \$MODEL or milan) and --shape (default \$SHAPE or
scaled) as boot.sh takes them.  A platform whose socket's LLCs do not
split into 4 quadrants, or with more than 32 LLCs, is refused.
EOT
}
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--model) need_value "$@"; MODEL=$2; shift 2 ;;
	--shape) need_value "$@"; SHAPE=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
# the NPS mode booted does not matter: one every platform has
# shellcheck disable=SC2034 # shape_init reads it
NPS=1
shape_init
[ $((CCX % 4)) = 0 ] ||
	die "$MODEL has $CCX LLCs per socket, which do not split into 4 quadrants"
[ $((SOCKETS * CCX)) -le 32 ] ||
	die "$MODEL has $((SOCKETS * CCX)) LLCs: the plugin's holder masks take 32 at most"

echo "# sis-cost locality topology: $MODEL $SHAPE, $NR_CPUS vCPUs, $SOCKETS sockets of $CCX LLCs of $CCX_CPUS CPUs"
echo "# VCPU LLC QUADRANT HALF SOCKET"
awk -v n="$NR_CPUS" -v llc_cpus="$CCX_CPUS" -v llcs="$CCX" 'BEGIN {
	for (v = 0; v < n; v++) {
		l = int(v / llc_cpus)
		s = int(l / llcs)
		k = l % llcs
		print v, l, s * 4 + int(k * 4 / llcs), s * 2 + int(k * 2 / llcs), s
	}
}'
