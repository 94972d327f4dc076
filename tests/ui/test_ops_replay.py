"""The replay page in Chromium: the dry run's count is what the replay then publishes."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Browser, expect

from jetjobs import Publisher, Settings
from jetjobs._joblog.replay import plan_replay, replay
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import utcnow
from jetjobs._wire.timespec import rfc3339
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(90)]

ZONE = "Asia/Kolkata"  # UTC+05:30: a local time cannot be mistaken for the UTC one


async def last_seq(nc: NATS, settings: Settings) -> int:
    """The JOBS stream's last sequence: it moves only when something is stored."""
    return (await nc.jetstream().stream_info(Topology(settings).jobs_stream)).state.last_seq


async def test_dry_run_count_is_what_the_replay_publishes(
    browser: Browser, nc: NATS, settings: Settings
) -> None:
    """Three jobs that an earlier replay replayed already: the dry run says nothing to replay, and
    why (the old page said "would publish 3", and the replay published 0). With "again" it says 3;
    the confirmation asks "Replay 3 jobs of type jobs.fast from HH:MM-HH:MM?" in the reader's time
    zone; confirmed, exactly 3 jobs are stored, although a fourth arrived after the dry run."""
    publisher = Publisher(nc, settings)
    since = utcnow() - timedelta(seconds=1)
    for n in range(3):
        await publisher.enqueue("jobs.fast", {"n": n}, queue="ops-replay")
    earlier = await replay(nc, settings, plan_replay(since, job_type="jobs.fast", replay_id="earlier"))
    assert earlier.published == 3

    context = await browser.new_context(timezone_id=ZONE, viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    window = {"since": rfc3339(since), "type": "jobs.fast"}
    async with serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url:
        await page.goto(f"{url}replay?{urlencode(window)}")
        await expect(page.locator("#would-publish")).to_have_text("0")
        await expect(page.locator("#would")).to_have_text(
            "Nothing to replay in this window: its 3 jobs were replayed before by another replay "
            '(tick "again" to replay them once more).'
        )
        await expect(page.locator("#replay-real")).to_have_count(0)
        await expect(page.locator("#left-out")).to_have_text(
            "3 replayed before by another replay, 3 replays themselves"
        )

        await page.get_by_label("again").check()
        await page.locator("#dry-run").click()
        await expect(page.locator("#would-publish")).to_have_text("3")
        await expect(page.locator("#left-out")).to_have_text("3 replays themselves")
        await publisher.enqueue("jobs.fast", {"n": 3}, queue="ops-replay")  # after the dry run

        local = since.astimezone(ZoneInfo(ZONE)).strftime("%H:%M")
        question = re.compile(
            rf"^Replay 3 jobs of type jobs\.fast from {local}\u2013\d\d:\d\d\? "
            r"Each runs again as a new job\.$"
        )
        await expect(page.locator("#would")).to_have_text(question)
        await page.locator("#replay-real").click()
        await expect(page.locator(".question")).to_have_text(question)
        seq = await last_seq(nc, settings)
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_contain_text("published 3 of 3 jobs")
    assert await last_seq(nc, settings) == seq + 3
    await context.close()
