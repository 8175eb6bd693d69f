# SPDX-License-Identifier: GPL-2.0
"""Network namespaces, netlink and ioctls (no per-sample process spawns:
in a TCG guest every ss/tc exec costs 0.1-0.4 s), and ICMP echo."""

import contextlib
import ctypes
import fcntl
import os
import re
import signal
import socket
import struct
import subprocess
import time

from .common import Error

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def run(argv, input=None, check=True):
    """Run a command, return CompletedProcess; raise Error on failure."""
    try:
        proc = subprocess.run(argv, input=input, capture_output=True, text=True)
    except FileNotFoundError:
        raise Error(f"{argv[0]} not found")
    if check and proc.returncode != 0:
        raise Error(f"`{' '.join(argv)}` failed: {proc.stderr.strip()}")
    return proc


def run_batch(tool, ns, lines, hint=""):
    """Run `ip`/`tc` commands in one process (`-batch -`), reporting the failing line."""
    argv = [tool] + (["-n", ns] if ns else []) + ["-batch", "-"]
    proc = run(argv, input="\n".join(lines) + "\n", check=False)
    if proc.returncode != 0:
        m = re.search(r"Command failed -:(\d+)", proc.stderr)
        where = lines[int(m.group(1)) - 1] if m else "?"
        msg = "\n".join(ln for ln in proc.stderr.splitlines() if "Command failed" not in ln)
        raise Error(f"{tool} {'in ' + ns if ns else ''} refused `{where}`: {msg.strip()}{hint}")


class Netns:
    """A named network namespace (/run/netns/NAME)."""

    def __init__(self, name):
        self.name = name

    @contextlib.contextmanager
    def entered(self):
        """Switch this thread into the namespace for the duration of the block."""
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{self.name}", os.O_RDONLY)
        try:
            _setns(target)
            try:
                yield
            finally:
                _setns(own)
        finally:
            os.close(own)
            os.close(target)

    def socket(self, family, kind, proto=0):
        with self.entered():
            return socket.socket(family, kind, proto)

    def sysctl(self, key, value):
        with self.entered():
            with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
                f.write(str(value))

    def ifindex(self, dev):
        with self.entered():
            return socket.if_nametoindex(dev)

    def cmd(self, argv):
        return ["ip", "netns", "exec", self.name] + list(argv)

    def popen(self, argv, **kw):
        return subprocess.Popen(self.cmd(argv), **kw)


SIOCETHTOOL = 0x8946
ETHTOOL_STSO, ETHTOOL_SGSO, ETHTOOL_SGRO = 0x1F, 0x24, 0x2C
ETHTOOL_GTSO, ETHTOOL_GGSO, ETHTOOL_GGRO = 0x1E, 0x23, 0x2B


def _ethtool_value(ns, dev, cmd, value=0):
    """One legacy ethtool_value ioctl on DEV; returns the value it holds after."""
    with contextlib.closing(ns.socket(socket.AF_INET, socket.SOCK_DGRAM)) as s:
        buf = ctypes.create_string_buffer(struct.pack("=II", cmd, value))
        ifr = struct.pack("16sP", dev.encode(), ctypes.addressof(buf)).ljust(40, b"\0")
        fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
        return struct.unpack("=II", buf.raw[:8])[1]


def set_offloads(ns, dev, **features):
    """ethtool -K DEV tso|gso|gro on|off."""
    cmds = {"tso": ETHTOOL_STSO, "gso": ETHTOOL_SGSO, "gro": ETHTOOL_SGRO}
    for name, on in features.items():
        _ethtool_value(ns, dev, cmds[name], int(on))


def get_offloads(ns, dev):
    """ethtool -k DEV: {"tso": bool, "gso": bool, "gro": bool}."""
    cmds = {"tso": ETHTOOL_GTSO, "gso": ETHTOOL_GGSO, "gro": ETHTOOL_GGRO}
    return {name: bool(_ethtool_value(ns, dev, cmd)) for name, cmd in cmds.items()}


