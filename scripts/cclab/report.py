# SPDX-License-Identifier: GPL-2.0
"""The benchmark's metrics, targets and report (on the host, from each
run's result.json): text tables, RST for Documentation/results.rst, JSON, CSV."""

import csv
import glob
import math
import os
import shutil

from .common import TOP, read_json, slug, write_json
from .stats import median

def _sum(values):
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def _share(res, run):
    """Mean goodput of the flows under test over the mean of the others,
    while all run.  Flows that "start together" start up to 3 s apart in a
    TCG guest and each runs its own duration, so over each flow's own
    window the last to start also has the link to itself at the end."""
    s = res["summary"].get("jain_goodputs_mbps")
    if not s or len(s) != len(run["flows"]) or None in s:
        return None
    test = [g for g, spec in zip(s, run["flows"]) if spec["cca"] == run["cca"]]
    other = [g for g, spec in zip(s, run["flows"]) if spec["cca"] != run["cca"]]
    if not test or not other or not sum(other):
        return None
    return (sum(test) / len(test)) / (sum(other) / len(other))


def _long_short(res, run):
    """Goodput of flow 0 over flow 1 while both run (rtt-unfairness: long/short RTT)."""
    s = res["summary"].get("jain_goodputs_mbps")
    if not s or len(s) != 2 or not s[1]:
        return None
    return s[0] / s[1]


def _jitter_share(res, run):
    """Goodput of the flow with the most jitter of its own over the mean of
    the others, while all run (starvation: jittered/other)."""
    s = res["summary"].get("jain_goodputs_mbps")
    jitter = [f.get("jitter_ms") or 0.0 for f in res["config"].get("flows", [])]
    if not s or len(s) < 2 or len(s) != len(jitter) or None in s:
        return None
    j = max(range(len(jitter)), key=jitter.__getitem__)
    others = [g for i, g in enumerate(s) if i != j]
    if not sum(others):
        return None
    return s[j] / (sum(others) / len(others))


def _convergence(res, run):
    vals = [f.get("convergence_s") for f in res["flows"]]
    if not vals:
        return None
    return math.inf if None in vals else max(vals)


METRICS = {
    # name: (column title, unit/format, function(result, run) -> value)
    "goodput_mbps": ("goodput Mbit/s", ".2f", lambda r, _: r["summary"].get("total_goodput_mbps")),
    "ideal_goodput_mbps": ("ideal Mbit/s", ".2f", lambda r, _: r["summary"].get("ideal_goodput_mbps")),
    "utilisation": ("util %", "pct", lambda r, _: r["summary"].get("utilisation")),
    "efficiency": ("% of ideal", "pct", lambda r, _: (
        r["summary"]["total_goodput_mbps"] / r["summary"]["ideal_goodput_mbps"]
        if r["summary"].get("total_goodput_mbps") is not None
        and r["summary"].get("ideal_goodput_mbps") else None)),
    "rtt_p50_ms": ("RTT p50 ms", ".1f", lambda r, _: r["summary"].get("rtt_p50_ms")),
    "rtt_p95_ms": ("RTT p95 ms", ".1f", lambda r, _: r["summary"].get("rtt_p95_ms")),
    "qdelay_p50_ms": ("qdelay p50 ms", ".1f", lambda r, _: r["summary"].get("queue_delay_p50_ms")),
    "qdelay_p95_ms": ("qdelay p95 ms", ".1f", lambda r, _: r["summary"].get("queue_delay_p95_ms")),
    "retransmits": ("retrans", "d", lambda r, _: _sum(f.get("retransmits") for f in r["flows"])),
    "jain": ("Jain", ".3f", lambda r, _: r["summary"].get("jain_index")),
    "cpu_busy": ("CPU busy %", "pct", lambda r, _: (r.get("cpu") or {}).get("busy_fraction")),
    "cpu_ms_per_mb": ("CPU ms/MB", ".2f", lambda r, _: (r.get("cpu") or {}).get("ms_per_mb")),
    "convergence_max_s": ("conv s", ".1f", _convergence),
    "test_share": ("test/other", ".2f", _share),
    "long_short": ("long/short", ".2f", _long_short),
    "jitter_share": ("jittered/other", ".2f", _jitter_share),
}
# Columns of every report table; the others appear when a scenario needs them.
BASE_COLUMNS = ["goodput_mbps", "utilisation", "rtt_p50_ms", "rtt_p95_ms", "qdelay_p95_ms",
                "retransmits"]


def show(name, v):
    """A metric with its unit, for target verdicts."""
    unit = {"pct": " %"}.get(METRICS[name][1], "")
    if name.endswith("_ms"):
        unit = " ms"
    elif name.endswith("_mbps"):
        unit = " Mbit/s"
    elif name.endswith("_s"):
        unit = " s"
    text = fmt_metric(name, v)
    return text if text in ("n/a", "never") else text + unit


