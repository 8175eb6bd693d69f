# SPDX-License-Identifier: GPL-2.0
"""PNG plots: one netlab run (flows.png) and a benchmark's scenarios.
matplotlib is imported only here, and only when a plot is drawn."""

import math
import os

from .common import read_json, slug
from .report import collect, fmt_metric
from .units import PAYLOAD_RATIO


def capacity_step(ax, res, **kw):
    """The bottleneck's capacity, goodput-equivalent, as a dashed step line."""
    cs = res["bottleneck"]["capacity_series"]
    mbps = [m * PAYLOAD_RATIO for m in cs["mbps"]]
    ax.step(cs["t_s"] + [res["run"]["duration_s"]], mbps + mbps[-1:], where="post",
            color="black", linestyle="--", label="capacity (goodput equiv.)", **kw)
    return mbps


def queue_panel(ax_q, res, axes):
    """The queueing delay in the bottom panel; a grid and a zero floor on every panel."""
    qs = res["bottleneck"]["queue_series"]
    ax_q.plot(qs["t_s"], qs["delay_ms"], color="tab:red")
    ax_q.set_ylabel("queueing delay (ms)")
    ax_q.set_xlabel("time since run start (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)


def save(plt, fig, path, dpi=100):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def plot_flows(res, path):
    """flows.png of one netlab run: goodput, RTT and queueing delay over time."""
    # The -S of the first line skips site-packages, which costs about 3 s
    # of start-up in a TCG guest; only plotting needs them.
    import site
    site.main()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_tput, ax_rtt, ax_q) = plt.subplots(3, 1, sharex=True, figsize=(10, 9))
    for f in res["flows"]:
        label = f"flow {f['id']}: {f['cca']}, {f['rtt_ms']:g} ms"
        gs = f["goodput_series"]
        if gs["t_s"]:   # draw each bin over its whole width
            ax_tput.step(gs["t_s"] + [gs["t_s"][-1] + res["run"]["interval_s"]],
                         gs["mbps"] + gs["mbps"][-1:], where="post", label=label)
        rs = f["rtt_series"]
        ax_rtt.plot(rs["t_s"], rs["ms"], label=label)
    capacity_step(ax_tput, res)
    c = res["config"]
    ax_tput.set_title(f"{c['qdisc']} {c['rate_mbps']:g} Mbit/s, RTT {c['rtt_ms']:g} ms, "
                      f"buffer {c['buffer']}, loss {c['loss_pct']:g}%, jitter {c['jitter_ms']:g} ms")
    ax_tput.set_ylabel("goodput (Mbit/s)")
    ax_rtt.set_ylabel("smoothed RTT (ms)")
    queue_panel(ax_q, res, (ax_tput, ax_rtt, ax_q))
    ax_tput.legend(loc="best", fontsize="small")
    save(plt, fig, path, dpi=110)


