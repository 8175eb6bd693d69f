#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Scale in flows (issue 32, item 4): 1000, then 100, concurrent
# long-lived connections of each congestion control of the tree, with
# short ones (32 KiB each, 32 at a time) opening and closing beside
# them, over an unshaped veth pair with 10 ms on the ACK path; CUBIC is
# the control in the same boot.  For each size:
#  - every connection comes up and runs the CCA it asked for;
#  - no long connection stalls: once the writes stop, everything written
#    to each is acked within 20 s; the short ones complete without error,
#    those open at that moment within the same 20 s;
#  - at 1000 connections, the slab memory per connection is CUBIC's
#    within SLAB_SLACK: no module keeps more than a small allocation per
#    socket outside it (tcp_etc with window=1 allocates 80 bytes;
#    slab totals move by a few hundred bytes per connection between
#    runs, so this catches a kilobyte, not a small kmalloc).
# pad_shim loads with slots=512: 1000 pad_bbr or pad_etc connections
# (neither inner CCA leaves room for PAD in icsk_ca_priv) run out of
# slots, and the ones without must run the inner CCA and be counted in
# no_slot; once they close, 100 connections must all find slots again.
# Then abc through sch_abc (200 Mbit/s, an abc receiver, so ECN is on)
# with 1000 and 100 connections: none stalls; the per-flow spread is
# reported (sch_abc's top-k table has at most 32 entries).
# Afterwards the reference counts are back, every module unloads, and
# dmesg is clean.
#
# About 190-200 s in a TCG guest.
# vm-timeout: 480
source "$(dirname "$0")/lib.sh"
require_root
require_tools python3 ip tc

S=scale-s
R=scale-r
PORT=5420
ABC_PORT=5421
SECS=${SCALE_SECS:-6}
SHORT_PAR=32
SLOTS=512
CCAS="cubic bbr etc pcc abc pad_bbr pad_etc"
MODS="tcp_etc tcp_abc tcp_pcc"
LOAD=$(dirname "$0")/scale_load.py
SLAB_SLACK=${SCALE_SLAB_SLACK:-1024}
sizes=(1000 100)

have_sch_abc=0
if [ -f "$MODDIR/sch_abc/sch_abc.ko" ] && [ -f "${TC_LIB_DIR:-/nonexistent}/q_abc.so" ]; then
	have_sch_abc=1
	MODS="$MODS sch_abc"
fi

