"""The tracker: `tracker.xlsx` (or a CSV) rendered from the state of record.

`export_tracker` is the one way to write it, used by the export service's render job and by
`jobsearch export`: under the render lock, it reads the person's status and notes edits back into
the database first, then renders every listing over the tracker as the person left it (their own
columns and sheets kept) to a temporary file and renames it into place. Whatever it cannot keep
is said in the report, and a copy of the file as it was is written first.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import structlog

from jobsearch.store import Conflict, SheetEdit, Store
from jobsearch.tracker.backup import lost_parts
from jobsearch.tracker.csvfile import render_csv, write_csv
from jobsearch.tracker.errors import (
    TrackerBusy,
    TrackerChanged,
    TrackerError,
    TrackerLocked,
    TrackerReadOnly,
    TrackerUnwritable,
)
from jobsearch.tracker.files import (
    RENDER_LOCK_WAIT,
    check_not_open,
    check_not_read_only,
    file_state,
    keep_copy,
    render_lock,
    replace_atomically,
    writing,
)
from jobsearch.tracker.workbook import (
    LoadedTracker,
    Rendered,
    TrackerSheet,
    UnreadableTracker,
    load_tracker,
    read_edits,
    render,
)

__all__ = [
    "TrackerBusy",
    "TrackerChanged",
    "TrackerError",
    "TrackerLocked",
    "TrackerReadOnly",
    "TrackerReport",
    "TrackerUnwritable",
    "export_csv",
    "export_tracker",
    "write_csv",
]

log = structlog.get_logger("jobsearch.tracker")
_TRIES = 3


class TrackerReport(msgspec.Struct, kw_only=True):
    """What an export did: where, how many rows, which edits it read back, what it set aside, and
    what of the person's own it kept."""

    path: str
    rows: int
    edits_applied: int = 0
    conflicts: list[Conflict] = []
    problems: list[str] = []
    kept_aside: str | None = None  # an unreadable tracker, renamed rather than overwritten
    person_columns: list[str] = []  # the person's columns on the Tracker sheet, kept
    person_sheets: list[str] = []  # the person's sheets, kept
    backup: str | None = None  # a copy of the tracker before a render that could not keep all


def export_tracker(
    store: Store,
    path: Path,
    *,
    lock_wait: float = RENDER_LOCK_WAIT,
    on_wait: Callable[[str], None] | None = None,
) -> TrackerReport:
    """Read the tracker's edits into `store`, then render every listing to `path` atomically.

    `on_wait` hears, once, that another render holds the lock and until when this one waits.

    Raises:
        TrackerReadOnly: the tracker is read-only; nothing was read or written.
        TrackerUnwritable: it (or its folder) cannot be written; nothing was written.
        TrackerLocked: a spreadsheet program has the tracker open; nothing changed on disk.
        TrackerBusy: another render kept the lock `lock_wait` seconds.
        TrackerChanged: the person kept saving it while it was rendered (three times).
    """
    check_not_read_only(path)
    with render_lock(path, wait=lock_wait, on_wait=on_wait):
        for attempt in range(1, _TRIES + 1):
            try:
                return _export_once(store, path)
            except TrackerChanged:
                if attempt == _TRIES:
                    raise
                log.info("tracker.changed_while_rendering", path=str(path), attempt=attempt)
    raise AssertionError("unreachable")


def _export_once(store: Store, path: Path) -> TrackerReport:
    check_not_read_only(path)
    check_not_open(path)
    report = TrackerReport(path=str(path), rows=0)
    before = file_state(path)
    loaded: LoadedTracker | None = None
    if before is not None:
        try:
            loaded = load_tracker(path)
        except UnreadableTracker as exc:
            # Never overwrite what we cannot read: the person's edits may be in it.
            aside = path.with_name(f"{path.stem}.unreadable-{datetime.now(UTC):%Y%m%dT%H%M%S}{path.suffix}")
            with writing(path):
                path.rename(aside)
            report.kept_aside = str(aside)
            report.problems.append(f"{exc}; kept it as {aside.name} and wrote a new tracker")
            before = None
    if loaded is not None:
        _read_back(store, path, read_edits(loaded), report)
    rows = store.tracker_rows()
    rendered: list[Rendered] = []

    def write(temp: Path) -> None:
        result = render(TrackerSheet(rows=rows, loaded=loaded), temp)
        if loaded is not None:
            dropped = [*loaded.warnings, *result.dropped, *lost_parts(path, temp)]
            if dropped:  # say so, and keep the file as it was before it is replaced
                report.backup = str(keep_copy(path, "before"))
                report.problems += dropped
                report.problems.append(f"kept a copy of the tracker as it was: {Path(report.backup).name}")
        rendered.append(result)

    replace_atomically(path, write, expected=before)
    [result] = rendered
    store.remember_rendered(zip(rows, result.notes_cells, strict=True))
    report.rows = len(rows)
    report.person_columns = result.person_columns
    report.person_sheets = result.person_sheets
    log.info(
        "tracker.exported",
        path=str(path),
        rows=report.rows,
        edits_applied=report.edits_applied,
        conflicts=len(report.conflicts),
        problems=len(report.problems),
        person_columns=len(report.person_columns),
        person_sheets=len(report.person_sheets),
        backup=report.backup,
    )
    return report


def _read_back(store: Store, path: Path, edits: list[SheetEdit], report: TrackerReport) -> None:
    """Apply the sheet's edits of listings the database has; a row with another ID stays in the
    sheet as the person left it, and is named."""
    known = {row[0] for row in store.conn.execute("SELECT id FROM listings")}
    for edit in edits:
        if edit.listing_id not in known:
            report.problems.append(
                f"row {edit.row}: ID {edit.listing_id!r} is not in the database; kept the row as it was"
            )
    mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    edit_report = store.apply_sheet_edits([e for e in edits if e.listing_id in known], tracker_mtime=mtime)
    report.edits_applied = edit_report.applied
    report.conflicts = edit_report.conflicts
    report.problems += edit_report.problems


def export_csv(
    store: Store,
    path: Path,
    *,
    lock_wait: float = RENDER_LOCK_WAIT,
    on_wait: Callable[[str], None] | None = None,
) -> int:
    """Render every listing to a CSV file at `path` (atomically); return the number of rows.

    Raises:
        TrackerReadOnly, TrackerUnwritable, TrackerBusy: as `export_tracker`.
    """
    rows = store.tracker_rows()
    check_not_read_only(path)
    with render_lock(path, wait=lock_wait, on_wait=on_wait):
        replace_atomically(path, lambda temp: render_csv(rows, temp), expected=file_state(path))
    return len(rows)
