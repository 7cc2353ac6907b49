#!/bin/sh
# locality-test.sh ROUNDS NAME:CPU_A,CPU_B...: the guest half of the cost
# plugin's locality test (boot.sh --cost FILE --locality; tests/cost/
# test.sh checks the plugin's counts on the host, the guest sees none of
# them).  For each case, sis-handoff hands one cache line between CPU_A
# and CPU_B ROUNDS times each way between two cost markers of its own
# (sis-handoff -m: the marks hold the hand-offs alone, not the program's
# start, its threads' creation or its exit, whose lines move too), and
# prints
#   locality-case NAME CPU_A CPU_B ROUNDS FROM TO
# FROM and TO being the marks, for the host to read.  NAME says where the
# host put the two CPUs: llc (one LLC), ccx (two LLCs of one NPS4
# quadrant), quad (two quadrants of one NPS2 half), half (the two halves
# of one socket), socket (two sockets).  The guest checks what it can
# see of that: one LLC or two (the CPUs' L3 cache), one package or two.
# The quadrants and halves are physical, which the NUMA nodes of an NPS1
# boot do not show: the host's expectation (scripts/cost-topo.sh).
#
# No other work runs meanwhile; the noise is the kernel's (its timer
# ticks, RCU, the markers' own system calls), which the host leaves out
# by taking the user addresses' counts alone (see tests/cost/test.sh).
. /lab/sis-lib.sh
if [ $# -lt 2 ]; then
	echo "usage: ${0##*/} ROUNDS NAME:CPU_A,CPU_B..." >&2
	exit 2
fi
N=$1
shift
case $N in ''|*[!0-9]*) echo "${0##*/}: ROUNDS is a number, not '$N'" >&2; exit 2 ;; esac
ktap_begin

# package CPU: its physical package (socket)
package() {
	cat "/sys/devices/system/cpu/cpu$1/topology/physical_package_id"
}

for c in "$@"; do
	name=${c%%:*} pair=${c#*:}
	a=${pair%,*} b=${pair#*,}
	la=$(llc_of "$a" 2>/dev/null) lb=$(llc_of "$b" 2>/dev/null)
	pa=$(package "$a" 2>/dev/null) pb=$(package "$b" 2>/dev/null)
	seen="CPU $a: LLC $la, package $pa; CPU $b: LLC $lb, package $pb"
	case $name in
	llc) [ -n "$la" ] && [ "$la" = "$lb" ] && [ "$a" != "$b" ] ;;
	ccx|quad|half) [ -n "$la" ] && [ "$la" != "$lb" ] && [ -n "$pa" ] && [ "$pa" = "$pb" ] ;;
	socket) [ -n "$pa" ] && [ -n "$pb" ] && [ "$pa" != "$pb" ] ;;
	*) false ;;
	esac && r=ok || r=FAIL
	result "locality-$name-cpus" "$r" "$seen"
	if sis-handoff -m "$a" "$b" "$N" >/tmp/handoff 2>&1; then
		marks=$(sed -n 's/^sis-handoff: marks \([0-9]*\) \([0-9]*\)$/\1 \2/p' /tmp/handoff)
		if [ -n "$marks" ]; then
			echo "locality-case $name $a $b $N $marks"
			result "locality-$name-runs" ok "$(head -n1 /tmp/handoff)"
		else
			result "locality-$name-runs" FAIL "no marks in its output: $(tail -n1 /tmp/handoff)"
		fi
	else
		result "locality-$name-runs" FAIL "$(tail -n1 /tmp/handoff)"
	fi
done
