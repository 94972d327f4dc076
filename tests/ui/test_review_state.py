"""The review page in Chromium: quiet while no run goes on, its view in the URL, paging, pay.

Time in the page is Playwright's clock (`page.clock`): the test moves it, so "nothing was asked for
59 seconds" is a fact about the page's timers, not a wait.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.async_api import Page, expect

from jetjobs import Settings
from jobsearch.listing import Salary
from jobsearch.store import Store
from tests.ui.listings import drafts, listing, seed
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(120)]

BOARDS = ("lever", "greenhouse")


def page_args(db_path: Path) -> list[str]:
    """`jobsearch ui` on any free port over `db_path`."""
    return ["ui", "--port", "0", "--db", str(db_path)]


async def asked(page: Page) -> int:
    """How many times the table's script has asked the server for it."""
    return int(await page.locator("#listings").get_attribute("data-asked") or 0)


async def shown(page: Page) -> list[str]:
    """The listing ids of the table's rows, in order."""
    rows = page.locator("#listing-table tbody tr")
    return [str(await rows.nth(i).get_attribute("data-listing")) for i in range(await rows.count())]


async def test_the_table_asks_only_while_a_run_goes_on_and_an_unchanged_one_costs_a_few_bytes(
    page: Page, settings: Settings, tmp_path: Path
) -> None:
    """With every run finished the page asks once a minute; an unchanged table answers 304 with no
    body, and pages are gzip-compressed. When a run starts the next check notices and the table is
    asked for every 3 s, a new row appears without a reload, a hidden tab asks nothing, and the
    run's end turns it quiet again."""
    db_path = tmp_path / "jobsearch.sqlite"
    with Store.open(db_path) as store:
        seed(store)
        store.finish_run("run-1", outcome="ok", summary={})
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.clock.install()
        await page.goto(url)
        table = page.locator("#listings")
        await expect(page.locator("#listing-table tbody tr")).to_have_count(3)
        await expect(table).to_have_attribute("data-mode", "idle")
        await page.evaluate("window.loadedOnce = true")

        await page.clock.run_for(59_000)
        assert await asked(page) == 0, "the page asked while no run goes on"

        # What one check costs when nothing changed: a 304 without a body.
        fragment = str(await table.get_attribute("data-poll"))
        etag = str(await table.get_attribute("data-etag"))
        async with httpx.AsyncClient(base_url=url) as client:
            same = await client.get(fragment, headers={"If-None-Match": etag})
            assert same.status_code == 304
            assert same.content == b""
            assert same.headers["x-poll"] == "idle"
            whole = await client.get("/", headers={"Accept-Encoding": "gzip"})
            assert whole.headers["content-encoding"] == "gzip"
            raw = await client.get(fragment, headers={"Accept-Encoding": "gzip"})
            assert raw.headers["content-encoding"] == "gzip"
            assert raw.headers["etag"] == etag
            assert gzip.decompress(await _raw_bytes(client, fragment)).decode().count("<tr data-listing") == 3

        with Store.open(db_path) as store:
            store.start_run("run-2", profile="profile.toml")  # held by this process: the run goes on
            await page.clock.run_for(1_000)  # the minute's check
            await expect(table).to_have_attribute("data-mode", "run")
            await expect(table).to_have_attribute("data-checks", str(await asked(page)))
            before, swapped = await asked(page), await table.get_attribute("data-refreshed-at")
            await page.clock.run_for(3_000)
            await expect(table).to_have_attribute("data-asked", str(before + 1))
            await expect(table).to_have_attribute("data-checks", str(before + 1))
            assert await table.get_attribute("data-refreshed-at") == swapped  # a 304: nothing swapped

            store.record_export(run_id="run-2", job_id="run-2-export-9", drafts=drafts("Initrode"),
                                listing=listing(9, title="Data Engineer", company="Initrode"))  # fmt: skip
            await page.clock.run_for(3_000)
            await expect(page.locator('tr[data-listing="L0009"] .badge.new')).to_be_visible()

            # A hidden tab asks nothing; showing it again checks at once.
            await page.evaluate(
                "Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
                "document.dispatchEvent(new Event('visibilitychange'))"
            )
            hidden_at = await asked(page)
            await page.clock.run_for(30_000)
            assert await asked(page) == hidden_at, "a hidden tab asked"
            await page.evaluate(
                "Object.defineProperty(document, 'hidden', {value: false, configurable: true});"
                "document.dispatchEvent(new Event('visibilitychange'))"
            )
            await expect(table).to_have_attribute("data-asked", str(hidden_at + 1))

            store.finish_run("run-2", outcome="ok", summary={})
        await page.clock.run_for(3_000)
        await expect(table).to_have_attribute("data-mode", "idle")
        quiet_from = await asked(page)
        await page.clock.run_for(59_000)
        assert await asked(page) == quiet_from
        assert await page.evaluate("window.loadedOnce") is True, "the page reloaded"
    assert page.dialogs == []  # type: ignore[attr-defined]


