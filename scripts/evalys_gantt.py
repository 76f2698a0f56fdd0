#!/usr/bin/env python3
"""Draws a gridsim `jobs` table with evalys (Batsim's analysis library) and says what evalys read.

    target/peers-venv/bin/python scripts/evalys_gantt.py results/NAME/jobs.csv out.png

Loads the table with evalys's `JobSet.from_csv`, the reader of Batsim's `_jobs.csv`, draws its
overview (utilisation, queue, job details and the Gantt chart of the jobs on their resources,
`JobSet.plot(with_details=True)`) to `out.png`, and prints, as CSV, each job as evalys read it:
its id, start and finish and the number of resources evalys counted in its interval set; then a
last line with the resource range evalys inferred. `tests/batch_peers.rs` checks these against
the table. evalys (PyPI `evalys`) lives in the environment `scripts/test.sh` fills.
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display: draw to a file
import matplotlib.pyplot as plt  # noqa: E402
from evalys.jobset import JobSet  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} JOBS.csv OUT.png")
    jobs_csv, png = sys.argv[1], sys.argv[2]
    js = JobSet.from_csv(jobs_csv)
    js.plot(with_details=True, title="gridsim jobs read by evalys")
    plt.savefig(png)
    plt.close("all")
    print("job_id,starting_time,finish_time,proc_alloc")
    for row in js.df.itertuples():
        print(f"{row.jobID},{row.starting_time!r},{row.finish_time!r},{row.proc_alloc}")
    print(f"resources,{js.res_bounds.inf},{js.res_bounds.sup},{js.MaxProcs}")


if __name__ == "__main__":
    main()
