"""One peer worker process: `python -m benchmarks.peer_worker PEER URL STREAM SUBJECT BATCH N SIGNAL`.

Runs taskiq-nats' Receiver or a FastStream pull subscriber (64 handlers at a time, no-op jobs) and
publishes `<SIGNAL>.ready` once consuming and `<SIGNAL>.done` after the N-th job, so the parent
measures a peer process exactly as it measures a jetjobs worker process.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import nats


async def run_taskiq(url: str, stream: str, subject: str, batch: int, count: Any) -> Any:
    from taskiq.receiver import Receiver  # noqa: PLC0415 - optional dependency
    from taskiq_nats import PullBasedJetStreamBroker  # noqa: PLC0415 - optional dependency

    broker = taskiq_broker(PullBasedJetStreamBroker, url, stream, subject, batch)

    @broker.task(task_name="noop")
    async def noop(pad: str) -> None:
        count()

    await broker.startup()
    return Receiver(broker, max_async_tasks=64, run_startup=False).listen, broker.shutdown


def taskiq_broker(cls: Any, url: str, stream: str, subject: str, batch: int) -> Any:
    """The broker both the worker and the submitting parent use (same stream and durable)."""
    return cls(
        url,
        subject=subject,
        stream_name=stream,
        durable="taskiq",
        pull_consume_batch=batch,
        pull_consume_timeout=1.0,
    )


async def main(argv: list[str]) -> None:
    """Consume until the n-th job, signalling ready and done."""
    peer, url, stream, subject, batch_arg, n_arg, signal = argv
    batch, n = int(batch_arg), int(n_arg)
    nc = await nats.connect(url)
    seen = 0
    finished = anyio.Event()

    def count() -> None:
        nonlocal seen
        seen += 1
        if seen >= n:
            finished.set()

    async with anyio.create_task_group() as tg:
        if peer == "taskiq-nats":
            listen, stop = await run_taskiq(url, stream, subject, batch, count)
            tg.start_soon(listen, anyio.Event())
        else:
            from faststream.nats import JStream, NatsBroker, PullSub  # noqa: PLC0415 - optional dependency

            broker = NatsBroker(url, logger=None)  # its default: two INFO lines per message

            @broker.subscriber(
                subject,
                stream=JStream(stream, declare=False),
                durable="faststream",
                pull_sub=PullSub(batch_size=batch),
            )
            async def handle(msg: Any) -> None:
                count()

            await broker.start()
            stop = broker.stop
        await nc.publish(f"{signal}.ready")
        await nc.flush()
        await finished.wait()
        await nc.publish(f"{signal}.done")
        await nc.flush()
        tg.cancel_scope.cancel()
    await stop()
    await nc.close()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:8])
