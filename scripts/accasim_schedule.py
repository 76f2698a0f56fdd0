#!/usr/bin/env python3
"""AccaSim's schedule of an SWF log, job by job, as CSV on standard output.

Replays the log on N one-core nodes under AccaSim's FirstInFirstOut, ShortestJobFirst and
EASYBackfilling dispatchers (FirstFit allocator) and prints one line per job and policy:

    policy,job_id,submit_s,start_s

with `policy` one of fifo, sjf, easy and dates in seconds as AccaSim writes them (its epoch is
the log's time 0, so they compare with gridsim's after a shift that aligns the first
submission). AccaSim (PyPI `accasim`) is a peer no one here wrote; run this script with the
Python of the environment `scripts/test.sh` fills (`target/peers-venv`, or `$GRIDSIM_PEERS_VENV`):

    target/peers-venv/bin/python scripts/accasim_schedule.py LOG.swf[.gz] --nodes 100 [--first 3000]

Two things AccaSim 1.1.3 needs on today's Pythons and machines, both done here:
- it imports `collections.Mapping`, which Python 3.10 removed: the alias is restored before it is
  imported;
- its EASY dispatcher divides by zero when the system configuration declares a resource other
  than cores (each node here has one core and nothing else, which is also the model of
  gridsim's `unit = "host"`).
AccaSim writes its dates through the local time zone; TZ is set to UTC so that they read back
as the seconds it computed.
"""
import argparse
import calendar
import collections
import collections.abc
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path

POLICIES = ("fifo", "sjf", "easy")


def sliced_log(log, first, dst):
    """Writes `log` (plain or gzip) to `dst` with its header and only its first `first` jobs."""
    opener = gzip.open if str(log).endswith(".gz") else open
    jobs = 0
    with opener(log, "rt") as src, open(dst, "w") as out:
        for line in src:
            if line.strip() and not line.lstrip().startswith(";"):
                if first is not None and jobs == first:
                    break
                jobs += 1
            out.write(line)


def gridsim_experiment(log, nodes, schedulers, tables=()):
    """A gridsim experiment replaying `log` on `nodes` one-processor hosts under `schedulers`,
    `(name, label)` pairs, writing `tables`: the machine AccaSim is given by [`simulator`]."""
    entries = "".join(f'\n[[schedulers]]\nname = "{name}"\nlabel = "{label}"\n' for name, label in schedulers)
    outputs = f"\n[outputs]\ntables = {list(tables)!r}\n".replace("'", '"') if tables else ""
    return f"""name = "accasim-side-by-side"
family = "batch"
seed = 1
replications = 1

[platform]
generator = "homogeneous_cluster"
params = {{ hosts = {nodes}, speed_flops = 1e9, bandwidth_bytes_per_s = 1.25e8, latency_s = 5e-5, backbone_bandwidth_bytes_per_s = 1e9, backbone_latency_s = 5e-4 }}

[workload]
trace = "{log}"
{entries}{outputs}"""


def simulator(plain_log, nodes, policy, folder, scheduling_output):
    """AccaSim's simulator of `policy` (fifo, sjf or easy; FirstFit allocator) on `plain_log` (an
    uncompressed SWF) and `nodes` one-core nodes, its outputs in `folder`."""
    collections.Mapping = collections.abc.Mapping  # AccaSim 1.1.3 predates Python 3.10
    from accasim.base.allocator_class import FirstFit
    from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut, ShortestJobFirst
    from accasim.base.simulator_class import Simulator

    dispatcher = {"fifo": FirstInFirstOut, "sjf": ShortestJobFirst, "easy": EASYBackfilling}[policy]
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "system.config"
    config.write_text('{"groups": {"g0": {"core": 1}}, "resources": {"g0": %d}}' % nodes)
    return Simulator(str(plain_log), str(config), dispatcher(FirstFit()), RESULTS_FOLDER_PATH=str(folder),
                     scheduling_output=scheduling_output, statistics_output=False, pprint_output=False,
                     benchmark_output=False, show_statistics=False)


def schedule(plain_log, nodes, policy, work):
    """AccaSim's {job_id: (submit_s, start_s)} for `policy` on `plain_log` (an uncompressed SWF)."""
    folder = work / f"accasim-{policy}"
    simulator(plain_log, nodes, policy, folder, scheduling_output=True).start_simulation(system_status=False)

    def seconds(text):
        return calendar.timegm(time.strptime(text, "%Y-%m-%d %H:%M:%S"))

    jobs = {}
    # One line per job: "id;user;queued__allocation__start;end;...".
    with open(folder / f"sched-{Path(plain_log).name}") as f:
        for line in f:
            head, _allocation, tail = line.strip().split("__")
            job_id, _user, queued = head.split(";")
            jobs[int(job_id)] = (seconds(queued), seconds(tail.split(";")[0]))
    return jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", help="an SWF log, plain or .gz")
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--first", type=int, help="only the log's first N jobs")
    parser.add_argument("--policies", default=",".join(POLICIES),
                        help="comma-separated, from " + ", ".join(POLICIES))
    args = parser.parse_args()
    policies = args.policies.split(",")
    for p in policies:
        if p not in POLICIES:
            sys.exit(f"--policies: unknown policy {p!r} (known: {', '.join(POLICIES)})")
    os.environ["TZ"] = "UTC"
    time.tzset()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        plain = work / "log.swf"
        sliced_log(args.log, args.first, plain)
        print("policy,job_id,submit_s,start_s")
        for p in policies:
            for job_id, (submit, start) in sorted(schedule(plain, args.nodes, p, work).items()):
                print(f"{p},{job_id},{submit},{start}")


if __name__ == "__main__":
    main()
