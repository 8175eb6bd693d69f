#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_abc on IPv6, as the bottleneck of netlab's path (netlab setup --ipv6)
# with the offloads on at the sender (the qdisc splits GSO skbs):
# TCP with ECN, a Not-ECT UDP flow above the link rate and an ECT(1) UDP
# flow.  No Not-ECT packet is ever CE; ECT(1) stays ECT(1) or becomes CE,
# never ECT(0); accelerates + brakes == ECN packets at the receiver; with
# `ect1 on` an ECT(1) packet's brake is ECT(0), never CE.
# `change bandwidth` retunes live, the shaper never exceeds its rate,
# `change limit` drops the excess, estimate mode under htb, a refused
# value, rmmod.  Needs q_abc.so (make modules-all builds it).
source "$(dirname "$0")/lib.sh"
require_root
require_tools tc iperf3 tcpdump jq ip

ko=$MODDIR/sch_abc/sch_abc.ko
tap_plan 15

prefix=abc6-
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$TOP/scripts/netlab" teardown --all --prefix $prefix >/dev/null 2>&1
	rmmod sch_abc 2>/dev/null
}
trap cleanup EXIT

if [ ! -f "$ko" ]; then
	tap_fail "sch_abc built" "no $ko (make modules-all)"
	tap_done
fi
if [ -z "${TC_LIB_DIR:-}" ] || [ ! -f "$TC_LIB_DIR/q_abc.so" ]; then
	for i in $(seq 1 15); do tap_skip "IPv6 checks" "no q_abc.so (make modules-all)"; done
	tap_done
fi
grep -q "^sch_abc " /proc/modules || insmod "$ko"

# Prints, for NOTECT ECT1 ECT0 CE in turn, "tcp udp5202 udp5203" as
# counted in the capture (udp5203: data packets only, 100 bytes and more;
# iperf3's 4-byte UDP handshake leaves before its TOS is set).
ecn6_table() {
	local c m
	for c in 0 1 2 3; do
		m="ip6 and (ip6[1] & 0x30) = $((c << 4))"
		echo "$(pcap_count "$1" "$m and tcp") $(pcap_count "$1" "$m and udp dst port 5202")" \
			"$(pcap_count "$1" "$m and udp dst port 5203 and ip6[4:2] >= 108")"
	done
}

# wait_standing N: until the router's root qdisc holds more than 100
# packets, at most N x 0.2 s.
wait_standing() {
	local _ q
	for _ in $(seq "$1"); do
		q=$(tc -n $nsr -s -j qdisc show dev $dev | jq ".[0].qlen")
		[ "$q" -gt 100 ] && return
		sleep 0.2
	done
}

# wait_empty N: until the router's root qdisc is empty, at most N x 0.2 s.
wait_empty() {
	local _
	for _ in $(seq "$1"); do
		[ "$(tc -n $nsr -s -j qdisc show dev $dev | jq ".[0].qlen")" = 0 ] && return
		sleep 0.2
	done
}

# ---- netlab's path in IPv6: sch_abc is the router's bottleneck queue, the
# sender keeps TSO/GSO on, so the qdisc splits GSO skbs.
topo=$("$TOP/scripts/netlab" setup --ipv6 --prefix $prefix --qdisc abc --rate 10mbit \
	--buffer 10000p --rtt 2ms --no-calibrate-rtt --offloads kernel --flow cubic \
	2>"$RESULTS/netlab-setup.err")
if [ $? != 0 ]; then
	tap_fail "netlab setup --ipv6" "$(<"$RESULTS/netlab-setup.err")"
	tap_done
fi
nsr=$(jq -r .router <<<"$topo")
nsd=$(jq -r .receiver <<<"$topo")
nss=$(jq -r '.senders[0].namespace' <<<"$topo")
dev=$(jq -r .bottleneck_dev <<<"$topo")
dst=$(jq -r .receiver_ip6 <<<"$topo")
gso=$(ip netns exec $nss ethtool -k eth0 2>/dev/null | sed -n 's/^generic-segmentation-offload: //p')
pcap6=$RESULTS/sch_abc-v6.pcap
capture_start $nsd "$pcap6" ip6 || tap_diag "tcpdump did not start: $(cat "$pcap6.err")"
pids+=($CAPTURE_PID)
ip netns exec $nsd iperf3 -s -D -1 -p 5201 >/dev/null 2>&1
ip netns exec $nsd iperf3 -s -D -1 -p 5202 >/dev/null 2>&1
ip netns exec $nsd iperf3 -s -D -1 -p 5203 >/dev/null 2>&1
sleep 1
# Guests are slow (TCG): the flows run until every check is done.  The
# ECN flows start first: their handshakes (and iperf3's control
# connections) are Not-ECT and would wait behind the flood below.
ip netns exec $nss iperf3 -6 -c $dst -p 5201 -t 200 -C cubic >/dev/null 2>&1 &
pids+=($!)
ip netns exec $nss iperf3 -6 -c $dst -p 5203 -u -b 1M -t 200 --tos 1 >/dev/null 2>&1 &
pids+=($!)
sleep 2
# Not-ECT UDP above the link rate: the other queue stands.  It grows by
# up to 600 packets a second; the limit of 10000 is far from reached
# before the retune below, so nothing is dropped there.
ip netns exec $nss iperf3 -6 -c $dst -p 5202 -u -b 12M -t 200 --tos 0 \
	>"$RESULTS/sch_abc-udp5202.log" 2>&1 &