def fmt_metric(name, v):
    if v is None:
        return "n/a"
    if v == math.inf:
        return "never"
    spec = METRICS[name][1]
    if spec == "pct":
        return f"{100 * v:.1f}"
    if spec == "d":
        return str(int(v))
    return format(v, spec)


def collect(out, plan):
    """One record per planned run: status, metrics, per-flow goodputs."""
    records = []
    for run in plan["runs"]:
        rec = {k: run[k] for k in ("id", "scenario", "variant", "cca", "duration_s", "warmup_s",
                                   "dir", "netlab")}
        rec["rep"] = run.get("rep", 1)
        rec["flows_cca"] = [f["cca"] for f in run["flows"]]
        rdir = os.path.join(out, run["dir"])
        if run.get("skip"):
            rec.update(status="skipped", reason=run["skip"])
            records.append(rec)
            continue
        st_path = os.path.join(rdir, "status.json")
        st = read_json(st_path) if os.path.isfile(st_path) else \
            {"status": "failed", "reason": "no status: the guest did not reach this run"}
        rec.update(status=st["status"], reason=st.get("reason"), elapsed_s=st.get("elapsed_s"))
        res_path = os.path.join(rdir, "result.json")
        if st["status"] == "ok":
            if not os.path.isfile(res_path):
                rec.update(status="failed", reason="result.json missing")
            else:
                res = read_json(res_path)
                rec["kernel"] = res.get("kernel")
                rec["metrics"] = {m: fn(res, run) for m, (_, _, fn) in METRICS.items()}
                rec["flow_goodputs_mbps"] = [f.get("goodput_mbps") for f in res["flows"]]
                rec["config"] = {k: res["config"].get(k) for k in
                                 ("qdisc", "rate_mbps", "rtt_ms", "buffer", "buffer_packets",
                                  "loss_pct", "jitter_ms", "ack_slot_ms", "ecn")}
        records.append(rec)
    return merge_repeats(records)



def merge_repeats(records):
    """One record per scenario x variant x CCA: with --repeat, the median
    of its runs that worked, their range in "spread" and every run in
    "reps".  A cell whose runs all failed keeps the first failure."""
    cells = {}
    for r in records:
        cells.setdefault((r["scenario"], r["variant"], r["cca"]), []).append(r)
    if all(len(rs) == 1 for rs in cells.values()):
        return records
    merged = []
    for rs in cells.values():
        ok = [r for r in rs if r["status"] == "ok"]
        rec = dict(ok[0] if ok else rs[0])
        rec["runs"] = len(rs)
        rec["runs_ok"] = len(ok)
        rec["reps"] = [{k: r.get(k) for k in ("rep", "status", "reason", "dir", "metrics",
                                              "flow_goodputs_mbps")} for r in rs]
        if ok:
            rec["metrics"], rec["spread"] = {}, {}
            for m in METRICS:
                vals = [r["metrics"][m] for r in ok if r["metrics"].get(m) is not None]
                rec["metrics"][m] = median(vals) if vals else None
                if len(vals) > 1:
                    rec["spread"][m] = [min(vals), max(vals)]
        merged.append(rec)
    return merged


def broken_reps(rec):
    """Runs of a cell that failed (with --repeat a cell can be partly broken)."""
    reps = rec.get("reps") or [rec]
    return [r for r in reps if r["status"] == "failed"]


def find(records, scenario, variant, cca):
    for r in records:
        if (r["scenario"], r["variant"], r["cca"]) == (scenario, variant, cca):
            return r
    return None


def evaluate_targets(sc, records):
    """Every target of a scenario against every matching run: list of dicts."""
    out = []
    for t in sc.get("targets", []):
        variants = t.get("variants") or [v["label"] for v in sc["variants"]]
        ccas = [t["cca"]] if t["cca"] != "*" else \
            sorted({r["cca"] for r in records if r["scenario"] == sc["name"]},
                   key=lambda c: [r["cca"] for r in records].index(c))
        for v in variants:
            for c in ccas:
                rec = find(records, sc["name"], v, c)
                if rec is None:
                    continue
                out.append(dict(check_target(t, rec, find(records, sc["name"], v, t["ref"])
                                             if t.get("ref") else None),
                                variant=v, cca=c, text=t.get("text", ""),
                                source=t.get("source", "")))
    return out


