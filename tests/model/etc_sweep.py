#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 29's cells in the ETC model over many seeds, one line each.

    tests/model/etc_sweep.py [-b BINARY] [-n SEEDS] [--first S] [--window]
                             [--noise guest|none] [CELL...]

BINARY defaults to tests/model/etc_flows (make -C tests/model etc_flows),
SEEDS to 16 from seed 1.  --noise guest (the default) adds what the TCG
guest's stack does to the flows (GRO polls, timer slop, the gap between
ACK arrivals, the host's correlated stalls; Documentation/tcp_etc.rst,
"The packet-level model"); --noise none runs the ideal path.  --window
gives every ETC flow the window law's state (the module's window=1).
To compare a variant of etc_core.h, build it into another binary:

    cc -std=gnu11 -O2 -Iinclude -I/tmp/variant -o /tmp/v \\
        tests/model/etc_flows.c -lm

with the edited header in /tmp/variant.  Utilisation is of the payload
rate (the bench's figure over 0.956); "within 2 s" counts the runs in
which every flow came within 25 % of its share within 2 s of joining.
"""
import argparse
import os
import statistics as st
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUEST = {"GRO": "0.0035", "J": "0.001", "ACKGAP": "0.00005", "CJ": "0.003"}
# name: (environment, MBIT BUFFER_PKTS RTT_S DURATION_S WARMUP_S ETC CUBIC,
#        what it stands for)
CELLS = {
    "conv4": ({"STAGGER": "5"}, "20 66 0.04 35 15 4 0",
              "convergence: four flows 5 s apart, 20 Mbit/s, 40 ms, 1 BDP"),
    "conv2": ({"STAGGER": "5"}, "20 66 0.04 25 5 2 0",
              "two flows 5 s apart"),
    "conv4s": ({"STAGGER": "5"}, "10 33 0.04 35 15 4 0",
               "four flows on 10 Mbit/s, 40 ms, 1 BDP"),
    "steady": ({}, "20 66 0.04 20 3 1 0", "one flow, 20 Mbit/s, 40 ms, 1 BDP"),
    "fast": ({}, "100 345 0.04 20 3 1 0", "one flow, 100 Mbit/s, 40 ms, 1 BDP"),
    "jit0": ({}, "10 100 0.16 30 8 1 0",
             "the bench's jitter link: 10 Mbit/s, 160 ms, 100 packets"),
    "jit3": ({"AJ": "0.003"}, "10 100 0.16 30 8 1 0", "the same, 3 ms ACK jitter"),
    "jit4": ({"AJ": "0.004"}, "10 100 0.16 30 8 1 0",
             "the same, 4 ms: spreads the window law's rounds as the guest's 3 ms does"),
    "jit12": ({"AJ": "0.012"}, "10 100 0.16 30 8 1 0", "the same, 12 ms"),
    "aj3": ({"AJ": "0.003"}, "20 66 0.04 20 5 1 0", "3 ms ACK jitter on 20 Mbit/s, 40 ms"),
    "cubic1": ({}, "20 66 0.04 25 5 1 1", "beside one CUBIC flow, 1 BDP"),
    "cubic3": ({}, "20 200 0.04 25 5 1 1", "beside one CUBIC flow, 3 BDP"),
    "shallow10": ({"BUCKET": "1514"}, "20 10 0.03 20 3 1 0",
                  "10-packet drop-tail buffer"),
    "loss1": ({"LOSS": "0.01"}, "20 50 0.03 20 3 1 0", "1 % random loss"),
}


def run(binary, env, args, seed):
    out = subprocess.run([binary] + args.split() + [str(seed)], env=env,
                         capture_output=True, text=True, check=True).stdout
    conv, res = [], {}
    for line in out.splitlines():
        t = line.split()
        if line.startswith("flow") and " etc " in line:
            conv.append(float(t[t.index("conv") + 1]))
        elif line.startswith("util"):
            res = {"util": float(t[1]), "share": float(t[5]),
                   "q95": float(t[t.index("p95") + 1])}
    res["conv"] = conv
    return res


def summary(name, rs):
    med = lambda k: st.median(r[k] for r in rs)
    if name.startswith("conv"):
        slow = [max(r["conv"]) if r["conv"] and min(r["conv"]) >= 0 else 99 for r in rs]
        return (f"slowest median {st.median(slow):.2f} s, within 2 s "
                f"{sum(s <= 2.0 for s in slow)}/{len(rs)}, util {med('util'):.3f}")
    if name.startswith("cubic"):
        sh = [r["share"] for r in rs]
        return f"ETC/CUBIC median {st.median(sh):.2f} [{min(sh):.2f}-{max(sh):.2f}]"
    u = [r["util"] for r in rs]
    return (f"util median {st.median(u):.3f} [{min(u):.3f}-{max(u):.3f}], "
            f"queue p95 {med('q95'):.1f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-b", "--binary", default=os.path.join(TOP, "tests/model/etc_flows"))
    ap.add_argument("-n", "--seeds", type=int, default=16)
    ap.add_argument("--first", type=int, default=1, help="first seed (1)")
    ap.add_argument("--window", action="store_true", help="the window law (window=1)")
    ap.add_argument("--noise", choices=("guest", "none"), default="guest")
    ap.add_argument("cells", nargs="*", metavar="CELL",
                    help="of " + ", ".join(CELLS) + " (all)")
    a = ap.parse_args()
    bad = [c for c in a.cells if c not in CELLS]
    if bad:
        ap.error("unknown cell " + ", ".join(bad))
    cells = a.cells or list(CELLS)
    base = dict(os.environ)
    if a.noise == "guest":
        base.update(GUEST)
    if a.window:
        base["WINDOW"] = "1"
    seeds = range(a.first, a.first + a.seeds)
    with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        futs = {}
        for c in cells:
            env = dict(base, **CELLS[c][0])
            for s in seeds:
                futs[c, s] = ex.submit(run, a.binary, env, CELLS[c][1], s)
        for c in cells:
            print(f"{c:10} {summary(c, [futs[c, s].result() for s in seeds])}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
