#!/bin/bash
# Install Debian trixie's QEMU (10.x) into a private prefix and print a
# wrapper that runs it with trixie's own C library.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

Bookworm's QEMU 7.2 cannot emulate more than 255 CPUs under TCG (no
x2APIC without KVM), so the full 2x64C/128T (256 CPU) shape needs a newer
QEMU.  This downloads qemu-system-x86 and its whole dependency closure from
trixie with apt-get download (private apt state, this machine's mirror),
unpacks them into \$LAB_OUT/qemu-trixie and writes the wrapper
\$LAB_OUT/qemu-trixie/qemu-system-x86_64, which starts QEMU through the
prefix's dynamic loader so that nothing on the host changes.
Prints the wrapper path.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }

pfx=$LAB_OUT/qemu-trixie
wrap=$pfx/qemu-system-x86_64
if [ -x "$wrap" ]; then
	printf '%s\n' "$wrap"
	exit 0
fi

conf=$(private_apt "$LAB_OUT/apt-trixie" trixie)
pkgs=$(APT_CONFIG=$conf apt-cache depends --recurse --no-recommends \
	--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
	qemu-system-x86 | grep -v '^[ <]' | sort -u)
[ -n "$pkgs" ] || die "cannot resolve qemu-system-x86 in trixie"
debs=$LAB_OUT/dl/qemu-trixie
mkdir -p "$debs"
# shellcheck disable=SC2086
(cd "$debs" && APT_CONFIG=$conf apt-get -qq download $pkgs) ||
	die "downloading QEMU from trixie failed"
rm -rf "$pfx.tmp"
mkdir -p "$pfx.tmp"
for d in "$debs"/*.deb; do
	dpkg-deb -x "$d" "$pfx.tmp"
done
[ -e "$pfx.tmp/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] ||
	die "trixie's libc6 did not provide a dynamic loader"
libs=$pfx/usr/lib/x86_64-linux-gnu:$pfx/lib/x86_64-linux-gnu
cat >"$pfx.tmp/qemu-system-x86_64" <<EOT
#!/bin/sh
# QEMU from Debian trixie, run with trixie's C library (see fetch-qemu.sh).
# Its modules must not come from the host's own QEMU.
QEMU_MODULE_DIR=$pfx/usr/lib/x86_64-linux-gnu/qemu
export QEMU_MODULE_DIR
exec $pfx/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path $libs \\
	$pfx/usr/bin/qemu-system-x86_64 -L $pfx/usr/share/qemu -L $pfx/usr/share/seabios "\$@"
EOT
chmod +x "$pfx.tmp/qemu-system-x86_64"
rm -rf "$pfx"
mv "$pfx.tmp" "$pfx"
"$wrap" --version | head -n1 >&2 || die "the trixie QEMU does not start"
printf '%s\n' "$wrap"
