# shellcheck shell=bash
# The cost plugin's tests, sourced by tests/run.sh, whose $top, $S, $tmp,
# $logs, ok, notok and expect_error they use.  No timing.
#
# Fixtures: fixture.out, the plugin's reports at two marks and exit, with
# known differences between marks 0 and 1 (checked by hand): 100
# select_task_rq_fair calls, 20 of them for forks (wake_up_new_task), so
# 80 wakeups; placement 10000 + 30000 instructions (select_task_rq_fair,
# select_idle_cpu), upkeep 5000 (sis_core_rq_freed), all of kernel/sched
# 120200; line transfers 20 + 40 + 30 in placement and upkeep, 100 in
# all.  So per wakeup: placement 500.0, upkeep 62.5, both 562.5, sched
# 1502.5, transfers 1.125 and 1.250; per unit of a 2000-message job 60.1
# (expect-show.txt, expect-rows.csv); in the results document's table
# (expect-markdown.txt) placement plus upkeep shows as 562 (half to even).

# cost_host_tests: the reader on the fixtures, and bad input
cost_host_tests() {
	local d=$top/tests/cost f q
	if "$S/sis_cost.py" show "$d/fixture.out" 0 1 --top 3 >"$tmp/cost.show" 2>&1 &&
		diff -u "$d/expect-show.txt" "$tmp/cost.show" >"$tmp/cost.diff"; then
		ok "sis_cost.py show on tests/cost/fixture.out equals expect-show.txt"
	else
		notok "sis_cost.py show: $(head -n8 "$tmp/cost.diff" "$tmp/cost.show" | tr '\n' ' ')"
	fi
	# groups: each ok row's code paths per wakeup, from the output of its
	# boot beside the CSV (the fixture's placement: 40000 instructions, 60
	# transfers, 80 wakeups); a boot without one is one error line
	mkdir -p "$tmp/cost-groups"
	cp "$d/rows.csv" "$tmp/cost-groups/score.csv"
	cp "$d/fixture.out" "$tmp/cost-groups/cost-nps1-boot1.out"
	local ge gs=0
	ge=$("$S/sis_cost.py" groups "$tmp/cost-groups/score.csv" 2>&1 >/dev/null) || gs=$?
	cp "$d/fixture.out" "$tmp/cost-groups/cost-nps1-boot2.out"
	if [ "$gs" = 1 ] && [[ $ge == "sis_cost.py: error: no plugin output "*"cost-nps1-boot2.out for the rows of NPS1 boot 2" ]] &&
		"$S/sis_cost.py" groups "$tmp/cost-groups/score.csv" >"$tmp/cost-groups/out.csv" 2>&1 &&
		[ "$(grep -c ',placement,500.0,0.750,0.000$' "$tmp/cost-groups/out.csv")" = 2 ] &&
		[ "$(grep -c ',2,1,' "$tmp/cost-groups/out.csv")" = 0 ]; then
		ok "sis_cost.py groups: each ok row's code paths per wakeup (placement 500.0 instructions, 0.750 transfers), the failed row left out, a boot without output one error line"
	else
		notok "sis_cost.py groups: status $gs ($ge), then $(head -n3 "$tmp/cost-groups/out.csv" | tr '\n' ' ')"
	fi
	# attach: the rows of NPS1 boot 1 get figures, a failed row NA, a row
	# of another boot is left NA
	cp "$d/rows.csv" "$tmp/cost-rows.csv"
	if "$S/sis_cost.py" attach --only nps=1 --only boot=1 "$tmp/cost-rows.csv" "$d/fixture.out" 2>"$tmp/cost.err" &&
		diff -u "$d/expect-rows.csv" "$tmp/cost-rows.csv" >"$tmp/cost.diff"; then
		ok "sis_cost.py attach adds the hand-checked figures to tests/cost/rows.csv"
	else
		notok "sis_cost.py attach: $(head -n6 "$tmp/cost.diff" "$tmp/cost.err" | tr '\n' ' ')"
	fi
	# a second boot's rows, appended short after the first attach (the
	# bench's base kernel boot, variant base@KNOB=VALUE): matched by a glob,
	# given their figures, no empty cell left
	cp "$d/expect-rows.csv" "$tmp/cost-rows.csv"
	echo "1,base@llc_balancing=0,hackbench,1/4,1,3,32,hackbench -p -g 1 -f 16 -l 10,NA,NA,NA,NA,NA,NA,NA,NA,2000,0,1,3,ok" \
		>>"$tmp/cost-rows.csv"
	if "$S/sis_cost.py" attach --only 'variant=base*' "$tmp/cost-rows.csv" "$d/fixture.out" 2>"$tmp/cost.err" &&
		[ "$(tail -n1 "$tmp/cost-rows.csv" | cut -d, -f22-)" = "500.0,62.5,562.5,1502.5,60.1,1.125,1.250,NA,NA,NA,NA" ] &&
		! grep -q ',,' "$tmp/cost-rows.csv"; then
		ok "sis_cost.py attach: rows appended after an earlier attach, selected by a glob, get their figures"
	else
		notok "sis_cost.py attach of appended rows: $(tail -n1 "$tmp/cost-rows.csv") $(cat "$tmp/cost.err")"
	fi
	# a boot without the plugin: every cost column NA, never 0
	cp "$d/rows.csv" "$tmp/cost-rows.csv"
	if "$S/sis_cost.py" attach --only nps=1 --only boot=1 "$tmp/cost-rows.csv" "$tmp/no-such.out" 2>"$tmp/cost.err" &&
		[ "$(sed -n 2p "$tmp/cost-rows.csv" | cut -d, -f22-)" = "NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA" ]; then
		ok "sis_cost.py attach without the plugin's output: the cost columns are NA"
	else
		notok "sis_cost.py attach without output: $(sed -n 2p "$tmp/cost-rows.csv") $(cat "$tmp/cost.err")"
	fi
	# the scoreboard's report and cover table with the cost columns (the
	# rows above as a score run's results): the hand-checked figures
	mkdir -p "$tmp/cost-score"
	cp "$d/expect-rows.csv" "$tmp/cost-score/score.csv"
	cp "$d/score.conf" "$tmp/cost-score/"
	for f in report cover markdown; do
		if "$S/score_report.py" --format "$f" "$tmp/cost-score/score.csv" >"$tmp/cost.$f" 2>&1 &&
			diff -u "$d/expect-$f.txt" "$tmp/cost.$f" >"$tmp/cost.diff"; then
			ok "score_report $f with the cost columns equals tests/cost/expect-$f.txt"
		else
			notok "score_report $f with the cost columns: $(head -n8 "$tmp/cost.diff" | tr '\n' ' ')"
		fi
	done
	if "$S/score_report.py" --plot "$tmp/cost-score/p" "$tmp/cost-score/score.csv" >/dev/null 2>&1 &&
		grep -qx '562.5000 2.5000 0.60 1/4' "$tmp/cost-score/p/frontier-nps1.dat"; then
		ok "score_report --plot: the frontier sets placement + upkeep instructions per wakeup (562.5) against node missed-idle"
	else
		notok "score_report --plot with the cost columns: $(sed -n 2p "$tmp/cost-score/p/frontier-nps1.dat" 2>/dev/null)"
	fi
	# the bench report's SIS decisions with the cost columns: the emulated
	# bench fixture with constant cost figures added to every row shows
	# them, every variant's mean being that constant
	mkdir -p "$tmp/cost-bench"
	cp "$top"/tests/report/emulated/*.txt "$tmp/cost-bench/"
	awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "place_ipw,upkeep_ipw,sched_ipw,pu_xpw"; next }
		{ print $0, "700.0,150.0,26000.0,8.400" }' "$top/tests/report/emulated/results.csv" \
		>"$tmp/cost-bench/results.csv"
	"$S/bench-report.sh" "$tmp/cost-bench/results.csv" >"$tmp/cost-bench.txt" 2>&1 || true
	if grep -Eq '^   placement instructions per wakeup( +700){5}$' "$tmp/cost-bench.txt" &&
		grep -Eq '^   mask upkeep instructions per wakeup( +150){5}$' "$tmp/cost-bench.txt" &&
		grep -Eq '^   kernel/sched instructions per wakeup( +26000){5}$' "$tmp/cost-bench.txt" &&
		grep -Eq '^   line transfers per wakeup( +8\.40){5}$' "$tmp/cost-bench.txt" &&
		grep -q 'With the sis-cost TCG plugin' "$tmp/cost-bench.txt"; then
		ok "bench report: the cost figures in the SIS decisions, with their legend"
	else
		notok "bench report: no cost rows in the SIS decisions: $(grep -m2 -e instructions -e error "$tmp/cost-bench.txt")"
	fi
	# QEMU killed while writing a report: the complete ones still read
	head -n 27 "$d/fixture.out" >"$tmp/cut.out"
	if "$S/sis_cost.py" show "$tmp/cut.out" 0 1 --top 3 >"$tmp/cost.show" 2>"$tmp/cost.err" &&
		diff -q "$d/expect-show.txt" "$tmp/cost.show" >/dev/null &&
		grep -q 'the last report is cut short (no end line), left out' "$tmp/cost.err"; then
		ok "sis_cost.py: a report cut short is left out with a warning, the complete ones read"
	else
		notok "sis_cost.py on a report cut short: $(cat "$tmp/cost.err") $(head -n2 "$tmp/cost.show")"
	fi
	head -n 5 "$d/fixture.out" >"$tmp/cut.out"
	expect_error "sis_cost.py: a file with no complete report" "no marks 0 and 1 (the output has 0)" \
		"$S/sis_cost.py" show "$tmp/cut.out" 0 1
	expect_error "sis_cost.py: marks the output lacks" "no marks 0 and 7" \
		"$S/sis_cost.py" show "$d/fixture.out" 0 7
	mkdir -p "$tmp/nomap/kernel/sched"
	expect_error "cost-map.sh: a kernel without System.map" "no System.map in" \
		"$S/cost-map.sh" "$tmp/nomap"
	# the helpers of tools/cost-plugin/helpers, on a made-up build: a
	# scheduler function, two helpers and a function of lib/bitmap.o
	# that no glob names
	f=$tmp/hmap
	mkdir -p "$f/kernel/sched" "$f/lib"
	echo 'void pick(void) {}' | gcc -x c -c -o "$f/kernel/sched/fair.o" - &&
		echo 'void _find_next_bit(void) {}' | gcc -x c -c -o "$f/lib/find_bit.o" - &&
		printf 'void __bitmap_and(void) {}\nvoid bitmap_alloc(void) {}\n' |
		gcc -x c -c -o "$f/lib/bitmap.o" - &&
		printf '%s\n' 'ffffffff81000000 T pick' 'ffffffff81000040 T _find_next_bit' \
			'ffffffff81000080 T __bitmap_and' 'ffffffff810000c0 T bitmap_alloc' \
			'ffffffff81000100 T __x64_sys_sethostname' 'ffffffff81000140 T _etext' >"$f/System.map"
	if "$S/cost-map.sh" "$f" >"$f/map" 2>&1 &&
		[ "$(cut -d' ' -f3- "$f/map" | tr '\n' ,)" = "f pick,h _find_next_bit,h __bitmap_and,m __x64_sys_sethostname," ]; then
		ok "cost-map.sh: the helpers of tools/cost-plugin/helpers are mapped (h), a library function no glob names is not"
	else
		notok "cost-map.sh helpers: $(tr '\n' ' ' <"$f/map")"
	fi
	# boot.sh: a plugin built for another QEMU, and a kernel away from its
	# build directory, are refused before QEMU starts
	q=$(command -v qemu-system-x86_64 || true)
	if [ -n "$q" ]; then
		mkdir -p "$tmp/kobj/arch/x86/boot"
		: >"$tmp/kobj/arch/x86/boot/bzImage"
		: >"$tmp/kobj/System.map"
		printf 'qemu=10.0.2\napi=4\n' >"$tmp/other.info"
		: >"$tmp/other.so"
		expect_error "boot.sh: a cost plugin built for another QEMU" \
			"built for QEMU 10.0.2 (plugin API 4), this QEMU is" \
			env COST_PLUGIN="$tmp/other.so" "$S/boot.sh" --kernel "$tmp/kobj/arch/x86/boot/bzImage" \
			--cost "$tmp/c.out" -- true
		: >"$tmp/bzImage"
		expect_error "boot.sh: --cost with a kernel away from its build" \
			"needs the kernel in its build directory" \
			"$S/boot.sh" --kernel "$tmp/bzImage" --cost "$tmp/c.out" -- true
	fi
	# a QEMU without plugin support (a fake that reads like Debian's)
	f=$tmp/fakeq
	printf '#!/bin/sh\n[ "$1" = --version ] && { echo "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)"; exit 0; }\necho "qemu-system-x86_64: -plugin: invalid option" >&2\nexit 1\n' >"$f"
	chmod +x "$f"
	if [ -f "$LAB_OUT/cost/sis-cost-7.2.22.so" ]; then
		expect_error "build-cost-plugin.sh: a QEMU without plugin support" \
			"QEMU 7.2.22 does not load the plugin: qemu-system-x86_64: -plugin: invalid option" \
			"$S/build-cost-plugin.sh" --qemu "$f"
	else
		skipped "build-cost-plugin.sh with a QEMU without plugin support: no plugin built for QEMU 7.2.22 here (make deps)"
	fi
	locality_host_tests
}

# locality_host_tests: the locality mode without a guest: its reader on a
# fixture (tests/cost/locality.out: between marks 0 and 1, 10000 round
# trips of user work moved 20000 lines across the CCX boundary alone, the
# kernel 100 across it, 10 across a quadrant's and 10 across the sockets',
# checked by hand: expect-locality.txt), the topology of the platforms
# (cost-topo.sh), the model's callback on the host (locality-model.c:
# known sequences, two threads handing a line over), and the plugin in
# QEMU with no machine, good and bad arguments
locality_host_tests() {
	local d=$top/tests/cost f q so hdr want
	if "$S/sis_cost.py" locality "$d/locality.out" 0 1 --work 10000 --unit 'round trip' \
		>"$tmp/loc.show" 2>&1 && diff -u "$d/expect-locality.txt" "$tmp/loc.show" >"$tmp/loc.diff"; then
		ok "sis_cost.py locality on tests/cost/locality.out equals expect-locality.txt"
	else
		notok "sis_cost.py locality: $(head -n8 "$tmp/loc.diff" "$tmp/loc.show" | tr '\n' ' ')"
	fi
	printf '%s\n' nps,variant,load,load_point,round,boot,work,cost_from,cost_to,status \
		1,tip,hackbench,1/4,1,1,10000,0,1,ok 1,tip,hackbench,1/4,2,1,NA,NA,NA,failed >"$tmp/loc-rows.csv"
	want='1,tip,hackbench,1/4,1,1,10000,2.0100,0.0010,0.0000,0.0010,2.0120,2.0000'
	if "$S/sis_cost.py" locality "$d/locality.out" --csv "$tmp/loc-rows.csv" >"$tmp/loc.csv" 2>&1 &&
		[ "$(sed -n 2p "$tmp/loc.csv")" = "$want" ] && [ "$(grep -c . "$tmp/loc.csv")" = 2 ]; then
		ok "sis_cost.py locality --csv: an ok score row's lines moved per unit of work by boundary ($want), a failed row none"
	else
		notok "sis_cost.py locality --csv: $(tr '\n' ' ' <"$tmp/loc.csv")"
	fi
	# attach gives an ok row the same lines per unit of work by boundary,
	# and NA to a failed row (the make score rows of a --locality boot)
	"$S/sis_cost.py" attach "$tmp/loc-rows.csv" "$d/locality.out" 2>"$tmp/loc.err" || true
	if [ "$(sed -n 2p "$tmp/loc-rows.csv" | awk -F, '{ print $(NF - 3) "," $(NF - 2) "," $(NF - 1) "," $NF }')" = 2.0100,0.0010,0.0000,0.0010 ] &&
		[ "$(sed -n 3p "$tmp/loc-rows.csv" | awk -F, '{ print $(NF - 3) "," $(NF - 2) "," $(NF - 1) "," $NF }')" = NA,NA,NA,NA ]; then
		ok "sis_cost.py attach: an ok row of a locality boot gets its lines per unit of work by boundary (2.0100,0.0010,0.0000,0.0010), a failed row NA"
	else
		notok "sis_cost.py attach on locality reports: $(tr '\n' ' ' <"$tmp/loc-rows.csv") $(cat "$tmp/loc.err")"
	fi
	expect_error "sis_cost.py locality: reports without the locality mode" \
		"marks 0 and 1 have no locality counts" "$S/sis_cost.py" locality "$d/fixture.out" 0 1
	if "$S/sis_cost.py" show "$d/locality.out" 0 1 >"$tmp/loc.show" 2>&1 &&
		grep -q '^marks 0\.\.1: 10 wakeups' "$tmp/loc.show"; then
		ok "sis_cost.py show reads reports with locality lines"
	else
		notok "sis_cost.py show on locality reports: $(head -n2 "$tmp/loc.show" | tr '\n' ' ')"
	fi

	# the physical units by QEMU vCPU index: milan's scaled shape (8
	# CPUs per LLC, 8 LLCs per socket, 2 per quadrant), genoa's quadrants
	# of 3 LLCs, turin's 32 LLCs; a socket of 6 LLCs has no quadrants
	"$S/cost-topo.sh" --model milan --shape scaled >"$tmp/topo" 2>&1 || true
	want="0 0 0 0 0;8 1 0 0 0;16 2 1 0 0;32 4 2 1 0;64 8 4 2 1;127 15 7 3 1;"
	f=$(awk '!/^#/ && ($1 == 0 || $1 == 8 || $1 == 16 || $1 == 32 || $1 == 64 || $1 == 127)' "$tmp/topo" | tr '\n' ';')
	if [ "$f" = "$want" ] && [ "$(grep -vc '^#' "$tmp/topo")" = 128 ]; then
		ok "cost-topo.sh milan scaled: 128 vCPUs, LLC, quadrant, half and socket of each ($want)"
	else
		notok "cost-topo.sh milan scaled: $(grep -vc '^#' "$tmp/topo") lines, $f (want $want)"
	fi
	f=$("$S/cost-topo.sh" --model genoa --shape small 2>&1 | awk '!/^#/ { print $2 "-" $3 }' | sort -u -t- -k1,1n | tr '\n' ' ')
	want="0-0 1-0 2-0 3-1 4-1 5-1 6-2 7-2 8-2 9-3 10-3 11-3 12-4 13-4 14-4 15-5 16-5 17-5 18-6 19-6 20-6 21-7 22-7 23-7 "
	if [ "$f" = "$want" ]; then
		ok "cost-topo.sh genoa: 3 LLCs per quadrant, 8 quadrants"
	else
		notok "cost-topo.sh genoa: LLC-quadrant pairs $f"
	fi
	mkdir -p "$tmp/plat6"
	sed 's/^llcs_per_socket=.*/llcs_per_socket=6/' "$top/configs/platform/milan" >"$tmp/plat6/six"
	expect_error "cost-topo.sh: a socket of LLCs that do not split into quadrants" \
		"six has 6 LLCs per socket, which do not split into 4 quadrants" \
		env LAB_PLATFORMS="$tmp/plat6" "$S/cost-topo.sh" --model six
	: >"$tmp/bzImage"
	expect_error "boot.sh: --locality without --cost" "--locality needs --cost FILE" \
		"$S/boot.sh" --kernel "$tmp/bzImage" --locality -- true
	expect_error "boot.sh: a bad COST_LOCALITY" "COST_LOCALITY is 0 or 1, not 'yes'" \
		env COST_LOCALITY=yes "$S/boot.sh" --kernel "$tmp/bzImage" --cost "$tmp/c.out" -- true

	# the model's callback, compiled with the plugin against a QEMU plugin
	# header build-cost-plugin.sh fetched (make deps)
	hdr=$(compgen -G "$LAB_OUT/cost/qemu-*/qemu-plugin.h" | head -n1 || true)
	if [ -z "$hdr" ]; then
		skipped "the locality model and the plugin's arguments: no QEMU plugin header in $LAB_OUT/cost (make deps)"
		return 0
	fi
	# shellcheck disable=SC2046 # the flags are words
	if gcc -O2 -Wall -Wextra -Werror -pthread -no-pie -I"${hdr%/*}" -I"$top/tools/cost-plugin" \
		$(pkg-config --cflags glib-2.0 2>/dev/null) -o "$tmp/locality-model" "$d/locality-model.c" \
		-Wl,--unresolved-symbols=ignore-all >"$tmp/loc-cc.log" 2>&1; then
		mkdir -p "$tmp/loc-model"
		"$tmp/locality-model" "$tmp/loc-model" >"$tmp/loc-model.out" 2>&1 ||
			grep -q '^FAIL' "$tmp/loc-model.out" || echo "FAIL locality-model exited: $(tail -n1 "$tmp/loc-model.out")" >>"$tmp/loc-model.out"
		verdicts "locality model" <"$tmp/loc-model.out"
	else
		notok "locality model: does not build against ${hdr#"$LAB_OUT"/}: $(grep -m1 -e error -e warning "$tmp/loc-cc.log")"
	fi
	# the plugin itself, loaded by this machine's QEMU with no machine
	q=$(command -v qemu-system-x86_64 || true)
	if [ -z "$q" ] || ! so=$("$S/build-cost-plugin.sh" --qemu "$q" 2>"$tmp/loc-build.err"); then
		notok "locality plugin: build-cost-plugin.sh failed: $(tail -n1 "$tmp/loc-build.err" 2>/dev/null)"
		return 0
	fi
	echo "0 1 f probe" >"$tmp/loc.map"
	"$S/cost-topo.sh" --model turin --shape small >"$tmp/loc.topo"
	rm -f "$tmp/loc.out"
	if echo quit | "$q" -M none -display none -monitor stdio \
		-plugin "$so,map=$tmp/loc.map,out=$tmp/loc.out,locality=$tmp/loc.topo,ram=4096" >/dev/null 2>&1 &&
		grep -q '^# sis-cost locality: 128 vCPUs, 32 LLCs, 4-byte holder masks for 201326592 lines (4096 MiB of RAM' "$tmp/loc.out" &&
		grep -qx 'loc user 0 0 0 0 0 0 0' "$tmp/loc.out" && grep -qx 'loc-skip 0 0 0 0' "$tmp/loc.out"; then
		ok "locality plugin: QEMU $("$q" --version | sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p') loads it with turin's 32 LLCs (4-byte masks), its exit report has the locality lines"
	else
		notok "locality plugin: QEMU with locality=, ram=: $(grep -v '^$' "$tmp/loc.out" 2>/dev/null | tr '\n' ' ')"
	fi
	printf '0 0 0 0 0\n1 0 1 0 0\n' >"$tmp/loc-bad.topo"
	for f in "locality=$tmp/loc.topo|sis-cost: locality=FILE needs ram=MIB" \
		"ram=512|sis-cost: ram=MIB is the locality mode's: it needs locality=FILE" \
		"locality=$tmp/loc.topo,ram=lots|sis-cost: ram=lots: not the guest's RAM in MiB" \
		"locality=$tmp/no-such,ram=512|sis-cost: cannot open topology" \
		"locality=$tmp/loc-bad.topo,ram=512|loc-bad.topo:2: LLC 0 lies in quadrant 0, half 0, socket 0 on an earlier line"; do
		expect_error "locality plugin: ${f%%|*}" "${f#*|}" \
			sh -c 'echo quit | "$1" -M none -display none -monitor stdio -plugin "$2" >/dev/null' \
			sh "$q" "$so,map=$tmp/loc.map,out=$tmp/loc-bad.out,${f%%|*}"
	done
}

