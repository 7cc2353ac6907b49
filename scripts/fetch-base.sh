#!/bin/bash
# Download Debian's linux-source-7.3 package and unpack the pristine tree.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

Fetch linux-source-7.3 (trixie-backports) with apt-get download, using the
mirror of this machine's apt configuration through a private apt state
directory, check it against scripts/base.sha256 and unpack the tree into
\$LAB_OUT/src/linux-7.3 (default build/src/linux-7.3).  Prints the tree path.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }

pkg=linux-source-7.3
sums=$LAB_TOP/scripts/base.sha256
dl=$LAB_OUT/dl
src=$LAB_OUT/src/linux-7.3
mkdir -p "$dl" "$LAB_OUT/src"

if [ -f "$src/.lab-unpacked" ]; then
	printf '%s\n' "$src"
	exit 0
fi

deb=$(cd "$dl" && ls ${pkg}_*.deb 2>/dev/null | head -n1) || true
if [ -z "$deb" ]; then
	conf=$(private_apt "$LAB_OUT/apt" trixie-backports)
	(cd "$dl" && APT_CONFIG=$conf apt-get -qq download "$pkg") ||
		die "could not download $pkg from trixie-backports"
	deb=$(cd "$dl" && ls ${pkg}_*.deb | head -n1)
fi
[ -r "$sums" ] || die "$sums is missing"
(cd "$dl" && grep " $deb\$" "$sums" | sha256sum -c --quiet -) ||
	die "$deb does not match $sums (remove it from $dl or update the checksum)"

tmp=$LAB_OUT/src/.unpack.$$
rm -rf "$tmp"
mkdir -p "$tmp"
dpkg-deb -x "$dl/$deb" "$tmp/deb"
tar -C "$tmp" -xJf "$tmp/deb/usr/src/$pkg.tar.xz"
rm -rf "$src"
mv "$tmp/$pkg" "$src"
rm -rf "$tmp"
touch "$src/.lab-unpacked"
note "unpacked $deb into $src"
printf '%s\n' "$src"
