# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# readme_reference: README.md is a reference of at most 250 lines, and
# every file of the lab it names exists (a path under scripts/, guest/,
# tests/, tools/, configs/, patches/ or Documentation/, globs allowed, or a
# bare script name of those folders); placeholders (NAME) and the kernel's
# own files (tools/testing/, .rst, .pl) are not the lab's
readme_reference() {
	local r=$top/README.md n w missing=
	n=$(grep -c '' "$r")
	for w in $(grep -o '`[^` ]*`' "$r" | tr -d '`' | sort -u); do
		case $w in /*|tools/testing/*|*.rst|*.pl) continue ;; esac
		case ${w#*/} in *[A-Z]*) continue ;; esac
		case $w in
		scripts/*|guest/*|tests/*|tools/*|configs/*|patches/*|Documentation/*)
			# shellcheck disable=SC2086
			compgen -G "$top/${w%/}" >/dev/null || missing="$missing $w" ;;
		*.sh|*.py|*.awk)
			compgen -G "$top/scripts/$w" >/dev/null || compgen -G "$top/guest/$w" >/dev/null ||
				compgen -G "$top/guest/tests/$w" >/dev/null || compgen -G "$top/tests/$w" >/dev/null ||
				compgen -G "$top/tools/$w" >/dev/null || missing="$missing $w" ;;
		esac
	done
	if [ "$n" -le 250 ] && [ -z "$missing" ]; then
		ok "README.md: $n lines (at most 250), every file of the lab it names exists"
	else
		notok "README.md: $n lines (at most 250), names files that do not exist:${missing:- none}"
	fi
}
