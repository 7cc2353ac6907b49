# shellcheck shell=bash
# Tiny test harness: counts results and prints the closing summary.
PASS=0
FAIL=0
SKIP=0

ok() {
	PASS=$((PASS + 1))
	printf 'ok      %s\n' "$*"
}

notok() {
	FAIL=$((FAIL + 1))
	printf 'FAILED  %s\n' "$*"
}

# skipped WHAT: a test that could not run here (a feature or tool
# missing), neither passed nor failed; counted and named in the summary
skipped() {
	SKIP=$((SKIP + 1))
	printf 'skip    %s\n' "$*"
}

# expect_error NAME PATTERN CMD...: CMD must fail with one line matching
# PATTERN on stderr
expect_error() {
	local name=$1 pat=$2 err rc=0
	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" -eq 0 ]; then
		notok "$name: succeeded, expected an error"
	elif ! printf '%s\n' "$err" | grep -q -- "$pat"; then
		notok "$name: error did not match '$pat': $(printf '%s' "$err" | tail -n1)"
	else
		ok "$name: $(printf '%s\n' "$err" | grep -- "$pat" | head -n1)"
	fi
}

# ktap_results LOG: the guest tests' KTAP results in the console LOG
# (guest/sis-lib.sh writes them), one "ok|FAIL|skip NAME DETAIL" line per
# test case ("ok N NAME # SKIP REASON" gives skip, DETAIL the reason),
# and a FAIL line for each test script whose document ended without
# its plan (the script died on the way) or with a plan its results do not
# match.  Only top-level result lines count: a nested or quoted document
# is indented or commented.
ktap_results() {
	tr -d '\r' <"$1" | awk '
		function end_doc() {
			if (doc == "")
				return
			if (plan == "")
				print "FAIL " doc " ended without its plan, after " n " results"
			else if (plan != n)
				print "FAIL " doc " planned " plan " results and printed " n
			doc = ""
		}
		/^KTAP version 1$/ { end_doc(); doc = "a-test"; n = 0; plan = ""; named = 0; next }
		doc == "" { next }
		# the line after the version names the script
		!named++ && /^# [^ ]+$/ { doc = substr($0, 3); next }
		/^(not )?ok [0-9]+ / {
			n++
			res = ($1 == "not") ? "FAIL" : "ok"
			rest = $0
			sub(/^(not )?ok [0-9]+ /, "", rest)
			detail = ""
			i = index(rest, " # ")
			if (i) {
				detail = substr(rest, i + 3)
				rest = substr(rest, 1, i - 1)
			}
			if (res == "ok" && detail ~ /^SKIP( |$)/) {
				res = "skip"
				detail = substr(detail, 6)
			}
			print res, rest, detail
			next
		}
		/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; end_doc() }
		END { end_doc() }'
}

# csv_cols CSV NAME...: the columns NAME... of each data row of CSV, by
# the names of its header, comma-separated
csv_cols() {
	local f=$1
	shift
	awk -F, -v want="$*" '
		NR == 1 {
			n = split(want, w, " ")
			for (i = 1; i <= NF; i++)
				c[$i] = i
			for (j = 1; j <= n; j++)
				if (!(w[j] in c)) {
					print FILENAME ": no column " w[j] >"/dev/stderr"
					exit 1
				}
			next
		}
		{
			s = $c[w[1]]
			for (j = 2; j <= n; j++)
				s = s "," $c[w[j]]
			print s
		}' "$f"
}

# descendants PID: PID and every process below it, one a line
descendants() {
	ps -e -o pid=,ppid= | awk -v r="$1" '{ p[$1] = $2 }
		END {
			s[r] = 1
			do {
				n = 0
				for (c in p)
					if (!(c in s) && (p[c] in s)) { s[c] = 1; n++ }
			} while (n)
			for (c in s) print c
		}'
}

# hang_guard LIMIT DIAG CMD...: run CMD, with LIMIT seconds as a guard
# against a hang, far above what CMD takes on a loaded machine, never a
# measure of its speed.  CMD still running at LIMIT has its process tree
# (state, wait channel, arguments) and each process's kernel stack written
# to DIAG, and is killed with every process below it, which are gone when
# hang_guard returns: status 124 then, CMD's own otherwise.
hang_guard() {
	local limit=$1 diag=$2 pid w rc=0
	shift 2
	rm -f "$diag"
	"$@" &
	pid=$!
	(
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		sleep "$limit" &
		s=$!
		wait "$s"
		# from here on the guard finishes its work before it ends
		trap '' TERM
		kill -0 "$pid" 2>/dev/null || exit 0
		procs=$(descendants "$pid")
		{
			echo "still running after $limit s:"
			ps -o pid,ppid,stat,etime,wchan:24,args -p "$(echo $procs | tr ' ' ,)"
			for p in $procs; do
				[ -s "/proc/$p/stack" ] && { echo "kernel stack of $p:"; cat "/proc/$p/stack"; }
			done
		} >"$diag.new" 2>&1
		mv "$diag.new" "$diag"
		# shellcheck disable=SC2086
		kill -KILL $procs 2>/dev/null
		# gone, not only signalled (a traced process lingers until its
		# tracer lets it exit): at most 30 s
		for _ in $(seq 300); do
			alive=
			for p in $procs; do
				[ -z "$({ tr -d '\0' <"/proc/$p/cmdline"; } 2>/dev/null)" ] || alive=$p
			done
			[ -n "$alive" ] || break
			sleep 0.1
		done
	) &
	w=$!
	wait "$pid" || rc=$?
	kill "$w" 2>/dev/null || true
	wait "$w" 2>/dev/null || true
	[ ! -e "$diag" ] || return 124
	return "$rc"
}

