#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_abc in a guest:
#  1. `tc qdisc add ... root abc` autoloads the module through modprobe,
#     under the name this kernel asks for (6.1: sch_abc, 6.9+: net-sch-abc).
#  2. A CUBIC flow with ECN through scripts/netlab --qdisc abc (IPv4): the
#     receiver's capture shows CE on the fraction of ECT packets that the
#     qdisc counted as brakes, accelerates + brakes == ECT packets seen.
#  3. IPv6, on a veth pair with GSO on (the qdisc splits GSO skbs): TCP
#     with ECN, a Not-ECT UDP flow and an ECT(1) UDP flow.  No Not-ECT
#     packet is ever CE; ECT(1) stays ECT(1) or becomes CE, never ECT(0).
#     `change bandwidth` retunes live, `change limit` drops the excess.
#  4. rmmod after use.
# Needs q_abc.so (make modules-all builds it) for bandwidth and limit.
source "$(dirname "$0")/lib.sh"
require_root
require_tools tc iperf3 tcpdump jq ip

ko=$MODDIR/sch_abc/sch_abc.ko
tap_plan 19

modroot=$(mktemp -d /tmp/abc-modroot.XXXXXX)
reqlog=$modroot/requests
ns6a=abc6-a
ns6b=abc6-b
nlprefix=abct
old_modprobe=$(cat /proc/sys/kernel/modprobe)
pids=()

cleanup() {
	local p n
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	echo "$old_modprobe" >/proc/sys/kernel/modprobe
	ip netns del $ns6a 2>/dev/null
	ip netns del $ns6b 2>/dev/null
	for n in $(ip netns list | awk '{print $1}' | grep "^$nlprefix[0-9]*-"); do
		ip netns del "$n"
	done
	ip link del abc-dummy 2>/dev/null
	rmmod sch_abc 2>/dev/null
	rm -rf "$modroot"
}
trap cleanup EXIT

if [ ! -f "$ko" ]; then
	tap_fail "sch_abc built" "no $ko (make modules-all)"
	tap_done
fi
rmmod sch_abc 2>/dev/null

# ---- 1. autoload: a private module tree, depmod'ed, behind a modprobe
# wrapper that logs what the kernel asks for.
mkdir -p "$modroot/lib/modules/$KVER/extra"
cp "$ko" "$modroot/lib/modules/$KVER/extra/"
depmod -b "$modroot" "$KVER" 2>/dev/null
cat >"$modroot/modprobe" <<EOF
#!/bin/sh
echo "\$*" >>$reqlog
case "\$*" in
*abc*) exec $old_modprobe -d $modroot "\$@" ;;
esac
exec $old_modprobe "\$@"
EOF
chmod +x "$modroot/modprobe"
echo "$modroot/modprobe" >/proc/sys/kernel/modprobe
ip link add abc-dummy type dummy
ip link set abc-dummy up
# Stock tc without the plugin: no options, the kernel's defaults.
out=$(TC_LIB_DIR=/nonexistent tc qdisc add dev abc-dummy root abc 2>&1)
rc=$?
req=$(grep abc "$reqlog" 2>/dev/null | tr '\n' ' ')
case "$KVER" in
6.1.*) want=sch_abc ;;
*) want=net-sch-abc ;;
esac
tap_check "$([ $rc = 0 ] && grep -q "^sch_abc " /proc/modules && grep -qw -- "$want" "$reqlog" && echo 1)" \
	"tc qdisc add root abc autoloads sch_abc (kernel asks for $want)" "exit $rc $out; requests: $req"
echo "$old_modprobe" >/proc/sys/kernel/modprobe
tap_check "$(modinfo -F alias "$ko" | grep -qx net-sch-abc && echo 1)" \
	"module declares the alias net-sch-abc" "$(modinfo -F alias "$ko" | tr '\n' ' ')"
ip link del abc-dummy
grep -q "^sch_abc " /proc/modules || insmod "$ko"

if [ -z "${TC_LIB_DIR:-}" ] || [ ! -f "$TC_LIB_DIR/q_abc.so" ]; then
	for i in $(seq 3 19); do tap_skip "traffic checks" "no q_abc.so (make modules-all)"; done
	tap_done
fi

# ECN codepoint counts of a capture: NOTECT ECT1 ECT0 CE (IPv4 or IPv6)
ecn_counts() {
	local f=$1 v=$2 extra=${3:-} c m
	for c in 0 1 2 3; do
		if [ "$v" = 4 ]; then
			m="ip and (ip[1] & 3) = $c"
		else
			m="ip6 and (ip6[1] & 0x30) = $((c << 4))"
		fi
		[ -n "$extra" ] && m="$m and $extra"
		tcpdump -nr "$f" "$m" 2>/dev/null | wc -l
	done | tr '\n' ' '
}

