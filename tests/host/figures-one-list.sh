# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# figures_one_list: a counter outside the kernel is its KEY=VALUE line in
# sis-stats.sh and its line in guest/figures.txt.  With a line added to a
# copy of the guest folder, both guest drivers' column lists and the
# bench driver's cells name it, and both reports' tables have it
figures_one_list() {
	local d=$tmp/figures got py
	rm -rf "$d"
	cp -r "$G" "$d"
	echo 'toy_pct|toy_pct|toy rate|%.1f%%|toy_pct|toy %|toy|1' >>"$d/figures.txt"
	printf 'wakeups=10\nprobes_per_wakeup=1.50\ntoy_pct=42.0\n' >"$tmp/figures.out"
	# the guest code's sched debugfs pointed at a fake, as every host test's
	got=$(LAB_DIR=$d LAB_SCHED_DEBUGFS=$d/sched sh -c '. "$LAB_DIR/sis-lib.sh"
		figures bench | tail -n1; figures score | tail -n1' 2>&1 | tr '\n' ' ')
	got="$got/ $(LAB_DIR=$d LAB_SCHED_DEBUGFS=$d/sched sh "$d/bench-guest.sh" --parse sis "$tmp/figures.out" 2>&1)"
	py=$(python3 - "$top/scripts" "$d/figures.txt" <<-'EOT' 2>&1
	import sys
	sys.path.insert(0, sys.argv[1])
	import lab_results
	f = lab_results.read_figures(sys.argv[2])
	print([x.bench for x in f if x.bench][-2:], [x.score for x in f if x.score][-1])
	EOT
	)
	if [ "$got" = "toy_pct toy_pct toy_pct toy_pct / 10,1.50,NA,NA,NA,NA,NA,NA,NA,NA,42.0" ] &&
		[ "$py" = "['pu_xpw', 'toy_pct'] toy_pct" ]; then
		ok "figures: a line in guest/figures.txt gives both drivers' columns and cells and both reports' figures ($py)"
	else
		notok "figures: with toy_pct added: guest '$got', reports '$py'"
	fi
	printf 'a|b|c\n' >"$tmp/figures.bad"
	expect_error "figures: a line without its 8 fields" "line 1: 3 fields, not 8" \
		python3 -c "import sys; sys.path.insert(0, '$top/scripts'); import lab_results; lab_results.read_figures('$tmp/figures.bad')"
}
