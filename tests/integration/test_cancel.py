"""Cancelling jobs against a real nats-server: queued jobs never start, running ones are told to stop."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import anyio
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobCancelled, JobContext, Publisher, Settings
from jetjobs._joblog.cancel import cancel
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import utcnow
from tests.support import run_jetjobs, running_worker

pytestmark = [pytest.mark.integration]


async def ledger_state(nc: NATS, settings: Settings, job_id: str) -> str | None:
    """The job's state in the status ledger."""
    record, _ = await Ledger(await Topology(settings).status_kv(nc.jetstream())).get(job_id)
    return record.state if record else None


async def nothing_pending(nc: NATS, settings: Settings, queue: str = "default") -> bool:
    """Whether the normal-priority consumer has nothing left to deliver nor awaiting an ack."""
    info = await nc.jetstream().consumer_info(
        Topology(settings).jobs_stream, f"{settings.namespace}_{queue}_normal"
    )
    return info.num_pending == 0 and info.num_ack_pending == 0


async def test_queued_job_is_never_started(nc: NATS, settings: Settings) -> None:
    """A job cancelled while queued is termed at delivery without running; the ledger says cancelled."""
    app = App()
    runs: list[str] = []

    @app.job("report.build")
    async def build(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    publisher = Publisher(nc, settings)
    doomed = await publisher.enqueue("report.build", {"n": 1})
    kept = await publisher.enqueue("report.build", {"n": 2})
    result = await cancel(nc, settings, doomed.id, reason="wrong month")
    assert (result.outcome, result.previous) == ("cancelled", "queued")
    async with running_worker(app, nc, settings) as (_, outcomes):
        await outcomes.wait_for(doomed.id, "cancelled")
        await outcomes.wait_for(kept.id, "succeeded")
    assert runs == [kept.id]
    assert await ledger_state(nc, settings, doomed.id) == "cancelled"
    assert await nothing_pending(nc, settings)
    # A finished job cannot be cancelled, nor an unknown one.
    assert (await cancel(nc, settings, kept.id)).outcome == "finished"
    assert (await cancel(nc, settings, doomed.id)).outcome == "finished"
    assert (await cancel(nc, settings, "no-such-job")).outcome == "unknown"


async def test_running_async_job_sees_cancellation_and_stays_cancelled(nc: NATS, settings: Settings) -> None:
    """A running handler's `ctx.cancelled` is set; what it returns is not recorded; no redelivery."""
    app = App()
    started = anyio.Event()
    saw_cancel: list[str] = []

    @app.job("export.big")
    async def export(ctx: JobContext, payload: dict[str, Any]) -> str:
        started.set()
        await ctx.cancelled.wait()
        saw_cancel.append(ctx.id)
        return "partial export"  # returned after the cancel: must not become `succeeded`

    async with running_worker(app, nc, settings) as (worker, outcomes):
        job = await Publisher(nc, settings).enqueue("export.big", {})
        with anyio.fail_after(10):
            await started.wait()
        assert await ledger_state(nc, settings, job.id) == "running"
        result = await cancel(nc, settings, job.id)
        assert (result.outcome, result.previous) == ("cancelled", "running")
        await outcomes.wait_for(job.id, "cancelled")
        assert worker.executor is not None
        assert worker.executor.running == {}
    assert saw_cancel == [job.id]
    assert outcomes.by_job[job.id] == ["cancelled"]
    record, _ = await Ledger(await Topology(settings).status_kv(nc.jetstream())).get(job.id)
    assert record is not None
    assert (record.state, record.result) == ("cancelled", None)
    assert await nothing_pending(nc, settings)


async def test_running_sync_job_stops_at_check_cancelled(nc: NATS, settings: Settings) -> None:
    """A thread handler calling `ctx.check_cancelled()` between steps stops with JobCancelled; no retry."""
    app = App()
    started = anyio.Event()
    raised: list[type[BaseException]] = []

    @app.job("rows.copy")
    def copy_rows(ctx: JobContext, payload: dict[str, Any]) -> int:
        anyio.from_thread.run_sync(started.set)
        rows = 0
        try:
            while True:  # the job's work: copy a row, then look whether to go on
                ctx.check_cancelled()
                rows += 1
                time.sleep(0.005)
        except JobCancelled as exc:
            raised.append(type(exc))
            raise

    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue("rows.copy", {}, max_attempts=3)
        with anyio.fail_after(10):
            await started.wait()
        await cancel(nc, settings, job.id)
        await outcomes.wait_for(job.id, "cancelled")
    assert raised == [JobCancelled]
    assert outcomes.by_job[job.id] == ["cancelled"]
    assert await ledger_state(nc, settings, job.id) == "cancelled"
    assert await nothing_pending(nc, settings)


async def test_cancel_delayed_job_deletes_its_schedule(nc: NATS, settings: Settings) -> None:
    """Cancelling a delayed job removes the server's schedule for it, so it never even fires."""
    publisher = Publisher(nc, settings)
    job = await publisher.enqueue("report.build", {}, run_at=utcnow() + timedelta(minutes=10))
    result = await cancel(nc, settings, job.id)
    assert (result.outcome, result.unscheduled) == ("cancelled", True)
    info = await nc.jetstream().stream_info(
        Topology(settings).jobs_stream, subjects_filter=Topology(settings).delayed_subject(job.id)
    )
    assert info.state.subjects in (None, {})
    assert await ledger_state(nc, settings, job.id) == "cancelled"


async def test_cancel_command(nc: NATS, settings: Settings) -> None:
    """`jetjobs cancel ID` exits 0 for a queued job, 1 for a finished or unknown one."""
    job = await Publisher(nc, settings).enqueue("report.build", {})
    done = await run_jetjobs(settings, "cancel", job.id, "--reason", "duplicate order")
    assert done.returncode == 0, done.stderr
    assert f"cancelled {job.id} (was queued)".encode() in done.stdout
    again = await run_jetjobs(settings, "cancel", job.id)
    assert again.returncode == 1
    assert b"already finished: cancelled" in again.stderr
    unknown = await run_jetjobs(settings, "cancel", "nope")
    assert unknown.returncode == 1
    record, _ = await Ledger(await Topology(settings).status_kv(nc.jetstream())).get(job.id)
    assert record is not None
    assert record.error == "cancelled: duplicate order"
