"""Listings, drafts and trackers for the export tests (made here: no network, no other stage)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from openpyxl import load_workbook

from jobsearch.jobs import Check, Draft
from jobsearch.listing import MergedListing, Salary, SourceRef
from jobsearch.store import Store


def listing(n: int = 1, **changes: object) -> MergedListing:
    """A merged listing with every field filled; `changes` overrides any of them."""
    fields: dict[str, object] = {
        "id": f"L{n:05d}",
        "title": f"Backend Engineer {n}",
        "company": f"Example Co {n}",
        "url": f"https://jobs.example.com/{n}",
        "locations": ["Berlin", "Remote (EU)"],
        "remote": True,
        "salary": Salary(min=70_000, max=90_000, currency="EUR", interval="year"),
        "posted_at": date(2026, 11, 20),
        "description": "Build and run services.",
        "sources": [
            SourceRef(
                board="sample", source="sample", external_id=str(n), url=f"https://jobs.example.com/{n}"
            )
        ],
        "first_seen": datetime(2026, 11, 29, 9, 0, tzinfo=UTC),
    }
    fields.update(changes)
    return MergedListing(**fields)  # type: ignore[arg-type]


def drafts(provider: str = "offline", model: str = "template-1") -> list[Draft]:
    """A cover letter and a connection note, as the draft stage hands them on."""
    return [
        Draft(
            step="cover_letter",
            text="Dear team,\nI would like to join.",
            provider=provider,
            model=model,
            tokens_in=120,
            tokens_out=80,
            cost_usd=0.0012,
            checks=[Check(name="length", passed=True)],
        ),
        Draft(step="connection_note", text="Hello, I applied.", provider=provider, model=model, tokens_in=40),
    ]


def sheet_rows(path: Path) -> list[dict[str, object]]:
    """The tracker's data rows as {header: value}."""
    book = load_workbook(path)
    sheet = book["Tracker"]
    rows = list(sheet.iter_rows(values_only=True))
    header = [str(value) for value in rows[0]]
    return [dict(zip(header, values, strict=False)) for values in rows[1:]]


def edit_cells(path: Path, edits: dict[str, dict[str, str]]) -> None:
    """Change cells as a person would in a spreadsheet program: {listing id: {header: text}}."""
    book = load_workbook(path)
    sheet = book["Tracker"]
    header = [cell.value for cell in sheet[1]]
    for row in sheet.iter_rows(min_row=2):
        listing_id = row[header.index("ID")].value
        for name, text in edits.get(str(listing_id), {}).items():
            row[header.index(name)].value = text
    book.save(path)


def exported_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listings: list[MergedListing], summary: dict[str, int]
) -> Path:
    """`tmp_path` as JOBSEARCH_DATA_DIR (no other path variable set), holding one finished run
    `r1` that exported `listings` with drafts."""
    for name in ("JOBSEARCH_DB", "JOBSEARCH_TRACKER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path))
    with Store.open(tmp_path / "jobsearch.sqlite") as store:
        store.start_run("r1", profile="p.toml")
        for n, item in enumerate(listings, 1):
            store.record_export(run_id="r1", job_id=f"j{n}", listing=item, drafts=drafts())
        store.finish_run("r1", outcome="ok", summary=summary)
    return tmp_path
