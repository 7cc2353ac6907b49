#!/bin/bash
# Run the lab's tests: bad input, build, and boots on NPS1/2/4.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/tests/lib.sh"
. "$top/tests/cost/test.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [SECTION...]

Runs the named sections, in this order when none is named: bad-input,
host (benchmark programs' self-tests, report generator), patches
(checkpatch, every prefix built), build, configs (nonuma, up, sparse),
boots (needs the build), bench, mail.  Only when named: full (the
full 256-CPU shape, needs the build; make check-full).

Every boot uses the Milan model (MODEL, default milan) but the
TEST_INTEL_NPS ones (default "1"; the Intel model, scaled shape, topology
only).
Environment: TEST_NPS (default "1 2 4", scaled 128-CPU shape),
TEST_FULL_NPS (default "1 2 4"; NPS modes the full section boots in
the 256-CPU shape), TEST_SMALL_NPS (default "4"; NPS modes booted in the
64-CPU shape with one cycle of reliability-test.sh and sis-smt-test.sh,
"" for none),
TEST_FEATURES (sched features flipped in the guest; default SIS_UTIL and
the SCHED_FEAT(SIS_...) names the series adds),
TEST_BASE=0 (skip building and booting the base kernel, which every
scaled NPS mode compares with the patched kernel's domains),
TEST_MMC_NPS (default "1"; NPS modes booted with sched_mmc: MMC topology,
SIS_NODE_MMC, MMC groups across LLC hotplug, the difference to the base),
TEST_SPLIT=0 (skip the split_llc=2 sched_mmc boot),
TEST_ISOLCPUS=0 (skip the isolcpus=domain boot of the SIS_CORE mask tests),
TEST_BISECT=0 (skip building every prefix of the series),
TEST_BISECT_CONFIGS (configurations each prefix is built with, default
"qemu up"; the configs section builds the whole series with nonuma),
TEST_BOOT_TIMEOUT (default 1200: seconds a test boot may take before its
guest dumps its stacks and the boot fails), TEST_BOOT_LIMIT (default 400:
seconds it may take to reach user space; a full-shape boot that does
not is booted once more),
TEST_BENCH=0 (skip the bench smoke run), TEST_HANG=0 (skip the hung
guest boot), TEST_COST=0 (skip the cost plugin's boot and its scoreboard
job),
TEST_GUEST (guest test scripts run in the scaled boots, default
sis-test.sh sis-node-test.sh sis-core-test.sh, plus sis-short-test.sh in
NPS1 with sis-node-core-test.sh and sis-busy-test.sh, kselftest-test.sh in NPS2 and
sis-hotplug-test.sh in NPS4).
Ends with "N passed, N failed"; exits non-zero on any failure.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }

S=$top/scripts
G=$top/guest
logs=$LAB_OUT/logs
boot_timeout=${TEST_BOOT_TIMEOUT:-1200}
boot_limit=${TEST_BOOT_LIMIT:-400}
mkdir -p "$logs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bad input: one clear line each, no damage
sec_bad_input() {
	echo "== bad input"
	expect_error "unknown NPS" "unknown NPS '3'" "$S/boot.sh" --nps 3
	expect_error "boot: option without its value" "--nps needs a value" "$S/boot.sh" --nps
	expect_error "build: option without its value" "--tree needs a value" "$S/build.sh" --tree
	expect_error "mail: option without its value" "--version needs a value" "$S/mail.sh" --version
	expect_error "unknown shape" "unknown SHAPE 'big'" "$S/boot.sh" --shape big
	# make boot boots the configuration it built
	if make -s -n -C "$top" boot CONFIG=debug | grep -q 'build.sh debug) && scripts/boot.sh -v --kernel "$k"'; then
		ok "make boot CONFIG=debug boots the kernel build.sh built for debug"
	else
		notok "make boot CONFIG=debug does not boot the debug build: $(make -s -n -C "$top" boot CONFIG=debug | grep boot.sh)"
	fi
	# make boot hands CMD to the guest whole: a ";" in it ran the rest
	# on the host (stub build.sh and boot.sh, the prerequisites skipped)
	mkdir -p "$tmp/stub"
	printf '#!/bin/sh\necho bzImage\n' >"$tmp/stub/build.sh"
	printf '#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done; shift\necho "$#:$*"\n' >"$tmp/stub/boot.sh"
	chmod +x "$tmp/stub/build.sh" "$tmp/stub/boot.sh"
	got=$(make -s -C "$top" -o patch -o deps boot S="$tmp/stub" CMD="echo a; touch $tmp/stub/host" 2>&1)
	if [ "$got" = "1:echo a; touch $tmp/stub/host" ] && [ ! -e "$tmp/stub/host" ]; then
		ok "make boot CMD='a; b' gives the guest one command line, runs nothing on the host"
	else
		notok "make boot CMD='a; b': boot.sh got '$got'$([ ! -e "$tmp/stub/host" ] || echo ', and the host ran the rest')"
	fi
	expect_error "unknown model" "unknown MODEL 'epyc'" "$S/boot.sh" --model epyc
	expect_error "bench: unknown model" "unknown MODEL 'epyc'" env MODEL=epyc "$S/bench.sh"
	expect_error "missing tree" "KERNEL_SRC=$tmp/none: no such directory" \
		env KERNEL_SRC="$tmp/none" "$S/apply-patches.sh"
	mkdir -p "$tmp/fake/kernel/sched" "$tmp/fakepatches"
	printf 'all:\n' >"$tmp/fake/Makefile"
	printf 'int a;\n' >"$tmp/fake/kernel/sched/fair.c"
	cat >"$tmp/fakepatches/0001-broken.patch" <<-'EOT'
	--- a/kernel/sched/fair.c
	+++ b/kernel/sched/fair.c
	@@ -1 +1 @@
	-int b;
	+int c;
	EOT
	echo 0001-broken.patch >"$tmp/fakepatches/series"
	expect_error "broken patch" "error: 0001-broken.patch does not apply" \
		env KERNEL_SRC="$tmp/fake" LAB_PATCHES="$tmp/fakepatches" LAB_OUT="$tmp/out" \
		"$S/apply-patches.sh"
	expect_error "not a kernel tree" "does not look like a Linux source tree" \
		env KERNEL_SRC="$tmp/fakepatches" LAB_OUT="$tmp/out" "$S/apply-patches.sh"
	: >"$tmp/bzImage"
	expect_error "missing QEMU" "QEMU not found" \
		env QEMU="$tmp/no-qemu" "$S/boot.sh" --kernel "$tmp/bzImage"
	# a QEMU whose CPU models lack x-force-features (before QEMU 4.1)
	printf '#!/bin/sh\necho "EPYC-Milan-x86_64-cpu options:"\n' >"$tmp/old-qemu"
	chmod +x "$tmp/old-qemu"
	expect_error "QEMU without x-force-features" "has no EPYC-Milan CPU with the x-force-features property" \
		env QEMU="$tmp/old-qemu" "$S/boot.sh" --kernel "$tmp/bzImage"
	# the platforms (configs/platform/): an unknown one lists them; an NPS
	# mode a platform lacks, or a shape its QEMU cannot run, is refused
	expect_error "unknown model lists the platforms" "unknown MODEL 'epyc' (platforms: $(platform_names))" \
		"$S/boot.sh" --model epyc
	expect_error "NPS mode genoa lacks" "unknown NPS '3': genoa has NPS1, NPS2 and NPS4" \
		"$S/boot.sh" --model genoa --nps 3
	mkdir -p "$tmp/platforms"
	sed 's/^nps=.*/nps=1 2/' "$top/configs/platform/rome" >"$tmp/platforms/rome-nps2"
	expect_error "NPS mode a platform lacks" "unknown NPS '4': rome-nps2 has NPS1 and NPS2" \
		env LAB_PLATFORMS="$tmp/platforms" "$S/boot.sh" --model rome-nps2 --nps 4
	# bookworm's QEMU as the lab asks it: its version and its EPYC models
	cat >"$tmp/qemu-7.2" <<-'EOT'
	#!/bin/sh
	case "$1 $2" in
	--version*) echo "QEMU emulator version 7.2.0" ;;
	"-device EPYC-Rome-x86_64-cpu,help"|"-device EPYC-Milan-x86_64-cpu,help") echo "${2%,help} options:" ;;
	*) exit 1 ;;
	esac
	EOT
	chmod +x "$tmp/qemu-7.2"
	expect_error "genoa on QEMU 7.2" "(QEMU 7.2) has no EPYC-Genoa CPU model, which MODEL=genoa needs" \
		env QEMU="$tmp/qemu-7.2" "$S/boot.sh" --model genoa --kernel "$tmp/bzImage"
	expect_error "turin on QEMU 7.2" "has no EPYC-Turin or EPYC-Genoa CPU model, which MODEL=turin needs" \
		env QEMU="$tmp/qemu-7.2" "$S/boot.sh" --model turin --shape small --kernel "$tmp/bzImage"
	expect_error "256 CPUs on QEMU 7.2" "cannot run more than 255 CPUs under TCG: MODEL=rome SHAPE=scaled has 256" \
		env QEMU="$tmp/qemu-7.2" "$S/boot.sh" --model rome --kernel "$tmp/bzImage"
	expect_error "intel full on QEMU 7.2" "cannot run more than 255 CPUs under TCG: MODEL=intel SHAPE=full has 256" \
		env QEMU="$tmp/qemu-7.2" "$S/boot.sh" --model intel --shape full --kernel "$tmp/bzImage"
	expect_error "unknown config" "unknown configuration 'huge'" "$S/build.sh" huge
}