tap_plan $((2 + ${#sizes[@]} * 2 + 2 + ${#sizes[@]} + 3))

old_backlog=$(sysctl -n net.core.netdev_max_backlog)
cleanup() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip netns del $S 2>/dev/null
	ip netns del $R 2>/dev/null
	sysctl -qw net.core.netdev_max_backlog="$old_backlog"
}
trap cleanup EXIT

counts() { refcounts $MODS pad_shim tcp_bbr; }
no_slot() { local s; s=$(</sys/module/pad_shim/parameters/stats); s=${s##*no_slot }; echo "${s%% *}"; }
settle() { settle_refcounts 60 "$base" $MODS pad_shim tcp_bbr; }
# jget JSON KEY: a number from the client's one-line JSON, no subprocess
jget() {
	local re="\"$2\": (-?[0-9.]+)"
	[[ $1 =~ $re ]] && echo "${BASH_REMATCH[1]}"
}
# client CCA N PORT: one run; its JSON line is in $out
client() {
	out=$(ip netns exec $S python3 "$LOAD" client 10.78.0.2 "$3" "$1" "$2" $SHORT_PAR "$SECS" 2>&1 | tail -n 1)
}
# summary FILE: one diagnostic line over a size's runs
summary() {
	local line cc
	while read -r line; do
		[[ $line =~ \"cca\":\ \"([a-z_]+)\" ]] && cc=${BASH_REMATCH[1]} || continue
		printf '%s %s Mbit/s min %s Jain %s drained in %s s slab %s B short %s %s; ' "$cc" \
			"$(jget "$line" second_half_mbit)" "$(jget "$line" min_mbit)" \
			"$(jget "$line" jain)" "$(jget "$line" drain_s)" \
			"$(jget "$line" slab_bytes_per_conn)" \
			"$(jget "$line" short_done)" "${line##*\} }"
	done <"$1"
}

dmesg0=$(dmesg | wc -l)
for m in pad_shim tcp_pcc sch_abc tcp_abc tcp_etc; do rmmod "$m" 2>/dev/null; done

# ---- 1: load
err=$(modprobe tcp_bbr 2>&1 &&
	for m in $MODS; do insmod "$MODDIR/$m/$m.ko" || exit 1; done 2>&1 &&
	insmod "$MODDIR/pad_shim/pad_shim.ko" inner=bbr,etc slots=$SLOTS 2>&1)
if [ $? -ne 0 ]; then
	tap_fail "load tcp_bbr, $MODS, pad_shim inner=bbr,etc slots=$SLOTS" "$err"
	tap_done
fi
base=$(counts)
tap_ok "load tcp_bbr, $MODS, pad_shim inner=bbr,etc slots=$SLOTS" "refcnt: $base"

# ---- 2: topology and receivers
# A thousand flows' bursts would overflow the per-CPU backlog of 1000
# packets that veth delivers into; drops there are the emulator's.
sysctl -qw net.core.netdev_max_backlog=100000
ulimit -n 16384
ok=0
veth_pair $S $R scs scr 10.78.0 100000 && ok=1
if [ $ok = 1 ]; then
	ip netns exec $R python3 "$LOAD" server 10.78.0.2 $PORT cubic &
	ip netns exec $R python3 "$LOAD" server 10.78.0.2 $ABC_PORT abc &
	wait_listen $R $PORT && wait_listen $R $ABC_PORT || ok=0
	[ "$(jobs -p | wc -l)" = 2 ] && kill -0 $(jobs -p) 2>/dev/null || ok=0
fi
tap_check "$([ $ok = 1 ] && echo 1)" "veth pair, netem 10 ms, receivers (cubic and abc listeners)" "ok=$ok"
[ $ok = 1 ] || tap_done

# Slab caches grow on first use: one unjudged run first.
client cubic 1000 $PORT

# ---- 3-6: each CCA at 1000 and 100 connections
slot_missed=""
for n in "${sizes[@]}"; do
	bad_up="" bad_run="" bad_mem="" cubic_mem=""
	: >"$RESULTS/scale-$n.txt"
	for cc in $CCAS; do
		ns0=$(no_slot)
		client "$cc" "$n" $PORT
		ns1=$(no_slot)
		echo "$out no_slot+$((ns1 - ns0))" >>"$RESULTS/scale-$n.txt"
		ce=$(jget "$out" connect_errors) wc=$(jget "$out" wrong_cca)
		st=$(jget "$out" stalled) sd=$(jget "$out" short_done) se=$(jget "$out" short_errors)
		su=$(jget "$out" short_unfinished)
		dr=$(jget "$out" drain_s)
		mem=$(jget "$out" slab_bytes_per_conn)
		if [ -z "$ce" ] || [ -z "$st" ]; then
			bad_up="$bad_up [$cc: ${out:0:160}]"
			continue
		fi
		[ "$ce" = 0 ] && [ "$wc" = 0 ] || bad_up="$bad_up [$cc: $ce connect errors, $wc wrong CCA]"
		[ "$st" = 0 ] && [ "$se" = 0 ] && [ "${sd:-0}" -gt 0 ] && [ "$su" = 0 ] ||
			bad_run="$bad_run [$cc: $st not drained in $dr s, $sd short done, ${su:-?} unfinished, $se short errors]"
		if [ "$cc" = cubic ]; then
			cubic_mem=$mem
		elif [ "$n" -gt $SLOTS ] && [ -n "$cubic_mem" ] && [ -n "$mem" ] &&
		     [ "$((mem - cubic_mem))" -gt "$SLAB_SLACK" ]; then
			bad_mem="$bad_mem [$cc: $mem B, cubic $cubic_mem B]"
		fi
		case $cc in
		pad_*)
			if [ "$n" -gt $SLOTS ] && [ $((ns1 - ns0)) -lt $((n - SLOTS)) ]; then
				slot_missed="$slot_missed [$cc $n: no_slot +$((ns1 - ns0)), expected >= $((n - SLOTS))]"
			elif [ "$n" -le $SLOTS ] && [ $((ns1 - ns0)) -ne 0 ]; then
				slot_missed="$slot_missed [$cc $n: no_slot +$((ns1 - ns0)) after the slots were freed]"
			fi
			;;
		esac
	done
	tap_diag "$n connections: $(summary "$RESULTS/scale-$n.txt")"
	tap_check "$([ -z "$bad_up" ] && echo 1)" "$n connections of each CCA come up and run it" "${bad_up:-every one}"
	tap_check "$([ -z "$bad_run" ] && echo 1)" "$n connections: none stalls, short ones complete" "${bad_run:-none stalled}"
	[ "$n" -gt $SLOTS ] &&
		mem_case="$n connections: slab per connection within $SLAB_SLACK B of CUBIC's" mem_bad=$bad_mem mem_cubic=$cubic_mem
done
tap_check "$([ -z "$mem_bad" ] && echo 1)" "$mem_case" "${mem_bad:-cubic $mem_cubic B}"
tap_check "$([ -z "$slot_missed" ] && echo 1)" \
	"pad_bbr, pad_etc beyond slots=$SLOTS run the inner CCA (no_slot), and find slots again after" \
	"${slot_missed:-no_slot $(no_slot)}"

# ---- 7-8: abc through sch_abc
for n in "${sizes[@]}"; do
	what="$n abc connections through sch_abc: none stalls"
	if [ $have_sch_abc = 0 ]; then
		tap_skip "$what" "sch_abc.ko or q_abc.so not built"
		continue
	fi
	if ! err=$(ip netns exec $S tc qdisc replace dev scs root abc bandwidth 200mbit limit 10000 2>&1); then
		tap_fail "$what" "tc: $err"
		continue
	fi
	client abc "$n" $ABC_PORT
	xs=$(ip netns exec $S tc -s qdisc show dev scs | grep -o 'accelerates [0-9]* brakes [0-9]*')
	echo "$out" >"$RESULTS/scale-sch_abc-$n.txt"
	ce=$(jget "$out" connect_errors) wc=$(jget "$out" wrong_cca) st=$(jget "$out" stalled)
	dr=$(jget "$out" drain_s)
	tap_diag "$n abc over sch_abc: $(jget "$out" second_half_mbit) Mbit/s, per flow min $(jget "$out" min_mbit) median $(jget "$out" median_mbit), Jain $(jget "$out" jain); $xs"
	tap_check "$([ "$ce" = 0 ] && [ "$wc" = 0 ] && [ "$st" = 0 ] && echo 1)" "$what" \
		"${ce:-?} connect errors, ${wc:-?} not abc, ${st:-?} not drained in ${dr:-?} s"
	ip netns exec $S tc qdisc del dev scs root 2>/dev/null
done

kill $(jobs -p) 2>/dev/null
wait 2>/dev/null
ip netns del $S; ip netns del $R
settled=ok
settle || settled="refcnt $(counts), expected $base"
tap_check "$([ "$settled" = ok ] && echo 1)" "module reference counts back" "$settled: $(counts)"
left=""
for m in pad_shim tcp_pcc sch_abc tcp_abc tcp_etc; do
	grep -q "^$m " /proc/modules || continue
	rmmod "$m" 2>/dev/null || left="$left $m"
done
tap_check "$([ -z "$left" ] && echo 1)" "every module unloads" "${left:+still loaded:$left}"
bad=$(dmesg | tail -n +"$((dmesg0 + 1))" |
	grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t|rcu.*(stall|self-detected)|module_put|underflow|page allocation failure')
tap_check "$([ -z "$bad" ] && echo 1)" "dmesg: no WARNING, BUG, Oops, refcount, RCU stall or allocation failure" \
	"$(head -n 3 <<<"$bad" | tr '\n' ' ')"
tap_done
