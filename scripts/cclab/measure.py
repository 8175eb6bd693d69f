# SPDX-License-Identifier: GPL-2.0
"""Measurement: tcp_info and qdisc sampling, iperf3 and packet captures,
and the analysis that turns them into result.json."""

import contextlib
import json
import math
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

from .common import Error, log
from .link import BASE_PORT, BOTTLENECK_DEV, LOSS_DEV, RECEIVER_IP
from .netns import NETLINK_ROUTE, NETLINK_SOCK_DIAG, TC_H_ROOT, Netlink, listening_ports, \
    qdisc_stats, run, tcp_sockets
from .stats import dist_stats, interp, jain, percentile
from .units import PAYLOAD_RATIO, WIRE_BYTES, num

class Sampler:
    """Reads tcp_info of every flow (both ends) and the router's qdiscs."""

    def __init__(self, topo):
        self.topo = topo
        self.cfg = topo.cfg
        self.sender_nl = [Netlink(ns, NETLINK_SOCK_DIAG) for ns in topo.senders]
        self.receiver_nl = Netlink(topo.receiver, NETLINK_SOCK_DIAG)
        self.router_nl = Netlink(topo.router, NETLINK_ROUTE)
        self.bottleneck_if = topo.router.ifindex(BOTTLENECK_DEV)
        self.loss_if = topo.router.ifindex(LOSS_DEV) if self.cfg.loss > 0 else None
        n = len(topo.senders)
        self.send = [[] for _ in range(n)]   # (t, tcp_info dict) of the data socket
        self.recv = [[] for _ in range(n)]   # (t, bytes_received, rcv_ooopack)
        self.queue = []                      # (t, backlog, qlen, rate bit/s)
        self.last_recv = [None] * n
        self.recv_stamp_err = 0.0            # s, half the longest receiver read

    def close(self):
        for nl in self.sender_nl + [self.receiver_nl, self.router_nl]:
            nl.close()

    def counters(self):
        """Cumulative bottleneck and loss-stage counters (root qdiscs)."""
        out = {}
        for q in qdisc_stats(self.router_nl):
            if q["parent"] != TC_H_ROOT:
                continue
            if q["ifindex"] == self.bottleneck_if:
                out["bottleneck"] = q
            elif q["ifindex"] == self.loss_if:
                out["loss"] = q
        return out

    def device_counters(self):
        """The bottleneck device's own count, at the start and end of a run
        only (it runs ip): a GSO skb counts once there, where the qdisc
        counts its segments."""
        proc = run(self.topo.router.cmd(["ip", "-s", "-j", "link", "show", "dev",
                                         BOTTLENECK_DEV]), check=False)
        try:
            return {"bottleneck_dev": {
                "packets": json.loads(proc.stdout)[0]["stats64"]["tx"]["packets"]}}
        except (ValueError, LookupError, TypeError):
            return {}

    def launch(self, i, t):
        """Flow i's client is being started at t: nothing of it has arrived.

        Without this zero, a first sample taken after the flow's first
        packets (a busy guest starting several clients at once) would leave
        its start unknown and the flow without a goodput."""
        self.recv[i].append((t, 0, 0))

    def sample(self, t, launched, clock=None):
        """Take one sample at t; with clock (seconds on t's scale) the byte
        counts are stamped at the middle of the receiver's read instead."""
        cfg = self.cfg
        # The receiver first: a TCG guest can spend milliseconds dumping the
        # senders' sockets, which would shift the byte counts from t.
        t_read = clock() if clock else t
        received = {}
        for sk in tcp_sockets(self.receiver_nl):
            i = sk["sport"] - BASE_PORT
            if 0 <= i < len(self.recv) and sk["dport"] in cfg.flow_cports(i):
                b, o = received.get(i, (0, 0))
                received[i] = (b + sk["bytes_received"], o + sk["rcv_ooopack"])
        if clock:
            half = (clock() - t_read) / 2
            t_read += half
            self.recv_stamp_err = max(self.recv_stamp_err, half)
        for i in range(len(self.recv)):
            if not launched[i]:
                continue
            # Keep the flow's cumulative count defined at every sample: zero
            # before its socket shows up, the last value after it closes.
            value = received.get(i, self.last_recv[i] or (0, 0))
            self.last_recv[i] = value
            self.recv[i].append((t_read,) + value)
        for i, nl in enumerate(self.sender_nl):
            if not launched[i]:
                continue
            ports = cfg.flow_cports(i)
            streams = [sk for sk in tcp_sockets(nl) if sk["sport"] in ports]
            if streams:
                self.send[i].append((t, merge_streams(streams)))
        c = self.counters()
        bq = c.get("bottleneck")
        if bq:
            backlog, qlen = bq["backlog"], bq["qlen"]
            if backlog == 0 and bq["kind"] == "htb":
                leaves = [q for q in qdisc_stats(self.router_nl)
                          if q["ifindex"] == self.bottleneck_if and q["parent"] != TC_H_ROOT]
                backlog = sum(q["backlog"] for q in leaves)
                qlen = sum(q["qlen"] for q in leaves)
            self.queue.append((t, backlog, qlen, self.cfg.capacity(t)))


