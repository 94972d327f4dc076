"""The kill-worker proof, `jetjobs demo kill-worker`: its orchestration and its chaos.

Several worker processes run a batch of short jobs; one (the elected supervisor, if it can be
found) is killed with SIGKILL once 30% of the jobs have completed. Then the books are checked
(jetjobs._demo.audit) and printed (jetjobs._demo.report).

```
 demo ──publish──▶ JOBS ──▶ worker processes (jetjobs._demo.work:app) ──▶ ledger (<ns>_status)
   │                           │ each execution ──▶ <NS>_DEMO_EXEC   (durable, one per run)
   └── SIGKILL one ──┘         └ job events     ──▶ <NS>_DEMO_EVENTS (captures <ns>.events.>)
```
"""

from __future__ import annotations

import os
import time

import anyio
import msgspec
from nats.aio.client import Client as NATS

from jetjobs._demo.audit import LedgerCheck, submit
from jetjobs._demo.report import KillRun, ledger_lines
from jetjobs._liveness.supervisor import current_leader
from jetjobs._observability.redact import mask_url
from jetjobs._processes import WorkerPool
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._wire.envelope import utcnow


def connected_url(nc: NATS, settings: Settings) -> str:
    """The server's address: NATS_URL, or where `nc` is connected."""
    if settings.nats.url:
        return settings.nats.url
    url = nc.connected_url
    assert url is not None
    return f"{url.scheme}://{url.hostname}:{url.port}"


async def run_kill_worker(nc: NATS, settings: Settings, *, jobs: int, workers: int, concurrency: int) -> int:
    """Run the kill-worker proof and print its ledger; 0 when nothing was lost or completed twice."""
    namespace = f"demo{time.strftime('%Y%m%d%H%M%S')}{os.urandom(1).hex()}"
    # A long lease: only the supervisor can bring a dead worker's jobs back quickly.
    settings = msgspec.structs.replace(settings, namespace=namespace, ack_wait=30.0)
    url = connected_url(nc, settings)
    check = LedgerCheck(nc, settings)
    await check.setup()
    print(f"jetjobs demo kill-worker: namespace {namespace} on {mask_url(url)}", flush=True)
    # On the embedded server (no NATS_URL) the workers join it through its store directory.
    pool_url = settings.nats.url or ""
    async with WorkerPool("jetjobs._demo.work:app", settings, pool_url, concurrency=concurrency) as pool:
        await pool.start(workers)
        print(f"  {workers} workers started; submitting {jobs} jobs", flush=True)
        payloads = [{"n": i, "ms": 2 + i % 4} for i in range(jobs)]
        ids: list[str] = []
        started = time.monotonic()
        async with anyio.create_task_group() as tg:

            async def submit_all() -> None:
                ids.extend(await submit(Publisher(nc, settings), payloads))

            tg.start_soon(submit_all)
            await check.wait_until(lambda: len(check.settled) >= jobs * 3 // 10, timeout=600)
            leader = await current_leader(nc, settings)
            victim = pool.by_worker_id().get(leader or "") or pool.live[0]
            done_at_kill = len(check.settled)
            killed_at, killed_wall = time.monotonic(), utcnow()
            await pool.kill(victim)
            print(f"  SIGKILL {victim.describe()} after {done_at_kill} jobs completed", flush=True)
        submitted_in = time.monotonic() - started
        undrained = await check.wait_drained(ids, timeout=settings.ack_wait * 2 + 60)
        drained_at = time.monotonic()
    await check.close()
    assert victim.worker_id is not None
    audit = await check.audit(
        ids, explain={victim.worker_id: "redelivered after the kill: the killed worker had started them"}
    )
    run = KillRun(
        settings=settings,
        pool=pool,
        victim=victim,
        was_leader=victim.worker_id == leader,
        done_at_kill=done_at_kill,
        started=started,
        killed_at=killed_at,
        killed_wall=killed_wall,
        submitted_in=submitted_in,
        drained_at=drained_at,
        undrained=len(undrained),
        deaths=check.deaths,
    )
    for line in ledger_lines(audit, run):
        print(line)
    return 0 if audit.ok and not pool.crashed() else 1
