#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_abc: a live `change bandwidth` applies at once.  At 8 kbit/s (1000
# bytes/s) a 1514-byte packet puts the next departure 1.5 s out; raising
# the rate to 1 Gbit/s must release the packet queued behind it at once,
# with nothing else arriving to wake the qdisc (the departure is retimed
# and the watchdog re-armed), not 1.5 s later.  Going down again shapes at
# the new rate from the next packet on.  Needs q_abc.so.
source "$(dirname "$0")/lib.sh"
require_root
require_tools tc ip ping jq

ko=$MODDIR/sch_abc/sch_abc.ko
tap_plan 3
na=abcrc-a
nb=abcrc-b

cleanup() {
	ip netns del $na 2>/dev/null
	ip netns del $nb 2>/dev/null
	rmmod sch_abc 2>/dev/null
}
trap cleanup EXIT

if [ ! -f "$ko" ]; then
	tap_fail "sch_abc built" "no $ko (make modules-all)"
	tap_done
fi
if [ -z "${TC_LIB_DIR:-}" ] || [ ! -f "$TC_LIB_DIR/q_abc.so" ]; then
	for i in 1 2 3; do tap_skip "rate change" "no q_abc.so (make modules-all)"; done
	tap_done
fi
grep -q "^sch_abc " /proc/modules || insmod "$ko"

ip netns add $na
ip netns add $nb
# Only the pings may cross the 8 kbit/s shaper: no IPv6 (link-up ND and
# MLD packets would queue ahead of them), no ARP (static neighbours).
for n in $na $nb; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec $n sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
ip link add va netns $na type veth peer name vb netns $nb
ip -n $na addr add 10.77.0.1/24 dev va
ip -n $nb addr add 10.77.0.2/24 dev vb
for n in $na $nb; do ip -n $n link set lo up; done
ip -n $na link set va up
ip -n $nb link set vb up
ip -n $na neigh replace 10.77.0.2 lladdr "$(ip -n $nb -j link show vb | jq -r '.[0].address')" dev va nud permanent
ip -n $nb neigh replace 10.77.0.1 lladdr "$(ip -n $na -j link show va | jq -r '.[0].address')" dev vb nud permanent
tc -n $na qdisc add dev va root abc bandwidth 8kbit limit 100

# ping1 LOG WAIT: one 1500-byte echo request in the background; each waits
# for its own reply, so a late one is measured, not given up on.
ping1() {
	ip netns exec $na ping -n -c 1 -s 1472 -W "$2" 10.77.0.2 >"$1" 2>&1 &
	pings+=($!)
}
# rtt_ms LOG: that ping's round-trip time, ms (99999 if lost)
rtt_ms() {
	awk '/icmp_seq=1 / { sub(/.*time=/, ""); print $1 + 0; f = 1 }
		END { if (!f) print 99999 }' "$1"
}

# Up: the first packet leaves at once and holds the next departure 1.5 s
# out; the second waits for it on the watchdog; the change comes 0.3 s in.
pings=()
ping1 "$RESULTS/sch_abc-rate-up1.log" 5
sleep 0.05
ping1 "$RESULTS/sch_abc-rate-up2.log" 5
sleep 0.3
tc -n $na qdisc change dev va root abc bandwidth 1gbit
wait "${pings[@]}"
r1=$(rtt_ms "$RESULTS/sch_abc-rate-up1.log")
r2=$(rtt_ms "$RESULTS/sch_abc-rate-up2.log")
tap_check "$([ "$(fle "$r1" 1000)" = 1 ] && fle "$r2" 1000)" \
	"change 8kbit -> 1gbit: the queued packet leaves at the change, not 1.5 s after the first" \
	"first rtt $r1 ms, second rtt $r2 ms (the change came at ~350 ms; the old rate's departure was ~1500 ms)"

# Down: at 1gbit nothing is pending; after the change to 8kbit three
# back-to-back packets leave 1.5 s apart.
sleep 0.5
tc -n $na qdisc change dev va root abc bandwidth 8kbit
pings=()
for i in 1 2 3; do
	ping1 "$RESULTS/sch_abc-rate-down$i.log" 10
	sleep 0.05
done
wait "${pings[@]}"
# A slow guest may start the ping processes out of order, so the packets
# are taken in the order they left: the fastest reply and the slowest.
read -r r1 r3 < <(for i in 1 2 3; do rtt_ms "$RESULTS/sch_abc-rate-down$i.log"; done |
	sort -n | awk 'NR == 1 { f = $1 } END { print f, $1 }')
tap_check "$([ "$(fle "$r1" 1000)" = 1 ] && fin "$r3" 2000 4500)" \
	"change 1gbit -> 8kbit: the next packets are spaced at the new rate" \
	"fastest rtt $r1 ms, slowest rtt $r3 ms (two packet times, 3000, less its start 0.1 s or more later)"

# Statistics dumps (sch_tree_lock) while the shaper runs, and a sane result.
ip netns exec $na ping -n -c 20 -i 0.01 -s 1472 -W 1 10.77.0.2 >/dev/null 2>&1 &
p=$!
ok=1
for i in $(seq 1 50); do
	tc -n $na -s -j qdisc show dev va | jq -e '.[0].queues | length == 2' >/dev/null || ok=0
done
st=$(tc -n $na -s -j qdisc show dev va)
kill $p 2>/dev/null
wait $p 2>/dev/null
tap_check "$ok" "50 statistics dumps while packets are shaped" \
	"$(jq -c '.[0] | {qlen, capacity, queues}' <<<"$st")"
tap_done
