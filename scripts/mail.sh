#!/bin/bash
# Turn the patch stack into postings for LKML: one series per topic of
# patches/topics, each with its own cover letter.
#
# Why git format-patch and send-email and not b4.  Debian 12's b4 (0.12)
# was tried on this lab's base (b4 prep --enroll on a topic branch,
# --auto-to-cc, --edit-cover, b4 send -o DIR): it works offline, and its
# To/Cc come from the same scripts/get_maintainer.pl run this script
# makes.  What it would add here it cannot give for this base:
#  - base-commit: b4 writes the fork point's SHA.  Debian's linux-source
#    is a tarball, so the fork point is the commit of the throwaway
#    repository below, which exists nowhere else: a made-up base.  This
#    script writes the commit of KERNEL_SRC when that is a clean git tree
#    and otherwise says in words what the base is.
#  - change-id, revisions, "changes since" (prep --compare-to): b4 keeps
#    them in the branch's cover commit and in sent/ tags that a real b4
#    send leaves; the repository below is made again from the tarball, v1
#    was never sent with b4, so b4 would mint a new change-id every run
#    and has no v1 to compare with.  The change-ids are fixed in
#    patches/topics, v1 is a commit of this repository's history, and the
#    comparison is made here, patch by patch.
#  - a posting of one patch (imb, mmc) gets no cover letter from b4 (it
#    goes under the patch's "---"); each posting here has its own.
#  - b4 send needs a sendemail.smtpserver (or a patatt signing key) even
#    for -o; git send-email --dry-run checks the same addresses and mails.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: ${0##*/} [--topic NAME] [--version N] [--rfc] [--results DIR] [--score DIR]
       [--send] [--check] [--list] [--base] [--help]

Writes the postings of the patch stack: patches/topics says which patch
of patches/series goes into which posting (every patch into exactly one)
and which postings must be applied first.  For each topic (all of them,
or --topic NAME), the base tree is committed once into a git repository
of its own (\$LAB_OUT/mail-git), the prerequisite topics' patches and then
the topic's are applied with git am, and git format-patch writes
\$LAB_OUT/mail/vN/NAME/: a cover letter and one mail per patch.  The
cover letter is Documentation/cover-letters/NAME.txt (first line: the
subject), then what the script adds: the postings and their order, the
prerequisites, the base, each patch's changes since the previous version
(Documentation/cover-letters/changes.txt, and whether its diff differs
from that version's, read from this repository's history), the topic's
rows of the newest make score run (or of --score DIR, its score.csv read
by score_report.py; marked emulated),
what is not measured, the Link: tags, and at the end base-commit:,
prerequisite-patch-id: and change-id: lines.  base-commit is the commit
of KERNEL_SRC when that is a clean git tree; Debian's tarball has none,
and the line says so.  Patches a topic marks rfc: go out as [RFC PATCH].
The newest make bench report (or --results DIR) goes into the letters
only when it was measured on a real machine; an emulated one is copied
beside them (bench-report.txt).

Every mail must pass checkpatch.pl --strict.  To and Cc come from the
kernel's scripts/get_maintainer.pl run on the topic's mails (maintainers
and reviewers To, lists Cc), plus the maintainers of the files its
maintainers-of: line names.  The series' own author and Signed-off-by are
a placeholder (the From: of the first patch): the mails carry the
sender's git identity instead (git config user.name and user.email, as
git resolves them in this checkout), and without one the script stops,
since the DCO needs a person.  Ends with git send-email --dry-run for
each posting; --send really sends (needs sendemail.* configured in git).
LAB_BASE_NOTE replaces the line that says the base is not yet rebased on
tip:sched/core.  --check only checks patches/topics, the cover letters
and the changes file against the series; --list prints the topics;
--base prints the base-commit line the cover letters get.
The last line printed is the directory written (vN, or vN/NAME).
EOT
}

topic='' version='' rfc=0 results='' score='' send=0 mode=mail
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--topic) need_value "$@"; topic=$2; shift 2 ;;
	--version) need_value "$@"; version=$2; shift 2 ;;
	--rfc) rfc=1; shift ;;
	--results) need_value "$@"; results=$2; shift 2 ;;
	--score) need_value "$@"; score=$2; shift 2 ;;
	--send) send=1; shift ;;
	--check) mode=check; shift ;;
	--base) mode=base; shift ;;
	--list) mode=list; shift ;;
	*) usage >&2; exit 2 ;;
	esac
