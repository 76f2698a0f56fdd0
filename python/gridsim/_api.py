"""gridsim.run, gridsim.validate and the families' reference, over the native module."""

import os
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Union

from . import _gridsim
from ._tables import from_records, read_csv, resolve
from .errors import GridsimWarning

PathLike = Union[str, "os.PathLike[str]"]


class _Tables(Mapping):
    """The per-run tables of a study by name, each read from its CSV file when first used."""

    def __init__(self, results_dir: Path, names: List[str], frames: str) -> None:
        self._dir = results_dir
        self._names = list(names)
        self._frames = frames
        self._read: Dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(
                f"{name!r}: the experiment requests no such table (its tables: "
                f"{', '.join(self._names) or 'none'}; [outputs] tables = [...])"
            )
        if name not in self._read:
            self._read[name] = read_csv(self._dir / f"{name}.csv", self._frames)
        return self._read[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"<tables {', '.join(self._names) or '(none)'} in {self._dir}>"


class Study:
    """One experiment after ``gridsim.run``: what the runner did and its results.

    ``runs`` (runs.csv: one row per run, its key columns, metrics and event count), ``params``
    (params.csv: every parameter each run used), ``timing`` (timing.csv: wall-clock seconds)
    and each table of ``tables`` (by name, ``[outputs] tables``) are read from the CSV files
    the runner wrote, when first used, as pandas DataFrames (or lists of dicts, see
    ``frames``). They are ``None`` while the sweep is incomplete (a shard of it ran).
    ``included`` holds the studies of the experiments the file includes, run after it.
    """

    def __init__(self, outcome: Dict[str, Any], frames: str) -> None:
        self.file = Path(outcome["file"])
        self.name: str = outcome["name"]
        self.description: str = outcome["description"]
        self.family: str = outcome["family"]
        self.quick: bool = outcome["quick"]
        #: The columns that identify a run in runs.csv, after ``run``.
        self.key_columns: List[str] = list(outcome["key_columns"])
        self.results_dir = Path(outcome["results_dir"])
        self.plots_dir = Path(outcome["plots_dir"])
        #: Runs in the sweep, in this invocation's slice, reused from records, run now.
        self.total: int = outcome["total"]
        self.selected: int = outcome["selected"]
        self.cached: int = outcome["cached"]
        self.executed: int = outcome["executed"]
        #: Wall-clock seconds of the runs executed now.
        self.elapsed_s: float = outcome["elapsed_s"]
        #: Whether every run of the sweep has a record (and the CSV files were written).
        self.complete: bool = outcome["complete"]
        self.missing: int = outcome["missing"]
        #: The runs ``[limits]`` stopped, and those that could not finish: label and why.
        self.stopped: List[str] = list(outcome["stopped"])
        self.incomplete: List[str] = list(outcome["incomplete"])
        #: The runs whose policy written in Python failed (``policies``): label and why.
        self.failed: List[str] = list(outcome["failed"])
        #: The CSV files and figures written.
        self.written: List[Path] = [Path(p) for p in outcome["written"]]
        #: What ``gridsim run`` prints about this experiment, line by line (warnings included).
        self.messages: List[str] = [text for _, text in outcome["messages"]]
        self.included: List["Study"] = []
        self._warnings = [text for is_warning, text in outcome["messages"] if is_warning]
        self._frames = frames
        self._read: Dict[str, Any] = {}
        self.tables: Optional[Mapping[str, Any]] = (
            _Tables(self.results_dir, outcome["tables"], frames) if self.complete else None
        )

    def _csv(self, name: str) -> Any:
        if not self.complete:
            return None
        if name not in self._read:
            self._read[name] = read_csv(self.results_dir / f"{name}.csv", self._frames)
        return self._read[name]

    @property
    def runs(self) -> Any:
        """runs.csv: one row per run."""
        return self._csv("runs")

    @property
    def params(self) -> Any:
        """params.csv: every parameter each run used, defaults filled in."""
        return self._csv("params")

    @property
    def timing(self) -> Any:
        """timing.csv: each run's wall-clock seconds and events per second."""
        return self._csv("timing")

    @property
    def figures(self) -> List[Path]:
        """The figures written (SVG, PNG, and PDF for print)."""
        return [p for p in self.written if self.plots_dir in p.parents]

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"{self.missing} runs missing"
        return (
            f"<Study {self.name!r} ({self.family}): {self.total} runs, {self.cached} reused, "
            f"{self.executed} run now, {state}; results in {self.results_dir}>"
        )


def _warn(lines: List[str]) -> None:
    """Issues the CLI's warning lines as GridsimWarnings: one per warning, with the indented
    lines that follow it (the runs it names)."""
    grouped: List[str] = []
    for line in lines:
        if line.startswith("  ") and grouped:
            grouped[-1] += "\n" + line
        else:
            grouped.append(line.removeprefix("gridsim: warning: "))
    for text in grouped:
        warnings.warn(text, GridsimWarning, stacklevel=3)


def run(
    path: PathLike,
    *,
    quick: bool = False,
    jobs: Optional[int] = None,
    out: Optional[PathLike] = None,
    fresh: bool = False,
    shard: Optional[str] = None,
    plots: bool = True,
    print: bool = False,
    progress: bool = False,
    progress_every: float = 30.0,
    frames: str = "auto",
    policies: Optional[Mapping[str, type]] = None,
) -> Study:
    """Runs the experiment file ``path`` as ``gridsim run`` does, and returns its :class:`Study`.

    The same runner: every run of the sweep on ``jobs`` threads (default: all cores), each
    stored as it finishes under ``<out>/results/<name>/runs.d`` so that an interrupted study
    resumes, then the CSV files and, with ``plots``, the figures under ``<out>/plots/<name>``.
    ``out`` defaults to the current directory, as the CLI's ``--out``. ``quick`` uses the
    file's ``[quick]`` subset (results in ``<name>-quick``), ``fresh`` discards earlier
    results, ``shard="K/N"`` runs one slice, ``print`` also writes figures for print (PDF and
    300-dpi PNG), ``progress`` shows the CLI's progress on stderr (a bar on a terminal, else a
    line every ``progress_every`` seconds). The experiments the file includes run after it;
    their studies are in ``included``.

    ``frames`` picks what tables are: ``"pandas"`` DataFrames, ``"dicts"`` (lists of dicts,
    one per row) or ``"auto"`` (pandas when it is installed).

    ``policies`` maps scheduler names to Python classes (see :mod:`gridsim.policies` and
    docs/python.md, "Policies in Python"): the experiment names them as any scheduler, and a
    run whose policy raises or answers out of range has no result; ``Study.failed`` and the
    ``stopped`` column of ``runs`` say why (the policy, the date, the decision), and the other
    runs go on. A failed run is run again on resume; a completed one is reused as any other,
    though the class's code is no part of its fingerprint: use ``fresh=True`` after changing it.

    The GIL is released while the sweep runs (one sweep at a time in a process: a second call
    from another thread waits for the first). Ctrl-C stops it as in the CLI (the runs in flight
    are abandoned, the completed ones are stored) and raises :class:`gridsim.Interrupted`.
    Warnings (allowed but suspicious settings, runs without a result) are issued as
    :class:`gridsim.GridsimWarning` once the call returns. Errors are
    :class:`gridsim.GridsimError` subclasses carrying the CLI's message and, for a bad
    experiment file, its file, line and field.
    """
    frames = resolve(frames)
    outcomes = _gridsim.run(
        os.fspath(path),
        quick=quick,
        jobs=jobs,
        out=None if out is None else os.fspath(out),
        fresh=fresh,
        shard=shard,
        plots=plots,
        print=print,
        progress=progress,
        progress_every=progress_every,
        policies=None if policies is None else dict(policies),
    )
    studies = [Study(o, frames) for o in outcomes]
    for study in studies:
        _warn(study._warnings)
    first = studies[0]
    first.included = studies[1:]
    return first


def validate(path: PathLike) -> List[Dict[str, Any]]:
    """Checks the experiment file ``path`` and the ones it includes as ``gridsim validate`` does
    (syntax, names, referenced files, every run's parameters), without running anything.

    Returns one dict per file: ``file``, ``name``, ``family``, ``runs``, ``quick_runs`` (runs
    with ``quick=True``, ``None`` without a ``[quick]`` section), ``warnings`` and ``line`` (what
    the CLI prints). Raises :class:`gridsim.ExperimentError` at the first file with a problem;
    warnings are also issued as :class:`gridsim.GridsimWarning`.
    """
    checked = _gridsim.validate(os.fspath(path))
    for v in checked:
        _warn(list(v["warnings"]))
    return checked


#: The columns of :func:`list_policies`, in order.
POLICY_COLUMNS = [
    "family",
    "owner",
    "policy",
    "description",
    "parameter",
    "meaning",
    "unit",
    "kind",
    "default",
    "default_is_formula",
    "min",
    "min_exclusive",
    "max",
    "values",
    "summary",
]


def list_policies(family: Optional[str] = None, *, frames: str = "auto") -> Any:
    """The families' schedulers (policies) and parameters, from the registry ``gridsim list``
    prints: one row per parameter, with its family; ``owner`` (``scheduler`` for a policy's
    own parameter, ``entry`` for another entry's such as a work-stealing program, ``model``
    for the family's ``[params]``); ``policy`` and its ``description`` (``None`` for the
    model's); ``meaning``, ``unit``, ``kind`` (integer, real, flag, bool, text), ``default``
    (``None``: none; a formula when ``default_is_formula``), ``min``, ``min_exclusive`` (``> 0``
    is a minimum of 0, exclusive) and ``max`` (``None``: unbounded), ``values`` (the accepted values in words) and ``summary`` (the line
    ``gridsim list`` prints). A policy without parameters has one row whose parameter columns
    are ``None``. ``family`` keeps one family's rows.
    """
    return from_records(_gridsim.policies(family), frames, POLICY_COLUMNS)


def listing(root: Optional[PathLike] = None) -> str:
    """What ``gridsim list --root ROOT`` prints: bundled experiments, platforms and traces of
    the checkout ``root`` (default: the current directory), and every family's reference."""
    return _gridsim.listing(None if root is None else os.fspath(root))


def parameters_markdown() -> str:
    """What ``gridsim list --markdown`` prints (the page docs/parameters.md)."""
    return _gridsim.parameters_markdown()
