"""The exceptions and warnings of the gridsim package.

Every error gridsim raises is a :class:`GridsimError` whose message is the text the CLI prints
after ``gridsim: error:``. Where the problem has a place, the exception says where:

* :class:`ExperimentError`: the experiment file (or a file it names, or one it includes) is
  wrong. ``file``, ``line``, ``column`` and ``field`` locate its first problem, ``diagnostics``
  lists every problem found.
* :class:`RunError`: a run of the sweep failed; the runs that completed are stored and are
  skipped when the same study is run again.
* :class:`Interrupted`: Ctrl-C (SIGINT) or SIGTERM stopped the sweep. The completed runs are
  stored; running again resumes. It is also a :class:`KeyboardInterrupt`.
* :class:`ArgumentError`: an argument of a gridsim function is out of range; ``field`` names
  it. It is also a :class:`ValueError`.
"""

from typing import NamedTuple, Optional, Sequence, Tuple


class Diagnostic(NamedTuple):
    """One problem in an experiment file."""

    #: The file the problem is in.
    file: str
    #: 1-based line, ``None`` when the problem concerns the whole file.
    line: Optional[int]
    #: 1-based column (in characters), ``None`` when unknown.
    column: Optional[int]
    #: The field concerned (``schedulers[2].name``, ``params.tasks``), ``None`` for syntax errors.
    field: Optional[str]
    #: What is wrong, and what would be right.
    message: str


def _diagnostic(item: Tuple[str, int, int, str, str]) -> Diagnostic:
    # The native module writes 0 and "" for "none", as the CLI's records do.
    file, line, column, field, message = item
    return Diagnostic(file, line or None, column or None, field or None, message)


class GridsimError(Exception):
    """An error of gridsim, with the CLI's message.

    ``file``, ``line``, ``column`` and ``field`` say where the problem is when it has a place
    (``None`` otherwise); ``diagnostics`` lists every problem found in an experiment file.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        field: Optional[str] = None,
        diagnostics: Sequence[Tuple[str, int, int, str, str]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics = [_diagnostic(d) for d in diagnostics]
        first = self.diagnostics[0] if self.diagnostics else None
        self.file = file if file is not None else (first.file if first else None)
        self.line = line if line is not None else (first.line if first else None)
        self.column = column if column is not None else (first.column if first else None)
        self.field = field if field is not None else (first.field if first else None)


class ExperimentError(GridsimError):
    """The experiment file, a file it names or one it includes is wrong."""


class RunError(GridsimError):
    """A run of the sweep failed (the completed ones are stored)."""


class Interrupted(GridsimError, KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the sweep; the completed runs are stored, running again resumes."""


class ArgumentError(GridsimError, ValueError):
    """An argument of a gridsim function is out of range; ``field`` names it."""


class GridsimWarning(UserWarning):
    """What gridsim allows but probably is not meant, or runs that have no result."""
