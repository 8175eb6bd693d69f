#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# emu_jitter: delay jitter widens the RTT spread without reordering packets.
#
# 1. Idle RTT spread below the median (p50 - min of 40 pings, 40 ms) must
#    grow by at least 4 ms with --jitter 10ms (uniform +-10 ms adds 7-12 ms
#    measured; without jitter it is under 1 ms).  The guest's noise only ever
#    adds delay, in spikes that reach p95 of 40 samples (p95 - p50 was
#    3.8 ms without jitter in one CI run) but not the median or the minimum.
# 2. Jitter on both directions (--jitter-path both, 10 ms uniform on each):
#    the lowest of 100 idle RTTs falls below 27 ms.  ACK-path jitter alone
#    cannot go below 40 - 10 = 30 ms; the sum of two independent +-10 ms
#    draws is below -13 ms with probability 6 %, so 100 pings miss it with
#    probability 0.2 %.  The guest's noise only ever adds delay.
# 3. A CUBIC flow for 8 s with 5 ms jitter on both directions: header
#    captures at the far end of each direction show no data packet and no
#    ACK arriving out of order
#    (Linux numbers a TCP socket's IP IDs in send order, so an ID lower than
#    one already seen is a reordered packet; drops only leave gaps).
# 4. Control: plain netem jitter (--jitter-mode reorder) does reorder ACKs,
#    which shows the check above can see reordering.

. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools iperf3 tc jq tcpdump

OUT=$RESULTS/emu_jitter
rm -rf "$OUT"
mkdir -p "$OUT"

tap_plan 5

spread() { jq -r '.ping[0] | .p50 - .min' "$1/ping.json"; }
if "$NETLAB" ping --rtt 40ms --count 40 --ping-interval 0.05 --out "$OUT/ping-plain" >/dev/null 2>"$OUT/ping.log" &&
	"$NETLAB" ping --rtt 40ms --jitter 10ms --count 40 --ping-interval 0.05 --out "$OUT/ping-jitter" >/dev/null 2>>"$OUT/ping.log"; then
	tap_diag "$(cat "$OUT/ping.log")"
	s0=$(spread "$OUT/ping-plain")
	s1=$(spread "$OUT/ping-jitter")
	tap_check "$(fge "$(awk -v a="$s1" -v b="$s0" 'BEGIN { print a - b }')" 4)" \
		"RTT spread p50-min grows by 4 ms with 10 ms jitter" \
		"$(printf '%.2f ms without, %.2f ms with jitter' "$s0" "$s1")"
else
	tap_fail "RTT spread p50-min grows by 4 ms with 10 ms jitter" "netlab ping failed"
	tap_diag "$(cat "$OUT/ping.log")"
fi

if "$NETLAB" ping --rtt 40ms --jitter 10ms --jitter-path both --count 100 --ping-interval 0.05 \
	--out "$OUT/ping-both" >/dev/null 2>"$OUT/ping-both.log"; then
	tap_diag "$(cat "$OUT/ping-both.log")"
	lo=$(jq -r '.ping[0].min' "$OUT/ping-both/ping.json")
	tap_check "$(fle "$lo" 27)" "jitter on both directions: an RTT below 40 - 13 ms" \
		"$(printf 'min %.2f ms, p50 %.2f ms of 100' "$lo" "$(jq -r '.ping[0].p50' "$OUT/ping-both/ping.json")")"
else
	tap_fail "jitter on both directions: an RTT below 40 - 13 ms" "netlab ping failed"
	tap_diag "$(cat "$OUT/ping-both.log")"
fi

run_flow() { # NAME SECONDS ARGS...
	local name=$1 secs=$2
	shift 2
	"$NETLAB" run --rate 20mbit --rtt 40ms --buffer 1bdp --jitter 5ms --flow cubic \
		--duration "$secs" --pcap --out "$OUT/$name" "$@" 2>"$OUT/$name.log"
}

if run_flow ordered 8 --jitter-path both; then
	res=$OUT/ordered/result.json
	tap_diag "$(grep -v '^netlab: result' "$OUT/ordered.log")"
	tap_diag "reordering: $(jq -c .flows[0].reordering "$res")"
	for dir in data acks; do
		n=$(jq -r ".flows[0].reordering.$dir.packets" "$res")
		r=$(jq -r ".flows[0].reordering.$dir.reordered" "$res")
		# The capture must have seen everything (no drops) for this to mean much.
		lost=$(jq -r '.flows[0].reordering.capture_dropped | add' "$res")
		tap_check "$([ "$r" = 0 ] && [ "$lost" = 0 ] && [ "$n" -gt 1000 ] && echo 1 || echo 0)" \
			"no $dir reordering with ordered jitter" "${r} of ${n} packets out of order (capture dropped ${lost})"
	done
	tap_diag "flow RTT p50 $(jq -r .flows[0].rtt.p50 "$res") ms, p95 $(jq -r .flows[0].rtt.p95 "$res") ms"
else
	tap_fail "no data reordering with ordered jitter" "netlab run failed"
	tap_fail "no acks reordering with ordered jitter" "netlab run failed"
	tap_diag "$(cat "$OUT/ordered.log")"
fi

if run_flow control 4 --jitter-mode reorder; then
	r=$(jq -r .flows[0].reordering.acks.reordered "$OUT/control/result.json")
	n=$(jq -r .flows[0].reordering.acks.packets "$OUT/control/result.json")
	tap_check "$(fge "$r" 1)" "control: plain netem jitter reorders ACKs and the check sees it" \
		"${r} of ${n} ACKs out of order"
else
	tap_fail "control: plain netem jitter reorders ACKs" "netlab run failed"
	tap_diag "$(cat "$OUT/control.log")"
fi
tap_done