# the benchmark programs' outputs as the lab's parser (bench-guest.sh
# --parse) reads them; no timing is asserted, only that figures are found
host_bench_programs() {
	local bg=$top/guest/bench-guest.sh td=$top/tools/testdata t=$LAB_OUT/tools
	local got last n
	fig() { LAB_DIR=$top/guest sh "$bg" --parse "$@"; }
	# schbench: the final report, after interim ones (-i), gives the figures
	got="$(fig schbench rps "$td/schbench-interim.txt") $(fig schbench wakeup "$td/schbench-interim.txt") $(fig schbench request "$td/schbench-interim.txt")"
	if [ "$got" = "212.67 103 4003" ]; then
		ok "schbench parser: the final report's rps, wakeup and request p99 after two interim reports ($got)"
	else
		notok "schbench parser: got '$got' from $td/schbench-interim.txt, expected '212.67 103 4003'"
	fi
	head -n 40 "$td/schbench-interim.txt" >"$tmp/sch-cut"
	got="$(fig schbench rps "$tmp/sch-cut")$(fig schbench wakeup "$tmp/sch-cut")$(fig schbench request "$tmp/sch-cut")"
	if [ -z "$got" ]; then
		ok "schbench parser: a run cut off after its interim reports gives no figure"
	else
		notok "schbench parser: took '$got' from interim reports only"
	fi
	if "$t/sis-schbench" -m 1 -t 2 -r 3 -i 1 -n 1 -s 10 >"$tmp/sch-out" 2>"$tmp/sch-err"; then
		n=$(grep -c '^Wakeup Latencies' "$tmp/sch-err")
		last=$(awk '/^Wakeup/ { w = 1 } w && /\* 99\.0th:/ { v = $3; w = 0 } END { print v }' "$tmp/sch-err")
		got="$(fig schbench rps "$tmp/sch-err") $(fig schbench wakeup "$tmp/sch-err") $(fig schbench request "$tmp/sch-err")"
		if [ "$n" -ge 2 ] && [ ! -s "$tmp/sch-out" ] && grep -q '^current rps: ' "$tmp/sch-err" &&
			grep -q '^sched delay: message [0-9]* (usec) worker [0-9]* (usec)$' "$tmp/sch-err" &&
			echo "$got" | grep -Eq '^[0-9]+\.[0-9]+ [0-9]+ [0-9]+$' &&
			[ "$(echo "$got" | cut -d' ' -f2)" = "$last" ] && awk -v r="${got%% *}" 'BEGIN { exit !(r > 0) }'; then
			ok "sis-schbench -i 1: $n reports on stderr, the parser takes the final one (rps, wakeup p99, request p99: $got)"
		else
			notok "sis-schbench -i 1: $n reports, parsed '$got', last wakeup p99 '$last', stdout $(wc -c <"$tmp/sch-out") bytes"
		fi
	else
		notok "sis-schbench -r 3 -i 1 failed: $(tail -n1 "$tmp/sch-err")"
	fi
	# netperf: Debian's netperf and netserver run here, and a loopback
	# TCP_RR run of two clients on the server's own port, started as
	# bench-guest.sh starts them, gives a figure the parser reads
	if "$t/netperf" -V >"$tmp/npv" 2>&1 && "$t/netserver" -V >>"$tmp/npv" 2>&1 &&
		[ "$(grep -c '^Netperf version' "$tmp/npv")" = 2 ]; then
		ok "netperf -V, netserver -V: $(head -n1 "$tmp/npv"), from $(cat "$t/netperf.version")"
	else
		notok "netperf -V, netserver -V: $(tail -n1 "$tmp/npv")"
	fi
	local port=$((20000 + $$ % 10000)) srv i pids=
	"$t/netserver" -D -L 127.0.0.1 -p "$port" >"$tmp/netserver.log" 2>&1 &
	srv=$!
	sleep 1
	for i in 0 1; do
		"$t/netperf" -H 127.0.0.1 -p "$port" -t TCP_RR -l 1 -- -r 100 -k THROUGHPUT >"$tmp/np.$i" 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids || true
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	cat "$tmp"/np.[01] >"$tmp/np"
	got=$(fig netperf 2 "$tmp/np")
	if awk -v v="$got" 'BEGIN { exit !(v + 0 > 0) }' && [ -z "$(fig netperf 3 "$tmp/np")" ]; then
		ok "netperf TCP_RR on loopback, 2 clients: the parser reads $got transactions/s per client (and nothing when a client is missing)"
	else
		notok "netperf TCP_RR on loopback: parsed '$got' from: $(tr '\n' ' ' <"$tmp/np") $(tail -n1 "$tmp/netserver.log")"
	fi
	# stream: the barrier that ran is named, the four rates still parse
	for b in spin sleep; do
		if "$t/sis-stream" -n 100000 -t 3 -j 2 -b "$b" >"$tmp/stream" 2>&1; then
			got=$(for k in Copy Scale Add Triad; do fig stream "$k" "$tmp/stream"; done | grep -c '^[0-9][0-9.]*$')
			case $b in spin) want='^Barrier: spin-then-sleep' ;; sleep) want='^Barrier: sleep' ;; esac
			if [ "$got" = 4 ] && grep -q "$want" "$tmp/stream"; then
				ok "sis-stream -b $b: '$(grep '^Barrier:' "$tmp/stream")', the parser reads its 4 rates"
			else
				notok "sis-stream -b $b: $got rates parsed, barrier line '$(grep '^Barrier:' "$tmp/stream")'"
			fi
		else
			notok "sis-stream -b $b failed: $(tail -n1 "$tmp/stream")"
		fi
	done
	# the guest's programs: static but for sis-ubench, whose execl and spawn
	# run a dynamic binary as UnixBench's do; the initramfs holds the
	# libraries, and (as root) its sis-ubench runs on them in a chroot
	local out=$tmp/initramfs root=$tmp/initramfs/root dyn f l missing=
	mkdir -p "$root" "$LAB_OUT/dl"
	ln -s "$LAB_OUT/dl" "$out/dl"
	if LAB_OUT=$out LAB_TREE=$tmp/no-tree "$S/mkinitramfs.sh" "$out/i.cpio.gz" >/dev/null 2>"$out/log" &&
		(cd "$root" && zcat "$out/i.cpio.gz" | cpio -id --quiet 2>/dev/null); then
		dyn=$(for f in "$out"/tools-static/sis-*; do ldd "$f" >/dev/null 2>&1 && printf '%s ' "${f##*/}"; done)
		for f in sis-ubench netperf netserver; do
			for l in /usr/bin/$f $(ldd "$out/tools-static/$f" | awk '/=> \//{ print $3 } /^\t\//{ print $1 }'); do
				[ -e "$root$l" ] || missing="$missing $l"
			done
		done
		if [ "$dyn" = "sis-ubench " ] && [ -z "$missing" ]; then
			ok "initramfs: the lab's tools are static but for sis-ubench, which comes with its libraries, as do Debian's netperf and netserver"
		else
			notok "initramfs: dynamic tools '$dyn' (want sis-ubench only), missing:$missing"
		fi
		if [ "$(id -u)" != 0 ]; then
			ok "initramfs: the chroot run of its sis-ubench not tried (needs root)"
		elif unshare -m chroot "$root" /bin/sh -c 'mount -t proc proc /proc &&
				/usr/bin/sis-ubench -t 0.3 execl && /usr/bin/sis-ubench -t 0.3 spawn' >"$out/ub" 2>&1 &&
			got="$(fig unixbench <(grep ^Execl "$out/ub")) $(fig unixbench <(grep ^Process "$out/ub"))" &&
			awk -v a="${got% *}" -v b="${got#* }" 'BEGIN { exit !(a > 0 && b > 0) }'; then
			ok "initramfs: its dynamic sis-ubench runs execl and spawn on the copied libraries (lps: $got)"
		else
			notok "initramfs: sis-ubench in a chroot of it: $(tail -n2 "$out/ub" | tr '\n' ' ')"
		fi
		if [ "$(id -u)" = 0 ]; then
			if chroot "$root" /usr/bin/netperf -V >"$out/npv" 2>&1 &&
				chroot "$root" /usr/bin/netserver -V >>"$out/npv" 2>&1 &&
				[ "$(grep -c '^Netperf version' "$out/npv")" = 2 ]; then
				ok "initramfs: its netperf and netserver run on the copied libraries ($(head -n1 "$out/npv"))"
			else
				notok "initramfs: netperf -V in a chroot of it: $(tail -n2 "$out/npv" | tr '\n' ' ')"
			fi
		fi
	else
		notok "mkinitramfs.sh: $(tail -n2 "$out/log" | tr '\n' ' ')"
	fi
}

# refresh_refuses_edited_stack: refresh-patches.sh on a two-patch stack
# whose first patch was edited while applied must stop with one line and
# leave both patch files as they were (it once went on silently and
# refreshed the second patch against the edited tree)
refresh_refuses_edited_stack() {
	local r=$tmp/refresh rc=0
	rm -rf "$r"
	mkdir -p "$r/patches" "$r/tree"
	printf 'one\ntwo\nthree\n' >"$r/tree/f"
	printf -- '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n three\n' >"$r/patches/1.patch"
	printf -- '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n ONE\n two\n-three\n+THREE\n' >"$r/patches/2.patch"
	printf '1.patch\n2.patch\n' >"$r/patches/series"
	(cd "$r/tree" && QUILT_PATCHES=$r/patches QUILT_PC=.pc quilt push -aq >/dev/null)
	sed -i 's/^+ONE$/+One/' "$r/patches/1.patch"
	cp "$r/patches/1.patch" "$r/patches/2.patch" "$r/"
	LAB_OUT=$r LAB_PATCHES=$r/patches "$S/refresh-patches.sh" >/dev/null 2>"$r/err" || rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <"$r/err")" = 1 ] &&
		cmp -s "$r/1.patch" "$r/patches/1.patch" && cmp -s "$r/2.patch" "$r/patches/2.patch"; then
		ok "refresh-patches: a patch edited under the applied stack stops it, files untouched ($(cat "$r/err"))"
	else
		notok "refresh-patches: edited applied stack: status $rc, '$(head -c 200 "$r/err")', patches changed: $(cmp -s "$r/2.patch" "$r/patches/2.patch" && echo no || echo yes)"
	fi
}

# cover_letter_numbers: the cover letter's patch numbers match the series
# (patch N is its Nth line): the documentation and kselftest patches are
# where it says, and its feature table cites every patch before them (it
# once still said patch 15 for the documentation after a patch was added)
cover_letter_numbers() {
	local c=$top/Documentation/cover-letter.txt nd nk last pd pk
	nd=$(sed -n 's/^Patch \([0-9]*\) documents the features.*/\1/p' "$c")
	nk=$(sed -n 's/.*patch \([0-9]*\) adds a kselftest.*/\1/p' "$c")
	last=$(grep -o '(patch[es]* [0-9-]*)' "$c" | grep -o '[0-9]*)' | tr -d ')' | sort -n | tail -n1)
	pd=$(series_patches | sed -n "${nd:-0}p")
	pk=$(series_patches | sed -n "${nk:-0}p")
	case $pd:$pk in
	*-Documentation-*:*-selftests-*)
		if [ "$last" = $((nd - 1)) ]; then
			ok "cover letter: patch $nd is $pd, patch $nk is $pk, its table cites patches up to $last"
		else
			notok "cover letter: its table cites patches up to ${last:-none}, the documentation is patch $nd"
		fi ;;
	*) notok "cover letter: patch ${nd:-?} is '$pd' (want the documentation), patch ${nk:-?} is '$pk' (want the kselftest)" ;;
	esac
}

# sysrq_dump_asked FILE: FILE (a fake sysrq trigger) got what a guest
# writes for a hung run: loglevel 7 (the blocked-task lines are info level
# and the lab boots with loglevel=5), every CPU's stack, the blocked tasks,
# then the loglevel back (one digit)
sysrq_dump_asked() {
	case $(tr '\n' ' ' <"$1") in
	"7 l w "[0-9]" ") return 0 ;;
	*) return 1 ;;
	esac
}

# fake_sched DIR: a fake sched debugfs for the guest code run on this host
# (LAB_SCHED_DEBUGFS=DIR): a features file with SIS_UTIL on and two of
# the series' features off
fake_sched() {
	mkdir -p "$1"
	echo "SIS_UTIL NO_SIS_NODE NO_SIS_CORE" >"$1/features"
}

# the benchmark programs' self-tests and the report generator (host)
# The bench driver on this host with a fake tbench: a run that hangs, one
# that fails and one that prints tbench's 0 MB/s are each recorded as
# failed with their reason and no value; the hang is killed at the time
# limit after the sysrq requests for every CPU's stack and the blocked
# tasks; the driver ends with status 3.  A good run is recorded as ok.
bench_driver_failures() {
	local b=$tmp/bd kind want rc sched
	mkdir -p "$b/bin"
	cat >"$b/bin/tbench" <<-'EOT'
		#!/bin/sh
		case $FAKE in
		hang) exec sleep 600 ;;
		fail) echo "tbench: connection refused" >&2; exit 1 ;;
		zero) echo "Throughput 0 MB/sec  1 clients  1 procs  max_latency=0.000 ms" ;;
		nofig) echo "tbench: 1 clients started" ;;
		ok) echo "Throughput 123.5 MB/sec  1 clients  1 procs  max_latency=1.000 ms" ;;
		esac
	EOT
	printf '#!/bin/sh
