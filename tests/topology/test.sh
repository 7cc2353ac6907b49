# shellcheck shell=bash disable=SC2154 # $top, $tmp: tests/run.sh; PLAT_*: platform_load
# The platforms' topology without booting: host tests sourced by
# tests/run.sh (sec_host, tests/sections/host.sh), whose $top, $tmp, ok
# and notok they use, with scripts/lib.sh.  No timing.
#
# Fixtures: PLATFORM-SHAPE-npsN.txt, one for every platform of
# configs/platform/, shape (scaled, full, small) and NPS mode the platform
# has: its NUMA nodes, LLCs and SMT siblings as Linux cpulists and every
# CPU's APIC ID and llc_id, written from the part's published topology in
# Linux's numbering (each file's header says how), not from the lab's
# code.  tests/expect-topology.sh --cpus, which shares its computation
# with the boots' expectation, must give the same lines.

# topology_compare FIXTURE: expect-topology.sh --cpus for the fixture's
# platform, shape and NPS against the fixture; the differences in
# $tmp/topo.diff, fails on any
topology_compare() {
	local b=${1##*/} m r
	b=${b%.txt}
	m=${b%%-*} r=${b#*-}
	MODEL=$m SHAPE=${r%-nps*} NPS=${b##*-nps} "$top/tests/expect-topology.sh" --cpus 2>&1 |
		sort >"$tmp/topo.got"
	grep -v '^#' "$1" | sort | diff - "$tmp/topo.got" >"$tmp/topo.diff"
}

# topology_fake_qemu FILE VERSION MODEL...: a QEMU that only answers the
# lab's questions: its version, its CPU models (with x-force-features),
# the features TCG lacks (pcid, and x2apic before 8.1)
topology_fake_qemu() {
	local f=$1 v=$2
	shift 2
	cat >"$f" <<-EOT
		#!/bin/sh
		case "\$1" in
		--version) echo "QEMU emulator version $v (fake)"; exit 0 ;;
		-device)
			for m in $*; do
				[ "\$2" = "\$m-x86_64-cpu,help" ] || continue
				echo "\$m-x86_64-cpu options:"
				echo "  x-force-features=<bool>"
				exit 0
			done
			echo "'\${2%,help}' is not a valid device model name" >&2
			exit 1 ;;
		esac
		echo "warning: TCG doesn't support requested feature: CPUID.01H:ECX.pcid [bit 17]" >&2
		case "$v:\$*" in
		7.*x2apic*) echo "warning: TCG doesn't support requested feature: CPUID.01H:ECX.x2apic [bit 21]" >&2 ;;
		esac
	EOT
	chmod +x "$f"
}

