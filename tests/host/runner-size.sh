# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# runner_size: tests/run.sh only parses options and runs the sections
# (at most 400 lines); each section is a file of tests/sections/ and each
# host test one of tests/host/ (it once was 1591 lines holding them all)
runner_size() {
	local n s missing=''
	n=$(grep -c '' "$top/tests/run.sh")
	for s in $sections $full_sections; do
		[ -f "$top/tests/sections/$s.sh" ] || missing="$missing $s"
	done
	if [ "$n" -le 400 ] && [ -z "$missing" ]; then
		ok "tests/run.sh: $n lines (at most 400), every section in a file of tests/sections/"
	else
		notok "tests/run.sh: $n lines (at most 400), sections without a file of tests/sections/:${missing:- none}"
	fi
}
