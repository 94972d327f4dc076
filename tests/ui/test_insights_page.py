"""`/insights` on the review page, in Chromium, over a real SQLite state of record."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import anyio
import msgspec
import pytest
from playwright.async_api import Browser, ConsoleMessage, Page, expect

from jetjobs import Settings
from jobsearch.fit import Fit
from jobsearch.insights.charts import CHART_KEYS
from jobsearch.listing import Salary
from jobsearch.store import Store
from tests.ui.listings import drafts, listing
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(90)]

HOSTILE_COMPANY = "<script>alert('insights')</script>"
# (title, company, board, days ago, yearly pay low-high or None, places, fit, statuses set)
SEARCH = [
    (
        "Senior Backend Engineer",
        "Northwind Labs",
        "greenhouse",
        6,
        (85, 105),
        ("Berlin",),
        82,
        ("Applied", "Interview"),
    ),
    ("Platform Engineer", "Acme Robotics", "lever", 6, (75, 95), ("Amsterdam",), 74, ("Applied",)),
    ("Site Reliability Engineer", "Globex", "ashby", 5, None, ("Remote (EU)",), 65, ("Applied", "Rejected")),
    ("Staff Engineer, Data", "Initrode", "workable", 4, (110, 140), ("London",), 58, ()),
    ("Backend Developer", HOSTILE_COMPANY, "greenhouse", 3, (70, 85), ("Munich",), 47, ("Applied",)),
    (
        "Infrastructure Engineer",
        "Hooli",
        "remotive",
        2,
        (90, 115),
        ("Remote",),
        91,
        ("Applied", "Screen", "Offer"),
    ),
    (
        "Software Engineer, Scheduling",
        "Vandelay Logistics",
        "smartrecruiters",
        1,
        (65, 80),
        ("Rotterdam",),
        36,
        ("Dismissed",),
    ),
    ("Python Engineer", "Umbrella Health", "greenhouse", 0, (80, 100), ("Berlin",), 69, ()),
    ("Go Engineer", "Stark Industries", "lever", 0, None, ("Berlin",), 55, ()),
]


def seed_search(db_path: Path) -> None:
    """A week of a search: nine listings over seven days on six boards, fit and pay, statuses set."""
    with Store.open(db_path) as store:
        store.start_run("run-1", profile="profile.toml")
        for n, (title, company, board, days, pay, places, fit, statuses) in enumerate(SEARCH, start=1):
            salary = (
                Salary(min=pay[0] * 1000, max=pay[1] * 1000, currency="EUR", interval="year") if pay else None
            )
            item = listing(
                n, title=title, company=company, board=board, days_ago=days, salary=salary, locations=places
            )
            item = msgspec.structs.replace(item, remote=places[0].startswith("Remote"))
            store.record_export(
                run_id="run-1",
                job_id=f"run-1-{n}",
                listing=item,
                fit=Fit(score=fit),
                drafts=drafts(company) if n % 3 else [],
            )
            for status in statuses:
                store.set_status(item.id, status, source="ui")
        store.finish_run(
            "run-1",
            outcome="ok",
            summary={"listings_new": len(SEARCH), "listings_known": 14, "listings_updated": 2},
        )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The state of record of the search above."""
    path = tmp_path / "jobsearch.sqlite"
    seed_search(path)
    return path


async def test_insights_shows_every_chart_with_its_table_and_csv(
    page: Page, browser: Browser, settings: Settings, db_path: Path
) -> None:
    """From the review page's header to /insights: each chart's SVG (with title and description),
    its table and its CSV download; a company's markup shows as text, never runs; nothing breaks
    the Content-Security-Policy; at 390 px nothing scrolls sideways."""
    problems: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(message.text)

    page.on("console", console)
    async with serving(
        "jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], page_env(settings)
    ) as url:
        await page.goto(url)
        await page.locator("#insights-link").click()
        await expect(page).to_have_url(f"{url}insights")
        await expect(page.locator("h1")).to_have_text("The search in pictures")
        for key in CHART_KEYS:
            chart = page.locator(f"#{key}-chart")
            await expect(chart).to_be_visible()
            await expect(chart.locator(f"#{key}-title")).not_to_be_empty()
            await expect(chart.locator(f"#{key}-desc")).not_to_be_empty()
            assert await page.locator(f"#{key}-table tbody tr").count() > 0, key
        await page.locator("#funnel details summary").click()
        funnel = page.locator("#funnel-table tbody tr")
        await expect(funnel.nth(2)).to_contain_text("Applied")
        await expect(funnel.nth(2).locator("td").first).to_have_text("5")

        # The company's markup is text: in the by-source table and in the chart's own text.
        await page.locator("#answers-source details summary").click()
        await expect(page.locator("#answers-source-table")).to_contain_text(HOSTILE_COMPANY.lower())
        await expect(page.locator("#answers-source-chart")).to_contain_text("greenhouse:<script>")
        await expect(page.locator("#answers-source-desc")).to_contain_text(HOSTILE_COMPANY.lower())
        assert await page.locator("script:not([src])").count() == 0
        assert page.dialogs == []  # type: ignore[attr-defined]

        async with page.expect_download() as info:
            await page.locator("#answers-board a.csv").click()
        download = await info.value
        assert download.suggested_filename == "insights-answers-board.csv"
        text = await anyio.Path(await download.path()).read_text(encoding="utf-8-sig")
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0] == ["board", "applied", "answered", "answer rate"]
        assert ["greenhouse", "2", "1", "50%"] in rows
        assert problems == []

        phone = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        small = await phone.new_page()
        await small.goto(f"{url}insights")
        await expect(small.locator("#pay-chart")).to_be_visible()
        for summary in await small.locator("details summary").all():
            await summary.click()
        width = await small.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide at 390 px"
        await phone.close()


async def test_insights_on_a_fresh_data_dir_says_what_to_do(
    page: Page, settings: Settings, tmp_path: Path
) -> None:
    """With no listings, the page says to run a search, and no chart is drawn."""
    db = tmp_path / "fresh.sqlite"
    async with serving("jobsearch.cli", ["ui", "--port", "0", "--db", str(db)], page_env(settings)) as url:
        await page.goto(f"{url}insights")
        await expect(page.locator("#insights-empty")).to_contain_text("jobsearch run --profile PROFILE")
        await expect(page.locator("svg.chart")).to_have_count(0)
        await expect(page.locator("#answers-board .empty")).to_contain_text("Applied")
        response = await page.request.get(f"{url}insights/nothing.csv")
        assert response.status == 404
