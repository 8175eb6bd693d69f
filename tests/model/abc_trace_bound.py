#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fluid bounds for a capacity trace: what one RTT of feedback delay costs.

For bench/traces/abc-varying.txt (or any steps trace) at a given RTT, two
idealised senders that see the bottleneck exactly but one RTT late:

  oracle   sends at eta x C(t - RTT): perfect capacity knowledge, no
           queue control;
  abc      sends at ABC's target rate (Eq. 1) of one RTT ago,
           eta C - C / delta x (queueing delay - d_t)+, never below 0.

A capacity drop from C1 to C2 leaves about C1 x RTT in the pipe, which
the queue then drains at C2: no sender that hears of the drop an RTT
later avoids that.  The printed utilisation and queueing-delay
percentiles (after the warm-up) bound what the real runs can reach.

  tests/model/abc_trace_bound.py [TRACE] [--rtt 0.1] [--step 0.1]
"""
import argparse


def load(path):
    with open(path) as f:
        return [float(line) for line in f if line.strip() and not line.startswith("#")]


def run(trace, step, rtt, duration, warmup, rate_fn, dt=0.001):
    def cap(t):
        return trace[int(max(t, 0.0) / step) % len(trace)] * 1e6 / 8

    lag = int(round(rtt / dt))
    hist, qd = [], []
    q = delivered = offered = 0.0
    for i in range(int(duration / dt)):
        t = i * dt
        mu = cap(t)
        hist.append(rate_fn(mu, q / mu))
        send = hist[-lag - 1] if len(hist) > lag else hist[0]
        q += send * dt
        out = min(q, mu * dt)
        q -= out
        if t >= warmup:
            qd.append(q / mu * 1e3)
            delivered += out
            offered += mu * dt
    qd.sort()
    return delivered / offered, qd[len(qd) // 2], qd[int(len(qd) * 0.95)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trace", nargs="?", default="bench/traces/abc-varying.txt")
    p.add_argument("--step", type=float, default=0.1, help="seconds per trace line")
    p.add_argument("--rtt", type=float, default=0.1, help="seconds")
    p.add_argument("--duration", type=float, default=45.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--eta", type=float, default=0.95)
    p.add_argument("--delta", type=float, default=0.133, help="ABC's delta, seconds")
    p.add_argument("--dt-target", type=float, default=0.02, help="ABC's d_t, seconds")
    a = p.parse_args()
    trace = load(a.trace)
    senders = {
        "oracle": lambda mu, x: a.eta * mu,
        "abc": lambda mu, x: max(0.0, a.eta * mu - mu / a.delta * max(0.0, x - a.dt_target)),
    }
    print(f"{a.trace}: RTT {a.rtt * 1e3:g} ms, eta {a.eta:g}, delta {a.delta * 1e3:g} ms, "
          f"d_t {a.dt_target * 1e3:g} ms")
    for name, fn in senders.items():
        util, p50, p95 = run(trace, a.step, a.rtt, a.duration, a.warmup, fn)
        print(f"  {name:7s} utilisation {util * 100:5.1f} %  queueing delay p50 {p50:5.0f} ms"
              f"  p95 {p95:5.0f} ms")


if __name__ == "__main__":
    main()
