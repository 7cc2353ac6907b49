#!/bin/bash
# Print the package and version of each benchmark program (programs.txt).
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--tools DIR] [--meta META] [--help]

Prints "COMMAND|SOURCE" for each program that META (default the
benchmark registry, guest/bench-registry.sh; its sixth field) names, as scripts/bench.sh
writes it to programs.txt for the report's Programs block:
  deb COMMAND  the Debian package holding COMMAND on this machine and its
               version ("Debian rt-tests 2.4-1", from dpkg-query: the
               guest runs copies of the host's programs and has no dpkg),
               or the first line of DIR/COMMAND.version when the lab
               fetched the program itself (tools/fetch-netperf.sh's
               netperf.version), or "not installed on this machine"
  lab PROGRAM  the lab's own tools/PROGRAM.c: the last commit that
               changed it or tools/tool.h, and whether the checkout
               changes either ("tools/sis-schbench.c at commit 3bca99d")
DIR is where the lab's tools were built (bench.sh: \$LAB_OUT/tools-static
for the guest, \$LAB_OUT/tools with --host).
EOT
}

tools='' meta= what="the registry"
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--tools) need_value "$@"; tools=$2; shift 2 ;;
	--meta) need_value "$@"; meta=$2 what=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -z "$meta" ] || [ -r "$meta" ] || die "cannot read $meta"

# deb_source COMMAND: where the Debian program COMMAND comes from
deb_source() {
	local path pkg
	if [ -n "$tools" ] && [ -r "$tools/$1.version" ]; then
		head -n1 "$tools/$1.version"
		return
	fi
	if ! path=$(command -v "$1"); then
		echo "not installed on this machine"
		return
	fi
	path=$(readlink -f "$path")
	# "pkg[:arch][, pkg2]: PATH", after any "diversion by" lines
	pkg=$(dpkg-query -S "$path" 2>/dev/null | grep -v '^diversion by' | head -n1 |
		sed -e 's/: .*//' -e 's/,.*//' -e 's/:.*//')
	if [ -n "$pkg" ]; then
		echo "Debian $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)"
	else
		echo "$path, not from a Debian package"
	fi
}

# lab_source PROGRAM: the commit of the lab's tools/PROGRAM.c
lab_source() {
	local f=tools/$1.c c
	[ -r "$LAB_TOP/$f" ] || { echo "no $f in this checkout"; return; }
	c=$(git -C "$LAB_TOP" log -1 --format=%h -- "$f" tools/tool.h 2>/dev/null || true)
	if [ -z "$c" ]; then
		echo "$f, sha256 $(sha256sum <"$LAB_TOP/$f" | cut -c1-16) (not in git)"
	elif git -C "$LAB_TOP" diff --quiet HEAD -- "$f" tools/tool.h 2>/dev/null; then
		echo "$f at commit $c"
	else
		echo "$f at commit $c with uncommitted changes"
	fi
}

if [ -n "$meta" ]; then
	registry=$(cat "$meta")
else
	registry=$(bench_registry) || die "no benchmark registry (guest/bench-registry.sh)"
fi
printf '%s\n' "$registry" |
	awk -F'|' '!/^#/ && NF >= 6 { split($6, p, " "); if (!seen[p[1] " " p[2]]++) print p[1], p[2] }' |
while read -r kind cmd; do
	case $kind in
	deb) echo "$cmd|$(deb_source "$cmd")" ;;
	lab) echo "$cmd|$(lab_source "$cmd")" ;;
	*) die "$what: program '$kind $cmd' is neither 'deb COMMAND' nor 'lab PROGRAM'" ;;
	esac
done