exec sleep 600
' >"$b/bin/tbench_srv"
	chmod +x "$b/bin/tbench" "$b/bin/tbench_srv"
	fake_sched "$b/sched"
	# statistics for the run without a figure, whose reason must quote
	# tbench's last line, not the statistics' summary printed after it
	fake_sched "$b/sis-sched"
	mkdir -p "$b/sis-sched/sis"
	printf '%s\n' "calls 5" "scan_probes 7" >"$b/sis-sched/sis/stats"
	echo 0 >"$b/sis-sched/sis/enabled"
	echo 0 >"$b/sis-sched/sis/audit"
	for kind in hang fail zero nofig ok; do
		sched=$b/sched
		case $kind in
		hang) want="failed: hung: killed after 2 s" ;;
		fail) want="failed: exit status 1: tbench: connection refused" ;;
		zero) want="failed: tbench printed 0 MB/s" ;;
		nofig) want="failed: no figure in the output (tbench: 1 clients started)" sched=$b/sis-sched ;;
		ok) want="ok" ;;
		esac
		rm -rf "$b/out"
		mkdir -p "$b/out"
		printf '%s\n' variants=tip benches=tbench size=tiny rounds=1 verify=0 run_limit=2 \
			audit=0 netperf_port=12875 >"$b/out/bench.conf"
		: >"$b/sysrq"
		rc=0
		rm -f "$b/cost-marks"
		FAKE=$kind LAB_SCHED_DEBUGFS=$sched BENCH_SYSRQ=$b/sysrq LAB_DIR=$G OUT=$b/out \
			COST_MARKS=$b/cost-marks \
			PATH="$b/bin:$G:$PATH" hang_guard 1200 "$b/hung" sh "$G/bench-guest.sh" >"$b/log" 2>&1 || rc=$?
		[ "$rc" != 124 ] || sed 's/^/# /' "$b/hung"
		row=$(tail -n +2 "$b/out/results.csv" 2>/dev/null)
		case $kind:$rc:$row in
		hang:3:*",NA,"*",$want"*|fail:3:*",NA,"*",$want"*|zero:3:*",NA,"*",$want"*|nofig:3:*",NA,"*",$want"*|ok:0:*",1,run,123.5,"*",ok,0,1")
			if [ "$kind" != hang ] || sysrq_dump_asked "$b/sysrq"; then
				ok "bench driver: a run that does '$kind' is recorded as '$want' (status $rc)"
			else
				notok "bench driver: the hung run did not ask for sysrq 7, l, w and the old loglevel: $(tr '\n' ' ' <"$b/sysrq")"
			fi ;;
		*) notok "bench driver: '$kind': status $rc, row '$row', want '$want'" ;;
		esac
	done
	pkill -f "$b/bin/tbench_srv" 2>/dev/null || true
	# a run configuration that is not bench.sh's: one line, no run
	rm -rf "$b/out"
	mkdir -p "$b/out"
	printf '%s\n' variants=tip benches=tbench rounds=1 verify=0 netperf_port=12875 >"$b/out/bench.conf"
	expect_error "bench driver: a run configuration without its size" "has no size=" \
		env LAB_SCHED_DEBUGFS="$b/sched" LAB_DIR="$G" OUT="$b/out" sh "$G/bench-guest.sh"
}

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

# KNOBS in the bench driver on this host, with a fake sched debugfs and a
# fake tbench whose figure is the knob's value: each variant runs once per
# value, labelled VARIANT@NAME=VALUE, with the knob at that value during
# the run and at its old one afterwards; a knob the kernel lacks is refused
# with one line before any run, with nothing written and every knob as it
# was.  The SIS figures of a run: sis-stats.sh on a fake statistics
# directory, read back as the CSV's cells.
bench_knobs() {
	local b=$tmp/bk rc got want knob
	fake_sched "$b/sched"
	mkdir -p "$b/bin" "$b/sched/llc_balancing" "$b/sis"
	knob=$b/sched/llc_balancing/enabled
	echo 1 >"$knob"
	cat >"$b/bin/tbench" <<-'EOT'
		#!/bin/sh
		echo "Throughput 10$(cat "$KNOB") MB/sec  1 clients  1 procs  max_latency=1.000 ms"
	EOT
	printf '#!/bin/sh\nexec sleep 600\n' >"$b/bin/tbench_srv"
	chmod +x "$b/bin/tbench" "$b/bin/tbench_srv"
	run_knobs() {
		rm -rf "$b/out"
		mkdir -p "$b/out"
		printf '%s\n' variants=tip "knobs=$1" benches=tbench size=tiny rounds=1 verify=0 \
			audit=0 netperf_port=12875 >"$b/out/bench.conf"
		rc=0
		KNOB=$knob LAB_SCHED_DEBUGFS=$b/sched BENCH_SYSRQ=$b/sysrq LAB_DIR=$G OUT=$b/out \
			PATH="$b/bin:$G:$PATH" hang_guard 1200 "$b/hung" sh "$G/bench-guest.sh" >"$b/log" 2>&1 || rc=$?
		[ "$rc" != 124 ] || sed 's/^/# /' "$b/hung"
	}
	run_knobs llc_balancing=0,1
	got=$(csv_cols "$b/out/results.csv" variant value 2>/dev/null | tr ',\n' ': ')
	want="tip@llc_balancing=0:100 tip@llc_balancing=1:101 "
	if [ "$rc" = 0 ] && [ "$got" = "$want" ] && [ "$(cat "$knob")" = 1 ] &&
		grep -qx 'sched_cache: CONFIG_SCHED_CACHE=y, llc_balancing/enabled 1' "$b/out/system.txt"; then
		ok "bench KNOBS=llc_balancing=0,1: each run labelled and set (${got% }), the old value back after, CONFIG_SCHED_CACHE in system.txt"
	else
		notok "bench KNOBS=llc_balancing=0,1: status $rc, results '$got' (want '$want'), knob $(cat "$knob") after: $(tail -n1 "$b/log")"
	fi
	run_knobs "llc_balancing=0 no_such_knob=1"
	got=$(grep '^bench' "$b/log")
	want="bench-guest: error: this kernel has no sched knob no_such_knob (no $b/sched/no_such_knob)"
	if [ "$rc" = 2 ] && [ "$got" = "$want" ] && [ "$(cat "$b/out/refused")" = "${want#bench-guest: error: }" ] &&
		[ ! -e "$b/out/results.csv" ] && [ ! -e "$b/out/system.txt" ] && [ "$(cat "$knob")" = 1 ]; then
		ok "bench: a knob the kernel lacks is refused before any run, in one line, the other knob as it was ($got)"
	else
		notok "bench: a missing knob: status $rc, '$got', results $(cd "$b/out" 2>/dev/null && echo *), knob $(cat "$knob")"
	fi
	# sis-stats.sh's summary of a run, as bench-guest.sh records it
	printf '%s\n' calls scan_probes smt_probes node_probes llc_scans exit_target exit_prev \
		exit_recent smt_hits llc_idle_core llc_idle_cpu node_hits audit_checks audit_llc_miss \
		audit_node_miss short_taken core_busy node_scans | awk '{ print $1, 0 }' >"$b/sis/stats"
	paste -d' ' <(cut -d' ' -f1 "$b/sis/stats") <(printf '%s\n' 1000 2000 500 400 400 300 200 0 100 \
		100 100 75 1000 12 34 123 5 150) >"$b/sis/after"
	echo 0 >"$b/sis/enabled"
	echo 0 >"$b/sis/audit"
	SIS_DEBUGFS=$b/sis sh "$G/sis-stats.sh" --audit cp "$b/sis/after" "$b/sis/stats" >"$b/sis/out" 2>&1 || true
	got=$(LAB_DIR=$G sh "$G/bench-guest.sh" --parse sis "$b/sis/out")
	want=1000,2.50,87.5,1.2,3.4,12.3,5,150,2.67,50.0
	if [ "$got" = "$want" ]; then
		ok "bench: a run's SIS figures from sis-stats.sh --audit (wakeups, probes, idle hits, missed idle LLC and node, SIS_SHORT, SIS_CORE, SIS_NODE): $got"
	else
		notok "bench: SIS figures '$got', want '$want', from: $(tail -n4 "$b/sis/out" | tr '\n' ' ')"
	fi
}

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
	# this machine: a line per program of bench-meta.txt, the lab's
	# netperf from its tools
	got=$("$S/bench-programs.sh" --tools "$LAB_OUT/tools" 2>&1)
	want=$(awk -F'|' '!/^#/ && NF >= 6 { split($6, p, " "); print p[2] }' "$G/bench-meta.txt" | sort -u)
	if [ "$(echo "$got" | cut -d'|' -f1 | sort)" = "$want" ] && ! echo "$got" | grep -q '|$'; then
		ok "bench-programs.sh here: $(echo "$got" | tr '\n' ';')"
	else
		notok "bench-programs.sh here: got '$(echo "$got" | tr '\n' ';')' for programs $(echo "$want" | tr '\n' ' ')"
	fi
}

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

# A feature or tool the guest lacks is a skipped case with its reason,
# not a failure (sis-lib.sh require_feature, require_tool, on a fake
# features file without SIS_NODE_CORE), and the runner counts it as
# skipped (ktap_report), named above the closing "N passed, N failed"
ktap_skips() {
	local k=$tmp/ktap-skip got want counts last
	fake_sched "$k/sched"
	cat >"$k/feature-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		result before ok
		require_feature SIS_NODE SIS_NODE_CORE
		result after ok
		exit 0
	EOT
	cat >"$k/tool-test.sh" <<-EOT
		. "$G/sis-lib.sh"
		ktap_begin
		require_tool sh no-such-tool-here
		result after ok
		exit 0
	EOT
	{
		LAB_SCHED_DEBUGFS=$k/sched sh "$k/feature-test.sh"; echo "# status $?"
		LAB_SCHED_DEBUGFS=$k/sched sh "$k/tool-test.sh"; echo "# status $?"
	} >"$k/log" 2>&1
	got=$(ktap_results "$k/log" | tr '\n' '|')
	want="ok before |skip sis-node-core no SIS_NODE_CORE in $k/sched/features|skip no-such-tool-here no-such-tool-here is not installed here|"
	counts=$(PASS=0 FAIL=0 SKIP=0; ktap_report t "$k/log" >/dev/null; echo "$PASS $FAIL $SKIP")
	last=$(PASS=1 FAIL=0 SKIP=2; summary | tr '\n' '|')
	if [ "$got" = "$want" ] && [ "$counts" = "1 0 2" ] &&
		grep -qx "ok 2 sis-node-core # SKIP no SIS_NODE_CORE in $k/sched/features" "$k/log" &&
		grep -qx '# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0' "$k/log" &&
		[ "$(grep -cx '# status 0' "$k/log")" = 2 ] &&
		[ "$last" = "2 skipped (the 'skip' lines: a feature or tool missing here)|1 passed, 0 failed|" ]; then
		ok "KTAP: a missing feature or tool is '# SKIP' with its reason, counted as skipped, not failed ($(grep -c SKIP "$k/log") SKIP lines)"
	else
		notok "KTAP skip: got '$got' (want '$want'), counted '$counts' (want '1 0 2'), summary '$last': $(tr '\n' '|' <"$k/log" | cut -c1-400)"
	fi
}

