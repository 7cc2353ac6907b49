#!/bin/bash
# Copy a run's records into the repository's data folder.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--help] RUN-DIR DEST

Copies the records of a make bench, make score or make calibrate run
(RUN-DIR, with the parts of a replay below it) to DEST (which must not
exist), to be committed: its rows (*.csv), what planned and configured
them (plan.txt, *.conf, grid.txt) and what it noted (notes.txt,
stopped, system.txt, programs.txt, failed-runs.log).  Console logs, the
plugin's raw reports, kernels, locks and the parts a resumption puts
together are left behind.  A CSV of more than 256 KiB is kept
compressed (gzip -n, so that the same rows give the same bytes).
EOT
}
case ${1:-} in
--help) usage; exit 0 ;;
-*) usage >&2; exit 2 ;;
esac
[ $# = 2 ] || { usage >&2; exit 2; }
src=$1 dest=$2
[ -f "$src/plan.txt" ] || die "$src has no plan.txt: not the directory of a run"
[ ! -e "$dest" ] || die "$dest exists"
n=0
while IFS= read -r f; do
	mkdir -p "$dest/$(dirname "$f")"
	if [[ $f == *.csv ]] && [ "$(stat -c %s "$src/$f")" -gt 262144 ]; then
		gzip -n -c "$src/$f" >"$dest/$f.gz"
	else
		cp "$src/$f" "$dest/$f"
	fi
	n=$((n + 1))
done < <(cd "$src" && find . -path ./parts -prune -o -path '*/parts' -prune -o \
	-path '*/interrupted' -prune -o -type f \( -name '*.csv' -o -name plan.txt -o -name '*.conf' \
	-o -name grid.txt -o -name notes.txt -o -name stopped -o -name system.txt \
	-o -name programs.txt -o -name failed-runs.log \) -print | sed 's|^\./||' | sort)
echo "${0##*/}: $n files of $src in $dest"
