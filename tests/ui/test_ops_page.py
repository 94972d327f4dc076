"""The operations page in Chromium, against a real nats-server and a real worker process."""

from __future__ import annotations

from pathlib import Path

import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Page, expect

from jetjobs import Publisher, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.replay import plan_replay, replay
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, utcnow
from jetjobs.testing import WorkerPool
from tests.support import status_of
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(90)]

HOSTILE = "<img src=x onerror=alert('xss')><script>alert('xss')</script>"


async def test_live_worker_dead_letter_and_requeue(
    page: Page, nc: NATS, settings: Settings, repo_root: Path
) -> None:
    """The page lists a live worker, loses it within seconds of a kill -9, and requeues a dead letter.

    The dead letter (a job of a type no worker handles, its payload a script) shows its error and
    original message as text, no script runs, and requeueing it (after a confirmation) puts the
    job back in the queue with its ledger entry `queued`.
    """
    async with (
        serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url,
        WorkerPool("tests.apps:app", settings, settings.nats.url or "", cwd=repo_root) as pool,
    ):
        (worker,) = await pool.start(1)
        await page.goto(url)
        row = page.locator(f'tr[data-worker="{worker.worker_id}"]')
        await expect(row).to_be_visible()
        await expect(row).to_contain_text(str(worker.pid))
        await expect(row).to_contain_text("default")

        job = await Publisher(nc, settings).enqueue("jobs.missing", {"note": HOSTILE})
        dead = page.locator(f'tr[data-dead="{job.id}"]')
        await expect(dead).to_be_visible()
        await expect(dead).to_contain_text("unknown job type")

        await pool.kill(worker)
        await expect(row).to_have_count(0, timeout=int(4 * settings.heartbeat_ttl * 1000))
        await expect(page.locator("#workers")).to_contain_text("No live worker")

        await dead.get_by_role("link").click()
        await expect(page.locator("#original")).to_contain_text(HOSTILE)
        await expect(page.locator("#error")).to_contain_text("jobs.missing")
        assert await page.locator("img[src=x], #original script").count() == 0

        await page.get_by_role("button", name="Requeue…").click()
        await expect(page.locator(".question")).to_contain_text(job.id)
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_have_text(f"requeued job {job.id}")
        await expect(page.locator(f'tr[data-dead="{job.id}"]')).to_have_count(0)

    ledger = Ledger(await Topology(settings).status_kv(nc.jetstream()))
    assert (await status_of(nc, settings, job.id)).state == "queued"
    assert await DeadLetters(nc.jetstream(), Topology(settings), ledger).show(job.id) is None
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_read_only_page_offers_no_action_and_refuses_posts(
    page: Page, nc: NATS, settings: Settings
) -> None:
    """Started without --allow-actions, the page shows no action button and a forged POST gets 403.

    A POST without the CSRF token is refused too, before anything is read from the form.
    """
    job = await Publisher(nc, settings).enqueue("jobs.fast", {}, queue="ops-empty")
    topology = Topology(settings)
    ledger = Ledger(await topology.status_kv(nc.jetstream()))
    async with serving("jetjobs", ["ui", "--port", "0"], page_env(settings)) as url:
        await page.goto(url)
        await expect(page.locator(".badge")).to_have_text("read-only")
        assert await page.locator("form[method=post]").count() == 0

        await page.goto(f"{url}jobs?id={job.id}")
        await expect(page.locator("#state")).to_have_text("queued")
        answer = await page.request.post(f"{url}dead/purge", form={"confirm": "yes"})
        assert answer.status == 403
        answer = await page.request.post(f"{url}jobs/{job.id}/cancel", form={"confirm": "yes"})
        assert answer.status == 403

        await page.goto(f"{url}replay?since=1h&type=jobs.fast")
        await expect(page.locator("#matched")).to_have_text("1")
        await expect(page.locator("#would-publish")).to_have_text("1")
    record, _ = await ledger.get(job.id)
    assert record is not None
    assert record.state == "queued", "a refused cancel must not have changed the job"


async def test_replay_cancel_and_purge_act_only_after_confirmation(
    page: Page, nc: NATS, settings: Settings
) -> None:
    """With --allow-actions: a replay's dry run offers the real replay, which publishes the window's
    jobs once confirmed; a job's ledger page cancels it once confirmed; purge empties the DLQ once
    confirmed, and answering "Cancel" on the confirmation changes nothing."""
    publisher = Publisher(nc, settings)
    first = await publisher.enqueue("jobs.fast", {"n": 1}, queue="ops-actions")
    await publisher.enqueue("jobs.fast", {"n": 2}, queue="ops-actions")
    topology = Topology(settings)
    ledger = Ledger(await topology.status_kv(nc.jetstream()))
    dead = DeadLetters(nc.jetstream(), topology, ledger)
    subject = topology.job_subject("ops-actions", "normal", "jobs.fast")
    letter = DeadLetter(job_id="dead-1", type="jobs.fast", queue="ops-actions", reason="rejected",
                        error="refused", attempts=1, worker="w", failed_at=utcnow(), enqueued_at=None,
                        original_subject=subject)  # fmt: skip
    await dead.put(letter)
    async with serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url:
        await page.goto(f"{url}replay?since=1h&type=jobs.fast")
        await expect(page.locator("#would-publish")).to_have_text("2")
        await page.get_by_role("button", name="Replay 2 jobs…").click()
        await expect(page.locator(".question")).to_contain_text("Replay 2 jobs of type jobs.fast from")
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_contain_text("published 2 of 2 jobs, already replayed 0")
        replay_id = (await page.locator("#done").inner_text()).split()[1].rstrip(":")

        await page.locator("input[name=id]").fill(first.id)
        await page.get_by_role("button", name="Show ledger entry").click()
        await expect(page.locator("#state")).to_have_text("queued")
        await page.get_by_role("button", name="Cancel job…").click()
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_contain_text(f"cancel {first.id}: cancelled")

        await expect(page.locator('tr[data-dead="dead-1"]')).to_be_visible()
        await page.locator("#purge").click()
        await page.get_by_role("link", name="Cancel").click()
        await expect(page.locator('tr[data-dead="dead-1"]')).to_be_visible()
        await page.locator("#purge").click()
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_have_text("purged 1 dead letter")
        await expect(page.locator("#deadletters")).to_contain_text("No dead letter")

    assert (await status_of(nc, settings, first.id)).state == "cancelled"
    assert [seq async for seq, _ in dead.entries()] == []
    plan = plan_replay("1h", job_type="jobs.fast", replay_id=replay_id)
    again = await replay(nc, settings, plan, dry_run=True)
    assert (again.matched, again.already_replayed, again.skipped_own) == (2, 2, 2)  # replayed once only
