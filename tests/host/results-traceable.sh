# shellcheck shell=bash disable=SC2154 # $top, $tmp: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# results_traceable: Documentation/results.md is what make results makes
# of the committed runs, and no text of the repository names a path
# under data/ that git lacks (scripts/results.py --check); on a small
# repository of its own, the check fails on a README naming a run that
# is not committed and on a hand edit of results.md, and passes once both
# are put right
results_traceable() {
	local r=$tmp/results-repo out st=0
	if out=$(python3 "$S/results.py" --check 2>&1); then
		ok "results traceable: Documentation/results.md is make results' output, every data/ path named is committed"
	else
		notok "results traceable: $(echo "$out" | head -n2 | tr '\n' ' ')"
	fi
	rm -rf "$r"
	mkdir -p "$r/data/runs/20990101-a" "$r/Documentation"
	printf '# A run\n\nIts rows are in data/runs/20990101-b/score.csv.\n' >"$r/data/runs/20990101-a/README.md"
	git -C "$r" init -q && git -C "$r" add data && git -C "$r" -c user.name=t -c user.email=t@t commit -qm a
	python3 "$S/results.py" --top "$r" >/dev/null
	out=$(python3 "$S/results.py" --top "$r" --check 2>&1) || st=$?
	local first=$st:$out
	printf '# A run\n\nIts rows are in data/runs/20990101-a/README.md.\n' >"$r/data/runs/20990101-a/README.md"
	git -C "$r" -c user.name=t -c user.email=t@t commit -qam b
	python3 "$S/results.py" --top "$r" >/dev/null
	st=0
	python3 "$S/results.py" --top "$r" --check >/dev/null 2>&1 || st=$?
	local fixed=$st
	echo '| tip | 12.5 |' >>"$r/Documentation/results.md"
	st=0
	out=$(python3 "$S/results.py" --top "$r" --check 2>&1) || st=$?
	case $first in
	1:*"README.md:3 names data/runs/20990101-b/score.csv, which git does not track"*) ;;
	*) notok "results check: a README naming an uncommitted run gave '$first'"; return ;;
	esac
	if [ "$fixed" = 0 ] && [ "$st" = 1 ] && [[ $out == *"Documentation/results.md differs"* ]]; then
		ok "results check: fails on a README naming an uncommitted run and on a hand edit of results.md, passes when both are right"
	else
		notok "results check: status $fixed once put right (want 0), $st after a hand edit (want 1: $out)"
	fi
}
