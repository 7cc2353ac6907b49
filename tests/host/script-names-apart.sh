# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# script_names_apart: no two programs of a folder of the lab whose names
# differ only in '-' against '_' or in their extension (bench-report.sh
# and bench_report.py did: which one is the command?)
script_names_apart() {
	local d same all=
	for d in scripts guest guest/tests tests tools; do
		same=$(find "$top/$d" -maxdepth 1 -type f -name '*.*' -printf '%f\n' | sort |
			awk -v d="$d" '{ k = $0; sub(/\.[^.]*$/, "", k); gsub(/[-_]/, "", k)
				if (k in n) print d "/" n[k] " and " d "/" $0; else n[k] = $0 }')
		all="$all${same:+ $same;}"
	done
	if [ -z "$all" ]; then
		ok "program names: none differs from another of its folder only by '-' or '_' or its extension"
	else
		notok "program names told apart only by '-', '_' or the extension:$all"
	fi
}
