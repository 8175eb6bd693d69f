#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pad_shim in a guest: bad parameters refused at load and at run time,
# pad_bbr registered around tcp_bbr (loaded first or requested), selected
# per socket (iperf3 -C pad_bbr, setsockopt), both unload orders (tcp_bbr
# refused while wrapped, pad_shim refused while a socket uses pad_bbr,
# then both unload), inner=bbr,etc with tcp_etc (also with its window
# law, whose state tcp_etc allocates) and inner=bbr,pcc with
# tcp_pcc, counters, tracepoint, the reset on a restart after idle, and
# the receiver's clock: it bounds samples on a jittered path, and a peer
# without timestamps gets PAD without it.
# The steady-link comparison with bbr is tests/vm/pad_shim_steady.sh.
source "$(dirname "$0")/lib.sh"
require_root
require_tools iperf3 jq

ko=$MODDIR/pad_shim/pad_shim.ko
etc_ko=$MODDIR/tcp_etc/tcp_etc.ko
pcc_ko=$MODDIR/tcp_pcc/tcp_pcc.ko
P=/sys/module/pad_shim/parameters
NS=pad-lo

tap_plan 27

if [ ! -f "$ko" ]; then
	tap_fail "pad_shim built for $KVER" "no $ko (make modules-all)"
	tap_done
fi

cleanup() {
	ip netns del $NS 2>/dev/null
	kill $(jobs -p) 2>/dev/null
}
trap cleanup EXIT
rmmod pad_shim 2>/dev/null
rmmod tcp_etc 2>/dev/null
rmmod tcp_pcc 2>/dev/null

loaded() { grep -q "^$1 " /proc/modules; }
avail() { cat /proc/sys/net/ipv4/tcp_available_congestion_control; }
refcnt() { cat "/sys/module/$1/refcnt" 2>/dev/null || echo none; }
# the last message pad_shim printed
lastmsg() { dmesg | grep -o 'pad_shim: .*' | tail -n 1; }
unload() {	# unload MODULE: retry while closing sockets let go
	local _
	for _ in $(seq 10); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 1
	done
	return 1
}

# ---- bad load parameters: refused, nothing registered
modprobe tcp_bbr
bad=""
for args in "k=0.5" "k=abc" "k=3" "w=0" "w=65" "jitter_lift=16.5" "jitter_lift=-1" \
	"slots=70000" "inner=" \
	"inner=cubic" "inner=pad_bbr" "inner=nosuchcca" "inner=bbr,bbr" \
	"inner=bbr:105" "inner=averyveryverylongname" "inner=bbr slots=0"; do
	# shellcheck disable=SC2086
	if insmod "$ko" $args 2>/dev/null; then
		bad="$bad [$args loaded]"
		rmmod pad_shim
	fi
	grep -q pad_ <<<"$(avail)" && bad="$bad [$args left $(avail)]"
done
tap_check "$([ -z "$bad" ] && echo 1)" "insmod with bad parameters refused, nothing registered" \
	"${bad:-16 cases refused; last message: $(lastmsg)}"
msg=$(insmod "$ko" inner=cubic 2>&1; dmesg | grep -o 'pad_shim: inner "cubic".*' | tail -n 1)
tap_check "$(grep -q 'no cong_control' <<<"$msg" && echo 1)" "inner without cong_control refused with a message" "$msg"
msg=$(insmod "$ko" inner=dctcp 2>&1; dmesg | grep -o 'pad_shim: inner "dctcp".*' | tail -n 1)
tap_check "$(grep -q 'replaces a socket' <<<"$msg" && ! grep -qw pad_dctcp <<<"$(avail)" && echo 1)" \
	"inner that replaces a socket's ops (dctcp) refused with a message" "$msg"
msg=$(insmod "$ko" slots=0 2>&1; dmesg | grep -o 'pad_shim: inner "bbr" refused.*' | tail -n 1)
tap_check "$(grep -q 'do not fit' <<<"$msg" && echo 1)" "slots=0: bbr's 104 bytes and PAD's do not fit, refused" "$msg"

# ---- load around tcp_bbr, loaded first
bbr_before=$(refcnt tcp_bbr)
if ! err=$(insmod "$ko" 2>&1); then
	tap_fail "insmod pad_shim (inner=bbr)" "$err"
	tap_done
