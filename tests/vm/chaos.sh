#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Chaos suite: every congestion control of the tree (etc, pcc, abc, and
# pad_shim around bbr, etc, pcc and abc) with cubic and bbr as controls,
# abused the way a busy host would:
#  - TCP_CONGESTION switched back and forth mid-flow, every ordered pair,
#    on one connection per CCA, all at once, with data in flight, then
#    an idle second (restart after idle) and more data; against a
#    receiver with ECN off, SACK off, timestamps off, one running cubic
#    and one running abc;
#  - 64 parallel flows of each, with rmmod of its module tried under load;
#  - 20 load/unload cycles.
# Afterwards the modules' reference counts must be back where they were,
# every module must unload, and dmesg must be clean.
#
# About 180-250 s in a TCG guest; the runner's default 300 s is too close.
# vm-timeout: 480
source "$(dirname "$0")/lib.sh"
require_root
require_tools iperf3 python3 ss

S=chaos-s
R=chaos-r
PORT=5310
IPORT=5311
CCAS="etc pcc abc pad_bbr pad_etc pad_pcc pad_abc cubic bbr"
MODS="tcp_etc tcp_abc sch_abc tcp_pcc"	# load order; pad_shim last
INNER=bbr,etc,pcc,abc
CYCLES=${CHAOS_CYCLES:-20}

tap_plan 12

cleanup() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip netns del $S 2>/dev/null
	ip netns del $R 2>/dev/null
}
trap cleanup EXIT

counts() { refcounts $MODS pad_shim tcp_bbr; }
# the module a congestion control lives in
owner() {
	case $1 in
	pad_*) echo pad_shim ;;
	cubic) echo "" ;;
	*) echo "tcp_$1" ;;
	esac
}
unload_all() {
	local m
	for m in pad_shim tcp_pcc sch_abc tcp_abc tcp_etc; do
		grep -q "^$m " /proc/modules || continue
		rmmod "$m" 2>/dev/null || return 1
	done
}
load_all() {
	local m
	modprobe tcp_bbr || return 1
	for m in $MODS; do
		insmod "$MODDIR/$m/$m.ko" || return 1
	done
	insmod "$MODDIR/pad_shim/pad_shim.ko" inner=$INNER
}
settle() { settle_refcounts 30 "$base" $MODS pad_shim tcp_bbr; }
dmesg_bad() {
	dmesg | tail -n +"$((dmesg0 + 1))" |
		grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t|rcu.*(stall|self-detected)|module_put|underflow'
}

dmesg0=$(dmesg | wc -l)
for m in pad_shim tcp_pcc sch_abc tcp_abc tcp_etc; do rmmod "$m" 2>/dev/null; done

# ---- 1: load everything
if ! err=$(load_all 2>&1); then
	tap_fail "load tcp_bbr, $MODS, pad_shim inner=$INNER" "$err"
	tap_done
fi
base=$(counts)
tap_ok "load tcp_bbr, $MODS, pad_shim inner=$INNER" "refcnt: $base"

# Two namespaces over veth, 10 ms on the ACK path so data is in flight.
veth_pair $S $R chs chr 10.77.0 10000 ||
	{ tap_fail "chaos topology" "ip/tc failed"; tap_done; }

# The receiver: accept, read until EOF, any number of connections.
server() {	# server LISTENER_CCA
	ip netns exec $R python3 - "$1" $PORT <<'PYEOF' &
import socket, sys, threading
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.setsockopt(socket.IPPROTO_TCP, 13, sys.argv[1].encode())
srv.bind(("10.77.0.2", int(sys.argv[2]))); srv.listen(64)
def sink(c):
    while c.recv(1 << 16):
        pass
    c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=sink, args=(c,), daemon=True).start()
PYEOF
	SERVER_PID=$!
	wait_listen $R $PORT
}

# The sender: one connection per CCA a, all at once, each in its own
# thread; for every other b, switch to b and back to a while the send
# buffer is full; then idle, resume, close.
switch_all() {
	ip netns exec $S python3 - $PORT $CCAS <<'PYEOF'
import socket, sys, threading, time
TCP_CONGESTION = 13
port, ccas = int(sys.argv[1]), sys.argv[2:]
chunk = b"x" * 65536
def send_for(s, secs):
    end = time.time() + secs
    while time.time() < end:
        s.sendall(chunk)
def name(s):
    n = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
    # abc on its own ops, with a peer without ECN (Documentation/tcp_abc.rst)
    return "abc" if n == "abc-noecn" else n
bad = []
def run(a):
    try:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.encode())
        s.connect(("10.77.0.2", port))
        send_for(s, 0.05)
        for b in ccas:
            if b == a:
                continue
            s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b.encode())
            send_for(s, 0.03)
            if name(s) != b:
                bad.append("%s->%s runs %s" % (a, b, name(s)))
            s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.encode())
            send_for(s, 0.03)
        time.sleep(1.0)		# idle: the next send is a restart
        send_for(s, 0.1)
        if name(s) != a:
            bad.append("%s runs %s after idle" % (a, name(s)))
        s.close()
    except OSError as e:
        bad.append("%s: %s" % (a, e))
