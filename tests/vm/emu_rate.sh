#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# emu_rate: the emulated bottleneck delivers its configured rate.
#
# One CUBIC flow through a 20 Mbit/s tbf bottleneck, 40 ms RTT, 1 BDP of
# buffer, for 20 s.  Goodput after the first 3 s (slow start) must be 90-100%
# of the ideal goodput for this framing: each 1514-byte frame the shaper
# counts (1500 MTU + 14 Ethernet) carries 1448 bytes of TCP payload (20 IP +
# 32 TCP with timestamps), so ideal = 20 x 1448/1514 = 19.13 Mbit/s.  The
# ceiling also admits the tbf bucket (a window that opens on a full bucket
# gets one burst more than rate x time) and the sampler's stamp error at
# each end of the window (netlab's run.recv_stamp_err_ms).

. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools iperf3 tc jq

RATE=20
OUT=$RESULTS/emu_rate
rm -rf "$OUT"

tap_plan 3
start=$SECONDS
if "$NETLAB" run --rate ${RATE}mbit --rtt 40ms --buffer 1bdp --qdisc tbf --flow cubic \
	--duration 20 --warmup 3 --out "$OUT" 2>"$OUT.log"; then
	tap_ok "netlab run (tbf ${RATE} Mbit/s, 40 ms, 1 BDP, cubic, 20 s)" "$((SECONDS - start)) s"
else
	tap_fail "netlab run (tbf ${RATE} Mbit/s, 40 ms, 1 BDP, cubic, 20 s)" "exit $?"
	tap_diag "$(cat "$OUT.log")"
	tap_done
fi
tap_diag "$(grep -v '^netlab: result' "$OUT.log")"

res=$OUT/result.json
ideal=$(awk -v r=$RATE 'BEGIN { printf "%.3f", r * 1448 / 1514 }')
goodput=$(jq -r '.flows[0].goodput_mbps' "$res")
pct=$(awk -v g="$goodput" -v i="$ideal" 'BEGIN { printf "%.2f", 100 * g / i }')
burst=$(jq -r '.config.burst_bytes' "$res")
span=$(jq -r '.flows[0].window_s[1] - .flows[0].window_s[0] | . * 1000 | round / 1000' "$res")
err=$(jq -r '.run.recv_stamp_err_ms' "$res")
ceil=$(awk -v b="$burst" -v r=$RATE -v s="$span" -v e="$err" \
	'BEGIN { printf "%.2f", 100 * (1 + (b * 8 / (r * 1e6) + 2 * e / 1e3) / s) }')
iperf=$(jq -r '.flows[0].iperf.receiver_mbps' "$res")
tap_diag "goodput series (Mbit/s per 0.5 s): $(jq -c .flows[0].goodput_series.mbps "$res")"
tap_diag "bottleneck: $(jq -c '.bottleneck | {packets, drops, drop_ratio}' "$res"), queue delay $(jq -c .bottleneck.queue_delay_ms "$res") ms"
tap_check "$(fin "$pct" 90 "$ceil")" "goodput after slow start is 90-100% of ideal ${ideal} Mbit/s (plus a tbf burst and the stamp error)" \
	"measured ${goodput} Mbit/s = ${pct}%, ceiling ${ceil}% (burst ${burst} B, stamps +-${err} ms, over ${span} s; iperf3 server, whole run: ${iperf} Mbit/s)"

# The bottleneck was the only limit: the queue held packets most of the time.
qp50=$(jq -r '.bottleneck.queue_delay_ms.p50' "$res")
tap_check "$(fge "$qp50" 1)" "bottleneck queue is in use (median queueing delay >= 1 ms)" \
	"median ${qp50} ms, RTT p50 $(jq -r .summary.rtt_p50_ms "$res") ms"
tap_done