# ---- 2. IPv4 through netlab, one CUBIC flow with ECN
out4=$RESULTS/sch_abc-v4
rm -rf "$out4"
"$TOP/scripts/netlab" run --qdisc abc --rate 20mbit --rtt 20ms --buffer 100p \
	--flow cubic --duration 12 --ecn --pcap --keep --prefix $nlprefix \
	--out "$out4" >"$RESULTS/sch_abc-netlab.log" 2>&1
rc=$?
rns=$(ip netns list | awk '{print $1}' | grep "^$nlprefix[0-9]*-r$" | head -n 1)
st=$(tc -n "$rns" -s -j qdisc show dev dst 2>/dev/null)
acc=$(jq '.[0].accelerates // empty' <<<"$st" 2>/dev/null)
brk=$(jq '.[0].brakes // empty' <<<"$st" 2>/dev/null)
gp=$(jq '.flows[0].goodput_mbps // 0' "$out4/result.json" 2>/dev/null)
tap_check "$([ $rc = 0 ] && [ -n "$acc" ] && [ "${acc:-0}" -gt 0 ] && [ "${brk:-0}" -gt 0 ] && echo 1)" \
	"IPv4 netlab run: the qdisc marks accelerates and brakes" \
	"exit $rc, accelerates $acc brakes $brk, goodput $gp Mbit/s"
read -r n0 n1 n2 n3 <<<"$(ecn_counts "$out4/pcap/receiver.pcap" 4)"
ect=$((n1 + n2 + n3))
ok=$(awk -v a="${acc:-0}" -v b="${brk:-0}" -v e="$ect" \
	'BEGIN { d = a + b - e; if (d < 0) d = -d; print (e > 0 && d <= 0.03 * e + 5) ? 1 : 0 }')
# netlab's capture starts after the qdisc and stops before the last
# packets: equal within 3 % here, exactly on the IPv6 link below.
tap_check "$ok" "IPv4: accelerates + brakes == ECN packets at the receiver (3 %)" \
	"xstats $((acc + brk)), capture $ect (ECT0 $n2 ECT1 $n1 CE $n3, Not-ECT $n0)"
ok=$(awk -v b="${brk:-0}" -v a="${acc:-0}" -v c="$n3" -v e="$ect" \
	'BEGIN { if (!e || !(a + b)) { print 0; exit } d = c / e - b / (a + b); if (d < 0) d = -d;
		print d <= 0.02 ? 1 : 0 }')
tap_check "$ok" "IPv4: CE share of ECN packets at the receiver is the brake share (1 - f)" \
	"CE $n3/$ect, brakes $brk/$((acc + brk))"
# ECN CUBIC takes each brake (CE) as congestion: it runs, well below the link.
tap_check "$(fge "$gp" 2)" "IPv4: the ECN CUBIC flow runs (goodput >= 2 Mbit/s of 20)" "$gp Mbit/s"
for n in $(ip netns list | awk '{print $1}' | grep "^$nlprefix[0-9]*-"); do ip netns del "$n"; done

# The shaper alone: Not-ECT CUBIC (no marking) gets the configured rate.
outs=$RESULTS/sch_abc-shaper
rm -rf "$outs"
"$TOP/scripts/netlab" run --qdisc abc --rate 20mbit --rtt 40ms --buffer 1bdp \
	--flow cubic --duration 15 --warmup 3 --no-ecn --prefix $nlprefix \
	--out "$outs" >"$RESULTS/sch_abc-shaper.log" 2>&1
rc=$?
gp=$(jq '.flows[0].goodput_mbps // 0' "$outs/result.json" 2>/dev/null)
pct=$(awk -v g="${gp:-0}" 'BEGIN { printf "%.1f", 100 * g / (20 * 1448 / 1514) }')
tap_check "$(fge "$pct" 40)" "bandwidth 20mbit shapes: Not-ECT CUBIC at least 40 % of ideal" \
	"exit $rc, $gp Mbit/s = $pct %"
tap_todo "$(fge "$pct" 80)" "bandwidth 20mbit: Not-ECT CUBIC at 80 % of ideal or more" \
	"$gp Mbit/s = $pct %, drops $(jq .bottleneck.drops "$outs/result.json" 2>/dev/null), queue delay $(jq -c .bottleneck.queue_delay_ms "$outs/result.json" 2>/dev/null)" \
	"tail drops at 1 BDP under TCG, see Documentation/sch_abc.rst"

# ---- 3. IPv6 on a veth pair, GSO on at the sender
ip netns add $ns6a
ip netns add $ns6b
ip link add v6a netns $ns6a type veth peer name v6b netns $ns6b
for n in $ns6a $ns6b; do
	ip -n $n link set lo up
	ip netns exec $n sysctl -qw net.ipv4.tcp_ecn=1
	ip netns exec $n sysctl -qw net.ipv6.conf.all.accept_dad=0
