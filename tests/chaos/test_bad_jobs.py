"""Jobs that misbehave: slower than the lease, failing every time, killing their own process."""

from __future__ import annotations

import pytest

from jetjobs import EmbeddedServer
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._transport.topology import Topology
from tests.chaos.harness import assert_sound, chaos_namespace, chaos_settings

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(90)]


async def test_handler_slower_than_ack_wait_is_never_redelivered(
    nats_server: EmbeddedServer, namespace: str
) -> None:
    """Handlers that run 3x ack_wait (2 s) in worker processes: each runs once, none is redelivered.

    The worker extends each lease while its handler runs; a lapse would show as a second execution
    and as `num_redelivered` on the consumer.
    """
    settings = chaos_settings(namespace, nats_server.url, ack_wait=2.0)
    # Eight slots per worker: even if one worker fetches every job, they all run in one wave.
    async with chaos_namespace(settings) as chaos, chaos.pool(concurrency=8) as pool:
        await pool.start(2)
        ids = await chaos.submit([{"seconds": 3 * settings.ack_wait, "n": i} for i in range(8)], "chaos.slow")
        await chaos.drain(ids)
        audit = await chaos.check.audit(ids)
        topology = Topology(settings)
        consumer = await chaos.nc.jetstream().consumer_info(
            topology.jobs_stream, topology.consumer_name("default", "normal")
        )
    assert_sound(audit, pool)
    assert audit.states["succeeded"] == 8, audit.summary()
    assert audit.executions == 8, audit.summary()
    assert all(record.attempt == 1 for record in audit.records.values())
    assert consumer.num_redelivered == 0
    assert consumer.num_ack_pending == 0


async def test_poison_and_process_killing_jobs_end_in_the_dlq(
    nats_server: EmbeddedServer, namespace: str
) -> None:
    """A job that raises every time and one that kills its worker process (`os._exit(1)`), among
    ordinary jobs: both are dead-lettered after max_attempts (3); every other job succeeds.

    Workers that the crashing job takes down are restarted at once (as systemd would). Each of its
    attempts killed one process, so exactly three crashed, each after starting that job; after
    the run three workers are alive and stop cleanly.
    """
    # A lease longer than death detection, so that the supervisor, not expiry, brings it back.
    settings = chaos_settings(namespace, nats_server.url, ack_wait=5.0, heartbeat_ttl=2)
    async with chaos_namespace(settings) as chaos, chaos.pool(concurrency=8, respawn=True) as pool:
        await pool.start(3)
        # One after the other: a job that shares a worker with the crashing one loses a delivery
        # when that worker dies, which would make the poison job's attempt count vary.
        ordinary = await chaos.submit([{"n": i, "ms": 5} for i in range(150)])
        (poison,) = await chaos.submit([{}], "chaos.poison", max_attempts=3)
        await chaos.drain([poison])
        ordinary += await chaos.submit([{"n": i, "ms": 5} for i in range(150, 300)])
        (crash,) = await chaos.submit([{}], "chaos.crash", max_attempts=3)
        await chaos.drain([*ordinary, poison, crash])
        assert len(pool.live) == 3, [p.describe() for p in pool.processes]
        ledger = chaos.check.ledger
        assert ledger is not None
        dlq = DeadLetters(chaos.nc.jetstream(), Topology(settings), ledger)
        letters = {job_id: await dlq.show(job_id) for job_id in (poison, crash)}
        await pool.stop_all()
        audit = await chaos.check.audit([*ordinary, poison, crash])
    crashed = pool.crashed()
    assert len(crashed) == 3, [p.describe() for p in pool.processes]
    pool.processes = [p for p in pool.processes if p not in crashed]  # expected: the crash job did it
    assert_sound(audit, pool)
    assert all(audit.records[job_id].state == "succeeded" for job_id in ordinary), audit.summary()
    for job_id, reason in ((poison, "exhausted"), (crash, "exhausted")):
        record = audit.records[job_id]
        assert (record.state, record.dead_reason) == ("dead", reason), record
        found = letters[job_id]
        assert found is not None, f"no dead letter for {job_id}"
    assert [e.attempt for e in audit.duplicate_executions[poison]] == [1, 2, 3]
    crash_runs = audit.duplicate_executions[crash]
    assert [e.attempt for e in crash_runs] == [1, 2, 3]
    assert {e.worker for e in crash_runs} == {p.worker_id for p in crashed}
    poison_letter = letters[poison]
    assert poison_letter is not None
    assert "poison: attempt 3" in poison_letter[1].error