# script_names_apart: no two programs of a folder of the lab whose names
# differ only in '-' against '_' or in their extension (bench-report.sh
# and bench_report.py did: which one is the command?)
script_names_apart() {
	local d same all=
	for d in scripts guest guest/tests tests tools; do
		same=$(find "$top/$d" -maxdepth 1 -type f -name '*.*' -printf '%f\n' | sort |
			awk -v d="$d" '{ k = $0; sub(/\.[^.]*$/, "", k); gsub(/[-_]/, "", k)
				if (k in n) print d "/" n[k] " and " d "/" $0; else n[k] = $0 }')
		all="$all${same:+ $same;}"
	done
	if [ -z "$all" ]; then
		ok "program names: none differs from another of its folder only by '-' or '_' or its extension"
	else
		notok "program names told apart only by '-', '_' or the extension:$all"
	fi
}

# readme_reference: README.md is a reference of at most 250 lines, and
# every file of the lab it names exists (a path under scripts/, guest/,
# tests/, tools/, configs/, patches/ or Documentation/, globs allowed, or a
# bare script name of those folders); placeholders (NAME) and the kernel's
# own files (tools/testing/, .rst, .pl) are not the lab's
readme_reference() {
	local r=$top/README.md n w missing=
	n=$(grep -c '' "$r")
	for w in $(grep -o '`[^` ]*`' "$r" | tr -d '`' | sort -u); do
		case $w in /*|tools/testing/*|*.rst|*.pl) continue ;; esac
		case ${w#*/} in *[A-Z]*) continue ;; esac
		case $w in
		scripts/*|guest/*|tests/*|tools/*|configs/*|patches/*|Documentation/*)
			# shellcheck disable=SC2086
			compgen -G "$top/${w%/}" >/dev/null || missing="$missing $w" ;;
		*.sh|*.py|*.awk)
			compgen -G "$top/scripts/$w" >/dev/null || compgen -G "$top/guest/$w" >/dev/null ||
				compgen -G "$top/guest/tests/$w" >/dev/null || compgen -G "$top/tests/$w" >/dev/null ||
				compgen -G "$top/tools/$w" >/dev/null || missing="$missing $w" ;;
		esac
	done
	if [ "$n" -le 250 ] && [ -z "$missing" ]; then
		ok "README.md: $n lines (at most 250), every file of the lab it names exists"
	else
		notok "README.md: $n lines (at most 250), names files that do not exist:${missing:- none}"
	fi
}

# The host section runs the guest code on this host (bench-guest.sh,
# score-guest.sh, sis-stats.sh, sis-lib.sh's helpers), each time with
# LAB_SCHED_DEBUGFS and the sysrq trigger pointed at fakes.  strace follows
# the whole section and every process it starts (trace_begin), and
# host_state_untouched fails on any system call that named the host's
# debugfs or sysrq trigger, whether the path exists here or not.

# trace_begin FILE: strace attached to this shell from now on, following
# every process it starts, each system call that names a file written to
# FILE; false, with the reason in FILE.err, when it cannot attach
trace_begin() {
	local i me=$BASHPID
	TRACER=
	command -v strace >/dev/null || { echo "strace is not installed" >"$1.err"; return 1; }
	strace -f -qq -e trace=%file,sethostname -o "$1" -p "$me" 2>"$1.err" &
	TRACER=$!
	for i in $(seq 100); do
		[ "$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$me/status")" != "$TRACER" ] || return 0
		kill -0 "$TRACER" 2>/dev/null || break
		sleep 0.1
	done
	kill "$TRACER" 2>/dev/null || true
	wait "$TRACER" 2>/dev/null || true
	[ -s "$1.err" ] || echo "strace did not attach within 10 s" >"$1.err"
	TRACER=
	return 1
}

# trace_end: strace detached
trace_end() {
	[ -n "${TRACER:-}" ] || return 0
	kill "$TRACER" 2>/dev/null || true
	wait "$TRACER" 2>/dev/null || true
	TRACER=
}

# host_state_untouched FILE: the system calls of the trace FILE that named
# the host's debugfs (/sys/kernel/debug: the sched features, the SIS
# statistics, the knobs) or its sysrq trigger, or set its host name (the
# guest's cost marker, guest/cost-mark.sh): none, or a failure
host_state_untouched() {
	local hits
	hits=$(grep -E '^[0-9]+ +[a-z0-9_]+\(([A-Z_]+|[0-9]+), "(/sys/kernel/debug|/proc/sysrq-trigger)|^[0-9]+ +[a-z0-9_]+\("(/sys/kernel/debug|/proc/sysrq-trigger)|^[0-9]+ +sethostname\(' "$1" || true)
	if [ -z "$hits" ]; then
		ok "host tests: no system call named the host's /sys/kernel/debug or /proc/sysrq-trigger or set its host name ($(grep -c '' "$1") calls traced)"
	else
		notok "host tests: $(echo "$hits" | wc -l) system calls named the host's kernel state, first: $(echo "$hits" | head -n3 | cut -c1-160 | tr '\n' '|')"
	fi
}

sec_host() {
	echo "== benchmark programs and report generator (host)"
	local traced=0
	if trace_begin "$tmp/host.trace"; then
		traced=1
	else
		skipped "host tests: strace cannot follow them, host kernel state not checked: $(head -n1 "$tmp/host.trace.err")"
	fi
	ktap_harvest
	ktap_skips
	script_names_apart
	readme_reference
	if make -s -C "$top/tools" O="$LAB_OUT/tools" check >"$logs/tools-check.log" 2>&1; then
		while read -r line; do
			ok "$line"
		done < <(grep 'self-test: ok' "$logs/tools-check.log")
	else
		notok "tools self-tests: $(tail -n1 "$logs/tools-check.log")"
	fi
	host_bench_programs
	bench_driver_failures
	refresh_refuses_edited_stack
	cover_letter_numbers
	# the scoreboard: its reader on fixed inputs, bad input, the guest driver
	. "$top/tests/score/test.sh"
	score_tests
	# sis-stats.sh on fixed counters: its KEY=VALUE figures, its summary,
	# under busybox as well, and their readers
	. "$top/tests/sis-stats/test.sh"
	sis_stats_tests
	# the cost plugin's reader on fixed inputs, and bad input
	cost_host_tests
	# the platforms' topology without booting, against fixtures
	. "$top/tests/topology/test.sh"
	topology_tests
	# the SIS_CORE naming of two racing scans (0011, 0012), every
	# interleaving: v2's loses a free core's name, v3's never does
	local model
	if model=$("$top/tests/model/sis-rename.py" 2>&1); then
		ok "naming model: $(echo "$model" | tr '\n' ';' | sed 's/;$//')"
	else
		notok "naming model: $(echo "$model" | tr '\n' ';' | sed 's/;$//')"
	fi
	# which boots are booted again (retry_splats): fixed guest logs, a soft
	# lockup or a warning outside the series' files alone (retry-*), with
	# another splat or none (no-retry-*)
	for f in "$top"/tests/splat/*.log; do
		case ${f##*/}:$(retry_splats "$f" && echo y) in
		retry-*:y) ok "boot retry rule: tests/splat/${f##*/} is booted again" ;;
		no-retry-*:) ok "boot retry rule: tests/splat/${f##*/} is not booted again" ;;
		*) notok "boot retry rule: wrong verdict on tests/splat/${f##*/}" ;;
		esac
	done
	# what boot.sh prints of a guest it stopped: fixed console logs
	for f in "$top"/tests/hang/*.log; do
		if "$S/hang-digest.sh" --map "$top/tests/hang/System.map" "$f" |
			diff "${f%.log}.want" - >"$tmp/diff"; then
			ok "hang digest: tests/hang/${f##*/} gives its .want"
		else
			notok "hang digest: tests/hang/${f##*/}: $(head -n3 "$tmp/diff" | tr '\n' ' ')"
		fi
	done
	# the stall check's verdict: busy.log's vCPUs wait on jiffies_lock (3
	# of 5), idle.log has no registers
	local b=0 i=0
	"$S/hang-digest.sh" --convoy --map "$top/tests/hang/System.map" "$top/tests/hang/busy.log" >/dev/null || b=$?
	"$S/hang-digest.sh" --convoy --map "$top/tests/hang/System.map" "$top/tests/hang/idle.log" >/dev/null || i=$?
	if [ "$b$i" = 01 ]; then
		ok "hang digest --convoy: the jiffies_lock convoy in tests/hang/busy.log, none in idle.log"
	else
		notok "hang digest --convoy: status $b on busy.log (want 0), $i on idle.log (want 1)"
	fi
	hang_guard_kills
	bench_knobs
	bench_programs_record
	# fixed inputs with known outputs: sign rule (lower-is-better baselines
	# print -0.00), CV, HMean and Median statistics, both significance tests,
	# [Verification Run] rows; results-by-name.csv holds the same results
	# with the columns in another order and a kind column (verify rows).
	# emulated/ is a QEMU TCG run with KNOBS=llc_balancing=0,1, every SIS
	# figure, a failed run, a base kernel without statistics and
	# programs.txt: the SIS decisions lead, the timings are marked emulated
	# (norm and old); host-knobs/ holds the same results from a machine
	# itself (--host): the timings lead, the SIS decisions follow
	rep=$top/tests/report
	while read -r name exp csv opts; do
		# shellcheck disable=SC2086
		if "$S/bench-report.sh" $opts "$rep/$csv" >"$tmp/rep" 2>&1 &&
			diff -u "$rep/expect-$exp.txt" "$tmp/rep" >"$tmp/rep.diff"; then
			ok "bench-report $name output equals tests/report/expect-$exp.txt"
		else
			notok "bench-report $name: $(head -n8 "$tmp/rep.diff" "$tmp/rep" | tr '\n' ' ')"
		fi
	done <<-EOT
	norm norm results.csv --format norm
	old old results.csv --format old
	norm-welch norm-welch results.csv --sig welch
	by-column-name norm results-by-name.csv --format norm
	by-column-name-old old results-by-name.csv --format old
	emulated emulated-norm emulated/results.csv --format norm
	emulated-old emulated-old emulated/results.csv --format old
	host-knobs host-knobs host-knobs/results.csv --format norm
	EOT
	if "$S/bench-report.sh" --format json "$rep/emulated/results.csv" | python3 -c '
