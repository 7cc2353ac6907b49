# shellcheck shell=bash
# Helpers shared by the lab scripts.  Source it; do not run it.

LAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_OUT=${LAB_OUT:-$LAB_TOP/build}

# The highest load point of each benchmark under TCG.  Above them the
# 128-vCPU guest on two host cores spends minutes in soft lockups, its
# spinlock holders waiting for the host to run their vCPU (measured:
# schbench with 128 workers on a page table lock, tbench with 64 clients
# on the slab node lock), or runs take a minute (netperf, 32 clients:
# 36-68 s); hackbench's processes over pipes reach 2x in 35-70 s.
SCORE_CEILINGS="schbench=1/4 tbench=1/4 netperf=1/4"

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
# build stamps (the build number too, which kbuild would count up at every
# link: the same tree then builds the same bytes, which a resumed replay
# checks) and the paths ccache sees (relative to OBJ's directory)
# keep its hits across rebuilds, checkouts and trees laid out alike: a
# tree DIR/tree with its objects in DIR/obj-CONFIG (DIR: build,
# build/base, build/bisect) compiles a file the trees share only once.
kernel_make() {
	local tree=$1 obj=$2
	shift 2
	KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab \
		KBUILD_BUILD_VERSION=${KBUILD_BUILD_VERSION:-1} \
		CCACHE_BASEDIR=$tree CCACHE_NOHASHDIR=1 \
		make -s -C "$tree" O="$obj" CC="ccache gcc" -j"${JOBS:-$(nproc)}" "$@"
}

# cost_plugin ERRFILE: the sis-cost plugin built for the QEMU the
# platform's boot takes (build-cost-plugin.sh); false, with the reason
# as the last line of ERRFILE, when it cannot be
cost_plugin() {
	local q
	q=$(platform_qemu)
	"$LAB_TOP/scripts/build-cost-plugin.sh" ${q:+--qemu "$q"} >/dev/null 2>"$1"
}

# bench_registry: the benchmark registry, collected from the benchmarks'
# files (guest/bench-registry.sh), read by host and guest
bench_registry() {
	sh "$LAB_TOP/guest/bench-registry.sh"
}

# bench_names: the benchmarks (BENCHES names) of the registry, in its order
bench_names() {
	bench_registry | awk -F'|' 'NF >= 8 && !seen[$7]++ { print $7 }' | tr '\n' ' ' | sed 's/ $//'
}

# bench_host_programs BENCH...: the host commands the guest needs for them
bench_host_programs() {
	bench_registry | awk -F'|' -v want=" $* " 'NF >= 8 && index(want, " " $7 " ") { print $8 }' |
		tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}

# the series' debugging aid, for evaluating it, not for merging: make mail
# leaves it out unless asked
LAB_DEBUG_PATCH='*-sched-fair-Add-select_idle_sibling-statistics.patch'

# stall_reports LOG: how many stalls (RCU, soft lockup, hung task) the
# kernel reported in the console LOG
stall_reports() {
	grep -cE 'detected stalls|soft lockup|blocked for more than' "$1" 2>/dev/null || true
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

# The platforms: one data file each, configs/platform/NAME, named by MODEL
# (default milan; LAB_PLATFORMS names another directory, for tests).
# Lines KEY=VALUE ('#' comments), every key required:
#   description           one line, for help texts and reports
#   vendor                amd or intel: how Linux derives the LLC ID from
#                         the APIC ID (AMD's CPUID 0x8000001D shifts it,
#                         Intel's leaf 4 masks it) and the node reclaim
#                         distance (32 on AMD Zen, else 30)
#   cpu                   QEMU CPU models, the first one the QEMU has is taken
#   cpu_flags             what follows the model in -cpu (+topoext, level=0xd)
#   force_features        yes: x-force-features=on keeps what TCG would
#                         filter out (topoext), and every other feature the
#                         QEMU cannot emulate is switched off by name
#                         (platform_cpu asks QEMU which); no: the model as is
#   sockets, llcs_per_socket, cores_per_llc, threads_per_core
#                         the real part (SHAPE=full)
#   nps                   the NPS modes (NUMA nodes per socket) it supports
#   numbering             linux: the firmware's order, Linux's numbering of
#                         the real part (every core's first thread, then the
#                         second threads: CPU n's sibling is n + NR_CPUS/2),
#                         given by a MADT of our own (platform_madt); qemu:
#                         QEMU's order (SMT siblings adjacent)
#   scaled_cores_per_llc, small_cores_per_llc
#                         cores per LLC of SHAPE=scaled and SHAPE=small: the
#                         LLCs per socket and per node stay the real part's
LAB_PLATFORMS=${LAB_PLATFORMS:-$LAB_TOP/configs/platform}
PLATFORM_KEYS="description vendor cpu cpu_flags force_features sockets llcs_per_socket
cores_per_llc threads_per_core nps numbering scaled_cores_per_llc small_cores_per_llc"

# platform_names: the platforms (MODEL values), in one line
platform_names() {
	local f out=
	for f in "$LAB_PLATFORMS"/*; do
		[ -f "$f" ] && out="$out${out:+ }${f##*/}"
	done
	printf '%s\n' "$out"
}

