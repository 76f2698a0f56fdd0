#!/usr/bin/env python3
"""The batch family against AccaSim on the same log: FCFS, SJF and EASY backfilling, job by job.

Replays an SWF log (default: the bundled KTH SP2 log) on N one-core nodes under gridsim's
`fcfs`, `sjf` and `easy` and under AccaSim's FirstInFirstOut, ShortestJobFirst and
EASYBackfilling (FirstFit allocator; `scripts/accasim_schedule.py` runs AccaSim), then compares
every job's start time and the mean wait. AccaSim is a peer no one here wrote (PyPI `accasim`);
`scripts/test.sh` installs it in `target/peers-venv`. Run this script with that environment's
Python:

    scripts/test.sh     # or only its set-up of target/peers-venv
    cargo build --release
    target/peers-venv/bin/python scripts/accasim_compare.py [--log FILE.swf.gz] [--nodes 100]

Start times are compared after shifting AccaSim's so that the first submission is at the same
date in both. `tests/batch_peers.rs` runs the same comparison on a slice of the log in the test
suite.
"""
import argparse
import collections
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from accasim_schedule import POLICIES, gridsim_experiment, schedule, sliced_log

ROOT = Path(__file__).resolve().parent.parent


def gridsim_starts(binary, log, nodes, work):
    """Runs gridsim's fcfs, sjf and easy on `log`; returns {policy: {job_id: (submit, start)}}."""
    experiment = work / "accasim-compare.toml"
    experiment.write_text(gridsim_experiment(log, nodes, [("fcfs", "fifo"), ("sjf", "sjf"), ("easy", "easy")],
                                             tables=["jobs"]))
    subprocess.run([binary, "run", str(experiment), "--out", str(work / "gridsim"), "--no-plots"],
                   check=True, stdout=subprocess.DEVNULL)
    starts = collections.defaultdict(dict)
    with open(work / "gridsim/results/accasim-side-by-side/jobs.csv") as f:
        for r in csv.DictReader(f):
            starts[r["scheduler"]][int(r["job_id"])] = (float(r["submission_time"]), float(r["starting_time"]))
    return starts


def accasim_starts(log, nodes, work):
    """Runs AccaSim's FIFO, SJF and EASY on `log`; returns {policy: {job_id: (submit, start)}}."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    plain = work / "log.swf"
    sliced_log(log, None, plain)
    return {p: schedule(plain, nodes, p, work) for p in POLICIES}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", default=str(ROOT / "traces/data/KTH-SP2-1996-2.1-cln.swf.gz"))
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--gridsim", default=str(ROOT / "target/release/gridsim"))
    args = parser.parse_args()
    if not os.access(args.gridsim, os.X_OK):
        sys.exit(f"{args.gridsim}: not found; run `cargo build --release` first")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ours = gridsim_starts(args.gridsim, args.log, args.nodes, work)
        theirs = accasim_starts(args.log, args.nodes, work)
    print(f"{Path(args.log).name} on {args.nodes} nodes")
    print("| policy | jobs | same start | first differing job (submit, gridsim start, AccaSim start) "
          "| mean wait gridsim (s) | mean wait AccaSim (s) |")
    print("|---|---|---|---|---|---|")
    for policy in POLICIES:
        g, a = ours[policy], theirs[policy]
        shift = min(s for s, _ in a.values()) - min(s for s, _ in g.values())
        common = sorted(set(g) & set(a), key=lambda j: (g[j][1], j))
        same = [j for j in common if abs(a[j][1] - shift - g[j][1]) < 1e-6]
        first = next((j for j in common if abs(a[j][1] - shift - g[j][1]) >= 1e-6), None)
        where = "none" if first is None else f"{first} ({g[first][0]:.0f}, {g[first][1]:.0f}, {a[first][1] - shift:.0f})"
        wait_g = statistics.mean(st - su for su, st in g.values())
        wait_a = statistics.mean(st - su for su, st in a.values())
        print(f"| {policy} | {len(common)} | {len(same)} | {where} | {wait_g:.2f} | {wait_a:.2f} |")


if __name__ == "__main__":
    main()
