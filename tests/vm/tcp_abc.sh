#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_abc in a guest: load, selection (sysctl, iperf3 -C abc), ECN
# negotiated, the receiver's precise CE echo, brakes that never halve the
# window, the Eq. 3 steady state under a constant brake fraction, the
# non-ECN fallback, a legacy (threshold) ECN marker, AccECN feedback from
# a receiver that does not run abc (7.x kernels; skipped before), the
# paper's ECT(1) encoding (7.x; before, its parameter is refused), and
# rmmod after use.
# ABC over a real sch_abc bottleneck is tcp_abc_e2e.sh.
#
# The path is scripts/netlab's (sender ns -- router ns -- receiver ns,
# htb bottleneck on the router, delay on the ACK path, RPS so veth never
# reorders).  netlab builds it and runs a first flow; the namespaces are
# kept and the bottleneck's leaf queue is swapped for each stand-in CE
# marker:
#  - netem "loss random P% ecn": CE on a random fraction P of packets,
#    i.e. an ABC router with a constant accelerate fraction f = 1 - P.
#    Eq. 3's steady state is w* = 1 / (1 - 2f) packets (sec. 3.1.3);
#    with random marks w is a random walk around it whose per-ACK
#    distribution is about w^2 exp(-2w/w*), mean 1.5 w*, and whose
#    harmonic mean over acknowledged packets is w* itself.
#  - fq_codel ce_threshold: a classic step marker (legacy ECN).
source "$(dirname "$0")/lib.sh"
require_root
require_tools iperf3 ss nstat python3

ko=$MODDIR/tcp_abc/tcp_abc.ko
NETLAB=$TOP/scripts/netlab
PREFIX=abct
PORT=5301
SECS=${ABC_SECS:-6}
MARK_PCT=60		# CE fraction of the netem marker: f = 0.4, w* = 5
tracing=/sys/kernel/tracing

tap_plan 22

if [ ! -f "$ko" ]; then
	tap_fail "tcp_abc built for $KVER" "no $ko (make modules-all)"
	tap_done
fi
rmmod tcp_abc 2>/dev/null

old_cc=$(sysctl -n net.ipv4.tcp_congestion_control)
cleanup() {
	kill $(jobs -p) 2>/dev/null
	"$NETLAB" teardown --all --prefix $PREFIX >/dev/null 2>&1
	ip netns del abct-lo 2>/dev/null
	sysctl -qw net.ipv4.tcp_congestion_control="$old_cc"
	[ -f $tracing/events/tcp_abc/abc_update/enable ] &&
		echo 0 >$tracing/events/tcp_abc/abc_update/enable
}
trap cleanup EXIT

# ---- 1-2: load and register (19: the ECT(1) parameter, checked below)
accecn=0
[ -e /proc/sys/net/ipv4/tcp_ecn_option ] && accecn=1
if [ $accecn = 0 ]; then
	insmod "$ko" ect1=1 >/dev/null 2>&1 && { ect1_bad=loaded; rmmod tcp_abc; }
	ect1_msg=$(dmesg | grep -o 'tcp_abc: ect1=1 needs.*' | tail -n 1)
fi
if ! err=$(insmod "$ko" 2>&1); then
	tap_fail "insmod tcp_abc" "$err"
	tap_done
fi
tap_ok "insmod tcp_abc"
avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
tap_check "$(grep -qw abc <<<"$avail" && echo 1)" "abc registered" "available: $avail"

# ---- 3: selection by sysctl in a namespace
ip netns add abct-lo
ip netns exec abct-lo sysctl -qw net.ipv4.tcp_congestion_control=abc
got=$(ip netns exec abct-lo sysctl -n net.ipv4.tcp_congestion_control)
ip netns del abct-lo
tap_check "$([ "$got" = abc ] && echo 1)" "sysctl tcp_congestion_control=abc in a netns" "read back: $got"

# Namespaces inherit the initial namespace's default: the receiver of
# every netlab run below uses abc too (it must, to echo CE per packet).
sysctl -qw net.ipv4.tcp_congestion_control=abc

