# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The boots section, sourced by tests/run.sh.

# guest_tests KIND NPS: the guest tests of guest/tests/ that run in the
# boots of KIND (scaled: the plain scaled boots; mmc: with sched_mmc;
# isolcpus: with isolcpus=domain; small: the small shape) in NPS mode NPS,
# as each says in a line "# lab-boot: KIND NPS... [NAME=VALUE...]" (the
# words NAME=VALUE set its environment), in file name order; lab-test.sh
# runs in every boot, cost-test.sh in the cost plugin's
guest_tests() {
	awk -v kind="$1" -v nps="$2" '
		/^# lab-boot: / && $3 == kind {
			env = ""; hit = 0
			for (i = 4; i <= NF; i++)
				if ($i ~ /=/) env = env $i " "; else if ($i == nps) hit = 1
			name = FILENAME; sub(/.*\//, "", name)
			if (hit) printf "%s%s%s", sep, env, name; sep = hit ? " " : sep
		}' "$G"/tests/*.sh
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
			ok "$tag: $kind lines equal the expectation ($(grep -c "^$kind " "$tmp/want"))"
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
	# each guest test names the boots it runs in (guest_tests); a test
	# that does not depend on the NPS mode runs in one (make check's hour:
	# results.md), e.g. CPU hotplug and sis-core-test in NPS4, the
	# kselftest and the saturation runs in NPS2, SIS_SHORT (it works
	# inside the LLC) and sis-test in NPS1
	for nps in ${TEST_NPS-1 2 4}; do
		boot_check scaled "$nps" "${TEST_GUEST-$(guest_tests scaled "$nps")}"
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
		boot_check scaled "$nps" "$(guest_tests mmc "$nps")" sched_mmc
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
