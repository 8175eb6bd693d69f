# SPDX-License-Identifier: GPL-2.0
"""The benchmark's plan: the CCA table, the scenario files and their
expansion into runs, each a list of netlab arguments."""

import argparse
import glob
import os

from .common import TOP, Error, read_json, slug
from .report import METRICS
from .units import parse_seconds

BENCH_DIR = os.path.join(TOP, "bench")
# Seconds each netlab run costs beyond its traffic in a TCG guest (setup,
# RTT calibration, teardown, Python start-up); only used for estimates.
RUN_OVERHEAD_S = 12
BOOT_S = 40

# Link keys of a scenario -> netlab option (None: handled apart).
LINK_OPTIONS = {
    "rate": "--rate", "rtt": "--rtt", "buffer": "--buffer", "qdisc": "--qdisc",
    "qdisc_args": "--qdisc-args", "loss": "--loss", "jitter": "--jitter",
    "jitter_dist": "--jitter-dist", "jitter_mode": "--jitter-mode",
    "jitter_path": "--jitter-path", "jitter_period": "--jitter-period", "trace": "--trace",
    "trace_format": "--trace-format", "trace_step": "--trace-step", "burst": "--burst",
    "sender_qdisc": "--sender-qdisc", "sender_gso": None, "ecn": None,
    "ack_slot": "--ack-slot", "upstream_qdisc": "--upstream-qdisc",
    "offloads": "--offloads", "receiver_gro": None,
}
FLOW_KEYS = {"cca", "rtt", "jitter", "start", "duration", "ecn", "rate", "streams"}
SCENARIO_KEYS = {"order", "title", "source", "about", "matrix", "link", "flows", "duration", "warmup",
                 "ccas", "variants", "sweep", "netlab_args", "plots", "quick", "targets",
                 "columns"}
TARGET_KEYS = {"cca", "variants", "metric", "op", "value", "ref", "factor", "text", "source"}


def load_ccas(path=None):
    doc = read_json(path or os.path.join(BENCH_DIR, "ccas.json"))
    table = {}
    for c in doc.get("ccas", []):
        for key in ("name", "cc", "qdisc"):
            if key not in c:
                raise Error(f"ccas.json: entry {c} has no {key!r}")
        for step in c.get("modules", []):
            if len(set(step) - {"args"}) != 1 or not ({"modprobe", "insmod"} & set(step)):
                raise Error(f"ccas.json: {c['name']}: a module step is "
                                 f"{{\"modprobe\": M}} or {{\"insmod\": DIR, \"args\": [...]}}, not {step}")
        table[c["name"]] = c
    return table


def tree_missing(cca):
    """Why this CCA cannot run from this tree (None if it can)."""
    for step in cca.get("modules", []):
        d = step.get("insmod")
        if d and not os.path.isfile(os.path.join(TOP, d, "Kbuild")):
            return f"{d} is not in this tree"
    return None


def build_missing(cca, kver):
    """Why this CCA cannot run on kver after the build (None if it can)."""
    for step in cca.get("modules", []):
        d = step.get("insmod")
        if d and not os.path.isfile(os.path.join(TOP, "build", kver, d, f"{d}.ko")):
            return f"{d}.ko not built for {kver}"
    plugin = cca.get("tc_plugin")
    if plugin and not os.path.isfile(os.path.join(TOP, "build", "tc", plugin)):
        return f"tc plugin build/tc/{plugin} not built"
    return None