[ -d $tracing/events ] || mount -t tracefs nodev $tracing 2>/dev/null
ev=$tracing/events/tcp_abc/abc_update/enable
if [ -f $ev ]; then
	echo 4096 >$tracing/buffer_size_kb
	echo >$tracing/trace
	echo 1 >$ev
fi

# ---- 4: netlab builds the path and runs abc over droptail (no marker)
out=$RESULTS/abc-droptail
"$NETLAB" run --qdisc htb --rate 20mbit --rtt 20ms --buffer 2bdp --flow abc \
	--duration 2 --keep --prefix $PREFIX --out "$out" >"$out.log" 2>&1
S=$(ip netns list | awk '{print $1}' | grep -m1 "^$PREFIX.*-s0$")
R=${S%-s0}-r
D=${S%-s0}-d
util=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["utilisation"])' \
	"$out/result.json" 2>/dev/null)
# Only that the path is up and abc moves data: 2 s is too short for a
# utilisation figure (CUBIC is the goodput reference further down).
tap_check "$([ -n "$S" ] && [ "$(fge "${util:-0}" 0.1)" = 1 ] && echo 1)" \
	"netlab path up; abc (iperf3 -C abc) over 20 Mbit/s droptail, no marker, transfers" \
	"utilisation ${util:-none}, namespaces ${S:-none}"
if [ -z "$S" ]; then
	tap_diag "$(tail -n 20 "$out.log")"
	tap_done
fi

nsx() { local n=$1; shift; ip netns exec "$n" "$@"; }
# ip_ext counters of the receiver namespace: "CE ECT NoECT ECT1", where
# ECT counts ECT(0) and ECT(1)
rx_ecn() {
	nsx "$D" nstat -asz IpExtInCEPkts IpExtInECT0Pkts IpExtInNoECTPkts IpExtInECT1Pkts |
		awk '/IpExtInCEPkts/ {c=$2} /IpExtInECT0Pkts/ {e=$2} /IpExtInNoECTPkts/ {n=$2}
		     /IpExtInECT1Pkts/ {o=$2} END {print c+0, e+o, n+0, o+0}'
}
# leaf QDISC...: the bottleneck's queue under htb class 1:1 (a new handle
# each time: replace cannot change the kind of an existing handle)
leaf_n=20
leaf() {
	leaf_n=$((leaf_n + 1))
	nsx "$R" tc qdisc replace dev dst parent 1:1 handle $leaf_n: "$@"
}

# run_flow NAME SECS [CCA]: one iperf3 flow over the kept path (data
# connection from port $CPORT); ss samples of the sender into
# $RESULTS/NAME.ss, iperf3 JSON into NAME.json, our tracepoint events of
# the flow into NAME.trace.
CPORT=5302
run_flow() {
	local name=$1 secs=$2 cca=${3:-abc} end
	[ -f $ev ] && echo >$tracing/trace
	nsx "$D" iperf3 -s -1 -D -B 10.20.0.2 -p $PORT >/dev/null 2>&1
	sleep 0.5
	nsx "$S" iperf3 -c 10.20.0.2 -p $PORT --cport $CPORT -C "$cca" -t "$secs" -J \
		>"$RESULTS/$name.json" 2>&1 &
	local cpid=$!
	: >"$RESULTS/$name.ss"
	end=$(( $(date +%s) + secs + 30 ))
	while kill -0 $cpid 2>/dev/null && [ "$(date +%s)" -lt $end ]; do
		nsx "$S" ss -tinH src :$CPORT | tr '\n' ' ' | sed 's/$/\n/' |
			grep 'cwnd:' >>"$RESULTS/$name.ss"
		sleep 0.25
	done
	wait $cpid 2>/dev/null
	grep abc_update $tracing/trace 2>/dev/null | grep "sport=$CPORT " >"$RESULTS/$name.trace"
}
gp_mbit() {
	python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]/1e6, 2))' \
		"$RESULTS/$1.json" 2>/dev/null || echo 0
}
# tfield NAME KEY: the values of KEY=N in NAME's trace, one a line
tfield() { grep -o " $2=[-0-9]*" "$RESULTS/$1.trace" | sed 's/.*=//'; }

