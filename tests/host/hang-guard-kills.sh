# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# hang_guard (tests/lib.sh), the driver tests' guard: a command still
# running at its limit is killed with what it runs, status 124, and the
# diagnosis names the processes that were still there
hang_guard_kills() {
	local rc=0 left= p
	hang_guard 1 "$tmp/guard" sh -c 'sleep 31; :' 2>/dev/null || rc=$?
	# the processes its diagnosis lists (after two header lines) are gone
	for p in $(awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $1 }' "$tmp/guard" 2>/dev/null); do
		[ -z "$({ tr -d '\0' <"/proc/$p/cmdline"; } 2>/dev/null)" ] || left="$left $p"
	done
	if [ "$rc" = 124 ] && [ "$(grep -c 'sleep 31' "$tmp/guard")" = 2 ] && [ -z "$left" ]; then
		ok "hang guard: killed at its limit, status 124, the process tree in its diagnosis ($(grep -c 'sleep 31' "$tmp/guard") lines)"
	else
		notok "hang guard: status $rc, still running:${left:- none}; diagnosis: $(head -n4 "$tmp/guard" 2>/dev/null | tr '\n' '|')"
	fi
}
