#!/bin/bash
# Turn the patch stack into a mail series for LKML, with a cover letter.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--version N] [--rfc] [--results DIR] [--score DIR] [--with-stats]
       [--send] [--help]

Commits the base tree and patches/series into a git repository of its own
(\$LAB_OUT/mail-git), then writes \$LAB_OUT/mail/vN/ with git format-patch:
a cover letter (Documentation/cover-letter.txt, the results of the newest
make bench run or of --results DIR, the scoreboard's table of the newest
make score run or of --score DIR, marked as emulated when it was, the
base, the Link: tags of the patches) and one mail per patch.  Every mail
must pass checkpatch.pl --strict.  To and Cc come from the kernel's
scripts/get_maintainer.pl (maintainers and reviewers To, lists Cc).  The series' own author and Signed-off-by
are a placeholder (the From: of the first patch): the mails carry the
sender's git identity instead (git config user.name and user.email, as
git resolves them in this checkout), and without one the script stops,
since the DCO needs a person.  Ends with git send-email --dry-run; --send
really sends (needs sendemail.* configured in git).  The cover letter says
the series is not yet rebased on tip:sched/core; LAB_BASE_NOTE replaces
that line (e.g. after a KERNEL_SRC=tip run).  The series' last patch, the
SIS statistics, is a debugging aid and not mailed unless --with-stats.
EOT
}

version=1 rfc=0 results='' score='' send=0 stats=0
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--version) need_value "$@"; version=$2; shift 2 ;;
	--rfc) rfc=1; shift ;;
	--results) need_value "$@"; results=$2; shift 2 ;;
	--score) need_value "$@"; score=$2; shift 2 ;;
	--with-stats) stats=1; shift ;;
	--send) send=1; shift ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $version in ''|*[!0-9]*|0) die "--version must be a positive number, not '$version'" ;; esac
command -v git >/dev/null || die "git is not installed"
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git send-email is not installed (apt-get install git-email)"