def offloads_off(ns, dev, keep_gso=False):
    """ethtool -K DEV tso off gso off gro off.

    keep_gso leaves software GSO on: the stack still builds multi-segment
    skbs and cuts them into wire packets at this device, back to back, as
    a NIC's TSO would.
    """
    if keep_gso:
        set_offloads(ns, dev, tso=False, gro=False)
    else:
        set_offloads(ns, dev, tso=False, gso=False, gro=False)


NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NETLINK_ROUTE, NETLINK_SOCK_DIAG = 0, 4
SOCK_DIAG_BY_FAMILY = 20
INET_DIAG_INFO, INET_DIAG_VEGASINFO, INET_DIAG_BBRINFO = 2, 3, 16
RTM_NEWQDISC, RTM_GETQDISC = 36, 38
TCA_KIND, TCA_STATS2 = 1, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE, TCA_STATS_PKT64 = 1, 3, 8
TCP_LISTEN, TCP_TIME_WAIT = 10, 6
TC_H_ROOT = 0xFFFFFFFF


def nl_attrs(data, off=0):
    attrs = {}
    while off + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, off)
        if length < 4:
            break
        attrs[kind & 0x3FFF] = data[off + 4:off + length]
        off += (length + 3) & ~3
    return attrs


class Netlink:
    """A netlink socket created inside a namespace, for dump requests."""

    def __init__(self, ns, proto):
        self.sock = ns.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        self.seq = 0

    def close(self):
        self.sock.close()

    def dump(self, msg_type, payload):
        self.seq += 1
        self.sock.send(struct.pack("=IHHII", 16 + len(payload), msg_type,
                                   NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0) + payload)
        out = []
        while True:
            data = self.sock.recv(1 << 17)
            off = 0
            while off + 16 <= len(data):
                length, kind, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                if length < 16:
                    break
                if seq == self.seq:
                    if kind == NLMSG_DONE:
                        return out
                    if kind == NLMSG_ERROR:
                        err = struct.unpack_from("=i", data, off + 16)[0]
                        if err:
                            raise OSError(-err, os.strerror(-err))
                        return out
                    out.append((kind, data[off + 16:off + length]))
                off += (length + 3) & ~3


# tcp_info fields we use: name -> (offset, struct format); see <linux/tcp.h>.
TCP_INFO_FIELDS = {
    "rtt_us": (68, "I"), "rttvar_us": (72, "I"), "ssthresh": (76, "I"),
    "cwnd": (80, "I"), "total_retrans": (100, "I"), "pacing_rate": (104, "Q"),
    "bytes_acked": (120, "Q"), "bytes_received": (128, "Q"),
    "min_rtt_us": (148, "I"), "data_segs_out": (156, "I"),
    "delivery_rate": (160, "Q"), "delivered": (192, "I"),
    "delivered_ce": (196, "I"), "bytes_sent": (200, "Q"),
    "bytes_retrans": (208, "Q"), "reord_seen": (220, "I"),
    "rcv_ooopack": (224, "I"),
}
TCP_INFO_LEN = 232


def bbr_info(data):
    """struct tcp_bbr_info (what ``ss -ti`` prints as ``bbr:(...)``): the
    CCA's bandwidth estimate in bit/s, its min RTT in us and its pacing
    and cwnd gains (BBR's max filter, or what another CCA reports in the
    same layout); None if the attribute is short."""
    if len(data) < 20:
        return None
    lo, hi, min_rtt, pacing_gain, cwnd_gain = struct.unpack_from("=5I", data)
    return {"bw_bps": ((hi << 32) | lo) * 8, "min_rtt_us": min_rtt,
            "pacing_gain": pacing_gain / 256, "cwnd_gain": cwnd_gain / 256}


