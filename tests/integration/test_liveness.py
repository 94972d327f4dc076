"""Liveness against a real server: heartbeats, the supervisor's recovery, election, fencing."""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Publisher, Retry, Settings
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.orphans import held_sequence, snapshot, sweep_orphans
from jetjobs._liveness.supervisor import Supervisor, live_workers
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import StatusRecord, WorkerDied, utcnow
from tests.support import enqueued_and_bound, ghost_worker, running_worker

pytestmark = [pytest.mark.integration]


@pytest.fixture
def live_settings(settings: Settings) -> Settings:
    """Fast heartbeats (0.5 s, expiring after 1 s) and a long lease (30 s)."""
    return msgspec.structs.replace(settings, heartbeat_interval=0.5, heartbeat_ttl=1, ack_wait=30.0)


def echo_app() -> App:
    app = App()

    @app.job("echo")
    async def echo(ctx: JobContext, payload: dict[str, Any]) -> dict[str, Any]:
        return payload

    return app


async def test_heartbeat_lists_worker_and_clean_stop_removes_it(nc: NATS, live_settings: Settings) -> None:
    """A running worker is listed with its queues; a clean stop removes it without a death event."""
    deaths: list[WorkerDied] = []
    async with running_worker(echo_app(), nc, live_settings, queues=["default", "mail"]) as (worker, _):
        assert worker.supervisor is not None
        worker.supervisor.listeners.append(deaths.append)
        beats = await live_workers(nc, live_settings)
        assert [b.id for b in beats] == [worker.id]
        assert beats[0].queues == ["default", "mail"]
        assert beats[0].concurrency == 10
    # The worker deleted its key before it stopped: a departure, not a death.
    assert await live_workers(nc, live_settings) == []
    assert deaths == []


async def test_dead_workers_jobs_come_back_long_before_ack_wait(nc: NATS, live_settings: Settings) -> None:
    """A worker that stops heart-beating while holding jobs: the supervisor NAKs them, they run now.

    The "dead worker" is played by this test: it fetches three deliveries without acking them and
    publishes a heartbeat naming them, then lets the heartbeat expire. ack_wait is an hour, so a
    recovery within the wait below can only come from the supervisor.
    """
    s = msgspec.structs.replace(live_settings, ack_wait=3600.0)
    topology = Topology(s)
    js = nc.jetstream()
    ids, sub = await enqueued_and_bound(nc, s, "echo", 3)
    held = await sub.fetch(3, timeout=5)
    assert len(held) == 3
    # The third was still in the worker's socket when it died: never claimed, never listed.
    ledger = Ledger(await topology.status_kv(js))
    beat = await ghost_worker(ledger, held, ids, claimed=2, listed=2)
    await topology.workers_kv(js)
    await js.publish(f"$KV.{topology.workers_bucket}.workers.ghost", msgspec.json.encode(beat), msg_ttl=1)

    events = await nc.subscribe(topology.events_subject("worker.died"))
    started = anyio.current_time()
    async with running_worker(echo_app(), nc, s) as (_, outcomes):
        await outcomes.wait(lambda: all("succeeded" in outcomes.by_job.get(i, ()) for i in ids), timeout=10)
        recovered_after = anyio.current_time() - started
        died = msgspec.json.decode((await events.next_msg(timeout=5)).data, type=WorkerDied)
    assert recovered_after < s.ack_wait / 3
    assert died.worker == "ghost"
    assert died.recovered == 2
    assert sorted(died.job_ids) == sorted(ids[:2])
    # Attempts count executions: the ghost ran the first two; the third never ran before.
    for job_id, attempt in zip(ids, (2, 2, 1), strict=True):
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert (record.state, record.attempt) == ("succeeded", attempt)


async def test_sweep_leaves_retry_backoff_alone(nc: NATS, live_settings: Settings) -> None:
    """A job waiting out Retry(delay=60) is pending too; a death sweep must not cut its delay short."""
    s = live_settings
    topology = Topology(s)
    app = App()

    @app.job("later")
    async def later(ctx: JobContext, payload: dict[str, Any]) -> None:
        raise Retry(delay=60)

    async with running_worker(app, nc, s) as (_, outcomes):
        job = await Publisher(nc, s).enqueue("later", {})
        await outcomes.wait_for(job.id, "retried")
        ledger = Ledger(await topology.status_kv(nc.jetstream()))
        windows = await snapshot(nc, topology, ["default"])
        assert windows  # the job is pending on the consumer
        swept = await sweep_orphans(nc, topology, ledger, windows, live=[])
    assert swept == []
    record, _ = await ledger.get(job.id)
    assert record is not None
    assert (record.state, record.attempt) == ("failed", 1)


def test_held_sequence_reads_both_ack_subject_forms() -> None:
    """The consumer and stream sequence come out of v1 and v2 `$JS.ACK` reply subjects."""
    assert held_sequence("$JS.ACK.JOBS.c1.1.42.40.1700000000.3") == ("c1", 42)
    assert held_sequence("$JS.ACK.dom.ACCHASH.JOBS.c1.2.42.40.1700000000.3.rand") == ("c1", 42)
    assert held_sequence("_INBOX.x") is None


async def test_one_supervisor_leads_and_another_takes_over(nc: NATS, live_settings: Settings) -> None:
    """Of two supervisors exactly one leads; when it stops, the other is elected."""
    first = Supervisor(nc, live_settings, supervisor_id="first")
    second = Supervisor(nc, live_settings, supervisor_id="second")
    async with anyio.create_task_group() as tg:
        first_scope = anyio.CancelScope()

        async def run_first() -> None:
            with first_scope:
                await first.run()

        tg.start_soon(run_first)

        with anyio.fail_after(10):
            await first.wait_leadership()
        await tg.start(second.run)
        assert not second.is_leader
        first_scope.cancel()
        with anyio.fail_after(10):
            await second.wait_leadership()
        assert not first.is_leader
        tg.cancel_scope.cancel()


async def test_lost_lease_cannot_complete_over_newer_attempt(nc: NATS, settings: Settings) -> None:
    """A handler that finishes after a newer attempt took the job over is fenced: not recorded, not acked."""
    app = App()
    release = anyio.Event()
    started = anyio.Event()

    @app.job("slow")
    async def slow(ctx: JobContext, payload: dict[str, Any]) -> str:
        started.set()
        await release.wait()
        return "late result"

    topology = Topology(settings)
    async with running_worker(app, nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue("slow", {})
        await started.wait()
        ledger = Ledger(await topology.status_kv(nc.jetstream()))
        newer = StatusRecord(
            id=job.id, type="slow", state="running", attempt=2, worker="newer", updated_at=utcnow()
        )
        await ledger.put(newer)
        release.set()
        await outcomes.wait_for(job.id, "fenced")
        record, _ = await ledger.get(job.id)
        info = await nc.jetstream().consumer_info(
            topology.jobs_stream, topology.consumer_name("default", "normal")
        )
    assert record is not None
    assert (record.state, record.attempt, record.worker) == ("running", 2, "newer")
    assert info.num_ack_pending == 1
