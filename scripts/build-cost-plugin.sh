#!/bin/bash
# Build the sis-cost TCG plugin against the plugin header of the QEMU that
# will load it, and check that this QEMU loads it.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [--qemu PATH]

Builds tools/cost-plugin/sis-cost.c for the QEMU at PATH (default: \$QEMU,
else the host's qemu-system-x86_64; the full shape's is fetch-qemu.sh's).
The plugin API differs between QEMU versions, and Debian packages no
plugin header: the header comes from Debian's source package of that very
QEMU version (apt-get source through a private apt state that knows
bookworm and trixie, this machine's mirror; only the header is unpacked).
Writes \$LAB_OUT/cost/sis-cost-VERSION.so and its .info (the QEMU version
and plugin API it was built for), then loads it once in that QEMU.
Prints the .so path.
EOT
}
qemu=${QEMU:-}
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--qemu) need_value "$@"; qemu=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -n "$qemu" ] || qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] && [ -x "$qemu" ] || die "no QEMU to build the plugin for (apt-get install qemu-system-x86, or --qemu PATH)"

# "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)"
line=$("$qemu" --version | head -n1)
upstream=$(printf '%s\n' "$line" | sed -n 's/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p')
debver=$(printf '%s\n' "$line" | sed -n 's/.*(Debian \([^)]*\)).*/\1/p')
[ -n "$upstream" ] || die "cannot read the version of $qemu: $line"
[ -n "$debver" ] || die "$qemu is not Debian's QEMU ($line): build the plugin against its own include/qemu/qemu-plugin.h"
# the source version: a binary-only rebuild (+bN) has its source's version
srcver=${debver%+b[0-9]*}

dir=$LAB_OUT/cost
so=$dir/sis-cost-$upstream.so
src=$LAB_TOP/tools/cost-plugin/sis-cost.c
mkdir -p "$dir"
if [ ! -f "$so" ] || [ "$src" -nt "$so" ] || [ "$0" -nt "$so" ]; then
	hdr=$dir/qemu-$srcver/qemu-plugin.h
	if [ ! -f "$hdr" ]; then
		conf=$(private_apt --src "$LAB_OUT/apt-qemu-src" bookworm trixie)
		dl=$LAB_OUT/dl/qemu-src
		rm -rf "$dl" && mkdir -p "$dl"
		(cd "$dl" && APT_CONFIG=$conf apt-get -qq source --download-only "qemu=$srcver" >/dev/null 2>&1) ||
			die "no source package qemu=$srcver on the mirror (the plugin header must match the QEMU that loads it)"
		orig=$(ls "$dl"/qemu_*.orig.tar.* 2>/dev/null | head -n1)
		[ -n "$orig" ] || die "the qemu=$srcver source package has no upstream tarball"
		mkdir -p "${hdr%/*}"
		tar -xf "$orig" -C "${hdr%/*}" --wildcards --strip-components=3 \
			'*/include/qemu/qemu-plugin.h' ||
			die "no include/qemu/qemu-plugin.h in $orig"
		rm -rf "$dl"
	fi
	api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$hdr")
	[ -n "$api" ] || die "$hdr defines no QEMU_PLUGIN_VERSION"
	# QEMU 8 and later include glib in the header
	# shellcheck disable=SC2046
	gcc -O2 -g -Wall -Wextra -shared -fPIC -pthread -I"${hdr%/*}" \
		$(pkg-config --cflags glib-2.0 2>/dev/null) -o "$so.tmp" "$src" ||
		die "building the plugin against QEMU $upstream's header failed"
	mv "$so.tmp" "$so"
	printf 'qemu=%s\napi=%s\nsource=%s\n' "$upstream" "$api" "$srcver" >"${so%.so}.info"
fi

# load it once: QEMU starts with no machine, the monitor quits it, and the
# plugin's exit report proves it ran
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
echo "0 1 f probe" >"$t/map"
echo quit | "$qemu" -M none -display none -monitor stdio \
	-plugin "$so,map=$t/map,out=$t/out" >"$t/log" 2>&1 ||
	die "QEMU $upstream does not load the plugin: $(grep -v '^$' "$t/log" | grep -v '(qemu)' | tail -n1)"
grep -q '^mark .* exit' "$t/out" 2>/dev/null ||
	die "QEMU $upstream ran, but the plugin wrote no report"
printf '%s\n' "$so"