import json, sys
d = {b["bench"]: b for b in json.load(sys.stdin)}
h = d["hackbench"]
assert h["base"] == "tip@llc_balancing=0" and h["timings"].startswith("emulated")
assert h["program"]["version"] == "Debian linux-perf 6.1.187-1"
r = [x for x in h["results"] if x["variant"] == "SIS_NODE@llc_balancing=1"][0]
assert r["knobs"] == {"llc_balancing": "1"} and r["marker"] == "*"
assert r["sis"]["missed_idle_node_pct"] == 2.2 and r["sis"]["node_hit_pct"] == 42.5
' 2>"$tmp/json.err"; then
		ok "bench-report json of the emulated run: base tip@llc_balancing=0, timings emulated, program versions, knobs and SIS figures per result"
	else
		notok "bench-report json of the emulated run: $(tail -n1 "$tmp/json.err")"
	fi
	if "$S/bench-report.sh" --format json "$rep/results.csv" |
		python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null; then
		ok "bench-report json output parses"
	else
		notok "bench-report json output is not valid"
	fi
	if [ "$("$S/bench-report.sh" --format json "$rep/results.csv" | grep -c '"marker": "\*"')" = 1 ]; then
		ok "bench-report marks exactly the one significant regression of the fixture"
	else
		notok "bench-report marks $("$S/bench-report.sh" --format json "$rep/results.csv" | grep -c '"marker": "\*"') regressions, expected 1"
	fi
	# the guest's pick of verification re-runs (mawk there, as here)
	for csv in results.csv results-by-name.csv; do
		outl=$(awk -f "$G/bench-stats.awk" -v mode=outliers "$G/bench-meta.txt" "$rep/$csv")
		if [ "$outl" = "hackbench:1 SIS_CORE" ]; then
			ok "outlier selection picks the regressed case of $csv for re-running ($outl)"
		else
			notok "outlier selection in $csv: got '$outl', expected 'hackbench:1 SIS_CORE'"
		fi
	done
	outl=$(awk -f "$G/bench-stats.awk" -v mode=outliers -v base=tip@llc_balancing=0 \
		"$G/bench-meta.txt" "$rep/emulated/results.csv" | tr '\n' ' ')
	if [ "$outl" = "hackbench:1 SIS_NODE@llc_balancing=0 hackbench:1 SIS_NODE@llc_balancing=1 " ]; then
		ok "outlier selection against tip@llc_balancing=0 picks what the report marks * (${outl% })"
	else
		notok "outlier selection against tip@llc_balancing=0: got '$outl'"
	fi
	expect_error "report: unknown format" "unknown format 'xml'" "$S/bench-report.sh" --format xml "$rep/results.csv"
	expect_error "report: option without its value" "--format needs a value" "$S/bench-report.sh" --format
	expect_error "report: not a results file" "is not a bench results file" "$S/bench-report.sh" "$rep/system.txt"
	expect_error "report: guest awk asked for a report" "only outliers runs here" \
		awk -f "$G/bench-stats.awk" -v mode=norm "$G/bench-meta.txt" "$rep/results.csv"
	expect_error "bench: bad ROUNDS" "ROUNDS must be a positive number" env ROUNDS=x "$S/bench.sh"
	expect_error "bench: unknown benchmark" "unknown benchmark 'foo' (rt-hackbench hackbench schbench" env BENCHES=foo "$S/bench.sh"
	expect_error "bench: bad RUN_LIMIT" "must be positive numbers, not 'soon'" env RUN_LIMIT=soon "$S/bench.sh"
	expect_error "bench: KNOBS without a value" "KNOBS: 'llc_balancing' is not NAME=VALUE" \
		env KNOBS=llc_balancing "$S/bench.sh"
	expect_error "bench: KNOBS with an empty value" "KNOBS: 'llc_balancing=0,,1' is not NAME=VALUE" \
		env KNOBS=llc_balancing=0,,1 "$S/bench.sh"
	expect_error "bench: a knob named twice" "KNOBS: llc_balancing is named twice" \
		env KNOBS="llc_balancing=0 llc_balancing=1" "$S/bench.sh"
	expect_error "bench: the features as a knob" "KNOBS: features is not a knob here" \
		env KNOBS=features=SIS_NODE "$S/bench.sh"
	trace_end
	[ "$traced" = 0 ] || host_state_untouched "$tmp/host.trace"
}

# checkpatch on every patch, every prefix built
sec_patches() {
	echo "== patches"
	tree=$LAB_OUT/tree
	if "$S/apply-patches.sh" --upto 0 >/dev/null 2>"$logs/patch.log"; then
		for p in $(series_patches); do
			# from the kernel tree: inside our git checkout checkpatch
			# takes diff context lines for its own repository's files
			out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --no-tree \
				"$top/patches/$p" 2>&1 | grep '^total:')
			case $out in
			"total: 0 errors, 0 warnings, 0 checks,"*) ok "checkpatch --strict: $p" ;;
			*) notok "checkpatch --strict: $p: $out" ;;
			esac
		done
	else
		notok "cannot prepare the tree: $(tail -n1 "$logs/patch.log")"
	fi
	if [ "${TEST_BISECT:-1}" = 1 ]; then
		# qemu; up: !SMP, hence also SCHED_SMT and NUMA off (nonuma,
		# CONFIG_NUMA=n with SMP, builds the whole series in sec_configs)
		cfgs=${TEST_BISECT_CONFIGS:-qemu up}
		# shellcheck disable=SC2086
		if "$S/bisect-build.sh" $cfgs 2>"$logs/bisect.err"; then
			ok "every prefix of the series builds with: $cfgs ($(grep -c ' build ' "$logs/bisect.err") steps, no warnings)"
		else
			notok "bisect build: $(tail -n1 "$logs/bisect.err")"
		fi
	fi
}

# the series applies and the kernel builds
sec_build() {
	echo "== build"
	if "$S/apply-patches.sh" >/dev/null 2>"$logs/patch.log"; then
		ok "patches/series applies ($(series_patches | wc -l) patches)"
	else
		notok "patches/series does not apply: $(tail -n1 "$logs/patch.log")"
		summary
		exit 1
	fi
	if "$S/build.sh" qemu >/dev/null 2>"$logs/build-qemu.log"; then
		ok "bzImage (qemu config) built"
	else
		notok "build failed: $(tail -n3 "$logs/build-qemu.log")"
		summary
		exit 1
	fi
	# the other fragments must at least configure (every option kept)
	for cfg in debug zen3; do
		if "$S/build.sh" --config-only "$cfg" >/dev/null 2>"$logs/config-$cfg.log"; then
			ok "the $cfg configuration keeps every option of its fragments"
		else
			notok "$cfg configuration: $(tail -n1 "$logs/config-$cfg.log")"
		fi
	done
}

# the other configurations and sparse
sec_configs() {
	echo "== other configurations and sparse"
	if "$S/build-configs.sh" nonuma up 2>"$logs/build-configs.err"; then
		while read -r line; do
			ok "${line#build-configs.sh: }"
		done <"$logs/build-configs.err"
	else
		notok "$(tail -n1 "$logs/build-configs.err")"
	fi
	if "$S/sparse-check.sh" 2>"$logs/sparse.err"; then
		ok "$(tail -n1 "$logs/sparse.err" | sed 's/^sparse-check.sh: //')"
	else
		notok "$(tail -n1 "$logs/sparse.err")"
	fi
}

# boot_check SHAPE NPS GUEST-TESTS [APPEND]: one boot of MODEL (default
# milan) running lab-test.sh and the given guest tests (NAME=VALUE words
# set their environment), with the extra kernel parameters APPEND, then
# topology, result and splat checks.  The MMC level is expected only with
# sched_mmc in APPEND.  The log is test-MODEL-SHAPE-npsN[-TAG].log, TAG
# made of APPEND.
boot_check() {
	local shape=$1 nps=$2 append=${4:-} model=${MODEL:-milan}
	local tag="$model $1 NPS$2${4:+ $4}"
	local log=$logs/test-$model-$1-nps$2${4:+-$(echo "$4" | tr ' =,' '_-_')}.log
	local feats=${TEST_FEATURES:-SIS_UTIL $(series_features)} rc=0 cmd t kinds want docs
	# LAB-TIME lines: the guest's uptime as each script starts and at the end
	local mark='echo "LAB-TIME: $(cut -d" " -f1 /proc/uptime)'
	cmd="$mark lab-test.sh\"; LAB_FEATURES='$feats' /lab/tests/lab-test.sh"
	for t in $3; do
		case $t in
		*=*) cmd="$cmd; export $t" ;;
		*) cmd="$cmd; $mark $t\"; /lab/tests/$t" ;;
		esac
	done
	cmd="$cmd; st=\$?; $mark end\"; exit \$st"
	local again=${SPLAT_LOG:+ (second boot; the first had a soft lockup or a warning outside the series alone: $SPLAT_LOG)}
	again=$again${EARLY_LOG:+ (second boot; the first never reached user space or stalled: $EARLY_LOG)}
	echo "== boot $tag$again"
	SHAPE=$shape NPS=$nps MODEL=$model "$S/boot.sh" --log "$log" ${append:+--append "$append"} \
		--timeout "$boot_timeout" --boot-limit "$boot_limit" -- "$cmd" 2>"$tmp/boot.err" || rc=$?
	# under TCG the full shape stops at boot in about half of its boots,
	# with every vCPU queued on one spinlock, the base kernel's as well,
	# and the small shape's 64 vCPUs did so once; the scaled shape's 128
	# did so on jiffies_lock after boot, in sis-node-core-test, and
	# boot.sh names that convoy "guest stalled" (results.md): a guest that
	# never reached user space or stalled so is booted once more, the
	# first boot's logs kept and its digest printed
	if [ "$rc" -ne 0 ] && [ -z "${EARLY_LOG:-}${SPLAT_LOG:-}" ] &&
		grep -Eq 'did not reach user space|guest stalled: ' "$tmp/boot.err"; then
		echo "# $tag: $(tail -n1 "$tmp/boot.err" | sed 's/^boot\.sh: error: //'); booting again"
		sed -n 's/^boot\.sh: hang: /# /p' "$tmp/boot.err"
		keep_first_boot "$log" early
		EARLY_LOG=$log.early boot_check "$@"
		return
	fi
	if [ "$rc" -ne 0 ] || ! grep -q '^LAB-EXIT: 0' "$log"; then
		notok "$tag: boot failed: $(tail -n1 "$tmp/boot.err")$again"
		sed -n 's/^boot\.sh: hang: /# /p' "$tmp/boot.err"
		return
	fi
	# every test script started: one KTAP document each, lab-test.sh's too
	want=1
	for t in $3; do
		case $t in *=*) ;; *) want=$((want + 1)) ;; esac
	done
	docs=$(tr -d '\r' <"$log" | grep -c '^KTAP version 1$' || true)
	# a soft lockup or a warning outside the series alone, every guest test
	# passed and printed its KTAP: boot again, keeping the first boot's
	# logs and printing its splat (retry_splats)
	if [ -z "${SPLAT_LOG:-}" ] && retry_splats "$log" && [ "$docs" = "$want" ] &&
		! ktap_results "$log" | grep -q '^FAIL'; then
		keep_first_boot "$log" splat
		echo "# $tag: $(splats "$log.splat" | head -n1 | tr -d '\r'), nothing else: booting again (first boot: $log.splat)"
		splat_text "$log.splat" | sed 's/^/#   /'
		SPLAT_LOG=$log.splat boot_check "$@"
		return
	fi
	ok "$tag: booted and ran the guest tests ($(grep -o 'LAB-BOOTED: [0-9]* cpus' "$log"), $(sed -n 's/.*guest finished in \([0-9]* s\).*/\1/p' "$tmp/boot.err"))$again"
	echo "# $tag: $(script_times "$log")"
	# the expectation does not model CPUs taken out of the domains
	case " $append " in *" isolcpus="*) kinds="NODE LLC X86 VENDOR" ;; *) kinds="DOMAIN NODE LLC X86 VENDOR" ;; esac
	sed -n '/^TOPO-BEGIN/,/^TOPO-END/p' "$log" | tr -d '\r' |
		grep -E '^(DOMAIN|NODE|LLC|X86|VENDOR) ' | sort >"$tmp/got"
	# shellcheck disable=SC2046
	SHAPE=$shape NPS=$nps MODEL=$model "$top/tests/expect-topology.sh" \
		$(case " $append " in *" sched_mmc "*) echo --mmc ;; esac) | sort >"$tmp/want"
	# X86: APIC IDs and the LLC IDs the x86 code derived (on milan from
	# AMD's CPUID 0x8000001D); VENDOR: the CPU vendor and topoext
	for kind in $kinds; do
		if diff <(grep "^$kind " "$tmp/want") <(grep "^$kind " "$tmp/got") \
			>"$tmp/diff"; then
			ok "$tag: $kind lines equal the Zen3 expectation ($(grep -c "^$kind " "$tmp/want"))"
		else
			notok "$tag: $kind lines differ: $(head -n4 "$tmp/diff" | tr '\n' ' ')"
		fi
	done
	ktap_report "$tag" "$log"
	[ "$docs" = "$want" ] ||
		notok "$tag: $docs of $want guest test scripts printed their KTAP (see $log)"
	if [ -n "$(splats "$log")" ]; then
		notok "$tag: kernel splat in $log: $(splats "$log" | head -n1)$again"
		splat_text "$log" | sed 's/^/#   /'
	else
		ok "$tag: no WARN/BUG/lockdep splat in the guest log"
	fi
}

