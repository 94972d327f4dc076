"""The xlsx tracker: loaded as the person left it, their status and notes edits read back, and
rendered over itself with openpyxl.

The tracker's part: the sheet `Tracker` and, on it, the columns of `sheet.COLUMNS` (a bold
header with filters, frozen on a new tracker; set widths, wrapped long text, dates as real dates,
the URL as a hyperlink for http and https only; a drop-down of the status vocabulary that refuses
anything else; a row whose draft needs review highlighted, `styles`). The person's part: every
other column of that sheet and every other sheet, kept with their values and formatting because
the workbook is loaded and changed rather than built anew (`layout`, `carry`).
"""

from __future__ import annotations

import re
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

from openpyxl import Workbook, load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from jobsearch.store import STATUSES, SheetEdit, TrackerRow
from jobsearch.tracker.carry import (
    carry_columns,
    carry_comment,
    carry_rows,
    copy_cell,
    new_cell,
    share_style,
    take_apart,
)
from jobsearch.tracker.layout import OldRow, OldSheet, PlannedRow, Slot, plan_rows, read_old
from jobsearch.tracker.sheet import HEADERS, row_values
from jobsearch.tracker.styles import Styles

SHEET = "Tracker"
_LINK = re.compile(r"^https?://[^\s\"<>]+$", re.IGNORECASE)
# Rows below the data that keep the status drop-down, for rows the person adds by hand.
_SPARE_ROWS = 200
_NEEDED = ("ID", "Status", "Notes")
# What openpyxl says on reading files it did not write, with nothing lost.
_HARMLESS = ("Workbook contains no default style",)


class UnreadableTracker(Exception):
    """The file is not a tracker this tool can read back (not xlsx, or no ID column)."""


@dataclass(frozen=True, slots=True)
class LoadedTracker:
    """The tracker as the person left it: the workbook, its Tracker sheet read, and what openpyxl
    warned it cannot keep while reading it."""

    book: Workbook
    old: OldSheet
    warnings: list[str]


@dataclass(frozen=True, slots=True)
class TrackerSheet:
    """What a render writes: every listing's row, over the tracker as loaded (None: a new one)."""

    rows: list[TrackerRow]
    loaded: LoadedTracker | None = None


@dataclass(frozen=True, slots=True)
class Rendered:
    """What a render wrote: each listing's Notes cell as written (in the order of the rows given),
    the person's columns and sheets it kept, and what it could not keep, in words."""

    notes_cells: list[str]
    person_columns: list[str]
    person_sheets: list[str]
    dropped: list[str]


