#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# emu_loss: configured random loss is what the data path sees.
#
# 1% random loss (netem on the router's ingress ifb, i.e. on the data path
# before the bottleneck), one CUBIC flow for 15 s through 20 Mbit/s with a 10 ms RTT (short, so
# that enough packets are sent for a tight estimate).
# The loss stage's own counters (drops / packets) must show 0.5-1.5%, and so
# must TCP's retransmissions (retransmitted / sent data segments), after
# taking off any drops at the bottleneck queue.

. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools iperf3 tc jq

OUT=$RESULTS/emu_loss
rm -rf "$OUT"

tap_plan 3
if ! "$NETLAB" run --rate 20mbit --rtt 10ms --buffer 1bdp --loss 1% --flow cubic \
	--duration 15 --out "$OUT" 2>"$OUT.log"; then
	tap_fail "netlab run with 1% loss" "exit $?"
	tap_diag "$(cat "$OUT.log")"
	tap_done
fi
tap_ok "netlab run with 1% loss"
tap_diag "$(grep -v '^netlab: result' "$OUT.log")"

res=$OUT/result.json
pkts=$(jq -r .loss_stage.packets "$res")
drops=$(jq -r .loss_stage.drops "$res")
stage=$(jq -r '.loss_stage.loss_ratio * 100' "$res")
tap_check "$(fin "$stage" 0.5 1.5)" "loss stage measures 0.5-1.5% for 1% configured" \
	"$(printf '%.3f' "$stage")% (${drops} of ${pkts} packets)"

retrans=$(jq -r .flows[0].retransmits "$res")
segs=$(jq -r .flows[0].data_segs_out "$res")
bdrops=$(jq -r .bottleneck.drops "$res")
tcp=$(awk -v r="$retrans" -v b="$bdrops" -v s="$segs" 'BEGIN { printf "%.3f", 100 * (r - b) / s }')
tap_check "$(fin "$tcp" 0.5 1.5)" "TCP retransmissions show 0.5-1.5% loss" \
	"${tcp}% ((${retrans} retransmitted - ${bdrops} bottleneck drops) / ${segs} segments; goodput $(jq -r .flows[0].goodput_mbps "$res") Mbit/s)"
tap_done