fi
tap_check "$(grep -qw pad_bbr <<<"$(avail)" && [ "$(refcnt tcp_bbr)" -gt "$bbr_before" ] && echo 1)" \
	"pad_bbr registered, tcp_bbr pinned" "available: $(avail); tcp_bbr refcnt $bbr_before -> $(refcnt tcp_bbr)"

# ---- run-time parameter writes
before="$(cat $P/k) $(cat $P/w) $(cat $P/hold_acked) $(cat $P/jitter_lift) $(cat $P/rx_clock)"
lift0=$(cat $P/jitter_lift)
bad=0
for v in 0.5 1 2.5 abc ""; do echo "$v" >$P/k 2>/dev/null && bad=1; done
for v in 0 65 -1 x; do echo "$v" >$P/w 2>/dev/null && bad=1; done
for v in 2 maybe; do echo "$v" >$P/hold_acked 2>/dev/null && bad=1; done
for v in 2 maybe; do echo "$v" >$P/rx_clock 2>/dev/null && bad=1; done
for v in 16.5 -1 x ""; do echo "$v" >$P/jitter_lift 2>/dev/null && bad=1; done
echo x 2>/dev/null >$P/inner && bad=1
echo 1 2>/dev/null >$P/stats && bad=1
after="$(cat $P/k) $(cat $P/w) $(cat $P/hold_acked) $(cat $P/jitter_lift) $(cat $P/rx_clock)"
echo 1.05 >$P/k && echo 8 >$P/w && echo N >$P/hold_acked && echo 0 >$P/jitter_lift &&
	echo N >$P/rx_clock &&
	good="$(cat $P/k) $(cat $P/w) $(cat $P/hold_acked) $(cat $P/jitter_lift) $(cat $P/rx_clock)"
echo 1.025 >$P/k
echo 16 >$P/w
echo Y >$P/hold_acked
echo "$lift0" >$P/jitter_lift
echo Y >$P/rx_clock
tap_check "$([ $bad = 0 ] && [ "$before" = "$after" ] && [ "$good" = "1.0500 8 N 0.0000 N" ] && echo 1)" \
	"bad parameter writes refused, values unchanged, good ones taken" \
	"k w hold_acked jitter_lift rx_clock: $before -> $after; 1.05 8 N 0 N -> ${good:-?}; inner $(cat $P/inner) slots $(cat $P/slots)"

if rmmod tcp_bbr 2>/dev/null; then
	tap_fail "rmmod tcp_bbr refused while pad_bbr wraps it" "tcp_bbr unloaded under pad_bbr"
	modprobe tcp_bbr
else
	tap_ok "rmmod tcp_bbr refused while pad_bbr wraps it" "refcnt $(refcnt tcp_bbr)"
fi

# ---- per-socket selection and unload refused while a socket uses it
ip netns add $NS
ip -n $NS link set lo up
ip netns exec $NS iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
sleep 0.5
# rate-limited, so the TCG guest keeps CPU for ss while it runs
ip netns exec $NS iperf3 -c 127.0.0.1 -p 5201 -t 15 -b 50M -C pad_bbr -J >"$RESULTS/pad-lo.json" 2>&1 &
fpid=$!
# Both data sockets (sender and receiver) hold pad_shim: wait for that,
# a little more so the flow is well inside its 15 s, then try to unload.
mid="flow not seen"
for _ in $(seq 100); do
	sleep 0.2
	if [ "$(refcnt pad_shim)" -ge 2 ] 2>/dev/null; then
		sleep 1
		rc_during=$(refcnt pad_shim)
		rmmod pad_shim 2>/dev/null && mid=unloaded || mid="refused (refcnt $rc_during)"
		kill -0 $fpid 2>/dev/null && mid="$mid, flow running" || mid="$mid, flow over"
		break
	fi
	kill -0 $fpid 2>/dev/null || break
done
wait $fpid
frc=$?
bps=$(jq -r '.end.sum_received.bits_per_second // 0' "$RESULTS/pad-lo.json" 2>/dev/null)
cc_used=$(jq -r '.start.test_start.congestion // .end.sender_tcp_congestion // empty' "$RESULTS/pad-lo.json" 2>/dev/null)
tap_check "$([ "$(jq -r .end.sender_tcp_congestion "$RESULTS/pad-lo.json" 2>/dev/null)" = pad_bbr ] && [ $frc = 0 ] && [ "${bps%.*}" -gt 1000000 ] && echo 1)" \
	"iperf3 -C pad_bbr over loopback" "$(printf '%.0f' "${bps:-0}") bit/s, iperf3 exit $frc, congestion ${cc_used:-?}"
