"""gridsim.run against `gridsim run`: the same files, the same resume, DataFrames that hold
exactly what the CSV files say, the GIL released and Ctrl-C handled."""

import csv
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas
import pytest

import gridsim

from conftest import REPO

# The bag-of-tasks study of the LDS paper in its [quick] form: 14 runs of under a second in
# all, with a per-run table (chunks) and two figures.
LDS = "experiments/lds.toml"


def files_under(root: Path, skip=("timing.csv",), skip_dirs=("runs.d",)):
    """Every file below `root` by relative path, with its bytes: all but the wall-clock
    figures (timing.csv, and the records in runs.d, which hold each run's wall time)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and path.name not in skip and not set(rel.parts) & set(skip_dirs):
            out[str(rel)] = path.read_bytes()
    return out


def test_the_same_study_through_the_cli_and_python_writes_byte_identical_files(cli, in_repo, tmp_path):
    done = cli("run", LDS, "--quick", "--jobs", "2", "--out", tmp_path / "cli")
    assert done.returncode == 0, done.stderr

    study = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path / "py")

    cli_results = files_under(tmp_path / "cli" / "results" / "lds-quick")
    py_results = files_under(study.results_dir)
    # runs, params, chunks, the experiment's copy and the manifest.
    assert {"runs.csv", "params.csv", "chunks.csv", "experiment.toml", "manifest.json"} <= set(cli_results)
    assert py_results.keys() == cli_results.keys()
    for name in cli_results:
        assert py_results[name] == cli_results[name], f"{name} differs"
    cli_plots = files_under(tmp_path / "cli" / "plots" / "lds-quick")
    py_plots = files_under(study.plots_dir)
    assert cli_plots.keys() == py_plots.keys() and cli_plots
    assert cli_plots == py_plots
    # What the CLI printed, but for the elapsed time, is what the study says.
    strip = lambda lines: [line.split(" run now in ")[0] for line in lines]
    assert strip(done.stdout.splitlines()) == strip(
        [line.replace(str(tmp_path / "py"), str(tmp_path / "cli")) for line in study.messages]
    )
    assert study.total == study.executed == 14 and study.cached == 0 and study.complete


def test_the_tables_hold_exactly_the_numbers_of_the_csv_files(in_repo, tmp_path):
    study = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False, frames="pandas")
    for name, frame in [("runs", study.runs), ("chunks", study.tables["chunks"]), ("params", study.params)]:
        assert isinstance(frame, pandas.DataFrame)
        with open(study.results_dir / f"{name}.csv", newline="") as f:
            rows = list(csv.reader(f))
        assert list(frame.columns) == rows[0]
        assert len(frame) == len(rows) - 1
        for column_index, column in enumerate(rows[0]):
            values = frame[column].tolist()
            for row, value in zip(rows[1:], values):
                cell = row[column_index]
                if cell == "":
                    # No value (a parameter this run's scheduler does not take).
                    assert isinstance(value, float) and math.isnan(value), (name, column)
                    continue
                try:
                    expected = float(cell)
                except ValueError:
                    # Text stays text (scheduler labels, the master's name).
                    assert value == cell, (name, column)
                    continue
                if math.isnan(expected):
                    assert isinstance(value, float) and math.isnan(value), (name, column)
                else:
                    # Python's float() is the correctly rounded reading of the decimal text.
                    assert float(value) == expected, (name, column, cell, value)
    assert set(study.tables) == {"chunks"}
    with pytest.raises(KeyError, match="no such table"):
        study.tables["nope"]


def test_without_pandas_tables_are_lists_of_dicts_with_the_same_values(in_repo, tmp_path):
    with_pandas = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False, frames="pandas")
    plain = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False, frames="dicts")
    assert plain.cached == 14 and plain.executed == 0
    assert isinstance(plain.runs, list) and isinstance(plain.runs[0], dict)
    expected = with_pandas.runs.to_dict("records")
    assert len(plain.runs) == len(expected)
    for got, want in zip(plain.runs, expected):
        assert got.keys() == want.keys()
        for key in got:
            if isinstance(want[key], float) and math.isnan(want[key]):
                assert math.isnan(got[key])
            else:
                assert got[key] == want[key], key
    with pytest.raises(gridsim.ArgumentError, match="frames"):
        gridsim.run(LDS, quick=True, out=tmp_path, frames="arrow")


def test_a_second_call_resumes_from_the_stored_records(in_repo, tmp_path):
    first = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False)
    again = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False)
    assert (first.executed, first.cached) == (14, 0)
    assert (again.executed, again.cached) == (0, 14)
    assert f"reused 14 records of this build ({gridsim.BUILD_ID})" in again.messages
    fresh = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False, fresh=True)
    assert (fresh.executed, fresh.cached) == (14, 0)


def test_a_shard_runs_its_slice_and_has_no_tables_until_the_sweep_is_complete(in_repo, tmp_path):
    half = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, shard="1/2")
    assert half.selected == 7 and not half.complete and half.missing == 7
    assert half.runs is None and half.tables is None
    rest = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, shard="2/2")
    assert rest.complete and rest.cached == 0 and len(rest.runs) == 14


def test_includes_run_after_the_file_each_as_a_study(in_repo, tmp_path):
    base = (REPO / LDS).read_text()
    platform = (REPO / "platforms/data/grid90.xml").as_posix()
    text = base.replace('"../platforms/data/grid90.xml"', f'"{platform}"')
    inner = tmp_path / "inner.toml"
    inner.write_text(text.replace('name = "lds"', 'name = "inner"', 1))
    outer = tmp_path / "outer.toml"
    outer.write_text(text.replace('name = "lds"', 'name = "outer"\nincludes = ["inner.toml"]', 1))
    study = gridsim.run(outer, quick=True, jobs=2, out=tmp_path / "out", plots=False)
    assert study.name == "outer" and [s.name for s in study.included] == ["inner"]
    assert study.runs.equals(study.included[0].runs)


def test_the_gil_is_released_while_the_sweep_runs(tmp_path):
    # The quick LDS study with 100000 tasks instead of 1000: a second or more of sweep.
    text = (REPO / LDS).read_text().replace("tasks = [1000], ", "tasks = [100000], ", 1)
    platform = (REPO / "platforms/data/grid90.xml").as_posix()
    longer = tmp_path / "longer.toml"
    longer.write_text(text.replace('"../platforms/data/grid90.xml"', f'"{platform}"'))
    finished = threading.Event()
    result = {}

    def sweep():
        started = time.monotonic()
        result["study"] = gridsim.run(longer, quick=True, jobs=1, out=tmp_path, plots=False)
        result["seconds"] = time.monotonic() - started
        finished.set()

    thread = threading.Thread(target=sweep)
    ticks = 0
    thread.start()
    # Each tick needs the GIL: a sweep that held it would let none through until it ended.
    while not finished.is_set():
        time.sleep(0.005)
        ticks += 1
    thread.join()
    assert result["study"].executed == 14
    assert result["seconds"] > 0.3, result["seconds"]
    # With the GIL released the loop wakes about every 5 ms; allow for a loaded machine.
    assert ticks >= result["seconds"] / 0.005 / 4, (ticks, result["seconds"])


CHILD = r"""
import sys, gridsim
print("ready", flush=True)
try:
    gridsim.run(sys.argv[1], jobs=1, out=sys.argv[2], plots=False)