# verdicts WHAT: "ok DETAIL" or "FAIL DETAIL" lines on stdin as results
verdicts() {
	local verdict line
	while read -r verdict line; do
		[ -n "$verdict" ] || continue
		if [ "$verdict" = ok ]; then ok "$1: $line"; else notok "$1: $line"; fi
	done
}

# the jobs the patched kernel with every feature off and the base kernel
# run for the comparison of their costs, and how many times: with 5 runs
# a side, two samples of one distribution differ by more than 3 times the
# larger sd in 0.08% of draws (simulated; 1.3% with 3 runs), so the 24
# verdicts (8 paths, 3 jobs) rarely fail by chance
COST_JOBS="hackbench:1/4 hackbench:1 schbench:1/4"
COST_ROUNDS=5

# cost_boot KERNEL LOG OUT ERR CMD: a small NPS1 boot under the plugin,
# its reports in OUT; like boot_check, a guest that never reached user
# space or stalled (under TCG, with the plugin slowing every vCPU, one
# stayed in a stop_machine() at boot, its vCPUs on wq_mayday_lock, until
# boot.sh's 1800 s) is booted once more, the first boot's logs kept
cost_boot() {
	local k=$1 log=$2 co=$3 err=$4 cmd=$5 try rc
	for try in 1 2; do
		rc=0
		SHAPE=small NPS=1 "$S/boot.sh" --kernel "$k" \
			--log "$log" --cost "$co" --boot-limit "$boot_limit" -- "$cmd" 2>"$err" || rc=$?
		[ "$rc" != 0 ] || return 0
		# boot.sh's status: no user space (125), stalled (126)
		[ "$try" = 1 ] && { [ "$rc" = 125 ] || [ "$rc" = 126 ]; } || return 1
		echo "# $(basename "$log"): $(tail -n1 "$err" | sed 's/^boot\.sh: error: //'); booting again"
		sed -n 's/^boot\.sh: hang: /# /p' "$err"
		keep_first_boot "$log" early
	done
}