async def _raw_bytes(client: httpx.AsyncClient, path: str) -> bytes:
    """The body as it travelled (still compressed)."""
    async with client.stream("GET", path, headers={"Accept-Encoding": "gzip"}) as answer:
        return b"".join([chunk async for chunk in answer.aiter_raw()])


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """230 listings of one finished run, on two boards (115 each), companies C000..C229."""
    db_path = tmp_path / "jobsearch.sqlite"
    with Store.open(db_path) as store:
        store.start_run("run-1", profile="profile.toml")
        for n in range(230):
            item = listing(n + 1, title=f"Engineer {n:03d}", company=f"C{(n * 37) % 230:03d}",
                           board=BOARDS[n % 2], days_ago=n % 20)  # fmt: skip
            store.record_export(run_id="run-1", job_id=f"run-1-{n}", listing=item, drafts=[])
        store.finish_run("run-1", outcome="ok", summary={})
    return db_path


async def test_sort_filters_and_page_live_in_the_url_and_every_row_can_be_reached(
    page: Page, settings: Settings, many: Path
) -> None:
    """A sort survives a filter change; the page is in the URL, so a reload and a shared link show
    the same rows; the pager reaches every row, 100 to a page."""
    async with serving("jobsearch.cli", page_args(many), page_env(settings)) as url:
        await page.goto(url)
        await expect(page.locator("#page-of")).to_have_text("page 1 of 3")
        await expect(page.locator("#shown")).to_have_text("1–100 of 230 listing(s)")  # noqa: RUF001

        await page.locator('a[data-sort="company"]').click()
        await expect(page.locator("#listing-table tbody tr").first).to_contain_text("C000")
        await page.locator("select[name=board]").select_option("lever")
        await page.get_by_role("button", name="Filter").click()
        await expect(page.locator("#shown")).to_have_text("1–100 of 115 listing(s)")  # noqa: RUF001
        query = parse_qs(urlsplit(page.url).query)
        assert query["sort"] == ["company"]
        assert query["dir"] == ["asc"]
        assert query["board"] == ["lever"]
        companies = await page.locator("#listing-table tbody tr td:nth-child(2)").all_inner_texts()
        assert companies == sorted(companies), "the sort was lost when the filter changed"

        await page.locator('#pager a[rel="next"]').click()
        await expect(page.locator("#shown")).to_have_text("101–115 of 115 listing(s)")  # noqa: RUF001
        assert "page=2" in page.url
        second = await shown(page)
        assert len(second) == 15
        await page.reload()
        assert await shown(page) == second
        other = await page.context.new_page()  # a shared link: a fresh tab on the same address
        await other.goto(page.url)
        assert await shown(other) == second
        await expect(other.locator('a[data-sort="company"]')).to_have_attribute("aria-sort", "ascending")
        await other.close()

        # Every listing is reachable, each on exactly one page.
        seen: list[str] = []
        await page.goto(f"{url}?sort=found&dir=desc")
        for n in (1, 2, 3):
            await expect(page.locator("#page-of")).to_have_text(f"page {n} of 3")
            seen += await shown(page)
            if n < 3:
                await page.locator('#pager a[rel="next"]').click()
        assert len(seen) == len(set(seen)) == 230
        await page.goto(f"{url}?page=99")  # past the end: the last page
        await expect(page.locator("#page-of")).to_have_text("page 3 of 3")
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_salary_shows_its_interval_in_the_table_and_on_the_listing(
    page: Page, settings: Settings, tmp_path: Path
) -> None:
    """A yearly and a monthly salary read differently wherever the page shows pay."""
    db_path = tmp_path / "jobsearch.sqlite"
    pays = {
        1: Salary(min=65000, max=80000, currency="EUR", interval="year"),
        2: Salary(min=4500, max=5000, currency="EUR", interval="month"),
        3: Salary(min=45, max=55, currency="USD", interval="hour"),
    }
    with Store.open(db_path) as store:
        store.start_run("run-1", profile="profile.toml")
        for n, pay in pays.items():
            item = listing(n, title=f"Engineer {n}", company=f"Company {n}", salary=pay)
            store.record_export(
                run_id="run-1", job_id=f"run-1-{n}", listing=item, drafts=drafts(item.company)
            )
        store.finish_run("run-1", outcome="ok", summary={})
    wanted = {"L0001": "€65k–80k / year", "L0002": "€4.5k–5k / month", "L0003": "$45–55 / hour"}  # noqa: RUF001
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.goto(url)
        for listing_id, text in wanted.items():
            await expect(page.locator(f'tr[data-listing="{listing_id}"] td.salary')).to_have_text(text)
        for listing_id, text in wanted.items():
            await page.goto(f"{url}listings/{listing_id}")
            await expect(page.locator("#salary")).to_have_text(text)
