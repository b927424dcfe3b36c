# Immutable files, actually immutable: build, boot and compare kernels.
#
#   make             the before/after matrix: Debian's 6.12 and the patched
#                    kernel on every column of config/filesystems
#   make check       what CI runs (README): the matrix and its guards,
#                    lockdep + KASAN on the core columns, checkpatch, every
#                    prefix compiled, the rework check, a short bench;
#                    ends in "N passed, N failed"
#   make check-full  all of check, and every prefix built whole, 6.12 built
#                    from source, the debug kernel on every column, repeat
#                    and crash runs
#   make bench       the benchmarks (pristine from source against patched)
#   make shell       the patched kernel with every column under /mnt
#   make guard-check immguard (guard/, a BPF LSM) on Debian's 6.1 and 6.12
#                    against both stock kernels and the patched one, on the
#                    guard columns; ends in "N passed, N failed"
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
# every column's symbols, so that one kernel runs them all
FRAGMENTS = config/base.config $(BUILD)/config/fs.config $(SRC)/$(TESTDIR)/config
DEBUG_FRAGMENTS = config/base.config $(BUILD)/config/fs-debug.config \
	$(SRC)/$(TESTDIR)/config config/debug.config

export BUILD

.PHONY: all help deps tree guest matrix check check-full bench shell \
	guard guard-check guard-check-all guard-expect kernel-stock-6.1 guard-runs \
	guard-stock-6.1 guard-on-6.1 guard-stock-6.12 guard-on-6.12 guard-patched guard-nolsm \
	export clean distclean kernel-stock-6.12 kernel-pristine \
	kernel-patched kernel-debug run-stock-6.12 run-pristine run-patched \
	run-debug bisect bisect-full checkpatch rework \
	bench-short check-debug check-crash check-repeat check-all \
	check-full-all

all: matrix

help:
	@sed -n '1,18p' Makefile

deps:
	@$(SH) scripts/deps.sh '$(LINUX_DEB_VERSION)'

tree: deps
	@$(SH) scripts/tree.sh '$(LINUX_DEB_VERSION)'

$(BUILD)/config/fs.config: config/filesystems scripts/fs.sh
	@mkdir -p $(@D)
	@$(SH) scripts/fs.sh config "$$($(SH) scripts/fs.sh names)" | sed 's/.*/CONFIG_&=y/' >$@


# ---- kernels: build/kernels/NAME/{bzImage,config}

