# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# base_fixture_use: make check compares the patched kernel with the base
# kernel's committed dumps (tests/base/) only when they are of the base it
# would build: every committed dump names the current base and patch 0000
# (else make check builds the base, a second full compile on a fresh
# machine); another tree (KERNEL_SRC) or another BASE line is refused
base_fixture_use() {
	local f n bad='' got
	for n in 1 4; do
		f=$top/tests/base/milan-scaled-nps$n.txt
		got=$(KERNEL_SRC='' base_fixture "$n") || bad="$bad NPS$n stale or missing"
		[ "$got" = "$f" ] || bad="$bad NPS$n ($got)"
		[ "$(grep -cE '^(DOMAIN|PARAMS) ' "$f" 2>/dev/null)" -gt 100 ] || bad="$bad NPS$n has no dump"
		KERNEL_SRC=/nonexistent base_fixture "$n" >/dev/null && bad="$bad NPS$n used with KERNEL_SRC"
	done
	mkdir -p "$tmp/bf/tests/base" "$tmp/bf/scripts" "$tmp/bf/patches"
	sed 's/^BASE [0-9a-f]*/BASE 0000/' "$top/tests/base/milan-scaled-nps1.txt" >"$tmp/bf/tests/base/milan-scaled-nps1.txt"
	cp "$top/scripts/base.sha256" "$tmp/bf/scripts/"
	cp "$top/patches/series" "$top/patches/$(series_patches | head -n1)" "$tmp/bf/patches/"
	top=$tmp/bf LAB_PATCHES=$tmp/bf/patches base_fixture 1 >/dev/null && bad="$bad a dump of another package used"
	# the same package, another patch 0000
	cp "$top/tests/base/milan-scaled-nps1.txt" "$tmp/bf/tests/base/"
	echo "# changed" >>"$tmp/bf/patches/$(series_patches | head -n1)"
	top=$tmp/bf LAB_PATCHES=$tmp/bf/patches base_fixture 1 >/dev/null && bad="$bad a dump of another patch 0000 used"
	if [ -z "$bad" ]; then
		ok "tests/base: the base kernel's NPS1 and NPS4 dumps are of scripts/base.sha256's tree and patch 0000, used without KERNEL_SRC only, and not for another package or patch 0000"
	else
		notok "tests/base:$bad"
	fi
}
