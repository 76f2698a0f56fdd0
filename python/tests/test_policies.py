"""Policies written in Python (gridsim.run(..., policies=...)): a Python GSS and a Python EASY
make the decisions of gridsim's own, run by run; a policy that raises, answers the wrong type or
out of range fails its run with the policy, the date, the decision and the run named, and the
other runs of the sweep complete.

The peers are gridsim's Rust policies: `gss` (checked against Polychronopoulos and Kuck's
published sequence in schedulers/src/bot/gss.rs) and `easy` (checked against AccaSim's EASY
schedules of the KTH log in tests/batch_peers.rs).
"""

from pathlib import Path

import pytest

import gridsim
from gridsim.policies import EasyBackfilling, GuidedSelfScheduling

ROOT = Path(__file__).resolve().parents[2]


def bundled_with(name: str, experiment: str, schedulers: str, tmp_path: Path, extra: str = "") -> Path:
    """The bundled experiment ``experiment`` with its schedulers, figures and outputs replaced:
    its platform, parameters and [quick] section as written. ``extra`` goes into [workload]."""
    text = (ROOT / "experiments" / experiment).read_text()
    head = text[: text.index("[[schedulers]]")]
    quick = text[text.index("[quick]") :] if "[quick]" in text else ""
    # The bundled files name their data relative to experiments/.
    head = head.replace('"../', f'"{ROOT}/')
    head = head.replace(f'name = "{Path(experiment).stem}"', f'name = "{name}"', 1)
    if extra:
        head = head.replace("[workload]\n", f"[workload]\n{extra}\n", 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(head + schedulers + "\n" + quick)
    return path


def by_scheduler(rows, scheduler):
    return [r for r in rows if r["scheduler"] == scheduler]


def without(row, *columns):
    return {k: v for k, v in row.items() if k not in columns}


def test_python_gss_hands_out_the_chunks_of_the_rust_gss(tmp_path):
    schedulers = """
[[schedulers]]
name = "gss"
params = { min_chunk = 1 }

[[schedulers]]
name = "py_gss"
params = { min_chunk = 1 }

[outputs]
tables = ["chunks"]
"""
    path = bundled_with("py-gss", "lds.toml", schedulers, tmp_path)
    study = gridsim.run(
        path, quick=True, out=tmp_path, plots=False, frames="dicts", jobs=2,
        policies={"py_gss": GuidedSelfScheduling},
    )
    assert study.complete and study.failed == []
    runs = study.runs
    rust, python = by_scheduler(runs, "gss"), by_scheduler(runs, "py_gss")
    # [quick]: 1000 tasks of 1e8 and 1e9 flops on 64 nodes of grid90.
    assert len(rust) == len(python) == 2
    for r, p in zip(rust, python):
        assert without(r, "run", "scheduler") == without(p, "run", "scheduler")
    chunks = study.tables["chunks"]
    for r, p in zip(rust, python):
        rc = [without(c, "run", "scheduler") for c in chunks if c["run"] == r["run"]]
        pc = [without(c, "run", "scheduler") for c in chunks if c["run"] == p["run"]]
        assert len(rc) == r["chunks"] and rc == pc
    # GSS's first chunk on P = 63 workers is ceil(1000 / 63) = 16 tasks.
    first = min((c for c in chunks if c["run"] == python[0]["run"]), key=lambda c: (c["sent_s"], c["worker"]))
    assert first["size"] == 16


def test_python_easy_schedules_the_kth_log_as_the_rust_easy(tmp_path):
    schedulers = """
[[schedulers]]
name = "easy"

[[schedulers]]
name = "py_easy"

[outputs]
tables = ["jobs"]
"""
    # The first 3000 jobs of the bundled KTH SP2 log.
    path = bundled_with("py-easy", "batch-kth.toml", schedulers, tmp_path, extra="first = 3000")
    study = gridsim.run(
        path, out=tmp_path, plots=False, frames="dicts", jobs=2, policies={"py_easy": EasyBackfilling}
    )
    assert study.complete and study.failed == []
    rust, python = by_scheduler(study.runs, "easy"), by_scheduler(study.runs, "py_easy")
    assert len(rust) == len(python) == 1
    assert rust[0]["jobs_done"] == 3000
    assert without(rust[0], "run", "scheduler") == without(python[0], "run", "scheduler")
    jobs = study.tables["jobs"]
    rj = [without(j, "run", "scheduler") for j in jobs if j["run"] == rust[0]["run"]]
    pj = [without(j, "run", "scheduler") for j in jobs if j["run"] == python[0]["run"]]
    assert len(rj) == 3000 and rj == pj


class Raises:
    def chunk(self, view):
        if view.answers >= 3:
            raise ValueError("no more chunks today")
        return 1


class WrongType:
    def chunk(self, view):
        return "3"


class TooBig:
    def chunk(self, view):
        return view.remaining + 1


class StartsEverything:
    """Starts every queued job at once: more units than are free as soon as the queue is long."""

    def schedule(self, view):
        return [job.id for job in view.queue]


class NotQueued:
    def schedule(self, view):
        return [-7]


def missing(cell):
    """Whether a cell of runs.csv holds no number (empty: read as None or NaN)."""
    return cell is None or cell != cell


def test_failing_bag_of_tasks_policies_fail_their_runs_only(tmp_path):
    schedulers = "".join(
        f'\n[[schedulers]]\nname = "{name}"\n' for name in ["gss", "raises", "wrong_type", "too_big"]
    )
    path = bundled_with("py-bad-bot", "lds.toml", schedulers, tmp_path)
    with pytest.warns(gridsim.GridsimWarning, match=r"the policy of 6 run\(s\) failed"):
        study = gridsim.run(
            path, quick=True, out=tmp_path, plots=False, frames="dicts", jobs=2,
            policies={"raises": Raises, "wrong_type": WrongType, "too_big": TooBig},
        )
    # Every run has its record: the sweep went on past the failures.
    assert study.complete
    rows = study.runs
    assert [missing(r["makespan_s"]) for r in by_scheduler(rows, "gss")] == [False, False]
    for name in ["raises", "wrong_type", "too_big"]:
        for row in by_scheduler(rows, name):
            assert missing(row["makespan_s"]) and f"policy '{name}' failed at " in row["stopped"]
    assert len(study.failed) == 6
    raised = [line for line in study.failed if "'raises'" in line][0]
    # The run (its label), the policy, the date, the decision, the exception and its line.
    assert "raises" in raised.split(":")[0]
    assert "deciding the chunk for worker" in raised
    assert "chunk() raised ValueError: no more chunks today" in raised
    assert "test_policies.py" in raised
    wrong = [line for line in study.failed if "'wrong_type'" in line][0]
    assert "chunk() returned '3' of type str, not an int" in wrong
    big = [line for line in study.failed if "'too_big'" in line][0]
    assert "(1000 of 1000 tasks left): it answered a chunk of 1001 tasks, outside 1..=1000" in big


def test_failing_batch_policies_fail_their_runs_only(tmp_path):
    schedulers = "".join(
        f'\n[[schedulers]]\nname = "{name}"\n' for name in ["fcfs", "starts_everything", "not_queued"]
    )
    path = bundled_with("py-bad-batch", "batch-kth.toml", schedulers, tmp_path, extra="first = 500")
    with pytest.warns(gridsim.GridsimWarning, match=r"the policy of 2 run\(s\) failed"):
        study = gridsim.run(
            path, out=tmp_path, plots=False, frames="dicts", jobs=2,
            policies={"starts_everything": StartsEverything, "not_queued": NotQueued},
        )
    assert study.complete
    assert by_scheduler(study.runs, "fcfs")[0]["jobs_done"] == 500
    busy = [line for line in study.failed if "'starts_everything'" in line][0]
    assert "deciding which of the" in busy and "queued jobs start" in busy
    assert "units free): it started jobs needing" in busy and "(the others are busy or down)" in busy
    missing = [line for line in study.failed if "'not_queued'" in line][0]
    assert "it started job -7, which is not queued" in missing
    assert len(study.failed) == 2


def test_parameters_are_declared_checked_and_passed(tmp_path):
    schedulers = """
[[schedulers]]
name = "py_gss"
params = { min_chunk = 0 }
"""
    path = bundled_with("py-params", "lds.toml", schedulers, tmp_path)
    with pytest.raises(gridsim.ExperimentError) as caught:
        gridsim.run(path, quick=True, out=tmp_path, plots=False, policies={"py_gss": GuidedSelfScheduling})
    assert "parameter 'min_chunk' of scheduler 'py_gss' must be an integer >= 1, got 0" in str(caught.value)

    class NoMethod:
        pass

    with pytest.raises(TypeError, match="neither chunk"):
        gridsim.run(path, quick=True, out=tmp_path, plots=False, policies={"py_gss": NoMethod})
