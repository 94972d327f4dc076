"""Priorities against a real nats-server: high jobs overtake a low backlog, low jobs never starve."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Priority, Publisher, Settings
from jetjobs._transport.topology import Topology
from tests.support import running_worker

pytestmark = [pytest.mark.integration]


async def submit_many(publisher: Publisher, job_type: str, count: int, priority: Priority) -> list[str]:
    """Submit `count` jobs, up to 64 in flight at once; return their ids in submission order."""
    ids: list[str] = [""] * count
    # The first submit provisions the queue, so the concurrent ones do not race to do it.
    ids[0] = (await publisher.enqueue(job_type, {"n": 0}, priority=priority)).id
    limiter = anyio.CapacityLimiter(64)

    async def submit(n: int) -> None:
        async with limiter:
            ids[n] = (await publisher.enqueue(job_type, {"n": n}, priority=priority)).id

    async with anyio.create_task_group() as tg:
        for n in range(1, count):
            tg.start_soon(submit, n)
    return ids


async def test_high_job_overtakes_queued_low_jobs(nc: NATS, settings: Settings) -> None:
    """A high job submitted behind 5,000 queued low jobs starts before all but a handful of them.

    The handful is bounded by what the worker already held when the high job arrived: the low
    jobs running (`concurrency`) and those fetched into its buffer (`concurrency` per priority).
    """
    concurrency = 4
    app = App()
    starts: list[str] = []
    lows_flowing = anyio.Event()
    high_started = anyio.Event()

    @app.job("prio.low")
    async def low(ctx: JobContext, payload: dict[str, Any]) -> None:
        starts.append(ctx.id)
        if len(starts) == 50:
            lows_flowing.set()
        await anyio.sleep(0.005)  # the job's work

    @app.job("prio.high")
    async def high(ctx: JobContext, payload: dict[str, Any]) -> None:
        starts.append(ctx.id)
        high_started.set()

    publisher = Publisher(nc, settings)
    lows = await submit_many(publisher, "prio.low", 5000, "low")
    async with running_worker(app, nc, settings, concurrency=concurrency):
        with anyio.fail_after(30):
            await lows_flowing.wait()
        started_before_submit = len(starts)
        urgent = await publisher.enqueue("prio.high", {}, priority="high")
        with anyio.fail_after(10):
            await high_started.wait()
        position = starts.index(urgent.id)
    overtaken_by = position - started_before_submit
    assert overtaken_by <= 2 * concurrency, (
        f"{overtaken_by} low jobs started between the high job's submit and its start"
    )
    assert len(lows) - position >= 4900, "the high job did not overtake the low backlog"


async def test_low_jobs_progress_while_high_jobs_keep_arriving(nc: NATS, settings: Settings) -> None:
    """Low jobs still run while high ones never run out, at about the weights' 1 pick in 9.

    Every high job submits its successor as it starts, so the high backlog stays full; yet the
    worker keeps starting low jobs, and high jobs still get the lion's share of the picks.
    """
    concurrency = 4
    backlog = 8 * concurrency
    app = App()
    starts: list[Priority] = []

    @app.job("prio.high")
    async def high(ctx: JobContext, payload: dict[str, Any]) -> None:
        starts.append("high")
        await ctx.enqueue("prio.high", {}, priority="high", key=f"{ctx.id}:next")
        await anyio.sleep(0.005)  # the job's work

    @app.job("prio.low")
    async def low(ctx: JobContext, payload: dict[str, Any]) -> None:
        starts.append("low")
        await anyio.sleep(0.005)  # the job's work

    publisher = Publisher(nc, settings)
    low_ids = await submit_many(publisher, "prio.low", 100, "low")
    await submit_many(publisher, "prio.high", backlog, "high")

    def lows_done() -> int:
        return sum("succeeded" in outcomes.by_job.get(job_id, ()) for job_id in low_ids)

    async with running_worker(app, nc, settings, concurrency=concurrency) as (_, outcomes):
        await outcomes.wait(lambda: lows_done() >= 20)
        window = list(starts)
        high_consumer = await nc.jetstream().consumer_info(
            Topology(settings).jobs_stream, f"{settings.namespace}_default_high"
        )
    highs, lows = window.count("high"), window.count("low")
    assert high_consumer.num_pending >= 2 * concurrency, "the high backlog ran dry"
    assert lows >= 20
    assert lows >= 0.05 * len(window), f"low jobs starved: {lows} of {len(window)} picks"
    assert highs >= 4 * lows, f"high jobs not preferred: {highs} high to {lows} low picks"
