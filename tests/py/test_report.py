# SPDX-License-Identifier: GPL-2.0
"""cclab.report on a recorded results set (fixtures/bench-steady: the quick
benchmark of a 6.12 guest, time series left out): tables, targets, JSON
and CSV, byte for byte as scripts/bench wrote them before the split."""

import json
import math
import os
import shutil
import tempfile
import unittest

from context import FIXTURES
from cclab import report

DATA = os.path.join(FIXTURES, "bench-steady")
EXPECTED = os.path.join(FIXTURES, "bench-steady.expected")


def expected(name):
    with open(os.path.join(EXPECTED, name)) as f:
        return f.read()


class Recorded(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")
        shutil.copytree(DATA, self.out)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_text(self):
        text, records, targets = report.report(self.out)
        self.assertEqual(text, expected("report.txt"))
        self.assertEqual(len(records), 8)
        self.assertEqual([t["state"] for t in targets], ["met"] * 4)

    def test_rst(self):
        self.assertEqual(report.report(self.out, rst=True)[0], expected("report.rst"))

    def test_outputs(self):
        _, records, targets = report.report(self.out)
        report.write_outputs(self.out, records, targets)
        for name in ("results.json", "results.csv"):
            with open(os.path.join(self.out, name)) as f:
                self.assertEqual(f.read(), expected(name), name)

    def test_ref_target(self):
        _, _, targets = report.report(self.out)
        t = next(t for t in targets if "CUBIC's" in t["text"])
        self.assertEqual(t["measured"], "rtt_p95_ms 55.2 ms vs cubic 78.0 ms (x 0.8 = 62.4 ms)")

    def test_broken_and_missing(self):
        runs = os.path.join(self.out, "runs", "steady", "1_flow")
        with open(os.path.join(runs, "etc", "status.json"), "w") as f:
            json.dump({"status": "failed", "reason": "netlab exit 1: x"}, f)
        os.unlink(os.path.join(runs, "vegas", "status.json"))
        text, records, targets = report.report(self.out)
        etc = report.find(records, "steady", "1 flow", "etc")
        vegas = report.find(records, "steady", "1 flow", "vegas")
        self.assertEqual((etc["status"], vegas["status"]), ("failed", "failed"))
        self.assertEqual(vegas["reason"], "no status: the guest did not reach this run")
        self.assertRegex(text, r"(?m)^etc +failed$")
        self.assertTrue(text.endswith("8 runs: 6 ok, 2 broken, 0 skipped; targets: "
                                      "2 met, 0 missed, 2 n/a\n"), text[-200:])
        self.assertEqual({t["measured"] for t in targets if t["cca"] == "etc"}, {"run failed"})


def rec(cca, status="ok", **metrics):
    m = dict.fromkeys(report.METRICS)
    m.update(metrics)
    return {"scenario": "s", "variant": "v", "cca": cca, "status": status, "metrics": m,
            "config": {"rtt_ms": 40.0}}


class Targets(unittest.TestCase):
    def check(self, target, r, ref=None):
        return report.check_target(target, r, ref)["state"]

    def test_ops(self):
        r = rec("a", jain=0.9, rtt_p95_ms=50.0)
        self.assertEqual(self.check({"metric": "jain", "op": ">=", "value": 0.9}, r), "met")
        self.assertEqual(self.check({"metric": "jain", "op": "<=", "value": 0.8}, r), "missed")
        self.assertEqual(self.check({"metric": "jain", "op": "between", "value": [0.8, 1]}, r), "met")
        self.assertEqual(self.check({"metric": "utilisation", "op": ">=", "value": 0.9}, r), "n/a")
        self.assertEqual(self.check({"metric": "jain", "op": ">=", "value": 0}, rec("a", "failed")),
                         "n/a")

    def test_recovers(self):
        t = {"metric": "goodput_mbps", "op": "recovers", "ref": "b", "value": 0.5}
        ref = rec("b", goodput_mbps=10.0, ideal_goodput_mbps=19.0)
        self.assertEqual(self.check(t, rec("a", goodput_mbps=14.5), ref), "met")
        self.assertEqual(self.check(t, rec("a", goodput_mbps=14.0), ref), "missed")
        t = {"metric": "rtt_p95_ms", "op": "recovers", "ref": "b", "value": 0.5}
        ref = rec("b", rtt_p95_ms=80.0)   # base 40 ms: needs <= 60 ms
        self.assertEqual(self.check(t, rec("a", rtt_p95_ms=60.0), ref), "met")
        self.assertEqual(self.check(t, rec("a", rtt_p95_ms=61.0), ref), "missed")
        self.assertEqual(self.check(t, rec("a", rtt_p95_ms=61.0), None), "n/a")

    def test_jitter_share(self):
        share = report.METRICS["jitter_share"][2]

        def res(jitters, goodputs):
            return {"config": {"flows": [{"jitter_ms": j} for j in jitters]},
                    "summary": {"jain_goodputs_mbps": goodputs}}
        self.assertAlmostEqual(share(res([12.0, 0.0], [4.0, 16.0]), None), 0.25)
        self.assertAlmostEqual(share(res([0.0, 0.0, 24.0], [6.0, 10.0, 4.0]), None), 0.5)
        self.assertIsNone(share(res([12.0], [20.0]), None))
        self.assertIsNone(share(res([12.0, 0.0], [4.0, 0.0]), None))

    def test_share_while_all_run(self):
        share = report.METRICS["test_share"][2]
        run = {"cca": "abc", "flows": [{"cca": "abc"}, {"cca": "abc"}, {"cca": "cubic"}]}

        def res(own, all_run):
            return {"flows": [{"goodput_mbps": g} for g in own],
                    "summary": {"jain_goodputs_mbps": all_run}}
        # the CUBIC flow, started last, had the link alone at the end of its
        # own window (9.0); while all three ran it got what each abc flow did
        self.assertAlmostEqual(share(res([6.0, 6.0, 9.0], [6.0, 6.0, 6.0]), run), 1.0)
        self.assertAlmostEqual(share(res([6.0, 6.0, 6.0], [4.0, 6.0, 10.0]), run), 0.5)
        self.assertIsNone(share(res([6.0, 6.0, 6.0], None), run))
        self.assertIsNone(share(res([6.0, 6.0, 6.0], [6.0, 6.0]), run))
        self.assertIsNone(share(res([6.0, 6.0, 0.0], [6.0, 6.0, 0.0]), run))

    def test_formats(self):
        self.assertEqual(report.fmt_metric("utilisation", 0.9561), "95.6")
        self.assertEqual(report.fmt_metric("convergence_max_s", math.inf), "never")
        self.assertEqual(report.show("rtt_p95_ms", 55.21), "55.2 ms")
        self.assertEqual(report.show("jain", None), "n/a")
        self.assertEqual(report.jsonable({"a": [math.inf, 1]}), {"a": ["never", 1]})


if __name__ == "__main__":
    unittest.main()