done

patches=${LAB_PATCHES:-$LAB_TOP/patches}
covers=${LAB_COVERS:-$LAB_TOP/Documentation/cover-letters}
topics_file=$patches/topics
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- patches/topics -------------------------------------------------------

# the topics file as "TOPIC<tab>KEY<tab>VALUE" lines (TOPIC "-" for the
# global lines), continuation lines joined; a line it cannot read stops it
[ -f "$topics_file" ] || die "no topics file $topics_file (it says which patch goes into which posting)"
norm=$work/topics
awk -v F="${topics_file#"$LAB_TOP"/}" '
	function bad(msg) { printf "%s:%d: %s\n", F, NR, msg; exit 1 }
	function flush() { if (key != "") print cur "\t" key "\t" val; key = "" }
	BEGIN { cur = "-"; g = " version previous lab "
		t = " patches after rfc variants maintainers-of change-id " }
	/^[ \t]*(#|$)/ { next }
	/^[ \t]/ { if (key == "") bad("a continued line without a key")
		$1 = $1; val = val (val == "" ? "" : " ") $0; next }
	{
		if (!match($0, /^[a-z-]+:/)) bad("not a \"key: value\" line")
		k = substr($0, 1, RLENGTH - 1)
		v = substr($0, RLENGTH + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); gsub(/[ \t]+/, " ", v)
		flush()
		if (k == "topic") { cur = v; print cur "\ttopic\t" v; next }
		if (index(cur == "-" ? g : t, " " k " ") == 0)
			bad("unknown key \"" k "\"" (cur == "-" ? " before the first topic" : " in topic " cur))
		key = k; val = v
	}
	END { flush() }' "$topics_file" >"$norm" 2>&1 || die "$(cat "$norm")"

# tget TOPIC KEY: the value (words)
tget() {
	awk -F'\t' -v t="$1" -v k="$2" '$1 == t && $2 == k { print $3 }' "$norm"
}
all_topics=$(awk -F'\t' '$2 == "topic" { print $1 }' "$norm" | tr '\n' ' ' | sed 's/ $//')
[ -n "$all_topics" ] || die "$topics_file defines no topic"

# the series, and each patch's name without its number
series=$(series_patches "$patches")
slug() { local s=${1#[0-9]*-}; printf '%s\n' "${s%.patch}"; }
declare -A file_of=() pos_of=() topic_of=() prereqs=()
i=0
for p in $series; do
	i=$((i + 1))
	file_of[$(slug "$p")]=$p
	pos_of[$(slug "$p")]=$i
done

seen=' '
for t in $all_topics; do
	case $t in
	[a-z]*) [[ $t =~ ^[a-z][a-z0-9-]*$ ]] || die "topic name '$t' in $topics_file: lower case letters, digits and '-' only" ;;
	*) die "topic name '$t' in $topics_file: lower case letters, digits and '-' only" ;;
	esac
	case $seen in *" $t "*) die "topic $t is defined twice in $topics_file" ;; esac
	for k in patches variants change-id; do
		[ -n "$(tget "$t" "$k")" ] || die "topic $t in $topics_file has no $k: line"
	done
	[[ $(tget "$t" change-id) =~ ^[0-9]{8}-[a-z0-9-]+-[0-9a-f]{12}$ ]] ||
		die "topic $t: change-id '$(tget "$t" change-id)' is not of the form YYYYMMDD-name-<12 hex digits>"
	for s in $(tget "$t" patches); do
		[ -n "${file_of[$s]:-}" ] ||
			die "topic $t names the patch $s, which is not in ${patches#"$LAB_TOP"/}/series"
		[ -z "${topic_of[$s]:-}" ] ||
			die "the patch ${file_of[$s]} is in two topics: ${topic_of[$s]} and $t"
		topic_of[$s]=$t
	done
	for s in $(tget "$t" rfc); do
		[ "${topic_of[$s]:-}" = "$t" ] || die "topic $t: rfc names $s, which is not one of its patches"
	done
	# prerequisites: earlier topics, with theirs
	pre=' '
	for a in $(tget "$t" after); do
		case $seen in
		*" $a "*) ;;
		*) die "topic $t: after names '$a', which is not a topic listed before it" ;;
		esac
		for b in ${prereqs[$a]} $a; do
			case $pre in *" $b "*) ;; *) pre="$pre$b " ;; esac
		done
	done
	# in posting order
	prereqs[$t]=$(for b in $all_topics; do case $pre in *" $b "*) echo "$b" ;; esac; done | tr '\n' ' ')
	f=$covers/$t.txt
	[ -s "$f" ] || die "topic $t has no cover letter ${f#"$LAB_TOP"/}"
	[ -n "$(sed -n 1p "$f")" ] && [ -z "$(sed -n 2p "$f")" ] ||
		die "${f#"$LAB_TOP"/}: the first line is the subject, the second must be empty"
	seen="$seen$t "