done
ip -n $ns6a addr add fd00:abc::1/64 dev v6a nodad
ip -n $ns6b addr add fd00:abc::2/64 dev v6b nodad
ip -n $ns6a link set v6a up
ip -n $ns6b link set v6b up
tc -n $ns6a qdisc add dev v6a root abc bandwidth 10mbit limit 200
gso=$(ip netns exec $ns6a ethtool -k v6a 2>/dev/null | awk '/generic-segmentation-offload:/ {print $2}')
pcap6=$RESULTS/sch_abc-v6.pcap
ip netns exec $ns6b tcpdump -i v6b -Q in -s 96 -B 8192 -n -w "$pcap6" ip6 2>/dev/null &
pids+=($!)
ip netns exec $ns6b iperf3 -s -D -1 -p 5201 >/dev/null 2>&1
ip netns exec $ns6b iperf3 -s -D -1 -p 5202 >/dev/null 2>&1
ip netns exec $ns6b iperf3 -s -D -1 -p 5203 >/dev/null 2>&1
sleep 2
# Guests are slow (TCG): the flows run long enough to cover every check.
ip netns exec $ns6a iperf3 -6 -c fd00:abc::2 -p 5201 -t 14 -C cubic >/dev/null 2>&1 &
pids+=($!)
# Not-ECT UDP above the link rate: the other queue stands (the socket's
# send buffer, not the limit, bounds it, so nothing is dropped).
ip netns exec $ns6a iperf3 -6 -c fd00:abc::2 -p 5202 -u -b 12M -t 14 --tos 0 \
	>"$RESULTS/sch_abc-udp5202.log" 2>&1 &
pids+=($!)
ip netns exec $ns6a iperf3 -6 -c fd00:abc::2 -p 5203 -u -b 1M -t 14 --tos 1 >/dev/null 2>&1 &
pids+=($!)
sleep 5
# Live retune in the middle of the run: the queue and counters stay.
s0=$(tc -n $ns6a -s -j qdisc show dev v6a)
tc -n $ns6a qdisc change dev v6a root abc bandwidth 5mbit
rc=$?
s1=$(tc -n $ns6a -s -j qdisc show dev v6a)
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
wait "${pids[@]:1}" 2>/dev/null
sleep 1
kill "${pids[0]}" 2>/dev/null
wait "${pids[0]}" 2>/dev/null
pids=()
st=$(tc -n $ns6a -s -j qdisc show dev v6a)
acc=$(jq '.[0].accelerates' <<<"$st")
brk=$(jq '.[0].brakes' <<<"$st")
read -r t0 t1 t2 t3 <<<"$(ecn_counts "$pcap6" 6 "tcp")"
read -r u0 u1 u2 u3 <<<"$(ecn_counts "$pcap6" 6 "udp dst port 5202")"
# iperf3's 4-byte UDP handshake leaves before its TOS is set: data only
read -r e0 e1 e2 e3 <<<"$(ecn_counts "$pcap6" 6 "udp dst port 5203 and greater 200")"
tap_check "$([ "$t3" -gt 0 ] && [ "$t2" -gt 0 ] && echo 1)" \
	"IPv6 TCP with ECN: both brakes (CE) and accelerates (ECT(0)) arrive" \
	"ECT0 $t2 CE $t3 Not-ECT $t0; GSO on sender: ${gso:-?}"
tap_check "$([ "$u0" -gt 1000 ] && [ "$u3" = 0 ] && [ "$u1" = 0 ] && [ "$u2" = 0 ] && echo 1)" \
	"IPv6 Not-ECT UDP: never marked" "Not-ECT $u0, CE $u3, ECT $u1/$u2"
tap_check "$([ "$e1" -gt 100 ] && [ "$e2" = 0 ] && [ "$e0" = 0 ] && echo 1)" \
	"IPv6 ECT(1) UDP: accelerates keep ECT(1), brakes are CE, never ECT(0)" \
	"ECT1 $e1 CE $e3 ECT0 $e2 Not-ECT $e0"
ect6=$((t1 + t2 + t3 + e1 + e2 + e3))
ok=$(awk -v a="$acc" -v b="$brk" -v e="$ect6" \
	'BEGIN { d = a + b - e; if (d < 0) d = -d; print (e > 0 && d <= 0.01 * e + 5) ? 1 : 0 }')
tap_check "$ok" "IPv6: accelerates + brakes == ECN packets at the receiver" \
	"xstats $acc + $brk = $((acc + brk)), capture $ect6"