# the first line of each kind of kernel splat
SPLAT_RE='WARNING:|BUG:|Oops|Kernel panic|possible (recursive|circular) locking|KASAN:|UBSAN:|kmemleak:.*suspected|blocked for more than|rcu_[a-z]+ (self-)?detected|detected (expedited )?stalls|hard LOCKUP|RCU stall'

# splats LOG: print kernel warnings, bugs and debug reports found in LOG,
# and the backtraces' "Call Trace:" lines
splats() {
	grep -E "$SPLAT_RE|Call Trace:" "$1" || true
}

# series_files: the paths the patch series changes, one per line
series_files() {
	sed -n 's|^+++ b/||p' "$top"/patches/[0-9]*.patch | sort -u
}

# foreign_warnings LOG: true when LOG has WARNINGs and each is at a file
# the series does not change (series_files; "WARNING: [...] at PATH:LINE"
# or "WARNING: PATH:LINE at FUNC")
foreign_warnings() {
	local w paths path files
	w=$(splats "$1" | grep 'WARNING:') || return 1
	paths=$(printf '%s\n' "$w" | sed -E -n \
		-e 's/.*WARNING: ([^ ]+):[0-9]+ at .*/\1/p' \
		-e 's/.*WARNING: CPU: .* at ([^ ]+):[0-9]+ .*/\1/p')
	# a WARNING without a path is not judged foreign
	[ "$(printf '%s\n' "$paths" | grep -c .)" -eq "$(printf '%s\n' "$w" | wc -l)" ] ||
		return 1
	files=$(series_files)
	for path in $paths; do
		! grep -qxF "${path#../tree/}" <<<"$files" || return 1
	done
}

# splat_text LOG: the first splat of LOG, from its first line up to its
# end-of-trace marker (at most 40 lines), for the test output
splat_text() {
	tr -d '\r' <"$1" | awk -v re="$SPLAT_RE" '
		!on && $0 ~ re { on = 1 }
		on { print; if (/---\[ end trace/ || ++n >= 40) exit }'
}

# retry_splats LOG: true when LOG's splats are each either a soft lockup
# or a WARNING at a file the series does not change (foreign_warnings),
# with the backtraces they print.  Such a boot is booted once more
# (boot_check in tests/sections/boots.sh); a splat that comes back on the second boot
# fails, any other splat fails at once.  Soft lockups: under TCG, 128
# vCPUs on two host cores can spin for minutes on a lock whose holder's
# vCPU the host does not run (README, the load ceilings).  Foreign
# warnings: seen once in CI (stop 26, scaled NPS1), hrtimer_forward()'s
# WARN_ON(timer->is_queued) in kernel/time/hrtimer.c, with sis-load
# current and no backtrace kept.
retry_splats() {
	local other
	[ -n "$(splats "$1")" ] || return 1
	other=$(splats "$1" | grep -v -e 'BUG: soft lockup' -e 'Call Trace:' -e 'WARNING:' || true)
	[ -z "$other" ] || return 1
	! splats "$1" | grep -q 'WARNING:' || foreign_warnings "$1"
}

# ktap_report TAG LOG: each KTAP result of LOG (ktap_results) as one of
# ours: passed, failed or skipped, named "TAG: NAME: DETAIL"
ktap_report() {
	local res name detail
	while read -r res name detail; do
		case $res in
		ok) ok "$1: $name: $detail" ;;
		skip) skipped "$1: $name: $detail" ;;
		*) notok "$1: $name: $detail" ;;
		esac
	done < <(ktap_results "$2")
}

# summary: the skipped tests' count (when any), then "N passed, N failed"
# as the last line, which .ci/run reads; false when any failed
summary() {
	[ "$SKIP" = 0 ] || echo "$SKIP skipped (the 'skip' lines: a feature or tool missing here)"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

# budget_report SECTION=SECONDS...: each section's time beside its budgets
# in TEST_BUDGETS (default tests/budgets.txt), "over" where it took more;
# a section without a budget fails the run, named in one line (time is no
# assertion: over budget is printed only)
budget_report() {
	local table=${TEST_BUDGETS:-$top/tests/budgets.txt} kv s t b w c sum=0
	echo "== time per section, beside its budget (warm, cold) in ${table#"$top"/}"
	for kv in "$@"; do
		s=${kv%=*} t=${kv#*=}
		sum=$((sum + t))
		b=$(awk -v s="$s" '!/^#/ && $1 == s { print $2, $3; exit }' "$table" 2>/dev/null)
		if [ -z "$b" ]; then
			notok "section $s has no budget in $table"
			continue
		fi
		w=${b% *} c=${b#* }
		case $w:$c in
		*[!0-9:]*|:*|*:) notok "section $s: its budget line is not SECTION WARM COLD in seconds"; continue ;;
		esac
		if [ "$t" -gt "$c" ]; then
			b="over both budgets"
		elif [ "$t" -gt "$w" ]; then
			b="over the warm budget"
		else
			b="within both"
		fi
		printf '# %-12s %5d s  (budget %5d warm, %5d cold: %s)\n' "$s" "$t" "$w" "$c" "$b"
	done
	printf '# %-12s %5d s\n' total "$sum"
}