# cost_boot_tests KERNEL [BASE]: the plugin in a 64-CPU guest against known
# work (guest/tests/cost-test.sh: N, then 2N getppid() calls, then
# hackbench); then, with BASE, the patched kernel with every feature off
# against the base kernel in instructions (guest/cost-jobs.sh in both, then
# sis_cost.py compare: a code path whose instructions per wakeup differ
# beyond the run-to-run spread fails unless tests/cost/features-off-known
# explains it)
cost_boot_tests() {
	local k=$1 base=${2:-} c=$tmp/cost-boot n=20000 p=5000 st jobs=
	mkdir -p "$c"
	echo "== the cost plugin (small shape, NPS1)"
	# the jobs of the comparison with the base, in the same boot
	[ -z "$base" ] || jobs="; /lab/cost-jobs.sh $COST_ROUNDS $COST_JOBS"
	if ! COST_ALSO=__x64_sys_getppid,__task_pid_nr_ns cost_boot "$k" "$logs/test-cost.log" "$c/c.out" "$c/boot.err" \
		"/lab/tests/cost-test.sh $n $p$jobs"; then
		notok "cost boot: $(tail -n1 "$c/boot.err")"
		return
	fi
	ktap_report "cost guest" "$logs/test-cost.log"
	# shellcheck disable=SC2016
	st=$(python3 - "$c/c.out" "$n" "$top/scripts" "$p" <<-'EOT'
		import sys
		sys.path.insert(0, sys.argv[3])
		import sis_cost as c
		out, n = sys.argv[1], int(sys.argv[2])
		m = c.read_marks(out)
		g = c.guest_marks(m)
		if g[:18] != list(range(18)):
		    print("FAIL marks: guest marks %s, want 0 to 17 first" % g[:19])
		    sys.exit()
		path = ("__x64_sys_getppid", "__task_pid_nr_ns")
		d1, d2 = c.delta(m, 0, 1), c.delta(m, 1, 2)
		calls = [d.get("__x64_sys_getppid", [0, 0])[1] for d in (d1, d2)]
		print(("ok" if calls == [n, 2 * n] else "FAIL") +
		      " getppid calls: %d and %d, want exactly %d and %d" % (calls[0], calls[1], n, 2 * n))
		i1 = sum(d1.get(f, [0])[0] for f in path)
		i2 = sum(d2.get(f, [0])[0] for f in path)
		r = i2 / i1 if i1 else 0
		print(("ok" if abs(r - 2) <= 0.02 else "FAIL") +
		      " getppid path instructions: %d for %d calls, %d for %d: ratio %.4f, want 2 within 1%%" %
		      (i1, n, i2, 2 * n, r))
		fig = c.figures(c.delta(m, 2, 3), c.read_groups(), 1)
		# the locality mode's figures are NA in a boot without it
		bad = [k for k, v in fig.items() if (v == "NA") != k.startswith("loc_")]
		print(("FAIL" if bad else "ok") + " hackbench between marks 2 and 3: every figure a number "
		      "but the locality mode's, NA without it (%s)" % ", ".join("%s %s" % kv for kv in fig.items()))
		# a library helper's runs count as its scheduler caller's:
		# sched_getaffinity()'s cpumask_and() is __bitmap_and() on 512
		# CPUs, the system call's memset() its wrapper's
		d4, d5 = c.delta(m, 3, 4), c.delta(m, 4, 5)
		calls = [d.get("sched_getaffinity", [0, 0])[1] for d in (d4, d5)]
		print(("ok" if calls == [n, 2 * n] else "FAIL") +
		      " sched_getaffinity calls: %d and %d, want exactly %d and %d" % (calls[0], calls[1], n, 2 * n))
		def cred(a, b, f):
		    return m[b]["credit"].get(f, 0) - m[a]["credit"].get(f, 0)
		for f in ("sched_getaffinity", "__x64_sys_sched_getaffinity"):
		    h1, h2 = cred(3, 4, f), cred(4, 5, f)
		    r = h2 / h1 if h1 else 0
		    print(("ok" if h1 >= n and abs(r - 2) <= 0.02 else "FAIL") +
		          " %s: %d and %d helper instructions credited for %d and %d calls: ratio %.4f, want at least one a call and 2 within 1%%" %
		          (f, h1, h2, n, 2 * n, r))
		# the pinned ping-pongs, 3 rounds of off and SIS_WORD: line
		# transfers and upgrades per round trip of the enqueue and dequeue
		# paths (the enqueue group and the series' functions they call);
		# SIS_WORD's must equal off's within 3 sd of the rounds or a
		# twentieth of a line, and that bound must stay under one line per
		# round trip, which a write per wakeup to a line the other CPU reads
		# would add (so that the check can see one)
		loops = int(sys.argv[4])
		paths = ("sis_core_cpu_taken", "sis_core_rq_freed", "sis_word_core_idle")
		groups = c.read_groups()
		def pair(a):
		    d = c.delta(m, a, a + 1)
		    s = c.sums(d, groups).get("enqueue", {})
		    x = s.get("xfer", 0) + sum(d.get(f, [0] * 5)[2] for f in paths)
		    u = s.get("upgr", 0) + sum(d.get(f, [0] * 5)[3] for f in paths)
		    return x / loops, u / loops
		runs = {v: [pair(6 + 2 * j) for j in range(k, 6, 2)] for k, v in enumerate(("off", "word"))}
		good = True
		words = []
		for i, name in enumerate(("transfers", "upgrades")):
		    (mo, so), (mw, sw) = (c.mean_sd([r[i] for r in runs[v]]) for v in ("off", "word"))
		    tol = max(3 * max(so, sw), 0.05)
		    good = good and abs(mw - mo) <= tol < 1
		    words.append("%s off %.3f ± %.3f, SIS_WORD %.3f ± %.3f (bound %.3f)" % (name, mo, so, mw, sw, tol))
		print(("ok" if good else "FAIL") + " enqueue and dequeue paths of a pinned ping-pong, per round trip: " +
		      "; ".join(words) + ": SIS_WORD within the bound of off, the bound under one line")
		if m[0]["inline"] is not None and m[3]["total"] > m[0]["total"]:
		    ex = m[3]["total"] - m[0]["total"] - sum(cred(0, 3, f) for f in m[3]["credit"])
		    inl = m[3]["inline"] - m[0]["inline"]
		    print("ok inline adds (QEMU 7.2) counted %d of the %d instructions counted per vCPU: %.2f%% lost to races" %
		          (inl, ex, 100.0 * (ex - inl) / ex))
	EOT
	) || st="FAIL the plugin's output does not read: $st"
	verdicts "cost plugin" <<<"$st"

	if [ -n "$base" ]; then
		echo "== the base kernel's cost (small shape, NPS1)"
		if ! cost_boot "$base" "$logs/test-cost-base.log" "$c/base.out" "$c/boot.err" \
			"/lab/cost-jobs.sh $COST_ROUNDS $COST_JOBS"; then
			notok "cost boot of the base kernel: $(tail -n1 "$c/boot.err")"
		else
			"$S/sis_cost.py" compare --names base,patched --spread 3 --rel-floor 10 \
				--known "$top/tests/cost/features-off-known" \
				"$logs/test-cost-base.log" "$c/base.out" "$logs/test-cost.log" "$c/c.out" \
				>"$logs/cost-features-off.txt" 2>&1 || true
			sed 's/^/# /' "$logs/cost-features-off.txt"
			st=$(grep -c ': FAIL' "$logs/cost-features-off.txt" || true)
			if ! grep -q '^0 unexplained differences$' "$logs/cost-features-off.txt"; then
				notok "features off = base in instructions: $st code paths differ beyond the spread, unexplained: $(grep -m3 ': FAIL' "$logs/cost-features-off.txt" | tr '\n' ' ')"
			else
				ok "features off = base in instructions: every code path within the run-to-run spread or explained ($(grep -c 'differs, known' "$logs/cost-features-off.txt") known: tests/cost/features-off-known)"
			fi
		fi
	fi
}

