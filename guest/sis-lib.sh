# Helpers shared by the guest tests and drivers; sourced.
# LAB_SCHED_DEBUGFS (default /sys/kernel/debug/sched) is the one place the
# guest code takes the kernel's sched debugfs from: the features file
# SCHED_FEATURES, the SIS statistics directory SIS_DEBUGFS, the domains
# and the knobs under it.  The lab's host tests point it at a fake, so
# that no test reads or writes the host's own.  Exported, with
# SIS_DEBUGFS, for the scripts started from here (sis-stats.sh reads
# SIS_DEBUGFS).  SIS_DEBUGFS and SCHED_FEATURES given from outside are
# taken only where they say the same.
case ${LAB_SCHED_DEBUGFS:-}:${SIS_DEBUGFS:-} in
:?*/sis) LAB_SCHED_DEBUGFS=${SIS_DEBUGFS%/sis} ;;
esac
LAB_SCHED_DEBUGFS=${LAB_SCHED_DEBUGFS:-/sys/kernel/debug/sched}
if [ "${SIS_DEBUGFS:-$LAB_SCHED_DEBUGFS/sis}" != "$LAB_SCHED_DEBUGFS/sis" ] ||
	[ "${SCHED_FEATURES:-$LAB_SCHED_DEBUGFS/features}" != "$LAB_SCHED_DEBUGFS/features" ]; then
	echo "sis-lib.sh: SIS_DEBUGFS and SCHED_FEATURES must be \$LAB_SCHED_DEBUGFS/sis and /features ($LAB_SCHED_DEBUGFS): set LAB_SCHED_DEBUGFS alone" >&2
	exit 2
fi
# the features file and the SIS statistics directory, which the guest
# code names by these two
SCHED_FEATURES=$LAB_SCHED_DEBUGFS/features
SIS_DEBUGFS=$LAB_SCHED_DEBUGFS/sis
export LAB_SCHED_DEBUGFS SIS_DEBUGFS

# The guest tests speak KTAP (Documentation/dev-tools/ktap.rst): each test
# script calls ktap_begin once, then result NAME ok|FAIL|SKIP [DETAIL] per
# test case; the plan and the totals follow when the script exits.  SKIP
# (DETAIL: the reason) is for a case this kernel or guest cannot run, a
# feature or a tool it lacks (require_feature, require_tool), never for
# one that went wrong.  A
# test script ends with exit 0, so another status means it died (a shell
# error), which is a failed result of its own; a script killed by a
# signal leaves no plan (tests/lib.sh ktap_results reads both on the host).  Results are counted in a file, as a test may
# report from a subshell.
ktap_begin() {
	KTAP_COUNT=/tmp/ktap.$$
	: >"$KTAP_COUNT"
	echo "KTAP version 1"
	echo "# ${0##*/}"
	trap ktap_end EXIT
}

# result NAME ok|FAIL|SKIP [DETAIL]: one KTAP test case result line
# ("ok N NAME # SKIP DETAIL" for SKIP)
result() {
	echo "$2" >>"$KTAP_COUNT"
	_ktap_n=$(wc -l <"$KTAP_COUNT")
	case $2 in
	ok) echo "ok $_ktap_n $1${3:+ # $3}" ;;
	SKIP) echo "ok $_ktap_n $1 # SKIP${3:+ $3}" ;;
	*) echo "not ok $_ktap_n $1${3:+ # $3}" ;;
	esac
}

ktap_end() {
	_rc=$?
	[ "$_rc" = 0 ] || result "${0##*/}" FAIL "the script exited with status $_rc"
	echo "1..$(wc -l <"$KTAP_COUNT")"
	echo "# Totals: pass:$(grep -cx ok "$KTAP_COUNT") fail:$(grep -cvx -e ok -e SKIP "$KTAP_COUNT") xfail:0 xpass:0 skip:$(grep -cx SKIP "$KTAP_COUNT") error:0"
	rm -f "$KTAP_COUNT"
}

