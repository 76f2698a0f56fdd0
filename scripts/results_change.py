#!/usr/bin/python3
"""The largest relative change between two copies of the bundled results (issue 19: a change of
the engine's arithmetic regenerates them once and states how far they moved).

    cp -r results /tmp/results-before
    for e in experiments/*.toml; do target/release/gridsim run "$e" --fresh; done
    /usr/bin/python3 scripts/results_change.py /tmp/results-before results

Compares every CSV present in both trees cell by cell, in row order; timing.csv (wall-clock
times) is skipped. For each file: rows, numeric cells, cells that changed, the largest relative
change |new - old| / |old| and where it is. Text cells must be equal; a file whose shape changed is
reported as such. Exits 1 if a file differs in shape or text."""

import csv
import math
import os
import sys


def number(cell):
    try:
        x = float(cell)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def compare(old_path, new_path):
    with open(old_path, newline="") as f:
        old = list(csv.reader(f))
    with open(new_path, newline="") as f:
        new = list(csv.reader(f))
    if len(old) != len(new) or (old and old[0] != new[0]):
        return dict(shape=f"{len(old)} -> {len(new)} rows or other columns")
    header = old[0] if old else []
    cells = changed = 0
    worst, where, text = 0.0, "", 0
    for i, (ro, rn) in enumerate(zip(old[1:], new[1:]), start=2):
        if len(ro) != len(rn):
            return dict(shape=f"row {i} has {len(ro)} -> {len(rn)} cells")
        for j, (a, b) in enumerate(zip(ro, rn)):
            x, y = number(a), number(b)
            if x is None or y is None:
                text += a != b
                continue
            cells += 1
            if x != y:
                changed += 1
                r = abs(y - x) / abs(x) if x != 0 else math.inf
                if r > worst:
                    worst, where = r, f"row {i}, {header[j] if j < len(header) else j}: {a} -> {b}"
    return dict(rows=len(old) - 1, cells=cells, changed=changed, worst=worst, where=where, text=text)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = sys.argv[1:]
    bad = False
    overall = (0.0, "")
    for name in sorted(os.listdir(after)):
        for root, _, files in os.walk(os.path.join(after, name)):
            for f in sorted(files):
                if not f.endswith(".csv") or f == "timing.csv":
                    continue
                new_path = os.path.join(root, f)
                rel = os.path.relpath(new_path, after)
                old_path = os.path.join(before, rel)
                if not os.path.exists(old_path):
                    print(f"{rel}: new file")
                    continue
                r = compare(old_path, new_path)
                if "shape" in r:
                    print(f"{rel}: SHAPE CHANGED ({r['shape']})")
                    bad = True
                    continue
                if r["text"]:
                    print(f"{rel}: {r['text']} text cells changed")
                    bad = True
                print(f"{rel}: {r['rows']} rows, {r['changed']} of {r['cells']} numeric cells changed, "
                      f"largest relative change {r['worst']:.2e}" + (f" ({r['where']})" if r["where"] else ""))
                if r["worst"] > overall[0]:
                    overall = (r["worst"], f"{rel}, {r['where']}")
    print(f"\nlargest relative change: {overall[0]:.2e}" + (f" ({overall[1]})" if overall[1] else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
