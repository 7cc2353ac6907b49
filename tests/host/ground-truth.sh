# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# ground_truth_scores: scripts/ground_truth.py's scores of the fixture
# tests/ground-truth/hw.csv, computed by hand (expect-*.txt):
#   - the load-only rule (+ below one task per CPU: hackbench 2 groups,
#     0.31, and tbench 64 clients, 0.25; - at 8 groups, 1.25): NPS1 signs
#     4 of 5 (TOPOEXT's +10 at 8 groups disagrees; its -2 at 2 groups is
#     under 5%), 0 of the 6 pairs ordered (a rule of load ties them),
#     Spearman 9 / sqrt(13.5 x 17) = 0.59 over the mean ranks; NPS4 1 of
#     2 (TOPOEXT's -10), 0 of 2 pairs (SIS_NODE and LIMIT differ by 3),
#     the rank undefined (one predicted value);
#   - predictions.csv, TOPOEXT unreachable at 8 groups: over the reachable
#     cells 4 of 4, 4 of 4 pairs, rank 1.00 (the same order), NPS4 2 of 2,
#     2 of 2, 1.5 / sqrt(3) = 0.87; over all cells, the unreachable one
#     disagreeing, NPS1 4 of 5, 4 of 6 pairs, 9.5 / sqrt(17.5 x 17) = 0.55.
# Then the load-only rule on the 2023 Zen3 table gives the figures the
# ground-truth issue quotes, and bad input is refused in one line.
ground_truth_scores() {
	local g=$top/tests/ground-truth gt=$S/ground_truth.py hw=$top/data/hardware/zen3-sis-node-2023.csv f got
	for f in rule predictions; do
		if [ "$f" = rule ]; then
			got=$("$gt" score "$g/hw.csv" 2>&1)
		else
			got=$("$gt" score --predictions "$g/predictions.csv" "$g/hw.csv" 2>&1)
		fi
		if [ "$got" = "$(cat "$g/expect-$f.txt")" ]; then
			ok "ground truth: the fixture's scores of the $f equal the hand-computed ones"
		else
			notok "ground truth: the fixture's scores of the $f: $(diff <(echo "$got") "$g/expect-$f.txt" | grep '^[<>]' | head -n2 | tr '\n' ' ')"
		fi
	done
	got=$("$gt" score "$hw" 2>&1 | sed -n '2,3p')
	if echo "$got" | grep -qx '  NPS1: sign 38 of 47, order 0 of 44 pairs, rank hackbench 0.82, .*' &&
		echo "$got" | grep -qx '  NPS4: sign 26 of 34, order 0 of 31 pairs, rank hackbench 0.85, .*'; then
		ok "ground truth: the load-only rule on the Zen3 table: NPS1 38 of 47 signs, 0 of 44 pairs, hackbench 0.82; NPS4 26 of 34, 0 of 31, 0.85"
	else
		notok "ground truth: the load-only rule on the Zen3 table: $(echo "$got" | tr '\n' ' ')"
	fi
	sed 's/,pct_vs_tip$/,pct/' "$g/hw.csv" >"$tmp/gt-nocol.csv"
	expect_error "ground truth: a hardware table without a column" "gt-nocol.csv: no column pct_vs_tip" \
		"$gt" score "$tmp/gt-nocol.csv"
	sed 's/,SIS_NODE_LIMIT,/,SIS_NODE_MAX,/' "$g/hw.csv" >"$tmp/gt-var.csv"
	expect_error "ground truth: an unknown variant" "gt-var.csv line 4: unknown variant 'SIS_NODE_MAX'" \
		"$gt" score "$tmp/gt-var.csv"
	sed '$d' "$g/predictions.csv" >"$tmp/gt-short.csv"
	expect_error "ground truth: a cell without its prediction" "no row for tbench NPS4 case 64 SIS_NODE_TOPOEXT" \
		"$gt" score --predictions "$tmp/gt-short.csv" "$g/hw.csv"
	sed 's/,ok$/,maybe/' "$g/predictions.csv" >"$tmp/gt-st.csv"
	expect_error "ground truth: a prediction neither ok nor unreachable" "status is ok or 'unreachable: why', not 'maybe'" \
		"$gt" score --predictions "$tmp/gt-st.csv" "$g/hw.csv"
}
