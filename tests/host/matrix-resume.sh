# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# resume_fakes DIR: a fake boot.sh that runs the guest's driver on this
# host (LAB_BOOT_SH; /lab is guest/, /lab/out the results), a fake
# rt-tests hackbench whose SIS counters depend on the variant switched
# on and on its arguments, and a fake sched debugfs.  The fake hackbench
# logs each start in DIR/starts, fails SIS_NODE's runs of NPS2 boot 2
# (with a quote in the reason); its start number STOP_AT (counted in
# DIR/count) stops the matrix: STOP=driver kills the driver's process
# group (DIR/pgid), STOP=guest the guest (the fake boot.sh then fails as
# boot.sh does for a stalled guest, status 126).
resume_fakes() {
	local d=$1
	mkdir -p "$d/bin" "$d/tmp"
	cat >"$d/bin/boot.sh" <<-'EOT'
		#!/bin/bash
		out= log= cmd=
		while [ $# -gt 0 ]; do
			case $1 in
			--out) out=$2; shift 2 ;;
			--log) log=$2; shift 2 ;;
			--) cmd=$2; shift 2 ;;
			-v) shift ;;
			*) shift 2 ;;
			esac
		done
		echo "LAB-BOOTED: 2 cpus" >"$log"
		# a guest holds none of the host's files (bench.sh's lock)
		exec 9>&-
		set -- ${cmd//\/lab\/out/$out}
		FAKE_CMD=$cmd TMPDIR=$FAKE/tmp LAB_DIR=$GUEST OUT=$out LAB_SCHED_DEBUGFS=$FAKE/sched \
			SCORE_SYSRQ=$FAKE/sysrq BENCH_SYSRQ=$FAKE/sysrq COST_MARKS=$FAKE/cost-marks \
			PATH="$FAKE/bin:$GUEST:$PATH" sh "$GUEST/${1#/lab/}" "${@:2}" >>"$log" 2>&1 &
		echo $! >"$FAKE/guest.pid"
		rc=0
		wait $! || rc=$?
		grep -E '^(score|bench):' "$log"
		case $rc in 0|3) exit "$rc" ;; esac
		echo "boot.sh: error: guest stalled: every vCPU on a lock (fake)" >&2
		exit 126
	EOT
	cat >"$d/bin/hackbench" <<-'EOT'
		#!/bin/sh
		n=$(($(cat "$FAKE/count" 2>/dev/null || echo 0) + 1))
		echo "$n" >"$FAKE/count"
		f=$(cat "$FAKE/sched/features")
		echo "$n $f $*" >>"$FAKE/starts"
		if [ "$n" = "${STOP_AT:-0}" ]; then
			case $STOP in
			driver) kill -9 "-$(cat "$FAKE/pgid")" ;;
			guest) kill -KILL "$(cat "$FAKE/guest.pid")" ;;
			esac
			exit 1
		fi
		g=1 k=1 a=$*
		while [ $# -gt 0 ]; do
			[ "$1" != -g ] || g=$2
			shift
		done
		case " $f " in *" SIS_NODE "*) k=2 ;; esac
		# SIS_NODE's runs fail in NPS2 boot 2 (a quote in the reason)
		if [ "$k$FAKE_CMD" = "2/lab/score-guest.sh 2 2" ]; then
			echo "hackbench: cannot open \"pipe\", too many files" >&2
			exit 1
		fi
		awk -v g="$g" -v k="$k" '{ v[$1] = $2 } END {
			v["calls"] += 100; v["scan_probes"] += 100 * k + g; v["exit_target"] += 40 + 10 * k
			v["audit_checks"] += 50; v["audit_llc_miss"] += g; v["audit_node_miss"] += 5 - 2 * k
			v["audit_llcs_full"] += 3; v["llc_away"] += 4 * (k - 1)
			for (c in v) print c, v[c] }' "$FAKE/sched/sis/stats" | sort >"$FAKE/stats.new"
		mv "$FAKE/stats.new" "$FAKE/sched/sis/stats"
		echo "Running with $g groups: $a"
		echo "Time: $((g * k)).$k"
	EOT
	chmod +x "$d/bin/boot.sh" "$d/bin/hackbench"
	fake_sched "$d/sched"
	echo "SIS_UTIL NO_SIS_NODE" >"$d/sched/features"
	mkdir -p "$d/sched/sis"
	printf 'calls 0\n' >"$d/sched/sis/stats"
	echo 0 >"$d/sched/sis/enabled"
	echo 0 >"$d/sched/sis/audit"
	: >"$d/bzImage"
}

