"""The step API (gridsim.Simulation): a run driven decision by decision from Python gives the
run of the same experiment under gridsim's own policy when the answers are that policy's, the
same run twice gives the same views, and bad answers are refused or fail the run, named.

The peers are gridsim's Rust `gss` and `easy`, run by gridsim.run on the same experiment.
"""

from pathlib import Path

import pytest

import gridsim
from gridsim.policies import EasyBackfilling, GuidedSelfScheduling

from test_policies import bundled_with


def gss_experiment(tmp_path):
    schedulers = '\n[[schedulers]]\nname = "gss"\nparams = { min_chunk = 1 }\n\n[outputs]\ntables = ["chunks"]\n'
    return bundled_with("step-gss", "lds.toml", schedulers, tmp_path)


def drive(sim, policy):
    """Answers every decision with ``policy``'s; returns the views' (date, worker or queue length)
    and the answers."""
    seen, answers = [], []
    view = sim.next_decision()
    while view is not None:
        decision = policy.chunk(view) if isinstance(view, gridsim.ChunkView) else policy.schedule(view)
        seen.append((view.now, view.worker if isinstance(view, gridsim.ChunkView) else len(view.queue)))
        answers.append(decision)
        sim.answer(decision)
        view = sim.next_decision()
    return seen, answers


def test_stepping_gss_gives_the_rust_gss_run(tmp_path):
    path = gss_experiment(tmp_path)
    study = gridsim.run(path, quick=True, out=tmp_path, plots=False, frames="dicts", jobs=1)
    for row in study.runs:
        sim = gridsim.Simulation(path, run=row["run"], quick=True)
        assert sim.seed == row["seed"]
        _, answers = drive(sim, GuidedSelfScheduling())
        assert sim.done and sim.decisions == len(answers) == row["chunks"]
        for name, value in sim.metrics.items():
            assert row[name] == value, name
        # The chunks in the order they were handed out (fresh tasks in order: by first task).
        chunks = sorted((c for c in study.tables["chunks"] if c["run"] == row["run"]), key=lambda c: c["first_task"])
        assert [c["size"] for c in chunks] == answers
        assert [c["size"] for c in sim.tables["chunks"]] == [c["size"] for c in study.tables["chunks"] if c["run"] == row["run"]]


def test_the_same_run_twice_is_the_same_run(tmp_path):
    path = gss_experiment(tmp_path)
    first = gridsim.Simulation(path, run=1, quick=True)
    second = gridsim.Simulation(path, run=1, quick=True)
    a, b = drive(first, GuidedSelfScheduling()), drive(second, GuidedSelfScheduling())
    assert a == b and dict(first.metrics) == dict(second.metrics)


def test_stepping_easy_gives_the_rust_easy_run(tmp_path):
    schedulers = '\n[[schedulers]]\nname = "easy"\n'
    path = bundled_with("step-easy", "batch-kth.toml", schedulers, tmp_path, extra="first = 1000")
    study = gridsim.run(path, out=tmp_path, plots=False, frames="dicts", jobs=1)
    row = study.runs[0]
    sim = gridsim.Simulation(path, run=0)
    seen, _ = drive(sim, EasyBackfilling())
    assert sim.family == "batch" and len(seen) > 0
    for name, value in sim.metrics.items():
        assert row[name] == value or (value != value and row[name] != row[name]), name


def test_bad_answers_are_refused_or_fail_the_run_named(tmp_path):
    path = gss_experiment(tmp_path)
    sim = gridsim.Simulation(path, run=0, quick=True, policy="agent")
    with pytest.raises(RuntimeError, match="no decision is pending"):
        sim.answer(1)
    view = sim.next_decision()
    with pytest.raises(RuntimeError, match="no answer yet"):
        sim.next_decision()
    # The wrong type: refused, and the decision is still pending.
    with pytest.raises(TypeError, match="not an int"):
        sim.answer("3")
    with pytest.raises(TypeError, match="not an int"):
        sim.answer(True)
    # Out of range: the run fails, named.
    sim.answer(view.remaining + 1)
    with pytest.raises(RuntimeError) as caught:
        sim.next_decision()
    message = str(caught.value)
    assert f"policy 'agent' failed at {view.now} s deciding the chunk for worker {view.worker}'s request" in message
    assert f"it answered a chunk of {view.remaining + 1} tasks, outside 1..={view.remaining}" in message
    assert sim.done
    with pytest.raises(RuntimeError, match="not over"):
        sim.metrics


def test_a_run_out_of_range_is_refused(tmp_path):
    path = gss_experiment(tmp_path)
    with pytest.raises(ValueError, match="not a run 99"):
        gridsim.Simulation(path, run=99, quick=True)


def test_closing_midway_ends_the_run(tmp_path):
    path = gss_experiment(tmp_path)
    sim = gridsim.Simulation(path, run=0, quick=True)
    sim.next_decision()
    sim.close()
    assert sim.done and sim.next_decision() is None