tap_check "$([ "$(jq '.[0].estimating' <<<"$st")" = false ] &&
	[ "$(jq '.[0].queues | length' <<<"$st")" = 2 ] && echo 1)" \
	"xstats: bandwidth mode and two queues reported" \
	"$(jq -c '.[0] | {estimating, queues}' <<<"$st")"

# Smaller limit with a full queue: the excess is dropped, counters agree.
ip netns exec $ns6b iperf3 -s -D -1 -p 5204 >/dev/null 2>&1
sleep 1
tc -n $ns6a qdisc change dev v6a root abc bandwidth 1mbit limit 200
ip netns exec $ns6a iperf3 -6 -c fd00:abc::2 -p 5204 -u -b 20M -t 60 --tos 0 \
	>"$RESULTS/sch_abc-udp5204.log" 2>&1 &
pids+=($!)
sleep 4
q0=$(tc -n $ns6a -s -j qdisc show dev v6a | jq '.[0].qlen')
tc -n $ns6a qdisc change dev v6a root abc limit 10
rc=$?
st=$(tc -n $ns6a -s -j qdisc show dev v6a)
q1=$(jq '.[0].qlen' <<<"$st")
tap_check "$([ $rc = 0 ] && [ "$q0" -gt 10 ] && [ "$q1" -le 10 ] &&
	[ "$(jq '.[0].drops' <<<"$st")" -ge $((q0 - 10)) ] && echo 1)" \
	"change limit 10 on a full queue drops the excess" \
	"qlen $q0 -> $q1, drops $(jq '.[0].drops' <<<"$st")"
tap_check "$([ "$(jq '.[0].qlen' <<<"$st")" = "$(jq '[.[0].queues[].qlen] | add' <<<"$st")" ] && echo 1)" \
	"qlen equals the sum of both queues" \
	"$(jq -c '.[0] | {qlen, drops, queues}' <<<"$st")"
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()

# Estimate mode under a parent shaper: mu is the rate htb drains it at.
tc -n $ns6a qdisc del dev v6a root
tc -n $ns6a qdisc add dev v6a root handle 1: htb default 1
tc -n $ns6a class add dev v6a parent 1: classid 1:1 htb rate 8mbit ceil 8mbit
tc -n $ns6a qdisc add dev v6a parent 1:1 handle 10: abc
ip netns exec $ns6b iperf3 -s -D -1 -p 5205 >/dev/null 2>&1
ip netns exec $ns6b iperf3 -s -D -1 -p 5206 >/dev/null 2>&1
sleep 1
ip netns exec $ns6a iperf3 -6 -c fd00:abc::2 -p 5205 -u -b 12M -t 60 --tos 0 \
	>"$RESULTS/sch_abc-udp5205.log" 2>&1 &
pids+=($!)
ip netns exec $ns6a iperf3 -6 -c fd00:abc::2 -p 5206 -u -b 1M -t 60 --tos 2 \
	>"$RESULTS/sch_abc-udp5206.log" 2>&1 &
pids+=($!)
sleep 5
st=$(tc -n $ns6a -s -j qdisc show dev v6a parent 1:1)
cap=$(jq '.[0].capacity' <<<"$st")
est=$(jq '.[0].estimating' <<<"$st")
# 8 Mbit/s = 1000000 bytes/s; tc may print bytes/s or bit/s in JSON
ok=$(awk -v c="${cap:-0}" 'BEGIN { if (c > 1e7) c /= 8; print (c >= 700000 && c <= 1300000) ? 1 : 0 }')
tap_check "$([ "$est" = true ] && [ "$ok" = 1 ] && echo 1)" \
	"estimate mode under htb 8mbit: capacity estimated within 30 %" \
	"$(jq -c '.[0] | {estimating, capacity, dequeue_rate, accelerates, brakes, accel_frac}' <<<"$st")"
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()
tc -n $ns6a qdisc del dev v6a root
tc -n $ns6a qdisc add dev v6a root abc limit 10

# Refused values leave the qdisc unchanged.
before=$(tc -n $ns6a -j qdisc show dev v6a | jq -c '.[0].options')
out=$(tc -n $ns6a qdisc change dev v6a root abc limit 20 tokens 1 2>&1)
rc=$?
after=$(tc -n $ns6a -j qdisc show dev v6a | jq -c '.[0].options')
tap_check "$([ $rc != 0 ] && grep -q token_limit <<<"$out" && [ "$before" = "$after" ] && echo 1)" \
	"tokens 1 refused with an extack message, limit 20 not applied" "$out"

ip netns del $ns6a
ip netns del $ns6b

# ---- 4. unload
sleep 1
out=$(rmmod sch_abc 2>&1)
tap_check "$([ $? = 0 ] && ! grep -q "^sch_abc " /proc/modules && echo 1)" "rmmod sch_abc after use" "$out"
tap_done