def cpu_ticks(path="/proc/stat"):
    """(busy, all) clock ticks of every CPU so far: the guest's whole CPU
    time, the senders', the router's and the receiver's alike."""
    try:
        with open(path) as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal; guest time is in user
    idle = sum(fields[3:5])
    total = sum(fields[:8])
    return (total - idle, total)


def cpu_cost(t0, t1, nbytes, hz=None):
    """CPU busy over a run: the fraction of all CPUs, and CPU-milliseconds
    per megabyte the receiver got.  None without two readings."""
    if not t0 or not t1 or t1[1] <= t0[1]:
        return None
    hz = hz or os.sysconf("SC_CLK_TCK")
    busy = t1[0] - t0[0]
    return {"busy_s": round(busy / hz, 3),
            "busy_fraction": round(busy / (t1[1] - t0[1]), 4),
            "ms_per_mb": round(busy / hz * 1e3 / (nbytes / 1e6), 4) if nbytes else None}


# tcp_info counters that add up over a flow's parallel streams.
STREAM_SUMS = ("cwnd", "pacing_rate", "total_retrans", "bytes_sent", "bytes_retrans",
               "data_segs_out", "delivered_ce", "reord_seen")


def merge_streams(streams):
    """One tcp_info-like sample of a flow from its streams' sockets: counters
    summed, the RTT the mean of the streams that have one."""
    if len(streams) == 1:
        return streams[0]
    out = dict(streams[0])
    # one CCA estimate per socket: no flow-wide one for several streams
    out.pop("bbr", None)
    for key in STREAM_SUMS:
        out[key] = sum(sk.get(key) or 0 for sk in streams)
    rtts = [sk["rtt_us"] for sk in streams if sk["rtt_us"]]
    out["rtt_us"] = sum(rtts) // len(rtts) if rtts else 0
    return out


def mean_capacity(cfg, a, b, step=0.01):
    """Mean bottleneck rate (bit/s) over [a, b]."""
    if b <= a:
        return cfg.capacity(a)
    n = max(1, int((b - a) / step))
    return sum(cfg.capacity(a + (k + 0.5) * (b - a) / n) for k in range(n)) / n



