# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# bench-programs.sh on fixed input: fake commands, dpkg-query and git
bench_programs_record() {
	local b=$tmp/bp got want
	mkdir -p "$b/bin" "$b/tools"
	cat >"$b/meta" <<-'EOT'
		# bench|direction|statistic|case label|units|program
		one|higher|AMean|Case|u|deb fakebench fakebench -x
		two|higher|AMean|Case|u|deb fakebench fakebench -y
		three|higher|AMean|Case|u|deb no-such-bench-here
		four|higher|AMean|Case|u|deb netperf netperf TCP_RR
		five|higher|AMean|Case|u|lab sis-schbench sis-schbench, the lab's own
	EOT
	printf '#!/bin/sh\n' >"$b/bin/fakebench"
	cat >"$b/bin/dpkg-query" <<-'EOT'
		#!/bin/sh
		case $1 in
		-S) echo "diversion by other-pkg from: $2"; echo "fake-pkg:amd64, fake-pkg2: $2" ;;
		-W) printf 1.2-3 ;;
		esac
	EOT
	cat >"$b/bin/git" <<-'EOT'
		#!/bin/sh
		case " $* " in
		*" log "*) echo abc1234 ;;
		*" diff "*) exit 0 ;;
		esac
	EOT
	chmod +x "$b/bin/"*
	echo "netperf 2.7.0-0.1 (Debian bookworm non-free, netperf_2.7.0-0.1_amd64.deb)" >"$b/tools/netperf.version"
	got=$(PATH="$b/bin:$PATH" "$S/bench-programs.sh" --tools "$b/tools" --meta "$b/meta" 2>&1)
	want="fakebench|Debian fake-pkg 1.2-3
no-such-bench-here|not installed on this machine
netperf|netperf 2.7.0-0.1 (Debian bookworm non-free, netperf_2.7.0-0.1_amd64.deb)
sis-schbench|tools/sis-schbench.c at commit abc1234"
	if [ "$got" = "$want" ]; then
		ok "bench-programs.sh: Debian package and version, not installed, the fetched netperf's version file, the lab's own by commit ($(echo "$got" | tr '\n' ';'))"
	else
		notok "bench-programs.sh: got '$(echo "$got" | tr '\n' ';')', want '$(echo "$want" | tr '\n' ';')'"
	fi
	printf 'x|higher|AMean|Case|u|rpm foo\n' >"$b/bad-meta"
	expect_error "bench-programs: unknown program source" "is neither 'deb COMMAND' nor 'lab PROGRAM'" \
		"$S/bench-programs.sh" --meta "$b/bad-meta"
	# this machine: a line per program of the registry, the lab's
	# netperf from its tools
	got=$("$S/bench-programs.sh" --tools "$LAB_OUT/tools" 2>&1)
	want=$(awk -F'|' '!/^#/ && NF >= 6 { split($6, p, " "); print p[2] }' <(sh "$G/bench-registry.sh") | sort -u)
	if [ "$(echo "$got" | cut -d'|' -f1 | sort)" = "$want" ] && ! echo "$got" | grep -q '|$'; then
		ok "bench-programs.sh here: $(echo "$got" | tr '\n' ';')"
	else
		notok "bench-programs.sh here: got '$(echo "$got" | tr '\n' ';')' for programs $(echo "$want" | tr '\n' ' ')"
	fi
}
