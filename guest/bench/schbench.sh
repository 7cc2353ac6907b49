# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# schbench: the lab's sis-schbench (tools/sis-schbench.c), schbench's
# work: message threads waking workers.  A benchmark file: sourced by the
# guest drivers (sis-lib.sh bench_load, which describes the functions).

# result 30: new-schbench-requests-per-second|higher|Median|#workers|Normalized Requests per second|lab sis-schbench sis-schbench -m 2 -t N, the lab's own, matching schbench's work|schbench|
# result 30: new-schbench-wakeup-latency|lower|Median|#workers|Normalized 99th percentile latency in us|lab sis-schbench sis-schbench -m 2 -t N, the lab's own, matching schbench's work|schbench|
# result 30: new-schbench-request-latency|lower|Median|#workers|Normalized 99th percentile latency in us|lab sis-schbench sis-schbench -m 2 -t N, the lab's own, matching schbench's work|schbench|

schbench_cases() {
	case $SIZE in
	tiny) echo 1 ;;
	small) printf '%s\n' 1 $((ncpu / 8)) | sort -nu ;;
	full) powers $((ncpu / 2)) ;;
	esac
}

schbench_run() {
	measure sis-schbench -m 2 -t "$1" -r "$RUNTIME"
	emit new-schbench-requests-per-second "$1" "$(schbench_figure rps "$BENCH_OUT")"
	emit new-schbench-wakeup-latency "$1" "$(schbench_figure wakeup "$BENCH_OUT")"
	emit new-schbench-request-latency "$1" "$(schbench_figure request "$BENCH_OUT")"
}

# schbench_figure rps|wakeup|request FILE: the average rps, or the p99
# wakeup or request latency, of schbench's final report: the blocks that
# "average rps:" follows.  Interim reports (-i) end with "current rps:".
schbench_figure() {
	${AWK:-awk} -v want="$1" '
		/^Wakeup Latencies/ { blk = "wakeup" }
		/^Request Latencies/ { blk = "request" }
		/^RPS percentiles/ { blk = "" }
		blk != "" && /\* 99\.0th:/ { p99[blk] = $3; blk = "" }
		/^average rps:/ { v = (want == "rps") ? $3 : p99[want] }
		END { if (v != "") print v }' "$2"
}

# schbench_job TASKS: two message threads, each with its workers
schbench_job() {
	sb_w=$((($1 - 2) / 2 > 0 ? ($1 - 2) / 2 : 1))
	ntasks=$((2 + 2 * sb_w)) cmd="sis-schbench -m 2 -t $sb_w -r $RUNTIME -i 0"
}

schbench_missing() {
	grep -q '^average rps:' "$1" || echo "no average rps in schbench's output"
}

# schbench_work FILE: the requests of the run
schbench_work() {
	awk -v t="$RUNTIME" '/^average rps:/ { printf "%d\n", $3 * t; f = 1 } END { if (!f) print "NA" }' "$1"
}
