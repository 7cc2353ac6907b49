#!/bin/sh
# The guest half of the cost plugin's test (tests/run.sh checks the
# plugin's reports on the host): known work between markers, the first of
# the boot.  Marks, in order (the plugin numbers its reports from 0 at the
# first marker run, as cost-mark.sh does):
#   0..1  sis-load getppid N      (N calls)
#   1..2  sis-load getppid 2N     (twice the calls)
#   2..3  one short hackbench run (a scheduler load)
#   3..4  sis-load getaffinity N  (N calls of a scheduler function that
#                                  calls a library helper, __bitmap_and)
#   4..5  sis-load getaffinity 2N
#   then 6 intervals, marks 6+2j to 7+2j: a pipe ping-pong (sis-load pair,
#         P round trips) of two processes pinned to two cores of one LLC,
#         each CPU running a SCHED_IDLE hog, so that neither enters idle
#         and each dequeue leaves SCHED_IDLE tasks only (SIS_WORD's one
#         case in those paths); 3 rounds of: every feature off, SIS_NODE
#         with SIS_WORD and its summary
# The host checks that the plugin reported these marks first, and
# compares the line transfers and upgrades of the enqueue and dequeue
# paths between the ping-pongs, whose wakeups run no placement.  The
# guest sees nothing of the counts; its only results are that the loads
# ran.
. /lab/sis-lib.sh
N=${1:-20000} P=${2:-5000}
ktap_begin
# the markers of cost-mark.sh, by hand: its shell would add a getppid()
# (busybox sh reads its parent at start) to the windows counted exactly
m=0
mark() {
	hostname "sis-cost-$m"
	m=$((m + 1))
}

mark
sis-load -c 1 getppid "$N" && r1=ok || r1=FAIL
mark
sis-load -c 1 getppid "$((2 * N))" && r2=ok || r2=FAIL
mark
hackbench -p -g 1 -f 8 -l 50 >/tmp/cost-hb 2>&1 && r3=ok || r3=FAIL
mark
sis-load -c 1 getaffinity "$N" && r4=ok || r4=FAIL
mark
sis-load -c 1 getaffinity "$((2 * N))" && r5=ok || r5=FAIL
mark
# two CPUs of LLC 0 on different cores
a=$(first "$(llc 0)")
b=$(cpus "$(llc 0)" | grep -vxF "$(cpus "$(siblings "$a")")" | head -n1)
saved=$(features_saved)
start_hogs IH "$a,$b" -i
r6=ok
for r in 1 2 3; do
	for v in off word; do
		features_off
		[ "$v" = off ] || { feature_on SIS_NODE && feature_on SIS_WORD_SUMMARY; } || r6=FAIL
		mark
		sis-load -c "$a" pair "$P" "$b" || r6=FAIL
		mark
	done
done
end_hogs IH
features_restore "$saved"
result "cost-getppid-runs" "$r1"
result "cost-getppid-2x-runs" "$r2"
result "cost-hackbench-runs" "$r3" "$(grep '^Time' /tmp/cost-hb)"
result "cost-getaffinity-runs" "$r4"
result "cost-getaffinity-2x-runs" "$r5"
result "cost-pair-runs" "$r6" "CPUs $a and $b"
echo "cost-test: marks $m, getppid $N, pair $P"