done
# the lab stack's own patches (lab:), in the series but posted by no topic
declare -A lab_of=()
for s in $(tget - lab); do
	[ -n "${file_of[$s]:-}" ] ||
		die "lab: names the patch $s, which is not in ${patches#"$LAB_TOP"/}/series"
	[ -z "${topic_of[$s]:-}" ] ||
		die "the patch ${file_of[$s]} is in lab: and in topic ${topic_of[$s]}"
	lab_of[$s]=1
done
for p in $series; do
	[ -n "${topic_of[$(slug "$p")]:-}${lab_of[$(slug "$p")]:-}" ] ||
		die "$p (${patches#"$LAB_TOP"/}/series) is in no topic of ${topics_file#"$LAB_TOP"/}"
done

# the previous version: its number and the commit whose patches/ held it
read -r prev_version prev_rev <<<"$(tget - previous)" || true
[[ ${prev_version:-} =~ ^[1-9][0-9]*$ ]] && [ -n "${prev_rev:-}" ] ||
	die "$topics_file: previous: wants the version and a commit, e.g. 'previous: 1 5d6d64f'"
changes=$covers/changes.txt
[ -f "$changes" ] || die "no ${changes#"$LAB_TOP"/} (what changed in each patch since v$prev_version)"
for p in $series; do
	[ -z "${lab_of[$(slug "$p")]:-}" ] || continue
	grep -q "^$(slug "$p"): ." "$changes" ||
		die "${changes#"$LAB_TOP"/} has no line for $(slug "$p") (what changed since v$prev_version)"
done

if [ "$mode" = list ]; then
	for t in $all_topics; do
		printf '%s: %s\n' "$t" "$(for s in $(tget "$t" patches); do printf '%s ' "${file_of[$s]%%-*}"; done)${prereqs[$t]:+(after ${prereqs[$t]% })}"
	done
	exit 0
fi
if [ "$mode" = check ]; then
	note "$(echo "$all_topics" | wc -w) topics, $(echo "$series" | wc -w) patches, each in exactly one topic${lab_of[*]:+ or, ${#lab_of[@]} of them, in the lab stack alone (lab:)}; cover letters and changes since v$prev_version complete"
	exit 0
fi

if [ -n "$topic" ]; then
	case " $all_topics " in
	*" $topic "*) ;;
	*) die "unknown topic '$topic' (topics: $all_topics)" ;;
	esac
	selected=$topic
else
	selected=$all_topics
fi
version=${version:-$(tget - version)}
version=${version:-1}
case $version in ''|*[!0-9]*|0) die "--version must be a positive number, not '$version'" ;; esac

# --- the base and its identity ----------------------------------------------

