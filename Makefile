# Immutable files, actually immutable: build, boot and compare kernels.
#
#   make             the before/after matrix: the before kernels and the
#                    series (config/kernels) on every column of
#                    config/filesystems
#   make check       what CI runs (README): the judges on recorded logs,
#                    the matrix and its guards, lockdep + KASAN on the
#                    core columns, checkpatch, every prefix compiled, the
#                    rework check, a short bench; ends in "N passed, N failed"
#   make check-full  all of check, and every prefix built whole, the full
#                    before kernels, the debug kernel on every column,
#                    repeat and crash runs
#   make selfcheck   the judges on recorded logs, and shellcheck (seconds)
#   make bench       the benchmarks (the bench kernel against the series)
#   make shell       the series' kernel with every column under /mnt
#   make guard-check immguard (guard/, a BPF LSM) on the guarded kernels,
#                    without and with the guard, and the series' kernel as
#                    the reference, on the guard columns
#   make kernel-NAME, run-NAME, guard-on-NAME, ...: one kernel of
#                    config/kernels, one run
#
# Everything goes to build/ (logs in build/logs/).  See README.md.

include versions.mk

FS        ?= $(shell sh scripts/fs.sh names matrix)
DEBUG_FS  ?= $(shell sh scripts/fs.sh names debug)
DEBUG_FULL_FS ?= $(shell sh scripts/fs.sh names debug-full)
CRASH_FS  ?= $(shell sh scripts/fs.sh names crash)
GUARD_FS  ?= $(shell sh scripts/fs.sh names guard)
# seconds of race search per column on the patched and debug kernels
STRESS    ?= 10
# seconds per column that a guest may take before it counts as hung
TIMEOUT   ?= 150
DEBUG_TIMEOUT ?= 900
# top-level jobs: kernel builds use every core on their own
JOBS      ?= 2
BOOTS     ?= 5
REPEAT    ?= 5
CUTS      ?= 20

BUILD     := $(CURDIR)/build
SRC       := $(BUILD)/src
TESTDIR   := tools/testing/selftests/filesystems/immutable
SH        := sh
STAGE     := $(SH) scripts/lib-stage.sh
export BUILD

.PHONY: all help deps tree guest matrix check check-full bench shell \
	guard guard-check guard-check-all expect export clean distclean \
	bisect bisect-full checkpatch rework bench-short check-debug \
	check-crash check-repeat check-all check-full-all selfcheck

all: matrix

help:
	@sed -n '/^$$/q; s/^# \{0,1\}//p' Makefile

deps:
	@$(SH) scripts/deps.sh '$(LINUX_DEB_VERSION)'

tree: deps
	@$(SH) scripts/tree.sh '$(LINUX_DEB_VERSION)'

$(BUILD)/config/fs.config: config/filesystems scripts/fs.sh
	@mkdir -p $(@D)
	@$(SH) scripts/fs.sh config "$$($(SH) scripts/fs.sh names)" | sed 's/.*/CONFIG_&=y/' >$@


# ---- kernels (config/kernels): build/kernels/NAME/{bzImage,config}, and
# for each kernel NAME the targets kernel-NAME (fetch or build it) and
# run-NAME (the suite on its columns: build/logs/run-NAME/)
comma := ,
kernels = $(subst $(comma), ,$(shell $(SH) scripts/kernels.sh names $(1)))
KERNELS   := $(call kernels)
ifeq ($(KERNELS),)
$(error config/kernels does not read (above))
endif
BEFORE    := $(call kernels,before)
AFTER     := $(call kernels,after)
DEBUG     := $(call kernels,debug)
FULL      := $(call kernels,full)
GUARDED   := $(call kernels,guard)
GUARD_REF := $(call kernels,guard-ref)
NOLSM     := $(call kernels,nolsm)
BENCH     := $(call kernels,bench)
SYSTEM_BEFORE := $(call kernels,system-before)
SYSTEM_AFTER  := $(call kernels,system-after)
# the BTF that immguard's CO-RE objects are built against: the first
# guarded Debian kernel's
BTF_KERNEL = $(firstword $(GUARDED))
list = $(subst $(eval) ,$(comma),$(strip $(1)))