# the round trips of each case of the locality test: 2 x 10000 hand-offs,
# so that 1% is 200 lines
LOCALITY_ROUNDS=10000

# locality_cases: the locality test's cases for SHAPE and MODEL, words
# "NAME:CPU_A,CPU_B" in Linux's numbers (linux_cpu): CPU_A the first
# thread of LLC 0's second core; CPU_B the second thread of LLC 0's first
# core (llc: one LLC), or the first thread of the second core of LLC 1
# (ccx: the same NPS4 quadrant), of the second quadrant's first LLC (quad:
# the same NPS2 half), of the second half's (half: the same socket), of
# the other socket's (socket).  The quadrants and halves are physical
# (scripts/cost-topo.sh), whatever NPS mode boots.
locality_cases() {
	local a b i name out=
	shape_init
	linux_cpu "$THREADS" a
	for name in llc ccx quad half socket; do
		case $name in
		llc) i=$((THREADS > 1 ? 1 : 0)) ;;
		ccx) i=$((CCX_CPUS + THREADS)) ;;
		quad) i=$((CCX / 4 * CCX_CPUS + THREADS)) ;;
		half) i=$((CCX / 2 * CCX_CPUS + THREADS)) ;;
		socket) i=$((SOCKET_CPUS + THREADS)) ;;
		esac
		linux_cpu "$i" b
		out="$out${out:+ }$name:$a,$b"
	done
	echo "$out"
}