threads = [threading.Thread(target=run, args=(a,)) for a in ccas]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("; ".join(bad) if bad else "ok")
PYEOF
}

# ---- 2-6: switching, against five receivers
for cfg in "cubic" "abc" "cubic tcp_ecn=0" "cubic tcp_sack=0" "cubic tcp_timestamps=0"; do
	read -r lcc sc <<<"$cfg"
	[ -n "$sc" ] && ip netns exec $R sysctl -qw "net.ipv4.$sc"
	server "$lcc"
	t0=$(date +%s)
	res=$(switch_all 2>&1 | tail -n 1)
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
	settled=ok
	settle || settled="refcnt $(counts), expected $base"
	[ -n "$sc" ] && ip netns exec $R sysctl -qw "net.ipv4.${sc%=*}=$(sysctl -n "net.ipv4.${sc%=*}")"
	tap_check "$([ "$res" = ok ] && [ "$settled" = ok ] && echo 1)" \
		"every pair switched mid-flow, idle, resume; receiver ${lcc}${sc:+, $sc}" \
		"$res; references $settled; $(($(date +%s) - t0)) s"
done

# ---- 7-8: 64 parallel flows of each, rmmod of its module tried under load
ip netns exec $R iperf3 -s -D -p $IPORT >/dev/null 2>&1
sleep 1
bad="" refused=""
: >"$RESULTS/chaos-parallel.txt"
for cc in $CCAS; do
	log=$(mktemp)
	ip netns exec $S iperf3 -c 10.77.0.2 -p $IPORT -P 64 -t 2 -C "$cc" -J >"$log" 2>&1 &
	ipid=$!
	m=$(owner "$cc")
	sleep 1.5
	if [ -n "$m" ] && rmmod "$m" 2>/dev/null; then
		refused="$refused [$m unloaded under $cc]"
	fi
	wait $ipid
	gp=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]/1e6, 1))' "$log" 2>/dev/null)
	[ "$(fge "${gp:-0}" 0.1)" = 1 ] || bad="$bad [$cc: $(grep -o '"error":.*' "$log" | head -c 120)]"
	printf '%s %s Mbit/s\n' "$cc" "${gp:-?}" >>"$RESULTS/chaos-parallel.txt"
	rm -f "$log"
done
tap_check "$([ -z "$bad" ] && echo 1)" "64 parallel flows of each CCA" \
	"${bad:-$(tr '\n' ' ' <"$RESULTS/chaos-parallel.txt")}"
tap_check "$([ -z "$refused" ] && echo 1)" "rmmod refused while its CCA carries flows" "${refused:-every attempt refused}"
pkill -f "iperf3 -s -D -p $IPORT" 2>/dev/null

# ---- 9-10: references back, everything unloads
settled=ok
settle || settled="refcnt $(counts), expected $base"
tap_check "$([ "$settled" = ok ] && echo 1)" "module reference counts back to their values after load" \
	"$settled: $(counts)"
ip netns del $S; ip netns del $R
err=$(unload_all 2>&1) && err=""
left=$(grep -Eo "^(tcp_etc|tcp_abc|sch_abc|tcp_pcc|pad_shim) " /proc/modules | tr -d '\n')
tap_check "$([ -z "$left" ] && echo 1)" "every module unloads" "${left:+still loaded: $left $err}"

# ---- 11: load/unload cycles
fails=0
for i in $(seq "$CYCLES"); do
	if ! load_all >/dev/null 2>&1 || ! unload_all; then
		fails=$((fails + 1))
		unload_all
	fi
done
tap_check "$([ $fails = 0 ] && echo 1)" "$CYCLES load/unload cycles" "$fails failed; tcp_bbr $(refcounts tcp_bbr)"

# ---- 12: the kernel said nothing bad
bad=$(dmesg_bad)
tap_check "$([ -z "$bad" ] && echo 1)" "dmesg: no WARNING, BUG, Oops, refcount or RCU stall" \
	"$(head -n 3 <<<"$bad" | tr '\n' ' ')"
tap_done
