#!/bin/bash
# Run sparse over what the series touches and report what it adds.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] [CONFIG]

Runs sparse (make C=2) on kernel/sched/ and every other C file the series
touches, in the patched tree (\$LAB_OUT/tree) built with CONFIG (default
qemu), with sid's sparse (scripts/fetch-sparse.sh), and fails if sparse warns about a line the series adds; warnings
about lines of the base tree are counted, not fatal.
EOT
}
[ "${1:-}" = --help ] && { usage; exit 0; }
cfg=${1:-qemu}
sparse=$("$LAB_TOP/scripts/fetch-sparse.sh")
tree=${LAB_TREE:-$LAB_OUT/tree}
[ -s "$tree/.pc/applied-patches" ] || die "no patched tree at $tree (run make patch first)"
base=$(cat "$tree/.lab-source")
patches=${LAB_PATCHES:-$LAB_TOP/patches}
obj=${OBJ:-$LAB_OUT/obj-$cfg}
OBJ=$obj "$LAB_TOP/scripts/build.sh" --tree "$tree" --config-only "$cfg" >/dev/null
log=$LAB_OUT/logs/sparse-$cfg.log
mkdir -p "$LAB_OUT/logs"

files=$(sed -n 's|^+++ b/\(.*\.[ch]\)$|\1|p' "$patches"/*.patch | grep -v '^tools/' | sort -u)
targets="kernel/sched/ $(echo "$files" | grep '\.c$' | grep -v '^kernel/sched/' | sed 's/\.c$/.o/' | tr '\n' ' ')"
# shellcheck disable=SC2086
kernel_make "$tree" "$obj" C=2 CHECK="$sparse" $targets >"$log" 2>&1 ||
	die "the sparse build failed (see $log)"
! grep -q 'is not available or not up to date' "$log" || die "the kernel rejected $sparse"

# the lines the series adds, as "file:line"
added=$(mktemp)
trap 'rm -f "$added"' EXIT
for f in $files; do
	old=$base/$f
	[ -f "$old" ] || old=/dev/null
	diff -U0 "$old" "$tree/$f" | awk -v f="$f" '/^@@/ {
		split($3, a, ","); start = substr(a[1], 2); n = (2 in a) ? a[2] : 1
		for (i = 0; i < n; i++) print f ":" start + i }'
done | sort -u >"$added"

new=$(sed "s|^$tree/||" "$log" | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' |
	awk -F: 'NR == FNR { a[$0] = 1; next } (($1 ":" $2) in a)' "$added" - || true)
total=$(grep -cE ': (warning|error):' "$log" || true)
if [ -n "$new" ]; then
	printf '%s\n' "$new" >&2
	die "sparse warns about $(printf '%s\n' "$new" | wc -l) lines the series adds (see $log)"
fi
note "sparse: no warning on the $(wc -l <"$added") lines the series adds ($total on base lines)"
