#!/bin/bash
# Boot a kernel on an emulated 2P platform (configs/platform/) and run one command.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [options] [--] [CMD]

Boot KERNEL under QEMU TCG (/dev/kvm here is PVM and cannot run it) with
the shape of a platform of configs/platform/: 2 sockets, its LLCs per
socket (one QEMU die each), cores per LLC, SMT2, NPS NUMA nodes per
socket with SLIT distances 10/12/32.  The guest runs CMD (default: a
topology summary) from /lab and powers off; the exit status is CMD's.
A guest stopped at a limit gives a status of boot.sh's own, the reason on
stderr: 124 (not finished within --timeout), 125 (no user space within
--boot-limit), 126 (stalled: the emulator's jiffies_lock convoy,
--stall); boot.sh's other errors exit 1 (2: usage), as does a CMD that
exits 124 to 126 itself.
The whole guest console plus its final dmesg goes to LOG.

  --nps N         one of the platform's NPS modes (default \$NPS or 1;
                  1, 2 or 4)
  --shape S       scaled (default: 4 cores per LLC, every LLC count per
                  socket and node of the real part; milan 128 CPUs), full
                  (the real part; milan 256 CPUs, 2x64C/128T) or small
                  (2 cores per LLC; milan 64 CPUs)
  --model M       a platform of configs/platform/ (default \$MODEL or
                  milan): $(platform_names)
                  The AMD ones run their EPYC CPU model with topoext and
                  Linux's CPU numbering of the part (an ACPI MADT upgrade
                  in the initrd); intel is Skylake-Server in Milan's
                  shape, one L3 per QEMU die, QEMU's numbering
  --kernel FILE   bzImage (default \$LAB_OUT/obj-qemu/arch/x86/boot/bzImage)
  --initrd FILE   base initramfs (default: built by mkinitramfs.sh)
  --log FILE      console log (default
                  \$LAB_OUT/logs/boot-\$MODEL-\$SHAPE-nps\$NPS.log)
  --out DIR       host directory the guest sees as /lab/out (9p)
  --append ARGS   extra kernel parameters
  --mem MB        guest memory (default 512 per node)
  --timeout SEC   after SEC seconds (default 1800) write every vCPU's
                  registers to LOG.regs and the top of its kernel stack
                  to LOG.stack (QEMU's monitor), have the guest print all
                  CPUs' stacks and its blocked tasks (sysrq l and w),
                  print a digest of all (hang-digest.sh), end QEMU and
                  fail
  --boot-limit SEC  the same when the guest has not reached user space
                  (printed LAB-BOOTED) after SEC seconds (default 0: no
                  limit)
  --stall SEC     the same, failing with "guest stalled", when after SEC
                  seconds of console silence (default 300; 0: never)
                  and again a minute later a quarter of the vCPUs or
                  more wait on jiffies_lock, or when after a new stall
                  report of the kernel (RCU, soft lockup, hung task)
                  and again a minute later a quarter of them, or 8,
                  spin in a lock's slow path with interrupts off, on
                  whichever lock: under TCG with many vCPUs per host
                  core such a convoy may never drain
                  (Documentation/tcg.md)
  --cost FILE     run the sis-cost TCG plugin (build-cost-plugin.sh;
                  \$COST_PLUGIN overrides it) on the kernel's
                  scheduler functions (cost-map.sh: the kernel must sit
                  in its build directory, with System.map); its reports
                  go to FILE (emptied first); \$COST_ALSO adds functions of
                  other code (cost-map.sh --also)
  --locality      with --cost, the plugin's locality mode too (with
                  --cost, \$COST_LOCALITY=1 turns it on as well): every
                  guest load and store, kernel and user, in a model of
                  one cache per LLC; FILE's reports get the lines moved
                  between LLCs by the boundary crossed (CCX, NPS4
                  quadrant, NPS2 half, socket: scripts/sis_cost.py
                  locality), the physical topology goes to FILE.topo
                  (cost-topo.sh).  It slows the emulation down: measure
                  by how much at one cell before running a matrix with it
  -v              copy the console to stdout as well
