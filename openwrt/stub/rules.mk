# SPDX-License-Identifier: GPL-2.0
# Stand-in for OpenWrt's rules.mk, include/kernel.mk and include/package.mk
# (see ../stub-build): just enough to expand ccmods/Makefile's package
# definitions and run its recipes with a Debian cross toolchain.  Not
# OpenWrt: it proves the Makefile parses and its recipes work, nothing
# about OpenWrt's own build.
PKG_BUILD_DIR = $(STUB_BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
INSTALL_DIR := install -d -m0755
INSTALL_BIN := install -m0755
INSTALL_DATA := install -m0644
INSTALL_CONF := install -m0600
CP := cp -fpR
FPIC := -fPIC
PKG_JOBS := -j2
TARGET_CC := $(STUB_CROSS)gcc
TARGET_CFLAGS := -Os -pipe
TARGET_CPPFLAGS :=
TARGET_LDFLAGS := -Wl,-z,now -Wl,-z,relro
KERNEL_MAKE = $(MAKE) -C $(STUB_LINUX_DIR) ARCH=$(STUB_ARCH) CROSS_COMPILE=$(STUB_CROSS)
AutoProbe = probe:$(strip $(1))
AutoLoad = load:$(strip $(1)):$(strip $(2))

STUB_PKGS :=
STUB_FIELDS = SUBMENU SECTION CATEGORY TITLE DEPENDS FILES AUTOLOAD KCONFIG

# Each package definition is evaluated and its fields printed, as
# OpenWrt's scan would read them.
define KernelPackage
$(foreach v,$(STUB_FIELDS),$(eval $(v):=))
$(eval $(call KernelPackage/$(1)))
$(if $(strip $(TITLE)),,$(error kmod-$(1): no TITLE))
$(if $(strip $(FILES)),,$(error kmod-$(1): no FILES))
$(info kmod-$(1): $(foreach v,$(STUB_FIELDS),$(if $(strip $($(v))),$(v)=[$(strip $($(v)))])))
$(eval STUB_FILES += $(FILES))
endef

define BuildPackage
$(foreach v,$(STUB_FIELDS),$(eval $(v):=))
$(eval $(call Package/$(1)))
$(if $(strip $(TITLE)),,$(error $(1): no TITLE))
$(info $(1): $(foreach v,$(STUB_FIELDS),$(if $(strip $($(v))),$(v)=[$(strip $($(v)))])))
$(eval STUB_PKGS += $(1))
endef

.PHONY: stub-build
stub-build:
	$(Build/Prepare)
	$(Build/Compile)
	for f in $(STUB_FILES); do test -f $$f || { echo "missing $$f"; exit 1; }; done
	$(foreach p,$(STUB_PKGS),$(call Package/$(p)/install,$(STUB_BUILD_DIR)/root-$(p))$(newline))

define newline


endef
