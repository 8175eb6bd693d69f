#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_etc in a guest: parameters, selection (sysctl, setsockopt, iperf3 -C),
# unload refused while a socket uses it, tracepoint and ss -ti info, then
# on an emulated 20 Mbit/s, 40 ms, 1-BDP droptail link: utilisation and
# RTT p95 against CUBIC in the same run, 1 % random loss, and bursts of N
# seen at the receiver.
#
# The link is netlab's (Documentation/netlab.rst): tbf on the router's
# egress (the bottleneck, limit 1 BDP), the delay on the ACK path, offloads
# off except the senders' GSO (--sender-gso), so ETC's TSO skbs (the
# micro-bursts) reach the bottleneck back to back, as from a real NIC.
# netlab check reads its result.json.  The burst cases need a link netlab
# does not build (no shaper, a per-socket pacing cap): set up by hand.
source "$(dirname "$0")/lib.sh"
require_root

ko=$MODDIR/tcp_etc/tcp_etc.ko
RATE_MBIT=${ETC_RATE_MBIT:-20}
DELAY_MS=${ETC_DELAY_MS:-40}
SECS=${ETC_SECS:-20}
OMIT=2
# ETC flows on the link, each between two CUBIC flows: 3, whose median
# the targets take; 1 with CC_TEST_SHORT=1 (make check's older kernels),
# where only the floors are judged.
PAIRS=3
[ "${CC_TEST_SHORT:-0}" = 1 ] && PAIRS=1
PAIRS=${ETC_PAIRS:-$PAIRS}
NFLOWS=$((2 * PAIRS + 1))
# 1 BDP in bytes
LIMIT=$((RATE_MBIT * 1000000 / 8 * DELAY_MS / 1000))
NS_S=etc-snd NS_R=etc-rtr NS_C=etc-rcv
PY=/usr/bin/python3
NETLAB=$TOP/scripts/netlab

tap_plan 18

if [ ! -f "$ko" ]; then
	tap_fail "tcp_etc built for $KVER" "no $ko (make modules-all)"
	tap_done
fi
rmmod tcp_etc 2>/dev/null

# ---- parameters: a bad value on load is refused
if insmod "$ko" burst=1 2>/dev/null; then
	rmmod tcp_etc
	tap_fail "insmod burst=1 refused"
else
	tap_ok "insmod burst=1 refused" "$(dmesg | grep -o 'tcp_etc: burst.*' | tail -n 1)"
fi

if ! err=$(insmod "$ko" 2>&1); then
	tap_fail "insmod tcp_etc" "$err"
	tap_done
fi
P=/sys/module/tcp_etc/parameters
before=$(cat $P/alpha)
k0=$(cat $P/k)
bad=0
for v in 0.5 1.0 abc 17 "" ; do
	echo "$v" >$P/alpha 2>/dev/null && bad=1
done
echo 0 >$P/eta 2>/dev/null && bad=1
echo 1 >$P/eta 2>/dev/null && bad=1
echo 0.5 >$P/k 2>/dev/null && bad=1
echo 33 >$P/burst 2>/dev/null && bad=1
floor0=$(cat $P/grad_floor_us)
for v in 100001 -1 1ms ""; do
	echo "$v" >$P/grad_floor_us 2>/dev/null && bad=1
done
floor1=$(cat $P/grad_floor_us)
for v in 2 -1 y yes ""; do
	echo "$v" >$P/window 2>/dev/null && bad=1
done
win=$(cat $P/window)
after=$(cat $P/alpha)
echo 3.5 >$P/alpha && good=$(cat $P/alpha)
echo "$before" >$P/alpha
echo 0 >$P/grad_floor_us && gf=$(cat $P/grad_floor_us)
echo "$floor0" >$P/grad_floor_us
tap_check "$([ "$before" = 4.0000 ] && [ "$k0" = 1.1000 ] && echo 1)" \
	"defaults as documented: alpha 4, k 1.1" "alpha $before, k $k0"
tap_check "$([ $bad = 0 ] && [ "$before" = "$after" ] && [ "$good" = 3.5000 ] &&
	[ "$floor0" = 1000 ] && [ "$floor1" = 1000 ] && [ "$gf" = 0 ] && [ "$win" = 0 ] && echo 1)" \
	"bad parameter writes refused, state unchanged" \
	"alpha $before -> $after, 3.5 -> ${good:-?}, grad_floor_us $floor0 -> $floor1, 0 -> ${gf:-?}, window $win, eta $(cat $P/eta) k $(cat $P/k) grad $(cat $P/grad_thresh) burst $(cat $P/burst)"

