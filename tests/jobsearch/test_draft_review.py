"""Where a person sees that a draft needs review, or could not be written: the state of record's
Review text, the tracker's Review column (highlighted), the CSV, `jobsearch status`, the run's
numbers; and what a failed draft leaves owed. Real SQLite, real xlsx files read back."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openpyxl import load_workbook

from jobsearch.dedupe.store import SeenSet
from jobsearch.jobs import Check, Draft, DraftIssue
from jobsearch.profile import Search
from jobsearch.store import Store
from jobsearch.tracker import export_tracker, write_csv
from tests.jobsearch.export_support import drafts, edit_cells, listing, sheet_rows
from tests.jobsearch.test_dedupe_match import posting

FABRICATED = [
    Check(name="length", passed=True),
    Check(name="employment", passed=False, detail="employer 'Initech Labs' is not in your profile"),
    Check(
        name="links",
        passed=False,
        detail="link example.net/portfolio is in neither your profile nor the listing",
    ),
]


def review_drafts(provider: str = "openai") -> list[Draft]:
    """A cover letter that failed two checks twice, and a note that passed."""
    letter, note = drafts(provider, "gpt-x")
    return [
        Draft(
            step="cover_letter",
            text=letter.text,
            provider=provider,
            model="gpt-x",
            status="needs_review",
            checks=FABRICATED,
        ),
        note,
    ]


OUTAGE = DraftIssue(kind="failed", reason="openai: HTTP 500: internal error (2 requests)", attempts=5)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "jobsearch.sqlite") as opened:
        yield opened


def test_review_text_names_each_failed_check_and_why_there_is_no_draft(store: Store) -> None:
    """Empty for drafts that passed; the failed checks in words, by step; or the draft's failure."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=review_drafts())
    store.record_export(run_id="r1", job_id="j3", listing=listing(3), drafts=[], issue=OUTAGE)
    rows = {row.listing_id: row for row in store.tracker_rows()}
    assert rows["L00001"].review == ""
    assert rows["L00002"].review == (
        "cover letter: employer 'Initech Labs' is not in your profile; "
        "link example.net/portfolio is in neither your profile nor the listing"
    )
    assert rows["L00003"].review == (
        "draft failed after 5 attempts: openai: HTTP 500: internal error (2 requests) (the next run retries)"
    )
    assert rows["L00003"].status == "Saved"
    assert store.listing("L00003").review == rows["L00003"].review


def test_a_failed_draft_is_owed_until_a_draft_is_recorded(store: Store) -> None:
    """The failure is recorded and owed; a later draft clears it; a listing the person moved past
    Saved is never owed; a late failure report never hides drafts the listing has."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[], issue=OUTAGE)
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=[], issue=OUTAGE)
    store.set_status("L00002", "Applied", source="ui")
    assert [item.id for item in store.owed_drafts()] == ["L00001"]
    assert [item.id for item in store.owed_drafts(missing=True)] == ["L00001"]

    store.record_export(run_id="r2", job_id="j3", listing=listing(1), drafts=drafts())
    assert store.owed_drafts() == []
    assert {row.listing_id: row.review for row in store.tracker_rows()}["L00001"] == ""
    assert {row.listing_id: row.status for row in store.tracker_rows()}["L00001"] == "Drafted"
    # An attempt that lost reports its failure after the drafts landed: the drafts stand.
    store.record_export(run_id="r2", job_id="j4", listing=listing(1), drafts=[], issue=OUTAGE)
    assert store.owed_drafts() == []
    assert not store.record_draft_issue("L00001", OUTAGE, run_id="r2", job_id="x")
    assert not store.record_draft_issue("L09999", OUTAGE, run_id="r2", job_id="x")


def test_the_tracker_highlights_a_row_that_needs_review(store: Store, tmp_path: Path) -> None:
    """The Review cell says why in bold red, the row is tinted, the draft cells more strongly; a
    row that passed has no fill."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=review_drafts())
    path = tmp_path / "tracker.xlsx"
    export_tracker(store, path)
    sheet = load_workbook(path)["Tracker"]
    header = [cell.value for cell in sheet[1]]
    cells = {
        str(row[0].value): {name: row[i] for i, name in enumerate(header)}
        for row in sheet.iter_rows(min_row=2)
    }
    flagged, fine = cells["L00002"], cells["L00001"]
    assert "Initech Labs" in str(flagged["Review"].value)
    assert flagged["Review"].font.bold
    assert flagged["Review"].font.color.rgb.endswith("C00000")
    row_fill = flagged["Company"].fill.fgColor.rgb
    draft_fill = flagged["Cover letter"].fill.fgColor.rgb
    assert flagged["Company"].fill.fill_type == "solid"
    assert row_fill.endswith("FFF2CC")
    assert draft_fill.endswith("F8CBAD")
    assert draft_fill != row_fill
    assert flagged["URL"].hyperlink is not None
    assert fine["Review"].value in (None, "")
    assert fine["Company"].fill.fill_type is None


