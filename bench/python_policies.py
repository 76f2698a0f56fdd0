#!/usr/bin/env python3
"""Cost of a policy written in Python: the Python GSS against gridsim's `gss` and a Python
work queue against `wq` on grid90 (the LDS paper's platform), and the Python EASY replay of
the KTH log against gridsim's `easy` and against AccaSim's EASYBackfilling.

Each gridsim figure is the median wall-clock time of `gridsim.run` of a one-run experiment
(jobs=1, no figures, fresh), which reads the platform or log and writes the CSV files; the
difference between a Python policy's run and the Rust policy's run of the same experiment,
over the run's decisions, is the cost a Python decision adds. AccaSim is timed as
bench/batch_vs_accasim.py times it (its simulation from the uncompressed log), in the venv
scripts/test.sh fills (target/peers-venv), as a subprocess.

    scripts/test.sh                       # installs the gridsim package and fills target/peers-venv
    python bench/python_policies.py [--repeat 3] [--accasim-python target/peers-venv/bin/python]
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gridsim
from gridsim.policies import EasyBackfilling, GuidedSelfScheduling

ROOT = Path(__file__).resolve().parent.parent
KTH = ROOT / "traces/data/KTH-SP2-1996-2.1-cln.swf.gz"


class WorkQueue:
    """one task per request"""

    def chunk(self, view):
        return 1


def bot_experiment(scheduler, tasks):
    """The LDS paper's set-up (experiments/lds.toml): grid90, master on Jacquelin, 90 nodes."""
    return f"""name = "bench-{scheduler}"
family = "bot"
seed = 1
[platform]
file = "{ROOT}/platforms/data/grid90.xml"
[params]
tasks = {tasks}
task_flops = 1e9
task_bytes = 1000
control_bytes = 100
master = "Jacquelin"
nodes = 90
[[schedulers]]
name = "{scheduler}"
"""


def batch_experiment(scheduler, nodes):
    """The KTH log on `nodes` one-processor hosts, as bench/batch_vs_accasim.py replays it."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from accasim_schedule import gridsim_experiment

    return gridsim_experiment(str(KTH), nodes, [(scheduler, scheduler)])


def timed(path, out, policies, repeat):
    """(median seconds of gridsim.run, the study's runs)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        study = gridsim.run(path, out=out, fresh=True, plots=False, jobs=1, frames="dicts", policies=policies)
        times.append(time.perf_counter() - start)
    return statistics.median(times), study.runs


ACCASIM = """
import gzip, sys, time
from pathlib import Path
sys.path.insert(0, {scripts!r})
from accasim_schedule import simulator
work = Path({work!r})
plain = work / "log.swf"
with gzip.open({log!r}, "rt") as src, open(plain, "w") as dst:
    dst.write(src.read())
times = []
for k in range({repeat}):
    sim = simulator(plain, {nodes}, "easy", work / f"easy-{{k}}", scheduling_output=False)
    start = time.perf_counter()
    sim.start_simulation(system_status=False)
    times.append(time.perf_counter() - start)
times.sort()
print(times[len(times) // 2])
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each; the median is reported")
    parser.add_argument("--tasks", type=int, default=100000, help="tasks of the GSS runs")
    parser.add_argument("--wq-tasks", type=int, default=20000, help="tasks of the work-queue runs")
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--accasim-python", default=str(ROOT / "target/peers-venv/bin/python"))
    parser.add_argument("--accasim-repeat", type=int, default=1)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = [
            ("GSS, grid90, %d tasks" % args.tasks, "gss", GuidedSelfScheduling, bot_experiment, args.tasks, "chunks"),
            ("WQ, grid90, %d tasks" % args.wq_tasks, "wq", WorkQueue, bot_experiment, args.wq_tasks, "chunks"),
        ]
        for label, name, policy, make, size, decisions in cases:
            rust_path, py_path = work / f"{name}.toml", work / f"py_{name}.toml"
            rust_path.write_text(make(name, size))
            py_path.write_text(make(f"py_{name}", size))
            rust, rust_runs = timed(rust_path, work, None, args.repeat)
            python, py_runs = timed(py_path, work, {f"py_{name}": policy}, args.repeat)
            assert rust_runs[0]["makespan_s"] == py_runs[0]["makespan_s"], (rust_runs, py_runs)
            n = int(py_runs[0][decisions])
            rows.append((label, n, rust, python))
        rust_path, py_path = work / "easy.toml", work / "py_easy.toml"
        rust_path.write_text(batch_experiment("easy", args.nodes))
        py_path.write_text(batch_experiment("py_easy", args.nodes))
        rust, rust_runs = timed(rust_path, work, None, args.repeat)
        python, py_runs = timed(py_path, work, {"py_easy": EasyBackfilling}, args.repeat)
        assert rust_runs[0]["mean_wait_s"] == py_runs[0]["mean_wait_s"], (rust_runs, py_runs)
        # Decisions: one per date with a job queued; counted by a policy that forwards to EASY.
        counted = {"n": 0}

        class Counting(EasyBackfilling):
            def schedule(self, view):
                counted["n"] += 1
                return super().schedule(view)

        gridsim.run(py_path, out=work, fresh=True, plots=False, jobs=1, frames="dicts", policies={"py_easy": Counting})
        rows.append((f"EASY, KTH log, {args.nodes} nodes", counted["n"], rust, python))
        accasim = None
        if Path(args.accasim_python).exists():
            script = ACCASIM.format(scripts=str(ROOT / "scripts"), work=str(work), log=str(KTH),
                                    repeat=args.accasim_repeat, nodes=args.nodes)
            done = subprocess.run([args.accasim_python, "-c", script], capture_output=True, text=True, check=True)
            accasim = float(done.stdout.strip().splitlines()[-1])
    print(f"median of {args.repeat} runs each (gridsim.run, jobs=1, no figures)")
    print("| case | decisions | Rust policy (s) | Python policy (s) | ratio | added per decision (µs) |")
    print("|---|---|---|---|---|---|")
    for label, n, rust, python in rows:
        print(f"| {label} | {n} | {rust:.3f} | {python:.3f} | {python / rust:.2f}x | {(python - rust) / n * 1e6:.1f} |")
    if accasim is None:
        print(f"AccaSim: {args.accasim_python} not found (scripts/test.sh fills it)")
    else:
        python = rows[-1][3]
        print(f"AccaSim EASYBackfilling, KTH log, {args.nodes} nodes: {accasim:.2f} s; "
              f"the Python EASY run is {accasim / python:.1f}x faster")


if __name__ == "__main__":
    main()
