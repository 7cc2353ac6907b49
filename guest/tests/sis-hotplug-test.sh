#!/bin/sh
# lab-boot: scaled 4
# Guest test: with every SIS feature on and wakeups running, take a whole
# LLC offline and back (CYCLES times, default 1), which rebuilds the
# domains and clears sd_llc of the CPUs going away: nothing may crash
# (run.sh checks the log for splats) and wakeups keep being placed.
. /lab/sis-lib.sh
ktap_begin
CYCLES=${CYCLES:-1}

feats=$(sis_features)
[ -n "$feats" ] || { result sis-hotplug FAIL "no SIS feature of the series in $SCHED_FEATURES"; exit 0; }
llc1=$(llc 1)
for f in $feats; do
	echo "$f" >"$SCHED_FEATURES"
done

sis-load pingpong 100000000 &
p1=$!
sis-load -c "$(llc 0),$llc1" pingpong 100000000 &
p2=$!
done=0
c=0
while [ "$c" -lt "$CYCLES" ]; do
	for cpu in $(cpus "$llc1"); do
		echo 0 >/sys/devices/system/cpu/cpu$cpu/online || break 2
	done
	sleep 1
	for cpu in $(cpus "$llc1"); do
		echo 1 >/sys/devices/system/cpu/cpu$cpu/online || break 2
	done
	c=$((c + 1))
	done=$c
done
/lab/sis-stats.sh --audit sleep 2 >/tmp/hp 2>&1
kill "$p1" "$p2"
wait
features_off
cat /tmp/hp
calls=$(sis_stat calls /tmp/hp)
online=$(cat /sys/devices/system/cpu/online)
if [ "$done" = "$CYCLES" ] && [ "${calls:-0}" -gt 0 ] && [ "$online" = "$(cat /sys/devices/system/cpu/possible)" ]; then
	result sis-hotplug ok "$CYCLES cycles of LLC 1 offline/online under load with every feature on; $calls wakeups after"
else
	result sis-hotplug FAIL "cycles $done of $CYCLES, online $online, calls ${calls:-?}"
fi
exit 0
