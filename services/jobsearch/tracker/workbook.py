"""The xlsx tracker: rendered with openpyxl, and read back for the person's status and notes edits.

Layout: one sheet `Tracker`, a bold frozen header with filters, set widths, wrapped long text,
dates as real dates, the URL as a hyperlink (http and https only), and a drop-down of the status
vocabulary that refuses anything else. A row whose Review cell says something (a draft failed its
checks, or could not be written) is highlighted, its Review cell in bold red and its draft cells
tinted: a draft that needs review never looks like one ready to send.
"""

from __future__ import annotations

import re
import zipfile
from copy import copy
from pathlib import Path

from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from jobsearch.store import STATUSES, SheetEdit, TrackerRow
from jobsearch.tracker.cells import is_escaped
from jobsearch.tracker.sheet import COLUMNS, DRAFT_CELLS, HEADERS, NOTES, REVIEW, Kind, row_values

SHEET = "Tracker"
_LINK = re.compile(r"^https?://[^\s\"<>]+$", re.IGNORECASE)
_WRAP_TOP = Alignment(wrap_text=True, vertical="top")
_TOP = Alignment(vertical="top")
# Rows below the data that keep the status drop-down, for rows the person adds by hand.
_SPARE_ROWS = 200
# A row that needs review: light amber; its draft cells a stronger amber; its Review cell red text.
_REVIEW_ROW = PatternFill("solid", fgColor="FFF2CC")
_REVIEW_DRAFT = PatternFill("solid", fgColor="F8CBAD")
_REVIEW_FONT = Font(bold=True, color="C00000")


class UnreadableTracker(Exception):
    """The file is not a tracker this tool can read back (not xlsx, or no ID column)."""


def render(rows: list[TrackerRow], path: Path) -> list[str]:
    """Write the tracker of `rows` to `path`; return each row's notes cell text as written."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = SHEET
    sheet.append(list(HEADERS))
    header_font = Font(bold=True, color="FFFFFF")
    header_fill = PatternFill("solid", fgColor="305496")
    for index, column in enumerate(COLUMNS, start=1):
        cell = sheet.cell(row=1, column=index)
        cell.font = header_font
        cell.fill = header_fill
        sheet.column_dimensions[get_column_letter(index)].width = column.width
    # Each column's cell style made once and copied to its cells: setting a style cell by cell
    # looks it up in the workbook's style lists every time (most of a 5,000-row render's time).
    kinds: tuple[Kind, ...] = ("text", "long", "date", "link", "status")
    styles = {kind: _style_of(sheet, kind) for kind in kinds}
    link_style = _style_of(sheet, "link", hyperlink=True)
    flagged = {kind: _style_of(sheet, kind, fill=_REVIEW_ROW) for kind in styles}
    flagged_link = _style_of(sheet, "link", hyperlink=True, fill=_REVIEW_ROW)
    flagged_draft = _style_of(sheet, "long", fill=_REVIEW_DRAFT)
    flagged_text = _style_of(sheet, "text", fill=_REVIEW_DRAFT)
    review_style = _style_of(sheet, "long", fill=_REVIEW_ROW, font=_REVIEW_FONT)
    notes_cells = []
    for number, row in enumerate(rows, start=2):
        values = row_values(row)
        notes_cells.append(str(values[NOTES] or ""))
        sheet.append(values)
        review = bool(row.review)
        for index, column in enumerate(COLUMNS, start=1):
            cell = sheet.cell(row=number, column=index)
            # openpyxl makes any string starting with "=" a formula; safe_text has escaped those,
            # and this keeps every text cell a string whatever a future change lets through.
            if isinstance(cell.value, str):
                cell.data_type = "s"
            if column.kind == "link" and _LINK.match(row.url) and len(row.url) <= 2000:
                cell.hyperlink = row.url
                _share(cell, flagged_link if review else link_style)
            elif not review:
                _share(cell, styles[column.kind])
            elif index - 1 == REVIEW:
                _share(cell, review_style)
            elif index - 1 in DRAFT_CELLS:
                _share(cell, flagged_draft if column.kind == "long" else flagged_text)
            else:
                _share(cell, flagged[column.kind])
    last = len(rows) + 1
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{last}"
    status_column = get_column_letter(HEADERS.index("Status") + 1)
    validation = DataValidation(
        type="list",
        formula1='"' + ",".join(STATUSES) + '"',
        allow_blank=True,
        showErrorMessage=True,
        errorTitle="Status",
        error="Choose one of: " + ", ".join(STATUSES),
    )
    validation.add(f"{status_column}2:{status_column}{last + _SPARE_ROWS}")
    sheet.add_data_validation(validation)
    book.save(path)
    return notes_cells


def _style_of(
    sheet: Worksheet,
    kind: Kind,
    *,
    hyperlink: bool = False,
    fill: PatternFill | None = None,
    font: Font | None = None,
) -> StyleArray:
    """The style of a cell of one kind of column, registered in the sheet's workbook."""
    cell = Cell(sheet, row=1, column=1)  # not in the sheet: only its style is kept
    if hyperlink:
        cell.style = "Hyperlink"
    if fill is not None:
        cell.fill = fill
    if font is not None:
        cell.font = font
    cell.alignment = _WRAP_TOP if kind == "long" else _TOP
    if kind == "date":
        cell.number_format = "yyyy-mm-dd"
    style: StyleArray = cell._style  # type: ignore[attr-defined]
    return style


def _share(cell: object, style: StyleArray) -> None:
    # A cell keeps its style as a `StyleArray` in `_style` (not in openpyxl's type stubs); a copy
    # of one is how openpyxl itself gives cells the same style.
    cell._style = copy(style)  # type: ignore[attr-defined]


def read_edits(path: Path) -> list[SheetEdit]:
    """Every row's ID, status and notes as the tracker at `path` holds them.

    Columns are found by their header, so the person may reorder them or sort the rows.

    Raises:
        UnreadableTracker: not an xlsx file, no `Tracker` sheet, or no ID/Status/Notes header.
    """
    try:
        # Formulas as their text, not their cached values: a Notes cell holding one keeps its
        # text (and is reported), where a value openpyxl never computed would read as empty.
        book = load_workbook(path, read_only=True, data_only=False)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise UnreadableTracker(f"{path} is not a readable xlsx file ({type(exc).__name__}: {exc})") from None
    try:
        if SHEET not in book.sheetnames:
            raise UnreadableTracker(f"{path} has no sheet named {SHEET!r}")
        rows = book[SHEET].iter_rows(values_only=True)
        header = [str(value).strip() if value is not None else "" for value in next(rows, ())]
        try:
            at = {name: header.index(name) for name in ("ID", "Status", "Notes")}
        except ValueError:
            raise UnreadableTracker(f"{path}: the header row lacks an ID, Status or Notes column") from None
        edits = []
        for number, values in enumerate(rows, start=2):
            cells = list(values) + [None] * (len(header) - len(values))
            listing_id = _text(cells[at["ID"]]).strip()
            if is_escaped(listing_id):  # an id starting with "-" was written with an apostrophe
                listing_id = listing_id[1:]
            if not listing_id:
                continue
            notes = _text(cells[at["Notes"]])
            edits.append(
                SheetEdit(
                    listing_id=listing_id,
                    row=number,
                    status=_text(cells[at["Status"]]),
                    notes=notes,
                    notes_formula=notes.startswith("="),
                )
            )
        return edits
    finally:
        book.close()


def _text(value: object) -> str:
    return "" if value is None else str(value)
