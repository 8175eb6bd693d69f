#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_pcc in a guest: parameters refused on load and on write (state kept),
# selection by sysctl and iperf3 -C, ss -ti info and the MI tracepoint,
# unload refused while a flow uses pcc; then on the emulated link
# (scripts/netlab): 20 Mbit/s, 30 ms with 1 % random loss, PCC against
# CUBIC in the same guest, a 5-packet bottleneck buffer, and two PCC
# flows sharing a 40 ms, 1 BDP link (a fairness floor, Jain >= 0.8).
#
# The issue's targets (>= 80 % utilisation at 1 % loss, >= 70 % with a
# 5-packet buffer) are judged when CUBIC without loss shows that the
# guest keeps up (>= 90 %); floors (PCC at least half busy and 1.5 x
# CUBIC under loss) catch a broken sender on any guest that gets 80 %.
. "$(dirname "$0")/lib.sh"
require_root
require_tools iperf3 tc jq ss
NETLAB=$TOP/scripts/netlab
ko=$MODDIR/tcp_pcc/tcp_pcc.ko
SECS=${PCC_SECS:-30}
OUT=$RESULTS/tcp_pcc
rm -rf "$OUT"
mkdir -p "$OUT"

tap_plan 15

if [ ! -f "$ko" ]; then
	tap_fail "tcp_pcc built for $KVER" "no $ko (make modules-all)"
	tap_done
fi
rmmod tcp_pcc 2>/dev/null

# ---- parameters: bad values on load are refused
refused=0
for arg in eps_min=0.5 eps_max=0.9 alpha=5 alpha=abc utility=delay; do
	if insmod "$ko" "$arg" 2>/dev/null; then
		rmmod tcp_pcc
	else
		refused=$((refused + 1))
	fi
done
tap_check "$([ $refused = 5 ] && echo 1)" "insmod with a bad parameter refused" \
	"$refused of 5 refused; $(dmesg | grep -o 'tcp_pcc: .*refused.*' | tail -n 1)"

# eps_min <= eps_max is checked once both are parsed: either order loads
P=/sys/module/tcp_pcc/parameters
pair=""
for args in "eps_min=0.08 eps_max=0.1" "eps_max=0.1 eps_min=0.08"; do
	# shellcheck disable=SC2086
	if insmod "$ko" $args 2>/dev/null; then
		pair="$pair [$args: $(cat $P/eps_min) $(cat $P/eps_max)]"
		rmmod tcp_pcc
	else
		pair="$pair [$args refused]"
	fi
done
insmod "$ko" eps_min=0.08 eps_max=0.06 2>/dev/null && { pair="$pair [0.08 > 0.06 loaded]"; rmmod tcp_pcc; }
tap_check "$([ "$pair" = " [eps_min=0.08 eps_max=0.1: 0.0800 0.1000] [eps_max=0.1 eps_min=0.08: 0.0800 0.1000]" ] && echo 1)" \
	"eps_min and eps_max on load: checked as a pair, in either order" \
	"$pair; $(dmesg | grep -o 'tcp_pcc: eps_min=.*' | tail -n 1)"

if ! err=$(insmod "$ko" 2>&1); then
	tap_fail "insmod tcp_pcc" "$err"
	tap_done
fi
before="$(cat $P/utility) $(cat $P/alpha) $(cat $P/eps_min) $(cat $P/eps_max)"
bad=0
for w in "eps_min 0.2" "eps_min 0" "eps_max 0.005" "eps_max x" "alpha 2000" \
	 "alpha -1" "utility foo" "utility ''"; do
	set -- $w
	echo "$2" >"$P/$1" 2>/dev/null && bad=$((bad + 1))
done
after="$(cat $P/utility) $(cat $P/alpha) $(cat $P/eps_min) $(cat $P/eps_max)"
u0=$(cat $P/utility) e0=$(cat $P/eps_max)
echo 0.1 >$P/eps_max && echo latency >$P/utility && good="$(cat $P/eps_max) $(cat $P/utility)"
# back to the defaults the rest of the test runs with
echo "$e0" >$P/eps_max
echo "$u0" >$P/utility
tap_check "$([ $bad = 0 ] && [ "$before" = "$after" ] && [ "$good" = "0.1000 latency" ] && echo 1)" \
	"bad parameter writes refused, state unchanged, good ones taken" \
	"before '$before' after '$after'; accepted: '${good:-none}'"

cleanup() {
	ip netns del pcc-lo 2>/dev/null
	echo 0 2>/dev/null >/sys/kernel/tracing/events/tcp_pcc/pcc_mi/enable
	kill $(jobs -p) 2>/dev/null
}
trap cleanup EXIT

