"""The operations page refreshes cheaply: an unchanged section costs a 304, a hidden tab asks nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Page, Response, expect

from jetjobs import Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, utcnow
from tests.ui.ops_app import ops_in_process, ops_of

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(90)]

# Counts the page's fetches (the page's own script is the only caller of fetch).
COUNT_FETCHES = """
window.__fetches = [];
const original = window.fetch;
window.fetch = function (url, options) { window.__fetches.push(String(url)); return original(url, options); };
"""
HIDE = """() => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => false });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


async def put_letters(nc: NATS, settings: Settings, count: int, *, start: int = 0) -> None:
    """`count` dead letters of three types and two reasons, a minute apart, the newest last."""
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    dead = DeadLetters(js, topology, Ledger(await topology.status_kv(js)))
    first = utcnow() - timedelta(minutes=start + count)
    for n in range(start, start + count):
        job_type = ("email.send", "jobsearch.draft", "report.monthly")[n % 3]
        subject = topology.job_subject("default", "normal", job_type)
        letter = DeadLetter(
            job_id=f"job-{n:04d}",
            type=job_type,
            queue="default",
            reason="rejected" if n % 2 else "exhausted",
            error=f"failure number {n}",
            attempts=3,
            worker="w-1",
            failed_at=first + timedelta(minutes=n - start),
            enqueued_at=None,
            original_subject=subject,
            original=b'{"payload": {}}',
        )
        await dead.put(letter)


def is_fragment(name: str, status: int) -> Callable[[Response], bool]:
    """A predicate for `expect_response`: the fragment `name` answered with `status`."""

    def match(response: Response) -> bool:
        return f"/fragments/{name}" in response.url and response.status == status

    return match


async def test_unchanged_fragment_answers_304_without_rendering_or_reading(
    page: Page, nc: NATS, settings: Settings
) -> None:
    """With 300 dead letters, the dead-letter section's refresh answers 304 while nothing changed:
    the server renders nothing and reads no dead letter. One new letter is then read alone (not
    the 300 again), rendered once, and shown first.

    The page's clock is Playwright's: each refresh is brought on by running the clock past the
    section's 3 s schedule, not by waiting 3 s for it."""
    await put_letters(nc, settings, 300)
    async with ops_in_process(nc, settings) as (url, app):
        ops = ops_of(app)
        await page.clock.install()
        await page.goto(url)
        await expect(page.locator("#dead-total")).to_contain_text("300 dead letters, newest first")
        assert ops.index.reads == 300
        async with page.expect_response(is_fragment("deadletters", 304)):
            await page.clock.run_for(3_100)
        async with page.expect_response(is_fragment("deadletters", 304)):
            await page.clock.run_for(3_100)
        assert ops.renders["deadletters"] == 0
        assert ops.index.reads == 300

        await put_letters(nc, settings, 1, start=300)
        async with page.expect_response(is_fragment("deadletters", 200)):
            await page.clock.run_for(3_100)
        await expect(page.locator("#deadletters tbody tr").first).to_have_attribute("data-dead", "job-0300")
        await expect(page.locator("#dead-total")).to_contain_text("301 dead letters")
        assert ops.renders["deadletters"] == 1
        assert ops.index.reads == 301
        async with page.expect_response(is_fragment("deadletters", 304)):
            await page.clock.run_for(3_100)
        assert ops.renders["deadletters"] == 1


async def test_hidden_tab_fetches_nothing_and_refreshes_when_shown(
    page: Page, nc: NATS, settings: Settings
) -> None:
    """Hidden (Page Visibility API), the page runs no refresh however long it waits (a fake clock
    runs ten minutes); shown again, every section refreshes at once and the schedule resumes."""
    await put_letters(nc, settings, 3)
    async with ops_in_process(nc, settings) as (url, _):
        await page.add_init_script(COUNT_FETCHES)
        await page.clock.install()
        await page.goto(url)
        await expect(page.locator("html")).to_have_attribute("data-polling", "on")
        # Waited on as events: `wait_for_function` polls by evaluating a string, which the page's
        # CSP (script-src 'self') refuses once the condition is not true at the first look.
        async with page.expect_request(lambda r: "/fragments/" in r.url):
            await page.clock.run_for(3_100)
        assert await page.evaluate("window.__fetches.length") >= 1

        await page.evaluate(HIDE)
        await expect(page.locator("html")).to_have_attribute("data-polling", "off")
        before = await page.evaluate("window.__fetches.length")
        await page.clock.run_for(10 * 60_000)
        assert await page.evaluate("window.__fetches.length") == before

        await page.evaluate(SHOW)
        await expect(page.locator("html")).to_have_attribute("data-polling", "on")
        fetched = await page.evaluate(f"window.__fetches.slice({before})")
        sections = sorted(u.rsplit("/", 1)[1] for u in fetched)
        assert sections == ["deadletters", "queues", "throughput", "workers"]
        async with page.expect_request(lambda r: "/fragments/workers" in r.url):
            await page.clock.run_for(2_100)
        assert await page.evaluate("window.__fetches.length") > before + 4