# keep_first_boot LOG KIND: keep a boot's console log, QEMU output and
# register dump as LOG.KIND, LOG.KIND.qemu and LOG.KIND.regs before the
# boot is booted again
keep_first_boot() {
	local ext
	for ext in "" .qemu .regs .stack; do
		[ ! -f "$1$ext" ] || mv "$1$ext" "$1.$2$ext"
	done
}

# script_times LOG: seconds each guest script of a boot_check boot took,
# from its LAB-TIME lines
script_times() {
	tr -d '\r' <"$1" | awk '$1 == "LAB-TIME:" {
		if (name != "")
			s = s sprintf("%s%s %.0f s", s == "" ? "" : ", ", name, $2 - t)
		t = $2; name = $3
	} END { print (s == "" ? "no LAB-TIME lines" : "guest scripts took " s) }'
}

# dump_of LOG: the DOMAIN and PARAMS lines of the topology dump in LOG
dump_of() {
	sed -n '/^TOPO-BEGIN/,/^TOPO-END/p' "$1" | tr -d '\r' | grep -E '^(DOMAIN|PARAMS) ' | sort
}
# levels_of DUMP: CPU 0's levels bottom up, each with its imb_numa_nr
levels_of() {
	awk '$1 == "PARAMS" && $2 == 0 {
		v = "-"
		for (i = 5; i <= NF; i++) if ($i ~ /^imb_numa_nr=/) v = substr($i, 13)
		l[$3] = $4 "(imb_numa_nr " v ")"
	} END { for (i = 0; i in l; i++) printf "%s%s", i ? " " : "", l[i]; print "" }' "$1"
}
# dump_boot KERNEL SHAPE NPS APPEND LOG: boot KERNEL just to dump its topology
dump_boot() {
	SHAPE=$2 NPS=$3 MODEL=milan "$S/boot.sh" --kernel "$1" --log "$5" ${4:+--append "$4"} \
		-- 'echo TOPO-BEGIN; /lab/topo-dump.sh; echo TOPO-END' 2>"$tmp/boot.err" &&
		grep -q '^LAB-EXIT: 0' "$5"
}

# the guest boots: topology, guest tests, base comparison, MMC
sec_boots() {
	for nps in ${TEST_NPS-1 2 4}; do
		# slow tests under TCG run in one NPS mode each: CPU hotplug in NPS4,
		# the kselftest in NPS2, SIS_SHORT (it works inside the LLC) in NPS1
		extra=
		[ "$nps" != 1 ] || extra="sis-short-test.sh sis-node-core-test.sh sis-busy-test.sh"
		[ "$nps" != 4 ] || extra=sis-hotplug-test.sh
		[ "$nps" != 2 ] || extra=kselftest-test.sh
		boot_check scaled "$nps" "${TEST_GUEST-sis-test.sh sis-node-test.sh sis-core-test.sh $extra}"
	done
	# With every feature off and no opt-in, the patched kernel must build the
	# base kernel's domains: levels, names, spans, flags and every balancing
	# parameter.  The base carries only the series' first patch, which shows
	# imb_numa_nr in debugfs.
	base_kernel=
	if [ "${TEST_BASE:-1}" = 1 ]; then
		echo "== the base kernel, with every feature off"
		if base_kernel=$("$S/build-base.sh" 2>"$logs/build-base.log"); then
			ok "base kernel built (the series' first patch only)"
		else
			notok "base kernel: $(tail -n1 "$logs/build-base.log")"
			base_kernel=
		fi
	fi
	if [ -n "$base_kernel" ]; then
		for nps in ${TEST_NPS-1 2 4}; do
			blog=$logs/test-base-milan-scaled-nps$nps.log
			plog=$logs/test-milan-scaled-nps$nps.log
			if ! dump_boot "$base_kernel" scaled "$nps" "" "$blog"; then
				notok "base NPS$nps: boot failed: $(tail -n1 "$tmp/boot.err")"
				continue
			fi
			dump_of "$blog" >"$tmp/base-nps$nps"
			dump_of "$plog" >"$tmp/patched"
			if [ ! -s "$tmp/patched" ]; then
				notok "features off = base, NPS$nps: no dump of the patched kernel in $plog"
			elif diff "$tmp/base-nps$nps" "$tmp/patched" >"$tmp/diff"; then
				ok "features off = base, NPS$nps: same levels, names, spans, flags and balancing parameters ($(grep -c . "$tmp/patched") lines)"
			else
				notok "features off = base, NPS$nps: $(grep -c '^>' "$tmp/diff") lines differ; CPU 0 base: $(levels_of "$tmp/base-nps$nps"); patched: $(levels_of "$tmp/patched"); first: $(grep '^[<>]' "$tmp/diff" | head -n2 | tr '\n' ' ')"
			fi
		done
	fi

	# the cost plugin against known work, the patched kernel with every
	# feature off against the base in instructions, and one scoreboard job
	# with the plugin
	[ "${TEST_COST:-1}" = 0 ] ||
		cost_boot_tests "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" "$base_kernel"

	# The opt-in MMC level (sched_mmc): its topology, SIS_NODE_MMC bounded by
	# it, groups that stay when an LLC goes offline, and what it changes
	# against the base, named and measured
	for nps in ${TEST_MMC_NPS-1}; do
		boot_check scaled "$nps" "sis-node-test.sh mmc-test.sh" sched_mmc
		mlog=$logs/test-milan-scaled-nps$nps-sched_mmc.log
		if [ -s "$tmp/base-nps$nps" ] && [ -n "$(dump_of "$mlog")" ]; then
			dump_of "$mlog" >"$tmp/mmc"
			ok "sched_mmc NPS$nps against the base: CPU 0 base: $(levels_of "$tmp/base-nps$nps"); sched_mmc: $(levels_of "$tmp/mmc")"
		fi
	done

	# SIS_CORE's idle mask after wakeups of tasks that cannot use an idle
	# core (affinity, SCHED_IDLE, a core-scheduling cookie), and with
	# isolcpus=domain taking the second thread of LLC 1's second core (69
	# under milan) out of the domains; the masks on the paths that bypass
	# the run queue hooks (a wakeup's CPU replaced by select_task_rq(),
	# cpu.idle, domain rebuilds, that split core); schedstats=enable, as
	# the isolated CPU's schedules are counted in /proc/schedstat
	if [ "${TEST_ISOLCPUS:-1}" = 1 ]; then
		local iso
		iso=$(SHAPE=scaled NPS=1 && shape_init && linux_cpu $(((CORES + 1) * THREADS + 1)))
		boot_check scaled 1 "sis-core-idle-test.sh sis-core-exact-test.sh" "isolcpus=domain,$iso schedstats=enable"
	fi

	# split_llc=2 halves every LLC (same LLC ID): the MMC groups must keep
	# their spans equal or disjoint, or topology_span_sane() leaves every CPU
	# without domains
	if [ "${TEST_SPLIT:-1}" = 1 ]; then
		echo "== boot milan scaled NPS1 split_llc=2 sched_mmc"
		slog=$logs/test-milan-scaled-nps1-split_llc.log
		if dump_boot "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" scaled 1 "split_llc=2 sched_mmc" "$slog"; then
			dump_of "$slog" | grep '^DOMAIN' >"$tmp/split"
			n=$(awk '{ print $2 }' "$tmp/split" | sort -u | wc -l)
			mc=$(awk '$2 == 0 && $4 == "MC" { print $5 }' "$tmp/split")
			mcw=$(echo "$mc" | tr ',' '\n' | awk -F- 'NF { n += (NF > 1 ? $2 - $1 + 1 : 1) } END { print n + 0 }')
			# every MMC span, and whether two of them overlap without being equal
			bad=$(awk '$4 == "MMC" { s[$5] = 1 } END {
				for (a in s) { split(a, r, ","); for (i in r) { n = split(r[i], e, "-")
					for (c = e[1]; c <= e[n]; c++) { if (c in owner && owner[c] != a) print c; owner[c] = a } } } }' \
				"$tmp/split" | head -n1)
			if [ "$n" = 128 ] && [ "$mcw" = 4 ] && grep -q ' MMC ' "$tmp/split" &&
				[ -z "$bad" ] && [ -z "$(splats "$slog")" ]; then
				ok "split_llc=2 with MMC: all 128 CPUs have domains, CPU 0's MC is half an LLC ($mc), MMC spans equal or disjoint, no splat"
			else
				notok "split_llc=2 with MMC: $n CPUs with domains, CPU 0's MC ${mc:-none}, overlapping MMC at CPU ${bad:-none}, splat: $(splats "$slog" | head -n1)"
			fi
		else
			notok "split_llc=2 boot failed: $(tail -n1 "$tmp/boot.err")"
		fi
	fi
	# the Intel model, kept for comparison: topology and features
	for nps in ${TEST_INTEL_NPS-1}; do
		MODEL=intel boot_check scaled "$nps" ""
	done
	# the small shape make reliability boots, with one cycle of its faults
	# test on the plain kernel, and the SIS_CORE masks of a cpuset
	# partition across SMT off and on (every sibling offline and back: the
	# small shape has the fewest)
	for nps in ${TEST_SMALL_NPS-4}; do
		boot_check small "$nps" "CYCLES=1 reliability-test.sh sis-smt-test.sh"
	done
	# a guest that never finishes: boot.sh must fail and leave every CPU's
	# stack and the blocked tasks in the log (sysrq through the monitor)
	if [ "${TEST_HANG:-1}" = 1 ]; then
		echo "== a hung guest"
		hlog=$logs/test-hang.log
		# and whose silence (20 s) is no convoy: the stall check looks, a
		# minute apart at most, and lets it run
		if SHAPE=small NPS=1 "$S/boot.sh" --log "$hlog" --timeout 90 --stall 20 -- \
			'sleep 100000' 2>"$tmp/boot.err"; then
			notok "hung guest: boot.sh exited 0"
		elif grep -q 'did not finish within 90 s' "$tmp/boot.err" &&
			grep -q 'sysrq: Show backtrace of all active CPUs' "$hlog" &&
			grep -q 'sysrq: Show Blocked State' "$hlog" &&
			grep -q 'NMI backtrace for cpu' "$hlog" &&
			grep -q '^boot\.sh: hang: reached: LAB-BOOTED: 64 cpus' "$tmp/boot.err" &&
			grep -Eq '^boot\.sh: hang: cpus: [0-9]+ busy, [0-9]+ idling' "$tmp/boot.err" &&
			grep -q '^boot\.sh: hang: vcpus: 64 ([0-9]* in [a-z]' "$tmp/boot.err" &&
			[ "$(grep -c '^CPU#[0-9]* [0-9a-f]\{16\}' "$hlog.stack")" = 64 ]; then
			ok "hung guest: boot.sh failed after 90 s, all CPUs' stacks and the blocked tasks in the log, the vCPUs' registers in $hlog.regs and the tops of their stacks in $hlog.stack, their digest on stderr"
		else
			notok "hung guest: $(tail -n1 "$tmp/boot.err"); no sysrq output in $hlog, no digest ($(grep -c 'hang:' "$tmp/boot.err") lines) or not 64 stacks in $hlog.stack ($(grep -c '^CPU#[0-9]* [0-9a-f]' "$hlog.stack" 2>/dev/null))"
		fi
		# a guest that does not reach user space in time (here: 2 s)
		if SHAPE=small NPS=1 "$S/boot.sh" --log "$logs/test-held.log" --boot-limit 2 --timeout 90 -- \
			'true' 2>"$tmp/boot.err"; then
			notok "guest held at boot: boot.sh exited 0"
		elif grep -q 'did not reach user space within 2 s' "$tmp/boot.err" &&
			grep -q '^boot\.sh: hang: vcpus: 64 (' "$tmp/boot.err"; then
			ok "guest held at boot: boot.sh failed after its boot limit, with the vCPUs' digest ($(sed -n 's/^boot\.sh: hang: vcpus: //p' "$tmp/boot.err"))"
		else
			notok "guest held at boot: $(tail -n1 "$tmp/boot.err")"
		fi
	fi
}

