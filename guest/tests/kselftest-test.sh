#!/bin/sh
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