# mark_run NAME: one abc flow behind the CE marker.  Sets ce and ect
# (packets the receiver got), accel, brake and tot (what the sender
# counted, from its last trace event), last (that event), frac_s and
# frac_r (the brake fraction at each end), and brakes_match (1 when the
# sender's brakes are the receiver's CE count within 5 %: retransmissions
# and the handshake make a few packets of slack).
mark_run() {
	local ce0 ect0 ce1 ect1 e10 e11
	read -r ce0 ect0 _ e10 < <(rx_ecn)
	run_flow "$1" "$SECS"
	read -r ce1 ect1 _ e11 < <(rx_ecn)
	e1=$((e11 - e10))
	last=$(tail -n 1 "$RESULTS/$1.trace")
	accel=$(sed -n 's/.* accel=\([0-9]*\) .*/\1/p' <<<"$last")
	brake=$(sed -n 's/.* brake=\([0-9]*\) .*/\1/p' <<<"$last")
	accel=${accel:-0} brake=${brake:-0}
	ce=$((ce1 - ce0)) ect=$((ect1 - ect0)) tot=$((accel + brake))
	frac_s=$(awk -v b="$brake" -v t="$tot" 'BEGIN {printf "%.3f", t ? b / t : 0}')
	frac_r=$(awk -v c=$ce -v e=$ect 'BEGIN {printf "%.3f", c + e ? c / (c + e) : 0}')
	brakes_match=$([ "$brake" -gt 100 ] && [ $ce -gt 100 ] &&
		[ $(( (brake - ce) * (brake - ce) * 400 )) -le $(( ce * ce )) ] && echo 1)
}

# ---- 5-10: a constant-fraction CE marker (stand-in ABC router, f = 0.4)
leaf netem loss random ${MARK_PCT}% ecn limit 1000
mark_run abc-mark
mark_ect=$ect mark_e1=$e1
ssl=$(grep 'dctcp:' "$RESULTS/abc-mark.ss" | tail -n 1)
# dctcp:( rather than dctcp:fallback_mode: the socket runs ECN (RFC 3168
# or AccECN)
tap_check "$(grep -q 'dctcp:(' <<<"$ssl" && [ $((ce + ect)) -gt 200 ] && echo 1)" \
	"ECN negotiated (data arrive ECT/CE), ss -ti shows ABC's info" \
	"$(grep -o 'dctcp:([^)]*)\|delivered_ce:[0-9]*' <<<"$ssl" | tr '\n' ' ')ECT $ect (of which ECT(1) $e1) CE $ce received"
# The receiver's IP counters see every CE; the sender counts a brake per
# packet its ECE ACKs cover (on 7.x, where both ends ask for AccECN, per
# packet the ACE counter reports).
tap_check "$brakes_match" \
	"receiver echoes CE per packet: sender's brakes match the receiver's CE count within 5 %" \
	"brakes $brake of $tot acked, CE $ce of $((ce + ect)) received"
tap_check "$(fin "$frac_s" 0.55 0.65)" "brake fraction at the sender equals the marker's (0.60)" \
	"sender $frac_s, receiver $frac_r"
# ssthresh may change only at a loss, an RTO, an undo (or a legacy cut,
# which interleaved marks never trigger): brakes alone never touch it.
bad=$(awk '{ev = th = ""; for (i = 1; i <= NF; i++) {
		if ($i ~ /^ev=/) ev = substr($i, 4); if ($i ~ /^ssthresh=/) th = substr($i, 10) }
	   if (NR > 1 && th != prev && ev != "loss" && ev != "rto" && ev != "undo") n++
	   prev = th; nb += (ev == "brake") } END {print n + 0, nb + 0}' "$RESULTS/abc-mark.trace")