def load_scenario(path):
    sc = read_json(path)
    name = os.path.splitext(os.path.basename(path))[0]
    unknown = set(sc) - SCENARIO_KEYS
    if unknown:
        raise Error(f"scenario {name}: unknown keys {sorted(unknown)}")
    for key in ("title", "link", "duration"):
        if key not in sc:
            raise Error(f"scenario {name}: missing {key!r}")
    bad = set(sc["link"]) - set(LINK_OPTIONS)
    if bad:
        raise Error(f"scenario {name}: unknown link keys {sorted(bad)}")
    if "variants" in sc and "sweep" in sc:
        raise Error(f"scenario {name}: give variants or sweep, not both")
    for t in sc.get("targets", []):
        bad = set(t) - TARGET_KEYS
        if bad or "metric" not in t or "op" not in t or "cca" not in t:
            raise Error(f"scenario {name}: target {t}: needs cca, metric, op "
                             f"(unknown keys: {sorted(bad)})")
        if t["op"] not in (">=", "<=", "between", "recovers"):
            raise Error(f"scenario {name}: target op {t['op']!r} is not >=, <=, between or recovers")
        if t["metric"] not in METRICS:
            raise Error(f"scenario {name}: unknown metric {t['metric']!r} "
                             f"(known: {', '.join(METRICS)})")
    bad = [m for m in sc.get("columns", []) if m not in METRICS]
    if bad:
        raise Error(f"scenario {name}: unknown columns {bad} (known: {', '.join(METRICS)})")
    sc["name"] = name
    sc["variants"] = expand_variants(sc)
    return sc


def expand_variants(sc):
    if "sweep" in sc:
        if len(sc["sweep"]) != 1:
            raise Error(f"scenario {sc['name']}: sweep has exactly one link key")
        (key, values), = sc["sweep"].items()
        if key not in LINK_OPTIONS:
            raise Error(f"scenario {sc['name']}: sweep key {key!r} is not a link key")
        return [{"label": f"{key} {v}", "link": {key: v}} for v in values]
    variants = sc.get("variants") or [{"label": "default"}]
    for v in variants:
        if "label" not in v or set(v) - {"label", "link", "flows", "duration", "warmup", "ccas"}:
            raise Error(f"scenario {sc['name']}: variant {v} needs a label and may "
                             "set link, flows, duration, warmup, ccas")
    return variants


def all_scenarios():
    paths = glob.glob(os.path.join(BENCH_DIR, "scenarios", "*.json"))
    scs = [load_scenario(p) for p in paths]
    scs.sort(key=lambda sc: (sc.get("order", 1000), sc["name"]))
    return {sc["name"]: sc for sc in scs}


def scenario_ccas(sc, table):
    names = sc.get("ccas", "*")
    if names == "*":
        return list(table)
    for n in names:
        if n not in table:
            raise Error(f"scenario {sc['name']}: CCA {n!r} is not in bench/ccas.json")
    return [n for n in table if n in names]   # table order


def flow_specs(flows, cca_name):
    out = []
    for f in flows:
        if isinstance(f, str):
            f = {"cca": f}
        bad = set(f) - FLOW_KEYS
        if bad:
            raise Error(f"flow {f}: unknown keys {sorted(bad)}")
        out.append(dict(f, cca=cca_name if f.get("cca", "$cca") == "$cca" else f["cca"]))
    return out


def netlab_args(link, flows, table, test, duration, warmup, extra):
    cca = table[test]
    link = dict(link)
    link.setdefault("qdisc", cca["qdisc"])
    args = []
    for key, value in link.items():
        opt = LINK_OPTIONS[key]
        if opt is None:
            continue
        if key == "trace":
            value = os.path.join(TOP, value)
        args += [opt, str(value)]
    if link.get("sender_gso", True):
        # ETC's micro-bursts need multi-segment skbs; every CCA gets the
        # same sending path so the comparison stays fair (as make demo did).
        args.append("--sender-gso")
    if link.get("receiver_gro"):
        args.append("--receiver-gro")
    ecn = link.get("ecn", cca.get("ecn"))
    if ecn is not None:
        args.append("--ecn" if ecn else "--no-ecn")
    for f in flows:
        spec = table[f["cca"]]["cc"]
        for key in ("rtt", "jitter", "start", "duration", "rate", "streams"):
            if key in f:
                spec += f",{key}={f[key]}"
        if "ecn" in f:
            spec += ",ecn=" + ("on" if f["ecn"] else "off")
        args += ["--flow", spec]
    args += ["--duration", f"{duration:g}", "--warmup", f"{warmup:g}"]
    return args + list(extra) + list(cca.get("netlab_args", []))



