# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The mail section, sourced by tests/run.sh.

# mail_subject MAIL: its Subject: header, unfolded
mail_subject() {
	awk '/^Subject: / { s = $0; while ((getline l) > 0 && l ~ /^[ \t]/) s = s l; print s; exit }' "$1"
}

# make mail: one posting per topic of patches/topics, each with its
# send-email dry run
sec_mail() {
	echo "== mail"
	# the newest bench run has no report (it was killed, as the bench
	# section's last run is): mail takes the newest one that has, the
	# smoke run's ($d) when the bench section ran
	local incomplete tp out rc m t f bad want got n x86 a v line topics c lab
	incomplete=$LAB_OUT/bench/$(date +%Y%m%d-%H%M%S)-zz-killed
	mkdir -p "$incomplete"

	# the topic mapping: every patch of the series in exactly one topic,
	# checked on the lab's files, then on copies with one patch left out,
	# one in two topics and one the series lacks (each must be refused)
	if out=$("$S/mail.sh" --check 2>&1); then
		ok "mail: ${out#mail.sh: }"
	else
		notok "mail: patches/topics: $out"
	fi
	tp=$tmp/topics
	mkdir -p "$tp"
	cp "$top/patches/series" "$tp/series"
	grep -v '^	sched-fair-Let-SIS_CORE-scans-correct-the-idle-mask$' "$top/patches/topics" >"$tp/topics"
	expect_error "mail: a patch in no topic" "0011-sched-fair-Let-SIS_CORE-scans-correct-the-idle-mask.patch (.*series) is in no topic" \
		env LAB_PATCHES="$tp" "$S/mail.sh" --check
	sed 's/^patches: x86-sched-Add-an-MMC-domain-pairing-neighbouring-LLCs$/& sched-debug-Show-imb_numa_nr-in-the-domain-directories/' \
		"$top/patches/topics" >"$tp/topics"
	expect_error "mail: a patch in two topics" "0000-sched-debug-Show-imb_numa_nr-in-the-domain-directories.patch is in two topics: imb and mmc" \
		env LAB_PATCHES="$tp" "$S/mail.sh" --check
	sed 's/^patches: x86-sched-Add-an-MMC-domain-pairing-neighbouring-LLCs$/& sched-fair-No-such-patch/' \
		"$top/patches/topics" >"$tp/topics"
	expect_error "mail: a topic naming a patch the series lacks" "topic mmc names the patch sched-fair-No-such-patch, which is not in" \
		env LAB_PATCHES="$tp" "$S/mail.sh" --check
	# an unknown TOPIC: one line, nothing written
	rc=0
	out=$("$S/mail.sh" --topic nope 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -q "error: unknown topic 'nope' (topics: " &&
		make -s -n -C "$top" mail TOPIC=nope | grep -q "mail.sh --topic 'nope'"; then
		ok "mail: make mail TOPIC=nope: one line ($out)"
	else
		notok "mail: unknown topic: status $rc, '$out'"
	fi

	# the base's identity: a clean git tree gives its HEAD, one with
	# changes not committed and a tree without git give none, in words
	local g sha b1 b2 b3
	g=$tmp/gitbase
	mkdir -p "$g/kernel/sched"
	printf 'all:\n' >"$g/Makefile"
	printf 'int a;\n' >"$g/kernel/sched/fair.c"
	git -C "$g" init -q
	git -C "$g" add -A
	git -C "$g" -c user.name=t -c user.email=t@example.org commit -q -m base
	sha=$(git -C "$g" rev-parse HEAD)
	b1=$(KERNEL_SRC=$g "$S/mail.sh" --base 2>&1)
	printf 'int b;\n' >>"$g/kernel/sched/fair.c"
	b2=$(KERNEL_SRC=$g "$S/mail.sh" --base 2>&1)
	rm -rf "$g/.git"
	b3=$(KERNEL_SRC=$g "$S/mail.sh" --base 2>&1)
	if [ "$b1" = "base-commit: $sha" ] &&
		[ "$b2" = "base-commit: none (KERNEL_SRC has changes not committed, no git commit: see Base above)" ] &&
		[ "$b3" = "base-commit: none (KERNEL_SRC is not a git tree, no git commit: see Base above)" ]; then
		ok "mail: base-commit is KERNEL_SRC's HEAD when it is a clean git tree, none with changes or without git"
	else
		notok "mail: base-commit lines: clean git '$b1' (want $sha), changed '$b2', no git '$b3'"
	fi

	# the series is signed off by a placeholder: mail.sh needs a person
	placeholder=$(sed -n 's/^From: //p' "$top/patches/$(series_patches | head -n1)" | head -n1)
	if git -C "$top" config --local --get user.name >/dev/null 2>&1; then
		ok "mail: no identity: not checked, this checkout sets its own user.name"
	else
		mkdir -p "$tmp/nohome"
		expect_error "mail: no git identity" "no git identity: .*the DCO needs a person" \
			env HOME="$tmp/nohome" XDG_CONFIG_HOME="$tmp/nohome" GIT_CONFIG_NOSYSTEM=1 \
			GIT_CONFIG_GLOBAL=/dev/null "$S/mail.sh" --rfc
	fi
	expect_error "mail: the placeholder as identity" "is the series' placeholder" \
		env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="${placeholder% <*}" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$(printf '%s' "${placeholder##*<}" | tr -d '>')" \
		"$S/mail.sh" --rfc
	sender="Lab Tester <lab.tester@example.org>"
	# a scoreboard run: the reader's fixture (its cover table is
	# expect-cover.txt)
	mkdir -p "$tmp/score"
	cp "$top/tests/score/score.csv" "$top/tests/score/score.conf" "$top/tests/score/notes.txt" "$tmp/score/"
	expect_error "mail: a scoreboard directory without its rows" "no score.csv in" \
		"$S/mail.sh" --score "$tmp"
	# as the sender
	as_sender() {
		env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="${sender% <*}" \
			GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=lab.tester@example.org "$@"
	}

	# one topic, RFC, version 3: only its directory
	if as_sender "$S/mail.sh" --topic imb --rfc --version 3 --score "$tmp/score" >"$logs/mail-imb.log" 2>&1; then
		m=$(tail -n1 "$logs/mail-imb.log")
		# (bench-report.txt beside the postings when a bench run has a report)
		if [ "$m" = "$LAB_OUT/mail/v3/imb" ] &&
			[ "$(ls "$LAB_OUT/mail/v3" | grep -vx bench-report.txt)" = imb ] &&
			grep -q '^Subject: \[RFC PATCH v3 0/1\] sched/debug: show imb_numa_nr' "$m/0000-cover-letter.patch" &&
			grep -q '^Subject: \[RFC PATCH v3 1/1\] ' "$m"/0001-*.patch; then
			ok "mail: TOPIC=imb --rfc --version 3 wrote $m alone, [RFC PATCH v3 0/1]"
		else
			notok "mail: TOPIC=imb --rfc --version 3: $m: $(ls "$LAB_OUT/mail/v3" | tr '\n' ' ')"
		fi
	else
		notok "make mail TOPIC=imb: $(tail -n1 "$logs/mail-imb.log")"
	fi
	rm -rf "$LAB_OUT/mail/v3"

	# every topic
	if ! as_sender "$S/mail.sh" --score "$tmp/score" >"$logs/mail.log" 2>&1; then
		notok "make mail: $(tail -n1 "$logs/mail.log")"
		rmdir "$incomplete"
		return
	fi
	m=$(tail -n1 "$logs/mail.log")
	v=${m##*/}
	while read -r line; do
		ok "${line#mail.sh: }"
	done < <(grep 'mails accepted' "$logs/mail.log")
	topics=$("$S/mail.sh" --list 2>/dev/null | cut -d: -f1 | tr '\n' ' ')
	# every patch of the series in exactly one posting, but the lab's own
	lab=$(sed -n 's/^lab: *//p' "$top/patches/topics")
	want=$(series_patches | while read -r f; do
		case " $lab " in *" $(f=${f#[0-9]*-}; echo "${f%.patch}") "*) continue ;; esac
		sed -n 's/^Subject: \[PATCH\] //p' "$top/patches/$f" | head -n1
	done | sort)
	got=$(for f in "$m"/*/0*.patch; do
		case $f in */0000-cover-letter.patch) continue ;; esac
		mail_subject "$f" | sed 's/^Subject: \[[^]]*\] //'
	done | sort)
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "mail: the $(echo "$want" | wc -l) patches of the series, each in exactly one posting ($topics), the lab's own ($lab) in none"
	else
		notok "mail: patches not posted exactly once: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -n3 | tr '\n' ' ')"
	fi
	# each cover letter: filled in, base-commit, the emulated-figures
	# marker, change-id, its prerequisites' patches
	bad=''
	for t in $topics; do
		f=$m/$t/0000-cover-letter.patch
		n=0
		for a in $("$S/mail.sh" --list 2>/dev/null | sed -n "s/^$t: .*(after \(.*\))\$/\1/p"); do
			n=$((n + $("$S/mail.sh" --list 2>/dev/null | sed -n "s/^$a: //p" | sed 's/(.*//' | wc -w)))
		done
		grep -q "^Subject: \[PATCH $v 0*0/" "$f" && ! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$f" &&
			grep -q '^base-commit: ' "$f" && grep -q '^change-id: ' "$f" &&
			grep -qxF 'Figures from make score (emulated: QEMU TCG, not hardware):' "$f" &&
			grep -q '^Not measured: ' "$f" && grep -q '^Changes since v1 ' "$f" &&
			[ "$(grep -c '^prerequisite-patch-id: [0-9a-f]\{40\}$' "$f")" = "$n" ] || bad="$bad $t"
	done
	if [ -z "$bad" ]; then
		ok "mail: every cover letter filled in, with base-commit, change-id, prerequisite patch-ids, changes since v1, the emulated-figures marker and what is not measured"
	else
		notok "mail: cover letter incomplete in:$bad"
	fi
	# the figures: the fixture's table, each topic's rows only
	f=$m/node/0000-cover-letter.patch
	c=$top/tests/score/expect-cover.txt
	if grep -qxF "$(sed -n 1p "$c")" "$f" &&
		grep -qxF "$(grep '^NODE ' "$c" | head -n1)" "$f" &&
		grep -qxF "$(grep '^tip ' "$c" | head -n1)" "$f" &&
		! grep -q '^CORE ' "$f" && grep -q '^CORE ' "$m/core/0000-cover-letter.patch" &&
		! grep -q '^NODE ' "$m/core/0000-cover-letter.patch" &&
		grep -q '^None for this posting' "$m/imb/0000-cover-letter.patch"; then
		ok "mail: the scoreboard's table, marked emulated, with each posting's rows (node: tip and NODE; core: tip and CORE; imb: none)"
	else
		notok "mail: the scoreboard's rows in the cover letters of $m"
	fi
	if [ -z "$d" ]; then
		ok "mail: the bench report: not checked, the bench section did not run"
	elif [ "$(grep -m1 . "$m/bench-report.txt" 2>/dev/null)" = "$(grep -m1 . "$d/report.txt")" ] &&
		! grep -qF "$(grep -m1 '^SIS decisions' "$d/report.txt")" "$m"/*/0000-cover-letter.patch; then
		ok "mail: the newest bench report ($d), not the newer run killed before its report, beside the mails, not in them (emulated)"
	else
		notok "mail: $m/bench-report.txt is not the report of $d, or the emulated report is in a cover letter"
	fi
	# Link: tags, PeterZ for SIS_NODE, the x86 maintainers for MMC
	# (whatever get_maintainer.pl gives for arch/x86/kernel/smpboot.c)
	x86=$(cd "$LAB_OUT/mail-git" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		-f arch/x86/kernel/smpboot.c 2>/dev/null | sed 's/.*<\(.*\)>.*/\1/')
	bad=''
	for a in $x86; do
		grep -qF "$a" "$m/mmc/to" "$m/mmc/cc" || bad="$bad $a"
	done
	if grep -q '^Link:' "$m"/node/*-Search-the-other-LLCs-of-the-node*.patch &&
		grep -q 'peterz@infradead.org' "$m/node/to" &&
		printf '%s\n' "$x86" | grep -qx 'x86@kernel.org' && [ -z "$bad" ]; then
		ok "mail: Link: tags kept, PeterZ in node's To, mmc's To/Cc has all $(echo "$x86" | wc -l) of smpboot.c's (x86@kernel.org among them)"
	else
		notok "mail: Link: tags, PeterZ or the x86 maintainers missing (smpboot.c gives: $(echo "$x86" | tr '\n' ' '); not in mmc's To/Cc:$bad)"
	fi
	# the statistics patch: posted with core, last, as [RFC PATCH]
	f=$(ls "$m"/core/0*.patch | tail -n1)
	if mail_subject "$f" | grep -q "^Subject: \[RFC PATCH $v \([0-9]*\)/\1\] sched/fair: Add select_idle_sibling() statistics" &&
		[ "$(grep -l '^Subject: \[RFC ' "$m"/*/0*.patch | wc -l)" = 1 ]; then
		ok "mail: the statistics patch is core's last mail, the only [RFC PATCH] ($(mail_subject "$f"))"
	else
		notok "mail: the statistics patch is not core's last mail as [RFC PATCH]: $(mail_subject "$f")"
	fi
	bad=''
	for f in "$m"/*/0*.patch; do
		if grep -qF "$placeholder" "$f" || ! grep -qxF "From: $sender" "$f"; then
			bad="$bad ${f#"$m"/}"
		elif [ "${f##*/0000-}" = "${f##*/}" ] && ! grep -qxF "Signed-off-by: $sender" "$f"; then
			bad="$bad ${f#"$m"/}"
		fi
	done
	if [ -z "$bad" ]; then
		ok "mail: every mail is from and signed off by the sender, no placeholder left"
	else
		notok "mail: placeholder or no sender sign-off in:$bad"
	fi
	rmdir "$incomplete"
}