# platform_load NAME: the keys of configs/platform/NAME as PLAT_<key>
# variables (PLAT_cpu, PLAT_nps...); an unknown platform, key or value
# is refused in one line
platform_load() {
	local f=$LAB_PLATFORMS/$1 line k v
	case $1 in ''|*[!a-z0-9_-]*) f= ;; esac
	[ -n "$f" ] && [ -f "$f" ] ||
		die "unknown MODEL '$1' (platforms: $(platform_names))"
	for k in $PLATFORM_KEYS; do
		unset "PLAT_$k"
	done
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in ''|'#'*) continue ;; esac
		k=${line%%=*} v=${line#*=}
		case " $(echo $PLATFORM_KEYS) " in
		*" $k "*) printf -v "PLAT_$k" '%s' "$v" ;;
		*) die "$f: unknown key '$k' in '$line'" ;;
		esac
	done <"$f"
	for k in $PLATFORM_KEYS; do
		v=PLAT_$k
		[ -n "${!v:-}" ] || die "$f: no $k= line"
		case $k:${!v} in
		sockets:*|llcs_per_socket:*|cores_per_llc:*|threads_per_core:*|*_cores_per_llc:*)
			case ${!v} in *[!0-9]*|0*) die "$f: $k must be a positive number, not '${!v}'" ;; esac ;;
		vendor:amd|vendor:intel|force_features:yes|force_features:no) ;;
		numbering:linux|numbering:qemu) ;;
		vendor:*|force_features:*|numbering:*) die "$f: $k cannot be '${!v}'" ;;
		esac
	done
}

# shape_init: the emulated machine of MODEL (default milan), SHAPE and
# NPS: SHAPE=full is the real part, scaled (the default) and small keep
# its sockets, LLCs per socket and per node, and SMT with fewer cores per
# LLC (the platform's scaled_cores_per_llc, small_cores_per_llc); NPS
# (default 1) is one of the platform's NPS modes.  Sets SOCKETS, CCX (LLCs
# per socket, one QEMU die each), CORES (per LLC), THREADS, CCX_CPUS,
# SOCKET_CPUS, NR_CPUS, NODES, NODE_CPUS and the APIC ID field widths.
# shellcheck disable=SC2154 # PLAT_*: platform_load
shape_init() {
	SHAPE=${SHAPE:-scaled} NPS=${NPS:-1} MODEL=${MODEL:-milan}
	platform_load "$MODEL"
	SOCKETS=$PLAT_sockets CCX=$PLAT_llcs_per_socket THREADS=$PLAT_threads_per_core
	case $SHAPE in
	full) CORES=$PLAT_cores_per_llc ;;
	scaled) CORES=$PLAT_scaled_cores_per_llc ;;
	small) CORES=$PLAT_small_cores_per_llc ;;
	*) die "unknown SHAPE '${SHAPE}' (scaled, full or small)" ;;
	esac
	case " $PLAT_nps " in
	*" $NPS "*) ;;
	*) die "unknown NPS '${NPS}': $MODEL has NPS$(echo $PLAT_nps | sed 's/ /, NPS/g; s/\(.*\), /\1 and /')" ;;
	esac
	[ $((CCX % NPS)) = 0 ] ||
		die "NPS$NPS cannot split the $CCX LLCs of a $MODEL socket evenly"
	CCX_CPUS=$((CORES * THREADS))
	SOCKET_CPUS=$((CCX * CCX_CPUS))
	NR_CPUS=$((SOCKETS * SOCKET_CPUS))
	NODES=$((SOCKETS * NPS))
	NODE_CPUS=$((SOCKET_CPUS / NPS))
	APIC_TB=$(bits "$THREADS") APIC_CB=$(bits "$CORES") APIC_DB=$(bits "$CCX")
}

