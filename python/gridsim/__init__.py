"""gridsim from Python: run a study as ``gridsim run`` does and get its results as DataFrames.

>>> import gridsim
>>> study = gridsim.run("experiments/lds.toml", quick=True, jobs=2)
>>> study.runs.groupby("scheduler")["makespan"].mean()

The native module (``gridsim._gridsim``) is the gridsim library itself: the same runner,
resume, CSV files and figures as the CLI, so both give byte-identical results. See
docs/python.md.
"""

from ._api import POLICY_COLUMNS, Study, list_policies, listing, parameters_markdown, run, validate
from ._gridsim import BUILD_ID, BatchView, ChunkView, QueuedJob, RunningJob, Simulation, __version__
from .errors import (
    ArgumentError,
    Diagnostic,
    ExperimentError,
    GridsimError,
    GridsimWarning,
    Interrupted,
    RunError,
)

__all__ = [
    "ArgumentError",
    "BUILD_ID",
    "BatchView",
    "ChunkView",
    "Diagnostic",
    "ExperimentError",
    "GridsimError",
    "GridsimWarning",
    "Interrupted",
    "POLICY_COLUMNS",
    "QueuedJob",
    "RunError",
    "RunningJob",
    "Simulation",
    "Study",
    "__version__",
    "list_policies",
    "listing",
    "parameters_markdown",
    "run",
    "validate",
]
