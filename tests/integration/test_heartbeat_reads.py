"""Reading who is alive (jetjobs._liveness.roster) against a real server, while heartbeats change."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import msgspec
import nats.js.errors
import pytest
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext

from jetjobs import App, JobContext, Settings
from jetjobs._liveness.roster import live_workers, read_beats
from jetjobs._transport.connection import connect
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import WorkerBeat, utcnow
from jetjobs._wire.headers import KV_OPERATION
from tests.support import running_worker

pytestmark = [pytest.mark.integration]

SNAPSHOTS = 1000


def beat_of(worker_id: str, queue: str = "default") -> bytes:
    """A heartbeat value as a worker writes it."""
    now = utcnow()
    beat = WorkerBeat(
        id=worker_id, host="h", pid=1, queues=[queue], concurrency=1, version="t", started_at=now, beat_at=now
    )
    return msgspec.json.encode(beat)


async def consumer_count(js: JetStreamContext, topology: Topology) -> int:
    """How many consumers the server holds on the heartbeat bucket's stream."""
    return (await js.stream_info(f"KV_{topology.workers_bucket}")).state.consumer_count


@asynccontextmanager
async def writer_connection(settings: Settings) -> AsyncIterator[NATS]:
    """A second connection to the session server: the writers' own, as workers have."""
    conn = await connect(settings.nats.url or "", settings.nats, name="jetjobs-test-writer")
    try:
        yield conn
    finally:
        await conn.close()


@asynccontextmanager
async def renewing(nc: NATS, topology: Topology, worker_ids: list[str]) -> AsyncIterator[Callable[[], int]]:
    """Workers re-putting their keys back to back (each put acked before the next), as fast as the
    server stores them, for as long as the block runs; yields how many puts were stored."""
    js = nc.jetstream()
    stored = 0

    async def renew(worker_id: str) -> None:
        nonlocal stored
        subject = f"$KV.{topology.workers_bucket}.workers.{worker_id}"
        while True:
            await js.publish(subject, beat_of(worker_id), msg_ttl=30)
            stored += 1

    for worker_id in worker_ids:  # every key present before the first read
        await js.publish(f"$KV.{topology.workers_bucket}.workers.{worker_id}", beat_of(worker_id), msg_ttl=30)
    async with anyio.create_task_group() as tg:
        for worker_id in worker_ids:
            tg.start_soon(renew, worker_id)
        yield lambda: stored
        tg.cancel_scope.cancel()


async def test_snapshots_list_every_worker_while_their_keys_are_renewed(settings: Settings, nc: NATS) -> None:
    """1,000 snapshots taken while three workers re-put their keys non-stop each list all three.

    (nats-py's `keys()` listing missed one or more of them in a few of every thousand reads.)
    """
    topology = Topology(settings)
    await topology.workers_kv(nc.jetstream())
    ids = ["w0", "w1", "w2"]
    async with writer_connection(settings) as writer, renewing(writer, topology, ids) as stored:
        listed = [[b.id for b in await live_workers(nc, settings)] for _ in range(SNAPSHOTS)]
        renewals = stored()
    assert renewals > 3 * 10  # the reads raced real renewals
    assert [snapshot for snapshot in listed if snapshot != ids] == []


async def test_snapshots_leave_no_consumer_on_the_server(settings: Settings, nc: NATS) -> None:
    """1,000 snapshots of a running worker: the bucket stream's consumer count after them is
    the count before (each of nats-py's `keys()` listings left one for 5 minutes)."""
    topology = Topology(settings)
    js = nc.jetstream()
    app = App(builtins=False)

    @app.job("noop")
    async def noop(ctx: JobContext, payload: dict[str, Any]) -> None:
        return None

    s = msgspec.structs.replace(settings, heartbeat_interval=0.05, heartbeat_ttl=2)
    async with running_worker(app, nc, s, concurrency=1) as (worker, _):
        before = await consumer_count(js, topology)
        for _ in range(SNAPSHOTS):
            assert [b.id for b in await live_workers(nc, s)] == [worker.id]
        after = await consumer_count(js, topology)
    assert after == before


async def test_deleted_and_expired_keys_are_not_live(settings: Settings, nc: NATS) -> None:
    """A worker that left (its key deleted) and one that died (its key expired: the server's
    marker) are not listed; neither are the bucket's other keys (leader, death records)."""
    topology = Topology(settings)
    js = nc.jetstream()
    kv = await topology.workers_kv(js)
    prefix = f"$KV.{topology.workers_bucket}"
    await js.publish(f"{prefix}.workers.alive", beat_of("alive"), msg_ttl=60)
    await js.publish(f"{prefix}.workers.left", beat_of("left"), msg_ttl=60)
    await js.publish(f"{prefix}.workers.left", b"", headers={KV_OPERATION: "DEL"})
    await js.publish(f"{prefix}.leader", b"someone", msg_ttl=60)
    await js.publish(f"{prefix}.dead.x.1", beat_of("x"), msg_ttl=60)
    watcher = await kv.watch("workers.died")
    try:
        await js.publish(f"{prefix}.workers.died", beat_of("died"), msg_ttl=1)
        with anyio.fail_after(10):
            async for entry in watcher:
                if entry is not None and entry.operation == "PURGE":  # the expiry marker
                    break
    finally:
        await watcher.stop()
    assert [b.id for b in await live_workers(nc, settings)] == ["alive"]


async def test_more_workers_than_one_multi_get_matches(settings: Settings, nc: NATS) -> None:
    """1,100 live keys (more than the 1,024 one multi-subject direct get may match): all listed."""
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.workers_kv(js)
    ids = [f"w{i:04d}" for i in range(1100)]
    acks = [await js.publish(f"$KV.{topology.workers_bucket}.workers.{i}", beat_of(i)) for i in ids]
    assert len(acks) == len(ids)
    assert [b.id for b in await read_beats(nc, topology.workers_bucket)] == ids


async def test_no_bucket_means_no_workers(settings: Settings, nc: NATS) -> None:
    """A namespace where no worker ever ran has no bucket: no workers, and no bucket created."""
    assert await live_workers(nc, settings) == []
    with pytest.raises(nats.js.errors.NotFoundError):
        await nc.jetstream().stream_info(f"KV_{Topology(settings).workers_bucket}")


async def test_the_heartbeat_carries_the_apps_fingerprint(settings: Settings, nc: NATS) -> None:
    """`App(fingerprint=...)` is in every heartbeat of a worker running it, unchanged."""
    app = App(builtins=False, fingerprint="1.2.3:cafe")

    @app.job("noop")
    async def noop(ctx: JobContext, payload: dict[str, Any]) -> None:
        return None

    async with running_worker(app, nc, settings) as _:
        beats = await live_workers(nc, settings)
    assert [b.fingerprint for b in beats] == ["1.2.3:cafe"]
