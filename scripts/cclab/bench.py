# SPDX-License-Identifier: GPL-2.0
"""bench: the benchmark suite (scenarios of the papers, every CCA side by side).

  scripts/bench [run] [--quick] [-s SCENARIO]... [-c CCA]... [--duration S] [--out DIR]
  scripts/bench list                 scenarios, CCAs, and which CCAs this tree has
  scripts/bench report DIR [--rst]   tables and targets of a finished run (RST for results.rst)
  scripts/bench plot DIR             the PNG plots of a finished run

`run` builds the modules, boots the Debian 6.12 guest once (scripts/vm),
runs every selected scenario x variant x CCA there with scripts/netlab,
then, on the host, writes results.json, results.csv, report.txt and the
plots into one output folder.  Scenarios are bench/scenarios/*.json, the
CCA table is bench/ccas.json; Documentation/bench.rst describes both.
A missed target is reported, never an error; the exit status is non-zero
only when a run is broken (netlab error, missing result, guest failure).
"""

import argparse
import datetime
import glob
import os
import re
import shutil
import subprocess
import sys
import time

from . import common
from .common import TOP, Error, log, write_json
from .guest import cmd_guest
from .plan import BOOT_S, all_scenarios, build_missing, estimate, load_ccas, make_plan, \
    scenario_ccas, tree_missing
from .plots import make_plots
from .report import broken_reps, fmt_metric, report, write_outputs
from .units import fmt_time

def newest_kernel(prefix="6.12."):
    ks = [os.path.basename(p)[len("vmlinuz-"):] for p in glob.glob("/boot/vmlinuz-" + prefix + "*")]
    key = lambda k: [int(x) if x.isdigit() else x for x in re.split(r"[.+-]", k)]
    return sorted(ks, key=key)[-1] if ks else None


def git(*argv):
    p = subprocess.run(["git", "-C", TOP] + list(argv), capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def git_meta(table):
    mods = {}
    for c in table.values():
        for step in c.get("modules", []):
            d = step.get("insmod")
            if d and os.path.isdir(os.path.join(TOP, d)):
                mods[d] = git("log", "-1", "--format=%h", "--", d) or "?"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": git("rev-parse", "HEAD"), "describe": git("describe", "--always", "--dirty"),
            "dirty": bool(dirty), "modules": mods}


def build(host, kver):
    if host:
        argv = ["make", "-s", "-C", TOP, "modules", f"KDIR=/lib/modules/{kver}/build"]
    else:
        argv = ["make", "-s", "-C", TOP, "modules-all"]
    log(f"building: {' '.join(argv[1:])}")
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise Error("the build failed")
    if host:
        # The guest path loads from build/<kver>/; give the host run the same layout.
        mk = open(os.path.join(TOP, "Makefile")).read()
        if re.search(r"^tc-plugin:", mk, re.M):
            subprocess.run(["make", "-s", "-C", TOP, "tc-plugin"], capture_output=True)
        for d in os.listdir(TOP):
            ko = os.path.join(TOP, d, f"{d}.ko")
            if os.path.isfile(ko):
                os.makedirs(os.path.join(TOP, "build", kver, d), exist_ok=True)
                shutil.copy2(ko, os.path.join(TOP, "build", kver, d))


