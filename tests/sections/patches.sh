# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The patches section, sourced by tests/run.sh.

# checkpatch on every patch (every prefix built: the bisect section)
sec_patches() {
	echo "== patches"
	tree=$LAB_OUT/tree
	if "$S/apply-patches.sh" --upto 0 >/dev/null 2>"$logs/patch.log"; then
		for p in $(series_patches); do
			# from the kernel tree: inside our git checkout checkpatch
			# takes diff context lines for its own repository's files
			out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --no-tree \
				"$top/patches/$p" 2>&1 | grep '^total:')
			case $out in
			"total: 0 errors, 0 warnings, 0 checks,"*) ok "checkpatch --strict: $p" ;;
			*) notok "checkpatch --strict: $p: $out" ;;
			esac
		done
	else
		notok "cannot prepare the tree: $(tail -n1 "$logs/patch.log")"
	fi
}
