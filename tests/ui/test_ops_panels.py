"""The operations page's queues and throughput panels, and "Requeue all", with real numbers."""

from __future__ import annotations

import re

import msgspec
import pytest
from nats.aio.client import Client as NATS
from playwright.async_api import Page, expect

from jetjobs import Publisher, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs.ui._overview import Throughput
from jetjobs.ui._sections import REFRESH_EVERY
from tests.apps import app as test_app
from tests.support import running_worker, status_of
from tests.ui.ops_app import ops_in_process
from tests.ui.server import page_env, serving


@pytest.mark.integration
@pytest.mark.browser
@pytest.mark.timeout(90)
async def test_queues_panel_shows_a_consumers_pending_ack_pending_and_redelivered(
    page: Page, nc: NATS, settings: Settings
) -> None:
    """A consumer holding three deliveries (one of them delivered twice) with two more waiting in the
    stream shows 2 / 3 / 1 on the page; once the three are acked the row refreshes to 2 / 0 / 0."""
    settings = msgspec.structs.replace(settings, ack_wait=120.0)  # nothing expires while we look
    topology = Topology(settings)
    consumer = topology.consumer_name("ops-held", "normal")
    publisher = Publisher(nc, settings)
    for n in range(3):
        await publisher.enqueue("jobs.fast", {"n": n}, queue="ops-held")
    js = nc.jetstream()
    pull = await js.pull_subscribe_bind(durable=consumer, stream=topology.jobs_stream)
    held = await pull.fetch(3, timeout=10)
    assert len(held) == 3
    await held[0].nak()
    [again] = await pull.fetch(1, timeout=10)  # nothing else is in the stream: it is the nakked one
    assert again.metadata.num_delivered == 2
    for n in range(3, 5):
        await publisher.enqueue("jobs.fast", {"n": n}, queue="ops-held")
    info = await js.consumer_info(topology.jobs_stream, consumer)
    assert (info.num_pending, info.num_ack_pending, info.num_redelivered) == (2, 3, 1)

    async with serving("jetjobs", ["ui", "--port", "0"], page_env(settings)) as url:
        await page.goto(url)
        row = page.locator(f'#queues tr[data-consumer="{consumer}"]')
        await expect(row).to_contain_text("ops-held")
        await expect(row.locator("td").nth(1)).to_have_text("normal")
        await expect(row.locator("td.num")).to_have_text(["2", "3", "1", "0"])
        for other in ("high", "low"):  # the queue's other priorities, idle
            other_row = page.locator(
                f'#queues tr[data-consumer="{topology.consumer_name("ops-held", other)}"]'
            )
            await expect(other_row.locator("td.num")).to_have_text(["0", "0", "0", "0"])

        for msg in (again, held[1], held[2]):
            await msg.ack_sync()
        await expect(row.locator("td.num")).to_have_text(["2", "0", "0", "0"])  # the panel refreshes
    await pull.unsubscribe()


