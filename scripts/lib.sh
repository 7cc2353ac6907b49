# shellcheck shell=bash
# Helpers shared by the lab scripts.  Source it; do not run it.

LAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_OUT=${LAB_OUT:-$LAB_TOP/build}

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# The Debian mirror URI this machine's apt already uses (deb822 or
# one-line format); never a hard-coded host.
apt_mirror() {
	local f uri=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' "$f")
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
		uri=$(awk '/^deb / && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
			/etc/apt/sources.list)
	fi
	[ -n "$uri" ] || die "no Debian mirror found in the apt configuration"
	printf '%s\n' "${uri%/}"
}

# private_apt DIR SUITE...: prepare a private apt state directory that
# knows only the given suites and print the APT_CONFIG file to use with
# apt-get/apt-cache, so the machine's own apt configuration and package
# lists are left untouched.
private_apt() {
	local dir=$1 mirror s
	shift
	mirror=$(apt_mirror)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/sources.list"
	for s in "$@"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main" \
			>>"$dir/sources.list"
	done
	cat >"$dir/apt.conf" <<EOT
Dir::Etc::SourceList "$dir/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::State::Lists "$dir/lists";
Dir::Cache "$dir/cache";
Debug::NoLocking "1";
APT::Sandbox::User "root";
EOT
	APT_CONFIG=$dir/apt.conf apt-get -qq update >&2 ||
		die "apt-get update failed for suites: $*"
	printf '%s\n' "$dir/apt.conf"
}

# touched_dirs PATCH...: kernel/sched/ (for any header) and the directories
# of the kernel C files the patches touch (the selftests' are not kernel
# objects), as make targets
touched_dirs() {
	{ echo kernel/sched/; sed -n 's|^+++ b/\(.*\)/[^/]*\.c$|\1/|p' "$@" |
		grep -v '^tools/'; } | sort -u | tr '\n' ' '
}

# The emulated Zen3 2P shape: 2 sockets x 8 CCX (one LLC each) x CORES x
# SMT2.  SHAPE=full is the real 2x64C/128T part (CORES=8, 256 CPUs);
# SHAPE=scaled (the default) keeps every count per node and halves the
# cores per CCX (128 CPUs); SHAPE=small has 2 cores per CCX (64 CPUs), for
# the debug kernel.  NPS=1|2|4 NUMA nodes per socket.
shape_init() {
	SOCKETS=2 CCX=8 THREADS=2
	case ${SHAPE:-scaled} in
	full) CORES=8 ;;
	scaled) CORES=4 ;;
	small) CORES=2 ;;
	*) die "unknown SHAPE '${SHAPE}' (scaled, full or small)" ;;
	esac
	case ${NPS:-1} in
	1|2|4) ;;
	*) die "unknown NPS '${NPS}': Zen3 has NPS1, NPS2 and NPS4" ;;
	esac
	NPS=${NPS:-1}
	CCX_CPUS=$((CORES * THREADS))
	SOCKET_CPUS=$((CCX * CCX_CPUS))
	NR_CPUS=$((SOCKETS * SOCKET_CPUS))
	NODES=$((SOCKETS * NPS))
	NODE_CPUS=$((SOCKET_CPUS / NPS))
}

# SLIT distance between two nodes: 10 local, 12 same socket, 32 remote.
node_distance() {
	if [ "$1" -eq "$2" ]; then
		echo 10
	elif [ $(($1 / NPS)) -eq $(($2 / NPS)) ]; then
		echo 12
	else
		echo 32
	fi
}
