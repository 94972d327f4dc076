"""Issue 17's fault scenarios at full size, measured (not part of the test suite).

    .venv/bin/python -m tests.chaos.scenarios NAME     # NAME: one of SCENARIOS, at the end

Each scenario starts its own nats-server (file storage) and worker processes of the chaos app,
injects its fault, waits for the drain and prints one line from the audit: lost jobs, duplicate
completions, duplicate executions, missing and duplicate job events, worker deaths, and what the
workers' logs said. Heartbeats are the defaults (1 s / 3 s).
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from jetjobs import EmbeddedServer, Settings
from jetjobs._demo.audit import Audit
from jetjobs._liveness.supervisor import current_leader
from jetjobs.testing import WorkerPool, WorkerProcess
from tests.chaos.harness import APP, REPO_ROOT, Chaos, chaos_namespace, chaos_settings, free_port


def report(name: str, audit: Audit, **extra: Any) -> None:
    """One line: the audit's counts, then the scenario's own."""
    counts = {
        "states": dict(audit.states),
        "lost": len(audit.lost),
        "duplicate_completions": len(audit.duplicate_completions),
        "executions": audit.executions,
        "duplicate_executions": len(audit.duplicate_executions),
        "missing_events": len(audit.missing_events),
        "duplicate_events": sum(len(found) - 1 for found in audit.events.values()),
        "deaths": [(d.worker[-9:], d.recovered) for d in audit.deaths],
    }
    print(f"{name}: " + " ".join(f"{k}={v}" for k, v in (counts | extra).items()), flush=True)


def logged(pool: WorkerPool, event: str) -> list[dict[str, Any]]:
    """Every line named `event` from every worker of the pool (needs keep_log)."""
    return [line for worker in pool.processes for line in worker.logged(event)]


@asynccontextmanager
async def scenario(
    prefix: str, concurrency: int, **overrides: Any
) -> AsyncIterator[tuple[EmbeddedServer, Chaos, WorkerPool]]:
    """A fresh server, a namespace with default heartbeats, and a pool of logged workers."""
    server = EmbeddedServer(Path(tempfile.mkdtemp()) / "store", port=free_port())
    url = await anyio.to_thread.run_sync(server.start)
    base: dict[str, Any] = {
        "heartbeat_interval": 1.0,
        "heartbeat_ttl": 3,
        "grace_period": 30.0,
        "fetch_timeout": 2.0,
    }
    settings: Settings = chaos_settings(
        prefix + uuid.uuid4().hex[:10], url, storage="file", **(base | overrides)
    )
    try:
        async with (
            chaos_namespace(settings) as chaos,
            WorkerPool(APP, settings, url, concurrency=concurrency, cwd=REPO_ROOT, keep_log=True) as pool,
        ):
            yield server, chaos, pool
    finally:
        await anyio.to_thread.run_sync(server.stop)


async def rolling_sigterm(restarts: int, max_attempts: int, jobs: int, seconds: float) -> None:
    """Start a worker (-c 3), then, `restarts` times, start another and SIGTERM the previous."""
    async with scenario("s", 3, ack_wait=10.0) as (_, chaos, pool):
        (current,) = await pool.start(1)
        ids = await chaos.submit([{"seconds": seconds}] * jobs, "chaos.slow", max_attempts=max_attempts)
        released = 0
        for _ in range(restarts):
            (following,) = await pool.start(1)
            current.send(signal.SIGTERM)
            await current.exited.wait()
            released += sum(line.get("count", 0) for line in current.logged("worker.released"))
            current = following
        await chaos.drain(ids, timeout=600)
        audit = await chaos.check.audit(ids)
    name = f"rolling SIGTERM x{restarts}, max_attempts={max_attempts}, {jobs} jobs of {seconds} s"
    report(name, audit, released=released)


async def server_fault(down: float, jobs: int, workers: int, *, pause: bool) -> None:
    """kill -9 the server and restart it after `down` s, or SIGSTOP it for `down` s, mid-run."""
    async with scenario("k", 16, ack_wait=10.0) as (server, chaos, pool):
        await pool.start(workers)
        ids: list[str] = []
        payloads = [{"n": i, "ms": 3} for i in range(jobs)]
        async with anyio.create_task_group() as tg:
            tg.start_soon(functools.partial(chaos.submit_paced, payloads, ids, backlog=2000, chunk=200))
            await chaos.wait_completed(jobs * 3 // 10, timeout=300)
            faulted_at = time.monotonic()
            if pause:
                assert server.pid is not None
                os.kill(server.pid, signal.SIGSTOP)
                await anyio.sleep(down)
                os.kill(server.pid, signal.SIGCONT)
            else:
                await anyio.to_thread.run_sync(server.kill)
                await anyio.sleep(down)
                await anyio.to_thread.run_sync(server.start)
        await chaos.drain(ids, timeout=600)
        drained = time.monotonic() - faulted_at
        audit = await chaos.check.audit(ids)
        failed = logged(pool, "job.process_failed")
        warnings = Counter(
            line["event"] for w in pool.processes for line in w.events if line.get("level") != "info"
        )
    report(
        f"server {'SIGSTOP' if pause else 'kill -9 + restart'} {down} s, {workers} workers, {jobs} jobs",
        audit,
        crashed=len(pool.crashed()),
        not_json_lines=sum(len(w.not_json) for w in pool.processes),
        process_failed=len(failed),
        process_failed_without_job_id=sum(1 for line in failed if "job_id" not in line),
        process_failed_errors=dict(Counter(line.get("error", "")[:80] for line in failed)),
        silent_in_outage=len(logged(pool, "worker.silent_in_outage")),
        drained_s_after_fault=round(drained, 1),
        warnings=dict(warnings),
    )


async def worker_kills(jobs: int, workers: int, victims: str) -> None:
    """kill -9 two workers in turn, at 30% and 60%: `follower,leader` or `leader,leader`."""
    async with scenario("w", 16, ack_wait=30.0) as (_, chaos, pool):
        await pool.start(workers)
        ids: list[str] = []
        payloads = [{"n": i, "ms": 3} for i in range(jobs)]
        kills: list[tuple[str, float]] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(functools.partial(chaos.submit_paced, payloads, ids, backlog=3000, chunk=250))
            for fraction, who in zip((0.3, 0.6), victims.split(","), strict=True):
                await chaos.wait_completed(int(jobs * fraction), timeout=300)
                leader = await current_leader(chaos.nc, chaos.settings)
                victim: WorkerProcess = next(
                    p for p in pool.live if (p.worker_id == leader) == (who == "leader")
                )
                assert victim.worker_id is not None
                kills.append((victim.worker_id, time.monotonic()))
                await pool.kill(victim)
        await chaos.drain(ids, timeout=600)
        audit = await chaos.check.audit(ids, explain={worker: "killed" for worker, _ in kills})
        detected = [
            next((round(at - killed_at, 2) for at, d in chaos.check.deaths if d.worker == worker), None)
            for worker, killed_at in kills
        ]
    report(f"kill -9 {victims}, {workers} workers, {jobs} jobs", audit, death_event_s_after_kill=detected)


async def worker_pause(jobs: int, workers: int, pause: float) -> None:
    """SIGSTOP a worker for `pause` s with ack_wait 3 s, then SIGCONT it: its completions are fenced."""
    async with scenario("z", 16, ack_wait=3.0) as (_, chaos, pool):
        await pool.start(workers)
        ids = await chaos.submit([{"n": i, "ms": 20} for i in range(jobs)])
        await chaos.wait_completed(jobs // 4, timeout=300)
        zombie = pool.live[0]
        zombie.send(signal.SIGSTOP)
        await anyio.sleep(pause)
        zombie.send(signal.SIGCONT)
        await chaos.drain(ids, timeout=600)
        assert zombie.worker_id is not None
        audit = await chaos.check.audit(ids, explain={zombie.worker_id: "paused"})
    report(f"worker SIGSTOP {pause} s, ack_wait 3 s, {workers} workers, {jobs} jobs", audit,
           zombie_fenced=len(zombie.logged("job.fenced")))  # fmt: skip


SCENARIOS: dict[str, Callable[[], Awaitable[None]]] = {
    "rolling-sigterm": lambda: rolling_sigterm(1, 1, 20, 3.0),
    "rolling-sigterm-5": lambda: rolling_sigterm(5, 5, 60, 1.0),
    "server-kill": lambda: server_fault(3.3, 20_000, 4, pause=False),
    "server-kill-small": lambda: server_fault(3.3, 5_000, 4, pause=False),
    "server-pause": lambda: server_fault(15.0, 5_000, 4, pause=True),
    "kill-follower-then-leader": lambda: worker_kills(20_000, 4, "follower,leader"),
    "kill-leader-twice": lambda: worker_kills(20_000, 4, "leader,leader"),
    "worker-pause": lambda: worker_pause(4_000, 4, 12.0),
}

if __name__ == "__main__":
    anyio.run(SCENARIOS[sys.argv[1]])
