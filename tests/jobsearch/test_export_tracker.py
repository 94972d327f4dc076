"""The tracker: rendered from SQLite, the person's edits read back, locks respected, no formulas."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from openpyxl import load_workbook

import jobsearch.tracker as tracker_module
from jobsearch.fit import Fit, Reason
from jobsearch.jobs import STEPS, Draft
from jobsearch.store import Store
from jobsearch.tracker import TrackerChanged, TrackerLocked, export_csv, export_tracker
from jobsearch.tracker.cells import CELL_LIMIT, safe_text
from tests.jobsearch.export_support import drafts, edit_cells, listing, sheet_rows


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh store in a temp file."""
    with Store.open(tmp_path / "jobsearch.sqlite") as opened:
        yield opened


@pytest.fixture
def tracker(tmp_path: Path) -> Path:
    """Where the tracker goes."""
    return tmp_path / "out" / "tracker.xlsx"


def test_tracker_has_the_layout(store: Store, tracker: Path) -> None:
    """One row per listing; frozen header, filters, widths, wrapped text, real dates, a hyperlink,
    and the status drop-down."""
    for n in (1, 2, 3):
        store.record_export(run_id="r1", job_id=f"j{n}", listing=listing(n), drafts=drafts())
    report = export_tracker(store, tracker)
    assert report.rows == 3
    sheet = load_workbook(tracker)["Tracker"]
    header = [cell.value for cell in sheet[1]]
    assert header == [
        "ID", "Company", "Role", "Fit", "Why", "Location", "Remote", "Salary", "Sources", "URL",
        "Posted", "Found", "Updated", "Status", "Closed", "Review", "Cover letter",
        "Connection note", "Provider/model", "Notes",
    ]  # fmt: skip
    assert sheet.freeze_panes == "A2"
    assert sheet.auto_filter.ref == "A1:T4"
    assert sheet.column_dimensions["Q"].width == 70
    row = {name: sheet.cell(row=2, column=i + 1) for i, name in enumerate(header)}
    assert row["Posted"].is_date
    assert row["Found"].is_date
    assert row["URL"].hyperlink.target == row["URL"].value
    assert row["Cover letter"].alignment.wrap_text
    assert row["Salary"].value == "€70k–90k / year"  # noqa: RUF001 - the en dash is what it writes
    assert row["Status"].value == "Drafted"
    [validation] = sheet.data_validations.dataValidation
    statuses = "Saved,Drafted,Applied,Screen,Interview,Offer,Rejected,Withdrawn,Dismissed"
    assert validation.formula1 == f'"{statuses}"'
    assert "N2" in validation.sqref


def test_a_fresh_tracker_is_sorted_by_fit_with_its_reasons(store: Store, tracker: Path) -> None:
    """Each listing's fit (a number) and its largest reasons (Why) are in the sheet and the CSV; a
    fresh tracker puts the best fit first, unscored listings last."""
    fits = {
        1: None,
        2: Fit(score=91, reasons=[Reason(points=25, text="the title is your role")]),
        3: Fit(score=40),
    }
    for n, fit in fits.items():
        store.record_export(run_id="r1", job_id=f"j{n}", listing=listing(n), drafts=drafts(), fit=fit)
    export_tracker(store, tracker)
    rows = sheet_rows(tracker)
    assert [row["Fit"] for row in rows] == [91, 40, None]
    assert rows[0]["Why"] == "the title is your role (+25)"
    export_csv(store, tracker.with_suffix(".csv"))
    text = tracker.with_suffix(".csv").read_text(encoding="utf-8-sig")
    assert "91,the title is your role (+25)" in text


def test_edits_in_the_sheet_survive_a_re_export(store: Store, tracker: Path) -> None:
    """Status and notes typed into the tracker are read into SQLite before the next render."""
    for n in (1, 2):
        store.record_export(run_id="r1", job_id=f"j{n}", listing=listing(n), drafts=drafts())
    export_tracker(store, tracker)
    edit_cells(tracker, {"L00001": {"Status": "Applied", "Notes": "Sent on Monday"}})
    store.record_export(run_id="r2", job_id="j3", listing=listing(3), drafts=drafts())
    report = export_tracker(store, tracker)
    assert report.edits_applied == 2
    assert report.conflicts == []
    rows = {row["ID"]: row for row in sheet_rows(tracker)}
    assert rows["L00001"]["Status"] == "Applied"
    assert rows["L00001"]["Notes"] == "Sent on Monday"
    assert rows["L00002"]["Status"] == "Drafted"
    assert len(rows) == 3
    assert [h["source"] for h in store.status_history("L00001")][-1] == "tracker"
    # A third export with no edits changes nothing.
    assert export_tracker(store, tracker).edits_applied == 0


