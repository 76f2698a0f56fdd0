"""CSV files and rows as tables: pandas DataFrames, or lists of dicts without pandas.

The runner writes numbers in their shortest round-trip form, ``NaN`` for "not applicable" and an
empty cell for "no value"; both readers give back exactly those numbers (pandas with its
round-trip float parser) and read nothing else as missing, so a scheduler or platform named
``NA`` or ``None`` stays a string.
"""

import csv
import math
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

FRAMES = ("auto", "pandas", "dicts")

# The cells that mean "no number": NaN as the runner writes it, and the empty cell.
_MISSING = ("NaN", "")


def _check(frames: str) -> str:
    from .errors import ArgumentError

    if frames not in FRAMES:
        raise ArgumentError(
            f"frames: {frames!r} is not one of {', '.join(FRAMES)}", field="frames"
        )
    if frames == "auto":
        try:
            import pandas  # noqa: F401
        except ImportError:
            return "dicts"
        return "pandas"
    return frames


def resolve(frames: str) -> str:
    """``pandas`` or ``dicts``: what ``frames`` asks for (``auto``: pandas when installed)."""
    return _check(frames)


def _number(cell: str) -> Any:
    """The number a cell holds (int, then float), else ``None`` when it holds none."""
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return None


def _column(cells: Sequence[str]) -> List[Any]:
    """A column's values: numbers when every filled cell is one (``NaN`` and empty cells as
    ``nan``, or ``None`` in a column of whole numbers), else the strings as written."""
    filled = [c for c in cells if c not in _MISSING]
    numbers = [_number(c) for c in filled]
    if not filled or any(n is None for n in numbers):
        if not filled:
            return [None] * len(cells)
        return [None if c == "" else c for c in cells]
    whole = all(isinstance(n, int) for n in numbers) and all(c != "NaN" for c in cells)
    out: List[Any] = []
    for c in cells:
        if c == "":
            out.append(None if whole else math.nan)
        elif c == "NaN":
            out.append(math.nan)
        else:
            n = _number(c)
            out.append(n if whole else float(n))
    return out


def _dicts(header: List[str], rows: List[List[str]]) -> List[Dict[str, Any]]:
    columns = [_column([r[i] if i < len(r) else "" for r in rows]) for i in range(len(header))]
    return [{name: columns[i][k] for i, name in enumerate(header)} for k in range(len(rows))]


def read_csv(path: Path, frames: str) -> Any:
    """The table in the CSV file ``path``, as ``frames`` asks."""
    if resolve(frames) == "pandas":
        import pandas

        exact = {}
        if int(pandas.__version__.split(".")[0]) < 3:
            # Before pandas 3 the C parser's default float reading may be off by an ulp.
            exact["float_precision"] = "round_trip"
        return pandas.read_csv(path, keep_default_na=False, na_values=list(_MISSING), **exact)
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        return _dicts(header, list(reader))


def from_records(records: Iterable[Dict[str, Any]], frames: str, columns: Optional[List[str]] = None) -> Any:
    """Rows already typed (from the native module) as ``frames`` asks."""
    records = list(records)
    if resolve(frames) == "pandas":
        import pandas

        return pandas.DataFrame.from_records(records, columns=columns)
    return records
