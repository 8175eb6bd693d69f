# SPDX-License-Identifier: GPL-2.0
"""The emulated path as configured: addresses, flows, capacity traces and
the resolved settings (Config).  Pure: nothing here touches the system."""

import argparse
import math
import os
import random
import re

from .common import Error
from .units import (MTU, PAYLOAD_BYTES, PAYLOAD_RATIO, WIRE_BYTES, parse_ms, parse_rate,
                    parse_seconds)

MIN_TRACE_MBIT = 0.05          # tc cannot set a zero rate

SENDER_NET = "10.10.{}.{}"     # sender i: 10.10.(i+1).2, router side .1
RECEIVER_IP = "10.20.0.2"
ROUTER_RCV_IP = "10.20.0.1"
SENDER_NET6 = "fd00:10:{}::{}"  # with --ipv6 (netlab setup): the same plan in IPv6
RECEIVER_IP6 = "fd00:20::2"
ROUTER_RCV_IP6 = "fd00:20::1"
BASE_PORT = 5201               # iperf3 server port of flow i: BASE_PORT + i
BASE_CPORT = 40001             # first iperf3 data-stream source port
MAX_STREAMS = 128              # iperf3 -P per flow

BOTTLENECK_DEV = "dst"         # router port toward the receiver
LOSS_DEV = "ifbloss"           # router ifb: random loss and the upstream queue
DEFAULT_PREFIX = "nl-"
SMOOTH_STEP = 0.005            # s between netem retunes in --jitter-mode smooth


class FlowSpec:
    """One --flow CCA[,rtt=60ms][,jitter=12ms][,start=5][,duration=20][,ecn=on|off][,rate=2mbit]
    [,streams=N]."""

    def __init__(self, cca, rtt=None, start=0.0, duration=None, ecn=None, rate=None,
                 jitter=None, streams=1):
        self.cca = cca
        self.rtt = rtt            # seconds, None = base --rtt
        self.jitter = jitter      # seconds on its own ACK path, None = --jitter
        self.start = start        # seconds after the run start
        self.duration = duration  # seconds, None = until --duration
        self.ecn = ecn            # sender's tcp_ecn on/off, None = --ecn
        self.rate = rate          # application rate, bit/s (iperf3 -b), None = bulk
        # Parallel connections of one iperf3 client (-P), measured as one
        # flow: one process starts them all at once, where a busy guest
        # takes seconds to start each further client.
        self.streams = streams

    @classmethod
    def parse(cls, text):
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not parts or "=" in parts[0] or not re.fullmatch(r"[A-Za-z0-9_]+", parts[0]):
            raise argparse.ArgumentTypeError(f"flow must start with a CCA name: {text!r}")
        flow = cls(parts[0])
        for part in parts[1:]:
            key, _, value = part.partition("=")
            if key == "rtt":
                flow.rtt = parse_ms(value)
            elif key == "jitter":
                flow.jitter = parse_ms(value)
                if flow.jitter < 0:
                    raise argparse.ArgumentTypeError(f"negative jitter in {text!r}")
            elif key == "start":
                flow.start = parse_seconds(value)
            elif key == "duration":
                flow.duration = parse_seconds(value)
            elif key == "ecn":
                if value not in ("on", "off"):
                    raise argparse.ArgumentTypeError(f"ecn wants on or off in {text!r}")
                flow.ecn = value == "on"
            elif key == "rate":
                flow.rate = parse_rate(value)
                if not 0 < flow.rate < 1e12:
                    raise argparse.ArgumentTypeError(f"rate out of range in {text!r}")
            elif key == "streams":
                if not value.isdigit() or not 1 <= int(value) <= MAX_STREAMS:
                    raise argparse.ArgumentTypeError(
                        f"streams wants 1 to {MAX_STREAMS} in {text!r}")
                flow.streams = int(value)
            else:
                raise argparse.ArgumentTypeError(f"unknown flow key {key!r} in {text!r}")
        return flow


# ---------------------------------------------------------------------------
# Traces
# ---------------------------------------------------------------------------

def load_trace(path, fmt, step):
    """Return the list of capacities (Mbit/s), one per trace step."""
    try:
        with open(path) as f:
            lines = [ln.split("#", 1)[0].strip() for ln in f]
    except OSError as e:
        raise Error(f"cannot read trace {path}: {e}")
    tokens = [t for ln in lines for t in re.split(r"[\s,]+", ln) if t]
    if not tokens:
        raise Error(f"trace {path} is empty")
    try:
        values = [float(t) for t in tokens]
    except ValueError as e:
        raise Error(f"trace {path}: {e}")
    if fmt == "steps":
        rates = values
    else:
        rates = mahimahi_to_steps(values, step)
    return [max(MIN_TRACE_MBIT, r) for r in rates]


