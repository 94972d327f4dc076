"""The example app: what `jetjobs example` runs on the embedded server.

Three job types show the outcomes: `example.thumbnail` succeeds, `example.flaky` fails its first
attempt and succeeds on the retry, `example.poison` is rejected into the dead-letter stream. One
job is submitted twice with the same key to show idempotent submission.
"""

from __future__ import annotations

import random
import time

import anyio
import msgspec
from nats.aio.client import Client as NATS

from jetjobs._errors import Reject, Retry
from jetjobs._runtime.app import App, JobContext
from jetjobs._runtime.worker import Worker
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher

app = App("example")


class Thumbnail(msgspec.Struct):
    """Payload of example.thumbnail."""

    image: str
    width: int = 128


@app.job("example.thumbnail", payload=Thumbnail)
async def thumbnail(ctx: JobContext, payload: Thumbnail) -> dict[str, str]:
    """Pretend to render a thumbnail (a few milliseconds of I/O)."""
    await anyio.sleep(random.uniform(0.001, 0.005))
    return {"thumbnail": f"{payload.image}@{payload.width}px"}


@app.job("example.flaky")
async def flaky(ctx: JobContext, payload: dict[str, object]) -> str:
    """Fail the first attempt, succeed on the second."""
    if ctx.attempt == 1:
        raise Retry(delay=0.2, reason="upstream busy")
    return "ok"


@app.job("example.poison")
def poison(ctx: JobContext, payload: dict[str, object]) -> None:
    """A sync handler (runs in a thread) that refuses its input."""
    raise Reject("this payload can never succeed")


async def run_example(nc: NATS, settings: Settings, *, jobs: int, concurrency: int) -> int:
    """Run a worker, submit `jobs` jobs, wait for all to settle, print a summary."""
    settings = msgspec.structs.replace(settings, namespace="example", backoff_base=0.2)
    publisher = Publisher(nc, settings)
    worker = Worker(app, nc, settings, concurrency=concurrency)
    expected: set[str] = set()
    final: dict[str, str] = {}
    retried: set[str] = set()
    all_settled = anyio.Event()

    def on_outcome(outcome: str, job_id: str) -> None:
        if outcome == "retried":
            retried.add(job_id)
        elif outcome in ("succeeded", "dead", "skipped"):
            final[job_id] = outcome
            if expected and expected <= final.keys():
                all_settled.set()

    async with anyio.create_task_group() as tg:
        await tg.start(worker.run)
        assert worker.executor is not None
        worker.executor.listeners.append(on_outcome)
        started = time.perf_counter()
        duplicates = 0
        submitted: list[str] = []
        for i in range(jobs):
            if i % 100 == 7:
                result = await publisher.enqueue("example.flaky", {"n": i}, priority="high")
            elif i % 250 == 13:
                result = await publisher.enqueue("example.poison", {"n": i}, max_attempts=3)
            else:
                result = await publisher.enqueue(
                    "example.thumbnail", {"image": f"img-{i}.png"}, priority="low" if i % 2 else "normal"
                )
            submitted.append(result.id)
        again = await publisher.enqueue("example.thumbnail", {"image": "same.png"}, key="same-image")
        again2 = await publisher.enqueue("example.thumbnail", {"image": "same.png"}, key="same-image")
        submitted.append(again.id)
        duplicates = int(again2.duplicate)
        expected.update(submitted)
        if expected <= final.keys():
            all_settled.set()
        await all_settled.wait()
        elapsed = time.perf_counter() - started
        worker.stop()
    outcomes = [final[job_id] for job_id in expected]
    print()
    print("jetjobs example: summary")
    print(f"  namespace              {settings.namespace}")
    print(f"  submitted              {len(submitted) + 1} ({duplicates} reported duplicate, not run)")
    print(f"  succeeded              {outcomes.count('succeeded')}")
    print(f"  retried then succeeded {len(retried & expected)}")
    print(
        f"  dead-lettered          {outcomes.count('dead')} "
        f"(see: JETJOBS_NAMESPACE={settings.namespace} jetjobs dlq list)"
    )
    print(
        f"  elapsed                {elapsed:.2f} s ({len(submitted) / elapsed:.0f} jobs/s, "
        f"submit and run in one process)"
    )
    ok = outcomes.count("succeeded") + outcomes.count("dead") == len(expected)
    print("  result                 " + ("OK: every job settled exactly once" if ok else "MISMATCH"))
    return 0 if ok else 1
