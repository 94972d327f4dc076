"""What every chaos scenario shares: settings, a pool of subprocess workers, the audit's verdict."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings
from jetjobs._demo.audit import Audit, LedgerCheck, submit
from jetjobs._transport.connection import connect
from jetjobs.testing import WorkerPool
from tests.support import FAST_LIVENESS, fast_settings

APP = "tests.chaos.apps:app"
REPO_ROOT = Path(__file__).resolve().parents[2]


def chaos_settings(namespace: str, url: str, **overrides: Any) -> Settings:
    """Fast liveness (beat every 0.5 s, expiry after 2 s), a 5 s lease, quick retries."""
    return fast_settings(namespace, url, **(FAST_LIVENESS | overrides))


def free_port() -> int:
    """A loopback port that was free a moment ago (for a server that must restart on it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Chaos:
    """One scenario's namespace: its settings, a connection, the ledger check."""

    settings: Settings
    nc: NATS
    check: LedgerCheck
    publisher: Publisher

    @property
    def url(self) -> str:
        """The server the workers connect to."""
        assert self.settings.nats.url is not None
        return self.settings.nats.url

    def pool(self, *, concurrency: int = 8, respawn: bool = False) -> WorkerPool:
        """Subprocess workers running the chaos app in this namespace."""
        return WorkerPool(
            APP, self.settings, self.url, concurrency=concurrency, cwd=REPO_ROOT, respawn=respawn
        )

    async def submit(
        self, payloads: list[dict[str, Any]], job_type: str = "demo.work", *, max_attempts: int = 5
    ) -> list[str]:
        """Submit jobs, many publishes in flight at once; their ids in order."""
        return await submit(self.publisher, payloads, job_type, max_attempts=max_attempts)

    async def submit_paced(
        self, payloads: list[dict[str, Any]], ids: list[str], *, backlog: int = 300, chunk: int = 50
    ) -> None:
        """Submit in chunks, keeping at most `backlog` jobs unfinished: submission lasts the run.

        Ids are appended to `ids` as each chunk is acknowledged, so a caller sees progress.
        """
        for start in range(0, len(payloads), chunk):
            await self.check.wait_until(lambda: len(ids) - len(self.check.settled) < backlog, timeout=60)
            ids.extend(await self.submit(payloads[start : start + chunk]))

    async def wait_completed(self, count: int, timeout: float = 60) -> None:
        """Wait until `count` jobs have announced their end (no sleeping: each event re-checks)."""
        await self.check.wait_until(lambda: len(self.check.settled) >= count, timeout)

    async def drain(self, job_ids: list[str], timeout: float = 60) -> None:
        """Wait until every job is terminal in the ledger; fail naming how many are not."""
        remaining = await self.check.wait_drained(job_ids, timeout=timeout)
        assert not remaining, f"{len(remaining)} of {len(job_ids)} jobs never finished"


@contextlib.asynccontextmanager
async def chaos_namespace(settings: Settings) -> AsyncIterator[Chaos]:
    """Connect, provision the audit streams, and follow events, for one scenario."""
    assert settings.nats.url is not None
    nc = await connect(settings.nats.url, settings.nats, name="jetjobs-chaos")
    check = LedgerCheck(nc, settings)
    try:
        await check.setup()
        yield Chaos(settings, nc, check, Publisher(nc, settings))
    finally:
        with anyio.CancelScope(shield=True):
            await check.close()
            await nc.close()


def assert_sound(audit: Audit, pool: WorkerPool) -> None:
    """The target of every scenario: nothing lost, nothing completed twice, no worker crashed."""
    assert not audit.lost, f"lost {len(audit.lost)} job(s): {audit.summary()}"
    assert not audit.duplicate_completions, f"completed twice: {audit.duplicate_completions}"
    crashed = [p.describe() + "\n" + "\n".join(list(p.tail)[-10:]) for p in pool.crashed()]
    assert not crashed, "workers crashed:\n" + "\n".join(crashed)