def tcp_sockets(nl):
    """Established-ish IPv4 TCP sockets with tcp_info: list of dicts.

    The VEGASINFO bit asks the CCA's get_info() for its own attribute;
    BBR (and CCAs that report in its layout) answer with BBRINFO, kept
    as the socket's "bbr" entry."""
    states = 0xFFF & ~(1 << TCP_LISTEN) & ~(1 << TCP_TIME_WAIT)
    ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_VEGASINFO - 1))
    req = struct.pack("=BBBxI", socket.AF_INET, socket.IPPROTO_TCP, ext, states) + bytes(48)
    socks = []
    for _, msg in nl.dump(SOCK_DIAG_BY_FAMILY, req):
        sport, dport = struct.unpack_from(">HH", msg, 4)
        attrs = nl_attrs(msg, 72)
        info = attrs.get(INET_DIAG_INFO)
        if info is None:
            continue
        info = info.ljust(TCP_INFO_LEN, b"\0")
        sk = {name: struct.unpack_from("=" + fmt, info, off)[0]
              for name, (off, fmt) in TCP_INFO_FIELDS.items()}
        sk.update(state=msg[1], sport=sport, dport=dport)
        if INET_DIAG_BBRINFO in attrs:
            sk["bbr"] = bbr_info(attrs[INET_DIAG_BBRINFO])
        socks.append(sk)
    return socks


def listening_ports(nl):
    req = struct.pack("=BBBxI", socket.AF_INET, socket.IPPROTO_TCP, 0, 1 << TCP_LISTEN) + bytes(48)
    return {struct.unpack_from(">H", msg, 4)[0] for _, msg in nl.dump(SOCK_DIAG_BY_FAMILY, req)}


def qdisc_stats(nl):
    """All qdiscs of the namespace: list of dicts (ifindex, parent, kind, counters)."""
    req = struct.pack("=BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
    out = []
    for kind, msg in nl.dump(RTM_GETQDISC, req):
        if kind != RTM_NEWQDISC:
            continue
        _, ifindex, handle, parent, _ = struct.unpack_from("=BxxxiIII", msg)
        attrs = nl_attrs(msg, 20)
        stats = nl_attrs(attrs.get(TCA_STATS2, b""))
        q = {"ifindex": ifindex, "handle": handle, "parent": parent,
             "kind": attrs.get(TCA_KIND, b"").rstrip(b"\0").decode(),
             "bytes": 0, "packets": 0, "qlen": 0, "backlog": 0, "drops": 0, "overlimits": 0}
        if TCA_STATS_BASIC in stats:
            q["bytes"], q["packets"] = struct.unpack_from("=QI", stats[TCA_STATS_BASIC])
        if TCA_STATS_PKT64 in stats:
            q["packets"] = struct.unpack_from("=Q", stats[TCA_STATS_PKT64])[0]
        if TCA_STATS_QUEUE in stats:
            q["qlen"], q["backlog"], q["drops"], _, q["overlimits"] = \
                struct.unpack_from("=5I", stats[TCA_STATS_QUEUE])
        out.append(q)
    return out


def delete_namespaces(names):
    for name in names:
        pids = run(["ip", "netns", "pids", name], check=False).stdout.split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
    if names:
        run(["ip", "-force", "-batch", "-"], input="".join(f"netns del {n}\n" for n in names),
            check=False)


def icmp_checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


SO_TIMESTAMPNS = 35


def icmp_ping(ns, dst, count, interval, timeout=2.0):
    """ICMP echo RTTs in ms (None for a lost reply), timed with kernel receive stamps."""
    sock = ns.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    ident = os.getpid() & 0xFFFF
    rtts = []
    with contextlib.closing(sock):
        for seq in range(count):
            payload = bytes(56)
            header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
            packet = struct.pack("!BBHHH", 8, 0, icmp_checksum(header + payload), ident, seq) + payload
            sent_mono = time.monotonic()
            sent = time.time()
            sock.sendto(packet, (dst, 0))
            rtt = None
            while rtt is None:
                left = sent_mono + timeout - time.monotonic()
                if left <= 0:
                    break
                sock.settimeout(left)
                try:
                    data, anc, _, _ = sock.recvmsg(2048, 256)
                except socket.timeout:
                    break
                icmp = data[(data[0] & 0x0F) * 4:]
                if len(icmp) < 8 or icmp[0] != 0:
                    continue
                if struct.unpack_from("!HH", icmp, 4) != (ident, seq):
                    continue
                stamp = time.time()
                for level, kind, value in anc:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                        sec, nsec = struct.unpack("=qq", value[:16])
                        stamp = sec + nsec / 1e9
                rtt = (stamp - sent) * 1e3
            rtts.append(rtt)
            time.sleep(max(0.0, sent_mono + interval - time.monotonic()))
    return rtts
