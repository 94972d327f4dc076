"""The operations page's layout and finish in Chromium: nothing clipped at 1366 px, no sideways
scroll at 390 px, local times with their age, sizes in KB, counted nouns, a title, a favicon,
empty states that say what to do, and a printed address a browser can open."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Browser, Page, Response, expect

from jetjobs import Publisher, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, utcnow
from jetjobs.testing import WorkerPool
from jetjobs.ui._ops import build_ops_app
from jetjobs.ui._server import browser_url
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(120)]

ZONE = "America/New_York"
LONG_QUEUES = ("jobsearch-draft-cover-letters", "jobsearch-export-tracker", "reports")
# Every element whose content is wider than its box and hides the rest (not a scroll container).
CLIPPED = """root => Array.from(root.querySelectorAll("*")).filter(el => {
  const style = getComputedStyle(el);
  const scrolls = ["auto", "scroll"].includes(style.overflowX);
  return !scrolls && style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1
    && !el.classList.contains("line");
}).map(el => el.tagName + "." + el.className)"""
WIDTH = "() => [document.scrollingElement.scrollWidth, window.innerWidth]"


async def busy_deployment(nc: NATS, settings: Settings) -> str:
    """Queues with long names, a job on each, and a dead letter with a long error, failed 4 min ago.

    Returns the dead letter's job id.
    """
    publisher = Publisher(nc, settings)
    for queue in LONG_QUEUES:
        await publisher.enqueue("jobs.fast", {"n": 1}, queue=queue, priority="high")
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    dead = DeadLetters(js, topology, Ledger(await topology.status_kv(js)))
    job_id = "01JDLQ7EXAMPLE0000000000000000LONGID"
    error = "ProviderError: the provider answered 503 Service Unavailable; " * 8
    subject = topology.job_subject(LONG_QUEUES[0], "high", "jobsearch.draft")
    letter = DeadLetter(
        job_id=job_id,
        type="jobsearch.draft",
        queue=LONG_QUEUES[0],
        reason="exhausted",
        error=error,
        attempts=5,
        worker="worker-host-1234",
        failed_at=utcnow() - timedelta(minutes=4),
        enqueued_at=None,
        original_subject=subject,
        original=b'{"payload": {"listing": "L0001"}}',
    )
    await dead.put(letter)
    return job_id


async def test_nothing_clipped_at_1366_and_no_sideways_scroll_at_390(
    browser: Browser, nc: NATS, settings: Settings, repo_root: Path
) -> None:
    """At 1366 px the Queues and Throughput cards show every column (nothing hidden or scrolled
    inside the card); at 390 px no page of the operations page is wider than the screen."""
    job_id = await busy_deployment(nc, settings)
    async with (
        WorkerPool("tests.apps:app", settings, settings.nats.url or "", cwd=repo_root,
                   queues=LONG_QUEUES) as pool,
        serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url,
    ):  # fmt: skip
        await pool.start(1)
        context = await browser.new_context(viewport={"width": 1366, "height": 768})
        page = await context.new_page()
        await page.goto(url)
        await expect(page.locator("tr[data-worker]")).to_have_count(1)
        for card in ("#queues", "#throughput", "#workers"):
            section = page.locator(card).locator("xpath=..")
            inner, outer = await section.evaluate("el => [el.scrollWidth, el.clientWidth]")
            assert inner <= outer, f"{card} is {inner} px wide inside a {outer} px card"
            for scroll in await page.locator(f"{card} .scroll").all():
                assert await scroll.evaluate("el => el.scrollWidth <= el.clientWidth"), f"{card} scrolls"
        assert await page.locator("body").evaluate(CLIPPED) == []
        await context.close()

        phone = await browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        page = await phone.new_page()
        for path in ("", "replay?since=1h", f"dead/{job_id}", f"jobs/{job_id}", "jobs/unknown-id"):
            await page.goto(url + path)
            scroll_width, inner_width = await page.evaluate(WIDTH)
            assert scroll_width <= inner_width, (
                f"/{path} is {scroll_width} px wide on a {inner_width} px phone"
            )
        await page.goto(url)
        await page.locator("#purge").click()  # the confirmation page
        scroll_width, inner_width = await page.evaluate(WIDTH)
        assert scroll_width <= inner_width
        await phone.close()


async def test_local_times_sizes_counts_title_favicon_and_empty_states(
    browser: Browser, nc: NATS, settings: Settings, repo_root: Path
) -> None:
    """Times show in the reader's zone with their age ("07:31, 4 min ago"), stream sizes in B/KB,
    "1 live worker", the title names the page once, the favicon loads (no request fails), and
    with no worker the section says how to start one."""
    await busy_deployment(nc, settings)
    context = await browser.new_context(timezone_id=ZONE, viewport={"width": 1366, "height": 900})
    page = await context.new_page()
    failed: list[str] = []

    def note(response: Response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.url}")

    page.on("response", note)
    async with serving("jetjobs", ["ui", "--port", "0"], page_env(settings)) as url:
        await page.goto(url)
        await expect(page.locator("#workers")).to_contain_text(
            "No live worker. Start one with jetjobs worker MODULE:app"
        )
        await expect(page).to_have_title(f"jetjobs operations · {settings.namespace}")
        assert await page.locator("link[rel=icon]").get_attribute("href") == "/static/favicon.svg"
        icon = await page.request.get(f"{url}favicon.ico")
        assert (icon.status, icon.headers["content-type"]) == (200, "image/svg+xml")

        failed_at = page.locator("#deadletters tbody tr td time").first
        await expect(failed_at).to_have_text(re.compile(r"^\d\d:\d\d, [45] min ago$"))
        shown = (await failed_at.inner_text()).split(",")[0]
        iso = await failed_at.get_attribute("datetime")
        assert iso is not None
        moment = utcnow().fromisoformat(iso.replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
        assert shown == moment.strftime("%H:%M")
        sizes = await page.locator("#queues p.small").last.inner_text()
        assert re.search(r"_JOBS: 3 messages, \d+(\.\d)? (B|KB)", sizes), sizes
        assert re.search(r"_DLQ: 1 message, \d+\.\d KB", sizes), sizes

        async with WorkerPool("tests.apps:app", settings, settings.nats.url or "", cwd=repo_root) as pool:
            await pool.start(1)
            await expect(page.locator("#workers p.small")).to_have_text("1 live worker")
            await expect(page.locator("tr[data-worker] td").last).to_have_text("on time")
    assert failed == []
    await context.close()


def test_title_is_not_the_namespace_twice(settings: Settings) -> None:
    """The default namespace (`jetjobs`) gives the title "jetjobs operations", not "jetjobs · jetjobs"."""
    from nats.aio.client import Client as NATS  # noqa: PLC0415 (an unconnected client: nothing is read)

    default = build_ops_app(NATS(), Settings())
    assert default.state.page_title == "jetjobs operations"
    assert build_ops_app(NATS(), settings).state.page_title == f"jetjobs operations · {settings.namespace}"


def test_printed_address_is_one_a_browser_opens() -> None:
    """A page bound to every address prints the loopback address, not 0.0.0.0 or ::."""
    assert browser_url("0.0.0.0", 8321) == "http://127.0.0.1:8321/"
    assert browser_url("::", 8321) == "http://[::1]:8321/"
    assert browser_url("127.0.0.1", 8321) == "http://127.0.0.1:8321/"
    assert browser_url("192.168.1.20", 8321) == "http://192.168.1.20:8321/"


async def test_page_on_every_address_prints_an_address_that_opens(page: Page, settings: Settings) -> None:
    """`jetjobs ui --host 0.0.0.0` prints http://127.0.0.1:PORT/?token=…, and that address opens the page."""
    async with serving("jetjobs", ["ui", "--host", "0.0.0.0", "--port", "0"], page_env(settings)) as url:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", url), url
        await page.goto(url)
        await expect(page.locator("h2").first).to_have_text("Workers")
