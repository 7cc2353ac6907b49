# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# The guest tests' KTAP (guest/sis-lib.sh) as the host reads it
# (ktap_results): three scripts run here, one that reports from a
# subshell and exits, one that dies of a shell error (a failed result of
# its own), one killed half way, which leaves no plan.
ktap_harvest() {
	local k=$tmp/ktap got want
	mkdir -p "$k"
	cat >"$k/good-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		result one ok "a detail # with a hash"
		( result two FAIL "from a subshell" )
		result three ok
		exit 0
	EOT
	cat >"$k/error-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		result before ok
		x='1 2'
		echo \$((x + 1))
		result after ok
		exit 0
	EOT
	cat >"$k/dies-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		result first ok "before the end"
		kill -9 \$\$
	EOT
	{ sh "$k/good-test.sh"; sh "$k/error-test.sh" || true; sh "$k/dies-test.sh" || true; } >"$k/log" 2>&1
	got=$(ktap_results "$k/log" | tr '\n' '|')
	want="ok one a detail # with a hash|FAIL two from a subshell|ok three |ok before |FAIL error-test.sh the script exited with status 2|ok first before the end|FAIL dies-test.sh ended without its plan, after 1 results|"
	if [ "$got" = "$want" ] && grep -qx '# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:0 error:0' "$k/log"; then
		ok "KTAP: results in order, from subshells too, totals; a test that dies of a shell error or is killed half way is a failure ($(grep -c '' "$k/log") lines)"
	else
		notok "KTAP: got '$got', want '$want': $(tr '\n' '|' <"$k/log")"
	fi
}