def make_plots(out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plan = read_json(os.path.join(out, "plan.json"))
    records = collect(out, plan)
    pdir = os.path.join(out, "plots")
    os.makedirs(pdir, exist_ok=True)
    made = []
    colours = {name: plt.get_cmap("tab10")(i % 10) for i, name in enumerate(plan["ccas"])}

    def result_of(rec):
        return read_json(os.path.join(out, rec["dir"], "result.json"))

    for sc in plan["scenarios"]:
        recs = [r for r in records if r["scenario"] == sc["name"] and r["status"] == "ok"]
        if not recs:
            continue
        variants = [v["label"] for v in sc["variants"] if any(r["variant"] == v["label"] for r in recs)]
        # 1. goodput vs p95 RTT, one panel per variant.
        n = len(variants)
        ncol = min(n, 2)
        nrow = math.ceil(n / ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(6.5 * ncol, 4.8 * nrow), squeeze=False)
        for ax, v in zip(axes.flat, variants):
            for r in (r for r in recs if r["variant"] == v):
                x, y = r["metrics"]["rtt_p95_ms"], r["metrics"]["goodput_mbps"]
                if x is None or y is None:
                    continue
                ax.scatter([x], [y], s=60, color=colours.get(r["cca"]), zorder=3)
                ax.annotate(r["cca"], (x, y), textcoords="offset points", xytext=(5, 4), fontsize=9)
            ideal = [r["metrics"]["ideal_goodput_mbps"] for r in recs
                     if r["variant"] == v and r["metrics"]["ideal_goodput_mbps"]]
            if ideal:
                ax.axhline(max(ideal), color="grey", linestyle="--", linewidth=1)
                ax.text(0.01, max(ideal), " ideal goodput", color="grey", fontsize=8,
                        va="bottom", transform=ax.get_yaxis_transform())
            ax.margins(x=0.15)
            ax.set_title(v if v != "default" else sc["title"], fontsize=11)
            ax.set_xlabel("RTT p95 (ms)")
            ax.set_ylabel("goodput (Mbit/s)")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.text(0.02, 0.04, "better: up and left\n(more goodput, less delay)",
                    transform=ax.transAxes, fontsize=8, color="dimgrey")
        for ax in list(axes.flat)[n:]:
            ax.axis("off")
        fig.suptitle(f"{sc['title']}: goodput vs RTT p95", fontsize=12)
        made.append(save(plt, fig, os.path.join(pdir, f"{slug(sc['name'])}-scatter.png")))

        # 1b. a sweep: % of the ideal goodput against the swept value, per CCA.
        if "sweep" in sc and len(variants) > 1:
            (key, values), = sc["sweep"].items()
            labels = [f"{key} {v}" for v in values]
            fig, ax = plt.subplots(figsize=(8, 5))
            for c in plan["ccas"]:
                ys = [next((100 * r["metrics"]["efficiency"] for r in recs
                            if r["cca"] == c and r["variant"] == lab
                            and r["metrics"]["efficiency"] is not None), None) for lab in labels]
                if any(y is not None for y in ys):
                    ax.plot(range(len(values)), [math.nan if y is None else y for y in ys],
                            marker="o", color=colours.get(c), label=c)
            ax.set_xticks(range(len(values)))
            ax.set_xticklabels([str(v) for v in values])
            ax.set_xlabel(key)
            ax.set_ylabel("goodput, % of ideal")
            ax.set_ylim(0, 105)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
            ax.set_title(f"{sc['title']}: goodput against {key} (higher is better)", fontsize=11)
            made.append(save(plt, fig, os.path.join(pdir, f"{slug(sc['name'])}-sweep.png")))

        plots = sc.get("plots", {})
        # 2. per-flow goodput over time (convergence runs), one panel per CCA.
        if plots.get("flows"):
            for v in variants:
                vr = [r for r in recs if r["variant"] == v]
                ncol = 2
                nrow = math.ceil(len(vr) / ncol)
                fig, axes = plt.subplots(nrow, ncol, figsize=(13, 3.2 * nrow), squeeze=False,
                                         sharex=True, sharey=True)
                for ax, r in zip(axes.flat, vr):
                    res = result_of(r)
                    for f in res["flows"]:
                        gs = f["goodput_series"]
                        ax.plot(gs["t_s"], gs["mbps"], linewidth=1.2,
                                label=f"flow {f['id']} ({f['start_s']:g} s)")
                    ax.set_title(f"{r['cca']}: Jain {fmt_metric('jain', r['metrics']['jain'])}",
                                 fontsize=10)
                    ax.set_ylabel("goodput (Mbit/s)")
                    ax.grid(True, alpha=0.3)
                    ax.set_ylim(bottom=0)
                axes.flat[0].legend(fontsize=7, loc="upper right")
                for ax in list(axes.flat)[len(vr):]:
                    ax.axis("off")
                for ax in axes[-1]:
                    ax.set_xlabel("time (s)")
                fig.suptitle(f"{sc['title']}: per-flow goodput", fontsize=12)
                made.append(save(plt, fig, os.path.join(
                    pdir, f"{slug(sc['name'])}-{slug(v)}-flows.png")))
        # 3. rate, cwnd and queueing delay over time, one figure per CCA.
        ts = plots.get("timeseries")
        if ts:
            for v in (variants if ts is True else [x for x in variants if x in ts]):
                for r in (r for r in recs if r["variant"] == v):
                    res = result_of(r)
                    path = os.path.join(pdir, f"{slug(sc['name'])}-{slug(v)}-{slug(r['cca'])}.png")
                    plot_timeseries(plt, res, r, sc, path)
                    made.append(path)
    return made


def plot_timeseries(plt, res, rec, sc, path):
    fig, (ax_r, ax_w, ax_q) = plt.subplots(3, 1, sharex=True, figsize=(10, 7.5))
    capacity = capacity_step(ax_r, res, linewidth=1)
    for f in res["flows"]:
        gs = f["goodput_series"]
        ax_r.plot(gs["t_s"], gs["mbps"], label=f"goodput, flow {f['id']}")
        pr = f.get("pacing_rate_series")
        if pr and any(x is not None for x in pr["mbps"]):
            ax_r.plot(pr["t_s"], pr["mbps"], linewidth=0.8, alpha=0.6,
                      label=f"pacing rate, flow {f['id']}")
        cw = f["cwnd_series"]
        ax_w.plot(cw["t_s"], cw["packets"], label=f"flow {f['id']}")
    ax_r.set_ylim(0, max(capacity + [1]) * 1.6)
    ax_r.set_ylabel("Mbit/s")
    ax_w.set_ylabel("cwnd (packets)")
    queue_panel(ax_q, res, (ax_r, ax_w, ax_q))
    ax_r.legend(fontsize=7, loc="upper right")
    c = res["config"]
    ax_r.set_title(f"{sc['title']} / {rec['variant']}: {rec['cca']} ({c['qdisc']}, "
                   f"RTT {c['rtt_ms']:g} ms, buffer {c['buffer']})", fontsize=11)
    save(plt, fig, path)
