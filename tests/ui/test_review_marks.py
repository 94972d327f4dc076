"""What the later issues added, on the review page in Chromium, from state that a real export
wrote: fit and its reasons, sort by fit, "Draft this", Closed badges, and needs-review marks with
the checks that failed, in the table and on the listing's page.

The state of record is filled as a run fills it: the export stage (a jetjobs worker on a real
nats-server) records the listings with the fits the local scorer gave them (`jobsearch.fit.score`
on a real profile), the drafts the draft stage wrote (one failing a check, one listing whose
drafting failed), and the boards' closings; "Draft this" goes through the draft stage and lands.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Page, expect

from jetjobs import App, Publisher, Settings
from jobsearch import draft as draft_stage
from jobsearch import export as export_stage
from jobsearch.fit import Fit, score
from jobsearch.jobs import (
    EXPORT,
    EXPORT_BATCH,
    LISTING_STATES,
    QUEUES,
    DraftIssue,
    ExportBatchJob,
    ExportJob,
    ListingState,
    ListingStatesJob,
)
from jobsearch.listing import MergedListing, Salary
from jobsearch.profile import parse_profile
from jobsearch.settings import PipelineSettings
from jobsearch.store import Store
from tests.support import running_worker
from tests.ui.listings import drafts, listing
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(120)]

PROFILE = """\
[person]
name = "Ada Example"
skills = ["Python", "NATS", "PostgreSQL"]

