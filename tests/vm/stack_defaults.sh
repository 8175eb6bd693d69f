#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stack_defaults: every module on the stack a server runs, not the lab's
# one-packet-per-skb links.  netlab --offloads kernel leaves TSO and GSO
# as veth has them (on), --receiver-gro turns GRO on at the receiver (so
# it sends stretched ACKs) and the senders' root qdisc is fq_codel, the
# default_qdisc systemd sets.  On the 20 Mbit/s, 40 ms, 1 BDP drop-tail
# link, CUBIC, ETC, PCC and pad_bbr run one after another in one run,
# then ABC through sch_abc in a second, again with "split_gso off" in a
# third, and with fq instead of fq_codel on its sender in a fourth (fq
# paces every socket at its sk_pacing_rate, which tcp_abc must keep up to
# date itself, having a cong_control): each must fill the link as CUBIC
# does (a floor of 0.8 x
# CUBIC's goodput; for PCC a TODO, with 0.5 as the hard floor), and ETC
# and ABC must keep their delay below CUBIC's, which is what they are
# for.  The super-packets reach ETC's burst timing, PCC's interval
# accounting, sch_abc's per-packet marks (it splits them by default, and
# marks them whole with split_gso off: the bottleneck's skbs against the
# qdisc's segments tell which) and PAD's rate samples.  A short fifth ABC
# run configures sch_abc at 2 Gbit/s, which the guest does not reach: the
# default, split_gso auto, must keep GSO packets whole there.
#
# The goodput floors are judged only when CUBIC fills 80 % of the link,
# so a slow guest skips them instead of failing, and a flow the guest
# did not send as fast as the CCA paced it (short_of_pacing in lib.sh)
# is skipped with its numbers.
#
# vm-timeout: 420
. "$(dirname "$0")/lib.sh"
require_root
require_tools iperf3 tc jq
NETLAB=$TOP/scripts/netlab
SECS=${STACK_SECS:-14}
OMIT=4
GAP=3
RATE=20

tap_plan 18

loaded=()
load() {
	local mod=$1
	shift
	grep -q "^$mod " /proc/modules && return 0
	if [ -f "$MODDIR/$mod/$mod.ko" ]; then
		insmod "$MODDIR/$mod/$mod.ko" "$@" || return 1
	else
		modprobe "$mod" || return 1
	fi
	loaded=("$mod" "${loaded[@]}")
}
unload_all() {
	local m
	for m in "${loaded[@]}"; do rmmod "$m" 2>/dev/null; done
}
trap unload_all EXIT

err=""
for spec in tcp_etc tcp_pcc tcp_bbr "pad_shim inner=bbr" sch_abc tcp_abc; do
	# shellcheck disable=SC2086
	load $spec || err="$err ${spec%% *}"
done
if [ -n "$err" ]; then
	tap_fail "load the modules" "failed:$err"
	tap_done
fi

# stack_run TAG ARGS...: netlab on the stack's defaults, $RESULTS/TAG
stack_run() {
	local tag=$1 rc
	shift
	rm -rf "${RESULTS:?}/$tag"
	"$NETLAB" run --rate ${RATE}mbit --rtt 40ms --buffer 1bdp --offloads kernel \
		--receiver-gro --sender-qdisc fq_codel --warmup $OMIT --out "$RESULTS/$tag" "$@" \
		>/dev/null 2>"$RESULTS/$tag.log"
	rc=$?
	[ $rc = 0 ] || tap_diag "netlab run $tag failed (exit $rc):"
	tap_diag "$(grep -v '^netlab: result' "$RESULTS/$tag.log")"
	return $rc
}

ccas=(cubic etc pcc pad_bbr)
flows=()
for i in "${!ccas[@]}"; do
	flows+=(--flow "${ccas[$i]},start=$((i * (SECS + GAP))),duration=$SECS")
done
stack_run stack-tbf --qdisc tbf "${flows[@]}" --duration $((4 * SECS + 3 * GAP))
stack_run stack-abc --qdisc abc --ecn --flow abc --duration "$SECS"
stack_run stack-abc-whole --qdisc abc --qdisc-args "split_gso off" --ecn --flow abc \
	--duration "$SECS"
# the last --sender-qdisc wins
stack_run stack-abc-fq --qdisc abc --ecn --flow abc --duration "$SECS" --sender-qdisc fq
# the last bandwidth wins too (tc takes an option given twice once, the last)
stack_run stack-abc-auto --qdisc abc --qdisc-args "bandwidth 2gbit" --ecn --flow abc \
	--duration 6

# The mode is what it claims: super-packets leave the senders and the
# receiver aggregates.
seen=$(jq -r '.config.offloads_seen | "sender tso \(.sender.tso) gso \(.sender.gso), receiver gro \(.receiver.gro)"' \
	"$RESULTS/stack-tbf/result.json" 2>/dev/null)
tap_check "$([ "$seen" = "sender tso true gso true, receiver gro true" ] && echo 1)" \
	"offloads as the kernel sets them, GRO at the receiver" "${seen:-no result}"

mbit=() p95=()
for i in "${!ccas[@]}"; do
	m=0 r=0
	netlab_check "$RESULTS/stack-tbf" "m=round(flows[$i].goodput_mbps, 2)" "r=flows[$i].rtt.p95"
	mbit+=("$m") p95+=("$r")
