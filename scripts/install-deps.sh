#!/bin/bash
# Install the Debian 12 packages the lab needs (only the missing ones).
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

apt-get install what building, booting and benchmarking need, skipping
packages that are already installed.  Needs root (or sudo).
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }

pkgs="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
	kmod quilt ccache busybox-static qemu-system-x86 file perl rt-tests
	linux-perf dbench mawk gnuplot-nox python3 python3-numpy python3-scipy strace
	git git-email libmailtools-perl libglib2.0-dev pkg-config"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
note "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -qq update
# shellcheck disable=SC2086
$sudo apt-get -qq install -y --no-install-recommends $missing >/dev/null ||
	die "apt-get install failed for:$missing"
