"""Graceful shutdown of a real `jetjobs worker` process: SIGTERM loses nothing and delays nothing."""

from __future__ import annotations

import signal
from collections.abc import Collection
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from nats.aio.client import Client as NATS
from nats.js.kv import KeyValue

from jetjobs import App, JobContext, Publisher, Settings
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import STATUS_DECODER
from jetjobs.testing import WorkerPool
from tests.support import running_worker

pytestmark = [pytest.mark.integration]

CONCURRENCY = 4


async def wait_running(kv: KeyValue, job_ids: Collection[str], count: int, timeout: float = 15.0) -> set[str]:
    """Watch the ledger until `count` of `job_ids` are running; return those."""
    states: dict[str, str] = {}
    watcher = await kv.watchall()
    try:
        with anyio.fail_after(timeout):
            async for entry in watcher:
                if entry is None or not entry.value:  # the end of the initial values, or a delete
                    continue
                record = STATUS_DECODER.decode(entry.value)
                states[record.id] = record.state
                running = {job_id for job_id in job_ids if states.get(job_id) == "running"}
                if len(running) >= count:
                    return running
    finally:
        await watcher.stop()
    raise AssertionError("the ledger watch ended")


async def test_sigterm_hands_every_job_back_at_once(nc: NATS, settings: Settings, repo_root: Path) -> None:
    """SIGTERM: the worker process stops fetching, NAKs what it holds and exits 0 within seconds.

    Another worker then finishes every job long before `ack_wait` (30 s) could have brought any
    back, and each job succeeds exactly once: the ones completed before the signal are not run
    again, the interrupted ones run once more, as attempt 2.
    """
    shared = msgspec.structs.replace(settings, ack_wait=30.0, grace_period=1.0)
    publisher = Publisher(nc, shared)
    ledger = Ledger(await Topology(shared).status_kv(nc.jetstream()))

    url = settings.nats.url or ""
    pool = WorkerPool("tests.apps:app", shared, url, concurrency=CONCURRENCY, keep_log=True, cwd=repo_root)
    async with pool:
        [worker] = await pool.start(1)
        fast = [(await publisher.enqueue("jobs.fast", {"n": n})).id for n in range(5)]
        slow = [(await publisher.enqueue("jobs.slow", {"seconds": 30})).id for _ in range(20)]
        interrupted = await wait_running(ledger.kv, slow, CONCURRENCY)
        worker.send(signal.SIGTERM)
        with anyio.fail_after(10):
            await worker.exited.wait()
    assert worker.returncode == 0, "\n".join(worker.tail)
    assert len(worker.logged("job.interrupted")) == CONCURRENCY
    assert worker.logged("worker.stopped")
    for job_id in interrupted:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert (record.state, record.attempt, record.worker) == ("queued", 1, None)

    app = App()
    runs: list[str] = []

    @app.job("jobs.slow")
    async def slow_done(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    @app.job("jobs.fast")
    async def fast_done(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    async with running_worker(app, nc, shared, concurrency=CONCURRENCY) as (_, outcomes):
        await outcomes.wait(lambda: outcomes.count("succeeded") == len(slow), timeout=10)
    assert sorted(runs) == sorted(slow), "a job ran twice, or a completed one ran again"
    assert sum(len(o) for o in outcomes.by_job.values()) == len(slow), dict(outcomes.by_job)
    for job_id in fast:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert (record.state, record.attempt, record.worker) == ("succeeded", 1, worker.worker_id)
    attempts = {}
    for job_id in slow:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert record.state == "succeeded"
        attempts[job_id] = record.attempt
    assert all(attempts[job_id] == 2 for job_id in interrupted), attempts
    assert set(attempts.values()) <= {1, 2}, attempts
    jobs = await nc.jetstream().consumer_info(
        Topology(shared).jobs_stream, f"{shared.namespace}_default_normal"
    )
    assert (jobs.num_pending, jobs.num_ack_pending) == (0, 0)
