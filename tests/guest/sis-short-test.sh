#!/bin/sh
# Guest test of SIS_SHORT: a short ping-pong pair in CPU 0's LLC, whose
# other CPUs are busy, is woken on the waker's CPU without a scan while
# SIS_SHORT is on, and scans the LLC while it is off.
. /lab/sis-lib.sh
N=3000

if ! has_feature SIS_SHORT; then
	result sis-short FAIL "no SIS_SHORT in $F"
	exit 0
fi
llc=$(llc_of 0)
was=$(tr ' ' '\n' <"$F" | grep -x -e SIS_SHORT -e NO_SIS_SHORT)

# every CPU of the LLC but the first is busy
hogs "$(( ${llc%-*} + 1 ))-${llc#*-}"
for f in NO_SIS_SHORT SIS_SHORT; do
	echo "$f" >"$F"
	/lab/sis-stats.sh sis-load -c "$llc" pingpong "$N" >"/tmp/$f" 2>&1
	echo "== $f"
	cat "/tmp/$f"
done
stop_hogs
echo "$was" >"$F"

calls=$(stat calls /tmp/NO_SIS_SHORT)
taken=$(stat short_taken /tmp/NO_SIS_SHORT)
scans=$(stat llc_scans /tmp/NO_SIS_SHORT)
if [ "$taken" = 0 ] && [ "${scans:-0}" -ge $((calls / 2)) ] && [ "$calls" -ge "$N" ]; then
	result sis-short-off ok "$calls wakeups, $scans LLC scans, no shortcut"
else
	result sis-short-off FAIL "calls ${calls:-?}, llc_scans ${scans:-?}, short_taken ${taken:-?}"
fi
calls=$(stat calls /tmp/SIS_SHORT)
taken=$(stat short_taken /tmp/SIS_SHORT)
scans=$(stat llc_scans /tmp/SIS_SHORT)
if [ "${taken:-0}" -ge $((calls * 8 / 10)) ] && [ "${scans:-0}" -le $((calls / 10)) ]; then
	result sis-short-on ok "$taken of $calls wakeups stacked on the waker, $scans LLC scans"
else
	result sis-short-on FAIL "calls ${calls:-?}, short_taken ${taken:-?}, llc_scans ${scans:-?}"
fi
exit 0
