# SPDX-License-Identifier: GPL-2.0
"""cclab.stats and the pure parts of cclab.measure: the analysis of
samples into result.json's metrics, iperf3 summaries, pcap reordering."""

import argparse
import math
import os
import socket
import struct
import tempfile
import unittest

from test_link import config   # first: its context import finds cclab
from cclab import measure, stats


class Stats(unittest.TestCase):
    def test_percentile(self):
        self.assertEqual(stats.percentile([4, 1, 3, 2], 50), 2.5)
        self.assertEqual(stats.percentile([4, 1, 3, 2], 0), 1)
        self.assertEqual(stats.percentile([4, 1, 3, 2], 100), 4)
        self.assertIsNone(stats.percentile([], 50))

    def test_dist_stats(self):
        self.assertEqual(stats.dist_stats([])["samples"], 0)
        d = stats.dist_stats([1.23456, 2, 3])
        self.assertEqual((d["p50"], d["min"], d["max"], d["mean"], d["samples"]),
                         (2, 1.235, 3, 2.078, 3))

    def test_interp(self):
        pts = [(0.0, 0), (1.0, 10), (2.0, 30)]
        self.assertEqual(stats.interp(pts, -1), 0)
        self.assertEqual(stats.interp(pts, 1.5), 20)
        self.assertEqual(stats.interp(pts, 5), 30)
        self.assertEqual(stats.interp([], 1), 0.0)

    def test_jain(self):
        self.assertEqual(stats.jain([5, 5, 5]), 1.0)
        self.assertEqual(stats.jain([1, 0]), 0.5)
        self.assertIsNone(stats.jain([]))

    def test_median(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(stats.median([1.0, math.inf, math.inf]), math.inf)


def synthetic(cfg, mbps, rtt_ms=50.0, backlog=25000, end=20.0):
    """Samples every 0.1 s of flows each delivering mbps[i] from its start."""
    s = argparse.Namespace(send=[], recv=[], queue=[])
    ts = [round(k * 0.1, 1) for k in range(int(end * 10) + 1)]
    for i, f in enumerate(cfg.flows):
        rate = mbps[i] * 1e6 / 8
        s.recv.append([(t, int(max(0.0, t - f.start) * rate), 0) for t in ts])
        s.send.append([(t, {"rtt_us": int(rtt_ms * 1000), "cwnd": 10, "pacing_rate": 0,
                            "total_retrans": 2, "bytes_sent": 0, "bytes_retrans": 0,
                            "data_segs_out": 100, "delivered_ce": 0, "reord_seen": 0})
                       for t in ts if t >= f.start])
    s.queue = [(t, backlog, 17, cfg.capacity(t)) for t in ts]
    return s


ARGS = argparse.Namespace(interval=0.5, warmup=2.0, conv_tolerance=0.25, conv_hold=5.0)


class Analysis(unittest.TestCase):
    def test_one_flow(self):
        cfg = config()
        flows, queue, summary, qstats = measure.analyse(cfg, synthetic(cfg, [18.0]), ARGS, 20.0)
        f = flows[0]
        self.assertAlmostEqual(f["goodput_mbps"], 18.0, places=3)
        self.assertEqual(f["rtt"]["p50"], 50.0)
        self.assertEqual(f["retrans_ratio"], 0.02)
        self.assertEqual(f["retrans_series"]["total"][:2], [2, 2])
        self.assertEqual(len(f["retrans_series"]["t_s"]), len(f["rtt_series"]["t_s"]))
        self.assertAlmostEqual(summary["utilisation"], 0.9, places=3)
        self.assertEqual(summary["queue_delay_p50_ms"], 10.0)   # 25000 B at 20 Mbit/s
        self.assertEqual(queue["delay_ms"][0], 10.0)
        self.assertEqual(summary["jain_index"], 1.0)
        self.assertEqual(qstats["p95"], 10.0)

    def test_two_flows(self):
        cfg = config("--flow", "cubic", "--flow", "cubic,start=5")
        flows, _, summary, _ = measure.analyse(cfg, synthetic(cfg, [9.5, 9.5]), ARGS, 20.0)
        self.assertEqual(summary["jain_index"], 1.0)
        self.assertEqual(flows[1]["start_s"], 5.0)
        # Flow 0 reaches its fair share when flow 1 joins, flow 1 at once.
        self.assertEqual((flows[0]["convergence_s"], flows[1]["convergence_s"]), (5.0, 0.0))
        flows, _, summary, _ = measure.analyse(cfg, synthetic(cfg, [15.0, 4.0]), ARGS, 20.0)
        self.assertLess(summary["jain_index"], 0.8)
        self.assertIsNone(flows[1]["convergence_s"])

    def test_late_first_sample(self):
        # The sampler's first look at flow 0 came after its first packets.
        cfg = config()
        s = synthetic(cfg, [18.0])
        s.recv[0] = [r for r in s.recv[0] if r[0] >= 0.3]
        flows, _, _, _ = measure.analyse(cfg, s, ARGS, 20.0)
        self.assertIsNone(flows[0]["goodput_mbps"])
        # netlab records the launch, before any byte can arrive.
        s.recv[0] = []
        measure.Sampler.launch(s, 0, 0.0)
        s.recv[0] += [r for r in synthetic(cfg, [18.0]).recv[0] if r[0] >= 0.3]
        flows, _, _, _ = measure.analyse(cfg, s, ARGS, 20.0)
        self.assertAlmostEqual(flows[0]["goodput_mbps"], 18.0, places=3)
        self.assertEqual(flows[0]["first_byte_s"], 0.0)

    def test_capacity_series(self):
        self.assertEqual(measure.capacity_series(config(), 20.0), {"t_s": [0.0], "mbps": [20.0]})

    def test_iperf_summary(self):
        client = {"end": {"sum_sent": {"bits_per_second": 19.5e6, "retransmits": 3, "bytes": 10}}}
        server = {"end": {"sum_received": {"bits_per_second": 19e6, "bytes": 9}}}
        s = measure.iperf_summary(client, server)
        self.assertEqual((s["error"], s["sender_mbps"], s["receiver_mbps"], s["retransmits"]),
                         (None, 19.5, 19.0, 3))
        self.assertEqual(measure.iperf_summary({"error": "x"}, None)["error"], "x")


def pcap(ids, src="10.10.1.2", sport=40001, dport=5201, flags=0x10):
    """A little-endian pcap of TCP packets with these IP IDs (no payload)."""
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 96, 1)
    for ipid in ids:
        tcp = struct.pack(">HHIIBBHHH", sport, dport, 0, 0, 5 << 4, flags, 0, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40, ipid, 0, 64, socket.IPPROTO_TCP, 0,
                         socket.inet_aton(src), socket.inet_aton("10.20.0.2"))
        pkt = bytes(12) + b"\x08\x00" + ip + tcp
        out += struct.pack("<IIII", 0, 0, len(pkt), len(pkt)) + pkt
    return out