# the sender signs off: the series' placeholder author and sign-off become them
name=$(git -C "$LAB_TOP" config --get user.name 2>/dev/null || true)
email=$(git -C "$LAB_TOP" config --get user.email 2>/dev/null || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git identity: set git config user.name and user.email (the DCO needs a person)"
from="$name <$email>"

# the newest bench run that has its report (a run killed early has none)
if [ -z "$results" ]; then
	results=$(for r in "$LAB_OUT"/bench/*/; do
		[ ! -s "$r/report.txt" ] || echo "${r%/}"
	done | sort | tail -n1)
fi
[ -z "$results" ] || [ -s "$results/report.txt" ] ||
	die "no report.txt in '$results' (run make bench, or pass --results DIR)"
if [ -z "$score" ] && [ -s "$LAB_OUT/score/latest/cover-letter.txt" ]; then
	score=$LAB_OUT/score/latest
fi
[ -z "$score" ] || [ -s "$score/cover-letter.txt" ] ||
	die "no cover-letter.txt in '$score' (run make score, or pass --score DIR)"

# the base, as apply-patches.sh finds it; the work tree is left alone
src=$(base_tree)
patches=${LAB_PATCHES:-$LAB_TOP/patches}
series=$(series_patches "$patches")
if [ "$stats" = 0 ]; then
	# shellcheck disable=SC2254
	series=$(printf '%s\n' "$series" | while read -r p; do
		case $p in $LAB_DEBUG_PATCH) ;; *) echo "$p" ;; esac; done)
fi
n=$(printf '%s\n' "$series" | wc -l)
placeholder=$(sed -n 's/^From: //p' "$patches/$(printf '%s\n' "$series" | head -n1)" | head -n1)
[ -n "$placeholder" ] || die "the first patch has no From: line"
[ "$from" != "$placeholder" ] ||
	die "git identity '$from' is the series' placeholder (the DCO needs a person)"

export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'

# the base, committed once per source tree
repo=$LAB_OUT/mail-git
if [ "$(cat "$repo/.git/lab-source" 2>/dev/null)" != "$src" ]; then
	note "committing the base $src to $repo"
	copy_tree "$src" "$repo"
	git -C "$repo" init -q
	# Debian's linux-source ignores everything at the top level
	git -C "$repo" add -f -A .
	git -C "$repo" commit -q -m "Linux $(make -s -C "$repo" kernelversion 2>/dev/null) (base)"
	git -C "$repo" tag -f lab-base >/dev/null
	printf '%s\n' "$src" >"$repo/.git/lab-source"
fi
git -C "$repo" am --abort >/dev/null 2>&1 || true
git -C "$repo" checkout -q -f -B series lab-base
git -C "$repo" clean -q -fdx
signed=$(mktemp -d)
trap 'rm -rf "$signed"' EXIT
for p in $series; do
	OLD=$placeholder NEW=$from awk '
		!body && $0 == "From: " ENVIRON["OLD"] { print "From: " ENVIRON["NEW"]; next }
		!body && $0 == "Signed-off-by: " ENVIRON["OLD"] { print "Signed-off-by: " ENVIRON["NEW"]; next }
		/^---$/ { body = 1 }
		{ print }' "$patches/$p" >"$signed/$p"
	git -C "$repo" am -q "$signed/$p" >/dev/null 2>&1 || {
		git -C "$repo" am --abort >/dev/null 2>&1 || true
		die "$p does not apply with git am"
	}
done

out=$LAB_OUT/mail/v$version
rm -rf "$out"
prefix=PATCH
[ "$rfc" = 0 ] || prefix="RFC PATCH"
[ "$version" = 1 ] || prefix="$prefix v$version"
git -C "$repo" format-patch -q --cover-letter --thread=shallow \
	--subject-prefix="$prefix" -o "$out" lab-base..series

# the cover letter: text, results, base and links
cover=$out/0000-cover-letter.patch
body=$signed/cover-body
{
	tail -n +3 "$LAB_TOP/Documentation/cover-letter.txt"
	echo
	echo "Base: Linux $(make -s -C "$repo" kernelversion) as packaged by Debian (linux-source);"
	echo "${LAB_BASE_NOTE:-not yet rebased on tip:sched/core.}"
	echo
	if [ -n "$results" ]; then
		echo "Results (scripts/bench.sh, every variant flipped at run time in one"
		echo "boot, rounds interleaved):"
		echo
		if grep -q '^machine: .*QEMU' "$results/system.txt" 2>/dev/null; then
			echo "These come from an emulated machine (QEMU TCG): they show the"
			echo "method and the report, not the performance of any variant."
			echo
		fi
		cat "$results/report.txt"
		[ ! -s "$results/report-old.txt" ] || { echo; cat "$results/report-old.txt"; }
	else
		echo "Results: none yet (run make bench)."
	fi
	echo
	if [ -n "$score" ]; then
		echo "What select_idle_sibling() decided (scripts/score.sh: the missed-idle"
		echo "audit over a load sweep, every variant in the same boot):"
		echo
		cat "$score/cover-letter.txt"
	else
		echo "SIS decisions: none yet (run make score)."
	fi
	echo
	echo "Earlier discussions:"
	for p in $series; do
		sed -n 's/^Link: /  /p' "$patches/$p"
	done | sort -u
	echo
} >"$body"
subject=$(head -n1 "$LAB_TOP/Documentation/cover-letter.txt")
awk -v subj="$subject" -v bodyf="$body" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
	/\*\*\* BLURB HERE \*\*\*/ { while ((getline l < bodyf) > 0) print l; next }
	{ print }' "$cover" >"$cover.tmp"
mv "$cover.tmp" "$cover"

# no placeholder left: every mail is the sender's and signed off by them
for m in "$out"/*.patch; do
	! grep -qF "$placeholder" "$m" || die "${m##*/} still names the placeholder $placeholder"
	case $m in */0000-cover-letter.patch) continue ;; esac
	grep -qxF "Signed-off-by: $from" "$m" || die "${m##*/} has no Signed-off-by: $from"
done

# every mail must be checkpatch-clean
for m in "$out"/*.patch; do
	case $m in */0000-cover-letter.patch) continue ;; esac
	res=$(cd "$repo" && ./scripts/checkpatch.pl --strict -q "$m" 2>&1 | grep '^total:' || true)
	case $res in
	''|"total: 0 errors, 0 warnings, 0 checks"*) ;;
	*) die "checkpatch --strict: ${m##*/}: $res" ;;
	esac
done

gm() {
	(cd "$repo" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --separator , "$@" "$out"/0*.patch 2>/dev/null) | grep -v '^$' || true
}
to=$(gm --m --r --no-l)
cc=$(gm --no-m --no-r --l)
[ -n "$to" ] || die "get_maintainer.pl found no maintainer"
printf '%s\n' "$to" >"$out/to"
printf '%s\n' "$cc" >"$out/cc"

dry=--dry-run
[ "$send" = 0 ] || dry=
# shellcheck disable=SC2086
git -C "$repo" send-email $dry --confirm=never --quiet --suppress-cc=self \
	--from="$from" --to="$to" ${cc:+--cc="$cc"} "$out"/*.patch >"$out/send-email.log" 2>&1 ||
	die "git send-email failed: $(tail -n1 "$out/send-email.log")"
sent=$(grep -c '^\(Dry-\)\{0,1\}OK\|^Dry-Sent\|^Sent' "$out/send-email.log" || true)
note "$((n + 1)) mails in $out (To: $to; Cc: ${cc:-none})"
note "git send-email ${dry:+--dry-run }: $sent of $((n + 1)) mails accepted (log: $out/send-email.log)"
[ "$sent" -eq $((n + 1)) ] || die "send-email accepted $sent mails, expected $((n + 1))"
printf '%s\n' "$out"