def test_a_conflict_keeps_both_and_says_so(store: Store, tracker: Path) -> None:
    """Changed in the sheet and by `mark` since the last export: both kept, a conflict reported."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    export_tracker(store, tracker)
    edit_cells(tracker, {"L00001": {"Status": "Interview", "Notes": "from the sheet"}})
    store.set_status("L00001", "Rejected", source="mark")
    store.set_notes("L00001", "from the database", source="mark")
    report = export_tracker(store, tracker)
    assert {conflict.field for conflict in report.conflicts} == {"status", "notes"}
    [row] = sheet_rows(tracker)
    notes = str(row["Notes"])
    assert "from the sheet" in notes
    assert "from the database" in notes
    assert "status was Interview in the tracker and Rejected in the database" in notes
    assert row["Status"] in {"Interview", "Rejected"}
    count = store.conn.execute("SELECT count(*) FROM conflicts").fetchone()[0]
    assert count == 2


def test_an_invalid_status_in_the_sheet_is_reported_not_taken(store: Store, tracker: Path) -> None:
    """A status typed outside the vocabulary (pasted past the drop-down) is reported and ignored;
    a different case of a valid one is understood."""
    for n in (1, 2):
        store.record_export(run_id="r1", job_id=f"j{n}", listing=listing(n), drafts=drafts())
    export_tracker(store, tracker)
    edit_cells(tracker, {"L00001": {"Status": "Aplied"}, "L00002": {"Status": "offer"}})
    report = export_tracker(store, tracker)
    assert any("'Aplied' is not one of" in problem for problem in report.problems)
    rows = {row["ID"]: row for row in sheet_rows(tracker)}
    assert rows["L00001"]["Status"] == "Drafted"
    assert rows["L00002"]["Status"] == "Offer"


INJECTIONS = [
    "=cmd|' /C calc'!A0",
    "+1",
    "-1+1",
    "@SUM(1)",
    "\t=1+1",
    "\r=1+1",
    "\uff1d1+1",
    "\uff0b1",
    "\uff0d1",
    "\uff20SUM(1)",
    '=HYPERLINK("http://evil.example/","x")',
    "\x00=1+1",
    "=",
]


def test_formula_injection_corpus_yields_no_formula_cells(store: Store, tracker: Path) -> None:
    """Every text field carrying a formula opener is written as text: 0 formula cells."""
    for n, text in enumerate(INJECTIONS, start=1):
        store.record_export(
            run_id="r1",
            job_id=f"j{n}",
            listing=listing(
                n,
                title=text,
                company=text,
                url=text,
                locations=[text],
                description=text,
                sources=[
                    listing(n).sources[0].__class__(board="sample", source=text, external_id="x", url=text)
                ],
            ),
            drafts=[Draft(step=step, text=text, provider=text, model=text) for step in STEPS],
        )
        store.set_notes(f"L{n:05d}", text, source="mark")
    export_tracker(store, tracker)
    book = load_workbook(tracker)
    sheet = book["Tracker"]
    cells = [cell for row in sheet.iter_rows() for cell in row]
    assert cells
    assert [cell.coordinate for cell in cells if cell.data_type == "f"] == []
    for cell in cells:
        if isinstance(cell.value, str) and cell.row > 1:
            assert cell.value[0] not in "=+-@\t\r\uff1d\uff0b\uff0d\uff20", cell.coordinate
    # The text is still there, escaped with a visible apostrophe.
    titles = [str(sheet.cell(row=r, column=3).value) for r in range(2, sheet.max_row + 1)]
    assert "'=cmd|' /C calc'!A0" in titles
    # The tracker reads back without mistaking the escapes for edits.
    assert export_tracker(store, tracker).edits_applied == 0


def test_drafts_with_formulas_are_text_too(store: Store, tracker: Path) -> None:
    """A provider's output is as untrusted as scraped text: a draft starting with = stays text."""
    bad = [d.__class__(step=d.step, text="=1+1", provider="p", model="m") for d in drafts()]
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=bad)
    export_tracker(store, tracker)
    sheet = load_workbook(tracker)["Tracker"]
    assert all(cell.data_type != "f" for row in sheet.iter_rows() for cell in row)


def test_control_characters_are_stripped(store: Store, tracker: Path) -> None:
    """Characters XML cannot carry (and other controls) are removed; tabs and newlines inside stay."""
    text = "Eng\x00ine\x07er\x1b[31m\x7f\x85 line\ttab\nnext\uffff"
    store.record_export(run_id="r1", job_id="j1", listing=listing(1, title=text, company=text), drafts=[])
    export_tracker(store, tracker)
    [row] = sheet_rows(tracker)
    assert row["Role"] == "Engineer[31m line\ttab\nnext"


