# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# A host test of the lab, sourced by tests/run.sh and called by its host
# section (tests/sections/host.sh).

# bench_registry_one_file: a benchmark is its file alone.  Every file of
# guest/bench/ that runs (NAME_run) declares its results, and a new file
# with "# result RANK:" lines enters the registry at its rank, under
# busybox as in the guest, and so the reports and the default BENCHES
# (bench_names)
bench_registry_one_file() {
	local d=$tmp/registry bb f n bad= got want
	for f in "$G"/bench/*.sh; do
		n=$(basename "$f" .sh)
		grep -q "^${n//-/_}_run()" "$f" || continue
		grep -q "^# result [0-9]*: [^|]*|[a-z]*|[A-Za-z]*|[^|]*|[^|]*|[a-z]* [^|]*|$n|" "$f" ||
			bad="$bad $n"
	done
	if [ -z "$bad" ]; then
		ok "bench registry: every benchmark file that runs declares its results"
	else
		notok "bench registry: no '# result RANK: ...|NAME|' line in guest/bench/ for:$bad"
	fi
	rm -rf "$d"
	mkdir -p "$d/bin"
	cp -r "$G/bench" "$d/bench"
	cp "$G/bench-registry.sh" "$d/"
	printf '%s\n' '# result 35: toy|higher|AMean|Case|Normalized toys|lab sis-toy sis-toy|toy|' \
		'toy_run() { :; }' >"$d/bench/toy.sh"
	bb=$(command -v busybox)
	for f in sh sort sed cat dirname; do
		ln -s "$bb" "$d/bin/$f"
	done
	got=$(PATH=$d/bin "$bb" sh "$d/bench-registry.sh" | cut -d'|' -f7 | uniq | tr '\n' ' ')
	want="rt-hackbench hackbench schbench toy tbench netperf stream unixbench "
	if [ "$got" = "$want" ] && [ "$(sh "$G/bench-registry.sh" "$d/bench")" = "$(PATH=$d/bin "$bb" sh "$d/bench-registry.sh")" ]; then
		ok "bench registry: a new benchmark file alone enters the registry at its rank, busybox as bash (${got% })"
	else
		notok "bench registry with guest/bench/toy.sh added: '$got', want '$want'"
	fi
	expect_error "bench registry: no such directory" "no directory $d/none" sh "$G/bench-registry.sh" "$d/none"
}