# resume_run DIR OUT ARG...: scripts/bench.sh ARG... on the fakes, in its
# own process group, LAB_OUT=OUT: with --score the fake matrix of two NPS
# modes, two boots, two variants, one load point and two rounds (16
# runs); without, make bench's of rt-hackbench at SIZE tiny, two variants
# and two rounds, without the base kernel (4 runs and their verification
# runs).  Its status in DIR/rc, its output in DIR/log.
resume_run() {
	local d=$1 o=$2 rc=0
	shift 2
	# shellcheck disable=SC2016
	# (bash's "Killed" line for the stopped driver is not the test's)
	{ FAKE=$d GUEST=$G LAB_OUT=$o LAB_BOOT_SH=$d/bin/boot.sh PATH="$d/bin:$PATH" \
		NPS="${NPS:-1 2}" BOOTS=2 SIZE=tiny LOADS=1/16 ROUNDS=${ROUNDS:-2} VARIANTS="tip SIS_NODE" \
		BENCHES=${BENCHES:-hackbench} COST=0 RUN_LIMIT=30 SHAPE=small BASE=0 VERIFY=2 \
		setsid -w bash -c 'echo $$ >"$FAKE/pgid"; exec "$0" "$@"' "$S/bench.sh" \
		--kernel "$d/bzImage" "$@" >"$d/log" 2>&1 || rc=$?; } 2>/dev/null
	echo "$rc" >"$d/rc"
}
resume_score() {
	local d=$1 o=$2
	shift 2
	resume_run "$d" "$o" --score "$@"
}
resume_bench() {
	local d=$1 o=$2
	shift 2
	NPS=1 BENCHES=rt-hackbench resume_run "$d" "$o" "$@"
}

