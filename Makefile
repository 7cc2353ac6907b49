# SIS patch series lab: fetch, patch, build, boot, test, benchmark, mail.
# Run "make help" for the targets.

# NPS, SHAPE and MODEL have no default here: each script has its own (boot and
# bench NPS1 scaled, reliability NPS4 small)
CONFIG ?= qemu
CMD ?=
# CMD reaches boot.sh through the environment, as one guest command line
# (a ";" in it must not end the recipe's command on the host)
export NPS SHAPE MODEL KERNEL_SRC LAB_OUT CMD

S := scripts

.PHONY: help deps base patch build boot qemu-full check check-full test bench score calibrate results mail reliability clean

help:
	@echo "make deps        install the Debian packages the lab needs, build the cost plugin"
	@echo "make base        fetch and unpack linux-source-7.3 (or use KERNEL_SRC=)"
	@echo "make patch       copy the base to build/tree and apply patches/series"
	@echo "make build       build bzImage (CONFIG=qemu|debug|zen3|nonuma|up)"
	@echo "make boot        boot the emulated platform (NPS=1|2|4 SHAPE=scaled|full|small MODEL=$$(ls configs/platform | paste -sd'|') CMD=...)"
	@echo "make qemu-full   fetch trixie's QEMU for the 256-CPU shape"
	@echo "make check       build and run every test (same as .ci/run)"
	@echo "make check-full  what make check leaves out: every prefix built, the base kernel built and booted, the other boots, the 256-CPU shape, the Intel model"
	@echo "make bench       run the benchmark matrix (NPS= SIZE= BENCHES= VARIANTS= ROUNDS=; RESUME=DIR goes on with a run)"
	@echo "make score       SIS scoreboard: decisions per variant under a load sweep (NPS=\"1 2 4\" SIZE= ROUNDS= BOOTS= MMC= RESUME=)"
	@echo "make calibrate   the hardware table's cells the lab reaches, replayed as make score runs (RESUME=DIR PARTS=)"
	@echo "make results     Documentation/results.md made again from the runs committed under data/"
	@echo "make mail        one posting per topic of patches/topics, send-email dry run (TOPIC= MAIL_ARGS=--send)"
	@echo "make reliability debug kernel under hotplug, partitions, isolcpus, nosmt (slow)"
	@echo "make clean       remove build/ except downloads and the ccache"

# the packages, then the cost plugin for the host's QEMU (its header comes
# from Debian's source package of that QEMU)
deps:
	@$(S)/install-deps.sh
	@$(S)/build-cost-plugin.sh >/dev/null || echo "make deps: no cost plugin: make score records its cost columns as NA"

base: deps
	@$(S)/fetch-base.sh >/dev/null

patch: deps
	@$(S)/apply-patches.sh >/dev/null

build: patch
	@$(S)/build.sh $(CONFIG) >/dev/null

# the kernel of CONFIG, as build.sh prints its path
boot: patch
	@k=$$($(S)/build.sh $(CONFIG)) && $(S)/boot.sh -v --kernel "$$k" -- $${CMD:+"$$CMD"}

qemu-full: deps
	@$(S)/fetch-qemu.sh

check test: deps
	@tests/run.sh

check-full: deps
	@tests/run.sh build bisect boots-extra full

# RESUME=DIR goes on with the run whose results are in DIR
bench: deps
	@$(S)/bench.sh $(if $(RESUME),--resume '$(RESUME)')

score: deps
	@$(S)/score.sh $(if $(RESUME),--resume '$(RESUME)')

# RESUME=DIR goes on with the replay in DIR; PARTS="NAME..." runs only those
calibrate: deps
	@$(S)/calibrate.sh $(if $(RESUME),--resume '$(RESUME)') $(if $(PARTS),--parts '$(PARTS)')

results:
	@python3 $(S)/results.py

mail: deps
	@$(S)/mail.sh $(if $(TOPIC),--topic '$(TOPIC)') $(MAIL_ARGS)

reliability: deps
	@tests/reliability.sh

clean:
	rm -rf build/tree build/obj-* build/logs build/initramfs.cpio.gz
