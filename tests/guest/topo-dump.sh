#!/bin/sh
# Print the guest's scheduler topology in the form tests/expect-topology.sh
# produces:
#   DOMAIN <cpu> <level> <name> <span cpulist> <flags...>
#   NODE <node> <cpulist>
#   LLC <cpu> <shared_cpu_list of the last cache level>
set -eu
D=/sys/kernel/debug/sched/domains
[ -d "$D" ] || { echo "no $D (boot with sched_verbose)" >&2; exit 1; }

# spans come from /proc/schedstat: "domainN NAME hexmask ..."
awk '
function hexlist(mask,    s, i, d, b, cpu, out, start, prev) {
	gsub(",", "", mask)
	out = ""; start = -1; prev = -2
	for (i = length(mask); i >= 1; i--) {
		d = index("0123456789abcdef", substr(mask, i, 1)) - 1
		for (b = 0; b < 4; b++) {
			cpu = (length(mask) - i) * 4 + b
			if (d % 2) {
				if (cpu != prev + 1) {
					if (start >= 0) out = out sep(start, prev)
					start = cpu
				}
				prev = cpu
			}
			d = int(d / 2)
		}
	}
	if (start >= 0) out = out sep(start, prev)
	return substr(out, 2)
}
function sep(a, b) { return a == b ? "," a : "," a "-" b }
$1 ~ /^cpu[0-9]+$/ { cpu = substr($1, 4) }
$1 ~ /^domain[0-9]+$/ { print cpu, substr($1, 7), $2, hexlist($3) }
' /proc/schedstat | while read -r cpu lvl name span; do
	flags=$(cat "$D/cpu$cpu/domain$lvl/flags")
	echo "DOMAIN $cpu $lvl $name $span" $flags
done

for n in /sys/devices/system/node/node[0-9]*; do
	echo "NODE ${n##*node} $(cat "$n/cpulist")"
done
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	idx=$(ls -d "$c"/cache/index* 2>/dev/null | sort | tail -n1)
	[ -n "$idx" ] && echo "LLC ${c##*cpu} $(cat "$idx/shared_cpu_list")"
done
exit 0
