# SPDX-License-Identifier: GPL-2.0
"""cclab.link (flows, traces, Config) and the tc commands of cclab.topology.
Nothing here creates a namespace."""

import argparse
import glob
import os
import unittest

from context import TOP
from cclab import link, netlab, topology, units
from cclab.common import Error


def config(*argv, command="run"):
    args = netlab.build_parser().parse_args([command] + list(argv))
    args.buffer = units.parse_buffer(args.buffer_text)
    return link.Config(args)


class Flows(unittest.TestCase):
    def test_parse(self):
        f = link.FlowSpec.parse("bbr,rtt=80ms,start=5,duration=10,ecn=off")
        self.assertEqual((f.cca, f.start, f.duration, f.ecn), ("bbr", 5.0, 10.0, False))
        self.assertAlmostEqual(f.rtt, 0.080)
        f = link.FlowSpec.parse("cubic")
        self.assertEqual((f.rtt, f.start, f.duration, f.ecn, f.rate), (None, 0.0, None, None, None))
        self.assertEqual(link.FlowSpec.parse("abc,rate=1.5mbit").rate, 1.5e6)
        self.assertAlmostEqual(link.FlowSpec.parse("bbr,jitter=12").jitter, 0.012)
        self.assertIsNone(link.FlowSpec.parse("bbr").jitter)
        self.assertEqual(link.FlowSpec.parse("bbr").streams, 1)
        self.assertEqual(link.FlowSpec.parse("etc,streams=64").streams, 64)

    def test_stream_ports(self):
        # iperf3 -P numbers a flow's streams from --cport up: the ranges
        # of consecutive flows must not overlap.
        cfg = config("--flow", "cubic", "--flow", "etc,streams=3", "--flow", "bbr")
        self.assertEqual([list(cfg.flow_cports(i)) for i in range(3)],
                         [[40001], [40002, 40003, 40004], [40005]])
        self.assertEqual(cfg.to_json()["flows"][1]["streams"], 3)
        with self.assertRaises(Error):
            config(*["--flow", "cubic,streams=128"] * 200)

    def test_errors(self):
        for bad in ("rtt=5", "cubic,foo=1", "cubic,ecn=maybe", "", "cu-bic",
                    "abc,rate=0", "abc,rate=fast", "abc,rate=-1mbit",
                    "bbr,jitter=-3ms", "bbr,jitter=soon", "cubic,streams=0",
                    "cubic,streams=129", "cubic,streams=two"):
            with self.assertRaises(argparse.ArgumentTypeError, msg=bad):
                link.FlowSpec.parse(bad)


class Traces(unittest.TestCase):
    def test_mahimahi(self):
        # One opportunity per ms for 1 s: 1000 packets/s in each 0.5 s step.
        rates = link.mahimahi_to_steps(list(range(1, 1001)), 0.5)
        self.assertEqual(len(rates), 2)
        for r in rates:
            self.assertAlmostEqual(r, 500 * 1514 * 8 / 0.5 / 1e6)

    def test_tree_traces(self):
        paths = glob.glob(os.path.join(TOP, "bench", "traces", "*.txt"))
        self.assertTrue(paths)
        for p in paths:
            rates = link.load_trace(p, "steps", 1.0)
            self.assertTrue(rates and min(rates) >= link.MIN_TRACE_MBIT, p)

    def test_missing(self):
        with self.assertRaises(Error):
            link.load_trace("/nonexistent", "steps", 1.0)


class Configs(unittest.TestCase):
    def test_defaults(self):
        c = config()
        self.assertEqual((c.rate, c.qdisc, c.buffer_bytes, c.buffer_packets, c.burst),
                         (20e6, "tbf", 100000, 67, 12500))
        j = c.to_json()
        self.assertEqual(j["flows"], [{"cca": "cubic", "rtt_ms": 40.0, "jitter_ms": 0.0, "start_s": 0.0,
                                       "ecn": True, "rate_bps": None, "streams": 1,
                                       "duration_s": 20.0}])
        self.assertEqual(j["payload_ratio"], units.PAYLOAD_RATIO)

    def test_buffers(self):
        self.assertEqual(config("--buffer", "100p").buffer_bytes, 151400)
        self.assertEqual(config("--buffer", "0.5bdp", "--rtt", "80ms").buffer_bytes, 100000)
        self.assertEqual(config("--buffer", "1kb").buffer_bytes, 1514)   # at least a packet

    def test_flows(self):
        c = config("--flow", "cubic", "--flow", "bbr,rtt=80ms,start=5,ecn=off", "--no-ecn")
        self.assertAlmostEqual(c.flow_rtt(1), 0.080)
        self.assertEqual(c.flow_duration(1), 15.0)
        self.assertEqual([f["ecn"] for f in c.to_json()["flows"]], [False, False])
        with self.assertRaises(Error):
            config("--flow", "cubic,start=30")

    def test_jitter_both(self):
        c = config("--jitter", "5ms", "--jitter-path", "both")
        self.assertAlmostEqual(c.data_delay, 0.020)
        self.assertTrue(c.uses_data_stage())
        with self.assertRaises(Error):
            config("--jitter", "25ms", "--jitter-path", "both")

    def test_trace(self):
        path = os.path.join(TOP, "bench", "traces", "abc-varying.txt")
        c = config("--trace", path, "--trace-step", "0.5s")
        self.assertAlmostEqual(c.rate, sum(c.trace) / len(c.trace) * 1e6)
        self.assertEqual(c.capacity(0), c.trace[0] * 1e6)
        self.assertEqual(c.capacity(0.5 * len(c.trace) + 0.6), c.trace[1] * 1e6)   # loops


