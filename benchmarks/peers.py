"""Optional peers on the same server: taskiq-nats and FastStream's JetStream pull subscriber.

Installed with `pip install -e '.[peers]'`; without them the rows are skipped. Each peer runs as
one worker process (benchmarks.peer_worker), like the jetjobs worker, no-op jobs, 64 handlers at
a time:
- consume-only: a backlog drained, with the peer's default batch (1) and tuned to fetch 64;
- end to end: submitted from this process through the peer's own client (256 submissions in
  flight) while its worker (batch 64) drains them.
Neither keeps a ledger, a heartbeat or a lease: they are the "plain queue on JetStream" a jetjobs
worker is compared with.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from nats.js import api

from benchmarks.harness import ROOT
from benchmarks.peer_worker import taskiq_broker
from benchmarks.suite import BODY, Bench, Row, raw_consume, raw_end_to_end

PEER_PREFIX = "peer "
IN_FLIGHT = 256


def available() -> list[str]:
    """The peers installed here."""
    return [
        name
        for name, module in (("taskiq-nats", "taskiq_nats"), ("FastStream", "faststream"))
        if importlib.util.find_spec(module) is not None
    ]


async def in_flight(n: int, submit: Callable[[], Awaitable[Any]]) -> None:
    """Call `submit` n times, IN_FLIGHT at once."""
    for start in range(0, n, IN_FLIGHT):
        async with anyio.create_task_group() as tg:
            for _ in range(start, min(start + IN_FLIGHT, n)):
                tg.start_soon(submit)


async def measure(b: Bench, peer: str, batch: int, *, end_to_end: bool = False) -> float:
    """Jobs/s of one peer worker process (benchmarks.peer_worker), from ready to the last job."""
    name = f"{'TQ' if peer == 'taskiq-nats' else 'FS'}{b.namespace().upper()}"
    subject, signal = f"{name.lower()}.jobs", f"{name.lower()}.signal"
    nc = await b.connect()
    ready, done = anyio.Event(), anyio.Event()

    async def on_signal(msg: Any) -> None:
        (ready if msg.subject.endswith(".ready") else done).set()

    await nc.subscribe(f"{signal}.*", cb=on_signal)
    submit, close = await submitter(b, peer, name, subject, batch)
    if not end_to_end:
        await submit()
    command = [sys.executable, "-m", "benchmarks.peer_worker", peer, b.url, name, subject, str(batch)]
    process = await anyio.open_process([*command, str(b.jobs), signal], cwd=ROOT, stdout=None, stderr=None)
    try:
        with anyio.fail_after(60):
            await ready.wait()
        t = time.perf_counter()
        async with anyio.create_task_group() as tg:
            if end_to_end:
                tg.start_soon(submit)
            with anyio.fail_after(600):
                await done.wait()
        elapsed = time.perf_counter() - t
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
        await close()
        await nc.close()
    return b.jobs / elapsed


async def submitter(
    b: Bench, peer: str, name: str, subject: str, batch: int
) -> tuple[Callable[[], Awaitable[None]], Callable[[], Awaitable[Any]]]:
    """(submit all jobs through the peer's own client, close it). Creates the stream."""
    if peer == "taskiq-nats":
        from taskiq_nats import PullBasedJetStreamBroker  # noqa: PLC0415 - optional dependency

        broker = taskiq_broker(PullBasedJetStreamBroker, b.url, name, subject, batch)

        @broker.task(task_name="noop")
        async def noop(pad: str) -> None:
            return

        await broker.startup()
        return (lambda: in_flight(b.jobs, lambda: noop.kiq("p" * 40))), broker.shutdown

    from faststream.nats import NatsBroker  # noqa: PLC0415 - optional dependency

    nc = await b.connect()
    await nc.jetstream().add_stream(api.StreamConfig(name=name, subjects=[subject]))
    await nc.close()
    client = NatsBroker(b.url, logger=None)
    await client.connect()
    return (lambda: in_flight(b.jobs, lambda: client.publish(BODY, subject, stream=name))), client.stop


async def peers(b: Bench) -> None:
    """Rows per peer: consume-only (batch 1 and 64) and end to end (batch 64), each against raw."""
    installed = available()
    if not installed:
        b.extra["peers"] = "not installed (pip install -e '.[peers]')"
        return
    raw = await raw_consume(b, b.jobs)
    for name in installed:
        for batch in (1, 64):
            rate = await measure(b, name, batch)
            label = f"{PEER_PREFIX}{name}, batch {batch} (jobs/s)"
            b.rows.append(Row(label, rate, raw, "jobs/s", notes="consume-only; batch 1 is its default"))
    raw = await raw_end_to_end(b)
    for name in installed:
        rate = await measure(b, name, 64, end_to_end=True)
        label = f"{PEER_PREFIX}{name}, end to end (jobs/s)"
        b.rows.append(Row(label, rate, raw, "jobs/s", notes="its own client submits; batch 64"))


def against_best_peer(rows: list[Row]) -> dict[str, str]:
    """jetjobs' rates over the best peer's, consume-only and end to end, where both were measured."""
    pairs = {
        "jetjobs consume / best peer": ("consume, 1 worker, tracing off", "batch"),
        "jetjobs consume, late claim / best peer": ("consume, 1 worker, late claim", "batch"),
        "jetjobs end to end / best peer": ("end to end, 1 worker", "end to end"),
    }
    found: dict[str, str] = {}
    one = [r.jetjobs for r in rows if r.scenario.startswith("consume, 1 worker, tracing off")]
    two = [r.jetjobs for r in rows if r.scenario.startswith("consume, 2 workers")]
    if one and two:
        found["consume, 2 workers / 1"] = f"{two[0] / one[0]:.2f}x (target >= 1.7x)"
    for label, (ours_prefix, kind) in pairs.items():
        ours = [r.jetjobs for r in rows if r.scenario.startswith(ours_prefix)]
        theirs = [r.jetjobs for r in rows if r.scenario.startswith(PEER_PREFIX) and kind in r.scenario]
        if ours and theirs:
            found[label] = f"{ours[0] / max(theirs):.2f}x" + (" (target >= 1.5x)" if kind == "batch" else "")
    return found