def analyse(cfg, sampler, args, t_end):
    """Turn the raw samples into the per-flow and per-run metrics."""
    interval, warmup = args.interval, args.warmup
    flows = []
    for i, spec in enumerate(cfg.flows):
        cum = [(t, b) for t, b, _ in sampler.recv[i]]
        total = cum[-1][1] if cum else 0
        # Data starts after the last sample still at zero (the iperf3 cookie
        # is a few bytes) and ends at the first sample holding the final count.
        t_first = max((t for t, b in cum if b <= WIRE_BYTES), default=None)
        t_last = min((t for t, b in cum if b >= total), default=None)
        active = t_first is not None and t_last is not None and t_last > t_first and total > 0
        flow = {"id": i, "cca": spec.cca, "rtt_ms": cfg.flow_rtt(i) * 1e3,
                "start_s": spec.start, "first_byte_s": t_first and round(t_first, 3),
                "last_byte_s": t_last and round(t_last, 3),
                "bytes_received": total}
        series = {"t_s": [], "mbps": []}
        if active:
            k0, k1 = int(t_first / interval), math.ceil(t_last / interval)
            for k in range(k0, k1):
                a, b = k * interval, (k + 1) * interval
                series["t_s"].append(round(a, 3))
                series["mbps"].append(round((interp(cum, b) - interp(cum, a)) * 8 / interval / 1e6, 4))
            w0 = min(t_first + warmup, t_last)
            flow["goodput_mbps"] = round((total - interp(cum, w0)) * 8 / (t_last - w0) / 1e6, 4) \
                if t_last > w0 else None
        else:
            flow["goodput_mbps"] = None
            w0 = None
        flow["window_s"] = [round(w0, 3), round(t_last, 3)] if active else None
        flow["goodput_series"] = series

        send = sampler.send[i]
        in_window = [sk for t, sk in send if active and w0 <= t <= t_last]
        rtts = [sk["rtt_us"] / 1e3 for sk in in_window if sk["rtt_us"]]
        flow["rtt"] = dist_stats(rtts)
        flow["rtt_series"] = {"t_s": [round(t, 3) for t, _ in send],
                              "ms": [round(sk["rtt_us"] / 1e3, 3) for _, sk in send],
                              "var_ms": [round(sk.get("rttvar_us", 0) / 1e3, 3) for _, sk in send]}
        flow["cwnd_series"] = {"t_s": [round(t, 3) for t, _ in send],
                               "packets": [sk["cwnd"] for _, sk in send]}
        flow["retrans_series"] = {"t_s": [round(t, 3) for t, _ in send],
                                  "total": [sk["total_retrans"] for _, sk in send]}
        # tcpi_pacing_rate is bytes/s, ~0 when the socket has no rate.
        flow["pacing_rate_series"] = {"t_s": [round(t, 3) for t, _ in send],
                                      "mbps": [round(sk["pacing_rate"] * 8 / 1e6, 3)
                                               if sk["pacing_rate"] < 1 << 60 else None
                                               for _, sk in send]}
        bbr = [(t, sk["bbr"]) for t, sk in send if sk.get("bbr")]
        if bbr:
            flow["bbr_series"] = {
                "t_s": [round(t, 3) for t, _ in bbr],
                "bw_mbps": [round(b["bw_bps"] / 1e6, 3) for _, b in bbr],
                "min_rtt_ms": [round(b["min_rtt_us"] / 1e3, 3) for _, b in bbr],
                "pacing_gain": [round(b["pacing_gain"], 3) for _, b in bbr],
                "cwnd_gain": [round(b["cwnd_gain"], 3) for _, b in bbr]}
        last = send[-1][1] if send else {}
        flow["retransmits"] = last.get("total_retrans")
        flow["bytes_sent"] = last.get("bytes_sent")
        flow["bytes_retrans"] = last.get("bytes_retrans")
        flow["data_segs_out"] = last.get("data_segs_out")
        flow["delivered_ce"] = last.get("delivered_ce")
        segs = last.get("data_segs_out") or 0
        flow["retrans_ratio"] = round(last.get("total_retrans", 0) / segs, 6) if segs else None
        flow["reordering"] = {"sender_reord_seen": last.get("reord_seen"),
                              "receiver_ooo_packets": sampler.recv[i][-1][2] if sampler.recv[i] else None}
        flow["_cum"] = cum
        flow["_w0"] = w0
        flows.append(flow)

    active_flows = [f for f in flows if f["goodput_mbps"] is not None]
    run_window = None
    summary = dict.fromkeys(["total_goodput_mbps", "mean_capacity_mbps", "ideal_goodput_mbps",
                             "utilisation", "rtt_p50_ms", "rtt_p95_ms", "jain_index",
                             "jain_window_s", "jain_goodputs_mbps"])
    if active_flows:
        a = min(f["_w0"] for f in active_flows)
        b = max(f["last_byte_s"] for f in active_flows)
        run_window = [round(a, 3), round(b, 3)]
        got = sum(interp(f["_cum"], b) - interp(f["_cum"], a) for f in active_flows)
        goodput = got * 8 / (b - a) / 1e6 if b > a else 0.0
        cap = mean_capacity(cfg, a, b) / 1e6
        summary.update(total_goodput_mbps=round(goodput, 4), mean_capacity_mbps=round(cap, 4),
                       ideal_goodput_mbps=round(cap * PAYLOAD_RATIO, 4),
                       utilisation=round(goodput / cap, 4) if cap else None)
        all_rtts = []
        for f, send in zip(flows, sampler.send):
            if f["goodput_mbps"] is not None:
                all_rtts += [sk["rtt_us"] / 1e3 for t, sk in send
                             if f["_w0"] <= t <= f["last_byte_s"] and sk["rtt_us"]]
        summary["rtt_p50_ms"] = round(percentile(all_rtts, 50), 3) if all_rtts else None
        summary["rtt_p95_ms"] = round(percentile(all_rtts, 95), 3) if all_rtts else None
        # Jain's index over the interval in which every flow is active.
        ja = max(f["_w0"] for f in active_flows)
        jb = min(f["last_byte_s"] for f in active_flows)
        if jb > ja and len(active_flows) == len(flows):
            shares = [(interp(f["_cum"], jb) - interp(f["_cum"], ja)) * 8 / (jb - ja) / 1e6
                      for f in flows]
            summary["jain_index"] = round(jain(shares), 4) if jain(shares) else None
            summary["jain_window_s"] = [round(ja, 3), round(jb, 3)]
            summary["jain_goodputs_mbps"] = [round(s, 4) for s in shares]
    summary["window_s"] = run_window

    for f in flows:
        f["convergence_s"] = convergence(cfg, f, flows, interval, args.conv_tolerance, args.conv_hold)
    if cfg.trace:
        summary["per_step"] = per_step_table(cfg, flows, t_end)
    for f in flows:
        del f["_cum"], f["_w0"]

    # Queue delay: backlog over the current rate.
    q = sampler.queue
    queue_series = {"t_s": [round(t, 3) for t, *_ in q],
                    "backlog_bytes": [b for _, b, _, _ in q],
                    "qlen_packets": [n for _, _, n, _ in q],
                    "delay_ms": [round(b * 8 / r * 1e3, 3) for _, b, _, r in q]}
    in_run = [b * 8 / r * 1e3 for t, b, _, r in q
              if run_window and run_window[0] <= t <= run_window[1]]
    summary["queue_delay_p50_ms"] = round(percentile(in_run, 50), 3) if in_run else None
    summary["queue_delay_p95_ms"] = round(percentile(in_run, 95), 3) if in_run else None
    return flows, queue_series, summary, dist_stats(in_run)


