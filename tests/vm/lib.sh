# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the kselftest-style VM tests: source this file, then
#
#   tap_plan 3
#   tap_ok   "what was checked" "measured: 19.4 Mbit/s"   # pass
#   tap_fail "what was checked" "measured: 12.0 Mbit/s"   # fail
#   tap_check COND "what" "measured: ..."                 # COND is a shell test
#   tap_skip "what" "why"
#   tap_todo COND "what" "measured" "why"                 # known miss: reported,
#                                                         # never a failure
#   tap_diag "free text"
#   tap_done                                              # exits 0, 1 or 4
#
# Exit codes follow kselftest: 0 pass, 1 fail, 4 skip (every case skipped).

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KVER=$(uname -r)
# Modules built for this kernel by `make modules-all`.
MODDIR=$TOP/build/$KVER
# Results that must leave the guest go here (shared read-write).
RESULTS=${VM_OUT:-$(mktemp -d)}/results
mkdir -p "$RESULTS"

# tc finds the sch_abc plugin (q_abc.so, `make tc-plugin`) through
# TC_LIB_DIR.  That variable replaces tc's lib dir, which also holds
# netem's delay distributions, so the dir links those in beside it.  One
# dir per checkout, made by the first test of a guest boot (processes are
# slow in a TCG guest; the rest is bash builtins).
if [ -f "$TOP/build/tc/q_abc.so" ] && [ -z "${TC_LIB_DIR:-}" ]; then
	TC_LIB_DIR=/tmp/tc-lib${TOP//\//-}
	if [ ! -L "$TC_LIB_DIR/q_abc.so" ]; then
		mkdir -p "$TC_LIB_DIR"
		for _d in /usr/lib/*/tc /usr/lib/tc /usr/lib64/tc; do
			[ -d "$_d" ] && ln -sf -t "$TC_LIB_DIR" "$_d"/*
		done
		ln -sf "$TOP/build/tc/q_abc.so" "$TC_LIB_DIR/q_abc.so"
		unset _d
	fi
	export TC_LIB_DIR
fi

_tap_n=0
_tap_fail=0
_tap_skip=0

tap_plan() {
	_tap_plan=$1
	echo "TAP version 13"
	echo "1..$1"
}

tap_diag() {
	local line
	while IFS= read -r line; do echo "# $line"; done <<<"$*"
}

tap_ok() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1${2:+ # $2}"
}

tap_fail() {
	_tap_n=$((_tap_n + 1))
	_tap_fail=$((_tap_fail + 1))
	echo "not ok $_tap_n - $1${2:+ # $2}"
}

tap_skip() {
	_tap_n=$((_tap_n + 1))
	_tap_skip=$((_tap_skip + 1))
	echo "ok $_tap_n - $1 # SKIP ${2:-}"
}

# tap_check "COND" "what" "measured" - COND is evaluated with `test`-like
# arithmetic by the caller, e.g. tap_check "$(fge "$x" 18)" ...
tap_check() {
	if [ "$1" = 1 ]; then tap_ok "$2" "$3"; else tap_fail "$2" "$3"; fi
}

# A target the code does not meet yet: TAP's TODO directive reports the
# result and the reason without failing the run (prove and our runners
# count it apart).  Use it only for a miss written down in Documentation/.
tap_todo() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $_tap_n - $2 # TODO ${4:-known miss}: $3"
	else
		echo "not ok $_tap_n - $2 # TODO ${4:-known miss}: $3"
	fi
}

tap_done() {
	if [ -n "${_tap_plan:-}" ] && [ "$_tap_n" -ne "$_tap_plan" ]; then
		echo "# planned $_tap_plan cases, ran $_tap_n"
		exit 1
	fi
	if [ "$_tap_fail" -gt 0 ]; then exit 1; fi
	if [ "$_tap_n" -gt 0 ] && [ "$_tap_skip" -eq "$_tap_n" ]; then exit 4; fi
	exit 0
}

# Floating-point comparisons for measured numbers: print 1 or 0.
fge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? 1 : 0 }'; }
fle() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 <= b + 0) ? 1 : 0 }'; }
# fin X LO HI: 1 when LO <= X <= HI
fin() { awk -v a="$1" -v l="$2" -v h="$3" 'BEGIN { print (a + 0 >= l + 0 && a + 0 <= h + 0) ? 1 : 0 }'; }

# netlab_check DIR NAME=EXPR... [--set NAME=NUMBER]: evaluate each EXPR over
# DIR/result.json of a netlab run (scripts/netlab check --help) and set
# the shell variable NAME to its value: a number, 1/0 for a comparison,
# null when it cannot be evaluated (the reason becomes a TAP comment).
netlab_check() {
	local _dir=$1 _out _line
	shift
	_out=$("$TOP/scripts/netlab" check "$_dir" "$@" 2>"$RESULTS/netlab-check.err")
	while IFS= read -r _line; do
		[[ $_line =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] && eval "$_line"
	done <<<"$_out"
	[ -s "$RESULTS/netlab-check.err" ] && tap_diag "$(<"$RESULTS/netlab-check.err")"
	return 0
}

# short_of_pacing FILE I RTT_MS: why flow I of netlab's FILE (a
# result.json) shows a stalled guest, or nothing: it delivered less than
# 70 % of its own median pacing rate while its RTT p50 stayed at most
# RTT_MS (no queue to speak of) and its median cwnd allowed that rate.
# The CCA asked for more than the guest sent; a CCA fault shows in its
# pacing rate or cwnd instead (Documentation/pad_shim.rst, Tests).
short_of_pacing() {
	jq -r --argjson i "$2" --argjson rmax "$3" '
		def med(s): [s | select(. != null)] | sort
			| if length > 0 then .[length / 2 | floor] else 0 end;
		.flows[$i] as $f
		| med($f.pacing_rate_series.mbps[]?) as $pace
		| med($f.cwnd_series.packets[]?) as $cwnd
		| ($f.goodput_mbps // 0) as $g | ($f.rtt.p50 // 0) as $r
		| if $r > 0 and $r <= $rmax and $g < 0.7 * $pace
		     and $cwnd * 1448 * 8 / ($r * 1000) >= $pace
		  then "\($g) Mbit/s at a median pacing rate of \($pace), cwnd \($cwnd), RTT p50 \($r) ms"
		  else "" end' "$1" 2>/dev/null
}

# flow_evidence FILE I: what a performance miss of flow I in netlab's FILE
# needs to be explained, for a diagnostic line: its median pacing rate and
# cwnd, its retransmission ratio, and the gaps between the sampler's ss
# samples (every 0.1 s; a quiet guest keeps them under 0.15 s, so longer
# ones show the guest itself was held up).
flow_evidence() {
	jq -r --argjson i "$2" '
		def med(s): [s | select(. != null)] | sort
			| if length > 0 then .[length / 2 | floor] else null end;
		.flows[$i] as $f
		| [$f.rtt_series.t_s as $t | range(1; $t | length) | $t[.] - $t[. - 1]] as $gap
		| [$gap[] | select(. > 0.3)] as $long
		| "pacing median \(med($f.pacing_rate_series.mbps[]?)) Mbit/s, cwnd median \(med($f.cwnd_series.packets[]?)), retransmitted \($f.retrans_ratio), ss sample gaps: longest \(($gap | max // 0) * 1000 | round) ms, \($long | length) over 0.3 s (\(($long | add // 0) * 10 | round / 10) s)"' "$1" 2>/dev/null
}

# refcounts MODULE...: "name=refcnt " for each ("gone" if not loaded).
refcounts() {
	local m r
	for m in "$@"; do
		r=$(cat "/sys/module/$m/refcnt" 2>/dev/null) || r=gone
		printf '%s=%s ' "$m" "$r"
	done
}

# settle_refcounts SECONDS WANT MODULE...: wait until `refcounts MODULE...`
# prints WANT.  Closed sockets release their congestion control only
# once FIN_WAIT and LAST_ACK are over.
settle_refcounts() {
	local n=$(($1 * 2)) want=$2 _
	shift 2
	for _ in $(seq "$n"); do
		[ "$(refcounts "$@")" = "$want" ] && return 0
		sleep 0.5
	done
	return 1
}

# veth_pair S R DEV_S DEV_R NET LIMIT: namespaces S and R joined by veth
# (NET.1 in S, NET.2 in R, /24), 10 ms of netem (LIMIT packets) on R's
# egress, the ACK path, so data is in flight.  Fails if any step does.
veth_pair() {
	ip netns add "$1" && ip netns add "$2" &&
		ip link add "$3" type veth peer name "$4" &&
		ip link set "$3" netns "$1" && ip link set "$4" netns "$2" &&
		ip -n "$1" addr add "$5.1/24" dev "$3" && ip -n "$2" addr add "$5.2/24" dev "$4" &&
		ip -n "$1" link set "$3" up && ip -n "$2" link set "$4" up &&
		ip -n "$1" link set lo up && ip -n "$2" link set lo up &&
		tc -n "$2" qdisc add dev "$4" root netem delay 10ms limit "$6"
}

# wait_listen NS PORT: wait up to 30 s for a TCP listener on PORT in
# namespace NS.  A Python server takes seconds to start in a TCG guest.
wait_listen() {
	local _
	for _ in $(seq 60); do
		[ -n "$(ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	return 1
}

# Modules present in this tree (folders with a Kbuild), in load order.
cc_modules() {
	make -s --no-print-directory -C "$TOP" list-modules
}

# require_tools TOOL...: skip the whole test, kselftest style, when one is
# missing (scripts/deps installs them all).
require_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		tap_plan 1
		tap_skip "$(basename "$0" .sh)" "$tool not installed"
		tap_done
	done
}

require_root() {
	[ "$(id -u)" -eq 0 ] || { tap_plan 1; tap_skip "$(basename "$0")" "needs root"; tap_done; }
}

# hold_cc_socket NS CCA BYTES: in namespace NS, connect a loopback TCP
# socket set to CCA with setsockopt(TCP_CONGESTION), send BYTES through
# it, and keep it open (idle) in the background.  Sets HELD_NAME to what
# getsockopt(TCP_CONGESTION) reports once it is connected (empty if it
# never connects).  Call it directly, not in $(...): it keeps state in
# globals.  release_cc_socket closes the socket again.
HELD_STATE='' HELD_PID='' HELD_NAME=''
hold_cc_socket() {
	HELD_STATE=$(mktemp "${TMPDIR:-/tmp}/cc-sock.XXXXXX")
	rm -f "$HELD_STATE"
	ip netns exec "$1" /usr/bin/python3 - "$HELD_STATE" "$2" "$3" >/dev/null 2>&1 <<'PYEOF' &
import os, socket, sys, time
TCP_CONGESTION = 13
state, cca, nbytes = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
srv = socket.socket(); srv.bind(("127.0.0.1", 5300)); srv.listen(1)
c = socket.socket()
c.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cca)
c.connect(("127.0.0.1", 5300)); a, _ = srv.accept()
name = c.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
c.sendall(b"x" * nbytes); a.recv(65536)
open(state, "w").write(name + "\n")
while os.path.exists(state):
    time.sleep(0.1)
c.close(); a.close(); srv.close()
PYEOF
	HELD_PID=$!
	for _ in $(seq 300); do [ -s "$HELD_STATE" ] && break; sleep 0.1; done
	HELD_NAME=$(cat "$HELD_STATE" 2>/dev/null)
}

release_cc_socket() {
	rm -f "$HELD_STATE"
	[ -n "$HELD_PID" ] && wait "$HELD_PID"
	HELD_PID=
}

# capture_start NS FILE FILTER...: tcpdump of what arrives on eth0 in
# namespace NS, written packet by packet (--immediate-mode -U: a
# TPACKET_V3 block would otherwise hold the last second of packets, lost
# when tcpdump is stopped) to a local file, which capture_stop moves to
# FILE: a guest writes its results over a 9p share, at about 1.5 ms per
# small write, and a capture written there lagged by 35 s.  Returns once
# tcpdump is listening (up to 30 s; a TCG guest starts it slowly) with
# its pid in CAPTURE_PID, or fails.  capture_stop PID FILE stops it once
# the capture has not grown for 1 s (up to 60 s: tcpdump on a starved
# guest lags, and on SIGINT it drops what it has not read yet without
# counting it) and sets CAPTURE_DROPPED to the packets the kernel dropped
# from the capture.  Call both directly, not in $(...): they keep state
# in globals.
CAPTURE_PID='' CAPTURE_DROPPED='' CAPTURE_LOCAL=''
capture_start() {
	local ns=$1 file=$2 _
	shift 2
	rm -f "$file" "$file.err"
	CAPTURE_LOCAL=$(mktemp "${TMPDIR:-/tmp}/capture.XXXXXX") || return 1
	ip netns exec "$ns" tcpdump -i eth0 -Q in -s 96 -B 8192 -n --immediate-mode -U \
		-Z root -w "$CAPTURE_LOCAL" "$@" >/dev/null 2>"$file.err" &
	CAPTURE_PID=$!
	for _ in $(seq 150); do
		grep -q "listening on" "$file.err" 2>/dev/null && return 0
		kill -0 "$CAPTURE_PID" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

capture_stop() {
	local pid=$1 file=$2 size=-1 same=0 now _
	for _ in $(seq 120); do
		now=$(stat -c %s "$CAPTURE_LOCAL" 2>/dev/null)
		if [ "$now" = "$size" ]; then
			same=$((same + 1))
			[ $same -ge 2 ] && break
		else
			same=0
		fi
		size=$now
		sleep 0.5
	done
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	mv -f "$CAPTURE_LOCAL" "$file"
	CAPTURE_DROPPED=$(sed -n 's/^\([0-9]*\) packets\? dropped by kernel.*/\1/p' "$file.err")
}

