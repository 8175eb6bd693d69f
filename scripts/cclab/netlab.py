# SPDX-License-Identifier: GPL-2.0
"""netlab: a network-namespace link emulator for congestion-control experiments.

Standard topology (one sender namespace per flow, one router, one receiver):

    sender s0 --veth--.
    sender s1 --veth--+-- router --[bottleneck]--veth-- receiver
    ...            ---'  (ACK-path delay per sender port, loss on ingress)

Subcommands: run (traffic + measurement), ping (idle RTT), setup (build the
topology and leave it), teardown (remove leftovers), plot (flows.png from a
result.json), check (expressions over a result.json, for tests).  See --help of each and Documentation/netlab.rst.
"""

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from . import common
from .common import Error, debug, log, read_json
from .link import BASE_PORT, DEFAULT_PREFIX, RECEIVER_IP, SMOOTH_STEP, Config, FlowSpec
from .measure import Captures, Sampler, build_result, cpu_ticks, print_summary, wait_listening
from .netns import delete_namespaces, icmp_ping, run
from .plots import plot_flows
from .stats import dist_stats, percentile
from .topology import Topology
from .tracing import Events
from .units import PAYLOAD_BYTES, parse_buffer, parse_ms, parse_percent, parse_rate, parse_seconds


def app_rate_args(rate):
    """iperf3 options of an application-limited flow at RATE bit/s: -b, and
    writes of 10 ms of data (at least one MSS), so that the flow is smooth
    at the 100 ms scale, as a video stream is, rather than one 128 KiB
    block (iperf3's default) at a time."""
    if not rate:
        return []
    block = min(max(PAYLOAD_BYTES, int(rate / 8 / 100)), 128 * 1024)
    return ["-b", str(int(rate)), "-l", str(block)]


def make_outdir(path):
    if path:
        os.makedirs(path, exist_ok=True)
        return path
    return tempfile.mkdtemp(prefix="netlab-")