[search]
terms = ["backend engineer", "platform engineer"]
locations = ["Berlin"]
remote = "remote_or_hybrid"
"""
CLOSED_ON = date(2026, 11, 28)


def listings() -> list[MergedListing]:
    """Four postings of one run: a close match, a weaker one, one that later closed, one that no
    draft was written for (below the drafting bar)."""
    return [
        listing(1, title="Senior Backend Engineer (Python, NATS)", company="Northwind Labs",
                description="Python, NATS JetStream and PostgreSQL, remote in the EU.",
                salary=Salary(min=80000, max=95000, currency="EUR", interval="year")),
        listing(2, title="Platform Engineer", company="Acme Robotics", board="lever",
                description="Go and Kubernetes; on site in Munich.", locations=("Munich",)),
        listing(3, title="Backend Engineer", company="Globex", board="ashby",
                description="Python services and PostgreSQL.", locations=("Berlin",)),
        listing(4, title="Data Analyst", company="Initrode", board="workable",
                description="SQL dashboards and Excel.", locations=("London",)),
    ]  # fmt: skip


async def export_run(nc: NATS, settings: Settings, db_path: Path, tmp_path: Path) -> dict[str, Fit]:
    """What a run's export writes, through the export stage: the listings with their fits, the
    drafts (Northwind's letter fails the employers check; Acme's drafting failed), Globex closed.
    Returns the fits, by listing id."""
    profile = parse_profile(PROFILE)
    found = listings()
    fits = {item.id: score(profile, item, datetime.now(UTC).date()) for item in found}
    jobs = [
        (EXPORT_BATCH, ExportBatchJob(run_id="run-1", listings=found, fits=fits)),
        (EXPORT, ExportJob(run_id="run-1", listing=found[0], drafts=drafts("Northwind Labs", review=True))),
        (EXPORT, ExportJob(run_id="run-1", listing=found[1], issue=DraftIssue(
            kind="failed", reason="openai: HTTP 500: overloaded (3 requests)", attempts=3))),
        (EXPORT, ExportJob(run_id="run-1", listing=found[2], drafts=drafts("Globex"))),
        (LISTING_STATES, ListingStatesJob(run_id="run-1",
                                          states=[ListingState(id="L0003", closed_at=CLOSED_ON)])),
    ]  # fmt: skip
    with Store.open(db_path) as store:
        store.start_run("run-1", profile="profile.toml")
    app = App("marks-test", builtins=False)
    export_stage.register(
        app, PipelineSettings(data_dir=tmp_path, db_path=db_path, tracker_path=tmp_path / "t.xlsx")
    )
    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings, queues=[QUEUES["export"]]) as (_, outcomes):
        for job_type, payload in jobs:  # one after another, as the run's order has them
            enqueued = await publisher.enqueue(job_type, payload, queue=QUEUES["export"])
            await outcomes.wait_for(enqueued.id, "succeeded")
    with Store.open(db_path) as store:
        store.finish_run("run-1", outcome="ok", summary={})
    return fits


async def test_fit_sort_draft_this_closed_and_needs_review_from_a_real_export(
    page: Page, nc: NATS, settings: Settings, tmp_path: Path
) -> None:
    """The table ranks by fit (best first, its reasons on the cell), re-sorts by fit from its
    header, badges the closed listing, marks the failed check and the failed drafting with their
    reasons; the listing's page shows the fit's signed reasons, the closed date, each check passed
    or failed, and "Draft this" on the listing without a draft, which drafts it."""
    db_path = tmp_path / "jobsearch.sqlite"
    fits = await export_run(nc, settings, db_path, tmp_path)
    best_first = sorted(fits, key=lambda listing_id: -fits[listing_id].score)
    assert fits[best_first[0]].score > fits[best_first[-1]].score, "the profile ranks nothing apart"
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE)
    app = App("marks-draft", builtins=False)
    draft_stage.register(app, env={})  # the offline provider: no key, no network
    export_stage.register(
        app, PipelineSettings(data_dir=tmp_path, db_path=db_path, tracker_path=tmp_path / "t.xlsx")
    )
    args = ["ui", "--port", "0", "--db", str(db_path), "--profile", str(profile)]
    async with (
        running_worker(app, nc, settings, queues=[QUEUES["draft"], QUEUES["export"]]),
        serving("jobsearch.cli", args, page_env(settings)) as url,
    ):
        await page.goto(url)
        rows = page.locator("#listing-table tbody tr")
        await expect(rows).to_have_count(4)
        # Fit: best first by default, the score in its cell and the reasons on it.
        await expect(page.locator('a[data-sort="fit"]')).to_have_attribute("aria-sort", "descending")
        assert [await rows.nth(i).get_attribute("data-listing") for i in range(4)] == best_first
        top = fits[best_first[0]]
        await expect(rows.first.locator("td.fit")).to_have_text(str(top.score))
        await expect(rows.first.locator("td.fit")).to_have_attribute(
            "title", re.compile(re.escape(top.reasons[0].text))
        )
        # Sort by fit from the header: worst first, then best first again.
        await page.locator('a[data-sort="fit"]').click()
        await expect(page.locator('a[data-sort="fit"]')).to_have_attribute("aria-sort", "ascending")
        assert [await rows.nth(i).get_attribute("data-listing") for i in range(4)] == best_first[::-1]
        await page.locator('a[data-sort="fit"]').click()
        await expect(rows.first).to_have_attribute("data-listing", best_first[0])
        # Closed: a badge with its date, the person's status kept.
        await expect(page.locator('tr[data-listing="L0003"] td.status')).to_have_text(
            f"Drafted closed {CLOSED_ON}"
        )
        # Needs review, with the check that failed; not drafted, with why.
        northwind = page.locator('tr[data-listing="L0001"] td.review')
        await expect(northwind.locator(".badge.review")).to_have_text("needs review")
        await expect(northwind).to_contain_text("cover letter: names an employer not in the profile: Initech")
        acme = page.locator('tr[data-listing="L0002"] td.review')
        await expect(acme.locator(".badge.review")).to_have_text("not drafted")
        await expect(acme).to_contain_text("openai: HTTP 500: overloaded")
        await expect(page.locator('tr[data-listing="L0003"] td.review')).to_have_text("drafted")

        await page.goto(f"{url}listings/L0001")
        await expect(page.locator("#fit")).to_contain_text(f"Fit {fits['L0001'].score}")
        first = fits["L0001"].reasons[0]
        await expect(page.locator("#fit")).to_contain_text(f"{first.points:+d} {first.text}")
        await expect(page.locator("#drafts .badge.review")).to_have_text("needs review")
        await expect(page.locator("#checks-cover_letter li.fail")).to_have_text(
            "✗ employers: names an employer not in the profile: Initech"
        )
        await expect(page.locator("#checks-cover_letter li.pass")).to_have_text("✓ length")

        await page.goto(f"{url}listings/L0003")
        await expect(page.locator("#closed .badge.closed")).to_have_text("closed")
        await expect(page.locator("#closed")).to_contain_text(f"on {CLOSED_ON}")

        await page.goto(f"{url}listings/L0002")  # drafting failed: the reason, and a way to try again
        await expect(page.locator("#draft-issue")).to_contain_text("openai: HTTP 500: overloaded")
        await expect(page.locator("#draft-this")).to_be_visible()

        await page.goto(f"{url}listings/L0004")  # below the drafting bar: no draft, no issue
        await expect(page.locator("#draft-this-form")).to_contain_text("Not drafted (below the drafting bar")
        await page.locator("#draft-this").click()
        await expect(page.locator("#saved")).to_have_text("draft submitted")
        await expect(page.locator("#redraft-state")).to_contain_text("Draft: landed", timeout=20_000)
        await expect(page.locator("#text-cover_letter")).to_have_value(re.compile("Initrode"))
        await expect(page.locator("#draft-this")).to_have_count(0)
    assert page.dialogs == []  # type: ignore[attr-defined]
