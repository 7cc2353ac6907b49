# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The boots section, sourced by tests/run.sh.

# guest_tests KIND NPS: the guest tests of guest/tests/ that run in the
# boots of KIND (scaled: the plain scaled boots; mmc: with sched_mmc;
# isolcpus: with isolcpus=domain; small: the small shape) in NPS mode NPS,
# as each says in a line "# lab-boot: KIND NPS... [NAME=VALUE...]" (the
# words NAME=VALUE set its environment), in file name order; lab-test.sh
# runs in every boot, cost-test.sh and locality-test.sh in the cost
# plugin's (tests/cost/test.sh)
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
		--timeout "$boot_timeout" --boot-limit "$boot_limit" --stall "$boot_stall" -- "$cmd" 2>"$tmp/boot.err" || rc=$?
	# under TCG the full shape stops at boot in about half of its boots,
	# with every vCPU queued on one spinlock, the base kernel's as well,
	# and the small shape's 64 vCPUs did so once; the scaled shape's 128
	# did so on jiffies_lock and on an RCU node lock after boot, in
	# sis-node-core-test, which boot.sh calls a stalled guest (a lock
	# convoy, Documentation/tcg.md): a guest that
	# never reached user space (boot.sh's status 125) or stalled so (126)
	# is booted once more, the first boot's logs kept and its digest printed
	if [ -z "${EARLY_LOG:-}${SPLAT_LOG:-}" ] && { [ "$rc" = 125 ] || [ "$rc" = 126 ]; }; then
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

# base_kernel_built: base_kernel set to the base kernel's bzImage
# (build-base.sh: the series' first patch only), built once per run;
# empty with TEST_BASE=0, or, with one failure, when it does not build
base_kernel_built() {
	[ -z "${base_tried:-}" ] || return 0
	base_tried=1 base_kernel=
	[ "${TEST_BASE:-1}" = 1 ] || return 0
	echo "== the base kernel, with every feature off"
	if base_kernel=$("$S/build-base.sh" 2>"$logs/build-base.log"); then
		ok "base kernel built (the series' first patch only)"
	else
		notok "base kernel: $(tail -n1 "$logs/build-base.log")"
		base_kernel=
	fi
}

# base_fixture NPS: the committed dump of the base kernel in NPS mode NPS
# (tests/base/, milan scaled), when it is of the base this run would
# build: Debian's tree of scripts/base.sha256 (no KERNEL_SRC) and the
# series' patch 0000, by their SHA-256 on its BASE line
base_fixture() {
	local f=$top/tests/base/milan-scaled-nps$1.txt
	[ -z "${KERNEL_SRC:-}" ] && [ -f "$f" ] || return 1
	[ "$(grep '^BASE ' "$f")" = "$(base_line)" ] || return 1
	echo "$f"
}

# base_line: the BASE line of a dump of the base this run builds: the
# SHA-256 of Debian's package (scripts/base.sha256) and of the series'
# patch 0000
base_line() {
	echo "BASE $(cut -d' ' -f1 "$top/scripts/base.sha256") $(sha256sum <"${LAB_PATCHES:-$top/patches}/$(series_patches | head -n1)" | cut -d' ' -f1)"
}

# features_off_base NPS: with every feature off and no opt-in, the
# patched kernel builds the base kernel's domains in NPS mode NPS: levels,
# names, spans, flags and every balancing parameter (the base carries only
# the series' first patch, which shows imb_numa_nr in debugfs).  The base
# is a live boot of base_kernel when base_kernel_built built it, else its
# committed dump (base_fixture); kept as $tmp/base-npsNPS.  Needs the
# patched kernel's boot_check of that mode.
features_off_base() {
	local nps=$1 blog=$logs/test-base-milan-scaled-nps$1.log plog=$logs/test-milan-scaled-nps$1.log fx what
	if [ -n "${base_kernel:-}" ]; then
		if ! dump_boot "$base_kernel" scaled "$nps" "" "$blog"; then
			notok "base NPS$nps: boot failed: $(tail -n1 "$tmp/boot.err")"
			return
		fi
		dump_of "$blog" >"$tmp/base-nps$nps"
		what="the base kernel's boot"
	elif fx=$(base_fixture "$nps"); then
		grep -E '^(DOMAIN|PARAMS) ' "$fx" | sort >"$tmp/base-nps$nps"
		what="the base kernel's committed dump, ${fx#"$top"/}"
	else
		return 0
	fi
	dump_of "$plog" >"$tmp/patched"
	if [ ! -s "$tmp/patched" ]; then
		notok "features off = base, NPS$nps: no dump of the patched kernel in $plog"
	elif diff "$tmp/base-nps$nps" "$tmp/patched" >"$tmp/diff"; then
		ok "features off = base, NPS$nps: same levels, names, spans, flags and balancing parameters as $what ($(grep -c . "$tmp/patched") lines)"
	else
		notok "features off = base, NPS$nps: $(grep -c '^>' "$tmp/diff") lines differ; CPU 0 base: $(levels_of "$tmp/base-nps$nps"); patched: $(levels_of "$tmp/patched"); first: $(grep '^[<>]' "$tmp/diff" | head -n2 | tr '\n' ' ')"
	fi
}

# the guest boots: topology, guest tests, the base comparison, the cost
# plugin against known work; the other boots are boots-extra's (make
# check-full)
sec_boots() {
	# each guest test names the boots it runs in (guest_tests); a test
	# that does not depend on the NPS mode runs in one (make check's
	# budget, tests/budgets.txt), e.g. CPU hotplug and sis-core-test in
	# NPS4, sis-test in NPS1.  NPS1 and NPS4, the modes of the hardware
	# results; NPS2 (the kselftest, the saturation runs and SIS_SHORT, which
	# works inside the LLC) is boots-extra's
	for nps in ${TEST_NPS-1 4}; do
		boot_check scaled "$nps" "${TEST_GUEST-$(guest_tests scaled "$nps")}"
	done
	# every feature off: the base kernel's domains, from its committed
	# dumps; built and booted only where none stands for it (KERNEL_SRC,
	# another tree): on a fresh machine the base is a second full compile
	# (patch 0006 changes include/linux/sched.h), make check-full's
	local need=
	for nps in ${TEST_NPS-1 4}; do
		base_fixture "$nps" >/dev/null || need=1
	done
	[ -z "$need" ] || base_kernel_built
	for nps in ${TEST_NPS-1 4}; do
		features_off_base "$nps"
	done

	# the cost plugin against known work (the patched kernel against the
	# base in instructions: boots-extra)
	[ "${TEST_COST:-1}" = 0 ] ||
		cost_boot_tests "$LAB_OUT/obj-qemu/arch/x86/boot/bzImage"
}
