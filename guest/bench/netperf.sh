# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# netperf: Debian's netperf, TCP_RR with 100-byte requests and responses,
# one client process per connection against our netserver on loopback
# (NETPERF_PORT).  A benchmark file: sourced by the guest drivers
# (sis-lib.sh bench_load, which describes the functions).

# result 50: netperf|higher|AMean|Clients|Normalized Throughput|deb netperf netperf TCP_RR, one per client, against netserver|netperf|

netperf_cases() {
	case $SIZE in
	tiny) echo 1 ;;
	small) printf '%s\n' 1 $((ncpu / 4)) | sort -nu ;;
	full) powers $((ncpu * 2)) ;;
	esac
}

netperf_run() {
	netperf_clients
	measure "$T/netperf-clients" "$1"
	emit netperf "$1-clients" "$(netperf_figure "$1" "$BENCH_OUT")"
}

# netperf_figure CLIENTS FILE: the TCP_RR transactions per second per
# client (their mean), when each of the CLIENTS netperf processes printed
# a positive THROUGHPUT= line (-k THROUGHPUT)
netperf_figure() {
	${AWK:-awk} -F= -v n="$1" '$1 == "THROUGHPUT" && $2 + 0 > 0 { s += $2; k++ }
		END { if (k == n && n > 0) printf "%.2f\n", s / n }' "$2"
}

# -D: netserver stays in the foreground and forks per test
netperf_server() {
	netserver -D -L 127.0.0.1 -p "$NETPERF_PORT" >/dev/null 2>&1 &
}

netperf_server_port() {
	echo "$NETPERF_PORT"
}

# netperf_clients: $T/netperf-clients N, both modes' client loop: N
# TCP_RR clients at once against netserver, their outputs printed when
# all have ended
netperf_clients() {
	[ ! -x "$T/netperf-clients" ] || return 0
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
}

# netperf_job TASKS: a client and its netserver child each; the clients
# run at once from $T/netperf-clients (the caller has $T on its PATH)
netperf_job() {
	np_c=$(($1 / 2 > 0 ? $1 / 2 : 1))
	ntasks=$((2 * np_c)) cmd="netperf-clients $np_c"
	netperf_clients
}

netperf_missing() {
	[ "$(grep -c '^THROUGHPUT=' "$1")" = "$np_c" ] ||
		echo "$(grep -c '^THROUGHPUT=' "$1") of $np_c netperf clients printed their THROUGHPUT"
}

# netperf_work FILE: the transactions of the run
netperf_work() {
	awk -v t="$RUNTIME" -F= '/^THROUGHPUT=/ { s += $2; f = 1 } END { print f ? int(s * t) : "NA" }' "$1"
}
