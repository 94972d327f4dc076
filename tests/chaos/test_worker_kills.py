"""kill -9 worker processes in the middle of a run: one of them, over and over, and all at once."""

from __future__ import annotations

import signal

import anyio
import pytest

from tests.chaos.harness import Chaos, assert_sound

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(90)]

JOBS = 3000


async def test_kill_one_of_three_workers_three_times(chaos: Chaos) -> None:
    """SIGKILL a worker at 20%, 45% and 70% of the run, restarting it each time.

    Every job ends exactly once; the supervisor announces each death; no worker is left crashed;
    the only handlers that ran twice are ones a killed worker had started.
    """
    payloads = [{"n": i, "ms": 5} for i in range(JOBS)]
    killed: list[str] = []
    async with chaos.pool(concurrency=8) as pool:
        await pool.start(3)
        ids = await chaos.submit(payloads)
        for fraction in (0.2, 0.45, 0.7):
            await chaos.wait_completed(int(JOBS * fraction))
            victim = pool.live[0]  # the oldest: each kill takes a different process
            assert victim.worker_id is not None
            await pool.kill(victim)
            killed.append(victim.worker_id)
            await pool.restart(victim)
        await chaos.drain(ids)
        assert len(pool.live) == 3
        # the last kill's death may be announced after the others have drained the run (its
        # heartbeat expires after 2 s): wait for the supervisor's announcements, as events
        await chaos.check.wait_until(
            lambda: set(killed) <= {d.worker for _, d in chaos.check.deaths}, timeout=30
        )
    audit = await chaos.check.audit(ids, explain=dict.fromkeys(killed, "killed"))
    assert_sound(audit, pool)
    assert audit.states["succeeded"] == JOBS, audit.summary()
    assert set(killed) <= {d.worker for d in audit.deaths}, "a kill went unnoticed by the supervisor"
    assert set(audit.reasons) <= {"killed"}, audit.summary()


async def test_kill_all_workers_then_restart_them(chaos: Chaos) -> None:
    """SIGKILL every worker at once (no supervisor survives), then start three new ones.

    Nothing is lost: what the dead held comes back through the new supervisors or after ack_wait,
    and nothing completes twice.
    """
    payloads = [{"n": i, "ms": 5} for i in range(JOBS)]
    async with chaos.pool(concurrency=8) as pool:
        first = await pool.start(3)
        ids = await chaos.submit(payloads)
        await chaos.wait_completed(JOBS * 3 // 10)
        for worker in first:
            worker.send(signal.SIGKILL)
        for worker in first:
            await worker.exited.wait()
        assert not pool.live
        with anyio.fail_after(30):
            await pool.start(3)
        await chaos.drain(ids)
    killed = {w.worker_id: "killed" for w in first if w.worker_id}
    audit = await chaos.check.audit(ids, explain=killed)
    assert_sound(audit, pool)
    assert audit.states["succeeded"] == JOBS, audit.summary()
    assert set(audit.reasons) <= {"killed"}, audit.summary()
