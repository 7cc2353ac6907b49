#!/bin/sh
# Guest test of SIS_SHORT: a short ping-pong pair that starts on CPU 0 and
# may use CPU 0's LLC, whose other CPUs are busy: each partner is woken on
# the waker's CPU without a scan while SIS_SHORT is on, and goes through
# the LLC scan while it is off.  A new pair inherits wakee_flips from its
# parent, which decay by half per second of wakeups, so the pair warms up
# for 8 s and is measured in steady state.
. /lab/sis-lib.sh

require_feature SIS_SHORT
llc=$(llc_of 0)
was=$(feature_state SIS_SHORT)

# every CPU of the LLC but the first is busy
hogs "$(rest "$llc")"
for f in NO_SIS_SHORT SIS_SHORT; do
	echo "$f" >"$F"
	sis-load -c "$(first "$llc")" pingpong 100000000 "$llc" &
	pair=$!
	sleep 8
	/lab/sis-stats.sh sleep 3 >"/tmp/$f" 2>&1
	kill "$pair"
	wait "$pair"
	echo "== $f"
	cat "/tmp/$f"
done
stop_hogs
echo "$was" >"$F"

calls=$(stat calls /tmp/NO_SIS_SHORT)
taken=$(stat short_taken /tmp/NO_SIS_SHORT)
scans=$(stat llc_scans /tmp/NO_SIS_SHORT)
if [ "$taken" = 0 ] && [ "${scans:-0}" -ge $((calls / 2)) ] && [ "${calls:-0}" -ge 100 ]; then
	result sis-short-off ok "$calls wakeups, $scans LLC scans, no shortcut"
else
	result sis-short-off FAIL "calls ${calls:-?}, llc_scans ${scans:-?}, short_taken ${taken:-?}"
fi
calls=$(stat calls /tmp/SIS_SHORT)
taken=$(stat short_taken /tmp/SIS_SHORT)
scans=$(stat llc_scans /tmp/SIS_SHORT)
# Under TCG the pair's vCPU shares two host cores with the spinning vCPUs,
# which stretches guest run times past migration_cost now and then (seen:
# 20% to 35% of the wakeups qualify); so demand a clear share of
# shortcuts, where the feature off gives none at all.
if [ "${taken:-0}" -ge $((calls / 10)) ] && [ $((taken + scans)) -ge $((calls * 9 / 10)) ]; then
	result sis-short-on ok "$taken of $calls wakeups stacked on the waker, $scans LLC scans"
else
	result sis-short-on FAIL "calls ${calls:-?}, short_taken ${taken:-?}, llc_scans ${scans:-?}"
fi
exit 0
