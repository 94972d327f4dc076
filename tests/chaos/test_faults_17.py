"""Issue 17's scenarios with real processes: rolling SIGTERM, and server restarts.

1. A job handed back unstarted at SIGTERM keeps its attempts (max_attempts=1 still runs it).
2. A server killed and restarted after more than a heartbeat TTL is an outage, not a death: the
   supervisor waits a TTL of fresh beats after its reconnect (one test makes the race certain,
   one runs worker processes through it).
7. Through that outage every worker's stderr stays JSON lines, with one `nats.disconnected` and
   one `nats.reconnected` line.
"""

from __future__ import annotations

import contextlib
import signal
import uuid
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from jetjobs import EmbeddedServer, NatsSettings, Settings
from jetjobs._liveness.heartbeat import Heartbeat
from jetjobs._liveness.supervisor import Supervisor
from jetjobs._transport.connection import connect
from jetjobs._transport.topology import Topology
from jetjobs.testing import WorkerPool
from tests.chaos.harness import (
    APP,
    REPO_ROOT,
    Chaos,
    assert_sound,
    chaos_namespace,
    chaos_settings,
    free_port,
)

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(120)]


async def test_item1_jobs_released_at_sigterm_keep_their_attempt(chaos: Chaos) -> None:
    """20 jobs of 1.5 s with max_attempts=1; workers at -c 3; start one, start another, SIGTERM
    the first. It hands back the deliveries it had fetched but not started (`worker.released`);
    each must still run, once, and succeed: none dead-lettered as `exhausted` unexecuted.
    """
    async with WorkerPool(
        APP, chaos.settings, chaos.url, concurrency=3, cwd=REPO_ROOT, keep_log=True
    ) as pool:
        (first,) = await pool.start(1)
        ids = await chaos.submit([{"seconds": 1.5}] * 20, "chaos.slow", max_attempts=1)
        await pool.start(1)
        first.send(signal.SIGTERM)
        await first.exited.wait()
        released = sum(line.get("count", 0) for line in first.logged("worker.released"))
        await chaos.drain(ids)
        audit = await chaos.check.audit(ids)
    assert first.returncode == 0, first.describe()
    assert released >= 1, "the stopped worker had fetched jobs it had not started"
    assert_sound(audit, pool)
    assert audit.states["succeeded"] == 20, audit.summary()
    assert audit.executions == 20, audit.summary()


async def test_item2_and_item7_worker_processes_through_a_server_restart(tmp_path: Path) -> None:
    """kill -9 the server mid-run and restart it after longer than the heartbeat TTL (1 s / 3 s).

    Every heartbeat key expires while the server is away; the workers are alive and beat again
    once reconnected. No supervisor may declare any of them dead (no `worker.died`), nothing is
    lost or completed twice. And (item 7) every worker's stderr stays JSON lines through the
    outage, each saying once that it was disconnected and once that it reconnected.
    """
    server = EmbeddedServer(tmp_path / "store", port=free_port())
    url = await anyio.to_thread.run_sync(server.start)
    jobs = 2000
    try:
        settings = chaos_settings(
            "o" + uuid.uuid4().hex[:12],
            url,
            storage="file",
            ack_wait=10.0,
            heartbeat_interval=1.0,
            heartbeat_ttl=3,
        )
        async with (
            chaos_namespace(settings) as chaos,
            WorkerPool(APP, settings, url, concurrency=8, cwd=REPO_ROOT, keep_log=True) as pool,
        ):
            await pool.start(3)
            ids: list[str] = []
            async with anyio.create_task_group() as tg:
                tg.start_soon(chaos.submit_paced, [{"n": i, "ms": 5} for i in range(jobs)], ids)
                await chaos.wait_completed(jobs * 3 // 10)
                await anyio.to_thread.run_sync(server.kill)
                # The outage itself is the scenario: longer than the TTL, so every key expires.
                await anyio.sleep(settings.heartbeat_ttl + 1)
                await anyio.to_thread.run_sync(server.start)
            await chaos.drain(ids, timeout=90)
            audit = await chaos.check.audit(ids)
            logs = {p.worker_id: p for p in pool.processes}
        assert_sound(audit, pool)
        assert audit.states["succeeded"] == jobs, audit.summary()
        assert audit.deaths == [], [(d.worker, d.recovered) for d in audit.deaths]
        for worker in logs.values():
            assert worker.not_json == [], worker.not_json[:20]
            assert len(worker.logged("nats.disconnected")) == 1, worker.describe()
            assert len(worker.logged("nats.reconnected")) == 1, worker.describe()
    finally:
        await anyio.to_thread.run_sync(server.stop)


async def _until(condition: Callable[[], bool], timeout: float = 20) -> None:
    """Wait for a condition of another task's state that no event announces."""
    with anyio.fail_after(timeout):
        while not condition():  # noqa: ASYNC110 - the supervisor's state announces no change
            await anyio.sleep(0.05)


async def test_item2_worker_beating_again_after_the_restart_is_not_dead(tmp_path: Path) -> None:
    """The race of the issue, made certain: the supervisor is back first and sees every key expired.

    A standalone supervisor and a worker's heartbeat (1 s / 3 s) on their own connections; the
    server is killed, restarted after longer than the TTL, and the worker beats again only once
    the supervisor has seen its key's expiry. The worker was never dead: within a TTL of the
    supervisor's reconnect it beats, and no `worker.died` may be announced.
    """
    server = EmbeddedServer(tmp_path / "store", port=free_port())
    url = await anyio.to_thread.run_sync(server.start)
    settings = Settings(
        namespace="o" + uuid.uuid4().hex[:12],
        nats=NatsSettings(url=url),
        heartbeat_interval=1.0,
        heartbeat_ttl=3,
    )
    topology = Topology(settings)
    supervising = await connect(url, settings.nats)
    beating = await connect(url, settings.nats)
    heartbeat = Heartbeat(
        beating,
        topology.workers_bucket,
        worker_id="w1",
        queues=["default"],
        concurrency=1,
        interval=1.0,
        ttl=3,
        in_flight=list,
    )
    paused = False

    async def beat() -> None:
        while True:
            if not paused:
                with contextlib.suppress(Exception):  # the server is away
                    await heartbeat.send()
            await anyio.sleep(heartbeat.interval)

    supervisor = Supervisor(supervising, settings, supervisor_id="standalone")
    died = anyio.Event()
    supervisor.listeners.append(lambda _death: died.set())
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(supervisor.run)
            await topology.workers_kv(beating.jetstream())
            tg.start_soon(beat)
            await _until(lambda: "w1" in supervisor.alive and supervisor.is_leader)
            paused = True
            await anyio.to_thread.run_sync(server.kill)
            # The outage itself is the scenario: longer than the TTL, so the key expires.
            await anyio.sleep(settings.heartbeat_ttl + 1)
            await anyio.to_thread.run_sync(server.start)
            await _until(lambda: "w1" not in supervisor.alive)  # it saw the expiry
            paused = False
            await _until(lambda: "w1" in supervisor.alive)  # the worker beats again
            # Nothing announces that a death did not happen: listen for one for a TTL and a beat.
            with anyio.move_on_after(settings.heartbeat_ttl + settings.heartbeat_interval):
                await died.wait()
            tg.cancel_scope.cancel()
    finally:
        await supervising.close()
        await beating.close()
        await anyio.to_thread.run_sync(server.stop)
    assert supervisor.deaths == [], supervisor.deaths