# the base, as apply-patches.sh finds it; the work tree is left alone
src=$(base_tree)
base_commit='' base_words='' base_short=''
if [ -n "${KERNEL_SRC:-}" ] && [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$src" && pwd -P)" ]; then
	if [ -z "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		base_commit=$(git -C "$src" rev-parse --verify -q HEAD)
		base_words="the git tree KERNEL_SRC ($(git -C "$src" describe --always --tags 2>/dev/null || echo "$base_commit"))"
	else
		base_words="the git tree KERNEL_SRC with changes of its own not committed, so its HEAD is not the base"
		base_short="KERNEL_SRC has changes not committed"
	fi
elif [ -n "${KERNEL_SRC:-}" ]; then
	base_words="the tree KERNEL_SRC, which is not a git tree"
	base_short="KERNEL_SRC is not a git tree"
else
	deb=$(awk 'NR == 1 { print $2 }' "$LAB_TOP/scripts/base.sha256")
	debver=${deb#*_}
	debver=${debver%_*}
	base_words="as packaged by Debian (linux-source-7.3 $debver: the upstream release with Debian's own patches applied)"
	base_short="Debian's linux-source-7.3 $debver"
fi
# base_line: the base-commit line of the cover letters
base_line() {
	if [ -n "$base_commit" ]; then
		echo "base-commit: $base_commit"
	else
		echo "base-commit: none ($base_short, no git commit: see Base above)"
	fi
}
if [ "$mode" = base ]; then
	base_line
	exit 0
fi

# --- the sender, the results ------------------------------------------------

command -v git >/dev/null || die "git is not installed"
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git send-email is not installed (apt-get install git-email)"

# the newest bench run that has its report (a run killed early has none)
if [ -z "$results" ]; then
	results=$(for r in "$LAB_OUT"/bench/*/; do
		[ ! -s "$r/report.txt" ] || echo "${r%/}"
	done | sort | tail -n1)
fi
[ -z "$results" ] || [ -s "$results/report.txt" ] ||
	die "no report.txt in '$results' (run make bench, or pass --results DIR)"
if [ -z "$score" ] && [ -s "$LAB_OUT/score/latest/score.csv" ]; then
	score=$LAB_OUT/score/latest
fi
[ -z "$score" ] || [ -s "$score/score.csv" ] ||
	die "no score.csv in '$score' (run make score, or pass --score DIR)"

# the sender signs off: the series' placeholder author and sign-off become them
name=$(git -C "$LAB_TOP" config --get user.name 2>/dev/null || true)
email=$(git -C "$LAB_TOP" config --get user.email 2>/dev/null || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git identity: set git config user.name and user.email (the DCO needs a person)"
from="$name <$email>"
placeholder=$(sed -n 's/^From: //p' "$patches/$(printf '%s\n' "$series" | head -n1)" | head -n1)
[ -n "$placeholder" ] || die "the first patch has no From: line"
[ "$from" != "$placeholder" ] ||
	die "git identity '$from' is the series' placeholder (the DCO needs a person)"

emulated_bench=0
[ -z "$results" ] || ! grep -q '^machine: .*QEMU' "$results/system.txt" 2>/dev/null || emulated_bench=1

# --- git: the base once, then each topic on its prerequisites ---------------

export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'

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
kversion=$(make -s -C "$repo" kernelversion)

# each patch as the sender's: the placeholder From and sign-off become theirs
mkdir -p "$work/signed"
for p in $series; do
	OLD=$placeholder NEW=$from awk '
		!body && $0 == "From: " ENVIRON["OLD"] { print "From: " ENVIRON["NEW"]; next }
		!body && $0 == "Signed-off-by: " ENVIRON["OLD"] { print "Signed-off-by: " ENVIRON["NEW"]; next }
		/^---$/ { body = 1 }
		{ print }' "$patches/$p" >"$work/signed/$p"
done

# in_series_order SLUG...: the patch files, in series order
in_series_order() {
	local s
	for s in "$@"; do printf '%s %s\n' "${pos_of[$s]}" "${file_of[$s]}"; done | sort -n | cut -d' ' -f2
}
# apply_on BRANCH START WHAT PATCH...: BRANCH is START with the patches applied
apply_on() {
	local branch=$1 start=$2 what=$3 p
	shift 3
	git -C "$repo" am --abort >/dev/null 2>&1 || true
	git -C "$repo" checkout -q -f -B "$branch" "$start"
	git -C "$repo" clean -q -fdx
	for p in "$@"; do
		git -C "$repo" am -q "$work/signed/$p" >/dev/null 2>&1 || {
			git -C "$repo" am --abort >/dev/null 2>&1 || true
			die "$p does not apply with git am $what"
		}
	done
}

# the previous version's patches, from this repository's history
prev=$work/prev
mkdir -p "$prev"
prev_series=$(git -C "$LAB_TOP" show "$prev_rev:patches/series" 2>/dev/null |
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d') || prev_series=''
for p in $prev_series; do
	git -C "$LAB_TOP" show "$prev_rev:patches/$p" >"$prev/$p" 2>/dev/null || { prev_series=''; break; }
done
prev_n=$(printf '%s\n' "$prev_series" | grep -c . || true)
# diff_lines FILE: the lines a patch adds and removes
diff_lines() {
	awk '/^--- (a\/|\/dev\/null)/ { d = 1 } d && /^[-+]/ && !/^(---|\+\+\+) /' "$1"
}
# since_prev PATCH: what the script itself can say of PATCH against the
# previous version: new, or how many of its added and removed lines differ
since_prev() {
	local subj k=0 p n
	[ -n "$prev_series" ] || { echo "(v$prev_version, $prev_rev, is not in this checkout's history: not compared)"; return; }
	subj=$(grep -m1 '^Subject: ' "$patches/$1")
	for p in $prev_series; do
		k=$((k + 1))
		grep -qxF "$subj" "$prev/$p" || continue
		n=$(diff <(diff_lines "$prev/$p") <(diff_lines "$patches/$1") | grep -c '^[<>]' || true)
		if [ "$n" = 0 ]; then
			echo "(v$prev_version's $k/$prev_n: the same added and removed lines)"
		else
			echo "(v$prev_version's $k/$prev_n: $n added or removed lines differ)"
		fi
		return
	done
	echo "(new since v$prev_version)"
}

# wrap INDENT: fold stdin to 72 columns with INDENT spaces in front
wrap() {
	fold -s -w $((72 - $1)) | sed -e 's/ *$//' -e "s/^/$(printf '%*s' "$1" '')/"
}

# score_rows TOPIC: the scoreboard's cover table of tip and the topic's
# variants, from the score run's rows (score_report.py); status 3, with
# the reasons the run gave for skipping them, when none of them has a row
score_rows() {
	"$LAB_TOP/scripts/score_report.py" --format cover --variants "tip $(tget "$1" variants)" \
		"$score/score.csv"
}

prefix=PATCH
[ "$rfc" = 0 ] || prefix="RFC PATCH"
[ "$version" = 1 ] || prefix="$prefix v$version"
outroot=$LAB_OUT/mail/v$version
mkdir -p "$outroot"
if [ -n "$results" ] && [ "$emulated_bench" = 1 ]; then
	cp "$results/report.txt" "$outroot/bench-report.txt"
fi
ntopics=$(echo "$all_topics" | wc -w)

for t in $selected; do
	# shellcheck disable=SC2046
	own=$(in_series_order $(tget "$t" patches))
	pre=$(for a in ${prereqs[$t]}; do tget "$a" patches; done | tr ' ' '\n')
	pre=$(in_series_order $pre)
	n=$(printf '%s\n' "$own" | grep -c .)
	# shellcheck disable=SC2086
	apply_on "mail-$t-base" lab-base "on the base (prerequisite of $t)" $pre
	# shellcheck disable=SC2086
	apply_on "mail-$t" "mail-$t-base" "on the base with ${prereqs[$t]:-nothing else} (topic $t)" $own

	out=$outroot/$t
	rm -rf "$out"
	git -C "$repo" format-patch -q --cover-letter --thread=shallow \
		--subject-prefix="$prefix" -o "$out" "mail-$t-base..mail-$t"
	# debugging aids: [RFC PATCH]
	k=0
	for p in $own; do
		k=$((k + 1))
		case " $(tget "$t" rfc) " in *" $(slug "$p") "*) ;; *) continue ;; esac
		case $prefix in RFC*) continue ;; esac
		sed -i "1,/^Subject: /s/^Subject: \[$prefix /Subject: [RFC $prefix /" "$out"/"$(printf '%04d' "$k")"-*.patch
	done

	# the cover letter
	body=$work/cover-$t
	{
		tail -n +3 "$covers/$t.txt"
		echo
		echo "The postings"
		echo
		echo "This is one of $ntopics postings made from one patch stack, in this"
		echo "order (the name is only to tell them apart):"
		echo
		for a in $all_topics; do
			m=$(tget "$a" patches | wc -w)
			mark=' '
			[ "$a" != "$t" ] || mark='*'
			printf '%s %-6s %s\n' "$mark" "$a" "$(sed -n 1p "$covers/$a.txt")"
			printf '         %s patch%s, applies on %s\n' "$m" "$([ "$m" = 1 ] || echo es)" \
				"$(if [ -n "${prereqs[$a]}" ]; then echo "the base with: ${prereqs[$a]% }"; else echo "the base"; fi)"
		done
		echo
		if [ -n "${prereqs[$t]}" ]; then
			echo "Prerequisites: this posting applies on top of the postings ${prereqs[$t]% } (in that order, listed" \
				"above), applied first; their patches are the prerequisite-patch-id lines at the end" \
				"(git patch-id --stable)." | wrap 0
			for a in ${prereqs[$t]}; do
				printf '  %s: "%s", change-id %s\n' "$a" "$(sed -n 1p "$covers/$a.txt")" "$(tget "$a" change-id)" | wrap 2 | sed '1s/^  //'
			done
		else
			echo "Prerequisites: none; this posting applies on the base alone."
		fi
		echo
		echo "Base: Linux $kversion $base_words; ${LAB_BASE_NOTE:-not yet rebased on tip:sched/core.}" | wrap 0
		[ -n "$base_commit" ] || echo "So there is no base commit to give (the base-commit line at the end says so)." | wrap 0
		echo
		echo "Changes since v$prev_version (v$prev_version: the lab's first version of this work," \
			"reviewed in the lab, not posted to a list):" | wrap 0
		k=0
		for p in $own; do
			k=$((k + 1))
			echo
			printf '  [%d/%d] %s\n' "$k" "$n" "$(sed -n 's/^Subject: \[PATCH\] //p' "$patches/$p" | head -n1)"
			{ sed -n "s/^$(slug "$p"): //p" "$changes"; } | wrap 8
			since_prev "$p" | wrap 8
		done
		echo
		echo "Figures from make score (emulated: QEMU TCG, not hardware):"
		echo
		if [ "$(tget "$t" variants)" = - ]; then
			echo "None for this posting: it changes no wakeup decision."
		elif [ -z "$score" ]; then
			echo "No score run (make score has not run here), so no figures."
		else
			rc=0
			score_rows "$t" >"$work/rows" 2>"$work/rows.err" || rc=$?
			case $rc in 0|3) ;; *) die "the score run $score: $(tail -n1 "$work/rows.err")" ;; esac
			if [ "$rc" = 0 ]; then
				echo "The rows of tip (every feature off) and of the variants this posting" \
					"adds ($(tget "$t" variants)), from the scoreboard of" \
					"$(basename "$(cd "$score" && pwd -P)"):" | wrap 0
				echo
				cat "$work/rows"
			else
				echo "The newest score run ($(basename "$(cd "$score" && pwd -P)")) has no row for this posting's" \
					"variants ($(tget "$t" variants)): no figures." | wrap 0
				# and why, when the run says (a variant it skipped)
				cat "$work/rows"
			fi
		fi
		echo
		echo "Not measured: every figure in this letter was taken in a QEMU TCG guest (an emulated" \
			"Zen3 2P); none comes from hardware.  They count decisions (CPUs probed, wakeups placed" \
			"on an idle CPU, idle CPUs missed), not what the decisions cost or gain: no" \
			"throughput, latency, cache-miss or power figure of a real machine is given, and" \
			"these patches have not run on a real Zen2 or Zen3 machine." | wrap 0
		if [ -n "$results" ] && [ "$emulated_bench" = 1 ]; then
			echo "The lab's benchmark report (${results##*/}) has emulated timings only" \
				"(plumbing, not performance) and is left out." | wrap 0
		elif [ -n "$results" ]; then
			echo
			echo "Benchmarks on a real machine (scripts/bench.sh --host, ${results##*/}; every" \
				"variant of the stack, not only this posting's):" | wrap 0
			echo
			cat "$results/report.txt"
			[ ! -s "$results/report-old.txt" ] || { echo; cat "$results/report-old.txt"; }
		fi
		echo
		echo "Earlier discussions:"
		for p in $own; do
			sed -n 's/^Link: /  /p' "$patches/$p"
		done | awk '!seen[$0]++'
	} >"$body"
	# the closing lines, git format-patch --base style
	{
		base_line
		git -C "$repo" rev-list --reverse "mail-$t-base" --not lab-base | while read -r c; do
			git -C "$repo" show "$c" | git patch-id --stable | awk '{ print "prerequisite-patch-id: " $1 }'
		done
		echo "change-id: $(tget "$t" change-id)"
	} >"$work/tail"
	cover=$out/0000-cover-letter.patch
	subject=$(head -n1 "$covers/$t.txt")
	awk -v subj="$subject" -v bodyf="$body" -v tailf="$work/tail" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/\*\*\* BLURB HERE \*\*\*/ { while ((getline l < bodyf) > 0) print l; next }
		/^-- $/ && !done { while ((getline l < tailf) > 0) print l; print ""; done = 1 }
		{ print }' "$cover" >"$cover.tmp"
	mv "$cover.tmp" "$cover"

	# no placeholder left: every mail is the sender's and signed off by them
	for m in "$out"/*.patch; do
		! grep -qF "$placeholder" "$m" || die "$t/${m##*/} still names the placeholder $placeholder"
		case $m in */0000-cover-letter.patch) continue ;; esac
		grep -qxF "Signed-off-by: $from" "$m" || die "$t/${m##*/} has no Signed-off-by: $from"
	done

	# every mail must be checkpatch-clean
	for m in "$out"/*.patch; do
		case $m in */0000-cover-letter.patch) continue ;; esac
		res=$(cd "$repo" && ./scripts/checkpatch.pl --strict -q "$m" 2>&1 | grep '^total:' || true)
		case $res in
		''|"total: 0 errors, 0 warnings, 0 checks"*) ;;
		*) die "checkpatch --strict: $t/${m##*/}: $res" ;;
		esac
	done

	# To and Cc: get_maintainer.pl on the mails, and on the files the
	# topic names, in the tree with the topic applied
	gm() {
		local f
		(cd "$repo" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats "$@" "$out"/0*.patch 2>/dev/null) || true
		for f in $(tget "$t" maintainers-of); do
			[ -e "$repo/$f" ] || die "topic $t: maintainers-of names $f, which the tree does not have"
			(cd "$repo" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
				--no-rolestats "$@" -f "$f" 2>/dev/null) || true
		done
	}
	gm --m --r --no-l | grep -v '^$' | awk '!seen[$0]++' >"$out/to" || true
	gm --no-m --no-r --l | grep -v '^$' | awk '!seen[$0]++' | grep -vxF -f "$out/to" >"$out/cc" || true
	[ -s "$out/to" ] || die "topic $t: get_maintainer.pl found no maintainer"
	to=$(paste -sd, "$out/to" | sed 's/,/, /g')
	cc=$(paste -sd, "$out/cc" | sed 's/,/, /g')

	dry=--dry-run
	[ "$send" = 0 ] || dry=
	# shellcheck disable=SC2086
	git -C "$repo" send-email $dry --confirm=never --quiet --suppress-cc=self \
		--from="$from" --to="$to" ${cc:+--cc="$cc"} "$out"/*.patch >"$out/send-email.log" 2>&1 ||
		die "$t: git send-email failed: $(tail -n1 "$out/send-email.log")"
	sent=$(grep -c '^\(Dry-\)\{0,1\}OK\|^Dry-Sent\|^Sent' "$out/send-email.log" || true)
	note "$t: $((n + 1)) mails in $out (To: $to; Cc: ${cc:-none})"
	note "$t: git send-email ${dry:+--dry-run }: $sent of $((n + 1)) mails accepted (log: $out/send-email.log)"
	[ "$sent" -eq $((n + 1)) ] || die "$t: send-email accepted $sent mails, expected $((n + 1))"
done
if [ -n "$topic" ]; then
	printf '%s\n' "$outroot/$topic"
else
	printf '%s\n' "$outroot"
fi
