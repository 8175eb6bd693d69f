# Stand-in for OpenWrt's include/kernel.mk: everything ccmods/Makefile needs is in rules.mk.
