"""The tracker as CSV, for people without a spreadsheet program: the same columns and the same
formula safety (a CSV is where formula injection bites hardest). It is an output only: edits made
in the CSV are not read back; use `jobsearch mark` or the xlsx."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path
from typing import TextIO

from jobsearch.store import TrackerRow
from jobsearch.tracker.sheet import HEADERS, row_values


def render_csv(rows: list[TrackerRow], path: Path) -> None:
    """Write `rows` to `path` as UTF-8 CSV (with a BOM, so spreadsheet programs detect UTF-8)."""
    with path.open("w", newline="", encoding="utf-8-sig") as out:
        write_csv(rows, out)


def write_csv(rows: list[TrackerRow], out: TextIO) -> None:
    """Write the header and `rows` as CSV to `out` (opened with `newline=""`)."""
    writer = csv.writer(out)
    writer.writerow(HEADERS)
    for row in rows:
        writer.writerow(
            [
                value.isoformat() if isinstance(value, date) else ("" if value is None else value)
                for value in row_values(row)
            ]
        )
