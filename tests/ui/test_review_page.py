"""The review page in Chromium, over a real SQLite state of record (and a real nats-server)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NATS
from openpyxl import load_workbook
from playwright.async_api import Page, expect

from jetjobs import App, Settings
from jobsearch import draft as draft_stage
from jobsearch import export as export_stage
from jobsearch.jobs import QUEUES
from jobsearch.listing import SourceRef
from jobsearch.settings import PipelineSettings
from jobsearch.store import Store
from jobsearch.tracker import export_tracker
from tests.support import running_worker
from tests.ui.listings import HOSTILE_COMPANY, HOSTILE_TEXT, HOSTILE_TITLE, drafts, listing, seed
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(90)]

PROFILE = '[person]\nname = "Ada Example"\nskills = ["Python", "NATS"]\n'


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The state of record of one run: three listings with drafts, one of them hostile."""
    path = tmp_path / "jobsearch.sqlite"
    with Store.open(path) as store:
        seed(store)
    return path


def page_args(db_path: Path, *more: str) -> list[str]:
    """`jobsearch ui` on any free port over `db_path`."""
    return ["ui", "--port", "0", "--db", str(db_path), *more]


def tracker_cells(path: Path) -> dict[str, dict[str, Any]]:
    """The tracker's rows by ID, each a {header: value} dict."""
    book = load_workbook(path, read_only=True)
    rows = book.worksheets[0].iter_rows(values_only=True)
    header = [str(v) for v in next(rows)]
    table = {str(r[header.index("ID")]): dict(zip(header, r, strict=False)) for r in rows if r[0]}
    book.close()
    return table