def cmd_run(args):
    table = load_ccas()
    scenarios = all_scenarios()
    chosen, runs, skipped = make_plan(args, table, scenarios)
    if not runs:
        raise Error("nothing selected")
    host = args.host
    kver = os.uname().release if host else (args.kernel or newest_kernel())
    if not kver:
        raise Error("no Debian 6.12 kernel in /boot (run scripts/deps) and no --kernel")
    for c, why in skipped.items():
        log(f"{c}: not available in this tree, skipped ({why})")
    todo = [r for r in runs if not r.get("skip")]
    est = estimate(todo)
    log(f"{len(chosen)} scenario(s), {len(todo)} run(s), about {fmt_time(est + (0 if host else BOOT_S))} "
        f"on {'this host' if host else kver}")
    if args.dry_run:
        for r in runs:
            print(f"{r['scenario']:<18} {r['variant']:<14} {r['cca']:<15} "
                  f"{'skip: ' + r['skip'] if r.get('skip') else 'netlab run ' + ' '.join(r['netlab'])}")
        return 0

    if not args.no_build:
        build(host, kver)
    for r in todo:
        why = next((build_missing(table[n], kver) for n in r["needs"]
                    if build_missing(table[n], kver)), None)
        if why:
            r["skip"] = f"not available: {why}"
            skipped.setdefault(r["cca"], why)
            log(f"{r['scenario']} / {r['variant']} / {r['cca']}: skipped, {why}")

    stamp = datetime.datetime.utcnow().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(args.out or os.path.join(TOP, "bench-results", stamp))
    if os.path.isdir(os.path.join(out, "runs")):
        shutil.rmtree(os.path.join(out, "runs"))
    os.makedirs(out, exist_ok=True)
    for f in ("results.json", "results.csv", "report.txt", "guest.json", "plan.json"):
        if os.path.exists(os.path.join(out, f)):
            os.unlink(os.path.join(out, f))
    shutil.rmtree(os.path.join(out, "plots"), ignore_errors=True)
    plan = {"ccas": table, "runs": runs, "skipped": skipped, "where": "host" if host else "guest",
            "scenarios": [sc for sc in chosen]}
    write_json(os.path.join(out, "plan.json"), plan)
    write_json(os.path.join(out, "meta.json"), {
        "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(["scripts/bench"] + sys.argv[1:]),
        "where": "host (network namespaces)" if host else f"guest {kver} (scripts/vm, TCG unless KVM works)",
        "kernel": kver, "git": git_meta(table),
        "options": {k: v for k, v in vars(args).items() if k != "func"},
        "host": " ".join(os.uname()),
    })

    start = time.monotonic()
    if host:
        if os.geteuid() != 0:
            raise Error("--host needs root (network namespaces, insmod)")
        rc = cmd_guest(argparse.Namespace(dir=out))
    else:
        tmo = int(est * 2 + 900)
        argv = [os.path.join(TOP, "scripts", "vm"), "-k", kver, "-o", out, "-t", str(tmo),
                "--", "scripts/bench", "guest", out]
        log(f"booting {kver}; progress follows")
        rc = subprocess.run(argv).returncode
    log(f"{'run' if host else 'guest'} finished after {fmt_time(time.monotonic() - start)} (exit {rc})")
    return finish(out, args, rc)


