"""The person's own columns and sheets in tracker.xlsx survive every render: values next to the
right listing whatever the rows' order, formatting kept, new listings on top; what cannot be kept
is said, after a copy of the file is written."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from copy import copy
from pathlib import Path

import pytest
from openpyxl import load_workbook
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from jobsearch.store import Store
from jobsearch.tracker import TrackerReport, export_tracker
from jobsearch.tracker.sheet import HEADERS
from tests.jobsearch.export_support import drafts, edit_cells, listing, sheet_rows

YELLOW = "FFFFFF00"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh store in a temp file."""
    with Store.open(tmp_path / "jobsearch.sqlite") as opened:
        yield opened


@pytest.fixture
def tracker(tmp_path: Path) -> Path:
    """Where the tracker goes."""
    return tmp_path / "out" / "tracker.xlsx"


def add(store: Store, *numbers: int) -> None:
    """Record listings `numbers` (with drafts), as a run's export stage does."""
    for n in numbers:
        store.record_export(run_id="r", job_id=f"j{n}", listing=listing(n), drafts=drafts())


def tracker_sheet(path: Path) -> Worksheet:
    """The Tracker sheet of the file at `path`."""
    sheet = load_workbook(path)["Tracker"]
    assert isinstance(sheet, Worksheet)
    return sheet


def header_of(sheet: Worksheet) -> list[str]:
    """The header row's texts."""
    return [str(cell.value) for cell in sheet[1]]


def ids(path: Path) -> list[str]:
    """The ID column, top to bottom."""
    return [str(row["ID"]) for row in sheet_rows(path)]


def sort_rows(sheet: Worksheet, order: list[str]) -> None:
    """Sort the data rows into `order` of IDs, as a spreadsheet program's sort does (values and
    cell styles move with their rows)."""
    at = header_of(sheet).index("ID") + 1
    rows = {
        str(sheet.cell(row=r, column=at).value): [
            (cell.value, copy(cell._style), cell.comment)  # type: ignore[union-attr]
            for cell in sheet[r]
        ]
        for r in range(2, sheet.max_row + 1)
    }
    for r, listing_id in enumerate(order, start=2):
        for c, (value, style, comment) in enumerate(rows[listing_id], start=1):
            cell = sheet.cell(row=r, column=c)
            cell.value = value
            cell._style = style  # type: ignore[union-attr]
            cell.comment = copy(comment) if comment is not None else None


def add_person_parts(path: Path, contacts: dict[str, str], priorities: dict[str, str]) -> None:
    """As a person would: a "Priority" column inserted after Company, a "My contact" column at
    the end (wide, yellow cells, a bold header), and a sheet "MyPlan" with a formula."""
    book = load_workbook(path)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    sheet.insert_cols(3)
    sheet.cell(row=1, column=3, value="Priority")
    end = sheet.max_column + 1
    header = sheet.cell(row=1, column=end, value="My contact")
    header.font = Font(bold=True, italic=True)
    at = header_of(sheet).index("ID") + 1
    for r in range(2, sheet.max_row + 1):
        listing_id = str(sheet.cell(row=r, column=at).value)
        sheet.cell(row=r, column=3, value=priorities.get(listing_id))
        cell = sheet.cell(row=r, column=end, value=contacts.get(listing_id))
        cell.fill = PatternFill("solid", fgColor=YELLOW)
    sheet.column_dimensions[get_column_letter(end)].width = 33
    plan = book.create_sheet("MyPlan")
    plan["A1"] = "Call Ana on Tuesday"
    plan["A2"] = "=COUNTA(Tracker!A:A)-1"
    plan.column_dimensions["A"].width = 50
    book.save(path)


def person_values(path: Path, column: str) -> dict[str, object]:
    """{listing ID: the person's value in `column`} for every row with an ID."""
    return {str(row["ID"]): row[column] for row in sheet_rows(path) if row["ID"]}


def assert_clean(report: TrackerReport) -> None:
    """Nothing was left out, so no copy was needed."""
    assert report.problems == []
    assert report.backup is None


