"""The review page on a phone and on a laptop, in Chromium: one column below 700 px (the table's
rows as cards, the listing's posting above its drafts), no sideways scroll at 390 px on the
listings page, a listing's page and the conflict page; nothing clipped at 1366 px."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from playwright.async_api import Browser, BrowserContext, FloatRect, Page, expect

from jetjobs import Settings
from jobsearch.fit import Fit, Reason
from jobsearch.listing import Salary
from jobsearch.store import Store
from tests.ui.listings import drafts, listing, seed
from tests.ui.server import page_env, serving
from tests.ui.test_ops_layout import CLIPPED, WIDTH

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(120)]

LONG_TITLE = "Senior Staff Distributed-Systems Reliability Engineer, Event-Driven Job-Processing Platform"
LONG_COMPANY = "Vandelay Industries International Logistics & Import-Export Holdings GmbH"
LONG_NOTE = "Recruiter-said-the-team-uses-NATS-JetStream-and-Postgres-call-back-after-the-holidays " * 3
FIT = Fit(
    score=83,
    reasons=[
        Reason(points=25, text="the title is your role (Reliability Engineer)"),
        Reason(points=-10, text="onsite two days a week in Rotterdam-Centrum"),
    ],
)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Three listings of one run (one hostile, one needing review), and one with every field long:
    title, company, places, a URL that is no web address, a note without spaces, a fit with reasons."""
    path = tmp_path / "jobsearch.sqlite"
    with Store.open(path) as store:
        seed(store)
        item = listing(4, title=LONG_TITLE, company=LONG_COMPANY, board="smartrecruiters",
                       salary=Salary(min=95000, max=135000, currency="EUR", interval="year"),
                       locations=("Rotterdam-Centrum, Zuid-Holland, Netherlands", "Remote (EU/EEA)"),
                       url="data:text/html," + "x" * 180,
                       description="A posting. " + "word " * 400)  # fmt: skip
        item = msgspec.structs.replace(item, workplace="hybrid", employment_type="full-time")
        store.record_export(run_id="run-1", job_id="run-1-export-4", listing=item,
                            drafts=drafts(LONG_COMPANY, review=True), fit=FIT)  # fmt: skip
        store.set_notes("L0004", LONG_NOTE, source="ui")
        store.finish_run("run-1", outcome="ok", summary={})
    return path


async def phone(browser: Browser) -> BrowserContext:
    """A phone's browser: 390 px wide, touch, mobile viewport rules."""
    context = await browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(15_000)
    return context


async def assert_fits(page: Page, what: str) -> None:
    """The page is no wider than the screen."""
    scroll_width, inner_width = await page.evaluate(WIDTH)
    assert scroll_width <= inner_width, f"{what} is {scroll_width} px wide on a {inner_width} px phone"


async def box(page: Page, selector: str) -> FloatRect:
    """The element's box on the page."""
    found = await page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


async def test_a_phone_gets_one_column_and_no_sideways_scroll(
    browser: Browser, settings: Settings, db_path: Path
) -> None:
    """At 390 px: each listing is a card (its role, then its company, then one line per field, the
    header a line of sort links that still sort); a listing's posting is above its drafts, not
    beside them; the conflict page's two versions one below the other; no page scrolls sideways."""
    context = await phone(browser)
    page = await context.new_page()
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(url)
        await expect(page.locator("#listing-table tbody tr")).to_have_count(4)
        await assert_fits(page, "the listings page")
        card = 'tr[data-listing="L0004"]'
        role, company, fit = [await box(page, f"{card} td.{c}") for c in ("role", "company", "fit")]
        table = await box(page, "#listing-table")
        assert role["width"] > table["width"] * 0.9, "the role is squeezed into a column"
        assert role["y"] < company["y"] < fit["y"], "the card does not start with its role and company"
        assert abs(role["x"] - fit["x"]) < 2, "the card's fields are side by side"
        await expect(page.locator(f"{card} td.fit")).to_have_text("83")
        await page.locator('#listing-table thead a[data-sort="company"]').click()
        await expect(page.locator("#listing-table tbody tr").first).to_contain_text("=HYPERLINK")
        await assert_fits(page, "the listings page sorted by company")

        for listing_id in ("L0004", "L0003", "L0002"):
            await page.goto(f"{url}listings/{listing_id}")
            await expect(page.locator("#posting")).to_be_visible()
            await assert_fits(page, f"the page of {listing_id}")
            posting, drafted = await box(page, "#posting"), await box(page, "#drafts")
            assert posting["y"] + posting["height"] <= drafted["y"], "the posting and the drafts side by side"

        await page.goto(f"{url}listings/L0004")
        await expect(page.locator("#fit")).to_contain_text("Fit 83")
        await page.locator("#text-cover_letter").fill("My own letter, by hand.")
        with Store.open(db_path) as store:
            store.save_draft_edit("L0004", "cover_letter", "A letter from another tab. " * 30)
        await page.locator("#save-cover_letter").click()
        await expect(page.locator("#conflict")).to_have_text("Cover letter changed since you opened the page")
        await assert_fits(page, "the conflict page")
        theirs, mine = await box(page, "#theirs"), await box(page, "#mine")
        assert theirs["y"] + theirs["height"] <= mine["y"], "the two versions side by side"
    await context.close()


async def test_nothing_is_clipped_at_1366(browser: Browser, settings: Settings, db_path: Path) -> None:
    """At 1366 px the table shows every column without scrolling inside its card, the listing page
    keeps its two columns, and no element hides content it cannot show (the notes' one-line
    ellipsis aside)."""
    context = await browser.new_context(viewport={"width": 1366, "height": 768})
    page = await context.new_page()
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(url)
        await expect(page.locator("#listing-table tbody tr")).to_have_count(4)
        section = page.locator("#listings").locator("xpath=..")
        inner, outer = await section.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert inner <= outer, f"the table is {inner} px wide inside a {outer} px card"
        await expect(page.locator("#listing-table thead th")).to_have_count(12)
        assert await page.locator("body").evaluate(CLIPPED) == []
        await assert_fits(page, "the listings page at 1366 px")

        await page.goto(f"{url}listings/L0004")
        await expect(page.locator("#posting")).to_be_visible()
        posting, drafted = await box(page, "#posting"), await box(page, "#drafts")
        assert posting["x"] + posting["width"] <= drafted["x"], "a laptop lost the two columns"
        assert abs(posting["y"] - drafted["y"]) < 60
        assert await page.locator("body").evaluate(CLIPPED) == []
        await assert_fits(page, "a listing's page at 1366 px")
    await context.close()