LAB_MACHINE_OPTS adds -machine options; LAB_TCG_THREAD=single runs every
vCPU in one host thread (default multi: one thread per vCPU).
LAB_GUEST_BINS lists host programs copied into the guest with their
libraries (default: hackbench, when installed).  QEMU=path overrides the
emulator; a shape of more than 255 CPUs, or a platform whose CPU model
this machine's QEMU lacks (genoa, turin), uses trixie's QEMU
(fetch-qemu.sh): bookworm's 7.2 stops at 255 CPUs under TCG and has no
EPYC-Genoa.  A shape the QEMU cannot run is refused in one line.
EOT
}
# lpj: skip calibrating the delay loop, whose result under TCG is noise
LAB_LPJ=5000000
STALL_TIMEOUT=300 WATCHDOG_THRESH=60 HUNG_TASK_TIMEOUT=600
BOOT_TIMEOUT=1800 MEM_PER_NODE=512 STALL_SILENCE=300
kernel=$LAB_OUT/obj-qemu/arch/x86/boot/bzImage
initrd='' log='' out='' append='' mem='' timeout=$BOOT_TIMEOUT verbose=0
boot_limit=0 stall=$STALL_SILENCE cost='' plugin_arg='' locality=''
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--nps) need_value "$@"; NPS=$2; shift 2 ;;
	--shape) need_value "$@"; SHAPE=$2; shift 2 ;;
	--model) need_value "$@"; MODEL=$2; shift 2 ;;
	--kernel) need_value "$@"; kernel=$2; shift 2 ;;
	--initrd) need_value "$@"; initrd=$2; shift 2 ;;
	--log) need_value "$@"; log=$2; shift 2 ;;
	--out) need_value "$@"; out=$2; shift 2 ;;
	--append) need_value "$@"; append=$2; shift 2 ;;
	--mem) need_value "$@"; mem=$2; shift 2 ;;
	--timeout) need_value "$@"; timeout=$2; shift 2 ;;
	--boot-limit) need_value "$@"; boot_limit=$2; shift 2 ;;
	--stall) need_value "$@"; stall=$2; shift 2 ;;
	--cost) need_value "$@"; cost=$2; shift 2 ;;
	--locality) locality=1; shift ;;
	-v) verbose=1; shift ;;
	--) shift; break ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
cmd=${*:-/lab/topo-dump.sh}
shape_init
[ -f "$kernel" ] || die "no kernel at $kernel (run make build first)"
case $timeout in ''|*[!0-9]*) die "--timeout takes seconds, not '$timeout'" ;; esac
tcg_thread=${LAB_TCG_THREAD:-multi}
case $tcg_thread in single|multi) ;; *) die "LAB_TCG_THREAD is single or multi, not '$tcg_thread'" ;; esac
case $boot_limit in ''|*[!0-9]*) die "--boot-limit takes seconds, not '$boot_limit'" ;; esac
case $stall in ''|*[!0-9]*) die "--stall takes seconds, not '$stall'" ;; esac
[ -n "$cost" ] || [ -z "$locality" ] || die "--locality needs --cost FILE (the plugin's reports)"
# $COST_LOCALITY reaches boot.sh through the drivers (bench.sh, score.sh)
[ -z "$cost" ] || locality=${locality:-${COST_LOCALITY:-0}}
case $locality in ''|0|1) ;; *) die "COST_LOCALITY is 0 or 1, not '$locality'" ;; esac

QEMU=$(platform_qemu)
[ -n "$QEMU" ] && [ -x "$QEMU" ] ||
	die "QEMU not found (apt-get install qemu-system-x86, or set QEMU=)"

