#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# emu_textpoke: the emulator survives live kernel text patching.
#
# Enabling or disabling a tracepoint flips a static key: the kernel
# rewrites a 5-byte nop or jump in running code, putting an int3 on its
# first byte while the other CPUs may execute it (text_poke_bp).
# Multi-threaded TCG keeps running a stale translation of such a site
# after the patch is done, and the guest dies with "Oops: int3" at a
# site that no longer holds one: QEMU 7.2 within 30 s on both kernels,
# QEMU 10.0.2 in one 60 s run of three on 6.12.  Single-threaded TCG,
# scripts/vm's default, has not shown it (300 s on both kernels).

# This test toggles nine hot-path stock tracepoints (sched, timer, irq,
# net, skb, tcp, sock) for 60 s under loopback iperf3 traffic.  A fault
# shows as a lost guest (scripts/vm exit 125 with the Oops on the
# console), not as a failed case.  No module of this tree is loaded.

. "$(dirname "$0")/lib.sh"
require_root
require_tools iperf3

dur=${EMU_TEXTPOKE_SECONDS:-60}
tracing=/sys/kernel/tracing
[ -d $tracing/events ] || mount -t tracefs nodev $tracing 2>/dev/null

evs="sched/sched_switch sched/sched_wakeup timer/hrtimer_start timer/timer_start
irq/softirq_entry net/net_dev_xmit skb/kfree_skb tcp/tcp_probe sock/inet_sock_set_state"

tap_plan 3

missing=""
for e in $evs; do [ -f $tracing/events/$e/enable ] || missing="$missing $e"; done
tap_check "$([ -z "$missing" ] && echo 1)" "the nine tracepoints exist" "missing:${missing:- none}"

ip link set lo up
iperf3 -s -D -p 5299 >/dev/null 2>&1
sleep 1
(
	while :; do iperf3 -c 127.0.0.1 -p 5299 -t 20 -P 2 >/dev/null 2>&1 || sleep 1; done
) &
load=$!

end=$(($(date +%s) + dur))
rounds=0 errs=0
while [ "$(date +%s)" -lt "$end" ]; do
	for v in 1 0; do
		for e in $evs; do
			echo $v >$tracing/events/$e/enable 2>/dev/null || errs=$((errs + 1))
		done
	done
	rounds=$((rounds + 1))
done
kill $load 2>/dev/null
wait $load 2>/dev/null
pkill -x iperf3 2>/dev/null

tap_check "$([ "$rounds" -ge 10 ] && [ "$errs" -eq 0 ] && echo 1)" \
	"tracepoints toggled on and off under traffic for $dur s" "$rounds rounds, $errs write errors"
# Reaching this line is the point: a stale int3 kills or wedges the guest.
bad=$(dmesg | grep -c -E 'Oops|soft lockup|BUG:' || true)
tap_check "$([ "$bad" -eq 0 ] && echo 1)" "no Oops or soft lockup in dmesg" "$bad lines"
tap_done
