#!/bin/sh
# Guest half of the lab tests: dump the topology and flip sched features.
# Results in KTAP (sis-lib.sh), which tests/run.sh reads.
. /lab/sis-lib.sh
ktap_begin

echo "TOPO-BEGIN"
/lab/topo-dump.sh
echo "TOPO-END"

# flip_feature NAME: clear it, check, restore it, check
flip_feature() {
	name=$1
	was=$(feature_state "$name")
	if [ -z "$was" ]; then
		result "feature-$name" FAIL "not in $SCHED_FEATURES"
		return
	fi
	if [ "$was" = "$name" ]; then other="NO_$name"; else other=$name; fi
	echo "$other" >"$SCHED_FEATURES" && tr ' ' '\n' <"$SCHED_FEATURES" | grep -qx "$other" ||
		{ result "feature-$name" FAIL "writing $other did not stick"; return; }
	echo "$was" >"$SCHED_FEATURES" && tr ' ' '\n' <"$SCHED_FEATURES" | grep -qx "$was" ||
		{ result "feature-$name" FAIL "restoring $was did not stick"; return; }
	result "feature-$name" ok "$was -> $other -> $was"
}

for f in ${LAB_FEATURES:-SIS_UTIL}; do
	flip_feature "$f"
done

before=$(cat "$SCHED_FEATURES")
if echo NO_SUCH_FEATURE_X >"$SCHED_FEATURES" 2>/dev/null; then
	result feature-garbage FAIL "an unknown name was accepted"
elif [ "$(cat "$SCHED_FEATURES")" != "$before" ]; then
	result feature-garbage FAIL "an unknown name changed the features"
else
	result feature-garbage ok "unknown name rejected, features unchanged"
fi

# a feature that refines SIS_NODE, switched on while SIS_NODE is off, says
# so once in the kernel log, and switched on with SIS_NODE on, says nothing
if tr ' ' '\n' <"$SCHED_FEATURES" | grep -qx NO_SIS_NODE_LIMIT &&
	tr ' ' '\n' <"$SCHED_FEATURES" | grep -qx NO_SIS_NODE; then
	n0=$(dmesg | grep -c 'SIS_NODE_LIMIT does nothing without SIS_NODE')
	echo SIS_NODE_LIMIT >"$SCHED_FEATURES"
	n1=$(dmesg | grep -c 'SIS_NODE_LIMIT does nothing without SIS_NODE')
	echo NO_SIS_NODE_LIMIT >"$SCHED_FEATURES"
	echo SIS_NODE >"$SCHED_FEATURES"
	echo SIS_NODE_LIMIT >"$SCHED_FEATURES"
	n2=$(dmesg | grep -c 'SIS_NODE_LIMIT does nothing without SIS_NODE')
	echo NO_SIS_NODE_LIMIT >"$SCHED_FEATURES"
	echo NO_SIS_NODE >"$SCHED_FEATURES"
	if [ $((n1 - n0)) = 1 ] && [ "$n2" = "$n1" ]; then
		result feature-alone ok "SIS_NODE_LIMIT without SIS_NODE: one log line; with it: none"
	else
		result feature-alone FAIL "log lines: $((n1 - n0)) without SIS_NODE (want 1), $((n2 - n1)) with it (want 0)"
	fi
fi
exit 0