tap_check "$([ "${mid%% *}" = refused ] && echo 1)" "rmmod pad_shim refused during a pad_bbr flow" "$mid"
loaded pad_shim || { tap_diag "pad_shim unloaded: reloading"; insmod "$ko"; }
tap_diag "stats after the loopback flow: $(cat $P/stats)"

hold_cc_socket $NS pad_bbr 200000
name=$HELD_NAME
rmmod pad_shim 2>/dev/null && mid=unloaded || mid=refused
rmmod tcp_bbr 2>/dev/null && mid2=unloaded || mid2=refused
tap_check "$([ "$name" = pad_bbr ] && [ $mid = refused ] && [ $mid2 = refused ] && echo 1)" \
	"idle connected socket on pad_bbr: rmmod pad_shim and tcp_bbr refused" \
	"getsockopt ${name:-nothing}; pad_shim $mid (refcnt $(refcnt pad_shim)), tcp_bbr $mid2"
release_cc_socket
ip netns del $NS

# ---- clean unload: pad_shim first, then tcp_bbr
unload pad_shim && u1=yes || u1=no
rmmod tcp_bbr 2>/dev/null && u2=yes || u2=no
tap_check "$([ $u1 = yes ] && [ $u2 = yes ] && ! grep -qw pad_bbr <<<"$(avail)" && echo 1)" \
	"sockets gone: pad_shim unloads, then tcp_bbr" "pad_shim $u1, tcp_bbr $u2; available: $(avail)"

# ---- tcp_bbr not loaded: pad_shim requests it
err=$(insmod "$ko" 2>&1)
tap_check "$(loaded tcp_bbr && grep -qw pad_bbr <<<"$(avail)" && echo 1)" \
	"without tcp_bbr loaded, insmod pad_shim loads it (TCP_CONGESTION autoload)" \
	"${err:-loaded}; tcp_bbr refcnt $(refcnt tcp_bbr)"
unload pad_shim && u1=yes || u1=no
rmmod tcp_bbr 2>/dev/null && u2=yes || u2=no
tap_check "$([ $u1 = yes ] && [ $u2 = yes ] && echo 1)" "and both unload again" "pad_shim $u1, tcp_bbr $u2"

# ---- pad_etc with tcp_etc's window=1: tcp_etc's .init allocates the
# window law's state and its .release frees it, both called through PAD;
# the law runs (its tracepoint reports law=window) and the flow keeps
# the link.  Whether the state is freed shows in the unload that follows.
check_pad_etc_window() {
	local t="pad_etc with tcp_etc window=1: the window law runs under PAD, the flow keeps the link"
	local win=/sys/module/tcp_etc/parameters/window tracing=/sys/kernel/tracing
	local ev=$tracing/events/tcp_etc/etc_update/enable gp nwin

	[ -d $tracing/events ] || mount -t tracefs nodev $tracing 2>/dev/null
	if [ ! -f $ev ] || ! echo 1 >$win; then
		tap_skip "$t" "no tcp_etc tracepoint or window parameter"
		return
	fi
	echo >$tracing/trace
	echo 1 >$ev
	if "$TOP/scripts/netlab" run --rate 20mbit --rtt 40ms --buffer 1bdp --qdisc tbf \
		--flow pad_etc --duration 8 --warmup 3 \
		--out "$RESULTS/pad-etc-window" >"$RESULTS/pad-etc-window.log" 2>&1; then
		gp=$(jq '.flows[0].goodput_mbps' "$RESULTS/pad-etc-window/result.json")
	fi
	echo 0 >$ev
	echo 0 >$win
	nwin=$(grep -c 'law=window' $tracing/trace)
	tap_check "$([ "$nwin" -gt 0 ] && awk -v g="${gp:-0}" 'BEGIN { exit !(g >= 10) }' && echo 1)" \
		"$t" "goodput ${gp:-none} Mbit/s of 19.1 (floor 10), $nwin events with law=window"
}