async def test_table_shows_a_runs_rows_filters_and_updates_without_reload(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """The table shows every row the run wrote, new ones marked; it filters and sorts; a row that
    the pipeline writes while the page is open appears without a reload."""
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(url)
        rows = page.locator("#listing-table tbody tr")
        await expect(rows).to_have_count(3)
        await expect(page.locator("tr.new")).to_have_count(3)
        await expect(page.locator('tr[data-listing="L0002"] .badge.review')).to_have_text("needs review")
        await expect(page.locator('tr[data-listing="L0001"] td').nth(10)).to_have_text("drafted")

        await page.locator("select[name=board]").select_option("lever")
        await page.get_by_role("button", name="Filter").click()
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_contain_text("Globex")
        await page.goto(f"{url}?q=robotics")
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_contain_text("Acme Robotics")
        await page.goto(f"{url}?sort=company&dir=asc")
        await expect(rows.first).to_contain_text("=HYPERLINK")  # "=" sorts before letters
        await page.locator('a[data-sort="company"]').click()
        await expect(rows.first).to_contain_text("Globex")

        await page.goto(url)
        await page.evaluate("window.loadedOnce = true")
        with Store.open(db_path) as store:
            store.start_run("run-2", profile="profile.toml")
            store.record_export(run_id="run-2", job_id="run-2-export-0", drafts=drafts("Initrode"),
                                listing=listing(9, title="Data Engineer", company="Initrode"))  # fmt: skip
        row = page.locator('tr[data-listing="L0009"]')
        await expect(row).to_be_visible()
        await expect(row.locator(".badge.new")).to_be_visible()
        await expect(page.locator("tr.new")).to_have_count(1)  # run-1's rows are no longer new
        assert await page.evaluate("window.loadedOnce") is True, "the page reloaded"
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_edited_draft_status_and_notes_persist_and_reach_the_next_export(
    page: Page, settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    """Saving an edited cover letter, a status and notes writes them to SQLite with their history,
    and the next export's tracker carries them."""
    tracker = tmp_path / "tracker.xlsx"
    with Store.open(db_path) as store:
        # An aggregator's copy merged into L0001 after its draft went out: revision 2.
        first = store.merged_listing("L0001")
        copy = SourceRef(
            board="remoteok", source="remoteok", external_id="9", url="https://remoteok.example/9"
        )
        later = msgspec.structs.replace(
            first,
            sources=[*first.sources, copy],
            revision=first.revision + 1,
            updated_at=datetime(2026, 11, 30, 7, 0, tzinfo=UTC),
        )
        store.record_export(run_id="run-2", job_id="merge-1", listing=later, drafts=[])
        export_tracker(store, tracker)  # the tracker as the run left it
    edited = "Dear Acme Robotics team,\n\nEdited by hand: I have run NATS in production.\n\nAda"
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(f"{url}listings/L0001")
        await expect(page.locator("#title")).to_contain_text("Platform Engineer")
        # The pay with its interval, every posting of the listing, and when one last joined it.
        await expect(page.locator("#salary")).to_have_text("€90k–120k / year")  # noqa: RUF001
        await expect(page.locator("#sources")).to_contain_text("2 postings")
        await expect(page.locator("#sources")).to_contain_text("remoteok (remoteok)")
        await expect(page.locator("#updated")).to_have_text("updated 2026-11-30")
        await page.locator("#text-cover_letter").fill(edited)
        await page.locator("#save-cover_letter").click()
        await expect(page.locator("#saved")).to_have_text("cover letter saved")
        await expect(page.locator("#text-cover_letter")).to_have_value(edited)

        await page.locator("#status").select_option("Applied")
        await page.locator("#save-status").click()
        await expect(page.locator("#saved")).to_have_text("status Drafted → Applied")
        await page.locator("#notes").fill("Referred by Grace.")
        await page.locator("#save-notes").click()
        await expect(page.locator("#saved")).to_have_text("notes saved")
        await expect(page.locator("#status-history")).to_contain_text("Applied (ui)")

        await page.reload()
        await expect(page.locator("#text-cover_letter")).to_have_value(edited)
        await expect(page.locator("#status")).to_have_value("Applied")
        await expect(page.locator("#notes")).to_have_value("Referred by Grace.")

    with Store.open(db_path) as store:
        history = [d for d in store.draft_history("L0001") if d.step == "cover_letter"]
        assert [d.origin for d in history] == ["pipeline", "edit"]
        assert [h["source"] for h in store.status_history("L0001")] == ["pipeline", "ui"]
        export_tracker(store, tracker)
    row = tracker_cells(tracker)["L0001"]
    assert row["Status"] == "Applied"
    assert row["Cover letter"] == edited
    assert row["Notes"] == "Referred by Grace."


async def test_hostile_listing_renders_as_text_and_runs_no_script(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """A listing whose title is a <script>, whose company is a formula, whose text holds markup and
    whose URL is `javascript:` shows all of it as text: no dialog opens, no element is injected,
    and no link to the javascript: URL exists. The copy button copies the draft as text."""
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        await page.goto(url)
        row = page.locator('tr[data-listing="L0003"]')
        await expect(row.locator("a.title")).to_have_text(HOSTILE_TITLE)
        await expect(row).to_contain_text(HOSTILE_COMPANY)
        await row.locator("a.title").click()
        await expect(page.locator("#title")).to_contain_text(HOSTILE_TITLE)
        assert await page.locator("#posting").inner_text() == HOSTILE_TEXT
        assert await page.locator("main script, main img, #posting a").count() == 0
        assert await page.locator('a[href^="javascript:"]').count() == 0
        assert await page.locator("#open-posting").count() == 0  # only http(s) postings get the button
        # The vendored scripts only: the platform's and the review page's own.
        scripts = await page.evaluate("Array.from(document.scripts, s => new URL(s.src).pathname)")
        assert sorted(scripts) == ["/review-static/review.js", "/static/jetjobs.js"]

        await page.locator("#copy-connection_note").click()
        await expect(page.locator("#copy-connection_note")).to_have_text("Copied")
        copied = await page.evaluate("navigator.clipboard.readText()")
        assert copied == await page.locator("#text-connection_note").input_value()
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_redraft_submits_a_draft_job_and_shows_the_new_draft_when_it_lands(
    page: Page, nc: NATS, settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    """Re-draft with another provider submits a `jobsearch.draft` job through jetjobs pinned to that
    provider; the draft stage writes it, the export stage records it, and the page shows the new
    draft without a reload."""
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE)
    app = App("review-test", builtins=False)
    draft_stage.register(app, env={})  # the offline provider: no key, no network
    export_stage.register(
        app, PipelineSettings(data_dir=tmp_path, db_path=db_path, tracker_path=tmp_path / "t.xlsx")
    )
    with Store.open(db_path) as store:
        before = store.current_drafts("L0002")["cover_letter"]
    assert before.provider != "offline"
    async with (
        running_worker(app, nc, settings, queues=[QUEUES["draft"], QUEUES["export"]]),
        serving("jobsearch.cli", page_args(db_path, "--profile", str(profile)), page_env(settings)) as url,
    ):
        await page.goto(f"{url}listings/L0002")
        await page.locator("#provider").select_option("offline")
        await page.locator("#redraft").click()
        await expect(page.locator("#saved")).to_have_text("re-draft with offline submitted")
        await page.evaluate("window.loadedOnce = true")
        letter = page.locator("#text-cover_letter")
        await expect(page.locator("#drafts h3").first).to_contain_text("offline/", timeout=20_000)
        await expect(letter).not_to_have_value(before.text)
        await expect(letter).to_have_value(re.compile("Globex"))
        await expect(page.locator("#redraft-state")).to_contain_text("Re-draft with offline: landed")
        assert await page.evaluate("window.loadedOnce") is True, "the page reloaded"
    with Store.open(db_path) as store:
        after = store.current_drafts("L0002")["cover_letter"]
    assert after.provider == "offline"
    assert after.run_id is not None
    assert after.run_id.startswith("review-")
    assert await page.locator("#text-cover_letter").input_value() == after.text