# locality_boot_test KERNEL: the plugin's locality mode against known work
# in a 64-CPU guest (guest/tests/locality-test.sh, the cases of
# locality_cases): sis-handoff hands one cache line between two CPUs N
# times each way between marks of its own.  In the model each hand-off
# between two LLCs is one transfer, by the waiting side's first load of
# the new value, and one upgrade, the store before it (the storing side
# read the line last): 2N transfers across the pair's boundary and 2N
# upgrades, each within 1%, and fewer than 1% of 2N across every other
# boundary; in one LLC fewer than that across any.  The counts checked
# are the user addresses': between the marks the hand-offs are all the
# user work there is (the guest's shell waits, nothing else runs, and the
# program touches nothing there that it did not hold before), while the
# kernel's timer ticks, RCU and the markers' own system calls move kernel
# lines between the same CPUs, in numbers that follow the run's length
# under emulation and not N: those are printed, not checked.  Rather that
# than subtracting a baseline interval "of equal length": under TCG no
# two intervals have one length.  LAB_TCG_THREAD=single runs it with
# every vCPU on one host thread, where the model has no race (the
# plugin's header comment).
locality_boot_test() {
	local k=$1 c=$tmp/loc-boot cases st
	# every guest access goes through the plugin: a slower boot
	local boot_limit=$((boot_limit * 3))
	mkdir -p "$c"
	echo "== the cost plugin's locality mode (small shape, NPS1)"
	cases=$(SHAPE=small NPS=1 locality_cases)
	if ! COST_LOCALITY=1 cost_boot "$k" "$logs/test-locality.log" "$c/l.out" "$c/boot.err" \
		"/lab/tests/locality-test.sh $LOCALITY_ROUNDS $cases"; then
		notok "locality boot: $(tail -n1 "$c/boot.err")"
		return
	fi
	echo "# locality boot: $(sed -n 's/.*guest finished in \([0-9]* s\).*/\1/p' "$c/boot.err") (the plain cost boot: about 20 s, Documentation/tcg.md)"
	ktap_report "locality guest" "$logs/test-locality.log"
	# shellcheck disable=SC2016
	st=$(python3 - "$c/l.out" "$logs/test-locality.log" "$LOCALITY_ROUNDS" "$top/scripts" <<-'EOT'
		import sys
		sys.path.insert(0, sys.argv[4])
		import sis_cost as c
		out, log, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
		m = c.read_marks(out)
		cases = []
		for line in open(log, errors="replace"):
		    w = line.replace("\r", "").split()
		    if len(w) == 7 and w[0] == "locality-case":
		        cases.append((w[1], w[2], w[3], int(w[4]), int(w[5]), int(w[6])))
		names = [x[0] for x in cases]
		print(("ok" if names == ["llc", "ccx", "quad", "half", "socket"] else "FAIL") +
		      " the guest ran the cases %s, want llc ccx quad half socket" % " ".join(names))
		want, tol = 2 * n, 2 * n // 100
		for name, a, b, rounds, fr, to in cases:
		    if rounds != n or to != fr + 1 or to >= len(m) or m[fr]["why"] != "guest" or m[to]["why"] != "guest":
		        print("FAIL %s: marks %d and %d of %d rounds, want two guest marks in a row of %d rounds" %
		              (name, fr, to, rounds, n))
		        continue
		    d = c.locality(m, fr, to)
		    u, k, s = d["user"], d["kernel"], d["skip"]
		    moved = " ".join("%s %d" % (x, u[x]) for x in c.BOUNDS)
		    if name == "llc":
		        good = u["xfer"] <= tol and u["upgr"] <= tol
		        what = "fewer than %d transfers and upgrades, across any LLC boundary" % tol
		    else:
		        others = u["xfer"] - u[name]
		        good = abs(u[name] - want) <= tol and abs(u["upgr"] - want) <= tol and others <= tol
		        what = "%d across %s and %d upgrades within 1%% (%d), fewer than %d elsewhere" % (
		            want, name, want, tol, tol)
		    good = good and not s["beyond"] and not s["untracked"]
		    print("%s %s: CPUs %s and %s, marks %d..%d: user lines moved: %s, upgrades %d; want %s; "
		          "kernel (not checked): %s, upgrades %d; left out: %d I/O, %d beyond the table, %d untracked" %
		          ("ok" if good else "FAIL", name, a, b, fr, to, moved, u["upgr"], what,
		           " ".join("%s %d" % (x, k[x]) for x in c.BOUNDS), k["upgr"], s["io"], s["beyond"],
		           s["untracked"]))
		if m and m[-1]["why"] == "exit" and "loc" in m[-1]:
		    e = m[-1]
		    print("ok the whole boot: %d user and %d kernel accesses modelled, %d beyond the table, "
		          "the highest physical address modelled 0x%x" %
		          (e["loc"]["user"]["acc"], e["loc"]["kernel"]["acc"], e["loc_skip"]["beyond"],
		           e.get("loc_top", 0)))
	EOT
	) || st="FAIL the plugin's output does not read: $st"
	verdicts "locality" <<<"$st"
}

