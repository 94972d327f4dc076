"""The job lifecycle against a real nats-server: run, retry, dead-letter, requeue, dedupe."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import msgspec
import pytest
import structlog
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, JobTooLarge, Publisher, Reject, Retry, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from tests.support import running_worker

pytestmark = [pytest.mark.integration]


async def ledger_of(nc: NATS, settings: Settings) -> Ledger:
    topology = Topology(settings)
    return Ledger(await topology.status_kv(nc.jetstream()))


async def test_enqueue_run_ack(nc: NATS, settings: Settings) -> None:
    """A submitted job runs once, its result lands in the ledger, and the consumer has nothing pending."""
    app = App()
    seen: list[dict[str, Any]] = []

    @app.job("math.add")
    async def add(ctx: JobContext, payload: dict[str, Any]) -> dict[str, int]:
        seen.append(payload)
        return {"sum": payload["a"] + payload["b"]}

    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await publisher.enqueue("math.add", {"a": 2, "b": 3})
        await outcomes.wait_for(job.id, "succeeded")
    assert seen == [{"a": 2, "b": 3}]
    record, _ = await (await ledger_of(nc, settings)).get(job.id)
    assert record is not None
    assert record.state == "succeeded"
    assert record.result == {"sum": 5}
    assert record.attempt == 1
    info = await nc.jetstream().consumer_info(
        Topology(settings).jobs_stream, f"{settings.namespace}_default_normal"
    )
    assert info.num_pending == 0
    assert info.num_ack_pending == 0


async def test_sync_handler_runs_in_thread(nc: NATS, settings: Settings) -> None:
    """A plain `def` handler runs (in a worker thread) and its result is recorded."""
    app = App()

    @app.job("sync.echo")
    def echo(ctx: JobContext, payload: dict[str, Any]) -> dict[str, Any]:
        return payload

    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue("sync.echo", {"x": 1})
        await outcomes.wait_for(job.id, "succeeded")
    record, _ = await (await ledger_of(nc, settings)).get(job.id)
    assert record is not None
    assert record.result == {"x": 1}


async def test_retry_then_success(nc: NATS, settings: Settings) -> None:
    """An exception naks with backoff; the next attempt succeeds; the ledger says attempt 3."""
    app = App()
    attempts: list[int] = []

    @app.job("flaky.op")
    async def flaky(ctx: JobContext, payload: dict[str, Any]) -> str:
        attempts.append(ctx.attempt)
        if ctx.attempt < 3:
            raise ConnectionError("upstream unavailable")
        return "done"

    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue("flaky.op", {}, max_attempts=5)
        await outcomes.wait_for(job.id, "succeeded")
    assert attempts == [1, 2, 3]
    assert outcomes.by_job[job.id] == ["retried", "retried", "succeeded"]
    record, _ = await (await ledger_of(nc, settings)).get(job.id)
    assert record is not None
    assert (record.state, record.attempt) == ("succeeded", 3)


async def test_explicit_retry_delay_and_reject(nc: NATS, settings: Settings) -> None:
    """`Retry(delay)` runs the job again; `Reject(reason)` dead-letters it at once with that reason."""
    app = App()

    @app.job("x.retry")
    async def retry(ctx: JobContext, payload: dict[str, Any]) -> int:
        if ctx.attempt == 1:
            raise Retry(delay=0.1)
        return ctx.attempt

    @app.job("x.reject")
    async def reject(ctx: JobContext, payload: dict[str, Any]) -> None:
        raise Reject("address is on the suppression list")

    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings) as (worker, outcomes):
        retried = await publisher.enqueue("x.retry", {})
        rejected = await publisher.enqueue("x.reject", {})
        await outcomes.wait_for(retried.id, "succeeded")
        await outcomes.wait_for(rejected.id, "dead")
    dlq = DeadLetters(nc.jetstream(), worker.topology, await ledger_of(nc, settings))
    found = await dlq.show(rejected.id)
    assert found is not None
    assert found[1].reason == "rejected"
    assert found[1].error == "address is on the suppression list"
    assert found[1].attempts == 1


async def test_exhaustion_dead_letter_requeue_success(nc: NATS, settings: Settings) -> None:
    """After max_attempts failures the job is dead-lettered with its error; requeued, it runs again."""
    app = App()
    broken = True

    @app.job("report.build")
    async def build(ctx: JobContext, payload: dict[str, Any]) -> str:
        if broken:
            raise ValueError(f"bad input on attempt {ctx.attempt}")
        return "built"

    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings) as (worker, outcomes):
        job = await publisher.enqueue("report.build", {"id": 7}, max_attempts=3)
        await outcomes.wait_for(job.id, "dead")
        assert outcomes.by_job[job.id] == ["retried", "retried", "dead"]
        ledger = await ledger_of(nc, settings)
        record, _ = await ledger.get(job.id)
        assert record is not None
        assert (record.state, record.dead_reason) == ("dead", "exhausted")
        dlq = DeadLetters(nc.jetstream(), worker.topology, ledger)
        found = await dlq.show(job.id)
        assert found is not None
        seq, letter = found
        assert letter.reason == "exhausted"
        assert letter.attempts == 3
        assert letter.error == "ValueError: bad input on attempt 3"
        assert letter.worker == worker.id
        assert letter.type == "report.build"
        assert msgspec.json.decode(letter.original)["payload"] == {"id": 7}

        broken = False
        await dlq.requeue(seq, letter)
        await outcomes.wait_for(job.id, "succeeded")
        assert await dlq.show(job.id) is None
    record, _ = await ledger.get(job.id)
    assert record is not None
    assert (record.state, record.attempt, record.result) == ("succeeded", 1, "built")


async def test_timeout_dead_letters_with_reason_timeout(nc: NATS, settings: Settings) -> None:
    """A handler past its job's timeout is cancelled; at the last attempt the reason is `timeout`."""
    app = App()
    never = anyio.Event()

    @app.job("slow.op")
    async def slow(ctx: JobContext, payload: dict[str, Any]) -> None:
        await never.wait()

    async with running_worker(app, nc, settings) as (worker, outcomes):
        job = await Publisher(nc, settings).enqueue("slow.op", {}, timeout=0.2, max_attempts=2)
        await outcomes.wait_for(job.id, "dead")
        found = await DeadLetters(nc.jetstream(), worker.topology, await ledger_of(nc, settings)).show(job.id)
    assert found is not None
    assert found[1].reason == "timeout"
    assert "timeout of 0.2s" in found[1].error


