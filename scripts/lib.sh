# shellcheck shell=bash
# Helpers shared by the lab scripts.  Source it; do not run it.

LAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_OUT=${LAB_OUT:-$LAB_TOP/build}

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# need_value "$@" in an option loop: the option in $1 has a value in $2
need_value() {
	[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"
}

# series_patches [DIR]: the patch names of DIR/series (default: the lab's
# patches), in order, without comments and blank lines
series_patches() {
	local dir=${1:-${LAB_PATCHES:-$LAB_TOP/patches}}
	[ -f "$dir/series" ] || die "no series file in $dir"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$dir/series"
}

# series_features [DIR]: the scheduler features the series adds, read from
# the SCHED_FEAT(SIS_...) lines its patches add, in series order
series_features() {
	local dir=${1:-${LAB_PATCHES:-$LAB_TOP/patches}} p
	series_patches "$dir" | while read -r p; do
		sed -n 's/^+SCHED_FEAT(\(SIS_[A-Z_]*\),.*/\1/p' "$dir/$p"
	done | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}

# base_tree: the path of the base kernel tree: KERNEL_SRC, or Debian's
# linux-source-7.3 (fetched and unpacked on first use)
base_tree() {
	local src
	if [ -n "${KERNEL_SRC:-}" ]; then
		src=$(cd "$KERNEL_SRC" 2>/dev/null && pwd) ||
			die "KERNEL_SRC=$KERNEL_SRC: no such directory"
	else
		src=$("$LAB_TOP/scripts/fetch-base.sh") || exit
	fi
	[ -f "$src/Makefile" ] && [ -f "$src/kernel/sched/fair.c" ] ||
		die "$src does not look like a Linux source tree (no kernel/sched/fair.c)"
	printf '%s\n' "$src"
}

# copy_tree SRC DEST: a clean copy of the kernel tree SRC as DEST (emptied
# first), without its git or quilt state; a tree that was built in place
# leaves its objects behind, as they would poison out-of-tree builds
copy_tree() {
	rm -rf "$2"
	mkdir -p "$2"
	tar -C "$1" --exclude=.git --exclude=.pc -cf - . | tar -C "$2" -xf -
	[ ! -f "$2/.config" ] || make -s -C "$2" mrproper
}

# kernel_make TREE OBJ ARG...: make ARG... in the kernel TREE with its
# objects in OBJ, through ccache, on JOBS (default every) CPUs.  Fixed
# build stamps and the paths ccache sees (relative to OBJ's directory)
# keep its hits across rebuilds, checkouts and trees laid out alike: a
# tree DIR/tree with its objects in DIR/obj-CONFIG (DIR: build,
# build/base, build/bisect) compiles a file the trees share only once.
kernel_make() {
	local tree=$1 obj=$2
	shift 2
	KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab \
		CCACHE_BASEDIR=$tree CCACHE_NOHASHDIR=1 \
		make -s -C "$tree" O="$obj" CC="ccache gcc" -j"${JOBS:-$(nproc)}" "$@"
}

# the benchmark registry, read by host and guest
BENCH_META=$LAB_TOP/guest/bench-meta.txt

# bench_names: the benchmarks (BENCHES names) of the registry, in its order
bench_names() {
	awk -F'|' '!/^#/ && NF >= 8 && !seen[$7]++ { print $7 }' "$BENCH_META" | tr '\n' ' ' | sed 's/ $//'
}

# bench_host_programs BENCH...: the host commands the guest needs for them
bench_host_programs() {
	awk -F'|' -v want=" $* " '!/^#/ && NF >= 8 && index(want, " " $7 " ") { print $8 }' "$BENCH_META" |
		tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}

# the series' debugging aid, for evaluating it, not for merging: make mail
# leaves it out unless asked
LAB_DEBUG_PATCH='*-sched-fair-Add-select_idle_sibling-statistics.patch'

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

# private_apt [--src] DIR SUITE...: prepare a private apt state directory
# that knows only the given suites (their source packages too with --src)
# and print the APT_CONFIG file to use with apt-get/apt-cache, so the
# machine's own apt configuration and package lists are left untouched.
private_apt() {
	local types=deb dir mirror s t
	[ "$1" != --src ] || { types="deb deb-src"; shift; }
	dir=$1
	shift
	mirror=$(apt_mirror)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/sources.list"
	for s in "$@"; do
		for t in $types; do
			echo "$t [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main" \
				>>"$dir/sources.list"
		done
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
# the debug kernel.  NPS=1|2|4 NUMA nodes per socket.  MODEL=milan (the
# default) is AMD EPYC Milan CPUID with Linux's Milan CPU numbering (all
# first threads, then all second threads); MODEL=intel is an Intel CPU
# model with QEMU's numbering (SMT siblings adjacent).
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
	case ${MODEL:-milan} in
	milan|intel) ;;
	*) die "unknown MODEL '${MODEL}' (milan or intel)" ;;
	esac
	SHAPE=${SHAPE:-scaled} NPS=${NPS:-1} MODEL=${MODEL:-milan}
	CCX_CPUS=$((CORES * THREADS))
	SOCKET_CPUS=$((CCX * CCX_CPUS))
	NR_CPUS=$((SOCKETS * SOCKET_CPUS))
	NODES=$((SOCKETS * NPS))
	NODE_CPUS=$((SOCKET_CPUS / NPS))
	APIC_TB=$(bits "$THREADS") APIC_CB=$(bits "$CORES") APIC_DB=$(bits "$CCX")
}