def load_tracker(path: Path) -> LoadedTracker:
    """The tracker at `path`, whole: formulas as formulas, rich text as rich text.

    Raises:
        UnreadableTracker: not an xlsx file, no `Tracker` sheet, or no ID/Status/Notes header.
    """
    # openpyxl warns of what it drops while reading (shapes, some extensions); they are recorded
    # to be reported. The filter is process-wide for the moment of the read.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            book = load_workbook(path, data_only=False, rich_text=True)
        except (OSError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as exc:
            raise UnreadableTracker(
                f"{path} is not a readable xlsx file ({type(exc).__name__}: {exc})"
            ) from None
    said = [
        str(w.message)
        for w in caught
        if "openpyxl" in w.filename and not str(w.message).startswith(_HARMLESS)
    ]
    if SHEET not in book.sheetnames or not isinstance(book[SHEET], Worksheet):
        raise UnreadableTracker(f"{path} has no sheet named {SHEET!r}")
    old = read_old(book[SHEET])
    present = {slot.column.header for slot in old.slots if slot.column and slot.source is not None}
    if not present.issuperset(_NEEDED):
        raise UnreadableTracker(f"{path}: the header row lacks an ID, Status or Notes column")
    return LoadedTracker(book=book, old=old, warnings=list(dict.fromkeys(said)))


def read_edits(loaded: LoadedTracker) -> list[SheetEdit]:
    """Every row's ID, status and notes as the tracker holds them.

    Columns are found by their header, so the person may reorder them or sort the rows.
    """
    at = {
        slot.column.header: slot.source
        for slot in loaded.old.slots
        if slot.column is not None and slot.column.header in _NEEDED and slot.source is not None
    }
    edits = []
    for row in loaded.old.rows:
        if not row.listing_id:
            continue
        # A Notes formula is read as its text, not as a value openpyxl never computed (empty).
        notes = _text(row, at["Notes"])
        edits.append(
            SheetEdit(
                listing_id=row.listing_id,
                row=row.number,
                status=_text(row, at["Status"]),
                notes=notes,
                notes_formula=notes.startswith("="),
            )
        )
    return edits


def _text(row: OldRow, column: int) -> str:
    cell = row.cells.get(column)
    return "" if cell is None or cell.value is None else str(cell.value)


def render(plan: TrackerSheet, path: Path) -> Rendered:
    """Write the tracker of `plan.rows` to `path`, over the tracker as loaded if there is one."""
    if plan.loaded is None:
        book = Workbook()
        sheet = book.active
        assert isinstance(sheet, Worksheet)
        sheet.title = SHEET
        sheet.freeze_panes = "A2"
        old = read_old(sheet)
    else:
        book, old = plan.loaded.book, plan.loaded.old
        sheet = book[SHEET]
        assert isinstance(sheet, Worksheet)
    dropped = take_apart(sheet)
    planned, repeated = plan_rows(old, plan.rows)
    dropped += repeated
    styles = Styles(sheet)
    _write_header(sheet, old, styles)
    notes: dict[str, str] = {}
    for number, row in enumerate(planned, start=2):
        if row.listing is None:
            _write_kept(sheet, number, old.slots, row)
        else:
            notes[row.listing.listing_id] = _write_listing(sheet, number, old.slots, row, styles)
    carry_columns(sheet, old.slots)
    carry_rows(sheet, [1, *(row.old.number if row.old else None for row in planned)])
    _finish(sheet, old.slots, last=len(planned) + 1)
    book.calculation.fullCalcOnLoad = True  # the person's formulas are computed when it opens
    book.save(path)
    return Rendered(
        notes_cells=[notes[row.listing_id] for row in plan.rows],
        person_columns=[
            old.header.get(slot.source) or get_column_letter(slot.source)
            for slot in old.slots
            if slot.column is None and slot.source is not None
        ],
        person_sheets=[name for name in book.sheetnames if name != SHEET],
        dropped=dropped,
    )


def _write_header(sheet: Worksheet, old: OldSheet, styles: Styles) -> None:
    for position, slot in enumerate(old.slots, start=1):
        cell = new_cell(sheet, 1, position)
        before = old.header_cells.get(slot.source) if slot.source is not None else None
        if slot.column is None:
            if before is not None:
                copy_cell(before, cell)
            continue
        cell.value = slot.column.header
        share_style(cell, styles.header)
        carry_comment(before, cell)


def _write_kept(sheet: Worksheet, number: int, slots: list[Slot], row: PlannedRow) -> None:
    """A row the tracker does not know (no ID, or one not in the database): as it was."""
    assert row.old is not None
    for position, slot in enumerate(slots, start=1):
        before = row.old.cells.get(slot.source) if slot.source is not None else None
        if before is not None:
            copy_cell(before, new_cell(sheet, number, position))


def _write_listing(sheet: Worksheet, number: int, slots: list[Slot], row: PlannedRow, styles: Styles) -> str:
    """A listing's row: the tracker's cells rendered, the person's carried; its Notes cell text."""
    assert row.listing is not None
    listing = row.listing
    values = dict(zip(HEADERS, row_values(listing), strict=True))
    review = bool(listing.review)
    linkable = bool(_LINK.match(listing.url)) and len(listing.url) <= 2000
    for position, slot in enumerate(slots, start=1):
        cell = new_cell(sheet, number, position)
        before = row.old.cells.get(slot.source) if row.old and slot.source is not None else None
        if slot.column is None:
            if before is not None:
                copy_cell(before, cell)
            continue
        cell.value = values[slot.column.header]
        # openpyxl makes any string starting with "=" a formula; safe_text has escaped those,
        # and this keeps every text cell a string whatever a future change lets through.
        if isinstance(cell.value, str):
            cell.data_type = "s"
        link = slot.column.kind == "link" and linkable
        if link:
            cell.hyperlink = listing.url
        styles.apply(cell, slot.column, review=review, link=link)
        carry_comment(before, cell)
    return str(values["Notes"] or "")


def _finish(sheet: Worksheet, slots: list[Slot], *, last: int) -> None:
    """The filter over every column and row, and the status drop-down (replacing the last one)."""
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(slots))}{last}"
    if [slot.source for slot in slots] != list(range(1, len(slots) + 1)):
        sheet.auto_filter.filterColumn = []  # the person's filters name columns that moved
    sheet.auto_filter.sortState = None  # rows are where the sheet had them; no sort to redo
    validations = sheet.data_validations.dataValidation
    validations[:] = [dv for dv in validations if not (dv.type == "list" and dv.errorTitle == "Status")]
    status = next(
        n for n, slot in enumerate(slots, start=1) if slot.column and slot.column.header == "Status"
    )
    letter = get_column_letter(status)
    validation = DataValidation(
        type="list",
        formula1='"' + ",".join(STATUSES) + '"',
        allow_blank=True,
        showErrorMessage=True,
        errorTitle="Status",
        error="Choose one of: " + ", ".join(STATUSES),
    )
    validation.add(f"{letter}2:{letter}{last + _SPARE_ROWS}")
    sheet.add_data_validation(validation)
