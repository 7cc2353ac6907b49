#!/bin/sh
# lab-boot: small 1 2 4 CYCLES=1
# Faults under load, for the debug kernel (tests/reliability.sh): while
# hackbench runs and a flipper switches the SIS features, cycle CPUs
# through hotplug and create and destroy cpuset partitions (each a sched
# domain rebuild); then ask kmemleak.  Its KTAP results carry the counts.
# CYCLES (default 20) hotplug and partition cycles; HOTPLUG_MAX (default
# all) LLCs whose last CPU is cycled; LOAD_FDS (default 10) hackbench
# senders and as many receivers.
. /lab/sis-lib.sh
ktap_begin
CYCLES=${CYCLES:-20}
HOTPLUG_MAX=${HOTPLUG_MAX:-1000}
LOAD_FDS=${LOAD_FDS:-10}
FEATS=$(sis_features)
ncpu=$(nproc)
STOP=/tmp/reliability.stop
rm -f "$STOP"

# load: hackbench in a loop, over pipes: socket messages would each
# allocate and free an skb under kmemleak's one global lock
( n=0
  while [ ! -f "$STOP" ]; do
	hackbench -p -g 1 -f "$LOAD_FDS" -l 50 >/dev/null 2>&1 && n=$((n + 1))
  done
  echo "$n" >/tmp/hackbench.runs ) &
load=$!

# the flipper: every feature on and off in turn, counting writes
( n=0
  while [ ! -f "$STOP" ]; do
	for f in $FEATS; do
		echo "$f" >"$SCHED_FEATURES" && n=$((n + 1))
		echo 1 >"$SIS_DEBUGFS/enabled" 2>/dev/null
		sleep 0.2
		echo "NO_$f" >"$SCHED_FEATURES" && n=$((n + 1))
	done
	echo "${SIS_NODE_LIMIT_VALUES:-0 1 4}" | tr ' ' '\n' | while read -r v; do
		echo "$v" >/sys/kernel/debug/sched/sis_node_limit
	done
  done
  echo "$n" >/tmp/flips ) &
flipper=$!

# hotplug: the last CPU of each LLC but CPU 0's (at most HOTPLUG_MAX of
# them, spread over the machine), off and on
hp=0 hpfail=0
llc0=$(llc_of 0)
cpus=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
	c=${c##*cpu}
	llc=$(llc_of "$c")
	[ "$llc" != "$llc0" ] && [ "$c" = "${llc##*-}" ] &&
		[ -w "/sys/devices/system/cpu/cpu$c/online" ] && echo "$c"
done | sort -n | awk -v m="$HOTPLUG_MAX" '{ c[NR] = $1 }
	END { s = int((NR + m - 1) / m); for (i = 1; i <= NR; i += s) print c[i] }')
i=0
while [ "$i" -lt "$CYCLES" ]; do
	for c in $cpus; do
		if echo 0 >"/sys/devices/system/cpu/cpu$c/online" &&
			echo 1 >"/sys/devices/system/cpu/cpu$c/online"; then
			hp=$((hp + 1))
		else
			hpfail=$((hpfail + 1))
		fi
		echo "reliability: cycle $((i + 1)): CPU $c off and on"
	done
	i=$((i + 1))
	echo "reliability: hotplug cycle $i of $CYCLES, $hp CPU cycles, $hpfail failed"
done
if [ "$hp" -gt 0 ] && [ "$hpfail" = 0 ]; then
	result hotplug-cycles ok "$hp CPU offline/online cycles under load"
else
	result hotplug-cycles FAIL "$hp cycles, $hpfail failed"
fi

# cpuset partitions: the CPUs of a middle LLC become a root partition and
# go back, each change rebuilding the sched domains
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
rb=0 rbfail=0 loadfail=0
# in_part CMD...: run CMD in the cgroup "part"
in_part() {
	sh -c 'echo $$ >/sys/fs/cgroup/part/cgroup.procs && exec "$@"' in_part "$@"
}
if [ -f /sys/fs/cgroup/cgroup.subtree_control ]; then
	llc=$(llc_of "$((ncpu / 2))")
	i=0
	while [ "$i" -lt "$CYCLES" ]; do
		mkdir /sys/fs/cgroup/part
		if echo "$llc" >/sys/fs/cgroup/part/cpuset.cpus &&
			echo root >/sys/fs/cgroup/part/cpuset.cpus.partition &&
			grep -q '^root$' /sys/fs/cgroup/part/cpuset.cpus.partition; then
			# inside the partition: the root cgroup no longer has its CPUs
			in_part sis-load -c "$llc" spin 1 &
			spin=$!
			in_part sis-load -c "$llc" pingpong 2000 || loadfail=$((loadfail + 1))
			wait "$spin" || loadfail=$((loadfail + 1))
			echo member >/sys/fs/cgroup/part/cpuset.cpus.partition
			rb=$((rb + 2))
		else
			rbfail=$((rbfail + 1))
		fi
		rmdir /sys/fs/cgroup/part
		i=$((i + 1))
		echo "reliability: partition cycle $i of $CYCLES, $rb rebuilds, $rbfail failed"
	done
fi
if [ "$rb" -gt 0 ] && [ "$rbfail" = 0 ] && [ "$loadfail" = 0 ]; then
	result partition-rebuilds ok "$rb domain rebuilds (root partition on $llc and back) under load"
else
	result partition-rebuilds FAIL "$rb rebuilds, $rbfail failed, $loadfail loads in the partition failed"
fi

touch "$STOP"
wait "$flipper" "$load"
result feature-toggles ok "$(cat /tmp/flips) feature writes, $(cat /tmp/hackbench.runs) hackbench runs survived"
for f in $FEATS; do
	echo "NO_$f" >"$SCHED_FEATURES"
done

if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	leaks=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	if [ "$leaks" = 0 ]; then
		result kmemleak ok "no unreferenced object after two scans"
	else
		result kmemleak FAIL "$leaks unreferenced objects"
		head -n 40 /sys/kernel/debug/kmemleak
	fi
else
	result kmemleak ok "skipped: no kmemleak in this kernel"
fi
exit 0