KERNEL_ENV = FS_CONFIG=$(BUILD)/config/fs.config \
	FS_DEBUG_CONFIG=$(BUILD)/config/fs-debug.config \
	TEST_CONFIG=$(SRC)/$(TESTDIR)/config SRC=$(SRC) PRISTINE=$(BUILD)/pristine

# the symbols of the columns the debug kernel runs (DEBUG_FS, which
# check-full widens): rewritten when they change
$(BUILD)/config/fs-debug.config: FORCE
	@mkdir -p $(@D)
	@$(SH) scripts/fs.sh config '$(DEBUG_FS)' | sed 's/.*/CONFIG_&=y/' >$@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@
FORCE:

# No race search on Debian's or pristine kernels: the series is judged on
# its own, and on 6.12 the search livelocks ocfs2's read path (README).
# The debug kernel panics on any warning; boot.sh fails the run on any
# lockdep, KASAN or other report.
define kernel_rules
.PHONY: kernel-$(1)
kernel-$(1): tree $(BUILD)/config/fs.config $(BUILD)/config/fs-debug.config
	@$$(KERNEL_ENV) $(STAGE) "kernel $(1) ($(shell $(SH) scripts/kernels.sh get $(1) kind))" \
		$(SH) scripts/kernels.sh build $(1)
endef
define run_rules
.PHONY: run-$(1)
run-$(1): kernel-$(1) guest
	@GUEST_ENV=IMMUTABLE_STRESS_SECONDS=$(if $(filter series,$(shell $(SH) scripts/kernels.sh get $(1) kind)),$(STRESS),0) \
		$(if $(filter $(1),$(DEBUG)),APPEND=panic_on_warn=1 TIMEOUT=$(DEBUG_TIMEOUT),TIMEOUT=$(TIMEOUT)) \
		$(STAGE) "suite on $(1)" \
		$(SH) scripts/boot.sh $(1) run-$(1) suite '$(if $(filter $(1),$(DEBUG)),$(DEBUG_FS),$(FS))'
endef
DEB_KERNELS := $(foreach k,$(KERNELS),$(if $(filter deb,$(shell $(SH) scripts/kernels.sh get $(k) kind)),$(k)))
$(foreach k,$(KERNELS),$(eval $(call kernel_rules,$(k))))
$(foreach k,$(filter-out $(DEB_KERNELS),$(KERNELS)),$(eval $(call run_rules,$(k))))

# a kernel that config/kernels does not name
kernel-% run-% guard-off-% guard-on-% guard-ref-% guard-nolsm-% system-run-%:
	@echo "no kernel $* in config/kernels; the kernels are: $(KERNELS)" >&2; exit 2

guest: tree
	@$(STAGE) "build guest programs and initramfs" \
		$(SH) scripts/guest.sh $(SRC)/$(TESTDIR)

matrix: $(addprefix run-,$(BEFORE) $(AFTER))
	@$(SH) scripts/matrix.sh '$(FS)' $(BEFORE) $(AFTER)

# ---- immguard (guard/README.md): a BPF LSM on Debian's own kernels.  Each
# guarded kernel runs the guard columns without immguard (guard-off-NAME)
# and with it (guard-on-NAME); the reference (the series) without it
# (guard-ref-NAME); all with the same, guard-aware, selftest.  Not part of
# make check (time budget, README).
GUARD_STRESS ?= 0
# seconds of guard/race.c (mmap against chattr +i) per column and side
GUARD_RACE ?= 5
# Debian's default list, bpf included (6.12's has it already; the guard
# checks /sys/kernel/security/lsm either way)
GUARD_APPEND ?= lsm=landlock,lockdown,yama,loadpin,safesetid,integrity,apparmor,selinux,smack,tomoyo,bpf
GUARD_RUN = TIMEOUT=$(TIMEOUT) EXTRA_INITRD=$(BUILD)/guard/guard.cpio $(STAGE)
GUARD_ENV = IMMUTABLE_STRESS_SECONDS=$(GUARD_STRESS) \
	IMMUTABLE_RACE_SECONDS=$(GUARD_RACE)

guard: kernel-$(BTF_KERNEL) guest
	@$(STAGE) "build immguard and its guest layer" \
		$(SH) scripts/guard.sh $(SRC)/$(TESTDIR) $(BTF_KERNEL)