def convergence(cfg, flow, flows, interval, tolerance, hold):
    """First time (s after the flow's first byte) from which its goodput stays
    within +-tolerance of its fair share for `hold` seconds; None if never."""
    if flow["goodput_mbps"] is None:
        return None
    t_first, t_last = flow["first_byte_s"], flow["last_byte_s"]
    bins = [(t, g) for t, g in zip(flow["goodput_series"]["t_s"], flow["goodput_series"]["mbps"])
            if t >= t_first - 1e-9 and t + interval <= t_last + 1e-9]

    def fair(t):
        mid = t + interval / 2
        n = sum(1 for f in flows if f["goodput_mbps"] is not None
                and f["first_byte_s"] <= mid <= f["last_byte_s"])
        return cfg.capacity(mid) * PAYLOAD_RATIO / 1e6 / max(1, n)

    ok = [abs(g - fair(t)) <= tolerance * fair(t) for t, g in bins]
    need = max(1, int(round(hold / interval)))
    for k in range(len(bins) - need + 1):
        if all(ok[k:k + need]):
            return round(max(0.0, bins[k][0] - t_first), 3)
    return None


def per_step_table(cfg, flows, t_end):
    """Total goodput per trace step vs the step's capacity (goodput-equivalent)."""
    rows = []
    step = cfg.trace_step
    for k in range(int(t_end / step) + 1):
        a, b = k * step, (k + 1) * step
        got = 0.0
        span = 0.0
        for f in flows:
            if f["goodput_mbps"] is None:
                continue
            lo, hi = max(a, f["first_byte_s"]), min(b, f["last_byte_s"])
            span = max(span, hi - lo)
            if hi > lo:
                got += interp(f["_cum"], hi) - interp(f["_cum"], lo)
        if span < step * 0.999:
            continue  # only whole steps with traffic
        cap = cfg.capacity(a + step / 2) / 1e6
        rows.append({"t_s": round(a, 3), "capacity_mbps": round(cap, 4),
                     "ideal_goodput_mbps": round(cap * PAYLOAD_RATIO, 4),
                     "goodput_mbps": round(got * 8 / step / 1e6, 4)})
    return rows