# cost_score_job_test KERNEL: one short scoreboard job of KERNEL with the
# plugin (bench.sh --score), whose cost columns must be numbers
cost_score_job_test() {
	local k=$1 c=$tmp/cost-boot st
	mkdir -p "$c"
	echo "== one scoreboard job with the cost plugin (small shape, NPS1)"
	if ! SHAPE=small NPS=1 SIZE=tiny LOADS=1/4 ROUNDS=1 BENCHES=hackbench \
		VARIANTS="tip SIS_NODE+SIS_CORE+SIS_NODE_CORE" \
		"$S/score.sh" --kernel "$k" >"$c/score.log" 2>&1; then
		notok "cost score job: score.sh failed: $(tail -n2 "$c/score.log" | tr '\n' ' ')"
		return
	fi
	st=$(python3 - "$(sed -n 's/^score\.sh: results in //p' "$c/score.log")/score.csv" "$top/scripts" <<-'EOT'
		import csv, sys
		sys.path.insert(0, sys.argv[2])
		import sis_cost as c
		rows = list(csv.DictReader(open(sys.argv[1])))
		for r in rows:
		    bad = [k for k in c.COLUMNS if r.get(k, "NA") == "NA"]
		    try:
		        [float(r[k]) for k in c.COLUMNS if k not in bad]
		    except ValueError:
		        bad = ["a non-number"]
		    print(("FAIL" if bad or r["status"] != "ok" else "ok") +
		          " %s %s %s: %s" % (r["variant"], r["load"], r["load_point"],
		                             ", ".join("%s %s" % (k, r.get(k)) for k in c.COLUMNS)))
		if not rows:
		    print("FAIL no rows")
	EOT
	) || st="FAIL the score job's results do not read: $st"
	verdicts "cost score job" <<<"$st"
}