async def test_sync_handler_timeout_dead_letters_too(nc: NATS, settings: Settings) -> None:
    """A plain `def` handler past its timeout is abandoned in its thread and the job times out."""
    app = App()
    release = threading.Event()

    @app.job("slow.sync")
    def slow(ctx: JobContext, payload: dict[str, Any]) -> None:
        release.wait(30)

    try:
        async with running_worker(app, nc, settings) as (worker, outcomes):
            job = await Publisher(nc, settings).enqueue("slow.sync", {}, timeout=0.2, max_attempts=1)
            await outcomes.wait_for(job.id, "dead")
            ledger = await ledger_of(nc, settings)
            found = await DeadLetters(nc.jetstream(), worker.topology, ledger).show(job.id)
    finally:
        release.set()
    assert found is not None
    assert found[1].reason == "timeout"


async def test_duplicate_submit_runs_once(nc: NATS, settings: Settings) -> None:
    """Two submits with one idempotency key inside the window: the second is `duplicate`, one run."""
    app = App()
    runs: list[str] = []

    @app.job("mail.welcome")
    async def welcome(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    publisher = Publisher(nc, settings)
    first = await publisher.enqueue("mail.welcome", {"to": "ada@example.com"}, key="welcome:ada")
    second = await publisher.enqueue("mail.welcome", {"to": "ada@example.com"}, key="welcome:ada")
    assert not first.duplicate
    assert second.duplicate
    assert second.id == first.id
    marker = await publisher.enqueue("mail.welcome", {"to": "bob@example.com"})
    async with running_worker(app, nc, settings, concurrency=1) as (_, outcomes):
        await outcomes.wait_for(marker.id, "succeeded")
    assert runs == [first.id, marker.id]


async def test_redelivered_completed_job_is_not_run_again(nc: NATS, settings: Settings) -> None:
    """A job whose ledger says succeeded is acked without running when it is delivered again."""
    app = App()
    runs: list[str] = []

    @app.job("once.only")
    async def once(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await publisher.enqueue("once.only", {})
        await outcomes.wait_for(job.id, "succeeded")
        # The same job message published again beyond dedup (another msg id): acked without
        # running, and reported as a duplicate (an id names one job forever).
        original = publisher.build("once.only", {}, job_id=job.id, key=f"{job.id}:again")
        await publisher.publish(original)
        await outcomes.wait_for(job.id, "duplicate")
    assert runs == [job.id]


async def test_lease_extension_keeps_long_job_single(nc: NATS, settings: Settings) -> None:
    """A job running 5x ack_wait is never redelivered: the lease is extended while it runs."""
    fast = msgspec.structs.replace(settings, ack_wait=0.6)
    app = App()
    starts: list[int] = []

    @app.job("long.op")
    async def long_op(ctx: JobContext, payload: dict[str, Any]) -> None:
        starts.append(ctx.attempt)
        await anyio.sleep(fast.ack_wait * 5)  # the job's work: it must outlive the lease 5 times

    async with running_worker(app, nc, fast) as (worker, outcomes):
        job = await Publisher(nc, fast).enqueue("long.op", {})
        await outcomes.wait_for(job.id, "succeeded")
        assert worker.lease.extensions >= 5
    assert starts == [1]
    info = await nc.jetstream().consumer_info(Topology(fast).jobs_stream, f"{fast.namespace}_default_normal")
    assert info.num_redelivered == 0


async def test_oversized_publish_fails_at_publisher(nc: NATS, settings: Settings) -> None:
    """A job over max_job_bytes is refused before it reaches the server, with a clear message."""
    publisher = Publisher(nc, settings)
    with pytest.raises(JobTooLarge, match="limit is 262144"):
        await publisher.enqueue("big.job", {"blob": "x" * 300_000})


async def test_publish_many_pipelines_and_dedupes(nc: NATS, settings: Settings) -> None:
    """`publish_many` stores every job once, records `queued`, and reports duplicates by key."""
    publisher = Publisher(nc, settings)
    jobs = [publisher.build("bulk.item", {"n": i}, key=f"bulk-{i % 250}") for i in range(300)]
    results = await publisher.publish_many(jobs, window=64)
    assert [r.duplicate for r in results] == [False] * 250 + [True] * 50
    assert [r.id for r in results[250:]] == [j.id for j in jobs[:50]]
    info = await nc.jetstream().stream_info(Topology(settings).jobs_stream)
    assert info.state.messages == 250
    record, _ = await (await ledger_of(nc, settings)).get(jobs[0].id)
    assert record is not None
    assert record.state == "queued"


async def test_context_a_handler_binds_ends_with_its_job(nc: NATS, settings: Settings) -> None:
    """Runners are long-lived: a structlog binding made by one job's handler is not seen by the next."""
    app = App()
    seen: list[dict[str, Any]] = []

    @app.job("ctx.bind")
    async def bind(ctx: JobContext, payload: dict[str, Any]) -> None:
        seen.append(structlog.contextvars.get_contextvars())  # as the job starts
        structlog.contextvars.bind_contextvars(customer="acme")

    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings, concurrency=1) as (_, outcomes):
        first = await publisher.enqueue("ctx.bind", {})
        await outcomes.wait_for(first.id, "succeeded")
        second = await publisher.enqueue("ctx.bind", {})
        await outcomes.wait_for(second.id, "succeeded")
    assert [entry["job_id"] for entry in seen] == [first.id, second.id]
    assert [entry.get("customer") for entry in seen] == [None, None]