# ---- inner=bbr,NAME with this project's tcp_NAME: registers pad_NAME,
# a flow runs on it, tcp_NAME is pinned, both unload.  Four cases (five
# for etc, with check_pad_etc_window).
check_project_inner() {	# check_project_inner NAME KO PORT
	local name=$1 mko=$2 port=$3 err bps mid u1 u2 t
	local cases=("inner=bbr,$name registers pad_bbr and pad_$name"
		     "iperf3 -C pad_$name over loopback"
		     "rmmod tcp_$name refused while pad_$name wraps it"
		     "pad_shim, then tcp_$name unload")

	if [ ! -f "$mko" ] || ! insmod "$mko" 2>/dev/null; then
		for t in "${cases[@]}"; do
			tap_skip "$t" "tcp_$name not built or not loadable"
		done
		[ "$name" = etc ] && tap_skip "pad_etc with tcp_etc window=1" "tcp_etc not loadable"
		return
	fi
	modprobe tcp_bbr
	if ! err=$(insmod "$ko" inner=bbr,"$name" 2>&1); then
		tap_fail "${cases[0]}" "$err $(lastmsg)"
		for t in "${cases[@]:1}"; do
			tap_skip "$t" "not loaded"
		done
		[ "$name" = etc ] && tap_skip "pad_etc with tcp_etc window=1" "pad_shim not loaded"
		rmmod "tcp_$name" 2>/dev/null
		return
	fi
	tap_check "$(grep -qw pad_bbr <<<"$(avail)" && grep -qw "pad_$name" <<<"$(avail)" && echo 1)" \
		"${cases[0]}" "$(avail)"
	[ "$name" = etc ] && check_pad_etc_window
	ip netns add $NS
	ip -n $NS link set lo up
	ip netns exec $NS iperf3 -s -1 -D -p "$port" >/dev/null 2>&1
	sleep 0.5
	ip netns exec $NS iperf3 -c 127.0.0.1 -p "$port" -t 2 -C "pad_$name" -J \
		>"$RESULTS/pad-$name-lo.json" 2>&1
	bps=$(jq -r '.end.sum_received.bits_per_second // 0' "$RESULTS/pad-$name-lo.json" 2>/dev/null)
	ip netns del $NS
	tap_check "$([ "${bps%.*}" -gt 1000000 ] && echo 1)" "${cases[1]}" \
		"$(printf '%.0f' "${bps:-0}") bit/s"
	rmmod "tcp_$name" 2>/dev/null && mid=unloaded || mid=refused
	tap_check "$([ $mid = refused ] && echo 1)" "${cases[2]}" "$mid"
	unload pad_shim && u1=yes || u1=no
	unload "tcp_$name" && u2=yes || u2=no
	tap_check "$([ $u1 = yes ] && [ $u2 = yes ] && echo 1)" "${cases[3]}" \
		"pad_shim $u1, tcp_$name $u2"
}

check_project_inner etc "$etc_ko" 5202
check_project_inner pcc "$pcc_ko" 5203