# run_limited LIMIT SYSRQ OUT WHY CMD...: run CMD in a session of its own
# with its output in OUT, for at most LIMIT seconds.  A run still going
# then has the kernel print every CPU's stack and the blocked tasks (sysrq
# l and w written to SYSRQ, with the console loglevel at 7 meanwhile: the
# blocked-task lines are info level, and the lab boots with loglevel=5)
# and is killed with its whole session.  Sets
# $fail to why the run failed, empty when it did not: it hung, or it
# exited non-zero (with the last line of the file WHY).
run_limited() {
	_limit=$1 _sysrq=$2 _out=$3 _why=$4
	shift 4
	rm -f "$_out.hung"
	setsid "$@" >"$_out" 2>&1 &
	_mpid=$!
	setsid sh -c 'sleep "$1"; kill -0 "$2" || exit 0; : >"$3.hung"
		lvl=; read -r lvl _ </proc/sys/kernel/printk
		echo 7 >>"$4"; echo l >>"$4"; echo w >>"$4"; sleep 5
		case $lvl in [0-9]) echo "$lvl" >>"$4" ;; esac
		kill -KILL "-$2"' \
		limit "$_limit" "$_mpid" "$_out" "$_sysrq" >/dev/null 2>&1 &
	_wpid=$!
	_rc=0
	wait "$_mpid" || _rc=$?
	kill -TERM "-$_wpid" 2>/dev/null || true
	wait "$_wpid" 2>/dev/null || true
	fail=
	if [ -e "$_out.hung" ]; then
		fail="hung: killed after $_limit s, stacks of all CPUs and blocked tasks in the console log"
	elif [ "$_rc" != 0 ]; then
		fail="exit status $_rc: $(tail -n1 "$_why" | cut -c1-80)"
	fi
	rm -f "$_out.hung"
}

# conf KEY: the value of KEY=... in the run configuration $CONF that the
# host wrote (the bench and score drivers'); the last one counts
conf() {
	sed -n "s/^$1=//p" "$CONF" | tail -n1
}