def check_target(t, rec, ref):
    m, op = t["metric"], t["op"]
    if rec["status"] != "ok":
        return {"state": "n/a", "measured": f"run {rec['status']}"}
    x = rec["metrics"].get(m)
    if x is None:
        return {"state": "n/a", "measured": f"{m} n/a"}
    shown = f"{m} {show(m, x)}"
    if m in rec.get("spread", {}):
        lo, hi = rec["spread"][m]
        shown += f" (median of {rec['runs_ok']} runs, {show(m, lo)} to {show(m, hi)})"
    if t.get("ref"):
        if ref is None or ref["status"] != "ok" or ref["metrics"].get(m) is None:
            return {"state": "n/a", "measured": f"{shown}, no {t['ref']} run to compare with"}
        y = ref["metrics"][m]
        if op == "recovers" and m.startswith("rtt_"):
            # Lower is better: recover a share of ref's RTT above the base.
            ideal = ref["config"]["rtt_ms"]
            need = y - t.get("value", 0.5) * (y - ideal)
            return {"state": "met" if x <= need else "missed",
                    "measured": f"{shown} vs {t['ref']} {show(m, y)}, base "
                                f"{show(m, ideal)}: needs {show(m, need)}"}
        if op == "recovers":
            ideal = ref["metrics"]["ideal_goodput_mbps"]
            need = y + t.get("value", 0.5) * (ideal - y)
            return {"state": "met" if x >= need else "missed",
                    "measured": f"{shown} vs {t['ref']} {show(m, y)}, ideal "
                                f"{show(m, ideal)}: needs {show(m, need)}"}
        bound = y * t.get("factor", 1.0)
        ok = x >= bound if op == ">=" else x <= bound
        return {"state": "met" if ok else "missed",
                "measured": f"{shown} vs {t['ref']} {show(m, y)} "
                            f"(x {t.get('factor', 1.0):g} = {show(m, bound)})"}
    v = t["value"]
    if op == "between":
        ok = v[0] <= x <= v[1]
    elif op == ">=":
        ok = x >= v
    else:
        ok = x <= v
    return {"state": "met" if ok else "missed", "measured": shown}



def columns_for(sc, records):
    cols = list(BASE_COLUMNS)
    nflows = max((len(r["flows_cca"]) for r in records if r["scenario"] == sc["name"]), default=1)
    extra = {t["metric"] for t in sc.get("targets", [])} | set(sc.get("columns", []))
    if nflows > 1:
        extra.add("jain")
    if "--conv-hold" in sc.get("netlab_args", []):
        extra.add("convergence_max_s")
    for m in METRICS:
        if m in extra and m not in cols and m not in ("ideal_goodput_mbps",):
            cols.append(m)
    return cols


