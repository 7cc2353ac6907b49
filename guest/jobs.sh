# The scoreboard's jobs: a benchmark at a load point, as a command line,
# its figure check and its units of work; sourced by score-guest.sh and
# cost-jobs.sh after they set T (a scratch directory), RUNTIME (seconds
# per timed run), MESSAGES (hackbench messages per run) and NETPERF_PORT.
# Puts netperf-clients into $T, which the caller adds to PATH.
ncpu=$(nproc)

# netperf-clients N: N netperf TCP_RR clients at once (Debian's netperf,
# 100-byte requests and responses), then their outputs
cat >"$T/netperf-clients" <<EOT
#!/bin/sh
i=0
while [ "\$i" -lt "\$1" ]; do
	netperf -H 127.0.0.1 -p $NETPERF_PORT -t TCP_RR -l $RUNTIME -- -r 100 -k THROUGHPUT >$T/np.\$i 2>&1 &
	i=\$((i + 1))
done
wait
cat $T/np.*
rm -f $T/np.*
EOT
chmod +x "$T/netperf-clients"
# tasks FRACTION: that fraction ("1/16", "2") of the CPU count, at least 1
tasks() {
	echo "$1" | awk -F/ -v n="$ncpu" '{ t = int(n * $1 / ($2 ? $2 : 1) + 0.5); print (t > 0 ? t : 1) }'
}

# job BENCH TASKS: set $cmd (the command line) and $ntasks (the tasks it
# runs, which want a CPU each) for about TASKS tasks of BENCH
job() {
	case $1 in
	hackbench)
		# rt-tests: a group is 2 x fds processes passing messages over
		# pipes, at most 20 fds (its default); messages per run stay near
		# MESSAGES, at least 10 per sender and receiver (a light load
		# needs many: its pipes take hundreds before a writer waits)
		g=$((($2 + 39) / 40))
		fd=$(($2 / (2 * g) > 0 ? $2 / (2 * g) : 1))
		l=$((MESSAGES / (g * fd * fd)))
		[ "$l" -ge 10 ] || l=10
		ntasks=$((2 * g * fd)) cmd="hackbench -p -g $g -f $fd -l $l" ;;
	schbench)
		# two message threads, each with its workers
		w=$((($2 - 2) / 2 > 0 ? ($2 - 2) / 2 : 1))
		ntasks=$((2 + 2 * w)) cmd="sis-schbench -m 2 -t $w -r $RUNTIME -i 0" ;;
	tbench)
		# a client and its server process each; under TCG the clients
		# take 3 s and a second per 4 clients to start (as bench-guest.sh)
		c=$(($2 / 2 > 0 ? $2 / 2 : 1))
		s=$((RUNTIME > 3 + c / 4 ? RUNTIME : 3 + c / 4))
		ntasks=$((2 * c)) cmd="tbench -t $s -c /usr/share/dbench/client.txt $c 127.0.0.1" ;;
	netperf)
		# Debian's netperf, one TCP_RR client process per connection,
		# each with its netserver child (netperf-clients, above)
		c=$(($2 / 2 > 0 ? $2 / 2 : 1))
		ntasks=$((2 * c)) cmd="netperf-clients $c" ;;
	esac
}

# figure BENCH: why the output in $T/cmd lacks BENCH's result, if it does
# (a load that did not run to its end measures something else)
figure() {
	case $1 in
	hackbench) grep -q '^Time:' "$T/cmd" || echo "no Time: line in hackbench's output" ;;
	schbench) grep -q '^average rps:' "$T/cmd" || echo "no average rps in schbench's output" ;;
	tbench)
		awk '/^Throughput/ { ok = $2 + 0 > 0 } END { exit !ok }' "$T/cmd" ||
			echo "no positive tbench Throughput (the run ended within its warm-up?)" ;;
	netperf)
		[ "$(grep -c '^THROUGHPUT=' "$T/cmd")" = "$c" ] ||
			echo "$(grep -c '^THROUGHPUT=' "$T/cmd") of $c netperf clients printed their THROUGHPUT" ;;
	esac
}

# work BENCH [FILE]: the units of work the run whose output is in FILE
# (default $T/cmd) did, or NA
work() {
	_wf=${2:-$T/cmd}
	case $1 in
	hackbench) echo $((g * fd * fd * l)) ;;
	schbench) awk -v t="$RUNTIME" '/^average rps:/ { printf "%d\n", $3 * t; f = 1 } END { if (!f) print "NA" }' "$_wf" ;;
	netperf) awk -v t="$RUNTIME" -F= '/^THROUGHPUT=/ { s += $2; f = 1 } END { print f ? int(s * t) : "NA" }' "$_wf" ;;
	*) echo NA ;;
	esac
}