pids+=($!)
# A starved guest's iperf3 may take seconds to reach 12 Mbit/s, and the
# retune below is judged with a standing queue: wait for one (<= 15 s).
wait_standing 75
# Live retune in the middle of the run: the queue and counters stay.
s0=$(tc -n $nsr -s -j qdisc show dev $dev)
tc -n $nsr qdisc change dev $dev root abc bandwidth 5mbit
rc=$?
s1=$(tc -n $nsr -s -j qdisc show dev $dev)
q0=$(jq '.[0].qlen' <<<"$s0")
q1=$(jq '.[0].qlen' <<<"$s1")
d0=$(jq '.[0].drops' <<<"$s0")
d1=$(jq '.[0].drops' <<<"$s1")
b0=$(jq '.[0].bytes' <<<"$s0")
b1=$(jq '.[0].bytes' <<<"$s1")
bw=$(jq '.[0].options.bandwidth' <<<"$s1")
tap_check "$([ $rc = 0 ] && { [ "$bw" = 625000 ] || [ "$bw" = 5000000 ]; } &&
	[ "$q0" -gt 20 ] && [ "$q1" -gt 20 ] && [ "$d1" = "$d0" ] && [ "$b1" -ge "$b0" ] && echo 1)" \
	"change bandwidth 5mbit under load retunes live, the queue is kept" \
	"exit $rc, bandwidth $bw, qlen $q0 -> $q1, drops $d0 -> $d1, sent $b0 -> $b1"
# The shaper at 5 Mbit/s with a standing queue: what the receiver gets.
r0=$(ip netns exec $nsd cat /sys/class/net/eth0/statistics/rx_bytes)
tm0=$EPOCHREALTIME
sleep 2
r1=$(ip netns exec $nsd cat /sys/class/net/eth0/statistics/rx_bytes)
tm1=$EPOCHREALTIME
q2=$(tc -n $nsr -s -j qdisc show dev $dev | jq '.[0].qlen')
# kbit/s = bytes x 8 / us x 1000 (EPOCHREALTIME in us without its dot)
us=$((${tm1/./} - ${tm0/./}))
rate=$(((r1 - r0) * 8000 / us))
tap_check "$([ "$rate" -le 5500 ] && echo 1)" "bandwidth 5mbit: the receiver gets no more than 5.5 Mbit/s" \
	"$rate kbit/s, qlen $q2"
tap_todo "$([ "$rate" -ge 4000 ] && echo 1)" "bandwidth 5mbit with a standing queue: at least 4 Mbit/s" \
	"$rate kbit/s, qlen $q2" \
	"a starved TCG guest fires the watchdog late, see Documentation/sch_abc.rst"
kill "${pids[@]:1}" 2>/dev/null
wait "${pids[@]:1}" 2>/dev/null
# Accelerates and brakes are counted at dequeue, and tcpdump on a starved
# guest lags what arrives: it must see the whole backlog before it stops
# (on SIGINT it drops what it has not read, uncounted).  The standing
# Not-ECT queue (~10000 packets, 24 s at 5 Mbit/s) drains at 100 Mbit/s,
# then capture_stop waits for the file to settle.
tc -n $nsr qdisc change dev $dev root abc bandwidth 100mbit
wait_empty 100
capture_stop "${pids[0]}" "$pcap6"
drop6=${CAPTURE_DROPPED:-?}
pids=()
st=$(tc -n $nsr -s -j qdisc show dev $dev)
acc=$(jq '.[0].accelerates' <<<"$st")
brk=$(jq '.[0].brakes' <<<"$st")
tab=$(ecn6_table "$pcap6")
{ read -r t0 u0 e0; read -r t1 u1 e1; read -r t2 u2 e2; read -r t3 u3 e3; } <<<"$tab"
tap_check "$([ "$t3" -gt 0 ] && [ "$t2" -gt 0 ] && echo 1)" \
	"IPv6 TCP with ECN: both brakes (CE) and accelerates (ECT(0)) arrive" \
	"ECT0 $t2 CE $t3 Not-ECT $t0; GSO on sender: ${gso:-?}"