nloss=$(grep -c 'ev=loss\|ev=rto' "$RESULTS/abc-mark.trace")
tap_check "$(read -r nbad nbr <<<"$bad"; [ "$nbad" = 0 ] && [ "$nbr" -gt 100 ] && echo 1)" \
	"brakes never change ssthresh (no CWR halving)" \
	"ssthresh changes outside loss/RTO/undo: ${bad% *}, over ${bad#* } brake ACKs; $nloss losses/RTOs; last ssthresh $(tfield abc-mark ssthresh | tail -n 1)"
# Eq. 3 with f accelerates, w <- w + 1 + 1/w or w - 1 + 1/w per packet:
# over a stretch where w returns near where it started the steps sum to
# zero, so the packet-weighted harmonic mean of w is 1 / (1 - 2f), f as
# counted over the same stretch (the second half of the run).  The floor
# of 2 packets adds a few steps up, about 10 %: accept 0.75 .. 1.5 x.
# The per-ACK mean (about 1.5 w*) is only reported: a slow random walk's
# mean, it spreads too widely to judge.
read -r whm wstar wmean < <(awk '{for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
		n++; ak[n] = v["acked"]; cw[n] = v["cwnd"]; ac[n] = v["accel"]; br[n] = v["brake"]}
	END {lo = int(n / 2) + 1
		for (i = lo; i <= n; i++) if (cw[i] > 0) {p += ak[i]; inv += ak[i] / cw[i]; s += cw[i]; m++}
		a = ac[n] - ac[lo]; b = br[n] - br[lo]; f = a + b ? a / (a + b) : 0
		printf "%.2f %.2f %.1f\n", inv ? p / inv : 0, f < 0.49 ? 1 / (1 - 2 * f) : 50, m ? s / m : 0}' \
	"$RESULTS/abc-mark.trace")
tap_check "$(fin "$whm" "$(awk -v w="$wstar" 'BEGIN {print 0.75 * w}')" "$(awk -v w="$wstar" 'BEGIN {print 1.5 * w}')")" \
	"Eq. 3 steady state: harmonic mean of cwnd over ACKed packets is 1 / (1 - 2f)" \
	"harmonic mean $whm packets, 1/(1-2f) = $wstar over the second half of $(grep -c . "$RESULTS/abc-mark.trace") updates (per-ACK mean $wmean)"
nev=$(grep -c . "$RESULTS/abc-mark.trace")
tap_check "$([ "$nev" -gt 0 ] && echo 1)" "tracepoint tcp_abc:abc_update fires per window update" \
	"$nev events; last: ${last#*abc_update: }"

# ---- 11-13: non-ECN peer: the receiver neither negotiates ECN nor runs
# abc; CUBIC on the same path is the reference for the goodput.
leaf pfifo limit 66
nsx "$D" sysctl -qw net.ipv4.tcp_ecn=0
nsx "$D" sysctl -qw net.ipv4.tcp_congestion_control=cubic
run_flow cubic-noecn 5 cubic
read -r _ ect0 noect0 _ < <(rx_ecn)
run_flow abc-noecn 5
read -r _ ect1 noect1 _ < <(rx_ecn)
gpc=$(gp_mbit cubic-noecn)
gp=$(gp_mbit abc-noecn)
tap_check "$(fge "$gp" "$(awk -v c="$gpc" 'BEGIN {print c / 2}')")" \
	"non-ECN peer: abc falls back to CUBIC on w_nonabc, at least half of CUBIC's goodput on the same path" \
	"abc $gp Mbit/s, cubic $gpc Mbit/s (link 20)"
ssl=$(grep 'cwnd:' "$RESULTS/abc-noecn.ss" | tail -n 1)
tap_check "$(grep -q 'dctcp:fallback_mode' <<<"$ssl" && ! grep -q ' ecn ' <<<" $ssl " && echo 1)" \
	"non-ECN peer: no ECN on the connection, ss shows the fallback" \
	"$(grep -o ' abc[a-z-]* \| ecn \|dctcp:[a-z_]*' <<<" $ssl " | tr '\n' ' ')"
