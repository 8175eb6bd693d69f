# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash disable=SC1091 # busybox ash; OpenWrt libraries
# Shared by /etc/init.d/abc and /etc/hotplug.d/{net,iface}/35-abc:
# put the abc qdisc of /etc/config/abc on its devices.

. /lib/functions.sh
. /lib/functions/network.sh

# abc_dev SECTION: the device a section names (device, else the layer-3
# device of its interface); empty if neither is known yet.
abc_dev() {
	local s=$1 dev iface

	config_get dev "$s" device
	config_get iface "$s" interface
	if [ -z "$dev" ] && [ -n "$iface" ]; then
		network_get_device dev "$iface"
	fi
	echo "$dev"
}

# abc_section SECTION [DEV]: apply SECTION (only if it is for DEV)
abc_section() {
	local s=$1 only=$2 enabled dev bandwidth o v

	config_get_bool enabled "$s" enabled 1
	[ "$enabled" = 1 ] || return 0
	dev=$(abc_dev "$s")
	[ -n "$dev" ] || return 0
	[ -z "$only" ] || [ "$only" = "$dev" ] || return 0
	[ -d "/sys/class/net/$dev" ] || return 0

	config_get bandwidth "$s" bandwidth estimate
	set -- bandwidth "$bandwidth"
	for o in limit eta delta dt window tokens topk; do
		config_get v "$s" "$o"
		[ -n "$v" ] && set -- "$@" "$o" "$v"
	done
	# replace: the same command serves a first setup and a retune
	if tc qdisc replace dev "$dev" root abc "$@"; then
		logger -t abc "$dev: root abc $*"
	else
		logger -t abc -p daemon.err "$dev: 'tc qdisc replace dev $dev root abc $*' failed"
	fi
}

# abc_apply [DEV]: every enabled section, or only those for DEV
abc_apply() {
	config_load abc
	config_foreach abc_section qdisc "$1"
}

abc_remove_section() {
	local dev

	dev=$(abc_dev "$1")
	[ -n "$dev" ] || return 0
	# Only our own qdisc: another root qdisc there is not ours to drop.
	tc qdisc show dev "$dev" root 2>/dev/null | grep -q '^qdisc abc ' &&
		tc qdisc del dev "$dev" root
}

# abc_remove: take the abc root qdisc off every configured device
abc_remove() {
	config_load abc
	config_foreach abc_remove_section qdisc
}