# ---- selection by sysctl in a namespace, ss -ti, tracepoint, unload
ip netns add pcc-lo
ip -n pcc-lo link set lo up
ip netns exec pcc-lo sysctl -qw net.ipv4.tcp_congestion_control=pcc
got=$(ip netns exec pcc-lo sysctl -n net.ipv4.tcp_congestion_control)
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
echo >$TR/trace 2>/dev/null
echo 1 >$TR/events/tcp_pcc/pcc_mi/enable 2>/dev/null
ip netns exec pcc-lo iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
sleep 0.5
ip netns exec pcc-lo iperf3 -c 127.0.0.1 -p 5201 -t 60 >/dev/null 2>&1 &
lpid=$!
# a starved guest may take seconds to start the data connection; ss shows
# congestion-control info only while the socket is established
ssout=
for _ in $(seq 300); do
	sleep 0.2
	ssout=$(ip netns exec pcc-lo ss -tin '( dport = 5201 )')
	grep -q 'bbr:(' <<<"$ssout" && break
done
sleep 1
rmmod tcp_pcc 2>/dev/null && mid=unloaded || mid=refused
running=$(kill -0 $lpid 2>/dev/null && echo yes || echo no)
kill $lpid 2>/dev/null
wait $lpid 2>/dev/null
echo 0 >$TR/events/tcp_pcc/pcc_mi/enable 2>/dev/null
events=$(grep -c 'pcc_mi:' $TR/trace 2>/dev/null)
grep 'pcc_mi:' $TR/trace 2>/dev/null | head -n 40 >"$OUT/trace.txt"
tap_check "$([ "$got" = pcc ] && grep -q ' pcc ' <<<"$ssout" && echo 1)" \
	"sysctl tcp_congestion_control=pcc in a netns selects pcc" "sysctl: $got"
info=$(grep -o 'bbr:([^)]*)' <<<"$ssout" | head -n 1)
tap_check "$([ -n "$info" ] && echo 1)" \
	"ss -ti shows PCC's rate, MI RTT, trial gain and state" "${info:-none}"
tap_check "$([ "${events:-0}" -gt 0 ] && echo 1)" "one tracepoint event per MI result" \
	"${events:-0} events; first: $(head -n 1 "$OUT/trace.txt" | sed 's/.*pcc_mi: //')"
tap_check "$([ $mid = refused ] && [ $running = yes ] && echo 1)" \
	"rmmod refused while a flow uses pcc" "rmmod during: $mid, flow still running: $running"
ip netns del pcc-lo
unloaded=no
for _ in $(seq 10); do
	rmmod tcp_pcc 2>/dev/null && { unloaded=yes; break; }
	sleep 1
done
tap_check "$([ $unloaded = yes ] && echo 1)" "rmmod after the flow" "$unloaded"
insmod "$ko" || { tap_fail "re-insmod"; tap_done; }

# ---- the emulated link
run() {	# name, netlab args...
	local name=$1
	shift
	"$NETLAB" run --rate 20mbit --duration "$SECS" --warmup 2 --out "$OUT/$name" "$@" \
		>"$OUT/$name.log" 2>&1 || { tap_diag "netlab $name: $(tail -n 5 "$OUT/$name.log")"; return 1; }
}
util() { jq -r '.summary.utilisation // empty' "$OUT/$1/result.json" 2>/dev/null | awk '{ printf "%.1f\n", 100 * $1 }'; }
p95() { jq -r '.summary.rtt_p95_ms' "$OUT/$1/result.json" 2>/dev/null; }

run loss-pcc --rtt 30ms --loss 1% --flow pcc
run loss-cubic --rtt 30ms --loss 1% --flow cubic --duration 15
# CUBIC on the same link without loss is the yardstick of the emulation:
# PCC reads a starved guest's stalls as utility noise (17-34 % measured
# then), so below 80 % for CUBIC the loss and shallow-buffer cases say
# nothing about PCC.  The targets need CUBIC at 90 %: quiet guests give
# it 92-95 %, and the one 1 % loss miss of 2026-11-22 (78.4 %, 15 s
# flows) came from a shared host.  30 s flows after 2 s of warm-up
# keep the starting state and one slow climb from deciding the result
# (Documentation/tcp_pcc.rst).  The 80 % at 1 % loss is a TODO line: on
# a slower host (2026-11-27) the 6.1 guest gave 69.7, 77.4 and 84.9 %,
# 6.12 87.9, 78.1 and 79.5 %, with CUBIC at 94-95 % without loss.
run clean-cubic --rtt 30ms --flow cubic --duration 8
up=$(util loss-pcc)
uc=$(util loss-cubic)
uy=$(util clean-cubic)
tap_diag "1 % loss, 20 Mbit/s, 30 ms: pcc $(printf '%.1f' "${up:-0}") %, cubic $(printf '%.1f' "${uc:-0}") % utilisation (cubic without loss: $(printf '%.1f' "${uy:-0}") %)"
starved="guest starved: cubic reached only ${uy:-?} % without loss"
if [ "$(fge "${uy:-0}" 80)" = 1 ]; then
	tap_check "$([ -n "$up" ] && [ -n "$uc" ] && [ "$(fge "$up" 50)" = 1 ] &&
		[ "$(fge "$up" "$(awk -v c="$uc" 'BEGIN { print 1.5 * c }')")" = 1 ] && echo 1)" \
		"1 % loss: PCC keeps the link at least half busy and 1.5 x CUBIC" \
		"pcc ${up:-?} %, cubic ${uc:-?} %"
