# SPDX-License-Identifier: GPL-2.0
"""cclab.check (netlab check): the expressions the VM tests evaluate on a
result.json, their output and exit codes."""

import contextlib
import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import unittest

from context import TOP
from cclab import check, common
from cclab.netlab import main as netlab_main

DOC = {
    "netlab": 1,
    "config": {"rate_mbps": 20.0, "rtt_ms": 40.0},
    "run": {"interval_s": 1.0},
    "summary": {"utilisation": 0.93, "jain_index": None},
    "flows": [
        {"id": 0, "cca": "cubic", "goodput_mbps": 18.6, "window_s": [2.5, 24.5],
         "rtt": {"p50": 78.0, "p95": 81.0},
         "goodput_series": {"t_s": [0.0, 1.0, 2.0, 3.0, 4.0, 24.0],
                            "mbps": [5.0, 9.0, 19.0, 18.0, 17.5, 3.0]}},
        {"id": 1, "cca": "etc", "goodput_mbps": 18.234567, "window_s": [28.0, 50.0],
         "rtt": {"p50": 45.0, "p95": 52.5},
         "pacing_rate_series": {"t_s": [28.0, 29.0, 30.0], "mbps": [None, 7.0, 9.0]}},
    ],
}


def run(exprs, names=None, doc=DOC):
    lines, errors = [], []
    rc = check.check(doc, exprs, names, out=lines.append, err=errors.append)
    return rc, lines, errors


class Values(unittest.TestCase):
    def test_fields_and_arithmetic(self):
        rc, lines, _ = run(["flows[1].goodput_mbps", "config.rate_mbps",
                            "100 * flows[0].goodput_mbps / config.rate_mbps",
                            'config["rtt_ms"]', "flows[-1].cca", "len(flows)", "-flows[0].rtt.p50 + 1"])
        self.assertEqual(rc, 0)
        self.assertEqual(lines, ["18.234567", "20.0", "93.0", "40.0", "etc", "2", "-77.0"])

    def test_round_keeps_its_decimals(self):
        _, lines, _ = run(["round(100 * flows[0].goodput_mbps / config.rate_mbps, 1)",
                           "round(flows[1].goodput_mbps, 2)", "round(flows[1].rtt.p95)"])
        self.assertEqual(lines, ["93.0", "18.23", "52"])

    def test_null_lists_and_objects(self):
        _, lines, _ = run(["summary.jain_index", "flows[0].window_s", "flows[0].rtt"])
        self.assertEqual(lines, ["null", "[2.5,24.5]", '{"p50":78.0,"p95":81.0}'])

    def test_assignment_is_shell_quoted(self):
        _, lines, _ = run(["e_mbit=round(flows[1].goodput_mbps, 2)", "cc = flows[0].cca",
                           "w=flows[0].window_s"])
        self.assertEqual(lines, ["e_mbit=18.23", "cc=cubic", "w='[2.5,24.5]'"])
        self.assertEqual(shlex.split(lines[2]), ["w=[2.5,24.5]"])

    def test_set_names(self):
        rc, lines, _ = run(["l >= 0.5 * e", "l"], check.parse_set(["l=9.5", "e=18.23"]))
        self.assertEqual((rc, lines), (0, ["1", "9.5"]))

    def test_during_takes_whole_bins_in_the_window(self):
        # window [2.5, 24.5], 1 s bins: those starting at 3.0 .. 23.5
        expr = ("during(flows[0].goodput_series, flows[0].window_s[0], "
                "flows[0].window_s[1] - run.interval_s)")
        _, lines, _ = run([expr, f"min({expr})", f"mean({expr})"])
        self.assertEqual(lines, ["[18.0,17.5]", "17.5", "17.75"])
        _, lines, _ = run(["during(flows[1].pacing_rate_series, 0, 100)"])
        self.assertEqual(lines, ["[7.0,9.0]"])

    def test_functions(self):
        _, lines, _ = run(["max(flows[0].goodput_series.mbps)", "min(3, 1.5, 2)",
                           "sum(flows[0].goodput_series.mbps[1:3])", "abs(0 - 2)",
                           "len(flows[0].goodput_series.mbps[:-1])"])
        self.assertEqual(lines, ["19.0", "1.5", "28.0", "2", "5"])


class Comparisons(unittest.TestCase):
    def test_true_and_false(self):
        self.assertEqual(run(["flows[1].rtt.p95 <= 0.8 * flows[0].rtt.p95"])[:2], (0, ["1"]))
        self.assertEqual(run(["flows[1].goodput_mbps >= 18.3"])[:2], (1, ["0"]))

    def test_boundaries_are_inclusive_where_written(self):
        self.assertEqual(run(["flows[0].rtt.p95 <= 81", "flows[0].rtt.p95 < 81",
                              "flows[0].rtt.p95 >= 81", "flows[0].rtt.p95 > 81"])[1],
                         ["1", "0", "1", "0"])

    def test_chained_and_boolean(self):
        rc, lines, _ = run(["0 < flows[1].rtt.p50 < flows[0].rtt.p50",
                            "flows[0].goodput_mbps > 0 and not flows[1].goodput_mbps > 20",
                            "1 > 2 or 2 > 1", 'flows[1].cca == "etc"', 'flows[1].cca != "etc"'])
        self.assertEqual(lines, ["1", "1", "1", "1", "0"])
        self.assertEqual(rc, 1)

    def test_every_line_printed_after_a_false_one(self):
        rc, lines, _ = run(["1 > 2", "config.rate_mbps"])
        self.assertEqual((rc, lines), (1, ["0", "20.0"]))


