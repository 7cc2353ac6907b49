#!/bin/sh
# lab-boot: mmc 1 2 4
# Guest test of the MMC level (booted with sched_mmc): with the third LLC
# of CPU 0's node offline, the domains are rebuilt (a CPU of the sixth LLC
# goes off and on), and no other LLC may change its group: each CPU's MMC
# span loses the offline CPUs and nothing else, and is whole again after
# the LLC is back.
. /lab/sis-lib.sh
ktap_begin

# mmc_spans FILE: "cpu span" of every CPU's MMC domain
mmc_spans() {
	/lab/topo-dump.sh | awk '$1 == "DOMAIN" && $4 == "MMC" { print $2, $5 }' | sort -n >"$1"
}

mmc_spans /tmp/mmc-before
if [ ! -s /tmp/mmc-before ]; then
	result mmc-hotplug FAIL "no MMC level (boot with sched_mmc)"
	exit 0
fi
gone=$(llc 2)
other=$(first "$(llc 5)")
for c in $(cpus "$gone"); do
	echo 0 >"/sys/devices/system/cpu/cpu$c/online"
done
# the domains rebuilt while a CPU goes offline still see it in the
# topology masks: cycle a CPU of another LLC for a rebuild without LLC 2
echo 0 >"/sys/devices/system/cpu/cpu$other/online"
echo 1 >"/sys/devices/system/cpu/cpu$other/online"
mmc_spans /tmp/mmc-offline
for c in $(cpus "$gone"); do
	echo 1 >"/sys/devices/system/cpu/cpu$c/online"
done
mmc_spans /tmp/mmc-after

# the span a CPU had, without the offline CPUs, as one sorted list
expand() {
	cpus "$1" | sort -n | tr '\n' ' '
}
changed=0 first=
offline=" $(expand "$gone")"
while read -r c span; do
	case "$offline" in *" $c "*) continue ;; esac
	want=$(for x in $(expand "$span"); do
		case "$offline" in *" $x "*) ;; *) printf '%s ' "$x" ;; esac
	done)
	got=$(awk -v c="$c" '$1 == c { print $2 }' /tmp/mmc-offline)
	# an MMC equal to the LLC degenerates and leaves no MMC line
	[ -n "$got" ] || got=$(llc_of "$c")
	if [ "$(expand "$got")" != "$want" ]; then
		changed=$((changed + 1))
		[ -n "$first" ] || first="CPU $c: $span became $got"
	fi
done </tmp/mmc-before
if [ "$changed" = 0 ] && cmp -s /tmp/mmc-before /tmp/mmc-after; then
	result mmc-hotplug ok "LLC $gone offline: no other LLC changed its MMC group; whole again when back"
else
	result mmc-hotplug FAIL "LLC $gone offline: $changed CPUs changed their MMC group (${first:-none}); back online equal: $(cmp -s /tmp/mmc-before /tmp/mmc-after && echo yes || echo no)"
fi
exit 0