# Debian's 6.12, with the modules of every column and of the selftest
kernel-stock-6.12: tree $(BUILD)/config/fs.config
	@{ sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' $(BUILD)/config/fs.config \
		$(SRC)/$(TESTDIR)/config; } >$(BUILD)/config/modules.syms
	@$(STAGE) "fetch Debian's 6.12 kernel" $(SH) scripts/stock.sh stock-6.12 \
		'$(STOCK_6_12_PKG)' '$(STOCK_6_12_VERSION)' $(BUILD)/config/modules.syms

# Debian 12's 6.1, the same way (make guard-check); its virtio_pci is a
# module
kernel-stock-6.1: tree $(BUILD)/config/fs.config
	@{ sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' $(BUILD)/config/fs.config \
		$(SRC)/$(TESTDIR)/config; echo VIRTIO_PCI; } >$(BUILD)/config/modules-6.1.syms
	@$(STAGE) "fetch Debian's 6.1 kernel" $(SH) scripts/stock.sh stock-6.1 \
		'$(STOCK_6_1_PKG)' '$(STOCK_6_1_VERSION)' $(BUILD)/config/modules-6.1.syms

kernel-patched: tree $(BUILD)/config/fs.config
	@$(STAGE) "build patched kernel" \
		$(SH) scripts/kernel.sh patched $(SRC) .build $(FRAGMENTS)

# 6.12 from the same source and config as the patched kernel
kernel-pristine: tree $(BUILD)/config/fs.config
	@$(STAGE) "build pristine kernel" \
		$(SH) scripts/kernel.sh pristine $(BUILD)/pristine .build $(FRAGMENTS)

# only the symbols of the columns it runs (DEBUG_FS)
kernel-debug: tree
	@mkdir -p $(BUILD)/config
	@$(SH) scripts/fs.sh config '$(DEBUG_FS)' | sed 's/.*/CONFIG_&=y/' \
		>$(BUILD)/config/fs-debug.config
	@$(STAGE) "build debug kernel (lockdep, KASAN)" \
		$(SH) scripts/kernel.sh debug $(SRC) .build-debug $(DEBUG_FRAGMENTS)

guest: tree
	@$(STAGE) "build guest programs and initramfs" \
		$(SH) scripts/guest.sh $(SRC)/$(TESTDIR)

# ---- the suite on each kernel: build/logs/run-KERNEL/results.log
# No race search on 6.12: it is judged on the patched kernel alone, and on
# 6.12 it livelocks ocfs2's read path (README).
RUN = TIMEOUT=$(TIMEOUT) $(STAGE)

run-stock-6.12: kernel-stock-6.12 guest
	@GUEST_ENV=IMMUTABLE_STRESS_SECONDS=0 $(RUN) "suite on Debian's 6.12" \
		$(SH) scripts/boot.sh stock-6.12 run-stock-6.12 suite '$(FS)'

run-pristine: kernel-pristine guest
	@GUEST_ENV=IMMUTABLE_STRESS_SECONDS=0 $(RUN) "suite on pristine 6.12 (source)" \
		$(SH) scripts/boot.sh pristine run-pristine suite '$(FS)'

run-patched: kernel-patched guest
	@GUEST_ENV=IMMUTABLE_STRESS_SECONDS=$(STRESS) $(RUN) "suite on patched kernel" \
		$(SH) scripts/boot.sh patched run-patched suite '$(FS)'

# The debug kernel panics on any warning; boot.sh fails the run on any
# lockdep, KASAN or other report.
run-debug: kernel-debug guest
	@GUEST_ENV=IMMUTABLE_STRESS_SECONDS=$(STRESS) APPEND=panic_on_warn=1 \
		TIMEOUT=$(DEBUG_TIMEOUT) $(STAGE) "suite on debug kernel" \
		$(SH) scripts/boot.sh debug run-debug suite '$(DEBUG_FS)'

matrix: run-stock-6.12 run-patched
	@$(SH) scripts/matrix.sh '$(FS)' stock-6.12 patched

# ---- immguard (guard/README.md): a BPF LSM on Debian's own kernels.  Three
# sides per kernel: stock, stock with the guard, and for 6.12 the patched
# kernel, all on the guard columns with the same (guard-aware) selftest.
# Not part of make check (time budget, README).
GUARD_STRESS ?= 0
# seconds of guard/race.c (mmap against chattr +i) per column and side
GUARD_RACE ?= 5
# Debian's default list, bpf included (6.12's has it already; the guard
# checks /sys/kernel/security/lsm either way)
GUARD_APPEND ?= lsm=landlock,lockdown,yama,loadpin,safesetid,integrity,apparmor,selinux,smack,tomoyo,bpf
GUARD_RUN = TIMEOUT=$(TIMEOUT) EXTRA_INITRD=$(BUILD)/guard/guard.cpio $(STAGE)
GUARD_ENV = IMMUTABLE_STRESS_SECONDS=$(GUARD_STRESS) \
	IMMUTABLE_RACE_SECONDS=$(GUARD_RACE)

guard: kernel-stock-6.12 guest
	@$(STAGE) "build immguard and its guest layer" \
		$(SH) scripts/guard.sh $(SRC)/$(TESTDIR) stock-6.12

# the patched kernel, built by make kernel-patched when missing or older
# than the series or the config it is made of (after tree, which applies
# the series)
SERIES_PATCHES = $(filter-out patches/0000-%,$(wildcard patches/[0-9]*.patch))
$(BUILD)/kernels/patched/bzImage: $(SERIES_PATCHES) config/base.config \
		config/filesystems | tree
	@$(MAKE) --no-print-directory kernel-patched

guard-stock-6.1: kernel-stock-6.1 guard
	@GUEST_ENV='$(GUARD_ENV)' $(GUARD_RUN) "guard columns on Debian's 6.1" \
		$(SH) scripts/boot.sh stock-6.1 guard-stock-6.1 suite '$(GUARD_FS)'

guard-on-6.1: kernel-stock-6.1 guard
	@GUEST_ENV='$(GUARD_ENV) IMMUTABLE_REFUSES_MAPPED=1' APPEND='$(GUARD_APPEND)' \
		$(GUARD_RUN) "guard columns on Debian's 6.1 with immguard" \
		$(SH) scripts/boot.sh stock-6.1 guard-on-6.1 guard '$(GUARD_FS)'

guard-stock-6.12: kernel-stock-6.12 guard
	@GUEST_ENV='$(GUARD_ENV)' $(GUARD_RUN) "guard columns on Debian's 6.12" \
		$(SH) scripts/boot.sh stock-6.12 guard-stock-6.12 suite '$(GUARD_FS)'

guard-on-6.12: kernel-stock-6.12 guard
	@GUEST_ENV='$(GUARD_ENV) IMMUTABLE_REFUSES_MAPPED=1' APPEND='$(GUARD_APPEND)' \
		$(GUARD_RUN) "guard columns on Debian's 6.12 with immguard" \
		$(SH) scripts/boot.sh stock-6.12 guard-on-6.12 guard '$(GUARD_FS)'

guard-patched: $(BUILD)/kernels/patched/bzImage guard
	@GUEST_ENV='$(GUARD_ENV)' $(GUARD_RUN) "guard columns on the patched kernel" \
		$(SH) scripts/boot.sh patched guard-patched suite '$(GUARD_FS)'

# without bpf in lsm=, immguard must refuse to start
guard-nolsm: kernel-stock-6.1 guard
	@APPEND='lsm=lockdown,capability,yama,apparmor' TIMEOUT=60 \
		EXTRA_INITRD=$(BUILD)/guard/guard.cpio $(STAGE) \
		"immguard on Debian's 6.1 without the BPF LSM" \
		$(SH) scripts/boot.sh stock-6.1 guard-nolsm guard-nolsm tmpfs

GUARD_WORK = guard-on-6.1 guard-on-6.12 guard-stock-6.1 guard-stock-6.12 \
	guard-patched guard-nolsm

guard-check:
	@$(MAKE) --no-print-directory -j$(JOBS) guard-check-all

guard-check-all: $(GUARD_WORK)
	@$(SH) scripts/guard-check.sh '$(GUARD_FS)'

# config/expect-guard with a "?" line for every test of the last runs that
# it lacks (after a rename or split of the selftest)
guard-expect:
	@$(SH) scripts/guard-check.sh expect '$(GUARD_FS)'

# ---- the other evidence; each writes its results under build/
bisect: kernel-patched
	@$(STAGE) "compile what each patch touches, after each patch" \
		$(SH) scripts/bisect.sh objects $(FRAGMENTS)

bisect-full: tree $(BUILD)/config/fs.config
	@$(STAGE) "build the kernel after each patch" \
		$(SH) scripts/bisect.sh full $(FRAGMENTS)

checkpatch: tree
	@$(STAGE) "checkpatch.pl --strict" $(SH) scripts/checkpatch.sh

rework: tree
	@$(STAGE) "rework check" $(SH) scripts/check-rework.sh

bench-short: kernel-patched guest
	@$(STAGE) "benchmarks run (short, patched)" \
		$(SH) scripts/bench.sh 1 short patched

bench: kernel-pristine kernel-patched guest
	@$(STAGE) "benchmarks ($(BOOTS) boots per kernel)" \
		$(SH) scripts/bench.sh $(BOOTS) full pristine patched

check-crash: kernel-patched guest
	@$(STAGE) "crash consistency ($(CUTS) cuts per column)" \
		$(SH) scripts/crash.sh $(CUTS) '$(CRASH_FS)'

check-repeat: kernel-stock-6.12 kernel-patched guest
	@$(STAGE) "the suite $(REPEAT) times on each kernel" \
		$(SH) scripts/repeat.sh $(REPEAT) '$(FS)' $(STRESS) stock-6.12

# ---- judging.  check and check-full run their work JOBS at a time; the
# order of the prerequisites is the order work starts in.
CHECK_WORK = run-stock-6.12 kernel-patched kernel-debug run-patched bisect \
	checkpatch rework bench-short run-debug

check:
	@$(MAKE) --no-print-directory -j$(JOBS) check-all

check-all: $(CHECK_WORK)
	@$(SH) scripts/check.sh abcdefg '$(FS)' stock-6.12 '$(DEBUG_FS)'

check-full:
	@$(MAKE) --no-print-directory -j$(JOBS) check-full-all

check-full-all: run-stock-6.12 kernel-patched kernel-pristine run-patched \
		run-pristine bisect-full checkpatch rework bench-short
	@$(MAKE) --no-print-directory run-debug DEBUG_FS='$(DEBUG_FULL_FS)'
	@$(SH) scripts/check.sh abcdefg '$(FS)' stock-6.12,pristine '$(DEBUG_FULL_FS)'
	@$(MAKE) --no-print-directory check-repeat check-crash

# the debug kernel on every column that runs clean under lockdep
check-debug:
	@$(MAKE) --no-print-directory run-debug DEBUG_FS='$(DEBUG_FULL_FS)'
	@$(SH) scripts/check.sh f '$(FS)' stock-6.12 '$(DEBUG_FULL_FS)'

shell: kernel-patched guest
	@$(SH) scripts/boot.sh patched shell shell '$(FS)'

export:
	@$(SH) scripts/export.sh

clean:
	rm -rf $(BUILD)/logs $(BUILD)/images $(BUILD)/initramfs* $(BUILD)/kernels

distclean:
	@echo "removing build/ (the kernel trees included; make export first)"
	rm -rf $(BUILD)
