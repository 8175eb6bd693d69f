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
#
# Last, the four flows again with window=1 (the window law, experimental):
# its allocated state is used (the tracepoint reports law=window) and
# freed (the module unloads), and the flows share the link fairly once
# all four run (Jain >= 0.95; the bench measured 0.999 and every flow
# within 25 % of its share 1.0 s after joining).
. "$(dirname "$0")/lib.sh"
require_root
NETLAB=$TOP/scripts/netlab
require_tools iperf3 tc

ko=$MODDIR/tcp_etc/tcp_etc.ko
OUT=$RESULTS/etc_flows
rm -rf "$OUT"

tap_plan 7
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

worst=null worst_ok=0 low=null low_ok=0 jain=null drops=null f0='' f1='' f2='' f3=''
netlab_check "$OUT" \
	'worst=round(100 * max(flows[0].retrans_ratio, flows[1].retrans_ratio, flows[2].retrans_ratio, flows[3].retrans_ratio), 1)' \
	'worst_ok=max(flows[0].retrans_ratio, flows[1].retrans_ratio, flows[2].retrans_ratio, flows[3].retrans_ratio) < 0.05' \
	'low=round(min(summary.jain_goodputs_mbps) / mean(summary.jain_goodputs_mbps), 2)' \
	'low_ok=min(summary.jain_goodputs_mbps) >= 0.25 * mean(summary.jain_goodputs_mbps)' \
	'jain=summary.jain_index' 'drops=bottleneck.drops' \
	"f0=round(summary.jain_goodputs_mbps[0], 2)" "f1=round(summary.jain_goodputs_mbps[1], 2)" \
	"f2=round(summary.jain_goodputs_mbps[2], 2)" "f3=round(summary.jain_goodputs_mbps[3], 2)"
tap_check "$worst_ok" "every flow retransmits < 5 % of its segments" \
	"worst $worst %; drops $drops"
tap_check "$low_ok" "no flow starves: each >= 1/4 of its share with all four active" \
	"lowest $low of its share; $f0/$f1/$f2/$f3 Mbit/s while all four run, Jain $jain"

# netlab_one TAG ARGS...: one more netlab run into $RESULTS/TAG; false on failure.
netlab_one() {
	local tag=$1
	shift
	if ! "$NETLAB" run --sender-gso --out "$RESULTS/$tag" "$@" \
		>"$RESULTS/$tag.log" 2>&1; then
		tap_diag "netlab run $tag failed: $(tail -n 3 "$RESULTS/$tag.log")"
		return 1
	fi
}

util=null util_ok=0 drops=null
netlab_one etc_shallow --rate 20mbit --rtt 40ms --buffer 4p --qdisc tbf \
	--flow etc --duration 20 --warmup 3 &&
	netlab_check "$RESULTS/etc_shallow" 'util=round(100 * summary.utilisation, 1)' \
		'util_ok=summary.utilisation >= 0.5' 'drops=bottleneck.drops'
tap_check "$util_ok" \
	"4-packet buffer: one etc flow keeps >= 50 % of 20 Mbit/s (floor; bench target 80 % at 5 packets)" \
	"$util %, drops $drops"

share=null share_ok=0 e=null c=null
netlab_one etc_cubic --rate 20mbit --rtt 25ms --buffer 1bdp --qdisc tbf \
	--flow etc --flow cubic,ecn=off --duration 30 --warmup 5 &&
	netlab_check "$RESULTS/etc_cubic" \
		'share=round(flows[0].goodput_mbps / flows[1].goodput_mbps, 2)' \
		'share_ok=flows[0].goodput_mbps >= 0.3 * flows[1].goodput_mbps' \
		'e=round(flows[0].goodput_mbps, 2)' 'c=round(flows[1].goodput_mbps, 2)'
tap_check "$share_ok" \
	"1 BDP beside cubic: etc gets >= 0.3 x cubic's goodput (floor; bench target 0.5-2)" \
	"share $share; etc $e Mbit/s, cubic $c Mbit/s"

P=/sys/module/tcp_etc/parameters
tracing=/sys/kernel/tracing
[ -d $tracing/events ] || mount -t tracefs nodev $tracing 2>/dev/null
ev=$tracing/events/tcp_etc/etc_update/enable
jain=null jain_ok=0 nwin=0
if echo 1 >$P/window; then
	[ -f $ev ] && { echo >$tracing/trace; echo 1 >$ev; }
	netlab_one etc_window --rate 20mbit --rtt 40ms --buffer 1bdp --qdisc tbf \
		--flow etc --flow etc,start=5 --flow etc,start=10 --flow etc,start=15 \
		--duration 30 --warmup 0 &&
		netlab_check "$RESULTS/etc_window" 'jain=summary.jain_index' \
			'jain_ok=summary.jain_index >= 0.95'
	if [ -f $ev ]; then
		echo 0 >$ev
		nwin=$(grep -c 'law=window' $tracing/trace)
	fi
	echo 0 >$P/window
fi
tap_check "$jain_ok" "window=1: four etc flows joining 5 s apart share the link (Jain >= 0.95)" \
	"Jain $jain"
if [ -f $ev ]; then
	tap_check "$([ "$nwin" -gt 0 ] && echo 1)" "window=1: the tracepoint reports window-law rounds" \
		"$nwin events with law=window"
else
	tap_skip "window=1: the tracepoint reports window-law rounds" "no tracefs"
fi

[ $loaded = 1 ] && rmmod tcp_etc 2>/dev/null
tap_done