# QEMU numbers its vCPUs (the "index" of -numa cpus=) socket-major, then
# die (CCX), core, thread.  linux_cpu INDEX: the number Linux gives that
# vCPU under MODEL.  Linux numbers CPUs in MADT order: QEMU's own table
# (MODEL=intel) lists them by index; the Milan table (milan_madt) lists
# the first thread of every core, then the second threads.
linux_cpu() {
	if [ "$MODEL" = milan ]; then
		echo $(( $1 % THREADS * (NR_CPUS / THREADS) + $1 / THREADS ))
	else
		echo "$1"
	fi
}

# block_list WIDTH INDEX: the Linux cpulist ("0-3,64-67") of the aligned
# block of WIDTH vCPUs holding vCPU INDEX: a core, an LLC, a node...
block_list() {
	local first=$(($2 / $1 * $1)) i
	for ((i = first; i < first + $1; i++)); do
		linux_cpu "$i"
	done | sort -n | awk '
		function out() { printf "%s%s", sep, a == b ? a : a "-" b; sep = "," }
		NR == 1 { a = b = $1; next }
		$1 == b + 1 { b = $1; next }
		{ out(); a = b = $1 }
		END { out(); print "" }'
}

# bits N: the number of APIC ID bits QEMU gives a level of N items
bits() {
	local b=0
	while [ $((1 << b)) -lt "$1" ]; do b=$((b + 1)); done
	echo "$b"
}

# apic_id INDEX: the APIC ID QEMU gives vCPU INDEX (thread, core, die and
# socket fields, each as wide as its count needs)
apic_id() {
	local t=$(($1 % THREADS)) c=$(($1 / THREADS % CORES))
	local d=$(($1 / CCX_CPUS % CCX)) s=$(($1 / SOCKET_CPUS))
	echo $(( ((s << APIC_DB | d) << APIC_CB | c) << APIC_TB | t ))
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

# milan_cpu QEMU: the -cpu argument of the Milan model.  TCG filters out
# topoext, without which an AMD guest sees one L3 per socket; the
# experimental x-force-features=on keeps it, so every other feature this
# QEMU cannot emulate under TCG is switched off by name (asked of QEMU
# itself) and topoext, CPUID information only, is the one forced.
milan_cpu() {
	local q=$1 want=EPYC-Milan,+topoext drop
	[ "$NR_CPUS" -le 255 ] || want=$want,+x2apic
	"$q" -device EPYC-Milan-x86_64-cpu,help 2>/dev/null | grep -q 'x-force-features=' ||
		die "$q has no EPYC-Milan CPU with the x-force-features property, which MODEL=milan needs (MODEL=intel does not)"
	drop=$(echo quit | "$q" -machine q35 -accel tcg -cpu "$want" -smp 1 -nodefaults \
		-display none -S -monitor stdio -serial none 2>&1 >/dev/null |
		sed -n "s/.*TCG doesn't support requested feature: CPUID\.[^.]*\.\([^ ]*\) .*/\1/p" |
		grep -vx topoext || true)
	! printf '%s\n' "$drop" | grep -qx x2apic ||
		die "$q cannot emulate x2APIC under TCG, which $NR_CPUS CPUs need (QEMU 8.1 or later: make qemu-full)"
	# shellcheck disable=SC2086
	printf '%s%s,x-force-features=on\n' "$want" "$(printf ',-%s' $drop)"
}

# milan_madt: print the path of an uncompressed cpio holding
# kernel/firmware/acpi/APIC.aml, the MADT that gives Linux's Milan
# numbering for SHAPE (scripts/mkmadt.py), made once per shape.
milan_madt() {
	local f=$LAB_OUT/acpi/madt-milan-$SHAPE.cpio d q=0
	if [ -s "$f" ] && [ "$f" -nt "$LAB_TOP/scripts/mkmadt.py" ] &&
		[ "$f" -nt "$LAB_TOP/scripts/lib.sh" ]; then
		printf '%s\n' "$f"
		return
	fi
	d=$(mktemp -d)
	mkdir -p "$d/kernel/firmware/acpi" "${f%/*}"
	# shellcheck disable=SC2046
	python3 "$LAB_TOP/scripts/mkmadt.py" -o "$d/kernel/firmware/acpi/APIC.aml" \
		$(while [ "$q" -lt "$NR_CPUS" ]; do
			echo "$(linux_cpu "$q") $q:$(apic_id "$q")"
			q=$((q + 1))
		done | sort -n | cut -d' ' -f2) || die "cannot write the MADT"
	(cd "$d" && find kernel | cpio -o -H newc --quiet -R 0:0) >"$f.tmp" ||
		die "cannot pack the MADT"
	rm -rf "$d"
	mv "$f.tmp" "$f"
	printf '%s\n' "$f"
}