# the real 2x64C/128T shape (make check-full, not make check): topology and
# features only.  256 vCPUs on two host cores: about half of its boots
# here stop before user space with every vCPU queued on one spinlock
# (jiffies_lock), the base kernel's as well (README), which a CI run
# cannot afford
sec_full() {
	for nps in ${TEST_FULL_NPS-1 2 4}; do
		boot_check full "$nps" ""
	done
}

# the bench pipeline at its smallest size
sec_bench() {
	# the benchmark pipeline end to end, at its smallest size: every benchmark
	# runs in the guest, results, reports, JSON and plots come out; the
	# numbers themselves are not checked.  KNOBS=llc_balancing=0 (one value:
	# no more runs) sets cache-aware scheduling's knob for every run
	d=
	if [ "${TEST_BENCH:-1}" = 1 ]; then
		echo "== bench smoke run (SIZE=tiny)"
		rc=0
		SIZE=tiny ROUNDS=2 VERIFY=1 VARIANTS="tip SIS_SHORT+SIS_CORE" KNOBS=llc_balancing=0 NPS=1 \
			"$S/bench.sh" --kernel "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" \
			>"$logs/bench-smoke.log" 2>&1 || rc=$?
		d=$(sed -n 's/^bench.sh: results in //p' "$logs/bench-smoke.log")
		# 3: some runs failed, which the report must then say first
		if [ "$rc" = 3 ] && [ "$(head -n1 "$d/report.txt")" = "MISSING RESULTS" ]; then
			ok "bench smoke: $(grep -c ',failed: ' "$d/results.csv") failed results, listed at the top of the report"
			rc=0
		fi
		if [ "$rc" = 0 ]; then
			for b in $(awk -F'|' '!/^#/ && NF { print $1 }' "$G/bench-meta.txt" | grep -v 'stream-100'); do
				n=$(csv_cols "$d/results.csv" bench kind value |
					awk -F, -v b="$b" '$1 == b && $2 == "run" && $3 ~ /^[0-9.]+$/' | wc -l)
				if [ "$n" -ge 4 ]; then
					ok "bench smoke: $b: $n numeric results, in the report: $(grep -c "^Test          : $b\$" "$d/report.txt")"
				else
					notok "bench smoke: $b: $n numeric results (want 4 at least), see $d"
				fi
			done
			# the unpatched base kernel, booted after the patched one
			nb=$(csv_cols "$d/results.csv" variant value |
				awk -F, '$1 == "base@llc_balancing=0" && $2 ~ /^[0-9.]+$/' | wc -l)
			if [ "$nb" -ge 1 ] && grep -q '^kernel of base: ' "$d/system.txt" &&
				grep -qw base "$d/report.txt"; then
				ok "bench smoke: the base kernel ran as variant base ($nb numeric results, in the report)"
			else
				notok "bench smoke: no base variant in $d ($nb numeric results)"
			fi
			for f in report.txt report-old.txt results.json system.txt programs.txt plots/hackbench.png; do
				if [ -s "$d/$f" ]; then ok "bench smoke: wrote $f"; else notok "bench smoke: no $f in $d"; fi
			done
			# emulated: the SIS decisions (with the audit's missed-idle
			# rates) lead, the timings follow, marked; the knob's runs
			# and cache-aware scheduling's state; the programs
			sis=$(grep -n '^o SIS Decisions$' "$d/report.txt" | cut -d: -f1)
			tim=$(grep -n '^o Timings under QEMU TCG emulation: plumbing only, not performance$' "$d/report.txt" | cut -d: -f1)
			if [ -n "$sis" ] && [ -n "$tim" ] && [ "$sis" -lt "$tim" ] &&
				grep -q '^   missed idle, LLC ' "$d/report.txt" &&
				grep -q '^Timings       : emulated (QEMU TCG)' "$d/report.txt"; then
				ok "bench smoke: the report leads with the SIS decisions (line $sis, missed-idle rates included), the emulated timings follow (line $tim)"
			else
				notok "bench smoke: SIS decisions at line '$sis', timings heading at line '$tim' of $d/report.txt"
			fi
			if grep -q '^sched_cache: CONFIG_SCHED_CACHE=y, llc_balancing/enabled ' "$d/system.txt" &&
				grep -q '^  - cache-aware scheduling: CONFIG_SCHED_CACHE=y' "$d/report.txt" &&
				[ "$(csv_cols "$d/results.csv" variant | grep -vc '@llc_balancing=0$')" = 0 ]; then
				ok "bench smoke: every run labelled @llc_balancing=0, cache-aware scheduling in the report ($(sed -n 's/^sched_cache: //p' "$d/system.txt"))"
			else
				notok "bench smoke: KNOBS=llc_balancing=0: $(grep sched_cache "$d/system.txt"), $(csv_cols "$d/results.csv" variant | sort -u | tr '\n' ' ')"
			fi
			# the SIS figures the guest's sis-stats.sh printed as KEY=VALUE
			# lines, read there by bench-guest.sh: numbers in every ok run
			# of the patched kernel (the base kernel has no statistics)
			sisbad=$(csv_cols "$d/results.csv" variant status wakeups probes_per_wakeup idle_hit_pct \
				missed_idle_llc_pct missed_idle_node_pct short_taken_pct core_busy node_scans |
				awk -F, '$1 !~ /^base/ && $2 == "ok" { n++; for (i = 3; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) { print; next } }
					END { if (!n) print "no ok run of the patched kernel" }' | head -n3 | tr '\n' ' ')
			if [ -z "$sisbad" ]; then
				ok "bench smoke: every ok run of the patched kernel has its SIS figures (wakeups to SIS_NODE scans) from the guest's KEY=VALUE lines"
			else
				notok "bench smoke: runs without SIS figures (variant, status, wakeups to node_scans): $sisbad"
			fi
			if grep -q '^o Programs$' "$d/report.txt" && grep -q '^  tbench: .*(Debian dbench ' "$d/report.txt"; then
				ok "bench smoke: the Programs block ($(grep '^  tbench: ' "$d/report.txt" | sed 's/^ *//'))"
			else
				notok "bench smoke: no Programs block in $d/report.txt"
			fi
		else
			notok "bench smoke run failed: $(tail -n2 "$logs/bench-smoke.log" | tr '\n' ' ')"
		fi
		# a guest killed before its end (a 600 s tbench run, a 180 s limit
		# for the whole boot): make bench must fail and say so
		# (with KNOBS=llc_balancing=0,1, which the guest must accept: every
		# value is written once before the first run).  The guest must
		# reach user space within the limit to record its kernel: at 60 s
		# one boot did not, its vCPUs in a stop_machine() and on
		# wq_mayday_lock (results.md); one that does not is run once more,
		# as boot_check boots again a guest stopped before user space
		local try
		for try in 1 2; do
			rc=0
			BASE=0 SHAPE=small SIZE=tiny RUNTIME=600 ROUNDS=1 VERIFY=0 VARIANTS=tip BENCHES=tbench NPS=1 \
				KNOBS=llc_balancing=0,1 BENCH_TIMEOUT=180 "$S/bench.sh" \
				--kernel "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" \
				>"$logs/bench-killed.log" 2>&1 || rc=$?
			# its own directory: $d stays the smoke run's, which make mail takes
			killed=$(sed -n 's/^bench.sh: results in //p' "$logs/bench-killed.log")
			grep -q 'LAB-BOOTED: ' "$killed/console.log" 2>/dev/null || [ "$try" = 2 ] || {
				echo "# bench: the killed run's guest never reached user space ($killed/console.log); running again"
				continue
			}
			break
		done
		if [ "$rc" != 0 ] && [ "$rc" != 3 ] && grep -q 'stopped early' "$logs/bench-killed.log" &&
			grep -qx 'knobs: llc_balancing=0,1' "$killed/system.txt" &&
			grep -q '^kernel: ' "$killed/system.txt"; then
			ok "bench: a guest ended by its time limit fails make bench (status $rc) and is reported (it took KNOBS=llc_balancing=0,1)"
		else
			notok "bench: a guest ended by its time limit: status $rc, $(tail -n1 "$logs/bench-killed.log")"
		fi
	fi
}

# mail_subject MAIL: its Subject: header, unfolded
mail_subject() {
	awk '/^Subject: / { s = $0; while ((getline l) > 0 && l ~ /^[ \t]/) s = s l; print s; exit }' "$1"
}

# make mail: one posting per topic of patches/topics, each with its
# send-email dry run
sec_mail() {
	echo "== mail"
	# the newest bench run has no report (it was killed, as the bench
	# section's last run is): mail takes the newest one that has, the
	# smoke run's ($d) when the bench section ran
	local incomplete tp out rc m t f bad want got n x86 a v line topics
	incomplete=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-zz-killed
	mkdir -p "$incomplete"

	# the topic mapping: every patch of the series in exactly one topic,
	# checked on the lab's files, then on copies with one patch left out,
	# one in two topics and one the series lacks (each must be refused)
	if out=$("$S/mail.sh" --check 2>&1); then
		ok "mail: ${out#mail.sh: }"
	else
		notok "mail: patches/topics: $out"
	fi
	tp=$tmp/topics
	mkdir -p "$tp"
	cp "$top/patches/series" "$tp/series"
	grep -v '^	sched-fair-Let-SIS_CORE-scans-correct-the-idle-mask$' "$top/patches/topics" >"$tp/topics"
	expect_error "mail: a patch in no topic" "0011-sched-fair-Let-SIS_CORE-scans-correct-the-idle-mask.patch (.*series) is in no topic" \
		env LAB_PATCHES="$tp" "$S/mail.sh" --check
	sed 's/^patches: x86-sched-Add-an-MMC-domain-pairing-neighbouring-LLCs$/& sched-debug-Show-imb_numa_nr-in-the-domain-directories/' \
		"$top/patches/topics" >"$tp/topics"
	expect_error "mail: a patch in two topics" "0000-sched-debug-Show-imb_numa_nr-in-the-domain-directories.patch is in two topics: imb and mmc" \
		env LAB_PATCHES="$tp" "$S/mail.sh" --check
	sed 's/^patches: x86-sched-Add-an-MMC-domain-pairing-neighbouring-LLCs$/& sched-fair-No-such-patch/' \
		"$top/patches/topics" >"$tp/topics"
	expect_error "mail: a topic naming a patch the series lacks" "topic mmc names the patch sched-fair-No-such-patch, which is not in" \
		env LAB_PATCHES="$tp" "$S/mail.sh" --check
	# an unknown TOPIC: one line, nothing written
	rc=0
	out=$("$S/mail.sh" --topic nope 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -q "error: unknown topic 'nope' (topics: " &&
		make -s -n -C "$top" mail TOPIC=nope | grep -q "mail.sh --topic 'nope'"; then
		ok "mail: make mail TOPIC=nope: one line ($out)"
	else
		notok "mail: unknown topic: status $rc, '$out'"
	fi

	# the base's identity: a clean git tree gives its HEAD, one with
	# changes not committed and a tree without git give none, in words
	local g sha b1 b2 b3
	g=$tmp/gitbase
	mkdir -p "$g/kernel/sched"
	printf 'all:\n' >"$g/Makefile"
	printf 'int a;\n' >"$g/kernel/sched/fair.c"
	git -C "$g" init -q
	git -C "$g" add -A
	git -C "$g" -c user.name=t -c user.email=t@example.org commit -q -m base
	sha=$(git -C "$g" rev-parse HEAD)
	b1=$(KERNEL_SRC=$g "$S/mail.sh" --base 2>&1)
	printf 'int b;\n' >>"$g/kernel/sched/fair.c"
	b2=$(KERNEL_SRC=$g "$S/mail.sh" --base 2>&1)
	rm -rf "$g/.git"
	b3=$(KERNEL_SRC=$g "$S/mail.sh" --base 2>&1)
	if [ "$b1" = "base-commit: $sha" ] &&
		[ "$b2" = "base-commit: none (KERNEL_SRC has changes not committed, no git commit: see Base above)" ] &&
		[ "$b3" = "base-commit: none (KERNEL_SRC is not a git tree, no git commit: see Base above)" ]; then
		ok "mail: base-commit is KERNEL_SRC's HEAD when it is a clean git tree, none with changes or without git"
	else
		notok "mail: base-commit lines: clean git '$b1' (want $sha), changed '$b2', no git '$b3'"
	fi

	# the series is signed off by a placeholder: mail.sh needs a person
	placeholder=$(sed -n 's/^From: //p' "$top/patches/$(series_patches | head -n1)" | head -n1)
	if git -C "$top" config --local --get user.name >/dev/null 2>&1; then
		ok "mail: no identity: not checked, this checkout sets its own user.name"
	else
		mkdir -p "$tmp/nohome"
		expect_error "mail: no git identity" "no git identity: .*the DCO needs a person" \
			env HOME="$tmp/nohome" XDG_CONFIG_HOME="$tmp/nohome" GIT_CONFIG_NOSYSTEM=1 \
			GIT_CONFIG_GLOBAL=/dev/null "$S/mail.sh" --rfc
	fi
	expect_error "mail: the placeholder as identity" "is the series' placeholder" \
		env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="${placeholder% <*}" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$(printf '%s' "${placeholder##*<}" | tr -d '>')" \
		"$S/mail.sh" --rfc
	sender="Lab Tester <lab.tester@example.org>"
	# a scoreboard run: the cover-letter table of the reader's fixture
	mkdir -p "$tmp/score"
	cp "$top/tests/score/expect-cover.txt" "$tmp/score/cover-letter.txt"
	expect_error "mail: a scoreboard directory without its table" "no cover-letter.txt in" \
		"$S/mail.sh" --score "$tmp"
	# as the sender
	as_sender() {
		env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="${sender% <*}" \
			GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=lab.tester@example.org "$@"
	}

	# one topic, RFC, version 3: only its directory
	if as_sender "$S/mail.sh" --topic imb --rfc --version 3 --score "$tmp/score" >"$logs/mail-imb.log" 2>&1; then
		m=$(tail -n1 "$logs/mail-imb.log")
		# (bench-report.txt beside the postings when a bench run has a report)
		if [ "$m" = "$LAB_OUT/mail/v3/imb" ] &&
			[ "$(ls "$LAB_OUT/mail/v3" | grep -vx bench-report.txt)" = imb ] &&
			grep -q '^Subject: \[RFC PATCH v3 0/1\] sched/debug: show imb_numa_nr' "$m/0000-cover-letter.patch" &&
			grep -q '^Subject: \[RFC PATCH v3 1/1\] ' "$m"/0001-*.patch; then
			ok "mail: TOPIC=imb --rfc --version 3 wrote $m alone, [RFC PATCH v3 0/1]"
		else
			notok "mail: TOPIC=imb --rfc --version 3: $m: $(ls "$LAB_OUT/mail/v3" | tr '\n' ' ')"
		fi
	else
		notok "make mail TOPIC=imb: $(tail -n1 "$logs/mail-imb.log")"
	fi
	rm -rf "$LAB_OUT/mail/v3"

	# every topic
	if ! as_sender "$S/mail.sh" --score "$tmp/score" >"$logs/mail.log" 2>&1; then
		notok "make mail: $(tail -n1 "$logs/mail.log")"
		rmdir "$incomplete"
		return
	fi
	m=$(tail -n1 "$logs/mail.log")
	v=${m##*/}
	while read -r line; do
		ok "${line#mail.sh: }"
	done < <(grep 'mails accepted' "$logs/mail.log")
	topics=$("$S/mail.sh" --list 2>/dev/null | cut -d: -f1 | tr '\n' ' ')
	# every patch of the series in exactly one posting
	want=$(series_patches | while read -r f; do sed -n 's/^Subject: \[PATCH\] //p' "$top/patches/$f" | head -n1; done | sort)
	got=$(for f in "$m"/*/0*.patch; do
		case $f in */0000-cover-letter.patch) continue ;; esac
		mail_subject "$f" | sed 's/^Subject: \[[^]]*\] //'
	done | sort)
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "mail: the $(echo "$want" | wc -l) patches of the series, each in exactly one posting ($topics)"
	else
		notok "mail: patches not posted exactly once: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -n3 | tr '\n' ' ')"
	fi
	# each cover letter: filled in, base-commit, the emulated-figures
	# marker, change-id, its prerequisites' patches
	bad=''
	for t in $topics; do
		f=$m/$t/0000-cover-letter.patch
		n=0
		for a in $("$S/mail.sh" --list 2>/dev/null | sed -n "s/^$t: .*(after \(.*\))\$/\1/p"); do
			n=$((n + $("$S/mail.sh" --list 2>/dev/null | sed -n "s/^$a: //p" | sed 's/(.*//' | wc -w)))
		done
		grep -q "^Subject: \[PATCH $v 0*0/" "$f" && ! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$f" &&
			grep -q '^base-commit: ' "$f" && grep -q '^change-id: ' "$f" &&
			grep -qxF 'Figures from make score (emulated: QEMU TCG, not hardware):' "$f" &&
			grep -q '^Not measured: ' "$f" && grep -q '^Changes since v1 ' "$f" &&
			[ "$(grep -c '^prerequisite-patch-id: [0-9a-f]\{40\}$' "$f")" = "$n" ] || bad="$bad $t"
	done
	if [ -z "$bad" ]; then
		ok "mail: every cover letter filled in, with base-commit, change-id, prerequisite patch-ids, changes since v1, the emulated-figures marker and what is not measured"
	else
		notok "mail: cover letter incomplete in:$bad"
	fi
	# the figures: the fixture's table, each topic's rows only
	f=$m/node/0000-cover-letter.patch
	if grep -qxF "$(sed -n 1p "$tmp/score/cover-letter.txt")" "$f" &&
		grep -qxF "$(grep '^NODE ' "$tmp/score/cover-letter.txt" | head -n1)" "$f" &&
		grep -qxF "$(grep '^tip ' "$tmp/score/cover-letter.txt" | head -n1)" "$f" &&
		! grep -q '^CORE ' "$f" && grep -q '^CORE ' "$m/core/0000-cover-letter.patch" &&
		! grep -q '^NODE ' "$m/core/0000-cover-letter.patch" &&
		grep -q '^None for this posting' "$m/imb/0000-cover-letter.patch"; then
		ok "mail: the scoreboard's table, marked emulated, with each posting's rows (node: tip and NODE; core: tip and CORE; imb: none)"
	else
		notok "mail: the scoreboard's rows in the cover letters of $m"
	fi
	if [ -z "$d" ]; then
		ok "mail: the bench report: not checked, the bench section did not run"
	elif [ "$(grep -m1 . "$m/bench-report.txt" 2>/dev/null)" = "$(grep -m1 . "$d/report.txt")" ] &&
		! grep -qF "$(grep -m1 '^SIS decisions' "$d/report.txt")" "$m"/*/0000-cover-letter.patch; then
		ok "mail: the newest bench report ($d), not the newer run killed before its report, beside the mails, not in them (emulated)"
	else
		notok "mail: $m/bench-report.txt is not the report of $d, or the emulated report is in a cover letter"
	fi
	# Link: tags, PeterZ for SIS_NODE, the x86 maintainers for MMC
	# (whatever get_maintainer.pl gives for arch/x86/kernel/smpboot.c)
	x86=$(cd "$LAB_OUT/mail-git" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		-f arch/x86/kernel/smpboot.c 2>/dev/null | sed 's/.*<\(.*\)>.*/\1/')
	bad=''
	for a in $x86; do
		grep -qF "$a" "$m/mmc/to" "$m/mmc/cc" || bad="$bad $a"
	done
	if grep -q '^Link:' "$m"/node/*-Search-the-other-LLCs-of-the-node*.patch &&
		grep -q 'peterz@infradead.org' "$m/node/to" &&
		printf '%s\n' "$x86" | grep -qx 'x86@kernel.org' && [ -z "$bad" ]; then
		ok "mail: Link: tags kept, PeterZ in node's To, mmc's To/Cc has all $(echo "$x86" | wc -l) of smpboot.c's (x86@kernel.org among them)"
	else
		notok "mail: Link: tags, PeterZ or the x86 maintainers missing (smpboot.c gives: $(echo "$x86" | tr '\n' ' '); not in mmc's To/Cc:$bad)"
	fi
	# the statistics patch: posted with core, last, as [RFC PATCH]
	f=$(ls "$m"/core/0*.patch | tail -n1)
	if mail_subject "$f" | grep -q "^Subject: \[RFC PATCH $v \([0-9]*\)/\1\] sched/fair: Add select_idle_sibling() statistics" &&
		[ "$(grep -l '^Subject: \[RFC ' "$m"/*/0*.patch | wc -l)" = 1 ]; then
		ok "mail: the statistics patch is core's last mail, the only [RFC PATCH] ($(mail_subject "$f"))"
	else
		notok "mail: the statistics patch is not core's last mail as [RFC PATCH]: $(mail_subject "$f")"
	fi
	bad=''
	for f in "$m"/*/0*.patch; do
		if grep -qF "$placeholder" "$f" || ! grep -qxF "From: $sender" "$f"; then
			bad="$bad ${f#"$m"/}"
		elif [ "${f##*/0000-}" = "${f##*/}" ] && ! grep -qxF "Signed-off-by: $sender" "$f"; then
			bad="$bad ${f#"$m"/}"
		fi
	done
	if [ -z "$bad" ]; then
		ok "mail: every mail is from and signed off by the sender, no placeholder left"
	else
		notok "mail: placeholder or no sender sign-off in:$bad"
	fi
	rmdir "$incomplete"
}

sections="bad-input host patches build configs boots bench mail"
for s in "$@"; do
	case " $sections full " in
	*" $s "*) ;;
	*) echo "run.sh: error: unknown section '$s' ($sections full)" >&2; exit 2 ;;
	esac
done
d=
for s in ${*:-$sections}; do
	t0=$(date +%s)
	"sec_$(echo "$s" | tr - _)"
	echo "== section $s: $(($(date +%s) - t0)) s"
done
summary
