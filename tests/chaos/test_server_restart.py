"""kill -9 the nats-server in the middle of a run, then start it again on the same store and port."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest

from jetjobs import EmbeddedServer
from tests.chaos.harness import assert_sound, chaos_namespace, chaos_settings, free_port

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(110)]

JOBS = 2000


async def test_server_killed_and_restarted_mid_run(tmp_path: Path) -> None:
    """SIGKILL the server while jobs are being submitted and run; restart it on the same store.

    Clients reconnect on their own; publishers retry with the same message id; redeliveries of
    jobs the ledger already has as done are acked without running. Nothing acknowledged is lost,
    nothing completes twice, and every worker survives the outage.
    """
    server = EmbeddedServer(tmp_path / "store", port=free_port())
    url = await anyio.to_thread.run_sync(server.start)
    try:
        settings = chaos_settings("r" + uuid.uuid4().hex[:12], url, storage="file")
        async with chaos_namespace(settings) as chaos, chaos.pool(concurrency=8) as pool:
            await pool.start(3)
            ids: list[str] = []
            async with anyio.create_task_group() as tg:
                tg.start_soon(chaos.submit_paced, [{"n": i, "ms": 5} for i in range(JOBS)], ids)
                await chaos.wait_completed(JOBS * 3 // 10)
                await anyio.to_thread.run_sync(server.kill)
                submitted_at_kill = len(ids)
                await anyio.to_thread.run_sync(server.start)
            assert submitted_at_kill < JOBS, "the kill must land while jobs are still being submitted"
            await chaos.drain(ids, timeout=90)
            assert len(pool.live) == 3, [p.describe() for p in pool.processes]
            audit = await chaos.check.audit(ids)
        assert_sound(audit, pool)
        assert audit.states["succeeded"] == JOBS, audit.summary()
    finally:
        await anyio.to_thread.run_sync(server.stop)
