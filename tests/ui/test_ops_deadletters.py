"""The dead-letter list in Chromium: newest first, the total, pages, a filter, and confirmations that
name how many letters and which."""

from __future__ import annotations

import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Page, expect

from jetjobs import Publisher, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from tests.ui.server import page_env, serving
from tests.ui.test_ops_refresh import put_letters

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(120)]


async def test_newest_first_with_total_pages_and_filter(page: Page, nc: NATS, settings: Settings) -> None:
    """120 letters: the first row is the newest, the total says 120, page 3 holds the 20 oldest; the
    filter by type and reason leaves 20 of 120, and "Requeue these…" asks about exactly those 20
    and requeues them, leaving the other 100."""
    await put_letters(nc, settings, 120)
    async with serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url:
        await page.goto(url)
        rows = page.locator("#deadletters tbody tr")
        await expect(page.locator("#dead-total")).to_have_text("120 dead letters, newest first · page 1 of 3")
        await expect(rows).to_have_count(50)
        await expect(rows.first).to_have_attribute("data-dead", "job-0119")
        await expect(rows.last).to_have_attribute("data-dead", "job-0070")

        await page.get_by_role("link", name="older →").click()
        await expect(page.locator("#dead-total")).to_contain_text("page 2 of 3")
        await expect(rows.first).to_have_attribute("data-dead", "job-0069")
        await page.get_by_role("link", name="older →").click()
        await expect(rows).to_have_count(20)
        await expect(rows.last).to_have_attribute("data-dead", "job-0000")
        await expect(page.get_by_role("link", name="older →")).to_have_count(0)

        await page.select_option("select[name=type]", "email.send")
        await page.select_option("select[name=reason]", "rejected")
        await page.get_by_role("button", name="Filter").click()
        await expect(page.locator("#dead-total")).to_have_text(
            "20 of 120 dead letters (type email.send, reason rejected), newest first"
        )
        await expect(rows).to_have_count(20)
        assert set(await rows.locator("td:nth-child(3)").all_inner_texts()) == {"email.send"}
        assert set(await rows.locator("td:nth-child(4)").all_inner_texts()) == {"rejected"}
        await expect(rows.first).to_have_attribute("data-dead", "job-0117")  # 117 = 3·39, odd: rejected

        await page.locator("#requeue-all").click()
        await expect(page.locator(".question")).to_have_text(
            "Requeue 20 dead letters of type email.send with reason rejected? Each runs again."
        )
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_have_text(
            "requeued 20 dead letters of type email.send with reason rejected"
        )
        await expect(page.locator("#dead-total")).to_contain_text("100 dead letters")

    topology = Topology(settings)
    dead = DeadLetters(nc.jetstream(), topology, Ledger(await topology.status_kv(nc.jetstream())))
    left = [letter async for _, letter in dead.entries()]
    assert len(left) == 100
    assert not [r for r in left if r.type == "email.send" and r.reason == "rejected"]


async def test_confirmations_name_the_count_and_the_target(page: Page, nc: NATS, settings: Settings) -> None:
    """Requeue one names the job, its type, reason and queue; purge names how many letters of which
    types; cancel names the job, its type and state. "Cancel" on a question changes nothing."""
    await put_letters(nc, settings, 4)
    job = await Publisher(nc, settings).enqueue("jobs.fast", {"n": 1}, queue="ops-confirm")
    async with serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url:
        await page.goto(url)
        await page.locator('tr[data-dead="job-0001"] button.requeue').click()
        await expect(page.locator(".question")).to_have_text(
            "Requeue job job-0001 (type jobsearch.draft, rejected after 3 attempts) on queue default? "
            "It runs again with its attempts reset."
        )
        await page.get_by_role("link", name="Cancel").click()

        await page.locator("#purge").click()
        await expect(page.locator(".question")).to_have_text(
            "Delete all 4 dead letters (email.send 2, jobsearch.draft 1, report.monthly 1)? "
            "This cannot be undone."
        )
        await page.get_by_role("link", name="Cancel").click()
        await expect(page.locator("#dead-total")).to_contain_text("4 dead letters")

        await page.goto(f"{url}jobs/{job.id}")
        await page.get_by_role("button", name="Cancel job…").click()
        await expect(page.locator(".question")).to_have_text(
            f"Cancel job {job.id} (type jobs.fast, queued, attempt 0)? It will not run (again)."
        )
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_contain_text(f"cancel {job.id}: cancelled")

        await page.locator("#purge").click()
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_have_text("purged 4 dead letters")
        await expect(page.locator("#deadletters")).to_contain_text("No dead letter. A job lands here")
