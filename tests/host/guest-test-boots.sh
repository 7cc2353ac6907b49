# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# guest_test_boots: every guest test but lab-test.sh (run in every boot),
# cost-test.sh and locality-test.sh (the cost plugin's boots, which give
# them their arguments) names, in a "# lab-boot:" line,
# a kind of boot make check or check-full has (guest_tests) and NPS modes of 1, 2 and 4,
# so that adding a guest test is adding its file; each kind of boot gets a
# test in its default NPS mode
guest_test_boots() {
	local f bad='' k
	for f in "$top"/guest/tests/*.sh; do
		case ${f##*/} in lab-test.sh|cost-test.sh|locality-test.sh) continue ;; esac
		awk '/^# lab-boot: / { n++
				if ($3 !~ /^(scaled|mmc|isolcpus|small)$/) bad = 1
				for (i = 4; i <= NF; i++) if ($i !~ /^([124]|[A-Z_]+=.*)$/) bad = 1 }
			END { exit !(n && !bad) }' "$f" || bad="$bad ${f##*/}"
	done
	for k in "scaled 1" "scaled 2" "scaled 4" "mmc 1" "isolcpus 1" "small 4"; do
		# shellcheck disable=SC2086
		[ -n "$(guest_tests $k)" ] || bad="$bad (none for $k)"
	done
	if [ -z "$bad" ]; then
		ok "guest tests: each says where it runs (# lab-boot:), every kind of boot has some; scaled NPS1 runs: $(guest_tests scaled 1)"
	else
		notok "guest tests without a valid # lab-boot: line, or boots without tests:$bad"
	fi
}