cleanup() {
	for n in $NS_S $NS_R $NS_C etc-lo; do ip netns del $n 2>/dev/null; done
	kill $(jobs -p) 2>/dev/null
}
trap cleanup EXIT

# ---- selection by sysctl in a namespace
ip netns add etc-lo
ip -n etc-lo link set lo up
ip netns exec etc-lo sysctl -qw net.ipv4.tcp_congestion_control=etc
got=$(ip netns exec etc-lo sysctl -n net.ipv4.tcp_congestion_control)
ip netns exec etc-lo iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
sleep 0.5
ip netns exec etc-lo iperf3 -c 127.0.0.1 -p 5201 -t 30 >/dev/null 2>&1 &
lpid=$!
# a starved guest may take seconds to start the data connection
for _ in $(seq 100); do
	sleep 0.2
	ssout=$(ip netns exec etc-lo ss -tin '( dport = 5201 )')
	grep -q 'bbr:(' <<<"$ssout" && break
done
kill $lpid 2>/dev/null
wait $lpid 2>/dev/null
tap_check "$([ "$got" = etc ] && grep -q ' etc ' <<<"$ssout" && echo 1)" \
	"sysctl tcp_congestion_control=etc in a netns selects etc" "sysctl: $got"
bbrinfo=$(grep -o 'bbr:([^)]*)' <<<"$ssout" | head -n 1)
tap_check "$([ -n "$bbrinfo" ] && echo 1)" "ss -ti shows ETC's info (bw=Rp, mrtt, gains s/Rp r/Rp)" \
	"${bbrinfo:-none}"

# ---- setsockopt, and unload refused while a socket uses etc
hold_cc_socket etc-lo etc 100000
name=$HELD_NAME
tap_check "$([ "$name" = etc ] && echo 1)" "setsockopt(TCP_CONGESTION, \"etc\") on a connected socket" "getsockopt: ${name:-nothing}"
if rmmod tcp_etc 2>/dev/null; then
	tap_fail "rmmod refused while a socket uses etc" "module unloaded under a live socket"
	insmod "$ko"
else
	tap_ok "rmmod refused while a socket uses etc" "refcnt $(cat /sys/module/tcp_etc/refcnt)"
fi
release_cc_socket

# ---- unload refused during a running flow, and works after
ip netns exec etc-lo iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
sleep 0.5
ip netns exec etc-lo iperf3 -c 127.0.0.1 -p 5202 -t 3 -C etc -J >"$RESULTS/etc-lo-flow.json" 2>&1 &
fpid=$!
sleep 1
rmmod tcp_etc 2>/dev/null && mid=unloaded || mid=refused
wait $fpid
frc=$?
ip netns del etc-lo
unloaded=no
for _ in $(seq 10); do
	rmmod tcp_etc 2>/dev/null && { unloaded=yes; break; }
	sleep 1
done
tap_check "$([ $mid = refused ] && [ $frc = 0 ] && [ $unloaded = yes ] && echo 1)" \
	"rmmod during a flow refused, flow completes, rmmod after succeeds" \
	"during: $mid, iperf3 exit $frc, after: $unloaded"
insmod "$ko" || { tap_fail "re-insmod"; tap_done; }

# ---- the emulated link
# netlab_run TAG ARGS...: one netlab run on the 20 Mbit/s link, result in
# $RESULTS/TAG/result.json, its log as TAP comments.  --burst 5000
# is the bucket the thresholds below were set with; --no-ecn leaves
# tcp_ecn at the kernel's default, as before.
netlab_run() {
	local tag=$1 rc
	shift
	rm -rf "${RESULTS:?}/$tag"
	"$NETLAB" run --rate "${RATE_MBIT}mbit" --rtt "${DELAY_MS}ms" --buffer 1bdp --qdisc tbf \
		--burst 5000 --sender-gso --no-ecn --warmup $OMIT --out "$RESULTS/$tag" "$@" \
		>/dev/null 2>"$RESULTS/$tag.log"
	rc=$?
	[ $rc = 0 ] || tap_diag "netlab run $tag failed (exit $rc):"
	tap_diag "$(grep -v '^netlab: result' "$RESULTS/$tag.log")"
}

