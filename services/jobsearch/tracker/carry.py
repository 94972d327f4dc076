"""What the person's cells and formatting carry into a new render of the Tracker sheet.

The sheet is rendered over itself (its settings, conditional formats, images and the person's
own validations stay): its cells are taken out, then written again in the new layout. A cell of
the person moves with its row with its value (formulas as formulas), style, hyperlink and
comment; a column keeps its width, hidden flag and style; a row its height and hidden flag.
What cannot follow rows that move (merged cells, a table over the tracker's range) is removed
and named, so that the caller keeps a copy of the file first.
"""

from __future__ import annotations

from copy import copy

from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.dimensions import ColumnDimension, RowDimension
from openpyxl.worksheet.worksheet import Worksheet

from jobsearch.tracker.layout import OldCell, Slot


def take_apart(sheet: Worksheet) -> list[str]:
    """Empty the sheet's cells for a render; return what had to go with them, in words."""
    dropped = []
    if sheet.merged_cells.ranges:
        merged = ", ".join(sorted(str(cells) for cells in sheet.merged_cells.ranges))
        dropped.append(f"unmerged cells {merged} on the {sheet.title} sheet (its rows move between renders)")
        sheet.merged_cells = MultiCellRange()
    if sheet.tables:
        names = ", ".join(sorted(sheet.tables))
        dropped.append(f"removed the table {names} from the {sheet.title} sheet (it keeps its own filter)")
        for name in list(sheet.tables):
            del sheet.tables[name]
    sheet._cells = {}
    return dropped


def new_cell(sheet: Worksheet, row: int, column: int) -> Cell:
    """A new cell of the emptied sheet (as `sheet.cell` makes it, without its checks)."""
    cell = Cell(sheet, row=row, column=column)
    sheet._cells[(row, column)] = cell
    return cell


def copy_cell(source: OldCell, target: Cell) -> None:
    """Give `target` the value (a formula stays one), style, hyperlink and comment of `source`."""
    if isinstance(source, MergedCell):
        return  # the rest of a merged range: its value and style are in its first cell
    target.value = source.value
    target.data_type = source.data_type  # a text starting with "=" stays text
    if source.has_style:
        share_style(target, source._style)  # type: ignore[attr-defined]
    if source.hyperlink is not None:
        target.hyperlink = copy(source.hyperlink)
    carry_comment(source, target)


def carry_comment(source: OldCell | None, target: Cell) -> None:
    """Move a comment the person wrote on a cell to where that cell is now."""
    if source is not None and source.comment is not None:
        target.comment = copy(source.comment)  # a copy is not bound to the old cell


def share_style(cell: object, style: object) -> None:
    """Give `cell` a copy of the `StyleArray` `style`."""
    # A cell keeps its style as a `StyleArray` in `_style` (not in openpyxl's type stubs); a copy
    # of one is how openpyxl itself gives cells the same style.
    cell._style = copy(style)  # type: ignore[attr-defined]


def carry_columns(sheet: Worksheet, slots: list[Slot]) -> None:
    """Give each column of the new layout the format its column had (widths of a tracker column
    the sheet lacked from `COLUMNS`); the rest of the old formats go."""
    covering: dict[int, ColumnDimension] = {}
    for dim in sheet.column_dimensions.values():
        dim.reindex()
        for index in range(dim.min or 0, (dim.max or 0) + 1):
            covering[index] = dim
    sheet.column_dimensions.clear()
    for position, slot in enumerate(slots, start=1):
        letter = get_column_letter(position)
        old = covering.get(slot.source) if slot.source is not None else None
        if old is None:
            if slot.column is not None:
                sheet.column_dimensions[letter] = ColumnDimension(
                    sheet, index=letter, width=slot.column.width, min=position, max=position
                )
            continue
        new = ColumnDimension(
            sheet,
            index=letter,
            width=old.width,
            bestFit=old.bestFit,
            hidden=old.hidden,
            outlineLevel=old.outlineLevel,
            collapsed=old.collapsed,
            min=position,
            max=position,
        )
        if old.has_style:
            share_style(new, old._style)  # type: ignore[attr-defined]
        sheet.column_dimensions[letter] = new


def carry_rows(sheet: Worksheet, sources: list[int | None]) -> None:
    """Give row n + 1 the height, hidden flag and style of old row `sources[n]` (the header first)."""
    old = dict(sheet.row_dimensions)
    sheet.row_dimensions.clear()
    for number, source in enumerate(sources, start=1):
        dim = old.get(source) if source is not None else None
        if dim is None:
            continue
        new = RowDimension(
            sheet,
            index=number,
            ht=dim.ht,
            hidden=dim.hidden,
            outlineLevel=dim.outlineLevel,
            collapsed=dim.collapsed,
            thickBot=dim.thickBot,
            thickTop=dim.thickTop,
        )
        if dim.has_style:
            share_style(new, dim._style)  # type: ignore[attr-defined]
        sheet.row_dimensions[number] = new