define guard_rules
.PHONY: guard-off-$(1) guard-on-$(1)
guard-off-$(1): kernel-$(1) guard
	@GUEST_ENV='$(GUARD_ENV)' $(GUARD_RUN) "guard columns on $(1)" \
		$(SH) scripts/boot.sh $(1) guard-off-$(1) suite '$(GUARD_FS)'
guard-on-$(1): kernel-$(1) guard
	@GUEST_ENV='$(GUARD_ENV) IMMUTABLE_REFUSES_MAPPED=1' APPEND='$(GUARD_APPEND)' \
		$(GUARD_RUN) "guard columns on $(1) with immguard" \
		$(SH) scripts/boot.sh $(1) guard-on-$(1) guard '$(GUARD_FS)'
endef
define guard_ref_rules
.PHONY: guard-ref-$(1)
guard-ref-$(1): kernel-$(1) guard
	@GUEST_ENV='$(GUARD_ENV)' $(GUARD_RUN) "guard columns on $(1), the reference" \
		$(SH) scripts/boot.sh $(1) guard-ref-$(1) suite '$(GUARD_FS)'
endef
# without bpf in lsm=, immguard must refuse to start
define guard_nolsm_rules
.PHONY: guard-nolsm-$(1)
guard-nolsm-$(1): kernel-$(1) guard
	@APPEND='lsm=lockdown,capability,yama,apparmor' TIMEOUT=60 \
		EXTRA_INITRD=$(BUILD)/guard/guard.cpio $(STAGE) \
		"immguard on $(1) without the BPF LSM" \
		$(SH) scripts/boot.sh $(1) guard-nolsm-$(1) guard-nolsm tmpfs
endef
$(foreach k,$(GUARDED),$(eval $(call guard_rules,$(k))))
$(foreach k,$(GUARD_REF),$(eval $(call guard_ref_rules,$(k))))
$(foreach k,$(NOLSM),$(eval $(call guard_nolsm_rules,$(k))))

# immguard as administrators install it: its Debian package (make
# guard-deb), installed with dpkg on a Debian system (scripts/system.sh)
# with each guarded kernel's own package, booted with systemd, then again
# without bpf in lsm= (guest/system/imm-guard-system).  Not part of make
# check (time, README).
GUARD_DEB_VERSION ?= 2.0-1
GUARD_DEB = $(BUILD)/guard/immguard_$(GUARD_DEB_VERSION)_amd64.deb
GUARD_NOLSM = lsm=lockdown,capability,yama,apparmor

.PHONY: guard-deb guard-system guard-system-all
guard-deb: guard
	@$(STAGE) "immguard's Debian package" $(SH) scripts/guard-deb.sh $(GUARD_DEB_VERSION)

define guard_system_rules
.PHONY: guard-system-$(1)
guard-system-$(1): kernel-$(1) guard-deb system-base
	@SCENARIO=guard-system $(STAGE) "Debian system with $(1) and immguard" \
		$(SH) scripts/system.sh image guard-$(1) "$$$$($(SH) scripts/kernels.sh package $(1))" $(GUARD_DEB)
	@TIMEOUT=$$(SYSTEM_TIMEOUT) $(STAGE) "immguard as installed, on $(1)" \
		$(SH) scripts/system.sh boot guard-$(1) guard-system-$(1)
	@TIMEOUT=$$(SYSTEM_TIMEOUT) APPEND='$(GUARD_NOLSM)' $(STAGE) "immguard as installed, on $(1) without bpf in lsm=" \
		$(SH) scripts/system.sh boot guard-$(1) guard-system-nolsm-$(1)
endef
$(foreach k,$(GUARDED),$(eval $(call guard_system_rules,$(k))))

guard-system:
	@$(MAKE) --no-print-directory -j$(JOBS) guard-system-all

guard-system-all: $(addprefix guard-system-,$(GUARDED))
	@$(SH) scripts/system-check.sh guard

GUARD_WORK = $(addprefix guard-on-,$(GUARDED)) $(addprefix guard-off-,$(GUARDED)) \
	$(addprefix guard-ref-,$(GUARD_REF)) $(addprefix guard-nolsm-,$(NOLSM))

guard-check:
	@$(MAKE) --no-print-directory -j$(JOBS) guard-check-all