def mahimahi_to_steps(stamps_ms, step):
    """Mahimahi trace (ms timestamps, one MTU delivery opportunity each) -> Mbit/s per step.

    The trace repeats with a period equal to its last timestamp, as in
    Mahimahi.  Each opportunity delivers one packet, counted here as one
    full wire packet (WIRE_BYTES), so the packet rate matches Mahimahi's.
    """
    period = max(stamps_ms) / 1000.0
    if period <= 0:
        raise Error("mahimahi trace needs a positive last timestamp")
    nsteps = max(1, math.ceil(period / step - 1e-9))
    counts = [0] * nsteps
    for ms in stamps_ms:
        t = (ms / 1000.0) % period
        counts[min(nsteps - 1, int(t / step))] += 1
    rates = []
    for k, n in enumerate(counts):
        width = min(step, period - k * step)
        rates.append(n * WIRE_BYTES * 8 / width / 1e6)
    return rates


def parse_rx_cpus(text):
    """'0,1' -> (0, 1); 'none' -> None; CPUs missing on this machine fall back to 0."""
    if text == "none":
        return None
    try:
        cpus = [int(c) for c in text.split(",")]
    except ValueError:
        raise Error(f"--rx-cpus wants DATA,ACK CPU numbers or none: {text!r}")
    if not 1 <= len(cpus) <= 2 or min(cpus) < 0:
        raise Error(f"--rx-cpus wants DATA,ACK CPU numbers or none: {text!r}")
    ncpu = os.cpu_count() or 1
    cpus = [c if c < ncpu else 0 for c in cpus]
    return (cpus[0], cpus[-1])


