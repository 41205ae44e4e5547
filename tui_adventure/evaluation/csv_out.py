"""The one way the project writes a CSV file (results.csv, raw.csv, comparison.csv, pairs.csv, paired.csv).

Run, world, experiment and metric names come from folders and files nobody
vetted; a spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or
``@`` as a formula (``=HYPERLINK(...)`` sends the reader's data away). So every
text cell passes through ``safe_cell``, and numbers stay numbers: callers
hand over ints and floats, never numbers already turned into text, so a
negative number is not mistaken for a formula. ``None`` is an empty cell.
The file is written atomically, in the csv module's default dialect (what
``clem eval`` writes), with characters that cannot be encoded escaped.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Iterable, Sequence

from ..engine.snapshot import write_atomic

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class Ours(str):
    """A text the program itself wrote, never read from a record (clem eval's column ``-, clemscore``): kept as is."""


def safe_cell(value):
    """``value`` as a spreadsheet will read it as data: a text that would start a formula gets a leading ``'``."""
    if value is None:
        return ""
    if isinstance(value, str) and not isinstance(value, Ours) and value[:1] in FORMULA_STARTS:
        return "'" + value
    return value


def csv_text(header: Sequence, rows: Iterable[Sequence]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([safe_cell(c) for c in header])
    for row in rows:
        w.writerow([safe_cell(c) for c in row])
    return buf.getvalue()


def write_csv(path: str | Path, header: Sequence, rows: Iterable[Sequence]) -> Path:
    """``header`` and ``rows`` as a CSV file at ``path``, written atomically; the path."""
    path = Path(path)
    write_atomic(path, csv_text(header, rows).encode("utf-8", "backslashreplace"))
    return path
