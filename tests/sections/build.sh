# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The build section, sourced by tests/run.sh.

# the series applies and the kernel builds
sec_build() {
	echo "== build"
	if "$S/apply-patches.sh" >/dev/null 2>"$logs/patch.log"; then
		ok "patches/series applies ($(series_patches | wc -l) patches)"
	else
		notok "patches/series does not apply: $(tail -n1 "$logs/patch.log")"
		summary
		exit 1
	fi
	if "$S/build.sh" qemu >/dev/null 2>"$logs/build-qemu.log"; then
		ok "bzImage (qemu config) built"
	else
		notok "build failed: $(tail -n3 "$logs/build-qemu.log")"
		summary
		exit 1
	fi
	# the other fragments must at least configure (every option kept)
	for cfg in debug zen3; do
		if "$S/build.sh" --config-only "$cfg" >/dev/null 2>"$logs/config-$cfg.log"; then
			ok "the $cfg configuration keeps every option of its fragments"
		else
			notok "$cfg configuration: $(tail -n1 "$logs/config-$cfg.log")"
		fi
	done
}