class Config:
    """Resolved settings of one emulated path."""

    def __init__(self, args):
        self.qdisc = args.qdisc
        self.qdisc_args = args.qdisc_args or ""
        self.rtt = args.rtt
        self.loss = args.loss
        self.jitter = args.jitter
        self.jitter_mode = args.jitter_mode
        self.jitter_dist = args.jitter_dist
        self.jitter_path = args.jitter_path
        self.jitter_period = args.jitter_period
        self.jitter_seed = args.jitter_seed
        if self.jitter_mode == "smooth":
            if self.jitter_dist not in ("normal", "uniform"):
                raise Error("--jitter-mode smooth draws normal or uniform offsets, "
                            f"not {self.jitter_dist}")
            if self.jitter_period < 2 * SMOOTH_STEP:
                raise Error(f"--jitter-period must be at least {2 * SMOOTH_STEP * 1e3:g} ms")
            if self.jitter_seed is None:
                self.jitter_seed = int.from_bytes(os.urandom(4), "little")
        self.ack_slot = args.ack_slot
        self.ecn = args.ecn
        self.timestamps = args.timestamps
        self.sender_qdisc = args.sender_qdisc
        self.upstream_qdisc = args.upstream_qdisc
        self.sender_gso = args.sender_gso
        self.offloads = args.offloads
        self.receiver_gro = args.receiver_gro
        self.ipv6 = getattr(args, "ipv6", False)   # netlab setup only
        self.offloads_seen = None                # set by the topology
        self.flows = args.flow or [FlowSpec("cubic")]
        self.duration = getattr(args, "duration", 0.0)
        self.trace_path = args.trace
        self.trace_format = args.trace_format
        self.trace_step = args.trace_step
        self.trace = load_trace(args.trace, args.trace_format, args.trace_step) if args.trace else None
        if self.trace and args.rate is None:
            nominal = sum(self.trace) / len(self.trace) * 1e6
        else:
            nominal = args.rate if args.rate is not None else 20e6
        self.rate = nominal                      # bit/s, sizes the buffer (BDP)
        self.initial_rate = self.trace[0] * 1e6 if self.trace else nominal
        peak = max(self.trace) * 1e6 if self.trace else nominal
        self.bdp_bytes = nominal / 8 * self.rtt
        kind, value = args.buffer
        if kind == "bdp":
            buf = value * self.bdp_bytes
        elif kind == "packets":
            buf = value * WIRE_BYTES
        else:
            buf = value
        self.buffer_spec = args.buffer_text
        self.buffer_bytes = max(WIRE_BYTES, int(round(buf)))
        self.buffer_packets = max(1, math.ceil(self.buffer_bytes / WIRE_BYTES))
        # Timer slop (large in TCG guests) costs a shaper capacity unless the
        # bucket can absorb it; 5 ms matches tc's rate/HZ rule of thumb.
        self.burst = args.burst or max(2 * WIRE_BYTES, int(peak / 8 * 0.005))
        self.calibrate = args.calibrate_rtt
        self.rx_cpus = parse_rx_cpus(args.rx_cpus)
        self.delay_offset = [0.0] * len(self.flows)   # set by RTT calibration
        # Jitter on both directions: half the shortest RTT moves to a netem
        # on the data path (shared by all flows), with its own jitter.
        self.data_delay = 0.0
        if self.jitter_path == "both" and self.jitter > 0:
            self.data_delay = min(self.flow_rtt(i) for i in range(len(self.flows))) / 2
            if self.data_delay < self.jitter:
                raise Error("--jitter-path both needs a jitter below half the RTT")
        self.calibration = None
        if len(self.flows) > 200:
            raise Error("at most 200 flows")
        # Flow i's streams use the source ports [cport_base[i], + streams).
        self.cport_base = [BASE_CPORT + sum(f.streams for f in self.flows[:i])
                           for i in range(len(self.flows))]
        if self.cport_base[-1] + self.flows[-1].streams - 1 > 65535:
            raise Error(f"{sum(f.streams for f in self.flows)} streams in all: "
                        f"at most {65536 - BASE_CPORT}")
        for f in self.flows:
            if self.duration and f.start >= self.duration and f.duration is None:
                raise Error(f"flow {f.cca} starts at {f.start}s, after --duration")

    def uses_data_stage(self):
        """Whether the router's ifb carries a data-path stage."""
        return self.loss > 0 or bool(self.upstream_qdisc) or self.data_delay > 0

    def flow_rtt(self, i):
        return self.flows[i].rtt if self.flows[i].rtt is not None else self.rtt

    def flow_jitter(self, i):
        """Jitter of flow i's own ACK path (with --jitter-path both the data
        path's stays --jitter, shared by all flows)."""
        return self.flows[i].jitter if self.flows[i].jitter is not None else self.jitter

    def flow_duration(self, i):
        f = self.flows[i]
        return f.duration if f.duration is not None else self.duration - f.start

    def flow_cports(self, i):
        """Source ports of flow i's data connections (iperf3 numbers its
        -P streams from --cport up)."""
        return range(self.cport_base[i], self.cport_base[i] + self.flows[i].streams)

    def capacity(self, t):
        """Bottleneck rate (bit/s) at t seconds after the run start."""
        if not self.trace:
            return self.rate
        k = int(max(0.0, t) / self.trace_step)
        return self.trace[k % len(self.trace)] * 1e6

    def to_json(self):
        return {
            "qdisc": self.qdisc, "qdisc_args": self.qdisc_args,
            "rate_mbps": self.rate / 1e6, "rtt_ms": self.rtt * 1e3,
            "buffer": self.buffer_spec, "buffer_bytes": self.buffer_bytes,
            "buffer_packets": self.buffer_packets, "bdp_bytes": round(self.bdp_bytes),
            "burst_bytes": self.burst, "loss_pct": self.loss,
            "jitter_ms": self.jitter * 1e3, "jitter_mode": self.jitter_mode,
            "jitter_dist": self.jitter_dist, "jitter_path": self.jitter_path,
            "jitter_period_ms": self.jitter_period * 1e3 if self.jitter_mode == "smooth" else None,
            "jitter_seed": self.jitter_seed if self.jitter_mode == "smooth" else None,
            "data_delay_ms": self.data_delay * 1e3, "ack_slot_ms": self.ack_slot * 1e3,
            "ecn": self.ecn, "timestamps": self.timestamps,
            "sender_qdisc": self.sender_qdisc, "sender_gso": self.sender_gso,
            "offloads": self.offloads, "receiver_gro": self.receiver_gro,
            "offloads_seen": self.offloads_seen, "ipv6": self.ipv6,
            "upstream_qdisc": self.upstream_qdisc,
            "duration_s": self.duration,
            "rx_cpus": self.rx_cpus,
            "trace": None if not self.trace else {
                "file": self.trace_path, "format": self.trace_format,
                "step_s": self.trace_step, "mbps": self.trace},
            "rtt_calibration": self.calibration,
            "mtu": MTU, "wire_bytes_per_packet": WIRE_BYTES,
            "payload_bytes_per_packet": PAYLOAD_BYTES, "payload_ratio": PAYLOAD_RATIO,
            "flows": [{"cca": f.cca, "rtt_ms": self.flow_rtt(i) * 1e3,
                       "jitter_ms": self.flow_jitter(i) * 1e3, "start_s": f.start,
                       "ecn": self.ecn if f.ecn is None else f.ecn,
                       "rate_bps": f.rate, "streams": f.streams,
                       "duration_s": self.flow_duration(i) if self.duration else f.duration}
                      for i, f in enumerate(self.flows)],
        }


class SmoothDelay:
    """Offset of one path's delay in --jitter-mode smooth.

    PAD's delay-fluctuating link (sec. 4): every `period` a new offset is
    drawn (normal with standard deviation `sigma`, or uniform within
    +-sigma) and the delay moves to it in a straight line over the period,
    so ACKs bunch or spread for tens of milliseconds at a time, where
    per-packet netem draws only bunch a few of them.  Pure and seeded:
    netlab retunes the netem to offset(t) every SMOOTH_STEP.
    """

    def __init__(self, sigma, dist, period, seed):
        self.sigma = sigma
        self.dist = dist
        self.period = period
        self.rng = random.Random(seed)
        self.points = []

    def _draw(self):
        if self.dist == "normal":
            return self.rng.gauss(0.0, self.sigma)
        return self.rng.uniform(-self.sigma, self.sigma)

    def offset(self, t):
        """Offset (s) at t seconds after the run start (t >= 0)."""
        x = max(0.0, t) / self.period
        k = int(x)
        while len(self.points) < k + 2:
            self.points.append(self._draw())
        a, b = self.points[k], self.points[k + 1]
        return a + (b - a) * (x - k)