done
m=0 r=0
netlab_check "$RESULTS/stack-abc" 'm=round(flows[0].goodput_mbps, 2)' 'r=flows[0].rtt.p95'
ccas+=(abc) mbit+=("$m") p95+=("$r")
m=0 r=0
netlab_check "$RESULTS/stack-abc-whole" 'm=round(flows[0].goodput_mbps, 2)' 'r=flows[0].rtt.p95'
ccas+=("abc (split_gso off)") mbit+=("$m") p95+=("$r")
m=0 r=0
netlab_check "$RESULTS/stack-abc-fq" 'm=round(flows[0].goodput_mbps, 2)' 'r=flows[0].rtt.p95'
ccas+=("abc (fq on the sender)") mbit+=("$m") p95+=("$r")

# Segments the qdisc sent per skb the bottleneck device sent: 1 when
# sch_abc splits GSO packets, the senders' GSO size when it keeps them.
segs_per_skb() {
	jq -r '.bottleneck | if (.skbs // 0) > 0 and (.packets // 0) > 0
		then "\(.packets / .skbs * 100 | round / 100) \(.packets) segments, \(.skbs) skbs"
		else "0 no counts" end' "$1/result.json" 2>/dev/null || echo "0 no result"
}
read -r ratio detail <<<"$(segs_per_skb "$RESULTS/stack-abc")"
tap_check "$(fin "$ratio" 0.99 1.01)" "abc: sch_abc splits GSO packets by default" \
	"$ratio segments per skb: $detail"
read -r ratio detail <<<"$(segs_per_skb "$RESULTS/stack-abc-whole")"
tap_check "$(fge "$ratio" 1.3)" "abc: split_gso off keeps GSO packets whole" \
	"$ratio segments per skb: $detail"
b=$(jq -r '[.bottleneck.tc[]? | select(.kind == "abc") | .brakes] | first // 0' \
	"$RESULTS/stack-abc-whole/result.json" 2>/dev/null)
a=$(jq -r '[.bottleneck.tc[]? | select(.kind == "abc") | .accelerates] | first // 0' \
	"$RESULTS/stack-abc-whole/result.json" 2>/dev/null)
tap_check "$([ "${a:-0}" -gt 0 ] && [ "${b:-0}" -gt 0 ] && echo 1)" \
	"abc: split_gso off still marks accelerates and brakes" "accelerates $a, brakes $b"
read -r ratio detail <<<"$(segs_per_skb "$RESULTS/stack-abc-auto")"
tap_check "$(fge "$ratio" 1.3)" "abc: split_gso auto keeps GSO packets whole above 1 Gbit/s" \
	"$ratio segments per skb: $detail"
a=$(jq -r '[.bottleneck.tc[]? | select(.kind == "abc") | .accelerates] | first // 0' \
	"$RESULTS/stack-abc-auto/result.json" 2>/dev/null)
tap_check "$([ "${a:-0}" -gt 0 ] && echo 1)" \
	"abc: split_gso auto above 1 Gbit/s marks accelerates" "accelerates $a"

# CUBIC is the control: it must fill the link for the floors to mean
# anything in this guest.
c_util=$(awk -v m="${mbit[0]}" -v r=$RATE 'BEGIN { printf "%.1f", 100 * m / r }')
tap_check "$(fge "$c_util" 50)" "cubic runs on the stack's defaults" \
	"${mbit[0]} Mbit/s ($c_util % of $RATE), RTT p95 ${p95[0]} ms"
guest_ok=$(fge "$c_util" 80)

# PCC's 0.8 is a known miss (Documentation/tcp_pcc.rst): its gradient
# rounds settle near 0.9 x CUBIC in this guest, one run in six at 0.80,
# and one CI rehearsal got 0.70.  Half of CUBIC's catches a broken module.
floor() { fge "${mbit[$1]}" "$(awk -v c="${mbit[0]}" -v f="$2" 'BEGIN { print f * c }')"; }
for i in 1 2 3 4 5 6; do
	what="${ccas[$i]}: goodput >= 0.8 x cubic's on the stack's defaults"
	detail="${mbit[$i]} Mbit/s against ${mbit[0]}, RTT p95 ${p95[$i]} ms"
	whats=("$what")
	[ "${ccas[$i]}" = pcc ] && whats=("pcc: goodput >= 0.5 x cubic's on the stack's defaults" "$what")
	# ABC is not paced: its sk_pacing_rate is the stack's 2 x cwnd / srtt,
	# which it never reaches, so short_of_pacing does not apply to it (nor
	# to CUBIC); guest_ok below guards both.
	stalled=
	[ "$i" -lt 4 ] && stalled=$(short_of_pacing "$RESULTS/stack-tbf/result.json" "$i" 50)
	if [ -n "$stalled" ]; then
		for w in "${whats[@]}"; do tap_skip "$w" "guest stalled: $stalled ($detail)"; done
	elif [ "$guest_ok" != 1 ]; then
		for w in "${whats[@]}"; do
			tap_skip "$w" "cubic got $c_util % of the link: guest too slow ($detail)"
		done
	elif [ "${ccas[$i]}" = pcc ]; then
		tap_check "$(floor "$i" 0.5)" "${whats[0]}" "$detail"
		tap_todo "$(floor "$i" 0.8)" "$what" "$detail" \
			"PCC settles near 0.9 x cubic here, at times lower (tcp_pcc.rst)"
	else
		tap_check "$(floor "$i" 0.8)" "$what" "$detail"
	fi
done

for i in 1 4 5 6; do
	tap_check "$([ "$(fle "${p95[$i]}" 0)" = 0 ] && fle "${p95[$i]}" "${p95[0]}")" \
		"${ccas[$i]}: RTT p95 at most cubic's on the stack's defaults" \
		"${p95[$i]} ms against ${p95[0]} ms"
done
tap_done