def pcap_reordering(path, src_ip, sport, dport, data_only):
    """Count packets of one direction that arrive behind an earlier-sent one.

    Linux numbers the IP ID of a connected TCP socket's packets in send
    order (retransmissions get new IDs), so any decrease of the ID in
    arrival order is reordering; drops only leave gaps.  SYNs and RSTs
    are not counted: a RST comes from the stack's reply path with ID 0
    (a receiver that closed while data still arrived answers each
    segment with one; 67 such at the end of one run looked like
    reordered ACKs).
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 24:
        return None
    magic = struct.unpack_from("<I", data)[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    src = socket.inet_aton(src_ip)
    off, packets, reordered, max_id, ids_seen = 24, 0, 0, None, set()
    while off + 16 <= len(data):
        incl = struct.unpack_from(endian + "I", data, off + 8)[0]
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(pkt) < 14 + 20 or pkt[12:14] != b"\x08\x00":
            continue
        ip = pkt[14:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != socket.IPPROTO_TCP or ip[12:16] != src or len(ip) < ihl + 14:
            continue
        sp, dp = struct.unpack_from(">HH", ip, ihl)
        flags = ip[ihl + 13]
        if sp != sport or dp != dport or flags & 0x06:   # skip SYNs, RSTs
            continue
        if data_only:
            total = struct.unpack_from(">H", ip, 2)[0]
            if total - ihl - (ip[ihl + 12] >> 4) * 4 <= 0:
                continue
        ipid = struct.unpack_from(">H", ip, 4)[0]
        packets += 1
        ids_seen.add(ipid)
        if max_id is None or 0 < (ipid - max_id) % 65536 < 32768:
            max_id = ipid
        elif ipid != max_id:
            reordered += 1
    if packets and ids_seen == {0}:
        return {"packets": packets, "reordered": None, "note": "IP IDs are all zero"}
    return {"packets": packets, "reordered": reordered}


def wait_listening(nl, ports, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if set(ports) <= listening_ports(nl):
            return
        time.sleep(0.05)
    raise Error("iperf3 servers did not start listening")


def read_iperf(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # A killed iperf3 can leave partial JSON; keep the error visible.
        return {"error": "unparsable iperf3 output"}


def iperf_summary(client, server):
    out = {"error": None}
    for doc in (client, server):
        if doc and doc.get("error"):
            out["error"] = doc["error"]
    if client and "end" in client:
        sent = client["end"].get("sum_sent", {})
        out["sender_mbps"] = round(sent.get("bits_per_second", 0) / 1e6, 4)
        out["retransmits"] = sent.get("retransmits")
        out["bytes_sent"] = sent.get("bytes")
    if server and "end" in server:
        recv = server["end"].get("sum_received", {})
        out["receiver_mbps"] = round(recv.get("bits_per_second", 0) / 1e6, 4)
        out["bytes_received"] = recv.get("bytes")
    return out


class Captures:
    """Header captures of what arrives at each sender (ACKs) and at the receiver (data).

    tcpdump writes to a local temporary folder (the output folder may be a
    slow shared mount) and the files are moved to DIR/pcap/ at the end.
    """

    def __init__(self, topo):
        self.dir = tempfile.mkdtemp(prefix="netlab-pcap-")
        self.procs = {}
        self.dropped = {}
        targets = [(f"sender-{i}", ns) for i, ns in enumerate(topo.senders)]
        targets.append(("receiver", topo.receiver))
        for name, ns in targets:
            self.procs[name] = topo.popen(ns, [
                "tcpdump", "-i", "eth0", "-Q", "in", "-s", "96", "-B", "4096", "-Z", "root",
                "-n", "-w", self.path(name), "tcp"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for name, proc in self.procs.items():   # "listening on ...": capturing
            line = proc.stderr.readline()
            if "listening" not in line:
                raise Error(f"tcpdump ({name}) did not start: {line.strip()}")

    def path(self, name):
        return os.path.join(self.dir, f"{name}.pcap")

    def stop(self):
        for proc in self.procs.values():
            proc.send_signal(signal.SIGINT)
        for name, proc in self.procs.items():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
            m = re.search(r"(\d+) packets? dropped by kernel", proc.stderr.read())
            self.dropped[name] = int(m.group(1)) if m else None

    def save(self, outdir):
        pdir = os.path.join(outdir, "pcap")
        os.makedirs(pdir, exist_ok=True)
        for name in self.procs:
            with contextlib.suppress(OSError):
                shutil.move(self.path(name), os.path.join(pdir, f"{name}.pcap"))
        self.discard()

    def discard(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def build_result(cfg, args, topo, sampler, baseline, final, t_end, rawdir, tc_json, captures):
    flows, queue_series, summary, qstats = analyse(cfg, sampler, args, t_end)
    for i, f in enumerate(flows):
        f["namespace"] = topo.senders[i].name
        f["iperf"] = iperf_summary(read_iperf(os.path.join(rawdir, f"iperf-client-{i}.json")),
                                   read_iperf(os.path.join(rawdir, f"iperf-server-{i}.json")))
        if captures:
            f["reordering"]["data"] = pcap_reordering(
                captures.path("receiver"), topo.sender_ip(i),
                cfg.cport_base[i], BASE_PORT + i, data_only=True)
            f["reordering"]["acks"] = pcap_reordering(
                captures.path(f"sender-{i}"), RECEIVER_IP,
                BASE_PORT + i, cfg.cport_base[i], data_only=False)
            f["reordering"]["capture_dropped"] = {
                "receiver": captures.dropped.get("receiver"),
                "sender": captures.dropped.get(f"sender-{i}")}

    def delta(stage, key):
        if stage not in final or stage not in baseline:
            return None
        return final[stage][key] - baseline[stage][key]

    bn = {k: delta("bottleneck", k) for k in ("packets", "bytes", "drops", "overlimits")}
    bn["skbs"] = delta("bottleneck_dev", "packets")
    arrived = (bn["packets"] or 0) + (bn["drops"] or 0)
    bottleneck = {
        "device": BOTTLENECK_DEV, "qdisc": cfg.qdisc, **bn,
        "drop_ratio": round(bn["drops"] / arrived, 6) if arrived and bn["drops"] is not None else None,
        "capacity_series": capacity_series(cfg, t_end),
        "queue_series": queue_series, "queue_delay_ms": qstats,
    }
    try:
        bottleneck["tc"] = json.loads(tc_json)
    except (TypeError, json.JSONDecodeError):
        bottleneck["tc"] = None
    loss = None
    if cfg.loss > 0:
        passed, dropped = delta("loss", "packets"), delta("loss", "drops")
        total = (passed or 0) + (dropped or 0)
        loss = {"device": LOSS_DEV, "configured_pct": cfg.loss, "packets": total,
                "drops": dropped, "loss_ratio": round(dropped / total, 6) if total else None}
    return {
        "netlab": 1, "kernel": os.uname().release,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "config": cfg.to_json(), "topology": topo.describe(),
        "run": {"duration_s": round(t_end, 3), "interval_s": args.interval,
                "sample_interval_s": args.sample_interval, "warmup_s": args.warmup,
                "recv_stamp_err_ms": round(sampler.recv_stamp_err * 1e3, 3)},
        "summary": summary, "flows": flows, "bottleneck": bottleneck, "loss_stage": loss,
        "cpu": cpu_cost(baseline.get("cpu"), final.get("cpu"),
                        sum(f["bytes_received"] or 0 for f in flows)),
    }


def capacity_series(cfg, t_end):
    if not cfg.trace:
        return {"t_s": [0.0], "mbps": [cfg.rate / 1e6]}
    ts = [k * cfg.trace_step for k in range(int(t_end / cfg.trace_step) + 1)]
    return {"t_s": [round(t, 3) for t in ts], "mbps": [cfg.capacity(t + 1e-9) / 1e6 for t in ts]}


def print_summary(res):
    s, c = res["summary"], res["config"]
    ccas = ",".join(f["cca"] for f in res["flows"])
    log(f"{c['qdisc']} {c['rate_mbps']:g}Mbit/s rtt {c['rtt_ms']:g}ms buf {c['buffer']} "
        f"loss {c['loss_pct']:g}% jitter {c['jitter_ms']:g}ms | {ccas} | "
        f"goodput {num(s.get('total_goodput_mbps'))} Mbit/s util {num(s.get('utilisation'), 1, '.3f')} | "
        f"RTT p50 {num(s.get('rtt_p50_ms'), 1, '.1f')} p95 {num(s.get('rtt_p95_ms'), 1, '.1f')} ms | "
        f"qdelay p50 {num(s.get('queue_delay_p50_ms'), 1, '.1f')} ms | "
        f"Jain {num(s.get('jain_index'), 1, '.3f')}")
