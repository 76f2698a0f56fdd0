"""Shared helpers of bench/compare.py and bench/scaling.py: building, locating the binaries,
running a child process with its own wall time and peak RSS, and writing platforms/experiments.

Only the standard library; run with /usr/bin/python3 (3.9+)."""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
GRID90 = os.path.join(ROOT, "platforms", "data", "grid90.xml")

# Issue 5's cluster: 1 Gflop/s hosts, 125 MB/s 50 us private links, 2.25 GB/s 500 us backbone.
# Written as plain numbers with unit suffixes so both sides read the same doubles (SimGrid parses
# "5e-05s" with strtod; "50us" would be 50 * 1e-6, one ulp away).
CLUSTER = dict(speed=1e9, bw=125e6, lat=5e-05, bb_bw=2.25e9, bb_lat=0.0005)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_checked(cmd, **kw):
    log("+ " + " ".join(cmd))
    r = subprocess.run(cmd, cwd=kw.pop("cwd", ROOT), **kw)
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)}")
    return r


def build(simgrid=True):
    """cargo build --release, the bench binaries, and (if simgrid) bench/build.sh.
    Returns a dict of paths: gridsim, bot_scenario, scaling_plot, simgrid_bot, simgrid_fat_tree."""
    run_checked(["cargo", "build", "--release", "--quiet"])
    out = run_checked(
        ["cargo", "bench", "--no-run", "--quiet", "--bench", "bot_scenario", "--bench", "scaling_plot",
         "--message-format=json"],
        stdout=subprocess.PIPE, text=True).stdout
    paths = {"gridsim": os.path.join(TARGET, "release", "gridsim")}
    for line in out.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            name = msg["target"]["name"]
            if name in ("bot_scenario", "scaling_plot"):
                paths[name] = msg["executable"]
    for name in ("bot_scenario", "scaling_plot"):
        if name not in paths:
            sys.exit(f"cargo did not report the {name} bench executable")
    if simgrid:
        sg = os.path.join(TARGET, "simgrid_bot")
        ft = os.path.join(TARGET, "simgrid_fat_tree")
        run_checked([os.path.join(ROOT, "bench", "build.sh")], env=dict(os.environ, OUT=sg, OUT_FAT_TREE=ft))
        paths["simgrid_bot"] = sg
        paths["simgrid_fat_tree"] = ft
    return paths


TIME = "/usr/bin/time"