def table_lines(header, rows, rst):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    if rst:
        sep = "  ".join("=" * w for w in widths)
        out = [sep, "  ".join(h.ljust(w) for h, w in zip(header, widths)), sep]
        out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        return out + [sep]
    out = ["  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    out += ["  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                      for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
    return out


def report(out, rst=False, plots_dir=None, images=None):
    plan = read_json(os.path.join(out, "plan.json"))
    records = collect(out, plan)
    meta = read_json(os.path.join(out, "meta.json")) if os.path.isfile(
        os.path.join(out, "meta.json")) else {}
    guest = read_json(os.path.join(out, "guest.json")) if os.path.isfile(
        os.path.join(out, "guest.json")) else {}
    scenarios = {sc["name"]: sc for sc in plan["scenarios"]}
    lines = []

    def heading(text, ch):
        if rst:
            lines.extend(["", text, ch * len(text), ""])
        else:
            lines.extend(["", f"== {text}" if ch == "=" else f"-- {text}"])

    def para(text):
        lines.append(text if not rst else text)

    kernel = guest.get("kernel") or next((r.get("kernel") for r in records if r.get("kernel")), "?")
    heading("Environment", "=")
    env = [("kernel", kernel), ("tree", meta.get("git", {}).get("describe", "?")),
           ("modules", ", ".join(f"{k} {v}" for k, v in meta.get("git", {}).get("modules", {}).items()) or "-"),
           ("date", meta.get("date", "?")), ("command", meta.get("command", "?")),
           ("where", meta.get("where", "?"))]
    if rst:
        lines += [f":{k}: {v}" for k, v in env]
    else:
        lines += [f"{k + ':':<9} {v}" for k, v in env]
    unavailable = dict(plan.get("skipped", {}))
    unavailable.update(guest.get("unavailable", {}))
    if unavailable:
        para("")
        para("Not available, skipped: " + "; ".join(f"{k} ({v})" for k, v in unavailable.items()))

    all_targets = []
    for name, sc in scenarios.items():
        recs = [r for r in records if r["scenario"] == name]
        heading(f"{sc['title']} ({name})", "=")
        para(f"{sc.get('source', '')}. {sc.get('about', '')}".strip())
        cols = columns_for(sc, records)
        for v in sc["variants"]:
            vrecs = [r for r in recs if r["variant"] == v["label"]]
            if not vrecs:
                continue
            if len(sc["variants"]) > 1 or v["label"] != "default":
                heading(v["label"], "-")
            else:
                para("")
            rows = []
            for r in vrecs:
                if r["status"] == "ok":
                    rows.append([r["cca"]] + [fmt_metric(m, r["metrics"][m]) for m in cols])
                else:
                    rows.append([r["cca"]] + [r["status"]] + [""] * (len(cols) - 1))
            lines += table_lines(["cca"] + [METRICS[m][0] for m in cols], rows, rst)
            runs = sorted({r["runs_ok"] for r in vrecs if r.get("runs", 1) > 1})
            if runs:
                para("")
                para(f"Each row is the median of {' or '.join(map(str, runs))} runs "
                     "(results.json has every run).")
            notes = [f"{r['cca']}: run {b.get('rep', 1)} failed: {b['reason']}"
                     for r in vrecs for b in broken_reps(r)]
            if notes:
                para("")
                lines += [("* " if rst else "  ") + n for n in notes]
        results = evaluate_targets(sc, records)
        all_targets += [dict(t, scenario=name) for t in results]
        if results:
            if rst:
                lines.extend(["", "Targets:", ""])
            else:
                heading(f"Targets: {name}", "-")
            for t in results:
                lines.append(f"{'* ' if rst else '  '}[{t['state']}] {t['cca']}, {t['variant']}: "
                             f"{t['text']} ({t['source']}): {t['measured']}")
        if plots_dir:
            pngs = sorted(glob.glob(os.path.join(plots_dir, f"{slug(name)}-*.png")),
                          key=lambda p: (not p.endswith("-scatter.png"), not p.endswith("-sweep.png"),
                                         not p.endswith("-flows.png"), p))
            if pngs:
                if rst:
                    lines.append("")
                    for p in pngs:
                        if images:
                            os.makedirs(images, exist_ok=True)
                            shutil.copy2(p, images)
                            ref = os.path.relpath(os.path.join(images, os.path.basename(p)),
                                                  os.path.join(TOP, "Documentation"))
                        else:
                            ref = os.path.relpath(p, out)
                        lines += [f".. image:: {ref}", "   :width: 100%", ""]
                else:
                    lines += ["", "  plots: " + ", ".join(os.path.relpath(p, out) for p in pngs)]
    by_cca = {}
    for t in all_targets:
        by_cca.setdefault(t["cca"], {"met": 0, "missed": 0, "n/a": 0})[t["state"]] += 1
    if by_cca:
        heading("Targets by CCA", "=")
        rows = [[c, str(v["met"]), str(v["missed"]), str(v["n/a"])] for c, v in by_cca.items()]
        lines += table_lines(["cca", "met", "missed", "n/a"], rows, rst)
    counts = {s: sum(1 for t in all_targets if t["state"] == s) for s in ("met", "missed", "n/a")}
    reps = [x for r in records for x in (r.get("reps") or [r])]
    lines += ["", f"{len(reps)} runs: {sum(x['status'] == 'ok' for x in reps)} ok, "
                  f"{sum(x['status'] == 'failed' for x in reps)} broken, "
                  f"{sum(x['status'] == 'skipped' for x in reps)} skipped; "
                  f"targets: {counts['met']} met, {counts['missed']} missed, {counts['n/a']} n/a"]
    return "\n".join(lines) + "\n", records, all_targets


def jsonable(x):
    """JSON has no infinity: a flow that never converged is "never"."""
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [jsonable(v) for v in x]
    return "never" if x == math.inf else x


def write_outputs(out, records, targets):
    write_json(os.path.join(out, "results.json"), jsonable({"runs": records, "targets": targets}))
    cols = ["scenario", "variant", "cca", "status", "reason", "duration_s", "warmup_s",
            "flows"] + list(METRICS) + ["flow_goodputs_mbps", "dir"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in records:
            m = r.get("metrics", {})
            row = [r["scenario"], r["variant"], r["cca"], r["status"], r.get("reason") or "",
                   r["duration_s"], r["warmup_s"], " ".join(r["flows_cca"])]
            for k in METRICS:
                v = m.get(k)
                row.append("" if v is None else ("inf" if v == math.inf else
                                                 (round(v, 4) if isinstance(v, float) else v)))
            row += [" ".join("" if g is None else f"{g:g}" for g in r.get("flow_goodputs_mbps", [])),
                    r["dir"]]
            w.writerow(row)
