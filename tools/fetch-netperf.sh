#!/bin/bash
# Put Debian's netperf and netserver into a directory (see --help).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] DIR

Puts Debian's netperf and netserver into DIR (made if missing) and writes
DIR/netperf.version, the package and version they come from.  The package
is bookworm's netperf (non-free, 2.7.0-0.1, linked against libc and libm
only, so it runs on this machine and, with those libraries, in the
guest).  It is downloaded once with apt-get download through a private apt
state (\$LAB_OUT/apt-bookworm-non-free) that uses this machine's mirror,
and kept in \$LAB_OUT/dl/netperf; nothing is installed on the host.
make -C tools calls this for its O= directory.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 1 ] || { usage >&2; exit 2; }
dir=$1
dl=$LAB_OUT/dl/netperf
arch=$(dpkg --print-architecture)
mkdir -p "$dl" "$dir"
# the downloaded package, if there is one
have_deb() {
	local f
	deb=
	for f in "$dl"/netperf_*_"$arch".deb; do
		[ -e "$f" ] && deb=$f
	done
	[ -n "$deb" ]
}

# one download at a time when several builds need it
exec 9>"$dl/.lock"
flock 9
if ! have_deb; then
	note "downloading netperf from Debian bookworm non-free"
	# private_apt writes "deb MIRROR SUITE main": a suite of "bookworm
	# non-free" makes that line name the non-free component too
	conf=$(private_apt "$LAB_OUT/apt-bookworm-non-free" "bookworm non-free")
	(cd "$dl" && APT_CONFIG=$conf apt-get -qq download "netperf:$arch") ||
		die "downloading netperf from bookworm non-free failed"
	have_deb || die "apt-get download left no netperf package in $dl"
fi
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x" || die "cannot unpack $deb"
for b in netperf netserver; do
	[ -x "$x/usr/bin/$b" ] || die "$deb has no usr/bin/$b"
	install -m 755 "$x/usr/bin/$b" "$dir/$b"
done
printf 'netperf %s (Debian bookworm non-free, %s)\n' \
	"$(dpkg-deb -f "$deb" Version)" "$(basename "$deb")" >"$dir/netperf.version"
"$dir/netperf" -V >/dev/null 2>&1 || die "$dir/netperf does not run here"
