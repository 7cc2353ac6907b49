#!/bin/sh
# Summarize the console log of a guest that boot.sh stopped at its time
# limit: how far it got, what its CPUs ran, which tasks were blocked.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [--map SYSTEM_MAP] [--convoy] LOG

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
  locks:    for the vCPUs in a lock's slow path, the lock whose address a
            register of theirs holds, when it lies in a named variable
            (jiffies_lock; rcu_state+0x140: a field of one)
and, when LOG.stack holds the words on top of each vCPU's kernel stack
(boot.sh reads them through the monitor too):
  stacks:   for each group of vCPUs not halted, the kernel functions
            whose addresses lie on most of its stacks, nearest first
            (return addresses, and like the "?" frames of a kernel
            backtrace possibly stale ones)
With --convoy it prints only the locks line and exits with the verdict
of boot.sh's stall check on LOG.regs: 0 for the emulator's convoy on
jiffies_lock (a quarter of the vCPUs or more in a lock's slow path on
it), 3 for a convoy on another lock (a quarter of the vCPUs, or 8 of
them, or more, spinning in a lock's slow path with interrupts off), 1
for none.
EOT
}
map= convoy=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--map) [ $# -ge 2 ] || { echo "${0##*/}: error: --map needs a value" >&2; exit 2; }
		map=$2; shift 2 ;;
	--convoy) convoy=1; shift ;;
	-*) echo "${0##*/}: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "${0##*/}: error: usage: ${0##*/} [--map SYSTEM_MAP] [--convoy] LOG (see --help)" >&2; exit 2; }
[ -r "$1" ] || { echo "${0##*/}: error: cannot read '$1'" >&2; exit 2; }

# the file twice: the first pass finds the last CPU dump (boot.sh's; the
# soft lockup watchdog may have printed others), the second reads it
[ "$convoy" = 1 ] || awk '
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

[ -s "$1.regs" ] || exit "$convoy"
# kernel addresses are 16 lower-case hex digits: compared as strings, they
# sort as numbers, and System.map is sorted by address
tr -d '\r' <"$1.regs" | awk -v map="$map" -v stack="$1.stack" -v convoy="$convoy" '
BEGIN {
	while (map != "" && (getline line <map) > 0) {
		split(line, f, " ")
		# the end of the data a variable may extend to: the next
		# symbol of any kind
		if (length(f[1]) == 16 && nd && dend[nd] == "" && f[1] != daddr[nd])
			dend[nd] = f[1]
		if (length(f[1]) == 16 && f[2] ~ /^[tTwW]$/) {
			addr[++n] = f[1]
			name[n] = f[3]
			if (f[3] == "_stext") stext = f[1]
			if (f[3] == "_etext") etext = f[1]
		} else if (length(f[1]) == 16 && f[2] ~ /^[dDbB]$/) {
			daddr[++nd] = f[1]
			dname[nd] = f[3]
		}
	}
}
# the variable holding address a, as NAME or NAME+0xOFF: the last data
# symbol at or below it, when a is its address or lies below the next
# symbol; "" otherwise
function var(a, lo, hi, mid) {
	lo = 0; hi = nd
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if ((daddr[mid] "") <= (a "")) lo = mid; else hi = mid - 1
	}
	if (!lo)
		return ""
	if (a == daddr[lo])
		return dname[lo]
	if (dend[lo] == "" || (a "") >= (dend[lo] ""))
		return ""
	return sprintf("%s+0x%x", dname[lo], hex(a) - hex(daddr[lo]))
}
# the low 32 bits of a hex address: enough for an offset into a variable
function hex(s, i, v) {
	s = substr(s, length(s) - 7)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
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
/^CPU#[0-9]+/ { cpu = substr($1, 5); delete reg }
# the general registers, "R8 =..." as well as "RAX=..."
/^(RAX|RSI|R8 |R12)/ {
	line = $0
	gsub(/ =/, "=", line)
	m = split(line, t, " ")
	for (j = 1; j <= m; j++)
		if (split(t[j], kv, "=") == 2)
			reg[kv[1]] = tolower(kv[2])
}
/^[RE]IP=/ {
	rip = substr($1, 5)
	rfl = substr($2, 5)
	# IF is bit 9 of RFLAGS: bit 1 of the third hex digit from the right
	state = /HLT=1/ ? "halted" : index("2367abef", substr(rfl, length(rfl) - 2, 1)) ? "interrupts on" : "interrupts off"
	# EIP: a CPU still in 32-bit firmware code, not yet started by Linux
	g = /^EIP=/ ? "firmware" : sym(rip)
	k = g " (" state ")"
	if (!(k in cnt)) order[++nk] = k
	cnt[k]++
	total++
	if (state != "halted" && g != "firmware") {
		group[cpu] = k
		fnc[cpu] = g
	}
	# a lock slow path: the first register, lock argument first, that
	# holds the address of a named variable
	if (g ~ /_lock_slowpath$/) {
		nspin[g]++
		if (state == "interrupts off")
			spinoff++
		split("RDI RSI RDX RCX RAX RBX R8 R9 R10 R11 R12 R13 R14 R15", rn, " ")
		for (j = 1; j <= 14; j++)
			if ((rn[j] in reg) && (v = var(reg[rn[j]])) != "") {
				lk = g SUBSEP v
				if (!(lk in nlock)) lorder[++nl] = lk
				nlock[lk]++
				break
			}
	}
}
END {
	s = ""
	for (i = 1; i <= nk; i++)
		s = s (i > 1 ? ", " : "") cnt[order[i]] " in " order[i]
	if (!convoy)
		printf "vcpus: %d%s\n", total, total ? " (" s ")" : ""
	s = ""
	jl = 0
	for (i = 1; i <= nl; i++) {
		split(lorder[i], lp, SUBSEP)
		s = s (i > 1 ? "; " : "") nlock[lorder[i]] " of " nspin[lp[1]] " in " lp[1] " on " lp[2]
		if (lp[2] == "jiffies_lock")
			jl += nlock[lorder[i]]
	}
	if (s == "" && spinoff)
		s = spinoff " in a lock slow path, on no named variable"
	if (s != "")
		print "locks: " s
	if (convoy)
		exit total && jl * 4 >= total ? 0 : spinoff && (spinoff * 4 >= total || spinoff >= 8) ? 3 : 1
	if (stext == "" || etext == "")
		exit
	# each stack: the first four functions of kernel text on it, other
	# than the one the vCPU is in, each once
	while ((getline line <stack) > 0) {
		m = split(line, w, " ")
		c = substr(w[1], 5)
		if (!(c in group))
			continue
		chain = ""; nc = 0; delete seen
		for (j = 2; j <= m && nc < 4; j++) {
			if (w[j] "" < stext "" || w[j] "" >= etext "")
				continue
			g = sym(w[j])
			if (g == fnc[c] || g in seen)
				continue
			seen[g] = 1
			chain = chain (nc++ ? " < " : "") g
		}
		if (chain == "")
			continue
		key = group[c] SUBSEP chain
		if (!(key in nchain) && !(group[c] in best))
			korder[++nkk] = group[c]
		if (++nchain[key] > nbest[group[c]]) {
			nbest[group[c]] = nchain[key]
			best[group[c]] = chain
		}
	}
	s = ""
	for (i = 1; i <= nkk; i++)
		s = s (i > 1 ? "; " : "") korder[i] ", " nbest[korder[i]] " of " cnt[korder[i]] ": " best[korder[i]]
	if (s != "")
		print "stacks: " s
}'
