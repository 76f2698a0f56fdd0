#!/usr/bin/python3
"""How gridsim's wall time grows with the number of tasks and of hosts (issue 5).

    /usr/bin/python3 bench/scaling.py             # N = 1e3 .. 1e7, hosts = 10 .. 1e5 (~4 min)
    /usr/bin/python3 bench/scaling.py --quick     # N up to 1e6, hosts up to 3000
    options: --reps K (default 3; N = 1e7 runs once), --no-build, --out DIR

Runs `bot_scenario` (gridsim's engine + master/worker, no CLI; see benches/bot_scenario.rs):
  * tasks sweep: work queue (k = 1) on issue 5's 1000-host cluster, N = 1e3 .. 1e7;
  * hosts sweep: work queue, N = 1e5, homogeneous clusters of 10 .. 10^5 hosts (same link
    numbers), every host used.
Prints a table (median in-process run time, events, ns per event, events/s, peak RSS), the
log-log slope of time against events for each sweep, and writes DIR/scaling.csv and the log-log
figure DIR/scaling.svg and DIR/scaling.png (drawn by benches/scaling_plot.rs with plotters).
DIR defaults to $CARGO_TARGET_DIR/bench-scaling (or target/bench-scaling)."""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402


def slope(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--out", default=os.path.join(C.TARGET, "bench-scaling"))
    a = ap.parse_args()
    paths = C.locate(simgrid=False) if a.no_build else C.build(simgrid=False)
    os.makedirs(a.out, exist_ok=True)

    tasks = [10 ** k for k in range(3, 7 if a.quick else 8)]
    hosts = [10, 30, 100, 300, 1000, 3000] + ([] if a.quick else [10000, 100000])
    sweeps = [("tasks: WQ on the 1000-host cluster", "tasks N", [(n, 1000) for n in tasks]),
              ("hosts: WQ with N = 1e5", "hosts", [(100_000, h) for h in hosts])]
    load0 = os.getloadavg()
    t0 = time.time()
    rows, csv = [], ["sweep,x_label,x,wall_s,events"]
    slopes = []
    for sweep, x_label, points in sweeps:
        walls, evs = [], []
        for n, h in points:
            reps = 1 if n >= 10_000_000 else a.reps
            ms = []
            for _ in range(reps):
                out, proc, rss = C.measure([paths["bot_scenario"]] + C.cluster_args(h) +
                                           ["--tasks", str(n), "--policy", "wq"])
                j = C.json.loads(out)
                ms.append((j["run_wall_s"], proc, rss, j["events"]))
            run = C.median([m[0] for m in ms])
            proc = C.median([m[1] for m in ms])
            rss = C.median([m[2] for m in ms])
            events = ms[0][3]
            x = n if x_label == "tasks N" else h
            C.log(f"{sweep}: x = {x}: run {run:.4f} s, {events} events")
            rows.append([sweep, f"{x:g}", n, h, reps, events, f"{run:.4f}", f"{C.spread([m[0] for m in ms]) * 100:.0f}%",
                         f"{proc:.4f}", f"{run / events * 1e9:.0f}", f"{events / run / 1e6:.2f}", f"{rss / 1024:.1f}"])
            csv.append(f"{sweep},{x_label},{x},{run!r},{events}")
            walls.append(run)
            evs.append(events)
        xs = [p[0] if x_label == "tasks N" else p[1] for p in points]
        per_event = [w / e for w, e in zip(walls, evs)]
        slopes.append((sweep, x_label, slope(evs, walls), slope(xs, per_event), per_event[-1] / min(per_event)))
    load1 = os.getloadavg()

    print("\n## gridsim scaling (bot_scenario: engine + master/worker; run = median in-process time)\n")
    print(C.table(["sweep", "x", "N", "hosts", "reps", "events", "run s", "spread", "process s", "ns/event",
                   "M events/s", "peak MB"], rows))
    print()
    # Linear in events: the time per event does not grow with the sweep (log-log slope of
    # ns/event against x within +-0.1, and the last point at most 1.5x the cheapest one).
    for sweep, x_label, s_ev, s_pe, top in slopes:
        verdict = "linear in events" if abs(s_pe) <= 0.1 and top <= 1.5 else (
            "sub-linear (fixed costs amortised), no growth per event" if s_pe < -0.1 and top <= 1.5
            else f"NOT linear: ns/event grows as {x_label.split()[0]}^{s_pe:.2f}")
        print(f"- {sweep}: slope of log(time) vs log(events) = {s_ev:.3f}; ns/event ~ {x_label.split()[0]}^{s_pe:.3f}, "
              f"last point {top:.2f}x the cheapest -> {verdict}")
    print(f"\nMachine: {os.cpu_count()} cores; load average {load0[0]:.2f} at start, {load1[0]:.2f} at end; "
          f"{time.time() - t0:.0f} s of measurements.")
    csv_path = os.path.join(a.out, "scaling.csv")
    with open(csv_path, "w") as f:
        f.write("\n".join(csv) + "\n")
    C.run_checked([paths["scaling_plot"], csv_path, os.path.join(a.out, "scaling")], stdout=sys.stderr)
    print(f"\nwrote {csv_path}, {os.path.join(a.out, 'scaling.svg')}, {os.path.join(a.out, 'scaling.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