# the link for the burst cases: no shaper (it would re-space them), the
# delay on the receiver's egress (ACK path)
setup_link() {
	local n
	for n in $NS_S $NS_R $NS_C; do ip netns del $n 2>/dev/null; ip netns add $n; ip -n $n link set lo up; done
	ip link add s0 netns $NS_S type veth peer name r0 netns $NS_R
	ip link add r1 netns $NS_R type veth peer name c0 netns $NS_C
	ip -n $NS_S addr add 10.10.1.1/24 dev s0
	ip -n $NS_R addr add 10.10.1.2/24 dev r0
	ip -n $NS_R addr add 10.10.2.1/24 dev r1
	ip -n $NS_C addr add 10.10.2.2/24 dev c0
	for n in "$NS_S s0" "$NS_R r0" "$NS_R r1" "$NS_C c0"; do
		set -- $n
		ip -n "$1" link set "$2" up
	done
	ip -n $NS_S route add default via 10.10.1.2
	ip -n $NS_C route add default via 10.10.2.1
	ip netns exec $NS_R sysctl -qw net.ipv4.ip_forward=1
	ip netns exec $NS_S ethtool -K s0 gro off >/dev/null 2>&1
	ip netns exec $NS_R ethtool -K r0 gro off gso off tso off >/dev/null 2>&1
	ip netns exec $NS_R ethtool -K r1 gro off gso off tso off >/dev/null 2>&1
	ip netns exec $NS_C ethtool -K c0 gro off gso off tso off >/dev/null 2>&1
	tc -n $NS_C qdisc add dev c0 root netem delay ${DELAY_MS}ms limit 100000
}

# run_flow CC SECS TAG [iperf3 options]: iperf3 JSON in $RESULTS/TAG.json
run_flow() {
	local cc=$1 secs=$2 tag=$3
	shift 3
	ip netns exec $NS_C iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.5
	ip netns exec $NS_S iperf3 -c 10.10.2.2 -p 5201 -t "$secs" -O $OMIT -i 0.2 -C "$cc" -J "$@" \
		>"$RESULTS/$tag.json" 2>&1
}

tracing=/sys/kernel/tracing
[ -d $tracing/events ] || mount -t tracefs nodev $tracing 2>/dev/null
ev=$tracing/events/tcp_etc/etc_update/enable
[ -f $ev ] && { echo >$tracing/trace; echo 1 >$ev; }

# ETC PAIRS times, each between two CUBIC runs, on the same link in one
# run: $OMIT s (the warm-up, left out of every figure) + $SECS s each, GAP s
# apart so a slow guest's late start does not overlap them.  ETC is judged
# on the median of its flows, the benchmark's measure: one 20 s run on 6.1
# ranges 84-93 % (Documentation/tcp_etc.rst); the floors hold for every
# flow.  Even flows are CUBIC, odd ones ETC.
FLOW_S=$((OMIT + SECS)) GAP=4
at() { echo $(($1 * (FLOW_S + GAP))); }
flows=()
for ((i = 0; i < NFLOWS; i++)); do
	cc=cubic
	[ $((i % 2)) = 1 ] && cc=etc
	flows+=(--flow "$cc,start=$(at $i),duration=$FLOW_S")
done
netlab_run etc-link "${flows[@]}" --duration $(($(at $((NFLOWS - 1))) + FLOW_S))
# Per flow, as printed: utilisation % (goodput rounded to 0.01 Mbit/s),
# goodput of the ETC flows, RTT p50 and p95; "-" when netlab has no figure.
exprs=()
for ((i = 0; i < NFLOWS; i++)); do
	for v in u a b m; do printf -v "$v$i" %s -; done
	exprs+=("u$i=round(100 * round(flows[$i].goodput_mbps, 2) / config.rate_mbps, 1)"
		"a$i=flows[$i].rtt.p50" "b$i=flows[$i].rtt.p95")
	if [ $((i % 2)) = 1 ]; then
		exprs+=("m$i=round(flows[$i].goodput_mbps, 2)")
	fi
