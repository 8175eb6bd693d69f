#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every module in the tree loads, registers, carries a short flow (or
# holds a qdisc), and unloads with no reference left behind.
source "$(dirname "$0")/lib.sh"
require_root

# How each module shows that it registered: "cca NAME" or "qdisc KIND".
registration() {
	case "$1" in
	tcp_etc) echo "cca etc" ;;
	tcp_abc) echo "cca abc" ;;
	tcp_pcc) echo "cca pcc" ;;
	pad_shim) echo "cca pad_bbr" ;;
	sch_abc) echo "qdisc abc" ;;
	esac
}

mods=$(cc_modules)
if [ -z "$mods" ]; then
	tap_plan 1
	tap_skip "load/register/unload" "no module folders in the tree yet"
	tap_done
fi

tap_plan $(( $(echo "$mods" | wc -l) * 4 ))

ns=cc-modtest
ip netns del $ns 2>/dev/null
ip netns add $ns
ip -n $ns link set lo up
trap 'ip netns del $ns 2>/dev/null' EXIT

for m in $mods; do
	ko=$MODDIR/$m/$m.ko
	read -r kind name <<<"$(registration "$m")"

	# pad_shim wraps BBR: the inner CCA must be there first.
	[ "$m" = pad_shim ] && modprobe tcp_bbr

	if [ ! -f "$ko" ]; then
		tap_fail "$m: built for $KVER" "no $ko (make modules-all)"
		tap_skip "$m: registers" "not built"
		tap_skip "$m: carries traffic" "not built"
		tap_skip "$m: unloads" "not built"
		continue
	fi
	if err=$(insmod "$ko" 2>&1); then
		tap_ok "$m: insmod"
	else
		tap_fail "$m: insmod" "$err"
		tap_skip "$m: registers" "not loaded"
		tap_skip "$m: carries traffic" "not loaded"
		tap_skip "$m: unloads" "not loaded"
		continue
	fi

	if [ "$kind" = cca ]; then
		avail=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)
		tap_check "$(grep -qw "$name" <<<"$avail" && echo 1)" \
			"$m: $name in tcp_available_congestion_control" "$avail"
		# A 2 s loopback flow selected per socket, as iperf3 -C does.
		ip netns exec $ns iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
		sleep 0.5
		res=$(ip netns exec $ns iperf3 -c 127.0.0.1 -p 5201 -t 2 -C "$name" -J 2>&1)
		bps=$(python3 -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))' <<<"$res" 2>/dev/null)
		tap_check "$( [ "${bps:-0}" -gt 1000000 ] && echo 1)" \
			"$m: 2 s iperf3 -C $name over loopback" "${bps:-no result} bit/s"
	else
		ip -n $ns link add cc-dummy type dummy
		ip -n $ns addr add 192.0.2.2/24 dev cc-dummy
		ip -n $ns link set cc-dummy up
		tc -n $ns qdisc add dev cc-dummy root "$name" >/dev/null 2>&1
		shown=$(tc -n $ns qdisc show dev cc-dummy)
		tap_check "$(grep -qw "$name" <<<"$shown" && echo 1)" \
			"$m: qdisc $name attaches" "$shown"
		# A few packets through it (the dummy device drops them after).
		ip netns exec $ns ping -c 3 -i 0.2 -W 1 192.0.2.1 >/dev/null 2>&1
		tc -n $ns qdisc del dev cc-dummy root >/dev/null 2>&1
		ip -n $ns link del cc-dummy
		tap_ok "$m: qdisc $name removed"
	fi

	# Sockets in TIME_WAIT do not hold the CCA; give closing ones a moment.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		rmmod "$m" 2>/dev/null && break
		sleep 1
	done
	if grep -q "^$m " /proc/modules; then
		tap_fail "$m: unloads" "refcount $(awk -v m="$m" '$1 == m { print $3 }' /proc/modules)"
	else
		tap_ok "$m: unloads"
	fi
done
tap_done
