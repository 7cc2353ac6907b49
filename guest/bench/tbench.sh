# shellcheck shell=sh disable=SC2016,SC2034,SC2154
# tbench: dbench's network client against tbench_srv on loopback (Debian's
# dbench; its client.txt goes into the guest).  A benchmark file: sourced
# by the guest drivers (sis-lib.sh bench_load, which describes the
# functions).

# result 40: tbench|higher|AMean|Clients|Normalized throughput|deb tbench tbench N against tbench_srv on loopback|tbench|tbench tbench_srv

tbench_cases() {
	case $SIZE in
	tiny) echo 1 ;;
	small) printf '%s\n' 1 $((ncpu / 4)) | sort -nu ;;
	full) powers $((ncpu * 4)) ;;
	esac
}

# tbench_secs CLIENTS: tbench leaves a warm-up out of its figure, and
# under TCG its clients take a while to start: 5 s, and a second per 2
# clients, at least (at 32 clients it printed 0 MB/s in 7 of 8 runs of
# 3 s, and in 1 of 5 runs of 11 s: a fresh clone's make bench, 2026-12-06)
tbench_secs() {
	echo $((RUNTIME > 5 + $1 / 2 ? RUNTIME : 5 + $1 / 2))
}

tbench_run() {
	measure tbench -t "$(tbench_secs "$1")" -c /usr/share/dbench/client.txt "$1" 127.0.0.1
	emit tbench "$1" "$(tbench_figure "$BENCH_OUT")"
}

tbench_figure() {
	${AWK:-awk} '/^Throughput/ { print $2 }' "$1"
}

# tbench_check VALUE: a throughput of 0 is a run that ended within its
# warm-up
tbench_check() {
	[ "$(${AWK:-awk} -v x="$1" 'BEGIN { print (x + 0 > 0) }')" != 0 ] ||
		echo "tbench printed $1 MB/s (the run ended within its warm-up)"
}

tbench_server() {
	tbench_srv >/dev/null 2>&1 &
}

tbench_server_port() {
	echo 7003
}

# the host programs its scoreboard job needs in the guest (scripts/score.sh)
tbench_score_programs='tbench tbench_srv'

# tbench_job TASKS: a client and its server process each
tbench_job() {
	tb_c=$(($1 / 2 > 0 ? $1 / 2 : 1))
	ntasks=$((2 * tb_c)) cmd="tbench -t $(tbench_secs "$tb_c") -c /usr/share/dbench/client.txt $tb_c 127.0.0.1"
}

tbench_missing() {
	awk '/^Throughput/ { ok = $2 + 0 > 0 } END { exit !ok }' "$1" ||
		echo "no positive tbench Throughput (the run ended within its warm-up?)"
}
