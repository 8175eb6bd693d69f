#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_abc in a guest (sch_abc_ipv6.sh has the rest):
#  1. `tc qdisc add ... root abc` autoloads the module through modprobe,
#     under the name this kernel asks for (6.1: sch_abc, 6.9+: net-sch-abc).
#  2. A CUBIC flow with ECN through scripts/netlab --qdisc abc (IPv4): the
#     receiver's capture shows CE on the fraction of ECT packets that the
#     qdisc counted as brakes, accelerates + brakes == ECT packets seen.
#  3. rmmod after use.
# Needs q_abc.so (make modules-all builds it) for bandwidth and limit.
source "$(dirname "$0")/lib.sh"
require_root
require_tools tc iperf3 tcpdump jq ip

ko=$MODDIR/sch_abc/sch_abc.ko
tap_plan 7

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
	for i in $(seq 3 7); do tap_skip "traffic checks" "no q_abc.so (make modules-all)"; done
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
		pcap_count "$f" "$m"
	done | tr '\n' ' '
}

# ---- 2. IPv4 through netlab, one CUBIC flow with ECN
out4=$RESULTS/sch_abc-v4
rm -rf "$out4"
"$TOP/scripts/netlab" run --qdisc abc --rate 20mbit --rtt 20ms --buffer 100p \
	--flow cubic --duration 8 --ecn --pcap --keep --prefix $nlprefix \
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
# Every ECN packet the receiver saw was counted by the qdisc, as what it
# arrived as.  Not equality: a starved guest drops packets after the qdisc
# (the receiver's backlog, see softnet drops); sch_abc_ipv6.sh checks exact
# equality on its own link.
sn=0
while read -r _ drop _; do sn=$((sn + 0x$drop)); done </proc/net/softnet_stat
ok=$(awk -v a="${acc:-0}" -v b="${brk:-0}" -v c="$n3" -v e="$ect" \
	'BEGIN { print (e > 0 && c <= b && e - c <= a) ? 1 : 0 }')
tap_check "$ok" "IPv4: ECT packets at the receiver <= accelerates, CE <= brakes" \
	"xstats $acc + $brk = $((acc + brk)), capture $ect (ECT0 $n2 ECT1 $n1 CE $n3, Not-ECT $n0), softnet drops $sn"
ok=$(awk -v b="${brk:-0}" -v a="${acc:-0}" -v c="$n3" -v e="$ect" \
	'BEGIN { if (!e || !(a + b)) { print 0; exit } d = c / e - b / (a + b); if (d < 0) d = -d;
		print d <= 0.02 ? 1 : 0 }')
tap_check "$ok" "IPv4: CE share of ECN packets at the receiver is the brake share (1 - f)" \
	"CE $n3/$ect, brakes $brk/$((acc + brk))"
# ECN CUBIC takes each brake (CE) as congestion: it runs, well below the link.
tap_check "$(fge "$gp" 0.5)" "IPv4: the ECN CUBIC flow runs (goodput >= 0.5 Mbit/s of 20)" "$gp Mbit/s"
for n in $(ip netns list | awk '{print $1}' | grep "^$nlprefix[0-9]*-"); do ip netns del "$n"; done

# ---- 3. unload
sleep 1
out=$(rmmod sch_abc 2>&1)
tap_check "$([ $? = 0 ] && ! grep -q "^sch_abc " /proc/modules && echo 1)" "rmmod sch_abc after use" "$out"
tap_done
