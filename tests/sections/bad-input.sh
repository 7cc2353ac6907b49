# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The bad-input section, sourced by tests/run.sh.

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
	# make score's JOBS and --out, make calibrate's options
	expect_error "score: a job without its load" "JOBS takes BENCH:LOAD pairs (hackbench:5/32), not 'hackbench'" \
		env JOBS=hackbench "$S/score.sh"
	expect_error "score: JOBS with LOADS" "JOBS names the benchmarks and loads: not with BENCHES or LOADS" \
		env JOBS=hackbench:1 LOADS=1 "$S/score.sh"
	expect_error "score: --out a directory that exists" "--out $tmp exists (--resume $tmp goes on with a run there)" \
		"$S/score.sh" --out "$tmp"
	expect_error "calibrate: an unknown part" "no part 'hb-none' (the parts: hb hb-mmc" \
		"$S/calibrate.sh" --parts hb-none
	expect_error "calibrate: --out and --resume" "--out starts a replay, --resume goes on with one: not both" \
		"$S/calibrate.sh" --out "$tmp/c" --resume "$tmp/c"
	expect_error "calibrate: --resume a directory of no replay" "--resume $tmp: no plan.txt there (not a replay's directory)" \
		"$S/calibrate.sh" --resume "$tmp"
	# a replay whose part hb started: its definition may not change, a
	# part not started may, another kernel may not; a refusal leaves the
	# plan as it was
	: >"$tmp/cal-k"
	mkdir -p "$tmp/cal/hb"
	"$S/calibrate.sh" --kernel "$tmp/cal-k" --plan >"$tmp/cal/plan.txt"
	sed -i 's/^\(part\.hb=.*\)|2|2$/\1|3|2/' "$tmp/cal/plan.txt"
	cp "$tmp/cal/plan.txt" "$tmp/cal-plan"
	expect_error "calibrate: a resumption that redefines a started part" \
		"was planned otherwise: < part.hb=hb|hackbench|all|tip SIS_NODE SIS_NODE_LIMIT|0|llc_balancing=0|0|3|2 > part.hb=" \
		"$S/calibrate.sh" --kernel "$tmp/cal-k" --resume "$tmp/cal" --plan
	cmp -s "$tmp/cal/plan.txt" "$tmp/cal-plan" || notok "calibrate: the refused resumption changed plan.txt"
	"$S/calibrate.sh" --kernel "$tmp/cal-k" --plan | sed 's/^\(part\.hb-mmc=.*\)|2|2$/\1|3|3/' >"$tmp/cal/plan.txt"
	if "$S/calibrate.sh" --kernel "$tmp/cal-k" --resume "$tmp/cal" --plan >"$tmp/cal-new" 2>&1 &&
		grep -q '^part\.hb-mmc=.*|2|2$' "$tmp/cal-new"; then
		ok "calibrate: a resumption takes the new definition of a part not started (hb-mmc)"
	else
		notok "calibrate: a part not started, defined anew: $(tail -n1 "$tmp/cal-new")"
	fi
	echo other >"$tmp/cal-k2"
	expect_error "calibrate: a resumption with another kernel" \
		"ran the kernel e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, this tree builds" \
		"$S/calibrate.sh" --kernel "$tmp/cal-k2" --resume "$tmp/cal"
}