tap_check "$([ $((ect1 - ect0)) -le 3 ] && [ $((noect1 - noect0)) -gt 1000 ] && echo 1)" \
	"non-ECN peer: data packets are sent Not-ECT" \
	"received ECT $((ect1 - ect0)), Not-ECT $((noect1 - noect0))"
nsx "$D" sysctl -qw net.ipv4.tcp_ecn=1
nsx "$D" sysctl -qw net.ipv4.tcp_congestion_control=abc

# ---- 14-16: a legacy step marker (fq_codel ce_threshold): still responsive
leaf fq_codel limit 66 ce_threshold 2ms
run_flow abc-legacy 5
gp=$(gp_mbit abc-legacy)
mrtt=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["end"]["streams"][0]["sender"]; print(round(s["mean_rtt"]/1e3, 1))' \
	"$RESULTS/abc-legacy.json" 2>/dev/null)
# Hard: not held at the minimum window (2 packets per 20 ms RTT is 1.2
# Mbit/s).  A fifth of CUBIC's is what we want, not what abc reliably
# gets while the detector leaves this marker undecided
# (Documentation/tcp_abc.rst): a TODO case.
tap_check "$(fge "$gp" "$(awk -v c="$gpc" 'BEGIN {print c / 10}')")" \
	"legacy CE step marker (fq_codel ce_threshold 2ms): abc keeps transferring" \
	"goodput $gp Mbit/s (floor: 1/10 of CUBIC's $gpc on droptail), mean srtt ${mrtt:-?} ms (base 20 ms)"
tap_todo "$(fge "$gp" "$(awk -v c="$gpc" 'BEGIN {print c / 5}')")" \
	"legacy CE step marker: abc gets at least 1/5 of CUBIC's goodput" \
	"goodput $gp Mbit/s, 1/5 of CUBIC's: $(awk -v c="$gpc" 'BEGIN {printf "%.2f", c / 5}')" \
	"abc under a step marker swings between runs while the detector leaves it undecided"
nleg=$(grep -c 'legacy=1' "$RESULTS/abc-legacy.trace")
ncut=$(grep -c 'ev=legacy_cut' "$RESULTS/abc-legacy.trace")
# Known miss (Documentation/tcp_abc.rst): a 2 ms threshold toggles at
# packet scale, runs of 2-5 marks, which the detector leaves undecided.
tap_todo "$([ "$ncut" -gt 0 ] && echo 1)" \
	"legacy-ECN detector: a step marker's runs of CE switch w_nonabc to RFC 3168 cuts" \
	"$nleg of $(grep -c . "$RESULTS/abc-legacy.trace") updates in legacy mode, $ncut cuts" \
	"short runs of a 2 ms ce_threshold are not classified"

# ---- 17-18: AccECN (7.x) towards a receiver that does not run abc:
# CUBIC with net.ipv4.tcp_ecn=3 feeds back CE counts, and the sender
# takes its brakes from them (the marker of 5-10 again).
what16="AccECN, CUBIC receiver with tcp_ecn=3: sender's brakes match the receiver's CE count within 5 %"
what17="AccECN, CUBIC receiver: brake fraction at the sender equals the marker's (0.60)"
if ! nsx "$D" sysctl -qw net.ipv4.tcp_ecn=3 2>/dev/null; then
	tap_skip "$what16" "kernel without AccECN (net.ipv4.tcp_ecn=3 refused)"
	tap_skip "$what17" "kernel without AccECN"
else
	nsx "$D" sysctl -qw net.ipv4.tcp_congestion_control=cubic
	leaf netem loss random ${MARK_PCT}% ecn limit 1000
	mark_run abc-accecn
	ssl=$(grep -o 'dctcp:([^)]*)\|dctcp:fallback_mode' "$RESULTS/abc-accecn.ss" | tail -n 1)
	tap_check "$brakes_match" "$what16" \
		"brakes $brake of $tot acked, CE $ce of $((ce + ect)) received; $ssl"
	tap_check "$(fin "$frac_s" 0.55 0.65)" "$what17" "sender $frac_s, receiver $frac_r"
	nsx "$D" sysctl -qw net.ipv4.tcp_ecn=1
	nsx "$D" sysctl -qw net.ipv4.tcp_congestion_control=abc