guard-check-all: $(GUARD_WORK)
	@$(SH) scripts/guard-check.sh '$(GUARD_FS)'

# What the guard costs on the calls its hooks see every time (issue 34):
# the guarded 6.12 kernels (roles guard and before) under -icount, without
# and with immguard loaded, BOOTS boots each (3 unless BOOTS is given);
# pwrite(), first-store faults and mmap() guard/stock, each within 1.02
# (build/guard-bench.txt).  Not part of make check (time).
GUARD_BENCH_KERNELS ?= $(filter $(BEFORE),$(GUARDED))
GUARD_BENCH_BOOTS = $(if $(filter file,$(origin BOOTS)),3,$(BOOTS))

.PHONY: guard-bench
guard-bench: $(addprefix kernel-,$(GUARD_BENCH_KERNELS)) guard
	@APPEND='$(GUARD_APPEND)' EXTRA_INITRD=$(BUILD)/guard/guard.cpio \
		$(STAGE) "immguard's overhead on $(GUARD_BENCH_KERNELS) ($(GUARD_BENCH_BOOTS) boots per side)" \
		$(SH) scripts/guard-bench.sh $(GUARD_BENCH_BOOTS) $(GUARD_BENCH_KERNELS)

# ---- Debian systems (make check-system): each system kernel's package
# installed by dpkg in a Debian 12 root filesystem (mmdebstrap), booted
# with systemd; the scenarios of guest/system on files that journald,
# SQLite and a logging daemon hold.  A trimmed deb keeps the modules the
# system-before kernel's system loads.  Not part of make check (time).
SYSTEM_TIMEOUT ?= 900
LSMOD = $(BUILD)/system/lsmod

.PHONY: deb check-system check-system-all system-base
deb: $(addprefix kernel-,$(DEB_KERNELS))

system-base: deps
	@$(STAGE) "Debian 12 root filesystem (mmdebstrap)" $(SH) scripts/system.sh base

$(LSMOD):
	@[ -f $(BUILD)/logs/system-$(firstword $(SYSTEM_BEFORE))/results.log ] || \
		$(MAKE) --no-print-directory system-run-$(firstword $(SYSTEM_BEFORE))
	@mkdir -p $(@D)
	@sed -n 's/^IMM-LSMOD //p' $(BUILD)/logs/system-$(firstword $(SYSTEM_BEFORE))/results.log \
		| awk '{ print $$1, 0, 0, "-", "Live", "0x0" }' >$@.tmp
	@test -s $@.tmp || { echo "no module list in build/logs/system-$(firstword $(SYSTEM_BEFORE))" >&2; exit 1; }
	@mv $@.tmp $@

define system_rules
.PHONY: system-$(1) system-run-$(1)
system-$(1): kernel-$(1) guest system-base
	@$(STAGE) "Debian system with $(1)" \
		$(SH) scripts/system.sh image $(1) "$$$$($(SH) scripts/kernels.sh package $(1))"
system-run-$(1): system-$(1)
	@TIMEOUT=$(SYSTEM_TIMEOUT) $(STAGE) "scenarios on the Debian system with $(1)" \
		$(SH) scripts/system.sh boot $(1) system-$(1)
endef
$(foreach k,$(SYSTEM_BEFORE) $(SYSTEM_AFTER),$(eval $(call system_rules,$(k))))
$(foreach k,$(DEB_KERNELS),$(eval kernel-$(k): $(LSMOD)))
$(foreach k,$(DEB_KERNELS),$(eval kernel-$(k): KERNEL_ENV += LSMOD=$(LSMOD)))

check-system:
	@$(MAKE) --no-print-directory -j$(JOBS) check-system-all

# the before systems first: a trimmed deb keeps the modules they load
check-system-all:
	@$(MAKE) --no-print-directory $(addprefix system-run-,$(SYSTEM_BEFORE))
	@$(MAKE) --no-print-directory $(addprefix system-run-,$(SYSTEM_AFTER))
	@$(SH) scripts/system-check.sh

# ---- the other evidence; each writes its results under build/
AFTER_FRAGMENTS = $(shell $(KERNEL_ENV) $(SH) scripts/kernels.sh fragments $(AFTER))