# matrix_resume: a scoreboard matrix stopped twice (its driver killed in
# the first boot, then a guest stopped in the second) and resumed each
# time runs every cell exactly once, and its reports equal those of the
# same matrix never stopped; a resumption whose settings plan otherwise
# (more rounds; the sched_mmc boot option) is refused in one line and
# changes nothing
matrix_resume() {
	local d=$tmp/resume o r cells starts want bad='' a before after
	rm -rf "$d"
	resume_fakes "$d"
	o=$d/lab
	# never stopped
	resume_score "$d" "$o"
	a=$(sed -n 's/^bench\.sh: results in //p' "$d/log")
	if [ "$(cat "$d/rc")" != 3 ] || [ ! -s "$a/report.txt" ]; then
		notok "matrix resume: the matrix never stopped failed: status $(cat "$d/rc"), $(tail -n2 "$d/log" | tr '\n' ' ')"
		return
	fi
	# stopped: the driver killed in its 3rd run (NPS1 boot 1), then a
	# guest in the 7th run, the first resumption's 4th (NPS2 boot 1, its
	# 2nd)
	: >"$d/starts"
	rm -f "$d/count"
	STOP=driver STOP_AT=3 resume_score "$d" "$o"
	r=$(sed -n 's/^bench\.sh: results in //p' "$d/log")
	[ "$(cat "$d/rc")" != 0 ] || bad="$bad; the killed driver: status 0"
	STOP=guest STOP_AT=7 resume_score "$d" "$o" --resume "$r"
	[ "$(cat "$d/rc")" = 4 ] || bad="$bad; the stopped guest: status $(cat "$d/rc") (want 4)"
	grep -q 'stopped early' "$r/stopped" 2>/dev/null || bad="$bad; no stopped guest in $r/stopped"
	STOP_AT=0 resume_score "$d" "$o" --resume "$r"
	[ "$(cat "$d/rc")" = 3 ] || bad="$bad; the last resumption: status $(cat "$d/rc") (want 3: 2 runs fail): $(tail -n1 "$d/log")"
	# every cell once (14 ok, SIS_NODE's 2 of NPS2 boot 2 failed), every
	# run started once but the two stopped
	cells=$(csv_cols "$r/score.csv" nps boot variant load load_point round |
		tr , ' ' | sort | uniq -c | awk '$1 != 1 { bad++ } END { print NR, bad + 0 }')
	starts=$(grep -c '' "$d/starts")
	[ "$cells" = "16 0" ] || bad="$bad; cells with a row, and of them not once: $cells (want 16 0)"
	[ "$(csv_cols "$r/score.csv" status | grep -c '^ok$')" = 14 ] ||
		bad="$bad; $(csv_cols "$r/score.csv" status | grep -c '^ok$') ok rows (want 14)"
	[ "$(($(grep -c '' "$r/score.csv") - 1))" = 16 ] || bad="$bad; $(($(grep -c '' "$r/score.csv") - 1)) rows (want 16)"
	[ "$starts" = 18 ] || bad="$bad; $starts runs started (want the 16 cells and the 2 stopped)"
	for f in report.txt cover-letter.txt results.md notes.txt stopped failed-runs.log; do
		[ -e "$a/$f" ] || [ -e "$r/$f" ] || continue
		cmp -s "$a/$f" "$r/$f" || bad="$bad; $f differs from the run never stopped: $(diff "$a/$f" "$r/$f" 2>&1 | grep -v '^---' | grep '^[<>]\|diff:' | head -n2 | tr '\n' ' ')"
	done
	[ -d "$r/interrupted" ] || bad="$bad; nothing kept in interrupted/"
	if [ -z "$bad" ]; then
		ok "matrix resume: stopped twice (driver killed, guest stopped), resumed: 16 cells each run once, 2 of them failed ($starts starts with the 2 stopped); report.txt, cover-letter.txt, results.md, notes.txt and failed-runs.log equal the run never stopped's"
	else
		notok "matrix resume:${bad#;}"
	fi
	# another plan: refused in one line, the directory unchanged
	before=$(cd "$r" && find . -type f -exec sha256sum {} + | sort)
	for want in "conf.rounds was '2', now '3'" "boot_args was '', now 'sched_mmc'"; do
		case $want in
		conf.rounds*) ROUNDS=3 resume_score "$d" "$o" --resume "$r" ;;
		*) MMC=1 resume_score "$d" "$o" --resume "$r" ;;
		esac
		after=$(cd "$r" && find . -type f -exec sha256sum {} + | sort)
		if [ "$(cat "$d/rc")" = 1 ] && [ "$(grep -c '' "$d/log")" = 1 ] &&
			grep -qF "was planned otherwise: $want" "$d/log" && [ "$before" = "$after" ]; then
			ok "matrix resume: another plan is refused in one line, nothing changed ($(sed 's/^bench\.sh: error: //' "$d/log" | cut -c1-140))"
		else
			notok "matrix resume: another plan ($want): status $(cat "$d/rc"), $(grep -c '' "$d/log") lines: $(head -n2 "$d/log" | tr '\n' ' '), directory $([ "$before" = "$after" ] && echo unchanged || echo changed)"
		fi
	done
	# make bench: the driver killed in its 3rd run, resumed
	rm -rf "$o" "$d/count"
	: >"$d/starts"
	resume_bench "$d" "$o"
	a=$(sed -n 's/^bench\.sh: results in //p' "$d/log")
	want=$(grep -c '' "$d/starts")
	: >"$d/starts"
	rm -f "$d/count"
	STOP=driver STOP_AT=3 resume_bench "$d" "$o"
	r=$(sed -n 's/^bench\.sh: results in //p' "$d/log")
	bad=
	[ "$(cat "$d/rc")" != 0 ] || bad="$bad; the killed driver: status 0"
	STOP_AT=0 resume_bench "$d" "$o" --resume "$r"
	[ "$(cat "$d/rc")" = 0 ] || bad="$bad; the resumption: status $(cat "$d/rc"): $(tail -n1 "$d/log")"
	[ "$(grep -c '' "$d/starts")" = $((want + 1)) ] ||
		bad="$bad; $(grep -c '' "$d/starts") runs started (want the $want of the run never stopped and the one stopped)"
	for f in report.txt report-old.txt results.json system.txt; do
		cmp -s "$a/$f" "$r/$f" || bad="$bad; $f differs from the run never stopped: $(diff "$a/$f" "$r/$f" | grep '^[<>]' | head -n2 | tr '\n' ' ')"
	done
	if [ -z "$bad" ] && [ "$want" -gt 4 ]; then
		ok "make bench resume: the driver killed in its 3rd run, resumed: $want runs in all ($((want - 4)) verification runs) and the one stopped; report.txt, report-old.txt, results.json and system.txt equal the run never stopped's"
	else
		notok "make bench resume ($want runs never stopped, want more than 4):${bad#;}"
	fi
}