class TcCommands(unittest.TestCase):
    def test_bottleneck(self):
        def cmds(*argv):
            return topology.Topology(config(*argv)).bottleneck_cmds(10e6)
        self.assertEqual(cmds(), ["qdisc add dev dst root handle 1: tbf rate 10000000bit "
                                  "burst 12500 limit 100000"])
        htb = cmds("--qdisc", "htb")
        self.assertEqual(len(htb), 3)
        self.assertTrue(htb[2].endswith("bfifo limit 100000"))
        self.assertIn("fq_codel limit 67 target 5ms", cmds("--qdisc", "fq_codel", "--qdisc-args",
                                                           "target 5ms")[2])
        self.assertIn("cake bandwidth 10000000bit memlimit 100000", cmds("--qdisc", "cake")[0])
        self.assertIn("abc bandwidth 10000000bit limit 67", cmds("--qdisc", "abc")[0])
        t = topology.Topology(config("--qdisc", "htb"))
        self.assertTrue(t.bottleneck_cmds(5e6, change=True)[0].startswith("class change"))

    def test_ack_path(self):
        t = topology.Topology(config("--jitter", "5ms", "--ack-slot", "20ms", "--rtt", "60ms"))
        self.assertEqual(t.delay_qdisc(0), "qdisc add dev s0 root handle 1: netem delay 60000us "
                         "5000us rate 10gbit slot 20000us 20000us limit 100000")
        t = topology.Topology(config("--jitter", "5ms", "--jitter-mode", "reorder",
                                     "--jitter-dist", "normal"))
        self.assertIn("5000us distribution normal limit", t.delay_qdisc(0))

    def test_flow_jitter(self):
        # one flow's own ACK path jitters; the others keep --jitter (none here)
        t = topology.Topology(config("--rtt", "40ms", "--jitter-dist", "normal",
                                     "--flow", "bbr", "--flow", "bbr,jitter=12ms"))
        self.assertEqual(t.delay_qdisc(0), "qdisc add dev s0 root handle 1: netem delay 40000us "
                         "limit 100000")
        self.assertEqual(t.delay_qdisc(1), "qdisc add dev s1 root handle 1: netem delay 40000us "
                         "12000us distribution normal rate 10gbit limit 100000")
        self.assertEqual([f["jitter_ms"] for f in t.cfg.to_json()["flows"]], [0.0, 12.0])
        # with --jitter-path both the shared data path keeps --jitter
        t = topology.Topology(config("--jitter", "4ms", "--jitter-path", "both",
                                     "--flow", "bbr,jitter=0", "--no-calibrate-rtt"))
        self.assertEqual(t.delay_qdisc(0), "qdisc add dev s0 root handle 1: netem delay 20000us "
                         "limit 100000")
        self.assertIn("delay 20000us 4000us rate 10gbit", t.data_qdisc())

    def test_smooth_jitter(self):
        # PAD's link: the delay moves in straight lines between offsets
        # drawn every period; the netem keeps order and draws nothing.
        t = topology.Topology(config("--rtt", "160ms", "--jitter", "12ms", "--jitter-dist",
                                     "normal", "--jitter-mode", "smooth", "--jitter-seed", "7",
                                     "--flow", "bbr", "--flow", "bbr,jitter=0"))
        self.assertEqual(t.delay_qdisc(0), "qdisc add dev s0 root handle 1: netem delay 160000us "
                         "rate 10gbit limit 100000")
        paths = t.smooth_paths()
        self.assertEqual([i for i, _ in paths], [0])    # flow 1 has no jitter
        p = paths[0][1]
        a, b, mid = p.offset(0.2), p.offset(0.3), p.offset(0.25)
        self.assertAlmostEqual(mid, (a + b) / 2)
        self.assertEqual(t.smooth_cmds(paths, 0.2),
                         [f"qdisc change dev s0 root handle 1: netem delay "
                          f"{int(round((0.160 + a) * 1e6))}us rate 10gbit limit 100000"])
        again = link.SmoothDelay(0.012, "normal", 0.1, 7)
        self.assertEqual(again.offset(0.25), mid)        # seeded
        draws = [p.offset(0.1 * k) for k in range(2000)]
        mean = sum(draws) / len(draws)
        sd = (sum((x - mean) ** 2 for x in draws) / len(draws)) ** 0.5
        self.assertLess(abs(mean), 0.002)
        self.assertLess(abs(sd - 0.012), 0.002)
        u = link.SmoothDelay(0.005, "uniform", 0.1, 1)
        self.assertTrue(all(abs(u.offset(0.01 * k)) <= 0.005 for k in range(500)))
        j = t.cfg.to_json()
        self.assertEqual((j["jitter_mode"], j["jitter_period_ms"], j["jitter_seed"]),
                         ("smooth", 100.0, 7))
        # both directions: the data path gets its own process
        t = topology.Topology(config("--jitter", "4ms", "--jitter-path", "both",
                                     "--jitter-mode", "smooth", "--no-calibrate-rtt"))
        self.assertEqual([i for i, _ in t.smooth_paths()], [0, None])
        self.assertIn("netem delay", t.smooth_cmds(t.smooth_paths(), 1.0)[1])
        for bad in (["--jitter-dist", "pareto"], ["--jitter-period", "5ms"]):
            with self.assertRaises(Error):
                config("--jitter", "4ms", "--jitter-mode", "smooth", *bad)
        self.assertIsNotNone(config("--jitter-mode", "smooth").jitter_seed)

    def test_timestamps(self):
        self.assertTrue(config().to_json()["timestamps"])
        self.assertFalse(config("--no-timestamps").to_json()["timestamps"])

    def test_loss_stage(self):
        cfg = config("--loss", "1%", "--no-calibrate-rtt", "--upstream-qdisc", "fq")
        cmds = topology.Topology(cfg)._router_tc()
        self.assertIn("qdisc add dev s0 handle ffff: ingress", cmds)
        self.assertIn("qdisc add dev ifbloss root handle 1: netem loss random 1% limit 100000", cmds)
        self.assertEqual(cmds[-1], "qdisc add dev ifbloss parent 1: handle 2: fq")

    def test_loss_stage_offloads(self):
        # with the offloads on, netem must see packets, not GSO skbs
        cfg = config("--loss", "1%", "--no-calibrate-rtt", "--offloads", "kernel")
        cmds = topology.Topology(cfg)._router_tc()
        i = cmds.index("qdisc add dev ifbloss root handle 5: tbf rate 100gbit burst 2048 "
                       "limit 100000000")
        self.assertEqual(cmds[i + 1], "qdisc add dev ifbloss parent 5:1 handle 1: netem "
                         "loss random 1% limit 100000")
        # no loss: no segmenter, whatever the offloads
        cfg = config("--jitter", "4ms", "--jitter-path", "both", "--no-calibrate-rtt",
                     "--offloads", "kernel")
        self.assertFalse(any(" tbf " in c and "ifbloss" in c
                             for c in topology.Topology(cfg)._router_tc()))

    def test_ipv6(self):
        # setup --ipv6: every namespace gets an IPv6 address and route
        # beside its IPv4 one, and the loss stage redirects both families
        cfg = config("--ipv6", "--flow", "cubic", "--flow", "bbr", "--loss", "1%",
                     command="setup")
        t = topology.Topology(cfg, "x-")
        cmds = t.ipv6_cmds()
        self.assertEqual(sorted(cmds), sorted(ns.name for ns in t.all_ns()))
        self.assertIn("addr add fd00:20::1/64 dev dst nodad", cmds[t.router.name])
        self.assertIn("addr add fd00:10:2::1/64 dev s1 nodad", cmds[t.router.name])
        self.assertEqual(cmds[t.senders[1].name], ["addr add fd00:10:2::2/64 dev eth0 nodad",
                                                   "route add ::/0 via fd00:10:2::1"])
        self.assertIn("route add ::/0 via fd00:20::1", cmds[t.receiver.name])
        doc = t.describe()
        self.assertEqual((doc["receiver_ip6"], doc["senders"][1]["ip6"]),
                         ("fd00:20::2", "fd00:10:2::2"))
        filters = [c for c in t._router_tc() if c.startswith("filter add dev s0")]
        self.assertEqual([c.split()[7:10] for c in filters],
                         [["ip", "prio", "1"], ["ipv6", "prio", "2"]])
        self.assertTrue(cfg.to_json()["ipv6"])
        # IPv4 only by default, and `run` has no --ipv6
        t = topology.Topology(config("--loss", "1%"))
        self.assertNotIn("receiver_ip6", t.describe())
        self.assertEqual(len([c for c in t._router_tc() if c.startswith("filter")]), 1)
        with self.assertRaises(SystemExit):
            config("--ipv6")

    def test_names(self):
        t = topology.Topology(config("--flow", "cubic", "--flow", "bbr"), "x-")
        names = [ns.name for ns in t.all_ns()]
        pid = os.getpid()
        self.assertEqual(names, [f"x-{pid}-r", f"x-{pid}-d", f"x-{pid}-s0", f"x-{pid}-s1"])
        self.assertEqual(t.describe()["senders"][1]["ip"], "10.10.2.2")


if __name__ == "__main__":
    unittest.main()