@pytest.mark.integration
@pytest.mark.browser
@pytest.mark.timeout(90)
async def test_throughput_panel_shows_nothing_until_a_whole_window_then_labels_it(
    page: Page, nc: NATS, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Until one whole window has passed the panel shows no figure, only since when it measures;
    then each row is labelled with its window (start to end) and the caption says how long one
    window is. After a worker ran six jobs a later window shows them submitted and settled.

    The page's meter here samples every 0.2 s over 2 s windows (the real one: 5 s over a minute),
    and the page refreshes the panel every 0.5 s (the real one: 15 s, a quarter of a window, as
    here), so the test waits for the page to show, never for a fixed time."""
    monkeypatch.setitem(REFRESH_EVERY, "throughput", 500)  # read by each render of the page
    meter = Throughput(nc, Topology(settings), every=0.2, window=2.0)
    async with ops_in_process(nc, settings, throughput=meter) as (url, _):
        await page.goto(url)
        # One look at the panel (it may refresh between two looks): the note and no table of rates.
        note, tables = await page.locator("#throughput").evaluate(
            "panel => [panel.querySelector('#measuring')?.textContent ?? null,"
            " panel.querySelectorAll('table.rates').length]"
        )
        if note is not None:  # the page loaded inside the first window
            assert "the first figure shows after one whole window of 2 s" in " ".join(note.split()), note
            assert tables == 0
        first = page.locator("#throughput table.rates tbody tr").first
        await expect(first).to_be_visible(timeout=30_000)  # the panel refreshes every 0.5 s
        await expect(page.locator("#rate-window")).to_have_text(
            "Jobs per minute, each row one whole window of 2 s, newest first"
        )
        await expect(first.locator("td").first).to_have_text(re.compile(r"^\d\d:\d\d\u2013\d\d:\d\d$"))
        assert len(meter.per_minute()) >= 1
        assert all((r.end - r.start).total_seconds() >= 2.0 for r in meter.per_minute())

        publisher = Publisher(nc, settings)
        async with running_worker(test_app, nc, settings, queues=["ops-run"]) as (_, outcomes):
            for n in range(6):
                await publisher.enqueue("jobs.fast", {"n": n}, queue="ops-run")
            await outcomes.wait(lambda: outcomes.count("succeeded") == 6)

        positive = re.compile(r"^\s*[1-9][\d,]*$")
        rows = page.locator("#throughput table.rates tbody tr")
        settled = rows.locator("td:nth-child(3)").filter(has_text=positive)
        await expect(settled.first).to_be_visible(timeout=45_000)
        await expect(rows.locator("td:nth-child(2)").filter(has_text=positive).first).to_be_visible()
        widths = await page.locator("#throughput .bar.ok").evaluate_all("bars => bars.map(b => b.dataset.w)")
        assert any(int(w) > 0 for w in widths)


@pytest.mark.integration
async def test_throughput_counts_each_settled_delivery_once(nc: NATS, settings: Settings) -> None:
    """Between two samples: five deliveries acked on one consumer; on another, one delivery nakked
    and acked when redelivered, one still held. That is 7 submitted and 7 settled (5 acks, a nak,
    an ack); the rate times the interval gives those numbers back."""
    topology = Topology(settings)
    publisher = Publisher(nc, settings)
    throughput = Throughput(nc, topology)
    await topology.ensure_queue(nc.jetstream(), "ops-a")
    await topology.ensure_queue(nc.jetstream(), "ops-b")
    await throughput.sample()
    for n in range(5):
        await publisher.enqueue("jobs.fast", {"n": n}, queue="ops-a")
    for n in range(2):
        await publisher.enqueue("jobs.fast", {"n": n}, queue="ops-b")
    js = nc.jetstream()
    stream = topology.jobs_stream
    a = await js.pull_subscribe_bind(durable=topology.consumer_name("ops-a", "normal"), stream=stream)
    for msg in await a.fetch(5, timeout=10):
        await msg.ack_sync()  # acked once the server says so
    b = await js.pull_subscribe_bind(durable=topology.consumer_name("ops-b", "normal"), stream=stream)
    first, _held = await b.fetch(2, timeout=10)
    await first.nak()
    [again] = await b.fetch(1, timeout=10)  # only the nakked one can come: the nak has landed
    assert again.metadata.num_delivered == 2
    await again.ack_sync()
    await throughput.sample()
    [rate] = throughput.per_minute(window=0)  # between the two samples, however close
    minutes = (rate.end - rate.start).total_seconds() / 60
    assert round(rate.submitted * minutes, 6) == 7
    assert round(rate.settled * minutes, 6) == 7
    await a.unsubscribe()
    await b.unsubscribe()


@pytest.mark.integration
@pytest.mark.browser
@pytest.mark.timeout(90)
async def test_requeue_all_requeues_every_dead_letter_after_confirmation(
    page: Page, nc: NATS, settings: Settings
) -> None:
    """Three jobs of a type no worker handles are dead letters. "Requeue all…" asks first; once
    confirmed, all three are back in their queue (pending 3, ledger `queued`) and the DLQ is empty."""
    publisher = Publisher(nc, settings)
    topology = Topology(settings)
    async with running_worker(test_app, nc, settings, queues=["ops-dead"]) as (_, outcomes):
        ids = [(await publisher.enqueue("jobs.missing", {"n": n}, queue="ops-dead")).id for n in range(3)]
        await outcomes.wait(lambda: all("invalid" in outcomes.by_job.get(i, ()) for i in ids))
    # The worker has stopped: requeued jobs stay in the queue for the page to count.

    env = page_env(settings)
    async with serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], env) as url:
        await page.goto(url)
        for job_id in ids:
            await expect(page.locator(f'tr[data-dead="{job_id}"]')).to_be_visible()
        await page.locator("#requeue-all").click()
        await expect(page.locator(".question")).to_have_text(
            "Requeue 3 dead letters (every type and reason)? Each runs again."
        )
        await page.get_by_role("link", name="Cancel").click()
        for job_id in ids:  # "Cancel" on the question changed nothing
            await expect(page.locator(f'tr[data-dead="{job_id}"]')).to_be_visible()

        await page.locator("#requeue-all").click()
        await page.locator("#confirm").click()
        await expect(page.locator("#done")).to_have_text("requeued 3 dead letters (every type and reason)")
        await expect(page.locator("#deadletters")).to_contain_text("No dead letter")
        consumer = topology.consumer_name("ops-dead", "normal")
        row = page.locator(f'#queues tr[data-consumer="{consumer}"] td.num')
        await expect(row).to_have_text(["3", "0", "0", "0"])

    for job_id in ids:
        assert (await status_of(nc, settings, job_id)).state == "queued"
    ledger = Ledger(await topology.status_kv(nc.jetstream()))
    assert [seq async for seq, _ in DeadLetters(nc.jetstream(), topology, ledger).entries()] == []
    assert page.dialogs == []  # type: ignore[attr-defined]