def flow_seconds(value):
    try:
        return parse_seconds(value)
    except argparse.ArgumentTypeError:
        raise Error(f"not a time in seconds: {value!r}") from None


def make_plan(args, table, scenarios):
    """Expand the selection into runs (dicts) and the CCAs skipped up front."""
    if args.scenario:
        for s in args.scenario:
            if s not in scenarios:
                raise Error(f"no scenario {s!r} (have: {', '.join(scenarios)})")
        chosen = [scenarios[s] for s in args.scenario]
    elif args.quick:
        chosen = [sc for sc in scenarios.values() if "quick" in sc]
    else:
        chosen = [sc for sc in scenarios.values() if sc.get("matrix", True)]
    if args.cca:
        for c in args.cca:
            if c not in table:
                raise Error(f"no CCA {c!r} in bench/ccas.json (have: {', '.join(table)})")
    runs, skipped = [], {}
    for sc in chosen:
        quick = sc.get("quick", {}) if args.quick else {}
        variants = sc["variants"]
        if quick.get("variants"):
            variants = [v for v in variants if v["label"] in quick["variants"]]
        if args.variant:
            variants = [v for v in variants if v["label"] in args.variant]
        ccas = scenario_ccas(dict(sc, ccas=quick.get("ccas", sc.get("ccas", "*"))), table)
        if args.cca:
            ccas = [c for c in ccas if c in args.cca]
        for v in variants:
            base_d = float(v.get("duration", quick.get("duration", sc["duration"])))
            base_w = float(v.get("warmup", quick.get("warmup", sc.get("warmup", 0))))
            scale = args.duration / base_d if args.duration else 1.0
            flows_t = v.get("flows", sc.get("flows", ["$cca"]))
            link = dict(sc["link"], **v.get("link", {}))
            for c in ccas:
                if "ccas" in v and c not in v["ccas"]:
                    continue
                flows = flow_specs(flows_t, c)
                for f in flows:
                    if f["cca"] not in table:
                        raise Error(f"scenario {sc['name']}: flow CCA {f['cca']!r} "
                                         "is not in bench/ccas.json")
                    for key in ("start", "duration"):
                        if key in f:
                            f[key] = round(flow_seconds(f[key]) * scale, 3)
                duration = base_d * scale
                warmup = args.warmup if args.warmup is not None else base_w * scale
                needs = sorted({f["cca"] for f in flows} | {c}, key=list(table).index)
                run = {
                    "id": len(runs), "scenario": sc["name"], "variant": v["label"], "cca": c,
                    "needs": needs, "duration_s": duration, "warmup_s": warmup,
                    "flows": flows, "link": link,
                    "dir": os.path.join("runs", slug(sc["name"]), slug(v["label"]), slug(c)),
                    "netlab": netlab_args(link, flows, table, c, duration, warmup,
                                          sc.get("netlab_args", [])),
                }
                why = next((tree_missing(table[n]) for n in needs if tree_missing(table[n])), None)
                if why:
                    skipped.setdefault(c, why)
                    run["skip"] = why
                runs.append(run)
    if args.repeat > 1:
        # Interleaved (every run once, then again), so that drift of a
        # shared host falls on every CCA alike.
        runs = [dict(r, id=k * len(runs) + r["id"], rep=k + 1,
                     dir=os.path.join(r["dir"], f"rep{k + 1}"))
                for k in range(args.repeat) for r in runs]
    return chosen, runs, skipped


def estimate(runs):
    return sum(r["duration_s"] + RUN_OVERHEAD_S for r in runs if not r.get("skip"))