def measure(cmd, cwd=None, timeout=None):
    """Runs cmd; returns (stdout text, wall seconds, peak RSS in kB of cmd alone), or None if it
    ran longer than `timeout` seconds (it is then killed).

    The peak RSS comes from GNU time (apt package `time`) run between us and cmd: a direct child
    of this Python process inherits Python's own high-water mark across fork + exec (Linux keeps
    the larger of the two in the rusage), which would hide anything below ~14 MB. Without
    /usr/bin/time, os.wait4 is used and the figure is an upper bound."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as rss_file:
        use_time = os.access(TIME, os.X_OK)
        full = [TIME, "-f", "%M", "-o", rss_file.name] + cmd if use_time else cmd
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=out, stderr=err, cwd=cwd or ROOT, start_new_session=True)
        while True:
            pid, status, ru = os.wait4(p.pid, 0 if timeout is None else os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                os.killpg(p.pid, 9)
                os.wait4(p.pid, 0)
                return None
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode()
        if p.returncode != 0:
            sys.exit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{err.read().decode()}")
        rss = ru.ru_maxrss
        if use_time:
            lines = [l for l in rss_file.read().split() if l.strip()]
            rss = int(lines[-1])
    return text, wall, rss


def cluster_xml(path, hosts):
    c = CLUSTER
    with open(path, "w") as f:
        f.write(
            "<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1">\n'
            f'  <cluster id="cluster" prefix="node-" suffix="" radical="0-{hosts - 1}" speed="{c["speed"]!r}f"'
            f' bw="{c["bw"]!r}Bps" lat="{c["lat"]!r}s" bb_bw="{c["bb_bw"]!r}Bps" bb_lat="{c["bb_lat"]!r}s"'
            ' sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED"/>\n'
            "</platform>\n")


def cluster_args(hosts):
    c = CLUSTER
    return ["--cluster", str(hosts), "--speed", repr(c["speed"]), "--bw", repr(c["bw"]), "--lat", repr(c["lat"]),
            "--bb-bw", repr(c["bb_bw"]), "--bb-lat", repr(c["bb_lat"])]


POLICY_TOML = {"wq": ('wq', 'chunk = 1'), "gss": ('gss', 'min_chunk = 1'), "fac2": ('factoring', 'alpha = 2')}


def experiment_toml(path, platform_hosts, master, nodes, policy, tasks, flops, nbytes):
    """A one-run `gridsim run` experiment file. platform_hosts: None for grid90, else the cluster
    size (the homogeneous_cluster generator)."""
    if platform_hosts is None:
        plat = f'file = "{GRID90}"'
    else:
        c = CLUSTER
        plat = ('generator = "homogeneous_cluster"\n'
                f'params = {{ hosts = {platform_hosts}, speed_flops = {c["speed"]!r}, '
                f'bandwidth_bytes_per_s = {c["bw"]!r}, latency_s = {c["lat"]!r}, '
                f'backbone_bandwidth_bytes_per_s = {c["bb_bw"]!r}, backbone_latency_s = {c["bb_lat"]!r} }}')
    name, param = POLICY_TOML[policy]
    with open(path, "w") as f:
        f.write(f'name = "bench"\nfamily = "bot"\n[platform]\n{plat}\n[params]\n'
                f'tasks = {tasks}\ntask_flops = {flops!r}\ntask_bytes = {nbytes!r}\n'
                f'master = "{master}"\nnodes = {nodes}\n'
                f'[[schedulers]]\nname = "{name}"\nparams = {{ {param} }}\n')


def read_csv(path):
    with open(path) as f:
        lines = [l.rstrip("\n").split(",") for l in f if l.strip()]
    return [dict(zip(lines[0], row)) for row in lines[1:]]


def median(xs):
    return statistics.median(xs)


def spread(xs):
    """(max - min) / median, the run-to-run noise."""
    m = statistics.median(xs)
    return (max(xs) - min(xs)) / m if m > 0 else 0.0


def table(headers, rows):
    """Markdown table, columns padded."""
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "| " + " | ".join(c.rjust(w) for c, w in zip(r, widths)) + " |"
    out = [fmt(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(r) for r in cells[1:]]
    return "\n".join(out)


def locate(simgrid=True):
    """The binaries of an earlier build (--no-build): the newest bench executables in TARGET."""
    import glob
    paths = {"gridsim": os.path.join(TARGET, "release", "gridsim")}
    for name in ("bot_scenario", "scaling_plot"):
        found = [p for p in glob.glob(os.path.join(TARGET, "release", "deps", name + "-*"))
                 if os.access(p, os.X_OK) and not p.endswith(".d")]
        if not found:
            sys.exit(f"no {name} executable in {TARGET}; run without --no-build")
        paths[name] = max(found, key=os.path.getmtime)
    if simgrid:
        paths["simgrid_bot"] = os.path.join(TARGET, "simgrid_bot")
        paths["simgrid_fat_tree"] = os.path.join(TARGET, "simgrid_fat_tree")
    for name, p in paths.items():
        if not os.path.exists(p):
            sys.exit(f"missing {p}; run without --no-build")
    return paths


def fat_tree_xml(path, topo_parameters, hosts):
    """The fat tree of `gridsim bench fat-tree` as a SimGrid <cluster>: hosts node-0.., 1 Gflop/s,
    SPLITDUPLEX 125 MB/s 5e-05 s links (CLUSTER's), written as plain numbers so that both sides
    read the same doubles."""
    c = CLUSTER
    with open(path, "w") as f:
        f.write(
            "<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1">\n'
            f'  <cluster id="cluster" prefix="node-" suffix="" radical="0-{hosts - 1}" speed="{c["speed"]!r}f"'
            f' bw="{c["bw"]!r}Bps" lat="{c["lat"]!r}s" topology="FAT_TREE" topo_parameters="{topo_parameters}"'
            ' sharing_policy="SPLITDUPLEX"/>\n'
            "</platform>\n")
