# Stand-in for OpenWrt's include/package.mk: everything ccmods/Makefile needs is in rules.mk.