def test_safe_text_strips_what_cannot_be_stored() -> None:
    """Lone surrogates and XML non-characters go; a leading CR is escaped, then becomes LF."""
    assert safe_text("a\ud800b\ufffe") == "ab"
    assert safe_text("\r=1") == "'\n=1"
    assert safe_text("plain - text") == "plain - text"


def test_a_40000_character_text_is_cut_with_a_marker(store: Store, tracker: Path) -> None:
    """A cell longer than Excel's 32,767 characters is cut there, and says so; SQLite keeps all."""
    long_text = "x" * 40_000
    draft = drafts()[0].__class__(step="cover_letter", text=long_text, provider="p", model="m")
    store.record_export(run_id="r1", job_id="j1", listing=listing(1, description=long_text), drafts=[draft])
    store.set_notes("L00001", "n" * 40_000, source="mark")
    export_tracker(store, tracker)
    [row] = sheet_rows(tracker)
    letter = str(row["Cover letter"])
    assert len(letter) == CELL_LIMIT
    assert letter.endswith("40,000 characters in all; the full text is in the database]")
    stored = store.conn.execute("SELECT length(text) FROM drafts").fetchone()[0]
    assert stored == 40_000
    # The cut notes cell is not mistaken for an edit that would cut the notes in SQLite.
    export_tracker(store, tracker)
    assert store.conn.execute("SELECT length(notes) FROM listings").fetchone()[0] == 40_000


@pytest.mark.parametrize("lock_name", ["~$tracker.xlsx", ".~lock.tracker.xlsx#"])
def test_a_locked_tracker_is_reported_and_left_alone(store: Store, tracker: Path, lock_name: str) -> None:
    """With Excel's or LibreOffice's lock file beside it, the tracker is not touched and the error
    says why; once the lock goes, the export goes through."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    export_tracker(store, tracker)
    before = tracker.read_bytes()
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=drafts())
    (tracker.parent / lock_name).write_text("someone")
    with pytest.raises(TrackerLocked, match="open in a spreadsheet program"):
        export_tracker(store, tracker)
    assert tracker.read_bytes() == before
    assert sorted(p.name for p in tracker.parent.iterdir() if p.name.endswith(".tmp")) == []
    (tracker.parent / lock_name).unlink()
    assert export_tracker(store, tracker).rows == 2


def test_a_refused_rename_is_reported_as_locked(
    store: Store, tracker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system refuses to replace an open file (as Windows does), the error says locked
    and the old tracker stays whole."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    export_tracker(store, tracker)
    before = tracker.read_bytes()

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(TrackerLocked, match="rename was refused"):
        export_tracker(store, tracker)
    assert tracker.read_bytes() == before


def test_a_save_during_the_render_is_not_overwritten(
    store: Store, tracker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the person saves the tracker while it renders, the export reads it again instead of
    replacing their save; it gives up (TrackerChanged) only if that keeps happening."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    export_tracker(store, tracker)
    real_render = tracker_module.render

    def render_while_saving(rows: list, path: Path) -> list[str]:
        os.utime(tracker, ns=(1, tracker.stat().st_mtime_ns + 1_000_000))
        return real_render(rows, path)

    monkeypatch.setattr(tracker_module, "render", render_while_saving)
    with pytest.raises(TrackerChanged):
        export_tracker(store, tracker)


def test_an_unreadable_tracker_is_kept_aside(store: Store, tracker: Path) -> None:
    """A tracker that is not a readable xlsx is renamed, never overwritten, and reported."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    tracker.parent.mkdir(parents=True)
    tracker.write_bytes(b"not a zip")
    report = export_tracker(store, tracker)
    assert report.kept_aside is not None
    assert Path(report.kept_aside).read_bytes() == b"not a zip"
    assert report.rows == 1


def test_csv_export_is_formula_safe(store: Store, tmp_path: Path) -> None:
    """`export --csv`: the same columns, dates as ISO text, formula openers escaped."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1, title="=1+1"), drafts=drafts())
    path = tmp_path / "tracker.csv"
    assert export_csv(store, path) == 1
    header, row = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines(keepends=True)))
    assert header[:3] == ["ID", "Company", "Role"]
    cells = dict(zip(header, row, strict=True))
    assert cells["Role"] == "'=1+1"
    assert cells["Posted"] == "2026-11-20"
    assert cells["Sources"].splitlines()[0] == "1 posting"
