# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# cover_letter_numbers: the cover letter's patch numbers match the series
# (patch N is its Nth line): the documentation and kselftest patches are
# where it says, and its feature table cites every patch before them (it
# once still said patch 15 for the documentation after a patch was added)
cover_letter_numbers() {
	local c=$top/Documentation/cover-letter.txt nd nk last pd pk
	nd=$(sed -n 's/^Patch \([0-9]*\) documents the features.*/\1/p' "$c")
	nk=$(sed -n 's/.*patch \([0-9]*\) adds a kselftest.*/\1/p' "$c")
	last=$(grep -o '(patch[es]* [0-9-]*)' "$c" | grep -o '[0-9]*)' | tr -d ')' | sort -n | tail -n1)
	pd=$(series_patches | sed -n "${nd:-0}p")
	pk=$(series_patches | sed -n "${nk:-0}p")
	case $pd:$pk in
	*-Documentation-*:*-selftests-*)
		if [ "$last" = $((nd - 1)) ]; then
			ok "cover letter: patch $nd is $pd, patch $nk is $pk, its table cites patches up to $last"
		else
			notok "cover letter: its table cites patches up to ${last:-none}, the documentation is patch $nd"
		fi ;;
	*) notok "cover letter: patch ${nd:-?} is '$pd' (want the documentation), patch ${nk:-?} is '$pk' (want the kselftest)" ;;
	esac
}