class Errors(unittest.TestCase):
    def assert_error(self, expr, names=None, words=""):
        rc, lines, errors = run([expr, "1 < 2"], names)
        self.assertEqual(rc, 2, expr)
        self.assertEqual(lines, ["null", "1"], expr)
        self.assertEqual(len(errors), 1, expr)
        self.assertIn(words, errors[0])

    def test_missing_fields(self):
        self.assert_error("flows[2].goodput_mbps", words="flows[2]")
        self.assert_error("flows[0].nosuch", words="flows[0].nosuch")
        self.assert_error("nosuch", words="nosuch")
        self.assert_error('config["nosuch"]', words="nosuch")

    def test_null_in_arithmetic_or_comparison(self):
        self.assert_error("summary.jain_index >= 0.9")
        self.assert_error("summary.jain_index * 2")

    def test_wrong_types(self):
        self.assert_error("flows[0].cca >= 1")
        self.assert_error("flows[0].cca + 1")
        self.assert_error("min(flows[0].window_s[0])")
        self.assert_error("flows[0].goodput_mbps and 1 < 2", words="not a comparison")
        self.assert_error("1 / 0")
        self.assert_error("mean(flows[0].goodput_series.mbps[9:])", words="nothing")
        self.assert_error("during(flows[0], 0, 1)", words="t_s")

    def test_no_code(self):
        for expr in ("__import__('os').system('true')", "flows.__class__", "open('x')",
                     "[x for x in flows]", "lambda: 1", "flows[0].cca.upper()", "2 ** 3",
                     "round(x=1)", "flows[::2]", "1 if 1 else 2", "1 <"):
            self.assert_error(expr)

    def test_set_checks(self):
        for bad in (["x"], ["1x=2"], ["x=abc"], ["x=nan"], ["x=inf"], ["x="]):
            with self.assertRaises(check.CheckError, msg=bad):
                check.parse_set(bad)
        self.assertEqual(check.parse_set(["a=1", "b=-2.5", "c=1e3"]), {"a": 1, "b": -2.5, "c": 1000.0})
        with self.assertRaises(check.CheckError):
            check.Evaluator(DOC, {"flows": 1})
        with self.assertRaises(check.CheckError):
            check.Evaluator(DOC, {"min": 1})


class CommandLine(unittest.TestCase):
    """netlab check through main() and through scripts/netlab (no root)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        with open(os.path.join(self.tmp, "result.json"), "w") as f:
            json.dump(DOC, f)
        # main() sets the log prefix and signal handlers: other tests expect the defaults
        self.saved = (common.PROG, common.VERBOSE, signal.getsignal(signal.SIGTERM),
                      signal.getsignal(signal.SIGHUP))

    def tearDown(self):
        shutil.rmtree(self.tmp)
        common.PROG, common.VERBOSE = self.saved[:2]
        signal.signal(signal.SIGTERM, self.saved[2])
        signal.signal(signal.SIGHUP, self.saved[3])

    def main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = netlab_main(["check", *argv])
        return rc, out.getvalue().splitlines(), err.getvalue()

    def test_folder_or_file(self):
        for path in (self.tmp, os.path.join(self.tmp, "result.json")):
            rc, lines, _ = self.main(path, "flows[0].goodput_mbps >= 18", "flows[0].goodput_mbps")
            self.assertEqual((rc, lines), (0, ["1", "18.6"]))

    def test_exit_codes(self):
        self.assertEqual(self.main(self.tmp, "flows[0].goodput_mbps >= 19")[:2], (1, ["0"]))
        rc, lines, err = self.main(self.tmp, "flows[5].goodput_mbps")
        self.assertEqual((rc, lines), (2, ["null"]))
        self.assertIn("no field flows[5]", err)
        rc, lines, err = self.main(os.path.join(self.tmp, "nothing"), "1 < 2")
        self.assertEqual((rc, lines), (2, []))
        self.assertIn("cannot read", err)
        rc, _, err = self.main(self.tmp, "x > 1", "--set", "x=y")
        self.assertEqual(rc, 2)
        self.assertIn("not a number", err)

    def test_set_option(self):
        rc, lines, _ = self.main(self.tmp, "--set", "e=20", "--set", "k=0.5",
                                 "flows[1].goodput_mbps >= k * e")
        self.assertEqual((rc, lines), (0, ["1"]))

    def test_entry_point_and_eval(self):
        script = os.path.join(TOP, "scripts", "netlab")
        proc = subprocess.run(
            ["bash", "-c", 'eval "$("$0" check "$1" "a=round(flows[1].goodput_mbps, 2)" '
             '"b=flows[0].cca" "c=flows[1].rtt.p95 <= 0.8 * flows[0].rtt.p95")"; '
             'echo "$a|$b|$c"', script, self.tmp],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, "18.23|cubic|1\n")


if __name__ == "__main__":
    unittest.main()
