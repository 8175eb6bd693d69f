# SPDX-License-Identifier: GPL-2.0
"""cclab.plan on the tree's real bench/ccas.json and bench/scenarios: every
planned run must be a netlab command line that netlab accepts."""

import glob
import json
import os
import tempfile
import unittest

from context import TOP
from cclab import bench, link, netlab, plan, units
from cclab.common import Error


def make(*argv):
    args = bench.build_parser().parse_args(["run"] + list(argv))
    return plan.make_plan(args, plan.load_ccas(), plan.all_scenarios())


class Scenarios(unittest.TestCase):
    def test_all_load(self):
        files = glob.glob(os.path.join(TOP, "bench", "scenarios", "*.json"))
        scs = plan.all_scenarios()
        self.assertEqual(len(scs), len(files))
        orders = [sc.get("order", 1000) for sc in scs.values()]
        self.assertEqual(orders, sorted(orders))
        for sc in scs.values():
            self.assertTrue(sc["variants"] and all("label" in v for v in sc["variants"]), sc["name"])

    def test_sweep(self):
        sc = {"name": "s", "sweep": {"loss": ["0.1%", "1%"]}}
        self.assertEqual(plan.expand_variants(sc), [{"label": "loss 0.1%", "link": {"loss": "0.1%"}},
                                                    {"label": "loss 1%", "link": {"loss": "1%"}}])

    def test_variant_ccas(self):
        """A variant's ccas keeps only those CCAs of the scenario."""
        runs = [r for r in make("-s", "abc-cubic")[1]]
        by_variant = {}
        for r in runs:
            by_variant.setdefault(r["variant"], set()).add(r["cca"])
        ecn = [v for v in by_variant if "ECN" in v and "without" not in v]
        self.assertEqual(len(ecn), 2, by_variant)
        for v in ecn:
            self.assertEqual(by_variant[v], {"abc", "cubic"}, v)
        self.assertGreater(len(by_variant["3 + 3, CUBIC without ECN"]), 2)

    def test_app_rate_args(self):
        """A rate-limited flow writes 10 ms of data at a time, one MSS at least."""
        self.assertEqual(netlab.app_rate_args(None), [])
        self.assertEqual(netlab.app_rate_args(1e6), ["-b", "1000000", "-l", "1448"])
        self.assertEqual(netlab.app_rate_args(20e6), ["-b", "20000000", "-l", "25000"])
        self.assertEqual(netlab.app_rate_args(10e9)[3], str(128 * 1024))

    def test_bad_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.json")
            for doc in ({"title": "t", "link": {}, "duration": 5, "colour": 1},
                        {"title": "t", "link": {"speed": 1}, "duration": 5},
                        {"title": "t", "link": {}},
                        {"title": "t", "link": {}, "duration": 5,
                         "targets": [{"cca": "x", "metric": "speed", "op": ">="}]}):
                with open(path, "w") as f:
                    json.dump(doc, f)
                with self.assertRaises(Error, msg=doc):
                    plan.load_scenario(path)


class Plans(unittest.TestCase):
    def test_every_run_parses(self):
        """The full matrix, --quick and every scenario by name, through netlab's parser."""
        names = list(plan.all_scenarios())
        runs = make()[1] + make("--quick")[1] + make(*[a for n in names for a in ("-s", n)])[1]
        self.assertGreater(len(runs), 100)
        bad = []
        for r in runs:
            try:
                args = netlab.build_parser().parse_args(["run"] + r["netlab"] + ["--out", "x"])
                args.buffer = units.parse_buffer(args.buffer_text)
                cfg = link.Config(args)
                if len(cfg.flows) != len(r["flows"]) or cfg.duration != r["duration_s"]:
                    bad.append((r["scenario"], r["variant"], r["cca"], "flows or duration"))
            except (SystemExit, Exception) as e:   # argparse exits on a bad option
                bad.append((r["scenario"], r["variant"], r["cca"], repr(e)))
        self.assertEqual(bad, [])

    def test_steady(self):
        _, runs, _ = make("-s", "steady", "-c", "cubic", "--variant", "1 flow")
        self.assertEqual(len(runs), 1)
        r = runs[0]
        self.assertEqual(r["netlab"], ["--rate", "20mbit", "--rtt", "40ms", "--buffer", "1bdp",
                                       "--qdisc", "tbf", "--sender-gso", "--flow", "cubic",
                                       "--duration", "20", "--warmup", "5"])
        self.assertEqual((r["dir"], r["needs"]), (os.path.join("runs", "steady", "1_flow", "cubic"),
                                                  ["cubic"]))

    def test_stack_defaults(self):
        """offloads and receiver_gro reach netlab, and its Config keeps them."""
        _, runs, _ = make("-s", "stack-100m", "-c", "abc", "--variant", "steady")
        argv = runs[0]["netlab"]
        self.assertEqual(argv[argv.index("--offloads") + 1], "kernel")
        self.assertIn("--receiver-gro", argv)
        args = netlab.build_parser().parse_args(["run"] + argv + ["--out", "x"])
        args.buffer = units.parse_buffer(args.buffer_text)
        cfg = link.Config(args)
        self.assertEqual((cfg.offloads, cfg.receiver_gro, cfg.sender_qdisc),
                         ("kernel", True, "fq_codel"))
        _, runs, _ = make("-s", "steady", "-c", "cubic", "--variant", "1 flow")
        self.assertNotIn("--receiver-gro", runs[0]["netlab"])

    def test_quick(self):
        chosen, runs, _ = make("--quick")
        self.assertTrue(all("quick" in sc for sc in chosen))
        for r in runs:
            q = next(sc for sc in chosen if sc["name"] == r["scenario"])["quick"]
            if "duration" in q:
                self.assertEqual(r["duration_s"], q["duration"])

    def test_duration_scales_flows(self):
        _, full, _ = make("-s", "convergence", "-c", "cubic")
        _, short, _ = make("-s", "convergence", "-c", "cubic", "--duration", "8")
        for a, b in zip(full, short):
            scale = 8 / a["duration_s"]
            self.assertEqual(b["duration_s"], 8)
            self.assertEqual([f.get("start") for f in b["flows"]],
                             [None if "start" not in f else round(f["start"] * scale, 3)
                              for f in a["flows"]])

    def test_errors(self):
        for argv in (["-s", "nosuch"], ["-c", "nosuch"]):
            with self.assertRaises(Error, msg=argv):
                make(*argv)

    def test_flow_times(self):
        self.assertEqual(plan.flow_seconds("5s"), 5.0)
        self.assertEqual(plan.flow_seconds(10), 10.0)
        with self.assertRaisesRegex(Error, "not a time in seconds: 'soon'"):
            plan.flow_seconds("soon")

    def test_estimate(self):
        runs = [{"duration_s": 10}, {"duration_s": 20, "skip": "x"}]
        self.assertEqual(plan.estimate(runs), 10 + plan.RUN_OVERHEAD_S)


if __name__ == "__main__":
    unittest.main()
