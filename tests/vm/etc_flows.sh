#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# etc_flows: four ETC flows joining 5 s apart overflow one drop-tail
# buffer (netlab: 20 Mbit/s, 40 ms, 1 BDP, a tbf bucket of 2 packets, so
# bursts leave the bottleneck as from a serialising link).  The queue the
# others keep pins the RTT, so ETC's RTT gradient alone never reacts: the
# worst flow then retransmitted 12-40 % of its segments (two runs).  With
# the heavy-loss rule every flow must stay below 5 % (1.2-1.9 % measured),
# and none may starve (each a quarter of its share once all four run).
#
# Then the floors issue 29 keeps while its targets are open: one ETC flow
# on the same link with a 4-packet drop-tail buffer keeps >= 50 % of it
# (it got 5 % before the burst size adapted), and one ETC flow beside one
# CUBIC flow over 1 BDP (the bench's coexist-cubic link) gets >= 0.3 of
# CUBIC's goodput.
. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools iperf3 tc jq

ko=$MODDIR/tcp_etc/tcp_etc.ko
OUT=$RESULTS/etc_flows
rm -rf "$OUT"

tap_plan 5
if [ ! -f "$ko" ]; then
	tap_fail "tcp_etc built for $KVER" "no $ko (make modules-all)"
	tap_done
fi
loaded=0
if ! grep -q '^tcp_etc ' /proc/modules; then
	if ! err=$(insmod "$ko" 2>&1); then
		tap_fail "insmod tcp_etc" "$err"
		tap_done
	fi
	loaded=1
fi

if ! "$NETLAB" run --rate 20mbit --rtt 40ms --buffer 1bdp --qdisc tbf --burst 3028 \
	--sender-gso --flow etc --flow etc,start=5 --flow etc,start=10 --flow etc,start=15 \
	--duration 30 --warmup 0 --out "$OUT" 2>"$OUT.log"; then
	tap_fail "netlab run, four etc flows" "exit $?"
	tap_diag "$(cat "$OUT.log")"
	[ $loaded = 1 ] && rmmod tcp_etc
	tap_done
fi
tap_ok "netlab run, four etc flows"

res=$OUT/result.json
flows=$(jq -r '.flows[] | "\(.goodput_mbps) Mbit/s \(.retransmits)/\(.data_segs_out) retransmitted"' "$res" |
	paste -sd ';' -)
worst=$(jq -r '[.flows[].retrans_ratio] | max * 100' "$res")
tap_check "$(fle "$worst" 5)" "every flow retransmits < 5 % of its segments" \
	"worst $(printf '%.1f' "$worst") %; $flows; drops $(jq -r .bottleneck.drops "$res")"

low=$(jq -r '.summary.jain_goodputs_mbps | (min / (add / length))' "$res")
tap_check "$(fge "$low" 0.25)" "no flow starves: each >= 1/4 of its share with all four active" \
	"lowest $(printf '%.2f' "$low") of its share; $(jq -r '.summary.jain_goodputs_mbps | map(tostring) | join("/")' "$res") Mbit/s, Jain $(jq -r .summary.jain_index "$res")"

# netlab_one TAG ARGS...: one more netlab run; its result.json, or "" on failure.
netlab_one() {
	local tag=$1
	shift
	if ! "$NETLAB" run --sender-gso --out "$RESULTS/$tag" "$@" \
		>"$RESULTS/$tag.log" 2>&1; then
		tap_diag "netlab run $tag failed: $(tail -n 3 "$RESULTS/$tag.log")"
		return
	fi
	echo "$RESULTS/$tag/result.json"
}

res=$(netlab_one etc_shallow --rate 20mbit --rtt 40ms --buffer 4p --qdisc tbf \
	--flow etc --duration 20 --warmup 3)
util=$([ -n "$res" ] && jq -r '.summary.utilisation * 1000 | round / 10' "$res")
tap_check "$([ -n "$res" ] && fge "$util" 50)" \
	"4-packet buffer: one etc flow keeps >= 50 % of 20 Mbit/s (floor; bench target 80 % at 5 packets)" \
	"${util:-no result} %, drops $([ -n "$res" ] && jq -r .bottleneck.drops "$res")"

res=$(netlab_one etc_cubic --rate 20mbit --rtt 25ms --buffer 1bdp --qdisc tbf \
	--flow etc --flow cubic,ecn=off --duration 30 --warmup 5)
share=$([ -n "$res" ] && jq -r '.flows[0].goodput_mbps / .flows[1].goodput_mbps * 100 | round / 100' "$res")
tap_check "$([ -n "$res" ] && fge "$share" 0.3)" \
	"1 BDP beside cubic: etc gets >= 0.3 x cubic's goodput (floor; bench target 0.5-2)" \
	"share $share; $([ -n "$res" ] && jq -r '.flows | map("\(.cca) \(.goodput_mbps) Mbit/s") | join(", ")' "$res")"

[ $loaded = 1 ] && rmmod tcp_etc 2>/dev/null
tap_done