# ---- tracepoint and counters on a short loopback flow
modprobe tcp_bbr
insmod "$ko" || { tap_fail "re-insmod pad_shim"; tap_done; }
tracing=/sys/kernel/tracing
[ -d $tracing/events ] || mount -t tracefs nodev $tracing 2>/dev/null
ev=$tracing/events/pad_shim/pad_event/enable
if [ -f $ev ]; then
	echo >$tracing/trace
	echo 1 >$ev
	ip netns add $NS
	ip -n $NS link set lo up
	ip netns exec $NS iperf3 -s -1 -D -p 5203 >/dev/null 2>&1
	sleep 0.5
	ip netns exec $NS iperf3 -c 127.0.0.1 -p 5203 -t 2 -C pad_bbr >/dev/null 2>&1
	echo 0 >$ev
	grep pad_event $tracing/trace >"$RESULTS/pad-trace-lo.txt"
	st=$(cat $P/stats)
	acks=$(awk '{ print $2 }' <<<"$st")
	tap_check "$([ "${acks:-0}" -gt 0 ] && [ -f $tracing/events/pad_shim/pad_event/format ] && echo 1)" \
		"stats count ACKs through PAD; tracepoint pad_shim:pad_event exists" \
		"$st; $(wc -l <"$RESULTS/pad-trace-lo.txt") events"

	# a restart after idle clears PAD's state: 1 MB, a second without
	# data, 1 MB on one connection; the socket's first event after the
	# idle second (a marker in the trace) is its reset, before any ACK
	echo >$tracing/trace
	echo 1 >$ev
	# (fd 3: netns exec mounts its own /sys, without tracefs)
	idle=$(ip netns exec $NS python3 - 3>$tracing/trace_marker <<'PYEOF' 2>&1
import os, socket, threading, time
srv = socket.socket()
srv.bind(("127.0.0.1", 5204))
srv.listen(1)
def sink():
    c, _ = srv.accept()
    while c.recv(65536):
        pass
threading.Thread(target=sink, daemon=True).start()
s = socket.create_connection(("127.0.0.1", 5204))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"pad_bbr")
s.sendall(b"x" * 1000000)
time.sleep(1.0)
os.write(3, b"pad-idle-mark\n")
s.sendall(b"x" * 1000000)
print(s.getsockname()[1])
s.close()
PYEOF
)
	echo 0 >$ev
	ip netns del $NS
	first=$(awk -v p="sport=$idle dport=5204 ev=" '
		/pad-idle-mark/ { m = 1; next }
		m && index($0, p) { sub(/.* ev=/, ""); print $1; exit }' $tracing/trace)
	n=$(grep -c "sport=$idle dport=5204 ev=reset" $tracing/trace)
	tap_check "$([ "$first" = reset ] && echo 1)" \
		"restart after a second idle clears PAD's state (reset event)" \
		"port ${idle:-?}: first event after the idle second: ${first:-none}; $n reset events in all"
else
	ip netns del $NS
	tap_skip "stats count ACKs through PAD; tracepoint pad_shim:pad_event exists" "no tracefs"
	tap_skip "restart after a second idle clears PAD's state (reset event)" "no tracefs"
fi

# ---- the receiver's clock
padstat() { tr ' ' '\n' <$P/stats | awk -v k="$1" 'f { print; exit } $0 == k { f = 1 }'; }
# a jittered ACK path: samples are bounded, and the flow keeps the link
rx0=$(padstat rx_bounded)
if "$TOP/scripts/netlab" run --rate 10mbit --rtt 80ms --buffer 1bdp --jitter 8ms \
	--jitter-dist normal --flow pad_bbr --duration 10 --warmup 3 \
	--out "$RESULTS/pad-rx" >"$RESULTS/pad-rx.log" 2>&1; then
	gp=$(jq '.flows[0].goodput_mbps' "$RESULTS/pad-rx/result.json")
	rx1=$(padstat rx_bounded)
	tap_check "$([ $((rx1 - rx0)) -gt 0 ] && awk -v g="$gp" 'BEGIN { exit !(g >= 7) }' && echo 1)" \
		"jittered ACK path: the receiver's clock bounds samples, the flow keeps the link" \
		"rx_bounded +$((rx1 - rx0)), goodput $gp Mbit/s of 9.6"
else
	tap_fail "jittered ACK path: the receiver's clock bounds samples, the flow keeps the link" \
		"netlab failed: $(tail -n 3 "$RESULTS/pad-rx.log")"
fi
# the same path with a receiver that does not negotiate timestamps: PAD
# runs without the receiver's clock
rx0=$(padstat rx_bounded)
a0=$(padstat acks)
if "$TOP/scripts/netlab" run --rate 10mbit --rtt 80ms --buffer 1bdp --jitter 8ms \
	--jitter-dist normal --no-timestamps --flow pad_bbr --duration 10 --warmup 3 \
	--out "$RESULTS/pad-nots" >"$RESULTS/pad-nots.log" 2>&1; then
	gp=$(jq '.flows[0].goodput_mbps' "$RESULTS/pad-nots/result.json")
	rx1=$(padstat rx_bounded)
	a1=$(padstat acks)
	tap_check "$([ $((a1 - a0)) -gt 0 ] && [ "$rx1" = "$rx0" ] && awk -v g="$gp" 'BEGIN { exit !(g >= 7) }' && echo 1)" \
		"no timestamps: pad_bbr keeps the link, nothing bounded by a receiver's clock" \
		"$((a1 - a0)) ACKs through PAD, rx_bounded $rx0 -> $rx1, goodput $gp Mbit/s"
else
	tap_fail "no timestamps: pad_bbr keeps the link, nothing bounded by a receiver's clock" \
		"netlab failed: $(tail -n 3 "$RESULTS/pad-nots.log")"
fi

unload pad_shim && u1=yes || u1=no
tap_check "$([ $u1 = yes ] && echo 1)" "pad_shim unloads at the end" "$u1"
tap_done