else
	tap_skip "1 % loss: PCC keeps the link at least half busy and 1.5 x CUBIC (pcc ${up:-?} %, cubic ${uc:-?} %)" \
		"$starved"
fi
if [ "$(fge "${uy:-0}" 90)" = 1 ]; then
	tap_todo "$(fge "${up:-0}" 80)" "1 % loss: PCC utilisation >= 80 % (paper sec. 4.1.3)" \
		"pcc ${up:-?} %, cubic ${uc:-?} %" \
		"issue 28's target, met in the bench; not reliably in a slow guest"
else
	tap_skip "1 % loss: PCC utilisation >= 80 % (measured ${up:-?} %)" "$starved (90 % needed)"
fi

run shallow-pcc --rtt 30ms --buffer 5p --flow pcc
us=$(util shallow-pcc)
tap_diag "5-packet buffer: pcc $(printf '%.1f' "${us:-0}") % utilisation, RTT p95 $(p95 shallow-pcc) ms"
tap_diag "5-packet buffer: pcc $(flow_evidence "$OUT/shallow-pcc/result.json" 0)"
if [ "$(fge "${uy:-0}" 80)" = 1 ]; then
	tap_check "$(fge "${us:-0}" 50)" "5-packet buffer: PCC keeps the link at least half busy" "${us:-?} %"
else
	tap_skip "5-packet buffer: PCC keeps the link at least half busy (${us:-?} %)" "$starved"
fi
if [ "$(fge "${uy:-0}" 90)" = 1 ]; then
	tap_check "$(fge "${us:-0}" 70)" "5-packet buffer: PCC utilisation >= 70 %" "${us:-?} %"
else
	tap_skip "5-packet buffer: PCC utilisation >= 70 % (measured ${us:-?} %)" "$starved (90 % needed)"
fi

# Two flows, the second 10 s after the first, on the 40 ms, 1 BDP link
# (the bench's convergence case): Jain over the time both run.  Allegro
# (utility=loss) gave 0.61 there, Vivace 0.92-1.00 (issue 28).
"$NETLAB" run --rate 20mbit --rtt 40ms --duration 30 --warmup 0 --out "$OUT/two-pcc" \
	--events tcp_pcc/pcc_mi --flow pcc --flow pcc,start=10 >"$OUT/two-pcc.log" 2>&1 ||
	tap_diag "netlab two-pcc: $(tail -n 5 "$OUT/two-pcc.log")"
# netlab --events: MI results of both flows, on the run's time axis
t0=$(jq -r '.events.t0_s // empty' "$OUT/two-pcc/result.json" 2>/dev/null)
span=$(awk -v t0="${t0:-0}" '/pcc_mi:/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i + 0 - t0
		if (n++ == 0) lo = t; hi = t
		if ($0 ~ /dport=5201 /) a++; if ($0 ~ /dport=5202 /) b++ }
	END { if (n) printf "%d %d %d %.1f %.1f\n", n, a, b, lo, hi }' \
	"$OUT/two-pcc/trace.txt" 2>/dev/null)
read -r nev ev1 ev2 evlo evhi <<<"${span:-0 0 0 -1 -1}"
tap_check "$([ -n "$t0" ] && [ "$ev1" -gt 0 ] && [ "$ev2" -gt 0 ] &&
	[ "$(fge "$evlo" 0)" = 1 ] && [ "$(fge 32 "$evhi")" = 1 ] && echo 1)" \
	"netlab --events: pcc_mi of both flows within the run's 30 s" \
	"$nev events ($ev1 + $ev2), ${evlo} s to ${evhi} s after the start"
jain=$(jq -r '.summary.jain_index // empty' "$OUT/two-pcc/result.json" 2>/dev/null)
shares=$(jq -r '.summary.jain_goodputs_mbps // [] | map(tostring) | join(" / ")' \
	"$OUT/two-pcc/result.json" 2>/dev/null)
# Issue 28's floor.  Since a step down behind a standing queue takes
# 15 % of the rate (4bfc7a7) this case gave Jain 0.934-0.998 in 14 runs
# on 2026-11-29 (8 on 6.12, 6 on 6.1), the bench's five 0.955-0.998,
# and the model's lowest of 128 seeds with the guest's noise is 0.873.
# Before it: 0.926 and 0.969 in two CI rehearsals here, 0.674-0.998 on
# a slower host (tcp_pcc.rst).  Jain 0.8 is a 1 : 3 split of the link.
if [ "$(fge "${uy:-0}" 80)" = 1 ]; then
	tap_check "$(fge "${jain:-0}" 0.8)" "two flows: Jain >= 0.8 once both run" \
		"Jain ${jain:-?}, ${shares:-?} Mbit/s"
else
	tap_skip "two flows: Jain >= 0.8 once both run (Jain ${jain:-?})" "$starved"
fi

rmmod tcp_pcc 2>/dev/null
tap_check "$([ ! -d /sys/module/tcp_pcc ] && echo 1)" "rmmod at the end" ""
tap_done
