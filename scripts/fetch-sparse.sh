#!/bin/bash
# Fetch a sparse new enough for this kernel; print the command to run it.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help]

Linux 7.3 needs a sparse that knows __typeof_unqual__; bookworm's 0.6.4
does not, so the kernel quietly skips the check (C=2 warns "sparse is not
available or not up to date").  This downloads sid's sparse and libc6 with
apt-get download (private apt state, this machine's mirror), unpacks them
into \$LAB_OUT/sparse-sid and writes the wrapper \$LAB_OUT/sparse-sid/sparse,
which runs it through sid's dynamic loader.  Prints the wrapper path.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -eq 0 ] || { usage >&2; exit 2; }

pfx=$LAB_OUT/sparse-sid
wrap=$pfx/sparse
if [ -x "$wrap" ]; then
	printf '%s\n' "$wrap"
	exit 0
fi
conf=$(private_apt "$LAB_OUT/apt-sid" sid)
debs=$LAB_OUT/dl/sparse-sid
mkdir -p "$debs"
(cd "$debs" && APT_CONFIG=$conf apt-get -qq download sparse libc6) ||
	die "downloading sparse from sid failed"
rm -rf "$pfx.tmp"
mkdir -p "$pfx.tmp"
for d in "$debs"/*.deb; do
	dpkg-deb -x "$d" "$pfx.tmp"
done
lib=$pfx/usr/lib/x86_64-linux-gnu
cat >"$pfx.tmp/sparse" <<EOT
#!/bin/sh
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $pfx/usr/bin/sparse "\$@"
EOT
chmod +x "$pfx.tmp/sparse"
rm -rf "$pfx"
mv "$pfx.tmp" "$pfx"
"$wrap" --version >&2 || die "sid's sparse does not start"
printf '%s\n' "$wrap"