def finish(out, args, rc):
    plots = []
    if not args.no_plots:
        try:
            plots = make_plots(out)
        except ImportError:
            log("matplotlib missing (python3-matplotlib): no plots")
        except Exception as e:   # a plot must never hide the results
            log(f"plotting failed: {e!r}")
    text, records, targets = report(out, plots_dir=os.path.join(out, "plots"))
    write_outputs(out, records, targets)
    with open(os.path.join(out, "report.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    broken = [r for r in records if broken_reps(r)]
    if args.tap:
        n = 0
        print("TAP version 13")
        for r in records:
            n += 1
            name = f"bench {r['scenario']} / {r['variant']} / {r['cca']}"
            if broken_reps(r):
                b = broken_reps(r)[0]
                print(f"not ok {n} - {name} # run {b.get('rep', 1)}: {b['reason']}")
            elif r["status"] == "ok":
                m = r["metrics"]
                print(f"ok {n} - {name} # goodput {fmt_metric('goodput_mbps', m['goodput_mbps'])} "
                      f"Mbit/s, RTT p95 {fmt_metric('rtt_p95_ms', m['rtt_p95_ms'])} ms")
            elif r["status"] == "skipped":
                print(f"ok {n} - {name} # SKIP {r['reason']}")
            else:
                print(f"not ok {n} - {name} # {r['reason']}")
        if rc != 0:
            n += 1
            print(f"not ok {n} - bench: the guest run failed (exit {rc}; 125: kernel problem in "
                  f"dmesg, 124: did not finish), see {out}")
        for t in targets:
            print(f"# target [{t['state']}] {t['scenario']} / {t['variant']} / {t['cca']}: "
                  f"{t['text']}: {t['measured']}")
        print(f"1..{n}")
    log(f"results: {out} (report.txt, results.json, results.csv"
        f"{', plots/' if plots else ''})")
    if rc != 0:
        log(f"the guest run failed (exit {rc}); see {out}/dmesg.txt")
    if broken:
        log(f"{len(broken)} broken run(s): " + ", ".join(
            f"{r['scenario']}/{r['variant']}/{r['cca']}" for r in broken))
    return 1 if broken or rc != 0 else 0


def cmd_report(args):
    out = os.path.abspath(args.dir)
    if not os.path.isfile(os.path.join(out, "plan.json")):
        raise Error(f"{out} is not a bench output folder (no plan.json)")
    plots = os.path.join(out, "plots")
    images = os.path.abspath(args.images) if args.images else None
    if images and not args.rst:
        raise Error("--images goes with --rst")
    text, records, targets = report(out, rst=args.rst, images=images,
                                    plots_dir=plots if os.path.isdir(plots) else None)
    print(text, end="")
    return 1 if any(r["status"] == "failed" for r in records) else 0


def cmd_plot(args):
    out = os.path.abspath(args.dir)
    for p in make_plots(out):
        print(os.path.relpath(p, out))
    return 0


def cmd_list(args):
    table = load_ccas()
    scenarios = all_scenarios()
    print("CCAs (bench/ccas.json):")
    for name, c in table.items():
        why = tree_missing(c)
        mods = ", ".join(f"{'insmod ' + s['insmod'] if 'insmod' in s else 'modprobe ' + s['modprobe']}"
                         f"{' ' + ' '.join(s.get('args', [])) if s.get('args') else ''}"
                         for s in c.get("modules", [])) or "-"
        print(f"  {name:<15} cc {c['cc']:<8} qdisc {c['qdisc']:<9} load: {mods}"
              f"{'  [' + why + ']' if why else ''}")
    print("\nScenarios (bench/scenarios/):")
    for name, sc in scenarios.items():
        ns = len(sc["variants"])
        runs = ns * len(scenario_ccas(sc, table))
        flag = "" if sc.get("matrix", True) else " (not in the full matrix)"
        q = " [quick]" if "quick" in sc else ""
        print(f"  {name:<18} {sc['title']} -- {sc.get('source', '')}; {ns} variant(s), "
              f"{runs} runs of {sc['duration']} s{q}{flag}")
    a = argparse.Namespace(scenario=None, quick=False, cca=None, variant=None,
                           duration=None, warmup=None, repeat=1)
    _, runs, _ = make_plan(a, table, scenarios)
    a.quick = True
    _, qruns, _ = make_plan(a, table, scenarios)
    print(f"\nFull matrix: {sum(not r.get('skip') for r in runs)} runs with this tree, about "
          f"{fmt_time(estimate(runs) + BOOT_S)}; --quick: {sum(not r.get('skip') for r in qruns)} "
          f"runs, about {fmt_time(estimate(qruns) + BOOT_S)}")
    return 0


def positive_int(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return n


def build_parser():
    p = argparse.ArgumentParser(prog="bench", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser("run", help="build, boot the guest, run the scenarios, report and plot")
    r.add_argument("--quick", action="store_true",
                   help="the CI subset: scenarios with a \"quick\" section, with its overrides")
    r.add_argument("-s", "--scenario", action="append", metavar="NAME",
                   help="run this scenario (repeatable; default: the full matrix)")
    r.add_argument("-c", "--cca", action="append", metavar="NAME",
                   help="only this CCA of bench/ccas.json (repeatable)")
    r.add_argument("--variant", action="append", metavar="LABEL",
                   help="only this variant of the scenarios, e.g. '1 flow' (repeatable)")
    r.add_argument("--duration", type=float, metavar="S",
                   help="run length override; flow start times, flow durations and the "
                        "warm-up scale with it")
    r.add_argument("--warmup", type=float, metavar="S", help="warm-up override, seconds")
    r.add_argument("--repeat", type=positive_int, default=1, metavar="N",
                   help="run every cell N times, interleaved; tables and targets use the "
                        "median, verdicts show the range (default 1)")
    r.add_argument("-o", "--out", metavar="DIR",
                   help="output folder (default bench-results/<UTC date-time>)")
    r.add_argument("-k", "--kernel", metavar="KVER",
                   help="guest kernel (default: the newest Debian 6.12 in /boot)")
    r.add_argument("--host", action="store_true",
                   help="run on this host in network namespaces (root, module support) "
                        "instead of booting a guest")
    r.add_argument("--tap", action="store_true",
                   help="also print one TAP case per run (broken runs fail, missed targets "
                        "are # comments), for scripts/check")
    r.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    r.add_argument("--no-build", action="store_true", help="use the modules already built")
    r.add_argument("-n", "--dry-run", action="store_true",
                   help="print the runs (netlab arguments) and the time estimate, run nothing")
    r.set_defaults(func=cmd_run)
    g = sub.add_parser("guest", help="(internal) run the plan of DIR here")
    g.add_argument("dir")
    g.set_defaults(func=cmd_guest)
    rep = sub.add_parser("report", help="print the tables and targets of a finished run")
    rep.add_argument("dir")
    rep.add_argument("--rst", action="store_true", help="reStructuredText for Documentation/results.rst")
    rep.add_argument("--images", metavar="DEST",
                     help="with --rst: copy the plots to DEST (e.g. Documentation/results) and "
                          "point the image directives there, relative to Documentation/")
    rep.set_defaults(func=cmd_report)
    pl = sub.add_parser("plot", help="(re)draw the PNG plots of a finished run into DIR/plots/")
    pl.add_argument("dir")
    pl.set_defaults(func=cmd_plot)
    ls = sub.add_parser("list", help="scenarios, CCAs and what this tree has")
    ls.set_defaults(func=cmd_list)
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("run", "guest", "report", "plot", "list", "-h", "--help"):
        argv = ["run"] + argv
    args = build_parser().parse_args(argv)
    common.setup("bench")
    return common.run_command(args.func, args, 2, "interrupted")

