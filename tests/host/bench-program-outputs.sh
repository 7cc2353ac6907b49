# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# the benchmark programs' outputs as the lab's parser (bench-guest.sh
# --parse) reads them; no timing is asserted, only that figures are found
host_bench_programs() {
	local bg=$top/guest/bench-guest.sh td=$top/tools/testdata t=$LAB_OUT/tools
	local got last n
	fig() { LAB_DIR=$top/guest sh "$bg" --parse "$@"; }
	# schbench: the final report, after interim ones (-i), gives the figures
	got="$(fig schbench rps "$td/schbench-interim.txt") $(fig schbench wakeup "$td/schbench-interim.txt") $(fig schbench request "$td/schbench-interim.txt")"
	if [ "$got" = "212.67 103 4003" ]; then
		ok "schbench parser: the final report's rps, wakeup and request p99 after two interim reports ($got)"
	else
		notok "schbench parser: got '$got' from $td/schbench-interim.txt, expected '212.67 103 4003'"
	fi
	head -n 40 "$td/schbench-interim.txt" >"$tmp/sch-cut"
	got="$(fig schbench rps "$tmp/sch-cut")$(fig schbench wakeup "$tmp/sch-cut")$(fig schbench request "$tmp/sch-cut")"
	if [ -z "$got" ]; then
		ok "schbench parser: a run cut off after its interim reports gives no figure"
	else
		notok "schbench parser: took '$got' from interim reports only"
	fi
	if "$t/sis-schbench" -m 1 -t 2 -r 3 -i 1 -n 1 -s 10 >"$tmp/sch-out" 2>"$tmp/sch-err"; then
		n=$(grep -c '^Wakeup Latencies' "$tmp/sch-err")
		last=$(awk '/^Wakeup/ { w = 1 } w && /\* 99\.0th:/ { v = $3; w = 0 } END { print v }' "$tmp/sch-err")
		got="$(fig schbench rps "$tmp/sch-err") $(fig schbench wakeup "$tmp/sch-err") $(fig schbench request "$tmp/sch-err")"
		if [ "$n" -ge 2 ] && [ ! -s "$tmp/sch-out" ] && grep -q '^current rps: ' "$tmp/sch-err" &&
			grep -q '^sched delay: message [0-9]* (usec) worker [0-9]* (usec)$' "$tmp/sch-err" &&
			echo "$got" | grep -Eq '^[0-9]+\.[0-9]+ [0-9]+ [0-9]+$' &&
			[ "$(echo "$got" | cut -d' ' -f2)" = "$last" ] && awk -v r="${got%% *}" 'BEGIN { exit !(r > 0) }'; then
			ok "sis-schbench -i 1: $n reports on stderr, the parser takes the final one (rps, wakeup p99, request p99: $got)"
		else
			notok "sis-schbench -i 1: $n reports, parsed '$got', last wakeup p99 '$last', stdout $(wc -c <"$tmp/sch-out") bytes"
		fi
	else
		notok "sis-schbench -r 3 -i 1 failed: $(tail -n1 "$tmp/sch-err")"
	fi
	# netperf: Debian's netperf and netserver run here, and a loopback
	# TCP_RR run of two clients on the server's own port, started as
	# bench-guest.sh starts them, gives a figure the parser reads
	if "$t/netperf" -V >"$tmp/npv" 2>&1 && "$t/netserver" -V >>"$tmp/npv" 2>&1 &&
		[ "$(grep -c '^Netperf version' "$tmp/npv")" = 2 ]; then
		ok "netperf -V, netserver -V: $(head -n1 "$tmp/npv"), from $(cat "$t/netperf.version")"
	else
		notok "netperf -V, netserver -V: $(tail -n1 "$tmp/npv")"
	fi
	local port=$((20000 + $$ % 10000)) srv i pids=
	"$t/netserver" -D -L 127.0.0.1 -p "$port" >"$tmp/netserver.log" 2>&1 &
	srv=$!
	sleep 1
	for i in 0 1; do
		"$t/netperf" -H 127.0.0.1 -p "$port" -t TCP_RR -l 1 -- -r 100 -k THROUGHPUT >"$tmp/np.$i" 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids || true
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	cat "$tmp"/np.[01] >"$tmp/np"
	got=$(fig netperf 2 "$tmp/np")
	if awk -v v="$got" 'BEGIN { exit !(v + 0 > 0) }' && [ -z "$(fig netperf 3 "$tmp/np")" ]; then
		ok "netperf TCP_RR on loopback, 2 clients: the parser reads $got transactions/s per client (and nothing when a client is missing)"
	else
		notok "netperf TCP_RR on loopback: parsed '$got' from: $(tr '\n' ' ' <"$tmp/np") $(tail -n1 "$tmp/netserver.log")"
	fi
	# stream: the barrier that ran is named, the four rates still parse
	for b in spin sleep; do
		if "$t/sis-stream" -n 100000 -t 3 -j 2 -b "$b" >"$tmp/stream" 2>&1; then
			got=$(for k in Copy Scale Add Triad; do fig stream "$k" "$tmp/stream"; done | grep -c '^[0-9][0-9.]*$')
			case $b in spin) want='^Barrier: spin-then-sleep' ;; sleep) want='^Barrier: sleep' ;; esac
			if [ "$got" = 4 ] && grep -q "$want" "$tmp/stream"; then
				ok "sis-stream -b $b: '$(grep '^Barrier:' "$tmp/stream")', the parser reads its 4 rates"
			else
				notok "sis-stream -b $b: $got rates parsed, barrier line '$(grep '^Barrier:' "$tmp/stream")'"
			fi
		else
			notok "sis-stream -b $b failed: $(tail -n1 "$tmp/stream")"
		fi
	done
	# the guest's programs: static but for sis-ubench, whose execl and spawn
	# run a dynamic binary as UnixBench's do; the initramfs holds the
	# libraries, and (as root) its sis-ubench runs on them in a chroot
	local out=$tmp/initramfs root=$tmp/initramfs/root dyn f l missing=
	mkdir -p "$root" "$LAB_OUT/dl"
	ln -s "$LAB_OUT/dl" "$out/dl"
	if LAB_OUT=$out LAB_TREE=$tmp/no-tree "$S/mkinitramfs.sh" "$out/i.cpio.gz" >/dev/null 2>"$out/log" &&
		(cd "$root" && zcat "$out/i.cpio.gz" | cpio -id --quiet 2>/dev/null); then
		dyn=$(for f in "$out"/tools-static/sis-*; do ldd "$f" >/dev/null 2>&1 && printf '%s ' "${f##*/}"; done)
		for f in sis-ubench netperf netserver; do
			for l in /usr/bin/$f $(ldd "$out/tools-static/$f" | awk '/=> \//{ print $3 } /^\t\//{ print $1 }'); do
				[ -e "$root$l" ] || missing="$missing $l"
			done
		done
		if [ "$dyn" = "sis-ubench " ] && [ -z "$missing" ]; then
			ok "initramfs: the lab's tools are static but for sis-ubench, which comes with its libraries, as do Debian's netperf and netserver"
		else
			notok "initramfs: dynamic tools '$dyn' (want sis-ubench only), missing:$missing"
		fi
		if [ "$(id -u)" != 0 ]; then
			ok "initramfs: the chroot run of its sis-ubench not tried (needs root)"
		elif unshare -m chroot "$root" /bin/sh -c 'mount -t proc proc /proc &&
				/usr/bin/sis-ubench -t 0.3 execl && /usr/bin/sis-ubench -t 0.3 spawn' >"$out/ub" 2>&1 &&
			got="$(fig unixbench <(grep ^Execl "$out/ub")) $(fig unixbench <(grep ^Process "$out/ub"))" &&
			awk -v a="${got% *}" -v b="${got#* }" 'BEGIN { exit !(a > 0 && b > 0) }'; then
			ok "initramfs: its dynamic sis-ubench runs execl and spawn on the copied libraries (lps: $got)"
		else
			notok "initramfs: sis-ubench in a chroot of it: $(tail -n2 "$out/ub" | tr '\n' ' ')"
		fi
		if [ "$(id -u)" = 0 ]; then
			if chroot "$root" /usr/bin/netperf -V >"$out/npv" 2>&1 &&
				chroot "$root" /usr/bin/netserver -V >>"$out/npv" 2>&1 &&
				[ "$(grep -c '^Netperf version' "$out/npv")" = 2 ]; then
				ok "initramfs: its netperf and netserver run on the copied libraries ($(head -n1 "$out/npv"))"
			else
				notok "initramfs: netperf -V in a chroot of it: $(tail -n2 "$out/npv" | tr '\n' ' ')"
			fi
		fi
	else
		notok "mkinitramfs.sh: $(tail -n2 "$out/log" | tr '\n' ' ')"
	fi
}
