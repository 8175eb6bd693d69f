# SPDX-License-Identifier: GPL-2.0
"""netlab run --events: kernel tracepoints recorded during a run.

The events are read from tracefs's trace_pipe into DIR/trace.txt while
the flows run.  The trace clock is switched to "mono" for the run (and
back after), the clock of Python's time.monotonic(), so an event's time
less the result's events.t0_s is seconds since the run started, the time
axis of the rest of result.json.
"""

import os
import re
import subprocess
import time

from .common import Error

TRACEFS = "/sys/kernel/tracing"
_SPEC = re.compile(r"^[A-Za-z0-9_]+(/[A-Za-z0-9_]+)?$")


def parse_event_spec(spec):
    """'system' or 'system/event', as under tracefs's events/ folder."""
    if not _SPEC.match(spec):
        raise Error(f"--events {spec!r}: expected SYSTEM or SYSTEM/EVENT, "
                    "e.g. tcp_pcc or tcp_pcc/pcc_mi")
    return spec


def _write(path, value):
    with open(path, "w") as f:
        f.write(value)


class Events:
    """Tracepoints enabled from start() to stop(), read into a file."""

    def __init__(self, specs, root=TRACEFS):
        self.specs = [parse_event_spec(s) for s in specs]
        self.root = root
        self.enabled = []
        self.clock = None
        self.reader = None
        self.t0 = None
        self.path = None

    def _mount(self):
        if os.path.isdir(os.path.join(self.root, "events")):
            return
        subprocess.run(["mount", "-t", "tracefs", "nodev", self.root],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if not os.path.isdir(os.path.join(self.root, "events")):
            raise Error(f"--events: no tracefs at {self.root} (mount -t tracefs nodev "
                        f"{self.root} failed)")

    def check(self):
        """Mount tracefs if needed; refuse a tracepoint that does not exist."""
        self._mount()
        for spec in self.specs:
            if not os.path.isfile(os.path.join(self.root, "events", spec, "enable")):
                raise Error(f"--events {spec}: no such tracepoint under "
                            f"{self.root}/events (is its module loaded?)")

    def start(self, path, t0):
        """Enable the events and read them into @path from @t0 (monotonic s) on."""
        self.check()
        with open(os.path.join(self.root, "trace_clock")) as f:
            self.clock = re.search(r"\[(\w+)\]", f.read()).group(1)
        _write(os.path.join(self.root, "trace_clock"), "mono")
        _write(os.path.join(self.root, "trace"), "")
        self.path, self.t0 = path, t0
        out = open(path, "w")
        self.reader = subprocess.Popen(["cat", os.path.join(self.root, "trace_pipe")],
                                       stdout=out, stderr=subprocess.DEVNULL)
        out.close()
        for spec in self.specs:
            _write(os.path.join(self.root, "events", spec, "enable"), "1")
            self.enabled.append(spec)

    def stop(self):
        """Disable the events and the reader; safe to call more than once."""
        for spec in self.enabled:
            _write(os.path.join(self.root, "events", spec, "enable"), "0")
        self.enabled = []
        if self.reader:
            time.sleep(0.3)         # let the reader drain what is buffered
            self.reader.terminate()
            self.reader.wait()
            self.reader = None
        if self.clock:
            _write(os.path.join(self.root, "trace_clock"), self.clock)
            self.clock = None

    def summary(self):
        """What result.json records about the trace."""
        lines = 0
        with open(self.path, errors="replace") as f:
            for line in f:
                if not line.startswith("#"):
                    lines += 1
        return {"specs": self.specs, "file": os.path.basename(self.path),
                "lines": lines, "clock": "mono", "t0_s": round(self.t0, 6)}
