# SPDX-License-Identifier: GPL-2.0
"""The standard topology: sender namespaces -- router -- receiver, with the
bottleneck queue, delay, jitter and loss in the router."""

import os
import subprocess
import time

from .common import Error, debug, log
from .link import (BOTTLENECK_DEV, DEFAULT_PREFIX, LOSS_DEV, RECEIVER_IP, RECEIVER_IP6,
                   ROUTER_RCV_IP, ROUTER_RCV_IP6, SENDER_NET, SENDER_NET6, SmoothDelay)
from .netns import (Netns, delete_namespaces, get_offloads, icmp_ping, offloads_off, run,
                    run_batch, set_offloads)
from .stats import percentile
from .units import WIRE_BYTES

MAX_RTT_CALIBRATION = 0.003    # s; more than this is a busy host, not the path


class Topology:
    """Sender namespaces -- router -- receiver, with the impairments in the router."""

    def __init__(self, cfg, prefix=DEFAULT_PREFIX):
        self.cfg = cfg
        tag = f"{prefix}{os.getpid()}"
        self.router = Netns(f"{tag}-r")
        self.receiver = Netns(f"{tag}-d")
        self.senders = [Netns(f"{tag}-s{i}") for i in range(len(cfg.flows))]
        self.created = []
        self.procs = []

    def all_ns(self):
        return [self.router, self.receiver] + self.senders

    @staticmethod
    def sender_ip(i):
        return SENDER_NET.format(i + 1, 2)

    @staticmethod
    def router_ip(i):
        return SENDER_NET.format(i + 1, 1)

    def ipv6_cmds(self):
        """`ip` lines per namespace adding IPv6 beside IPv4 (--ipv6).

        nodad: the addresses are usable at once, not after duplicate
        address detection's second or so.
        """
        router = [f"addr add {ROUTER_RCV_IP6}/64 dev {BOTTLENECK_DEV} nodad"]
        router += [f"addr add {SENDER_NET6.format(i + 1, 1)}/64 dev s{i} nodad"
                   for i in range(len(self.senders))]
        cmds = {self.router.name: router,
                self.receiver.name: [f"addr add {RECEIVER_IP6}/64 dev eth0 nodad",
                                     f"route add ::/0 via {ROUTER_RCV_IP6}"]}
        for i, ns in enumerate(self.senders):
            cmds[ns.name] = [f"addr add {SENDER_NET6.format(i + 1, 2)}/64 dev eth0 nodad",
                             f"route add ::/0 via {SENDER_NET6.format(i + 1, 1)}"]
        return cmds

    # -- build -------------------------------------------------------------

    def setup(self):
        cfg = self.cfg
        self._check_ccas()
        lines = [f"netns add {ns.name}" for ns in self.all_ns()]
        self.created = self.all_ns()
        run_batch("ip", None, lines)
        debug("namespaces created")
        links = [f"link add s{i} netns {self.router.name} type veth peer name eth0 netns {ns.name}"
                 for i, ns in enumerate(self.senders)]
        links.append(f"link add {BOTTLENECK_DEV} netns {self.router.name} type veth "
                     f"peer name eth0 netns {self.receiver.name}")
        run_batch("ip", None, links)

        router = ["link set lo up",
                  f"addr add {ROUTER_RCV_IP}/24 dev {BOTTLENECK_DEV}",
                  f"link set {BOTTLENECK_DEV} up"]
        for i in range(len(self.senders)):
            router += [f"addr add {self.router_ip(i)}/24 dev s{i}", f"link set s{i} up"]
        if cfg.uses_data_stage():
            if not os.path.exists("/sys/module/ifb"):
                run(["modprobe", "ifb", "numifbs=0"], check=False)
            router += [f"link add {LOSS_DEV} type ifb", f"link set {LOSS_DEV} up"]
        run_batch("ip", self.router.name, router)
        run_batch("ip", self.receiver.name, [
            "link set lo up", f"addr add {RECEIVER_IP}/24 dev eth0", "link set eth0 up",
            f"route add default via {ROUTER_RCV_IP}"])
        for i, ns in enumerate(self.senders):
            run_batch("ip", ns.name, [
                "link set lo up", f"addr add {self.sender_ip(i)}/24 dev eth0",
                "link set eth0 up", f"route add default via {self.router_ip(i)}"])

        self.router.sysctl("net.ipv4.ip_forward", 1)
        if cfg.ipv6:
            self.router.sysctl("net.ipv6.conf.all.forwarding", 1)
            for ns, lines in self.ipv6_cmds().items():
                run_batch("ip", ns, lines)
        if cfg.ecn:
            self.receiver.sysctl("net.ipv4.tcp_ecn", 1)
        if not cfg.timestamps:
            self.receiver.sysctl("net.ipv4.tcp_timestamps", 0)
        for ns, flow in zip(self.senders, cfg.flows):
            ecn = cfg.ecn if flow.ecn is None else flow.ecn
            ns.sysctl("net.ipv4.tcp_ecn", 1 if ecn else 2)
            # iperf3 sets -C after connect(): the SYN goes out under the
            # namespace's default CCA, inherited from the initial namespace.
            # Were that abc or dctcp (TCP_CONG_NEEDS_ECN), the flow would
            # ask for ECN whatever its tcp_ecn.  A flow without ECN gets
            # reno (built in, allowed in any namespace) as its default.
            if not ecn:
                ns.sysctl("net.ipv4.tcp_congestion_control", "reno")
        debug("links configured")
        if cfg.rx_cpus:
            self._steer_rx(*cfg.rx_cpus)
            debug(f"receive processing steered to CPUs {cfg.rx_cpus}")
        if cfg.offloads == "off":
            for i, ns in enumerate(self.senders):
                offloads_off(ns, "eth0", keep_gso=cfg.sender_gso)
                offloads_off(self.router, f"s{i}")
            offloads_off(self.receiver, "eth0")
            offloads_off(self.router, BOTTLENECK_DEV)
        if cfg.receiver_gro:
            # veth runs NAPI (and so GRO) on its receive side only when
            # GRO is switched on: the receiver then sees aggregated
            # segments and sends stretched ACKs, as on a real host.
            set_offloads(self.receiver, "eth0", gro=True)
        # What the devices really run, for the result (a test can check it).
        cfg.offloads_seen = {
            "sender": get_offloads(self.senders[0], "eth0"),
            "router_in": get_offloads(self.router, "s0"),
            "bottleneck": get_offloads(self.router, BOTTLENECK_DEV),
            "receiver": get_offloads(self.receiver, "eth0")}

        run_batch("tc", self.router.name, self._router_tc(),
                  hint=" (is the sch_abc module loaded and q_abc.so in TC_LIB_DIR?)"
                  if cfg.qdisc == "abc" or (cfg.upstream_qdisc or "").startswith("abc")
                  else "")
        debug("router qdiscs installed")
        if cfg.calibrate:
            self.calibrate_rtt()
        if cfg.sender_qdisc:
            for ns in self.senders:
                run_batch("tc", ns.name, [f"qdisc replace dev eth0 root {cfg.sender_qdisc}"])

    def _steer_rx(self, data_cpu, ack_cpu):
        """Process the packets received on each emulated link on one CPU (RPS).

        veth hands a packet to the backlog of the CPU that sends it; two
        packets of one flow sent from different CPUs (process context, the
        softirq of an ACK, a qdisc watchdog) can then overtake each other.
        One RPS CPU per receiving veth end keeps every link FIFO.  The data
        direction and the ACK direction get separate CPUs to share the load.
        """
        data = {self.router: [f"s{i}" for i in range(len(self.senders))],
                self.receiver: ["eth0"]}
        acks = {self.router: [BOTTLENECK_DEV]}
        acks.update({ns: ["eth0"] for ns in self.senders})
        writes = {}
        for devs, cpu in ((data, data_cpu), (acks, ack_cpu)):
            for ns, names in devs.items():
                writes.setdefault(ns, []).extend(
                    f"echo {1 << cpu:x} > /sys/class/net/{d}/queues/rx-0/rps_cpus" for d in names)
        for ns, cmds in writes.items():   # sysfs shows a namespace's devices only inside it
            proc = run(ns.cmd(["sh", "-c", "; ".join(cmds)]), check=False)
            if proc.returncode != 0:
                log(f"warning: cannot set RPS in {ns.name} (links may reorder): "
                    f"{proc.stderr.strip()}")

    def _check_ccas(self):
        def available():
            with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
                return f.read().split()
        missing = {f.cca for f in self.cfg.flows} - set(available())
        for cca in sorted(missing):
            run(["modprobe", f"tcp_{cca}"], check=False)
        missing -= set(available())
        if missing:
            raise Error(f"congestion control not available: {', '.join(sorted(missing))} "
                              "(load its module first)")

    def bottleneck_cmds(self, rate, change=False):
        """tc commands creating (or retuning to `rate`) the bottleneck queue."""
        cfg, dev, r = self.cfg, BOTTLENECK_DEV, f"{int(rate)}bit"
        verb = "change" if change else "add"
        htb_class = (f"class {verb} dev {dev} parent 1: classid 1:1 htb rate {r} ceil {r} "
                     f"burst {cfg.burst} cburst {cfg.burst} quantum {WIRE_BYTES}")
        extra = cfg.qdisc_args
        if cfg.qdisc == "tbf":
            return [f"qdisc {verb} dev {dev} root handle 1: tbf rate {r} burst {cfg.burst} "
                    f"limit {cfg.buffer_bytes} {extra}".strip()]
        if cfg.qdisc in ("htb", "fq_codel"):
            if change:
                return [htb_class]
            leaf = (f"bfifo limit {cfg.buffer_bytes}" if cfg.qdisc == "htb"
                    else f"fq_codel limit {cfg.buffer_packets}")
            return [f"qdisc add dev {dev} root handle 1: htb default 1", htb_class,
                    f"qdisc add dev {dev} parent 1:1 handle 10: {leaf} {extra}".strip()]
        if cfg.qdisc == "cake":
            if change:
                return [f"qdisc change dev {dev} root handle 1: cake bandwidth {r}"]
            return [f"qdisc add dev {dev} root handle 1: cake bandwidth {r} "
                    f"memlimit {cfg.buffer_bytes} {extra}".strip()]
        if cfg.qdisc == "abc":
            if change:
                return [f"qdisc change dev {dev} root handle 1: abc bandwidth {r}"]
            return [f"qdisc add dev {dev} root handle 1: abc bandwidth {r} "
                    f"limit {cfg.buffer_packets} {extra}".strip()]
        raise Error(f"unknown qdisc {cfg.qdisc}")

    def delay_qdisc(self, i, verb="add", with_jitter=True, offset=0.0):
        """netem on the router's egress toward sender i: the ACK-path delay
        (plus `offset`, the smooth mode's current one)."""
        cfg = self.cfg
        delay = max(0.0, cfg.flow_rtt(i) - cfg.data_delay - cfg.delay_offset[i] + offset)
        cmd = f"qdisc {verb} dev s{i} root handle 1: netem delay {int(round(delay * 1e6))}us"
        if with_jitter:
            cmd += self.jitter_args(cfg.flow_jitter(i))
        if with_jitter and cfg.ack_slot > 0:
            # ACK aggregation: netem lets packets out only at the start of
            # a slot, every ack_slot, all that are due at once (Wi-Fi-like
            # batching of the ACK path).
            slot = int(round(cfg.ack_slot * 1e6))
            cmd += f" slot {slot}us {slot}us"
        return cmd + " limit 100000"

    def jitter_args(self, jitter):
        cfg = self.cfg
        if jitter <= 0:
            return ""
        if cfg.jitter_mode == "smooth":
            # netlab moves the delay itself (smooth_cmds); the rate keeps
            # a falling delay from reordering.
            return " rate 10gbit"
        args = f" {int(round(jitter * 1e6))}us"
        if cfg.jitter_dist != "uniform":
            args += f" distribution {cfg.jitter_dist}"
        if cfg.jitter_mode == "ordered":
            # With a rate set, netem schedules each packet no earlier than
            # the one before it: jitter without reordering.
            args += " rate 10gbit"
        return args

    def segments_before_loss(self):
        """Whether a tbf must cut GSO skbs into packets before netem's loss.

        netem drops a whole skb: with the offloads on, a GSO skb of up to
        dozens of segments, so "1 % loss" would lose 1 % of bursts.  A tbf
        whose bucket holds one frame and not two segments every GSO skb
        into its child (tbf_segment()), here netem, which then loses
        packets.  At 100 Gbit/s it never holds a packet for long.
        """
        return self.cfg.loss > 0 and self.cfg.offloads != "off"

    def data_qdisc(self, verb="add", with_jitter=True, offset=0.0):
        """netem on the data path, before the bottleneck: loss and delay."""
        cfg = self.cfg
        where = "parent 5:1" if self.segments_before_loss() else "root"
        cmd = f"qdisc {verb} dev {LOSS_DEV} {where} handle 1: netem"
        if cfg.data_delay > 0:
            cmd += f" delay {int(round(max(0.0, cfg.data_delay + offset) * 1e6))}us"
            if with_jitter:
                cmd += self.jitter_args(cfg.jitter)
        if cfg.loss > 0:
            cmd += f" loss random {cfg.loss:g}%"
        return cmd + " limit 100000"

    def smooth_paths(self):
        """The delay processes of --jitter-mode smooth: (sender index or
        None for the data path, SmoothDelay), one per jittered netem."""
        cfg = self.cfg
        if cfg.jitter_mode != "smooth":
            return []
        paths = [(i, SmoothDelay(cfg.flow_jitter(i), cfg.jitter_dist, cfg.jitter_period,
                                 cfg.jitter_seed + i))
                 for i in range(len(self.senders)) if cfg.flow_jitter(i) > 0]
        if cfg.data_delay > 0 and cfg.jitter > 0:
            paths.append((None, SmoothDelay(cfg.jitter, cfg.jitter_dist, cfg.jitter_period,
                                            cfg.jitter_seed + 1000)))
        return paths

    def smooth_cmds(self, paths, t):
        """tc lines setting every smooth path's delay for time t."""
        return [self.data_qdisc(verb="change", offset=p.offset(t)) if i is None
                else self.delay_qdisc(i, verb="change", offset=p.offset(t))
                for i, p in paths]

    def _router_tc(self):
        cfg = self.cfg
        cmds = self.bottleneck_cmds(cfg.initial_rate)
        for i in range(len(self.senders)):
            # Jitter is added after the RTT calibration, if any.
            cmds.append(self.delay_qdisc(i, with_jitter=not cfg.calibrate))
            if cfg.uses_data_stage():
                # Random loss, data-path delay and the upstream queue sit on
                # the data path, before the bottleneck: redirect what arrives
                # from the senders through an ifb holding them.
                cmds.append(f"qdisc add dev s{i} handle ffff: ingress")
                for prio, proto in enumerate(["ip", "ipv6"] if cfg.ipv6 else ["ip"], 1):
                    cmds.append(f"filter add dev s{i} parent ffff: protocol {proto} prio {prio} "
                                f"matchall action mirred egress redirect dev {LOSS_DEV}")
        upstream_parent = "root"
        if self.segments_before_loss():
            cmds.append(f"qdisc add dev {LOSS_DEV} root handle 5: tbf rate 100gbit "
                        "burst 2048 limit 100000000")
        if cfg.loss > 0 or cfg.data_delay > 0:
            cmds.append(self.data_qdisc(with_jitter=not cfg.calibrate))
            upstream_parent = "parent 1:"
        if cfg.upstream_qdisc:
            cmds.append(f"qdisc add dev {LOSS_DEV} {upstream_parent} handle 2: {cfg.upstream_qdisc}")
        return cmds

    def calibrate_rtt(self, pings=9, gap=0.025):
        """Shorten each ACK-path delay by the path's own idle latency.

        A TCG guest adds about 0.5-1.5 ms per round trip (packet processing
        and netem timer slop); measure it with pings over the finished path
        and take it off the netem delay, so the idle RTT is the configured
        one.  A busy host only ever adds delay, in bursts: the pings are
        spread out, the lower quartile is used, and an excess above
        MAX_RTT_CALIBRATION is measured again and then left uncorrected
        rather than taken for the path's own latency.
        """
        cfg = self.cfg
        cal = []
        for i, ns in enumerate(self.senders):
            icmp_ping(ns, RECEIVER_IP, 1, 0.0)   # resolve ARP on every hop
            serialisation = 98 * 8 / cfg.initial_rate  # one echo through the bottleneck
            for attempt in range(2):
                rtts = [r for r in icmp_ping(ns, RECEIVER_IP, pings, cfg.flow_rtt(i) + gap)
                        if r is not None]
                if not rtts:
                    raise Error(f"RTT calibration: no echo reply from {RECEIVER_IP} "
                                      f"to {ns.name}")
                own = percentile(rtts, 25) / 1e3
                excess = own - cfg.flow_rtt(i) - serialisation
                if excess <= MAX_RTT_CALIBRATION:
                    break
            if excess > MAX_RTT_CALIBRATION:
                log(f"warning: {ns.name}: idle RTT {own * 1e3:.2f} ms for {cfg.flow_rtt(i) * 1e3:g} ms "
                    "configured (busy host?); not calibrated")
                excess = 0.0
            cfg.delay_offset[i] = min(max(0.0, excess), cfg.flow_rtt(i))
            cal.append({"id": i, "measured_p25_ms": round(own * 1e3, 3),
                        "measured_p50_ms": round(percentile(rtts, 50), 3),
                        "offset_ms": round(cfg.delay_offset[i] * 1e3, 3)})
        cmds = [self.delay_qdisc(i, verb="change") for i in range(len(self.senders))]
        if cfg.data_delay > 0:
            cmds.append(self.data_qdisc(verb="change"))
        run_batch("tc", self.router.name, cmds)
        cfg.calibration = cal
        debug(f"RTT calibration: {cal}")

    def describe(self):
        doc = {
            "router": self.router.name, "receiver": self.receiver.name,
            "receiver_ip": RECEIVER_IP, "bottleneck_dev": BOTTLENECK_DEV,
            "loss_dev": LOSS_DEV if self.cfg.loss > 0 else None,
            "senders": [{"namespace": ns.name, "ip": self.sender_ip(i), "router_dev": f"s{i}"}
                        for i, ns in enumerate(self.senders)],
        }
        if self.cfg.ipv6:
            doc["receiver_ip6"] = RECEIVER_IP6
            for i, s in enumerate(doc["senders"]):
                s["ip6"] = SENDER_NET6.format(i + 1, 2)
        return doc

    # -- processes and cleanup -------------------------------------------------

    def popen(self, ns, argv, **kw):
        proc = ns.popen(argv, **kw)
        self.procs.append(proc)
        return proc

    def stop_processes(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 3
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []

    def teardown(self):
        self.stop_processes()
        if self.created:
            delete_namespaces([ns.name for ns in self.created])
            self.created = []