def test_person_columns_and_sheets_survive_several_renders(store: Store, tracker: Path) -> None:
    """Three renders with listings added between them and the rows re-sorted by the person:
    each of their values stays beside its listing, their sort order stays, new listings go on
    top, their column formatting and their sheet (with its formula) stay, their status edit is
    read back."""
    add(store, 1, 2, 3)
    export_tracker(store, tracker)
    add_person_parts(
        tracker,
        contacts={"L00001": "Ana (recruiter)", "L00002": "Ben", "L00003": '=HYPERLINK("mailto:c@x")'},
        priorities={"L00001": "high", "L00003": "low"},
    )
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    sort_rows(sheet, ["L00001", "L00003", "L00002"])
    sheet.cell(row=3, column=header_of(sheet).index("Company") + 1).comment = Comment("met them", "me")
    book.save(tracker)
    edit_cells(tracker, {"L00002": {"Status": "Applied"}})

    add(store, 4)
    report = export_tracker(store, tracker)
    assert_clean(report)
    assert report.edits_applied == 1
    assert report.person_columns == ["Priority", "My contact"]
    assert report.person_sheets == ["MyPlan"]
    assert ids(tracker) == ["L00004", "L00001", "L00003", "L00002"]
    sheet = tracker_sheet(tracker)
    header = header_of(sheet)
    assert header[:3] == ["ID", "Company", "Priority"]
    assert header[-1] == "My contact"
    assert [name for name in header if name not in ("Priority", "My contact")] == list(HEADERS)
    assert person_values(tracker, "My contact") == {
        "L00004": None,
        "L00001": "Ana (recruiter)",
        "L00003": '=HYPERLINK("mailto:c@x")',
        "L00002": "Ben",
    }
    assert person_values(tracker, "Priority") == {
        "L00004": None,
        "L00001": "high",
        "L00003": "low",
        "L00002": None,
    }
    assert {str(row["ID"]): row["Status"] for row in sheet_rows(tracker)}["L00002"] == "Applied"
    # Formatting: the person's column width, cell fills and header font; a formula stays one.
    contact = get_column_letter(len(header))
    assert sheet.column_dimensions[contact].width == 33
    assert sheet[f"{contact}3"].fill.fgColor.rgb == YELLOW
    assert sheet[f"{contact}1"].font.italic
    assert sheet[f"{contact}4"].data_type == "f"
    assert sheet["B4"].comment is not None  # the comment on L00003's Company moved with its row
    assert sheet["B4"].comment.text == "met them"
    assert sheet.auto_filter.ref == f"A1:{contact}5"
    plan = load_workbook(tracker)["MyPlan"]
    assert plan["A1"].value == "Call Ana on Tuesday"
    assert plan["A2"].value == "=COUNTA(Tracker!A:A)-1"
    assert plan.column_dimensions["A"].width == 50

    # The person fills in the new row and sorts again; two more listings arrive.
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    sheet[f"{contact}2"] = "Dee"
    sort_rows(sheet, ["L00002", "L00004", "L00003", "L00001"])
    book.save(tracker)
    add(store, 5, 6)
    assert_clean(export_tracker(store, tracker))
    new = [row.listing_id for row in store.tracker_rows() if row.listing_id in ("L00005", "L00006")]
    assert ids(tracker) == [*new, "L00002", "L00004", "L00003", "L00001"]  # newest found first
    assert person_values(tracker, "My contact") == {
        "L00006": None,
        "L00005": None,
        "L00002": "Ben",
        "L00004": "Dee",
        "L00003": '=HYPERLINK("mailto:c@x")',
        "L00001": "Ana (recruiter)",
    }

    # A render with nothing new changes nothing of the person's.
    before = sheet_rows(tracker)
    report = export_tracker(store, tracker)
    assert_clean(report)
    assert report.edits_applied == 0
    assert sheet_rows(tracker) == before
    assert load_workbook(tracker).sheetnames == ["Tracker", "MyPlan"]


