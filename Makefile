# SPDX-License-Identifier: GPL-2.0
#
# Build the congestion-control modules and the sch_abc qdisc out of tree.
#
#   make                      build for the running kernel (or KDIR=...), and the
#                             tc plugin build/tc/q_abc.so
#   make tc-plugin            only the tc plugin (gcc and libc, no kernel tree)
#   make modules-all          build for every kernel with headers in /lib/modules
#                             (and the tc plugin, for the VM tests)
#   make list-modules         the module folders, one a line, in load order
#   make install              modules_install + depmod (KDIR's kernel), and
#                             q_abc.so into TC_LIB_DIR (install-tc-plugin)
#   make load / unload        insmod / rmmod the modules built here
#   make check                unit tests, cost budgets, then VM tests on 6.1 and 6.12
#   make unit / unit32 /      unit tests: natively, built with -m32, and
#        unitmips             for big-endian MIPS32 under qemu-mips
#   make cost                 instructions per ACK of each core (callgrind)
#                             against tests/cost/budgets; make cost-update
#                             re-records them
#   make cross                32-bit i386, ARMv7 and big-endian MIPS builds
#                             (scripts/cross; CROSS_JOBS=N, default 2)
#   make dkms-check           DKMS add/build/install/remove on both
#                             Debian kernels (root; scripts/dkms-check)
#   make lint                 checkpatch --strict, W=1 and sparse
#   make demo                 the side-by-side demo (see README)
#   make bench                the benchmark suite (QUICK=1: the CI subset;
#                             BENCH_ARGS="-s steady -c etc ...", see scripts/bench -h)
#   make clean

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

# Modules in load order: the qdisc before its sender, wrappers last.
CC_MODULE_DIRS := tcp_etc tcp_abc sch_abc tcp_pcc pad_shim
MODULES := $(foreach d,$(CC_MODULE_DIRS),$(if $(wildcard $(d)/Kbuild),$(d)))
KOS := $(foreach m,$(MODULES),$(m)/$(m).ko)

# Every Debian kernel that has a build tree installed.
ALL_KVERS := $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build)))
BUILD_DIR := build

# CI and `make check` treat every compiler warning as an error.
KBUILD_OPTS := W=1 KCFLAGS=-Werror

# Kernels `make check` boots: Debian's 6.1 and newest 6.12 flavours.
TEST_KVERS ?= $(ALL_KVERS)

# The iproute2 tc plugin of sch_abc (userspace, built once for all kernels).
TC_PLUGIN_DIR := $(wildcard sch_abc/tc)
TC_OUT := $(CURDIR)/$(BUILD_DIR)/tc

.PHONY: all modules modules-all modules-in list-modules install load unload clean check unit \
	vmtest lint demo bench help tc-plugin install-tc-plugin unit32 unitmips cross \
	dkms-check cost cost-update

all: tc-plugin modules

tc-plugin:
ifneq ($(TC_PLUGIN_DIR),)
	$(MAKE) -C $(TC_PLUGIN_DIR) OUT=$(TC_OUT)
endif

# TC_LIB_DIR=... overrides where tc finds it (see sch_abc/tc/Makefile).
install-tc-plugin: tc-plugin
ifneq ($(TC_PLUGIN_DIR),)
	$(MAKE) -C $(TC_PLUGIN_DIR) OUT=$(TC_OUT) install
endif

modules:
ifeq ($(MODULES),)
	@echo "No module folders in the tree yet; nothing to build."
else
	@test -d "$(KDIR)" || { echo "No kernel build tree at $(KDIR)." \
		"Install headers (scripts/deps) or pass KDIR=/lib/modules/<ver>/build."; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_OPTS) modules
endif

# Kbuild builds inside the source folder, so each kernel gets its own
# copy of the sources under build/<kver>/; VM tests load from there, and
# take q_abc.so from build/tc/.
modules-all: tc-plugin
	@test -n "$(ALL_KVERS)" || { echo "No kernel headers under /lib/modules (run scripts/deps)."; exit 1; }
	@set -e; for k in $(ALL_KVERS); do \
		$(MAKE) --no-print-directory modules-in KVER=$$k KDIR=/lib/modules/$$k/build; \
	done

# One kernel's copy, build/$(KVER)/, built against KDIR (modules-all runs
# it for every kernel, scripts/sid-kernel for a prepared 7.x source).
modules-in:
	@mkdir -p $(BUILD_DIR)/$(KVER)
	@cp -a Kbuild include $(BUILD_DIR)/$(KVER)/
	@for d in $(MODULES); do rm -rf $(BUILD_DIR)/$(KVER)/$$d; cp -a $$d $(BUILD_DIR)/$(KVER)/; done
ifeq ($(MODULES),)
	@echo "  BUILD   $(KVER): no module folders yet"
else
	@echo "  BUILD   $(KVER)"
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD_DIR)/$(KVER) $(KBUILD_OPTS) modules
endif

# The module list, one a line in load order, for the scripts and tests.
list-modules:
	@printf '%s\n' $(MODULES)

install: modules install-tc-plugin
ifneq ($(MODULES),)
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	depmod -a $(KVER)
endif

load:
	@set -e; for ko in $(KOS); do \
		test -f $$ko || { echo "$$ko not built; run make first"; exit 1; }; \
		m=$$(basename $$ko .ko); \
		if grep -q "^$$m " /proc/modules; then echo "  $$m already loaded"; \
		else echo "  INSMOD  $$ko"; insmod $$ko; fi; \
	done

unload:
	@for m in $(call reverse,$(MODULES)); do \
		if grep -q "^$$m " /proc/modules; then echo "  RMMOD   $$m"; rmmod $$m || exit 1; fi; \
	done

reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))

clean:
ifneq ($(MODULES),)
	-@test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
endif
	rm -rf $(BUILD_DIR)
	@# DKMS's copy (dkms.conf CLEAN) has no tests/
	$(if $(wildcard tests/unit/Makefile),$(MAKE) -C tests/unit clean)
	$(if $(wildcard tests/cost/Makefile),$(MAKE) -C tests/cost clean)

unit:
	$(MAKE) -C tests/unit check

unit32:
	$(MAKE) -C tests/unit check32

unitmips:
	$(MAKE) -C tests/unit checkmips

cost:
	$(MAKE) -C tests/cost check

cost-update:
	$(MAKE) -C tests/cost update

CROSS_JOBS ?= 2
cross:
	scripts/cross -j $(CROSS_JOBS)

dkms-check:
	scripts/dkms-check

# VM tests on every kernel in TEST_KVERS; scripts/run-vm-tests prints the
# closing summary line.
vmtest: modules-all
	scripts/run-vm-tests $(TEST_KVERS)

check:
	scripts/check

lint:
	scripts/lint

demo:
	scripts/demo

bench:
	scripts/bench run $(if $(filter 1,$(QUICK)),--quick) $(BENCH_ARGS)

help:
	@sed -n '3,28p' Makefile
