# SPDX-License-Identifier: GPL-2.0
"""The benchmark in the guest (or on the host with --host): load each
CCA's modules and run the plan's netlab commands."""

import glob
import os
import shutil
import subprocess
import tempfile
import time

from .common import TOP, Error, log, read_json, write_json
from .plan import RUN_OVERHEAD_S, estimate
from .units import fmt_time, num

NETLAB = os.path.join(TOP, "scripts", "netlab")

def loaded_modules():
    try:
        with open("/proc/modules") as f:
            return {line.split()[0] for line in f}
    except FileNotFoundError:   # a kernel without module support
        return set()


def available_ccs():
    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        return set(f.read().split())


# The arguments each module was loaded with by load_cca(); a module loaded
# before the benchmark counts as loaded without any.
LOADED_WITH = {}


def unload(mod):
    """rmmod, retried while the last run's sockets still hold the module."""
    for _ in range(20):
        if subprocess.run(["rmmod", mod], capture_output=True).returncode == 0:
            return True
        time.sleep(0.5)
    return False


def load_cca(cca, kver):
    """Load what a CCA needs, with its arguments: a module loaded with other
    ones (two entries of one module with different parameters) is
    reloaded.  Return None or the reason it is not available."""
    for step in cca.get("modules", []):
        mod = step.get("modprobe") or step["insmod"]
        args = step.get("args", [])
        if mod in loaded_modules():
            if LOADED_WITH.get(mod, []) == args:
                continue
            if not unload(mod):
                return f"{mod} is loaded with other arguments and cannot be unloaded"
            log(f"{mod}: reloaded with {' '.join(args) or 'no arguments'}")
        LOADED_WITH[mod] = args
        if "modprobe" in step:
            p = subprocess.run(["modprobe", mod] + args,
                               capture_output=True, text=True)
            if p.returncode != 0:
                return f"modprobe {mod}: {p.stderr.strip() or 'failed'}"
        else:
            ko = os.path.join(TOP, "build", kver, mod, f"{mod}.ko")
            if os.path.isfile(ko):
                argv = ["insmod", ko] + args
            else:   # installed with make install?
                argv = ["modprobe", mod] + args
            p = subprocess.run(argv, capture_output=True, text=True)
            if p.returncode != 0:
                return f"{' '.join(argv[:2])}: {p.stderr.strip() or 'failed'}"
    if cca["cc"] not in available_ccs():
        return f"{cca['cc']} not in tcp_available_congestion_control after loading"
    return None


def tc_lib_dir():
    """A TC_LIB_DIR holding tc's own files and this tree's plugins (q_abc.so)."""
    plugins = glob.glob(os.path.join(TOP, "build", "tc", "q_*.so"))
    if not plugins or os.environ.get("TC_LIB_DIR"):
        return None
    d = tempfile.mkdtemp(prefix="bench-tclib-")
    for f in glob.glob("/usr/lib/*/tc/*") + glob.glob("/usr/lib/tc/*"):
        dst = os.path.join(d, os.path.basename(f))
        if not os.path.exists(dst):
            os.symlink(f, dst)
    for f in plugins:
        dst = os.path.join(d, os.path.basename(f))
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(f, dst)
    return d


def module_params(names):
    out = {}
    for m in names:
        pdir = f"/sys/module/{m}/parameters"
        params = {}
        for p in sorted(glob.glob(os.path.join(pdir, "*"))):
            try:
                with open(p) as f:
                    params[os.path.basename(p)] = f.read().strip()
            except OSError:
                pass
        try:
            with open(f"/sys/module/{m}/srcversion") as f:
                params["(srcversion)"] = f.read().strip()
        except OSError:
            pass
        out[m] = params
    return out


