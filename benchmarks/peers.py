"""Optional peers on the same server, consume-only: taskiq-nats and FastStream's JetStream pull.

Installed with `pip install -e '.[peers]'`; without them the rows are skipped. Each peer drains a
backlog of no-op jobs in this process (as the raw baseline does), once with its defaults and once
tuned to fetch 64 at a time. Neither keeps a ledger, a heartbeat or a lease: they are the
"plain queue on JetStream" a jetjobs worker is compared with.
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any

import anyio
from nats.js import api

from benchmarks.suite import BODY, Bench, Row, raw_consume

PEER_PREFIX = "peer "


def available() -> list[str]:
    """The peers installed here."""
    return [
        name
        for name, module in (("taskiq-nats", "taskiq_nats"), ("faststream", "faststream.nats"))
        if importlib.util.find_spec(module.split(".")[0]) is not None
    ]


async def taskiq(b: Bench, batch: int) -> float:
    """taskiq-nats PullBasedJetStreamBroker + taskiq's Receiver (64 concurrent tasks)."""
    from taskiq.receiver import Receiver  # noqa: PLC0415 - optional dependency
    from taskiq_nats import PullBasedJetStreamBroker  # noqa: PLC0415 - optional dependency

    name = f"TQ{b.namespace().upper()}"
    broker = PullBasedJetStreamBroker(
        b.url,
        subject=f"{name.lower()}.tasks",
        stream_name=name,
        durable="taskiq",
        pull_consume_batch=batch,
        pull_consume_timeout=1.0,
    )
    done = 0
    finished = anyio.Event()

    @broker.task(task_name="noop")
    async def noop(pad: str) -> None:
        nonlocal done
        done += 1
        if done >= b.jobs:
            finished.set()

    await broker.startup()
    for start in range(0, b.jobs, 256):
        async with anyio.create_task_group() as tg:
            for _ in range(start, min(start + 256, b.jobs)):
                tg.start_soon(noop.kiq, "p" * 40)
    receiver = Receiver(broker, max_async_tasks=64, run_startup=False)
    stop = anyio.Event()
    t = time.perf_counter()
    async with anyio.create_task_group() as tg:
        tg.start_soon(receiver.listen, stop)
        with anyio.fail_after(600):
            await finished.wait()
        elapsed = time.perf_counter() - t
        tg.cancel_scope.cancel()
    await broker.shutdown()
    return b.jobs / elapsed


async def faststream(b: Bench, batch: int) -> float:
    """FastStream NatsBroker, durable pull subscriber on a JetStream stream (acks after the handler).

    Its per-message log lines are turned off (`logger=None`); they would flood the report.
    """
    from faststream.nats import JStream, NatsBroker, PullSub  # noqa: PLC0415 - optional dependency

    name = f"FS{b.namespace().upper()}"
    subject = f"{name.lower()}.jobs"
    nc = await b.connect()
    js = nc.jetstream()
    await js.add_stream(api.StreamConfig(name=name, subjects=[subject]))
    for start in range(0, b.jobs, 1024):
        futures = [await js.publish_async(subject, BODY) for _ in range(start, min(start + 1024, b.jobs))]
        for future in futures:
            await future
    await nc.close()

    broker = NatsBroker(b.url, logger=None)  # its default: two INFO lines per message
    done = 0
    finished = anyio.Event()

    @broker.subscriber(
        subject, stream=JStream(name, declare=False), durable="faststream", pull_sub=PullSub(batch_size=batch)
    )
    async def handle(msg: Any) -> None:
        nonlocal done
        done += 1
        if done >= b.jobs:
            finished.set()

    t = time.perf_counter()
    async with broker:
        await broker.start()
        with anyio.fail_after(600):
            await finished.wait()
        elapsed = time.perf_counter() - t
    return b.jobs / elapsed


async def peers(b: Bench) -> None:
    """One row per peer and setting, each against a raw pull+ack drain measured just before."""
    installed = available()
    if not installed:
        b.extra["peers"] = "not installed (pip install -e '.[peers]')"
        return
    raw = await raw_consume(b, b.jobs)
    runs: list[tuple[str, Any]] = []
    if "taskiq-nats" in installed:
        runs.append(("taskiq-nats", taskiq))
    if "faststream" in installed:
        runs.append(("FastStream", faststream))
    for name, run in runs:
        for batch in (1, 64):
            rate = await run(b, batch)
            label = f"{PEER_PREFIX}{name}, batch {batch} (jobs/s)"
            b.rows.append(Row(label, rate, raw, "jobs/s", notes="in-process; batch 1 is its default"))


def against_best_peer(rows: list[Row]) -> str | None:
    """jetjobs' consume rate over the best peer's, when both were measured."""
    ours = [r.jetjobs for r in rows if r.scenario.startswith("consume, 1 worker, tracing off")]
    theirs = [r.jetjobs for r in rows if r.scenario.startswith(PEER_PREFIX)]
    if not ours or not theirs:
        return None
    return f"{ours[0] / max(theirs):.2f}x (target >= 1.5x)"
