# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The configs section, sourced by tests/run.sh.

# the other configurations and sparse
sec_configs() {
	echo "== other configurations and sparse"
	if "$S/build-configs.sh" nonuma up 2>"$logs/build-configs.err"; then
		while read -r line; do
			ok "${line#build-configs.sh: }"
		done <"$logs/build-configs.err"
	else
		notok "$(tail -n1 "$logs/build-configs.err")"
	fi
	if "$S/sparse-check.sh" 2>"$logs/sparse.err"; then
		ok "$(tail -n1 "$logs/sparse.err" | sed 's/^sparse-check.sh: //')"
	else
		notok "$(tail -n1 "$logs/sparse.err")"
	fi
}