def cmd_guest(args):
    out = os.path.abspath(args.dir)
    plan = read_json(os.path.join(out, "plan.json"))
    table = plan["ccas"]
    where = plan.get("where", "guest")
    kver = os.uname().release
    env = dict(os.environ)
    lib = tc_lib_dir()
    if lib:
        env["TC_LIB_DIR"] = lib
    unavailable = {}
    todo = [r for r in plan["runs"] if not r.get("skip")]
    total = estimate(todo)
    t0 = time.monotonic()
    done_s = 0.0
    mods = set()
    for n, run in enumerate(todo, 1):
        rdir = os.path.join(out, run["dir"])
        os.makedirs(rdir, exist_ok=True)
        status = {"status": "ok", "reason": None}
        for name in run["needs"]:
            if name not in unavailable:
                unavailable[name] = load_cca(table[name], kver)
                if unavailable[name]:
                    log(f"{name}: not available in this {where} ({kver}), skipped: {unavailable[name]}")
                for step in table[name].get("modules", []):
                    mods.add(step.get("insmod") or step.get("modprobe"))
            elif not unavailable[name]:
                # again for every run: another entry may have reloaded
                # the module with its own arguments
                unavailable[name] = load_cca(table[name], kver)
                if unavailable[name]:
                    log(f"{name}: could not be loaded again, skipped: {unavailable[name]}")
        why = next((f"{nm}: {unavailable[nm]}" for nm in run["needs"] if unavailable[nm]), None)
        elapsed = time.monotonic() - t0
        # Planned time left, scaled by the pace so far (a loaded host is slower).
        left = max(0.0, total - done_s) * (elapsed / done_s if done_s > 0 else 1.0)
        head = (f"[{n}/{len(todo)}] {run['scenario']} / {run['variant']} / {run['cca']}  "
                f"({fmt_time(elapsed)} elapsed, ~{fmt_time(left)} left)")
        if why:
            status = {"status": "skipped", "reason": f"not available in this {where}: {why}"}
            log(f"{head}: skipped, {why}")
        else:
            log(head)
            start = time.monotonic()
            argv = [NETLAB, "run"] + run["netlab"] + ["--out", rdir]
            with open(os.path.join(rdir, "netlab.log"), "w") as lf:
                lf.write(" ".join(argv) + "\n")
                lf.flush()
                try:
                    p = subprocess.run(argv, stdout=lf, stderr=subprocess.STDOUT, env=env,
                                       timeout=run["duration_s"] + 180)
                    rc = p.returncode
                except subprocess.TimeoutExpired:
                    rc = 124
            status["elapsed_s"] = round(time.monotonic() - start, 1)
            status["rc"] = rc
            res = os.path.join(rdir, "result.json")
            if rc != 0 or not os.path.isfile(res):
                status.update(status="failed", reason=f"netlab exit {rc}: " + last_error(rdir))
                log(f"  FAILED: {status['reason']}")
            else:
                try:
                    s = read_json(res)["summary"]
                    log(f"  goodput {num(s.get('total_goodput_mbps'))} Mbit/s, util "
                        f"{num(s.get('utilisation'), 100, '.1f')} %, RTT p50/p95 "
                        f"{num(s.get('rtt_p50_ms'), 1, '.1f')}/{num(s.get('rtt_p95_ms'), 1, '.1f')} ms")
                except (Error, KeyError):
                    pass
        done_s += run["duration_s"] + RUN_OVERHEAD_S
        write_json(os.path.join(rdir, "status.json"), status)
    guest = {"kernel": kver, "uname": " ".join(os.uname()),
             "modules": module_params(sorted(m for m in mods if m in loaded_modules())),
             "unavailable": {k: v for k, v in unavailable.items() if v},
             "elapsed_s": round(time.monotonic() - t0, 1),
             "tools": {t: tool_version(v) for t, v in
                       (("iperf3", ["iperf3", "--version"]), ("tc", ["tc", "-V"]))}}
    write_json(os.path.join(out, "guest.json"), guest)
    if lib:
        shutil.rmtree(lib, ignore_errors=True)
    log(f"guest done: {len(todo)} runs in {fmt_time(time.monotonic() - t0)}")
    return 0


def tool_version(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
        return (p.stdout or p.stderr).splitlines()[0].strip()
    except (OSError, IndexError):
        return None


def last_error(rdir):
    try:
        with open(os.path.join(rdir, "netlab.log")) as f:
            lines = [ln.strip() for ln in f if ln.strip()]
    except OSError:
        return "no log"
    errs = [ln for ln in lines if "error" in ln.lower()]
    return (errs or lines or ["no output"])[-1][:300]
