#!/bin/bash
# Summarise a bench results.csv: per case and variant, the mean, its
# coefficient of variation and the change against tip.
set -eu

usage() {
	cat <<EOT
usage: ${0##*/} [--help] RESULTS.CSV

Columns: bench, case, variant, mean, CV% (sample stddev / mean), change
against tip in percent with the sign rule of LKML reports (positive =
better; hackbench times are lower-is-better), mean probes per wakeup and
idle-hit rate from the SIS statistics.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 1 ] || { usage >&2; exit 2; }
[ -r "$1" ] || { echo "${0##*/}: error: cannot read $1" >&2; exit 1; }

awk -F, 'NR > 1 && $5 != "NA" {
	k = $1 SUBSEP $2 SUBSEP $3
	if (!(k in n)) order[++nk] = k
	n[k]++; s[k] += $5; ss[k] += $5 * $5
	if ($7 != "NA") { pp[k] += $7; np[k]++ }
	if ($8 != "NA") { hit[k] += $8; nh[k]++ }
	lower[$1] = ($6 == "s")
}
END {
	printf "%-10s %-12s %-16s %10s %7s %9s %8s %8s\n", "bench", "case", "variant",
		"mean", "CV%", "vs tip", "probes/w", "idle-hit"
	for (i = 1; i <= nk; i++) {
		split(order[i], f, SUBSEP)
		k = order[i]; m = s[k] / n[k]
		sd = n[k] > 1 ? sqrt((ss[k] - n[k] * m * m) / (n[k] - 1)) : 0
		t = f[1] SUBSEP f[2] SUBSEP "tip"
		pct = "-"
		if ((t in n) && f[3] != "tip") {
			tm = s[t] / n[t]
			d = lower[f[1]] ? (tm - m) / tm : (m - tm) / tm
			pct = sprintf("%+.2f%%", 100 * d)
		}
		printf "%-10s %-12s %-16s %10.3f %7.2f %9s %8s %8s\n", f[1], f[2], f[3], m,
			m ? 100 * sd / m : 0, pct,
			np[k] ? sprintf("%.2f", pp[k] / np[k]) : "-",
			nh[k] ? sprintf("%.1f%%", hit[k] / nh[k]) : "-"
	}
}' "$1"
