"""The look of the tracker's own cells: a bold header, wrapped long text, dates as dates, the URL
as a hyperlink, and a row whose draft needs review tinted amber with its Review cell in bold red.

Each style is made once per render and copied to its cells: setting a style cell by cell looks
it up in the workbook's style lists every time (most of a 5,000-row render's time).
"""

from __future__ import annotations

from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.styles.cell_style import StyleArray
from openpyxl.worksheet.worksheet import Worksheet

from jobsearch.tracker.carry import share_style
from jobsearch.tracker.sheet import DRAFT_HEADERS, Column, Kind

_WRAP_TOP = Alignment(wrap_text=True, vertical="top")
_TOP = Alignment(vertical="top")
_HEADER_FONT = Font(bold=True, color="FFFFFF")
_HEADER_FILL = PatternFill("solid", fgColor="305496")
# A row that needs review: light amber; its draft cells a stronger amber; its Review cell red text.
_REVIEW_ROW = PatternFill("solid", fgColor="FFF2CC")
_REVIEW_DRAFT = PatternFill("solid", fgColor="F8CBAD")
_REVIEW_FONT = Font(bold=True, color="C00000")
_KINDS: tuple[Kind, ...] = ("text", "long", "date", "link", "status", "number")


class Styles:
    """The tracker's cell styles, registered in one sheet's workbook."""

    def __init__(self, sheet: Worksheet) -> None:
        self.header = _style_of(sheet, "text", fill=_HEADER_FILL, font=_HEADER_FONT, align=False)
        self.plain = {kind: _style_of(sheet, kind) for kind in _KINDS}
        self.link = _style_of(sheet, "link", hyperlink=True)
        self.flagged = {kind: _style_of(sheet, kind, fill=_REVIEW_ROW) for kind in _KINDS}
        self.flagged_link = _style_of(sheet, "link", hyperlink=True, fill=_REVIEW_ROW)
        self.flagged_draft = _style_of(sheet, "long", fill=_REVIEW_DRAFT)
        self.flagged_text = _style_of(sheet, "text", fill=_REVIEW_DRAFT)
        self.review = _style_of(sheet, "long", fill=_REVIEW_ROW, font=_REVIEW_FONT)

    def apply(self, cell: Cell, column: Column, *, review: bool, link: bool) -> None:
        """Style a tracker cell of `column`; `review`: its row needs review; `link`: a hyperlink."""
        if link:
            share_style(cell, self.flagged_link if review else self.link)
        elif not review:
            share_style(cell, self.plain[column.kind])
        elif column.header == "Review":
            share_style(cell, self.review)
        elif column.header in DRAFT_HEADERS:
            share_style(cell, self.flagged_draft if column.kind == "long" else self.flagged_text)
        else:
            share_style(cell, self.flagged[column.kind])


def _style_of(
    sheet: Worksheet,
    kind: Kind,
    *,
    hyperlink: bool = False,
    fill: PatternFill | None = None,
    font: Font | None = None,
    align: bool = True,
) -> StyleArray:
    """The style of a cell of one kind of column, registered in the sheet's workbook."""
    cell = Cell(sheet, row=1, column=1)  # not in the sheet: only its style is kept
    if hyperlink:
        cell.style = "Hyperlink"
    if fill is not None:
        cell.fill = fill
    if font is not None:
        cell.font = font
    if align:
        cell.alignment = _WRAP_TOP if kind == "long" else _TOP
    if kind == "date":
        cell.number_format = "yyyy-mm-dd"
    style: StyleArray = cell._style  # type: ignore[attr-defined]
    return style
