"""The review page's filters (status, company, date found) and a needs-review draft's reasons, in Chromium."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from playwright.async_api import Page, expect

from jetjobs import Settings
from jobsearch.fit import Fit, Reason
from jobsearch.jobs import Check, DraftIssue
from jobsearch.store import Store
from tests.ui.listings import drafts, listing
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(90)]

NOON = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
REASONS = [
    "employers: names an employer not in the profile: Umbrella Corp",
    "length: 412 words; at most 350",
]


# Fits of three of the five listings (the others not scored).
FITS = {
    4: Fit(score=91, reasons=[Reason(points=25, text="the title is your role (Backend Engineer)")]),
    2: Fit(score=72, reasons=[Reason(points=-35, text="onsite in London; you want remote or Berlin")]),
    1: Fit(score=40),
}


def found(days_ago: int) -> date:
    """The date found of a listing first seen `days_ago` days before today (UTC)."""
    return (NOON - timedelta(days=days_ago)).date()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Five listings found 0, 3, 3, 10 and 20 days ago, in four statuses; Initech's letter needs review.

    | id    | company        | found    | status    |
    |-------|----------------|----------|-----------|
    | L0001 | Acme Robotics  | today    | Drafted   |
    | L0002 | Globex         | 3 days   | Applied   |
    | L0003 | ACME Analytics | 3 days   | Interview |
    | L0004 | Initech        | 10 days  | Drafted   |
    | L0005 | Hooli          | 20 days  | Applied   |
    """
    path = tmp_path / "jobsearch.sqlite"
    rows = [
        (1, "Platform Engineer", "Acme Robotics", 0, None),
        (2, "Site Reliability Engineer", "Globex", 3, "Applied"),
        (3, "Data Engineer", "ACME Analytics", 3, "Interview"),
        (4, "Backend Engineer", "Initech", 10, None),
        (5, "Staff Engineer", "Hooli", 20, "Applied"),
    ]
    with Store.open(path) as store:
        store.start_run("run-1", profile="profile.toml")
        for n, title, company, days_ago, status in rows:
            item = listing(n, title=title, company=company)
            item = msgspec.structs.replace(item, first_seen=NOON - timedelta(days=days_ago))
            written = drafts(company)
            if company == "Initech":
                checks = [Check(name="tone", passed=True)] + [
                    Check(name=r.split(": ", 1)[0], passed=False, detail=r.split(": ", 1)[1]) for r in REASONS
                ]
                written[0] = msgspec.structs.replace(written[0], status="needs_review", checks=checks)
            fit = FITS.get(n)
            store.record_export(
                run_id="run-1", job_id=f"run-1-export-{n}", listing=item, drafts=written, fit=fit
            )
            if status is not None:
                store.set_status(item.id, status, source="cli")
    return path


def page_args(db_path: Path) -> list[str]:
    """`jobsearch ui` on any free port over `db_path`."""
    return ["ui", "--port", "0", "--db", str(db_path)]


async def shown(page: Page) -> list[str]:
    """The listing ids of the table's rows, in order."""
    rows = page.locator("#listing-table tbody tr")
    return [str(await rows.nth(i).get_attribute("data-listing")) for i in range(await rows.count())]


async def expect_rows(page: Page, ids: list[str]) -> None:
    """Wait until the table shows exactly the listings `ids`, and says it shows that many."""
    rows = page.locator("#listing-table tbody tr")
    await expect(rows).to_have_count(len(ids))
    await expect(page.locator("#listings p.small")).to_contain_text(f"{len(ids)} of {len(ids)} listing(s)")
    assert sorted(await shown(page)) == sorted(ids)


