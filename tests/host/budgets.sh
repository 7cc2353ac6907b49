# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# budget_table: every section of tests/run.sh has a line in
# tests/budgets.txt; make check's sections with deps and room add up to
# at most 45 minutes warm and 70 cold, with room of at least 10 minutes
# warm;
# and a section run without a budget fails the summary, named in one line
budget_table() {
	local table=$top/tests/budgets.txt missing='' s sums out rc
	for s in $sections $full_sections; do
		awk -v s="$s" '!/^#/ && $1 == s { f = 1 } END { exit !f }' "$table" || missing="$missing $s"
	done
	sums=$(awk -v check=" $sections deps room " '!/^#/ && NF && index(check, " " $1 " ") {
		w += $2; c += $3; if ($1 == "room") r = $2 } END { print w + 0, c + 0, r + 0 }' "$table")
	# shellcheck disable=SC2086
	set -- $sums
	if [ -z "$missing" ] && [ "$1" -le 2700 ] && [ "$2" -le 4200 ] && [ "$3" -ge 600 ]; then
		ok "tests/budgets.txt: a budget for every section; make check's with deps and room: $1 s warm (at most 2700), $2 s cold (at most 4200), room $3 s (at least 600)"
	else
		notok "tests/budgets.txt: sections without a budget:${missing:- none}; make check's with deps and room: $1 s warm (at most 2700), $2 s cold (at most 4200), room $3 s (at least 600)"
	fi
	# the bad-input section run against a table without its line
	grep -v '^bad-input[[:space:]]' "$table" >"$tmp/budgets-nobad"
	rc=0
	out=$(LAB_OUT=$tmp/budget-out TEST_BUDGETS=$tmp/budgets-nobad "$top/tests/run.sh" bad-input 2>&1) || rc=$?
	if [ "$rc" != 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'no budget')" = 1 ] &&
		printf '%s\n' "$out" | grep -qx "FAILED  section bad-input has no budget in $tmp/budgets-nobad" &&
		printf '%s\n' "$out" | tail -n1 | grep -q '^[0-9]* passed, 1 failed$'; then
		ok "tests/run.sh: a section without a budget fails the run, in one line ($(printf '%s\n' "$out" | grep 'has no budget'))"
	else
		notok "tests/run.sh: a section without a budget: status $rc, $(printf '%s\n' "$out" | grep -i 'budget' | tr '\n' ' '), last line '$(printf '%s\n' "$out" | tail -n1)'"
	fi
}