class Streams(unittest.TestCase):
    def test_merge(self):
        a = {"sport": 40001, "rtt_us": 2000, "cwnd": 10, "total_retrans": 1,
             "bytes_sent": 100, "pacing_rate": 5, "data_segs_out": 7}
        b = {"sport": 40002, "rtt_us": 4000, "cwnd": 30, "total_retrans": 2,
             "bytes_sent": 300, "pacing_rate": 6, "data_segs_out": 9}
        self.assertIs(measure.merge_streams([a]), a)
        m = measure.merge_streams([a, b])
        self.assertEqual((m["rtt_us"], m["cwnd"], m["total_retrans"], m["bytes_sent"],
                          m["pacing_rate"], m["data_segs_out"]), (3000, 40, 3, 400, 11, 16))
        # A stream without an RTT sample yet does not pull the mean down.
        self.assertEqual(measure.merge_streams([a, dict(b, rtt_us=0)])["rtt_us"], 2000)

    def test_bbr_estimate(self):
        """BBR's own estimate is kept for one stream, dropped for several:
        the streams' max filters are not one flow's."""
        a = {"sport": 40001, "rtt_us": 2000, "bbr": {"bw_bps": 8e6}}
        self.assertEqual(measure.merge_streams([a])["bbr"], {"bw_bps": 8e6})
        self.assertNotIn("bbr", measure.merge_streams([a, dict(a, sport=40002)]))


class BbrInfo(unittest.TestCase):
    def test_parse(self):
        """struct tcp_bbr_info: bytes/s in two halves, gains in 1/256."""
        from cclab import netns
        raw = struct.pack("=5I", 2500000, 1, 40123, 320, 512)
        self.assertEqual(netns.bbr_info(raw),
                         {"bw_bps": ((1 << 32) + 2500000) * 8, "min_rtt_us": 40123,
                          "pacing_gain": 1.25, "cwnd_gain": 2.0})
        self.assertIsNone(netns.bbr_info(raw[:16]))


class Cpu(unittest.TestCase):
    def test_ticks(self):
        with tempfile.NamedTemporaryFile("w", suffix=".stat") as f:
            f.write("cpu  100 5 50 800 20 3 7 15 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
            f.flush()
            # busy: user nice system irq softirq steal; idle and iowait not
            self.assertEqual(measure.cpu_ticks(f.name), (180, 1000))
        self.assertIsNone(measure.cpu_ticks("/nonexistent/stat"))

    def test_cost(self):
        c = measure.cpu_cost((100, 1000), (250, 1200), 30e6, hz=100)
        self.assertEqual((c["busy_s"], c["busy_fraction"], c["ms_per_mb"]), (1.5, 0.75, 50.0))
        self.assertIsNone(measure.cpu_cost(None, (1, 2), 1))
        self.assertIsNone(measure.cpu_cost((5, 9), (5, 9), 1))
        self.assertIsNone(measure.cpu_cost((1, 2), (3, 4), 0, hz=100)["ms_per_mb"])


class Reordering(unittest.TestCase):
    def count(self, data, **kw):
        with tempfile.NamedTemporaryFile(suffix=".pcap", delete=False) as f:
            f.write(data)
        try:
            return measure.pcap_reordering(f.name, "10.10.1.2", 40001, 5201, data_only=False, **kw)
        finally:
            os.unlink(f.name)

    def test_ids(self):
        self.assertEqual(self.count(pcap([1, 2, 4, 3, 5])), {"packets": 5, "reordered": 1})
        self.assertEqual(self.count(pcap([65534, 65535, 0, 1])), {"packets": 4, "reordered": 0})
        self.assertIsNone(self.count(pcap([0, 0]))["reordered"])
        self.assertEqual(self.count(pcap([1, 2], flags=0x04))["packets"], 0)   # RSTs
        self.assertIsNone(measure.pcap_reordering("/nonexistent", "1.2.3.4", 1, 2, False))


if __name__ == "__main__":
    unittest.main()
