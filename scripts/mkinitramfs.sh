#!/bin/bash
# Build the guest initramfs: busybox, the lab's guest init and guest tools.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] OUT.cpio.gz [HOST-BINARY...]

Pack busybox-static, guest/ (as /lab, its init as /init), the tools/
programs (built static into \$LAB_OUT/tools-static, but for the dynamic
sis-ubench; copied to /usr/bin), Debian's netperf and netserver (fetched
there by tools/fetch-netperf.sh) and the kselftest sis_test of the
patched tree (\$LAB_TREE, default \$LAB_OUT/tree) into OUT.  Dynamic
programs come with the shared libraries they need, as does each
HOST-BINARY (a path or a command name), so Debian's tools (hackbench,
perf...) run in the guest.
The command to run is not part of it: boot.sh appends it as a second,
tiny archive.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
out=$1
shift
bb=$(command -v busybox || true)
[ -n "$bb" ] && file -L "$bb" 2>/dev/null | grep -q 'statically linked' ||
	bb=/bin/busybox
[ -x "$bb" ] || die "busybox is not installed (apt-get install busybox-static)"
ldd "$bb" >/dev/null 2>&1 && die "$bb is dynamic; install busybox-static"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,run,mnt,lab,usr/bin,usr/sbin}
cp "$bb" "$stage/bin/busybox"
for a in $("$bb" --list); do
	[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
done
cp -r "$LAB_TOP/guest/." "$stage/lab/"

# copy_with_libs FILE [DEST]: FILE as DEST in the guest (default: the same
# path), and the shared libraries and loader it needs at their own paths
copy_with_libs() {
	local f=$1 d=${2:-$1} l
	mkdir -p "$stage$(dirname "$d")"
	cp -L "$f" "$stage$d"
	for l in $(ldd "$f" 2>/dev/null | awk '/=> \//{ print $3 } /^\t\//{ print $1 }'); do
		[ -e "$stage$l" ] && continue
		mkdir -p "$stage$(dirname "$l")"
		cp -L "$l" "$stage$l"
	done
}

make -s -C "$LAB_TOP/tools" O="$LAB_OUT/tools-static" STATIC=1 >&2 ||
	die "cannot build tools/"
for c in "$LAB_TOP"/tools/*.c netperf netserver; do
	f=$LAB_OUT/tools-static/$(basename "$c" .c)
	if ldd "$f" >/dev/null 2>&1; then
		copy_with_libs "$f" "/usr/bin/${f##*/}"
	else
		cp "$f" "$stage/usr/bin/"
	fi
done
# the series' kselftest, built static from the patched tree when it has it
ksft=${LAB_TREE:-$LAB_OUT/tree}/tools/testing/selftests/sched
if [ -f "$ksft/sis_test.c" ]; then
	mkdir -p "$LAB_OUT/ksft-sched"
	make -s -C "$ksft" OUTPUT="$LAB_OUT/ksft-sched" LDFLAGS=-static \
		"$LAB_OUT/ksft-sched/sis_test" >&2 || die "cannot build $ksft/sis_test"
	cp "$LAB_OUT/ksft-sched/sis_test" "$stage/usr/bin/"
fi
cp "$LAB_TOP/guest/init" "$stage/init"
chmod +x "$stage/init"
echo 'root:x:0:0:root:/:/bin/sh' >"$stage/etc/passwd"
echo 'root:x:0:' >"$stage/etc/group"
printf '127.0.0.1 localhost\n' >"$stage/etc/hosts"

for b in "$@"; do
	p=$(command -v "$b" || true)
	[ -n "$p" ] && [ -f "$p" ] || die "guest binary '$b' not found on this host"
	copy_with_libs "$(readlink -f "$p")"
	# tbench replays dbench's load file
	if [ "$b" = tbench ] && [ -f /usr/share/dbench/client.txt ]; then
		mkdir -p "$stage/usr/share/dbench"
		cp /usr/share/dbench/client.txt "$stage/usr/share/dbench/"
	fi
	[ "$(readlink -f "$p")" = "$p" ] || { mkdir -p "$stage$(dirname "$p")"; ln -sf "$(readlink -f "$p")" "$stage$p"; }
done

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
printf '%s\n' "$out"
