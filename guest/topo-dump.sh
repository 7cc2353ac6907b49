#!/bin/sh
# Print the guest's scheduler topology in the form tests/expect-topology.sh
# produces:
#   DOMAIN <cpu> <level> <name> <span cpulist> <flags...>
#   NODE <node> <cpulist>
#   LLC <cpu> <shared_cpu_list of the last cache level>
#   X86 <cpu> <apicid> <llc_id>          (debugfs x86/topo/cpus/N)
#   VENDOR <vendor_id> topoext|no-topoext
#   PARAMS <cpu> <level> <name> <file>=<value>...
# PARAMS lists every balancing parameter debugfs shows for the domain but
# the measured max_newidle_lb_cost: the kernel with every feature off is
# compared with its base by them (imb_numa_nr is shown by the series'
# first patch).
# in one awk pass: a process per file takes minutes at 256 CPUs under TCG.
set -eu
. "$(dirname "$0")/sis-lib.sh"
D=$LAB_SCHED_DEBUGFS/domains
[ -d "$D" ] || { echo "no $D (boot with sched_verbose)" >&2; exit 1; }
nodes=$(cd /sys/devices/system/node && echo node[0-9]*)

awk -v D="$D" -v nodes="$nodes" '
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
function hex(s,    v, i) {
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(tolower(s), i, 1)) - 1
	return v
}
# first line of file f, "" if it cannot be read
function line1(f,    l) {
	l = ""
	if ((getline l < f) <= 0) l = ""
	close(f)
	return l
}
# value of "key:" in file f
function field(f, key,    l, v) {
	v = ""
	while ((getline l < f) > 0)
		if (l ~ ("^" key "[ \t]*:")) { v = l; sub(/^[^:]*:[ \t]*/, "", v) }
	close(f)
	return v
}
BEGIN {
	np = split("level min_interval max_interval busy_factor imbalance_pct " \
		"cache_nice_tries imb_numa_nr groups_flags", pl, " ")
}
$1 ~ /^cpu[0-9]+$/ { cpu = substr($1, 4); cpus[++ncpus] = cpu }
$1 ~ /^domain[0-9]+$/ {
	lvl = substr($1, 7)
	fl = line1(D "/cpu" cpu "/domain" lvl "/flags")
	sub(/[ \t]+$/, "", fl)
	print "DOMAIN", cpu, lvl, $2, hexlist($3), fl
	d = D "/cpu" cpu "/domain" lvl "/"
	p = ""
	for (i = 1; i <= np; i++) {
		v = line1(d pl[i])
		sub(/[ \t]+$/, "", v)
		if (v != "") p = p " " pl[i] "=" v
	}
	print "PARAMS", cpu, lvl, $2 p
}
END {
	n = split(nodes, nl, " ")
	for (i = 1; i <= n; i++)
		print "NODE", substr(nl[i], 5), line1("/sys/devices/system/node/" nl[i] "/cpulist")
	for (i = 1; i <= ncpus; i++) {
		c = cpus[i]
		base = "/sys/devices/system/cpu/cpu" c "/cache/index"
		for (x = 9; x >= 0; x--) {
			l = line1(base x "/shared_cpu_list")
			if (l != "") { print "LLC", c, l; break }
		}
		t = "/sys/kernel/debug/x86/topo/cpus/" c
		a = field(t, "apicid")
		if (a != "")
			printf "X86 %s %d %s\n", c, hex(a), field(t, "llc_id")
	}
	f = "/proc/cpuinfo"
	v = field(f, "vendor_id")
	fl = " " field(f, "flags") " "
	print "VENDOR", v, index(fl, " topoext ") ? "topoext" : "no-topoext"
}
' /proc/schedstat
