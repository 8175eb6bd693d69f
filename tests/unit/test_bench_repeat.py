#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TAP tests of scripts/bench --repeat: the plan interleaves the repeats,
the report keeps one record per cell with the median and the range, and a
broken repeat is not hidden behind the others."""

import math
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
from cclab import bench, plan, report, stats  # noqa: E402

n = 0
failed = 0


def tap(ok, name, got=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {name}" + ("" if ok else f" # got {got}"))


def record(cca, rep, status="ok", jain=None, conv=None):
    metrics = dict.fromkeys(report.METRICS)
    metrics.update(jain=jain, convergence_max_s=conv)
    rec = {"id": rep, "scenario": "s", "variant": "v", "cca": cca, "rep": rep,
           "status": status, "reason": None if status == "ok" else "netlab exit 1",
           "dir": f"runs/s/v/{cca}/rep{rep}", "flow_goodputs_mbps": []}
    if status == "ok":
        rec["metrics"] = metrics
    return rec


m = stats.median
tap(m([3, 1, 2]) == 2 and m([4, 1, 3, 2]) == 2.5 and m([1.0, math.inf, math.inf]) == math.inf,
    "median: odd count, even count, a flow that never converged")

args = bench.build_parser().parse_args(["run", "-s", "convergence", "-c", "etc", "-c", "cubic",
                                        "--repeat", "3"])
_, runs, _ = plan.make_plan(args, plan.load_ccas(), plan.all_scenarios())
cells = [(r["variant"], r["cca"]) for r in runs]
k = len(cells) // 3
tap(len(cells) == 3 * k and k >= 2 and cells[:k] == cells[k:2 * k] == cells[2 * k:]
    and [r["rep"] for r in runs] == [1] * k + [2] * k + [3] * k,
    "plan: every cell once, then again (interleaved)", cells)
tap(len({r["dir"] for r in runs}) == len(runs) and len({r["id"] for r in runs}) == len(runs),
    "plan: every repeat has its own folder and id")
args = bench.build_parser().parse_args(["run", "-s", "convergence", "-c", "etc"])
_, once, _ = plan.make_plan(args, plan.load_ccas(), plan.all_scenarios())
tap(all("rep" not in r and not r["dir"].endswith("rep1") for r in once) and len(once) == k // 2,
    "plan: without --repeat the plan is as before", once)

recs = [record("a", 1, jain=0.9, conv=1.0), record("a", 2, jain=1.0, conv=math.inf),
        record("a", 3, jain=0.95, conv=3.0), record("b", 1, jain=0.5), record("b", 2, "failed"),
        record("b", 3, jain=0.7)]
out = report.merge_repeats(recs)
a = next(r for r in out if r["cca"] == "a")
b = next(r for r in out if r["cca"] == "b")
tap(len(out) == 2 and a["metrics"]["jain"] == 0.95 and a["spread"]["jain"] == [0.9, 1.0]
    and a["metrics"]["convergence_max_s"] == 3.0 and a["runs"] == 3 and a["runs_ok"] == 3,
    "merge: one record per cell, the median and the range", a)
tap(b["status"] == "ok" and b["runs_ok"] == 2 and b["metrics"]["jain"] == 0.6
    and [x["rep"] for x in report.broken_reps(b)] == [2] and not report.broken_reps(a),
    "merge: a broken repeat stays visible", b)
tap(b["metrics"]["retransmits"] is None and "retransmits" not in b["spread"],
    "merge: a metric no run measured stays n/a")
single = [record("a", 1, jain=0.9), record("b", 1, "failed")]
tap(report.merge_repeats(single) is single and len(report.broken_reps(single[1])) == 1,
    "merge: single runs pass through unchanged")
t = report.check_target({"metric": "jain", "op": ">=", "value": 0.95}, a, None)
tap(t["state"] == "met" and "median of 3 runs, 0.900 to 1.000" in t["measured"],
    "target: judged on the median, the range shown", t)

print(f"1..{n}")
raise SystemExit(1 if failed else 0)