# the cost plugin: built for this QEMU, mapped onto this kernel
if [ -n "$cost" ]; then
	kobj=${kernel%/arch/x86/boot/bzImage}
	[ "$kobj" != "$kernel" ] && [ -f "$kobj/System.map" ] ||
		die "--cost needs the kernel in its build directory with its System.map ($kernel has none beside it)"
	plugin=${COST_PLUGIN:-$("$LAB_TOP/scripts/build-cost-plugin.sh" --qemu "$QEMU")} || exit
	qver=$("$QEMU" --version | sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p')
	pver=$(sed -n 's/^qemu=//p' "${plugin%.so}.info" 2>/dev/null)
	papi=$(sed -n 's/^api=//p' "${plugin%.so}.info" 2>/dev/null)
	[ "$pver" = "$qver" ] ||
		die "the cost plugin $plugin was built for QEMU ${pver:-unknown} (plugin API ${papi:-unknown}), this QEMU is $qver: build it with build-cost-plugin.sh --qemu $QEMU"
	mkdir -p "$(dirname "$cost")"
	# the plugin appends: a report numbered from 0 starts the file
	: >"$cost"
	"$LAB_TOP/scripts/cost-map.sh" ${COST_ALSO:+--also "$COST_ALSO"} "$kobj" >"$cost.map" || exit
	plugin_arg=$plugin,map=$cost.map,out=$cost
	if [ "$locality" = 1 ]; then
		"$LAB_TOP/scripts/cost-topo.sh" --model "$MODEL" --shape "$SHAPE" >"$cost.topo" || exit
		plugin_arg=$plugin_arg,locality=$cost.topo
	fi
fi

madt=
cpu=$(platform_cpu "$QEMU")
# shellcheck disable=SC2154 # platform_load sets PLAT_*
[ "$PLAT_numbering" != linux ] || madt=$(platform_madt)

log=${log:-$LAB_OUT/logs/boot-$MODEL-$SHAPE-nps$NPS.log}
mkdir -p "$(dirname "$log")"
if [ -z "$initrd" ]; then
	bins=
	for b in ${LAB_GUEST_BINS-hackbench}; do
		command -v "$b" >/dev/null && bins="$bins $b"
	done
	# shellcheck disable=SC2086
	initrd=$("$LAB_TOP/scripts/mkinitramfs.sh" "$LAB_OUT/initramfs.cpio.gz" $bins)
fi
# the command travels as a second archive appended to the base one; the
# MADT of the firmware's numbering goes first, as the uncompressed archive the kernel's
# ACPI table upgrade reads
work=$(mktemp -d)
qemu='' wd=''
# (|| true: under set -e a failing command in the trap would become the
# script's exit status)
trap 'kill $qemu $wd 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/root/lab"
printf '%s\n' "$cmd" >"$work/root/lab/cmd"
(cd "$work/root" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$work/cmd.cpio.gz"
cat ${madt:+"$madt"} "$initrd" "$work/cmd.cpio.gz" >"$work/initrd"

node_mem=$(( ${mem:-$((MEM_PER_NODE * NODES))} / NODES ))
# the locality mode sizes its table of lines from the guest's RAM
[ "$locality" != 1 ] || plugin_arg=$plugin_arg,ram=$((node_mem * NODES))
set -- -machine "q35${LAB_MACHINE_OPTS:-}" -accel "tcg,thread=$tcg_thread" -cpu "$cpu" -audiodev none,id=snd0 \
	-smp "$NR_CPUS,sockets=$SOCKETS,dies=$CCX,cores=$CORES,threads=$THREADS" \
	-m "$((node_mem * NODES))M"
if [ "$NR_CPUS" -gt 255 ]; then
	# x2APIC destinations above 255 need interrupt remapping
	set -- "$@" -device intel-iommu,intremap=on,eim=on
fi
n=0
while [ "$n" -lt "$NODES" ]; do
	first=$((n * NODE_CPUS))
	set -- "$@" -object "memory-backend-ram,id=m$n,size=${node_mem}M" \
		-numa "node,nodeid=$n,memdev=m$n,cpus=$first-$((first + NODE_CPUS - 1))"
	n=$((n + 1))
done
a=0
while [ "$a" -lt "$NODES" ]; do
	b=0
	while [ "$b" -lt "$NODES" ]; do
		[ "$a" -eq "$b" ] ||
			set -- "$@" -numa "dist,src=$a,dst=$b,val=$(node_distance "$a" "$b")"
		b=$((b + 1))
	done
	a=$((a + 1))
done
if [ -n "$out" ]; then
	mkdir -p "$out"
	set -- "$@" -virtfs "local,path=$out,mount_tag=lab,security_model=none"
fi
# loglevel 5: warnings reach the console, and with them the stack dumps
# of stall and lockup reports (printed at the default level), which are
# all a hung guest leaves behind
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=5 log_buf_len=8M"
# TCG runs 128 or 256 vCPUs on a few host threads: a loaded vCPU can
# starve for seconds, which is no RCU or lockup bug; give stalls, soft
# lockups and hung tasks more rope (reports after 300 s, 120 s, 600 s),
# and let a soft lockup show every CPU
cmdline="$cmdline lpj=$LAB_LPJ tsc=reliable no_timer_check mitigations=off"
cmdline="$cmdline rcupdate.rcu_cpu_stall_timeout=$STALL_TIMEOUT watchdog_thresh=$WATCHDOG_THRESH"
cmdline="$cmdline sysctl.kernel.hung_task_timeout_secs=$HUNG_TASK_TIMEOUT"
cmdline="$cmdline sysctl.kernel.softlockup_all_cpu_backtrace=1"
cmdline="$cmdline sched_verbose $append"
# the guest's cost markers run only with the plugin (guest/cost-mark.sh)
[ -z "$cost" ] || cmdline="$cmdline lab.cost=1"

# the monitor lets a timeout ask the guest where it is stuck (sysrq)
set -- "$@" -display none -no-reboot -monitor "unix:$work/monitor,server=on,wait=off" \
	-kernel "$kernel" -initrd "$work/initrd" -append "$cmdline"
[ -z "$plugin_arg" ] || set -- "$@" -plugin "$plugin_arg"

# monitor REGS [STACK]: write QEMU's registers of every vCPU to REGS
# (where each CPU is, even with interrupts off everywhere); with STACK,
# the words on top of each vCPU's kernel stack to STACK, then have the
# guest print every CPU's stack and the blocked tasks (sysrq l and w on
# the emulated keyboard)
monitor() {
	python3 - "$work/monitor" "$@" <<-'EOT' >/dev/null 2>&1 || true
		import re, socket, sys, time
		s = socket.socket(socket.AF_UNIX)
		s.connect(sys.argv[1])
		s.settimeout(10)
		# mon CMD: the monitor's answer to CMD, up to its next prompt
		def mon(cmd):
		    if cmd:
		        s.sendall(cmd.encode() + b"\n")
		    out = b""
		    try:
		        while not out.rstrip().endswith(b"(qemu)"):
		            d = s.recv(1 << 20)
		            if not d:
		                break
		            out += d
		    except socket.timeout:
		        pass
		    out = re.sub(rb"\x1b\[[0-9;]*[A-Za-z]|\r", b"", out)
		    return out.decode(errors="replace")
		mon("")
		regs = mon("info registers -a")
		open(sys.argv[2], "w").write(regs)
		if len(sys.argv) < 4:
		    sys.exit(0)
		# the digest names the kernel functions among these words: the
		# callers of a CPU that spins with interrupts off and cannot
		# print its own stack
		with open(sys.argv[3], "w") as f:
		    for b in re.split(r"(?m)^CPU#", regs)[1:]:
		        cpu = b.split()[0]
		        rsp = re.search(r"RSP=(ffff[0-9a-f]{12})", b)
		        if not rsp:
		            continue
		        mon("cpu " + cpu)
		        words = [w for l in mon("x/48gx 0x" + rsp.group(1)).splitlines()
		                 if re.match(r"[0-9a-f]{16}:", l)
		                 for w in re.findall(r"0x([0-9a-f]{16})", l)]
		        f.write("CPU#%s %s\n" % (cpu, " ".join(words)))
		# sysrq 7 first: w prints the blocked tasks at info level, which
		# loglevel=5 keeps off the console
		for key in ("7", "l", "w"):
		    s.sendall(b"sendkey alt-sysrq-%s\n" % key.encode())
		    time.sleep(5)
	EOT
}

# convoy: whether the vCPUs' registers show a lock convoy (hang-digest.sh
# --convoy; Documentation/tcg.md).  Each handover of a queued lock waits
# for the host to run the next waiter's vCPU thread, and CPUs whose ticks
# need the lock (jiffies_lock, the RCU node locks) keep joining the queue:
# the guest may not come out of it.
# convoy ANY: ANY=0: on jiffies_lock only; ANY=1 (after a stall report of
# the kernel's): on any lock, as a heavy run's vCPUs may spin on run-queue
# locks at any look
convoy() {
	local v=0
	: >"$work/probe"
	monitor "$work/probe.regs"
	"$LAB_TOP/scripts/hang-digest.sh" --convoy ${map:+--map "$map"} "$work/probe" >"$work/probe.digest" 2>/dev/null || v=$?
	[ "$v" = 0 ] || { [ "$1" = 1 ] && [ "$v" = 3 ]; }
}

# stalled ANY: a convoy (convoy ANY) at two looks a minute apart, its
# digest kept in $work/convoy
stalled() {
	convoy "$1" && sleep 60 && convoy "$1" && cp "$work/probe.digest" "$work/convoy"
}

# watchdog PID: after $timeout s, after $boot_limit s without reaching
# user space (LAB-BOOTED), or when the vCPUs are in a lock convoy twice a
# minute apart, looked at after $stall s of console silence (on
# jiffies_lock) or a new stall report of the kernel's (any lock), write the
# vCPUs' registers and stacks (monitor), give the guest SYSRQ_GRACE s to
# print its own, then end QEMU
SYSRQ_GRACE=30
watchdog() {
	local t=0 up=0 size=0 quiet=0 reports=0 n s t0
	t0=$(date +%s)
	while [ "$t" -lt "$timeout" ] && kill -0 "$1" 2>/dev/null; do
		if [ "$up" = 1 ]; then
			:
		elif grep -q 'LAB-BOOTED: ' "$log" 2>/dev/null; then
			up=1
		elif [ "$boot_limit" != 0 ] && [ "$t" -ge "$boot_limit" ]; then
			: >"$work/no-user-space"
			break
		fi
		s=$(stat -c %s "$log" 2>/dev/null || echo 0)
		if [ "$s" != "$size" ]; then
			size=$s quiet=0
			# the kernel's own reports keep the console from silence
			n=$(stall_reports "$log")
			if [ "$stall" != 0 ] && [ "$n" -gt "$reports" ]; then
				reports=$n
				! stalled 1 || break
			fi
		elif [ "$stall" != 0 ] && [ $((quiet += 1)) -ge "$stall" ]; then
			# quiet counts loops, each a second or more
			quiet=0
			! stalled 0 || break
		fi
		sleep 1
		t=$(($(date +%s) - t0))
	done
	kill -0 "$1" 2>/dev/null || return 0
	: >"$work/timed-out"
	monitor "$log.regs" "$log.stack"
	sleep "$SYSRQ_GRACE"
	kill "$1" 2>/dev/null || true
}

note "booting $MODEL NPS$NPS, $NR_CPUS CPUs ($SOCKETS sockets x $CCX LLCs x $CORES cores x $THREADS threads), log $log"
start=$(date +%s)
# no earlier boot's log for the watchdog to read LAB-BOOTED from
rm -f "$log" "$log.regs" "$log.stack"
# the kernel's symbols, for the digests (a bzImage in a build tree)
map=$(dirname "$kernel")/../../../System.map
[ -f "$map" ] || map=
rc=0
"$QEMU" "$@" -serial "file:$log" </dev/null >"$log.qemu" 2>&1 &
qemu=$!
watchdog "$qemu" &
wd=$!
# -v: follow the console until QEMU ends
[ "$verbose" = 0 ] || tail -n +1 -F --pid="$qemu" "$log" 2>/dev/null &
wait "$qemu" || rc=$?
qemu=
kill "$wd" 2>/dev/null || true
wait 2>/dev/null || true
[ ! -e "$work/timed-out" ] || rc=124
# QEMU warns per vCPU of each CPU feature TCG lacks (on the AMD platforms:
# the forced topoext): counted here, kept out of the console log the splat scans read
lacks=$(grep -c "doesn't support requested feature" "$log.qemu" 2>/dev/null || true)
[ "${lacks:-0}" = 0 ] || note "$lacks QEMU warnings of CPU features TCG lacks (in $log.qemu)"
if [ "$rc" -eq 124 ]; then
	"$LAB_TOP/scripts/hang-digest.sh" ${map:+--map "$map"} "$log" | while read -r line; do
		note "hang: $line"
	done
	where="its vCPUs' registers are in $log.regs, the tops of their stacks in $log.stack, its CPUs' stacks and blocked tasks (sysrq l, w) in $log"
	if [ -e "$work/convoy" ]; then
		note "error: guest stalled: $(sed -n 's/^locks: //p' "$work/convoy") after $stall s of silence or a stall report, twice a minute apart (a lock convoy, Documentation/tcg.md); $where"
		exit 126
	elif [ -e "$work/no-user-space" ]; then
		note "error: guest did not reach user space within $boot_limit s; $where"
		exit 125
	fi
	note "error: guest did not finish within $timeout s; $where"
	exit 124
fi
[ "$rc" -eq 0 ] || die "QEMU failed with status $rc: $(grep -v '^$' "$log.qemu" 2>/dev/null | tail -n1)"
st=$(sed -n 's/^LAB-EXIT: \([0-9]*\).*/\1/p' "$log" | tail -n1)
[ -n "$st" ] || die "guest stopped without reporting an exit status (log $log)"
case $st in
124|125|126) die "the guest's command exited $st, a status boot.sh gives a guest stopped at a limit (log $log)" ;;
esac
note "guest finished in $(( $(date +%s) - start )) s with status $st"
exit "$st"
