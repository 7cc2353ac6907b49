#!/bin/sh
# Summarize the console log of a guest that boot.sh stopped at its time
# limit: how far it got, what its CPUs ran, which tasks were blocked.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [--map SYSTEM_MAP] LOG

Prints what the console LOG of a guest that did not finish tells about
where it stopped, read from the dumps boot.sh has the guest print at its
time limit (sysrq l: every CPU's stack, sysrq w: the blocked tasks):
  reached:  the guest's last lab or KTAP line before the dumps, and its
            last line of any kind
  cpus:     the CPUs not idling, grouped by the function each was in
  blocked:  the tasks in uninterruptible sleep
  splat:    the first lockup, stall, BUG or WARNING line, if any
and, when LOG.regs holds QEMU's register dump of every vCPU (boot.sh
writes it; it needs no help from the guest, whose CPUs may all have
interrupts off), with the kernel's SYSTEM_MAP to name the addresses:
  vcpus:    the vCPUs grouped by the function their instruction pointer
            is in (firmware: not yet started by Linux), with interrupts
            off or halted
EOT
}
map=
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--map) [ $# -ge 2 ] || { echo "${0##*/}: error: --map needs a value" >&2; exit 2; }
		map=$2; shift 2 ;;
	-*) echo "${0##*/}: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "${0##*/}: error: usage: ${0##*/} [--map SYSTEM_MAP] LOG (see --help)" >&2; exit 2; }
[ -r "$1" ] || { echo "${0##*/}: error: cannot read '$1'" >&2; exit 2; }

# the file twice: the first pass finds the last CPU dump (boot.sh's; the
# soft lockup watchdog may have printed others), the second reads it
awk '
function fn(s) {
	sub(/^.*RIP: [0-9a-f]+:/, "", s)
	sub(/^ *\? */, "", s)
	sub(/^ */, "", s)
	sub(/\+0x.*/, "", s)
	return s
}
function end_cpu() {
	if (cpu == "")
		return
	f = rip != "" ? rip : frame != "" ? frame : "?"
	cpu_now = cpu
	cpu = ""
	# the CPU that took the sysrq key interrupted its idle loop
	if (f ~ /^(default_idle|do_idle|cpu_idle_poll|mwait_idle|acpi_idle)/) {
		idle++
		return
	}
	if (!(f in where)) {
		order[++nf] = f
		where[f] = ""
	}
	if (++n[f] <= 8)
		where[f] = where[f] (where[f] == "" ? "" : ",") cpu_now
	busy++
}
{ sub(/\r$/, "") }
# the dmesg copy the guest appends when it finishes repeats the console
/^LAB-DMESG-BEGIN/ { if (NR == FNR) copy = 1; else exit }
NR == FNR {
	if (!copy && /^sysrq: Show backtrace of all active CPUs/)
		lastdump = FNR
	next
}
FNR == lastdump { dump = 1 }
dump && /^sysrq: Show Blocked State/ { end_cpu(); dump = 2 }
# the last line the guest printed itself, not a stack or register dump
!dump && NF && !/^ |^(NMI backtrace|CPU: |RIP: |Code: |RSP: |R[A-Z0-9]+: |[A-Z0-9]+: +[0-9a-f]+|CS: |PKRU: |Call Trace:|sysrq: |task:)/ {
	last = $0
	if ($0 ~ /^(LAB|KTAP|ok |not ok |# |[0-9]+\.\.[0-9]+$|score: |bench: )/)
		mark = $0
}
!splat && /soft lockup|hard LOCKUP|rcu.*stall|detected stalls|blocked for more than|BUG:|WARNING:/ {
	splat = $0
}
dump == 1 && /^NMI backtrace for cpu [0-9]+ skipped: idling/ {
	end_cpu()
	idle++
	next
}
dump == 1 && /^NMI backtrace for cpu [0-9]+$/ {
	end_cpu()
	cpu = $5; rip = ""; frame = ""; task = 0
	next
}
dump == 1 && cpu != "" && /RIP: [0-9a-f]+:/ && rip == "" { rip = fn($0) }
dump == 1 && cpu != "" && /<TASK>/ { task = 1; next }
dump == 1 && cpu != "" && task && frame == "" && !/asm_|sysrq|<\/TASK>/ {
	frame = fn($0)
}
dump == 2 && /^task:[^ ]+ +state:D/ {
	sub(/^task:/, "")
	nb++
	if (nb <= 6)
		names = names (nb > 1 ? " " : "") $1
}
END {
	end_cpu()
	if (!dump) {
		print "reached: no CPU or blocked-task dump in the log; last line: " (last == "" ? "(none)" : last)
	} else {
		print "reached: " (mark == "" ? "(no lab or KTAP line)" : mark) "; last line: " (last == "" ? "(none)" : last)
	}
	s = ""
	for (i = 1; i <= nf; i++)
		s = s (i > 1 ? "; " : "") order[i] " (" (n[order[i]] > 1 ? n[order[i]] " cpus: " : "cpu ") where[order[i]] (n[order[i]] > 8 ? ",..." : "") ")"
	printf "cpus: %d busy, %d idling%s\n", busy, idle, s == "" ? "" : ": " s
	printf "blocked: %d task(s) in D state%s\n", nb, nb ? ": " names (nb > 6 ? " ..." : "") : ""
	print "splat: " (splat == "" ? "none" : splat)
}' "$1" "$1"

[ -s "$1.regs" ] || exit 0
# kernel addresses are 16 lower-case hex digits: compared as strings, they
# sort as numbers, and System.map is sorted by address
tr -d '\r' <"$1.regs" | awk -v map="$map" '
BEGIN {
	while (map != "" && (getline line <map) > 0) {
		split(line, f, " ")
		if (length(f[1]) == 16 && f[2] ~ /^[tTwW]$/) {
			addr[++n] = f[1]
			name[n] = f[3]
		}
	}
}
# the function holding address a: the last symbol at or below it
function sym(a, lo, hi, mid) {
	lo = 0; hi = n
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if ((addr[mid] "") <= (a "")) lo = mid; else hi = mid - 1
	}
	return lo ? name[lo] : a
}
/^[RE]IP=/ {
	rip = substr($1, 5)
	rfl = substr($2, 5)
	# IF is bit 9 of RFLAGS: bit 1 of the third hex digit from the right
	state = /HLT=1/ ? "halted" : index("2367abef", substr(rfl, length(rfl) - 2, 1)) ? "interrupts on" : "interrupts off"
	# EIP: a CPU still in 32-bit firmware code, not yet started by Linux
	k = (/^EIP=/ ? "firmware" : sym(rip)) " (" state ")"
	if (!(k in cnt)) order[++nk] = k
	cnt[k]++
	total++
}
END {
	s = ""
	for (i = 1; i <= nk; i++)
		s = s (i > 1 ? ", " : "") cnt[order[i]] " in " order[i]
	printf "vcpus: %d%s\n", total, total ? " (" s ")" : ""
}'
