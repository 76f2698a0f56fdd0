#!/usr/bin/env python3
"""Speed of the batch family against AccaSim on a whole SWF log: FCFS (FIFO) and EASY.

Times AccaSim 1.1.3's FirstInFirstOut and EASYBackfilling (FirstFit allocator, N one-core
nodes; no output files, so the time is its simulation's, reading the log included) and
gridsim's `fcfs` and `easy` on the same log and nodes, two ways: the whole `gridsim run` of a
one-policy experiment as a process (reading and decompressing the log, writing the CSVs, no
figures), and the simulation alone as `gridsim bench batch` times it. Prints a table with the
speed ratios. The schedules themselves are compared by scripts/accasim_compare.py.

    python3 -m venv /tmp/accasim && /tmp/accasim/bin/pip install accasim
    cargo build --release
    /tmp/accasim/bin/python bench/batch_vs_accasim.py [--log FILE.swf.gz] [--nodes 100] [--repeat 3]

AccaSim 1.1.3 imports `collections.Mapping`, which Python 3.10 removed; the script restores that
alias before importing it.
"""
import argparse
import collections
import collections.abc
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLICIES = (("fcfs", "FIFO"), ("easy", "EASY"))


def experiment_text(log, nodes, policy):
    return f"""name = "batch-vs-accasim"
family = "batch"
seed = 1
replications = 1

[platform]
generator = "homogeneous_cluster"
params = {{ hosts = {nodes}, speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1e9, backbone_latency_s = 5e-4 }}

[workload]
trace = "{log}"

[[schedulers]]
name = "{policy}"
"""


def gridsim_times(binary, log, nodes, repeat, work):
    """{policy: (median seconds of the whole `gridsim run`, median seconds of the simulation)}."""
    times = {}
    for policy, _ in POLICIES:
        experiment = work / f"{policy}.toml"
        experiment.write_text(experiment_text(log, nodes, policy))
        runs = []
        for k in range(repeat):
            start = time.perf_counter()
            subprocess.run([binary, "run", str(experiment), "--out", str(work / f"out-{policy}-{k}"), "--no-plots",
                            "--jobs", "1"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            runs.append(time.perf_counter() - start)
        times[policy] = [statistics.median(runs), None]
        bench = subprocess.run([binary, "bench", "batch", "--experiment", str(experiment), "--scale", "1",
                                "--repeat", str(repeat), "--no-memory"],
                               check=True, capture_output=True, text=True, cwd=ROOT).stdout
        # The table row: | label | jobs | decisions | time (s) | ...
        row = next(line for line in bench.splitlines() if re.match(rf"\| {re.escape(policy)} \|", line))
        times[policy][1] = float(row.split("|")[4])
    return times


def accasim_times(log, nodes, repeat, work):
    """{policy: median seconds of AccaSim's simulation}."""
    collections.Mapping = collections.abc.Mapping  # AccaSim 1.1.3 predates Python 3.10
    from accasim.base.allocator_class import FirstFit
    from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut
    from accasim.base.simulator_class import Simulator

    plain = work / "log.swf"
    opener = gzip.open if str(log).endswith(".gz") else open
    with opener(log, "rt") as src, open(plain, "w") as dst:
        dst.write(src.read())
    config = work / "system.config"
    config.write_text('{"groups": {"g0": {"core": 1}}, "resources": {"g0": %d}}' % nodes)
    times = {}
    for (policy, _), dispatcher in zip(POLICIES, (FirstInFirstOut, EASYBackfilling)):
        runs = []
        for k in range(repeat):
            folder = work / f"accasim-{policy}-{k}"
            simulator = Simulator(str(plain), str(config), dispatcher(FirstFit()), RESULTS_FOLDER_PATH=str(folder),
                                  scheduling_output=False, statistics_output=False, pprint_output=False,
                                  benchmark_output=False, show_statistics=False)
            start = time.perf_counter()
            simulator.start_simulation(system_status=False)
            runs.append(time.perf_counter() - start)
        times[policy] = statistics.median(runs)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", default=str(ROOT / "traces/data/KTH-SP2-1996-2.1-cln.swf.gz"))
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each; the median is reported")
    parser.add_argument("--accasim-repeat", type=int, default=1, help="timed AccaSim runs of each")
    parser.add_argument("--gridsim", default=str(ROOT / "target/release/gridsim"))
    args = parser.parse_args()
    if not os.access(args.gridsim, os.X_OK):
        sys.exit(f"{args.gridsim}: not found; run `cargo build --release` first")
    log = str(Path(args.log).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ours = gridsim_times(args.gridsim, log, args.nodes, args.repeat, work)
        theirs = accasim_times(log, args.nodes, args.accasim_repeat, work)
    print(f"{Path(log).name} on {args.nodes} nodes; median of {args.repeat} gridsim runs, "
          f"{args.accasim_repeat} AccaSim run(s)")
    print("| policy | AccaSim (s) | gridsim run, whole process (s) | ratio | gridsim simulation (s) | ratio |")
    print("|---|---|---|---|---|---|")
    for policy, name in POLICIES:
        a = theirs[policy]
        whole, sim = ours[policy]
        print(f"| {name} | {a:.2f} | {whole:.3f} | {a / whole:.0f}x | {sim:.4f} | {a / sim:.0f}x |")


if __name__ == "__main__":
    main()
