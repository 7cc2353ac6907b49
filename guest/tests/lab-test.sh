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
		result "feature-$name" FAIL "not in $F"
		return
	fi
	if [ "$was" = "$name" ]; then other="NO_$name"; else other=$name; fi
	echo "$other" >"$F" && tr ' ' '\n' <"$F" | grep -qx "$other" ||
		{ result "feature-$name" FAIL "writing $other did not stick"; return; }
	echo "$was" >"$F" && tr ' ' '\n' <"$F" | grep -qx "$was" ||
		{ result "feature-$name" FAIL "restoring $was did not stick"; return; }
	result "feature-$name" ok "$was -> $other -> $was"
}

for f in ${LAB_FEATURES:-SIS_UTIL}; do
	flip_feature "$f"
done

before=$(cat "$F")
if echo NO_SUCH_FEATURE_X >"$F" 2>/dev/null; then
	result feature-garbage FAIL "an unknown name was accepted"
elif [ "$(cat "$F")" != "$before" ]; then
	result feature-garbage FAIL "an unknown name changed the features"
else
	result feature-garbage ok "unknown name rejected, features unchanged"
fi
exit 0