# QEMU numbers its vCPUs (the "index" of -numa cpus=) socket-major, then
# die (LLC), core, thread.  linux_cpu INDEX [VAR]: the number Linux gives
# that vCPU under MODEL, printed or stored in VAR.  Linux numbers CPUs in
# MADT order: QEMU's own table (numbering=qemu) lists them by index; the
# firmware's (numbering=linux, platform_madt) lists the first thread of
# every core, then the second threads.
# shellcheck disable=SC2154 # PLAT_*: platform_load
linux_cpu() {
	local _n=$1
	[ "$PLAT_numbering" != linux ] ||
		_n=$(( $1 % THREADS * (NR_CPUS / THREADS) + $1 / THREADS ))
	if [ $# -gt 1 ]; then
		printf -v "$2" '%s' "$_n"
	else
		echo "$_n"
	fi
}

# range_list FIRST COUNT [VAR]: the Linux cpulist ("0-3,64-67") of the
# COUNT vCPUs from index FIRST on, printed or stored in VAR
range_list() {
	local _i _c _a=-2 _b=-2 _out=
	local -a _m=()
	for ((_i = $1; _i < $1 + $2; _i++)); do
		linux_cpu "$_i" _c
		_m[_c]=1
	done
	# an indexed array's subscripts come in ascending order
	for _c in "${!_m[@]}" -1; do
		[ "$_c" -ne $((_b + 1)) ] || { _b=$_c; continue; }
		if [ "$_a" -ge 0 ]; then
			_out=$_out,$_a
			[ "$_a" = "$_b" ] || _out=$_out-$_b
		fi
		_a=$_c _b=$_c
	done
	if [ $# -gt 2 ]; then
		printf -v "$3" '%s' "${_out#,}"
	else
		echo "${_out#,}"
	fi
}

# block_list WIDTH INDEX [VAR]: the Linux cpulist of the aligned block of
# WIDTH vCPUs holding vCPU INDEX (a core, an LLC, a node...), printed or
# stored in VAR
block_list() {
	range_list $(($2 / $1 * $1)) "$1" ${3:+"$3"}
}

# bits N: the number of APIC ID bits QEMU gives a level of N items
bits() {
	local b=0
	while [ $((1 << b)) -lt "$1" ]; do b=$((b + 1)); done
	echo "$b"
}

# apic_id INDEX [VAR]: the APIC ID QEMU gives vCPU INDEX (thread, core, die
# and socket fields, each as wide as its count needs), printed or stored
# in VAR
apic_id() {
	local _t=$(($1 % THREADS)) _c=$(($1 / THREADS % CORES))
	local _d=$(($1 / CCX_CPUS % CCX)) _s=$(($1 / SOCKET_CPUS))
	local _id=$(( ((_s << APIC_DB | _d) << APIC_CB | _c) << APIC_TB | _t ))
	if [ $# -gt 1 ]; then
		printf -v "$2" '%s' "$_id"
	else
		echo "$_id"
	fi
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

# qemu_has_cpu QEMU MODEL: QEMU has the CPU model MODEL
qemu_has_cpu() {
	"$1" -device "$2-x86_64-cpu,help" 2>/dev/null | grep -q .
}

# platform_qemu: the QEMU that runs MODEL in SHAPE: $QEMU; else this
# machine's qemu-system-x86_64 when it has one of the platform's CPU
# models and the shape fits 255 CPUs; else trixie's (fetch-qemu.sh)
# shellcheck disable=SC2154 # PLAT_*: platform_load
platform_qemu() {
	local q m
	if [ -n "${QEMU:-}" ]; then
		printf '%s\n' "$QEMU"
		return
	fi
	q=$(command -v qemu-system-x86_64 || true)
	if [ -n "$q" ] && [ "$NR_CPUS" -le 255 ]; then
		for m in $PLAT_cpu; do
			qemu_has_cpu "$q" "$m" && { printf '%s\n' "$q"; return; }
		done
	fi
	[ -z "$q" ] && [ "$NR_CPUS" -le 255 ] && return
	"$LAB_TOP/scripts/fetch-qemu.sh"
}

# platform_cpu QEMU: the -cpu argument of MODEL on QEMU, or one line
# saying why QEMU cannot run MODEL in SHAPE.  The model is the first of
# the platform's that QEMU has.  With force_features=yes: TCG filters out
# topoext, without which an AMD guest sees one L3 per socket; the
# experimental x-force-features=on keeps it, so every other feature this
# QEMU cannot emulate under TCG is switched off by name (asked of QEMU
# itself) and topoext, CPUID information only, is the one forced.
# shellcheck disable=SC2154 # PLAT_*: platform_load
platform_cpu() {
	local q=$1 model="" m want drop ver
	ver=$("$q" --version 2>/dev/null | sed -n '1s/^QEMU emulator version \([0-9]*\.[0-9]*\).*/\1/p')
	# TCG emulates x2APIC, which APIC IDs above 254 need, from QEMU 8.1 on
	if [ "$NR_CPUS" -gt 255 ] && [ -n "$ver" ] &&
		[ $(( ${ver%.*} * 100 + ${ver#*.} )) -lt 801 ]; then
		die "$q is QEMU $ver, which cannot run more than 255 CPUs under TCG: MODEL=$MODEL SHAPE=$SHAPE has $NR_CPUS (QEMU 8.1 or later: make qemu-full)"
	fi
	for m in $PLAT_cpu; do
		qemu_has_cpu "$q" "$m" && { model=$m; break; }
	done
	[ -n "$model" ] ||
		die "$q${ver:+ (QEMU $ver)} has no $(echo $PLAT_cpu | sed 's/ / or /g') CPU model, which MODEL=$MODEL needs (trixie's QEMU 10: make qemu-full)"
	[ "$model" = "${PLAT_cpu%% *}" ] ||
		note "$q has no ${PLAT_cpu%% *} CPU model: MODEL=$MODEL runs $model's CPUID in $MODEL's shape"
	want=$model,$PLAT_cpu_flags
	if [ "$PLAT_force_features" = no ]; then
		printf '%s\n' "$want"
		return
	fi
	[ "$NR_CPUS" -le 255 ] || want=$want,+x2apic
	"$q" -device "$model-x86_64-cpu,help" 2>/dev/null | grep -q 'x-force-features=' ||
		die "$q has no $model CPU with the x-force-features property, which MODEL=$MODEL needs (MODEL=intel does not)"
	drop=$(echo quit | "$q" -machine q35 -accel tcg -cpu "$want" -smp 1 -nodefaults \
		-display none -S -monitor stdio -serial none 2>&1 >/dev/null |
		sed -n "s/.*TCG doesn't support requested feature: CPUID\.[^.]*\.\([^ ]*\) .*/\1/p" |
		grep -vx topoext || true)
	! printf '%s\n' "$drop" | grep -qx x2apic ||
		die "$q cannot emulate x2APIC under TCG, which $NR_CPUS CPUs need (QEMU 8.1 or later: make qemu-full)"
	# shellcheck disable=SC2086
	printf '%s%s,x-force-features=on\n' "$want" "$(printf ',-%s' $drop)"
}

# platform_madt: print the path of an uncompressed cpio holding
# kernel/firmware/acpi/APIC.aml, the MADT that gives Linux the firmware's
# numbering (numbering=linux) for MODEL and SHAPE (scripts/mkmadt.py),
# made once per platform and shape.
platform_madt() {
	local f=$LAB_OUT/acpi/madt-$MODEL-$SHAPE.cpio d q=0 n a
	if [ -s "$f" ] && [ "$f" -nt "$LAB_TOP/scripts/mkmadt.py" ] &&
		[ "$f" -nt "$LAB_TOP/scripts/lib.sh" ] && [ "$f" -nt "$LAB_PLATFORMS/$MODEL" ]; then
		printf '%s\n' "$f"
		return
	fi
	d=$(mktemp -d)
	mkdir -p "$d/kernel/firmware/acpi" "${f%/*}"
	# shellcheck disable=SC2046
	python3 "$LAB_TOP/scripts/mkmadt.py" -o "$d/kernel/firmware/acpi/APIC.aml" \
		$(while [ "$q" -lt "$NR_CPUS" ]; do
			linux_cpu "$q" n
			apic_id "$q" a
			echo "$n $q:$a"
			q=$((q + 1))
		done | sort -n | cut -d' ' -f2) || die "cannot write the MADT"
	(cd "$d" && find kernel | cpio -o -H newc --quiet -R 0:0) >"$f.tmp" ||
		die "cannot pack the MADT"
	rm -rf "$d"
	mv "$f.tmp" "$f"
	printf '%s\n' "$f"
}
