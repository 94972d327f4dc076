"""The Tracker sheet as the person left it, and the layout of the one rendered over it.

The tracker owns its headers (`sheet.OWNED_HEADERS`: those it writes and those it once wrote);
every other column of the Tracker sheet is the person's, and so is every other sheet. A render
keeps the sheet's column order (a tracker column it lacks goes after its neighbour in `COLUMNS`)
and its row order: rows are matched by ID, new listings go on top, and a row whose ID the
tracker does not know (one the person added, an ID they changed) stays as they left it. Only a
second row with the same ID is left out, and said (the caller keeps a copy of the file first).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.worksheet.worksheet import Worksheet

from jobsearch.store import TrackerRow
from jobsearch.tracker.cells import is_escaped
from jobsearch.tracker.sheet import BY_HEADER, COLUMNS, FORMER_HEADERS, Column

OldCell = Cell | MergedCell


@dataclass(frozen=True, slots=True)
class Slot:
    """One column of the sheet to write: the tracker's `column`, or the person's (None); and
    `source`, its index in the old sheet (1-based; None for a tracker column it lacked)."""

    column: Column | None
    source: int | None


@dataclass(slots=True)
class OldRow:
    """A data row of the old sheet: its number there, its ID ("" if none), its cells by column."""

    number: int
    listing_id: str
    cells: dict[int, OldCell] = field(default_factory=dict)

    def has_content(self) -> bool:
        """Whether any cell holds something (an empty row is not kept)."""
        return any(cell.value not in (None, "") for cell in self.cells.values())


@dataclass(slots=True)
class OldSheet:
    """The old sheet's header (column index to text), its columns' slots and its data rows."""

    header: dict[int, str]
    header_cells: dict[int, OldCell]
    slots: list[Slot]
    rows: list[OldRow]


@dataclass(frozen=True, slots=True)
class PlannedRow:
    """A row of the sheet to write: a listing (with its old cells, None for a new listing), or a
    row the tracker does not know (`listing` None), kept as it was."""

    listing: TrackerRow | None
    old: OldRow | None


def listing_id_of(value: object) -> str:
    """The listing ID an ID cell holds (an ID starting with "-" was written with an apostrophe)."""
    text = "" if value is None else str(value).strip()
    return text[1:] if is_escaped(text) else text


def read_old(sheet: Worksheet) -> OldSheet:
    """The Tracker sheet as it is (an empty one for a new tracker)."""
    by_row: dict[int, dict[int, OldCell]] = {}
    # Every cell the sheet holds, values and styles alike, without making the empty ones that
    # iterating by rows and columns would.
    for (row, column), cell in sheet._cells.items():
        by_row.setdefault(row, {})[column] = cell
    header_cells = by_row.pop(1, {})
    width = max((column for cells in by_row.values() for column in cells), default=0)
    width = max([width, *header_cells])
    header = {i: _header_text(header_cells.get(i)) for i in range(1, width + 1)}
    slots = plan_columns(header)
    id_column = next((s.source for s in slots if s.column is not None and s.column.header == "ID"), None)
    rows = []
    for number in sorted(by_row):
        cells = by_row[number]
        id_cell = cells.get(id_column) if id_column is not None else None
        listing_id = listing_id_of(id_cell.value if id_cell is not None else None)
        rows.append(OldRow(number=number, listing_id=listing_id, cells=cells))
    return OldSheet(header=header, header_cells=header_cells, slots=slots, rows=rows)


def _header_text(cell: OldCell | None) -> str:
    return "" if cell is None or cell.value is None else str(cell.value).strip()


def plan_columns(header: dict[int, str]) -> list[Slot]:
    """The columns to write, from the old header: its order kept, a former tracker header under
    its new name (a dropped one left out), a second column of one header the person's, and each
    tracker column it lacks inserted after the nearest one before it in `COLUMNS`."""
    slots: list[Slot] = []
    placed: set[str] = set()
    for index in sorted(header):
        name = header[index]
        if name in FORMER_HEADERS:
            renamed = FORMER_HEADERS[name]
            if renamed is None:
                continue  # a column the tracker wrote and no longer writes: its own output
            name = renamed
        if name in BY_HEADER and name not in placed:
            slots.append(Slot(BY_HEADER[name], index))
            placed.add(name)
        else:
            slots.append(Slot(None, index))
    order = {column.header: n for n, column in enumerate(COLUMNS)}
    for n, column in enumerate(COLUMNS):
        if column.header in placed:
            continue
        at = 0
        for i, slot in enumerate(slots):
            if slot.column is not None and order[slot.column.header] < n:
                at = i + 1
        slots.insert(at, Slot(column, None))
        placed.add(column.header)
    return slots


def plan_rows(old: OldSheet, rows: list[TrackerRow]) -> tuple[list[PlannedRow], list[str]]:
    """The rows to write and what was left out, in words.

    The old sheet's rows keep their order (the person may have sorted them); listings it lacks
    go on top, in `rows`' order (newest found first). A row the tracker does not know stays as it
    was; an empty row goes; a second row with an ID already placed is left out and named.
    """
    by_id = {row.listing_id: row for row in rows}
    first: dict[str, int] = {}
    kept: list[PlannedRow] = []
    dropped: list[str] = []
    for old_row in old.rows:
        if not old_row.has_content():
            continue
        listing = by_id.get(old_row.listing_id)
        if listing is None:
            kept.append(PlannedRow(listing=None, old=old_row))
        elif old_row.listing_id in first:
            dropped.append(
                f"row {old_row.number} repeated ID {old_row.listing_id!r} of row "
                f"{first[old_row.listing_id]}; left it out"
            )
        else:
            first[old_row.listing_id] = old_row.number
            kept.append(PlannedRow(listing=listing, old=old_row))
    new = [PlannedRow(listing=row, old=None) for row in rows if row.listing_id not in first]
    return new + kept, dropped
