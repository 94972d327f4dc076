"""The late claim against a real server: a short first delivery is recorded by its outcome's one
compare-and-set; a longer one shows `running` once it has run `claim_after`; redeliveries and
single-attempt jobs are claimed before they start; an unclaimed attempt is fenced all the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import msgspec
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from jetjobs import App, JobContext, Publisher, Retry, Settings
from jetjobs._joblog.cancel import cancel
from jetjobs._joblog.ledger import Ledger, queued_record
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import ENCODER, StatusRecord, utcnow
from tests.support import log_lines, running_worker

pytestmark = [pytest.mark.integration]


async def _ledger(nc: NATS, settings: Settings) -> Ledger:
    return Ledger(await Topology(settings).status_kv(nc.jetstream()))


class Writes:
    """Every stored write of the status ledger, in order (an ordered consumer on the bucket's
    stream: the bucket keeps only the last value of a key, and a plain subscription would also
    see compare-and-sets the stream refused)."""

    def __init__(self) -> None:
        self.by_job: dict[str, list[tuple[str, int]]] = {}
        self.seen: dict[str, int] = {}  # job id → the revision of its newest write seen
        self._arrived = anyio.Event()

    async def watch(self, nc: NATS, settings: Settings) -> None:
        topology = Topology(settings)
        self.ledger = Ledger(await topology.status_kv(nc.jetstream()))

        async def on_write(msg: Msg) -> None:
            record = msgspec.json.decode(msg.data, type=StatusRecord)
            self.by_job.setdefault(record.id, []).append((record.state, record.attempt))
            self.seen[record.id] = msg.metadata.sequence.stream
            self._arrived.set()

        await nc.jetstream().subscribe(
            f"$KV.{topology.status_bucket}.>",
            cb=on_write,
            ordered_consumer=True,
            deliver_policy=DeliverPolicy.NEW,
        )

    async def of(self, job_id: str) -> list[tuple[str, int]]:
        """The job's writes up to its current entry, oldest first: (state, attempt)."""
        _, revision = await self.ledger.get(job_id)
        await self._until(lambda: self.seen.get(job_id, 0) >= revision)
        return self.by_job.get(job_id, [])

    async def wait_for(self, job_id: str, write: tuple[str, int]) -> None:
        """Wait until the job's entry has been written as `write` (state, attempt)."""
        await self._until(lambda: write in self.by_job.get(job_id, []))

    async def _until(self, condition: Callable[[], bool]) -> None:
        """Re-check `condition` after every write seen (one waiter at a time)."""
        with anyio.fail_after(10):
            while not condition():
                self._arrived = anyio.Event()
                await self._arrived.wait()


@pytest.fixture
def late(settings: Settings) -> Settings:
    """The late claim on, at 0.1 s: for a job held until its claim is seen."""
    return msgspec.structs.replace(settings, claim_after=0.1)


@pytest.fixture
def never_late(settings: Settings) -> Settings:
    """The late claim on, after a minute: never reached by a test that must see no claim (a
    stalled event loop on a busy machine cannot make one)."""
    return msgspec.structs.replace(settings, claim_after=60.0, ack_wait=300.0)


@pytest.fixture
async def writes(nc: NATS, settings: Settings) -> Writes:
    watched = Writes()
    await watched.watch(nc, settings)
    return watched


def _app(release: anyio.Event, started: anyio.Event) -> App:
    app = App()

    @app.job("quick")
    async def quick(ctx: JobContext, payload: dict[str, Any]) -> int:
        return ctx.attempt

    @app.job("held")
    async def held(ctx: JobContext, payload: dict[str, Any]) -> str:
        started.set()
        await release.wait()
        return "done"

    @app.job("flaky")
    async def flaky(ctx: JobContext, payload: dict[str, Any]) -> int:
        if ctx.attempt == 1:
            raise Retry("once more", delay=0.01)
        return ctx.attempt

    return app


async def test_a_short_job_is_recorded_by_one_write(nc: NATS, never_late: Settings, writes: Writes) -> None:
    """queued → succeeded (attempt 1, this worker): no `running` write in between."""
    app = _app(anyio.Event(), anyio.Event())
    async with running_worker(app, nc, never_late) as (worker, outcomes):
        jobs = [await Publisher(nc, never_late).enqueue("quick", {}) for _ in range(20)]
        for job in jobs:
            await outcomes.wait_for(job.id, "succeeded")
    for job in jobs:
        assert await writes.of(job.id) == [("queued", 0), ("succeeded", 1)]
        record, _ = await (await _ledger(nc, never_late)).get(job.id)
        assert record is not None
        assert (record.worker, record.result) == (worker.id, 1)