# The benchmarks: one file each, guest/bench/NAME.sh, which defines
# functions named after it (NAME with "-" as "_"; all optional):
#   NAME_cases          make bench's cases at $SIZE (tiny, small, full),
#                       one word each ($ncpu, $nllc and powers MAX help)
#   NAME_run CASE       one run: measure CMD..., then emit RESULT CASE
#                       FIGURE per result, FIGURE read from CMD's output
#                       in $BENCH_OUT (bench-guest.sh)
#   NAME_figure ARG... FILE  the figure in a run's output (--parse),
#                       nothing when it has none (then no value is recorded)
#   NAME_check FIGURE   why a figure found is no result, if it is not
#   NAME_server         its server started in the background (the driver
#                       kills $! at its end); NAME_server_port, its port
#   NAME_job TASKS      the scoreboard's job: $cmd and $ntasks for about
#                       TASKS tasks (jobs.sh)
#   NAME_missing FILE   why that job's output lacks its result, if it does
#   NAME_work FILE      the units of work the job did (default NA)
#   NAME_score_programs='PROGRAM...'  (a variable) the host programs the
#                       job needs in the guest, read by scripts/score.sh
# and, in comment lines "# result RANK: ENTRY", the registry of its
# results (units, direction, statistic, program: bench-registry.sh).
# bench_load: source every benchmark file
bench_load() {
	for _bf in "$LAB_DIR"/bench/*.sh; do
		[ -r "$_bf" ] || continue
		# shellcheck disable=SC1090
		. "$_bf"
	done
}

# bench_fn NAME HOOK: the function HOOK of benchmark NAME, if it has one
bench_fn() {
	_bfn=$(echo "$1" | tr - _)_$2
	if command -v "$_bfn" >/dev/null 2>&1; then
		echo "$_bfn"
	fi
}

# bench_servers BENCH...: start the server of each benchmark that has one
# (NAME_server) in the background; their PIDs in $BENCH_SRVS, for the
# caller to kill at its end, and the ports they use in $BENCH_PORTS
bench_servers() {
	BENCH_SRVS='' BENCH_PORTS=''
	for _b in "$@"; do
		_f=$(bench_fn "$_b" server)
		[ -n "$_f" ] || continue
		$_f
		BENCH_SRVS="$BENCH_SRVS $!"
		_f=$(bench_fn "$_b" server_port)
		[ -z "$_f" ] || BENCH_PORTS="$BENCH_PORTS${BENCH_PORTS:+, }$_b uses port $($_f)"
	done
}

# bench_servers_up: whether every server bench_servers started still runs
# a second later
bench_servers_up() {
	sleep 1
	for _p in $BENCH_SRVS; do
		kill -0 "$_p" 2>/dev/null || return 1
	done
}

# sis_stat NAME FILE: the sis.NAME value printed by sis-stats.sh into FILE
sis_stat() {
	awk -v k="sis.$1" '$1 == k { print $2 }' "$2"
}

# stat_total NAME FILE...: the counter NAME (as sis_stat reads it) summed
# over the FILEs, a file without it counting 0
stat_total() {
	_k=$1
	shift
	cat "$@" | awk -v k="sis.$_k" '$1 == k { t += $2 } END { print t + 0 }'
}

# busy_rounds PREFIX ROUNDS VARIANT...: hackbench (rt-tests, processes
# over pipes) with as many processes as CPUs under the missed-idle audit,
# ROUNDS times each VARIANT (every feature of the series off, then
# feature_on VARIANT), into /tmp/PREFIX-VARIANT-ROUND; the features are
# put back as they were
busy_rounds() {
	_p=$1 _rounds=$2
	shift 2
	# groups of 2 x 16 processes
	_g=$((($(nproc) + 31) / 32))
	_saved=$(features_saved)
	_r=1
	while [ "$_r" -le "$_rounds" ]; do
		for _v in "$@"; do
			features_off
			feature_on "$_v"
			/lab/sis-stats.sh --audit hackbench -p -g "$_g" -f 16 -l 200 \
				>"/tmp/$_p-$_v-$_r" 2>&1
			echo "== $_p: $_v, round $_r"
			cat "/tmp/$_p-$_v-$_r"
		done
		_r=$((_r + 1))
	done
	features_off
	features_restore "$_saved"
}

# per_k K A B: A per K B, whole (-1 without B)
per_k() {
	[ "$3" -gt 0 ] && echo $(($1 * $2 / $3)) || echo -1
}

# sis_keys FILE KEY...: the figures sis-stats.sh printed into FILE as
# KEY=VALUE lines (the last line of each key; its --help names them), in
# the order asked, comma-separated; NA for a key it did not print or whose
# value is no number (n/a).  Its summary for people is never read.
sis_keys() {
	_sk=$1
	shift
	awk -v keys="$*" '
		/^[a-z_]+=/ { i = index($0, "="); f[substr($0, 1, i - 1)] = substr($0, i + 1) }
		END {
			n = split(keys, k, " ")
			for (i = 1; i <= n; i++) {
				v = (k[i] in f) ? f[k[i]] : ""
				if (v !~ /^[0-9]+(\.[0-9]+)?$/)
					v = "NA"
				printf "%s%s", v, (i < n ? "," : "\n")
			}
		}' "$_sk"
}

# figures bench|score: the SIS figures make bench or make score records
# from sis-stats.sh's KEY=VALUE lines, "KEY COLUMN" a line, in the order
# of $LAB_DIR/figures.txt (the one list of them)
figures() {
	awk -F'|' -v w="$1" '!/^#/ && NF == 8 && $1 != "" {
		c = (w == "bench" ? $2 : $5); if (c != "") print $1, c }' "$LAB_DIR/figures.txt"
}

# CPU lists are Linux's "0-3,64-67" form: under the Milan model an LLC or
# a node has two ranges, and SMT siblings are n and n + NR_CPUS/2.
# cpus LIST: its CPUs, one per line
cpus() {
	echo "$1" | tr ',' '\n' |
		awk -F- 'NF { for (c = $1; c <= (NF > 1 ? $2 : $1); c++) print c }'
}

# count LIST: how many CPUs it holds
count() {
	cpus "$1" | wc -l
}

# first LIST: its first CPU; rest LIST: the others, as a list
first() {
	cpus "$1" | head -n1
}
rest() {
	cpus "$1" | sed 1d | tr '\n' ',' | sed 's/,$//'
}

# hogs CPULIST: one spinning task on each CPU of the list, until stop_hogs
hogs() {
	start_hogs HOGS "$1"
}

stop_hogs() {
	kill $HOGS 2>/dev/null
	wait
	HOGS=
}

# start_hogs VAR CPULIST [-i] [-k] [-g CGROUP]: a spinning task on each CPU
# of the list (SCHED_IDLE with -i, each with a core-scheduling cookie of
# its own with -k, in the cgroup directory CGROUP with -g),
# their pids added to the list in the variable VAR; end_hogs VAR ends
# those alone (stop_hogs waits for every job).  It returns a second after
# every hog runs sis-load on its CPU: under TCG a fork and exec can
# outlast a fixed wait (a CI run's SIS_NODE_LIMIT case had 40 of 200
# wakeups find a free CPU in an LLC hogged 1 s earlier); it fails when
# one does not run there within 10 s.
start_hogs() {
	_hv=$1 _hl=$2 _hi='' _hk='' _hg='' _hw=''
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		-i) _hi=-i; shift ;;
		-k) _hk=-k; shift ;;
		-g) _hg=$2; shift 2 ;;
		*) echo "start_hogs: unknown option $1" >&2; return 2 ;;
		esac
	done
	for c in $(cpus "$_hl"); do
		if [ -n "$_hg" ]; then
			# shellcheck disable=SC2016,SC2086 # the inner shell's $1..
			sh -c 'echo $$ >"$1/cgroup.procs" && exec sis-load $3 $4 -c "$2" spin 3600' hog "$_hg" "$c" "$_hi" "$_hk" &
		else
			# shellcheck disable=SC2086
			sis-load $_hi $_hk -c "$c" spin 3600 &
		fi
		eval "$_hv=\"\${$_hv:-} $!\""
		_hw="$_hw $!:$c"
	done
	# shellcheck disable=SC2086
	wait_hogs $_hw
	_hr=$?
	# and PELT sees them busy (SIS_UTIL's scan depth follows it)
	sleep 1
	return "$_hr"
}

# wait_hogs PID:CPU...: wait up to 10 s in all until each PID runs sis-load
# on its CPU; a line on stderr names the first that does not
wait_hogs() {
	_t=0
	for _pc in "$@"; do
		until [ "$(awk '{ print $2, $39 }' "/proc/${_pc%:*}/stat" 2>/dev/null)" = "(sis-load) ${_pc#*:}" ]; do
			_t=$((_t + 1))
			if [ "$_t" -gt 100 ]; then
				echo "start_hogs: hog ${_pc%:*} not running on CPU ${_pc#*:} after 10 s" >&2
				return 1
			fi
			sleep 0.1
		done
	done
}

end_hogs() {
	eval "p=\$$1"
	# shellcheck disable=SC2086
	[ -z "$p" ] || { kill $p; wait $p; } 2>/dev/null
	eval "$1="
}

# llc_of CPU: the cpulist of CPU's last level cache
llc_of() {
	idx=$(ls -d /sys/devices/system/cpu/cpu"$1"/cache/index* | sort | tail -n1)
	cat "$idx/shared_cpu_list"
}

# llc N: the cpulist of the Nth LLC (0 is CPU 0's) in the order of their
# first CPUs; the next LLC starts at the lowest CPU the earlier ones lack
llc() {
	i=0 c=0 seen=
	while :; do
		l=$(llc_of "$c")
		[ "$i" -lt "$1" ] || { echo "$l"; return; }
		seen="$seen,$l" i=$((i + 1))
		c=$(cpus "$seen" | sort -n | awk '$1 == n { n++ } END { print n + 0 }')
	done
}

# feature_state NAME: NAME or NO_NAME as the features file shows it,
# nothing if the kernel lacks the feature
feature_state() {
	tr ' ' '\n' <"$SCHED_FEATURES" | grep -x -e "$1" -e "NO_$1"
}

# sis_features: the series' features this kernel has, as its features
# file names them: every SIS_ feature but the base kernel's SIS_UTIL (the
# host reads the same list from the series: scripts/lib.sh series_features)
sis_features() {
	tr ' ' '\n' <"$SCHED_FEATURES" | sed 's/^NO_//' | grep '^SIS_' | grep -vx SIS_UTIL
}

# feature_on NAME: switch NAME on, and first what it refines, without
# which it does nothing: SIS_NODE_LIMIT and SIS_NODE_MMC bound SIS_NODE's
# search, SIS_NODE_CORE makes it read SIS_CORE's masks, SIS_NODE_SUMMARY
# lists the LLCs SIS_NODE_CORE's walk visits, SIS_WORD_SUMMARY those
# SIS_WORD's does, SIS_WORD_SPARE holds that walk to a node with idle cores
# to spare.  Fails when the kernel refuses a name.
feature_on() {
	case $1 in
	SIS_NODE_LIMIT|SIS_NODE_MMC) echo SIS_NODE >"$SCHED_FEATURES" || return ;;
	SIS_NODE_CORE) { echo SIS_NODE >"$SCHED_FEATURES" && echo SIS_CORE >"$SCHED_FEATURES"; } || return ;;
	SIS_NODE_SUMMARY) feature_on SIS_NODE_CORE || return ;;
	SIS_WORD_SUMMARY|SIS_WORD_EXIT|SIS_WORD_LOAD) feature_on SIS_WORD || return ;;
	SIS_WORD_SPARE) feature_on SIS_WORD_SUMMARY || return ;;
	esac
	echo "$1" >"$SCHED_FEATURES"
}

# features_off: every feature of sis_features off
features_off() {
	for f in $(sis_features); do
		[ "$(feature_state "$f")" != "$f" ] || echo "NO_$f" >"$SCHED_FEATURES"
	done
}

# features_saved: the state of SIS_UTIL and of every feature of the
# series, as features_restore takes it back
features_saved() {
	for f in SIS_UTIL $(sis_features); do
		feature_state "$f"
	done | tr '\n' ' '
}

# features_restore STATES: put back what features_saved printed
features_restore() {
	for f in $1; do
		echo "$f" >"$SCHED_FEATURES"
	done
}

# require_feature NAME...: unless the kernel has every feature, report the
# first one missing as a skipped case (named after it: SIS_NODE_CORE gives
# sis-node-core) with the reason, and end the test script
require_feature() {
	for f in "$@"; do
		if [ -z "$(feature_state "$f" 2>/dev/null)" ]; then
			if [ -r "$SCHED_FEATURES" ]; then
				result "$(echo "$f" | tr 'A-Z_' 'a-z-')" SKIP "no $f in $SCHED_FEATURES"
			else
				result "$(echo "$f" | tr 'A-Z_' 'a-z-')" SKIP "no $f: no $SCHED_FEATURES"
			fi
			exit 0
		fi
	done
}

# require_tool CMD...: unless every CMD is a command here, report the
# first one missing as a skipped case named after it, and end the test
# script
require_tool() {
	for c in "$@"; do
		if ! command -v "$c" >/dev/null 2>&1; then
			result "$c" SKIP "$c is not installed here"
			exit 0
		fi
	done
}

# siblings CPU: the cpulist of CPU's core (CPU and its SMT siblings)
siblings() {
	cat /sys/devices/system/cpu/cpu"$1"/topology/thread_siblings_list
}

# without LIST DROP: the CPUs of LIST that are not in DROP, as a list
without() {
	cpus "$2" >/tmp/without.$$
	cpus "$1" | grep -vxF -f /tmp/without.$$ | tr '\n' ',' | sed 's/,$//'
	rm -f /tmp/without.$$
}