def cmd_run(args):
    cfg = Config(args)
    events = Events(args.events) if args.events else None
    if events:
        events.check()
    outdir = make_outdir(args.out)
    rawdir = os.path.join(outdir, "raw")
    os.makedirs(rawdir, exist_ok=True)
    topo = Topology(cfg, args.prefix)
    sampler = None
    tc_proc = None
    captures = None
    try:
        topo.setup()
        sampler = Sampler(topo)
        nflows = len(cfg.flows)
        ports = [BASE_PORT + i for i in range(nflows)]
        for i, port in enumerate(ports):
            out = open(os.path.join(rawdir, f"iperf-server-{i}.json"), "w")
            topo.popen(topo.receiver, ["iperf3", "-s", "-1", "-J", "-B", RECEIVER_IP,
                                       "-p", str(port), "-i", str(args.interval)],
                       stdout=out, stderr=subprocess.STDOUT)
            out.close()
        wait_listening(sampler.receiver_nl, ports)
        debug("iperf3 servers listening")
        if args.pcap:
            captures = Captures(topo)
        smooth = topo.smooth_paths()
        if cfg.trace or smooth:
            # One long-lived tc reads the rate and delay changes: spawning
            # tc per step is slow.
            tc_proc = topo.popen(topo.router, ["tc", "-force", "-batch", "-"],
                                 stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        baseline = dict(sampler.counters(), **sampler.device_counters(), cpu=cpu_ticks())
        launched = [False] * nflows
        clients = [None] * nflows
        t0 = time.monotonic()

        def clock():
            return time.monotonic() - t0

        if events:
            events.start(os.path.join(outdir, "trace.txt"), t0)
        run_end = max(f.start + cfg.flow_duration(i) for i, f in enumerate(cfg.flows))
        next_sample, next_step = 0.0, cfg.trace_step if cfg.trace else None
        next_delay = 0.0 if smooth else None
        log(f"running {nflows} flow(s) for {run_end:g} s; output {outdir}")
        while True:
            now = time.monotonic() - t0
            for i, f in enumerate(cfg.flows):
                if not launched[i] and now >= f.start:
                    sampler.launch(i, now)
                    out = open(os.path.join(rawdir, f"iperf-client-{i}.json"), "w")
                    clients[i] = topo.popen(topo.senders[i], [
                        "iperf3", "-c", RECEIVER_IP, "-p", str(BASE_PORT + i),
                        "--cport", str(cfg.cport_base[i]), "-C", f.cca, "-J",
                        "-t", f"{cfg.flow_duration(i):g}", "-i", str(args.interval)]
                        + (["-P", str(f.streams)] if f.streams > 1 else [])
                        + app_rate_args(f.rate),
                        stdout=out, stderr=subprocess.STDOUT)
                    out.close()
                    launched[i] = True
            if next_step is not None and now >= next_step:
                for line in topo.bottleneck_cmds(cfg.capacity(next_step + 1e-6), change=True):
                    tc_proc.stdin.write(line + "\n")
                tc_proc.stdin.flush()
                next_step += cfg.trace_step
            if next_delay is not None and now >= next_delay:
                for line in topo.smooth_cmds(smooth, now):
                    tc_proc.stdin.write(line + "\n")
                tc_proc.stdin.flush()
                next_delay += SMOOTH_STEP
                if next_delay < now:
                    next_delay = now + SMOOTH_STEP
            if now >= next_sample:
                sampler.sample(now, launched, clock)
                next_sample += args.sample_interval
                if next_sample < now:
                    next_sample = now + args.sample_interval
            if all(launched) and all(c.poll() is not None for c in clients):
                break
            if now > run_end + 60:
                raise Error("iperf3 clients did not finish in time")
            wake = min(x for x in (next_sample, next_step, next_delay) if x is not None)
            time.sleep(max(0.0, min(0.05, wake - (time.monotonic() - t0))))
        t_end = time.monotonic() - t0
        debug("all iperf3 clients finished")
        if events:
            events.stop()
        sampler.sample(t_end, launched, clock)
        final = dict(sampler.counters(), **sampler.device_counters(), cpu=cpu_ticks())
        if tc_proc:
            tc_proc.stdin.close()
        time.sleep(0.2)
        if captures:
            captures.stop()
        deadline = time.monotonic() + 10
        for proc in topo.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        tc_stats = run(["tc", "-n", topo.router.name, "-s", "-j", "qdisc", "show"], check=False)
        debug("collected")
        result = build_result(cfg, args, topo, sampler, baseline, final, t_end, rawdir,
                              tc_stats.stdout, captures)
        if captures:
            captures.save(outdir)
        if events:
            result["events"] = events.summary()
    finally:
        if events:
            events.stop()
        if sampler:
            sampler.close()
        if captures:
            captures.discard()
        if not args.keep:
            topo.teardown()
        else:
            topo.stop_processes()
            log(f"kept namespaces: {', '.join(ns.name for ns in topo.all_ns())}")

    debug("torn down")
    path = os.path.join(outdir, "result.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    debug("result written")
    if args.plot:
        plot_flows(result, os.path.join(outdir, "flows.png"))
        debug("plotted")
    print_summary(result)
    log(f"result: {path}")
    errors = [f["iperf"]["error"] for f in result["flows"] if f["iperf"]["error"]]
    if errors:
        raise Error("iperf3: " + "; ".join(errors))
    return 0


def cmd_ping(args):
    cfg = Config(args)
    if cfg.jitter_mode == "smooth":
        raise Error("--jitter-mode smooth moves the delay during `netlab run` only")
    topo = Topology(cfg, args.prefix)
    results = []
    try:
        topo.setup()
        for i, ns in enumerate(topo.senders):
            # One warm-up echo resolves ARP on every hop; it is not counted.
            samples = icmp_ping(ns, RECEIVER_IP, args.count + 1, args.ping_interval)[1:]
            rtts = [r for r in samples if r is not None]
            if not rtts:
                raise Error(f"no echo reply from {RECEIVER_IP} to {ns.name}")
            results.append({"id": i, "configured_rtt_ms": cfg.flow_rtt(i) * 1e3,
                            "samples_ms": [None if r is None else round(r, 4) for r in samples],
                            "lost": len(samples) - len(rtts), **dist_stats(rtts),
                            "median_ms": round(percentile(rtts, 50), 3)})
    finally:
        topo.teardown()
    doc = {"netlab": 1, "kernel": os.uname().release, "config": cfg.to_json(), "ping": results}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "ping.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
    json.dump(doc, sys.stdout, indent=1)
    print()
    for r in results:
        log(f"ping sender {r['id']}: configured {r['configured_rtt_ms']:g} ms, median "
            f"{r['median_ms']:.3f} ms, p95 {r['p95']:.3f} ms ({r['samples']} replies, {r['lost']} lost)")
    return 0


def cmd_setup(args):
    cfg = Config(args)
    if cfg.jitter_mode == "smooth":
        raise Error("--jitter-mode smooth moves the delay during `netlab run` only")
    topo = Topology(cfg, args.prefix)
    try:
        topo.setup()
    except BaseException:
        topo.teardown()
        raise
    json.dump(topo.describe(), sys.stdout, indent=1)
    print()
    log("topology left in place; remove it with `netlab teardown`")
    return 0


def cmd_plot(args):
    path = args.result
    if os.path.isdir(path):
        path = os.path.join(path, "result.json")
    result = read_json(path)
    png = args.output or os.path.join(os.path.dirname(path), "flows.png")
    plot_flows(result, png)
    log(f"plot: {png}")
    return 0


def cmd_check(args):
    from . import check   # the tests' reader: nothing else to import
    try:
        return check.check(check.load(args.result), args.expr, check.parse_set(args.set),
                           err=log)
    except Error as e:
        log(f"error: {e}")
        return 2


def cmd_teardown(args):
    try:
        names = os.listdir("/run/netns")
    except FileNotFoundError:
        names = []
    victims = []
    for name in sorted(names):
        m = re.fullmatch(re.escape(args.prefix) + r"(\d+)-(r|d|s\d+)", name)
        if not m:
            continue
        if not args.all and os.path.exists(f"/proc/{m.group(1)}"):
            continue   # the run that owns it is still going
        victims.append(name)
    delete_namespaces(victims)
    log(f"removed {len(victims)} namespace(s)" + (": " + " ".join(victims) if victims else ""))
    return 0


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

EPILOG = """\
units: rates as tc writes them (20mbit, 500kbit, 1gbit; a bare number is
Mbit/s); times with us/ms/s (bare: ms for --rtt/--jitter/rtt=/jitter=, s for
durations); buffer as NbdP (bandwidth x --rtt), Np (packets of 1514 wire
bytes) or a size (150kb, k = 1024).

topology: one sender namespace per --flow, each over its own veth to the
router; the router forwards to one receiver namespace.  TSO/GSO/GRO are off
on every emulated link.  The bottleneck queue is the router's egress toward
the receiver (dev "dst"); the propagation delay (and jitter) is a netem on
the router's egress toward each sender, i.e. on the ACK path; random loss
(and, with --jitter-path both, half the delay with its own jitter) is a
netem on an ifb that receives everything the router gets from the senders.
Nothing is added on the sending hosts.

examples:
  netlab run --rate 20mbit --rtt 40ms --buffer 1bdp --flow cubic --duration 20 --plot
  netlab run --qdisc fq_codel --flow cubic --flow bbr,rtt=80ms,start=5 --out /tmp/x
  netlab run --trace cell.txt --trace-format mahimahi --trace-step 0.5s --flow bbr
  netlab ping --rtt 100ms --count 10
  netlab teardown
See Documentation/netlab.rst for the JSON schema and the metric definitions."""


CHECK_EPILOG = """\
Each EXPR prints one line: its value (floats to 6 decimals; round(x, n)
fixes n), 1 or 0 for a comparison, null for a missing value.  NAME=EXPR
prints NAME=VALUE, shell-quoted, for eval.  Exit 0, 1 if a comparison is
false, 2 if an EXPR cannot be evaluated (an error on stderr).

EXPR: fields as in Python (flows[0].rtt.p95, config["rate_mbps"],
goodput_series.mbps[2:]), numbers, strings, + - * /, < <= > >= == !=
(chained), and, or, not, and abs len min max sum mean round, and
during(SERIES, T0, T1): the values of a {t_s, ...} series with t_s in
[T0, T1].

example:
  netlab check /tmp/r1 'e=round(flows[0].goodput_mbps, 2)' \\
      'flows[0].rtt.p95 <= 0.8 * c95' --set c95=61.2"""


def add_path_options(p):
    g = p.add_argument_group("emulated path")
    g.add_argument("--rate", type=parse_rate, default=None,
                   help="bottleneck rate (default 20mbit; with --trace: the trace mean, "
                        "used only to size a BDP buffer)")
    g.add_argument("--rtt", type=parse_ms, default=0.040,
                   help="base round-trip propagation delay, put on the ACK path (default 40ms)")
    g.add_argument("--buffer", dest="buffer_text", default="1bdp", metavar="BUFFER",
                   help="bottleneck buffer: 1bdp, 0.5bdp, 100p, 150kb (default 1bdp)")
    g.add_argument("--qdisc", choices=["tbf", "htb", "fq_codel", "cake", "abc"], default="tbf",
                   help="bottleneck queue: tbf (droptail), htb (htb + bfifo, droptail), "
                        "fq_codel (under htb), cake (own shaper), abc (sch_abc, own shaper); "
                        "default tbf")
    g.add_argument("--qdisc-args", default="",
                   help="extra tc arguments for the queueing qdisc, e.g. 'target 5ms' for fq_codel")
    g.add_argument("--burst", type=int, default=None,
                   help="tbf/htb burst in bytes (default max(2 packets, 5 ms at the peak rate))")
    g.add_argument("--loss", type=parse_percent, default=0.0,
                   help="random loss on the data path, e.g. 1%% (default 0)")
    g.add_argument("--jitter", type=parse_ms, default=0.0,
                   help="delay jitter on the ACK path (and the data path with "
                        "--jitter-path both), e.g. 5ms (default 0)")
    g.add_argument("--jitter-path", choices=["ack", "both"], default="ack",
                   help="ack: jitter on the ACK path only; both: half the RTT moves to a "
                        "netem on the data path, before the bottleneck, which draws its "
                        "own jitter, so each direction jitters independently (default ack)")
    g.add_argument("--jitter-mode", choices=["ordered", "reorder", "smooth"], default="ordered",
                   help="ordered: jitter never reorders packets (netem with a rate, so each "
                        "packet leaves no earlier than the one before); reorder: plain netem "
                        "jitter, which reorders; smooth: the delay itself moves, in a straight "
                        "line to a new offset drawn every --jitter-period (PAD's ns-3 link; "
                        "netlab run only), never reordering (default ordered)")
    g.add_argument("--jitter-period", type=parse_seconds, default=0.1,
                   help="smooth mode: time between two drawn delay offsets (default 100ms)")
    g.add_argument("--jitter-seed", type=int, default=None,
                   help="smooth mode: seed of the drawn offsets (default random; "
                        "result.json records it)")
    g.add_argument("--ack-slot", type=parse_ms, default=0.0,
                   help="ACK aggregation: the ACK path releases packets in batches, one "
                        "batch every T (netem slot), e.g. 20ms (default 0: off)")
    g.add_argument("--jitter-dist", choices=["uniform", "normal", "pareto", "paretonormal"],
                   default="uniform", help="jitter distribution (default uniform, +-jitter)")
    g.add_argument("--trace", metavar="FILE", help="time-varying bottleneck capacity")
    g.add_argument("--trace-format", choices=["steps", "mahimahi"], default="steps",
                   help="steps: one rate in Mbit/s per line (# comments) held for --trace-step; "
                        "mahimahi: one ms timestamp per line, each a delivery opportunity for "
                        "one packet, counted per --trace-step window (default steps)")
    g.add_argument("--trace-step", type=parse_seconds, default=1.0,
                   help="duration of one trace step (default 1s); the trace loops")
    g.add_argument("--ecn", action=argparse.BooleanOptionalAction, default=True,
                   help="set net.ipv4.tcp_ecn=1 on senders and receiver (default on; "
                        "--no-ecn leaves the kernel default, 2); a flow's ecn=on|off "
                        "overrides it for that sender")
    g.add_argument("--timestamps", action=argparse.BooleanOptionalAction, default=True,
                   help="TCP timestamps (net.ipv4.tcp_timestamps) on the receiver; "
                        "--no-timestamps turns them off there, so no connection "
                        "negotiates them, as with a peer that does not send them "
                        "(default on, the kernel's default)")
    g.add_argument("--calibrate-rtt", action=argparse.BooleanOptionalAction, default=True,
                   help="measure the path's own idle latency with pings after setup and take it "
                        "off the ACK-path delay, so the idle RTT equals --rtt (default on)")
    g.add_argument("--rx-cpus", default="0,1", metavar="DATA,ACK|none",
                   help="CPUs that process the packets received on the data-direction and on "
                        "the ACK-direction links (RPS), so that veth never reorders a flow "
                        "across per-CPU backlogs; 'none' leaves the kernel's default, which "
                        "reorders a few packets in 1000 (default 0,1; 0 on a 1-CPU machine)")
    g.add_argument("--sender-gso", action=argparse.BooleanOptionalAction, default=False,
                   help="keep TSO/GSO on the senders' interfaces so that multi-segment skbs "
                        "leave back to back (ETC's micro-bursts need this); the bottleneck "
                        "queue then holds such skbs whole and the router segments them "
                        "as they leave (default off)")
    g.add_argument("--offloads", choices=["off", "kernel"], default="off",
                   help="off: TSO, GSO and GRO off on every emulated link (--sender-gso "
                        "keeps the senders' GSO), so each skb is one wire packet; kernel: "
                        "leave them as the kernel sets them on veth (TSO and GSO on, GRO "
                        "off), as a host's stack runs (default off)")
    g.add_argument("--receiver-gro", action=argparse.BooleanOptionalAction, default=False,
                   help="switch GRO on at the receiver's interface: it aggregates segments "
                        "and sends stretched ACKs (default off)")
    g.add_argument("--upstream-qdisc", default=None, metavar="QDISC",
                   help="a second queue in the router, ahead of the bottleneck, on every "
                        "sender's traffic (after --loss), e.g. \"abc bandwidth 10mbit\" for two "
                        "ABC routers in series (default: none)")
    g.add_argument("--sender-qdisc", default=None,
                   help="root qdisc on the senders' interfaces, e.g. fq or fq_codel "
                        "(default: none added, veth's noqueue)")
    g.add_argument("--flow", action="append", type=FlowSpec.parse, metavar="CCA[,rtt=T][,jitter=J][,start=S][,duration=D][,ecn=on|off][,rate=R][,streams=N]",
                   help="one sender/receiver pair running CCA; repeat for more flows "
                        "(default: one cubic flow). rtt overrides --rtt for this pair, jitter "
                        "--jitter on its own ACK path; start "
                        "and duration are seconds after the run start; ecn overrides --ecn "
                        "for this sender; rate limits the application (iperf3 -b, per "
                        "stream); streams=N opens N connections from one iperf3 client "
                        "(-P N), measured together as one flow")
    g.add_argument("--prefix", default=DEFAULT_PREFIX,
                   help=f"namespace name prefix (default {DEFAULT_PREFIX})")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="netlab", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log each step with a timestamp (before the COMMAND)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    fmt = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser("run", help="emulate the path, run iperf3 flows, measure",
                       formatter_class=fmt, epilog=EPILOG)
    add_path_options(p)
    g = p.add_argument_group("run and measurement")
    g.add_argument("--duration", type=parse_seconds, default=20.0,
                   help="run length in seconds; flows without duration= end here (default 20)")
    g.add_argument("--out", metavar="DIR",
                   help="output folder: result.json, flows.png, raw/ iperf3 JSON, pcap/ "
                        "(default: a new folder under $TMPDIR)")
    g.add_argument("--interval", type=float, default=0.5,
                   help="goodput time-series bin and iperf3 report interval, s (default 0.5)")
    g.add_argument("--sample-interval", type=float, default=0.1,
                   help="tcp_info and qdisc sampling period, s (default 0.1)")
    g.add_argument("--warmup", type=parse_seconds, default=0.0,
                   help="seconds after each flow's first byte left out of the mean goodput, "
                        "RTT percentiles, utilisation and Jain index (default 0)")
    g.add_argument("--conv-tolerance", type=float, default=0.25,
                   help="convergence band around the fair share, fraction (default 0.25)")
    g.add_argument("--conv-hold", type=float, default=5.0,
                   help="seconds a flow must stay in the band to count as converged (default 5)")
    g.add_argument("--plot", action="store_true",
                   help="write DIR/flows.png (in a TCG guest the first matplotlib use can take "
                        "minutes; `netlab plot DIR` on the host is quicker)")
    g.add_argument("--pcap", action="store_true",
                   help="capture headers arriving at each sender (ACKs) and at the receiver "
                        "(data) into DIR/pcap/ and count reordered packets per flow")
    g.add_argument("--events", action="append", default=[], metavar="SYSTEM[/EVENT]",
                   help="record these kernel tracepoints while the flows run into "
                        "DIR/trace.txt, e.g. tcp_pcc or tcp_pcc/pcc_mi (repeatable; "
                        "result.json's events.t0_s is the run's start on the trace clock)")
    g.add_argument("--keep", action="store_true",
                   help="leave the namespaces in place after the run (netlab teardown removes them)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("ping", help="measure the idle RTT from every sender to the receiver",
                       formatter_class=fmt)
    add_path_options(p)
    p.add_argument("--count", type=int, default=10, help="pings per sender (default 10)")
    p.add_argument("--ping-interval", type=float, default=0.2, help="seconds between pings (default 0.2)")
    p.add_argument("--out", metavar="DIR", help="also write DIR/ping.json")
    p.set_defaults(func=cmd_ping)

    p = sub.add_parser("setup", help="build the topology, print its namespaces and leave it",
                       formatter_class=fmt)
    add_path_options(p)
    p.add_argument("--ipv6", action="store_true",
                   help="also address every link in IPv6 (receiver fd00:20::2, sender i "
                        "fd00:10:<i+1>::2), with routes and forwarding, for a test that "
                        "runs its own IPv6 traffic over the path (default: IPv4 only)")
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("plot", help="draw flows.png from a result.json (no root needed; in a "
                                     "TCG guest matplotlib is slow, so plot on the host)")
    p.add_argument("result", help="result.json or the run's output folder")
    p.add_argument("-o", "--output", help="PNG path (default: flows.png beside result.json)")
    p.set_defaults(func=cmd_plot, needs_root=False)

    p = sub.add_parser("check", help="evaluate expressions over a result.json (no root needed): "
                                      "print each value, exit 1 if a comparison is false",
                       formatter_class=fmt, epilog=CHECK_EPILOG)
    p.add_argument("result", help="result.json or the run's output folder")
    p.add_argument("expr", nargs="+", metavar="[NAME=]EXPR",
                   help="e.g. flows[0].goodput_mbps or 'summary.utilisation >= 0.9'")
    p.add_argument("--set", action="append", default=[], metavar="NAME=NUMBER",
                   help="a number the expressions can use by NAME (repeatable)")
    p.set_defaults(func=cmd_check, needs_root=False)

    p = sub.add_parser("teardown", help="remove namespaces left by netlab runs that have ended")
    p.add_argument("--all", action="store_true", help="also remove those of runs still alive")
    p.add_argument("--prefix", default=DEFAULT_PREFIX, help=f"namespace prefix (default {DEFAULT_PREFIX})")
    p.set_defaults(func=cmd_teardown)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    common.setup("netlab", args.verbose)
    if hasattr(args, "buffer_text"):
        try:
            args.buffer = parse_buffer(args.buffer_text)
        except argparse.ArgumentTypeError as e:
            parser.error(str(e))
    if getattr(args, "needs_root", True) and os.geteuid() != 0:
        log("needs root (network namespaces and tc)")
        return 2
    # SIGTERM and SIGHUP unwind like Ctrl-C, so the namespaces are removed.
    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    return common.run_command(args.func, args, 1, "interrupted; cleaned up")

