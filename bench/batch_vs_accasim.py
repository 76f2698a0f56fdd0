#!/usr/bin/env python3
"""Speed of the batch family against AccaSim on a whole SWF log: FCFS (FIFO) and EASY.

Times AccaSim 1.1.3's FirstInFirstOut and EASYBackfilling (FirstFit allocator, N one-core
nodes; no output files, so the time is its simulation's, reading the log included) and
gridsim's `fcfs` and `easy` on the same log and nodes, two ways: the whole `gridsim run` of a
one-policy experiment as a process (reading and decompressing the log, writing the CSVs, no
figures), and the simulation alone as `gridsim bench batch` times it. Prints a table with the
speed ratios. The schedules themselves are compared by scripts/accasim_compare.py.

    scripts/test.sh        # fills target/peers-venv with the pinned AccaSim
    cargo build --release
    target/peers-venv/bin/python bench/batch_vs_accasim.py [--log FILE.swf.gz] [--nodes 100] [--repeat 3]

AccaSim is set up as scripts/accasim_schedule.py sets it up for the schedule comparison
(the same machine, experiment text and Python 3.10 alias).
"""
import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from accasim_schedule import gridsim_experiment, simulator  # noqa: E402  (the shared AccaSim side)

ROOT = Path(__file__).resolve().parent.parent
POLICIES = (("fcfs", "FIFO"), ("easy", "EASY"))


def gridsim_times(binary, log, nodes, repeat, work):
    """{policy: (median seconds of the whole `gridsim run`, median seconds of the simulation)}."""
    times = {}
    for policy, _ in POLICIES:
        experiment = work / f"{policy}.toml"
        experiment.write_text(gridsim_experiment(log, nodes, [(policy, policy)]))
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
    plain = work / "log.swf"
    opener = gzip.open if str(log).endswith(".gz") else open
    with opener(log, "rt") as src, open(plain, "w") as dst:
        dst.write(src.read())
    times = {}
    for policy, name in POLICIES:
        runs = []
        for k in range(repeat):
            sim = simulator(plain, nodes, name.lower(), work / f"accasim-{policy}-{k}", scheduling_output=False)
            start = time.perf_counter()
            sim.start_simulation(system_status=False)
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
