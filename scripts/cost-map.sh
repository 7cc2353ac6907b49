#!/bin/bash
# Write the sis-cost plugin's map of a kernel build: the address range of
# every function of kernel/sched, of the library helpers it calls, and
# the marker's entry.
set -eu
. "$(dirname "$0")/lib.sh"

# the marker: a system call that no benchmark makes; the guest runs
# "hostname NAME" (cost_mark in guest/sis-lib.sh) to make the plugin report
COST_MARKER=__x64_sys_sethostname

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [--also NAME,...] OBJDIR

OBJDIR is a kernel build directory (build/obj-qemu): its System.map gives
every text symbol's address, and the symbols that kernel/sched/*.o define
say which functions are the scheduler's.  A function ends where the next
text symbol starts.  Prints "START END f NAME" per function, "START END
h NAME" per library helper whose runs count as its caller's
(tools/cost-plugin/helpers) and "START END m $COST_MARKER" for the
marker, as the plugin reads them.
A name kernel/sched shares with other code (a header's function built
out of line in many objects) counts only where it lies between
scheduler-only functions; how many addresses that leaves out goes to
stderr.  --also adds the named functions of any other
code (a test's known path: __x64_sys_getppid).
EOT
}
also=
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--also) need_value "$@"; also=$2; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
obj=$1
[ -f "$obj/System.map" ] || die "no System.map in $obj (not a built kernel: run make build)"
objs=$(ls "$obj"/kernel/sched/*.o 2>/dev/null | grep -v '\.mod\.o$' || true)
[ -n "$objs" ] || die "no kernel/sched/*.o in $obj"
command -v nm >/dev/null || die "nm is not installed (binutils)"

# the helpers: global text symbols of the listed objects that a glob
# matches; an object this build lacks gives none
helpers=$(set -f; sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$LAB_TOP/tools/cost-plugin/helpers" |
	while read -r o globs; do
		[ -f "$obj/$o" ] || continue
		nm --defined-only "$obj/$o" | awk '$2 ~ /^[TW]$/ { print $3 }' |
			while read -r s; do
				for g in $globs; do
					# shellcheck disable=SC2254
					case $s in $g) echo "$s"; break ;; esac
				done
			done
	done | tr '\n' ' ')

# A name kernel/sched shares with other code (a header's inline function
# built out of line in many objects) is taken at the addresses that lie
# between scheduler-only functions: the linker keeps each object's text
# together.
# shellcheck disable=SC2086
{ nm --defined-only $objs | awk '$2 ~ /^[tTwW]$/ { print $3 }'
	printf '%s\n' "$also" | tr ',' '\n' | sed '/^$/d'; } |
	awk -v marker="$COST_MARKER" -v sysmap="$obj/System.map" -v helpers="$helpers" '
	{ want[$1]++ }
	END {
		nh = split(helpers, hl, " ")
		for (i = 1; i <= nh; i++)
			helper[hl[i]] = 1
		n = 0
		while ((getline l < sysmap) > 0) {
			split(l, f, " ")
			if (f[2] !~ /^[tTwW]$/)
				continue
			addr[n] = f[1]; name[n] = f[3]; times[f[3]]++; n++
		}
		if (!n) { print "System.map has no text symbols" > "/dev/stderr"; exit 1 }
		# 1: only the scheduler has the name; 2: shared; 0: not its
		for (i = 0; i < n; i++)
			kind[i] = !(name[i] in want) ? 0 : times[name[i]] > want[name[i]] ? 2 : 1
		found = 0
		for (i = 0; i < n; i++) {
			if (name[i] == marker) {
				printf "%s %s m %s\n", addr[i], (i + 1 < n) ? addr[i + 1] : addr[i], name[i]
				found = 1
			}
			# System.map is sorted by address; aliases share one
			if (i + 1 == n || addr[i + 1] == addr[i])
				continue
			if (!kind[i] && (name[i] in helper) && times[name[i]] == 1)
				printf "%s %s h %s\n", addr[i], addr[i + 1], name[i]
			if (!kind[i])
				continue
			if (kind[i] == 2) {
				for (p = i - 1; p >= 0 && kind[p] == 2; p--)
					;
				for (q = i + 1; q < n && kind[q] == 2; q++)
					;
				if (p < 0 || q == n || kind[p] != 1 || kind[q] != 1) {
					dropped++
					continue
				}
			}
			printf "%s %s f %s\n", addr[i], addr[i + 1], name[i]
		}
		if (dropped)
			printf "%d addresses of names kernel/sched shares with other code lie outside its text, left out\n", dropped > "/dev/stderr"
		if (!found) { print "no " marker " in System.map" > "/dev/stderr"; exit 1 }
	}'