def test_rows_the_tracker_does_not_know_stay(store: Store, tracker: Path) -> None:
    """A row the person typed in (no ID) and one whose ID is not in the database stay as they
    were, where they were; the second is named in the report; nothing needs a copy."""
    add(store, 1, 2)
    export_tracker(store, tracker)
    order = ids(tracker)
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    header = header_of(sheet)
    sheet.append({header.index("Company") + 1: "Found at a meetup", header.index("Notes") + 1: "ask Ana"})
    sheet.append({1: "X999", header.index("Company") + 1: "Typo Co", header.index("Status") + 1: "Applied"})
    book.save(tracker)
    add(store, 3)
    report = export_tracker(store, tracker)
    assert report.problems == ["row 5: ID 'X999' is not in the database; kept the row as it was"]
    assert report.backup is None
    rows = sheet_rows(tracker)
    assert [row["ID"] for row in rows] == ["L00003", *order, None, "X999"]
    assert (rows[3]["Company"], rows[3]["Notes"]) == ("Found at a meetup", "ask Ana")
    assert (rows[4]["Company"], rows[4]["Status"]) == ("Typo Co", "Applied")


def test_an_older_trackers_missing_columns_are_added_beside_their_neighbours(
    store: Store, tracker: Path
) -> None:
    """A tracker from before the Updated and Review columns, with a column of the person's: the
    new columns go after Found and Status, the person's stays with its values."""
    add(store, 1, 2)
    export_tracker(store, tracker)
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    for name in ("Review", "Updated"):
        sheet.delete_cols(header_of(sheet).index(name) + 1)
    sheet.cell(row=1, column=sheet.max_column + 1, value="Referral")
    sheet.cell(row=3, column=sheet.max_column, value="via Ben")
    book.save(tracker)
    second = str(sheet.cell(row=3, column=1).value)
    assert_clean(export_tracker(store, tracker))
    assert header_of(tracker_sheet(tracker)) == [*HEADERS, "Referral"]
    assert person_values(tracker, "Referral")[second] == "via Ben"


def test_a_repeated_row_is_left_out_after_a_copy(store: Store, tracker: Path) -> None:
    """A row copied by the person (its ID twice) cannot be two listings: the second is left out,
    said, and the tracker as it was is copied beside it first."""
    add(store, 1, 2)
    export_tracker(store, tracker)
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    sheet.append([cell.value for cell in sheet[2]])
    book.save(tracker)
    order = ids(tracker)[:2]
    before = tracker.read_bytes()
    report = export_tracker(store, tracker)
    assert report.backup is not None
    assert Path(report.backup).read_bytes() == before
    assert f"row 4 repeated ID {order[0]!r} of row 2; left it out" in report.problems
    assert report.problems[-1] == f"kept a copy of the tracker as it was: {Path(report.backup).name}"
    assert ids(tracker) == order
    # Once left out, the next render has nothing to copy.
    assert_clean(export_tracker(store, tracker))


def test_merged_cells_are_unmerged_after_a_copy(store: Store, tracker: Path) -> None:
    """Merged cells cannot follow rows that move: they are unmerged (the value stays in the
    first cell), said, and the file is copied first."""
    add(store, 1, 2)
    export_tracker(store, tracker)
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    assert isinstance(sheet, Worksheet)
    sheet["R1"] = "Group"
    sheet["R2"] = "shortlist"
    sheet.merge_cells("R2:R3")
    book.save(tracker)
    first = str(sheet["A2"].value)
    report = export_tracker(store, tracker)
    assert report.backup is not None
    assert any("unmerged cells R2:R3 on the Tracker sheet" in problem for problem in report.problems)
    assert tracker_sheet(tracker).merged_cells.ranges == set()
    assert person_values(tracker, "Group")[first] == "shortlist"


def test_a_part_openpyxl_cannot_keep_is_named_and_copied(store: Store, tracker: Path) -> None:
    """A part of the workbook that openpyxl drops on saving (here an image it cannot carry) is
    named in the report, and the file as it was is copied beside it first."""
    add(store, 1)
    export_tracker(store, tracker)
    with zipfile.ZipFile(tracker, "a") as package:
        package.writestr("xl/media/image1.png", b"\x89PNG\r\n\x1a\n")
    before = tracker.read_bytes()
    report = export_tracker(store, tracker)
    assert "the workbook lost 1 of its 1 images: openpyxl cannot keep them" in report.problems
    assert report.backup is not None
    assert Path(report.backup).read_bytes() == before
    with zipfile.ZipFile(report.backup) as package:
        assert "xl/media/image1.png" in package.namelist()
