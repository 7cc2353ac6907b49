#!/bin/sh
# lab-boot: scaled 2
# Run the series' kselftest (tools/testing/selftests/sched/sis_test): its
# output as diagnostic lines, each of its results as one of ours.
. /lab/sis-lib.sh
ktap_begin

if ! command -v sis_test >/dev/null; then
	result kselftest FAIL "sis_test is not in the initramfs (tree without the selftest patch?)"
	exit 0
fi
sis_test >/tmp/tap 2>&1
rc=$?
sed 's/^/# /' /tmp/tap
# "ok 3 SIS_NODE exists..." / "not ok 3 ..." / "ok 9 # SKIP ..."
sed -n 's/^\(not \)\{0,1\}ok \([0-9]*\) \(.*\)$/\1|\2|\3/p' /tmp/tap |
while IFS='|' read -r not n text; do
	name=kselftest-$n
	case $text in
	'# SKIP'*) result "$name" ok "skipped: ${text#\# SKIP }" ;;
	*) if [ -z "$not" ]; then result "$name" ok "$text"; else result "$name" FAIL "$text"; fi ;;
	esac
done
case $rc in
0|4) result kselftest ok "sis_test exit status $rc, $(grep -c '^ok' /tmp/tap) ok, $(grep -c '^not ok' /tmp/tap) not ok" ;;
*) result kselftest FAIL "sis_test exit status $rc" ;;
esac

# the trap: sis_test stopped by SIGTERM while its landing test has
# DELAY_DEQUEUE and the SIS_NODE features switched must leave every
# feature as it found them
before=$(cat "$SCHED_FEATURES")
case " $(echo $before) " in
*" DELAY_DEQUEUE "*)
	sis_test >/tmp/tap-killed 2>&1 &
	pid=$!
	i=0
	while ! grep -qw NO_DELAY_DEQUEUE "$SCHED_FEATURES" && [ $i -lt 600 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -qw NO_DELAY_DEQUEUE "$SCHED_FEATURES"; then
		kill -TERM "$pid"
		wait "$pid"
		rc=$?
		after=$(cat "$SCHED_FEATURES")
		if [ "$before" = "$after" ]; then
			result kselftest-killed ok "SIGTERM in the landing test (status $rc): every feature restored"
		else
			result kselftest-killed FAIL "SIGTERM in the landing test (status $rc): features changed: $(echo $before | tr ' ' '\n' >/tmp/fb; echo $after | tr ' ' '\n' | grep -vxFf /tmp/fb | tr '\n' ' ')"
		fi
	else
		kill -TERM "$pid" 2>/dev/null
		wait "$pid"
		result kselftest-killed SKIP "sis_test never switched DELAY_DEQUEUE off (no landing test here: $(grep -o 'SKIP.*landing.*' /tmp/tap-killed | head -n1))"
	fi
	;;
*) result kselftest-killed SKIP "DELAY_DEQUEUE is off already" ;;
esac