async def test_a_longer_job_shows_running_once_it_has_run_claim_after(
    nc: NATS, late: Settings, writes: Writes
) -> None:
    release, started = anyio.Event(), anyio.Event()
    ledger = await _ledger(nc, late)
    async with running_worker(_app(release, started), nc, late) as (worker, outcomes):
        job = await Publisher(nc, late).enqueue("held", {})
        await started.wait()
        await writes.wait_for(job.id, ("running", 1))
        record, _ = await ledger.get(job.id)
        assert record is not None
        assert (record.attempt, record.worker, record.delivery) == (1, worker.id, 1)
        release.set()
        await outcomes.wait_for(job.id, "succeeded")
    assert await writes.of(job.id) == [("queued", 0), ("running", 1), ("succeeded", 1)]


async def test_claim_after_zero_and_single_attempt_jobs_claim_before_they_start(
    nc: NATS, settings: Settings, late: Settings, writes: Writes
) -> None:
    """`claim_after=0` (the default) claims every job first; with a late claim on, a job with
    `max_attempts=1` is still claimed first."""
    app = _app(anyio.Event(), anyio.Event())
    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue("quick", {})
        await outcomes.wait_for(job.id, "succeeded")
    assert await writes.of(job.id) == [("queued", 0), ("running", 1), ("succeeded", 1)]
    async with running_worker(app, nc, late) as (_, outcomes):
        once = await Publisher(nc, late).enqueue("quick", {}, max_attempts=1)
        await outcomes.wait_for(once.id, "succeeded")
    assert await writes.of(once.id) == [("queued", 0), ("running", 1), ("succeeded", 1)]


async def test_a_retry_is_claimed_before_it_starts(nc: NATS, never_late: Settings, writes: Writes) -> None:
    """The second execution is a redelivery: `running` (attempt 2) is written before it runs."""
    async with running_worker(_app(anyio.Event(), anyio.Event()), nc, never_late) as (_, outcomes):
        job = await Publisher(nc, never_late).enqueue("flaky", {})
        await outcomes.wait_for(job.id, "succeeded")
    assert await writes.of(job.id) == [
        ("queued", 0),
        ("failed", 1),
        ("running", 2),
        ("succeeded", 2),
    ]


async def test_an_unclaimed_attempt_is_fenced_by_a_newer_claim(nc: NATS, settings: Settings) -> None:
    """Another attempt claims the job while this one runs unclaimed: this one's result is not
    recorded, and its late claim does not overwrite the newer one."""
    release, started = anyio.Event(), anyio.Event()
    late = msgspec.structs.replace(settings, claim_after=3.0, ack_wait=30.0)  # the newer write first
    ledger = await _ledger(nc, settings)
    with log_lines() as lines:
        async with running_worker(_app(release, started), nc, late) as (_, outcomes):
            job = await Publisher(nc, late).enqueue("held", {})
            await started.wait()
            _, revision = await ledger.get(job.id)
            newer = StatusRecord(
                id=job.id, type="held", state="running", attempt=1, worker="newer", updated_at=utcnow()
            )
            assert await ledger.write(newer, revision) is not None
            lost = await lines.wait("job.late_claim_lost")  # past claim_after: it tried, and lost
            assert (lost["job_id"], lost["state"]) == (job.id, "running")
            release.set()
            await outcomes.wait_for(job.id, "fenced")
    record, _ = await ledger.get(job.id)
    assert record is not None
    assert (record.state, record.worker) == ("running", "newer")


async def test_an_unclaimed_attempt_cancelled_while_it_runs_stays_cancelled(
    nc: NATS, settings: Settings, never_late: Settings
) -> None:
    release, started = anyio.Event(), anyio.Event()
    late = never_late
    async with running_worker(_app(release, started), nc, late) as (_, outcomes):
        job = await Publisher(nc, late).enqueue("held", {})
        await started.wait()
        result = await cancel(nc, late, job.id)
        assert (result.outcome, result.previous) == ("cancelled", "queued")
        release.set()
        await outcomes.wait_for(job.id, "cancelled")
    record, _ = await (await _ledger(nc, settings)).get(job.id)
    assert record is not None
    assert record.state == "cancelled"


async def test_a_queued_record_landing_after_the_read_is_written_over(
    nc: NATS, settings: Settings, never_late: Settings, writes: Writes
) -> None:
    """A job published raw (no entry when the worker read it) whose `queued` entry lands while it
    runs: the outcome is written over that entry instead of being lost as fenced."""
    release, started = anyio.Event(), anyio.Event()
    late = never_late
    ledger = await _ledger(nc, settings)
    topology = Topology(late)
    async with running_worker(_app(release, started), nc, late) as (_, outcomes):
        publisher = Publisher(nc, late)
        job = publisher.build("held", {})
        await nc.jetstream().publish(
            topology.job_subject(job.queue, job.priority, job.type), ENCODER.encode(job)
        )
        await started.wait()
        await ledger.put(queued_record(job))
        release.set()
        await outcomes.wait_for(job.id, "succeeded")
    assert await writes.of(job.id) == [("queued", 0), ("succeeded", 1)]