except gridsim.Interrupted as e:
    print("interrupted:", isinstance(e, KeyboardInterrupt), isinstance(e, gridsim.GridsimError), flush=True)
    print(e.message, flush=True)
    sys.exit(0)
print("finished", flush=True)
sys.exit(1)
"""


def test_ctrl_c_stops_the_sweep_keeps_the_finished_runs_and_the_interpreter(in_repo, tmp_path):
    # The full LDS study (168 runs, some of 100000 tasks) on one thread lasts far longer than
    # its first run.
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, LDS, str(tmp_path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "ready"
    # The signals go once the sweep has stored its first run (its handler is in place by then):
    # a fixed wait could outlast the whole sweep on a fast machine.
    records = tmp_path / "results" / "lds" / "runs.d"
    deadline = time.monotonic() + 60
    while not list(records.glob("*.json")) and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.005)
    # Twice: a second Ctrl-C ends the CLI at once, but an interpreter must outlive it. Both
    # arrive well within the 50 ms the runner takes to see the first.
    child.send_signal(signal.SIGINT)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, (out, err)
    lines = out.splitlines()
    assert lines[0] == "interrupted: True True", out
    message = lines[1]
    assert "Running the same command again resumes from there." in message
    stored = len(list((tmp_path / "results" / "lds" / "runs.d").glob("*.json")))
    assert f"{stored} of the sweep's 168 runs are stored" in message


def test_a_study_the_cli_ran_is_reused_by_python(cli, in_repo, tmp_path):
    # The CLI and the package are one build: they key stored runs on the same build identity.
    done = cli("run", LDS, "--quick", "--jobs", "2", "--no-plots", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    study = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path, plots=False)
    assert (study.cached, study.executed) == (14, 0)


def test_runs_that_limits_stop_are_reported_as_one_warning_with_their_labels(in_repo, tmp_path):
    # The engine charges events to a run's budget in batches of 4096 and stops the run at the
    # first batch past it: with a budget of 1000, the runs of more than 4096 events stop.
    unlimited = gridsim.run(LDS, quick=True, jobs=2, out=tmp_path / "all", plots=False).runs
    expected = unlimited[unlimited["events"] > 4096]["run"].tolist()
    assert 0 < len(expected) < 14
    text = (REPO / LDS).read_text().replace("[outputs]", "[limits]\nevents = 1000\n\n[outputs]", 1)
    limited = tmp_path / "limited.toml"
    platform = (REPO / "platforms/data/grid90.xml").as_posix()
    limited.write_text(text.replace('"../platforms/data/grid90.xml"', f'"{platform}"'))
    with pytest.warns(gridsim.GridsimWarning) as caught:
        study = gridsim.run(limited, quick=True, jobs=2, out=tmp_path, plots=False)
    assert [int(label.split()[0][1:]) for label in study.stopped] == expected
    texts = [str(w.message) for w in caught]
    assert texts == [
        f"[limits] stopped {len(expected)} run(s); runs.csv names them in its column `stopped`:\n"
        + "\n".join(f"  {label}" for label in study.stopped)
    ]
    stopped = study.runs[study.runs["stopped"].notna()]
    assert stopped["run"].tolist() == expected
    assert stopped["stopped"].str.startswith("[limits] events = 1000: stopped after 4096 events").all()


CONCURRENT = r"""
import ctypes, os, signal, sys, threading, time, gridsim
# Python's own Ctrl-C handler, even when this process was started with SIGINT ignored (as a
# background job of a non-interactive shell is).
signal.signal(signal.SIGINT, signal.default_int_handler)
libc = ctypes.CDLL(None, use_errno=True)
def sigint_disposition():
    # The process's C-level SIGINT handler: the first word of struct sigaction (Linux).
    act = ctypes.create_string_buffer(256)
    assert libc.sigaction(signal.SIGINT, None, act) == 0
    return act.raw[:ctypes.sizeof(ctypes.c_void_p)]
before = sigint_disposition()
studies = []
def sweep(k):
    studies.append(gridsim.run(sys.argv[1], quick=True, jobs=1, out=f"{sys.argv[2]}/{k}", plots=False))
threads = [threading.Thread(target=sweep, args=(k,)) for k in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(s.executed for s in studies), flush=True)
print("same handler" if sigint_disposition() == before else "handler changed", flush=True)
# Python's own Ctrl-C handler is back: SIGINT raises KeyboardInterrupt here. raise_signal
# delivers it to this thread (a process-directed kill may land on any thread).
try:
    signal.raise_signal(signal.SIGINT)
    time.sleep(5)
    print("no KeyboardInterrupt", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


def test_sweeps_from_several_threads_each_run_and_leave_python_its_ctrl_c(in_repo, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", CONCURRENT, LDS, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[14, 14, 14]", "same handler", "KeyboardInterrupt"]
