# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The boots-extra section (make check-full), sourced by tests/run.sh: the
# boots that make check's time leaves out (tests/budgets.txt), each with
# every assertion it had there.  It uses boot_check and dump_boot
# (tests/sections/boots.sh).

# base_dump NPS: the base kernel's topology dump in NPS mode NPS as
# $tmp/base-live-npsNPS, from a boot of base_kernel (base_kernel_built)
base_dump() {
	local blog=$logs/test-base-milan-scaled-nps$1.log
	[ ! -s "$tmp/base-live-nps$1" ] || return 0
	[ -n "${base_kernel:-}" ] || return 0
	if ! dump_boot "$base_kernel" scaled "$1" "" "$blog"; then
		notok "base NPS$1: boot failed: $(tail -n1 "$tmp/boot.err")"
	elif dump_of "$blog" >"$tmp/base-live-nps$1" && [ ! -s "$tmp/base-live-nps$1" ]; then
		notok "base NPS$1: no DOMAIN or PARAMS line in the base kernel's dump ($blog)"
	fi
}

# the base kernel built and booted (its dumps against tests/base/), the
# NPS2, MMC, isolcpus, split_llc, platform, small-shape and hang boots,
# the cost plugin against the base, its scoreboard job and its locality
# mode against known work, make bench with the base kernel, and a bench
# guest ended by its time limit
sec_boots_extra() {
	# the base kernel, built and booted: its dumps must be the ones make
	# check compares with (tests/base/); each live dump is also written,
	# with its BASE line, to $LAB_OUT/base/ (to commit when the base, the
	# series' patch 0000 or the lab's machine changes)
	local nps f fx
	base_kernel_built
	for nps in 1 2 4; do
		f=$top/tests/base/milan-scaled-nps$nps.txt
		[ -f "$f" ] || continue
		if [ -n "${KERNEL_SRC:-}" ]; then
			skipped "base NPS$nps: ${f#"$top"/} is of Debian's tree, not KERNEL_SRC's"
			continue
		fi
		[ -n "$base_kernel" ] || continue
		base_dump "$nps"
		[ -s "$tmp/base-live-nps$nps" ] || continue
		mkdir -p "$LAB_OUT/base"
		{ grep '^#' "$f"; base_line; cat "$tmp/base-live-nps$nps"; } >"$LAB_OUT/base/${f##*/}"
		if ! fx=$(base_fixture "$nps"); then
			notok "base NPS$nps: ${f#"$top"/} is of another base than this one ($(base_line | cut -c1-30)...): commit $LAB_OUT/base/${f##*/} in its place"
		elif diff <(grep -E '^(DOMAIN|PARAMS) ' "$fx" | sort) "$tmp/base-live-nps$nps" >"$tmp/diff"; then
			ok "base NPS$nps: the base kernel's dump equals ${fx#"$top"/}, which make check compares with ($(grep -c . "$tmp/base-live-nps$nps") lines)"
		else
			notok "base NPS$nps: the base kernel's dump differs from ${fx#"$top"/} in $(grep -c '^[<>]' "$tmp/diff") lines (this run's is $LAB_OUT/base/${f##*/}), first: $(grep '^[<>]' "$tmp/diff" | head -n2 | tr '\n' ' ')"
		fi
	done
	# the scaled NPS modes make check leaves out (NPS2): topology, their
	# guest tests, features off = base (live)
	for nps in ${TEST_EXTRA_NPS-2}; do
		boot_check scaled "$nps" "$(guest_tests scaled "$nps")"
		features_off_base "$nps"
	done
	# The opt-in MMC level (sched_mmc): its topology, SIS_NODE_MMC bounded by
	# it, groups that stay when an LLC goes offline, and what it changes
	# against the base, named and measured
	for nps in ${TEST_MMC_NPS-1}; do
		boot_check scaled "$nps" "$(guest_tests mmc "$nps")" sched_mmc
		mlog=$logs/test-milan-scaled-nps$nps-sched_mmc.log
		base_dump "$nps"
		if [ -s "$tmp/base-live-nps$nps" ] && [ -n "$(dump_of "$mlog")" ]; then
			dump_of "$mlog" >"$tmp/mmc"
			ok "sched_mmc NPS$nps against the base: CPU 0 base: $(levels_of "$tmp/base-live-nps$nps"); sched_mmc: $(levels_of "$tmp/mmc")"
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
		boot_check scaled 1 "$(guest_tests isolcpus 1)" "isolcpus=domain,$iso schedstats=enable"
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
	# the other AMD platforms, each once with the topology and feature
	# checks, in the small shape: their scaled shapes have 192 and 256
	# CPUs, and 256 vCPUs on two host cores often stop before user space
	# (sec_full); Genoa also in NPS4 with sched_mmc, where a node has 3
	# LLCs, an odd count for the MMC pairs
	for m in ${TEST_PLATFORMS-rome genoa turin}; do
		MODEL=$m boot_check small 1 ""
		[ "$m" != genoa ] || MODEL=genoa boot_check small 4 "" sched_mmc
	done
	# the small shape make reliability boots, with one cycle of its faults
	# test on the plain kernel, and the SIS_CORE masks of a cpuset
	# partition across SMT off and on (every sibling offline and back: the
	# small shape has the fewest)
	for nps in ${TEST_SMALL_NPS-4}; do
		boot_check small "$nps" "$(guest_tests small "$nps")"
	done
	# a guest that never finishes: boot.sh must fail and leave every CPU's
	# stack and the blocked tasks in the log (sysrq through the monitor)
	if [ "${TEST_HANG:-1}" = 1 ]; then
		echo "== a hung guest"
		hlog=$logs/test-hang.log
		# and whose silence (20 s) is no convoy: the stall check looks, a
		# minute apart at most, and lets it run
		rc=0
		SHAPE=small NPS=1 "$S/boot.sh" --log "$hlog" --timeout 90 --stall 20 -- \
			'sleep 100000' 2>"$tmp/boot.err" || rc=$?
		if [ "$rc" = 0 ]; then
			notok "hung guest: boot.sh exited 0"
		elif [ "$rc" = 124 ] && grep -q 'did not finish within 90 s' "$tmp/boot.err" &&
			grep -q 'sysrq: Show backtrace of all active CPUs' "$hlog" &&
			grep -q 'sysrq: Show Blocked State' "$hlog" &&
			grep -q 'NMI backtrace for cpu' "$hlog" &&
			grep -q '^boot\.sh: hang: reached: LAB-BOOTED: 64 cpus' "$tmp/boot.err" &&
			grep -Eq '^boot\.sh: hang: cpus: [0-9]+ busy, [0-9]+ idling' "$tmp/boot.err" &&
			grep -q '^boot\.sh: hang: vcpus: 64 ([0-9]* in [a-z]' "$tmp/boot.err" &&
			[ "$(grep -c '^CPU#[0-9]* [0-9a-f]\{16\}' "$hlog.stack")" = 64 ]; then
			ok "hung guest: boot.sh failed after 90 s (status 124), all CPUs' stacks and the blocked tasks in the log, the vCPUs' registers in $hlog.regs and the tops of their stacks in $hlog.stack, their digest on stderr"
		else
			notok "hung guest: status $rc (want 124), $(tail -n1 "$tmp/boot.err"); no sysrq output in $hlog, no digest ($(grep -c 'hang:' "$tmp/boot.err") lines) or not 64 stacks in $hlog.stack ($(grep -c '^CPU#[0-9]* [0-9a-f]' "$hlog.stack" 2>/dev/null))"
		fi
		# a guest that does not reach user space in time (here: 2 s)
		rc=0
		SHAPE=small NPS=1 "$S/boot.sh" --log "$logs/test-held.log" --boot-limit 2 --timeout 90 -- \
			'true' 2>"$tmp/boot.err" || rc=$?
		if [ "$rc" = 0 ]; then
			notok "guest held at boot: boot.sh exited 0"
		elif [ "$rc" = 125 ] && grep -q 'did not reach user space within 2 s' "$tmp/boot.err" &&
			grep -q '^boot\.sh: hang: vcpus: 64 (' "$tmp/boot.err"; then
			ok "guest held at boot: boot.sh failed after its boot limit (status 125), with the vCPUs' digest ($(sed -n 's/^boot\.sh: hang: vcpus: //p' "$tmp/boot.err"))"
		else
			notok "guest held at boot: status $rc (want 125), $(tail -n1 "$tmp/boot.err")"
		fi
	fi

	# the cost plugin with the patched kernel, every feature off, against
	# the base in instructions; one scoreboard job under the plugin; its
	# locality mode against known work (a boot of a minute or more with
	# every guest access instrumented: make check's room is not its)
	if [ "${TEST_COST:-1}" != 0 ]; then
		[ -z "$base_kernel" ] ||
			cost_boot_tests "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage" "$base_kernel"
		cost_score_job_test "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage"
		locality_boot_test "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage"
	fi
	if [ "${TEST_BENCH:-1}" != 0 ]; then
		[ -z "$base_kernel" ] || bench_base_test
		bench_killed_test
	fi
}
