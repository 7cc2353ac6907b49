# shellcheck shell=bash
# Tiny test harness: counts results and prints the closing summary.
PASS=0
FAIL=0

ok() {
	PASS=$((PASS + 1))
	printf 'ok      %s\n' "$*"
}

notok() {
	FAIL=$((FAIL + 1))
	printf 'FAILED  %s\n' "$*"
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

# splats LOG: print kernel warnings, bugs and debug reports found in LOG
splats() {
	grep -E 'WARNING:|BUG:|Oops|Call Trace:|Kernel panic|possible (recursive|circular) locking|KASAN:|UBSAN:|kmemleak:.*suspected|blocked for more than|rcu_sched self-detected|RCU stall' "$1" || true
}

summary() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}
