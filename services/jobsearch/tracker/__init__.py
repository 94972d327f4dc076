"""The tracker: `tracker.xlsx` (or a CSV) rendered from the state of record.

`export_tracker` is the one way to write it, used by the export service's render job and by
`jobsearch export`: under the render lock, it reads the person's status and notes edits back into
the database first, then renders every listing to a temporary file and renames it into place.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec
import structlog

from jobsearch.store import Conflict, Store
from jobsearch.tracker.csvfile import render_csv, write_csv
from jobsearch.tracker.errors import TrackerChanged, TrackerError, TrackerLocked
from jobsearch.tracker.files import check_not_open, file_state, render_lock, replace_atomically
from jobsearch.tracker.workbook import UnreadableTracker, read_edits, render

__all__ = [
    "TrackerChanged",
    "TrackerError",
    "TrackerLocked",
    "TrackerReport",
    "export_csv",
    "export_tracker",
    "write_csv",
]

log = structlog.get_logger("jobsearch.tracker")
_TRIES = 3


class TrackerReport(msgspec.Struct, kw_only=True):
    """What an export did: where, how many rows, which edits it read back, what it set aside."""

    path: str
    rows: int
    edits_applied: int = 0
    conflicts: list[Conflict] = []
    problems: list[str] = []
    kept_aside: str | None = None  # an unreadable tracker, renamed rather than overwritten


def export_tracker(store: Store, path: Path) -> TrackerReport:
    """Read the tracker's edits into `store`, then render every listing to `path` atomically.

    Raises:
        TrackerLocked: a spreadsheet program has the tracker open; nothing changed on disk.
        TrackerChanged: the person kept saving it while it was rendered (three times).
    """
    with render_lock(path):
        for attempt in range(1, _TRIES + 1):
            try:
                return _export_once(store, path)
            except TrackerChanged:
                if attempt == _TRIES:
                    raise
                log.info("tracker.changed_while_rendering", path=str(path), attempt=attempt)
    raise AssertionError("unreachable")


def _export_once(store: Store, path: Path) -> TrackerReport:
    check_not_open(path)
    report = TrackerReport(path=str(path), rows=0)
    before = file_state(path)
    if before is not None:
        try:
            edits = read_edits(path)
        except UnreadableTracker as exc:
            # Never overwrite what we cannot read: the person's edits may be in it.
            aside = path.with_name(f"{path.stem}.unreadable-{datetime.now(UTC):%Y%m%dT%H%M%S}{path.suffix}")
            path.rename(aside)
            report.kept_aside = str(aside)
            report.problems.append(f"{exc}; kept it as {aside.name} and wrote a new tracker")
            before = None
            edits = []
        mtime = datetime.fromtimestamp(path.stat().st_mtime if before else 0, UTC)
        edit_report = store.apply_sheet_edits(edits, tracker_mtime=mtime)
        report.edits_applied = edit_report.applied
        report.conflicts = edit_report.conflicts
        report.problems += edit_report.problems
    rows = store.tracker_rows()
    notes_cells: list[str] = []

    def write(temp: Path) -> None:
        notes_cells.extend(render(rows, temp))

    replace_atomically(path, write, expected=before)
    store.remember_rendered(zip(rows, notes_cells, strict=True))
    report.rows = len(rows)
    log.info(
        "tracker.exported",
        path=str(path),
        rows=report.rows,
        edits_applied=report.edits_applied,
        conflicts=len(report.conflicts),
        problems=len(report.problems),
    )
    return report


def export_csv(store: Store, path: Path) -> int:
    """Render every listing to a CSV file at `path` (atomically); return the number of rows."""
    rows = store.tracker_rows()
    with render_lock(path):
        replace_atomically(path, lambda temp: render_csv(rows, temp), expected=file_state(path))
    return len(rows)