tap_check "$([ "$u0" -gt 1000 ] && [ "$u3" = 0 ] && [ "$u1" = 0 ] && [ "$u2" = 0 ] && echo 1)" \
	"IPv6 Not-ECT UDP: never marked" "Not-ECT $u0, CE $u3, ECT $u1/$u2"
# A starved guest delivered 217 ECT(1) packets in one run (1200-2300
# otherwise), all while the queue stood above target: no accelerate to
# judge.  The re-marking itself (never ECT(0) or Not-ECT) is always checked.
if [ "$e2" = 0 ] && [ "$e0" = 0 ] && [ $((e1 + e3)) -lt 500 ]; then
	tap_skip "IPv6 ECT(1) UDP: accelerates keep ECT(1), brakes are CE, never ECT(0) (ECT1 $e1 CE $e3)" \
		"only $((e1 + e3)) ECT(1) packets arrived: guest starved"
else
	tap_check "$([ "$e1" -gt 100 ] && [ "$e2" = 0 ] && [ "$e0" = 0 ] && echo 1)" \
		"IPv6 ECT(1) UDP: accelerates keep ECT(1), brakes are CE, never ECT(0)" \
		"ECT1 $e1 CE $e3 ECT0 $e2 Not-ECT $e0"
fi
ect6=$((t1 + t2 + t3 + e1 + e2 + e3))
# |a + b - e| <= 0.01 e + 5, times 100: exact in integers
d=$((${acc:-0} + ${brk:-0} - ect6))
ok=$([ "$ect6" -gt 0 ] && [ $((100 * ${d#-})) -le $((ect6 + 500)) ] && echo 1)
tap_check "$ok" "IPv6: accelerates + brakes == ECN packets at the receiver" \
	"xstats $acc + $brk = $((acc + brk)), capture $ect6 (dropped by the kernel: $drop6)"
tap_check "$([ "$(jq '.[0].estimating' <<<"$st")" = false ] &&
	[ "$(jq '.[0].queues | length' <<<"$st")" = 2 ] && echo 1)" \
	"xstats: bandwidth mode and two queues reported" \
	"$(jq -c '.[0] | {estimating, queues}' <<<"$st")"

# Smaller limit with a full queue: the excess is dropped, counters agree.
ip netns exec $nsd iperf3 -s -D -1 -p 5204 >/dev/null 2>&1
sleep 1
tc -n $nsr qdisc change dev $dev root abc bandwidth 1mbit limit 200
ip netns exec $nss iperf3 -6 -c $dst -p 5204 -u -b 20M -t 200 --tos 0 \
	>"$RESULTS/sch_abc-udp5204.log" 2>&1 &
pids+=($!)
sleep 4
q0=$(tc -n $nsr -s -j qdisc show dev $dev | jq '.[0].qlen')
tc -n $nsr qdisc change dev $dev root abc limit 10
rc=$?
st=$(tc -n $nsr -s -j qdisc show dev $dev)
q1=$(jq '.[0].qlen' <<<"$st")
tap_check "$([ $rc = 0 ] && [ "$q0" -gt 10 ] && [ "$q1" -le 10 ] &&
	[ "$(jq '.[0].drops' <<<"$st")" -ge $((q0 - 10)) ] && echo 1)" \
	"change limit 10 on a full queue drops the excess" \
	"qlen $q0 -> $q1, drops $(jq '.[0].drops' <<<"$st")"
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()
# The kernel reads qlen and the xstats at two moments without the qdisc
# lock, so under traffic they may differ by a packet in flight.  Once the
# sender stops, 10 packets drain at 1 Mbit/s in ~120 ms: a qlen leaked
# by the limit drops would stay behind with both queues empty.
sleep 1
st=$(tc -n $nsr -s -j qdisc show dev $dev)
tap_check "$([ "$(jq '.[0].qlen' <<<"$st")" = 0 ] &&
	[ "$(jq '[.[0].queues[].qlen] | add' <<<"$st")" = 0 ] && echo 1)" \
	"after the limit drops and a drain, qlen and both queues are 0" \
	"$(jq -c '.[0] | {qlen, drops, queues}' <<<"$st")"

# Estimate mode under a parent shaper: mu is the rate htb drains it at.
tc -n $nsr qdisc del dev $dev root
tc -n $nsr qdisc add dev $dev root handle 1: htb default 1
tc -n $nsr class add dev $dev parent 1: classid 1:1 htb rate 8mbit ceil 8mbit
tc -n $nsr qdisc add dev $dev parent 1:1 handle 10: abc
ip netns exec $nsd iperf3 -s -D -1 -p 5205 >/dev/null 2>&1
ip netns exec $nsd iperf3 -s -D -1 -p 5206 >/dev/null 2>&1
sleep 1
ip netns exec $nss iperf3 -6 -c $dst -p 5206 -u -b 1M -t 200 --tos 2 \
	>"$RESULTS/sch_abc-udp5206.log" 2>&1 &
pids+=($!)
sleep 1
ip netns exec $nss iperf3 -6 -c $dst -p 5205 -u -b 12M -t 200 --tos 0 \
	>"$RESULTS/sch_abc-udp5205.log" 2>&1 &
pids+=($!)
sleep 5
st=$(tc -n $nsr -s -j qdisc show dev $dev parent 1:1)
cap=$(jq '.[0].capacity' <<<"$st")
est=$(jq '.[0].estimating' <<<"$st")
# 8 Mbit/s = 1000000 bytes/s; tc may print bytes/s or bit/s in JSON
c=${cap:-0}
c=${c%.*}
[ "$c" -gt 10000000 ] && c=$((c / 8))
tap_check "$([ "$est" = true ] && [ "$c" -ge 1 ] && [ "$c" -le 1300000 ] && echo 1)" \
	"estimate mode under htb 8mbit: estimating, capacity not above the parent's rate + 30 %" \
	"$(jq -c '.[0] | {estimating, capacity, dequeue_rate, accelerates, brakes, accel_frac}' <<<"$st")"
tap_todo "$([ "$c" -ge 700000 ] && echo 1)" "estimate mode under htb 8mbit: capacity within 30 %" "$c bytes/s" \
	"the senders of a starved TCG guest do not fill 8 Mbit/s, see Documentation/sch_abc.rst"
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()
tc -n $nsr qdisc del dev $dev root
tc -n $nsr qdisc add dev $dev root abc limit 10

# Refused values leave the qdisc unchanged.
before=$(tc -n $nsr -j qdisc show dev $dev | jq -c '.[0].options')
out=$(tc -n $nsr qdisc change dev $dev root abc limit 20 tokens 1 2>&1)
rc=$?
after=$(tc -n $nsr -j qdisc show dev $dev | jq -c '.[0].options')
tap_check "$([ $rc != 0 ] && grep -q "out of range" <<<"$out" && [ "$before" = "$after" ] && echo 1)" \
	"tokens 1 refused with an extack message, limit 20 not applied" "$out"

# The paper's encoding: with ect1 on, a brake on an ECT(1) packet writes
# ECT(0).  ECT(1) UDP at 1.5 times the link rate keeps a standing queue,
# so most packets are brakes.
tc -n $nsr qdisc replace dev $dev root abc bandwidth 2mbit limit 10000 ect1 on
pcap1=$RESULTS/sch_abc-v6-ect1.pcap
capture_start $nsd "$pcap1" ip6 || tap_diag "tcpdump did not start: $(cat "$pcap1.err")"
pids+=($CAPTURE_PID)
ip netns exec $nsd iperf3 -s -D -1 -p 5203 >/dev/null 2>&1
sleep 1
ip netns exec $nss iperf3 -6 -c $dst -p 5203 -u -b 3M -t 4 --tos 1 >/dev/null 2>&1
# Brakes are counted at dequeue: the queue drains before the capture ends.
wait_empty 50
capture_stop "${pids[0]}" "$pcap1"
pids=()
st=$(tc -n $nsr -s -j qdisc show dev $dev)
brk=$(jq '.[0].brakes' <<<"$st")
{ read -r _ _ e0; read -r _ _ e1; read -r _ _ e2; read -r _ _ e3; } <<<"$(ecn6_table "$pcap1")"
tap_check "$([ "$e2" -gt 100 ] && [ "$e3" = 0 ] && [ "$e0" = 0 ] &&
	[ $((100 * (brk > e2 ? brk - e2 : e2 - brk))) -le $((e2 + 500)) ] && echo 1)" \
	"IPv6 ect1 on: ECT(1) braked to ECT(0), never CE; brakes == ECT(0) packets" \
	"ECT1 $e1 ECT0 $e2 CE $e3 Not-ECT $e0; xstats brakes $brk; capture dropped ${CAPTURE_DROPPED:-?}"

"$TOP/scripts/netlab" teardown --all --prefix $prefix >/dev/null 2>&1

# ---- unload
sleep 1
out=$(rmmod sch_abc 2>&1)
tap_check "$([ $? = 0 ] && ! grep -q "^sch_abc " /proc/modules && echo 1)" "rmmod sch_abc after use" "$out"
tap_done
