"""A worker paused (SIGSTOP) past its lease, then resumed: the zombie must not complete anything twice."""

from __future__ import annotations

import signal

import pytest

from jetjobs import EmbeddedServer
from tests.chaos.harness import assert_sound, chaos_namespace, chaos_settings

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(90)]

JOBS = 600


async def test_paused_worker_wakes_up_fenced(nats_server: EmbeddedServer, namespace: str) -> None:
    """SIGSTOP one of three workers while it runs jobs; the others finish everything; then SIGCONT.

    ack_wait and heartbeat_ttl are 2 s: while paused, the worker's leases lapse and its jobs are
    redelivered and completed elsewhere. Woken, its handlers finish and try to record their
    results: the ledger's compare-and-set refuses every one (`fenced`), so no job completes twice.
    """
    settings = chaos_settings(namespace, nats_server.url, ack_wait=2.0, heartbeat_ttl=2)
    async with chaos_namespace(settings) as chaos, chaos.pool(concurrency=8) as pool:
        await pool.start(3)
        # Durations of 100 to 400 ms, so that a worker's jobs do not all end together: were they
        # equal, the pause could land between one batch's end and the next one's start, with no
        # handler running to be fenced (its fetched jobs are then only skipped on waking).
        ids = await chaos.submit([{"n": i, "ms": 100 + (i % 7) * 50} for i in range(JOBS)])
        await chaos.wait_completed(JOBS // 4)
        zombie = pool.live[0]
        zombie.send(signal.SIGSTOP)
        # Everything completes without it: proof that its leases lapsed and were taken over.
        await chaos.drain(ids)
        zombie.send(signal.SIGCONT)
        await pool.stop_all()  # the woken zombie finishes what it was running, then exits
        assert zombie.worker_id is not None
        audit = await chaos.check.audit(ids, explain={zombie.worker_id: "paused past its lease"})
    assert_sound(audit, pool)
    assert audit.states["succeeded"] == JOBS, audit.summary()
    assert zombie.returncode == 0, zombie.describe()
    # The zombie held running jobs when it was paused; on waking each was refused by the ledger.
    assert zombie.counts.get("fenced", 0) >= 1, zombie.counts
    assert audit.reasons["paused past its lease"] >= 1, audit.summary()
    completed_by_zombie_after_pause = [
        job_id
        for job_id, events in audit.events.items()
        if any(e.worker == zombie.worker_id for e in events) and len(events) > 1
    ]
    assert completed_by_zombie_after_pause == []
