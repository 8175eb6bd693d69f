# SPDX-License-Identifier: GPL-2.0
"""cclab.tracing (netlab run --events) against a tracefs-shaped folder.

The kernel side (a real tracefs in a guest) is covered by
tests/vm/tcp_pcc.sh; here the bookkeeping: what is refused, what is
enabled and restored, what result.json records.
"""

import os
import tempfile
import time
import unittest

import context
from cclab import tracing
from cclab.common import Error


def fake_tracefs(root, events):
    os.makedirs(os.path.join(root, "events"))
    for ev in events:
        os.makedirs(os.path.join(root, "events", ev))
        with open(os.path.join(root, "events", ev, "enable"), "w") as f:
            f.write("0")
    with open(os.path.join(root, "trace_clock"), "w") as f:
        f.write("[local] global counter uptime perf mono mono_raw boot\n")
    with open(os.path.join(root, "trace_pipe"), "w") as f:
        f.write("# tracer: nop\n"
                "  iperf3-1  [001] ..s1. 12.500000: pcc_mi: mi=start\n"
                "  iperf3-1  [001] ..s1. 12.600000: pcc_mi: mi=trial0\n")
    open(os.path.join(root, "trace"), "w").close()


def read(root, *path):
    with open(os.path.join(root, *path)) as f:
        return f.read()


class Tracing(unittest.TestCase):
    def test_spec(self):
        for good in ("tcp_pcc", "tcp_pcc/pcc_mi", "tcp/tcp_probe"):
            self.assertEqual(tracing.parse_event_spec(good), good)
        for bad in ("", "tcp_pcc/", "../x", "a/b/c", "tcp pcc", "tcp_pcc:pcc_mi"):
            with self.assertRaises(Error):
                tracing.parse_event_spec(bad)

    def test_unknown_event_refused_before_anything_changes(self):
        with tempfile.TemporaryDirectory() as root:
            fake_tracefs(root, ["tcp_pcc/pcc_mi"])
            ev = tracing.Events(["tcp_pcc/pcc_mi", "tcp_etc/etc_update"], root=root)
            with self.assertRaisesRegex(Error, "tcp_etc/etc_update.*module loaded"):
                ev.start(os.path.join(root, "out.txt"), 1.0)
            self.assertEqual(read(root, "events", "tcp_pcc", "pcc_mi", "enable"), "0")
            self.assertIn("[local]", read(root, "trace_clock"))

    def test_run_enables_records_and_restores(self):
        with tempfile.TemporaryDirectory() as root:
            fake_tracefs(root, ["tcp_pcc/pcc_mi"])
            out = os.path.join(root, "trace.txt")
            ev = tracing.Events(["tcp_pcc/pcc_mi"], root=root)
            ev.start(out, 12.25)
            self.assertEqual(read(root, "events", "tcp_pcc", "pcc_mi", "enable"), "1")
            self.assertEqual(read(root, "trace_clock"), "mono")
            time.sleep(0.1)
            ev.stop()
            ev.stop()       # idempotent, as the finally clause calls it again
            self.assertEqual(read(root, "events", "tcp_pcc", "pcc_mi", "enable"), "0")
            self.assertEqual(read(root, "trace_clock"), "local")
            self.assertEqual(ev.summary(), {
                "specs": ["tcp_pcc/pcc_mi"], "file": "trace.txt", "lines": 2,
                "clock": "mono", "t0_s": 12.25})


if __name__ == "__main__":
    unittest.main()
