# SPDX-License-Identifier: GPL-2.0
"""cclab.units and the shared helpers of cclab.common."""

import argparse
import contextlib
import io
import unittest

import context
from cclab import common, units


class Units(unittest.TestCase):
    def test_rate(self):
        self.assertEqual(units.parse_rate("20mbit"), 20e6)
        self.assertEqual(units.parse_rate("500kbit"), 500e3)
        self.assertEqual(units.parse_rate("1gbit"), 1e9)
        self.assertEqual(units.parse_rate("3"), 3e6)           # bare: Mbit/s
        self.assertEqual(units.parse_rate("2kbps"), 16e3)      # kbps: kByte/s, as tc
        for bad in ("5foo", "mbit", ""):
            with self.assertRaises(argparse.ArgumentTypeError):
                units.parse_rate(bad)

    def test_time(self):
        self.assertAlmostEqual(units.parse_ms("40ms"), 0.040)
        self.assertAlmostEqual(units.parse_ms("40"), 0.040)
        self.assertAlmostEqual(units.parse_ms("250us"), 250e-6)
        self.assertEqual(units.parse_ms("1.5s"), 1.5)
        with self.assertRaises(argparse.ArgumentTypeError):
            units.parse_ms("3min")

    def test_seconds(self):
        self.assertEqual(units.parse_seconds(5), 5.0)
        self.assertEqual(units.parse_seconds(2.5), 2.5)
        self.assertEqual(units.parse_seconds("5"), 5.0)
        self.assertEqual(units.parse_seconds(" 2 s "), 2.0)
        self.assertEqual(units.parse_seconds("500ms"), 0.5)
        for bad in ("soon", "5min", None):
            with self.assertRaises(argparse.ArgumentTypeError):
                units.parse_seconds(bad)

    def test_percent(self):
        self.assertEqual(units.parse_percent("1%"), 1.0)
        self.assertEqual(units.parse_percent("0.5"), 0.5)
        for bad in ("100", "5x"):
            with self.assertRaises(argparse.ArgumentTypeError):
                units.parse_percent(bad)

    def test_buffer(self):
        self.assertEqual(units.parse_buffer("1bdp"), ("bdp", 1.0))
        self.assertEqual(units.parse_buffer("0.5bdp"), ("bdp", 0.5))
        self.assertEqual(units.parse_buffer("100p"), ("packets", 100.0))
        self.assertEqual(units.parse_buffer("150kb"), ("bytes", 150 * 1024))
        self.assertEqual(units.parse_buffer("2m"), ("bytes", 2 << 20))
        with self.assertRaises(argparse.ArgumentTypeError):
            units.parse_buffer("3xyz")

    def test_packet_sizes(self):
        self.assertEqual((units.WIRE_BYTES, units.PAYLOAD_BYTES), (1514, 1448))
        self.assertEqual(units.PAYLOAD_RATIO, 1448 / 1514)

    def test_formats(self):
        self.assertEqual(units.fmt_time(0), "0:00")
        self.assertEqual(units.fmt_time(61.4), "1:01")
        self.assertEqual(units.fmt_time(3599.6), "60:00")
        self.assertEqual(units.num(None), "n/a")
        self.assertEqual(units.num(19.1449), "19.14")
        self.assertEqual(units.num(0.5, 100, ".1f"), "50.0")


class Common(unittest.TestCase):
    def test_top(self):
        self.assertEqual(common.TOP, context.TOP)

    def test_slug(self):
        self.assertEqual(common.slug("1 flow"), "1_flow")
        self.assertEqual(common.slug("cubic+fq_codel"), "cubic+fq_codel")
        self.assertEqual(common.slug("rtt 40/20 ms"), "rtt_40_20_ms")
        self.assertEqual(common.slug("//"), "x")

    def test_run_command(self):
        def fail(_):
            raise common.Error("no")
        self.assertEqual(common.run_command(lambda a: a, 7, 1, "x"), 7)
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(common.run_command(fail, None, 2, "x"), 2)
        self.assertEqual(err.getvalue(), "cclab: error: no\n")

    def test_read_json(self):
        with self.assertRaises(common.Error):
            common.read_json("/nonexistent/result.json")


if __name__ == "__main__":
    unittest.main()
