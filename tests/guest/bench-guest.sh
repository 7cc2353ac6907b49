#!/bin/sh
# Guest half of scripts/bench.sh: run the benchmark matrix for each SIS
# variant, flipping features at run time in this one boot, interleaving
# variants and repeating rounds so drift spreads evenly.  Appends one CSV
# row per run to /lab/out/results.csv as soon as the run ends, so an
# interrupted run keeps what finished.
. /lab/sis-lib.sh
OUT=/lab/out
VARIANTS=${VARIANTS:-tip SIS_SHORT SIS_CORE SIS_NODE SIS_NODE_LIMIT SIS_NODE_MMC}
ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-100}
ALL="SIS_SHORT SIS_CORE SIS_NODE SIS_NODE_LIMIT SIS_NODE_MMC"
ncpu=$(nproc)

# variant NAME: all SIS features off, then those of NAME on ("a+b" combines)
variant() {
	for f in $ALL; do
		echo "NO_$f" >"$F" 2>/dev/null
	done
	[ "$1" = tip ] && return 0
	for f in $(echo "$1" | tr '+' ' '); do
		case $f in
		SIS_NODE_LIMIT|SIS_NODE_MMC) echo SIS_NODE >"$F" ;;
		esac
		echo "$f" >"$F" || return 1
	done
}

# hackbench groups scale with the CPU count: 1, 1/4, 1/2 and all CPUs'
# worth of 40-task groups
groups=$(printf '%s\n' 1 $((ncpu / 160 + 1)) $((ncpu / 80 + 1)) $((ncpu / 40 + 1)) | sort -nu)
[ -f "$OUT/results.csv" ] ||
	echo "bench,case,variant,round,value,unit,probes_per_wakeup,idle_hit_pct" >"$OUT/results.csv"

total=$(( ROUNDS * $(echo "$VARIANTS" | wc -w) ))
n=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# rotate the variant order every round
	order=$(echo "$VARIANTS" | tr ' ' '\n' | awk -v r="$r" '{ a[NR] = $0 } END {
		for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }')
	for v in $order; do
		n=$((n + 1))
		echo "bench: round $r/$ROUNDS, variant $v ($n of $total)"
		variant "$v" || { echo "bench: kernel lacks a feature of $v" >&2; exit 1; }
		for g in $groups; do
			/lab/sis-stats.sh hackbench -g "$g" -l "$LOOPS" >/tmp/hb 2>&1
			t=$(awk '/^Time:/ { print $2 }' /tmp/hb)
			pp=$(awk '/^probes per wakeup:/ { print $4 }' /tmp/hb)
			hit=$(awk '/^idle-hit rate:/ { sub("%", "", $3); print $3 }' /tmp/hb)
			echo "hackbench,$g-groups,$v,$r,${t:-NA},s,${pp:-NA},${hit:-NA}" >>"$OUT/results.csv"
		done
	done
	r=$((r + 1))
done
variant tip
sync