fi

# ---- 19-21: the paper's encoding (sec. 4.2) where the kernel has
# AccECN's byte counters: data leave ECT(1), a brake is ECT(0) (sch_abc
# "ect1 on") or CE, and the sender counts the bytes the receiver got as
# ECT(0) or CE as brakes.  Before 7.x the parameter is refused.
what18="ect1: on by default with AccECN, refused (with a message) without"
what19="ECT(1) encoding: with AccECN at both ends abc's data leave ECT(1)"
what20="ECT(1) encoding behind sch_abc ect1 on: brakes arrive as ECT(0), not CE; the sender's brakes match them within 5 %"
if [ $accecn = 0 ]; then
	tap_check "$([ -z "${ect1_bad:-}" ] && [ -n "$ect1_msg" ] && echo 1)" "$what18" \
		"insmod ect1=1: ${ect1_bad:-refused}; dmesg: ${ect1_msg:-none}"
	tap_skip "$what19" "kernel without AccECN"
	tap_skip "$what20" "kernel without AccECN"
else
	p=$(cat /sys/module/tcp_abc/parameters/ect1 2>/dev/null)
	tap_check "$([ "$p" = Y ] && echo 1)" "$what18" "parameters/ect1: ${p:-none}"
	tap_check "$([ "${mark_e1:-0}" -gt 200 ] && [ $((mark_ect - mark_e1)) -le 3 ] && echo 1)" \
		"$what19" "received behind the CE marker (5-10): ECT(1) $mark_e1, ECT(0) $((mark_ect - mark_e1))"
	sabc=$MODDIR/sch_abc/sch_abc.ko
	if ! grep -q '^sch_abc ' /proc/modules && ! insmod "$sabc" 2>/dev/null; then
		tap_fail "$what20" "cannot load $sabc"
	elif ! leaf abc ect1 on limit 100; then
		tap_fail "$what20" "tc refused abc ect1 on (TC_LIB_DIR=${TC_LIB_DIR:-unset})"
	else
		read -r ce0 ect0 _ e10 < <(rx_ecn)
		run_flow abc-ect1 "$SECS"
		read -r ce1 ect1 _ e11 < <(rx_ecn)
		last=$(tail -n 1 "$RESULTS/abc-ect1.trace")
		brake=$(sed -n 's/.* brake=\([0-9]*\) .*/\1/p' <<<"$last")
		accel=$(sed -n 's/.* accel=\([0-9]*\) .*/\1/p' <<<"$last")
		brake=${brake:-0} accel=${accel:-0}
		ce=$((ce1 - ce0)) e1=$((e11 - e10)) e0=$((ect1 - ect0 - (e11 - e10)))
		st=$(nsx "$R" tc -s qdisc show dev dst | grep -o 'accelerates [0-9]* brakes [0-9]*' | head -n 1)
		tap_check "$([ $ce -le 3 ] && [ $e0 -gt 100 ] &&
			[ $(( (brake - e0) * (brake - e0) * 400 )) -le $(( e0 * e0 )) ] && echo 1)" "$what20" \
			"received ECT(1) $e1, ECT(0) $e0, CE $ce; sender: brakes $brake, accelerates $accel; sch_abc: ${st:-no stats}; $(gp_mbit abc-ect1) Mbit/s"
	fi
	leaf pfifo limit 66
	rmmod sch_abc 2>/dev/null
fi

# ---- 22: rmmod after use
"$NETLAB" teardown --all --prefix $PREFIX >/dev/null 2>&1
sysctl -qw net.ipv4.tcp_congestion_control="$old_cc"
[ -f $ev ] && echo 0 >$ev
ok=0
for _ in $(seq 50); do
	rmmod tcp_abc 2>/dev/null && { ok=1; break; }
	sleep 0.2
done
tap_check "$ok" "rmmod tcp_abc after use" "refcnt $(cat /sys/module/tcp_abc/refcnt 2>/dev/null || echo gone)"
tap_done
