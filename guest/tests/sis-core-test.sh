#!/bin/sh
# lab-boot: scaled 4
# Guest tests of SIS_CORE: on a busy LLC (all CPUs of CPU 0's LLC busy,
# SIS_UTIL off so the baseline scans everything) the idle mask costs
# fewer probes per wakeup than the plain scan, and the mask never names a
# CPU outside its LLC, there or under a machine-wide load.
. /lab/sis-lib.sh
ktap_begin
N=3000

require_feature SIS_CORE
llc=$(llc_of 0)
was=$(feature_state SIS_CORE)

echo NO_SIS_UTIL >"$SCHED_FEATURES"
hogs "$llc"
for f in NO_SIS_CORE SIS_CORE; do
	echo "$f" >"$SCHED_FEATURES"
	/lab/sis-stats.sh sis-load -c "$llc" pingpong "$N" >"/tmp/$f" 2>&1
	echo "== $f"
	cat "/tmp/$f"
done
stop_hogs
echo SIS_UTIL >"$SCHED_FEATURES"

# probes per wakeup, in hundredths
pp() {
	awk '$1 == "sis.calls" { c = $2 } $1 == "sis.scan_probes" { s = $2 }
		$1 == "sis.smt_probes" { t = $2 }
		END { print c ? int(100 * (s + t) / c) : -1 }' "$1"
}
base=$(pp /tmp/NO_SIS_CORE)
core=$(pp /tmp/SIS_CORE)
if [ "$core" -ge 0 ] && [ "$base" -gt 0 ] && [ "$core" -lt "$base" ]; then
	result sis-core-fewer-probes ok "busy LLC: $core vs $base probes per 100 wakeups"
else
	result sis-core-fewer-probes FAIL "busy LLC: $core (SIS_CORE) vs $base (baseline) probes per 100 wakeups"
fi

# load across the machine: four free ping-pong pairs
echo SIS_CORE >"$SCHED_FEATURES"
/lab/sis-stats.sh sh -c 'for i in 1 2 3 4; do sis-load pingpong 2000 & done; wait' \
	>/tmp/core-hb 2>&1
echo "$was" >"$SCHED_FEATURES"
cat /tmp/core-hb
out1=$(sis_stat core_outside /tmp/SIS_CORE)
out2=$(sis_stat core_outside /tmp/core-hb)
calls=$(sis_stat calls /tmp/core-hb)
if [ "$out1" = 0 ] && [ "$out2" = 0 ] && [ "${calls:-0}" -gt 0 ]; then
	result sis-core-mask-in-llc ok "no mask bit outside its LLC ($calls wakeups under load)"
else
	result sis-core-mask-in-llc FAIL "core_outside ${out1:-?} and ${out2:-?}"
fi
exit 0