def test_the_csv_carries_the_review_column(store: Store) -> None:
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=review_drafts())
    store.record_export(run_id="r1", job_id="j3", listing=listing(3), drafts=[], issue=OUTAGE)
    out = io.StringIO(newline="")
    write_csv(store.tracker_rows(), out)
    rows = {row["ID"]: row for row in csv.DictReader(io.StringIO(out.getvalue()))}
    assert rows["L00002"]["Review"].startswith("cover letter: employer 'Initech Labs'")
    assert rows["L00003"]["Review"].startswith("draft failed after 5 attempts: openai: HTTP 500")


def test_a_fallback_is_named_in_the_provider_cell_and_the_run_numbers(store: Store) -> None:
    """`offline/template-v2 (after openai failed: ...)`; the run counts drafts needing review per
    provider, the fallbacks used and the listings it could not draft."""
    fell = [
        Draft(
            step=d.step,
            text=d.text,
            provider="offline",
            model="template-v2",
            fell_over=["openai failed: HTTP 500: internal error (2 requests)"],
        )
        for d in drafts()
    ]
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=fell)
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=review_drafts())
    store.record_export(run_id="r1", job_id="j3", listing=listing(3), drafts=[], issue=OUTAGE)
    rows = {row.listing_id: row for row in store.tracker_rows()}
    assert rows["L00001"].provider_model == (
        "offline/template-v2 (after openai failed: HTTP 500: internal error (2 requests))"
    )
    numbers = store.run_numbers("r1")
    assert numbers.needs_review == 1
    assert {u.provider: u.needs_review for u in numbers.drafts} == {"offline": 0, "openai": 1}
    assert numbers.drafted_listings == 2
    [fallback] = numbers.fallbacks
    assert (fallback.provider, fallback.drafts) == ("offline", 2)
    assert fallback.after == "openai failed: HTTP 500: internal error (2 requests)"
    assert numbers.draft_issues == {"failed": 1}


def test_a_notes_formula_is_kept_as_text_and_reported(store: Store, tmp_path: Path) -> None:
    """A Notes cell that holds a formula: its text is kept (written back as text), and the export
    says so; it is never read as empty."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    path = tmp_path / "tracker.xlsx"
    export_tracker(store, path)
    edit_cells(path, {"L00001": {"Notes": '=HYPERLINK("https://example.org","call back")'}})
    report = export_tracker(store, path)
    assert store.listing("L00001").notes == '=HYPERLINK("https://example.org","call back")'
    assert any("held a formula" in problem for problem in report.problems), report.problems
    [row] = sheet_rows(path)
    assert row["Notes"] == '\'=HYPERLINK("https://example.org","call back")'
    assert load_workbook(path)["Tracker"]["Q2"].data_type == "s"


def test_status_counts_drafts_that_need_review_by_provider(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=review_drafts("openai"))
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=review_drafts("anthropic"))
    store.record_export(run_id="r1", job_id="j3", listing=listing(3), drafts=review_drafts("openai"))
    store.record_export(run_id="r1", job_id="j4", listing=listing(4), drafts=[], issue=OUTAGE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBSEARCH_")}
    env["JOBSEARCH_DATA_DIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "status"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "drafts that need review: 3 (openai 2, anthropic 1)" in result.stdout
    assert "listings not drafted yet: 1 (failed 1)" in result.stdout


def test_listings_into_a_closed_pipe_end_quietly(tmp_path: Path) -> None:
    """`jobsearch listings | head -1`: no BrokenPipe traceback, the status a shell expects."""
    seen = SeenSet(tmp_path / "jobsearch.sqlite")
    # More than a pipe buffer holds, so the writer meets the closed end.
    for n in range(1500):
        seen.record(posting(str(n), f"Engineer {n}", company=f"Company {n}"), Search(), "r")
    seen.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBSEARCH_")}
    env["JOBSEARCH_DATA_DIR"] = str(tmp_path)
    with subprocess.Popen(
        [sys.executable, "-m", "jobsearch.cli", "listings"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()  # the reader goes away, as `head -1` does
        errors = child.stderr.read().decode()
        code = child.wait(timeout=60)
    assert first
    assert "Traceback" not in errors, errors
    assert "BrokenPipe" not in errors, errors
    assert code == 141
