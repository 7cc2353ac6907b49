# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# refresh_refuses_edited_stack: refresh-patches.sh on a two-patch stack
# whose first patch was edited while applied must stop with one line and
# leave both patch files as they were (it once went on silently and
# refreshed the second patch against the edited tree)
refresh_refuses_edited_stack() {
	local r=$tmp/refresh rc=0
	rm -rf "$r"
	mkdir -p "$r/patches" "$r/tree"
	printf 'one\ntwo\nthree\n' >"$r/tree/f"
	printf -- '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n three\n' >"$r/patches/1.patch"
	printf -- '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n ONE\n two\n-three\n+THREE\n' >"$r/patches/2.patch"
	printf '1.patch\n2.patch\n' >"$r/patches/series"
	(cd "$r/tree" && QUILT_PATCHES=$r/patches QUILT_PC=.pc quilt push -aq >/dev/null)
	sed -i 's/^+ONE$/+One/' "$r/patches/1.patch"
	cp "$r/patches/1.patch" "$r/patches/2.patch" "$r/"
	LAB_OUT=$r LAB_PATCHES=$r/patches "$S/refresh-patches.sh" >/dev/null 2>"$r/err" || rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <"$r/err")" = 1 ] &&
		cmp -s "$r/1.patch" "$r/patches/1.patch" && cmp -s "$r/2.patch" "$r/patches/2.patch"; then
		ok "refresh-patches: a patch edited under the applied stack stops it, files untouched ($(cat "$r/err"))"
	else
		notok "refresh-patches: edited applied stack: status $rc, '$(head -c 200 "$r/err")', patches changed: $(cmp -s "$r/2.patch" "$r/patches/2.patch" && echo no || echo yes)"
	fi
}