# pcap_count FILE FILTER: how many packets of the capture FILE match the
# filter.  tcpdump --count runs the filter alone; printing the packets
# took a TCG guest about 1 ms each, 30 s for one pass over a capture of
# sch_abc_ipv6.sh.
pcap_count() {
	tcpdump --count -r "$1" "$2" 2>/dev/null | awk '/ packets?$/ { n = $1 } END { print n + 0 }'
}

# abc_e2e_setup PREFIX CASE...: for a test of tcp_abc over sch_abc through
# netlab.  Skips every CASE (and ends the test) when tcp_abc.ko,
# sch_abc.ko or q_abc.so is not built; otherwise loads both modules and
# makes abc the initial namespace's default, which the receiver inherits
# (it must run abc to echo each CE precisely).  The EXIT trap tears down
# netlab's namespaces of PREFIX, restores the default and unloads both.
abc_e2e_setup() {
	local prefix=$1 f c
	shift
	for f in "$MODDIR/tcp_abc/tcp_abc.ko" "$MODDIR/sch_abc/sch_abc.ko" \
		 "${TC_LIB_DIR:-/nonexistent}/q_abc.so"; do
		[ -e "$f" ] && continue
		for c in "$@"; do
			tap_skip "$c" "$(basename "$f") not built in this tree"
		done
		tap_done
	done
	_abc_prefix=$prefix
	_abc_old_cc=$(sysctl -n net.ipv4.tcp_congestion_control)
	trap _abc_e2e_cleanup EXIT
	grep -q '^tcp_abc ' /proc/modules || insmod "$MODDIR/tcp_abc/tcp_abc.ko"
	grep -q '^sch_abc ' /proc/modules || insmod "$MODDIR/sch_abc/sch_abc.ko"
	sysctl -qw net.ipv4.tcp_congestion_control=abc
}

_abc_e2e_cleanup() {
	"$TOP/scripts/netlab" teardown --all --prefix "$_abc_prefix" >/dev/null 2>&1
	sysctl -qw net.ipv4.tcp_congestion_control="$_abc_old_cc"
	rmmod tcp_abc 2>/dev/null
	rmmod sch_abc 2>/dev/null
}