async def test_status_company_and_date_filters_each_narrow_the_table(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """Each filter, set through the form, leaves exactly the rows it names; together they intersect;
    the table's refresh keeps them; "Clear" shows every row again."""
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(url)
        await expect_rows(page, ["L0001", "L0002", "L0003", "L0004", "L0005"])

        await page.locator("select[name=status]").select_option("Applied")
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0002", "L0005"])
        await expect(page.locator("#listing-table td.status")).to_have_text(["Applied", "Applied"])

        await page.locator("select[name=status]").select_option("")
        await page.locator("input[name=company]").fill("acme")  # any case, any part of the name
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0001", "L0003"])

        await page.locator("input[name=company]").fill("")
        await page.locator("input[name=since]").fill(found(3).isoformat())  # the day itself counts
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0001", "L0002", "L0003"])
        # best fit first: Globex (72, 3 days), Acme Robotics (40, today), ACME Analytics (unscored)
        await expect(page.locator("#listing-table tbody tr td:first-child")).to_have_text(
            [re.compile(f"^{found(3)}"), re.compile(f"^{found(0)}"), re.compile(f"^{found(3)}")]
        )

        await page.locator("input[name=since]").fill(found(10).isoformat())
        await page.locator("select[name=status]").select_option("Drafted")
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0001", "L0004"])
        assert "status=Drafted" in page.url
        assert f"since={found(10)}" in page.url

        # While run-1 goes on (its lock is this process's) the table checks every 3 s with the same
        # filters; nothing changed, so nothing is swapped in.
        table = page.locator("#listings")
        await expect(table).to_have_attribute("data-mode", "run")
        await expect(table).to_have_attribute("data-checks", re.compile(r"[1-9]"), timeout=15_000)
        assert await table.get_attribute("data-refreshed-at") is None
        await expect_rows(page, ["L0001", "L0004"])

        await page.locator("select[name=status]").select_option("Offer")
        await page.get_by_role("button", name="Filter").click()
        await expect(page.locator("#listings .empty")).to_have_text("No listing matches these filters.")

        await page.get_by_role("link", name="Clear").click()
        await expect_rows(page, ["L0001", "L0002", "L0003", "L0004", "L0005"])
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_needs_review_draft_shows_its_reasons_on_the_listing_page(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """Initech's letter was stored `needs_review` with two failed checks: the table marks the row, and
    the listing page shows the badge and both reasons beside that draft (and none beside the note)."""
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(url)
        await expect(page.locator('tr[data-listing="L0004"] .badge.review')).to_have_text("needs review")
        await expect(page.locator(".badge.review")).to_have_count(1)

        await page.locator('tr[data-listing="L0004"] a.title').click()
        await expect(page.locator("#title")).to_contain_text("Backend Engineer")
        letter = page.locator('form.draft[data-step="cover_letter"]')
        await expect(letter.locator(".badge.review")).to_have_text("needs review")
        await expect(page.locator("#checks-cover_letter li.fail")).to_have_text([f"✗ {r}" for r in REASONS])
        await expect(page.locator("#checks-cover_letter li.pass")).to_have_text(["✓ tone"])
        await expect(page.locator("#checks-connection_note")).to_have_count(0)
        note = page.locator('form.draft[data-step="connection_note"]')
        await expect(note.locator(".badge.review")).to_have_count(0)

        await page.goto(f"{url}listings/L0001")  # a listing whose drafts passed: no reasons at all
        await expect(page.locator("#title")).to_contain_text("Platform Engineer")
        await expect(page.locator("ul.checks")).to_have_count(0)
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_review_filter_and_a_failed_draft_shown_where_the_person_reads(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """A sixth listing whose drafting failed (no drafts): the review filter's three choices each
    leave exactly their rows, the reason shows beside the row and on the listing's page."""
    with Store.open(db_path) as store:
        item = msgspec.structs.replace(listing(6, title="QA Engineer", company="Vandelay"), first_seen=NOON)
        issue = DraftIssue(kind="failed", reason="openai: HTTP 500: internal error (2 requests)", attempts=5)
        store.record_export(run_id="run-1", job_id="run-1-draft-6", listing=item, drafts=[], issue=issue)
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.goto(url)
        await expect_rows(page, ["L0001", "L0002", "L0003", "L0004", "L0005", "L0006"])
        failed = page.locator('tr[data-listing="L0006"] td.review')
        await expect(failed.locator(".badge.review")).to_have_text("not drafted")
        await expect(failed).to_contain_text("draft failed after 5 attempts: openai: HTTP 500")
        await expect(page.locator('tr[data-listing="L0004"] td.review')).to_contain_text("Umbrella Corp")

        for choice, ids in (
            ("needs", ["L0004", "L0006"]),
            ("failed", ["L0006"]),
            ("ok", ["L0001", "L0002", "L0003", "L0005"]),
        ):
            await page.locator("select[name=review]").select_option(choice)
            await page.get_by_role("button", name="Filter").click()
            await expect_rows(page, ids)
            assert f"review={choice}" in page.url

        await page.goto(f"{url}listings/L0006")
        await expect(page.locator("#draft-issue")).to_contain_text(
            "draft failed after 5 attempts: openai: HTTP 500: internal error (2 requests)"
            " (the next run retries)"
        )
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_the_table_ranks_by_fit_filters_on_it_and_the_listing_shows_why(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """Best fit first by default (unscored last), a fit threshold through the form (kept in the
    URL), the reasons on hover and on the listing's page."""
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.goto(url)
        rows = page.locator("#listing-table tbody tr")
        await expect(rows).to_have_count(5)
        assert (await shown(page))[:3] == ["L0004", "L0002", "L0001"]
        await expect(rows.first.locator("td.fit")).to_have_text("91")
        await expect(rows.first.locator("td.fit")).to_have_attribute(
            "title", "the title is your role (Backend Engineer) (+25)"
        )
        await page.locator("#fit-filter").fill("70")
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0004", "L0002"])
        assert "fit=70" in page.url
        await page.locator('a[href^="/listings/L0002"]').click()
        await expect(page.locator("#fit")).to_contain_text("Fit 72")
        await expect(page.locator("#fit")).to_contain_text("-35 onsite in London; you want remote or Berlin")


async def test_a_closed_listing_has_a_badge_a_filter_and_keeps_the_persons_status(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """Globex's listing (Applied) was taken down, Hooli's went stale: badges in the table, the
    listed filter (kept in the URL), the closed date on the listing's page, the status unchanged."""
    closed_on = found(1)
    with Store.open(db_path) as store:
        store.conn.execute("UPDATE listings SET closed_at = ? WHERE id = 'L0002'", (closed_on.isoformat(),))
        store.conn.execute("UPDATE listings SET stale_at = ? WHERE id = 'L0005'", (found(2).isoformat(),))
        store.conn.commit()
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.goto(url)
        await expect(page.locator("#listing-table tbody tr")).to_have_count(5)
        globex = page.locator('tr[data-listing="L0002"] td.status')
        await expect(globex).to_have_text(f"Applied closed {closed_on.isoformat()}")
        await expect(page.locator('tr[data-listing="L0005"] td.status .badge.stale')).to_have_text("stale")
        await page.locator("#listed-filter").select_option("closed")
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0002", "L0005"])
        assert "listed=closed" in page.url
        await page.locator("#listed-filter").select_option("open")
        await page.get_by_role("button", name="Filter").click()
        await expect_rows(page, ["L0001", "L0003", "L0004"])
        await page.goto(url.rstrip("/") + "/listings/L0002")
        await expect(page.locator("#closed")).to_contain_text(f"on {closed_on.isoformat()}")
        await expect(page.locator("#status")).to_have_value("Applied")