topology_tests() {
	local d=$top/tests/topology p shape nps f n bad want got
	# every platform, shape and NPS mode against its fixture
	for p in $(platform_names); do
		n=0 bad=0
		for shape in scaled full small; do
			for nps in $(platform_load "$p"; echo "$PLAT_nps"); do
				f=$d/$p-$shape-nps$nps.txt
				if [ ! -f "$f" ]; then
					notok "topology: no fixture tests/topology/${f##*/} for $p $shape NPS$nps"
					bad=$((bad + 1))
				elif topology_compare "$f"; then
					n=$((n + 1))
				else
					notok "topology of $p $shape NPS$nps differs from tests/topology/${f##*/}: $(head -n4 "$tmp/topo.diff" | tr '\n' ' ')"
					bad=$((bad + 1))
				fi
			done
		done
		[ "$bad" != 0 ] ||
			ok "topology of $p: nodes, LLCs, SMT siblings, APIC IDs and llc_ids equal its $n fixtures (scaled, full, small x NPS $(platform_load "$p"; echo "$PLAT_nps"))"
	done
	for f in "$d"/*.txt; do
		p=${f##*/}
		[ -f "$LAB_PLATFORMS/${p%%-*}" ] ||
			notok "topology: tests/topology/$p names no platform of configs/platform/"
	done
	# the comparison fails on one wrong line: CPU 40's LLC of the full
	# Milan part given as 40-47,160-167 instead of 40-47,168-175
	sed 's/^LLC 40-47,168-175$/LLC 40-47,160-167/' "$d/milan-full-nps1.txt" >"$tmp/milan-full-nps1.txt"
	if ! cmp -s "$d/milan-full-nps1.txt" "$tmp/milan-full-nps1.txt" &&
		! topology_compare "$tmp/milan-full-nps1.txt" &&
		grep -qx '< LLC 40-47,160-167' "$tmp/topo.diff" && grep -qx '> LLC 40-47,168-175' "$tmp/topo.diff"; then
		ok "topology: a fixture with one wrong LLC line fails, naming it ($(grep '^[<>]' "$tmp/topo.diff" | tr '\n' ' '))"
	else
		notok "topology: a fixture with one wrong LLC line was not caught: $(head -n4 "$tmp/topo.diff" | tr '\n' ' ')"
	fi
	# the MMC level on Genoa (patch 0004): its NPS4 node holds 3 LLCs, an
	# odd count, so its one group is the node and takes the NODE level's
	# place; in NPS2 (6 LLCs) CPU 0's group is LLCs 0 and 1.  By hand, from
	# the fixtures' rule (scaled: 96 cores of 4 per LLC, siblings n+96)
	for want in "4 SMT:0,96 MC:0-3,96-99 MMC:0-11,96-107 NUMA:0-47,96-143 NUMA:0-191" \
		"2 SMT:0,96 MC:0-3,96-99 MMC:0-7,96-103 NODE:0-23,96-119 NUMA:0-47,96-143 NUMA:0-191"; do
		got=$(MODEL=genoa SHAPE=scaled NPS=${want%% *} "$top/tests/expect-topology.sh" --mmc |
			awk '$1 == "DOMAIN" && $2 == 0 { printf "%s%s:%s", sep, $4, $5; sep = " " }')
		if [ "$got" = "${want#* }" ]; then
			ok "MMC on genoa scaled NPS${want%% *}: CPU 0's domains $got"
		else
			notok "MMC on genoa scaled NPS${want%% *}: CPU 0's domains '$got', expected '${want#* }'"
		fi
	done
	# the -cpu argument each kind of platform gets (scripts/lib.sh
	# platform_cpu): the features TCG lacks switched off, topoext forced
	topology_fake_qemu "$tmp/qemu-10" 10.0.13 EPYC-Rome EPYC-Milan EPYC-Genoa Skylake-Server
	for want in "milan small EPYC-Milan,+topoext,-pcid,x-force-features=on" \
		"rome scaled EPYC-Rome,+topoext,+x2apic,-pcid,x-force-features=on" \
		"genoa small EPYC-Genoa,+topoext,-pcid,x-force-features=on" \
		"turin small EPYC-Genoa,+topoext,-pcid,x-force-features=on" \
		"intel full Skylake-Server,level=0xd"; do
		# shellcheck disable=SC2086
		set -- $want
		# shellcheck disable=SC2034 # shape_init reads them
		got=$( (MODEL=$1 SHAPE=$2 NPS=1; shape_init && platform_cpu "$tmp/qemu-10") 2>"$tmp/topo.err") || true
		if [ "$got" = "$3" ]; then
			ok "QEMU 10 -cpu of $1 $2: $got"
		else
			notok "QEMU 10 -cpu of $1 $2: '$got', expected '$3' $(head -n1 "$tmp/topo.err")"
		fi
	done
	# shellcheck disable=SC2034 # shape_init reads them
	got=$( (MODEL=turin SHAPE=small NPS=1; shape_init && platform_cpu "$tmp/qemu-10") 2>&1 >/dev/null) || true
	if [ "$(printf '%s\n' "$got" | wc -l)" = 1 ] &&
		printf '%s\n' "$got" | grep -q "has no EPYC-Turin CPU model: MODEL=turin runs EPYC-Genoa's CPUID in turin's shape"; then
		ok "turin on a QEMU without EPYC-Turin says so in one line: $got"
	else
		notok "turin on a QEMU without EPYC-Turin: '$got'"
	fi
	# a platform file that is not one: an unknown key, a missing key, a
	# word for a number, an NPS mode that cannot split its LLCs
	mkdir -p "$tmp/topo-platforms"
	grep -v '^#' "$top/configs/platform/milan" >"$tmp/topo-platforms/good"
	sed 's/^threads_per_core=/threads=/' "$tmp/topo-platforms/good" >"$tmp/topo-platforms/badkey"
	grep -v '^numbering=' "$tmp/topo-platforms/good" >"$tmp/topo-platforms/nokey"
	sed 's/^sockets=.*/sockets=two/' "$tmp/topo-platforms/good" >"$tmp/topo-platforms/word"
	sed 's/^llcs_per_socket=.*/llcs_per_socket=6/' "$tmp/topo-platforms/good" >"$tmp/topo-platforms/six"
	# shellcheck disable=SC2089,SC2090 # the quotes are the message's
	for want in "badkey 1 unknown key 'threads' in 'threads=2'" "nokey 1 no numbering= line" \
		"word 1 sockets must be a positive number, not 'two'" \
		"six 4 NPS4 cannot split the 6 LLCs of a six socket evenly" \
		"good 4 ^good$"; do
		# shellcheck disable=SC2086
		set -- $want
		p=$1
		# shellcheck disable=SC2034 # shape_init reads them
		got=$( (LAB_PLATFORMS=$tmp/topo-platforms MODEL=$1 NPS=$2; shape_init && echo "$MODEL") 2>&1) || true
		shift 2
		if [ "$(printf '%s\n' "$got" | wc -l)" = 1 ] && printf '%s\n' "$got" | grep -q -- "$*"; then
			ok "platform file $p: $got"
		else
			notok "platform file $p: got '$got', wanted one line matching '$*'"
		fi
	done
}