done
base=0
netlab_check "$RESULTS/etc-link" "${exprs[@]}" 'base=config.rtt_ms'
# the figures as lists for judge(): utilisation, ETC goodput (- for CUBIC),
# RTT p50, RTT p95; and the utilisations of each CCA, as printed
l_u="" l_m="" l_a="" l_b="" c_all="" e_all=""
for ((i = 0; i < NFLOWS; i++)); do
	u=u$i a=a$i b=b$i m=m$i
	l_u="$l_u ${!u}" l_m="$l_m ${!m}" l_a="$l_a ${!a}" l_b="$l_b ${!b}"
	if [ $((i % 2)) = 1 ]; then
		e_all="$e_all${e_all:+, }${!u}"
	else
		c_all="$c_all${c_all:+, }${!u}"
	fi
done
# judge GATE FLOOR: the ETC flows judged, those that reached FLOOR % of the
# link or whose CUBIC neighbours both reached GATE %, as "n e_util e_min
# e_mbit e_p50max c_p50min e_p95 c_p95 each" (medians of the flows judged;
# n = -1 when a figure is missing).
judge() {
	awk -v g="$1" -v f="$2" -v nf="$NFLOWS" -v u="$l_u" -v m="$l_m" -v a="$l_a" -v b="$l_b" '
	function med(x, n,  i, j, t) {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	BEGIN {
		split(u, U); split(m, M); split(a, A); split(b, B)
		for (i = 1; i <= nf; i++)
			if (U[i] A[i] B[i] !~ /^[0-9.]+$/) { print "-1 0 0 0 0 0 0 0 -"; exit }
		n = 0; emin = 1e9; ep50 = 0; cp50 = 1e9; each = ""
		for (i = 2; i < nf; i += 2) {
			if (U[i] + 0 < f && (U[i - 1] + 0 < g || U[i + 1] + 0 < g))
				continue
			n++; eu[n] = U[i] + 0; em[n] = M[i] + 0; ep[n] = B[i] + 0
			each = each (each == "" ? "" : ", ") U[i]
			if (U[i] + 0 < emin) emin = U[i] + 0
			if (A[i] + 0 > ep50) ep50 = A[i] + 0
			if (A[i - 1] + 0 < cp50) cp50 = A[i - 1] + 0
			if (A[i + 1] + 0 < cp50) cp50 = A[i + 1] + 0
		}
		nc = (nf + 1) / 2
		for (i = 1; i <= nc; i++) cp[i] = B[2 * i - 1] + 0
		if (n == 0) { print "0 0 0 0 0 0 0 " med(cp, nc) " -"; exit }
		printf "%d %.1f %.1f %.2f %s %s %.3f %.3f %s\n", n, med(eu, n), emin, med(em, n),
			ep50, cp50, med(ep, n), med(cp, nc), each
	}'
}
tap_diag "link ${RATE_MBIT} Mbit/s, ${DELAY_MS} ms, limit $LIMIT B (1 BDP); ${SECS} s flows after ${OMIT} s omitted; RTT: tcp_info srtt every 100 ms"
for ((i = 0; i < NFLOWS; i++)); do
	u=u$i a=a$i b=b$i
	tap_diag "flow $i: ${!u} %, RTT p50 ${!a} ms, p95 ${!b} ms; $(flow_evidence "$RESULTS/etc-link/result.json" $i)"
done

# CUBIC is the yardstick of the emulation itself: when even CUBIC cannot
# fill the link, the guest is starved of CPU (a TCG guest on a shared
# host) and neither utilisation nor RTT says anything about ETC.  So an
# ETC flow that misses a threshold is left out when a CUBIC flow right
# before or after it missed the gate: load that comes and goes on a CI
# host (one rehearsal saw ETC 83.5, 83.6, 88.7 % after a single CUBIC
# control at 91.2 %, and 88.7-89.8 % with CUBIC 91.6 % alone right
# after) then takes out the flows it hit, and a flow that reached the
# threshold always counts.  The floors (utilisation >= 50 %, RTT median
# below CUBIC's) catch a broken sender; their gate is 80 %.  The issue's
# targets (>= 85 %, p95 well below CUBIC's, here <= 0.8 x) take the
# median of the flows left, at least two, with a gate of 90 %: in a
# quiet guest CUBIC reaches 93-95 %, while with about 20 % of the host's
# CPU stolen CUBIC still got 86-94 % but ETC 74-89 %.  ETC keeps little
# queue, so a sender stall idles the link where CUBIC's full buffer
# covers it; such a miss measures the emulator, not ETC.  20 s flows (not
# 10) keep one drain or stall from deciding the result.  With the guest
# on the TSC (scripts/vm) both kernels gave 92.7-93.5 % and p95 0.64-0.68
# x CUBIC's, but CI's hosts gave 0.70-0.91 x: a few stalled samples set
# ETC's p95, so that target is a TODO here and a hard target in the
# benchmark (Documentation/tcp_etc.rst).
read -r n80 _ e_min _ e_p50 c_p50 _ _ each80 <<<"$(judge 80 50)"
if [ "$n80" -lt 0 ]; then
	tap_fail "etc utilisation >= 50 % of ${RATE_MBIT} Mbit/s in every flow (floor)" "no figures: cubic $c_all %, etc $e_all %"
	tap_fail "etc RTT p50 below cubic's in every flow (floor)" "no figures"
elif [ "$n80" -gt 0 ]; then
	tap_check "$(fge "$e_min" 50)" "etc utilisation >= 50 % of ${RATE_MBIT} Mbit/s in every flow (floor)" \
		"judged $each80 % of $e_all % (cubic $c_all %)"
	tap_check "$(awk -v e="$e_p50" -v c="$c_p50" 'BEGIN { print (e > 0 && e < c) ? 1 : 0 }')" \
		"etc RTT p50 below cubic's in every flow (floor)" "etc highest ${e_p50} ms, cubic lowest ${c_p50} ms"
else
	why="emulated link too slow: every etc flow under 50 % beside a cubic flow under 80 % (cubic $c_all %; guest starved of CPU)"
	tap_skip "etc utilisation >= 50 % of ${RATE_MBIT} Mbit/s in every flow (measured $e_all %)" "$why"
	tap_skip "etc RTT p50 below cubic's in every flow" "$why"
fi
read -r n90 e_util _ _ _ _ e_p95 c_p95 each90 <<<"$(judge 90 85)"
if [ "$PAIRS" -lt 2 ]; then
	why="one etc flow ($e_all %; cubic $c_all %): the targets take the median of 2 or more, judged without CC_TEST_SHORT=1"
	tap_skip "etc utilisation >= 85 % of ${RATE_MBIT} Mbit/s (median of the flows judged)" "$why"
	tap_skip "etc RTT p95 <= 0.8 x cubic's" "$why"
elif [ "$n90" -lt 0 ]; then
	tap_fail "etc utilisation >= 85 % of ${RATE_MBIT} Mbit/s (median of the flows judged)" "no figures"
	tap_todo 0 "etc RTT p95 <= 0.8 x cubic's" "no figures"
elif [ "$n90" -ge 2 ]; then
	tap_check "$(fge "$e_util" 85)" "etc utilisation >= 85 % of ${RATE_MBIT} Mbit/s (median of the flows judged)" \
		"${e_util} %, judged $each90 % of $e_all % (cubic $c_all %)"
	tap_todo "$(awk -v e="$e_p95" -v c="$c_p95" 'BEGIN { print (e > 0 && e <= 0.8 * c) ? 1 : 0 }')" \
		"etc RTT p95 <= 0.8 x cubic's" "etc ${e_p95} ms, cubic ${c_p95} ms (medians)" \
		"guest stalls reach the tail: 0.70-0.91 x in CI runs (Documentation/tcp_etc.rst)"
else
	why="emulated link too slow for the targets: $n90 etc flows at >= 85 % or between two cubic flows at >= 90 % (cubic $c_all %), 2 needed"
	tap_skip "etc utilisation >= 85 % of ${RATE_MBIT} Mbit/s (etc $e_all %)" "$why"
	tap_skip "etc RTT p95 <= 0.8 x cubic's" "$why"
fi
# ETC's own figures over all three flows: its loss-free goodput for the
# loss case below, and the delay for the benchmark's target
read -r _ _ _ e_mbit _ _ e_p95all _ <<<"$(judge 0 0)"
above=$(awk -v e="$e_p95all" -v b="$base" 'BEGIN { printf "%.1f", e - b }')
tap_diag "etc RTT p95 - base: $above ms (benchmark target <= 10 ms)"

if [ -f $ev ]; then
	echo 0 >$ev
	grep etc_update $tracing/trace >"$RESULTS/etc-trace.txt"
	nev=$(wc -l <"$RESULTS/etc-trace.txt")
	tap_check "$([ "$nev" -gt 0 ] && echo 1)" "tracepoint tcp_etc:etc_update fires on rate updates" \
		"$nev events; $(grep -c 'ev=increase' "$RESULTS/etc-trace.txt") increase, $(grep -c 'ev=drain' "$RESULTS/etc-trace.txt") drain, $(grep -c 'ev=decrease' "$RESULTS/etc-trace.txt") decrease"
else
	tap_skip "tracepoint tcp_etc:etc_update fires on rate updates" "no tracefs"
fi

# ---- 1 % random loss (on the data path, ahead of the bottleneck): the
# flow keeps going
netlab_run etc-loss --loss 1% --flow etc --duration $((OMIT + 6)) --interval 1
[[ $e_mbit =~ ^[0-9]+(\.[0-9]+)?$ ]] || e_mbit=0
# the slowest whole 1 s bin after the omitted start; both rounded as printed
l_mbit=0 l_min=0 l_ok=0 m_ok=0
netlab_check "$RESULTS/etc-loss" --set "e=$e_mbit" \
	'l_mbit=round(flows[0].goodput_mbps, 2)' \
	'l_min=round(min(during(flows[0].goodput_series, flows[0].window_s[0], flows[0].window_s[1] - run.interval_s)), 2)' \
	'l_ok=round(flows[0].goodput_mbps, 2) > 0 and round(flows[0].goodput_mbps, 2) >= 0.5 * e' \
	'm_ok=round(min(during(flows[0].goodput_series, flows[0].window_s[0], flows[0].window_s[1] - run.interval_s)), 2) > 1'
# relative to ETC's own loss-free goodput in this run, so a slow guest does
# not fail it (CUBIC loses far more than half at 1 % loss)
tap_check "$l_ok" \
	"1 % loss: etc keeps >= 50 % of its loss-free goodput" "${l_mbit} Mbit/s with loss, ${e_mbit} without"
tap_check "$m_ok" "1 % loss: no 1 s interval stalls (> 1 Mbit/s each)" "slowest interval ${l_min} Mbit/s"

# ---- bursts of N at the receiver: no shaper (it would re-space them),
# the rate held at 40 % of 20 Mbit/s with SO_MAX_PACING_RATE so bursts are
# separated; packets less than 1 ms apart belong to the same group.  The
# groups are counted over the whole flow after its first 600 packets
# (0.9 s): a round that loses heavily halves N for 15 rounds by design,
# and a guest stalled on its host has such rounds without any loss (RACK
# marks the packets held up in netem lost, then sees them arrive), so a
# window shorter than 15 rounds could hold only the halved bursts.
setup_link
gap_us=1000
fq=8M
for n in 8 4; do
	echo $n >$P/burst
	ip netns exec $NS_C tcpdump -i c0 -nn -tt -Q in -c 4000 'tcp and src host 10.10.1.1 and greater 1000' \
		>"$RESULTS/burst$n.txt" 2>/dev/null &
	tpid=$!
	run_flow etc 3 "etc-burst$n" --fq-rate "$fq"
	kill -INT $tpid 2>/dev/null; wait $tpid 2>/dev/null
	rtx=$(jq -r '.end.sum_sent.retransmits // "?"' "$RESULTS/etc-burst$n.json" 2>/dev/null)
	med=$($PY - "$RESULTS/burst$n.txt" "$gap_us" <<'EOF'
import sys
ts = [float(l.split()[0]) for l in open(sys.argv[1]) if l[:1].isdigit()]
ts = ts[600:]                   # after start-up
gap = float(sys.argv[2]) / 1e6
sizes, n = [], 1
for a, b in zip(ts, ts[1:]):
    if b - a <= gap:
        n += 1
    else:
        sizes.append(n); n = 1
# the most common group size: an skb sent before it was filled (end of
# an application write) makes a smaller group now and then
print(max(set(sizes), key=sizes.count) if sizes else 0, len(sizes))
EOF
)
	read -r msize ngroups <<<"$med"
	tap_check "$([ "${msize:-0}" = $n ] && echo 1)" "burst=$n: receiver sees packets grouped in $n (most common group size)" \
		"mode ${msize:-?} over ${ngroups:-0} groups, gap < ${gap_us} us, ${rtx:-?} retransmitted"
done
echo 8 >$P/burst

# ---- finally the module unloads cleanly
cleanup
trap - EXIT
unloaded=no
for _ in $(seq 10); do
	rmmod tcp_etc 2>/dev/null && { unloaded=yes; break; }
	sleep 1
done
tap_check "$([ $unloaded = yes ] && echo 1)" "tcp_etc unloads at the end" "$unloaded"
tap_done