bisect: kernel-$(AFTER)
	@$(STAGE) "compile what each patch touches, after each patch" \
		$(SH) scripts/bisect.sh objects $(AFTER_FRAGMENTS)

bisect-full: tree $(BUILD)/config/fs.config
	@$(STAGE) "build the kernel after each patch" \
		$(SH) scripts/bisect.sh full $(AFTER_FRAGMENTS)

checkpatch: tree
	@$(STAGE) "checkpatch.pl --strict" $(SH) scripts/checkpatch.sh

rework: tree
	@$(STAGE) "rework check" $(SH) scripts/check-rework.sh

bench-short: kernel-$(AFTER) guest
	@$(STAGE) "benchmarks run (short, $(AFTER))" \
		$(SH) scripts/bench.sh 1 short $(AFTER)

bench: $(addprefix kernel-,$(BENCH) $(AFTER)) guest
	@$(STAGE) "benchmarks ($(BOOTS) boots per kernel)" \
		$(SH) scripts/bench.sh $(BOOTS) full $(BENCH) $(AFTER)

check-crash: kernel-$(AFTER) guest
	@$(STAGE) "crash consistency ($(CUTS) cuts per column)" \
		$(SH) scripts/crash.sh $(CUTS) '$(CRASH_FS)' $(AFTER)

check-repeat: $(addprefix kernel-,$(BEFORE) $(AFTER)) guest
	@$(STAGE) "the suite $(REPEAT) times on each kernel" \
		$(SH) scripts/repeat.sh $(REPEAT) '$(FS)' $(STRESS) '$(call list,$(BEFORE))' $(AFTER)

# ---- the judges, on recorded logs (tests/harness/) and by shellcheck:
# seconds, no QEMU; the first thing make check does
selfcheck: deps
	@$(STAGE) "the judges on recorded logs, and shellcheck" $(SH) scripts/selfcheck.sh

# config/expectations with a "?" line for every test of the last runs
# that it lacks (after a rename or split of the selftest)
expect:
	@$(SH) scripts/expect.sh missing '$(FS)' '$(GUARD_FS)'

# ---- judging.  check and check-full run their work JOBS at a time; the
# order of the prerequisites is the order work starts in.
CHECK_PARTS = patched,expectations,checkpatch,bisect,rework,bench,debug
CHECK_WORK = $(addprefix run-,$(BEFORE)) $(addprefix kernel-,$(AFTER) $(DEBUG)) \
	run-$(AFTER) bisect checkpatch rework bench-short $(addprefix run-,$(DEBUG))

check: selfcheck
	@$(MAKE) --no-print-directory -j$(JOBS) check-all

check-all: $(CHECK_WORK)
	@$(SH) scripts/check.sh $(CHECK_PARTS) '$(FS)' '$(call list,$(BEFORE))' '$(DEBUG_FS)'

check-full: selfcheck
	@$(MAKE) --no-print-directory -j$(JOBS) check-full-all

check-full-all: $(addprefix run-,$(BEFORE) $(FULL)) $(addprefix kernel-,$(AFTER)) \
		run-$(AFTER) bisect-full checkpatch rework bench-short
	@$(MAKE) --no-print-directory $(addprefix run-,$(DEBUG)) DEBUG_FS='$(DEBUG_FULL_FS)'
	@$(SH) scripts/check.sh $(CHECK_PARTS) '$(FS)' '$(call list,$(BEFORE) $(FULL))' '$(DEBUG_FULL_FS)'
	@$(MAKE) --no-print-directory check-repeat check-crash

# the debug kernel on every column that runs clean under lockdep
check-debug:
	@$(MAKE) --no-print-directory $(addprefix run-,$(DEBUG)) DEBUG_FS='$(DEBUG_FULL_FS)'
	@$(SH) scripts/check.sh debug '$(FS)' '$(call list,$(BEFORE))' '$(DEBUG_FULL_FS)'

shell: kernel-$(AFTER) guest
	@$(SH) scripts/boot.sh $(AFTER) shell shell '$(FS)'

export:
	@$(SH) scripts/export.sh

clean:
	rm -rf $(BUILD)/logs $(BUILD)/images $(BUILD)/initramfs* $(BUILD)/kernels

distclean:
	@echo "removing build/ (the kernel trees included; make export first)"
	rm -rf $(BUILD)
