# shellcheck shell=bash disable=SC2154 # $top, $tmp, $logs...: tests/run.sh
# The full section (make check-full), sourced by tests/run.sh; it uses
# boot_check (tests/sections/boots.sh).

# the real 2x64C/128T shape (make check-full, not make check): topology and
# features only.  256 vCPUs on two host cores: about half of its boots
# here stop before user space with every vCPU queued on one spinlock
# (jiffies_lock), the base kernel's as well (README), which a CI run
# cannot afford.  Then the Intel model in the scaled shape, kept out of
# make check for its time.
sec_full() {
	for nps in ${TEST_FULL_NPS-1 2 4}; do
		boot_check full "$nps" ""
	done
	# the Intel model, kept for comparison: topology and features
	for nps in ${TEST_INTEL_NPS-1}; do
		MODEL=intel boot_check scaled "$nps" ""
	done
}
